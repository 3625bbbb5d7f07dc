"""`losslessd sim storm|congest|stall|down|reset|syncd-restart|wrap32`: faults started on a running simulator from
another shell through its control socket (losslessd.sim.control), and sim-bench's priority from the policy. The
socket is a real unix socket served by the real ControlServer; the slow test runs `losslessd sim`, `losslessd daemon`
and the fault commands as processes and reads the daemon's /metrics."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from losslessd.errors import InputError
from losslessd.sim import Simulator
from losslessd.sim.control import ControlServer, peer_uid
from losslessd.simcontrol import SOCKET_NAME, claim, request
from tests.clirun import ROOT, losslessd, program
from tests.daemonproc import DaemonProcess, wait_for
from tests.peers import FABRIC


@contextlib.contextmanager
def _controlled(tmp_path: Path, devices=("leaf1", "gpu01"), fabric: Path = FABRIC) -> Iterator[Simulator]:
    """A simulator with no listener (its counter state is what the faults change) and its control socket; short
    folder names, as a unix socket's path is at most 107 bytes."""
    out = tmp_path / "s"
    sim = Simulator(fabric, out, ssh=False, snmp=False, devices=devices and list(devices)).start()
    server = ControlServer(sim, out)
    server.start()
    try:
        yield sim
    finally:
        server.stop()
        sim.stop()


def _open_storms(sim: Simulator, device: str) -> set[str]:
    return {key for key, spans in sim.devices[device].traffic.storms.items() if spans and spans[-1][1] is None}


def test_storm_from_the_cli_starts_and_stops_on_the_running_simulator(tmp_path):
    with _controlled(tmp_path) as sim:
        out = sim.workdir
        assert stat.S_IMODE(os.stat(out / SOCKET_NAME).st_mode) == 0o600
        key = f"{sim.devices['leaf1'].if_indexes['Ethernet0']}.3"
        # no --priority: leaf1 Ethernet0's own lossless priority (pfc_enable "3" in its CONFIG_DB)
        res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", out)
        assert (res.returncode, res.stdout, res.stderr) == (0, "storm leaf1 Ethernet0 priority 3 on\n", "")
        assert _open_storms(sim, "leaf1") == {key}
        assert sim.devices["leaf1"].traffic.storms[key][-1][3] is False  # a storm: the queue stops (not congestion)
        res = losslessd("sim", "--out", out, "storm", "leaf1", "Ethernet0", "--priority", "3", "--off")
        assert (res.returncode, res.stdout) == (0, "storm leaf1 Ethernet0 priority 3 off\n")
        assert _open_storms(sim, "leaf1") == set()
        res = losslessd("sim", "congest", "leaf1", "Ethernet0", "--priority", "5", "--out", out)
        assert res.returncode == 0 and "no PFC on priority 5 of Ethernet0" in res.stdout
        assert sim.devices["leaf1"].traffic.storms[f"{key[:-2]}.5"][-1][3] is True  # drains: congestion


def _wait_for_a_later_end(sim: Simulator) -> None:
    """A marker fault of the same --for, ordered after the end a test expects NOT to come, and waited for until it
    ends: an end planned earlier would have fired first (no fixed sleep that a loaded machine outruns)."""
    marker = f"{sim.devices['leaf1'].if_indexes['Ethernet0']}.6"
    assert losslessd("sim", "storm", "leaf1", "Ethernet0", "--priority", "6", "--for", "0.5",
                     "--out", sim.workdir).returncode == 0
    wait_for(lambda: marker not in _open_storms(sim, "leaf1"), "the marker fault to end", timeout_s=30)


