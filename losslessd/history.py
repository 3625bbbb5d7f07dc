"""The daemon's memory: downsampled pause/ECN rates, events and drift findings in one SQLite file.

Writes never raise: a locked database or a full disk leaves the rows in a bounded in-memory backlog
that the next successful commit writes, and ``last_error`` / ``backlog`` / ``dropped`` tell the
daemon. What was committed survives kill -9 (WAL, see ``_PRAGMAS``). docs/history.md has the schema.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shlex
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Literal, get_args, get_type_hints

from .errors import SQLITE_LOCK_HELD, InputError, state_file_reason
from .limits import (
    READ_WAIT_S,
    absent_or_kind,
    check_output,
    not_a_file,
    os_reason,
    sqlite_readable,
    still_as_read,
)
from .lint.finding import Finding
from .monitor import (
    CNP_HANDLED,
    CNP_SENT,
    DROPPED_PACKETS,
    ECN_MARKED,
    IN_DISCARDS,
    OUT_DISCARDS,
    PAUSE_DURATION_US,
    PFC_RX,
    PFC_TX,
    WD_RESTORED,
    WD_STORMS,
    Event,
    EventKind,
    Rates,
)
from .records import record
from .statelock import WRITERS
from .units import is_printable_time

# PRAGMA application_id marks the file as ours ("LLSD"), so `losslessd events --db` refuses other databases.
APPLICATION_ID = 0x4C4C5344
# The counters kept: what tells a storm and ECN's health apart. Octets and queue tx packets are left to
# Prometheus: they are never zero, and 200 devices x 64 ports of them would dominate the file.
RECORDED_NAMES = frozenset({PFC_RX, PFC_TX, PAUSE_DURATION_US, ECN_MARKED, CNP_SENT, CNP_HANDLED,
                            DROPPED_PACKETS, WD_STORMS, WD_RESTORED, IN_DISCARDS, OUT_DISCARDS})
BUSY_TIMEOUT_S = 0.25  # record_* run on the daemon's event loop: a locked database must not stall polling
OPEN_TIMEOUT_S = 5.0  # opening (and creating the schema) may wait longer: it happens once
RETRY_S = 5.0  # after a failed commit, record_* wait this long before trying again (flush() tries at once)
# SQLite result codes (https://www.sqlite.org/rescode.html): the disk is full; an I/O error (a file size limit: EFBIG).
SQLITE_IOERR, SQLITE_FULL = 10, 13

# synchronous=NORMAL in WAL mode: a commit is in the WAL (the OS has it) before it returns, so it survives
# the process being killed; only an OS crash or power loss can roll back the last commits, and never
# corrupts the file. FULL would fsync every commit (several per second at 200 devices) to cover that too
# (https://www.sqlite.org/pragma.html#pragma_synchronous: "durable across application crashes").
_PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL")
# A write-ahead log is never shrunk, only reused from its start: one prune's transaction (an hour of a large fabric's
# rows) left a -wal larger than the history on disk for the daemon's life. SQLite cuts it back to this at its next
# reuse (journal_size_limit): the log of its default auto-checkpoint, 1000 pages
# (https://www.sqlite.org/pragma.html#pragma_journal_size_limit, #pragma_wal_autocheckpoint).
WAL_KEEP_PAGES = 1000

# Schema migrations: _MIGRATIONS[n] takes user_version n to n + 1. Append, never edit.
_MIGRATIONS = [
    f"""
    PRAGMA application_id = {APPLICATION_ID};
    -- One row per device/port/counter/bucket, only when the counter moved: total = increase over the
    -- bucket, peak = the highest per-second rate of one poll. idx = priority or queue, -1 = per port.
    CREATE TABLE samples (
        device TEXT NOT NULL, port TEXT NOT NULL, bucket_s REAL NOT NULL, name TEXT NOT NULL,
        idx INTEGER NOT NULL, total REAL NOT NULL, peak REAL NOT NULL,
        PRIMARY KEY (device, port, bucket_s, name, idx)) WITHOUT ROWID;
    CREATE INDEX samples_bucket ON samples (bucket_s);
    -- Seconds of polls seen per device/counter/bucket: a bucket covered without a samples row was 0.
    CREATE TABLE coverage (
        device TEXT NOT NULL, bucket_s REAL NOT NULL, name TEXT NOT NULL, seconds REAL NOT NULL,
        PRIMARY KEY (device, bucket_s, name)) WITHOUT ROWID;
    CREATE INDEX coverage_bucket ON coverage (bucket_s);
    -- Ports ever recorded, so that a mistyped port reads as unknown rather than as quiet.
    CREATE TABLE ports (device TEXT NOT NULL, port TEXT NOT NULL, PRIMARY KEY (device, port)) WITHOUT ROWID;
    CREATE TABLE events (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, device TEXT NOT NULL, port TEXT, priority INTEGER,
        start_unix_s REAL NOT NULL, end_unix_s REAL, severity TEXT NOT NULL, basis TEXT NOT NULL,
        code TEXT, message TEXT NOT NULL, numbers TEXT NOT NULL);
    CREATE INDEX events_start ON events (start_unix_s);
    CREATE INDEX events_end ON events (end_unix_s);
    CREATE TABLE drift_runs (
        device TEXT NOT NULL, time_unix_s REAL NOT NULL, findings INTEGER NOT NULL,
        PRIMARY KEY (device, time_unix_s));
    CREATE TABLE findings (
        device TEXT NOT NULL, time_unix_s REAL NOT NULL, code TEXT NOT NULL, severity TEXT NOT NULL,
        port TEXT, message TEXT NOT NULL, fingerprint TEXT NOT NULL);
    CREATE INDEX findings_run ON findings (device, time_unix_s);
    """,
    # The tuner's proposal an ecn_not_marking event carries (losslessd.tune.propose), as JSON; NULL: none.
    "ALTER TABLE events ADD COLUMN proposal TEXT;",
    """
    -- Per-port exceptions to a device's coverage: seconds of the bucket's polls during which this port's
    -- counter was unknown (cleared, or missing from one of the two readings). Rare, so kept apart.
    CREATE TABLE gaps (
        device TEXT NOT NULL, port TEXT NOT NULL, bucket_s REAL NOT NULL, name TEXT NOT NULL, seconds REAL NOT NULL,
        PRIMARY KEY (device, port, bucket_s, name)) WITHOUT ROWID;
    CREATE INDEX gaps_bucket ON gaps (bucket_s);
    """,
    """
    -- Open events rows no Event could be read from (damaged or edited), moved here by the daemon at its start with
    -- why, rather than warned about at every start or deleted: the columns after reason are the events row's
    -- values as they were (declared without a type, so SQLite stores each as it came, bytes that are not UTF-8
    -- included). The row's rowid in events is kept as events_rowid.
    CREATE TABLE quarantined_events (
        events_rowid INTEGER NOT NULL, quarantined_unix_s REAL NOT NULL, reason TEXT NOT NULL,
        id, kind, device, port, priority, start_unix_s, end_unix_s, severity, basis, code, message, numbers,
        proposal);
    """,
    """
    -- Each device's priority -> egress queues maps by port (monitor.QueueMaps.carries) as the daemon last read them
    -- from its config: `losslessd history` shows a priority's ECN marks and drops from its queue by them. queues is a
    -- JSON list.
    CREATE TABLE queue_maps (
        device TEXT NOT NULL, port TEXT NOT NULL, priority INTEGER NOT NULL, queues TEXT NOT NULL,
        read_unix_s REAL NOT NULL, PRIMARY KEY (device, port, priority)) WITHOUT ROWID;
    """,
    """
    -- Every priority -> egress queues map a device held, not only its latest (with the latest only, `losslessd history`
    -- showed the marks of an hour before a TC -> queue change from the queue the priority moved to). A map holds from
    -- the read that found it changed (from_unix_s) until the device's next read in queue_map_reads; the device's first
    -- map stands for the time before it too (nothing older is known). A read that found no map has no rows.
    CREATE TABLE queue_map_reads (
        device TEXT NOT NULL, from_unix_s REAL NOT NULL, PRIMARY KEY (device, from_unix_s)) WITHOUT ROWID;
    CREATE TABLE queue_map_rows (
        device TEXT NOT NULL, from_unix_s REAL NOT NULL, port TEXT NOT NULL, priority INTEGER NOT NULL,
        queues TEXT NOT NULL, PRIMARY KEY (device, from_unix_s, port, priority)) WITHOUT ROWID;
    INSERT INTO queue_map_reads SELECT DISTINCT device, read_unix_s FROM queue_maps;
    INSERT INTO queue_map_rows SELECT device, read_unix_s, port, priority, queues FROM queue_maps;
    DROP TABLE queue_maps;
    """,
    """
    -- The devices the daemon writing this history polls (its shard's), as of its last start or reload: until a device's
    -- first rows are committed, `losslessd events --device` tells it ("no events yet") from a mistyped name. Kept
    -- across restarts, replaced whole by each start and reload.
    CREATE TABLE polled (device TEXT NOT NULL PRIMARY KEY) WITHOUT ROWID;
    """,
]
SCHEMA_VERSION = len(_MIGRATIONS)
# The tables each step of _MIGRATIONS creates (a file of user_version n has those of the first n steps).
_TABLES = [("samples", "coverage", "ports", "events", "drift_runs", "findings"), (), ("gaps",), ("quarantined_events",),
           ("queue_maps",), ("queue_map_reads", "queue_map_rows"), ("polled",)]
_DROPPED = [(), (), (), (), (), ("queue_maps",), ()]  # ... and those it drops
# A map of one device: port -> priority -> the egress queues carrying it (monitor.QueueMaps.carries).
Carries = dict[str, dict[int, list[int]]]
# The events columns in the order of the table (schema 2 on), as quarantined_events copies them.
_EVENTS_TABLE_COLUMNS = ("id, kind, device, port, priority, start_unix_s, end_unix_s, severity, basis, code, message, "
                         "numbers, proposal")

_SAMPLE_UPSERT = ("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                  "total = total + excluded.total, peak = max(peak, excluded.peak)")
_COVERAGE_UPSERT = ("INSERT INTO coverage VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                    "seconds = seconds + excluded.seconds")
_GAP_UPSERT = "INSERT INTO gaps VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET seconds = seconds + excluded.seconds"
_EVENT_UPSERT = "INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_EVENT_KINDS = frozenset(get_args(EventKind))
_SEVERITIES = frozenset(get_args(get_type_hints(Event)["severity"]))
_BASES = frozenset(get_args(get_type_hints(Event)["basis"]))
_EVENT_COLUMNS = ("kind, device, port, priority, start_unix_s, message, severity, numbers, end_unix_s, basis, code, "
                  "proposal")

# One record_* call: the statements that write it, applied together so a dropped batch leaves no half.
_Batch = list[tuple[str, list[tuple]]]
# One poll's rates as history rows: (samples rows, coverage rows, gaps rows, (device, port) pairs).
RateRows = tuple[list[tuple], list[tuple], list[tuple], list[tuple[str, str]]]


def rate_rows(rates: Rates, resolution_s: float) -> RateRows | None:
    """One poll's rates as the rows ``History.record_rate_rows`` writes (None: nothing to record).
    Pure, so a process other than the history's writer can make them: only the counters the history
    keeps (RECORDED_NAMES), a samples row only for a counter that moved, a coverage row per name, and a
    gaps row per port and name with a counter of unknown delta (cleared or absent): that port's interval
    is unknown for that name, so none of its priorities' samples of this poll are kept either (a sum
    over them would be part of one)."""
    if rates.reset or rates.interval_s <= 0:
        return None
    bucket = math.floor(rates.time_unix_s / resolution_s) * resolution_s
    lost = {(k.port, k.name) for k in rates.cleared | rates.absent if k.name in RECORDED_NAMES}
    samples, names, ports = [], {name for _, name in lost}, {(rates.device, port) for port, _ in lost}
    for key, per_s in rates.per_s.items():
        if key.name not in RECORDED_NAMES:
            continue
        names.add(key.name)
        ports.add((rates.device, key.port))
        if per_s and (key.port, key.name) not in lost:
            idx = -1 if key.index is None else key.index
            samples.append((rates.device, key.port, bucket, key.name, idx, per_s * rates.interval_s, per_s))
    if not names:
        return None
    return (samples, [(rates.device, bucket, name, rates.interval_s) for name in sorted(names)],
            [(rates.device, port, bucket, name, rates.interval_s) for port, name in sorted(lost)], sorted(ports))


@record(frozen=True)
class StoredFinding:
    """One lint finding of one drift run."""

    time_unix_s: float
    device: str
    code: str
    severity: str
    port: str | None
    message: str
    fingerprint: str


class DamagedEvent(InputError):
    """An events row no Event can be read from: the InputError a reader prints, with the row and why (for
    History.quarantine_open_events)."""

    def __init__(self, message: str, *, file: str, rowid: int, reason: str):
        super().__init__(message, file=file)
        self.rowid, self.reason = rowid, reason


class RetentionClock:
    """The time retention counts from: the wall clock, but never further ahead than the monotonic clock has moved
    since the file was opened (a wall clock stepped forward by a wrong RTC or NTP answer made prune delete
    everything collected, in one pass). At the opening, a wall clock more than the retention past the newest row
    the file holds is not trusted either (``distrusted``: it would delete every row at once); retention then
    counts from that row, and a real downtime that long keeps the old rows that much longer. A clock behind the
    newest row at the opening (no RTC: a boot at 1970, NTP puts it right later) counts from that row too, so that
    retention follows the clock once it is right. A clock that goes back deletes less, never more."""

    def __init__(self, newest_s: float | None, retention_s: float, *, wall=time.time, mono=None):
        # CLOCK_BOOTTIME (Linux) counts a suspend too, which CLOCK_MONOTONIC leaves out: the wall clock moves on then.
        mono = mono or (partial(time.clock_gettime, time.CLOCK_BOOTTIME) if hasattr(time, "CLOCK_BOOTTIME")
                        else time.monotonic)
        self._wall, self._mono = wall, mono
        now = wall()
        self.distrusted = newest_s is not None and now - newest_s > retention_s
        self.ahead_s = now - newest_s if self.distrusted and newest_s is not None else 0.0
        start = newest_s if self.distrusted and newest_s is not None else max(now, newest_s or now)
        self._start = (start, mono())

    def now(self) -> float:
        return min(self._wall(), self._start[0] + self._mono() - self._start[1])

    def stepped_s(self) -> float:
        """How far the wall clock is ahead of the time retention counts from (0 while they agree)."""
        return max(0.0, self._wall() - self.now())


class History:
    """The history file. One writer (the daemon); any number of readers (`losslessd events`) meanwhile."""

    def __init__(self, path: str | Path, *, resolution_s: float = 60, retention_s: float = 30 * 86400,
                 create: bool = True, max_bytes: int | None = None, max_backlog: int = 10_000,
                 flush_on_record: bool = True):
        """``create=False`` opens an existing history only (the CLI); ``max_bytes`` caps the file, after
        which writes wait in the backlog until ``prune`` frees room. ``flush_on_record=False`` leaves
        every commit to ``flush``: the daemon calls it from a worker thread, so that record_* on its
        event loop never waits for SQLite."""
        if resolution_s <= 0 or retention_s <= 0:
            raise ValueError("history resolution and retention must be positive")
        self.path = Path(path)
        self.resolution_s = float(resolution_s)
        self.retention_s = float(retention_s)
        self.last_error: str | None = None  # the last failed commit's reason; None once a commit succeeds
        self.dropped = 0  # batches thrown away because the backlog was full
        self.closed = False
        self._backlog: deque[_Batch] = deque()
        self._max_backlog = max_backlog
        self._flush_on_record = flush_on_record
        self._retry_at = 0.0
        self._lock = threading.Lock()  # the connection
        self._pending = threading.Lock()  # the backlog: held only to move batches, never during a commit
        # One writing daemon per file: a second ended the first's open events as a killed run's and wrote beside it.
        # Taken before the file is opened: opening it to write migrates its schema under a daemon of the previous
        # release still writing it (statelock: its lock name). The path is checked first (no lock file on /proc).
        if create:
            check_output(self.path, "history database", regular=True)
        self._writer = WRITERS.take(self.path, "daemon", "give each its own history.path") if create else None
        try:
            self._db = _open(self.path, create)
        except BaseException:
            WRITERS.release(self._writer)
            raise
        self._max_bytes = max_bytes
        self.notice: str | None = None  # what the writer found of its file's fate (deleted, replaced), once, to log
        # The devices the daemon polls (record_polled) and whether the file lacks them: one list, not a batch of the
        # backlog, so that a full backlog never drops it and a file found replaced (_attach) is given it again.
        self._polled_devices: list[str] | None = None
        self._polled_unwritten = False
        try:
            self._attach()
            # (the indexed times only: the newest row of a file of millions, at the opening of the writer)
            self.clock = RetentionClock(self._newest_s() if create else None, self.retention_s)
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            self._db.close()
            WRITERS.release(self._writer)
            raise InputError(f"cannot read the history: {state_file_reason(exc, self.path)}",
                             file=str(self.path)) from None

    def _attach(self) -> None:
        """What the writer keeps of the file it has open (read at the opening, and again when it opens the file now at
        its path: _same_file)."""
        # A reader (create=False) leaves an older file as it is: a column it lacks reads as NULL.
        self._event_columns = _EVENT_COLUMNS.replace("proposal", "proposal" if "proposal" in {
            row[1] for row in self._db.execute("PRAGMA table_info(events)")} else "NULL")
        self._ports = set(self._db.execute("SELECT device, port FROM ports"))  # written ones (or in the backlog)
        tables = {name for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        # A file from before schema 3 has no gaps table: its coverage had no per-port exceptions.
        self._gaps = "gaps" in tables
        # ... and one from before schema 5 no queue maps (which queue carries a priority is not known there); one of
        # schema 5 (a reader leaves it as it is) its latest maps only.
        self._queue_maps = "spans" if "queue_map_reads" in tables else "latest" if "queue_maps" in tables else None
        self._polled = "polled" in tables  # (schema 7 on)
        self._polled_unwritten = self._polled_devices is not None  # (a new file at the path has none of them)
        # The writer's: each device's latest map, so that a read that found the same (every daemon start) is not
        # stored as one more change.
        self._latest_maps: dict[str, Carries] = {
            device: self._maps_at(device) for (device,) in self._db.execute(
                "SELECT DISTINCT device FROM queue_map_reads")} if self._writer else {}
        if self._max_bytes is not None:
            page = self._db.execute("PRAGMA page_size").fetchone()[0]
            self._db.execute(f"PRAGMA max_page_count = {max(1, int(self._max_bytes) // page)}")
        # (last: a file not wholly read is opened again) The logs SQLite opened beside it (a writer's exist from its
        # opening): those alone are removed when the file is found replaced (_same_file).
        self._identity, self._detached = _identity(self.path), False
        self._logs = {log: _identity(Path(log)) for log in (f"{self.path}-wal", f"{self.path}-shm")}

    # -- writing -------------------------------------------------------------------------------------

    @property
    def backlog(self) -> int:
        """Records (one per record_* call; the polled list one however often recorded) waiting for a successful
        commit."""
        return len(self._backlog) + self._polled_unwritten

    def record_rates(self, rates: Rates) -> None:
        """Add one poll's rates to its bucket (the bucket of its end time). Reset polls carry no rates."""
        self.record_rate_rows(rate_rows(rates, self.resolution_s))

    def record_rate_rows(self, rows: RateRows | None) -> None:
        """What ``rate_rows`` made of one poll's rates (the daemon's workers make them, it writes them)."""
        if rows is None:
            return
        samples, coverage, gaps, ports = rows
        new_ports = sorted(set(ports) - self._ports)
        self._ports.update(new_ports)
        self._record([(_SAMPLE_UPSERT, samples), (_COVERAGE_UPSERT, coverage), (_GAP_UPSERT, gaps),
                      ("INSERT OR IGNORE INTO ports VALUES (?, ?)", new_ports)])

    def record_event(self, event: Event) -> None:
        """Insert or update (same ``Event.id``) an event: its latest state wins."""
        row = (event.id, event.kind, event.device, event.port, event.priority, event.start_unix_s,
               event.end_unix_s, event.severity, event.basis, event.code, event.message, json.dumps(event.numbers),
               None if event.proposal is None else json.dumps(event.proposal))
        self._record([(_EVENT_UPSERT, [row])])

    def record_findings(self, device: str, time_unix_s: float, findings: list[Finding]) -> None:
        """One drift run's findings for a device (an empty list records a clean run)."""
        rows = [(f.device or device, time_unix_s, f.code, f.severity.value, f.port, f.message, f.fingerprint)
                for f in findings]
        self._record([("DELETE FROM findings WHERE device = ? AND time_unix_s = ?", [(device, time_unix_s)]),
                      ("INSERT OR REPLACE INTO drift_runs VALUES (?, ?, ?)", [(device, time_unix_s, len(rows))]),
                      ("INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?)", rows)])

    def record_queue_maps(self, device: str, carries: Carries, read_unix_s: float) -> None:
        """A device's priority -> egress queues maps by port (monitor.QueueMaps.carries), as just read: they hold from
        ``read_unix_s`` on, and the maps stored before stay for the time before (a read that found the maps stored
        last adds nothing). A read at or before the last stored one (a clock set back) replaces that one: the maps
        read last stay the current ones."""
        carries = {port: {prio: list(queues) for prio, queues in by_prio.items()} for port, by_prio in carries.items()
                   if by_prio}
        if self._latest_maps.get(device) == carries:
            return
        self._latest_maps[device] = carries
        rows = [(device, read_unix_s, port, prio, json.dumps(queues))
                for port, by_prio in sorted(carries.items()) for prio, queues in sorted(by_prio.items())]
        # (the subquery: the later of this read's time and the last stored read's)
        start = "max(?, coalesce((SELECT max(from_unix_s) FROM queue_map_reads WHERE device = ?), ?))"
        self._record([
            (f"DELETE FROM queue_map_rows WHERE device = ? AND from_unix_s = {start}",
             [(device, read_unix_s, device, read_unix_s)]),
            (f"INSERT OR REPLACE INTO queue_map_reads VALUES (?, {start})",
             [(device, read_unix_s, device, read_unix_s)]),
            (f"INSERT INTO queue_map_rows VALUES (?, {start}, ?, ?, ?)",
             [(d, t, d, t, port, prio, queues) for d, t, port, prio, queues in rows])])

    def record_polled(self, devices: Iterable[str]) -> None:
        """The devices the daemon polls now (at its start, and each reload): they replace those stored. Kept apart from
        the backlog (the latest list only, written with the next commit): a backlog that overflowed dropped it first
        (its oldest batch), and `losslessd events --device` then refused a polled device until the next reload."""
        with self._pending:
            self._polled_devices = sorted(set(devices))
            self._polled_unwritten = True
        if self._flush_on_record and time.monotonic() >= self._retry_at:
            self.flush()

    def flush(self) -> bool:
        """Write the backlog now; False (and ``last_error``) when the database refused it or is closed."""
        with self._lock:
            return not self.closed and self._flush()

    def prune(self, now: float) -> int:
        """Delete what is older than the retention (open events stay); returns the rows deleted."""
        cutoff = now - self.retention_s
        with self._lock:
            # (closed by a reload while this thread waited for the lock)
            if self.closed or not self._same_file() or not self._still_writer():
                return 0
            try:
                self._db.execute("BEGIN IMMEDIATE")
                deleted = sum(self._db.execute(sql, (cutoff,)).rowcount for sql in (
                    "DELETE FROM samples WHERE bucket_s < ?",
                    "DELETE FROM coverage WHERE bucket_s < ?",
                    "DELETE FROM gaps WHERE bucket_s < ?",
                    "DELETE FROM events WHERE end_unix_s < ?",
                    "DELETE FROM findings WHERE time_unix_s < ?",
                    "DELETE FROM drift_runs WHERE time_unix_s < ?",
                    "DELETE FROM quarantined_events WHERE quarantined_unix_s < ?",
                    # (a device's maps read before the cutoff but the last before it still hold after it: kept)
                    "DELETE FROM queue_map_reads AS old WHERE from_unix_s < (SELECT max(from_unix_s) FROM "
                    "queue_map_reads r WHERE r.device = old.device AND r.from_unix_s <= ?1)"))
                deleted += self._db.execute(
                    "DELETE FROM queue_map_rows AS old WHERE NOT EXISTS (SELECT 1 FROM queue_map_reads r WHERE "
                    "r.device = old.device AND r.from_unix_s = old.from_unix_s)").rowcount
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._failed(exc)
                return 0
            self._flush()  # pruning may be what made room for a backlog that hit a full disk
            return deleted

    def last_seen_s(self, device: str) -> float | None:
        """The latest time the history shows the daemon at work for ``device``: the end of the last bucket a poll of it
        covers, else (a device that did not answer: device_down) the latest time any row holds; None when it has
        none. A killed daemon's open events end there (the daemon's _close_stale_events), not at the next start."""
        with self._lock:
            found = self._db.execute("SELECT max(bucket_s) FROM coverage WHERE device = ?", (device,)).fetchone()[0]
            newest = self._newest_s()
        polled = float(found) + self.resolution_s if isinstance(found, int | float) and math.isfinite(found) else None
        known = [t for t in (polled, newest) if t is not None]
        return max(known) if known else None

    def newest_s(self) -> float | None:
        """The latest time a row of the file holds (_newest_s), under the connection's lock."""
        with self._lock:
            return self._newest_s()

    def _newest_s(self) -> float | None:
        """The latest time a row of the file holds (a bucket, an event's start or end); None when it has none."""
        times = [self._db.execute(sql).fetchone()[0] for sql in (
            "SELECT max(bucket_s) FROM samples", "SELECT max(bucket_s) FROM coverage",
            "SELECT max(start_unix_s) FROM events", "SELECT max(end_unix_s) FROM events")]
        known = [float(t) for t in times if isinstance(t, int | float) and math.isfinite(t)]
        return max(known) if known else None

    def close(self) -> None:
        """Write what can be written, then close (a backlog that still fails is lost, and logged by the caller)."""
        with self._lock:
            self._flush()
            self._db.close()
            if not self.closed:
                WRITERS.release(self._writer)
            self.closed = True

    def _record(self, batch: _Batch) -> None:
        with self._pending:
            self._backlog.append(batch)
            self._trim()
        if self._flush_on_record and time.monotonic() >= self._retry_at:
            self.flush()

    def _trim(self) -> None:
        while len(self._backlog) > self._max_backlog:
            self._backlog.popleft()
            self.dropped += 1
            self._ports.clear()  # the dropped batch may have held new ports: insert them again
            self._latest_maps.clear()  # ... or a device's new maps: store the next read's

    def _flush(self) -> bool:
        """Commit the backlog (the caller holds ``_lock``); batches recorded meanwhile wait for the next."""
        with self._pending:
            if not self._backlog and not self._polled_unwritten:
                return True
        if not self._same_file() or not self._still_writer():
            return False
        with self._pending:
            batches, self._backlog = self._backlog, deque()
            polled = self._polled_devices if self._polled_unwritten else None
        try:
            self._db.execute("BEGIN IMMEDIATE")
            if polled is not None:
                self._db.execute("DELETE FROM polled")
                self._db.executemany("INSERT INTO polled VALUES (?)", [(d,) for d in polled])
            for batch in batches:
                for sql, rows in batch:
                    self._db.executemany(sql, rows)
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._failed(exc)
            with self._pending:  # back in front of what was recorded meanwhile, in order
                self._backlog.extendleft(reversed(batches))
                self._trim()
            return False
        with self._pending:  # (unless a reload recorded another list meanwhile)
            self._polled_unwritten = self._polled_unwritten and self._polled_devices is not polled
        self.last_error = None
        self._retry_at = 0.0
        return True

    def _same_file(self) -> bool:
        """The file at the path is still the one open (the caller holds ``_lock``). Deleted (an operator freeing space,
        a cleanup script) or replaced (a backup restored, `mv` over it), the daemon went on committing into a file no
        name reaches: every row lost, with the history said healthy. It opens what is there now instead (a new file
        where none is), or fails as a commit does (``last_error``, the backlog kept, tried again) while what is there
        is no history it can write."""
        here = _identity(self.path)
        # (detached, its connection is closed: the same file back at the path, its folder moved away and back, is
        # opened again)
        if here == self._identity and not self._detached:
            return True
        fate = "deleted or moved away" if here is None else "moved away and back" if here == self._identity else \
            "replaced"
        # SQLite reads the -wal and -shm named after the path as the log of whatever file is there: the old file's, left
        # behind (SQLite writes no checkpoint into a file moved or deleted under it), made a restored backup read as
        # the old history, its own rows gone ("How To Corrupt An SQLite Database File", mispaired journals). They
        # are the log of a file no name reaches: removed before the file now at the path is opened. A log that is not
        # the one the writer opened came with the file now there (a file-level backup restored with its -wal, whose
        # last transactions live only there): it stays.
        try:
            if not self._detached:  # (once: at a retry, a log there is the new file's)
                self._detached = True
                with contextlib.suppress(sqlite3.Error):  # (through its descriptors: the old file, wherever it is now)
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                for log, mine in self._logs.items():
                    if mine is not None and _identity(Path(log)) == mine:
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(log)
            self._db = _open(self.path, True)
            self._attach()
        except (InputError, OSError, sqlite3.Error, UnicodeDecodeError) as exc:
            why = exc.message if isinstance(exc, InputError) else os_reason(exc) if isinstance(exc, OSError) else \
                state_file_reason(exc)
            said = f"the history file was {fate} while the daemon ran; what is there now is not one: {why}"
            if said != self.last_error:  # (said once, not at every retry)
                self.notice = said
            self.last_error = said
            self._retry_at = time.monotonic() + RETRY_S
            return False
        self.notice = (f"the history file was {fate} while the daemon ran: the rows written since are in the file now "
                       "at its path" + (", a new one" if here is None else ""))
        return True

    def _still_writer(self) -> bool:
        """This process still holds the history's lock (statelock): one removed since it was taken is taken again;
        one another daemon took meanwhile (started while the lock file was gone) leaves the rows in the backlog, said
        as a failed commit is, until that daemon lets it go: two daemons never write one history."""
        if self._writer is None:
            return True
        try:
            WRITERS.still_held(self._writer, "daemon", "give each its own history.path")
        except InputError as exc:
            said = f"the history's lock file was removed while the daemon ran; its rows wait: {exc.message}"
            if said != self.last_error:
                self.notice = said
            self.last_error = said
            self._retry_at = time.monotonic() + RETRY_S
            return False
        return True

    def _failed(self, exc: sqlite3.Error) -> None:
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # SQLite already rolled back (it does on SQLITE_FULL)
                self._db.execute("ROLLBACK")
        self.last_error = str(exc)
        self._retry_at = time.monotonic() + RETRY_S
        if getattr(exc, "sqlite_errorcode", SQLITE_FULL) & 0xFF in (SQLITE_FULL, SQLITE_IOERR):
            # A full disk (or a file size limit) the write-ahead log has grown into: copy it into the database and
            # empty it, so that the next commit (a prune's, which frees pages) has room; else even the prune failed,
            # and the history stayed stuck until the daemon stopped.
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reading (committed rows only) ---------------------------------------------------------------

    def events(self, device: str | None = None, kind: str | None = None, since: float | None = None,
               until: float | None = None, open_only: bool = False,
               damaged: list[InputError] | None = None) -> list[Event]:
        """Events that overlap [since, until] (an open event overlaps everything after its start), oldest first.

        A row no Event was written as (damaged or edited) is an InputError naming the file and the row; with
        ``damaged`` given, each such row is added there instead and the other rows are still read (one bad row
        must not hide every event), as is a page SQLite refuses part way (the rows before it are kept)."""
        where: list[str] = []
        args: list[object] = []
        for sql, value in (("device = ?", device), ("kind = ?", kind), ("start_unix_s <= ?", until),
                           ("(end_unix_s IS NULL OR end_unix_s >= ?)", since)):
            if value is not None:
                where.append(sql)
                args.append(value)
        if open_only:
            where.append("end_unix_s IS NULL")
        sql = f"SELECT rowid, {self._event_columns} FROM events {_where(where)} ORDER BY start_unix_s, id"
        out: list[Event] = []
        for row in self._lenient_rows(sql, args, damaged):
            try:
                out.append(self._event(row))
            except InputError as exc:
                if damaged is None:
                    raise
                damaged.append(exc)
        return out

    def quarantine_open_events(self, now: float) -> list[DamagedEvent]:
        """Move each open events row no Event can be read from into quarantined_events, with why and when, in one
        transaction (the daemon, at its start). Such a row was warned about at every start until someone deleted
        it by hand; moved, it is kept as it was (nothing of the history is lost) and warned about once. Returns the
        rows moved; a write that fails is an InputError naming the file (the rows stay where they were). Rows SQLite
        cannot read at all are not moved: events(damaged=...) names them."""
        sql = f"SELECT rowid, {self._event_columns} FROM events WHERE end_unix_s IS NULL"
        bad: list[DamagedEvent] = []
        for row in self._lenient_rows(sql, [], []):
            try:
                self._event(row)
            except DamagedEvent as exc:
                bad.append(exc)
        if not bad:
            return []
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for damaged in bad:
                    self._db.execute(f"INSERT INTO quarantined_events SELECT rowid, ?, ?, {_EVENTS_TABLE_COLUMNS} "
                                     "FROM events WHERE rowid = ? AND end_unix_s IS NULL",
                                     (now, damaged.reason, damaged.rowid))
                    self._db.execute("DELETE FROM events WHERE rowid = ? AND end_unix_s IS NULL", (damaged.rowid,))
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise InputError(f"damaged open events rows not moved to quarantined_events: "
                                 f"{state_file_reason(exc, self.path)}", file=str(self.path)) from None
        return bad

    def _lenient_rows(self, sql: str, args: list, damaged: list[InputError] | None) -> list[tuple]:
        """The rows of ``sql`` with text that is not UTF-8 given as bytes (for the row check to name), so that a
        damaged value fails its row, not the query; a page SQLite refuses part way ends the rows there (an
        InputError, or one more entry of ``damaged`` when given)."""
        rows: list[tuple] = []
        with self._lock:
            self._db.text_factory = _text_or_bytes
            try:
                cursor = self._db.execute(sql, args)
                while batch := cursor.fetchmany(256):
                    rows += batch
            except sqlite3.DatabaseError as exc:
                still_as_read(self._db, self.path, "history")  # (a page written under it reads as damage)
                error = InputError(f"cannot read the history{' past ' + str(len(rows)) + ' rows' if rows else ''}: "
                                   f"{state_file_reason(exc, self.path)}", file=str(self.path))
                if damaged is None:
                    raise error from None
                damaged.append(error)
            finally:
                self._db.text_factory = str
            still_as_read(self._db, self.path, "history")
        return rows

    def _event(self, r: tuple) -> Event:
        """An events row (its rowid first) as the Event it was written from; a row no Event makes (damaged or
        edited: a kind or severity losslessd has not, a number that is text, JSON that does not parse) is an
        InputError naming the file and the row, and saying how to remove it."""
        rowid, r = r[0], r[1:]
        try:
            numbers, proposal = json.loads(_text(r[7])), None if r[11] is None else json.loads(_text(r[11]))
            # (any float: json.dumps writes a non-finite one a detector or a drift finding gave as NaN or Infinity)
            if not (isinstance(numbers, dict) and all(type(v) in (int, float) for v in numbers.values())):
                raise ValueError("its numbers are not a JSON object of numbers")
            if not (proposal is None or isinstance(proposal, dict)):
                raise ValueError("its proposal is not a JSON object")
            for value, allowed, what in ((r[0], _EVENT_KINDS, "kind"), (r[6], _SEVERITIES, "severity"),
                                         (r[9], _BASES, "basis")):
                if value not in allowed:
                    raise ValueError(f"{what} {_short(value)} is not one losslessd writes")
            if not (_text(r[1]) and all(v is None or isinstance(v, str) for v in (r[2], r[10]))):
                raise ValueError("its device, port or code is not text")
            if not (r[3] is None or type(r[3]) is int) or not _time(r[4]) or not (r[8] is None or _time(r[8])):
                raise ValueError("its priority, start or end is not a number (or no time a report can print)")
            _text(r[5])
        except (ValueError, TypeError) as exc:
            reason = f"events row {rowid} is damaged (device {_short(r[1])}, start {_short(r[4])}): {exc}"
            raise DamagedEvent(f"{reason} (to remove it, stop the daemon and run: sqlite3 "
                               f"{shlex.quote(str(self.path))} 'DELETE FROM events WHERE rowid = {rowid}')",
                               file=str(self.path), rowid=rowid, reason=reason) from None
        return Event(kind=r[0], device=r[1], port=r[2], priority=r[3], start_unix_s=float(r[4]), message=r[5],
                     severity=r[6], numbers=numbers, end_unix_s=None if r[8] is None else float(r[8]), basis=r[9],
                     code=r[10], proposal=proposal)

    def series(self, device: str, port: str, names: Iterable[str], index: int | None = None,
               since: float | None = None, until: float | None = None,
               stat: Literal["mean", "max"] = "mean") -> list[tuple[float, str, float]]:
        """(bucket start, counter name, rate per second) for buckets starting in [since, until], by time.

        ``mean`` is the bucket's increase over the seconds polled in it; ``max`` the highest one-poll
        rate. ``index`` picks a priority (PFC) or queue; None sums them. Counters a device only counts
        per port (a NIC's CNPs) are given for any index. A bucket polled without a row for the counter is
        0; the polls during which the port's counter was unknown (its gaps) count neither as polled nor
        as 0, and a bucket with no other poll is left out; a port never recorded gives [].
        """
        names = sorted(set(names))
        if not names or not self._query("SELECT 1 FROM ports WHERE device = ? AND port = ?", [device, port]):
            return []
        marks = ",".join("?" * len(names))
        span = [-math.inf if since is None else since, math.inf if until is None else until]
        seconds = {(b, n): s for b, n, s in self._query(
            f"SELECT bucket_s, name, seconds FROM coverage WHERE device = ? AND name IN ({marks}) "
            "AND bucket_s BETWEEN ? AND ?", [device, *names, *span])}
        unknown = {(b, n): s for b, n, s in self._query(
            f"SELECT bucket_s, name, seconds FROM gaps WHERE device = ? AND port = ? AND name IN ({marks}) "
            "AND bucket_s BETWEEN ? AND ?", [device, port, *names, *span])} if self._gaps else {}
        chosen = "idx >= 0" if index is None else "idx = ?"
        picked = "SUM" if stat == "mean" else "MAX"
        column = "total" if stat == "mean" else "peak"
        rows = self._query(
            f"SELECT bucket_s, name, {picked}(CASE WHEN {chosen} THEN {column} END), "
            f"{picked}(CASE WHEN idx < 0 THEN {column} END), COUNT(CASE WHEN idx >= 0 THEN 1 END) FROM samples "
            f"WHERE device = ? AND port = ? AND name IN ({marks}) AND bucket_s BETWEEN ? AND ? GROUP BY bucket_s, name",
            ([] if index is None else [index]) + [device, port, *names, *span])
        for table, values in (("coverage", seconds.items()), ("gaps", unknown.items()),
                              ("samples", (((b, n), (i, p)) for b, n, i, p, _ in rows))):
            for (bucket, _name), value in values:
                if not (_time(bucket) and all(v is None or _number(v) for v in (
                        value if isinstance(value, tuple) else (value,)))):
                    raise InputError(f"a {table} row of {_short(device)} is damaged: a time or number that is "
                                     f"{_short(bucket)} / {_short(value)}", file=str(self.path))
        found = {(b, n): (indexed if count else per_port) or 0.0 for b, n, indexed, per_port, count in rows}
        out = []
        for (bucket, name), polled in sorted(seconds.items()):
            secs = polled - unknown.get((bucket, name), 0.0)
            if secs <= polled * 1e-9:  # every poll of the bucket was a gap for this port (float sums: not == 0)
                continue
            value = found.get((bucket, name), 0.0)
            out.append((bucket, name, value / secs if stat == "mean" else value))
        return out

    def indexes(self, device: str, port: str, names: Iterable[str], since: float | None = None,
                until: float | None = None) -> list[int]:
        """The priorities and queues (Key.index) of ``port`` with samples of ``names`` in [since, until]."""
        names = sorted(set(names))
        span = [-math.inf if since is None else since, math.inf if until is None else until]
        rows = self._query(f"SELECT DISTINCT idx FROM samples WHERE device = ? AND port = ? AND idx >= 0 AND name IN "
                           f"({','.join('?' * len(names))}) AND bucket_s BETWEEN ? AND ? ORDER BY idx",
                           [device, port, *names, *span])
        if bad := [idx for (idx,) in rows if type(idx) is not int]:
            raise InputError(f"a samples row of {_short(device)} is damaged: priority or queue {_short(bad[0])}",
                             file=str(self.path))
        return [idx for (idx,) in rows]

    def queue_spans(self, device: str, port: str) -> list[tuple[float, dict[int, list[int]]]] | None:
        """The port's priority -> egress queues maps as the daemon read them from the device's config, each with the
        time from which it held (until the next one's): the first from -inf (nothing older is known; a file of
        schema 5 has the latest only). A read that gave the port no map is an empty one. None when the daemon never
        read the device's maps (or the file predates them)."""
        if self._queue_maps is None:
            return None
        if self._queue_maps == "latest":
            reads, rows = [-math.inf], [(-math.inf, prio, queues) for prio, queues in self._query(
                "SELECT priority, queues FROM queue_maps WHERE device = ? AND port = ?", [device, port])]
            if not self._query("SELECT 1 FROM queue_maps WHERE device = ? LIMIT 1", [device]):
                return None
        else:
            reads = [t for (t,) in self._query(
                "SELECT from_unix_s FROM queue_map_reads WHERE device = ? ORDER BY from_unix_s", [device])]
            rows = self._query("SELECT from_unix_s, priority, queues FROM queue_map_rows WHERE device = ? AND port = ?",
                               [device, port])
            if not reads:
                return None
        maps: dict[float, dict[int, list[int]]] = {t: {} for t in reads}
        for start, prio, queues in rows:
            try:
                found = json.loads(queues)
            except (TypeError, ValueError):
                found = None
            if not (start in maps and type(prio) is int and isinstance(found, list)
                    and all(type(q) is int for q in found)):
                raise InputError(f"a queue map row of {_short(device)} {_short(port)} is damaged: from "
                                 f"{_short(start)}, priority {_short(prio)}, queues {_short(queues)}",
                                 file=str(self.path))
            maps[start][prio] = found
        if bad := [t for t in reads if not (t == -math.inf or _time(t))]:
            raise InputError(f"a queue_map_reads row of {_short(device)} is damaged: time {_short(bad[0])}",
                             file=str(self.path))
        spans = sorted(maps.items())
        return [(-math.inf, spans[0][1]), *spans[1:]]

    def _maps_at(self, device: str) -> Carries:
        """The writer's look, at its opening, at the device's latest maps (every port)."""
        rows = self._db.execute("SELECT port, priority, queues FROM queue_map_rows WHERE device = ? AND from_unix_s = "
                                "(SELECT max(from_unix_s) FROM queue_map_reads WHERE device = ?)", (device, device))
        out: Carries = {}
        for port, prio, queues in rows:
            with contextlib.suppress(TypeError, ValueError):  # (damaged: the next read is stored as a change)
                out.setdefault(port, {})[prio] = json.loads(queues)
        return out

    def findings(self, device: str | None = None, since: float | None = None,
                 latest: bool = False) -> list[StoredFinding]:
        """Findings of drift runs since ``since``; ``latest`` keeps each device's last run only."""
        where: list[str] = []
        args: list[object] = []
        if device is not None:
            where.append("f.device = ?")
            args.append(device)
        if since is not None:
            where.append("f.time_unix_s >= ?")
            args.append(since)
        if latest:
            where.append("f.time_unix_s = (SELECT MAX(time_unix_s) FROM drift_runs r WHERE r.device = f.device)")
        rows = self._query("SELECT time_unix_s, device, code, severity, port, message, fingerprint FROM findings f "
                           f"{_where(where)} ORDER BY time_unix_s, device, code, port", args)
        for r in rows:
            if not (_number(r[0]) and all(isinstance(v, str) for v in (r[1], r[2], r[3], r[5], r[6]))
                    and (r[4] is None or isinstance(r[4], str))):
                raise InputError(f"a findings row is damaged ({_short(r[1])}, time {_short(r[0])}): a value of the "
                                 "wrong type", file=str(self.path))
        return [StoredFinding(*r) for r in rows]

    def devices(self) -> list[str]:
        """The devices the history holds rows of (ports sampled, events, drift runs), sorted: a device it never saw is
        a mistyped name, not a quiet device."""
        return [r[0] for r in self._query("SELECT device FROM ports UNION SELECT device FROM events "
                                          "UNION SELECT device FROM drift_runs ORDER BY 1", [])]

    def polled(self) -> list[str]:
        """The devices the daemon writing this history polls, as of its last start or reload (record_polled), sorted;
        none in a file of a daemon before schema 7."""
        if not self._polled:
            return []
        return [r[0] for r in self._query("SELECT device FROM polled ORDER BY 1", [])]

    def _query(self, sql: str, args: list) -> list[tuple]:
        with self._lock:
            try:
                rows = self._db.execute(sql, args).fetchall()
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
                still_as_read(self._db, self.path, "history")  # (a page written under it reads as damage)
                raise InputError(f"cannot read the history: {state_file_reason(exc, self.path)}",
                                 file=str(self.path)) from None
            still_as_read(self._db, self.path, "history")
            return rows


