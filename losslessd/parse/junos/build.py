"""Tie the named class-of-service objects to each port: classifier, forwarding classes, PFC profile, scheduler-map."""

from __future__ import annotations

from fnmatch import fnmatchcase

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
from ...units import time_to_bytes
from .reader import PHYSICAL, WATCHDOG_DEFAULTS, Cnp, CosInterface, ForwardingClass, JunosConfig, SchedulerConf, Val

# PFC watchdog action when none is configured: drop (Junos AI-ML data center guide, "PFC Watchdog":
# "By default, all ports use the drop action").
DEFAULT_WATCHDOG_ACTION = "drop"
# Junos `pfc-watchdog watchdog-action` words (drop | forward) -> the model's actions; another word keeps the
# action unknown (its raw word is still shown).
WATCHDOG_ACTION_WORDS = {"drop": "drop", "forward": "forward"}


def build(cfg: JunosConfig, platform: str, name: str, path: str, issues: list[ParseIssue]) -> Device:
    device = Device(name=cfg.hostname or name, kind=DeviceKind.switch, platform=platform, issues=issues,
                    source=Source(file=path))
    names = set(cfg.interfaces) | {n for n in cfg.cos_interfaces if PHYSICAL.match(n)}
    for port_name in sorted(names):
        device.ports[port_name] = _port(cfg, port_name, device.issues)
    return device


def _cos_conf(cfg: JunosConfig, name: str) -> CosInterface | None:
    """The port's own `class-of-service interfaces` settings over those of wildcard entries (`et-0/0/*`)."""
    layers = [conf for pattern, conf in cfg.cos_interfaces.items() if pattern != name and fnmatchcase(name, pattern)]
    if name in cfg.cos_interfaces:
        layers.append(cfg.cos_interfaces[name])
    if not layers:
        return None
    merged = CosInterface(source=layers[-1].source)
    for layer in layers:
        for attr in ("cnp", "scheduler_map", "traffic_control_profile", "dscp_classifier", "pcp_classifier"):
            if getattr(layer, attr) is not None:
                setattr(merged, attr, getattr(layer, attr))
    return merged


def _port(cfg: JunosConfig, name: str, issues: list[ParseIssue]) -> Port:
    iface = cfg.interfaces.get(name)
    conf = _cos_conf(cfg, name)
    port = Port(name=name, source=iface.source if iface else conf.source if conf else None,
                description=iface.description if iface else None,
                mtu_bytes=iface.mtu.value if iface and iface.mtu else None,
                speed_gbps=iface.speed_gbps if iface else None,
                admin_up=not (iface and iface.disabled))  # Junos prints `disable` only for a port that is down
    # PFC and the watchdog are off on Junos until a congestion-notification-profile is applied.
    port.pfc_enabled, port.watchdog = [], Watchdog(enabled=False)
    if conf is None:
        return port
    port.qos_configured = any(v is not None for v in (conf.cnp, conf.scheduler_map, conf.traffic_control_profile,
                                                      conf.dscp_classifier, conf.pcp_classifier))
    _classify(cfg, conf, port, issues)
    _pfc(cfg, conf, port, issues)
    _queues(cfg, conf, port, issues)
    return port


def _missing(issues: list[ParseIssue], port: Port, what: str, ref: Val, effect: str) -> None:
    issues.append(ParseIssue(code="SYS002", source=ref.source, message=(
        f"{port.name} uses {what} {ref.value}, which is not defined in this configuration: {effect}")))


