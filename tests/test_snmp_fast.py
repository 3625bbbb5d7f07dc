"""The fast SNMP poller (gufo-snmp) against real agents: net-snmp's snmpd for SNMPv3 authPriv (the
default context, as real switches serve it), snmpsim for counters that move, and hostile agents (UDP
sockets in this process that answer garbage, nothing, a loop or an endless table). Both pollers
must give the same typed samples and the same errors; a hostile device fails its own poll only."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from pyasn1.codec.ber import decoder, encoder
from pysnmp.proto.api import v2c

from losslessd import counters_oids as oids
from losslessd.collect.snmp import (
    COLUMNS,
    SnmpAuthError,
    SnmpError,
    SnmpPoller,
    SnmpSample,
    SnmpTarget,
    SnmpTimeout,
    SnmpV3User,
    make_poller,
)
from losslessd.collect.snmp_fast import FastSnmpPoller
from losslessd.sim import snmpd
from losslessd.sim.snmp import SnmpAgents, records_text, snmprec, sonic_if_indexes

from .peers import with_if_names

pytestmark = pytest.mark.slow

PORTS = [f"Ethernet{4 * i}" for i in range(64)]
V3 = ("losslessd", "auth-Secret-4711", "priv-Secret-0815")


@pytest.fixture(scope="module")
def netsnmp(tmp_path_factory):
    if (why := snmpd.available()) is not None:
        pytest.skip(why)
    with snmpd.NetSnmpAgents(tmp_path_factory.mktemp("netsnmp"), ["leaf1"], PORTS, v3_user=V3) as agents:
        agents.move()
        yield agents


def run(coro):
    return asyncio.run(coro)


async def poll_with(backend: str, target: SnmpTarget, **settings):
    async with make_poller(backend, **settings) as poller:
        return await poller.poll(target)


def v3_target(agents, auth=V3[1], priv=V3[2], user=V3[0], **kw) -> SnmpTarget:
    return SnmpTarget(device="leaf1", host="127.0.0.1", port=agents.ports["leaf1"], v3=SnmpV3User(user, auth, priv),
                      **kw)


def test_fast_and_pysnmp_read_the_same_sample_over_v3_authpriv(netsnmp):
    target = v3_target(netsnmp)
    fast, slow = run(poll_with("fast", target)), run(poll_with("pysnmp", target))
    assert isinstance(make_poller("fast"), FastSnmpPoller) and FastSnmpPoller.serves(target)
    assert fast.version == slow.version == "v3"
    # The agent's values stand still between two moves: both pollers read the same numbers.
    # (sysUpTime and sysName; per port: ifName, ifHighSpeed and 6 counters; per priority 2; per queue 2)
    assert fast.raw.keys() == slow.raw.keys() and len(fast.raw) == 2 + 64 * 8 + 64 * 8 * 2 + 64 * 8 * 2
    assert {k: v for k, v in fast.raw.items() if k != oids.SYS_UPTIME} == \
           {k: v for k, v in slow.raw.items() if k != oids.SYS_UPTIME}
    assert fast.ports == slow.ports and fast.priorities == slow.priorities and fast.queues == slow.queues
    assert [p.port for p in fast.ports] == PORTS and len(fast.priorities) == 64 * 8


@pytest.mark.parametrize("wrong", ["auth", "user", "short"])
def test_v3_rejected_credentials_are_an_auth_error(netsnmp, wrong):
    bad = {"auth": {"auth": "auth-Wrong-0000"}, "user": {"user": "intruder"}, "short": {"priv": "priv-7"}}[wrong]
    target = v3_target(netsnmp, **bad, timeout_s=1.0, retries=0)
    with pytest.raises(SnmpAuthError) as exc:
        run(poll_with("fast", target))
    assert exc.value.sys_code == "SYS011" and exc.value.device == "leaf1"
    for secret in (*V3[1:], "auth-Wrong-0000", "priv-7"):
        assert secret not in str(exc.value)


def test_v3_wrong_priv_key_times_out_and_says_what_it_may_be(netsnmp):
    """net-snmp drops what it cannot decrypt without a report: the poll times out, and says a wrong
    priv key looks like that."""
    with pytest.raises(SnmpTimeout) as exc:
        run(poll_with("fast", v3_target(netsnmp, priv="priv-Wrong-0000", timeout_s=0.5, retries=0)))
    assert exc.value.sys_code == "SYS013" and "priv key" in exc.value.message
    assert "priv-Wrong-0000" not in str(exc.value)


def test_v3_with_a_context_goes_to_pysnmp(netsnmp):
    """gufo-snmp sends the default context only: a target naming one is polled by the fallback."""
    target = v3_target(netsnmp, context="vrf-mgmt", timeout_s=0.5, retries=0)
    assert not FastSnmpPoller.serves(target)

    async def main():
        async with FastSnmpPoller() as poller:
            with pytest.raises(SnmpError):  # snmpd serves no such context: the fallback's answer
                await poller.poll(target)
            return poller._fallback

    assert isinstance(run(main()), SnmpPoller)


def test_fast_poller_sees_counters_move_and_a_storm(tmp_path):
    with SnmpAgents(tmp_path) as agents:
        agents.add("leaf1", PORTS[:4])
        port = agents.start()["leaf1"]
        target = SnmpTarget(device="leaf1", host="127.0.0.1", port=port, community="leaf1")

        async def main():
            async with make_poller("fast") as poller:
                a = await poller.poll(target)
                agents.storm("leaf1", "Ethernet4", 3)
                b = await poller.poll(target)
                c = await poller.poll(target)
                return a, b, c

        a, b, c = run(main())

    def paused(s):
        return next(p for p in s.priorities if p.port == "Ethernet4" and p.priority == 3).pfc_indications

    def sent(s):
        return next(q for q in s.queues if q.port == "Ethernet4" and q.queue == 3).tx_packets

    assert c.sys_uptime_ticks > a.sys_uptime_ticks and all(q.ports[0].in_octets > a.ports[0].in_octets for q in (b, c))
    assert (paused(c) - paused(b)) / (c.monotonic_s - b.monotonic_s) > 1000  # storming
    assert sent(c) == sent(b)  # the paused queue sends nothing


# -- answers larger than gufo-snmp decodes -------------------------------------------------------------

def _records() -> str:
    """The SONiC agent big1's records for PORTS."""
    return snmprec("big1", sonic_if_indexes(PORTS), range(8))


