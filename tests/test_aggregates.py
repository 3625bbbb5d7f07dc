"""Link aggregates and routed VLAN interfaces as the path engine sees them: routes and links through a SONiC
PortChannel, an EOS Port-Channel, a Junos ae and an NX-OS port-channel go over the members, and a Junos irb unit's
connected route delivers to the VLAN's member ports (fixtures/topology/lag, written from the vendors' guides named in
its files). Before, each of those hops was "not a port" or "its member cables are not known": the deadlock analysis
left the traffic out (DLK005) and the path rules could not follow it (PTH001 unverified)."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import fix
from losslessd.api import lint
from losslessd.deadlock.analysis import analyse
from losslessd.fabric import load_fabric
from losslessd.fix.apply import SHAPES
from losslessd.lint.finding import Severity
from losslessd.model import Incompatible, Watchdog
from losslessd.parse import junos
from losslessd.parse.base import Input
from losslessd.policy import load_policy
from losslessd.render import device_facts
from tests.conftest import FIXTURES
from tests.test_paths import CLOCKWISE, assert_same_paths, pth_turns, ring_with_routes, routes_via_po10

LAG = FIXTURES / "topology" / "lag"


def test_routes_through_every_kind_of_aggregate_and_an_irb_are_followed():
    """leaf1 (SONiC) routes h2's prefix via PortChannel0001, spine1 (EOS) via Port-Channel10/20, leaf2 (Junos) h1's
    via ae0.0 and delivers h2's on irb.5 (VLAN 100, whose member et-0/0/4 is h2's port). Every hop goes over the
    aggregate's members, hashed as ECMP paths, and both hosts are reached: no DLK005, no unverified PTH001."""
    fabric = load_fabric([LAG])
    leaf1, spine1, leaf2 = (fabric.devices[n] for n in ("leaf1", "spine1", "leaf2"))
    assert {p.name: p.bundle for p in leaf1.ports.values() if p.bundle} == {
        "Ethernet48": "PortChannel0001", "Ethernet52": "PortChannel0001"}
    assert {p.name: p.bundle for p in spine1.ports.values()} == {
        "Ethernet1": "Port-Channel10", "Ethernet2": "Port-Channel10", "Ethernet3": "Port-Channel20",
        "Ethernet4": "Port-Channel20"}
    assert {p.name: (p.bundle, p.vlans) for p in leaf2.ports.values()} == {
        "et-0/0/0": ("ae0", []), "et-0/0/1": ("ae0", []), "et-0/0/4": (None, [100])}  # (ae0 routed untagged)
    assert leaf2.vlan_interfaces == {"irb.5": 100}
    a = analyse(fabric, [3], [26])
    assert a.bad_hops == []
    turns, delivered = pth_turns(fabric)
    assert delivered == {("h1", "eth0"), ("h2", "eth0")}
    # h1 -> h2 crosses spine1 from either member of Port-Channel10 to either member of Port-Channel20, and back
    assert {t for t in turns if t[0] == "spine1"} == {
        ("spine1", i, o) for i, o in [(a, b) for a in ("Ethernet1", "Ethernet2") for b in ("Ethernet3", "Ethernet4")]
        + [(b, a) for a in ("Ethernet1", "Ethernet2") for b in ("Ethernet3", "Ethernet4")]}
    result = lint([LAG], "roce-dscp26", select_codes=["DLK005", "PTH001", "DLK003", "PFC005"])
    assert [(f.code, f.device, f.port) for f in result.findings] == []


def _lag_with(tmp_path: Path, edit) -> Path:
    """A copy of the LAG fixture whose leaf1 CONFIG_DB ``edit`` changed in place."""
    lag = tmp_path / "lag"
    shutil.copytree(LAG, lag)
    config = lag / "leaf1" / "config_db.json"
    db = json.loads(config.read_text())
    edit(db)
    config.write_text(json.dumps(db, indent=4))
    return lag


def test_a_member_without_pfc_is_named_with_its_aggregate(tmp_path):
    """leaf1's Ethernet52 loses its PORT_QOS_MAP entry (PFC off, not RoCE-facing under the selection, so PFC001 does
    not look at it): the flows PortChannel0001 hashes onto it are lossy. PFC005 names the aggregate and the member
    that pauses; the path rule sees the same gap on the traffic that takes Ethernet52."""
    lag = _lag_with(tmp_path, lambda db: db["PORT_QOS_MAP"].pop("Ethernet52"))
    result = lint([lag], "roce-dscp26", select_codes=["PFC001", "PFC005"])
    assert [(f.code, f.device, f.port, f.data.get("aggregate"), f.data.get("member")) for f in result.findings] == [
        ("PFC005", "leaf1", "Ethernet52", "PortChannel0001", "Ethernet48")]
    assert "the flows the aggregate hashes onto Ethernet52 are dropped under congestion" in result.findings[0].message


def test_eos_members_take_no_vlan_of_their_own_and_only_nxos_junos_render_on_the_aggregate():
    """An EOS `channel-group` member's VLANs are its port-channel's: spine1's are routed (none), not VLAN 1's (DLK003
    read its four routed members as flooding to each other in VLAN 1). NX-OS attaches a port's policies on its
    port-channel and Junos binds a member's CoS on its aeN: the renderer groups members there (SONiC and EOS keep
    per-member settings)."""
    fabric = load_fabric([LAG])
    assert [p.vlans for p in fabric.devices["spine1"].ports.values()] == [[]] * 4  # (routed port-channels)
    policy = load_policy("roce-dscp26")
    for name, bundles in (("leaf1", {None}), ("spine1", {None}), ("leaf2", {"ae0", None})):
        facts, _ = device_facts(fabric.devices[name], policy)
        assert {f.bundle for f in facts} == bundles, name


def test_eos_members_carry_their_port_channels_vlans(tmp_path):
    """An EOS port-channel's switchport lines are its members' VLANs: Port-Channel30 trunks VLAN 100 over Ethernet6-7,
    Ethernet5 is an access port in VLAN 100, all lossless: DLK003 on Ethernet5 (flooded to the port-channel) and on
    the members (flooded to Ethernet5), which read None before (no DLK003). A member of a port-channel with no block
    keeps unknown VLANs; spine1's routed port-channels give their members none."""
    text = (LAG / "spine1.cfg").read_text() + "\n".join([
        "interface Port-Channel30",
        "   switchport mode trunk",
        "   switchport trunk allowed vlan 100,200",
        "!",
        "interface Ethernet5",
        "   speed 100g",
        "   switchport access vlan 100",
        "   service-profile ROCE_LOSSLESS",
        "!",
        *(line for n in (6, 7) for line in (
            f"interface Ethernet{n}", "   speed 100g", "   channel-group 30 mode active",
            "   service-profile ROCE_LOSSLESS", "!")),
        "interface Ethernet8",
        "   speed 100g",
        "   channel-group 40 mode active",
        "   service-profile ROCE_LOSSLESS",
        "!",
    ]) + "\n"
    path = tmp_path / "spine1.cfg"
    path.write_text(text)
    result = lint([path], "roce-dscp26", select_codes=["DLK003"])
    (device,) = result.fabric.devices.values()
    assert {n: (p.bundle, p.vlans) for n, p in device.ports.items()} == {
        "Ethernet1": ("Port-Channel10", []), "Ethernet2": ("Port-Channel10", []), "Ethernet3": ("Port-Channel20", []),
        "Ethernet4": ("Port-Channel20", []), "Ethernet5": (None, [100]), "Ethernet6": ("Port-Channel30", [100, 200]),
        "Ethernet7": ("Port-Channel30", [100, 200]), "Ethernet8": ("Port-Channel40", None)}
    assert [(f.code, f.port) for f in result.findings] == [
        ("DLK003", "Ethernet5"), ("DLK003", "Ethernet6"), ("DLK003", "Ethernet7")]


