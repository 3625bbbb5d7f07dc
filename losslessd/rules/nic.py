"""NIC: host adapters (mlx5) agree with the switches: PFC priorities, trust, DCQCN and the RoCE TOS."""

from __future__ import annotations

from ..lint.finding import Severity
from ..lint.registry import PortRule, Rule, register
from ..model import DeviceKind
from .map import trust_findings
from .pfc import numbers, priorities

# RFC 3168 section 5: the ECN field is the low two bits of the TOS byte; 01 = ECT(1), 10 = ECT(0).
ECT_CODEPOINTS = {1: "ECT(1)", 2: "ECT(0)"}
ECN_LABEL = {0: "Not-ECT", 3: "CE", **ECT_CODEPOINTS}


def pfc_vector(priorities) -> str:
    """mlnx_qos --pfc takes one 0/1 flag per priority 0-7 (NVIDIA MLNX_OFED mlnx_qos usage)."""
    return ",".join("1" if p in priorities else "0" for p in range(8))


class _NicRule(PortRule):
    device_kind = DeviceKind.host


@register
class NicPfcMismatch(_NicRule):
    """The NIC's PFC-enabled priorities differ from the policy's lossless priorities.

    ## What it checks
    On every NIC port, PFC is on for each policy lossless priority and off for every other
    priority. One finding per port and priority.

    ## Why it matters
    With PFC off on a lossless priority the NIC neither honours the switch's pauses nor sends its
    own when its receive buffer fills, so RoCE packets are dropped under congestion. PFC on an
    extra priority lets the NIC pause lossy traffic the switch does not treat as lossless.

    ## Failing example
    Policy lossless priorities `[3]`; `mlnx_qos` shows `enabled 0 0 0 0 0 0 0 0`:
    `PFC is off for lossless priority 3 on the NIC (enabled: none)`.

    ## Passing example
    `mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0` (PFC on priority 3 only).

    ## Fix
    Run the `mlnx_qos --pfc` command the message gives (one flag per priority 0-7), and make it
    persistent in the host's provisioning.
    """

    code = "NIC001"
    name = "nic-pfc-mismatch"
    severity = Severity.error
    fix_sections = frozenset({"pfc"})
    disruptive = True

    def check_port(self, ctx, device, port):
        lossless = set(ctx.lossless)
        source = port.pfc_source or port.source
        if port.pfc_enabled is None:
            yield self.unverified(f"the NIC's PFC priorities are not in the input; policy lossless "
                                  f"{priorities(lossless)} could not be checked",
                                  device=device, port=port, source=source)
            return
        enabled = set(port.pfc_enabled)
        fix = f"run `mlnx_qos -i {port.name} --pfc {pfc_vector(lossless)}`"
        for prio in sorted(lossless - enabled):
            yield self.finding(f"PFC is off for lossless priority {prio} on the NIC (enabled: {numbers(enabled)}); "
                               f"{fix}",
                               device=device, port=port, source=source, key=prio, priority=prio)
        for prio in sorted(enabled - lossless):
            yield self.finding(f"PFC is on for priority {prio} on the NIC, which policy {ctx.policy.name} does not "
                               f"call lossless (lossless: {numbers(lossless)}); {fix}",
                               device=device, port=port, source=source, key=prio, priority=prio)


@register
class NicTrustMismatch(_NicRule):
    """The NIC classifies received traffic by another marking (DSCP/PCP) than the policy says.

    ## What it checks
    The trust mode of every NIC port equals the policy's `nic.trust`. Does nothing when the
    policy sets no NIC trust mode.

    ## Why it matters
    The NIC maps received packets to priorities (and so to PFC receive buffers) by its trust mode.
    A NIC trusting PCP on untagged routed RoCE puts everything on priority 0: its receive buffer
    for the lossless priority is never used and its pauses go out for the wrong priority.

    ## Failing example
    Policy `nic.trust: dscp`; `mlnx_qos` shows `Priority trust state: pcp`:
    `port trusts PCP (802.1p) but policy roce-dscp26 classifies lossless traffic by DSCP`.

    ## Passing example
    `Priority trust state: dscp`.

    ## Fix
    `mlnx_qos -i <interface> --trust dscp` (or the policy's mode), persistently.
    """

    code = "NIC002"
    name = "nic-trust-mismatch"
    severity = Severity.error
    fix_sections = frozenset({"trust"})
    disruptive = True

    def check_port(self, ctx, device, port):
        wanted = ctx.policy.nic.trust
        if wanted is not None:
            yield from trust_findings(self, ctx.policy.name, wanted, device, port,
                                      f"run `mlnx_qos -i {port.name} --trust {wanted}`")


