"""SCH: the lossless class is scheduled so that it always drains: a weight above zero, no strict queue above it.

Switch ports: the egress queue each lossless priority leaves by (the lanes of rules/common.py) and the other
queues' schedulers (SONiC SCHEDULER type/weight, EOS `priority strict`, NX-OS `priority level` / bandwidth,
Junos scheduler priority, NVUE egress-scheduler). Host NICs: the ETS traffic class a lossless priority maps to
(`mlnx_qos` prio_tc, tsa, tcbw) and the other TCs' TSA.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import PortRule, register
from ..model import Device, DeviceKind, Port, Queue, SchedulerType, Trust
from .common import cnp_hop, lanes_by, numbers, scheduler_unknown, unknown_lanes

WEIGHTED = (SchedulerType.dwrr, SchedulerType.wrr, SchedulerType.ets)


def _allowed_strict(ctx, device: Device, port: Port) -> set[int]:
    """Queues/TCs that may be strict besides the lossless ones: the policy's list, else the CNP class's (on a switch
    the queue cnp.priority's PCP or, without one, cnp.dscp reaches)."""
    pol = ctx.policy
    if pol.scheduler.strict_allowed is not None:
        return set(pol.scheduler.strict_allowed)
    if pol.cnp is None:
        return set()
    if device.kind == DeviceKind.host:
        prio = pol.cnp.priority
        return set() if prio is None else {(port.priority_to_tc or {}).get(prio, prio)}
    hop = cnp_hop(pol.cnp, pol.lossless.trust, port)
    return {hop.queue} if hop.queue is not None else set()  # the CNP queue is not known: none is allowed by name


def _lossless_units(ctx, device: Device, port: Port) -> dict[int, int]:
    """Scheduling unit (switch queue, NIC TC) -> the lossless priority that uses it."""
    if device.kind == DeviceKind.host:
        tcs = port.priority_to_tc or {}
        return {tcs.get(prio, prio): prio for prio in ctx.lossless}
    # Lanes whose queue is not known are reported by ECN001 (unverified; by SCH001 itself where ECN001 does not run,
    # check_port); a RoCE DSCP on a lossy class, by MAP001.
    return {lane.queue: lane.priority for lane in lanes_by(ctx, port, "queue")
            if lane.queue is not None and lane.priority is not None}


@register
class LosslessClassStarved(PortRule):
    """The lossless class can be starved: a zero or too small scheduling weight, or a strict queue above it.

    ## What it checks
    On every RoCE-facing switch port, the egress queue each lossless priority leaves by, and on every NIC
    port the ETS traffic class it maps to (`mlnx_qos`: prio_tc, tsa, tcbw):
    - a weighted scheduler (DWRR/WRR, ETS) gives it a weight above 0 (error), and at least
      `scheduler.min_lossless_weight_pct` of the weighted bandwidth when the policy sets it (warning);
    - no other queue or TC that traffic reaches is strict priority, except the ones the policy allows
      (`scheduler.strict_allowed`, by default the CNP class of `cnp`) (warning: a strict class above can take
      the whole link; a strict queue under a shaper (`shaping-rate`, `shape`, SONiC `pir`) is capped and not
      counted). A queue that is strict only by the platform's default (EOS tx-queues above the last
      `no priority` one) and that only the default DSCP map reaches is reported as unverified: nearly every
      EOS config has such queues. Where the DSCP map is not in the input (so neither which queues traffic
      reaches nor which one is the CNP class's is known), a single strict queue is reported as unverified: it
      may be the CNP queue the policy allows. Under `lossless.trust: pcp` the queues traffic reaches, the
      lossless queue and the CNP class are those the port's 802.1p (PCP) map gives, not its DSCP map.
    A lossless queue whose scheduler the input does not show is reported as unverified, and so is weight 0 where
    every other weighted queue has weight 0 too (none is served before another; how the switch then shares the
    link is not in the input). A lossless priority whose queue the input does not show (OS9) is ECN001's
    unverified finding, and this rule's where ECN001 is not selected. One finding per port and problem.

    ## Why it matters
    A lossless queue that is not served never drains: its ingress PG stays above XOFF, the switch pauses
    its upstream forever, and the PFC watchdog (if any) starts dropping the lossless class. ETS weight 0 on
    a NIC, or a strict queue carrying bulk traffic above RoCE, does exactly that whenever the other class
    is busy; the pauses then spread through the fabric.

    ## Failing example
    SONiC `SCHEDULER|scheduler.0: {type: DWRR, weight: 0}` on queue 3: `queue 3 (lossless priority 3) is
    scheduled by DWRR with weight 0: it is served only when every other queue is empty`.

    ## Passing example
    Queue 3 DWRR weight 15 beside best effort's, CNP queue 6 strict (the policy's CNP class).

    ## Fix
    Give the lossless queue a weight (a share of the bandwidth the strict queues leave), and make strict
    only the CNP queue (or what `scheduler.strict_allowed` lists); on a NIC, `mlnx_qos -i IF --tsa ...
    --tcbw ...` with a non-zero share for the lossless TC. On EOS, whose queues above the last `no priority`
    one are strict by default, move the traffic off them instead (the DSCP or CoS map: a disruptive fix).
    """

    code = "SCH001"
    name = "lossless-class-starved"
    scope = "port"
    severity = Severity.error
    fix_sections = frozenset({"scheduler", "maps"})  # (maps: EOS only, its default-strict queues; each finding names)

    device_kind = None  # switches and hosts

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        host = device.kind == DeviceKind.host
        unit = "TC" if host else "queue"
        lossless = _lossless_units(ctx, device, port)
        if not host:
            yield from unknown_lanes(self, ctx, device, port, "queue", "scheduler")
        # (the host script writes no ETS: a human sets it)
        section: dict[str, Any] = {"section": None if host else "scheduler"}
        queues = port.queues
        for q, prio in sorted(lossless.items()):
            queue = queues.get(q)
            sched = queue.scheduler if queue else None
            where = f"{unit} {q} (lossless priority {prio})"
            src = (sched.source if sched else None) or (queue.source if queue else None) or port.source
            if sched is None or sched.type is None:
                yield self.unverified(scheduler_unknown(where, sched), device=device, port=port,
                                      source=src, key=str(q))
                continue
            others = [x.scheduler.weight for i, x in queues.items() if i != q and x.scheduler is not None
                      and x.scheduler.type in WEIGHTED]
            if sched.type in WEIGHTED and sched.weight == 0 and others and all(w == 0 for w in others):
                # Every weighted queue at 0 (NetApp's Nexus RCFs write `bandwidth remaining percent 0` on all eight
                # classes): none is served before another, and how the switch then shares the link is not written.
                yield self.unverified(f"{where} is scheduled by {sched.type.value.upper()} with weight 0, as is every "
                                      f"other weighted {unit}: none is served before another, and how the switch "
                                      f"shares the link among them is not in the input", device=device, port=port,
                                      source=src, key=str(q))
                continue
            if sched.type in WEIGHTED and sched.weight == 0:
                yield self.finding(f"{where} is scheduled by {sched.type.value.upper()} with weight 0: it is served only "
                                   f"when every other {unit} is empty, so under load it never drains and pauses its "
                                   f"senders for good; give it a weight", device=device, port=port, source=src,
                                   key=str(q), weight=0, **section)
                continue
            floor = ctx.policy.scheduler.min_lossless_weight_pct
            share = _share(queues, q)
            if floor is not None and share is not None and share < floor:
                yield self.finding(f"{where} gets {share:.1f} % of the weighted bandwidth, below the policy's "
                                   f"scheduler.min_lossless_weight_pct {floor:g} %", device=device, port=port,
                                   source=src, key=f"{q}|share", severity=Severity.warning, share_pct=round(share, 2),
                                   **section)
        if not lossless:
            return
        allowed = _allowed_strict(ctx, device, port) | set(lossless)
        strict = sorted(idx for idx in _outranking(queues, lossless) if idx not in allowed)
        by_pcp = not host and ctx.policy.lossless.trust == "pcp"
        used = _used_units(device, port, by_pcp) if strict else None  # (all 64 DSCPs or 8 PCPs: only if strict)
        strict = [idx for idx in strict if used is None or idx in used]
        if strict and used is None and not host and port.trust in (Trust.pcp, Trust.dscp) \
                and (port.trust == Trust.pcp) != by_pcp:
            # The policy's map is not in the input, but the port sorts by the other field (an Onyx port left at `qos
            # trust L2` under a DSCP policy, which the MAP rules name): a strict queue that field's map sends nothing to
            # starves no one today.
            now = _used_units(device, port, not by_pcp)
            strict = [idx for idx in strict if now is None or idx in now]
        if not strict:
            return
        pol = ctx.policy
        cnp = pol.cnp
        if (used is None and len(strict) == 1 and not host and pol.scheduler.strict_allowed is None
                and cnp is not None and cnp.priority is not None
                and cnp_hop(cnp, pol.lossless.trust, port).queue is None):
            # The DSCP (PCP) map is not in the input: the one strict queue may be the CNP class's, which the policy
            # allows.
            first = queues[strict[0]]
            at = (first.scheduler.source if first.scheduler else None) or first.source or port.source
            yield self.unverified(f"{unit} {strict[0]} is strict priority above the lossless {unit} "
                                  f"{numbers(lossless)}; the {'PCP' if by_pcp else 'DSCP'}->TC map is not in the "
                                  f"input, so whether it is the CNP class's queue (the one strict queue the policy "
                                  f"allows) could not be checked",
                                  device=device, port=port, source=at, key="strict", strict=strict)
            return
        # Strictness or traffic the config writes (a scheduler line, a DSCP map line) is a choice to check; a queue
        # strict by the vendor's default (EOS: every tx-queue above the last `no priority` one) reached only by the
        # default DSCP map is in nearly every deployed EOS config and may carry little: unverified, not a warning.
        by_written_maps = _used_units(device, port, by_pcp, written=True) or set()
        written = [i for i in strict if not queues[i].scheduler.default or i in by_written_maps]
        first = queues[(written or strict)[0]]
        src = first.scheduler.source or first.source or port.source
        if not written:
            yield self.unverified(f"{unit} {numbers(strict)} {'is' if len(strict) == 1 else 'are'} strict priority by "
                                  f"the platform's default above the lossless {unit} {numbers(lossless)} and some DSCPs "
                                  f"reach {'it' if len(strict) == 1 else 'them'}: whether that traffic can starve RoCE "
                                  f"depends on its volume, which the config does not show", device=device, port=port,
                                  source=src, key="strict", strict=strict)
            return
        if device.platform == "arista_eos":
            # EOS queues above the highest `no priority` queue are strict by default (`no priority` on queue N makes
            # 0..N round robin: EOS User Manual, QoS, tx-queue `priority`): no scheduler line makes one weighted
            # while a strict CNP queue above it stays strict, so the fix moves the traffic off them, the policy's
            # whole map (every other code point to the best-effort class), which reclassifies a running class.
            section = {"section": ["maps", "scheduler"], "disruptive": True}
        what = "strict priority" if len(written) == 1 else "strict priority each"
        yield self.finding(f"{unit} {numbers(written)} {'is' if len(written) == 1 else 'are'} {what} above the lossless "
                           f"{unit} {numbers(lossless)}: whatever they carry is always sent first and can take the "
                           f"whole link from RoCE; make only the CNP class strict (or list them in "
                           f"scheduler.strict_allowed)", device=device, port=port, source=src, key="strict",
                           severity=Severity.warning, strict=written, **section)

def _used_units(device: Device, port: Port, by_pcp: bool, written: bool = False) -> set[int] | None:
    """The queues (TCs on a NIC) some traffic is classified into: a strict queue nothing reaches starves no one.
    None when the maps are not in the input. ``by_pcp``: the switch port sorts traffic by its 802.1p PCP (a policy
    with `lossless.trust: pcp`), so the eight PCPs reach the queues, not the DSCPs. ``written``: only by map entries
    the config writes."""
    if device.kind == DeviceKind.host:
        tcs = port.priority_to_tc
        return set(range(8)) if tcs is None else set(tcs.values())
    if by_pcp:
        return None if port.pcp_to_tc is None else {q for p in range(8) if (q := port.pcp_queue(p)) is not None}
    if port.dscp_to_tc is None:
        return None
    skip = set(port.dscp_defaulted or ()) if written else set()
    used = {q for d in range(64) if d not in skip and (q := port.dscp_queue(d)) is not None}
    if not written and port.dscp_unmapped_by_pcp and port.pcp_to_tc is not None and port.tc_to_queue is not None:
        # A DSCP the map leaves out is classified by the PCP map (where the parser says so): the queues that traffic
        # reaches are used too.
        used |= {q for tc in port.pcp_to_tc.values() if (q := port.tc_to_queue.get(tc)) is not None}
    return used


def _outranking(queues: dict[int, Queue], lossless: dict[int, int]) -> list[int]:
    """Strict queues served before a lossless one: every strict queue when a lossless queue is weighted, the
    higher-numbered strict ones when it is strict itself (strict queues are served highest index first). A strict
    queue under a shaper cannot take more than its cap: not counted."""
    lossless_strict = [q for q in lossless if queues.get(q) and queues[q].scheduler
                       and queues[q].scheduler.type == SchedulerType.strict]
    floor = min(lossless_strict) if lossless_strict and len(lossless_strict) == len(lossless) else -1
    return [i for i, queue in queues.items() if queue.scheduler is not None
            and queue.scheduler.type == SchedulerType.strict and not queue.scheduler.shaped and i > floor]


def _share(queues: dict[int, Queue], q: int) -> float | None:
    """Queue q's percent of the weights of the weighted queues (None when a weight is unknown)."""
    weights = {i: qq.scheduler.weight for i, qq in queues.items()
               if qq.scheduler is not None and qq.scheduler.type in WEIGHTED}
    known = {i: w for i, w in weights.items() if w is not None}
    if q not in known or len(known) < len(weights) or not sum(known.values()):
        return None
    return 100 * known[q] / sum(known.values())