@pytest.fixture(scope="module")
def big_agent(tmp_path_factory):
    with SnmpAgents(tmp_path_factory.mktemp("big")) as agents:
        agents.add("big1", PORTS)
        yield agents, SnmpTarget(device="big1", host="127.0.0.1", port=agents.start()["big1"], community="big1")


def test_long_if_names_are_walked_in_smaller_answers(big_agent):
    """64 ifNames of 200 characters (a DisplayString holds 255, RFC 2579) make a 64-row GETBULK answer of about
    14 KB, past what gufo-snmp decodes (about 4 KB): the whole poll of the device failed ("incomplete"). The
    column is walked again with fewer rows an answer, kept for the next poll; the other columns keep 64."""
    agents, target = big_agent
    names = {i: f"{port}-{'x' * (199 - len(port))}" for port, i in sonic_if_indexes(PORTS).items()}
    agents.rewrite("big1", with_if_names(_records(), {i: name.encode() for i, name in names.items()}))

    async def main():
        async with FastSnmpPoller() as poller:
            return await poller.poll(target), await poller.poll(target), poller

    first, second, poller = run(main())
    for sample in (first, second):
        assert [p.port for p in sample.ports] == sorted(names.values(), key=lambda n: int(n[8:n.index("-")]))
        assert len(sample.priorities) == 64 * 8 and not sample.unread
    assert not poller.decode_fallbacks
    # 16 rows of 200 characters: about 3.6 KB. ifOutDiscards too: the last column of ifTable, its answer runs on
    # into what follows it in the agent's MIB tree, the ifNames. The counter tables keep 64 rows an answer.
    assert poller._repetitions == {("big1", oids.IF_NAME): 16, ("big1", oids.IF_OUT_DISCARDS): 16}


