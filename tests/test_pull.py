"""`losslessd pull`: retries and backoff, snapshot writing, manifest -> SYS findings, and pulls over real
SSH (and SNMP) from the device simulator, with devices that are down, refuse the login or present an
unknown host key."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import capture, inventory, limits
from losslessd.api import lint
from losslessd.collect import MANIFEST
from losslessd.collect import pull as collect
from losslessd.collect.ssh import commands, host_known_hosts, prompt_line, refusal
from losslessd.errors import InputError
from losslessd.platforms import Command
from tests.clirun import program_on_a_terminal
from tests.conftest import tmpfs
from tests.peers import FABRIC

ENV = {"PULL_TEST_PW": "not-used-by-anything"}


# -- backoff, commands, refusals (pure) -------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(retry=st.integers(1, 40), base=st.floats(0.01, 10), cap=st.floats(0.01, 100), r=st.floats(0, 1))
def test_backoff_is_exponential_capped_and_jittered(retry, base, cap, r):
    full = min(cap, base * 2 ** (retry - 1))
    delay = collect.backoff(retry, base, cap, rand=lambda: r)
    assert full / 2 <= delay <= full + 1e-9
    assert collect.backoff(retry, base, cap, rand=lambda: 0) == pytest.approx(full / 2)
    assert collect.backoff(retry + 1, base, cap, rand=lambda: 0) >= collect.backoff(retry, base, cap, rand=lambda: 0)


def _inventory(tmp_path, hosts: dict, env=ENV) -> inventory.Inventory:
    path = tmp_path / "inv.yaml"
    path.write_text(yaml.safe_dump({"defaults": {"username": "admin",
                                                  "data": {"credentials": {"password_env": "PULL_TEST_PW"}}},
                                    "hosts": hosts}))
    return inventory.load(path, env=env)


def test_host_commands_are_repeated_per_interface_and_rdma_device(tmp_path):
    inv = _inventory(tmp_path, {
        "gpu": {"platform": "linux_mlx5", "data": {"interfaces": ["ens1", "ens2"], "rdma_devices": ["mlx5_0"]}},
        "gpu2": {"platform": "linux_mlx5", "data": {"interfaces": ["ens1"]}},
        "leaf": {"platform": "sonic"}})
    lines = [c.line for c in commands(inv.hosts["gpu"])]
    assert lines.count("mlnx_qos -i ens1") == lines.count("mlnx_qos -i ens2") == 1
    assert "grep . /sys/class/net/ens2/ecn/roce_rp/enable/*" in lines
    assert "cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos" in lines
    assert "cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class" in lines and lines[-1] == "cat /etc/nccl.conf"
    assert sum("lldpcli" in line for line in lines) == 1  # once per host, not per interface
    # no RDMA device listed: every device's value, each prefixed with its path, which the parser reads
    tos = next(c.line for c in commands(inv.hosts["gpu2"]) if "rdma_cm" in c.line)
    assert tos == "grep . /sys/kernel/config/rdma_cm/*/ports/1/default_roce_tos"
    sections = [(s.command, s.output) for s in capture.read((FABRIC / "gpu01.capture").read_text()).sections
                if "rdma_cm" not in s.command]
    out = "".join(f"/sys/kernel/config/rdma_cm/mlx5_{i}/ports/1/default_roce_tos:106\n" for i in (0, 1))
    (tmp_path / "gpu2.capture").write_text(_capture("gpu2", "linux_mlx5", [*sections, (tos, out)]))
    host = lint([tmp_path / "gpu2.capture"]).fabric.devices["gpu2"]
    assert host.roce_tos == 106 and not host.issues
    assert [c.line for c in commands(inv.hosts["leaf"])] == ["show runningconfiguration all"]


def test_refused_and_garbled_outputs(tmp_path):
    inv = _inventory(tmp_path, {"eos": {"platform": "arista_eos"}, "leaf": {"platform": "sonic"},
                                "gpu": {"platform": "linux_mlx5", "data": {"interfaces": ["ens1"]}}})
    eos, leaf, gpu = inv.hosts["eos"], inv.hosts["leaf"], inv.hosts["gpu"]
    run = Command("show running-config")
    assert refusal(eos, run, "hostname spine1\n!\nend\n") is None
    assert "% Invalid input" in refusal(eos, run, "        ^\n% Invalid input at '^' marker.")
    assert "control character '\\x1b'" in refusal(eos, run, "hostname spine1\ninterface Eth\x1b[?25")
    # the same escape in its 8-bit form (C1 CSI, U+009B: a terminal acts on it as on ESC [), and NEL (U+0085, a line
    # end to str.splitlines): no switch writes them either
    assert "control character '\\x9b'" in refusal(eos, run, "hostname spine1\ninterface Eth\x9b?25l")
    assert "control character '\\x85'" in refusal(eos, run, "hostname spine1\ninterface Eth\x85shutdown")
    assert refusal(eos, run, "") == "no output"
    assert refusal(eos, Command("show lldp neighbors", optional=True), "") is None
    json_cmd = Command("show runningconfiguration all", json=True)
    assert refusal(leaf, json_cmd, '{"PORT": {}}') is None
    assert refusal(leaf, json_cmd, '{"PORT": {"Ethernet0": {"description": "No such file or directory"}}}') is None
    assert refusal(leaf, json_cmd, '{"PORT": {"Ethernet0"').startswith("output is not JSON")
    # A byte that was not UTF-8 inside a JSON string still parses: it was read clean, the description garbled.
    garbled = '{"PORT":\n {"Ethernet0": {"mtu": "91\ufffd00"}}}'
    assert "bytes that are not UTF-8 at line 2" in refusal(leaf, json_cmd, garbled)
    # The one JSON reader (docpos.json_value) says what is wrong, as lint does: too deep, a too-long integer.
    assert "nested deeper than" in refusal(leaf, json_cmd, "[" * 100_000)
    assert "an integer of 5000 digits" in refusal(leaf, json_cmd, '{"PORT": ' + "9" * 5000 + "}")
    assert "command not found" in refusal(gpu, Command("mlnx_qos -i ens1"), "-bash: mlnx_qos: command not found")
    # The session's prompt inside an output: netmiko stops at the first one it sees, so the output is cut there or
    # holds the next command's; a running-config with `spine1#` in an interface block read clean (the lines after
    # it taken for a pasted session's output), exit 0.
    eos_prompt, bash_prompt = prompt_line("spine1"), prompt_line("root@gpu:~")
    config = "hostname spine1\ninterface Ethernet1/1\n   description spine1#x\n   mtu 9100\n!\nend\n"
    assert refusal(eos, run, config, eos_prompt) is None
    for inside, line in (("spine1#", 3), ("spine1(config-if-Et1/1)#show run", 3), ("  spine1>", 3)):
        lines = config.split("\n")
        why = refusal(eos, run, "\n".join(lines[:2] + [inside] + lines[2:]), eos_prompt)
        assert why.startswith(f"the session's prompt {inside.split('show')[0].strip()!r} is inside the output at line "
                              f"{line}"), why
    assert "prompt 'root@gpu:~#' is inside the output at line 2" in refusal(
        gpu, Command("mlnx_qos -i ens1"), "DCBX mode: OS controlled\nroot@gpu:~# cat /etc/shadow\n", bash_prompt)


# -- failures against real sockets, no simulator ----------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _SilentServer:
    """Accepts TCP connections and never says a word (a hung sshd)."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                self.conns.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


