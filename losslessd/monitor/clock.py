"""The daemon's one clock discipline: durations by ``time.monotonic()``; labels (a reading's date, an event's start
and end, a history row's time) by the wall clock, but never going back. A wall clock stepped back (NTP) between two
labels dated the later one before the earlier: a device_down opened at its first failed poll ended before it started,
an event closed by a reload or a device leaving the inventory ended before it began. After a step back, labels go on
from the last one at CATCH_UP_RATE of the monotonic time until the wall clock meets them (they followed the
monotonic clock at its full rate, so never met it: a host booted an hour ahead and corrected by NTP dated the
daemon's whole life an hour ahead); a wall clock stepped forward is taken as it is.

One clock per process (``wall``): the daemon's and each worker's labels come from it, so every label a process
writes is ordered; each process's clock starts at its import, before any step it must bridge.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

# The share of the monotonic time labels advance by while the wall clock is behind them: an hour's step back is met
# in two hours, and an event's duration read from its labels in that time is at least half the true one (an event
# ended before it started is what this clock is for).
CATCH_UP_RATE = 0.5


class WallClock:
    """Wall-clock labels that never go back. ``wall``/``mono``: the clocks read (time.time, time.monotonic)."""

    def __init__(self, wall: Callable[[], float] | None = None, mono: Callable[[], float] | None = None) -> None:
        self._wall = wall or (lambda: time.time())  # (looked up at each call: a test may step time.time)
        self._mono = mono or time.monotonic
        self._lock = threading.Lock()  # (the daemon's threads label drift runs and config reads too)
        self._last = (self._wall(), self._mono())

    def now(self) -> float:
        with self._lock:
            mono = self._mono()
            wall = max(self._wall(), self._last[0] + CATCH_UP_RATE * (mono - self._last[1]))
            self._last = (wall, mono)
            return wall


_CLOCK = WallClock()


def wall() -> float:
    """The process's wall-clock label for now (WallClock.now)."""
    return _CLOCK.now()
