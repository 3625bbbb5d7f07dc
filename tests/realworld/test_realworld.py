"""Real-world fixtures and the shared corpus: exactly the findings a reader of the config expects.

See tests/realworld/README.md for the expectation format. A linter that is wrong twice for every
time it is right gets switched off: unexpected errors/warnings fail here, so do missing ones.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import pytest
import yaml

from losslessd.api import lint
from losslessd.lint.finding import Finding, Severity

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent.parent / "shared" / "corpus"
POLICIES = HERE.parent.parent / "policies"


def _cases() -> list[tuple[str, Path, Path | None]]:
    """(id, expectation file, corpus root when the input lives in the shared corpus)."""
    cases = []
    for exp in sorted(HERE.rglob("*.expect.yaml")):
        rel = exp.relative_to(HERE).as_posix()
        cases.append((rel.removesuffix(".expect.yaml"), exp, CORPUS if rel.startswith("corpus/") else None))
    return cases


CASES = _cases()


def _input(exp: Path, spec: dict, corpus: Path | None) -> Path:
    if corpus is not None:
        rel = exp.relative_to(HERE / "corpus").as_posix().removesuffix(".expect.yaml")
        return corpus / (spec.get("input") or rel)
    if spec.get("input"):
        return exp.parent / spec["input"]
    stem = exp.name.removesuffix(".expect.yaml")
    hits = [p for p in exp.parent.iterdir() if p.name != exp.name and (p.stem == stem or p.name == stem)
            and not p.name.endswith(".expect.yaml")]
    assert len(hits) == 1, f"{exp}: cannot tell which file is the fixture (found {hits}); set `input:`"
    return hits[0]


def _policy(exp: Path, name: str) -> str | Path:
    local = exp.parent / name
    return local if local.suffix in (".yaml", ".yml") and local.is_file() else name


def _matches(entry: dict, f: Finding) -> bool:
    if f.code != entry["code"]:
        return False
    if "severity" in entry and f.severity.value != entry["severity"]:
        return False
    if "device" in entry and not fnmatchcase(f.device or "", str(entry["device"])):
        return False
    if "port" in entry and not fnmatchcase(f.port or "", str(entry["port"])):
        return False
    if "line" in entry and (f.source is None or f.source.line != entry["line"]):
        return False
    return True


def _describe(f: Finding) -> str:
    where = f.source.describe() if f.source else "?"
    return f"{f.severity.value} {f.code} {f.device}:{f.port}: {f.message} [{where}]"


@pytest.mark.parametrize("case_id,exp,corpus", CASES, ids=[c[0] for c in CASES])
def test_findings_are_exactly_the_expected_ones(case_id, exp, corpus):
    if corpus is not None and not (corpus / "SOURCES.md").is_file():
        pytest.skip(f"real-world corpus not found at {corpus} (it sits beside the repository in CI)")
    spec = yaml.safe_load(exp.read_text(encoding="utf-8"))
    result = lint([_input(exp, spec, corpus)], _policy(exp, spec["policy"]), fmt=spec.get("format"))
    assert result.fabric.devices, f"{case_id}: nothing was read"
    entries = [] if spec["expect"] == "clean" else list(spec["expect"])
    relevant = [f for f in result.findings
                if f.severity != Severity.info or any(_matches(e, f) for e in entries)]
    unexpected = [_describe(f) for f in relevant if not any(_matches(e, f) for e in entries)]
    problems = []
    for e in entries:
        hits = [f for f in relevant if _matches(e, f)]
        if not hits or ("count" in e and len(hits) != e["count"]):
            problems.append(f"expected {e}, found {len(hits)}")
    assert not unexpected and not problems, "\n".join(
        [f"{case_id}: unexpected findings:", *unexpected, "missing or miscounted:", *problems])



def test_there_are_fixtures_for_every_platform():
    """At least 40 fixtures of our own across the seven switch/NIC platforms plus OpenSM."""
    own = [c for c in CASES if c[2] is None]
    platforms = {c[0].split("/", 1)[0] for c in own}
    assert len(own) >= 40, f"only {len(own)} real-world fixtures"
    assert {"sonic", "arista_eos", "cisco_nxos", "juniper_junos", "nvidia_cumulus", "linux_mlx5",
            "opensm", "dell_os10"} <= platforms, f"platforms with fixtures: {sorted(platforms)}"
