"""docpos.json_value reads with orjson where it gives what json.loads gives, and is json.loads everywhere else.

Each test reads the same text both ways in one process: json_value as it is, and json_value with orjson switched off
(docpos._orjson None: json.loads alone, the reading before orjson). Values are compared strictly (type, dict key
order, float bits, -0.0), errors by type and message (which carry the line and column)."""

from __future__ import annotations

import json
import math
import struct
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import docpos
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.report import render

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path("/work/shared/corpus")

pytestmark = pytest.mark.skipif(docpos._orjson is None, reason="orjson is not installed: json_value is json.loads")


def strict(value) -> list:
    """``value`` as tokens that compare types, key order and float bits (nan == nan, -0.0 != 0.0); a loop, not
    recursion, for the deepest values json.loads reads."""
    out: list = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            out.append(("dict", list(item)))
            todo.extend(reversed(item.values()))
        elif isinstance(item, list):
            out.append(("list", len(item)))
            todo.extend(reversed(item))
        elif isinstance(item, float):
            out.append(("float", struct.pack("<d", item)))
        else:
            out.append((type(item).__name__, item))
    return out


def json_only(fn, *args):
    saved, docpos._orjson = docpos._orjson, None
    try:
        return fn(*args)
    finally:
        docpos._orjson = saved


def outcome(fn, *args):
    try:
        return ("value", strict(fn(*args)))
    except (ValueError, InputError) as exc:  # (a RecursionError would fail the test: json_value never raises one)
        return ("error", type(exc).__name__, str(exc))


def both(text):
    return outcome(docpos.json_value, text), outcome(json_only, docpos.json_value, text)


# Number tokens where decoders differ: rounding at the halfway points, subnormals, overflow to inf, 17+ digit
# mantissas, -0, integers either side of 64 bits (orjson reads those beyond as floats), huge exponents.
EDGE_NUMBERS = ["0.1", "1e-400", "-1e-400", "2.2250738585072011e-308", "2.2250738585072012e-308", "4.9e-324",
                "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
                "1.7976931348623158e308", "1.7976931348623159e308", "1e400", "-1e400", "-0", "-0.0", "-0e0", "0E-0",
                "1E+2", "9007199254740993", "9007199254740993.0", "0.30000000000000004441",
                "1.00000000000000011102230246251565404236316680908203125", "9223372036854775807",
                "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
                "18446744073709551616", "-18446744073709551615", "123456789012345678901234567890",
                "100000000000000000000.0", "1" + "0" * 400, "1" + "0" * 4301, "NaN", "Infinity", "-Infinity",
                "01", "1.", ".5", "+1", "1e", "0x10"]
EDGE_STRINGS = ['"\\u0000"', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\U0001F600"', '"\\ud83d"', '"\\udc00"',
                '"\\ud83d\\u0041"', '"\\/"', '"\x01"', '"\t"', '"\\x"', '"é"', '"\udc80"']


@st.composite
def json_texts(draw):
    """JSON-ish texts: values of edge numbers and strings, objects that repeat keys, odd whitespace, and now and
    then a character cut, doubled or inserted (errors must read the same too)."""
    ws = st.sampled_from(["", " ", "\n", "\t", "\r\n", "  \n  "])
    atom = st.one_of(st.sampled_from(EDGE_NUMBERS), st.sampled_from(EDGE_STRINGS),
                     st.sampled_from(["true", "false", "null"]),
                     st.integers(-2**70, 2**70).map(str),
                     st.floats(allow_nan=False, allow_infinity=False).map(repr),
                     st.text(max_size=8).map(json.dumps),
                     st.text(max_size=8).map(lambda t: json.dumps(t, ensure_ascii=False)))
    keys = st.sampled_from(['"a"', '"b"', '"PORT"', '"Ethernet0"', '"\\u0061"', '""'])

    def node(children):
        pairs = st.lists(st.tuples(keys, children), max_size=5)
        return st.one_of(
            st.lists(children, max_size=5).map(lambda xs: "[" + ",".join(xs) + "]"),
            pairs.map(lambda ps: "{" + ",".join(f"{k}:{v}" for k, v in ps) + "}"))

    text = draw(ws) + draw(st.recursive(atom, node, max_leaves=20)) + draw(ws)
    if draw(st.integers(0, 4)) == 0 and text:
        i = draw(st.integers(0, len(text) - 1))
        text = text[:i] + draw(st.sampled_from(["", text[i] * 2, ",", "]", "}", '"', "\ufeff", "x"])) + text[i + 1:]
    if draw(st.booleans()):
        text = "\ufeff" + text if draw(st.integers(0, 9)) == 0 else text
    return text.encode("utf-8", "surrogatepass") if draw(st.integers(0, 3)) == 0 else text


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_texts())
def test_generated_texts_read_as_json_loads_reads_them(text):
    new, old = both(text)
    assert new == old


@pytest.mark.parametrize("token", EDGE_NUMBERS + EDGE_STRINGS)
def test_edge_tokens_read_as_json_loads_reads_them(token):
    for text in (token, f"[{token}]", f'{{"a": {token}, "b": [{token}], "a": {token}}}', token.encode("utf-8",
                                                                                                  "surrogatepass")):
        new, old = both(text)
        assert new == old, text


def test_integers_beyond_64_bits_stay_integers():
    """orjson reads them as floats: the text goes to json.loads."""
    for token in ("18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"):
        value = docpos.json_value(f'{{"x": [{token}]}}')["x"][0]
        assert type(value) is int and value == int(token)
    assert math.isinf(docpos.json_value("[1e400]")[0])


