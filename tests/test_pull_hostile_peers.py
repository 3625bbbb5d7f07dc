"""Hostile SSH peers in one fleet pull (session 39): a device that hangs halfway through an answer, one that pages
its output although paging was turned off. Each is named with its command; what it gave before is kept; every good
device's capture is written and linted; the exit code says findings."""

from __future__ import annotations

import asyncio
import json

import pytest

from losslessd import capture, inventory
from losslessd import counters_oids as oids
from losslessd.collect import MANIFEST, MASK
from losslessd.collect import pull as collect
from losslessd.collect.snmp import SnmpError, SnmpSample, make_poller, target_for
from losslessd.errors import EXIT_FINDINGS
from tests.clirun import losslessd


def test_a_hung_answer_and_a_pager_among_good_devices(make_sim, tmp_path):
    sim = make_sim(["leaf1", "leaf2", "spine1", "gpu01"], snmp=False)
    sim.hold("leaf2", "show lldp neighbors")  # its running-config answered, then half an answer and nothing
    sim.hold("spine1", "show running-config", pager=" --More-- ")  # pages although netmiko sent `terminal length 0`
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=8))
    hung, paged = result.devices["leaf2"], result.devices["spine1"]
    # the hang: a timeout naming the command it hung in (it said "did not finish within 8 s" and no more), and the
    # running-config it had given kept in partial/ (it was lost with the session)
    assert hung.code == "SYS013" and "(--timeout) while `show lldp neighbors` ran" in hung.message, hung
    assert "the 1 output(s) read before are kept in partial/leaf2.capture" in hung.message, hung
    kept = capture.read((out / "partial" / "leaf2.capture").read_text())
    assert [s.command for s in kept.sections] == ["show running-config"]
    assert kept.sections[0].output.strip() == sim.devices["leaf2"].outputs["show running-config"].strip()
    # the pager: named as such within seconds, not a timeout after the device's whole --timeout
    assert paged.code == "SYS014", paged
    assert "stopped at the pager prompt '--More--' while `show running-config` ran" in paged.message, paged
    assert not (out / "partial" / "spine1.capture").exists()  # (nothing read before it)
    for good in ("leaf1", "gpu01"):
        assert result.devices[good].status == "ok" and (out / f"{good}.capture").exists(), result.devices[good]
    manifest = json.loads((out / MANIFEST).read_text())["devices"]
    assert manifest["leaf2"]["partial"] == "partial/leaf2.capture" and "partial" not in manifest["spine1"]

    ran = losslessd("lint", "-f", "json", str(out))
    assert ran.returncode == EXIT_FINDINGS, ran.stderr
    report = json.loads(ran.stdout)
    assert sorted(d["name"] for d in report["devices"]) == ["gpu01", "leaf1"]  # partial/ is not linted
    sys_findings = {(f["code"], f["device"]) for f in report["findings"] if f["code"].startswith("SYS")}
    assert {("SYS013", "leaf2"), ("SYS014", "spine1")} <= sys_findings, sys_findings


def test_a_prompt_that_changes_mid_session_is_named_and_a_dropped_session_names_its_command(make_sim, tmp_path):
    sim = make_sim(["leaf2", "spine1", "gpu01"], snmp=False)
    sim.rename_after("leaf2", "show running-config", "leaf9")  # its hostname changed as its running-config ran
    sim.drop_after("spine1", "show lldp neighbors")  # the session lost as its second command ran
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=8))
    renamed, dropped = result.devices["leaf2"], result.devices["spine1"]
    # it waited out the 8 s for `leaf2#` and said "did not finish within 8 s (--timeout)"
    assert renamed.code == "SYS014", renamed
    assert "showed the prompt 'leaf9#' while `show running-config` ran, not the session's 'leaf2'" in renamed.message
    assert dropped.code == "SYS010" and "failed while `show lldp neighbors` ran" in dropped.message, dropped
    assert "the 1 output(s) read before are kept in partial/spine1.capture" in dropped.message, dropped
    assert result.devices["gpu01"].status == "ok"


def test_a_slow_device_pausing_after_a_line_that_ends_like_a_pager_is_read_whole(make_sim, tmp_path):
    # a healthy switch whose running-config has a description ending `--More--` and that stops for 3 s after that
    # line (a big config built as it prints): a pager waits on its own line with no newline after it, so this is
    # no pager; it was failed SYS014 "stopped at the pager prompt" 2 s into the pause
    sim = make_sim(["spine1"], snmp=False)
    sim.hold("spine1", "show running-config", pager="   description to spine1 --More--\n", pause_s=3)
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=20))
    assert result.devices["spine1"].status == "ok", result.devices["spine1"]
    kept = capture.read((out / "spine1.capture").read_text())
    running = dict((s.command, s.output) for s in kept.sections)["show running-config"]
    assert "   description to spine1 --More--\n" in running


