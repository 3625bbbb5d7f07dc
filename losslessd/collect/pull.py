"""`losslessd pull`: collect every inventory device into a snapshot folder (docs/collection.md).

Devices are collected concurrently (netmiko sessions in worker threads under an asyncio semaphore),
each attempt within a per-device timeout, connection failures retried with exponential backoff and
jitter. One device's failure never stops the others: it is recorded in the manifest with its SYS
code. Each capture is written as soon as its device is done and the manifest is rewritten
atomically after every device, so an interrupted run keeps everything it collected.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__, capture, limits
from ..errors import InputError, internal_error_message
from ..inventory import Host, Inventory, SnmpTarget, file_name_problem
from . import (
    COMMAND_FAILED,
    COUNTERS,
    FORMAT,
    INTERNAL_ERROR,
    MANIFEST,
    MASK,
    PARTIAL,
    SNMP_V2C,
    TIMEOUT,
    VERSION,
    capture_name,
    sha256,
    write_atomic,
)
from .redact import redact
from .ssh import CollectError, Result, Session

if TYPE_CHECKING:  # pysnmp is imported only when an inventory asks for counters
    from .snmp import BasePoller

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 2
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 30.0
# Extra time a worker thread gets past its own deadline (Session aborts at the deadline) before
# the device is written off as timed out.
_GRACE_S = 5.0


def backoff(retry: int, base: float = BACKOFF_BASE_S, cap: float = BACKOFF_CAP_S,
            rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait before retry number ``retry`` (1, 2, ...): base * 2^(retry-1), capped, with
    "equal jitter" (half fixed, half random), so retries of many devices spread out but never bunch
    at zero (AWS Architecture Blog, "Exponential Backoff And Jitter")."""
    delay = min(cap, base * 2 ** (retry - 1))
    return delay / 2 + rand() * delay / 2


@dataclass
class Options:
    known_hosts: Path | None  # None: host keys are not checked (--insecure-no-host-key-check)
    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    serial: bool = False  # one device at a time, in inventory order, in the calling thread (debugging)
    backoff_base_s: float = BACKOFF_BASE_S
    session_log: Path | None = None  # folder for netmiko session logs (secrets masked); None: no logs


@dataclass
class DeviceResult:
    name: str
    platform: str
    status: str = "pending"  # ok | failed | pending
    code: str | None = None  # SYS code when failed
    message: str | None = None
    attempts: int = 0
    issues: list[dict] = field(default_factory=list)  # SYS014/SYS015 (and SNMP failures) of a collected device
    record: dict = field(default_factory=dict)  # the device's manifest entry


@dataclass
class PullResult:
    folder: Path
    devices: dict[str, DeviceResult]
    # files of the snapshot that could not be written (a full disk, a folder made read-only): the pull exits 2
    unwritten: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[DeviceResult]:
        return [d for d in self.devices.values() if d.status != "ok"]

    @property
    def crashed(self) -> list[DeviceResult]:
        """Devices whose collection met a bug in losslessd (SYS900): the pull exits 3, never 1."""
        return [d for d in self.devices.values() if d.code == INTERNAL_ERROR]


def prepare(out: Path) -> None:
    """The snapshot folder: new or empty, so no capture of an earlier run can pass for this one's."""
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise InputError("--out exists and is not a folder", file=str(out))
        if any(out.iterdir()):
            raise InputError("--out is not empty; pull into a new folder (snapshots are never merged)", file=str(out))
    limits.output_folder(out, "snapshot", "--out")


def session_log_path(folder: Path, device: str, attempt: int) -> Path:
    """Where --session-log keeps netmiko's log of one attempt at one device."""
    return folder / f"{device}.{attempt}.log"


