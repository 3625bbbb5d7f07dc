"""Routing models: which turns (ingress port -> egress port) each switch makes, and the ECMP next hops
towards one receiver.

- UpDown (`routing: updown`): valley-free forwarding in a Clos (tiers from Device.tier, hosts at
  tier 0). A packet that came from below may go up or down; one that came from above only goes
  down. Links between switches of one tier, and switches without a tier, carry no routed traffic.
  Towards one receiver a switch takes every shortest valley-free next hop (BGP's ECMP in a Clos).
- DestRouting: per-destination ECMP next hops, either shortest paths over the cables
  (`shortest-path`; ShortestPaths; a destination is the hosts behind one switch) or routing-table
  captures (`routes`; route_tables; a destination is an address class, and a receiver's classes
  are those its switch delivers out of the receiver's port by a connected route). A switch turns a
  packet from port i to port o when some destination that a neighbour sends it through i leaves
  through o.

Every model gives the turns in two forms: `groups(switch)`, a list of (ingress ports, egress ports)
pairs whose union is the switch's turn relation (the graph builder puts one hub node per pair, so a
64-port switch costs O(ports) edges, not O(ports^2)), and `outs(switch, port)`, the exact egress
ports of one ingress port (for the failure sweep's searches). For DestRouting the pairs are exact:
destinations are grouped by their set of egress ports S, and the pair is (ports through which some
destination of the group arrives, S); a port is never in both unless the routes loop through it.
For UpDown the "from below" pair also lets a packet leave through the port it came in by; such a
U-turn goes down into a port that only ever goes further down, so it is never on a cycle and the
factored graph has a cycle exactly when the U-turn-free one does (tests/test_deadlock_graph.py).
UpDown's turns are every valley-free turn: the union of the shortest ones `toward` follows, and in a
Clos that misses cables a few longer ones (the deadlock analysis over-approximates; see
docs/deadlock.md). For DestRouting both forms come from the same next-hop tables.

`toward(receiver)` gives the next hops the path rules (PTH) follow; `gaps` names the switches whose
forwarding the model does not know, with the reason both rule families print.
"""

from __future__ import annotations

import ipaddress
import re
from collections import deque
from collections.abc import Callable, Iterator

from ..lazyre import lazy
from ..model import Device, NextHop, Route, suspended
from ..prefixes import LongestPrefix
from ..records import record
from .cabling import Cabling, End

Group = tuple[list[str], list[str]]
Step = tuple[str, str, str, object]  # (egress port, next device, its ingress port, the next state)
DELIVER = "deliver"


class Toward:
    """The ECMP next hops towards one receiver NIC port. A walk starts at the sender's switch in each of
    ``starts`` (several address classes of one receiver under `routes`); next_hops(switch, state) leads
    on, and from the receiver's switch to the receiver itself. ``why``: why there is no start."""

    def __init__(self, target: End, last: End, starts: list, hops: Callable[[str, object], list[Step]],
                 gap: Callable[[str], str | None], why: str | None = None):
        self.target = target
        self.last = last  # (switch, port) the receiver hangs off
        self.starts = starts
        self._hops = hops
        self.gap = gap
        self.why = why
        self._memo: dict[tuple[str, object], list[Step]] = {}

    def next_hops(self, switch: str, state) -> list[Step]:
        key = (switch, state)
        found = self._memo.get(key)
        if found is None:
            if switch == self.last[0]:
                found = [(self.last[1], self.target[0], self.target[1], DELIVER)]
            else:
                found = self._hops(switch, state)
            self._memo[key] = found
        return found


