"""Storm, pause-rate, lossy-pause, ECN-health and device-down detectors: pure state machines.

Fed with ``Rates`` (and poll outcomes), they return the events that started or ended; they read no
clock and do no I/O, so recorded sequences test them (tests/test_detect.py). State lives per
(device, port, priority, kind). Both the storm detector's drain check and the ECN detector's marks read a
priority's queues through one lookup, the device's own priority -> TC -> queue maps (``Detectors.set_queues``, from
the configs the daemon reads at its start and refreshes; losslessd.monitor.carrying_queues). Where they are not known,
the ECN detector's marks are unknown, while the storm check takes queue n to carry priority n, as SONiC's PFC watchdog
does (sonic-swss orchagent/pfc_detect_*.lua reads SAI_PORT_STAT_PFC_<queue index>_RX_PKTS for queue n).
docs/detection.md explains each detector and its defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.json_schema import SkipJsonSchema

from ..limits import MAX_SECONDS
from ..records import record
from . import (
    CNP_HANDLED,
    CNP_SENT,
    ECN_MARKED,
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
    Event,
    EventKind,
    Key,
    Rates,
    carrying_queues,
)
from .counters import MAX_FRAMES_PER_S  # (a rate threshold above any port's frames/s never fires)

# What the ECN evidence adds up (_evidence): the ECN marks (of the carrying queues, else the port's), CNPs sent and CNPs
# handled, each a counter read at most MAX_FRAMES_PER_S.
ECN_EVIDENCE_COUNTERS = 3
# Intervals a detector counts (polls in a row, failures): our own limit (docs/detection.md), more than a day of the
# default 10 s SNMP polls (8,640): a threshold past it is a typo, and 10**30 passed --check.
MAX_POLLS = 10_000
# A timed run (storm_detection_s, storm_restoration_s) counts as long enough this share of its last interval early: the
# polls of a 10 s cadence land a few milliseconds either side of it (scheduler and agent jitter), so two of them span
# 19.99 s as often as 20.01 s, and a storm must not wait a third interval for that. Our own choice (docs/detection.md).
RUN_SLACK = 0.05


class Thresholds(BaseModel):
    """When each detector fires. A storm is timed, the other detectors count intervals. SONiC's on-box watchdog
    detects and restores after 200 ms (sonic-utilities pfcwd/main.py DEFAULT_DETECTION_TIME / _RESTORATION_TIME)
    because it polls every 200 ms; a daemon polling over SNMP every ~10 s sees a whole interval per sample. A storm is
    the condition seen continuously for storm_detection_s, whatever the poll interval, and in at least
    storm_min_intervals intervals: an agent serves each counter table as of its own last refresh (SONiC flex counters,
    SNMP agent caches), so a single zero is too weak a witness (docs/detection.md, "pfc_storm")."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    storm_detection_s: float = Field(20.0, ge=0, le=MAX_SECONDS, description=(
        "seconds the queue must be seen stormed (pauses arrive, it does not drain) without a break before a pfc_storm "
        "opens, from the start of the first stormed interval to the end of the last, whatever the poll interval (SONiC "
        "charges its detection time poll by poll: pfc_detect_*.lua PFC_WD_DETECTION_TIME_LEFT); an interval whose "
        "counter tables did not refresh carries no information and neither counts nor breaks the run; 20: two "
        "intervals of the default 10 s SNMP polls"))
    storm_min_intervals: int = Field(2, ge=1, le=MAX_POLLS, description=(
        "stormed intervals a pfc_storm needs at least, however long each (one zero of a queue counter is too weak a "
        "witness); where this many intervals last longer than storm_detection_s, the interval decides, and the "
        "worker says so once per device"))
    storm_restoration_s: float = Field(0.0, ge=0, le=MAX_SECONDS, description=(
        "seconds the queue must be seen draining again without a break before the pfc_storm ends; 0: at the first "
        "drained interval"))
    # Counted in polls before session 42: refused with what to write instead (a count of polls made a storm
    # depend on the poll interval).
    storm_detection_polls: SkipJsonSchema[None] = Field(None, exclude=True)
    storm_restoration_polls: SkipJsonSchema[None] = Field(None, exclude=True)

    @field_validator("storm_detection_polls", "storm_restoration_polls", mode="before")
    @classmethod
    def _timed_now(cls, value: object, info: ValidationInfo) -> None:
        """Polls made a storm's length depend on the poll interval: say what replaces the key."""
        if value is None:
            return None
        timed = "storm_detection_s" if info.field_name == "storm_detection_polls" else "storm_restoration_s"
        raise ValueError(f"{info.field_name} is no longer read: a storm is timed now, whatever the poll interval; "
                         f"write {timed} in seconds instead (the polls you meant times your poll interval, e.g. "
                         f"{value!r} x 10 s SNMP polls = {timed}: "
                         f"{value * 10 if isinstance(value, int) and not isinstance(value, bool) else 'N x 10'})"
                         + ("; storm_min_intervals (default 2) still asks for two stormed intervals at least"
                            if timed == "storm_detection_s" else ""))

    storm_min_pause_per_s: float = Field(0.0, ge=0, le=MAX_FRAMES_PER_S, description=(
        "pause frames/s received that count as 'pauses keep arriving'; 0: any, as SONiC's "
        "pfc_detect_*.lua (PFC RX counter advanced)"))
    storm_paused_share: float = Field(0.8, gt=0, le=1, description=(
        "share of the interval the priority was paused (duration counters) that counts as 'not "
        "draining' when no queue TX counter is known (sonic-swss pfc_detect_mellanox.lua: 0.8)"))
    pause_rate_per_s: float = Field(1000.0, gt=0, le=MAX_FRAMES_PER_S, description=(
        "pause frames/s (either way) on a lossless priority that raise pause_rate: a receiver at "
        "XOFF refreshes its pause about every half quanta, so a congestion episode costs a few "
        "frames; a thousand per second means the priority spends much of its time paused"))
    pause_rate_polls: int = Field(2, ge=1, le=MAX_POLLS, description=(
        "consecutive intervals above (or below) to open (or end)"))
    lossy_pause_per_s: float = Field(10.0, ge=0, le=MAX_FRAMES_PER_S, description=(
        "pause frames/s on a priority the policy calls lossy that raise lossy_pause; above a few "
        "stray frames (a peer's DCBX renegotiation, a link flap)"))
    lossy_pause_polls: int = Field(2, ge=1, le=MAX_POLLS, description=(
        "consecutive intervals above (or below) to open (or end)"))
    ecn_min_pause_per_s: float = Field(100.0, gt=0, le=MAX_FRAMES_PER_S, description=(
        "pause frames/s on a lossless priority from which ECN health is judged (sustained pausing)"))
    ecn_min_marks_per_pause: float = Field(0.1, ge=0, le=MAX_FRAMES_PER_S, description=(
        "ECN marks + CNPs per pause frame below which 'PFC is doing ECN's job' (ECN should mark "
        "before the ingress buffer reaches XOFF, so a working DCQCN marks far more than it pauses)"))

    @field_validator("ecn_min_marks_per_pause")
    @classmethod
    def _can_be_met(cls, value: float, info: ValidationInfo) -> float:
        """A ratio, not a rate (its ``le`` is only a cap): the evidence is at most ECN_EVIDENCE_COUNTERS counters of at
        most MAX_FRAMES_PER_S each, judged from ecn_min_pause_per_s pauses/s on, so a threshold above their quotient
        is met by no port, and ecn_not_marking would open on every sustained pausing however well ECN marks."""
        pause = info.data.get("ecn_min_pause_per_s")
        if pause is not None and value > (most := ECN_EVIDENCE_COUNTERS * MAX_FRAMES_PER_S / pause):
            raise ValueError(f"must be at most {most:.6g} with ecn_min_pause_per_s {pause:g}: no port can mark more "
                             f"than that per pause frame ({ECN_EVIDENCE_COUNTERS} counters of at most "
                             f"{MAX_FRAMES_PER_S:g}/s each), so ecn_not_marking would open on every sustained pausing")
        return value

    ecn_polls: int = Field(3, ge=1, le=MAX_POLLS, description=(
        "consecutive intervals meeting (or not) the condition to open (or end)"))
    ecn_evidence_max_age_s: float = Field(300.0, gt=0, le=MAX_SECONDS, description=(
        "ECN/CNP rates from another source (SSH counters, polled more slowly than SNMP pauses) are "
        "used for this long"))
    down_after_failures: int = Field(3, ge=1, le=MAX_POLLS, description=(
        "consecutive failed polls before device_down opens"))


