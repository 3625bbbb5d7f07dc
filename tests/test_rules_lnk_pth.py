"""Link and path rules on whole fabrics: the example, the hand-checkable Clos, routing models, remaps, sampling."""

from __future__ import annotations

import shutil

from losslessd import topology
from losslessd.api import lint
from losslessd.lint.engine import run
from losslessd.lint.registry import lookup
from losslessd.model import Device, Fabric
from losslessd.parse import parser_for
from losslessd.parse.base import Input
from losslessd.policy import Policy, load_policy
from losslessd.rules import pth
from tests.conftest import FIXTURES
from tests.rulecase import policy_for
from tests.test_parse_eos import COS_PORT_DSCP_POLICY

SWITCH_PORT = {"qos_configured": True, "trust": "dscp", "dscp_to_tc": {2: 2, 26: 3, 48: 6}, "tc_to_pg": {2: 2, 3: 3},
               "tc_to_priority": {0: 0, 2: 2, 3: 3, 6: 6}, "tc_to_queue": {0: 0, 2: 2, 3: 3, 6: 6},
               "pfc_priority_to_queue": {p: [p] for p in range(8)},
               "pfc_enabled": [3], "priority_groups": {p: {"index": p, "runtime_profile": True} for p in (2, 3)},
               "queues": {6: {"index": 6, "scheduler": {"type": "strict"}}}}
NIC_PORT = {"qos_configured": True, "trust": "dscp", "dscp_to_priority": {26: 3, 48: 6}, "priority_to_pg": {3: 1},
            "priority_groups": {1: {"index": 1, "size_bytes": 130944}}, "pfc_enabled": [3]}


def device(name: str, ports: dict[str, dict], kind: str = "switch") -> Device:
    base = SWITCH_PORT if kind == "switch" else NIC_PORT
    return Device.model_validate({"name": name, "kind": kind, "platform": "sonic" if kind == "switch" else "linux_mlx5",
                                  "ports": {p: {**base, **over, "name": p} for p, over in ports.items()}})


def fabric_of(devices: list[Device], links: list[str], routing: str = "updown") -> Fabric:
    fabric = Fabric(devices={d.name: d for d in devices})
    topology.apply(fabric, topology.from_data({"links": links, "routing": routing}))
    assert fabric.topology_issues == []
    return fabric


def findings(fabric: Fabric, code: str, policy: Policy | str = "roce-dscp26"):
    pol = policy if isinstance(policy, Policy) else load_policy(policy)
    return [f for f in run(fabric, pol, [lookup(code)]).findings if f.code == code]


def test_demo_path_finding_shows_the_whole_path():
    result = lint(["examples/fabric"], "roce-dscp26")
    spine = {f.key: f for f in result.findings if f.code == "PTH001" and f.device == "spine1"}
    arriving = spine["spine1:Ethernet2/1|DSCP 26|in"]
    assert arriving.message.startswith("RoCE DSCP 26 leaves the lossless class at spine1:Ethernet2/1 (arriving): PFC is "
                                       "off for priority 3 (enabled: 4); 4 host pairs affected (all 20 host-port pairs "
                                       "checked)\npath: gpu01:enp65s0f0np0 [DSCP 26 prio 3] -> leaf1:Ethernet0>Ethernet52 "
                                       "[DSCP 26 TC 3 PG 3 q 3] -> spine1:Ethernet2/1 [DSCP 26 TC 3 PG 3: PFC is off")
    assert arriving.devices == ["spine1", "gpu01", "leaf1", "gpu05"]
    assert arriving.source.file == "examples/fabric/spine1.cfg" and arriving.source.line == 44
    leaving = spine["spine1:Ethernet2/1|DSCP 26|out"]
    assert "(leaving): leaf1:Ethernet52 pauses priority 3 for this traffic, but PFC is off for priority 3 here" in leaving.message
    assert "6 host pairs affected" in leaving.message  # gpu05, gpu06 -> gpu01, gpu02, gpu03


def test_clos_with_one_spine_port_on_the_wrong_priority(tmp_path):
    """spine2's port to leaf2 pauses priority 4: of the 12 host pairs, the 4 leaf1 -> leaf2 ones can take spine2
    and break leaving it; the 4 leaf2 -> leaf1 ones break arriving at it. The spine1 paths are fine."""
    clos = tmp_path / "clos"
    shutil.copytree(FIXTURES / "topology" / "clos", clos)
    spine = clos / "spine2.cfg"
    spine.write_text(spine.read_text().replace("   description leaf2:Ethernet50\n",
                                               "   description leaf2:Ethernet50\n   priority-flow-control priority 3 drop\n"
                                               "   priority-flow-control priority 4 no-drop\n"))
    result = lint([clos], "roce-dscp26")
    path = {f.key: f for f in result.findings if f.code == "PTH001"}
    assert set(path) == {"spine2:Ethernet2|DSCP 26|in", "spine2:Ethernet2|DSCP 26|out"}
    for f in path.values():
        assert "4 host pairs affected (all 12 host-port pairs checked)" in f.message
        assert f.data["pairs"] == 4 and f.data["total_pairs"] == 12
    links = [(f.code, f.device, f.port) for f in result.findings if f.code.startswith("LNK")]
    assert links == [("LNK001", "spine2", "Ethernet2")]