class UpDown:
    def __init__(self, cabling: Cabling):
        self.cabling = cabling
        self.gaps = {s: "its Clos tier is not known (topology `tiers:`)" for s in cabling.switches
                     if cabling.tier(s) is None and cabling.switch_ports(s)}
        self._up: dict[str, list[str]] = {}
        self._down: dict[str, list[str]] = {}
        self._sides: dict[str, list[tuple[str, str, str, str]]] = {}  # switch -> [(port, peer, its port, up/down)]
        for dev in cabling.switches:
            tier = cabling.tier(dev)
            if tier is None:
                continue
            up, down, sides = [], [], []
            for port in cabling.switch_ports(dev):
                nxt = cabling.peer[(dev, port)]
                other = cabling.tier(nxt[0])
                if other is not None and other != tier:
                    (up if other > tier else down).append(port)
                    sides.append((port, *nxt, "up" if other > tier else "down"))
            self._up[dev], self._down[dev], self._sides[dev] = up, down, sides
        self._toward: dict[str, tuple[dict[str, int], dict[str, int]]] = {}

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

    def toward(self, target: End) -> Toward:
        """Every shortest valley-free path to the receiver: up the tiers (state "up"), then down ("down")."""
        last = self.cabling.peer[target]
        down, up = self._distances(last[0])
        sides = self._sides

        def hops(switch: str, phase) -> list[Step]:
            here = (up if phase == "up" else down).get(switch)
            if here is None:
                return []
            going_down = down.get(switch) == here  # going down now is a shortest way
            out: list[Step] = []
            for p, nd, np, side in sides.get(switch, ()):
                if side == "down":
                    if going_down and down.get(nd) == here - 1:
                        out.append((p, nd, np, "down"))
                elif phase == "up" and up.get(nd) == here - 1:
                    out.append((p, nd, np, "up"))
            return out

        return Toward(target, last, ["up"], hops, self.gaps.get)

    def summits(self, switches: list[str]) -> dict[str, int]:
        """Per switch, the highest switches its up-closure reaches (those with no way further up), as a bitset. Two
        switches have a valley-free route between them exactly when their up-closures meet, so when their summits do
        (a switch above a meeting point leads on to a summit of both): one pass, not one search per receiver."""
        bit: dict[str, int] = {}
        found: dict[str, int] = {}
        peer = self.cabling.peer

        def visit(dev: str) -> int:  # (tiers rise along up ports, so the walk is over a DAG; memoised, iterative)
            todo = [dev]
            while todo:
                v = todo[-1]
                if v in found:
                    todo.pop()
                    continue
                above = [peer[(v, p)][0] for p in self._up.get(v, ())]
                missing = [w for w in above if w not in found]
                if missing:
                    todo.extend(missing)
                    continue
                todo.pop()
                if above:
                    found[v] = union(found[w] for w in above)
                else:
                    found[v] = bit.setdefault(v, 1 << len(bit))
            return found[dev]

        return {s: visit(s) for s in switches}

    def _distances(self, leaf: str) -> tuple[dict[str, int], dict[str, int]]:
        """Hops to ``leaf`` going only down, and going up first then down, from every switch that has them."""
        found = self._toward.get(leaf)
        if found is None:
            peer = self.cabling.peer
            down = {leaf: 0}
            queue = deque([leaf])
            while queue:  # backwards: v goes down to w when w goes up to v
                w = queue.popleft()
                for p in self._up.get(w, ()):
                    v = peer[(w, p)][0]
                    if v not in down:
                        down[v] = down[w] + 1
                        queue.append(v)
            up = {}
            for v in sorted(self._up, key=lambda n: -self.cabling.tier(n)):  # higher tiers first
                best = down.get(v)
                for p in self._up[v]:
                    w = peer[(v, p)][0]
                    if w in up and (best is None or up[w] + 1 < best):
                        best = up[w] + 1
                if best is not None:
                    up[v] = best
            up.setdefault(leaf, 0)
            found = self._toward[leaf] = (down, up)
        return found


class DestRouting:
    """Turns from per-destination next hops. ``via[switch][port]`` is the bitset of destinations the
    switch forwards out of that (switch-facing) port; ``destinations(receiver)`` the receiver's bits."""

    def __init__(self, cabling: Cabling, via: dict[str, dict[str, int]],
                 destinations: Callable[[End], tuple[int, str | None]], gaps: dict[str, str] | None = None):
        self.cabling = cabling
        self.via = via
        self.destinations = destinations
        self.gaps = gaps or {}
        self._groups: dict[str, list[tuple[int, Group]]] = {}
        self._outs: dict[tuple[str, str], list[str]] = {}

    def arrive(self, dev: str, port: str) -> int:
        """Destinations the neighbour on this port sends into it."""
        peer_dev, peer_port = self.cabling.peer[(dev, port)]
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
            ins = [(p, self.arrive(dev, p)) for p in self.cabling.switch_ports(dev)]
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

    def toward(self, target: End) -> Toward:
        """The next hops of each of the receiver's destinations (state: the destination's index)."""
        last = self.cabling.peer[target]
        bits, why = self.destinations(target)
        via, peer = self.via, self.cabling.peer

        def hops(switch: str, t) -> list[Step]:
            return [(p, *peer[(switch, p)], t) for p, b in via.get(switch, {}).items() if b >> t & 1]

        return Toward(target, last, list(bits_of(bits)), hops, self.gaps.get, why)


