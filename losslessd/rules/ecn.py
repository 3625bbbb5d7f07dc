"""ECN: the egress queue lossless traffic uses marks ECN, with sane thresholds, before PFC pauses.

Which queue: each policy lossless DSCP is followed through the port's maps (Port.dscp_chain; under
`lossless.trust: pcp` each lossless priority's PCP, Port.pcp_chain: rules/common.py roce_hops); a
lossless priority that no such marking reaches (maps unknown, or broken, which MAP001 reports) is checked
on the queue and PG of the traffic classes with that PFC priority. A queue or PG the input does not
show is reported as unverified (never taken to be the priority's own number). Switch ports only:
NIC DCQCN switches are checked by NIC003.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import headroom, units
from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import register
from ..model import Device, Ecn, Port
from ..tuples import NamedTuple
from .common import Lane, LaneRule, lossless_pgs, marks_ecn, not_known


def _ecn(port: Port, queue: int) -> Ecn | None:
    """The queue's ECN config when marking is not known to be off."""
    q = port.queues.get(queue)
    if q is None or q.ecn is None or q.ecn.ecn_enabled is False:
        return None
    return q.ecn


class Load(NamedTuple):
    """How many lossless PGs ECN004 takes as congested at once, and why."""

    queues: int
    assumption: str  # "policy" or "pool"
    why: str


def congested_load(ctx, device: Device, pool: str | None) -> Load:
    """The policy's ecn.assume_congested_queues, else every lossless PG of the device's RoCE-facing ports that
    takes its shared buffer from ``pool``, the policy's and those of every priority the port's PFC enables (PGs sized
    at run time count too: they share it all the same)."""
    n = ctx.policy.ecn.assumed_congested
    if n is not None:
        return Load(n, "policy", f"ecn.assume_congested_queues {n}")
    return ctx.memo(_pool_load, device)[pool or ""]


def _pool_load(ctx, device: Device) -> dict[str, Load]:
    pgs: dict[str, int] = {}
    ports: dict[str, set[str]] = {}
    for port in ctx.roce_ports(device):
        profiles = port.pg_profiles()  # (read without making a SharedPort's PGs)
        for pg in lossless_pgs(ctx.policy, port):  # (every lossless PG takes from the pool, also one PFC alone makes)
            name = profiles.get(pg, (None, False))[0]
            profile = device.buffer_profiles.get(name) if name else None
            pool = (profile.pool if profile is not None else None) or ""
            pgs[pool] = pgs.get(pool, 0) + 1
            ports.setdefault(pool, set()).add(port.name)
    out: dict[str, Load] = {}
    for pool, count in pgs.items():
        out[pool] = Load(count, "pool", f"every lossless PG sharing pool {pool or '?'}: {count} on "
                         f"{len(ports[pool])} RoCE port(s); set ecn.assume_congested_queues to assume another load")
    return _LoadTable(out)


class _LoadTable(dict):
    def __missing__(self, pool: str) -> Load:
        return Load(1, "pool", "no lossless PG shares the pool")


def _source(port: Port, queue: int):
    q = port.queues.get(queue)
    return (q.ecn.source if q and q.ecn and q.ecn.source else None) or (q.source if q else None) or port.source


def _where(lane: Lane) -> str:
    if lane.priority is None:
        why = "not in a lossless class" if lane.lossy else "its class's PFC priority not in the input"
        return f"queue {lane.queue} (RoCE {lane.marked}, {why})"
    return f"queue {lane.queue} (lossless priority {lane.priority})"


class _EcnRule(LaneRule):
    hop = "queue"  # ECN001 says when a lossless priority's queue is unknown
    needs_pfc = False  # ECN marks on a lossy-mode switch too (its only congestion control there)

    def _at(self, device, port, lane) -> dict:
        return {"device": device, "port": port, "source": _source(port, lane.queue), "key": lane.queue}


class _MarkingRule(_EcnRule):
    """A rule about ECN settings that exist: queues whose marking is off or absent are ECN001's."""

    def check_lane(self, ctx: Context, device: Device, port: Port, lane: Lane) -> Iterator[Finding]:
        ecn = _ecn(port, lane.queue)
        if ecn is not None:
            yield from self.check_marking(ctx, device, port, lane, ecn)

    def check_marking(self, ctx: Context, device: Device, port: Port, lane: Lane, ecn: Ecn,
                      ) -> Iterator[Finding]:  # pragma: no cover - interface
        raise NotImplementedError


