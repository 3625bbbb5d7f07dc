"""What the command line's start-up does not spend (docs/lint-at-scale.md, "Session 40, part c"): collector work on
what lives until the process ends (a command's module is imported with the collector paused, the heap is frozen at
exit: cli.main), nor compiling annotations from text: the lint command's parameters (typer reads them) and the
policy models' fields (pydantic reads them) are objects."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from pydantic import BaseModel

from losslessd import policy
from losslessd.cli import lint
from losslessd.collect import MANIFEST
from losslessd.collect import pull as collect
from tests.conftest import ROOT
from tests.daemonproc import DaemonProcess, wait_for


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def test_the_lint_commands_annotations_are_objects():
    # (with `from __future__ import annotations` typer compiled each of the 52 texts: 14.8 M of the example lint)
    annotations = lint.lint.__annotations__
    assert len(annotations) > 10
    assert not [name for name, hint in annotations.items() if isinstance(hint, str)]


def test_the_root_commands_and_the_shared_options_annotations_are_objects():
    # (typer reads them as the lint's: texts were compiled twice each, by inspect.signature and get_type_hints, for
    # the root command's --version and --debug and for each option's callback: 3.7 M of the example lint)
    from losslessd.cli import main, options

    functions = [main._root, main._version, options.finite, options.seconds, options.policy_named,
                 options.family_named, options.FORMAT_OPTION.callback]
    assert not [(f.__name__, name) for f in functions for name, hint in f.__annotations__.items()
                if isinstance(hint, str)]


def test_a_commands_parameters_are_read_from_its_signature_once(monkeypatch):
    # (typer read the 19 of lint twice, the second time for their names alone: 2.5 M of the example lint)
    import typer

    from losslessd.cli import main

    read = typer.main.get_params_from_function
    calls: list[object] = []
    monkeypatch.setattr(typer.main, "get_params_from_function", lambda f: calls.append(f) or read(f))
    command = main._load("lint", *main.COMMANDS["lint"])
    assert calls.count(lint.lint) == 1
    assert typer.main.get_params_from_function is not read  # (the test's own, put back)
    assert [p.name for p in command.params] == list(lint.lint.__annotations__)[:-1]  # (all but the return's)
    assert command.params[1].opts == ["--policy", "-p"] and command.params[1].default == "roce-dscp26"


def test_the_policy_models_annotations_are_objects():
    # (as texts pydantic compiled each of their 66: 7.4 M of the example lint)
    models = [m for m in vars(policy).values() if isinstance(m, type) and issubclass(m, BaseModel)
              and m.__module__ == policy.__name__]
    assert len(models) > 15
    assert not [(m.__name__, name) for m in models for name, hint in m.__annotations__.items() if isinstance(hint, str)]


@pytest.mark.slow  # a fresh interpreter: what it has not imported yet is the point
def test_a_command_is_imported_with_the_collector_paused():
    # (importing the lint command, and pydantic and the policy models where it validates a policy, starts dozens of
    # collections otherwise)
    out = _python("import gc\n"
                  "from losslessd.cli import main as m\n"
                  "runs = []\n"
                  "gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(info['generation']))\n"
                  "m._load('lint', *m.COMMANDS['lint'])\n"
                  "from losslessd import policycache\n"
                  "policycache.validator()\n"
                  "print(len(runs), gc.isenabled())\n")
    assert out == "0 True"


@pytest.mark.slow
def test_the_heap_is_frozen_at_exit_after_every_other_exit_handler_of_the_command():
    # An exit handler registered before main runs after main's (atexit runs them last in, first out).
    out = _python("import atexit, gc, sys\n"
                  "from losslessd.cli.main import main\n"
                  "atexit.register(lambda: print(gc.get_freeze_count() > 10_000))\n"
                  "sys.argv = ['losslessd', '--version']\n"
                  "main()\n")
    assert out.splitlines()[-1] == "True"


# Run first of every exit handler (registered before main's), so last: after the heap is frozen. It takes the freeze
# back and collects what the collector alone would have freed at exit, naming what was still open in it (a file whose
# buffer was never flushed, a database never closed, a child never waited for, a temporary file never removed).
_LEFT_AT_EXIT = '''
import atexit, gc, io, logging, sqlite3, subprocess, sys, tempfile, weakref
def _open(o):
    if type(o) in (weakref.ProxyType, weakref.CallableProxyType):
        return False
    if isinstance(o, io.IOBase):
        return not isinstance(o, (io.BytesIO, io.StringIO)) and not o.closed  # (memory alone: nothing to flush)
    if isinstance(o, subprocess.Popen):
        return o.returncode is None
    return isinstance(o, (logging.Handler, tempfile._TemporaryFileWrapper))
def _left():
    frozen = gc.get_freeze_count()
    if not frozen:  # (no losslessd command here: a daemon's worker, say)
        return
    gc.unfreeze()
    watched = [(type(o).__name__, weakref.ref(o)) for o in gc.get_objects() if _open(o)]
    gc.set_debug(gc.DEBUG_SAVEALL)  # (a sqlite3 connection takes no weak reference: looked for among the garbage)
    gc.collect()
    left = [name for name, ref in watched if ref() is None]
    for o in gc.garbage:
        if issubclass(type(o), sqlite3.Connection):  # (type: isinstance asks a dead weak proxy)
            try:
                o.total_changes
                left.append("Connection")
            except sqlite3.ProgrammingError:  # closed
                pass
    with open(OUT, "a") as f:
        f.write(f"{sys.argv[1:2]} {sorted(left)}\\n")
atexit.register(_left)
'''


def _probe(folder) -> dict[str, str]:
    """The environment that loads the probe above into every Python process started with it."""
    (folder / "sitecustomize.py").write_text(f"OUT = {str(folder / 'left.txt')!r}\n{_LEFT_AT_EXIT}")
    return {"PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}


def _left(folder) -> list[str]:
    return (folder / "left.txt").read_text().splitlines()


@pytest.mark.slow
def test_the_probe_names_an_open_file_left_in_a_garbage_cycle(tmp_path):
    # (the check the commands below pass could fail: a buffered file in a cycle at exit loses what it buffered)
    env = {**os.environ, **_probe(tmp_path)}
    code = ("import sys\nfrom losslessd.cli.main import main\nclass Holder: pass\nout = sys.argv[1]\n"
            "sys.argv = ['losslessd', '--version']\ntry:\n    main()\nfinally:\n"
            "    h = Holder(); h.me = h; h.f = open(out, 'w'); h.f.write('lost'); del h\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "out.txt")], env=env, check=True, timeout=120,
                   capture_output=True)
    assert _left(tmp_path) == ["['--version'] ['BufferedWriter', 'FileIO', 'TextIOWrapper']"]


@pytest.mark.slow
def test_what_a_command_writes_is_closed_before_the_heap_is_frozen_at_exit(tmp_path, make_sim):
    """Freezing the heap at exit (cli.main.main) leaves garbage cycles uncollected: a command must close what it
    writes (a report, a snapshot's captures, the daemon's history after SIGTERM) itself, never leave it to the
    collector. Each runs as its own process, as an operator starts it, and its output is read after it ended."""
    env = {**os.environ, **_probe(tmp_path)}
    report = tmp_path / "report.json"
    lint_run = subprocess.run([sys.executable, "-m", "losslessd", "lint", "examples/fabric", "-f", "json", "-o",
                               str(report)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert lint_run.returncode == 1, lint_run.stderr
    assert json.loads(report.read_text())["devices"]  # whole: it parses

    sim = make_sim(["leaf1", "gpu01"])
    snap = tmp_path / "snap"
    pull_run = subprocess.run([sys.executable, "-m", "losslessd", "pull", "-i", str(sim.inventory_path), "-o",
                               str(snap), "--known-hosts", str(sim.known_hosts_path)], env={**env, **sim.env},
                              capture_output=True, text=True, timeout=300)
    assert pull_run.returncode == 0, pull_run.stderr
    manifest = json.loads((snap / MANIFEST).read_text())
    assert {name: collect.sha256((snap / rec["capture"]).read_bytes()) for name, rec in manifest["devices"].items()} \
        == {name: rec["sha256"] for name, rec in manifest["devices"].items()}

    daemon = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None}).start(env=_probe(tmp_path))
    try:
        wait_for(lambda: (daemon.value("losslessd_polls_total", device="leaf1", source="snmp") or 0) >= 3,
                 "three polls of leaf1")  # (rates of the last ones written at the stop)
    finally:
        assert daemon.stop() == 0, daemon.log.read_text()[-3000:]
    assert not (tmp_path / "daemon" / "history.db-wal").exists()  # closed: its last connection folds the WAL in
    with sqlite3.connect(tmp_path / "daemon" / "history.db") as db:
        assert db.execute("SELECT count(*) FROM coverage").fetchone()[0] > 0

    assert _left(tmp_path) == [f"[{command!r}] []" for command in ("lint", "pull", "daemon")]  # nothing left open


@pytest.mark.slow
def test_the_library_leaves_its_hosts_collector_and_exit_handlers_alone():
    # (the freeze at exit and the paused imports are the command line's: a program that calls losslessd.api keeps
    # its collector running, nothing frozen and no exit handler of losslessd's)
    out = _python("import atexit, gc\n"
                  "handlers = atexit._ncallbacks()\n"
                  "from losslessd import api\n"
                  "api.lint(['examples/fabric'])\n"
                  "print(gc.isenabled(), gc.get_freeze_count(), atexit._ncallbacks() - handlers)\n")
    assert out == "True 0 0"
