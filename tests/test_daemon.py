"""`losslessd daemon` as a real process against the simulator, over real SNMP and SSH: storms reported
and cleared, counter resets and 32-bit wraps raising nothing, a device going down and back, /metrics
scraped over HTTP, reloads (good and bad), kill -9 keeping history, and sd_notify.

One simulator and one daemon (1 s SNMP polls) serve the module; each test works on its own device or
port so the tests do not see each other's faults.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from losslessd.sim import Simulator

from .daemonproc import CLI, INTERVAL_S, DaemonProcess, wait_for
from .peers import FABRIC

pytestmark = pytest.mark.slow

DEVICES = ["leaf1", "leaf2", "spine1", "gpu01"]


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Simulator:
    # Counter32 columns just below 2^32 from the start; a test moves leaf2's wrap to when it wants it.
    s = Simulator(FABRIC, tmp_path_factory.mktemp("daemon-sim"), devices=DEVICES, wrap32_after_s=3600)
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def daemon(sim, tmp_path_factory) -> DaemonProcess:
    d = DaemonProcess(sim, tmp_path_factory.mktemp("daemon")).start()
    yield d
    d.stop()


@contextlib.contextmanager
def notify_socket(name: str) -> Iterator[list[str]]:
    """The lines sent to an abstract sd_notify socket ``name``, read all along as systemd reads it: a reader that
    waits until the daemon is ready lets the pings fill the socket's queue (10 datagrams) on a slow start, and the
    daemon then drops what does not fit (MSG_DONTWAIT), READY=1 too."""
    seen: list[str] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind("\0" + name)
        listener.settimeout(0.2)
        done = threading.Event()

        def drain() -> None:
            while not done.is_set():
                try:
                    seen.extend(listener.recv(4096).decode().split("\n"))
                except TimeoutError:
                    continue

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            yield seen
        finally:
            done.set()
            reader.join()


def test_metrics_scraped_over_http_hold_the_expected_series(daemon):
    for device in ("leaf1", "leaf2", "spine1", "gpu01"):
        wait_for(lambda d=device: daemon.value("losslessd_up", device=d) == 1, f"{device} up")
    # Its log at info is its own (gpu01 was polled over SSH: paramiko would have logged each login at info).
    below_warning = {r["logger"].split(".")[0] for r in daemon.log_records() if r["level"] in ("debug", "info")}
    assert below_warning == {"losslessd"}, below_warning
    names = {s.name for s in daemon.samples()}
    assert {"losslessd_build_info", "losslessd_poll_duration_seconds", "losslessd_pfc_rx_frames_total",
            "losslessd_queue_tx_packets_total"} <= names
    # raw counters carry the device's place: device, port, priority
    # (waited for: leaf1 is up after its first poll of any source, and its SSH poll may come before SNMP's)
    wait_for(lambda: (daemon.value("losslessd_pfc_rx_frames_total", device="leaf1", port="Ethernet0", priority="3")
                      or 0) > 0, "leaf1's pause counters over SNMP")
    # the CLI-only counters arrive over SSH: a host's pause counters from ethtool -S
    assert daemon.value("losslessd_poll_duration_seconds", device="gpu01", source="ssh") is not None
    assert daemon.get("/-/healthy")[0] == 200 and daemon.get("/-/ready")[0] == 200
    assert daemon.request("/-/reload", "GET")[0] == 405  # reload only by POST


def test_storm_is_reported_within_two_polls_and_cleared_after_it_stops(daemon, sim):
    place = {"device": "leaf1", "port": "Ethernet12", "priority": "3"}  # a lossless queue without on-box watchdog
    wait_for(lambda: daemon.value("losslessd_up", device="leaf1") == 1, "leaf1 up")
    assert not daemon.value("losslessd_pfc_storm", **place)
    sim.storm("leaf1", "Ethernet12", 3, on=True)
    polled = daemon.value("losslessd_polls_total", device="leaf1", source="snmp")

    def stormed_at() -> float | None:  # polls of leaf1 made when a scrape first shows the storm
        samples = {(s.name, tuple(sorted(s.labels.items()))): s.value for s in daemon.samples()}
        if samples.get(("losslessd_pfc_storm", tuple(sorted(place.items())))) == 1:
            return samples[("losslessd_polls_total", (("device", "leaf1"), ("source", "snmp")))]
        return None

    # Scraped every 50 ms, a twentieth of a poll interval (a busy loop of scrapes would take the CPU the
    # daemon's polls need on a loaded machine).
    seen = wait_for(stormed_at, "the storm gauge to go to 1", poll_s=INTERVAL_S / 20)
    # Reported within two polls of the storm's start, counted in polls, not seconds: the poll in flight
    # when it began may have read the counters before it, then two polls (one scrape may trail by one).
    assert seen - polled <= 2 + 1 + 1, (polled, seen)
    storms = wait_for(lambda: [e for e in daemon.events(device="leaf1", kind="pfc_storm")
                               if e["port"] == "Ethernet12"], "the pfc_storm event in the history")
    event = storms[-1]
    assert event["priority"] == 3 and event["end"] is None and event["numbers"]
    sim.storm("leaf1", "Ethernet12", 3, on=False)
    wait_for(lambda: daemon.value("losslessd_pfc_storm", **place) == 0, "the storm gauge to go back to 0")
    ended = wait_for(lambda: [e for e in daemon.events(device="leaf1", kind="pfc_storm")
                              if e["id"] == event["id"] and e["end"] is not None], "the event to end")
    assert ended[0]["end_unix_s"] >= ended[0]["start_unix_s"]


def test_a_host_nics_own_storm_prevention_opens_nic_pause_storm_and_it_ends(daemon, sim):
    """gpu01's NIC stops draining: its PFC storm prevention counts a warning and an error (ethtool -S over SSH), and
    the daemon reports the host as a storm's source on that port, then ends the event once nothing new is counted.
    The event names the switch port the NIC is cabled to (leaf1 Ethernet0, by leaf1's DEVICE_NEIGHBOR as the daemon
    read its config), and losslessd_host_link_info joins the NIC's series to it; neither was said before."""
    place = {"device": "gpu01", "port": "enp65s0f0np0"}
    wait_for(lambda: daemon.value("losslessd_host_link_info", **place, switch="leaf1", switch_port="Ethernet0") == 1,
             "gpu01's switch port known from leaf1's config")
    wait_for(lambda: daemon.value("losslessd_nic_pause_storm_errors_total", **place) == 0,
             "a first reading of gpu01's storm prevention counts")  # the stall is then a delta
    sim.stall("gpu01", "enp65s0f0np0")
    try:
        opened = wait_for(lambda: daemon.events(device="gpu01", kind="nic_pause_storm"), "nic_pause_storm")
    finally:
        sim.stall("gpu01", "enp65s0f0np0", on=False)
    event = opened[-1]
    assert (event["port"], event["priority"], event["severity"]) == ("enp65s0f0np0", None, "error")
    assert event["numbers"]["storm_errors"] == 1 and "stopped sending pause frames" in event["message"]
    assert event["message"].endswith("(its switch port: leaf1 Ethernet0)"), event["message"]
    assert daemon.value("losslessd_nic_pause_storm_warnings_total", **place) == 1
    assert not daemon.events(device="gpu01", kind="nic_pause_storm_warning")  # counted with the error: one event
    # The kernel's standard pause statistics (`ethtool -I -a` over SSH) read too: link-wide PAUSE is off on the PFC
    # port, so none are counted, and its pause storm event is the same stall (the mlx5 count is the one kept).
    assert daemon.value("losslessd_link_pause_rx_frames_total", **place) == 0
    assert daemon.value("losslessd_link_pause_tx_frames_total", **place) == 0
    wait_for(lambda: [e for e in daemon.events(device="gpu01", kind="nic_pause_storm")
                      if e["id"] == event["id"] and e["end"] is not None], "the event to end")