def test_a_slow_device_with_a_long_hostname_is_no_prompt_change(make_sim, tmp_path):
    # a 64-character hostname (Linux HOST_NAME_MAX) on a switch that takes 2.5 s to answer `enable`: the end of its
    # 65-character prompt `NAME>`, cut to the last 64 characters read, was taken for another device's prompt (SYS014)
    sim = make_sim(["spine1"], snmp=False)
    sim.devices["spine1"].renamed = "spine1-" + "a" * 57
    sim.set_slow("spine1", 2.5)
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=60))
    assert result.devices["spine1"].status == "ok", result.devices["spine1"]


def test_a_partial_capture_masks_secrets_as_a_full_one_does(make_sim, tmp_path):
    sim = make_sim(["spine1"], snmp=False)
    device = sim.devices["spine1"]
    password = sim.env[device.password_env]
    running = device.outputs["show running-config"]
    # the device's own secret (an SNMP community) and the login password (a config holding it in clear)
    sim.garble("spine1", "show running-config",
               f"{running.rstrip()}\nsnmp-server community Zq8fommunity ro\nusername ops secret 0 {password}\n")
    sim.hold("spine1", "show lldp neighbors")  # then the session hangs: the running-config kept in partial/
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=8))
    assert result.devices["spine1"].code == "SYS013", result.devices["spine1"]
    kept = (out / "partial" / "spine1.capture").read_text()
    assert "snmp-server community" in kept and "username ops secret" in kept
    assert "Zq8fommunity" not in kept and password not in kept


def _serve_sys_name(sim, device: str, sys_name: str) -> None:
    """``device``'s agent answering ``sys_name`` as its sysName (SNMPv2-MIB, RFC 3418): the agent of another switch
    reached through this device's address, port or context."""
    agents = sim._agents
    records = agents._agents[device].data_file.read_text()
    line = next(x for x in records.splitlines() if x.startswith(f"{oids.SYS_NAME}|"))
    agents.rewrite(device, records.replace(line, f"{oids.SYS_NAME}|4|{sys_name}"))


def test_an_agent_naming_itself_as_another_device_of_the_inventory_keeps_its_counters_out(make_sim, tmp_path):
    # leaf2's inventory entry reaches the agent of the switch whose sysName is leaf1's FQDN: its counters were saved
    # as counters/leaf2.json without a word, leaf1's pauses read as leaf2's. A sysName naming no device of the
    # inventory (SONiC's default `sonic`) says nothing of which switch it is and is read as before.
    sim = make_sim(["leaf1", "leaf2"])
    _serve_sys_name(sim, "leaf2", "LEAF1.dc1.example.net")
    _serve_sys_name(sim, "leaf1", "sonic")
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=20))
    crossed = result.devices["leaf2"]
    assert crossed.status == "ok" and (out / "leaf2.capture").exists(), crossed  # its SSH capture is kept
    (issue,) = [i for i in crossed.issues if i["code"] == "SYS014"]
    assert issue["command"] == "snmp" and "says it is 'LEAF1.dc1.example.net' (its sysName), which is leaf1 of " \
                                          "the inventory, not leaf2" in issue["message"], issue
    assert not (out / "counters" / "leaf2.json").exists()
    assert (out / "counters" / "leaf1.json").exists(), result.devices["leaf1"]


@pytest.mark.parametrize("backend", ["pysnmp", "fast"])
def test_both_pollers_read_the_sys_name_and_refuse_another_devices(make_sim, backend):
    sim = make_sim(["leaf1", "leaf2"], ssh=False)
    _serve_sys_name(sim, "leaf2", "leaf1")
    hosts = inventory.load(sim.inventory_path, env=sim.env).hosts

    async def both():
        async with make_poller(backend) as poller:
            poller.fleet = frozenset(hosts)
            return await poller.poll_many([target_for(h) for h in hosts.values()])

    loop = asyncio.new_event_loop()
    try:
        got = loop.run_until_complete(both())
    finally:
        loop.close()
    assert isinstance(got["leaf1"], SnmpSample) and got["leaf1"].raw[oids.SYS_NAME] == "leaf1", got["leaf1"]
    assert isinstance(got["leaf2"], SnmpError) and "which is leaf1 of the inventory" in got["leaf2"].message


# sysNames that show as leaf1 (SNMPv2-MIB's DisplayString is any octets, RFC 2579): a Cyrillic `е` (U+0435) and
# Greek `Α` (U+0391) where Latin letters stand, full-width letters, a C string's trailing NUL, a zero-width space
LEAF1_LOOKALIKES = ["l\u0435af1", "LE\u0391F1", "\uff4c\uff45\uff41\uff46\uff11",
                    "leaf1\x00", "lea\u200bf1.dc1"]