def test_refused_connection_is_retried_then_reported(tmp_path):
    inv = _inventory(tmp_path, {"leaf1": {"hostname": "127.0.0.1", "port": _free_port(), "platform": "sonic"}})
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inv, out, collect.Options(known_hosts=None, retries=2, backoff_base_s=0.01, timeout_s=5))
    leaf = result.devices["leaf1"]
    assert (leaf.status, leaf.code, leaf.attempts) == ("failed", "SYS010", 3)
    assert "Connection refused" in leaf.message and "after 3 attempts" in leaf.message
    assert not (out / "leaf1.capture").exists()
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["devices"]["leaf1"]["status"] == "failed" and manifest["finished"]


def test_silent_device_times_out_once(tmp_path):
    server = _SilentServer()
    try:
        inv = _inventory(tmp_path, {"leaf1": {"hostname": "127.0.0.1", "port": server.port, "platform": "sonic"}})
        out = tmp_path / "snap"
        collect.prepare(out)
        result = collect.pull(inv, out, collect.Options(known_hosts=None, retries=2, timeout_s=1))
    finally:
        server.close()
    leaf = result.devices["leaf1"]
    assert (leaf.code, leaf.attempts) == ("SYS013", 1) and "did not finish within 1 s" in leaf.message


def test_a_session_failure_at_its_deadline_is_the_timeout(tmp_path):
    """netmiko's connect/banner/auth timeouts are --timeout long, started after the session's timer: a silent
    device's paramiko error ("No existing session") could beat the timer's abort by a thread switch and read as a
    failed session (SYS010, retried: the test above once saw 2 attempts) instead of the timeout (SYS013)."""
    import paramiko

    from losslessd.collect.ssh import Session

    inv = _inventory(tmp_path, {"leaf1": {"hostname": "127.0.0.1", "port": _free_port(), "platform": "sonic"}})
    session = Session(inv.hosts["leaf1"], known_hosts=None, timeout=1)
    exc = paramiko.SSHException("No existing session")
    late, early = session._classify(exc, time.monotonic() - 0.001), session._classify(exc, time.monotonic() + 60)
    assert (late.code, late.retry) == ("SYS013", False) and "did not finish within 1 s" in late.message
    assert (early.code, early.retry) == ("SYS010", True)


def test_out_must_be_new_or_empty(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "leaf1.capture").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        collect.prepare(tmp_path / "old")
    collect.prepare(tmp_path / "new" / "deeper")
    assert (tmp_path / "new" / "deeper").is_dir()


# -- reading snapshots back ------------------------------------------------------------------------
def _capture(device: str, platform: str, sections: list[tuple[str, str]]) -> str:
    return capture.write({"device": device, "platform": platform, "collected": "2026-05-01T12:00:00Z"}, sections)


