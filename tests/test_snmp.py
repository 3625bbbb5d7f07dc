"""The SNMP poller against real snmpsim agents started by losslessd.sim.snmp (no mocks)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from losslessd import counters_oids as oids
from losslessd.collect.snmp import (
    SnmpAuthError,
    SnmpPoller,
    SnmpSample,
    SnmpTarget,
    SnmpTimeout,
    SnmpUnreachable,
    SnmpV3User,
    _sample,
    make_poller,
)
from losslessd.sim.snmp import (
    NORMAL_PAUSE_PER_S,
    STORM_PAUSE_PER_S,
    SnmpAgents,
    records_text,
    snmprec,
    sonic_if_indexes,
)

from .peers import if_name_record

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["fast", "pysnmp"])
def poller(request, run):
    """Every test here runs with both pollers: the same samples and errors from both (the fast one
    hands SNMPv3 targets with a contextName, as snmpsim needs, to its pysnmp fallback)."""
    p = make_poller(request.param)
    yield p
    run(p.aclose())

SONIC_PORTS = [f"Ethernet{4 * i}" for i in range(64)]
EOS_PORTS = ["Ethernet1/1", "Ethernet2/1", "Ethernet3/1"]
V3 = ("losslessd", "auth-Secret-4711", "priv-Secret-0815")


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    """Two agents for the whole module: a 64-port SONiC leaf and a small EOS-named spine."""
    with SnmpAgents(tmp_path_factory.mktemp("snmp"), v3_user=V3) as agents:
        agents.add("leaf1", SONIC_PORTS)
        agents.add("spine1", EOS_PORTS, priorities=[3, 4])
        ports = agents.start()
        yield agents, ports


def v2c(ports, name="leaf1", **kw) -> SnmpTarget:
    return SnmpTarget(device=name, host="127.0.0.1", port=ports[name], community=name, **kw)


def v3(ports, name="leaf1", auth=V3[1], priv=V3[2], **kw) -> SnmpTarget:
    return SnmpTarget(device=name, host="127.0.0.1", port=ports[name], v3=SnmpV3User(V3[0], auth, priv),
                      context=name, **kw)


def prio(sample: SnmpSample, port: str, priority: int):
    return next(p for p in sample.priorities if p.port == port and p.priority == priority)


def queue(sample: SnmpSample, port: str, q: int):
    return next(x for x in sample.queues if x.port == port and x.queue == q)


def rate(before: SnmpSample, after: SnmpSample, read) -> float:
    return (read(after) - read(before)) / (after.monotonic_s - before.monotonic_s)


def test_v2c_poll_returns_every_port_and_priority(agents, run, poller):
    _, ports = agents
    s = run(poller.poll(v2c(ports)))
    assert s.version == "v2c"  # the caller turns this into SYS015
    assert [p.port for p in s.ports] == SONIC_PORTS
    assert [p.if_index for p in s.ports][:3] == [1, 5, 9]  # SONiC: EthernetN -> ifIndex N+1
    assert all(None not in (p.in_octets, p.out_octets, p.in_discards, p.out_discards, p.pfc_requests,
                            p.pfc_indications) for p in s.ports)
    assert len(s.priorities) == 64 * 8 and {p.priority for p in s.priorities} == set(range(8))
    assert all(p.pfc_requests is not None and p.pfc_indications is not None for p in s.priorities)
    assert len(s.queues) == 64 * 8 and all(q.tx_packets is not None for q in s.queues)
    # (per port: ifName, 2 octets, 2 discards, 2 PFC, ifHighSpeed, ifCounterDiscontinuityTime) nothing walked twice,
    # nothing beyond the columns but sysUpTime and sysName
    assert len(s.raw) == 2 + 64 * 9 + 64 * 8 * 2 + 64 * 8 * 2
    assert {p.discontinuity_ticks for p in s.ports} == {0}  # (SONiC's agent serves 0 always)
    assert {p.speed_mbps for p in s.ports} == {0}  # (served as 0, RFC 2863's "not known": no speed given the agent)
    assert s.raw[f"{oids.IF_NAME}.253"] == "Ethernet252"
    assert s.raw[f"{oids.CPFC_PRIO_INDICATIONS}.5.3"] == prio(s, "Ethernet4", 3).pfc_indications
    # The per-port column is the sum over priorities (read a moment apart, so nearly equal).
    port = s.ports[1]
    assert abs(port.pfc_requests - sum(prio(s, port.port, q).pfc_requests for q in range(8))) < 100


def test_non_sonic_port_names_and_fewer_priorities(agents, run, poller):
    _, ports = agents
    s = run(poller.poll(v2c(ports, "spine1")))
    assert [(p.port, p.if_index) for p in s.ports] == [(n, i) for i, n in enumerate(EOS_PORTS, start=1)]
    assert [(p.port, p.priority) for p in s.priorities] == [(n, q) for n in EOS_PORTS for q in (3, 4)]


def test_counters_move_between_polls(agents, run, poller):
    _, ports = agents
    a = run(poller.poll(v2c(ports)))
    b = run(poller.poll(v2c(ports)))
    assert b.monotonic_s > a.monotonic_s and b.sys_uptime_ticks > a.sys_uptime_ticks
    for pa, pb in zip(a.ports, b.ports):
        assert pb.in_octets > pa.in_octets and pb.out_octets > pa.out_octets
        assert pb.pfc_indications >= pa.pfc_indications
    assert all(qb.tx_packets > qa.tx_packets for qa, qb in zip(a.queues, b.queues))


def test_storm_on_then_off(agents, run, poller):
    sim, ports = agents
    target = v2c(ports)

    def indications(s):
        return prio(s, "Ethernet4", 3).pfc_indications

    def neighbour(s):
        return prio(s, "Ethernet4", 4).pfc_indications

    def port_indications(s):
        return next(p for p in s.ports if p.port == "Ethernet4").pfc_indications

    sim.storm("leaf1", "Ethernet4", 3, on=True)
    try:
        s1 = run(poller.poll(target))
        s2 = run(poller.poll(target))
    finally:
        sim.storm("leaf1", "Ethernet4", 3, on=False)
    s3 = run(poller.poll(target))
    s4 = run(poller.poll(target))
    assert rate(s1, s2, indications) > STORM_PAUSE_PER_S / 2
    assert rate(s1, s2, neighbour) < NORMAL_PAUSE_PER_S * 10  # only the storm priority
    assert rate(s1, s2, port_indications) > STORM_PAUSE_PER_S / 2
    # The paused queue stops transmitting while the others go on (what SONiC's PFC watchdog checks).
    assert queue(s2, "Ethernet4", 3).tx_packets == queue(s1, "Ethernet4", 3).tx_packets
    assert queue(s2, "Ethernet4", 4).tx_packets > queue(s1, "Ethernet4", 4).tx_packets
    # Off: back to the background rate, and no counter ever went backwards.
    assert rate(s3, s4, indications) < NORMAL_PAUSE_PER_S * 10
    assert queue(s4, "Ethernet4", 3).tx_packets > queue(s3, "Ethernet4", 3).tx_packets
    assert indications(s1) <= indications(s2) <= indications(s3) <= indications(s4)


def test_v3_authpriv_sha_aes(agents, run, poller):
    sim, ports = agents
    s = run(poller.poll(v3(ports)))
    assert s.version == "v3"
    assert len(s.priorities) == 64 * 8
    agent = sim._agents["leaf1"]
    exposed = Path(f"/proc/{agent.proc.pid}/cmdline").read_bytes() + (agent.home / "agent.log").read_bytes()
    assert not any(key.encode() in exposed for key in V3[1:])  # not in `ps`, not in the agent's log


@pytest.mark.parametrize("wrong", ["auth", "priv", "user", "short"])
def test_v3_wrong_credentials_are_an_auth_error(agents, run, poller, wrong):
    _, ports = agents
    bad = {"auth": {"auth": "auth-Wrong-0000"}, "priv": {"priv": "priv-Wrong-0000"}, "user": {},
           "short": {"priv": "priv-7"}}[wrong]  # RFC 3414: keys under 8 characters are refused
    target = v3(ports, **bad, timeout_s=1.0, retries=0)
    if wrong == "user":
        target = SnmpTarget(device="leaf1", host="127.0.0.1", port=ports["leaf1"], context="leaf1",
                            v3=SnmpV3User("intruder", V3[1], V3[2]), timeout_s=1.0, retries=0)
    with pytest.raises(SnmpAuthError) as exc:
        run(poller.poll(target))
    assert exc.value.sys_code == "SYS011" and exc.value.device == "leaf1"
    for secret in (*V3[1:], "auth-Wrong-0000", "priv-Wrong-0000", "priv-7"):
        assert secret not in str(exc.value) and secret not in repr(target)
    # The shared engine is not left with the wrong keys: the right ones still work.
    assert run(poller.poll(v3(ports))).version == "v3"


def test_same_v3_user_with_other_keys_on_another_device(agents, run, poller, tmp_path):
    """pysnmp holds one key set per user name in an engine; concurrent polls must not mix them."""
    _, ports = agents
    with SnmpAgents(tmp_path, v3_user=(V3[0], "auth-Other-1234", "priv-Other-5678")) as other:
        other.add("leaf9", ["Ethernet0"], priorities=[3])
        ports9 = other.start()
        leaf9 = SnmpTarget(device="leaf9", host="127.0.0.1", port=ports9["leaf9"], context="leaf9",
                           v3=SnmpV3User(V3[0], "auth-Other-1234", "priv-Other-5678"))
        for _ in range(2):
            results = run(poller.poll_many([v3(ports), leaf9]))
            assert all(isinstance(r, SnmpSample) for r in results.values()), results


def test_down_agent_times_out_while_others_answer(agents, run, poller):
    sim, ports = agents
    sim.set_down("spine1")
    try:
        results = run(poller.poll_many([v2c(ports, "spine1", timeout_s=0.3, retries=0), v2c(ports, "leaf1")]))
    finally:
        sim.set_down("spine1", down=False)
    assert isinstance(results["spine1"], SnmpTimeout) and results["spine1"].sys_code == "SYS013"
    assert isinstance(results["leaf1"], SnmpSample)
    assert run(poller.poll(v2c(ports, "spine1"))).ports  # answers again once back up


def test_unresolvable_host_is_unreachable(run, poller):
    target = SnmpTarget(device="ghost", host="ghost.invalid", community="x", timeout_s=0.3, retries=0)
    with pytest.raises(SnmpUnreachable) as exc:
        run(poller.poll(target))
    assert exc.value.sys_code == "SYS010"


def test_odd_agent_answers_stay_raw():
    """Rows of an unexpected index shape or type are kept in raw, never turned into a traceback."""
    raw = {oids.SYS_UPTIME: 5, f"{oids.IF_NAME}.1": "Ethernet0", f"{oids.IF_HC_IN_OCTETS}.1": "n/a",
           f"{oids.CPFC_PRIO_REQUESTS}.1.3": 7, f"{oids.CPFC_PRIO_REQUESTS}.1.3.9": 8,
           f"{oids.CSQ_QOS_GROUP_STATS}.1.2": 9,
           # an Integer32 where a Counter64 belongs (no counter is negative) and a number past 2^64
           f"{oids.CPFC_PRIO_REQUESTS}.1.4": -5, f"{oids.CPFC_PRIO_REQUESTS}.1.5": 2**64,
           f"{oids.IF_HC_OUT_OCTETS}.1": -1}
    s = _sample(SnmpTarget(device="d", host="h", community="c"), raw, 0.0, 0.0, 0.0)
    assert s.ports[0].port == "Ethernet0" and s.ports[0].in_octets is None and s.ports[0].out_octets is None
    assert [(p.priority, p.pfc_requests) for p in s.priorities] == [(3, 7)]
    assert s.queues == [] and s.raw == raw


def test_a_view_without_if_x_table_is_one_unread_entry():
    """An agent whose view leaves out ifXTable serves every port's counters with no ifName: one `unread` entry (one
    warning, one unread part) lists the first ifIndexes and counts the rest, rather than 64 of them; the poll that
    reads no port says why."""
    raw = {oids.SYS_UPTIME: 5, **{f"{oids.CPFC_PRIO_INDICATIONS}.{i}.3": i for i in range(1, 65)}}
    s = _sample(SnmpTarget(device="d", host="h", community="c"), raw, 0.0, 0.0, 0.0)
    assert s.ports == s.priorities == []
    assert s.unread == [f"ifIndex 1, 2, 3, 4, 5, 6, 7, 8 and 56 more: the agent serves no ifName ({oids.IF_NAME}"
                        ".<ifIndex>; an SNMP view without ifXTable leaves it out): their counters are left out"]
    # The daemon's failed poll says so (it said "the agent serves none of the counter columns (0 ports)").
    from losslessd.daemon.pollers import _no_counters

    assert _no_counters(s) == f"no port could be named: {s.unread[0]}"


def test_target_needs_one_kind_of_credentials():
    with pytest.raises(ValueError):
        SnmpTarget(device="d", host="h")
    with pytest.raises(ValueError):
        SnmpTarget(device="d", host="h", community="c", v3=SnmpV3User("u", "a" * 8, "p" * 8))
    with pytest.raises(ValueError, match="auth protocol"):
        SnmpV3User("u", "a" * 8, "p" * 8, auth_protocol="MD5")


def test_snmprec_is_sorted_numerically_and_stable():
    text = snmprec("leaf9", sonic_if_indexes(["Ethernet0", "Ethernet8", "Ethernet96"]), range(8))
    keys = [tuple(int(x) for x in line.split("|")[0].split(".")) for line in text.splitlines()]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    assert f"{oids.IF_NAME}.97|4x|{b'Ethernet96'.hex()}" in text  # .97 sorts after .9 numerically
    assert text == snmprec("leaf9", sonic_if_indexes(["Ethernet0", "Ethernet8", "Ethernet96"]), range(8))


def test_if_indexes_fall_back_to_order_for_other_names():
    assert sonic_if_indexes(["Ethernet0", "Ethernet4"]) == {"Ethernet0": 1, "Ethernet4": 5}
    assert sonic_if_indexes(["Ethernet0", "Ethernet1/1"]) == {"Ethernet0": 1, "Ethernet1/1": 2}


def test_stop_ends_a_stopped_agent(tmp_path):
    with SnmpAgents(tmp_path) as sim:
        sim.add("tiny", ["Ethernet0"], priorities=[3])
        sim.start()
        proc = sim._agents["tiny"].proc
        sim.set_down("tiny")
    assert proc.poll() is not None  # SIGSTOPped, yet stop() ended it


def test_late_reply_after_close_is_not_a_loop_error(caplog):
    """A reply landing after the poller closed (pysnmp: "Unregistered transport") is dropped quietly;
    any other loop error still reaches the loop's handler."""
    from pysnmp.carrier.error import CarrierError

    async def main():
        await SnmpPoller().aclose()
        loop = asyncio.get_running_loop()
        loop.call_exception_handler({"message": "late", "exception": CarrierError("Unregistered transport: x")})
        loop.call_exception_handler({"message": "other", "exception": ValueError("boom")})

    with caplog.at_level(logging.DEBUG):
        asyncio.run(main())
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in errors] == ["other"]
    assert any("after the poller closed" in r.getMessage() for r in caplog.records)