@pytest.mark.parametrize("backend", ["pysnmp", "fast"])
def test_a_sys_name_that_shows_as_another_device_is_refused_as_that_device(make_sim, backend):
    # leaf2's address reaching an agent whose sysName shows as leaf1 though its characters differ: compared as
    # written, it named no device of the inventory and its counters were read as leaf2's without a word
    sim = make_sim(["leaf1", "leaf2"], ssh=False)
    hosts = inventory.load(sim.inventory_path, env=sim.env).hosts
    agents = sim._agents
    records = agents._agents["leaf2"].data_file.read_text()
    line = next(x for x in records.splitlines() if x.startswith(f"{oids.SYS_NAME}|"))

    async def poll_as(names: list[str]) -> list:
        """leaf2 polled once with each of ``names`` as its agent's sysName (snmpsim reads its file again each time)."""
        got = []
        async with make_poller(backend) as poller:
            poller.fleet = frozenset(hosts)
            for name in names:
                agents.rewrite("leaf2", records.replace(line, f"{oids.SYS_NAME}|4x|{name.encode().hex()}"))
                try:
                    got.append(await poller.poll(target_for(hosts["leaf2"])))
                except SnmpError as exc:
                    got.append(exc)
        return got

    # leaf2's own name in such forms is leaf2's (a look-alike of it too: it was refused as "leaf2 of the inventory, not
    # leaf2"); a name of leaf1's shape that differs in a letter is no device's
    own = ["LEAF2\x00", "\uff4c\uff45\uff41\uff46\uff12", "l\u0435af2", "l\u0435af3"]
    loop = asyncio.new_event_loop()
    try:
        got = loop.run_until_complete(poll_as(LEAF1_LOOKALIKES + own))
    finally:
        loop.close()
    for shown, answer in zip(LEAF1_LOOKALIKES, got[:len(LEAF1_LOOKALIKES)], strict=True):
        assert isinstance(answer, SnmpError) and "which is leaf1 of the inventory, not leaf2" in answer.message, \
            (shown, answer)
    for shown, answer in zip(own, got[len(LEAF1_LOOKALIKES):], strict=True):
        assert isinstance(answer, SnmpSample), (shown, answer)


def test_a_device_offering_only_a_sha1_key_exchange_is_named_once_not_retried(make_sim, tmp_path):
    # an old switch's SSH server offering diffie-hellman-group1-sha1 alone (RFC 9142 deprecates it; paramiko offers
    # none of SHA-1): it said "A paramiko SSHException occurred during connection creation:" and no more (netmiko's
    # first line, the why below it cut off), after 3 attempts that could only fail alike
    sim = make_sim(["leaf1", "spine1"], snmp=False)
    sim.legacy_kex("spine1")
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=2, timeout_s=20))
    old = result.devices["spine1"]
    assert old.code == "SYS010" and old.attempts == 1, old
    assert "offers no SSH algorithm losslessd accepts (Incompatible ssh peer (no acceptable kex algorithm))" \
        in old.message, old
    assert result.devices["leaf1"].status == "ok"


def _overwritten_issue(make_sim, tmp_path, after_cr: str) -> dict:
    """The one issue a pull of spine1 gives when its PFC line is followed by a lone CR and ``after_cr``."""
    sim = make_sim(["spine1"], snmp=False)
    running = sim.devices["spine1"].outputs["show running-config"]
    line = "   priority-flow-control priority 3 no-drop\n"
    assert line in running
    sim.garble("spine1", "show running-config", running.replace(line, line[:-1] + "\r" + after_cr, 1))
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=20))
    (issue,) = result.devices["spine1"].issues
    return issue


def test_a_line_a_carriage_return_overwrites_is_named_not_read_as_two_lines(make_sim, tmp_path):
    # a running-config whose PFC line is overwritten on a terminal by the text after a lone CR: netmiko made the CR a
    # line end, so the capture held both lines and the device was "ok" without a word
    issue = _overwritten_issue(make_sim, tmp_path, "   no priority-flow-control priority 3 no-drop\n")
    assert issue["code"] == "SYS014" and issue["command"] == "show running-config", issue
    assert "a carriage return inside a line ('priority-flow-control priority 3 no-drop\\r   no priority" \
        in issue["message"], issue


