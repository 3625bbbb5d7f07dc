"""Helpers several rule families share, so that no family imports another.

    message text    numbers, priorities, queues_text, pause_on, TRUST_LABEL, few (the first names and how many more:
                    lint.finding's, which the engine shares); not_known, scheduler_unknown (what the input does not
                    show, or the switch may not apply); nic_*_fix (a NIC's fix in the tool its DCB was read with)
    the chain       roce_hops: the chain of each marking RoCE is classified by (the policy's DSCPs, or under
                    `lossless.trust: pcp` its lossless priorities' PCPs) on a port (MAP001 and the lanes); first_break:
                    where one chain (-> priority -> PG -> queue) breaks (MAP001, PTH001); cnp_priority (MAP002, PTH002);
                    trust_findings (MAP003, NIC002)
    lanes           the (priority, PG, queue) each lossless class uses on a switch port (ECN, BUF, SCH); LaneRule,
                    the base of the ECN and BUF port rules
    paths           the fabric's losslessd.paths view, shared by the path (PTH) and deadlock (DLK) rules, and
                    PathRule, their base: what a lint worker sends of each device for them (paths/view.py)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, ClassVar, Literal

from ..lint.finding import Finding
from ..lint.registry import PortRule, Rule
from ..model import Device, DeviceKind, Ecn, Fabric, Hop, Port, Scheduler, Source, Trust
from ..paths import Paths, fabric_paths
from ..paths.view import PathFacts, Views, path_facts
from ..platforms import PLATFORMS
from ..tuples import NamedTuple

if TYPE_CHECKING:  # pydantic, for annotations only: `losslessd rules` does not need it
    from ..policy import Cnp, Policy


# ---- message text ----------------------------------------------------------------------------------------------
def numbers(values: Iterable[int]) -> str:
    """'3,4' for messages; 'none' for an empty list."""
    values = sorted(values)
    return ",".join(map(str, values)) if values else "none"


def priorities(values: Iterable[int]) -> str:
    """'priority 3' / 'priorities 3,4'."""
    values = sorted(values)
    return f"priorit{'y' if len(values) == 1 else 'ies'} {numbers(values)}"


def pause_on(pause) -> str | None:
    """'RX on, TX off' when a port's link-level (802.3x) pause is on in some direction; None when off or not known."""
    if pause is None or not (pause.rx or pause.tx):
        return None
    return ", ".join(f"{k} {'on' if v else 'off'}" for k, v in (("RX", pause.rx), ("TX", pause.tx)) if v is not None)


TRUST_LABEL = {"dscp": "DSCP", "pcp": "PCP (802.1p)", "none": "nothing (all traffic in the default class)"}


def trust_findings(rule: Rule, policy_name: str, wanted: str, device: Device, port: Port, fix: str):
    """One trust finding for a port (shared by MAP003 and NIC002): mismatch, or unverified when unknown."""
    source = port.trust_source or port.source
    if port.trust is None:
        yield rule.unverified(f"{port.trust_unknown or 'trust mode is not in the input'}; the policy wants "
                              f"{TRUST_LABEL[wanted]}",
                              device=device, port=port, source=source)
    elif port.trust.value != wanted and wanted == Trust.pcp.value and port.dscp_unmapped_by_pcp:
        # (EOS: a CoS-trusting port whose qos policy-map has DSCP classes, read as classifying by DSCP; Port.
        # dscp_unmapped_by_pcp) it already trusts CoS, but the classes take the packets they match first, whatever CoS
        # they carry: which DSCPs the lossless CoS traffic carries is not in the input, and no trust line changes it
        yield rule.unverified("the port trusts 802.1p CoS, but its qos policy-map's DSCP classes set the traffic "
                              "class of the packets they match before the CoS map, whatever CoS they carry: which "
                              f"DSCPs the lossless traffic carries is not in the input; the policy wants "
                              f"{TRUST_LABEL[wanted]} (match no DSCP in the policy-map, or give each such class the "
                              "lossless traffic class)", device=device, port=port, source=source)
    elif port.trust.value != wanted:
        yield rule.finding(f"port trusts {TRUST_LABEL[port.trust.value]} but policy {policy_name} classifies lossless "
                           f"traffic by {TRUST_LABEL[wanted]}; {fix}",
                           device=device, port=port, source=source, key="trust", trust=port.trust.value,
                           wanted=wanted)