HOSTILE_NAMES: dict[int, bytes | int] = {  # ifIndex -> ifName.<ifIndex> (peers.if_name_record)
    1: b"Ethernet0",
    2: b"\x1b]0;pwned\x07Ethernet4\n",  # a terminal title escape and a newline
    3: b"",
    4: 7,  # an Integer where a DisplayString belongs
    5: b"Ethernet8",
    6: b"Ethernet8",  # the same name twice: two ports' counters under one key
    7: b"E" * 300,  # past DisplayString's 255
    8: b"Ethernet16",
    9: b"Ethernet\xe2\x80\xae20",  # a bidi override: the name shown reversed
}


def hostile_snmprec(pfc_rx: int) -> str:
    """A SONiC-like agent whose ifNames are hostile (sysUpTime moving at 100 ticks a second); priority 3 pause frames
    received: ``pfc_rx`` on ifIndex 1, 10**6 + ifIndex on the others."""
    lines = [f"{oids.SYS_UPTIME}|67:lossless|b=123456,r=100"]
    for i, name in HOSTILE_NAMES.items():
        received = pfc_rx if i == 1 else 10**6 + i
        lines += [if_name_record(i, name), f"{oids.CPFC_PRIO_INDICATIONS}.{i}.3|70|{received}",
                  f"{oids.CSQ_QOS_GROUP_STATS}.{i}.{oids.CSQ_EGRESS}.4.{oids.CSQ_UCAST_PACKETS}|70|10000"]
    return records_text(lines)