def test_manifest_failures_become_sys_findings(tmp_path):
    snap = tmp_path / "snap"
    (snap / "counters").mkdir(parents=True)
    (snap / "counters" / "leaf1.json").write_text('{"device": "leaf1"}')
    config = (FABRIC / "leaf1" / "config_db.json").read_text()
    text = _capture("leaf1", "sonic", [("show runningconfiguration all", config)])
    (snap / "leaf1.capture").write_text(text)
    spine = _capture("spine1", "arista_eos", [("show running-config", (FABRIC / "spine1.cfg").read_text()),
                                             ("show lldp neighbors", "% Invalid input")])
    (snap / "spine1.capture").write_text(spine)
    lldp_line = spine.splitlines().index("#% command: show lldp neighbors") + 1
    failed = {"status": "failed", "platform": "sonic"}
    (snap / MANIFEST).write_text(json.dumps({"format": "losslessd-snapshot", "version": 1, "devices": {
        "leaf1": {"status": "ok", "platform": "sonic", "capture": "leaf1.capture",
                  "issues": [{"code": "SYS015", "command": "snmp", "message": "counters polled with SNMPv2c"}]},
        "spine1": {"status": "ok", "platform": "arista_eos", "capture": "spine1.capture",
                   "issues": [{"code": "SYS014", "command": "show lldp neighbors", "line": lldp_line,
                               "message": "`show lldp neighbors` failed"}]},
        "leaf2": {**failed, "code": "SYS010", "message": "cannot connect to 10.0.0.2:22: Connection refused"},
        "leaf3": {**failed, "code": "SYS011", "message": "refused the login"},
        "leaf4": {**failed, "code": "SYS012", "message": "host key not in known_hosts"},
        "leaf5": {**failed, "code": "SYS013", "message": "did not finish within 60 s"},
        "leaf6": {"status": "pending", "platform": "sonic"},
    }}))
    result = lint([snap])
    assert set(result.fabric.devices) == {"leaf1", "spine1"}  # manifest.json and counters/ are no devices
    sys_findings = {(f.code, f.device): f for f in result.findings if f.code.startswith("SYS01")}
    assert set(sys_findings) == {("SYS015", "leaf1"), ("SYS014", "spine1"), ("SYS010", "leaf2"), ("SYS011", "leaf3"),
                                 ("SYS012", "leaf4"), ("SYS013", "leaf5"), ("SYS013", "leaf6")}
    assert sys_findings[("SYS015", "leaf1")].severity.value == "warning"
    refused = sys_findings[("SYS014", "spine1")]
    assert refused.source.file.endswith("spine1.capture") and refused.source.line == lldp_line
    unreachable = sys_findings[("SYS010", "leaf2")]
    assert unreachable.source.file.endswith(MANIFEST) and unreachable.source.pointer == "/devices/leaf2"
    assert "interrupted" in sys_findings[("SYS013", "leaf6")].message
    assert any(f.code == "PFC002" and f.device == "leaf1" for f in result.findings)  # the capture is linted too

    (snap / MANIFEST).write_text('{"format": "something else"}')
    [bad] = [f for f in lint([snap]).findings if f.code == "SYS001"]
    assert bad.source.file.endswith(MANIFEST) and "not a losslessd snapshot manifest" in bad.message


@pytest.mark.parametrize("named", ["../../etc/passwd", "/etc/shadow", "sub/spine1.capture", "..", "", "a\x00b"])
def test_a_manifest_naming_a_capture_outside_the_snapshot_points_at_the_manifest(tmp_path, named):
    """Session 45 (round 26): a manifest whose `capture` names a file outside the snapshot (`../../etc/passwd`, an
    absolute path: a hand-edited or planted manifest) made its refused command's finding point at that file and line
    (`[/etc/shadow:3]`), a file no lint read. pull writes a file name of the snapshot folder (collect.capture_name);
    any other points the finding at the manifest's entry, quoting what it named. The snapshot's own capture is still
    linted."""
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "spine1.capture").write_text(_capture("spine1", "arista_eos", [
        ("show running-config", (FABRIC / "spine1.cfg").read_text())]))
    (snap / MANIFEST).write_text(json.dumps({"format": "losslessd-snapshot", "version": 1, "devices": {
        "spine1": {"status": "ok", "platform": "arista_eos", "capture": named,
                   "issues": [{"code": "SYS014", "command": "show lldp neighbors", "line": 3,
                               "message": "`show lldp neighbors` failed"}]}}}))
    result = lint([snap])
    [refused] = [f for f in result.findings if f.code == "SYS014"]
    assert refused.source.file == str(snap / MANIFEST) and refused.source.pointer == "/devices/spine1", refused.source
    assert refused.source.line is None and f"the manifest names its capture {named!r}" in refused.message
    assert set(result.fabric.devices) == {"spine1"}


def test_sonic_capture_keeps_json_pointers_and_capture_lines(tmp_path):
    config = FABRIC / "leaf1" / "config_db.json"
    text = _capture("leaf1", "sonic", [("show version", "SONiC.202311\n"),
                                       ("show runningconfiguration all", config.read_text())])
    path = tmp_path / "leaf1.capture"
    path.write_text(text)
    offset = text.splitlines().index("#% command: show runningconfiguration all") + 1
    direct, captured = lint([FABRIC / "leaf1"]).findings, lint([path]).findings
    assert [(f.code, f.port, f.message, f.source.pointer) for f in direct] == \
        [(f.code, f.port, f.message, f.source.pointer) for f in captured]
    for d, c in zip(direct, captured):
        if d.source.line is not None:
            assert c.source.line == d.source.line + offset and c.source.file == str(path)
            assert text.splitlines()[c.source.line - 1] == config.read_text().splitlines()[d.source.line - 1]


def test_capture_of_a_platform_without_parser_is_sys001(tmp_path, monkeypatch):
    """A collection-only platform's capture is kept and reported, not dropped; an unknown one is named."""
    from losslessd import platforms
    from losslessd.model import DeviceKind

    monkeypatch.setitem(platforms.PLATFORMS, "example_os",
                        platforms.Platform("example_os", DeviceKind.switch, None, "collection-only example"))
    (tmp_path / "ex1.capture").write_text(_capture("ex1", "example_os", [("show running-config", "!\n")]))
    (tmp_path / "jx1.capture").write_text(_capture("jx1", "junos", [("show configuration", "")]))
    (tmp_path / "nx1.capture").write_text(_capture("nx1", "cisco_nxos", [("show running-config ipqos all", "!\n")]))
    result = lint([tmp_path])
    messages = {f.source.file.rsplit("/", 1)[-1]: (f.source.line, f.message) for f in result.findings if f.code == "SYS001"}
    line, message = messages["ex1.capture"]
    assert line == 3 and message.startswith("no parser for platform example_os yet")
    assert "platform 'junos', which losslessd does not know" in messages["jx1.capture"][1]
    assert "nx1.capture" not in messages and result.fabric.devices["nx1"].platform == "cisco_nxos"


# -- over SSH against the simulator ----------------------------------------------------------------
SUBSET = ["leaf1", "leaf2", "spine1", "gpu01", "gpu02", "gpu03", "gpu05", "gpu06"]  # the whole example fabric
SOURCES = [FABRIC]