# ---- the lossless chain of one DSCP on one port -------------------------------------------------------------------
class ChainBreak(NamedTuple):
    """The first link of a DSCP's chain that breaks (unknown=False) or cannot be checked (unknown=True)."""

    unknown: bool
    why: str
    fix: str = ""
    source: Source | None = None
    section: str = "maps"  # the profile section that mends this link (render.SECTIONS)


def _broken(why: str, fix: str, source: Source | None, section: str = "maps") -> ChainBreak:
    return ChainBreak(False, why, fix, source, section)


def _unknown(why: str, source: Source | None) -> ChainBreak:
    return ChainBreak(True, why, source=source)


def map_absent(port: Port, hop: Hop) -> str:
    """Why a switch port has no map for the marking ``hop`` follows: the port trusts the other marking (`qos trust
    cos`, EOS's default on a switched port; or DSCP under a policy that classifies by PCP), so the one followed does
    not set its traffic's class, which the input does not show; else the map is not in the input."""
    if hop.marking == "DSCP" and port.trust == Trust.pcp:
        return (f"the port trusts 802.1p CoS, not DSCP, so DSCP {hop.dscp} does not set its traffic class: the class "
                "is the CoS the packets carry, which the input does not show")
    if hop.marking == "PCP" and port.trust == Trust.dscp:
        return (f"the port trusts DSCP, not 802.1p PCP, so PCP {hop.dscp} does not set its traffic class: the class "
                "is the one its DSCP map gives the DSCP the packets carry, which a policy classifying by PCP does not "
                "name")
    return f"the {hop.marking}->TC map is not in the input"


def sorted_by_cos(port: Port, dscp: int) -> str | None:
    """Why a DSCP without an entry in a switch port's DSCP map still has a class the input does not show, or None:
    the port classifies a DSCP its qos policy does not set by the 802.1p CoS it trusts (EOS User Manual, QoS,
    policy-map type qos: the trust map classifies what no class sets; Port.dscp_unmapped_by_pcp), so the packets'
    class is their CoS's, and which CoS they carry is not in the input. Not "no entry": they do have a class."""
    if port.dscp_to_tc is None or dscp in port.dscp_to_tc or not port.dscp_unmapped_by_pcp or port.pcp_to_tc is None:
        return None
    return (f"no class of the port's qos policy sets DSCP {dscp}'s traffic class, so the port sorts it by the 802.1p "
            f"CoS the packets carry (it trusts CoS), which the input does not show; match DSCP {dscp} in the policy "
            "to set its class")


