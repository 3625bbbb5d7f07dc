"""Platform.sniff_signs: detect skips a platform's package for a file holding none of its signs (a lint of one plain
EOS, NX-OS, Junos or OS10 config imports no other platform's reader to be told "not mine"). The skip must never change
what is detected: every file of the fixtures, the real-world files, the examples and the shared corpus, and the
fuzzers' mutated configs, is detected as asking every platform's sniff in order does, and every file a platform's sniff
knows (no capture header naming a platform) holds one of that platform's signs (and, no capture, opens with its
Platform.sniff_opens: tests/test_sniff_opens.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import capture
from losslessd.parse import SNIFF_ORDER, detect, holds_sign, parser_for
from losslessd.parse.base import Input
from losslessd.platforms import PLATFORMS
from tests.conftest import FIXTURES, ROOT
from tests.fuzzing import mutated_lines

CORPUS = ROOT.parent / "shared" / "corpus"
SIGNS = {p: PLATFORMS[p] for p in SNIFF_ORDER if PLATFORMS[p].sniff_signs is not None}
OPENS = {p: PLATFORMS[p].sniff_opens for p in SNIFF_ORDER if PLATFORMS[p].sniff_opens}
FILES = sorted(p for top in (FIXTURES, ROOT / "tests" / "realworld", ROOT / "examples", CORPUS) if top.is_dir()
               for p in top.rglob("*") if p.is_file() and p.stat().st_size < 4 << 20)
# The fuzzers' texts: a platform's own files edited line by line, with every platform's signs among the tokens spliced.
_RAW = {str(p.relative_to(FIXTURES)): p.read_text("utf-8", "replace")
        for p in sorted((FIXTURES / "raw").rglob("*")) if p.is_file() and p.stat().st_size < 1 << 20}
_TOKENS = sorted({sign.strip("\n") for p in SIGNS.values() for sign in p.sniff_signs or ()} | {"{", "#!/bin/sh"})


def _every_sniff(inp: Input) -> str | None:
    """What detect found before: each platform's sniff asked in order."""
    return next((p for p in SNIFF_ORDER if parser_for(p).sniff(inp)), None)


def _check(inp: Input, where: object) -> None:
    """detect answers as every sniff asked in order does, and each file a sniff knows (a capture aside) opens with its
    platform's Platform.sniff_opens and holds one of its Platform.sniff_signs."""
    assert detect(inp) == _every_sniff(inp), where
    for platform, mark in OPENS.items() if not capture.is_capture(inp.text) else ():
        if parser_for(platform).sniff(inp):
            assert inp.text.lstrip()[:1] == mark, (platform, where)
    if capture.sniff_platform(inp.text) is not None:
        return
    first = inp.text.lstrip()[:1]
    for platform, p in SIGNS.items():
        if parser_for(platform).sniff(inp):
            assert (first and first in p.sniff_signs_open) or any(
                holds_sign(inp.text, sign) for sign in p.sniff_signs or ()), (platform, where)


def test_the_platforms_with_signs():
    # every platform ranked in detect names its signs but OpenSM, whose files are told by their option names
    assert set(SNIFF_ORDER) - set(SIGNS) == {"sonic", "opensm"}


def test_every_file_is_detected_as_every_sniff_asked_in_order():
    assert len(FILES) > 400
    for path in FILES:
        _check(Input(str(path), path.read_text("utf-8", "replace")), path)


@settings(max_examples=300, deadline=None)
@given(mutated_lines(_RAW, _TOKENS))
def test_fuzzed_configs_are_detected_as_every_sniff_asked_in_order(text):
    _check(Input("fuzz.cfg", text), text[:200])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*_TOKENS, "\n", " ", "interface Ethernet1", "   priority-flow-control on",
                                 "qos map dscp 26 to traffic-class 3", "set interfaces et-0/0/0 mtu 9216",
                                 "prio-pfc 0:off 3:on", "PFC configuration:", "mlnx_qos -i eth0 --trust dscp"]),
                max_size=12).map("".join))
def test_sign_soups_are_detected_as_every_sniff_asked_in_order(text):
    _check(Input("soup.cfg", text), text)


def test_a_sign_at_a_line_start_counts_at_the_text_start_too():
    # dcb's show lines (mlx5) are told at a line's start, the text's first line too
    inp = Input("dcb.txt", "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n")
    assert detect(inp) == _every_sniff(inp) == "linux_mlx5"
    inp = Input("dcb.txt", "pfc-cap 8 macsec-bypass off delay 0\n")
    assert detect(inp) == _every_sniff(inp) == "linux_mlx5"