class ShortestPaths:
    """ECMP shortest paths from every switch to every destination at once.

    A destination is the set of hosts behind one switch (hosts never forward, so every host port
    on that switch ends at distance 0 from it); when the topology has no host cable at all, every
    switch is one. ``exact[k][v]`` is the bitset of destinations
    exactly k switch hops from switch v; each round ORs the neighbours' sets, so the whole table
    costs (diameter x cables) big-integer operations instead of one breadth-first search per
    destination. ``nh[v][port]``: destinations for which that cable is one of v's next hops."""

    def __init__(self, cabling: Cabling, usable=lambda dev, port, peer: True):
        self.cabling = cabling
        self.names = list(cabling.switches)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.adj: list[list[tuple[str, int, str]]] = []  # v -> [(port, u, u's port)]
        for dev in self.names:
            self.adj.append([(p, self.index[peer[0]], peer[1]) for p in cabling.switch_ports(dev)
                             if (peer := cabling.peer[(dev, p)]) and usable(dev, p, peer)])
        # Without any host cable in the topology, every switch is taken to have hosts behind it.
        self.dests = [n for n in self.names if any(not cabling.is_switch(cabling.peer[(n, p)][0])
                                                   for p in cabling.ports[n])] or list(self.names)
        self.dest_index = {n: i for i, n in enumerate(self.dests)}
        reach = [0] * len(self.names)
        for name, t in self.dest_index.items():
            reach[self.index[name]] = 1 << t
        self.exact = [list(reach)]
        while True:
            grown = [r | union(reach[u] for _, u, _ in links) for r, links in zip(reach, self.adj)]
            level = [g & ~r for g, r in zip(grown, reach)]
            if not any(level):
                break
            self.exact.append(level)
            reach = grown
        self.nh: list[dict[str, int]] = []
        exact = self.exact
        for v, links in enumerate(self.adj):
            levels = [(k, exact[k][v]) for k in range(1, len(exact)) if exact[k][v]]
            self.nh.append({p: union(bits & exact[k - 1][u] for k, bits in levels) for p, u, _ in links})
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
        def destinations(target: End) -> tuple[int, str | None]:
            t = self.dest_index.get(self.cabling.peer[target][0])
            return (0, "its switch is not a destination") if t is None else (1 << t, None)

        return DestRouting(self.cabling, {n: {p: b for p, b in self.nh[i].items() if b}
                                          for i, n in enumerate(self.names)}, destinations)


UNREACHABLE = 255


def union(values) -> int:
    """The bitwise OR of integer bit sets (node sets as bits)."""
    out = 0
    for v in values:
        out |= v
    return out


def bits_of(value: int) -> Iterator[int]:
    """The positions of the set bits, lowest first."""
    while value:
        low = value & -value
        yield low.bit_length() - 1
        value ^= low


# Interfaces that never carry fabric traffic: a route through them is not a fabric next hop.
# (Junos: `em0`, `fxp0` management, `lo0` loopback, each with its unit.)
_OUT_OF_BAND = lazy(r"^(eth\d+|Management[\d/]*|mgmt\d*|Loopback\d+|lo|docker\d+|Null0"
                    r"|(?:em|fxp|lo)\d+(?:\.\d+)?)$", re.IGNORECASE)
_BUNDLE = lazy(r"^(?:(PortChannel|Port-Channel|Po|Vlan|Bond|bond|ae)\d|irb\.\d)", re.IGNORECASE)
_VLAN = lazy(r"^Vlan(\d+)$", re.IGNORECASE)
# A link aggregate by its number, however it is spelled: NX-OS `port-channel10` (config), `Po10` (show ip route,
# `Port-Channel10` once made long), SONiC `PortChannel0010`, EOS `Port-Channel10`, Junos `ae10` (its unit `ae10.0`).
_AGGREGATE = lazy(r"^(?:port-?channel|po|ae)0*(\d+)$", re.IGNORECASE)
NO_CAPTURE = "no routing-table capture was given for it"


@record(frozen=True)
class BadHop:
    """A route whose next hop cannot be followed to a cable."""

    device: str
    route: Route
    hop: NextHop
    port: str | None  # the device's port the finding points at, when it has one by that name
    why: str