def test_a_switch_whose_counters_cannot_show_a_storm_is_said_once_not_read_as_quiet(daemon, sim):
    """spine1 (EOS over SNMP: PFC frames per priority, no queue packet count, no watchdog count) storms: pause_rate
    opens, but no pfc_storm can be inferred there, and the log says so once for the device. leaf1 (SONiC: its queue
    counters over SNMP) and gpu01 (mlx5: tx_prio packets) can be, and are not named."""
    def blind(device: str) -> list[dict]:
        return [r for r in daemon.log_records()
                if r.get("device") == device and "cannot be inferred" in r["msg"] and r["level"] == "warning"]

    wait_for(lambda: daemon.value("losslessd_up", device="spine1") == 1, "spine1 up")
    sim.storm("spine1", "Ethernet1/1", 3, on=True)
    try:
        [said] = wait_for(lambda: blind("spine1"), "the daemon to say spine1's storms cannot be inferred")
        assert said["msg"].startswith("PFC storms of spine1 cannot be inferred where its counters say nothing")
        assert "pause_rate still reports the pauses" in said["msg"]
        wait_for(lambda: [e for e in daemon.events(device="spine1", kind="pause_rate") if e["port"] == "Ethernet1/1"],
                 "spine1's pauses reported as pause_rate")
        for device in ("spine1", "leaf1", "gpu01"):  # (counted polls, not sleeps)
            start = daemon.value("losslessd_polls_total", device=device, source="ssh" if device == "gpu01" else "snmp")
            wait_for(lambda d=device, s=start: daemon.value(
                "losslessd_polls_total", device=d, source="ssh" if d == "gpu01" else "snmp") >= s + 3,
                f"3 more polls of {device}")
    finally:
        sim.storm("spine1", "Ethernet1/1", 3, on=False)
    assert len(blind("spine1")) == 1 and blind("leaf1") == [] and blind("gpu01") == []


