"""A bench switch's parse made cheaper without a change to what it builds (docs/lint-at-scale.md, "Session 39, part b").

The rest of a SONiC QUEUE, BUFFER_PG or BUFFER_QUEUE table is taken at once (parse/sonic _Builder._rest_repeats)
only where each later port's name is one port as it is (_one_port) and holds no blank: its names are now checked by
splitting their joined text (passes in C) instead of a regular expression tried at each character. What a switch
builds must not change: the check is compared both ways with the expression it replaced (kept here), and every SONiC
input of the repository and the corpus builds the same device with the rest of each table taken at once as with every
row read one by one.

A PORT port's lanes are counted where they read (_lane_count) without value()'s call and memo, which never found a
port's own lanes: the count and every issue are compared with value()'s reading on every SONiC input and hostile
lanes values."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import losslessd.parse.sonic as sonic
from losslessd.parse import parse_group, read_input
from losslessd.parse.base import Input
from losslessd.parse.sonic import _one_port
from losslessd.parse.sonic.configdb import ConfigDB
from tests.conftest import CORPUS, ROOT

# The check before (session 38): a name that is no port as it is, in the names joined by newlines.
_OLD_NOT_ONE_PORT = re.compile(r"[,|]|^\s|\s$|\n\s|\s\n")


def _old_takes(names: list[str]) -> bool:
    joined = "\n".join(names)
    return not (joined.count("\n") != len(names) - 1 or not all(names) or _OLD_NOT_ONE_PORT.search(joined))


def _new_takes(names: list[str]) -> bool:
    """The names part of _rest_repeats's test, as the builder runs it (a table of these names, alike otherwise)."""
    suffixes = ("|0", "|1")
    keys = [name + suffix for name in names for suffix in suffixes]
    rows = [{"scheduler": "S"}] * len(keys)
    builder = sonic._Builder.__new__(sonic._Builder)
    builder.ports, builder._named = {name: {"_events": [], "_entries": []} for name in names}, 0
    return builder._rest_repeats(keys, rows, 0, (suffixes, rows[:2], [], 2), lambda key: None)


# Characters that could tell the two apart: blanks C's split and the expression's \s take alike (and a no-break space,
# an ideographic space, a line separator, the file separator str.isspace counts), the separators, a newline.
_ALPHABET = "Et0" + " \t\n\r\x0b\x0c\x1c\u00a0\u2028\u3000" + ",|"


