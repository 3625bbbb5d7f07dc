"""PFC/MAP/NIC behaviour the per-rule case files cannot express: policy-driven numbers, sources, keys."""

from __future__ import annotations

from collections import Counter

import pytest

from losslessd.lint.engine import run
from losslessd.lint.finding import Severity
from losslessd.lint.registry import lookup
from losslessd.model import Device, Fabric
from losslessd.policy import load_policy
from tests.rulecase import CASES_DIR, findings_for, load_cases

CODES = ["PFC001", "PFC002", "MAP001", "MAP002", "MAP003", "MAP004", "NIC001", "NIC002", "NIC003", "NIC004"]

# A fabric built for lossless priority 5 / DSCP 40 and CNP DSCP 46 on priority 7: none of the
# numbers the shipped policies use, so any rule that hard-codes 3, 26, 48 or 6 shows up here.
PRIO5_SWITCH = {
    "name": "leaf1", "kind": "switch", "platform": "sonic",
    "buffer_profiles": {"pg_lossless": {"name": "pg_lossless", "xoff_bytes": 37936}},
    "ports": {"Ethernet0": {
        "name": "Ethernet0", "qos_configured": True, "trust": "dscp", "pfc_enabled": [5],
        "dscp_to_tc": {0: 0, 3: 0, 26: 0, 40: 5, 46: 7, 48: 0},
        "tc_to_pg": {0: 0, 5: 5, 7: 0}, "tc_to_priority": {p: p for p in range(8)},
        "tc_to_queue": {p: p for p in range(8)}, "pfc_priority_to_queue": {p: [p] for p in range(8)},
        "priority_groups": {5: {"index": 5, "profile": "pg_lossless"}},
        "queues": {7: {"index": 7, "scheduler": {"type": "strict"}}, 6: {"index": 6, "scheduler": {"type": "dwrr"}}},
    }},
}
PRIO5_HOST = {
    "name": "gpu1", "kind": "host", "platform": "linux_mlx5", "roce_tos": 40 << 2 | 0b10,
    "ports": {"eth0": {
        "name": "eth0", "trust": "dscp", "pfc_enabled": [5],
        "dscp_to_priority": {40: 5, 46: 7}, "priority_to_pg": {5: 1, 7: 0},
        "priority_groups": {1: {"index": 1, "size_bytes": 130944}},
        "nic_ecn": {"np_enabled": {5: True}, "rp_enabled": {5: True}, "cnp_dscp": 46, "cnp_priority": 7},
    }},
}


def _lint(policy, *devices):
    fabric = Fabric(devices={d["name"]: Device.model_validate(d) for d in devices})
    return run(fabric, policy, [lookup(c) for c in CODES]).findings


@pytest.fixture
def prio5_policy(tmp_path):
    path = tmp_path / "prio5.yaml"
    path.write_text("extends: roce-dscp26\nlossless: {priorities: [5], dscp: [40]}\ncnp: {dscp: 46, priority: 7}\n")
    return load_policy(path)


def test_no_rule_hard_codes_the_shipped_numbers(prio5_policy):
    """The same devices are clean under a policy that describes them, and wrong under the shipped ones."""
    assert _lint(prio5_policy, PRIO5_SWITCH, PRIO5_HOST) == []

    under_dscp26 = {(f.code, f.device, f.key) for f in _lint(load_policy("roce-dscp26"), PRIO5_SWITCH, PRIO5_HOST)}
    assert {("PFC001", "leaf1", "3"), ("PFC002", "leaf1", "5"), ("MAP001", "leaf1", "26"), ("MAP002", "leaf1", "48"),
            ("NIC001", "gpu1", "3"), ("NIC001", "gpu1", "5"), ("MAP001", "gpu1", "26"), ("MAP002", "gpu1", "48"),
            ("NIC004", "gpu1", "dscp")} <= under_dscp26

    under_azure = {(f.code, f.device, f.key) for f in _lint(load_policy("sonic-azure"), PRIO5_SWITCH, PRIO5_HOST)}
    assert {("PFC001", "leaf1", "3"), ("PFC001", "leaf1", "4"), ("MAP001", "leaf1", "3"), ("MAP001", "leaf1", "4"),
            ("NIC001", "gpu1", "4")} <= under_azure
    assert not any(code == "MAP002" for code, _, _ in under_azure), "sonic-azure has no CNP requirement"


