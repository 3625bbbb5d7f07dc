"""Every rule is documented and has a case file with a passing and a failing case that hold."""

from __future__ import annotations

import pytest

from losslessd.lint.registry import DOC_HEADINGS, all_rules
from tests.rulecase import CASES_DIR, findings_for, load_cases, matches

RULES = all_rules()
# SYS rules report inputs (covered by parser and CLI tests); SYS900 fires only on a rule bug.
CASE_EXEMPT = {code for code in RULES if code.startswith("SYS")}


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_is_documented(code):
    rule = RULES[code]
    doc = rule.__doc__ or ""
    for heading in DOC_HEADINGS:
        assert f"## {heading}" in doc, f"{code} docstring lacks '## {heading}'"
    assert rule.name == rule.name.lower() and " " not in rule.name and "_" not in rule.name, "names are kebab-case"


def _all_cases():
    out = []
    for code in sorted(set(RULES) - CASE_EXEMPT):
        path = CASES_DIR / f"{code}.yaml"
        if not path.is_file():
            out.append(pytest.param(code, None, None, id=f"{code}-missing"))
            continue
        for i, case in enumerate(load_cases(code)["cases"]):
            out.append(pytest.param(code, i, case, id=f"{code}-{i}-{case['name'][:40]}"))
    return out


@pytest.mark.parametrize("code", sorted(set(RULES) - CASE_EXEMPT))
def test_rule_has_pass_and_fail(code):
    path = CASES_DIR / f"{code}.yaml"
    assert path.is_file(), f"{code} has no case file tests/rule_cases/{code}.yaml"
    cases = load_cases(code)["cases"]
    assert any(c["expect"] == [] for c in cases), f"{code}: no passing case"
    assert any(c["expect"] for c in cases), f"{code}: no failing case"


@pytest.mark.parametrize("code,index,case", _all_cases())
def test_rule_case(code, index, case):
    if case is None:
        pytest.fail(f"{code} has no case file")
    spec = load_cases(code)
    found = findings_for(code, spec, case, index)
    want = case["expect"]
    assert len(found) == len(want), f"expected {len(want)} {code} findings, got {[(f.port, f.key, f.message) for f in found]}"
    unmatched = list(found)
    for w in want:
        hit = next((f for f in unmatched if matches(f, w)), None)
        assert hit is not None, f"no finding matches {w}; got {[(f.port, f.key, f.severity.value, f.message) for f in unmatched]}"
        unmatched.remove(hit)


def test_a_rule_that_raises_fails_its_passing_case(monkeypatch):
    """The engine turns a crash into a SYS900 finding, not one of the rule's: a passing case must still fail."""
    def broken(self, ctx, device, port):
        raise RuntimeError("rule bug")

    monkeypatch.setattr(RULES["PFC001"], "check_port", broken)
    spec = load_cases("PFC001")
    index, case = next((i, c) for i, c in enumerate(spec["cases"]) if c["expect"] == [])
    with pytest.raises(AssertionError, match="rule bug"):
        findings_for("PFC001", spec, case, index)


def test_rule_families_share_helpers_through_common_only():
    """A family module imports no other family: what several share lives in rules/common.py (the engine's SYS900 in
    lint/), so moving or renaming one family never breaks another."""
    import ast
    from pathlib import Path

    import losslessd.rules as rules_pkg

    folder = Path(rules_pkg.__file__).parent
    families = {p.stem for p in folder.glob("*.py")} - {"__init__", "common"}
    crossings = []
    for name in sorted(families):
        tree = ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported = {node.module} if node.module else {a.name for a in node.names}
                crossings += [f"{name} imports {other}" for other in imported & families]
    assert crossings == []
    assert {code for code, rule in RULES.items() if rule.__module__.startswith("losslessd.rules.")} == set(RULES) - {"SYS900"}
    assert RULES["SYS900"].__module__ == "losslessd.lint.internal"
