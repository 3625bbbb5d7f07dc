"""The buffer-dependency graph and its cycles on small fabrics checked by hand, and the factored graph
(hub nodes) against the graph written out edge by edge on random fabrics."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.deadlock_scale import clos
from losslessd.deadlock.analysis import analyse
from losslessd.deadlock.net import Net
from losslessd.deadlock.scc import is_cyclic, strongly_connected
from losslessd.model import NextHop, Route, Trust
from losslessd.parse.base import Input
from losslessd.parse.routes import parse_routes
from tests.deadlock_ref import (
    cyclic_nodes,
    distances,
    expanded,
    make_fabric,
    random_graph_fabric,
    ring,
    shortest_turns,
    switch_cables,
    updown_turns,
)

ROUTES = Path(__file__).parent / "fixtures" / "routes"


def test_two_tier_clos_with_updown_routing_has_no_cycle():
    a = analyse(clos(leaves=4, spines=2, hosts=2), [3], [26])
    assert a.cycles == [] and a.notes == []
    assert a.graph.buffers == 16  # 8 leaf uplinks + 8 spine downlinks, priority 3; host ports have none
    assert len(a.graph.nodes) - a.graph.buffers == 2  # one hub per spine (from below); leaves send down to hosts


def test_clos_missing_two_cables_bounces_twice_into_a_cycle():
    """Hu et al.'s two-failure Clos: leaf1-spine1 and leaf4-spine2 down, routes converged on shortest paths.
    spine1 reaches leaf1 through leaf2/leaf3 and spine2; spine2 reaches leaf4 through leaf2/leaf3 and
    spine1: the two bounces wait on each other."""
    cables = [f"gpu{i}:eth0 <-> leaf{i}:Ethernet1" for i in range(1, 5)]
    cables += [f"leaf{i}:Ethernet{1 + s} <-> spine{s}:Ethernet{i}" for i in range(1, 5) for s in (1, 2)
               if (i, s) not in ((1, 1), (4, 2))]
    fabric = make_fabric(cables, "shortest-path", hosts={f"gpu{i}" for i in range(1, 5)})
    a = analyse(fabric, [3], [26])
    assert [c.text() for c in a.cycles] == [
        "leaf2:Ethernet2(3) -> spine2:Ethernet2(3) -> leaf3:Ethernet3(3) -> spine1:Ethernet3(3) -> leaf2:Ethernet2(3)",
        "leaf2:Ethernet3(3) -> spine1:Ethernet2(3) -> leaf3:Ethernet2(3) -> spine2:Ethernet3(3) -> leaf2:Ethernet3(3)"]
    assert a.cycles[0].devices == ["leaf2", "spine2", "leaf3", "spine1"]
    # one failure alone, once routes have converged, bounces without a cycle (the sweep adds the transient)
    one = make_fabric([c for c in cables] + ["leaf4:Ethernet3 <-> spine2:Ethernet4"], "shortest-path",
                      hosts={f"gpu{i}" for i in range(1, 5)})
    assert analyse(one, [3], [26]).cycles == []


def ring3_with_captures(port_settings=None, s1_table="s1.txt"):
    fabric = ring(3, routing="routes")
    for name in ("s1", "s2", "s3"):
        path = ROUTES / "ring3" / (s1_table if name == "s1" else f"{name}.txt")
        routes, issues = parse_routes(Input(str(path), path.read_text()))
        assert issues == []
        fabric.devices[name].routes = routes
    for (dev, port), values in (port_settings or {}).items():
        for key, value in values.items():
            setattr(fabric.devices[dev].ports[port], key, value)
    return fabric


def test_ring_of_three_routed_two_hops_round_deadlocks():
    """Hu et al.'s ring: each switch reaches the previous switch's host the long way round."""
    a = analyse(ring3_with_captures(), [3], [26])
    assert [c.text() for c in a.cycles] == ["s1:Ethernet2(3) -> s2:Ethernet2(3) -> s3:Ethernet2(3) -> s1:Ethernet2(3)"]
    assert a.bad_hops == [] and a.notes == []


def test_ring_deadlock_found_the_same_from_an_nxos_table():
    """s1's table as NX-OS prints it (short `Eth1` names, a BGP next hop without an interface, a `via` that is not
    the best): the same routes, the same cycle."""
    a = analyse(ring3_with_captures(s1_table="s1-nxos.txt"), [3], [26])
    assert [c.text() for c in a.cycles] == ["s1:Ethernet2(3) -> s2:Ethernet2(3) -> s3:Ethernet2(3) -> s1:Ethernet2(3)"]
    assert a.bad_hops == [] and a.notes == []


def test_ring_shortest_paths_deadlock_from_four_switches():
    assert analyse(ring(3), [3], [26]).cycles == []  # every host one hop away: no buffer waits on a second
    for n in (4, 5):
        texts = [c.text() for c in analyse(ring(n), [3], [26]).cycles]
        back = " -> ".join(f"s{i}:Ethernet1(3)" for i in [1, *range(n, 0, -1)])
        forth = " -> ".join(f"s{i}:Ethernet2(3)" for i in [*range(1, n + 1), 1])
        assert texts == [back, forth]


def test_asymmetric_pfc_adds_no_buffer_for_the_lossy_priorities_it_obeys():
    """SONiC `pfc_asym on` (Port.pfc_honoured): the port obeys pauses on all eight priorities but sends them only for
    its pfc_enabled ones. An edge already takes the egress port to obey the pause it is sent (docs/deadlock.md), and a
    lossy priority's ingress buffer drops rather than pause when it fills, so it holds up nothing upstream: the same
    cycles, of priority 3 only. A port that does pause priority 0 is what puts priority 0 on a cycle."""
    fabric = ring(4)
    switch_ports = [p for name, dev in fabric.devices.items() if name.startswith("s") for p in dev.ports.values()]
    for port in switch_ports:
        port.pfc_enabled, port.pfc_honoured = [3], list(range(8))
    texts = [c.text() for c in analyse(fabric, [3], [26]).cycles]
    assert texts == [c.text() for c in analyse(ring(4), [3], [26]).cycles] and len(texts) == 2
    for port in switch_ports:
        port.pfc_enabled = [0, 3]
    assert {n[2] for c in analyse(fabric, [3], [26, 0]).cycles for n in c.buffers} == {0, 3}


REMAP_MAPS = {"dscp_to_tc": {26: 3, 34: 4}, "tc_to_priority": {3: 3, 4: 4}}


def remap_ring(rewrites: bool, pfc_breaks: bool = True):
    """Ring of three routed two hops round; lossless priorities 3 and 4. s1 pauses only priority 4 from s3,
    s2 only priority 3 from s1: neither priority alone closes the ring. s3 rewrites TC 3 to DSCP 34
    (priority 4) towards s1, s1 rewrites TC 4 to DSCP 26 (priority 3) towards s2."""
    settings = {(s, p): {**REMAP_MAPS, "pfc_enabled": [3, 4]} for s in ("s1", "s2", "s3")
                for p in ("Ethernet0", "Ethernet1", "Ethernet2")}
    if pfc_breaks:
        settings[("s1", "Ethernet2")]["pfc_enabled"] = [4]
        settings[("s2", "Ethernet2")]["pfc_enabled"] = [3]
    if rewrites:
        settings[("s3", "Ethernet1")]["tc_to_dscp_rewrite"] = {3: 34}
        settings[("s1", "Ethernet1")]["tc_to_dscp_rewrite"] = {4: 26}
    return ring3_with_captures(settings)


def test_priority_remap_that_closes_a_loop():
    a = analyse(remap_ring(rewrites=True), [3, 4], [26])
    [cycle] = a.cycles
    assert cycle.needs_remap
    assert cycle.text() == "s1:Ethernet2(4) -> s2:Ethernet2(3) -> s3:Ethernet2(3) -> s1:Ethernet2(4)"
    assert [(r.device, r.port) for r in cycle.remaps] == [("s1", "Ethernet1"), ("s3", "Ethernet1")]
    assert analyse(remap_ring(rewrites=False), [3, 4], [26]).cycles == []
    # where the ring is cyclic without the rewrites too, the cycle is not blamed on them
    both = analyse(remap_ring(rewrites=True, pfc_breaks=False), [3, 4], [26])
    assert both.cycles and not any(c.needs_remap for c in both.cycles)


def test_pcp_remap_that_closes_a_loop_under_a_pcp_policy():
    """Under a PCP policy the 802.1p priority is followed (PCP -> TC -> priority at each port; the PCP travels
    unchanged): s1's port from s3 classifies PCP 3 into the class of priority 4, and the ring closes through that
    remap only. The DSCP maps and s3's DSCP rewrite, which PCP-trusting ports do not use, are not followed: by them
    every packet kept its priority and the ring was reported open (DLK004 silent)."""
    pcp = {"trust": Trust.pcp, "pcp_to_tc": {3: 3, 4: 4}, "tc_to_priority": {3: 3, 4: 4}, "dscp_to_tc": {26: 3}}
    settings = {(s, p): {**pcp, "pfc_enabled": [3, 4]} for s in ("s1", "s2", "s3")
                for p in ("Ethernet0", "Ethernet1", "Ethernet2")}
    settings[("s1", "Ethernet2")].update(pfc_enabled=[4], pcp_to_tc={3: 4, 4: 4})
    settings[("s2", "Ethernet2")]["pfc_enabled"] = [3]
    settings[("s3", "Ethernet1")]["tc_to_dscp_rewrite"] = {3: 34}
    a = analyse(ring3_with_captures(settings), [3, 4], [26], marking="PCP")
    [cycle] = a.cycles
    assert cycle.needs_remap
    assert cycle.text() == "s1:Ethernet2(4) -> s2:Ethernet2(3) -> s3:Ethernet2(3) -> s1:Ethernet2(4)"
    assert [r.text for r in cycle.remaps] == [
        "s2:Ethernet2 classifies priority 4 traffic from s1:Ethernet1 as priority 3",
        "s1:Ethernet2 classifies priority 3 traffic from s3:Ethernet1 as priority 4"]
    assert a.notes == []  # every port trusts what the policy does
    # the same fabric followed by DSCP (a policy that trusts DSCP): no remap, no cycle
    assert analyse(ring3_with_captures(settings), [3, 4], [26], marking="DSCP").cycles == []


def test_routes_that_cannot_be_followed_are_reported_and_the_rest_analysed():
    fabric = ring3_with_captures()
    s1 = fabric.devices["s1"]
    s1.routes.append(Route(prefix="10.9.0.0/24", next_hops=[NextHop(address="10.0.0.9", port="Ethernet9"),
                                                           NextHop(address="10.0.12.1", port="Ethernet1")]))
    s1.routes.append(Route(prefix="10.8.0.0/24", next_hops=[NextHop(address="10.0.0.9", port="PortChannel0001")]))
    del fabric.devices["s3"].routes[:]
    a = analyse(fabric, [3], [26])
    assert [(b.device, b.port, b.why) for b in a.bad_hops] == [
        ("s1", None, "Ethernet9 is not a port of s1"),
        ("s1", None, "PortChannel0001 is a port-channel or VLAN interface; its member cables are not known")]
    assert [(n.device, n.message) for n in a.notes] == [
        ("s3", "no routing-table capture was given for it, so its forwarding is not analysed")]
    # the ring is no longer closed (s3's forwarding is unknown), but the usable half of the new route loops:
    # s1 sends 10.9.0.0/24 to s2, whose default route sends it back (ECMP over both neighbours)
    assert [c.text() for c in a.cycles] == ["s1:Ethernet1(3) -> s2:Ethernet2(3) -> s1:Ethernet1(3)"]


def test_without_host_cables_every_switch_is_a_destination():
    fabric = ring(5)
    fabric.links = [link for link in fabric.links if not link.a.device.startswith("h")]
    assert len(analyse(fabric, [3], [26]).cycles) == 2


def test_no_routing_or_no_cables_means_no_analysis():
    fabric = ring(4)
    fabric.routing = None
    assert analyse(fabric, [3], [26]) is None
    fabric.routing, fabric.links = "updown", []
    assert analyse(fabric, [3], [26]) is None


# ---- factored graph == graph written out edge by edge -----------------------------------------------

def factored(a):
    """Buffers on cycles, and buffers reachable from each buffer, in the graph analyse() built."""
    g = a.graph
    succ = g.succ.__getitem__
    on_cycles = {g.nodes[v] for comp in strongly_connected(range(len(g.nodes)), succ) if is_cyclic(comp, succ)
                 for v in comp if g.nodes[v] is not None}
    return on_cycles, {g.nodes[v]: reach(v, succ, g.nodes) for v in g.ids.values()}


def reach(start, succ, nodes) -> set:
    seen, stack = set(), list(succ(start))
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(succ(v))
    return {nodes[v] for v in seen if nodes[v] is not None}


def expanded_reach(succ: dict) -> dict:
    return {v: reach(v, lambda n: succ[n], {n: n for n in succ}) for v in succ}


def randomize_priorities(rng: random.Random, fabric) -> None:
    """Lossless 3 and 4, some ports pausing only one, some rewriting TC 3 <-> DSCP 34 / TC 4 <-> DSCP 26."""
    for d in fabric.devices.values():
        for p in d.ports.values():
            p.dscp_to_tc = {26: 3, 34: 4}
            p.tc_to_priority = {3: 3, 4: 4}
            p.pfc_enabled = rng.choice([[3, 4], [3, 4], [3], [4]])
            if rng.random() < 0.3:
                p.tc_to_dscp_rewrite = rng.choice([{3: 34}, {4: 26}, {3: 34, 4: 26}])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_shortest_path_factored_graph_equals_expanded(seed, remaps):
    rng = random.Random(seed)
    fabric = random_graph_fabric(rng)
    if remaps:
        randomize_priorities(rng, fabric)
    a = analyse(fabric, [3, 4], [26])
    net = Net(fabric, [3, 4], [26])
    succ = expanded(net, shortest_turns(net, switch_cables(net)))
    on_cycles, reachable = factored(a)
    assert on_cycles == cyclic_nodes(succ)
    assert reachable == expanded_reach(succ)


def test_shortest_path_chains_on_clos_spines_equal_expanded():
    """A spine reaches each leaf through one port and takes traffic for it from all the others: those
    groups are fed through the two chains (graph.py); reachability between buffers stays exact."""
    for fabric, hubs in ((clos(leaves=4, spines=2, routing="shortest-path"), 2 * 3 * 4),
                         (clos(pods=2, leaves=3, spines=2, supers=3, routing="shortest-path"), None)):
        a = analyse(fabric, [3], [26])
        net = Net(fabric, [3], [26])
        succ = expanded(net, shortest_turns(net, switch_cables(net)))
        on_cycles, reachable = factored(a)
        assert on_cycles == set() and reachable == expanded_reach(succ)
        if hubs:  # per spine: a hub for each of its 4 leaves, and an ascending and a descending chain of 4
            assert len(a.graph.nodes) - a.graph.buffers == hubs


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_routes_factored_graph_equals_expanded(seed, remaps):
    """Random routing tables (loops included): one /24 per switch with hosts, next hops any non-empty
    set of the switch's cabled switch ports."""
    rng = random.Random(seed)
    fabric = random_graph_fabric(rng, routing="routes")
    if remaps:
        randomize_priorities(rng, fabric)
    net = Net(fabric, [3, 4], [26])
    dests = sorted(distances(net, switch_cables(net)))
    turns = {}
    for k, t in enumerate(dests):
        prefix = f"10.{k}.0.0/24"
        chosen = {}
        for s in net.switches:
            ports = net.switch_ports(s)
            if s != t and ports:
                chosen[s] = rng.sample(ports, rng.randint(1, len(ports)))
                fabric.devices[s].routes.append(Route(prefix=prefix, next_hops=[
                    NextHop(address=f"10.255.0.{i}", port=p) for i, p in enumerate(chosen[s])]))
        for s in net.switches:
            for port in net.switch_ports(s):
                e, ep = net.peer[(s, port)]
                if ep in chosen.get(e, ()):
                    turns.setdefault((s, port), set()).update(chosen.get(s, ()))
    a = analyse(fabric, [3, 4], [26])
    succ = expanded(net, turns)
    on_cycles, reachable = factored(a)
    assert on_cycles == cyclic_nodes(succ)
    assert reachable == expanded_reach(succ)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_updown_class_hubs_have_a_cycle_iff_the_expanded_graph_does(seed, remaps):
    """The class hubs let a packet from below leave by the port it came in (a U-turn); the graph without
    U-turns has the same cycles: none, whatever the tiers, same-tier and parallel cables, and remaps."""
    rng = random.Random(seed)
    fabric = random_graph_fabric(rng, routing="updown")
    for d in fabric.devices.values():
        d.tier = 0 if d.kind == "host" else rng.choice([1, 2, 3, None] if rng.random() < 0.1 else [1, 2, 3])
    if remaps:
        randomize_priorities(rng, fabric)
    a = analyse(fabric, [3, 4], [26])
    net = Net(fabric, [3, 4], [26])
    on_cycles, reachable = factored(a)
    succ = expanded(net, updown_turns(net))
    assert on_cycles == cyclic_nodes(succ) == set()
    assert all(reachable[v] >= expanded_reach(succ)[v] for v in succ)  # U-turns only ever add


