"""The buffer-dependency graph (Hu et al., HotNets 2016; "credit loops" in Shpiner et al., HotNets 2016).

Node: a buffer, (switch, ingress port, priority) with PFC on for that priority. Edge u -> v: a
packet held in u can be forwarded to the next switch and held in v, so when v is full and pauses
its upstream, u stops draining. A cycle of such edges can fill and stay full: a PFC deadlock.

Which turns a switch makes comes from the routing model (routing.py) as groups (ingress ports,
egress ports). Each group gets one hub node per (priority, label): an edge from every ingress
buffer of the group into the hub and from the hub to every buffer behind the group's egress
ports. Paths through hubs are exactly the turns, so cycles and reachability between buffers are
those of the graph written out turn by turn, at O(ports) edges per group instead of O(ports^2).

Shortest-path routing gives a switch one group per neighbour it reaches directly, fed by every
other port (all ports but one). With many such groups the in-edges alone are O(ports^2) again,
so those groups are fed through two chains of hub nodes instead, ordered by the port each group
lacks: a port enters the ascending chain just after its own position and the descending chain
just before it, and so reaches exactly the groups that do not lack it, with two edges per port.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import field

from ..records import record
from .net import Net, Node

CHAIN_FROM = 3  # groups lacking one port each, from which chains cost fewer edges than direct feeds


@record
class DepGraph:
    """Buffers as numbered nodes and the waits between them as successor lists."""

    nodes: list[Node | None] = field(default_factory=list)  # id -> buffer; None for a hub
    ids: dict[Node, int] = field(default_factory=dict)
    succ: list[list[int]] = field(default_factory=list)

    @property
    def buffers(self) -> int:
        return len(self.ids)

    @property
    def edges(self) -> int:
        return sum(map(len, self.succ))


def build(net: Net, turns, remap: bool = True) -> DepGraph:
    """The dependency graph under a routing model; ``remap=False`` keeps every packet's priority (DLK004)."""
    g = DepGraph()
    nodes, succ, ids = g.nodes, g.succ, g.ids
    for dev in net.switches:
        for port in net.switch_ports(dev):
            for prio in net.lossless(dev, port):
                ids[(dev, port, prio)] = len(nodes)
                nodes.append((dev, port, prio))
                succ.append([])

    def hub() -> int:
        nodes.append(None)
        succ.append([])
        return len(nodes) - 1

    peer, lossless, labels, next_priority = net.peer, net.lossless, net.labels, net.next_priority
    for dev in net.switches:
        groups = [(ins, outs) for ins, outs in turns.groups(dev) if ins and outs]  # empty outs: to hosts only
        order = net.switch_ports(dev)
        position = {p: k for k, p in enumerate(order)}
        lacking = [(position[(set(order) - set(ins)).pop()], gi) for gi, (ins, _) in enumerate(groups)
                   if len(ins) == len(order) - 1]
        chained = sorted(lacking) if len(lacking) >= CHAIN_FROM else []
        in_chain = {gi for _, gi in chained}
        direct: dict[str, list[int]] = {}
        for gi, (ins, _) in enumerate(groups):
            if gi not in in_chain:
                for port in ins:
                    direct.setdefault(port, []).append(gi)
        keys = [k for k, _ in chained]
        layers: dict[tuple, tuple[list[int], list[int], list[int]]] = {}  # (prio, label) -> hubs, up, down chains
        for port in order:
            for prio in lossless(dev, port):
                into = succ[ids[(dev, port, prio)]]
                for label in labels(dev, port, prio):
                    layer = layers.get((prio, label))
                    if layer is None:
                        layer = layers[(prio, label)] = _layer(hub, succ, len(groups), chained)
                    hubs, up, down = layer
                    into.extend(hubs[gi] for gi in direct.get(port, ()))
                    if chained:
                        k = bisect_right(keys, position[port])
                        if k < len(up):
                            into.append(up[k])
                        k = bisect_left(keys, position[port]) - 1
                        if k >= 0:
                            into.append(down[k])
        for (prio, label), (hubs, _, _) in layers.items():
            for (_, outs), h in zip(groups, hubs):
                targets = succ[h]
                for out in outs:
                    p2 = next_priority(dev, out, label, prio) if remap else prio
                    v = ids.get((*peer[(dev, out)], p2))
                    if v is not None:
                        targets.append(v)
    return g


def _layer(hub, succ, n_groups: int, chained: list[tuple[int, int]]) -> tuple[list[int], list[int], list[int]]:
    """Hubs of one (priority, label) on a switch: one per group, and the two chains feeding the chained ones."""
    hubs = [hub() for _ in range(n_groups)]
    up = [hub() for _ in chained]
    down = [hub() for _ in chained]
    for k, (_, gi) in enumerate(chained):
        succ[up[k]].append(hubs[gi])
        succ[down[k]].append(hubs[gi])
        if k + 1 < len(chained):
            succ[up[k]].append(up[k + 1])
        if k:
            succ[down[k]].append(down[k - 1])
    return hubs, up, down