def first_break(ctx, device: Device, port: Port, hop: Hop, egress: bool = True) -> ChainBreak | None:
    """Walk one lossless DSCP's chain: lossless priority with PFC on, lossless PG, and (``egress``: traffic of this
    class also leaves through the port) a pause for the priority stops the queue the class leaves from."""
    host = device.kind == DeviceKind.host
    lossless = ctx.lossless
    maps = port.map_source or port.source

    marked = f"{hop.marking} {hop.dscp}"  # "DSCP 26", or "PCP 3" on a port that trusts 802.1p (Port.pcp_chain)

    def to_lossless() -> str:  # the fix, worded only when the chain breaks here
        fix = f"map {marked} to a lossless priority ({numbers(lossless)})"
        if host:
            fix += f": {nic_dscp_fix(port.name, port.dcb_tool, hop.dscp, lossless[0])}"
        return fix

    # (a NIC that trusts PCP takes the 802.1p priority as the priority, Port.nic_chain: its PFC and buffer follow)
    if host and hop.marking == "DSCP":
        if port.dscp_to_priority is None:
            return _unknown("the NIC's DSCP->priority map is not in the input", maps)
        if hop.priority is None and port.dscp_to_priority_partial:
            return _unknown(f"DSCP {hop.dscp}'s priority on the NIC is not in the input (it sets the priority of "
                            f"DSCP {numbers(sorted(port.dscp_to_priority))} only)", maps)
        if hop.priority is None:
            return _broken(f"DSCP {hop.dscp} has no entry in the NIC's DSCP->priority map", to_lossless(), maps)
    elif not host:
        pcp = hop.marking == "PCP"
        if (port.pcp_to_tc if pcp else port.dscp_to_tc) is None:
            return _unknown(map_absent(port, hop), maps)
        if hop.tc is None and not pcp and (why := sorted_by_cos(port, hop.dscp)):
            return _unknown(why, maps)
        if hop.tc is None:
            return _broken(f"{marked} has no entry in the {hop.marking}->TC map", to_lossless(), maps)
        if port.tc_to_priority is None:
            return _unknown(f"the PFC priority of {hop.tc_label} is not in the input", maps)
        if hop.priority is None:
            return _broken(f"{hop.tc_label} has no PFC priority, so it is never paused (a lossy class)",
                           f"map {marked} to a class with a lossless PFC priority ({numbers(lossless)})", maps)
    if hop.priority not in lossless:
        sent_as = (f"DSCP {hop.dscp} maps to priority {hop.priority}" if host
                   else f"{hop.tc_label} has PFC priority {hop.priority}")
        return _broken(f"{sent_as}, which is not lossless (lossless: {numbers(lossless)})", to_lossless(), maps)
    if port.pfc_enabled is None:
        return _unknown("the port's PFC state is not in the input", port.pfc_source or port.source)
    if hop.priority not in port.pfc_enabled:
        return _broken(f"PFC is off for priority {hop.priority} (enabled: {numbers(port.pfc_enabled)})",
                       f"enable PFC on priority {hop.priority}", port.pfc_source or port.source, "pfc")
    return _pg_break(device, port, hop, host) or (_queue_break(device, port, hop) if egress and not host else None)


def _pg_break(device: Device, port: Port, hop: Hop, host: bool) -> ChainBreak | None:
    """The PG (NIC: receive buffer) must be lossless-capable: xoff headroom, runtime headroom or a NIC buffer."""
    label, pg_map, frm = (("receive buffer", port.priority_to_pg, f"priority {hop.priority}") if host
                          else ("PG", port.tc_to_pg, hop.tc_label))
    maps = port.map_source or port.source
    if pg_map is None and host and port.nic_buffers_refused:
        return _unknown(f"the NIC's driver has no DCB receive buffers to show (`dcb buffer show` answered "
                        f"{port.nic_buffers_refused!r}: no dcbnl_getbuffer), so the buffer of {frm} is not known",
                        maps)
    if pg_map is None:
        return _unknown(f"the {'priority->receive buffer' if host else 'TC->PG'} map is not in the input", maps)
    if hop.pg is None:
        return _broken(f"{frm} has no {label} in the {'priority->buffer' if host else 'TC->PG'} map",
                       f"map {frm} to a lossless {label}", maps)
    return pg_buffer_break(device, port, hop.pg, label)


def pg_buffer_break(device: Device, port: Port, index: int, label: str = "PG") -> ChainBreak | None:
    """Whether PG (NIC: receive buffer) ``index`` is lossless-capable: xoff headroom, runtime headroom, a NIC buffer."""
    maps = port.map_source or port.source
    # the PG by the platform's name where it has one ("PG 0 (bulk)", NVUE's lossless PG)
    name = port.pg_label(index) if label == "PG" else f"{label} {index}"
    pg = port.priority_groups.get(index)
    if pg is None:
        return _unknown(f"{name} has no buffer settings in the input", maps)
    if pg.runtime_profile:
        return None
    if pg.profile is not None:
        profile = device.buffer_profiles.get(pg.profile)
        if profile is None:
            return _unknown(f"{name} uses buffer profile {pg.profile}, which is not in the input", pg.source)
        if profile.xoff_bytes or profile.headroom_computed_at_runtime:
            return None
        return _broken(f"{name} uses buffer profile {pg.profile}, which has no xoff headroom "
                       "(a lossy profile)", f"give {name} a lossless profile with xoff headroom",
                       pg.source or profile.source, "buffer")
    if pg.size_bytes is not None:
        if pg.size_bytes > 0:
            return None
        return _broken(f"{name} has size 0 bytes", f"give {name} a size (`mlnx_qos --buffer_size`)",
                       pg.source, "buffer")
    return _unknown(f"{name} has no buffer profile in the input", pg.source or maps)


