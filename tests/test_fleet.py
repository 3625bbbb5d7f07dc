"""The daemon as a fleet poller, as real processes against the device simulator: two daemons with
--shard 0/2 and 1/2 split one inventory with no device polled twice; a worker killed with SIGKILL is
started again and its devices' history goes on; hostile HTTP clients under a small open-file limit
never stop /metrics or the polls, and the log stays one JSON object per line."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from losslessd.daemon.service import WORKER_SILENT_S, WORKER_START_S, Daemon, _Worker
from losslessd.daemon.shard import Shard, hashmod, parse_shard, split, worker_of
from tests.daemonproc import CLI, DaemonProcess, wait_for

pytestmark = pytest.mark.slow


# -- the split itself -------------------------------------------------------------------------------

def test_hashmod_is_prometheus_hashmod():
    """Vectors of Prometheus' own relabel tests (model/relabel/relabel_test.go, action hashmod,
    modulus 1000): "baz" -> 976, "foo\\nbar" -> 734."""
    assert hashmod("baz", 1000) == 976
    assert hashmod("foo\nbar", 1000) == 734


def test_shards_partition_a_fleet_and_workers_split_each_shard_evenly():
    names = [f"sw{i:04d}" for i in range(4000)]
    parts = [Shard(i, 4).select(names) for i in range(4)]
    assert sorted(sum(parts, [])) == names  # every device in exactly one shard
    assert all(800 < len(p) < 1200 for p in parts)
    # The worker split does not follow the shard split: a shard's devices spread over all workers.
    for part in parts:
        per_worker = [len(w) for w in split(part, 4)]
        assert all(len(part) / 4 * 0.75 < n < len(part) / 4 * 1.25 for n in per_worker), per_worker


# (session 35: other scripts' digits read as 0/2; 5,000 digits stopped int() with Python's own message; a modulus past
# a uint64 is no Prometheus hashmod)
@pytest.mark.parametrize("text", ["2/2", "1/0", "-1/2", "a/b", "1", "", "\u0660/\u0662", "0/" + "9" * 5000,
                                  f"0/{2**64}"])
def test_a_bad_shard_is_refused(text):
    with pytest.raises(ValueError, match="i/n"):
        parse_shard(text)


# -- real daemons -----------------------------------------------------------------------------------

@pytest.fixture
def sim(make_sim):
    return make_sim()


def test_two_shards_poll_disjoint_halves_that_cover_the_inventory(sim, tmp_path):
    daemons = [DaemonProcess(sim, tmp_path / f"d{i}").start(args=("--shard", f"{i}/2", "--workers", "2"))
               for i in range(2)]
    try:
        everything = set(sim.devices)
        wait_for(lambda: set().union(*(d.devices_polled() for d in daemons)) == everything,
                 "both daemons together to poll every device")
        first, second = (d.devices_polled() for d in daemons)
        assert first and second and not first & second
        assert first | second == everything
        # Each polls exactly its hashmod half (what a Prometheus sharded on `device` would scrape).
        assert first == set(Shard(0, 2).select(everything)) and second == set(Shard(1, 2).select(everything))
        assert daemons[1].value("losslessd_shard_info", index="1", count="2") == 1
        # Drift (whole fabric) runs in shard 0 only: nothing else differs.
        for d in daemons:
            assert all(isinstance(json.loads(line), dict) for line in d.log_lines())
    finally:
        for d in daemons:
            assert d.stop() == 0


def test_a_killed_worker_is_started_again_and_its_devices_history_goes_on(sim, tmp_path):
    daemon = DaemonProcess(sim, tmp_path / "d").start(args=("--workers", "2"))
    try:
        device = "leaf1"  # SNMP-polled: history rows every second
        index = worker_of(device, 2)
        wait_for(lambda: (daemon.value("losslessd_polls_total", device=device, source="snmp") or 0) >= 3,
                 f"three polls of {device}")
        pid = daemon.worker_pid(index)
        assert pid is not None
        killed_at = time.time()
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: daemon.value("losslessd_worker_restarts_total", worker=str(index)) == 1,
                 "the daemon to start the worker again")
        wait_for(lambda: (daemon.value("losslessd_polls_total", device=device, source="snmp") or 0) >= 3,
                 f"the new worker to poll {device} three times")
        new_pid = daemon.worker_pid(index)
        assert new_pid is not None and new_pid != pid
        assert daemon.value("losslessd_worker_up", worker=str(index)) == 1
        wait_for(lambda: _coverage(daemon, device, after=killed_at + 1), "history rows after the restart")
        assert _coverage(daemon, device, before=killed_at)  # and the rows from before are still there
    finally:
        assert daemon.stop() == 0
    records = [json.loads(line) for line in daemon.log_lines()]  # every line is JSON
    died = [r for r in records if "died" in r["msg"]]
    assert len(died) == 1 and died[0]["exit"] == -signal.SIGKILL and died[0]["worker"] == index


def test_a_killed_worker_leaves_drifts_open_findings_open(sim, tmp_path):
    """A worker's death ended every open event of its devices, drift's finding_new too: those are the daemon's (the
    drift lint runs in it), and a finding that still stood then read as dealt with until it changed."""
    from losslessd.history import History
    from losslessd.lint.finding import Finding, Severity

    folder = tmp_path / "d"
    folder.mkdir()
    seeded = History(folder / "history.db")  # a previous run's finding, so this run's are new, not the baseline
    seeded.record_findings("spine1", time.time() - 60, [Finding(
        code="PFC002", name="pfc-on-lossy", severity=Severity.error, message="PFC on lossy priority 4",
        device="spine1", port="Ethernet1/1", key="4")])
    seeded.close()
    # (a first drift run falls within one interval of the start)
    daemon = DaemonProcess(sim, folder, drift={"enabled": True, "interval_s": 20}).start(args=("--workers", "2"))
    try:
        def open_findings() -> list[dict]:
            return [e for e in daemon.events(kind="finding_new") if e["device"] == "leaf1" and e["end"] is None]

        before = wait_for(open_findings, "finding_new events of leaf1", timeout_s=180)
        index = worker_of("leaf1", 2)
        wait_for(lambda: daemon.worker_pid(index), "leaf1's worker")
        os.kill(daemon.worker_pid(index), signal.SIGKILL)
        wait_for(lambda: daemon.value("losslessd_worker_restarts_total", worker=str(index)) == 1,
                 "the daemon to start the worker again")
        wait_for(lambda: [r for r in daemon.log_records() if "died" in r["msg"]], "the death logged")
        # (the events of a death end in the same step of the daemon's loop as its log line, before any scrape after it)
        active = [s.value for s in daemon.samples() if s.name == "losslessd_event_active"
                  and s.labels["kind"] == "finding_new" and s.labels["device"] == "leaf1"]
        assert active and set(active) == {1}
        assert open_findings() == before
    finally:
        assert daemon.stop() == 0


# A real sleep at the start of each worker process (a sitecustomize.py on the daemon's PYTHONPATH: the interpreter runs
# it before the worker imports anything), its start written to a file first: a worker as slow to start as one on a
# machine loaded past what its start-up needs, counted by the processes that began.
_SLOW_START = """import os, sys, time
if "--fd" in sys.argv and "LOSSLESSD_TEST_WORKER_STARTS" in os.environ:  # a worker (python -m ... --fd N --index I)
    with open(os.environ["LOSSLESSD_TEST_WORKER_STARTS"], "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(float(os.environ["LOSSLESSD_TEST_WORKER_SLEEP_S"]))
"""


def _slow_start_env(folder: Path, sleep_s: float) -> tuple[dict[str, str], Path]:
    hook = folder / "hook"
    hook.mkdir(parents=True)
    (hook / "sitecustomize.py").write_text(_SLOW_START)
    starts = folder / "worker-starts"
    path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "LOSSLESSD_TEST_WORKER_STARTS": str(starts),
            "LOSSLESSD_TEST_WORKER_SLEEP_S": str(sleep_s)}, starts


def test_a_worker_slow_to_start_gets_its_start_window_and_is_not_killed_as_silent(sim, tmp_path):
    """A worker still starting was killed by the silence check (WORKER_SILENT_S, 30 s without a message) although its
    start may take WORKER_START_S (60 s): on a loaded machine (2 cores, ~25 processes) workers were killed and started
    again in a loop, never polling. One slower to start than the silence check, well inside its start window, starts
    once and polls."""
    env, starts = _slow_start_env(tmp_path, WORKER_SILENT_S + 2)
    daemon = DaemonProcess(sim, tmp_path / "d").start(env=env, args=("--workers", "1"))
    try:
        wait_for(lambda: daemon.answered("leaf1") >= 3, "three polls of leaf1 that answered")
        assert daemon.value("losslessd_worker_restarts_total", worker="0") == 0
    finally:
        assert daemon.stop() == 0
    assert len(starts.read_text().split()) == 1  # one worker process began: none was killed and started again
    assert not [r for r in daemon.log_records() if "killing it" in r["msg"] or "died" in r["msg"]]


def test_a_worker_is_judged_by_its_start_window_until_it_answers_then_by_its_silence_and_the_window_grows(tmp_path):
    """The supervisor's one rule (Daemon._judge), on a real process standing for a worker: not killed while starting
    within its window whatever its silence; killed past it, the next start given twice the window; once it answered,
    killed after WORKER_SILENT_S of silence."""
    async def judged(started_ago_s: float, heard_ago_s: float, configured: bool, slow_starts: int = 0):
        proc = await asyncio.create_subprocess_exec("sleep", "600")
        now = time.monotonic()
        worker = _Worker(0, ["leaf1"], proc=proc, up=True, slow_starts=slow_starts, started_s=now - started_ago_s,
                         heard_s=now - heard_ago_s)
        if configured:
            worker.configured.set()
        Daemon._judge(worker, now)
        if worker.up:  # not judged stuck: ended here by SIGTERM, so its exit tells whether the judge had killed it
            proc.terminate()
        return await proc.wait(), worker

    def run(*args, **kwargs):
        return asyncio.run(judged(*args, **kwargs))

    code, _ = run(WORKER_SILENT_S + 5, WORKER_SILENT_S + 5, configured=False)  # starting, silent: its window runs
    assert code == -signal.SIGTERM
    code, worker = run(WORKER_START_S + 1, WORKER_START_S + 1, configured=False)
    assert code == -signal.SIGKILL and worker.slow_starts == 1 and not worker.up
    assert Daemon._start_window_s(worker) == 2 * WORKER_START_S
    code, _ = run(WORKER_START_S + 1, WORKER_START_S + 1, configured=False, slow_starts=1)  # its longer window
    assert code == -signal.SIGTERM
    code, worker = run(WORKER_START_S + 1, WORKER_SILENT_S + 1, configured=True)  # answered once, then silent
    assert code == -signal.SIGKILL and worker.slow_starts == 0
    code, _ = run(WORKER_START_S + 1, 1, configured=True)  # answering
    assert code == -signal.SIGTERM


# The first worker process hangs before it reads anything (a start that never ends); those after it start at once.
_FIRST_HANGS = """import os, sys, time
if "--fd" in sys.argv and "LOSSLESSD_TEST_WORKER_STARTS" in os.environ:  # a worker (python -m ... --fd N --index I)
    path = os.environ["LOSSLESSD_TEST_WORKER_STARTS"]
    first = not os.path.exists(path)
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\\n")
    if first:
        time.sleep(600)
"""


def test_a_worker_hung_before_it_reads_a_configure_larger_than_its_link_is_killed_and_started_again(tmp_path,
                                                                                                  monkeypatch):
    """A worker's start sent its configure (the settings: 2,000 hosts are over 500 kB) and waited until the worker
    had read it, which it does once started: a worker hung at its start held the daemon's start (the supervisor that
    judges it runs after it) or the restart that started it, and one killed at the end of its start window was never
    watched again, so never started again: its devices went unpolled for good, the daemon up. The start now queues
    its messages and watches the worker at once: the hung worker is killed at its window's end and started again."""
    from losslessd.daemon.ipc import dumps
    from losslessd.daemon.settings import load_settings

    host = {"hostname": "127.0.0.1", "port": 1, "platform": "sonic", "groups": ["switch"],
            "data": {"credentials": {"username": "u", "password_env": "PW"},
                     "snmp": {"port": 1, "version": "2c", "community_env": "COMMUNITY"}}}
    (tmp_path / "inventory.yaml").write_text(yaml.safe_dump(
        {"hosts": {f"leaf{i}": host for i in range(2000)}, "groups": {"switch": {}}, "defaults": {}}))
    (tmp_path / "known_hosts").write_text("")
    (tmp_path / "losslessd.yaml").write_text(yaml.safe_dump(
        {"inventory": "inventory.yaml", "known_hosts": "known_hosts", "drift": {"enabled": False},
         "history": {"path": "history.db"}}))
    settings = load_settings(tmp_path / "losslessd.yaml", env={"PW": "p", "COMMUNITY": "c"})
    sent = socket.socketpair()
    buffers = sent[0].getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) + sent[1].getsockopt(socket.SOL_SOCKET,
                                                                                          socket.SO_RCVBUF)
    for end in sent:
        end.close()
    assert len(dumps(("configure", settings, []))) > buffers + (1 << 16)  # (asyncio's write buffer: 64 KiB)
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(_FIRST_HANGS)
    starts = tmp_path / "worker-starts"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(tmp_path / "hook"),
                                                                 os.environ.get("PYTHONPATH", "")) if p))
    monkeypatch.setenv("LOSSLESSD_TEST_WORKER_STARTS", str(starts))

    async def run() -> None:
        daemon = Daemon(settings)
        worker = _Worker(0, [])
        daemon.workers = [worker]
        try:
            await asyncio.wait_for(daemon._start_worker(worker), 30)  # (before: waited for the hung worker to read)
            hung = worker.proc
            assert hung is not None and not worker.configured.is_set()
            for _ in range(1200):  # (the hung one began: killed before, the next one would be the first)
                if starts.exists():
                    break
                await asyncio.sleep(0.1)
            assert starts.exists(), "the first worker process did not begin"
            Daemon._judge(worker, worker.started_s + Daemon._start_window_s(worker) + 1)  # its window is over
            assert await asyncio.wait_for(hung.wait(), 60) == -signal.SIGKILL
            await asyncio.wait_for(worker.configured.wait(), 120)  # started again, and this one answered
            assert worker.proc is not hung and worker.restarts == 1
        finally:
            daemon._stopping = True
            if worker.proc is not None and worker.proc.returncode is None:
                worker.proc.kill()
                await worker.proc.wait()
            await asyncio.gather(*worker.tasks, return_exceptions=True)

    asyncio.run(run())
    assert len(starts.read_text().split()) == 2


