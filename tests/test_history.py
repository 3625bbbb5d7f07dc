"""The history store on real SQLite files: downsampling, events, findings, retention, a locked or full
database, kill -9 of a writer, and the `events` / `history` commands with their plots."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from losslessd.cli.history import events as events_cmd
from losslessd.cli.history import history as history_cmd
from losslessd.errors import InputError
from losslessd.history import _MIGRATIONS, SCHEMA_VERSION, WAL_KEEP_PAGES, History, RetentionClock
from losslessd.lint.finding import Finding, Severity
from losslessd.monitor import CNP_SENT, ECN_MARKED, PFC_RX, PFC_TX, TX_PACKETS, Event, Key, Rates
from tests.clirun import losslessd
from tests.hostile import edited_db, flipped_db

ROOT = Path(__file__).resolve().parent.parent


def rates(t: float, interval: float, values: dict[Key, float], device: str = "leaf1") -> Rates:
    return Rates(device=device, time_unix_s=t, interval_s=interval,
                 deltas={k: round(v * interval) for k, v in values.items()}, per_s=values)


def storm(port: str = "Ethernet8", start: float = 1000.0, **kw) -> Event:
    return Event(kind="pfc_storm", device=kw.pop("device", "leaf1"), port=port, priority=kw.pop("priority", 3),
                 start_unix_s=start, message=f"{port} paused and not draining", numbers={"pfc_rx_per_s": 812.5}, **kw)


# -- downsampling -------------------------------------------------------------------------------------

def test_bucket_mean_is_weighted_by_interval_and_peak_is_the_highest_poll(tmp_path):
    h = History(tmp_path / "h.db", resolution_s=60)
    e8 = "Ethernet8"
    h.record_rates(rates(125, 10, {Key(e8, PFC_RX, 3): 5.0, Key(e8, ECN_MARKED, 3): 0.0}))
    h.record_rates(rates(150, 30, {Key(e8, PFC_RX, 3): 1.0, Key(e8, PFC_RX, 4): 2.0, Key(e8, ECN_MARKED, 3): 0.0}))
    h.record_rates(rates(185, 10, {Key(e8, PFC_RX, 3): 0.0, Key(e8, ECN_MARKED, 3): 4.0}))
    # Priority 3 in bucket 120: (5*10 + 1*30) / 40 s = 2.0/s, not the 3.0 of averaging the two polls.
    assert h.series("leaf1", e8, [PFC_RX, ECN_MARKED], index=3) == [
        (120.0, ECN_MARKED, 0.0), (120.0, PFC_RX, 2.0), (180.0, ECN_MARKED, 4.0), (180.0, PFC_RX, 0.0)]
    # All priorities: (50 + 30 + 60) / 40 = 3.5/s; the peak is the busiest poll of any priority.
    assert h.series("leaf1", e8, [PFC_RX]) == [(120.0, PFC_RX, 3.5), (180.0, PFC_RX, 0.0)]
    assert h.series("leaf1", e8, [PFC_RX], stat="max") == [(120.0, PFC_RX, 5.0), (180.0, PFC_RX, 0.0)]
    assert h.series("leaf1", e8, [PFC_RX], since=150) == [(180.0, PFC_RX, 0.0)]
    assert h.series("leaf1", "Ethernet9", [PFC_RX]) == []  # never recorded: unknown, not quiet
    assert h.series("spine1", e8, [PFC_RX]) == []


def test_only_moving_lossless_counters_are_stored(tmp_path):
    """Zero buckets cost a coverage row per device, not a row per port; octets/tx packets stay out."""
    h = History(tmp_path / "h.db", resolution_s=60)
    quiet = {Key(f"Ethernet{4 * i}", PFC_RX, p): 0.0 for i in range(64) for p in (3, 4)}
    busy = {Key(f"Ethernet{4 * i}", TX_PACKETS, 0): 1e6 for i in range(64)}
    for t in range(0, 600, 10):
        h.record_rates(rates(t, 10, quiet | busy))
    db = sqlite3.connect(tmp_path / "h.db")
    assert db.execute("SELECT count(*) FROM samples").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM coverage").fetchone()[0] == 10  # 10 buckets x pfc_rx
    assert h.series("leaf1", "Ethernet252", [PFC_RX, TX_PACKETS], index=4) == [
        (60.0 * b, PFC_RX, 0.0) for b in range(10)]


def test_per_port_counters_show_under_any_priority(tmp_path):
    """A NIC counts CNPs per port: asking for priority 3 still shows them; a reset poll adds nothing."""
    h = History(tmp_path / "h.db", resolution_s=60)
    nic = "enp65s0f0np0"
    h.record_rates(rates(10, 10, {Key(nic, CNP_SENT): 40.0, Key(nic, PFC_TX, 3): 2.0}, device="gpu01"))
    h.record_rates(Rates("gpu01", 20, 10, {}, {}, reset=True))
    assert h.series("gpu01", nic, [CNP_SENT, PFC_TX], index=3) == [(0.0, CNP_SENT, 40.0), (0.0, PFC_TX, 2.0)]
    assert h.series("gpu01", nic, [PFC_TX], index=4) == [(0.0, PFC_TX, 0.0)]


def test_a_storm_across_a_clear_is_unknown_for_that_port_not_quiet(tmp_path):
    """Someone cleared Ethernet8's PFC counters mid-storm: that poll's interval is unknown for Ethernet8's
    pfc_rx (every priority of it), while Ethernet12, polled at the same time, was really quiet. Coverage was
    per device and name, so the bucket read as 0 pauses/s on Ethernet8: a storm across a clear read as quiet."""
    h = History(tmp_path / "h.db", resolution_s=60)
    e8, e12 = "Ethernet8", "Ethernet12"
    storming = {Key(e8, PFC_RX, 3): 6000.0, Key(e8, PFC_RX, 4): 2.0, Key(e12, PFC_RX, 3): 0.0}
    h.record_rates(rates(10, 10, storming))
    h.record_rates(rates(20, 10, storming))
    cleared = Rates("leaf1", 70, 10, {Key(e12, PFC_RX, 3): 0, Key(e8, PFC_RX, 4): 20},
                    {Key(e12, PFC_RX, 3): 0.0, Key(e8, PFC_RX, 4): 2.0}, cleared=frozenset({Key(e8, PFC_RX, 3)}))
    h.record_rates(cleared)  # bucket 60: the clear's poll alone
    h.record_rates(rates(130, 10, storming))
    h.record_rates(dataclasses.replace(cleared, time_unix_s=140.0))  # bucket 120: a storm poll, then a clear
    for index in (3, 4, None):
        assert h.series("leaf1", e8, [PFC_RX], index=index) == [
            (0.0, PFC_RX, {3: 6000.0, 4: 2.0, None: 6002.0}[index]),
            (120.0, PFC_RX, {3: 6000.0, 4: 2.0, None: 6002.0}[index])]  # the clear's poll counts neither way
    assert h.series("leaf1", e8, [PFC_RX], index=3, stat="max") == [(0.0, PFC_RX, 6000.0), (120.0, PFC_RX, 6000.0)]
    assert h.series("leaf1", e12, [PFC_RX], index=3) == [(0.0, PFC_RX, 0.0), (60.0, PFC_RX, 0.0), (120.0, PFC_RX, 0.0)]


def test_a_port_missing_from_a_poll_is_unknown_there(tmp_path):
    """A poll that served Ethernet12 but not Ethernet8 (Rates.absent) covers Ethernet12 alone."""
    h = History(tmp_path / "h.db", resolution_s=60)
    h.record_rates(rates(10, 10, {Key("Ethernet8", PFC_RX, 3): 50.0, Key("Ethernet12", PFC_RX, 3): 1.0}))
    h.record_rates(Rates("leaf1", 70, 10, {Key("Ethernet12", PFC_RX, 3): 10}, {Key("Ethernet12", PFC_RX, 3): 1.0},
                         absent=frozenset({Key("Ethernet8", PFC_RX, 3)})))
    assert h.series("leaf1", "Ethernet8", [PFC_RX], index=3) == [(0.0, PFC_RX, 50.0)]
    assert h.series("leaf1", "Ethernet12", [PFC_RX], index=3) == [(0.0, PFC_RX, 1.0), (60.0, PFC_RX, 1.0)]


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> History:
    return History(tmp_path_factory.mktemp("prop") / "h.db", resolution_s=3600)


@settings(max_examples=100, deadline=None)
@given(polls=st.lists(st.tuples(st.floats(0.5, 30), st.floats(0, 1e6)), min_size=1, max_size=8))
def test_downsampled_mean_and_peak_property(shared, polls):
    device = f"leaf{next(_examples)}"
    for i, (interval, per_s) in enumerate(polls):
        shared.record_rates(rates(7200.0 + i, interval, {Key("Ethernet0", PFC_RX, 3): per_s}, device=device))
    means = shared.series(device, "Ethernet0", [PFC_RX])
    peaks = shared.series(device, "Ethernet0", [PFC_RX], stat="max")
    expected = sum(i * r for i, r in polls) / sum(i for i, _ in polls)
    assert [(b, n) for b, n, _ in means] == [(7200.0, PFC_RX)]
    assert math.isclose(means[0][2], expected, rel_tol=1e-9, abs_tol=1e-9)
    assert peaks[0][2] == max(r for _, r in polls)


_examples = itertools.count()


# -- events and findings ------------------------------------------------------------------------------

def test_event_upsert_keeps_one_row_with_its_latest_state(tmp_path):
    h = History(tmp_path / "h.db")
    event = storm()
    h.record_event(event)
    event.numbers["pfc_rx_per_s"] = 990.0
    h.record_event(event)
    event.end_unix_s = 1300.0
    h.record_event(event)
    h.record_event(storm("Ethernet12", start=2000.0))
    h.record_event(Event("device_down", "spine1", None, None, 1500.0, "no answer", basis="poll"))
    stored = h.events()
    assert [e.id for e in stored] == [event.id, stored[1].id, stored[2].id] and len(stored) == 3
    assert stored[0] == event  # every field round-trips, so the id does too
    assert [e.port for e in h.events(open_only=True)] == [None, "Ethernet12"]
    assert [e.kind for e in h.events(device="spine1")] == ["device_down"]
    assert [e.port for e in h.events(kind="pfc_storm")] == ["Ethernet8", "Ethernet12"]
    # Overlap: an event ended before `since` is out; one still open is in; one starting after `until` is out.
    assert [e.port for e in h.events(kind="pfc_storm", since=1400)] == ["Ethernet12"]
    assert [e.port for e in h.events(kind="pfc_storm", since=1200, until=1900)] == ["Ethernet8"]


def test_findings_per_drift_run(tmp_path):
    h = History(tmp_path / "h.db")
    pfc = Finding(code="PFC002", name="pfc-on-lossy", severity=Severity.error, message="PFC on lossy priority 4",
                  device="leaf1", port="Ethernet8", key="4")
    wdg = Finding(code="WDG001", name="no-watchdog", severity=Severity.warning, message="no PFC watchdog",
                  device="leaf1", port="Ethernet12")
    h.record_findings("leaf1", 100.0, [pfc, wdg])
    h.record_findings("leaf1", 200.0, [pfc])
    h.record_findings("spine1", 200.0, [])
    h.record_findings("leaf1", 200.0, [pfc])  # the same run again replaces, never duplicates
    assert [(f.time_unix_s, f.code) for f in h.findings("leaf1")] == [(100.0, "PFC002"), (100.0, "WDG001"),
                                                                        (200.0, "PFC002")]
    latest = h.findings(latest=True)
    assert [(f.device, f.code, f.severity, f.port) for f in latest] == [("leaf1", "PFC002", "error", "Ethernet8")]
    assert latest[0].fingerprint == pfc.fingerprint
    assert h.findings(since=150) == latest


def test_retention_prunes_old_rows_but_not_open_events(tmp_path):
    day = 86400
    h = History(tmp_path / "h.db", resolution_s=60, retention_s=7 * day)
    for t in (1 * day, 9 * day):
        h.record_rates(rates(t, 10, {Key("Ethernet8", PFC_RX, 3): 7.0}))
    h.record_event(storm(start=1 * day, end_unix_s=1 * day + 60))
    h.record_event(storm("Ethernet12", start=1 * day))  # still open: kept whatever its age
    h.record_event(storm("Ethernet16", start=8 * day, end_unix_s=8 * day + 60))
    h.record_findings("leaf1", 1 * day, [])
    assert h.prune(now=10 * day) == 4  # 1 samples + 1 coverage + 1 event + 1 drift run
    assert [e.port for e in h.events()] == ["Ethernet12", "Ethernet16"]
    assert [b for b, _, _ in h.series("leaf1", "Ethernet8", [PFC_RX])] == [9 * day]
    assert h.prune(now=10 * day) == 0


def test_a_retention_shorter_than_a_bucket_deletes_the_bucket_being_filled(tmp_path):
    """Why the settings refuse it (test_daemon_settings.py): a bucket is stored at its start, so a retention shorter
    than the resolution prunes the bucket the daemon is filling."""
    day = 86400
    h = History(tmp_path / "h.db", resolution_s=3600, retention_s=8.64)
    t = 10 * day + 1800
    h.record_rates(rates(t, 10, {Key("Ethernet8", PFC_RX, 3): 7.0}))
    assert h.prune(now=t + 1) == 2  # the sample and its coverage row, a second after they were written
    assert h.series("leaf1", "Ethernet8", [PFC_RX]) == []


def test_the_write_ahead_log_a_large_prune_grew_is_cut_back_at_the_next_commit(tmp_path):
    """Disk bounded over weeks: SQLite reuses a -wal from its start but never shrinks it, so one hourly prune of a large
    fabric left a log bigger than the history itself on disk for the daemon's life."""
    day, keep = 86400, WAL_KEEP_PAGES * 4096  # (4096: SQLite's default page size, the one a new history gets)
    h = History(tmp_path / "h.db", resolution_s=60, retention_s=day, flush_on_record=False)
    ports = [Key(f"Ethernet{p}", PFC_RX, 3) for p in range(0, 256, 4)]
    for t in range(0, 2 * 3600, 60):
        for dev in range(10):
            h.record_rates(rates(t, 10, dict.fromkeys(ports, 7.0), device=f"leaf{dev}"))
    assert h.flush()
    assert h.prune(now=2 * 3600 + day) > 70_000
    wal = tmp_path / "h.db-wal"
    assert wal.stat().st_size > keep  # (the prune's own transaction: the log it needs while it runs)
    h.record_rates(rates(2 * day, 10, {ports[0]: 7.0}, device="leaf0"))
    assert h.flush()
    assert wal.stat().st_size <= keep
    assert [b for b, _, _ in h.series("leaf0", "Ethernet0", [PFC_RX])] == [2 * day]
    h.close()