def _text_or_bytes(data: bytes) -> str | bytes:
    """SQLite text as str, or its bytes when they are not UTF-8 (a damaged page): the row check names them."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{type(value).__name__} where text belongs")
    return value


def _number(value: object) -> bool:
    """A finite number as losslessd writes them (SQLite gives REAL or INTEGER; text or a blob is damage)."""
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def _short(value: object) -> str:
    return repr(value)[:80]


def _time(value: object) -> bool:
    return _number(value) and is_printable_time(value)


def _where(clauses: list[str]) -> str:
    return ("WHERE " + " AND ".join(clauses)) if clauses else ""


def _identity(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` (device and inode), None where there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_writable(path: Path) -> None:
    """What `daemon --check` asks of the history file, without writing anything: a new file can be created in its
    folder; an existing one is a losslessd history this version can write (or an empty file, which becomes one).
    InputError naming the file otherwise: the daemon would fail at its start."""
    check_output(path, "history database", regular=True)
    if not os.path.exists(path):
        folder = path.parent
        if not os.path.isdir(folder):
            raise InputError(f"the history file's folder {folder} does not exist (the daemon creates the file, not "
                             "the folder)", file=str(path))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"the daemon cannot create the history file: its folder {folder} is not writable",
                             file=str(path))
        return
    if os.path.isfile(path) and not os.access(path, os.R_OK | os.W_OK):
        raise InputError("the daemon cannot write the history file (its mode or owner, the immutable attribute of "
                         "chattr +i, a read-only mount)", file=str(path))
    if os.path.isfile(path) and not os.access(path.parent, os.W_OK | os.X_OK):
        # SQLite writes its rollback journal (or WAL) beside the file: history /proc/self/status was said valid, and
        # the daemon stopped at its start ("unable to open database file")
        raise InputError(f"the daemon cannot write the history file: its folder {path.parent} is not writable (SQLite "
                         "writes its journal beside the file)", file=str(path))
    if not os.path.isfile(path) or path.stat().st_size:
        _open(path, create=False, empty_ok=True).close()


def _open(path: Path, create: bool, empty_ok: bool = False) -> sqlite3.Connection:
    """Open (creating or migrating when allowed) a history file; anything else is an InputError naming it.
    ``empty_ok``: a read-only look at a file the daemon would make a history of (daemon --check)."""
    if not create and os.path.isdir(path):
        raise InputError("a folder, not a history database file (history.path names the file)", file=str(path))
    if not create and (kind := not_a_file(path)):  # (a FIFO is "there": said so, not "no history here")
        raise InputError(f"{kind}: a history database is a file", file=str(path))
    if not create and not os.path.isfile(path):
        if (why := absent_or_kind(path)) != "not found":  # (a folder on the way this user may not enter)
            raise InputError(f"the history database {why}", file=str(path))
        raise InputError("no history database here (the daemon creates it on its first write)", file=str(path))
    if create:
        check_output(path, "history database", regular=True)
    mode = "rwc" if create else "ro"  # readers (the CLI) need no write access to the daemon's file
    try:
        wait = OPEN_TIMEOUT_S if create else READ_WAIT_S  # (a reader waits behind no writer: limits.py)
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, timeout=wait,
                             isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the history database: {exc}", file=str(path)) from None
    try:
        if not create:
            db = sqlite_readable(db, path, wait)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        app = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if (version or tables) and app != APPLICATION_ID:
            raise InputError("not a losslessd history database (another program's SQLite file)", file=str(path))
        if version > SCHEMA_VERSION:
            raise InputError(f"history schema {version} is newer than this losslessd understands ({SCHEMA_VERSION}); "
                             "upgrade losslessd", file=str(path))
        if version == 0 and not create and not empty_ok:
            raise InputError("not a losslessd history database (empty)", file=str(path))
        if create:
            for pragma in _PRAGMAS:
                db.execute(pragma)
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":  # WAL needs shared memory: no NFS
                raise InputError("SQLite cannot use WAL mode on this file system; put the history on a local disk",
                                 file=str(path))
            page = db.execute("PRAGMA page_size").fetchone()[0]
            db.execute(f"PRAGMA journal_size_limit = {WAL_KEEP_PAGES * page}")
        if version < SCHEMA_VERSION and create:  # all steps in one transaction: a crash mid-way leaves the old version
            steps = "".join(_MIGRATIONS[version:])
            db.executescript(f"BEGIN IMMEDIATE;{steps}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")
        elif create:
            _try_write(db)
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _check_tables(db, path)
    except InputError:
        db.close()
        raise
    except (sqlite3.Error, UnicodeDecodeError) as exc:  # UnicodeDecodeError: the text of a damaged page
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.close()
        raise InputError(f"cannot use the history database: {state_file_reason(exc, path)}", file=str(path)) from None
    return db


def _try_write(db: sqlite3.Connection) -> None:
    """A write, undone: SQLite opens a file it may not write read-only (its mode, `chattr +i`, a read-only mount)
    without a word, and the daemon started and failed each commit, its rows in the backlog until dropped. A lock
    another program holds is no such file (the backlog waits for it): not waited for here."""
    db.execute("PRAGMA busy_timeout = 0")
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in SQLITE_LOCK_HELD:
            return
        raise
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")  # (a failure is rolled back by _open)
    db.execute("ROLLBACK")


def _check_tables(db: sqlite3.Connection, path: Path) -> None:
    """A file of our application id that lacks a table of its schema version was damaged or edited: refused when
    it is opened, not as an SQL error in the middle of a report."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version < 0:
        raise InputError(f"history schema {version} is not one losslessd writes (the file was edited or damaged)",
                         file=str(path))
    have = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    dropped = {t for step in _DROPPED[:version] for t in step}
    if missing := [t for step in _TABLES[:version] for t in step if t not in have and t not in dropped]:
        raise InputError(f"the history database lacks its {', '.join(missing)} table (damaged, or edited by another "
                         "program)", file=str(path))
