"""`losslessd daemon` against the simulator when configs drift and devices misbehave: drift raised and
cleared (and a device down during a drift pull not taken for fixed), ECN health during storms, a slow
device, garbage answers, a reload dropping a device mid-poll, a locked history at stop.

Real processes over real SNMP and SSH (tests/daemonproc.py). One simulator for the module; each test
puts its faults back. The drift and history tests run daemons of their own, before the module's.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import sqlite3
import subprocess
import time

import pytest
import yaml

from losslessd.sim import SONIC_RUNNING_CONFIG, Simulator

from .daemonproc import CLI, INTERVAL_S, DaemonProcess, wait_for, wait_polls
from .peers import FABRIC, with_if_names

pytestmark = pytest.mark.slow

HANG_S = 15.0  # a hanging agent's delay: far longer than the others' polls take, even on a loaded machine


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Simulator:
    s = Simulator(FABRIC, tmp_path_factory.mktemp("faults-sim"), devices=["leaf1", "leaf2", "spine1"])
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def daemon(sim, tmp_path_factory) -> DaemonProcess:
    # CLI counters every poll, so ECN marks are as fresh as the SNMP pauses; SNMP waits out a hanging agent.
    d = DaemonProcess(sim, tmp_path_factory.mktemp("faults-daemon"), detection={"ecn_polls": 2},
                      poll={"ssh_counters_interval_s": INTERVAL_S, "snmp_timeout_s": 2 * HANG_S}).start()
    yield d
    d.stop()


def findings_metric(d: DaemonProcess, device: str) -> dict[str, float]:
    return {s.labels["code"]: s.value for s in d.samples()
            if s.name == "losslessd_findings" and s.labels["device"] == device}


def test_drift_raises_and_clears_a_finding_and_a_device_not_read_keeps_its_findings(sim, tmp_path):
    d = DaemonProcess(sim, tmp_path, drift={"enabled": True, "interval_s": 1.0},
                      poll={"ssh_counters_interval_s": None}).start()
    try:
        def runs() -> int:
            return sum(r["msg"].startswith("drift run:") for r in d.log_records())

        def events(kind: str) -> list[dict]:
            return [e for e in d.events(kind=kind) if e["code"] == "WDG001"]

        wait_for(runs, "the first drift run (the baseline)")
        assert events("finding_new") == []
        assert findings_metric(d, "leaf1").get("WDG001") == 1  # Ethernet12 has no watchdog in the files
        config = json.loads(sim.devices["leaf1"].outputs[SONIC_RUNNING_CONFIG])
        del config["PFC_WD"]["Ethernet0"]  # someone turns Ethernet0's watchdog off
        sim.garble("leaf1", SONIC_RUNNING_CONFIG, json.dumps(config, indent=4))  # served instead of the file
        new = wait_for(lambda: events("finding_new"), "finding_new WDG001")
        assert [(e["device"], e["port"], e["end"]) for e in new] == [("leaf1", "Ethernet0", None)]
        wait_for(lambda: findings_metric(d, "leaf1").get("WDG001") == 2, "losslessd_findings to count it")

        sim.garble("leaf1", SONIC_RUNNING_CONFIG, on=False)  # put back
        cleared = wait_for(lambda: events("finding_cleared"), "finding_cleared WDG001")
        assert cleared[0]["port"] == "Ethernet0"
        assert [e["end"] is not None for e in events("finding_new")] == [True]  # the finding_new event ended
        assert findings_metric(d, "leaf1").get("WDG001") == 1

        before = findings_metric(d, "spine1")
        assert before  # spine1's config has findings of its own

        def run_without_spine1() -> bool:  # a whole drift run that could not read spine1
            msgs = [r["msg"] for r in d.log_records()]
            missed = [i for i, m in enumerate(msgs) if m.startswith("drift: the config of spine1 was not read")]
            return bool(missed) and any(m.startswith("drift run:") for m in msgs[missed[0]:])

        drift = [e for e in d.events() if e["kind"].startswith("finding")]
        sim.set_down("spine1")
        try:
            wait_for(run_without_spine1, "a drift run with spine1 down")
        finally:
            sim.set_down("spine1", False)
        assert [e for e in d.events() if e["kind"].startswith("finding")] == drift  # nothing taken for fixed
        assert findings_metric(d, "spine1") == before
    finally:
        d.stop()


def test_a_locked_history_at_stop_still_gets_the_rows_waiting_for_it(sim, tmp_path):
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}).start()
    try:
        wait_for(lambda: d.value("losslessd_history_write_ok") == 1, "a first history write")
        lock = sqlite3.connect(tmp_path / "history.db", isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
        locked = time.time()
        polled = wait_for(lambda: d.value("losslessd_polls_total", device="leaf1", source="snmp"), "leaf1 polled")
        try:
            wait_for(lambda: (d.value("losslessd_history_backlog_rows") or 0) > 0 and
                     d.value("losslessd_polls_total", device="leaf1", source="snmp") >= polled + 2,
                     "rates of two polls waiting in the backlog")
            d.proc.send_signal(signal.SIGTERM)
            wait_for(lambda: [r for r in d.log_records() if r["msg"].startswith("stopping: the history did not take")],
                     "the stopping daemon to find its history locked")
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert d.proc.wait(timeout=30) == 0
    finally:
        d.stop()
    with sqlite3.connect(tmp_path / "history.db") as db:  # rates of polls made while it was locked
        after = db.execute("SELECT count(*) FROM coverage WHERE bucket_s >= ?", (math.floor(locked) + 1,)).fetchone()
    assert after[0] > 0
    assert not [r for r in d.log_records() if "not written" in r["msg"]]


def test_a_second_daemon_on_the_same_history_is_refused_naming_the_first(daemon, sim, tmp_path):
    """Two shards on one machine sharing a settings file but not a port, or a copy started by hand beside the
    service: the second ended the first's open events as left by a killed run and wrote beside it."""
    second = DaemonProcess(sim, tmp_path, history={"path": str(daemon.folder / "history.db")})
    with open(second.log, "ab") as log:
        res = subprocess.run([*CLI, "daemon", "--config", str(second.config)], stderr=log, stdout=subprocess.DEVNULL,
                             env={**os.environ, **sim.env}, timeout=90)
    said = second.log.read_text()
    assert res.returncode == 2 and "Traceback" not in said, said[-3000:]
    assert f"{daemon.folder / 'history.db'}: written by another losslessd daemon (pid {daemon.proc.pid}" in said
    assert "left open" not in said  # it ended none of the first's events
    assert daemon.proc.poll() is None and daemon.get("/-/ready")[0] == 200