def _classify(cfg: JunosConfig, conf: CosInterface, port: Port, issues: list[ParseIssue]) -> None:
    """A DSCP classifier on the port means it trusts DSCP; the TC is the forwarding class's queue number."""
    for ref, table, trust, attr in ((conf.pcp_classifier, cfg.pcp_classifiers, Trust.pcp, "pcp_to_tc"),
                                    (conf.dscp_classifier, cfg.dscp_classifiers, Trust.dscp, "dscp_to_tc")):
        if ref is None:
            continue
        port.trust, port.trust_source = trust, ref.source
        entries = table.get(ref.value)
        if entries is None:
            _missing(issues, port, "classifier", ref, "its DSCP/priority map is unknown")
            continue
        mapping = {}
        for code, fc in sorted(entries.items()):
            if fc.value not in cfg.classes:
                issues.append(ParseIssue(code="SYS002", source=fc.source, message=(
                    f"classifier {ref.value} sends code point {code} to forwarding class {fc.value}, "
                    "which has no queue-num in this configuration")))
                continue
            mapping[code] = cfg.classes[fc.value].queue
        # Code points the classifier does not list are left out: where they go is not in the configuration.
        setattr(port, attr, mapping)
        port.map_source = min((v.source for v in entries.values()), key=lambda s: s.line or 0, default=None)
    pfc_priorities = {fc.queue: fc.pfc_priority.value for fc in cfg.classes.values() if fc.pfc_priority}
    if pfc_priorities:  # `pfc-priority` sends a forwarding class's pauses with another priority than its queue
        port.tc_to_priority = {tc: pfc_priorities.get(tc, tc) for tc in range(8)}


def _class_of(cfg: JunosConfig, conf: CosInterface, dscp: int) -> ForwardingClass | None:
    entries = cfg.dscp_classifiers.get(conf.dscp_classifier.value, {}) if conf.dscp_classifier else {}
    fc = entries.get(dscp)
    return cfg.classes.get(fc.value) if fc else None


def _pfc(cfg: JunosConfig, conf: CosInterface, port: Port, issues: list[ParseIssue]) -> None:
    if conf.cnp is None:
        return
    cnp = cfg.cnps.get(conf.cnp.value)
    if cnp is None:
        _missing(issues, port, "congestion-notification-profile", conf.cnp, "its PFC and watchdog are unknown")
        port.pfc_enabled, port.watchdog = None, None
        return
    enabled: dict[int, Source] = dict(cnp.pcp)
    for dscp, src in cnp.dscp.items():
        # DSCP-based PFC pauses the priority of the forwarding class the classifier gives that DSCP: its
        # pfc-priority, which needs a no-loss class (Junos "Configuring DSCP-based PFC for Layer 3 Untagged Traffic").
        fc = _class_of(cfg, conf, dscp)
        if fc is None:
            issues.append(ParseIssue(code="SYS002", source=src, message=(
                f"{port.name}: PFC on DSCP {dscp}, but the port's classifier gives DSCP {dscp} no forwarding class, "
                "so no PFC priority can be told")))
            continue
        if not fc.no_loss:
            continue  # not lossless without `no-loss`: the port does not pause for it
        enabled[fc.pfc_priority.value if fc.pfc_priority else fc.queue] = src
    port.pfc_enabled = sorted(enabled)
    port.pfc_source = conf.cnp.source
    if cnp.flow_control_queue:
        port.pfc_priority_to_queue = dict(sorted(cnp.flow_control_queue.items()))
    # QFX has no priority-group configuration: ingress headroom for no-loss classes comes from the shared buffer
    # at run time, so there is no profile here to check.
    port.tc_to_pg = {tc: tc for tc in range(8)}
    for tc, prio in (port.tc_to_priority or {p: p for p in range(8)}).items():
        if prio in enabled:
            port.priority_groups[tc] = PriorityGroup(index=tc, runtime_profile=True, source=enabled[prio])
    port.watchdog = _watchdog(cnp)


def _watchdog(cnp: Cnp) -> Watchdog:
    if cnp.watchdog is None:
        return Watchdog(enabled=False, source=cnp.source)

    def opt(key: str) -> float:
        return cnp.wd[key].value if key in cnp.wd else WATCHDOG_DEFAULTS[key]

    # Detection is a count of polling intervals (Junos CoS guide, "PFC Watchdog").
    action = cnp.wd.get("action")
    return Watchdog(enabled=True, polling_interval_ms=opt("poll-interval"),
                    detection_time_ms=opt("detection") * opt("poll-interval"), restoration_time_ms=opt("recovery"),
                    action=WATCHDOG_ACTION_WORDS.get(action.value if action else DEFAULT_WATCHDOG_ACTION),
                    action_raw=action.value if action else DEFAULT_WATCHDOG_ACTION, source=cnp.watchdog)


