"""Verdicts that do not lie, through the real CLI: "nothing checked" never exits 0 (clean), a crash never 1
(findings), and the text/JSON/SARIF reports say how much was checked and whether the run was complete.

A device is checked when a selected rule checks devices of its kind and, for a switch or host, at least one of
its ports is RoCE-facing (lint.engine.Coverage). A run in which no device was checked exits 2 (as a run in which
no device could be read does); a device with nothing checked in a run that checked others is a SEL001 warning
(switches) or SYS002 warning (hosts: the capture holds no interface).
"""

from __future__ import annotations

import contextlib
import json

import pytest

from losslessd.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from tests.clirun import losslessd, program
from tests.conftest import tmpfs
from tests.hostile import FABRIC, ROOT

CAPTURE_HEAD = ("#% losslessd capture 1\n#% device: {name}\n#% platform: linux_mlx5\n"
                "#% collected: 2026-11-20T08:00:00Z\n")

# A device of each platform whose input parses but shows no port: nothing on it can be checked.
NO_PORT = {
    "sonic": ("sw1.json", '{"DEVICE_METADATA": {"localhost": {"hostname": "sw1", "hwsku": "ACS-MSN2700"}}}\n'),
    "arista_eos": ("sw1.cfg", "hostname sw1\n!\nend\n"),
    "cisco_nxos": ("sw1.cfg", "hostname sw1\nfeature lldp\n"),
    "juniper_junos": ("sw1.cfg", "set system host-name sw1\n"),
    "nvidia_cumulus": ("sw1.cfg", "nv set system hostname sw1\n"),
    "linux_mlx5": ("sw1.capture", CAPTURE_HEAD.format(name="sw1") + "#% command: cat /etc/nccl.conf\nNCCL_IB_TC=106\n"),
}


def _no_port(tmp_path, platform: str):
    name, text = NO_PORT[platform]
    path = tmp_path / platform / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("platform", sorted(NO_PORT))
def test_a_device_that_shows_no_port_is_nothing_checked_not_clean(tmp_path, platform):
    """Was exit 0 (SEL001 info) for every switch platform, and 1 for a host: "nothing checked" read as clean."""
    path = _no_port(tmp_path, platform)
    for fail_on in ("warning", "error"):  # the verdict does not hang on a finding's severity
        res = losslessd("lint", path, "--format", platform, "--fail-on", fail_on)
        assert res.returncode == EXIT_INPUT, (platform, res.stdout, res.stderr)
        assert "losslessd: error: nothing checked: 1 device read (sw1)" in res.stderr
        assert "1 device read, 0 checked against policy roce-dscp26" in res.stdout
        assert "Traceback" not in res.stderr
    report = json.loads(losslessd("lint", path, "--format", platform, "-f", "json").stdout)
    assert report["summary"]["devices"] == 1 and report["summary"]["devices_checked"] == 0
    assert report["summary"]["devices_unchecked"] == ["sw1"] and report["summary"]["ports_checked"] == 0
    sarif = json.loads(losslessd("lint", path, "--format", platform, "-f", "sarif").stdout)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "nothing checked" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    github = losslessd("lint", path, "--format", platform, "-f", "github").stdout
    assert "::error title=losslessd::nothing checked: 1 device read (sw1)" in github
    fix = losslessd("fix", path, "--format", platform)  # was "nothing to fix", exit 0
    assert fix.returncode == EXIT_INPUT and "nothing checked" in fix.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_one_device_with_nothing_checked_among_checked_ones_fails_the_run_as_a_finding(tmp_path, jobs):
    """A clean host plus a switch whose input shows no port: a SEL001 warning on the switch (it was an info, and
    the run exited 0), the summary counts what was checked; the same through worker processes."""
    folder = tmp_path / "fleet"
    folder.mkdir()
    (folder / "gpu01.capture").write_text((FABRIC / "gpu01.capture").read_text())
    (folder / "sw1.json").write_text(NO_PORT["sonic"][1])
    res = losslessd("lint", folder, "--jobs", jobs)
    assert res.returncode == EXIT_FINDINGS, res.stdout + res.stderr
    assert "warning SEL001 (device): the input shows no port of this switch" in res.stdout
    assert res.stdout.splitlines()[-1] == ("2 devices read, 1 checked against policy roce-dscp26 (1 RoCE-facing port): "
                                           "0 errors, 1 warning, 0 infos")
    assert res.stderr == ""
    report = json.loads(losslessd("lint", folder, "--jobs", jobs, "-f", "json").stdout)["summary"]
    assert (report["devices_checked"], report["devices_unchecked"], report["ports_checked"]) == (1, ["sw1"], 1)
    assert report["complete"] is True and report["internal_errors"] == []
    fix = losslessd("fix", folder)  # was "nothing to fix", exit 0, with sw1 never looked at
    assert fix.returncode == EXIT_FINDINGS
    assert fix.stdout == ("nothing to fix on the 1 device checked; not checked, so not known to need no fix: sw1 "
                          "(`losslessd lint` says why)\n")