def test_hostile_if_names_and_a_counter_going_back_corrupt_nothing(tmp_path, run, poller):
    """An agent serving ifNames with control characters, empty, an Integer, one name for two ifIndexes, 300
    characters, a bidi override: those ports' counters are left out (they were keys of metrics labels, history rows
    and log lines as served; two ports under one name gave each poll the difference between them as a rate), each
    said once in the sample's `unread` in printable words. A counter that goes back with sysUpTime moving on is a
    clear of that counter: no negative rate, no rate at all for it."""
    from losslessd.monitor import PFC_RX, Key
    from losslessd.monitor.counters import CounterTracker
    from losslessd.monitor.sources import reading_from_snmp
    from losslessd.printable import printable

    with SnmpAgents(tmp_path) as agents:
        agents.add("odd1", ["Ethernet0"])
        agent = agents._agents["odd1"]
        agent.data_file.write_text(hostile_snmprec(1000))
        ports = agents.start()
        sample = run(poller.poll(v2c(ports, "odd1")))
        assert [p.port for p in sample.ports] == ["Ethernet0", "Ethernet16"]
        assert {p.port for p in sample.priorities} == {p.port for p in sample.queues} == {"Ethernet0", "Ethernet16"}
        assert [u.split(":")[0] for u in sample.unread] == [f"ifIndex {i}" for i in (2, 3, 4, 5, 6, 7, 9)]
        assert all(printable(u) == u and len(u) < 300 for u in sample.unread), sample.unread
        assert "ifIndex 5: ifName 'Ethernet8' is also ifIndex 6's" in sample.unread[3]
        before = reading_from_snmp(sample)
        assert before.unread == tuple(sample.unread)
        assert {k.port for k in before.values} == {"Ethernet0", "Ethernet16"}
        tracker = CounterTracker()
        tracker.update(before)
        agents.rewrite("odd1", hostile_snmprec(400))  # Ethernet0's count back, sysUpTime on: no restart
        rates = tracker.update(reading_from_snmp(run(poller.poll(v2c(ports, "odd1")))))
        assert rates is not None and not rates.reset
        assert Key("Ethernet0", PFC_RX, 3) in rates.cleared and Key("Ethernet0", PFC_RX, 3) not in rates.per_s
        assert all(v >= 0 for v in rates.per_s.values())