class _Clocks:
    """A wall clock and a monotonic one that a test moves."""

    def __init__(self, wall: float):
        self.wall_s, self.mono_s = wall, 500.0

    def pass_s(self, seconds: float) -> None:
        self.wall_s += seconds
        self.mono_s += seconds


def test_retention_counts_the_time_that_passed_not_a_clock_set_ahead():
    day, c = 86400.0, _Clocks(wall=100 * 86400.0)
    clock = RetentionClock(99 * day, 30 * day, wall=lambda: c.wall_s, mono=lambda: c.mono_s)
    assert not clock.distrusted and clock.now() == 100 * day
    c.pass_s(3600)
    assert clock.now() == 100 * day + 3600 and clock.stepped_s() == 0
    c.wall_s += 10 * 365 * day  # stepped ahead ten years while running: prune(now()) keeps what a day's prune would
    assert clock.now() == 100 * day + 3600 and clock.stepped_s() == 10 * 365 * day
    c.wall_s -= 20 * 365 * day  # and back, past where it was: retention deletes less, never more
    assert clock.now() == c.wall_s


def test_a_clock_past_the_newest_row_by_more_than_the_retention_is_not_trusted_at_the_opening():
    """Rows of up to 99 days, the clock at 10 years (a wrong RTC at boot): every row would go in one prune."""
    day, c = 86400.0, _Clocks(wall=3650 * 86400.0)
    clock = RetentionClock(99 * day, 30 * day, wall=lambda: c.wall_s, mono=lambda: c.mono_s)
    assert clock.distrusted and clock.ahead_s == (3650 - 99) * day
    assert clock.now() == 99 * day  # retention counts from the newest row
    c.pass_s(day)
    assert clock.now() == 100 * day
    assert RetentionClock(None, 30 * day, wall=lambda: c.wall_s, mono=lambda: c.mono_s).now() == c.wall_s  # empty


def test_a_clock_behind_the_newest_row_at_the_opening_is_followed_once_it_is_put_right():
    """A host without RTC boots at 1970 with rows of yesterday; NTP corrects the clock an hour later. Retention then
    counts from the corrected clock, and no step is reported (it counted from 1970 until a restart, and warned)."""
    day, c = 86400.0, _Clocks(wall=3600.0)
    clock = RetentionClock(100 * day, 30 * day, wall=lambda: c.wall_s, mono=lambda: c.mono_s)
    assert not clock.distrusted and clock.now() == 3600  # behind the rows: prune deletes nothing meanwhile
    c.pass_s(3600)
    c.wall_s = 100 * day + 3600  # NTP steps it to the real time
    assert clock.now() == 100 * day + 3600 and clock.stepped_s() == 0
    c.pass_s(31 * day)
    assert clock.now() == 131 * day + 3600 and clock.stepped_s() == 0