def test_a_fault_for_some_seconds_is_ended_by_the_simulator(tmp_path):
    with _controlled(tmp_path) as sim:
        res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--for", "0.5", "--out", sim.workdir)
        assert (res.returncode, res.stdout) == (0, "storm leaf1 Ethernet0 priority 3 on for 0.5 s\n")
        assert _open_storms(sim, "leaf1")
        wait_for(lambda: not _open_storms(sim, "leaf1"), "the storm to end after --for", timeout_s=30)
        # a later order for the same storm replaces the end planned for it: on for good
        assert losslessd("sim", "storm", "leaf1", "Ethernet0", "--for", "0.5", "--out", sim.workdir).returncode == 0
        assert losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", sim.workdir).returncode == 0
        _wait_for_a_later_end(sim)  # (the replaced end, planned before it, would have come by then)
        assert _open_storms(sim, "leaf1")
        # congestion for a while, then a storm on the same priority: the congestion's end does not end the storm
        assert losslessd("sim", "congest", "leaf1", "Ethernet4", "--for", "0.5", "--out", sim.workdir).returncode == 0
        assert losslessd("sim", "storm", "leaf1", "Ethernet4", "--out", sim.workdir).returncode == 0
        _wait_for_a_later_end(sim)
        key = f"{sim.devices['leaf1'].if_indexes['Ethernet4']}.3"
        assert key in _open_storms(sim, "leaf1") and sim.devices["leaf1"].traffic.storms[key][-1][3] is False


def test_the_other_faults_reach_the_simulator(tmp_path):
    with _controlled(tmp_path) as sim:
        out = sim.workdir
        assert losslessd("sim", "stall", "gpu01", "enp65s0f0np0", "--out", out).stdout == \
            "stall gpu01 enp65s0f0np0 on\n"
        assert sim.devices["gpu01"].traffic.stalls["enp65s0f0np0"][-1][1] is None
        t0 = sim.devices["leaf1"].traffic.t0
        assert losslessd("sim", "reset", "leaf1", "--out", out).stdout == "reset leaf1\n"
        assert sim.devices["leaf1"].traffic.restarted and sim.devices["leaf1"].traffic.t0 > t0
        assert losslessd("sim", "syncd-restart", "gpu01", "--out", out).returncode == 0
        assert sim.devices["gpu01"].traffic.uptime_from is not None
        assert losslessd("sim", "down", "leaf1", "--out", out).stdout == "down leaf1 on\n"
        assert sim.devices["leaf1"].down
        assert losslessd("sim", "down", "leaf1", "--off", "--out", out).returncode == 0
        assert not sim.devices["leaf1"].down


@pytest.mark.parametrize(("args", "error"), [
    (["storm", "leaf9", "Ethernet0"], "no simulated device 'leaf9' (devices: gpu01, leaf1)"),
    (["storm", "leaf1", "Ethernet999"], "leaf1 has no port 'Ethernet999' (ports: Ethernet0, Ethernet4, Ethernet8, "
                                        "Ethernet12, Ethernet48, Ethernet52)"),
    (["storm", "leaf1", "Ethernet8"], "leaf1 Ethernet8 has PFC on priorities [3, 4]: say which with --priority"),
    (["stall", "leaf1", "Ethernet0"], "leaf1 is a switch: a NIC stall happens on a host (gpu01)"),
    (["wrap32", "leaf1"], "leaf1 has no SNMP agent"),
])
def test_what_the_simulator_does_not_have_is_named_exit_2(tmp_path, args, error):
    with _controlled(tmp_path) as sim:
        res = losslessd("sim", *args, "--out", sim.workdir)
        assert res.returncode == 2 and res.stdout == "", res
        assert res.stderr.startswith(f"losslessd: error: the simulator refused it: {error}"), res.stderr
        assert _open_storms(sim, "leaf1") == set()


def test_priorities_outside_0_7_and_bad_durations_are_refused_before_asking(tmp_path):
    for args in (["--priority", "8"], ["--priority", "-1"], ["--for", "0"], ["--for", "nan"], ["--for", "inf"]):
        res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", tmp_path, *args)
        assert res.returncode == 2 and "Invalid value for" in res.stderr, (args, res.stderr)


@pytest.mark.parametrize("uid", [0, 1000, 2**31, 2**32 - 2])
def test_the_peer_uid_is_read_unsigned(uid):
    """struct ucred is pid_t, uid_t, gid_t (socket(7), unix(7)), uid_t an unsigned 32-bit integer: a uid from 2**31 up
    (an id-mapped container's) was read negative, and its own user refused by its simulator."""
    ucred = (4321).to_bytes(4, sys.byteorder, signed=True) + uid.to_bytes(4, sys.byteorder) + \
        (2**32 - 2).to_bytes(4, sys.byteorder)
    assert peer_uid(ucred) == uid


def test_the_peer_uid_of_a_real_connection_is_this_users():
    here, there = socket.socketpair(socket.AF_UNIX)
    with here, there:
        assert peer_uid(here.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)) == os.getuid()


