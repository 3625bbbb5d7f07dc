"""What SONiC's traditional buffer manager does to a port's lossless PGs (pure: facts in, decision out).

In the traditional (static) buffer model buffermgrd rebinds every PFC-enabled port's lossless PGs to a profile
it makes from the SKU's pg_profile_lookup.ini, over whatever BUFFER_PG profile the config wrote. So the profile a
template wrote for those PGs is not what the switch runs where buffermgrd makes one. The rules below are
sonic-swss cfgmgr/buffermgr.cpp (e6b0c5b5d2ab), BufferMgr::doSpeedUpdateTask and doTask, line by line:

- doTask (DEVICE_METADATA, doBufferMetaTask): `buffer_model: dynamic` stops all of it (buffermgrdyn runs instead).
- doTask (PORT): a port is handled only when the lookup file was read and its PORT entry has `speed`; a PORT entry
  without `admin_status` counts as "down".
- doSpeedUpdateTask: nothing without a CABLE_LENGTH value for the port, or when that value is "0m"; nothing
  without a `pfc_enable` in the port's own PORT_QOS_MAP entry (doPortQosTableTask keys it by the entry's key as
  written, so `PORT_QOS_MAP|Ethernet0,Ethernet4`, which qosorch splits, gives buffermgrd no port).
- the PGs are the pfc_enable numbers themselves (not through TC_TO_PRIORITY_GROUP_MAP): the comma-separated items that
  swss converter.h to_uint<uint8_t> reads whole (converter.to_uint: stoul base 0, leading blanks, a sign, `0x` hex or
  `0` octal, no trailing text, at most 255; other items are skipped, one past unsigned long throws out_of_range, which
  only buffermgrd's main catches: it exits), set as `1 << n` in a bitmap and written as one BUFFER_PG key per run of
  consecutive ids (orch.cpp generateIdListFromMap(bitmap, 8): ids 0-8 scanned, a run still open at id 8 never written:
  "3,4" -> `<port>|3-4`, "0x3" -> `<port>|3`, "7,8" -> nothing).
- ASIC_VENDOR mellanox or barefoot and admin status "down": no binding (a PG already on the made profile is
  deleted; any other is left as written).
- no lookup row whose speed and cable strings equal the PORT `speed` and CABLE_LENGTH value: no binding
  (SWSS_LOG_ERROR "No PG profile configured", task_invalid_entry); a file of its comment header alone (the Arista
  7060X6 SKUs') has no row for any port (readPgProfileLookupFile skips lines starting with '#').
- the profile is `pg_lossless_<speed>_<cable>_profile`; an existing BUFFER_PROFILE of that name is reused as
  written, else it is made from the row (pool ingress_lossless_pool, xon, xon_offset when the row has one, xoff,
  size and `<pool mode>_th` = the row's threshold); with no mode on ingress_lossless_pool it retries (binds
  nothing yet).
- each key is written with that profile unless it already names it.
"""

from __future__ import annotations

from ...records import record
from ...skutables import PgRow, SkuTable
from .converter import StoulOutOfRange, to_uint

# platform_asic values whose admin-down ports get no lossless PG (buffermgr.cpp doSpeedUpdateTask:
# m_platform == "mellanox" || m_platform == "barefoot", m_platform being the ASIC_VENDOR environment variable).
DOWN_PORTS_RECLAIMED = frozenset({"mellanox", "barefoot"})
LOSSLESS_POOL = "ingress_lossless_pool"  # buffermgr.h INGRESS_LOSSLESS_PG_POOL_NAME
_SCANNED = 8  # generateIdListFromMap(lossless_pg_id, sizeof(lossless_pg_id)): 8, and the loop runs id <= maxId


def pfc_pgs(pfc_enable: str | None) -> list[int]:
    """buffermgr.cpp doSpeedUpdateTask: tokenize(pfc_enable, ',') and to_uint<uint8_t> of each item (converter.to_uint
    0-255), skipping those it refuses (invalid_argument); the ids it sets in the bitmap. ValueError(the first item
    whose effect is undefined, the ids of the others) for an item out of range of stoul (buffermgrd exits) or of 32
    and above (`1 << n` on an int)."""
    out, undefined = [], []
    for item in (pfc_enable or "").split(","):
        try:
            n = to_uint(item, 0, 255)
        except StoulOutOfRange:  # (doSpeedUpdateTask does not catch it: buffermgrd exits)
            n = 32
        except ValueError:
            continue
        if n >= 32:
            undefined.append(item)
        else:
            out.append(n)
    if undefined:
        raise ValueError(undefined[0], out)
    return out


