"""Any text given to the OpenSM parser gives a Device or an InputError, and the IBS rules never crash on it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.errors import InputError
from losslessd.lint.engine import run
from losslessd.lint.registry import all_rules
from losslessd.model import Device, Fabric
from losslessd.model.validate import check as check_model
from losslessd.parse import opensm
from losslessd.parse.base import Input
from losslessd.policy import load_policy
from tests.conftest import FIXTURES
from tests.fuzzing import mutated_lines

RAW = FIXTURES / "raw" / "opensm"
REAL = {p.relative_to(RAW).as_posix(): p.read_text() for p in sorted(RAW.rglob("*")) if p.is_file()}
CONFS = sorted(k for k in REAL if k.endswith(".conf") and "/" not in k or k.endswith("/opensm.conf"))
POLICY = load_policy("infiniband")
RULES = [rule for code, rule in all_rules().items() if code.startswith("IBS")]
# Pieces of the real formats, so random lines often get deep into the parsers.
TOKENS = ["sm_priority ", "routing_engine ", "ftree,updn,no_fallback", "minhop", "torus-2QoS", "lmc ", "max_op_vls ",
          "qos TRUE", "qos_sl2vl ", "qos_ca_sl2vl ", "qos_swe_vlarb_low ", "0:64,1:128", "0,1,2,15", "(null)", "0x",
          "-1", "99999999999999999999999", "sweep_interval ", "transaction_timeout ", "sm_sl ", "lash_start_vl ",
          "subnet_prefix 0xfe80000000000000", "ignore_other_sm TRUE", "#", "\t", "\n", ",", ":", ";", '"',
          "qos-levels", "qos-level", "end-qos-level", "name: ", "sl: ", "qos-ulps", "end-qos-ulps", " : ",
          "Default=0x7fff, ipoib, sl=", ": ALL=full;", "Found credit loop on: sw/P1 VL: 0",
          "-E- credit loops in routing",
          "-I- no credit loops found", "# DEVICE ATTRIBUTES OPTIONS"]
COMPANIONS = ("qos-policy.conf", "partitions.conf", "ibdiagnet2.log")


def check(inputs: list[Input]) -> None:
    for inp in inputs:
        opensm.sniff(inp)
    try:
        device = opensm.parse(inputs, "fuzz")
    except InputError as exc:
        assert exc.file in {i.path for i in inputs}
        return
    assert isinstance(device, Device)
    check_model(device)  # what the parser built is a valid model: every field of its declared type
    findings = run(Fabric(devices={"fuzz": device}), POLICY, RULES).findings
    assert not [f for f in findings if f.code == "SYS900"], [f.message for f in findings]


pieces = st.lists(st.sampled_from(TOKENS) | st.text(max_size=8), max_size=40).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_random_text(text):
    check([Input("opensm.conf", text)])


@settings(max_examples=200, deadline=None)
@given(pieces, st.sampled_from(COMPANIONS), pieces)
def test_random_format_pieces(conf, companion, text):
    check([Input("opensm.conf", conf)])
    check([Input("opensm.conf", "sm_priority 14\nqos TRUE\n"), Input(companion, text)])


def mutated():
    return mutated_lines(REAL, TOKENS)


@settings(max_examples=200, deadline=None)
@given(mutated(), st.sampled_from(CONFS), st.sampled_from(COMPANIONS))
def test_mutations_of_real_files(text, conf, companion):
    check([Input("opensm.conf", text)])
    check([Input("opensm.conf", REAL[conf]), Input(companion, text)])
