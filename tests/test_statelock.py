"""The shared folder of device locks (a tune's `tune-ADDRESS_PORT.lock`), which every user of the machine writes in:
a link or a folder another user planted never has us write through it, and another user's tune meets our lock
instead of "Permission denied"."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from losslessd.errors import InputError
from losslessd.history import History
from losslessd.inventory import device_key, device_keys
from losslessd.statelock import WRITERS
from losslessd.tune.store import Store
from tests.test_history import storm

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="takes the lock as another user (setuid)")

_HINT = "wait for it to end"


def take(name: str) -> str:
    return WRITERS.take_shared("tune", name, "tune", _HINT, busy="tuned", per="device")


# Takes the lock of argv[2] in the folder argv[1] as user argv[3]: from inside the folder (the test's tmp_path is
# root's own, closed to other users), the lock folder named "." as an operator may name it.
_TAKE_AS = """
import os, sys
from losslessd.errors import InputError
from losslessd.statelock import WRITERS
os.chdir(sys.argv[1]); os.environ["LOSSLESSD_LOCK_DIR"] = "."
os.setgroups([]); os.setgid(int(sys.argv[3])); os.setuid(int(sys.argv[3])); os.umask(0o022)
try:
    print("taken", WRITERS.take_shared("tune", sys.argv[2], "tune", "wait", busy="tuned", per="device"))
except InputError as exc:
    print(exc)
