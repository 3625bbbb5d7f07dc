"""Monitoring types shared by the counter sources, the counter maths (counters.py), the storm and
ECN-health detectors (detect.py), the history store and the daemon.

A source turns one poll of one device (SNMP, a gNMI sample, or counter commands over SSH) into a ``Reading`` of raw
counters; ``counters.CounterTracker`` turns consecutive readings into ``Rates``; detectors turn rates
into ``Event``s with a start, an end and the numbers that triggered them.
"""

from __future__ import annotations

import hashlib
from dataclasses import field
from typing import Literal, NamedTuple

from ..records import record

# IF-MIB's ifName is a DisplayString (RFC 2863, RFC 2579: printable, at most 255 octets): the longest port name
# any agent is held to.
MAX_PORT_NAME = 255


def port_name_problem(name: object) -> str | None:
    """Why ``name``, as a source served it (an SNMP ifName, a gNMI key), cannot name a port; None when it can. A port's
    name is the key of its counters in metrics labels, history rows, events and log lines: a control character or a
    lone surrogate in one stopped every scrape of /metrics and every history write; an escape sequence or a bidi
    override rewrote a terminal; a name of megabytes went into every series."""
    if not isinstance(name, str):
        return f"{type(name).__name__} {name!r:.40}, not text"
    if not 0 < len(name) <= MAX_PORT_NAME:
        return f"{len(name):,} characters, not 1-{MAX_PORT_NAME}"
    if not name.isprintable():
        return "not printable (a control, format or surrogate character)"
    if name.strip() != name:
        return "blank at an end" if name.strip() else "blank"
    return None


# Counter names (Key.name). ``index`` is the priority for PFC counters and the 0-based egress queue
# for queue counters; None for per-port counters.
PFC_RX = "pfc_rx"  # PFC pause frames received on the port (the port was told to stop sending)
PFC_TX = "pfc_tx"  # PFC pause frames the port sent (its ingress buffer asked the peer to stop)
PAUSE_DURATION_US = "pause_duration_us"  # time paused, where the platform counts it
TX_PACKETS = "tx_packets"  # packets the egress queue sent
DROPPED_PACKETS = "dropped_packets"  # packets the egress queue dropped
# Packets of a priority a host NIC received and dropped for want of receive buffer (mlx5 rx_prio<p>_buf_discard): on a
# lossless priority, loss that PFC was there to prevent (the NIC's headroom or its pause came too late).
RX_BUFFER_DISCARDS = "rx_buffer_discards"
# Packets of a priority a host NIC's physical port received and dropped for want of buffer (mlx5 rx_prio<p>_discards,
# Linux 5.6): the same loss counted by the per-priority group, all casts, where a NIC's driver serves it.
RX_DISCARDS = "rx_discards"
ECN_MARKED = "ecn_marked"  # packets the queue marked CE (switch WRED/ECN, or a NIC's notification point)
CNP_SENT = "cnp_sent"  # CNPs a NIC's notification point sent
CNP_HANDLED = "cnp_handled"  # CNPs a NIC's reaction point acted on
WD_STORMS = "wd_storms"  # on-box PFC watchdog: storms detected
WD_RESTORED = "wd_restored"  # on-box PFC watchdog: storms restored
# A NIC's own PFC storm prevention (mlx5 device-stall watchdog; per port): times it was sending pauses for long
# (warning) and times it reached its timeout and stopped sending them (error). Linux mlx5 counters.rst.
PAUSE_STORM_WARNINGS = "pause_storm_warnings"
PAUSE_STORM_ERRORS = "pause_storm_errors"
# Link-wide PAUSE frames (IEEE 802.3 Annex 31B, not PFC) a host port sent / received: the kernel's standard pause
# statistics (ETHTOOL_A_PAUSE_STAT_TX_FRAMES / _RX_FRAMES, IEEE 802.3 30.3.4.2 / 30.3.4.3; per port), which any driver
# implementing get_pause_stats serves, mlx5 or not.
LINK_PAUSE_TX = "link_pause_tx"
LINK_PAUSE_RX = "link_pause_rx"
TX_BYTES = "tx_bytes"  # octets the egress queue sent
IN_OCTETS = "in_octets"
OUT_OCTETS = "out_octets"
IN_PACKETS = "in_packets"  # packets the port received (all casts)
OUT_PACKETS = "out_packets"  # packets the port sent (all casts)
IN_DISCARDS = "in_discards"
OUT_DISCARDS = "out_discards"

EventKind = Literal[
    "pfc_storm",  # a lossless queue keeps being paused and does not drain (inferred, watchdog-like)
    "onbox_storm",  # the device's own PFC watchdog detected a storm (preferred to inference)
    "pause_rate",  # pause frames above the configured rate on a lossless priority
    "lossy_pause",  # pause frames on a priority the policy calls lossy
    "ecn_not_marking",  # sustained pauses with few or no ECN marks / CNPs: PFC doing ECN's job
    "nic_pause_storm",  # a host NIC's storm prevention stopped it sending pauses: it is the storm's source
    "nic_pause_storm_warning",  # a host NIC sent pauses long enough to near its storm-prevention timeout
    "nic_lossless_discard",  # a host NIC dropped packets of a lossless priority for want of receive buffer
    "device_down",  # the device stopped answering polls
    "finding_new",  # drift: a lint finding appeared
    "finding_cleared",  # drift: a lint finding went away
]


class Key(NamedTuple):
    """One counter of one device. A tuple rather than a dataclass: hundreds of thousands are hashed
    each poll round (every dict of a Reading and its Rates is keyed by them), and a tuple's hash and
    equality run in C."""

    port: str
    name: str
    index: int | None = None


