"""`losslessd` commands for tests: in process through typer's CliRunner, or as the installed program.

``losslessd(...)`` runs the very app the entry point runs (losslessd.cli.main.app: same arguments,
exit codes, stdout and stderr, operator errors as "losslessd: error: ..." and exit 2) without
starting a Python interpreter per call, which is what made the CLI tests slow. A command that
raises instead of exiting fails the test with its traceback, as a traceback on a real stderr would.

``program(...)`` starts ``python -m losslessd`` for what only a process shows: the entry point's
own exit code and streams, a TTY, signals, environment-driven start-up.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from losslessd.cli.main import app, one_command

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Ran:
    """What a command left behind, named like subprocess.CompletedProcess."""

    returncode: int
    stdout: str
    stderr: str


@contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def losslessd(*args, cwd: Path = ROOT, env: dict[str, str | None] | None = None, input: str | None = None) -> Ran:
    """Run ``losslessd ARGS`` in this process (working directory ``cwd``, ``env`` added to the environment)."""
    try:
        runner = CliRunner(mix_stderr=False)  # typer on click < 8.2 mixes stderr into stdout unless told
    except TypeError:
        runner = CliRunner()  # stderr is always its own stream
    with _cwd(cwd), one_command():
        res = runner.invoke(app, [str(a) for a in args], env=env, input=input, catch_exceptions=True)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception  # what would have been a traceback on stderr
    return Ran(res.exit_code, res.stdout, res.stderr)


def program(*args, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 180,
            **popen) -> subprocess.CompletedProcess:
    """Run ``python -m losslessd ARGS`` as its own process; never a traceback on its stderr."""
    res = subprocess.run([sys.executable, "-m", "losslessd", *map(str, args)], capture_output=True, text=True,
                         cwd=cwd, env={**os.environ, **(env or {})}, timeout=timeout, **popen)
    assert "Traceback" not in res.stderr, res.stderr
    return res


def program_on_a_terminal(*args, cwd: Path = ROOT, env: dict[str, str] | None = None,
                          timeout: float = 180) -> tuple[subprocess.CompletedProcess, bytes]:
    """Run ``python -m losslessd ARGS`` with stderr on a pseudo-terminal and stdout on a pipe, as an
    operator's shell with a redirected report: the finished process, and what the terminal received."""
    master, slave = pty.openpty()
    try:
        res = subprocess.run([sys.executable, "-m", "losslessd", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                             stderr=slave, text=True, env={**os.environ, **(env or {})}, timeout=timeout)
    finally:
        os.close(slave)
    terminal = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the other end is closed and drained
            break
        if not chunk:
            break
        terminal += chunk
    os.close(master)
    return res, terminal
