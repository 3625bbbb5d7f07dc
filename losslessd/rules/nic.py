"""NIC: host adapters (mlx5) agree with the switches: PFC priorities, trust, DCQCN and the RoCE TOS."""

from __future__ import annotations

from collections.abc import Iterator

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import PortRule, Rule, register
from ..model import Device, DeviceKind, Port
from ..units import is_small_int
from .common import dcqcn_elsewhere, nic_pfc_fix, nic_trust_fix, numbers, pause_on, priorities, trust_findings

# RFC 3168 section 5: the ECN field is the low two bits of the TOS byte; 01 = ECT(1), 10 = ECT(0).
ECT_CODEPOINTS = {1: "ECT(1)", 2: "ECT(0)"}
ECN_LABEL = {0: "Not-ECT", 3: "CE", **ECT_CODEPOINTS}


class _NicRule(PortRule):
    device_kind = DeviceKind.host


class _TosRule(Rule):
    """A host-wide check of the traffic class RoCE leaves with, switched on by a `policy.nic` flag."""

    scope = "device"
    group = "device"
    fix_sections = frozenset({"tos"})
    kinds = frozenset({DeviceKind.host})
    policy_flag = ""

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        if getattr(ctx.policy.nic, self.policy_flag):
            yield from self.check_host(ctx, device)

    def check_host(self, ctx: Context, device: Device) -> Iterator[Finding]:
        raise NotImplementedError


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
    persistent in the host's provisioning. A host read from iproute2 `dcb` output (a NIC without
    mlnx_qos) gets `dcb pfc set dev IF prio-pfc 0:off ... 3:on ...` (dcb-pfc(8)) instead.
    """

    code = "NIC001"
    name = "nic-pfc-mismatch"
    severity = Severity.error
    fix_sections = frozenset({"pfc"})
    disruptive = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        lossless = set(ctx.lossless)
        source = port.pfc_source or port.source
        if port.pfc_enabled is None:
            yield self.unverified(f"the NIC's PFC priorities are not in the input; policy lossless "
                                  f"{priorities(lossless)} could not be checked",
                                  device=device, port=port, source=source)
            return
        enabled = set(port.pfc_enabled)
        fix = f"run {nic_pfc_fix(port.name, port.dcb_tool, lossless)}"
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
    `mlnx_qos -i <interface> --trust dscp` (or the policy's mode), persistently. A host read from
    iproute2 `dcb` output trusts DSCP while its app table holds DSCP entries: `dcb app replace dev
    IF dscp-prio DSCP:PRIORITY` (dcb-app(8)); `dcb app flush dev IF dscp-prio` for PCP.
    """

    code = "NIC002"
    name = "nic-trust-mismatch"
    severity = Severity.error
    fix_sections = frozenset({"trust"})
    disruptive = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        wanted = ctx.policy.nic.trust
        if wanted is not None:
            yield from trust_findings(self, ctx.policy.name, wanted, device, port,
                                      f"run {nic_trust_fix(port.name, port.dcb_tool, wanted)}")


