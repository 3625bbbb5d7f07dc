"""Any text given to the NVUE parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import nvue
from losslessd.parse.base import Input
from tests.fuzzing import check_text_config, mutated_lines, raw_texts

SETTINGS = settings(max_examples=200, deadline=None)
REAL = raw_texts("nvidia_cumulus")
TOKENS = [" swp1-999999", " swp3-1", " 9999999999", " -1", " ²", " ٣", " 'x", ' "', " {", " [", " : ", " &a", " *a",
          " profile", " traffic-class 0-9", " switch-priority 3,8", " mode strict", " mode wfq", " 2 MB", " 5 furlongs",
          " enable", " disable", " lossy", " auto", " 1e9", " nan", "\t", "nv set qos roce", "nv unset qos roce",
          "nv set interface swp1,,swp2 type swp", "nv set qos pfc-watchdog robustness 0", "#% command: x"]


def check(text: str) -> None:
    device = check_text_config(nvue.parse, text)
    if device is None:
        return
    for port in device.ports.values():
        assert all(0 <= q <= 7 for q in port.queues)


@SETTINGS
@given(mutated_lines(REAL, TOKENS))
def test_mutations_of_real_configs(text):
    check(text)
    assert isinstance(nvue.sniff(Input("fuzz.cfg", text)), bool)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["nv set ", "nv set interface swp1 ", "nv set qos ", "- ", "  ", ""]),
                          st.lists(st.sampled_from(TOKENS) | st.text(max_size=6), max_size=6)), max_size=20))
def test_random_lines(lines):
    check("\n".join(head + "".join(words) for head, words in lines))
