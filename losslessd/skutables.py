"""SONiC's per-SKU lossless headroom tables (pg_profile_lookup.ini), shipped as data with their source.

On SKUs whose buffers are not sized by a formula (Broadcom, Marvell, Barefoot, Centec ... and every SKU in
SONiC's traditional buffer model), SONiC's buffer manager (sonic-swss cfgmgr/buffermgr.cpp) creates a lossless
PG's profile from the row of the SKU's device/<vendor>/<platform>/<SKU>/pg_profile_lookup.ini whose speed and
cable length are the port's: size, xon, xoff, threshold (dynamic_th or static_th, after the pool's mode) and
an optional xon_offset. losslessd/data/sonic_pg_profiles.json holds those rows for every SKU of
sonic-buildimage at one commit (tests/sku_tables.py builds it), each with the path it came from, the
platform's ASIC type (device/<vendor>/<platform>/platform_asic), the ASIC_TABLE key of Mellanox platforms
(platform/mellanox/asic_table.j2) and the SKU's ingress lossless pool when its buffers_defaults writes it.
"""

from __future__ import annotations

import json
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import Any

from .records import record
from .units import length_m

DATA_FILE = "sonic_pg_profiles.json"


@record(frozen=True)
class PgRow:
    """One pg_profile_lookup.ini row: `speed cable size xon xoff threshold [xon_offset]`."""

    speed_mbps: int
    cable: str  # as written (5m, 40m, 300m): SONiC's CABLE_LENGTH value and part of the profile name
    cable_m: float
    size_bytes: int
    xon_bytes: int
    xoff_bytes: int
    threshold: int  # dynamic_th (alpha = 2^n) or static_th, as the ingress lossless pool's mode says
    xon_offset_bytes: int | None

    @property
    def profile_name(self) -> str:
        """buffermgr.cpp doSpeedUpdateTask: "pg_lossless_" + speed + "_" + cable + "_profile"."""
        return f"pg_lossless_{self.speed_mbps}_{self.cable}_profile"


@record(frozen=True)
class SkuTable:
    """A SKU's lossless PG rows and where they come from. No rows: the SKU's file holds its comment header alone
    (buffermgr.cpp readPgProfileLookupFile skips '#' lines), so buffermgrd binds no lossless profile on it."""

    sku: str
    vendor: str
    platform: str
    asic: str | None  # platform_asic: broadcom, mellanox, marvell-teralynx ...
    path: str
    rows: tuple[PgRow, ...]
    variant: str | None = None  # a folder below the SKU (BALANCED, a per-ASIC 0/1 ...)
    asic_table: str | None = None  # Mellanox ASIC_TABLE key (MELLANOX-SPECTRUM-3 ...)
    pool_size_bytes: int | None = None  # BUFFER_POOL|ingress_lossless_pool size, mode and xoff, when written
    pool_mode: str | None = None
    pool_xoff_bytes: int | None = None
    # Its stock egress_lossless_profile / egress_lossy_profile and their pools, CONFIG_DB fields as written (None:
    # not written literally by its buffers_defaults): {"profiles": {name: fields}, "pools": {name: fields}}, and
    # "lossy": the profile of its lossy queues where not egress_lossy_profile (NVIDIA: q_lossy_profile).
    egress: dict[str, dict[str, dict[str, str]]] | None = field(default=None, hash=False, compare=False)

    @property
    def source(self) -> str:
        src = source()
        return f"{src['repo']} {self.path} @{src['commit'][:12]}"

    def speeds_mbps(self) -> list[int]:
        return sorted({row.speed_mbps for row in self.rows})

    def cables(self, speed_mbps: int) -> list[PgRow]:
        return sorted((r for r in self.rows if r.speed_mbps == speed_mbps), key=lambda r: r.cable_m)

    def row_for(self, speed_mbps: int, cable_m: float) -> PgRow | None:
        """The row SONiC would use for this port, rounding the cable length up to the next listed one (more
        headroom, never less); None when the speed is not listed or the cable is longer than every row."""
        return next((r for r in self.cables(speed_mbps) if r.cable_m >= cable_m - 1e-9), None)


# The file is read a part at a time: a lint looks up one SKU (and the Mellanox platforms' table) of 275, and decoding
# all of the file's 244 KB was 21 M instructions of the example lint's 714 M (docs/lint-at-scale.md, "Session 43, part
# c"). tests/sku_tables.py writes each top-level key at the start of a line with two blanks before it and each entry of
# "tables" and "skus" at the start of a line with four, every SKU's entries on its one line (tests/test_sku_tables.py
# checks that every part read so equals the document json.loads makes of the whole file).
_TOP, _ENTRY = '\n  "', "\n    "
_decode = json.JSONDecoder().raw_decode


