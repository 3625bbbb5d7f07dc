"""Unit conversions shared by parsers. Everything normalises to bytes, ms, Gb/s and metres.

Functions return None for "cannot convert" and raise ValueError for text that is not a
quantity at all, so parsers can tell SYS003 (unknown unit) from SYS002 (garbled value).
"""

from __future__ import annotations

import math

from .lazyre import lazy

# Decimal vs binary: switch CLIs (EOS "kbytes", NVUE "KB") use 1024-based multiples for buffers;
# Arista EOS QoS configuration guide: "kbytes" = 1024 bytes.
_BYTE_UNITS = {
    "b": 1, "byte": 1, "bytes": 1,
    "k": 1024, "kb": 1024, "kbyte": 1024, "kbytes": 1024, "kib": 1024,
    "m": 1024**2, "mb": 1024**2, "mbyte": 1024**2, "mbytes": 1024**2, "mib": 1024**2,
    "g": 1024**3, "gb": 1024**3, "gbytes": 1024**3, "gib": 1024**3,
}
_TIME_UNITS_MS = {"ns": 1e-6, "nanoseconds": 1e-6, "us": 1e-3, "microseconds": 1e-3, "usec": 1e-3,
                  "ms": 1.0, "milliseconds": 1.0, "msec": 1.0, "s": 1000.0, "sec": 1000.0, "seconds": 1000.0}
# 10000-01-01T00:00Z: the first Unix time past datetime.MAXYEAR (9999, Python docs "datetime"), which no report can
# print (time.localtime and datetime raise OverflowError or ValueError): a stored time at or past it is damage.
LAST_UNIX_S = 253_402_300_800


def is_printable_time(value: object) -> bool:
    """A Unix time (int or float, as SQLite gives them back) that a report can print: 0 up to LAST_UNIX_S."""
    return type(value) in (int, float) and 0 <= value < LAST_UNIX_S  # type: ignore[operator]