def test_junos_fix_binds_a_members_cos_on_its_aggregate(tmp_path):
    """leaf2's ae0 takes a congestion-notification-profile without PFC on DSCP 26: its members et-0/0/0-1 run it (the
    aggregate's CoS over the member's own), so PFC001 on both. The fix binds the PFC profile, the classifier and the
    scheduler-map on ae0, once, the member-free et-0/0/4 on itself; config + snippet lints with no PFC001 (a fix bound
    on the members, as before, left ae0's profile winning: "still there after the fix")."""

    path = tmp_path / "leaf2.cfg"
    text = (LAG / "leaf2.cfg").read_text()
    path.write_text(text + "set class-of-service congestion-notification-profile off-cnp input dscp code-point "
                    "000000 pfc\nset class-of-service interfaces ae0 congestion-notification-profile off-cnp\n")
    before = lint([path], "roce-dscp26", select_codes=["PFC001"])
    assert [(f.code, f.port) for f in before.findings] == [("PFC001", "et-0/0/0"), ("PFC001", "et-0/0/1")]
    result = fix.plan(before, unsafe=True, model="qfx5120-48y")
    (dev,) = result.devices
    assert dev.message is None and dev.verified and not dev.unresolved, (dev.message, dev.unresolved)
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    bound = [line for line in snippet.split("\n") if line.startswith("set class-of-service interfaces ")]
    assert bound == ["set class-of-service interfaces ae0 unit 0 classifiers dscp roce-dscp",
                     "set class-of-service interfaces ae0 congestion-notification-profile roce-pfc-3"]
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    pasted.write_text(path.read_text() + snippet)
    assert [f.code for f in lint([pasted], "roce-dscp26", select_codes=["PFC001"]).findings] == []


def test_junos_reads_members_vlans_and_irb_units():
    """Junos: `ether-options 802.3ad aeN` and `gigether-options 802.3ad aeN` make members (`802.3ad lacp ...` does
    not); a member switches its aggregate's VLANs; `vlan members` by name, ID or range; an IRB unit routes the VLAN
    whose `l3-interface` it is (its unit number need not be the VLAN ID); a VLAN name no `vlan-id` defines is one
    SYS002 at its line."""
    text = "\n".join([
        "set system host-name j1",
        "set interfaces et-0/0/0 ether-options 802.3ad ae3",
        "set interfaces xe-0/0/1 gigether-options 802.3ad ae3",
        "set interfaces et-0/0/2 ether-options 802.3ad lacp force-up",
        "set interfaces ae3 unit 0 family ethernet-switching vlan members [ servers 30-31 ]",
        "set interfaces et-0/0/5 unit 0 family ethernet-switching vlan members [ 7 nosuch ]",
        "set interfaces et-0/0/6 unit 0 family inet address 10.9.0.0/31",
        "set interfaces et-0/0/7 unit 0 family ethernet-switching vlan members nosuch",
        "set vlans servers vlan-id 200",
        "set vlans servers l3-interface irb.12",
        "set vlans lab interface et-0/0/6.0",
        "set vlans lab vlan-id 300",
    ])
    device = junos.parse([Input("j1.conf", text + "\n")], "j1")
    assert {p.name: (p.bundle, p.vlans) for p in device.ports.values()} == {
        "et-0/0/0": ("ae3", [30, 31, 200]), "xe-0/0/1": ("ae3", [30, 31, 200]), "et-0/0/2": (None, None),
        "et-0/0/5": (None, [7]), "et-0/0/6": (None, [300]), "et-0/0/7": (None, None)}
    assert device.vlan_interfaces == {"irb.12": 200}
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 6)]
    assert "vlan members nosuch" in device.issues[0].message


def test_junos_reads_vlans_of_routing_instances_and_reports_unknown_names_once():
    """EVPN-VXLAN leaves define their VLANs in a routing instance (`routing-instances evpn-1 vlans vn400 vlan-id 400`,
    Junos `vlans` at [edit routing-instances routing-instance-name]), in the set and the curly-brace form: a trunk's
    names resolve there (the unit's own instance first), its IRB units route them. Names nothing defines are one
    SYS002 for the device, naming the first three and the count (a JVD trunk names hundreds: one per name flooded
    the report, 600 on one leaf)."""
    set_form = "\n".join([
        "set system host-name j2",
        "set interfaces et-0/0/0 ether-options 802.3ad ae1",
        "set interfaces ae1 unit 0 family ethernet-switching vlan members [ vn400 vn401 ]",
        "set interfaces et-0/0/3 unit 0 family ethernet-switching vlan members [ vn400 gone1 gone2 gone3 gone4 ]",
        "set routing-instances evpn-1 instance-type mac-vrf",
        "set routing-instances evpn-1 interface ae1.0",
        "set routing-instances evpn-1 vlans vn400 vlan-id 400",
        "set routing-instances evpn-1 vlans vn400 l3-interface irb.400",
        "set routing-instances evpn-1 vlans vn401 vlan-id 401",
        "set routing-instances other vlans vn400 vlan-id 900",
        "set vlans vn401 vlan-id 33",
    ])
    device = junos.parse([Input("j2.conf", set_form + "\n")], "j2")
    # ae1.0 is evpn-1's: vn401 is 401 there (not the top level's 33); et-0/0/3 is in no instance and vn400 is defined
    # with two IDs (evpn-1 400, other 900) and not at the top level: not known, as gone1-4
    assert {p.name: (p.bundle, p.vlans) for p in device.ports.values()} == {
        "et-0/0/0": ("ae1", [400, 401]), "et-0/0/3": (None, None)}
    assert device.vlan_interfaces == {"irb.400": 400}
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4)]
    message = device.issues[0].message
    assert "vlan members vn400, gone1, gone2 and 2 more (5 names): no `vlans NAME vlan-id N`" in message

    brace_form = """system {
    host-name j3;
}
interfaces {
    et-0/0/5 {
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
                vlan {
                    members [ vn400 vn401 ];
                }
            }
        }
    }
}
routing-instances {
    evpn-1 {
        instance-type mac-vrf;
        interface et-0/0/5.0;
        vlans {
            vn400 {
                vlan-id 400;
                l3-interface irb.7;
            }
            vn401 {
                vlan-id 401;
            }
        }
    }
}
"""
    device = junos.parse([Input("j3.conf", brace_form)], "j3")
    assert device.ports["et-0/0/5"].vlans == [400, 401]
    assert device.vlan_interfaces == {"irb.7": 400}
    assert device.issues == []


def _nxos_capture(tmp_path: Path, sections: str) -> Path:
    config = Path("tests/fixtures/raw/cisco_nxos/roce-capture.txt").read_text()
    path = tmp_path / "nx-leaf4.txt"
    path.write_text(config + sections)
    return path


# Cisco Nexus 9000 Interfaces Configuration Guide, "Configuring Port Channels" (verifying: `show interface
# port-channel channel-number`): the port-channel's block, its members on one line. Written by us in that shape.
SHOW_PO10 = """#% command: show interface port-channel 10
port-channel10 is up
admin state is up,
  Hardware: Port-Channel, address: 00de.fb11.2233 (bia 00de.fb11.2233)
  MTU 9216 bytes, BW 200000000 Kbit , DLY 10 usec
  Encapsulation ARPA, medium is broadcast
  full-duplex, 100 Gb/s
  Input flow-control is off, output flow-control is off
  Members in this channel: Eth1/51, Eth1/52
  Last clearing of "show interface" counters never
#% command: sh int po20
port-channel20 is down (No operational members)
admin state is up,
  Hardware: Port-Channel, address: 00de.fb11.2234 (bia 00de.fb11.2234)
  Members in this channel: Eth1/55
"""