def test_rm_of_the_history_files_leaves_a_second_daemon_refused_and_the_first_writing(sim, tmp_path):
    """`rm history.db*` beside a running daemon (freeing space: the history, its -wal and -shm) took its lock file
    `history.db.lock` too, and a second daemon started then wrote the same history beside the first, which had gone
    on into a new file at the path (the second ran; the test timed out on it). The lock is `.history.db.lock`, and a
    lock file removed anyway is taken again at the writer's next commit: the second is refused naming the first."""
    first = DaemonProcess(sim, tmp_path / "a", poll={"ssh_counters_interval_s": None}).start()
    try:
        wait_for(lambda: first.value("losslessd_history_write_ok") == 1, "a first history write")
        subprocess.run(["sh", "-c", "rm -f history.db*"], cwd=first.folder, check=True)
        second = DaemonProcess(sim, tmp_path / "b", history={"path": str(first.folder / "history.db")})
        with open(second.log, "ab") as log:
            res = subprocess.run([*CLI, "daemon", "--config", str(second.config)], stderr=log,
                                 stdout=subprocess.DEVNULL, env={**os.environ, **sim.env}, timeout=90)
        said = second.log.read_text()
        assert res.returncode == 2 and "Traceback" not in said, said[-3000:]
        assert f"written by another losslessd daemon (pid {first.proc.pid}" in said, said[-3000:]

        def rows() -> int:
            if not (first.folder / "history.db").exists():
                return 0
            with sqlite3.connect(first.folder / "history.db") as db:
                try:
                    return db.execute("SELECT count(*) FROM coverage").fetchone()[0]
                except sqlite3.OperationalError:  # (the file made, its tables not yet: the writer is at it)
                    return 0

        wait_for(rows, "the first daemon's rows in the new file at the path")
    finally:
        assert first.stop() == 0


def test_a_clock_set_years_past_the_history_deletes_none_of_it(sim, tmp_path):
    """The history's rows end ten years before the clock (a clock set ahead while the daemon was down: a wrong RTC,
    a bad NTP answer): the daemon's first prune, at its start, deleted every row. It says so and keeps them, and its
    own rows of the clock's time are written beside them.

    It waits for two polls of leaf1 that answered (losslessd_polls_total less losslessd_poll_failures_total): the
    first gives the tracker its base, the second the rates whose coverage rows are checked. polls_total counts failed
    polls too, and on a loaded machine one of two polls timed out (2 s, no retry): no rates, no coverage, and the
    test read that as rows lost at the stop (session 43, part h)."""
    from losslessd.history import History
    from losslessd.monitor import Event, Key, Rates

    then = time.time() - 10 * 365 * 86400
    history = History(tmp_path / "history.db", resolution_s=1)
    key = Key("Ethernet0", "pfc_rx", 3)
    history.record_rates(Rates("leaf1", then, 1.0, {key: 9}, {key: 9.0}))
    history.record_event(Event("pfc_storm", "leaf1", "Ethernet0", 3, then - 60, "storm", end_unix_s=then))
    history.close()
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}).start()
    try:
        wait_for(lambda: d.value("losslessd_history_write_ok") == 1 and d.answered("leaf1") >= 2,
                 "two polls of leaf1 answered")
    finally:
        assert d.stop() == 0
    warned = [r for r in d.log_records() if r["msg"].startswith("the clock is ")]
    assert len(warned) == 1 and "days past the newest row of the history" in warned[0]["msg"], d.log.read_text()
    with sqlite3.connect(tmp_path / "history.db") as db:
        old = db.execute("SELECT count(*) FROM samples WHERE bucket_s < ?", (then + 1,)).fetchone()[0]
        events = db.execute("SELECT count(*) FROM events WHERE end_unix_s <= ?", (then,)).fetchone()[0]
        new = db.execute("SELECT count(*) FROM coverage WHERE bucket_s > ?", (then + 86400,)).fetchone()[0]
    assert (old, events) == (1, 1) and new > 0, d.log.read_text()



def test_a_history_file_deleted_or_replaced_while_the_daemon_runs_gets_the_rows_since(sim, tmp_path):
    """An operator deleting the history (to free space) or putting another file in its place: the daemon went on
    committing into the file it had open, which no name reached any more, every row lost while
    losslessd_history_write_ok said 1. It writes to the file at the path now: a new history where none is; where
    another program's file is, it writes nothing there (that file left whole), says why once, keeps its rows
    waiting, and writes them once a history can be made there again."""
    path = tmp_path / "history.db"

    def rows_since(t: float, until: float = math.inf) -> int:
        with sqlite3.connect(path) as db:
            try:
                return db.execute("SELECT count(*) FROM coverage WHERE bucket_s > ? AND bucket_s < ?",
                                  (t, until)).fetchone()[0]
            except sqlite3.OperationalError:  # (a file the daemon made but has not given its tables yet)
                return 0

    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}).start()
    try:
        wait_for(lambda: path.exists() and rows_since(0) > 0, "a first history write")
        path.unlink()
        deleted = time.time()
        wait_for(lambda: path.exists() and rows_since(deleted + 1) > 0, "rows in a new history file", timeout_s=60)
        assert d.value("losslessd_history_write_ok") == 1
        other = tmp_path / "other.db"
        with sqlite3.connect(other) as db:
            db.execute("CREATE TABLE inventory (name TEXT)")
        os.replace(other, path)
        wait_for(lambda: d.value("losslessd_history_write_ok") == 0, "the history said not written")
        wait_for(lambda: [r for r in d.log_records() if "was replaced while the daemon ran" in r["msg"]],
                 "the replaced history said")
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("inventory",)]
        waiting_since = time.time()
        wait_for(lambda: (d.value("losslessd_history_backlog_rows") or 0) > 0 and time.time() > waiting_since + 3,
                 "rows waiting")
        path.unlink()
        made = time.time()
        wait_for(lambda: path.exists() and d.value("losslessd_history_write_ok") == 1, "a history made again")
        wait_for(lambda: rows_since(waiting_since + 1, made - 1) > 0, "the rows that waited written")
    finally:
        assert d.stop() == 0
    said = [r["msg"] for r in d.log_records() if "while the daemon ran" in r["msg"]]
    assert said[0].startswith("the history file was deleted or moved away while the daemon ran: the rows written since "
                              "are in "), said
    assert [m for m in said if "replaced" in m] == [
        "the history file was replaced while the daemon ran; what is there now is not one: not a losslessd history "
        "database (another program's SQLite file)"], said