def test_a_counter_the_agent_misreads_low_once_opens_no_pause_rate(tmp_path, run, poller):
    """An agent answering a port's pause count once at 0 (sonic-snmpagent between two COUNTERS_DB refreshes, an
    agent's stale cache), sysUpTime going on and no ifCounterDiscontinuityTime: the dip was a clear, and the poll
    after it, back at the real count, was measured from 0: 10^9 pause frames in one interval opened a pause_rate
    (and, held for two polls, a storm's worth) on a quiet port. Now that interval has no delta (counters.py rule 3)."""
    from losslessd.monitor import PFC_RX, Key
    from losslessd.monitor.counters import CounterTracker
    from losslessd.monitor.detect import Detectors, Thresholds
    from losslessd.monitor.sources import reading_from_snmp

    key = Key("Ethernet0", PFC_RX, 3)
    detectors = Detectors(Thresholds(pause_rate_polls=1), {3})
    tracker = CounterTracker()
    rates, events = [], []
    with SnmpAgents(tmp_path) as agents:
        agents.add("dip1", ["Ethernet0"])
        agents._agents["dip1"].data_file.write_text(hostile_snmprec(10**9))
        target = v2c(agents.start(), "dip1")
        for count in (10**9, 0, 10**9 + 5, 10**9 + 9):
            agents.rewrite("dip1", hostile_snmprec(count))
            got = tracker.update(reading_from_snmp(run(poller.poll(target))))
            if got is not None:
                rates.append(got)
                events += [e for e in detectors.feed(got) if e.port == "Ethernet0"]
    assert [key in r.cleared for r in rates] == [True, True, False], [r.deltas.get(key) for r in rates]
    assert rates[-1].deltas[key] == 4
    assert not events, [(e.kind, e.message) for e in events]


