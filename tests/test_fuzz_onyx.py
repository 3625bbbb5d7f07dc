"""Any text given to the Onyx parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import onyx
from losslessd.parse.base import Input
from tests.fuzzing import check_text_config, mutated_lines, raw_texts

SETTINGS = settings(max_examples=200, deadline=None)
REAL = raw_texts("nvidia_onyx")
TOKENS = [" 1/1-1/999999", " 1/5-1/3", " 1/1/1-1/2/4", " 9999999999", " -1", " ²", " ٣", " 'x", ' "', " {",
          " force", " auto", " on", " off", " L3", " both", " strict", " wrr 50", " lossless", " lossy", " 1e9",
          " nan", "\t", " minimum-absolute", " maximum-relative", " 100G", " 0G", "roce", "roce lossy", "no roce",
          "dcb priority-flow-control enable force", "no dcb priority-flow-control priority 3 enable",
          "interface port-channel 1 qos trust L3", "traffic pool p map switch-priority 3 9", "#% command: x"]
CODES = ("SYS002", "SYS003", "SYS004")


def check(text: str) -> None:
    device = check_text_config(onyx.parse, text, codes=CODES)
    if device is None:
        return
    for port in device.ports.values():
        assert all(0 <= q <= 7 for q in port.queues)
        assert port.name.startswith("Eth")


@SETTINGS
@given(mutated_lines(REAL, TOKENS))
def test_mutations_of_real_configs(text):
    check(text)
    assert isinstance(onyx.sniff(Input("fuzz.cfg", text)), bool)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["   interface ethernet 1/1 ", "   interface ethernet 1/1-1/4 ",
                                           "   dcb priority-flow-control ", "   traffic pool roce ", "no ", "## ", ""]),
                          st.lists(st.sampled_from(TOKENS) | st.text(max_size=6), max_size=6)), max_size=20))
def test_random_lines(lines):
    check("\n".join(head + "".join(words) for head, words in lines))
