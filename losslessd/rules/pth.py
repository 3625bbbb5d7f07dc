"""PTH: RoCE data stays lossless, and CNPs stay on a strict queue, along every host-to-host path.

A fabric can pass every per-device check and still drop RoCE: one switch on the path classifies
the DSCP into another class, remarks it on egress, or ignores the pause its neighbour sends for
the priority the neighbour uses. These rules follow the policy's DSCPs hop by hop over
Fabric.links under Fabric.routing and report the first hop where the traffic leaves its class.

Paths: `shortest-path` takes every equal-cost shortest path between the two switches the hosts
hang off; `updown` every shortest valley-free path (up the Clos tiers, then down). Routing-table
captures (`routes`) are not mapped to hosts, so shortest paths stand in for them. Hosts never
forward. Large fabrics are sampled (at most MAX_PAIRS host-port pairs, fixed seed) and the
findings say how many pairs of how many were checked. Nothing runs without a topology.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..lint.finding import Severity
from ..lint.registry import Rule, register
from ..model import Device, DeviceKind, Fabric, Hop, Port, SchedulerType, Source, Trust
from .map import TRUST_LABEL, cnp_priority, first_break, queues_text
from .pfc import numbers

MAX_PAIRS = 2000
MAX_DESTINATIONS = 50
SEED = 0

Node = tuple[str, str]  # (device, port)
_SIDES = {"send": "as sent", "in": "arriving", "out": "leaving"}


@dataclass(frozen=True)
class Problem:
    """Where traffic leaves its class (unknown=False), or could not be followed further (unknown=True)."""

    unknown: bool
    device: str
    port: str
    dscp: int
    side: str  # "send": as the NIC sends it; "in": classified on arrival at port; "out": sent out of port
    why: str
    source: Source | None = field(default=None, compare=False, hash=False)

    @property
    def key(self) -> str:
        return f"{self.device}:{self.port}|DSCP {self.dscp}|{self.side}"


@dataclass
class _Graph:
    """Who is cabled to whom: transit adjacency between switches, and the NIC ports attached to switches."""

    peer: dict[Node, Node]
    transit: dict[str, list[tuple[str, str, str]]]  # switch -> [(port, next switch, its port)]
    endpoints: list[Node]  # NIC ports cabled to a switch port


def _graph(ctx, fabric: Fabric) -> _Graph:
    devices = fabric.devices
    peer: dict[Node, Node] = {}
    transit: dict[str, list[tuple[str, str, str]]] = {}
    endpoints = []
    for link in fabric.links:
        a, b = (link.a.device, link.a.port), (link.b.device, link.b.port)
        peer[a], peer[b] = b, a
        kinds = (devices[a[0]].kind, devices[b[0]].kind)
        if kinds == (DeviceKind.switch, DeviceKind.switch):
            transit.setdefault(a[0], []).append((a[1], b[0], b[1]))
            transit.setdefault(b[0], []).append((b[1], a[0], a[1]))
        for nic, sw in ((a, b), (b, a)):
            if devices[nic[0]].kind == DeviceKind.host and devices[sw[0]].kind == DeviceKind.switch:
                endpoints.append(nic)
    return _Graph(peer, transit, sorted(set(endpoints)))


def _pairs(endpoints: list[Node]) -> tuple[list[tuple[Node, Node]], int, str]:
    """Ordered (sender, receiver) NIC-port pairs on different hosts: all of them, or a fixed-seed sample."""
    per_host: dict[str, int] = {}
    for host, _ in endpoints:
        per_host[host] = per_host.get(host, 0) + 1
    total = len(endpoints) ** 2 - sum(n * n for n in per_host.values())
    if total <= MAX_PAIRS:
        pairs = [(s, t) for t in endpoints for s in endpoints if s[0] != t[0]]
        return pairs, total, f"all {total} host-port pairs checked"
    rng = random.Random(SEED)
    destinations = rng.sample(endpoints, min(MAX_DESTINATIONS, len(endpoints)))
    per_destination = MAX_PAIRS // len(destinations)
    pairs = []
    for t in destinations:
        senders = [s for s in rng.sample(endpoints, min(len(endpoints), per_destination + per_host[t[0]]))
                   if s[0] != t[0]]
        pairs.extend((s, t) for s in senders[:per_destination])
    return pairs, total, (f"{len(pairs)} of {total:,} host-port pairs checked (a fixed-seed sample: "
                          f"{len(destinations)} receivers x up to {per_destination} senders)")


class _Routes:
    """Next hops towards one receiver NIC port under the fabric's routing (ECMP: every equal-cost choice)."""

    def __init__(self, fabric: Fabric, graph: _Graph, target: Node):
        self.graph = graph
        self.target = target
        self.last = graph.peer[target]  # (switch, port) the receiver hangs off
        self.routing = fabric.routing
        self.updown = fabric.routing == "updown"
        self.tier = tiers = {name: d.tier for name, d in fabric.devices.items()}
        # down: hops to the receiver's switch; when updown, down-only hops (the neighbour is above here).
        # up (updown only): the fewest hops from a switch going up first, then down.
        self.down = self._bfs(lambda here, there: not self.updown or (
            tiers[here] is not None and tiers[there] is not None and tiers[there] > tiers[here]))
        self.up: dict[str, int] = {}
        if self.updown:
            switches = sorted((n for n in graph.transit if tiers.get(n) is not None), key=lambda n: -tiers[n])
            for v in switches:
                best = self.down.get(v)
                for _, w, _ in graph.transit.get(v, ()):
                    if tiers.get(w) is not None and tiers[w] > tiers[v] and w in self.up:
                        best = min(x for x in (best, self.up[w] + 1) if x is not None)
                if best is not None:
                    self.up[v] = best
            if self.last[0] not in self.up:
                self.up[self.last[0]] = 0

    def _bfs(self, allowed: Callable[[str, str], bool]) -> dict[str, int]:
        """Hop counts from the receiver's switch, walking links backwards (v reached from w means v -> w)."""
        start = self.last[0]
        dist = {start: 0}
        queue = deque([start])
        while queue:
            w = queue.popleft()
            for _, v, _ in self.graph.transit.get(w, ()):
                if v not in dist and allowed(w, v):
                    dist[v] = dist[w] + 1
                    queue.append(v)
        return dist

    def cost(self, switch: str, phase: str) -> int | None:
        return (self.up if self.updown and phase == "up" else self.down).get(switch)

    def next_hops(self, switch: str, phase: str) -> list[tuple[str, str, str, str]]:
        """[(egress port, next device, its ingress port, next phase)]; the receiver itself from its switch."""
        if switch == self.last[0]:
            return [(self.last[1], self.target[0], self.target[1], "down")]
        here = self.cost(switch, phase)
        if here is None:
            return []
        out = []
        for port, w, r in self.graph.transit.get(switch, ()):
            if not self.updown:
                if self.down.get(w) == here - 1:
                    out.append((port, w, r, phase))
                continue
            tv, tw = self.tier.get(switch), self.tier.get(w)
            if tv is None or tw is None:
                continue
            if tw < tv and self.down.get(switch) == here and self.down.get(w) == here - 1:
                out.append((port, w, r, "down"))
            elif tw > tv and phase == "up" and self.up.get(w) == here - 1:
                out.append((port, w, r, "up"))
        return out


