"""docpos.decode_json reads every text exactly as json.loads does: the same values (types, order, -0.0, NaN),
the same refusals in json's words. orjson reads most JSON in half the time but differs at the edges (integers
beyond 64 bits become floats, NaN/Infinity/1e400 and lone surrogates are refused): those must go to json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import docpos
from losslessd.docpos import decode_json
from tests.conftest import FIXTURES

SONIC_DOCS = {p.name: p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "raw" / "sonic").rglob("*.json"))}


def canon(value):
    """A value with its JSON types spelled out: 1 and 1.0 and True differ, -0.0 and 0.0 differ, NaN equals NaN,
    and a dict's key order counts."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, list):
        return ("list", [canon(v) for v in value])
    return ("dict", [(k, canon(v)) for k, v in value.items()])


def outcome(decode, text: str):
    try:
        return "value", canon(decode(text))
    except (ValueError, RecursionError) as exc:  # (json.JSONDecodeError is a ValueError)
        return type(exc).__name__, str(exc)


@pytest.fixture(params=["orjson", "json only"])
def decoder(request, monkeypatch):
    """decode_json as installed (orjson first), and as on a platform without orjson."""
    if request.param == "json only":
        monkeypatch.setattr(docpos, "orjson", None)
    elif docpos.orjson is None:
        pytest.skip("orjson is not installed here (a dependency: `make venv` installs it)")
    return decode_json


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": 2, "a": 3}',  # a duplicate key: the last value, at the first one's place
    "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
    "12345678901234567890123", '{"size": 123456789012345678901234567890}', "1e400", "-1e400", "[NaN, Infinity]",
    '"\\ud800"', '"\ud800"', '"\\ud83d\\ude00"', '"\\u0000"', "-0.0", "-0", "4.9e-324", "2.2250738585072011e-308",
    "1.7976931348623157e308", "0.1", "[1,]", "{} x", "\ufeff{}", '"a\x01b"', "01", ".5", "", "[" * 5000 + "]" * 5000,
])
def test_edges_read_as_json_reads_them(decoder, text):
    assert outcome(decoder, text) == outcome(json.loads, text)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_json_values)
def test_any_value_written_by_json_reads_back_the_same(decoder, value):
    text = json.dumps(value)
    assert outcome(decoder, text) == outcome(json.loads, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(SONIC_DOCS)), edits=st.lists(
    st.tuples(st.floats(0, 1), st.integers(0, 3), st.sampled_from(list('{}[]",:0123456789.eE-+ \\ntu\x00'))),
    min_size=1, max_size=4))
def test_mutated_config_db_reads_or_fails_as_json_does(decoder, name, edits):
    """A CONFIG_DB with characters deleted, replaced or added: the same value or the same error as json's."""
    text = SONIC_DOCS[name]
    for where, op, char in edits:
        at = int(where * len(text))
        text = (text[:at] + text[at + 1:] if op == 0 else text[:at] + char + text[at + 1:] if op == 1
                else text[:at] + char + text[at:] if op == 2 else text[:at])
    assert outcome(decoder, text) == outcome(json.loads, text)


def test_every_sonic_fixture_decodes_as_json_does(decoder):
    assert SONIC_DOCS, "no SONiC fixtures found"
    for name, text in SONIC_DOCS.items():
        assert outcome(decoder, text) == outcome(json.loads, text), name


def test_the_error_names_file_line_and_column_as_before(tmp_path: Path):
    path = tmp_path / "config_db.json"
    path.write_text('{\n  "PORT": {\n    "Ethernet0": {"mtu": 9100,}\n  }\n}\n')
    with pytest.raises(docpos.InputError) as err:
        docpos.load_json(path)
    assert (err.value.line, str(err.value).split(": ", 1)[-1]) == (3, "invalid JSON: Expecting property name "
                                                                    "enclosed in double quotes (column 31)")
