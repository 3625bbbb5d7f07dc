"""Tarjan's components against mutual reachability, witness cycles, and depth beyond the recursion limit."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.deadlock.scc import cycle_through, is_cyclic, strongly_connected
from tests.deadlock_ref import reference_sccs

graphs = st.integers(1, 20).flatmap(
    lambda n: st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n).map(lambda e: (n, e)))


@settings(max_examples=200, deadline=None)
@given(graphs)
def test_tarjan_matches_reference_components(graph):
    n, edges = graph
    succ = {v: [] for v in range(n)}
    for a, b in edges:
        succ[a].append(b)
    components = list(strongly_connected(range(n), succ.__getitem__))
    assert {frozenset(c) for c in components} == reference_sccs(succ)
    assert sum(map(len, components)) == n
    position = {v: i for i, comp in enumerate(components) for v in comp}
    assert all(position[b] <= position[a] for a, b in edges)  # reverse topological order
    for comp in components:
        cyclic = is_cyclic(comp, succ.__getitem__)
        assert cyclic == (len(comp) > 1 or comp[0] in succ[comp[0]])
        if cyclic:
            start = min(comp)
            cycle = cycle_through(start, succ.__getitem__, set(comp))
            assert cycle[0] == start and len(set(cycle)) == len(cycle) and set(cycle) <= set(comp)
            assert all(cycle[(k + 1) % len(cycle)] in succ[v] for k, v in enumerate(cycle))


def test_witness_is_a_shortest_cycle_through_the_start():
    succ = {0: [1, 4], 1: [2], 2: [3], 3: [0], 4: [0]}
    assert cycle_through(0, succ.__getitem__, {0, 1, 2, 3, 4}) == [0, 4]


def test_paths_far_deeper_than_the_recursion_limit():
    n = 20 * sys.getrecursionlimit()
    ring = [[v + 1] for v in range(n - 1)] + [[0]]
    components = list(strongly_connected(range(n), ring.__getitem__))
    assert len(components) == 1 and len(components[0]) == n
    chain = ring[:-1] + [[]]
    assert len(list(strongly_connected(range(n), chain.__getitem__))) == n
