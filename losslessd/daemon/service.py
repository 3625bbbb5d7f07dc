"""The daemon: polls, detects, records and alerts until SIGTERM (docs/daemon.md).

    SnmpPoller ----> sources.reading_from_snmp ----\\
    gNMI streams (daemon/gnmi.py) -> Readings -------+
    SSH counter commands -> reading_from_commands --+-> CounterTracker -> Detectors -> events
                                                    |        |                        |
                                              Metrics.counters  History.record_rates   +-> Metrics, History, Sinks
    drift: pull -> lint -> Drift.compare ------------------------------------------------/

Everything runs on one asyncio loop; netmiko sessions (SSH counters, drift pulls) run in worker
threads. One device's failure, garbage answer or slowness is that device's problem only: it is marked
down after the configured failures, backs off, and returns by itself. The HTTP server runs in its own
thread; its reload request is handed to the loop, so settings only ever change on the loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
import time
from concurrent.futures import ThreadPoolExecutor

from .. import __version__
from .. import counters_oids as oids
from ..collect.snmp import SnmpError, SnmpPoller, SnmpSample, SnmpTarget, target_for
from ..collect.ssh import CollectError, Session
from ..errors import InputError
from ..history import History
from ..inventory import Host
from ..monitor import Event
from ..monitor.counters import CounterTracker
from ..monitor.detect import Detectors
from ..monitor.sources import COUNTER_COMMANDS, reading_from_commands, reading_from_snmp
from ..platforms import Command
from . import logs
from .drift import FABRIC, Drift, pull_and_lint
from .gnmi import GnmiStreams, gnmi_targets
from .http import start_http
from .metrics import Metrics
from .notify import Notifier
from .scheduler import Runner, Schedule
from .settings import Settings, load_settings
from .sinks import LogSink, Sinks, WebhookSink

log = logging.getLogger("losslessd.daemon")

DAY_S = 86400.0
PRUNE_EVERY_S = 3600.0
HOUSEKEEPING_S = 1.0
_SSH_GRACE_S = 5.0  # past a session's own deadline (it aborts itself) before the thread is written off
STOP_FLUSH_S = 5.0  # at a stop, how long a locked or full history gets to take the rows waiting for it
DRIFT = "drift"  # the one entry of the drift schedule: a drift run covers the whole fabric


def counter_host(host: Host) -> Host | None:
    """``host`` with its platform's counter commands in place of its config commands (None: the
    platform serves no counters over its CLI), so collect.ssh.Session runs and checks them."""
    lines = COUNTER_COMMANDS.get(host.platform.id)
    if not lines:
        return None
    return dataclasses.replace(host, platform=dataclasses.replace(
        host.platform, commands=tuple(Command(line) for line in lines)))


def _timing(poll) -> dict:
    """Schedule.configure's keywords from the poll settings (the interval aside)."""
    return {"jitter": poll.jitter, "backoff_initial_s": poll.backoff_initial_s, "backoff_max_s": poll.backoff_max_s}


