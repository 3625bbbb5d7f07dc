"""Turn what the reader found into ports with the QoS facts an Onyx running-config states.

Onyx classifies a packet to a switch priority (SP) by its trust level; PFC is enabled per priority and pauses
switch priorities; ECN and ETS are set per traffic class, the egress queue. In the model the SP is the TC (its PFC
priority is its own number) and Onyx's traffic class is the queue. The default DSCP/PCP -> SP and SP -> traffic
class maps come from a switch's own `show qos interface` (see DEFAULT_DSCP_SP); what RoCE mode applies, which queue a
received pause stops, the watchdog and the buffers are left unknown, so the rules say what they could not verify
instead of guessing.
"""

from __future__ import annotations

from ... import units
from ...model import (
    Device,
    DeviceKind,
    Ecn,
    ForwardingClass,
    ParseIssue,
    Port,
    Queue,
    Scheduler,
    SchedulerType,
    Source,
    Trust,
)
from ..clitext import Issues, Val, link_pause, routed_vlans
from .reader import ECN_UNREAD, PFC_UNREAD, TRUST_UNREAD, EcnConf, OnyxConfig, PortConf, RoceShown

# Onyx User Manual, Shared Buffer Commands: `traffic pool <name> type lossless | lossy | lossy-mc`, "Default: Lossy".
DEFAULT_POOL_TYPE = "lossy"

