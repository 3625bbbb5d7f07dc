"""The topology loader: links from topology.yaml, LLDP and DEVICE_NEIGHBOR; tiers; routing; bad input as findings."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import topology
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.fabric import load_fabric
from losslessd.model import Device, DeviceKind, Fabric, Neighbor, Port
from losslessd.parse import display_path
from tests.clirun import losslessd
from tests.conftest import FIXTURES

CLOS = FIXTURES / "topology" / "clos"


def cables(fabric: Fabric) -> dict[frozenset, object]:
    return {frozenset((str(link.a), str(link.b))): link for link in fabric.links}


def clos_copy(tmp_path: Path) -> Path:
    target = tmp_path / "clos"
    shutil.copytree(CLOS, target)
    return target


def test_clos_cables_come_from_the_file_lldp_and_config():
    fabric = load_fabric([CLOS])
    links = cables(fabric)
    assert len(links) == len(fabric.links) == 8  # 4 spine links, 4 host links: each cable once
    spine = links[frozenset(("leaf1:Ethernet48", "spine1:Ethernet1"))]
    assert (spine.origin, spine.source.file, spine.source.line) == ("topology", "tests/fixtures/topology/clos/topology.yaml", 6)
    # h1 reports leaf1 by LLDP (port ID = SONiC alias etp1) and leaf1's DEVICE_NEIGHBOR agrees: one link.
    host = links[frozenset(("h1:eth0", "leaf1:Ethernet0"))]
    assert host.origin == "lldp" and host.source.file.endswith("h1.capture")
    assert frozenset(("h4:eth0", "leaf2:Ethernet2")) in links
    # spine1's saved LLDP (FQDN system names, a SONiC alias) confirms its links; Ma1 is not modelled.
    assert [(n.port, n.remote_device) for n in fabric.devices["spine1"].neighbors][:2] == [
        ("Ethernet1", "leaf1.fabric.example"), ("Ethernet2", "leaf2.fabric.example")]
    assert fabric.topology_issues == []
    assert "spine1" in fabric.devices and set(fabric.devices) == {"h1", "h2", "h3", "h4", "leaf1", "leaf2", "spine1",
                                                                  "spine2"}  # lldp/spine1.txt is no device
    assert {n: d.tier for n, d in fabric.devices.items()} == {"h1": 0, "h2": 0, "h3": 0, "h4": 0, "leaf1": 1, "leaf2": 1,
                                                              "spine1": 2, "spine2": 2}
    assert fabric.routing == "updown" and fabric.topology_source.file.endswith("topology.yaml")


def test_the_clos_is_clean_of_fabric_findings():
    result = lint([CLOS], "roce-dscp26")
    assert not [f for f in result.findings if f.code[:3] in ("LNK", "PTH", "SYS")], [f.message for f in result.findings]


def test_reported_neighbours_make_links_without_a_topology_file():
    fabric = load_fabric([CLOS / "h1.capture", CLOS / "leaf1"])
    assert [(str(link.a), str(link.b), link.origin) for link in fabric.links] == [("h1:eth0", "leaf1:Ethernet0", "lldp")]
    assert fabric.routing is None  # no topology: no path or deadlock analysis
    # leaf1's DEVICE_NEIGHBOR names h2, not linted here: without a topology file that is no finding.
    assert fabric.topology_issues == []


def test_tiers_declared_win_and_the_rest_are_hop_distances():
    devices = {name: Device(name=name, kind=kind, platform="sonic", ports={p: Port(name=p) for p in ports})
               for name, kind, ports in (("h1", DeviceKind.host, ["eth0"]), ("leaf1", DeviceKind.switch, ["e0", "e1"]),
                                         ("spine1", DeviceKind.switch, ["e0", "e1"]),
                                         ("super1", DeviceKind.switch, ["e0"]), ("lonely", DeviceKind.switch, ["e0"]))}
    fabric = Fabric(devices=devices)
    topology.apply(fabric, topology.from_data({"links": ["h1:eth0 <-> leaf1:e0", "leaf1:e1 <-> spine1:e0",
                                                         "spine1:e1 <-> super1:e0"], "tiers": {"spine1": 5}}))
    assert {n: d.tier for n, d in fabric.devices.items()} == {"h1": 0, "leaf1": 1, "spine1": 5, "super1": 3,
                                                              "lonely": None}
    assert fabric.routing == "shortest-path"  # the default with a topology and no routing tables


def test_bad_links_are_findings_and_the_rest_is_analysed(tmp_path):
    fabric_dir = clos_copy(tmp_path)
    topo = yaml.safe_load((fabric_dir / "topology.yaml").read_text())
    topo["links"] += [
        "leaf1:Ethernet100 <-> spine2:Ethernet9",   # unknown ports
        "leaf9:Ethernet0 <-> spine2:Ethernet9",     # unknown device
        "leaf2:Ethernet49 <-> spine1:Ethernet2",    # the same cable again
        "leaf2:Ethernet49 <-> spine2:Ethernet1",    # a port on a second link
        "leaf2 Ethernet1 -> h3",                     # garbled
    ]
    (fabric_dir / "topology.yaml").write_text(yaml.safe_dump(topo, sort_keys=False))
    # h2 now claims leaf1's Ethernet0, which leaf1 (DEVICE_NEIGHBOR) and h1 (LLDP) give to h1.
    capture = fabric_dir / "h2.capture"
    capture.write_text(capture.read_text().replace("port.local=etp2", "port.local=etp1"))
    # And a real mistake, so the fabric checks are seen to run on what could be placed.
    spine = fabric_dir / "spine2.cfg"
    spine.write_text(spine.read_text().replace("   description leaf2:Ethernet50\n",
                                               "   description leaf2:Ethernet50\n   priority-flow-control priority 3 drop\n"
                                               "   priority-flow-control priority 4 no-drop\n"))
    result = lint([fabric_dir], "roce-dscp26")
    found = sorted((f.code, f.device or "", f.port or "", f.severity.value) for f in result.findings
                    if f.code[:3] in ("LNK", "SYS"))
    assert found == [
        ("LNK001", "spine2", "Ethernet2", "error"),
        ("LNK006", "", "", "error"),                       # leaf9
        ("LNK006", "leaf1", "Ethernet100", "error"),
        ("LNK006", "spine2", "Ethernet9", "error"),        # named on two lines, reported once
        ("LNK007", "leaf2", "Ethernet49", "error"),        # on a second link
        ("LNK007", "leaf2", "Ethernet49", "warning"),      # the same cable again
        ("LNK008", "h2", "eth0", "error"),                 # h2 says leaf1:Ethernet0, leaf1 says h1 is there
        ("LNK008", "leaf1", "Ethernet4", "error"),         # leaf1 says h2 is on Ethernet4, h2 says Ethernet0
        ("LNK009", "", "", "warning"),
    ]
    lines = (fabric_dir / "topology.yaml").read_text().splitlines()
    by_code = {f.code: f for f in result.findings}
    assert by_code["LNK009"].source.line == next(n for n, line in enumerate(lines, 1) if "leaf2 Ethernet1 -> h3" in line)
    unknown = next(f for f in result.findings if f.code == "LNK006" and f.device is None)
    assert "link end leaf9:Ethernet0" in unknown.message and "no device leaf9 is among the linted inputs" in unknown.message
    h2 = next(f for f in result.findings if f.code == "LNK008" and f.device == "h2")
    assert h2.devices == ["h2", "leaf1", "h1"] and "h2:eth0 reports neighbour leaf1:Ethernet0" in h2.message
    assert "but leaf1:Ethernet0 reports h1:eth0 (config DEVICE_NEIGHBOR" in h2.message
    assert len(result.fabric.links) == 7  # the 8 good cables but h2's, whose two ends disagree
    assert any(f.code == "PTH001" and f.device == "spine2" for f in result.findings)
    assert not any(f.code == "SYS900" for f in result.findings)


def run_cli(*args):
    return losslessd(*args)


@pytest.mark.parametrize("text,needle", [
    ("links:\n  - a:b <-> c:d\n - bad indent\n", "topology.yaml:3"),
    ("links: [a:b <-> c:d]\nroutng: updown\n", "topology.yaml:2: unknown key 'routng'"),
    ("routing: ospf\n", "topology.yaml:1: routing: expected one of updown, shortest-path, routes"),
    ("links: leaf1:e0 <-> spine1:e0\n", "topology.yaml:1: links: expected a list"),
    ("- just\n- a list\n", "topology.yaml:1: a topology file is a YAML mapping"),
])
def test_unusable_topology_file_exits_2_with_file_and_line(tmp_path, text, needle):
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "topology.yaml").write_text(text)
    res = run_cli("lint", fabric_dir)
    assert res.returncode == 2 and needle in res.stdout + res.stderr, res.stdout + res.stderr


def test_topology_option_names_a_file_outside_the_folders(tmp_path):
    elsewhere = tmp_path / "fabric.yaml"
    elsewhere.write_text("links:\n  - leaf1:Ethernet0 <-> h9:eth0\n")
    res = run_cli("lint", CLOS / "leaf1", "--topology", elsewhere, "--select", "LNK", "-f", "json")
    assert res.returncode == 1 and "no device h9 is among the linted inputs" in res.stdout
    assert run_cli("lint", CLOS / "leaf1", "--topology", tmp_path / "none.yaml").returncode == 2


def test_two_topology_files_are_a_usage_error(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "topology.yaml").write_text("links: []\n")
    with pytest.raises(InputError, match="several topology files"):
        load_fabric([a, b])


FRR_ROUTES = """Codes: K - kernel route, C - connected, S - static, R - RIP,
       O - OSPF, I - IS-IS, B - BGP, E - EIGRP, N - NHRP,
       > - selected route, * - FIB route, q - queued, r - rejected, b - backup