@pytest.mark.parametrize("length", [3_000, 5_000])
def test_one_huge_if_name_refuses_its_port_only(big_agent, netsnmp, caplog, length):
    """An ifName of 3,000 characters fits an answer with a few short ones (read 16 rows an answer); one of 5,000 does
    not, and gufo-snmp cannot read the device at all: pysnmp polls it from then on (said once in the log).
    Either way that port is refused as pysnmp refuses it, the others read, and another device is unaffected."""
    agents, target = big_agent
    agents.rewrite("big1", with_if_names(_records(), {5: b"E" * length}))
    good = SnmpTarget(device="leaf1", host="127.0.0.1", port=netsnmp.ports["leaf1"], community="public")

    async def main():
        async with FastSnmpPoller() as poller:
            rounds = [await poller.poll_many([target, good]) for _ in range(2)]
            return rounds, poller

    with caplog.at_level(logging.WARNING, logger="losslessd.collect.snmp_fast"):
        rounds, poller = run(main())
    for results in rounds:
        sample = results["big1"]
        assert isinstance(sample, SnmpSample), sample
        assert sample.unread == [f"ifIndex 5: ifName {'E' * 80!r} is {length:,} characters, not 1-255: its counters "
                                 "are left out"]
        assert len(sample.ports) == 63 and "Ethernet4" not in {p.port for p in sample.ports}
        assert len(sample.priorities) == 63 * 8
        assert isinstance(results["leaf1"], SnmpSample) and len(results["leaf1"].priorities) == 64 * 8
    said = [r.getMessage() for r in caplog.records if r.name == "losslessd.collect.snmp_fast"]
    if length == 3_000:
        assert not poller.decode_fallbacks and not said
        assert poller._repetitions[("big1", oids.IF_NAME)] == 16  # 3,000 characters and 15 short names fit
    else:
        assert list(poller.decode_fallbacks) == ["big1"] and len(said) == 1
        assert said[0].startswith("big1: gufo-snmp cannot decode an answer of 1.3.6.1.2.1.31.1.1.1.1")


def test_a_device_sent_to_pysnmp_is_tried_on_the_fast_path_again_after_a_back_off(big_agent, caplog):
    """One answer gufo-snmp could not read (an ifName of 5,000 characters) kept the device on pysnmp, at about 30
    times the CPU a poll, for the rest of the daemon's life: an agent broken for a minute, or hostile once, pinned it
    there. Now the fast path is tried again after 5 minutes, then 10, up to an hour; when the agent answers well
    again the device is back on it, its answer sizes learnt afresh, and the fallback metric's reason is gone."""
    agents, target = big_agent
    agents.rewrite("big1", with_if_names(_records(), {5: b"E" * 5_000}))

    def due(poller):  # the back-off is over (rather than waiting for it)
        poller.fast_again["big1"] = (poller.fast_again["big1"][0], 0.0)

    async def main():
        async with FastSnmpPoller() as poller:
            backoffs, reasons = [], []
            for step in ("broken", "still within the back-off", "broken still", "capped", "mended"):
                if step == "mended":
                    agents.rewrite("big1", _records())
                if step in ("broken still", "mended"):
                    due(poller)
                if step == "capped":
                    poller.fast_again["big1"] = (3_000.0, 0.0)
                sample = await poller.poll(target)
                backoffs.append(poller.fast_again.get("big1", (None,))[0])
                reasons.append(poller.fallback_reason(target))
            return sample, backoffs, reasons, poller, "big1" in poller._sessions  # gufo-snmp's sockets polled it

    with caplog.at_level(logging.WARNING, logger="losslessd.collect.snmp_fast"):
        sample, backoffs, reasons, poller, fast = run(main())
    assert backoffs == [300.0, 300.0, 600.0, 3_600.0, None]
    assert reasons == ["answer_size"] * 4 + [None]  # what losslessd_snmp_fallback_polls_total counts
    said = [r.getMessage() for r in caplog.records if r.name == "losslessd.collect.snmp_fast"]
    assert len(said) == 4 and "for 300 s, then the fast path is tried again" in said[0]
    assert said[-1] == "big1: the fast path reads it again"
    assert fast and not poller.decode_fallbacks
    assert len(sample.ports) == 64 and not sample.unread
    assert ("big1", oids.IF_NAME) not in poller._repetitions  # one row an answer, learnt while broken, is forgotten