def test_nxos_show_interface_port_channel_members_are_read(tmp_path):
    """`show interface port-channel N` in an NX-OS capture: the members line of a port-channel that is up (its
    members carry its traffic), none of one that is down. The summary, whose flags say which members are up, wins
    where it lists the port-channel; a port-channel neither shows keeps its config's members."""
    device = load_fabric([_nxos_capture(tmp_path, SHOW_PO10)]).devices["nx-leaf4"]
    assert device.bundle_members_shown == {"port-channel10": ["Ethernet1/51", "Ethernet1/52"], "port-channel20": []}
    assert device.bundle_members is None
    assert not [i for i in device.issues if "port-channel" in i.message]
    garbled = SHOW_PO10.replace("Eth1/51, Eth1/52", "Eth1/51, (?)")
    device = load_fabric([_nxos_capture(tmp_path, garbled)]).devices["nx-leaf4"]
    assert device.bundle_members_shown == {"port-channel10": None, "port-channel20": []}
    [issue] = [i for i in device.issues if "port-channel" in i.message]
    line = (tmp_path / "nx-leaf4.txt").read_text().splitlines().index("  Members in this channel: Eth1/51, (?)") + 1
    assert (issue.code, issue.source.line) == ("SYS002", line)
    assert "a route through it is not followed" in issue.message
    # ... and it is not: a route via Port-Channel10 of a switch whose config makes Ethernet1 its member stays
    # unverified (it went over the config's members before, which the unread line may not list)
    fabric = ring_with_routes(s1_routes=routes_via_po10())
    fabric.devices["s1"].ports["Ethernet1"].bundle = "Port-Channel10"
    fabric.devices["s1"].bundle_members_shown = device.bundle_members_shown
    assert {b.why for b in analyse(fabric, [3], [26]).bad_hops} == {
        "Port-Channel10 is a port-channel or VLAN interface; its member cables are not known"}
    fabric.devices["s1"].bundle_members_shown = None  # (shown nowhere: the config's member carries it)
    assert analyse(fabric, [3], [26]).bad_hops == []


def test_nxos_empty_show_interface_port_channel_is_a_switch_without_port_channels(tmp_path):
    """pull sends `show interface port-channel` to every NX-OS switch; one without port-channels answers nothing. That
    empty answer is no port-channels (no issue; it was a SYS002 warning, exit 1). An empty answer to a command naming
    a port-channel, or output with no block, still is a SYS002."""
    device = load_fabric([_nxos_capture(tmp_path, "#% command: show interface port-channel\n\n")]).devices["nx-leaf4"]
    assert [i for i in device.issues if "port-channel" in i.message] == []
    assert device.bundle_members_shown == {}
    for sections in ("#% command: show interface port-channel 10\n\n",
                     "#% command: show interface port-channel\nsomething else entirely\n"):
        device = load_fabric([_nxos_capture(tmp_path, sections)]).devices["nx-leaf4"]
        assert [i.code for i in device.issues if "port-channel" in i.message] == ["SYS002"]


def test_a_route_through_a_port_channel_follows_what_show_interface_lists():
    """The ring's s1 routes through Port-Channel10. The config names no member; `show interface port-channel 10`
    lists Ethernet1: the route goes over it. A summary that lists Po10 wins (here: no member up)."""
    fabric = ring_with_routes(s1_routes=routes_via_po10())
    assert {b.why for b in analyse(fabric, [3], [26]).bad_hops} == {
        "Port-Channel10 is a port-channel or VLAN interface; its member cables are not known"}
    fabric = ring_with_routes(s1_routes=routes_via_po10())
    fabric.devices["s1"].bundle_members_shown = {"port-channel10": ["Ethernet1"]}
    assert_same_paths(fabric, CLOCKWISE)
    fabric = ring_with_routes(s1_routes=routes_via_po10())
    fabric.devices["s1"].bundle_members_shown = {"port-channel10": ["Ethernet1"]}
    fabric.devices["s1"].bundle_members = {"port-channel10": []}
    assert {b.why for b in analyse(fabric, [3], [26]).bad_hops} == {
        "Port-Channel10 has no member up in it (show port-channel summary)"}
    fabric = ring_with_routes(s1_routes=routes_via_po10())
    fabric.devices["s1"].bundle_members_shown = {"port-channel10": []}  # down
    assert {b.why for b in analyse(fabric, [3], [26]).bad_hops} == {
        "Port-Channel10 has no member up in it (show interface port-channel 10)"}


def test_a_topology_link_on_an_aggregate_names_its_members(tmp_path):
    """A cable runs to a member port, never to the aggregate: a topology line `leaf1:PortChannel0001 <-> spine1:Po10`
    is LNK006 naming the members to list (it read as a port the input lacks, with no hint)."""
    lag = tmp_path / "lag"
    shutil.copytree(LAG, lag)
    topo = lag / "topology.yaml"
    topo.write_text(topo.read_text().replace("  - leaf1:Ethernet48 <-> spine1:Ethernet1\n",
                                             "  - leaf1:PortChannel0001 <-> spine1:Po10\n"))
    result = lint([lag], "roce-dscp26", select_codes=["LNK006"])
    assert [f.message for f in result.findings] == [
        "link end leaf1:PortChannel0001 (" + str(topo) + ":7): PortChannel0001 is a link aggregate of leaf1 (members "
        "Ethernet48, Ethernet52), not a port: list each member's cable (`leaf1:Ethernet48 <-> ...`); the link is not "
        "checked",
        "link end spine1:Po10 (" + str(topo) + ":7): Po10 is a link aggregate of spine1 (members Ethernet1, "
        "Ethernet2), not a port: list each member's cable (`spine1:Ethernet1 <-> ...`); the link is not checked"]


def test_junos_members_run_their_aggregates_class_of_service(tmp_path):
    """Junos CoS guide, "Configuring Schedulers on Aggregated Interfaces": CoS bound on aeN applies to every member
    link. leaf2 binds its PFC profile, scheduler-map and classifier on ae0 (and on h2's port): its members et-0/0/0
    and et-0/0/1 pause priority 3 (they read as binding nothing, PFC off: PFC001 on both)."""
    lag = tmp_path / "lag"
    shutil.copytree(LAG, lag)
    config = lag / "leaf2.cfg"
    text = config.read_text()
    config.write_text(text.replace("interfaces et-0/0/* ", "interfaces ae0 ") + "\n".join(
        line.replace("interfaces et-0/0/* ", "interfaces et-0/0/4 ") for line in text.splitlines()
        if "class-of-service interfaces et-0/0/*" in line) + "\n")
    leaf2 = load_fabric([lag]).devices["leaf2"]
    assert {p.name: p.pfc_enabled for p in leaf2.ports.values()} == {"et-0/0/0": [3], "et-0/0/1": [3], "et-0/0/4": [3]}
    result = lint([lag], "roce-dscp26", select_codes=["PFC001", "PFC005", "PTH001"])
    assert [(f.code, f.device, f.port) for f in result.findings] == []


# Cumulus Linux user guide, "Bonding - Link Aggregation" (`nv set interface bond1 bond member swp1-4`; a bond whose
# name does not start with `bond` takes `type bond`) and "RDMA over Converged Ethernet - RoCE" (`nv set qos roce mode
# lossless`): leaf1 as a Cumulus switch whose uplink bond `uplink` holds swp51-52. Written by us from those pages.
NVUE_LEAF1 = """nv set system hostname leaf1
nv set qos roce mode lossless
nv set interface swp1 link mtu 9216
nv set interface uplink type bond
nv set interface uplink bond member swp51-52
nv set interface swp51-52 link mtu 9216
nv set interface swp1,swp51-52 qos pfc-watchdog
"""


def _nvue_lag(tmp_path: Path) -> Path:
    """The lag fabric with leaf1 a Cumulus switch: h1 on swp1, uplink (swp51-52) to spine1, routes via the bond."""
    lag = tmp_path / "lag"
    shutil.copytree(LAG, lag)
    shutil.rmtree(lag / "leaf1")
    (lag / "leaf1.cfg").write_text(NVUE_LEAF1)
    names = {"leaf1:Ethernet0": "leaf1:swp1", "leaf1:Ethernet48": "leaf1:swp51", "leaf1:Ethernet52": "leaf1:swp52"}
    topo = lag / "topology.yaml"
    text = topo.read_text()
    for old, new in names.items():
        text = text.replace(old, new)
    topo.write_text(text)
    routes = lag / "routes" / "leaf1.txt"
    routes.write_text(routes.read_text().replace("PortChannel0001", "uplink").replace("Ethernet0,", "swp1,"))
    return lag


