"""Candidates rendered and linted per device, benchmark runs that fail, and the trial store (offline)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from losslessd.errors import InputError
from losslessd.lint.finding import Finding
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.session import run_benchmark
from losslessd.tune.space import Candidate
from losslessd.tune.store import AS_FOUND, Store, Trial

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "examples" / "fabric"
POLICY = load_policy("roce-dscp26")
FIXTURES = Path(__file__).parent / "fixtures" / "bench"


def leaf1(pool_bytes: int | None = None) -> candidate.DeviceConfig:
    db = json.loads((FABRIC / "leaf1" / "config_db.json").read_text())
    if pool_bytes is not None:
        db["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = str(pool_bytes)
    return candidate.load("leaf1", "sonic", json.dumps(db, indent=4), POLICY, ["Ethernet0", "Ethernet4"])


def test_sonic_candidate_is_a_wred_profile_on_the_tuned_queues():
    cfg = leaf1()
    checked = candidate.check(cfg, POLICY, Candidate(200_000, 2_000_000, 5.0))
    patch = json.loads(checked.snippet)
    assert patch["WRED_PROFILE"]["ROCE_LOSSLESS_200000_2000000"]["green_min_threshold"] == "200000"
    assert patch["WRED_PROFILE"]["ROCE_LOSSLESS_200000_2000000"]["green_drop_probability"] == "5"
    assert patch["QUEUE"] == {"Ethernet0|3": {"wred_profile": "ROCE_LOSSLESS_200000_2000000"},
                              "Ethernet4|3": {"wred_profile": "ROCE_LOSSLESS_200000_2000000"}}
    assert not checked.refused
    assert candidate.ecn_check(cfg, POLICY, candidate.expected(cfg, POLICY, Candidate(200_000, 2_000_000, 5.0)))(
        checked.applied) is None


def test_candidate_marking_after_pfc_is_refused():
    """A pool this small puts the PG's PFC trigger under load (reserved + alpha x pool / (1 + n x alpha), n = the 6
    lossless PGs sharing the pool) near 79 KB: a Kmin of 400 KB (or 100 KB) marks only after PFC pauses (ECN004),
    so the candidate is refused; 40 KB is not."""
    cfg = leaf1(pool_bytes=600_000)
    late = candidate.check(cfg, POLICY, Candidate(400_000, 2_000_000, 5.0))
    assert late.refused and any(f.code == "ECN004" and f.port == "Ethernet0" for f in late.refusals)
    assert "ECN004 Ethernet0" in late.reasons()[0]
    assert candidate.check(cfg, POLICY, Candidate(100_000, 2_000_000, 5.0)).refused
    early = candidate.check(cfg, POLICY, Candidate(40_000, 2_000_000, 5.0))
    assert not early.refused


def test_candidate_above_a_stated_pause_threshold_is_not_refused():
    """ECN004's warning on a stated NX-OS pause threshold (`pause-threshold 120000`, a trigger the same at any load)
    is the one the rule accepts as a warning: the tuner refuses only the congested-pool warning (data
    break_even_congested), so Kmin 307200 B is kept on n9k-pause-threshold-below-kmin (was refused)."""
    here = ROOT / "tests" / "realworld" / "cisco_nxos"
    policy = load_policy(here / "policy-dscp26-prio5.yaml")
    text = (here / "n9k-pause-threshold-below-kmin.cfg").read_text()
    for head in ("interface eth1/41-42\n", "interface eth1/43\n"):
        text = text.replace(head, head + "  speed 100000\n")
    cfg = candidate.load("n9k", "cisco_nxos", text, policy, model="Nexus9000 C93180YC-EX")
    checked = candidate.check(cfg, policy, Candidate(307_200, 614_400, 10.0))
    warned = [f for f in checked.findings if f.code == "ECN004"]
    assert warned and all("stated XOFF threshold" in f.message for f in warned)
    assert not checked.refused, checked.reasons()


def test_eos_candidate_and_settings_as_found():
    text = (FABRIC / "spine1.cfg").read_text()
    cfg = candidate.load("spine1", "arista_eos", text, POLICY, ["Ethernet1/1", "Ethernet3/1"])
    found = candidate.as_found(cfg, POLICY)
    assert found == Candidate(153600, 1536000, 100.0)  # the service-profile's 150 / 1500 kbytes at 100 %
    checked = candidate.check(cfg, POLICY, Candidate(153600, 1536000, 100.0))
    assert checked.snippet == ""  # already what the ports run: nothing to push
    other = candidate.check(cfg, POLICY, Candidate(300_000, 3_000_000, 20.0))
    assert "interface Ethernet1/1" in other.snippet and "interface Ethernet3/1" in other.snippet
    assert ("random-detect ecn minimum-threshold 300000 bytes maximum-threshold 3000000 bytes max-mark-probability 20"
            in other.snippet)
    all_ports = candidate.load("spine1", "arista_eos", text, POLICY)
    assert candidate.as_found(all_ports, POLICY) is None  # Ethernet2/1 writes its thresholds in segments


def test_a_device_that_cannot_be_tuned():
    with pytest.raises(InputError, match="no port Ethernet99"):
        candidate.load("leaf1", "sonic", (FABRIC / "leaf1" / "config_db.json").read_text(), POLICY, ["Ethernet99"])
    with pytest.raises(InputError, match="gpu01: a linux_mlx5 host marks no ECN"):
        candidate.load("gpu01", "linux_mlx5", "", POLICY)
    with pytest.raises(InputError, match="platform opensm has no ECN template to tune"):
        candidate.load("sm1", "opensm", "", POLICY)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


@pytest.mark.slow  # starts a process
def test_benchmark_runs_that_give_no_result_are_invalid_with_a_reason():
    good = run_benchmark(_python(f"print(open({str(FIXTURES / 'nccl' / '2.20.0-all_reduce-2xGB10-roce.txt')!r}).read())"),
                         30)
    assert good.result.valid and good.result.sizes[65536].busbw_gbps == 0.96
    failed = run_benchmark(_python("import sys; print('NCCL WARN net failure', file=sys.stderr); sys.exit(3)"), 30)
    assert failed.result.invalid == ["the benchmark exited with status 3: NCCL WARN net failure"]
    empty = run_benchmark(_python("print('hello')"), 30)
    assert "nothing parseable" in empty.result.invalid[0]
    wrong = run_benchmark(_python(f"print(open({str(FIXTURES / 'nccl' / 'synthetic-2.19-wrong-elements.txt')!r}).read())"),
                          30)
    assert any("#wrong 12" in r for r in wrong.result.invalid)
    missing = run_benchmark(["/nonexistent/all_reduce_perf"], 30)
    assert "cannot run" in missing.result.invalid[0]


@pytest.mark.slow  # starts a process
def test_a_benchmark_that_hangs_is_stopped():
    hung = run_benchmark(_python("import time\nprint('# nThread 1', flush=True)\ntime.sleep(600)"), 1.0)
    assert hung.result.invalid == ["the benchmark did not finish within 1 s (--timeout); it was stopped"]
    assert "# nThread 1" in hung.output


@pytest.mark.slow  # starts processes
def test_a_benchmark_that_prints_without_end_is_stopped_at_the_input_limit():
    """`yes` as the benchmark (or one stuck in a print loop): communicate() kept every byte until --timeout, gigabytes
    a second. Output past the limit stops the process group; what came before it is kept, decoded as before."""
    endless = run_benchmark(_python("import sys\nsys.stdout.write('# nThread 1\\r\\n')\nwhile True:\n"
                                    "    sys.stdout.write('y' * 65536)"), 60, limit=1024 * 1024)
    assert endless.result.invalid == ["the benchmark printed more than 1 MiB, the limit of any input "
                                      "(LOSSLESSD_MAX_FILE_MB); it was stopped"]
    assert endless.output.startswith("# nThread 1\ny") and len(endless.output) <= 1024 * 1024
    both = run_benchmark(_python("import sys\nfor _ in range(40):\n    sys.stderr.write('e' * 65536)\n"
                                 "    sys.stdout.write('o' * 65536)"), 60, limit=4 * 1024 * 1024)
    assert "printed more than 4 MiB" in both.result.invalid[0]  # (stdout and stderr counted together)
    closed = run_benchmark(_python("import os, time\nos.close(1)\nos.close(2)\ntime.sleep(600)"), 1.0)
    assert closed.result.invalid == ["the benchmark did not finish within 1 s (--timeout); it was stopped"]


@pytest.mark.slow  # starts processes
def test_a_benchmark_that_exits_leaving_a_process_on_its_output_is_read_and_one_killed_is_named():
    """A wrapper that starts a monitor in the background and exits: the monitor held the benchmark's pipes, so its
    output was waited for until --timeout (an hour by default) and the trial thrown away as one that did not finish.
    The leftovers are stopped and the output read, with a note; a benchmark killed by a signal is said so (it was
    "exited with status -9")."""
    fixture = FIXTURES / "nccl" / "2.20.0-all_reduce-2xGB10-roce.txt"
    wrapper = _python("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; "
                      f"time.sleep(600)'])\nprint(open({str(fixture)!r}).read())")
    ran = run_benchmark(wrapper, 120)
    assert ran.result.valid, ran.result.invalid
    assert ran.result.sizes[65536].busbw_gbps == 0.96 and ran.result.notes[0].startswith("the benchmark exited, but "
                                                                                         "processes it started")
    killed = run_benchmark(_python("import os, signal\nprint('# nThread 1', flush=True)\n"
                                   "os.kill(os.getpid(), signal.SIGKILL)"), 30)
    assert killed.result.invalid == ["the benchmark was killed by signal 9 (SIGKILL): # nThread 1"]


def test_store_keeps_finished_trials_and_resumes_the_unfinished_tune(tmp_path):
    db = tmp_path / "tune.sqlite"
    params = {"benchmark": ["x"], "budget": 3}
    with Store(db) as store:
        tune, resumed = store.open_tune(params)
        assert not resumed
        store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0, per_size={2**20: 10.0}, output="x" * 10))
        store.add_trial(tune.id, Trial(1, Candidate(1, 2, 3.0).key, "refused", False, reason="lints with an error"))
    # The process died here. The same parameters resume tune 1 with its two trials.
    with Store(db) as store:
        again, resumed = store.open_tune(params)
        assert resumed and again.id == tune.id
        trials = store.trials(again.id)
        assert [(t.seq, t.candidate, t.status, t.ran, t.per_size) for t in trials] == [
            (0, AS_FOUND, "ok", True, {2**20: 10.0}), (1, "kmin=1,kmax=2,pmax=3", "refused", False, {})]
        store.finish(again.id, "finished", AS_FOUND, 10.0, None)
        other, resumed = store.open_tune({**params, "budget": 4})
        assert not resumed and other.id != tune.id
    with Store(db) as store:  # a finished tune is not resumed: the same command starts a new one
        _, resumed = store.open_tune(params)
        assert not resumed


def test_a_trial_stored_twice_is_a_losslessd_bug_not_an_unwritable_database(tmp_path):
    """A UNIQUE failure (one seq stored twice) is our bug: it read as "cannot write the tune database" (exit 2) and
    every later write was skipped silently. It is raised as it is, and the store keeps writing."""
    with Store(tmp_path / "tune.sqlite") as store:
        tune, _ = store.open_tune({"benchmark": ["x"], "budget": 3})
        store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0))
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=11.0))
        store.add_trial(tune.id, Trial(1, AS_FOUND, "ok", True, score=12.0))
        assert [(t.seq, t.score) for t in store.trials(tune.id)] == [(0, 10.0), (1, 12.0)]


def test_a_tune_database_made_read_only_while_open_is_an_input_error_once(tmp_path):
    """A file that cannot take a write (here one opened read-only under the store) is an InputError naming it, raised
    once; the writes after it are skipped, that error having said so."""
    db = tmp_path / "tune.sqlite"
    with Store(db) as store:
        tune, _ = store.open_tune({"benchmark": ["x"], "budget": 3})
        store.db.close()
        store.db = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
        with pytest.raises(InputError, match="cannot write the tune database: the file is read-only to this process"):
            store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0))
        store.add_trial(tune.id, Trial(1, AS_FOUND, "ok", True, score=10.0))  # skipped: no second error
        assert store.trials(tune.id) == []


def test_a_tune_database_another_program_keeps_locked_is_an_input_error_not_a_crash(tmp_path):
    """A lock held by another program past the wait (SQLITE_BUSY) is the file's state, not losslessd's bug: an
    InputError naming the file (exit 2), as a full disk is, not a traceback (exit 3)."""
    db = tmp_path / "tune.sqlite"
    with Store(db) as store:
        tune, _ = store.open_tune({"benchmark": ["x"], "budget": 3})
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            store.db.close()
            store.db = sqlite3.connect(db, timeout=0.05, isolation_level=None)  # (the store waits 30 s)
            with pytest.raises(InputError, match="cannot write the tune database: another program holds the file "
                                                 "locked past the wait") as caught:
                store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0))
            assert caught.value.file == str(db)
        finally:
            other.execute("ROLLBACK")
            other.close()


@pytest.mark.slow  # (starts a second Python process)
def test_a_second_tune_on_the_same_database_is_refused_naming_the_first(tmp_path):
    """Two `tune --apply` runs given one --db: the second took the first's running tune for a killed one, resumed it
    and pushed candidates to the same devices beside it. Now it is refused before anything is read or pushed (exit 2,
    naming the first's pid); a report still reads the database, and the next tune runs once the first has ended."""
    db = tmp_path / "tune.sqlite"
    second = [sys.executable, "-c", "import sys; from losslessd.tune.store import Store\n"
              "from losslessd.errors import InputError\ntry:\n    Store(sys.argv[1]).open_tune({'budget': 3})\n"
              "except InputError as exc:\n    sys.exit(str(exc))\n", str(db)]
    with Store(db) as first:
        first.open_tune({"budget": 3})
        res = subprocess.run(second, capture_output=True, text=True)
        lock = f"{tmp_path}/.{db.name}.lock"
        assert res.returncode == 1 and f"written by another losslessd tune (pid {os.getpid()}, lock {lock})" in \
            res.stderr, res.stderr
        with Store(db, create=False) as report:
            assert [t.status for t in report.tunes()] == ["running"]
    res = subprocess.run(second, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


@pytest.mark.slow  # (starts a second Python process)
def test_a_tune_whose_lock_file_was_removed_takes_it_again_at_its_next_write(tmp_path):
    """The history's writer checks its lock before it writes (statelock.still_held); a tune of hours did not: its lock
    file removed (a cleanup of the folder's dot files), a second tune on the same --db was let in and both wrote one
    database. Now the tune's next write takes it again, and the second is refused naming the first."""
    db = tmp_path / "tune.sqlite"
    lock = tmp_path / f".{db.name}.lock"
    second = [sys.executable, "-c", "import sys; from losslessd.tune.store import Store\n"
              "from losslessd.errors import InputError\ntry:\n    Store(sys.argv[1])\n"
              "except InputError as exc:\n    sys.exit(str(exc))\n", str(db)]
    with Store(db) as first:
        tune, _ = first.open_tune({"budget": 3})
        lock.unlink()
        first.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0))
        # (read by another process: closing a file of its own this process would let its record lock go, fcntl(2))
        assert subprocess.run(["cat", str(lock)], capture_output=True, text=True).stdout.strip() == str(os.getpid())
        res = subprocess.run(second, capture_output=True, text=True)
        assert res.returncode == 1 and f"written by another losslessd tune (pid {os.getpid()}, lock {lock})" in \
            res.stderr, res.stderr