@record
class _Sustain:
    """One detector's state for one place: consecutive hits/misses and the open event."""

    hits: int = 0
    misses: int = 0
    first_hit_s: float = 0.0  # start of the first interval of the current run of hits
    # ... and of the runs of hits and of misses in the detectors' clock (Rates.clock_s): timed runs are measured by it
    hit_since_s: float = 0.0
    miss_since_s: float = 0.0
    event: Event | None = None


@record
class _Device:
    failures: int = 0
    # Did any counter of the kind move on this device in the interval being fed? An agent refreshes each
    # table on its own schedule (SONiC flex counters, SNMP agent caches): a table in which nothing moved
    # was not refreshed, and its zero deltas say nothing.
    tx_fresh: bool = False
    first_failure_s: float = 0.0
    down: Event | None = None
    # (port, priority or None for a per-port detector, kind)
    states: dict[tuple[str, int | None, str], _Sustain] = field(default_factory=dict)
    # ECN marks / CNPs seen last: (port, counter name, queue or None) -> (interval start, end, per second), in the
    # detectors' clock (Rates.clock_s), as the spells below
    evidence: dict[tuple[str, str, int | None], tuple[float, float, float]] = field(default_factory=dict)
    queue_marks: set[str] = field(default_factory=set)  # ports whose ECN marks are counted per queue
    # Ports whose egress queues' packets some source counts, (port, priority)s the device's own watchdog counts, and
    # (port, priority) -> intervals in a row with pause frames and nothing to tell whether the queue drained
    drain_known: set[str] = field(default_factory=set)
    watchdog: set[tuple[str, int | None]] = field(default_factory=set)
    blind: dict[tuple[str, int], tuple[int, float]] = field(default_factory=dict)  # (intervals, since: clock_s)
    # (port, priority) -> when its current spell of sustained pausing began
    pausing: dict[tuple[str, int], float] = field(default_factory=dict)