def test_a_run_of_19_digits_is_found_at_every_offset_and_length():
    """The digit runs are looked for in every third byte first (docpos._orjson_read): a run of 19 or more digits
    starting at any byte offset (blanks and multi-byte characters before it), as a number or inside a string, in a
    short text or a bench-sized one, still sends the text to json.loads (an integer beyond 64 bits stays one); a
    run of 18 is orjson's to read."""
    filler = '"description": "gpu00000:enp65s0f0np0", ' * 3000  # (digits every few bytes, as a CONFIG_DB's)
    for digits in (18, 19, 20, 21, 40):
        for pad in range(3):
            for lead in ("", "\xe9", "\u20ac"):  # (0, 2 and 3 bytes of UTF-8)
                for sign in ("", "-"):
                    number = sign + "9" * digits
                    for body in (f'"l": "{lead}", "x": {number}', f'"l": "{lead}", {filler}"x": {number}'):
                        text = " " * pad + "{" + body + "}"
                        new, old = both(text)
                        assert new == old, (digits, pad, lead, sign)
                        value = docpos.json_value(text)["x"]
                        assert type(value) is int and value == int(number)
                in_string = " " * pad + f'{{"l": "{lead}{"7" * digits}", "x": 1}}'
                assert (docpos._orjson_read(in_string)[0] is docpos._JSON) == (digits >= 19), (digits, pad, lead)
    # what the sample finds is only a place to look: six digits in every third byte, no run of 19
    dense = '{"a": "' + "1x2" * 12 + '", "b": 2}'
    raw = dense.encode()
    assert docpos._SAMPLE_RUN in raw[::docpos._STEP].translate(docpos._DIGITS)
    assert docpos._orjson_read(dense)[0] == {"a": "1x2" * 12, "b": 2}


def test_repeated_keys_keep_the_last_value_at_the_first_place():
    text = '{"a": 1, "b": {"x": 1}, "a": [3], "c": 4, "b": 5}'
    assert docpos._orjson_read(text)[0] is not docpos._JSON  # (orjson reads it: the point is that it reads it the same)
    value = docpos.json_value(text)
    assert list(value.items()) == [("a", [3]), ("b", 5), ("c", 4)]
    assert both(text)[0] == both(text)[1]


def _at_depth(frames: int, text: str, use_orjson: bool):
    """json_value(text) called ``frames`` Python frames deeper than here, orjson on or off at that depth (the same
    frames either way): json.loads's nesting limit is the recursion left at its call."""
    if frames:
        return _at_depth(frames - 1, text, use_orjson)
    saved = docpos._orjson
    docpos._orjson = saved if use_orjson else None
    try:
        return outcome(docpos.json_value, text)
    finally:
        docpos._orjson = saved


@pytest.mark.parametrize(("shape", "levels"), [("[{}]", 1), ('{{"k": {}}}', 1), ('[1, {{"a": "b", "k": [{}]}}]', 3)])
def test_nesting_near_the_limit_reads_as_json_loads_reads_it(shape, levels):
    """json.loads refuses nesting at the recursion left (about 1,000 less the frames above it), orjson at 1,024
    levels: between the two, and from any stack depth, json_value says what json.loads says."""
    limit = sys.getrecursionlimit()
    for frames in (0, 7, 60, 300):
        kinds = set()
        for depth in range((limit - frames - 140) // levels, (limit - frames - 40) // levels, 3 // levels):
            text = "0"
            for _ in range(depth):
                text = shape.format(text)
            new, old = _at_depth(frames, text, True), _at_depth(frames, text, False)
            assert new == old, (frames, depth)
            kinds.add(new[0])
        assert kinds == {"value", "error"}, frames  # (the limit lies inside the depths tried)


def json_inputs() -> list[Path]:
    found = sorted(p for folder in ("examples", "tests/fixtures", "tests/realworld")
                   for p in (ROOT / folder).rglob("*.json"))
    assert len(found) > 50
    return found


def test_every_json_file_of_the_repository_reads_the_same():
    for path in json_inputs():
        data = path.read_bytes()
        for text in (data, data.decode("utf-8", "surrogateescape")):
            new, old = both(text)
            assert new == old, path


def _lint_report(path: Path) -> str:
    try:
        result = lint([path], "roce-dscp26", jobs=1)
    except InputError as exc:
        return f"InputError: {exc}"
    return render("json", result, color=False)


def _lint_inputs() -> list[Path]:
    """Every JSON input the repository's tests lint: its files and the folders that hold them (a folder is a
    fabric)."""
    files = [p for p in json_inputs() if "golden" not in p.parts or p.parent.name == "sonic"]
    return sorted(set(files) | {p.parent for p in files if p.name == "config_db.json"})


def test_lint_reports_the_same_findings_and_provenance_both_ways():
    checked = 0
    for path in _lint_inputs():
        new = _lint_report(path)
        old = json_only(_lint_report, path)
        assert new == old, path
        checked += "findings" in new
    assert checked > 20


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the real-config corpus (/work/shared/corpus) is not on this machine")
def test_corpus_json_reads_and_lints_the_same():
    paths = sorted(CORPUS.rglob("*.json"))
    if not paths:
        pytest.skip("no JSON file in /work/shared/corpus")
    for path in paths:
        new, old = both(path.read_bytes())
        assert new == old, path
        assert _lint_report(path) == json_only(_lint_report, path), path