def test_store_refuses_a_file_that_is_not_a_tune_database(tmp_path):
    bad = tmp_path / "x.sqlite"
    bad.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(InputError, match="not a losslessd tune database"):
        Store(bad)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("INSERT INTO meta VALUES ('schema', '99')")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="schema 99"):
        Store(other)


def test_a_counter_cleared_during_a_trial_is_a_note_not_a_silent_zero():
    """A clear drops only that counter's delta (monitor/counters.py): a trial must say its drop count lacks it,
    as it said when a clear dropped the whole reading, or a drop on a lossless queue passes unseen."""
    from losslessd.monitor import DROPPED_PACKETS, PFC_RX, Key, Reading
    from losslessd.tune.counters import CounterReader, Snapshot

    def snap(t: float, dropped: int, pauses: int) -> Snapshot:
        values = {Key("Ethernet0", DROPPED_PACKETS, 3): dropped, Key("Ethernet0", PFC_RX, 3): pauses}
        return Snapshot(readings={("sw1", "ssh"): Reading("sw1", t, 1000.0 + t, None, values)})

    reader = CounterReader({}, {"sw1": {"Ethernet0": 100.0}}, [3], known_hosts=None)
    try:
        counters, problems = reader.delta(snap(0.0, 500, 10), snap(10.0, 2, 30), 10.0)
    finally:
        reader.close()
    assert counters.pause_frames == 20
    assert counters.dropped is None
    assert any("cleared during the trial" in p and "Ethernet0 dropped_packets 3" in p for p in problems), problems
    # A counter the second snapshot did not read (a command that failed, a value printed N/A) is unknown too.
    later = snap(10.0, 600, 30)
    del later.readings[("sw1", "ssh")].values[Key("Ethernet0", DROPPED_PACKETS, 3)]
    reader = CounterReader({}, {"sw1": {"Ethernet0": 100.0}}, [3], known_hosts=None)
    try:
        counters, problems = reader.delta(snap(0.0, 500, 10), later, 10.0)
    finally:
        reader.close()
    assert counters.dropped is None and any("read in only one of the trial's two snapshots" in p
                                            and "Ethernet0 dropped_packets 3" in p for p in problems), problems