def test_a_retried_fast_path_that_times_out_is_no_pysnmp_poll(big_agent):
    """A device on pysnmp (an answer gufo-snmp cannot read) whose agent stops answering (SIGSTOP) when the back-off is
    over: the fast path tries it and times out. That poll is the fast path's, so no fallback reason (before, it said
    answer_size and /metrics counted a pysnmp poll pysnmp never made); the polls within the next back-off are pysnmp's
    again, failed or not, and say so."""
    agents, target = big_agent
    target = dataclasses.replace(target, timeout_s=1.0, retries=0)
    agents.rewrite("big1", with_if_names(_records(), {5: b"E" * 5_000}))

    async def main():
        async with FastSnmpPoller() as poller:
            reasons = []
            await poller.poll(target)
            reasons.append(poller.fallback_reason(target))
            poller.fast_again["big1"] = (poller.fast_again["big1"][0], 0.0)  # the back-off is over
            agents.set_down("big1")
            try:
                for _ in range(2):  # the fast path's retry, then pysnmp within the new back-off
                    with pytest.raises(SnmpTimeout):
                        await poller.poll(target)
                    reasons.append(poller.fallback_reason(target))
            finally:
                agents.set_down("big1", False)
            return reasons, poller

    reasons, poller = run(main())
    assert reasons == ["answer_size", None, "answer_size"]
    assert list(poller.decode_fallbacks) == ["big1"]  # still on pysnmp until the fast path reads it


@pytest.mark.parametrize("huge", [False, True])
def test_v3_rows_that_do_not_fit_an_answer_are_walked_in_smaller_answers(tmp_path, huge):
    """gufo-snmp asks SNMPv3 agents for answers of at most 2,048 bytes, and net-snmp's snmpd answers a GETBULK whose
    rows do not fit with no row at all, which gufo-snmp took as the end of the column: 40 short ifNames then 24 of 160
    characters read no port at all (the 64-row answer holds them all), silently. Now an answer with no row is checked
    with pysnmp: rows follow, so the column is walked in smaller answers (4 rows here), and a row that fits no answer
    (an ifName of 3,000 characters) sends the device to pysnmp, which reads it and refuses that port alone."""
    if (why := snmpd.available()) is not None:
        pytest.skip(why)
    names = PORTS[:40] + [f"{port}-{'x' * 150}" for port in PORTS[40:]]
    if huge:
        names[50] = "E" * 3_000
    with snmpd.NetSnmpAgents(tmp_path, ["leaf1"], names, v3_user=V3) as agents:
        target = v3_target(agents)

        async def main():
            async with FastSnmpPoller() as poller:
                return [await poller.poll(target) for _ in range(2)], poller

        (first, second), poller = run(main())
        slow = run(poll_with("pysnmp", target))
    for sample in (first, second):
        assert [p.port for p in sample.ports] == [p.port for p in slow.ports]
        assert sample.unread == slow.unread and len(sample.priorities) == len(slow.priorities)
    if huge:
        assert len(first.ports) == 63 and first.unread[0].startswith("ifIndex 51: ifName 'EEE")
        assert "no row, yet a row follows" in poller.decode_fallbacks["leaf1"]
        assert poller.fallback_reason(target) == "answer_size"  # counted on /metrics
    else:
        assert [p.port for p in first.ports] == names and not first.unread and not poller.decode_fallbacks
        assert poller._repetitions == {("leaf1", oids.IF_NAME): 4} and poller.fallback_reason(target) is None


