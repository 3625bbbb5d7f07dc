"""What the daemon exports on /metrics (docs/metrics.md).

One custom collector on the daemon's own CollectorRegistry (never prometheus_client's global one, so
two daemons in one process - the tests - do not collide). It keeps plain dicts and builds the metric
families at scrape time: 200 devices x 64 ports x ~50 counters are ~600k series, far cheaper as the
last raw Reading per device than as labelled Gauge children with a lock each.

Raw device counters are exported as they were read, as ``*_total`` counters: Prometheus' rate()
treats a counter going back (a reset, or a 32-bit wrap) as a restart. Names follow the Prometheus
naming guide (https://prometheus.io/docs/practices/naming/): base units (seconds, bytes), ``_total``
on accumulating counts, ``_info`` for build metadata.
"""

from __future__ import annotations

import platform
import threading
from collections import Counter
from collections.abc import Iterator
from typing import get_args

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from losslessd import monitor
from losslessd.monitor import Event, EventKind, Reading

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
    monitor.ECN_MARKED: ("ecn_marked_packets", "queue", 1.0),
    monitor.CNP_SENT: ("cnp_sent_packets", "queue", 1.0),
    monitor.CNP_HANDLED: ("cnp_handled_packets", "queue", 1.0),
    monitor.IN_OCTETS: ("receive_bytes", None, 1.0),
    monitor.OUT_OCTETS: ("transmit_bytes", None, 1.0),
    monitor.IN_PACKETS: ("receive_packets", None, 1.0),
    monitor.OUT_PACKETS: ("transmit_packets", None, 1.0),
    monitor.IN_DISCARDS: ("receive_discards", None, 1.0),
    monitor.OUT_DISCARDS: ("transmit_discards", None, 1.0),
}
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


class Metrics(Collector):
    """The daemon's metrics. Fed from the polling loop, read by the HTTP thread's scrapes."""

    def __init__(self, version: str):
        self.version = version
        self._lock = threading.Lock()  # between the polling loop and the HTTP thread's scrapes
        self._values: dict[str, dict[str, dict]] = {}  # device -> source -> {Key: raw value} of its last reading
        self._polls: dict[tuple[str, str], tuple[bool, float]] = {}  # (device, source) -> last (ok, seconds)
        self._poll_counts: Counter[tuple[str, str, bool]] = Counter()
        self._active: dict[tuple, bool] = {}  # event place -> open
        self._open_ids: dict[str, str] = {}  # id of each open event -> device
        self._events_total: Counter[str] = Counter({kind: 0 for kind in EVENT_KINDS})
        self._findings: dict[str, dict[tuple[str, str], int]] = {}
        self._alerts: Counter[tuple[str, str]] = Counter()
        self._history: tuple[bool, int] | None = None
        self._reload: tuple[bool, float | None] | None = None
        self._family_cache: dict[tuple[str, bool], tuple[str, str | None, float]] = {}
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)
        ProcessCollector(registry=self.registry)  # process_cpu_seconds_total, process_resident_memory_bytes, ...

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

    def event(self, event: Event) -> None:
        """An event started, changed or ended (the same Event object or a copy: keyed by its id)."""
        with self._lock:
            self._active[_place(event)] = event.open
            if event.open:
                if event.id not in self._open_ids:
                    self._events_total[event.kind] += 1
                    self._open_ids[event.id] = event.device
            elif self._open_ids.pop(event.id, None) is None:
                self._events_total[event.kind] += 1  # started and ended between two calls

    def findings(self, device: str, counts: dict[tuple[str, str], int]) -> None:
        """The device's lint findings of the latest drift run, counted by (code, severity)."""
        with self._lock:
            self._findings[device] = dict(counts)

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

    def forget(self, device: str) -> None:
        """The device left the inventory: drop every series about it."""
        with self._lock:
            self._values.pop(device, None)
            for table in (self._polls, self._poll_counts):
                for key in [k for k in table if k[0] == device]:
                    del table[key]
            for place in [p for p in self._active if p[1] == device]:
                del self._active[place]
            for event_id in [i for i, d in self._open_ids.items() if d == device]:
                del self._open_ids[event_id]
            self._findings.pop(device, None)

    # --- read by scrapes ---------------------------------------------------------------------------------

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            polls = dict(self._polls)
            poll_counts = dict(self._poll_counts)
            active = dict(self._active)
            events_total = dict(self._events_total)
            findings = {d: dict(c) for d, c in self._findings.items()}
            alerts = dict(self._alerts)
            reload = self._reload
            values = [(device, list(sources.values())) for device, sources in self._values.items()]
        yield InfoMetricFamily(PREFIX + "build", "losslessd version and Python it runs on.",
                               value={"version": self.version, "python": platform.python_version()})
        yield from self._poll_families(polls, poll_counts)
        yield from self._counter_families(values)
        yield from self._event_families(active, events_total)
        found = GaugeMetricFamily(PREFIX + "findings", "Lint findings of the latest drift run.",
                                  labels=["device", "code", "severity"])
        for device, counts in sorted(findings.items()):
            for (code, severity), n in sorted(counts.items()):
                found.add_metric([device, code, severity], n)
        yield found
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

    def _poll_families(self, polls: dict, poll_counts: dict) -> Iterator[Metric]:
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
        yield from (up, duration, total, failed)

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
