"""Any text given to the Dell OS9 parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import dell_os9
from losslessd.parse.base import Input
from tests.fuzzing import check_text_config, config_line, mutated_lines, raw_texts, spliced

SETTINGS = settings(max_examples=200, deadline=None)
REAL = raw_texts("dell_os9")

WORDS = ["interface", "TenGigabitEthernet", "fortyGigE", "0/1", "1/49", "range", "-", "dcb-map", "M",
         "priority-group", "bandwidth", "strict-priority", "pfc", "on", "off", "priority-pgid", "0", "1", "3", "7", "8",
         "service-class", "dynamic", "dot1p", "flowcontrol", "rx", "tx", "ip", "mtu", "9216", "no", "shutdown",
         "description", "hostname", "dcb", "enable", "!", " ", "  ", "-1", "99999999999", "nan", "{", "²", "٣",
         "! Version 9.9(0.0)"]
TOKENS = spliced(WORDS)
LINE = config_line(WORDS, ["", " ", "  ", "\t", "   "])


def check(text: str) -> None:
    device = check_text_config(dell_os9.parse, text)
    if device is None:
        return
    for port in device.ports.values():
        if port.pcp_to_tc is not None:
            assert sorted(port.pcp_to_tc) == list(range(8)) and set(port.pcp_to_tc.values()) <= set(range(8))
        assert port.mtu_bytes is None or port.mtu_bytes > 0


@SETTINGS
@given(st.lists(LINE, max_size=40))
def test_random_lines(lines):
    check("\n".join(lines))
    assert isinstance(dell_os9.sniff(Input("fuzz.cfg", "\n".join(lines))), bool)


@SETTINGS
@given(mutated_lines(REAL, TOKENS))
def test_mutated_real_configs(text):
    check(text)
