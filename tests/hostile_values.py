"""Semantic hostile values: every platform's fixture with its values swapped, one place at a time, for values
that parse as text, JSON or YAML but cannot be right (priority 99, DSCP 64, a range "5-3", "1e3" where a plain
number belongs, NaN, an empty string, a 10,000-character or bidi-overridden port name ...), run through the real
CLI entry (tests/hostile.py's harness). tests/test_hostile_values.py asserts on the outcomes; this module makes
the variants and can print a sweep for a person to read:

    python -m tests.hostile_values [--only FIXTURE-SUBSTRING] [--silent]

Places: in a device file, every number that is a value (not part of a name such as Ethernet0) of each line
shape (the line with its digits written #: the 64 entries of a DSCP map are one shape, read once); in a name
sweep, the device's host name and one port name everywhere they occur.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.hostile import Case, Outcome, run_case

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "tests" / "fixtures" / "raw"
FABRIC = ROOT / "examples" / "fabric"

# Values no number field of a switch or NIC setting can hold (each is "reported", never read as a plausible
# number): negative, beyond 64 bits, written as a float, exponent, hex, with a unit or a thousands separator,
# NaN/Infinity, a boolean, empty or blank, and the broken ranges and lists.
INVALID = {
    "negative": "-1", "2**63": str(2**63), "exponent": "1e3", "hex": "0x10", "thousands": "1,000",
    "nan": "NaN", "infinity": "Infinity", "true": "true", "empty": "", "blank": "   ",
    "reversed-range": "5-3", "open-range": "3-", "dash": "-", "empty-item": "3,,4",
    "other-digits": "\u0663",  # ARABIC-INDIC DIGIT THREE: int() reads it as 3, no config writes it
}
# Values that are numbers but out of range for some fields (a priority, TC, queue, PG or DSCP), and the odd
# but readable: each must still end in a documented exit, without a traceback.
ODD = {"eight": "8", "fifteen": "15", "ninety-nine": "99", "dscp-64": "64", "zero": "0", "minus-zero": "-0",
       "float": "3.5", "unit": "100G", "duplicate": "3,3"}
# Names that must come out of every report unable to drive a terminal.
NAMES = {
    "ansi": "sw\x1b[31mRED\x1b]0;title\x07",
    "bidi": "sw\u202eevil\u202c\u2066x\u2069",
    "control": "sw\x01\x7f\x9b",
    "long": "n" * 10_000,
    "number": "42",
    "line-separator": "sw\u2028forged",
}
# What may never reach a terminal raw: C0 (but tab/newline), DEL, C1, Unicode line breaks, bidi embeddings,
# overrides and isolates (Unicode TR9: U+202A-202E, U+2066-2069) and the bidi marks.
TERMINAL_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


@dataclass(frozen=True)
class Fixture:
    label: str
    path: Path  # a file, or a folder that is one device (SONiC qos.json + buffers.json, OpenSM)
    fmt: str | None  # --format, for the raw fixtures whose folder names the platform


def fixtures() -> list[Fixture]:
    out = []
    for platform in sorted(p for p in RAW.iterdir() if p.is_dir()):
        for path in sorted(platform.iterdir()):
            out.append(Fixture(f"{platform.name}/{path.name}", path, platform.name))
    for path in sorted(FABRIC.iterdir()):
        if path.name in ("topology.yaml", "routes"):
            continue
        out.append(Fixture(f"fabric/{path.name}", path, None))
    return out


def files_of(fixture: Fixture) -> list[Path]:
    if fixture.path.is_file():
        return [fixture.path]
    return sorted(p for p in fixture.path.rglob("*") if p.is_file())


_NUMBER = re.compile(r"(?<![A-Za-z_\d./:-])\d+(?:\.\d+)?(?![\d])")


def places(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, shape) of each number that is a value, the first of each line shape and position."""
    seen: set[tuple[str, int]] = set()
    offset = 0
    for line in text.split("\n"):
        if not line.lstrip().startswith(("#", "!")):  # capture headers stay readable; comments are read by no one
            shape = re.sub(r"\d+", "#", line.strip())
            for n, m in enumerate(_NUMBER.finditer(line)):
                if (shape, n) not in seen:
                    seen.add((shape, n))
                    yield offset + m.start(), offset + m.end(), f"{shape[:60]}@{n}"
        offset += len(line) + 1


def substitute(path: Path, text: str, start: int, end: int, value: str) -> str:
    """``text`` with [start:end] made ``value``, written as the file's syntax needs (in a JSON string escaped;
    in a JSON number place or YAML, quoted when it is not a plain token)."""
    if path.suffix == ".json":
        quoted = text[start - 1:start] == '"' and text[end:end + 1] == '"'
        if quoted:
            return text[:start] + json.dumps(value)[1:-1] + text[end:]
        return text[:start] + json.dumps(value) + text[end:]
    if path.suffix in (".yaml", ".yml") and not re.fullmatch(r"[-\w.]+", value):
        return text[:start] + json.dumps(value) + text[end:]
    return text[:start] + value + text[end:]


@dataclass
class Variant:
    fixture: Fixture
    file: Path  # the file changed (in the fixture)
    where: str  # line:shape of the place
    label: str  # value class
    value: str
    text: str


