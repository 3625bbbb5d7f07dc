"""Any text given to the EOS parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd.parse import eos
from losslessd.parse.base import Input
from tests.conftest import FIXTURES
from tests.fuzzing import check_text_config, config_line

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
REAL = [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "raw" / "arista_eos").glob("*.cfg"))]

WORDS = ["interface", "Ethernet1", "Ethernet2/1", "qos", "profile", "P", "trust", "dscp", "cos", "no", "map", "to",
         "traffic-class", "tx-queue", "uc-tx-queue", "priority-flow-control", "on", "off", "priority", "no-drop",
         "drop", "pause", "watchdog", "port", "timer", "timeout", "recovery-time", "polling-interval", "auto",
         "action", "default", "all", "random-detect", "ecn", "minimum-threshold", "maximum-threshold", "kbytes",
         "segments", "milliseconds", "microseconds", "mbytes", "bytes", "max-mark-probability", "weight",
         "service-profile", "speed", "forced", "100gfull", "mtu", "strict", "bandwidth", "percent", "hostname",
         "!", "!!", "switchport", "shutdown", "3", "0.05", "-1", "99999999999", "1e9", "nan", "x", "{", "²", "٣"]
LINE = config_line(WORDS, ["", "   ", "      ", "\t", " "])


def check(text: str) -> None:
    check_text_config(eos.parse, text)


@SETTINGS
@given(st.lists(LINE, max_size=40))
def test_random_lines(lines):
    check("\n".join(lines))
    assert isinstance(eos.sniff(Input("fuzz.cfg", "\n".join(lines))), bool)


@st.composite
def mutated(draw, texts):
    lines = draw(st.sampled_from(texts)).split("\n")
    for _ in range(draw(st.integers(1, 8))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "indent", "dedent", "word", "cut"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = "   " + lines[i]
        elif op == "dedent":
            lines[i] = lines[i].lstrip()
        elif op == "word":
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.one_of(st.sampled_from(WORDS), st.text(max_size=8)))
            lines[i] = " ".join(words)
        else:  # the file is cut here, mid-line
            lines = lines[:i] + [lines[i][:draw(st.integers(0, len(lines[i])))]]
    return "\n".join(lines)


@SETTINGS
@given(data=st.data())
def test_mutated_real_configs(corpus, data):
    text = data.draw(mutated(REAL + [(corpus / "eos" / "avd-qos.cfg").read_text(encoding="utf-8")]))
    check(text)