B>* 10.2.0.0/24 [20/0] via 10.1.0.1, Ethernet48, weight 1, 00:05:12
  *                    via 10.1.1.1, Ethernet52, weight 1, 00:05:12
C>* 10.1.0.0/31 is directly connected, Ethernet48, 00:06:01
"""


def test_routing_tables_named_by_the_topology_fill_device_routes(tmp_path):
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "routes").mkdir()
    (fabric_dir / "routes" / "leaf1.txt").write_text(FRR_ROUTES)
    topo = yaml.safe_load((fabric_dir / "topology.yaml").read_text())
    del topo["routing"]
    topo["routes"] = {"leaf1": "routes/leaf1.txt", "leaf7": "routes/leaf1.txt"}
    (fabric_dir / "topology.yaml").write_text(yaml.safe_dump(topo))
    fabric = load_fabric([fabric_dir])
    routes = fabric.devices["leaf1"].routes
    assert [(r.prefix, [h.port for h in r.next_hops]) for r in routes] == [
        ("10.2.0.0/24", ["Ethernet48", "Ethernet52"]), ("10.1.0.0/31", ["Ethernet48"])]
    assert routes[0].source.file.endswith("routes/leaf1.txt")
    assert "leaf1" in fabric.devices and not any("routes" in f for d in fabric.devices.values() for f in d.files)
    assert fabric.routing == "routes"  # routing tables given and no routing declared
    assert [i.code for i in fabric.topology_issues] == ["LNK006"]  # leaf7 is not linted


def test_a_routing_table_whose_prompt_names_another_linted_switch_is_not_used_for_the_one_it_is_named_for(tmp_path):
    """Round 19: `spine1: routes/leaf1.txt` (a copy-paste slip) read leaf1's table as spine1's forwarding, a DLK005 per
    route ("Ethernet48 is not a port of spine1") and paths through spine1 followed by leaf1's routes. Now LNK006 at the
    entry's line, and the table is not spine1's; a prompt naming no linted device (`sonic`) is no contradiction."""
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "routes").mkdir()
    (fabric_dir / "routes" / "leaf1.txt").write_text("leaf1# show ip route\n" + FRR_ROUTES)
    (fabric_dir / "routes" / "leaf2.txt").write_text("sonic# show ip route\n" + FRR_ROUTES)
    topo = yaml.safe_load((fabric_dir / "topology.yaml").read_text())
    topo["routes"] = {"leaf1": "routes/leaf1.txt", "spine1": "routes/leaf1.txt", "leaf2": "routes/leaf2.txt"}
    (fabric_dir / "topology.yaml").write_text(yaml.safe_dump(topo))
    fabric = load_fabric([fabric_dir])
    assert fabric.devices["spine1"].routes == [] and fabric.devices["leaf1"].routes and fabric.devices["leaf2"].routes
    [issue] = fabric.topology_issues
    assert issue.code == "LNK006" and issue.devices == ["spine1"] and issue.source.line
    assert "spine1's routing table" in issue.message and "is leaf1's, as its prompt `leaf1` says" in issue.message


def test_a_routing_table_file_of_two_switches_is_sys001_at_the_second_prompt_and_the_rest_loads(tmp_path):
    """Review of round 12 (session 33): two switches' `| json` tables in one file named as leaf1's routes were merged
    into leaf1's table; now the file is unread (SYS001 at the second switch's prompt) and the fabric still loads."""
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "routes").mkdir()
    doc = '{"vrfs": {"default": {"routes": {"10.2.0.0/24": {"vias": [{"interface": "Ethernet48"}]}}}}}\n'
    (fabric_dir / "routes" / "leaf1.json").write_text(
        f"leaf1#show ip route | json\n{doc}spine1#show ip route | json\n{doc}")
    topo = yaml.safe_load((fabric_dir / "topology.yaml").read_text())
    del topo["routing"]
    topo["routes"] = {"leaf1": "routes/leaf1.json"}
    (fabric_dir / "topology.yaml").write_text(yaml.safe_dump(topo))
    fabric = load_fabric([fabric_dir])
    assert [(i.code, i.source.line) for i in fabric.issues] == [("SYS001", 3)] and fabric.devices["leaf1"].routes == []
    assert "the prompts of 'leaf1' (line 1) and 'spine1' (line 3, " in fabric.issues[0].message


def test_unreadable_lldp_file_is_sys001_and_the_rest_loads(tmp_path):
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "lldp" / "spine1.txt").unlink()
    fabric = load_fabric([fabric_dir])
    assert [i.code for i in fabric.issues] == ["SYS001"] and len(fabric.links) == 8


# -- fuzz: whatever topology.yaml holds, the loader gives findings or an input error -------------------------
ENDPOINTS = st.sampled_from(["leaf1:Ethernet48", "spine1:Ethernet1", "h1:eth0", "leaf1:Ethernet0", "x:y", "leaf1:etp49",
                             "Leaf1.example:ETHERNET52", "spine2:Et1", ":", "leaf1:", "a b:c"])
LINK = st.one_of(st.builds(lambda a, b, arrow: f"{a} {arrow} {b}", ENDPOINTS, ENDPOINTS, st.sampled_from(["<->", "->", "<-><->"])),
                 st.integers(), st.none(), st.lists(st.text(max_size=5), max_size=2), st.text(max_size=20))
TOPOLOGY = st.fixed_dictionaries({}, optional={
    "links": st.one_of(st.lists(LINK, max_size=8), st.text(max_size=10)),
    "tiers": st.dictionaries(st.sampled_from(["leaf1", "spine1", "h1", "nobody"]),
                             st.one_of(st.integers(-2, 12), st.text(max_size=3), st.none()), max_size=3),
    "routing": st.sampled_from(["updown", "shortest-path", "routes", "ospf", 3]),
    "lldp": st.one_of(st.lists(st.sampled_from(["lldp/spine1.txt", "missing.txt", 5]), max_size=2),
                      st.dictionaries(st.sampled_from(["spine1", "spine9"]), st.sampled_from(["lldp/spine1.txt", "x"]))),
    "bogus": st.integers(),
})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=TOPOLOGY, raw=st.one_of(st.none(), st.text(max_size=40)))
def test_any_topology_gives_findings_or_an_input_error(tmp_path_factory, data, raw):
    fabric_dir = tmp_path_factory.mktemp("fuzz")
    for name in ("leaf1", "lldp"):
        shutil.copytree(CLOS / name, fabric_dir / name)
    for name in ("spine1.cfg", "h1.capture"):
        shutil.copy(CLOS / name, fabric_dir / name)
    (fabric_dir / "topology.yaml").write_text(raw if raw is not None else yaml.safe_dump(data))
    try:
        result = lint([fabric_dir], "roce-dscp26")
    except InputError as exc:
        assert exc.file and exc.file.endswith("topology.yaml")
        return
    assert not any(f.code == "SYS900" for f in result.findings), [f.message for f in result.findings]
    for link in result.fabric.links:  # every link joins two known ports
        assert link.a.port in result.fabric.devices[link.a.device].ports
        assert link.b.port in result.fabric.devices[link.b.device].ports


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["leaf1", "spine1", "h1", "ghost", "LEAF1", "spine1.dc"]),
                          st.sampled_from(["Ethernet0", "Ethernet48", "etp1", "Et1", "eth0", "nope"]),
                          st.sampled_from(["leaf1", "spine1", "h1", "ghost"]),
                          st.one_of(st.none(), st.sampled_from(["Ethernet0", "Ethernet1", "eth0", "etp49", "zz"])),
                          st.sampled_from(["lldp", "config"])), max_size=10),
       st.booleans())
def test_any_neighbour_reports_give_links_or_findings(reports, with_topology):
    """Random (even contradictory) LLDP/DEVICE_NEIGHBOR reports: each port ends on at most one link."""
    fabric = load_fabric([CLOS / "leaf1", CLOS / "spine1.cfg", CLOS / "h1.capture"])
    for device in fabric.devices.values():
        device.neighbors = []
    for local, port, remote, rport, origin in reports:
        if local.lower() in fabric.devices:
            fabric.devices[local.lower()].neighbors.append(
                Neighbor(port=port, remote_device=remote, remote_port=rport, origin=origin))
    fabric.links = []
    topology.apply(fabric, topology.from_data({"links": ["leaf1:Ethernet48 <-> spine1:Ethernet1"]}) if with_topology
                   else None)
    ends = [(str(e)) for link in fabric.links for e in (link.a, link.b)]
    assert len(ends) == len(set(ends))
    assert all(i.code in ("LNK006", "LNK007", "LNK008", "LNK009") for i in fabric.topology_issues)


def test_parsers_fill_neighbours_vlans_and_egress_remarks():
    """SONiC DEVICE_NEIGHBOR / VLAN_MEMBER / PORT_QOS_MAP tc_to_dscp_map and EOS switchport / `qos rewrite dscp`."""
    from losslessd.parse import parser_for
    from losslessd.parse.base import Input

    config_db = {
        "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}},  # (a saved config names its release: 202211)
        "PORT": {p: {"alias": f"etp{i}", "speed": "100000"} for i, p in enumerate(("Ethernet0", "Ethernet4", "Ethernet8"))},
        "VLAN_MEMBER": {"Vlan1000|Ethernet4": {"tagging_mode": "untagged"}, "Vlan20|PortChannel1": {},
                        "Vlan7000|Ethernet0": {}},
        "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet8": {}},
        "TC_TO_DSCP_MAP": {"TUNNEL": {"3": "2", "4": "6"}},
        "PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp_map": "TUNNEL"}},
        "DEVICE_NEIGHBOR": {"Ethernet0": {"name": "ARISTA01T1", "port": "Ethernet1"}, "Ethernet4": {"port": "x"},
                            # the neighbour-keyed shape (sonic-yang-models doc/Configuration.md, "L2 Neighbors")
                            "ARISTA04T1": {"local_port": "Ethernet8", "port": "Ethernet1", "type": "LeafRouter"}},
    }
    sonic = parser_for("sonic").parse([Input("config_db.json", json.dumps(config_db, indent=1))], "t0")
    assert {n: p.vlans for n, p in sonic.ports.items()} == {"Ethernet0": [], "Ethernet4": [1000], "Ethernet8": [20]}
    assert sonic.ports["Ethernet0"].alias == "etp0" and sonic.ports["Ethernet0"].tc_to_dscp_rewrite == {3: 2, 4: 6}
    assert [(n.port, n.remote_device, n.remote_port, n.origin) for n in sonic.neighbors] == [
        ("Ethernet0", "ARISTA01T1", "Ethernet1", "config"), ("Ethernet8", "ARISTA04T1", "Ethernet1", "config")]
    assert sorted(i.message.split(";")[0] for i in sonic.issues) == [
        "DEVICE_NEIGHBOR|Ethernet4 has neither a name nor a local_port",
        "VLAN_MEMBER key 'Vlan7000|Ethernet0' is not Vlan<1-4094>|<port>"]

    eos = parser_for("arista_eos").parse([Input("leaf.cfg", "\n".join([
        "hostname leaf", "qos rewrite dscp", "qos map traffic-class 3 to dscp 2",
        "interface Ethernet1", "   no switchport", "interface Ethernet2", "   switchport access vlan 30",
        "interface Ethernet3", "   switchport mode trunk", "   switchport trunk allowed vlan 10-12,20",
        "   switchport trunk allowed vlan remove 11", "interface Ethernet4", "   description default access port",
        "interface Ethernet5", "   switchport mode trunk", "interface Ethernet6", "   switchport trunk allowed vlan 5000",
        ""]))], "leaf")
    assert {n: (p.vlans if p.vlans is None or len(p.vlans) < 10 else len(p.vlans)) for n, p in eos.ports.items()} == {
        "Ethernet1": [], "Ethernet2": [30], "Ethernet3": [10, 12, 20], "Ethernet4": [1], "Ethernet5": 4094,
        "Ethernet6": [1]}
    assert eos.ports["Ethernet1"].tc_to_dscp_rewrite == {3: 2}  # TCs without a map entry: EOS's default, unknown
    assert [i.source.line for i in eos.issues] == [17]  # VLAN 5000 does not exist


def test_lldp_file_of_another_platforms_format_confirms_the_same_cables(tmp_path):
    """spine1's neighbours as an NX-OS-style table (short `Eth1` local names) give the links the EOS table gave."""
    fabric_dir = clos_copy(tmp_path)
    before = load_fabric([fabric_dir])
    (fabric_dir / "lldp" / "spine1.txt").write_text(
        "spine1# show lldp neighbors\nDevice ID            Local Intf      Hold-time  Capability  Port ID\n"
        "leaf1.fabric.example\n                     Eth1            120        BR          etp49\n"
        "leaf2.fabric.example Eth2            120        BR          Ethernet49\n"
        "oob-sw1              mgmt0           120        B           Gi1/0/3\nTotal entries displayed: 3\n")
    fabric = load_fabric([fabric_dir])
    assert not fabric.issues and not fabric.devices["spine1"].issues
    assert [(n.port, n.remote_device, n.remote_port) for n in fabric.devices["spine1"].neighbors] == [
        ("Ethernet1", "leaf1.fabric.example", "etp49"), ("Ethernet2", "leaf2.fabric.example", "Ethernet49"),
        ("mgmt0", "oob-sw1", "Gi1/0/3")]
    cables = [[(str(x.a), str(x.b), x.origin) for x in f.links] for f in (fabric, before)]
    assert cables[0] == cables[1]
    assert [i.code for i in fabric.topology_issues] == [i.code for i in before.topology_issues]


