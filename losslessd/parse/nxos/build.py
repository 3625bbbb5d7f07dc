"""Turn what the reader found into the model: the qos, queuing and network-qos policies each port uses.

The traffic class is the qos-group. Its PFC priority is the CoS its no-drop network-qos class pauses (`pause pfc-cos
N`, or on Nexus 3000/5000 `pause no-drop`: the CoS values the qos policy classifies into the group); its queue is the
queue of the same number; a pause received for that CoS stops that queue.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ...model import (
    BufferProfile,
    Device,
    DeviceKind,
    Ecn,
    ForwardingClass,
    Incompatible,
    ParseIssue,
    Port,
    PriorityGroup,
    Queue,
    Scheduler,
    SchedulerType,
    Source,
    Trust,
    Watchdog,
)
from ..base import unknown_queues
from ..clitext import Issues, SwitchportConf, Val, link_pause, routed_vlans, untagged_only
from .reader import (
    _NQ_CLASS,
    _QUEUE_CLASS,
    LINK_PAUSE_DEFAULT,
    POLICY_UNREAD,
    WATCHDOG_UNREAD,
    InterfaceConf,
    NqClass,
    NxosConfig,
    QosClass,
    QueueConf,
    both_lines,
    class_index,
)

QUEUES = range(8)
# Nexus 9000 QoS guide, queuing (and Nexus 3000 QoS guide, type queuing policies): a queuing class matches its
# qos-group, and qos-group N is served by egress queue N.
QOS_GROUP_QUEUE = {group: group for group in QUEUES}
QOS_GROUP_NAMES = {group: f"qos-group {group}" for group in QUEUES}  # what NX-OS calls its traffic classes
# Nexus 9000 QoS guide, classification: traffic no qos policy class matches stays in qos-group 0 (class-default).
DEFAULT_QOS_GROUP = 0
# Nexus 9000 QoS guide, PFC watchdog workflow: the stuck-queue poll timer is 100 ms; a stuck no-drop queue
# is shut and its packets dropped.
DEFAULT_WD_INTERVAL_MS = 100.0
WATCHDOG_ACTION = "drop"


def build(cfg: NxosConfig, platform: str, name: str, path: str) -> Device:
    device = Device(name=cfg.hostname or name, kind=DeviceKind.switch, platform=platform,
                    issues=list(cfg.issues), source=Source(file=path))
    issues, resolved = Issues(device.issues), dict[str, _Classes]()
    channels: dict[int, InterfaceConf | None] = {}  # (each port-channel with its profiles, worked out once: _channel)
    for port_name, iface in cfg.interfaces.items():
        own = {point: val.value for point, attr in ATTACHED.items() if (val := getattr(iface, attr)) is not None}
        iface = with_port_profiles(cfg, iface, issues) if iface.profiles else iface
        channel = _channel(cfg, iface, issues, channels)
        incompatible = _incompatible(iface, channel)
        own_settings = [setting for attr, setting, *_ in _COMPATIBILITY if getattr(iface, attr) is not None] \
            if channel is not None and iface.channel_force is None else []
        iface = channel_policies(port_name, iface, issues, channel, incompatible) if iface.channel_group else iface
        port = device.ports[port_name] = _port(cfg, device, port_name, iface, issues, resolved)
        port.incompatible = incompatible or None
        port.own_settings = own_settings or None
        port.service_policies = own or None
        port.vlans = _routed_untagged(cfg, port_name, iface, channel)
        # (Nexus 9000 Layer 2 guide, "Configuring Access and Trunk Interfaces": an access port's frames and a trunk's
        # native VLAN's leave untagged, unless `vlan dot1q tag native`)
        port.untagged_only = untagged_only(iface, channel, native_trunks=not cfg.native_tagged)
        if iface.channel_group is not None:
            port.bundle = f"port-channel{iface.channel_group.value}"
            channel = cfg.port_channels.get(iface.channel_group.value)
            attached = {point: val.value for point, attr in ATTACHED.items()
                        if channel is not None and (val := getattr(channel, attr)) is not None}
            device.bundle_policies = {**(device.bundle_policies or {}), port.bundle: attached}
    device.service_policies = {SYSTEM_ATTACHED[key]: val.value for key, val in cfg.system.items()} or None
    device.forwarding_classes = no_drop_classes(cfg, device)
    return device


def _routed_untagged(cfg: NxosConfig, name: str, iface: InterfaceConf,
                     channel: InterfaceConf | None) -> list[int] | None:
    """[] (Port.vlans: routed, untagged) for a port that routes and has no subinterface, nor has its port-channel;
    else None (its VLANs not read). Its own `[no] switchport` or address decides, else its port-channel's, else `[no]
    system default switchport` (Nexus 9000 Interfaces guide: the default is the model's, so a config without that
    line leaves a port with neither unknown). A routed port with a subinterface sends tagged frames there (Nexus 9000
    Interfaces guide, "Configuring Layer 3 Interfaces": `encapsulation dot1q` on the subinterface)."""
    bundle = f"port-channel{iface.channel_group.value}" if iface.channel_group is not None else None
    return routed_vlans(iface, channel, bool({name, bundle} & cfg.tagged_parents), cfg.default_routed)


def no_drop_classes(cfg: NxosConfig, device: Device) -> list[ForwardingClass] | None:
    """The system network-qos policy's no-drop classes, each with its qos-group (its queue: QOS_GROUP_QUEUE) and the
    CoS it pauses: a snippet classifies a lossless priority's DSCPs into the qos-group the config already makes no-drop
    for it (render.pick_class) rather than into the group of the priority's own number. Nexus 9000 QoS guide, "Using
    Modular QoS CLI" (system-defined network-qos class-maps c-8q-nqN match qos-group N) and "Configuring Priority Flow
    Control" (`pause pfc-cos N` in such a class makes its qos-group no-drop for CoS N). A `pause no-drop` class
    pauses the CoS values classified into its group (build's _no_drop_priorities, per port): the ports' shared
    qos-group -> priority (the network-qos policy is system-wide) where known. None: no no-drop class."""
    out = []
    for class_name, conf, group in _no_drop_nq(cfg):
        if group is None or group not in QOS_GROUP_QUEUE:
            continue  # (a SYS002 from _pfc says so)
        cos = conf.pfc_cos.value[0] if conf.pfc_cos is not None and conf.pfc_cos.value else next(
            (prio for port in device.ports.values() if (prio := (port.tc_to_priority or {}).get(group)) is not None),
            None)
        line = conf.pfc_cos or conf.no_drop
        out.append(ForwardingClass(name=class_name, queue=QOS_GROUP_QUEUE[group], no_loss=True, pfc_priority=cos,
                                   source=line.source if line is not None else conf.source))
    return out or None


# Where a policy is attached, in the words of `service-policy type ...` (model Port/Device.service_policies): the
# interface's own lines (not a port-profile's or port-channel's, which a line on the interface overrides, nor the
# system's) and `system qos`.
ATTACHED = {"qos input": "qos_policy", "queuing output": "queuing_policy", "queuing input": "queuing_in_policy"}
SYSTEM_ATTACHED = {"qos": "qos input", "queuing": "queuing output", "queuing-in": "queuing input",
                   "network-qos": "network-qos"}


# Nexus 5000/7000 interfaces guides, "Port Profiles": an interface runs the commands of the port-profiles it inherits
# once they are `state enabled`, its own commands winning over a profile's and an earlier inherited profile over a
# later one; a profile may inherit others, four levels deep.
PROFILE_LEVELS = 4
_INHERITED = tuple(f.name for f in dataclasses.fields(InterfaceConf) if f.name not in (
    "source", "profiles", "undefined_profile", "channel_undefined_profile", "switchport"))
# The `switchport` settings, each the command that sets it, inherited one by one as the interface's other commands (its
# own `switchport mode trunk` beside a profile's `switchport trunk allowed vlan`): Nexus 9000 Layer 2 guide,
# "Configuring Access and Trunk Interfaces" (mode, access VLAN, native VLAN, allowed list).
_SWITCHPORT_COMMANDS = (("mode",), ("access_vlan",), ("native",), ("allowed", "allowed_unread"))


def with_port_profiles(cfg: NxosConfig, iface: InterfaceConf, issues: Issues) -> InterfaceConf:
    """The interface with what its enabled port-profiles set where it sets nothing itself; one that inherits a
    profile the input does not define (a session binding the switch's own) marks the rest unknown."""
    layers: list[InterfaceConf] = []
    undefined: list[Source] = []
    _profile_layers(cfg, iface.profiles, layers, issues, PROFILE_LEVELS, set(), undefined)
    if undefined:
        iface = dataclasses.replace(iface, undefined_profile=undefined[0])
    if not layers:
        return iface
    changes: dict[str, Any] = {}
    for attr in _INHERITED:
        if getattr(iface, attr) is None:
            changes[attr] = next((getattr(layer, attr) for layer in layers if getattr(layer, attr) is not None), None)
    return dataclasses.replace(iface, **changes, switchport=_inherited_switchport(iface.switchport, layers))


def _inherited_switchport(own: SwitchportConf, layers: list[InterfaceConf]) -> SwitchportConf:
    """The interface's `switchport` settings with, for each command it does not write, the first profile's that does
    (before session 38 a profile's switchport lines were not inherited: its access ports kept MAP002's info)."""
    unset = SwitchportConf()
    out = dataclasses.replace(own)
    for names in _SWITCHPORT_COMMANDS:
        if any(getattr(own, n) != getattr(unset, n) for n in names):
            continue
        layer = next((layer.switchport for layer in layers
                      if any(getattr(layer.switchport, n) != getattr(unset, n) for n in names)), None)
        for n in names if layer is not None else ():
            setattr(out, n, getattr(layer, n))
    return out


def _profile_layers(cfg: NxosConfig, refs: list[Val], layers: list[InterfaceConf], issues: Issues,
                    levels: int, seen: set[str], undefined: list[Source]) -> None:
    for ref in refs:
        profile = cfg.port_profiles.get(ref.value)
        if profile is None:
            issues.add_once(ParseIssue(code="SYS002", source=ref.source, message=(
                f"port-profile {ref.value} is not defined in this config: the settings it gives are unknown")))
            undefined.append(ref.source)
        elif profile.enabled and ref.value not in seen and levels > 0:
            layers.append(profile.conf)
            _profile_layers(cfg, profile.conf.profiles, layers, issues, levels - 1, seen | {ref.value}, undefined)


# Nexus 9000 QoS guide, "Attaching and Detaching a QoS Policy Action": a QoS policy attached to a physical port takes
# effect when the port is not a member of a port channel; one attached to a port channel takes effect even when its
# members have policies of their own.
_POLICIES = ("qos_policy", "queuing_policy", "queuing_in_policy")
# Cisco Nexus 7000/9000 Interfaces guides, "Configuring Port Channels", Guidelines: the configuration applied to the
# port-channel interface affects its member ports (the member's own affects only the member). Compatibility
# requirements (_COMPATIBILITY): the Nexus 7000 guide lists the MTU size, the Nexus 5000/5500 guide MTU and
# Priority-Flow-Control, the Nexus 7000 guide the flow-control configuration too (802.3x link pause). A port-channel's
# line wins over the member's; the member's holds where the port-channel sets none, except for those compatibility
# parameters (_incompatible).
_CHANNEL_SETTINGS = ("pfc_mode", "watchdog", "mtu", "pause_rx", "pause_tx")


# Cisco tech note 118994, "Configure and Verify Maximum Transmission Unit on Nexus Platforms": a port's MTU is 1500
# unless an `mtu` line sets it (an L2 port takes only that default or the system jumbo MTU); a port-channel whose
# running-config shows no `mtu` line runs that default.
DEFAULT_MTU = 1500
# The compatibility check's parameters losslessd reads, as (attribute, the platform's word, the value a port-channel
# without the line runs, what the vendor's guides say of the check for it). Nexus 7000 Interfaces guide, "Configuring
# Port Channels", Compatibility Requirements: the check covers the MTU size and "If you configure a member port with an
# incompatible attribute, the software suspends that port in the port channel", unless `channel-group N force` makes it
# join (then it takes the port-channel's); the Nexus 9000's `show port-channel compatibility-parameters`: "Members have
# to have the same MTU configured" (suspending or refusing the member is not said); the Nexus 5000 guide lists
# Priority-Flow-Control among the checked attributes (what it does with a member that differs is not said). No guide
# found says what a port-channel without a `priority-flow-control mode` line runs: that is not compared. A member that
# writes no line takes the port-channel's (channel_policies).
_COMPATIBILITY = (
    ("mtu", "mtu", DEFAULT_MTU, "the Nexus 7000's compatibility check suspends a member whose MTU differs from its "
     "port-channel's (Nexus 7000 Interfaces guide), and then it carries none of the port-channel's traffic; the "
     "Nexus 9000's requires the same MTU on every member", ["Nexus7000", "N7K-"]),
    ("pfc_mode", "priority-flow-control mode", None, "the Nexus 5000's compatibility check covers "
     "Priority-Flow-Control (Nexus 5000 guide); no guide found says whether the switch suspends such a member", None),
)
# (the models as Device.hardware begins: a Nexus 7000's `show version` prints "cisco Nexus7000 C7010 (10 Slot) Chassis";
# a model given by hand is Cisco's product ID, N7K-C7010)


def _channel(cfg: NxosConfig, iface: InterfaceConf, issues: Issues,
             channels: dict[int, InterfaceConf | None]) -> InterfaceConf | None:
    """A member's port-channel, with the port-profiles it inherits, looked up once per port-channel (``channels``);
    None: not a member, or a port-channel the input lacks."""
    if iface.channel_group is None:
        return None
    number = iface.channel_group.value
    if number not in channels:
        channel = cfg.port_channels.get(number)
        channels[number] = (with_port_profiles(cfg, channel, issues) if channel is not None and channel.profiles
                            else channel)
    return channels[number]


def _incompatible(iface: InterfaceConf, channel: InterfaceConf | None) -> list[Incompatible]:
    """The compatibility parameters in which a member (not forced in) writes a line of its own whose value differs from
    its port-channel's (the port-channel's line, else the value it runs without one). A port-channel the input lacks
    is not compared."""
    if channel is None or iface.channel_force is not None:
        return []
    out = []
    for attr, setting, default, check, models in _COMPATIBILITY:
        mine, theirs = getattr(iface, attr), getattr(channel, attr)
        aggregate = theirs.value if theirs is not None else default
        if mine is not None and aggregate is not None and mine.value != aggregate:
            out.append(Incompatible(setting=setting, member=str(mine.value), aggregate=str(aggregate) + (
                "" if theirs is not None else ", the default"), aggregate_value=str(aggregate), check=check,
                                    suspended_on=models, source=mine.source))
    return out


def channel_policies(name: str, iface: InterfaceConf, issues: Issues, channel: InterfaceConf | None,
                     incompatible: list[Incompatible] | None = None) -> InterfaceConf:
    """A port-channel member as the switch runs it: its port-channel's (``channel``, _channel) QoS policies (else the
    system ones), not its own; a member whose own compatibility parameters differ (``incompatible``) keeps its own
    values, as it would run them were it not suspended (the conservative reading: a member running PFC otherwise than
    its aggregate is the lossless risk). A port-channel the input lacks (a partial dump) leaves the member's own, with
    an info that says so."""
    group = iface.channel_group
    if group is None:
        return iface
    if channel is None:
        if any(getattr(iface, attr) is not None for attr in _POLICIES):
            issues.append(ParseIssue(code="SYS004", source=group.source, message=(
                f"{name} is a member of port-channel{group.value}, which is not in the input: its QoS policies "
                "apply instead of the member's own, so the member's are used as a guess")))
        # (the guess is the member's own, so a profile it inherits that the input lacks may attach them)
        return dataclasses.replace(iface, channel_undefined_profile=iface.undefined_profile)
    kept = {attr for attr, setting, *_ in _COMPATIBILITY if any(i.setting == setting for i in incompatible or ())}
    return dataclasses.replace(iface, channel_undefined_profile=channel.undefined_profile,
                               **{attr: getattr(channel, attr) for attr in _POLICIES},
                               **{attr: val for attr in _CHANNEL_SETTINGS
                                  if attr not in kept and (val := getattr(channel, attr)) is not None})


def _profile_may_attach(iface: InterfaceConf) -> bool:
    """Whether a port-profile the input does not define may attach the port's policies: its own outside a
    port-channel, its port-channel's for a member (whose policies are the port-channel's: channel_policies)."""
    if iface.channel_group is None:
        return iface.undefined_profile is not None
    return iface.channel_undefined_profile is not None


def _policy(cfg: NxosConfig, own: Val | None, kind: str, table: dict, port: str,
            issues: Issues) -> tuple[str | None, Source | None, object]:
    """The policy the port uses (its own service-policy, else the `system qos` one): name, line, contents."""
    chosen = own or cfg.system.get(kind)
    if chosen is None:
        return None, None, None
    if chosen.value == POLICY_UNREAD:  # its binding line was not read (a SYS002 says why): what it sets is unknown
        return chosen.value, chosen.source, None
    if chosen.value not in table:
        # A `system qos` policy is every port's: said once at its line, not once per port.
        whose = f"{port} uses" if own else "`system qos` uses"
        issues.add_once(ParseIssue(code="SYS002", source=chosen.source, message=(
            f"{whose} {kind} policy-map {chosen.value}, which is not defined in this config: "
            f"what it sets on {'the port' if own else 'every port without its own'} is unknown")))
        return chosen.value, chosen.source, None
    return chosen.value, chosen.source, table[chosen.value]



def _group(cfg: NxosConfig, class_name: str, system, user: dict[str, Val]) -> int | None:
    """The qos-group a queuing / network-qos class stands for: a system-defined class, or a class-map with
    `match qos-group N`."""
    index = class_index(class_name, system)
    if index is not None:
        return index
    val = user.get(class_name)
    return val.value if val is not None else None


def _port(cfg: NxosConfig, device: Device, name: str, iface: InterfaceConf, issues: Issues,
          resolved: dict[str, _Classes]) -> Port:
    own = (iface.pfc_mode, iface.watchdog, iface.qos_policy, iface.queuing_policy, iface.queuing_in_policy)
    port = Port(name=name, description=iface.description, source=iface.source,
                speed_gbps=iface.speed.value if iface.speed else None,
                mtu_bytes=iface.mtu.value if iface.mtu else None,
                admin_up=iface.admin_up.value if iface.admin_up else None,
                qos_configured=any(v is not None for v in own))
    port.tc_to_queue, port.tc_names = QOS_GROUP_QUEUE, QOS_GROUP_NAMES
    classes = _classification(cfg, iface, port, issues, resolved)
    _pfc(cfg, iface, port, classes, issues)
    _ingress_buffers(cfg, device, iface, port, issues)
    _watchdog(cfg, iface, port)
    _queues(cfg, iface, port, issues)
    port.link_pause = link_pause(iface, LINK_PAUSE_DEFAULT)
    return port


def _classification(cfg: NxosConfig, iface: InterfaceConf, port: Port, issues: Issues,
                    resolved: dict[str, _Classes]) -> list[tuple[QosClass | None, int]] | None:
    """DSCP -> qos-group and CoS -> qos-group from the qos policy's classes (_classes), on the port. Returns the
    classes (None for class-default) with their qos-group, or None when the port's classification is not known."""
    if iface.qos_policy is None and _profile_may_attach(iface):
        return None  # the undefined profile's policy, if it attaches one, classifies instead of the system's
    name, src, policy = _policy(cfg, iface.qos_policy, "qos", cfg.qos_policies, port.name, issues)
    if policy is None or name is None or name in cfg.qos_policy_unread:  # (a `set qos-group` not read: unknown)
        return None
    if name not in resolved:
        resolved[name] = _classes(cfg, policy)
    missing, ordered, first, dscp_to_tc, pcp_to_tc, trust = resolved[name]
    if missing is not None:
        class_name, group = missing
        # The policy's line, shared by every port using it: said once.
        issues.add_once(ParseIssue(code="SYS002", source=group.source if group else src, message=(
            f"qos class {class_name} (policy-map {name}) is not defined, so the DSCP -> qos-group map of the ports "
            "using the policy is unknown")))
        return None
    port.map_source = first or src
    if dscp_to_tc is not None:
        port.dscp_to_tc = dict(dscp_to_tc)
    if pcp_to_tc is not None:
        port.pcp_to_tc = dict(pcp_to_tc)
    port.trust, port.trust_source = trust, src
    return ordered


# A qos policy resolved: the class it names but no class-map defines (then nothing else is known), its classes in
# order with their qos-groups, the first `set qos-group` line, DSCP -> qos-group, CoS -> qos-group (None: not known),
# and the trust it implies.
_Classes = tuple[tuple[str, Val | None] | None, list[tuple[QosClass | None, int]], Source | None,
                 dict[int, int] | None, dict[int, int] | None, Trust]


def _classes(cfg: NxosConfig, policy: Any) -> _Classes:
    """A qos policy's classes in order (the first class that matches wins; class-default always comes last, wherever
    a merged-in snippet added classes), resolved once for all the ports that use it (per port: ports x classes)."""
    ordered: list[tuple[QosClass | None, int]] = []
    first: Source | None = None
    for class_name, group in sorted(policy.items(), key=lambda item: item[0] == "class-default"):
        cmap = None if class_name == "class-default" else cfg.class_maps.get(class_name)
        if class_name != "class-default" and cmap is None:
            return (class_name, group), [], None, None, None, Trust.dscp
        ordered.append((cmap, group.value if group else DEFAULT_QOS_GROUP))
        if group is not None:
            first = first or group.source
    if "class-default" not in policy:
        ordered.append((None, DEFAULT_QOS_GROUP))  # NX-OS's implicit class-default catches the rest
    dscp_known = not any(c is not None and (c.other or (c.match_all and c.dscp and c.cos)) for c, _ in ordered)
    by_cos = any(c is not None and c.cos for c, _ in ordered)
    by_dscp = any(c is not None and c.dscp for c, _ in ordered)
    dscp_to_tc: dict[int, int] | None = None
    if dscp_known:
        # An untagged routed packet matches only DSCP classes (a class that also needs a CoS never matches it).
        dscp_to_tc = {}
        for cmap, into in ordered:
            matched = set(range(64)) if cmap is None else (cmap.dscp if not (cmap.match_all and cmap.cos) else set())
            for dscp in sorted(matched - set(dscp_to_tc)):
                dscp_to_tc[dscp] = into
    pcp_to_tc: dict[int, int] | None = None
    if by_cos and not any(c is not None and c.other for c, _ in ordered):
        pcp_to_tc = {}
        for cmap, into in ordered:  # a tagged packet whose DSCP no DSCP class matches
            matched = set(range(8)) if cmap is None else (cmap.cos if not (cmap.match_all and cmap.dscp) else set())
            for cos in sorted(matched - set(pcp_to_tc)):
                pcp_to_tc[cos] = into
    # A policy that classifies on CoS only acts on 802.1p; one that reads DSCP (or only class-default) on DSCP. One
    # that reads both (NetApp's Nexus RCFs: storage by `match cos 3`, another class by `match dscp 16`) sorts the
    # lossless traffic by the field its no-drop classes match: by CoS when every class into a no-drop qos-group
    # matches CoS alone.
    by_cos_alone = False
    if by_cos and by_dscp:
        no_drop = {group for _, _, group in _no_drop_nq(cfg)}
        into_no_drop = [c for c, group in ordered if group in no_drop]
        by_cos_alone = bool(into_no_drop) and all(c is not None and c.cos and not c.dscp and not c.other
                                                  for c in into_no_drop)
    trust = Trust.pcp if by_cos and (not by_dscp or by_cos_alone) else Trust.dscp
    return None, ordered, first, dscp_to_tc, pcp_to_tc, trust


def _no_drop_nq(cfg: NxosConfig) -> Iterator[tuple[str, NqClass, int | None]]:
    """The no-drop classes (`pause pfc-cos` / `pause no-drop`) of the `system qos` network-qos policy, each with its
    qos-group (None: not known)."""
    chosen = cfg.system.get("network-qos")
    policy = cfg.nq_policies.get(chosen.value) if chosen is not None else None
    for name, conf in (policy or {}).items():
        if conf.pfc_cos is not None or conf.no_drop is not None:
            yield name, conf, _group(cfg, name, _NQ_CLASS, cfg.nq_class_maps)


def _no_drop_priorities(nq: NqClass, group: int, classes) -> list[int] | None:
    """The CoS values a no-drop class pauses: `pfc-cos`, else (`pause no-drop`) the CoS values the qos policy
    classifies into its qos-group (Nexus 5000 QoS guide, system classes: pfc-cos is needed only when the class is not
    mapped purely by CoS). None: not known from the input."""
    if nq.pfc_cos is not None:
        return list(nq.pfc_cos.value)
    if classes is None:
        return None
    into = [c for c, g in classes if g == group and c is not None]
    if not into or any(c.dscp or c.other for c in into):
        return None
    return sorted({cos for c in into for cos in c.cos})


def _pfc(cfg: NxosConfig, iface: InterfaceConf, port: Port, classes, issues: Issues) -> None:
    """No-drop classes come from the system network-qos policy; the interface's mode switches PFC on."""
    _, _, nq = _policy(cfg, None, "network-qos", cfg.nq_policies, port.name, Issues([]))
    known = nq is not None or not cfg.system.get("network-qos")
    no_drop: dict[int, list[int] | None] = {}  # qos-group -> the CoS values it pauses (None: not known)
    sources: dict[int, Source] = {}
    for class_name, conf in (nq or {}).items():
        if conf.pfc_cos is None and conf.no_drop is None:
            if conf.pause_unread is not None:  # its `pause` line was not read: which CoS it pauses is unknown
                known = False
            continue
        group = _group(cfg, class_name, _NQ_CLASS, cfg.nq_class_maps)
        if group is None:
            issues.add_once(ParseIssue(code="SYS002", source=conf.source, message=(
                f"network-qos class {class_name} matches no qos-group in this config (no `class-map type network-qos "
                f"{class_name}` with `match qos-group N`), so which traffic it makes no-drop is unknown")))
            known = False
            continue
        no_drop[group] = _no_drop_priorities(conf, group, classes)
        sources[group] = (conf.pfc_cos or conf.no_drop).source
    if known and None not in no_drop.values():
        # A no-drop class pauses as its CoS, and a received pause for that CoS stops the class's queue; qos-groups
        # without `pause` have no PFC priority.
        port.tc_to_priority = {group: cos[0] for group, cos in no_drop.items() if cos}
        port.pfc_priority_to_queue = {c: [port.tc_to_queue[group]] for group, cos in no_drop.items() for c in cos}
    mode = iface.pfc_mode
    if mode is not None and mode.value == "off":
        port.pfc_enabled, port.pfc_source, port.pfc_off_written = [], mode.source, True
        return
    if mode is None or mode.value == "auto":
        # Default mode is auto: PFC is on only if DCBX negotiation with the peer succeeds (NX-API
        # "Configuring Priority Flow Control"), which the config cannot show.
        return
    _policy(cfg, None, "network-qos", cfg.nq_policies, port.name, issues)  # says once per port when it is missing
    if not known or None in no_drop.values():
        return  # the no-drop classes, or the CoS they pause, are not in this config
    port.pfc_enabled = sorted({c for cos in no_drop.values() for c in cos})
    port.pfc_source = mode.source
    # NX-OS has no priority-group configuration: the switch sizes no-drop headroom itself (or from an ingress
    # queuing policy's `pause buffer-size`), per no-drop class; the model names that PG by the class's PFC priority.
    port.tc_to_pg = {group: cos[0] for group, cos in no_drop.items() if cos}
    for group, cos in no_drop.items():
        if cos:
            port.priority_groups[cos[0]] = PriorityGroup(index=cos[0], runtime_profile=True, source=sources[group])


