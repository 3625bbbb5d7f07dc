"""The README's excerpts of `make demo`'s last two steps, examples/pull-demo.sh and examples/daemon-demo.py, are what
those scripts print: each is run here (the simulator on 127.0.0.1, a real daemon and SQLite history) and every line
the README shows must come out, in order. What changes from run to run is matched by its form only: the simulator's
and the daemon's TCP ports, counter values, times, rates and how long detection took."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clirun import ROOT

README = ROOT / "README.md"
# What varies between runs, as README lines write it, and the form a printed line must have there.
_VARYING = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"),
    (re.compile(r"127\.0\.0\.1:\d+"), r"127\.0\.0\.1:\d+"),
    (re.compile(r"(?<=\} )\d+(?:\.\d+)?$"), r"\d+(?:\.\d+)?"),  # a metric's value
    (re.compile(r"(?<=after )\d+\.\d(?= s)"), r"\d+\.\d"),
    (re.compile(r"\(\d+ s\)"), r"\(\d+ s\)"),
    (re.compile(r"\d+(?= pause frames/s)"), r"\d+"),
]
# The storm's event: the device's own watchdog report (onbox_storm) where its SSH poll sees the storm first, else the
# counters' (pfc_storm); the README says which gives way to which. Its padding and message differ with the kind.
_STORM_EVENT = re.compile(r"(?P<head>.*\)  error   )onbox_storm .*")
_STORM_FORMS = r"(?:onbox_storm     leaf1 Ethernet0 priority 3: the device's PFC watchdog detected a storm|" \
    r"pfc_storm       leaf1 Ethernet0 priority 3: PFC storm: \d+ pause frames/s received and the queue sent nothing " \
    r"while the device's other queues did)"


def _form(line: str) -> re.Pattern[str]:
    """The regular expression a printed line must match for the README's ``line``."""
    storm = _STORM_EVENT.fullmatch(line)
    text = storm["head"] if storm else line
    out, at = "", 0
    spans = sorted((m.start(), m.end(), form) for pattern, form in _VARYING for m in pattern.finditer(text))
    for start, end, form in spans:
        if start >= at:
            out += re.escape(text[at:start]) + form
            at = end
    out += re.escape(text[at:])
    return re.compile(out + (_STORM_FORMS if storm else ""))


def _excerpt(starts: str) -> list[str]:
    """The lines of the README's text block that starts with ``starts``."""
    for block in re.findall(r"^```text\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S):
        if block.startswith(starts):
            return [line for line in block.rstrip("\n").split("\n") if line.strip() not in ("...", "")]
    raise AssertionError(f"README.md has no excerpt starting {starts!r}")


_EVENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ -> ")


def _assert_shows(shown: list[str], printed: list[str], script: str) -> None:
    """Every shown line is printed, in order; a run of `losslessd events` lines in any order among themselves (they
    are listed by start time, and whether the pause-rate warning or the storm starts first depends on which poll sees
    the storm first)."""
    position, taken = 0, set()
    for line in shown:
        form = _form(line)
        event = bool(_EVENT.match(line))
        found = next((k for k in range(position, len(printed)) if k not in taken and form.fullmatch(printed[k])), None)
        if found is None:
            pytest.fail(f"README.md shows a line {script} does not print (or not in this order):\n{line}\n"
                        "printed:\n" + "\n".join(printed))
        if event:
            taken.add(found)
        else:
            position = found + 1


def _losslessd(tmp_path: Path) -> Path:
    """A `losslessd` command running this checkout's package with this interpreter (what the scripts call)."""
    path = tmp_path / "losslessd"
    path.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m losslessd "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.slow  # (starts the simulator and a pull)
def test_readme_pull_demo_excerpt_is_what_the_script_prints(tmp_path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # (the script reads examples/ and writes build/ here)
    res = subprocess.run(["sh", "examples/pull-demo.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "LOSSLESSD": str(_losslessd(tmp_path))})
    assert res.returncode == 0, res.stderr
    shown = _excerpt("== losslessd pull ")
    _assert_shows(shown, res.stdout.rstrip("\n").split("\n"), "examples/pull-demo.sh")
    assert res.stdout.rstrip("\n").split("\n")[-1] == shown[-1]  # the lint's summary, exactly


@pytest.mark.slow  # (starts the simulator and the daemon)
def test_readme_daemon_demo_excerpt_is_what_the_script_prints(tmp_path):
    res = subprocess.run([sys.executable, str(ROOT / "examples" / "daemon-demo.py"), "--losslessd",
                          str(_losslessd(tmp_path))], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    _assert_shows(_excerpt("== losslessd daemon "), res.stdout.rstrip("\n").split("\n"), "examples/daemon-demo.py")
