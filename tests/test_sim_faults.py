"""The simulator's counter faults over real SNMP (snmpsim) and SSH (netmiko): storms with and without
ECN marking, the on-box watchdog, a counter reset, a 32-bit wrap, a slow agent, garbage answers and
many devices in one agent process. What the daemon's tests rely on the simulator to do."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest
from netmiko import ConnectHandler

from losslessd import counters_oids as oids
from losslessd.collect.snmp import SnmpSample, SnmpTarget, SnmpTimeout
from losslessd.monitor import (
    ECN_MARKED,
    LINK_PAUSE_RX,
    LINK_PAUSE_TX,
    PAUSE_DURATION_US,
    PAUSE_STORM_ERRORS,
    PAUSE_STORM_WARNINGS,
    PFC_RX,
    RX_BUFFER_DISCARDS,
    RX_DISCARDS,
    TX_PACKETS,
    WD_RESTORED,
    WD_STORMS,
    Key,
)
from losslessd.monitor.sources import counter_commands, reading_from_commands, reading_from_snmp
from losslessd.sim import Simulator, load_devices
from losslessd.sim.counters import ECN_PER_PAUSE, STORM_PAUSE_PER_S, Traffic, ethtool_stats, pause_stats
from losslessd.sim.fleet import write_fleet
from losslessd.sim.snmpsim_variation.lossless import GARBAGE, on_seconds, watchdog
from tests.daemonproc import wait_for
from tests.peers import FABRIC, ssh_params, swapped_leaf1

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Tests share it, each switching its faults off again: leaf1 (SONiC) and gpu01 storm, leaf2 (EOS)
    and gpu01 restart, spine1 (EOS) is slow or talks garbage."""
    s = Simulator(FABRIC, tmp_path_factory.mktemp("sim-faults"), devices=["leaf1", "leaf2", "spine1", "gpu01"],
                  live_counters=True).start()
    yield s
    s.stop()


def target(sim: Simulator, name: str, **kw) -> SnmpTarget:
    d = sim.devices[name]
    return SnmpTarget(device=name, host=d.host, port=d.snmp_port, community=sim.env[d.snmp_community_env], **kw)


def commands(sim: Simulator, name: str):
    """The daemon's counter commands, sent over SSH and parsed by its own parser."""
    d = sim.devices[name]
    cmds = counter_commands(d.platform, d.ports)
    with ConnectHandler(**ssh_params(sim, name)) as conn:
        outputs = {c: conn.send_command(c) for c in cmds}
    return reading_from_commands(name, d.platform, outputs, time.monotonic(), time.time()).values


def prio(sample: SnmpSample, port: str, p: int):
    return next(x for x in sample.priorities if x.port == port and x.priority == p)


def pause_rate(s1: SnmpSample, s2: SnmpSample, port: str, p: int) -> float:
    """PFC indications a second on ``port`` priority ``p`` between two polls."""
    return (prio(s2, port, p).pfc_indications - prio(s1, port, p).pfc_indications) / (s2.monotonic_s - s1.monotonic_s)


def test_storm_shows_in_snmp_pfcwd_and_flat_ecn_marks(sim, run, poller):
    before = commands(sim, "leaf1")
    sim.storm("leaf1", "Ethernet4", 3)
    try:
        s1 = run(poller.poll(target(sim, "leaf1")))
        # the port's watchdog counts the storm once it lasted its detection time (200 ms in its PFC_WD)
        during = wait_for(lambda: (c := commands(sim, "leaf1")).get(Key("Ethernet4", WD_STORMS, 3)) and c,
                          "the on-box watchdog to detect the storm")
        s2 = run(poller.poll(target(sim, "leaf1")))
        later = commands(sim, "leaf1")
    finally:
        sim.storm("leaf1", "Ethernet4", 3, on=False)
    assert pause_rate(s1, s2, "Ethernet4", 3) > STORM_PAUSE_PER_S / 2
    assert during[Key("Ethernet4", WD_STORMS, 3)] == 1 and during[Key("Ethernet4", WD_RESTORED, 3)] == 0
    assert before[Key("Ethernet4", WD_STORMS, 3)] == 0  # `show pfcwd stats -e` shows queues that counted nothing
    # PFC doing ECN's job: the stormed queue marks nothing, the others go on marking.
    assert later[Key("Ethernet4", ECN_MARKED, 3)] == during[Key("Ethernet4", ECN_MARKED, 3)]
    assert later[Key("Ethernet0", ECN_MARKED, 3)] > during[Key("Ethernet0", ECN_MARKED, 3)]
    after = wait_for(lambda: (c := commands(sim, "leaf1")).get(Key("Ethernet4", WD_RESTORED, 3)) and c,
                     "the on-box watchdog to restore the queue (400 ms after the storm)")
    assert after[Key("Ethernet4", WD_STORMS, 3)] == after[Key("Ethernet4", WD_RESTORED, 3)] == 1
    assert after[Key("Ethernet4", ECN_MARKED, 3)] > later[Key("Ethernet4", ECN_MARKED, 3)]  # marking again