def _queue_break(device: Device, port: Port, hop: Hop) -> ChainBreak | None:
    """A pause the peer sends for this traffic's PFC priority must stop the queue the traffic leaves from."""
    maps = port.map_source or port.source
    if port.tc_to_queue is None:
        return _unknown(f"the egress queue of {hop.tc_label} is not in the input", maps)
    if hop.queue is None:
        return _broken(f"{hop.tc_label} has no entry in the TC->queue map", f"map {hop.tc_label} to a queue", maps)
    paused = port.paused_queues(hop.priority)
    if paused is None:
        return _unknown(f"which queue a received pause for priority {hop.priority} stops is not in the input",
                        port.pfc_source or maps)
    if hop.queue not in paused:
        return _broken(f"a PFC pause for priority {hop.priority} stops {queues_text(paused)}, but this traffic leaves "
                       f"from queue {hop.queue}", f"make a pause for PFC priority {hop.priority} stop queue {hop.queue}",
                       maps, pause_queue_section(device))
    return None


def pause_queue_section(device: Device) -> str:
    """The profile section that says which queue a pause stops on ``device``'s platform (Platform.pause_queue_section):
    a fix of the pause->queue link renders it."""
    found = PLATFORMS.get(device.platform or "")
    return found.pause_queue_section if found is not None else "maps"


def marks_ecn(port: Port, queue: int | None) -> bool | None:
    """Whether egress queue ``queue`` of ``port`` marks ECN, as ECN001 reads it: a queue with no entry or no ECN
    settings marks none (False); None when its ECN settings do not say whether marking is on."""
    q = port.queues.get(queue) if queue is not None else None
    if q is None or q.ecn is None:
        return False
    return q.ecn.ecn_enabled


def not_known(subject: str, setting: Scheduler | Ecn | None) -> str:
    """Why ``subject`` (what a rule could not check of ``setting``) is not known: not in the input, or written but not
    (or not surely) applied by the switch (``setting.unapplied``: SONiC orchagent refuses its SCHEDULER or
    WRED_PROFILE entry, or takes it on some releases only), which the operator must fix."""
    if setting is not None and setting.unapplied:
        return f"{subject} is not known: {setting.unapplied}"
    return f"{subject} is not in the input"


def scheduler_unknown(where: str, scheduler: Scheduler | None) -> str:
    """Why the scheduler of ``where`` (a queue) is not known (not_known)."""
    return not_known(f"the scheduler of {where}", scheduler)


def queues_text(queues: list[int]) -> str:
    """'queue 4' / 'queues 3,4' / 'no queue' for messages."""
    if not queues:
        return "no queue"
    return f"queue{'s' if len(queues) > 1 else ''} {numbers(queues)}"


def cnp_priority(cnp, port: Port, hop: Hop) -> tuple[str | None, str | None]:
    """(problem, unknown) of the CNP class's priority against the policy's `cnp.priority` on a switch port."""
    if cnp.priority is None or hop.tc is None:
        return None, None
    if port.tc_to_priority is None:
        return None, f"the priority of {hop.tc_label} is not in the input"
    if hop.priority is None:
        # Routed CNPs classified by DSCP leave untagged: a class without a PFC priority shows no 802.1p in the
        # input, so the policy's CNP priority can be neither confirmed nor refuted, unless the port is known to route
        # untagged frames (Port.vlans [], or a switched port that tags none: Port.untagged_only): no 802.1p is sent to
        # compare, and the class is never paused.
        if port.vlans == [] or port.untagged_only:
            return None, None
        return None, (f"{hop.tc_label} has no PFC priority and the input does not show which 802.1p priority it "
                      f"is sent with (untagged routed traffic carries none)")
    if hop.priority != cnp.priority:
        return (f"{hop.tc_label} has priority {hop.priority}, not the policy's CNP priority {cnp.priority}; map "
                f"DSCP {hop.dscp} to a class with priority {cnp.priority}"), None
    return None, None