def _subset_inventory(sim, names: list[str], path: Path) -> Path:
    data = yaml.safe_load(sim.inventory_path.read_text())
    data["hosts"] = {n: h for n, h in data["hosts"].items() if n in names}
    path.write_text(yaml.safe_dump(data))
    return path


def _pull_cli(inv: Path, out: Path, env: dict, *args: str, known_hosts: Path | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "losslessd", "pull", "-i", str(inv), "-o", str(out), *args]
    if known_hosts is not None:
        cmd += ["--known-hosts", str(known_hosts)]
    return subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=180)


def _comparable(findings) -> Counter:
    """(code, device, port, message) with the file names and lines the message quotes taken out."""
    def norm(message: str) -> str:
        message = re.sub(r"\(link from [^)]*\)", "(link from <src>)", message)
        return re.sub(r"\S+\.(?:capture|cfg|json|yaml):\d+", "<src>", message)
    return Counter((f.code, f.device, f.port, norm(f.message)) for f in findings)


def test_pulled_fabric_lints_like_its_source_files(sim_fabric, tmp_path):
    """The whole example fabric (SONiC, two EOS, five hosts) over real SSH, counters over SNMPv2c: the
    snapshot gives the findings the source files give, plus the SNMPv2c warning for each switch."""
    inv = _subset_inventory(sim_fabric, SUBSET, tmp_path / "inv.yaml")
    out = tmp_path / "snap"
    res = _pull_cli(inv, out, sim_fabric.env, known_hosts=sim_fabric.known_hosts_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"pulled 8 of 8 devices into {out}" in res.stdout and res.stderr == ""  # no progress bar on a pipe
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["host_key_check"] is True and set(manifest["devices"]) == set(SUBSET)
    for name, rec in manifest["devices"].items():
        data = (out / rec["capture"]).read_bytes()
        assert rec["status"] == "ok" and rec["sha256"] == collect.sha256(data)
        header, sections = capture.read(data.decode())
        assert (header["device"], header["platform"]) == (name, sim_fabric.devices[name].platform)
        assert sections
    for switch in ("leaf1", "leaf2", "spine1"):
        counters = json.loads((out / "counters" / f"{switch}.json").read_text())
        assert manifest["devices"][switch]["counters"] == f"counters/{switch}.json"
        assert {p["port"] for p in counters["ports"]} == set(sim_fabric.devices[switch].ports)
        assert counters["version"] == "v2c" and counters["sys_uptime_ticks"] > 0
    assert not (out / "counters" / "gpu01.json").exists()

    shutil.copy(FABRIC / "topology.yaml", out)  # the cabling is not pulled, nor are the routing tables it names
    shutil.copytree(FABRIC / "routes", out / "routes")
    snapshot = lint([out])
    source = lint(SOURCES)  # finds examples/fabric/topology.yaml
    v2c = [f for f in snapshot.findings if f.code == "SYS015"]
    assert sorted(f.device for f in v2c) == ["leaf1", "leaf2", "spine1"]
    assert _comparable(f for f in snapshot.findings if f.code != "SYS015") == _comparable(source.findings)
    assert len(source.findings) > 20 and {f.code[:3] for f in source.findings} >= {"PFC", "LNK", "PTH", "BUF", "ECN"}
    assert any({"gpu01", "gpu05"} <= set(f.devices) for f in snapshot.findings if f.code == "PTH001")  # hosts' LLDP


def test_snmp_v3_authpriv_counters_and_a_progress_bar_on_a_terminal(make_sim, tmp_path):
    sim = make_sim(["leaf1"], snmp_v3=True)
    out = tmp_path / "snap"
    # stderr is a terminal: the progress bar is drawn there, stdout stays plain
    proc, terminal = program_on_a_terminal("pull", "-i", sim.inventory_path, "-o", out, "--known-hosts",
                                           sim.known_hosts_path, env=sim.env, timeout=120)
    assert proc.returncode == 0, proc.stdout
    assert b"\r[" in terminal and b"] 1/1 devices" in terminal and "1/1 devices" not in proc.stdout
    manifest = json.loads((out / MANIFEST).read_text())["devices"]["leaf1"]
    assert manifest["status"] == "ok" and "issues" not in manifest  # no SNMPv2c warning
    counters = json.loads((out / "counters" / "leaf1.json").read_text())
    assert counters["version"] == "v3" and len(counters["priorities"]) == 8 * len(sim.devices["leaf1"].ports)


def test_down_wrong_password_and_unknown_host_key_while_others_are_saved(make_sim, tmp_path):
    sim = make_sim(["leaf1", "spine1", "gpu01", "gpu05"], snmp=False)
    sim.set_down("gpu05")
    sim.set_password("spine1", "not-the-inventory-one")
    sim.replace_host_key("gpu01")
    out = tmp_path / "snap"
    res = _pull_cli(sim.inventory_path, out, sim.env, "--retries", "1", known_hosts=sim.known_hosts_path)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "pulled 1 of 4 devices" in res.stdout and "(3 failed)" in res.stdout
    assert re.search(r"^gpu05: SYS010 device-unreachable: cannot connect to 127\.0\.0\.1:\d+: Connection refused "
                     r"\(after 2 attempts\)$", res.stdout, re.MULTILINE)
    assert re.search(r"^spine1: SYS011 auth-failed: .*refused the login of user 'admin'", res.stdout, re.MULTILINE)
    assert re.search(r"^gpu01: SYS012 host-key-rejected: the host key of .* does not match", res.stdout, re.MULTILINE)
    devices = json.loads((out / MANIFEST).read_text())["devices"]
    assert {n: (d["status"], d.get("code"), d["attempts"]) for n, d in devices.items()} == {
        "leaf1": ("ok", None, 1), "gpu05": ("failed", "SYS010", 2),  # retried
        "spine1": ("failed", "SYS011", 1), "gpu01": ("failed", "SYS012", 1)}  # never retried
    assert sorted(p.name for p in out.iterdir()) == ["leaf1.capture", MANIFEST]  # no partial or temporary file

    result = lint([out])
    assert {(f.code, f.device) for f in result.findings if f.code.startswith("SYS01")} == {
        ("SYS010", "gpu05"), ("SYS011", "spine1"), ("SYS012", "gpu01")}
    assert any(f.device == "leaf1" and f.code == "PFC002" for f in result.findings)

    # An empty known_hosts: every reachable device is refused before the password is sent (serial mode).
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    res = _pull_cli(sim.inventory_path, tmp_path / "snap2", sim.env, "--serial", "--retries", "0", known_hosts=empty)
    assert res.returncode == 1 and re.search(r"^leaf1: SYS012 host-key-rejected: the host key of 127\.0\.0\.1:\d+ is "
                                             rf"not in {re.escape(str(empty))}", res.stdout, re.MULTILINE)
    assert "retry" not in res.stderr
    # --insecure-no-host-key-check: collected, with a loud warning.
    res = _pull_cli(sim.inventory_path, tmp_path / "snap3", sim.env, "--insecure-no-host-key-check", "--retries", "0")
    assert "SSH HOST KEYS ARE NOT CHECKED" in res.stderr
    assert json.loads((tmp_path / "snap3" / MANIFEST).read_text())["devices"]["gpu01"]["status"] == "ok"


def test_refused_and_garbled_outputs_are_kept_and_reported(make_sim, tmp_path):
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    sim.garble("leaf1", "show runningconfiguration all")  # a third of the JSON, then terminal junk
    sim.garble("spine1", "show running-config", "% Invalid input (privileged mode required)")
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path))
    assert {n: d.status for n, d in result.devices.items()} == {"leaf1": "ok", "spine1": "ok"}
    findings = lint([out]).findings
    refused = {f.device: f for f in findings if f.code == "SYS014"}
    assert set(refused) == {"leaf1", "spine1"}
    leaf_text = (out / "leaf1.capture").read_text().splitlines()
    assert leaf_text[refused["leaf1"].source.line - 1] == "#% command: show runningconfiguration all"
    assert "output is not JSON" in refused["leaf1"].message and "kept in the capture" in refused["leaf1"].message
    assert "% Invalid input (privileged mode required)" in (out / "spine1.capture").read_text()
    assert any(f.code == "SYS001" and f.source.file.endswith("leaf1.capture") for f in findings)  # and lint says why
    assert "answered '% Invalid input (privileged mode required)'" in refused["spine1"].message


