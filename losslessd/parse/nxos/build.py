"""Turn what the reader found into the model: the qos, queuing and network-qos policies each port uses."""

from __future__ import annotations

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
from ..clitext import Val
from .reader import InterfaceConf, NxosConfig, QueueConf

QUEUES = range(8)
# Nexus 9000 QoS guide, classification: traffic no qos policy class matches stays in qos-group 0 (class-default).
DEFAULT_QOS_GROUP = 0
# Nexus 9000 QoS guide, PFC watchdog workflow: the stuck-queue poll timer is 100 ms; a stuck no-drop queue
# is shut and its packets dropped.
DEFAULT_WD_INTERVAL_MS = 100.0
WATCHDOG_ACTION = "drop"


def build(cfg: NxosConfig, platform: str, name: str, path: str) -> Device:
    device = Device(name=cfg.hostname or name, kind=DeviceKind.switch, platform=platform,
                    issues=list(cfg.issues), source=Source(file=path))
    for port_name, iface in cfg.interfaces.items():
        device.ports[port_name] = _port(cfg, port_name, iface, device.issues)
    return device


def _policy(cfg: NxosConfig, own: Val | None, kind: str, table: dict, port: str,
            issues: list[ParseIssue]) -> tuple[str | None, Source | None, object]:
    """The policy the port uses (its own service-policy, else the `system qos` one): name, line, contents."""
    chosen = own or cfg.system.get(kind)
    if chosen is None:
        return None, None, None
    if chosen.value not in table:
        issues.append(ParseIssue(code="SYS002", source=chosen.source, message=(
            f"{port} uses {kind} policy-map {chosen.value}, which is not defined in this config: "
            "what it sets on the port is unknown")))
        return chosen.value, chosen.source, None
    return chosen.value, chosen.source, table[chosen.value]


def _port(cfg: NxosConfig, name: str, iface: InterfaceConf, issues: list[ParseIssue]) -> Port:
    own = (iface.pfc_mode, iface.watchdog, iface.qos_policy, iface.queuing_policy)
    port = Port(name=name, description=iface.description, source=iface.source,
                speed_gbps=iface.speed.value if iface.speed else None,
                mtu_bytes=iface.mtu.value if iface.mtu else None,
                admin_up=iface.admin_up.value if iface.admin_up else None,
                qos_configured=any(v is not None for v in own))
    _classification(cfg, iface, port, issues)
    _pfc(cfg, iface, port, issues)
    _watchdog(cfg, iface, port)
    _queues(cfg, iface, port, issues)
    return port


def _classification(cfg: NxosConfig, iface: InterfaceConf, port: Port, issues: list[ParseIssue]) -> None:
    """DSCP -> qos-group from the qos policy's classes in order (the first class that matches wins;
    class-default always comes last, wherever a merged-in snippet added classes)."""
    _, src, classes = _policy(cfg, iface.qos_policy, "qos", cfg.qos_policies, port.name, issues)
    if classes is None:
        return
    dscp_to_tc: dict[int, int] = {}
    first: Source | None = None
    for class_name, group in sorted(classes.items(), key=lambda item: item[0] == "class-default"):
        matched = set(range(64)) if class_name == "class-default" else None
        if matched is None:
            cmap = cfg.class_maps.get(class_name)
            if cmap is None or cmap.dscp is None:
                # A class on CoS/ACL/an undefined class-map: which DSCPs it takes is unknown.
                issues.append(ParseIssue(code="SYS002", source=group.source if group else src, message=(
                    f"{port.name}: qos class {class_name} does not match on DSCP only (or is not defined), so "
                    "the DSCP -> qos-group map of this port is unknown")))
                return
            matched = cmap.dscp
        for dscp in sorted(matched - set(dscp_to_tc)):
            dscp_to_tc[dscp] = group.value if group else DEFAULT_QOS_GROUP
        if group is not None:
            first = first or group.source
    for dscp in range(64):
        dscp_to_tc.setdefault(dscp, DEFAULT_QOS_GROUP)
    port.dscp_to_tc, port.map_source = dscp_to_tc, first or src
    port.trust, port.trust_source = Trust.dscp, src  # a DSCP classification policy: the port acts on DSCP


