"""ruff and mypy as gates: today's findings never exceed the committed baseline, and a fixed finding
lowers it (tests/gates.py says how the counts are kept)."""

from __future__ import annotations

import json

import pytest

from tests import gates
from tests.gates import Finding, GateError


@pytest.mark.slow  # starts ruff and mypy
@pytest.mark.parametrize("tool", gates.TOOLS)
def test_findings_stay_at_the_committed_baseline(tool):
    findings = gates.RUNNERS[tool]()
    problems = gates.compare(tool, gates.load_baseline()[tool], findings)
    assert not problems, "\n".join(problems)


def _finding(path="losslessd/a.py", line=1, code="E501", message="Line too long (121 > 120)"):
    return Finding(path, line, code, message)


def test_a_new_finding_fails_and_is_named_with_its_file_and_line():
    findings = [_finding(line=3), _finding(line=9, message="Line too long (130 > 120)")]
    problems = gates.compare("ruff", {"losslessd/a.py E501": 1}, findings)
    assert len(problems) == 1
    assert "losslessd/a.py E501: 2 finding(s) where the baseline allows 1" in problems[0]
    assert "losslessd/a.py:9: E501 Line too long (130 > 120)" in problems[0]


def test_a_finding_in_a_new_file_or_of_a_new_code_is_new_even_when_the_total_falls():
    findings = [_finding(path="losslessd/b.py", code="F401", message="`os` imported but unused")]
    problems = gates.compare("ruff", {"losslessd/a.py E501": 5}, findings)
    assert any("losslessd/b.py:1: F401" in p for p in problems)


def test_a_fixed_finding_asks_for_the_lower_baseline():
    problems = gates.compare("mypy", {"losslessd/a.py arg-type": 2}, [_finding(code="arg-type")])
    assert problems == ["mypy: losslessd/a.py arg-type: 1 finding(s), the baseline still allows 2: "
                        f"lower the baseline with `{gates.UPDATE}` and commit it"]
    assert gates.compare("mypy", {"losslessd/a.py arg-type": 1}, [_finding(code="arg-type")]) == []


def test_the_baseline_is_written_lower_but_never_higher(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"ruff": {"a.py E501": 2, "b.py F401": 1}, "mypy": {"a.py misc": 1}}))
    # moved between files, same total: accepted
    gates.write_baseline({"ruff": {"a.py E501": 1, "c.py F401": 2}, "mypy": {}}, path)
    assert gates.load_baseline(path) == {"ruff": {"a.py E501": 1, "c.py F401": 2}, "mypy": {}}
    with pytest.raises(GateError, match=r"total would rise \(mypy 0 -> 1\)"):
        gates.write_baseline({"ruff": {}, "mypy": {"a.py misc": 1}}, path)
    assert gates.load_baseline(path)["mypy"] == {}


def test_the_committed_baseline_names_files_that_exist_and_only_the_two_tools():
    data = json.loads(gates.BASELINE.read_text())
    assert set(data) == set(gates.TOOLS)
    for tool, entries in data.items():
        for key, count in entries.items():
            path, code = key.rsplit(" ", 1)
            assert (gates.ROOT / path).is_file(), f"{tool}: {key}: no such file"
            assert isinstance(count, int) and count > 0, f"{tool}: {key}: {count!r}"


def test_the_gate_tools_are_pinned_exactly_in_the_dev_extra():
    for tool in gates.TOOLS:
        assert gates.pinned_version(tool).count(".") == 2, tool
