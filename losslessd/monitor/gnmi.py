"""gNMI counter paths per platform, and the pure parsers that turn the updates a device streams
into ``Key`` values (losslessd.collect.gnmi subscribes and assembles them into ``Reading``s).

A path set is what one platform serves: OpenConfig where it has the counters (interfaces and QoS
queues), the platform's own paths where OpenConfig has none (OpenConfig models no per-priority PFC
counters: openconfig-if-ethernet has only the 802.3x in-/out-mac-pause-frames). docs/gnmi.md has the
table. Parsers are pure; a value that is not a counter raises ValueError naming the path, and a
device whose answer gives no counter at all is a failed poll (the collector decides).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..lazyre import lazy
from ..platforms import PLATFORMS
from ..printable import printable
from ..records import record
from ..units import is_small_int
from . import (
    DROPPED_PACKETS,
    ECN_MARKED,
    IN_DISCARDS,
    IN_OCTETS,
    IN_PACKETS,
    OUT_DISCARDS,
    OUT_OCTETS,
    OUT_PACKETS,
    PAUSE_DURATION_US,
    PFC_RX,
    PFC_TX,
    TX_BYTES,
    TX_PACKETS,
    WD_RESTORED,
    WD_STORMS,
    Key,
    port_name_problem,
)

Elem = tuple[str, tuple[tuple[str, str], ...]]  # (name, sorted (key, value) pairs)


@record(frozen=True)
class GnmiPath:
    """One subscription path: ``text`` as written in the docs, parsed into elements."""

    text: str
    target: str = ""  # the prefix target (SONiC names its Redis database here)
    origin: str = ""

    @property
    def elems(self) -> tuple[Elem, ...]:
        return parse_path(self.text)


_ELEM = lazy(r"([^/\[\]]+)((?:\[[^=\]]+=[^\]]*\])*)")
_KEY = lazy(r"\[([^=\]]+)=([^\]]*)\]")


def parse_path(text: str) -> tuple[Elem, ...]:
    """'/a/b[k=v]/c' -> (('a', ()), ('b', (('k', 'v'),)), ('c', ())). Values hold no '/' or ']'."""
    out = []
    for part in [p for p in re.split(r"/(?![^\[]*\])", text.strip("/")) if p]:
        m = _ELEM.fullmatch(part)
        if not m:
            raise ValueError(f"gNMI path {text!r}: element {part!r} is not NAME[key=value]...")
        out.append((m[1], tuple(sorted(_KEY.findall(m[2])))))
    return tuple(out)


def path_text(elems: Iterable[Elem]) -> str:
    return "/" + "/".join(name + "".join(f"[{k}={v}]" for k, v in keys) for name, keys in elems)


# -- SONiC: the telemetry container's COUNTERS_DB virtual paths -------------------------------------
# sonic-net/sonic-gnmi sonic_data_client/virtual_db.go (pathTransFuncTbl) and SONiC
# doc/system-telemetry/grpc_telemetry.md "Virtual path": target COUNTERS_DB, each path's value one JSON
# object keyed by port (the port's vendor alias where CONFIG_DB gives one), "<port>:<queue>" for queues.
SONIC_COUNTERS = "COUNTERS_DB"
SONIC_PATHS = (
    GnmiPath("COUNTERS/Ethernet*", target=SONIC_COUNTERS),
    GnmiPath("COUNTERS/Ethernet*/Queues", target=SONIC_COUNTERS),
    GnmiPath("COUNTERS/Ethernet*/Pfcwd", target=SONIC_COUNTERS),
)
# SAI counter names as syncd writes them to COUNTERS_DB (SAI saiport.h / saiqueue.h enums; the port
# names shown by sonic-net/SONiC grpc_telemetry.md's COUNTERS/Ethernet9 example).
_SONIC_PORT = {
    "SAI_PORT_STAT_IF_IN_OCTETS": IN_OCTETS, "SAI_PORT_STAT_IF_OUT_OCTETS": OUT_OCTETS,
    "SAI_PORT_STAT_IF_IN_DISCARDS": IN_DISCARDS, "SAI_PORT_STAT_IF_OUT_DISCARDS": OUT_DISCARDS,
}
# Packets are served split by cast (IF-MIB style): the port's packets are their sum.
_SONIC_IN_PKTS = ("SAI_PORT_STAT_IF_IN_UCAST_PKTS", "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS")
_SONIC_OUT_PKTS = ("SAI_PORT_STAT_IF_OUT_UCAST_PKTS", "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS")
# SAI_PORT_STAT_PFC_<p>_RX_PKTS / _TX_PKTS: pause frames received / sent per priority (SONiC's PFC
# watchdog reads the RX one: sonic-swss orchagent/pfc_detect_*.lua); _RX_PAUSE_DURATION_US where the
# PFC watchdog's flex counter group polls it (sonic-swss tests/test_pfcwd.py expected_counters_list).
_SONIC_PFC = lazy(r"SAI_PORT_STAT_PFC_([0-7])_(RX_PKTS|TX_PKTS|RX_PAUSE_DURATION_US)")
_SONIC_PFC_NAMES = {"RX_PKTS": PFC_RX, "TX_PKTS": PFC_TX, "RX_PAUSE_DURATION_US": PAUSE_DURATION_US}
# Queue counters (saiqueue.h; ECN marks in the WRED_ECN_QUEUE flex counter group of SONiC's "WRED and
# ECN statistics" HLD).
_SONIC_QUEUE = {
    "SAI_QUEUE_STAT_PACKETS": TX_PACKETS, "SAI_QUEUE_STAT_BYTES": TX_BYTES,
    "SAI_QUEUE_STAT_DROPPED_PACKETS": DROPPED_PACKETS, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": ECN_MARKED,
}
# PFC watchdog per queue (sonic-swss orchagent/pfcactionhandler.cpp; sonic-utilities pfcwd/main.py
# STATS_DESCRIPTION "STORM DETECTED/RESTORED"). PFC_WD_STATUS (stormed / operational) is checked but not
# kept: the detected/restored counters carry the same news and also a storm that came and went between
# two samples.
_SONIC_WD = {"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": WD_STORMS, "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": WD_RESTORED}
_SONIC_WD_STATUS = "PFC_WD_STATUS"
_SONIC_WD_STATES = {"stormed", "operational"}

# -- OpenConfig (EOS, NX-OS, Junos) ------------------------------------------------------------------
# openconfig/public release/models/interfaces/openconfig-interfaces.yang (interface state counters)
# and release/models/qos/openconfig-qos-interfaces.yang (output queue state, ecn-marked-pkts since 0.x).
OC_INTERFACES = GnmiPath("/interfaces/interface[name=*]/state/counters")
OC_QUEUES = GnmiPath("/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state")
# Arista's augments of openconfig-if-ethernet (aristanetworks/yang EOS-4.36.1F
# release/openconfig/models/interfaces/arista-intf-augments.yang; pathreport.csv lists them served).
EOS_PFC = GnmiPath("/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state")
EOS_PFC_WATCHDOG = GnmiPath("/interfaces/interface[name=*]/ethernet/pfc/watchdog/tx-queues/tx-queue"
                            "[index=*][queue-type=*]/state")
_OC_INTERFACE = {"in-octets": IN_OCTETS, "out-octets": OUT_OCTETS, "in-pkts": IN_PACKETS, "out-pkts": OUT_PACKETS,
                 "in-discards": IN_DISCARDS, "out-discards": OUT_DISCARDS}
_OC_QUEUE = {"transmit-pkts": TX_PACKETS, "transmit-octets": TX_BYTES, "dropped-pkts": DROPPED_PACKETS,
             "ecn-marked-pkts": ECN_MARKED}
_EOS_PFC = {"in-frames": PFC_RX, "out-frames": PFC_TX, "pfc-on-total-rx-time": PAUSE_DURATION_US}
_EOS_WD = {"stuck-count": WD_STORMS, "recovery-count": WD_RESTORED}  # oc-yang:counter32
_NS_PER_US = 1000  # pfc-on-total-rx-time counts nanoseconds (arista-pfc-history-counters-augment.yang)

# Path sets by the name a platform record gives (losslessd.platforms, Platform.gnmi). NX-OS and Junos serve the
# OpenConfig interface and queue counters; their per-priority PFC counters come from SNMP (NX-OS
# CISCO-PFC-EXT-MIB) or the CLI, since neither OpenConfig nor a vendor path this project could verify serves
# them over gNMI.
PATH_SETS: dict[str, tuple[GnmiPath, ...]] = {
    "sonic": SONIC_PATHS,
    "openconfig_eos": (OC_INTERFACES, OC_QUEUES, EOS_PFC, EOS_PFC_WATCHDOG),
    "openconfig": (OC_INTERFACES, OC_QUEUES),
}
# Paths per platform id.
PATHS: dict[str, tuple[GnmiPath, ...]] = {p.id: PATH_SETS[p.gnmi] for p in PLATFORMS.values() if p.gnmi}


# -- parsing ---------------------------------------------------------------------------------------

@record
class Parsed:
    """Counters found in one notification; ``kind`` names which subscription they belong to."""

    kind: str
    values: dict[Key, int]
    bits: dict[Key, int]
    updates: int  # updates (leaves or JSON blobs) it held


_UINT64_END = 2**64  # a counter is a uint64 (RFC 7951 6.1; OpenConfig counter64): 99,999,999,999,999,999,999 is none


def counter(value: object, where) -> int:
    """A counter as gNMI carries it: an unsigned int, or a string of digits (SONiC serves strings;
    RFC 7951 JSON encodes 64-bit integers as strings). ``where`` names it in the error: a string, or
    a callable that makes one (the hot path builds no names for counters that parse)."""
    if type(value) is int and 0 <= value < _UINT64_END:
        return value
    if type(value) is str and is_small_int(value, 20) and int(value) < _UINT64_END:
        return int(value)
    where = where() if callable(where) else where
    raise ValueError(f"{where}: {str(value)[:40]!r} is not a counter")


def queue_index(name: str, where: str) -> int:
    """The queue number in an OpenConfig queue name: '3', 'UC3', 'q3' -> 3 (trailing digits)."""
    m = re.search(r"(\d{1,3})$", name)
    if not m:
        raise ValueError(f"{where}: queue name {name!r} carries no queue number")
    return int(m[1])


def parse_sonic(elems: tuple[Elem, ...], value: object) -> Parsed:
    """One update of a COUNTERS_DB virtual path: its decoded JSON value is {port: {field: "n"}} (or,
    for Queues/Pfcwd, {"port:queue": {...}})."""
    names = [e[0] for e in elems]
    if len(names) < 2 or names[0] != "COUNTERS" or not names[1].startswith("Ethernet"):
        raise ValueError(f"{path_text(elems)} is not a COUNTERS_DB port path")
    kind = names[2] if len(names) > 2 else "Ports"
    if kind not in ("Ports", "Queues", "Pfcwd"):
        raise ValueError(f"{path_text(elems)}: no counters known under {kind!r}")
    data = value
    where = path_text(elems)
    if not isinstance(data, dict):
        raise ValueError(f"{where}: value is not a JSON object")
    values: dict[Key, int] = {}
    for name, fields in data.items():
        if not isinstance(fields, dict):
            raise ValueError(f"{where}: {name!r} holds no counter fields")
        here = f"{where} {name}"
        if kind == "Ports":
            _sonic_port(port_name(name, where), fields, here, values)
            continue
        port, sep, q = str(name).rpartition(":")
        if not sep or not port or not is_small_int(q):
            raise ValueError(f"{where}: {name!r} is not PORT:QUEUE")
        port_name(port, where)
        table = _SONIC_QUEUE if kind == "Queues" else _SONIC_WD
        for field, counter_name in table.items():
            if field in fields:
                values[Key(port, counter_name, int(q))] = counter(fields[field], f"{here} {field}")
        if kind == "Pfcwd" and _SONIC_WD_STATUS in fields and fields[_SONIC_WD_STATUS] not in _SONIC_WD_STATES:
            raise ValueError(f"{here}: {_SONIC_WD_STATUS} {str(fields[_SONIC_WD_STATUS])[:40]!r} is not "
                             f"{' or '.join(sorted(_SONIC_WD_STATES))}")
    return Parsed(kind, values, {}, 1)


def _sonic_port(port: str, fields: dict, where: str, values: dict[Key, int]) -> None:
    for field, name in _SONIC_PORT.items():
        if field in fields:
            values[Key(port, name)] = counter(fields[field], f"{where} {field}")
    for name, parts in ((IN_PACKETS, _SONIC_IN_PKTS), (OUT_PACKETS, _SONIC_OUT_PKTS)):
        if all(p in fields for p in parts):
            values[Key(port, name)] = sum(counter(fields[p], f"{where} {p}") for p in parts)
    for field, raw in fields.items():
        if field.startswith("SAI_PORT_STAT_PFC_") and (m := _SONIC_PFC.fullmatch(field)):
            values[Key(port, _SONIC_PFC_NAMES[m[2]], int(m[1]))] = counter(raw, f"{where} {field}")


def parse_openconfig(elems: tuple[Elem, ...], value: object) -> Parsed:
    """One update under an OpenConfig path of PATHS: a leaf (a number or numeric string), or a
    container whose decoded JSON value is an object of leaves (module prefixes dropped)."""
    if isinstance(value, dict):
        return oc_container(elems, {str(k).rpartition(":")[2]: v for k, v in value.items()})
    if not elems:
        raise ValueError("an update with an empty path")
    return oc_container(elems[:-1], {elems[-1][0]: value})


def oc_container(container: tuple[Elem, ...], leaves: dict[str, object]) -> Parsed:
    """Leaves (name -> value) of one OpenConfig state container, by which container it is; the
    collector hands a notification's leaf updates in one call."""
    where = _Where(container)
    names = tuple(e[0] for e in container)
    keys = [dict(e[1]) for e in container]
    values: dict[Key, int] = {}
    bits: dict[Key, int] = {}
    if names == ("interfaces", "interface", "state", "counters"):
        kind, port, table, index = "interfaces", keys[1].get("name"), _OC_INTERFACE, None
    elif names == ("qos", "interfaces", "interface", "output", "queues", "queue", "state"):
        kind, port, table = "queues", keys[2].get("interface-id"), _OC_QUEUE
        index = queue_index(keys[5].get("name", ""), where)
    elif names == ("interfaces", "interface", "ethernet", "pfc", "priorities", "priority", "state"):
        kind, port, table = "pfc", keys[1].get("name"), _EOS_PFC
        index = _small_int(keys[5].get("index"), where)
    elif names == ("interfaces", "interface", "ethernet", "pfc", "watchdog", "tx-queues", "tx-queue", "state"):
        if keys[6].get("queue-type", "UNICAST") != "UNICAST":  # the lossless traffic is unicast
            return Parsed("watchdog", {}, {}, len(leaves))
        kind, port, table = "watchdog", keys[1].get("name"), _EOS_WD
        index = _small_int(keys[6].get("index"), where)
    else:
        raise ValueError(f"{where} is not a counter path losslessd reads")
    if not port or port == "*":
        raise ValueError(f"{where}: no interface name in the path")
    port_name(port, where)
    for leaf, raw in leaves.items():
        name = table.get(leaf)
        if name is None:
            continue
        v = counter(raw, lambda: f"{where}/{leaf}")
        key = Key(port, name, index)
        values[key] = v // _NS_PER_US if name == PAUSE_DURATION_US else v
        if table is _EOS_WD:
            bits[key] = 32
    return Parsed(kind, values, bits, len(leaves))


def port_name(name: str, where) -> str:
    """``name`` when it can name a port (port_name_problem): a device's JSON may hold any key."""
    if (problem := port_name_problem(name)) is None:
        return name
    shown = printable(name[:80]) + (f"... ({len(name):,} characters)" if len(name) > 80 else "")
    raise ValueError(f"{printable(str(where))}: '{shown}' is not a port name ({problem})")


class _Where:
    """A container's path text, made only when an error names it."""

    __slots__ = ("elems",)

    def __init__(self, elems: tuple[Elem, ...]):
        self.elems = elems

    def __str__(self) -> str:
        return path_text(self.elems)


def _small_int(text: str | None, where) -> int:
    if text is None or not is_small_int(text, 2) or int(text) > 15:
        raise ValueError(f"{where}: index {text!r} is not a priority or queue number")
    return int(text)


def parser(platform: str):
    """The update parser of a platform's path set."""
    return parse_sonic if PATHS.get(platform) is SONIC_PATHS else parse_openconfig