def test_the_writer_prunes_by_its_retention_clock_and_keeps_a_history_the_clock_is_years_past(tmp_path):
    """Rows written until a day before the clock was set ten years ahead (the daemon prunes at history.clock.now()):
    none goes, but what is older than the retention before the newest row; once the file holds rows of the clock's
    time (the clock is right, or was put right by hand), retention counts from it."""
    day = 86400.0
    then = time.time() - 10 * 365 * day
    h = History(tmp_path / "h.db", resolution_s=60, retention_s=30 * day)
    for age_days in (45, 20, 1):
        h.record_rates(rates(then - age_days * day, 10, {Key("Ethernet8", PFC_RX, 3): 7.0}))
    h.record_event(storm(start=then - 2 * day, end_unix_s=then - 2 * day + 60))
    h.close()
    h = History(tmp_path / "h.db", resolution_s=60, retention_s=30 * day)
    assert h.clock.distrusted and h.prune(h.clock.now()) == 2  # the 45-day-old bucket (samples, coverage) only
    assert [b for b, _, _ in h.series("leaf1", "Ethernet8", [PFC_RX])] == [
        rates(then - age * day, 10, {}).time_unix_s // 60 * 60 for age in (20, 1)]
    h.record_rates(rates(time.time(), 10, {Key("Ethernet8", PFC_RX, 3): 7.0}))
    h.close()
    h = History(tmp_path / "h.db", resolution_s=60, retention_s=30 * day)
    assert not h.clock.distrusted and h.prune(h.clock.now()) == 5  # two buckets (samples, coverage), the event


# -- faults -------------------------------------------------------------------------------------------

def test_locked_database_keeps_the_backlog_and_writes_it_later(tmp_path):
    path = tmp_path / "h.db"
    h = History(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another writer holds the lock
    h.record_event(storm())
    h.record_rates(rates(60, 10, {Key("Ethernet8", PFC_RX, 3): 3.0}))  # no exception either
    assert "locked" in h.last_error and h.backlog == 2
    assert h.flush() is False and h.backlog == 2
    other.execute("COMMIT")
    assert History(path, create=False).events() == []  # nothing half-written meanwhile
    assert h.flush() is True
    assert h.last_error is None and h.backlog == 0
    reader = History(path, create=False)
    assert reader.events() == [storm()]
    assert reader.series("leaf1", "Ethernet8", [PFC_RX]) == [(60.0, PFC_RX, 3.0)]


def test_recording_never_waits_for_a_commit_in_progress(tmp_path):
    """The daemon records on its event loop and commits from a worker thread (flush_on_record=False)."""
    h = History(tmp_path / "h.db", flush_on_record=False)
    h.record_event(storm("Ethernet0"))
    assert History(tmp_path / "h.db", create=False).events() == []  # nothing committed before flush()
    with h._lock:  # what a flush in the worker thread holds while it commits
        recorder = threading.Thread(target=h.record_event, args=(storm("Ethernet4"),))
        recorder.start()
        recorder.join(5)
        assert not recorder.is_alive() and h.backlog == 2
    assert h.flush() and h.backlog == 0
    assert {e.port for e in History(tmp_path / "h.db", create=False).events()} == {"Ethernet0", "Ethernet4"}


def test_backlog_is_bounded_and_counts_what_it_dropped(tmp_path):
    path = tmp_path / "h.db"
    h = History(path, max_backlog=3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    for i in range(5):
        h.record_event(storm(f"Ethernet{i}"))
    assert (h.backlog, h.dropped) == (3, 2)
    other.execute("COMMIT")
    assert h.flush()
    assert {e.port for e in h.events()} == {"Ethernet2", "Ethernet3", "Ethernet4"}  # the newest are kept


def test_full_disk_keeps_the_backlog_until_pruning_makes_room(tmp_path):
    """max_bytes sets PRAGMA max_page_count: SQLite then answers "database or disk is full" like a full disk."""
    h = History(tmp_path / "h.db", resolution_s=1, retention_s=60, max_bytes=128 * 1024)
    ports = [f"Ethernet{4 * i}" for i in range(32)]
    t = 0
    while h.last_error is None:
        h.record_rates(rates(t, 1, {Key(p, PFC_RX, 3): 1.0 + t for p in ports}))
        t += 1
        assert t < 10_000, "the size cap never bit"
    assert "full" in h.last_error and h.backlog == 1
    h.record_event(storm(start=t))
    assert h.backlog == 2  # waits (retry later), nothing raised
    assert h.prune(now=t + 50) > 0  # buckets before t - 10 go, the freed pages take the backlog
    assert h.last_error is None and h.backlog == 0
    assert h.events() == [storm(start=t)]
    assert h.series("leaf1", "Ethernet0", [PFC_RX], since=t - 1)[-1] == (t - 1, PFC_RX, float(t))


_FULL_DISK = """
import json, resource, sys
from losslessd.history import History
from losslessd.monitor import Key, Rates
h = History(sys.argv[1], resolution_s=1, retention_s=20)
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))  # (Python ignores SIGXFSZ: writes fail, EFBIG)
ports = [f"Ethernet{4 * i}" for i in range(32)]
failed = 0
for t in range(1500):
    h.record_rates(Rates("leaf1", float(t), 1.0, {}, {Key(p, "pfc_rx", 3): 1.0 + t for p in ports}))
    if h.last_error:
        failed += 1
        h.prune(float(t))  # (the daemon prunes hourly: here at once)
print(json.dumps({"failed": failed, "backlog": h.backlog, "dropped": h.dropped, "error": h.last_error,
                  "buckets": len(h.series("leaf1", "Ethernet0", ["pfc_rx"]))}))
"""


@pytest.mark.slow  # (a child process under a file size limit)
def test_a_disk_the_write_ahead_log_filled_rolls_with_the_retention(tmp_path):
    """A file size limit (a full disk) reached by the write-ahead log: every commit failed, the prune's too (it writes
    to the log), and the backlog only grew. A failed commit now empties the log into the database, so the prune makes
    room and the rows of the retention keep being written."""
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK, str(tmp_path / "h.db")], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert found["failed"] > 0  # the limit bit
    assert (found["backlog"], found["dropped"], found["error"]) == (0, 0, None)
    assert 20 <= found["buckets"] <= 25  # the retention's 20 s, and those written since the last prune


_WRITER = """
import sys
from losslessd.history import History
from losslessd.monitor import Event, Key, Rates
h = History(sys.argv[1], resolution_s=1)
i = 0
while True:
    h.record_rates(Rates("leaf1", 1000.0 + i, 1.0, {}, {Key(f"Ethernet{p}", "pfc_rx", 3): 9.0 for p in range(64)}))
    h.record_event(Event("pfc_storm", "leaf1", f"Ethernet{i}", 3, 1000.0 + i, "storm"))
    if h.backlog == 0:
        print(i, flush=True)
    i += 1
"""


@pytest.mark.slow
def test_kill_9_mid_writing_keeps_every_committed_event(tmp_path):
    path = tmp_path / "h.db"
    child = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        committed = -1
        while committed < 200:
            line = child.stdout.readline()
            assert line, f"the writer died on its own (rc {child.poll()})"
            committed = int(line)
    finally:
        child.kill()  # SIGKILL: no close, no checkpoint
        child.wait()
    h = History(path)  # the daemon restarting on the same file
    ports = {e.port for e in h.events()}
    assert {f"Ethernet{i}" for i in range(committed + 1)} <= ports
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    h.record_event(storm(start=5.0))  # and it keeps writing
    assert h.backlog == 0 and storm(start=5.0) in h.events()


def test_files_that_are_not_our_history_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no history database"):
        History(tmp_path / "missing.db", create=False)
    with pytest.raises(InputError, match="a folder, not a history database file"):  # it said "no history here"
        History(tmp_path, create=False)
    text = tmp_path / "notes.db"
    text.write_text("hello, not SQLite\n" * 100)
    with pytest.raises(InputError, match="not a database"):
        History(text)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match="not a losslessd history"):
        History(other)
    newer = tmp_path / "newer.db"
    History(newer).close()
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(InputError, match="newer"):
        History(newer, create=False)
    with pytest.raises(InputError, match=r"h\.db: cannot make its lock file .*/dir/\.h\.db\.lock: No such file"):
        History(tmp_path / "no" / "such" / "dir" / "h.db")  # (its lock is taken before it is opened: statelock)


def test_reopening_keeps_the_schema_and_wal_mode(tmp_path):
    path = tmp_path / "h.db"
    h = History(path)
    h.record_event(storm())
    h.close()
    again = History(path)
    assert again.events() == [storm()]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_a_first_schema_file_is_migrated_and_keeps_its_events_and_a_proposal_is_stored(tmp_path):
    """A history written before events carried the tuner's proposal: opened, migrated in place, its
    events read back without one; an ecn_not_marking event's proposal is stored and read back whole."""
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(f"BEGIN;{_MIGRATIONS[0]}PRAGMA user_version = 1;COMMIT;")
    e = storm()
    old.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (e.id, e.kind, e.device, e.port, e.priority, e.start_unix_s, None, e.severity, e.basis, None,
                 e.message, json.dumps(e.numbers)))
    old.execute("INSERT INTO ports VALUES ('leaf1', 'Ethernet8')")
    old.execute("INSERT INTO coverage VALUES ('leaf1', 60.0, 'pfc_rx', 10.0)")
    old.close()
    reader = History(path, create=False)  # `losslessd events` reads it as it is, without migrating it
    assert reader.events() == [e]
    assert reader.series("leaf1", "Ethernet8", [PFC_RX]) == [(60.0, PFC_RX, 0.0)]  # no gaps table yet: none
    reader.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (1,)
    h = History(path)
    assert h.events() == [e]
    proposal = {"platform": "sonic", "port": "Ethernet8", "kmin_bytes": 102400, "snippet": '{"QUEUE": {}}',
                "applied": False}
    ecn = Event(kind="ecn_not_marking", device="leaf1", port="Ethernet8", priority=3, start_unix_s=1100.0,
                message="pauses without marks", proposal=proposal)
    h.record_event(ecn)
    h.close()
    again = History(path, create=False)
    assert again.events(kind="ecn_not_marking") == [ecn] and again.events(kind="pfc_storm")[0].proposal is None
    assert again.series("leaf1", "Ethernet8", [PFC_RX]) == [(60.0, PFC_RX, 0.0)]  # migrated: an empty gaps table
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_a_second_schema_file_with_what_older_writers_stored_reads_and_migrates(tmp_path):
    """The row checks refuse nothing an older losslessd wrote: a schema 2 file (no gaps table), rows as the
    writers of that schema inserted them (a drift event's Infinity/NaN numbers, a device_down with none, a clean
    drift run, a peak rate) reads with the CLI as it is, and the daemon's writer migrates it."""
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(f"BEGIN;{''.join(_MIGRATIONS[:2])}PRAGMA user_version = 2;COMMIT;")
    now = time.time()
    drift = Event("finding_new", "leaf_01", None, None, now - 90, "WDG001 appeared", numbers={
        "margin": math.inf, "ratio": math.nan}, basis="lint", code="WDG001")
    down = Event("device_down", "spine-1.example.net", None, None, now - 30, "no answer", "error", basis="poll")
    for e in (storm(start=now - 600), drift, down):
        old.execute("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (e.id, e.kind, e.device, e.port, e.priority, e.start_unix_s, e.end_unix_s, e.severity, e.basis,
                     e.code, e.message, json.dumps(e.numbers), None))
    bucket = float(int(now - 120) // 60 * 60)
    old.execute("INSERT INTO samples VALUES ('leaf1', 'Ethernet8', ?, 'pfc_rx', 3, 600.0, 25.0)", (bucket,))
    old.execute("INSERT INTO coverage VALUES ('leaf1', ?, 'pfc_rx', 60.0)", (bucket,))
    old.execute("INSERT INTO ports VALUES ('leaf1', 'Ethernet8')")
    old.execute("INSERT INTO drift_runs VALUES ('leaf_01', ?, 1)", (now - 90,))
    old.execute("INSERT INTO findings VALUES ('leaf_01', ?, 'WDG001', 'warning', 'Ethernet0', 'no watchdog', 'f1')",
                (now - 90,))
    old.execute("INSERT INTO drift_runs VALUES ('leaf_01', ?, 0)", (now - 60,))
    old.close()
    res = invoke("events", "--db", path, "-f", "json")
    assert res.exit_code == 0, res.output
    assert [e["kind"] for e in json.loads(res.output)["events"]] == ["pfc_storm", "finding_new", "device_down"]
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet8", "--since", "1h")
    assert res.exit_code == 0, res.output
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (2,)  # read as it is
    h = History(path)
    assert h.events(kind="finding_new")[0].numbers["margin"] == math.inf
    assert [f.code for f in h.findings()] == ["WDG001"]
    h.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


# -- the commands -------------------------------------------------------------------------------------

cli = typer.Typer()
cli.command("events")(events_cmd)
cli.command("history")(history_cmd)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture()
def recorded(tmp_path) -> Path:
    """An hour of leaf1 Ethernet8: pauses climbing, ECN marks flat at zero, a storm over the last 10 min."""
    path = tmp_path / "losslessd.db"
    h = History(path, resolution_s=60)
    now = time.time()
    start = now - 3600
    for i in range(60):
        h.record_rates(rates(start + 60 * i, 60, {Key("Ethernet8", PFC_RX, 3): 10.0 * i,
                                                  Key("Ethernet8", ECN_MARKED, 3): 0.0}))
    h.record_event(storm(start=now - 600, end_unix_s=now - 60))
    h.record_event(Event("device_down", "spine1", None, None, now - 30, "no answer", basis="poll"))
    h.record_queue_maps("leaf1", {"Ethernet8": {3: [3]}}, start)
    h.close()
    return path


def test_events_command_text_and_json(recorded):
    res = invoke("events", "--db", recorded)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert len(lines) == 2 and "pfc_storm" in lines[0] and "leaf1 Ethernet8 priority 3" in lines[0]
    assert "-> open" in lines[1] and "device_down" in lines[1]
    res = invoke("events", "--db", recorded, "--open", "-f", "json")
    (event,) = json.loads(res.output)["events"]
    assert (event["kind"], event["device"], event["end"]) == ("device_down", "spine1", None)
    assert json.loads(invoke("events", "--db", recorded, "--kind", "pfc_storm", "--since", "5m",
                             "-f", "json").output)["events"][0]["numbers"] == {"pfc_rx_per_s": 812.5}
    assert invoke("events", "--db", recorded, "--since", "2000-01-01T00:00", "--until", "2000-01-02").output == \
        "no events\n"


def test_history_command_rows_and_plots(recorded, tmp_path):
    res = invoke("history", "--db", recorded, "--device", "leaf1", "--port", "Ethernet8", "--priority", "3",
                 "-f", "json", "--since", "2h")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert len(doc["rows"]) == 60 and doc["queue"] == 3
    assert doc["rows"][-1]["per_s"][PFC_RX] == {"mean": 590.0, "max": 590.0}
    assert doc["rows"][-1]["per_s"][ECN_MARKED] == {"mean": 0.0, "max": 0.0}
    png, page = tmp_path / "e8.png", tmp_path / "e8.html"
    res = invoke("history", "--db", recorded, "--device", "leaf1", "--port", "Ethernet8", "--plot", png)
    assert res.exit_code == 0 and res.stdout.startswith("leaf1 Ethernet8 priority 3: mean/peak per second\n")
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    assert int.from_bytes(data[16:20], "big") == 1000  # IHDR width: 10 in x 100 dpi
    invoke("history", "--db", recorded, "--device", "leaf1", "--port", "Ethernet8", "--plot", page)
    html = page.read_text()
    assert "data:image/png;base64,iVBORw0KGgo" in html  # the PNG signature, base64
    assert html.count("<tr>") == 61 and "590/590" in html


def test_history_without_a_priority_shows_each_priority_with_its_own_mean_and_peak(tmp_path):
    """Two lossless priorities pausing at 100/s each: a sum over them would show a mean of 200 beside a
    peak of 100 (each priority's own highest poll); each priority on its own never puts the mean above the peak."""
    path = tmp_path / "losslessd.db"
    h = History(path, resolution_s=60)
    start = time.time() - 600
    for i in range(5):
        h.record_rates(rates(start + 10 * i, 10, {Key("Ethernet0", PFC_RX, 3): 100.0, Key("Ethernet0", PFC_RX, 4): 100.0,
                                                  Key("Ethernet0", ECN_MARKED, 3): 7.0}))
    h.record_queue_maps("leaf1", {"Ethernet0": {3: [3], 4: [4]}}, start)
    h.close()
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet0", "--since", "1h")
    assert res.exit_code == 0, res.output
    blocks = [block.splitlines() for block in res.stdout.split("\n\n")]
    assert [b[0] for b in blocks] == ["leaf1 Ethernet0 priority 3: mean/peak per second",
                                      "leaf1 Ethernet0 priority 4: mean/peak per second"]
    assert all(line.split()[1:] == ["100/100", "7/7"] for line in blocks[0][2:])  # queue 3 marks beside priority 3
    assert all(line.split()[1:] == ["100/100", "0/0"] for line in blocks[1][2:])  # queue 4 polled, no marks
    doc = json.loads(invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet0", "--since", "1h",
                            "-f", "json").stdout)
    assert [(b["priority"], b["queue"]) for b in doc["priorities"]] == [(3, 3), (4, 4)]
    for block in doc["priorities"]:
        for row in block["rows"]:
            assert all(stat["mean"] <= stat["max"] for stat in row["per_s"].values())