def test_a_damaged_open_event_at_start_is_quarantined_once_and_the_daemon_runs_on(sim, tmp_path):
    """A history whose events table has a damaged open row when the daemon starts: the row is moved, with its values
    as they were, why and when, to quarantined_events, in a warning naming the file and the row; the readable open
    event of the earlier run is still ended; the daemon serves and polls (one bad row of its own history must not
    stop storm detection) and stops with 0. At the next start nothing is warned about: the row was warned about at
    every start until someone deleted it by hand."""
    from losslessd.history import History
    from losslessd.monitor import Event

    history = History(tmp_path / "history.db")
    for port in ("Ethernet0", "Ethernet4"):
        history.record_event(Event(kind="pfc_storm", device="leaf1", port=port, priority=3, start_unix_s=1.7e9,
                                   message=f"PFC storm on {port}", numbers={"rx_pause_per_s": 1000.0}))
    assert history.flush()
    history.close()
    with sqlite3.connect(tmp_path / "history.db") as db:
        bad = db.execute("SELECT rowid FROM events WHERE port = 'Ethernet4'").fetchone()[0]
        db.execute("UPDATE events SET numbers = 'not json' WHERE rowid = ?", (bad,))
        before = db.execute("SELECT * FROM events WHERE rowid = ?", (bad,)).fetchone()
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}).start()
    try:
        warned = wait_for(lambda: [r for r in d.log_records() if "quarantined_events" in r["msg"]], "the warning")
        assert len(warned) == 1 and warned[0]["level"] == "warning", warned
        text = warned[0]["msg"]
        assert text.startswith(f"{tmp_path / 'history.db'}: events row {bad} is damaged (device 'leaf1'"), text
        assert not [r for r in d.log_records() if r["msg"].startswith("an open event of an earlier run not closed")]
        wait_for(lambda: d.value("losslessd_polls_total", device="leaf1", source="snmp"), "leaf1 polled")
        assert d.proc.poll() is None and d.get("/-/ready")[0] == 200
    finally:
        assert d.stop() == 0
    with sqlite3.connect(tmp_path / "history.db") as db:
        rows = dict(db.execute("SELECT port, end_unix_s FROM events WHERE kind = 'pfc_storm'").fetchall())
        ended = db.execute("SELECT message FROM events WHERE port = 'Ethernet0'").fetchone()[0]
        moved = db.execute("SELECT * FROM quarantined_events").fetchall()
    assert rows["Ethernet0"] is not None and ended.endswith("(ended: losslessd stopped uncleanly, killed or crashed; "
                                                            "ended at its last poll the history holds, its detector "
                                                            "state was lost)")
    assert "Ethernet4" not in rows
    ((rowid, when, reason, *values),) = moved
    assert rowid == bad and tuple(values) == before and reason.startswith(f"events row {bad} is damaged")
    assert reason.endswith("Expecting value: line 1 column 1 (char 0)")
    assert abs(when - time.time()) < 600
    again = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}).start()
    try:
        wait_for(lambda: again.value("losslessd_polls_total", device="leaf1", source="snmp"), "leaf1 polled again")
        # (the log file is the first run's, appended to: its one warning and nothing since)
        assert [r["msg"] for r in again.log_records() if "damaged" in r["msg"]] == [text]
    finally:
        assert again.stop() == 0


def test_congestion_without_ecn_marks_opens_ecn_not_marking_and_with_marks_or_in_a_storm_does_not(daemon, sim):
    # The module's daemon: it reads leaf1's maps (which queue's ECN marks are priority 3's) at its start.
    wait_for(lambda: daemon.value("losslessd_up", device="leaf1") == 1 and
             daemon.value("losslessd_ecn_marked_packets_total", device="leaf1", port="Ethernet12", queue="3"),
             "leaf1's ECN marks read over SSH")
    sim.congest("leaf1", "Ethernet12", 3)  # pauses, the queue drains, ECN marks stay flat: PFC doing ECN's job
    sim.congest("leaf1", "Ethernet48", 3, ecn_healthy=True)  # marks climb with the pauses
    sim.storm("leaf1", "Ethernet4", 3)  # a storm: its pauses say nothing about ECN
    try:
        flat = wait_for(lambda: daemon.events(device="leaf1", kind="ecn_not_marking"), "ecn_not_marking")
        assert [(e["port"], e["priority"], e["end"]) for e in flat] == [("Ethernet12", 3, None)]
        assert flat[0]["numbers"]["marks_per_pause"] < 0.1 and flat[0]["numbers"]["pfc_rx_per_s"] > 1000
        wait_for(lambda: daemon.value("losslessd_pfc_storm", device="leaf1", port="Ethernet4", priority="3") == 1,
                 "the storm on Ethernet4")
        polled = daemon.value("losslessd_polls_total", device="leaf1", source="ssh")
        wait_for(lambda: daemon.value("losslessd_polls_total", device="leaf1", source="ssh") >= polled + 2,
                 "two more polls of leaf1's ECN marks")
        assert [e["port"] for e in daemon.events(device="leaf1", kind="ecn_not_marking")] == ["Ethernet12"]
        # They drain. The storm is the switch's own watchdog's (onbox_storm, `show pfcwd stats -e`) or inferred.
        storms = daemon.events(device="leaf1", kind="pfc_storm") + daemon.events(device="leaf1", kind="onbox_storm")
        assert {e["port"] for e in storms} == {"Ethernet4"}
    finally:
        sim.congest("leaf1", "Ethernet12", 3, on=False)
        sim.congest("leaf1", "Ethernet48", 3, on=False)
        sim.storm("leaf1", "Ethernet4", 3, on=False)


def test_a_slow_device_delays_no_other_and_leaving_the_inventory_mid_poll_leaves_no_series(daemon, sim, tmp_path):
    def scrape() -> dict:
        return {s.labels["device"]: s.value for s in daemon.samples()
                if s.name == "losslessd_polls_total" and s.labels.get("source") == "snmp"}

    # every device polled once (they are polled by different workers, which start in any order)
    wait_for(lambda: all(scrape().get(d) for d in ("spine1", "leaf1", "leaf2")), "spine1, leaf1 and leaf2 polled")
    sim.set_slow("spine1", HANG_S)  # from its next poll on, spine1 answers only after HANG_S
    try:
        # While one poll of spine1 hangs, the others keep polling on their own slots: three more polls
        # each, and spine1 finishes at most the poll that was in flight when it turned slow. Polled one
        # after another, they would wait behind spine1 and this would time out. Counted polls, so a
        # loaded machine makes it slower, not red.
        before = scrape()
        after = wait_for(lambda: (lambda s: s if all(s[d] >= before[d] + 3 for d in ("leaf1", "leaf2")) else None)(
            scrape()), "three more polls of leaf1 and leaf2 while spine1 hangs")
        assert after["spine1"] <= before["spine1"] + 1, (before, after)

        # A reload takes spine1 out while a poll of it is in flight (a hanging one always is).
        inventory = yaml.safe_load(sim.inventory_path.read_text())
        del inventory["hosts"]["spine1"]
        (tmp_path / "inventory.yaml").write_text(yaml.safe_dump(inventory))
        good = daemon.config.read_text()
        daemon.write({**daemon.settings, "inventory": str(tmp_path / "inventory.yaml")})
        try:
            assert daemon.request("/-/reload", "POST")[0] == 200
            wait_for(lambda: [r for r in daemon.log_records() if r.get("device") == "spine1"
                              and "took it out of the inventory" in r["msg"]], "the poll in flight to end")
            assert [s.name for s in daemon.samples() if s.labels.get("device") == "spine1"] == []
        finally:
            daemon.write(good)
            assert daemon.request("/-/reload", "POST")[0] == 200
    finally:
        sim.set_slow("spine1", 0)