def resolve(cabling: Cabling, dev: str, hop: NextHop) -> tuple[list[str], str | None]:
    """(egress ports with a known cable, None): one port, or the members of a link aggregate that carry its
    traffic (the flows hash over them as over ECMP paths); or ([], why it cannot be followed); ([], None) when
    the hop leaves the fabric: a connected route delivers here, or the interface is out of band."""
    if hop.address is None or (hop.port and _OUT_OF_BAND.match(hop.port)):
        return [], None
    if not hop.port:
        return [], f"next hop {hop.address} has no egress interface"
    for name in (hop.port, hop.port.split(".")[0]):  # Ethernet2.101: a subinterface of Ethernet2
        if (dev, name) in cabling.peer:
            return [name], None
    ports = cabling.device(dev).ports
    if hop.port in ports or hop.port.split(".")[0] in ports:
        return [], f"no cable is known on {hop.port}"
    members, said = aggregate_members(cabling, dev, hop.port.split(".")[0])
    if members is not None:
        cabled = [p for p in members if (dev, p) in cabling.peer]
        if cabled:
            return cabled, None
        return [], (f"{hop.port} has no member up in it ({said})" if not members else
                    f"no cable is known on the members of {hop.port} ({', '.join(members)}, {said})")
    if _BUNDLE.match(hop.port):
        return [], f"{hop.port} is a port-channel or VLAN interface; its member cables are not known"
    return [], f"{hop.port} is not a port of {dev}"


def aggregate_members(cabling: Cabling, dev: str, name: str) -> tuple[list[str] | None, str]:
    """The member ports of link aggregate ``name`` of ``dev`` that carry its traffic, and where that was read: a
    capture's (Device.bundle_members: members up in it; Device.bundle_members_shown: the members the aggregate's own
    interface output lists), else, when no summary shows the aggregates, the config's (Port.bundle: members it
    names). None when ``name`` is no aggregate, the summary does not list it (its row could not be read: a SYS002
    says routes through it are not followed), its interface output's members line could not be read (the same), or
    the config names no member of it."""
    memo = cabling.aggregates  # (routes through one port-channel: many)
    key = (dev, _key(name))
    if key not in memo:
        memo[key] = _members(cabling.device(dev), key[1])
    return memo[key]


def aggregate_ports(device: Device, name: str) -> list[str]:
    """The ports the config makes members of link aggregate ``name`` (Port.bundle), however the name is spelled
    (`Po10`, `port-channel10`, `PortChannel0010`, `ae10`; a bond by its name, `bond1`, `peerlink`); [] when it is
    none of the device's aggregates."""
    return _configured(device, _key(name))


def _key(name: str) -> int | str:
    """A numbered aggregate by its number (_AGGREGATE), any other (an NVUE bond: Cumulus Linux names them freely,
    `bond1`, `peerlink`) by its name as written."""
    m = _AGGREGATE.match(name)
    return int(m[1]) if m else name


def _configured(device: Device, key: int | str) -> list[str]:
    return [p.name for p in device.ports.values() if p.bundle and _key(p.bundle) == key]


def _members(device: Device, key: int | str) -> tuple[list[str] | None, str]:
    for captured, said in ((device.bundle_members, "show port-channel summary"),
                           (device.bundle_members_shown, f"show interface port-channel {key}")):
        for bundle, ports in (captured or {}).items():  # the config's members may be down, or out of the port-channel
            if _key(bundle) == key:
                return (ports, said) if ports is not None else (None, "")  # (None: its members line not read)
    if device.bundle_members is not None and isinstance(key, int):  # a summary row not read (a SYS002 said routes
        return None, ""  # through it are not followed)
    configured = _configured(device, key)
    if not configured:
        return None, ""
    # (a member the switch suspends carries nothing: only where the model's guide says so, model.suspended; another
    # whose own settings differ from the aggregate's stays in: PFC007)
    up = [name for name in configured if not suspended(device, device.ports[name])]
    return up, "its members in the config" + ("" if len(up) == len(configured) else ", but those the switch suspends")