def test_counter_wrap_and_reset_raise_nothing(daemon, sim):
    """leaf2's Counter32 columns wrap between two of the daemon's polls; then its agent restarts.

    The restart is counted in the counter tracker's own lines ("counters of leaf2 went back ..."), not in every line
    holding "went back": the SNMP poller's "walking its ports' speeds at the next poll: sysUpTime went back" notice
    comes with each restart too, so a poll that straddled the restart (1 + 1 + that notice) read as a third report
    under load (session 43, part h)."""
    discards = {"device": "leaf2", "port": "Ethernet1"}

    def went_back(device: str) -> list[dict]:
        return [r for r in daemon.log_records() if r.get("device") == device and
                f"counters of {device} went back" in r["msg"]]

    def polled(more: int) -> None:  # counted polls that answered, not sleeps: a stalled daemon must not pass for a
        start = daemon.answered("leaf2")  # quiet one, nor a poll that timed out for one that read the counters
        wait_for(lambda: daemon.answered("leaf2") >= start + more, f"{more} more polls of leaf2 answered")

    # The daemon has read the column just below 2^32; the wrap is set after that, so it falls between two polls.
    wait_for(lambda: (daemon.value("losslessd_receive_discards_total", **discards) or 0) > 2**31,
             "a poll of leaf2 below the wrap")
    sim.wrap32("leaf2", 2 * INTERVAL_S)
    wait_for(lambda: daemon.value("losslessd_receive_discards_total", **discards) < 2**31, "a poll past the wrap")
    polled(1)
    assert went_back("leaf2") == []  # the wrap was taken for a wrap, not for a restart
    sim.reset_counters("leaf2")
    wait_for(lambda: went_back("leaf2"), "the daemon to see leaf2's counters restart")
    polled(2)  # a poll that straddled the restart reads old and new values: dropped too
    seen = len(went_back("leaf2"))
    polled(3)
    # then rates resume from the new base
    assert 1 <= seen <= 2 and len(went_back("leaf2")) == seen, [r["msg"] for r in went_back("leaf2")]
    assert daemon.events(device="leaf2") == []  # no storm, no pause rate, no down from either
    assert daemon.value("losslessd_up", device="leaf2") == 1