@register
class NicEcnDisabled(_NicRule):
    """DCQCN notification point or reaction point is off on a lossless priority of the NIC.

    ## What it checks
    On every NIC port and lossless priority: the notification point (NP, turns ECN marks into
    CNPs) is on when the policy's `nic.ecn_np` is true, and the reaction point (RP, slows the
    sender down on CNPs) is on when `nic.ecn_rp` is true. One finding per port and priority;
    priorities the capture does not show are reported once per port as unverified.

    ## Why it matters
    ECN marks on the switches do nothing unless the receiving NIC answers them with CNPs and the
    sending NIC reduces its rate. Without DCQCN, congestion is handled by PFC alone: pause storms,
    head-of-line blocking and victim flows.

    ## Failing example
    Policy lossless priority 3; `/sys/class/net/eth0/ecn/roce_rp/enable/3` reads `0`:
    `DCQCN is off on lossless priority 3: reaction point (RP) disabled`.

    ## Passing example
    `/sys/class/net/eth0/ecn/roce_np/enable/3` and `.../roce_rp/enable/3` both read `1`.

    ## Fix
    Write `1` to the sysfs files the message names (persistently, e.g. in the host's
    provisioning), or set `nic.ecn_np`/`nic.ecn_rp` false in a PFC-only policy.
    """

    code = "NIC003"
    name = "nic-ecn-disabled"
    severity = Severity.error
    fix_sections = frozenset({"ecn"})

    def check_port(self, ctx, device, port):
        points = [(label, sysfs, kind) for want, label, sysfs, kind in (
            (ctx.policy.nic.ecn_np, "notification point (NP)", "roce_np", "np"),
            (ctx.policy.nic.ecn_rp, "reaction point (RP)", "roce_rp", "rp")) if want]
        if not points:
            return
        ecn = port.nic_ecn
        source = (ecn.source if ecn else None) or port.source
        unknown: list[str] = []
        for prio in ctx.lossless:
            off = []
            for label, sysfs, kind in points:
                state = getattr(ecn, f"{kind}_enabled").get(prio) if ecn else None
                if state is None:
                    unknown.append(f"{sysfs} priority {prio}")
                elif not state:  # MLNX_OFED mlx5 sysfs: ecn/roce_{np,rp}/enable/<priority>
                    off.append((label, f"/sys/class/net/{port.name}/ecn/{sysfs}/enable/{prio}",
                                getattr(ecn, f"{kind}_source") or source))
            if off:
                yield self.finding(f"DCQCN is off on lossless priority {prio}: "
                                   + ", ".join(f"{label} disabled" for label, _, _ in off)
                                   + "; " + "; ".join(f"`echo 1 > {path}`" for _, path, _ in off),
                                   device=device, port=port, source=off[0][2], key=prio, priority=prio)
        if unknown:
            yield self.unverified(f"DCQCN state not in the input for {', '.join(unknown)}", device=device, port=port,
                                  source=source)


@register
class NicRoceTos(Rule):
    """The host's default RoCE TOS (cma_roce_tos) is not a lossless DSCP, or lacks ECT when ECN is required.

    ## What it checks
    The IP TOS byte RDMA-CM connections use by default (`cma_roce_tos`): its DSCP (`tos >> 2`) is
    one of the policy's `lossless.dscp`, and, when `ecn.required`, its two ECN bits are ECT(0)
    (`10`) or ECT(1) (`01`) (RFC 3168, section 5). One finding per problem on the host. Skipped
    when the policy sets `nic.check_roce_tos: false`.

    ## Why it matters
    Switches classify RoCE by this DSCP: a wrong value puts every RDMA-CM connection in a lossy
    class. A switch marks congestion only on ECN-capable packets (ECT); Not-ECT packets are
    dropped by WRED instead, so DCQCN never sees a mark. Applications that set their own traffic
    class (NCCL_IB_TC, perftest --tclass) bypass this default and are not covered here.

    ## Failing example
    Policy DSCP 26, ECN required; `cma_roce_tos` is `104`:
    `cma_roce_tos 104 = DSCP 26 with ECN bits 00 (Not-ECT): the policy requires ECN but these packets
    are not ECN-capable ...`.

    ## Passing example
    `cma_roce_tos` `106` = DSCP 26 with ECN bits `10`, ECT(0).

    ## Fix
    `cma_roce_tos -d <rdma device> -t <tos>` with the value the message gives
    (DSCP << 2 | 2), persistently.
    """

    code = "NIC004"
    name = "nic-roce-tos"
    scope = "device"
    severity = Severity.warning
    fix_sections = frozenset({"tos"})

    def check_device(self, ctx, device):
        if device.kind != DeviceKind.host or not ctx.policy.nic.check_roce_tos:
            return
        tos = device.roce_tos
        if tos is None:
            yield self.unverified("the default RoCE TOS (cma_roce_tos) is not in the input; its DSCP and ECN bits "
                                  "could not be checked", device=device)
            return
        source = device.roce_tos_source or device.source
        dscp, ecn = tos >> 2, tos & 0b11
        lossless = ctx.policy.lossless.dscp
        good_dscp = dscp if dscp in lossless else lossless[0]
        good_ecn = 2 if ctx.policy.ecn.required and ecn not in ECT_CODEPOINTS else ecn
        what = f"cma_roce_tos {tos} = DSCP {dscp} with ECN bits {ecn:02b} ({ECN_LABEL[ecn]})"
        # MLNX_OFED cma_roce_tos: -d <rdma device> -t <tos byte>
        fix = f"run `cma_roce_tos -d <rdma device> -t {good_dscp << 2 | good_ecn}`"
        if dscp not in lossless:
            yield self.finding(f"{what}: DSCP {dscp} is not a lossless RoCE DSCP (policy: {numbers(lossless)}); {fix}",
                               device=device, source=source, key="dscp", tos=tos, dscp=dscp)
        if good_ecn != ecn:
            yield self.finding(f"{what}: the policy requires ECN but these packets are not ECN-capable, so congested "
                               f"switches drop instead of marking; use ECT(0) (10) or ECT(1) (01) (RFC 3168); {fix}",
                               device=device, source=source, key="ecn", tos=tos, ecn_bits=ecn)
