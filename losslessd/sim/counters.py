"""What a simulated device's counters are doing: storms, resets and agent faults (``Traffic``), and
the SSH counter commands that print them live (``render``).

One ``Traffic`` per device is shared by both faces of the device: the SNMP agent reads it from a JSON
file (losslessd.sim.snmp writes it; snmpsim_variation/lossless.py serves from it) and the SSH CLI
renders from it in process, with the same formulas (imported from the variation module), so a storm
switched on shows in SNMP pause counters, in `show pfcwd stats` and in a host's `ethtool -S` alike.

During a storm pauses climb at STORM_PAUSE_PER_S and the paused queue stops transmitting. ECN marks
(and a NIC's CNPs) by default stay flat, which is what "PFC doing ECN's job" looks like; a storm
switched on with ``ecn_healthy=True`` makes them climb with the pauses. Congestion (``drains=True``)
brings the same pauses while the queue keeps sending: what "PFC doing ECN's job" looks like when ECN
marks stay flat, and a healthy DCQCN fabric under load when they climb.
"""

from __future__ import annotations

import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from .snmpsim_variation.lossless import counter, watchdog

# PFC frames per second a storming peer sends on one priority. A pause of the largest quanta
# (65535 x 512 bit times, IEEE 802.1Qbb) lasts 335 us at 100 Gb/s; a peer refreshing it every
# half-pause sends about 6,000 frames/s.
STORM_PAUSE_PER_S = 6000.0
NORMAL_PAUSE_PER_S = 2.0  # background pauses per priority on a healthy lossless port
NORMAL_ECN_PER_S = 20.0  # background ECN marks per lossless queue (and CNPs per NIC port)
ECN_PER_PAUSE = 0.5  # marks per storm pause frame while a storm has ECN_healthy marking
QUEUE_PPS = 1000.0  # packets a lossless queue (or NIC priority) sends per second when not paused
AVG_PACKET_BYTES = 1000
# SONiC pfcwd defaults when a port's PFC_WD entry leaves them out (sonic-utilities pfcwd/main.py:
# DEFAULT_DETECTION_TIME = DEFAULT_RESTORATION_TIME = 200 ms).
DEFAULT_WD_DETECTION_S = DEFAULT_WD_RESTORATION_S = 0.2
# A host NIC's PFC storm prevention at its driver's automatic setting: stop sending pauses after 100 ms
# (Linux mlx5 en_ethtool.c MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC), warn at max(80 ms, 85 % of it)
# (MLX5E_DEVICE_STALL_MINOR_WATERMARK: MLX5E_PFC_PREVEN_TOUT_MIN_MSEC, MLX5E_PFC_PREVEN_MINOR_PRECENT).
NIC_STALL_TIMEOUT_S = 0.1
NIC_STALL_WARNING_S = max(0.08, NIC_STALL_TIMEOUT_S * 85 / 100)
_US_PER_S = 1_000_000
# What a workload can add to: PFC frames the switch port sent (CISCO-PFC-EXT-MIB requests), ECN marks of the
# queue (`show queue wredcounters`), packets the queue dropped (CISCO-SWITCH-QOS-MIB dropped packets).
CREDITS = ("pfc_tx", "ecn", "drop")


