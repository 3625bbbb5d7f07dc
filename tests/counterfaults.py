"""A switch's counters as an agent serves them, with the faults real agents have (issue 11 item 6).

The switch has two ports with lossless queue 3 and a best-effort queue 0 each. Every second its true
counters advance: queue 0 and queue 3 send, ordinary congestion now and then makes the peer pause
queue 3 (a few hundred frames/s while the queue keeps sending), and a storm, when asked for, pauses
Ethernet0 queue 3 at 6,000 frames/s while it sends nothing.

An agent does not serve the true counters at poll time: SONiC's flex counters and SNMP agent caches
refresh each table on their own schedule. ``Agent`` serves the PFC table and the queue table as of
their last refresh (``queue_refresh_s``, ``pfc_refresh_s``; None = live), can serve one stale queue
table (``stale_polls``), keeps 32-bit queue counters that wrap (``wrap32``), reboots (``reboot_at_s``:
every counter and sysUpTime start again), misses polls (``missed_polls``: no answer) and is polled
with jitter. ``run`` feeds what a daemon would see through the real CounterTracker and Detectors.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from losslessd.monitor import PFC_RX, TX_PACKETS, Event, Key, Reading
from losslessd.monitor.counters import CounterTracker
from losslessd.monitor.detect import Detectors, Thresholds

PORTS = ("Ethernet0", "Ethernet4")
QUEUES = (0, 3)
STORM_PAUSES_PER_S = 6000  # pause frames/s a stuck peer sends: the simulator's storm (losslessd/sim)
EPOCH = 1_760_000_000.0


@dataclass
class Agent:
    seed: int = 0
    poll_s: float = 10.0
    jitter: float = 0.1  # each interval varies by up to this share (the daemon's poll.jitter)
    duration_s: float = 3600.0
    queue_refresh_s: float | None = None  # None: live
    pfc_refresh_s: float | None = None
    stale_polls: set[int] = field(default_factory=set)  # polls answered with the previous queue table
    wrap32: bool = False  # queue counters are Counter32 starting near 2^32
    reboot_at_s: float | None = None
    missed_polls: set[int] = field(default_factory=set)
    storm: tuple[float, float] | None = None  # (start, end) of a storm on Ethernet0 queue 3
    congestion_share: float = 0.3  # share of seconds with ordinary congestion pauses on queue 3

    def __post_init__(self) -> None:
        rnd = random.Random(self.seed)
        self._rnd = rnd
        base = 2**32 - 50_000 if self.wrap32 else 0
        self._true: dict[Key, int] = {}
        for port in PORTS:
            for q in QUEUES:
                self._true[Key(port, TX_PACKETS, q)] = base + rnd.randrange(1000)
            self._true[Key(port, PFC_RX, 3)] = rnd.randrange(1000)
        self._snap = {"queue": (dict(self._true), 0.0), "pfc": (dict(self._true), 0.0)}
        self._phase = {"queue": rnd.uniform(0, self.queue_refresh_s or 1), "pfc": rnd.uniform(0, self.pfc_refresh_s or 1)}
        self._boot_s = -rnd.uniform(1e4, 1e6)
        self._t = 0.0

    def stormed(self, t: float) -> bool:
        return self.storm is not None and self.storm[0] <= t < self.storm[1]

    def _advance(self, until: float) -> None:
        rnd = self._rnd
        while self._t + 1 <= until:
            self._t += 1
            if self.reboot_at_s is not None and self._t - 1 < self.reboot_at_s <= self._t:
                self._true = {k: 0 for k in self._true}
                self._boot_s = self._t
                self._snap = {k: ({kk: 0 for kk in v[0]}, self._t) for k, v in self._snap.items()}
            for port in PORTS:
                stuck = port == "Ethernet0" and self.stormed(self._t)
                congested = rnd.random() < self.congestion_share
                self._true[Key(port, TX_PACKETS, 0)] += rnd.randrange(500, 1500)
                self._true[Key(port, TX_PACKETS, 3)] += 0 if stuck else rnd.randrange(200 if congested else 800, 3000)
                self._true[Key(port, PFC_RX, 3)] += (STORM_PAUSES_PER_S if stuck else
                                                     rnd.randrange(50, 400) if congested else 0)
            for table, period in (("queue", self.queue_refresh_s), ("pfc", self.pfc_refresh_s)):
                if period is not None and (self._t - self._phase[table]) % period < 1:
                    self._snap[table] = (dict(self._true), self._t)

    def reading(self, poll: int, t: float) -> Reading | None:
        """What a poll at time ``t`` gets (None: no answer)."""
        self._advance(t)
        if poll in self.missed_polls:
            return None
        values: dict[Key, int] = {}
        previous_queue = self._snap.get("served_queue")
        for table, period in (("queue", self.queue_refresh_s), ("pfc", self.pfc_refresh_s)):
            source = self._true if period is None else self._snap[table][0]
            names = (TX_PACKETS,) if table == "queue" else (PFC_RX,)
            part = {k: v for k, v in source.items() if k.name in names}
            if table == "queue" and poll in self.stale_polls and previous_queue is not None:
                part = previous_queue[0]
            values.update(part)
        self._snap["served_queue"] = ({k: v for k, v in values.items() if k.name == TX_PACKETS}, t)
        wrapped = {k: v % 2**32 if self.wrap32 and k.name == TX_PACKETS else v for k, v in values.items()}
        bits = {k: 32 for k in wrapped if k.name == TX_PACKETS} if self.wrap32 else {}
        uptime = int((t - self._boot_s) * 100) % 2**32
        return Reading("leaf1", t, EPOCH + t, uptime, wrapped, bits)

    def poll_times(self) -> list[float]:
        rnd = random.Random(self.seed + 1)
        out, t = [], rnd.uniform(0, self.poll_s)
        while t < self.duration_s:
            out.append(t)
            t += self.poll_s * (1 + rnd.uniform(-self.jitter, self.jitter))
        return out


@dataclass
class Run:
    storms: list[Event]  # pfc_storm events as they opened (ended ones carry their end)
    polls: list[float]
    opened_at: list[float]  # poll time of each storm's opening


def run(agent: Agent, thresholds: Thresholds | None = None) -> Run:
    tracker = CounterTracker()
    det = Detectors(thresholds or Thresholds(), {3})
    storms: dict[str, Event] = {}
    opened: list[float] = []
    polls = agent.poll_times()
    for i, t in enumerate(polls):
        reading = agent.reading(i, t)
        if reading is None:
            det.poll_failed("leaf1", EPOCH + t, "timeout")
            continue
        det.poll_ok("leaf1", EPOCH + t)
        rates = tracker.update(reading)
        if rates is None:
            continue
        for ev in det.feed(rates):
            if ev.kind == "pfc_storm" and ev.id not in storms:
                storms[ev.id] = ev
                opened.append(t)
    return Run(list(storms.values()), polls, opened)