# ---- lanes: where lossless traffic is buffered and queued on a switch port ---------------------------------------
class Lane(NamedTuple):
    """Where one lossless priority's traffic is buffered on ingress (PG) and queued on egress (None: not known).
    A RoCE marking whose class is not lossless (MAP001's finding) still needs ECN on its queue: its lane has no
    priority and names the marking ("DSCP 26", "PCP 3"); ``lossy`` False where that class's PFC priority is not
    in the input (a Junos `no-loss` class without `pfc-priority`), so the class may be the lossless one."""

    priority: int | None
    pg: int | None
    queue: int | None
    marked: str | None = None
    lossy: bool = True


def roce_hops(policy: Policy, port: Port, host: bool = False) -> list[Hop]:
    """The chain of each marking RoCE data is classified by on a port: a switch port under `lossless.trust: pcp`
    sorts by the 802.1p priority the hosts tag, which is the lossless priority (Port.pcp_chain), and so does a NIC
    under `nic.trust: pcp` (Port.nic_chain: the PCP is the priority); otherwise by the policy's DSCPs
    (Port.dscp_chain)."""
    if (policy.nic.trust if host else policy.lossless.trust) == "pcp":
        return [port.nic_chain(prio, prio) if host else port.pcp_chain(prio) for prio in policy.lossless.priorities]
    return [port.dscp_chain(dscp) for dscp in policy.lossless.dscp]


def cnp_hop(cnp: Cnp, trust: str | None, port: Port) -> Hop:
    """The chain a switch port sorts the policy's CNPs by: under `lossless.trust: pcp` with a `cnp.priority` the
    802.1p priority the NICs tag them with (MLNX_OFED mlx5 sysfs ecn/roce_np/cnp_802p_prio, which MAP002 checks on
    the NICs), else the CNP DSCP."""
    if trust == "pcp" and cnp.priority is not None:
        return port.pcp_chain(cnp.priority)
    return port.dscp_chain(cnp.dscp)


def lossless_lanes(policy: Policy, port: Port) -> list[Lane]:
    """The (priority, PG, queue) triples lossless traffic uses on a switch port, without repeats: where the
    marking the policy trusts (roce_hops) leads, and for a lossless priority it does not reach, every class with
    that PFC priority."""
    lossless = policy.lossless.priorities
    lanes: list[Lane] = []
    for hop in roce_hops(policy, port):
        if hop.priority in lossless:
            lanes.append(Lane(hop.priority, hop.pg, hop.queue))
    reached = {lane.priority for lane in lanes}
    for prio in lossless:
        if prio in reached:
            continue
        if port.tc_to_priority is None:
            lanes.append(Lane(prio, None, None))
            continue
        for tc in sorted(tc for tc, p in port.tc_to_priority.items() if p == prio):
            lanes.append(Lane(prio, (port.tc_to_pg or {}).get(tc), (port.tc_to_queue or {}).get(tc)))
    return list(dict.fromkeys(lanes))


def lossless_queues(policy: Policy, port: Port) -> set[int]:
    """The egress queues lossless traffic leaves by on a switch port: the policy's lossless lanes' queues, and those
    of every traffic class whose priority has PFC on (and the queues its pauses stop): the rest are lossy."""
    out = {lane.queue for lane in lossless_lanes(policy, port) if lane.queue is not None}
    pfc = set(port.pfc_enabled or ())
    tc_to_queue = port.tc_to_queue or {}
    for tc, prio in (port.tc_to_priority or {}).items():
        if prio in pfc and tc_to_queue.get(tc) is not None:
            out.add(tc_to_queue[tc])
    for prio in pfc:
        out.update((port.pfc_priority_to_queue or {}).get(prio, ()))
    return out


