"""One writing process per state file (the daemon's history, a tune database): a lock file beside it.

``<file>.lock`` is locked with a POSIX record lock (fcntl F_SETLK, through lockf) and holds the writer's pid, so a
second process is refused with the first's pid. A record lock is the process's, not the open file's: a child forked
without exec (the drift lint's workers) does not hold it, so workers left by a killed daemon never keep its restart
out (an flock was shared with them). Only a lock held elsewhere (EAGAIN/EACCES, as fcntl(2) names them) refuses as
"another process"; any other failure names itself. The lock file is opened without following a symbolic link and
must be a regular file: a link planted there never has its target truncated. The writers of one process share it (a
daemon reload that changes only the history's retention opens the same file again before it closes it), and nothing
else in the process opens it: closing any descriptor of a file drops the process's POSIX locks on it. For that reason
too it is a file of its own, never the SQLite database (SQLite's own locks are POSIX ones).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
import threading
from pathlib import Path

from .errors import InputError


class Writers:
    def __init__(self) -> None:
        self._held: dict[str, list[int]] = {}  # lock file -> [descriptor, writers holding it]
        self._mutex = threading.Lock()

    def take(self, path: Path, holder: str, hint: str, *, busy: str = "written", per: str = "file") -> str:
        """The lock of ``path`` for this process (its name); an InputError naming the process that holds it.
        ``holder``/``hint``: what the other process is ("daemon") and how to run two ("give each its own ...");
        ``busy``/``per``: what it does to the thing locked, and what that is (a device: "tuned", "device")."""
        lock = str(path.resolve()) + ".lock"
        with self._mutex:
            if (held := self._held.get(lock)) is not None:
                held[1] += 1
                return lock
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
                raise InputError(f"cannot make its lock file {lock}: {why}", file=str(path)) from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise InputError(f"cannot make its lock file {lock}: it is not a regular file", file=str(path))
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):  # (ENOLCK, EINTR, ...)
                    os.close(fd)
                    raise InputError(f"cannot lock {lock}: {exc.strerror or exc}", file=str(path)) from None
                pid = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                raise InputError(f"{busy} by another losslessd {holder} ({f'pid {pid}, ' if pid.isdigit() else ''}"
                                 f"lock {lock}): one {holder} per {per} ({hint})", file=str(path)) from None
            mine = f"{os.getpid()}\n".encode()
            try:  # (a full disk, a file-size limit: the lock is let go, never held by a file without its pid)
                os.ftruncate(fd, 0)
                if os.write(fd, mine) != len(mine):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            except OSError as exc:
                os.close(fd)
                raise InputError(f"cannot write its pid to its lock file {lock}: {exc.strerror or exc}",
                                 file=str(path)) from None
            self._held[lock] = [fd, 1]
            return lock

    def release(self, lock: str | None) -> None:
        with self._mutex:
            if lock is None or (held := self._held.get(lock)) is None:
                return
            held[1] -= 1
            if not held[1]:
                del self._held[lock]
                os.close(held[0])  # (the file stays: removing it would race a process taking it)


WRITERS = Writers()

# Where locks of things that are no file of ours live (a device two tunes with their own databases would push to).
ENV_LOCK_DIR = "LOSSLESSD_LOCK_DIR"


def shared_lock_path(kind: str, name: str) -> Path:
    """The path (before ".lock") of the lock of ``name`` (a device's address and port) among every losslessd of this
    machine: in $LOSSLESSD_LOCK_DIR, else in the temporary folder's `losslessd-locks` (made sticky and writable by
    all, as /tmp is, so operators under other users meet the same lock). Characters other than letters, digits and
    ``. _ : -`` are written %XX: a name is one file name, never a path."""
    folder = Path(os.environ.get(ENV_LOCK_DIR) or Path(tempfile.gettempdir()) / "losslessd-locks")
    try:
        folder.mkdir(parents=True)
        os.chmod(folder, 0o1777)
    except FileExistsError:
        pass
    except OSError as exc:
        raise InputError(f"cannot make the lock folder {folder}: {exc.strerror or exc} (set {ENV_LOCK_DIR})") from None
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._:-") else "".join(f"%{b:02X}" for b in c.encode())
                   for c in name.lower())
    return folder / f"{kind}-{safe}"
