"""Tie the named class-of-service objects to each port: classifier, forwarding classes, PFC profile, scheduler-map."""

from __future__ import annotations

import dataclasses
from fnmatch import fnmatchcase

from ...lazyre import lazy
from ...model import (
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
    Watchdog,
)
from ...model import ForwardingClass as NamedClass
from ...units import is_small_int, time_to_bytes
from ..base import check_port_count, unknown_queues
from ..clitext import link_pause
from .reader import (
    CLASSIFIER_ATTRS,
    PHYSICAL,
    WATCHDOG_DEFAULTS,
    Cnp,
    CosInterface,
    ForwardingClass,
    Interface,
    InterfaceRange,
    JunosConfig,
    SchedulerConf,
    Val,
    protocol_mtu_extra,
)

# PFC watchdog action when none is configured: drop (Junos AI-ML data center guide, "PFC Watchdog":
# "By default, all ports use the drop action").
DEFAULT_WATCHDOG_ACTION = "drop"
# Junos `pfc-watchdog watchdog-action` words (drop | forward: Junos AI-ML data center guide, "PFC Watchdog") -> the
# model's actions; another word keeps the action unknown (its raw word is still shown).
WATCHDOG_ACTION_WORDS = {"drop": "drop", "forward": "forward"}
# Junos "code-point (Output Congestion Notification)": by default 802.1p priorities 3 and 4 pause output queues
# 3 (fcoe) and 4 (no-loss) on every Ethernet interface; an explicit output profile replaces the default.
DEFAULT_FLOW_CONTROL = {3: [3], 4: [4]}
# IEEE 802.3 Ethernet header (destination, source, EtherType) and one 802.1Q tag, in bytes.
ETHERNET_HEADER_BYTES, VLAN_TAG_BYTES = 14, 4


def build(cfg: JunosConfig, platform: str, name: str, path: str, issues: list[ParseIssue]) -> Device:
    device = Device(name=cfg.hostname or name, kind=DeviceKind.switch, platform=platform, issues=list(issues),
                    source=Source(file=path))
    names = set(cfg.interfaces) | {n for n in cfg.cos_interfaces if PHYSICAL.match(n)}
    names |= {n for r in cfg.ranges.values() for n in r.names if PHYSICAL.match(n)}
    # A broken-out port (`number-of-sub-ports`) forwards nothing itself: its et-x/y/z:N ports do.
    names -= {n for n, iface in cfg.interfaces.items() if iface.channelized}
    check_port_count(len(names), path)  # interface ranges name ports too: before any is built
    wildcards = [(pattern, conf) for pattern, conf in cfg.cos_interfaces.items()
                 if pattern == "all" or _GLOB.search(pattern)]
    if len(wildcards) > MAX_WILDCARDS:  # each port is matched against each: bounded time
        device.issues.append(ParseIssue(code="SYS002", source=wildcards[MAX_WILDCARDS][1].source, message=(
            f"{len(wildcards):,} wildcard `class-of-service interfaces` entries: only the first {MAX_WILDCARDS} "
            "are applied to the ports")))
        wildcards = wildcards[:MAX_WILDCARDS]
    device.issues.extend(_import_problems(cfg))
    # (Junos's default classes, which no line of the config writes, are left out: a snippet does not take them over)
    device.forwarding_classes = [
        NamedClass(name=name, queue=fc.queue, no_loss=fc.no_loss, source=fc.source,
                        pfc_priority=fc.pfc_priority.value if fc.pfc_priority else None)
        for name, fc in cfg.classes.items() if fc.source is not None] or None
    device.defined_classifiers = {f"{kind} {name}": group for (kind, name), group in cfg.defined.items()}
    classes = _Classes(cfg)
    ranges = [(r.settings, r, set(r.names)) for r in cfg.ranges.values() if r.settings is not None]  # a set: one lookup
    vlans = _Vlans(cfg, device.issues)
    for port_name in sorted(names):
        iface = _interface(cfg, port_name, ranges)
        bundle = iface.bundle.value if iface is not None and iface.bundle is not None else None
        port_vlans = vlans.of(port_name, iface)
        units = cfg.aggregates.get(bundle) if bundle is not None else iface  # (an aeN member: aeN's units say)
        if port_vlans is None and _routed(units):
            port_vlans = []
        access = _access(units)
        port = device.ports[port_name] = _port(cfg, classes, port_name, device.issues, wildcards, iface,
                                               untagged=port_vlans == [] or access)
        port.bundle, port.vlans, port.untagged_only = bundle, port_vlans, access
        for bound in (f for filters in (iface.input_filters.values() if iface else ()) for f in filters):
            if bound.value in cfg.class_filters:
                # Junos CoS guide, "Overview of Multifield Classifiers": behavior aggregate classification comes first,
                # and a multifield classifier's forwarding class overrides it for the traffic its terms match.
                device.issues.append(ParseIssue(code="SYS002", source=bound.source, message=(
                    f"{port_name}: firewall filter {bound.value} sets the forwarding class of the traffic it matches "
                    "(a multifield classifier, applied after the port's classifiers): it is not read, so the port's "
                    "classification may not be the one shown")))
    vlans.report()
    device.vlan_interfaces = vlans.routed() or None
    return device


# A `class-of-service interfaces` name with a shell wildcard (`et-0/0/*`) applies to every port it matches.
_GLOB = lazy(r"[*?\[]")
MAX_WILDCARDS = 128  # far more than a config writes (one per line card or port group)


class _Classes:
    """The forwarding classes as the model's traffic classes: our own stable ids (order of definition), never the
    queue number; each class's name, queue and `pfc-priority`."""

    def __init__(self, cfg: JunosConfig):
        self.ids = {name: tc for tc, name in enumerate(cfg.classes)}
        self.names = {tc: f"forwarding class {name}" for name, tc in self.ids.items()}
        self.queues = {self.ids[name]: fc.queue for name, fc in cfg.classes.items()}
        self.priorities = {self.ids[name]: fc.pfc_priority.value for name, fc in cfg.classes.items() if fc.pfc_priority}
        self.no_loss = {self.ids[name] for name, fc in cfg.classes.items() if fc.no_loss}


