"""What the deadlock analysis covers under `updown`: the host pairs it counts as without a valley-free route (DLK001's
unverified note) are exactly those the path engine's own per-receiver search finds no route for."""

from __future__ import annotations

import random

from losslessd.deadlock.analysis import valley_free_gaps
from losslessd.paths import fabric_paths
from tests.deadlock_ref import random_graph_fabric


def _searched(paths) -> tuple[int, int]:
    """(unrouted, cabled) host-port pairs, one breadth-first search per receiver switch (UpDown's own, as PTH uses)."""
    cabling, turns = paths.cabling, paths.turns
    ends = cabling.endpoints
    linked: dict[str, set[str]] = {}
    for (dev, _), (far, _) in cabling.peer.items():
        linked.setdefault(dev, set()).add(far)
    unrouted = cabled = 0
    for src in ends:
        for dst in ends:
            if src == dst:
                continue
            a, b = cabling.peer[src][0], cabling.peer[dst][0]
            seen, todo = {a}, [a]  # joined by cables between switches at all
            while todo:
                for w in linked.get(todo.pop(), ()):
                    if w not in seen and cabling.is_switch(w):
                        seen.add(w)
                        todo.append(w)
            if b not in seen:
                continue
            cabled += 1
            if a != b and a not in turns._distances(b)[1]:
                unrouted += 1
    return unrouted, cabled


def test_unrouted_pairs_match_a_search_per_receiver_on_random_tiers():
    rng = random.Random(40)
    seen = set()
    for _ in range(400):
        fabric = random_graph_fabric(rng, "updown")
        for device in fabric.devices.values():
            if device.kind.value == "switch":
                device.tier = rng.choice([None, 1, 1, 2, 2, 3])
        paths = fabric_paths(fabric)
        found = valley_free_gaps(paths.cabling, paths.turns)
        unrouted, cabled = _searched(paths)
        assert (found.pairs, found.cabled) == (unrouted, cabled) if found else unrouted == 0
        seen.add(found is None)
    assert seen == {True, False}
