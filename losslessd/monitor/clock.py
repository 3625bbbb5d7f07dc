"""The daemon's one clock discipline: durations by ``time.monotonic()``; labels (a reading's date, an event's start
and end, a history row's time) by the wall clock, but never earlier than the previous label plus the monotonic time
since it. A wall clock stepped back (NTP) between two labels dated the later one before the earlier: a device_down
opened at its first failed poll ended before it started, an event closed by a reload or a device leaving the
inventory ended before it began. Labels follow the monotonic clock from the last one until the wall clock catches
up; a wall clock stepped forward is taken as it is (labels never go back, and a jump forward keeps them ordered).

One clock per process (``wall``): the daemon's and each worker's labels come from it, so every label a process
writes is ordered; each process's clock starts at its import, before any step it must bridge.
"""

from __future__ import annotations

import threading
import time


class WallClock:
    """Wall-clock labels that never go back and advance at least by the monotonic time between two of them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # (the daemon's threads label drift runs and config reads too)
        self._last = (time.time(), time.monotonic())

    def now(self) -> float:
        with self._lock:
            mono = time.monotonic()
            wall = max(time.time(), self._last[0] + (mono - self._last[1]))
            self._last = (wall, mono)
            return wall


_CLOCK = WallClock()


def wall() -> float:
    """The process's wall-clock label for now (WallClock.now)."""
    return _CLOCK.now()
