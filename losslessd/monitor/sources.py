"""Counter sources: one poll of one device -> a ``Reading`` of raw counters.

SNMP (``reading_from_snmp``) gives pause frames per priority, queue TX and drops, octets and
discards, and on Cisco NX-OS the on-box PFC watchdog's counts. What SNMP does not serve comes from
SSH commands (``Platform.counter_commands``, parsed by ``reading_from_commands``): SONiC's watchdog counts and
per-queue ECN marks, and a host NIC's pause counters, pause time, PFC storm prevention counts and congestion (ECN/CNP)
counters.

Parsers are pure. Output that is not what the command prints raises ValueError naming the device and
the command; a value a platform prints as N/A is left out (unknown), never read as 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..collect.snmp import SnmpSample
from ..lazyre import lazy
from ..platforms import PLATFORMS
from ..printable import printable
from ..units import is_small_int
from . import (
    CNP_HANDLED,
    CNP_SENT,
    DROPPED_PACKETS,
    ECN_MARKED,
    IN_DISCARDS,
    IN_OCTETS,
    LINK_PAUSE_RX,
    LINK_PAUSE_TX,
    OUT_DISCARDS,
    OUT_OCTETS,
    PAUSE_DURATION_US,
    PAUSE_STORM_ERRORS,
    PAUSE_STORM_WARNINGS,
    PFC_RX,
    PFC_TX,
    RX_BUFFER_DISCARDS,
    RX_DISCARDS,
    TX_PACKETS,
    WD_RESTORED,
    WD_STORMS,
    Key,
    Reading,
    port_name_problem,
)

_SNMP_32BIT = (IN_DISCARDS, OUT_DISCARDS)  # IF-MIB ifTable Counter32 columns (RFC 2863)


def reading_from_snmp(sample: SnmpSample) -> Reading:
    """The sample's counters as keys. Per-priority PFC columns only (CISCO-PFC-EXT-MIB, or EOS's
    ARISTA-PFC-MIB: collect.snmp reads both into one row): requests are PFC frames the port sent
    (PFC_TX), indications frames it received (PFC_RX), as SONiC's agent fills them (sonic-snmpagent
    ciscoPfcExtMIB.py, SAI_PORT_STAT_PFC_<p>_TX/RX_PKTS); its per-port columns are priority 3 only, so
    they are left out."""
    values: dict[Key, int] = {}

    def put(port: str, name: str, index: int | None, value: int | None) -> None:
        if value is not None:
            values[Key(port, name, index)] = value

    discontinuity: dict[Key, int] = {}
    # ifHighSpeed is in units of 1,000,000 bits per second (RFC 2863); 0 where the agent does not know it
    speeds = {p.port: p.speed_mbps * 1e6 for p in sample.ports if p.speed_mbps}
    for p in sample.ports:
        for name, value in ((IN_OCTETS, p.in_octets), (OUT_OCTETS, p.out_octets), (IN_DISCARDS, p.in_discards),
                            (OUT_DISCARDS, p.out_discards)):
            put(p.port, name, None, value)
            if value is not None and p.discontinuity_ticks is not None:  # (IF-MIB counters only: RFC 2863)
                discontinuity[Key(p.port, name, None)] = p.discontinuity_ticks
    for pr in sample.priorities:
        put(pr.port, PFC_TX, pr.priority, pr.pfc_requests)
        put(pr.port, PFC_RX, pr.priority, pr.pfc_indications)
    for q in sample.queues:
        put(q.port, TX_PACKETS, q.queue, q.tx_packets)
        put(q.port, DROPPED_PACKETS, q.queue, q.dropped_packets)
    for w in sample.watchdog:
        put(w.port, WD_STORMS, w.queue, w.storms)
        put(w.port, WD_RESTORED, w.queue, w.restores)
    return Reading(device=sample.device, monotonic_s=sample.monotonic_s, time_unix_s=sample.time_unix_s,
                   uptime_ticks=sample.sys_uptime_ticks, values=values,
                   bits={k: 32 for k in values if k.name in _SNMP_32BIT}, unread=tuple(sample.unread),
                   discontinuity=discontinuity, speeds=speeds)


def _lines(platform: str) -> tuple[str, ...]:
    """The platform's SSH counter commands (Platform.counter_commands; "{iface}" for each RoCE interface)."""
    return PLATFORMS[platform].counter_commands if platform in PLATFORMS else ()


