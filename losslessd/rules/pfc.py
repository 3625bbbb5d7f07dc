"""PFC: priority flow control is on exactly for the policy's lossless priorities on switch ports, without
link-level (802.3x) pause beside it.

NIC ports are checked by the NIC family (NIC001), so a host is never reported twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ..lint.engine import SUSPENDED_RULE, Context
from ..lint.finding import Finding, Severity, few
from ..lint.registry import PortRule, Rule, register
from ..model import Device, DeviceKind, Port, suspended
from .common import TRUST_LABEL, marks_ecn, numbers, pause_on, priorities, roce_hops


@register
class PfcDisabledOnLossless(PortRule):
    """A lossless priority has no PFC on a RoCE-facing switch port.

    ## What it checks
    Every priority the policy calls lossless (`lossless.priorities`) is in the port's list of
    PFC-enabled priorities, on every RoCE-facing switch port. One finding per port and priority.

    ## Why it matters
    Without PFC the switch never sends a pause for that priority: when its buffer fills, RoCE
    packets are dropped, and RoCE (go-back-N retransmission) loses most of its throughput on loss.

    ## Failing example
    Policy lossless priorities `[3, 4]`, SONiC `PORT_QOS_MAP|Ethernet0: pfc_enable: "3"`:
    `PFC is off for lossless priority 4 (enabled: 3); enable PFC on priorities 3,4`.

    ## Passing example
    `pfc_enable: "3,4"` (SONiC) or `priority-flow-control on` with `priority-flow-control priority 3
    no-drop` and `priority-flow-control priority 4 no-drop` (EOS).

    ## Fix
    Enable PFC on every lossless priority of the port, or correct `lossless.priorities` in the
    policy if the fabric really uses other priorities. Ports whose PFC state the input does not
    show are reported as unverified. Where a line of the config declares the priority lossless
    without pausing it (an Onyx lossless traffic pool), the finding names that line (its source
    where no PFC line of the port's is) and the PFC lines to add; where the port writes the priority
    no-drop but not its PFC switch (EOS `priority-flow-control on`, OS10 `priority-flow-control mode
    on`, Onyx the switch-wide `dcb priority-flow-control enable`), it asks for that switch; where the
    port pauses the priority for a class left lossy (Junos: a forwarding class without `no-loss`), it
    names that class and asks for `no-loss` on it.
    """

    code = "PFC001"
    name = "pfc-disabled-on-lossless"
    scope = "port"
    severity = Severity.error
    fix_sections = frozenset({"pfc"})
    disruptive = True
    needs_pfc = True  # a port of a lossy-mode switch: PFC004 says it once for the device

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        lossless = ctx.lossless
        source = port.pfc_source or port.source
        if port.pfc_enabled is None:
            yield self.unverified(f"PFC state is not in the input, so lossless {priorities(lossless)} "
                                  f"could not be checked", device=device, port=port, source=source)
            return
        for prio in lossless:
            if prio not in port.pfc_enabled:
                fix, at = f"enable PFC on {priorities(lossless)}", source
                declared = next((fc for fc in device.forwarding_classes or () if fc.no_loss and fc.enable_pfc
                                 and fc.pfc_priority == prio), None)
                if declared is not None:  # (a class that says the priority is lossless without pausing it)
                    line = f" at line {declared.source.line}" if declared.source and declared.source.line else ""
                    fix = f"{declared.name}{line} declares it lossless: add {declared.enable_pfc}"
                    at = port.pfc_source or declared.source or source
                elif port.pfc_switch and prio in (port.pfc_declared or ()):  # (no-drop written, PFC not switched on)
                    fix = f"the port writes priority {prio} no-drop, but its PFC is off: add {port.pfc_switch}"
                elif port.pfc_blocked and prio in port.pfc_blocked:  # (paused for a class left lossy)
                    fix = port.pfc_blocked[prio]
                yield self.finding(f"PFC is off for lossless priority {prio} (enabled: "
                                   f"{numbers(port.pfc_enabled)}); {fix}",
                                   device=device, port=port, source=at, key=prio,
                                   priority=prio, pfc_enabled=port.pfc_enabled)


@register
class PfcEnabledOnLossy(PortRule):
    """PFC is on for a priority the policy does not call lossless.

    ## What it checks
    Every priority in a RoCE-facing switch port's PFC-enabled list is one of the policy's
    `lossless.priorities` (or `lossless.tolerated_priorities`, e.g. SONiC dual-ToR tunnel
    priorities). One finding per port and priority.

    ## Why it matters
    Pausing a lossy class spreads congestion upstream (head-of-line blocking, congestion trees)
    for traffic that could simply be dropped and retransmitted, adds pause-storm and deadlock
    exposure, and usually means the lossless class was set up on the wrong priority.

    ## Failing example
    Policy lossless priorities `[3]`, SONiC `pfc_enable: "3,6"`:
    `PFC is on for priority 6, which policy roce-dscp26 does not call lossless (lossless: 3)`.

    ## Passing example
    `pfc_enable: "3"`.

    A port with asymmetric PFC (SONiC `pfc_asym: on`) sends pauses on its PFC priorities but obeys
    received pauses on every priority: an info finding names the lossy priorities a neighbour's
    pause frames stop there (no PFC watchdog watches those queues).

    ## Fix
    Disable PFC on that priority, or add it to `lossless.priorities` in the policy (and give it a
    lossless buffer profile and a watchdog). Ports whose PFC state is unknown are reported once,
    by PFC001. For asymmetric PFC, set `pfc_asym` off unless the port faces a host that must be able
    to pause every priority.
    """

    code = "PFC002"
    name = "pfc-enabled-on-lossy"
    scope = "port"
    severity = Severity.warning
    fix_sections = frozenset({"pfc"})
    disruptive = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        lossless = ctx.lossless
        tolerated = ctx.policy.lossless.tolerated_priorities
        for prio in port.pfc_enabled or ():
            if prio not in lossless and prio not in tolerated:
                yield self.finding(f"PFC is on for priority {prio}, which policy {ctx.policy.name} does not call "
                                   f"lossless (lossless: {numbers(lossless)}); disable PFC on priority {prio} "
                                   f"or add it to lossless.priorities",
                                   device=device, port=port, source=port.pfc_source or port.source, key=prio,
                                   priority=prio)
        obeyed = [p for p in port.pfc_honoured or () if p not in lossless and p not in (port.pfc_enabled or ())]
        if obeyed:
            yield self.finding(f"asymmetric PFC: the port obeys received pause frames on every priority, so a "
                               f"neighbour's pauses stop its lossy priorities {numbers(obeyed)} too, queues no PFC "
                               f"watchdog watches (it sends pauses only for {numbers(port.pfc_enabled or [])}); "
                               "set pfc_asym off unless the port faces a host that must pause every priority",
                               device=device, port=port, source=port.pfc_honoured_source or port.source,
                               key="pfc-asym", severity=Severity.info, priorities=obeyed)


@register
class LinkPauseOnRocePort(PortRule):
    """Link-level (IEEE 802.3x) pause is on on a RoCE-facing switch port.

    ## What it checks
    On every RoCE-facing switch port whose link-level pause the input shows (NVUE: a `qos link-pause`
    profile bound to the port; EOS, NX-OS, Onyx, OS10 and OS9: the port's `flowcontrol` lines; Junos:
    `ether-options flow-control`), pause is off in both directions. One finding per port; a port bound to a
    link-pause profile the input does not define is reported as unverified.

    ## Why it matters
    802.3x pause stops every priority of the link at once, lossy traffic and CNPs included, so one
    congested class stalls the others, and IEEE 802.1Qbb makes PFC and link-level pause exclusive on a
    link (Cumulus Linux: "You can not configure link pause and PFC on the same port"). The policy's
    lossless priorities need PFC, which pauses them alone.

    ## Failing example
    `nv set qos link-pause my_pause_ports tx enable` and `nv set interface swp1 qos link-pause profile
    my_pause_ports` beside `nv set qos roce`: `link-level (802.3x) pause is on (RX on, TX on) beside PFC
    on priority 3 ...`.

    ## Passing example
    No link-pause profile on the port, PFC on the lossless priorities (`nv set qos roce`).

    ## Fix
    Remove the port's link-level pause (NVUE: `nv unset interface swp1 qos link-pause`) and enable PFC on
    the policy's lossless priorities.
    """

    code = "PFC003"
    name = "link-pause-on-roce-port"
    scope = "port"
    severity = Severity.error

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        pause = port.link_pause
        if pause is None:
            return  # not in the input: parsers that read it say so with an empty LinkPause
        if pause.rx is None and pause.tx is None:
            yield self.unverified("the port's link-level (802.3x) pause settings are not in the input",
                                  device=device, port=port, source=pause.source or port.source)
            return
        state = pause_on(pause)
        if state is None:
            return
        beside = (f"beside PFC on {priorities(port.pfc_enabled)}" if port.pfc_enabled
                  else f"instead of PFC on lossless {priorities(ctx.lossless)}")
        yield self.finding(f"link-level (802.3x) pause is on ({state}) {beside}: it pauses every priority of the "
                           f"link at once, CNPs included, and cannot run beside PFC on one port; remove the port's "
                           f"link pause and use PFC on {priorities(ctx.lossless)}",
                           device=device, port=port, source=pause.source or port.source, rx=pause.rx, tx=pause.tx)


def _roce_ports(ports: list[str]) -> str:
    """`N RoCE-facing port(s) (first four names and how many more)`: a device-level finding names its ports
    without a long list."""
    return f"{len(ports)} RoCE-facing port{'s' if len(ports) != 1 else ''} ({few(ports)})"


# The line that sets RoCE lossless mode, per platform with a switch-wide lossy mode: Cumulus Linux RoCE guide (NVUE);
# Onyx User Manual, RoCE Commands (`roce [lossy | semi-lossless | lossless]`).
NVUE = "nvidia_cumulus"
_LOSSLESS_MODE = {NVUE: "NVUE: nv set qos roce mode lossless", "nvidia_onyx": "Onyx: roce lossless"}


@register
class SwitchInLossyMode(Rule):
    """A switch runs a switch-wide lossy mode, so none of its priorities is lossless.

    ## What it checks
    A switch whose configuration puts it in a lossy mode for RoCE (NVIDIA Cumulus Linux NVUE `nv set qos roce mode
    lossy`, or from 5.14 `nv set qos roce mode lossy-multi-tc`; NVIDIA Onyx `roce lossy`, "congestion control based
    on ECN marking only. No PFC support", Onyx User Manual, RoCE Commands) while the policy calls priorities
    lossless. One
    finding per switch, naming its RoCE-facing ports whose PFC state the mode decides. On those ports the rules
    about what only PFC needs (PFC001, BUF001-003, BUF005, ECN004, MAP004, WDG001, WDG002, WDG004) stay silent, and
    so does every finding that rests on the mode's own line (its default maps, ECN and scheduling, which lossless mode
    replaces): they would repeat this one on every port. What the configuration sets itself (ECN thresholds, maps,
    schedulers) is still checked, and a port bound to a PFC profile of its own is checked as usual.

    ## Why it matters
    Cumulus Linux's RoCE guide lists what lossy mode leaves out of lossless mode: PFC on switch priority 3 and the
    RoCE lossless traffic pool. RoCE then relies on ECN alone, and its packets are dropped when a buffer fills; the
    lossy multi TC profile also enables PFC on no priority and keeps one lossy pool (it trims packets instead).
    A fabric whose policy says lossless loses packets at this switch whatever each port's settings say.

    ## Failing example
    Policy lossless priority 3, NVUE `nv set qos roce mode lossy` on swp1-4: `the switch runs RoCE lossy mode (nv set
    qos roce mode lossy): PFC is on no priority and RoCE has no lossless pool, so lossless priority 3 is lossy on its
    4 RoCE-facing ports (swp1, swp2, swp3, swp4) ...`.

    ## Passing example
    `nv set qos roce mode lossless` (or `nv set qos roce`, lossless by default).

    ## Fix
    Set the RoCE mode to lossless (`nv set qos roce mode lossless`; RoCE lossless mode then makes its own lossless
    pool and enables PFC on switch priority 3; Onyx `roce lossless`), or lint the switch with a policy for a lossy
    fabric if it is meant to
    be lossy. `losslessd fix --unsafe-fixes` writes the mode change with the PFC and watchdog sections.
    """

    code = "PFC004"
    name = "switch-lossy-mode"
    scope = "device"
    severity = Severity.error
    kinds = frozenset({DeviceKind.switch})
    # The mode change comes with PFC; the watchdog, which a lossy port needs not, comes with it (WDG001 otherwise).
    fix_sections = frozenset({"pfc", "watchdog"})
    disruptive = True

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        if device.lossy_mode is None or device.kind != DeviceKind.switch:
            return
        ports = [port.name for port in ctx.roce_ports(device) if port.lossy_mode]
        if not ports:
            return
        lossless = ctx.lossless
        yield self.finding(f"the switch runs {device.lossy_mode}: PFC is on no priority and RoCE has no lossless "
                           f"pool, so lossless {priorities(lossless)} is lossy on its {_roce_ports(ports)}, "
                           f"and what follows from the mode there "
                           f"(PFC, buffers, watchdog, the mode's own maps) is not reported port by port; set the RoCE "
                           f"mode to lossless ({_LOSSLESS_MODE.get(device.platform, _LOSSLESS_MODE[NVUE])})",
                           device=device,
                           source=device.lossy_mode_source or device.source, key="lossy-mode", ports=ports,
                           priorities=lossless)


@register
class NoLosslessConfiguration(Rule):
    """A switch configures no lossless setting on any port, so every RoCE flow through it is lossy.

    ## What it checks
    A switch whose RoCE-facing ports show their QoS settings, and whose configuration has nothing lossless on any
    port: PFC on no priority (every port that shows a PFC or QoS setting shows PFC off), no priority group bound to a
    profile with xoff headroom (or headroom sized at run time), no queue that marks ECN (or whose marking is not known
    to be off), no 802.3x link pause, no traffic class the configuration defines lossless (Junos `no-loss`, NX-OS
    no-drop) or gives a PFC priority (Junos `pfc-priority`), and no PFC line written on any port: a PFC statement
    without effect (NX-OS `priority-flow-control mode on` with no no-drop class, a Junos PFC code point for a class
    without `no-loss`, Onyx port mode on without the switch-wide enable) is PFC001's on each port, at that line. A line
    that turns PFC off in so many words (NX-OS or Onyx `priority-flow-control mode off`, SONiC `pfc_enable: ""`, EOS
    `no priority-flow-control`) is not lossless configuration: such a switch is this rule's, and the message names
    the first such line.
    One finding per switch, naming its RoCE-facing ports whose PFC is known off (a port whose PFC state the input
    does not show keeps its own findings, which say it could not be checked). DSCP and priority maps count neither
    way: every QoS configuration classifies, so a map alone is not lossless configuration. A switch with PFC on any
    priority (also the wrong one: PFC001 and PFC002 on each port), ECN marking on any queue (an ECN-only RoCE fabric)
    or a lossless class is not this case; a switch-wide lossy mode is PFC004's. On such a switch the rules about what a
    lossless class lacks or needs stay silent port by port (PFC001, MAP001, MAP003, MAP004, MAP005, ECN001, ECN004,
    BUF001-003, BUF005, WDG001, WDG002, WDG004): each would repeat this finding on every port. Trust (MAP003) only
    decides which class RoCE reaches, and no class is lossless here: the message says how many ports trust another
    marking than the policy's, and the fix sets the trust with the rest. What the ports do set is still checked
    (MAP002 on the CNP queue, SCH001, the link, path and deadlock rules).
    With `roce_ports.devices_without_lossless: skip` in the policy, such a switch carries no RoCE: none of its ports
    is selected, this rule is silent and SEL001 says, as an info, that the switch was not checked.

    ## Why it matters
    Linting a switch under a lossless policy says RoCE crosses it. A switch that pauses no priority and marks no ECN
    drops RoCE whenever a queue fills, whichever port it arrives on, and RoCE (go-back-N) loses most of its throughput
    on loss. It is one fact about the switch, not one per port and rule: a lossy-by-design SKU (every traffic class in
    PG 0, no `pfc_enable`, no WRED) or a WAN router with scheduler maps gave hundreds of per-port findings saying it.

    ## Failing example
    Policy lossless priority 3; SONiC `PORT_QOS_MAP|Ethernet0: {dscp_to_tc_map: AZURE, tc_to_pg_map: AZURE}` with no
    `pfc_enable`, every TC in PG 0 on `ingress_lossy_profile` and no `wred_profile` on any QUEUE: `the switch
    configures no lossless setting on any port: PFC is on no priority of any port, ...`.

    ## Passing example
    `pfc_enable: "3"` on the RoCE ports (their missing ECN or watchdog is then reported port by port), or
    `wred_profile: AZURE_LOSSLESS` with `ecn: ecn_all` on queue 3 of an ECN-only fabric (PFC001 per port).

    ## Fix
    Configure the lossless class on the ports that carry RoCE: PFC on the policy's lossless priorities, a lossless
    PG, ECN marking on its queue, the DSCP map and the PFC watchdog (`losslessd fix --unsafe-fixes` writes them). If
    the switch carries no RoCE, leave it out of the linted inputs or set `roce_ports.devices_without_lossless: skip`
    in the policy.
    """

    code = "PFC006"
    name = "no-lossless-configuration"
    scope = "device"
    severity = Severity.error
    kinds = frozenset({DeviceKind.switch})
    # What a lossless class needs on every RoCE-facing port, as the per-port findings it stands for would fix it
    # (PFC001, MAP001, ECN001, WDG001); not the PG headroom, which a platform sizes itself where PFC is on (SONiC's
    # buffer manager, NX-OS's default pause buffer) and a render sizes only from a cable length the input may not give.
    fix_sections = frozenset({"pfc", "maps", "ecn", "watchdog", "trust"})
    disruptive = True

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        found = ctx.no_lossless(device)
        if found is None:
            return
        # Ports whose PFC is known off; one whose PFC state the input does not show (roce_ports.select: all) is not
        # said to drop RoCE: its own findings say it could not be checked.
        selected = [port for port in ctx.roce_ports(device) if port.pfc_enabled is not None]
        if not selected:  # none selected (SEL001 says why, also under devices_without_lossless: skip)
            return
        ports = [port.name for port in selected]
        lossless = ctx.lossless
        # Lines that turn PFC off in so many words (Port.pfc_off_written) are no lossless configuration; named here.
        off = [port for port in selected if port.pfc_off_written]
        line = off[0].pfc_source if off else None
        said = (f"; PFC is turned off in so many words on {len(off)} of them (first: {off[0].name} at "
                f"{line.describe()})" if line is not None else "")
        # Trust only decides which class RoCE reaches: with no lossless class MAP003 is silent per port (said here).
        # Counted per trust value (PCP on one port, none on two: not "PCP on 3").
        trust: list[Port] = []
        with_trust = ""
        if (wanted := ctx.policy.lossless.trust) is not None:
            trust = [port for port in selected if port.trust is not None and port.trust.value != wanted]
            counts = Counter(port.trust.value for port in trust if port.trust is not None)
            if trust:
                said += (f"; the trust is not the policy's {TRUST_LABEL[wanted]} on {len(trust)} of them ("
                         + ", ".join(f"{TRUST_LABEL[value]} on {n}" for value, n in counts.items())
                         + f"; first: {trust[0].name})")
                with_trust = f", the trust mode ({TRUST_LABEL[wanted]})"
        yield self.finding(f"the switch configures no lossless setting on any port ({found.why}): RoCE on lossless "
                           f"{priorities(lossless)} is dropped under congestion on its "
                           f"{_roce_ports(ports)}{said}, and the per-port findings this implies "
                           f"(PFC, maps, trust, headroom, ECN, watchdog) are not repeated; configure PFC on "
                           f"{priorities(lossless)}, ECN marking{with_trust} and the maps on the ports that carry "
                           f"RoCE, or, if the switch carries no RoCE, set roce_ports.devices_without_lossless: skip "
                           f"in the policy", device=device, key="no-lossless", ports=ports, priorities=lossless,
                           pfc_off_ports=[port.name for port in off], trust_ports=[port.name for port in trust])


@register
class AggregateMembersDiffer(Rule):
    """The members of one link aggregate treat a lossless flow differently: PFC, or what else decides its treatment.

    ## What it checks
    On a switch, the member ports of each link aggregate (SONiC PORTCHANNEL_MEMBER, EOS, NX-OS, OS10 and Onyx
    `channel-group` less a later `no channel-group`, Dell OS9 `channel-member` and LACP `port-channel N mode`, Junos
    `802.3ad aeN`, NVUE `bond member`), whether or not they were selected as RoCE-facing (a member with no QoS
    entry of its own is the usual way to get here, and the per-port rules do not look at a port the selection leaves
    out):
    - PFC: a lossless priority of the policy that some members pause and others do not; one finding per member that
      lacks it, naming a member that has it;
    - what else decides a lossless flow's treatment on the member (IEEE 802.1Qbb / 802.1Q: the switch classifies a
      frame by its trusted field into a traffic class, which gives it its PFC priority, ingress priority group and
      egress queue; ECN marks on that queue; the watchdog acts on the port): the trust mode, and for each lossless
      DSCP of the policy (under `lossless.trust: pcp` each lossless priority's 802.1p PCP) its traffic class, that
      class's PFC priority, PG and egress queue, ECN marking on that queue, and whether the PFC watchdog is on. Each
      fact is compared where both members' input shows it. Where the policy decides between the members' values (its
      trust, a class whose priority is lossless, a lossless priority, ECN on, the watchdog on), the members with the
      value it asks for are the reference, however few they are; where it decides nothing (the PG, the queue), the
      value most members have is. One finding per member that differs names every fact that differs and a member
      that has the reference; with no reference (as many members with each value, and the policy preferring none),
      one finding on the aggregate names each member's value.

    ## Why it matters
    An aggregate hashes each flow onto one member (IEEE 802.1AX, frame distribution: every frame of a conversation
    on one link), so the RoCE flows hashed onto the member without PFC are lossy: its ingress buffer drops them under
    congestion instead of pausing the sender, while the flows on the other members run lossless. A member that
    classifies the DSCP into another class, pauses or queues it elsewhere, marks no ECN or runs no watchdog treats
    the same flows otherwise than its siblings. The loss or the unfairness follows the hash, so it shows up as a few
    queue pairs retransmitting or slowing while the aggregate looks healthy.

    ## Failing example
    SONiC `PORTCHANNEL_MEMBER|PortChannel0001|Ethernet48` and `|Ethernet52`, with `PORT_QOS_MAP|Ethernet48:
    pfc_enable: "3"` and no PORT_QOS_MAP entry for Ethernet52: `member of PortChannel0001 with PFC off for lossless
    priority 3, which Ethernet48 of the same aggregate pauses ...`. Or Ethernet52 bound to a DSCP_TO_TC_MAP that
    sends DSCP 26 to TC 1: `member of PortChannel0001 that treats lossless traffic otherwise than Ethernet48 of the
    same aggregate: DSCP 26 goes to TC 1 (Ethernet48: TC 3) ...`.

    ## Passing example
    Every member of PortChannel0001 with `pfc_enable: "3"` and the same maps, WRED profile and watchdog.

    ## Fix
    Give every member of the aggregate the same PFC and QoS settings as the others: on SONiC a PORT_QOS_MAP entry
    (and QUEUE, PFC_WD entries) per member alike, on EOS and NX-OS the same lines (or policies on the port-channel) on
    each `channel-group` member, on Junos the same CoS on each `802.3ad` member (or bind it on aeN), on NVUE the same
    profiles on each bond member.
    """

    code = "PFC005"
    name = "aggregate-members-differ"
    scope = "port"
    severity = Severity.error
    kinds = frozenset({DeviceKind.switch})

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        lossless = set(ctx.lossless)
        # (a member the switch suspends carries none of its traffic; another whose own settings differ from the
        # aggregate's is compared with its own values: PFC007)
        for bundle, everyone in _aggregates(device, with_suspended=False).items():
            ports = [p for p in everyone if p.pfc_enabled is not None]
            yield from self._treatment(ctx, device, bundle, everyone)
            paused = {p.name: set(p.pfc_enabled or ()) & lossless for p in ports}
            anywhere = set().union(*paused.values())
            for port in ports:
                missing = sorted(anywhere - paused[port.name])
                if not missing:
                    continue
                other = next(p.name for p in ports if paused[p.name] & set(missing))
                yield self.finding(
                    f"member of {bundle} with PFC off for lossless {priorities(missing)}, which {other} of the same "
                    f"aggregate pauses: the flows the aggregate hashes onto {port.name} are dropped under congestion "
                    f"instead of paused; give {port.name} the PFC settings of the other members", device=device,
                    port=port, source=port.pfc_source or port.source, key=f"{bundle}|{numbers(missing)}",
                    aggregate=bundle, member=other, priorities=missing)

    def _treatment(self, ctx: Context, device: Device, bundle: str, ports: list[Port]) -> Iterator[Finding]:
        facts = {p.name: _treatment(ctx, p) for p in ports}
        differ: dict[str, list[tuple[str, str, str]]] = {}  # member -> (what, its value, the reference's)
        refs: dict[str, str] = {}  # member -> the member it is compared with (its first differing fact's)
        undecided: list[tuple[str, list[tuple[str, str]]]] = []  # (what, (member, value)) with no reference
        for what in dict.fromkeys(k for f in facts.values() for k in f):
            shown = [(p.name, *facts[p.name][what]) for p in ports if what in facts[p.name]]
            counts: dict[str, int] = {}
            for _, value, _ in shown:
                counts[value] = counts.get(value, 0) + 1
            if len(counts) == 1:
                continue
            # Where the policy tells the values apart, the ones it asks for are the candidates, however few members
            # hold them (two members without the watchdog do not make a third that runs it the odd one out); else
            # every value. The value most candidates' members hold is the reference; a tie is no reference.
            asked = [v for v in counts if all(good for _, x, good in shown if x == v)]
            pool = asked if asked and len(asked) < len(counts) else list(counts)
            most = max(counts[v] for v in pool)
            tied = [v for v in pool if counts[v] == most]
            if len(tied) != 1:
                undecided.append((what, [(name, value) for name, value, _ in shown]))
                continue
            ref = tied[0]
            holder = next(name for name, value, _ in shown if value == ref)
            for name, value, _ in shown:
                if value != ref:
                    differ.setdefault(name, []).append((what, value, ref))
                    refs.setdefault(name, holder)
        for port in ports:
            if port.name not in differ:
                continue
            other = refs[port.name]
            said = "; ".join(f"{what} {value} ({other}: {ref})" for what, value, ref in differ[port.name])
            yield self.finding(
                f"member of {bundle} that treats lossless traffic otherwise than {other} of the same aggregate: "
                f"{said}; the flows the aggregate hashes onto {port.name} are not handled as those on {other}; give "
                f"{port.name} the QoS settings of the other members", device=device, port=port,
                source=port.map_source or port.source, key=f"{bundle}|treatment", aggregate=bundle, member=other,
                facts=[what for what, _, _ in differ[port.name]])
        if undecided:  # (as many members with each value, and the policy prefers none: no member is to blame)
            said = "; ".join(what + " " + ", ".join(f"{value} on {name}" for name, value in values)
                             for what, values in undecided)
            first = ports[0]
            yield self.finding(
                f"members of {bundle} treat lossless traffic otherwise than each other: {said}; the flows the "
                f"aggregate hashes onto one member are not handled as those on another; give every member the same "
                f"QoS settings", device=device, port=bundle, source=first.map_source or first.source,
                key=f"{bundle}|treatment-undecided", aggregate=bundle, member=None,
                facts=[what for what, _ in undecided])


def _aggregates(device: Device, with_suspended: bool) -> dict[str, list[Port]]:
    """Each link aggregate's members that are not administratively down, in port order; ``with_suspended``: also those
    the switch suspends from it (model.suspended)."""
    members: dict[str, list[Port]] = {}
    for port in device.ports.values():
        if port.bundle is not None and port.admin_up is not False and (with_suspended or not suspended(device, port)):
            members.setdefault(port.bundle, []).append(port)
    return members


def _treatment(ctx: Context, port: Port) -> dict[str, tuple[str, bool]]:
    """What decides a lossless flow's treatment on ``port``, as "what" -> (value in words, whether it is what the
    policy asks for) ("DSCP 26 goes to" -> ("TC 3", True)): the trust mode; per marking RoCE is classified by
    (common.roce_hops: a lossless DSCP of the policy, or under `lossless.trust: pcp` a lossless priority's PCP) its
    class, that class's PFC priority, PG and egress queue, and ECN on that queue; the watchdog. What the policy asks
    for: its trust, a class whose PFC priority is lossless, a lossless priority, ECN on where it requires ECN, the
    watchdog on where it requires one; True where the policy says nothing of a fact (the PG, the queue). A fact whose
    input is not known is left out."""
    policy = ctx.policy
    lossless = set(ctx.lossless)
    out: dict[str, tuple[str, bool]] = {}
    if port.trust is not None:
        out["trusts"] = port.trust.value, policy.lossless.trust in (None, port.trust.value)
    for hop in roce_hops(policy, port):  # the policy's DSCPs, or under `lossless.trust: pcp` its priorities' PCPs
        if (port.pcp_to_tc if hop.marking == "PCP" else port.dscp_to_tc) is None:
            break
        tc, priority = hop.tc, hop.priority
        if tc is None:
            out[f"{hop.marking} {hop.dscp} goes to"] = "no class", False
            continue
        label = port.tc_label(tc)
        out[f"{hop.marking} {hop.dscp} goes to"] = label, port.tc_to_priority is None or priority in lossless
        if port.tc_to_priority is not None:
            shown = str(priority) if priority is not None else "none"
            out[f"{label}'s PFC priority is"] = shown, priority in lossless
        for what, table, show in ((f"{label}'s PG is", port.tc_to_pg, port.pg_label),
                                  (f"{label}'s egress queue is", port.tc_to_queue, str)):
            if table is not None:
                value = table.get(tc)
                out[what] = (show(value) if value is not None else "none"), True
        queue = (port.tc_to_queue or {}).get(tc)
        marks = marks_ecn(port, queue) if queue is not None else None
        if marks is not None:
            out[f"ECN marking on queue {queue} is"] = ("on" if marks else "off"), marks or not policy.ecn.required
    if port.watchdog is not None and port.watchdog.enabled is not None:
        on = port.watchdog.enabled
        out["the PFC watchdog is"] = ("on" if on else "off"), on or not policy.watchdog.required
    return out


@register
class AggregateMemberIncompatible(Rule):
    """A member of a link aggregate sets a compatibility parameter otherwise than its aggregate.

    ## What it checks
    On a switch, each member of a link aggregate whose own MTU or PFC mode line differs from its aggregate's value
    (NX-OS: a `channel-group N` member whose `mtu` or `priority-flow-control mode` line differs from the one under
    `interface port-channelN`, or from the default MTU, 1500, where the port-channel writes no `mtu` line; not with
    `channel-group N force`). One finding per member, naming each such setting with the member's value and the
    aggregate's, and what the vendor's guides say the switch does then, model by model. The member stays in the other
    checks (RoCE-facing, PFC005, routes) with its own values, unless the input names the switch's model (`show
    version`) and that model's guide says it suspends such a member (Nexus 7000, MTU): then it is out of them and
    the finding says which members carry the aggregate. A warning; an error where every member of the aggregate is
    suspended: the aggregate is down and the lossless path over it does not exist (the device then counts as checked,
    so the lint exits 1 with it rather than "nothing checked").

    ## Why it matters
    NX-OS compares a member's compatibility parameters with its port-channel's. The Nexus 7000 Interfaces guide
    ("Configuring Port Channels", Compatibility Requirements) lists the MTU size and says the switch suspends a member
    with an incompatible attribute: it then carries none of the port-channel's traffic, the aggregate's lossless flows
    go over the other members with less capacity than the design counts on (all suspended: the port-channel is
    down). The Nexus 9000's compatibility parameters require the same MTU on every member; the Nexus 5000 guide lists
    Priority-Flow-Control among the checked attributes; neither says what the switch then does. Where the member
    does run, it runs PFC or the MTU otherwise than the aggregate's other members: the lossless risk PFC005 reports.

    ## Failing example
    `interface port-channel10` with `mtu 9216` and `priority-flow-control mode on`; `interface Ethernet1/50` with
    `channel-group 10 mode active` and `mtu 1500`: `member of port-channel10 whose own settings differ from
    port-channel10's: mtu 1500 (port-channel10: 9216) ...`.

    ## Passing example
    The member sets neither (it takes the port-channel's), or the same values.

    ## Fix
    Give the member's own line the port-channel's value (`mtu 9216`, `priority-flow-control mode on` under the member),
    or remove it (`no mtu`, `no priority-flow-control mode`). `losslessd fix` writes the member's own lines: the PFC
    mode the port-channel runs (the pfc section), and one MTU on the port-channel and the member, the larger of the
    two (the ports section); disruptive, the member's PFC or MTU changes on a live port. A port-channel's configuration
    reaches its members, but these lines are the member's own, which the check compares rather than replaces. A Nexus
    7000 has no render family: fix it by hand there.
    """

    code = "PFC007"
    name = "aggregate-member-incompatible"
    scope = "port"
    severity = Severity.warning
    kinds = frozenset({DeviceKind.switch})
    # The member's own line takes the aggregate's value (render: PortProfile.own): the MTU is the ports section's, the
    # PFC mode the pfc section's. Disruptive: the member's PFC or MTU changes on a live (or suspended, rejoining) port.
    fix_sections = frozenset({"ports", "pfc"})
    disruptive = True
    _SECTIONS = {"mtu": "ports", "priority-flow-control mode": "pfc"}
    checks_unselected = frozenset({SUSPENDED_RULE})  # (lint.engine Context._choose)

    @classmethod
    def fix_sections_for(cls, finding: Finding) -> frozenset[str]:
        """The sections of the member's differing settings (a setting losslessd cannot write: none)."""
        return frozenset(cls._SECTIONS[s] for s in finding.data.get("settings", ()) if s in cls._SECTIONS)

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        for bundle, ports in _aggregates(device, with_suspended=True).items():
            left = [p.name for p in ports if not suspended(device, p)]
            for port in ports:
                if not port.incompatible:
                    continue
                said = "; ".join(f"{i.setting} {i.member} ({bundle}: {i.aggregate})" for i in port.incompatible)
                severity = None
                if suspended(device, port):  # (the model's guide says the switch suspends it)
                    carries = (f"the aggregate's lossless flows go over {few(left)} alone" if left else
                               f"no member is left: {bundle} is down, and no lossless flow crosses it")
                    # every member suspended: the aggregate is down and the lossless path over it does not exist
                    severity = None if left else Severity.error
                    then = (f"the switch ({device.hardware}) suspends it: it carries none of {bundle}'s traffic and "
                            f"{carries}")
                else:
                    checks = "; ".join(dict.fromkeys(i.check for i in port.incompatible if i.check))
                    then = f"{checks + '; ' if checks else ''}it is checked here with its own values"
                yield self.finding(
                    f"member of {bundle} whose own settings differ from {bundle}'s: {said}; {then}; give {port.name} "
                    f"the aggregate's values (or remove its own lines)", device=device, port=port,
                    source=port.incompatible[0].source or port.source, key=f"{bundle}|incompatible", aggregate=bundle,
                    settings=[i.setting for i in port.incompatible], severity=severity)