class _Flow:
    """One kind of traffic followed along paths: what each hop must do with it."""

    label = ""

    def __init__(self, ctx):
        self.ctx = ctx

    def start_dscp(self, device: Device, port: Port) -> list[int]:  # pragma: no cover - interface
        raise NotImplementedError

    def sender(self, device: Device, port: Port, dscp: int) -> tuple[Problem | None, str, int | None]:
        """(problem, annotation, the unit a pause must stop: NIC priority) at the sending NIC."""
        return None, f"DSCP {dscp}", None

    def ingress(self, device: Device, port: Port, dscp: int) -> tuple[Problem | None, str, Hop]:
        raise NotImplementedError  # pragma: no cover - interface

    def egress(self, device: Device, out: Port, hop: Hop, unit: int | None, nxt: Device, nport: Port
               ) -> Problem | None:
        return None

    def receiver(self, device: Device, port: Port, dscp: int) -> tuple[Problem | None, str]:
        return None, f"DSCP {dscp}"


def _problem(unknown: bool, device: Device, port: Port, dscp: int, side: str, why: str,
             source: Source | None) -> Problem:
    return Problem(unknown, device.name, port.name, dscp, side, why, source or port.source)


def _trust_problem(device: Device, port: Port, dscp: int, side: str = "in") -> Problem | None:
    if port.trust in (Trust.pcp, Trust.none):
        who = "the NIC" if device.kind == DeviceKind.host else "the port"
        return _problem(False, device, port, dscp, side, f"{who} trusts {TRUST_LABEL[port.trust.value]}, so DSCP "
                        f"{dscp} does not choose the traffic's priority", port.trust_source)
    return None