def test_sys014_doc_example_is_what_lint_prints(make_sim, tmp_path):
    """SYS014's failing example in its rule doc is the message lint prints for a SONiC switch that answered an
    error line where JSON was due (the doc's example stopped after the JSON error, and the message goes on)."""
    from losslessd.rules.sys import CommandFailed
    sim = make_sim(["leaf1"], snmp=False)
    sim.garble("leaf1", "show runningconfiguration all",
               "Error: Unable to connect to the CONFIG_DB: redis is not running")
    out = tmp_path / "snap"
    collect.prepare(out)
    collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                 collect.Options(known_hosts=sim.known_hosts_path))
    [finding] = [f for f in lint([out]).findings if f.code == "SYS014"]
    doc = " ".join((CommandFailed.__doc__ or "").split("## Failing example")[1].split("## Passing")[0].split())
    assert doc == f"`SYS014 {finding.message}`."


def test_a_device_whose_output_never_ends_is_cut_at_the_session_budget(make_sim, tmp_path):
    """A command answered by lines without end (Simulator.flood): netmiko kept every byte until --timeout (959 MiB
    in the default 60 s for one device, 16 at once by default). The session is cut once it has received the file
    limit and 1 MiB (here 1 + 1 MiB), named as such; the other device is saved."""
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    sim.flood("leaf1", "show runningconfiguration all")
    out = tmp_path / "snap"
    collect.prepare(out)
    with limits.file_limit_mb(1):
        result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                              collect.Options(known_hosts=sim.known_hosts_path, retries=0))
    leaf = result.devices["leaf1"]
    assert (leaf.status, leaf.code) == ("failed", "SYS014"), leaf
    assert "sent more than 2 MiB in one session while `show runningconfiguration all` ran" in leaf.message
    assert result.devices["spine1"].status == "ok" and (out / "spine1.capture").exists()
    assert not (out / "leaf1.capture").exists()
    assert json.loads((out / MANIFEST).read_text())["devices"]["leaf1"]["code"] == "SYS014"


def test_a_login_secret_in_an_output_never_reaches_the_capture(make_sim, tmp_path, caplog):
    """A device that echoes the password (or a config holding it in clear, or the enable secret): it was written
    into the capture as it came. It is written as ******** now, with a warning naming the device and the command.
    The session log of the same output (--session-log, netmiko's no_log) holds it masked too."""
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    secrets = {name: sim.env[sim.devices[name].password_env] for name in ("leaf1", "spine1")}
    sim.garble("spine1", "show running-config", f"username admin secret 0 {secrets['spine1']}\n"
               f"banner motd {secrets['spine1']}{secrets['spine1']}\n")
    out, logs = tmp_path / "snap", tmp_path / "logs"
    collect.prepare(out)
    logs.mkdir()
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, session_log=logs))
    assert {n: d.status for n, d in result.devices.items()} == {"leaf1": "ok", "spine1": "ok"}
    text = (out / "spine1.capture").read_text()
    assert secrets["spine1"] not in text and "username admin secret 0 ********\nbanner motd ****************\n" in text
    log = (logs / "spine1.1.log").read_text()
    assert "username admin secret 0 ********" in log and secrets["spine1"] not in log
    assert not [r for r in caplog.records if secrets["spine1"] in r.getMessage()]
    (warning,) = [r.getMessage() for r in caplog.records if "login password" in r.getMessage()]
    assert warning.startswith("spine1: the output of `show running-config` held the login password or enable secret "
                              "3 time(s)")