def test_updown_never_takes_a_valley_that_shortest_path_takes():
    """Two leaves also cabled to each other, with PFC off on that cable: shortest paths use it, up-down
    routing goes over the spine and stays lossless."""
    devices = [device("leaf1", {"e0": {}, "e1": {}, "x": {"pfc_enabled": []}}),
               device("leaf2", {"e0": {}, "e1": {}, "x": {"pfc_enabled": []}}),
               device("spine1", {"e0": {}, "e1": {}}),
               device("h1", {"eth0": {}}, "host"), device("h2", {"eth0": {}}, "host")]
    links = ["h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf2:e0", "leaf1:e1 <-> spine1:e0", "leaf2:e1 <-> spine1:e1",
             "leaf1:x <-> leaf2:x"]
    assert findings(fabric_of(devices, links, "updown"), "PTH001") == []
    shortest = findings(fabric_of(devices, links, "shortest-path"), "PTH001")
    # The first break is the leaf sending into the valley: its peer pauses priority 3, which it ignores.
    assert sorted(f.key for f in shortest) == ["leaf1:x|DSCP 26|out", "leaf2:x|DSCP 26|out"]


def test_a_remap_that_stays_lossless_and_one_that_does_not():
    """A leaf remarks TC 3 to DSCP 2 on its uplink (as SONiC dual-ToR remaps 3 -> 2), and DSCP 2 is lossless
    priority 2 from there on. Lossless only if the spine pauses priority 2 and the leaf's pause for 2 stops
    the queue the traffic uses."""
    policy = policy_for({"policy_overrides": {"lossless": {"priorities": [2, 3]}}})
    links = ["h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf2:e0", "leaf1:e1 <-> spine1:e0", "leaf2:e1 <-> spine1:e1"]
    both = {"pfc_enabled": [2, 3]}
    nic = {"eth0": {**both, "dscp_to_priority": {2: 2, 26: 3}, "priority_to_pg": {2: 1, 3: 1}}}

    def fabric(uplink: dict, spine: dict) -> Fabric:
        return fabric_of([device("leaf1", {"e0": both, "e1": {**both, **uplink}}),
                          device("leaf2", {"e0": both, "e1": both}),
                          device("spine1", {"e0": {**both, **spine}, "e1": both}),
                          device("h1", nic, "host"), device("h2", nic, "host")], links)

    remap = {"tc_to_dscp_rewrite": {3: 2}}
    good = fabric({**remap, "tc_to_queue": {3: 2}}, {})
    assert findings(good, "PTH001", policy) == []
    no_pfc = findings(fabric({**remap, "tc_to_queue": {3: 2}}, {"pfc_enabled": [3]}), "PTH001", policy)
    assert [f.key for f in no_pfc] == ["spine1:e0|DSCP 2|in"]
    assert "leaf1:e0>e1 [DSCP 26 TC 3 PG 3 q 2 -> DSCP 2] -> spine1:e0 [DSCP 2 TC 2 PG 2: PFC is off for priority 2" \
        in no_pfc[0].message
    wrong_queue = findings(fabric(remap, {}), "PTH001", policy)
    assert [f.key for f in wrong_queue] == ["leaf1:e1|DSCP 26|out"]
    assert "spine1:e0 pauses priority 2 for this traffic, which stops queue 2 here, but the traffic leaves on queue 3" \
        in wrong_queue[0].message


def test_large_fabrics_are_sampled_with_a_fixed_seed_and_collapsed():
    """60 hosts on 6 leaves: 3,540 host pairs, more than the cap. A broken spine port gives one finding per
    broken hop with the number of sampled pairs it breaks, and the same findings on every run."""
    leaves = [device(f"leaf{i}", {**{f"h{j}": {} for j in range(10)}, "up1": {}, "up2": {}}) for i in range(6)]
    spines = [device(f"spine{s}", {f"d{i}": ({"pfc_enabled": [4]} if (s, i) == (1, 0) else {}) for i in range(6)})
              for s in (1, 2)]
    hosts = [device(f"gpu{i}{j}", {"eth0": {}}, "host") for i in range(6) for j in range(10)]
    links = [f"gpu{i}{j}:eth0 <-> leaf{i}:h{j}" for i in range(6) for j in range(10)]
    links += [f"leaf{i}:up{s} <-> spine{s}:d{i}" for i in range(6) for s in (1, 2)]
    fabric = fabric_of(leaves + spines + hosts, links)
    first, again = findings(fabric, "PTH001"), findings(fabric, "PTH001")
    assert [(f.key, f.message) for f in first] == [(f.key, f.message) for f in again]
    assert sorted(f.key for f in first) == ["spine1:d0|DSCP 26|in", "spine1:d0|DSCP 26|out"]
    for f in first:
        assert f.data["checked"] <= pth.MAX_PAIRS and f.data["total_pairs"] == 60 * 59
        assert "of 3,540 host-port pairs checked (a fixed-seed sample" in f.message
        assert 0 < f.data["pairs"] < f.data["checked"]