def test_nvue_bond_members_are_an_aggregate_routes_follow(tmp_path):
    """NVUE `bond member` lines make their ports members of the bond (Port.bundle): leaf1's route to h2 via `uplink`
    goes over swp51 and swp52 (before: "uplink is not a port of leaf1", DLK005 and PTH001 unverified), and the
    startup.yaml form (`bond: member: swp51: {}`) reads the same."""
    lag = _nvue_lag(tmp_path)
    leaf1 = load_fabric([lag]).devices["leaf1"]
    assert {p.name: p.bundle for p in leaf1.ports.values()} == {"swp1": None, "swp51": "uplink", "swp52": "uplink"}
    result = lint([lag], "roce-dscp26", select_codes=["DLK005", "PTH001", "PFC005"])
    assert [(f.code, f.device, f.port) for f in result.findings] == []
    turns, delivered = pth_turns(result.fabric)
    assert delivered == {("h1", "eth0"), ("h2", "eth0")}
    assert {t for t in turns if t[0] == "leaf1"} >= {("leaf1", "swp1", "swp51"), ("leaf1", "swp1", "swp52")}
    yaml_form = tmp_path / "startup.yaml"
    yaml_form.write_text("- set:\n    system:\n      hostname: leaf1\n    interface:\n      uplink:\n"
                         "        type: bond\n"
                         "        bond:\n          member:\n            swp51: {}\n            swp52: {}\n")
    leaf1 = load_fabric([yaml_form]).devices["leaf1"]
    assert {p.name: p.bundle for p in leaf1.ports.values()} == {"swp51": "uplink", "swp52": "uplink"}


# Cisco Nexus 9000 Interfaces guide, "Configuring Port Channels" (a port-channel's configuration applies to its
# members; MTU and priority-flow-control are compatibility parameters) and QoS guide, "Configuring Priority Flow
# Control" (`priority-flow-control mode on` in interface mode): PFC, its watchdog and the MTU set on port-channel10,
# its members Ethernet1/51-52 naming none of them. Written by us from those guides.
NXOS_PO10 = """
interface port-channel10
  mtu 9216
  priority-flow-control mode on
  priority-flow-control watch-dog-interval on
  service-policy type qos input PM-QOS-ROCE
  no switchport

interface Ethernet1/51
  speed 100000
  channel-group 10 mode active
  no shutdown

interface Ethernet1/52
  speed 100000
  mtu 1500
  priority-flow-control mode off
  channel-group 10 mode active
  no shutdown
"""


def test_nxos_port_channel_pfc_mtu_and_watchdog_reach_its_members(tmp_path):
    """NX-OS applies a port-channel's configuration to its members: port-channel10's `priority-flow-control mode on`,
    watchdog and MTU are Ethernet1/51's. Before, only the port-channel's service policies were read: both members were
    PFC-auto/off with no watchdog (PFC001, WDG001 on each, PFC005 on 1/52 against none). Ethernet1/52's own `mode off`
    and `mtu 1500` differ from the port-channel's (session 33: it was read as running the port-channel's values):
    PFC007 names both and what the guides say; the model is not in the input, so it is checked with its own values
    (PFC off: PFC001, and PFC005 against Ethernet1/51). The fix binds PFC on the port-channel and on Ethernet1/52's own
    line, and config + snippet lints clean of PFC001 and PFC007 (session 34: before, the member's own `mode off` stayed
    beside the port-channel's new `mode on`, and PFC001 with it)."""
    path = _nxos_capture(tmp_path, "")
    path.write_text(path.read_text().replace("interface Ethernet1/50\n", NXOS_PO10.lstrip() + "\ninterface "
                                             "Ethernet1/50\n", 1))
    device = load_fabric([path]).devices["nx-leaf4"]
    members = {n: (p.bundle, p.pfc_enabled, p.mtu_bytes, p.watchdog.enabled if p.watchdog else None)
               for n, p in device.ports.items() if p.bundle}
    assert members == {"Ethernet1/51": ("port-channel10", [3], 9216, True),
                       "Ethernet1/52": ("port-channel10", [], 1500, True)}
    codes = ["PFC001", "PFC005", "WDG001", "LNK001", "PFC007"]
    assert [(f.code, f.port) for f in lint([path], "roce-dscp26", select_codes=codes).findings
            if f.port in members] == [(code, "Ethernet1/52") for code in ("PFC001", "PFC005", "PFC007")]
    # a fix for a port-channel whose PFC is off binds `priority-flow-control mode on` there, not on the members
    off = tmp_path / "off" / path.name
    off.parent.mkdir()
    off.write_text(path.read_text().replace("  mtu 9216\n  priority-flow-control mode on\n  priority-flow-control "
                                            "watch-dog-interval on\n  service-policy type qos input PM-QOS-ROCE\n  no "
                                            "switchport\n\ninterface Ethernet1/51",
                                            "  priority-flow-control mode off\n  service-policy type qos input "
                                            "PM-QOS-ROCE\n  no switchport\n\ninterface Ethernet1/51"))
    before = lint([off], "roce-dscp26", select_codes=["PFC001"])
    assert {f.port for f in before.findings} >= {"Ethernet1/51", "Ethernet1/52"}
    result = fix.plan(before, unsafe=True, model="N9K-C93180YC-EX")
    (dev,) = result.devices
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    blocks = {b.split("\n", 1)[0]: b for b in ("\n" + snippet).split("\ninterface ")[1:]}
    assert "priority-flow-control mode on" in blocks["port-channel10"]
    # (Ethernet1/52's own `priority-flow-control mode off`, which the switch compares with the port-channel's rather
    # than replace, gets the port-channel's new value; Ethernet1/51 writes none and gets none)
    assert "Ethernet1/51" not in blocks
    assert blocks["Ethernet1/52"].rstrip() == "Ethernet1/52\n  priority-flow-control mode on"
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    queuing = "#% command: show queuing interface\n"  # (the running-config's sections end there)
    pasted.write_text(off.read_text().replace(queuing, snippet + queuing))
    assert lint([pasted], "roce-dscp26", select_codes=["PFC001", "PFC007"]).findings == []


def test_junos_members_take_their_aggregates_mtu_and_link_speed():
    """Junos "Aggregated Ethernet Interfaces Overview" (the LAG is one link: its MTU is the bundle's) and "Configure
    Aggregated Ethernet Link Speed" (`aggregated-ether-options link-speed` is every member's speed): ae0's `mtu 9216`
    and `link-speed 100g` are its members' (IP MTU 9202, 9198 under `vlan-tagging`), over a member's own `mtu 1514`;
    `link-speed mixed` says no speed; a port in no aggregate keeps its own. Before, members read None (or their own).
    ae2's `vlan-tagging` alone (no MTU or speed) reaches its member too: et-0/0/4's own `mtu 9216` is IP MTU 9198
    (it read 9202: an aggregate with neither MTU nor speed was skipped)."""
    text = "\n".join([
        "set system host-name j4",
        "set interfaces et-0/0/0 ether-options 802.3ad ae0",
        "set interfaces et-0/0/1 mtu 1514",
        "set interfaces et-0/0/1 ether-options 802.3ad ae0",
        "set interfaces ae0 mtu 9216",
        "set interfaces ae0 aggregated-ether-options link-speed 100g",
        "set interfaces ae0 unit 0 family inet address 10.0.0.0/31",
        "set interfaces et-0/0/2 ether-options 802.3ad ae1",
        "set interfaces et-0/0/2 speed 25g",
        "set interfaces ae1 vlan-tagging",
        "set interfaces ae1 mtu 9216",
        "set interfaces ae1 aggregated-ether-options link-speed mixed",
        "set interfaces et-0/0/3 mtu 1514",
        "set interfaces et-0/0/3 speed 400g",
        "set interfaces et-0/0/4 mtu 9216",
        "set interfaces et-0/0/4 ether-options 802.3ad ae2",
        "set interfaces ae2 vlan-tagging",
    ])
    device = junos.parse([Input("j4.conf", text + "\n")], "j4")
    assert {p.name: (p.bundle, p.mtu_bytes, p.speed_gbps) for p in device.ports.values()} == {
        "et-0/0/0": ("ae0", 9202, 100.0), "et-0/0/1": ("ae0", 9202, 100.0), "et-0/0/2": ("ae1", 9198, 25.0),
        "et-0/0/3": (None, 1500, 400.0), "et-0/0/4": ("ae2", 9198, None)}
    assert device.issues == []


