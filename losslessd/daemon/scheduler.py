"""When each device is polled: a per-device due time with jitter, backoff after failures, and a
bounded number of polls in flight.

``Schedule`` is pure (time is passed in), so its behaviour is tested without sleeping. ``Runner``
drives one Schedule on the event loop: every poll is its own task under a semaphore, so a slow
device holds one slot and delays nobody else, and a device is never polled twice at once.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterable

from ..collect.pull import backoff
from ..records import record

log = logging.getLogger(__name__)


def timing(poll) -> dict:
    """Schedule's keywords from the poll settings (the interval aside)."""
    return {"jitter": poll.jitter, "backoff_initial_s": poll.backoff_initial_s, "backoff_max_s": poll.backoff_max_s}


@record
class _Slot:
    due: float
    failures: int = 0
    running: bool = False
    gone: bool = False  # no longer tracked, its poll still running: dropped when it ends, unless tracked again


class Schedule:
    """Next due time per device. A healthy device keeps its cadence (next = last due + interval x
    jitter, or now when it fell behind); a failing one waits max(interval, backoff(failures)) and
    returns to its interval after its first good poll. ``retry_early``: a failing one waits backoff(failures)
    alone, so a refresh that failed is tried again within backoff_max_s, not an interval later."""

    def __init__(self, interval_s: float, *, jitter: float = 0.1, backoff_initial_s: float = 10.0,
                 backoff_max_s: float = 300.0, rand: Callable[[], float] = random.random, retry_early: bool = False):
        self.rand = rand
        self.retry_early = retry_early
        self._slots: dict[str, _Slot] = {}
        self.configure(interval_s, jitter=jitter, backoff_initial_s=backoff_initial_s, backoff_max_s=backoff_max_s)

    def configure(self, interval_s: float, *, jitter: float, backoff_initial_s: float, backoff_max_s: float) -> None:
        self.interval_s, self.jitter = interval_s, jitter
        self.backoff_initial_s, self.backoff_max_s = backoff_initial_s, backoff_max_s

    def set_devices(self, names: Iterable[str], now: float, *, at_once: bool = False) -> list[str]:
        """Track exactly ``names``; a new device's first poll falls at random within one interval, so
        a fleet's polls spread out from the start (``at_once``: now). Returns the devices no longer tracked."""
        names = list(names)
        gone = [n for n, s in self._slots.items() if n not in names and not s.gone]
        for n in gone:  # (one whose poll runs is kept until it ends: tracked again meanwhile, it is not polled twice)
            if self._slots[n].running:
                self._slots[n].gone = True
            else:
                del self._slots[n]
        for n in names:
            if n not in self._slots:
                self._slots[n] = _Slot(due=now if at_once else now + self.rand() * self.interval_s)
            elif self._slots[n].gone:
                self._slots[n] = _Slot(due=now if at_once else now + self.rand() * self.interval_s, running=True)
        return gone

    def defer(self, name: str, now: float) -> None:
        """``name`` was just served by other means (a drift run read its config): its next turn is an interval
        from now, and its failures are forgotten. Nothing for a device not tracked or running now."""
        slot = self._slots.get(name)
        if slot is not None and not slot.running:
            slot.failures = 0
            slot.due = max(slot.due, now + self.interval_s)

    @property
    def devices(self) -> list[str]:
        return [n for n, s in self._slots.items() if not s.gone]

    def due(self, now: float) -> list[str]:
        """Devices to poll now (oldest due first); they count as running until done()."""
        ready = sorted((s.due, n) for n, s in self._slots.items() if not s.running and s.due <= now)
        for _, n in ready:
            self._slots[n].running = True
        return [n for _, n in ready]

    def done(self, name: str, ok: bool, now: float) -> float | None:
        """Record a finished poll; returns the device's next due time (None: no longer tracked)."""
        slot = self._slots.get(name)
        if slot is None or slot.gone:
            self._slots.pop(name, None)
            return None
        slot.running = False
        step = self.interval_s * (1 + self.jitter * (2 * self.rand() - 1))
        if ok:
            slot.failures = 0
            slot.due = max(slot.due + step, now)
        else:
            slot.failures += 1
            wait = backoff(slot.failures, self.backoff_initial_s, self.backoff_max_s, self.rand)
            slot.due = now + (wait if self.retry_early else max(step, wait))
        return slot.due

    def due_at(self, name: str) -> float:
        """When ``name``'s poll (running or next) was due."""
        return self._slots[name].due

    def failures(self, name: str) -> int:
        return self._slots[name].failures

    def next_due(self) -> float | None:
        return min((s.due for s in self._slots.values() if not s.running), default=None)


class Runner:
    """Runs ``job(device) -> ok`` for every device of ``schedule`` when it is due, at most
    ``concurrency`` at a time. A job that raises counts as a failed poll (and is logged). ``started(device,
    late_s)``: each poll as it starts, with how long after it was due (the wait for a free slot, mostly)."""

    def __init__(self, name: str, schedule: Schedule, job: Callable[[str], Awaitable[bool]], concurrency: int,
                 clock: Callable[[], float] = time.monotonic, started: Callable[[str, float], None] | None = None):
        self.name = name
        self.started = started
        self.schedule = schedule
        self.job = job
        self.clock = clock
        self.concurrency = concurrency
        self.gate = asyncio.Semaphore(concurrency)
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task] = set()
        self.rounds = 0  # loop passes that started polls: "the first round is scheduled" once > 0

    def set_concurrency(self, concurrency: int) -> None:
        if concurrency != self.concurrency:
            self.concurrency = concurrency
            self.gate = asyncio.Semaphore(concurrency)  # polls already waiting finish under the old one

    def wake(self) -> None:
        """Look at the schedule again now (devices or intervals changed)."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        try:
            while not stop.is_set():
                now = self.clock()
                started = self.schedule.due(now)
                for device in started:
                    task = asyncio.create_task(self._one(device), name=f"{self.name}:{device}")
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                if started:
                    self.rounds += 1
                nxt = self.schedule.next_due()
                wait = 1.0 if nxt is None else min(max(nxt - self.clock(), 0.0), 1.0)
                self._wake.clear()
                stopping = asyncio.ensure_future(stop.wait())
                waking = asyncio.ensure_future(self._wake.wait())
                await asyncio.wait({stopping, waking}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                waking.cancel()
        finally:
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _one(self, device: str) -> None:
        ok = False
        due = self.schedule.due_at(device)
        try:
            async with self.gate:
                if self.started is not None:
                    self.started(device, self.clock() - due)
                ok = await self.job(device)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s poll of %s failed unexpectedly", self.name, device, extra={"device": device})
        finally:
            self.schedule.done(device, ok, self.clock())
            self._wake.set()