@register
class EcnDisabledOnLossless(_EcnRule):
    """A lossless queue does not mark ECN.

    ## What it checks
    On every RoCE-facing switch port, the egress queue each lossless priority's traffic uses, and
    the queue each RoCE DSCP of the policy (under `lossless.trust: pcp`, each lossless priority's 802.1p
    PCP) leaves from (also when its class is not lossless), has
    WRED/ECN marking enabled. Silent when the policy says `ecn.required: false` (PFC-only fabrics).
    One finding per port and queue; a queue whose ECN state the input does not show is reported as
    unverified. Where the config defines an ECN-marking profile that it binds to no queue (OS10 `wred NAME` with
    `random-detect ecn` that no queuing class names), the message names that profile and its line.

    ## Why it matters
    DCQCN slows RoCE senders only when switches mark ECN. Without marking, congestion is handled by
    PFC alone: pauses spread upstream, cause head-of-line blocking and can deadlock the fabric.

    ## Failing example
    SONiC `QUEUE|Ethernet0|3` with no `wred_profile`, or EOS `tx-queue 3` without
    `random-detect ecn`: `queue 3 (lossless priority 3) does not mark ECN`.

    ## Passing example
    `QUEUE|Ethernet0|3: {wred_profile: AZURE_LOSSLESS}` with `ecn: ecn_all` in the WRED profile.

    ## Fix
    Attach an ECN-enabled WRED profile to the queue (SONiC `wred_profile`, EOS
    `random-detect ecn minimum-threshold ... maximum-threshold ...` under `tx-queue`), or choose a
    policy with `ecn.required: false` if the fabric deliberately runs PFC only.
    """

    code = "ECN001"
    name = "ecn-disabled-on-lossless"
    severity = Severity.error
    fix_sections = frozenset({"ecn"})
    needs_lossless = True  # no queue of the switch marks and nothing else is lossless: PFC006 says it once

    def check_lane(self, ctx: Context, device: Device, port: Port, lane: Lane) -> Iterator[Finding]:
        if not ctx.policy.ecn.required:
            return
        marks = marks_ecn(port, lane.queue)
        if marks is None:
            ecn = port.queues[lane.queue].ecn if lane.queue is not None else None  # (marks_ecn: the queue is there)
            yield self.unverified(not_known(f"whether {_where(lane)} marks ECN", ecn), **self._at(device, port, lane))
        elif not marks:
            # (a marking profile the config defines but binds to no queue: named, where it is, as the likely intent)
            unbound = "".join(f"; the ECN-marking profile {name} ({src.describe()}) is bound to no queue"
                              for name, src in sorted((device.unbound_marking or {}).items()))
            yield self.finding(f"{_where(lane)} does not mark ECN{unbound}; enable WRED/ECN marking on queue "
                               f"{lane.queue} so DCQCN slows senders before PFC pauses them",
                               **self._at(device, port, lane))


