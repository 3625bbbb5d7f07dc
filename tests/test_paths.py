"""One path engine: the path rules (PTH) and the deadlock analysis (DLK) see the same cables and the same routes.

Each fabric below is one where the two disagreed before losslessd.paths: PTH had its own cabling, next hops
and up/down routing beside losslessd.deadlock's, and they skipped different things. For each, the turns
PTH's walker takes (recorded by a flow that checks nothing, over every host pair, as PTH001 walks them)
are the turns of DLK's buffer-dependency analysis, and the rules' findings follow from that.
"""

from __future__ import annotations

from losslessd.deadlock.analysis import analyse
from losslessd.lint.engine import run
from losslessd.lint.registry import lookup
from losslessd.model import DeviceKind, Endpoint, Fabric, Link, NextHop, Route
from losslessd.paths import fabric_paths
from losslessd.paths.walk import Flow, Walker
from losslessd.policy import load_policy
from tests.test_rules_lnk_pth import device, fabric_of

Turn = tuple[str, str, str]  # (switch, ingress port, egress port)


class _Recorder(Flow):
    """Checks nothing; records every turn a switch makes on the walked paths, and where each path ends."""

    label = "recorded"

    def __init__(self):
        self.turns: set[Turn] = set()
        self.delivered: set[tuple[str, str]] = set()

    def start_dscp(self, device, port):
        return [26]

    def ingress(self, device, port, dscp):
        return None, "", port.dscp_chain(dscp)

    def egress(self, device, out, hop, unit, nxt, nport):
        if device.kind == DeviceKind.switch:
            self.turns.add((device.name, hop.port, out.name))

    def receiver(self, device, port, dscp):
        self.delivered.add((device.name, port.name))
        return None, ""


def pth_turns(fabric: Fabric) -> tuple[set[Turn], set[tuple[str, str]]]:
    """The turns PTH's walker takes between every pair of NIC ports on different hosts, and the receivers reached."""
    paths = fabric_paths(fabric)
    recorder = _Recorder()
    for dst in paths.cabling.endpoints:
        walker = Walker(recorder, paths, dst)
        for src in paths.cabling.endpoints:
            if src[0] != dst[0]:
                walker.start(src, 26)
    return recorder.turns, recorder.delivered


def dlk_turns(fabric: Fabric) -> set[Turn]:
    """The turns of the deadlock analysis between ports cabled to switches (the only ones with buffers)."""
    a = analyse(fabric, [3], [26])
    net = a.net
    return {(dev, i, o) for dev in net.switches for i in net.switch_ports(dev) for o in a.turns.outs(dev, i)}


def switch_to_switch(fabric: Fabric, turns: set[Turn]) -> set[Turn]:
    paths = fabric_paths(fabric)
    to_switch = {end for end, far in paths.cabling.peer.items() if paths.cabling.is_switch(far[0])}
    return {(d, i, o) for d, i, o in turns if (d, i) in to_switch and (d, o) in to_switch}


def findings(fabric: Fabric, *codes: str):
    result = run(fabric, load_policy("roce-dscp26"), [lookup(c) for c in codes])
    return [f for f in result.findings if f.code in codes]


def clos(spine2: dict | None = None) -> list:
    """Two leaves, two spines, a host on each leaf (leafN:e1 -> spine1, leafN:e2 -> spine2)."""
    return [device("leaf1", {"e0": {}, "e1": {}, "e2": {}}), device("leaf2", {"e0": {}, "e1": {}, "e2": {}}),
            device("spine1", {"e1": {}, "e2": {}}), device("spine2", {"e1": spine2 or {}, "e2": {}}),
            device("h1", {"eth0": {}}, "host"), device("h2", {"eth0": {}}, "host")]


CLOS_LINKS = ["h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf2:e0", "leaf1:e1 <-> spine1:e1", "leaf2:e1 <-> spine1:e2",
              "leaf1:e2 <-> spine2:e1", "leaf2:e2 <-> spine2:e2"]
SPINE1_ONLY = {("spine1", "e1", "e2"), ("spine1", "e2", "e1")}


def links(*cables: str) -> list[Link]:
    out = []
    for cable in cables:
        a, b = (end.strip().split(":") for end in cable.split("<->"))
        out.append(Link(a=Endpoint(device=a[0], port=a[1]), b=Endpoint(device=b[0], port=b[1])))
    return out


