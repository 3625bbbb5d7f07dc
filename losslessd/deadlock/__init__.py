"""PFC deadlock analysis: buffer-dependency graphs, their cycles, and cable-failure sweeps.

    net.py       the fabric as the analysis sees it (cables, tiers, which priorities pause where)
    routing.py   routing models: which turns each switch makes (updown, shortest paths, captures)
    graph.py     the buffer-dependency graph, factored through hub nodes
    scc.py       Tarjan's strongly connected components (no recursion) and witness cycles
    analysis.py  cycles of a fabric (DLK001, DLK004) and unfollowable routes (DLK005)
    sweep.py     single-cable failures that create a cycle (DLK002)

docs/deadlock.md explains the model and cites the papers it follows.
"""