def test_history_shows_the_ecn_marks_of_the_queue_the_stored_maps_put_the_priority_on(tmp_path):
    """TC 3 on queue 4 (as the daemon read leaf1's TC_TO_QUEUE_MAP): priority 3's ECN marks are queue 4's, without
    --queue. It showed queue 3's (numbered like the priority: 0 marks here). Maps that do not say (none stored, a
    priority on no known queue, several queues) leave the marks out and say why on stderr, not queue 3's as
    priority 3's; --queue still picks one; a port whose marks are per port (a NIC's) needs no queue."""
    path = tmp_path / "losslessd.db"
    h = History(path, resolution_s=60)
    start = time.time() - 600
    for i in range(5):
        h.record_rates(rates(start + 10 * i, 10, {
            Key("Ethernet0", PFC_RX, 3): 100.0, Key("Ethernet0", ECN_MARKED, 4): 7.0,
            Key("Ethernet0", ECN_MARKED, 3): 0.0,
            Key("Ethernet4", PFC_RX, 3): 100.0, Key("Ethernet4", ECN_MARKED, 3): 5.0,
            Key("eth0", PFC_RX, 3): 50.0, Key("eth0", ECN_MARKED): 3.0}))
    h.close()

    def shown(port: str, *extra) -> tuple[int, object, str]:
        res = invoke("history", "--db", path, "--device", "leaf1", "--port", port, "--priority", "3", "--since", "1h",
                     "-f", "json", *extra)
        doc = json.loads(res.stdout) if res.exit_code == 0 else {}
        marks = {r["per_s"].get(ECN_MARKED, {}).get("max") for r in doc.get("rows", [])}
        return doc.get("queue"), marks, res.stderr

    assert shown("Ethernet0") == (None, {None}, "losslessd: note: ECN marks and drops of leaf1 Ethernet0 priority 3 "
                                  "not shown: the history holds no queue maps of leaf1 (the daemon has not read its "
                                  "config); give --queue\n")
    assert shown("Ethernet0", "--queue", "4")[:2] == (4, {7.0})
    assert shown("eth0")[:2] == (3, {3.0})  # per-port marks: no map needed
    h = History(path, resolution_s=60)
    h.record_queue_maps("leaf1", {"Ethernet0": {3: [4], 4: [3]}, "Ethernet4": {3: [3, 4]}}, start)
    h.close()
    assert shown("Ethernet0") == (4, {7.0}, "")
    assert "priority 3 goes to queues 3, 4; give --queue" in shown("Ethernet4")[2]
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet0", "--since", "1h")
    assert res.stdout.startswith("leaf1 Ethernet0 priority 3, queue 4: mean/peak per second\n"), res.stdout
    h = History(path, resolution_s=60)
    h.record_queue_maps("leaf1", {"Ethernet4": {4: [4]}}, start)  # read again: Ethernet0's maps are gone
    h.close()
    assert "its maps as read do not say which egress queue carries priority 3" in shown("Ethernet0")[2]