def test_ecn_healthy_storm_marks_with_the_pauses(sim):
    sim.storm("leaf1", "Ethernet8", 4, ecn_healthy=True)
    try:
        first = commands(sim, "leaf1")
        t = time.monotonic()
        time.sleep(0.5)  # a measurement window (at least 0.5 s; longer on a loaded machine only adds to it)
        # timed before the second read starts: the counters were read within the calls, so the window between
        # the two reads is at least this long (timing to the call's end counted its SSH round trips too)
        elapsed = time.monotonic() - t
        second = commands(sim, "leaf1")
    finally:
        sim.storm("leaf1", "Ethernet8", 4, on=False)
    marks = second[Key("Ethernet8", ECN_MARKED, 4)] - first[Key("Ethernet8", ECN_MARKED, 4)]
    assert marks >= 0.5 * ECN_PER_PAUSE * STORM_PAUSE_PER_S * elapsed


def test_congestion_pauses_while_the_queue_drains_and_no_watchdog_acts(sim, run, poller):
    """Congestion: the pauses of a storm, but the queue keeps sending, so the on-box watchdog stays quiet and
    the ECN marks stay flat ("PFC doing ECN's job")."""
    before = commands(sim, "leaf1")
    sim.congest("leaf1", "Ethernet4", 3)
    try:
        s1 = run(poller.poll(target(sim, "leaf1")))
        first = commands(sim, "leaf1")
        time.sleep(0.5)  # a measurement window (at least 0.5 s; longer on a loaded machine only adds to it)
        s2 = run(poller.poll(target(sim, "leaf1")))
        second = commands(sim, "leaf1")
    finally:
        sim.congest("leaf1", "Ethernet4", 3, on=False)
    assert pause_rate(s1, s2, "Ethernet4", 3) > STORM_PAUSE_PER_S / 2
    queue = lambda sample: next(q for q in sample.queues if q.port == "Ethernet4" and q.queue == 3)  # noqa: E731
    assert queue(s2).tx_packets > queue(s1).tx_packets  # it drains
    storms = Key("Ethernet4", WD_STORMS, 3)
    assert second.get(storms, 0) == before.get(storms, 0)  # no storm for the watchdog (the port's watchdog is on)
    assert second[Key("Ethernet4", ECN_MARKED, 3)] == first[Key("Ethernet4", ECN_MARKED, 3)]


def test_host_storm_in_ethtool_and_rdma_counters(sim):
    port = "enp65s0f0np0"
    sim.storm("gpu01", port, 3)
    try:
        during = commands(sim, "gpu01")
        time.sleep(0.5)  # a measurement window (at least 0.5 s; longer on a loaded machine only adds to it)
        later = commands(sim, "gpu01")
    finally:
        sim.storm("gpu01", port, 3, on=False)
    # Over the window (at least 0.5 s of storm at STORM_PAUSE_PER_S), half the rate is a wide margin.
    assert later[Key(port, PFC_RX, 3)] - during[Key(port, PFC_RX, 3)] > STORM_PAUSE_PER_S * 0.25
    assert later[Key(port, PAUSE_DURATION_US, 3)] - during[Key(port, PAUSE_DURATION_US, 3)] > 250_000
    assert later[Key(port, TX_PACKETS, 3)] == during[Key(port, TX_PACKETS, 3)]  # paused: sends nothing
    assert later[Key(port, ECN_MARKED)] == during[Key(port, ECN_MARKED)]  # no marks: PFC doing ECN's job
    assert later[Key(port, TX_PACKETS, 4)] > during[Key(port, TX_PACKETS, 4)]