def discontinuity_snmprec(discards: int, since_ticks: int) -> str:
    """One port whose ifInDiscards (Counter32) reads ``discards`` and whose ifCounterDiscontinuityTime reads
    ``since_ticks`` (sysUpTime moving at 100 ticks a second)."""
    lines = [f"{oids.SYS_UPTIME}|67:lossless|b=123456,r=100", f"{oids.IF_NAME}.1|4|Ethernet0",
             f"{oids.IF_IN_DISCARDS}.1|65|{discards}", f"{oids.IF_COUNTER_DISCONTINUITY_TIME}.1|67|{since_ticks}",
             f"{oids.CPFC_PRIO_INDICATIONS}.1.3|70|500"]
    return records_text(lines)


@pytest.mark.parametrize("since", [0, 5000])
def test_a_counter32_that_restarted_is_told_from_a_wrap_by_if_counter_discontinuity_time(tmp_path, run, poller,
                                                                                        since):
    """ifInDiscards (Counter32) from 4,294,000,000 to 10 with sysUpTime moving on: a wrap of 967,306 discards, or a
    restart of the counter.
    IF-MIB says when a port's counters last restarted (ifCounterDiscontinuityTime, RFC 2863): when it changes, the
    counter restarted and has no delta; when it stays, the counter wrapped (the control)."""
    from losslessd.monitor import IN_DISCARDS, Key
    from losslessd.monitor.counters import CounterTracker
    from losslessd.monitor.sources import reading_from_snmp

    with SnmpAgents(tmp_path) as agents:
        agents.add("disc1", ["Ethernet0"])
        agents._agents["disc1"].data_file.write_text(discontinuity_snmprec(4_294_000_000, 0))
        target = v2c(agents.start(), "disc1")
        first = run(poller.poll(target))
        agents.rewrite("disc1", discontinuity_snmprec(10, since))
        second = run(poller.poll(target))
    # The second poll dated 3 s after the first on both clocks (sysUpTime too, or it reads as a restart) rather than
    # slept for: a wrap of 2^32 fits 2 s of a 1.6 Tb/s port's frames (counters.MAX_FRAMES_PER_S), not a few ms.
    second = second.model_copy(update={"monotonic_s": first.monotonic_s + 3.0,
                                       "sys_uptime_ticks": first.sys_uptime_ticks + 300})
    assert [p.discontinuity_ticks for p in (first.ports[0], second.ports[0])] == [0, since]
    tracker = CounterTracker()
    tracker.update(reading_from_snmp(first))
    rates = tracker.update(reading_from_snmp(second))
    assert rates is not None and not rates.reset
    key = Key("Ethernet0", IN_DISCARDS, None)
    if since:
        assert key in rates.cleared and key not in rates.deltas
    else:
        assert rates.deltas[key] == 2**32 - 4_294_000_000 + 10



