"""DLK: PFC deadlock. Cyclic buffer dependencies under the fabric's routing, after a cable failure,
through L2 flooding, or closed by a priority remap; and routes that cannot be followed.

The fabric rules read Fabric.links and Fabric.routing (losslessd.topology) and do nothing without a
topology. The analysis is in losslessd.deadlock; docs/deadlock.md explains the model.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..lint.engine import Context
from ..lint.finding import Finding, Severity, few
from ..lint.registry import Rule, doubtful, register
from ..model import Device, DeviceKind
from ..records import record
from .common import PathRule, path_devices, paths_of, priorities

if TYPE_CHECKING:  # imported where a routed fabric is analysed: DLK003 and a lint without routes need none
    from ..deadlock.analysis import Analysis, Unrouted
    from ..deadlock.sweep import SweepResult


def _analysis(ctx, fabric) -> Analysis | None:
    """None without paths to follow (no cables or no routing: what analyse answers then), the analysis not imported."""
    paths = ctx.memo(paths_of, fabric)
    if paths is None:
        return None
    from ..deadlock.analysis import analyse

    lossless = ctx.policy.lossless
    return analyse(fabric, lossless.priorities, lossless.dscp, paths,
                   None if lossless.trust is None else "PCP" if lossless.trust == "pcp" else "DSCP")


def _sweep(ctx, fabric) -> SweepResult | None:
    a = ctx.memo(_analysis, fabric)
    if a is None:
        return None
    from ..deadlock.sweep import sweep

    return sweep(a)


class _FabricRule(PathRule):

    def at(self, ctx, device: str, port: str | None = None) -> dict:
        """device/port arguments for a finding: the model objects, so the finding shows their source."""
        d = ctx.fabric.devices[device]
        return {"device": d, "port": d.ports.get(port) if port else None}

    def certain(self, ctx, finding, buffers):
        """The finding, or an unverified one when a buffer of its cycle is on a port whose PFC state is unknown
        (the analysis then takes the policy's lossless priorities to be paused there)."""
        unknown = []
        devices = path_devices(ctx, ctx.fabric)
        for dev, port, _ in buffers:
            p = devices[dev].ports.get(port)
            if (p is None or p.pfc_enabled is None) and f"{dev}:{port}" not in unknown:
                unknown.append(f"{dev}:{port}")
        if not unknown:
            return finding
        return doubtful(finding, f"the PFC state of {few(unknown)} is not in the input; PFC is taken to be on there")


@register
class CyclicBufferDependency(_FabricRule):
    """Buffers wait on each other in a cycle under the fabric's routing: PFC can deadlock them.

    ## What it checks
    Builds the buffer-dependency graph (one node per switch ingress port and lossless priority; an
    edge where a packet held there can be forwarded into the next switch's buffer, under the
    topology's `routing:` `updown`, `shortest-path` or routing-table captures) and finds its
    strongly connected components (Tarjan). Each cyclic component is one finding with one witness
    cycle, printed `device:port(priority) -> ... -> back to the start`; the finding lists every
    switch on the witness. Switches whose forwarding is unknown (no tier under updown, no routing
    table under routes) are reported as unverified and left out; so, counted, are host pairs joined by
    cables that `updown` gives no valley-free route over the tiers (tiers upside down or flat), and a
    fabric where no buffer between switches is analysed because its cables could not be used. The
    priority a packet gets at each port follows the policy's DSCPs, or under `lossless.trust: pcp`
    its lossless priorities' PCPs; a switch whose ports between switches trust another marking is
    reported as unverified.

    ## Why it matters
    With PFC, a full buffer pauses the port upstream. When buffers wait on each other in a cycle
    (cyclic buffer dependency, Hu et al., HotNets 2016; a credit loop, Shpiner et al., HotNets
    2016), they can all fill and pause each other for good: traffic on that priority stops on every
    port of the cycle, and the pause spreads, until a PFC watchdog drops packets.

    ## Failing example
    A ring of switches s1-s2-s3 whose routing tables send each host's traffic two hops round the
    ring: `s1:Ethernet2(3) -> s2:Ethernet2(3) -> s3:Ethernet2(3) -> s1:Ethernet2(3)`.

    ## Passing example
    A Clos with `routing: updown` (up the tiers, then down): up-down routing has no cycle.

    ## Fix
    Route valley-free (up-down) in a Clos; in other topologies break the cycle by routing, or by
    moving traffic that crosses the cycle's turn to another lossless priority (Tagger, Hu et al.,
    CoNEXT 2017). Keep the PFC watchdog on as the last line of defence (WDG001).
    """

    code = "DLK001"
    name = "cyclic-buffer-dependency"
    severity = Severity.error

    def check(self, ctx: Context) -> Iterator[Finding]:
        a = ctx.memo(_analysis, ctx.fabric)
        if a is None:
            # (a multi-ASIC switch's backplane hops join ports of one device: nothing to route between devices)
            if any(link.a.device != link.b.device for link in ctx.fabric.links):
                yield self.unverified("the fabric's routing is not declared (topology `routing:`), so PFC deadlock "
                                      "was not analysed", key="no-routing")
            elif ctx.fabric.routing is not None:
                yield from self.nothing_analysed(ctx, [])
            return
        for note in a.notes:
            yield self.unverified(f"{note.device}: {note.message}", **self.at(ctx, note.device), key=note.key)
        if a.unrouted is not None:
            yield self.unrouted(ctx, a.unrouted)
        if not a.graph.buffers:
            yield from self.nothing_analysed(ctx, a.net.cabling.skipped)
        for c in a.cycles:
            if c.needs_remap:
                continue  # DLK004
            first = c.buffers[0]
            yield self.certain(ctx, self.finding(
                f"cyclic buffer dependency under {a.routing} routing: {c.size} buffers of lossless "
                f"{priorities(sorted({n[2] for n in c.buffers}))} can wait on each other, so PFC can deadlock them; "
                f"witness: {c.text()}", **self.at(ctx, first[0], first[1]), devices=c.devices, key=c.key,
                cycle=[list(n) for n in c.buffers], buffers=c.size), c.buffers)

    def nothing_analysed(self, ctx: Context, skipped: list) -> Iterator[Finding]:
        """No buffer between switches analysed while cables were left out (by the topology loader, or as carrying no
        traffic): say so, counted, instead of reading as free of deadlock. An administratively down cable carries
        nothing, so leaving it out loses no traffic."""
        left = [c for c in skipped if c[0][0] != c[1][0] and "administratively down" not in c[2]]
        issues = ctx.fabric.topology_issues
        if not left and not issues:
            return
        parts = []
        if issues:
            parts.append(f"{len(issues)} topology {'entry' if len(issues) == 1 else 'entries'} could not be used")
        if left:
            (da, pa), (db, pb), why = left[0]
            parts.append(f"{len(left)} of the fabric's {len(ctx.fabric.links)} cables carry no traffic the analysis "
                         f"follows (e.g. {da}:{pa} <-> {db}:{pb}: {why})")
        yield self.unverified(
            f"no buffer between switches was analysed, so PFC deadlock was not checked: {' and '.join(parts)}; the "
            f"LNK findings say why and what to change", source=ctx.fabric.topology_source, key="nothing-analysed",
            topology_issues=len(issues), cables_left_out=len(left))

    def unrouted(self, ctx: Context, u: Unrouted) -> Finding:
        """Cabled host pairs that updown routing over the declared tiers does not connect: what their traffic would
        make wait is not analysed, so DLK001 finding no cycle says nothing about it."""
        src, dst = u.example
        devices = ctx.fabric.devices
        if u.inverted:
            them = few(u.inverted)
            where = "; ".join(f"{d} tier {devices[d].tier} ({_declared(devices[d])})" for d in u.inverted[:4])
            fix = (f"{them} {'has' if len(u.inverted) == 1 else 'have'} hosts but a higher tier than every switch "
                   f"cabled to {'it' if len(u.inverted) == 1 else 'them'} ({where}): the tiers look upside down; give "
                   f"the switches the hosts hang off tier 1 and each tier above one more in `tiers:`, or leave "
                   f"`tiers:` out to take tiers from the hop distance to the hosts")
            at = devices[u.inverted[0]]
        else:
            fix = ("give `tiers:` so that every such pair has a path up the tiers and down again (tier 1 for the "
                   "switches the hosts hang off, one more for each tier above), or declare `routing: shortest-path`")
            at = devices[src]
        return self.unverified(
            f"under updown routing {u.pairs} of the {u.cabled} host pairs joined by cables have no valley-free route "
            f"over the tiers (e.g. hosts of {src} to hosts of {dst}), so the buffers their traffic would fill are not "
            f"analysed and no PFC deadlock among them is ruled out; {fix}", device=at, source=at.tier_source,
            devices=list(dict.fromkeys([*u.inverted, src, dst])), key="no-valley-free-route",
            unrouted_pairs=u.pairs, cabled_pairs=u.cabled)


def _declared(device: Device) -> str:
    return device.tier_source.describe() if device.tier_source else "its hop distance from the hosts"


@register
class FailureCreatesCycle(_FabricRule):
    """A single cable failure re-routes traffic so that buffers wait on each other in a cycle.

    ## What it checks
    For every cable between switches in turn: the routes BGP picks with that cable down (each switch
    takes its shortest remaining paths; in a Clos a spine that lost a leaf reaches it through
    another leaf and spine, the down-up bounce) together with the routes still in use while the
    change spreads, and whether they make the buffer-dependency graph cyclic. One finding per such
    cable, with a witness cycle. Under `updown` and `shortest-path` routing; routing-table captures
    show one moment and are not swept. Cables to hosts only withdraw that host's routes. Failing
    cables are reported once per class (the pair of tiers they join), with one witness cycle, the
    count and examples: in a BGP Clos with a private AS per switch every such cable bounces.

    ## Why it matters
    Up-down routing in a Clos is free of cyclic buffer dependencies only while every cable is up.
    After a failure, bounced packets and transient loops close cycles (Tagger, Hu et al., CoNEXT
    2017; Hu et al., HotNets 2016): a deadlock can start exactly when the fabric is already degraded.

    ## Failing example
    Two spines, leaves with one cable to each, BGP with a private AS per switch: if leaf1 <-> spine1
    fails, spine1 reaches leaf1 through leaf2 while leaf2 still sends leaf1's traffic to spine1:
    `spine1:Ethernet2(3) -> leaf2:Ethernet2(3) -> spine1:Ethernet2(3)`.

    ## Passing example
    Every leaf cabled twice to its spine: losing one cable leaves every shortest path in place, so
    no route changes.

    ## Fix
    Keep BGP from bouncing: give the spines of one tier (per cluster) one AS, as the ASN plan of
    RFC 7938 does, so the AS-path loop check rejects spine -> leaf -> spine and a failure withdraws
    the route instead; or move bounced packets onto another lossless priority (Tagger). Keep the
    PFC watchdog on so that a deadlock that forms is broken (WDG001).
    """

    code = "DLK002"
    name = "failure-creates-cycle"
    severity = Severity.warning

    def check(self, ctx: Context) -> Iterator[Finding]:
        result = ctx.memo(_sweep, ctx.fabric)
        if result is None:
            return
        if result.skipped and ctx.fabric.routing == "routes":
            yield self.unverified(f"single-cable failures were not swept: {result.skipped}", key="not-swept")
        # A regular BGP Clos bounces on every inter-switch cable: one finding per class of cable (the
        # tiers it joins), with the first failing cable as the witness, instead of one per cable.
        def tier(device: str) -> str:
            known = ctx.fabric.devices.get(device)
            return "?" if known is None or known.tier is None else str(known.tier)

        classes: dict[tuple, list] = {}
        for f in result.failures:
            classes.setdefault(tuple(sorted(tier(d) for d, _ in f.cable)), []).append(f)
        for tiers, failures in sorted(classes.items()):
            f = failures[0]
            (da, pa), (db, pb) = f.cable
            devices = list(dict.fromkeys([da, db, *(n[0] for n in f.buffers)]))
            cables = [f"{a}:{p} <-> {b}:{q}" for (a, p), (b, q) in (x.cable for x in failures)]
            others = (f"; {len(failures) - 1} more tier {tiers[0]}-{tiers[1]} cable(s) fail the same way "
                      f"(e.g. {', '.join(cables[1:4])})" if len(failures) > 1 else "")
            yield self.certain(ctx, self.finding(
                f"if the cable {da}:{pa} <-> {db}:{pb} fails, {f.why}; their buffers then wait on each other in a "
                f"cycle: {f.text()}{others}", **self.at(ctx, da, pa), devices=devices,
                key=f"tiers {tiers[0]}-{tiers[1]}", cable=[f"{da}:{pa}", f"{db}:{pb}"],
                cycle=[list(n) for n in f.buffers], failing_cables=len(failures), cables=cables[:100]), f.buffers)


@register
class LosslessOnL2Flooding(Rule):
    """A port with PFC on a lossless priority is an L2 member of a VLAN that floods to other ports.

    ## What it checks
    Switch ports that pause a lossless priority (PFC on) and are members of a VLAN with at least one
    other member port on the same switch. One finding per port.

    ## Why it matters
    A frame to an unknown or unlearned MAC address, or a broadcast, is flooded to every member of the
    VLAN. Flooded lossless frames make the buffers of the member ports depend on each other whatever
    the routing, so a deadlock needs no routing loop (Hu et al., HotNets 2016). Guo et al. (SIGCOMM
    2016) traced a production PFC deadlock to lossless packets flooded because a server's MAC entry
    had expired while its ARP entry had not.

    ## Failing example
    SONiC `VLAN_MEMBER|Vlan1000|Ethernet0` and `VLAN_MEMBER|Vlan1000|Ethernet4`, with
    `PORT_QOS_MAP|Ethernet0: pfc_enable: "3,4"`.

    ## Passing example
    Routed ports (`no switchport`) carrying RoCE, or a VLAN whose only member is the port.

    ## Fix
    Route RoCE on routed ports; where servers must share a VLAN, make the switch drop, not flood,
    lossless frames to unknown destinations, and keep MAC ageing longer than ARP ageing so the
    switch does not flood to a host it still has an ARP entry for.
    """

    code = "DLK003"
    name = "lossless-on-l2-flooding"
    scope = "port"
    severity = Severity.warning

    kinds = frozenset({DeviceKind.switch})

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        # The work is per distinct VLAN list, not per port and VLAN: every port of a switch in its default VLAN, or
        # trunking every VLAN, holds the same list (16,384 ports x 4,094 VLANs one by one took minutes).
        # Each distinct list is worked with by its index (a tuple of 4,094 VLANs hashes at every lookup), and parsers
        # share one list object among ports with equal VLANs, so most ports' lists are told apart by their id.
        index: dict[tuple[int, ...], int] = {}  # VLAN list -> its index
        by_id: dict[int, int] = {}  # id of a port's VLAN list -> its index
        lists: list[tuple[tuple[int, ...], list[str]]] = []  # by index: the VLAN list, the ports holding it
        of: dict[str, int] = {}  # port -> the index of its VLAN list
        for port in device.ports.values():
            if port.vlans:
                i = by_id.get(id(port.vlans))
                if i is None:
                    vlans = tuple(port.vlans)
                    i = by_id[id(port.vlans)] = index.setdefault(vlans, len(index))
                    if i == len(lists):
                        lists.append((vlans, []))
                of[port.name] = i
                lists[i][1].append(port.name)
        if not lists:  # routed ports only (a leaf of a routed fabric): nothing floods
            return
        # Whether each VLAN floods between two targets. A link aggregate is one bridge port (IEEE 802.1AX: the
        # aggregator is what the MAC relay sees): a frame is flooded to one of its members, never from one member
        # back out of another, so its members are one target.
        many = object()
        seen: dict[int, object] = {}  # VLAN -> its one target so far, or `many`
        for vlans, names in lists:
            targets = {device.ports[n].bundle or n for n in names}
            first = next(iter(targets)) if len(targets) == 1 else many
            for v in vlans:
                had = seen.setdefault(v, first)
                if had is not first and had is not many and had != first:
                    seen[v] = many
        # The ports a port floods with depend on its VLANs shared with another target only: lists that differ in
        # the rest (a trunk of VLAN 10 plus a VLAN of its own on every port) share the work, once per shared subset.
        subset: dict[tuple[int, ...], int] = {}  # shared VLANs -> the index of that subset
        shared_of = [subset.setdefault(tuple(v for v in vlans if seen[v] is many), len(subset)) for vlans, _ in lists]
        subsets = list(subset)
        # Who floods with whom, as bit sets over the ports in their order (bit n: the n-th port): per shared VLAN the
        # ports holding it, per subset their union. A subset's ports are then found in a few word-wide ORs per VLAN,
        # not by testing every list against it: with every subset distinct that test was quadratic (3,900 subsets of
        # 3,900 lists).
        order = {name: n for n, name in enumerate(device.ports)}
        holding: dict[int, list[int]] = {}  # shared VLAN -> the lists holding it
        for n, (vlans, _) in enumerate(lists):
            if subsets[shared_of[n]]:
                for v in vlans:
                    if seen[v] is many:
                        holding.setdefault(v, []).append(n)
        members: dict[str, list[str]] = {}  # link aggregate -> its member ports, in port order
        for port in device.ports.values():
            if port.bundle is not None:
                members.setdefault(port.bundle, []).append(port.name)
        names = list(device.ports)
        # (a port's own aggregate's members are left out of the first four it names: never more than these are read)
        ahead = _SHOWN + max((len(m) for m in members.values()), default=1)
        words = len(names) // 64 + 1  # machine words of a bit set over the switch's ports
        list_bits: dict[int, int] = {}  # list -> its ports as bits (bit n: the n-th port), made when first needed
        vlan_bits: dict[int, int] = {}  # shared VLAN -> the ports holding it, as bits
        # By subset, worked out once: the ports flooded together, how many, the first of them in port order (taken as
        # a port asks for them), the VLANs. Per port only its own aggregate's members are taken out, by name (a bit
        # operation per port over every port's bit was N^2/64 word operations: 16,000 ports trunking every VLAN, 5 s).
        flooded: dict[int, _Flooded] = {}
        lossless = set(ctx.lossless)
        shared_sets: dict[int, frozenset[int]] = {}  # subset -> its VLANs as a set (for an aggregate's members)
        held: dict[tuple[str, int], list[str]] = {}  # (aggregate, subset) -> its members among the flooded ports
        for port in device.ports.values():
            i = of.get(port.name)
            if i is None or not subsets[shared_of[i]]:
                continue
            key = shared_of[i]
            paused = sorted(set(port.pfc_enabled or ()) & lossless)
            if not paused:
                continue
            group = flooded.get(key)
            if group is None:
                shared = subsets[key]
                # The lists holding the subset's VLANs, one by one (sparse: as many steps as such (VLAN, list)
                # pairs), or as the OR of per-VLAN bit sets (|shared| x words): whichever is fewer operations. Only
                # many distinct subsets each held by many lists cost more than linear time: at most N^2/64 words.
                pairs = sum(len(holding[v]) for v in shared)
                if pairs <= len(shared) * words:
                    held_by = {n for v in shared for n in holding[v]}
                    # (each list's ports are in port order: the first of all are among each list's first)
                    first = sorted([order[m] for n in held_by for m in lists[n][1][:ahead]])[:ahead]
                    group = _Flooded(sum(len(lists[n][1]) for n in held_by), ranges(list(shared)), first)
                else:
                    together = 0
                    for v in shared:
                        bits = vlan_bits.get(v)
                        if bits is None:
                            bits = 0
                            for n in holding[v]:
                                if n not in list_bits:
                                    list_bits[n] = sum(1 << order[m] for m in lists[n][1])
                                bits |= list_bits[n]
                            vlan_bits[v] = bits
                        together |= bits
                    group = _Flooded(together.bit_count(), ranges(list(shared)),
                                     list(itertools.islice(_positions(together), ahead)))
                flooded[key] = group
            # (its own aggregate's members are not flooded to; the port itself is one of the flooded: it holds them)
            own = [port.name]
            if port.bundle is not None:
                mine = held.get((port.bundle, key))
                if mine is None:
                    wanted = shared_sets.get(key)
                    if wanted is None:
                        wanted = shared_sets[key] = frozenset(subsets[key])
                    mine = held[(port.bundle, key)] = [
                        m for m in members[port.bundle] if (j := of.get(m)) is not None
                        and not wanted.isdisjoint(subsets[shared_of[j]])]
                own = mine
            leave = set(own)
            others = [names[n] for n in group.first if names[n] not in leave][:_SHOWN]
            yield self.finding(f"PFC is on for lossless {priorities(paused)} and the port floods with "
                               f"{few(others, group.count - len(own))} in VLAN {group.shown}: flooded lossless "
                               "frames can deadlock", device=device, port=port, key=group.shown, vlans=group.shown)


def _positions(bits: int) -> Iterator[int]:
    """The set bits of ``bits``, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


@record(frozen=True)
class _Flooded:
    """The ports one shared VLAN subset floods together: their number, the VLANs as a finding shows them, and the
    positions in port order of the first of them (as many as a port can need: _SHOWN past its own aggregate)."""

    count: int
    shown: str
    first: list[int]


_SHOWN = 4  # ports a DLK003 finding names before "and N more"


def ranges(values: list[int]) -> str:
    """1-4094 for a trunk carrying every VLAN, 10,20-22 otherwise."""
    out: list[list[int]] = []
    for v in sorted(values):
        if out and v == out[-1][1] + 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


@register
class RemapClosesLoop(_FabricRule):
    """A priority remap makes buffers wait on each other in a cycle that does not exist without it.

    ## What it checks
    Cyclic components of the buffer-dependency graph (as DLK001) none of whose buffers is on a cycle
    when every packet keeps its priority; the finding is on the port that changes the priority (an
    egress DSCP rewrite by traffic class, or a DSCP map that puts the traffic on another lossless
    priority) and lists every remap on the witness cycle.

    ## Why it matters
    Remapping priorities per hop is how Tagger (Hu et al., CoNEXT 2017) breaks cycles: a packet on a
    path that could close a loop moves to another lossless priority, whose buffers are separate. A
    remap pointed the wrong way does the opposite: it carries traffic from one priority's buffers
    into another's and back, and closes a loop that neither priority has alone.

    ## Failing example
    s3's port to s1 rewrites traffic class 3 to DSCP 34 (priority 4 at s1) and s1's port to s2 back
    to DSCP 26 (priority 3), where priority 3 alone and priority 4 alone have no cycle.

    ## Passing example
    The same rewrites towards a priority that nothing maps back (Tagger's monotone tags), or no
    rewrite.

    ## Fix
    Make remaps monotone along every path (a packet only ever moves to a "later" lossless priority
    and never returns), or remove the rewrite that sends traffic back.
    """

    code = "DLK004"
    name = "remap-closes-loop"
    severity = Severity.error

    def check(self, ctx: Context) -> Iterator[Finding]:
        a = ctx.memo(_analysis, ctx.fabric)
        for c in a.cycles if a else ():
            if not c.needs_remap:
                continue
            where = c.remaps[0]
            yield self.certain(ctx, self.finding(
                f"priority remapping closes a buffer-dependency cycle that no single priority has: "
                f"{'; '.join(r.text for r in c.remaps)}; witness: {c.text()}", **self.at(ctx, where.device, where.port),
                devices=c.devices, key=c.key, cycle=[list(n) for n in c.buffers],
                remaps=[f"{r.device}:{r.port}" for r in c.remaps]), c.buffers)


@register
class RouteToUnknownNextHop(_FabricRule):
    """A captured route's next hop cannot be followed to a cable of the fabric.

    ## What it checks
    With `routing: routes`, every next hop of every captured route: its egress interface must be a
    port of the switch with a known cable (a subinterface counts as its port). Connected routes and
    out-of-band interfaces (management, loopback, Null0) are not next hops. One finding per route
    and next hop; the rest of the table is still analysed.

    ## Why it matters
    Traffic on a next hop that cannot be followed is left out of the deadlock analysis, so a cycle
    through it would go unseen. Usually the topology lacks a cable, the capture is from another
    device, or the route leaves through a port-channel or VLAN interface whose member cables the
    topology does not list.

    ## Failing example
    `B>* 10.1.2.0/24 [20/0] via 10.0.0.9, Ethernet99, weight 1` on a switch without Ethernet99.

    ## Passing example
    `B>* 10.1.2.0/24 [20/0] via 10.0.0.1, Ethernet0, weight 1` where the topology cables Ethernet0.

    ## Fix
    Add the missing cable to topology.yaml, re-capture the routing table from the right switch, or
    list the member cables of the port-channel.
    """

    code = "DLK005"
    name = "route-to-unknown-next-hop"
    severity = Severity.warning

    def check(self, ctx: Context) -> Iterator[Finding]:
        a = ctx.memo(_analysis, ctx.fabric)
        for b in a.bad_hops if a else ():
            hop = " ".join(x for x in (b.hop.address, b.hop.port) if x)
            yield self.finding(f"route {b.route.prefix} via {hop}: {b.why}; its traffic is left out of the deadlock "
                               f"analysis", **self.at(ctx, b.device, b.port), source=b.route.source,
                               key=f"{b.route.prefix}|{hop}")
