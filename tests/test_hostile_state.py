"""State files losslessd reads back, damaged or edited: the tune database (`tune report`). A row of another kind
than losslessd writes, a missing table or a page of flipped bytes is the file's fault: exit 2 naming the file,
never an internal error (exit 3) in the middle of a report. (The history file: tests/test_history.py.)"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from losslessd.errors import EXIT_INPUT, EXIT_OK, InputError
from losslessd.statelock import WRITERS
from losslessd.tune.space import Candidate
from losslessd.tune.store import AS_FOUND, Store, Trial
from tests.hostile import edited_db, flipped_db

from .clirun import losslessd


@pytest.fixture()
def tune_db(tmp_path) -> Path:
    """A tune of three trials as the tuner writes them: the settings as found, a candidate, a refused one."""
    path = tmp_path / "tune.sqlite"
    with Store(path) as store:
        tune, _ = store.open_tune({"benchmark": ["x"], "budget": 3})
        store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0, measure=10.0, per_size={2**20: 10.0},
                                       output="x"))
        store.add_trial(tune.id, Trial(1, Candidate(150_000, 1_500_000, 5.0).key, "ok", True, score=12.0,
                                       measure=12.0, per_size={2**20: 12.0}, paused_share=0.01, output="y"))
        store.add_trial(tune.id, Trial(2, Candidate(1, 2, 3.0).key, "refused", False, reason="lints with an error"))
        store.event(tune.id, "push", "pushed", device="leaf1")
    return path


@pytest.mark.parametrize(("sql", "says"), [
    ("UPDATE trials SET per_size = '{bad';", "a row of the trials table is damaged: per_size is '{bad'"),
    ("UPDATE trials SET per_size = '{\"x\": 1}';", "per_size"),
    ("UPDATE trials SET score = 'abc';", "score is 'abc'"),
    ("UPDATE trials SET notes = x'ff00';", "notes is b'\\xff\\x00'"),
    ("UPDATE trials SET seq = 'first' WHERE seq = 2;", "seq is 'first'"),
    ("UPDATE tunes SET params = '[1, 2]';", "a row of the tunes table is damaged: params"),
    ("UPDATE tunes SET started_unix_s = 'yesterday';", "started_unix_s is 'yesterday'"),
    ("UPDATE tunes SET origins = 'null';", "origins"),
    ("UPDATE tunes SET started_unix_s = 1e999;", "started_unix_s is inf"),
    ("UPDATE trials SET ended_unix_s = 1e300;", "ended_unix_s is 1e+300"),
    ("UPDATE events SET unix_s = 'now';", "a row of the events table is damaged: unix_s"),
    ("DROP TABLE trials;", "no such table: trials"),
])
def test_an_edited_tune_database_is_an_input_error_naming_it(tune_db, tmp_path, sql, says):
    path = edited_db(tune_db, tmp_path, sql)
    res = losslessd("tune", "report", "--db", path)
    assert res.returncode == EXIT_INPUT, res.stderr
    assert f"{path}: " in res.stderr and says in res.stderr, res.stderr


def test_the_tune_database_as_written_reads_back(tune_db):
    """The checks refuse nothing the tuner writes."""
    res = losslessd("tune", "report", "--db", tune_db)
    assert res.returncode == EXIT_OK and "lints with an error" in res.stdout, res.stderr
    with Store(tune_db, create=False) as store:
        trials = store.trials(store.tune().id)
    assert [t.per_size for t in trials] == [{2**20: 10.0}, {2**20: 12.0}, {}]


def test_a_tune_database_damaged_on_disk_is_an_input_error(tune_db, tmp_path):
    """Bytes flipped in the file: SQLite refuses the file, or hands back text that is not UTF-8 (a
    UnicodeDecodeError, an internal error before). Seeds chosen so that both happen."""
    said = set()
    for seed in range(8):
        path = flipped_db(tune_db, tmp_path, seed)
        res = losslessd("tune", "report", "--db", path)
        assert res.returncode in (EXIT_OK, EXIT_INPUT), (seed, res.stderr)
        if res.returncode == EXIT_INPUT:
            assert f"{path}: " in res.stderr
            said.add("not UTF-8" if "not UTF-8" in res.stderr else "refused")
    assert said == {"not UTF-8", "refused"}


def test_plots_of_an_edited_trial_leave_out_what_cannot_be_drawn(tune_db, tmp_path):
    """A scored trial without its measure (the tuner writes both) failed the knob plot's log axis (exit 3)."""
    pytest.importorskip("matplotlib")
    path = edited_db(tune_db, tmp_path, "UPDATE trials SET measure = NULL WHERE seq = 1;")
    res = losslessd("tune", "report", "--db", path, "--out", tmp_path / "plots")
    assert res.returncode == EXIT_OK, res.stderr
    assert (tmp_path / "plots" / "tune-1-knobs.png").stat().st_size > 0