def sonic_snmprec(in_discards: int, in_octets: int, pfc3: int) -> str:
    """One SONiC port as sonic-snmpagent serves it: ifCounterDiscontinuityTime 0 always (rfc2863.py), ifInDiscards
    and ifOutDiscards Counter32 (rfc1213.py), ifHCInOctets and the PFC counters Counter64; priority 4 never paused."""
    lines = [f"{oids.SYS_UPTIME}|67:lossless|b=123456,r=100", f"{oids.IF_NAME}.1|4|Ethernet0",
             f"{oids.IF_HC_IN_OCTETS}.1|70|{in_octets}", f"{oids.IF_IN_DISCARDS}.1|65|{in_discards}",
             f"{oids.IF_OUT_DISCARDS}.1|65|0", f"{oids.IF_COUNTER_DISCONTINUITY_TIME}.1|67|0",
             f"{oids.CPFC_PRIO_INDICATIONS}.1.3|70|{pfc3}", f"{oids.CPFC_PRIO_INDICATIONS}.1.4|70|0"]
    return records_text(lines)


@pytest.mark.parametrize("case", ["small step back", "wrap past the octets received", "wrap"])
def test_a_counter32_going_back_on_sonic_is_a_wrap_only_when_nothing_else_says_reset(tmp_path, run, poller, case):
    """A buggy agent stepping the Counter32 back by 5 alone was a wrap of 2^32 - 5: counting more than half of 2^32
    in an interval is no wrap. ifInDiscards wrapping by 967,306 while its port received 9,000 octets (ifHCInOctets)
    is none either: a discarded packet was received, at least 64 octets (RFC 2863). A Counter32 near its top going to
    10 alone with the octets to carry it is one (the control). (The syncd restart: the next test, on the simulator's
    fault mode.)"""
    from losslessd.monitor import IN_DISCARDS, IN_OCTETS, Key
    from losslessd.monitor.counters import CounterTracker
    from losslessd.monitor.sources import reading_from_snmp

    before, after = {"small step back": ((1_000_005, 5 * 10**9, 70_000), (1_000_000, 5 * 10**9 + 9_000, 70_100)),
                     "wrap past the octets received": ((4_294_000_000, 5 * 10**9, 70_000),
                                                       (10, 5 * 10**9 + 9_000, 70_100)),
                     # (967,306 discarded packets were received: at least 64 octets each in ifHCInOctets, RFC 2863)
                     "wrap": ((4_294_000_000, 5 * 10**9, 70_000), (10, 5 * 10**9 + 10**8, 70_100))}[case]
    with SnmpAgents(tmp_path) as agents:
        agents.add("sonic1", ["Ethernet0"])
        agents._agents["sonic1"].data_file.write_text(sonic_snmprec(*before))
        target = v2c(agents.start(), "sonic1")
        first = run(poller.poll(target))
        agents.rewrite("sonic1", sonic_snmprec(*after))
        second = run(poller.poll(target))
    # Dated 3 s apart on both clocks, as above (a wrap of 2^32 must fit the interval's frames).
    second = second.model_copy(update={"monotonic_s": first.monotonic_s + 3.0,
                                       "sys_uptime_ticks": first.sys_uptime_ticks + 300})
    tracker = CounterTracker()
    tracker.update(reading_from_snmp(first))
    rates = tracker.update(reading_from_snmp(second))
    assert rates is not None and not rates.reset
    key = Key("Ethernet0", IN_DISCARDS, None)
    if case == "wrap":
        assert rates.deltas[key] == 2**32 - 4_294_000_000 + 10 and not rates.cleared
    else:
        assert key in rates.cleared and key not in rates.deltas
        assert Key("Ethernet0", IN_OCTETS, None) not in rates.cleared
        assert max(rates.per_s.values()) < 10**5, rates.per_s