def _rewrite(out: Port, hop: Hop) -> int | None:
    """The DSCP a packet of ``hop`` leaves ``out`` with (None: remarked to a value the input does not show)."""
    if out.tc_to_dscp_rewrite is None:
        return hop.dscp
    return out.tc_to_dscp_rewrite.get(hop.tc) if hop.tc is not None else None


class _RoceFlow(_Flow):
    label = "RoCE"

    def start_dscp(self, device, port):
        return list(self.ctx.policy.lossless.dscp)

    def _port(self, device: Device, port: Port, dscp: int, side: str = "in") -> tuple[Problem | None, Hop]:
        """The MAP001 chain at one port: trusts DSCP, lossless priority with PFC on, a lossless PG or buffer."""
        hop = port.dscp_chain(dscp)
        problem = _trust_problem(device, port, dscp, side)
        if problem is None:
            brk = first_break(self.ctx, device, port, hop, egress=False)  # each egress port is checked by egress()
            if brk is not None:
                problem = _problem(brk.unknown, device, port, dscp, side, brk.why, brk.source)
        return problem, hop

    def sender(self, device, port, dscp):
        problem, hop = self._port(device, port, dscp, "send")
        return problem, f"DSCP {dscp} prio {_q(hop.priority)}", hop.priority

    def ingress(self, device, port, dscp):
        problem, hop = self._port(device, port, dscp)
        return problem, f"DSCP {dscp} {hop.tc_label} PG {_q(hop.pg)}", hop

    def receiver(self, device, port, dscp):
        problem, hop = self._port(device, port, dscp)
        return problem, f"DSCP {dscp} prio {_q(hop.priority)} buffer {_q(hop.pg)}"

    def egress(self, device, out, hop, unit, nxt, nport):
        """The next hop pauses the priority it classifies this traffic into: ``out`` must stop the queue
        (switch) or priority (NIC) the traffic leaves from when it gets that pause."""
        dscp = _rewrite(out, hop) if device.kind == DeviceKind.switch else hop.dscp
        if dscp is None:
            return None  # the walker reports the unknown remark
        paused = nport.dscp_chain(dscp).priority
        if paused is None:
            return None  # the next hop's own check says why
        if out.pfc_enabled is None:
            return _problem(True, device, out, hop.dscp, "out", "the port's PFC state is not in the input",
                            out.pfc_source)
        if paused not in out.pfc_enabled:
            return _problem(False, device, out, hop.dscp, "out", f"{nxt.name}:{nport.name} pauses priority {paused} "
                            f"for this traffic, but PFC is off for priority {paused} here (enabled: "
                            f"{numbers(out.pfc_enabled)}), so its pauses are ignored", out.pfc_source)
        if device.kind == DeviceKind.host:
            if unit is not None and paused != unit:
                return _problem(False, device, out, hop.dscp, "out", f"{nxt.name}:{nport.name} pauses priority "
                                f"{paused} for this traffic, but the NIC sends it on priority {unit}",
                                out.map_source or out.pfc_source)
            return None
        stops = out.paused_queues(paused)
        if stops is None:
            return _problem(True, device, out, hop.dscp, "out", f"which queue a received pause for priority {paused} "
                            f"stops is not in the input", out.map_source or out.pfc_source)
        if out.tc_to_queue is None:
            return _problem(True, device, out, hop.dscp, "out", f"the egress queue of {hop.tc_label} is not in the "
                            f"input", out.map_source)
        leaves = _queue(out, hop)
        if leaves is None:
            return _problem(False, device, out, hop.dscp, "out", f"{hop.tc_label} has no egress queue here",
                            out.map_source)
        if leaves not in stops:
            return _problem(False, device, out, hop.dscp, "out", f"{nxt.name}:{nport.name} pauses priority {paused} "
                            f"for this traffic, which stops {queues_text(stops)} here, but the traffic leaves on "
                            f"queue {leaves}", out.map_source or out.pfc_source)
        return None


