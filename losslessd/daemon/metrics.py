"""What the daemon exports on /metrics (docs/metrics.md).

One custom collector on the daemon's own CollectorRegistry (never prometheus_client's global one, so
two daemons in one process - the tests - do not collide). It keeps plain dicts and builds the metric
families at scrape time: 200 devices x 64 ports x ~50 counters are ~600k series, far cheaper as the
last raw Reading per device than as labelled Gauge children with a lock each.

The daemon is split in parts: each worker process keeps the ``devices`` part (raw counters and
polls of its devices) and renders it when the daemon asks; the daemon keeps the ``fleet`` part
(events, drift findings, alerts, history, reloads, workers, its own process) and ``merge``s the
rendered texts family by family, so every family appears once in a scrape however many processes
fed it. Rendering, the costly part of a scrape, thus runs on every core.

Raw device counters are exported as they were read, as ``*_total`` counters: Prometheus' rate()
treats a counter going back (a reset, or a 32-bit wrap) as a restart. Names follow the Prometheus
naming guide (https://prometheus.io/docs/practices/naming/): base units (seconds, bytes), ``_total``
on accumulating counts, ``_info`` for build metadata.
"""

from __future__ import annotations

import os
import platform
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal, get_args

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.exposition import choose_encoder
from prometheus_client.exposition import generate_latest as generate_text
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from losslessd import monitor
from losslessd.monitor import Event, EventKind, Reading

from ..records import record

PREFIX = "losslessd_"
# Reading counter name -> (metric name without prefix and _total, label for Key.index, scale to base unit).
COUNTERS: dict[str, tuple[str, str | None, float]] = {
    monitor.PFC_RX: ("pfc_rx_frames", "priority", 1.0),
    monitor.PFC_TX: ("pfc_tx_frames", "priority", 1.0),
    monitor.PAUSE_DURATION_US: ("pfc_pause_seconds", "priority", 1e-6),
    monitor.WD_STORMS: ("pfcwd_storms", "priority", 1.0),
    monitor.WD_RESTORED: ("pfcwd_restorations", "priority", 1.0),
    monitor.TX_PACKETS: ("queue_tx_packets", "queue", 1.0),
    monitor.TX_BYTES: ("queue_tx_bytes", "queue", 1.0),
    monitor.DROPPED_PACKETS: ("queue_dropped_packets", "queue", 1.0),
    monitor.RX_BUFFER_DISCARDS: ("nic_rx_buffer_discards", "priority", 1.0),
    monitor.RX_DISCARDS: ("nic_rx_discards", "priority", 1.0),
    monitor.ECN_MARKED: ("ecn_marked_packets", "queue", 1.0),
    monitor.CNP_SENT: ("cnp_sent_packets", "queue", 1.0),
    monitor.CNP_HANDLED: ("cnp_handled_packets", "queue", 1.0),
    monitor.PAUSE_STORM_WARNINGS: ("nic_pause_storm_warnings", None, 1.0),
    monitor.PAUSE_STORM_ERRORS: ("nic_pause_storm_errors", None, 1.0),
    monitor.LINK_PAUSE_RX: ("link_pause_rx_frames", None, 1.0),
    monitor.LINK_PAUSE_TX: ("link_pause_tx_frames", None, 1.0),
    monitor.IN_OCTETS: ("receive_bytes", None, 1.0),
    monitor.OUT_OCTETS: ("transmit_bytes", None, 1.0),
    monitor.IN_PACKETS: ("receive_packets", None, 1.0),
    monitor.OUT_PACKETS: ("transmit_packets", None, 1.0),
    monitor.IN_DISCARDS: ("receive_discards", None, 1.0),
    monitor.OUT_DISCARDS: ("transmit_discards", None, 1.0),
}
# How long an ended event's place keeps its 0 in losslessd_event_active and losslessd_pfc_storm before the series goes:
# Prometheus' default query lookback delta (5 min, `--query.lookback-delta`), so a scraper that polls often enough to
# see any sample at all sees the 0. Kept for ever, every place that ever had an event stayed a series: over weeks, up
# to every port x priority x kind of the fleet (2,000 switches x 64 ports x 8 priorities is 1M places per kind).
ENDED_KEPT_S = 300.0
STORM_KINDS = ("pfc_storm", "onbox_storm")  # both light losslessd_pfc_storm: a queue is stormed either way
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)