def test_cnps_are_followed_with_the_dscp_the_nic_sends():
    """The NIC marks its CNPs DSCP 46 (sysfs cnp_dscp), not the policy's 48: the switches put 46 in TC 0."""
    links = ["h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf1:e1"]
    nic = {"nic_ecn": {"cnp_dscp": 46, "cnp_priority": 6}}
    fabric = fabric_of([device("leaf1", {"e0": {"dscp_to_tc": {26: 3, 48: 6, 46: 0}},
                                         "e1": {"dscp_to_tc": {26: 3, 48: 6, 46: 0}}}),
                        device("h1", {"eth0": nic}, "host"), device("h2", {"eth0": {}}, "host")], links)
    found = findings(fabric, "PTH002")
    assert [f.key for f in found] == ["leaf1:e0|DSCP 46|in"]
    assert "CNP DSCP 46 leaves the strict-priority class at leaf1:e0 (arriving): TC 0 has priority 0, not the " \
           "policy's CNP priority 6; map DSCP 46 to a class with priority 6; 1 host pair affected" in found[0].message


def test_what_cannot_be_followed_is_unverified():
    """Hosts with no path between them, and a remark to a DSCP the input does not show, are info findings."""
    islands = fabric_of([device("leaf1", {"e0": {}}), device("leaf2", {"e0": {}}),
                         device("h1", {"eth0": {}}, "host"), device("h2", {"eth0": {}}, "host")],
                        ["h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf2:e0"], "shortest-path")
    found = findings(islands, "PTH001")
    assert [(f.key, f.unverified, f.severity.value) for f in found] == [
        ("leaf1:e0|DSCP 26|in", True, "info"), ("leaf2:e0|DSCP 26|in", True, "info")]
    assert "cannot be followed past leaf1:e0: no next hop towards h2:eth0 under shortest-path routing" in found[0].message
    assert found[0].message.endswith("path: h1:eth0 [DSCP 26 prio 3] -> leaf1:e0 [DSCP 26 TC 3 PG 3: no next hop towards "
                                     "h2:eth0 under shortest-path routing over the known links] -> ... -> h2:eth0")
    remark = fabric_of([device("leaf1", {"e0": {}, "e1": {"tc_to_dscp_rewrite": {1: 8}}}), device("h1", {"eth0": {}}, "host"),
                        device("h2", {"eth0": {}}, "host")], ["h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf1:e1"])
    found = findings(remark, "PTH001")
    assert [(f.key, f.unverified) for f in found] == [("leaf1:e1|DSCP 26|out", True)]
    assert "the port remarks TC 3 to a DSCP the input does not show" in found[0].message


def test_a_cnp_a_cos_trusting_port_sorts_by_its_cos_is_unverified_on_the_path():
    """EOS User Manual, QoS: on a port trusting CoS whose qos policy matches DSCP 26 only, CNPs (DSCP 48) take the
    class of the 802.1p CoS they carry, which the input does not show: the CNP path check says so, unverified, and does
    not call DSCP 48 unmapped (an error)."""
    text = COS_PORT_DSCP_POLICY.format(trust="") + COS_PORT_DSCP_POLICY.format(trust="").split("!\n", 2)[2].replace(
        "Ethernet5", "Ethernet6")
    leaf = parser_for("arista_eos").parse([Input("leaf-4.cfg", text)], "leaf-4")
    assert sorted(leaf.ports) == ["Ethernet5", "Ethernet6"] and leaf.ports["Ethernet5"].dscp_to_tc == {26: 3}
    fabric = fabric_of([leaf, device("h1", {"eth0": {}}, "host"), device("h2", {"eth0": {}}, "host")],
                       ["h1:eth0 <-> leaf-4:Ethernet5", "h2:eth0 <-> leaf-4:Ethernet6"])
    found = [f for f in findings(fabric, "PTH002") if "DSCP 48" in f.key]
    assert [(f.key, f.unverified, f.severity.value) for f in found] == [
        ("leaf-4:Ethernet5|DSCP 48|in", True, "info"), ("leaf-4:Ethernet6|DSCP 48|in", True, "info")]
    assert all("sorts it by the 802.1p CoS the packets carry" in f.message for f in found)
