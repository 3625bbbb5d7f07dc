"""SEL: which ports carry RoCE. A switch linted under a RoCE policy with no RoCE-facing port is never a silent pass."""

from __future__ import annotations

from collections.abc import Iterator

from ..lint.engine import NO_LOSSLESS_WHY, SKIP_RULE, SUSPENDED_RULE, Context, describe_selection, nothing_shown
from ..lint.finding import Finding, Severity
from ..lint.registry import Rule, register
from ..model import Device, DeviceKind, Source


@register
class NoRocePortSelected(Rule):
    """A switch has no port selected as RoCE-facing, so none of its ports was checked.

    ## What it checks
    Every switch has at least one port that the policy's `roce_ports` selection (and the config
    itself) makes RoCE-facing. Ports are left out when the config makes them lossy by design (SONiC
    smart-switch DPU ports), when they are administratively down, when `roce_ports.select` is
    `qos-configured` and the port has no PFC, QoS-map or trust setting, or when they miss the
    policy's name or description pattern, or when the switch configures no lossless setting on any port
    and the policy says such a switch carries no RoCE (`roce_ports.devices_without_lossless: skip`, see
    PFC006). One finding per switch, saying how many ports were left
    out by which rule (`lint --explain-selection` lists each port). A warning, also when the
    input cannot show the ports' PFC state (a buffers-only SONiC file) or shows no port at all: nothing
    was checked on the switch, which is never clean (the run fails under the default `--fail-on
    warning`, and a run in which no device was checked at all exits 2). Under `roce_ports.select: all`
    the ports are selected whatever the input shows: a switch whose input shows neither the PFC state
    nor a QoS setting of any of them is the same finding (nothing on it could be verified).
    A switch the policy's `devices_without_lossless: skip` leaves out is the one info, not a warning:
    the policy says it carries no RoCE. Still nothing was checked on it: a run that checked no other
    device exits 2. A switch whose every port is a member it suspends from its aggregate (Nexus 7000, an
    MTU that differs from the port-channel's) is PFC007's error alone, which says what to change (the
    aggregate is down); SEL001 speaks for it only when PFC007 does not run.

    ## Why it matters
    Every port rule checks only RoCE-facing ports. A switch with none passes every check without a
    single one having run: a config that never enabled PFC or QoS on any port (98 admin-up ports and
    no PORT_QOS_MAP) would look clean, while every RoCE flow through it is lossy. Linting a switch
    under a RoCE policy says it carries RoCE; finding no lossless port on it is a problem to see.

    ## Failing example
    SONiC config_db.json with 98 admin-up ports in PORT and an empty PORT_QOS_MAP: `no port is
    selected as RoCE-facing: 0 of 98 ports selected; out: 98 by roce_ports.select`.

    ## Passing example
    `PORT_QOS_MAP|Ethernet0: {pfc_enable: "3,4", dscp_to_tc_map: AZURE}`: Ethernet0 is selected.

    ## Fix
    Configure PFC and the QoS maps on the ports that carry RoCE (then they are selected and
    checked), or, if this switch carries no RoCE, leave it out of the linted inputs or widen/narrow
    the policy's `roce_ports` (`select: all`, `name_regex`) so that it picks the RoCE ports.
    """

    code = "SEL001"
    name = "no-roce-port-selected"
    scope = "device"
    # A warning, not an error: nothing was checked, which fails a run (--fail-on warning), but the
    # input cannot tell a misconfigured RoCE switch from one that carries no RoCE. Never an info, also
    # when the input cannot show which ports carry RoCE: a switch with nothing checked is not clean
    # (but where the policy itself says the switch carries no RoCE: roce_ports.devices_without_lossless).
    severity = Severity.warning

    kinds = frozenset({DeviceKind.switch})

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        choices = ctx.selection(device)
        chosen = [c for c in choices if c.selected]
        if chosen:
            if nothing_shown(choices):  # (roce_ports.select: all on a partial dump)
                yield self.finding(f"the input shows neither the PFC state nor a QoS setting of any RoCE-facing port "
                                   f"(a partial dump?), so no lossless setting of this switch could be verified: "
                                   f"{describe_selection(choices)}", device=device, key="selection",
                                   selected=len(chosen), ports=len(choices))
            return
        if not choices:
            yield self.finding("the input shows no port of this switch, so no port could be selected as "
                               "RoCE-facing and nothing on it was checked (a partial dump, or the wrong file?)",
                               device=device, key="selection", selected=0, ports=0)
            return
        summary = describe_selection(choices)
        if any(c.rule == SKIP_RULE for c in choices):  # (the policy's choice: not a problem, never "clean" either)
            yield self.finding(f"not checked: the switch configures no lossless setting on any port "
                               f"({NO_LOSSLESS_WHY}) and the policy's roce_ports.devices_without_lossless is skip, so "
                               f"it carries no RoCE: {summary}", device=device, key="selection",
                               severity=Severity.info, selected=0, ports=len(choices),
                               source=_one_pfc_line(device) or device.source)
            return
        ports = device.ports.values()
        if all(p.pfc_enabled is None and not p.qos_configured and not p.lossy_by_design for p in ports):
            yield self.finding(f"the input does not show which ports carry RoCE (no PFC or QoS-map setting on any "
                               f"port; a partial dump?), so no port of this switch was checked: {summary}",
                               device=device, key="selection", selected=0, ports=len(choices))
            return
        suspended = sum(c.rule == SUSPENDED_RULE for c in choices)
        if suspended == len(choices):
            if ctx.selected("PFC007"):
                return  # (each aggregate is down: PFC007's error names each member and the setting to change)
            fix = "give each member the settings of its aggregate (PFC007 names the settings that differ)"
        else:
            fix = ("configure PFC/QoS on the RoCE ports or adjust the policy's roce_ports (`losslessd lint "
                   "--explain-selection` lists each port)" + (
                       "; give each member the switch suspends the settings of its aggregate (PFC007 names them)"
                       if suspended else ""))
        yield self.finding(f"no port is selected as RoCE-facing, so no port of this switch was checked: {summary}; "
                           f"{fix}",
                           device=device, key="selection", selected=0, ports=len(choices),
                           source=_one_pfc_line(device) or device.source)


def _one_pfc_line(device: Device) -> Source | None:
    """The one line every port's PFC state comes from, where one did it for all (NVUE `nv set qos roce enable off`, an
    `nv unset qos roce`): the finding that no port carries RoCE points at it. None where the ports' differ or one has
    none."""
    first: Source | None = None
    for port in device.ports.values():
        src = port.pfc_source
        if src is None or (first is not None and src is not first and (src.file, src.line) != (first.file, first.line)):
            return None
        first = first or src
    return first