@dataclass
class Traffic:
    """Counter state of one device; every change is one call under a lock, read as a ``snapshot``."""

    t0: float = field(default_factory=time.time)  # when the counters last (re)started
    restarted: bool = False  # counted from zero since t0 (after reset), rather than from their bases
    # "<ifIndex>.<prio>" -> [start, end|None, ecn_healthy, drains] (drains: congestion, the queue keeps sending)
    storms: dict[str, list[list]] = field(default_factory=dict)
    down: bool = False  # read by an agent process shared with other devices (losslessd.sim.snmp)
    slow_s: float = 0.0  # delay before the SNMP sysUpTime answer (once a poll) and each SSH command's output
    garbage: bool = False  # SNMP counters answer strings, SSH counter commands print no numbers
    wrap_at: float | None = None  # Counter32 columns cross 2^32 at this time (wrap mode)
    # sysUpTime's own (t0, restarted) once the counters restarted beneath a running agent (syncd_restart); None: the
    # counters' t0 and restarted are sysUpTime's too.
    uptime_from: list | None = None
    # Lump sums added to counters ("<ifIndex>.<prio>/<what>" -> amount): what a workload the simulator's
    # benchmark ran (losslessd.sim.bench) made the counters do. Cleared by a reset.
    credits: dict[str, float] = field(default_factory=dict)
    # A host NIC whose receive side cannot drain (port -> [start, end|None] spans): its storm prevention counts it.
    stalls: dict[str, list[list]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def storm(self, key: str, on: bool = True, ecn_healthy: bool = False, now: float | None = None,
              drains: bool = False) -> None:
        now = time.time() if now is None else now
        with self._lock:
            spans = self.storms.setdefault(key, [])
            storming = bool(spans) and spans[-1][1] is None
            if on and storming and spans[-1][2:] != [ecn_healthy, drains]:  # another kind: end this one
                spans[-1][1] = now
                storming = False
            if on and not storming:
                spans.append([now, None, ecn_healthy, drains])
            elif not on and storming:
                spans[-1][1] = now

    def stall(self, port: str, on: bool = True, now: float | None = None) -> None:
        """A host NIC's receive side stops draining on ``port`` (or drains again)."""
        now = time.time() if now is None else now
        with self._lock:
            spans = self.stalls.setdefault(port, [])
            if on and not (spans and spans[-1][1] is None):
                spans.append([now, None, False])
            elif not on and spans and spans[-1][1] is None:
                spans[-1][1] = now

    def reset(self, now: float | None = None) -> None:
        """The device restarted: counters and uptime start again from zero; storms still going on
        are counted from now."""
        with self._lock:
            self.t0 = time.time() if now is None else now
            self.restarted = True
            self.uptime_from = None
            self.credits.clear()

    def syncd_restart(self, now: float | None = None) -> None:
        """The device's counts restart from zero beneath a running agent, sysUpTime going on: a SONiC syncd restart or
        `config reload` zeroes COUNTERS_DB, which sonic-snmpagent serves and the show commands print, while snmpd
        keeps running. Storms still going on are counted from now."""
        with self._lock:
            if self.uptime_from is None:
                self.uptime_from = [self.t0, self.restarted]
            self.t0 = time.time() if now is None else now
            self.restarted = True
            self.credits.clear()

    def credit(self, key: str, what: str, amount: float) -> None:
        """Add ``amount`` to the ``what`` counters (CREDITS) of ``key`` (``<ifIndex>.<priority>``)."""
        if what not in CREDITS or amount < 0:
            raise ValueError(f"cannot credit {amount!r} to {what!r} (known: {', '.join(CREDITS)})")
        with self._lock:
            self.credits[f"{key}/{what}"] = self.credits.get(f"{key}/{what}", 0.0) + amount

    def set(self, **faults) -> None:
        with self._lock:
            for name, value in faults.items():
                setattr(self, name, value)

    def snapshot(self) -> dict:
        """The state as the variation module reads it (JSON-ready, detached from later changes)."""
        with self._lock:
            return {"t0": self.t0, "restarted": self.restarted, "storm_rate": STORM_PAUSE_PER_S,
                    "storms": {k: [list(s) for s in v] for k, v in self.storms.items()}, "down": self.down,
                    "slow_s": self.slow_s, "garbage": self.garbage, "wrap_at": self.wrap_at,
                    "uptime_from": list(self.uptime_from) if self.uptime_from else None,
                    "credits": dict(self.credits), "stalls": {k: [list(s) for s in v] for k, v in self.stalls.items()}}


def storm_key(if_indexes: dict[str, int], port: str, priority: int) -> str:
    if port not in if_indexes:
        raise ValueError(f"no port {port!r} (ports: {', '.join(if_indexes)})")
    if not 0 <= priority <= 7:
        raise ValueError(f"priority {priority} is not 0-7")
    return f"{if_indexes[port]}.{priority}"


class CounterDevice(Protocol):
    """What the renderers need of a device (losslessd.sim.SimDevice has it)."""

    name: str
    platform: str
    ports: list[str]
    rdma_devices: list[str]
    if_indexes: dict[str, int]
    lossless: dict[str, list[int]]  # port -> priorities with PFC on
    queues: dict[str, dict[int, list[int]]]  # port -> PFC priority -> egress queues (losslessd.sim.SimDevice.queues)
    paused: dict[str, dict[int, list[int]]]  # port -> PFC priority -> queues its pause stops (SimDevice.paused)
    watchdog: dict[str, tuple[float, float]]  # port -> (detection s, restoration s) of its on-box PFC watchdog
    traffic: Traffic


class _Counters:
    """Counter values of one device at one instant; bases are drawn per counter from the device name,
    so a device prints the same numbers on every run."""

    def __init__(self, device: CounterDevice, now: float):
        self.name, self.state, self.now = device.name, device.traffic.snapshot(), now

    def __call__(self, counter_name: str, rate: float, **spec) -> int:
        base = random.Random(f"{self.name}/{counter_name}").randrange(10**6)
        return counter({"b": base, "r": rate, **spec}, self.state, self.now)


def _table(headers: list[str], rows: list[list], indent: str = "") -> str:
    """A table as python-tabulate's "simple" format prints it with every column right-aligned (what
    SONiC's show commands use: sonic-utilities pfcwd/main.py, scripts/queuestat)."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    lines = [headers, ["-" * w for w in widths], *cells]
    return "\n".join(indent + "  ".join(c.rjust(w) for c, w in zip(line, widths)) for line in lines) + "\n"


def pfcwd_stats(device: CounterDevice, now: float, empty: bool = False) -> str:
    """SONiC `show pfcwd stats`: one row per watched queue that has counted anything; with ``empty``
    (`-e`) every queue of every port, an unwatched one with STATUS N/A and 0/0 counts (sonic-utilities
    pfcwd/main.py collect_stats: rows whose counts are all 0/0 are shown only with -e, a missing count
    prints 0, a missing PFC_WD_STATUS N/A). STATUS is `stormed` or `operational`. The watchdog's drop
    action drops what the queue would have sent while stormed."""
    state = device.traffic.snapshot()
    rows = []
    for port in device.ports:
        watched = device.lossless.get(port, []) if port in device.watchdog else []
        for prio in range(8) if empty else watched:
            if prio not in watched:
                rows.append([f"{port}:{prio}", "N/A", "0/0", "0/0", "0/0", "0/0", "0/0"])
                continue
            detect_s, restore_s = device.watchdog[port]
            detected, restored, stormed, stormed_s = watchdog(state, f"{device.if_indexes[port]}.{prio}", now,
                                                              detect_s, restore_s)
            dropped = int(stormed_s * QUEUE_PPS)
            if detected or dropped or empty:
                rows.append([f"{port}:{prio}", "stormed" if stormed else "operational", f"{detected}/{restored}",
                             f"0/{dropped}", "0/0", f"0/{dropped}", "0/0"])
    return _table(["QUEUE", "STATUS", "STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP", "TX LAST OK/DROP",
                   "RX LAST OK/DROP"], rows)


def _ecn_spec(key: str) -> dict:
    """ECN marks of a lossless queue: flat during a storm unless the storm has healthy ECN marking."""
    return {"stop": key, "stop_if": "pfc", "up": key, "up_if": "ecn", "k": ECN_PER_PAUSE, "c": f"{key}/ecn"}


def carried(device: CounterDevice, port: str) -> dict[int, int]:
    """Egress queue -> the priority whose traffic it carries by the port's maps (``device.queues``: SONiC
    TC_TO_QUEUE_MAP, Junos queue-num, EOS tx-queue; queue n for priority n where they do not say), a lossless
    priority first where a queue carries several: its congestion marks there. A queue no priority reaches is left
    out. What the SSH wredcounters and the gNMI queue ECN counters read."""
    return _queue_priority(device.lossless.get(port, []), device.queues.get(port, {}))


def stopped_by(device: CounterDevice, port: str) -> dict[int, int]:
    """Egress queue -> the priority whose pause stops it by the port's maps (``device.paused``: SONiC
    MAP_PFC_PRIORITY_TO_QUEUE, Port.paused_queues; queue n for priority n where they do not say), a lossless priority
    first: its storm stops the queue, whatever traffic the queue carries. What the queues' packet counters read."""
    return _queue_priority(device.lossless.get(port, []), device.paused.get(port, {}))


