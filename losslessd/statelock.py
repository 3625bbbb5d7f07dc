"""One writing process per state file (the daemon's history, a tune database): a lock file beside it.

``.<file>.lock`` (hidden: ``rm history.db*`` or ``rm *``, what clears a history and its -wal and -shm, took a
``history.db.lock`` with them, and a second daemon started then made a new one and wrote the same history) is
locked with a POSIX record lock (fcntl F_SETLK, through lockf) and holds the writer's pid, so a second process
is refused with the first's pid. A record lock is the process's, not the open file's: a child forked
without exec (the drift lint's workers) does not hold it, so workers left by a killed daemon never keep its restart
out (an flock was shared with them). Only a lock held elsewhere (EAGAIN/EACCES, as fcntl(2) names them) refuses as
"another process"; any other failure names itself. The lock file is opened without following a symbolic link and
must be a regular file: a link planted there never has its target truncated. The writers of one process share it (a
daemon reload that changes only the history's retention opens the same file again before it closes it), and nothing
else in the process opens it: closing any descriptor of a file drops the process's POSIX locks on it. For that reason
too it is a file of its own, never the SQLite database (SQLite's own locks are POSIX ones).

Until the next release (docs/daemon.md, Sessions 38 and 39) ``take`` also takes the previous release's lock name,
``<file>.lock``: a daemon of that release still running holds it and knows no other name, so a new one started on the
same history is refused with its pid; one free (or made, when missing) is held as long as the new lock is, with this
process's pid in it, so an old daemon started after the new one is refused in turn (it was let go once checked, and
the old daemon wrote the same history). Never through a link, and nothing but a regular file is opened; a file with
other names (a hard link) is locked but not written. ``still_held`` checks it too.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import pwd
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from .errors import InputError
from .limits import output_folder
from .units import is_digits


class Writers:
    def __init__(self) -> None:
        self._held: dict[str, list[int]] = {}  # lock file -> [descriptor, writers holding it]
        self._legacy: dict[str, list] = {}  # lock file -> [the previous release's name of it, descriptor or -1]
        self._mutex = threading.Lock()

    def take(self, path: Path, holder: str, hint: str) -> str:
        """The lock of ``path`` for this process (its name); an InputError naming the process that holds it.
        ``holder``/``hint``: what the other process is ("daemon") and how to run two ("give each its own ...")."""
        lock = lock_path(path)

        def opened() -> int:
            try:
                return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
                raise InputError(f"cannot make its lock file {lock}: {why}", file=str(path)) from None
        return self._take(opened, lock, str(path), holder, hint, "written", "file", legacy_lock_path(path))

    def take_shared(self, kind: str, name: str, holder: str, hint: str, *, busy: str, per: str) -> str:
        """The lock of ``name`` among every losslessd of this machine (see ``shared_lock_folder``), taken as ``take``
        takes one. Opened in the folder by name (never through a resolved path), without following a link, created
        writable by every user whatever the umask: a link or a hard link planted there never has its target
        truncated, and another user's tune of the same device meets the same lock instead of "Permission denied"."""
        folder_fd, folder = shared_lock_folder()
        try:
            entry = _entry_name(kind, name) + ".lock"
            lock = os.path.join(folder, entry)
            return self._take(lambda: _open_shared(folder_fd, entry, lock), lock, lock, holder, hint, busy, per)
        finally:
            os.close(folder_fd)

    def _take(self, opened: Callable[[], int], lock: str, file: str, holder: str, hint: str, busy: str,
              per: str, legacy: str | None = None) -> str:
        """Under the mutex: one more writer of ``lock`` if this process holds it, else the lock file ``opened()``
        locked with this process's pid written in it, and let go again if another process holds ``legacy``.
        ``busy``/``per``: what the holder does to the thing locked, and what that is ("written", "file"; a device:
        "tuned", "device")."""
        with self._mutex:
            if (held := self._held.get(lock)) is not None:
                held[1] += 1
                return lock
            self._hold(opened(), lock, file, holder, hint, busy, per)
            if legacy is not None:
                try:
                    self._legacy[lock] = [legacy, self._legacy_hold(legacy, file, holder, hint, busy, per)]
                except BaseException:
                    os.close(self._held.pop(lock)[0])
                    raise
            return lock

    def _legacy_hold(self, legacy: str, file: str, holder: str, hint: str, busy: str, per: str) -> int:
        """A descriptor holding the previous release's lock file ``legacy`` (made if missing) locked, this process's
        pid written in it; an InputError naming the process that holds it (module docstring). Only a regular file is
        opened (a FIFO, a device node or a link planted there never is: -1, nothing held), without following a link.
        -1 too for a lock file this process holds (a hard link to it, or the new lock of another state file: ``.h.lock``
        is ``.h``'s legacy lock and ``h``'s new one): the descriptor is kept with that lock's (closing it would drop
        that lock) and closed when it is released."""
        try:
            if not stat.S_ISREG(os.lstat(legacy).st_mode):
                return -1
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise InputError(f"cannot check the previous release's lock file {legacy}: {exc.strerror or exc}",
                             file=file) from None
        flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
        try:
            try:
                fd = os.open(legacy, os.O_RDWR | os.O_CREAT | flags, 0o644)
            except PermissionError:  # (another user's file, from an old daemon run as that user: read, a shared lock)
                fd = os.open(legacy, os.O_RDONLY | flags)
        except OSError as exc:
            why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
            raise InputError(f"cannot take the previous release's lock file {legacy}: {why} (remove it if no "
                             f"losslessd {holder} of that release runs)", file=file) from None
        there = os.fstat(fd)
        for held in self._held.values():
            if any(mine >= 0 and _same_file(mine, there) for mine in held[:1] + held[2:]):
                held.append(fd)
                return -1
        if not stat.S_ISREG(there.st_mode):
            os.close(fd)
            return -1
        writable = os.O_RDWR & fcntl.fcntl(fd, fcntl.F_GETFL)
        try:  # (a shared lock too keeps the old daemon's exclusive one out; a read-only descriptor takes only that)
            fcntl.lockf(fd, (fcntl.LOCK_EX if writable else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                os.close(fd)
                raise InputError(f"cannot lock {legacy}: {exc.strerror or exc}", file=file) from None
            raise _refusal(fd, legacy, file, holder, hint, busy, per) from None
        if writable and there.st_nlink == 1:  # (the old daemon names the pid it reads; a hard link's is not written)
            mine = f"{os.getpid()}\n".encode()
            with contextlib.suppress(OSError):  # (held all the same: a full disk leaves the old pid there)
                os.ftruncate(fd, 0)
                os.write(fd, mine)
        return fd

    def _hold(self, fd: int, lock: str, file: str, holder: str, hint: str, busy: str, per: str) -> str:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise InputError(f"cannot make its lock file {lock}: it is not a regular file", file=file)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):  # (ENOLCK, EINTR, ...)
                os.close(fd)
                raise InputError(f"cannot lock {lock}: {exc.strerror or exc}", file=file) from None
            raise _refusal(fd, lock, file, holder, hint, busy, per) from None
        mine = f"{os.getpid()}\n".encode()
        try:  # (a full disk, a file-size limit: the lock is let go, never held by a file without its pid)
            os.ftruncate(fd, 0)
            if os.write(fd, mine) != len(mine):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as exc:
            os.close(fd)
            raise InputError(f"cannot write its pid to its lock file {lock}: {exc.strerror or exc}",
                             file=file) from None
        self._held[lock] = [fd, 1]
        return lock

    def still_held(self, lock: str, holder: str, hint: str) -> None:
        """Make sure this process still holds the lock file at ``lock`` (a writer's check before it writes): one
        removed or replaced since it was taken (a cleanup of the folder's dot files) is taken again at its path, or an
        InputError names the process that took it in the meantime (this one then holds neither and must not write).
        The previous release's name of it (``_legacy_hold``) is checked and taken again the same way."""
        with self._mutex:
            held = self._held.get(lock)
            if held is None:
                return
            file = lock.removesuffix(".lock")
            file = os.path.join(os.path.dirname(file), os.path.basename(file).removeprefix("."))
            if not _same_inode(held[0], lock):
                try:
                    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
                except OSError as exc:
                    raise InputError(f"its lock file {lock} was removed and cannot be made again: "
                                     f"{exc.strerror or exc}", file=file) from None
                if held[0] >= 0:
                    os.close(held[0])
                held[0] = -1  # (none held: each check tries again until it is taken or released)
                taken = self._hold(fd, lock, file, holder, hint, "written", "file")
                held[0] = self._held[taken][0]
                self._held[taken] = held
            legacy = self._legacy.get(lock)
            if legacy is not None and (legacy[1] == _LOST or legacy[1] >= 0 and not _same_inode(legacy[1], legacy[0])):
                if legacy[1] >= 0:
                    os.close(legacy[1])  # (the file removed or replaced since: taken again at its name, or refused)
                legacy[1] = _LOST  # (until it is taken again: each check tries, and refuses while another holds it)
                legacy[1] = self._legacy_hold(legacy[0], file, holder, hint, "written", "file")

    def release(self, lock: str | None) -> None:
        with self._mutex:
            if lock is None or (held := self._held.get(lock)) is None:
                return
            held[1] -= 1
            if not held[1]:
                del self._held[lock]
                legacy = self._legacy.pop(lock, [None, -1])
                for fd in held[:1] + held[2:] + legacy[1:]:  # (its own descriptor, any _legacy_hold kept, its legacy)
                    if fd >= 0:
                        os.close(fd)  # (the file stays: removing it would race a process taking it)


WRITERS = Writers()
_LOST = -2  # (Writers._legacy: a previous release's lock file this process held and lost, to take again)


def lock_path(path: Path) -> str:
    """The lock file of the state file ``path``: ``.<name>.lock`` beside it (module docstring)."""
    real = path.resolve()
    return str(real.with_name(f".{real.name}.lock"))


def legacy_lock_path(path: Path) -> str:
    """The previous release's lock file of ``path``, ``<name>.lock`` beside it (module docstring)."""
    return f"{path.resolve()}.lock"


def _refusal(fd: int, lock: str, file: str, holder: str, hint: str, busy: str, per: str) -> InputError:
    """The error naming the process that holds the lock file open at ``fd`` (its pid, read from it); ``fd`` closed."""
    pid = os.read(fd, 32).decode("ascii", "replace").strip()
    os.close(fd)
    return InputError(f"{busy} by another losslessd {holder} ({f'pid {pid}, ' if is_digits(pid) else ''}"
                      f"lock {lock}): one {holder} per {per} ({hint})", file=file)


def _same_file(fd: int, there: os.stat_result) -> bool:
    """``fd`` is the file ``there`` was read of."""
    mine = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def _same_inode(fd: int, path: str) -> bool:
    """``fd`` is the file at ``path`` (not followed through a link); -1, no file, is none."""
    if fd < 0:
        return False
    try:
        return _same_file(fd, os.lstat(path))
    except OSError:
        return False

# Where locks of things that are no file of ours live (a device two tunes with their own databases would push to).
ENV_LOCK_DIR = "LOSSLESSD_LOCK_DIR"


# A lock's file name longer than this is cut and given a digest of the whole name (NAME_MAX is 255 bytes on Linux
# file systems, limits.h; a DNS name may be 253 characters, RFC 1035 2.3.4, and %XX escapes triple a character).
_ENTRY_MAX = 200


def _entry_name(kind: str, name: str) -> str:
    """``kind-name`` as one file name: characters other than letters, digits and ``. _ : -`` written %XX (a name is
    never a path), a name past _ENTRY_MAX cut and followed by the SHA-256 of the whole (two names, two files)."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._:-") else "".join(f"%{b:02X}" for b in c.encode())
                   for c in name.lower())
    entry = f"{kind}-{safe}"
    if len(entry) > _ENTRY_MAX:
        entry = f"{entry[:_ENTRY_MAX - 65]}-{hashlib.sha256(entry.encode()).hexdigest()}"
    return entry


def owner(uid: int) -> str:
    """A uid as an error message names it: `user alice (uid 1000)`, or `uid 1234` where no user has it."""
    try:
        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def shared_lock_folder() -> tuple[int, str]:
    """The folder of the locks of things that are no file of ours (a descriptor of it, and its name):
    $LOSSLESSD_LOCK_DIR as given (made if missing as an output's folder is, so never on a kernel filesystem; its
    mode left to the operator; a link followed: Debian's /var/lock is one to /run/lock), else the temporary folder's
    `losslessd-locks`, made sticky and writable by all (as /tmp is) so operators under other users meet the same
    locks, and never a link (any user may plant one there). The folder
    itself is used only if it is owned by root or by this user, and sticky if every user may write it: another user's
    folder could have its locks swapped or removed under us."""
    given = os.environ.get(ENV_LOCK_DIR)
    folder = given or os.path.join(tempfile.gettempdir(), "losslessd-locks")
    hint, alt = ("", "") if given else (f" (set {ENV_LOCK_DIR})", f", or set {ENV_LOCK_DIR}")
    made = False
    if given:  # (the outputs' checks: under /sys/fs/cgroup a mkdir makes a cgroup, and /proc takes no file)
        output_folder(folder, "locks", ENV_LOCK_DIR)
    else:
        try:
            os.mkdir(folder, 0o700)
            made = True
        except FileExistsError:
            pass
        except OSError as exc:
            raise InputError(f"cannot make the lock folder {folder}: {exc.strerror or exc}{hint}") from None
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if given else os.O_NOFOLLOW))
    except OSError as exc:
        why = exc.strerror or str(exc)
        if not given and os.path.islink(folder):  # (O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR or ELOOP)
            why = "it is a symbolic link"
        elif exc.errno == errno.ENOTDIR:
            why = "it is not a directory"
        raise InputError(f"cannot use the lock folder {folder}: {why}{hint}") from None
    try:
        if made:
            os.fchmod(fd, 0o1777)  # (whatever the umask)
        st = os.fstat(fd)
        if st.st_uid not in (0, os.geteuid()):
            raise InputError(f"cannot use the lock folder {folder}: it belongs to {owner(st.st_uid)}, not to root or "
                             f"this user, who could swap the locks in it (have root make it: mkdir -m 1777 {folder}"
                             f"{alt})")
        if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
            raise InputError(f"cannot use the lock folder {folder}: every user may write it and it is not sticky, "
                             f"so any user could remove the locks in it (chmod +t it{alt})")
    except BaseException:
        os.close(fd)
        raise
    return fd, folder


def _open_shared(folder_fd: int, entry: str, lock: str) -> int:
    """The lock file ``entry`` of the folder, opened read-write without following a link, and refused if it has other
    names (a hard link another user planted there to a file of ours: we would truncate it). Beside a state file of our
    own, a hard link is the operator's backup (cp -al, rsnapshot) and is taken as it is."""
    fd = _open_entry(folder_fd, entry, lock)
    if os.fstat(fd).st_nlink != 1:
        os.close(fd)
        raise InputError(f"cannot make its lock file {lock}: it has other names (a hard link)", file=lock)
    return fd


def _open_entry(folder_fd: int, entry: str, lock: str) -> int:
    """``_open_shared``'s file, made (without O_CREAT on a file that exists: a sticky folder refuses that on another
    user's file, Linux fs.protected_regular) readable and writable by every user. A file another user made before it
    was so is named with its owner."""
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW
    for _ in range(8):  # (a file removed between the two opens: counted retries)
        try:
            return os.open(entry, flags, dir_fd=folder_fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
            if exc.errno in (errno.EACCES, errno.EPERM):
                with contextlib.suppress(OSError):
                    why += (f" (it belongs to {owner(os.stat(entry, dir_fd=folder_fd, follow_symlinks=False).st_uid)}"
                            f" and is not writable by this user: that user or root can remove it)")
            raise InputError(f"cannot open its lock file {lock}: {why}", file=lock) from None
        try:
            fd = os.open(entry, flags | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=folder_fd)
        except FileExistsError:
            continue
        except OSError as exc:
            raise InputError(f"cannot make its lock file {lock}: {exc.strerror or exc}", file=lock) from None
        os.fchmod(fd, 0o666)  # (whatever the umask: another user's tune of the device opens it too)
        return fd
    raise InputError(f"cannot make its lock file {lock}: it keeps being removed and made again", file=lock)
