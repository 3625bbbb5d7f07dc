"""The daemon's logs: one JSON object per line on stderr, which journald keeps as the message and
log shippers parse without a grok pattern.

Fields: ts (UTC, ISO 8601), level, logger, msg, then whatever the call passed as ``extra`` (device,
port, kind, ...), and ``exc`` with the traceback when there is one. A Secret prints as where it came
from; a field whose name says it holds a secret is masked whatever its type.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from datetime import datetime, timezone
from typing import TextIO

from losslessd.credentials import SECRET_KEYS
from losslessd.lazyre import lazy

LEVELS = ("debug", "info", "warning", "error", "critical")
# Attributes every LogRecord has; the rest came from ``extra``.
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
_SECRET_FIELD = lazy("|".join(SECRET_KEYS + ("token", "authorization", "headers")), re.IGNORECASE)
MASK = "<hidden>"


class JsonFormatter(logging.Formatter):
    """A LogRecord as one line of JSON; ``context`` fields (a worker's index) go on every line."""

    def __init__(self, context: dict | None = None):
        super().__init__()
        self.context = dict(context or {})

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            **self.context,
        }
        for name, value in record.__dict__.items():
            if name not in _RECORD_FIELDS and name not in out:
                out[name] = MASK if _SECRET_FIELD.search(name) else value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, default=str, ensure_ascii=False)


REPEAT_WINDOW_S = 60.0  # a run of one library line is summed up at least this often (a log is read by the minute)


def _monotonic() -> float:
    """The clock runs are timed by (a duration: monitor/clock.py), looked up at each call so a test can step it."""
    return time.monotonic()


def _own(record: logging.LogRecord) -> bool:
    return record.name == "losslessd" or record.name.startswith("losslessd.")


class _JsonHandler(logging.StreamHandler):
    """The handler configure() installed (a second call, a reload, replaces it). A library's record identical to the
    library record before it (logger, level, message: paramiko's error at each retry of a device that never sends its
    banner) is counted, not written; the run is written as one more line, ``MESSAGE (repeated N times)`` with
    ``repeated: N``, when another library record comes, with the first record of any kind (losslessd's own too) past
    REPEAT_WINDOW_S after the run began, at the first tick() past that window (the daemon's and each worker's loop
    tick every second: a run is written within its window and a second even when nothing else is logged), or when the
    log closes. losslessd's own records never join a run (they say which device; the library's line does not), nor end
    one inside its window. The window is timed by the monotonic clock when records are handled, not by their
    ``created`` (the wall clock: one stepped back an hour by NTP kept a run counted, unwritten, for that hour)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        # the library line last written, its key, and when it was handled (_monotonic)
        self._run: tuple[logging.LogRecord, tuple, float] | None = None
        self._repeats = 0  # (the handler's lock is held around emit)
        self._last_repeat: logging.LogRecord | None = None

    def emit(self, record: logging.LogRecord) -> None:
        now = _monotonic()
        if _own(record):
            if self._run is not None and now - self._run[2] >= REPEAT_WINDOW_S:
                self._flush_repeats()  # (a run past its window was written only by one more of its own lines)
                self._run = None
        else:
            key = (record.name, record.levelno, record.getMessage())
            if self._run is not None and self._run[1] == key:
                self._repeats += 1
                self._last_repeat = record
                if now - self._run[2] < REPEAT_WINDOW_S:
                    return
                self._flush_repeats()
                self._run = None  # (the next one starts a run of its own, written)
                return
            self._flush_repeats()
            self._run = (record, key, now)
        super().emit(record)

    def tick(self, now: float) -> None:
        """Write the run counted so far when its window ended by ``now`` (_monotonic)."""
        self.acquire()
        try:
            if self._run is not None and now - self._run[2] >= REPEAT_WINDOW_S:
                if self._repeats:
                    self._flush_repeats()
                    self.flush()
                self._run = None  # (the next one starts a run of its own, written)
        finally:
            self.release()

    def _flush_repeats(self) -> None:
        if self._repeats and self._run is not None and self._last_repeat is not None:
            n = self._repeats
            times = "once" if n == 1 else f"{n} times"
            summary = logging.makeLogRecord({**self._last_repeat.__dict__, "args": None, "exc_info": None,
                                             "exc_text": None, "repeated": n,
                                             "msg": f"{self._run[0].getMessage()} (repeated {times})"})
            super().emit(summary)
        self._repeats, self._last_repeat = 0, None

    def close(self) -> None:
        self.acquire()
        try:
            self._flush_repeats()
            self._run = None
        finally:
            self.release()
        super().close()


_CUT = "losslessd_session_cut"  # (an attribute of a thread whose SSH session losslessd cut: cut_session_here)


def cut_session_here(thread: threading.Thread | None = None) -> None:
    """``thread`` (None: the current one) reads from an SSH session losslessd cut itself (a stop, a poll's timeout:
    collect.ssh.Guard.abort): what a library logs in it from now on is that cut, which losslessd's own records
    already say (a failed poll's reason, or the stop), so OwnRecordsFirst passes none of it below debug. A session a
    device dropped by itself is not marked: paramiko's error for it stays an error."""
    setattr(thread or threading.current_thread(), _CUT, True)


class OwnRecordsFirst(logging.Filter):
    """Below warning, only losslessd's own records: the libraries it drives (paramiko logs every SSH
    transport step at info, netmiko, pysnmp, asyncssh) would otherwise be most of an info log. Their
    warnings and errors always pass, as one line each: their message without its traceback. paramiko logs a
    failed connection's traceback a line per record after its message (Transport._log of util.tb_strings: ~25
    error lines per try of a device that accepts TCP and never sends its banner); those records are dropped, and
    so is the traceback a library's record carries (exc_info). At debug everything passes (the filter is not
    installed). Nor do a library's records in a thread whose SSH session losslessd cut (cut_session_here): paramiko's
    "Socket exception: Bad file descriptor (9)" at error level for each session a SIGTERM cut was a stop's noise."""

    _CHAINED = ("During handling of the above exception", "The above exception was the direct cause")

    def __init__(self) -> None:
        super().__init__()
        self._traceback: dict[tuple[str, int | None], str] = {}  # (logger, thread) -> "lines" or "after" its last

    def filter(self, record: logging.LogRecord) -> bool:
        if _own(record):
            return True
        if record.levelno < logging.WARNING or getattr(threading.current_thread(), _CUT, False):
            return False
        key = (record.name, record.thread)
        text = record.getMessage() if isinstance(record.msg, str) else ""
        state = self._traceback.get(key)
        if text.startswith("Traceback (most recent call last):") or state and text.startswith(self._CHAINED):
            if len(self._traceback) > 1024:  # (threads that ended after a traceback: a bound, not a leak)
                self._traceback.clear()
            self._traceback[key] = "lines"
            return False
        if state == "lines":  # its frames ("  File ...", code), then the exception's own line ends it
            if text and not text[0].isspace():
                self._traceback[key] = "after"
            return False
        if state == "after" and not text.strip():  # (the empty string after the traceback's last newline)
            return False
        self._traceback.pop(key, None)
        if record.exc_info or record.exc_text:
            record.exc_info, record.exc_text = None, None  # (its message stays; losslessd's own keep theirs)
        return True


def configure(level: str, stream: TextIO | None = None, context: dict | None = None) -> None:
    """Send losslessd's records, and the warnings of the libraries it drives (netmiko, paramiko,
    pysnmp; all of their records at ``debug``), as JSON lines to ``stream`` (stderr), and what Python
    would print as a bare traceback (an uncaught exception in any thread, an error while an object is
    freed) as JSON lines too."""
    if level.lower() not in LEVELS:
        raise ValueError(f"log level {level!r}: use one of {', '.join(LEVELS)}")
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _JsonHandler)]:
        root.removeHandler(handler)
        handler.close()  # (a run of repeats it counted is written)
    handler = _JsonHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter(context))
    if level.lower() != "debug":
        handler.addFilter(OwnRecordsFirst())
    root.addHandler(handler)
    root.setLevel(level.upper())
    _install_hooks()


