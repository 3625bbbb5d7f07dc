"""The daemon's SNMP source walks the ports' speeds (IF-MIB ifHighSpeed) only now and then, against real snmpsim
agents serving them as a SONiC switch does (losslessd.sim.snmp: ifXTable, Gauge32 Mb/s)."""

from __future__ import annotations

import asyncio

import pytest

from losslessd import counters_oids as oids
from losslessd.collect.snmp import SnmpTarget
from losslessd.daemon.pollers import SnmpCounters
from losslessd.daemon.settings import Poll, Settings
from losslessd.sim.snmp import SnmpAgents, snmprec, sonic_if_indexes

pytestmark = pytest.mark.slow

PORTS = ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]


def source(backend: str, every: int) -> SnmpCounters:
    return SnmpCounters(Settings(inventory="unused.yaml", poll=Poll(snmp_backend=backend, snmp_speed_every=every)))


def speeds(reading) -> dict[str, float]:
    return {port: bps / 1e6 for port, bps in reading.speeds.items()}


def test_the_simulator_serves_if_high_speed_as_a_gauge_of_mbps():
    """ifXTable ifHighSpeed: Gauge32 (SNMP type 66) in units of 1,000,000 bits per second, 0 when not known (RFC 2863);
    a port's octets never count faster than its line."""
    text = snmprec("leaf1", sonic_if_indexes(PORTS), range(8), speeds={"Ethernet0": 100_000, "Ethernet4": 10})
    served = dict(line.split("|", 1) for line in text.splitlines())
    assert served[f"{oids.IF_HIGH_SPEED}.1"] == "66|100000"
    assert served[f"{oids.IF_HIGH_SPEED}.5"] == "66|10"
    assert served[f"{oids.IF_HIGH_SPEED}.9"] == "66|0"  # (no speed given)
    rate = float(served[f"{oids.IF_HC_IN_OCTETS}.5"].split("r=")[1].split(",")[0])
    assert rate * 8 <= 0.8 * 10e6


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_speeds_are_walked_every_nth_poll_not_every_poll(tmp_path, run, backend):
    """ifHighSpeed was walked at every poll: one more value a port, as many as a counter column, for a number that
    changes only when a link comes up again. Now the first poll walks it, then every ``snmp_speed_every``-th; the polls
    between carry the speeds walked last, so a speed the agent changed shows at the next walk."""
    with SnmpAgents(tmp_path) as agents:
        community = agents.add("leaf1", PORTS, speeds=dict.fromkeys(PORTS, 100_000))
        target = SnmpTarget("leaf1", "127.0.0.1", agents.start()["leaf1"], community=community)
        counters = source(backend, every=3)
        try:
            first = run(counters.read("leaf1", target))
            agents.set_speed("leaf1", "Ethernet4", 25_000)  # renegotiated slower: nothing else says so
            between = [run(counters.read("leaf1", target)) for _ in range(2)]
            fourth = run(counters.read("leaf1", target))
        finally:
            run(counters.aclose())
    assert speeds(first) == dict.fromkeys(PORTS, 100_000)
    assert [speeds(r) for r in between] == [speeds(first)] * 2  # not walked: the speeds of the first poll
    assert speeds(fourth) == {**speeds(first), "Ethernet4": 25_000}  # polls 1, 4, 7...: every third walks them


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_a_restart_or_octets_faster_than_the_known_speed_walk_the_speeds_at_the_next_poll(tmp_path, run, backend):
    """What says a port's speed may have changed between two walks: sysUpTime going back (the agent restarted) and
    octets its known speed cannot carry (a link that came up faster: RFC 2863 keeps its counters going). The poll that
    sees it bounds no counter by a speed it no longer trusts; the next poll walks them, however far the Nth is."""
    with SnmpAgents(tmp_path) as agents:
        community = agents.add("leaf1", PORTS, speeds=dict.fromkeys(PORTS, 100))  # octets clamped below 80 Mb/s
        target = SnmpTarget("leaf1", "127.0.0.1", agents.start()["leaf1"], community=community)
        counters = source(backend, every=1000)
        try:
            first = run(counters.read("leaf1", target))
            # Ethernet8 comes up at 100 Gb/s: its octets count at 0.8 Gb/s and more (sim.snmp draws 1e8 B/s or more)
            agents.set_speed("leaf1", "Ethernet8", 100_000)
            faster = run(counters.read("leaf1", target))
            walked = run(counters.read("leaf1", target))
            agents.set_speed("leaf1", "Ethernet12", 400_000)
            agents.reset("leaf1")  # sysUpTime and every counter from 0
            restarted = run(counters.read("leaf1", target))
            after = run(counters.read("leaf1", target))
        finally:
            run(counters.aclose())
    assert speeds(first) == dict.fromkeys(PORTS, 100)
    assert faster.speeds == {}  # the walked speeds no longer hold: no bound this poll
    assert speeds(walked) == {**speeds(first), "Ethernet8": 100_000}
    assert restarted.speeds == {}
    assert speeds(after) == {**speeds(walked), "Ethernet12": 400_000}



