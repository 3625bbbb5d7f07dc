"""The daemon: polls, detects, records and alerts until SIGTERM (docs/daemon.md).

    workers (one process per core, losslessd.daemon.worker), each with a share of the devices:
        pollers (SNMP, gNMI streams, SSH counters) -> CounterTracker -> Detectors -> events, history rows
                                                    (ecn_not_marking events carry the tuner's proposal)
        Metrics (devices part) ------------------------------------------> rendered at a scrape
                                     | IPC (losslessd.daemon.ipc)
    the daemon (this module):  events -> History, Sinks, Metrics (fleet part); rows -> History
                               drift: pull -> lint -> Drift.compare -> events; configs -> workers
                               HTTP face (/metrics merges its part with every worker's)

One process owns everything that must be single: the history file (SQLite has one writer), alert
sinks, the event bookkeeping, drift and the HTTP face. Workers own devices: a device is polled by
exactly one worker (``shard.worker_of``), so no device is polled twice. A worker that dies is
started again with the same devices; the events it had open are ended (their detector state died
with it, as at a restart of the daemon) and its devices' history goes on in the same file.

Across machines, ``--shard i/n`` makes this daemon poll only the devices whose hashmod(name, n) is
i (Prometheus' hashmod); the daemon of shard 0 also runs drift, which lints the whole fabric.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import math
import signal
import socket
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field

from .. import __version__
from ..collect.pull import Cancel
from ..errors import InputError
from ..history import History
from ..inventory import Inventory
from ..limits import usable_cores
from ..model import DeviceKind
from ..monitor import Event, QueueMaps, clock
from ..records import record
from ..tune.propose import Found
from . import hup, logs
from .drift import FABRIC, Drift, Pulled, pull_and_lint, read_configs
from .http import HttpFace, NotLoopback
from .ipc import Link, LinkClosed
from .metrics import CONTENT_TYPES, Metrics, Phase, WorkerState, merge, negotiate
from .notify import Notifier
from .scheduler import Runner, Schedule, timing
from .settings import REMOTE_REFUSED, Settings, load_settings
from .shard import Shard, split
from .sinks import Change, LogSink, Sink, Sinks, WebhookSink

log = logging.getLogger("losslessd.daemon")

DAY_S = 86400.0
PRUNE_EVERY_S = 3600.0
# A wall clock this far ahead of the monotonic one is said in the log (NTP slews by at most 500 ppm, ntpd(8): 1.8 s an
# hour; a larger gap is a step).
CLOCK_STEP_S = 60.0
HOUSEKEEPING_S = 1.0
STOP_FLUSH_S = 5.0  # at a stop, how long a locked or full history gets to take the rows waiting for it
WORKER_STOP_S = 10.0  # a worker asked to stop gets this long before it is killed
# One rule judges a worker (Daemon._judge): until it has said it is configured after a start it is starting, and only
# its start window can end it; once it has, it is stuck when it sends nothing (it beats every second) for
# WORKER_SILENT_S. Start-up is an interpreter's start, its imports and the first configure: seconds on an idle machine,
# far longer on a loaded one (2 cores shared by ~25 processes: the silence check killed starting workers in a loop).
WORKER_SILENT_S = 30.0  # a worker that answered once, then sent nothing this long, is stuck: killed and started again
WORKER_START_S = 60.0  # a new worker has this long to say it is configured ...
WORKER_START_DOUBLINGS = 3  # ... doubled after each start in a row that did not finish in time, up to 8 times as long
WORKER_STABLE_S = 60.0  # a worker that ran this long after it started ends its spell of failures: the next wait is 1 s
SCRAPE_WAIT_S = 20.0  # a scrape waits this long for a worker's families, then goes on without them
RESTART_BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0)  # waits before restarting a worker that keeps dying
_STOPPING = "the daemon is stopping: no reload"
DRIFT = "drift"  # the one entry of the drift schedule: a drift run covers the whole fabric
NIC_STORMS = ("nic_pause_storm", "nic_pause_storm_warning")  # events of a host NIC: they name its switch port
SOURCE_NAMES = {"snmp": "SNMP", "gnmi": "gNMI", "ssh": "SSH"}  # as the status line writes them


# A clean stop interrupts the open events (_end_events_of): marked so in their numbers, continued under their ids by
# the next start when seen again within resume_window_s of their device's first poll that answers.
INTERRUPTED = "losslessd stopped; continued under this id if still present after its restart"
INTERRUPTED_MARK = "interrupted"


def resume_polls(settings: Settings) -> int:
    """The most intervals a detector counts, plus two: the first poll gives no rates, and one for a poll's own time."""
    t = settings.detection
    return max(t.pause_rate_polls, t.lossy_pause_polls, t.ecn_polls, t.storm_min_intervals, t.down_after_failures) + 2


def resume_window_s(settings: Settings, interval_s: float) -> float:
    """How long after its device's first poll that answers (after a start) an event a clean stop interrupted may
    continue: the time every detector needs to open again at ``interval_s``, the slowest interval of the sources that
    poll the device (its worker says which: ShardWorker._slowest_s; a source no device uses, gNMI's sample interval in
    a fleet polled over SNMP, is none of them): storm_detection_s, then resume_polls of those intervals."""
    return settings.detection.storm_detection_s + interval_s * resume_polls(settings)


def worker_count(settings: Settings, override: int | None, devices: int) -> int:
    """Workers to start: the command line's, else the settings', else one per core this process may run on (a
    container's or `taskset`'s, not the machine's); never more than there are devices (and at least one)."""
    wanted = override or settings.workers or usable_cores()
    return max(1, min(wanted, devices))