# 2026-09-21T14:13:20Z: leaf1 Ethernet0's priority 3 pauses at 100/s for two hours, its ECN marks
# on queue 3 for the first and on queue 4 for the second (TC 3 moved to queue 4; the daemon read it 30 s after).
T0 = 1_790_000_000.0
SCHEMA5 = ROOT / "tests" / "fixtures" / "history" / "schema5.db"  # the same, written by the schema-5 History


def moved_queue(h: History) -> None:
    for i in range(120):
        values = {Key("Ethernet0", PFC_RX, 3): 100.0, Key("Ethernet0", ECN_MARKED, 3 if i < 60 else 4): 7.0}
        h.record_rates(rates(T0 + 60 * (i + 1) - 1, 60, values))
        if i == 0:
            h.record_queue_maps("leaf1", {"Ethernet0": {3: [3], 4: [4]}}, T0 + 30)
        if i == 60:
            h.record_queue_maps("leaf1", {"Ethernet0": {3: [4], 4: [3]}}, T0 + 3600 + 30)


def marks_by_hour(path: Path, *extra) -> tuple[dict, object, str]:
    """Priority 3's ECN marks (peaks) in each hour of moved_queue, the JSON's queue and stderr."""
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet0", "--priority", "3", "-f", "json",
                 "--since", "2026-09-21T00:00Z", "--until", "2026-09-22T00:00Z", *extra)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    hours: dict[int, set] = {}
    for row in doc["rows"]:
        hours.setdefault(int(row["time_unix_s"] - T0) // 3600, set()).add(
            (row["queue"], row["per_s"].get(ECN_MARKED, {}).get("max")))
    return hours, doc["queue"], res.stderr


def test_history_shows_each_bucket_with_the_queue_map_in_force_then(tmp_path):
    """TC 3 moved from queue 3 to queue 4 an hour in: the first hour's marks are queue 3's, the second's queue 4's.
    Schema 5 kept the latest map only and answered the first hour from queue 4 (0 marks beside 100 pauses/s: an
    ECN that seemed not to mark). The same maps read again (each daemon start) add no span; a prune keeps the map
    still in force at its cutoff."""
    path = tmp_path / "losslessd.db"
    h = History(path, resolution_s=60)
    moved_queue(h)
    h.record_queue_maps("leaf1", {"Ethernet0": {4: [3], 3: [4]}}, T0 + 7200)  # a restart: the same maps
    h.close()
    assert sqlite3.connect(path).execute("SELECT from_unix_s FROM queue_map_reads").fetchall() == [
        (T0 + 30,), (T0 + 3630,)]
    hours, queue, err = marks_by_hour(path)
    assert hours == {0: {(3, 7.0)}, 1: {(4, 7.0)}} and queue is None and err == ""
    text = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet0", "--priority", "3",
                  "--since", "2026-09-21T00:00Z", "--until", "2026-09-22T00:00Z").stdout
    assert text.startswith("leaf1 Ethernet0 priority 3, queue 3 until 2026-09-21T15:13:50Z, queue 4 from "
                           "2026-09-21T15:13:50Z: mean/peak per second\n"), text
    assert marks_by_hour(path, "--queue", "4")[:2] == ({0: {(4, 0.0)}, 1: {(4, 7.0)}}, 4)  # --queue: all along
    # the first hour only: one map in force, as before
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet0", "--priority", "3", "-f", "json",
                 "--since", "2026-09-21T14:00Z", "--until", "2026-09-21T15:10Z")
    assert json.loads(res.stdout)["queue"] == 3
    h = History(path, resolution_s=60)
    h.prune(T0 + 3600 + 60 + h.retention_s)  # past both reads: the second stays, in force from the first
    h.record_queue_maps("leaf1", {}, T0 + 9000)  # a read that found no map: marks unknown from then
    h.close()
    assert sqlite3.connect(path).execute("SELECT from_unix_s FROM queue_map_reads").fetchall() == [
        (T0 + 3630,), (T0 + 9000,)]
    assert sqlite3.connect(path).execute("SELECT count(*) FROM queue_map_rows").fetchone() == (2,)


def test_a_schema_5_file_is_read_as_it_is_and_migrated_with_its_maps(tmp_path):
    """A history written by the schema-5 History (tests/fixtures/history/schema5.db: moved_queue's data, with the
    latest map only). The CLI reads it as it is (the latest map all along: what schema 5 knew); the writer migrates
    it to the current schema, the stored map holding from -inf, and maps read after that hold from their reads."""
    path = tmp_path / "schema5.db"
    path.write_bytes(SCHEMA5.read_bytes())
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (5,)
    assert marks_by_hour(path)[:2] == ({0: {(4, 0.0)}, 1: {(4, 7.0)}}, 4)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (5,)
    h = History(path, resolution_s=60)
    h.record_queue_maps("leaf1", {"Ethernet0": {3: [4], 4: [3]}}, T0 + 7200)  # as stored: nothing new
    h.record_queue_maps("leaf1", {"Ethernet0": {3: [3], 4: [4]}}, T0 + 7230)  # moved back
    h.record_rates(rates(T0 + 7259, 60, {Key("Ethernet0", PFC_RX, 3): 100.0, Key("Ethernet0", ECN_MARKED, 3): 5.0}))
    h.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (7,)
    assert not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'queue_maps'").fetchall()
    assert db.execute("SELECT * FROM queue_map_reads").fetchall() == [("leaf1", T0 + 3630), ("leaf1", T0 + 7230)]
    hours, queue, _ = marks_by_hour(path)
    assert hours == {0: {(4, 0.0)}, 1: {(4, 7.0)}, 2: {(3, 5.0)}} and queue is None


def test_history_command_unknown_port_and_bad_input(recorded, tmp_path, monkeypatch):
    res = invoke("history", "--db", recorded, "--device", "leaf1", "--port", "Ethernet9")
    assert isinstance(res.exception, InputError) and "no samples of leaf1 Ethernet9" in str(res.exception)
    res = invoke("history", "--db", recorded, "--device", "leaf1", "--port", "Ethernet8", "--plot", tmp_path / "x.svg")
    assert isinstance(res.exception, InputError) and ".png or .html" in str(res.exception)
    res = invoke("events", "--db", recorded, "--since", "yesterday")
    assert isinstance(res.exception, InputError) and "--since 'yesterday'" in str(res.exception)
    res = invoke("events", "--db", recorded, "--kind", "storm")  # a usage error listing the kinds
    assert res.exit_code == 2 and "'storm' is not one of" in res.output, res.output
    res = invoke("events")
    assert isinstance(res.exception, InputError) and "--db" in str(res.exception)
    for module in ("matplotlib.figure", "matplotlib.dates"):
        monkeypatch.setitem(sys.modules, module, None)  # as if the `plot` extra were not installed
    res = invoke("history", "--db", recorded, "--device", "leaf1", "--port", "Ethernet8", "--plot", tmp_path / "x.png")
    assert isinstance(res.exception, InputError) and "`plot` extra" in str(res.exception)
    assert not (tmp_path / "x.png").exists()


def test_config_names_the_history_relative_to_the_settings_file(recorded, tmp_path):
    """Only the history section is read: the inventory and its credentials need not be there."""
    conf = tmp_path / "etc" / "losslessd.yaml"
    conf.parent.mkdir()
    conf.write_text("inventory: inventory.yaml\nhistory:\n  path: ../losslessd.db\n")
    res = invoke("events", "--config", conf, "--kind", "device_down")
    assert res.exit_code == 0 and "spine1: no answer" in res.output
    conf.write_text("inventory: inventory.yaml\nhistory:\n  path: ../losslessd.db\n  colour: red\n")
    res = invoke("events", "--config", conf)
    assert isinstance(res.exception, InputError) and str(res.exception).startswith(f"{conf}:4 (at /history/colour)")


def test_an_event_on_a_name_a_device_reported_cannot_drive_the_terminal(tmp_path):
    """A port name comes from the device (SNMP ifName): an escape sequence in it is written out by `events`."""
    path = tmp_path / "losslessd.db"
    h = History(path)
    h.record_event(Event("device_down", "sw\x1b]0;owned\x07", "Eth\x1b[31m0", None, time.time() - 5, "no answer",
                         basis="poll"))
    h.close()
    res = invoke("events", "--db", path)
    assert res.exit_code == 0 and "sw\\x1b]0;owned\\x07 Eth\\x1b[31m0" in res.output and "\x1b" not in res.output


# -- a damaged or edited history file -------------------------------------------------------------------