def _hashed(line: str) -> str:
    """A known_hosts line with its host name hashed (`ssh-keygen -H`, HashKnownHosts yes)."""
    import paramiko

    name, rest = line.split(" ", 1)
    return f"{paramiko.HostKeys.hash_host(name)} {rest}"


def test_netmiko_loads_the_known_hosts_lines_of_its_host_only(tmp_path):
    """paramiko's loader checks each entry against every one before it (quadratic): a session loads only its
    host's lines, plain or hashed, as paramiko's lookup matches them (`[host]:port` off port 22)."""
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPuaK7cS9FSwMp3LZ1MFKddMyqL+lhFfn7OFF+sRgPTO"
    mine = [f"[10.0.0.1]:2222 {key}", _hashed(f"[10.0.0.1]:2222 {key}"), f"10.0.0.9,[10.0.0.1]:2222 {key}"]
    others = [f"10.0.0.1 {key}", f"[10.0.0.1]:22 {key}", f"[10.0.0.10]:2222 {key}", _hashed(f"10.0.0.1 {key}"),
              f"|1|bm90IGJhc2U2NA|x {key}", "# [10.0.0.1]:2222 a comment", f"[10.0.0.1]:2222 {key.split()[0]}"]
    path = tmp_path / "known_hosts"
    path.write_text("\n".join(others[:3] + mine[:1] + others[3:] + mine[1:]) + "\n")
    assert host_known_hosts(path, "10.0.0.1", 2222).read_text().splitlines() == mine
    assert host_known_hosts(path, "10.0.0.1", 22).read_text().splitlines() == [f"10.0.0.1 {key}", others[3]]
    assert host_known_hosts(path, "10.9.9.9", 22).read_text() == ""
    path.write_text(f"10.9.9.9 {key}\n")  # a changed file is read again
    assert host_known_hosts(path, "10.9.9.9", 22).read_text() == f"10.9.9.9 {key}\n"


def test_a_fleet_sized_known_hosts_with_hashed_entries(make_sim, tmp_path):
    """20,000 other hosts' lines, the simulator's own hashed: netmiko loaded the whole file at each connection,
    8,000 lines took 8 s a load here and both devices of a pull timed out at 60 s; each session now loads its own
    lines (found hashed, as paramiko finds them)."""
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPuaK7cS9FSwMp3LZ1MFKddMyqL+lhFfn7OFF+sRgPTO"
    known = tmp_path / "known_hosts"
    known.write_text("".join(f"[10.{i // 65536}.{i // 256 % 256}.{i % 256}]:22 {key}\n" for i in range(20_000))
                     + "".join(_hashed(line) + "\n" for line in sim.known_hosts_path.read_text().splitlines()))
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=known, retries=0))
    assert {n: (d.status, d.message) for n, d in result.devices.items()} == {"leaf1": ("ok", None),
                                                                              "spine1": ("ok", None)}


def test_bytes_that_are_not_utf8_are_named_and_split_characters_kept(make_sim, tmp_path):
    """netmiko decoded each chunk on its own, dropping what was not UTF-8: `mtu 91<0xff>00` was captured as
    `mtu 9100` (a plausible MTU from a garbled output, exit 0), and a character split across two chunks vanished.
    The byte is now U+FFFD in the capture and the command SYS014 naming its line; 150,000 two-byte characters
    (300 KB, many chunks) arrive whole."""
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    running = sim.devices["spine1"].outputs["show running-config"]
    sim.garble("spine1", "show running-config", running.replace("mtu 9100", "mtu 91\udcff00", 1))  # (the byte 0xff)
    wide = json.loads(sim.devices["leaf1"].outputs["show runningconfiguration all"])
    wide["PORT"]["Ethernet0"]["description"] = "\u00e9" * 150_000
    sim.garble("leaf1", "show runningconfiguration all", json.dumps(wide, ensure_ascii=False))
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0))
    (issue,) = result.devices["spine1"].issues
    line = running[:running.index("mtu 9100")].count("\n") + 1
    assert issue["code"] == "SYS014"
    assert f"bytes that are not UTF-8 at line {line} (written as U+FFFD)" in issue["message"]
    assert "mtu 91\ufffd00" in (out / "spine1.capture").read_text()
    assert not result.devices["leaf1"].issues
    assert (out / "leaf1.capture").read_text().count("\u00e9") == 150_000


def test_interrupted_pull_keeps_what_it_collected(make_sim, tmp_path):
    sim = make_sim(["leaf1"], snmp=False)
    silent = _SilentServer()
    data = yaml.safe_load(sim.inventory_path.read_text())
    data["hosts"]["hung"] = {**data["hosts"]["leaf1"], "port": silent.port}
    inv = tmp_path / "inv.yaml"
    inv.write_text(yaml.safe_dump(data))
    out = tmp_path / "snap"
    # The pull gets SIGINT as a terminal's Ctrl-C delivers it. The suite itself may run with SIGINT ignored
    # (a non-interactive shell ignores it for `make test &`, and exec keeps an ignored signal): give the
    # pull the disposition an operator's shell gives it.
    interruptible = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                     "runpy.run_module('losslessd', run_name='__main__')")
    proc = subprocess.Popen([sys.executable, "-c", interruptible, "pull", "-i", str(inv), "-o", str(out), "--known-hosts",
                             str(sim.known_hosts_path), "--timeout", "60"],
                            env={**os.environ, **sim.env, "PYTHONFAULTHANDLER": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "leaf1.capture").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (out / "leaf1.capture").exists()
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=120)  # a bound for a pull that never stops, not a measure
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack on stderr
            pytest.fail(f"the interrupted pull did not stop:\n{proc.communicate()[1][-6000:]}")
    finally:
        proc.kill()
        silent.close()
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr[-3000:]
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["devices"]["leaf1"]["status"] == "ok" and manifest["finished"]
    assert manifest["devices"]["hung"]["code"] == "SYS013" and "interrupted" in manifest["devices"]["hung"]["message"]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    assert {(f.code, f.device) for f in lint([out]).findings if f.code.startswith("SYS01")} == {("SYS013", "hung")}


