"""Any text given to the NX-OS parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import nxos
from losslessd.parse.base import Input
from tests.conftest import FIXTURES
from tests.fuzzing import check_text_config, mutated_lines

SETTINGS = settings(max_examples=200, deadline=None)
REAL = {p.name: p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "raw" / "cisco_nxos").iterdir())}

WORDS = ["interface", "Ethernet1/1", "class-map", "policy-map", "type", "qos", "queuing", "network-qos", "match-all",
         "match", "dscp", "cos", "26", "0-63", "class", "class-default", "c-out-8q-q3", "c-8q-nq3", "set", "qos-group",
         "priority", "level", "1", "bandwidth", "remaining", "percent", "random-detect", "minimum-threshold",
         "maximum-threshold", "kbytes", "mbytes", "bytes", "drop-probability", "weight", "ecn", "pause", "pfc-cos",
         "mtu", "9216", "system", "service-policy", "input", "output", "priority-flow-control", "mode", "on", "off",
         "auto", "watch-dog-interval", "watch-dog", "interval", "shutdown-multiplier", "auto-restore-multiplier",
         "speed", "100000", "hostname", "!", "  ", "    ", "-1", "99999999999", "nan", "{", "²", "٣"]
TOKENS = [" " + w for w in WORDS] + ["  " + w for w in WORDS]
LINE = st.tuples(st.sampled_from(["", "  ", "    ", "\t", " "]),
                 st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=10)).map(
    lambda t: t[0] + " ".join(t[1]))


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
