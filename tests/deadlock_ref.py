"""Small fabrics and brute-force references for the deadlock tests.

The references are deliberately naive and independent of losslessd.deadlock's factoring and
bitset tricks: one breadth-first search per destination, turn relations written out per port,
cycles found by "is this buffer reachable from its own successors".
"""

from __future__ import annotations

import random
from collections import deque

from losslessd.deadlock.net import Net
from losslessd.model import Device, DeviceKind, Endpoint, Fabric, Link, Port

Turns = dict[tuple[str, str], set[str]]  # (switch, ingress port) -> egress ports


def make_fabric(cables: list[str], routing: str | None = "shortest-path", *, hosts=(), tiers=None,
                pfc=(3,)) -> Fabric:
    """Devices and ports from `a:p <-> b:q` strings; names in ``hosts`` are hosts, the rest switches."""
    devices: dict[str, Device] = {}
    links = []
    for cable in cables:
        ends = []
        for end in cable.split("<->"):
            dev, port = end.strip().split(":")
            host = dev in hosts
            d = devices.get(dev) or devices.setdefault(dev, Device(
                name=dev, kind=DeviceKind.host if host else DeviceKind.switch,
                platform="linux_mlx5" if host else "sonic", tier=(tiers or {}).get(dev, 0 if host else None)))
            d.ports.setdefault(port, Port(name=port, pfc_enabled=list(pfc)))
            ends.append(Endpoint(device=dev, port=port))
        links.append(Link(a=ends[0], b=ends[1]))
    return Fabric(devices=devices, links=links, routing=routing)


def ring(n: int, routing: str = "shortest-path") -> Fabric:
    """Switches s1..sn in a ring (si:Ethernet1 <-> s(i+1):Ethernet2), host hi on si:Ethernet0."""
    cables = [f"h{i}:eth0 <-> s{i}:Ethernet0" for i in range(1, n + 1)]
    cables += [f"s{i}:Ethernet1 <-> s{i % n + 1}:Ethernet2" for i in range(1, n + 1)]
    return make_fabric(cables, routing, hosts={f"h{i}" for i in range(1, n + 1)})


def random_graph_fabric(rng: random.Random, routing: str = "shortest-path") -> Fabric:
    """A connected random switch graph (parallel cables allowed) with hosts on some switches."""
    n = rng.randint(3, 7)
    if rng.random() < 0.5:  # a ring (cycle-prone from 4 switches), a few chords
        pairs = [(i, (i + 1) % n) for i in range(n)] + [tuple(rng.sample(range(n), 2)) for _ in range(rng.randint(0, 2))]
    else:  # a spanning tree, then extra cables
        pairs = [(i, rng.randrange(i)) for i in range(1, n)]
        pairs += [tuple(rng.sample(range(n), 2)) for _ in range(rng.randint(0, n + 1))]
    count: dict[int, int] = {}
    cables = []

    def port(i: int) -> str:
        count[i] = count.get(i, 0) + 1
        return f"s{i}:Ethernet{count[i]}"

    for a, b in pairs:
        cables.append(f"{port(a)} <-> {port(b)}")
    hosts = [f"h{i}" for i in rng.sample(range(n), rng.randint(1, n))]
    cables += [f"{h}:eth0 <-> {port(int(h[1:]))}" for h in hosts]
    return make_fabric(cables, routing, hosts=set(hosts))


def expanded(net: Net, turns: Turns) -> dict:
    """The buffer-dependency graph written out edge by edge from a turn relation."""
    succ = {}
    for dev in net.switches:
        for port in net.switch_ports(dev):
            for prio in net.lossless(dev, port):
                succ[(dev, port, prio)] = [n for o in turns.get((dev, port), ()) for n in net.hop(dev, port, prio, o)]
    return succ


def cyclic_nodes(succ: dict) -> set:
    """Nodes on some cycle: reachable from one of their own successors."""
    found = set()
    for v, successors in succ.items():
        seen, queue = set(), deque(successors)
        while queue:
            w = queue.popleft()
            if w == v:
                found.add(v)
                break
            if w not in seen:
                seen.add(w)
                queue.extend(succ.get(w, ()))
    return found


def reference_sccs(succ: dict) -> set[frozenset]:
    """Components by mutual reachability (quadratic; small graphs only)."""
    reach = {}
    for v in succ:
        seen, queue = {v}, deque([v])
        while queue:
            for w in succ[queue.popleft()]:
                if w not in seen:
                    seen.add(w)
                    queue.append(w)
        reach[v] = seen
    return {frozenset(w for w in reach[v] if v in reach[w]) for v in succ}


