"""Any text given to the mlx5 parser gives a Device or an InputError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.errors import InputError
from losslessd.model import Device
from losslessd.model.validate import check as check_model
from losslessd.parse import mlx5
from losslessd.parse.base import Input
from tests.conftest import FIXTURES
from tests.fuzzing import mutated_lines

REAL = {p.name: p.read_text() for p in sorted((FIXTURES / "raw" / "linux_mlx5").iterdir())}
# Pieces of the real formats, so random lines often get deep into the parser.
TOKENS = ["#% ", "#%|", "#% command: ", "mlnx_qos -i eth0", "cat /sys/class/net/eth0/speed", "tc: 3 ",
          "ratelimit: unlimited, tsa: ets, bw: ", "priority:  ", "prio:3 dscp:", "enabled  ", "buffer  ",
          "Receive buffer size (bytes): ", "max_buffer_size=", "/sys/class/net/eth0/ecn/roce_rp/enable/3:",
          "PFC configuration:", "Priority trust state: ", "default_roce_tos", "-1", "99999999999999", "\t", "\n", ","]


def check(text: str) -> None:
    inp = Input("fuzz.txt", text)
    mlx5.sniff(inp)
    try:
        device = mlx5.parse([inp], "fuzz")
    except InputError as exc:
        assert exc.file == "fuzz.txt"
        return
    assert isinstance(device, Device)
    check_model(device)  # what the parser built is a valid model: every field of its declared type


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_random_text(text):
    check(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TOKENS) | st.text(max_size=8), max_size=40).map("".join))
def test_random_format_pieces(text):
    check(text)
    check("#% losslessd capture 1\n#% device: h\n#% platform: linux_mlx5\n#% collected: 2024-01-01T00:00:00Z\n" + text)


def mutated():
    return mutated_lines(REAL, TOKENS)


@settings(max_examples=200, deadline=None)
@given(mutated())
def test_mutations_of_real_captures(text):
    check(text)