@pytest.mark.parametrize(("sql", "says"), [
    ("DROP TABLE ports;", "lacks its ports table"),
    ("DROP TABLE events;", "lacks its events table"),
    ("PRAGMA user_version = -1;", "schema -1 is not one losslessd writes"),
])
def test_a_history_without_its_tables_is_an_input_error_naming_the_file(recorded, tmp_path, sql, says):
    path = edited_db(recorded, tmp_path, sql)
    for args in (("events",), ("events", "--open", "-f", "json")):
        res = invoke(*args, "--db", path)
        assert isinstance(res.exception, InputError), res.output
        assert says in str(res.exception) and str(path) in str(res.exception)


# Each edit damages leaf1's storm (rowid 1) and leaves spine1's device_down (rowid 2) as written.
@pytest.mark.parametrize(("sql", "says"), [
    ("UPDATE events SET start_unix_s = 'abc'", "start 'abc'"),
    ("UPDATE events SET numbers = '{bad'", "Expecting property name"),
    ("UPDATE events SET numbers = '[1, 2]'", "numbers are not a JSON object"),
    ("UPDATE events SET kind = 'alien'", "kind 'alien' is not one losslessd writes"),
    ("UPDATE events SET severity = 'meh'", "severity 'meh'"),
    ("UPDATE events SET message = x'fffe00'", "bytes where text belongs"),
    ("UPDATE events SET message = CAST(x'66ff6f' AS TEXT)", "bytes where text belongs"),  # a page's text not UTF-8
    ("UPDATE events SET device = CAST(x'ff' AS TEXT)", "device b'\\xff'"),
    ("UPDATE events SET priority = 'three'", "priority, start or end is not a number"),
    ("UPDATE events SET start_unix_s = 1e300", "no time a report can print"),
])
def test_a_damaged_events_row_is_named_and_the_other_rows_still_read(recorded, tmp_path, sql, says):
    """One row no Event was written as (text for a number, a kind losslessd has not, JSON that does not parse,
    text that is not UTF-8) failed `events` as a whole: now the other rows are printed, the damaged one is named by
    file and rowid with the command that removes it, and the exit is 2 (input that does not check out), never 0."""
    path = edited_db(recorded, tmp_path, f"{sql} WHERE kind = 'pfc_storm';")
    res = invoke("events", "--db", path)
    assert res.exit_code == 2, res.output
    assert "device_down" in res.output and "spine1: no answer" in res.output
    assert f"{path}: events row 1 is damaged" in res.output and says in res.output, res.output
    assert "'DELETE FROM events WHERE rowid = 1'" in res.output
    res = invoke("events", "--db", path, "-f", "json")
    assert res.exit_code == 2
    doc = json.loads(res.output[:res.output.rindex("}") + 1])
    assert [e["kind"] for e in doc["events"]] == ["device_down"]
    assert len(doc["damaged"]) == 1 and "events row 1 is damaged" in doc["damaged"][0]
    damaged: list[InputError] = []
    assert [e.kind for e in History(path, create=False).events(damaged=damaged)] == ["device_down"]
    assert len(damaged) == 1 and damaged[0].file == str(path)
    with pytest.raises(InputError, match="events row 1 is damaged"):  # a caller that gives no list gets the error
        History(path, create=False).events()


def test_damaged_open_events_rows_are_quarantined_as_they_were_and_only_they(recorded, tmp_path):
    """The daemon's start: an open events row no Event reads from (here text that is not UTF-8) moves to
    quarantined_events with its rowid, why and when, every value as SQLite held it (the bytes too); a damaged row
    that is closed, and a readable open one, stay in events; a second call finds nothing; the quarantine is pruned
    with the retention; a write that cannot take the lock is an InputError naming the file, and moves nothing."""
    path = edited_db(recorded, tmp_path, (
        "INSERT INTO events SELECT 'ok' || id, kind, 'leaf9', port, priority, start_unix_s, end_unix_s, severity, "
        "basis, code, message, numbers, proposal FROM events WHERE kind = 'device_down';"
        "UPDATE events SET message = x'fffe00' WHERE device = 'spine1';"
        "UPDATE events SET kind = 'alien' WHERE kind = 'pfc_storm';"))
    raw = sqlite3.connect(path)
    before = raw.execute("SELECT rowid, * FROM events WHERE device = 'spine1'").fetchone()
    assert isinstance(before[11], bytes)  # (message, stored as a blob)
    lock = sqlite3.connect(path, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")  # another writer holds the file
    h = History(path, retention_s=3600)
    try:
        with pytest.raises(InputError, match="not moved to quarantined_events") as err:
            h.quarantine_open_events(1000.0)
        assert err.value.file == str(path)
    finally:
        lock.execute("ROLLBACK")
    assert raw.execute("SELECT count(*) FROM events WHERE device = 'spine1'").fetchone() == (1,)
    (moved,) = h.quarantine_open_events(1000.0)
    assert moved.rowid == before[0] and "bytes where text belongs" in moved.reason
    assert moved.reason.startswith(f"events row {before[0]} is damaged") and "DELETE" not in moved.reason
    ((rowid, when, reason, *values),) = raw.execute("SELECT * FROM quarantined_events").fetchall()
    assert (rowid, when, reason, *values) == (before[0], 1000.0, moved.reason, *before[1:])
    assert sorted(raw.execute("SELECT device, kind FROM events").fetchall()) == [("leaf1", "alien"),
                                                                                 ("leaf9", "device_down")]
    assert h.quarantine_open_events(1001.0) == []
    h.prune(1000.0 + 3599)
    assert raw.execute("SELECT count(*) FROM quarantined_events").fetchone() == (1,)
    h.prune(1000.0 + 3601)
    assert raw.execute("SELECT count(*) FROM quarantined_events").fetchone() == (0,)
    h.close()


def test_every_events_row_damaged_prints_no_events_line(recorded, tmp_path):
    """Nothing readable never reads as quiet: no "no events" line, exit 2."""
    path = edited_db(recorded, tmp_path, "UPDATE events SET kind = 'alien';")
    res = invoke("events", "--db", path)
    assert res.exit_code == 2 and "no events" not in res.output
    assert "events row 1 is damaged" in res.output and "events row 2 is damaged" in res.output


def test_history_plot_shades_the_readable_events_and_names_a_damaged_one(recorded, tmp_path):
    pytest.importorskip("matplotlib")
    path = edited_db(recorded, tmp_path, "INSERT INTO events SELECT 'x' || id, 'alien', device, port, priority, "
                     "start_unix_s, end_unix_s, severity, basis, code, message, numbers, proposal FROM events "
                     "WHERE kind = 'pfc_storm';")
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet8", "--since", "2h",
                 "--plot", tmp_path / "p.png")
    assert res.exit_code == 2 and "kind 'alien'" in res.output and "events row 3 is damaged" in res.output
    assert (tmp_path / "p.png").stat().st_size > 0


@pytest.mark.parametrize(("sql", "says"), [
    ("UPDATE coverage SET seconds = 'abc';", "a coverage row of 'leaf1' is damaged"),
    ("UPDATE samples SET peak = 'abc';", "a samples row of 'leaf1' is damaged"),
    ("UPDATE samples SET idx = 'three' WHERE idx = 3;", "priority or queue 'three'"),
])
def test_an_edited_samples_table_is_an_input_error_naming_the_file(recorded, tmp_path, sql, says):
    path = edited_db(recorded, tmp_path, sql)
    res = invoke("history", "--db", path, "--device", "leaf1", "--port", "Ethernet8", "--since", "2h")
    assert isinstance(res.exception, InputError) and says in str(res.exception), res.output


def test_an_edited_findings_table_is_an_input_error(tmp_path):
    path = tmp_path / "h.db"
    h = History(path)
    h.record_findings("leaf1", 100.0, [])
    h.close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO findings VALUES ('leaf1', 100.0, 'PFC001', 'error', NULL, x'00', 'f')")
    db.commit()
    db.close()
    with pytest.raises(InputError, match="a findings row is damaged"):
        History(path).findings(latest=True)


def test_a_history_file_damaged_on_disk_is_an_input_error(recorded, tmp_path):
    """Bytes flipped in the file's pages: SQLite either refuses it (malformed) or hands back text that is not
    UTF-8 (a UnicodeDecodeError, exit 3 before); both are the file's fault. Seeds picked to reach each kind (seed 16
    flips text since schema 4 added a table)."""
    kinds = set()
    for seed in range(18):
        path = flipped_db(recorded, tmp_path, seed, first=100 if seed % 3 == 0 else 0)
        for args in (("events",), ("history", "--device", "leaf1", "--port", "Ethernet8", "--since", "2h")):
            res = invoke(*args, "--db", path)
            assert res.exception is None or isinstance(res.exception, (SystemExit, InputError)), (seed, res.exception)
            if isinstance(res.exception, InputError):
                assert str(path) in str(res.exception)
                kinds.add("not UTF-8" if "not UTF-8" in str(res.exception) else "refused")
    assert kinds == {"not UTF-8", "refused"}


def test_an_event_with_a_non_finite_number_reads_back(tmp_path):
    """The row checks refuse nothing losslessd writes: a drift finding's data may carry inf or nan (JSON
    Infinity/NaN)."""
    path = tmp_path / "h.db"
    h = History(path)
    h.record_event(dataclasses.replace(storm(), numbers={"ratio": math.inf, "nan": math.nan}))
    h.close()
    (event,) = History(path, create=False).events()
    assert event.numbers["ratio"] == math.inf and math.isnan(event.numbers["nan"])