"""


def take_as(uid: int, folder: Path, name: str) -> str:
    return subprocess.run([sys.executable, "-c", _TAKE_AS, str(folder), name, str(uid)], capture_output=True,
                          text=True, timeout=120, check=True).stdout.strip()


def test_a_link_planted_in_the_folder_never_has_its_target_written(tmp_path, monkeypatch):
    """A link named like a device's lock without `.lock`: the lock path was resolved through it, so the lock file
    opened (and truncated, our pid written) was the link's target + ".lock": a victim's Cargo.lock."""
    folder, victim = tmp_path / "locks", tmp_path / "victim"
    folder.mkdir(mode=0o700)
    victim.mkdir()
    (victim / "Cargo.lock").write_text("[[package]]\n")
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(folder))
    (folder / "tune-leaf1_22").symlink_to(victim / "Cargo")
    (folder / "tune-leaf2_22.lock").symlink_to(victim / "Cargo.lock")  # the lock's own name, a link
    lock = take("leaf1_22")
    try:
        assert lock == f"{folder}/tune-leaf1_22.lock" and (folder / "tune-leaf1_22.lock").read_text().strip().isdigit()
    finally:
        WRITERS.release(lock)
    with pytest.raises(InputError, match=r"lock file .*/tune-leaf2_22\.lock: it is a symbolic link"):
        take("leaf2_22")
    assert (victim / "Cargo.lock").read_text() == "[[package]]\n"


def test_a_lock_folder_that_is_a_link_or_that_others_could_swap_is_refused(tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    other.chmod(0o777)
    monkeypatch.delenv("LOSSLESSD_LOCK_DIR")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # (gettempdir() reads TMPDIR again)
    (tmp_path / "losslessd-locks").symlink_to(other)  # `losslessd-locks` a link to another user's 0777 folder
    with pytest.raises(InputError, match=r"^cannot use the lock folder .*/losslessd-locks: it is a symbolic link "
                                         r"\(set LOSSLESSD_LOCK_DIR\)$"):
        take("leaf1_22")
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(tmp_path / "locks"))
    (tmp_path / "locks").symlink_to(other)  # the operator's link is followed; the folder it names is checked
    with pytest.raises(InputError, match=r"every user may write it and it is not sticky, so any user could remove "
                                         r"the locks in it \(chmod \+t it\)$"):
        take("leaf1_22")
    assert not list(other.iterdir())
    if os.geteuid() == 0:
        os.chown(other, NOBODY, NOBODY)
        other.chmod(0o1777)
        with pytest.raises(InputError, match=rf"it belongs to .*uid {NOBODY}\), not to root or this user"):
            take("leaf1_22")


@pytest.mark.slow  # starts a process
@as_root
def test_another_users_tune_meets_the_lock_instead_of_permission_denied(tmp_path, monkeypatch):
    """The first user's lock file was 0644 (umask) and stays after its tune: a second user was refused with
    "Permission denied" while no tune ran. It is made 0666 whatever the umask; a file made before that is named with
    its owner."""
    folder = tmp_path / "locks"
    folder.mkdir()
    folder.chmod(0o1777)
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(folder))
    old = os.umask(0o022)
    try:
        WRITERS.release(take("leaf1_22"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((folder / "tune-leaf1_22.lock").stat().st_mode) == 0o666
    assert take_as(NOBODY, folder, "leaf1_22") == "taken ./tune-leaf1_22.lock"
    held = take("leaf1_22")  # and the other way round: one lock for both users
    try:
        said = take_as(NOBODY, folder, "leaf1_22")
        assert said.startswith(f"./tune-leaf1_22.lock: tuned by another losslessd tune (pid {os.getpid()}, ")
    finally:
        WRITERS.release(held)
    (folder / "tune-leaf3_22.lock").write_text("")
    (folder / "tune-leaf3_22.lock").chmod(0o644)  # a lock file of an earlier losslessd
    assert "Permission denied (it belongs to user root (uid 0)" in take_as(NOBODY, folder, "leaf3_22")


def test_an_operators_lock_folder_that_is_a_link_is_followed(tmp_path, monkeypatch):
    """Debian's /var/lock is a link to /run/lock: an operator's LOSSLESSD_LOCK_DIR=/var/lock was refused as a link,
    with the hint to set the variable that was set. The link is followed, the lock made in the folder it names."""
    (tmp_path / "run-lock").mkdir(mode=0o755)
    (tmp_path / "var-lock").symlink_to(tmp_path / "run-lock")
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(tmp_path / "var-lock"))
    lock = take("leaf1_22")
    try:
        assert (tmp_path / "run-lock" / "tune-leaf1_22.lock").read_text().strip() == str(os.getpid())
    finally:
        WRITERS.release(lock)



@pytest.mark.parametrize("given", ["/proc/self", "/proc/self/losslessd-locks", "/sys/fs/cgroup/pids/losslessd-locks",
                                   "/sys/fs/cgroup/losslessd-locks"])
def test_a_lock_folder_on_a_kernel_filesystem_is_refused_before_it_is_made(given, monkeypatch):
    """LOSSLESSD_LOCK_DIR was made with a plain mkdir: under /sys/fs/cgroup (as root) that makes a cgroup, and /proc
    failed on its lock file with "Permission denied", naming no reason. It goes through the outputs' checks now."""
    from losslessd.limits import _kernel_fs

    parent = os.path.dirname(given)
    if not os.path.isdir(parent) or not _kernel_fs(parent, folder=True):  # (cgroup v1 mounts below a tmpfs, v2 not)
        pytest.skip(f"no {parent} on a kernel filesystem on this machine")
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", given)
    with pytest.raises(InputError, match=r": cannot write the locks: the path is on the kernel's (proc|cgroup2?) "
                                         r"filesystem, whose files are kernel interfaces, not storage: write the locks "
                                         r"to a folder on disk$") as caught:
        take("leaf1_22")
    assert caught.value.file == given and str(caught.value).startswith(f"{given}: ")
    assert given == "/proc/self" or not os.path.exists(given)


def test_a_lock_folder_that_is_a_file_names_the_variable(tmp_path, monkeypatch):
    (tmp_path / "locks").write_text("")
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(tmp_path / "locks"))
    with pytest.raises(InputError, match=r": cannot make the folder for the locks: it is a file: LOSSLESSD_LOCK_DIR "
                                         r"names a folder$"):
        take("leaf1_22")

def test_only_the_default_folder_is_made_writable_by_all(tmp_path, monkeypatch):
    given = tmp_path / "given" / "locks"
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(given))
    old = os.umask(0o022)
    try:
        WRITERS.release(take("leaf1_22"))
        assert stat.S_IMODE(given.stat().st_mode) == 0o755  # the operator's folder: the operator's mode
        monkeypatch.delenv("LOSSLESSD_LOCK_DIR")
        monkeypatch.setenv("TMPDIR", str(tmp_path))
        monkeypatch.setattr("tempfile.tempdir", None)  # (gettempdir() reads TMPDIR again)
        WRITERS.release(take("leaf1_22"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "losslessd-locks").stat().st_mode) == 0o1777


