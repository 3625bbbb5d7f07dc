"""Transactional pushes against the device simulator over SSH: napalm's eos driver (configure session, diff,
commit timer, confirm, abort) and SONiC's checkpoint / apply-patch / rollback; refused commits roll back."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from losslessd.inventory import load
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.apply import EosPusher, NvuePusher, PushError, SonicPusher
from losslessd.tune.space import Candidate
from tests.peers import ssh_params

POLICY = load_policy("roce-dscp26")
NEW = Candidate(300_000, 3_000_000, 20.0)


def _setup(sim, name, ports, cls):
    host = load(sim.inventory_path, sim.env).hosts[name]
    cfg = candidate.load(name, host.platform.id, sim.running_config(name), POLICY, ports)
    pusher = cls(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    pusher.open()
    return cfg, pusher


def _push(cfg, pusher, cand):
    checked = candidate.check(cfg, POLICY, cand)
    return pusher.push(checked.snippet, candidate.ecn_check(cfg, POLICY, candidate.expected(cfg, POLICY, cand)))


def test_eos_push_through_napalm_with_commit_timer_and_restore(make_sim):
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        origin = pusher.origin(cfg.text, cfg.port_names, [3])
        pushed = _push(cfg, pusher, NEW)
        assert pushed.changed and "+      random-detect ecn minimum-threshold 300000 bytes" in pushed.diff
        running = sim.running_config("spine1")
        assert candidate.ecn_settings(cfg, POLICY, running) == {p: (300_000, 3_000_000, 20.0) for p in cfg.port_names}
        log = sim.devices["spine1"].config.log
        timer = next(i for i, c in enumerate(log) if " commit timer " in c)
        assert log[timer + 2].endswith(" commit")  # confirmed after the read-back (napalm confirm_commit)
        assert sim.devices["spine1"].config.sessions[log[timer].split()[2]].state == "completed"
        # Again with the same candidate: nothing to change, the session is aborted, no commit.
        commits = sim.devices["spine1"].config.commits
        assert not _push(cfg, pusher, NEW).changed
        assert sim.devices["spine1"].config.commits == commits
        # Back as found: the ports' own uc-tx-queue lines go, the service-profile's thresholds apply again.
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found))
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == found
    finally:
        pusher.close()


def test_eos_commit_on_a_timer_reverts_unless_confirmed(make_sim):
    sim = make_sim(["spine1"], snmp=False)
    before = sim.running_config("spine1")
    conn = ConnectHandler(**ssh_params(sim, "spine1"))
    try:
        conn.enable()
        conn.send_command("configure session t1", expect_string=r"\)#")
        conn.send_config_set(["interface Ethernet1/1", "uc-tx-queue 3",
                              "random-detect ecn minimum-threshold 9216 bytes maximum-threshold 9216 bytes "
                              "max-mark-probability 1 weight 0"], enter_config_mode=False)
        assert "+      random-detect ecn minimum-threshold 9216" in conn.send_command("show session-config named t1 diffs")
        conn.send_command("configure session t1 commit timer 00:00:01")
        assert "minimum-threshold 9216" in conn.send_command("show running-config")
        sessions = json.loads(conn.send_command("show configuration sessions detail | json"))["sessions"]
        assert sessions["t1"]["state"] == "pendingCommitTimer" and "commitBy" in sessions["t1"]
        for _ in range(200):  # counted polls until the switch reverts the unconfirmed commit
            if conn.send_command("show running-config") == before.rstrip("\n"):
                break
            time.sleep(0.05)
        assert sim.running_config("spine1") == before
        assert sim.devices["spine1"].config.rollbacks == 1
    finally:
        conn.disconnect()


def test_sonic_checkpoint_apply_patch_and_rollback(make_sim):
    sim = make_sim(["leaf1"], snmp=False)
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0", "Ethernet4"], SonicPusher)
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        origin = pusher.origin(cfg.text, cfg.port_names, [3])
        assert origin == {"checkpoint": "losslessd-tune-test-origin"}
        pushed = _push(cfg, pusher, NEW)
        ops = json.loads(pushed.diff)
        assert {"op": "add", "path": "/QUEUE/Ethernet0|3/wred_profile",
                "value": "[WRED_PROFILE|ROCE_LOSSLESS_300000_3000000]"} in ops
        db = json.loads(sim.running_config("leaf1"))
        assert db["WRED_PROFILE"]["ROCE_LOSSLESS_300000_3000000"]["green_max_threshold"] == "3000000"
        state = sim.devices["leaf1"].config
        assert "config apply-patch /tmp/losslessd-tune-test.json-patch" in state.log
        assert set(state.checkpoints) == {"losslessd-tune-test-origin"}  # the per-push checkpoint is gone
        assert state.files == {}  # the patch file too
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found))
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("leaf1")) == found
        pusher.forget(origin)
        assert state.checkpoints == {}
    finally:
        pusher.close()


@pytest.mark.parametrize("name, port, cls, said", [
    # napalm drops what EOS answered to the commit: the read-back shows the change is not there.
    ("spine1", "Ethernet1/1", EosPusher, "did not land"),
    ("leaf1", "Ethernet0", SonicPusher, "YANG validation failed"),
])
def test_a_refused_commit_is_rolled_back(make_sim, name, port, cls, said):
    sim = make_sim([name], snmp=False)
    cfg, pusher = _setup(sim, name, [port], cls)
    before = sim.running_config(name)
    sim.refuse_commits(name, "YANG validation failed for WRED_PROFILE")
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
        assert err.value.rolled_back and said in err.value.message
        assert sim.running_config(name) == before
        assert all(s.state != "pendingCommitTimer" for s in sim.devices[name].config.sessions.values())
    finally:
        pusher.close()


@pytest.mark.parametrize("answer", [
    None,  # the simulator's garbled answer: the first third of the JSON, cut mid-line as a dropped session leaves it
    "Error: Unable to connect to the CONFIG_DB: redis is not running\n",
])
def test_sonic_running_config_that_is_not_json_is_a_push_error(make_sim, answer):
    """The pusher re-reads `show runningconfiguration all` over SSH before patching: an answer that is not JSON is
    a PushError naming the device and the command, with nothing pushed (it was a JSONDecodeError traceback)."""
    sim = make_sim(["leaf1"], snmp=False)
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    before = sim.running_config("leaf1")
    sim.garble("leaf1", "show runningconfiguration all", answer)
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
        assert err.value.device == "leaf1" and not err.value.rolled_back
        assert "`show runningconfiguration all` did not answer JSON" in err.value.message
        assert "nothing pushed" in str(err.value) and str(err.value).startswith("leaf1: ")
        assert sim.running_config("leaf1") == before and sim.devices["leaf1"].config.checkpoints == {}
    finally:
        pusher.close()


def test_nvue_apply_revert_and_restore(make_sim, tmp_path):
    """A Cumulus switch (the rendered roce-dscp26 profile as `nv set` lines) served by the simulator: a candidate
    goes in as one NVUE revision, a refused apply changes nothing, and the settings as found come back."""
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    text = (Path(__file__).parent / "fixtures" / "render" / "nvidia_cumulus" / "roce-dscp26.cfg").read_text()
    (fabric / "leaf9.cfg").write_text(text + "nv set system hostname leaf9\n")
    sim = make_sim(snmp=False, fabric=fabric)
    [name] = sim.devices
    host = load(sim.inventory_path, sim.env).hosts[name]
    # `pull` reads NVUE's JSON tree; the tuner its `nv set` lines: both parse to the same ECN settings.
    assert json.loads(sim.devices[name].outputs["nv config show -o json"])[1]["set"]["qos"]["congestion-control"]
    pusher = NvuePusher(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    pusher.open()
    try:
        cfg = candidate.load(name, "nvidia_cumulus", pusher.running(), POLICY, ["swp1", "swp2"])
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        assert found["swp1"] == (153600, 1572864, 100.0)
        origin = pusher.origin(cfg.text, cfg.port_names, [3])
        pushed = _push(cfg, pusher, NEW)
        assert pushed.changed and "interface swp1 qos congestion-control profile ROCE_LOSSLESS_300000_3000000" in pushed.diff
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config(name))["swp1"] == (300_000, 3_000_000, 20.0)
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config(name))["swp2"] == (1_200_000, 12_000_000, 20.0)
        assert "nv config apply -y" in sim.devices[name].config.log
        sim.refuse_commits(name, "invalid config: buffer pool exhausted")
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, Candidate(200_000, 2_000_000, 10.0))
        assert "buffer pool exhausted" in err.value.message
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config(name))["swp1"] == (300_000, 3_000_000, 20.0)
        sim.refuse_commits(name, None)
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found))
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config(name)) == found
    finally:
        pusher.close()
