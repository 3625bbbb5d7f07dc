"""A worker process of the daemon: polls the devices of its shard and detects on their counters.

    daemon (losslessd.daemon.service) --configure(settings, devices)--> worker
                                      <--batch(events, history rows)--
                                      --scrape(format)--> <--families--
                                      --configs(device configs)-->
                                      <--beat(status)-- every second

Every counter source of ``pollers.POLLERS`` gets a Schedule and Runner (scheduler.py) and a
CounterTracker of its own; readings feed this worker's Metrics (the ``devices`` part, rendered when
the daemon scrapes) and its Detectors, whose events go to the daemon with the rates' history rows:
the daemon is the one history writer, alert sender and event bookkeeper. An ecn_not_marking event
leaves with the tuner's proposal for its port (losslessd.tune.propose), made here from the device
configs the daemon reads (at its start, then at refreshes and drift runs) and hands over (``configs``),
with the priority -> queue maps the ECN detector reads marks through. One device's failure, garbage
answer or slowness is that device's problem only: it is marked down after the configured failures,
backs off, and returns by itself.

The worker ignores SIGINT and SIGTERM (the daemon stops it with a message, and systemd's
KillMode=mixed signals the daemon alone) and exits when its link to the daemon closes, so a daemon
killed with SIGKILL leaves no worker behind. Its log lines go to stderr, a pipe the daemon reads.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .. import __version__
from ..history import rate_rows
from ..monitor import Event, QueueMaps, Reading, clock
from ..monitor.counters import CounterTracker
from ..monitor.detect import Detectors
from ..tune.propose import Found, Proposer
from . import logs
from .ipc import Link, LinkClosed
from .metrics import Format, Metrics
from .pollers import POLLERS, Poller, PollFailed
from .scheduler import Runner, Schedule, timing
from .settings import Settings

log = logging.getLogger("losslessd.worker")

BEAT_S = 1.0  # status to the daemon; a worker that answered once then went silent is restarted (service.py)
FLUSH_S = 0.2  # events and history rows wait at most this long to be sent
DAY_S = 86400.0


def detectors_for(settings: Settings, propose: Proposer | None = None) -> Detectors:
    lossless = settings.lint_policy.lossless
    return Detectors(settings.detection, set(lossless.priorities), frozenset(lossless.tolerated_priorities),
                     propose=propose)


class ShardWorker:
    """The polling side of the daemon for one set of devices; ``send`` hands messages to the daemon."""

    def __init__(self, index: int, send: Callable[[object], None]):
        self.index = index
        self.send = send
        self.metrics = Metrics(__version__, part="devices")
        self.settings: Settings | None = None
        self.devices: list[str] = []
        self.detectors: Detectors | None = None
        self.proposer: Proposer | None = None
        self.pollers: dict[str, Poller] = {}
        self.runners: dict[str, Runner] = {}
        self.trackers: dict[str, CounterTracker] = {}
        self.targets: dict[str, dict[str, Any]] = {}
        self._events: list[Event] = []
        self._rows: list = []
        # devices whose first poll that answered (by the source that marks them down) the daemon has not heard of yet,
        # with the slowest interval of their sources, and those it has, with the interval it was told (told again when
        # a reload changes it): the daemon times an interrupted event's continuation from it (Daemon._continue,
        # service.resume_window_s)
        self._answered: list[tuple[str, float]] = []
        self._told_answered: dict[str, float] = {}
        self._tasks: list[asyncio.Task] = []
        self._stop = asyncio.Event()
        self._floored: set[tuple[str, str]] = set()  # (device, source) whose counters sit at a clear's floor: logged
        # per (device, source), what its last poll could not read: each logged when it starts, again only after a
        # poll that read it (bounded by what the devices leave unread now, not by all they ever did)
        self._unread: dict[tuple[str, str], set[str]] = {}
        # source -> its devices whose last poll started more than an interval late (Worker._started): a spell while any
        self._late: dict[str, set[str]] = {}

    # -- settings ---------------------------------------------------------------------------------------
    def configure(self, settings: Settings, devices: list[str]) -> None:
        """First settings, or a reload: devices join and leave, thresholds and timeouts change."""
        old, self.settings = self.settings, settings
        now = time.monotonic()
        if old is None:
            self.proposer = Proposer(settings.lint_policy)
            self.detectors = detectors_for(settings, self.proposer)
            for cls in POLLERS:
                poller = self.pollers[cls.source] = cls(settings)
                self.trackers[cls.source] = CounterTracker()
                interval = cls.interval_s(settings) or DAY_S
                self.runners[cls.source] = Runner(cls.source, Schedule(interval, **timing(settings.poll)),
                                                  self._job(poller), settings.poll.concurrency,
                                                  started=self._started(cls.source))
        else:
            if (settings.detection != old.detection
                    or settings.lint_policy.lossless != old.lint_policy.lossless):
                wall = clock.wall()
                for event in self.detectors.open_events():  # judged by rules that no longer apply
                    event.end_unix_s = wall
                    event.message += " (closed by a settings reload)"
                    self._emit([event])
                self.detectors = detectors_for(settings, self.proposer).with_queues_of(self.detectors)
            self.proposer.policy = settings.lint_policy
            for source, poller in self.pollers.items():
                poller.reconfigure(settings)
                runner = self.runners[source]
                runner.schedule.configure(type(poller).interval_s(settings) or DAY_S, **timing(settings.poll))
        self.devices = list(devices)
        self.targets = {source: p.targets(settings, devices) for source, p in self.pollers.items()}
        gone: set[str] = set()
        for source, runner in self.runners.items():
            runner.set_concurrency(self.pollers[source].concurrency(settings, len(self.targets[source])))
            left = runner.schedule.set_devices(self.targets[source], now)
            for device in left:
                self._left(device, source)
            gone.update(left)
        for device in gone - set(devices):
            self._forget(device)
        for device, told in list(self._told_answered.items()):  # a reload gave it other sources (gNMI added, SNMP off)
            if (slowest := self._slowest_s(device)) != told:
                self._told_answered[device] = slowest
                self._answered.append((device, slowest))
        for runner in self.runners.values():
            runner.wake()

    def set_configs(self, configs: dict[str, Found], queues: dict[str, QueueMaps] | None = None) -> None:
        """Device configs the daemon read (device -> (platform, running config, `show version` output)), for the
        proposals; and each device's priority -> queues maps by port, which tell the ECN detector which queue's
        marks are a priority's."""
        mine = set(self.devices)
        self.proposer.update({d: c for d, c in configs.items() if d in mine})
        for device, ports in (queues or {}).items():
            if device in mine and self.detectors is not None:
                self.detectors.set_queues(device, *ports)

    def _primary(self, device: str) -> str | None:
        """The source whose failures mark ``device`` down: the lowest-ranked one that polls it."""
        return next((cls.source for cls in POLLERS if device in self.targets.get(cls.source, {})), None)

    def _slowest_s(self, device: str) -> float:
        """The longest interval of the sources that poll ``device`` (those that are off or serve it not, none)."""
        settings = self.settings
        assert settings is not None  # (configured before any poll)
        return max((i for cls in POLLERS if device in self.targets.get(cls.source, {})
                    and (i := cls.interval_s(settings)) is not None), default=0.0)

    def _forget(self, device: str) -> None:
        """The device left this worker (the inventory or the shard): end its events, drop its state."""
        now = clock.wall()
        ended = []
        for event in self.detectors.open_events():
            if event.device == device:
                event.end_unix_s = now
                event.message += " (device removed from the inventory)"
                ended.append(event)
        self._emit(ended)
        self.detectors.forget(device)
        self.proposer.forget(device)
        self.metrics.forget(device)
        self._told_answered.pop(device, None)

    def _left(self, device: str, source: str) -> None:
        """``source`` no longer polls ``device``: it left the inventory, or a reload took the source off it (a
        host's snmp section removed, ssh_counters_interval_s null) while others still poll it. What is kept per device
        and source goes: else that source's last failed poll held losslessd_up at 0, its last counters stood frozen,
        an open spell of late polls kept any later one from being said, and the queues it counted kept the storm
        detector from saying it is blind there."""
        self.trackers[source].forget(device)
        self.pollers[source].forget(device)
        self._late.get(source, set()).discard(device)
        self._unread.pop((device, source), None)
        self._floored.discard((device, source))
        self.metrics.forget(device, source)
        if self.detectors is not None:
            self.detectors.source_left(device)

    # -- polls --------------------------------------------------------------------------------------------
    def _job(self, poller: Poller):
        source = poller.source

        async def job(device: str) -> bool:
            target = self.targets[source].get(device)
            if target is None:
                return True
            started = time.monotonic()
            try:
                reading = await poller.read(device, target)
            except PollFailed as exc:
                if device not in self.targets[source]:  # a reload took it out: a late failure is not its state
                    return self._dropped(poller, device)
                self._slow_path(poller, device, target)
                return self._failed(device, source, started, exc.reason)
            if device not in self.targets[source]:  # a reload took it out while it was polled: its state is gone
                return self._dropped(poller, device)
            self._slow_path(poller, device, target)
            self._read(reading, source, started)
            return True

        return job

    def _started(self, source: str):
        """Count each poll that starts more than an interval after it was due (every slot the source's poller allows
        held by slower polls: the device's cadence, and a storm's detection time, stretch by that much), and say when a
        spell of such starts begins and when it ends (every device late in it started on time since: the slow device's
        own polls start on time, and must not end the spell of those waiting behind it), once each."""
        def started(device: str, late_s: float) -> None:
            runner, waiting = self.runners[source], self._late.setdefault(source, set())
            if late_s > runner.schedule.interval_s:
                self.metrics.poll_late(device, source)
                if not waiting:
                    poller = self.pollers[source]
                    log.warning("%s polls start late: %s's %.1f s after it was due (interval %g s); all %d polls "
                                "in flight (%s) are held by slower ones: %s (losslessd_poll_duration_seconds names "
                                "the slow devices)", source, device, late_s, runner.schedule.interval_s,
                                runner.concurrency, poller.slots, poller.slots_fix,
                                extra={"device": device, "source": source})
                waiting.add(device)
            elif device in waiting:
                waiting.discard(device)
                if not waiting:
                    log.info("%s polls start on time again", source, extra={"source": source})

        return started

    def _slow_path(self, poller: Poller, device: str, target) -> None:
        if (why := poller.slow_path(target)) is not None:
            self.metrics.slow_path(device, why)

    @staticmethod
    def _dropped(poller: Poller, device: str) -> bool:
        """The outcome of a poll that ended after ``device`` left (``_forget`` ran meanwhile): what the poll left in its
        poller (SnmpCounters: the speeds it walked) is forgotten too, not kept for a device gone for good."""
        poller.forget(device)
        source = poller.source
        log.info("%s poll of %s ended after a reload took it out of the inventory: its outcome is dropped",
                 source, device, extra={"device": device, "source": source})
        return True

    def _failed(self, device: str, source: str, started: float, reason: str) -> bool:
        self.metrics.poll_done(device, False, time.monotonic() - started, source)
        log.warning("%s poll of %s failed: %s", source, device, reason,
                    extra={"device": device, "source": source, "reason": reason})
        if self._primary(device) == source:
            self._emit(self.detectors.poll_failed(device, clock.wall(), reason))
        return False

    def _read(self, reading: Reading, source: str, started: float) -> None:
        device = reading.device
        self.metrics.poll_done(device, True, time.monotonic() - started, source)
        self.metrics.counters(reading, source)
        unread, before = set(reading.unread), self._unread.get((device, source), set())
        for why in sorted(unread - before):
            log.warning("%s poll of %s: %s", source, device, why, extra={"device": device, "source": source})
        if unread:
            self._unread[device, source] = unread
        else:
            self._unread.pop((device, source), None)
        if self._primary(device) == source:
            self._emit(self.detectors.poll_ok(device, clock.wall()))
            if device not in self._told_answered:
                self._told_answered[device] = slowest = self._slowest_s(device)
                self._answered.append((device, slowest))
        rates = self.trackers[source].update(reading)
        self._floor(device, source)
        if rates is None:
            return
        if rates.reset:
            log.info("counters of %s went back (restart or reset): this poll's rates are dropped", device,
                     extra={"device": device, "source": source})
            return
        if rates.cleared:
            log.info("%d counters of %s went back (cleared): their rates of this poll are dropped", len(rates.cleared),
                     device, extra={"device": device, "source": source})
        rows = rate_rows(rates, self.settings.history.resolution_s)
        if rows is not None:
            self._rows.append(rows)
        assert self.detectors is not None  # (configured before any poll)
        self._emit(self.detectors.feed(rates))
        for device, port, said in self.detectors.unknowns():
            log.warning("%s", said, extra={"device": device, **({"port": port} if port else {})})

    def _floor(self, device: str, source: str) -> None:
        """Export how many of the device's counters sit at a clear's floor (CounterTracker.floored), and say so once
        when some start to: they stay unknown until they count past the cache or the cache goes, and a queue that
        stopped marking never does."""
        floored = self.trackers[source].floored(device)
        self.metrics.floored(device, source, len(floored))
        if not floored:
            self._floored.discard((device, source))
        elif (device, source) not in self._floored:
            self._floored.add((device, source))
            log.warning("%d counters of %s (%s) are unknown: its count restarted (a syncd restart) beneath the "
                        "counts a `sonic-clear` cached for the daemon's account, so its show commands print them "
                        "as 0 until they pass the cached ones (a queue that stopped marking never does); "
                        "`sonic-clear` with that account (or `wredstat -d`) resets the cache, and a dedicated "
                        "read-only account for the daemon, which nobody clears with, avoids it: %s", len(floored),
                        device, source, ", ".join(sorted(f"{k.port} {k.name} {k.index}" for k in floored)[:8]),
                        extra={"device": device, "source": source})

    def _emit(self, events: list[Event]) -> None:
        self._events.extend(events)

    # -- to the daemon ------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Send what waits: the devices that answered a poll for the first time, events (in order) and history rows,
        in one message."""
        if self._events or self._rows or self._answered:
            answered, events, rows = self._answered, self._events, self._rows
            self._answered, self._events, self._rows = [], [], []
            self.send(("batch", answered, events, rows))

    def status(self) -> dict:
        down = sum(1 for e in self.detectors.open_events() if e.kind == "device_down") if self.detectors else 0
        return {"devices": len(self.devices), "down": down,
                "targets": {source: len(t) for source, t in self.targets.items()}}

    async def scrape(self, fmt: Format, names: frozenset[str] | None = None) -> list[tuple[str, str]]:
        """This worker's families, rendered in a thread so polls go on meanwhile."""
        return await asyncio.to_thread(self.metrics.render, fmt, names)

    # -- life cycle ---------------------------------------------------------------------------------------
    def start(self) -> None:
        self._tasks = [asyncio.create_task(r.run(self._stop), name=f"runner:{r.name}") for r in self.runners.values()]

    async def stop(self) -> None:
        """End the polls, send what they collected, then close the pollers. Sent first: the daemon kills a worker whose
        stop outlasts service.WORKER_STOP_S (10 s), and a close can take a while (gNMI streams get _GNMI_CLOSE_S, a
        loaded machine more), so rows sent after it were lost with the kill."""
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.flush()
        for poller in self.pollers.values():
            try:
                await poller.aclose()
            except Exception:  # closing must not stop the others from closing
                log.exception("closing the %s poller failed", poller.source)
        self.flush()