def value_variants(fixture: Fixture, classes: dict[str, str], rotate: bool = False) -> Iterator[Variant]:
    """Every place of the fixture with every value of ``classes``; with ``rotate``, each place with one value, the
    next place with the next (every class still reaches every file, in a fraction of the runs)."""
    turn = 0
    items = list(classes.items())
    for file in files_of(fixture):
        text = file.read_text(encoding="utf-8")
        for start, end, shape in places(text):
            line = text.count("\n", 0, start) + 1
            chosen = [items[turn % len(items)]] if rotate else items
            turn += 1
            for label, value in chosen:
                yield Variant(fixture, file, f"{line}:{shape}", label, value,
                              substitute(file, text, start, end, value))


_HOST = re.compile(r"(?:hostname|host-name|device):?\s+\"?([\w.-]+)")
_PORT = re.compile(r"\b(?:Ethernet\d+(?:/\d+)*|swp\d+|et-\d+/\d+/\d+|enp\w+|Et\d+(?:/\d+)?|"
                   r"ethernet\d+/\d+/\d+(?::\d+)?)\b")


def name_variants(fixture: Fixture, names: dict[str, str]) -> Iterator[Variant]:
    """The device's host name, then its first port name, made each of ``names`` everywhere they occur."""
    for file in files_of(fixture):
        text = file.read_text(encoding="utf-8")
        for kind, pattern in (("host", _HOST), ("port", _PORT)):
            m = pattern.search(text)
            if not m:
                continue
            old = m.group(1) if m.groups() else m.group()
            token = re.compile(rf"(?<![\w.-]){re.escape(old)}(?![\w-])")
            for label, value in names.items():
                written = json.dumps(value)[1:-1] if file.suffix == ".json" else value
                if file.suffix in (".yaml", ".yml") and not re.fullmatch(r"[-\w.]+", value):
                    written = json.dumps(value)
                yield Variant(fixture, file, f"{kind} {old}", label, value,
                              token.sub(lambda _, written=written: written, text))


def build(variant: Variant, tmp: Path, fmt: str = "json") -> list[str]:
    """The fixture copied under ``tmp`` with the variant's file changed; the lint arguments."""
    fixture = variant.fixture
    target = tmp / "in" / fixture.path.name
    if fixture.path.is_dir():
        shutil.copytree(fixture.path, target)
        changed = target / variant.file.relative_to(fixture.path)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        changed = target
    changed.write_text(variant.text, encoding="utf-8")
    args = ["lint", str(target), "-f", fmt]
    return args + (["--format", fixture.fmt] if fixture.fmt else [])


@dataclass
class Result:
    variant: Variant
    outcome: Outcome
    codes: list[str]  # finding codes
    sys_codes: list[str]  # SYS findings naming the changed file
    unsafe: list[str]  # terminal-unsafe characters the output holds


def findings(outcome: Outcome) -> list[dict]:
    try:
        start = outcome.output.index("{")
        return json.JSONDecoder().raw_decode(outcome.output[start:])[0].get("findings", [])
    except (ValueError, AttributeError):
        return []


def run_variant(variant: Variant, tmp: Path, fmt: str = "json", exits: tuple[int, ...] = (0, 1, 2)) -> Result:
    name = f"v{next(_counter)}"
    outcome = run_case(Case(name, lambda t: build(variant, t, fmt), exits=exits), tmp)
    found = findings(outcome) if fmt == "json" else []
    sys_codes = [f["code"] for f in found if f["code"] in ("SYS001", "SYS002", "SYS003")]
    return Result(variant, outcome, [f["code"] for f in found], sys_codes,
                  sorted(set(TERMINAL_UNSAFE.findall(outcome.output))))


def _count() -> Iterator[int]:
    n = 0
    while True:
        n += 1
        yield n


_counter = _count()


def reported(result: Result) -> bool:
    """The value was refused aloud: a SYS001/2/3 finding, or an input error (exit 2) naming the file."""
    o = result.outcome
    return bool(result.sys_codes) or (o.exit == 2 and result.variant.fixture.path.name in o.output)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="fixtures whose label holds this")
    ap.add_argument("--silent", action="store_true", help="list the invalid values nothing reported")
    ap.add_argument("--odd", action="store_true", help="also the out-of-range and odd values")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="losslessd-values-"))
    classes = {**INVALID, **(ODD if args.odd else {})}
    bad = silent = total = 0
    try:
        for fixture in fixtures():
            if args.only and args.only not in fixture.label:
                continue
            for variant in value_variants(fixture, classes):
                total += 1
                r = run_variant(variant, tmp)
                where = f"{fixture.label}:{variant.where} {variant.label}={variant.value!r}"
                if not r.outcome.ok or r.unsafe:
                    bad += 1
                    print(f"FAIL {where}: exit {r.outcome.exit} {r.outcome.problems} {r.unsafe}\n"
                          f"{r.outcome.output[-1500:]}")
                elif args.silent and variant.label in INVALID and not reported(r):
                    silent += 1
                    print(f"SILENT {where}")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{total} variants: {bad} failed, {silent} invalid values not reported", file=sys.stderr)


if __name__ == "__main__":
    main()