def test_device_down_is_marked_and_recovers(daemon, sim):
    wait_for(lambda: daemon.value("losslessd_up", device="spine1") == 1, "spine1 up")
    sim.set_down("spine1")
    try:
        wait_for(lambda: daemon.value("losslessd_up", device="spine1") == 0, "spine1 marked down")
        down = wait_for(lambda: [e for e in daemon.events(device="spine1", kind="device_down") if e["end"] is None],
                        "an open device_down event")
        assert daemon.value("losslessd_event_active", kind="device_down", device="spine1") == 1
        assert daemon.get("/-/healthy")[0] == 200  # one dead device is not a sick daemon
    finally:
        sim.set_down("spine1", False)
    wait_for(lambda: daemon.value("losslessd_up", device="spine1") == 1, "spine1 up again")
    wait_for(lambda: [e for e in daemon.events(device="spine1", kind="device_down")
                      if e["id"] == down[0]["id"] and e["end"] is not None], "device_down to end")


def test_reload_with_a_bad_file_keeps_the_running_settings(daemon):
    good = daemon.config.read_text()
    try:
        daemon.write(good + "poll:\n  snmp_interval_s: -1\n")  # a duplicate key: YAML keeps the bad one
        status, body = daemon.request("/-/reload", "POST")
        assert status == 400 and "losslessd.yaml" in body
        daemon.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: sum("reload refused" in r["msg"] for r in daemon.log_records()) >= 2, "the refusal logged")
        assert daemon.proc.poll() is None
        assert daemon.value("losslessd_config_last_reload_successful") == 0
        # (0 until the first poll of leaf1 has ended: on a loaded machine the refusal can come before it)
        before = daemon.value("losslessd_polls_total", device="leaf1", source="snmp") or 0
        wait_for(lambda: (daemon.value("losslessd_polls_total", device="leaf1", source="snmp") or 0) > before,
                 "polls to go on under the old settings")
    finally:
        daemon.write(good)
    status, body = daemon.request("/-/reload", "POST")
    assert status == 200, body
    assert daemon.value("losslessd_config_last_reload_successful") == 1


def test_a_burst_of_sighups_while_a_reload_runs_reloads_once_more_not_once_each(sim, tmp_path):
    """SIGHUPs that arrive while a reload runs ask for one reload after it, not one each: a config-management run
    that signals once per file it changed reloaded the fleet's settings that many times. The reload is made to take
    a while by a large known_hosts file (checked line by line at each load); systemd's RELOADING=1 and READY=1 tell
    when it runs, and each reload sends them once."""
    keys = tmp_path / "known_hosts"
    own = sim.known_hosts_path.read_text()
    key = own.split()[1:3]  # (type, base64) of the simulator's host key, under 30,000 other host names
    keys.write_text(own + "".join(f"other{i}.example {key[0]} {key[1]}\n" for i in range(30000)))
    name = f"losslessd-reloads-{os.getpid()}"
    with notify_socket(name) as seen:
        d = DaemonProcess(sim, tmp_path / "daemon", known_hosts=str(keys), poll={"ssh_counters_interval_s": None})
        try:
            d.start(env={"NOTIFY_SOCKET": "@" + name})
            wait_for(lambda: "READY=1" in seen, "READY=1", timeout_s=120)
            start = len(seen)
            d.proc.send_signal(signal.SIGHUP)
            wait_for(lambda: "RELOADING=1" in seen[start:], "the first reload to start", poll_s=0.01)
            sent = 1
            while "READY=1" not in seen[start:] and sent < 40:  # more, spaced so that the kernel delivers each
                d.proc.send_signal(signal.SIGHUP)
                sent += 1
                time.sleep(0.01)
            wait_for(lambda: seen[start:].count("READY=1") >= 2, "the reload queued behind the first to end")
            # A probe, not a fixed wait: POST /-/reload answers once a reload that started after it has ended, so any
            # reload queued beyond the one for the burst has run (and said RELOADING=1) by then.
            assert d.request("/-/reload", "POST")[0] == 200
            wait_for(lambda: seen[start:].count("READY=1") == seen[start:].count("RELOADING=1"),
                     "every reload's READY=1", poll_s=0.01)
            reloads = seen[start:].count("RELOADING=1") - 1  # (the probe's own)
            assert d.proc.poll() is None
        finally:
            d.stop()
    assert sent >= 5, f"the first reload ended before more signals were sent ({sent}): make it longer"
    # 2: the first and one for all the signals it saw; 3 when the last signal crossed the first reload's end
    assert reloads in (2, 3), (reloads, sent)