@record
class _Worker:
    index: int
    devices: list[str]
    proc: asyncio.subprocess.Process | None = None
    link: Link | None = None
    up: bool = False
    configured: asyncio.Event = field(default_factory=asyncio.Event)  # it said so since its last start
    # Settings, devices or configs changed while it was starting (its first messages, queued at its start, are older):
    # sent again once it says it is configured (_listen). Nothing waits on a worker that does not read yet.
    behind: bool = False
    restarts: int = 0
    failures_in_row: int = 0  # deaths since it last ran WORKER_STABLE_S: the wait before it is started again
    slow_starts: int = 0  # starts in a row that did not finish within their window: the next window is longer
    started_s: float = field(default_factory=time.monotonic)
    heard_s: float = field(default_factory=time.monotonic)
    status: dict = field(default_factory=dict)
    tasks: list[asyncio.Task] = field(default_factory=list)
    scrapes: set[int] = field(default_factory=set)  # scrape requests it has not answered


class Daemon:
    def __init__(self, settings: Settings, *, notifier: Notifier | None = None, shard: Shard | None = None,
                 workers: int | None = None):
        self.settings = settings
        self.notifier = notifier or Notifier()
        self.shard = shard or Shard()
        self._workers_override = workers
        self.metrics = Metrics(__version__, part="fleet")
        self.metrics.shard(self.shard.index, self.shard.count)
        self.drift = Drift()
        self.workers: list[_Worker] = []
        self._owner: dict[str, int] = {}  # device -> worker index
        self._open: dict[str, Event] = {}  # open events by id, to tell start / update / end apart
        # Events the previous run's clean stop interrupted, by place, that a condition seen again soon after this
        # start continues (_continue), until _resume_end(device): resume_window_s after the device's first poll that
        # answered, by its worker as last started (_answered_at: time.monotonic() then, and the slowest interval of the
        # sources that poll it as its worker last said, which a reload may change; none yet: open); and the ids the
        # workers gave the events that continue one -> the interrupted one (its start, so its id, and its peaks), until
        # they end
        self._resumable: dict[tuple, Event] = {}
        self._answered_at: dict[str, tuple[float, float]] = {}
        self._continued: dict[str, Event] = {}
        self._configs: dict[str, Found] = {}  # device -> (platform, config, version) the last drift runs read
        self._queues: dict[str, QueueMaps] = {}  # device -> its ports' priority -> queues maps, as drift read them
        self._cables: dict[str, dict[str, tuple[str, str]]] = {}  # switch read -> its port -> (device, port) cabled
        self._switch_ports: dict[tuple[str, str], tuple[str, str]] = {}  # (host, NIC port) -> its (switch, port)
        self._background: set[asyncio.Future] = set()
        self._scrapes: dict[int, asyncio.Future] = {}
        self._scrape_ids = itertools.count()
        self._beat = time.monotonic()
        self._ready = False
        self._stopping = False
        self._stop: asyncio.Event | None = None  # None until run(): a stop() before it has nothing to stop
        # Made by run(), and used only by what run() starts:
        self._loop: asyncio.AbstractEventLoop
        self._reloading: asyncio.Task | None  # the reload running now, if any
        self._next_reload: asyncio.Future | None  # the outcome of the one queued to run after it, if any
        self._started: asyncio.Event  # set once ready: reloads asked before wait for it
        self.history: History
        self.sinks: Sinks
        self.http: HttpFace
        self.drift_runner: Runner
        self.config_runner: Runner  # each device's config read at the start, refreshed (_read_config)
        self._config_pool: ThreadPoolExecutor  # its reads' threads: they never hold up scrapes and history commits

    # -- life cycle ------------------------------------------------------------------------------------
    async def run(self) -> int:
        """Poll until stop() (SIGTERM, SIGINT); returns the exit status."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._reloading = self._next_reload = None
        settings = self.settings
        self._loop.set_default_executor(ThreadPoolExecutor(max_workers=settings.poll.concurrency + 4,
                                                           thread_name_prefix="losslessd"))
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._loop.add_signal_handler(sig, self.stop)
        self._started = asyncio.Event()
        self._loop.add_signal_handler(signal.SIGHUP, lambda: self._spawn(self.reload()))
        if hup.asked():  # a SIGHUP before the loop took it (losslessd.daemon.hup): one reload once started
            self._spawn(self.reload())
        self.history = self._open_history(settings)
        self._close_stale_events()
        self._restore_drift()
        # (committed now: `losslessd events --device` tells a device polled but without rows yet from a mistyped one)
        self.history.record_polled(self._devices(settings))
        self.history.flush()
        self.sinks = self._make_sinks(settings)
        http = settings.http
        self.http = HttpFace(http.host, http.port, scrape=self.scrape, healthy=self.healthy, ready=self.ready,
                             reload=self.reload, max_connections=http.max_connections,
                             header_timeout_s=http.header_timeout_s, refused=self.metrics.http_refused,
                             allow_remote=http.allow_remote)
        try:
            await self.http.start()
        except OSError as exc:
            log.error("cannot serve /metrics on %s:%d: %s", http.host, http.port, exc.strerror or exc,
                      extra={"host": http.host, "port": http.port})
            self.history.close()
            return 2
        except NotLoopback:  # a name resolving to such an address: known only once bound
            refused = REMOTE_REFUSED.format(f"{http.host} resolved to {self.http.address}, which")
            log.error("cannot serve /metrics on %s: %s", self.http.url, refused, extra={"url": self.http.url})
            self.history.close()
            return 2
        log.info("serving /metrics on %s", self.http.url, extra={"url": self.http.url})
        if not self.http.loopback:  # (settings.http.host: 0.0.0.0, a routable address, or a name resolving to one)
            log.warning("/metrics and /-/reload listen on %s, which is not a loopback address: whoever reaches it "
                        "reads the fabric's metrics and can make the daemon reload (no authentication); set http.host "
                        "to 127.0.0.1 unless a scraper on another host needs it, and firewall the port",
                        self.http.url, extra={"url": self.http.url})
        devices = self._devices(settings)
        count = worker_count(settings, self._workers_override, len(devices))
        self.workers = [_Worker(i, part) for i, part in enumerate(split(devices, count))]
        self._owner = {d: w.index for w in self.workers for d in w.devices}
        self._warn_fd_limit(settings)
        for worker in self.workers:
            await self._start_worker(worker)
        backoff = timing(settings.poll)
        self.drift_runner = Runner("drift", Schedule(settings.drift.interval_s, **backoff), self._drift_round, 1)
        self._set_drift(settings)
        self._config_pool = ThreadPoolExecutor(max_workers=settings.poll.concurrency,
                                               thread_name_prefix="losslessd-config")
        self.config_runner = Runner("config", Schedule(settings.drift.interval_s, **backoff, retry_early=True),
                                    self._read_config, settings.poll.concurrency)
        self.config_runner.schedule.set_devices(self._switches(settings, devices), time.monotonic(), at_once=True)
        tasks = [asyncio.create_task(self.drift_runner.run(self._stop), name="drift"),
                 asyncio.create_task(self.config_runner.run(self._stop), name="config"),
                 asyncio.create_task(self._housekeeping(), name="housekeeping")]
        await self._await_configured()
        await asyncio.sleep(0)  # the drift runner has looked at its schedule
        self._ready = True
        self._started.set()
        self.notifier.ready(self._status())
        log.info("losslessd daemon started: %s", self._status(),
                 extra={"settings": str(settings.file), "shard": str(self.shard), "workers": len(self.workers)})
        try:
            await self._stop.wait()
        finally:
            self._ready = False
            self._stopping = True
            self.notifier.stopping()
            log.info("stopping")
            # (a reload under way too: it went on beside the stop, sending configures to workers being stopped and
            # READY=1 after STOPPING=1)
            if self._reloading is not None:
                tasks.append(self._reloading)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._config_pool.shutdown(wait=False, cancel_futures=True)  # a read under way was cut (_pulling)
            await self._stop_workers()
            self._end_resumable(force=True)
            self._end_events_of(None, INTERRUPTED, interrupted=True)
            await self.sinks.close()
            await self.http.close()
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

    def _devices(self, settings: Settings) -> list[str]:
        """This daemon's devices: the inventory's, less those of other shards."""
        return self.shard.select(settings.hosts.hosts)

    @staticmethod
    def _switches(settings: Settings, devices: list[str]) -> list[str]:
        """The devices whose config the start and refresh reads pull: switches only. A host's config gives neither
        queue maps (a NIC's ECN marks and CNPs are per port and need none) nor proposals (no host platform is in
        tune.candidate.TUNABLE), and its read is many commands (linux_mlx5: 14 per interface) for nothing."""
        hosts = settings.hosts.hosts
        return [d for d in devices if d in hosts and hosts[d].platform.kind == DeviceKind.switch]

    def _status(self) -> str:
        targets: dict[str, int] = {}
        down = 0
        for worker in self.workers:
            down += worker.status.get("down", 0)
            for source, n in worker.status.get("targets", {}).items():
                targets[source] = targets.get(source, 0) + n
        polled = ", ".join(f"{n} {SOURCE_NAMES.get(source, source)}" for source, n in sorted(targets.items())
                           if n) or "no"
        up = sum(w.up for w in self.workers)
        return (f"shard {self.shard}, {up}/{len(self.workers)} workers, {polled} counter targets, {down} down, "
                f"{len(self._open)} open events")

    def _warn_fd_limit(self, settings: Settings) -> None:
        """Each worker holds a socket per SNMP device and SSH session; the daemon HTTP connections."""
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        need = settings.http.max_connections + 64
        for worker in self.workers:
            need = max(need, len(worker.devices) * 2 + settings.poll.concurrency * 2 + 64)
        if soft != resource.RLIM_INFINITY and soft < need:
            log.warning("open-file limit %d is below the %d this daemon may need (LimitNOFILE= in the unit, "
                        "ulimit -n)", soft, need, extra={"limit": soft, "need": need})

    async def _housekeeping(self) -> None:
        """Heartbeat, systemd watchdog, stuck workers, history retention and backlog, STATUS."""
        next_ping = next_prune = 0.0
        while True:
            now = time.monotonic()
            self._beat = now
            logs.tick()  # a run of repeated library lines past its window is written now, not with the next line
            interval = self.notifier.watchdog_interval_s
            if interval is not None and now >= next_ping:
                self.notifier.watchdog()
                self.notifier.status(self._status())
                next_ping = now + interval
            for worker in self.workers:
                self._judge(worker, now)
            self._end_resumable()
            self.metrics.workers({w.index: WorkerState(w.proc.pid if w.proc else None, w.up, len(w.devices),
                                                       w.restarts, _phase(w)) for w in self.workers})
            history = self.history  # a reload may swap it while a commit runs in its thread
            if now >= next_prune:
                if (step := history.clock.stepped_s() - history.clock.ahead_s) > CLOCK_STEP_S:
                    log.warning("the clock was set %.0f s ahead since the history was opened: its retention counts "
                                "the time that passed, not the step", step, extra={"history": str(history.path)})
                removed = await asyncio.to_thread(history.prune, history.clock.now())  # (not a clock stepped ahead)
                if removed:
                    log.info("history retention removed %d rows", removed)
                next_prune = now + PRUNE_EVERY_S
            if history.backlog:
                await asyncio.to_thread(history.flush)  # SQLite commits never stall the loop
            if history.notice:
                log.warning("%s", history.notice, extra={"history": str(history.path)})
                history.notice = None
            self.metrics.history(history.last_error is None, history.backlog)
            await asyncio.sleep(HOUSEKEEPING_S)

    # -- workers ---------------------------------------------------------------------------------------
    @staticmethod
    def _start_window_s(worker: _Worker) -> float:
        return WORKER_START_S * 2 ** min(worker.slow_starts, WORKER_START_DOUBLINGS)

    @staticmethod
    def _judge(worker: _Worker, now: float) -> None:
        """Kill a worker that is stuck (it is started again by _watch): one still starting (no `configured` since its
        start) only once its start window has passed, and the next start gets a longer one (a loaded machine that
        could not start it in time will not start it faster the next time); one that answered once when it has sent
        nothing for WORKER_SILENT_S. Each is killed once: _watch starts it again."""
        if not worker.up or worker.proc is None or worker.proc.returncode is not None:
            return
        if not worker.configured.is_set():
            window = Daemon._start_window_s(worker)
            if now - worker.started_s <= window:
                return
            worker.slow_starts += 1
            log.error("worker %d did not start within %g s: killing it (it is started again, given %g s)",
                      worker.index, window, Daemon._start_window_s(worker), extra={"worker": worker.index})
        elif now - worker.heard_s > WORKER_SILENT_S:
            log.error("worker %d sent nothing for %.0f s: killing it (it is started again)", worker.index,
                      now - worker.heard_s, extra={"worker": worker.index})
        else:
            return
        worker.up = False  # (judged once: _watch sees it exit)
        _kill(worker.proc)

    async def _start_worker(self, worker: _Worker) -> None:
        parent, child = socket.socketpair()
        try:
            proc = worker.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "losslessd.daemon.worker", "--fd", str(child.fileno()),
                "--index", str(worker.index), pass_fds=(child.fileno(),), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, limit=1 << 20)
        finally:
            child.close()
        link = worker.link = await Link.open(parent)
        worker.up = True
        worker.started_s = worker.heard_s = time.monotonic()
        worker.configured.clear()  # (the start's _await_configured waits on this one across restarts)
        worker.behind = False  # (its first messages, queued below, are of now)
        assert proc.stderr is not None  # stderr=PIPE
        worker.tasks = [asyncio.create_task(self._listen(worker, link), name=f"worker{worker.index}:link"),
                        asyncio.create_task(self._forward_stderr(worker, proc.stderr),
                                            name=f"worker{worker.index}:stderr"),
                        asyncio.create_task(self._watch(worker, proc, link), name=f"worker{worker.index}:exit")]
        # Queued, not waited for: a worker reads them once it has started, which may take minutes, and a configure
        # larger than the link's buffers (the settings of 1,000 hosts) waited for that, so the daemon's start waited
        # on each worker's start in turn, and a worker killed before it read them (its start window) was never
        # watched, so never started again.
        try:
            link.post(("configure", self.settings, worker.devices))
            if (configs := self._configs_message(worker)) is not None:
                link.post(configs)
        except LinkClosed:
            pass  # it died: _watch starts it again

    async def _send_configs(self, worker: _Worker, devices: Iterable[str] | None = None) -> None:
        """The device configs drift read for ``devices`` (default: all) of ``worker``'s: its proposals
        are made from them."""
        message = self._configs_message(worker, devices)
        if message is not None and (link := self._reading(worker)) is not None:
            try:
                await link.send(message)
            except LinkClosed:
                pass  # it died: it gets them again when it is started again

    def _reading(self, worker: _Worker) -> Link | None:
        """The link of ``worker`` when it reads it (it said it is configured since its start): a send waits on it only
        then. One still starting reads nothing until its interpreter and imports are up (up to its start window,
        60-480 s): a send waited that long once the link's buffers were full (a reload's configure of 1,000 hosts), and
        held the reload, a config read or a scrape, and every worker after it. It is marked ``behind`` instead and
        sent the settings, devices and configs of then once it is configured; a dead one is started with them."""
        if not worker.up or worker.link is None:
            return None
        if not worker.configured.is_set():
            worker.behind = True
            return None
        return worker.link

    async def _catch_up(self, worker: _Worker) -> None:
        """A worker configured with what its start queued, whose settings, devices or configs changed meanwhile:
        what it lacks, as a reload sends it."""
        if (link := self._reading(worker)) is None:
            return
        worker.behind = False
        try:
            await link.send(("configure", self.settings, worker.devices))
        except LinkClosed:
            return  # it died: it is started again with the new settings and devices
        await self._send_configs(worker)

    def _configs_message(self, worker: _Worker, devices: Iterable[str] | None = None) -> tuple | None:
        """The ``configs`` message of _send_configs (None: no config nor queue map of those devices read yet)."""
        wanted = worker.devices if devices is None else list(devices)
        mine = {d: self._configs[d] for d in wanted if d in self._configs}
        queues = {d: self._queues[d] for d in wanted if d in self._queues}
        return ("configs", mine, queues) if mine or queues else None

    async def _await_configured(self) -> None:
        """READY waits for each worker's first start, for at most its start window (_judge kills it then and it is
        started again; the daemon is ready without it, its devices polled once it starts)."""
        waits = [asyncio.wait_for(w.configured.wait(), WORKER_START_S) for w in self.workers]
        await asyncio.gather(*waits, return_exceptions=True)

    async def _listen(self, worker: _Worker, link: Link) -> None:
        while True:
            try:
                message = await link.recv()
            except LinkClosed:
                worker.up = False
                for request_id in list(worker.scrapes):  # scrapes waiting for it go on without it now
                    self._answered(worker, request_id, [])
                return
            worker.heard_s = time.monotonic()
            kind = message[0]
            if kind == "batch":
                _, answered, events, rows = message
                if self._resumable:  # (the window of each device's interrupted events opens at its first answer)
                    now = time.monotonic()
                    for device, interval_s in answered:  # (told again with its new interval after a reload)
                        self._answered_at[device] = (self._answered_at.get(device, (now,))[0], interval_s)
                for event in events:
                    self._emit(event)
                for row in rows:
                    self.history.record_rate_rows(row)
            elif kind == "beat":
                worker.status = message[1]
            elif kind == "scraped":
                self._answered(worker, message[1], message[2])
            elif kind == "configured":
                worker.status = message[1]
                worker.slow_starts = 0
                worker.configured.set()
                if worker.behind:
                    self._spawn(self._catch_up(worker))

    def _answered(self, worker: _Worker, request_id: int, families: list) -> None:
        worker.scrapes.discard(request_id)
        future = self._scrapes.pop(request_id, None)
        if future is not None and not future.done():
            future.set_result(families)

    async def _forward_stderr(self, worker: _Worker, stream: asyncio.StreamReader) -> None:
        """The worker's stderr, line by line, into the daemon's log: its JSON lines as they are, any
        other line (an interpreter crash) wrapped in one, so the log stays one JSON object per line."""
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):  # a line over the limit: keep its start
                line = (await stream.read(1 << 16)) + b" [cut]"
            if not line:
                return
            logs.write_line(logs.as_json_line(line.decode("utf-8", "replace"), worker=worker.index))

    async def _watch(self, worker: _Worker, proc: asyncio.subprocess.Process, link: Link) -> None:
        """Wait for the worker to exit; unless the daemon is stopping, start it again."""
        code = await proc.wait()
        worker.up = False
        await asyncio.gather(*[t for t in worker.tasks if t is not asyncio.current_task()], return_exceptions=True)
        link.close()  # a scrape waiting for it goes on without it after SCRAPE_WAIT_S
        if self._stopping:
            return
        worker.restarts += 1
        if worker.configured.is_set() and time.monotonic() - worker.started_s >= WORKER_STABLE_S:
            worker.failures_in_row = 0  # it ran a while: a death now starts a new spell (one that dies at its start or
            # soon after it, again and again, waits longer each time: 1, 2, 5, 10, then 30 s)
        worker.failures_in_row += 1
        wait = RESTART_BACKOFF_S[min(worker.failures_in_row, len(RESTART_BACKOFF_S)) - 1]
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        log.error("worker %d (%d devices) died (%s); starting it again in %g s", worker.index, len(worker.devices),
                  how, wait, extra={"worker": worker.index, "exit": code, "restarts": worker.restarts})
        self._end_events_of(set(worker.devices),
                            "its worker process died and was started again; its detector state was lost")
        for device in worker.devices:  # (its new detectors need the whole window: it opens at their first answer)
            self._answered_at.pop(device, None)
        # (a stop ends the wait: it waited out up to RESTART_BACKOFF_S's last wait, as the stop gathers this task; a
        # worker started without run(), as an embedding caller or a test does, has no stop event: the wait is a sleep)
        if self._stop is None:
            await asyncio.sleep(wait)
        else:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), wait)
        if not self._stop_asked():
            await self._start_worker(worker)

    def _end_events_of(self, devices: set[str] | None, why: str, interrupted: bool = False) -> None:
        """End the open events the workers' detectors hold (of ``devices``; None: all), whose state is gone: at a stop
        too, so that the history does not show them open while no daemon runs, to be ended at the next start, as
        long after as the daemon stayed stopped. Drift's finding_new events stand: they are the daemon's own, read
        back at a start (_restore_drift), and end when a drift run no longer finds them. ``interrupted`` (a clean
        stop): each is marked so (numbers ``interrupted`` 1) and the alert sinks are told nothing: the next start
        continues it under its id when its condition is seen again, or ends it to the sinks (_continue)."""
        now = clock.wall()
        for event in [e for e in self._open.values()
                      if e.kind != "finding_new" and (devices is None or e.device in devices)]:
            event.end_unix_s = now
            event.message += f" ({'interrupted' if interrupted else 'ended'}: {why})"
            if interrupted:
                event.numbers[INTERRUPTED_MARK] = 1
            self._emit(event, tell_sinks=not interrupted)

    async def _stop_workers(self) -> None:
        """Ask every worker to stop (queued: a worker still starting reads it after what its start queued), and give
        them WORKER_STOP_S together (in turn, each stuck one added its 10 s), then kill those still running."""
        for worker in self.workers:
            if worker.up and worker.link is not None:
                try:
                    worker.link.post(("stop",))
                except LinkClosed:
                    pass
        await asyncio.gather(*[self._stopped(w) for w in self.workers if w.proc is not None])
        for worker in self.workers:
            await asyncio.gather(*worker.tasks, return_exceptions=True)

    @staticmethod
    async def _stopped(worker: _Worker) -> None:
        assert worker.proc is not None
        try:
            await asyncio.wait_for(worker.proc.wait(), WORKER_STOP_S)
        except asyncio.TimeoutError:
            log.error("worker %d did not stop within %g s: killed", worker.index, WORKER_STOP_S)
            _kill(worker.proc)
            await worker.proc.wait()

    # -- metrics ---------------------------------------------------------------------------------------
    async def scrape(self, accept: str | None, names: frozenset[str] | None = None) -> tuple[bytes, str]:
        """The daemon's own families merged with every live worker's (rendered by the workers)."""
        fmt = negotiate(accept)
        waits = []
        for worker in self.workers:
            if not worker.up or worker.link is None or not worker.configured.is_set():
                continue  # (one starting has no series yet: losslessd_worker_state says it starts)
            request_id = next(self._scrape_ids)
            future = self._loop.create_future()
            self._scrapes[request_id] = future
            worker.scrapes.add(request_id)
            try:
                await worker.link.send(("scrape", request_id, fmt, names))
            except LinkClosed:
                self._answered(worker, request_id, [])
                continue
            waits.append((worker, request_id, future))
        own = await asyncio.to_thread(self.metrics.render, fmt, names)
        parts = [own]
        for worker, request_id, future in waits:
            try:
                parts.append(await asyncio.wait_for(future, SCRAPE_WAIT_S))
            except asyncio.TimeoutError:
                self._answered(worker, request_id, [])
                log.warning("worker %d did not render its metrics within %g s: this scrape goes without its "
                            "devices", worker.index, SCRAPE_WAIT_S, extra={"worker": worker.index})
        return await asyncio.to_thread(merge, parts, fmt), CONTENT_TYPES[fmt]

    # -- events ----------------------------------------------------------------------------------------
    def _emit(self, event: Event, tell_sinks: bool = True) -> None:
        resumed = self._continue(event)
        if event.kind in NIC_STORMS and (linked := self._switch_ports.get((event.device, event.port or ""))):
            event.message += f" (its switch port: {linked[0]} {linked[1]})"
        was_open = event.id in self._open
        change: Change
        if event.open:
            self._open[event.id] = event
            change = "update" if was_open else "start"
        else:
            self._open.pop(event.id, None)
            change = "end" if was_open else "start"  # an event that started and ended between two polls
        self.metrics.event(event, continued=resumed)
        self.history.record_event(event)
        if tell_sinks:  # queues at once, in order: it never waits on a sink
            self._spawn(self.sinks.send(event, "update" if resumed else change))

    def _continue(self, event: Event) -> bool:
        """Give an event a worker opened soon after this start (its detector saw the condition again) the id of the
        one the previous run's clean stop interrupted at its place: the same incident, not a new one (its alert is
        updated, not fired again); True when it does so for the first time. Its later changes (its end) are given
        the same: the worker knows nothing of the interrupted one."""
        first = False
        old = self._continued.get(event.id)
        if old is None:
            old = self._resumable.get((event.kind, event.device, event.port, event.priority))
            if old is None or not event.open or time.monotonic() >= self._resume_end(event.device):
                return False
            del self._resumable[(event.kind, event.device, event.port, event.priority)]
            self._continued[event.id] = old
            first = True
        if not event.open:
            del self._continued[event.id]
        event.start_unix_s = old.start_unix_s
        for name, value in old.numbers.items():  # (its peaks so far stand)
            if name.startswith("peak_"):
                event.numbers[name] = max(value, event.numbers.get(name, value))
        event.message += " (continued across a restart of losslessd: not watched while it was stopped)"
        return first

    def _end_resumable(self, force: bool = False) -> None:
        """Once the window after its device's first poll that answered has passed (or at a stop), an interrupted event
        not seen again ends: to the history (its mark taken off) and to the sinks, at the time the clean stop ended it.
        A device that has not answered since the start keeps its events waiting (its condition is not seen either way),
        one not in the inventory (left it while the daemon was stopped, or by a reload) ends them: nothing polls it.
        """
        if not self._resumable:
            return
        now = time.monotonic()
        for place, event in list(self._resumable.items()):
            if not force and event.device in self._owner and now < self._resume_end(event.device):
                continue
            del self._resumable[place]
            event.numbers.pop(INTERRUPTED_MARK, None)
            event.message += " (not seen again after the restart)"
            self.history.record_event(event)
            self._spawn(self.sinks.send(event, "end"))
        if not self._resumable:
            self._answered_at.clear()

    def _resume_end(self, device: str) -> float:
        """When the window of ``device``'s interrupted events closes (time.monotonic()): resume_window_s of the settings
        and sources of now (a reload that changes them changes it) after its first poll that answered; open until then.
        """
        if (answered := self._answered_at.get(device)) is None:
            return math.inf
        return answered[0] + resume_window_s(self.settings, answered[1])

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)  # the loop keeps weak references only
        task.add_done_callback(self._background.discard)

    def _close_stale_events(self) -> None:
        """Events a previous run left open (it was killed, or crashed): their detectors' state is gone, so end them,
        at the last time the history shows that run at work for their device (History.last_seen_s: its last poll
        of the device, or its last row for a device that did not answer), never later than now; before session 42
        at this start, so the hours the daemon stayed down read as hours of storm. A storm still going on opens a
        new event within the detection time."""
        now = clock.wall()
        try:  # a damaged open row is moved aside with why (kept, and warned about once, not at every start)
            for moved in self.history.quarantine_open_events(now):
                log.warning("%s: %s; moved as it was, with why, to the history's quarantined_events table",
                            moved.file, moved.reason)
        except InputError as exc:
            log.warning("%s", exc)
        damaged: list[InputError] = []
        try:
            stale = [e for e in self.history.events(open_only=True, damaged=damaged) if e.kind != "finding_new"]
        except InputError as exc:
            log.warning("open events of an earlier run not closed: %s", exc)
            return
        finally:
            for row in damaged:  # the readable ones are still closed
                log.warning("an open event of an earlier run not closed: %s", row)
        self._resume_from_clean_stop()
        for event in stale:
            seen = self.history.last_seen_s(event.device)
            event.end_unix_s = now if seen is None else max(event.start_unix_s, min(seen, now))
            event.message += (" (ended: losslessd stopped uncleanly, killed or crashed; ended at its last poll the "
                              "history holds, its detector state was lost)")
            self.history.record_event(event)
        if stale:
            log.info("ended %d events an earlier run left open", len(stale))

    def _resume_from_clean_stop(self) -> None:
        """The events the last clean stop interrupted (ended at the stop, the newest time the history holds, marked
        INTERRUPTED_MARK): each continues under its id if a detector opens its kind at its place within
        resume_window_s of this daemon being ready."""
        newest = self.history.newest_s()
        try:
            found = [] if newest is None else self.history.events(since=newest)
        except InputError as exc:
            log.warning("events the last stop interrupted not read: %s", exc)
            return
        self._resumable = {(e.kind, e.device, e.port, e.priority): e for e in found
                           if not e.open and e.numbers.get(INTERRUPTED_MARK) == 1}
        self._answered_at.clear()  # (each device's window opens at its first poll that answers: _listen)
        if self._resumable:
            log.info("%d events the last stop interrupted continue under their ids if seen again within %g s and %d "
                     "intervals of the slowest source polling their device after its first poll that answers",
                     len(self._resumable), self.settings.detection.storm_detection_s, resume_polls(self.settings))

    # -- drift -----------------------------------------------------------------------------------------
    def _set_drift(self, settings: Settings) -> None:
        """Drift lints the whole fabric: with shards, the daemon of shard 0 runs it."""
        on = settings.drift.enabled and self.shard.index == 0
        self.drift_runner.schedule.set_devices([DRIFT] if on else [], time.monotonic())

    def _restore_drift(self) -> None:
        try:
            damaged: list[InputError] = []
            self.drift.restore(self.history.findings(latest=True),
                               self.history.events(kind="finding_new", open_only=True, damaged=damaged))
            for row in damaged:
                log.warning("an open drift event not restored: %s", row)
        except InputError as exc:  # an unreadable history: start with a fresh baseline
            log.warning("drift baseline not restored: %s", exc)

    async def _drift_round(self, _: str) -> bool:
        settings = self.settings
        started = time.monotonic()
        try:
            pulled = await self._pulling(None, functools.partial(
                pull_and_lint, settings.hosts, settings.lint_policy, known_hosts=settings.known_hosts_path,
                concurrency=settings.poll.concurrency, timeout_s=settings.poll.ssh_timeout_s))
        except InputError as exc:
            log.error("drift run failed: %s", exc)
            return False
        devices = self.settings.hosts.hosts  # a reload during the run may have changed them
        await self._take(pulled)
        now_s = time.monotonic()
        for device in set(devices) - set(pulled.missing):  # read now: their own refresh is an interval away
            self.config_runner.schedule.defer(device, now_s)
        for device, why in sorted(pulled.missing.items()):
            log.warning("drift: the config of %s was not read (%s); its findings stand as of its last run",
                        device, why, extra={"device": device})
        missing = {**pulled.missing, **{d: "joined during the run" for d in devices if d not in settings.hosts.hosts}}
        now = clock.wall()
        result = self.drift.compare(pulled.findings, list(devices), now, missing)
        for device, found in result.findings.items():
            if device in devices or device == FABRIC:  # not one that left the inventory during the run
                self.history.record_findings(device, now, found)
                self.metrics.findings(device, result.counts(device))
        for event in result.events:
            self._emit(event)
        log.info("drift run: %d findings, %d changes, %d devices not read, %.1f s", len(pulled.findings),
                 len(result.events), len(pulled.missing), time.monotonic() - started)
        return True

    async def _pulling(self, executor: ThreadPoolExecutor | None, pull_in_thread) -> Pulled:
        """``pull_in_thread(cancel=...)`` (a drift run's or a config read's pull) in a thread of ``executor``; when
        this is cancelled (a stop), its SSH sessions are cut at once, so the thread ends now rather than at the SSH
        timeout (a stop waited that long for a slow device: the process joins its threads before it exits)."""
        cancel = Cancel()
        try:
            return await self._loop.run_in_executor(executor, functools.partial(pull_in_thread, cancel=cancel))
        except asyncio.CancelledError:
            cancel.cancel()
            raise

    async def _take(self, pulled: Pulled) -> None:
        """The configs and queue maps a drift run or a config read brought: kept, and sent to the workers
        of the devices whose changed (a device that left the inventory meanwhile is dropped)."""
        devices = self.settings.hosts.hosts
        changed = {d for d, c in pulled.configs.items() if d in devices and self._configs.get(d) != c}
        self._configs.update({d: pulled.configs[d] for d in changed})
        remapped = {d for d, q in pulled.queues.items() if d in devices and self._queues.get(d) != q}
        self._queues.update({d: pulled.queues[d] for d in remapped})
        now = clock.wall()
        # For `losslessd history` (a priority's ECN marks are its queue's): every read, the history's own check
        # (History.record_queue_maps) stores only a change, also for a history opened since (a reload) or one whose
        # backlog dropped the maps last stored, which a device unchanged here never reached.
        for device in sorted(d for d in pulled.queues if d in devices):
            self.history.record_queue_maps(device, pulled.queues[device].carries, now)
        changed |= remapped
        recabled = {d for d, c in pulled.cables.items() if d in devices and self._cables.get(d) != c}
        self._cables.update({d: pulled.cables[d] for d in recabled})
        if recabled:
            self._link_hosts()
        await asyncio.gather(*[self._send_configs(w, changed.intersection(w.devices)) for w in self.workers])

    def _link_hosts(self) -> None:
        """Each inventory host's NIC ports -> the switch port cabled to them, from the switches' configs read
        (DEVICE_NEIGHBOR, LLDP): named in its NIC's storm events and in losslessd_host_link_info."""
        hosts = self.settings.hosts.hosts
        self._switch_ports = {
            (far, far_port): (switch, port) for switch, ports in sorted(self._cables.items()) if switch in hosts
            for port, (far, far_port) in sorted(ports.items())
            if far in hosts and hosts[far].platform.kind != DeviceKind.switch}
        self.metrics.host_links(self._switch_ports)

    async def _read_config(self, device: str) -> bool:
        """Read one device's config (this daemon's devices only: each shard reads its own) for its queue maps and
        proposals: at the start, at a reload that brings it, every drift.interval_s after (a drift run that read it
        puts that off), and after a failure within poll.backoff_max_s. A failure is logged when a spell of them
        starts; the device's maps stay as last read (none before a first read: its queue marks are unknown)."""
        settings = self.settings
        host = settings.hosts.hosts.get(device)
        if host is None:
            return True
        try:
            pulled = await self._pulling(self._config_pool, functools.partial(
                read_configs, Inventory({device: host}), known_hosts=settings.known_hosts_path, concurrency=1,
                timeout_s=settings.poll.ssh_timeout_s))
        except InputError as exc:
            pulled = Pulled([], {device: str(exc)})
        schedule = self.config_runner.schedule
        failing = device in schedule.devices and schedule.failures(device) > 0
        if device in pulled.missing:
            if not failing:
                log.warning("the config of %s was not read (%s): the ECN detector does not know which queue's "
                            "marks are a lossless priority's there until it is; retried within %g s", device,
                            pulled.missing[device], settings.poll.backoff_max_s, extra={"device": device})
            return False
        if failing:
            log.info("the config of %s was read", device, extra={"device": device})
        await self._take(pulled)
        return True

    # -- settings --------------------------------------------------------------------------------------
    async def reload(self) -> tuple[bool, str]:
        """Load and check the settings file again; swap only when it is valid. (ok, message).

        Requests coalesce: one made while a reload runs waits for a single reload after it, shared by every
        request made meanwhile (a burst of SIGHUPs from a config-management run reloads twice, not once per
        signal); each request still sees a reload that began after it, so it reads the file as it was asked to.
        A request made while the daemon starts waits until it has started: a reload then ran beside the start
        (workers told settings before they had any, systemd sent READY=1 by the reload before the daemon was ready).
        A stop asked before it ran cancels it: a reload after STOPPING=1 told systemd RELOADING=1 and READY=1 again
        while the daemon stopped (a SIGHUP and a SIGTERM during the start: the start ended, then both woke)."""
        await self._started.wait()
        if self._stop_asked():
            return False, _STOPPING
        if self._next_reload is None:
            self._next_reload = self._loop.create_future()
            if self._reloading is None:
                self._reloading = asyncio.ensure_future(self._reload_queued())
        return await asyncio.shield(self._next_reload)

    async def _reload_queued(self) -> None:
        """Run the queued reload, then the one queued while it ran, until none is."""
        try:
            while (waiting := self._next_reload) is not None:
                self._next_reload = None
                if self._stop_asked():
                    waiting.set_result((False, _STOPPING))
                    continue
                try:
                    waiting.set_result(await self._reload_once())
                except asyncio.CancelledError:  # (the daemon is stopping: it cancels the reload under way)
                    waiting.set_result((False, _STOPPING))
                    if (queued := self._next_reload) is not None:  # (one asked meanwhile will not run either)
                        self._next_reload = None
                        queued.set_result((False, _STOPPING))
                    raise
                except Exception as exc:  # (an internal error: every request waiting on it hears of it)
                    waiting.set_exception(exc)
        finally:
            self._reloading = None

    def _stop_asked(self) -> bool:
        return self._stopping or self._stop is not None and self._stop.is_set()

    async def _reload_once(self) -> tuple[bool, str]:
        self.notifier.reloading()
        path = self.settings.file
        try:
            new = await asyncio.to_thread(load_settings, path)
            history = self._open_history(new) if new.history != self.settings.history else None
        except InputError as exc:
            log.error("reload refused, the running settings stay: %s", exc, extra={"settings": str(path)})
            self.metrics.reloaded(False, clock.wall())
            self.notifier.ready(self._status())
            return False, f"reload refused, the running settings stay: {exc}"
        await self._apply(new, history)
        self.metrics.reloaded(True, clock.wall())
        self.notifier.ready(self._status())
        log.info("settings reloaded: %s", self._status(), extra={"settings": str(path)})
        return True, f"reloaded {path}: {self._status()}"

    async def _apply(self, new: Settings, history: History | None) -> None:
        """Re-create what changed (``history``: the new settings' history, opened when its settings
        changed) and hand the new settings and device split to the workers; they keep counter state
        and open events where they still mean the same."""
        old = self.settings
        new.apply_limits()
        if new.log != old.log:
            logs.configure(new.log.level)
        if new.http != old.http:
            log.warning("http settings changed: they take effect at the next restart (still serving %s)",
                        self.http.url)
        if new.workers != old.workers:
            log.warning("workers changed: it takes effect at the next restart (still %d workers)", len(self.workers))
        if history is not None:
            self._close_history()
            self.history = history
        if new.sinks != old.sinks or new.webhook_headers != old.webhook_headers:
            self._spawn(self.sinks.close())
            self.sinks = self._make_sinks(new)
        self.settings = new
        devices = self._devices(new)
        self.history.record_polled(devices)  # (the new history's, when the reload changed it)
        for device in set(self._owner) - set(devices):
            self.metrics.forget(device)  # its event and finding series; the worker drops its own
            self._configs.pop(device, None)
            self._queues.pop(device, None)
            self._cables.pop(device, None)
        parts = split(devices, len(self.workers))
        self._owner = {d: i for i, part in enumerate(parts) for d in part}
        # (side by side: a worker slow to read, stuck until its silence is judged, holds up no other)
        await asyncio.gather(*[self._reconfigure(worker, part) for worker, part in zip(self.workers, parts,
                                                                                      strict=True)])
        self._link_hosts()  # (hosts and switches may have come or gone)
        self.drift_runner.schedule.configure(new.drift.interval_s, **timing(new.poll))
        self._set_drift(new)
        self.drift_runner.wake()
        self.config_runner.schedule.configure(new.drift.interval_s, **timing(new.poll))
        # one that joined: at once
        self.config_runner.schedule.set_devices(self._switches(new, devices), time.monotonic(), at_once=True)
        self.config_runner.wake()

    async def _reconfigure(self, worker: _Worker, devices: list[str]) -> None:
        """A reload's settings and ``devices`` to ``worker`` (a starting one once it is ready: _reading)."""
        joined = set(devices) - set(worker.devices)
        worker.devices = devices
        if (link := self._reading(worker)) is not None:
            try:
                await link.send(("configure", self.settings, devices))
            except LinkClosed:
                return  # it died: it is started again with the new settings and devices
            await self._send_configs(worker, joined)  # a device that joined this worker brings its config

    def _close_history(self) -> None:
        self.history.close()  # writes what it can first
        if self.history.backlog:
            log.error("history closed with %d records not written (%s): they are lost", self.history.backlog,
                      self.history.last_error, extra={"history": str(self.history.path)})

    def _open_history(self, settings: Settings) -> History:
        h = settings.history
        history = History(settings.history_path, resolution_s=h.resolution_s, retention_s=h.retention_days * DAY_S,
                          flush_on_record=False)  # housekeeping commits, off the loop
        if history.clock.distrusted:
            log.warning("the clock is %.1f days past the newest row of the history, more than its retention: "
                        "retention counts from that row, not from the clock (a clock set ahead would delete every "
                        "row at once)", history.clock.ahead_s / DAY_S, extra={"history": str(history.path)})
        return history

    def _make_sinks(self, settings: Settings) -> Sinks:
        sinks: list[Sink] = [LogSink()] if settings.sinks.log else []
        if (hook := settings.sinks.webhook) is not None:
            sinks.append(WebhookSink(hook.url, hook.timeout_s, hook.retries, settings.webhook_headers))
        return Sinks(sinks, metrics=self.metrics)


def _kill(proc: asyncio.subprocess.Process) -> None:
    try:
        proc.kill()
    except ProcessLookupError:
        pass


def _phase(worker: _Worker) -> Phase:
    """losslessd_worker_state: starting until it says it is configured, ready after, backing_off from its death (or
    its kill) until it is started again."""
    if worker.proc is not None and not worker.up:
        return "backing_off"
    return "ready" if worker.configured.is_set() else "starting"