def test_a_line_a_carriage_return_overwrites_is_named_with_its_secrets_masked(make_sim, tmp_path):
    # the overwritten line sets a community: the SYS014 message (the log, the report) names the line as the capture
    # writes it, the community masked, not with the login's secrets alone masked
    issue = _overwritten_issue(make_sim, tmp_path, "   snmp-server community Xq7community ro\n")
    assert issue["code"] == "SYS014" and f"snmp-server community {MASK} ro" in issue["message"], issue
    assert "Xq7" not in issue["message"], issue


def test_a_cut_config_db_quoted_in_its_refusal_has_its_secrets_masked(make_sim, tmp_path):
    # a one-line CONFIG_DB cut short is "not JSON", and the SYS014 message quoted its first line (the whole file) as
    # the device sent it: a TACACS passkey past the first 150 characters reached the log and the report in clear
    sim = make_sim(["leaf1"], snmp=False)
    cut = ('{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "platform": "x86_64-mlnx_msn2700-r0"}}, '
           '"TACPLUS": {"global": {"auth_type": "login", "passkey": "Kp9secretTacacsKey"}}, "PORT": {"Ethernet0": {')
    sim.garble("leaf1", "show runningconfiguration all", cut + "\n")
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=0, timeout_s=20))
    (issue,) = result.devices["leaf1"].issues
    assert issue["code"] == "SYS014" and "output is not JSON" in issue["message"], issue
    assert f'"passkey": "{MASK}"' in issue["message"] and "Kp9" not in issue["message"], issue


def test_keyboard_interactive_prompts_are_answered_with_the_password_alone_and_never_loop(make_sim, tmp_path):
    # devices offering keyboard-interactive login alone (RFC 4256), the inventory giving a password: paramiko's
    # fallback answered every one-prompt round with the password whatever it asked (a second factor's `Verification
    # code:` was sent the password, round after round), and asked for the userauth service again, which a strict
    # server answers by disconnecting: each of these devices read as a wrong password (SYS011), leaf2 too
    sim = make_sim(["leaf1", "leaf2", "spine1", "gpu01"], snmp=False)
    sim.ask_at_login("leaf2", ("Password: ",))  # keyboard-interactive asking the password: logs in
    sim.ask_at_login("spine1", ("Password: ", "Verification code: "))  # the password, then a one-time code
    sim.ask_at_login("gpu01", ("Password: ",), loop=True)  # the password asked again and again
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=2, timeout_s=20))
    password = sim.env[sim.devices["spine1"].password_env]
    otp, loop = result.devices["spine1"], result.devices["gpu01"]
    assert otp.code == "SYS011" and otp.attempts == 1, otp
    assert "asked 'Verification code:' at login (keyboard-interactive), which the password does not answer" \
        in otp.message, otp
    assert sim.devices["spine1"].login_answers == [password]  # at its `Password:` prompt; never sent as the code
    assert loop.code == "SYS011" and "asked 'Password:' again after the password was given" in loop.message, loop
    assert sim.devices["gpu01"].login_answers == [password]
    for name in ("leaf1", "leaf2"):
        assert result.devices[name].status == "ok" and (out / f"{name}.capture").exists(), result.devices[name]
    assert password not in otp.message + loop.message


def test_lines_before_the_ssh_version_string_are_bounded_as_openssh_bounds_them(make_sim, tmp_path):
    # RFC 4253 4.2 lets a server send lines before its version string; paramiko reads one of any length 128 bytes at
    # a time into a growing buffer: a 1 MiB line was read and the device "ok", an 8 MiB one held the login for the
    # whole --timeout at 8 s of CPU (quadratic), and within the session budget one could last for ever
    sim = make_sim(["leaf1", "leaf2", "spine1", "gpu01"], snmp=False)
    sim.before_version("spine1", b"x" * (1 << 20) + b"\r\n")
    sim.before_version("leaf2", b"Welcome to the lab\r\nAuthorized use only\r\n")  # a greeting: read as before
    sim.before_version("gpu01", b"Welcome\r\n", every_s=0.5, endless=True)  # a byte every half second, no end
    out = tmp_path / "snap"
    collect.prepare(out)
    result = collect.pull(inventory.load(sim.inventory_path, env=sim.env), out,
                          collect.Options(known_hosts=sim.known_hosts_path, retries=2, timeout_s=6))
    long_line, trickle = result.devices["spine1"], result.devices["gpu01"]
    assert long_line.code == "SYS010" and long_line.attempts == 1, long_line
    assert "sent a line longer than 8192 bytes before its SSH version string" in long_line.message, long_line
    # each byte restarted paramiko's banner timeout: --timeout bounds the login as a whole
    assert trickle.code == "SYS013" and "did not finish within 6 s (--timeout) while logging in" in trickle.message
    for name in ("leaf1", "leaf2"):
        assert result.devices[name].status == "ok" and (out / f"{name}.capture").exists(), result.devices[name]