@record(frozen=True)
class Binding:
    """What buffermgrd does to one port: ``kind`` "rebind" (``profile`` on the ``keys``' PGs), "none" (the config's
    PGs run as written, and buffermgrd makes none), "down" (an admin-down port of a Mellanox or Barefoot switch: the
    config's PGs stay as written, and the port's lossless PGs are bound when it comes up) or "unknown" (whether and
    what it binds depends on a fact the input lacks: ``why``)."""

    kind: str
    why: str = ""
    profile: str | None = None
    row: PgRow | None = None
    keys: tuple[tuple[str, tuple[int, ...]], ...] = ()  # (the range text buffermgrd keys, its PG numbers)
    source: str = ""  # where ``row`` comes from (the SKU table's path and commit)
    said: bool = False  # "none" whose ``why`` is said once per switch (a lookup file of its header alone)


def pg_ranges(pgs: list[int] | tuple[int, ...]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """orch.cpp generateIdListFromMap(bitmap, 8): runs of consecutive ids 0-8, "3-4" for 3 and 4, "6" for 6 alone;
    a run is written when a clear id ends it, so one reaching id 8 is never written (ids above 8 are not read)."""
    out: list[tuple[str, tuple[int, ...]]] = []
    run: list[int] = []
    for n in range(_SCANNED + 1):
        if n in pgs:
            run.append(n)
        elif run:
            out.append((f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]), tuple(run)))
            run = []
    return tuple(out)


def binding(*, speed: str | None, cable: str | None, admin_status: str | None, pfc: list[int] | None,
            table: SkuTable | None, sku_known: bool, vendor: str | None) -> Binding:
    """buffermgrd's decision for one port of a traditional-model switch (see the module docstring).

    ``speed``/``cable``/``admin_status``: PORT speed, CABLE_LENGTH value and PORT admin_status as written (None:
    not written); ``table``: the SKU's lookup table when losslessd ships it; ``sku_known``: whether the input says
    which SKU (else the table is unknown); ``vendor``: the platform's ASIC vendor (platform_asic), None unknown."""
    keys = pg_ranges(pfc or ())
    if not keys or not cable or cable == "0m" or speed is None:
        return Binding("none")
    name = f"pg_lossless_{speed}_{cable}_profile"
    down = admin_status is None or admin_status == "down"
    if down and vendor in DOWN_PORTS_RECLAIMED:
        return Binding("down", keys=keys)
    if table is None:
        why = ("the switch's pg_profile_lookup.ini is not in the input and losslessd ships no table for its SKU"
               if sku_known else "the input names no SKU (DEVICE_METADATA hwsku), so its pg_profile_lookup.ini is "
               "unknown")
        return Binding("unknown", why, profile=name, keys=keys)
    if down and vendor is None:
        return Binding("unknown", f"the port is not admin up, and whether buffermgrd binds such a port depends on the "
                                  f"ASIC vendor, which SKU {table.sku}'s platform does not name",
                       profile=name, keys=keys)
    if not table.rows:
        return Binding("none", f"SKU {table.sku}'s pg_profile_lookup.ini ({table.path}) holds only its comment header, "
                               "so SONiC's buffer manager has no row for any port and binds no lossless profile "
                               "(buffermgr.cpp readPgProfileLookupFile skips '#' lines, doSpeedUpdateTask: \"No PG "
                               "profile configured\"); it runs so in the traditional model, as this switch does "
                               "(DEVICE_METADATA buffer_model is not dynamic)", keys=keys, said=True)
    row = next((r for r in table.rows if str(r.speed_mbps) == speed and r.cable == cable), None)
    if row is None:
        return Binding("none", f"SKU {table.sku}'s pg_profile_lookup.ini has no row for speed {speed} and cable "
                               f"{cable}, so SONiC's buffer manager binds no profile (buffermgr.cpp: \"No PG profile "
                               "configured\")")
    return Binding("rebind", profile=name, row=row, keys=keys, source=table.source)