@pytest.mark.parametrize(("mode", "who", "then"), [
    (0o777, "group and others", "`chmod go-w {out}`"), (0o757, "others", "`chmod go-w {out}`"),
    (0o775, "its group", "`chmod go-w {out}`"), (0o1777, "group and others", "give a folder of your own inside it"),
])
def test_an_out_others_may_write_is_refused_before_anything_is_written(tmp_path, mode, who, then):
    """A 0777 /tmp/sim: any user could read the simulator's host key, rename its files or replace its control socket."""
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(mode)
    res = losslessd("sim", "--fabric", FABRIC, "--out", out)
    assert res.returncode == 2, res.stderr
    assert f"{out}: --out (owned by you, mode {mode:04o}) is writable by {who}: another user could replace the " \
        f"simulator's files and its control socket; {then.format(out=out)}" in res.stderr, res.stderr
    assert not list(out.iterdir())


def test_an_out_of_another_user_is_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user takes root")
    out = tmp_path / "theirs"
    out.mkdir(mode=0o700)
    os.chown(out, 65534, 65534)
    res = losslessd("sim", "--fabric", FABRIC, "--out", out)
    assert res.returncode == 2, res.stderr
    assert f"{out}: --out is owned by " in res.stderr and "(uid 65534), mode 0700, not by " in res.stderr
    assert "give a folder of your own (a new one is made 0700)" in res.stderr, res.stderr


def test_a_new_out_is_made_0700_and_an_own_0755_one_still_serves(tmp_path):
    made = tmp_path / "new" / "sim"
    with Simulator(FABRIC, made, ssh=False, snmp=False, devices=["leaf1"]):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700
    assert stat.S_IMODE(made.parent.stat().st_mode) == 0o777 & ~_umask()  # (only --out itself is made private)
    own = tmp_path / "own"
    own.mkdir(mode=0o755)
    own.chmod(0o755)
    with Simulator(FABRIC, own, ssh=False, snmp=False, devices=["leaf1"]):
        assert (own / "inventory.yaml").is_file()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_requests_are_checked_against_the_fault_table(tmp_path):
    """The channel takes names and numbers of FAULTS, never code or attribute names, and a bad request leaves the
    channel serving the next one."""
    with _controlled(tmp_path) as sim:
        out = sim.workdir
        for message, error in [({"fault": "__init__", "device": "leaf1"}, "no fault '__init__'"),
                               ({"fault": "storm", "device": "leaf1", "port": "Ethernet0", "exec": "x"},
                                "unknown request keys ['exec']"),
                               ({"fault": "storm", "device": "leaf1", "port": "Ethernet0", "priority": True},
                                "priority True is not an 802.1p priority"),
                               ({"fault": "storm", "device": "leaf1", "port": "Ethernet0", "for_s": float("inf")},
                                "--for takes seconds above 0"),
                               ({"fault": "storm", "device": "leaf1", "port": "Ethernet0", "on": "off"},
                                "on is true or false")]:
            with pytest.raises(InputError, match=re.escape(error)):
                request(out, message)
        with socket.socket(socket.AF_UNIX) as s:  # not JSON, then the channel still answers
            s.connect(str(out / SOCKET_NAME))
            s.sendall(b"\xff\xfe{\n")
            assert "error" in json.loads(s.makefile("rb").readline())
        with socket.socket(socket.AF_UNIX) as s:  # nested past the recursion limit: refused, not a traceback
            s.connect(str(out / SOCKET_NAME))
            s.sendall(b"[" * 4000 + b"\n")
            assert json.loads(s.makefile("rb").readline()) == {"error": "a request is one flat JSON object"}
        assert request(out, {"fault": "storm", "device": "leaf1", "port": "Ethernet0"}).endswith(" on")


def test_a_stale_socket_is_replaced_and_a_live_one_refuses_a_second_simulator(tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(out / SOCKET_NAME))  # bound, never listening: what a killed simulator leaves
    stale.close()
    res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", out)
    assert res.returncode == 2 and "its control socket is stale (the simulator crashed or was killed)" in res.stderr
    claim(out)
    assert not (out / SOCKET_NAME).exists()
    with _controlled(tmp_path):
        res = losslessd("sim", "--fabric", FABRIC, "--out", out, "--no-snmp")
        assert res.returncode == 2 and "another `losslessd sim` is serving this --out folder" in res.stderr
    (out / SOCKET_NAME).write_text("mine\n")
    res = losslessd("sim", "--fabric", FABRIC, "--out", out, "--no-snmp")
    assert res.returncode == 2 and "which is not the simulator's control socket" in res.stderr
    assert (out / SOCKET_NAME).read_text() == "mine\n"