def delivered(cabling: Cabling, dev: str, hop: NextHop) -> list[str]:
    """The host-facing ports a connected route's hop delivers to: its port (or the port of its subinterface),
    the cabled members of its link aggregate, or every cabled member of its VLAN interface's VLAN."""
    if hop.address is not None or not hop.port or _OUT_OF_BAND.match(hop.port):
        return []
    for name in (hop.port, hop.port.split(".")[0]):
        if (dev, name) in cabling.peer:
            return [name]
    members, _ = aggregate_members(cabling, dev, hop.port.split(".")[0])
    if members is not None:  # a host's bond on a port-channel
        return [p for p in members if (dev, p) in cabling.peer]
    number = vlan_of(cabling.device(dev), hop.port)
    if number is not None:
        return [p for p in cabling.ports.get(dev, ()) if number in (cabling.port(dev, p).vlans or ())]
    return []


def vlan_of(device: Device, interface: str) -> int | None:
    """The VLAN a routed VLAN interface routes: SONiC/EOS/NX-OS `Vlan1000` by its name, Junos `irb.100` by the VLAN
    whose `l3-interface` it is (Device.vlan_interfaces: the unit number need not be the VLAN ID)."""
    vlan = _VLAN.match(interface)
    if vlan:
        return int(vlan[1])
    return (device.vlan_interfaces or {}).get(interface)


def route_tables(cabling: Cabling) -> tuple[DestRouting, list[BadHop]]:
    """Routing-table captures -> turns. Returns (routing, bad next hops); the switches without a capture are
    the routing's ``gaps``.

    Destinations are address classes: every prefix in any table, less the more specific prefixes
    inside it (all addresses of a class take the same longest-prefix match on every switch). A
    class is looked up by one address of it. A receiver NIC port is in the classes its switch
    delivers out of the receiver's port (a connected route on that port, its subinterface, or a VLAN
    interface of a VLAN the port is in)."""
    switches = [s for s in cabling.switches if cabling.switch_ports(s)]
    tables = {s: [(n, r) for r in cabling.device(s).routes if (n := _network(r.prefix))] for s in cabling.switches
              if cabling.device(s).routes}
    prefixes = sorted({n for routes in tables.values() for n, _ in routes},
                      key=lambda n: (n.version, int(n.network_address), n.prefixlen))
    classes = [(p, addr) for i, p in enumerate(prefixes) if (addr := _own_address(i, prefixes)) is not None]
    via: dict[str, dict[str, int]] = {}
    delivers: dict[End, int] = {}  # (switch, host-facing port) -> classes delivered out of it
    bad: list[BadHop] = []
    for dev, routes in tables.items():
        lookup = LongestPrefix(routes)
        resolved: dict[int, tuple[list[str], list[str]]] = {}  # id(route) -> (egress ports to switches, to hosts)
        for _, r in routes:
            outs: list[str] = []
            local: list[str] = []
            for hop in r.next_hops:
                found, why = resolve(cabling, dev, hop)
                if why:
                    ports = cabling.device(dev).ports
                    bad.append(BadHop(dev, r, hop, hop.port if hop.port in ports else None, why))
                elif found:
                    outs.extend(p for p in found if cabling.is_switch(cabling.peer[(dev, p)][0]) and p not in outs)
                else:
                    local.extend(p for p in delivered(cabling, dev, hop) if not cabling.is_switch(cabling.peer[(dev, p)][0]))
            resolved[id(r)] = (outs, local)
        bits: dict[str, int] = {}
        for t, (network, addr) in enumerate(classes):
            r = lookup.match(network.version, addr)
            if r is not None:
                outs, local = resolved[id(r)]
                for port in outs:
                    bits[port] = bits.get(port, 0) | 1 << t
                for port in local:
                    delivers[(dev, port)] = delivers.get((dev, port), 0) | 1 << t
        via[dev] = bits
    gaps = dict.fromkeys((s for s in switches if s not in tables), NO_CAPTURE)

    def destinations(target: End) -> tuple[int, str | None]:
        switch, port = cabling.peer[target]
        if switch not in tables:
            return 0, (f"no routing-table capture was given for {switch}, so which prefix {target[0]}:{target[1]} is in "
                       "is not known")
        found = delivers.get((switch, port), 0)
        return found, None if found else (f"no route of {switch}'s routing table is connected to {port}, so which "
                                          f"prefix {target[0]}:{target[1]} is in is not known")

    return DestRouting(cabling, via, destinations, gaps), bad


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
    for j in range(i + 1, len(prefixes)):  # (not a slice: a copy of the rest per prefix was quadratic)
        other = prefixes[j]
        o_start = int(other.network_address)
        if other.version != network.version or o_start > end or o_start > candidate:
            break
        candidate = max(candidate, int(other.broadcast_address) + 1)
        if candidate > end:
            return None
    return candidate
