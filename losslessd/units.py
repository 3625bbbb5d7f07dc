"""Unit conversions shared by parsers. Everything normalises to bytes, ms, Gb/s and metres.

Functions return None for "cannot convert" and raise ValueError for text that is not a
quantity at all, so parsers can tell SYS003 (unknown unit) from SYS002 (garbled value).
"""

from __future__ import annotations

import math
import re

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
_QTY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")


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


def is_small_int(text: str, max_digits: int = 18) -> bool:
    """Whether ``small_int(text, max_digits)`` reads it: the guard to use instead of ``str.isdigit()`` before an
    int() (isdigit() accepts '²', which int() refuses, and any number of digits)."""
    return text.isascii() and text.isdigit() and len(text) <= max_digits


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


def speed_gbps(text: str) -> float:
    """'100G', '400g', '25000' (SONiC Mb/s), '100Gbps', '100gfull' -> Gb/s."""
    t = str(text).strip().lower()
    m = re.match(r"^([0-9]+(?:\.[0-9]+)?)\s*(g|gb|gbps|gbit|gfull|m|mb|mbps|mfull)?", t)
    if not m:
        raise ValueError(f"not a port speed: {_short(text)}")
    value = float(m.group(1))
    if not math.isfinite(value):
        raise ValueError(f"not a port speed: {_short(text)} is too large")
    unit = m.group(2)
    if unit is None:  # bare number: SONiC writes Mb/s
        return value / 1000.0
    return value if unit.startswith("g") else value / 1000.0


def length_m(text: str) -> float:
    """'300m', '5', '40 m', '1km' -> metres."""
    value, unit = _split(str(text))
    factor = {"": 1.0, "m": 1.0, "km": 1000.0, "cm": 0.01}.get(unit)
    if factor is None:
        raise UnknownUnit(f"unknown length unit {unit!r} in {text!r}")
    return value * factor


def int_list(text: str) -> list[int]:
    """'3,4' / '3-4' / '0-2,5' / '3 4' -> sorted unique ints. Raises ValueError when garbled."""
    out: set[int] = set()
    for part in re.split(r"[,\s]+", str(text).strip()):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            a, b = int(lo), int(hi)
            if b < a or b - a > 4096:
                raise ValueError(f"bad range {part!r}")
            out.update(range(a, b + 1))
        else:
            out.add(int(part))
    return sorted(out)


# Standard DSCP names (RFC 2474 class selectors csN = 8N, RFC 2597 assured forwarding afXY = 8X + 2Y, RFC 3246
# expedited forwarding ef = 46, default / be = 0), as switch CLIs accept them in place of numbers.
DSCP_NAMES = {"default": 0, "be": 0, "ef": 46, **{f"cs{n}": 8 * n for n in range(8)},
              **{f"af{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)}}