_PAUSE_LABELS = ((PFC_RX, f"{PFC_RX}_per_s"), (PFC_TX, f"{PFC_TX}_per_s"))
_SEVERITY: dict[str, Literal["info", "warning", "error"]] = {"pfc_storm": "error", "onbox_storm": "error",
                                                              "device_down": "error", "nic_pause_storm": "error",
                                                              "nic_lossless_discard": "error"}
_NIC_STORM = (PAUSE_STORM_WARNINGS, PAUSE_STORM_ERRORS)
_ONBOX = ("nic_pause_storm", "nic_pause_storm_warning")  # what a device's own watchdog counted, not inferred
_NO_DRAIN = "no drain count"  # (_stuck's answer where pauses arrive and nothing says whether the queue drained)
# What unknowns() logs of a place whose queue ECN marks are not read: device, port, priority, why.
_UNKNOWN_MARKS = "ECN marks of %s %s priority %d are unknown: %s; the ECN detector (ecn_not_marking) holds there"


class Detectors:
    """All detectors for devices that share one idea of lossless (the policy's lossless priorities)."""

    def __init__(self, thresholds: Thresholds, lossless: AbstractSet[int],
                 lossy_pause_ok: AbstractSet[int] = frozenset(), propose: Callable[[Event], dict] | None = None):
        self.t = thresholds
        self.propose = propose  # an opened ecn_not_marking event carries its proposal (losslessd.tune.propose)
        self.lossless = set(lossless)
        # Without a lossless set nothing is known to be lossy either: no lossy_pause then.
        self.lossy = set() if not self.lossless else set(range(8)) - self.lossless - set(lossy_pause_ok)
        self._devices: dict[str, _Device] = {}
        # device -> port -> PFC priority -> the egress queues carrying it (Port.priority_queues); see set_queues
        self._queues: dict[str, dict[str, dict[int, list[int]]]] = {}
        # device -> port -> PFC priority -> the egress queues a pause for it stops (Port.paused_queues); see set_queues
        self._paused: dict[str, dict[str, dict[int, list[int]]]] = {}
        # (device, port, priority, detector) -> what to log of why it cannot see there (port "" and priority -1: the
        # whole device): each reported once by unknowns()
        self._unmapped: dict[tuple[str, str, int, str], str] = {}
        self._told: set[tuple[str, str, int, str]] = set()

    def set_queues(self, device: str, ports: dict[str, dict[int, list[int]]] | None,
                   paused: dict[str, dict[int, list[int]]] | None = None) -> None:
        """The device's priority -> queues maps by port (None: not known): which queues' ECN marks count for a
        priority. A port or priority missing from them reads its queues' marks as unknown, never as another
        queue's. ``paused``: the queues a pause for the priority stops, by port (QueueMaps.pauses), which the storm
        drain check reads."""
        if ports is None:
            self._queues.pop(device, None)
        else:
            self._queues[device] = ports
        if paused is None:
            self._paused.pop(device, None)
        else:
            self._paused[device] = paused
        self._told = {k for k in self._told if k[0] != device or k[3] != "ecn_not_marking"}  # (the maps changed)

    def with_queues_of(self, other: Detectors | None) -> Detectors:
        """These detectors, given the queue maps ``other`` holds (a settings reload makes new detectors; the maps
        come from the configs read, which the reload does not read again)."""
        if other is not None:
            self._queues, self._paused = dict(other._queues), dict(other._paused)
        return self

    def unknowns(self) -> list[tuple[str, str, str]]:
        """(device, port or "" for the whole device, what to log) for each place a detector could not see since the
        last call and had not reported before (after set_queues for the device, again): the ECN detector a queue's
        marks, the storm detector whether the device's paused queues drain. Said, not silent: a detector that cannot
        see reads as a quiet one."""
        out = [(key[0], key[1], said) for key, said in sorted(self._unmapped.items()) if key not in self._told]
        self._told.update(self._unmapped)
        self._unmapped.clear()
        return out

    # -- feeding ----------------------------------------------------------------------------------
    def feed(self, rates: Rates) -> list[Event]:
        """Events that started or ended with these rates (an ended event has end_unix_s set)."""
        if rates.reset or not rates.per_s:
            return []
        dev = self._devices.setdefault(rates.device, _Device())
        dev.tx_fresh = False
        start = rates.clock_s - rates.interval_s  # (the detectors' clock: Rates.clock_s)
        for key, value in rates.per_s.items():
            name = key.name
            if name == TX_PACKETS:
                dev.tx_fresh = dev.tx_fresh or value > 0
                dev.drain_known.add(key.port)
            elif name == WD_STORMS:
                dev.watchdog.add((key.port, key.index))
            elif name in (ECN_MARKED, CNP_SENT, CNP_HANDLED):
                dev.evidence[(key.port, name, key.index)] = (start, rates.clock_s, value)
                if key.index is not None:
                    dev.queue_marks.add(key.port)
        out: list[Event] = []
        unknown = rates.cleared | rates.absent  # no delta this interval: unknown, not 0
        for port in sorted({k.port for k in rates.per_s if k.name in _NIC_STORM}):  # first: the ECN detector reads it
            out += self._nic_storm(dev, rates, port, unknown)
        for port, prio in sorted({(k.port, k.index) for k in rates.per_s if k.index is not None}):
            out += self._onbox(dev, rates, port, prio)
            if prio in self.lossless:
                pauses = self._pauses(rates, port, prio, unknown)  # read once for both detectors
                out += self._storm(dev, rates, port, prio)
                out += self._pause_rate(dev, rates, port, prio, pauses)
                out += self._ecn(dev, rates, port, prio, pauses)
                out += self._nic_discard(dev, rates, port, prio, unknown)
            elif prio in self.lossy:
                out += self._lossy(dev, rates, port, prio, self._pauses(rates, port, prio, unknown))
        return out

    def poll_failed(self, device: str, now: float, reason: str) -> list[Event]:
        """A poll of ``device`` failed; device_down opens after ``down_after_failures`` in a row."""
        dev = self._devices.setdefault(device, _Device())
        dev.failures += 1
        if dev.failures == 1:
            dev.first_failure_s = now
        if dev.down is None and dev.failures >= self.t.down_after_failures:
            dev.down = Event("device_down", device, None, None, dev.first_failure_s,
                             f"{device}: {dev.failures} polls in a row failed: {reason}", "error",
                             {"failed_polls": dev.failures}, basis="poll")
            return [dev.down]
        return []

    def poll_ok(self, device: str, now: float) -> list[Event]:
        """A poll of ``device`` answered: an open device_down ends."""
        dev = self._devices.setdefault(device, _Device())
        dev.failures = 0
        if dev.down is None:
            return []
        ended, dev.down = dev.down, None
        ended.end_unix_s = now
        return [ended]

    def open_events(self) -> list[Event]:
        out = []
        for dev in self._devices.values():
            out += [dev.down] if dev.down else []
            out += [s.event for s in dev.states.values() if s.event is not None]
        return out

    def source_left(self, device: str) -> None:
        """A source stopped polling ``device`` (a reload took it off): which ports' queues and watchdogs were counted
        may have been its doing, so it is learned again from the sources left (every reading re-teaches it); kept,
        the storm detector went blind where only that source counted without saying so."""
        dev = self._devices.get(device)
        if dev is not None:
            dev.drain_known.clear()
            dev.watchdog.clear()

    def forget(self, device: str) -> None:
        self._devices.pop(device, None)
        self.set_queues(device, None)
        self._told = {k for k in self._told if k[0] != device}

    # -- detectors --------------------------------------------------------------------------------
    def _storm(self, dev: _Device, r: Rates, port: str, prio: int) -> list[Event]:
        """SONiC's watchdog condition, pauses keep arriving and the queue does not drain, seen for
        ``storm_detection_s`` in at least ``storm_min_intervals`` informative intervals, each confirmed by a signal
        independent of the queue's own zero (see _stuck). The on-box watchdog, when it reports a storm of this queue,
        wins.
        Its quiet counters are no veto: they count transitions, and a storm it detected before our first
        reading of them leaves every later delta at zero while it lasts."""
        onbox = dev.states.get((port, prio, "onbox_storm"))
        if onbox is not None and onbox.event is not None:
            return []  # the device's own watchdog reports this queue
        verdict, numbers, what = self._stuck(dev, r, port, prio)
        self._blind(dev, r, port, prio, verdict is None and what == _NO_DRAIN)
        if verdict is None:
            return []  # no information this interval: the run of hits (or of misses) goes on
        out = self._step(dev, r, "pfc_storm", port, prio, verdict, numbers, self.t.storm_min_intervals, 1,
                         f"PFC storm: {numbers['pfc_rx_per_s']:.0f} pause frames/s received and the queue {what}",
                         need_s=self.t.storm_detection_s, need_miss_s=self.t.storm_restoration_s)
        if out and out[0].open and r.clock_s - r.interval_s - dev.states[(port, prio, "pfc_storm")].hit_since_s >= (
                self.t.storm_detection_s - RUN_SLACK * r.interval_s):
            # The duration was met before this poll: the count of intervals, not storm_detection_s, timed the storm.
            self._unmapped.setdefault((r.device, "", -1, "pfc_storm interval"), (
                f"PFC storms of {r.device} open later than detection.storm_detection_s "
                f"({self.t.storm_detection_s:g} s): its counters come every {r.interval_s:g} s, and a storm needs "
                f"storm_min_intervals ({self.t.storm_min_intervals}) stormed intervals, "
                f"{self.t.storm_min_intervals * r.interval_s:g} s here, first {port} priority {prio}; poll it more "
                f"often, or take storm_min_intervals to 1 where its queue counters are live"))
        return out

    def _stuck(self, dev: _Device, r: Rates, port: str, prio: int) -> tuple[bool | None, dict[str, float], str]:
        """(True: stormed, False: not, None: no information; the numbers; how it did not drain).

        Stormed: pause frames arrived (at least storm_min_pause_per_s) and the queue did not drain, with
        evidence that does not rest on the queue's counter alone:
        - it sent nothing, and the device's queue counter table did refresh in the interval (another
          queue's counter moved): a table nobody refreshed shows zero for every queue;
        - or the duration counters say the priority was paused at least storm_paused_share of the
          interval (pfc_detect_mellanox.lua: pause duration over 99 % of the poll time, with no packet
          sent), which also vetoes a zero from a queue that simply had nothing to send.
        No pause frame is a miss: PFC counters are read as live (SONiC polls its port counters every
        second; a storm's pauses keep them moving)."""
        rx = r.deltas.get(Key(port, PFC_RX, prio))
        tx = self._sent(r, port, prio)
        paused_us = r.deltas.get(Key(port, PAUSE_DURATION_US, prio))
        share = None if paused_us is None else paused_us / 1e6 / r.interval_s
        numbers = {"pfc_rx_per_s": (rx or 0) / r.interval_s, "interval_s": r.interval_s}
        if tx is not None:
            numbers["tx_packets_per_s"] = tx / r.interval_s
        if share is not None:
            numbers["paused_share"] = share
        if tx:
            return False, numbers, ""  # it drains (any refresh that shows packets is news)
        if share is not None and share < self.t.storm_paused_share:
            return False, numbers, ""  # not held paused: an idle queue, or ordinary congestion
        if rx is None and share is None:
            return None, numbers, ""
        if rx is not None and (rx == 0 or rx / r.interval_s < self.t.storm_min_pause_per_s) and share is None:
            return False, numbers, ""  # no pauses: a storm that ends, whatever the queue does
        if share is not None:
            return True, numbers, f"was paused {share:.0%} of the time" + (" and sent nothing" if tx == 0 else "")
        if tx is None:
            return None, numbers, _NO_DRAIN  # pauses, but nothing says whether the queue drained
        if not dev.tx_fresh:
            return None, numbers, ""  # no queue counter of the device moved: the table was not refreshed
        return True, numbers, "sent nothing while the device's other queues did"

    def _blind(self, dev: _Device, r: Rates, port: str, prio: int, blind: bool) -> None:
        """Count the intervals in a row in which pause frames arrived and no source of the device said whether the
        queue drained (no egress queue packet count, no pause time: EOS over SNMP); at as many as would open a
        storm, and with no on-box watchdog counting the queue, the storm detector's blindness there is reported
        (unknowns) rather than read as a queue that never stormed."""
        if not blind:
            dev.blind.pop((port, prio), None)
            return
        n, since = dev.blind.get((port, prio), (0, r.clock_s - r.interval_s))
        dev.blind[(port, prio)] = (n := n + 1, since)
        if self._long_enough(n, self.t.storm_min_intervals, r.clock_s - since, self.t.storm_detection_s,
                             r.interval_s) and (
                port not in dev.drain_known and (port, prio) not in dev.watchdog):
            # (once per device, not per port: a platform that serves no queue counter is blind on all of them)
            self._unmapped.setdefault((r.device, "", -1, "pfc_storm"), (
                f"PFC storms of {r.device} cannot be inferred where its counters say nothing of whether a paused queue "
                f"drains (no egress queue packet count, no pause time, no on-box watchdog count of the queue), first "
                f"{port} priority {prio}, paused {n} polls in a row ({r.clock_s - since:g} s); pause_rate still "
                f"reports the pauses, and the storm detector (pfc_storm) holds there"))

    def _sent(self, r: Rates, port: str, prio: int) -> int | None:
        """Packets the queues a pause for ``prio`` stops sent in the interval (None: not known). The queues come from
        the device's maps (QueueMaps.pauses: SONiC MAP_PFC_PRIORITY_TO_QUEUE, not the TC_TO_QUEUE_MAP the ECN marks
        read: a pause stops its queue whatever traffic the queue carries); where those are not known, queue n for
        priority n: the identity SONiC's PFC watchdog itself assumes (sonic-swss orchagent/pfc_detect_*.lua checks
        queue n's SAI_QUEUE_STAT_PACKETS against SAI_PORT_STAT_PFC_n_RX_PKTS), for this drain check only."""
        queues = carrying_queues(self._paused.get(r.device), port, prio, identity=True) or []
        sent = [r.deltas.get(Key(port, TX_PACKETS, q)) for q in queues]
        if any(sent):
            return sum(v for v in sent if v is not None)  # one of them drains
        return None if None in sent else 0

    def _pause_rate(self, dev: _Device, r: Rates, port: str, prio: int, rates: dict[str, float]) -> list[Event]:
        if not rates:
            return []
        hit = max(rates.values()) >= self.t.pause_rate_per_s
        return self._step(dev, r, "pause_rate", port, prio, hit, rates, self.t.pause_rate_polls,
                          self.t.pause_rate_polls,
                          f"{max(rates.values()):.0f} pause frames/s on a lossless priority "
                          f"(threshold {self.t.pause_rate_per_s:g}/s)")

    def _lossy(self, dev: _Device, r: Rates, port: str, prio: int, rates: dict[str, float]) -> list[Event]:
        if not rates:
            return []
        hit = max(rates.values()) > self.t.lossy_pause_per_s
        return self._step(dev, r, "lossy_pause", port, prio, hit, rates, self.t.lossy_pause_polls,
                          self.t.lossy_pause_polls,
                          f"{max(rates.values()):.0f} pause frames/s on a priority the policy calls lossy")

    def _ecn(self, dev: _Device, r: Rates, port: str, prio: int, pauses: dict[str, float]) -> list[Event]:
        """Sustained pauses with few ECN marks or CNPs on the same port and queue.

        Marks count only when measured over an interval that lies wholly inside the current spell of
        pausing: marks from before a storm began (the SSH counters are polled more slowly than SNMP
        pauses) say nothing about it. Until such marks exist the state machine holds."""
        if not pauses:
            return []
        if self._storming(dev, port, prio) or self._nic_storming(dev, port):
            # A storm's pauses come from a peer that cannot drain (a stuck NIC, a deadlock), not from
            # congestion that ECN could relieve: they say nothing about the ECN thresholds, and a tuning
            # proposal made from them would be wrong. The spell of pausing starts again after the storm.
            # So do the pauses of a NIC whose own storm prevention is counting (its receive side does not
            # drain): nic_pause_storm or its warning open on the port.
            dev.pausing.pop((port, prio), None)
            state = dev.states.get((port, prio, "ecn_not_marking"))
            if state is not None and state.event is None:
                state.hits = 0
            return []
        pause_per_s = sum(pauses.values())
        if pause_per_s < self.t.ecn_min_pause_per_s:
            dev.pausing.pop((port, prio), None)
            return self._step(dev, r, "ecn_not_marking", port, prio, False, pauses, self.t.ecn_polls,
                              self.t.ecn_polls, "")
        since = dev.pausing.setdefault((port, prio), r.clock_s - r.interval_s)
        marks = self._evidence(dev, r.device, r.clock_s, port, prio, since)
        if marks is None:
            return []
        ratio = marks / pause_per_s
        hit = ratio < self.t.ecn_min_marks_per_pause
        numbers = {**pauses, "ecn_and_cnp_per_s": marks, "marks_per_pause": min(ratio, 1e9)}
        out = self._step(dev, r, "ecn_not_marking", port, prio, hit, numbers, self.t.ecn_polls, self.t.ecn_polls,
                         f"PFC doing ECN's job: {pause_per_s:.0f} pause frames/s but {marks:.1f} ECN marks/CNPs per second")
        for event in out:
            if self.propose is not None and event.open and event.proposal is None:
                event.proposal = self.propose(event)
        return out

    def _nic_storm(self, dev: _Device, r: Rates, port: str, unknown: frozenset[Key]) -> list[Event]:
        """A host NIC's own PFC storm prevention (mlx5 device-stall watchdog, per port): it counts a warning each
        time it has been sending pauses for its minor watermark, an error each time it reached its timeout and
        stopped sending them (Linux mlx5 counters.rst). An error means the NIC's receive side could not drain: the
        host is the storm's source, and while it sends no pauses what reaches it may be dropped. A warning without
        an error is a NIC that nearly stopped. Each opens in the interval its counter moved and ends at the first
        interval it did not: the counts say when it happened, not when the host recovered."""
        errors, warnings = (r.deltas.get(Key(port, name)) if Key(port, name) not in unknown else None
                            for name in (PAUSE_STORM_ERRORS, PAUSE_STORM_WARNINGS))
        numbers = {"storm_errors": float(errors or 0), "storm_warnings": float(warnings or 0),
                   "interval_s": r.interval_s}
        out: list[Event] = []
        if errors is not None:
            out += self._step(dev, r, "nic_pause_storm", port, None, errors > 0, numbers, 1, 1,
                              f"the NIC reached its PFC storm-prevention timeout {errors} time(s) in "
                              f"{r.interval_s:g} s and stopped sending pause frames: its receive side cannot drain "
                              f"(the host is the storm's source) and traffic to it may be dropped")
        if warnings is not None:
            out += self._step(dev, r, "nic_pause_storm_warning", port, None, warnings > 0 and not errors, numbers,
                              1, 1, f"the NIC sent pause frames long enough to near its PFC storm-prevention timeout "
                                    f"{warnings} time(s) in {r.interval_s:g} s: its receive side is not draining")
        return out

    def _nic_discard(self, dev: _Device, r: Rates, port: str, prio: int, unknown: frozenset[Key]) -> list[Event]:
        """A host NIC dropped packets of a lossless priority for want of receive buffer (mlx5 rx_prio<p>_buf_discard
        or rx_prio<p>_discards: the larger count where both are read): the loss PFC is there to prevent (headroom too
        small for the cable and MTU, or pause honoured too late). Opens in the interval the count moved, ends at the
        first interval it did not; an unknown count is no step."""
        known = [d for name in (RX_BUFFER_DISCARDS, RX_DISCARDS)
                 if (key := Key(port, name, prio)) not in unknown and (d := r.deltas.get(key)) is not None]
        if not known:
            return []
        drops = max(known)
        return self._step(dev, r, "nic_lossless_discard", port, prio, drops > 0,
                          {"discards": float(drops), "interval_s": r.interval_s}, 1, 1,
                          f"the NIC dropped {drops} packet(s) of lossless priority {prio} for want of receive buffer "
                          f"in {r.interval_s:g} s: PFC did not keep it lossless (check the NIC's headroom and buffer "
                          f"sizes for the cable and MTU, and that the switch honours its pauses)")

    @staticmethod
    def _storming(dev: _Device, port: str, prio: int) -> bool:
        """A storm of the queue is open, or its detector counts stuck intervals towards one."""
        storm, onbox = dev.states.get((port, prio, "pfc_storm")), dev.states.get((port, prio, "onbox_storm"))
        return bool((storm and (storm.event is not None or storm.hits)) or (onbox and onbox.event is not None))

    @staticmethod
    def _nic_storming(dev: _Device, port: str) -> bool:
        """The port's NIC storm prevention counted in this interval or its event is still open (per port: the NIC
        counts whatever priority it pauses)."""
        return any((s := dev.states.get((port, None, kind))) is not None and s.event is not None for kind in _ONBOX)

    def _onbox(self, dev: _Device, r: Rates, port: str, prio: int) -> list[Event]:
        """The device's own watchdog: storms detected minus restored since the last poll tell
        whether a storm is in progress. An inferred pfc_storm of the queue gives way to it."""
        detected = r.deltas.get(Key(port, WD_STORMS, prio))
        restored = r.deltas.get(Key(port, WD_RESTORED, prio), 0)
        if detected is None:
            return []
        s = dev.states.setdefault((port, prio, "onbox_storm"), _Sustain())
        outstanding = (1 if s.event else 0) + detected - restored
        out: list[Event] = []
        if s.event is not None and restored:
            s.event.end_unix_s = r.time_unix_s
            out.append(s.event)
            s.event = None
        if s.event is None and detected:
            start = r.time_unix_s - r.interval_s
            ev = Event("onbox_storm", r.device, port, prio, start,
                       f"{r.device} {port} priority {prio}: the device's PFC watchdog detected a storm",
                       "error", {"storms_detected": detected, "storms_restored": restored},
                       basis="on-box watchdog")
            if outstanding > 0:
                s.event = ev
                out += self._yield_inferred(dev, r, port, prio)
            else:  # detected and restored between two polls
                ev.end_unix_s = r.time_unix_s
            out.append(ev)
        return out

    # -- helpers ----------------------------------------------------------------------------------
    def _yield_inferred(self, dev: _Device, r: Rates, port: str, prio: int) -> list[Event]:
        s = dev.states.get((port, prio, "pfc_storm"))
        if s is None or s.event is None:
            return []
        ended, s.event = s.event, None
        ended.end_unix_s = r.time_unix_s
        ended.numbers["superseded_by_onbox"] = 1
        s.hits = s.misses = 0
        return [ended]

    @staticmethod
    def _pauses(r: Rates, port: str, prio: int, unknown: frozenset[Key]) -> dict[str, float]:
        """Pause frames per second each way, named as in the events' numbers; none when either way is unknown
        this interval (cleared, or not served): the other way alone would read a storm's pauses as few, and the
        pause detectors take no step on an interval without information."""
        keys = [(Key(port, name, prio), label) for name, label in _PAUSE_LABELS]
        if unknown and any(k in unknown for k, _ in keys):
            return {}
        return {label: r.per_s[k] for k, label in keys if k in r.per_s}

    def _evidence(self, dev: _Device, device: str, now: float, port: str, prio: int, since: float) -> float | None:
        """ECN marks (of the queues carrying the priority, else of the port) plus CNPs per second, from the freshest
        rates of any source measured wholly after ``since``; None when nothing recent is known.

        A queue's marks count only through the device's own maps (set_queues): with TC 3 on queue 4 (SONiC
        TC_TO_QUEUE_MAP, Junos queue-num, EOS tx-queue) queue 3's marks say nothing of priority 3. Where the maps
        are not known the queues' marks are unknown (reported by unknowns), never queue n's for priority n."""
        def fresh(name: str, index: int | None) -> float | None:
            seen = dev.evidence.get((port, name, index))
            if seen is None or seen[0] < since or now - seen[1] > self.t.ecn_evidence_max_age_s:
                return None
            return seen[2]

        marks = None
        if port in dev.queue_marks:
            queues = carrying_queues(self._queues.get(device), port, prio)
            if queues is None:
                self._unmapped[(device, port, prio, "ecn_not_marking")] = _UNKNOWN_MARKS % (device, port, prio, (
                    "no config of the device read yet (the daemon reads it at its start and retries a failed read)"
                    if device not in self._queues
                    else "its config does not say which egress queue carries the priority (no TC_TO_QUEUE_MAP, "
                         "queue-num or tx-queue known for its traffic class)"))
            else:
                per_queue = [fresh(ECN_MARKED, q) for q in queues]
                marks = sum(v for v in per_queue if v is not None) if all(v is not None for v in per_queue) else None
        found = [marks if marks is not None else fresh(ECN_MARKED, None), fresh(CNP_SENT, None),
                 fresh(CNP_HANDLED, None)]
        known = [v for v in found if v is not None]
        return sum(known) if known else None

    @staticmethod
    def _long_enough(intervals: int, need: int, span_s: float, need_s: float, interval_s: float) -> bool:
        """A run of ``intervals`` spanning ``span_s``, the last ``interval_s`` long: at least ``need`` of them and
        ``need_s`` (less RUN_SLACK of the last interval)."""
        return intervals >= need and span_s >= need_s - RUN_SLACK * interval_s

    def _step(self, dev: _Device, r: Rates, kind: EventKind, port: str, prio: int | None, hit: bool,
              numbers: dict[str, float], need_hits: int, need_misses: int, message: str, *, need_s: float = 0.0,
              need_miss_s: float = 0.0) -> list[Event]:
        """Advance one sustain state machine; the event opens after ``need_hits`` hits in a row spanning at least
        ``need_s`` (start = the start of the first of them) and ends after ``need_misses`` misses in a row spanning
        at least ``need_miss_s`` (spans in the detectors' clock, from the start of the run's first interval to the
        end of this one). While open it keeps the peak of each number."""
        s = dev.states.get((port, prio, kind))
        if s is None:  # most queues never hit: keep no state for them
            if not hit:
                return []
            s = dev.states[(port, prio, kind)] = _Sustain()
        if hit:
            if s.hits == 0:
                s.first_hit_s, s.hit_since_s = r.time_unix_s - r.interval_s, r.clock_s - r.interval_s
            s.hits, s.misses = s.hits + 1, 0
        else:
            if s.misses == 0:
                s.miss_since_s = r.clock_s - r.interval_s
            s.hits, s.misses = 0, s.misses + 1
        if s.event is None:
            if hit and self._long_enough(s.hits, need_hits, r.clock_s - s.hit_since_s, need_s, r.interval_s):
                place = port if prio is None else f"{port} priority {prio}"
                s.event = Event(kind, r.device, port, prio, s.first_hit_s, f"{r.device} {place}: {message}",
                                _SEVERITY.get(kind, "warning"), {**numbers, "polls": s.hits},
                                basis="on-box watchdog" if kind in _ONBOX else "inferred")
                return [s.event]
            return []
        if hit:
            for name, value in numbers.items():
                peak = f"peak_{name}"
                s.event.numbers[peak] = max(value, s.event.numbers.get(peak, s.event.numbers.get(name, value)))
            return []
        if self._long_enough(s.misses, need_misses, r.clock_s - s.miss_since_s, need_miss_s, r.interval_s):
            ended, s.event = s.event, None
            ended.end_unix_s = r.time_unix_s
            return [ended]
        return []