class _CnpFlow(_Flow):
    label = "CNP"

    def start_dscp(self, device, port):
        cnp = self.ctx.policy.cnp
        sent = port.nic_ecn.cnp_dscp if port.nic_ecn and port.nic_ecn.cnp_dscp is not None else cnp.dscp
        return [sent]

    def ingress(self, device, port, dscp):
        cnp = self.ctx.policy.cnp
        hop = port.dscp_chain(dscp)
        note = f"DSCP {dscp} {hop.tc_label}"
        problem = _trust_problem(device, port, dscp)
        maps = port.map_source or port.source
        if problem is None and port.dscp_to_tc is None:
            problem = _problem(True, device, port, dscp, "in", "the DSCP->TC map is not in the input", maps)
        elif problem is None and hop.tc is None:
            problem = _problem(False, device, port, dscp, "in", f"DSCP {dscp} has no entry in the DSCP->TC map", maps)
        elif problem is None:
            wrong, doubt = cnp_priority(cnp, port, hop)
            if wrong or doubt:
                problem = _problem(doubt is not None, device, port, dscp, "in", wrong or doubt, maps)
        return problem, note, hop

    def egress(self, device, out, hop, unit, nxt, nport):
        if device.kind != DeviceKind.switch or not self.ctx.policy.cnp.strict or hop.tc is None:
            return None
        queue = _queue(out, hop)
        q = out.queues.get(queue) if queue is not None else None
        scheduler = q.scheduler if q is not None else None
        if queue is None and out.tc_to_queue is not None:
            return _problem(False, device, out, hop.dscp, "out", f"{hop.tc_label} has no egress queue here",
                            out.map_source)
        if scheduler is None or scheduler.type is None:
            return _problem(True, device, out, hop.dscp, "out",
                            f"the scheduler of queue {_q(queue)} is not in the input", out.source)
        if scheduler.type != SchedulerType.strict:
            return _problem(False, device, out, hop.dscp, "out", f"CNPs leave on queue {queue}, scheduled by "
                            f"{scheduler.type.value.upper()}, not strict priority", scheduler.source or out.source)
        return None


def _q(value) -> str:
    return "?" if value is None else str(value)