def _ingress_buffers(cfg: NxosConfig, device: Device, iface: InterfaceConf, port: Port,
                     issues: Issues) -> None:
    """An ingress queuing policy's `pause buffer-size B pause-threshold X resume-threshold Y` fixes the no-drop
    class's buffer: B reserved, XOFF sent at X (so B - X absorbs what is in flight), XON at Y."""
    if iface.queuing_in_policy is None and _profile_may_attach(iface):
        return  # (as _classification)
    name, _, policy = _policy(cfg, iface.queuing_in_policy, "queuing-in", cfg.queuing_policies, port.name, issues)
    for class_name, conf in (policy or {}).items():
        if conf.pause is None:
            continue
        group = _group(cfg, class_name, _QUEUE_CLASS, cfg.queuing_class_maps)
        pg = (port.tc_to_pg or {}).get(group) if group is not None else None
        if pg is None or pg not in port.priority_groups:
            continue  # not a no-drop class on this port: its pause thresholds do nothing
        raw = conf.pause.value
        profile = f"{name}/{class_name}"
        device.buffer_profiles.setdefault(profile, BufferProfile(
            name=profile, size_bytes=raw.buffer_bytes, xoff_bytes=raw.buffer_bytes - raw.pause_bytes,
            xon_bytes=raw.resume_bytes, xoff_threshold_bytes=raw.pause_bytes, source=conf.pause.source))
        port.priority_groups[pg] = PriorityGroup(index=pg, profile=profile, source=conf.pause.source)