def _cos_conf(cfg: JunosConfig, name: str, wildcards: list[tuple[str, CosInterface]],
              bundle: str | None = None) -> CosInterface | None:
    """The port's own `class-of-service interfaces` settings over those of wildcard entries (`et-0/0/*`, and `all`,
    which Junos applies to every interface); under those of its aggregated Ethernet interface's entry, for a member
    (Junos CoS guide, "Configuring Schedulers on Aggregated Interfaces": the CoS configuration of an aggregated
    interface applies to all its member links, which cannot take different ones)."""
    layers: list[tuple[str | None, CosInterface]] = [
        (pattern, conf) for pattern, conf in wildcards
        if pattern != name and fnmatchcase(name, "*" if pattern == "all" else pattern)]
    layers.sort(key=lambda layer: layer[0] != "all")  # `all` first: any other entry wins
    if name in cfg.cos_interfaces:
        layers.append((None, cfg.cos_interfaces[name]))
    if bundle is not None and bundle in cfg.cos_interfaces:
        layers.append((None, cfg.cos_interfaces[bundle]))
    if not layers:
        return None
    merged = CosInterface(source=layers[-1][1].source)
    for pattern, layer in layers:
        for attr in ("cnp", "scheduler_map", "dscp_classifier", "dscp6_classifier", "pcp_classifier", "dscp_rewrite"):
            if getattr(layer, attr) is not None:
                setattr(merged, attr, getattr(layer, attr))
                if attr in layer.levels:
                    merged.levels[attr] = layer.levels[attr]
                if pattern is None:
                    merged.wildcard.pop(attr, None)
                else:
                    merged.wildcard[attr] = pattern
        merged.traffic_control_profiles.update(layer.traffic_control_profiles)  # per forwarding-class-set
    return merged


def _interface(cfg: JunosConfig, name: str,
               ranges: list[tuple[Interface, InterfaceRange, set[str]]]) -> Interface | None:
    """The port's own settings over those of the interface ranges it is a member of (``ranges``: those with
    settings, each as its settings, the range and its set of names)."""
    own = cfg.interfaces.get(name)
    shared = [settings for settings, r, names in ranges if _member(r, names, name)]
    if not shared:
        return _with_aggregate(cfg, own)
    # Junos "interface-range": the range's statements apply to every member, the member's own over them. Every setting
    # is merged, by its kind, so one added to Interface is not dropped here: a value the later layer writes replaces
    # the earlier, flags add up, unit families join (a range's `unit 0 family inet6` is each member's), a filter
    # binding per (unit, family, statement) is the later layer's, and lists join: Junos "Interface Ranges" (switches):
    # as of 14.1X53-D15 the range's common configuration is appended to the member's own, not overridden by it (a
    # range's `vlan members 200` and the member's own `vlan members 300`: both VLANs).
    merged = Interface(source=own.source if own else shared[0].source)
    for layer in [*shared, *([own] if own else [])]:
        for spec in dataclasses.fields(Interface):
            have, value = getattr(merged, spec.name), getattr(layer, spec.name)
            if spec.name == "source":
                continue
            if isinstance(value, bool):
                setattr(merged, spec.name, have or value)
            elif isinstance(value, set):
                have |= value
            elif isinstance(value, dict):
                have.update(value)
            elif isinstance(value, list):
                written = {item.value for item in have}
                have.extend(item for item in value if item.value not in written)
            elif value:  # (a value written, a list not empty: None and [] say nothing)
                setattr(merged, spec.name, value)
    return _with_aggregate(cfg, merged)


def _with_aggregate(cfg: JunosConfig, iface: Interface | None) -> Interface | None:
    """A member of aggregated Ethernet aeN with aeN's MTU (media and `family inet|inet6 mtu`), VLAN tagging, member link
    speed (`aggregated-ether-options link-speed`) and Ethernet PAUSE (`aggregated-ether-options flow-control`) over its
    own: Junos "Aggregated Ethernet Interfaces Overview" (the device treats the LAG as a single link: the bundle's MTU
    is its members' frames'), "Configure Aggregated Ethernet Link Speed" (the speed of every member link) and
    "flow-control (Interfaces)" (taken at `aggregated-ether-options`; a pause stops a physical link, its members)."""
    lag = cfg.aggregates.get(iface.bundle.value) if iface is not None and iface.bundle is not None else None
    if iface is None or lag is None or (lag.mtu is None and not lag.ip_mtus and lag.speed_gbps is None
                                        and not lag.vlan_tagging and lag.pause_rx is None and lag.pause_tx is None):
        return iface
    units = lag if lag.ip_mtus else iface  # (the labels an MPLS unit's MTU leaves room for go with that MTU)
    return dataclasses.replace(iface, mtu=lag.mtu or iface.mtu, ip_mtus=units.ip_mtus, mpls_labels=units.mpls_labels,
                               unit_families=lag.unit_families | iface.unit_families,
                               vlan_tagging=lag.vlan_tagging or iface.vlan_tagging,
                               pause_rx=lag.pause_rx or iface.pause_rx, pause_tx=lag.pause_tx or iface.pause_tx,
                               speed_gbps=lag.speed_gbps if lag.speed_gbps is not None else iface.speed_gbps)