def family_of(name: str, per_index: bool) -> tuple[str, str | None, float]:
    """Metric name (with _total), index label and scale of one counter name.

    A counter a platform serves per port for a name that is usually per priority/queue (the
    IEEE8021-PFC-MIB port totals) goes to its own ``losslessd_port_*`` metric, so that summing a metric
    over its labels never counts a frame twice (the naming guide's "sum() must be meaningful")."""
    base, label, scale = COUNTERS.get(name, (name, "index", 1.0))
    if per_index:
        return f"{PREFIX}{base}_total", label or "index", scale
    return f"{PREFIX}{base if label is None else 'port_' + base}_total", None, scale


def _place(event: Event) -> tuple:
    """Where an event is: one losslessd_event_active series per kind and place, not per event."""
    return event.kind, event.device, event.port, event.priority, event.code


Part = Literal["all", "devices", "fleet"]
Format = Literal["text", "openmetrics"]
# losslessd_worker_state's values: a process started and not yet configured (its interpreter, imports and first
# settings: seconds, or minutes on a loaded machine; it polls nothing meanwhile), one that said it is configured since
# its start (it polls), one that died or was killed and waits for its restart (service.RESTART_BACKOFF_S).
Phase = Literal["starting", "ready", "backing_off"]
CLK_TCK = os.sysconf("SC_CLK_TCK")


@record
class WorkerState:
    """What the daemon knows of one worker process, for the losslessd_worker_* series."""

    pid: int | None
    up: bool
    devices: int
    restarts: int
    state: Phase = "ready"


