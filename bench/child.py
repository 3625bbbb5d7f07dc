"""What the benches that time one input per child process share (a child of its own: one input's heap does not slow
the next): CPU seconds of one step, as the machine may be busy with others, and what the step said."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

from losslessd.errors import InputError


def timed(step: Callable[[], str]) -> str:
    """In the child: "SECONDS WHAT", WHAT being what ``step`` returned, or the InputError it raised."""
    start = time.process_time()
    try:
        what = step()
    except InputError as exc:
        what = f"refused: {exc.message[:70]}"
    return f"{time.process_time() - start:.3f} {what}"


def run(script: str, *args: str) -> tuple[float, str]:
    """In the parent: ``script --child ARGS`` in a fresh interpreter, its seconds and what it said."""
    out = subprocess.run([sys.executable, script, "--child", *args], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1]
    seconds, what = out.split(" ", 1)
    return float(seconds), what
