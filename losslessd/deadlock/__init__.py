"""PFC deadlock analysis: buffer-dependency graphs, their cycles, and cable-failure sweeps.

    net.py       which priorities pause where, over the cabling of losslessd.paths
    graph.py     the buffer-dependency graph, factored through hub nodes
    scc.py       Tarjan's strongly connected components (no recursion) and witness cycles
    analysis.py  cycles of a fabric (DLK001, DLK004) and unfollowable routes (DLK005)
    sweep.py     single-cable failures that create a cycle (DLK002)

Cables and routing models (which turns each switch makes) come from losslessd.paths, which the path
rules (PTH) read too. docs/deadlock.md explains the model and cites the papers it follows.
"""