def test_no_simulator_and_missing_options_are_named(tmp_path):
    res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", tmp_path)
    assert res.returncode == 2 and f"no simulator is serving --out {tmp_path}: there is no control.sock" in res.stderr
    res = losslessd("sim", "storm", "leaf1", "Ethernet0")
    assert res.returncode == 2 and "missing --out" in res.stderr
    for serving in (["--fabric", FABRIC], ["--no-snmp"], ["--device", "leaf1"]):  # (not silently left unused)
        res = losslessd("sim", *serving, "storm", "leaf1", "Ethernet0", "--out", tmp_path)
        assert res.returncode == 2 and "--no-live-counters start a simulator; `sim storm` acts on a running one" \
            in res.stderr, res.stderr
    res = losslessd("sim", "--out", tmp_path)
    assert res.returncode == 2 and res.stderr.startswith("losslessd: error: missing --fabric")
    # the fault is optional: `sim --fabric F --out O` alone starts a simulator (not `sim [OPTIONS] COMMAND`)
    assert "sim [OPTIONS] [FAULT DEVICE [PORT] [OPTIONS]]\n" in losslessd("sim", "--help").stdout


def test_an_out_too_deep_for_a_socket_path_serves_faults(tmp_path):
    """A control socket's path is at most 107 bytes (unix(7)): a deeper --out served without its control channel.
    Bound and reached through the folder held open (/proc/self/fd/N/control.sock), it serves `sim storm`."""
    deep = tmp_path / ("d" * 100) / ("e" * 100)
    assert len(os.fsencode(deep / SOCKET_NAME)) > 107
    with _controlled(deep) as sim:
        assert stat.S_IMODE(os.lstat(sim.workdir / SOCKET_NAME).st_mode) == 0o600
        res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", sim.workdir)
        assert (res.returncode, res.stdout, res.stderr) == (0, "storm leaf1 Ethernet0 priority 3 on\n", "")
        with pytest.raises(InputError, match="another `losslessd sim` is serving this --out"):
            claim(sim.workdir)
    assert not (sim.workdir / SOCKET_NAME).exists()  # (its own socket removed on stop, by its long path)


@pytest.mark.parametrize(("mode", "who"), [(0o777, "others"), (0o770, "its group")])
def test_an_out_in_a_folder_others_may_rename_it_in_is_refused(tmp_path, mode, who):
    """A 0700 --out inside a world-writable folder without the sticky bit: any user can rename it away and put a
    folder of their own at its name (rename(2) needs only write on the parent). Refused before anything is made; a
    sticky folder (only an entry's owner renames it: /tmp's 1777) serves."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    out = shared / "sim"
    res = losslessd("sim", "--fabric", FABRIC, "--out", out)
    assert res.returncode == 2, res.stderr
    assert f"{out}: --out is inside {shared}, which (mode {mode:04o}) is writable by {who} without the sticky bit: " \
        "another user could rename --out away" in res.stderr, res.stderr
    assert not out.exists()
    shared.chmod(mode | stat.S_ISVTX)
    with Simulator(FABRIC, out, ssh=False, snmp=False, devices=["leaf1"]):
        assert (out / "inventory.yaml").is_file()


def _leaf1_lossless_3_and_4(folder: Path) -> Path:
    """examples/fabric/leaf1 with PFC on priorities 3 and 4 of Ethernet0, queue 4 marking ECN as queue 3 does."""
    shutil.copytree(FABRIC / "leaf1", folder / "leaf1")
    path = folder / "leaf1" / "config_db.json"
    db = json.loads(path.read_text())
    db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,4"
    db["QUEUE"]["Ethernet0|4"]["wred_profile"] = db["QUEUE"]["Ethernet0|3"]["wred_profile"]
    path.write_text(json.dumps(db, indent=2))
    return folder


@pytest.mark.parametrize(("policy", "credited"), [("lossless-4", 4), ("roce-dscp26", 3)])
def test_sim_bench_runs_on_the_policys_lossless_priority(make_sim, tmp_path, policy, credited):
    """sim-bench ran priority 3 unless --priority said otherwise (a vendor default); now the policy's lossless
    priority: a policy with priority 4 makes the workload's counters land on priority 4."""
    sim = make_sim(["leaf1"], snmp=False, fabric=_leaf1_lossless_3_and_4(tmp_path / "fabric"))
    (tmp_path / "lossless-4.yaml").write_text("name: lossless-4\nextends: roce-dscp26\nlossless:\n  priorities: [4]\n")
    res = losslessd("sim-bench", "--inventory", sim.inventory_path, "--known-hosts", sim.known_hosts_path,
                    "--device", "leaf1", "--port", "Ethernet0", "--sizes", "8M",
                    "--policy", tmp_path / "lossless-4.yaml" if policy == "lossless-4" else policy, env=sim.env)
    assert res.returncode == 0, res.stderr
    index = sim.devices["leaf1"].if_indexes["Ethernet0"]
    assert {key.split("/")[0] for key in sim.devices["leaf1"].traffic.credits} == {f"{index}.{credited}"}