# The second worker process waits, before it reads anything, until the test releases it: a start as slow as the test
# needs, the first one (the daemon's own start) quick.
_SECOND_WAITS = """import os, sys, time
if "--fd" in sys.argv and "LOSSLESSD_TEST_WORKER_STARTS" in os.environ:  # a worker (python -m ... --fd N --index I)
    path = os.environ["LOSSLESSD_TEST_WORKER_STARTS"]
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\\n")
    with open(path) as f:
        second = len(f.read().split()) == 2
    while second and not os.path.exists(os.environ["LOSSLESSD_TEST_WORKER_RELEASE"]):
        time.sleep(0.1)
"""


def test_a_reload_and_a_scrape_while_a_worker_starts_wait_for_nothing_and_it_gets_the_new_settings_once_ready(
        sim, tmp_path):
    """Session 45: a reload sent its configure (2,000 hosts: over the link's buffers) to a worker still starting and
    waited until that worker read it, up to its start window (60-480 s): `POST /-/reload` answered that late, and a
    scrape queued behind it hung as long. Nothing said the worker was starting (losslessd_worker_up 1). Now a worker
    starting is sent nothing (losslessd_worker_state{state="starting"} 1); once configured it is sent the settings of
    then: a device the reload added is polled."""
    inventory = yaml.safe_load(sim.inventory_path.read_text())
    names = sorted(inventory["hosts"])
    polled = [n for n in names if inventory["hosts"][n].get("data", {}).get("snmp")]  # (the SSH counters are off)
    added, kept = polled[-1], [n for n in names if n != polled[-1]]
    password = sim.devices[polled[0]].password_env
    # (2,000 hosts: a configure larger than the link's buffers; polled by no source (no SNMP, the SSH counters off)
    # and no config read (hosts are not))
    padding = {f"host{i:04d}": {"hostname": "127.0.0.1", "port": 1, "platform": "linux_mlx5",
                                "data": {"credentials": {"username": "u", "password_env": password},
                                         "interfaces": ["ens1f0np0"]}}
               for i in range(2000)}

    def write_inventory(devices: list[str]) -> None:
        hosts = {n: h for n, h in inventory["hosts"].items() if n in devices}
        (tmp_path / "inventory.yaml").write_text(yaml.safe_dump({**inventory, "hosts": {**hosts, **padding}}))

    write_inventory(kept)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_SECOND_WAITS)
    starts, release = tmp_path / "worker-starts", tmp_path / "release"
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p),
           "LOSSLESSD_TEST_WORKER_STARTS": str(starts), "LOSSLESSD_TEST_WORKER_RELEASE": str(release)}
    daemon = DaemonProcess(sim, tmp_path / "d", inventory=str(tmp_path / "inventory.yaml"),
                           poll={"ssh_counters_interval_s": None}).start(env=env, args=("--workers", "1"))
    try:
        wait_for(lambda: daemon.answered(polled[0]) >= 1, f"a poll of {polled[0]} that answered")
        assert daemon.value("losslessd_worker_state", worker="0", state="ready") == 1
        os.kill(daemon.worker_pid(0), signal.SIGKILL)
        wait_for(lambda: starts.exists() and len(starts.read_text().split()) == 2, "the second worker process")
        hung = int(starts.read_text().split()[1])
        # (backing_off until the daemon sees the new process: it reads its state every second)
        wait_for(lambda: {s.labels["state"]: s.value for s in daemon.samples() if s.name == "losslessd_worker_state"}
                 == {"starting": 1, "ready": 0, "backing_off": 0}, "the worker's state: starting")
        assert daemon.value("losslessd_worker_up", worker="0") == 1  # (its process runs: the series stays as it was)
        write_inventory(names)
        status, body = daemon.request("/-/reload", "POST")
        assert status == 200, body
        assert daemon.worker_pid(0) == hung and not release.exists()  # answered while the worker still hangs
        assert daemon.value("losslessd_worker_state", worker="0", state="starting") == 1
        release.touch()
        wait_for(lambda: daemon.answered(added) >= 1, f"a poll of {added}, which the reload added", timeout_s=120)
        assert daemon.worker_pid(0) == hung  # the same process: given the new settings once configured
        assert daemon.value("losslessd_worker_state", worker="0", state="ready") == 1
    finally:
        release.touch()
        assert daemon.stop() == 0


