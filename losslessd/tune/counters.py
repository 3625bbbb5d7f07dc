"""Counters around a trial, from the collectors the daemon uses: SNMP (losslessd.collect.snmp) for switches
that have it, the platform's counter commands over SSH (losslessd.monitor.sources) otherwise or as well.
Deltas go through the daemon's counter maths (wraps, resets: losslessd.monitor.counters) and its storm
detector (losslessd.monitor.detect): a storm detected during a trial stops the tune.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import field
from pathlib import Path

from ..collect.snmp import SnmpError, SnmpPoller, target_for
from ..collect.ssh import CollectError, Session
from ..daemon.pollers import counter_host
from ..inventory import Host
from ..monitor import (
    CNP_HANDLED,
    CNP_SENT,
    DROPPED_PACKETS,
    ECN_MARKED,
    PAUSE_DURATION_US,
    PFC_RX,
    PFC_TX,
    QueueMaps,
    Reading,
    carrying_queues,
    clock,
)
from ..monitor.counters import CounterTracker
from ..monitor.detect import Detectors, Thresholds
from ..monitor.sources import reading_from_commands, reading_from_snmp
from ..records import record
from .score import Counters, pause_s_per_frame

STORM_KINDS = ("pfc_storm", "onbox_storm")


async def _cancel_others() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@record
class Snapshot:
    """One reading round: per device and source, a Reading or why there is none."""

    readings: dict[tuple[str, str], Reading] = field(default_factory=dict)  # (device, "snmp"|"ssh")
    errors: dict[tuple[str, str], str] = field(default_factory=dict)


class CounterReader:
    """Reads the counters of ``hosts`` (those with SNMP settings over SNMP, platforms with counter commands over
    SSH) and sums what changed on the tuned ports' lossless priorities. Queue counters (ECN marks, drops) are read
    through the devices' own maps (``queues``: device -> monitor.QueueMaps, from the configs the tune read: ECN marks
    and drops by the queues carrying a priority, the storm check by the queues its pause stops;
    monitor.carrying_queues, the daemon's lookup)."""

    def __init__(self, hosts: dict[str, Host], tuned: dict[str, dict[str, float]], lossless: list[int], *,
                 known_hosts: Path | None, timeout_s: float = 30.0, queues: dict[str, QueueMaps] | None = None):
        self.hosts, self.tuned, self.lossless = hosts, tuned, list(lossless)  # tuned: device -> port -> Gb/s
        self.queues = dict(queues or {})
        self.known_hosts, self.timeout_s = known_hosts, timeout_s
        self._loop = asyncio.new_event_loop()
        self._poller = SnmpPoller(timeout_s=min(timeout_s, 5.0), retries=1)
        self._poller.fleet = frozenset(hosts)

    def close(self) -> None:
        self._loop.run_until_complete(self._poller.aclose())
        self._loop.run_until_complete(_cancel_others())  # pysnmp's timeout tasks
        self._loop.close()

    def read(self) -> Snapshot:
        snap = Snapshot()
        targets = [target_for(h) for h in self.hosts.values() if h.snmp is not None]
        if targets:
            for device, got in self._loop.run_until_complete(self._poller.poll_many(targets)).items():
                if isinstance(got, SnmpError):
                    snap.errors[(device, "snmp")] = got.message
                else:
                    snap.readings[(device, "snmp")] = reading_from_snmp(got)
        for name, host in self.hosts.items():
            cli = counter_host(host)
            if cli is None:
                continue
            try:
                result = Session(cli, known_hosts=self.known_hosts, timeout=self.timeout_s).run()
                snap.readings[(name, "ssh")] = reading_from_commands(name, host.platform.id, dict(result.sections),
                                                                     time.monotonic(), clock.wall())
            except (CollectError, ValueError) as exc:
                snap.errors[(name, "ssh")] = getattr(exc, "message", str(exc))
        return snap

    def storms(self, before: Snapshot, after: Snapshot) -> list[str]:
        """Storms the daemon's detector (losslessd.monitor.detect) sees between two snapshots: a queue paused
        and sending nothing the whole time, or a device's own watchdog counting one."""
        detectors = Detectors(Thresholds(storm_detection_s=0, storm_min_intervals=1), set(self.lossless))
        for device, maps in self.queues.items():
            detectors.set_queues(device, *maps)
        found = []
        for rates in self._rates(before, after, []):
            found += [f"{e.device} {e.port} priority {e.priority}: {e.message}" for e in detectors.feed(rates)
                      if e.kind in STORM_KINDS]
        return found

    @staticmethod
    def _rates(before: Snapshot, after: Snapshot, problems: list[str]) -> list:
        out = []
        for key, new in after.readings.items():
            old = before.readings.get(key)
            if old is None:
                continue
            tracker = CounterTracker()
            tracker.update(old)
            rates = tracker.update(new)
            if rates is None or rates.reset:
                problems.append(f"{key[0]} ({key[1]}): counters went back during the trial (a restart?)")
                continue
            # Their deltas are unknown: the trial's sums (drops too) leave them out, and say so.
            for keys, why in ((rates.cleared, "cleared during the trial"),
                              (rates.absent, "read in only one of the trial's two snapshots")):
                if keys:
                    problems.append(f"{key[0]} ({key[1]}): {len(keys)} counter(s) {why}, left out of its sums: "
                                    + ", ".join(sorted(f"{k.port} {k.name} {k.index}" for k in keys)))
            out.append(rates)
        return out

    def delta(self, before: Snapshot, after: Snapshot, elapsed_s: float) -> tuple[Counters, list[str]]:
        """What the tuned ports did between two snapshots, and the sources that could not say."""
        out = Counters(elapsed_s=elapsed_s)
        problems = [f"{d} ({src}): {why}" for (d, src), why in {**before.errors, **after.errors}.items()]
        # What a source read in part (a counter table it could not read, in either snapshot): its counters are in
        # neither sum, and a trial without them must say so rather than read as one without pauses or drops.
        problems += dict.fromkeys(f"{d} ({src}): {why}" for snap in (before, after)
                                  for (d, src), reading in snap.readings.items() for why in reading.unread)
        paused: dict[str, float] = {}  # "device:port" (its egress), or its peer's egress towards it -> seconds paused
        frames: dict[tuple[str, str, int | None], int] = {}  # (port, PFC_RX or PFC_TX, priority) -> frames in the trial
        unmapped: set[tuple[str, str, int]] = set()
        for rates in self._rates(before, after, problems):
            key = (rates.device,)
            ports = self.tuned.get(key[0], {})
            for k, v in rates.deltas.items():
                if k.port not in ports:
                    continue
                if k.name in (ECN_MARKED, DROPPED_PACKETS) and k.index is not None:
                    if not self._carries_lossless(key[0], k.port, k.name, k.index, unmapped):
                        continue
                elif k.index not in self.lossless:
                    continue
                if k.name in (PFC_TX, PFC_RX):
                    out.pause_frames = (out.pause_frames or 0) + v
                    # A frame received (RX) stopped this port's egress; one sent (TX) stopped its peer's, the
                    # direction into this port. The two directions and the priorities are paused side by side, so
                    # each is timed alone and the port's is the most paused one, never their sum (which could
                    # exceed the trial).
                    side = (k.port, k.name, k.index)
                    frames[side] = frames.get(side, 0) + v
                elif k.name == PAUSE_DURATION_US:
                    out.pause_us = (out.pause_us or 0) + v
                elif k.name == ECN_MARKED:
                    out.ecn_marked = (out.ecn_marked or 0) + v
                elif k.name in (CNP_SENT, CNP_HANDLED):
                    out.cnp = (out.cnp or 0) + v
                elif k.name == DROPPED_PACKETS:
                    out.dropped = (out.dropped or 0) + v
            for (port, name, _prio), n in frames.items():
                place = f"{key[0]}:{port}" + ("" if name == PFC_RX else " (its peer, paused by it)")
                paused[place] = max(paused.get(place, 0.0), n * pause_s_per_frame(ports[port]))
            frames.clear()
            # A measured pause time replaces the estimate from frames: per priority (mlx5 rx_prio<p>_pause_duration,
            # the time the port's egress was paused), so the port's is its most paused lossless priority's, whichever
            # the counters list last (the priorities may be paused at once: their sum could exceed the trial).
            measured: dict[str, float] = {}
            for k, v in rates.deltas.items():
                if k.name == PAUSE_DURATION_US and k.port in ports and k.index in self.lossless:
                    place = f"{key[0]}:{k.port}"
                    measured[place] = max(measured.get(place, 0.0), v / 1e6)
            paused.update(measured)
        if paused:
            out.worst_port, out.worst_paused_s = max(paused.items(), key=lambda kv: kv[1])
        problems += [f"{d}: ECN marks of {port} priority {p} left out of the trial's sums: its config does not say "
                     f"which egress queue carries the priority" for d, port, p in sorted(unmapped)]
        return out, problems

    def _carries_lossless(self, device: str, port: str, name: str, queue: int, unmapped: set) -> bool:
        """Whether ``queue`` carries a lossless priority of ``port`` by the device's maps. Where they do not say for a
        priority, its ECN marks are unknown (added to ``unmapped``, never queue n's for priority n), while a drop on
        queue n counts for priority n: the identity SONiC's PFC watchdog assumes (sonic-swss
        orchagent/pfc_detect_*.lua), so the trial's stop on a dropped packet errs towards stopping."""
        maps, found = (m.carries if (m := self.queues.get(device)) else None), False
        for prio in self.lossless:
            queues = carrying_queues(maps, port, prio, identity=name != ECN_MARKED)
            if queues is None:
                unmapped.add((device, port, prio))
            else:
                found = found or queue in queues
        return found
