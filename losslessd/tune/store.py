"""Trials in SQLite: every finished trial is committed before the next one starts, so a tune that is killed
resumes (the same command, the same --db) without losing one. A tune is identified by the fingerprint of
what decides its search (benchmark command, sizes, devices and ports, strategy, budget, seed, policy,
weights); resuming replays the stored trials to the search in order instead of running them again.

Stored per trial: the candidate, whether it ran (a candidate that lints with an error is refused and never
runs), the benchmark's per-size results, the counter deltas, the score and why a trial was invalid, and the
benchmark's output (cut to OUTPUT_LIMIT; nccl-tests' `-J` report is never stored whole, its `env` holds the
run's environment). Device pushes and rollbacks are events of the tune.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import field
from pathlib import Path

from ..errors import SQLITE_LOCK_HELD, InputError, state_file_reason
from ..limits import READ_WAIT_S, check_output, sqlite_readable, still_as_read
from ..monitor import clock
from ..records import record
from ..statelock import WRITERS
from ..units import is_printable_time, is_small_int

SCHEMA_VERSION = 1
OUTPUT_LIMIT = 64 * 1024
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tunes (
    id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
    started_unix_s REAL NOT NULL, ended_unix_s REAL, noise_pct REAL, best TEXT, best_score REAL, stopped TEXT,
    origins TEXT NOT NULL DEFAULT '{}', start TEXT);
CREATE TABLE IF NOT EXISTS trials (
    tune_id INTEGER NOT NULL REFERENCES tunes(id), seq INTEGER NOT NULL, candidate TEXT NOT NULL,
    status TEXT NOT NULL, ran INTEGER NOT NULL, reason TEXT, score REAL, measure REAL, paused_share REAL,
    dropped REAL, per_size TEXT NOT NULL, counters TEXT NOT NULL, notes TEXT NOT NULL, output TEXT NOT NULL,
    started_unix_s REAL NOT NULL, ended_unix_s REAL NOT NULL, PRIMARY KEY (tune_id, seq));
CREATE TABLE IF NOT EXISTS events (
    tune_id INTEGER NOT NULL REFERENCES tunes(id), unix_s REAL NOT NULL, kind TEXT NOT NULL, device TEXT,
    message TEXT NOT NULL);
"""
AS_FOUND = "as-found"  # the candidate key of trials that measure the fabric's settings as they were found


@record
class Trial:
    seq: int
    candidate: str  # Candidate.key, or AS_FOUND
    status: str  # ok | invalid | refused | stopped
    ran: bool
    reason: str | None = None
    score: float | None = None
    measure: float | None = None
    paused_share: float | None = None
    dropped: float | None = None
    per_size: dict[int, float] = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    output: str = ""
    started_unix_s: float = 0.0
    ended_unix_s: float = 0.0


@record
class Tune:
    id: int
    fingerprint: str
    params: dict
    status: str  # running | finished | stopped
    started_unix_s: float
    ended_unix_s: float | None = None
    noise_pct: float | None = None
    best: str | None = None
    best_score: float | None = None
    stopped: str | None = None
    origins: dict = field(default_factory=dict)  # device -> how to restore its settings as found
    start: str | None = None  # the candidate the search started from (kept: a resumed tune starts there too)


# SQLite result codes (https://www.sqlite.org/rescode.html): a read-only file, an I/O error, a full disk.
_UNWRITABLE = (8, 10, 13)  # SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL
# The file itself, not losslessd, in the way of a write (sqlite.org/rescode.html): another program holding its lock past
# the timeout (SQLITE_BUSY 5), the file damaged or replaced under the tune (SQLITE_CORRUPT 11, SQLITE_NOTADB 26).
_NOT_OURS = (*_UNWRITABLE, 5, 11, 26)
LOCK_WAIT_S = 30.0  # how long the store waits for a lock another program holds (a push's trial must not be lost to one)
_ONE_TUNE = "wait for it to end, or give this one its own --db"  # (statelock's hint to a second tune)