def lossless_pgs(policy: Policy, port: Port) -> list[int | None]:
    """The ingress PGs lossless traffic arrives in on a switch port, as lossless_queues its queues: the policy's
    lossless lanes' PGs (None: a lane whose PG the input does not show) and those of every traffic class whose
    priority has PFC on (SONiC `pfc_enable 3,4` under a policy with priority 3 alone: PG 4 is lossless too)."""
    pfc, tc_to_pg = set(port.pfc_enabled or ()), port.tc_to_pg or {}
    paused = [tc_to_pg.get(tc) for tc, prio in (port.tc_to_priority or {}).items() if prio in pfc]
    return list(dict.fromkeys([lane.pg for lane in lossless_lanes(policy, port)]
                              + [pg for pg in paused if pg is not None]))


def lossy_egress_profiles(port: Port, lossless: set[int]) -> dict[str, list[int]]:
    """The egress buffer profiles of the port's queues outside ``lossless`` -> those queues (headroom.egress_lossless).
    A lossy queue bound by the same BUFFER_QUEUE entry as a lossless one (the stock "|3-4" with PFC on 3 alone) does
    not tell which profile is the lossy queues': that entry was written for the lossless queues."""
    def entry(queue) -> tuple[str | None, str | None] | None:
        return (queue.buffer_source.file, queue.buffer_source.pointer) if queue.buffer_source is not None else None

    lossless_entries = {entry(q) for i, q in port.queues.items() if i in lossless} - {None}
    out: dict[str, list[int]] = {}
    for index, queue in port.queues.items():
        if index not in lossless and queue.buffer_profile is not None and entry(queue) not in lossless_entries:
            out.setdefault(queue.buffer_profile, []).append(index)
    return out


def lanes_by(ctx, port: Port, hop: Literal["queue", "pg"]) -> list[Lane]:
    """The port's lossless lanes, the first one per queue or per PG; worked out once per port and run,
    as four ECN and three BUF rules ask for them."""
    return ctx.memo(_lane_groups, port)[hop]


class LaneRule(PortRule):
    """A switch-port rule checked on each of the port's lossless lanes whose ``hop`` (queue: ECN, PG: BUF) is known,
    the first lane per queue or PG; the hop's UNKNOWN_LANE_REPORTER also says, in one unverified finding, which
    lossless priorities' queue (or PG) the input does not show."""

    hop: ClassVar[Literal["queue", "pg"]]
    depends_on_pfc = True
    checks: ClassVar[str | None] = None  # what it checks on a lane, where not the hop's default (unknown_lanes)

    def check_port(self, ctx, device: Device, port: Port) -> Iterator[Finding]:
        yield from unknown_lanes(self, ctx, device, port, self.hop, self.checks)
        for lane in lanes_by(ctx, port, self.hop):
            if getattr(lane, self.hop) is not None:
                yield from self.check_lane(ctx, device, port, lane)

    def check_lane(self, ctx, device: Device, port: Port, lane: Lane) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError


# The rule that says, once per port, which lossless priorities' egress queue (ECN001) or ingress PG (BUF003) the input
# does not show; a rule that checks the queue or PG of a lane stays silent on those lanes only where that one runs
# (Context.selected: `--select SCH001` alone must not read "nothing checked" as clean).
UNKNOWN_LANE_REPORTER = {"queue": "ECN001", "pg": "BUF003"}


def unknown_lanes(rule: PortRule, ctx, device: Device, port: Port, hop: Literal["queue", "pg"],
                  checked: str | None = None) -> Iterator[Finding]:
    """One unverified finding of ``rule`` naming the lossless priorities whose ``hop`` is not in the input, so that
    ``checked`` (by default the ECN marking of a queue, the buffer of a PG) could not be checked; said by the hop's
    UNKNOWN_LANE_REPORTER, or by each rule that asks where that one does not run."""
    reporter = UNKNOWN_LANE_REPORTER[hop]
    if rule.code != reporter and ctx.selected(reporter):
        return  # (only that rule works out the unknown lanes: rules run per port group)
    unknown = sorted({lane.priority for lane in lossless_lanes(ctx.policy, port)
                      if lane.priority is not None and getattr(lane, hop) is None})
    if not unknown:
        return
    what = "egress queue" if hop == "queue" else "ingress PG"
    checked = checked or ("ECN marking" if hop == "queue" else "buffer")
    written = sorted(port.queues if hop == "queue" else port.priority_groups)
    if written and (port.tc_to_queue if hop == "queue" else port.tc_to_pg) is None:
        # (the port's queues or PGs are in the input, SONiC's `Ethernet0|3` keys: which of them the priority
        # uses is what is missing, not the entries)
        what, tc_map = ("queue", "TC->queue") if hop == "queue" else ("PG", "TC->PG")
        yield rule.unverified(f"which {what} lossless {priorities(unknown)} "
                              f"{'uses' if len(unknown) == 1 else 'use'} is not known: the port's {tc_map} "
                              f"map is not in the input (its {what}s in the input: "
                              f"{', '.join(map(str, written))}), so the {checked} could not be checked",
                              device=device, port=port, source=port.map_source or port.source)
        return
    yield rule.unverified(f"the {what} of lossless {priorities(unknown)} is not in the input, so its "
                          f"{checked} could not be checked",
                          device=device, port=port, source=port.map_source or port.source)