def test_a_counter_table_a_snapshot_could_not_read_is_a_note_of_the_trial():
    """A source that read its pause counters but not its queue table (Reading.unread) leaves the trial without
    drop counts: the trial says so, once, instead of reading as one that dropped nothing."""
    from losslessd.monitor import PFC_RX, Key, Reading
    from losslessd.tune.counters import CounterReader, Snapshot

    why = "show queue counters: no counter table in the answer"

    def snap(t: float, pauses: int) -> Snapshot:
        return Snapshot(readings={("sw1", "ssh"): Reading("sw1", t, 1000.0 + t, None,
                                                          {Key("Ethernet0", PFC_RX, 3): pauses}, unread=(why,))})

    reader = CounterReader({}, {"sw1": {"Ethernet0": 100.0}}, [3], known_hosts=None)
    try:
        counters, problems = reader.delta(snap(0.0, 10), snap(10.0, 30), 10.0)
    finally:
        reader.close()
    assert counters.pause_frames == 20 and counters.dropped is None
    assert problems == [f"sw1 (ssh): {why}"]


def test_a_trials_ecn_marks_and_drops_are_read_from_the_queues_the_devices_maps_put_the_priority_on():
    """TC 3 on queue 4 (SONiC TC_TO_QUEUE_MAP 3 -> 4): the trial sums queue 4's ECN marks and drops for lossless
    priority 3, not queue 3's (another class); the storm check reads queue 4's transmit count. Without the maps the
    marks are left out and the trial says so, never queue 3's taken for priority 3."""
    from losslessd.monitor import DROPPED_PACKETS, ECN_MARKED, PFC_RX, TX_PACKETS, Key, QueueMaps, Reading
    from losslessd.tune.counters import CounterReader, Snapshot

    def snap(t: float, n: int) -> Snapshot:
        values = {Key("Ethernet0", ECN_MARKED, 3): 100 * n, Key("Ethernet0", ECN_MARKED, 4): 500 * n,
                  Key("Ethernet0", DROPPED_PACKETS, 3): 7 * n, Key("Ethernet0", DROPPED_PACKETS, 4): 0,
                  Key("Ethernet0", PFC_RX, 3): 2000 * n, Key("Ethernet0", TX_PACKETS, 3): 0,
                  Key("Ethernet0", TX_PACKETS, 4): 100_000 * n}
        return Snapshot(readings={("sw1", "ssh"): Reading("sw1", t, 1000.0 + t, None, values)})

    def trial(queues: dict | None):
        reader = CounterReader({}, {"sw1": {"Ethernet0": 100.0}}, [3], known_hosts=None, queues=queues)
        try:
            return (*reader.delta(snap(0.0, 1), snap(10.0, 2), 10.0), reader.storms(snap(0.0, 1), snap(10.0, 2)))
        finally:
            reader.close()

    # TC 3's traffic and pause both on queue 4 (TC_TO_QUEUE_MAP and MAP_PFC_PRIORITY_TO_QUEUE 3 -> 4)
    counters, problems, storms = trial({"sw1": QueueMaps({"Ethernet0": {3: [4]}}, {"Ethernet0": {3: [4]}})})
    assert (counters.ecn_marked, counters.dropped, counters.pause_frames) == (500, 0, 2000)
    assert problems == [] and storms == []
    counters, problems, storms = trial(None)
    assert counters.ecn_marked is None and counters.dropped == 7  # drops: queue 3 for priority 3, as the watchdog
    assert problems == ["sw1: ECN marks of Ethernet0 priority 3 left out of the trial's sums: its config does not "
                        "say which egress queue carries the priority"]
    assert len(storms) == 1  # the storm check's identity: queue 3 sent nothing