@register
class NicEcnDisabled(_NicRule):
    """DCQCN notification point or reaction point is off on a lossless priority of the NIC.

    ## What it checks
    On every NIC port and lossless priority: the notification point (NP, turns ECN marks into
    CNPs) is on when the policy's `nic.ecn_np` is true, and the reaction point (RP, slows the
    sender down on CNPs) is on when `nic.ecn_rp` is true. One finding per port and priority;
    priorities the capture does not show are reported once per port as unverified. The switches
    read are mlx5's sysfs `ecn/roce_np`, `ecn/roce_rp` files; a NIC read with iproute2 dcb that has
    none (Intel ice with irdma, Broadcom bnxt_en with bnxt_re: `ethtool -i` names the driver) sets
    DCQCN its own way, which one unverified finding per port names (irdma's configfs
    `roce_dcqcn_enable`, bnxt_re's congestion control).

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

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
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
        elsewhere = dcqcn_elsewhere(port) if unknown else None
        if elsewhere:  # (one word for the port, not one per mlx5 file it does not have)
            yield self.unverified(f"could not verify DCQCN on lossless {priorities(ctx.lossless)}: the NIC has no mlx5 "
                                  f"ecn/roce_np, roce_rp files; its DCQCN is set with {elsewhere}, which the input "
                                  "does not show", device=device, port=port, source=source)
        elif unknown:
            yield self.unverified(f"DCQCN state not in the input for {', '.join(unknown)}", device=device, port=port,
                                  source=source)


def tos_problems(ctx, tos: int, what: str, set_it: str) -> list[tuple[str, str, dict]]:
    """(key, message, data) for a TOS byte / traffic class that is not a lossless DSCP or, with ECN required,
    not ECN-capable (RFC 3168 section 5: the ECN field is the two low bits; 10 = ECT(0), 01 = ECT(1))."""
    dscp, ecn = tos >> 2, tos & 0b11
    lossless = ctx.policy.lossless.dscp
    good_dscp = dscp if dscp in lossless else lossless[0]
    good_ecn = 2 if ctx.policy.ecn.required and ecn not in ECT_CODEPOINTS else ecn
    head = f"{what} {tos} = DSCP {dscp} with ECN bits {ecn:02b} ({ECN_LABEL[ecn]})"
    fix = set_it.format(good_dscp << 2 | good_ecn)
    out = []
    if dscp not in lossless:
        out.append(("dscp", f"{head}: DSCP {dscp} is not a lossless RoCE DSCP (policy: {numbers(lossless)}); {fix}",
                     {"tos": tos, "dscp": dscp}))
    if good_ecn != ecn:
        out.append(("ecn", f"{head}: the policy requires ECN but these packets are not ECN-capable, so congested "
                           f"switches drop instead of marking; use ECT(0) (10) or ECT(1) (01) (RFC 3168); {fix}",
                    {"tos": tos, "ecn_bits": ecn}))
    return out


@register
class NicRoceTos(_TosRule):
    """RDMA-CM's default TOS (cma_roce_tos) is not a lossless DSCP, or lacks ECT when ECN is required.

    ## What it checks
    The IP TOS byte RDMA-CM connections use by default (`cma_roce_tos`): its DSCP (`tos >> 2`) is
    one of the policy's `lossless.dscp`, and, when `ecn.required`, its two ECN bits are ECT(0)
    (`10`) or ECT(1) (`01`) (RFC 3168, section 5). One finding per problem on the host. Skipped
    when the policy sets `nic.check_roce_tos: false`, and when the RDMA device's own traffic class
    (`/sys/class/infiniband/<dev>/tc/<port>/traffic_class`) is set: that one governs every QP of the
    device, RDMA-CM's or not, and NIC006 checks it.

    ## Why it matters
    RDMA-CM applications (perftest with `-R`, MPI over rdmacm, NVMe-oF, SMB Direct) send with this
    TOS, and switches classify them by its DSCP: a wrong value puts every RDMA-CM connection in a lossy
    class. A switch marks congestion only on ECN-capable packets (ECT); Not-ECT packets are dropped by
    WRED instead, so DCQCN never sees a mark. NCCL does not use RDMA-CM: it sets the traffic class of
    its QPs from `NCCL_IB_TC` (default 0), which this value does not change (NIC006).

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
    severity = Severity.warning
    policy_flag = "check_roce_tos"

    def check_host(self, ctx: Context, device: Device) -> Iterator[Finding]:
        if device.rdma_traffic_class is not None:
            return  # overridden by the device's traffic class (NIC006)
        tos = device.roce_tos
        if tos is None:
            yield self.unverified("RDMA-CM's default TOS (cma_roce_tos) is not in the input; its DSCP and ECN bits "
                                  "could not be checked", device=device)
            return
        source = device.roce_tos_source or device.source
        # MLNX_OFED cma_roce_tos: -d <rdma device> -t <tos byte>
        for key, message, data in tos_problems(ctx, tos, "cma_roce_tos",
                                               "run `cma_roce_tos -d <rdma device> -t {0}`"):
            yield self.finding(message, device=device, source=source, key=key, **data)