@register
class EcnThresholdsInvalid(_MarkingRule):
    """ECN thresholds of a lossless queue cannot work: Kmin above Kmax or below the MTU floor, or a bad probability.

    ## What it checks
    For every lossless queue that marks ECN: Kmin <= Kmax; Kmin >= `ecn.kmin_min_mtus` x the port
    MTU (when the MTU is known); the marking probability (Pmax) inside
    `ecn.mark_probability_pct`. Kmin == Kmax is legal: it is step marking (DCTCP-style, every
    packet above K is marked), not an error. Thresholds written in a unit that could not be
    converted to bytes are reported as unverified. One finding per port and queue, listing every
    problem.

    ## Why it matters
    With Kmin > Kmax many ASICs mark nothing or reject the profile; Kmin below one MTU marks on a
    single queued packet; a zero probability never marks; each leaves DCQCN blind and PFC does
    all the work.

    ## Failing example
    `green_min_threshold: 2097152`, `green_max_threshold: 1048576`:
    `queue 3 (lossless priority 3): Kmin 2097152 B is above Kmax 1048576 B`.

    ## Passing example
    `green_min_threshold: 1048576`, `green_max_threshold: 2097152`, `green_drop_probability: 5`.

    ## Fix
    Set Kmin <= Kmax, Kmin of at least a few MTUs, and a marking probability the policy allows.
    """

    code = "ECN002"
    name = "ecn-thresholds-invalid"
    severity = Severity.error
    fix_sections = frozenset({"ecn"})

    def check_marking(self, ctx: Context, device: Device, port: Port, lane: Lane, ecn: Ecn) -> Iterator[Finding]:
        pol = ctx.policy.ecn
        kmin, kmax, pmax = ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.mark_probability_pct
        problems = []
        if kmin is not None and kmax is not None and kmin > kmax:
            problems.append(f"Kmin {kmin} B is above Kmax {kmax} B")
        if kmin is not None and port.mtu_bytes and kmin < pol.kmin_min_mtus * port.mtu_bytes:
            problems.append(f"Kmin {kmin} B is below {pol.kmin_min_mtus:g} x MTU {port.mtu_bytes} B")
        if pmax is not None and not pol.mark_probability_pct.contains(pmax):
            problems.append(f"marking probability {pmax:g} % is outside {pol.mark_probability_pct.describe('%')}")
        at = self._at(device, port, lane)
        if problems:
            yield self.finding(f"{_where(lane)}: {'; '.join(problems)}", **at, kmin_bytes=kmin, kmax_bytes=kmax,
                               mark_probability_pct=pmax)
        elif ecn.unconverted:
            yield self.unverified(f"{_where(lane)}: ECN thresholds {ecn.unconverted!r} could not be converted to "
                                  f"bytes, so they were not checked", **at)
        elif kmin is None and kmax is None:
            # (marking itself may be unknown too: ECN001 says so; the thresholds are this rule's part)
            marks = "marks ECN" if ecn.ecn_enabled else "may mark ECN"
            yield self.unverified(f"{_where(lane)} {marks} but its thresholds are not in the input", **at)


@register
class EcnThresholdOutOfRange(_MarkingRule):
    """ECN thresholds of a lossless queue are outside the policy's ranges.

    ## What it checks
    For every lossless queue that marks ECN, Kmin is inside `ecn.min_threshold_bytes` and Kmax
    inside `ecn.max_threshold_bytes`. Thresholds that could not be converted to bytes are skipped
    here (ECN002 reports them as unverified). One finding per port and queue.

    ## Why it matters
    Too low and DCQCN cuts rates on short bursts and wastes bandwidth; too high and queues (and
    latency) grow large before senders react, close to where PFC pauses.

    ## Failing example
    Policy `min_threshold_bytes: {min: 9216, max: 4194304}`, WRED Kmin 8388608:
    `queue 3 (lossless priority 3): Kmin 8388608 B is outside [9216, 4.1943e+06] B`.

    ## Passing example
    Kmin 1048576 and Kmax 2097152 under the same policy.

    ## Fix
    Bring the thresholds into the policy's ranges, or widen the ranges in a policy that
    `extends` this one if the fabric deliberately uses other values.
    """

    code = "ECN003"
    name = "ecn-threshold-out-of-range"
    severity = Severity.warning
    fix_sections = frozenset({"ecn"})

    def check_marking(self, ctx: Context, device: Device, port: Port, lane: Lane, ecn: Ecn) -> Iterator[Finding]:
        pol = ctx.policy.ecn
        problems = [f"{label} {value} B is outside {rng.describe('B')}"
                    for label, value, rng in (("Kmin", ecn.min_threshold_bytes, pol.min_threshold_bytes),
                                              ("Kmax", ecn.max_threshold_bytes, pol.max_threshold_bytes))
                    if value is not None and not rng.contains(value)]
        if problems:
            yield self.finding(f"{_where(lane)}: {'; '.join(problems)}", **self._at(device, port, lane),
                               kmin_bytes=ecn.min_threshold_bytes, kmax_bytes=ecn.max_threshold_bytes)


