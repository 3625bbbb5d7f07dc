"""Regular expressions from input are matched by RE2 (losslessd.userre): linear time, and what needs backtracking is
refused at the policy's line. Syntax facts from RE2's syntax reference (re2 doc/syntax.txt)."""

from __future__ import annotations

import pytest

from losslessd.errors import InputError
from losslessd.policy import load_policy
from losslessd.userre import compile_linear, regex_problem

NESTED = r"^(\w+\s?)*-roce$"  # hostile round 13


def test_a_nested_repeat_on_a_near_miss_is_linear():
    """Python's `re` takes minutes here (tests/hostile.py lint-policy-regex-nested-repeat hangs on the old code): the
    pattern is RE2's program, whose automaton is linear in the text by construction (its time is not asserted)."""
    import re2

    pattern = compile_linear(NESTED)
    assert isinstance(pattern._re, re2._Regexp)
    assert not pattern.search("a" * 5000 + "!")
    assert pattern.search("gpu node7-roce")


@pytest.mark.parametrize("pattern, shown", [
    ("(?=gpu)", "(?="), ("(?<!Ethernet)0", "(?<!"), (r"(a)\1", r"\1"), ("(?P<n>a)(?P=n)", "(?P"), (r"gpu\Z", r"\Z"),
    ("(?x) gpu", "(?x"), ("a{1001}", "{1001}"),
])
def test_what_re2_lacks_is_refused_saying_why(pattern, shown):
    problem = regex_problem(pattern)
    assert problem is not None and shown in problem and "linear time" in problem


@pytest.mark.parametrize("pattern, says", [("gpu([", "unterminated character set at position 4"),
                                           ("*Ethernet", "nothing to repeat"), ("\ud800", "lone surrogate")])
def test_a_pattern_that_is_no_regular_expression_is_named_as_python_names_it(pattern, says):
    assert says in (regex_problem(pattern) or "")


def test_the_documented_meaning_of_accepted_patterns():
    """docs/policy.md "Regular expressions": ASCII \\d, \\pN for any digits, $ only at the end, POSIX classes."""
    assert not compile_linear(r"\d").search("\u0663") and compile_linear(r"\pN").search("\u0663")
    assert not compile_linear("x$").search("x\n") and compile_linear(r"x\z").search("x")
    assert compile_linear("[[:alpha:]]+[0-9]$").fullmatch("Ethernet8")
    assert compile_linear("(?i)ETHERNET").search("ethernet0")


def test_a_lone_surrogate_in_the_text_is_matched_not_refused():
    """A JSON port name may hold one (tests/hostile.py lint-*-finding-on-lone-surrogate-port)."""
    assert compile_linear("^Ethernet0").search("Ethernet0\ud800")


def test_a_policy_of_lookbehind_is_refused_at_its_line_and_key(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("name: x\nextends: roce-dscp26\nroce_ports:\n  select: all\n  name_regex: '(?<!Ethernet)0'\n")
    with pytest.raises(InputError) as info:
        load_policy(path)
    assert info.value.line == 5 and "roce_ports.name_regex" in str(info.value) and "(?<!" in str(info.value)