class Metrics(Collector):
    """The daemon's metrics. Fed from the polling loop, read by the HTTP face's scrapes. ``part``:
    ``devices`` (a worker), ``fleet`` (the daemon) or ``all`` (both, in one process)."""

    def __init__(self, version: str, part: Part = "all", clock=time.monotonic):
        self.version = version
        self._clock = clock  # (ENDED_KEPT_S is measured on it)
        self.part = part
        self._workers: dict[int, WorkerState] = {}
        self._shard: tuple[str, str] | None = None
        self._http: Counter[str] = Counter()
        self._lock = threading.Lock()  # between the polling loop and the HTTP thread's scrapes
        self._values: dict[str, dict[str, dict]] = {}  # device -> source -> {Key: raw value} of its last reading
        self._polls: dict[tuple[str, str], tuple[bool, float]] = {}  # (device, source) -> last (ok, seconds)
        self._unread: dict[tuple[str, str], int] = {}  # (device, source) -> what its last reading could not read
        self._floored: dict[tuple[str, str], int] = {}  # (device, source) -> counters held at a clear's floor
        self._slow: Counter[tuple[str, str]] = Counter()  # (device, reason) -> SNMP polls pysnmp made for the fast path
        self._late: Counter[tuple[str, str]] = Counter()  # (device, source) -> polls started more than an interval late
        self._poll_counts: Counter[tuple[str, str, bool]] = Counter()
        self._active: dict[tuple, bool] = {}  # event place -> open
        self._ended: dict[tuple, float] = {}  # place of an ended event -> when it ended (self._clock)
        self._open_ids: dict[str, str] = {}  # id of each open event -> device
        self._events_total: Counter[str] = Counter({kind: 0 for kind in EVENT_KINDS})
        self._findings: dict[str, dict[tuple[str, str], int]] = {}
        self._host_links: dict[tuple[str, str], tuple[str, str]] = {}  # (host, NIC port) -> (switch, switch port)
        self._alerts: Counter[tuple[str, str]] = Counter()
        self._history: tuple[bool, int] | None = None
        self._reload: tuple[bool, float | None] | None = None
        self._family_cache: dict[tuple[str, bool], tuple[str, str | None, float]] = {}
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)
        self._small = CollectorRegistry(auto_describe=False)  # what render() leaves to prometheus_client
        self._small.register(_WithoutCounters(self))
        if part != "devices":  # one process_* set per scrape: the daemon's own
            ProcessCollector(registry=self.registry)  # process_cpu_seconds_total, process_resident_memory_bytes, ...
            ProcessCollector(registry=self._small)

    # --- fed by the daemon -------------------------------------------------------------------------------

    def poll_done(self, device: str, ok: bool, duration_s: float, source: str = "snmp") -> None:
        """One poll of one device by one source (snmp, ssh, drift) ended."""
        with self._lock:
            self._polls[(device, source)] = (ok, duration_s)
            self._poll_counts[(device, source, ok)] += 1

    def counters(self, reading: Reading, source: str = "snmp") -> None:
        """The device's raw counters as ``source`` last read them; another source's counters add to the
        same device (the latest reading wins a counter both serve). The reading's dict is kept, not
        copied: a Reading is never changed, and the counter tracker holds the same one."""
        with self._lock:
            sources = self._values.setdefault(reading.device, {})
            sources.pop(source, None)  # re-inserted last: merged last at a scrape
            sources[source] = reading.values
            self._unread[(reading.device, source)] = len(reading.unread)

    def floored(self, device: str, source: str, n: int) -> None:
        """How many of the device's counters read by ``source`` are unknown because they sit at the floor of a
        clear's cache beneath which the device's count restarted (CounterTracker.floored)."""
        with self._lock:
            self._floored[(device, source)] = n

    def slow_path(self, device: str, reason: str) -> None:
        """pysnmp polled the device in the fast SNMP path's place, for ``reason`` (collect.snmp.BACKENDS)."""
        with self._lock:
            self._slow[(device, reason)] += 1

    def poll_late(self, device: str, source: str) -> None:
        """A poll of the device started more than its interval after it was due (Worker._started)."""
        with self._lock:
            self._late[(device, source)] += 1

    def event(self, event: Event, continued: bool = False) -> None:
        """An event started, changed or ended (the same Event object or a copy: keyed by its id). ``continued``: it
        continues one the last clean stop interrupted (counted by the run that opened it), so it is no new event."""
        with self._lock:
            place = _place(event)
            self._active[place] = event.open
            if event.open:
                self._ended.pop(place, None)
            else:
                self._ended[place] = self._clock()
            if event.open:
                if event.id not in self._open_ids:
                    if not continued:
                        self._events_total[event.kind] += 1
                    self._open_ids[event.id] = event.device
            elif self._open_ids.pop(event.id, None) is None:
                self._events_total[event.kind] += 1  # started and ended between two calls

    def findings(self, device: str, counts: dict[tuple[str, str], int]) -> None:
        """The device's lint findings of the latest drift run, counted by (code, severity)."""
        with self._lock:
            self._findings[device] = dict(counts)

    def host_links(self, links: dict[tuple[str, str], tuple[str, str]]) -> None:
        """Each host NIC port -> the switch port cabled to it, as the switches' configs read say."""
        with self._lock:
            self._host_links = dict(links)

    def alert(self, sink: str, outcome: str) -> None:
        """An alert sink delivered (``sent``) or gave up on (``dropped``) one event change (from sinks.Sinks)."""
        with self._lock:
            self._alerts[(sink, outcome)] += 1

    def history(self, ok: bool, backlog: int) -> None:
        """Whether the history's last write committed and how many rows wait in memory."""
        self._history = (ok, backlog)

    def reloaded(self, ok: bool, time_unix_s: float) -> None:
        """A settings reload (SIGHUP or POST /-/reload) was tried; names as Prometheus' own."""
        with self._lock:
            last_ok = time_unix_s if ok else (self._reload[1] if self._reload else None)
            self._reload = (ok, last_ok)

    def workers(self, states: dict[int, WorkerState]) -> None:
        """The worker processes as the daemon sees them now."""
        with self._lock:
            self._workers = dict(states)

    def shard(self, index: int, count: int) -> None:
        """This daemon's part of the fleet (``--shard index/count``)."""
        self._shard = (str(index), str(count))

    def http_refused(self, reason: str) -> None:
        """The HTTP face dropped a connection or answered a malformed request (``reason``)."""
        with self._lock:
            self._http[reason] += 1

    def forget(self, device: str, source: str | None = None) -> None:
        """The device left the inventory: drop every series about it. ``source``: that source no longer polls it
        (others may): drop the series of its polls by that source and the counters it read."""
        with self._lock:
            mine = (device,) if source is None else (device, source)
            tables: list[dict] = [self._polls, self._poll_counts, self._unread, self._floored, self._late]
            for table in (tables + [self._slow]) if source is None else tables:  # (_slow: by device and reason)
                for key in [k for k in table if k[:len(mine)] == mine]:
                    del table[key]
            if source is not None:
                self._values.get(device, {}).pop(source, None)
                return
            self._values.pop(device, None)
            for place in [p for p in self._active if p[1] == device]:
                del self._active[place]
                self._ended.pop(place, None)
            for event_id in [i for i, d in self._open_ids.items() if d == device]:
                del self._open_ids[event_id]
            self._findings.pop(device, None)

    def _expire(self) -> None:
        """Drop the places whose event ended ENDED_KEPT_S ago or more (under the lock)."""
        gone = self._clock() - ENDED_KEPT_S
        for place in [p for p, ended in self._ended.items() if ended <= gone]:
            del self._ended[place], self._active[place]

    # --- read by scrapes ---------------------------------------------------------------------------------

    def collect(self, counters: bool = True) -> Iterator[Metric]:
        """Every family (``counters=False``: all but the raw device counters, which ``render`` writes
        itself)."""
        with self._lock:
            polls = dict(self._polls)
            poll_counts = dict(self._poll_counts)
            unread = dict(self._unread)
            floored = dict(self._floored)
            slow = dict(self._slow)
            late = dict(self._late)
            self._expire()
            active = dict(self._active)
            events_total = dict(self._events_total)
            findings = {d: dict(c) for d, c in self._findings.items()}
            host_links = dict(self._host_links)
            alerts = dict(self._alerts)
            reload = self._reload
            workers = dict(self._workers)
            http = dict(self._http)
            values = [(device, list(sources.values())) for device, sources in self._values.items()] if counters else []
        if self.part != "fleet":
            yield from self._poll_families(polls, poll_counts, unread)
            yield self._floored_family(floored)
            fallbacks = CounterMetricFamily(PREFIX + "snmp_fallback_polls", "SNMP polls of the device pysnmp (the "
                                            "slow path) made in the fast path's place, by reason.",
                                            labels=["device", "reason"])
            for (device, reason), n in sorted(slow.items()):
                fallbacks.add_metric([device, reason], n)
            yield fallbacks
            late_polls = CounterMetricFamily(PREFIX + "polls_late", "Polls of a device by a source that started more "
                                             "than an interval after they were due (every slot of poll.concurrency "
                                             "held by slower polls).", labels=["device", "source"])
            for (device, source), n in sorted(late.items()):
                late_polls.add_metric([device, source], n)
            yield late_polls
            if counters:
                yield from self._counter_families(values)
        if self.part == "devices":
            return
        yield InfoMetricFamily(PREFIX + "build", "losslessd version and Python it runs on.",
                               value={"version": self.version, "python": platform.python_version()})
        yield from self._event_families(active, events_total)
        found = GaugeMetricFamily(PREFIX + "findings", "Lint findings of the latest drift run.",
                                  labels=["device", "code", "severity"])
        for device, counts in sorted(findings.items()):
            for (code, severity), n in sorted(counts.items()):
                found.add_metric([device, code, severity], n)
        yield found
        # A host NIC port's switch port, so a NIC's storm series join it: `losslessd_nic_pause_storm_errors_total
        # * on (device, port) group_left (switch, switch_port) losslessd_host_link_info`.
        linked = GaugeMetricFamily(PREFIX + "host_link_info", "1 for each host NIC port whose switch port the "
                                   "switches' configs name (DEVICE_NEIGHBOR, LLDP).",
                                   labels=["device", "port", "switch", "switch_port"])
        for (host, port), (switch, switch_port) in sorted(host_links.items()):
            linked.add_metric([host, port, switch, switch_port], 1)
        yield linked
        sent = CounterMetricFamily(PREFIX + "alerts", "Event changes handed to alert sinks, by outcome.",
                                   labels=["sink", "outcome"])
        for (sink, outcome), n in sorted(alerts.items()):
            sent.add_metric([sink, outcome], n)
        yield sent
        if self._history is not None:
            ok, backlog = self._history
            yield GaugeMetricFamily(PREFIX + "history_write_ok", "1 when the history's last write committed.",
                                    value=int(ok))
            yield GaugeMetricFamily(PREFIX + "history_backlog_rows",
                                    "Rows kept in memory until the history database accepts writes.", value=backlog)
        if reload is not None:
            yield GaugeMetricFamily(PREFIX + "config_last_reload_successful",
                                    "1 when the last settings reload succeeded.", value=int(reload[0]))
            if reload[1] is not None:
                yield GaugeMetricFamily(PREFIX + "config_last_reload_success_timestamp_seconds",
                                        "Time of the last successful settings reload.", value=reload[1])
        yield from self._fleet_families(workers, http)

    def render(self, fmt: Format, names: frozenset[str] | None = None) -> list[tuple[str, str]]:
        """Every family (or those ``names`` asks for) as (name, text) for ``merge``. The raw device
        counters (~2,300 series a 64-port switch, nearly all of a scrape) are written here directly:
        prometheus_client's encoder checks and escapes every label of every sample, about 7 us a
        series, too slow for a fleet."""
        families = render(self._small, fmt)
        if names is None or any(n.startswith(PREFIX) and self._counter_name(n) for n in names):
            families += self._render_counters(fmt)
        if names is None:
            return families
        return [(name, text) for name, text in families if wanted(name, names)]

    @staticmethod
    def _counter_name(name: str) -> bool:
        base = name.removesuffix("_total")
        return any(family_of(n, i)[0].removesuffix("_total") == base for n in COUNTERS for i in (True, False))

    def _render_counters(self, fmt: Format) -> list[tuple[str, str]]:
        if self.part == "fleet":
            return []
        with self._lock:
            values = [(device, list(sources.values())) for device, sources in self._values.items()]
        lines: dict[str, list[str]] = {}
        helps: dict[str, str] = {}
        escape = _LabelEscaper()
        for device, readings in sorted(values, key=lambda dv: dv[0]):
            keyed = readings[0] if len(readings) == 1 else {k: v for r in readings for k, v in r.items()}
            dev = escape(device)
            for key, raw in keyed.items():
                per_index = key.index is not None
                spec = self._family_cache.get((key.name, per_index))
                if spec is None:
                    spec = self._family_cache[(key.name, per_index)] = family_of(key.name, per_index)
                name, label, scale = spec
                out = lines.get(name)
                if out is None:
                    out = lines[name] = []
                    helps[name] = f"Raw device counter `{key.name}`."
                value = raw if scale == 1.0 else raw * scale
                if label:
                    out.append(f'{name}{{device="{dev}",port="{escape(key.port)}",{label}="{key.index}"}} {value}\n')
                else:
                    out.append(f'{name}{{device="{dev}",port="{escape(key.port)}"}} {value}\n')
        families = []
        for name in sorted(lines):
            family = name[:-len("_total")] if fmt == "openmetrics" else name
            header = f"# HELP {family} {helps[name]}\n# TYPE {family} counter\n"
            families.append((family, header + "".join(lines[name])))
        return families

    def _fleet_families(self, workers: dict[int, WorkerState], http: dict[str, int]) -> Iterator[Metric]:
        if self._shard is not None:
            yield InfoMetricFamily(PREFIX + "shard", "This daemon's part of the fleet (--shard index/count).",
                                   value={"index": self._shard[0], "count": self._shard[1]})
        if workers:
            up = GaugeMetricFamily(PREFIX + "worker_up", "1 while the worker process runs.", labels=["worker"])
            devices = GaugeMetricFamily(PREFIX + "worker_devices", "Devices the worker polls.", labels=["worker"])
            restarts = CounterMetricFamily(PREFIX + "worker_restarts", "Times the worker process was started "
                                           "again after it died.", labels=["worker"])
            cpu = CounterMetricFamily(PREFIX + "worker_cpu_seconds", "CPU time the worker process used (user and "
                                      "system).", labels=["worker"])
            rss = GaugeMetricFamily(PREFIX + "worker_resident_memory_bytes", "Resident memory of the worker process.",
                                    labels=["worker"])
            states = GaugeMetricFamily(PREFIX + "worker_state", "1 for the worker's state now (starting: its process "
                                       "runs and polls nothing yet; ready: it polls; backing_off: it died and waits to "
                                       "be started again), 0 for the others.", labels=["worker", "state"])
            for index, state in sorted(workers.items()):
                label = [str(index)]
                for name in get_args(Phase):
                    states.add_metric([*label, name], int(state.state == name))
                up.add_metric(label, int(state.up))
                devices.add_metric(label, state.devices)
                restarts.add_metric(label, state.restarts)
                usage = _proc_usage(state.pid) if state.up else None
                if usage is not None:
                    cpu.add_metric(label, usage[0])
                    rss.add_metric(label, usage[1])
            yield from (up, states, devices, restarts, cpu, rss)
        refused = CounterMetricFamily(PREFIX + "http_refused", "Connections the HTTP face dropped or requests it "
                                      "refused, by reason.", labels=["reason"])
        for reason, n in sorted(http.items()):
            refused.add_metric([reason], n)
        yield refused

    def _poll_families(self, polls: dict, poll_counts: dict, unread: dict) -> Iterator[Metric]:
        up = GaugeMetricFamily(PREFIX + "up", "1 when the device's last poll by every source succeeded.",
                               labels=["device"])
        duration = GaugeMetricFamily(PREFIX + "poll_duration_seconds", "How long the device's last poll took.",
                                     labels=["device", "source"])
        device_up: dict[str, bool] = {}
        for (device, source), (ok, seconds) in sorted(polls.items()):
            device_up[device] = device_up.get(device, True) and ok
            duration.add_metric([device, source], seconds)
        for device, ok in device_up.items():
            up.add_metric([device], int(ok))
        total = CounterMetricFamily(PREFIX + "polls", "Polls of a device by a source.", labels=["device", "source"])
        failed = CounterMetricFamily(PREFIX + "poll_failures", "Polls of a device by a source that failed.",
                                     labels=["device", "source"])
        for device, source in sorted(polls):
            ok_n, bad_n = poll_counts.get((device, source, True), 0), poll_counts.get((device, source, False), 0)
            total.add_metric([device, source], ok_n + bad_n)
            failed.add_metric([device, source], bad_n)
        # A poll that succeeded may still have read only part of what the device serves (a command's table
        # missing, an SNMP table absent): up says the device answered, this says whether all of it was read.
        partial = GaugeMetricFamily(PREFIX + "poll_unread_parts", "What the device's last reading by a source "
                                    "could not read (tables, commands; 0: all of it).", labels=["device", "source"])
        for (device, source), n in sorted(unread.items()):
            partial.add_metric([device, source], n)
        yield from (up, duration, total, failed, partial)

    @staticmethod
    def _floored_family(floored: dict[tuple[str, str], int]) -> Metric:
        family = GaugeMetricFamily(PREFIX + "counters_floored", "Counters of the device unknown because it printed "
                                   "them against a sonic-clear cache its own count restarted beneath (0: none).",
                                   labels=["device"])
        by_device: dict[str, int] = {}
        for (device, _), n in floored.items():
            by_device[device] = by_device.get(device, 0) + n
        for device, n in sorted(by_device.items()):
            family.add_metric([device], n)
        return family

    def _counter_families(self, values: list[tuple[str, list[dict]]]) -> Iterator[Metric]:
        """One counter family per metric name; samples appended directly (add_metric's per-sample label
        zipping is most of a 600k-series scrape)."""
        families: dict[str, tuple[CounterMetricFamily, str | None, float]] = {}
        for device, readings in sorted(values, key=lambda dv: dv[0]):
            keyed = readings[0] if len(readings) == 1 else {k: v for r in readings for k, v in r.items()}
            for key, raw in keyed.items():
                spec = self._family_cache.get((key.name, key.index is not None))
                if spec is None:
                    spec = self._family_cache[(key.name, key.index is not None)] = family_of(key.name,
                                                                                            key.index is not None)
                name, label, scale = spec
                entry = families.get(name)
                if entry is None:
                    entry = families[name] = (CounterMetricFamily(name, f"Raw device counter `{key.name}`."),
                                              label, scale)
                labels = {"device": device, "port": key.port}
                if label:
                    labels[label] = str(key.index)
                entry[0].samples.append(Sample(name, labels, raw * scale if scale != 1.0 else raw))
        for name in sorted(families):
            yield families[name][0]

    @staticmethod
    def _event_families(active: dict, events_total: dict) -> Iterator[Metric]:
        storm = GaugeMetricFamily(PREFIX + "pfc_storm", "1 while a lossless queue is in a PFC storm (inferred or "
                                  "the device's own watchdog), 0 after.", labels=["device", "port", "priority"])
        stormed: dict[tuple, bool] = {}
        # An unknown place part (a device-wide event has no port) is the empty label, which PromQL treats as absent.
        event_active = GaugeMetricFamily(PREFIX + "event_active",
                                         "1 while an event of this kind is open at this place, 0 after it ended.",
                                         labels=["kind", "device", "port", "priority", "code"])
        for place, is_open in sorted(active.items(), key=lambda kv: repr(kv[0])):
            kind, device, port, priority, code = ("" if part is None else str(part) for part in place)
            event_active.add_metric([kind, device, port, priority, code], int(is_open))
            if kind in STORM_KINDS:
                queue = (device, port, priority)
                stormed[queue] = stormed.get(queue, False) or is_open
        for queue, is_open in sorted(stormed.items()):
            storm.add_metric(list(queue), int(is_open))
        started = CounterMetricFamily(PREFIX + "events", "Events opened, by kind.", labels=["kind"])
        for kind, n in sorted(events_total.items()):
            started.add_metric([kind], n)
        yield from (storm, event_active, started)