def assert_same_paths(fabric: Fabric, expected: set[Turn]) -> None:
    turns, delivered = pth_turns(fabric)
    assert switch_to_switch(fabric, turns) == dlk_turns(fabric) == expected
    hosts = {end for end in fabric_paths(fabric).cabling.endpoints}
    assert delivered == hosts  # every receiver is reached


def test_an_admin_down_port_carries_nothing_for_either():
    """spine2:e1 (to leaf1) is shut and pauses the wrong priority. PTH used to follow traffic through it and
    report PFC off there, while DLK left the cable out. Now neither uses it: leaf1 reaches leaf2 over spine1."""
    fabric = fabric_of(clos({"admin_up": False, "pfc_enabled": [4]}), CLOS_LINKS)
    assert_same_paths(fabric, SPINE1_ONLY)
    assert findings(fabric, "PTH001", "PTH003", "DLK001") == []
    up = fabric_of(clos({"pfc_enabled": [4]}), CLOS_LINKS)  # the same port up: both see it, PTH reports it
    assert {f.key for f in findings(up, "PTH001")} == {"spine2:e1|DSCP 26|in", "spine2:e1|DSCP 26|out"}
    assert ("spine2", "e1", "e2") in dlk_turns(up)


def test_a_device_missing_from_the_inputs_is_left_out_by_both():
    """A cable to a device no input describes (possible through the Python API; the topology loader reports
    it as LNK006). PTH used to crash on it (SYS900), DLK skipped it."""
    devices = clos()
    spine1 = devices[2]
    spine1.ports["e3"] = spine1.ports["e1"].model_copy(update={"name": "e3"})
    fabric = Fabric(devices={d.name: d for d in devices}, routing="updown",
                    links=links(*CLOS_LINKS, "spine1:e3 <-> ghost:eth0", "leaf2:e9 <-> spine2:e3"))
    for d in devices:
        d.tier = {"h1": 0, "h2": 0, "leaf1": 1, "leaf2": 1}.get(d.name, 2)
    assert_same_paths(fabric, SPINE1_ONLY | {("spine2", "e1", "e2"), ("spine2", "e2", "e1")})
    skipped = fabric_paths(fabric).cabling.skipped
    assert [why for *_, why in skipped] == ["ghost is not among the linted devices", "leaf2 has no port e9 in its input"]
    assert [f.code for f in findings(fabric, "PTH001", "PTH002", "PTH003", "DLK001", "SYS900")] == []


def test_a_port_on_two_cables_counts_its_first_cable_for_both():
    """leaf1:e1 on a cable to spine1 and then on one to spine2 (the topology loader keeps the first and reports
    LNK007). PTH used to send leaf1:e1's traffic to spine2 (the last cable) while DLK used spine1's (the first)."""
    devices = [device("leaf1", {"e0": {}, "e1": {}}), device("leaf2", {"e0": {}, "e1": {}, "e2": {}}),
               device("spine1", {"e1": {}, "e2": {}}), device("spine2", {"e1": {"pfc_enabled": [4]}, "e2": {}}),
               device("h1", {"eth0": {}}, "host"), device("h2", {"eth0": {}}, "host")]
    for d in devices:
        d.tier = {"h1": 0, "h2": 0, "leaf1": 1, "leaf2": 1}.get(d.name, 2)
    fabric = Fabric(devices={d.name: d for d in devices}, routing="updown",
                    links=links("h1:eth0 <-> leaf1:e0", "h2:eth0 <-> leaf2:e0", "leaf1:e1 <-> spine1:e1",
                                "leaf2:e1 <-> spine1:e2", "leaf1:e1 <-> spine2:e1", "leaf2:e2 <-> spine2:e2"))
    assert_same_paths(fabric, SPINE1_ONLY)
    assert fabric_paths(fabric).cabling.skipped[0][2] == "leaf1:e1 is already cabled to spine1:e1"
    assert findings(fabric, "PTH001", "DLK001") == []  # spine2:e1's PFC gap is on no cable traffic takes