# Onyx User Manual, Quality of Service: trust port (the port's default priority), L2 (PCP, DEI), L3 (DSCP for IP
# packets), both (DSCP for IP packets, else PCP): RoCEv2 is IP, so both classifies it by DSCP.
TRUST = {"port": Trust.none, "L2": Trust.pcp, "L3": Trust.dscp, "both": Trust.dscp}
# Onyx User Manual, QoS Commands, `qos trust`: "Default: L2".
DEFAULT_TRUST = "L2"
# Onyx User Manual, PFC ("Provides per-priority enabling or disabling of flow control"; `dcb priority-flow-control
# priority <N> enable`) and `show roce` ("PFC: enabled, switch-priority 3: enabled"): PFC is set per switch priority,
# so SP n pauses as priority n.
SP_PRIORITY = {sp: sp for sp in range(8)}
SP_NAMES = {sp: f"switch-priority {sp}" for sp in range(8)}
# Onyx User Manual, RoCE Commands: lossy mode is "Congestion control based on ECN marking only. No PFC support."
NO_PFC_ROCE = "lossy"
# mellanox.onyx collection 895d3a20969f, tests/unit/modules/fixtures/show_qos_interface_ethernet.cfg (`show qos
# interface ethernet 1/1` of a switch whose maps the collection has no command to set): "PCP(DEI); DSCP to
# switch-priority mapping" DSCP 8n..8n+7 and PCP n (DEI 0 and 1) -> switch-priority n, and "switch-priority to
# PCP(DEI); DSCP; traffic-class" TC n; NVIDIA's community guide "Lossless RoCE Configuration for MLNX-OS Switches in
# DSCP-Based QoS Mode" (as att/netarbiter 0b51420a8df5 nvmf/RoCE_Deployment.md quotes it) agrees: DSCP 26 -> switch
# priority 3 and traffic class 3, DSCP 48 -> switch priority 6 "by default".
DEFAULT_DSCP_SP = {dscp: dscp // 8 for dscp in range(64)}
DEFAULT_PCP_SP = {pcp: pcp for pcp in range(8)}
DEFAULT_SP_TC = {sp: sp for sp in range(8)}
# the same output's "switch-priority to PCP(DEI); DSCP; traffic-class" rewrite table: switch-priority n -> DSCP 8n
DEFAULT_SP_DSCP = {sp: 8 * sp for sp in range(8)}


def build(cfg: OnyxConfig, platform: str, name: str, path: str) -> Device:
    host = cfg.hostname.value if cfg.hostname else cfg.header_name
    device = Device(name=host or name, kind=DeviceKind.switch, platform=platform, issues=list(cfg.issues),
                    source=cfg.hostname.source if cfg.hostname else Source(file=path))
    issues = Issues(device.issues)
    roce = cfg.roce if cfg.roce is not None and cfg.roce.value is not None else None
    shown = _shown(cfg, roce, issues)
    if roce is not None and shown is None:
        issues.append(ParseIssue(code="SYS004", source=roce.source, message=(
            f"RoCE mode {roce.value} (`roce`): the switch applies trust, PFC, ECN, buffer and classification map "
            "settings that the running-config does not print and the Onyx manual does not list (a capture's `show "
            "roce` shows some); where no line of this config sets them, they are unknown")))
    elif roce is not None:
        issues.append(ParseIssue(code="SYS004", source=roce.source, message=(
            f"RoCE mode {roce.value} (`roce`): its trust, PFC and scheduling are read from the capture's `show roce`; "
            "its ECN, buffer and classification map settings are not, and are unknown where no line of this config "
            "sets them")))
    if roce is not None and roce.value == NO_PFC_ROCE:  # a switch-wide lossy mode (model Device.lossy_mode)
        device.lossy_mode, device.lossy_mode_source = f"RoCE {NO_PFC_ROCE} mode (roce {NO_PFC_ROCE})", roce.source
    for pname, pc in cfg.ports.items():
        port = device.ports[pname] = _port(cfg, pname, pc, roce, shown, issues)
        # Onyx User Manual, "IP Routing Overview": a router port (`no switchport force`, then `ip address`), or a
        # member of a routed port-channel, routes untagged: Onyx has no dot1q subinterface. Else its VLANs are not read.
        port.vlans = routed_vlans(pc, cfg.port_channels.get(pc.channel_group or ""))
        # (Onyx's `show interfaces port-channel summary` and `show interfaces mlag-port-channel summary` name the
        # aggregates `Po1`, `Mpo1` beside their `Eth1/1` members)
        port.bundle = f"Po{pc.channel_group}" if pc.channel_group else f"Mpo{pc.mlag_group}" if pc.mlag_group else None
    device.forwarding_classes = _lossless_pools(cfg)
    return device


def _lossless_pools(cfg: OnyxConfig) -> list[ForwardingClass] | None:
    """The switch priorities a `traffic pool NAME type lossless` pool maps (`map switch-priority`), each a class the
    config defines lossless, pausing as its own priority (SP_PRIORITY), on the traffic class Onyx binds it to by
    default (DEFAULT_SP_TC; render does not write Onyx, so nothing picks a class by it). Onyx User Manual, Shared
    Buffers: the pools hold the buffer allocation that provides "lossless services" to their switch priorities; PFC
    ("Priority Flow Control (PFC)": disabled for all priorities on all ports by default) is not enabled by a pool but
    by the `dcb priority-flow-control` lines, as NVIDIA's DSCP-based lossless RoCE guide configures both. So a lossless
    pool is lossless intent (no PFC006), and a port that does not pause its priority is PFC001's, which names the
    pool and the PFC lines to add (_enable_pfc). None: no such pool."""
    out = [ForwardingClass(name=f"traffic pool {name} switch-priority {sp}", queue=DEFAULT_SP_TC[sp], no_loss=True,
                           pfc_priority=SP_PRIORITY[sp], source=pool.type.source if pool.type else line,
                           enable_pfc=_enable_pfc(cfg, SP_PRIORITY[sp]))
           for name, pool in cfg.pools.items()
           if (pool.type.value if pool.type else DEFAULT_POOL_TYPE) == "lossless"
           for sp, line in sorted(pool.sps.items())]
    return out or None


# The switch-wide PFC enable (Onyx User Manual, "Priority Flow Control (PFC)").
_PFC_SWITCH_WIDE = "`dcb priority-flow-control enable force`"


def _enable_pfc(cfg: OnyxConfig, priority: int) -> str:
    """The lines that pause ``priority`` (Onyx User Manual, "Priority Flow Control (PFC)": the switch-wide
    _PFC_SWITCH_WIDE, the priority's `dcb priority-flow-control priority N enable`, each port's `dcb
    priority-flow-control mode on force`), less the switch-wide ones the config has."""
    lines = [] if cfg.pfc_global is not None and cfg.pfc_global.value else [_PFC_SWITCH_WIDE]
    enabled = cfg.pfc_priorities.get(priority)
    if enabled is None or not enabled.value:
        lines.append(f"`dcb priority-flow-control priority {priority} enable`")
    lines.append("the port's `dcb priority-flow-control mode on force`")
    return ", ".join(lines[:-1]) + " and " + lines[-1] if len(lines) > 1 else lines[0]


def _shown(cfg: OnyxConfig, roce: Val | None, issues: Issues) -> RoceShown | None:
    """A capture's `show roce`, used where RoCE mode leaves the running-config silent; only when it names the mode
    the running-config's `roce` line sets (the device states what the mode applies)."""
    shown = cfg.shown
    if shown is None or shown.mode is None or roce is None:
        return None
    if shown.mode.value != roce.value:
        issues.append(ParseIssue(code="SYS002", source=shown.mode.source, message=(
            f"`show roce` says RoCE mode {shown.mode.value}, the running-config's `roce` line {roce.value} (line "
            f"{roce.source.line}): the two were not taken together, so `show roce` is not used")))
        return None
    return shown


def _port(cfg: OnyxConfig, name: str, pc: PortConf, roce: Val | None, shown: RoceShown | None,
          issues: Issues) -> Port:
    port = Port(name=name, description=pc.description, source=pc.source, qos_configured=pc.qos or roce is not None,
                admin_up=pc.admin_up.value if pc.admin_up else None,
                speed_gbps=pc.speed.value if pc.speed else None)
    # mellanox.onyx 895d3a20969f onyx_interface: `mtu N` reads back as "MTU": "N bytes(Maximum packet size N+22 bytes)"
    # (its fixtures: 1500 and 1522), so N is the IP MTU; the frame adds the Ethernet header, a VLAN tag and the FCS.
    port.mtu_bytes = pc.mtu.value if pc.mtu else None
    _trust(cfg, pc, port, roce, shown)
    port.tc_names, port.tc_to_priority = SP_NAMES, SP_PRIORITY
    _maps(cfg, pc, port, roce)
    _bound(pc, port, roce, issues)
    if pc.rewrite_dscp is not None and pc.rewrite_dscp.value:
        # `qos rewrite dscp` remarks the DSCP from the switch priority: by the default map where the maps are the
        # defaults, else by a map the input does not show (model: every TC rewritten to a value not shown).
        known = roce is None and not pc.maps_unread and not cfg.qos_unread
        port.tc_to_dscp_rewrite = dict(DEFAULT_SP_DSCP) if known else {}
    _pfc(cfg, pc, port, roce, shown, issues)
    _queues(cfg, pc, port, shown)
    port.link_pause = link_pause(pc, None)  # (reader's `flowcontrol send|receive` lines; no source gives the default)
    return port


def _trust(cfg: OnyxConfig, pc: PortConf, port: Port, roce: Val | None, shown: RoceShown | None) -> None:
    if pc.trust is not None and pc.trust.value == TRUST_UNREAD:  # its line was not read (a SYS002 says why)
        port.trust_source = pc.trust.source
    elif pc.trust is None and cfg.trust_unread is not None:  # a global line naming trust was not read: unknown
        port.trust_source = cfg.trust_unread
    elif pc.trust is not None and pc.trust.value is not None:
        port.trust, port.trust_source = TRUST[pc.trust.value], pc.trust.source
    elif roce is None:
        port.trust = TRUST[DEFAULT_TRUST]
        port.trust_source = pc.trust.source if pc.trust is not None else pc.source
    elif shown is not None and shown.trust is not None:  # RoCE mode's own trust, as `show roce` prints it
        port.trust, port.trust_source = TRUST[shown.trust.value], shown.trust.source
    # (else RoCE mode sets a trust the manual does not state: unknown)


def _maps(cfg: OnyxConfig, pc: PortConf, port: Port, roce: Val | None) -> None:
    """The default DSCP (trust L3, both) or PCP (trust L2) -> switch priority map. Unknown in RoCE mode (what it sets
    is not stated) and where a `qos` line losslessd does not read (a map command?) may have changed it."""
    if roce is not None or pc.maps_unread or cfg.qos_unread:
        return
    if port.trust == Trust.dscp:
        port.dscp_to_tc, port.dscp_defaulted = dict(DEFAULT_DSCP_SP), sorted(DEFAULT_DSCP_SP)
    elif port.trust == Trust.pcp:
        port.pcp_to_tc = dict(DEFAULT_PCP_SP)


def _bound(pc: PortConf, port: Port, roce: Val | None, issues: Issues) -> None:
    """The switch priority -> traffic class (egress queue) map: the default, with the port's `traffic-class N bind
    switch-priority` lines on top. In RoCE mode (whose map is not stated) only where the lines bind all eight switch
    priorities (a map the model holds is complete: a missing key has no entry); a `no` form makes it unknown."""
    bound = {sp: val.value for sp, val in pc.sp_tc.items()}
    merged = {**(DEFAULT_SP_TC if roce is None else {}), **bound}
    if len(merged) == len(SP_PRIORITY) and None not in merged.values():
        port.tc_to_queue = {sp: tc for sp, tc in sorted(merged.items()) if tc is not None}
        if pc.sp_tc:
            port.map_source = port.map_source or min((v.source for v in pc.sp_tc.values()), key=lambda s: s.line or 0)
    elif pc.sp_tc and None not in bound.values():
        first = min((val.source for val in pc.sp_tc.values()), key=lambda s: s.line or 0)
        issues.add_once(ParseIssue(code="SYS004", source=first, message=(
            "`traffic-class N bind switch-priority` lines bind only some switch priorities of a port in RoCE mode: "
            "the traffic class RoCE mode gives the others is not stated, so the port's switch-priority -> "
            "traffic-class map (its egress queues) is unknown")))


def _pfc(cfg: OnyxConfig, pc: PortConf, port: Port, roce: Val | None, shown: RoceShown | None,
         issues: Issues) -> None:
    """Onyx User Manual, PFC: flow control is disabled for all priorities on all ports by default; it takes the
    global `dcb priority-flow-control enable`, the priorities enabled globally, and the port's `dcb
    priority-flow-control mode on`."""
    mode = pc.pfc_mode
    if roce is not None and roce.value == NO_PFC_ROCE:  # the switch's lossy mode decides, not a setting of the port
        port.pfc_enabled, port.pfc_source, port.lossy_mode = [], roce.source, True
        return
    if mode is not None and mode.value == PFC_UNREAD:  # its line was not read (a SYS002 says why)
        port.pfc_source = mode.source
        return
    if mode is not None and mode.value == "auto":
        issues.add_once(ParseIssue(code="SYS002", source=mode.source, message=(
            "PFC mode auto: the port takes its PFC priorities from its DCBX peer at run time, which the "
            "running-config does not show, so whether PFC is on is unknown")))
        port.pfc_source = mode.source
        return
    on = cfg.pfc_global is not None and cfg.pfc_global.value
    listed = sorted(p for p, val in cfg.pfc_priorities.items() if val.value)
    if mode is not None and mode.value == "off":
        port.pfc_enabled, port.pfc_source, port.pfc_off_written = [], mode.source, True
    elif roce is not None and (mode is None or cfg.pfc_global is None):
        if shown is not None and shown.pfc is not None:  # what RoCE mode enables, as `show roce` prints it
            port.pfc_enabled = sorted(sp for sp, val in shown.sps.items() if val.value) if shown.pfc.value else []
            port.pfc_source = shown.pfc.source
        else:
            port.pfc_source = roce.source  # what the RoCE mode enables is not stated (build's SYS004)
    elif cfg.pfc_global is not None and not on:  # `no dcb priority-flow-control enable`
        # An explicit off (PFC006's) only where nothing lossless is written beside it: a port `mode on` or an
        # enabled priority with the switch-wide enable off is PFC written without effect (PFC001 per port).
        port.pfc_enabled, port.pfc_source = [], cfg.pfc_global.source
        port.pfc_off_written = not listed and (mode is None or mode.value != "on")
        _switch_missing(port, mode, listed)
    elif cfg.pfc_unread is not None:  # a global PFC line not read (a SYS002 names it): what is paused is unknown
        port.pfc_source = cfg.pfc_unread
    elif mode is None:
        # The port's own mode not written: off when PFC was never enabled on the switch or no priority is; else
        # unknown, the port's default mode not being stated in the pages read.
        port.pfc_source = cfg.pfc_global.source if cfg.pfc_global is not None else None
        if not on or not listed:
            port.pfc_enabled = []
    elif not on:  # `mode on` without the global enable: PFC is off on the switch
        port.pfc_enabled, port.pfc_source = [], mode.source
        _switch_missing(port, mode, listed)
    else:
        port.pfc_enabled, port.pfc_source = listed, mode.source


def _switch_missing(port: Port, mode: Val | None, listed: list[int]) -> None:
    """A port `mode on` beside enabled priorities, the switch-wide enable off or not written: PFC001 asks for that
    line (Port.pfc_switch), not for the priorities the config already enables."""
    if listed and mode is not None and mode.value == "on":
        port.pfc_declared, port.pfc_switch = listed, f"{_PFC_SWITCH_WIDE} (switch-wide)"


def _queues(cfg: OnyxConfig, pc: PortConf, port: Port, shown: RoceShown | None) -> None:
    """ECN and ETS per traffic class: the port's lines, else (ETS) what RoCE mode applies as `show roce` prints it;
    a traffic class's marking no port line writes is unknown where a global line naming ECN was not read."""
    ets = {**(shown.ets if shown is not None else {}), **pc.ets}
    unread = {tc: Val(ECN_UNREAD, cfg.ecn_unread) for tc in range(8)} if cfg.ecn_unread is not None else {}
    ecns = {**unread, **pc.ecn}
    for tc in sorted(set(ecns) | set(ets)):
        ecn_val, ets_val = ecns.get(tc), ets.get(tc)
        ecn = _ecn(ecn_val) if ecn_val is not None else None
        sched = None
        if ets_val is not None:
            kind, weight = ets_val.value
            sched = Scheduler(type=SchedulerType.strict if kind == "strict" else SchedulerType.wrr, weight=weight,
                              source=ets_val.source)
        first = min((v.source for v in (ecn_val, ets_val) if v is not None), key=lambda s: s.line or 0)
        port.queues[tc] = Queue(index=tc, ecn=ecn, scheduler=sched, source=first)


def _ecn(val: Val) -> Ecn:
    if val.value == ECN_UNREAD:  # its line was not read (a SYS002 says why)
        return Ecn(ecn_enabled=None, source=val.source)
    conf: EcnConf | None = val.value
    if conf is None or conf.kind == "red":  # `no ... congestion-control`, or RED: drops, never marks
        return Ecn(ecn_enabled=False, source=val.source)
    if conf.relative:
        return Ecn(ecn_enabled=True, source=val.source, unconverted=(
            f"minimum-relative {conf.kmin} maximum-relative {conf.kmax} (percent of the queue's buffer, unverified)"))
    return Ecn(ecn_enabled=True, min_threshold_bytes=units.to_bytes(f"{conf.kmin} KB"),
               max_threshold_bytes=units.to_bytes(f"{conf.kmax} KB"), source=val.source)