_TAKE_UNDER_FSIZE_0 = """
import resource, sys
from pathlib import Path
from losslessd.errors import InputError
from losslessd.statelock import WRITERS
resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))  # (Python ignores SIGXFSZ: writes get EFBIG)
try:
    WRITERS.take(Path(sys.argv[1]), "daemon", "give each its own history.path")
    print("taken", flush=True)
except InputError as exc:
    print(exc, flush=True)
sys.stdin.read()  # (alive until the test has tried the lock from another process)
"""


@pytest.mark.slow  # starts a process
def test_a_lock_whose_pid_cannot_be_written_is_let_go(tmp_path):
    # the daemon's (and a tune's) lock file on a full disk or past a file-size limit: its pid write raised an OSError
    # out of WRITERS.take (an internal error) and the descriptor stayed open, so the process went on holding a lock
    # file without a pid; now a clear error naming the lock file, and the lock is let go
    path = tmp_path / "losslessd.db"
    child = subprocess.Popen([sys.executable, "-c", _TAKE_UNDER_FSIZE_0, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = child.stdout.readline()
        assert said.startswith(f"{path}: cannot write its pid to its lock file {tmp_path}/.{path.name}.lock: "), \
            said + child.stderr.read()
        try:  # (another process: a POSIX lock is the process's, so the child would keep it from the others)
            lock = WRITERS.take(path, "daemon", "give each its own history.path")
        except InputError as exc:
            pytest.fail(f"the failed writer still holds the lock: {exc}")
        WRITERS.release(lock)
    finally:
        child.communicate("", timeout=60)


@pytest.mark.parametrize("kind", ["tune", "history"])
def test_a_state_file_another_program_holds_locked_is_said_so(kind, tune_db, tmp_path, monkeypatch):
    """Round 18: an sqlite3 shell (or a backup tool) holding the file's lock past the wait. The tune database was
    "not a losslessd tune database: database is locked", the history SQLite's bare "database is locked"."""
    from losslessd import history
    from losslessd.tune import store
    from tests.test_history import recorded

    monkeypatch.setattr(store, "LOCK_WAIT_S", 0.2)
    monkeypatch.setattr(history, "OPEN_TIMEOUT_S", 0.2)
    path = tune_db if kind == "tune" else recorded.__wrapped__(tmp_path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")  # (what `sqlite3 FILE` then `BEGIN EXCLUSIVE;` holds)
    try:
        ran = losslessd(*(["tune", "report", "--db", path] if kind == "tune" else ["events", "--db", path]))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert ran.returncode == EXIT_INPUT
    said = "cannot read the tune database" if kind == "tune" else "cannot use the history database"
    assert f"{path}: {said}: another program holds the file locked past the wait" in ran.stderr, ran.stderr
    assert "not a losslessd" not in ran.stderr
    ran = losslessd(*(["tune", "report", "--db", path] if kind == "tune" else ["events", "--db", path]))
    assert ran.returncode == EXIT_OK, ran.stderr  # once it lets go


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tune", "history"])
def test_a_read_only_report_names_the_holder_at_once(kind, tune_db, tmp_path):
    """`events` waited 5 s and `tune report` 30 s behind a program holding the file in exclusive locking mode (a WAL
    reader waits for no writer: only such a holder, who does not let go in seconds, blocks it). A reader now waits
    limits.READ_WAIT_S and names the holder's pid and program; the writers keep their waits."""
    import time

    from losslessd import history
    from losslessd.limits import READ_WAIT_S
    from losslessd.tune import store
    from tests.test_history import recorded

    assert store.LOCK_WAIT_S > 3 * READ_WAIT_S and history.OPEN_TIMEOUT_S > 3 * READ_WAIT_S  # (the writers' waits)
    path = tune_db if kind == "tune" else recorded.__wrapped__(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        started = time.monotonic()
        with pytest.raises(InputError) as caught:
            (Store(path, create=False) if kind == "tune" else history.History(path, create=False)).close()
        waited = time.monotonic() - started
    finally:
        holder.communicate("", timeout=60)
    assert f"another program holds the file locked past the wait (pid {holder.pid} (python" in str(caught.value), \
        caught.value
    # (fewer seconds than the writer's wait it used to take: a bound a loaded machine does not reach, not a timing)
    assert waited < (store.LOCK_WAIT_S if kind == "tune" else history.OPEN_TIMEOUT_S), waited


@pytest.mark.slow  # (starts a process)
def test_a_lock_holder_is_named_printably_and_once_gone_as_gone(tmp_path):
    """A process names itself (prctl PR_SET_NAME): an escape sequence or bidi override in its name is written out, not
    sent to the operator's terminal; a holder that exits between /proc/locks and its name is 'gone', no traceback;
    a file no one locks, or one that is not there, names no one."""
    from losslessd.errors import _program, lock_holders

    held = tmp_path / "history.db"
    held.write_bytes(b"")
    # linux/prctl.h: PR_SET_NAME 15 (the name /proc/PID/comm shows, 15 bytes and a NUL)
    code = ("import ctypes, fcntl, sys\nctypes.CDLL(None).prctl(15, '\\x1b[31mev\\u202eil'.encode(), 0, 0, 0)\n"
            "f = open(sys.argv[1], 'r+')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.read()\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(held)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert lock_holders(held) == [f"pid {holder.pid} (\\x1b[31mev\\u202eil)"]
    finally:
        holder.communicate("", timeout=60)
    assert _program(holder.pid) == "gone" and lock_holders(held) == [] and lock_holders(tmp_path / "none") == []


# A program holding a state file in exclusive locking mode (what `sqlite3 FILE`, `PRAGMA locking_mode=EXCLUSIVE;` and
# `BEGIN EXCLUSIVE;` hold) until its standard input closes.
HOLD = ("import sqlite3, sys\nheld = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "held.execute('PRAGMA locking_mode = EXCLUSIVE')\nheld.execute('BEGIN EXCLUSIVE')\n"
        "print('held', flush=True)\nsys.stdin.read()\n")


# linux/fs.h: the inode flags ioctls (FS_IOC_GETFLAGS/SETFLAGS, _IOR/_IOW('f', 1/2, long)) and FS_IMMUTABLE_FL
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IMMUTABLE_FL = 0x80086601, 0x40086602, 0x00000010


def _flags(path: Path, on: bool) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        flags = bytearray(8)
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags)
        value = int.from_bytes(flags, sys.byteorder)
        value = value | FS_IMMUTABLE_FL if on else value & ~FS_IMMUTABLE_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, value.to_bytes(8, sys.byteorder))
    finally:
        os.close(fd)


@pytest.fixture()
def immutable():
    """``chattr +i`` on a file (undone after the test): read-only even to root, as on a read-only mount."""
    made: list[Path] = []

    def make(path: Path) -> Path:
        try:
            _flags(path, True)
        except OSError as exc:
            pytest.skip(f"the immutable attribute is not allowed here ({exc.strerror}: CAP_LINUX_IMMUTABLE, or a "
                        "file system without it)")
        made.append(path)
        return path

    yield make
    for path in made:
        _flags(path, False)


def test_a_read_only_history_or_tune_database_stops_the_writer_at_its_start(tune_db, tmp_path, immutable):
    """Round 18: SQLite opens a file it may not write read-only, without a word. The daemon started on such a history
    and failed every commit (its rows in the backlog, dropped once full); now it stops at its start, as the tune store
    did (in SQLite's words: 'attempt to write a readonly database')."""
    from losslessd.history import History, check_writable
    from tests.test_history import recorded

    history = immutable(recorded.__wrapped__(tmp_path))
    with pytest.raises(InputError, match="cannot use the history database: the file is read-only to this process"):
        History(history)
    with pytest.raises(InputError, match=r"the daemon cannot write the history file \(its mode or owner, the"):
        check_writable(history)  # (daemon --check: it said "permissions")
    History(history, create=False).close()  # (read as it was: `events`, `history`)
    with pytest.raises(InputError, match="cannot write the tune database: the file is read-only to this process"):
        Store(immutable(tune_db))


def test_state_files_in_a_folder_the_reader_cannot_write_are_read(tune_db, tmp_path, immutable):
    """Round 18: the daemon run as its own user keeps its history in a folder only it writes; stopped, it leaves no
    -wal or -shm file, and SQLite cannot make the -shm a WAL database is read through: `events`, `history` and `tune
    report` by another user were "attempt to write a readonly database" (the tune database's said to make it
    writable; here as root, an immutable folder: "unable to open database file"). Now read as the file stands
    (opened immutable: no writer has it open)."""
    from tests.test_history import recorded

    folder = tmp_path / "state"
    folder.mkdir()
    path = recorded.__wrapped__(folder)
    tune = folder / "tune.sqlite"
    tune.write_bytes(tune_db.read_bytes())
    assert not list(folder.glob("*-wal")) and not list(folder.glob("*-shm"))
    immutable(folder)
    ran = losslessd("tune", "report", "--db", tune)
    assert ran.returncode == EXIT_OK and "as found" in ran.stdout, ran.stderr
    ran = losslessd("events", "--db", path)
    assert ran.returncode == EXIT_OK, ran.stderr
    assert "pfc_storm" in ran.stdout and "leaf1 Ethernet8 priority 3" in ran.stdout
    ran = losslessd("history", "--db", path, "--device", "leaf1", "--port", "Ethernet8", "-f", "json")
    assert ran.returncode == EXIT_OK, ran.stderr


def test_a_state_file_written_while_read_immutable_is_refused(tune_db, tmp_path, immutable):
    """Review of round 18: a file opened immutable is read with no lock, SQLite trusting the pages it cached. A daemon
    (or a tune) started while `events` (or `tune report`) read it wrote and checkpointed into the file, and the reader
    answered from its old pages without a word: here the events the writer added missing, in a larger file pages of
    two states side by side. Now the file's size and times are compared after each read."""
    from losslessd.history import History
    from losslessd.monitor import Event
    from tests.test_history import recorded

    folder = tmp_path / "state"
    folder.mkdir()
    path = recorded.__wrapped__(folder)
    tune = folder / "tune.sqlite"
    tune.write_bytes(tune_db.read_bytes())
    immutable(folder)
    reader, report = History(path, create=False), Store(tune, create=False)
    assert [e.device for e in reader.events()] == ["leaf1", "spine1"]
    report.tune(None)
    _flags(folder, False)  # (the writer's user may write its folder)
    writer = History(path)
    writer.record_event(Event("device_down", "spine2", None, None, 1.0e9, "no answer", basis="poll"))
    writer.close()  # (its checkpoint writes the file)
    with Store(tune) as store:
        store.open_tune({"benchmark": ["y"], "budget": 1})
    with pytest.raises(InputError, match="the history was written while it was read \\(its writer started\\): run "
                       "the command again"):
        reader.events()
    with pytest.raises(InputError, match="the tune database was written while it was read"):
        report.close()
    reader.close()


def test_a_page_written_under_an_immutable_read_is_not_called_damage(tmp_path, immutable):
    """Pages the reader had not cached yet, rewritten under it (a checkpoint), read as a damaged file: the file named
    damaged when it was only written meanwhile."""
    from losslessd.history import History
    from tests.test_history import recorded

    folder = tmp_path / "state"
    folder.mkdir()
    path = recorded.__wrapped__(folder)
    immutable(folder)
    reader = History(path, create=False)  # (its opening reads the schema, not the events)
    with path.open("r+b") as f:
        f.seek(4096)
        f.write(b"\xff" * (path.stat().st_size - 4096))
    with pytest.raises(InputError, match="the history was written while it was read"):
        reader.events()
    with pytest.raises(InputError, match="the history was written while it was read"):
        reader.devices()
    reader.close()


def test_a_state_file_removed_under_an_immutable_read_is_said_removed_not_written(tmp_path, immutable):
    """A history deleted while `events` read it (immutable) was reported "written while it was read (its writer
    started): run the command again", which finds no file."""
    from losslessd.history import History
    from tests.test_history import recorded

    folder = tmp_path / "state"
    folder.mkdir()
    path = recorded.__wrapped__(folder)
    immutable(folder)
    reader = History(path, create=False)
    _flags(folder, False)  # (another process of the folder's owner may remove its files)
    path.unlink()
    with pytest.raises(InputError, match="the history was removed while it was read \\(deleted or moved away by "
                       "another process\\)") as said:
        reader.events()
    assert "written" not in said.value.message
    reader.close()


def _as_nobody(*args: str) -> subprocess.CompletedProcess:
    """losslessd ARGS run as the user nobody (setpriv), from this checkout."""
    from tests.clirun import ROOT

    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                           "losslessd", *args], cwd="/", capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


@pytest.mark.slow  # (runs losslessd as another user)
def test_another_users_state_files_are_read_or_named_for_why_not(tune_db):
    """As the user nobody (setpriv): root's stopped history and tune database in root's folders
    (SQLITE_READONLY_DIRECTORY) were "attempt to write a readonly database" and "cannot write the tune database", now
    read; in a folder nobody may not enter they were "no history database here" and "no such tune database", now
    "cannot be reached: Permission denied"."""
    from tests.test_history import recorded

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to read as another user")
    if _as_nobody("--help").returncode:
        pytest.skip("the user nobody cannot run this checkout")
    base = Path(tempfile.mkdtemp())  # (pytest's own folder is root's alone)
    try:
        base.chmod(0o755)
        history = recorded.__wrapped__(base)
        tune = base / "tune.sqlite"
        tune.write_bytes(tune_db.read_bytes())
        for path in (history, tune):
            path.chmod(0o644)
        ran = _as_nobody("events", "--db", str(history))
        assert ran.returncode == EXIT_OK and "pfc_storm" in ran.stdout, ran.stderr
        ran = _as_nobody("tune", "report", "--db", str(tune))
        assert ran.returncode == EXIT_OK and "as found" in ran.stdout, ran.stderr
        base.chmod(0o700)
        ran = _as_nobody("events", "--db", str(history))
        assert ran.returncode == EXIT_INPUT
        assert f"{history}: the history database cannot be reached: Permission denied" in ran.stderr, ran.stderr
        ran = _as_nobody("tune", "report", "--db", str(tune))
        assert ran.returncode == EXIT_INPUT
        assert f"{tune}: the tune database cannot be reached: Permission denied" in ran.stderr, ran.stderr
    finally:
        shutil.rmtree(base)