def test_reset_sends_uptime_and_counters_back(sim, run, poller):
    sim.storm("leaf2", "Ethernet1", 3)
    s1 = run(poller.poll(target(sim, "leaf2")))
    ssh1 = commands(sim, "gpu01")
    sim.reset_counters("leaf2")
    sim.reset_counters("gpu01")
    try:
        s2 = run(poller.poll(target(sim, "leaf2")))
        ssh2 = commands(sim, "gpu01")
    finally:
        sim.storm("leaf2", "Ethernet1", 3, on=False)
    assert s2.sys_uptime_ticks < 500 < s1.sys_uptime_ticks  # restarted within the last few seconds
    assert all(b.in_octets < a.in_octets for a, b in zip(s1.ports, s2.ports, strict=True))
    assert all(b.pfc_indications < a.pfc_indications for a, b in zip(s1.priorities, s2.priorities, strict=True))
    assert all(ssh2[k] < v for k, v in ssh1.items() if v > 1000)  # the host's counters too
    # The storm goes on after the restart and is counted again from it.
    assert prio(s2, "Ethernet1", 3).pfc_indications > 0



def test_a_syncd_restart_zeroes_the_counters_while_sysuptime_goes_on(sim, run, poller):
    """Simulator.syncd_restart, the fault a SONiC syncd restart or `config reload` is: the counters served over SNMP
    and by the SSH counter commands start again from zero, and sysUpTime does not (snmpd kept running)."""
    s1 = run(poller.poll(target(sim, "leaf1")))
    ssh1 = commands(sim, "leaf1")
    sim.syncd_restart("leaf1")
    s2 = run(poller.poll(target(sim, "leaf1")))
    ssh2 = commands(sim, "leaf1")
    assert s2.sys_uptime_ticks > s1.sys_uptime_ticks
    assert all(b.in_octets < a.in_octets for a, b in zip(s1.ports, s2.ports, strict=True))
    big = {k: v for k, v in ssh1.items() if v > 1000}
    assert big and all(ssh2[k] < v for k, v in big.items())

def test_an_eos_agent_serves_aristas_pfc_table_and_a_storm_shows_in_it(sim, run, poller):
    """Arista EOS serves ARISTA-PFC-MIB aristaPfcPriorityTable (ifIndex.priority, requests sent and indications
    received), not CISCO-PFC-EXT-MIB or CISCO-SWITCH-QOS-MIB: the simulator served the Cisco tables for every
    switch, so the poller's reading of EOS's own table was never exercised against an agent."""
    s1 = run(poller.poll(target(sim, "leaf2")))
    assert not any(oid.startswith("1.3.6.1.4.1.9.9.") for oid in s1.raw)  # ciscoMgmt: none of Cisco's MIBs
    ports = sim.devices["leaf2"].ports
    assert {(p.port, p.priority) for p in s1.priorities} == {(port, q) for port in ports for q in range(8)}
    assert all(p.pfc_requests is not None and p.pfc_indications is not None for p in s1.priorities)
    index = sim.devices["leaf2"].if_indexes["Ethernet1"]
    assert s1.raw[f"{oids.ARISTA_PFC_PRIO_INDICATIONS}.{index}.3"] == prio(s1, "Ethernet1", 3).pfc_indications
    sim.storm("leaf2", "Ethernet1", 3)
    began = time.monotonic()  # no earlier than the storm's start: s1's stamp is, by however long storm() took
    try:
        s2 = wait_for(lambda: (s := run(poller.poll(target(sim, "leaf2")))).monotonic_s > began + 0.5 and s,
                      "a poll half a second after the storm began")
    finally:
        sim.storm("leaf2", "Ethernet1", 3, on=False)
    r1, r2 = reading_from_snmp(s1), reading_from_snmp(s2)
    assert r2.values[Key("Ethernet1", PFC_RX, 3)] - r1.values[Key("Ethernet1", PFC_RX, 3)] > STORM_PAUSE_PER_S * 0.25
    assert Key("Ethernet1", TX_PACKETS, 3) not in r2.values  # EOS's queue counters come over gNMI