def _generated(seed: int, count: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        names = [f"Ethernet{4 * i}" for i in range(rng.randrange(1, 6))]
        for _ in range(rng.randrange(3)):
            at = rng.randrange(len(names))
            name = names[at]
            spot = rng.choice((0, len(name), rng.randrange(len(name) + 1)))
            names[at] = name[:spot] + "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(2))) + name[spot:]
        out.append(names)
    return out


EDGES = [["Ethernet0"], [""], ["Ethernet0", ""], ["Ethernet 0"], [" Ethernet0"], ["Ethernet0 "], ["Ethernet0\u00a0"],
         ["Ethernet0\u2028"], ["Ethernet0\x1c"], ["Ethernet0\n"], ["Ether\nnet0"], ["Ethernet0,Ethernet4"],
         ["Ethernet0|x"], ["Ethernet0", "Ethernet4", "Ethernet 8"], ["\t"], ["Ethernet0\r"]]


def test_the_names_check_takes_what_the_expression_took_without_a_blank():
    """Both ways, on the edges and 3,000 generated name lists: where the check takes a table's names, the expression
    took them and every name is one port; where the expression took them, the check takes them unless a name holds
    a blank inside (then read run by run: the same device, below)."""
    outcomes = set()
    for names in EDGES + _generated(39, 3000):
        new, old = _new_takes(names), _old_takes(names)
        if new:
            assert old and all(_one_port(name) for name in names), names
        elif old:
            assert any(char.isspace() for name in names for char in name), names
        outcomes.add((new, old))
    assert outcomes == {(True, True), (False, True), (False, False)}


def _sonic_inputs() -> list[Path]:
    """Every JSON file of examples/ and tests/ that reads as a SONiC CONFIG_DB, and the corpus's when present."""
    roots = [ROOT / "examples", ROOT / "tests"] + ([CORPUS / "sonic"] if (CORPUS / "SOURCES.md").is_file() else [])
    return sorted(p for root in roots for p in root.rglob("*.json") if "golden" not in p.parts)


def _every_row_read(monkeypatch) -> None:
    """The reading the shortcuts must equal: every QUEUE, BUFFER_PG and BUFFER_QUEUE row read one by one."""
    monkeypatch.setattr(sonic, "_RUN_MIN", 10**9)
    monkeypatch.setattr(sonic._Builder, "_rest_repeats", lambda *args: False)


def _built(path: Path) -> object:
    try:
        device = parse_group(path.stem, [path], "sonic")
    except Exception as exc:  # noqa: BLE001 - a refusal is an outcome to compare too
        return ("refused", type(exc).__name__, str(exc))
    return device.model_dump(mode="json")


def test_every_sonic_input_builds_what_reading_every_row_builds(monkeypatch):
    inputs = _sonic_inputs()
    taken = {path: _built(path) for path in inputs}
    _every_row_read(monkeypatch)
    read = {path: _built(path) for path in inputs}
    assert [p for p in inputs if read[p] != taken[p]] == []
    built = [p for p in inputs if isinstance(taken[p], dict) and taken[p]["ports"]]
    assert len(built) >= 20, built  # (the repository's SONiC examples and fixtures, at least)


def test_the_corpus_sonic_inputs_are_compared(corpus):
    assert [p for p in _sonic_inputs() if p.is_relative_to(corpus)]


@pytest.mark.parametrize("name", ["Ethernet 8", "Ethernet8\u00a0", "\u3000Ethernet8", "Ether\u2028net8"])
def test_a_port_name_with_a_blank_builds_what_reading_every_row_builds(name, monkeypatch):
    """A later port written with a blank inside or at an end (no-break, ideographic, a line separator) in every table
    that names it: the rest of its tables is not taken at once, and the device is what reading every row builds."""
    from tests.test_sonic_port_runs import _seen, _tables

    text = _seen(_tables())[1].replace('"Ethernet8', '"' + name.replace("\u00a0", "\\u00a0").replace(
        "\u3000", "\\u3000").replace("\u2028", "\\u2028"))
    tables = json.loads(text)
    assert name in tables["PORT"] and f"{name}|3" in tables["QUEUE"]
    taken = _seen(tables)[0]
    # (its keys name the PORT key of their spelling, blanks at an end too: swss-common tokenize trims nothing; its
    # queues are read run by run)
    assert len(taken["ports"][name]["queues"]) == 8
    _every_row_read(monkeypatch)
    assert _seen(tables)[0] == taken


# PORT lanes a bench or real switch writes, and what value() said of each before the count was taken inline.
HOSTILE_LANES = ["0,1,2,3", "0", "", ",", "0,,1", ",0", "0,", " 0,1", "0,1 ", "0, 1", "\u0661,\u0662", "0\u00b2",
                 "+1", "1-4", "x", 4, 4.0, True, None, ["0", "1"], {"a": 1}]


def _lanes_input(lanes: list) -> Input:
    return Input("config_db.json", json.dumps({
        "DEVICE_METADATA": {"localhost": {"hostname": "leaf"}},
        "PORT": {f"Ethernet{4 * i}": {"lanes": value, "speed": "100000"} for i, value in enumerate(lanes)}},
        indent=2))


def _lanes_read_by_value(inp: Input) -> tuple[dict, list]:
    """Each PORT port's lanes as value() reads them (the reading before), and what it said (message, line)."""
    db = ConfigDB([inp])
    builder = sonic._Builder.__new__(sonic._Builder)
    builder.db, builder._converted = db, {}
    before = len(db.issues)  # (what reading the file said: not the lanes')
    lanes = {name: builder.value(e, "lanes", sonic._lane_count, sonic._LANES) for name, e in db.table("PORT").items()}
    return lanes, [(i.message, i.source.line) for i in db.issues[before:]]


def _lanes_inputs() -> list[Input]:
    out = [_lanes_input(HOSTILE_LANES)]
    for path in _sonic_inputs():
        try:
            inp = read_input(path)
            if "PORT" in ConfigDB([inp]).tables:
                out.append(inp)
        except Exception:  # noqa: BLE001,S112 - not a CONFIG_DB this reader takes whole (namespaced, refused, ...)
            continue
    return out


def test_port_lanes_read_as_value_read_them():
    """Both ways, on every SONiC input's PORT table and the hostile lanes above: each port's lane count, and each
    issue said of a lanes field (its message and line), are what value() gave and said."""
    inputs = _lanes_inputs()
    assert len(inputs) >= 20
    for inp in inputs:
        lanes, said = _lanes_read_by_value(inp)
        device = sonic.parse([inp], "leaf")
        assert {name: device.ports[name].lanes for name in lanes} == lanes, inp.path
        assert [(i.message, i.source.line) for i in device.issues if " lanes " in i.message] == said, inp.path
    lanes, said = _lanes_read_by_value(inputs[0])  # (the hostile values: most are refused, each with its line)
    assert len(said) == 15 and lanes["Ethernet0"] == 4 and lanes["Ethernet80"] is None
