"""Semantic hostile values (tests/hostile_values.py): every platform's fixture with values that parse but cannot
be right, run through the real CLI entry. Each case ends in a documented exit (0/1/2: never 3, never a
traceback); a value that cannot be right is reported (a SYS001/2/3 finding naming the file, or an input error
naming it) rather than read as a plausible number or dropped so that the port reads clean; and no report format
carries a character that drives a terminal."""

from __future__ import annotations

import json

import pytest

from losslessd.printable import json_safe, printable
from tests import hostile_values as hv

FIXTURES = hv.fixtures()
# One name holding every kind of terminal-driving character at once: ANSI colour and OSC title, C1 CSI, DEL,
# a line separator, a bidi override and isolate, a zero-width space.
HOSTILE_NAME = "sw\x1b[31mRED\x1b]0;t\x07\x9b\x7f\u2028\u202eevil\u202c\u2066x\u2069\u200b"


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.label for f in FIXTURES])
def test_hostile_names_never_reach_the_terminal(fixture, tmp_path):
    """The device's host name and a port name, made HOSTILE_NAME everywhere they occur: every report format
    (text, JSON, SARIF, GitHub) holds them escaped (before: bidi overrides raw in all four; DEL, C1 CSI and
    U+2028 raw in JSON and SARIF; ESC raw in GitHub annotations)."""
    for variant in hv.name_variants(fixture, {"hostile": HOSTILE_NAME}):
        for fmt in ("text", "json", "sarif", "github"):
            r = hv.run_variant(variant, tmp_path, fmt)
            assert r.outcome.ok, (variant.where, fmt, r.outcome.problems, r.outcome.output[-2000:])
            assert not r.unsafe, (variant.where, fmt, [hex(ord(c)) for c in r.unsafe])


def test_the_name_sweep_reaches_every_platform():
    named = {f.label.split("/")[0] for f in FIXTURES if next(hv.name_variants(f, {"x": "x"}), None)}
    assert named >= {"arista_eos", "cisco_nxos", "juniper_junos", "linux_mlx5", "nvidia_cumulus", "sonic", "fabric"}


def test_printable_escapes_bidi_and_zero_width():
    # Unicode TR9 explicit formatting characters and marks; CVE-2021-42574's examples use U+202E and U+2066-2069.
    assert printable("a\u202eb\u2066c\u2069d\u200fe\u200bf") == "a\\u202eb\\u2066c\\u2069d\\u200fe\\u200bf"
    assert printable("leaf1 Ethernet0\tx") == "leaf1 Ethernet0\tx"  # (tab and plain text kept)
    assert printable("\u00e9t\u00e9 \u4e2d") == "\u00e9t\u00e9 \u4e2d"  # (letters of any script kept)


def test_json_safe_is_the_same_document():
    doc = {"name": "sw\x7f\x9b\u2028\u202e\u2066x", "plain": "caf\u00e9"}
    text = json_safe(json.dumps(doc, ensure_ascii=False))
    assert json.loads(text) == doc
    assert not hv.TERMINAL_UNSAFE.search(text)
    assert "caf\u00e9" in text
