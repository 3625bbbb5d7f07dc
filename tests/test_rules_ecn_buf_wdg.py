"""ECN/BUF/WDG behaviour the per-rule case files cannot express: policy numbers, margins, sources, keys, corpus."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from losslessd import units
from losslessd.fabric import load_fabric
from losslessd.lint.engine import run
from losslessd.lint.finding import Severity
from losslessd.lint.registry import lookup, select
from losslessd.model import Device, Fabric
from losslessd.policy import Policy, load_policy
from tests.rulecase import policy_for

CODES = ["ECN001", "ECN002", "ECN003", "ECN004", "BUF001", "BUF002", "BUF003", "WDG001", "WDG002"]

# Lossless priority 5 reached by DSCP 40 through TC 5 -> PG 5, queue 6: none of the shipped numbers,
# so a rule that hard-codes priority 3, DSCP 26 or queue = priority shows up here.
PRIO5_SWITCH = {
    "name": "leaf1", "kind": "switch", "platform": "sonic", "hwsku": "ACS-MSN2700",
    "buffer_pools": {"ingress_lossless_pool": {"name": "ingress_lossless_pool", "mode": "dynamic",
                                               "size_bytes": 4194304}},
    "buffer_profiles": {"pg_lossless_100000_5m_profile": {
        "name": "pg_lossless_100000_5m_profile", "pool": "ingress_lossless_pool", "size_bytes": 63488,
        "xon_bytes": 19456, "xoff_bytes": 44032, "dynamic_threshold": 0,
        "source": {"file": "buffers.json", "pointer": "/BUFFER_PROFILE/pg_lossless_100000_5m_profile"}}},
    "ports": {"Ethernet0": {
        "name": "Ethernet0", "qos_configured": True, "speed_gbps": 100, "cable_length_m": 5, "mtu_bytes": 9216,
        "pfc_enabled": [5],
        "dscp_to_tc": {0: 0, 3: 0, 26: 0, 40: 5}, "tc_to_pg": {0: 0, 5: 5}, "tc_to_queue": {0: 0, 5: 6},
        "tc_to_priority": {0: 0, 5: 5},
        "queues": {6: {"index": 6, "ecn": {
            "ecn_enabled": True, "min_threshold_bytes": 153600, "max_threshold_bytes": 1572864,
            "mark_probability_pct": 100,
            "source": {"file": "qos.json", "line": 40, "pointer": "/WRED_PROFILE/ROCE"}}}},
        "priority_groups": {5: {"index": 5, "profile": "pg_lossless_100000_5m_profile"}},
        "watchdog": {"enabled": True, "priorities": [5], "detection_time_ms": 200, "restoration_time_ms": 200,
                     "action": "drop", "source": {"file": "config_db.json", "pointer": "/PFC_WD/Ethernet0"}},
    }},
}


def _policy(base: str = "roce-dscp26", **overrides) -> Policy:
    return policy_for({"policy": base, "policy_overrides": overrides})


def _lint(policy: Policy, *devices: dict, codes=CODES):
    fabric = Fabric(devices={d["name"]: Device.model_validate(d) for d in devices})
    return run(fabric, policy, [lookup(c) for c in codes]).findings


def test_no_rule_hard_codes_the_shipped_numbers():
    """Clean under a policy that describes the device; reported on priority 3 under the shipped one."""
    prio5 = _policy(lossless={"priorities": [5], "dscp": [40]})
    assert _lint(prio5, PRIO5_SWITCH) == []

    found = {(f.code, f.key, f.severity.value) for f in _lint(load_policy("roce-dscp26"), PRIO5_SWITCH)}
    # DSCP 26 lands on lossy TC 0 (MAP001's finding), whose queue 0 does not mark ECN, so DCQCN cannot slow it;
    # no traffic class has PFC priority 3, so there is no queue or PG of priority 3 to check (never taken to be
    # queue 3 / PG 3); the watchdog still must cover priority 3.
    assert found == {("ECN001", "0", "error"), ("WDG001", "3", "error")}


def test_ecn_after_pfc_margin_in_bytes_and_microseconds():
    device = copy.deepcopy(PRIO5_SWITCH)
    device["ports"]["Ethernet0"]["queues"][6]["ecn"]["min_threshold_bytes"] = 3 * 1024 * 1024
    policy = _policy(lossless={"priorities": [5], "dscp": [40]})
    (finding,) = _lint(policy, device, codes=["ECN004"])
    trigger = 19456 + 4194304 // 2  # reservation below xoff + alpha 1 x pool / (1 + 1)
    assert finding.data["trigger_bytes"] == trigger
    assert finding.data["margin_bytes"] == trigger - 3 * 1024 * 1024 == -1029120
    assert finding.data["margin_us"] == pytest.approx(units.bytes_to_us(-1029120, 100), abs=1e-3) == -82.33
    assert "margin -1029120 B (-82.3 us at 100 Gb/s)" in finding.message
    assert (finding.key, finding.data["pg"]) == ("6", 5)  # the queue keys the finding; the PG is the one TC 5 uses
    assert finding.source.pointer == "/WRED_PROFILE/ROCE"


def test_more_congested_lossless_queues_bring_pfc_earlier():
    """Kmin 800 KiB is below alpha*F/(1 + alpha) = 2 MiB for one congested PG, not below F/(1 + 5) for five."""
    device = copy.deepcopy(PRIO5_SWITCH)
    device["ports"]["Ethernet0"]["queues"][6]["ecn"]["min_threshold_bytes"] = 800 * 1024
    lossless = {"priorities": [5], "dscp": [40]}
    assert _lint(_policy(lossless=lossless), device, codes=["ECN004"]) == []
    (finding,) = _lint(_policy(lossless=lossless, ecn={"congested_lossless_queues": 5}), device, codes=["ECN004"])
    assert finding.data["trigger_bytes"] == 19456 + 4194304 // 6


def test_fingerprints_survive_line_moves_and_tell_queues_apart():
    device = {"name": "leaf1", "kind": "switch", "platform": "sonic", "ports": {"Ethernet0": {
        "name": "Ethernet0", "qos_configured": True, "pfc_enabled": [3, 4],
        "tc_to_priority": {3: 3, 4: 4}, "tc_to_queue": {3: 3, 4: 4}, "tc_to_pg": {3: 3, 4: 4},
        "queues": {3: {"index": 3, "source": {"file": "qos.json", "line": 10}},
                   4: {"index": 4, "source": {"file": "qos.json", "line": 20}}}}}}
    moved = copy.deepcopy(device)
    for q in moved["ports"]["Ethernet0"]["queues"].values():
        q["source"]["line"] += 100
    azure = load_policy("sonic-azure")
    before = _lint(azure, device, codes=["ECN001"])
    after = _lint(azure, moved, codes=["ECN001"])
    assert [f.key for f in before] == ["3", "4"]
    assert [f.fingerprint for f in before] == [f.fingerprint for f in after]
    assert len({f.fingerprint for f in before}) == 2
    assert [f.source.line for f in after] == [110, 120]


def test_buffer_findings_point_at_the_profile():
    device = copy.deepcopy(PRIO5_SWITCH)
    device["ports"]["Ethernet0"]["cable_length_m"] = 300
    policy = _policy(lossless={"priorities": [5], "dscp": [40]})
    (finding,) = _lint(policy, device, codes=["BUF002"])
    assert finding.source.pointer == "/BUFFER_PROFILE/pg_lossless_100000_5m_profile"
    assert finding.data == {"xoff_bytes": 44032, "required_xoff_bytes": 104448, "shortfall_bytes": 60416,
                            "formula": "sonic", "exact": True,
                            "basis": "SKU ACS-MSN2700 pg_profile_lookup.ini row 100000 300m (above sonic-swss "
                                     "buffer_headroom_mellanox.lua on Spectrum-1: 84992 B)"}
    # The policy's peer response allowance replaces the script's (here larger than 394 quanta x 64 B = 25216 B).
    slow = _policy(lossless={"priorities": [5], "dscp": [40]}, buffer={"peer_response_time_bytes": 60000})
    (slower,) = _lint(slow, device, codes=["BUF002"])
    assert slower.data["required_xoff_bytes"] > 104448
    assert "buffer_headroom_mellanox.lua" in slower.data["basis"].split(" (above")[0]


def test_watchdog_findings_point_at_the_watchdog():
    device = copy.deepcopy(PRIO5_SWITCH)
    device["ports"]["Ethernet0"]["watchdog"].update(action="notify-only", action_raw="alert")
    (finding,) = _lint(_policy(lossless={"priorities": [5], "dscp": [40]}), device, codes=["WDG002"])
    assert finding.source.pointer == "/PFC_WD/Ethernet0"
    assert finding.key == "watchdog"


def test_a_watchdog_on_no_priority_is_named_so():
    """SONiC `pfcwd_sw_enable: ""` (a PFC_WD entry, the watchdog on no queue of the port); audit round 14."""
    device = copy.deepcopy(PRIO5_SWITCH)
    device["ports"]["Ethernet0"]["watchdog"]["priorities"] = []
    (finding,) = _lint(_policy(lossless={"priorities": [5], "dscp": [40]}), device, codes=["WDG001"])
    assert finding.message.startswith("PFC watchdog covers no priority; lossless priority 5 is unguarded")


SONIC_CORPUS = ["sonic/arista7260-t0", "sonic/mellanox4600c-c64", "sonic/mellanox2410",
                "sonic/utilities/config_db.json"]


def test_sonic_corpus_has_no_buffer_ecn_or_watchdog_errors(corpus):
    """Azure configs leave lossless PGs to SONiC's run-time headroom: reported as unverified, never as errors."""
    fabric = load_fabric([corpus / p for p in SONIC_CORPUS])
    findings = run(fabric, load_policy("sonic-azure"), select(["ECN", "BUF", "WDG"])).findings
    assert [f for f in findings if f.severity != Severity.info] == []
    runtime = Counter(f.device for f in findings if f.code == "BUF003")
    assert runtime["mellanox4600c-c64"] > 0 and runtime["sonic-switch"] > 0
    assert all(f.unverified for f in findings)
    # sonic-utilities' mock config_db: watchdog on, 600 ms detection/restoration, drop; it names no release, so the
    # priorities watched where pfcwd_sw_enable is left out or other than pfc_enable are unknown (docs/platforms.md).
    said = [f for f in findings if f.device == "sonic-switch" and f.code.startswith("WDG")]
    assert said and all(f.code == "WDG001" and f.unverified and "names no SONiC release" in f.message for f in said)