def test_counter32_wraps_when_told(tmp_path, run, poller):
    with Simulator(FABRIC, tmp_path, devices=["spine1"], ssh=False, wrap32_after_s=3600) as sim:
        s1 = run(poller.poll(target(sim, "spine1")))  # just below 2^32 since the start
        sim.wrap32("spine1", 0.5)
        wrap_at = sim.devices["spine1"].traffic.wrap_at
        s2 = s1
        while s2.time_unix_s <= wrap_at:  # counted polls up to the first one past the wrap
            assert s2.time_unix_s < wrap_at + 60, "no poll after the wrap"
            s2 = run(poller.poll(target(sim, "spine1")))
    assert s1.time_unix_s < wrap_at < s2.time_unix_s
    assert s1.ports  # (a poll without ports would check nothing below)
    for a, b in zip(s1.ports, s2.ports, strict=True):
        assert a.in_discards > 2**32 - 2000 and b.in_discards < 100  # went back by almost 2^32 ...
        assert 0 <= (b.in_discards - a.in_discards) % 2**32 < 2000  # ... by a few discards modulo 2^32
        assert b.in_octets > a.in_octets  # Counter64 columns go on


def test_slow_agent_delays_each_poll_and_ssh_output(sim, run, poller):
    sim.set_slow("spine1", 0.3)
    try:
        slow = run(poller.poll(target(sim, "spine1", timeout_s=2.0)))
        with pytest.raises(SnmpTimeout):  # slower than the poller waits
            run(poller.poll(target(sim, "spine1", timeout_s=0.1, retries=0)))
        with ConnectHandler(**ssh_params(sim, "spine1")) as conn:
            t = time.monotonic()
            conn.send_command("show version")
            ssh_s = time.monotonic() - t
    finally:
        sim.set_slow("spine1", 0)
    assert slow.duration_s >= 0.3 and slow.ports  # slow, yet complete
    assert ssh_s >= 0.3
    # the timed-out request is still answered, late; a poll that waits long enough gets its own answer
    assert run(poller.poll(target(sim, "spine1", timeout_s=5.0))).ports


def test_garbage_answers_are_not_counters(sim, run, poller):
    sim.set_garbage("spine1")
    sim.set_garbage("leaf1")
    try:
        s = run(poller.poll(target(sim, "spine1")))
        with pytest.raises(ValueError, match="leaf1: `show (pfcwd stats -e|queue wredcounters)`"):
            commands(sim, "leaf1")
    finally:
        sim.set_garbage("spine1", on=False)
        sim.set_garbage("leaf1", on=False)
    assert s.sys_uptime_ticks > 0 and [p.port for p in s.ports] == sim.devices["spine1"].ports
    assert all(p.in_octets is None and p.pfc_indications is None for p in s.ports)
    assert GARBAGE in s.raw.values()
    assert commands(sim, "leaf1")  # parses again
    assert run(poller.poll(target(sim, "spine1"))).ports[0].in_octets is not None