@register
class EcnAfterPfc(_MarkingRule):
    """ECN does not start marking before the lossless PG sends PFC pauses, under the assumed load.

    ## What it checks
    For every lossless queue that marks ECN, the policy's chosen threshold (`ecn.before_pfc`: Kmin, or
    Kmax) is compared with the PFC trigger of the ingress PG the same priority uses: reservation +
    static_th for a static threshold, or reservation + alpha*F/(1 + n*alpha) for a dynamic one (alpha =
    2**dynamic_th, F = the PG's pool size; Choudhury & Hahne dynamic thresholds), or the fill level the
    config states for XOFF (NX-OS ingress queuing `pause ... pause-threshold X`: X, at any load, counted per
    ingress port; a warning, see below). n is the number of
    lossless PGs congested at once: the policy's `ecn.assume_congested_queues`, else every lossless PG of
    the switch's RoCE-facing ports that shares the pool (the policy's lossless priorities' PGs and those of every
    priority the port's PFC enables). The message and the finding's data say which
    assumption was used, and give the best case (one congested PG, the highest possible trigger) beside
    it. With the policy's load, a threshold at or above the trigger at that load is an error. With no load in
    the policy, it is an error only where ECN cannot mark first even with one congested PG (broken at any load);
    where it fails only as more PGs congest, it is a warning naming the break-even K, the fewest congested PGs of
    the pool whose trigger is at or below the threshold (same formula; data `break_even_congested`). Margins are in
    bytes and in microseconds at line rate. When the trigger or the threshold is
    unknown (run-time profile, pool sized at run time, unconverted unit) the queue is reported as
    unverified.

    ## Why it matters
    ECN marks on the egress queue and PFC triggers on the ingress PG. With one ingress port feeding each
    congested egress queue, the PG fills as fast as the queue, so the queue must reach Kmin before the PG
    reaches its XOFF point, or PFC pauses come first and DCQCN never gets the chance to slow senders
    (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015; Luangsomboon &
    Liebeherr, IEEE Networking Letters 2024, give the exact condition). A dynamic threshold shrinks as more
    PGs take from the pool: a margin that holds with one congested PG (the whole pool free) turns negative
    when many ports are congested at once (all-to-all collectives, incast on several ports), which is
    when it matters. NX-OS sets `pause-threshold` in the input queuing policy of the ingress port and WRED in
    the output one of the egress queue (Nexus 9000 QoS guide): X counts one ingress port's bytes, so an incast of
    more than threshold/X ports brings the queue to the threshold before any of them pauses, and published
    Nexus RoCE configs pause at tens of KB under a Kmin of hundreds. There the finding is a warning that names
    that port count (`ingress_ports_to_mark_first`): 1:1 paths pause before they mark.

    ## Failing example
    WRED Kmin 1048576 B on queue 3; PG 3 profile `{size: 50176, xon: 19456, xoff: 30720, dynamic_th: 0}`
    in a 16 MiB pool shared by 64 lossless PGs: `Kmin 1048576 B is not below the PFC trigger of PG 3 under
    load: with 64 lossless PGs congested at once (every lossless PG sharing pool ...) it pauses at 277562 B:
    margin -771014 B ...; best case (one congested PG): 8408064 B, margin 7359488 B` (an error where the policy
    sets `ecn.assume_congested_queues: 64`; with no load set, a warning: `ECN cannot mark before PFC once 16 or
    more lossless PGs of pool ... are congested at once (Kmin 1048576 B, the dynamic threshold with 16 congested:
    1006351 B ...)`).

    ## Passing example
    Kmin 153600 B (150 KB) against the same PG and pool.

    ## Fix
    Lower Kmin (or Kmax), give the lossless PGs a larger shared-buffer limit (higher dynamic_th /
    static_th, or NX-OS pause-threshold) or pool, or state a smaller load the fabric is built for in
    `ecn.assume_congested_queues`.
    """

    code = "ECN004"
    needs_pfc = True  # no PFC (a lossy-mode switch): nothing to mark before
    name = "ecn-after-pfc"
    severity = Severity.error
    fix_sections = frozenset({"ecn", "buffer"})

    def check_marking(self, ctx: Context, device: Device, port: Port, lane: Lane, ecn: Ecn) -> Iterator[Finding]:
        pol = ctx.policy.ecn
        label = "Kmin" if pol.before_pfc == "kmin" else "Kmax"
        threshold = ecn.min_threshold_bytes if pol.before_pfc == "kmin" else ecn.max_threshold_bytes
        at = self._at(device, port, lane)
        if lane.priority is None:
            return  # a lossy class has no PFC trigger to compare with (MAP001 reports the class)
        if threshold is None:
            why = f"is written as {ecn.unconverted!r}" if ecn.unconverted else "is not in the input"
            yield self.unverified(f"{_where(lane)}: {label} {why}, so it was not compared with the PFC trigger", **at)
            return
        pg = port.priority_groups.get(lane.pg)
        profile = device.buffer_profiles.get(pg.profile) if pg and pg.profile else None
        if profile is None:
            why = "is computed at run time" if pg and pg.runtime_profile else "is not in the input"
            # A platform whose input gives no TC -> PG map leaves the ingress PG itself unknown (lane.pg None).
            what = f"the buffer profile of {port.pg_label(lane.pg)}" if lane.pg is not None else \
                f"the ingress PG of priority {lane.priority}"
            yield self.unverified(f"{_where(lane)}: {what} {why}, so the PFC trigger is unknown", **at)
            return
        pool = device.buffer_pools.get(profile.pool or "")
        load = congested_load(ctx, device, profile.pool)
        loaded = headroom.pfc_trigger(profile, pool, load.queues)
        best = headroom.pfc_trigger(profile, pool, 1)  # known whenever the loaded one is: the same inputs
        if loaded is None or best is None:
            named = port.pg_label(lane.pg)
            yield self.unverified(f"{_where(lane)}: the PFC trigger of {named} (profile {profile.name}) is "
                                  f"unknown: no static threshold, and no pool size for its dynamic threshold", **at)
            return
        margin, best_margin = loaded.at_bytes - threshold, best.at_bytes - threshold
        if margin > 0:  # (as headroom.marks_after_pfc, render's gate: the trigger only falls as more PGs congest)
            return
        speed = port.speed_gbps or pol.speed_reference_gbps
        rate = (f"{speed:g} Gb/s" if port.speed_gbps else f"the policy's reference {speed:g} Gb/s") if speed else ""

        def us(value: int) -> tuple[float | None, str]:
            t = units.bytes_to_us(value, speed)
            return (round(t, 3), f" ({t:.1f} us at {rate})") if t is not None else (None, "")

        margin_us, margin_txt = us(margin)
        best_us, best_txt = us(best_margin)
        any_load = headroom.pfc_trigger(profile, pool, 2).at_bytes == best.at_bytes  # a static threshold
        stated = profile.xoff_threshold_bytes is not None  # the config states the XOFF fill level itself
        if stated:
            # Nexus 9000 QoS guide: the pause buffer is set in the input queuing policy an interface attaches (PFC
            # chapter), WRED ECN on the egress queue in the output one (Queuing and Scheduling chapter). So X counts
            # what one ingress port holds in the class, Kmin the queue every ingress port sending to it fills: an
            # incast of more than threshold/X ports, each below X, still brings the queue to the threshold first.
            fan_in = threshold // max(loaded.at_bytes, 1) + 1
            yield self.finding(
                f"{_where(lane)}: {label} {threshold} B is not below the PFC trigger of {port.pg_label(lane.pg)} "
                f"({loaded.basis} per ingress port, the same at any load): margin {margin} B{margin_txt}; where one "
                f"ingress port feeds the queue (a 1:1 path, or its egress paused from downstream) PFC pauses before "
                f"ECN marks, while an incast of {fan_in} or more ports reaches {label} first; raise the pause "
                f"threshold above {label} where ECN must come first on 1:1 paths too", **at, severity=Severity.warning,
                margin_bytes=margin, margin_us=margin_us, threshold_bytes=threshold, trigger_bytes=loaded.at_bytes,
                pg=port.pg_key(lane.pg), assumed_congested=load.queues, assumption=load.assumption,
                best_trigger_bytes=best.at_bytes, best_margin_bytes=best_margin, best_margin_us=best_us,
                ingress_ports_to_mark_first=fan_in)
            return
        data: dict[str, Any] = dict(
            margin_bytes=margin, margin_us=margin_us, threshold_bytes=threshold, trigger_bytes=loaded.at_bytes,
            pg=port.pg_key(lane.pg), assumed_congested=load.queues, assumption=load.assumption,
            best_trigger_bytes=best.at_bytes, best_margin_bytes=best_margin, best_margin_us=best_us)
        if load.assumption == "pool" and best_margin > 0:
            # No load in the policy and ECN marks first with one congested PG: it fails only as more PGs congest, so
            # a warning that says from how many on (the same Choudhury & Hahne threshold, headroom.marks_after_pfc).
            # (both known: the trigger is at or below the threshold at the load, margin <= 0, and known at one PG)
            k = headroom.marks_after_pfc(profile, pool, threshold, load.queues) or load.queues
            at_k = headroom.pfc_trigger(profile, pool, k) or loaded
            yield self.finding(
                f"{_where(lane)}: ECN cannot mark before PFC once {k} or more lossless PGs of pool "
                f"{profile.pool or '?'} are congested at once ({label} {threshold} B, the dynamic threshold with "
                f"{k} congested: {at_k.at_bytes} B, {at_k.basis}); {port.pg_label(lane.pg)} pauses at "
                f"{best.at_bytes} B with one congested PG (margin {best_margin} B{best_txt}), at "
                f"{loaded.at_bytes} B with all {load.queues} of the pool congested (margin {margin} "
                f"B{margin_txt}); lower {label} or raise the PG's "
                f"shared-buffer limit, or state the load the fabric is built for in ecn.assume_congested_queues",
                **at, severity=Severity.warning, **data, break_even_congested=k,
                break_even_trigger_bytes=at_k.at_bytes)
            return
        if any_load:
            where = f" ({loaded.basis} = {loaded.at_bytes} B, the same at any load): margin {margin} B{margin_txt}"
        else:
            several = load.queues != 1
            where = (f"{' under load' if several else ''}: with {load.queues} lossless PG{'s' if several else ''} "
                     f"congested at once (assumed: {load.why}) it is {loaded.basis} = {loaded.at_bytes} B: margin "
                     f"{margin} B{margin_txt}")
            if several:
                best_label = "best case, one congested PG" if best_margin > 0 else "even with one congested PG"
                where += f"; {best_label}: {best.at_bytes} B, margin {best_margin} B{best_txt}"
        yield self.finding(f"{_where(lane)}: {label} {threshold} B is not below the PFC trigger of "
                           f"{port.pg_label(lane.pg)}{where}; PFC pauses before ECN marks, lower {label} or raise the "
                           f"PG's shared-buffer limit", **at, **data)