async def serve(link: Link, index: int) -> int:
    """Run one worker on ``link`` until the daemon says stop or goes away."""
    outbox: asyncio.Queue = asyncio.Queue()
    worker = ShardWorker(index, outbox.put_nowait)
    sender = asyncio.create_task(_send_all(link, outbox))
    ticker: asyncio.Task | None = None
    try:
        while True:
            try:
                message = await link.recv()
            except LinkClosed:
                log.info("worker %d: the daemon closed its link; stopping", index)
                return 0
            kind = message[0]
            if kind == "configure":
                _, settings, devices = message
                first = worker.settings is None
                if first:
                    logs.configure(settings.log.level, context={"worker": index})
                    loop = asyncio.get_running_loop()
                    loop.set_default_executor(ThreadPoolExecutor(max_workers=settings.poll.concurrency + 4,
                                                                 thread_name_prefix=f"losslessd-w{index}"))
                elif settings.log != worker.settings.log:
                    logs.configure(settings.log.level, context={"worker": index})
                worker.configure(settings, devices)
                if first:
                    worker.start()
                    ticker = asyncio.create_task(_tick(worker))
                    log.info("worker %d polling %d devices", index, len(devices), extra=worker.status())
                outbox.put_nowait(("configured", worker.status()))
            elif kind == "configs":
                worker.set_configs(*message[1:])
            elif kind == "scrape":
                _, request_id, fmt, names = message
                outbox.put_nowait(("scraped", request_id, await worker.scrape(fmt, names)))
            elif kind == "stop":
                break
    finally:
        if ticker is not None:
            ticker.cancel()
        await worker.stop()
        outbox.put_nowait(("stopped",))
        outbox.put_nowait(None)
        await asyncio.gather(sender, return_exceptions=True)
    return 0


