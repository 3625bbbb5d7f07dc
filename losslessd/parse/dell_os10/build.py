"""Turn what the reader found into the model: the maps and policies each port uses, its own binding first, then
`system qos`'s (OS10 User Guide, "Quality of service": an interface-level map or policy takes precedence over the
system-level one, which takes precedence over the default).

The traffic class is the qos-group. Its egress queue comes from the bound `qos-map traffic-class` (else the default
map, qos-group N -> queue N); its PFC priority is the `pfc-cos` of the no-drop network-qos class that matches it; a
pause received for that priority stops the class's queue.
"""

from __future__ import annotations

import dataclasses

from ...model import (
    BufferProfile,
    Device,
    DeviceKind,
    Ecn,
    ParseIssue,
    Port,
    PriorityGroup,
    Queue,
    Scheduler,
    SchedulerType,
    Source,
    Trust,
)
from ..base import unknown_queues
from ..clitext import Issues, Val, link_pause, routed_vlans, untagged_only
from .reader import BINDING_UNREAD, WRED_UNREAD, InterfaceConf, NqClass, Os10Config, QueueConf, threshold_bytes

QUEUES = range(8)
QOS_GROUP_NAMES = {group: f"qos-group {group}" for group in QUEUES}  # what OS10 calls its traffic classes
# OS10 User Guide, "Egress traffic classification", table "Default mapping of traffic class ID to queue": traffic
# class (qos-group) N -> queue N, 0-7.
DEFAULT_QUEUE_MAP = {group: group for group in QUEUES}
# OS10 User Guide, "Ingress traffic classification": by default OS10 does not classify data traffic and assigns it
# traffic class ID 0.
DEFAULT_TC = 0
# OS10 User Guide, "Trust based classification", table "Default 802.1p CoS trust map" (`trust-map dot1p default`):
# CoS 0 -> traffic class 1, CoS 1 -> 0, CoS 2-7 -> 2-7.
DEFAULT_DOT1P_MAP = {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
# OS10 User Guide, "Trust based classification": in a user-defined trust map, every value the map does not name maps
# to the default traffic class ID 0.
UNNAMED_TC = 0
# OS10 User Guide, `mtu`: "the IP MTU must be at least 32 bytes smaller than the L2 MTU" (the default link MTU is 1532
# for the 1500-byte IP MTU): the model's mtu_bytes is the IP MTU.
LINK_MTU_OVERHEAD = 32
# WRED colour the trust maps give classified traffic (OS10 User Guide, default trust maps: colour G).
GREEN = "green"


def build(cfg: Os10Config, platform: str, name: str, path: str) -> Device:
    device = Device(name=cfg.hostname or name, kind=DeviceKind.switch, platform=platform,
                    issues=list(cfg.issues), source=Source(file=path))
    issues = Issues(device.issues)
    for channel in cfg.port_channels.values():
        _port_channel_qos(channel, issues)
    for port_name, iface in cfg.interfaces.items():
        bundle = iface.channel_group.value if iface.channel_group is not None else None
        lag = cfg.port_channels.get(bundle) if bundle is not None else None
        port = device.ports[port_name] = _port(cfg, device, port_name, _member(iface, lag), issues)
        # OS10 User Guide, "Port-channel interfaces": `channel-group N mode on|active|passive` makes the port a member
        # of `interface port-channelN`
        port.bundle = f"port-channel{bundle}" if bundle is not None else None
        # OS10 User Guide, "Layer 3 > IPv4 routing": an L3 port is one taken out of L2 mode with `no switchport`
        # (an L2 port switches untagged or tagged VLANs: `switchport access|trunk`, its VLANs not read here). A member
        # of a routed port-channel routes with it (OS10 User Guide, "Port-channel interfaces").
        # A routed port with a subinterface, or in a port-channel with one, sends that subinterface's frames tagged
        # (OS10 User Guide, "Layer 3 > Subinterfaces": `encapsulation dot1q`): its VLANs are not read.
        tagged = {port_name, f"port-channel{bundle}"}
        port.vlans = routed_vlans(iface, lag, bool(tagged & cfg.tagged_parents))
        # OS10 User Guide, "VLANs": an access port sends its one VLAN untagged (a trunk's untagged VLAN is its access
        # VLAN and its tagged ones the allowed list, which no OS10 page read says the default of: not decided here)
        port.untagged_only = untagged_only(iface, lag, native_trunks=False)
    device.unbound_marking = _unbound_marking(cfg)
    return device


def _unbound_marking(cfg: Os10Config) -> dict[str, Source] | None:
    """The `wred` profiles with `random-detect ecn` that no `policy-map type queuing` class names (`random-detect
    NAME`; OS10 User Guide, "WRED/ECN": a profile marks on the queues whose class binds it), each at its `wred` line.
    None where there is none, or where a class's `random-detect` line was not read (it may name one). A profile a
    port or port-channel names (`random-detect NAME` in interface mode, "WRED": on the port's queues) is bound."""
    named = {conf.wred.value for classes in cfg.queuing_policies.values() for conf in classes.values()
             if conf.wred is not None}
    named.update(word for iface in (*cfg.interfaces.values(), *cfg.port_channels.values())
                 if iface.wred_unread is not None for word in iface.wred_unread.value)
    if WRED_UNREAD in named:
        return None
    unbound = {name: wred.source for name, wred in cfg.wreds.items() if wred.ecn is not None and name not in named}
    return unbound or None


def _channel_settings(channel: InterfaceConf) -> dict[str, Source]:
    """What a port-channel's lines set, read or not (a SYS002 names those not read), by the member setting each makes
    unknown (_member): trust, the qos-map, each policy, PFC, ETS."""
    bind = channel.bind
    trust = bind.trust_dot1p or bind.trust_dscp
    out = {"trust": trust.source if trust else next(iter(bind.trust_unread.values()), None),
           "pfc": channel.pfc_unread or (channel.pfc_mode.source if channel.pfc_mode else None),
           "ets": bind.ets_unread or (bind.ets.source if bind.ets else None),
           "wred": channel.wred_unread.source if channel.wred_unread else None}
    out.update({attr: val.source for attr in _BOUND if (val := getattr(bind, attr)) is not None})
    return {what: src for what, src in out.items() if src is not None}


# A port's bindings by name (Bindings), each unknown on a member whose port-channel binds one (_member).
_BOUND = ("qos_map", "nq_policy", "queuing_policy", "qos_policy")


def _port_channel_qos(channel: InterfaceConf, issues: Issues) -> None:
    """QoS set on a port-channel: the OS10 guides searched do not say whether it or its members' own lines apply, so
    what it sets is unknown on its members (_member), and its first such line says so."""
    src = next(iter(_channel_settings(channel).values()), None)
    if src is not None:
        issues.add_once(ParseIssue(code="SYS002", source=src, message=(
            "QoS set on a port-channel: the OS10 guides do not say whether it or its members' own interface lines "
            "apply, so what it sets is unknown on its members (set it on each member port)")))


def _member(iface: InterfaceConf, lag: InterfaceConf | None) -> InterfaceConf:
    """A port-channel member as read: each setting its port-channel sets (read or not) unknown, at the port-channel's
    line (_port_channel_qos says why); the rest its own and `system qos`'s. The one way a port-channel's QoS reaches
    its members, whether the reader read its line or not."""
    settings = _channel_settings(lag) if lag is not None else {}
    if not settings:
        return iface
    bind = dataclasses.replace(iface.bind, trust_unread=dict(iface.bind.trust_unread))
    if "trust" in settings:
        bind.trust_dot1p = bind.trust_dscp = None
        bind.trust_unread = {"": settings["trust"]}
    for attr in _BOUND:
        if attr in settings:
            setattr(bind, attr, Val(BINDING_UNREAD, settings[attr]))
    if "ets" in settings:
        bind.ets, bind.ets_unread = None, settings["ets"]
    wred = Val((), settings["wred"]) if "wred" in settings else iface.wred_unread  # (the channel's profile: unknown)
    return dataclasses.replace(iface, bind=bind, pfc_unread=settings.get("pfc", iface.pfc_unread), wred_unread=wred)


def _bound(iface: InterfaceConf, cfg: Os10Config, attr: str) -> Val | None:
    own: Val | None = getattr(iface.bind, attr)
    return own if own is not None else getattr(cfg.system, attr)


def _port(cfg: Os10Config, device: Device, name: str, iface: InterfaceConf, issues: Issues) -> Port:
    bind = iface.bind
    own = (bind.trust_dot1p, bind.trust_dscp, bind.qos_map, bind.nq_policy, bind.queuing_policy, bind.qos_policy,
           bind.ets, iface.pfc_mode)
    port = Port(name=name, description=iface.description, source=iface.source,
                speed_gbps=iface.speed.value if iface.speed else _breakout_speed(cfg, name),
                mtu_bytes=iface.mtu.value - LINK_MTU_OVERHEAD if iface.mtu else None,
                admin_up=iface.admin_up.value if iface.admin_up else None,
                qos_configured=any(v is not None for v in own))
    port.tc_names = QOS_GROUP_NAMES
    _classification(cfg, iface, port, issues)
    _queue_map(cfg, iface, port, issues)
    _pfc(cfg, device, iface, port, issues)
    _queues(cfg, iface, port, issues)
    _ets_unread(cfg, iface, port)
    _wred_unread(iface, port)
    port.link_pause = link_pause(iface, None)  # (reader.interface_line's `flowcontrol` lines; default: in no source)
    return port


def _breakout_speed(cfg: Os10Config, name: str) -> float | None:
    """The speed an `interface breakout N/N/N map <S>g-<C>x` gives the port: ethernetN/N/N:k when C > 1, else the
    port itself."""
    front, _, sub = name[len("ethernet"):].partition(":")
    mode = cfg.breakouts.get(front)
    if mode is None:
        return None
    speed, count = mode.value
    return speed if (count > 1) == bool(sub) else None


def _classification(cfg: Os10Config, iface: InterfaceConf, port: Port, issues: Issues) -> None:
    """802.1p / DSCP -> qos-group from the bound trust maps; none bound: everything in qos-group 0."""
    qos = _bound(iface, cfg, "qos_policy")
    if qos is not None and qos.value == BINDING_UNREAD:  # its binding line was not read (a SYS002 says why): unknown
        return
    if qos is not None:
        issues.add_once(ParseIssue(code="SYS002", source=qos.source, message=(
            f"classification by `policy-map type qos {qos.value}` (class-maps and `set qos-group`) is not read: the "
            "DSCP -> qos-group map of the ports it is bound to is unknown")))
        return
    dot1p, dscp = _bound(iface, cfg, "trust_dot1p"), _bound(iface, cfg, "trust_dscp")
    own = iface.bind.trust_dot1p is not None or iface.bind.trust_dscp is not None
    unread = next(iter((iface.bind.trust_unread or ({} if own else cfg.system.trust_unread)).values()), None)
    if unread is not None:  # a `trust-map` line not read (a SYS002 says why): what the port trusts is unknown
        port.trust_source = unread
        return
    if dot1p is None and dscp is None:
        port.trust = Trust.none
        port.dscp_to_tc = dict.fromkeys(range(64), DEFAULT_TC)
        port.pcp_to_tc = dict.fromkeys(range(8), DEFAULT_TC)
        return
    if dot1p is not None:
        port.pcp_to_tc = _trust_map(cfg, "dot1p", dot1p, 8, DEFAULT_DOT1P_MAP, issues)
    if dscp is not None:
        # (no default DSCP trust map is carried: losslessd has no cited copy of OS10's table)
        port.dscp_to_tc = _trust_map(cfg, "dscp", dscp, 64, None, issues)
    else:
        port.dscp_to_tc = None  # a port trusting 802.1p only: DSCP picks no class
    port.trust = Trust.dscp if dscp is not None else Trust.pcp
    port.trust_source = port.map_source = (dscp or dot1p).source  # type: ignore[union-attr]


def _trust_map(cfg: Os10Config, kind: str, bound: Val, size: int, default: dict[int, int] | None,
               issues: Issues) -> dict[int, int] | None:
    maps = cfg.dot1p_maps if kind == "dot1p" else cfg.dscp_maps
    if (kind, bound.value) in cfg.unread_maps:  # a line of the map was not read (a SYS002 says why): unknown
        return None
    if bound.value == "default":
        if default is None:
            issues.add_once(ParseIssue(code="SYS002", source=bound.source, message=(
                "the default DSCP trust map is not carried by losslessd: the DSCP -> qos-group map of the ports it is "
                "bound to is unknown (bind a `trust dscp-map` of your own)")))
            return None
        return dict(default)
    found = maps.get(bound.value)
    if found is None:
        issues.add_once(ParseIssue(code="SYS002", source=bound.source, message=(
            f"trust map {bound.value} is not defined in this config: the qos-group its values map to is unknown")))
        return None
    return {value: found.value.get(value, UNNAMED_TC) for value in range(size)}


def _queue_map(cfg: Os10Config, iface: InterfaceConf, port: Port, issues: Issues) -> None:
    bound = _bound(iface, cfg, "qos_map")
    if bound is None:
        port.tc_to_queue = DEFAULT_QUEUE_MAP
        return
    found = cfg.qos_maps.get(bound.value)
    if bound.value == BINDING_UNREAD or ("queue", bound.value) in cfg.unread_maps:
        return  # its binding line, or a line of the map, was not read (a SYS002 says why): the queue map is unknown
    if found is None:
        issues.add_once(ParseIssue(code="SYS002", source=bound.source, message=(
            f"qos-map traffic-class {bound.value} is not defined in this config: the queue of each qos-group is "
            "unknown")))
        return
    port.tc_to_queue = dict(sorted(found.value.items()))  # a qos-group the map does not name has no known queue


def _policy(cfg: Os10Config, iface: InterfaceConf, attr: str, table: dict, what: str, issues: Issues):
    """The policy bound to the port (its own, else `system qos`'s): its binding and contents (None: not defined)."""
    bound = _bound(iface, cfg, attr)
    if bound is None:
        return None, None
    policy = table.get(bound.value)
    if policy is None and bound.value != BINDING_UNREAD:  # (a binding line not read: its SYS002 says why)
        issues.add_once(ParseIssue(code="SYS002", source=bound.source, message=(
            f"policy-map type {what} {bound.value} is not defined in this config: what it sets on the ports it is "
            "bound to is unknown")))
    return bound, policy


def _no_drop(cfg: Os10Config, policy: dict[str, NqClass], issues: Issues) -> dict[str, tuple[list[int], list[int],
                                                                                            NqClass]] | None:
    """The policy's no-drop classes: class name -> (qos-groups, 802.1p priorities it pauses, class); None when one of
    them cannot be resolved (a SYS002 on its line says why)."""
    out = {}
    known = True
    for class_name, conf in policy.items():
        if conf.pause is None:
            continue
        groups = cfg.nq_class_maps.get(class_name)
        if groups is None:
            issues.add_once(ParseIssue(code="SYS002", source=conf.source, message=(
                f"network-qos class {class_name} matches no qos-group in this config (no `class-map type network-qos "
                f"{class_name}` with `match qos-group N`): which traffic it makes no-drop is unknown")))
            known = False
            continue
        if conf.pfc_cos is None:
            issues.add_once(ParseIssue(code="SYS002", source=conf.pause.source, message=(
                f"network-qos class {class_name} pauses without `pfc-cos`: the 802.1p priorities it pauses are not "
                "in this config")))
            known = False
            continue
        out[class_name] = (list(groups.value), list(conf.pfc_cos.value), conf)
    return out if known else None


def _pfc(cfg: Os10Config, device: Device, iface: InterfaceConf, port: Port, issues: Issues) -> None:
    """PFC runs where the interface says `priority-flow-control mode on`, on the priorities of the bound network-qos
    policy's no-drop classes. OS10 User Guide, "PFC configuration notes": PFC is disabled by default on an
    interface."""
    bound, policy = _policy(cfg, iface, "nq_policy", cfg.nq_policies, "network-qos", issues)
    no_drop = _no_drop(cfg, policy, issues) if policy is not None else ({} if bound is None else None)
    if no_drop is not None:
        port.tc_to_priority = {g: cos[0] for groups, cos, _ in no_drop.values() for g in groups}
        if port.tc_to_queue is not None:
            paused: dict[int, set[int]] = {}
            for groups, cos, _ in no_drop.values():
                queues = {port.tc_to_queue[g] for g in groups if g in port.tc_to_queue}
                for c in cos:
                    paused.setdefault(c, set()).update(queues)
            port.pfc_priority_to_queue = {c: sorted(q) for c, q in sorted(paused.items())}
    mode = iface.pfc_mode
    if iface.pfc_unread is not None or (mode is not None and mode.value is None):
        port.pfc_source = iface.pfc_unread or mode.source  # type: ignore[union-attr]  # its line was not read: unknown
        return
    if mode is None or not mode.value:
        port.pfc_declared = sorted({c for _, cos, _ in (no_drop or {}).values() for c in cos}) or None
        port.pfc_switch = "`priority-flow-control mode on` on the port" if port.pfc_declared else None
        # (no mode line: read at the no-drop binding where there is one, PFC written without effect as EOS's no-drop
        # priority without `priority-flow-control on`, not the platform's default: engine.pfc_written)
        at = bound.source if port.pfc_declared and bound is not None else iface.source
        port.pfc_enabled, port.pfc_source = [], (mode.source if mode else at)
        # (`no priority-flow-control mode`): an explicit off (PFC006's) only where the port binds no no-drop class;
        # beside one it is PFC written without effect (PFC001 at the line), as EOS reads `no priority-flow-control`
        # beside a no-drop priority and NX-OS `priority-flow-control mode off` beside a no-drop class
        port.pfc_off_written = mode is not None and not port.pfc_declared
        return
    if no_drop is None:
        return  # the no-drop classes, or the priorities they pause, are not in this config
    port.pfc_enabled = sorted({c for _, cos, _ in no_drop.values() for c in cos})
    port.pfc_source = mode.source
    # OS10 User Guide, "Configure ingress buffer": a network-qos policy creates a priority group for its no-drop
    # classes, buffered from the lossless pool (the rest stay in default PG 7); the model names it by the class's
    # priority. Without `pause buffer-size ...` the platform's defaults apply (sized for MTU 9216 and 100 m of cable).
    port.tc_to_pg = {g: cos[0] for groups, cos, _ in no_drop.values() for g in groups}
    for class_name, (_, cos, conf) in no_drop.items():
        pause = conf.pause
        raw = pause.value if pause is not None else None
        if raw is None:
            port.priority_groups[cos[0]] = PriorityGroup(index=cos[0], runtime_profile=True, source=conf.source)
            continue
        profile = f"{bound.value}/{class_name}" if bound else class_name
        device.buffer_profiles.setdefault(profile, BufferProfile(
            name=profile, size_bytes=threshold_bytes(raw.buffer_kb),
            xoff_bytes=threshold_bytes(raw.buffer_kb - raw.pause_kb), xon_bytes=threshold_bytes(raw.resume_kb),
            xoff_threshold_bytes=threshold_bytes(raw.pause_kb), source=pause.source))  # type: ignore[union-attr]
        port.priority_groups[cos[0]] = PriorityGroup(index=cos[0], profile=profile,
                                                     source=pause.source)  # type: ignore[union-attr]


def _queues(cfg: Os10Config, iface: InterfaceConf, port: Port, issues: Issues) -> None:
    bound, policy = _policy(cfg, iface, "queuing_policy", cfg.queuing_policies, "queuing", issues)
    if policy is None:
        if bound is not None:  # a policy bound but not defined, or its binding line not read: the queues are unknown
            port.queues.update(unknown_queues(QUEUES, bound.source))
        return
    queues: dict[int, QueueConf] = {}
    for class_name, conf in policy.items():
        queue = cfg.queuing_class_maps.get(class_name)
        if queue is None:
            issues.add_once(ParseIssue(code="SYS002", source=conf.source, message=(
                f"queuing class {class_name} matches no queue in this config (no `class-map type queuing {class_name}` "
                "with `match queue N`): its settings are not placed")))
            continue
        queues[queue.value] = conf
    src = bound.source if bound else None
    for index in QUEUES:
        conf = queues.get(index)
        if conf is None:  # not in the policy: no WRED/ECN, no scheduling settings shown
            port.queues[index] = Queue(index=index, ecn=Ecn(ecn_enabled=False, source=src), source=src)
            continue
        if conf.strict is not None:
            scheduler = Scheduler(type=SchedulerType.strict, shaped=conf.shaped is not None, source=conf.strict.source)
        else:  # OS10 User Guide, "ETS": queues share the bandwidth by weighted deficit round robin (WDRR)
            scheduler = Scheduler(type=SchedulerType.dwrr, weight=conf.bandwidth.value if conf.bandwidth else None,
                                  shaped=conf.shaped is not None,
                                  source=conf.bandwidth.source if conf.bandwidth else conf.source)
        port.queues[index] = Queue(index=index, scheduler=scheduler, source=conf.source, ecn=_ecn(cfg, conf, issues))


def _ets_unread(cfg: Os10Config, iface: InterfaceConf, port: Port) -> None:
    """An `ets` line not read on the port, or in `system qos` for a port without its own `ets mode` (a SYS002 names
    it): how the queues share the port is unknown, not what the queuing policy alone gives."""
    unread = iface.bind.ets_unread or (cfg.system.ets_unread if iface.bind.ets is None else None)
    if unread is None:
        return
    for index in QUEUES:
        queue = port.queues.setdefault(index, Queue(index=index, source=unread))
        queue.scheduler = None


def _wred_unread(iface: InterfaceConf, port: Port) -> None:
    """A port's own `random-detect PROFILE` line (OS10 User Guide, "WRED": in interface mode it puts WRED/ECN on the
    port's queues; not read, a SYS002 names it): each queue's ECN marking is unknown, not what its class gives."""
    if iface.wred_unread is None:
        return
    for index in QUEUES:
        queue = port.queues.setdefault(index, Queue(index=index, source=iface.wred_unread.source))
        queue.ecn = Ecn(ecn_enabled=None, source=iface.wred_unread.source)


def _ecn(cfg: Os10Config, conf: QueueConf, issues: Issues) -> Ecn:
    if conf.wred is None:
        return Ecn(ecn_enabled=False, source=conf.source)
    if conf.wred.value == WRED_UNREAD:  # its `random-detect` line was not read (a SYS002 says why)
        return Ecn(ecn_enabled=None, source=conf.wred.source)
    wred = cfg.wreds.get(conf.wred.value)
    if wred is None:
        issues.add_once(ParseIssue(code="SYS002", source=conf.wred.source, message=(
            f"the queue uses WRED profile {conf.wred.value}, which is not defined in this config (`wred "
            f"{conf.wred.value}`): whether and where it marks ECN is unknown")))
        return Ecn(profile=conf.wred.value, ecn_enabled=None, source=conf.wred.source)
    if wred.ecn is None and wred.unread is not None:  # a profile line not read may be its `random-detect ecn`
        return Ecn(profile=conf.wred.value, ecn_enabled=None, source=wred.unread)
    if wred.ecn is None:  # WRED that drops instead of marking
        return Ecn(profile=conf.wred.value, ecn_enabled=False, source=wred.source)
    green = wred.colors.get(GREEN)
    if green is None:  # marks, at thresholds the profile does not state for green traffic
        return Ecn(profile=conf.wred.value, ecn_enabled=True, source=wred.ecn.source)
    kmin, kmax, probability = green.value
    return Ecn(profile=conf.wred.value, ecn_enabled=True, min_threshold_bytes=threshold_bytes(kmin),
               max_threshold_bytes=threshold_bytes(kmax), mark_probability_pct=float(probability), source=green.source)