def ring_with_routes(s1: dict | None = None, s1_routes: list | None = None) -> Fabric:
    """s1 -> s2 -> s3 -> s1 (sX:Ethernet1 -> next:Ethernet2), host hX on sX:Ethernet0, and routing tables that send
    every host's traffic CLOCKWISE (two hops where the ring's shortest path is one: the DLK001 case of Hu et al.)."""
    def switch(n: int, routes: list) -> object:
        d = device(f"s{n}", {"Ethernet0": {}, "Ethernet1": {}, "Ethernet2": (s1 or {}) if n == 1 else {}})
        d.routes = routes
        return d

    def table(n: int) -> list:
        hops = {h: [NextHop(port="Ethernet0")] if h == n else [NextHop(address=f"10.0.{n}.1", port="Ethernet1")]
                for h in (1, 2, 3)}
        return [Route(prefix=f"10.1.{h}.0/24", next_hops=hops[h]) for h in (1, 2, 3)]

    devices = [switch(1, table(1) if s1_routes is None else s1_routes), switch(2, table(2)), switch(3, table(3))]
    devices += [device(f"h{n}", {"eth0": {}}, "host") for n in (1, 2, 3)]
    return Fabric(devices={d.name: d for d in devices}, routing="routes",
                  links=links("h1:eth0 <-> s1:Ethernet0", "h2:eth0 <-> s2:Ethernet0", "h3:eth0 <-> s3:Ethernet0",
                              "s1:Ethernet1 <-> s2:Ethernet2", "s2:Ethernet1 <-> s3:Ethernet2",
                              "s3:Ethernet1 <-> s1:Ethernet2"))


# The paths ring_with_routes' tables give every host pair: one turn clockwise at each switch.
CLOCKWISE = {("s1", "Ethernet2", "Ethernet1"), ("s2", "Ethernet2", "Ethernet1"), ("s3", "Ethernet2", "Ethernet1")}


def routes_via_po10() -> list:
    """s1's table of the ring sending h2's and h3's prefixes through Port-Channel10 (NX-OS `*via 10.0.1.1, Po10`)."""
    return [Route(prefix="10.1.1.0/24", next_hops=[NextHop(port="Ethernet0")])] + [
        Route(prefix=f"10.1.{h}.0/24", next_hops=[NextHop(address="10.0.1.1", port="Port-Channel10")]) for h in (2, 3)]


def test_captured_routes_are_followed_by_both():
    """PTH used shortest paths in place of routing-table captures, which DLK followed: here it walked the
    counter-CLOCKWISE hops no table uses (and reported s1:Ethernet2's PFC gap, which no traffic meets), and
    missed the two-hop CLOCKWISE paths DLK finds the deadlock on. Now both follow the tables."""
    assert_same_paths(ring_with_routes(), CLOCKWISE)
    # s1's port from s3 pauses nothing: every path into s1 (h3 -> h2, h2 -> h1, h3 -> h1) meets it.
    gap = ring_with_routes({"pfc_enabled": []})
    found = {f.key: f for f in findings(gap, "PTH001")}
    assert set(found) == {"s1:Ethernet2|DSCP 26|in"}
    assert "3 host pairs affected" in found["s1:Ethernet2|DSCP 26|in"].message
    assert "h2:eth0 [DSCP 26 prio 3] -> s2:Ethernet0>Ethernet1 [DSCP 26 TC 3 PG 3 q 3] -> s3:Ethernet2>Ethernet1" \
        in found["s1:Ethernet2|DSCP 26|in"].message  # h2 -> h1 goes round through s3, as the tables say
    assert [f.device for f in findings(ring_with_routes(), "DLK001")] == ["s1"]