def fingerprint(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


class Store:
    def __init__(self, path: str | Path, *, create: bool = True):
        """``create=False``: read an existing tune database only (`tune report`), writing nothing. Another
        program's SQLite file (the daemon's history, say) is refused either way, never given tune tables."""
        self.path = Path(path)
        self.unwritable: str | None = None  # why a write failed (the writes after it are skipped)
        if create:
            check_output(self.path, "tune database", regular=True)
        # One tune at a time per database: a second one took the first's running tune for a killed one, resumed it
        # and pushed candidates to the same devices beside it. Taken before the file is opened to write (its tables
        # made, WAL set) under a tune of the previous release still writing it (statelock: its lock name).
        self._writer = WRITERS.take(self.path, "tune", _ONE_TUNE) if create else None
        try:
            self._open(create)
        except BaseException:
            WRITERS.release(self._writer)
            raise

    def _open(self, create: bool) -> None:
        try:
            wait = LOCK_WAIT_S if create else READ_WAIT_S  # (`tune report` waits behind no writer: limits.py)
            self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode={'rwc' if create else 'ro'}", uri=True,
                                      isolation_level=None, timeout=wait)
            if not create:
                self.db = sqlite_readable(self.db, self.path, wait)
            tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "meta" not in tables or not tables and not create:
                why = "another program's SQLite file" if tables else "empty"
                self.db.close()
                raise InputError(f"not a losslessd tune database ({why})", file=str(self.path))
            if create:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")  # a finished trial survives a power cut too
                self.db.executescript(_SCHEMA)
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            version = row[0] if row else None
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # UnicodeDecodeError: a damaged page's text
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF in _UNWRITABLE:  # a full disk is no other program's file
                raise InputError(f"cannot write the tune database: {state_file_reason(exc)}",
                                 file=str(self.path)) from None
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF in SQLITE_LOCK_HELD:  # (nor is a file held locked)
                raise InputError(f"cannot read the tune database: {state_file_reason(exc, self.path)}",
                                 file=str(self.path)) from None
            raise InputError(f"not a losslessd tune database: {state_file_reason(exc, self.path)}",
                             file=str(self.path)) from None
        if version != str(SCHEMA_VERSION):
            self.db.close()
            raise InputError(f"tune database schema {version}, this losslessd reads {SCHEMA_VERSION}", file=str(self.path))

    def close(self) -> None:
        self.db.close()
        WRITERS.release(self._writer)
        self._writer = None
        still_as_read(self.db, self.path, "tune database")  # (a report's reads, all made by now)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- tunes ---------------------------------------------------------------------------------------
    def open_tune(self, params: dict) -> tuple[Tune, bool]:
        """The unfinished tune with these parameters (resumed: True), or a new one."""
        fp = fingerprint(params)
        row = self.db.execute("SELECT id FROM tunes WHERE fingerprint = ? AND status = 'running' ORDER BY id DESC",
                              (fp,)).fetchone()
        if row is not None:
            return self.tune(row[0]), True
        cur = self._write("INSERT INTO tunes (fingerprint, params, status, started_unix_s) VALUES (?, ?, 'running', ?)",
                          (fp, json.dumps(params, sort_keys=True), clock.wall()))
        if cur is None:  # (a write failed before: said by the InputError it raised)
            raise InputError(self.unwritable or "cannot write the tune database", file=str(self.path))
        return self.tune(cur.lastrowid), False

    def tune(self, tune_id: int | None = None) -> Tune:
        """A tune by id, or the latest."""
        sql = "SELECT id, fingerprint, params, status, started_unix_s, ended_unix_s, noise_pct, best, best_score, " \
              "stopped, origins, start FROM tunes "
        rows = self._read(sql + ("WHERE id = ?" if tune_id is not None else "ORDER BY id DESC LIMIT 1"),
                          (tune_id,) if tune_id is not None else ())
        if not rows:
            raise InputError(f"no tune {tune_id} in this database" if tune_id is not None else "no tune in this database",
                             file=str(self.path))
        row = self._checked("tunes", rows[0], _TUNE_COLUMNS)
        return Tune(id=row[0], fingerprint=row[1], params=row[2], status=row[3], started_unix_s=row[4],
                    ended_unix_s=row[5], noise_pct=row[6], best=row[7], best_score=row[8], stopped=row[9],
                    origins=row[10], start=row[11])

    def tunes(self) -> list[Tune]:
        return [self.tune(r[0]) for r in self._read("SELECT id FROM tunes ORDER BY id")]

    def set_origins(self, tune_id: int, origins: dict) -> None:
        self._write("UPDATE tunes SET origins = ? WHERE id = ?", (json.dumps(origins, sort_keys=True), tune_id))

    def set_start(self, tune_id: int, start: str) -> None:
        self._write("UPDATE tunes SET start = ? WHERE id = ?", (start, tune_id))

    def set_noise(self, tune_id: int, noise: float) -> None:
        self._write("UPDATE tunes SET noise_pct = ? WHERE id = ?", (noise, tune_id))

    def finish(self, tune_id: int, status: str, best: str | None, best_score: float | None, stopped: str | None) -> None:
        self._write("UPDATE tunes SET status = ?, ended_unix_s = ?, best = ?, best_score = ?, stopped = ? "
                    "WHERE id = ?", (status, clock.wall(), best, best_score, stopped, tune_id))

    # -- trials --------------------------------------------------------------------------------------
    def add_trial(self, tune_id: int, trial: Trial) -> None:
        """One transaction per trial: committed when this returns."""
        self._write(
            "INSERT INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tune_id, trial.seq, trial.candidate, trial.status, int(trial.ran), trial.reason, trial.score,
             trial.measure, trial.paused_share, trial.dropped, json.dumps({str(k): v for k, v in trial.per_size.items()}),
             json.dumps(trial.counters), json.dumps(trial.notes), trial.output[:OUTPUT_LIMIT],
             trial.started_unix_s, trial.ended_unix_s))

    def trials(self, tune_id: int) -> list[Trial]:
        rows = [self._checked("trials", r, _TRIAL_COLUMNS) for r in self._read(
            "SELECT seq, candidate, status, ran, reason, score, measure, paused_share, dropped, per_size, counters, "
            "notes, output, started_unix_s, ended_unix_s FROM trials WHERE tune_id = ? ORDER BY seq", (tune_id,))]
        return [Trial(seq=r[0], candidate=r[1], status=r[2], ran=bool(r[3]), reason=r[4], score=r[5], measure=r[6],
                      paused_share=r[7], dropped=r[8], per_size=r[9], counters=r[10], notes=r[11], output=r[12],
                      started_unix_s=r[13], ended_unix_s=r[14]) for r in rows]

    # -- events --------------------------------------------------------------------------------------
    def event(self, tune_id: int, kind: str, message: str, device: str | None = None) -> None:
        self._write("INSERT INTO events VALUES (?, ?, ?, ?, ?)", (tune_id, clock.wall(), kind, device, message))

    def events(self, tune_id: int) -> list[tuple[float, str, str | None, str]]:
        return [tuple(self._checked("events", r, _EVENT_COLUMNS)) for r in self._read(
            "SELECT unix_s, kind, device, message FROM events WHERE tune_id = ? ORDER BY rowid", (tune_id,))]

    # -- writing on a disk that may fill -------------------------------------------------------------
    def _write(self, sql: str, args: tuple = ()) -> sqlite3.Cursor | None:
        """One write. A database that cannot take it (a full disk, a file made read-only) is an InputError naming the
        file, raised once (it was an internal error mid-trial, exit 3, and the tune's record of its stop failed in
        turn while the fabric was put back); the writes after it are skipped, that error having said so. So is a file
        another program locks past the timeout or damages under the tune. Any other failure (a UNIQUE constraint: a
        trial stored twice) is losslessd's bug, raised as it is."""
        if self.unwritable is not None:
            return None
        if self._writer is not None:  # (its lock file removed under a tune of hours: taken again, or refused)
            try:
                WRITERS.still_held(self._writer, "tune", _ONE_TUNE)
            except InputError as exc:
                self.unwritable = f"its lock file was removed while this tune ran: {exc.message}"
                raise InputError(self.unwritable, file=str(self.path)) from None
        try:
            return self.db.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in _NOT_OURS:
                raise
            self.unwritable = f"cannot write the tune database: {state_file_reason(exc, self.path)}"
            raise InputError(self.unwritable, file=str(self.path)) from None

    # -- reading a file someone else may have edited or damaged ---------------------------------------
    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        try:
            return self.db.execute(sql, args).fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # UnicodeDecodeError: a damaged page's text
            raise InputError(f"cannot read the tune database: {state_file_reason(exc, self.path)}",
                             file=str(self.path)) from None

    def _checked(self, table: str, row: tuple, columns: tuple[tuple[str, str], ...]) -> list:
        """``row`` with its JSON columns parsed, when every value is of the kind this module writes there; a
        value of another kind (text for a number, JSON that does not parse) is an InputError naming the file, not
        an exception in the middle of a report."""
        out = []
        for value, (name, kind) in zip(row, columns, strict=True):
            parsed = _parse(value, kind)
            if parsed is _BAD:
                raise InputError(f"a row of the {table} table is damaged: {name} is {repr(value)[:60]}",
                                 file=str(self.path))
            out.append(parsed)
        return out