def _coverage(daemon: DaemonProcess, device: str, before: float | None = None, after: float | None = None) -> int:
    with sqlite3.connect(f"file:{daemon.folder / 'history.db'}?mode=ro", uri=True) as db:
        if before is not None:
            return db.execute("SELECT count(*) FROM coverage WHERE device = ? AND bucket_s < ?",
                              (device, before)).fetchone()[0]
        return db.execute("SELECT count(*) FROM coverage WHERE device = ? AND bucket_s > ?",
                          (device, after)).fetchone()[0]


MALFORMED = [b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
             b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n",
             b"GET /metrics\r\n\r\n",
             bytes.fromhex("16030100c4010000c00303") + bytes(40)]


def test_hostile_http_clients_under_a_small_fd_limit(sim, tmp_path):
    """400 slow clients, 100 that hang up early and 40 malformed requests against a daemon limited to
    256 open files (the issue's case: a thread per connection starved /metrics and the SSH polls)."""
    daemon = DaemonProcess(sim, tmp_path / "d", http={"host": "127.0.0.1", "max_connections": 32,
                                                      "header_timeout_s": 30})
    daemon.start(args=("--workers", "2"), nofile=256)
    try:
        wait_for(lambda: (daemon.value("losslessd_polls_total", device="leaf1", source="ssh") or 0) >= 1,
                 "an SSH counter poll of leaf1")
        before = _polls(daemon)

        async def attack_and_check():
            held = []
            try:
                for k in range(400):
                    reader, writer = await asyncio.open_connection("127.0.0.1", daemon.port)
                    writer.write(b"GET /metrics HTTP/1.1\r\nHost: t\r\nX-Slow: ")  # and never the rest
                    held.append(writer)
                    if k % 100 == 99:
                        await _drain(writer)
                for k in range(100):
                    reader, writer = await asyncio.open_connection("127.0.0.1", daemon.port)
                    writer.write(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
                    await _drain(writer)
                    if k % 2:
                        writer.transport.abort()
                    else:
                        writer.close()
                # A hundred complete requests at once may fill every slot and the queue behind them
                # (the overflow is refused: that is the bound working); once a scrape is answered
                # again, the malformed requests come one by one and each gets its 400.
                wait_for(lambda: daemon.get("/metrics")[0] == 200, "a scrape answered after the early hang-ups")
                answers = []
                for request in MALFORMED * 10:
                    reader, writer = await asyncio.open_connection("127.0.0.1", daemon.port)
                    writer.write(request)
                    await writer.drain()
                    answers.append(await asyncio.wait_for(reader.read(), 60))
                    writer.close()
                assert all(a.startswith(b"HTTP/1.1 400 ") for a in answers)
                # While the slow ones still hold their connections (blocking calls: they need no loop):
                status, text = daemon.get("/metrics")
                assert status == 200 and 'losslessd_up{device="leaf1"}' in text
                # Polls go on, SSH ones included.
                wait_for(lambda: all(_polls(daemon).get(k, 0) > n for k, n in before.items()),
                         "every device and source to be polled again")
            finally:
                for writer in held:
                    writer.transport.abort()

        asyncio.run(attack_and_check())
        refused = {s.labels["reason"]: s.value for s in daemon.samples() if s.name == "losslessd_http_refused_total"}
        assert refused.get("malformed", 0) == len(MALFORMED) * 10
        assert refused.get("evicted", 0) >= 400 - 32
    finally:
        assert daemon.stop() == 0
    lines = daemon.log_lines()
    records = [json.loads(line) for line in lines]  # one JSON object per line, or this raises
    assert all(isinstance(r, dict) for r in records)
    assert not [r for r in records if "Too many open files" in json.dumps(r)]
    assert not [r for r in records if r.get("logger", "").startswith("losslessd.daemon.http") and "exc" in r]


async def _drain(writer: asyncio.StreamWriter) -> None:
    try:
        await writer.drain()
    except ConnectionError:  # the daemon dropped it to make room: what it should do
        pass


def _polls(daemon: DaemonProcess) -> dict[tuple[str, str], float]:
    """Successful polls per (device, source): polls less failures."""
    samples = daemon.samples()
    failed = {(s.labels["device"], s.labels["source"]): s.value for s in samples
              if s.name == "losslessd_poll_failures_total"}
    return {(s.labels["device"], s.labels["source"]): s.value - failed.get((s.labels["device"], s.labels["source"]), 0)
            for s in samples if s.name == "losslessd_polls_total"}


def test_check_names_the_shard_and_a_bad_shard_is_a_usage_error(sim, tmp_path):
    daemon = DaemonProcess(sim, tmp_path / "d")
    env = {**os.environ, **sim.env}
    ok = subprocess.run([*CLI, "daemon", "--config", str(daemon.config), "--check", "--shard", "1/2"],
                        capture_output=True, text=True, env=env, timeout=120)
    mine = len(Shard(1, 2).select(sim.devices))
    assert ok.returncode == 0 and f"{mine} in shard 1/2" in ok.stdout, ok.stderr
    bad = subprocess.run([*CLI, "daemon", "--config", str(daemon.config), "--shard", "2/2"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "i/n" in bad.stderr and "Traceback" not in bad.stderr