def updown_turns(net: Net) -> Turns:
    """Valley-free turns without U-turns: from above only down, from below up or down elsewhere."""
    turns: Turns = {}
    for dev in net.switches:
        tier = net.tier(dev)
        if tier is None:
            continue
        kind = {}
        for port in net.switch_ports(dev):
            other = net.tier(net.peer[(dev, port)][0])
            if other is not None and other != tier:
                kind[port] = "up" if other > tier else "down"
        for i, k in kind.items():
            turns[(dev, i)] = {o for o, ko in kind.items() if ko == "down" or (k == "down" and o != i)} - {i}
    return turns


def switch_cables(net: Net, updown: bool = False) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Cables between switches (between different tiers under updown), each once."""
    found = set()
    for a, b in net.peer.items():
        if net.is_switch(a[0]) and net.is_switch(b[0]):
            if updown and (net.tier(a[0]) is None or net.tier(b[0]) is None or net.tier(a[0]) == net.tier(b[0])):
                continue
            found.add(tuple(sorted((a, b))))
    return sorted(found)


def distances(net: Net, cables, failed=None) -> dict[str, dict[str, int]]:
    """Switch hops from every switch to every destination (a switch with hosts), one BFS each."""
    adj: dict[str, list[str]] = {}
    for a, b in cables:
        if (a, b) != failed:
            adj.setdefault(a[0], []).append(b[0])
            adj.setdefault(b[0], []).append(a[0])
    dests = [s for s in net.switches if any(not net.is_switch(net.peer[(s, p)][0]) for p in net.ports[s])
             ] or net.switches
    out = {}
    for t in dests:
        d = {t: 0}
        queue = deque([t])
        while queue:
            v = queue.popleft()
            for w in adj.get(v, ()):
                if w not in d:
                    d[w] = d[v] + 1
                    queue.append(w)
        out[t] = d
    return out


def shortest_turns(net: Net, cables, failed=None, only=None, dist=None) -> Turns:
    """ECMP shortest-path turns (towards the destinations in ``only``, default all)."""
    dist = dist or distances(net, cables, failed)
    usable = {c for c in cables if c != failed}
    ports: dict[str, list[tuple[str, str]]] = {}  # switch -> [(its port, neighbour)]
    for a, b in usable:
        ports.setdefault(a[0], []).append((a[1], b[0]))
        ports.setdefault(b[0], []).append((b[1], a[0]))
    turns: Turns = {}
    for t, d in dist.items():
        if only is not None and t not in only:
            continue
        for dev, links in ports.items():
            if dev not in d:
                continue
            outs = {p for p, x in links if d.get(x) == d[dev] - 1}
            for p, e in links:
                if d.get(e) == d[dev] + 1:
                    turns.setdefault((dev, p), set()).update(outs)
    return turns


def union(*relations: Turns) -> Turns:
    out: Turns = {}
    for rel in relations:
        for k, v in rel.items():
            out.setdefault(k, set()).update(v)
    return out


def brute_force_sweep(net: Net, base: Turns, updown: bool) -> set:
    """Cables whose failure makes the graph cyclic: for each cable, every destination whose distances
    change gets the turns of its old and its new routes together (BGP converging), on top of ``base``."""
    cables = switch_cables(net, updown)
    old = distances(net, cables)
    found = set()
    for f in cables:
        new = distances(net, cables, f)
        changed = {t for t in old if old[t] != new[t]}
        if not changed:
            continue
        turns = union(base, transient_turns(net, cables, f, changed, old, new))
        turns = {(dev, i): {o for o in outs if (dev, o) not in f} for (dev, i), outs in turns.items()}  # f is down
        if cyclic_nodes(expanded(net, turns)):
            found.add(f)
    return found


def transient_turns(net: Net, cables, failed, dests, old, new) -> Turns:
    """Turns towards ``dests`` when each switch may hold either its old or its new next hops and traffic
    may arrive along either: arrivals (old or new) x next hops (old or new), without the failed cable."""
    usable = [c for c in cables if c != failed]
    ports: dict[str, list[tuple[str, str]]] = {}
    for a, b in usable:
        ports.setdefault(a[0], []).append((a[1], b[0]))
        ports.setdefault(b[0], []).append((b[1], a[0]))
    turns: Turns = {}
    for t in dests:
        tables = (old[t], new[t])
        for dev, links in ports.items():
            outs = {p for p, x in links for d in tables if dev in d and d.get(x) == d[dev] - 1}
            for p, e in links:
                if any(dev in d and d.get(e) == d[dev] + 1 for d in tables):
                    turns.setdefault((dev, p), set()).update(outs)
    return turns