def test_a_long_name_is_one_file_and_two_long_names_are_two(tmp_path):
    """A DNS name may be 253 characters (RFC 1035 2.3.4): its lock was "File name too long"."""
    name = ".".join(["a" * 63] * 3 + ["b" * 61])
    assert len(name) == 253
    first = take(f"{name}_22")
    try:
        second = take(f"{name[:-1]}c_22")
        WRITERS.release(second)
        assert first != second and len(os.path.basename(first)) <= 255
    finally:
        WRITERS.release(first)


def test_spellings_of_one_address_are_one_lock():
    assert device_key("LEAF1.", 22) == device_key("leaf1", 22) == "leaf1_22"
    assert device_key("0:0::1", 22) == device_key("::1", 22) == "::1_22"
    assert device_key("127.0.0.1", 830) == "127.0.0.1_830"
    assert device_key("::ffff:127.0.0.1", 22) == "127.0.0.1_22"  # (an IPv4-mapped address is the IPv4 one)


def test_a_hard_link_is_refused_in_the_shared_folder_and_taken_beside_a_state_file(tmp_path, monkeypatch):
    """In the folder every user writes, a hard link to a file of ours would have that file truncated; beside the
    daemon's history it is the operator's backup of the state folder (cp -al, rsnapshot), which never stops it."""
    folder, state, backup = tmp_path / "locks", tmp_path / "state", tmp_path / "backup"
    for made in (folder, state, backup):
        made.mkdir(mode=0o700)
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(folder))
    (tmp_path / "mine").write_text("keep\n")
    os.link(tmp_path / "mine", folder / "tune-leaf1_22.lock")
    with pytest.raises(InputError, match=r"tune-leaf1_22\.lock: it has other names \(a hard link\)"):
        take("leaf1_22")
    assert (tmp_path / "mine").read_text() == "keep\n"
    (state / ".losslessd.db.lock").touch()
    os.link(state / ".losslessd.db.lock", backup / ".losslessd.db.lock")
    lock = WRITERS.take(state / "losslessd.db", "daemon", "give each its own state folder")
    try:
        assert lock == f"{state}/.losslessd.db.lock" and (state / ".losslessd.db.lock").read_text().strip().isdigit()
    finally:
        WRITERS.release(lock)


# Holds the lock of argv[2] in the folder argv[1] until its standard input closes.
_HOLD = """
import os, sys
from losslessd.statelock import WRITERS
os.environ["LOSSLESSD_LOCK_DIR"] = sys.argv[1]
print("taken", WRITERS.take_shared("tune", sys.argv[2], "tune", "wait", busy="tuned", per="device"), flush=True)
sys.stdin.read()
"""


@pytest.mark.slow  # starts a process
def test_a_name_and_the_address_it_resolves_to_are_one_device(tmp_path, monkeypatch):
    """Session 34: `localhost` and 127.0.0.1 (or an inventory's name for a switch and another's address of it) were two
    locks, so two tunes pushed to one device. A tune takes the lock of the name and of each address it resolves to:
    a tune of `localhost` meets another process's tune of 127.0.0.1 (and of `127.1`, the same address written short)."""
    folder = tmp_path / "locks"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(folder))
    assert device_key("127.0.0.1", 22) in device_keys("localhost", 22)
    assert device_key("127.0.0.1", 22) in device_keys("127.1", 22)
    assert device_keys("LOCALHOST.", 22) == device_keys("localhost", 22)
    assert device_keys("nonexistent.invalid", 22) == ["nonexistent.invalid_22"]  # (its tune cannot connect either)
    held = subprocess.Popen([sys.executable, "-c", _HOLD, str(folder), "127.0.0.1_22"], stdout=subprocess.PIPE,
                            stdin=subprocess.PIPE, text=True)
    try:
        assert held.stdout.readline().startswith("taken")
        for spelled in ("localhost", "127.1", "::ffff:127.0.0.1"):
            with pytest.raises(InputError, match=rf"tuned by another losslessd tune \(pid {held.pid}, lock "):
                for key in device_keys(spelled, 22):
                    WRITERS.release(take(key))
    finally:
        held.communicate("", timeout=60)