def test_nxos_pause_threshold_below_kmin_is_a_warning_naming_the_incast_that_marks_first():
    """NX-OS counts `pause-threshold` per ingress port and class, WRED per egress queue (Nexus 9000 QoS guide: input
    vs output queuing policy): a threshold below Kmin pauses first only where one ingress port feeds the queue, so
    Cisco-style configs that pause at tens of KB under a 100s-of-KB Kmin are a warning, not an error."""
    here = "tests/realworld/cisco_nxos/"
    fabric = load_fabric([here + "n9k-pause-threshold-below-kmin.cfg"])
    findings = run(fabric, load_policy(here + "policy-dscp26-prio5.yaml"), [lookup("ECN004")]).findings
    assert sorted(f.port for f in findings) == ["Ethernet1/41", "Ethernet1/42"]  # eth1/43 pauses at 360000 B
    for f in findings:
        assert f.severity == Severity.warning
        # Kmin 300 KB = 307200 B over 120000 B per ingress port: 3 ports (360000 B) reach Kmin first, 2 (240000 B) not.
        assert f.data["ingress_ports_to_mark_first"] == 3
        assert "per ingress port" in f.message and "incast of 3 or more ports" in f.message
        assert "stated XOFF threshold 120000 B per ingress port" in f.message


def test_nvue_lossless_pg_is_keyed_by_its_name_not_losslessd_internal_index():
    """NVUE's lossless PG has no documented index (build.LOSSLESS_PG is losslessd's own 8): JSON findings name it as
    messages do, in their key and data; a PG a platform numbers itself keeps its number (SONiC: "3")."""
    import json

    from losslessd.parse import nvue
    from losslessd.parse.base import Input
    from losslessd.report import json_report

    device = nvue.parse([Input("leaf.cfg", "nv set interface swp1 type swp\nnv set qos roce\n"
                               "nv set qos traffic-pool default-lossless memory-percent 50\n")], "leaf")
    result = run(Fabric(devices={"leaf": device}), load_policy("roce-dscp26"), select(["BUF003"]))
    (found,) = result.findings
    assert found.key == "lossless PG"
    doc = json.loads(json_report.render(result))
    assert [f["key"] for f in doc["findings"]] == ["lossless PG"]
    device = copy.deepcopy(PRIO5_SWITCH)
    device["buffer_profiles"]["pg_lossless_100000_5m_profile"]["xoff_bytes"] = 1024
    (short,) = _lint(_policy(lossless={"priorities": [5], "dscp": [40]}), device, codes=["BUF002"])
    assert short.key == "5"