def tick(now: float | None = None) -> None:
    """Write a run of repeated library lines whose window has ended (_JsonHandler.tick); called every second by the
    daemon's and each worker's loop. ``now``: _monotonic()."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, _JsonHandler):
            handler.tick(_monotonic() if now is None else now)


def write_line(line: str) -> None:
    """Write an already formatted JSON line (a worker's, forwarded by the daemon) under the lock of
    the handler configure() installed, so lines of several threads and processes never interleave. A line the
    log cannot take (a full disk, a file size limit) is dropped, as logging drops a record: raised, it ended the
    task that reads the worker's stderr, and the worker then blocked on its own full pipe."""
    handler = next((h for h in logging.getLogger().handlers if isinstance(h, _JsonHandler)), None)
    try:
        if handler is None:
            sys.stderr.write(line + "\n")
            return
        handler.acquire()
        try:
            handler.stream.write(line + "\n")
            handler.flush()
        finally:
            handler.release()
    except (OSError, ValueError):  # (ValueError: the stream was closed)
        pass


def as_json_line(text: str, **fields) -> str:
    """``text`` as it is when it is one JSON object, else wrapped in one (a line a worker printed
    without logging: a crash of the interpreter, a library writing to stderr)."""
    text = text.rstrip("\n")
    if text.startswith("{"):
        try:
            if isinstance(json.loads(text), dict):
                return text
        except ValueError:
            pass
    return json.dumps({"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                       "level": "error", "logger": "losslessd.stderr", "msg": text, **fields}, ensure_ascii=False)


_hooks_installed = False


def _install_hooks() -> None:
    global _hooks_installed
    if _hooks_installed:
        return
    _hooks_installed = True
    hooks = logging.getLogger("losslessd.uncaught")

    def excepthook(kind, value, tb):
        hooks.error("uncaught %s: %s", kind.__name__, value, exc_info=(kind, value, tb))

    def thread_hook(args):
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread else "?"
        hooks.error("uncaught %s in thread %s: %s", args.exc_type.__name__, name, args.exc_value,
                    exc_info=(args.exc_type, args.exc_value, args.exc_traceback))

    def unraisable_hook(unraisable):
        hooks.warning("ignored %s in %r: %s", type(unraisable.exc_value).__name__, unraisable.object,
                      unraisable.exc_value, exc_info=(unraisable.exc_type, unraisable.exc_value,
                                                      unraisable.exc_traceback))

    sys.excepthook = excepthook
    threading.excepthook = thread_hook
    sys.unraisablehook = unraisable_hook