def test_findings_point_at_the_most_precise_source():
    """Each rule cites the fact it judged (PFC list, map, trust line, scheduler), not just the port."""
    def at(pointer):
        return {"file": "config_db.json", "pointer": pointer}

    device = {
        "name": "leaf1", "kind": "switch", "platform": "sonic",
        "ports": {"Ethernet0": {
            "name": "Ethernet0", "qos_configured": True, "source": at("/PORT/Ethernet0"),
            "trust": "pcp", "trust_source": at("/PORT_QOS_MAP/Ethernet0"),
            "pfc_enabled": [], "pfc_source": at("/PORT_QOS_MAP/Ethernet0/pfc_enable"),
            "dscp_to_tc": {26: 1, 48: 6}, "map_source": at("/DSCP_TO_TC_MAP/AZURE"),
            "tc_to_priority": {1: 1, 3: 3, 6: 6}, "tc_to_queue": {1: 1, 3: 3, 6: 6},
            "pfc_priority_to_queue": {3: [4]},
            "queues": {6: {"index": 6,
                           "scheduler": {"type": "dwrr", "weight": 14, "source": at("/SCHEDULER/scheduler.0")}}},
        }, "Ethernet4": {  # (a port with PFC on: the switch is not one without any lossless setting, PFC006's)
            "name": "Ethernet4", "qos_configured": True, "pfc_enabled": [3], "dscp_to_tc": {26: 3, 48: 6},
            "tc_to_priority": {3: 3, 6: 6}, "tc_to_queue": {3: 3, 6: 6}, "pfc_priority_to_queue": {3: [3]},
        }},
    }
    pointers = {f.code: f.source.pointer for f in _lint(load_policy("roce-dscp26"), device) if f.port == "Ethernet0"}
    assert pointers == {
        "PFC001": "/PORT_QOS_MAP/Ethernet0/pfc_enable",
        "MAP001": "/DSCP_TO_TC_MAP/AZURE",
        "MAP002": "/SCHEDULER/scheduler.0",
        "MAP003": "/PORT_QOS_MAP/Ethernet0",
        "MAP004": "/DSCP_TO_TC_MAP/AZURE",
    }


def test_unverified_and_error_findings_never_share_a_fingerprint():
    """A baseline that accepts 'could not verify' must not also hide the error once the fact is known:
    unverified findings use the empty key, errors and warnings a non-empty one."""
    seen = Counter()
    for code in CODES:
        spec = load_cases(code)
        for i, case in enumerate(spec["cases"]):
            for f in findings_for(code, spec, case, i):
                assert (f.key == "") == f.unverified, (code, case["name"], f.key, f.message)
                seen[f.unverified] += 1
    assert seen[True] and seen[False]
    assert {p.stem for p in CASES_DIR.glob("*.yaml")} >= set(CODES)



@pytest.mark.parametrize("grouping", [True, False])
def test_lossy_mode_switch_is_said_once_and_what_it_sets_itself_still_checked(grouping):
    """`nv set qos roce mode lossy` under a lossless policy: one PFC004 for the switch, none of the per-port findings
    that follow from it (PFC001, MAP001's PFC break, BUF002 of the lossy PG, WDG001, ECN004), while an ECN threshold
    the configuration writes itself (Kmin above Kmax) is still reported on each port."""
    from losslessd.parse import nvue
    from losslessd.parse.base import Input

    text = ("nv set interface swp1-3 type swp\nnv set qos roce mode lossy\n"
            "nv set qos congestion-control default-global traffic-class 3 min-threshold 2000000\n")
    device = nvue.parse([Input("leaf.cfg", text)], "leaf")
    result = run(Fabric(devices={"leaf": device}), load_policy("roce-dscp26"), grouping=grouping)
    assert Counter(f.code for f in result.findings) == {"PFC004": 1, "ECN002": 3}
    assert all(f.source.line == 3 for f in result.findings if f.code == "ECN002")