def test_lldp_file_of_no_known_format_is_sys001_on_its_device(tmp_path):
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "lldp" / "spine1.txt").write_text("spine1> show lldp neighbors interface xe-0/0/1\n"
                                                    "LLDP Neighbor Information:\nLocal Interface    : xe-0/0/1\n")
    fabric = load_fabric([fabric_dir])
    issues = fabric.devices["spine1"].issues
    assert [(i.code, i.source.line) for i in issues] == [("SYS001", 1)] and "lldp/spine1.txt" in issues[0].message
    assert len(fabric.links) == 8


def test_an_lldp_file_listed_again_is_dropped_where_the_topology_is_read(tmp_path):
    """The same file listed again without a device (by the same name, or another spelling of its path) is one entry
    of the topology: read, resolved and parsed once, its neighbours once."""
    fabric_dir = clos_copy(tmp_path)
    before = load_fabric([fabric_dir])
    top = fabric_dir / "topology.yaml"
    top.write_text(top.read_text().replace(
        "lldp: [lldp/spine1.txt]",
        "lldp: [lldp/spine1.txt, lldp/spine1.txt, ./lldp/spine1.txt, lldp/../lldp/spine1.txt, /etc/hostname,"
        " /etc/hostname]"))
    topo = topology.read(top)
    assert [(d, p.name, line) for d, p, line in topo.lldp] == [(None, "spine1.txt", 13)]
    assert topo.files == {str((fabric_dir / "lldp" / "spine1.txt").resolve())}
    assert [i.code for i in topo.issues] == ["LNK009"]  # /etc/hostname: outside, said once
    fabric = load_fabric([fabric_dir])
    assert fabric.devices["spine1"].neighbors == before.devices["spine1"].neighbors
    assert len(fabric.links) == 8