def serve_more(agents: snmpd.NetSnmpAgents, rows: dict[str, str]) -> None:
    """OCTET STRING rows added to a running snmpd: its configuration read again (SIGHUP), sysUpTime and the SNMPv3
    engine going on, as an agent whose device gained ports."""
    process = agents._procs[0]
    config = process.home / "snmpd.conf"
    config.write_text(config.read_text() + "".join(f'override .{oid} octet_str "{v}"\n' for oid, v in rows.items()))
    os.kill(process.proc.pid, signal.SIGHUP)
    oid, value = next(reversed(rows.items()))
    deadline = time.monotonic() + 10
    while subprocess.run(["snmpget", "-v2c", "-c", agents.community, "-m", "", "-Oqv", "-t", "1",
                          f"127.0.0.1:{agents.ports['leaf1']}", oid], capture_output=True, text=True,
                         env={**os.environ, "MIBS": ""}).stdout.strip().strip('"') != value:
        assert time.monotonic() < deadline, f"snmpd does not serve {oid} after SIGHUP"
        time.sleep(0.1)


@pytest.mark.parametrize("after", ["a row", "no row"])
def test_rows_added_after_where_a_column_ended_are_read(tmp_path, after):
    """A column's end, once checked with pysnmp, was taken as read for good: 8 ports added after the last ifName
    (250 characters each: an answer of them is larger than the 2,048 bytes gufo-snmp asks SNMPv3 agents for, so
    net-snmp answers with no row) went unread until the device left the inventory. Now an answer with no row where
    a row past the column was seen is checked at once ("a row"); where the end was an answer with no row already
    (here a 1,900-byte row after the column did not fit it: "no row"), it is checked again every
    ``recheck_ends_s`` (5 minutes), so the new ports are read at most that late."""
    if (why := snmpd.available()) is not None:
        pytest.skip(why)
    ports = PORTS[:32]
    added = {f"{oids.IF_NAME}.{1001 + k}": f"New{k}-" + "n" * 245 for k in range(8)}
    with snmpd.NetSnmpAgents(tmp_path, ["leaf1"], ports, v3_user=V3) as agents:
        if after == "no row":
            serve_more(agents, {f"{oids.IF_NAME[:-1]}2.1": "x" * 1_900})  # the OID after the last ifName
        target = v3_target(agents)

        async def main():
            async with FastSnmpPoller(max_varbinds=32) as poller:  # an answer ends at the 32nd ifName
                first = await poller.poll(target)
                serve_more(agents, added)
                second = await poller.poll(target)
                poller.recheck_ends_s = 0.0  # the recheck is due
                return first, second, await poller.poll(target)

        first, second, third = run(main())
    assert [p.port for p in first.ports] == ports
    assert [p.port for p in second.ports] == (ports + list(added.values()) if after == "a row" else ports)
    assert [p.port for p in third.ports] == ports + list(added.values())
    assert not third.unread