@pytest.fixture
def small_disk(tmp_path):
    """A disk of 40 KiB that fills during a pull."""
    with tmpfs(tmp_path / "disk", "40k") as where:
        yield where


def test_a_snapshot_folder_that_fills_is_named_not_an_internal_error(sim_fabric, small_disk):
    """A capture that cannot be written (No space left on device) was SYS900 on each device and exit 3: the disk is
    no device's fault and no bug. The device fails naming the file (its config was collected, not saved), what was
    saved stays whole, and the pull exits 2; a snapshot whose manifest cannot be written contacts nothing."""
    inv = _subset_inventory(sim_fabric, SUBSET, small_disk.parent / "inv.yaml")
    out = small_disk / "snap"
    res = _pull_cli(inv, out, sim_fabric.env, "--serial", known_hosts=sim_fabric.known_hosts_path)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "internal error" not in res.stderr and "SYS900" not in res.stdout
    unsaved = re.findall(r"^(\w+): SYS013 collection-timeout: collected but not saved: (\S+): cannot write into the "
                         r"snapshot: No space left on device$", res.stdout, re.MULTILINE)
    assert unsaved and all(path == str(out / f"{name}.capture") for name, path in unsaved)
    counters = re.findall(r"^(\w+): SYS013 collection-timeout: SNMP counters not saved: (\S+): cannot write into the "
                          r"snapshot: No space left on device$", res.stdout, re.MULTILINE)
    assert all(path == str(out / "counters" / f"{name}.json") for name, path in counters)
    for _, path in unsaved + counters:
        assert f"losslessd: error: {path}: cannot write into the snapshot: No space left on device" in res.stderr
    # the manifest on the disk is its last save that fitted: said when it is not the last state
    stale = f"losslessd: error: {out / MANIFEST}: cannot write into the snapshot" in res.stderr
    manifest = json.loads((out / MANIFEST).read_text())
    for name, rec in manifest["devices"].items():
        if rec["status"] == "ok":
            assert rec["sha256"] == collect.sha256((out / rec["capture"]).read_bytes())
        elif rec["status"] == "failed":
            assert name in dict(unsaved) and rec["code"] == "SYS013" and not (out / f"{name}.capture").exists()
        else:
            assert stale and rec["status"] == "pending", rec
    # nothing left to write the manifest with: refused before any device is contacted
    shutil.rmtree(out)
    with open(small_disk / "fill", "wb") as f, contextlib.suppress(OSError):
        f.write(b"\0" * 64 * 1024)
    res = _pull_cli(inv, small_disk / "snap2", sim_fabric.env, known_hosts=sim_fabric.known_hosts_path)
    assert res.returncode == 2 and res.stdout == ""
    assert (f"losslessd: error: {small_disk / 'snap2' / MANIFEST}: cannot write into the snapshot: No space left on "
            "device; nothing was contacted") in res.stderr


def test_pull_collects_an_nxos_switchs_port_channels_and_lint_follows_their_members(make_sim, tmp_path):
    """NX-OS: `losslessd pull` runs `show interface port-channel` (every port-channel's block, its members line: Cisco
    Nexus 9000 Interfaces guide, "Configuring Port Channels") over SSH; the snapshot's device reads which members each
    port-channel has (Device.bundle_members_shown). Before, the pull never asked, and a route through a port-channel
    whose config names no member stayed unverified."""
    from tests.test_aggregates import SHOW_PO10

    fabric = tmp_path / "fabric"
    fabric.mkdir()
    recorded = capture.read((Path("tests/fixtures/raw/cisco_nxos/roce-capture.txt")).read_text(encoding="utf-8"))
    blocks = SHOW_PO10.split("#% command: sh int po20\n")[0].split("\n", 1)[1]  # port-channel10's block
    blocks += SHOW_PO10.split("#% command: sh int po20\n")[1]
    sections = [(s.command, s.output) for s in recorded.sections] + [("show interface port-channel", blocks)]
    (fabric / "nx1.capture").write_text(capture.write(
        {"device": "nx1", "platform": "cisco_nxos", "collected": "2026-11-29T10:00:05Z"}, sections))
    sim = make_sim(snmp=False, fabric=fabric)
    out = tmp_path / "snap"
    res = _pull_cli(sim.inventory_path, out, sim.env, known_hosts=sim.known_hosts_path)
    assert res.returncode == 0, res.stdout + res.stderr
    _, pulled = capture.read((out / "nx1.capture").read_text())
    assert "show interface port-channel" in [s.command for s in pulled]
    device = lint([out]).fabric.devices["nx1"]
    assert device.bundle_members_shown == {"port-channel10": ["Ethernet1/51", "Ethernet1/52"], "port-channel20": []}


