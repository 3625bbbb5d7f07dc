"""PFC: priority flow control is on exactly for the policy's lossless priorities on switch ports.

NIC ports are checked by the NIC family (NIC001), so a host is never reported twice.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import PortRule, register
from ..model import Device, Port
from .common import numbers, priorities


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
    `pfc_enable: "3,4"` (SONiC) or `priority-flow-control priority 3 no-drop` and
    `priority-flow-control priority 4 no-drop` (EOS).

    ## Fix
    Enable PFC on every lossless priority of the port, or correct `lossless.priorities` in the
    policy if the fabric really uses other priorities. Ports whose PFC state the input does not
    show are reported as unverified.
    """

    code = "PFC001"
    name = "pfc-disabled-on-lossless"
    scope = "port"
    severity = Severity.error
    fix_sections = frozenset({"pfc"})
    disruptive = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        lossless = ctx.lossless
        source = port.pfc_source or port.source
        if port.pfc_enabled is None:
            yield self.unverified(f"PFC state is not in the input, so lossless {priorities(lossless)} "
                                  f"could not be checked", device=device, port=port, source=source)
            return
        for prio in lossless:
            if prio not in port.pfc_enabled:
                yield self.finding(f"PFC is off for lossless priority {prio} (enabled: "
                                   f"{numbers(port.pfc_enabled)}); enable PFC on {priorities(lossless)}",
                                   device=device, port=port, source=source, key=prio,
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

    ## Fix
    Disable PFC on that priority, or add it to `lossless.priorities` in the policy (and give it a
    lossless buffer profile and a watchdog). Ports whose PFC state is unknown are reported once,
    by PFC001.
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
