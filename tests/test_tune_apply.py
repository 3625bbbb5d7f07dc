"""Transactional pushes against the device simulator over SSH: napalm's eos driver (configure session, diff,
commit timer, confirm, abort) and SONiC's checkpoint / apply-patch / rollback; refused commits roll back."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from losslessd import limits
from losslessd.collect import MASK
from losslessd.errors import InputError
from losslessd.inventory import load
from losslessd.platforms import PLATFORMS
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.apply import EosPusher, NvuePusher, PushError, SonicPusher, pending_commits, unrendered
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


def _refused(cfg, pusher) -> str:
    """The PushError message of pushing NEW, the pusher closed after it."""
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    return err.value.message


def test_eos_push_through_napalm_with_commit_timer_and_restore(make_sim):
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
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
        # Back as found: the ports' own tx-queue lines go, the service-profile's thresholds apply again.
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found))
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == found
    finally:
        pusher.close()


def _session_t1(sim):
    """A login to spine1 (after `enable`) that has typed one ECN line into `configure session t1`, not committed."""
    conn = ConnectHandler(**ssh_params(sim, "spine1"))
    conn.enable()
    conn.send_command("configure session t1", expect_string=r"\)#")
    conn.send_config_set(["interface Ethernet1/1", "uc-tx-queue 3",
                          "random-detect ecn minimum-threshold 9216 bytes maximum-threshold 9216 bytes "
                          "max-mark-probability 1 weight 0"], enter_config_mode=False)
    return conn


def test_eos_commit_on_a_timer_reverts_unless_confirmed(make_sim):
    sim = make_sim(["spine1"], snmp=False)
    before = sim.running_config("spine1")
    conn = _session_t1(sim)
    try:
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
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
        assert origin == {"checkpoint": "losslessd-tune-test-origin"}
        pushed = _push(cfg, pusher, NEW)
        ops = json.loads(pushed.diff)
        # the simulated switch's CONFIG_DB names no release: the reference is a name alone (202111 and later refuse
        # `[TABLE|name]`: sonic-swss orch.cpp parseReference; fix.apply.release_refs)
        assert {"op": "add", "path": "/QUEUE/Ethernet0|3/wred_profile",
                "value": "ROCE_LOSSLESS_300000_3000000"} in ops
        db = json.loads(sim.running_config("leaf1"))
        assert db["WRED_PROFILE"]["ROCE_LOSSLESS_300000_3000000"]["green_max_threshold"] == "3000000"
        state = sim.devices["leaf1"].config
        assert [c for c in state.log if c.startswith("config apply-patch")] == [f"config apply-patch {state.made[0]}"]
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


def _running_read_refused(sim, name, cls, ports, fault):
    """``fault`` applied to the device's running-config command after the pusher logged in; a push then must stop
    at its read of the running config: InputError naming the device and the command, nothing pushed."""
    cfg, pusher = _setup(sim, name, ports, cls)
    before = sim.running_config(name)
    fault(PLATFORMS[sim.devices[name].platform].config_read.line)
    try:
        with pytest.raises(InputError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    state = sim.devices[name].config
    assert sim.running_config(name) == before and state.commits == 0 and state.checkpoints == {}
    return str(err.value)


@pytest.mark.parametrize("answer, said", [
    # the simulator's garbled answer: the first third of the JSON, cut mid-line as a dropped session leaves it
    (None, "output is not JSON"),
    ("Error: Unable to connect to the CONFIG_DB: redis is not running\n", "output is not JSON"),
    # a byte that is not UTF-8 inside a JSON string: it parses, and netmiko dropped the byte without a word
    (lambda text: text.replace('"mtu": "9100"', '"mtu": "91\udcff00"', 1), "bytes that are not UTF-8 at line"),
])
def test_sonic_running_config_that_cannot_be_trusted_stops_before_any_push(make_sim, answer, said):
    """The pusher re-reads `show runningconfiguration all` over SSH before patching: an answer that is not JSON,
    or JSON with a garbled byte, is an InputError naming the device and the command, with no checkpoint taken and
    nothing pushed (it was a JSONDecodeError traceback, then a PushError; a garbled byte went through)."""
    sim = make_sim(["leaf1"], snmp=False)
    recorded = sim.devices["leaf1"].outputs["show runningconfiguration all"]
    assert '"mtu": "9100"' in recorded
    message = _running_read_refused(sim, "leaf1", SonicPusher, ["Ethernet0"], lambda cmd: sim.garble(
        "leaf1", cmd, answer(recorded) if callable(answer) else answer))
    assert message.startswith("leaf1: `show runningconfiguration all`: ") and said in message
    assert "not used as the running config" in message


def test_eos_running_config_refused_garbled_or_holding_the_prompt_stops_before_any_push(make_sim):
    """napalm's get_config deletes "% Invalid input" from what it returns and netmiko drops bytes that are not
    UTF-8: a refused or garbled `show running-config` was the base of the push and of the settings put back. Read
    as a pull reads it now: each is an InputError naming the device and the command, and no commit is made."""
    sim = make_sim(["spine1"], snmp=False)
    running = sim.devices["spine1"].outputs["show running-config"]
    lines = running.splitlines()
    for answer, said in [
        ("% Invalid input (privileged mode required)", "the device answered '% Invalid input (privileged mode"),
        (running.replace("mtu 9100", "mtu 91\udcff00", 1), "bytes that are not UTF-8 at line"),
        ("\n".join(lines[:5] + ["spine1#show startup-config"] + lines[5:]), "the session's prompt 'spine1#' is "
                                                                             "inside the output at line 6"),
    ]:
        message = _running_read_refused(sim, "spine1", EosPusher, ["Ethernet1/1"],
                                        lambda cmd, answer=answer: sim.garble("spine1", cmd, answer))
        assert message.startswith("spine1: `show running-config`: ") and said in message, message
        sim.garble("spine1", "show running-config", on=False)


def test_a_running_config_without_end_is_cut_at_the_budget_and_stops_the_push(make_sim):
    """`show running-config` answered by lines without end (Simulator.flood): the pusher's connection had no byte
    budget, so netmiko kept every byte until the read timeout. It is cut at the file limit and 1 MiB, the push
    stops with an InputError naming the device and the command, and nothing is committed. (The message says the
    budget cut it; a flood not cut would run until the read timeout and say that: no clock is asserted.)"""
    sim = make_sim(["spine1"], snmp=False)
    with limits.file_limit_mb(1):
        message = _running_read_refused(sim, "spine1", EosPusher, ["Ethernet1/1"],
                                        lambda cmd: sim.flood("spine1", cmd))
    assert message.startswith("spine1: `show running-config`: ")
    assert "sent more than 2 MiB in one session while `show running-config` ran" in message


def test_a_login_secret_a_device_echoes_never_reaches_what_tune_keeps(make_sim):
    """A device that echoes the password into an answer the pusher quotes (a refused checkpoint) or a running
    config holding it in clear: written as ******** in the PushError and in the running config read."""
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    secret = {name: sim.env[sim.devices[name].password_env] for name in ("leaf1", "spine1")}
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    sim.garble("leaf1", "sudo config checkpoint losslessd-tune-test-before",
               f"Error: cannot write /etc/sonic/checkpoints as admin:{secret['leaf1']}\n")
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    assert "admin:********" in err.value.message and secret["leaf1"] not in str(err.value)
    running = sim.devices["spine1"].outputs["show running-config"]
    sim.garble("spine1", "show running-config", running + f"username admin secret 0 {secret['spine1']}\n")
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1"], EosPusher)
    try:
        text = pusher.running()
    finally:
        pusher.close()
    assert secret["spine1"] not in text and "username admin secret 0 ********" in text


def test_a_one_letter_password_is_masked_where_it_stands_whole(make_sim):
    """A login refused for a one-letter password `x`: the message named `NetmikoAuthenticationE********ception`
    (Guard.mask wrote every `x` of the text as ********). A secret is now masked where it stands whole: a token of its
    own, after `password`, in a URL (percent-encoded too), repeated; never inside a longer word unless it is 8
    characters or more (then glued to other letters too: the secret shown whatever the word)."""
    from losslessd.collect.ssh import Guard

    sim = make_sim(["leaf1"], snmp=False)
    host = load(sim.inventory_path, sim.env | {sim.devices["leaf1"].password_env: "x"}).hosts["leaf1"]
    pusher = SonicPusher(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    with pytest.raises(PushError) as err:
        pusher.open()
    assert "cannot log in: NetmikoAuthenticationException: " in err.value.message
    guard = Guard(host, 5.0)
    for text, masked in [("x", "********"), ("admin:x@leaf1", "admin:********@leaf1"), ("password x;", "password "
                         "********;"), ("passwordx", "password********"), ("'xx'", "'****************'"),
                         ("0x1f Exception x-ray", "0x1f Exception ********-ray")]:
        assert guard.mask(text) == (masked, masked.count("********")), text
    host = load(sim.inventory_path, sim.env | {sim.devices["leaf1"].password_env: "p@ss w"}).hosts["leaf1"]
    assert Guard(host, 5.0).mask("ssh://ops:p%40ss%20w@leaf1 p@ss w") == ("ssh://ops:********@leaf1 ********", 2)
    # A secret of 8 characters or more (ssh.GLUED_MIN) is masked glued to other letters too; a shorter one is not.
    host = load(sim.inventory_path, sim.env | {sim.devices["leaf1"].password_env: "Hunter24"}).hosts["leaf1"]
    assert Guard(host, 5.0).mask("login: adminHunter24x\nHunter24") == ("login: admin********x\n********", 2)
    host = load(sim.inventory_path, sim.env | {sim.devices["leaf1"].password_env: "Hunter2"}).hosts["leaf1"]
    assert Guard(host, 5.0).mask("adminHunter2x Hunter2") == ("adminHunter2x ********", 1)
    # (a device that means harm, echoing `!a` 200,000 times then `b`: each occurrence checked by fixed-width looks)
    # (its work counted, not timed: test_masking_a_device_that_echoes_the_secret_without_end_is_linear)
    host = load(sim.inventory_path, sim.env | {sim.devices["leaf1"].password_env: "!a"}).hosts["leaf1"]
    assert Guard(host, 5.0).mask("!a" * 200_000 + "b")[1] == 199_999


@pytest.mark.slow  # (valgrind: a process per size)
def test_masking_a_device_that_echoes_the_secret_without_end_is_linear():
    """A device echoing the password `!a` n times then `b`: each occurrence is checked by fixed-width looks
    (ssh._whole), so masking costs about four times the instructions at four times the echo (callgrind's count,
    tests.workmeter.instruction_growth; a run matched around each occurrence would cost its square)."""
    from tests.workmeter import instruction_growth

    small, large = instruction_growth(
        "from losslessd.collect.ssh import Guard, _occurrences\n"
        "guard = Guard.__new__(Guard)\nguard._secrets = [each for each in _occurrences('!a')]",
        "assert guard.mask('!a' * n + 'b')[1] == max(n - 1, 0)", (20_000, 80_000))
    assert large < 6 * small + 2, (small, large)


def test_nvue_apply_revert_and_restore(make_sim, tmp_path):
    """A Cumulus switch (the rendered roce-dscp26 profile as `nv set` lines) served by the simulator: a candidate
    goes in as one NVUE revision, a refused apply changes nothing, and the settings as found come back."""
    sim, name, pusher, cfg = _nvue(make_sim, tmp_path)
    try:
        # `pull` reads NVUE's JSON tree; the tuner its `nv set` lines: both parse to the same ECN settings.
        assert json.loads(sim.devices[name].outputs["nv config show -o json"])[1]["set"]["qos"]["congestion-control"]
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        assert found["swp1"] == (153600, 1572864, 100.0)
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
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


TEMP = "/tmp/losslessd-tune.0123456789"  # the name the simulated `mktemp` gives the patch file (mktemp_names)
PATCH = f"sudo config apply-patch {TEMP}"


@pytest.mark.parametrize("trail, said", [
    # sonic-utilities prints a failure as click's `Error: ...` line: here after the success line of a patch that landed
    ("Error: Failed to restart buffermgrd: Job for buffermgrd.service failed", "Error: Failed to restart buffermgrd"),
    # a session that broke off after the success line: a control character where text was expected
    ("Patch Applier: \x07\x00", "garbled output: control character"),
])
def test_a_sonic_patch_answered_with_an_error_beside_its_success_line_is_rolled_back(make_sim, trail, said):
    """`config apply-patch` was judged by its success line alone: an output holding `Patch applied successfully.` and
    an error line, or cut and garbled after it, read as a push that was done (the read-back found the thresholds,
    the tune went on). It is checked as a pull checks a read now: the push stops and the checkpoint is rolled back."""
    sim = make_sim(["leaf1"], snmp=False)
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    before = sim.running_config("leaf1")
    sim.devices["leaf1"].config.mktemp_names.append(TEMP)
    sim.trail("leaf1", PATCH, trail)
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    state = sim.devices["leaf1"].config
    assert err.value.rolled_back and said in err.value.message and "rolled back" in err.value.message, err.value
    assert state.commits == 1 and state.rollbacks == 1 and sim.running_config("leaf1") == before  # it had landed
    assert state.checkpoints == {}


def test_a_sonic_checkpoint_with_an_error_line_stops_before_the_patch(make_sim):
    """`config checkpoint` answered with its success line and an error line: no patch goes on a checkpoint that may
    not hold what it says."""
    sim = make_sim(["leaf1"], snmp=False)
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    sim.trail("leaf1", "sudo config checkpoint losslessd-tune-test-before", "Error: disk full while writing checkpoint")
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    assert "`sudo config checkpoint losslessd-tune-test-before` failed" in err.value.message
    assert "disk full" in err.value.message and sim.devices["leaf1"].config.commits == 0


def _nvue(make_sim, tmp_path):
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    text = (Path(__file__).parent / "fixtures" / "render" / "nvidia_cumulus" / "roce-dscp26.cfg").read_text()
    (fabric / "leaf9.cfg").write_text(text + "nv set system hostname leaf9\n")
    sim = make_sim(snmp=False, fabric=fabric)
    [name] = sim.devices
    host = load(sim.inventory_path, sim.env).hosts[name]
    pusher = NvuePusher(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    pusher.open()
    cfg = candidate.load(name, "nvidia_cumulus", pusher.running(), POLICY, ["swp1", "swp2"])
    return sim, name, pusher, cfg


def test_an_nvue_set_line_the_switch_answers_with_an_error_stops_before_the_apply(make_sim, tmp_path):
    """The `nv set` lines' answers were not read: a refused line left the revision without it and `nv config apply`
    applied the rest. The push now stops at the refused line, the pending revision is dropped, nothing is applied."""
    sim, name, pusher, cfg = _nvue(make_sim, tmp_path)
    before = sim.running_config(name)
    line = next(x for x in candidate.check(cfg, POLICY, NEW).snippet.splitlines() if x.startswith("nv set "))
    sim.trail(name, line, "Error: Invalid value for min-threshold")
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    assert f"`{line}` failed" in err.value.message and "Invalid value" in err.value.message, err.value
    state = sim.devices[name].config
    assert sim.running_config(name) == before and state.commits == 0 and state.nvue_pending == []


def test_an_nvue_apply_that_says_applied_and_an_error_is_undone(make_sim, tmp_path):
    """`applied [rev_id: N]` beside an error line: the revision may have landed (here it did), so the push fails and
    the revision is undone as one that landed (before, the success line alone made it a push that was done)."""
    sim, name, pusher, cfg = _nvue(make_sim, tmp_path)
    found = candidate.ecn_settings(cfg, POLICY, cfg.text)
    # (once: the undo's own `nv config apply` is answered cleanly)
    sim.trail(name, "nv config apply -y", "Error: failed to reload switchd: timeout", once=True)
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    assert "`nv config apply` failed" in err.value.message and "switchd" in err.value.message
    assert err.value.rolled_back and "rolled back" in err.value.message, err.value
    assert sim.devices[name].config.commits == 2  # the candidate's revision, then the one putting it back
    assert candidate.ecn_settings(cfg, POLICY, sim.running_config(name)) == found


# What sonic-utilities prints when `config delete-checkpoint` fails (config/main.py: its failure line, then click's
# ctx.fail usage and `Error: ...`): the checkpoint stays in the switch's checkpoint folder.
DELETE_FAILED = ("Failed to delete config checkpoint\nUsage: config [OPTIONS] COMMAND [ARGS]...\nTry \"config -h\" for "
                 "help.\n\nError: [Errno 13] Permission denied: '/etc/sonic/checkpoints/{}.cp.json'")


def test_a_sonic_checkpoint_the_switch_did_not_delete_is_a_warning_naming_it(make_sim):
    """`config delete-checkpoint` after a push (and after the tune) was sent and its answer dropped: a failed delete
    left a checkpoint on the switch without a word. The push itself succeeded, so it is no error: a warning the
    pusher keeps (the tune says it and stores it) names the device and the checkpoint to delete by hand."""
    sim = make_sim(["leaf1"], snmp=False)
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    state = sim.devices["leaf1"].config
    try:
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
        assert pusher.warnings == []
        pushed = _push(cfg, pusher, NEW)  # (deleted as asked: no warning)
        assert pushed.changed and pusher.warnings == []
        for name in ("losslessd-tune-test-before", "losslessd-tune-test-origin"):
            sim.garble("leaf1", f"sudo config delete-checkpoint {name}", DELETE_FAILED.format(name))
        pushed = _push(cfg, pusher, Candidate(400_000, 3_000_000, 20.0))
        assert pushed.changed  # the push stands
        pusher.forget(origin)
    finally:
        pusher.close()
    assert set(state.checkpoints) == {"losslessd-tune-test-before", "losslessd-tune-test-origin"}
    assert len(pusher.warnings) == 2
    for text, name in zip(pusher.warnings, ("losslessd-tune-test-before", "losslessd-tune-test-origin"), strict=True):
        assert text.startswith("leaf1: ") and f"checkpoint {name} is left on the switch" in text
        assert "Permission denied" in text  # (what the switch said)


def _paste(sim, name: str, lines: list[str]) -> list[str]:
    """``lines`` typed one by one into a new login of ``name`` as an operator pastes them (EOS: after `enable`): the
    answer to each."""
    conn = ConnectHandler(**ssh_params(sim, name))
    try:
        if sim.devices[name].platform == "arista_eos":
            conn.enable()
        return [conn.send_command(line, expect_string=r"[#$>] ?$", strip_prompt=True) for line in lines]
    finally:
        conn.disconnect()


@pytest.mark.parametrize("platform", ["arista_eos", "sonic", "nvidia_cumulus"])
def test_the_put_back_commands_of_every_pusher_restore_what_a_push_took(make_sim, tmp_path, platform):
    """Pusher.by_hand: the commands the tune prints when it could not put a device back, for the operator to paste.
    They were never run: here each platform's are pasted into the simulated switch after a push, each line is taken
    (no error answer) and the tuned queues hold their thresholds as found again."""
    if platform == "nvidia_cumulus":
        sim, name, pusher, cfg = _nvue(make_sim, tmp_path)
    else:
        name, ports, cls = {"arista_eos": ("spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher),
                            "sonic": ("leaf1", ["Ethernet0", "Ethernet4"], SonicPusher)}[platform]
        sim = make_sim([name], snmp=False)
        cfg, pusher = _setup(sim, name, ports, cls)
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
        assert _push(cfg, pusher, NEW).changed
        lines = pusher.by_hand(origin)
    finally:
        pusher.close()
    taken = candidate.ecn_settings(cfg, POLICY, sim.running_config(name))
    assert taken != found and set(taken.values()) >= {(300_000, 3_000_000, 20.0)}
    answers = _paste(sim, name, lines)
    refused = [(line, answer) for line, answer in zip(lines, answers, strict=True)
               if answer.lstrip().startswith(("%", "Error", "Failed", "-bash", "Usage"))]
    assert refused == []
    assert candidate.ecn_settings(cfg, POLICY, sim.running_config(name)) == found


def test_the_simulated_eos_config_mode_applies_its_lines_at_end_or_before_a_named_session(make_sim):
    """`configure` (EOS's config mode, where the put-back commands start): its lines are in the running config once
    the mode is left, and before a `configure session` typed in it opens a session of its own."""
    sim = make_sim(["spine1"], snmp=False)
    ecn = "random-detect ecn minimum-threshold {0} bytes maximum-threshold {0} bytes max-mark-probability 1 weight 0"
    typed = ["configure", "interface Ethernet1/1", "uc-tx-queue 3", ecn.format(9216), "configure session t2",
             "interface Ethernet3/1", "uc-tx-queue 3", ecn.format(8192)]
    answers = _paste(sim, "spine1", typed)
    assert [a for a in answers if a.strip()] == []
    running = sim.running_config("spine1")
    assert "minimum-threshold 9216" in running and "minimum-threshold 8192" not in running  # (t2 not committed)
    assert _paste(sim, "spine1", ["configure session t2 commit"]) == [""]
    assert "minimum-threshold 8192" in sim.running_config("spine1")
    assert not any(name.startswith("terminal-") for name in sim.devices["spine1"].config.sessions)


def _dropped_push(sim, name: str, cfg, pusher, part: str) -> PushError:
    """Push NEW through ``pusher`` while the simulator drops the session right after ``part`` ran on ``name``."""
    sim.drop_after(name, part)
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        pusher.close()
    return err.value


def test_eos_session_dropped_after_the_commit_says_the_switch_runs_the_candidate_on_its_timer(make_sim):
    """The SSH session drops right after `configure session NAME commit timer` (the switch took the commit): the
    rollback cannot run, so the push must not be reported as rolled back: the switch runs the candidate until its
    commit timer reverts it, and the operator is told so and how to revert it now. It was reported as "napalm refused
    the change: ReadTimeout ... Things you might try to fix this ..." and rolled_back True."""
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    before = sim.running_config("spine1")
    err = _dropped_push(sim, "spine1", cfg, pusher, "commit timer")
    assert sim.running_config("spine1") != before  # the candidate stands, on its timer
    [pending] = [s for s in sim.devices["spine1"].config.sessions.values() if s.state == "pendingCommitTimer"]
    assert not err.rolled_back and "the rollback failed too" in err.message
    assert "300 s commit timer reverts it" in err.message and "abort" in err.message
    assert "Things you might try" not in err.message


def test_sonic_session_dropped_at_apply_patch_keeps_the_checkpoint_and_says_how_to_roll_back(make_sim):
    """The SSH session drops right after `config apply-patch` (the switch applied it). netmiko's ReadTimeout and the
    closed socket of the rollback escaped push() as they were: not a PushError, so the tune neither reported the device
    nor put the fabric back. Now: a PushError, not rolled back, that says the patch may stand and names the rollback
    to run by hand to the checkpoint it keeps (it was deleted after a failed rollback: the way back went with it)."""
    sim = make_sim(["leaf1"], snmp=False)
    cfg, pusher = _setup(sim, "leaf1", ["Ethernet0", "Ethernet4"], SonicPusher)
    pusher.timeout_s = 5.0  # (each read of the dead session waits this long)
    before = sim.running_config("leaf1")
    err = _dropped_push(sim, "leaf1", cfg, pusher, "config apply-patch")
    message = err.message
    assert sim.running_config("leaf1") != before  # the patch stands
    assert not err.rolled_back and "the session broke off" in message, message
    assert "whether the patch landed is not known" in message and "rollback failed too" in message
    assert "`sudo config rollback losslessd-tune-test-before` (the checkpoint is kept)" in message
    assert "losslessd-tune-test-before" in sim.devices["leaf1"].config.checkpoints
    assert "Things you might try" not in message


def test_nvue_session_dropped_at_apply_says_how_to_undo_by_hand(make_sim, tmp_path):
    """The session drops right after `nv config apply -y` (the switch applied the revision): the undo cannot run over
    it. A PushError (it was netmiko's ReadTimeout, out of push() as it was), not rolled back, naming the lines that
    undo the revision by hand."""
    sim, name, pusher, cfg = _nvue(make_sim, tmp_path)
    pusher.timeout_s = 5.0
    before = sim.running_config(name)
    err = _dropped_push(sim, name, cfg, pusher, "nv config apply")
    message = err.message
    assert sim.running_config(name) != before
    assert not err.rolled_back and "whether the revision applied is not known" in message, message
    assert "undo it by hand: `nv " in message and "`nv set interface swp2 qos congestion-control profile " in message
    assert message.endswith("`nv config apply -y`")


def _refuse_after_commit(sim, pusher, command: str, answer: str):
    """The switch takes the push's commit for real (napalm's own commit_config on the simulator), then answers
    ``command`` with ``answer`` from then on (the caller turns it off with sim.garble(..., on=False)); returns the
    commit as it was, to put back."""
    commit = pusher.dev.commit_config

    def committed_then_refused(**kwargs):
        commit(**kwargs)
        sim.garble("spine1", command, answer)

    pusher.dev.commit_config = committed_then_refused
    return commit


def test_eos_read_back_failing_after_the_commit_is_a_failed_push_that_says_the_commit_happened(make_sim):
    """The switch took `configure session NAME commit timer`, then the read-back of the running config is refused.
    It was raised as an InputError (exit 2, "bad input", as if nothing had been pushed); it is a PushError (a tune
    stops with exit 1) saying the switch took the commit, that what it runs is not known, and that it was rolled back:
    the commit on its timer aborted, the running config as before."""
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    before = sim.running_config("spine1")
    _refuse_after_commit(sim, pusher, "show running-config", "% Invalid input (privileged mode required)")
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
    finally:
        sim.garble("spine1", "show running-config", on=False)
        pusher.close()
    message = err.value.message
    assert "the switch took the commit on its 300 s commit timer" in message, message
    assert "`show running-config`: the device answered '% Invalid input" in message
    assert message.endswith("; rolled back") and err.value.rolled_back
    state = sim.devices["spine1"].config
    assert sim.running_config("spine1") == before and state.rollbacks == 1
    assert [s.state for s in state.sessions.values() if s.state != "completed"] == []


def test_an_eos_push_while_a_commit_waits_on_its_timer_is_refused_naming_it(make_sim):
    """Another login committed `configure session t1 commit timer 00:05:00` and has not confirmed it. A push beside it
    opened a napalm session, napalm refused its commit (`Pending commit confirm already in process!`), and the rollback
    that followed failed on t1 ("the rollback failed too ... if the commit landed"), leaving the napalm session open on
    the switch. The push is refused before it opens a session, naming t1, its time left and how to keep or revert it;
    t1 is left to its owner (still pending, its change still running) and no second session is on the switch."""
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    conn = _session_t1(sim)
    try:
        conn.send_command("configure session t1 commit timer 00:05:00")
    finally:
        conn.disconnect()
    state = sim.devices["spine1"].config
    assert state.sessions["t1"].state == "pendingCommitTimer"
    running, commits = sim.running_config("spine1"), state.commits
    message = _refused(cfg, pusher)
    assert "a commit is pending on its commit timer on the switch (config session t1 (" in message, message
    assert "nothing pushed" in message and "rollback" not in message
    # the time left, from commitBy and `show version`'s uptime (served by the simulator since session 39): at most the
    # timer's 300 s, and not "not shown"
    left = int(re.search(r"config session t1 \((\d+) s left\)", message)[1])
    assert 200 <= left <= 300, message
    assert "`configure session t1 commit`" in message and "`configure session t1 abort`" in message
    assert set(state.sessions) == {"t1"} and state.sessions["t1"].state == "pendingCommitTimer"
    assert sim.running_config("spine1") == running and state.commits == commits


def test_a_sonic_checkpoint_a_dropped_push_kept_is_removed_once_a_new_session_puts_the_switch_back(make_sim):
    """A push's session drops at `config apply-patch`: its `before` checkpoint is kept (the rollback could not run) and
    named to the operator. The tune opens a new session and tries again (session._reopen hands over what was kept):
    a second push there checkpoints under a name of its own (the kept one, named to the operator, is not overwritten),
    and once the switch is back at the settings as found, every checkpoint the pushes took is removed. Before, the kept
    `before` checkpoint stayed on the switch after the put-back without a word."""
    sim = make_sim(["leaf1"], snmp=False)
    cfg, first = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    first.timeout_s = 5.0
    found = candidate.ecn_settings(cfg, POLICY, cfg.text)
    origin = first.origin(cfg.text, cfg.queues)
    err = _dropped_push(sim, "leaf1", cfg, first, "config apply-patch")
    state = sim.devices["leaf1"].config
    assert not err.rolled_back and first.left == ["losslessd-tune-test-before"]
    assert set(state.checkpoints) == {"losslessd-tune-test-before", "losslessd-tune-test-origin"}
    _, second = _setup(sim, "leaf1", ["Ethernet0"], SonicPusher)
    second.left = first.left
    try:
        assert second.by_hand(origin) == ["sudo config rollback losslessd-tune-test-origin",
                                          "sudo config delete-checkpoint losslessd-tune-test-before",
                                          "sudo config delete-checkpoint losslessd-tune-test-origin"]
        log = len(state.log)
        assert _push(cfg, second, Candidate(400_000, 3_000_000, 20.0)).changed
        assert "config checkpoint losslessd-tune-test-before-2" in state.log[log:]  # (its own name)
        assert set(state.checkpoints) == {"losslessd-tune-test-origin"} and second.left == []
        second.restore(origin, candidate.ecn_check(cfg, POLICY, found))
        second.forget(origin)
    finally:
        second.close()
    assert candidate.ecn_settings(cfg, POLICY, sim.running_config("leaf1")) == found
    assert state.checkpoints == {} and second.warnings == []


def test_eos_commit_a_dropped_session_left_on_its_timer_is_reverted_by_the_put_back_over_a_new_session(make_sim):
    """The session drops right after `configure session NAME commit timer`: the candidate runs on its timer. The
    put-back over a new session (session._reopen hands over what the failed push left) found that commit pending and,
    once a pending commit stops a push, could not put the switch back for up to 300 s. Our own session is known by
    name: it is aborted first (the by-hand commands say so too), then the settings as found are pushed and confirmed."""
    sim = make_sim(["spine1"], snmp=False)
    cfg, first = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    found = candidate.ecn_settings(cfg, POLICY, cfg.text)
    origin = first.origin(cfg.text, cfg.queues, cfg.family)
    err = _dropped_push(sim, "spine1", cfg, first, "commit timer")
    state = sim.devices["spine1"].config
    [ours] = [name for name, s in state.sessions.items() if s.state == "pendingCommitTimer"]
    assert first.left == [ours] and f"`configure session {ours} abort` reverts it now" in err.message
    _, second = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    second.left = first.left
    try:
        assert second.by_hand(origin)[:2] == [f"configure session {ours} abort", "configure"]
        second.restore(origin, candidate.ecn_check(cfg, POLICY, found))
    finally:
        second.close()
    assert f"reverted {ours}" in state.log and second.left == []
    assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == found
    assert [s.state for s in state.sessions.values() if s.state != "completed"] == []


def test_eos_session_list_failing_after_the_commit_is_a_failed_push_naming_the_commit(make_sim):
    """The switch took the commit on its timer and the running config read back, then `show configuration sessions
    detail` (whether the commit waits for confirmation) is refused: napalm's KeyError escaped the push, not a PushError,
    so the tune neither named the device nor said that a commit runs on its timer. Now a failed push: the rollback
    needs that list too, so the commit is named as ours, left on its timer, and the device's next push aborts it."""
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    before = sim.running_config("spine1")
    commit = _refuse_after_commit(sim, pusher, "show configuration sessions detail | json", "% Invalid input")
    try:
        with pytest.raises(PushError) as err:
            _push(cfg, pusher, NEW)
        sim.garble("spine1", "show configuration sessions detail | json", on=False)
        state = sim.devices["spine1"].config
        [ours] = [name for name, s in state.sessions.items() if s.state == "pendingCommitTimer"]
        message = err.value.message
        assert "`show configuration sessions detail` failed after the commit" in message, message
        assert f"`configure session {ours} abort` reverts it now" in message and not err.value.rolled_back
        assert pusher.left == [ours]
        pusher.dev.commit_config = commit
        assert _push(cfg, pusher, NEW).changed  # (ours aborted first, then pushed again)
        assert f"reverted {ours}" in state.log and pusher.left == []
    finally:
        sim.garble("spine1", "show configuration sessions detail | json", on=False)
        pusher.close()
    assert sim.running_config("spine1") != before


@pytest.mark.parametrize("sessions,version,expected", [
    # EOS before 4.32: sessions.NAME.state, commitBy in seconds of uptime
    ({"sessions": {"t1": {"state": "pendingCommitTimer", "commitBy": 1300.4}, "t2": {"state": "completed"}}},
     {"uptime": 1000.0}, {"t1": 300}),
    ({"sessions": {"t1": {"state": "pendingCommitTimer", "commitBy": 1300.4}}}, {}, {"t1": -1}),  # no uptime
    ({"sessions": {"t1": {"state": "pendingCommitTimer", "commitBy": 900}}}, {"uptime": 1000}, {"t1": -1}),  # past
    ({"sessions": {}}, {"uptime": 1.0}, {}),
    # EOS 4.32 and later: one commitTimerSessionName / commitTimerExpireTime
    ({"commitTimerSessionName": "napalm_1", "commitTimerExpireTime": 1120}, {"uptime": 1000}, {"napalm_1": 120}),
    ({"commitTimerSessionName": "", "commitTimerExpireTime": -1}, {"uptime": 1000}, {}),
])
def test_pending_commits_reads_both_eos_layouts(sessions, version, expected):
    assert pending_commits(sessions, version) == expected


@pytest.mark.parametrize("sessions", [{}, None, "% Invalid input", {"sessions": ["t1"]}])
def test_an_unreadable_sessions_answer_is_never_read_as_none_pending(sessions):
    # (napalm's ssh transport answers {} for output that is no JSON)
    with pytest.raises(ValueError, match="gave no sessions table"):
        pending_commits(sessions, {"uptime": 1.0})


def test_an_eos_napalm_step_that_stalls_at_a_pager_is_named_by_its_own_step(make_sim):
    """napalm's eos driver sends its own commands over the guarded connection, past Guard.send: the stall check read
    the end of the command before (the running config's read-back) and a stall was named by it (`while `show
    running-config` ran`). Each napalm call is now a command of the session (Guard.begin): a pager held in napalm's
    sessions query stops the push before anything is pushed, named by that query."""
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    sim.hold("spine1", "show configuration sessions detail | json", pager="--More--")
    commits = sim.devices["spine1"].config.commits
    message = _refused(cfg, pusher)
    assert "stopped at the pager prompt" in message, message
    assert "while `napalm cli: show configuration sessions detail, show version` ran" in message, message
    assert "show running-config" not in message and "nothing pushed" in message
    assert sim.devices["spine1"].config.commits == commits


def test_an_eos_diff_holding_lines_losslessd_did_not_render_is_never_committed(make_sim):
    # the switch's session diff holds, beside our ECN lines, a `shutdown` of a RoCE port (another operator's change
    # in the session, a line the switch rewrote): it was committed with ours and the diff shown only afterwards
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    before = sim.running_config("spine1")
    sim.meddle("spine1", ["interface Ethernet1/1", "shutdown"])
    said = _refused(cfg, pusher)
    assert "holds 1 line(s) losslessd did not render, so nothing was committed" in said and "shutdown" in said, said
    assert sim.running_config("spine1") == before and sim.devices["spine1"].config.commits == 0


def test_lines_losslessd_did_not_render_are_shown_with_their_secrets_masked(make_sim):
    # another operator's lines in the session set a community and a password: the refusal names them, as a capture
    # writes them (collect.redact), never their secrets (the message reaches the log and the tune report)
    sim = make_sim(["spine1"], snmp=False)
    cfg, pusher = _setup(sim, "spine1", ["Ethernet1/1", "Ethernet3/1"], EosPusher)
    sim.meddle("spine1", ["snmp-server community Xq7community ro", "username ops secret 0 Xq7password"])
    said = _refused(cfg, pusher)
    assert "holds 2 line(s) losslessd did not render" in said and f"snmp-server community {MASK} ro" in said, said
    assert "Xq7" not in said and said.count(MASK) == 2, said


@pytest.mark.parametrize("diff, foreign", [
    # a value changed: the old line goes, the new one comes (EOS session diff, unified)
    ("--- system:/running-config\n+++ session:/s-session-config\n@@ -1,3 +1,3 @@\n interface Ethernet1/1\n"
     "    uc-tx-queue 3\n-      random-detect ecn minimum-threshold 100 kbytes maximum-threshold 1 mbytes\n"
     "+      random-detect ecn minimum-threshold 300000 bytes maximum-threshold 3000000 bytes\n", []),
    # a line none of ours sets is removed: another session's change undone by ours
    ("+      random-detect ecn minimum-threshold 300000 bytes maximum-threshold 3000000 bytes\n"
     "-   description to gpu01\n", ["-   description to gpu01"]),
    ("+   shutdown\n+      random-detect ecn minimum-threshold 300000 bytes maximum-threshold 3000000 bytes\n",
     ["+   shutdown"]),
])
def test_unrendered_lines_of_a_diff(diff, foreign):
    snippet = ("interface Ethernet1/1\n   uc-tx-queue 3\n"
               "      random-detect ecn minimum-threshold 300000 bytes maximum-threshold 3000000 bytes\n")
    assert unrendered(diff, snippet) == foreign


@pytest.mark.parametrize("name, cls", [("spine1", EosPusher), ("leaf1", SonicPusher)])
def test_a_login_trickled_a_byte_at_a_time_ends_at_the_pushers_timeout(make_sim, name, cls):
    """A device sending a greeting a byte every half second before its SSH version string, without end: a pusher has
    no session timer, and the login that ran out of paramiko's negotiation timeout was named as napalm's "Cannot
    connect to 127.0.0.1" or netmiko's "'No existing session' error: try increasing 'conn_timeout'", of a device that
    answered. The login now ends at the pusher's timeout as a whole, named so."""
    import threading

    sim = make_sim([name], snmp=False)
    sim.before_version(name, b"Welcome\r\n", every_s=0.5, endless=True)
    pusher = cls(load(sim.inventory_path, sim.env).hosts[name], sim.known_hosts_path, 3.0, "losslessd-tune-test")
    failed: list[PushError] = []

    def login() -> None:
        try:
            pusher.open()
        except PushError as exc:
            failed.append(exc)

    opening = threading.Thread(target=login, daemon=True)
    opening.start()
    opening.join(60)  # (a guard against the hang, twenty times the timeout: the test fails rather than waits)
    assert not opening.is_alive(), "the login never ended"
    (error,) = failed
    assert "the login did not finish within 3 s" in error.message, error.message