def _routed(iface: Interface | None) -> bool:
    """Whether the port routes untagged frames: its units carry `family inet` or `inet6` and no switching, and it has
    no `vlan-tagging` (Junos Ethernet Interfaces guide, "Configuring VLAN Tagging": without it a port's one unit 0
    takes untagged frames; with it, each `unit N vlan-id N` a tagged VLAN). For an aeN member, aeN's units say."""
    return (iface is not None and not iface.vlan_tagging and bool(iface.families)
            and iface.families <= {"inet", "inet6"})


def _access(iface: Interface | None) -> bool:
    """Whether the port switches untagged frames alone: an ethernet-switching unit in access mode, written or not
    (Junos "interface-mode" and "port-mode": "Default: access"; an access interface "receives and sends untagged
    packets"), and no `vlan-tagging`."""
    return (iface is not None and not iface.vlan_tagging and "ethernet-switching" in iface.families
            and iface.switching_mode in (None, "access"))


_VLAN_ID = lazy(r"[0-9]{1,4}")
_VLAN_RANGE = lazy(r"([0-9]{1,4})-([0-9]{1,4})")


class _Vlans:
    """The VLANs each port switches (Port.vlans) and the VLAN each IRB unit routes (Device.vlan_interfaces).

    Junos "Configuring VLANs on switches with ELS support": `interfaces IF unit 0 family ethernet-switching vlan members
    [ NAME | ID | FIRST-LAST | all ]`, or the VLAN naming its interfaces (`vlans NAME interface IF.0`); a member of
    aggregated Ethernet aeN switches the VLANs of aeN's units (the LAG is the switching interface: Junos "Aggregated
    Ethernet Interfaces Overview"). `vlans NAME l3-interface irb.U` routes the VLAN on that IRB unit (Junos
    "Integrated Routing and Bridging"), whose connected routes then deliver out of the VLAN's member ports. A port
    with no ethernet-switching unit keeps None (not known), but for one routing untagged frames (_routed: [])."""

    def __init__(self, cfg: JunosConfig, issues: list[ParseIssue]):
        self.cfg, self.issues = cfg, issues
        # VLAN name -> its IDs in every instance (a name one instance alone defines, or all with one ID, resolves for
        # a port no `routing-instances R interface` line places)
        self.anywhere: dict[str, set[int]] = {}
        for (_, name), vid in cfg.vlan_ids.items():
            self.anywhere.setdefault(name, set()).add(vid.value)
        self.named: dict[str, list[int]] = {}  # interface (without its unit) -> VLANs its `vlans NAME interface` give
        for key, members in cfg.vlan_interfaces.items():
            if key in cfg.vlan_ids:
                for member in members:
                    self.named.setdefault(member.value.split(".")[0], []).append(cfg.vlan_ids[key].value)
        self.unknown: dict[str, Source | None] = {}  # VLAN names no `vlan-id` gives, in order, at their first line
        # VLAN lists by what gives them: ports configured alike share one list (16,384 ports of `vlan members all`
        # would otherwise hold a list of every VLAN each)
        self.made: dict[tuple, list[int] | None] = {}

    def of(self, port: str, iface: Interface | None) -> list[int] | None:
        members = tuple(v.value for v in iface.vlan_members) if iface is not None else ()
        bundle = iface.bundle.value if iface is not None and iface.bundle is not None else None
        key = (members, tuple(self.named.get(port, ())), bundle, self.cfg.instance_of.get(port))
        if key in self.made:
            return self.made[key]
        own = self._ids(iface.vlan_members if iface is not None else [], self.cfg.instance_of.get(port, ""))
        found = own + self.named.get(port, [])
        if bundle is not None:
            lag = self.cfg.aggregates.get(bundle)
            found += self._ids(lag.vlan_members if lag is not None else [], self.cfg.instance_of.get(bundle, ""))
            found += self.named.get(bundle, [])
        made = self.made[key] = sorted(set(found)) or None  # (none read: not known, never "routed", [])
        return made

    def _ids(self, members: list[Val], instance: str) -> list[int]:
        """The VLAN IDs of a unit's `vlan members`, its names looked up in the unit's routing instance (``instance``,
        "" for none), else at the top level, else in the one instance (or the instances agreeing) that defines it."""
        out: list[int] = []
        for member in members:
            text = member.value
            if text == "all":
                out.extend(v.value for (scope, _), v in self.cfg.vlan_ids.items() if scope == instance)
            elif _VLAN_ID.fullmatch(text) and 1 <= int(text) <= 4094:
                out.append(int(text))
            elif (m := _VLAN_RANGE.fullmatch(text)) and 1 <= int(m[1]) <= int(m[2]) <= 4094:
                out.extend(range(int(m[1]), int(m[2]) + 1))
            elif (vid := self.cfg.vlan_ids.get((instance, text)) or self.cfg.vlan_ids.get(("", text))) is not None:
                out.append(vid.value)
            elif len(ids := self.anywhere.get(text, set())) == 1:
                out.extend(ids)
            else:
                self.unknown.setdefault(text, member.source)
        return out

    def report(self) -> None:
        """One SYS002 for the VLAN names no `vlan-id` gives (a trunk can name thousands): the first three, the count."""
        if not self.unknown:
            return
        names = list(self.unknown)
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more ({len(names)} names)" if len(names) > 3 else "")
        self.issues.append(ParseIssue(code="SYS002", source=self.unknown[names[0]], message=(
            f"vlan members {shown}: no `vlans NAME vlan-id N` gives {'it' if len(names) == 1 else 'them'} an ID (in "
            "the unit's routing instance, at the top level, or one ID in the other instances), so which VLAN is not "
            "known (a route on its IRB interface is not followed to the ports that name it)")))

    def routed(self) -> dict[str, int]:
        return {l3.value: self.cfg.vlan_ids[key].value for key, l3 in self.cfg.vlan_l3.items()
                if key in self.cfg.vlan_ids}


def _member(rng: InterfaceRange, names: set[str], name: str) -> bool:
    return name in names or any(pattern.fullmatch(name) for pattern in rng.members)


