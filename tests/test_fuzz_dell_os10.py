"""Any text given to the Dell OS10 parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import dell_os10
from losslessd.parse.base import Input
from tests.fuzzing import check_text_config, config_line, mutated_lines, raw_texts, spliced

SETTINGS = settings(max_examples=200, deadline=None)
REAL = raw_texts("dell_os10")

WORDS = ["interface", "range", "ethernet1/1/1", "ethernet1/1/1:1", "ethernet1/1/1-1/1/4", "ethernet", "1/1/1",
         "breakout", "map", "25g-4x", "port-channel10", "class-map", "policy-map", "type", "network-qos", "queuing",
         "qos", "match", "queue", "qos-group", "trust", "dot1p-map", "dscp-map", "dot1p", "dscp", "trust-map",
         "default", "qos-map", "traffic-class", "wred", "random-detect", "color", "green", "minimum-threshold",
         "maximum-threshold", "drop-probability", "ecn", "class", "pause", "buffer-size", "pause-threshold",
         "resume-threshold", "pfc-cos", "bandwidth", "percent", "priority", "system", "service-policy", "input",
         "output", "priority-flow-control", "mode", "on", "off", "ets", "flowcontrol", "receive", "transmit", "mtu",
         "9216", "speed", "25000", "channel-group", "no", "shutdown", "hostname", "3", "0-2,4", "26", "!", " ",
         "  ", "-1", "99999999999", "nan", "{", "²", "٣", "! Version 10.5.1.0"]
TOKENS = spliced(WORDS)
LINE = config_line(WORDS, ["", " ", "  ", "\t", "   "])


def check(text: str) -> None:
    device = check_text_config(dell_os10.parse, text)
    if device is None:
        return
    for port in device.ports.values():
        if port.dscp_to_tc is not None:
            assert sorted(port.dscp_to_tc) == list(range(64)) and set(port.dscp_to_tc.values()) <= set(range(8))
        if port.pcp_to_tc is not None:
            assert sorted(port.pcp_to_tc) == list(range(8)) and set(port.pcp_to_tc.values()) <= set(range(8))
        assert port.mtu_bytes is None or port.mtu_bytes > 0


@SETTINGS
@given(st.lists(LINE, max_size=40))
def test_random_lines(lines):
    check("\n".join(lines))
    assert isinstance(dell_os10.sniff(Input("fuzz.cfg", "\n".join(lines))), bool)


@SETTINGS
@given(mutated_lines(REAL, TOKENS))
def test_mutated_real_configs(text):
    check(text)