def test_a_stop_ends_the_open_events_at_the_stop_not_at_the_next_start(sim, tmp_path):
    """SIGTERM with a pause_rate open: the history showed it open while no daemon ran, and the next start ended it at
    its own time, so a minute of pausing before a night's stop read as a night long. The stop now ends it, then;
    with spine1's poll hanging at the time, the stop cuts it (not waited out) and the history stays whole.

    The hang has no end but the cut (session 45, round 26: this was a wall-clock bound, 10 polling intervals):
    spine1's agent is stopped (SIGSTOP: no answer ever comes) and the daemon's SNMP timeout is the settings' longest
    (248 days), so a stop that waited for the poll would not end by itself (the harness kills it: stop() raises).
    That the daemon exited 0 with spine1's poll never ended (no record of it answering or timing out, counted from
    the log) is the sign, whatever the machine's load."""
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None, "snmp_timeout_s": 2_147_483_647 / 100,
                                           "snmp_retries": 0}).start()
    sim.congest("leaf1", "Ethernet8", 3, on=True)
    try:
        [opened] = wait_for(lambda: [e for e in d.events(kind="pause_rate")
                                     if (e["device"], e["port"]) == ("leaf1", "Ethernet8") and e["end"] is None],
                            "pause_rate open")
        spine1 = d.value("losslessd_polls_total", device="spine1", source="snmp")
        sim.set_down("spine1")
        logged = len(d.log_records())
        polls = d.value("losslessd_polls_total", device="leaf1", source="snmp")
        wait_for(lambda: d.value("losslessd_polls_total", device="leaf1", source="snmp") >= polls + 2,
                 "two more polls of leaf1: spine1's poll hangs meanwhile")
        hung = d.value("losslessd_polls_total", device="spine1", source="snmp")
        assert hung <= spine1 + 1, (spine1, hung)  # (at most the poll answered before the agent stopped)
        assert d.stop() == 0
        stopped = time.time()
    finally:
        sim.congest("leaf1", "Ethernet8", 3, on=False)
        sim.set_down("spine1", False)
    # From the agent's stop on, nothing of spine1's poll: no answer, no failure, no timeout (its end never came);
    # the stop's own sequence ran once, each worker stopping by itself (a worker that waited for the poll is killed
    # by the daemon, which says so at error level), and the daemon exited 0 with that poll in flight.
    since = d.log_records()[logged:]
    assert [r for r in since if r.get("device") == "spine1"] == [], since
    assert [r["msg"] for r in since].count("stopping") == 1, since
    assert [r for r in since if r["level"] in ("warning", "error", "critical")] == [], since
    with sqlite3.connect(f"file:{d.folder / 'history.db'}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    [ended] = [e for e in d.events(device="leaf1", kind="pause_rate") if e["id"] == opened["id"]]
    assert ended["end_unix_s"] is not None and ended["end_unix_s"] <= stopped
    assert ended["message"].endswith("(interrupted: losslessd stopped; continued under this id if still present after "
                                     "its restart)")
    again = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}).start()
    try:
        assert not [r for r in again.log_records() if "an earlier run left open" in r["msg"]]
    finally:
        again.stop()


def _pause_rates_at(d: DaemonProcess, where: tuple[str, str, int]) -> list[dict]:
    """The history's pause_rate events at ``where`` (device, port, priority)."""
    return [e for e in d.events(kind="pause_rate") if (e["device"], e["port"], e["priority"]) == where]


def _said(d: DaemonProcess, change: str, where: tuple[str, str, int]) -> int:
    """How often the daemon logged (as it tells the sinks) a ``change`` of the pause_rate event at ``where``."""
    return sum(r["msg"].startswith(f"event {change} pause_rate: {where[0]} {where[1]} priority {where[2]}")
               for r in d.log_records())


def test_a_planned_restart_continues_an_event_still_present_under_its_id_and_alerts_no_new_one(sim, tmp_path):
    """A clean stop and start (an upgrade) with a pause_rate open and the port still congested: the stop ended it and
    told the sinks, and the start opened a new event, so on-call saw it resolve and fire again. Now the stop marks it
    interrupted (the history does not show it open while no daemon runs) and tells the sinks nothing; the start
    continues it under its id when the detector opens it again, and the sinks hear an update. One whose congestion
    ended while the daemon was stopped ends to the sinks once the window after the start has passed."""
    place, gone = ("leaf1", "Ethernet8", 3), ("leaf2", "Ethernet1", 3)

    def mine(where: tuple = place) -> list[dict]:
        return _pause_rates_at(d, where)

    def said(change: str, where: tuple = place) -> int:
        return _said(d, change, where)

    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None})
    d.start()
    try:
        sim.congest(*place, on=True)
        sim.congest(*gone, on=True)
        [opened] = wait_for(lambda: [e for e in mine() if e["end"] is None], "pause_rate open")
        wait_for(lambda: [e for e in mine(gone) if e["end"] is None], "pause_rate open on leaf2")
        assert d.stop() == 0
        sim.congest(*gone, on=False)
        [interrupted] = mine()
        assert interrupted["id"] == opened["id"] and interrupted["end"] is not None
        assert interrupted["numbers"]["interrupted"] == 1
        assert (said("start"), said("end")) == (1, 0)  # the sinks heard it open, and no end at the stop
        d.start()
        wait_for(lambda: [e for e in mine() if e["end"] is None], "the congestion seen again")
        [continued] = mine()  # the same event, no new one at its place
        assert continued["id"] == opened["id"] and continued["start_unix_s"] == opened["start_unix_s"]
        assert "interrupted" not in continued["numbers"]
        assert "(continued across a restart of losslessd: not watched while it was stopped)" in continued["message"]
        assert (said("start"), said("end")) == (1, 0) and said("update") >= 1
        # No new event: losslessd_events_total (scraped) does not count the continued one. Before: 1.
        assert (d.value("losslessd_events_total", kind="pause_rate") or 0) == 0
        # (the window: 5 s here, every detector's polls at the one source polling leaf2, SNMP at 1 s)
        wait_for(lambda: said("end", gone), "leaf2's interrupted event ended to the sinks", timeout_s=180)
        [ended] = mine(gone)
        assert "interrupted" not in ended["numbers"] and ended["message"].endswith("(not seen again after the restart)")
        assert said("start", gone) == 1
    finally:
        sim.congest(*place, on=False)
        sim.congest(*gone, on=False)
        d.stop()


