"""Routing models: which turns (ingress port -> egress port) each switch makes.

- UpDown (`routing: updown`): valley-free forwarding in a Clos (tiers from Device.tier, hosts at
  tier 0). A packet that came from below may go up or down; one that came from above only goes
  down. Links between switches of one tier carry no routed traffic.
- DestRouting: per-destination ECMP next hops, either shortest paths over the cables
  (`shortest-path`; ShortestPaths) or routing-table captures (`routes`; route_tables). A switch
  turns a packet from port i to port o when some destination that a neighbour sends it through i
  leaves through o.

Both give the turns in two forms: `groups(switch)`, a list of (ingress ports, egress ports) pairs
whose union is the switch's turn relation (the graph builder puts one hub node per pair, so a
64-port switch costs O(ports) edges, not O(ports^2)), and `outs(switch, port)`, the exact egress
ports of one ingress port (for the failure sweep's searches). For DestRouting the pairs are exact:
destinations are grouped by their set of egress ports S, and the pair is (ports through which some
destination of the group arrives, S); a port is never in both unless the routes loop through it.
For UpDown the "from below" pair also lets a packet leave through the port it came in by; such a
U-turn goes down into a port that only ever goes further down, so it is never on a cycle and the
factored graph has a cycle exactly when the U-turn-free one does (tests/test_deadlock_graph.py).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from ..model import NextHop, Route
from .net import Net

Group = tuple[list[str], list[str]]


class UpDown:
    def __init__(self, net: Net):
        self.net = net
        self.untiered: list[str] = [s for s in net.switches if net.tier(s) is None]
        self._up: dict[str, list[str]] = {}
        self._down: dict[str, list[str]] = {}
        for dev in net.switches:
            tier = net.tier(dev)
            if tier is None:
                continue
            up, down = [], []
            for port in net.switch_ports(dev):
                other = net.tier(net.peer[(dev, port)][0])
                if other is not None and other != tier:
                    (up if other > tier else down).append(port)
            self._up[dev], self._down[dev] = up, down

    def groups(self, dev: str) -> list[Group]:
        up, down = self._up.get(dev, []), self._down.get(dev, [])
        return [(down, up + down), (up, down)]

    def outs(self, dev: str, port: str) -> list[str]:
        up, down = self._up.get(dev, []), self._down.get(dev, [])
        if port in up:
            return down
        if port in down:
            return [o for o in up + down if o != port]
        return []


class DestRouting:
    """Turns from per-destination next hops. ``via[switch][port]`` is the bitset of destinations the
    switch forwards out of that (switch-facing) port."""

    def __init__(self, net: Net, via: dict[str, dict[str, int]]):
        self.net = net
        self.via = via
        self._groups: dict[str, list[tuple[int, Group]]] = {}
        self._outs: dict[tuple[str, str], list[str]] = {}

    def arrive(self, dev: str, port: str) -> int:
        """Destinations the neighbour on this port sends into it."""
        peer_dev, peer_port = self.net.peer[(dev, port)]
        return self.via.get(peer_dev, {}).get(peer_port, 0)

    def _classes(self, dev: str) -> list[tuple[int, Group]]:
        found = self._groups.get(dev)
        if found is None:
            classes: list[tuple[int, list[str]]] = []
            for port, bits in self.via.get(dev, {}).items():  # refine destinations by egress-port set
                rest = bits
                refined = []
                for dests, outs in classes:
                    both = dests & bits
                    if both:
                        refined.append((both, outs + [port]))
                        rest &= ~both
                        if dests & ~bits:
                            refined.append((dests & ~bits, outs))
                    else:
                        refined.append((dests, outs))
                if rest:
                    refined.append((rest, [port]))
                classes = refined
            ins = [(p, self.arrive(dev, p)) for p in self.net.switch_ports(dev)]
            found = [(dests, ([p for p, a in ins if a & dests], outs)) for dests, outs in classes]
            self._groups[dev] = found
        return found

    def groups(self, dev: str) -> list[Group]:
        return [g for _, g in self._classes(dev) if g[0]]

    def outs(self, dev: str, port: str) -> list[str]:
        key = (dev, port)
        found = self._outs.get(key)
        if found is None:
            arriving = self.arrive(dev, port)
            found = list(dict.fromkeys(o for dests, (_, outs) in self._classes(dev) if dests & arriving for o in outs))
            self._outs[key] = found
        return found


class ShortestPaths:
    """ECMP shortest paths from every switch to every destination at once.

    A destination is the set of hosts behind one switch (hosts never forward, so every host port
    on that switch ends at distance 0 from it); when the topology has no host cable at all, every
    switch is one. ``exact[k][v]`` is the bitset of destinations
    exactly k switch hops from switch v; each round ORs the neighbours' sets, so the whole table
    costs (diameter x cables) big-integer operations instead of one breadth-first search per
    destination. ``nh[v][port]``: destinations for which that cable is one of v's next hops."""

    def __init__(self, net: Net, usable=lambda dev, port, peer: True):
        self.net = net
        self.names = list(net.switches)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.adj: list[list[tuple[str, int, str]]] = []  # v -> [(port, u, u's port)]
        for dev in self.names:
            self.adj.append([(p, self.index[peer[0]], peer[1]) for p in net.switch_ports(dev)
                             if (peer := net.peer[(dev, p)]) and usable(dev, p, peer)])
        # Without any host cable in the topology, every switch is taken to have hosts behind it.
        self.dests = [n for n in self.names if any(not net.is_switch(net.peer[(n, p)][0]) for p in net.ports[n])
                      ] or list(self.names)
        self.dest_index = {n: i for i, n in enumerate(self.dests)}
        reach = [0] * len(self.names)
        for name, t in self.dest_index.items():
            reach[self.index[name]] = 1 << t
        self.exact = [list(reach)]
        while True:
            grown = [r | _or(reach[u] for _, u, _ in links) for r, links in zip(reach, self.adj)]
            level = [g & ~r for g, r in zip(grown, reach)]
            if not any(level):
                break
            self.exact.append(level)
            reach = grown
        self.nh: list[dict[str, int]] = []
        exact = self.exact
        for v, links in enumerate(self.adj):
            levels = [(k, exact[k][v]) for k in range(1, len(exact)) if exact[k][v]]
            self.nh.append({p: _or(bits & exact[k - 1][u] for k, bits in levels) for p, u, _ in links})
        self._dist: dict[int, bytearray] = {}

    def dist(self, t: int) -> bytearray:
        """Hops from each switch to destination t (UNREACHABLE when there is no path)."""
        found = self._dist.get(t)
        if found is None:
            found = bytearray([UNREACHABLE]) * len(self.names)
            for k, level in enumerate(self.exact):
                for v, bits in enumerate(level):
                    if bits >> t & 1:
                        found[v] = k
            self._dist[t] = found
        return found

    def routing(self) -> DestRouting:
        return DestRouting(self.net, {n: {p: b for p, b in self.nh[i].items() if b} for i, n in enumerate(self.names)})