def test_members_that_classify_queue_or_mark_a_lossless_flow_differently_are_named(tmp_path):
    """PFC005 beyond PFC: 802.1AX hashes a flow onto one member, so what decides a lossless flow's treatment must
    match across members. leaf1's Ethernet52 keeps `pfc_enable: "3"` but is bound to a TC_TO_PRIORITY_GROUP_MAP that
    puts TC 3 in PG 0 and its queue 3 has no WRED profile (no ECN marking), and Ethernet48's watchdog is off.
    Two members tie on every fact: the value the policy asks for is the reference (ECN on: Ethernet52 is named;
    the watchdog on: Ethernet48 is named, as WDG001 names it), and the PG, of which the policy asks nothing, is one
    finding on the aggregate naming both values. Ethernet4 (no aggregate) may differ freely. (Before, the first
    member by port order was the reference: Ethernet52 was blamed for its watchdog, which is on.)"""
    lag = tmp_path / "lag"
    shutil.copytree(LAG, lag)
    config = lag / "leaf1" / "config_db.json"
    db = json.loads(config.read_text())
    db["TC_TO_PRIORITY_GROUP_MAP"]["LOSSY"] = {str(tc): "0" for tc in range(8)}
    db["PORT_QOS_MAP"]["Ethernet52"]["tc_to_pg_map"] = "LOSSY"
    del db["QUEUE"]["Ethernet52|3"]["wred_profile"]
    del db["PFC_WD"]["Ethernet48"]
    db["PORT_QOS_MAP"]["Ethernet4"]["tc_to_pg_map"] = "LOSSY"
    config.write_text(json.dumps(db, indent=4))
    leaf1 = load_fabric([lag]).devices["leaf1"]
    assert [(p.watchdog or Watchdog()).enabled for p in (leaf1.ports["Ethernet48"], leaf1.ports["Ethernet52"])] == [
        False, True]
    result = lint([lag], "roce-dscp26", select_codes=["PFC005", "WDG001"])
    got = sorted((f.code, f.port, f.data.get("member"), tuple(f.data.get("facts", ()))) for f in result.findings
                 if f.device == "leaf1")
    assert got == [
        ("PFC005", "Ethernet48", "Ethernet52", ("the PFC watchdog is",)),
        ("PFC005", "Ethernet52", "Ethernet48", ("ECN marking on queue 3 is",)),
        ("PFC005", "PortChannel0001", None, ("TC 3's PG is",)),
        ("WDG001", "Ethernet48", None, ())]
    by = {f.port: f.message for f in result.findings if f.code == "PFC005"}
    assert "the PFC watchdog is off (Ethernet52: on)" in by["Ethernet48"]
    assert "ECN marking on queue 3 is off (Ethernet48: on)" in by["Ethernet52"]
    assert "TC 3's PG is PG 3 on Ethernet48, PG 0 on Ethernet52" in by["PortChannel0001"]
    assert "give every member the same QoS settings" in by["PortChannel0001"]


def test_a_member_without_a_queue_entry_marks_no_ecn_as_ecn001_reads_it(tmp_path):
    """ECN001 reads a lossless queue with no QUEUE entry as marking no ECN; PFC005 compares members by that reading:
    Ethernet52 without `QUEUE|Ethernet52|3` differs from Ethernet48 (which marks). Before, a member with no entry
    for the queue was left out of the ECN comparison: nothing."""
    lag = _lag_with(tmp_path, lambda db: db["QUEUE"].pop("Ethernet52|3"))
    result = lint([lag], "roce-dscp26", select_codes=["PFC005", "ECN001"])
    got = sorted((f.code, f.port, f.data.get("member"), tuple(f.data.get("facts", ()))) for f in result.findings)
    assert ("PFC005", "Ethernet52", "Ethernet48", ("ECN marking on queue 3 is",)) in got
    assert [f.port for f in result.findings if f.code == "ECN001" and f.device == "leaf1"] == ["Ethernet52"]


def test_eos_trunks_of_the_same_vlans_share_one_list(tmp_path):
    """A trunk allows every VLAN by default (EOS User Manual, switchport trunk allowed vlan): 4,094 VLANs a port. Ports
    trunking the same VLANs (every VLAN; a port-channel's, its members) share one read-only list: 4,000 such ports held
    600 MiB of lists of their own (bench/trunk_vlans.py: 616 MiB -> 23 MiB, DLK003 lint 49 s -> 5 s). DLK003 still
    reports each of them flooding with the others, in VLAN 1-4094."""
    text = "hostname t1\n" + "".join(
        f"interface Ethernet{n}\n   switchport mode trunk\n   priority-flow-control on\n"
        f"   priority-flow-control priority 3 no-drop\n!\n" for n in (1, 2, 3)) + (
        "interface Ethernet4\n   switchport mode trunk\n   switchport trunk allowed vlan 10,20\n!\n")
    path = tmp_path / "t1.cfg"
    path.write_text(text)
    result = lint([path], "roce-dscp26", select_codes=["DLK003"])
    ports = result.fabric.devices["t1"].ports
    assert ports["Ethernet1"].vlans == list(range(1, 4095)) and ports["Ethernet4"].vlans == [10, 20]
    assert ports["Ethernet1"].vlans is ports["Ethernet2"].vlans is ports["Ethernet3"].vlans
    assert [(f.port, f.data["vlans"]) for f in result.findings] == [
        ("Ethernet1", "1-4094"), ("Ethernet2", "1-4094"), ("Ethernet3", "1-4094")]
    assert "floods with Ethernet2, Ethernet3, Ethernet4 in VLAN 1-4094" in result.findings[0].message


def test_dlk003_works_once_per_shared_vlan_subset_not_per_distinct_list(tmp_path, monkeypatch):
    """Ports trunking VLAN 10 and a VLAN of their own hold distinct lists but share one subset (VLAN 10) with the
    others: DLK003 works out who floods together once for that subset. Keyed by list it did so per port (the reviewer's
    3,900 such ports: 17 s; bench/trunk_vlans.py --distinct). Counted by the calls that name the VLANs, not by time."""
    from losslessd.rules import dlk
    text = "hostname t2\n" + "".join(
        f"interface Ethernet{n}\n   switchport mode trunk\n   switchport trunk allowed vlan 10,{100 + n}\n"
        f"   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n!\n" for n in range(1, 41))
    path = tmp_path / "t2.cfg"
    path.write_text(text)
    calls: list[list[int]] = []
    real = dlk.ranges

    def counted(values: list[int]) -> str:
        calls.append(list(values))
        return real(values)

    monkeypatch.setattr(dlk, "ranges", counted)
    result = lint([path], "roce-dscp26", select_codes=["DLK003"])
    assert calls == [[10]]
    assert len(result.findings) == 40 and {f.data["vlans"] for f in result.findings} == {"10"}
    assert "floods with Ethernet2, Ethernet3, Ethernet4, Ethernet5 and 35 more in VLAN 10" in result.findings[0].message


def test_the_members_with_the_policys_value_are_the_reference_however_few(tmp_path):
    """Three members of PortChannel0001, two of them without a watchdog (Ethernet48, Ethernet52), one with it
    (Ethernet4). The policy asks for the watchdog: Ethernet4 is the reference and the two without it are named, as
    WDG001 names them. Before, the majority was the reference whatever the policy said: Ethernet4, the one member
    configured as the policy asks, was named as the odd one out ("the PFC watchdog is on (Ethernet48: off)")."""
    def edit(db: dict) -> None:
        db["PORTCHANNEL_MEMBER"]["PortChannel0001|Ethernet4"] = {}
        del db["PFC_WD"]["Ethernet48"], db["PFC_WD"]["Ethernet52"]
    result = lint([_lag_with(tmp_path, edit)], "roce-dscp26", select_codes=["PFC005"])
    got = sorted((f.port, f.data.get("member"), tuple(f.data.get("facts", ()))) for f in result.findings
                 if f.device == "leaf1")
    assert got == [("Ethernet48", "Ethernet4", ("the PFC watchdog is",)),
                   ("Ethernet52", "Ethernet4", ("the PFC watchdog is",))]
    assert "the PFC watchdog is off (Ethernet4: on)" in result.findings[0].message