def _queues(cfg: JunosConfig, conf: CosInterface, port: Port, issues: list[ParseIssue]) -> None:
    ref = conf.scheduler_map
    if conf.traffic_control_profile is not None:  # ETS: forwarding-class-set -> traffic-control-profile -> map
        ref = cfg.traffic_control_profiles.get(conf.traffic_control_profile.value)
        if ref is None:
            _unknown_queues(issues, port, "traffic-control-profile", conf.traffic_control_profile)
            return
    if ref is None:
        return
    smap = cfg.scheduler_maps.get(ref.value)
    if smap is None:
        _unknown_queues(issues, port, "scheduler-map", ref)
        return
    for fc_name, sched_ref in smap.items():
        fc = cfg.classes.get(fc_name)
        sched = cfg.schedulers.get(sched_ref.value)
        if fc is None or sched is None:
            issues.append(ParseIssue(code="SYS002", source=sched_ref.source, message=(
                f"scheduler-map {ref.value}: " + (f"forwarding class {fc_name}" if fc is None else
                                                  f"scheduler {sched_ref.value}") + " is not defined")))
            continue
        scheduler = (Scheduler(name=sched_ref.value, type=SchedulerType.strict, source=sched.strict) if sched.strict
                     else Scheduler(name=sched_ref.value, type=SchedulerType.wrr, weight=sched.rate_pct,
                                    source=sched.source))
        port.queues[fc.queue] = Queue(index=fc.queue, scheduler=scheduler, source=sched_ref.source,
                                      ecn=_ecn(cfg, sched, port.speed_gbps, issues))


def _unknown_queues(issues: list[ParseIssue], port: Port, what: str, ref: Val) -> None:
    """A missing scheduler-map leaves every queue's scheduler and ECN unknown (not off)."""
    _missing(issues, port, what, ref, "its queue scheduling and ECN are unknown")
    port.queues = {i: Queue(index=i, ecn=Ecn(source=ref.source), source=ref.source) for i in range(8)}


def _ecn(cfg: JunosConfig, sched: SchedulerConf, speed_gbps: float | None, issues: list[ParseIssue]) -> Ecn:
    """ECN marks where the drop profile would drop (ECN-capable packets only); without a drop profile no marking.

    Fill levels are percent of the queue's buffer: bytes only when the scheduler sizes that buffer in time
    (`buffer-size temporal`) and the port's speed is known."""
    if sched.ecn is None or sched.drop_profile is None:
        return Ecn(ecn_enabled=False, source=sched.ecn or sched.source)
    name = sched.drop_profile.value
    profile = cfg.drop_profiles.get(name)
    if profile is None:
        issues.append(ParseIssue(code="SYS002", source=sched.drop_profile.source,
                                 message=f"drop profile {name} is not defined: the queue's ECN thresholds are unknown"))
        return Ecn(profile=name, ecn_enabled=True, source=sched.ecn)
    points = sorted(profile.points or list(zip(profile.fills, profile.probs)))
    if not points or (profile.fills and len(profile.fills) != len(profile.probs)):
        issues.append(ParseIssue(code="SYS002", source=profile.source, message=(
            f"drop profile {name} has no complete fill-level / drop-probability pairs")))
        return Ecn(profile=name, ecn_enabled=True, source=sched.ecn)
    pmax = max(p for _, p in points)
    kmin = max((f for f, p in points if p == 0), default=points[0][0])  # marking starts above the last 0 % point
    kmax = min(f for f, p in points if p == pmax)
    buffer = time_to_bytes(sched.buffer_us.value / 1000, speed_gbps) if sched.buffer_us else None
    if buffer is not None:
        return Ecn(profile=name, ecn_enabled=True, mark_probability_pct=pmax, source=sched.ecn,
                   min_threshold_bytes=round(buffer * kmin / 100), max_threshold_bytes=round(buffer * kmax / 100))
    size = (f"a {sched.buffer_us.value:g} us queue buffer at an unknown port speed" if sched.buffer_us
            else "the queue buffer")
    return Ecn(profile=name, ecn_enabled=True, mark_probability_pct=pmax, source=sched.ecn,
               unconverted=f"fill-level {kmin:g}% to {kmax:g}% of {size} (drop profile {name})")
