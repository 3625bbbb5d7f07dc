"""Single-link-failure sweep: which cable failures make the buffer-dependency graph cyclic.

What routing does after a failure (docs/deadlock.md): switches run BGP with ECMP over the cables,
each switch picking the shortest paths it still has (in a Clos these are the valley-free paths, so
before a failure this is `updown`; after one, a spine that lost its cable to a leaf reaches that
leaf through another leaf and another spine: the down-up "bounce" of Tagger, Hu et al., CoNEXT
2017). Withdrawals travel hop by hop, so for a while every switch forwards with either its old or
its new routes; a packet buffered then may have been sent on either, so the graph after a failure
takes the turns of both tables (hosts never forward, and a failed host cable only withdraws routes).

No failure is analysed from scratch. The graph before the failure is acyclic (or the sweep does not
run), so a cycle afterwards uses a turn that only the new routes make. Routes change only towards
destinations for which an end of the failed cable had it as its only shortest next hop (else every
distance stays, and next-hop sets only shrink); for those, the switches whose distance grows are
found level by level from that end, and their new turns are the failure's added turns.
  1. Most failures close a cycle at once: the end that lost its route sends the traffic to a
     neighbour that, on its old routes, sends it straight back (a two-buffer loop on one cable,
     the transient loop of Hu et al., HotNets 2016). That needs only the two switches' tables.
  2. Otherwise the added turns are computed in full and a cycle is searched for through them: a
     search from their tails that enters only buffers whose rank, in a topological order of the
     graph before the failure, lies between the lowest added head and the highest added tail (a
     path between two added turns climbs that order, so no cycle leaves the window).
Both are checked against rebuilding the whole graph for every cable (tests/test_deadlock_sweep.py).
"""

from __future__ import annotations

import heapq
from dataclasses import field

from ..gcpause import gc_paused
from ..paths.routing import UNREACHABLE, ShortestPaths, bits_of, union
from ..records import record
from .analysis import Analysis
from .net import Node, label, sort_key
from .scc import cycle_through, is_cyclic, strongly_connected

End = tuple[str, str]  # (device, port)


@record
class FailureCycle:
    """A dependency cycle that one cable's failure creates, and how the re-routing makes it."""

    cable: tuple[End, End]
    buffers: list[Node]  # witness cycle, from its first buffer round to (not repeating) it
    why: str  # how the failure re-routes traffic into it

    def text(self) -> str:
        return " -> ".join(label(n) for n in [*self.buffers, self.buffers[0]])


@record
class SweepStats:
    """How many cables the single-failure sweep considered, and why it could skip some."""

    cables: int = 0  # cables considered
    host_cables: int = 0  # to a host: a failure only withdraws that NIC port's routes
    unrouted: int = 0  # carry no routed traffic (same-tier cables under updown)
    unchanged: int = 0  # no distance changes: next-hop sets only shrink
    local: int = 0  # decided from the two switches of a two-buffer loop
    searched: int = 0  # added turns computed in full and searched
    visited: int = 0  # buffers the searches entered


@record
class SweepResult:
    """What the single-cable failure sweep found (or why none was run)."""

    failures: list[FailureCycle] = field(default_factory=list)
    stats: SweepStats = field(default_factory=SweepStats)
    skipped: str | None = None  # why no sweep was run


def sweep(a: Analysis) -> SweepResult:
    if a.routing == "routes":
        return SweepResult(skipped="routing-table captures show one moment; what the routing protocol does "
                                   "after a failure is not in them (declare updown or shortest-path to sweep)")
    if a.cycles:
        return SweepResult(skipped="the fabric already has cyclic buffer dependencies (DLK001); fix those first")
    with gc_paused():
        return _Sweep(a).run()