# The previous release's daemon: its lock file <file>.lock (argv[1]) made as it made it, its pid written, a POSIX lock
# taken with lockf, held until its standard input closes.
_OLD_RELEASE_HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
os.ftruncate(fd, 0)
os.write(fd, f"{os.getpid()}\\n".encode())
print("held", flush=True)
sys.stdin.read()
"""


def _old_release_holds(lock: Path) -> subprocess.Popen:
    held = subprocess.Popen([sys.executable, "-c", _OLD_RELEASE_HOLDER, str(lock)], stdout=subprocess.PIPE,
                            stdin=subprocess.PIPE, text=True)
    assert held.stdout.readline() == "held\n"
    return held


def _locked_elsewhere(lock: Path) -> bool:
    """Another process cannot take a lockf of ``lock`` (this process's own locks never refuse it)."""
    probe = ("import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\n"
             "try:\n    fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)\nexcept OSError:\n    print('locked')\n"
             "else:\n    print('free')\n")
    return subprocess.run([sys.executable, "-c", probe, str(lock)], capture_output=True, text=True, timeout=120,
                          check=True).stdout == "locked\n"


@pytest.mark.slow  # starts a process
def test_a_daemon_of_the_previous_release_holding_history_db_lock_refuses_a_new_one(tmp_path):
    """The upgrade window: the previous release locked `history.db.lock`, this one `.history.db.lock`, so a new daemon
    started beside a running old one wrote the same history. It is refused naming the old one's pid, holds no lock
    after, and never writes the old lock file; once the old daemon is gone, the file left there lets it start."""
    path, legacy = tmp_path / "history.db", tmp_path / "history.db.lock"
    held = _old_release_holds(legacy)
    try:
        with pytest.raises(InputError, match=rf"^{path}: written by another losslessd daemon \(pid {held.pid}, lock "
                                             rf"{legacy}\): one daemon per file \(give each its own history.path\)$"):
            WRITERS.take(path, "daemon", "give each its own history.path")
        assert legacy.read_text() == f"{held.pid}\n"
        assert not _locked_elsewhere(tmp_path / ".history.db.lock")  # (the new lock was let go)
    finally:
        held.communicate("", timeout=60)
    lock = WRITERS.take(path, "daemon", "give each its own history.path")
    try:
        assert lock == f"{tmp_path}/.history.db.lock"
        # (held while the new lock is, this pid in it: an old daemon started now is kept out; read in another process,
        # since closing a descriptor of it here would drop the lock)
        assert _old_release_starts(legacy) == f"refused {os.getpid()}"
    finally:
        WRITERS.release(lock)
    assert not _locked_elsewhere(legacy)


# The previous release's daemon started: "held", or "refused" and the pid it would name (read from the lock file).
_OLD_RELEASE_STARTS = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    print("refused", os.read(fd, 32).decode().strip())
else:
    print("held")
"""


def _old_release_starts(lock: Path) -> str:
    return subprocess.run([sys.executable, "-c", _OLD_RELEASE_STARTS, str(lock)], capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()


@pytest.mark.slow  # starts processes
def test_a_daemon_of_the_previous_release_started_after_a_new_one_is_refused_for_as_long_as_it_runs(tmp_path):
    """The new daemon took `.history.db.lock` and let `history.db.lock` go once checked, so an old-release daemon
    started after it wrote the same history. The new one holds the old name too, its pid in it, while it runs; removed
    (`rm history.db*`) it is taken again at the next write, and if an old daemon took it meanwhile, nothing is written
    (naming that daemon) until it has gone."""
    path, legacy = tmp_path / "history.db", tmp_path / "history.db.lock"
    first = History(path, resolution_s=60)
    try:
        assert _old_release_starts(legacy) == f"refused {os.getpid()}"
        first.record_event(storm(start=1000.0))
        assert first.flush(), first.last_error
        assert _old_release_starts(legacy) == f"refused {os.getpid()}"
        subprocess.run(["sh", "-c", "rm -f history.db*"], cwd=tmp_path, check=True)
        first.record_event(storm(start=1500.0))
        assert first.flush() and _old_release_starts(legacy) == f"refused {os.getpid()}"  # (made again)
        legacy.unlink()
        held = _old_release_holds(legacy)
        try:
            first.record_event(storm(start=2000.0))
            assert not first.flush()
            assert f"written by another losslessd daemon (pid {held.pid}, lock {legacy})" in first.last_error
            first._retry_at = 0.0  # (the retry's wait is not what is tested)
            assert not first.flush()  # (still refused while the old daemon runs)
        finally:
            held.communicate("", timeout=60)
        first._retry_at = 0.0
        assert first.flush(), first.last_error
        assert _old_release_starts(legacy) == f"refused {os.getpid()}"
    finally:
        first.close()
    assert _old_release_starts(legacy) == "held"


# Takes the history lock of argv[1] as user argv[2], then holds it until its standard input closes.
_DAEMON_AS = """
import os, sys
from pathlib import Path
from losslessd.errors import InputError
from losslessd.statelock import WRITERS
os.setgroups([]); os.setgid(int(sys.argv[2])); os.setuid(int(sys.argv[2]))
try:
    print(WRITERS.take(Path(sys.argv[1]), "daemon", "hint"), flush=True)
except InputError as exc:
    print(exc, flush=True)
sys.stdin.read()
"""


@pytest.mark.slow  # starts processes
@as_root
def test_the_previous_release_s_lock_file_of_another_user_is_held_read_only():
    """An old daemon run as root left `history.db.lock` (0644, root's); the new daemon runs as another user, who cannot
    open it to write: it holds it read-only with a shared lock (which keeps the old daemon's exclusive one out) rather
    than refusing to start."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="losslessd-test-", dir="/tmp"))  # (pytest's own folders are root's, 0700)
    os.chown(folder, NOBODY, NOBODY)
    legacy = folder / "history.db.lock"
    legacy.write_text("4242\n")
    os.chmod(legacy, 0o644)
    try:
        _held_read_only(folder, legacy)
    finally:
        shutil.rmtree(folder)


def _held_read_only(folder: Path, legacy: Path) -> None:
    daemon = subprocess.Popen([sys.executable, "-c", _DAEMON_AS, str(folder / "history.db"), str(NOBODY)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        said = daemon.stdout.readline().strip()
        assert said == f"{folder}/.history.db.lock", said
        assert _old_release_starts(legacy) == "refused 4242"  # (not written: another user's file)
    finally:
        daemon.communicate("", timeout=60)
    assert _old_release_starts(legacy) == "held"


@pytest.mark.slow  # starts a process
def test_the_previous_release_s_lock_name_is_never_followed_nor_opened_unless_a_regular_file(tmp_path):
    """A link at `history.db.lock` to a file another process locks is not that lock (nor is its target written); a FIFO
    there is never opened (an open of it for reading waits for a writer)."""
    victim = tmp_path / "victim.lock"
    held = _old_release_holds(victim)
    try:
        (tmp_path / "history.db.lock").symlink_to(victim)
        os.mkfifo(tmp_path / "tune.db.lock")
        for name in ("history.db", "tune.db"):
            WRITERS.release(WRITERS.take(tmp_path / name, "daemon", "give each its own history.path"))
        assert victim.read_text() == f"{held.pid}\n"
    finally:
        held.communicate("", timeout=60)


@pytest.mark.slow  # starts a process
def test_the_previous_release_s_lock_name_that_is_a_lock_this_process_holds_keeps_it_held(tmp_path):
    """`.h.lock` is the new lock of `h` and the previous release's of `.h`; a hard link to a held lock is one too.
    Testing it opens a descriptor of a lock this process holds, and closing that drops the lock (fcntl(2)): it is kept
    until the lock is released."""
    first = WRITERS.take(tmp_path / "h", "daemon", "give each its own history.path")
    try:
        os.link(first, tmp_path / "g.lock")
        for name in (".h", "g"):
            lock = WRITERS.take(tmp_path / name, "daemon", "give each its own history.path")
            WRITERS.release(lock)
            assert _locked_elsewhere(Path(first)), f"taking and releasing {lock} let {first} go"
    finally:
        WRITERS.release(first)
    assert not _locked_elsewhere(Path(first))


@pytest.mark.slow  # starts a process
def test_a_refused_daemon_or_tune_never_opens_the_file_to_write(tmp_path):
    """The lock is taken before the history (or tune database) is opened to write: that opening made the file, set
    WAL and migrated an older schema under the previous release's daemon still writing it, before the refusal."""
    for name, opened in (("history.db", History), ("tune.db", Store)):
        held = _old_release_holds(tmp_path / f"{name}.lock")
        try:
            with pytest.raises(InputError, match=rf"\(pid {held.pid}, lock {tmp_path}/{name}\.lock\)"):
                opened(tmp_path / name)
            assert not (tmp_path / name).exists()
            assert not _locked_elsewhere(tmp_path / f".{name}.lock")
        finally:
            held.communicate("", timeout=60)