UNREACHABLE = 255


def _or(values) -> int:
    out = 0
    for v in values:
        out |= v
    return out


# Interfaces that never carry fabric traffic: a route through them is not a fabric next hop.
_OUT_OF_BAND = re.compile(r"^(eth\d+|Management[\d/]*|mgmt\d*|Loopback\d+|lo|docker\d+|Null0)$", re.IGNORECASE)
_BUNDLE = re.compile(r"^(PortChannel|Port-Channel|Po|Vlan|Bond|bond)\d", re.IGNORECASE)


@dataclass(frozen=True)
class BadHop:
    """A route whose next hop cannot be followed to a cable."""

    device: str
    route: Route
    hop: NextHop
    port: str | None  # the device's port the finding points at, when it has one by that name
    why: str


def resolve(net: Net, dev: str, hop: NextHop) -> tuple[str | None, str | None]:
    """(egress port with a known cable, None) or (None, why it cannot be followed); (None, None) when
    the hop leaves the fabric: a connected route delivers here, or the interface is out of band."""
    if hop.address is None or (hop.port and _OUT_OF_BAND.match(hop.port)):
        return None, None
    if not hop.port:
        return None, f"next hop {hop.address} has no egress interface"
    for name in (hop.port, hop.port.split(".")[0]):  # Ethernet2.101: a subinterface of Ethernet2
        if (dev, name) in net.peer:
            return name, None
    ports = net.device(dev).ports
    if hop.port in ports or hop.port.split(".")[0] in ports:
        return None, f"no cable is known on {hop.port}"
    if _BUNDLE.match(hop.port):
        return None, f"{hop.port} is a port-channel or VLAN interface; its member cables are not known"
    return None, f"{hop.port} is not a port of {dev}"