def _lane_groups(ctx, port: Port) -> dict[str, list[Lane]]:
    groups: dict[str, dict[int | None, Lane]] = {"queue": {}, "pg": {}}
    for lane in lossless_lanes(ctx.policy, port):
        groups["queue"].setdefault(lane.queue, lane)
        groups["pg"].setdefault(lane.pg, lane)
    for hop in roce_hops(ctx.policy, port):  # RoCE that lands on a lossy class still needs ECN on its queue
        if hop.queue is not None and hop.queue not in groups["queue"]:
            # (a class is lossy when it has another priority, or none where the port's TC->priority map is known)
            lossy = hop.priority is not None or port.tc_to_priority is not None
            groups["queue"][hop.queue] = Lane(None, None, hop.queue, f"{hop.marking} {hop.dscp}", lossy)
    return {hop: list(first.values()) for hop, first in groups.items()}


# ---- paths ----------------------------------------------------------------------------------------------------
class PathRule(Rule):
    """A rule that reads the fabric through losslessd.paths: the ports of every cabled device. In a parallel lint
    each worker sends what the path engine reads of its devices (paths/view.py), once for all these rules."""

    scope = "fabric"
    topology_only = True
    facts_key = "paths"

    def device_facts(self, ctx, device: Device) -> PathFacts:
        return ctx.memo(path_facts, device)


def paths_of(ctx, fabric: Fabric) -> Paths | None:
    """The fabric's cabling under its routing (losslessd.paths), for ``ctx.memo``: PTH and DLK share one per run.
    In a parallel lint the path engine reads the workers' views of the devices, not the devices (whose ports stay
    in the workers)."""
    if fabric.routing is None or ctx.local is None:
        return fabric_paths(fabric)
    return fabric_paths(fabric, Views(fabric.devices, lambda device: ctx.device_facts(_PATH_FACTS, device)))


def path_devices(ctx, fabric: Fabric):
    """Devices by name as the path engine reads them (the views of paths_of, else the model)."""
    paths = ctx.memo(paths_of, fabric)
    return fabric.devices if paths is None else paths.cabling.devices


_PATH_FACTS = PathRule()


# What a NIC port's fix runs, in the tool its DCB was read or set with (Port.dcb_tool). NVIDIA MLNX_OFED mlnx_qos
# usage: --pfc one 0/1 flag per priority 0-7, --trust pcp|dscp, --dscp2prio set,DSCP,PRIORITY. iproute2 dcb-pfc(8):
# `prio-pfc PRIO:on|off`; dcb-app(8): `replace` removes the DSCP's other entries first, `flush dev IF dscp-prio` every
# DSCP entry; a port trusts DSCP while its app table holds DSCP entries (mlx5 en_dcbnl.c mlx5e_dcbnl_ieee_setapp).
def nic_pfc_fix(name: str, tool: str | None, lossless: Iterable[int]) -> str:
    on = set(lossless)
    if tool == "dcb":
        return f"`dcb pfc set dev {name} prio-pfc {' '.join(f'{p}:{_ON[p in on]}' for p in range(8))}`"
    return f"`mlnx_qos -i {name} --pfc {','.join('1' if p in on else '0' for p in range(8))}`"