@register
class WredDropsLossless(_EcnRule):
    """WRED drops a lossless queue's packets without marking them.

    ## What it checks
    On every RoCE-facing switch port, the egress queue of each lossless priority: a WRED profile that
    drops packets and marks none (a Junos drop profile on a scheduler without
    `explicit-congestion-notification`; a SONiC `WRED_PROFILE` with `wred_green_enable: "true"` whose
    `ecn` mode marks no green packets, `ecn_none` or no `ecn` at all; an NX-OS queuing class's
    `random-detect` or `afd` without `ecn`; an EOS tx-queue's `random-detect drop` of every drop
    precedence without `random-detect ecn`). Checked whatever `ecn.required` says: a PFC-only fabric
    loses packets here too. Platforms whose WRED losslessd does not read this way (NVUE, Dell) are not
    checked.

    ## Why it matters
    WRED drops at the egress queue from its minimum threshold up, long before the ingress PG reaches
    the PFC trigger: PFC never pauses for those packets, so the "lossless" priority loses them and RoCE
    retransmits (Juniper's QFX CoS guide, "Configuring CoS WRED Drop Profiles": do not enable WRED on
    lossless flows). A WRED that marks ECN drops only packets that are not ECN-capable (SONiC; Junos
    tail-drops those only when the queue is full): that is not this rule's (docs/render.md).

    ## Failing example
    Junos `schedulers roce-sched drop-profile-map loss-priority low protocol any drop-profile roce-ecn`
    without `schedulers roce-sched explicit-congestion-notification`:
    `queue 3 (lossless priority 3): WRED drop profile roce-ecn drops packets without marking them`.

    ## Passing example
    The same scheduler with `explicit-congestion-notification`, or with no drop profile.

    ## Fix
    Enable ECN marking on the queue's WRED (Junos `explicit-congestion-notification`, SONiC `ecn:
    ecn_all`, NX-OS `ecn` at the end of `random-detect`), or take the WRED off the lossless queue.
    """

    code = "ECN005"
    name = "wred-drops-lossless"
    severity = Severity.error

    def check_lane(self, ctx: Context, device: Device, port: Port, lane: Lane) -> Iterator[Finding]:
        q = port.queues.get(lane.queue) if lane.priority is not None and lane.queue is not None else None
        if q is not None and q.ecn is not None and q.ecn.wred_drops == "all":
            profile = f"WRED drop profile {q.ecn.profile}" if q.ecn.profile else "WRED"
            yield self.finding(f"{_where(lane)}: {profile} drops packets without marking them, from its minimum "
                               "threshold up, before PFC pauses: the lossless priority loses them; enable ECN marking "
                               "on the queue's WRED, or take the WRED profile off the lossless queue",
                               **self._at(device, port, lane))
