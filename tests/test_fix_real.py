"""`fix --unsafe-fixes` on every real input (tests/realworld fixtures, the shared corpus, examples/) under every shipped
policy and the fixture's own: a fix that says "verified" holds up to a plain `lint` of the fixed file, and no fix
brings a problem the config did not have, except the ones listed in LEFT (each says why; docs/real-configs.md
"Session 38, part e" has the reproducers). See docs/fix.md for what "introduced" means.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from losslessd import api
from losslessd.fix import SHAPES, introduced
from losslessd.parse.base import Input
from tests.realworld.test_realworld import CASES, CORPUS, _input, _policy

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.stem for p in (ROOT / "policies").glob("*.yaml"))

# (input, policy) -> the rules a fix there still brings, and why it is left.
LEFT: dict[tuple[str, str], tuple[set[str], str]] = {
    **{("arista_eos/template-indented-port-blocks", policy): (
        {"DLK003"}, "the port made lossless floods in VLAN 1 with its neighbours, which have DLK003 already: the "
                    "deadlock risk is the design's (lossless frames flooded at layer 2), no section of a fix")
       for policy in SHIPPED if policy != "roce-pcp3"},  # (under PCP trust the port floods no lossless frame)
}


def _inputs() -> list[tuple[str, Path | None, list[str | Path], str | None]]:
    """(id, input or None when the corpus is absent, policies, --format)."""
    out: list[tuple[str, Path | None, list[str | Path], str | None]] = []
    for case_id, exp, corpus in CASES:
        spec = yaml.safe_load(exp.read_text(encoding="utf-8"))
        present = corpus is None or (corpus / "SOURCES.md").is_file()
        own = _policy(exp, spec["policy"])
        out.append((case_id, _input(exp, spec, corpus) if present else None,
                    [*SHIPPED, *([own] if own not in SHIPPED else [])], spec.get("format")))
    out += [(f"examples/{name}", ROOT / "examples" / name, list(SHIPPED), None)
            for name in ("fabric", "clos", "infiniband")]
    return out


INPUTS = _inputs()


@pytest.mark.parametrize("case_id,path,policies,fmt", INPUTS, ids=[i[0] for i in INPUTS])
def test_fix_on_a_real_input_brings_nothing_new_and_verified_holds(tmp_path, case_id, path, policies, fmt):
    if path is None:
        pytest.skip(f"real-world corpus not found at {CORPUS} (it sits beside the repository in CI)")
    problems = []
    for policy in policies:
        name = policy if isinstance(policy, str) else policy.name
        for dev in api.fix([path], policy, fmt=fmt, unsafe=True).devices:
            left, _ = LEFT.get((case_id, name), (set(), ""))
            # (a problem a refused part names: the section that would clear it needs a fact the config does not give,
            # said in the fix's own output, docs/fix.md "refused on a port")
            said = {f.code for part in dev.parts if part.refused is not None for f in part.findings}
            brought = {f.code for f in dev.introduced} - left - said
            if brought:
                problems.append(f"{name} {dev.device}: brings {sorted(brought)}: "
                                f"{[f.message for f in dev.introduced if f.code in brought][:2]}")
            shape = SHAPES.get(dev.platform or "")
            if not (dev.verified and dev.diff and shape is not None and len(dev.files) == 1):
                continue
            # "verified": a plain lint of the fixed file (every rule, as `lint` runs them) shows no new problem the
            # fix did not list
            src = Path(dev.files[0])
            current = shape.normalize(src.read_text(encoding="utf-8"))
            fixed = current
            for part in dev.parts:
                if part.snippet is not None:
                    fixed = shape.apply(fixed, part.snippet)
            a, b = (tmp_path / name / dev.device / side / src.name for side in ("a", "b"))
            for where, text in ((a, current), (b, fixed)):
                where.parent.mkdir(parents=True)
                where.write_text(text, encoding="utf-8")
            new = introduced(api.lint([a], policy, fmt=fmt).findings, api.lint([b], policy, fmt=fmt).findings,
                             [Input(str(a), current)], [Input(str(b), fixed)])
            listed = Counter((f.code, f.port) for f in dev.introduced)
            unlisted = [f"{f.code} {f.port}: {f.message}" for f in new if not listed[(f.code, f.port)]]
            if unlisted:
                problems.append(f"{name} {dev.device}: said verified, a plain lint of the fixed file shows "
                                f"{unlisted[:3]}")
    assert problems == [], f"{case_id}:\n" + "\n".join(problems)


def test_every_left_case_still_brings_what_it_says():
    """An entry of LEFT that no longer brings its problems is stale: the list is what is left, nothing more."""
    by_id = {i[0]: i for i in INPUTS}
    stale = []
    for (case_id, policy), (codes, _) in LEFT.items():
        _, path, _, fmt = by_id[case_id]
        brought = {f.code for d in api.fix([path], policy, fmt=fmt, unsafe=True).devices for f in d.introduced}
        if not codes <= brought:
            stale.append(f"{case_id} {policy}: brings {sorted(brought)}, LEFT says {sorted(codes)}")
    assert stale == []
