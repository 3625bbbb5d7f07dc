"""The tuner reads a queue's ECN as lint does (one lookup, candidate._queue_state, ECN on as rules.common.marks_ecn):
on every fixture of a tunable platform, a carrying queue the tuner takes as holding thresholds is one lint's ECN001
finds marking, and one ECN001 says does not mark (or cannot tell) the tuner never takes as tuned. A queue with
thresholds whose marking is off is not tuned as marking (session 36: ecn_settings read the thresholds alone)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from losslessd import render
from losslessd.errors import InputError
from losslessd.fix import lint_device
from losslessd.parse import parse_group
from losslessd.parse.base import Input
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.space import Candidate
from tests.peers import FABRIC

ROOT = Path(__file__).resolve().parent.parent
POLICY = load_policy("roce-dscp26")
ROCE = (153600, 1572864, 100.0)  # examples/fabric/leaf1 WRED_PROFILE ROCE_LOSSLESS


def _fixtures() -> list[tuple[str, Path]]:
    raw = ROOT / "tests" / "fixtures" / "raw"
    cases = [(p, f) for p in candidate.TUNABLE for f in sorted((raw / p).glob("*")) if f.is_file()]
    return cases + [("sonic", FABRIC / "leaf1" / "config_db.json"), ("arista_eos", FABRIC / "spine1.cfg")]


@pytest.mark.parametrize(("platform", "path"), _fixtures(), ids=lambda v: getattr(v, "name", v))
def test_the_tuner_and_lint_agree_on_every_fixtures_queue_ecn_state(platform, path):
    try:
        device = parse_group(path.stem, [str(path)], platform)
    except InputError:
        pytest.skip(f"{path.name} does not parse (a garbled fixture)")
    findings = lint_device(device, POLICY, [Input(str(path), path.read_text())]) or []
    ecn001 = {(f.port, f.key): f for f in findings if f.code == "ECN001"}
    facts, _ = render.device_facts(device, POLICY)  # (the RoCE-facing ports, as lint and the tuner pick them)
    cfg = SimpleNamespace(name=device.name, platform=platform, port_names=[f.name for f in facts])
    states = candidate.ecn_states(cfg, POLICY, "", device)
    settings = candidate.ecn_settings(cfg, POLICY, "", device)
    for port, rows in states.items():
        for queue, on, *_ in rows:
            # (a finding keyed by no queue is about the port: its PFC state unknown, say)
            lint = ecn001.get((port, str(queue))) or ecn001.get((port, ""))
            if lint is None:
                assert on is True, (port, queue)
            elif lint.unverified:
                assert on is None, (port, queue)
            else:
                assert on in (False, None) and not lint.unverified, (port, queue)
            if on is not True:
                assert settings[port] is None, (port, queue, settings[port])



def _leaf_marking_off(folder: Path) -> str:
    """leaf1's ROCE_LOSSLESS WRED profile with its thresholds kept and marking off (SONiC WRED_PROFILE `ecn:
    ecn_none`, sonic-swss qosorch.cpp ecn_mode_map: no marking)."""
    db = json.loads((FABRIC / "leaf1" / "config_db.json").read_text())
    db["WRED_PROFILE"]["ROCE_LOSSLESS"]["ecn"] = "ecn_none"
    return json.dumps(db, indent=2)


def test_a_queue_with_thresholds_and_marking_off_is_not_tuned_as_marking():
    text = _leaf_marking_off(Path())
    cfg = candidate.load("leaf1", "sonic", text, POLICY, ["Ethernet0"])
    assert candidate.ecn_states(cfg, POLICY, text)["Ethernet0"][0][1:5] == [False, *ROCE]
    assert candidate.ecn_settings(cfg, POLICY, text) == {"Ethernet0": None}
    assert candidate.as_found(cfg, POLICY) is None  # (the search starts from the policy's default, not these)
    checked = candidate.check(cfg, POLICY, Candidate(*ROCE))
    # (before: the thresholds matched, so nothing was pushed and the unmarked queue failed ECN001: refused)
    assert not checked.refused, checked.reasons()
    assert '"ecn": "ecn_all"' in checked.snippet


def test_a_port_named_in_ports_gets_the_facts_a_roce_facing_port_gets():
    """tune --ports may name a port lint does not take as RoCE-facing (here one administratively down before its
    bring-up): its facts are made as render's (render.device_facts), not by hand with fields missing (its SONiC
    QUEUE range key, a host's DCB tool)."""
    db = json.loads((FABRIC / "leaf1" / "config_db.json").read_text())
    queue = db["QUEUE"]
    queue["Ethernet48|3-4"] = {**queue.pop("Ethernet48|3"), "wred_profile": "[WRED_PROFILE|UPLINK_LOSSLESS]"}
    del queue["Ethernet48|4"]
    up = candidate.load("leaf1", "sonic", json.dumps(db), POLICY, ["Ethernet48"]).ports
    db["PORT"]["Ethernet48"]["admin_status"] = "down"
    down = candidate.load("leaf1", "sonic", json.dumps(db), POLICY, ["Ethernet48"]).ports
    assert "Ethernet48" not in candidate.load("leaf1", "sonic", json.dumps(db), POLICY).port_names
    assert down[0].keys["QUEUE"][3] == ("Ethernet48|3-4", False)  # (before: {}, the key unknown)
    assert down == up