def test_ports_selected_by_select_all_that_show_nothing_to_verify_are_nothing_checked(tmp_path):
    """Under `roce_ports.select: all` a buffers-only SONiC dump has its ports selected, and every check on them
    was an unverified info: "1 device checked", exit 0. Now SEL001 says nothing could be verified, and the run
    checked nothing (exit 2)."""
    policy = tmp_path / "all.yaml"
    policy.write_text("name: all-ports\nextends: roce-dscp26\nroce_ports:\n  select: all\n")
    dump = tmp_path / "buffers.json"
    dump.write_text(json.dumps({"BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"}},
                                "BUFFER_PROFILE": {"pg_lossless_100000_5m_profile": {
                                    "xon": "18432", "xoff": "100000", "size": "118432", "dynamic_th": "-3",
                                    "pool": "ingress_lossless_pool"}}}))
    res = losslessd("lint", dump, "--format", "sonic", "--policy", policy)
    assert res.returncode == EXIT_INPUT, res.stdout + res.stderr
    assert "warning SEL001 (device): the input shows neither the PFC state nor a QoS setting" in res.stdout
    assert res.stdout.splitlines()[-1].startswith("1 device read, 0 checked against policy all-ports:")
    assert "nothing checked: 1 device read (buffers)" in res.stderr
    # The coverage is the selection's, not SEL001's finding: a run that leaves SEL001 out checked nothing too (it
    # exited 0, "1 device checked").
    res = losslessd("lint", dump, "--format", "sonic", "--policy", policy, "--ignore", "SEL001")
    assert res.returncode == EXIT_INPUT, res.stdout + res.stderr
    assert "SEL001" not in res.stdout and "nothing checked: 1 device read (buffers)" in res.stderr


def test_fix_does_not_say_nothing_to_fix_about_a_file_it_could_not_read(tmp_path):
    (tmp_path / "gpu01.capture").write_text((FABRIC / "gpu01.capture").read_text())
    (tmp_path / "leaf9.cfg").write_text("this is no switch config\n")
    res = losslessd("fix", tmp_path)
    assert res.returncode == EXIT_FINDINGS and "1 input unread" in res.stdout and "nothing to fix:" not in res.stdout
    doc = json.loads(losslessd("fix", tmp_path, "-f", "json").stdout)
    assert doc["not_checked"] == {"devices": [], "inputs_unread": 1} and doc["devices"] == []


@pytest.mark.parametrize("selection", [("--select", "PFC", "--ignore", "PFC"), ("--ignore", "ALL"),
                                       ("--select", "PFC001,PFC002", "--ignore", "pfc-disabled-on-lossless,PFC002")])
def test_a_rule_selection_that_leaves_no_rule_is_a_usage_error(selection):
    """Was "8 devices checked ... 0 errors", exit 0: a run of no rule read as clean."""
    res = losslessd("lint", FABRIC, *selection)
    assert res.returncode == EXIT_INPUT and res.stdout == ""
    assert "leaves no rule to run" in res.stderr and selection[1] in res.stderr


