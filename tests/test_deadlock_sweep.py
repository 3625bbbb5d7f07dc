"""The single-cable failure sweep on a hand-checked Clos, and against rebuilding the graph for every cable."""

from __future__ import annotations

import random

import pytest

from bench.deadlock_scale import clos
from losslessd.deadlock.analysis import analyse
from losslessd.deadlock.net import Net
from losslessd.deadlock.sweep import sweep
from tests.deadlock_ref import brute_force_sweep, random_graph_fabric, ring, shortest_turns, switch_cables, updown_turns


def test_leaf_spine_failure_bounces_through_a_leaf_into_a_cycle():
    """2 spines, 3 leaves, BGP: with leaf1 <-> spine1 down, spine1 reaches leaf1 via leaf2 (or leaf3) and
    spine2 (the down-up bounce), while leaf2 still sends leaf1's traffic to spine1 until the withdrawal
    arrives: spine1's buffer for traffic from leaf2 and leaf2's for traffic from spine1 wait on each other."""
    result = sweep(analyse(clos(leaves=3, spines=2, hosts=1), [3], [26]))
    by_cable = {f.cable: f for f in result.failures}
    assert sorted(by_cable) == [((f"leaf{i}", f"Ethernet{1 + s}"), (f"spine{s}", f"Ethernet{i}"))
                                for i in (1, 2, 3) for s in (1, 2)]
    f = by_cable[(("leaf1", "Ethernet2"), ("spine1", "Ethernet1"))]
    assert f.text() == "spine1:Ethernet2(3) -> leaf2:Ethernet2(3) -> spine1:Ethernet2(3)"
    assert f.why == ("spine1 loses its only shortest route to the hosts behind leaf1 and re-routes them through "
                     "leaf2 (3 hops instead of 1), while leaf2, until the withdrawal reaches it, still sends them "
                     "to spine1")
    s = result.stats
    assert (s.cables, s.host_cables, s.local, s.searched) == (9, 3, 6, 0)


def test_failures_that_change_no_distance_or_only_disconnect():
    doubled = sweep(analyse(ring(2), [3], [26]))  # two switches, two cables between them
    assert doubled.failures == [] and doubled.stats.unchanged == 2
    star = sweep(analyse(clos(leaves=2, spines=1, hosts=1), [3], [26]))
    # a leaf's only uplink: the hosts behind it become unreachable and routes are withdrawn, nothing bounces
    assert star.failures == [] and (star.stats.local, star.stats.searched) == (0, 2)


def test_no_sweep_for_captured_routes_or_an_already_cyclic_fabric():
    assert "fix those first" in sweep(analyse(ring(5), [3], [26])).skipped
    captured = ring(4, routing="routes")
    assert "routing-table captures show one moment" in sweep(analyse(captured, [3], [26])).skipped


def breaks(rng: random.Random, fabric) -> None:
    """Some ports pause only one of the lossless priorities 3, 4; some rewrite TC 3 <-> DSCP 34 / 4 <-> 26."""
    for d in fabric.devices.values():
        for p in d.ports.values():
            p.dscp_to_tc = {26: 3, 34: 4}
            p.pfc_enabled = rng.choice([[3, 4], [3, 4], [3, 4], [3], [4], []])
            if rng.random() < 0.2:
                p.tc_to_dscp_rewrite = rng.choice([{3: 34}, {4: 26}, {3: 34, 4: 26}])


def check_against_brute_force(fabric, updown: bool) -> tuple[int, int]:
    a = analyse(fabric, [3, 4], [26])
    result = sweep(a)
    if result.skipped:
        return 0, 0
    net = Net(fabric, [3, 4], [26])
    base = updown_turns(net) if updown else shortest_turns(net, switch_cables(net))
    assert {f.cable for f in result.failures} == brute_force_sweep(net, base, updown)
    for f in result.failures:  # every witness is a real cycle of the graph with that cable down
        (a_end, b_end) = f.cable
        for u, v in zip(f.buffers, f.buffers[1:] + f.buffers[:1]):
            assert net.peer[(v[0], v[1])][0] == u[0] and (v[0], v[1]) not in (a_end, b_end)
    return result.stats.local, result.stats.searched


@pytest.mark.parametrize("routing", ["updown", "shortest-path"])
def test_sweep_matches_brute_force_on_small_clos_fabrics(routing):
    rng = random.Random(7)
    shapes = [{"leaves": 3, "spines": 2}, {"leaves": 2, "spines": 3}, {"leaves": 4, "spines": 1},
              {"pods": 2, "leaves": 2, "spines": 2, "supers": 1}, {"pods": 2, "leaves": 2, "spines": 1, "supers": 2},
              {"pods": 3, "leaves": 2, "spines": 2, "supers": 2}]
    local = searched = 0
    for shape in shapes:
        for trial in range(6):
            fabric = clos(routing=routing, hosts=1, **shape)
            if trial:
                breaks(rng, fabric)
            counts = check_against_brute_force(fabric, routing == "updown")
            local, searched = local + counts[0], searched + counts[1]
    assert local and searched  # both ways of deciding a failure were exercised


def test_sweep_matches_brute_force_on_random_graphs():
    local = searched = 0
    for seed in range(120):
        rng = random.Random(seed)
        fabric = random_graph_fabric(rng)
        if seed % 2:
            breaks(rng, fabric)
        counts = check_against_brute_force(fabric, updown=False)
        local, searched = local + counts[0], searched + counts[1]
    assert local and searched