def nic_trust_fix(name: str, tool: str | None, trust: str) -> str:
    if tool != "dcb":
        return f"`mlnx_qos -i {name} --trust {trust}`"
    if trust == "dscp":
        return f"`dcb app replace dev {name} dscp-prio DSCP:PRIORITY` for each DSCP in use (a DSCP entry is trust DSCP)"
    return f"`dcb app flush dev {name} dscp-prio` (no DSCP entry is trust PCP)"


def nic_dscp_fix(name: str, tool: str | None, dscp: int, priority: int) -> str:
    if tool == "dcb":
        return f"`dcb app replace dev {name} dscp-prio {dscp}:{priority}`"
    return f"`mlnx_qos -i {name} --dscp2prio set,{dscp},{priority}`"


# Where a NIC without mlx5's sysfs ecn/ files (Port.mlx5_ecn) sets DCQCN, by its driver (`ethtool -i IF`). Intel
# Ethernet 800 Series Linux Flow Control Configuration Guide for RDMA Use Cases, "Congestion Control Parameter Settings"
# (irdma configfs, RoCEv2 mode); Linux drivers/infiniband/hw/bnxt_re main.c bnxt_re_setup_cc (on by default) and
# Juniper's validated design "AI data centre with AMD", "Broadcom BCM57608 Thor2 DCQCN configuration" (niccli).
_DCQCN_SETTING = {
    "ice": "Intel irdma's configfs `/sys/kernel/config/irdma/<RDMA device>/roce_dcqcn_enable`",
    "bnxt_en": "Broadcom bnxt_re's congestion control (on by default; `niccli` or bnxt_re's configfs cc settings)",
    # Linux drivers/infiniband/hw/mlx5/cong.c (mlx5_ib_dbg_cc_name: rp_*, np_cnp_dscp, np_cnp_prio in debugfs
    # cc_params; no per-priority switch); mstflint mlxconfig's ROCE_CC_PRIO_MASK_P1/_P2 (a bit a priority).
    "mlx5_core": ("the upstream mlx5_core's firmware setting `ROCE_CC_PRIO_MASK_P1` (a bit a priority; `mlxconfig -d "
                  "<device> query`) and debugfs `/sys/kernel/debug/mlx5/<PCI address>/cc_params/` (its parameters and "
                  "CNP marking)"),
}


def dcqcn_elsewhere(port: Port) -> str | None:
    """Where a NIC port without mlx5's sysfs ecn/ files sets DCQCN, in words; None for a port with them."""
    if port.mlx5_ecn():
        return None
    driver = port.nic_driver
    if driver in _DCQCN_SETTING:
        return _DCQCN_SETTING[driver]
    known = "; ".join(f"{d}: {text}" for d, text in _DCQCN_SETTING.items())
    return (f"the {driver} driver's own setting" if driver else "the NIC driver's own setting, which `ethtool -i "
            f"{port.name}` names") + f" ({known})"


_ON = {True: "on", False: "off"}


def pool_xoffs(device: Device, pool: str) -> tuple[dict[str, list[int]], int]:
    """Each port's lossless PGs' xoff in the shared headroom of ``pool`` (ports holding one), and how many PGs are
    sized at run time (no number to add). BUF004 sums them; render adds the ports a snippet leaves as they are."""
    by_port: dict[str, list[int]] = {}
    runtime = 0
    # What a PG of each profile name counts as: sized at run time (None), its xoff in this pool, or nothing (0).
    # Every port names the same few profiles: each is looked at once.
    counts: dict[str | None, int | None] = {}
    profiles = device.buffer_profiles
    for port in device.ports.values():
        for name, runtime_profile in port.pg_profiles().values():
            try:
                xoff = counts[name]
            except KeyError:
                profile = profiles.get(name) if name else None
                xoff = counts[name] = (None if profile is not None and profile.headroom_computed_at_runtime else
                                       profile.xoff_bytes or 0 if profile is not None and profile.pool == pool
                                       else 0)
            if runtime_profile or xoff is None:
                runtime += 1
            elif xoff:
                by_port.setdefault(port.name, []).append(xoff)
    return by_port, runtime
