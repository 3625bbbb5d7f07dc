"""Any text given to the NX-OS parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import nxos
from losslessd.parse.base import Input
from tests.fuzzing import check_text_config, config_line, mutated_lines, raw_texts, spliced

SETTINGS = settings(max_examples=200, deadline=None)
REAL = raw_texts("cisco_nxos")

WORDS = ["interface", "Ethernet1/1", "class-map", "policy-map", "type", "qos", "queuing", "network-qos", "match-all",
         "match", "dscp", "cos", "26", "0-63", "class", "class-default", "c-out-8q-q3", "c-8q-nq3", "set", "qos-group",
         "priority", "level", "1", "bandwidth", "remaining", "percent", "random-detect", "minimum-threshold",
         "maximum-threshold", "kbytes", "mbytes", "bytes", "drop-probability", "weight", "ecn", "pause", "pfc-cos",
         "mtu", "9216", "system", "service-policy", "input", "output", "priority-flow-control", "mode", "on", "off",
         "auto", "watch-dog-interval", "watch-dog", "interval", "shutdown-multiplier", "auto-restore-multiplier",
         "speed", "100000", "hostname", "!", "  ", "    ", "-1", "99999999999", "nan", "{", "²", "٣"]
TOKENS = spliced(WORDS)
LINE = config_line(WORDS, ["", "  ", "    ", "\t", " "])


def check(text: str) -> None:
    device = check_text_config(nxos.parse, text)
    if device is None:
        return
    for port in device.ports.values():
        if port.dscp_to_tc is not None:
            assert sorted(port.dscp_to_tc) == list(range(64)) and set(port.dscp_to_tc.values()) <= set(range(8))


@SETTINGS
@given(st.lists(LINE, max_size=40))
def test_random_lines(lines):
    check("\n".join(lines))
    assert isinstance(nxos.sniff(Input("fuzz.cfg", "\n".join(lines))), bool)


@SETTINGS
@given(mutated_lines(REAL, TOKENS))
def test_mutated_real_configs(text):
    check(text)