_BAD = object()
_TUNE_COLUMNS = (("id", "int"), ("fingerprint", "str"), ("params", "dict"), ("status", "str"),
                 ("started_unix_s", "time"), ("ended_unix_s", "time?"), ("noise_pct", "num?"), ("best", "str?"),
                 ("best_score", "num?"), ("stopped", "str?"), ("origins", "dict"), ("start", "str?"))
_TRIAL_COLUMNS = (("seq", "int"), ("candidate", "str"), ("status", "str"), ("ran", "int"), ("reason", "str?"),
                  ("score", "num?"), ("measure", "num?"), ("paused_share", "num?"), ("dropped", "num?"),
                  ("per_size", "sizes"), ("counters", "dict"), ("notes", "list"), ("output", "str"),
                  ("started_unix_s", "time"), ("ended_unix_s", "time"))
_EVENT_COLUMNS = (("unix_s", "time"), ("kind", "str"), ("device", "str?"), ("message", "str"))


def _parse(value: object, kind: str) -> object:
    """``value`` as a column of ``kind`` holds it (JSON columns parsed), or _BAD."""
    if kind.endswith("?"):
        return None if value is None else _parse(value, kind[:-1])
    if kind == "int":
        return value if type(value) is int else _BAD
    if kind == "num":
        return value if type(value) in (int, float) else _BAD  # (a score of inf a past tune stored reads back)
    if kind == "time":  # a Unix time the report can print (datetime's range ends with year 9999)
        return value if is_printable_time(value) else _BAD
    if kind == "str":
        return value if isinstance(value, str) else _BAD
    if not isinstance(value, str):
        return _BAD
    try:
        doc = json.loads(value)
    except ValueError:
        return _BAD
    if kind == "sizes":  # message size (bytes, as text: a JSON key) -> busbw
        if not isinstance(doc, dict) or not all(is_small_int(k, 19) and (v is None or type(v) in (int, float))
                                                for k, v in doc.items()):
            return _BAD
        return {int(k): v for k, v in doc.items()}
    return doc if isinstance(doc, dict if kind == "dict" else list) else _BAD
