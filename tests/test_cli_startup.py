"""What the command line's start-up does not spend (docs/lint-at-scale.md, "Session 40, part c"): collector work on
what lives until the process ends (a command's module is imported with the collector paused, the heap is frozen at
exit: cli.main), nor compiling annotations from text: the lint command's parameters (typer reads them) and the
policy models' fields (pydantic reads them) are objects."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel

from losslessd import policy
from losslessd.cli import lint
from tests.conftest import ROOT


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def test_the_lint_commands_annotations_are_objects():
    # (with `from __future__ import annotations` typer compiled each of the 52 texts: 14.8 M of the example lint)
    annotations = lint.lint.__annotations__
    assert len(annotations) > 10
    assert not [name for name, hint in annotations.items() if isinstance(hint, str)]


def test_the_policy_models_annotations_are_objects():
    # (as texts pydantic compiled each of their 66: 7.4 M of the example lint)
    models = [m for m in vars(policy).values() if isinstance(m, type) and issubclass(m, BaseModel)
              and m.__module__ == policy.__name__]
    assert len(models) > 15
    assert not [(m.__name__, name) for m in models for name, hint in m.__annotations__.items() if isinstance(hint, str)]


@pytest.mark.slow  # a fresh interpreter: what it has not imported yet is the point
def test_a_command_is_imported_with_the_collector_paused():
    # (importing the lint command, pydantic and the policy models with it, starts dozens of collections otherwise)
    out = _python("import gc\n"
                  "from losslessd.cli import main as m\n"
                  "runs = []\n"
                  "gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(info['generation']))\n"
                  "m._load('lint', *m.COMMANDS['lint'])\n"
                  "import losslessd.policy\n"
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