JUNOS_LEAF = ROOT / "tests" / "fixtures" / "raw" / "juniper_junos" / "roce-leaf.cfg"
# `show version` as Junos prints it on a QFX (a `Model:` line under the hostname; the Junos CLI's show version).
JUNOS_VERSION = "Hostname: qfx-leaf1\nModel: {}\nJunos: 23.4R2.13\n"


def test_junos_tune_takes_the_model_from_show_version_or_model_and_names_the_device_without_one():
    """Junos ECN commands differ by family (QFX10000/PTX `buffer-size temporal`, QFX5000 percent only), and a Junos
    configuration never names its model: tune reads it from the `show version` it runs beside the configuration
    (or --model DEVICE:MODEL); without it the refusal names the device and the option, before any trial. A QFX5000
    writes ECN as fixed fill levels, so there is nothing for tune to move there."""
    text = JUNOS_LEAF.read_text()
    with pytest.raises(InputError, match=r"^leaf1: .*its model is not known: give --model leaf1:MODEL"):
        candidate.load("leaf1", "juniper_junos", text, POLICY, ["et-0/0/1"])
    refused = "error: syntax error, expecting <command>: version\n"  # (an optional command the switch refused)
    with pytest.raises(InputError, match=r"its `show version` printed no model: give --model leaf1:MODEL"):
        candidate.load("leaf1", "juniper_junos", text, POLICY, ["et-0/0/1"], version=refused)
    with pytest.raises(InputError, match=r"model 'ex4300-48t' \(read from leaf1 \(show version\) line 2\) matches "
                       "none of them"):
        candidate.load("leaf1", "juniper_junos", text, POLICY, ["et-0/0/1"], version=JUNOS_VERSION.format("ex4300-48t"))
    with pytest.raises(InputError, match=r"^leaf1: a qfx5120-48y-8c \(Juniper QFX5000\) writes ECN as fixed fill"):
        candidate.load("leaf1", "juniper_junos", text, POLICY, ["et-0/0/1"],
                       version=JUNOS_VERSION.format("qfx5120-48y-8c"))
    for cfg in (candidate.load("leaf1", "juniper_junos", text, POLICY, ["et-0/0/1"],
                               version=JUNOS_VERSION.format("qfx10002-36q")),
                candidate.load("leaf1", "juniper_junos", text, POLICY, ["et-0/0/1"], version=refused,
                               model="qfx10002-36q")):
        assert cfg.device.hardware == "qfx10002-36q"
        checked = candidate.check(cfg, POLICY, Candidate(300_000, 3_000_000, 20.0))
        assert "buffer-size temporal" in checked.snippet and not checked.refused, checked.reasons()