_SECOND_WRITER = ("import sys\nfrom losslessd.history import History\nfrom losslessd.errors import InputError\n"
                  "try:\n    h = History(sys.argv[1], resolution_s=60)\n"
                  "except InputError as exc:\n    sys.exit(str(exc))\n"
                  "print('writing', flush=True)\nsys.stdin.read()\nh.close()\n")


@pytest.mark.slow  # starts a process
def test_one_process_writes_a_history_and_a_second_is_refused_naming_the_first(tmp_path):
    """A second daemon given the same file (two shards on one machine sharing a settings file) ended the first's open
    events as left by a killed run and wrote its rows beside the first's. The writers of one process share the file
    (a reload that changes only the retention opens it again before closing it); readers are never refused."""
    path = tmp_path / "history.db"
    first = History(path, resolution_s=60)
    again = History(path, resolution_s=60, retention_s=86400)
    second = [sys.executable, "-c", _SECOND_WRITER, str(path)]
    res = subprocess.run(second, capture_output=True, text=True, input="")
    assert res.returncode == 1 and f"written by another losslessd daemon (pid {os.getpid()}, lock " \
        f"{tmp_path}/.history.db.lock)" in res.stderr, res.stderr
    History(path, create=False).close()
    first.close()
    assert subprocess.run(second, capture_output=True, text=True, input="").returncode == 1  # `again` holds it
    again.close()
    res = subprocess.run(second, capture_output=True, text=True, input="")
    assert res.returncode == 0, res.stderr


@pytest.mark.slow  # starts processes
def test_rm_of_the_history_and_its_files_leaves_the_lock_and_a_second_daemon_is_refused(tmp_path):
    """`rm history.db*` (the history, its -wal and -shm) took the lock file `history.db.lock` with it: the first
    daemon went on into a new file at the path (docs/history.md), and a second one started then made a lock file of
    its own and wrote the same history. The lock is `.history.db.lock` now, which the glob does not take."""
    path = tmp_path / "history.db"
    first = History(path, resolution_s=60)
    first.record_event(storm())
    assert first.flush()
    subprocess.run(["sh", "-c", "rm -f history.db*"], cwd=tmp_path, check=True)
    assert not path.exists()
    res = subprocess.run([sys.executable, "-c", _SECOND_WRITER, str(path)], capture_output=True, text=True,
                         input="")
    assert res.returncode == 1 and f"written by another losslessd daemon (pid {os.getpid()}, " in res.stderr, \
        res.stderr
    first.record_event(storm(start=2000.0))
    assert first.flush() and [e.start_unix_s for e in History(path, create=False).events()] == [2000.0]
    first.close()


