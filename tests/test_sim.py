"""The device simulator against real clients: netmiko, napalm and paramiko over SSH, pysnmp over SNMP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import paramiko
import pytest
import yaml
from netmiko import ConnectHandler
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException
from pysnmp.hlapi.v3arch.asyncio import (
    CommunityData,
    ContextData,
    ObjectIdentity,
    ObjectType,
    SnmpEngine,
    UdpTransportTarget,
    UsmUserData,
    get_cmd,
    usmAesCfb128Protocol,
    usmHMACSHAAuthProtocol,
)

from losslessd import inventory
from losslessd.errors import InputError
from losslessd.platforms import PLATFORMS
from losslessd.sim import PASSWORD_ENV, Simulator, load_devices
from losslessd.sim.snmp import sonic_if_indexes
from tests.clirun import losslessd
from tests.peers import FABRIC, ROOT, ssh_params

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"  # SNMPv2-MIB sysUpTime.0 (RFC 3418)
IF_NAME = "1.3.6.1.2.1.31.1.1.1.1"  # IF-MIB ifName (RFC 2863)


def test_fabric_devices_platforms_and_netmiko_types(sim_fabric):
    devices = sim_fabric.devices
    assert {n: d.platform for n, d in devices.items()} == {
        "gpu01": "linux_mlx5", "gpu02": "linux_mlx5", "gpu03": "linux_mlx5", "gpu05": "linux_mlx5",
        "gpu06": "linux_mlx5", "leaf1": "sonic", "leaf2": "arista_eos", "spine1": "arista_eos"}
    for d in devices.values():
        # The pull side's registry connects with the same netmiko device type the simulator was tested with.
        assert PLATFORMS[d.platform].netmiko == d.netmiko_device_type
        assert d.ssh_port and (d.snmp_port is not None) == (d.kind.value == "switch")


@pytest.mark.parametrize("name", ["leaf1", "leaf2", "spine1", "gpu01", "gpu02"])
def test_netmiko_reads_every_recorded_output(sim_fabric, name):
    device = sim_fabric.devices[name]
    with ConnectHandler(**ssh_params(sim_fabric, name)) as conn:
        if device.platform == "arista_eos":
            conn.enable()
            assert conn.find_prompt() == f"{name}#"
        for command, output in device.outputs.items():
            # netmiko drops the newline before the prompt, as it does with any device.
            got = conn.send_command(command)
            if command == "show version | json":  # (the EOS peer adds its live `uptime`, as EOS does)
                got = json.dumps({k: v for k, v in json.loads(got).items() if k != "uptime"}, indent=2)
            assert got == output.rstrip("\n"), command


def test_outputs_come_from_the_fabric_files(sim_fabric):
    leaf1 = (FABRIC / "leaf1" / "config_db.json").read_text()
    assert sim_fabric.devices["leaf1"].outputs == {"show runningconfiguration all": leaf1}
    spine1 = sim_fabric.devices["spine1"].outputs
    assert spine1["show running-config"] == (FABRIC / "spine1.cfg").read_text()
    assert "Software image version: 4.31.2F" in spine1["show version"]  # from the config's `! device:` line
    assert spine1["show lldp neighbors"].count("\n") == 8  # none recorded: an empty table, no invented rows
    assert "Et49/1        spine1                   Ethernet3/1" in sim_fabric.devices["leaf2"].outputs["show lldp neighbors"]
    gpu02 = sim_fabric.devices["gpu02"]
    assert gpu02.outputs["lldpcli show neighbors -f keyvalue"].startswith("lldp.enp65s0f0np0.via=LLDP")  # what pull sends
    assert gpu02.ports == ["enp65s0f0np0"] and gpu02.rdma_devices == ["mlx5_0"]


def test_sonic_folder_parts_are_merged_into_one_config(tmp_path):
    folder = tmp_path / "fab" / "leafx"
    folder.mkdir(parents=True)
    config = {"DEVICE_METADATA": {"localhost": {"hostname": "leafx"}},
              "PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100"}}}
    (folder / "config_db.json").write_text(json.dumps(config))
    (folder / "qos.json").write_text(json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}))
    (folder / "buffers.json").write_text(json.dumps({"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000"}}}))
    # a backup beside them is no part (its PORT was merged over the config's)
    (folder / "config_db.json.bak").write_text(json.dumps({"PORT": {"Ethernet0": {"speed": "40000"}}}))
    merged = json.loads(load_devices(tmp_path / "fab")["leafx"].outputs["show runningconfiguration all"])
    assert merged == {**config, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},
                      "BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000"}}}


def test_cli_prompts_paging_privilege_and_errors(sim_fabric):
    with ConnectHandler(**ssh_params(sim_fabric, "spine1")) as eos:
        eos.exit_enable_mode()
        assert eos.find_prompt() == "spine1>"
        assert eos.send_command("show running-config") == "% Invalid input (privileged mode required)"
        assert eos.send_command("terminal width 511") == "Width set to 511 columns."
        assert eos.send_command("terminal length 0") == "Pagination disabled."
        assert eos.send_command("show frobnicator") == "% Invalid input"
    with ConnectHandler(**ssh_params(sim_fabric, "leaf1")) as sonic:
        assert sonic.find_prompt() == "admin@leaf1:~$"
        assert sonic.send_command("show frobnicator").endswith('Error: No such command "frobnicator".')
    with ConnectHandler(**ssh_params(sim_fabric, "gpu01")) as host:
        assert host.find_prompt() == "root@gpu01:~#"
        assert host.send_command("lspci -vv") == "-bash: lspci: command not found"
        assert host.send_command("cat /sys/class/net/eth9/mtu") == "cat: /sys/class/net/eth9/mtu: No such file or directory"


def test_napalm_eos_over_ssh_gets_the_config(sim_fabric):
    from napalm import get_network_driver

    params = ssh_params(sim_fabric, "leaf2")
    driver = get_network_driver("eos")(params["host"], params["username"], params["password"], optional_args={
        "transport": "ssh", "port": params["port"], "ssh_strict": True, "system_host_keys": False,
        "alt_host_keys": True, "alt_key_file": params["alt_key_file"]})
    driver.open()
    try:
        config = driver.get_config()
    finally:
        driver.close()
    recorded = sim_fabric.devices["leaf2"].outputs["show running-config"].rstrip("\n")
    assert config["running"] == recorded and config["startup"] == recorded


def _paramiko(sim: Simulator, name: str, known_hosts) -> paramiko.SSHClient:
    d = sim.devices[name]
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.load_host_keys(str(known_hosts))
    client.connect(d.host, d.ssh_port, d.username, sim.env[d.password_env], allow_agent=False,
                   look_for_keys=False, timeout=10)
    return client


def test_host_key_is_checked_against_known_hosts(sim_fabric, tmp_path):
    client = _paramiko(sim_fabric, "gpu01", sim_fabric.known_hosts_path)
    try:  # an exec request (`ssh host command`) answers without a prompt
        _, stdout, _ = client.exec_command("cat /sys/class/net/enp65s0f0np0/mtu")
        assert stdout.read().decode() == sim_fabric.devices["gpu01"].outputs["cat /sys/class/net/enp65s0f0np0/mtu"]
    finally:
        client.close()
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(paramiko.SSHException, match="not found in known_hosts"):
        _paramiko(sim_fabric, "gpu01", empty)
    known = sim_fabric.known_hosts_path.read_text().splitlines()
    assert len(known) == len(sim_fabric.devices)
    assert all(re.fullmatch(r"\[127\.0\.0\.1\]:\d+ ssh-ed25519 [A-Za-z0-9+/=]+", line) for line in known)


def test_faults_down_password_host_key_and_garble(make_sim):
    sim = make_sim(["gpu01", "spine1"], snmp=False)
    port = sim.devices["gpu01"].ssh_port
    sim.set_down("gpu01")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with pytest.raises(NetmikoTimeoutException, match="TCP connection to device failed"):
        ConnectHandler(**ssh_params(sim, "gpu01"))
    sim.set_down("gpu01", down=False)  # back on the same port, which the inventory lists
    with ConnectHandler(**ssh_params(sim, "gpu01")) as conn:
        assert conn.find_prompt() == "root@gpu01:~#"

    sim.set_password("gpu01", "changed-by-the-test")
    with pytest.raises(NetmikoAuthenticationException):
        ConnectHandler(**ssh_params(sim, "gpu01"))
    with ConnectHandler(**ssh_params(sim, "gpu01", password="changed-by-the-test")) as conn:
        assert conn.find_prompt() == "root@gpu01:~#"

    sim.replace_host_key("gpu01")
    with pytest.raises(paramiko.BadHostKeyException):
        _paramiko(sim, "gpu01", sim.known_hosts_path)

    command = "show running-config"
    recorded = sim.devices["spine1"].outputs[command]
    sim.garble("spine1", command)
    with ConnectHandler(**ssh_params(sim, "spine1")) as conn:
        conn.enable()
        garbled = conn.send_command(command)
        assert garbled != recorded.rstrip("\n") and recorded.startswith(garbled[:100])
        sim.garble("spine1", command, "% Internal error")
        assert conn.send_command(command) == "% Internal error"
        sim.garble("spine1", command, on=False)
        assert conn.send_command(command) == recorded.rstrip("\n")


def test_inventory_names_secrets_but_holds_none(sim_fabric):
    text = sim_fabric.inventory_path.read_text()
    data = yaml.safe_load(text)
    assert set(data) == {"hosts", "groups", "defaults"}
    leaf1 = data["hosts"]["leaf1"]
    assert leaf1["hostname"] == "127.0.0.1" and leaf1["port"] == sim_fabric.devices["leaf1"].ssh_port
    assert leaf1["platform"] == "sonic" and leaf1["groups"] == ["switch"]
    assert leaf1["data"]["credentials"] == {"username": "admin", "password_env": PASSWORD_ENV}
    assert leaf1["data"]["snmp"] == {"port": sim_fabric.devices["leaf1"].snmp_port, "version": "2c",
                                     "community_env": "LOSSLESSD_SIM_COMMUNITY_LEAF1"}
    assert data["hosts"]["gpu01"]["data"]["interfaces"] == ["enp65s0f0np0"]
    for value in [sim_fabric.env[PASSWORD_ENV]]:
        assert value not in text and value not in sim_fabric.known_hosts_path.read_text()
    # The inventory loads with losslessd's own loader (credentials resolved from the simulator's env).
    hosts = inventory.load(sim_fabric.inventory_path, env=sim_fabric.env).hosts
    assert hosts["spine1"].port == sim_fabric.devices["spine1"].ssh_port
    assert hosts["leaf1"].snmp.community.reveal() == sim_fabric.env["LOSSLESSD_SIM_COMMUNITY_LEAF1"]


# EOS ports of our own (EOS User Manual, "DCBX and Flow Control": `priority-flow-control pause watchdog default timeout
# SECONDS` starts the watchdog on each port whose switch is on, as it is by default)
_EOS_WATCHDOG = ("hostname leaf9\n{timeout}interface Ethernet1\n   mtu 9214\n   speed 100g-4\n   no switchport\n"
                 "   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n")


def test_an_eos_port_whose_watchdog_is_unknown_runs_none_in_the_simulator(tmp_path):
    """With no timeout anywhere the parser reads the watchdog unknown (Watchdog.unknown), where it read off before: the
    simulator took unknown for on and ran SONiC's default timers (0.2 s) on the port, counting storms as an on-box
    watchdog no line of the config starts. A global timeout still runs it, with that detection time."""
    fab = tmp_path / "fab"
    fab.mkdir()
    (fab / "leaf9.cfg").write_text(_EOS_WATCHDOG.format(timeout=""))
    assert load_devices(fab)["leaf9"].watchdog == {}
    (fab / "leaf9.cfg").write_text(_EOS_WATCHDOG.format(
        timeout="priority-flow-control pause watchdog default timeout 0.5\n"))
    assert load_devices(fab)["leaf9"].watchdog == {"Ethernet1": (0.5, 0.2)}  # (restoration: SONiC's default)


def test_unknown_device_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match=r"no device leaf9 .*\(it has: gpu01, gpu02"):
        Simulator(FABRIC, tmp_path, devices=["leaf9"])


def test_sim_command_refuses_an_out_that_is_a_file_and_a_fabric_that_is_not_there(tmp_path):
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    res = losslessd("sim", "--fabric", FABRIC, "--out", taken)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == f"losslessd: error: {taken}: exists and is not a folder: the simulator writes its " \
                         "inventory, known_hosts, host key and SNMP data into a folder\n"
    assert taken.read_text() == "mine\n"
    res = losslessd("sim", "--fabric", tmp_path / "no-fabric", "--out", tmp_path / "sim")
    assert res.returncode == 2 and res.stderr == f"losslessd: error: {tmp_path / 'no-fabric'}: no such file or folder\n"


def _snmp_get(port: int, auth, context: str, *oids: str, timeout: float = 5) -> tuple[object, dict[str, object]]:
    """(error indication, {oid: value}) of one SNMP GET."""
    async def get():
        engine = SnmpEngine()
        try:
            target = await UdpTransportTarget.create(("127.0.0.1", port), timeout=timeout, retries=0)
            error, status, _, var_binds = await get_cmd(engine, auth, target, ContextData(contextName=context),
                                                        *(ObjectType(ObjectIdentity(o)) for o in oids), lookupMib=False)
        finally:
            engine.close_dispatcher()
        assert not status, status
        return error, {str(name): value for name, value in var_binds}

    return asyncio.run(get())


def test_snmp_v2c_agent_answers_sysuptime_and_ifname(sim_fabric):
    leaf1 = sim_fabric.devices["leaf1"]
    index = sonic_if_indexes(leaf1.ports)["Ethernet48"]
    community = CommunityData(sim_fabric.env[leaf1.snmp_community_env])
    error, found = _snmp_get(leaf1.snmp_port, community, "", SYS_UPTIME, f"{IF_NAME}.{index}")
    assert error is None
    assert int(found[SYS_UPTIME]) > 0
    assert found[f"{IF_NAME}.{index}"].asOctets() == b"Ethernet48"


def test_snmp_agent_serves_each_ports_config_speed_as_if_high_speed(make_sim):
    """The simulator served no ifHighSpeed, which a switch's agent serves (IF-MIB ifXTable, Gauge32, Mb/s; SONiC's
    sonic-snmpagent from the port's configured speed): the daemon's line-rate bounds went unexercised against it. Now
    each port's speed from its config (leaf1's CONFIG_DB PORT speed "100000"), and set_speed renegotiates one."""
    from losslessd.counters_oids import IF_HIGH_SPEED

    sim = make_sim(["leaf1"], ssh=False)
    leaf1 = sim.devices["leaf1"]
    index = sonic_if_indexes(leaf1.ports)["Ethernet48"]
    community = CommunityData(sim.env[leaf1.snmp_community_env])
    oid = f"{IF_HIGH_SPEED}.{index}"
    error, found = _snmp_get(leaf1.snmp_port, community, "", oid)
    assert error is None and type(found[oid]).__name__ == "Gauge32" and int(found[oid]) == 100_000
    sim.set_speed("leaf1", "Ethernet48", 400_000)
    error, found = _snmp_get(leaf1.snmp_port, community, "", oid)
    assert error is None and int(found[oid]) == 400_000


def test_snmp_v3_authpriv_agent_and_down(make_sim):
    sim = make_sim(["spine1"], ssh=False, snmp_v3=True)
    spine1 = sim.devices["spine1"]
    entry = yaml.safe_load(sim.inventory_path.read_text())["hosts"]["spine1"]["data"]["snmp"]
    assert entry["version"] == "3" and entry["context"] == spine1.snmp_context
    user = UsmUserData(entry["user"], sim.env[entry["auth_key_env"]], sim.env[entry["priv_key_env"]],
                       authProtocol=usmHMACSHAAuthProtocol, privProtocol=usmAesCfb128Protocol)
    index = sonic_if_indexes(spine1.ports)["Ethernet1/1"]
    error, found = _snmp_get(spine1.snmp_port, user, spine1.snmp_context, f"{IF_NAME}.{index}")
    assert error is None and found[f"{IF_NAME}.{index}"].asOctets() == b"Ethernet1/1"
    sim.set_down("spine1")
    error, _ = _snmp_get(spine1.snmp_port, user, spine1.snmp_context, SYS_UPTIME, timeout=1)
    assert "timed out" in str(error).lower() or "no snmp response" in str(error).lower(), error


@contextlib.contextmanager
def _serving_sim(*args: str) -> Iterator[list[str]]:
    """`losslessd sim *args` run until it prints "Serving": yields the lines it printed so far, then stops it as an
    operator does (SIGTERM) and checks it exits 0 saying so."""
    proc = subprocess.Popen([sys.executable, "-m", "losslessd", "sim", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        printed: list[str] = []
        for line in proc.stdout:
            printed.append(line.rstrip("\n"))
            if line.startswith("Serving"):
                break
        yield printed
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert rest.strip().endswith("simulator stopped")


@pytest.mark.slow
def test_losslessd_sim_command_serves_until_sigterm(tmp_path):
    out = tmp_path / "out"
    with _serving_sim("--fabric", str(FABRIC), "--out", str(out), "--no-snmp", "--device", "gpu01") as printed:
        text = "\n".join(printed)
        assert f"inventory:   {out / 'inventory.yaml'}" in text and f"known_hosts: {out / 'known_hosts'}" in text
        password = re.search(rf"^export {PASSWORD_ENV}=(\S+)$", text, re.MULTILINE).group(1)
        hosts = inventory.load(out / "inventory.yaml", env={PASSWORD_ENV: password}).hosts
        port = hosts["gpu01"].port
        with ConnectHandler(device_type="linux", host="127.0.0.1", port=port, username="root", password=password,
                            ssh_strict=True, system_host_keys=False, alt_host_keys=True,
                            alt_key_file=str(out / "known_hosts")) as conn:
            assert conn.send_command("cat /sys/class/net/enp65s0f0np0/mtu") == "9000"
            # live counters by default: what `losslessd daemon` polls over SSH answers out of the box
            assert conn.send_command("ethtool -S enp65s0f0np0").startswith("NIC statistics:")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert password not in (out / "inventory.yaml").read_text()
    assert os.stat(out / "ssh_host_ed25519_key").st_mode & 0o077 == 0


def test_sim_bench_reads_the_ecn_of_the_queue_the_maps_put_the_priority_on(tmp_path):
    """leaf1 with TC 3 on queue 4 and queue 4 marking at UPLINK_LOSSLESS (Kmin 6291456 B): the benchmark models
    priority 3 with queue 4's thresholds, as the daemon's ECN detector reads queue 4's marks. It read queue 3's (the
    queue numbered like the priority, ROCE_LOSSLESS, Kmin 153600 B), which carries no priority-3 traffic here."""
    from losslessd.sim.bench import port_settings
    from tests.peers import swapped_leaf1

    path = swapped_leaf1(tmp_path, tables=("TC_TO_QUEUE_MAP",)) / "leaf1" / "config_db.json"
    db = json.loads(path.read_text())
    db["QUEUE"]["Ethernet0|4"]["wred_profile"] = "UPLINK_LOSSLESS"  # (the form leaf1's release, 202211, takes)
    settings = port_settings("sonic", "leaf1", json.dumps(db), "Ethernet0", 3, 8)
    assert (settings.kmin_bytes, settings.kmax_bytes) == (6291456, 16777216)
    del db["TC_TO_QUEUE_MAP"]
    db["PORT_QOS_MAP"]["Ethernet0"].pop("tc_to_queue_map")
    with pytest.raises(InputError, match="which egress queue carries priority 3 is unknown"):
        port_settings("sonic", "leaf1", json.dumps(db), "Ethernet0", 3, 8)


def test_sim_bench_names_a_host_given_as_the_bottleneck_switch(tmp_path):
    """`sim-bench --device gpu01` (a host of the simulator's inventory) is refused naming what the host is and what
    --device takes, before any login: it logged in, read the host's answer to a switch's config command and said the
    output was "neither a losslessd capture, `mlnx_qos -i IF` ... nor a host setup script"."""
    (tmp_path / "inventory.yaml").write_text(yaml.safe_dump({"hosts": {"gpu01": {
        "hostname": "127.0.0.1", "port": 9, "platform": "linux_mlx5",
        "data": {"credentials": {"username": "root", "password_env": "SIM_BENCH_TEST_PASSWORD"},
                 "interfaces": ["enp65s0f0np0"]}}}}))
    res = losslessd("sim-bench", "--inventory", "inventory.yaml", "--device", "gpu01", "--port", "enp65s0f0np0",
                    "--insecure-no-host-key-check", cwd=tmp_path, env={"SIM_BENCH_TEST_PASSWORD": "x"})
    assert res.returncode == 2, res.stderr
    assert res.stderr.splitlines()[-1] == ("losslessd: error: gpu01 is a host (linux_mlx5): --device names the switch "
                                           "whose port is the bottleneck")


@pytest.mark.slow
def test_docs_simulator_listing_is_what_losslessd_sim_prints(tmp_path):
    """docs/simulator.md's `$ losslessd sim --fabric examples/fabric --out /tmp/sim` excerpt is what the command prints,
    in order (less its `...`): the ports it happened to get and the secrets' values are matched by form only."""
    text = (ROOT / "docs" / "simulator.md").read_text(encoding="utf-8")
    block = re.search(r"^```\n\$ losslessd sim --fabric examples/fabric --out /tmp/sim\n(.*?)^```", text, re.M | re.S)
    assert block, "docs/simulator.md no longer shows what `losslessd sim` prints"
    out = tmp_path / "sim"
    forms = []
    for line in block.group(1).splitlines():
        if line.strip() == "...":
            continue
        form = re.escape(line.replace("/tmp/sim", str(out)))
        form = re.sub(r"127\\\.0\\\.0\\\.1:\d+", r"127\.0\.0\.1:\\d+", form)
        forms.append(re.compile(re.sub(r"udp/\d+", r"udp/\\d+", form).replace(r"=\.\.\.", "=\\S+")))
    with _serving_sim("--fabric", "examples/fabric", "--out", str(out)) as printed:
        pass
    position = 0
    for form in forms:
        found = next((k for k in range(position, len(printed)) if form.fullmatch(printed[k])), None)
        assert found is not None, (f"docs/simulator.md shows a line `losslessd sim` does not print here: "
                                   f"{form.pattern}\n" + "\n".join(printed))
        position = found + 1


@pytest.mark.parametrize("present", ["inventory.yaml", "known_hosts", "ssh_host_ed25519_key"])
def test_sim_never_writes_over_files_it_did_not_write(tmp_path, present):
    """`sim --out` a folder holding the user's inventory.yaml (or known_hosts, or a host key) replaced it without a
    word; now refused naming it, the file as it was. A folder an earlier simulator wrote is written again."""
    mine = tmp_path / present
    mine.write_text("hosts: {leaf1: {hostname: 10.0.0.1, platform: sonic}}\n")
    sim = Simulator(FABRIC, tmp_path, ssh=False, snmp=False, devices=["leaf1"])
    with pytest.raises(InputError, match=rf"--out holds {present}, which the simulator did not write"):
        sim.start()
    assert mine.read_text() == "hosts: {leaf1: {hostname: 10.0.0.1, platform: sonic}}\n"
    again = tmp_path / "again"
    for _ in range(2):
        with Simulator(FABRIC, again, ssh=False, snmp=False, devices=["leaf1"]):
            pass
    assert yaml.safe_load((again / "inventory.yaml").read_text())["hosts"].keys() == {"leaf1"}


def test_a_sim_that_failed_to_start_leaves_a_folder_the_next_one_takes(tmp_path):
    """A start that failed after the SSH side wrote the host key and known_hosts (here: the SNMP side cannot make its
    folder) left them without the inventory marking the folder as the simulator's; the next `sim --out` there was
    refused ("holds known_hosts, ssh_host_ed25519_key, which the simulator did not write")."""
    (tmp_path / "snmp").write_text("a file where the SNMP side makes its folder\n")
    with pytest.raises(OSError):
        Simulator(FABRIC, tmp_path, devices=["leaf1"]).start()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snmp"]  # (the private host key not left behind either)
    (tmp_path / "snmp").unlink()
    with Simulator(FABRIC, tmp_path, snmp=False, devices=["leaf1"]) as sim:
        assert sim.known_hosts_path.is_file()


def test_a_failed_start_without_gnmi_leaves_the_users_gnmi_ca_file(tmp_path):
    """A start without gNMI takes a folder holding a gnmi-ca.pem of the user's (it writes none there), but when it
    failed it deleted that file with the host key and known_hosts it had written: it removes only what it wrote."""
    (tmp_path / "snmp").write_text("a file where the SNMP side makes its folder\n")
    (tmp_path / "gnmi-ca.pem").write_text("the user's own CA\n")
    with pytest.raises(OSError):
        Simulator(FABRIC, tmp_path, devices=["leaf1"]).start()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gnmi-ca.pem", "snmp"]
    assert (tmp_path / "gnmi-ca.pem").read_text() == "the user's own CA\n"


def test_sim_out_inside_the_fabric_is_refused(tmp_path):
    """`sim --fabric F --out F/leaf1` wrote the simulator's inventory, known_hosts and key among the devices' files,
    where the next `lint F` reads them; refused, exit 2, nothing written."""
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    (fabric / "spine1.cfg").write_bytes((FABRIC / "spine1.cfg").read_bytes())
    for out in (fabric, fabric / "sub"):
        res = losslessd("sim", "--fabric", fabric, "--out", out, "--no-snmp")
        assert res.returncode == 2 and "--out is inside --fabric" in res.stderr, res.stderr
    assert sorted(p.name for p in fabric.iterdir()) == ["spine1.cfg"]