def test_candidate_refusals_never_compare_findings_field_by_field(monkeypatch):
    """Which findings refuse a candidate is decided per finding (its code, port, severity, fingerprint), never by
    looking one up in a list of findings: pydantic compares findings field by field, so a list lookup per finding made
    the check quadratic (4000 findings: seconds per candidate). The refusals stay those of the rule (ECN004 on a tuned
    port)."""
    compared = []

    def eq(self, other):
        compared.append(self.code)
        return self is other

    cfg = leaf1(pool_bytes=600_000)
    monkeypatch.setattr(Finding, "__eq__", eq)
    late = candidate.check(cfg, POLICY, Candidate(400_000, 2_000_000, 5.0))
    assert compared == []
    assert late.refused and any(f.code == "ECN004" and f.port == "Ethernet0" for f in late.refusals)
    assert not candidate.check(cfg, POLICY, Candidate(40_000, 2_000_000, 5.0)).refused


def test_a_ports_measured_pause_time_is_its_most_paused_lossless_priority():
    """A NIC counts time paused per priority (mlx5 ethtool rx_prio<p>_pause_duration, microseconds): a port with two
    lossless priorities was paused at least as long as its most paused one, whichever the counters list last (before:
    the last one read replaced the others, 0.1 s here instead of 0.6 s)."""
    from losslessd.monitor import PAUSE_DURATION_US, Key, Reading
    from losslessd.tune.counters import CounterReader, Snapshot

    def snap(t: float, p3_us: int, p4_us: int) -> Snapshot:
        values = {Key("Ethernet0", PAUSE_DURATION_US, 3): p3_us, Key("Ethernet0", PAUSE_DURATION_US, 4): p4_us}
        return Snapshot(readings={("sw1", "ssh"): Reading("sw1", t, 1000.0 + t, None, values)})

    reader = CounterReader({}, {"sw1": {"Ethernet0": 100.0}}, [3, 4], known_hosts=None)
    try:
        counters, problems = reader.delta(snap(0.0, 0, 0), snap(10.0, 600_000, 100_000), 10.0)
    finally:
        reader.close()
    assert not problems
    assert counters.pause_us == 700_000 and counters.worst_port == "sw1:Ethernet0"
    assert counters.worst_paused_s == pytest.approx(0.6) and counters.paused_share == pytest.approx(0.06)


