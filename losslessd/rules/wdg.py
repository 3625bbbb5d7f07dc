"""WDG: the PFC watchdog guards every lossless priority of RoCE-facing switch ports, in the queue it uses, with sane
timers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import PortRule, Rule, register
from ..model import Device, DeviceKind, Port
from ..platforms import PLATFORMS
from .common import numbers, queues_text

# The line that starts the watchdog on a port, so WDG001 names what to add (ports are named by the report, not here).
_START = {
    # sonic-utilities pfcwd/main.py: `pfcwd start [--action A] [--restoration-time MS] PORTS... DETECTION_MS`
    "sonic": "`pfcwd start --action <action> <ports> <detection-ms>`",
    # EOS: the global timeout starts it on each port whose default-on switch no `no` line turns off (parse/eos/build.py)
    "arista_eos": "the global `priority-flow-control pause watchdog default timeout <seconds>`, and no "
                  "`no priority-flow-control pause watchdog` on the interface or its qos profile",
    # Nexus 9000 NX-OS QoS Configuration Guide, "Configuring a Priority Flow Control Watchdog Interval"
    "cisco_nxos": "the interface's `priority-flow-control watch-dog-interval on`",
    # Junos CoS guide, "PFC Watchdog": `set class-of-service congestion-notification-profile NAME pfc-watchdog`
    "juniper_junos": "`pfc-watchdog` in the port's congestion-notification-profile",
    # NVUE command reference, QoS: `nv set interface <interface-id> qos pfc-watchdog state (enable|disable)`, default
    # disable (the bare `qos pfc-watchdog` leaves a port's `state disable` as it is)
    "nvidia_cumulus": "`nv set interface <ports> qos pfc-watchdog state enable`",
}
# The line that sets which priorities a running watchdog covers. sonic-utilities: `pfcwd start` never writes
# `pfcwd_sw_enable` (only scripts/db_migrator.py does, copying pfc_enable), so starting it again covers nothing new.
# sonic-swss 5329c3927 (202205 on): orchagent watches the priorities pfcwd_sw_enable lists, none where it is left out.
_COVER = {"sonic": "`pfcwd_sw_enable` in the port's PORT_QOS_MAP, which lists the priorities SONiC 202205 and later "
                   "watch, none where it is left out"}


class _WdgRule(PortRule):
    depends_on_pfc = True


@register
class PfcWatchdogDisabled(_WdgRule):
    """A lossless priority of a RoCE-facing port has no PFC watchdog.

    ## What it checks
    When the policy requires a watchdog (`watchdog.required`), every RoCE-facing switch port has
    the PFC watchdog on, covering every lossless priority (a watchdog that lists its priorities
    must list each lossless one). One finding per port and priority; a port whose watchdog state
    the input does not show is reported once as unverified, as is one whose watchdog is on but
    whose watched priorities the input leaves to the switch (a SONiC CONFIG_DB part writing no
    `pfcwd_sw_enable`, which loading it keeps as the switch has it, or a whole one naming no release, or
    202012's or 202106's, with `pfcwd_sw_enable` left out or other than `pfc_enable`: 202205 and later watch
    what it lists, none where it is left out, 202111 and before the `pfc_enable` priorities); one whose config
    leaves it unknown (EOS: the port's switch is on, but no timeout is set and none is documented) is
    a warning per priority. Silent when the policy does not require a watchdog.

    ## Why it matters
    A NIC or switch that keeps sending PFC pauses (a PFC storm, or a deadlock of pauses) stops the
    lossless class on every upstream hop. The watchdog detects a queue paused for too long and
    drops or forwards its traffic, so the storm stays on one link.

    ## Failing example
    SONiC port with `pfc_enable: "3,4"` and no `PFC_WD|Ethernet0` entry, or EOS with `no
    priority-flow-control pause watchdog` on the port: `PFC watchdog is off; lossless priority 3 is
    unguarded`. EOS with no watchdog timeout (global `priority-flow-control pause watchdog default
    timeout`, or the port's `port timer`): a warning, `whether the PFC watchdog watches the port's
    queues is unknown`.

    ## Passing example
    `PFC_WD|Ethernet0: {action: drop, detection_time: 200, restoration_time: 200}`.

    ## Fix
    Start the watchdog on the port (SONiC `pfcwd start --action drop Ethernet0 200
    --restoration-time 200`, or `pfcwd start_default`; EOS `priority-flow-control pause watchdog
    default timeout <seconds>`, which starts it on every port without `no priority-flow-control pause
    watchdog`), covering every lossless priority (SONiC: list it in the port's `pfcwd_sw_enable`,
    which `pfcwd start` leaves as it is).
    """

    code = "WDG001"
    name = "pfc-watchdog-disabled"
    severity = Severity.error
    fix_sections = frozenset({"watchdog"})

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        if not ctx.policy.watchdog.required:
            return
        wd = port.watchdog
        source = (wd.source if wd else None) or port.source
        if wd is not None and wd.enabled is None and wd.unknown:
            # (the config's own lines leave it unknown, Watchdog.unknown: a warning the fix clears by starting it
            # with a timeout, not an "input lacks it" info)
            how = _START.get(device.platform)
            for prio in ctx.lossless:
                yield self.finding(f"{wd.unknown}; lossless priority {prio} may be unguarded against PFC storms: start "
                                   f"the watchdog on priority {prio}" + (f" ({how})" if how else ""),
                                   device=device, port=port, source=source, key=prio, priority=prio,
                                   severity=Severity.warning)
            return
        if wd is None or wd.enabled is None:
            yield self.unverified(f"the PFC watchdog state is not in the input, so lossless priorities "
                                  f"{numbers(ctx.lossless)} could not be checked",
                                  device=device, port=port, source=source)
            return
        if wd.enabled and wd.priorities_unknown:
            yield self.unverified(f"the PFC watchdog is on, but which priorities it watches is not in the input "
                                  f"({wd.priorities_unknown}), so lossless priorities {numbers(ctx.lossless)} could "
                                  "not be checked", device=device, port=port, source=source)
            return
        for prio in ctx.lossless:
            if wd.enabled is False:
                why, how = "PFC watchdog is off", _START.get(device.platform)
            elif wd.priorities is not None and prio not in wd.priorities:
                why = (f"PFC watchdog covers priorities {numbers(wd.priorities)} only" if wd.priorities
                       else "PFC watchdog covers no priority")  # (SONiC `pfcwd_sw_enable: ""`)
                how = _COVER.get(device.platform)
            else:
                continue
            how = f" ({how})" if how else ""
            yield self.finding(f"{why}; lossless priority {prio} is unguarded against PFC storms: start the "
                               f"watchdog on priority {prio}{how}", device=device, port=port, source=source, key=prio,
                               priority=prio)


@register
class PfcWatchdogTimers(_WdgRule):
    """PFC watchdog timers or action are outside the policy's ranges.

    ## What it checks
    On every RoCE-facing switch port with a watchdog: detection time within
    `watchdog.detection_time_ms`, restoration time within `watchdog.restoration_time_ms`, the
    action one of the mitigating `watchdog.actions`, and the polling interval not longer than the
    detection or restoration time (SONiC's `pfcwd interval` refuses such an interval, since the
    watchdog cannot detect faster than it polls). One finding per port listing every problem.
    Actions are compared in one vocabulary whatever the platform calls them: `drop`, `forward`,
    `notify-only` (SONiC `alert`, EOS `notify-only`) and `errdisable` (shut the port: EOS's default).
    Timers that are the platform's own default by a documented rule are not reported: SONiC's
    `pfcwd start_default` multiplies 200 ms by ceil(ports / 32), so a 256-port switch gets 1,600 ms
    (sonic-utilities pfcwd/main.py); an info finding says so when they fall outside the ranges.

    ## Why it matters
    Too short a detection time breaks healthy congestion (short pauses are normal); too long lets
    a storm freeze the fabric until RDMA connections time out. A notify-only action only logs a
    storm and leaves it running.

    ## Failing example
    Policy `detection_time_ms: {min: 100, max: 1000}`, `PFC_WD|Ethernet0: detection_time: 3000`:
    `PFC watchdog: detection time 3000 ms is outside [100, 1000] ms`; `action: alert`: `action
    'alert' (notify-only) does not mitigate a storm (mitigating: drop, forward, errdisable)`.

    ## Passing example
    `detection_time: 200`, `restoration_time: 200`, `action: drop` (SONiC's defaults); EOS
    `priority-flow-control pause watchdog default timeout <seconds>` with its default errdisable action.

    ## Fix
    Set the timers and action inside the policy's ranges (SONiC `pfcwd start --action drop
    <ports> <detection-ms> --restoration-time <ms>`; EOS `priority-flow-control pause watchdog
    action drop`), or list the action in the policy's `watchdog.actions` if it mitigates for you.
    """

    code = "WDG002"
    name = "pfc-watchdog-timers"
    severity = Severity.warning
    fix_sections = frozenset({"watchdog"})

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        wd = port.watchdog
        if wd is None or wd.enabled is False:
            return
        pol = ctx.policy.watchdog
        out_of_range = [f"{label} {value:g} ms is outside {rng.describe('ms')}"
                        for label, value, rng in (("detection time", wd.detection_time_ms, pol.detection_time_ms),
                                                  ("restoration time", wd.restoration_time_ms,
                                                   pol.restoration_time_ms))
                        if value is not None and not rng.contains(value)]
        where: dict[str, Any] = {"device": device, "port": port, "source": wd.source or port.source, "key": "watchdog"}
        problems = []
        if out_of_range and wd.default_rule:
            yield self.finding(f"PFC watchdog: {'; '.join(out_of_range)}, but these are the {wd.default_rule}; "
                               "accepted as the platform's own default", severity=Severity.info, **where)
        else:
            problems += out_of_range
        word = f"{wd.action_raw!r} ({wd.action})" if wd.action_raw and wd.action_raw != wd.action else repr(wd.action)
        if pol.actions is not None and wd.action is not None and wd.action not in pol.actions:
            problems.append(f"action {word} does not mitigate a storm under this policy (mitigating: "
                            f"{', '.join(pol.actions)})")
        elif pol.actions is not None and wd.action is None and wd.action_raw:
            yield self.unverified(f"PFC watchdog action {wd.action_raw!r} is not one losslessd knows, so whether it "
                                  "mitigates a storm could not be checked", **where)
        if wd.polling_interval_ms is not None:
            problems += [f"polling interval {wd.polling_interval_ms:g} ms is longer than the {label} {value:g} ms"
                         for label, value in (("detection time", wd.detection_time_ms),
                                              ("restoration time", wd.restoration_time_ms))
                         if value is not None and wd.polling_interval_ms > value]
        if problems:
            yield self.finding(f"PFC watchdog: {'; '.join(problems)}; set the watchdog's timers and action within "
                               f"policy {ctx.policy.name}'s `watchdog` section (or widen it, if the fabric is built "
                               "for these)", **where,
                               detection_time_ms=wd.detection_time_ms, restoration_time_ms=wd.restoration_time_ms,
                               action=wd.action)


@register
class BigRedSwitch(Rule):
    """The PFC watchdog's big red switch is on: every lossless queue of the switch drops its traffic.

    ## What it checks
    A switch whose config turns on SONiC's big red switch (`PFC_WD|GLOBAL` `BIG_RED_SWITCH: enable`, written
    by `pfcwd big_red_switch enable`) while ports run PFC on a lossless priority of the policy. One finding per
    switch. `BIG_RED_SWITCH: disable`, or no such field, passes.

    ## Why it matters
    With the big red switch on, orchagent puts every PFC-enabled queue of every port in the watchdog's drop
    state, whether or not a storm is going on, and stops the storm detection (sonic-swss
    orchagent/pfcwdsworch.cpp enableBigRedSwitchMode). It is an emergency lever for a fabric-wide PFC storm:
    left on, every RoCE packet of the lossless classes is dropped, and the per-port watchdog settings read as
    if they guarded it.

    ## Failing example
    `"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200", "BIG_RED_SWITCH": "enable"}}` with `pfc_enable: "3,4"`:
    `the PFC watchdog's big red switch is on (PFC_WD|GLOBAL BIG_RED_SWITCH enable): every PFC-enabled queue
    drops its traffic ...`.

    ## Passing example
    `"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}}`, or `BIG_RED_SWITCH: disable`.

    ## Fix
    Once the storm that called for it is over, turn it off: `pfcwd big_red_switch disable` (and `config save`).
    """

    code = "WDG003"
    name = "pfc-watchdog-big-red-switch"
    scope = "device"
    group = "device"
    severity = Severity.error
    kinds = frozenset({DeviceKind.switch})

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        if not device.big_red_switch:
            return
        lossless = set(ctx.lossless)
        on = [lossless.intersection(p.pfc_enabled or ()) for p in ctx.roce_ports(device)]
        ports, paused = sum(map(bool, on)), {prio for prios in on for prio in prios}  # (the priorities PFC is on for)
        if not ports:
            return
        yield self.finding(f"the PFC watchdog's big red switch is on (PFC_WD|GLOBAL BIG_RED_SWITCH enable): every "
                           f"PFC-enabled queue drops its traffic, storm or not, on {ports} RoCE-facing port(s) "
                           f"with PFC on lossless priorities {numbers(sorted(paused))}, and storm detection is "
                           "stopped; turn it off with `pfcwd big_red_switch disable`", device=device,
                           source=device.big_red_switch_source or device.source, key="big_red_switch")


@register
class PfcWatchdogQueue(_WdgRule):
    """The PFC watchdog watches a queue other than the one a pause for the lossless priority stops.

    ## What it checks
    On platforms whose watchdog watches, for PFC priority P, the egress queue numbered P whatever the port's maps
    say (SONiC: orchagent registers `port.m_queue_ids[i]` for each priority i of the port's watchdog mask,
    `pfcwd_sw_enable`, sonic-swss orchagent/pfcwdsworch.cpp registerInWdDb, and pfc_detect_<asic>.lua calls a storm
    on it when that queue is paused and PFC_i_RX grows), a received pause for each lossless priority on a
    RoCE-facing switch port stops that queue and no other (the PFC priority->queue map). Checked where the watchdog
    is on for the priority, or off, not on for it (left out of `pfcwd_sw_enable`) or of a state the input does not
    give while the policy requires it (turning it on would not guard the class). One finding per port and priority
    naming the queue the pause stops (and the traffic classes that leave from it) and the one watched. Silent where
    the PFC priority->queue map is not in the input, and where only the traffic is queued apart from what its pause
    stops (the class is then lossy, not unwatched: MAP004 says so for both); silent on platforms whose watchdog
    watches the paused queues themselves (NX-OS no-drop queues, Junos `flow-control-queue`) or whose documentation
    does not say (EOS, Cumulus NVUE).

    ## Why it matters
    The watchdog breaks a PFC storm or deadlock by detecting a queue that holds packets, sends none and is
    paused. Watching queue 3 while a pause for priority 3 stops queue 5, it sees a queue no pause stops and never
    fires: the queue the pauses actually stop stays stuck, and the storm spreads upstream as if no watchdog ran.

    ## Failing example
    SONiC `TC_TO_QUEUE_MAP` `"3": "5"` and `MAP_PFC_PRIORITY_TO_QUEUE` `"3": "5"` with `PFC_WD|Ethernet0` on:
    `lossless priority 3 lands in queue 5 (TC 3 leaves from it; a pause for priority 3 stops it), but the PFC
    watchdog watches queue 3 for priority 3 ...`.

    ## Passing example
    SONiC's Azure layout: `TC_TO_QUEUE_MAP` and `MAP_PFC_PRIORITY_TO_QUEUE` map 3 -> 3 and 4 -> 4.

    ## Fix
    Map each lossless priority's traffic class and its PFC pause to the queue numbered as the priority
    (`TC_TO_QUEUE_MAP` `"3": "3"`, `MAP_PFC_PRIORITY_TO_QUEUE` `"3": "3"`), or carry the class on the PFC
    priority that matches its queue (DSCP -> TC 5, `pfc_enable` 5, and priority 5 lossless in the policy).
    """

    code = "WDG004"
    name = "pfc-watchdog-queue-mismatch"
    severity = Severity.error
    fix_sections = frozenset({"maps"})
    disruptive = True

    def applies(self, ctx: Context, device: Device) -> bool:
        found = PLATFORMS.get(device.platform)
        return super().applies(ctx, device) and found is not None and found.wd_watches == "priority-index"

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        wd = port.watchdog
        on = wd is not None and wd.enabled is True
        required = ctx.policy.watchdog.required
        if not on and not required:
            return  # off or unknown, and the policy asks for no watchdog: nothing watches, nothing to compare
        tc_to_queue, tc_to_priority = port.tc_to_queue, port.tc_to_priority
        if port.pfc_priority_to_queue is None:
            return  # which queue a storm stops is not in the input (MAP004 says so)
        for prio in ctx.lossless:
            # What watches the priority now: the watchdog, on for it; otherwise the one the policy requires would,
            # once on (a state the input does not give is not "off": SONiC files written before boot hold no PFC_WD,
            # start_default writes it at boot; WDG001 says so).
            if on and wd.priorities_unknown:  # type: ignore[union-attr]
                who, verb = "the PFC watchdog (on; whether for this priority is not in the input)", "would watch"
            elif on and (wd.priorities is None or prio in wd.priorities):  # type: ignore[union-attr]
                who, verb = "the PFC watchdog", "watches"
            elif not required:
                continue  # the operator left this priority out of the watchdog's mask (pfcwd_sw_enable)
            elif on:
                who, verb = f"the PFC watchdog the policy requires (not on for priority {prio} now)", "would watch"
            elif wd is not None and wd.enabled is False:
                who, verb = "the PFC watchdog the policy requires (off now)", "would watch"
            else:
                who, verb = "the PFC watchdog the policy requires (its state is not in the input)", "would watch"
            # pfc_detect_<asic>.lua calls a storm on the watched queue P when it is paused and PFC_P_RX grows: a
            # storm for P is seen where its pause stops queue P, and missed on any other queue it stops. A class
            # queued apart from what its pause stops is lossy, not unwatched (MAP004 says so).
            paused = [queue for queue in port.paused_queues(prio) or () if queue != prio]
            if not paused:
                continue
            lands: dict[int, list[str]] = {queue: [] for queue in paused}  # queue a storm for prio stops -> how
            moved: list[str] = []  # what to map to queue prio: its traffic classes, its pause
            if tc_to_queue is not None and tc_to_priority is not None:
                for tc, p in sorted(tc_to_priority.items()):
                    queue = tc_to_queue.get(tc) if p == prio else None
                    if queue is not None and queue != prio:
                        if queue in lands:
                            lands[queue].append(f"{port.tc_label(tc)} leaves from it")
                        moved.append(port.tc_label(tc))
            for queue in paused:
                lands[queue].append(f"a pause for priority {prio} stops it")
            moved.append(f"the pause for PFC priority {prio}")
            where = "; ".join(f"queue {q} ({', '.join(how)})" for q, how in sorted(lands.items()))
            yield self.finding(
                f"lossless priority {prio} lands in {where}, but {who} {verb} queue {prio} for priority {prio} (the "
                f"queue numbered as the priority, whatever the maps say): a PFC storm that stops "
                f"{queues_text(sorted(lands))} is never broken; map {' and '.join(moved)} to queue {prio}, or carry "
                f"the class on the PFC priority numbered as its queue", device=device, port=port,
                source=port.map_source or port.source, key=prio, priority=prio, queues=sorted(lands),
                watched_queue=prio)
