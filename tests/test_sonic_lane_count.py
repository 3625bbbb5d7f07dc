"""PORT lanes counted in C passes where the text is digits and single commas (sonic._lane_count): the same count, and
the same refusal, as reading it item by item (the reading before, kept here), on every lanes value of the repository's
and the corpus's SONiC inputs and on generated texts of the characters that could tell the two apart."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from losslessd.parse.sonic import _lane_count
from losslessd.units import is_digits
from tests.conftest import ROOT


def _item_by_item(text: str) -> int:
    """The reading before the C passes (session 37's _lane_count)."""
    lanes = [part.strip() for part in text.split(",")]
    if not all(is_digits(part) for part in lanes):
        raise ValueError(text)
    return len(lanes)


def _outcome(read, text: str) -> tuple:
    try:
        return ("count", read(text))
    except ValueError as exc:
        return ("refused", type(exc), exc.args)


def _lanes_values(folder: Path) -> list[str]:
    """Every PORT lanes text of the JSON files under ``folder``: a CONFIG_DB's nested tables (or a namespace's within
    one), and a redis dump's `PORT|<name>` keys (their fields, or their `value`)."""
    out: list[str] = []

    def take(rows: object) -> None:
        for row in rows if isinstance(rows, list) else [rows]:
            if isinstance(row, dict):
                row = row.get("value", row) if isinstance(row.get("value"), dict) else row
                if isinstance(row.get("lanes"), str):
                    out.append(row["lanes"])

    def walk(doc: object) -> None:
        if isinstance(doc, dict):
            port = doc.get("PORT")
            if isinstance(port, dict):
                take(list(port.values()))
            take([value for key, value in doc.items() if isinstance(key, str) and key.startswith("PORT|")])
            for value in doc.values():
                if isinstance(value, dict):
                    walk(value)

    for path in sorted(folder.rglob("*.json")):
        try:
            walk(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError):
            continue  # (the hostile fixtures: not JSON, or not UTF-8)
    return out


# Digits, commas and what sits beside them in a hostile or odd lanes text: blanks C and Python strip alike or not
# (a no-break space, an ideographic space, a newline), digits int() reads but is_digits refuses (superscript two,
# Arabic-Indic three, full-width five), signs, ranges, letters.
_ALPHABET = "0123456789" + ",,,," + " \t\n\u00a0\u3000" + "\u00b2\u0663\uff15" + "+-x"


def _generated(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        if rng.random() < 0.5:  # mostly lanes, one character changed or added
            items = [str(rng.randrange(512)) for _ in range(rng.choice((1, 2, 4, 8)))]
            text = ",".join(items)
            if rng.random() < 0.7:
                at = rng.randrange(len(text) + 1)
                text = text[:at] + rng.choice(_ALPHABET) + text[at + rng.randrange(2):]
        else:
            text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(1, 12)))
        texts.append(text)
    return texts


_EDGES = ["0", "0,1,2,3", "248,249,250,251,252,253,254,255", "", ",", ",,", "0,", ",0", "0,,1", " 0,1", "0 ,1",
          "0, 1", "0,1\n", "\u00b2", "0,\u0663", "\uff15,1", "+1,2", "1-4", "00,01", "0\u00a0,1"]


def test_the_lanes_of_every_input_count_as_read_item_by_item():
    values = _lanes_values(ROOT / "examples") + _lanes_values(ROOT / "tests")
    assert len(values) > 50  # (the examples' and fixtures' switches)
    for text in values:
        assert _outcome(_lane_count, text) == _outcome(_item_by_item, text), text


def test_the_corpus_lanes_count_as_read_item_by_item(corpus):
    values = _lanes_values(corpus)
    assert values, "no PORT lanes in the corpus's SONiC files"
    for text in values:
        assert _outcome(_lane_count, text) == _outcome(_item_by_item, text), text


@pytest.mark.parametrize("text", _EDGES)
def test_an_edge_counts_or_is_refused_as_before(text):
    assert _outcome(_lane_count, text) == _outcome(_item_by_item, text)


def test_generated_lanes_count_or_are_refused_as_before():
    texts = _generated(38, 30_000)
    counted = 0
    for text in texts:
        got = _outcome(_lane_count, text)
        assert got == _outcome(_item_by_item, text), repr(text)
        counted += got[0] == "count"
    assert 0.2 < counted / len(texts) < 0.8  # (both ways taken often: lanes read and lanes refused)