class _Walker:
    """Follows one flow from senders to one receiver over every equal-cost path; memoised per state."""

    def __init__(self, flow: _Flow, fabric: Fabric, routes: _Routes):
        self.flow = flow
        self.fabric = fabric
        self.routes = routes
        self.memo: dict[tuple, frozenset[Problem]] = {}

    def port(self, node: Node) -> tuple[Device, Port]:
        device = self.fabric.devices[node[0]]
        return device, device.ports[node[1]]

    def start(self, sender: Node, dscp: int) -> frozenset[Problem]:
        """Every first break on the paths from ``sender`` (empty: lossless all the way)."""
        device, port = self.port(sender)
        problem, _, unit = self.flow.sender(device, port, dscp)
        if problem is not None:
            return frozenset([problem])
        first = self.routes.graph.peer[sender]
        ndev, nport = self.port(first)
        hop = port.dscp_chain(dscp)
        out = self.flow.egress(device, port, hop, unit, ndev, nport)
        if out is not None:
            return frozenset([out])
        return self.visit(first[0], first[1], "up", dscp)

    def visit(self, switch: str, ingress: str, phase: str, dscp: int) -> frozenset[Problem]:
        key = (switch, ingress, phase, dscp)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = frozenset()  # a loop in the routes adds nothing
        device, port = self.port((switch, ingress))
        problem, _, hop = self.flow.ingress(device, port, dscp)
        if problem is not None:
            result = frozenset([problem])
        else:
            found: set[Problem] = set()
            hops = self.routes.next_hops(switch, phase)
            if not hops:
                target = self.routes.target
                found.add(_problem(True, device, port, dscp, "in", f"no next hop towards {target[0]}:{target[1]} "
                                   f"under {self.routes.routing} routing over the known links", None))
            for out_name, nxt, nport_name, nphase in hops:
                found |= self.step(device, out_name, hop, nxt, nport_name, nphase)
            result = frozenset(found)
        self.memo[key] = result
        return result

    def step(self, device: Device, out_name: str, hop: Hop, nxt: str, nport_name: str,
             nphase: str) -> frozenset[Problem]:
        out = device.ports[out_name]
        ndev, nport = self.port((nxt, nport_name))
        new = _rewrite(out, hop)
        if new is None:
            return frozenset([_problem(True, device, out, hop.dscp, "out", f"the port remarks {hop.tc_label} to a "
                                       "DSCP the input does not show", out.map_source)])
        problem = self.flow.egress(device, out, hop, None, ndev, nport)
        if problem is not None:
            return frozenset([problem])
        if ndev.kind == DeviceKind.host:  # next_hops leads to a host only at the receiver
            problem, _ = self.flow.receiver(ndev, nport, new)
            return frozenset([problem]) if problem else frozenset()
        return self.visit(nxt, nport_name, nphase, new)

    def example(self, sender: Node, dscp: int, target: Problem) -> list[str]:
        """One path from ``sender`` that meets ``target``, each hop with what it did to the packet."""
        device, port = self.port(sender)
        problem, note, _ = self.flow.sender(device, port, dscp)
        if problem == target:
            return [f"{sender[0]}:{sender[1]} [{note}: {problem.why}]"]
        path = [f"{sender[0]}:{sender[1]} [{note}]"]
        first = self.routes.graph.peer[sender]
        if target.side == "out" and target.device == sender[0]:
            return [f"{sender[0]}:{sender[1]} [{note}; out: {target.why}]", f"{first[0]}:{first[1]}"]
        state = (first[0], first[1], "up", dscp)
        while True:
            switch, ingress, phase, d = state
            device, port = self.port((switch, ingress))
            problem, note, hop = self.flow.ingress(device, port, d)
            if problem is not None:
                return path + [f"{switch}:{ingress} [{note}: {problem.why}]"]
            for out_name, nxt, nport_name, nphase in self.routes.next_hops(switch, phase):
                if target not in self.step(device, out_name, hop, nxt, nport_name, nphase):
                    continue
                out = device.ports[out_name]
                here = f"{switch}:{ingress}>{out_name} [{note} q {_q(_queue(out, hop))}"
                new = _rewrite(out, hop)
                if target.device == switch and target.port == out_name and target.side == "out":
                    return path + [f"{here}; out: {target.why}]", f"{nxt}:{nport_name}"]
                path.append(here + (f" -> DSCP {new}]" if new != hop.dscp else "]"))
                if self.fabric.devices[nxt].kind == DeviceKind.host:
                    rdev, rport = self.port((nxt, nport_name))
                    _, rnote = self.flow.receiver(rdev, rport, new)
                    return path + [f"{nxt}:{nport_name} [{rnote}: {target.why}]"]
                state = (nxt, nport_name, nphase, new)
                break
            else:  # the target is that this switch has no next hop
                return path + [f"{switch}:{ingress} [{note}: {target.why}]"]


def _queue(out: Port, hop: Hop) -> int | None:
    """The queue the traffic class chosen at ingress leaves ``out`` from (None: not known)."""
    return out.tc_to_queue.get(hop.tc) if out.tc_to_queue is not None and hop.tc is not None else None