@register
class NicGlobalPause(_NicRule):
    """Link-level (IEEE 802.3x) pause is on beside PFC on a NIC port.

    ## What it checks
    On every NIC port with PFC on for some priority, `ethtool -a` shows RX and TX pause (802.3x, the
    pause of the whole link) off. One finding per port; a port whose pause state the input does not
    show is reported as unverified.

    ## Why it matters
    802.3x pause stops every priority at once, lossy traffic and CNPs included, and IEEE 802.1Qbb makes
    PFC and link-level pause exclusive on a link. The mlx5 driver treats every receive buffer as lossless
    while global pause is on (port_buffer.c fill_pfc_en: "If global pause enabled, set all active buffers
    to lossless"), so the lossless priority no longer has its own buffer and the NIC pauses the switch
    for any traffic.

    ## Failing example
    `ethtool -a enp65s0f0np0` prints `RX: on`, `TX: on` while `mlnx_qos` shows PFC on priority 3:
    `link-level (802.3x) pause is on (RX on, TX on) beside PFC on priority 3 ...`.

    ## Passing example
    `Autonegotiate: off`, `RX: off`, `TX: off`.

    ## Fix
    `ethtool -A <interface> autoneg off rx off tx off` (the mlx5 driver refuses pause autonegotiation),
    persistently.
    """

    code = "NIC005"
    name = "nic-global-pause"
    severity = Severity.error
    fix_sections = frozenset({"pfc"})
    disruptive = True

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        if not port.pfc_enabled:
            return  # PFC off (NIC001's) or unknown: nothing to sit beside
        pause = port.link_pause
        if pause is None or (pause.rx is None and pause.tx is None):
            yield self.unverified(f"the port's link-level (802.3x) pause state is not in the input (`ethtool -a "
                                  f"{port.name}`)", device=device, port=port)
            return
        state = pause_on(pause)
        if state is None:
            return
        yield self.finding(f"link-level (802.3x) pause is on ({state}) beside PFC on priority "
                           f"{numbers(port.pfc_enabled)}: it pauses every priority at once, and the mlx5 driver then "
                           f"treats every receive buffer as lossless; run `ethtool -A {port.name} autoneg off rx off "
                           f"tx off`", device=device, port=port, source=pause.source or port.source,
                           rx=pause.rx, tx=pause.tx)


# NCCL reads NCCL_IB_TC for the traffic class of its InfiniBand/RoCE QPs; unset, it is 0 (NCCL environment
# variables documentation, NCCL_IB_TC "Default value is 0").
NCCL_DEFAULT_TC = 0


@register
class RoceTrafficClass(_TosRule):
    """The traffic class RoCE traffic really leaves the host with is not the policy's lossless one.

    ## What it checks
    On every host, the traffic class (TOS byte: DSCP << 2 | ECN) that its RDMA traffic is sent with:
    - the RDMA device's own `/sys/class/infiniband/<dev>/tc/<port>/traffic_class` (MLNX_OFED), when
      set: it overrides what every application asks for, so it alone is checked;
    - else NCCL's: `NCCL_IB_TC` from `/etc/nccl.conf`, NCCL's default 0 when the file does not set
      it (a warning: a job's own environment may set it);
    - (RDMA-CM's `cma_roce_tos` is NIC004's.)
    Its DSCP must be one of `lossless.dscp`, and with `ecn.required` its ECN bits ECT(0) or ECT(1)
    (RFC 3168). When neither the traffic class nor NCCL's settings are in the input, the host is
    reported as unverified. Skipped with `nic.check_traffic_class: false`.

    ## Why it matters
    NCCL, the collective library of GPU clusters, does not use RDMA-CM: `cma_roce_tos` does not reach
    it. With `NCCL_IB_TC` unset it sends DSCP 0, which the switches put in a lossy class (no PFC, no
    ECN): under congestion its packets are dropped and go-back-N retransmission collapses throughput,
    while every switch and NIC setting looks right.

    ## Failing example
    `/etc/nccl.conf` without `NCCL_IB_TC`: `NCCL sends with traffic class 0 (NCCL's default; /etc/nccl.conf
    sets no NCCL_IB_TC) = DSCP 0 ...: DSCP 0 is not a lossless RoCE DSCP (policy: 26)`.

    ## Passing example
    `NCCL_IB_TC=106` (DSCP 26, ECT(0)), or the device's `traffic_class` set to 106.

    ## Fix
    Set the device's traffic class (`echo 106 > /sys/class/infiniband/<dev>/tc/1/traffic_class`, what
    `losslessd render` writes) or `NCCL_IB_TC=106` in /etc/nccl.conf and every job's environment.
    """

    code = "NIC006"
    name = "roce-traffic-class"
    severity = Severity.error
    policy_flag = "check_traffic_class"

    def check_host(self, ctx: Context, device: Device) -> Iterator[Finding]:
        set_tc = "run `echo {0} > /sys/class/infiniband/<rdma device>/tc/1/traffic_class`"
        # (MLNX_OFED's file: a host whose NICs have no mlx5 sysfs, Port.mlx5_ecn, has none; NCCL_IB_TC is its way)
        ofed = device.rdma_traffic_class_source is not None or any(p.mlx5_ecn() for p in device.ports.values())
        if device.rdma_traffic_class is not None:
            for key, message, data in tos_problems(ctx, device.rdma_traffic_class, "the RDMA device's traffic_class",
                                                   set_tc):
                yield self.finding(message + " (it overrides every application's traffic class)", device=device,
                                   source=device.rdma_traffic_class_source or device.source, key=key, **data)
            return
        env = device.nccl_env
        if env is None:
            why = ("is not set (the RDMA device's traffic_class is empty) and " if device.rdma_traffic_class_source
                   else "")
            files = "/sys/class/infiniband/<dev>/tc/1/traffic_class and /etc/nccl.conf" if ofed else "/etc/nccl.conf"
            yield self.unverified(f"the traffic class RoCE traffic leaves with {why}is not in the input: capture "
                                  f"{files} (NCCL takes NCCL_IB_TC, default 0, not cma_roce_tos)", device=device)
            return
        source = device.nccl_env_source or device.source
        raw = env.get("NCCL_IB_TC")
        if raw is None:
            what = "NCCL sends with traffic class 0 (NCCL's default; /etc/nccl.conf sets no NCCL_IB_TC)"
            fix = set_tc + " or set NCCL_IB_TC={0}" if ofed else "set NCCL_IB_TC={0}"
            for key, message, data in tos_problems(ctx, NCCL_DEFAULT_TC, what, fix):
                yield self.finding(message.replace(f"{what} 0 =", f"{what} =") + "; unless every job sets "
                                   "NCCL_IB_TC itself", device=device, source=source, key=key,
                                   severity=Severity.warning, **data)
            return
        if not is_small_int(raw, 3) or int(raw) > 255:
            yield self.finding(f"NCCL_IB_TC={raw!r} in /etc/nccl.conf is not a traffic class 0-255", device=device,
                               source=source, key="value")
            return
        fix = "set NCCL_IB_TC={0} (or " + set_tc.replace("run ", "") + ")" if ofed else "set NCCL_IB_TC={0}"
        for key, message, data in tos_problems(ctx, int(raw), "NCCL_IB_TC", fix):
            yield self.finding(message, device=device, source=source, key=key, **data)