def _catches(pid: int, sig: signal.Signals) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (its SigCgt mask, proc(5))."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


def _notifying_daemon(sim, tmp_path, name: str) -> DaemonProcess:
    """A daemon started as systemd starts it (NOTIFY_SOCKET @name), SSH counters off: the start-up signal tests."""
    d = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None})
    env = {**os.environ, **sim.env, "NOTIFY_SOCKET": "@" + name}
    with open(d.log, "ab") as log:
        d.proc = subprocess.Popen([*CLI, "daemon", "--config", str(d.config)], stderr=log,
                                  stdout=subprocess.DEVNULL, env=env)
    return d


def test_sighups_while_the_daemon_starts_neither_end_it_nor_reload_beside_its_start(sim, tmp_path):
    """A SIGHUP from the moment the daemon can take one until it is ready (a config-management run, `kill -HUP` racing
    a restart): it was fatal until the event loop ran (the settings and the pollers load first, seconds on a loaded
    host), and after that each one reloaded beside the start, whose READY=1 told systemd the daemon was ready before it
    was. Now the signals ask for one reload, made once the daemon has started."""
    name = f"losslessd-early-hup-{os.getpid()}"
    with notify_socket(name) as seen:
        d = _notifying_daemon(sim, tmp_path, name)
        try:
            wait_for(lambda: _catches(d.proc.pid, signal.SIGHUP) or d.proc.poll() is not None, "a SIGHUP handler",
                     timeout_s=120, poll_s=0.005)
            sent = 0
            while d.proc.poll() is None and "READY=1" not in seen and sent < 20_000:
                d.proc.send_signal(signal.SIGHUP)
                sent += 1
                time.sleep(0.01)
            assert d.proc.poll() is None, d.log.read_text()[-3000:]
            assert "READY=1" in seen and sent > 1
            wait_for(lambda: "RELOADING=1" in seen, "the reload the signals asked for")
            # READY=1 came when the daemon was ready, and the reload after it.
            assert seen.index("READY=1") < seen.index("RELOADING=1")
            wait_for(lambda: seen.count("READY=1") >= 2, "the reload to end")
            assert d.get("/-/ready")[0] == 200
            assert not [r for r in d.log_records() if r["level"] == "error" and r["logger"].startswith("losslessd")]
        finally:
            d.stop()