def test_odd_fabrics_are_analysed_without_crashing():
    """Cables to unknown devices or ports, a shut port, a port on two cables, a host-to-host cable, an
    unreadable route: each is skipped (LNK and SYS findings report them) and the rest is analysed."""
    from losslessd.lint.engine import run
    from losslessd.lint.registry import select
    from losslessd.model import Endpoint, Link
    from losslessd.policy import load_policy

    fabric = ring(4)
    fabric.links += [Link(a=Endpoint(device="s1", port="Ethernet7"), b=Endpoint(device="ghost", port="eth0")),
                     Link(a=Endpoint(device="s2", port="Ethernet9"), b=Endpoint(device="s3", port="Ethernet8")),
                     Link(a=Endpoint(device="s2", port="Ethernet9"), b=Endpoint(device="s4", port="Ethernet8")),
                     Link(a=Endpoint(device="h1", port="eth0"), b=Endpoint(device="h2", port="eth0"))]
    fabric.devices["s4"].ports["Ethernet1"].admin_up = False  # the ring is open between s4 and s1
    fabric.devices["s1"].routes = [Route(prefix="not-a-prefix", next_hops=[NextHop(address="1.1.1.1", port="x")])]
    for routing in ("updown", "shortest-path", "routes"):
        fabric.routing = routing
        result = run(fabric, load_policy("roce-dscp26"), select(["DLK"]))
        assert not [f for f in result.findings if f.code == "SYS900"]
        assert not [f for f in result.findings if f.code == "DLK001" and not f.unverified]  # the ring is open
