"""MAP: RoCE data and CNPs are classified where the policy wants them (DSCP -> TC/priority -> PG -> queue)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import PortRule, register
from ..model import Device, DeviceKind, Hop, Port, SchedulerType, Source
from ..platforms import PLATFORMS
from .common import (
    cnp_hop,
    cnp_priority,
    dcqcn_elsewhere,
    first_break,
    map_absent,
    numbers,
    pause_queue_section,
    pg_buffer_break,
    queues_text,
    roce_hops,
    scheduler_unknown,
    sorted_by_cos,
    trust_findings,
)

# What sets a switch port's trust on each platform, so MAP003 names the line ("trust" is no command on most of them).
_TRUST = {
    # EOS User Manual, "Quality of Service": `qos trust dscp|cos` in interface mode
    "arista_eos": {"dscp": "the interface's `qos trust dscp`", "pcp": "the interface's `qos trust cos`"},
    # Onyx User Manual, "QoS": `interface ethernet 1/1 qos trust L3|L2|both` (parse/onyx reads these)
    "nvidia_onyx": {"dscp": "`interface ethernet <port> qos trust L3`",
                    "pcp": "`interface ethernet <port> qos trust L2`"},
    # NVUE command reference, QoS: `nv set qos mapping <profile-id> trust l2|l3|port|both`; Cumulus Linux RoCE guide:
    # `nv show qos roce` gives `trust-mode pcp,dscp` (IP packets by DSCP: parse/nvue/build.py), a mapping line overrides
    "nvidia_cumulus": {"dscp": "`nv set qos mapping <profile> trust l3`, or no mapping trust line where "
                               "`nv set qos roce` runs: RoCE mode trusts pcp,dscp itself",
                       "pcp": "`nv set qos mapping <profile> trust l2`: `nv set qos roce` alone trusts pcp,dscp, "
                              "which classifies IP packets by DSCP"},
    # Junos CoS guide, "Applying Classifiers to Logical Interfaces": `class-of-service interfaces IF unit N classifiers`
    "juniper_junos": {"dscp": "a `classifiers dscp <name>` under the port's `class-of-service interfaces` unit",
                      "pcp": "a `classifiers ieee-802.1 <name>` under the port's `class-of-service interfaces` unit"},
    # sonic-buildimage qos config: PORT_QOS_MAP binds `dscp_to_tc_map` (DSCP) or `dot1p_to_tc_map` (802.1p)
    "sonic": {"dscp": "`dscp_to_tc_map` in the port's PORT_QOS_MAP",
              "pcp": "`dot1p_to_tc_map` in the port's PORT_QOS_MAP"},
}


@register
class RoceDscpNotLossless(PortRule):
    """A RoCE DSCP does not land on a lossless priority, PG and queue.

    ## What it checks
    For every RoCE data DSCP in the policy (`lossless.dscp`) on every RoCE-facing port, the chain
    DSCP -> traffic class -> PFC priority -> PG -> queue (NIC: DSCP -> priority -> receive buffer):
    the class's PFC priority is a policy lossless priority with PFC on, the PG uses a
    lossless-capable buffer profile (xoff headroom, run-time headroom, or a NIC receive buffer),
    and on switches a pause received for that priority stops the queue the traffic leaves from.
    Priority, class and queue are separate facts (Junos `queue-num 4 ... pfc-priority 3` is
    lossless); classes show the platform's own names. The message shows the chain and the first
    link that breaks. A chain that reaches a link the input does not show is reported once per
    port as unverified (so is a DSCP no class of a CoS-trusting EOS port's qos policy sets: the port
    sorts it by the 802.1p CoS it carries, which the input does not show; and a port that trusts the
    other marking than the one followed, which says so). When the policy trusts PCP, switch ports
    follow each lossless priority's 802.1p PCP instead (PCP -> traffic class -> PFC priority -> PG
    -> queue); a NIC under `nic.trust: pcp` takes the 802.1p priority as its priority
    (mlnx_qos `--trust pcp`), so each lossless priority must have PFC on and a lossless receive buffer there.

    ## Why it matters
    PFC protects a priority, not a DSCP. One wrong map entry sends RoCE into a lossy class where it
    is dropped under congestion, while every PFC setting looks right.

    ## Failing example
    Policy DSCP 26 lossless on priority 3; SONiC `DSCP_TO_TC_MAP` maps `"26": "1"`:
    `RoCE DSCP 26 is not lossless: DSCP 26 -> TC 1 -> priority 1 -> PG 0 -> queue 1; first break:
    TC 1 has PFC priority 1, which is not lossless (lossless: 3)`.

    ## Passing example
    `"26": "3"` in `DSCP_TO_TC_MAP`, `TC_TO_PRIORITY_GROUP_MAP` `"3": "3"`, a `BUFFER_PG|Ethernet0|3`
    with a profile that has `xoff`, and `pfc_enable: "3"`.

    ## Fix
    Correct the map the message names (its file and line are given), or the policy's
    `lossless.dscp` if the hosts really send another DSCP.
    """

    code = "MAP001"
    name = "roce-dscp-not-lossless"
    scope = "port"
    severity = Severity.error
    # Each finding names the section that mends its chain's first break (a PFC break needs no new DSCP map).
    fix_sections = frozenset({"maps", "pfc", "buffer"})
    disruptive = True
    needs_lossless = True  # a switch with no lossless setting at all: PFC006 says it once
    doubt_moot_when_lossy = True  # a lossy-mode switch: PFC004 says once that RoCE is lossy there
    device_kind = None  # switches and NICs (a NIC that trusts PCP too: common.roce_hops)

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        unknown: list[str] = []
        unknown_source = None
        for hop in roce_hops(ctx.policy, port, host=device.kind == DeviceKind.host):
            value = hop.dscp
            marked = f"{hop.marking} {value}"
            link = first_break(ctx, device, port, hop)
            if link is None:
                continue
            if link.unknown:
                unknown.append(f"{marked}: {link.why} (known: {hop.describe()})")
                unknown_source = unknown_source or link.source
                continue
            yield self.finding(f"RoCE {marked} is not lossless: {hop.describe()}; first break: {link.why}; "
                               f"{link.fix}", device=device, port=port, source=link.source, key=value,
                               chain=hop.describe(), section=link.section)
        if unknown:
            yield self.unverified("could not verify that RoCE traffic is lossless: " + "; ".join(unknown),
                                  device=device, port=port, source=unknown_source)


@register
class CnpNotStrict(PortRule):
    """CNPs do not leave through a strict-priority queue (or not on the policy's CNP priority).

    ## What it checks
    When the policy names a CNP DSCP (`cnp.dscp`): on switch ports, that DSCP's traffic class has
    priority `cnp.priority` (when set; unverified when the class has no PFC priority, as untagged
    routed CNPs carry no 802.1p the input could show) and its queue has a strict-priority scheduler
    (when `cnp.strict`). Unverified where the port sorts a DSCP its qos policy does not set by the
    802.1p CoS it trusts (EOS): the CNPs' class is their CoS's, which the input does not show. Under
    `lossless.trust: pcp` a switch port sorts CNPs by the 802.1p priority the NICs tag them with
    (`cnp.priority`), so the class checked is that PCP's (PCP -> TC -> queue) and its strictness alone.
    On NIC ports, the NIC sends its CNPs with that DSCP (sysfs `ecn/roce_np/cnp_dscp`) and with
    `cnp.priority` (`ecn/roce_np/cnp_802p_prio`); unverified when the capture lacks them, or when
    the NIC has no such mlx5 files (an Intel ice or Broadcom bnxt_en host: its driver's own setting).
    Does nothing when the policy has no `cnp`.

    ## Why it matters
    DCQCN reacts to congestion only when the congestion notification (CNP) reaches the sender
    quickly. A CNP queued behind the very RoCE data that caused the congestion arrives late, the
    sender keeps its rate, queues grow into PFC, and PFC pauses spread.

    ## Failing example
    Policy CNP DSCP 48 strict on priority 6; SONiC `DSCP_TO_TC_MAP` `"48": "6"` and
    `QUEUE|Ethernet0|6: scheduler: scheduler.0` with `type: DWRR`:
    `CNP DSCP 48 -> TC 6 -> priority 6 -> PG ? -> queue 6: queue 6 is scheduled by DWRR (weight 14),
    not strict priority`.

    ## Passing example
    `QUEUE|Ethernet0|6: scheduler: scheduler.strict` with `SCHEDULER|scheduler.strict: type: STRICT`.

    ## Fix
    Give the CNP queue a strict-priority scheduler and map the CNP DSCP to the policy's CNP
    priority; on NICs write the policy's values to `cnp_dscp` and `cnp_802p_prio`. `losslessd fix`
    holds a remap back as disruptive (it moves traffic between classes); a scheduler alone is safe.
    """

    code = "MAP002"
    name = "cnp-not-strict"
    scope = "port"
    severity = Severity.error
    # A switch's CNP queue is the scheduler's, its CNP class the maps' (a remap: disruptive); a NIC's CNP marking is
    # written with its DCQCN settings.
    fix_sections = frozenset({"scheduler", "maps", "ecn"})

    def applies(self, ctx: Context, device: Device) -> bool:
        return ctx.policy.cnp is not None

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        cnp = ctx.policy.cnp
        if cnp is None:  # (applies() said so)
            return
        host = device.kind == DeviceKind.host
        hop = None if host else cnp_hop(cnp, ctx.policy.lossless.trust, port)
        problems, unknown, source, sections = self._host(cnp, port) if hop is None else self._switch(cnp, port, hop)
        marked = f"DSCP {cnp.dscp}" if hop is None else f"{hop.marking} {hop.dscp}"
        if problems:
            subject = marked if hop is None else hop.describe()
            note = f" (not checked: {'; '.join(unknown)})" if unknown else ""
            remap: dict[str, Any] = {"disruptive": True} if "maps" in sections else {}  # (Rule.disruptive_for)
            yield self.finding(f"CNP {subject}: {'; '.join(problems)}{note}", device=device,
                               port=port, source=source, key=cnp.dscp, section=sorted(sections), **remap)
        elif unknown:
            yield self.unverified(f"could not verify CNP {marked}: {'; '.join(unknown)}", device=device,
                                  port=port, source=source)

    @staticmethod
    def _switch(cnp, port: Port, hop: Hop) -> tuple[list[str], list[str], Source | None, set[str]]:
        """The CNP class on a switch port (``hop``: common.cnp_hop, by DSCP or, under a PCP policy, by 802.1p), and
        the fix sections its problems need: the maps where the CNPs reach the wrong class, the scheduler where
        their queue is not strict (both where both: the maps alone leave the new class's queue as it is)."""
        problems: list[str] = []
        unknown: list[str] = []
        maps = port.map_source or port.source
        by_dscp = hop.marking == "DSCP"
        if (port.dscp_to_tc if by_dscp else port.pcp_to_tc) is None:
            return [], [map_absent(port, hop)], maps, set()
        if hop.tc is None and by_dscp and (why := sorted_by_cos(port, cnp.dscp)):
            return [], [why], maps, set()
        if hop.tc is None:
            missing = f"it has no entry in the {hop.marking}->TC map; map it to a TC with a strict-priority queue"
            return [missing], [], maps, {"maps", "scheduler"}
        # A CNP sorted by its 802.1p priority is sent with that priority (the policy's): nothing to compare.
        problem, doubt = cnp_priority(cnp, port, hop) if by_dscp else (None, None)
        problems += [problem] if problem else []
        unknown += [doubt] if doubt else []
        sections = {"maps", "scheduler"} if problem else set()
        if not cnp.strict:
            return problems, unknown, maps, sections
        if port.tc_to_queue is None:
            unknown.append(f"the egress queue of {hop.tc_label} is not in the input")
            return problems, unknown, maps, sections
        queue = port.queues.get(hop.queue) if hop.queue is not None else None
        scheduler = queue.scheduler if queue is not None else None
        if hop.queue is None:
            problems.append(f"{hop.tc_label} has no entry in the TC->queue map; map it to a strict-priority queue")
            return problems, unknown, maps, {"maps", "scheduler"}
        if scheduler is None or scheduler.type is None:
            unknown.append(scheduler_unknown(f"queue {hop.queue}", scheduler))
        elif scheduler.type != SchedulerType.strict:
            weight = f" (weight {scheduler.weight})" if scheduler.weight is not None else ""
            problems.append(f"queue {hop.queue} is scheduled by {scheduler.type.value.upper()}{weight}, not strict "
                            f"priority; give queue {hop.queue} a strict-priority scheduler")
            return problems, unknown, scheduler.source or maps, sections | {"scheduler"}
        return problems, unknown, maps, sections

    @staticmethod
    def _host(cnp, port: Port) -> tuple[list[str], list[str], Source | None, set[str]]:
        """The NIC is the notification point: what it writes into its CNPs must match the policy."""
        problems: list[str] = []
        unknown: list[str] = []
        ecn = port.nic_ecn
        if elsewhere := dcqcn_elsewhere(port):  # (not the mlx5 files it does not have)
            return [], ["the NIC has no mlx5 ecn/roce_np/cnp_dscp, cnp_802p_prio files: the DSCP and priority of its "
                        f"CNPs are its driver's (DCQCN: {elsewhere}), which the input does not show"], port.source, \
                set()
        wanted = [("cnp_dscp", "DSCP", cnp.dscp, ecn.cnp_dscp if ecn else None)]
        if cnp.priority is not None:
            wanted.append(("cnp_802p_prio", "priority", cnp.priority, ecn.cnp_priority if ecn else None))
        for sysfs, label, want, have in wanted:  # MLNX_OFED mlx5 sysfs, per netdev
            path = f"/sys/class/net/{port.name}/ecn/roce_np/{sysfs}"
            if have is None:
                unknown.append(f"the NIC's CNP {label} ({path}) is not in the input")
            elif have != want:
                problems.append(f"the NIC sends CNPs with {label} {have}, not the policy's {want}; "
                                f"`echo {want} > {path}`")
        return problems, unknown, (ecn.source if ecn else None) or port.source, {"ecn"}


@register
class TrustMismatch(PortRule):
    """A RoCE-facing switch port trusts a different marking (DSCP/PCP) than the policy.

    ## What it checks
    The trust mode of every RoCE-facing switch port equals the policy's `lossless.trust`. NIC
    ports are checked by NIC002. Does nothing when the policy sets no trust mode.

    ## Why it matters
    A port that trusts PCP (802.1p) or nothing ignores the DSCP the hosts set: routed (untagged)
    RoCE traffic falls into the default class, which is lossy, and every DSCP map is moot. On a switch
    that configures no lossless setting on any port this rule is silent: no class is lossless whatever
    the port trusts, and PFC006 says so once for the switch (its fix sets the trust too).

    ## Failing example
    Policy `lossless.trust: dscp`; EOS interface with `qos trust cos`:
    `port trusts PCP (802.1p) but policy roce-dscp26 classifies lossless traffic by DSCP`.

    ## Passing example
    `qos trust dscp` on the interface (EOS), or a `dscp_to_tc_map` bound in `PORT_QOS_MAP` (SONiC).

    ## Fix
    Set the port's trust mode to the policy's (EOS: `qos trust dscp`).
    """

    code = "MAP003"
    name = "trust-mismatch"
    scope = "port"
    severity = Severity.error
    fix_sections = frozenset({"trust"})
    disruptive = True
    # Trust matters for which class RoCE reaches: on a switch with no lossless class (engine.no_lossless) every class
    # is lossy whatever the port trusts, so PFC006 says it once (and its fix sets the trust with the rest).
    needs_lossless = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        wanted = ctx.policy.lossless.trust
        if wanted is not None:
            how = _TRUST.get(device.platform, {}).get(wanted)
            yield from trust_findings(self, ctx.policy.name, wanted, device, port,
                                      f"set trust {wanted} on the port" + (f" ({how})" if how else ""))


@register
class PfcQueueMismatch(PortRule):
    """A PFC pause for a lossless priority stops a queue other than the one its traffic uses.

    ## What it checks
    On switch ports, for every lossless priority: the queues a received pause for that priority
    stops (SONiC `MAP_PFC_PRIORITY_TO_QUEUE`, Junos `flow-control-queue`, or the platform's
    documented default) include the queue its traffic (every traffic class with that PFC priority,
    through the TC->queue map) leaves from. Ports whose maps the input does not show are reported
    as unverified.

    ## Why it matters
    The peer pauses this port to stop lossless traffic. If the pause stops another queue, the
    lossless traffic keeps flowing into the peer's full buffer and is dropped, while an innocent
    queue stalls.

    ## Failing example
    `TC_TO_QUEUE_MAP` `"3": "3"` but `MAP_PFC_PRIORITY_TO_QUEUE` `"3": "4"`:
    `a PFC pause for lossless priority 3 stops queue 4, but its traffic leaves from queue 3 (TC 3)`.
    Junos `class NO-LOSS queue-num 4 no-loss pfc-priority 3` with `output ieee-802.1 code-point
    011 flow-control-queue 3`: the pause stops queue 3 while NO-LOSS leaves from queue 4.

    ## Passing example
    `MAP_PFC_PRIORITY_TO_QUEUE` `"3": "3"` with `TC_TO_QUEUE_MAP` `"3": "3"`; Junos
    `flow-control-queue 4` for code point 011 with `NO-LOSS queue-num 4 ... pfc-priority 3`.

    ## Fix
    Make the PFC priority->queue map send each lossless priority to the queue its TCs use; where the PFC
    watchdog watches the queue numbered as the priority (SONiC), queue the TCs there instead (WDG004).
    """

    code = "MAP004"
    name = "pfc-queue-mismatch"
    scope = "port"
    severity = Severity.error
    # (the section that writes the pause->queue map: the platform's, common.pause_queue_section; Junos's PFC profile)
    fix_sections = frozenset({"maps", "pfc"})
    disruptive = True
    depends_on_pfc = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        source = port.map_source or port.source
        known = [(port.tc_to_priority, "the PFC priority of each TC"), (port.tc_to_queue, "the TC->queue map"),
                 (port.pfc_priority_to_queue, "which queue a received pause stops")]
        missing = [what for table, what in known if table is None]
        if missing:
            yield self.unverified("could not check which queue a pause for a lossless priority stops: "
                                  f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not in the input",
                                  device=device, port=port, source=source)
            return
        unknown = []
        for prio in ctx.lossless:
            tcs = [tc for tc, p in sorted(port.tc_to_priority.items()) if p == prio]
            if not tcs:
                continue  # no class has this PFC priority: MAP001 reports the DSCP side
            queues = {tc: port.tc_to_queue.get(tc) for tc in tcs}
            if None in queues.values():
                unknown.append(f"priority {prio}: {', '.join(port.tc_label(tc) for tc, q in queues.items() if q is None)} "
                               f"has no entry in the TC->queue map")
                continue
            paused = port.paused_queues(prio) or []
            wrong = {tc: q for tc, q in queues.items() if q not in paused}
            if not wrong:
                continue
            used = ", ".join(f"queue {q} ({port.tc_label(tc)})" for tc, q in wrong.items())
            stops = f"stops {queues_text(paused)}" if paused else "stops no queue (no map entry)"
            targets = sorted(set(queues.values()))
            fix = f"make a pause for PFC priority {prio} stop {queues_text(targets)}"
            section = pause_queue_section(device)
            found = PLATFORMS.get(device.platform)
            if found is not None and found.wd_watches == "priority-index" and targets != [prio]:
                # (SONiC: the watchdog watches queue P for priority P whatever the maps say, platforms.py): a pause
                # moved to the class's queue would stop a queue no watchdog watches; the class belongs in queue P.
                moved = ", ".join(port.tc_label(tc) for tc, q in wrong.items() if q != prio)
                elsewhere = [q for q in targets if q is not None and q != prio]
                fix = (f"queue {moved} in queue {prio}, the one the PFC watchdog watches for priority {prio} (a pause "
                       f"moved to {queues_text(elsewhere)} would stop a queue no watchdog watches: WDG004)")
                section = "maps"
            yield self.finding(f"a PFC pause for lossless priority {prio} {stops}, but its traffic leaves from "
                               f"{used}; {fix}", device=device, port=port, source=source, key=prio,
                               paused_queues=paused, section=section)
        if unknown:
            yield self.unverified("could not check the PFC priority->queue map: " + "; ".join(unknown),
                                  device=device, port=port, source=source)


@register
class PfcPgMismatch(PortRule):
    """A lossless priority's pauses are sent for a PG other than the one its traffic is buffered in.

    ## What it checks
    On switch ports that bind a PFC priority->PG map (SONiC `PORT_QOS_MAP` `pfc_to_pg_map` ->
    `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`, which `qos_config.j2` writes on Mellanox and Barefoot
    ASICs), for every lossless priority of the policy: the map has an entry for the priority, and
    the PG it names is the PG the TC->PG map puts that priority's traffic in (every traffic class
    with that PFC priority). The message says whether the PG the map names has a lossless buffer
    (xoff headroom) where the input shows it. A lossy buffer on the right PG is MAP001's and the
    BUF rules' finding, not this one's. Ports whose TC maps the input does not show are reported
    as unverified; ports that bind no such map are not checked (the ASIC pairs them itself).

    ## Why it matters
    The switch sends a pause for a priority when the PG the map names crosses XOFF. If the lossless
    traffic fills another PG, that PG never pauses the sender: it overflows and drops (the class
    runs lossy), while the named PG pauses the priority on someone else's congestion.

    ## Failing example
    `TC_TO_PRIORITY_GROUP_MAP` `"3": "3"` but `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP` `"3": "0"`:
    `lossless priority 3's traffic is buffered in PG 3 (TC 3), but the PFC priority->PG map sends its
    pauses when PG 0 fills (PG 0 uses buffer profile ingress_lossy_profile, which has no xoff
    headroom (a lossy profile)); map PFC priority 3 to PG 3`.

    ## Passing example
    `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|AZURE` `{"3": "3", "4": "4"}` with `TC_TO_PRIORITY_GROUP_MAP`
    `"3": "3"` and `"4": "4"`, as `qos_config.j2` writes them.

    ## Fix
    Make the PFC priority->PG map send each lossless priority to the PG its TCs use (SONiC: the
    `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP` entry the port's `pfc_to_pg_map` names).
    """

    code = "MAP005"
    name = "pfc-pg-mismatch"
    scope = "port"
    severity = Severity.error
    needs_lossless = True  # (as MAP001)

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        pfc_pg = port.pfc_priority_to_pg
        if pfc_pg is None:
            return
        # The map the finding asks to change (SONiC PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|<name>), not the binding.
        source = port.pfc_priority_to_pg_source or port.map_source or port.source
        tc_priority, tc_pg = port.tc_to_priority, port.tc_to_pg
        if tc_priority is None or tc_pg is None:
            missing = [what for table, what in ((tc_priority, "the PFC priority of each TC"),
                                                (tc_pg, "the TC->PG map")) if table is None]
            yield self.unverified(f"could not check the PFC priority->PG map: {' and '.join(missing)} "
                                  f"{'is' if len(missing) == 1 else 'are'} not in the input",
                                  device=device, port=port, source=source)
            return
        for prio in ctx.lossless:
            # The PG of each class with this PFC priority; a class without a PG is MAP001's finding.
            pgs = {tc: pg for tc, p in sorted(tc_priority.items()) if p == prio and (pg := tc_pg.get(tc)) is not None}
            mapped = pfc_pg.get(prio)
            wrong = {tc: pg for tc, pg in pgs.items() if pg != mapped}
            if not wrong:
                continue
            held = ", ".join(f"{port.pg_label(pg)} ({port.tc_label(tc)})" for tc, pg in wrong.items())
            if mapped is None:
                sends = "the PFC priority->PG map has no entry for it, so no PG sends its pauses"
            else:
                broken = pg_buffer_break(device, port, mapped)
                state = f" ({broken.why})" if broken is not None and not broken.unknown else ""
                sends = f"the PFC priority->PG map sends its pauses when {port.pg_label(mapped)} fills{state}"
            yield self.finding(f"lossless priority {prio}'s traffic is buffered in {held}, but {sends}; map PFC "
                               f"priority {prio} to {_pgs(port, set(pgs.values()))}", device=device, port=port,
                               source=source, key=prio, pfc_pg=mapped, traffic_pgs=sorted(set(pgs.values())))


def _pgs(port: Port, pgs: set[int]) -> str:
    """'PG 3' / 'PG 3,4', or the PGs by the platform's names ("the lossless PG") where it has them."""
    if port.pg_names and any(pg in port.pg_names for pg in pgs):
        return ", ".join(port.pg_label(pg) for pg in sorted(pgs))
    return f"PG {numbers(pgs)}"