def test_a_planned_restart_continues_the_event_of_a_device_whose_first_polls_fail_past_the_window(sim, tmp_path):
    """The window in which an interrupted event continues opens at its device's first poll that answers, not at the
    start: leaf1 down for many windows after the restart, then back with its port still congested, continues its
    event under its id. Before: the window ran from the start, so leaf1's event ended (\"not seen again\") and a new
    one opened when leaf1 answered."""
    place = ("leaf1", "Ethernet8", 3)

    def mine() -> list[dict]:
        return _pause_rates_at(d, place)

    # (the window: a few seconds, SNMP's 1 s polls; gNMI's sample interval counts in it no more where no device streams)
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None})
    d.start()
    try:
        sim.congest(*place, on=True)
        [opened] = wait_for(lambda: [e for e in mine() if e["end"] is None], "pause_rate open")
        assert d.stop() == 0
        sim.set_down("leaf1")
        d.start()
        wait_for(lambda: [e for e in d.events(kind="device_down", device="leaf1") if e["end"] is None],
                 "leaf1 down after the restart")
        # leaf2 polled 20 times since the start: 20 SNMP intervals (at least 20 s) passed, many times the window of
        # an event of a device that answers at once (counted polls, not the clock)
        polled = d.value("losslessd_polls_total", device="leaf2", source="snmp") or 0
        wait_for(lambda: (d.value("losslessd_polls_total", device="leaf2", source="snmp") or 0) >= polled + 20,
                 "20 more polls of leaf2", timeout_s=180)
        assert [e["id"] for e in mine()] == [opened["id"]]  # still interrupted, not ended
        sim.set_down("leaf1", False)
        wait_for(lambda: [e for e in mine() if e["end"] is None], "the congestion seen again", timeout_s=120)
        [continued] = mine()
        assert continued["id"] == opened["id"] and continued["start_unix_s"] == opened["start_unix_s"]
        assert "(continued across a restart of losslessd" in continued["message"]
        assert (d.value("losslessd_events_total", kind="pause_rate") or 0) == 0
    finally:
        sim.set_down("leaf1", False)
        sim.congest(*place, on=False)
        d.stop()


def test_an_interrupted_event_of_a_device_that_left_the_inventory_ends_after_the_restart(sim, tmp_path):
    """Session 43 review r1: the window of an interrupted event opens at its device's first answer; a device that left
    the inventory while the daemon was stopped never answers, so its event waited, never ended to the sinks, until the
    daemon stopped again. Now nothing polls it, so it ends ("not seen again") at once."""
    gone = ("leaf2", "Ethernet1", 3)

    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None})
    d.start()
    try:
        sim.congest(*gone, on=True)
        wait_for(lambda: [e for e in _pause_rates_at(d, gone) if e["end"] is None], "pause_rate open on leaf2")
        assert d.stop() == 0
        assert _said(d, "end", gone) == 0
        inventory = yaml.safe_load(sim.inventory_path.read_text())
        without = tmp_path / "inventory-without-leaf2.yaml"
        del inventory["hosts"]["leaf2"]  # (the simulator's Nornir SimpleInventory: hosts by name)
        without.write_text(yaml.safe_dump(inventory))
        d.settings["inventory"] = str(without)
        d.write(d.settings)
        d.start()
        # (bounded by leaf1's polls: the housekeeping that ends it runs every second)
        wait_polls(d, lambda: _said(d, "end", gone) == 1, "leaf2's interrupted event ended to the sinks", "leaf1",
                   polls=30)
        [ended] = _pause_rates_at(d, gone)
        assert ended["end"] is not None and "(not seen again after the restart)" in ended["message"]
        assert "interrupted" not in ended["numbers"]
    finally:
        sim.congest(*gone, on=False)
        d.stop()


def _interrupted_then_answered(sim, d, place):
    """The pause_rate event opened at ``place`` (congested), interrupted by a clean stop; the congestion gone, the
    daemon started again (one worker) until leaf1 answered, which opens its window."""
    sim.congest(*place, on=True)
    [opened] = wait_for(lambda: [e for e in _pause_rates_at(d, place) if e["end"] is None], "pause_rate open")
    assert d.stop() == 0
    sim.congest(*place, on=False)
    d.start(args=("--workers", "1"))
    wait_for(lambda: d.answered("leaf1") >= 1, "leaf1 answered after the restart")
    return opened


def test_a_worker_started_again_opens_the_window_of_its_devices_interrupted_events_again(sim, tmp_path):
    """Session 43 reread se (review r1's Left): a worker that died and was started again has new detectors, which
    need the whole detection time to see a condition again; the window of its devices' interrupted events kept
    running from the dead worker's first answer, so an event still present ended ("not seen again") and a new one
    opened. Now a started-again worker's first answer opens it again. Here leaf1 answers the first worker (its
    congestion gone for the while, so nothing continues), its worker is killed while leaf1 is down past the window
    (60 polls of leaf2 at 1 s, the window 5 s), and leaf1 back and congested continues its event under its id."""
    place = ("leaf1", "Ethernet8", 3)
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None})
    d.start(args=("--workers", "1"))
    try:
        opened = _interrupted_then_answered(sim, d, place)
        sim.set_down("leaf1")
        os.kill(wait_for(lambda: d.worker_pid(0), "the worker"), signal.SIGKILL)
        wait_for(lambda: d.value("losslessd_worker_restarts_total", worker="0") == 1, "the worker started again")
        polled = d.value("losslessd_polls_total", device="leaf2", source="snmp") or 0
        wait_for(lambda: (d.value("losslessd_polls_total", device="leaf2", source="snmp") or 0) >= polled + 60,
                 "60 more polls of leaf2", timeout_s=300)
        assert [e["id"] for e in _pause_rates_at(d, place)] == [opened["id"]] and _said(d, "end", place) == 0
        sim.set_down("leaf1", False)
        sim.congest(*place, on=True)
        wait_polls(d, lambda: [e for e in _pause_rates_at(d, place) if e["end"] is None], "the congestion seen again",
                   "leaf1", polls=60)
        [continued] = _pause_rates_at(d, place)
        assert continued["id"] == opened["id"] and "(continued across a restart of losslessd" in continued["message"]
        assert (_said(d, "start", place), _said(d, "end", place)) == (1, 0)
    finally:
        sim.set_down("leaf1", False)
        sim.congest(*place, on=False)
        d.stop()


