"""The command line's process ends at once after a command that leaves Python's shutdown nothing to do
(cli.main.entry, _end_now: lint, rules, --help), and only then: its report arrives whole on a pipe and in a file,
its exit code is the command's, and a run Python is asked to watch (-W, -X dev), a pool's, or one with an exit
handler of its host's, ends as Python ends it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # each test starts the program as an operator does

# Loaded into every Python process started with it (sitecustomize): os._exit records its code and every file object
# still open for writing (beside the standard streams) in OUT, then ends the process as it would have. No exit
# handler: one would (rightly) keep the command from ending at once.
_PROBE = '''
import gc, io, os, sys
_exit = os._exit
def _standard(o):
    try:
        return o.fileno() in (0, 1, 2)
    except (OSError, ValueError):
        return False
def _recording_exit(code):
    left = sorted(type(o).__name__ for o in gc.get_objects()
                  if isinstance(o, io.IOBase) and not isinstance(o, (io.BytesIO, io.StringIO)) and not o.closed
                  and o.writable() and not _standard(o))
    with open(OUT, "a") as f:
        f.write(f"{code} {left}\\n")
    _exit(code)
os._exit = _recording_exit
'''


def _probe(tmp_path) -> None:
    """The exit probe, loaded by every Python started with tmp_path on its path."""
    (tmp_path / "sitecustomize.py").write_text(f"OUT = {str(tmp_path / 'ended.txt')!r}\n{_PROBE}")


def _run(tmp_path, *args: str, python: tuple[str, ...] = (), cache: bool = True) -> subprocess.CompletedProcess:
    _probe(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for name in ("PYTHONWARNINGS", "PYTHONDEVMODE", "PYTHONMALLOCSTATS", "PYTHONUNBUFFERED"):
        env.pop(name, None)
    if not cache:
        env["LOSSLESSD_NO_CACHE"] = "1"
    return subprocess.run([sys.executable, *python, "-m", "losslessd", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=300)


def _program(tmp_path, code: str) -> subprocess.CompletedProcess:
    """A Python program of its own (``code``) run with the exit probe: what the entry or main does inside it."""
    _probe(tmp_path)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})


def _ended(tmp_path) -> list[str]:
    path = tmp_path / "ended.txt"
    return path.read_text().splitlines() if path.exists() else []


def test_a_lint_ends_at_once_with_its_whole_report_on_a_pipe(tmp_path):
    done = _run(tmp_path, "lint", "examples/fabric", "-f", "json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["devices"]  # whole: it parses
    assert _ended(tmp_path) == ["1 []"]  # at once, nothing left open for writing


def test_a_lint_ends_at_once_with_its_whole_report_in_a_file(tmp_path):
    report = tmp_path / "report.json"
    done = _run(tmp_path, "lint", "examples/fabric", "-f", "json", "-o", str(report))
    assert done.returncode == 1, done.stderr
    assert done.stdout == b""
    assert json.loads(report.read_text())["devices"]
    assert _ended(tmp_path) == ["1 []"]


@pytest.mark.parametrize(("args", "code"), [(("rules",), 0), (("--help",), 0), (("--version",), 0),
                                            (("lint", "no-such-file"), 2), (("no-such-command",), 2)])
def test_the_light_commands_and_usage_errors_end_at_once_with_their_own_code(tmp_path, args, code):
    done = _run(tmp_path, *args)
    assert done.returncode == code, done.stderr
    assert _ended(tmp_path) == [f"{code} []"]
    assert done.stdout or done.stderr


def test_an_unsent_text_report_is_flushed_before_the_end(tmp_path):
    # (stdout is a pipe here: block-buffered, the text report sits in its buffer until the end flushes it)
    done = _run(tmp_path, "lint", "examples/fabric")
    assert done.returncode == 1
    assert done.stdout.decode().splitlines()[-1].startswith("8 devices checked against policy")  # (its last line)
    assert _ended(tmp_path) == ["1 []"]


@pytest.mark.parametrize("python", [("-W", "error"), ("-X", "dev")])
def test_a_run_python_watches_ends_as_python_ends_it(tmp_path, python):
    plain = _run(tmp_path, "lint", "examples/fabric", "-f", "json")
    watched = _run(tmp_path, "lint", "examples/fabric", "-f", "json", python=python)
    assert (watched.returncode, watched.stdout, watched.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert _ended(tmp_path) == ["1 []"]  # (the plain run's alone)


def test_a_verbose_python_shows_the_modules_teardown(tmp_path):
    # (-v, PYTHONVERBOSE: Python reports each module it tears down at shutdown, which os._exit skipped)
    done = _run(tmp_path, "rules", python=("-v",))
    assert done.returncode == 0, done.stderr
    assert b"\n# cleanup[" in done.stderr and b"\n# destroy " in done.stderr
    assert _ended(tmp_path) == []


def test_a_parallel_lint_ends_as_python_ends_it(tmp_path):
    # (its pool registers multiprocessing's exit handler: the workers are joined at shutdown as before)
    done = _run(tmp_path, "lint", "examples/fabric", "-f", "json", "--jobs", "2")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["devices"]
    assert not [line for line in _ended(tmp_path) if not line.startswith("0 ")]  # (workers end with os._exit(0))


def test_a_command_not_listed_ends_as_python_ends_it(tmp_path):
    done = _run(tmp_path, "policy", "show", "roce-dscp26")
    assert done.returncode == 0, done.stderr
    assert _ended(tmp_path) == []


# Programs of their own that run the command line and go on after it: each keeps Python's end (no os._exit), and
# what the program prints after the command (its marked lines) arrives.
_PROGRAMS = {
    # an exit handler registered before the command line's entry runs: the handler runs
    "a host's exit handler": ("import atexit, sys\nfrom losslessd.cli.main import entry\n"
                              "atexit.register(lambda: print('handler ran', flush=True))\n"
                              "sys.argv = ['losslessd', 'rules']\nentry()\n", ["handler ran"]),
    # tests/hostile.py, bench/hostile_sweep.py: main raises SystemExit, the program goes on
    "main called twice": ("import sys\nfrom losslessd.cli.main import main\nfor _ in range(2):\n"
                          "    sys.argv = ['losslessd', 'rules']\n    try:\n        main()\n"
                          "    except SystemExit as e:\n        print('went on', e.code, flush=True)\n",
                          ["went on 0"] * 2),
    # runpy.run_module, as a profiler or tests/test_policy_cache.py does: its SystemExit comes back
    "runpy": ("import runpy, sys\nsys.argv = ['losslessd', 'rules']\ntry:\n"
              "    runpy.run_module('losslessd', run_name='__main__', alter_sys=True)\nexcept SystemExit as e:\n"
              "    print('went on', e.code, flush=True)\n", ["went on 0"]),
}


@pytest.mark.parametrize("program", _PROGRAMS)
def test_a_program_that_runs_the_command_line_itself_keeps_its_end(tmp_path, program):
    code, marked = _PROGRAMS[program]
    done = _program(tmp_path, code)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith(("handler ran", "went on"))] == marked
    assert _ended(tmp_path) == []