def test_eos_trunks_allowing_all_or_all_but_some_share_one_list(tmp_path):
    """`switchport trunk allowed vlan all` and `except 4000` (EOS User Manual, switchport trunk allowed vlan: every
    VLAN, every VLAN but those listed) on each port: before, each line built a set of 4,093-4,094 VLANs and each port a
    sorted list of its own (4,000 such ports: bench/trunk_vlans.py --all-line). Now the lines are kept as written and
    ports whose lines say the same share one list; `remove`/`add` on them, and on a list, read as before."""
    ports = {1: ["all"], 2: ["all"], 3: ["except 4000"], 4: ["except 4000"], 5: ["except 10-4094", "add 20"],
             6: ["remove 3-4094", "add 4094"], 7: ["10,20", "remove 20", "add 30"], 8: ["none"], 9: ["all", "remove 1"]}
    text = "hostname t3\n" + "".join(
        f"interface Ethernet{n}\n   switchport mode trunk\n"
        + "".join(f"   switchport trunk allowed vlan {line}\n" for line in lines) + "!\n" for n, lines in ports.items())
    path = tmp_path / "t3.cfg"
    path.write_text(text)
    got = load_fabric([path]).devices["t3"].ports
    assert got["Ethernet1"].vlans == list(range(1, 4095))
    assert got["Ethernet3"].vlans == [v for v in range(1, 4095) if v != 4000]
    assert got["Ethernet1"].vlans is got["Ethernet2"].vlans and got["Ethernet3"].vlans is got["Ethernet4"].vlans
    assert got["Ethernet5"].vlans == list(range(1, 10)) + [20]
    assert got["Ethernet6"].vlans == [1, 2, 4094]
    assert got["Ethernet7"].vlans == [10, 30]
    assert got["Ethernet8"].vlans == [] and got["Ethernet9"].vlans == list(range(2, 4095))


NXOS_CHANNEL = """hostname nx1
class-map type qos match-all ROCE
  match dscp 26
policy-map type qos QOS_IN
  class ROCE
    set qos-group 3
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
system qos
  service-policy type network-qos NQ
interface port-channel10
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input QOS_IN
interface Ethernet1/49
  channel-group 10 mode active
interface Ethernet1/50
  mtu 1500
  priority-flow-control mode off
  channel-group 10 mode active
interface Ethernet1/51
  mtu 1500
  channel-group 10 force mode active
"""


# `show version` of a Nexus 7000 (its chassis line under "Hardware", as parse.nxos.MODEL reads it). Written by us.
SHOW_VERSION_N7K = "#% command: show version\nHardware\n  cisco Nexus7000 C7010 (10 Slot) Chassis\n"


def _capture(config: str, extra: str = "") -> str:
    """``config`` as an NX-OS capture's `show running-config`, with ``extra`` sections after it."""
    return ("#% losslessd capture 1\n#% device: nx1\n#% platform: cisco_nxos\n#% collected: 2026-12-03T21:00:00Z\n"
            "#% command: show running-config\n" + config + extra)


def test_an_nxos_member_whose_own_mtu_or_pfc_mode_differs_is_named_and_checked_with_its_own_values(tmp_path):
    """Ethernet1/50's own `mtu 1500` and `priority-flow-control mode off` differ from port-channel10's. The NX-OS
    compatibility check compares both (Nexus 7000 Interfaces guide: the MTU size, and a member with an incompatible
    attribute is suspended; Nexus 9000 `show port-channel compatibility-parameters`: members have the same MTU, what
    then is not said; Nexus 5000 guide: also Priority-Flow-Control, what then is not said). With no model in the input
    no source says the member is suspended: PFC007 names both settings, both values and what each guide says; the
    member stays RoCE-facing with its own values (PFC off: PFC001, PFC005 against Ethernet1/49). Ethernet1/49 (no line
    of its own) and the forced Ethernet1/51 take the port-channel's. Before, the member was taken for suspended on
    every NX-OS switch, on the strength of other models' guides, and left out of every other check."""
    path = tmp_path / "nx1.cfg"
    path.write_text(NXOS_CHANNEL)
    result = lint([path], "roce-dscp26", select_codes=["PFC007", "PFC005", "PFC001", "LNK002"], fmt="cisco_nxos")
    ports = result.fabric.devices["nx1"].ports
    assert [(p.name, p.mtu_bytes, p.pfc_enabled) for p in ports.values()] == [
        ("Ethernet1/49", 9216, [3]), ("Ethernet1/50", 1500, []), ("Ethernet1/51", 9216, [3])]
    assert [(f.code, f.port, f.source.line) for f in result.findings] == [
        ("PFC001", "Ethernet1/50", 21), ("PFC005", "Ethernet1/50", 21), ("PFC007", "Ethernet1/50", 20)]
    pfc007 = result.findings[2]
    assert pfc007.data["settings"] == ["mtu", "priority-flow-control mode"]
    assert pfc007.message == (
        "member of port-channel10 whose own settings differ from port-channel10's: mtu 1500 (port-channel10: 9216); "
        "priority-flow-control mode off (port-channel10: on); the Nexus 7000's compatibility check suspends a member "
        "whose MTU differs from its port-channel's (Nexus 7000 Interfaces guide), and then it carries none of the "
        "port-channel's traffic; the Nexus 9000's requires the same MTU on every member; the Nexus 5000's "
        "compatibility check covers Priority-Flow-Control (Nexus 5000 guide); no guide found says whether the switch "
        "suspends such a member; it is checked here with its own values; give Ethernet1/50 the aggregate's values (or "
        "remove its own lines)")
    assert [c.rule for c in result.selection["nx1"]] == ["roce_ports.select"] * 3


def test_a_member_whose_mtu_differs_on_a_nexus_7000_is_suspended(tmp_path):
    """The same configuration in a capture whose `show version` names a Nexus 7000: its Interfaces guide says the
    compatibility check suspends a member whose MTU differs ("the software suspends that port in the port channel").
    Ethernet1/50 is out of the RoCE-facing ports and of PFC005; PFC007 says the switch suspends it and that the
    others carry the aggregate. A Nexus 9000's guide says no such thing: there the member stays in."""
    path = tmp_path / "nx1.txt"
    path.write_text(_capture(NXOS_CHANNEL, SHOW_VERSION_N7K))
    result = lint([path], "roce-dscp26", select_codes=["PFC007", "PFC005", "PFC001"])
    assert result.fabric.devices["nx1"].hardware == "Nexus7000 C7010 (10 Slot)"
    assert [(f.code, f.port) for f in result.findings] == [("PFC007", "Ethernet1/50")]
    assert ("mtu 1500 (port-channel10: 9216); priority-flow-control mode off (port-channel10: on); the switch "
            "(Nexus7000 C7010 (10 Slot)) suspends it: it carries none of port-channel10's traffic and the aggregate's "
            "lossless flows go over Ethernet1/49, Ethernet1/51 alone" in result.findings[0].message)
    assert [c.rule for c in result.selection["nx1"]] == ["roce_ports.select", "suspended", "roce_ports.select"]
    path.write_text(_capture(NXOS_CHANNEL, SHOW_VERSION_N7K.replace("Nexus7000 C7010 (10 Slot)",
                                                                    "Nexus9000 C93180YC-EX")))
    result = lint([path], "roce-dscp26", select_codes=["PFC007", "PFC005", "PFC001"])
    assert [(f.code, f.port) for f in result.findings] == [
        ("PFC001", "Ethernet1/50"), ("PFC005", "Ethernet1/50"), ("PFC007", "Ethernet1/50")]