def test_a_reload_that_changes_the_sources_of_a_device_recomputes_its_window(sim, tmp_path):
    """Session 44 review r2's Left: a device's window was worked out once, at its first answer, from the sources that
    polled it then. Here leaf1 is polled by SNMP (1 s) and its SSH counters (60 s): a window of 5 intervals of 60 s
    after its first answer. A reload takes the SSH counters off: the window is 5 of SNMP's 1 s intervals from that
    same answer, long past, so the event interrupted by the stop, its congestion gone, ends ("not seen again") within
    a few of leaf1's polls. Before: it waited out the 300 s window of a source that no longer polls leaf1."""
    place = ("leaf1", "Ethernet8", 3)
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": 60})
    d.start(args=("--workers", "1"))
    try:
        opened = _interrupted_then_answered(sim, d, place)
        polled = d.value("losslessd_polls_total", device="leaf1", source="snmp") or 0
        wait_for(lambda: (d.value("losslessd_polls_total", device="leaf1", source="snmp") or 0) >= polled + 10,
                 "ten more polls of leaf1")  # (twice SNMP's window: still waiting, in the SSH counters' window)
        assert [e["id"] for e in _pause_rates_at(d, place)] == [opened["id"]] and _said(d, "end", place) == 0
        d.settings["poll"] = {**d.settings["poll"], "ssh_counters_interval_s": None}
        d.write(d.settings)
        status, body = d.request("/-/reload", "POST")
        assert status == 200, body
        wait_polls(d, lambda: _said(d, "end", place) == 1, "leaf1's interrupted event ended to the sinks", "leaf1",
                   polls=30)
        [ended] = _pause_rates_at(d, place)
        assert ended["id"] == opened["id"] and "(not seen again after the restart)" in ended["message"]
    finally:
        sim.congest(*place, on=False)
        d.stop()


def test_events_of_a_polled_device_before_its_first_rows_is_no_events_yet_and_of_an_unknown_one_exit_2(sim, tmp_path):
    """`losslessd events --device leaf1` against a daemon whose leaf1 has not answered yet (a starting daemon, a device
    down since the start) exited 2, "the history holds no device of that name (devices: leaf2, spine1)": the history
    knew only the devices it held rows of. The daemon now writes the devices it polls into the history at its start:
    leaf1 is "no events" with a note, exit 0; a name it does not poll is still exit 2."""
    from .clirun import losslessd

    db = tmp_path / "history.db"
    sim.set_down("leaf1")
    # (leaf1 never marked down, so no event row of it either: only what the daemon polls can name it)
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None}, detection={"down_after_failures": 10000})
    try:
        d.start()

        def rows_of(device: str) -> int:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                return conn.execute("SELECT count(*) FROM ports WHERE device = ?", (device,)).fetchone()[0]

        wait_polls(d, lambda: rows_of("leaf2"), "leaf2's first rows committed", "leaf2", polls=30)
        assert rows_of("leaf1") == 0 and d.answered("leaf1") == 0
        quiet = losslessd("events", "--db", db, "--device", "leaf1")
        assert quiet.returncode == 0 and quiet.stdout == "no events\n", quiet
        assert "no events yet: the daemon polls leaf1" in quiet.stderr, quiet
        typo = losslessd("events", "--db", db, "--device", "leaf9")
        assert typo.returncode == 2 and "(devices: leaf1, leaf2, spine1)" in typo.stderr, typo
    finally:
        sim.set_down("leaf1", False)
        d.stop()


# A worker whose stop outlasts WORKER_STOP_S (its pollers' close takes 40 s) and whose rows wait to be sent (its ticker
# sends them every 20 s, not every 0.2 s): a sitecustomize.py on the daemon's PYTHONPATH, in worker processes only.
_SLOW_STOP = """import os, sys
if "--fd" in sys.argv:  # a worker (python -m losslessd.daemon.worker --fd N --index I)
    import asyncio

    from losslessd.daemon import pollers

    waiting = asyncio.sleep

    def sleep(delay, result=None):  # (the worker runs as __main__: its FLUSH_S is not this process's module's)
        if sys._getframe(1).f_code.co_name == "_tick":
            delay = 20.0  # (below WORKER_SILENT_S: its beats still go out)
        return waiting(delay, result)

    asyncio.sleep = sleep
    closing = pollers.SnmpCounters.aclose

    async def aclose(self):
        await asyncio.sleep(40)
        await closing(self)

    pollers.SnmpCounters.aclose = aclose
"""


@pytest.mark.parametrize("slow_stop", [False, True], ids=["stop", "stop-past-its-kill"])
def test_a_clean_stop_keeps_every_row_a_worker_collected_before_it(sim, tmp_path, slow_stop):
    """Session 43 asked whether a worker stopped with the daemon loses the rows it has not sent yet (they wait up to
    FLUSH_S, 0.2 s): refuted. The stop reaches a worker as a message; it ends its polls, sends what waits, and the
    daemon records it before it closes the history. Here leaf1's pauses are read every 0.1 s (rows not sent yet are
    nearly always waiting at the stop), and SIGTERM follows at once a scrape that saw a poll end: every pause the
    daemon had read then (its raw counter on /metrics, less the value before the congestion) is in the history.
    Session 45 (``slow_stop``): a worker whose stop took longer than WORKER_STOP_S was killed before it sent its rows
    (it sent them after closing its pollers); it now sends them as soon as its polls are cancelled."""
    from losslessd.monitor import PFC_RX

    place = ("leaf1", "Ethernet8", 3)
    d = DaemonProcess(sim, tmp_path, poll={"snmp_interval_s": 0.1, "ssh_counters_interval_s": None})
    env = None
    if slow_stop:
        (tmp_path / "hook").mkdir()
        (tmp_path / "hook" / "sitecustomize.py").write_text(_SLOW_STOP)
        env = {"PYTHONPATH": os.pathsep.join(p for p in (str(tmp_path / "hook"), os.environ.get("PYTHONPATH", ""))
                                             if p)}

    def scraped() -> tuple[float, float]:
        """leaf1's SNMP polls and its raw pause counter at place, from one scrape."""
        samples = {(s.name, s.labels.get("device"), s.labels.get("port"), s.labels.get("priority"),
                    s.labels.get("source")): s.value for s in d.samples()}
        return (samples.get(("losslessd_polls_total", "leaf1", None, None, "snmp"), 0),
                samples.get(("losslessd_pfc_rx_frames_total", "leaf1", "Ethernet8", "3", None), 0))

    try:
        d.start(env=env)
        wait_for(lambda: d.answered("leaf1") >= 3, "three polls of leaf1 that answered")
        before = scraped()[1]  # (no pauses there yet: the first reading's value)
        sim.congest(*place, on=True)
        polls, _ = wait_for(lambda: (n := scraped())[1] > before and n, "leaf1's pauses counted")
        while (now := scraped())[0] == polls:  # a poll of leaf1 ended since: its rows are at most just collected
            pass
        d.proc.send_signal(signal.SIGTERM)
        assert d.proc.wait(timeout=60) == 0
        with sqlite3.connect(f"file:{tmp_path / 'history.db'}?mode=ro", uri=True) as db:
            [(stored,)] = db.execute("SELECT sum(total) FROM samples WHERE device = ? AND port = ? AND name = ? AND "
                                     "idx = ?", ("leaf1", "Ethernet8", PFC_RX, 3)).fetchall()
        read = now[1] - before
        assert stored is not None and stored >= read * (1 - 1e-9), (stored, read)
        killed = [r for r in d.log_records() if "did not stop within" in r["msg"]]
        assert bool(killed) == slow_stop  # (the slow ones were killed: what they sent before is what is stored)
    finally:
        sim.congest(*place, on=False)
        d.stop()