@pytest.mark.slow  # starts a process
def test_a_lock_file_removed_under_the_writer_is_taken_again_or_its_rows_wait(tmp_path):
    """The lock file itself removed (a cleanup of dot files): the writer takes it again at its next commit; if a second
    daemon took it meanwhile, the first writes nothing, says why naming the second's pid, and keeps its rows until the
    second lets the history go. Two daemons never write one history."""
    path = tmp_path / "history.db"
    lock = tmp_path / ".history.db.lock"
    first = History(path, resolution_s=60)
    lock.unlink()
    first.record_event(storm())
    assert first.flush() and lock.read_text().strip() == str(os.getpid())  # taken again
    lock.unlink()
    # the previous release's name of it, `history.db.lock`, held too, keeps a second daemon out (statelock)
    res = subprocess.run([sys.executable, "-c", _SECOND_WRITER, str(path)], capture_output=True, text=True, input="")
    assert res.returncode == 1 and f"(pid {os.getpid()}, lock {tmp_path}/history.db.lock)" in res.stderr, res.stderr
    (tmp_path / "history.db.lock").unlink()  # (both names gone: a cleanup of every lock file)
    second = subprocess.Popen([sys.executable, "-c", _SECOND_WRITER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert second.stdout.readline() == "writing\n", second.stderr.read()
        first.record_event(storm(start=2000.0))
        assert not first.flush()
        assert f"written by another losslessd daemon (pid {second.pid}, lock {lock})" in first.last_error
        assert first.notice is not None and "lock file was removed" in first.notice
        assert [e.start_unix_s for e in History(path, create=False).events()] == [1000.0]  # nothing written
    finally:
        second.communicate("", timeout=30)
    assert second.returncode == 0
    first._retry_at = 0.0  # (the retry's wait is not what is tested)
    assert first.flush(), first.last_error
    assert sorted(e.start_unix_s for e in History(path, create=False).events()) == [1000.0, 2000.0]
    first.close()


@pytest.mark.slow
def test_workers_forked_by_a_killed_daemon_do_not_keep_its_history_locked(tmp_path):
    """The drift lint forks workers without exec (>= 400 devices, or LOSSLESSD_JOBS): with an flock they shared the
    daemon's lock, and a daemon killed mid-lint left them holding it, so its restart was refused naming a dead pid."""
    path = tmp_path / "history.db"
    daemon = ("import os, signal, sys, time\nfrom losslessd.history import History\n"
              "h = History(sys.argv[1], resolution_s=60)\npid = os.fork()\nif pid == 0:\n"
              "    os.close(1), os.close(2), time.sleep(60)\n"
              "    os._exit(0)\nprint(pid, flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    res = subprocess.run([sys.executable, "-c", daemon, str(path)], capture_output=True, text=True)
    worker = int(res.stdout)
    try:
        assert res.returncode == -9 and os.kill(worker, 0) is None  # the worker outlives the daemon
        restart = subprocess.run([sys.executable, "-c", "import sys; from losslessd.history import History\n"
                                  "History(sys.argv[1], resolution_s=60)\n", str(path)], capture_output=True, text=True)
        assert restart.returncode == 0, restart.stderr
    finally:
        os.kill(worker, 9)


def test_a_lock_file_that_is_a_link_or_not_a_file_is_refused_and_its_target_left_alone(tmp_path):
    """The lock file was opened following a symbolic link and truncated: a link planted at history.db.lock had its
    target overwritten with the daemon's pid."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / ".history.db.lock").symlink_to(victim)
    with pytest.raises(InputError, match=r"cannot make its lock file .*/\.history\.db\.lock: it is a symbolic link"):
        History(tmp_path / "history.db", resolution_s=60)
    assert victim.read_text() == "keep me\n"
    os.mkfifo(tmp_path / ".fifo.db.lock")
    with pytest.raises(InputError, match=r"\.fifo\.db\.lock: it is not a regular file"):
        History(tmp_path / "fifo.db", resolution_s=60)


def test_a_lock_that_fails_for_another_reason_than_being_held_says_so(tmp_path, monkeypatch):
    """Every error of the lock call read as "written by another losslessd daemon" (no pid): a file system without
    locks (ENOLCK, as fcntl(2) lists it) sent the operator looking for a daemon that does not exist."""
    import errno
    import fcntl

    def no_locks(fd, op, *args):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "lockf", no_locks)
    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(InputError, match=r"cannot lock .*history\.db\.lock: No locks available") as caught:
        History(tmp_path / "history.db", resolution_s=60)
    assert "another" not in str(caught.value)


@pytest.mark.parametrize("command", [("events",), ("history", "--device", "leaf1", "--port", "Ethernet8")])
def test_an_until_before_the_since_is_refused_not_read_as_quiet(recorded, command):
    """Session 34: `events --since 10m --until 1h` (the durations swapped) asked for a span that holds no time, and
    listed "no events", exit 0, as a quiet fabric does, though a storm was recorded 10 minutes ago."""
    res = invoke(*command, "--db", recorded, "--since", "10m", "--until", "1h")
    assert res.exit_code != 0 and isinstance(res.exception, InputError), res.output
    assert "--until" in str(res.exception) and "is before --since" in str(res.exception)
    assert invoke(*command, "--db", recorded, "--since", "1h", "--until", "1m").exit_code == 0  # (the right order)


def named_storm(message: str, start: float) -> Event:
    """A storm told apart by its message (one start each: an event's id is its kind, place and start)."""
    return Event("pfc_storm", "leaf1", "Ethernet0", 3, start, message, end_unix_s=start + 60)


def _rows_after_a_restore(writer: History, path: Path) -> list[str]:
    """Writes a storm after a restore over the writer's file, checks the writer said so, and reads the messages the
    file at ``path`` then holds."""
    writer.record_event(named_storm("after the restore", 1_700_000_200))
    assert writer.flush() and writer.notice == ("the history file was replaced while the daemon ran: the rows "
                                                "written since are in the file now at its path")
    writer.close()
    reader = History(path, create=False)
    try:
        return sorted(e.message for e in reader.events())
    finally:
        reader.close()


def test_a_backup_restored_over_the_writers_file_is_written_as_it_is_not_read_through_the_old_log(tmp_path):
    """A backup `mv`ed over the daemon's history: the writer went on committing into the file it had open. Now it
    opens the file at the path, after emptying its own write-ahead log into the old file: the -wal beside the path
    was otherwise read as the restored file's, which then read as the old history (its rows, not the backup's)."""
    path = tmp_path / "history.db"

    writer = History(path, flush_on_record=False)
    writer.record_event(named_storm("before the backup", 1_700_000_000))
    assert writer.flush()
    live, copy = sqlite3.connect(path), sqlite3.connect(tmp_path / "backup.db")
    live.backup(copy)
    live.close()
    copy.close()  # (its log emptied into it: the backup is the one file)
    writer.record_event(named_storm("after the backup, lost", 1_700_000_100))
    assert writer.flush()
    os.replace(tmp_path / "backup.db", path)
    assert _rows_after_a_restore(writer, path) == ["after the restore", "before the backup"]


def test_a_backup_restored_with_its_own_log_keeps_the_rows_in_that_log(tmp_path):
    """A file-level backup of a live history (rsync, a snapshot) is the file and its -wal: a transaction committed
    but not yet checkpointed lives only in the -wal. Restored over the daemon's (the -wal, then the file), the writer
    removed every -wal beside the path as its own old file's log: the restored log went, and with it the backup's
    last rows. Only the logs the writer itself had open are removed now."""
    import shutil

    path, saved, staged = tmp_path / "history.db", tmp_path / "saved", tmp_path / "staged"
    saved.mkdir()
    staged.mkdir()

    writer = History(path, flush_on_record=False)
    writer.record_event(named_storm("not in the backup", 1_700_000_000))
    assert writer.flush()
    other = History(saved / "history.db", flush_on_record=False)  # the history the backup was taken of, still open
    other.record_event(named_storm("in the backup's log", 1_700_000_100))
    assert other.flush()
    for suffix in ("", "-wal"):  # the file set as a file-level backup copies it (its log not yet checkpointed)
        shutil.copyfile(f"{saved}/history.db{suffix}", f"{staged}/history.db{suffix}")
    other.close()
    assert "in the backup's log" not in (staged / "history.db").read_bytes().decode("latin-1")  # (only its log has it)
    os.replace(staged / "history.db-wal", f"{path}-wal")
    os.replace(staged / "history.db", path)
    assert _rows_after_a_restore(writer, path) == ["after the restore", "in the backup's log"]


def test_a_history_moved_away_under_the_writer_keeps_its_rows(tmp_path):
    """`mv history.db history-2026.db` to keep the old history aside: its rows committed since the last checkpoint
    were in the -wal only, which stays at the old name; the writer closed the moved file without a checkpoint (SQLite
    makes none into a file moved under it) and removed that -wal, so the kept file held nothing, not even its tables
    ("not a losslessd history database (empty)"). Now the writer empties its log into the old file, through its own
    descriptors, before letting it go; the rows written since go to a new file at the path."""
    path, kept = tmp_path / "history.db", tmp_path / "history-2026.db"

    writer = History(path, flush_on_record=False)
    writer.record_event(named_storm("before the move", 1_700_000_000))
    assert writer.flush()
    os.replace(path, kept)
    writer.record_event(named_storm("after the move", 1_700_000_100))
    assert writer.flush() and writer.notice == ("the history file was deleted or moved away while the daemon ran: the "
                                                "rows written since are in the file now at its path, a new one")
    writer.close()
    for file, rows in ((kept, ["before the move"]), (path, ["after the move"])):
        reader = History(file, create=False)
        assert [e.message for e in reader.events()] == rows, file
        reader.close()


def test_a_history_folder_moved_away_and_back_is_written_again(tmp_path):
    """The history's folder moved aside (a disk swap, `mv /var/lib/losslessd{,.old}`) and back: while it was away the
    writer let its file go and could make none at the path (its rows waited); once the same file was back at the path
    it read as "still the one open" and the writer committed through the connection it had closed ("Cannot operate on
    a closed database"), every commit failing from then on. Now it opens the file again."""
    folder, away = tmp_path / "state", tmp_path / "state.old"
    folder.mkdir()
    path = folder / "history.db"

    writer = History(path, flush_on_record=False)
    writer.record_event(named_storm("before", 1_700_000_000))
    assert writer.flush()
    os.replace(folder, away)
    writer.record_event(named_storm("while away", 1_700_000_100))
    assert not writer.flush() and writer.last_error and "deleted or moved away" in writer.last_error
    os.replace(away, folder)
    assert writer.flush(), writer.last_error
    assert writer.last_error is None and writer.backlog == 0
    assert writer.notice == ("the history file was moved away and back while the daemon ran: the rows written since "
                             "are in the file now at its path")
    writer.close()
    reader = History(path, create=False)
    assert sorted(e.message for e in reader.events()) == ["before", "while away"]
    reader.close()


@pytest.mark.parametrize("command", [("events",), ("history", "--port", "Ethernet8")])
def test_a_device_the_history_never_saw_is_a_usage_error_naming_the_devices_known(recorded, command):
    """Session 39: `events --device leaf9` (a device the history never saw) printed "no events", exit 0, as a quiet
    device does, while `history` exited 2: both now exit 2 naming the devices the history knows."""
    res = invoke(*command, "--db", recorded, "--device", "leaf9")
    assert res.exit_code != 0 and isinstance(res.exception, InputError), res.output  # (InputError: exit 2)
    assert "no events" not in res.output
    assert ("--device 'leaf9': the history holds no device of that name, nor does its daemon poll one (devices: "
            "leaf1, spine1)"
            in str(res.exception)), res.exception
    # A known device with nothing in the span is still quiet: "no events", exit 0.
    quiet = invoke("events", "--db", recorded, "--device", "spine1", "--kind", "pfc_storm")
    assert quiet.exit_code == 0 and quiet.output == "no events\n", quiet.output



def test_events_of_a_device_the_daemon_polls_without_rows_yet_is_no_events_yet_and_of_one_it_does_not_exit_2(tmp_path):
    """Session 44: `events --device leaf1` against a starting daemon exited 2 ("devices: leaf2") until leaf1's first
    rows were committed, the history knowing only the devices it held rows of. The daemon now stores the devices it
    polls (History.record_polled, at its start and each reload, kept across restarts): one of them without rows is
    "no events" with a note, exit 0, in text and JSON; a device it does not poll is still exit 2, naming the devices."""
    path = tmp_path / "losslessd.db"
    h = History(path, resolution_s=60)
    h.record_polled(["leaf2", "leaf1"])
    h.record_rates(rates(time.time(), 60, {Key("Ethernet0", PFC_RX, 3): 10.0}, device="leaf2"))
    h.close()
    quiet = losslessd("events", "--db", path, "--device", "leaf1")
    assert quiet.returncode == 0 and quiet.stdout == "no events\n", quiet
    assert quiet.stderr == ("losslessd: note: no events yet: the daemon polls leaf1 and the history holds no row of it "
                            "yet (its first polls are not committed)\n"), quiet
    as_json = losslessd("events", "--db", path, "--device", "leaf1", "-f", "json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["events"] == [] and "no events yet" in as_json.stderr
    typo = losslessd("events", "--db", path, "--device", "leaf9")
    assert typo.returncode == 2 and "no events" not in typo.stdout, typo
    assert "--device 'leaf9': the history holds no device of that name, nor does its daemon poll one (devices: " \
           "leaf1, leaf2)" in typo.stderr, typo
    # Kept across a restart; the next start (or a reload) replaces the list whole.
    h = History(path, resolution_s=60)
    assert h.polled() == ["leaf1", "leaf2"]
    h.record_polled(["leaf2", "leaf3"])
    h.close()
    gone = losslessd("events", "--db", path, "--device", "leaf1")
    assert gone.returncode == 2 and "(devices: leaf2, leaf3)" in gone.stderr, gone
    assert losslessd("events", "--db", path, "--device", "leaf3").returncode == 0


def test_the_polled_list_survives_a_backlog_that_overflows_and_a_file_replaced_under_the_writer(tmp_path):
    """Session 45: record_polled was one batch of the backlog, its oldest: a history locked while the backlog
    overflowed dropped it first, and `events --device` then refused a polled device (exit 2) until the next start or
    reload. It is now the writer's one list, written with the next commit, never dropped; a history file deleted
    under the writer (a new one opened at its path) is given it again."""
    path = tmp_path / "h.db"
    h = History(path, max_backlog=3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another writer holds the file while the daemon starts and polls
    h.record_polled(["leaf1", "leaf2"])
    for i in range(5):
        h.record_event(storm(f"Ethernet{i}", device="leaf2"))
    assert h.dropped == 2 and h.backlog == 4  # three events and the list
    other.execute("COMMIT")
    assert h.flush() and h.backlog == 0
    assert History(path, create=False).polled() == ["leaf1", "leaf2"]
    quiet = losslessd("events", "--db", path, "--device", "leaf1")
    assert quiet.returncode == 0 and quiet.stdout == "no events\n", quiet
    # The file deleted while the writer runs: the new file at the path gets the list with its next commit.
    path.unlink()
    h.record_event(storm("Ethernet9", device="leaf2"))
    assert h.flush() and "deleted" in (h.notice or "")
    assert History(path, create=False).polled() == ["leaf1", "leaf2"]
    h.close()


def test_events_of_a_device_on_a_history_that_holds_no_device_yet_is_no_events(tmp_path):
    """A daemon that has not finished its first poll has written no device: `events --device leaf1` (which the
    daemon's tests and an operator watching a fresh daemon ask) was exit 2 "holds no device of that name (devices:
    none yet)"; with no device to tell a typo by, it is "no events", exit 0."""
    path = tmp_path / "losslessd.db"
    History(path).close()
    res = invoke("events", "--db", path, "--device", "leaf1")
    assert res.exit_code == 0 and res.output == "no events\n", res.output