@pytest.mark.parametrize("select,why", [("IBS", "check no device of these kinds (host, switch)"),
                                        ("SEL", "check no setting")])
def test_selected_rules_that_check_none_of_the_devices_read_are_nothing_checked(select, why):
    """InfiniBand subnet-manager rules on an Ethernet fabric, or only the selection rule: exit 0 on main."""
    res = losslessd("lint", FABRIC, "--select", select)
    assert res.returncode == EXIT_INPUT, res.stdout + res.stderr
    assert "nothing checked: 8 devices read" in res.stderr and why in res.stderr


def test_selected_rules_for_some_kinds_check_those_devices():
    """--select NIC checks the hosts only: the switches are not 'nothing checked' findings (the operator chose)."""
    res = losslessd("lint", FABRIC, "--select", "NIC", "--fail-on", "error")
    assert res.returncode in (EXIT_OK, EXIT_FINDINGS) and "nothing checked" not in res.stderr
    assert res.stdout.splitlines()[-1].startswith("8 devices read, 5 checked against policy roce-dscp26 "
                                                  "(5 RoCE-facing ports)")


def test_a_baseline_accepts_findings_never_a_run_with_nothing_checked(tmp_path):
    path = _no_port(tmp_path, "sonic")
    baseline = tmp_path / "baseline.json"
    baseline.write_text(losslessd("lint", path, "-f", "json").stdout)
    res = losslessd("lint", path, "--baseline", baseline)
    assert res.returncode == EXIT_INPUT and "nothing checked" in res.stderr
    assert "(1 suppressed by baseline)" in res.stdout  # the SEL001 it accepted
    # a baseline accepting every finding of a checked fabric: clean, and the summary says how much was checked
    baseline.write_text(losslessd("lint", FABRIC, "-f", "json").stdout)
    res = losslessd("lint", FABRIC, "--baseline", baseline)
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines()[-1].startswith("8 devices checked against policy roce-dscp26 "
                                                  "(17 RoCE-facing ports): 0 errors, 0 warnings, 0 infos")


@pytest.mark.parametrize("fault", ["rule", "parser"])
def test_drift_never_takes_a_device_the_lint_crashed_on_for_fixed(sim_fabric, monkeypatch, fault):
    """The daemon's drift run pulls the simulated fabric and lints it. A rule that fails on a bug on leaf1 (or the
    SONiC parser failing on leaf1's capture) left leaf1's findings of that rule out of the run, and drift raised
    finding_cleared for each: a crash read as "fixed". Now leaf1 is a device not read this run, its findings
    stand."""
    from losslessd.daemon.drift import Drift, pull_and_lint
    from losslessd.inventory import load
    from losslessd.policy import load_policy

    policy = load_policy("roce-dscp26")
    hosts = load(sim_fabric.inventory_path, sim_fabric.env)
    devices = list(hosts.hosts)

    def pulled():
        return pull_and_lint(hosts, policy, known_hosts=sim_fabric.known_hosts_path, concurrency=4, timeout_s=60)

    first = pulled()
    assert first.missing == {} and any(f.device == "leaf1" and f.code == "WDG001" for f in first.findings)
    drift = Drift()
    drift.compare(first.findings, devices, 1.0, first.missing)  # the baseline
    if fault == "rule":
        from losslessd.rules.wdg import PfcWatchdogDisabled as Rule

        checked = Rule.check_port

        def broken(self, ctx, device, port):
            if device.name == "leaf1":
                raise ValueError("planted bug on leaf1")
            return checked(self, ctx, device, port)

        monkeypatch.setattr(Rule, "check_port", broken)
    else:
        import losslessd.parse.sonic as sonic

        parse = sonic.parse

        def broken_parse(inputs, name):
            if name == "leaf1":
                raise KeyError("planted parser bug")
            return parse(inputs, name)

        monkeypatch.setattr(sonic, "parse", broken_parse)
    second = pulled()
    assert set(second.missing) == {"leaf1"} and "SYS900" in second.missing["leaf1"], second.missing
    assert "planted" in second.missing["leaf1"]
    events = drift.compare(second.findings, devices, 2.0, second.missing).events
    assert [e for e in events if e.kind == "finding_cleared" and e.device == "leaf1"] == []