class _PathRule(Rule):
    scope = "fabric"
    flow: type[_Flow]
    what = ""

    def enabled(self, ctx) -> bool:
        return True

    def check(self, ctx) -> Iterator:
        fabric = ctx.fabric
        if fabric.routing is None or not self.enabled(ctx):
            return
        graph = ctx.memo(_graph, fabric)
        if len({host for host, _ in graph.endpoints}) < 2:
            return
        pairs, total, sampling = _pairs(graph.endpoints)
        flow = self.flow(ctx)
        hits: dict[str, tuple[Problem, list[tuple[Node, Node, int]]]] = {}
        by_target: dict[Node, list[Node]] = {}
        for src, dst in pairs:  # for CNPs: from the data receiver src back to the data sender dst
            by_target.setdefault(dst, []).append(src)
        walkers = {}
        for dst, sources in by_target.items():
            walker = walkers[dst] = _Walker(flow, fabric, _Routes(fabric, graph, dst))
            for src in sources:
                device, port = walker.port(src)
                for dscp in flow.start_dscp(device, port):
                    for problem in walker.start(src, dscp):
                        hits.setdefault(problem.key, (problem, []))[1].append((src, dst, dscp))
        for key in sorted(hits):
            problem, where = hits[key]
            src, dst, dscp = where[0]
            path = walkers[dst].example(src, dscp, problem)
            tail = "" if path[-1].startswith(f"{dst[0]}:") else f" -> ... -> {dst[0]}:{dst[1]}"
            path_text = " -> ".join(path) + tail
            pairs_hit = len({(s, d) for s, d, _ in where})
            devices = list(dict.fromkeys([problem.device] + [p.split(":")[0] for p in path if ":" in p] + [dst[0]]))
            text = (f"{self.flow.label} DSCP {problem.dscp} "
                    + (f"cannot be followed past {problem.device}:{problem.port}: {problem.why}" if problem.unknown else
                       f"{self.what} at {problem.device}:{problem.port} ({_SIDES[problem.side]}): {problem.why}")
                    + f"; {pairs_hit} host pair{'s' if pairs_hit != 1 else ''} affected ({sampling})\n"
                    f"path: {path_text}")
            kwargs = {"device": problem.device, "port": problem.port, "source": problem.source, "key": key,
                      "devices": devices}
            if problem.unknown:
                yield self.unverified(text, **kwargs)
            else:
                yield self.finding(text, pairs=pairs_hit, checked=len(pairs), total_pairs=total, **kwargs)


@register
class RocePathNotLossless(_PathRule):
    """RoCE traffic leaves the lossless class somewhere on a host-to-host path.

    ## What it checks
    With a topology, for each pair of NIC ports on different hosts (all pairs, or a fixed-seed
    sample of at most 2,000 on large fabrics), every RoCE DSCP of the policy is followed over every
    equal-cost path of the fabric's routing: the sending NIC (its DSCP -> priority is lossless with
    PFC on), each switch ingress port (trusts DSCP; DSCP -> TC -> priority lossless with PFC on, a
    lossless PG), each egress port (stops the queue the traffic uses when the next hop pauses the
    priority the next hop classifies it into, after any `tc_to_dscp_rewrite` remark), and the
    receiving NIC. One finding per first broken hop (port and DSCP), with one example path and the
    number of host pairs affected. Hops the input does not show are reported as unverified.

    ## Why it matters
    Lossless is a property of the whole path. A single uplink that was never given PFC, or a spine
    that maps the DSCP to a different priority than the leaf pauses, drops RoCE under congestion
    while each device passes its own checks.

    ## Failing example
    `spine1:Ethernet2/1` has PFC on priority 4 only: `RoCE DSCP 26 leaves the lossless class at
    spine1:Ethernet2/1 (arriving): PFC is off for priority 3 (enabled: 4); 4 host pairs affected;
    e.g. gpu01:enp65s0f0np0 [DSCP 26 prio 3] -> leaf1:Ethernet0>Ethernet52 [DSCP 26 TC 3 PG 3 q 3]
    -> spine1:Ethernet2/1 [DSCP 26 TC 3 PG 3: PFC is off for priority 3 (enabled: 4)] -> ... -> gpu05`.

    ## Passing example
    Every port on every path classifies DSCP 26 into priority 3 with PFC on, and every egress
    port pauses the queue carrying it.

    ## Fix
    Correct the port the message names; the example path shows what each earlier hop did.
    """

    code = "PTH001"
    name = "roce-path-not-lossless"
    severity = Severity.error
    flow = _RoceFlow
    what = "leaves the lossless class"

    def enabled(self, ctx) -> bool:
        return ctx.policy.lossless.trust != "pcp" and bool(ctx.policy.lossless.dscp)


@register
class CnpPathNotStrict(_PathRule):
    """CNPs leave the strict-priority class somewhere on their way back to the sender.

    ## What it checks
    With a topology and a policy CNP DSCP (`cnp`), the CNPs each receiving NIC sends (its
    `cnp_dscp`, else the policy's) are followed back to every sender over every equal-cost path:
    each switch ingress port trusts DSCP and maps the CNP DSCP to a TC sent as the policy's CNP
    priority (when set), and each egress port sends that TC from a strict-priority queue (when
    `cnp.strict`), after any egress DSCP remark. Collapsed and sampled like PTH001.

    ## Why it matters
    A CNP that waits behind the congested RoCE traffic it reports arrives too late for DCQCN to
    slow the sender: queues grow into PFC and pauses spread through the fabric.

    ## Failing example
    `spine1` schedules queue 6 by WRR: `CNP DSCP 48 leaves the strict-priority class at
    spine1:Ethernet1/1 (leaving): CNPs leave on queue 6, scheduled by WRR, not strict priority`.

    ## Passing example
    Every switch maps DSCP 48 to TC 6 (priority 6) and queue 6 is strict priority.

    ## Fix
    Give the CNP TC a strict-priority queue on the port the message names, and map the CNP DSCP
    to the policy's CNP priority.
    """

    code = "PTH002"
    name = "cnp-path-not-strict"
    severity = Severity.error
    flow = _CnpFlow
    what = "leaves the strict-priority class"

    def enabled(self, ctx) -> bool:
        return ctx.policy.cnp is not None


