"""PTH: RoCE data stays lossless, and CNPs stay on a strict queue, along every host-to-host path.

A fabric can pass every per-device check and still drop RoCE: one switch on the path classifies
the DSCP into another class, remarks it on egress, or ignores the pause its neighbour sends for
the priority the neighbour uses. These rules follow the policy's DSCPs hop by hop over
Fabric.links under Fabric.routing and report the first hop where the traffic leaves its class.

Cables, routes and the hop-by-hop walk come from losslessd.paths, which the deadlock rules (DLK)
read too: `shortest-path` takes every equal-cost shortest path between the two switches the hosts
hang off; `updown` every shortest valley-free path (up the Clos tiers, then down); `routes` the
captured routing tables' ECMP next hops towards the receiver's prefix. Hosts never forward. Large
fabrics are sampled (at most MAX_PAIRS host-port pairs, fixed seed) and the findings say how many
pairs of how many were checked. Nothing runs without a topology.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import register
from ..model import Device, DeviceKind, Hop, Port, SchedulerType, Trust
from ..paths import Paths, Toward
from ..paths.view import real_source
from ..paths.walk import SIDES, Flow, Problem, Walker, egress_dscp, egress_queue, shown
from ..records import record
from .common import (
    TRUST_LABEL,
    PathRule,
    cnp_priority,
    first_break,
    numbers,
    paths_of,
    queues_text,
    scheduler_unknown,
    sorted_by_cos,
)

MAX_PAIRS = 2000
MAX_DESTINATIONS = 50
SEED = 0

Node = tuple[str, str]  # (device, port)


def _pairs(endpoints: list[Node]) -> tuple[list[tuple[Node, Node]], int, str]:
    """Ordered (sender, receiver) NIC-port pairs on different hosts: all of them, or a fixed-seed sample."""
    per_host: dict[str, int] = {}
    for host, _ in endpoints:
        per_host[host] = per_host.get(host, 0) + 1
    total = len(endpoints) ** 2 - sum(n * n for n in per_host.values())
    if total <= MAX_PAIRS:
        pairs = [(s, t) for t in endpoints for s in endpoints if s[0] != t[0]]
        return pairs, total, f"all {total} host-port pairs checked"
    import random  # (only for a fabric this large: a lint of a small one imports none)

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


def _host_pairs(ctx: Context) -> tuple[Paths, list[tuple[Node, Node]], int, str] | None:
    """The fabric's paths and the (sender, receiver) pairs to walk (``_pairs``); None without a topology or
    without two hosts on it."""
    paths = ctx.memo(paths_of, ctx.fabric) if ctx.fabric.routing is not None else None
    if paths is None or len({host for host, _ in paths.cabling.endpoints}) < 2:
        return None
    return (paths, *_pairs(paths.cabling.endpoints))


def _trust_problem(device: Device, port: Port, dscp: int, side: str = "in") -> Problem | None:
    if port.trust in (Trust.pcp, Trust.none):
        who = "the NIC" if device.kind == DeviceKind.host else "the port"
        return Problem.at(False, device, port, dscp, side, f"{who} trusts {TRUST_LABEL[port.trust.value]}, so DSCP "
                       f"{dscp} does not choose the traffic's priority", port.trust_source)
    return None


class _PolicyFlow(Flow):
    """A flow whose checks read the policy."""

    def __init__(self, ctx):
        self.ctx = ctx


class _RoceFlow(_PolicyFlow):
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
                problem = Problem.at(brk.unknown, device, port, dscp, side, brk.why, brk.source)
        return problem, hop

    def sender(self, device, port, dscp):
        problem, hop = self._port(device, port, dscp, "send")
        return problem, f"DSCP {dscp} prio {shown(hop.priority)}", hop.priority

    def ingress(self, device, port, dscp):
        problem, hop = self._port(device, port, dscp)
        return problem, f"DSCP {dscp} {hop.tc_label} {hop.pg_label}", hop

    def receiver(self, device, port, dscp):
        problem, hop = self._port(device, port, dscp)
        return problem, f"DSCP {dscp} prio {shown(hop.priority)} buffer {shown(hop.pg)}"

    def egress(self, device, out, hop, unit, nxt, nport):
        """The next hop pauses the priority it classifies this traffic into: ``out`` must stop the queue
        (switch) or priority (NIC) the traffic leaves from when it gets that pause."""
        dscp = (egress_dscp(out, hop.tc, hop.dscp, device.ports.get(hop.port)) if device.kind == DeviceKind.switch
                else hop.dscp)
        if dscp is None:
            return None  # the walker reports the unknown remark
        paused = nport.dscp_chain(dscp).priority
        if paused is None:
            return None  # the next hop's own check says why
        if out.pfc_enabled is None:
            return Problem.at(True, device, out, hop.dscp, "out", "the port's PFC state is not in the input",
                            out.pfc_source)
        if paused not in out.pfc_enabled:
            return Problem.at(False, device, out, hop.dscp, "out", f"{nxt.name}:{nport.name} pauses priority {paused} "
                            f"for this traffic, but PFC is off for priority {paused} here (enabled: "
                            f"{numbers(out.pfc_enabled)}), so its pauses are ignored", out.pfc_source)
        if device.kind == DeviceKind.host:
            if unit is not None and paused != unit:
                return Problem.at(False, device, out, hop.dscp, "out", f"{nxt.name}:{nport.name} pauses priority "
                                f"{paused} for this traffic, but the NIC sends it on priority {unit}",
                                out.map_source or out.pfc_source)
            return None
        stops = out.paused_queues(paused)
        if stops is None:
            return Problem.at(True, device, out, hop.dscp, "out", f"which queue a received pause for priority {paused} "
                            f"stops is not in the input", out.map_source or out.pfc_source)
        if out.tc_to_queue is None:
            return Problem.at(True, device, out, hop.dscp, "out", f"the egress queue of {hop.tc_label} is not in the "
                            f"input", out.map_source)
        leaves = egress_queue(out, hop)
        if leaves is None:
            return Problem.at(False, device, out, hop.dscp, "out", f"{hop.tc_label} has no egress queue here",
                            out.map_source)
        if leaves not in stops:
            return Problem.at(False, device, out, hop.dscp, "out", f"{nxt.name}:{nport.name} pauses priority {paused} "
                            f"for this traffic, which stops {queues_text(stops)} here, but the traffic leaves on "
                            f"queue {leaves}", out.map_source or out.pfc_source)
        return None


class _CnpFlow(_PolicyFlow):
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
            problem = Problem.at(True, device, port, dscp, "in", "the DSCP->TC map is not in the input", maps)
        elif problem is None and hop.tc is None and (why := sorted_by_cos(port, dscp)):
            problem = Problem.at(True, device, port, dscp, "in", why, maps)
        elif problem is None and hop.tc is None:
            problem = Problem.at(False, device, port, dscp, "in", f"DSCP {dscp} has no entry in the DSCP->TC map", maps)
        elif problem is None:
            wrong, doubt = cnp_priority(cnp, port, hop)
            if wrong or doubt:
                problem = Problem.at(doubt is not None, device, port, dscp, "in", wrong or doubt, maps)
        return problem, note, hop

    def egress(self, device, out, hop, unit, nxt, nport):
        if device.kind != DeviceKind.switch or not self.ctx.policy.cnp.strict or hop.tc is None:
            return None
        queue = egress_queue(out, hop)
        q = out.queues.get(queue) if queue is not None else None
        scheduler = q.scheduler if q is not None else None
        if queue is None and out.tc_to_queue is not None:
            return Problem.at(False, device, out, hop.dscp, "out", f"{hop.tc_label} has no egress queue here",
                            out.map_source)
        if scheduler is None or scheduler.type is None:
            return Problem.at(True, device, out, hop.dscp, "out",
                            scheduler_unknown(f"queue {shown(queue)}", scheduler), out.source)
        if scheduler.type != SchedulerType.strict:
            return Problem.at(False, device, out, hop.dscp, "out", f"CNPs leave on queue {queue}, scheduled by "
                            f"{scheduler.type.value.upper()}, not strict priority", scheduler.source or out.source)
        return None


class _PathRule(PathRule):
    flow: type[_PolicyFlow]
    what = ""

    def enabled(self, ctx) -> bool:
        return True

    def check(self, ctx: Context) -> Iterator[Finding]:
        walked = _host_pairs(ctx) if self.enabled(ctx) else None
        if walked is None:
            return
        paths, pairs, total, sampling = walked
        flow = self.flow(ctx)
        hits: dict[str, tuple[Problem, list[tuple[Node, Node, int]]]] = {}
        by_target: dict[Node, list[Node]] = {}
        for src, dst in pairs:  # for CNPs: from the data receiver src back to the data sender dst
            by_target.setdefault(dst, []).append(src)
        walkers = {}
        for dst, sources in by_target.items():
            walker = walkers[dst] = Walker(flow, paths, dst)
            for src in sources:
                device, port = walker.port(src)
                for dscp in flow.start_dscp(device, port):
                    for hit in walker.start(src, dscp):
                        hits.setdefault(hit.key, (hit, []))[1].append((src, dst, dscp))
        for key in sorted(hits):
            hit, where = hits[key]
            src, dst, dscp = where[0]
            path = walkers[dst].example(src, dscp, hit)
            tail = "" if path[-1].startswith(f"{dst[0]}:") else f" -> ... -> {dst[0]}:{dst[1]}"
            path_text = " -> ".join(path) + tail
            pairs_hit = len({(s, d) for s, d, _ in where})
            devices = list(dict.fromkeys([hit.device] + [p.split(":")[0] for p in path if ":" in p] + [dst[0]]))
            text = (f"{self.flow.label} DSCP {hit.dscp} "
                    + (f"cannot be followed past {hit.device}:{hit.port}: {hit.why}" if hit.unknown else
                       f"{self.what} at {hit.device}:{hit.port} ({SIDES[hit.side]}): {hit.why}")
                    + f"; {pairs_hit} host pair{'s' if pairs_hit != 1 else ''} affected ({sampling})\n"
                    f"path: {path_text}")
            source = real_source(hit.source, ctx.fabric.devices[hit.device], hit.port)
            kwargs: dict[str, Any] = {"device": hit.device, "port": hit.port, "source": source, "key": key,
                      "devices": devices}
            if hit.unknown:
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
    number of host pairs affected. Hops the input does not show are reported as unverified. Off under
    `lossless.trust: pcp`, where MAP001 follows each lossless priority's PCP on each port.

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
    `cnp.strict`), after any egress DSCP remark. Collapsed and sampled like PTH001. Off, as PTH001 is,
    under `lossless.trust: pcp` (`roce-pcp3`): switches sort CNPs by their 802.1p priority there, which
    MAP002 checks on each port (a DSCP walk told every PCP-trusting port it trusts PCP).

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
        # (as PTH001: a path is followed by DSCP; under 802.1p trust MAP002 checks each port's CNP class by its PCP)
        return ctx.policy.cnp is not None and ctx.policy.lossless.trust != "pcp"


# Linux include/rdma/ib_addr.h iboe_get_mtu(): a RoCE port's IB MTU is the largest of 256..4096 that fits the
# netdev MTU less GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 = 96 bytes (include/rdma/ib_pack.h).
ROCE_HEADER_BYTES = 96
IB_MTUS = (4096, 2048, 1024, 512, 256)


def roce_mtu(netdev_mtu: int) -> int | None:
    """The IB MTU RoCE uses on a port with this IP MTU (iboe_get_mtu); None when not even 256 fits."""
    return next((m for m in IB_MTUS if netdev_mtu - ROCE_HEADER_BYTES >= m), None)


@record(frozen=True)
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

    def __init__(self, devices: Mapping[str, Device], toward: Toward):
        self.devices = devices
        self.toward = toward
        self.memo: dict[tuple[str, str, object], tuple[_Narrow | None, _Narrow | None]] = {}

    def start(self, first: Node) -> tuple[_Narrow | None, _Narrow | None]:
        """From the sender's switch port, over every state a walk starts in (no state: nothing is known)."""
        known = unknown = None
        for state in self.toward.starts:
            k, u = self.visit(first[0], first[1], state)
            known, unknown = _lower(known, k), unknown or u
        return known, unknown

    def _hop(self, device: str, port: str) -> tuple[_Narrow | None, _Narrow | None, str]:
        mtu = self.devices[device].ports[port].mtu_bytes
        label = f"{device}:{port} ({'?' if mtu is None else mtu})"
        hop = _Narrow(mtu, device, port, (label,))
        return (hop, None, label) if mtu is not None else (None, hop, label)

    def visit(self, switch: str, ingress: str, phase) -> tuple[_Narrow | None, _Narrow | None]:
        key = (switch, ingress, phase)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = (None, None)  # a loop in the routes adds nothing
        known, unknown, label = self._hop(switch, ingress)
        for out, nxt, nport, nphase in self.toward.next_hops(switch, phase):
            oknown, ounknown, olabel = self._hop(switch, out)
            known = _lower(known, oknown.behind(label) if oknown else None)
            unknown = unknown or (ounknown.behind(label) if ounknown else None)
            if self.devices[nxt].kind != DeviceKind.host:
                rknown, runknown = self.visit(nxt, nport, nphase)
                known = _lower(known, rknown.behind(label, olabel) if rknown else None)
                unknown = unknown or (runknown.behind(label, olabel) if runknown else None)
        self.memo[key] = (known, unknown)
        return known, unknown


@register
class RocePathMtu(PathRule):
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
    severity = Severity.error

    def check(self, ctx: Context) -> Iterator[Finding]:
        walked = _host_pairs(ctx)
        if walked is None:
            return
        fabric = ctx.fabric
        paths, pairs, total, sampling = walked
        views = paths.cabling.devices  # (a parallel lint's: the real devices are parsed again for findings only)
        hits: dict[tuple[str, str], list] = {}
        unknown: dict[tuple[str, str], list] = {}
        walkers: dict[Node, _MtuWalker] = {}
        for src, dst in pairs:
            smtu = views[src[0]].ports[src[1]].mtu_bytes
            dmtu = views[dst[0]].ports[dst[1]].mtu_bytes
            if smtu is None or dmtu is None:
                continue  # the NICs' own MTUs: LNK002 and the host captures' SYS notes say what is missing
            mtu = roce_mtu(min(smtu, dmtu))
            if mtu is None:
                continue
            walker = walkers.get(dst) or walkers.setdefault(dst, _MtuWalker(views, paths.toward(dst)))
            known, missing = walker.start(paths.cabling.peer[src])
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