_QTY = lazy(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")


class UnknownUnit(ValueError):
    """The number is fine; its unit is not one we know."""


def _split(text: str) -> tuple[float, str]:
    m = _QTY.match(str(text))
    if not m:
        raise ValueError(f"not a quantity: {text!r}")
    value = float(m.group(1))
    if not math.isfinite(value):  # 400 digits are a float overflow, not a setting
        raise ValueError(f"not a quantity: {_short(text)} is too large")
    return value, m.group(2).lower()


def _short(text: object) -> str:
    shown = repr(str(text))
    return shown if len(shown) <= 40 else shown[:37] + "..."


def is_digits(text: str) -> bool:
    """Whether ``text`` is ASCII digits: what to use instead of ``str.isdigit()``, which takes '²' (int() refuses it:
    an internal error) and other scripts' digits ('٣' is 3 to int(): a number no device or shell reads so)."""
    return text.isascii() and text.isdigit()


def is_small_int(text: str, max_digits: int = 18) -> bool:
    """Whether ``small_int(text, max_digits)`` reads it: the guard to use before an int() (is_digits, and at most
    ``max_digits`` digits)."""
    return is_digits(text) and len(text) <= max_digits


def small_int(text: str, max_digits: int = 18) -> int:
    """A whole number written with ASCII digits, at most ``max_digits`` of them (CPython refuses to convert
    more than 4,300 and no setting needs more than 20); ValueError otherwise."""
    if not is_small_int(text, max_digits):
        raise ValueError(f"not a whole number of at most {max_digits} digits: {_short(text)}")
    return int(text)


def is_byte_unit(unit: str) -> bool:
    return unit.lower() in _BYTE_UNITS


def is_time_unit(unit: str) -> bool:
    return unit.lower() in _TIME_UNITS_MS


def to_bytes(text: str | int | float, default_unit: str = "bytes") -> int:
    """'320 kbytes' -> 327680. Raises UnknownUnit for units that are not byte units."""
    value, unit = _split(str(text))
    unit = unit or default_unit
    if unit not in _BYTE_UNITS:
        raise UnknownUnit(f"unknown byte unit {unit!r} in {text!r}")
    return int(round(value * _BYTE_UNITS[unit]))


def to_ms(text: str | int | float, default_unit: str = "ms") -> float:
    value, unit = _split(str(text))
    unit = unit or default_unit
    if unit not in _TIME_UNITS_MS:
        raise UnknownUnit(f"unknown time unit {unit!r} in {text!r}")
    return value * _TIME_UNITS_MS[unit]


def time_to_bytes(ms: float, speed_gbps: float | None) -> int | None:
    """Queue depth that drains in ``ms`` at line rate; None without a speed."""
    if speed_gbps is None:
        return None
    return int(round(ms * 1e-3 * speed_gbps * 1e9 / 8))


def bytes_to_us(nbytes: float, speed_gbps: float | None) -> float | None:
    """Time to serialise ``nbytes`` at line rate, in microseconds."""
    if not speed_gbps:
        return None
    return nbytes * 8 / (speed_gbps * 1e3)


# Port speeds: SONiC PORT.speed is "type uint32 { range 1..1600000; }" Mb/s (sonic-buildimage
# src/sonic-yang-models/yang-models/sonic-port.yang), 1.6 Tb/s being the fastest Ethernet (IEEE 802.3dj).
MAX_SPEED_GBPS = 1600.0
# '100G', '400g-8' (EOS: lanes), '100gfull', '25000' (Mb/s), '100000Mb/s' (ethtool), '100Gbps'; EOS also writes
# '1.6t-8', '2.5gfull', '100mhalf' and '1000half' (Mb/s) (AVD's eos_cli_config_gen schema, ethernet_interfaces speed).
_SPEED = lazy(r"([0-9]{1,7}(?:\.[0-9]{1,3})?)\s*(g|gb|gbps|gbit|gfull|m|mb|mbps|mb/s|mfull|mhalf|full|half|t)?"
                    r"(?:-[0-9]{1,2})?")


def speed_gbps(text: str) -> float:
    """'100G', '400g', '25000' (SONiC Mb/s), '100Gbps', '100gfull', '400g-8', '1.6t-8' -> Gb/s. ValueError for anything
    else: a speed of 0, above MAX_SPEED_GBPS, or with more after it ('1e3' is not 1 Mb/s)."""
    t = str(text).strip().lower()
    m = _SPEED.fullmatch(t)
    if not m:
        raise ValueError(f"not a port speed: {_short(text)}")
    value = float(m.group(1))
    unit = m.group(2)
    if unit == "t":  # Tb/s (EOS `speed 1.6t-8`)
        value *= 1000.0
    elif unit is None or not unit.startswith("g"):  # bare number, full or half: Mb/s (SONiC, EOS `speed 10000full`)
        value /= 1000.0
    if not 0 < value <= MAX_SPEED_GBPS:
        raise ValueError(f"not a port speed: {_short(text)} is outside 1 Mb/s-{MAX_SPEED_GBPS:g} Gb/s")
    return value


# The longest single span of a pluggable Ethernet PHY: OIF 800ZR, 80-120 km (IEEE 802.3cw 400GBASE-ZR: at least 80 km).
# Its round trip at 400 Gb/s already holds 60 MB, more headroom than a switch's whole buffer.
MAX_CABLE_M = 120_000


def cable_m(text: str) -> float:
    """length_m of a cable a device names, at most MAX_CABLE_M (ValueError beyond: a CONFIG_DB's `"1000...0m"` of 40
    digits was taken, and its headroom asked for 10^35 bytes)."""
    metres = length_m(text)
    if not metres <= MAX_CABLE_M:
        raise ValueError(f"{text!r} is longer than {MAX_CABLE_M:,} m, the longest Ethernet span (800ZR)")
    return metres


def length_m(text: str) -> float:
    """'300m', '5', '40 m', '1km' -> metres (0 is kept: a SONiC port of cable "0m" has no lossless PG made,
    tests/test_parse_sonic.py)."""
    value, unit = _split(str(text))
    factor = {"": 1.0, "m": 1.0, "km": 1000.0, "cm": 0.01}.get(unit)
    if factor is None:
        raise UnknownUnit(f"unknown length unit {unit!r} in {text!r}")
    return value * factor


# Items of a list: separated by commas (with or without spaces) or by spaces. An empty item between two commas is an
# error: sonic-swss reads such lists with tokenize(value, ',') and stoi() of each item, and stoi("") throws
# (orchagent/qosorch.cpp, pfc_enable); a trailing comma, as mlnx_qos prints its DSCP lists, is kept apart.
_ITEM_SEPARATOR = lazy(r"\s*,\s*|\s+")


def list_items(text: str) -> list[str]:
    """'3,4' / '3 4' / '3, 4' / '3,4,' -> ['3', '4']; ValueError for an empty item ('3,,4', ',3', ',')."""
    items = _ITEM_SEPARATOR.split(str(text).strip())
    if items and items[-1] == "" and len(items) > 1:
        items.pop()  # one trailing comma
    if "" in items and (items != [""] or "," in text):
        raise ValueError(f"an empty item in the list {_short(text)}")
    return [] if items == [""] else items


def int_list(text: str) -> list[int]:
    """'3,4' / '3-4' / '0-2,5' / '3 4' -> sorted unique ints. Raises ValueError when garbled: an item or a range end
    that is not ASCII digits ('+3', '1e3', '0x3', '٣'), a range reversed or open ('5-3', '3-', '-'), an empty item."""
    out: set[int] = set()
    for part in list_items(text):
        if "-" in part:
            lo, hi = part.split("-", 1)
            a, b = small_int(lo, 6), small_int(hi, 6)
            if b < a or b - a > 4096:
                raise ValueError(f"bad range {part!r}")
            out.update(range(a, b + 1))
        else:
            out.add(small_int(part, 6))
    return sorted(out)


_DECIMAL = lazy(r"[0-9]{1,18}(?:\.[0-9]{1,9})?")


def decimal(text: str, lo: float, hi: float) -> float:
    """A number as configs write one, ASCII digits with perhaps a decimal point ('50', '0.5'), from ``lo`` to ``hi``.
    ValueError for anything float() would also take: '1e3', '1_000', 'nan', 'inf', '+5', ' 5', '٥'."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"not a plain number: {_short(text)}")
    value = float(text)
    if not lo <= value <= hi:
        raise ValueError(f"{_short(text)} is outside {lo:g}-{hi:g}")
    return value


def whole(text: str, lo: int, hi: int) -> int:
    """A whole number of ASCII digits from ``lo`` to ``hi`` (int() would also take '+5', ' 5', '1_000', '٥');
    ValueError otherwise."""
    value = small_int(text, max(len(str(hi)), 1))
    if not lo <= value <= hi:
        raise ValueError(f"{_short(text)} is outside {lo}-{hi}")
    return value


# Standard DSCP names (RFC 2474 class selectors csN = 8N, RFC 2597 assured forwarding afXY = 8X + 2Y, RFC 3246
# expedited forwarding ef = 46, default / be = 0), as switch CLIs accept them in place of numbers.
DSCP_NAMES = {"default": 0, "be": 0, "ef": 46, **{f"cs{n}": 8 * n for n in range(8)},
              **{f"af{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)}}