def test_a_stop_asked_while_the_daemon_starts_cancels_the_reload_asked_before_it(sim, tmp_path):
    """A SIGHUP and then a SIGTERM while the daemon starts (a config-management run, then a `systemctl stop`): the
    reload waited for the start and then ran after STOPPING=1, telling systemd RELOADING=1 and READY=1 while the
    daemon stopped. The stop cancels it: nothing is said after STOPPING=1."""
    name = f"losslessd-stop-reload-{os.getpid()}"
    with notify_socket(name) as seen:
        d = _notifying_daemon(sim, tmp_path, name)
        try:
            wait_for(lambda: _catches(d.proc.pid, signal.SIGTERM) or d.proc.poll() is not None,
                     "the event loop's SIGTERM handler", timeout_s=120, poll_s=0.005)
            assert not seen, "the daemon was ready before the signals could come while it started"
            d.proc.send_signal(signal.SIGHUP)
            d.proc.send_signal(signal.SIGTERM)
            assert d.proc.wait(timeout=120) == 0, d.log.read_text()[-3000:]
            wait_for(lambda: "STOPPING=1" in seen, "STOPPING=1")
            # Whatever the daemon sent is queued before the exit; a datagram of ours after it, once read, says the
            # reader has taken all of it (a socket's datagrams are read in the order sent).
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as own:
                own.sendto(b"TEST=drained", "\0" + name)
            wait_for(lambda: "TEST=drained" in seen, "the reader to take every datagram")
            after = seen[seen.index("STOPPING=1") + 1:]
            assert not [line for line in after if line.startswith(("RELOADING=", "READY="))], seen
        finally:
            if d.proc.poll() is None:
                d.proc.kill()
                d.proc.wait()

# In the daemon's process only: a reload's read of its settings waits until the stop has begun stopping the workers,
# and the stop, before it stops them, waits until no reload runs (a reload that kept running went on to its end).
_RELOAD_ACROSS_THE_STOP = """import sys
if "daemon" in sys.argv and "--fd" not in sys.argv:
    import asyncio
    import threading

    from losslessd.daemon import service

    stopping = threading.Event()
    loading = service.load_settings
    stopping_workers = service.Daemon._stop_workers

    def load_settings(path):
        stopping.wait(60)
        return loading(path)

    async def _stop_workers(self):
        stopping.set()
        for _ in range(600):
            if self._reloading is None:
                break
            await asyncio.sleep(0.1)
        await stopping_workers(self)

    service.load_settings = load_settings
    service.Daemon._stop_workers = _stop_workers
"""


def test_a_stop_during_a_reload_ends_the_reload_and_says_nothing_after_stopping(sim, tmp_path):
    """Session 45 review r2: a SIGTERM while a reload ran (its settings still being read) left the reload running beside
    the stop: it swapped settings and sent configures to workers being stopped, and told systemd READY=1 after
    STOPPING=1. The stop now cancels the reload under way. A `sitecustomize` hook holds the reload's read until the
    stop has begun, and the stop until the reload is over: before, READY=1 came after STOPPING=1."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_RELOAD_ACROSS_THE_STOP)
    name = f"losslessd-stop-in-reload-{os.getpid()}"
    with notify_socket(name) as seen:
        d = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None})
        try:
            d.start(env={"NOTIFY_SOCKET": "@" + name, "PYTHONPATH": os.pathsep.join(
                p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)})
            wait_for(lambda: "READY=1" in seen, "READY=1", timeout_s=120)
            answers: list[tuple[int, str]] = []
            asking = threading.Thread(target=lambda: answers.append(d.request("/-/reload", "POST")))
            asking.start()
            wait_for(lambda: "RELOADING=1" in seen, "the reload to start", poll_s=0.01)
            d.proc.send_signal(signal.SIGTERM)
            assert d.proc.wait(timeout=120) == 0, d.log.read_text()[-3000:]
            asking.join(60)
            # (the request that asked for it is told so, not left without an answer)
            assert len(answers) == 1 and answers[0][0] != 200 and "stopping" in answers[0][1], answers
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as own:  # (read after all the daemon sent)
                own.sendto(b"TEST=drained", "\0" + name)
            wait_for(lambda: "TEST=drained" in seen, "the reader to take every datagram")
            after = seen[seen.index("STOPPING=1") + 1:]
            assert not [line for line in after if line.startswith(("RELOADING=", "READY="))], seen
            assert not [r for r in d.log_records() if "settings reloaded" in r["msg"]]
        finally:
            if d.proc.poll() is None:
                d.proc.kill()
                d.proc.wait()


def test_kill_9_keeps_committed_history(daemon, sim):
    def storms() -> list[dict]:
        """Storm events of leaf1 Ethernet4: inferred, or its own watchdog's (`show pfcwd stats -e` counts it)."""
        return [e for kind in ("pfc_storm", "onbox_storm") for e in daemon.events(kind=kind)
                if (e["device"], e["port"]) == ("leaf1", "Ethernet4")]

    sim.storm("leaf1", "Ethernet4", 3, on=True)
    try:
        wait_for(lambda: [e for e in storms() if e["end"] is None], "an open storm event committed")
        daemon.proc.kill()
        daemon.proc.wait()
        # the events open when it died (read after the kill: one open before it may have ended on its own since, and
        # so ended with its own message; a loaded machine's late poll can end an on-box watchdog's storm)
        events = [e for e in storms() if e["end"] is None]
        assert events, storms()
        with sqlite3.connect(f"file:{daemon.folder / 'history.db'}?mode=ro", uri=True) as db:
            [(last_bucket,)] = db.execute("SELECT max(bucket_s) FROM coverage WHERE device = 'leaf1'").fetchall()
        time.sleep(5 * INTERVAL_S)  # (the restart comes well after the killed run's last poll)
        daemon.start()  # same settings, same history file
        after = {e["id"]: e for e in storms()}
        assert events[0]["id"] in after
        ended = after[events[0]["id"]]
        # Closed at the restart (its detector state died), dated at the killed run's last poll of leaf1 (the end of
        # its last 1 s history bucket), not at the restart: the time the daemon was down is no time of storm.
        assert ended["end"] is not None and ended["start_unix_s"] <= ended["end_unix_s"] <= last_bucket + 1
        assert ended["message"].endswith("(ended: losslessd stopped uncleanly, killed or crashed; ended at its last "
                                         "poll the history holds, its detector state was lost)")
        wait_for(lambda: [e for e in storms() if e["end"] is None], "the ongoing storm to be reported again")
    finally:
        sim.storm("leaf1", "Ethernet4", 3, on=False)