def test_lldp_file_for_a_device_not_linted_keeps_its_baseline_key(tmp_path):
    """LNK006 for `lldp: {DEVICE: FILE}` naming a device not linted is keyed by the file, as before the file was left
    unread: baselines (fingerprints) made then still match."""
    fabric_dir = clos_copy(tmp_path)
    top = fabric_dir / "topology.yaml"
    top.write_text(top.read_text().replace("lldp: [lldp/spine1.txt]", "lldp: {spine9: lldp/spine1.txt}"))
    fabric = load_fabric([fabric_dir])
    issue, = [i for i in fabric.topology_issues if i.code == "LNK006"]
    assert issue.key == f"lldp|{display_path(fabric_dir / 'lldp' / 'spine1.txt')}"
    assert "lldp: spine9 is not among the linted devices" in issue.message


def test_lldp_detail_typed_short_confirms_its_cable_and_an_unheld_port_is_said(tmp_path):
    """A per-interface detail typed short (`eth1`) is spine1's Ethernet1; a neighbour that is a linted device, on a
    port spine1's input does not hold, is LNK006 naming the file, line and port (it was dropped without a word). An
    out-of-band switch on a management port (Ma1, not linted) stays unsaid."""
    fabric_dir = clos_copy(tmp_path)
    lldp_file = fabric_dir / "lldp" / "spine1.txt"
    block = "Chassis id: 5c83.8f12.3400\nPort id: etp49\nSystem Name: leaf1.fabric.example\nTime remaining: 101 s\n"
    lldp_file.write_text(f"spine1# show lldp neighbors interface eth1 detail\n{block}")
    fabric = load_fabric([fabric_dir])
    assert [(n.port, n.remote_device) for n in fabric.devices["spine1"].neighbors] == [
        ("Ethernet1", "leaf1.fabric.example")]
    assert fabric.topology_issues == [] and not fabric.devices["spine1"].issues
    lldp_file.write_text(f"spine1# show lldp neighbors interface eth7 detail\n{block}"
                         "spine1# show lldp neighbors interface Ma1 detail\n"
                         "Chassis id: 0c42.a100.0009\nPort id: Gi1/0/3\nSystem Name: oob-sw1\n")
    fabric = load_fabric([fabric_dir])
    issue, = fabric.topology_issues
    assert (issue.code, issue.severity, issue.port, issue.source.line) == ("LNK006", "warning", "Ethernet7", 2)
    assert issue.source.file.endswith("lldp/spine1.txt")
    assert "has no port Ethernet7" in issue.message and "leaf1.fabric.example:etp49" in issue.message
    assert len(fabric.links) == 8  # the topology's links stand