@pytest.mark.parametrize("grouping", [True, False])
def test_switch_without_lossless_configuration_is_said_once_and_what_its_ports_set_still_checked(grouping):
    """Ports that pause nothing, buffer in a lossy PG and mark no ECN: one PFC006 for the switch instead of PFC001,
    MAP001, ECN001, BUF002 and WDG001 on each port, while what the ports do set is still judged (MAP002: the CNP
    DSCP's queue is weighted, not strict). Their 802.1p trust (MAP003) only decides which class RoCE reaches, and no
    class is lossless: PFC006 counts those ports and its fix sets the trust (session 33). PFC on the wrong priority on
    one port is another case: every port is then checked as before, MAP003 too."""
    def port(name, **more):
        return {"name": name, "qos_configured": True, "pfc_enabled": [], "trust": "pcp",
                "dscp_to_tc": {26: 3, 48: 6}, "tc_to_priority": {3: 3, 6: 6}, "tc_to_queue": {3: 3, 6: 6},
                "tc_to_pg": {3: 0, 6: 0}, "priority_groups": {0: {"index": 0, "profile": "lossy"}},
                "queues": {6: {"index": 6, "scheduler": {"type": "dwrr", "weight": 14}}}, **more}

    device = {"name": "leaf1", "kind": "switch", "platform": "sonic",
              "buffer_profiles": {"lossy": {"name": "lossy", "size_bytes": 0, "dynamic_threshold": 3}},
              "ports": {f"Ethernet{i}": port(f"Ethernet{i}") for i in (0, 4, 8)}}
    fabric = Fabric(devices={"leaf1": Device.model_validate(device)})
    result = run(fabric, load_policy("roce-dscp26"), grouping=grouping)
    problems = Counter(f.code for f in result.findings if f.severity != Severity.info)
    assert problems == {"PFC006": 1, "MAP002": 3}
    (pfc006,) = [f for f in result.findings if f.code == "PFC006"]
    assert "the trust is not the policy's DSCP on 3 of them (PCP (802.1p) on 3; first: Ethernet0)" in pfc006.message
    assert pfc006.data["trust_ports"] == ["Ethernet0", "Ethernet4", "Ethernet8"]
    # counted per value: the first port's trust is not named for all (it said "PCP (802.1p) ... on 3")
    mixed = {**device, "ports": {"Ethernet0": port("Ethernet0"), **{f"Ethernet{i}": port(f"Ethernet{i}", trust="none")
                                                                  for i in (4, 8)}}}
    result = run(Fabric(devices={"leaf1": Device.model_validate(mixed)}), load_policy("roce-dscp26"), grouping=grouping)
    (pfc006,) = [f for f in result.findings if f.code == "PFC006"]
    assert ("the trust is not the policy's DSCP on 3 of them (PCP (802.1p) on 1, nothing (all traffic in the default "
            "class) on 2; first: Ethernet0)") in pfc006.message
    assert "trust" in lookup("PFC006").fix_sections

    device["ports"]["Ethernet8"] = port("Ethernet8", pfc_enabled=[4])
    result = run(Fabric(devices={"leaf1": Device.model_validate(device)}), load_policy("roce-dscp26"),
                 grouping=grouping)
    codes = Counter(f.code for f in result.findings if f.severity != Severity.info)
    assert "PFC006" not in codes and codes["PFC001"] == 3 and codes["PFC002"] == 1 and codes["MAP001"] == 3
    assert codes["MAP003"] == 3