def test_a_trials_pause_time_is_timed_per_direction_and_priority_never_summed():
    """PFC frames a port received (PFC_RX) stopped its egress; frames it sent (PFC_TX) stopped its peer's (the DCQCN +
    PFC notes, section 3: XOFF is decided at the receiver's ingress and the sender's rate goes to 0). The trial added
    both directions and every lossless priority into one port's paused time: 1000 received on priority 3, 1000 on 4
    and 600 sent at 100 Gb/s were 2600 x 167.8 us = 0.436 s. Each direction and priority is paused side by side:
    the port was paused 1000 x 167.8 us (half the notes' V5 max single pause at 100G, 335.5 us), and a port that only
    sent pauses paused its peer, not itself."""
    from losslessd.monitor import PFC_RX, PFC_TX, Key, Reading
    from losslessd.tune.counters import CounterReader, Snapshot

    half_max_pause_100g_s = 335.5e-6 / 2  # /work/shared/tuning/dcqcn-model.md V5: 65535 quanta at 100G, 335.5 us

    def snap(t: float, n: int) -> Snapshot:
        values = {Key("Ethernet0", PFC_RX, 3): 1000 * n, Key("Ethernet0", PFC_RX, 4): 1000 * n,
                  Key("Ethernet0", PFC_TX, 3): 600 * n, Key("Ethernet4", PFC_TX, 3): 1500 * n}
        return Snapshot(readings={("sw1", "snmp"): Reading("sw1", t, 1000.0 + t, None, values)})

    def trial(tuned: dict[str, float]):
        reader = CounterReader({}, {"sw1": tuned}, [3, 4], known_hosts=None)
        try:
            return reader.delta(snap(0.0, 0), snap(10.0, 1), 10.0)
        finally:
            reader.close()

    counters, problems = trial({"Ethernet0": 100.0})
    assert not problems and counters.pause_frames == 2600
    assert counters.worst_port == "sw1:Ethernet0"
    assert counters.worst_paused_s == pytest.approx(1000 * half_max_pause_100g_s, rel=1e-3)
    counters, _ = trial({"Ethernet0": 100.0, "Ethernet4": 100.0})
    assert counters.worst_port == "sw1:Ethernet4 (its peer, paused by it)"
    assert counters.worst_paused_s == pytest.approx(1500 * half_max_pause_100g_s, rel=1e-3)