def _watchdog(cfg: NxosConfig, iface: InterfaceConf, port: Port) -> None:
    if iface.watchdog is None and iface.undefined_profile is not None:
        return  # the undefined profile's `watch-dog-interval on|off` would win over the global one: unknown
    enabled = iface.watchdog or cfg.watchdog
    if enabled is not None and enabled.value == WATCHDOG_UNREAD:  # its line was not read (a SYS002 says why)
        port.watchdog = Watchdog(enabled=None, source=enabled.source)
        return
    if enabled is None or not enabled.value:  # off unless `priority-flow-control watch-dog-interval on`
        port.watchdog = Watchdog(enabled=False, source=enabled.source if enabled else None)
        return
    interval = cfg.wd_timers.get("interval")
    interval_ms = float(interval.value) if interval else DEFAULT_WD_INTERVAL_MS

    def times(key: str) -> float | None:
        return interval_ms * cfg.wd_timers[key].value if key in cfg.wd_timers else None

    port.watchdog = Watchdog(enabled=True, polling_interval_ms=interval_ms,
                             detection_time_ms=times("shutdown-multiplier"),
                             restoration_time_ms=times("auto-restore-multiplier"),
                             action=WATCHDOG_ACTION, action_raw=WATCHDOG_ACTION, source=enabled.source)