def _queue_priority(lossless: list[int], maps: dict[int, list[int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for prio in sorted(range(8), key=lambda p: (p not in lossless, p)):
        for q in maps.get(prio, [prio]):
            out.setdefault(q, prio)
    return out


def wred_counters(device: CounterDevice, now: float) -> str:
    """SONiC `show queue wredcounters`: per port, unicast queues UC0-UC7 (format of sonic-utilities
    tests/queue_counter_test.py). ECN marks count on the lossless queues only, each queue the port's maps put a
    lossless priority on (TC_TO_QUEUE_MAP; queue n for priority n where they do not say), with that priority's
    congestion; WRED drops stay 0 there (a lossless queue marks, it does not drop)."""
    values = _Counters(device, now)
    rows = []
    for port in device.ports:
        lossless, prios = device.lossless.get(port, []), carried(device, port)
        for q in range(8):
            prio = prios.get(q)
            key = f"{device.if_indexes[port]}.{prio}"
            marked = values(f"{port}/UC{q}/ecn", NORMAL_ECN_PER_S, **_ecn_spec(key)) if prio in lossless else 0
            rows.append([port, f"UC{q}", 0, 0, marked, marked * AVG_PACKET_BYTES])
    return _table(["Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"], rows)


def ethtool_stats(device: CounterDevice, interface: str, now: float) -> str | None:
    """`ethtool -S IF` of an mlx5 port: its per-priority traffic and PFC counters (names from the
    kernel's mlx5 counters documentation: rx_prioN_pause, rx_prioN_pause_duration in microseconds,
    tx_prioN_pause, ...). A storm on a host port is the switch pausing the NIC: rx pauses climb, the
    pause duration grows by a second per second and that priority stops sending. A stall (``Traffic.stall``) is the
    NIC unable to drain: its storm prevention's warning and error counts move."""
    if interface not in device.if_indexes:
        return None
    values = _Counters(device, now)
    idx = device.if_indexes[interface]
    lines = ["NIC statistics:"]
    for name in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes"):
        rate = QUEUE_PPS * 8 * (AVG_PACKET_BYTES if name.endswith("bytes") else 1)
        lines.append(f"     {name}: {values(f'{interface}/{name}', rate)}")
    for p in range(8):
        key = f"{idx}.{p}"
        pause = NORMAL_PAUSE_PER_S if p in device.lossless.get(interface, []) else 0.0
        tx_packets = values(f"{interface}/tx_prio{p}_packets", QUEUE_PPS, stop=key)
        # Paused the whole time a storm is on: a second of pause per second.
        paused_us = values(f"{interface}/rx_prio{p}_pause_duration", pause * 10, up=key, k=_US_PER_S / STORM_PAUSE_PER_S)
        lines += [
            f"     rx_prio{p}_bytes: {values(f'{interface}/rx_prio{p}_bytes', QUEUE_PPS * AVG_PACKET_BYTES)}",
            f"     rx_prio{p}_packets: {values(f'{interface}/rx_prio{p}_packets', QUEUE_PPS)}",
            f"     tx_prio{p}_bytes: {tx_packets * AVG_PACKET_BYTES}",
            f"     tx_prio{p}_packets: {tx_packets}",
            f"     rx_prio{p}_pause: {values(f'{interface}/rx_prio{p}_pause', pause, up=key)}",
            f"     rx_prio{p}_pause_duration: {paused_us}",
            f"     tx_prio{p}_pause: {values(f'{interface}/tx_prio{p}_pause', pause)}",
            f"     tx_prio{p}_pause_duration: {values(f'{interface}/tx_prio{p}_pause_duration', pause * 10)}",
            f"     rx_prio{p}_pause_transition: {values(f'{interface}/rx_prio{p}_pause_transition', pause, up=key)}",
            # (mlx5 en_stats.c: rx_prio%d_discards in the per-priority group, Linux 5.6 on; rx_prio%d_buf_discard in
            # the per-TC-priority group): a NIC PFC keeps lossless drops nothing, beyond what a workload dropped
            f"     rx_prio{p}_discards: {values(f'{interface}/rx_prio{p}_discards', 0.0, c=f'{key}/drop')}",
            f"     rx_prio{p}_buf_discard: {values(f'{interface}/rx_prio{p}_buf_discard', 0.0, c=f'{key}/drop')}",
        ]
    # Its PFC storm prevention, per port: a stall that lasts the warning watermark counts a warning, one that
    # reaches the timeout an error (the NIC then stops sending pauses), each once per stall.
    stalls = {"t0": values.state["t0"], "storms": values.state["stalls"]}
    lines += [f"     tx_pause_storm_warning_events: {watchdog(stalls, interface, now, NIC_STALL_WARNING_S, 0)[0]}",
              f"     tx_pause_storm_error_events: {_stall_errors(values, interface, now)}"]
    return "\n".join(lines) + "\n"


def _stall_errors(values: _Counters, interface: str, now: float) -> int:
    """Stalls of the port that reached the NIC's storm-prevention timeout (each counted once)."""
    return watchdog({"t0": values.state["t0"], "storms": values.state["stalls"]}, interface, now, NIC_STALL_TIMEOUT_S,
                    0)[0]


def pause_stats(device: CounterDevice, interface: str, now: float) -> str | None:
    """`ethtool -I -a IF`: the pause settings and the kernel's standard pause statistics as ethtool prints them
    (netlink/pause.c: "Pause parameters for IF:", "Autonegotiate:\t...", "RX:\t\t...", "TX:\t\t...", then
    "Statistics:" and "  NAME: VALUE"). Link-wide PAUSE is off on a PFC port, so it sends and receives none; its storm
    events are the stalls that reached the timeout, as `ethtool -S` counts them."""
    if interface not in device.if_indexes:
        return None
    values = _Counters(device, now)
    return (f"Pause parameters for {interface}:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\nStatistics:\n"
            f"  tx_pause_frames: 0\n  rx_pause_frames: 0\n"
            f"  tx_pause_storm_events: {_stall_errors(values, interface, now)}\n")


# RDMA port counters of an mlx5 device (/sys/class/infiniband/DEV/ports/N/hw_counters; the congestion
# ones from the kernel's "IB/mlx5: Support congestion related counters"): name -> background rate.
HW_COUNTERS = {"np_cnp_sent": NORMAL_ECN_PER_S, "np_ecn_marked_roce_packets": NORMAL_ECN_PER_S,
               "out_of_sequence": 0.0, "packet_seq_err": 0.0, "rp_cnp_handled": NORMAL_ECN_PER_S,
               "rp_cnp_ignored": 0.0}
_ECN_COUNTERS = {"np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled"}


def hw_counters(device: CounterDevice, interface: str, now: float) -> str | None:
    """`grep . /sys/class/net/IF/device/infiniband/*/ports/*/hw_counters/*`: the congestion counters
    of the RDMA device on that interface (the host's n-th RDMA device sits on its n-th port), one
    PATH:VALUE line per file as grep prints them. Notification-point marks and CNPs follow the storms
    of the port like a switch queue's ECN marks do."""
    if interface not in device.if_indexes or device.ports.index(interface) >= len(device.rdma_devices):
        return None
    rdma = device.rdma_devices[device.ports.index(interface)]
    folder = f"/sys/class/net/{interface}/device/infiniband/{rdma}/ports/1/hw_counters"
    values = _Counters(device, now)
    spec = _ecn_spec(str(device.if_indexes[interface]))
    return "".join(f"{folder}/{name}:{values(f'{rdma}/{name}', rate, **(spec if name in _ECN_COUNTERS else {}))}\n"
                   for name, rate in HW_COUNTERS.items())


# Counter commands per platform: a whole command line -> its live output (None: not this device's).
COMMANDS = {
    "sonic": [
        (re.compile(r"show pfcwd stats(?P<empty> -e| --empty)?"),
         lambda d, m, now: pfcwd_stats(d, now, bool(m["empty"]))),
        (re.compile(r"show queue wredcounters"), lambda d, m, now: wred_counters(d, now)),
    ],
    "linux_mlx5": [
        (re.compile(r"ethtool -S (?P<if>\S+)"), lambda d, m, now: ethtool_stats(d, m["if"], now)),
        (re.compile(r"ethtool -I -a (?P<if>\S+)"), lambda d, m, now: pause_stats(d, m["if"], now)),
        (re.compile(r"grep \. /sys/class/net/(?P<if>[^/\s]+)/device/infiniband/\*/ports/\*/hw_counters/\*"),
         lambda d, m, now: hw_counters(d, m["if"], now)),
    ],
}


def render(device: CounterDevice, command: str, now: float | None = None) -> str | None:
    """The live output of a counter command on ``device`` (None when it is not one); with the
    garbage fault on, every number in it is replaced, so it no longer parses."""
    for pattern, make in COMMANDS.get(device.platform, ()):
        if m := pattern.fullmatch(command):
            text = make(device, m, time.time() if now is None else now)
            if text is not None and device.traffic.garbage:
                return re.sub(r"\d+", "#?", text)
            return text
    return None
