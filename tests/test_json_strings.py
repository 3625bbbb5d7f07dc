"""A CONFIG_DB of tables of strings proved free of repeated keys by one quote count, and of orjson's digit-run question
by its shape (docs/lint-at-scale.md, "Session 45, part d").

docpos._strings counts the strings (keys and values) of a value that is an object of objects of objects of strings,
read in C; json_value keeps that count beside the text it read whole (docpos.strings_read). Such a value holds no
number, so the digit-run check is not made; and configdb._load takes a text whose `"` are twice
that count as writing no key twice, instead of the `":` count, the `" :` search and the keys' walk. Each answer is
held here to the reading before (the old gate forced: strings_read answering None) on every SONiC JSON the repository
and the corpus hold, on hand-written repeats in every form at every level, and on generated documents."""

from __future__ import annotations

import gc
import json
import random
from pathlib import Path

import orjson
import pytest

from losslessd import docpos
from losslessd.errors import InputError
from losslessd.parse.base import Input
from losslessd.parse.sonic import configdb
from tests.conftest import CORPUS, ROOT


def _sonic_inputs() -> list[Path]:
    found = sorted((ROOT / "examples").rglob("*.json")) + sorted((ROOT / "tests").rglob("config_db*.json"))
    found += sorted((ROOT / "tests" / "fixtures").rglob("*.json"))
    if (CORPUS / "sonic").is_dir():
        found += sorted((CORPUS / "sonic").rglob("*.json"))
    return sorted(set(found))


