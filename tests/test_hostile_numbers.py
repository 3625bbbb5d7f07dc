"""Issue 11: numbers no switch writes (5,000 digits, beyond CPython's 4,300-digit int() limit; a superscript
or Arabic digit that `\\d` and isdigit() accept but int() or [0-9] do not; negative; huge ranges) in every
parser's real fixtures. Each input must lint to findings or an input error: never a parser or rule
crash (SYS900, exit 3) and never a traceback; and `fix` must plan from what was read without raising."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.fix import plan

RAW = Path(__file__).parent / "fixtures" / "raw"
SUBSTITUTES = {"5000-digits": "9" * 5000, "leading-zeros": "0" * 5000 + "1", "superscript": "\u00b2",
               "arabic": "\u0663", "negative": "-1", "range": "0-99999999999", "float-overflow": "9" * 400 + ".5"}
EXAMPLE = Path(__file__).parent.parent / "examples" / "fabric"
FILES = sorted(p for p in RAW.rglob("*") if p.is_file() and p.parent.parent == RAW) + sorted(
    p for p in EXAMPLE.rglob("*") if p.is_file() and p.name != "topology.yaml")


def _variants(text: str) -> list[tuple[str, str]]:
    """Every digit run replaced at once; every number that is a value, not part of a name (`=106`, ` 9100`,
    but not `linux_mlx5` or `Ethernet0`) and not in a capture header, replaced at once; and a few single runs
    replaced alone."""
    runs = list(re.finditer(r"\d+", text))
    out = [(f"all {label}", re.sub(r"\d+", sub, text)) for label, sub in SUBSTITUTES.items()]
    out += [(f"values {label}", "\n".join(line if line.startswith("#%") else  # capture headers stay readable
                                           re.sub(r"(?<![A-Za-z_\d])\d+", sub, line) for line in text.split("\n")))
            for label, sub in SUBSTITUTES.items()]
    for i in range(0, len(runs), max(1, len(runs) // 4)):
        m = runs[i]
        out += [(f"run {i} {label}", text[:m.start()] + SUBSTITUTES[label] + text[m.end():])
                for label in ("5000-digits", "arabic")]
    return out


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])  # examples: detected
def test_hostile_numbers_never_crash_a_parser_or_rule(path, tmp_path):
    text = path.read_text(encoding="utf-8")
    for label, variant in _variants(text):
        target = tmp_path / path.name
        target.write_text(variant, encoding="utf-8")
        try:
            result = lint([target], "roce-dscp26", fmt=path.parent.name if path.parent.parent == RAW else None)
        except InputError as exc:
            assert exc.file and target.name in exc.file, (label, str(exc))
            continue
        assert not result.crashed, (label, result.internal_errors)
        if label.startswith("values"):  # fix renders from the parsed numbers (speeds, MTUs, cable lengths)
            plan(result, unsafe=True)


def test_no_digit_guard_takes_other_digits():
    """str.isdigit() takes '²' (then int() raises: LOSSLESSD_JOBS=² and a host script's `exit ²` were internal
    errors, exit 3) and other scripts' digits ('٣' read as 3); units.is_digits / is_small_int are the guards."""
    package = Path(__file__).parent.parent / "losslessd"
    found = [f"{path.relative_to(package)}:{n}" for path in sorted(package.rglob("*.py")) if path.name != "units.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1)
             if re.search(r"\.is(digit|decimal|numeric)\(\)", line)]
    assert not found, found