class _WithoutCounters(Collector):
    """A Metrics' families less the raw device counters (Metrics.render writes those itself)."""

    def __init__(self, metrics: Metrics):
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        return self.metrics.collect(counters=False)


class _LabelEscaper(dict):
    """A label value as the exposition formats write it (backslash, double quote and newline
    escaped), each distinct value escaped once a scrape."""

    def __call__(self, value: str) -> str:
        found = self.get(value)
        if found is None:
            found = self[value] = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return found


def _proc_usage(pid: int | None) -> tuple[float, int] | None:
    """(CPU seconds, resident bytes) of a process from /proc (proc(5): stat fields 14, 15 and 24)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace").rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK, int(fields[21]) * os.sysconf("SC_PAGE_SIZE")


# --- rendering and merging -----------------------------------------------------------------------------

# What prometheus_client's own handler answers for each format.
CONTENT_TYPES: dict[str, str] = {"text": choose_encoder("")[1],
                                 "openmetrics": choose_encoder("application/openmetrics-text")[1]}
_HELP = "# HELP "
_EOF = "# EOF\n"


def negotiate(accept: str | None) -> Format:
    """The exposition format a scrape's Accept header asks for, as prometheus_client decides it."""
    _, content_type = choose_encoder(accept or "")
    return "openmetrics" if content_type.startswith("application/openmetrics-text") else "text"