def test_many_devices_share_one_agent_process(tmp_path, run, poller):
    names = write_fleet(FABRIC / "leaf1" / "config_db.json", tmp_path / "fleet", 3, ports=4)
    assert {n: len(d.ports) for n, d in load_devices(tmp_path / "fleet").items()} == dict.fromkeys(names, 4)
    with Simulator(tmp_path / "fleet", tmp_path / "sim", snmp_shared=True) as sim:
        assert len({d.snmp_port for d in sim.devices.values()}) == 1
        procs = {a.proc.pid for a in sim._agents._agents.values()}
        assert len(procs) == 1
        with pytest.raises(ValueError, match="process per device"):
            sim.set_slow("sw001", 1)
        sim.storm("sw002", "Ethernet4", 3)
        sim.set_down("sw003")
        results = run(poller.poll_many([target(sim, n, timeout_s=0.5 if n == "sw003" else 5, retries=0)
                                        for n in names]))
        assert isinstance(results["sw003"], SnmpTimeout)
        sim.set_down("sw003", down=False)
        assert isinstance(run(poller.poll(target(sim, "sw003"))), SnmpSample)
        again = run(poller.poll_many([target(sim, n) for n in names[:2]]))

    def rate(name):
        return pause_rate(results[name], again[name], "Ethernet4", 3)

    assert [p.port for p in again["sw002"].ports] == ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]
    assert rate("sw002") > STORM_PAUSE_PER_S / 2 > rate("sw001")  # each device has its own state


def test_fleet_ports_copy_the_first_port_of_the_template(tmp_path):
    write_fleet(FABRIC / "leaf1" / "config_db.json", tmp_path, 1, ports=64)
    config = json.loads((tmp_path / "sw001" / "config_db.json").read_text())
    device = load_devices(tmp_path)["sw001"]
    assert config["DEVICE_METADATA"]["localhost"]["hostname"] == "sw001" and "DEVICE_NEIGHBOR" not in config
    assert device.ports[-1] == "Ethernet252" and len(device.ports) == 64
    assert set(device.watchdog) == set(device.ports) and device.watchdog["Ethernet252"] == (0.2, 0.4)
    assert device.lossless["Ethernet100"] == [3]


def test_watchdog_counts_after_detection_and_restores_after_the_storm():
    traffic = Traffic(t0=0.0)
    traffic.storm("1.3", now=10.0)
    traffic.storm("1.3", on=False, now=20.0)
    traffic.storm("1.3", now=30.0)
    traffic.storm("1.3", on=False, now=30.1)  # shorter than the detection time: never detected
    state = traffic.snapshot()
    assert watchdog(state, "1.3", 10.1, 0.2, 0.4) == (0, 0, False, 0.0)
    assert watchdog(state, "1.3", 15.0, 0.2, 0.4)[:3] == (1, 0, True)
    assert watchdog(state, "1.3", 20.3, 0.2, 0.4)[:3] == (1, 0, True)  # restoration time not yet over
    detected, restored, stormed, stormed_s = watchdog(state, "1.3", 40.0, 0.2, 0.4)
    assert (detected, restored, stormed) == (1, 1, False) and stormed_s == pytest.approx(10.2)
    assert on_seconds(state, "1", 40.0) == pytest.approx(10.1)  # a port key sums its priorities
    traffic.reset(now=15.0)
    state = traffic.snapshot()
    assert on_seconds(state, "1.3", 40.0) == pytest.approx(5.1)  # storms count from the restart
    assert watchdog(state, "1.3", 40.0, 0.2, 0.4)[:2] == (1, 1)


def test_a_stalled_nic_counts_a_warning_then_an_error_once_per_stall():
    """mlx5 at its automatic setting (en_ethtool.c): the warning watermark is max(80 ms, 85 % of the 100 ms
    timeout), the error the timeout itself. Read back through the daemon's own ethtool parser."""
    host = SimpleNamespace(name="gpu09", if_indexes={"ens1f0np0": 1}, lossless={"ens1f0np0": [3]},
                           traffic=Traffic(t0=0.0))

    def counts(now: float) -> tuple[int, int]:
        values = reading_from_commands("gpu09", "linux_mlx5", {
            "ethtool -S ens1f0np0": ethtool_stats(host, "ens1f0np0", now)}, now, now).values
        return values[Key("ens1f0np0", PAUSE_STORM_WARNINGS)], values[Key("ens1f0np0", PAUSE_STORM_ERRORS)]

    host.traffic.stall("ens1f0np0", now=10.0)
    assert counts(10.084) == (0, 0) and counts(10.086) == (1, 0) and counts(10.101) == (1, 1)
    host.traffic.stall("ens1f0np0", on=False, now=12.0)
    assert counts(20.0) == (1, 1)  # once per stall, however long it lasted
    host.traffic.stall("ens1f0np0", now=30.0)
    host.traffic.stall("ens1f0np0", on=False, now=30.09)  # past the warning watermark, short of the timeout
    assert counts(40.0) == (2, 1)
    # the kernel's standard pause storm events (`ethtool -I -a`) count the same stalls that reached the timeout
    standard = reading_from_commands("gpu09", "linux_mlx5", {"ethtool -I -a ens1f0np0": pause_stats(
        host, "ens1f0np0", 40.0)}, 40.0, 40.0).values
    assert standard == {Key("ens1f0np0", PAUSE_STORM_ERRORS): 1, Key("ens1f0np0", LINK_PAUSE_RX): 0,
                        Key("ens1f0np0", LINK_PAUSE_TX): 0}


