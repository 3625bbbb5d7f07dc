"""Any text given to the Junos parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.parse import junos
from losslessd.parse.base import Input
from tests.fuzzing import check_text_config, mutated_lines, raw_texts

SETTINGS = settings(max_examples=200, deadline=None)
REAL = raw_texts("juniper_junos", "*.cfg")
TOKENS = ["set", "class-of-service", "interfaces", "et-0/0/0", "xe-0/0/*", "unit", "0", "classifiers", "dscp",
          "ieee-802.1", "forwarding-class", "loss-priority", "low", "code-points", "[", "]", "011010", "af31", "011",
          "forwarding-classes", "class", "queue-num", "no-loss", "pfc-priority", "congestion-notification-profile",
          "input", "output", "code-point", "pfc", "flow-control-queue", "pfc-watchdog", "detection", "poll-interval",
          "recovery", "watchdog-action", "drop-profiles", "interpolate", "fill-level", "drop-probability",
          "schedulers", "priority", "strict-high", "transmit-rate", "percent", "explicit-congestion-notification",
          "drop-profile-map", "scheduler-maps", "scheduler", "traffic-control-profiles", "scheduler-map", "mtu",
          "speed", "100g", "description", '"', "disable", "{", "}", "system {", "-1", "1e9", "nan", "٣", "deactivate"]
LINE = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), max_size=10).map(" ".join)


def check(text: str) -> None:
    check_text_config(junos.parse, text, ("SYS002",))


@SETTINGS
@given(st.lists(LINE, max_size=40))
def test_random_lines(lines):
    text = "\n".join(lines)
    check(text)
    assert isinstance(junos.sniff(Input("fuzz.cfg", text)), bool)


@SETTINGS
@given(mutated_lines(REAL, TOKENS))
def test_mutated_real_configs(text):
    check(text)