def restart_snmprec(speed_mbps: int, counter64: bool) -> str:
    """One port whose ifInDiscards and ifOutDiscards (Counter32) count 0.5 a second from 3,000,000,000, and its
    ifHighSpeed. ``counter64``: as sonic-snmpagent serves it, with ifHCInOctets and priority 3's and 4's PFC frames
    received (Counter64; priority 4 never paused: 0 before and after a restart); else the agent serves no Counter64."""
    lines = [f"{oids.SYS_UPTIME}|67:lossless|b=123456,r=100", f"{oids.IF_NAME}.1|4|Ethernet0",
             f"{oids.IF_HIGH_SPEED}.1|66|{speed_mbps}", f"{oids.IF_COUNTER_DISCONTINUITY_TIME}.1|67|0",
             f"{oids.IF_IN_DISCARDS}.1|65:lossless|b=3000000000,r=0.5,w=1",
             f"{oids.IF_OUT_DISCARDS}.1|65:lossless|b=3000000000,r=0.5,w=1"]
    if counter64:
        lines += [f"{oids.IF_HC_IN_OCTETS}.1|70:lossless|b=5000000000,r=1000",
                  f"{oids.CPFC_PRIO_INDICATIONS}.1.3|70:lossless|b=70000,r=100",
                  f"{oids.CPFC_PRIO_INDICATIONS}.1.4|70:lossless|b=0,r=0"]
    return records_text(lines)


@pytest.mark.parametrize("case", ["sonic", "counter32 only", "counter32 only, a wrap"])
def test_a_syncd_restart_beneath_the_agent_is_no_wrap(tmp_path, run, poller, case):
    """The simulator's syncd restart (COUNTERS_DB zeroed beneath sonic-snmpagent, sysUpTime going on; SONiC never sets
    ifCounterDiscontinuityTime) took ifInDiscards from 3,000,000,000 to 0: a wrap of 1.29e9 discards, 4.3e8 a second
    over 3 s. On SONiC (a 400 Gb/s port, whose line could carry 1.8e9 frames in 3 s) its port's Counter64s went back
    with it: cleared, no delta. On a port with only Counter32s nothing did, and the wrap was read; its ifHighSpeed
    (10 Gb/s: 4.5e7 minimum frames in 3 s, IEEE 802.3 clause 4.4.2) says it cannot be one. The control: the same port
    wrapping on its own, a few discards past 2^32, stays a wrap."""
    from losslessd.monitor import IN_DISCARDS, IN_OCTETS, OUT_DISCARDS, Key
    from losslessd.monitor.counters import CounterTracker
    from losslessd.monitor.sources import reading_from_snmp

    with SnmpAgents(tmp_path) as agents:
        agents.add("sonic1", ["Ethernet0"])
        sonic = case == "sonic"
        agents._agents["sonic1"].data_file.write_text(restart_snmprec(400_000 if sonic else 10_000, sonic))
        target = v2c(agents.start(), "sonic1")
        if case.endswith("a wrap"):  # (read 9 below 2^32 at 0.5 a second, then the wrap moved to now: no sleep, and
            agents.wrap32("sonic1", 18.0)  # a first poll slower than 18 s still reads below it)
        first = run(poller.poll(target))
        if case.endswith("a wrap"):
            agents.wrap32("sonic1", 0.0)
        else:
            agents.syncd_restart("sonic1")
        second = run(poller.poll(target))
    assert second.sys_uptime_ticks >= first.sys_uptime_ticks  # the agent went on
    # Dated 3 s apart on both clocks, as above (a wrap must fit the interval's frames).
    second = second.model_copy(update={"monotonic_s": first.monotonic_s + 3.0,
                                       "sys_uptime_ticks": first.sys_uptime_ticks + 300})
    tracker = CounterTracker()
    tracker.update(reading_from_snmp(first))
    rates = tracker.update(reading_from_snmp(second))
    # (with only its Counter32s read and both cleared, the reading has nothing left: a reset of the reading)
    assert rates is not None and rates.reset == (case == "counter32 only")
    discards = [Key("Ethernet0", name, None) for name in (IN_DISCARDS, OUT_DISCARDS)]
    if case.endswith("a wrap"):
        assert all(0 < rates.deltas[k] < 10 for k in discards) and not rates.cleared, rates
    else:
        assert set(discards) <= rates.cleared and not set(discards) & rates.deltas.keys()
        assert (Key("Ethernet0", IN_OCTETS, None) in rates.cleared) == (case == "sonic")
        assert max(rates.per_s.values(), default=0) < 10**5, rates.per_s