def counter_commands(platform: str, interfaces: Sequence[str]) -> list[str]:
    """The platform's counter commands with {iface} expanded for each interface."""
    out: list[str] = []
    for line in _lines(platform):
        out += [line.replace("{iface}", i) for i in interfaces] if "{iface}" in line else [line]
    return out


def reading_from_commands(device: str, platform: str, outputs: dict[str, str], monotonic_s: float,
                          time_unix_s: float) -> Reading:
    """Parse the outputs of ``counter_commands`` (command line -> output) into one reading."""
    if not _lines(platform):
        raise ValueError(f"{device}: no counter commands for platform {platform!r}")
    values: dict[Key, int] = {}
    cached: dict[Key, str] = {}
    unread = []
    for command, output in outputs.items():
        parse = _parser(command)
        if parse is None:
            raise ValueError(f"{device}: `{command}` is not a counter command of {platform}")
        if m := _NO_SUCH_COMMAND.search(output):
            unread.append(f"`{command}`: this device's CLI has no {m['name']!r} command: its counters are unknown")
            continue
        try:
            got = parse(command, output)
        except _Unknown as e:
            unread.append(f"`{command}`: {e}: its counters are unknown")
            continue
        except ValueError as e:
            raise ValueError(f"{device}: `{command}`: {e}") from None
        for port in sorted({k.port for k in got}):  # (a name no port has: not a label, a history row, a log line)
            if (problem := port_name_problem(port)) is not None:
                unread.append(f"`{command}`: port {printable(repr(port[:80]))} is {problem}: its counters are left out")
                got = {k: v for k, v in got.items() if k.port != port}
        if not got:  # all N/A, no such counter files, PFC off on every priority: unknown, not zero
            unread.append(f"`{command}`: no counter in its output: its counters are unknown")
        for key, value in got.items():  # a counter two commands give (a NIC's storm count): the first command's
            values.setdefault(key, value)
        if notes := _cache_notes(output):
            cached.update({k: notes[k.port] if k.port in notes else notes[""] for k in got
                           if k.port in notes or "" in notes})
    if not values:  # every command unread: a poll that read nothing fails (the device reads as down), never as quiet
        raise ValueError(f"{device}: no counter in any answer: {'; '.join(unread) or 'no counter command ran'}")
    return Reading(device=device, monotonic_s=monotonic_s, time_unix_s=time_unix_s, uptime_ticks=None,
                   values=values, unread=tuple(unread), cached=cached)


# SONiC's show commands after a `sonic-clear`: the counters are printed as the device's count minus the count the clear
# cached, floored at 0 (utilities_common/netstat.py ns_diff), under a note naming the cache's time: per port for all
# ports ("Ethernet0 Last cached time was ...", scripts/wredstat get_print_all_stat, queuestat), or once for one port or
# table ("Last cached time was ...", wredstat get_print_port_stat, pfcstat, portstat); queuestat adds its namespace
# ("Last cached time for namespace asic0 was").
_CACHE_NOTE = lazy(r"^\s*(?:(?P<port>\S+) )?Last cached time(?: for namespace \S+)? was (?P<time>.+?)\s*$",
                   re.MULTILINE)


def _cache_notes(output: str) -> dict[str, str]:
    """Port -> the cache its counters are printed against ("": every port of the output)."""
    if "Last cached time" not in output:
        return {}
    return {m["port"] or "": m["time"] for m in _CACHE_NOTE.finditer(output)}


class _Unknown(Exception):
    """A parser's word that the command answered, but nothing in the answer is this device's counters: why."""


# Click's answer to a subcommand this release lacks (SONiC's `show` is a click app): `show queue
# wredcounters` came with sonic-utilities 8f69d5a (2025-02, "WRED stats feature"), and older releases
# print `Error: No such command "wredcounters".` (click 7 quotes with ", click 8 with ').
_NO_SUCH_COMMAND = lazy(r"^Error: No such command [\"'](?P<name>[^\"']+)[\"']\.?\s*$", re.MULTILINE)


# -- SONiC: python-tabulate "simple" tables (header, dashes, rows) --------------------------------

_DASHES = lazy(r"^\s*-+(\s+-+)*\s*$")