class Cancel:
    """Ends a pull() that runs in another thread, from any thread: ``cancel()`` cancels the pull's task, which cuts
    its SSH sessions (Session.abort: a worker thread waiting on a device returns at once, not at its timeout) and
    fails the devices not finished as interrupted; pull() then raises asyncio.CancelledError. A cancel before the pull
    started ends it as soon as it starts. The daemon's config reads and drift pulls take one, so a stop does not wait
    out an SSH timeout."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._task: tuple[asyncio.AbstractEventLoop, asyncio.Task] | None = None
        self.cancelled = False

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            if self._task is not None:
                loop, task = self._task
                with contextlib.suppress(RuntimeError):  # (its loop is closed: the pull is over)
                    loop.call_soon_threadsafe(task.cancel)

    def check(self, *_progress) -> None:
        """CancelledError once cancelled: a lint's progress callback (drift's lint of the pulled snapshot, which a stop
        waited out to its end: the process joins its thread before it exits)."""
        if self.cancelled:
            raise asyncio.CancelledError

    async def run(self, coro) -> PullResult:
        task = asyncio.ensure_future(coro)
        with self._lock:
            self._task = asyncio.get_running_loop(), task
            if self.cancelled:
                task.cancel()
        return await task


def pull(inventory: Inventory, out: Path, options: Options, *, inventory_path: str = "",
         on_result: Callable[[DeviceResult], None] | None = None, cancel: Cancel | None = None) -> PullResult:
    """Collect every host of ``inventory`` into ``out`` (prepare() it first). A host name that cannot be a
    file name in ``out`` is refused before anything is contacted (InputError): inventory.load refuses
    them too, but an Inventory may be built in Python. ``cancel``: a handle another thread may end it by."""
    for name in inventory.hosts:
        problem = file_name_problem(name)
        if problem:
            raise InputError(f"host {name[:80]!r}: {problem}")
    run = _Pull(inventory, out, options, inventory_path, on_result).run()
    return asyncio.run(run if cancel is None else cancel.run(run))


class SnapshotUnwritable(InputError):
    """A file of the snapshot could not be written (a full disk, a folder made read-only meanwhile): no device's
    failure and no bug in losslessd (it was SYS900 on each device, exit 3)."""

    def __init__(self, path: Path, exc: OSError):
        super().__init__(f"cannot write into the snapshot: {exc.strerror or exc}", file=str(path))


def _write(path: Path, text: str) -> bytes:
    try:
        return write_atomic(path, text)
    except OSError as exc:
        raise SnapshotUnwritable(path, exc) from None


class _Pull:
    def __init__(self, inventory: Inventory, out: Path, options: Options, inventory_path: str,
                 on_result: Callable[[DeviceResult], None] | None):
        self.inventory = inventory
        self.out = out
        self.options = options
        self.on_result = on_result
        self.sessions: set[Session] = set()
        self.results = {name: DeviceResult(name, host.platform.id) for name, host in inventory.hosts.items()}
        self.manifest: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "collector": f"losslessd {__version__}",
            "started": _now(), "finished": None, "inventory": inventory_path,
            "host_key_check": options.known_hosts is not None,
            "devices": {name: {"status": "pending", "platform": host.platform.id, "hostname": host.hostname,
                               "port": host.port} for name, host in inventory.hosts.items()},
        }
        # One SNMP poller for the run (make_poller: fast path or pysnmp), made on first use.
        self._snmp: BasePoller | None = None
        self.unwritten: list[str] = []  # SnapshotUnwritable messages, each once

    async def run(self) -> PullResult:
        self._save_manifest()
        if self.unwritten:  # a snapshot that cannot be started: no device is contacted for nothing
            raise InputError(f"{self.unwritten[0]}; nothing was contacted")
        gate = asyncio.Semaphore(1 if self.options.serial else max(1, self.options.concurrency))
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=max(1, self.options.concurrency),
                                                     thread_name_prefix="losslessd-pull"))

        async def one(host: Host) -> None:
            async with gate:
                await self._device(host)

        try:
            if self.options.serial:
                for host in self.inventory.hosts.values():
                    await one(host)
            else:
                await asyncio.gather(*(one(h) for h in self.inventory.hosts.values()))
        finally:
            for session in list(self.sessions):  # interrupted: cut what is still running
                session.abort()
            for result in self.results.values():
                if result.status == "pending":
                    self._fail(result, TIMEOUT, "collection did not finish: the pull was interrupted", save=False)
                else:
                    self._record(result, save=False)  # a device interrupted while its counters were polled
            self.manifest["finished"] = _now()
            self._save_manifest()
            if self._snmp is not None:
                self._snmp.close()
        return PullResult(self.out, self.results, self.unwritten)

    async def _device(self, host: Host) -> None:
        """Collect one device; a bug met there is its failure (SYS900), never the fleet's: the others go on and
        what they collected is saved."""
        try:
            await self._collect(host)
        except SnapshotUnwritable as exc:  # collected, not saved: the device's collection did not finish
            self._unwritten(exc)
            self._fail(self.results[host.name], TIMEOUT, f"collected but not saved: {exc}")
        except Exception as exc:  # noqa: BLE001 - deliberate: one device's bug must not stop a fleet run
            self._fail(self.results[host.name], INTERNAL_ERROR,
                       internal_error_message(f"collecting {host.name} failed", exc))
        if self.on_result:
            self.on_result(self.results[host.name])

    async def _collect(self, host: Host) -> None:
        result = self.results[host.name]
        started = time.monotonic()
        outcome: Result | None = None
        partial = Result()  # the most a failed attempt read before it failed (kept in partial/ if all fail)
        for attempt in range(1, self.options.retries + 2):
            result.attempts = attempt
            session = Session(host, known_hosts=self.options.known_hosts, timeout=self.options.timeout_s,
                              session_log=self._session_log(host, attempt))
            self.sessions.add(session)
            try:
                outcome = await self._attempt(session)
                break
            except CollectError as exc:
                if len(session.partial.sections) > len(partial.sections):
                    partial = session.partial
                if not exc.retry or attempt > self.options.retries:
                    message = exc.message + (f" (after {attempt} attempts)" if attempt > 1 else "")
                    if partial.sections:
                        message += self._save_partial(host, result, partial)
                    self._fail(result, exc.code, message, save=False)  # saved below
                    break
                delay = backoff(attempt, self.options.backoff_base_s)
                log.info("%s: %s %s; retry %d/%d in %.1f s", host.name, exc.code, exc.message, attempt,
                         self.options.retries, delay)
                await asyncio.sleep(delay)
            finally:
                self.sessions.discard(session)
        if outcome is not None:
            self._save_capture(host, result, outcome, time.monotonic() - started)
            if host.snmp is not None:  # counters of a device whose config could not be read would go unchecked
                self._record(result)
                await self._poll_snmp(host, host.snmp, result)
        self._record(result)

    async def _attempt(self, session: Session) -> Result:
        if self.options.serial:
            return session.run()  # in this thread: a debugger or a traceback shows netmiko's own frames
        try:
            return await asyncio.wait_for(asyncio.to_thread(session.run), self.options.timeout_s + _GRACE_S)
        except asyncio.TimeoutError:
            session.abort()
            host = session.host
            raise CollectError(TIMEOUT, f"{host.hostname}:{host.port} did not finish within "
                               f"{self.options.timeout_s:g} s (--timeout){session.during()}") from None
        except asyncio.CancelledError:  # interrupted: free the worker thread now, not at its deadline
            session.abort()
            raise

    def _session_log(self, host: Host, attempt: int) -> Path | None:
        folder = self.options.session_log
        return session_log_path(folder, host.name, attempt) if folder else None

    # -- results ----------------------------------------------------------------------------
    def _capture(self, host: Host, outcome: Result, collected: str) -> tuple[str, int]:
        """The capture text of ``outcome``'s sections, and how many of the device's own secrets it masked."""
        header = {"device": host.name, "platform": host.platform.id, "collected": collected,
                  "collector": f"losslessd {__version__} pull"}
        sections, redacted = [], 0
        for command, output in outcome.sections:  # the device's own secrets never reach the disk (collect.redact)
            output, count = redact(output, is_json=output.lstrip().startswith(("{", "[")))
            sections.append((command, output))
            redacted += count
        return capture.write(header, sections), redacted

    def _save_partial(self, host: Host, result: DeviceResult, partial: Result) -> str:
        """Keep the outputs a failed device gave before it failed in partial/ (which lint does not read: a capture
        missing commands would read as a config missing what they show); the end of its failure message."""
        path = f"{PARTIAL}/{capture_name(host.name)}"
        try:
            (self.out / PARTIAL).mkdir(exist_ok=True)
        except OSError as exc:
            self._unwritten(SnapshotUnwritable(self.out / PARTIAL, exc))
            return ""
        text, _ = self._capture(host, partial, _now())
        try:
            _write(self.out / path, text)
        except SnapshotUnwritable as exc:
            self._unwritten(exc)
            return ""
        result.record["partial"] = path
        return (f"; the {len(partial.sections)} output(s) read before are kept in {path} (not linted: commands are "
                "missing)")

    def _save_capture(self, host: Host, result: DeviceResult, outcome: Result, duration: float) -> None:
        collected = _now()
        text, redacted = self._capture(host, outcome, collected)
        name = capture_name(host.name)
        data = _write(self.out / name, text)
        lines = [s.line for s in capture.read(text).sections]
        for index, count in sorted(outcome.masked.items()):
            log.warning("%s: the output of `%s` held the login password or enable secret %d time(s) (a device echoing "
                        "it, or a config holding it in clear): written as %s in the capture", host.name,
                        outcome.sections[index][0], count, MASK)
        for index, why in sorted(outcome.refused.items()):
            command = outcome.sections[index][0]
            result.issues.append({"code": COMMAND_FAILED, "command": command, "line": lines[index] - 1,
                                  "message": f"`{command}` failed: {why}; its output is kept in the capture"})
        result.status = "ok"
        result.record.update(status="ok", collected=collected, capture=name, sha256=sha256(data),
                             duration_s=round(duration, 3))
        if redacted:
            result.record["redacted"] = redacted
            log.info("%s: %d secret(s) of its own config (SNMP communities, keys, password hashes) written as %s in "
                     "the capture", host.name, redacted, MASK)

    async def _poll_snmp(self, host: Host, spec: SnmpTarget, result: DeviceResult) -> None:
        from . import snmp  # pysnmp: only when an inventory asks for counters

        if spec.version == "2c":
            result.issues.append({"code": SNMP_V2C, "command": "snmp", "message": f"counters polled with SNMPv2c from {spec.hostname}:"
                                  f"{spec.port}: the community travels in clear text and requests are not "
                                  "authenticated; configure SNMPv3 authPriv (data.snmp.version: 3)"})
        target = snmp.target_for(host, timeout_s=min(self.options.timeout_s, snmp.DEFAULT_TIMEOUT_S))
        if self._snmp is None:
            self._snmp = snmp.make_poller("auto")  # the fast path when it is installed
            self._snmp.fleet = frozenset(self.inventory.hosts)
        try:
            sample = await self._snmp.poll(target)
        except snmp.SnmpError as exc:
            result.issues.append({"code": exc.sys_code, "command": "snmp", "message": f"SNMP counters not collected: {exc.message}"})
            return
        path = f"{COUNTERS}/{host.name}.json"
        try:
            try:
                (self.out / COUNTERS).mkdir(exist_ok=True)
            except OSError as exc:
                raise SnapshotUnwritable(self.out / COUNTERS, exc) from None
            _write(self.out / path, sample.model_dump_json(indent=1) + "\n")
        except SnapshotUnwritable as exc:  # the configuration is saved: the counters are what is missing
            self._unwritten(exc)
            result.issues.append({"code": TIMEOUT, "command": "snmp", "message": f"SNMP counters not saved: {exc}"})
            return
        result.record["counters"] = path

    def _fail(self, result: DeviceResult, code: str, message: str, save: bool = True) -> None:
        result.status, result.code, result.message = "failed", code, message
        result.record.update(status="failed", code=code, message=message)
        self._record(result, save)

    def _record(self, result: DeviceResult, save: bool = True) -> None:
        entry = self.manifest["devices"][result.name]
        entry.update(result.record, attempts=result.attempts)
        if result.issues:
            entry["issues"] = result.issues
        if save:
            self._save_manifest()

    def _save_manifest(self) -> None:
        """Write the manifest as it stands; when it cannot be, say so at the end (the next save may still)."""
        try:
            _write(self.out / MANIFEST, json.dumps(self.manifest, indent=2) + "\n")
        except SnapshotUnwritable as exc:
            self._unwritten(exc)
        else:  # written after all: an earlier failed save of it is no longer true
            self.unwritten[:] = [m for m in self.unwritten if not m.startswith(f"{self.out / MANIFEST}: ")]

    def _unwritten(self, exc: SnapshotUnwritable) -> None:
        if str(exc) not in self.unwritten:
            self.unwritten.append(str(exc))


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
