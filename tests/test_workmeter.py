"""The work meter (tests/workmeter.py) puts back every module's own code and patterns, whatever the run did (review
r1 of session 45): it recompiles the functions of the modules it meters, so a function left with its metered code
would count, or fail, in every later test of the same process (an xdist worker runs many files)."""

from __future__ import annotations

import importlib.util
import re
import sys
import types

import pytest

from tests.workmeter import work

_SOURCE = '''
import re

WORD = re.compile(r"\\w+")


def words(text):
    return [w for w in WORD.findall(text) if w in text[0:]]


def lazily(text):
    for line in text.split("\\n"):
        yield "x" in line
'''


@pytest.fixture
def metered(tmp_path):
    """A module of our own, imported from a file, with a pattern, `in`, a slice and a scanning method."""
    path = tmp_path / "metered_sample.py"
    path.write_text(_SOURCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("metered_sample", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def _as_imported(module: types.ModuleType) -> tuple[types.CodeType, types.CodeType, re.Pattern]:
    return module.words.__code__, module.lazily.__code__, module.WORD


def test_a_module_named_twice_gets_its_own_code_back(metered):
    before = _as_imported(metered)
    count, found = work([metered, metered], metered.words, "a b")
    assert found == ["a", "b"] and count > 0
    assert _as_imported(metered) == before
    assert "__workmeter__" not in metered.words.__code__.co_names


def test_a_module_the_meter_cannot_read_leaves_the_others_as_they_were(metered, tmp_path):
    """The second module's source is gone: the meter refuses, and the first module is as it was imported."""
    ghost = types.ModuleType("metered_ghost")
    ghost.__file__ = str(tmp_path / "metered_ghost.py")
    before = _as_imported(metered)
    with pytest.raises(OSError):
        work([metered, ghost], metered.words, "a b")
    assert _as_imported(metered) == before
    assert metered.words("a b") == ["a", "b"]


def test_a_generator_the_run_gave_back_still_runs_after_the_meter_is_gone(metered):
    """A generator made during the run keeps the code it started with: reading it later is not a NameError."""
    _, lines = work([metered], metered.lazily, "x\ny")
    assert list(lines) == [True, False]
    assert metered.lazily.__code__ == _as_imported(metered)[1]