def _ip_mtu(iface: Interface | None) -> int | None:
    """The IP MTU, the largest IP packet the port passes (Port.mtu_bytes: what headroom and ECN thresholds are sized by,
    so the largest frame any unit takes): each unit's `family inet mtu` and `family inet6 mtu`, and the media MTU less
    the Ethernet header (14 bytes, 18 with a VLAN tag) where it is written and a unit carries a family without its own
    protocol MTU (ethernet-switching; an inet, inet6, mpls or iso family without one), or no unit writes one; an mpls
    or iso unit's own MTU counts with the bytes its frame adds (reader.protocol_mtu_extra). Junos "Media MTU Sizes by
    Interface Type": Ethernet media MTU 1514 carries IP MTU 1500; a protocol MTU not written is the media MTU less its
    overhead."""
    if iface is None:
        return None
    media = (iface.mtu.value - ETHERNET_HEADER_BYTES - (VLAN_TAG_BYTES if iface.vlan_tagging else 0)
             if iface.mtu is not None else None)
    own = [mtu.value + protocol_mtu_extra(iface, unit, family) for (unit, family), mtu in iface.ip_mtus.items()]
    if media is not None and (not own or any(key not in iface.ip_mtus for key in iface.unit_families)):
        own.append(media)
    return max(own, default=None)


def _port(cfg: JunosConfig, classes: _Classes, name: str, issues: list[ParseIssue],
          wildcards: list[tuple[str, CosInterface]], iface: Interface | None, untagged: bool) -> Port:
    conf = _cos_conf(cfg, name, wildcards, iface.bundle.value if iface is not None and iface.bundle else None)
    port = Port(name=name, source=iface.source if iface else conf.source if conf else None,
                description=iface.description if iface else None, mtu_bytes=_ip_mtu(iface),
                speed_gbps=iface.speed_gbps if iface else None,
                admin_up=not (iface and iface.disabled),  # Junos prints `disable` only for a port that is down
                link_pause=link_pause(iface, None) if iface else None)  # (a default of the platform's: not read)
    # Forwarding classes, their queues and PFC priorities are switch-wide; PFC and the watchdog are off on a
    # port until a congestion-notification-profile is applied, while received pauses stop the default queues.
    port.tc_names, port.tc_to_queue, port.tc_to_priority = classes.names, classes.queues, dict(classes.priorities)
    port.pfc_priority_to_queue = DEFAULT_FLOW_CONTROL
    port.pfc_enabled, port.watchdog = [], Watchdog(enabled=False)
    if conf is None:
        return port
    port.qos_configured = bool(conf.traffic_control_profiles) or any(
        v is not None for v in (conf.cnp, conf.scheduler_map, conf.dscp_classifier, conf.pcp_classifier))
    _classify(cfg, classes, conf, port, issues)
    _pfc(cfg, classes, conf, port, issues, untagged)
    _interface_classifiers(cfg, conf, port, iface.bundle.value if iface is not None and iface.bundle else name)
    _queues(cfg, conf, port, issues)
    return port


def _interface_classifiers(cfg: JunosConfig, conf: CosInterface, port: Port, point: str) -> None:
    """The classifiers the port reads bound on the entry a snippet binds at (``point``: the port, or its aeN) itself,
    on the interface (attachment `classifiers KIND`) or on a unit (`unit N classifiers KIND`): a snippet deletes one
    before binding its own on unit 0, and only one there, as Junos PyEZ and napalm load a `delete` of a statement the
    switch does not have as an error (`warning: statement not found`; PyEZ Config.load raises ConfigLoadError unless
    told ignore_warning, which napalm's junos driver passes as False by default). A wildcard entry's (`et-*`) is not in
    that entry to delete, nor is one the entry inherits from a configuration group (JunosConfig.inherited: only a
    `delete` in the group removes it, for every place the group applies): the sections whose snippet would delete
    such a one are by hand (_inherited_binding)."""
    entry = cfg.cos_interfaces.get(point)
    if entry is None:
        return
    for kind, attr in CLASSIFIER_ATTRS.items():
        held = conf.levels.get(attr, (None, None))[0]
        bindings = [(f"unit {unit} classifiers {kind}", unit, val) for unit, val in entry.units.get(attr, {}).items()]
        if held is not None and held is entry.levels.get(attr, (None, None))[0]:
            bindings.insert(0, (f"classifiers {kind}", "0", held))
        for where, unit, val in bindings:
            group = cfg.inherited.get((val.source.file, val.source.line))
            if group is not None:
                written = cfg.group_statements.get((val.source.file, val.source.line), "")
                _inherited_binding(port, point, where, kind, val, (group, written))
            elif is_small_int(unit) or unit == "*":  # (a unit as a snippet may write it)
                port.service_policies = {**(port.service_policies or {}), where: val.value}


# The classifier type each trust's snippet binds (templates/juniper_junos): it deletes one of that type bound on the
# interface itself, and to trust PCP every DSCP one, on the interface or a unit (a unit's of the trust's own type its
# `set` replaces).
_TRUST_KIND = {"dscp": "dscp", "pcp": "ieee-802.1"}