def render(registry: CollectorRegistry, fmt: Format) -> list[tuple[str, str]]:
    """The registry's families in ``fmt``, as (family name, text) in order; the text of each family is
    its HELP/TYPE lines and its samples."""
    text = (generate_openmetrics if fmt == "openmetrics" else generate_text)(registry).decode()
    if text.endswith(_EOF):
        text = text[:-len(_EOF)]
    out = []
    for chunk in text.split("\n" + _HELP):
        chunk = chunk if chunk.startswith(_HELP) else _HELP + chunk
        if chunk.strip() == _HELP.strip():
            continue
        name = chunk[len(_HELP):chunk.find(" ", len(_HELP))]
        out.append((name, chunk if chunk.endswith("\n") else chunk + "\n"))
    return out


def wanted(family: str, names: frozenset[str]) -> bool:
    """A family asked for by name, with or without the ``_total`` of its counter samples."""
    return family in names or f"{family}_total" in names or family.removesuffix("_total") in names


def scraper(*parts: Metrics):
    """An HTTP face's scrape callback serving ``parts`` of this process (tests, one-process use)."""
    async def scrape(accept: str | None, names: frozenset[str] | None = None) -> tuple[bytes, str]:
        fmt = negotiate(accept)
        return merge([m.render(fmt, names) for m in parts], fmt), CONTENT_TYPES[fmt]

    return scrape


def merge(parts: Iterable[list[tuple[str, str]]], fmt: Format) -> bytes:
    """One exposition from several ``render`` outputs: each family's HELP/TYPE lines once (the first
    part's), then the samples of every part that has it, in the order families were first seen."""
    headers: dict[str, str] = {}
    bodies: dict[str, list[str]] = {}
    for part in parts:
        for name, text in part:
            header_end = 0
            while text.startswith("#", header_end):  # HELP, TYPE, UNIT lines
                header_end = text.index("\n", header_end) + 1
            if name not in headers:
                headers[name] = text[:header_end]
                bodies[name] = []
            bodies[name].append(text[header_end:])
    out = [headers[name] + "".join(bodies[name]) for name in headers]
    if fmt == "openmetrics":
        out.append(_EOF)
    return "".join(out).encode()