def test_sd_notify_ready_watchdog_stopping(sim, tmp_path):
    """READY=1, WATCHDOG=1 pings and STOPPING=1 reach the manager's socket, in that order. The socket is read all
    along, as systemd reads it: a reader that waits until the daemon is ready lets the pings fill the socket's
    queue (10 datagrams) on a slow start, and the daemon then drops what does not fit (MSG_DONTWAIT), READY=1 too."""
    name = f"losslessd-notify-{os.getpid()}"
    with notify_socket(name) as seen:
        d = DaemonProcess(sim, tmp_path, poll={"ssh_counters_interval_s": None})
        d.start(env={"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "1000000"})  # WatchdogSec=1: ping every 0.5 s
        try:
            wait_for(lambda: {"READY=1", "WATCHDOG=1"} <= set(seen), "READY=1 and a watchdog ping", timeout_s=120)
        finally:
            status = d.stop()
        wait_for(lambda: "STOPPING=1" in seen, "STOPPING=1", timeout_s=60)
        assert status == 0
        assert seen.index("READY=1") < seen.index("STOPPING=1")
        assert any(line.startswith("STATUS=") for line in seen)


def test_metrics_on_an_address_that_is_not_loopback_is_logged_as_a_warning(sim, daemon, tmp_path):
    """/metrics and /-/reload (no authentication) bound where the settings say: 127.0.0.1 by default, without a word;
    0.0.0.0 (every address), which needs `http.allow_remote: true`, with a warning naming it."""
    def warned(d):
        return [r for r in d.log_records() if r["level"] == "warning" and "not a loopback address" in r["msg"]]

    assert warned(daemon) == []
    d = DaemonProcess(sim, tmp_path / "daemon", http={"host": "0.0.0.0", "allow_remote": True},
                      poll={"ssh_counters_interval_s": None})
    try:
        d.start()
        [record] = wait_for(lambda: warned(d), "the warning")
        assert f"http://0.0.0.0:{d.port}" in record["msg"] and "127.0.0.1" in record["msg"]
    finally:
        d.stop()