def _queues(cfg: NxosConfig, iface: InterfaceConf, port: Port, issues: Issues) -> None:
    if iface.queuing_policy is None and _profile_may_attach(iface):
        return  # (as _classification)
    _, src, policy = _policy(cfg, iface.queuing_policy, "queuing", cfg.queuing_policies, port.name, issues)
    if policy is None:
        if src is not None:  # a policy attached but not defined, or its line not read: the queues are unknown
            port.queues.update(unknown_queues(QUEUES, src))
        return
    queues: dict[int, QueueConf] = {}
    for class_name, conf in policy.items():
        group = _group(cfg, class_name, _QUEUE_CLASS, cfg.queuing_class_maps)
        if group is None:
            issues.add_once(ParseIssue(code="SYS002", source=conf.source, message=(
                f"queuing class {class_name} matches no qos-group in this config (no `class-map type queuing "
                f"{class_name}` with `match qos-group N`), so its queue is unknown")))
            continue
        queues[QOS_GROUP_QUEUE[group]] = conf
    for index in sorted(set(QUEUES) | set(queues)):
        conf = queues.get(index)
        if conf is None:  # not in the policy: no WRED/ECN, no scheduling settings shown
            port.queues[index] = Queue(index=index, ecn=Ecn(ecn_enabled=False, source=src), source=src)
            continue
        if conf.strict is not None and conf.bandwidth is not None:  # (the reader's SYS002 names both lines)
            scheduler = Scheduler(unapplied=both_lines(conf), source=conf.strict.source)
        elif conf.strict is not None:
            scheduler = Scheduler(type=SchedulerType.strict, shaped=conf.shaped is not None, source=conf.strict.source)
        else:  # Nexus 9000 QoS guide: non-priority queues share the remaining bandwidth by DWRR
            scheduler = Scheduler(type=SchedulerType.dwrr, weight=conf.bandwidth.value if conf.bandwidth else None,
                                  source=conf.bandwidth.source if conf.bandwidth else conf.source)
        port.queues[index] = Queue(index=index, scheduler=scheduler, source=conf.source, ecn=_ecn(conf))


def _ecn(conf: QueueConf) -> Ecn:
    """The class's marking, and what its WRED drops (Ecn.wred_drops): with `ecn`, the packets it cannot mark (one
    `drop-probability` for both, RFC 3168 section 5); without, every packet it selects (WRED or AFD drop)."""
    if conf.wred is not None and conf.wred.value is None:  # its line was not read (a SYS002 says why)
        return Ecn(ecn_enabled=None, source=conf.wred.source)
    if conf.wred is None:
        return Ecn(ecn_enabled=False, source=conf.source, wred_drops="none")
    if not conf.wred.value.ecn:  # WRED that drops instead of marking, or tail drop (no WRED: nothing dropped early)
        return Ecn(ecn_enabled=False, source=conf.wred.source, wred_drops="all" if conf.wred.value.dropping else "none")
    raw = conf.wred.value
    return Ecn(ecn_enabled=True, wred_drops="non-ect", min_threshold_bytes=raw.kmin, max_threshold_bytes=raw.kmax,
               mark_probability_pct=raw.probability, source=conf.wred.source,
               unconverted=raw.text if raw.kmin is None or raw.kmax is None else None)