@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
@pytest.mark.parametrize("platform", ["arista_eos", "sonic"])
def test_a_counter_discontinuity_served_by_the_agent_walks_the_speeds_at_the_next_poll(tmp_path, run, backend,
                                                                                        platform):
    """ifCounterDiscontinuityTime (RFC 2863: sysUpTime when a port's counters last restarted, 0 if not since the agent
    started) is served by the simulator: the counters restarting beneath a running agent (syncd_restart, sysUpTime
    going on) set it, and the daemon walks the speeds at the next poll; a SONiC agent serves 0 always
    (sonic-snmpagent), so there nothing but the Nth poll walks them."""
    with SnmpAgents(tmp_path) as agents:
        community = agents.add("leaf1", PORTS, platform=platform, speeds=dict.fromkeys(PORTS, 100_000))
        target = SnmpTarget("leaf1", "127.0.0.1", agents.start()["leaf1"], community=community)
        counters = source(backend, every=1000)
        try:
            first = run(counters.read("leaf1", target))
            agents.set_speed("leaf1", "Ethernet4", 25_000)  # nothing else says so
            agents.syncd_restart("leaf1")
            restarted = run(counters.read("leaf1", target))
            after = run(counters.read("leaf1", target))
        finally:
            run(counters.aclose())
    assert set(first.discontinuity.values()) == {0}  # (none since the agent started)
    if platform == "sonic":
        assert set(restarted.discontinuity.values()) == {0}
        assert speeds(after) == speeds(first) == dict.fromkeys(PORTS, 100_000)  # not walked again
        return
    moved = set(restarted.discontinuity.values())
    assert len(moved) == 1 and 0 < moved.pop() <= restarted.uptime_ticks  # (one restart: every port's, in the past)
    assert restarted.speeds == {}  # (no bound by speeds it no longer trusts)
    assert speeds(after) == {**speeds(first), "Ethernet4": 25_000}


_INVENTORY = """\
hosts:
  leaf1:
    hostname: 127.0.0.1
    platform: sonic
    data:
      credentials: {username: admin, password_env: LEAF_PW}
      snmp: {version: 2c, community_env: LEAF_COMMUNITY}
"""


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_a_poll_that_ends_after_its_device_left_leaves_no_state_in_its_poller(tmp_path, run, backend):
    """A reload takes a device out while its poll is in flight: the worker forgets it (ShardWorker._forget) and drops
    the late reading, but the poller kept what that poll learnt (its ports' speeds), for a device gone for good, and
    bounded a device of that name added later by them. A dropped outcome forgets it in its poller too."""
    from losslessd.daemon.settings import load_settings
    from losslessd.daemon.worker import ShardWorker

    (tmp_path / "inventory.yaml").write_text(_INVENTORY)
    (tmp_path / "known_hosts").write_text("")
    (tmp_path / "losslessd.yaml").write_text(f"inventory: inventory.yaml\nknown_hosts: known_hosts\n"
                                             f"poll: {{snmp_backend: {backend}}}\n")
    settings = load_settings(tmp_path / "losslessd.yaml", {"LEAF_PW": "pw", "LEAF_COMMUNITY": "public"})
    with SnmpAgents(tmp_path) as agents:
        community = agents.add("leaf1", PORTS, speeds=dict.fromkeys(PORTS, 100_000))
        target = SnmpTarget("leaf1", "127.0.0.1", agents.start()["leaf1"], community=community)
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(settings, [])
        counters = worker.pollers["snmp"]
        worker.targets["snmp"]["leaf1"] = target  # (as the inventory naming it would)
        agents.set_slow("leaf1", 1.0)  # sysUpTime answered after a second: the poll is in flight meanwhile

        async def poll_while_the_device_leaves() -> bool:
            polled = asyncio.ensure_future(worker._job(counters)("leaf1"))
            await asyncio.sleep(0)  # (the job runs to its first wait: it has taken its target and is reading it)
            assert not polled.done()  # (its first answer comes a second later)
            del worker.targets["snmp"]["leaf1"]  # the reload, then what it does for a device that left
            worker._forget("leaf1")
            return await polled

        try:
            assert run(poll_while_the_device_leaves())
            assert "leaf1" not in counters._speeds
        finally:
            run(counters.aclose())