TYPED_NAMES = {  # ifIndex -> (snmprec type, value) of ifName.<ifIndex> (snmpsim's tags: the BER type numbers)
    1: ("4", "Ethernet0"),
    2: ("64", "10.0.0.1"),  # an IpAddress: gufo-snmp gives it as the text "10.0.0.1", pysnmp as 4 bytes
    3: ("6", "1.3.6.1.4.1.9"),  # an OBJECT IDENTIFIER: its dotted text on both
    4: ("2", "7"),  # an Integer
    5: ("65", "5"),  # a Counter32
    6: ("70", "9"),  # a Counter64
    7: ("4", "Ethernet24"),
}


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_an_if_name_that_is_no_octet_string_names_no_port_on_either_path(tmp_path, backend):
    """ifName is a DisplayString, an OCTET STRING (RFC 2863). The fast path read an IpAddress or an OID as text (a port
    called "10.0.0.1"), pysnmp an IpAddress as its 4 bytes (refused as not printable) and an OID as text: the type on
    the wire decides now, and both paths refuse the same ports with the same words, naming the OID."""
    lines = [f"{oids.SYS_UPTIME}|67|12345"]
    for i, (kind, value) in TYPED_NAMES.items():
        lines += [f"{oids.IF_NAME}.{i}|{kind}|{value}", f"{oids.CPFC_PRIO_INDICATIONS}.{i}.3|70|{100 + i}"]
    with SnmpAgents(tmp_path) as agents:
        agents.add("typed1", ["Ethernet0"])
        agents._agents["typed1"].data_file.write_text(records_text(lines))
        target = SnmpTarget(device="typed1", host="127.0.0.1", port=agents.start()["typed1"], community="typed1")
        sample = run(poll_with(backend, target))
    assert [p.port for p in sample.ports] == ["Ethernet0", "Ethernet24"]
    assert [(p.port, p.pfc_indications) for p in sample.priorities] == [("Ethernet0", 101), ("Ethernet24", 107)]
    assert sample.unread == [
        f"ifIndex 2: ifName '10.0.0.1' is an IpAddress or OBJECT IDENTIFIER ({oids.IF_NAME}.2), not an OCTET STRING: "
        "its counters are left out",
        f"ifIndex 3: ifName '1.3.6.1.4.1.9' is an IpAddress or OBJECT IDENTIFIER ({oids.IF_NAME}.3), not an OCTET "
        "STRING: its counters are left out",
        "ifIndex 4: ifName is int 7, not text: its counters are left out",
        "ifIndex 5: ifName is int 5, not text: its counters are left out",
        "ifIndex 6: ifName is int 9, not text: its counters are left out"]
    assert sample.raw[f"{oids.IF_NAME}.2"] == "10.0.0.1"  # kept as read, in the same words both ways


# -- hostile agents -----------------------------------------------------------------------------------

