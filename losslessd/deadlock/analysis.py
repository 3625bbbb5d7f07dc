"""Find the cyclic buffer dependencies of a fabric under its routing: one witness cycle per component."""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from ..gcpause import gc_paused
from ..lint.finding import few
from ..model import Fabric
from ..paths import BadHop, Cabling, DestRouting, Paths, ShortestPaths, UpDown, fabric_paths
from ..records import record
from ..sha import sha256
from .graph import DepGraph, build
from .net import Net, Node, label, sort_key
from .scc import cycle_through, is_cyclic, strongly_connected


@record(frozen=True)
class Remap:
    """A hop where a packet's priority changes: the port that does it and how."""

    device: str
    port: str
    text: str


@record
class Cycle:
    """A cyclic buffer dependency: a witness cycle of buffers and the component it lies in."""

    buffers: list[Node]  # a witness cycle, from its first buffer round to (not repeating) it
    size: int  # buffers in the strongly connected component
    key: str  # stable id of the component: hash of its sorted buffers
    remaps: list[Remap] = field(default_factory=list)
    needs_remap: bool = False  # without the priority remaps these buffers are on no cycle (DLK004)

    def text(self) -> str:
        return " -> ".join(label(n) for n in [*self.buffers, self.buffers[0]])

    @property
    def devices(self) -> list[str]:
        return list(dict.fromkeys(n[0] for n in self.buffers))


@record(frozen=True)
class Note:
    """A switch whose forwarding is left out of the analysis (or not followed as it runs), and why."""

    device: str
    message: str
    key: str = "not-analysed"


@record
class Analysis:
    """The buffer dependency graph of one routing of a network, with the turns it allows."""

    routing: str
    net: Net
    turns: UpDown | DestRouting
    graph: DepGraph
    rank: list[int]  # node id -> position in a topological order of the components (edges go up)
    cycles: list[Cycle]
    notes: list[Note]
    bad_hops: list[BadHop]
    shortest: ShortestPaths | None  # shortest-path routing: the distance tables the graph came from
    unrouted: Unrouted | None = None  # updown: cabled host pairs the declared tiers give no valley-free route


@record(frozen=True)
class Unrouted:
    """Host pairs joined by cables that `updown` routing over the declared tiers gives no valley-free route: their
    traffic's buffers are in no turn the analysis follows. ``inverted``: switches with hosts whose every switch
    neighbour has a lower tier (the tiers look upside down)."""

    pairs: int  # host-port pairs, each direction counted
    cabled: int  # host-port pairs joined by cables at all
    example: tuple[str, str]  # (sender switch, receiver switch) of one unrouted pair
    inverted: tuple[str, ...]


# What a switch left out of the routing model (losslessd.paths: `gaps`) means for the analysis.
_LEFT_OUT = {"updown": "so its turns are not analysed", "routes": "so its forwarding is not analysed"}


def analyse(fabric: Fabric, lossless: list[int], dscps: list[int], paths: Paths | None = None,
            marking: Literal["DSCP", "PCP"] | None = None) -> Analysis | None:
    """None when the fabric has no cables or no routing model (no topology): nothing to analyse. ``paths``: the
    fabric's losslessd.paths view when the caller already has it (the path rules share it). ``marking``: what the
    policy classifies lossless traffic by (its lossless.trust; None: it sets none, and the DSCPs are followed)."""
    with gc_paused():
        paths = paths or fabric_paths(fabric)
        return None if paths is None else _analyse(fabric, lossless, dscps, paths, marking)


def _analyse(fabric: Fabric, lossless: list[int], dscps: list[int], paths: Paths,
             marking: Literal["DSCP", "PCP"] | None) -> Analysis:
    net = Net(fabric, lossless, dscps, paths.cabling, marking)
    turns = paths.turns
    notes = [Note(s, f"{why}, {_LEFT_OUT.get(paths.routing, 'so it is not analysed')}") for s, why in paths.gaps.items()]
    notes += trust_notes(net)
    graph = build(net, turns)
    succ = graph.succ.__getitem__
    components = list(strongly_connected(range(len(graph.nodes)), succ))
    rank = [0] * len(graph.nodes)
    for i, comp in enumerate(components):
        for v in comp:
            rank[v] = len(components) - i
    cyclic = [comp for comp in components if is_cyclic(comp, succ)]
    plain: set[Node] = set()
    if cyclic and net.remapped:
        unmapped = build(net, turns, remap=False)
        for comp in strongly_connected(range(len(unmapped.nodes)), unmapped.succ.__getitem__):
            if is_cyclic(comp, unmapped.succ.__getitem__):
                plain.update(n for v in comp if (n := unmapped.nodes[v]) is not None)
    cycles = []
    for comp in cyclic:
        buffers = [n for v in comp if (n := graph.nodes[v]) is not None]
        start = min(buffers, key=sort_key)
        path = [n for v in cycle_through(graph.ids[start], succ, set(comp)) if (n := graph.nodes[v]) is not None]
        cycle = Cycle(path, len(buffers), component_key(buffers), remaps(net, path))
        cycle.needs_remap = bool(cycle.remaps) and not any(n in plain for n in buffers)
        cycles.append(cycle)
    cycles.sort(key=lambda c: sort_key(c.buffers[0]))
    unrouted = valley_free_gaps(paths.cabling, turns) if isinstance(turns, UpDown) else None
    return Analysis(paths.routing, net, turns, graph, rank, cycles, notes, paths.bad_hops, paths.shortest, unrouted)