def test_the_pool_load_counts_every_lossless_pg_the_ports_pfc_enables():
    """With no load in the policy ECN004 takes every lossless PG of the pool as the most that can congest: the PGs of
    every priority the port's PFC enables, not the policy's lossless ones alone (SONiC `pfc_enable 3,4` under a
    priority-3 policy pauses PG 4 too, which takes from the same pool). Priority 6 paused too, PG 6 on the same profile:
    2 PGs; Kmin 1500000 B is below R + a*F/(1 + a) with one congested PG and at or above R + a*F/(1 + 2a) with both
    (Choudhury & Hahne, alpha 1), so a warning naming K = 2 (counting PG 5 alone capped K at 1: nothing reported)."""
    device = copy.deepcopy(PRIO5_SWITCH)
    port = device["ports"]["Ethernet0"]
    port["queues"][6]["ecn"]["min_threshold_bytes"] = 1500000
    port["pfc_enabled"] = [5, 6]
    port["tc_to_pg"][6], port["tc_to_priority"][6], port["tc_to_queue"][6] = 6, 6, 7
    port["priority_groups"][6] = {"index": 6, "profile": "pg_lossless_100000_5m_profile"}
    assert 19456 + 4194304 / 3 <= 1500000 < 19456 + 4194304 / 2
    (finding,) = _lint(_policy(lossless={"priorities": [5], "dscp": [40]}), device, codes=["ECN004"])
    assert (finding.severity, finding.data["break_even_congested"]) == (Severity.warning, 2)
    assert finding.data["assumed_congested"] == 2 and "with all 2 of the pool congested" in finding.message
    assert finding.data["trigger_bytes"] == 19456 + 4194304 // 3