def test_port_names_fold_case_only_where_the_platform_takes_any_case(tmp_path):
    """EOS (spine1) takes an interface name in any case: a per-interface detail typed `ETH1` is its Ethernet1 (it was
    `ETH1`, a port spine1 lacks: LNK006). SONiC (leaf1) names ports by case-sensitive CONFIG_DB keys: a report of its
    port `ethernet48` is no port of it (it was taken for Ethernet48 and made a link)."""
    fabric_dir = clos_copy(tmp_path)
    block = "Chassis id: 5c83.8f12.3400\nPort id: etp49\nSystem Name: leaf1.fabric.example\nTime remaining: 101 s\n"
    (fabric_dir / "lldp" / "spine1.txt").write_text(f"spine1# show lldp neighbors interface ETH1 detail\n{block}")
    fabric = load_fabric([fabric_dir])
    assert [n.port for n in fabric.devices["spine1"].neighbors] == ["Ethernet1"]
    assert fabric.topology_issues == []

    fabric = load_fabric([CLOS / "leaf1", CLOS / "spine1.cfg", CLOS / "h1.capture"])
    fabric.devices["spine1"].neighbors = [Neighbor(port="ETHERNET2", remote_device="h1", remote_port="eth0",
                                                   origin="lldp")]
    fabric.devices["leaf1"].neighbors = [Neighbor(port="ethernet48", remote_device="spine1", remote_port="ethernet1",
                                                  origin="lldp")]
    fabric.devices["h1"].neighbors = []
    fabric.links = []
    topology.apply(fabric, None)
    assert [(str(link.a), str(link.b)) for link in fabric.links] in ([("spine1:Ethernet2", "h1:eth0")],
                                                                     [("h1:eth0", "spine1:Ethernet2")])
    assert [(i.code, i.port) for i in fabric.topology_issues] == [("LNK006", "ethernet48")]


