"""Turn what the reader found into the model: service-profiles applied under interface lines, EOS defaults filled in."""

from __future__ import annotations

from ... import units
from ...model import (Device, DeviceKind, Ecn, ParseIssue, Port, PriorityGroup, Queue, Scheduler, SchedulerType,
                      Source, Trust, Watchdog)
from ..clitext import VLAN_IDS, AllowedVlans, Issues, link_pause, routed_port
from .flat import IF_READ, body, interface_words
from .reader import ECN_UNREAD, MAP_UNREAD, EosConfig, InterfaceConf, QosConf, QueueConf, RawEcn, Threshold, Val

# EOS default DSCP -> traffic class (EOS User Manual, QoS chapter, default DSCP to traffic class map):
# DSCP 0-7 -> TC 1, 8-15 -> TC 0, then DSCP 8n..8n+7 -> TC n.
DEFAULT_DSCP_TO_TC = {d: 1 if d < 8 else 0 if d < 16 else d // 8 for d in range(64)}
# EOS default CoS -> traffic class: 0 -> 1, 1 -> 0, otherwise CoS n -> TC n (same manual table).
DEFAULT_COS_TO_TC = {c: {0: 1, 1: 0}.get(c, c) for c in range(8)}
TRAFFIC_CLASSES = range(8)
# EOS User Manual, QoS (PFC on Trident/Tomahawk/Jericho platforms): PFC priority N is traffic class N:
# `priority-flow-control priority N no-drop` pauses TC N, and a received pause for N stops TC N's tx-queue.
TC_PRIORITY = {tc: tc for tc in TRAFFIC_CLASSES}
# EOS tx-queue defaults: every queue is strict priority until `no priority`; `no priority` on queue N makes
# queues 0..N round robin, weighted by `bandwidth percent` (EOS User Manual, QoS, `priority` (tx-queue)).
QUEUES = range(8)
# Watchdog action when none is configured: error-disable the port (AVD eos_cli_config_gen qos_profiles
# schema: "Override the default error-disable action").
DEFAULT_WATCHDOG_ACTION = "errdisable"
# EOS watchdog words -> the model's actions. `no-drop` stops honouring pauses on the stuck queue and keeps
# forwarding its packets (AVD priority_flow_control.watchdog.action: "drop" | "no-drop"); `notify-only`
# logs without acting on the queue (AVD qos_profiles watchdog.action); errdisable shuts the port.
WATCHDOG_ACTION_WORDS = {"drop": "drop", "no-drop": "forward", "notify-only": "notify-only", "errdisable": "errdisable"}
# A policy-map resolved: DSCP -> the traffic class its first matching class sets (None: matched by a class that sets
# none, so the trust map's), class-default's `set traffic-class`, the SYS002 for classes it cannot evaluate, and the
# by-hand DSCPs (model Port.by_hand_dscp) or None.
_Classes = tuple[dict[int, int | None], Val | None, ParseIssue | None, dict[int, tuple[int, str]] | None]


def build(cfg: EosConfig, platform: str, name: str, path: str) -> Device:
    device = Device(name=cfg.hostname or cfg.header_name or name, kind=DeviceKind.switch, platform=platform,
                    hwsku=cfg.hwsku, hardware_source=cfg.hwsku_source, issues=list(cfg.issues),
                    source=Source(file=path))
    issues, resolved = Issues(device.issues), dict[str, _Classes]()
    vlan_lists: dict[AllowedVlans | None, list[int]] = {}  # _vlans: the trunks' shared VLAN lists
    for port_name, iface in cfg.interfaces.items():
        device.ports[port_name] = _port(cfg, port_name, iface, issues, resolved, vlan_lists)
    return device


def _last(layers: list[QosConf], attr: str) -> Val | None:
    """The interface's own setting, else its service-profile's."""
    found = None
    for layer in layers:
        found = getattr(layer, attr) if getattr(layer, attr) is not None else found
    return found


def _interface_profile(cfg: EosConfig, iface: InterfaceConf, issues: Issues) -> None:
    """`profile NAME` under an interface applies an `interface profile`'s commands to it. losslessd found no EOS
    document that says how they combine with the interface's own lines (which wins, in what order), so it does not
    apply them: a SYS002 at the `profile` line names the profile and the first command there losslessd would read on
    an interface (QoS, PFC, MTU, speed, ...), so a reader knows the port's settings may be set there. A profile whose
    commands losslessd reads none of (descriptions, LLDP, PTP) changes nothing it checks: no issue."""
    chosen = iface.interface_profile
    if chosen is None:
        return
    commands = cfg.interface_profiles.get(chosen.value)
    if commands is None:
        issues.add_once(ParseIssue(code="SYS002", source=chosen.source, message=(
            f"interface profile {chosen.value} is not defined in this config: the commands it applies to the port "
            "are unknown, and what they set (QoS, PFC, MTU ...) with them")))
        return
    read = next(((src, words) for src, words in commands if _read_on_interface(words)), None)
    if read is not None:
        src, words = read
        issues.add_once(ParseIssue(code="SYS002", source=chosen.source, message=(
            f"interface profile {chosen.value} applies its commands to the port, and losslessd does not apply them: "
            f"`{' '.join(words)[:80]}` ({src.file}:{src.line}) and the profile's other commands are not read for "
            "this port, so what they set on it is unknown")))


def _read_on_interface(words: list[str]) -> bool:
    """Whether an interface command (an interface profile's `command ...`) is one the interface reader reads."""
    command = body(interface_words(words))
    return bool(command) and command[0] in IF_READ and command[0] != "description"


def _port(cfg: EosConfig, name: str, iface: InterfaceConf, issues: Issues,
          resolved: dict[str, _Classes], vlan_lists: dict[AllowedVlans | None, list[int]]) -> Port:
    _interface_profile(cfg, iface, issues)
    layers: list[QosConf] = [iface]
    profile = cfg.profiles.get(iface.profile.value) if iface.profile else None
    if profile is not None:
        layers.insert(0, profile)
    port = Port(name=name, description=iface.description, source=iface.source,
                admin_up=iface.admin_up.value if iface.admin_up else True,  # EOS prints `shutdown` only when down
                speed_gbps=iface.speed.value if iface.speed else None,
                # EOS `mtu` is the layer-3 (IP) MTU: `show interfaces` prints it as "IP MTU" (EOS manual, Layer 3 MTU).
                mtu_bytes=iface.mtu.value if iface.mtu else None,
                qos_configured=any(layer.qos_lines for layer in layers),
                vlans=_member_vlans(cfg, name, iface, vlan_lists),
                # EOS User Manual, Port Channels: `channel-group N mode active|passive|on` makes the port a member of
                # Port-ChannelN (created with it), whose traffic is hashed over its members.
                bundle=f"Port-Channel{iface.channel_group}" if iface.channel_group is not None else None,
                # (reader.interface_line's `flowcontrol` lines; the default of a direction not written is in no source)
                link_pause=link_pause(iface, None))
    # EOS User Manual, Layer 2 configuration: an access port (the default switchport mode) sends its one VLAN untagged
    switching = cfg.port_channels.get(iface.channel_group) if iface.channel_group is not None else iface
    port.untagged_only = bool(port.vlans) and switching is not None and not (switching.trunk or switching.other_mode)
    if cfg.rewrite_dscp is not None and cfg.rewrite_dscp.value:
        # With `qos rewrite dscp` EOS remarks routed packets on egress by their TC; the running-config
        # shows the TCs given a `qos map traffic-class T to dscp D`, not EOS's default for the others.
        port.tc_to_dscp_rewrite = {tc: val.value for tc, val in sorted(cfg.tc_to_dscp.items())
                                   if val.value != MAP_UNREAD}
    if iface.profile is not None and profile is None:
        issues.append(ParseIssue(code="SYS002", source=iface.profile.source, message=(
            f"{name} uses service-profile {iface.profile.value}, which is not defined in this config: "
            "the port's PFC, watchdog and queue settings are unknown")))
        # A port that names a QoS profile is a QoS port; what the profile sets stays unknown (None).
        port.qos_configured = True
        _trust_and_maps(cfg, iface, layers, port, defaults=False)
        if cfg.pfc_all_off is not None:
            port.pfc_enabled, port.pfc_source, port.pfc_off_written = [], cfg.pfc_all_off, True
        return port
    _trust_and_maps(cfg, iface, layers, port, defaults=True)
    _policy_map(cfg, name, layers, port, issues, resolved)
    _pfc(cfg, layers, port)
    _watchdog(cfg, layers, port)
    _queues(layers, port)
    return port


def _member_vlans(cfg: EosConfig, name: str, iface: InterfaceConf,
                  shared: dict[AllowedVlans | None, list[int]]) -> list[int] | None:
    """A port's VLANs; a port-channel member's are its port-channel's switchport settings (EOS User Manual, Port
    Channels: the port-channel is the switching interface, its members carry its traffic), unknown (None, not VLAN
    1's) when the config has no `interface Port-ChannelN` block. A routed port or port-channel with a subinterface
    (EOS User Manual, "Subinterfaces": `encapsulation dot1q vlan V` tags its frames) is unknown too: not untagged."""
    switching = cfg.port_channels.get(iface.channel_group) if iface.channel_group is not None else iface
    vlans = _vlans(switching, shared) if switching is not None else None
    tagged = {name, f"Port-Channel{iface.channel_group}"} & cfg.tagged_parents
    return None if vlans == [] and tagged else vlans


def _vlans(iface: InterfaceConf, shared: dict[AllowedVlans | None, list[int]]) -> list[int]:
    """`no switchport`: routed ([]); else an access port (VLAN 1 unless `switchport access vlan N`) or a
    trunk carrying its allowed VLANs (all by default): `switchport` is the default mode (EOS User Manual,
    Layer 2 configuration: switchport modes)."""
    routed = routed_port(iface)
    if routed is not None and routed.value:
        return []
    if iface.trunk:
        # Ports trunking the same VLANs share one list (read-only; a trunk of every VLAN holds 4,094 of them): by
        # the allowed VLANs each interface's lines say (a port-channel's members read its one), every VLAN under None.
        key = iface.trunk_vlans
        if key not in shared:
            shared[key] = key.listed() if key is not None else list(VLAN_IDS)
        return shared[key]
    return [iface.access_vlan or 1]


def _trust_and_maps(cfg: EosConfig, iface: InterfaceConf, layers: list[QosConf], port: Port, defaults: bool) -> None:
    trust = _last(layers, "trust")
    # A `qos trust` line not read (a SYS002 says why) in the layer that decides: the trust is unknown, not the default.
    deciding = next((layer for layer in reversed(layers) if layer.trust is not None or layer.trust_unread), None)
    if deciding is not None and deciding.trust_unread is not None:
        port.trust_source = deciding.trust_unread
    elif trust is not None:
        port.trust, port.trust_source = trust.value, trust.source
    elif defaults:  # without them (missing service-profile) trust stays unknown
        # EOS default trust: DSCP on routed ports, CoS on switched ports (EOS User Manual, QoS, port trust
        # settings); `switchport` is the default mode.
        routed = routed_port(iface)
        port.trust, port.trust_source = (Trust.dscp, routed.source) if routed and routed.value else \
            (Trust.pcp, iface.source)
    if port.trust == Trust.dscp:
        port.dscp_to_tc = _effective(DEFAULT_DSCP_TO_TC, cfg.dscp_to_tc)
        port.dscp_defaulted = sorted(set(DEFAULT_DSCP_TO_TC) - set(cfg.dscp_to_tc))
        port.map_source = _first(cfg.dscp_to_tc)
    elif port.trust == Trust.pcp:
        port.pcp_to_tc = _effective(DEFAULT_COS_TO_TC, cfg.cos_to_tc)
        port.map_source = _first(cfg.cos_to_tc)
    # EOS default traffic-class -> tx-queue map is TC n -> queue n until `qos map traffic-class T to tx-queue Q`.
    port.tc_to_queue = _effective({tc: tc for tc in TRAFFIC_CLASSES}, cfg.tc_to_queue)
    port.map_source = port.map_source or _first(cfg.tc_to_queue)
    port.tc_to_priority = TC_PRIORITY
    if port.tc_to_queue is not None:
        port.pfc_priority_to_queue = {prio: [port.tc_to_queue[tc]] for tc, prio in TC_PRIORITY.items()}


# The by-hand step where the port's own qos policy-map classifies the lossless traffic (model Port.by_hand).
_BY_HAND = "give the lossless traffic its class in that policy-map by hand (or take the service-policy off the port)"


def _policy_map(cfg: EosConfig, name: str, layers: list[QosConf], port: Port, issues: Issues,
                resolved: dict[str, _Classes]) -> None:
    """`service-policy type qos input NAME` over the trust map. EOS User Manual, Traffic Management (QoS policies):
    a packet is handled by the first class of the policy map that matches it, and class-default, last in every
    policy map, takes the rest; `set traffic-class N` gives that traffic class N. A class on an ACL (or anything but
    DSCP) cannot be evaluated: one SYS002 for the policy, and the map shows what the other classes and trust give."""
    chosen = _last(layers, "service_policy")
    iface = layers[-1]
    channel = cfg.port_channels.get(iface.channel_group) if isinstance(iface, InterfaceConf) and \
        iface.channel_group is not None else None
    if chosen is None and channel is not None:
        chosen = channel.service_policy  # the port-channel's policy classifies what its members receive
    if chosen is None:
        return
    if chosen.value not in cfg.qos_policies:
        issues.add_once(ParseIssue(code="SYS002", source=chosen.source, message=(
            f"{name} uses qos policy-map {chosen.value}, which is not defined in this config: the traffic classes "
            "it sets are unknown, and with them how the port classifies (its trust applies only to what the "
            "policy does not match)")))
        # Its classes come before the trust map (a session binding the switch's own policy-map): which field sorts
        # the port's traffic, and into which class, is unknown, not the trust map's default (that read MAP003's
        # "trusts PCP, set trust dscp" for a port whose policy may well classify DSCP 26).
        port.trust = port.trust_source = port.dscp_to_tc = port.pcp_to_tc = port.dscp_defaulted = None
        port.map_source = port.trust_source = chosen.source
        port.trust_unknown = (f"which field classifies the port's traffic is unknown: it binds qos policy-map "
                              f"{chosen.value}, which is not defined in the input and classifies before the trust")
        return
    if chosen.value in cfg.qos_policy_unread:  # a `set traffic-class` of it was not read (a SYS002 says why)
        port.dscp_to_tc = port.pcp_to_tc = None
        return
    if chosen.value not in resolved:
        resolved[chosen.value] = _classes(cfg, chosen.value)
    claimed, default, unread, by_hand_dscp = resolved[chosen.value]
    if unread:
        issues.add_once(unread)
    if port.dscp_to_tc is not None and (any(tc is not None for tc in claimed.values()) or default is not None):
        trust = port.dscp_to_tc
        base = {d: default.value for d in trust} if default is not None else trust
        port.dscp_to_tc = {**base, **{d: trust[d] if tc is None else tc for d, tc in claimed.items()
                                       if tc is not None or d in trust}}
        port.dscp_defaulted = [d for d in port.dscp_defaulted or []
                               if (d not in claimed and default is None) or (d in claimed and claimed[d] is None)]
        port.map_source = cfg.qos_policy_sources.get(chosen.value, chosen.source)
    elif port.trust in (Trust.pcp, Trust.none) and any(tc is not None for tc in claimed.values()):
        # (EOS User Manual, QoS chapter, policy-map type qos: `set traffic-class N` gives the packets a class matches
        # traffic class N, whatever the port trusts; the trust map classifies only what no class sets.) A port that
        # trusts CoS (EOS's default on a switched port) binding classes on `match dscp` sorts that traffic by its
        # DSCP: it read as trusting PCP, and MAP003 said "set trust dscp" (an error) where the policy already does.
        # A DSCP no class sets keeps the CoS map's class (class-default's where it sets one): no DSCP entry.
        base = {d: default.value for d in range(64) if d not in claimed} if default is not None else {}
        port.dscp_to_tc = {**base, **{d: tc for d, tc in claimed.items() if tc is not None}}
        # (the DSCPs no class sets fall to the CoS map where the port trusts CoS; with `no qos trust` to none)
        port.dscp_unmapped_by_pcp = port.trust == Trust.pcp
        port.dscp_defaulted = []
        port.trust, port.trust_source = Trust.dscp, chosen.source
        port.map_source = cfg.qos_policy_sources.get(chosen.value, chosen.source)
    if port.pcp_to_tc is not None and default is not None:
        port.pcp_to_tc = {c: default.value for c in port.pcp_to_tc}  # class-default takes tagged traffic too
    if default is not None:
        # (EOS User Manual, QoS policies: class-default classifies every packet no class before it matches, over the
        # trust map; losslessd never rewrites a device's own policy-map classes)
        why = (f"its qos policy-map {chosen.value} (service-policy type qos input) sets traffic-class {default.value} "
               "in class class-default, which takes every packet its other classes do not match whatever the port "
               f"trusts and its maps say: {_BY_HAND}")
        port.by_hand = {"trust": why, "maps": why}
    # (which of these DSCPs the policy names lossless or CNP, and what class it wants for them, render._check_by_hand
    # decides; one dict for every port that binds the policy)
    port.by_hand_dscp = by_hand_dscp


def _classes(cfg: EosConfig, policy: str) -> _Classes:
    """A policy-map's classes resolved once for every port that uses it (not again per port: ports x classes). EOS
    User Manual, QoS policies: the first class that matches a packet takes it, before the trust map. A class losslessd
    cannot evaluate (an ACL, CoS, VLAN or ECN match, a class-map not defined here) that sets a traffic class may take
    any DSCP's traffic no class before it matches (a `match dscp D ecn E` class: some of D's), before the DSCP classes
    after it: each such DSCP is by hand too, as one a DSCP class sets."""
    claimed: dict[int, int | None] = {}
    hand: dict[int, tuple[int, str]] = {}  # DSCP -> (traffic class, why) of the first class that sets it one
    unread: list[tuple[str, Source]] = []
    default = None
    head = f"its qos policy-map {policy} (service-policy type qos input) sets traffic-class"
    tail = f"before the trust map whatever the port trusts and its maps say: {_BY_HAND}"
    for class_name, tc, src in cfg.qos_policies[policy]:
        if class_name == "class-default":
            default = tc if tc is not None else default
            continue
        cmap = cfg.class_maps.get(class_name)
        # (what the class may take of DSCPs it does not take whole: every DSCP, or an ECN class's own)
        may = (set(range(64)) if cmap is None or cmap.other else cmap.dscp_ecn - cmap.dscp) - set(claimed)
        if tc is not None and may:  # (none left: classes before it take all it may match, so it takes nothing)
            unread.append((class_name, src))
            what = ("is not defined in the input" if cmap is None else "matches on something losslessd does not "
                    "evaluate (an ACL, CoS, a VLAN, ECN bits)" if cmap.other else "matches DSCP with its ECN bits")
            for dscp in sorted(may - set(hand)):
                hand[dscp] = (tc.value, f"{head} {tc.value} in class {class_name}, which {what} and may take DSCP "
                                        f"{dscp} traffic {tail}")
        if cmap is None or cmap.other:
            continue
        for dscp in sorted(cmap.dscp - set(claimed)):
            claimed[dscp] = None if tc is None else tc.value
            if tc is not None and dscp not in hand:
                hand[dscp] = (tc.value, f"{head} {tc.value} for DSCP {dscp} in class {class_name}, which takes that "
                                        f"traffic {tail}")
    issue = ParseIssue(code="SYS002", source=unread[0][1], message=(
        f"qos policy-map {policy} sets a traffic class for class {', '.join(n for n, _ in unread)}, matched "
        "on something other than DSCP alone (an ACL, CoS, a VLAN, ECN bits) or not defined here: losslessd does not "
        "evaluate it, so the DSCP map shown is what the policy's other classes and the trust map give")) if unread \
        else None
    return claimed, default, issue, hand or None


def _effective(default: dict[int, int], overrides: dict[int, Val]) -> dict[int, int] | None:
    """EOS's default map with the configured entries over it; None (unknown) when a line of the map was not read: the
    model has no unknown entry, and a missing one means "no entry"."""
    if any(val.value == MAP_UNREAD for val in overrides.values()):
        return None
    return {**default, **{key: val.value for key, val in overrides.items()}}


def _first(table: dict[int, Val]) -> Source | None:
    return min((v.source for v in table.values()), key=lambda s: (s.file or "", s.line or 0), default=None)


def _pfc(cfg: EosConfig, layers: list[QosConf], port: Port) -> None:
    priorities: dict[int, Val] = {}
    for layer in layers:
        priorities.update(layer.priorities)
    mode = _last(layers, "pfc")
    if cfg.pfc_all_off is not None:
        port.pfc_enabled, port.pfc_source, port.pfc_off_written = [], cfg.pfc_all_off, True
        return
    unread = next((layer.pfc_unread for layer in layers if layer.pfc_unread is not None), None)
    if unread is not None:  # a PFC line of the port or its profile was not read (a SYS002 says why): unknown
        port.pfc_source = unread
        return
    if mode is None or not mode.value:
        # PFC is off on EOS until `priority-flow-control on`, whatever the no-drop priorities say.
        port.pfc_enabled = []
        port.pfc_source = mode.source if mode else _first(priorities)
        # (`no priority-flow-control`, `priority-flow-control off`): an explicit off (PFC006's) only where no no-drop
        # priority is written for the port (or its profile); with one it is PFC written without effect (PFC001)
        port.pfc_off_written = mode is not None and not any(val.value for val in priorities.values())
        port.pfc_declared = sorted(p for p, val in priorities.items() if val.value) or None
        port.pfc_switch = "`priority-flow-control on` on the port (or its qos profile)" if port.pfc_declared else None
        return
    port.pfc_enabled = sorted(p for p, val in priorities.items() if val.value)
    port.pfc_source = mode.source
    # EOS has no priority-group configuration: the platform reserves headroom for each no-drop priority
    # itself, so there is no profile in the running-config to check.
    port.tc_to_pg = {tc: tc for tc in TRAFFIC_CLASSES}
    for prio in port.pfc_enabled:
        port.priority_groups[prio] = PriorityGroup(index=prio, runtime_profile=True, source=priorities[prio].source)


def _watchdog(cfg: EosConfig, layers: list[QosConf], port: Port) -> None:
    unread = next((layer.wd_unread for layer in layers if layer.wd_unread is not None), None)
    if unread is not None:  # a watchdog line of the port or its profile was not read (a SYS002 says why): unknown
        port.watchdog = Watchdog(enabled=None, source=unread)
        return
    # The port's switch is on unless `no priority-flow-control pause watchdog`: `show running-config all` prints the
    # positive line on every port nobody configured, PFC off too (batfish arista_interface_show_run_all*, EOS 4.19.1F,
    # 4.21.7M, 4.22.3M), so a port without the line is as one with it.
    switch = _last(layers, "watchdog")
    if switch is not None and not switch.value:
        port.watchdog = Watchdog(enabled=False, source=switch.source)
        return
    timers = dict(cfg.wd_timers)
    for layer in layers:
        timers.update(layer.wd_timers)
    timeout = timers.get("timeout")
    if timeout is None:
        # Arista's documents reached (the EOS manual's "DCBX and Flow Control", AVD's schema, the AI fabric guide as a
        # RoCE guide quotes it) start it with a timeout and name no built-in one, and no `show priority-flow-control`
        # of a switch without one was found: whether it watches is unknown, not off (session 40 part d)
        port.watchdog = Watchdog(enabled=None, source=switch.source if switch else None, unknown=(
            "whether the PFC watchdog watches the port's queues is unknown: its switch is on (no `no "
            "priority-flow-control pause watchdog`), but no timeout applies (no global `priority-flow-control pause "
            "watchdog default timeout SECONDS`, no `port timer`) and no Arista document losslessd read names a "
            "built-in one"))
        return
    action = _last(layers, "wd_action") or cfg.wd_action
    word = action.value if action else DEFAULT_WATCHDOG_ACTION

    def timer(key: str) -> float | None:
        return timers[key].value if key in timers else None

    port.watchdog = Watchdog(enabled=True, detection_time_ms=timer("timeout"),
                             restoration_time_ms=timer("recovery-time"), polling_interval_ms=timer("polling-interval"),
                             action=WATCHDOG_ACTION_WORDS[word], action_raw=word, source=(switch or timeout).source)


def _queues(layers: list[QosConf], port: Port) -> None:
    merged: dict[int, QueueConf] = {}
    for layer in layers:
        for index, conf in layer.queues.items():
            queue = merged.setdefault(index, QueueConf(source=conf.source))
            queue.source = conf.source
            for attr in ("strict", "bandwidth", "ecn", "shaped", "drop"):
                if getattr(conf, attr) is not None:
                    setattr(queue, attr, getattr(conf, attr))
    # a binding not read may set the marking of a queue no line of the port or its profile sets: unknown, not off
    unread = next((layer.queues_unread for layer in layers if layer.queues_unread is not None), None)
    if unread is not None:
        for index in QUEUES:
            queue = merged.setdefault(index, QueueConf(source=unread))
            if queue.ecn is None:
                queue.ecn = Val(ECN_UNREAD, unread)
    round_robin = [i for i, q in merged.items() if q.strict is not None and not q.strict.value]
    top_rr = max(round_robin, default=-1)
    for index in sorted(set(QUEUES) | set(merged)):
        conf = merged.get(index)
        own = conf.strict if conf else None
        if index <= top_rr:
            weight = conf.bandwidth.value if conf and conf.bandwidth else None
            scheduler = Scheduler(type=SchedulerType.wrr, weight=weight,
                                  source=(own if own and not own.value else merged[top_rr].strict).source)
        else:
            # Strict is the default here; a `priority strict` line only restates it (`show running-config all`).
            scheduler = Scheduler(type=SchedulerType.strict, default=True, source=own.source if own else None,
                                  shaped=bool(conf and conf.shaped and conf.shaped.value))
        port.queues[index] = Queue(index=index, scheduler=scheduler, source=conf.source if conf else None,
                                   ecn=_ecn(conf.ecn if conf else None, port.speed_gbps, conf.drop if conf else None))


def _ecn(val: Val | None, speed_gbps: float | None, drop: Val | None = None) -> Ecn:
    """The queue's marking; what its WRED drops (Ecn.wred_drops) only where it drops and marks nothing: "all" for a
    `random-detect drop` of every drop precedence, else not known (what EOS does with a packet that ECN cannot mark
    beside WRED is not in the sources losslessd cites)."""
    if val is not None and val.value == ECN_UNREAD:  # its line was not read (a SYS002 says why)
        return Ecn(ecn_enabled=None, source=val.source)
    raw: RawEcn | None = val.value if val else None
    if raw is None:  # no `random-detect ecn` thresholds (or `no random-detect ecn`): no marking
        if drop is not None and drop.value:
            return Ecn(ecn_enabled=False, source=drop.source, wred_drops="all")
        return Ecn(ecn_enabled=False, source=val.source if val else None)
    kmin, kmax = _bytes(raw.kmin, speed_gbps), _bytes(raw.kmax, speed_gbps)
    return Ecn(profile=raw.profile, ecn_enabled=True, min_threshold_bytes=kmin, max_threshold_bytes=kmax,
               mark_probability_pct=raw.probability, source=val.source,
               unconverted=raw.text if kmin is None or kmax is None else None)


def _bytes(th: Threshold, speed_gbps: float | None) -> int | None:
    """Queue depth in bytes; None for segments (buffer cells, whose size depends on the ASIC and is not in the
    running-config), for time without a known port speed, and for unknown units."""
    if th.kind == "bytes":
        return units.to_bytes(f"{th.text} {th.unit}")
    if th.kind == "time":
        return units.time_to_bytes(units.to_ms(f"{th.text} {th.unit}"), speed_gbps)
    return None