def valley_free_gaps(cabling: Cabling, turns: UpDown) -> Unrouted | None:
    """The host pairs cables join that have no valley-free route under the tiers, or None when every one has. A
    pair whose switches are not joined by cables at all is the topology's gap (LNK), not the routing's."""
    hosts: dict[str, int] = {}  # switch -> NIC ports cabled to it
    for end in cabling.endpoints:
        sw = cabling.peer[end][0]
        hosts[sw] = hosts.get(sw, 0) + 1
    component: dict[str, int] = {}
    for start in hosts:  # connected components of the switch-to-switch cables
        if start in component:
            continue
        component[start] = len(component)
        todo = [start]
        while todo:
            dev = todo.pop()
            for port in cabling.switch_ports(dev):
                nxt = cabling.peer[(dev, port)][0]
                if nxt not in component:
                    component[nxt] = component[start]
                    todo.append(nxt)
    summits = turns.summits(list(hosts))
    # component -> summits -> [NIC ports, first host switch by name]: host switches with the same summits route alike
    groups: dict[int, dict[int, list]] = {}
    for sw in sorted(hosts):
        group = groups.setdefault(component[sw], {}).setdefault(summits[sw], [0, sw])
        group[0] += hosts[sw]
    pairs = cabled = 0
    example: tuple[str, str] | None = None
    for alike in groups.values():  # (pairs only within a component: a component's groups against each other)
        ports = sum(n for n, _ in alike.values())
        cabled += ports * ports
        for s1, (n_src, src) in alike.items():
            for s2, (n_dst, dst) in alike.items():
                if s1 & s2 == 0:
                    pairs += n_src * n_dst
                    example = min(example or (src, dst), (src, dst))  # the first by name: stable
    cabled -= sum(hosts.values())  # (a NIC port to itself)
    if example is None:
        return None
    inverted = tuple(sw for sw in sorted(hosts) if (t := cabling.tier(sw)) is not None and cabling.switch_ports(sw)
                     and all((u := cabling.tier(cabling.peer[(sw, p)][0])) is not None and u < t
                             for p in cabling.switch_ports(sw)))
    return Unrouted(pairs, cabled, example, inverted)


def trust_notes(net: Net) -> list[Note]:
    """One note per switch with ports between switches that trust another marking than the policy's: the analysis
    classifies by the policy's marking there, which is not what the switch does (MAP003 reports the trust)."""
    notes = []
    for dev in net.switches:
        by_trust: dict[str, list[str]] = {}
        for port, trust in net.other_trust(dev):
            by_trust.setdefault(trust, []).append(port)
        if by_trust:
            said = "; ".join(f"{few(ports)} {'trust' if len(ports) > 1 else 'trusts'} {_MARKING[trust]}"
                             for trust, ports in by_trust.items())
            notes.append(Note(dev, f"{said}, not the {_MARKING[net.marking.lower()]} the policy classifies lossless "
                                   f"traffic by, so the priority a packet gets there is taken from its "
                                   f"{net.marking} map, which the switch does not use (set the trust: MAP003)",
                              key="other-trust"))
    return notes


_MARKING = {"dscp": "DSCP", "pcp": "802.1p priority (PCP)", "none": "nothing"}


def component_key(buffers: list[Node]) -> str:
    # (surrogatepass: a port name from JSON may hold a lone surrogate, as lint.finding's fingerprint says)
    return sha256("\n".join(sorted(map(label, buffers))).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def remaps(net: Net, cycle: list[Node]) -> list[Remap]:
    """The hops of a cycle where the priority changes: an egress DSCP rewrite, else the next port's map."""
    found = []
    for u, v in zip(cycle, cycle[1:] + cycle[:1]):
        if u[2] == v[2]:
            continue
        dev, out = net.peer[(v[0], v[1])]
        port = net.port(dev, out)
        if port is not None and port.tc_to_dscp_rewrite and net.marking == "DSCP":
            found.append(Remap(dev, out, f"{dev}:{out} rewrites the DSCP of priority {u[2]} traffic on egress, "
                                         f"which {v[0]}:{v[1]} classifies as priority {v[2]}"))
        else:
            found.append(Remap(v[0], v[1], f"{v[0]}:{v[1]} classifies priority {u[2]} traffic from {dev}:{out} "
                                           f"as priority {v[2]}"))
    return found