def test_a_cable_listed_many_times_is_one_finding_counting_every_repeat(tmp_path):
    """Hostile round 19: the third and later listings of a cable were dropped uncounted."""
    fabric_dir = clos_copy(tmp_path)
    topo = fabric_dir / "topology.yaml"
    text = topo.read_text()
    repeat = "  - leaf2:Ethernet49 <-> spine1:Ethernet2\n"
    topo.write_text(text.replace("routing: updown\n", repeat * 3 + "  - spine1:Ethernet2 <-> leaf2:Ethernet49\n"
                                 "routing: updown\n"))
    lines = topo.read_text().splitlines()
    at = [n for n, line in enumerate(lines, 1) if "leaf2:Ethernet49" in line]
    assert len(at) == 5
    found = [f for f in lint([fabric_dir], "roce-dscp26").findings if f.code == "LNK007"]
    assert len(found) == 1
    name = display_path(topo)
    assert found[0].source.line == at[1]
    assert (f"is listed again; it was first given at {name}:{at[0]}; said 3 more times ({name}:{at[2]}, "
            f"{name}:{at[3]}, {name}:{at[4]})") in found[0].message


def test_a_short_name_two_devices_share_names_neither_and_a_longer_one_its_own(tmp_path):
    """`leaf1.pod1` and `leaf1.pod2`: the short name `leaf1` was leaf1.pod1's (the first device having it), so
    leaf1.pod2's own routing table, captured at its prompt `leaf1#`, was LNK006 "is leaf1.pod1's" and not used, and an
    LLDP neighbour `leaf1.pod2.fabric.example` was looked up on leaf1.pod1. Now `leaf1` names neither device and a
    dotted name its longest known leading part."""
    fabric_dir = clos_copy(tmp_path)
    (fabric_dir / "leaf1").rename(fabric_dir / "leaf1.pod1")
    (fabric_dir / "leaf2.cfg").rename(fabric_dir / "leaf1.pod2.cfg")
    for path in fabric_dir.rglob("*"):
        if path.is_file() and path.suffix != ".capture":
            text = path.read_text()
            renamed = re.sub(r"\bleaf2\b", "leaf1.pod2", re.sub(r"\bleaf1\b", "leaf1.pod1", text))
            if renamed != text:
                path.write_text(renamed)
    (fabric_dir / "routes").mkdir()
    (fabric_dir / "routes" / "pod2.txt").write_text("leaf1# show ip route\n" + FRR_ROUTES)
    topo = yaml.safe_load((fabric_dir / "topology.yaml").read_text())
    topo["routes"] = {"leaf1.pod2": "routes/pod2.txt"}
    (fabric_dir / "topology.yaml").write_text(yaml.safe_dump(topo))
    fabric = load_fabric([fabric_dir])
    assert {"leaf1.pod1", "leaf1.pod2"} <= set(fabric.devices)
    assert fabric.devices["leaf1.pod2"].routes
    assert not [i.message for i in fabric.topology_issues if "leaf1.pod1" in i.message]


def test_a_cable_listed_past_the_shown_places_counts_them_all_and_names_four(tmp_path):
    """Review of k-dlktiers: past four repeats the count keeps going and the places stop at four, then '...'."""
    fabric_dir = clos_copy(tmp_path)
    topo = fabric_dir / "topology.yaml"
    repeat = "  - leaf2:Ethernet49 <-> spine1:Ethernet2\n"
    topo.write_text(topo.read_text().replace("routing: updown\n", repeat * 8 + "routing: updown\n"))
    at = [n for n, line in enumerate(topo.read_text().splitlines(), 1) if "leaf2:Ethernet49" in line]
    assert len(at) == 9
    found = [f for f in lint([fabric_dir], "roce-dscp26").findings if f.code == "LNK007"]
    assert len(found) == 1
    name = display_path(topo)
    places = ", ".join(f"{name}:{n}" for n in at[2:6])
    assert f"; said 7 more times ({places}, ...)" in found[0].message