# port -> PFC priority -> the egress queues its device's config puts the priority's traffic on (Port.priority_queues)
PortQueues = dict[str, dict[int, list[int]]]


class QueueMaps(NamedTuple):
    """One device's queue maps by port: where each priority's traffic goes (``carries``, Port.priority_queues: its
    queues' ECN marks and drops count for it) and which queues a received pause for it stops (``pauses``,
    Port.paused_queues: SONiC MAP_PFC_PRIORITY_TO_QUEUE; the storm drain check reads these). The two differ where a
    config moves a priority's traffic (TC_TO_QUEUE_MAP 3 -> 4) but not its pause (priority 3 -> queue 3)."""

    carries: PortQueues
    pauses: PortQueues


def queue_maps_of(device) -> QueueMaps:
    """A model Device's QueueMaps; a port or priority whose maps are not known is left out."""
    carries = {port.name: q for port in device.ports.values() if (q := port.priority_queues())}
    pauses = {port.name: paused for port in device.ports.values()
              if (paused := {p: q for p in range(8) if (q := port.paused_queues(p))})}
    return QueueMaps(carries, pauses)


def carrying_queues(maps: PortQueues | None, port: str, priority: int, *, identity: bool = False) -> list[int] | None:
    """The egress queues whose counters (packets sent, ECN marks, drops) stand for ``priority`` on ``port``, by the
    device's own maps; None when they do not say (no maps read, or none for the port or the priority). The one
    lookup the detectors (losslessd.monitor.detect) and the tuner's trial sums (losslessd.tune.counters) read queue
    counters through: with TC 3 on queue 4, queue 3's counters say nothing of priority 3. ``identity``: queue n for
    priority n where the maps do not say, the identity SONiC's PFC watchdog assumes (sonic-swss
    orchagent/pfc_detect_*.lua checks queue n's SAI_QUEUE_STAT_PACKETS against SAI_PORT_STAT_PFC_n_RX_PKTS): for the
    storm drain check and the trial's drops only, never for ECN marks."""
    queues = None if maps is None else maps.get(port, {}).get(priority)
    return [priority] if queues is None and identity else queues


@record(frozen=True)
class Reading:
    """Raw counters of one poll of one device, as the device served them (no wrap handling)."""

    device: str
    monotonic_s: float  # time.monotonic() when the device answered
    time_unix_s: float
    uptime_ticks: int | None  # sysUpTime (hundredths of a second) when the source gives it
    values: dict[Key, int]
    bits: dict[Key, int] = field(default_factory=dict)  # counter width, 32 or 64; absent = 64
    unread: tuple[str, ...] = ()  # what the source could not read and why (its counters stay unknown)
    # Counters the device printed as its count minus a count cached by a clear, floored at 0 (SONiC's show
    # commands after `sonic-clear ...`: sonic-utilities utilities_common/netstat.py ns_diff, max(0, new - old)),
    # with the cache's name (its "Last cached time was ..." time): counters.py reads them (rule 5).
    cached: dict[Key, str] = field(default_factory=dict)
    # Counters whose source says when they last restarted on their own (IF-MIB ifCounterDiscontinuityTime, RFC 2863:
    # the sysUpTime of a port's last counter discontinuity, its ifTable/ifXTable counters only): a change between two
    # readings is a restart of those counters, not a wrap (counters.py rule 3).
    discontinuity: dict[Key, int] = field(default_factory=dict)
    # Port -> its speed in bits per second where the source says (IF-MIB ifHighSpeed): what its counters can count in
    # an interval is bounded by it (counters.py rule 3).
    speeds: dict[str, float] = field(default_factory=dict)


@record(frozen=True)
class Rates:
    """What changed between two readings of one device; empty after a reset (the sample is dropped),
    without the counters someone cleared in between."""

    device: str
    time_unix_s: float
    interval_s: float
    deltas: dict[Key, int]
    per_s: dict[Key, float]
    reset: bool = False  # the device restarted: no rates this time
    cleared: frozenset[Key] = frozenset()  # counters that went back (cleared): no delta for them this time
    # Counters only one of the two readings has (not served this poll, or served again): no delta either.
    absent: frozenset[Key] = frozenset()
    monotonic_s: float | None = None  # time.monotonic() of the later reading; None: not known (a replay)

    @property
    def clock_s(self) -> float:
        """The time the detectors compare intervals by: the monotonic clock where the reading had one (a wall clock
        set back between polls made every later ECN mark older than the pausing it was measured in, and the ECN
        detector blind until the pausing stopped), else the wall clock."""
        return self.monotonic_s if self.monotonic_s is not None else self.time_unix_s


@record
class Event:
    """Something the operator should know, open until ``end_unix_s`` is set."""

    kind: EventKind
    device: str
    port: str | None
    priority: int | None
    start_unix_s: float
    message: str
    severity: Literal["info", "warning", "error"] = "warning"
    numbers: dict[str, float] = field(default_factory=dict)  # what triggered it (rates, ratios, times)
    end_unix_s: float | None = None
    basis: Literal["inferred", "on-box watchdog", "lint", "poll"] = "inferred"
    code: str | None = None  # the lint rule code, for finding_new / finding_cleared
    # ecn_not_marking: the tuner's proposed ECN settings for the port (losslessd.tune.propose), never applied
    proposal: dict | None = None

    @property
    def id(self) -> str:
        """Stable over the event's life: kind, place and start (an update keeps the same id)."""
        basis = "\x1f".join(str(x) for x in (self.kind, self.device, self.port, self.priority, self.code,
                                             round(self.start_unix_s, 3)))
        return hashlib.sha256(basis.encode()).hexdigest()[:24]

    @property
    def open(self) -> bool:
        return self.end_unix_s is None