def route_tables(net: Net) -> tuple[DestRouting, list[BadHop], list[str]]:
    """Routing-table captures -> turns. Returns (routing, bad next hops, switches without a capture).

    Destinations are address classes: every prefix in any table, less the more specific prefixes
    inside it (all addresses of a class take the same longest-prefix match on every switch). A
    class is looked up by one address of it."""
    switches = [s for s in net.switches if net.switch_ports(s)]
    tables = {s: [(n, r) for r in net.device(s).routes if (n := _network(r.prefix))] for s in switches
              if net.device(s).routes}
    prefixes = sorted({n for routes in tables.values() for n, _ in routes},
                      key=lambda n: (n.version, int(n.network_address), n.prefixlen))
    classes = [(p, addr) for i, p in enumerate(prefixes) if (addr := _own_address(i, prefixes)) is not None]
    via: dict[str, dict[str, int]] = {}
    bad: list[BadHop] = []
    for dev, routes in tables.items():
        lookup: dict[tuple[int, int], dict[int, Route]] = {}
        for n, r in routes:
            lookup.setdefault((n.version, n.prefixlen), {})[int(n.network_address)] = r
        resolved: dict[int, list[str]] = {}  # id(route) -> egress ports to switches
        for _, r in routes:
            outs = []
            for hop in r.next_hops:
                port, why = resolve(net, dev, hop)
                if why:
                    ports = net.device(dev).ports
                    bad.append(BadHop(dev, r, hop, hop.port if hop.port in ports else None, why))
                elif port and net.is_switch(net.peer[(dev, port)][0]):
                    outs.append(port)
            resolved[id(r)] = outs
        lengths = sorted(lookup, key=lambda k: -k[1])
        bits: dict[str, int] = {}
        for t, (network, addr) in enumerate(classes):
            for version, plen in lengths:
                if version != network.version:
                    continue
                width = network.max_prefixlen
                r = lookup[(version, plen)].get(addr >> (width - plen) << (width - plen))
                if r is not None:
                    for port in resolved[id(r)]:
                        bits[port] = bits.get(port, 0) | 1 << t
                    break
        via[dev] = bits
    missing = [s for s in switches if s not in tables]
    return DestRouting(net, via), bad, missing


def _network(prefix: str):
    """The prefix as an ip_network; None for text that is not one (the route parser never makes those)."""
    try:
        return ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        return None


def _own_address(i: int, prefixes: list) -> int | None:
    """The first address of prefixes[i] not inside a more specific prefix of the list (None: fully covered).

    The list is sorted by (version, start address, length), so the prefixes inside prefixes[i] follow it."""
    network = prefixes[i]
    start, end = int(network.network_address), int(network.broadcast_address)
    candidate = start
    for other in prefixes[i + 1:]:
        o_start = int(other.network_address)
        if other.version != network.version or o_start > end or o_start > candidate:
            break
        candidate = max(candidate, int(other.broadcast_address) + 1)
        if candidate > end:
            return None
    return candidate