def test_sim_bench_asks_which_priority_when_the_policy_has_several(tmp_path):
    (tmp_path / "two.yaml").write_text("name: two\nextends: roce-dscp26\nlossless:\n  priorities: [3, 4]\n")
    res = losslessd("sim-bench", "--inventory", tmp_path / "inventory.yaml", "--device", "leaf1", "--port",
                    "Ethernet0", "--policy", tmp_path / "two.yaml")
    assert res.returncode == 2
    assert res.stderr == ("losslessd: error: policy two has lossless priorities 3, 4: give --priority to say which one "
                          "the benchmark runs on\n")


@pytest.mark.slow
def test_readme_try_it_a_storm_started_from_the_cli_is_flagged_by_the_daemon(tmp_path):
    """The README's daemon "Try it" as a user runs it: `losslessd sim` in one shell, `losslessd daemon` on its
    inventory, `losslessd sim storm leaf1 Ethernet0` in a third; the daemon's /metrics shows the storm (its gauge at
    1, the pause counter climbing), its history the storm event, and `--off` clears it."""
    out = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-m", "losslessd", "sim", "--fabric", str(FABRIC), "--out", str(out),
                             "--device", "leaf1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    daemon = None
    try:
        printed = []
        for line in proc.stdout:
            printed.append(line)
            if line.startswith("Serving"):
                break
        assert f"control:     {out / SOCKET_NAME}" in "".join(printed), "".join(printed)
        env = dict(re.findall(r"^export (\w+)=(\S+)$", "".join(printed), re.MULTILINE))
        served = SimpleNamespace(inventory_path=out / "inventory.yaml", known_hosts_path=out / "known_hosts", env=env)
        daemon = DaemonProcess(served, tmp_path / "daemon").start()
        place = {"device": "leaf1", "port": "Ethernet0", "priority": "3"}
        before = wait_for(lambda: daemon.value("losslessd_pfc_rx_frames_total", **place), "a first pause count")
        assert daemon.value("losslessd_pfc_storm", **place) in (None, 0.0)

        storm = subprocess.run([sys.executable, "-m", "losslessd", "sim", "storm", "leaf1", "Ethernet0", "--out",
                                str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert (storm.returncode, storm.stdout) == (0, "storm leaf1 Ethernet0 priority 3 on\n"), storm.stderr
        wait_for(lambda: daemon.value("losslessd_pfc_storm", **place) == 1.0, "the daemon's storm gauge")
        assert daemon.value("losslessd_pfc_rx_frames_total", **place) > before
        kinds = wait_for(lambda: {e["kind"] for e in daemon.events(device="leaf1")} & {"pfc_storm", "onbox_storm"},
                         "the storm event in the daemon's history")
        assert kinds

        off = subprocess.run([sys.executable, "-m", "losslessd", "sim", "storm", "leaf1", "Ethernet0", "--off",
                              "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert off.returncode == 0, off.stderr
        wait_for(lambda: daemon.value("losslessd_pfc_storm", **place) == 0.0, "the storm gauge back at 0")
    finally:
        if daemon is not None:
            daemon.stop()
        proc.terminate()
        rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and rest.strip().endswith("simulator stopped")
    assert not (out / SOCKET_NAME).exists()  # (the socket goes with the simulator)


def test_docs_and_readme_fault_commands_do_what_they_show(tmp_path):
    """docs/simulator.md's `$ losslessd sim storm ...` lines print what the page shows under them, and the README's
    daemon "Try it" storm command runs, against a running simulator's socket (their /tmp/sim made this test's)."""
    text = (ROOT / "docs" / "simulator.md").read_text(encoding="utf-8")
    block = re.search(r"^## Faults from the command line\n.*?^```\n(.*?)^```", text, re.M | re.S)
    assert block, "docs/simulator.md no longer shows fault commands"
    pairs = re.findall(r"^\$ losslessd (.+)\n((?:[^$].*\n)*)", block.group(1), re.M)
    readme = re.search(r"`(losslessd sim storm [^`]+--out /tmp/sim)`", (ROOT / "README.md").read_text())
    assert len(pairs) >= 2 and readme, "the fault commands are gone from docs/simulator.md or the README"
    with _controlled(tmp_path) as sim:
        for command, shown in [*pairs, (readme.group(1).removeprefix("losslessd "), None)]:
            res = losslessd(*command.replace("/tmp/sim", str(sim.workdir)).split())
            assert res.returncode == 0 and (shown is None or res.stdout == shown), (command, res)
        assert _open_storms(sim, "leaf1")  # (the README's storm left on)


def test_the_workload_storm_command_takes_on_or_off_only():
    """`losslessd-sim-workload storm PORT PRIORITY onn` (sim-bench's SSH control command) read as `off` and answered
    "credited"; now refused naming what it takes."""
    from losslessd.sim import WORKLOAD_COMMAND, load_devices

    leaf1 = load_devices(FABRIC, ["leaf1"])["leaf1"]
    assert leaf1.control(f"{WORKLOAD_COMMAND} storm Ethernet0 3 onn") == "error: a storm is `on` or `off`, not 'onn'"
    assert leaf1.control(f"{WORKLOAD_COMMAND} storm Ethernet0 3 on") == "credited"
    assert leaf1.traffic.storms[f"{leaf1.if_indexes['Ethernet0']}.3"][-1][1] is None


def test_a_large_fleets_names_are_cut_in_a_reply(tmp_path):
    """A request naming no device of a 40-switch fleet is answered with the first names and the count: the whole list
    could outgrow a reply."""
    from losslessd.sim.fleet import write_fleet

    write_fleet(FABRIC / "leaf1" / "config_db.json", tmp_path / "f", 40, ports=2)
    with _controlled(tmp_path, None, tmp_path / "f") as sim, pytest.raises(
            InputError, match=r"no simulated device 'sw041' \(devices: sw001, .*, sw012 and 28 more\)"):
        request(sim.workdir, {"fault": "reset", "device": "sw041"})


@pytest.mark.slow
def test_a_fault_command_loads_no_simulator():
    """`losslessd sim storm` sends one line: it loaded the whole simulator package (SSH, SNMP, config pushes: 0.63 s of
    CPU against 0.15 s) and needed the `sim` extra for it."""
    from tests.test_cli_imports import _RUN

    args = ["sim", "storm", "leaf1", "Ethernet0", "--priority", "3", "--out", "/nonexistent-losslessd-sim"]
    proc = subprocess.run([sys.executable, "-c", _RUN, json.dumps(args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 2 and "no simulator is serving --out" in proc.stderr
    unwanted = ("losslessd.sim", "asyncssh", "pysnmp", "snmpsim", "netmiko", "losslessd.parse", "yaml")
    assert [m for m in report["modules"] if any(m == u or m.startswith(u + ".") for u in unwanted)] == []


_SWAP_AT_CHMOD: dict[str, Path] = {}  # control.sock -> the file a symlink put in its place points at
_HOOKED: list[bool] = []


def _swap_the_socket_at_chmod(event: str, args: tuple) -> None:
    """Another user of a shared --out, at the worst moment: the bound socket replaced by a symlink just before a chmod
    of its name (an audit hook: the race made certain, with the real socket and the real chmod)."""
    if event == "os.chmod" and (victim := _SWAP_AT_CHMOD.pop(str(args[0]), None)) is not None:
        os.unlink(args[0])
        os.symlink(victim, args[0])


def test_the_control_socket_never_chmods_or_removes_what_another_process_put_at_its_name(tmp_path):
    """The socket is 0600 as bind makes it: a chmod after bind followed a symlink another user of a world-writable
    --out swapped in (the user's own file made 0600), and a failed bind or a stop removed whatever was at the name."""
    victim = tmp_path / "victim"
    victim.write_text("the user's\n")
    victim.chmod(0o644)
    out = tmp_path / "s"
    sim = Simulator(FABRIC, out, ssh=False, snmp=False, devices=["leaf1"]).start()
    try:
        path = out / SOCKET_NAME
        os.symlink(victim, path)  # there before the simulator binds: bind refuses it, and it stays
        with pytest.raises(OSError):
            ControlServer(sim, out).start()
        assert path.is_symlink()
        path.unlink()
        if not _HOOKED:  # (a hook stays for the process: added when this test runs, once, inert after it)
            sys.addaudithook(_swap_the_socket_at_chmod)
            _HOOKED.append(True)
        _SWAP_AT_CHMOD[str(path)] = victim
        server = ControlServer(sim, out)
        with contextlib.suppress(OSError):
            server.start()
        _SWAP_AT_CHMOD.clear()
        assert stat.S_IMODE(victim.stat().st_mode) == 0o644
        if not path.is_symlink():  # (serving: its own socket, 0600, replaced by a file it leaves at stop)
            assert stat.S_IMODE(path.lstat().st_mode) == 0o600
            path.unlink()
            path.write_text("another's\n")
        server.stop()
        assert path.read_text() == "another's\n"
    finally:
        sim.stop()


def test_a_client_trickling_its_line_is_dropped_within_the_timeout(tmp_path):
    """The channel answers one request at a time, each line within TIMEOUT_S in all: a client sending a byte every
    half second (each recv within its timeout) held it, and the simulator's stop, for as long as it kept on."""
    from losslessd.simcontrol import TIMEOUT_S

    with _controlled(tmp_path) as sim, socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sim.workdir / SOCKET_NAME))
        start = time.monotonic()
        with pytest.raises(OSError):  # (the server closed it: EPIPE or ECONNRESET)
            while time.monotonic() - start < 6 * TIMEOUT_S:  # (a bound for a broken server only; it drops at TIMEOUT_S)
                s.sendall(b" ")
                time.sleep(0.5)
        assert request(sim.workdir, {"fault": "reset", "device": "leaf1"}) == "reset leaf1"


def test_a_reply_is_printed_with_its_control_characters_written_out(tmp_path):
    """Whatever listens on control.sock in an --out another user can write writes the reply the fault command prints:
    an escape sequence in it (OSC 0 retitling the terminal) was sent to the terminal raw."""
    import threading

    out = tmp_path / "s"
    out.mkdir()
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(out / SOCKET_NAME))
        listener.listen(1)

        def answer() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.makefile("rb").readline()
                conn.sendall(json.dumps({"ok": "\x1b]0;owned\x07storm on"}).encode() + b"\n")

        thread = threading.Thread(target=answer)
        thread.start()
        res = losslessd("sim", "storm", "leaf1", "Ethernet0", "--out", out)
        thread.join()
    assert (res.returncode, res.stdout) == (0, "\\x1b]0;owned\\x07storm on\n")


@pytest.mark.slow  # (runs `python -m losslessd` as its own process)
def test_a_bug_in_the_control_server_exits_3_not_as_bad_input(tmp_path, monkeypatch):
    """A request the server failed on by a bug closed the connection without a reply, and the client said "answered
    no reply it knows", exit 2 (input): a bug must never read as the operator's mistake. The bug is injected into the
    server's request handling (the fault under test), the client and CLI are the real ones."""
    with _controlled(tmp_path) as sim:
        monkeypatch.setattr(ControlServer, "_do", lambda self, request: 1 / 0)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            request(sim.workdir, {"fault": "reset", "device": "leaf1"})
        res = program("sim", "reset", "leaf1", "--out", sim.workdir)  # (its own process: the exit code it gives)
        assert res.returncode == 3 and "ZeroDivisionError" in res.stderr, (res.returncode, res.stderr)
        monkeypatch.undo()
        assert request(sim.workdir, {"fault": "reset", "device": "leaf1"}) == "reset leaf1"  # (the channel serves on)