def _inherited_binding(port: Port, point: str, where: str, kind: str, val: Val, from_group: tuple[str, str]) -> None:
    """The sections (trust, maps, PFC: each binds the classifier) a snippet of which would delete ``where``, a
    binding the entry inherits from a configuration group (``from_group``: its name and the statement as it writes
    it), set by hand with what to change instead: the group's own statement to delete (its path may be a wildcard,
    `"<et-*>"`, that the interface matched)."""
    group, written = from_group
    words = written.split()
    statement = " ".join(words[:-1]) if words and words[-1].strip('"') == val.value else written
    unit_level = where.startswith("unit ")
    trusts = [trust for trust, bound in _TRUST_KIND.items()
              if bound == kind and not unit_level or trust == "pcp" and kind in ("dscp", "dscp-ipv6")]
    why = (f"its {kind} classifier {val.value} is bound by `class-of-service interfaces {point} {where}` of "
           f"configuration group {group} (line {val.source.line}), which a `delete` of the configuration's own "
           f"statements does not remove (the group's statements are inherited): remove it from the group by hand "
           f"(`delete groups {group} {statement or 'class-of-service interfaces ...'}`, which changes every "
           "interface the group "
           f"applies to), or stop {point} inheriting the group there (`set class-of-service interfaces {point} "
           f"apply-groups-except {group}`, which drops every statement it takes from the group there)")
    port.by_hand = {**(port.by_hand or {}), **{f"{section}/{trust}": why for trust in trusts
                                                for section in ("trust", "maps", "pfc")}}


def _missing(issues: list[ParseIssue], port: Port, what: str, ref: Val, effect: str) -> None:
    issues.append(ParseIssue(code="SYS002", source=ref.source, message=(
        f"{port.name} uses {what} {ref.value}, which is not defined in this configuration: {effect}")))


def _dscp_classifier(cfg: JunosConfig, conf: CosInterface) -> tuple[Val | None, dict[str, dict[int, Val]], str]:
    """The port's DSCP classifier: the IPv4 one, else the IPv6 one (RoCEv2 over IPv6 is classified by it)."""
    if conf.dscp_classifier is not None or conf.dscp6_classifier is None:
        return conf.dscp_classifier, cfg.dscp_classifiers, "dscp"
    return conf.dscp6_classifier, cfg.dscp6_classifiers, "dscp-ipv6"


def _import_problems(cfg: JunosConfig) -> list[ParseIssue]:
    """`classifiers TYPE NAME import OTHER` naming a classifier the configuration does not define, or a chain of
    imports back to NAME (Junos refuses both at commit): the entries NAME starts from are unknown."""
    tables = {"dscp": cfg.dscp_classifiers, "dscp-ipv6": cfg.dscp6_classifiers, "ieee-802.1": cfg.pcp_classifiers}
    out = []
    for (kind, name), ref in cfg.imports.items():
        table = tables.get(kind)
        if table is None:
            continue  # rewrite rules: not followed
        chain, target = [name], ref.value
        while target != "default" and target not in chain and (kind, target) in cfg.imports:
            chain.append(target)
            target = cfg.imports[kind, target].value
        if target in chain:
            out.append(ParseIssue(code="SYS002", source=ref.source, message=(
                f"classifier {name} imports itself ({' -> '.join([*chain, target])}): the entries it starts from "
                "are unknown")))
        elif target != "default" and target not in table:
            out.append(ParseIssue(code="SYS002", source=ref.source, message=(
                f"classifier {name} imports {target}, which is not defined in this configuration: the entries it "
                "starts from are unknown")))
    return out


def _entries(cfg: JunosConfig, table: dict[str, dict[int, Val]], kind: str, name: str,
             seen: frozenset[str] = frozenset()) -> dict[int, Val] | None:
    """A classifier's code points, over those of the classifier it imports (`import default`: Junos's own table,
    which the configuration does not list, so those code points stay unknown). None: not defined."""
    own = table.get(name)
    base = cfg.imports.get((kind, name))
    if base is None or base.value == "default" or base.value in seen:
        return own if own is not None or base is None else {}
    inherited = _entries(cfg, table, kind, base.value, seen | {name}) or {}
    return {**inherited, **(own or {})}


def _classify(cfg: JunosConfig, classes: _Classes, conf: CosInterface, port: Port, issues: list[ParseIssue]) -> None:
    """A DSCP classifier on the port means it trusts DSCP; code points go to forwarding classes (traffic classes)."""
    # Both bound: the DSCP one is read last and wins, as RoCEv2 is IP (Juniper QFX "Understanding CoS Classifiers":
    # DSCP and DSCP IPv6 classifiers classify IP and IPv6 traffic, IEEE 802.1p classifies all other traffic).
    dscp_ref, dscp_table, dscp_kind = _dscp_classifier(cfg, conf)
    for ref, table, kind, trust, attr in ((conf.pcp_classifier, cfg.pcp_classifiers, "ieee-802.1", Trust.pcp,
                                           "pcp_to_tc"),
                                          (dscp_ref, dscp_table, dscp_kind, Trust.dscp, "dscp_to_tc")):
        if ref is None or _both_levels(conf, kind, port, issues):
            continue
        port.trust, port.trust_source = trust, ref.source
        entries = _entries(cfg, table, kind, ref.value)
        if entries is None:
            _missing(issues, port, "classifier", ref, "its DSCP/priority map is unknown")
            continue
        mapping = {}
        for code, fc in sorted(entries.items()):
            if fc.value not in classes.ids:
                issues.append(ParseIssue(code="SYS002", source=fc.source, message=(
                    f"classifier {ref.value} sends code point {code} to forwarding class {fc.value}, "
                    "which has no queue-num in this configuration")))
                continue
            mapping[code] = classes.ids[fc.value]
        # Code points the classifier does not list are left out: where they go is not in the configuration.
        setattr(port, attr, mapping)
        port.map_source = min((v.source for v in entries.values()), key=lambda s: s.line or 0, default=ref.source)
    shared = conf.wildcard.get("dscp_classifier" if dscp_kind == "dscp" else "dscp6_classifier")
    if port.trust == Trust.dscp and dscp_ref is not None and shared is not None:
        # (the classifier a wildcard entry binds holds for every port it matches; a line of the port's own can bind a
        # classifier of the same kind over it, never take it off: a trust change is a change of the shared entry)
        # (the maps section binds the classifier of the policy's kind too: a change of trust where that is 802.1p)
        port.by_hand = {**(port.by_hand or {}), **dict.fromkeys(("trust/pcp", "maps/pcp"), (
            f"its {dscp_kind} classifier {dscp_ref.value} is bound by the wildcard entry `class-of-service interfaces "
            f"{shared}` (line {dscp_ref.source.line}), which every port it matches shares and no line of the port's "
            "own takes off: change the classifier on that entry by hand (for every port it matches), or narrow its "
            "pattern so it no longer matches this port"))}
    _rewrite(cfg, classes, conf, port, issues)