async def _tick(worker: ShardWorker) -> None:
    next_beat = 0.0
    while True:
        worker.flush()
        logs.tick()  # a run of repeated library lines past its window is written now, not with the next line
        now = time.monotonic()
        if now >= next_beat:
            worker.send(("beat", worker.status()))
            next_beat = now + BEAT_S
        await asyncio.sleep(FLUSH_S)


async def _send_all(link: Link, outbox: asyncio.Queue) -> None:
    while (message := await outbox.get()) is not None:
        try:
            await link.send(message)
        except LinkClosed:
            return


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="losslessd.daemon.worker", description="A worker of `losslessd daemon` "
                                 "(started by it; not run by hand).")
    ap.add_argument("--fd", type=int, required=True, help="this end of the daemon's socketpair")
    ap.add_argument("--index", type=int, required=True)
    args = ap.parse_args(argv)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # the daemon stops its workers itself
    logs.configure("info", context={"worker": args.index})
    sock = socket.socket(fileno=args.fd)

    async def run() -> int:
        return await serve(await Link.open(sock), args.index)

    try:
        return asyncio.run(run())
    except Exception:  # one JSON line with the traceback, then a non-zero exit the daemon logs and restarts
        log.exception("worker %d failed", args.index)
        return 70  # EX_SOFTWARE (sysexits.h)
    finally:
        sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())