# The daemon (not its workers) waits an hour before it starts a dead worker again: a sitecustomize.py on its
# PYTHONPATH, in the daemon's process only.
_LONG_BACKOFF = """import sys
if "daemon" in sys.argv and "--fd" not in sys.argv:
    from losslessd.daemon import service

    service.RESTART_BACKOFF_S = (3600.0,)
"""


def test_a_stop_while_a_dead_worker_waits_to_be_started_again_stops_at_once(sim, tmp_path):
    """Session 45 review r2: a worker that died waits RESTART_BACKOFF_S (up to 30 s) before it is started again; a
    stop then waited out that wait (the stop gathered the task that slept in it), past a service manager's stop
    timeout when the waits are long. Here the wait is an hour: the stop ends the wait, starts no worker, and the
    daemon exits 0 within DaemonProcess.stop's bound; losslessd_worker_state said backing_off meanwhile."""
    d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None})
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(_LONG_BACKOFF)
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(tmp_path / "hook"), os.environ.get("PYTHONPATH", "")) if p)}
    d.start(env=env, args=("--workers", "1"))
    try:
        os.kill(wait_for(lambda: d.worker_pid(0), "the worker"), signal.SIGKILL)
        wait_for(lambda: d.value("losslessd_worker_state", worker="0", state="backing_off") == 1, "backing_off")
        assert any("starting it again in 3600 s" in r["msg"] for r in d.log_records())
    finally:
        assert d.stop() == 0
    assert not [r for r in d.log_records() if "did not stop within" in r["msg"]]


def test_polls_that_wait_for_a_slot_longer_than_an_interval_are_counted_and_said_once(sim, tmp_path):
    """One slot (poll.concurrency 1) and spine1 answering 3 s late at 1 s polls: leaf1's and leaf2's polls wait behind
    it, so their cadence (and a storm's detection time) stretches threefold. That was silent (poll_duration_seconds
    counts from the slot, not from the due time); now losslessd_polls_late_total counts each such poll, the log says
    once when the spell begins, and once when polls start on time again."""
    d = DaemonProcess(sim, tmp_path, workers=1, poll={"concurrency": 1, "snmp_timeout_s": 10,
                                                      "ssh_counters_interval_s": None}).start()
    try:
        def late() -> float:
            return sum(d.value("losslessd_polls_late_total", device=n, source="snmp") or 0 for n in ("leaf1", "leaf2"))

        def said() -> list[dict]:
            return [r for r in d.log_records() if r.get("source") == "snmp" and r["msg"].startswith(
                ("snmp polls start late: ", "snmp polls start on time again"))]

        def alternate(records: list[dict]) -> bool:
            """Each spell said once: a start, then its end, then maybe the next spell's start (a loaded machine can
            give every waiting device an on-time start between two slow polls: a spell that really ended)."""
            return all(("late" in r["msg"]) == (k % 2 == 0) for k, r in enumerate(records))

        wait_for(lambda: d.value("losslessd_up", device="spine1") == 1, "spine1 polled")
        sim.set_slow("spine1", 3 * INTERVAL_S)
        try:
            # (bounded by leaf1's polls, not by wall time: a loaded machine polls slower; each slow spine1 poll
            # makes the two leaves' next polls late)
            wait_polls(d, lambda: late() >= 6, "six late polls of leaf1 and leaf2", "leaf1", polls=40)
            # Once for the spell, not per poll, nor again each time spine1's own poll starts on time.
            records = said()
            assert records and alternate(records), [r["msg"] for r in records]
            warned = records[0]
            assert warned["level"] == "warning" and "all 1 polls in flight (poll.concurrency)" in warned["msg"]
        finally:
            sim.set_slow("spine1", 0)
        # A loaded machine can keep polls late for a while after spine1 is fast again (one slot for three
        # devices): the spell ends once every late device started on time, which leaf1's polls bound, not the clock.
        wait_polls(d, lambda: (r := said()) and alternate(r) and "on time again" in r[-1]["msg"],
                   "the polls to start on time again", "leaf1", polls=120)
    finally:
        d.stop()


def test_garbage_answers_fail_the_poll_by_name_raise_nothing_and_recover(daemon, sim):
    wait_for(lambda: daemon.value("losslessd_up", device="leaf1") == 1, "leaf1 up")
    since = time.time()

    def failed(source: str) -> list[dict]:
        return [r for r in daemon.log_records() if r.get("device") == "leaf1" and r.get("source") == source
                and "unusable answer" in r["msg"]]

    sim.set_garbage("leaf1")
    try:
        snmp = wait_for(lambda: failed("snmp"), "the failed SNMP poll logged")
        assert snmp[0]["level"] == "warning" and "leaf1" in snmp[0]["msg"] and "not numbers" in snmp[0]["msg"]
        assert "SYS014: unusable answer" in snmp[0]["msg"]  # the code `pull` gives the same case
        ssh = wait_for(lambda: failed("ssh"), "the failed SSH counter poll logged")
        assert "SYS014: unusable answer" in ssh[0]["msg"]
        assert "`show pfcwd stats -e`" in ssh[0]["msg"] or "`show queue wredcounters`" in ssh[0]["msg"]
        wait_for(lambda: daemon.value("losslessd_up", device="leaf1") == 0, "leaf1 marked down")
    finally:
        sim.set_garbage("leaf1", False)
    wait_for(lambda: daemon.value("losslessd_up", device="leaf1") == 1, "leaf1 back")

    def raised() -> list[dict]:
        return [e for e in daemon.events(device="leaf1") if e["start_unix_s"] >= since]

    wait_for(lambda: all(e["end"] is not None for e in raised()), "device_down to end")
    assert {e["kind"] for e in raised()} <= {"device_down"}  # no storm, no pause rate from the gap