def _both_levels(conf: CosInterface, kind: str, port: Port, issues: list[ParseIssue]) -> bool:
    """Whether the port binds two classifiers of ``kind``, one on the interface and one on its unit: Juniper's CoS
    pages read (QFX "unit (class-of-service)" takes `classifiers`; "Applying Behavior Aggregate Classifiers to Logical
    Interfaces"; the ACX/EX "Classifiers and Rewrite Rules at the Global, Physical, and Logical Interface Levels") say
    nothing of which one classifies then, so the port's classification is unknown (SYS002), never the later line's."""
    port_level, unit_level = conf.levels.get(CLASSIFIER_ATTRS[kind], (None, None))
    if port_level is None or unit_level is None or port_level.value == unit_level.value:
        return False
    port.trust_unknown = (f"{kind} classifiers {port_level.value} (on the interface) and {unit_level.value} (on its "
                          "unit) are both bound (see the SYS002)")
    issues.append(ParseIssue(code="SYS002", source=unit_level.source, message=(
        f"{port.name} binds {kind} classifier {port_level.value} on the interface (line {port_level.source.line}) and "
        f"{unit_level.value} on its unit: which one classifies is not in Juniper's documentation, so the port's "
        f"classification is read as unknown; bind one (`delete class-of-service interfaces {port.name} classifiers "
        f"{kind}` keeps the unit's)")))
    return True


def _rewrite(cfg: JunosConfig, classes: _Classes, conf: CosInterface, port: Port, issues: list[ParseIssue]) -> None:
    """`rewrite-rules dscp NAME` remarks each listed forwarding class on egress; a class the rule does not list (and
    every class under Junos's `default` rule, which the configuration does not show) goes out with a DSCP the input
    does not show."""
    ref = conf.dscp_rewrite
    if ref is None:
        return
    rule = {} if ref.value == "default" else cfg.dscp_rewrites.get(ref.value)
    if rule is None:
        _missing(issues, port, "rewrite rule", ref, "the DSCP its packets leave with is unknown")
        rule = {}
    port.tc_to_dscp_rewrite = {classes.ids[fc]: val.value for fc, val in rule.items() if fc in classes.ids}


def _class_of(cfg: JunosConfig, ref: Val | None, table: dict[str, dict[int, Val]],
              code: int) -> tuple[str, ForwardingClass] | None:
    """The forwarding class the port's classifier (``ref`` into ``table``) gives a code point."""
    kind = "dscp" if table is cfg.dscp_classifiers else "dscp-ipv6" if table is cfg.dscp6_classifiers else "ieee-802.1"
    fc = (_entries(cfg, table, kind, ref.value) or {}).get(code) if ref is not None else None
    return (fc.value, cfg.classes[fc.value]) if fc is not None and fc.value in cfg.classes else None


