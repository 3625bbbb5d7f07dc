"""What the commands show on a terminal and nowhere else: colour and a progress line.

Colour follows the conventions tools share: ``NO_COLOR`` set to anything (no-color.org) turns it
off, ``FORCE_COLOR`` set to anything (force-color.org) turns it on where no terminal is (a CI log
that renders ANSI), otherwise a terminal gets colour and a pipe or file gets none. NO_COLOR wins
when both are set. Progress goes to stderr, only when stderr is a terminal, so a report on stdout
and a redirected log stay clean.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import TextIO

_REDRAW_S = 0.1  # at most ten redraws a second: a fast loop over 10,000 devices must not spend its time drawing


def color_wanted(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return stream.isatty()


class ProgressLine:
    """One self-rewriting line on ``stream``: ``[#####.....] 812/1800 devices`` and a note. Draws the
    first and the last state of each stage and at most ten states a second in between."""

    def __init__(self, stream: TextIO | None = None, width: int = 30, clock: Callable[[], float] = time.monotonic):
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.clock = clock  # (seconds; a test gives its own, so that what is drawn does not depend on its speed)
        self._drawn_at = -1.0
        self._shown = 0  # length of the line on screen, to blank it

    @classmethod
    def on_terminal(cls) -> ProgressLine | None:
        """A progress line on stderr when it is a terminal; None (draw nothing) otherwise."""
        return cls() if sys.stderr.isatty() else None

    def show(self, done: int, total: int, what: str, note: str = "") -> None:
        now = self.clock()
        if 0 < done < total and now - self._drawn_at < _REDRAW_S:
            return
        self._drawn_at = now
        filled = self.width * done // max(1, total)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {what}" + (f", {note}" if note else "")
        self.stream.write("\r" + line.ljust(self._shown))
        self.stream.flush()
        self._shown = len(line)

    def close(self, keep: bool = False) -> None:
        """End the line: keep it (a newline after it) or blank it, so the next output starts clean."""
        self.stream.write("\n" if keep else "\r" + " " * self._shown + "\r")
        self.stream.flush()
        self._shown = 0
