"""A text a JSON reader read whole is looked at for DEL alone among the ASCII controls (docpos.read_whole,
parse._control_characters): RFC 8259 section 7 takes no raw U+0000-U+001F in a string and section 2 no whitespace
but space, tab, line feed and carriage return between tokens, so every other ASCII control in such a text would have
refused it. Proven here on both readers (orjson, and json.loads with orjson off), and the issues both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from losslessd import docpos
from losslessd import parse as parse_mod
from losslessd.parse import parse_group
from losslessd.printable import DEVICE_CONTROL

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
# The ASCII controls the full search looks for, but DEL: each refused raw by a strict JSON reader.
REFUSED = [c for c in parse_mod._ascii_unseen() if c != "\x7f"]
SWITCH = ('{\n    "PORT": {\n        "Ethernet0": {\n            "description": "to gpu1",\n'
          '            "speed": "100000"\n        }\n    }\n}\n')


def _readers():
    yield "orjson", docpos.json_value
    yield "json", _json_only


def _json_only(text):
    saved, docpos._orjson = docpos._orjson, None
    try:
        return docpos.json_value(text)
    finally:
        docpos._orjson = saved


def _places(char: str) -> list[str]:
    """``char`` in a key, in a value, between tokens, before the document and after it."""
    return [SWITCH.replace('"description"', f'"descr{char}iption"'), SWITCH.replace("to gpu1", f"to{char}gpu1"),
            SWITCH.replace('"speed":', f'"speed":{char}'), char + SWITCH, SWITCH + char]


def test_the_list_is_every_ascii_control_but_tab_and_line_ends():
    """The 30 the full search looks for: C0 but tab, line feed and carriage return (which JSON takes as blanks,
    and a CONFIG_DB writes), and DEL."""
    assert set(parse_mod._ascii_unseen()) == {chr(c) for c in range(0x80) if DEVICE_CONTROL.match(chr(c))}
    assert set(REFUSED) == {chr(c) for c in range(0x20)} - {"\t", "\n", "\r"}


@pytest.mark.parametrize("char", REFUSED, ids=[f"0x{ord(c):02x}" for c in REFUSED])
def test_each_other_ascii_control_refuses_the_text_in_both_readers(char):
    for text in _places(char):
        for name, read in _readers():
            docpos.json_value(SWITCH)  # (another text read whole last)
            with pytest.raises(ValueError):
                read(text)
            assert not docpos.read_whole(text), (name, repr(text))


def test_del_is_read_in_a_string_and_still_named():
    text = SWITCH.replace("to gpu1", "to\x7fgpu1")
    for _name, read in _readers():
        assert read(text)["PORT"]["Ethernet0"]["description"] == "to\x7fgpu1"
        assert docpos.read_whole(text)


def test_only_that_object_is_read_whole():
    docpos.json_value(SWITCH)
    assert docpos.read_whole(SWITCH)
    same = "".join(list(SWITCH))  # (an equal text, another object)
    assert same == SWITCH and same is not SWITCH and not docpos.read_whole(same)
    docpos.json_value('{"a": 1}')
    assert not docpos.read_whole(SWITCH)
    with pytest.raises(ValueError):
        docpos.json_value("{")
    assert not docpos.read_whole("{")


def _sonic_inputs() -> list[Path]:
    found = sorted((ROOT / "examples").rglob("*.json")) + sorted((ROOT / "tests").rglob("config_db*.json"))
    found += sorted((ROOT / "tests" / "fixtures" / "raw" / "sonic").rglob("*.json"))
    if (CORPUS / "sonic").is_dir():
        found += sorted((CORPUS / "sonic").rglob("*.json"))
    return found


def _issues(path: Path, tmp_path: Path, char: str | None) -> list[tuple]:
    """parse_group's issues of ``path`` (with ``char`` in its first description, when given), as (code, line,
    message); an InputError's text for a file no device is made of."""
    if char is not None:
        text = path.read_text(encoding="utf-8")
        if '"description": "' not in text:
            return []
        target = tmp_path / path.name
        target.write_text(text.replace('"description": "', f'"description": "x{char}', 1), encoding="utf-8",
                          newline="")
        path = target
    try:
        device = parse_group(path.parent.name or "sw", [str(path)])
    except Exception as exc:  # noqa: BLE001 - compared as text both ways
        return [("error", str(exc))]
    return [(i.code, i.source.line if i.source else None, i.message) for i in device.issues]


@pytest.mark.parametrize("char", [None, "\x7f"], ids=["as-is", "DEL"])
def test_every_sonic_input_says_the_same_with_the_full_search(tmp_path, monkeypatch, char):
    """Every CONFIG_DB of examples/, tests/ and the corpus (as it is, and with DEL in a description): the same issues,
    line for line, as with the 30 searches made on every text."""
    paths = _sonic_inputs()
    assert len(paths) >= 10
    told = 0
    for path in paths:
        quick = _issues(path, tmp_path, char)
        with monkeypatch.context() as m:
            m.setattr(parse_mod, "read_whole", lambda text: False)
            full = _issues(path, tmp_path, char)
        assert quick == full, path
        told += any("a control character ('\\x7f'" in issue[-1] for issue in quick)
    if char is not None:
        assert told >= 3


class _Untouched(tuple):
    def __iter__(self):
        raise AssertionError("the 30 searches were made on a text a JSON reader read whole")


def test_a_config_db_read_whole_is_not_searched_thirty_times(tmp_path, monkeypatch):
    path = tmp_path / "config_db.json"
    path.write_text(SWITCH.replace("to gpu1", "to\x7fgpu1"), encoding="utf-8")
    monkeypatch.setattr(parse_mod, "_control_chars", _Untouched(parse_mod._ascii_unseen()))
    device = parse_group("leaf1", [str(path)])
    (issue,) = [i for i in device.issues if i.code == "SYS002"]
    assert issue.message.startswith("a control character ('\\x7f')") and issue.source.line == 4
    # ... and a text no JSON reader read is searched as before
    capture = tmp_path / "host.capture"
    capture.write_text("#% losslessd capture 1\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="30 searches"):
        parse_mod._control_characters(device, parse_mod.Input(str(capture), capture.read_text()))