def _pfc(cfg: JunosConfig, classes: _Classes, conf: CosInterface, port: Port, issues: list[ParseIssue],
         untagged: bool) -> None:
    if conf.cnp is None:
        return
    cnp = cfg.cnps.get(conf.cnp.value)
    if cnp is None:
        _missing(issues, port, "congestion-notification-profile", conf.cnp, "its PFC and watchdog are unknown")
        port.pfc_enabled, port.watchdog, port.pfc_priority_to_queue = None, None, None
        return
    # (what a watchdog fix writes its pfc-watchdog into: that profile holds the port's PFC inputs too, so a new one
    # bound in its place would change which code points pause)
    port.service_policies = {"congestion-notification-profile": conf.cnp.value}
    # `input ieee-802.1 code-point P pfc`: pauses carry P itself, for the class the port's 802.1p classifier
    # gives P (Junos "Understanding PFC Using DSCP at Layer 3 for Untagged Traffic" and CNP input statements).
    enabled: dict[int, Source] = dict(cnp.pcp)
    lossy: Source | None = None  # the class line that leaves a paused code point lossy
    blocked: dict[int, str] = {}  # (Port.pfc_blocked)
    for code in cnp.pcp:
        found = _class_of(cfg, conf.pcp_classifier, cfg.pcp_classifiers, code)
        if found is not None:
            if not untagged:  # (untagged traffic carries no 802.1p: the entry names none of its priorities)
                port.tc_to_priority.setdefault(classes.ids[found[0]], code)
            if not found[1].no_loss:
                # Junos QFX "class (Forwarding Classes)": a class the configuration defines is lossless only with
                # the `no-loss` option, and of the default classes only fcoe and no-loss are (reader.DEFAULT_LOSSLESS);
                # any other class's traffic is treated as lossy, whatever the CNP's code point.
                del enabled[code]
                lossy = found[1].source or (conf.pcp_classifier.source if conf.pcp_classifier else None)
                blocked[code] = _lossy_class(cfg, conf.cnp.value, cnp.pcp[code], found, f"802.1p {code:03b}")
    # Junos "Understanding PFC Using DSCP at Layer 3 for Untagged Traffic": PFC by 802.1p pauses the priority of the
    # IEEE 802.1p code point in the VLAN header of incoming traffic, and untagged traffic carries none. A no-loss class
    # the port's DSCP classifier fills, with no `pfc-priority` and no 802.1p classifier entry, is paused on the
    # priority its senders tag it with, which the configuration does not show (an untagged port: never).
    tagged_unknown = bool(cnp.pcp) and not untagged and any(
        tc in classes.no_loss and tc not in (port.tc_to_priority or {}) for tc in (port.dscp_to_tc or {}).values())
    unknown = False
    for dscp, src in cnp.dscp.items():
        # DSCP-based PFC pauses with the `pfc-priority` of the no-loss forwarding class the classifier gives that
        # DSCP (Junos "Configuring DSCP-based PFC for Layer 3 Untagged Traffic": no-loss and pfc-priority required).
        found = _class_of(cfg, *_dscp_classifier(cfg, conf)[:2], dscp)
        if found is None:
            issues.append(ParseIssue(code="SYS002", source=src, message=(
                f"{port.name}: PFC on DSCP {dscp}, but the port's classifier gives DSCP {dscp} no forwarding class, "
                "so no PFC priority can be told")))
            continue
        _, fc = found
        if not fc.no_loss and fc.source is not None and fc.pfc_priority is not None:
            # (a class line naming the priority its pauses would carry, without `no-loss`: no pause; the first code
            # point paused for it is named)
            if fc.pfc_priority.value not in blocked:
                blocked[fc.pfc_priority.value] = _lossy_class(cfg, conf.cnp.value, src, found, f"DSCP {dscp:06b}")
            lossy = lossy or fc.source
        if not fc.no_loss or fc.source is None:
            continue  # not lossless without `no-loss`, nor a default class no line gives a pfc-priority: no pause
        if fc.pfc_priority is None:
            unknown = True  # the priority its pauses carry is not in the configuration
            continue
        enabled[fc.pfc_priority.value] = src
    port.pfc_enabled = None if unknown or cnp.unreadable else sorted(enabled)
    port.pfc_blocked = {p: why for p, why in blocked.items() if p not in enabled} or None
    port.pfc_source = cnp.unreadable or lossy or conf.cnp.source
    if cnp.cable_length is not None:
        port.cable_length_m = float(cnp.cable_length.value)
    if unknown or tagged_unknown:
        port.tc_to_priority = None
    port.pfc_priority_to_queue = (DEFAULT_FLOW_CONTROL if not cnp.flow_control_queue else
                                  {p: list(q) for p, q in sorted(cnp.flow_control_queue.items())})
    # QFX has no priority-group configuration: a no-loss class's ingress headroom comes at run time from the
    # shared buffer's lossless-headroom partition, per PFC priority; the model names that PG by the priority.
    port.tc_to_pg = {tc: prio for tc, prio in (port.tc_to_priority or {}).items() if prio in enabled}
    for prio in sorted(set(port.tc_to_pg.values())):
        port.priority_groups[prio] = PriorityGroup(index=prio, runtime_profile=True, source=enabled[prio])
    port.watchdog = _watchdog(cnp)


def _lossy_class(cfg: JunosConfig, profile: str, paused: Source, found: tuple[str, ForwardingClass], code: str) -> str:
    """PFC001's fix where a profile's code point pauses for a class the configuration defines without `no-loss`. Junos
    refuses a queue whose classes differ in their drop attribute (CoS reference for the QFX Series, `queue-num`: all
    the forwarding classes mapped to a queue must be lossless, or all lossy; render.pick_class), so the lossy classes
    the configuration puts on the same queue are named with it: `no-loss` on the one class alone would not commit."""
    name, fc = found
    at = f" (line {fc.source.line})" if fc.source is not None and fc.source.line else ""
    pause = f" at line {paused.line}" if paused.line else ""
    fix = (f"congestion-notification-profile {profile} pauses {code}{pause}, but its forwarding class {name}{at} has "
           f"no `no-loss`, so its traffic stays lossy: add `no-loss` to the class "
           f"(`set class-of-service forwarding-classes class {name} no-loss`)")
    beside = [f"{other} (line {c.source.line})" if c.source.line else other for other, c in cfg.classes.items()
              if other != name and c.queue == fc.queue and not c.no_loss and c.source is not None]
    if beside:
        fix += (f", and move {', '.join(beside)} off queue {fc.queue} or make {'it' if len(beside) == 1 else 'them'} "
                f"no-loss too: Junos takes no lossy class beside a lossless one on a queue")
    return fix


def _watchdog(cnp: Cnp) -> Watchdog:
    if cnp.watchdog is None:
        return Watchdog(enabled=False, source=cnp.source)

    def opt(key: str) -> float:
        return float(cnp.wd[key].value if key in cnp.wd else WATCHDOG_DEFAULTS[key])

    # Detection is a count of polling intervals (Junos CoS guide, "PFC Watchdog").
    action = cnp.wd.get("action")
    return Watchdog(enabled=True, polling_interval_ms=opt("poll-interval"),
                    detection_time_ms=opt("detection") * opt("poll-interval"), restoration_time_ms=opt("recovery"),
                    action=WATCHDOG_ACTION_WORDS.get(action.value if action else DEFAULT_WATCHDOG_ACTION),
                    action_raw=action.value if action else DEFAULT_WATCHDOG_ACTION, source=cnp.watchdog)


def _queues(cfg: JunosConfig, conf: CosInterface, port: Port, issues: list[ParseIssue]) -> None:
    refs = [conf.scheduler_map] if conf.scheduler_map is not None and not conf.traffic_control_profiles else []
    # ETS: each forwarding-class-set -> its traffic-control-profile -> that profile's scheduler-map.
    for tcp in conf.traffic_control_profiles.values():
        ref = cfg.traffic_control_profiles.get(tcp.value)
        if ref is None:
            _unknown_queues(issues, port, "traffic-control-profile", tcp)
            return
        refs.append(ref)
    for ref in refs:
        if ref.value not in cfg.scheduler_maps:
            _unknown_queues(issues, port, "scheduler-map", ref)
            return
    for ref in refs:
        _scheduler_map(cfg, ref, port, issues)