class _Sweep:
    def __init__(self, a: Analysis):
        self.a = a
        net = self.net = a.net
        if a.shortest is not None:
            self.sp = a.shortest
        else:  # updown: BGP over the cables between tiers
            def inter_tier(dev, port, peer):
                t1, t2 = net.tier(dev), net.tier(peer[0])
                return t1 is not None and t2 is not None and t1 != t2
            self.sp = ShortestPaths(net.cabling, inter_tier)
        sp = self.sp
        self.twice_link: list[int] = []  # destinations with two or more next-hop cables
        self.by_device: list[dict[int, int]] = []  # next-hop destinations per neighbour switch
        self.twice_device: list[int] = []  # destinations with next hops on two or more neighbours
        for v, nh in enumerate(sp.nh):
            self.twice_link.append(_twice(nh.values()))
            per: dict[int, int] = {}
            for p, u, _ in sp.adj[v]:
                per[u] = per.get(u, 0) | nh[p]
            self.by_device.append(per)
            self.twice_device.append(_twice(per.values()))
        self.routed = {(v, p) for v, links in enumerate(sp.adj) for p, _, _ in links}
        self._near: dict[int, list[int]] = {}

    def run(self) -> SweepResult:
        out = SweepResult()
        stats = out.stats
        net, sp = self.net, self.sp
        cables = sorted({tuple(sorted((a, b))) for a, b in net.peer.items()})
        for a, b in cables:
            stats.cables += 1
            if not (net.is_switch(a[0]) and net.is_switch(b[0])):
                stats.host_cables += 1
                continue
            ends = ((sp.index[a[0]], a[1]), (sp.index[b[0]], b[1]))
            if ends[0] not in self.routed:
                stats.unrouted += 1
                continue
            seeds = [(v, t) for (v, p) in ends for t in bits_of(sp.nh[v][p] & ~self.twice_link[v])]
            if not seeds:
                stats.unchanged += 1
                continue
            found = next(filter(None, (self._loop(v, t, ends) for v, t in seeds)), None)
            if found:
                stats.local += 1
            else:
                stats.searched += 1
                found = self._search(seeds, ends, stats)
            if found:
                out.failures.append(FailureCycle((a, b), *found))
        return out

    def _loop(self, v: int, t: int, failed) -> tuple[list[Node], str] | None:
        """The two-buffer loop: v's only route to t went over the failed cable, its next shortest one
        goes to a neighbour u whose old routes to t still go through v."""
        sp, net = self.sp, self.net
        exact = sp.exact
        dv = next(k for k, level in enumerate(exact) if level[v] >> t & 1)  # (a seed: v has a route to t)
        # A spine has a cable per leaf and the sweep a seed per cable: whether v has a cable to a neighbour as far
        # from t as v is read from a bitset per distance, not cable by cable. (The failed cable is not one of them:
        # it led to v's only next hop towards t, one hop nearer.)
        if self._near_bits(v)[dv] >> t & 1:
            return None  # new next hops at the same distance: not a simple bounce
        if dv + 1 == len(exact):
            return None  # no switch is farther from t: none is upstream of v
        upstream = exact[dv + 1]
        name = sp.names[v]
        for p, u, up in sp.adj[v]:
            if (v, p) in failed or not upstream[u] >> t & 1 or (
                    self.by_device[u].get(v, 0) & ~self.twice_device[u]) >> t & 1:
                continue  # u is not upstream of v, or u's distance grows too
            for prio in net.lossless(name, p):
                for n1 in net.hop(name, p, prio, p):
                    if (name, p, prio) in net.hop(n1[0], n1[1], n1[2], up):
                        return [(name, p, prio), n1], (
                            f"{name} loses its only shortest route to the hosts behind {sp.dests[t]} and re-routes "
                            f"them through {sp.names[u]} ({dv + 2} hops instead of {dv}), while {sp.names[u]}, until "
                            f"the withdrawal reaches it, still sends them to {name}")
        return None

    def _near_bits(self, v: int) -> list[int]:
        """Per distance k: the destinations k hops from a neighbour of v."""
        found = self._near.get(v)
        if found is None:
            links = self.sp.adj[v]
            found = self._near[v] = [union(level[u] for _, u, _ in links) for level in self.sp.exact]
        return found

    def _search(self, seeds, failed, stats: SweepStats) -> tuple[list[Node], str] | None:
        sp, net, a = self.sp, self.net, self.a
        extra: dict[End, dict[str, None]] = {}
        for v, t in seeds:
            for (w, p), outs in self._added_turns(v, t, failed).items():
                extra.setdefault((sp.names[w], p), {}).update(dict.fromkeys(outs))
        added = [((dev, port, prio), n) for (dev, port), outs in extra.items() for prio in net.lossless(dev, port)
                 for o in outs for n in net.hop(dev, port, prio, o)]
        if not added:
            return None
        rank, ids = a.rank, a.graph.ids
        lo = min(rank[ids[n]] for _, n in added)
        hi = max(rank[ids[u]] for u, _ in added)
        turns = a.turns
        down = {(sp.names[v], p) for v, p in failed}

        def successors(node: Node) -> list[Node]:
            stats.visited += 1
            dev, port, prio = node
            found = []
            for o in [*turns.outs(dev, port), *extra.get((dev, port), ())]:
                if (dev, o) not in down:
                    found.extend(n for n in net.hop(dev, port, prio, o) if lo <= rank[ids[n]] <= hi)
            return found

        tails = sorted({u for u, _ in added if lo <= rank[ids[u]]}, key=sort_key)
        for comp in strongly_connected(tails, successors):
            if is_cyclic(comp, successors):
                members = set(comp)
                start = min((u for u, n in added if u in members and n in members), key=sort_key)
                dests = ", ".join(sp.dests[t] for t in sorted({t for _, t in seeds}))
                return cycle_through(start, successors, members), (
                    f"BGP's new shortest routes to the hosts behind {dests}, together with old routes still in "
                    f"use until the change reaches every switch, close this cycle")
        return None

    def _added_turns(self, seed: int, t: int, failed) -> dict[tuple[int, str], list[str]]:
        """Turns towards t that only the new routes make: at switches whose distance to t grows (new next
        hops, traffic arriving on old or new routes) and at their new next hops (traffic newly arriving)."""
        sp = self.sp
        d = sp.dist(t)

        def links(w):
            return [(p, x, xp) for p, x, xp in sp.adj[w] if (w, p) not in failed]

        affected = {seed}
        frontier = [seed]
        while frontier:  # level by level: a switch's distance grows when all its next hops' distances grow
            candidates = dict.fromkeys(w for u in frontier for _, w, _ in links(u) if d[w] == d[u] + 1 and w not in affected)
            frontier = [w for w in candidates if all(x in affected for _, x, _ in links(w) if d[x] == d[w] - 1)]
            affected.update(frontier)
        new: dict[int, int] = {}
        heap = [(best, w) for w in affected
                if (best := min((d[x] + 1 for _, x, _ in links(w) if x not in affected and d[x] != UNREACHABLE),
                                default=UNREACHABLE)) != UNREACHABLE]
        heapq.heapify(heap)
        while heap:
            dw, w = heapq.heappop(heap)
            if w in new:
                continue
            new[w] = dw
            for _, x, _ in links(w):
                if x in affected and x not in new:
                    heapq.heappush(heap, (dw + 1, x))

        def dist(x):
            return new.get(x, UNREACHABLE) if x in affected else d[x]

        def old_next(z):
            return [p for p, x, _ in links(z) if d[x] == d[z] - 1]

        turns: dict[tuple[int, str], list[str]] = {}
        for w, dw in new.items():
            next_links = [(p, x, xp) for p, x, xp in links(w) if dist(x) == dw - 1]
            outs = list(dict.fromkeys(old_next(w) + [p for p, _, _ in next_links]))
            for p, x, _ in links(w):
                if d[x] == d[w] + 1 or new.get(x) == dw + 1:
                    turns.setdefault((w, p), []).extend(outs)
            for _, x, xp in next_links:
                if x not in affected and old_next(x):
                    turns.setdefault((x, xp), []).extend(old_next(x))
        return turns


def _twice(values) -> int:
    once = twice = 0
    for bits in values:
        twice |= once & bits
        once |= bits
    return twice