@pytest.mark.parametrize(("tables", "stuck"), [(("TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"), 4),
                                                (("TC_TO_QUEUE_MAP",), 3)])
def test_the_snmp_queue_a_storm_stops_is_the_one_the_devices_pause_map_stops(tmp_path, tables, stuck):
    """The SNMP agent's queue transmit counts stop with the priority whose pause stops the queue (SONiC
    MAP_PFC_PRIORITY_TO_QUEUE): with both maps 3 <-> 4 a storm on priority 3 stops queue 4 and queue 3 goes with
    priority 4; with TC_TO_QUEUE_MAP alone swapped the pause still stops queue 3. Read from the agent's data file
    (snmprec), whose `stop=` key names the storm that stops each counter."""
    from losslessd.sim.counters import stopped_by
    from losslessd.sim.snmp import snmprec

    device = load_devices(swapped_leaf1(tmp_path, tables=tables))["leaf1"]
    text = snmprec("leaf1", device.if_indexes, range(8), "sonic", {p: stopped_by(device, p) for p in device.ports})
    idx = device.if_indexes["Ethernet0"]

    def stop(q: int) -> str:  # queue q is qos-group row q + 1
        oid = f"{oids.CSQ_QOS_GROUP_STATS}.{idx}.{oids.CSQ_EGRESS}.{q + 1}.{oids.CSQ_UCAST_PACKETS}|"
        [line] = [x for x in text.splitlines() if x.startswith(oid)]
        return line.rsplit("stop=", 1)[1]

    assert stop(stuck) == f"{idx}.3"  # priority 3's storm stops it
    assert stop(7 - stuck) == f"{idx}.4"  # the other of queues 3 and 4 goes with priority 4


def test_the_nic_serves_its_per_priority_discards_and_a_workloads_drops_move_them():
    """The simulator's mlx5 `ethtool -S` served neither receive-discard counter (rx_prio<p>_buf_discard, and
    rx_prio<p>_discards of Linux 5.6, commit 827a8cb2 "net/mlx5e: Add discard counters per priority"), so no SSH test
    could see a host drop a lossless priority. Both are served, flat until a workload's drops are credited to the
    priority, and the daemon's own parser reads them."""
    host = SimpleNamespace(name="gpu09", if_indexes={"ens1f0np0": 1}, lossless={"ens1f0np0": [3]},
                           traffic=Traffic(t0=0.0))

    def discards(now: float) -> dict:
        values = reading_from_commands("gpu09", "linux_mlx5", {
            "ethtool -S ens1f0np0": ethtool_stats(host, "ens1f0np0", now)}, now, now).values
        return {(k.name, k.index): v for k, v in values.items() if k.name in (RX_BUFFER_DISCARDS, RX_DISCARDS)}

    before = discards(10.0)
    assert set(before) == {(name, p) for name in (RX_BUFFER_DISCARDS, RX_DISCARDS) for p in range(8)}
    assert discards(20.0) == before  # a NIC PFC keeps lossless drops nothing
    host.traffic.credit("1.3", "drop", 7)
    after = discards(20.0)
    assert {k: after[k] - before[k] for k in after if after[k] != before[k]} == {
        (RX_BUFFER_DISCARDS, 3): 7, (RX_DISCARDS, 3): 7}