def test_a_tunes_dates_never_go_back_when_the_wall_clock_is_stepped_back(tmp_path, monkeypatch):
    """The tuner dated its tune, events and trials by time.time(): NTP stepping the clock back an hour mid-tune had a
    push recorded an hour before the trial it belongs to and the tune ended before it started (`tune report` sorts
    and prints them by those dates). Now by the daemon's clock (monitor/clock.py: labels never go back); a trial's own
    duration is the benchmark's, on the monotonic clock."""
    import time

    with Store(tmp_path / "tune.sqlite") as store:
        tune, _ = store.open_tune({"budget": 3})
        store.event(tune.id, "pushed", "first")
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() - 3600)  # stepped back
        store.event(tune.id, "pushed", "second")
        store.finish(tune.id, "done", None, None, None)
        times = [e[0] for e in store.events(tune.id)]
        done = store.tune(tune.id)
    assert times[1] >= times[0], times[1] - times[0]
    assert done.ended_unix_s is not None and done.ended_unix_s >= done.started_unix_s


_HOSTS = """\
defaults:
  username: admin
  data:
    credentials: {password_env: FABRIC_PW}
hosts:
  leaf1: {hostname: 127.0.0.1, port: 9, platform: sonic}
  gpu01:
    hostname: 127.0.0.1
    port: 9
    platform: linux_mlx5
    username: root
    data: {interfaces: [ens1f0np0], rdma_devices: [mlx5_0]}
"""