@pytest.mark.parametrize("step", ["lint", "parse"])
def test_a_stop_after_the_pull_ends_drifts_lint_and_the_config_reads_parse(sim_fabric, step):
    """A stop that comes once the configs are pulled (cancel() as the pull returns) ends what follows, the lint of the
    snapshot (a drift run) or its parse (a config read), at its next device or rule: CancelledError, so the daemon's
    thread ends and the process exits. It ran to its end (tens of seconds for 200 devices) while the stopped daemon
    waited to join the thread."""
    from losslessd.collect.pull import Cancel
    from losslessd.daemon.drift import pull_and_lint, read_configs
    from losslessd.inventory import load
    from losslessd.policy import load_policy

    lints: list[str] = []

    class StoppedAsThePullEnds(Cancel):
        async def run(self, coro):
            result = await super().run(coro)
            self.cancel()
            return result

        def check(self, *progress) -> None:
            lints.append(str(progress))
            super().check(*progress)

    hosts = load(sim_fabric.inventory_path, sim_fabric.env)
    common = {"known_hosts": sim_fabric.known_hosts_path, "concurrency": 4, "timeout_s": 60,
              "cancel": StoppedAsThePullEnds()}
    with pytest.raises(asyncio.CancelledError):
        if step == "lint":
            pull_and_lint(hosts, load_policy("roce-dscp26"), **common)
        else:
            read_configs(hosts, **common)
    assert len(lints) == 1  # ended at the first device read
    # not cancelled: to its end, every device read (and each rule checked)
    common["cancel"] = Cancel()
    pulled = pull_and_lint(hosts, load_policy("roce-dscp26"), **common) if step == "lint" else read_configs(
        hosts, **common)
    assert pulled.missing == {} and set(pulled.queues) >= {"leaf1", "spine1"}


def test_hostile_if_names_reach_no_metrics_label_history_row_or_raw_log_line(tmp_path):
    """leaf1's agent names Ethernet4 with a terminal title escape and a newline, and Ethernet8 as Ethernet0 (two
    ifIndexes, one name): the daemon leaves those ports out of /metrics and the history, says why once in a printable
    warning, and keeps polling the rest (leaf1 up, Ethernet12 counted)."""

    sim = Simulator(FABRIC, tmp_path / "sim", devices=["leaf1"]).start()
    try:
        data = sim._agents._agents["leaf1"].data_file
        # (SONiC: EthernetN is ifIndex N + 1)
        sim._agents.rewrite("leaf1", with_if_names(data.read_text(), {5: b"\x1b]0;pwned\x07Ethernet4\n",
                                                                     9: b"Ethernet0"}))
        daemon = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None}).start()
        try:
            warned = wait_for(lambda: [r for r in daemon.log_records() if "ifIndex 5" in r.get("msg", "")],
                              "the unusable ifNames logged")
            wait_for(lambda: daemon.value("losslessd_poll_unread_parts", device="leaf1", source="snmp") == 3,
                     "the three ports counted as unread")
            assert "\x1b" not in warned[0]["msg"] and "\n" not in warned[0]["msg"] and "\\x1b" in warned[0]["msg"]
            assert len([r for r in daemon.log_records() if "ifIndex 5" in r.get("msg", "")]) == 1  # once, not per poll
            ports = {s.labels.get("port") for s in daemon.samples() if s.labels.get("device") == "leaf1"}
            assert "Ethernet12" in ports and not {"Ethernet0", "Ethernet8"} & ports
            assert not [p for p in ports if p and not p.isprintable()]
            assert daemon.value("losslessd_up", device="leaf1") == 1
            wait_for(lambda: (daemon.value("losslessd_polls_total", device="leaf1", source="snmp") or 0) >= 3,
                     "polls whose rates the history keeps")
        finally:
            assert daemon.stop() == 0
        db = sqlite3.connect(daemon.folder / "history.db")
        stored = {port for (port,) in db.execute("SELECT port FROM ports WHERE device = 'leaf1'")}
        assert stored and all(p.isprintable() for p in stored) and not {"Ethernet0", "Ethernet8"} & stored
    finally:
        sim.stop()


def test_a_stop_cuts_a_config_read_in_flight(tmp_path):
    """leaf1 takes an hour to accept a login and the SSH timeout is an hour, so the config read at the start is in
    flight whenever the daemon is stopped (SSH counter polls off: the read is leaf1's one SSH connection). SIGTERM cuts
    the read's session and the daemon exits 0 within DaemonProcess.stop's bound; it waited out the read (the process
    joins the read's thread before it exits), here an hour. The cut read is no failed read: nothing says it was not
    read, and no event or finding of it is in the history."""
    sim = Simulator(FABRIC, tmp_path / "sim", devices=["leaf1"]).start()
    try:
        sim.set_slow("leaf1", 3600, login=True)
        daemon = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_timeout_s": 3600, "ssh_counters_interval_s": None})
        daemon.start()
        try:
            wait_for(lambda: sim.ssh_connections("leaf1") == 1, "the config read of leaf1 logging in")
        finally:
            assert daemon.stop() == 0
        wait_for(lambda: sim.ssh_connections("leaf1") == 0, "the read's session closed")
        assert not [r for r in daemon.log_records() if r["msg"].startswith("the config of leaf1")]
        assert daemon.events(kind="finding_new") == []
    finally:
        sim.stop()


def test_a_device_the_fast_snmp_path_hands_to_pysnmp_is_counted_by_reason(tmp_path):
    """snmpsim serves SNMPv3 in a contextName, which gufo-snmp does not send: the fast poller hands that device to
    pysnmp, at about 30 times the CPU a poll. Nothing said so; losslessd_snmp_fallback_polls_total{device, reason}
    counts those polls (scraped over HTTP from a real daemon), and a device the fast path polls has no series."""
    sim = Simulator(FABRIC, tmp_path / "sim", devices=["leaf1"], snmp_v3=True).start()
    try:
        daemon = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None,
                                                               "snmp_backend": "fast"}).start()
        try:
            wait_for(lambda: (daemon.value("losslessd_snmp_fallback_polls_total", device="leaf1", reason="context")
                              or 0) >= 2, "two polls of leaf1 by pysnmp counted")
            assert daemon.value("losslessd_up", device="leaf1") == 1
            reasons = {s.labels["reason"] for s in daemon.samples() if s.name == "losslessd_snmp_fallback_polls_total"}
            assert reasons == {"context"}
        finally:
            assert daemon.stop() == 0
    finally:
        sim.stop()