def test_an_if_index_with_no_if_name_names_no_port(tmp_path, run, poller):
    """An agent serving the PFC, queue and IF-MIB counters of ifIndexes 2 and 4 but no ifName for them (ifXEntry
    AUGMENTS ifEntry, RFC 2863: every ifIndex has one): their counters were read under ports "2" and "4", numbers no
    other source calls a port, with nothing in `unread`. Now they are in one `unread` entry, and their counters stay
    out of the sample and the reading."""
    from losslessd.monitor.sources import reading_from_snmp

    lines = [f"{oids.SYS_UPTIME}|67|12345"]
    for i in (1, 2, 3, 4):
        if i in (1, 3):
            lines.append(f"{oids.IF_NAME}.{i}|4|Ethernet{4 * (i - 1)}")
        lines += [f"{oids.IF_HC_IN_OCTETS}.{i}|70|{1000 * i}", f"{oids.CPFC_PRIO_INDICATIONS}.{i}.3|70|{10 * i}",
                  f"{oids.CSQ_QOS_GROUP_STATS}.{i}.{oids.CSQ_EGRESS}.4.{oids.CSQ_UCAST_PACKETS}|70|10000"]
    with SnmpAgents(tmp_path) as agents:
        agents.add("gap1", ["Ethernet0"])
        agents._agents["gap1"].data_file.write_text(records_text(lines))
        sample = run(poller.poll(v2c(agents.start(), "gap1")))
    named = {"Ethernet0", "Ethernet8"}
    assert [p.port for p in sample.ports] == sorted(named)
    assert {p.port for p in sample.priorities} == {q.port for q in sample.queues} == named
    assert sample.unread == [f"ifIndex 2, 4: the agent serves no ifName ({oids.IF_NAME}.<ifIndex>; an SNMP view "
                             "without ifXTable leaves it out): their counters are left out"]
    reading = reading_from_snmp(sample)
    assert {k.port for k in reading.values} == named and reading.unread == tuple(sample.unread)


def test_every_pysnmp_message_model_matches_answers_to_their_agent():
    """The address check wraps each message model's cache (pysnmp 7.1: v1, v2c and v3); a pysnmp whose cache looks
    otherwise gets none wrapped, and the poller then warns that answers are matched by id alone."""
    from pysnmp.hlapi.v3arch.asyncio import SnmpEngine

    from losslessd.collect.snmp import answers_from_their_agent

    engine = SnmpEngine()
    assert answers_from_their_agent(engine) == len(engine.message_processing_subsystems) == 3


def test_a_wall_clock_stepped_back_between_polls_leaves_rates_measured_on_the_monotonic_interval(tmp_path, run, poller):
    """NTP stepping the wall clock back an hour between two polls of a real agent: the rates are measured over the
    monotonic interval whatever the labels say, and carry their reading's label (monitor/clock.py keeps labels in
    order where readings are made: tests/test_counters.py, test_labels_after_the_wall_clock_stepped_back_meet_it_again
    and test_rates_are_dated_by_their_reading_which_the_clock_keeps_in_order)."""
    from losslessd.monitor import PFC_RX, Key
    from losslessd.monitor.counters import CounterTracker
    from losslessd.monitor.sources import reading_from_snmp

    with SnmpAgents(tmp_path) as agents:
        agents.add("ntp1", ["Ethernet0"])
        agents._agents["ntp1"].data_file.write_text(sonic_snmprec(10, 5 * 10**9, 70_000))
        target = v2c(agents.start(), "ntp1")
        first = run(poller.poll(target))
        agents.rewrite("ntp1", sonic_snmprec(20, 5 * 10**9 + 9_000, 70_300))
        second = run(poller.poll(target))
        agents.rewrite("ntp1", sonic_snmprec(30, 5 * 10**9 + 18_000, 70_600))
        third = run(poller.poll(target))

    def dated(sample, after_s: float, wall_s: float):  # (3 s apart on the monotonic clock and sysUpTime)
        return sample.model_copy(update={"monotonic_s": first.monotonic_s + after_s, "time_unix_s": wall_s,
                                         "sys_uptime_ticks": first.sys_uptime_ticks + round(100 * after_s)})

    tracker = CounterTracker()
    tracker.update(reading_from_snmp(first))
    stepped = tracker.update(reading_from_snmp(dated(second, 3.0, first.time_unix_s + 3.0 - 3600)))
    assert stepped is not None and stepped.time_unix_s == pytest.approx(first.time_unix_s + 3.0 - 3600, abs=1e-6)
    assert stepped.per_s[Key("Ethernet0", PFC_RX, 3)] == pytest.approx(100.0)  # 300 indications in 3 monotonic seconds
    later = tracker.update(reading_from_snmp(dated(third, 6.0, first.time_unix_s + 3600)))
    assert later is not None and later.time_unix_s == first.time_unix_s + 3600
    assert later.per_s[Key("Ethernet0", PFC_RX, 3)] == pytest.approx(100.0)  # (not 300 over an hour and 3 s)