def test_a_bug_met_on_one_device_never_stops_a_pull_and_exits_3(make_sim, tmp_path, monkeypatch):
    """A bug while saving leaf1's capture escaped asyncio.gather: the whole pull stopped (the devices still running
    recorded as interrupted) and ended as an internal error. Now leaf1 is failed with SYS900, spine1 is collected
    and saved, the pull exits 3 (never 1: a bug is not a device that failed), and lint of the snapshot exits 3."""
    from losslessd import capture

    sim = make_sim(["leaf1", "spine1"], snmp=False)
    write = capture.write

    def broken(header, sections):
        if header["device"] == "leaf1":
            raise TypeError("planted bug on leaf1")
        return write(header, sections)

    monkeypatch.setattr(capture, "write", broken)
    out = tmp_path / "snap"
    res = losslessd("pull", "-i", sim.inventory_path, "-o", out, "--known-hosts", sim.known_hosts_path,
                    "--retries", "0", env=sim.env)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "pulled 1 of 2 devices" in res.stdout and "leaf1: SYS900 internal-error: collecting leaf1 failed: " \
        "TypeError: planted bug on leaf1" in res.stdout
    assert "losslessd: internal error: collecting leaf1 failed: TypeError: planted bug on leaf1" in res.stderr
    devices = json.loads((out / "manifest.json").read_text())["devices"]
    assert (devices["spine1"]["status"], devices["leaf1"]["status"], devices["leaf1"]["code"]) == (
        "ok", "failed", "SYS900")
    assert (out / "spine1.capture").is_file()
    monkeypatch.setattr(capture, "write", write)
    lint = losslessd("lint", out)
    assert lint.returncode == 3 and "SYS900" in lint.stdout and "planted bug on leaf1" in lint.stderr


def test_render_of_a_device_with_no_roce_port_names_the_device_not_the_option_given(tmp_path):
    """render --device FILE of a switch with no RoCE-facing port said "give --device or --ports": the operator had
    given --device. Exit 2 either way; now the message names the file and the device and what to do."""
    path = _no_port(tmp_path, "sonic")
    res = losslessd("render", "--platform", "sonic", "--device", path)
    assert res.returncode == EXIT_INPUT and res.stdout == ""
    assert f"{path}: device sw1 has no RoCE-facing port under policy roce-dscp26" in res.stderr


@pytest.mark.slow  # starts a process (on main it served nothing until killed: the timeout ends it there)
def test_a_simulator_with_no_device_to_serve_refuses_to_start(tmp_path):
    (tmp_path / "fabric").mkdir()
    (tmp_path / "fabric" / "notes.cfg").write_text("not a device\n")
    res = program("sim", "--fabric", tmp_path / "fabric", "--out", tmp_path / "out", "--no-snmp", timeout=60)
    assert res.returncode == EXIT_INPUT and "Serving" not in res.stdout
    assert "no device the simulator can serve in this folder" in res.stderr and not (tmp_path / "out").exists()


def test_tune_report_reads_and_never_writes_a_database_that_is_not_a_tune(tmp_path):
    """`tune report --db` on another program's SQLite file (the daemon's history, say) created the tune tables in
    it and said "no tune in this database"; on an empty file it made it a tune database. It writes nothing now and
    says what the file is not."""
    import sqlite3

    from losslessd.history import History

    history = tmp_path / "history.db"
    History(history).close()
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (text)")
    con.commit()
    con.close()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for db, why in ((history, "another program's SQLite file"), (other, "another program's SQLite file"),
                    (empty, "empty")):
        before = db.read_bytes()
        res = losslessd("tune", "report", "--db", db)
        assert res.returncode == EXIT_INPUT and f"{db}: not a losslessd tune database ({why})" in res.stderr
        assert db.read_bytes() == before
    assert losslessd("events", "--db", history).returncode == EXIT_OK  # the history is still the daemon's