def test_a_receiver_no_table_delivers_to_is_unverified_not_guessed():
    """Without a connected route on the receiver's port the prefix of its host is not known: PTH says so
    (info) instead of taking shortest paths. DLK still follows every captured prefix, h1's too (traffic to an
    address needs no known receiver to fill buffers), so its turns are PTH's plus the one towards h1's prefix."""
    no_connected = [Route(prefix=f"10.1.{h}.0/24", next_hops=[NextHop(address="10.0.1.1", port="Ethernet1")])
                    for h in (2, 3)]
    fabric = ring_with_routes(s1_routes=no_connected)
    found = [f for f in findings(fabric, "PTH001") if f.data.get("unverified") or f.unverified]
    assert {f.key for f in found} == {"s2:Ethernet0|DSCP 26|in", "s3:Ethernet0|DSCP 26|in"}
    assert all(f.severity.value == "info" for f in found)
    assert ("no route towards h1:eth0 can be followed under routes routing: no route of s1's routing table is "
            "connected to Ethernet0, so which prefix h1:eth0 is in is not known") in found[0].message
    turns, delivered = pth_turns(fabric)
    assert dlk_turns(fabric) - switch_to_switch(fabric, turns) == {("s3", "Ethernet2", "Ethernet1")}  # to 10.1.1.0/24
    assert switch_to_switch(fabric, turns) < dlk_turns(fabric)
    assert ("h1", "eth0") not in delivered


def test_a_vlan_interface_delivers_to_its_member_ports():
    """A leaf routing its hosts' prefix on a VLAN interface (SONiC `Vlan1000`): the hosts on the VLAN's member
    ports are in that prefix."""
    def table(n: int) -> list:
        hops = {h: [NextHop(port="Vlan1000")] if h == n else [NextHop(address=f"10.0.{n}.1", port="Ethernet1")]
                for h in (1, 2, 3)}
        return [Route(prefix=f"10.1.{h}.0/24", next_hops=hops[h]) for h in (1, 2, 3)]

    fabric = ring_with_routes(s1_routes=table(1))
    fabric.devices["s1"].ports["Ethernet0"].vlans = [1000]
    turns, delivered = pth_turns(fabric)
    assert ("h1", "eth0") in delivered
    assert switch_to_switch(fabric, turns) == dlk_turns(fabric)
    assert [f.key for f in findings(fabric, "PTH001")] == []


def test_a_port_channel_next_hop_goes_over_its_members():
    """NX-OS routes through a port-channel (`*via 10.0.1.1, Po10`, read as Port-Channel10): its members carry the
    traffic, hashed over them as over ECMP hops. It was unverified ("its member cables are not known") although the
    config names the members (`channel-group 10`) and `show port-channel summary` says which are up."""
    fabric = ring_with_routes(s1_routes=routes_via_po10())
    fabric.devices["s1"].ports["Ethernet1"].bundle = "port-channel10"  # from the config's channel-group
    assert_same_paths(fabric, CLOCKWISE)
    assert analyse(fabric, [3], [26]).bad_hops == []
    fabric.devices["s1"].bundle_members = {"port-channel10": ["Ethernet1"]}  # the capture: up in it
    assert_same_paths(fabric, CLOCKWISE)
    fabric.devices["s1"].bundle_members = {"port-channel10": []}  # the capture: no member up
    assert {(b.device, b.why) for b in analyse(fabric, [3], [26]).bad_hops} == {
        ("s1", "Port-Channel10 has no member up in it (show port-channel summary)")}
    # the capture holds a summary but no row of Po10 it could read (parse/nxos/channels.py: a SYS002 says routes
    # through it are not followed): the config's members are not taken in its place
    fabric.devices["s1"].bundle_members = {"port-channel20": []}
    assert {b.why for b in analyse(fabric, [3], [26]).bad_hops} == {
        "Port-Channel10 is a port-channel or VLAN interface; its member cables are not known"}
    fabric.devices["s1"].bundle_members = None
    fabric.devices["s1"].ports["Ethernet1"].bundle = None  # no member known: unverified, as before
    assert {b.why for b in analyse(fabric, [3], [26]).bad_hops} == {
        "Port-Channel10 is a port-channel or VLAN interface; its member cables are not known"}
    # h1 on a bond: s1's connected route to it is on Port-Channel20, whose member Ethernet0 is h1's port; its
    # prefix is delivered out of that member (no member known: which prefix h1 is in is not known)
    bonded = ring_with_routes(s1_routes=[Route(prefix="10.1.1.0/24", next_hops=[NextHop(port="Port-Channel20")]),
                                         *routes_via_po10()[1:]])
    bonded.devices["s1"].ports["Ethernet1"].bundle = "port-channel10"
    assert ("h1", "eth0") not in pth_turns(bonded)[1]
    bonded.devices["s1"].ports["Ethernet0"].bundle = "port-channel20"
    assert_same_paths(bonded, CLOCKWISE)