def test_a_port_whose_pgs_and_queues_are_written_but_not_its_tc_maps_is_told_which_map_is_missing():
    """A config whose port has BUFFER_PG `|5` and a queue 6 entry but no TC->PG or TC->queue map (a merge fragment
    of BUFFER_PG, BUFFER_QUEUE and PORT_QOS_MAP alone, as a public SONiC PFC script writes) was told "the ingress PG
    of lossless priority 5 is not in the input": the entries are there, which one the priority uses is not."""
    device = copy.deepcopy(PRIO5_SWITCH)
    port = device["ports"]["Ethernet0"]
    port["tc_to_pg"] = port["tc_to_queue"] = None
    policy = _policy(lossless={"priorities": [5], "dscp": [40]})
    messages = {f.code: f.message for f in _lint(policy, device, codes=["BUF003", "ECN001"])}
    assert messages == {
        "BUF003": "which PG lossless priority 5 uses is not known: the port's TC->PG map is not in the input (its PGs "
                  "in the input: 5), so the buffer could not be checked",
        "ECN001": "which queue lossless priority 5 uses is not known: the port's TC->queue map is not in the input "
                  "(its queues in the input: 6), so the ECN marking could not be checked"}
    port["priority_groups"] = {}  # (no PG written at all: the PG is what the input lacks)
    (buf,) = _lint(policy, device, codes=["BUF003"])
    assert buf.message == ("the ingress PG of lossless priority 5 is not in the input, so its buffer could not be "
                           "checked")


def test_buf005_selected_alone_names_the_egress_buffer_it_could_not_check():
    """Where ECN001 does not run, BUF005 says itself that a lossless priority's queue is unknown; it said "so the ECN
    marking could not be checked", which is ECN001's check, not its own (the queue's egress buffer profile)."""
    device = copy.deepcopy(PRIO5_SWITCH)
    port = device["ports"]["Ethernet0"]
    port["tc_to_queue"] = None
    port["queues"][6]["buffer_source"] = {"file": "config_db.json", "pointer": "/BUFFER_QUEUE/Ethernet0|6"}
    policy = _policy(lossless={"priorities": [5], "dscp": [40]})
    (buf,) = _lint(policy, device, codes=["BUF005"])
    assert buf.message == ("which queue lossless priority 5 uses is not known: the port's TC->queue map is not in the "
                           "input (its queues in the input: 6), so the egress buffer could not be checked")
    assert _lint(policy, device, codes=["BUF005", "ECN001"])[0].code == "ECN001"  # said once, by ECN001