def _scheduler_map(cfg: JunosConfig, ref: Val, port: Port, issues: list[ParseIssue]) -> None:
    """Each forwarding class of the map onto its queue: strict or weighted, with the scheduler's ECN."""
    for fc_name, sched_ref in cfg.scheduler_maps[ref.value].items():
        fc = cfg.classes.get(fc_name)
        sched = cfg.schedulers.get(sched_ref.value)
        if fc is None or sched is None:
            issues.append(ParseIssue(code="SYS002", source=sched_ref.source, message=(
                f"scheduler-map {ref.value}: " + (f"forwarding class {fc_name}" if fc is None else
                                                  f"scheduler {sched_ref.value}") + " is not defined")))
            continue
        if sched.unreadable:  # a line of it was not read (SYS002): what it sets is unknown, not its default
            port.queues[fc.queue] = Queue(index=fc.queue, scheduler=Scheduler(name=sched_ref.value,
                                                                              source=sched.unreadable),
                                          ecn=Ecn(source=sched.unreadable), source=sched_ref.source)
            continue
        # strict-high is strict priority; high, medium-* and low are levels of the guaranteed-rate region, served
        # by weight (transmit-rate), not before everything else (Junos CoS guide, "priority (Schedulers)").
        level = f" (priority {sched.priority.value})" if sched.priority and not sched.strict else ""
        rates = list(sched.rates.values())
        scheduler = (Scheduler(name=sched_ref.value, type=SchedulerType.strict, shaped=sched.shaped is not None,
                               rates=rates, source=sched.strict) if sched.strict
                     else Scheduler(name=sched_ref.value + level, type=SchedulerType.wrr, weight=sched.rate_pct,
                                    rates=rates, source=sched.priority.source if sched.priority else sched.source))
        port.queues[fc.queue] = Queue(index=fc.queue, scheduler=scheduler, source=sched_ref.source,
                                      ecn=_ecn(cfg, sched, port.speed_gbps, issues))


def _unknown_queues(issues: list[ParseIssue], port: Port, what: str, ref: Val) -> None:
    """A missing scheduler-map leaves every queue's scheduler and ECN unknown (not off)."""
    _missing(issues, port, what, ref, "its queue scheduling and ECN are unknown")
    port.queues = unknown_queues(range(8), ref.source)


def _ecn(cfg: JunosConfig, sched: SchedulerConf, speed_gbps: float | None, issues: list[ParseIssue]) -> Ecn:
    """ECN marks where the drop profile would drop (ECN-capable packets only); without a drop profile no marking.

    Fill levels are percent of the queue's buffer: bytes only when the scheduler sizes that buffer in time
    (`buffer-size temporal`) and the port's speed is known."""
    if sched.ecn is None and sched.drop_profile is not None:
        # WRED without marking drops every packet its profile selects (QFX CoS guide, "Configuring CoS WRED Drop
        # Profiles": do not enable WRED on lossless flows); a profile never above 0 % drops nothing.
        dropping = cfg.drop_profiles.get(sched.drop_profile.value)
        chances = [p for _, p in dropping.points] + dropping.probs if dropping is not None else []
        return Ecn(profile=sched.drop_profile.value, ecn_enabled=False, source=sched.source,
                   wred_drops=None if dropping is None else "all" if any(chances) else "none")
    if sched.ecn is None or sched.drop_profile is None:
        return Ecn(ecn_enabled=False, source=sched.ecn or sched.source, wred_drops="none")
    # On an ECN-enabled queue the drop profile only marks, and packets that are not ECN-capable are tail-dropped
    # (the same guide), which PFC prevents on a no-loss queue.
    name = sched.drop_profile.value
    profile = cfg.drop_profiles.get(name)
    if profile is None:
        issues.append(ParseIssue(code="SYS002", source=sched.drop_profile.source,
                                 message=f"drop profile {name} is not defined: the queue's ECN thresholds are unknown"))
        return Ecn(profile=name, ecn_enabled=True, wred_drops="none", source=sched.ecn)
    points = sorted(profile.points or list(zip(profile.fills, profile.probs)))
    if not points or (profile.fills and len(profile.fills) != len(profile.probs)):
        issues.append(ParseIssue(code="SYS002", source=profile.source, message=(
            f"drop profile {name} has no complete fill-level / drop-probability pairs")))
        return Ecn(profile=name, ecn_enabled=True, wred_drops="none", source=sched.ecn)
    pmax = max(p for _, p in points)
    kmin = max((f for f, p in points if p == 0), default=points[0][0])  # marking starts above the last 0 % point
    kmax = min(f for f, p in points if p == pmax)
    # A temporal buffer is the port's rate times the time; with `buffer-rate` it is sized at the VOQ target rate
    # instead (reader._scheduler), which the configuration does not give in bits per second: its bytes are unknown.
    size = "the queue buffer"
    if sched.buffer_us is not None and sched.buffer_rate is not None:
        size = (f"a {sched.buffer_us.value:g} us queue buffer sized at `buffer-rate {sched.buffer_rate.value}` "
                "(the VOQ target rate, not given in bits per second)")
    elif sched.buffer_us is not None:
        buffer = time_to_bytes(sched.buffer_us.value / 1000, speed_gbps)
        if buffer is not None:
            return Ecn(profile=name, ecn_enabled=True, wred_drops="none", mark_probability_pct=pmax,
                       source=sched.ecn, min_threshold_bytes=round(buffer * kmin / 100),
                       max_threshold_bytes=round(buffer * kmax / 100))
        size = f"a {sched.buffer_us.value:g} us queue buffer at an unknown port speed"
    return Ecn(profile=name, ecn_enabled=True, wred_drops="none", mark_probability_pct=pmax, source=sched.ecn,
               unconverted=f"fill-level {kmin:g}% to {kmax:g}% of {size} (drop profile {name})")
