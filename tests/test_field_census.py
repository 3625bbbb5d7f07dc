"""The field census (bench/field_census.py): docs/platforms.md's platform x field table is what the readers fill from
the project's inputs, every field no input fills is explained, and where the census says a platform's config cannot
hold a fact ("unknown") the rules that need it say they could not tell rather than staying silent or judging."""

from __future__ import annotations

import functools

import pytest

from bench import field_census
from losslessd.api import lint
from losslessd.lint.finding import Severity
from tests.conftest import FIXTURES


@functools.cache
def _read() -> dict[str, set[str]]:
    return field_census.census(field_census.inputs(corpus=False))


# What the next engineer does when the census moves.
_WHAT_TO_DO = ("edit NOT_READ / FIXED in bench/field_census.py as each line says (a field a reader now reads: drop its "
               "NOT_READ entry, or move it to FIXED with what was fixed; a field no input sets: read it and add a "
               "fixture under tests/fixtures/census/, or explain it in NOT_READ), then run `python "
               "bench/field_census.py --write` to update docs/platforms.md")


def test_every_field_no_input_fills_is_explained():
    """A reader change that drops a field (or reads one listed as not read) names the cell to fix."""
    stale = field_census.stale(_read())
    assert stale == [], f"the field census is out of step with the readers: {stale}; {_WHAT_TO_DO}"


def test_the_table_in_docs_platforms_is_the_census():
    text = field_census.DOC.read_text(encoding="utf-8")
    assert field_census.in_doc(text, field_census.table(_read())) == text, \
        "docs/platforms.md's field census is out of date: run `python bench/field_census.py --write` and commit it"


def test_a_reader_that_stops_filling_a_field_shows_in_the_census(monkeypatch):
    """The census is computed from what the readers give, not from a list: a field that no longer reaches the model
    turns its cell unexplained."""
    original = field_census.load_fabric

    def without_mtu(paths, *args, **kwargs):
        fabric = original(paths, *args, **kwargs)
        for device in fabric.devices.values():
            if device.platform == "nvidia_onyx":
                for port in device.ports.values():
                    port.mtu_bytes = None
        return fabric

    monkeypatch.setattr(field_census, "load_fabric", without_mtu)
    read = field_census.census(field_census.inputs(corpus=False))
    assert field_census.stale(read) == ["nvidia_onyx MTU: no input sets it; read it, or explain it in NOT_READ"]
    assert "**unexplained**" in field_census.table(read)


# Each "unknown" cell's rule on an input of that platform: an unverified info saying what is not in the input.
_UNKNOWN_SAYS_SO = [
    ("raw/dell_os10/roce-leaf.cfg", "WDG001", ("dell_os10", "PFC watchdog")),
    ("raw/dell_os9/roce-tor.cfg", "WDG001", ("dell_os9", "PFC watchdog")),
    ("raw/dell_os9/roce-tor.cfg", "ECN001", ("dell_os9", "ECN thresholds")),
    ("raw/dell_os9/roce-tor.cfg", "MAP004", ("dell_os9", "TC -> queue")),
    ("raw/nvidia_onyx/roce-leaf-bound.cfg", "WDG001", ("nvidia_onyx", "PFC watchdog")),
    ("raw/nvidia_onyx/roce-leaf-bound.cfg", "BUF003", ("nvidia_onyx", "PG headroom (xoff)")),
    ("raw/arista_eos/roce-leaf.cfg", "BUF003", ("arista_eos", "PG headroom (xoff)")),
    ("raw/juniper_junos/roce-leaf.cfg", "ECN002", ("juniper_junos", "ECN thresholds")),
    ("raw/juniper_junos/roce-leaf.cfg", "BUF003", ("juniper_junos", "PG headroom (xoff)")),
]


@pytest.mark.parametrize(("path", "code", "cell"), _UNKNOWN_SAYS_SO, ids=[c for _, c, _ in _UNKNOWN_SAYS_SO])
def test_rules_say_they_could_not_tell_where_the_config_cannot_hold_the_fact(path, code, cell):
    assert field_census.NOT_READ[cell][0] in ("unknown", "gap")
    found = [f for f in lint([FIXTURES / path], select_codes=[code], jobs=1).findings if f.code == code]
    assert found, f"{code} says nothing on {path}"
    assert {f.severity for f in found} == {Severity.info}
    assert all(any(w in f.message for w in ("not in the input", "could not", "cannot", "unknown")) for f in found), \
        [f.message for f in found]


# OS9 does not say which egress queue a priority leaves by: ECN001 says so once per port, and every other rule that
# checks that queue says it itself where ECN001 does not run (before: `--select SCH001` read "0 infos", exit 0).
_OS9 = FIXTURES / "raw" / "dell_os9" / "roce-tor.cfg"


@pytest.mark.parametrize("code", ["SCH001", "ECN002", "ECN003", "ECN004"])
def test_a_rule_selected_alone_says_it_could_not_check_an_unknown_queue(code):
    found = lint([_OS9], select_codes=[code], jobs=1).findings
    assert found and {f.code for f in found} == {code}
    assert all(f.severity == Severity.info and "egress queue of lossless priority 3 is not in the input" in f.message
               for f in found), [f.message for f in found]


def test_with_every_rule_run_the_unknown_queue_is_said_once_by_ecn001():
    said = [f for f in lint([_OS9], jobs=1).findings if "egress queue of lossless priority 3" in f.message]
    assert {f.code for f in said} == {"ECN001"} and len(said) == 3  # (one per RoCE-facing port)


def test_an_explanation_for_a_field_the_census_does_not_have_is_stale(monkeypatch):
    """A NOT_READ key naming no census field (a typo, a renamed field) explained nothing and was printed in the docs'
    notes as if it did, while the cell it meant stayed explained by nothing or by an older entry."""
    monkeypatch.setitem(field_census.NOT_READ, ("dell_os9", "cable-length"), ("unknown", "typo"))
    assert field_census.stale(_read()) == ["dell_os9 cable-length: no such census field or platform (FIELDS, COLUMNS)"]