def _fixed(path: Path, dev: fix.DeviceFix) -> str:
    """The config ``dev``'s printed parts turn ``path`` into, by fix's own apply path (fix.apply SHAPES)."""
    shape = SHAPES["cisco_nxos"]
    text = shape.normalize(path.read_text())
    for part in dev.parts:
        if part.snippet is not None:
            text = shape.apply(text, part.snippet)
    return text


def test_fix_gives_a_member_the_port_channels_mtu_and_pfc_mode_on_its_own_lines(tmp_path):
    """Ethernet1/50's own `mtu 1500` and `priority-flow-control mode off` differ from port-channel10's (PFC007), and
    with PFC off it is PFC001's. A line on the port-channel does not replace a member's own compatibility parameters
    (the Nexus 7000/5000 Interfaces guides: they may be configured on an individual member port, and the check compares
    them), so fix writes the member's lines with the port-channel's values, `mtu 9216` and `priority-flow-control mode
    on`, under `interface Ethernet1/50`. The config with the printed parts applied by fix's own apply path lints clean
    of PFC001 and PFC007. Before, PFC007 had no fix section and PFC001's fix bound PFC on the port-channel only: the
    member's own `mode off` stayed, and PFC001 with it ("still there after the fix")."""
    path = tmp_path / "nx1.cfg"
    path.write_text(NXOS_CHANNEL.replace("  channel-group 10", "  speed 100000\n  channel-group 10"))
    before = lint([path], "roce-dscp26", select_codes=["PFC001", "PFC007"], fmt="cisco_nxos")
    assert [(f.code, f.port) for f in before.findings] == [("PFC001", "Ethernet1/50"), ("PFC007", "Ethernet1/50")]
    safe = fix.plan(before, model="N9K-C93180YC-EX")
    assert [(p.label, p.withheld) for d in safe.devices for p in d.parts] == [("disruptive", True)]
    (dev,) = fix.plan(before, unsafe=True, model="N9K-C93180YC-EX").devices
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    assert "interface Ethernet1/50\n  mtu 9216\n  priority-flow-control mode on\n" in snippet
    assert (dev.verified, dev.unresolved, dev.introduced) == (True, [], [])
    fixed = tmp_path / "fixed" / path.name
    fixed.parent.mkdir()
    fixed.write_text(_fixed(path, dev))
    assert "interface Ethernet1/50\n  mtu 9216\n  priority-flow-control mode on\n" in fixed.read_text()
    after = lint([fixed], "roce-dscp26", select_codes=["PFC001", "PFC007", "PFC005"], fmt="cisco_nxos")
    assert after.findings == []


def test_fix_gives_a_member_only_the_setting_that_differs(tmp_path):
    """A member whose own `priority-flow-control mode off` alone differs gets only `priority-flow-control mode on` (the
    pfc section); one whose own MTU alone differs only `mtu`, the port-channel's (the ports section), and the
    port-channel keeps its MTU where that member is the first (Profile.bundles takes the first member's numbers:
    render.device_facts gives a member whose own MTU differs the port-channel's)."""
    path = tmp_path / "nx1.cfg"
    path.write_text(NXOS_CHANNEL.replace("  channel-group 10", "  speed 100000\n  channel-group 10").replace(
        "interface Ethernet1/50\n  mtu 1500\n", "interface Ethernet1/50\n"))
    (dev,) = fix.plan(lint([path], "roce-dscp26", select_codes=["PFC007"], fmt="cisco_nxos"), unsafe=True,
                      model="N9K-C93180YC-EX").devices
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    assert snippet.endswith("\ninterface Ethernet1/50\n  priority-flow-control mode on\n")
    path.write_text(NXOS_CHANNEL.replace("  channel-group 10", "  speed 100000\n  channel-group 10").replace(
        "interface Ethernet1/49\n", "interface Ethernet1/49\n  mtu 1500\n").replace(
        "  mtu 1500\n  priority-flow-control mode off\n", ""))
    before = lint([path], "roce-dscp26", select_codes=["PFC007"], fmt="cisco_nxos")
    assert [(f.port, f.data["settings"]) for f in before.findings] == [("Ethernet1/49", ["mtu"])]
    (dev,) = fix.plan(before, unsafe=True, model="N9K-C93180YC-EX").devices
    assert [p.sections for p in dev.parts] == [["ports"]]
    fixed = _fixed(path, dev)
    assert "interface port-channel10\n  mtu 9216\n" in fixed and "interface Ethernet1/49\n  mtu 9216\n" in fixed
    assert (dev.verified, dev.unresolved) == (True, [])


def test_an_aggregate_whose_every_member_is_suspended_is_down_an_error_not_nothing_checked(tmp_path):
    """On a Nexus 7000 whose port-channel10 has one member, suspended (its own MTU differs: the Interfaces guide's
    compatibility check), the port-channel is down: no lossless flow crosses it. PFC007 says so as an error, and the
    device counts as checked (the lint exits 1 with that error). Before: a warning, and "nothing checked" (exit 2),
    as if the input were unusable. With only some members suspended it stays a warning (the others carry it)."""
    config = NXOS_CHANNEL.split("interface Ethernet1/49\n")[0] + (
        "interface Ethernet1/50\n  mtu 1500\n  channel-group 10 mode active\n")
    path = tmp_path / "nx1.txt"
    path.write_text(_capture(config, SHOW_VERSION_N7K))
    result = lint([path], "roce-dscp26")
    (pfc007,) = [f for f in result.findings if f.code == "PFC007"]
    assert pfc007.severity == Severity.error and "port-channel10 is down" in pfc007.message
    assert result.outcome(result.fails(Severity.warning)).code == 1 and result.coverage.checked == 1
    assert lint([path], "roce-dscp26", select_codes=["PFC001"]).outcome(False).code == 2  # (PFC007 not run)
    path.write_text(_capture(NXOS_CHANNEL, SHOW_VERSION_N7K))
    assert [f.severity for f in lint([path], "roce-dscp26", select_codes=["PFC007"]).findings] == [Severity.warning]


def test_a_switch_whose_every_port_is_suspended_gets_one_finding_saying_what_to_change(tmp_path):
    """Every port of nx1 is a member the Nexus 7000 suspends (its own MTU differs from port-channel10's). PFC007's
    error says to give the member the aggregate's values; SEL001 said beside it "configure PFC/QoS on the RoCE ports or
    adjust the policy's roce_ports", which would change nothing. Now PFC007 is the one finding; where PFC007 does not
    run, SEL001 says what PFC007 would."""
    config = NXOS_CHANNEL.split("interface Ethernet1/49\n")[0] + (
        "interface Ethernet1/50\n  mtu 1500\n  channel-group 10 mode active\n")
    path = tmp_path / "nx1.txt"
    path.write_text(_capture(config, SHOW_VERSION_N7K))
    result = lint([path], "roce-dscp26")
    assert [(f.code, f.severity) for f in result.findings] == [("PFC007", Severity.error)]
    assert result.outcome(result.fails(Severity.warning)).code == 1
    alone = lint([path], "roce-dscp26", ignore_codes=["PFC007"])
    (sel001,) = [f for f in alone.findings if f.code == "SEL001"]
    assert "out: 1 by suspended; give each member the settings of its aggregate" in sel001.message
    assert "configure PFC/QoS" not in sel001.message


def test_fix_writes_no_nexus_9000_snippet_for_a_nexus_7000(tmp_path):
    """The member's PFC mode differs from port-channel10's on a switch whose `show version` names a Nexus 7000: the
    pfc section's commands are the Nexus 9000's (c-8q-nqN classes), which the 7000 rejects (its queuing classes are
    its modules' port types: Cisco tech note 113556). fix writes no snippet and says why and what to do, naming the
    model. Before, it asked for --model or --family, and --family n9k wrote the 9000's commands."""
    config = NXOS_CHANNEL.split("interface Ethernet1/49\n")[0] + (
        "interface Ethernet1/50\n  speed 100000\n  priority-flow-control mode off\n  channel-group 10 mode active\n")
    path = tmp_path / "nx1.txt"
    path.write_text(_capture(config, SHOW_VERSION_N7K))
    (dev,) = fix.plan(lint([path], "roce-dscp26"), unsafe=True, model="N9K-C93180YC-EX").devices
    assert dev.parts == [] and dev.message is not None
    line = _capture(config, SHOW_VERSION_N7K).count("\n")  # (the model's line, the capture's last: named since)
    assert f"model 'Nexus7000 C7010 (10 Slot)' (read from {path} line {line}) is a Cisco Nexus 7000/7700" in dev.message
    assert "by hand from Cisco's Nexus 7000 Series NX-OS Quality of Service Configuration Guide" in dev.message
    path.write_text(_capture(config, SHOW_VERSION_N7K.replace("Nexus7000 C7010", "Nexus9000 C93180YC-EX")))
    (dev,) = fix.plan(lint([path], "roce-dscp26"), unsafe=True).devices
    assert dev.message is None and any("priority-flow-control mode on" in part.snippet for part in dev.parts)


