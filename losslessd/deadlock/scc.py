"""Strongly connected components (Tarjan 1972, without recursion) and witness cycles.

A buffer-dependency graph of a large fabric has hundreds of thousands of nodes and paths as long
as the fabric is wide, far deeper than Python's recursion limit, so the depth-first search keeps
its own stack. Linear in nodes + edges.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def strongly_connected(roots: Iterable[N], successors: Callable[[N], Iterable[N]]) -> Iterator[list[N]]:
    """Yield the components reachable from ``roots``, each as soon as it is complete.

    Components come in reverse topological order: when u -> v crosses components, v's comes
    first. A caller that only wants the first cycle stops iterating there."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    for root in roots:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors(root)))]
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(successors(w))))
                    break
                if w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    yield component


def is_cyclic(component: Sequence[N], successors: Callable[[N], Iterable[N]]) -> bool:
    """More than one node, or one node with an edge to itself."""
    return len(component) > 1 or component[0] in successors(component[0])


def cycle_through(start: N, successors: Callable[[N], Iterable[N]], members: set[N]) -> list[N]:
    """A shortest cycle from ``start`` back to it inside one strongly connected component (breadth-first)."""
    parent: dict[N, N] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in successors(v):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            if w in members and w not in parent:
                parent[w] = v
                queue.append(w)
    raise ValueError("start is not on a cycle inside members")