@register
class DcqcnParamsInconsistent(Rule):
    """DCQCN reaction/notification point parameters differ between hosts, or from the policy's values.

    ## What it checks
    Across every NIC port linted together, each DCQCN parameter the NICs report (sysfs
    `/sys/class/net/<if>/ecn/roce_rp/<name>`: rpg_time_reset, rpg_byte_reset, rpg_ai_rate, rpg_hai_rate,
    rpg_min_rate, rate_reduce_monitor_period, initial_alpha_value, dce_tcp_g ...; `ecn/roce_np/<name>`:
    min_time_between_cnps ...) has one value. Where the policy names a value (`nic.dcqcn: {name: value}`,
    `roce_rp/` or `roce_np/` prefix optional) every port must have it (error); otherwise a port whose value
    differs from the one most ports have is a warning. One finding per port, listing its differing
    parameters. Ports that report no parameters while others do are unverified.

    ## Why it matters
    DCQCN is a distributed control loop: every sender must cut and recover its rate by the same rules for
    the flows sharing a bottleneck to converge to fair shares. A host with a faster recovery (rpg_ai_rate,
    rpg_time_reset) or a longer CNP spacing (min_time_between_cnps) takes bandwidth from the others,
    keeps queues long and drives the fabric into PFC; a firmware default that changed between NIC
    generations does this silently.

    ## Failing example
    Seven hosts with `roce_rp/rpg_time_reset 300`, one with `600`: `DCQCN roce_rp/rpg_time_reset is 600 here,
    300 on the other 7 NIC port(s)`.

    ## Passing example
    The same value on every host, or the value the policy names.

    ## Fix
    Write the majority's (or the policy's) value to the sysfs file the message names on the odd hosts,
    persistently (e.g. in the host setup script, or with mlxconfig for firmware defaults).
    """

    code = "NIC007"
    name = "dcqcn-params-inconsistent"
    scope = "fabric"
    kinds = frozenset({DeviceKind.host})  # (a fabric rule: the devices it reads, for Coverage)
    severity = Severity.warning

    def device_facts(self, ctx: Context, device: Device) -> list[tuple] | None:
        """Per RoCE-facing NIC port of a host: (port, {parameter: value} with roce_rp/ and roce_np/ names, source)."""
        if device.kind != DeviceKind.host:
            return None
        out = []
        known = ctx.memo(_params_by_tables)
        for port in ctx.roce_ports(device):
            if dcqcn_elsewhere(port):
                continue  # (no mlx5 parameters to compare: NIC003 says where its DCQCN is set)
            ecn = port.nic_ecn
            tables = (ecn.rp_params, ecn.np_params) if ecn else ({}, {})
            # (the names made once per content of the two tables: a fleet's 16,000 hosts report a few)
            items = (tuple(tables[0].items()), tuple(tables[1].items()))
            params = known.get(items)
            if params is None:
                params = {f"{point}/{name}": value for point, table in zip(("roce_rp", "roce_np"), tables, strict=True)
                          for name, value in table.items()}
                # (hosts from one image report the same parameters: one dict for all of them, see check)
                params = known[items] = ctx.alike(params, (self.code, *params.items()))
            out.append((port.name, params, (ecn.params_source if ecn else None) or port.source))
        return out

    def check(self, ctx: Context) -> Iterator[Finding]:
        ports: list[tuple] = []  # (device, port name, source, parameters)
        # id(parameters) -> [parameters, NIC ports reporting them]: ports that share one dict (device_facts gives the
        # hosts that report the same parameters one) are counted, and compared below, at once
        shared: dict[int, list] = {}
        for device in ctx.of_kinds(self.kinds):  # (the hosts: device_facts says nothing of another device)
            for port, params, source in ctx.device_facts(self, device) or ():
                ports.append((device, port, source, params))
                same = shared.get(id(params))
                if same is None:
                    shared[id(params)] = [params, 1]
                else:
                    same[1] += 1
        counts: dict[str, dict[int, int]] = {}  # parameter -> value -> NIC ports with it (thousands of hosts: counted)
        reporting = 0
        for params, n in shared.values():
            reporting += n if params else 0
            for name, value in params.items():
                seen = counts.setdefault(name, {})
                seen[value] = seen.get(value, 0) + n
        pinned = {}
        for name, value in ctx.policy.nic.dcqcn.items():
            full = [k for k in counts if k == name or k.split("/", 1)[1] == name]
            for key in full or [name if "/" in name else f"roce_rp/{name}"]:
                pinned[key] = value
        if not counts:
            return
        expected = {name: pinned.get(name, _majority(seen)) for name, seen in counts.items()}
        differ = {ident: {name: value for name, value in params.items() if value != expected[name]}
                  for ident, (params, _) in shared.items()}
        for device, port, source, params in ports:
            if not params:
                yield self.unverified(f"DCQCN parameters (/sys/class/net/{port}/ecn/roce_rp/*, roce_np/*) not in "
                                      f"the input, while {reporting} other NIC port(s) report them", device=device,
                                      port=port, source=source)
                continue
            wrong = differ[id(params)]
            if not wrong:
                continue
            policy_side = [n for n in wrong if n in pinned]
            parts = []
            for name, value in sorted(wrong.items()):
                if name in pinned:
                    parts.append(f"{name} is {value} here, the policy's nic.dcqcn says {pinned[name]}")
                else:
                    others = counts[name].get(expected[name], 0)
                    parts.append(f"{name} is {value} here, {expected[name]} on the other {others} NIC port(s)")
            fix = "; ".join(f"`echo {expected[n]} > /sys/class/net/{port}/ecn/{n}`" for n in sorted(wrong))
            yield self.finding(f"DCQCN {'; '.join(parts)}; {fix}", device=device, port=port, source=source,
                               key="dcqcn", severity=Severity.error if policy_side else None,
                               params={n: (wrong[n], expected[n]) for n in sorted(wrong)},
                               devices=[device.name])


def _params_by_tables(ctx: Context) -> dict[tuple, dict]:
    """Per run: a NIC's (rp, np) parameter items -> NIC007's dict of them (DcqcnParamsInconsistent.device_facts)."""
    return {}


def _majority(counts: dict[int, int]) -> int:
    """The value most ports have (value -> ports); the smaller one on a tie (a stable choice, no host preferred)."""
    return min(counts, key=lambda v: (-counts[v], v))