# Linux include/rdma/ib_addr.h iboe_get_mtu(): a RoCE port's IB MTU is the largest of 256..4096 that fits the
# netdev MTU less GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 = 96 bytes (include/rdma/ib_pack.h).
ROCE_HEADER_BYTES = 96
IB_MTUS = (4096, 2048, 1024, 512, 256)


def roce_mtu(netdev_mtu: int) -> int | None:
    """The IB MTU RoCE uses on a port with this IP MTU (iboe_get_mtu); None when not even 256 fits."""
    return next((m for m in IB_MTUS if netdev_mtu - ROCE_HEADER_BYTES >= m), None)


@dataclass(frozen=True)
class _Narrow:
    """A switch port on the paths from a point on: its MTU (None: not in the input), where, and how it is reached."""

    mtu: int | None
    device: str
    port: str
    path: tuple[str, ...]  # device:port (MTU) hops up to it

    def behind(self, *labels: str) -> _Narrow:
        return _Narrow(self.mtu, self.device, self.port, labels + self.path)


def _lower(a: _Narrow | None, b: _Narrow | None) -> _Narrow | None:
    if a is None or b is None:
        return a or b
    return a if a.mtu <= b.mtu else b


class _MtuWalker:
    """Over every equal-cost path to one receiver: the narrowest switch port with a known MTU (ingress or egress),
    and the first port whose MTU is unknown; memoised per state."""

    def __init__(self, fabric: Fabric, routes: _Routes):
        self.fabric = fabric
        self.routes = routes
        self.memo: dict[tuple[str, str, str], tuple[_Narrow | None, _Narrow | None]] = {}

    def _hop(self, device: str, port: str) -> tuple[_Narrow | None, _Narrow | None, str]:
        mtu = self.fabric.devices[device].ports[port].mtu_bytes
        label = f"{device}:{port} ({'?' if mtu is None else mtu})"
        hop = _Narrow(mtu, device, port, (label,))
        return (hop, None, label) if mtu is not None else (None, hop, label)

    def visit(self, switch: str, ingress: str, phase: str) -> tuple[_Narrow | None, _Narrow | None]:
        key = (switch, ingress, phase)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = (None, None)  # a loop in the routes adds nothing
        known, unknown, label = self._hop(switch, ingress)
        for out, nxt, nport, nphase in self.routes.next_hops(switch, phase):
            oknown, ounknown, olabel = self._hop(switch, out)
            known = _lower(known, oknown.behind(label) if oknown else None)
            unknown = unknown or (ounknown.behind(label) if ounknown else None)
            if self.fabric.devices[nxt].kind != DeviceKind.host:
                rknown, runknown = self.visit(nxt, nport, nphase)
                known = _lower(known, rknown.behind(label, olabel) if rknown else None)
                unknown = unknown or (runknown.behind(label, olabel) if runknown else None)
        self.memo[key] = (known, unknown)
        return known, unknown