class HostileAgent:
    """A UDP agent on 127.0.0.1 answering SNMPv2c with ``mode``: garbage (bytes that are no SNMP),
    silent, loop (every GETBULK answered with the same row), endless (a table that never ends), flood
    (500 junk datagrams for every request, never an answer). The rest serve a 4-row table of every column
    asked, wrong in one way: truncated (each GETBULK answer cut short), other-id (each GETBULK answered
    with another request-id), end-of-view / no-such-object (that exception value between rows 2 and 3),
    repeat (row 2 twice in one answer), wrong-type (an IpAddress in every row), escape (sysDescr.0 between rows 2 and 3:
    an OID before the column), one-row (one row an answer whatever max-repetitions asks), no-room (a GETBULK of more
    than 2 rows answered with no variable binding at all)."""

    def __init__(self, mode: str):
        self.mode = mode
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.requests = 0
        self.closing = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Wake the serving thread with a datagram (closing a socket does not end a recvfrom blocked on it)."""
        self.closing = True
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as waker:
            waker.sendto(b"", ("127.0.0.1", self.port))
        self.thread.join(timeout=5)
        self.sock.close()

    def _serve(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(65535)
            except OSError:
                return
            if self.closing:
                return
            self.requests += 1
            answers = [b"\x30\x03\x02\x01\x01" + bytes(40)] * 500 if self.mode == "flood" else [self._answer(data)]
            for answer in answers:
                try:
                    if answer is not None:
                        self.sock.sendto(answer, peer)
                except OSError:
                    return

    def _answer(self, data: bytes) -> bytes | None:
        if self.mode == "silent":
            return None
        if self.mode == "garbage":
            return b"\x30\x82\xff\xff" + bytes(range(256)) * 4
        msg, _ = decoder.decode(data, asn1Spec=v2c.Message())
        request = v2c.apiMessage.get_pdu(msg)
        response = v2c.apiPDU.get_response(request)
        asked = [oid for oid, _ in v2c.apiPDU.get_varbinds(request)]
        if request.isSameTypeWith(v2c.GetRequestPDU()):
            rows = [(asked[0], v2c.TimeTicks(12345))]
        elif self.mode in TABLE_MODES and int(v2c.apiBulkPDU.get_non_repeaters(request)) == len(asked):
            rows = [self._rows_after(tuple(oid))[0] for oid in asked]  # a GETNEXT of each (pysnmp's, where walks end)
        elif self.mode == "no-room" and int(v2c.apiBulkPDU.get_max_repetitions(request)) > 2:
            rows = []  # room for 2 rows an answer: more are left out, all of them (RFC 3416 4.2.3 allows it)
        elif self.mode in TABLE_MODES:
            return self._table_answer(msg, request, response, tuple(asked[0]))
        elif self.mode == "loop":
            rows = [(v2c.ObjectIdentifier(f"{oids.IF_NAME}.1"), v2c.OctetString(b"Ethernet0"))]
        else:  # endless: the next 50 rows after the cursor, whatever it is
            cursor = tuple(asked[0])
            base = cursor if len(cursor) > 12 else cursor + (0,)
            rows = [(v2c.ObjectIdentifier(base[:-1] + (base[-1] + k,)), v2c.Counter64(k)) for k in range(1, 51)]
        v2c.apiPDU.set_varbinds(response, rows)
        v2c.apiMessage.set_pdu(msg, response)
        return encoder.encode(msg)

    def _table_answer(self, msg, request, response, cursor: tuple[int, ...]) -> bytes:
        """Rows 1-4 of the column asked (what comes after ``cursor``), wrong in the way ``mode`` says."""
        rows = self._rows_after(cursor)
        if self.mode == "other-id":
            v2c.apiPDU.set_request_id(response, int(v2c.apiPDU.get_request_id(request)) + 1)
        v2c.apiPDU.set_varbinds(response, rows)
        v2c.apiMessage.set_pdu(msg, response)
        answer = encoder.encode(msg)
        return answer[:len(answer) // 2] if self.mode == "truncated" else answer

    def _rows_after(self, cursor: tuple[int, ...]) -> list:
        column = next((c for c in TABLE_COLUMNS if cursor[:len(c)] == c), cursor)
        done = cursor[len(column)] if len(cursor) > len(column) else 0
        value = {"wrong-type": v2c.IpAddress("10.0.0.1")}.get(self.mode, v2c.Counter64(7))
        rows = [(v2c.ObjectIdentifier(column + (k,)), value) for k in range(done + 1, 5)]
        if self.mode == "end-of-view" and done < 2:
            rows.insert(2 - done, (v2c.ObjectIdentifier(column + (2,)), v2c.EndOfMibView()))
        elif self.mode == "no-such-object" and done < 2:
            rows.insert(2 - done, (v2c.ObjectIdentifier(column + (2,)), v2c.NoSuchObject()))
        elif self.mode == "repeat" and done < 2:
            rows.insert(2 - done, rows[1 - done])
        elif self.mode == "escape" and done < 2:  # sysDescr.0, before every column: the walk left its column backwards
            rows.insert(2 - done, (v2c.ObjectIdentifier("1.3.6.1.2.1.1.1.0"), v2c.OctetString(b"escaped")))
        elif self.mode == "one-row":  # max-repetitions ignored: one row an answer, whatever was asked
            rows = rows[:1]
        if not rows:  # past the table: the next column's first row
            rows = [(v2c.ObjectIdentifier(column[:-1] + (column[-1] + 1, 1)), v2c.Counter64(1))]
        return rows


TABLE_COLUMNS = [tuple(map(int, c.split("."))) for c in COLUMNS]
TABLE_MODES = ("truncated", "other-id", "end-of-view", "no-such-object", "repeat", "wrong-type", "escape", "one-row",
               "no-room")


@pytest.fixture
def hostile():
    made = []

    def make(mode: str) -> HostileAgent:
        made.append(HostileAgent(mode))
        return made[-1]

    yield make
    for agent in made:
        agent.close()


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
@pytest.mark.parametrize("mode", ["garbage", "silent", "loop", "endless", "flood", "truncated", "other-id", "repeat",
                                  "escape"])
def test_a_hostile_agent_fails_its_own_poll_only(netsnmp, hostile, backend, mode):
    """other-id: pysnmp matched an answer by request-id alone, and one engine polls every device with ids that count
    up: the good device's next request took the hostile agent's rows (collect.snmp.answers_from_their_agent)."""
    agent = hostile(mode)
    bad = SnmpTarget(device="evil", host="127.0.0.1", port=agent.port, community="public", timeout_s=0.5, retries=0)
    good = SnmpTarget(device="leaf1", host="127.0.0.1", port=netsnmp.ports["leaf1"], community="public")

    async def main():
        # A small row cap and deadline so the endless table is cut quickly; the good device is far below both.
        async with make_poller(backend, deadline_s=20.0, max_rows=5000) as poller:
            return await poller.poll_many([bad, good])

    results = run(main())
    assert isinstance(results["leaf1"], SnmpSample) and len(results["leaf1"].priorities) == 64 * 8
    failure = results["evil"]
    assert isinstance(failure, SnmpError) and failure.device == "evil"
    if mode == "silent":
        assert isinstance(failure, SnmpTimeout)
    if mode == "endless":
        assert "rows" in failure.message or isinstance(failure, SnmpTimeout)
    if mode in ("loop", "repeat", "escape"):  # escape: both read rows 1-2 and nothing more, the rest unseen
        assert "grow" in failure.message
    if mode == "truncated" and backend == "fast":  # pysnmp drops what it cannot decode: a timeout
        assert "cannot decode" in failure.message and "pysnmp then: no SNMP v2c answer" in failure.message
    if mode == "other-id":  # an answer to another request is no answer to this one
        assert isinstance(failure, SnmpTimeout)
    assert agent.requests >= 1


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
@pytest.mark.parametrize("mode", ["end-of-view", "no-such-object", "wrong-type", "one-row", "no-room"])
def test_odd_rows_mid_walk_are_read_alike_by_both_pollers(netsnmp, hostile, backend, mode):
    """An exception value between two rows of a GETBULK answer, a row of the wrong type, one row an answer whatever
    max-repetitions asks, an answer left empty when more than 2 rows are asked (the fast path read it as the end of
    the column, pysnmp failed the poll; now both ask again for fewer rows): every row is read, by both pollers
    (pysnmp ended the column at endOfMibView and failed at noSuchObject, gufo-snmp skips both: pysnmp skips them
    now, and an answer of nothing else ends the walk), and no row of the wrong type names a port or counts; nothing
    crashes or waits."""
    agent = hostile(mode)
    bad = SnmpTarget(device="evil", host="127.0.0.1", port=agent.port, community="public", timeout_s=2.0, retries=0)
    good = SnmpTarget(device="leaf1", host="127.0.0.1", port=netsnmp.ports["leaf1"], community="public")

    async def main():
        async with make_poller(backend, deadline_s=20.0) as poller:
            return await poller.poll_many([bad, good])

    results = run(main())  # with retries=0 a request waited for would fail the poll as a timeout
    assert isinstance(results["leaf1"], SnmpSample) and len(results["leaf1"].priorities) == 64 * 8
    odd = results["evil"]
    assert isinstance(odd, SnmpSample), odd
    assert not odd.ports and not odd.priorities and not odd.queues and len(odd.unread) == 4
    assert len(odd.raw) == 1 + 4 * len(COLUMNS)


def test_poll_many_mixes_backends_per_target(netsnmp, tmp_path):
    """The fast poller polls what it serves and hands the rest to pysnmp, in one round."""
    with SnmpAgents(tmp_path, v3_user=V3) as agents:
        agents.add("spine1", ["Ethernet1/1"], priorities=[3])
        port = agents.start()["spine1"]
        with_context = SnmpTarget(device="spine1", host="127.0.0.1", port=port, context="spine1",
                                  v3=SnmpV3User(*V3))

        async def main():
            async with FastSnmpPoller() as poller:
                return await poller.poll_many([with_context, v3_target(netsnmp)])

        results = run(main())
    assert all(isinstance(r, SnmpSample) for r in results.values()), results
    assert [p.port for p in results["spine1"].ports] == ["Ethernet1/1"]


def test_make_poller_refuses_an_unknown_backend():
    with pytest.raises(ValueError, match="unknown SNMP backend"):
        make_poller("turbo")


def test_snmpd_agent_config_keeps_keys_private(netsnmp):
    config = Path(netsnmp.workdir) / "agent0" / "snmpd.conf"
    assert config.stat().st_mode & 0o077 == 0