@pytest.mark.slow  # (runs losslessd in a process)
def test_a_host_nic_is_refused_before_anything_is_read_saying_it_marks_no_ecn(tmp_path):
    """`tune --devices gpu01` (a ConnectX host) went on to log in and read its config, then said "platform
    linux_mlx5 has no ECN template to tune", though render writes its `ecn` section. A host NIC marks nothing: its
    ecn/ files are DCQCN's on/off switches, CNP marking and reaction rates, no Kmin/Kmax/Pmax (candidate.untunable).
    Now refused by name before any device is read (exit 2)."""
    inventory, known_hosts = tmp_path / "inventory.yaml", tmp_path / "known_hosts"
    inventory.write_text(_HOSTS)
    known_hosts.write_text("")
    res = subprocess.run([sys.executable, "-m", "losslessd", "tune", "--inventory", str(inventory), "--devices",
                          "gpu01", "--benchmark", "true", "--known-hosts", str(known_hosts)], capture_output=True,
                         text=True,
                         env={**os.environ, "FABRIC_PW": "x"}, timeout=120)
    assert res.returncode == 2, res.stderr
    assert "gpu01: a linux_mlx5 host marks no ECN" in res.stderr and "Kmin, Kmax or Pmax" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and "connect" not in res.stderr.lower()


@pytest.mark.slow  # (runs losslessd in a process)
def test_a_host_profile_writes_no_threshold_a_tune_could_move(tmp_path):
    """What the refusal stands on: the linux_mlx5 profile is the same under policies whose ECN thresholds and
    probability differ (but for the line naming the policy), where a SONiC switch's WRED profile follows them."""
    text = (ROOT / "policies" / "roce-dscp26.yaml").read_text()
    other = tmp_path / "other.yaml"
    other.write_text(text.replace("min_threshold_bytes: {min: 9216, max: 4194304}",
                                  "min_threshold_bytes: {min: 100000, max: 200000}")
                     .replace("max_threshold_bytes: {min: 9216, max: 16777216}",
                              "max_threshold_bytes: {min: 1000000, max: 2000000}")
                     .replace("mark_probability_pct: {min: 1, max: 100}", "mark_probability_pct: {min: 7, max: 9}"))

    def rendered(platform: str, policy: str) -> str:
        res = subprocess.run([sys.executable, "-m", "losslessd", "render", "--platform", platform, "--policy", policy,
                              "--ports", "ens1f0np0:100G:3m" if platform == "linux_mlx5" else "Ethernet0:100G:3m",
                              *(["--pool-size", "30000000", "--sku", "ACS-MSN4700"] if platform == "sonic" else [])],
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        return "\n".join(line for line in res.stdout.splitlines() if not line.startswith("# losslessd render: policy"))

    assert rendered("linux_mlx5", "roce-dscp26") == rendered("linux_mlx5", str(other))
    assert rendered("sonic", "roce-dscp26") != rendered("sonic", str(other))