def _pfc(cfg: NxosConfig, iface: InterfaceConf, port: Port, issues: list[ParseIssue]) -> None:
    """No-drop CoS values come from the system network-qos policy; the interface's mode switches PFC on."""
    mode = iface.pfc_mode
    if mode is not None and mode.value == "off":
        port.pfc_enabled, port.pfc_source = [], mode.source
        return
    if mode is None or mode.value == "auto":
        # Default mode is auto: PFC is on only if DCBX negotiation with the peer succeeds (NX-API
        # "Configuring Priority Flow Control"), which the config cannot show.
        return
    _, _, classes = _policy(cfg, None, "network-qos", cfg.nq_policies, port.name, issues)
    if classes is None and cfg.system.get("network-qos"):
        return  # the no-drop classes are in a policy this config lacks
    no_drop = {} if classes is None else {c.qos_group: c.pfc_cos for c in classes.values() if c.pfc_cos}
    port.pfc_enabled = sorted({cos for val in no_drop.values() for cos in val.value})
    port.pfc_source = mode.source
    tc_to_priority = {tc: tc for tc in QUEUES}
    for group, val in no_drop.items():
        tc_to_priority[group] = val.value[0]
        port.priority_groups[val.value[0]] = PriorityGroup(index=val.value[0], runtime_profile=True,
                                                           source=val.source)
    if any(tc != prio for tc, prio in tc_to_priority.items()):
        port.tc_to_priority = tc_to_priority
    # A pause for a pfc-cos value stops the queue of the class that lists it (qos-group N -> queue N).
    port.pfc_priority_to_queue = {cos: group for group, val in no_drop.items() for cos in val.value}
    # NX-OS has no priority-group configuration: the switch sizes no-drop headroom itself.
    port.tc_to_pg = dict(tc_to_priority)


def _watchdog(cfg: NxosConfig, iface: InterfaceConf, port: Port) -> None:
    enabled = iface.watchdog or cfg.watchdog
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


def _queues(cfg: NxosConfig, iface: InterfaceConf, port: Port, issues: list[ParseIssue]) -> None:
    _, src, queues = _policy(cfg, iface.queuing_policy, "queuing", cfg.queuing_policies, port.name, issues)
    if queues is None:
        return
    for index in sorted(set(QUEUES) | set(queues)):
        conf: QueueConf | None = queues.get(index)
        if conf is None:  # not in the policy: no WRED/ECN, no scheduling settings shown
            port.queues[index] = Queue(index=index, ecn=Ecn(ecn_enabled=False, source=src), source=src)
            continue
        if conf.strict is not None:
            scheduler = Scheduler(type=SchedulerType.strict, source=conf.strict.source)
        else:  # Nexus 9000 QoS guide: non-priority queues share the remaining bandwidth by DWRR
            scheduler = Scheduler(type=SchedulerType.dwrr, weight=conf.bandwidth.value if conf.bandwidth else None,
                                  source=conf.bandwidth.source if conf.bandwidth else conf.source)
        port.queues[index] = Queue(index=index, scheduler=scheduler, source=conf.source, ecn=_ecn(conf))


def _ecn(conf: QueueConf) -> Ecn:
    if conf.wred is None or not conf.wred.value.ecn:  # no WRED, or WRED that drops instead of marking
        return Ecn(ecn_enabled=False, source=conf.wred.source if conf.wred else conf.source)
    raw = conf.wred.value
    return Ecn(ecn_enabled=True, min_threshold_bytes=raw.kmin, max_threshold_bytes=raw.kmax,
               mark_probability_pct=raw.probability, source=conf.wred.source,
               unconverted=raw.text if raw.kmin is None or raw.kmax is None else None)