class Daemon:
    def __init__(self, settings: Settings, *, notifier: Notifier | None = None):
        self.settings = settings
        self.notifier = notifier or Notifier()
        self.metrics = Metrics(__version__)
        self.snmp_counters = CounterTracker()
        self.ssh_counters = CounterTracker()  # its own: a CLI's counters are not the SNMP agent's
        self.gnmi_counters = CounterTracker()
        self.gnmi = GnmiStreams(lambda reading, started: self._read(reading, self.gnmi_counters, "gnmi", started),
                                lambda device, started, reason: self._failed(device, "gnmi", started, reason))
        self.detectors = self._detectors(settings)
        self.drift = Drift()
        self._background: set[asyncio.Future] = set()
        self._open: set[str] = set()  # ids of events that are open, to tell start / update / end apart
        self._beat = time.monotonic()
        self._ready = False
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reload_lock: asyncio.Lock | None = None
        self.history: History | None = None
        self.sinks: Sinks | None = None
        self.http = None

    # -- what a device is polled with ------------------------------------------------------------------
    @staticmethod
    def _detectors(settings: Settings) -> Detectors:
        lossless = settings.lint_policy.lossless
        return Detectors(settings.detection, set(lossless.priorities), frozenset(lossless.tolerated_priorities))

    def _targets(self, settings: Settings) -> tuple[dict[str, SnmpTarget], dict[str, Host]]:
        poll = settings.poll
        snmp = {n: target_for(h, poll.snmp_timeout_s, poll.snmp_retries)
                for n, h in settings.hosts.hosts.items() if h.snmp is not None}
        ssh = {}
        if poll.ssh_counters_interval_s is not None:
            ssh = {n: c for n, h in settings.hosts.hosts.items() if (c := counter_host(h)) is not None}
        return snmp, ssh

    def _primary(self, device: str) -> str:
        """The source whose failures mark a device down: SNMP when it has it, else gNMI, else its CLI."""
        return "snmp" if device in self._snmp_targets else "gnmi" if device in self.gnmi.targets else "ssh"

    def _follow_gnmi(self, settings: Settings) -> None:
        poll = settings.poll
        self.gnmi.set_targets(gnmi_targets(settings.hosts.hosts, poll.gnmi_sample_interval_s, poll.gnmi_timeout_s),
                              poll.backoff_initial_s, poll.backoff_max_s)

    # -- life cycle ------------------------------------------------------------------------------------
    async def run(self) -> int:
        """Poll until stop() (SIGTERM, SIGINT); returns the exit status."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._reload_lock = asyncio.Lock()
        settings = self.settings
        self._loop.set_default_executor(ThreadPoolExecutor(max_workers=settings.poll.concurrency + 2,
                                                           thread_name_prefix="losslessd-ssh"))
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._loop.add_signal_handler(sig, self.stop)
        self._loop.add_signal_handler(signal.SIGHUP, lambda: self._spawn(self.reload()))
        self.history = self._open_history(settings)
        self._close_stale_events()
        self._restore_drift()
        self.sinks = self._make_sinks(settings)
        self.http = start_http(settings.http.host, settings.http.port, self.metrics, healthy=self.healthy,
                               ready=self.ready, reload=self.reload_threadsafe)
        log.info("serving /metrics on %s", self.http.url, extra={"url": self.http.url})
        self.poller = SnmpPoller(timeout_s=settings.poll.snmp_timeout_s, retries=settings.poll.snmp_retries,
                                 concurrency=settings.poll.concurrency)
        self._snmp_targets, self._ssh_hosts = self._targets(settings)
        poll = settings.poll
        now = time.monotonic()
        backoff = _timing(poll)
        self.snmp_runner = Runner("snmp", Schedule(poll.snmp_interval_s, **backoff), self._poll_snmp, poll.concurrency)
        self.ssh_runner = Runner("ssh", Schedule(poll.ssh_counters_interval_s or DAY_S, **backoff), self._poll_ssh,
                                 poll.concurrency)
        self.drift_runner = Runner("drift", Schedule(settings.drift.interval_s, **backoff), self._drift_round, 1)
        self._set_devices(settings, now)
        tasks = [asyncio.create_task(r.run(self._stop), name=r.name)
                 for r in (self.snmp_runner, self.ssh_runner, self.drift_runner)]
        tasks.append(asyncio.create_task(self._housekeeping(), name="housekeeping"))
        await asyncio.sleep(0)  # the runners have looked at their schedules: the first round is scheduled
        self._ready = True
        self.notifier.ready(self._status())
        log.info("losslessd daemon started: %s", self._status(), extra={"settings": str(settings.file)})
        try:
            await self._stop.wait()
        finally:
            self._ready = False
            self.notifier.stopping()
            log.info("stopping")
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.poller.aclose()
            await self.gnmi.aclose()
            await self.sinks.close()
            self.http.close()
            deadline = time.monotonic() + STOP_FLUSH_S
            if not self.history.flush():
                log.warning("stopping: the history did not take %d waiting rows (%s); retrying for up to %g s",
                            self.history.backlog, self.history.last_error, STOP_FLUSH_S)
                while not self.history.flush() and time.monotonic() < deadline:
                    await asyncio.sleep(HOUSEKEEPING_S / 4)
            self._close_history()
        return 0

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def healthy(self) -> bool:
        """The loop is turning (the housekeeping task beat within the last few seconds)."""
        return time.monotonic() - self._beat < 10 * HOUSEKEEPING_S + 5

    def ready(self) -> bool:
        return self._ready

    def _status(self) -> str:
        down = sum(1 for e in self.detectors.open_events() if e.kind == "device_down")
        return (f"{len(self._snmp_targets)} SNMP, {len(self.gnmi.targets)} gNMI and {len(self._ssh_hosts)} SSH "
                f"counter targets, {down} down, "
                f"{len(self._open)} open events")

    def _set_devices(self, settings: Settings, now: float) -> None:
        gone = set(self.snmp_runner.schedule.set_devices(self._snmp_targets, now))
        gone |= set(self.ssh_runner.schedule.set_devices(self._ssh_hosts, now))
        gone |= set(self.gnmi.targets)
        self._follow_gnmi(settings)
        gone -= set(self._snmp_targets) | set(self._ssh_hosts) | set(self.gnmi.targets)
        self.drift_runner.schedule.set_devices([DRIFT] if settings.drift.enabled else [], now)
        for device in gone:
            self._forget(device)

    def _forget(self, device: str) -> None:
        """A device left the inventory: end its open events, drop its state and series."""
        now = time.time()
        for event in self.detectors.open_events():
            if event.device == device:
                event.end_unix_s = now
                event.message += " (device removed from the inventory)"
                self._emit(event)
        self.detectors.forget(device)
        self.snmp_counters.forget(device)
        self.ssh_counters.forget(device)
        self.gnmi_counters.forget(device)
        self.metrics.forget(device)

    async def _housekeeping(self) -> None:
        """Heartbeat, systemd watchdog, history retention and backlog, STATUS."""
        next_ping = next_prune = 0.0
        while True:
            now = time.monotonic()
            self._beat = now
            interval = self.notifier.watchdog_interval_s
            if interval is not None and now >= next_ping:
                self.notifier.watchdog()
                self.notifier.status(self._status())
                next_ping = now + interval
            history = self.history  # a reload may swap it while a commit runs in its thread
            if now >= next_prune:
                removed = await asyncio.to_thread(history.prune, time.time())
                if removed:
                    log.info("history retention removed %d rows", removed)
                next_prune = now + PRUNE_EVERY_S
            if history.backlog:
                await asyncio.to_thread(history.flush)  # SQLite commits never stall the polls
            self.metrics.history(history.last_error is None, history.backlog)
            await asyncio.sleep(HOUSEKEEPING_S)

    # -- polls -----------------------------------------------------------------------------------------
    async def _poll_snmp(self, device: str) -> bool:
        target = self._snmp_targets.get(device)
        if target is None:
            return True
        started = time.monotonic()
        try:
            sample = await self.poller.poll(target)
        except SnmpError as exc:
            return self._failed(device, "snmp", started, f"{exc.sys_code}: {exc.message}")
        if device not in self._snmp_targets:  # a reload took it out while it was polled: its state is gone
            return self._dropped(device, "snmp")
        reading = reading_from_snmp(sample)
        if not reading.values:  # an agent that answers, but not with counters
            return self._failed(device, "snmp", started, f"unusable answer: {_no_counters(sample)}")
        self._read(reading, self.snmp_counters, "snmp", started)
        return True

    async def _poll_ssh(self, device: str) -> bool:
        host = self._ssh_hosts.get(device)
        if host is None:
            return True
        started = time.monotonic()
        timeout = self.settings.poll.ssh_timeout_s
        session = Session(host, known_hosts=self.settings.known_hosts_path, timeout=timeout)
        try:
            result = await asyncio.wait_for(asyncio.to_thread(session.run), timeout + _SSH_GRACE_S)
            if device not in self._ssh_hosts:  # a reload took it out while it was polled
                return self._dropped(device, "ssh")
            if result.refused:
                index, why = next(iter(result.refused.items()))
                raise CollectError("SYS014", f"`{result.sections[index][0]}` failed: {why}")
            outputs = dict(result.sections)
            reading = reading_from_commands(device, host.platform.id, outputs, time.monotonic(), time.time())
        except asyncio.TimeoutError:
            session.abort()
            return self._failed(device, "ssh", started, f"SYS013: no answer within {timeout:g} s")
        except asyncio.CancelledError:
            session.abort()
            raise
        except CollectError as exc:
            return self._failed(device, "ssh", started, f"{exc.code}: {exc.message}")
        except ValueError as exc:
            return self._failed(device, "ssh", started, f"unusable answer: {exc}")
        self._read(reading, self.ssh_counters, "ssh", started)
        return True

    @staticmethod
    def _dropped(device: str, source: str) -> bool:
        log.info("%s poll of %s ended after a reload took it out of the inventory: its outcome is dropped",
                 source, device, extra={"device": device, "source": source})
        return True

    def _failed(self, device: str, source: str, started: float, reason: str) -> bool:
        polled = {"snmp": self._snmp_targets, "ssh": self._ssh_hosts}.get(source)
        if polled is not None and device not in polled:  # a reload took it out: a late failure is not its state
            return self._dropped(device, source)
        self.metrics.poll_done(device, False, time.monotonic() - started, source)
        log.warning("%s poll of %s failed: %s", source, device, reason,
                    extra={"device": device, "source": source, "reason": reason})
        if self._primary(device) == source:
            self._emit_all(self.detectors.poll_failed(device, time.time(), reason))
        return False

    def _read(self, reading, tracker: CounterTracker, source: str, started: float) -> None:
        device = reading.device
        self.metrics.poll_done(device, True, time.monotonic() - started, source)
        self.metrics.counters(reading, source)
        if self._primary(device) == source:
            self._emit_all(self.detectors.poll_ok(device, reading.time_unix_s))
        rates = tracker.update(reading)
        if rates is None:
            return
        if rates.reset:
            log.info("counters of %s went back (restart or reset): this poll's rates are dropped", device,
                     extra={"device": device, "source": source})
            return
        self.history.record_rates(rates)
        self._emit_all(self.detectors.feed(rates))

    def _close_stale_events(self) -> None:
        """Events a previous run left open (it was killed): their detectors' state is gone, so end them
        now; a storm still going on opens a new event within the detection time."""
        now = time.time()
        try:
            stale = [e for e in self.history.events(open_only=True) if e.kind != "finding_new"]
        except InputError as exc:
            log.warning("open events of an earlier run not closed: %s", exc)
            return
        for event in stale:
            event.end_unix_s = now
            event.message += " (ended at a restart of losslessd: its state was lost)"
            self.history.record_event(event)
        if stale:
            log.info("ended %d events an earlier run left open", len(stale))

    # -- drift -----------------------------------------------------------------------------------------
    def _restore_drift(self) -> None:
        try:
            self.drift.restore(self.history.findings(latest=True),
                               self.history.events(kind="finding_new", open_only=True))
        except InputError as exc:  # an unreadable history: start with a fresh baseline
            log.warning("drift baseline not restored: %s", exc)

    async def _drift_round(self, _: str) -> bool:
        settings = self.settings
        started = time.monotonic()
        try:
            pulled = await asyncio.to_thread(
                pull_and_lint, settings.hosts, settings.lint_policy, known_hosts=settings.known_hosts_path,
                concurrency=settings.poll.concurrency, timeout_s=settings.poll.ssh_timeout_s)
        except InputError as exc:
            log.error("drift run failed: %s", exc)
            return False
        for device, why in sorted(pulled.missing.items()):
            log.warning("drift: the config of %s was not read (%s); its findings stand as of its last run",
                        device, why, extra={"device": device})
        devices = self.settings.hosts.hosts  # a reload during the run may have changed them
        missing = {**pulled.missing, **{d: "joined during the run" for d in devices if d not in settings.hosts.hosts}}
        now = time.time()
        result = self.drift.compare(pulled.findings, list(devices), now, missing)
        for device, found in result.findings.items():
            if device in devices or device == FABRIC:  # not one that left the inventory during the run
                self.history.record_findings(device, now, found)
                self.metrics.findings(device, result.counts(device))
        self._emit_all(result.events)
        log.info("drift run: %d findings, %d changes, %d devices not read, %.1f s", len(pulled.findings),
                 len(result.events), len(pulled.missing), time.monotonic() - started)
        return True

    # -- events ----------------------------------------------------------------------------------------
    def _emit_all(self, events: list[Event]) -> None:
        for event in events:
            self._emit(event)

    def _emit(self, event: Event) -> None:
        was_open = event.id in self._open
        if event.open:
            self._open.add(event.id)
            change = "update" if was_open else "start"
        else:
            self._open.discard(event.id)
            change = "end" if was_open else "start"  # an event that started and ended between two polls
        self.metrics.event(event)
        self.history.record_event(event)
        self._spawn(self.sinks.send(event, change))  # queues at once, in order: it never waits on a sink

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)  # the loop keeps weak references only
        task.add_done_callback(self._background.discard)

    # -- settings --------------------------------------------------------------------------------------
    def reload_threadsafe(self) -> tuple[bool, str]:
        """For the HTTP thread: run reload() on the loop and wait for its verdict."""
        future = asyncio.run_coroutine_threadsafe(self.reload(), self._loop)
        return future.result(timeout=120)

    async def reload(self) -> tuple[bool, str]:
        """Load and check the settings file again; swap only when it is valid. (ok, message)."""
        async with self._reload_lock:
            self.notifier.reloading()
            path = self.settings.file
            try:
                new = await asyncio.to_thread(load_settings, path)
                history = self._open_history(new) if new.history != self.settings.history else None
            except InputError as exc:
                log.error("reload refused, the running settings stay: %s", exc, extra={"settings": str(path)})
                self.metrics.reloaded(False, time.time())
                self.notifier.ready(self._status())
                return False, f"reload refused, the running settings stay: {exc}"
            self._apply(new, history)
            self.metrics.reloaded(True, time.time())
            self.notifier.ready(self._status())
            log.info("settings reloaded: %s", self._status(), extra={"settings": str(path)})
            return True, f"reloaded {path}: {self._status()}"

    def _apply(self, new: Settings, history: History | None) -> None:
        """Re-create what changed (``history``: the new settings' history, opened when its settings
        changed); keep counter state and open events where they still mean the same."""
        old, now = self.settings, time.monotonic()
        if new.log != old.log:
            logs.configure(new.log.level)
        if new.http != old.http:
            log.warning("http settings changed: they take effect at the next restart (still serving %s)",
                        self.http.url)
        if history is not None:
            self._close_history()
            self.history = history
        if new.sinks != old.sinks or new.webhook_headers != old.webhook_headers:
            self._spawn(self.sinks.close())
            self.sinks = self._make_sinks(new)
        if new.detection != old.detection or new.lint_policy.lossless != old.lint_policy.lossless:
            wall = time.time()
            for event in self.detectors.open_events():  # judged by rules that no longer apply
                event.end_unix_s = wall
                event.message += " (closed by a settings reload)"
                self._emit(event)
            self.detectors = self._detectors(new)
        poll = new.poll
        self.poller.timeout_s, self.poller.retries = poll.snmp_timeout_s, poll.snmp_retries
        backoff = _timing(poll)
        self.snmp_runner.schedule.configure(poll.snmp_interval_s, **backoff)
        self.ssh_runner.schedule.configure(poll.ssh_counters_interval_s or DAY_S, **backoff)
        self.drift_runner.schedule.configure(new.drift.interval_s, **backoff)
        for runner in (self.snmp_runner, self.ssh_runner):
            runner.set_concurrency(poll.concurrency)
        self.settings = new
        self._snmp_targets, self._ssh_hosts = self._targets(new)
        self._set_devices(new, now)
        for runner in (self.snmp_runner, self.ssh_runner, self.drift_runner):
            runner.wake()

    def _close_history(self) -> None:
        self.history.close()  # writes what it can first
        if self.history.backlog:
            log.error("history closed with %d records not written (%s): they are lost", self.history.backlog,
                      self.history.last_error, extra={"history": str(self.history.path)})

    def _open_history(self, settings: Settings) -> History:
        h = settings.history
        return History(settings.history_path, resolution_s=h.resolution_s, retention_s=h.retention_days * DAY_S,
                       flush_on_record=False)  # housekeeping commits, off the loop

    def _make_sinks(self, settings: Settings) -> Sinks:
        sinks = [LogSink()] if settings.sinks.log else []
        if (hook := settings.sinks.webhook) is not None:
            sinks.append(WebhookSink(hook.url, hook.timeout_s, hook.retries, settings.webhook_headers))
        return Sinks(sinks, metrics=self.metrics)


def _no_counters(sample: SnmpSample) -> str:
    """Why an SNMP answer gave no counters: what the agent served in their place, if anything."""
    served = [(oid, v) for oid, v in sample.raw.items() if isinstance(v, str) and not oid.startswith(oids.IF_NAME + ".")]
    if not served:
        return f"the agent serves none of the counter columns ({len(sample.ports)} ports)"
    oid, value = served[0]
    return f"{len(served)} counters are not numbers (e.g. {oid} = {value[:40]!r})"