def test_a_member_mtu_under_a_port_channel_without_an_mtu_line_is_compared_with_the_default(tmp_path):
    """A port-channel whose running-config writes no `mtu` line runs the default MTU, 1500 (Cisco tech note 118994,
    "Configure and Verify Maximum Transmission Unit on Nexus Platforms": an L2 port's MTU is the default, 1500, or the
    system jumbo MTU). Ethernet1/49's own `mtu 9216` differs from it: PFC007 names it. Ethernet1/50 writes none and
    takes the port-channel's. Before, a member was compared only where both wrote a line: nothing was said."""
    config = NXOS_CHANNEL.replace("interface port-channel10\n  mtu 9216\n", "interface port-channel10\n").replace(
        "interface Ethernet1/49\n", "interface Ethernet1/49\n  mtu 9216\n").replace(
        "  mtu 1500\n  priority-flow-control mode off\n", "")
    path = tmp_path / "nx1.cfg"
    path.write_text(config)
    result = lint([path], "roce-dscp26", select_codes=["PFC007"], fmt="cisco_nxos")
    assert [(f.code, f.port, f.source.line, f.data["settings"]) for f in result.findings] == [
        ("PFC007", "Ethernet1/49", 17, ["mtu"])]
    assert "mtu 9216 (port-channel10: 1500, the default)" in result.findings[0].message


def test_routes_over_a_port_channel_skip_a_member_only_where_the_model_suspends_it():
    """The ring's s1 routes through Port-Channel10, whose config member is Ethernet1, with an MTU of its own that
    differs from the port-channel's. The model is not known: the route goes over Ethernet1 (no source says it is
    suspended; before, it was skipped and the route led nowhere). On a Nexus 7000, whose guide says the member is
    suspended, the port-channel has no member that carries it."""
    def ring(hardware):
        fabric = ring_with_routes(s1_routes=routes_via_po10())
        s1 = fabric.devices["s1"]
        s1.hardware = hardware
        s1.ports["Ethernet1"].bundle = "Port-Channel10"
        s1.ports["Ethernet1"].incompatible = [Incompatible(setting="mtu", member="1500", aggregate="9216",
                                                           suspended_on=["Nexus7000"])]
        return fabric
    assert_same_paths(ring(None), CLOCKWISE)
    assert_same_paths(ring("Nexus9000 C93180YC-EX"), CLOCKWISE)
    assert {b.why for b in analyse(ring("Nexus7000 C7010 (10 Slot)"), [3], [26]).bad_hops} == {
        "Port-Channel10 has no member up in it (its members in the config, but those the switch suspends)"}


def test_junos_group_wildcards_reach_aggregated_ethernet_interfaces():
    """Junos user guide, "Configuration Groups" (wildcards): `<ae*>` matches the configuration's aggregated Ethernet
    interfaces as `<et-*>` matches its ports. Group AE's `interfaces <ae*> mtu 9216` is ae0's, so ae0's members
    (joined through group LAG's `<et-0/0/*> gigether-options 802.3ad ae0`) take it (IP MTU 9202). Before, `<ae*>`
    was tried on physical ports only: it matched nothing and the members' MTU stayed unknown, without a word."""
    text = "\n".join([
        "set system host-name j5",
        "set groups LAG interfaces <et-0/0/*> gigether-options 802.3ad ae0",
        "set groups AE interfaces <ae*> mtu 9216",
        "set apply-groups LAG",
        "set apply-groups AE",
        "set interfaces et-0/0/0 description a",
        "set interfaces et-0/0/1 description b",
        "set interfaces ae0 aggregated-ether-options lacp active",
    ])
    device = junos.parse([Input("j5.conf", text + "\n")], "j5")
    assert {p.name: (p.bundle, p.mtu_bytes) for p in device.ports.values()} == {
        "et-0/0/0": ("ae0", 9202), "et-0/0/1": ("ae0", 9202)}
    assert device.issues == []


def _dlk003_by_definition(device, lossless: set[int]) -> list[tuple[str, str]]:
    """DLK003 worked out port by port from its rule doc, with no shared work: a VLAN floods when ports of two targets
    hold it (an aggregate's members are one target); a paused port floods with every port holding one of its flooding
    VLANs but its own aggregate's members. (port, message) in port order."""
    from losslessd.lint.finding import few
    from losslessd.rules.dlk import ranges
    targets: dict[int, set[str]] = {}
    for p in device.ports.values():
        for v in p.vlans or ():
            targets.setdefault(v, set()).add(p.bundle or p.name)
    out = []
    for p in device.ports.values():
        paused = sorted(set(p.pfc_enabled or ()) & lossless)
        shown = sorted(v for v in set(p.vlans or ()) if len(targets[v]) > 1)
        if not paused or not shown:
            continue
        own = {q.name for q in device.ports.values() if p.bundle is not None and q.bundle == p.bundle} | {p.name}
        others = [q.name for q in device.ports.values() if q.name not in own and set(q.vlans or ()) & set(shown)]
        out.append((p.name, f"floods with {few(others)} in VLAN {ranges(shown)}"))
    return out


@given(st.lists(st.tuples(st.sampled_from(["routed", "access", "trunk"]), st.sets(st.sampled_from([10, 20, 30, 40])),
                          st.sampled_from([None, 1, 2]), st.booleans()), min_size=1, max_size=14),
       st.booleans())
@settings(max_examples=120, deadline=None)
def test_dlk003_names_the_ports_its_definition_names_on_random_switches(ports, wide):
    """DLK003's shared work (per shared-VLAN subset; sparse list walk or bit sets, whichever is cheaper) names the same
    ports, counts and VLANs as the rule's definition worked out port by port, on random EOS switches with access ports,
    trunks and port-channels. ``wide``: every trunk also allows VLANs 100-400, so the bit-set path is taken."""
    lines = ["hostname r1"]
    for n, (mode, vlans, group, pfc) in enumerate(ports, 1):
        lines.append(f"interface Ethernet{n}")
        if mode == "routed" or (mode == "trunk" and not vlans and not wide):
            lines.append("   no switchport")
        elif mode == "access":
            lines.append(f"   switchport access vlan {min(vlans, default=10)}")
        else:
            allowed = sorted(vlans) + (list(range(100, 401)) if wide else [])
            lines += ["   switchport mode trunk", f"   switchport trunk allowed vlan {','.join(map(str, allowed))}"]
        if group is not None and mode != "routed":
            lines.append(f"   channel-group {group} mode active")
        if pfc:
            lines += ["   priority-flow-control on", "   priority-flow-control priority 3 no-drop"]
        lines.append("!")
    for group in (1, 2):
        lines += [f"interface Port-Channel{group}", "   switchport mode trunk",
                  "   switchport trunk allowed vlan 20,30", "   priority-flow-control on",
                  "   priority-flow-control priority 3 no-drop", "!"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r1.cfg"
        path.write_text("\n".join(lines) + "\n")
        result = lint([path], "roce-dscp26", select_codes=["DLK003"])
    device = result.fabric.devices["r1"]
    expected = _dlk003_by_definition(device, set(load_policy("roce-dscp26").lossless.priorities))
    got = [(f.port, re.search(r"floods with .* in VLAN \S+(?=:)", f.message).group()) for f in result.findings]
    assert got == expected