def _tables(output: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each table as (header cells, rows of cells). Header cells are split on runs of 2+ spaces (a
    header may hold one space, "STORM DETECTED/RESTORED"); row cells on any space (no value holds one).
    Lines outside a table (a namespace or "last cached" note) are skipped."""
    lines = output.splitlines()
    tables = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].strip() and _DASHES.match(lines[i + 1]):
            header = re.split(r"\s{2,}", lines[i].strip())
            rows, i = [], i + 2
            while i < len(lines) and lines[i].strip():
                if i + 1 < len(lines) and _DASHES.match(lines[i + 1]):
                    break  # the next table's header
                cells = lines[i].split()
                if len(cells) != len(header):
                    raise ValueError(f"row {lines[i].strip()!r} has {len(cells)} cells, the header {len(header)}")
                rows.append(cells)
                i += 1
            tables.append((header, rows))
        else:
            i += 1
    if not tables and output.strip():
        raise ValueError(f"no table in the output: {output.strip().splitlines()[0][:80]!r}")
    return tables


# The counters these commands print are unsigned 64-bit: SAI's port and queue statistics (sai_get_*_stats fill
# uint64_t counters, sai.h / saiport.h), ethtool -S (struct ethtool_stats' __u64 data[], include/uapi/linux/ethtool.h),
# mlx5 hw_counters (u64 in drivers/infiniband/hw/mlx5/counters.c).
COUNTER_END = 2**64
_COUNTER = lazy(r"[0-9]{1,3}(,[0-9]{3})+|[0-9]{1,20}")  # ASCII digits: `\d` took other scripts' (٣ read as 3)


def counter(text: str) -> int:
    """A counter a device printed, in ASCII digits ('1,234' too), below 2^64; else a ValueError that says why (a
    negative, a number of other digits or past 64 bits is a garbled or hostile output, never a count: the digit
    class read an Arabic-Indic ٣ as 3, and a 30-digit value was taken as a count)."""
    if not _COUNTER.fullmatch(text) or (value := int(text.replace(",", ""))) >= COUNTER_END:
        raise ValueError(f"{text[:40]!r}{'...' if len(text) > 40 else ''} is not a counter (ASCII digits below 2^64)")
    return value


def _number(text: str) -> int | None:
    """'1,234' -> 1234; 'N/A' -> None; anything else is not a counter."""
    if text.upper() == "N/A":
        return None
    return counter(text)


def _column(header: list[str], name: str) -> int:
    if name not in header:
        raise ValueError(f"no {name!r} column in {header}")
    return header.index(name)


def _pfcwd_stats(command: str, output: str) -> dict[Key, int]:
    """SONiC `show pfcwd stats` (format: sonic-utilities tests/pfcwd_input/pfcwd_test_vectors.py):
    QUEUE "Ethernet0:3", STATUS, "STORM DETECTED/RESTORED" "1/0", then TX/RX OK/DROP columns."""
    out = {}
    for header, rows in _tables(output):
        queue, counts = _column(header, "QUEUE"), _column(header, "STORM DETECTED/RESTORED")
        for row in rows:
            port, _, q = row[queue].rpartition(":")
            if not port or not is_small_int(q):
                raise ValueError(f"queue {row[queue]!r} is not PORT:QUEUE")
            if row[counts].upper() == "N/A":
                continue
            detected, slash, restored = row[counts].partition("/")
            if not slash:
                raise ValueError(f"storm counts {row[counts]!r} are not DETECTED/RESTORED")
            for name, text in ((WD_STORMS, detected), (WD_RESTORED, restored)):
                if (v := _number(text)) is not None:
                    out[Key(port, name, int(q))] = v
    return out


def _wred_counters(command: str, output: str) -> dict[Key, int]:
    """SONiC `show queue wredcounters` (format: sonic-utilities scripts/wredstat and
    tests/wred_queue_counter_test.py): Port, TxQ, WRED drops and EcnMarked/pkts; a platform without ECN
    counters prints N/A. TxQ is the queue type and index: UC<n> unicast, MC<n> multicast, ALL<n> a queue
    of SAI_QUEUE_TYPE_ALL (unicast and multicast alike, wredstat QUEUE_TYPE_ALL). Multicast queues are
    left out: RoCE is unicast."""
    out = {}
    for header, rows in _tables(output):
        port, txq, marked = _column(header, "Port"), _column(header, "TxQ"), _column(header, "EcnMarked/pkts")
        for row in rows:
            m = re.fullmatch(r"(UC|MC|ALL)(\d+)", row[txq])
            if not m:
                raise ValueError(f"queue {row[txq]!r} is not UC<n>, MC<n> or ALL<n>")
            if m[1] != "MC" and (v := _number(row[marked])) is not None:
                out[Key(row[port], ECN_MARKED, int(m[2]))] = v
    return out


# -- hosts -----------------------------------------------------------------------------------------

# Per-priority `ethtool -S` counter names, one table per NIC driver (the names each driver's get_strings writes; the
# priority is the name's one digit): PFC pause frames received (PFC_RX) and sent (PFC_TX), the time paused, what the
# priority sent (our queue TX for priority p) and what it dropped on receive for want of buffer.
_ETHTOOL_BY_DRIVER: dict[str, dict[str, str]] = {
    # Linux Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst, "Priority Port Counters"
    # (rx_prio<p>_pause_duration in microseconds); rx_prio<p>_buf_discard: mlx5 en_stats.c pport_per_tc_prio_stats_desc,
    # the PPCNT per-TC-priority group's no_buffer_discard_uc (unicast packets of the priority dropped for want of
    # receive buffer); rx_prio<p>_discards: Linux 5.6 commit 827a8cb2 "net/mlx5e: Add discard counters per priority"
    # (en_stats.c pport_per_prio_traffic_stats_desc: the PPCNT per-priority group's rx_discards, "received packets
    # that dropped due to lack of buffers on a physical port", per priority)
    "mlx5_core": {r"rx_prio(\d)_pause": PFC_RX, r"tx_prio(\d)_pause": PFC_TX,
                  r"rx_prio(\d)_pause_duration": PAUSE_DURATION_US, r"tx_prio(\d)_packets": TX_PACKETS,
                  r"rx_prio(\d)_buf_discard": RX_BUFFER_DISCARDS, r"rx_prio(\d)_discards": RX_DISCARDS},
    # drivers/net/ethernet/mellanox/mlx4/en_ethtool.c main_strings, "priority flow control statistics";
    # rx_pause_duration_prio_<p> in microseconds (mlx4/en_port.h struct mlx4_en_stat_out_flow_control_mbox:
    # rx_pause_duration "Total number of microseconds that far-end port requested to pause transmission")
    "mlx4_en": {r"rx_pause_prio_(\d)": PFC_RX, r"tx_pause_prio_(\d)": PFC_TX,
                r"rx_pause_duration_prio_(\d)": PAUSE_DURATION_US, r"tx_prio_(\d)_packets": TX_PACKETS},
    # drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c bnxt_port_stats_arr (BNXT_RX/TX_STATS_ENTRY), the counters
    # bnxt_dcb.c bnxt_dcbnl_ieee_getpfc reports as the port's PFC indications and requests
    # (and bnxt_port_stats_ext_arr, BNXT_RX_STATS_EXT_PFC_ENTRY: pfc_pri<p>_rx_duration_us, the microseconds the
    # priority spent between a received XOFF and its XON, the firmware's rx_port_stats_ext)
    "bnxt_en": {r"rx_pfc_ena_frames_pri(\d)": PFC_RX, r"tx_pfc_ena_frames_pri(\d)": PFC_TX,
                r"pfc_pri(\d)_rx_duration_us": PAUSE_DURATION_US},
    # drivers/net/ethernet/intel/ice/ice_ethtool.c __ice_get_strings ("rx_priority_%u_xoff.nic" ...) and
    # drivers/net/ethernet/intel/i40e/i40e_ethtool.c (its strings "port.rx_priority_%u_xoff" ...): XOFF
    # frames pause the priority, XON frames (quanta 0) release it, so the XOFF counts are the pauses
    "ice": {r"rx_priority_(\d)_xoff\.nic": PFC_RX, r"tx_priority_(\d)_xoff\.nic": PFC_TX},
    "i40e": {r"port\.rx_priority_(\d)_xoff": PFC_RX, r"port\.tx_priority_(\d)_xoff": PFC_TX},
}
_ETHTOOL_NAMES = [name for table in _ETHTOOL_BY_DRIVER.values() for name in table.values()]
# One expression for every driver's names: the group that matched (each name has one) says which counter it is.
_ETHTOOL_PRIO = lazy("|".join(f"(?:{pattern})" for table in _ETHTOOL_BY_DRIVER.values() for pattern in table))
_DRIVERS = ", ".join(_ETHTOOL_BY_DRIVER)
# mlx5 PFC storm prevention (counters.rst, "Physical Port Counters"; per port, no priority):
# tx_pause_storm_warning_events "the number of times the device was sending pauses for a long period of time",
# tx_pause_storm_error_events the times it did so "reaching time out and disabling transmission of pause frames".
_ETHTOOL_PORT = {"tx_pause_storm_warning_events": PAUSE_STORM_WARNINGS,
                 "tx_pause_storm_error_events": PAUSE_STORM_ERRORS}
# ethtool's own answer when it has no statistics to print (ethtool.c do_gstats: `perror("Cannot get stats strings
# information")` exit 96, "no stats available" exit 94, `perror("Cannot get stats information")` exit 97): an interface
# gone or renamed, a driver without statistics. That interface's counters are unknown; the host's other commands read.
_ETHTOOL_CANNOT = lazy(r"Cannot get stats(?: strings)? information(?:: [^\n]+)?|no stats available")
# ethtool prints each name as the driver wrote it ("     %.*s: %llu", ethtool.c do_gstats), so the value is what
# follows the line's last colon and the name everything before it: some mlx5 trees wrote
# "tx_pause_storm_warning_events " with a trailing space (en_stats.c pport_pfc_stall_stats_desc), and bnxt_en and bnx2x
# name their per-ring counters "[<ring>]: <name>" (`[0]: rx_ucast_packets: 1418`, as the netdev posting "Support
# per-queue statistics API in bnxt" shows bnxt's ethtool -S), names holding a colon and a blank. Before session 41 such
# a line was "not 'name: value'" and failed the host's whole poll. A colon elsewhere in a name (`rx_prio3_pause: 1:2`)
# is still a garbled line.
_ETHTOOL_RING = lazy(r"^\[?\d{1,5}\]?:\s*")


def _ethtool_stats(command: str, output: str) -> dict[Key, int]:
    """`ethtool -S IF`: "NIC statistics:" then one "name: value" per line."""
    iface = command.split()[-1]
    out = {}
    if m := _ETHTOOL_CANNOT.fullmatch(output.strip()):
        raise _Unknown(f"ethtool answered {m[0]!r}")
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines or lines[0].strip() != "NIC statistics:":
        raise ValueError("does not start with 'NIC statistics:'")
    for n, line in enumerate(lines[1:], start=2):
        name, colon, text = line.rpartition(":")
        name = name.strip()
        if not colon or not name or not text.strip() or ":" in name and ":" in _ETHTOOL_RING.sub("", name, count=1):
            raise ValueError(f"line {n} {line.strip()[:80]!r} is not 'name: value'")
        try:
            value = counter(text.strip())
        except ValueError as exc:
            raise ValueError(f"line {n} {line.strip()[:80]!r} is not 'name: value' ({exc})") from None
        if name in _ETHTOOL_PORT:
            out[Key(iface, _ETHTOOL_PORT[name])] = value
        elif (p := _ETHTOOL_PRIO.fullmatch(name)) and p.lastindex is not None:
            out[Key(iface, _ETHTOOL_NAMES[p.lastindex - 1], int(p[p.lastindex]))] = value
    if not out and len(lines) > 1:
        raise _Unknown(f"no per-priority counter of a driver losslessd reads ({_DRIVERS}) and no PFC storm "
                       "count among its names")
    return out


# The kernel's standard pause statistics (Linux Documentation/networking/ethtool-netlink.rst, PAUSE_GET with the
# ETHTOOL_FLAG_STATS header flag; include/linux/ethtool.h struct ethtool_pause_stats), as ethtool (5.10 and later)
# prints them for `ethtool -I -a IF` (netlink/pause.c show_pause_stats: "Statistics:" then "  NAME: VALUE"). tx/rx
# pause frames are link-wide PAUSE (IEEE 802.3 30.3.4.2 aPAUSEMACCtrlFramesTransmitted, 30.3.4.3 ...Received), not
# PFC; tx_pause_storm_events (ETHTOOL_A_PAUSE_STAT_TX_PAUSE_STORM_EVENTS, ethtool.yaml) counts each time the device
# found its pause condition true for too long and disabled its own pause TX: what mlx5 counts as
# tx_pause_storm_error_events, now for any driver that reports it.
_PAUSE_STATS = {"tx_pause_frames": LINK_PAUSE_TX, "rx_pause_frames": LINK_PAUSE_RX,
                "tx_pause_storm_events": PAUSE_STORM_ERRORS}
# An ethtool older than 5.10 has no -I (ethtool.c: "bad command line argument(s)"); a driver without pause settings
# answers EOPNOTSUPP; an interface gone, ENODEV: the interface's pause statistics are unknown.
_PAUSE_CANNOT = lazy(r"bad command line argument|Operation not supported|No such device|"
                     r"Cannot get device pause settings")
_PAUSE_STAT_LINE = lazy(r"^\s+(\w+):\s*(\S+)\s*$")


def _pause_stats(command: str, output: str) -> dict[Key, int]:
    """`ethtool -I -a IF`: "Pause parameters for IF:", the settings, then (where the driver reports them)
    "Statistics:" and one "  name: value" per statistic the kernel sent; a driver without them prints no such
    section, and its counters are unknown."""
    iface = command.split()[-1]
    text = output.strip()
    if m := _PAUSE_CANNOT.search(text):
        raise _Unknown(f"ethtool answered {m[0]!r}")
    lines = text.splitlines()
    if not lines or not lines[0].startswith("Pause parameters for "):
        raise ValueError("does not start with 'Pause parameters for'")
    out = {}
    stripped = [line.strip() for line in lines]
    if "Statistics:" in stripped:
        for n, line in enumerate(lines[stripped.index("Statistics:") + 1:], start=1):
            m = _PAUSE_STAT_LINE.match(line)
            if not m:
                raise ValueError(f"statistics line {n} {line.strip()[:80]!r} is not 'name: value'")
            if m[1] in _PAUSE_STATS:
                out[Key(iface, _PAUSE_STATS[m[1]])] = counter(m[2])
    return out


_BOND_DEVICE = lazy(r"mlx5_bond_\d+")
_HW_COUNTERS = {"np_ecn_marked_roce_packets": ECN_MARKED, "np_cnp_sent": CNP_SENT, "rp_cnp_handled": CNP_HANDLED}
_HW_LINE = lazy(r"^/sys/class/net/(?P<iface>[^/]+)/device/infiniband/(?P<dev>[^/]+)/ports/\d+/hw_counters/"
                r"(?P<name>\w+):(?P<value>\S+)$")


def _hw_counters(command: str, output: str) -> dict[Key, int]:
    """`grep . .../hw_counters/*`: "PATH:VALUE" per file; grep's own complaints (a counter file this
    kernel does not have) leave that counter unknown. Per port: the RDMA device counts all priorities.

    A RoCE LAG's device (mlx5 names it mlx5_bond_<n>, Linux drivers/infiniband/hw/mlx5/main.c, under the first
    PF's PCI device) counts both member ports: mlx5_lag_query_cong_counters (mlx5/core/lag.c) adds each PF's
    congestion counters. They are the bond's, not this interface's: left unknown, as the other member's are (its
    PCI device holds no RDMA device)."""
    out: dict[Key, int] = {}
    bonds = set()
    for line in output.splitlines():
        if not line.strip() or line.startswith("grep: "):
            continue
        m = _HW_LINE.match(line.strip())
        if not m:
            raise ValueError(f"{line.strip()[:80]!r} is not a hw_counters PATH:VALUE line")
        if m["name"] in _HW_COUNTERS and _BOND_DEVICE.fullmatch(m["dev"]):
            bonds.add(m["dev"])
        elif m["name"] in _HW_COUNTERS:
            key = Key(m["iface"], _HW_COUNTERS[m["name"]])
            out[key] = out.get(key, 0) + counter(m["value"])  # one netdev, several RDMA ports: their sum
            if out[key] >= COUNTER_END:
                raise ValueError(f"{m['iface']}'s {m['name']} summed over its RDMA ports is past 2^64")
    if bonds and not out:
        raise _Unknown(f"{', '.join(sorted(bonds))} is a RoCE LAG's RDMA device, whose congestion counters add up "
                       f"both member ports, not this interface's alone")
    return out


_PARSERS: list[tuple[re.Pattern, Callable[[str, str], dict[Key, int]]]] = [
    (re.compile(r"show pfcwd stats(?: -e| --empty)?"), _pfcwd_stats),
    (re.compile(r"show queue wredcounters"), _wred_counters),
    (re.compile(r"ethtool -S \S+"), _ethtool_stats),
    (re.compile(r"ethtool (?:-I|--include-statistics) (?:-a|--show-pause) \S+"), _pause_stats),
    (re.compile(r"grep \. /sys/class/net/[^/\s]+/device/infiniband/\*/ports/\*/hw_counters/\*"), _hw_counters),
]


def _parser(command: str) -> Callable[[str, str], dict[Key, int]] | None:
    return next((parse for pattern, parse in _PARSERS if pattern.fullmatch(command.strip())), None)
