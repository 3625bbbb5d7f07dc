"""Errors an operator can act on. The CLI prints them and exits 2; never a traceback."""

from __future__ import annotations

import os

from .printable import printable, shown_path
from .units import is_digits


class InputError(Exception):
    """Unusable input (file, policy, selector): message names the file and line or JSON path."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, pointer: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.pointer = pointer
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = shown_path(self.file)  # (the file stays whole in self.file)
            if self.line is not None:
                where += f":{self.line}"
            if self.pointer:
                where += f" (at {self.pointer})"
            where += ": "
        return where + self.message


# Exit codes of every command (README "Exit codes"; `losslessd --help`).
EXIT_OK = 0
EXIT_FINDINGS = 1  # findings at or above --fail-on (lint), devices that failed (pull), fixes to apply (fix)
EXIT_INPUT = 2  # unusable input or usage error; nothing readable
EXIT_INTERNAL = 3  # a bug in losslessd: never read as findings
EXIT_BROKEN_PIPE = 141  # stdout closed before the report was written (`| head`), as a shell reports SIGPIPE
DEBUG_ENV = "LOSSLESSD_DEBUG"
REPORT_HINT = (f"this is a bug in losslessd, not a finding: please report it with the command and its input "
               f"({DEBUG_ENV}=1 prints the traceback)")


class DescribedError(Exception):
    """A bug met in another process (a parallel lint's worker), carried here as the line describe_exception
    made of it there: where it was raised is in that process's traceback, not in this one's."""

    def __init__(self, description: str):
        self.description = description
        super().__init__(description)


def describe_exception(exc: BaseException) -> str:
    """``Type: first line of the message [file.py:line]`` of an exception that is a bug."""
    import traceback

    if isinstance(exc, DescribedError):
        return exc.description

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" [{frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}]" if frames else ""
    if isinstance(exc, MemoryError):
        return f"MemoryError: out of memory{where}"
    text = str(exc).splitlines()[0][:300] if str(exc).strip() else ""
    return f"{type(exc).__name__}{': ' + text if text else ''}{where}"


def internal_error_message(what: str, exc: BaseException) -> str:
    """One line for an exception that is a bug: what failed, the exception, where it was raised, the hint."""
    return f"{what}: {describe_exception(exc)}; {REPORT_HINT}"


# SQLite's result codes for a lock another connection holds past the wait (sqlite.org/rescode.html: SQLITE_BUSY 5,
# SQLITE_LOCKED 6), the low byte of an extended code
SQLITE_LOCK_HELD = (5, 6)
SQLITE_READONLY = 8  # (a write to a file SQLite opened read-only)


def state_file_reason(exc: BaseException, path: str | os.PathLike | None = None) -> str:
    """Why an SQLite state file (history, tune store) could not be read: a damaged page's text that is not UTF-8
    comes back from sqlite3 as a UnicodeDecodeError, whose own message says nothing an operator can use; a lock
    held past the wait was SQLite's "database is locked" (and for the tune store "not a losslessd tune database").
    ``path``: the file, whose lock holders are named (pid and program) when the system lists them."""
    if isinstance(exc, UnicodeDecodeError):
        return "the file is damaged (text that is not UTF-8)"
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF in SQLITE_LOCK_HELD:
        holders = lock_holders(path) if path is not None else []
        who = ", ".join(holders) if holders else "an sqlite3 shell in a transaction, a copy or backup tool?"
        return f"another program holds the file locked past the wait ({who}): try again once it lets go"
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF == SQLITE_READONLY:
        return ("the file is read-only to this process (its mode or owner, the immutable attribute of chattr +i, a "
                "read-only mount): make it writable, or name another file")
    return str(exc)


def lock_holders(path: str | os.PathLike) -> list[str]:
    """'pid 4242 (sqlite3)' for each other process holding a POSIX lock on ``path``, as Linux lists them in
    /proc/locks (proc(5): "id: kind ADVISORY|MANDATORY READ|WRITE pid major:minor:inode start end"; a line with
    "->" is a process waiting for the lock, not holding it). Empty where there is no /proc/locks or it names none."""
    try:
        info = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as listing:
            lines = listing.read().splitlines()
    except OSError:
        return []
    inode = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    pids = dict.fromkeys(int(fields[4]) for line in lines if "->" not in line and len(fields := line.split()) > 5
                         and fields[5] == inode and is_digits(fields[4]))
    return [f"pid {pid} ({_program(pid)})" for pid in pids if pid not in (0, os.getpid())]


def _program(pid: int) -> str:
    """The process's name (/proc/PID/comm), or 'gone' when it exited meanwhile."""
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as comm:
            name = comm.read().strip()
    except OSError:
        return "gone"
    return printable(name)  # (a process names itself: an escape sequence there must not reach the terminal)