def test_policy_check_checks_every_file_it_is_given(tmp_path):
    """`policy check a b c` stopped at the first broken policy: c was never checked, and nothing said so."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nextends: nosuch\n")
    good = tmp_path / "good.yaml"
    good.write_text("name: all-ports\nextends: roce-dscp26\nroce_ports:\n  select: all\n")
    res = losslessd("policy", "check", "roce-dscp26", bad, good)
    assert res.returncode == EXIT_INPUT
    assert res.stdout.splitlines() == [
        "roce-dscp26: ok (policy roce-dscp26: RoCE DSCP 26 -> priority 3 lossless, CNP DSCP 48 -> priority 6 strict, "
        "ECN on)",
        f"{good}: ok (policy all-ports: RoCE DSCP 26 -> priority 3 lossless, CNP DSCP 48 -> priority 6 strict, ECN on)"]
    assert res.stderr.startswith(f"losslessd: error: {bad}: extends 'nosuch'") and len(res.stderr.splitlines()) == 1


def test_a_bug_working_out_one_devices_fix_costs_no_other_device_its_fix(monkeypatch):
    """fix: a bug while working out leaf1's fix escaped and no device's fix was printed (a traceback through the
    CLI's catch-all: exit 3 with nothing). Now leaf1 says so, the others' fixes are printed, and it exits 3."""
    import losslessd.fix as fix

    planned = fix.device_fix

    def broken(device, *args, **kwargs):
        if device.name == "leaf1":
            raise ZeroDivisionError("planted fix bug")
        return planned(device, *args, **kwargs)

    monkeypatch.setattr(fix, "device_fix", broken)
    res = losslessd("fix", FABRIC)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "leaf1  (sonic" in res.stdout and "no fix: working out the fix of leaf1 failed: ZeroDivisionError" \
        in res.stdout
    assert "spine1  (arista_eos" in res.stdout and "SAFE fix" in res.stdout  # the others' fixes are there
    assert "losslessd: internal error: working out the fix of leaf1 failed: ZeroDivisionError: planted fix bug" \
        in res.stderr
    doc = json.loads(losslessd("fix", FABRIC, "-f", "json").stdout)
    assert doc["complete"] is False and len(doc["devices"]) > 1


def test_ethernet_fabric_rules_do_not_count_as_checking_subnet_managers():
    """--select DLK (PFC deadlock over Ethernet cables) on two OpenSM nodes checked nothing and exited 0."""
    sms = [ROOT / "examples" / "infiniband" / name for name in ("sm01", "sm02")]
    res = losslessd("lint", *sms, "--policy", "infiniband", "--select", "DLK")
    assert res.returncode == EXIT_INPUT and "check no device of this kind (subnet_manager)" in res.stderr
    res = losslessd("lint", *sms, "--policy", "infiniband", "--select", "IBS003")
    assert res.returncode in (EXIT_OK, EXIT_FINDINGS) and "nothing checked" not in res.stderr


def test_a_pull_where_every_device_failed_says_nothing_was_pulled(tmp_path):
    """Exit 1 (devices failed) either way; it said "pulled 0 of 2 devices into OUT; check them with: losslessd
    lint OUT", a lint that can only exit 2 (nothing readable)."""
    import socket

    ports = []
    for _ in range(2):  # ports nothing listens on: the connection is refused at once
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    inv = tmp_path / "inv.yaml"
    inv.write_text("defaults:\n  username: admin\n  data:\n    credentials: {password_env: PULL_PW}\nhosts:\n"
                   + "".join(f"  leaf{i}: {{hostname: 127.0.0.1, port: {p}, platform: sonic}}\n"
                             for i, p in enumerate(ports)))
    res = losslessd("pull", "-i", inv, "-o", tmp_path / "out", "--insecure-no-host-key-check", "--retries", "0",
                    env={"PULL_PW": "pw"})
    assert res.returncode == EXIT_FINDINGS, res.stdout + res.stderr
    assert "pulled nothing: all 2 devices of the inventory failed" in res.stdout and "losslessd lint" not in res.stdout


def test_drift_knows_a_device_by_its_capture_whatever_its_config_calls_it(tmp_path):
    """A SONiC switch is named by its DEVICE_METADATA hostname, which need not be its inventory name: drift tells
    which inventory device the lint read by its capture file, so a switch the lint read is not 'not read'."""
    from losslessd import capture
    from losslessd.daemon.drift import not_linted
    from losslessd.sim import SONIC_RUNNING_CONFIG

    config = json.loads((FABRIC / "leaf1" / "config_db.json").read_text())
    config["DEVICE_METADATA"]["localhost"]["hostname"] = "sonic-leaf-09"
    text = capture.write({"device": "leaf9", "platform": "sonic", "collected": "2026-11-20T08:00:00Z"},
                         [(SONIC_RUNNING_CONFIG, json.dumps(config, indent=4))])
    (tmp_path / "leaf9.capture").write_text(text)
    (tmp_path / "leaf8.capture").write_text("not a capture\n")
    from losslessd.api import lint

    result = lint([tmp_path])
    assert "sonic-leaf-09" in result.fabric.devices  # the config's name, not the inventory's
    missing = not_linted(result, {"leaf9": "leaf9.capture", "leaf8": "leaf8.capture"})
    assert set(missing) == {"leaf8"} and missing["leaf8"].startswith("SYS001: ")


def test_a_collected_device_named_otherwise_by_its_config_is_read_not_unread(tmp_path):
    """A snapshot device whose config names it otherwise than the inventory does (a hostname), with a manifest issue
    at no line of its capture (the SNMPv2c warning): the issue names the device parsed from the capture, and the
    summary counts no unread input (it said "1 input unread", and `fix` then exited 1 with nothing to fix)."""
    import shutil

    from losslessd.collect import FORMAT, MANIFEST, SNMP_V2C, VERSION

    snap = tmp_path / "snap"
    snap.mkdir()
    shutil.copy(FABRIC / "spine1.cfg", snap / "core-sw-7.cfg")  # its config says `hostname spine1`
    (snap / MANIFEST).write_text(json.dumps({"format": FORMAT, "version": VERSION, "devices": {"core-sw-7": {
        "status": "ok", "platform": "arista_eos", "capture": "core-sw-7.cfg",
        "issues": [{"code": SNMP_V2C, "message": "counters polled over SNMPv2c: community in clear text"}]}}}))
    report = json.loads(losslessd("lint", snap, "-f", "json").stdout)
    issue = [f for f in report["findings"] if f["code"] == SNMP_V2C]
    assert [f["device"] for f in issue] == ["spine1"]
    assert report["summary"]["inputs_unread"] == 0
    assert "unread" not in losslessd("lint", snap).stdout.splitlines()[-1]


@pytest.mark.slow  # starts a process
def test_a_tune_database_on_a_full_disk_is_said_to_be_unwritable_not_foreign(tmp_path):
    """A new tune database on a full disk was "not a losslessd tune database: database or disk is full"."""
    from losslessd.errors import InputError
    from losslessd.tune.store import Store

    with tmpfs(tmp_path / "disk", "16k") as disk:
        (disk / ".tune.sqlite.lock").write_text("0" * 32)  # (its lock, taken first, keeps its page for its pid)
        with open(disk / "fill", "wb") as f, contextlib.suppress(OSError):
            f.write(b"\0" * 64 * 1024)
        with pytest.raises(InputError) as err:
            Store(disk / "tune.sqlite")
        assert str(err.value) == f"{disk / 'tune.sqlite'}: cannot write the tune database: database or disk is full"