def test_pull_reads_a_host_without_mlnx_qos_by_dcb(make_sim, tmp_path):
    """A host whose NIC is no ConnectX (Intel ice, Broadcom bnxt_en) has no mlnx_qos: `pull` ran `mlnx_qos -i IF`,
    got `command not found` (SYS014, the device failed) and asked nothing else, so its PFC, ETS and DSCP map were
    never read. Now the refusal is kept and iproute2's `dcb pfc|ets|app|buffer show dev IF` are run in its place, over
    a real SSH session (the simulator serves the dcb outputs and refuses mlnx_qos as bash does); lint reads them."""
    from tests.test_parse_dcb_show import dcb_host_sections

    iface = "enp65s0f0np0"
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    (fabric / "gpu01.capture").write_text(_capture("gpu01", "linux_mlx5", dcb_host_sections(iface)))
    sim = make_sim(snmp=False, fabric=fabric)
    out = tmp_path / "snap"
    res = _pull_cli(sim.inventory_path, out, sim.env, known_hosts=sim.known_hosts_path)
    assert res.returncode == 0, res.stdout + res.stderr
    _, pulled = capture.read((out / "gpu01.capture").read_text())
    commands = [s.command for s in pulled]
    at = commands.index(f"mlnx_qos -i {iface}")
    assert commands[at:at + 5] == [f"mlnx_qos -i {iface}", *(f"dcb {o} show dev {iface}" for o in
                                                              ("pfc", "ets", "-N app", "buffer"))]
    assert "command not found" in pulled[at].output
    assert json.loads((out / MANIFEST).read_text())["devices"]["gpu01"]["status"] == "ok"
    host = lint([out]).fabric.devices["gpu01"]
    port = host.ports[iface]
    assert port.pfc_enabled == [3] and port.trust.value == "dscp" and port.dscp_to_priority[26] == 3
    assert port.priority_to_tc[3] == 3 and port.priority_groups[1].size_bytes == 256 * 1024
    assert not [i for i in host.issues if i.code == "SYS002"], host.issues


def test_a_refused_mlnx_qos_without_dcb_sections_says_what_to_capture(tmp_path):
    """A capture whose `mlnx_qos -i IF` answered `command not found` and holds no dcb section: one finding naming the
    answer and the dcb commands to capture (before: "output not understood"); read with dcb sections, no finding."""
    from tests.test_parse_dcb_show import dcb_host_sections

    iface = "enp65s0f0np0"
    sections = [(c, "-bash: mlnx_qos: command not found\n" if c.startswith("mlnx_qos") else o)
                for c, o in dcb_host_sections(iface) if not c.startswith("dcb ")]
    sections.insert(0, (f"mlnx_qos -i {iface}", "-bash: mlnx_qos: command not found\n"))
    (tmp_path / "gpu01.capture").write_text(_capture("gpu01", "linux_mlx5", sections))
    host = lint([tmp_path / "gpu01.capture"]).fabric.devices["gpu01"]
    said = [i.message for i in host.issues if i.code == "SYS002"]
    assert said == [f"`mlnx_qos -i {iface}` answered '-bash: mlnx_qos: command not found': trust, PFC, "
                    "DSCP/priority/TC maps, receive buffers and schedulers unknown; on a host without mlnx_qos capture "
                    f"`dcb pfc show dev {iface}`, `dcb ets show dev {iface}` and `dcb -N app show dev {iface}` "
                    "(pull and examples/collect-host-capture.sh do)"], said


def test_pull_reads_a_simulated_hosts_nic_driver(make_sim, tmp_path):
    """The simulator's Linux hosts answer `ethtool -i IF` as ethtool prints it (driver, version, firmware-version,
    bus-info ...; before: `command not found`), so `pull` over the real SSH peer exercises the driver path: the
    snapshot's ports name their driver (Port.nic_driver)."""
    sim = make_sim(["gpu01"], snmp=False)
    out = tmp_path / "snap"
    res = _pull_cli(sim.inventory_path, out, sim.env, known_hosts=sim.known_hosts_path)
    assert res.returncode == 0, res.stdout + res.stderr
    _, pulled = capture.read((out / "gpu01.capture").read_text())
    answers = {s.command: s.output for s in pulled if s.command.startswith("ethtool -i ")}
    assert answers, [s.command for s in pulled]
    for output in answers.values():
        lines = output.splitlines()
        assert lines[0] == "driver: mlx5_core" and [line.split(":")[0] for line in lines] == [
            "driver", "version", "firmware-version", "expansion-rom-version", "bus-info", "supports-statistics",
            "supports-test", "supports-eeprom-access", "supports-register-dump", "supports-priv-flags"]
    host = lint([out]).fabric.devices["gpu01"]
    assert {host.ports[c.split()[-1]].nic_driver for c in answers} == {"mlx5_core"}


def test_pull_of_an_upstream_mlx5_host_is_not_refused_for_the_ecn_files_its_driver_lacks(make_sim, tmp_path):
    """A host on the kernel's own mlx5_core answers grep's "No such file or directory" for MLNX_OFED's sysfs ecn/
    files (Linux drivers/infiniband/hw/mlx5/cong.c: its DCQCN parameters are in debugfs). pull took that answer as a
    refusal: three SYS014 "the CLI did not behave" per port, exit 1 on a healthy host. The reads are optional now; the
    answer stays in the capture, and lint, knowing the driver from `ethtool -i`, says where DCQCN is set instead."""
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    shutil.copy(Path(__file__).parent / "realworld" / "linux_mlx5" / "dcb-mlx5-upstream-host.txt",
                fabric / "gpu21.capture")
    sim = make_sim(["gpu21"], snmp=False, fabric=fabric)
    out = tmp_path / "snap"
    res = _pull_cli(sim.inventory_path, out, sim.env, known_hosts=sim.known_hosts_path)
    assert res.returncode == 0, res.stdout + res.stderr
    _, pulled = capture.read((out / "gpu21.capture").read_text())
    ecn = [s.output for s in pulled if "/ecn/roce_" in s.command and s.command.startswith("grep . ")]
    assert len(ecn) == 3 and all("No such file or directory" in o for o in ecn), ecn
    findings = lint([out]).findings
    assert not [f.message for f in findings if f.code in ("SYS014", "SYS002")], [f.message for f in findings]
    assert [f.code for f in findings if f.code == "NIC003"] == ["NIC003"]