@register
class RocePathMtu(Rule):
    """A switch port on a host-to-host path has an MTU below the RoCE packets the two hosts exchange.

    ## What it checks
    With a topology, for each pair of NIC ports on different hosts (sampled like PTH001), the RoCE MTU the
    pair uses is the largest IB MTU (256-4096) that fits the smaller of the two NICs' MTUs less 96 bytes of
    RoCE headers (Linux iboe_get_mtu: GRH/IP, UDP, BTH, XRC, AtomicETH, ICRC), and its packets carry up to
    that MTU + 96 bytes. Every switch port on every equal-cost path (ingress and egress, under the fabric's
    routing) must have an IP MTU of at least that. One finding per narrowest port, with the number of pairs
    affected and one example path; ports whose MTU the input does not show are reported as unverified.

    ## Why it matters
    RoCE never fragments and a switch drops a packet larger than the port's MTU, PFC or not: every
    full-size RoCE packet on that path is lost and retransmitted until the QP gives up, while small
    messages work, which makes the fault look intermittent. LNK002 compares the two ends of each cable;
    this rule finds a narrow port anywhere on the path, such as a spine left at a lower MTU than the leaves.

    ## Failing example
    Hosts at MTU 9000 (RoCE MTU 4096, packets up to 4192 B), `spine1:Ethernet2/1` at MTU 4096:
    `RoCE packets of up to 4192 B (RoCE MTU 4096 between NIC MTUs 9000 and 9000) cannot pass
    spine1:Ethernet2/1 (MTU 4096); 4 host pairs affected`.

    ## Passing example
    Every switch port on the paths at MTU 9100 or more, or at least 4192.

    ## Fix
    Raise the MTU of the port the message names (and of every port like it) to the fabric's switch MTU, or
    lower the hosts' MTU so that their RoCE MTU fits.
    """

    code = "PTH003"
    name = "roce-path-mtu"
    scope = "fabric"
    severity = Severity.error

    def check(self, ctx):
        fabric = ctx.fabric
        if fabric.routing is None:
            return
        graph = ctx.memo(_graph, fabric)
        if len({host for host, _ in graph.endpoints}) < 2:
            return
        pairs, total, sampling = _pairs(graph.endpoints)
        hits: dict[tuple[str, str], list] = {}
        unknown: dict[tuple[str, str], list] = {}
        walkers: dict[Node, _MtuWalker] = {}
        for src, dst in pairs:
            smtu = fabric.devices[src[0]].ports[src[1]].mtu_bytes
            dmtu = fabric.devices[dst[0]].ports[dst[1]].mtu_bytes
            if smtu is None or dmtu is None:
                continue  # the NICs' own MTUs: LNK002 and the host captures' SYS notes say what is missing
            mtu = roce_mtu(min(smtu, dmtu))
            if mtu is None:
                continue
            walker = walkers.get(dst) or walkers.setdefault(dst, _MtuWalker(fabric, _Routes(fabric, graph, dst)))
            first = graph.peer[src]
            known, missing = walker.visit(first[0], first[1], "up")
            need = mtu + ROCE_HEADER_BYTES
            if known is not None and known.mtu < need:
                hits.setdefault((known.device, known.port), []).append((src, dst, mtu, need, smtu, dmtu, known))
            elif missing is not None:
                unknown.setdefault((missing.device, missing.port), []).append((src, dst, mtu, need, smtu, dmtu,
                                                                               missing))
        for (device, port), entries in sorted(hits.items()):
            src, dst, mtu, need, smtu, dmtu, narrow = max(entries, key=lambda e: e[3])
            path = " -> ".join((f"{src[0]}:{src[1]} ({smtu})",) + narrow.path + ("...", f"{dst[0]}:{dst[1]} ({dmtu})"))
            affected = len({(e[0], e[1]) for e in entries})
            dev = fabric.devices[device]
            yield self.finding(f"RoCE packets of up to {need} B (RoCE MTU {mtu} between NIC MTUs {smtu} and {dmtu}) "
                               f"cannot pass {device}:{port} (MTU {narrow.mtu}); {affected} host pair"
                               f"{'s' if affected != 1 else ''} affected ({sampling}); raise its MTU to at least "
                               f"{need}\npath: {path}", device=dev, port=port, source=dev.ports[port].source,
                               key=f"{device}:{port}|mtu", devices=list(dict.fromkeys([device, src[0], dst[0]])),
                               mtu=narrow.mtu, needed=need, pairs=affected)
        for (device, port), entries in sorted(unknown.items()):
            if (device, port) in hits:
                continue
            dev = fabric.devices[device]
            yield self.unverified(f"the MTU of {device}:{port} is not in the input, so whether RoCE packets of up to "
                                  f"{max(e[3] for e in entries)} B pass it is unknown "
                                  f"({len({(e[0], e[1]) for e in entries})} host pairs)", device=dev, port=port,
                                  source=dev.ports[port].source, key=f"{device}:{port}|mtu")