@cache
def _text() -> str:
    return (Path(__file__).parent / "data" / DATA_FILE).read_text(encoding="utf-8")


@cache
def _span(name: str) -> tuple[int, int]:
    """Where the value of the top-level key ``name`` lies in the file's text: from the start of its value to the line
    of the next top-level key (or the end)."""
    text = _text()
    header = f'{_TOP}{name}": '
    at = text.find(header)
    if at < 0:
        raise ValueError(f"{DATA_FILE} has no top-level key {name!r} on a line of its own")
    start = at + len(header)
    end = text.find(_TOP, start)
    return start, len(text) if end < 0 else end


@cache
def _section(name: str) -> Any:
    """The value of the top-level key ``name``."""
    return _decode(_text(), _span(name)[0])[0]


def _entry(name: str, key: str) -> Any:
    """The value of ``key`` in the top-level mapping ``name`` (None: no such key), decoded alone. ``key`` is found as
    the file writes it (json.dumps, at the start of a line inside the mapping's span): a key of any other text (a
    quote, a line end) is written escaped, as the file writes its own, and matches no other key."""
    at = _find(name, key)
    return None if at < 0 else _decode(_text(), at)[0]


def _find(name: str, key: str) -> int:
    """Where the value of ``key`` in the top-level mapping ``name`` starts in the file's text (-1: no such key)."""
    start, end = _span(name)
    header = f"{_ENTRY}{json.dumps(key)}: "
    at = _text().find(header, start, end)
    return at if at < 0 else at + len(header)


def source() -> dict:
    """{"repo": ..., "commit": ...} of the shipped tables."""
    return _section("source")


def _row(values: list) -> PgRow:
    speed, cable, size, xon, xoff, threshold, xon_offset = values
    return PgRow(int(speed), cable, length_m(cable), int(size), int(xon), int(xoff), int(threshold),
                 None if xon_offset is None else int(xon_offset))


# Built per SKU asked for, not all at once: the 1,239 rows of the 204 SKUs were 43.5 M instructions of a lint that
# looks up one SKU (docs/lint-at-scale.md, "Session 40, part c").
@cache
def _rows(table_id: str) -> tuple[PgRow, ...]:
    return tuple(_row(r) for r in _entry("tables", table_id))


@cache
def _listed() -> frozenset[str]:
    """The SKUs the file lists: each entry line's key alone decoded."""
    text = _text()
    start, end = _span("skus")
    return frozenset(_decode(line, len(_ENTRY) - 1)[0] for line in text[start:end].split("\n")[1:]
                     if line.startswith(_ENTRY[1:]))


@cache
def _sku_tables(sku: str) -> tuple[SkuTable, ...]:
    """The tables of a SKU the file lists (lookup asks only of those: a name from a device is never kept)."""
    tables = []
    for e in _entry("skus", sku):
        pool = e.get("ingress_lossless_pool") or {}
        tables.append(SkuTable(sku=sku, vendor=e["vendor"], platform=e["platform"], asic=e.get("asic"),
                               path=e["path"], rows=_rows(e["table"]), variant=e.get("variant"),
                               asic_table=e.get("asic_table"), pool_size_bytes=pool.get("size"),
                               pool_mode=pool.get("mode"), pool_xoff_bytes=pool.get("xoff"), egress=e.get("egress")))
    return tuple(tables)


def skus() -> list[str]:
    return sorted(_listed())


def lookup(hwsku: str | None, platform: str | None = None) -> SkuTable | None:
    """The SKU's table: the one of ``platform`` (SONiC DEVICE_METADATA platform) when several platforms carry a
    SKU of that name, else the SKU's own folder's (not a variant folder such as BALANCED). When those still
    disagree (the same SKU name on several platforms), the table with the largest xoff is returned."""
    # (cached per SKU the file lists; found as _entry finds it, not in the list of every SKU: decoding the 275 keys
    # was 3.5 M instructions of the example lint's 587 M, docs/lint-at-scale.md "Session 44, part c")
    entries = _sku_tables(hwsku) if isinstance(hwsku, str) and _find("skus", hwsku) >= 0 else None
    if not entries:
        return None
    if platform:
        on_platform = [e for e in entries if e.platform == platform]
        entries = tuple(on_platform) or entries
    own = [e for e in entries if e.variant is None] or list(entries)
    if len({e.rows for e in own}) == 1:
        return own[0]
    return max(own, key=lambda e: (max((r.xoff_bytes for r in e.rows), default=-1), e.path))


def asic_table_of_platform(platform: str | None) -> str | None:
    """ASIC_TABLE key (MELLANOX-SPECTRUM-N) of a SONiC Mellanox platform (sonic-buildimage asic_table.j2)."""
    return _section("mellanox_platform_asic_table").get(platform or "")