def _load(text: str, old: bool, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """configdb._load of ``text`` (old: with the quote count never taken), as what a report can show: the tables, the
    repeats, or the error."""
    with monkeypatch.context() as m:
        if old:
            m.setattr(configdb, "strings_read", lambda text: None)
        try:
            data, repeated = configdb._load(configdb.Doc(Input("sw/config_db.json", text)))
        except InputError as exc:
            return ("error", str(exc), exc.line)
    return (json.dumps(data), [(parts, json.dumps(values)) for parts, values in repeated])


def _strings_walked(value) -> int | None:
    """_strings written as a walk in Python (the oracle)."""
    if type(value) is not dict:
        return None
    count = len(value)
    for table in value.values():
        if type(table) is not dict:
            return None
        count += len(table)
        for entry in table.values():
            if type(entry) is not dict or any(type(v) is not str for v in entry.values()):
                return None
            count += 2 * len(entry)
    return count


def test_a_dicts_traversal_visits_every_value():
    """_strings takes the values of the entries from gc.get_referents: a dict's traversal must visit each value (and
    may visit its keys, all strings here), whichever table orjson or json made it with."""
    for size in (0, 1, 5, 8, 9, 64, 200):
        pairs = {f"k{i}": v for i, v in enumerate(([7, 2.5, None, True, "x", [1], {"a": 1}] * 40)[:size])}
        for made in (orjson.loads(json.dumps(pairs)), json.loads(json.dumps(pairs)), dict(pairs)):
            seen = gc.get_referents(made)
            assert all(any(v is s for s in seen) for v in made.values()), size
            assert all(type(s) is str for s in seen if not any(s is v for v in made.values())), size


CASES = [
    "{}", '{"PORT": {}}', '{"PORT": {"Ethernet0": {}}}', '{"PORT": {"Ethernet0": {"speed": "100000"}}}',
    '{"PORT": {"Ethernet0": {"speed": 100000}}}', '{"PORT": {"Ethernet0": {"speed": "1", "x": ["1"]}}}',
    '{"PORT": {"Ethernet0": {"speed": "1", "x": {"a": "b"}}}}', '{"PORT": {"Ethernet0": "x"}}',
    '{"PORT": {"Ethernet0": ""}}', '{"PORT": {"Ethernet0": []}}', '{"PORT": {"Ethernet0": ["a", "b"]}}',
    '{"PORT": "x"}', '{"PORT": ["a"]}', '["PORT"]', '"PORT"', '{"PORT": {"Ethernet0": {"a": null}}}',
    '{"PORT": {"Ethernet0": {"a": true}}}', '{"localhost": {"PORT": {"Ethernet0": {"speed": "1"}}}}',
    '{"PORT": {"Ethernet0": {' + ", ".join(f'"f{i}": "{i}"' for i in range(100)) + "}}}",
    '{"PORT": {"Ethernet0": {' + ", ".join(f'"f{i}": "{i}"' for i in range(99)) + ', "n": 1}}}',
    '{"PORT": {"Ethernet0": {' + ", ".join(f'"f{i}": "{i}"' for i in range(99)) + ', "n": [1]}}}',
]


@pytest.mark.parametrize("text", CASES)
def test_strings_counts_what_a_walk_counts(text):
    value = json.loads(text)
    assert docpos._strings(value) == _strings_walked(value)
    assert docpos._strings(orjson.loads(text)) == _strings_walked(value)


def test_the_count_is_kept_for_the_text_read_whole_alone():
    text = '{"PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100"}}}'
    assert docpos.json_value(text) == json.loads(text)
    assert docpos.strings_read(text) == 6
    assert docpos.strings_read(text[:-1] + "}") is None  # (an equal text is not the one read)
    docpos.json_value('{"PORT": {"Ethernet0": {"speed": 100000}}}')
    assert docpos.strings_read(text) is None
    with pytest.raises(ValueError):
        docpos.json_value('{"PORT": 1')
    assert docpos.strings_read('{"PORT": 1') is None


def test_digit_runs_inside_strings_read_the_same_without_the_check(monkeypatch):
    """Tables of strings holding runs of 19 and more digits (which sent the text to json.loads) are orjson's to read:
    the same value; a number of as many digits still sends it to json.loads."""
    for digits in (18, 19, 40):
        text = '{"PORT": {"Ethernet0": {"description": "' + "9" * digits + '", "mtu": "9100"}}}'
        assert docpos._orjson_read(text)[0] == json.loads(text)
        number = '{"PORT": {"Ethernet0": {"description": "x", "mtu": ' + "9" * digits + "}}}"
        assert (docpos._orjson_read(number)[0] is docpos._JSON) == (digits >= 19)
        assert docpos.json_value(number) == json.loads(number)


def test_a_config_db_of_strings_takes_neither_the_digit_runs_nor_the_keys_walk(monkeypatch):
    """The bench switch (tables of strings, no backslash, no key twice): neither the digit-run check (its stride
    made unusable) nor the keys' walk runs; a text holding a number still takes both."""
    from bench.lint_scale import switch_config

    text = switch_config(3)

    def refuse(*_):
        raise AssertionError("walked")

    monkeypatch.setattr(docpos, "_STEP", "no stride")
    monkeypatch.setattr(configdb, "_keys", refuse)
    data, repeated = configdb._load(configdb.Doc(Input("sw/config_db.json", text)))
    assert repeated == [] and data == json.loads(text)
    with pytest.raises((AssertionError, TypeError)):
        configdb._load(configdb.Doc(Input("sw/config_db.json", text.replace('"9100"', "9100", 1))))


def test_every_sonic_json_loads_as_before(monkeypatch):
    paths = _sonic_inputs()
    assert len(paths) > 20
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert _load(text, False, monkeypatch) == _load(text, True, monkeypatch), path


_REPEAT_FORMS = ['"{k}":', '"{k}" :', '"{k}"\t:', '"{k}"\n:', '"{k}"  :', '"{k}"\n    :']


def _repeated_at(level: int, form: str, value: str, forms_elsewhere: str) -> str:
    """A small CONFIG_DB whose key at ``level`` (0 table, 1 entry, 2 field) is written twice, the second time in
    ``form``, and another key written in ``forms_elsewhere``."""
    other = forms_elsewhere.format(k="admin_status")
    if level == 2:
        body = '{"PORT": {"Ethernet0": {"mtu": "9100", ' + other + ' "up", ' + form.format(k="mtu") + f" {value}}}}}"
    elif level == 1:
        body = ('{"PORT": {"Ethernet0": {"mtu": "9100", ' + other + ' "up"}, ' + form.format(k="Ethernet0")
                + f' {{"mtu": {value}}}}}}}')
    else:
        body = ('{"PORT": {"Ethernet0": {"mtu": "9100", ' + other + ' "up"}}, ' + form.format(k="PORT")
                + f' {{"Ethernet4": {{"mtu": {value}}}}}}}')
    return body


@pytest.mark.parametrize("level", [0, 1, 2])
@pytest.mark.parametrize("form", _REPEAT_FORMS)
def test_keys_written_twice_in_every_form_load_as_before(level, form, monkeypatch):
    """A key repeated in each form, beside another key written in each form (the forms the `":` count misses could
    balance it there), its value a string, a number, a big number or an object: the same tables and repeats."""
    for value in ('"9000"', "9000", "9" * 25, '"x\\"y"', "[1]"):
        for elsewhere in _REPEAT_FORMS:
            text = _repeated_at(level, form, value, elsewhere)
            assert _load(text, False, monkeypatch) == _load(text, True, monkeypatch), (text,)


def test_generated_documents_load_as_before(monkeypatch):
    """600 small CONFIG_DBs drawn from strings, numbers, lists, objects, backslashes, repeated keys and blanks in
    every place a key's colon can have them."""
    rng = random.Random(45)
    names, blanks = ["PORT", "QUEUE", "a", "b", "c\\\"d", "e"], ["", " ", "\t", "\n", "  "]

    def scalar() -> str:
        return rng.choice(['"v"', '"9"', '""', "1", "9" * 20, "2.5", "true", "null", '"a\\\\b"', "[]", '["x"]'])

    def obj(depth: int) -> str:
        members = []
        for _ in range(rng.randint(0, 4)):
            key = rng.choice(names)
            value = obj(depth + 1) if depth < 3 and rng.random() < 0.7 else scalar()
            members.append(f'"{key}"{rng.choice(blanks)}:{rng.choice(blanks)}{value}')
        return "{" + ", ".join(members) + "}"

    for _ in range(600):
        text = obj(0)
        assert _load(text, False, monkeypatch) == _load(text, True, monkeypatch), text
