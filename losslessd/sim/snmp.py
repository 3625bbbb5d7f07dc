"""Simulated SNMP agents: snmpsim processes on 127.0.0.1 serving the OIDs a SONiC switch serves
(losslessd.counters_oids), or an Arista EOS switch's own PFC table, with counters that move, PFC storms
and agent faults on demand.

Each device gets ``<home>/data/<community>.snmprec`` (the SNMPv2c community and the SNMPv3
contextName are that file's name) and its counter state (losslessd.sim.counters.Traffic) as a JSON
file beside it, which the ``lossless`` variation module (snmpsim_variation/lossless.py) reads on
every request. By default every device has its own process (its own UDP port, like a real box);
``shared=True`` serves them all from one process and port, told apart by community or context,
which is how a bench runs hundreds of devices on two cores.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from losslessd import counters_oids as oids

from .counters import AVG_PACKET_BYTES, NORMAL_PAUSE_PER_S, STORM_PAUSE_PER_S, Traffic, storm_key

__all__ = ["NORMAL_PAUSE_PER_S", "STORM_PAUSE_PER_S", "SnmpAgents", "snmprec", "sonic_if_indexes"]

VARIATION_DIR = Path(__file__).parent / "snmpsim_variation"
START_TIMEOUT_S = 30.0

_SONIC_PORT = re.compile(r"^Ethernet(\d+)$")
# Platforms whose agent serves ARISTA-PFC-MIB's aristaPfcPriorityTable (losslessd.counters_oids) and none of
# the Cisco tables SONiC's sonic-snmpagent serves (CISCO-PFC-EXT-MIB, CISCO-SWITCH-QOS-MIB): Arista EOS, whose
# per-queue counters come over gNMI (losslessd.monitor.gnmi, openconfig_eos).
_ARISTA_PFC = frozenset({"arista_eos"})


def sonic_if_indexes(ports: list[str]) -> dict[str, int]:
    """ifIndex per port as SONiC numbers them (EthernetN -> N+1, sonic-snmpagent mibs/__init__.py
    get_index_from_str); other names are numbered 1, 2, ... in the order given."""
    found = [_SONIC_PORT.match(p) for p in ports]
    if all(found) and len({m.group(1) for m in found}) == len(ports):
        return {p: int(m.group(1)) + 1 for p, m in zip(ports, found)}
    return {p: i for i, p in enumerate(ports, start=1)}


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _probe_packet(community: str) -> bytes:
    """An SNMPv2c GET of sysUpTime, to see that an agent answers."""
    from pyasn1.codec.ber import encoder
    from pysnmp.proto.api import v2c

    pdu = v2c.GetRequestPDU()
    v2c.apiPDU.set_defaults(pdu)
    v2c.apiPDU.set_varbinds(pdu, [(v2c.ObjectIdentifier(oids.SYS_UPTIME), v2c.null)])
    msg = v2c.Message()
    v2c.apiMessage.set_defaults(msg)
    v2c.apiMessage.set_community(msg, community)
    v2c.apiMessage.set_pdu(msg, pdu)
    return encoder.encode(msg)


def _oid_key(line: str) -> tuple[int, ...]:
    return tuple(int(x) for x in line.split("|", 1)[0].split("."))


def records_text(lines: Iterable[str]) -> str:
    """``OID|TYPE|VALUE`` lines as an snmprec data file's text: sorted numerically by OID, as snmpsim walks them."""
    return "\n".join(sorted(lines, key=_oid_key)) + "\n"


def snmprec(name: str, if_indexes: dict[str, int], priorities: Iterable[int], platform: str = "sonic",
            carried: dict[str, dict[int, int]] | None = None, speeds: dict[str, int] | None = None) -> str:
    """The .snmprec text for one device: numerically sorted ``OID|TYPE|VALUE`` lines, the tables its
    platform's agent serves (``_ARISTA_PFC``: EOS serves ARISTA-PFC-MIB, not Cisco's tables).

    Counters are ``lossless`` variation records (base, rate per second, storm keys); the bases and
    traffic rates are drawn from a generator seeded with the device name, so a fabric is the same
    on every run. ``carried``: port -> egress queue -> the priority whose storm stops it (sim.counters.stopped_by,
    from the device's maps); without it queue n stops with priority n. ``speeds``: port -> its speed in Mb/s, served
    as ifHighSpeed (0 where not given: RFC 2863's "not known"); a port's octets never count faster than it.
    """
    arista = platform in _ARISTA_PFC
    requests, indications = ((oids.ARISTA_PFC_PRIO_REQUESTS, oids.ARISTA_PFC_PRIO_INDICATIONS) if arista
                             else (oids.CPFC_PRIO_REQUESTS, oids.CPFC_PRIO_INDICATIONS))
    rng = random.Random(name)
    prios = list(priorities)
    c64 = "70:lossless"
    uptime = f"67:lossless|b={rng.randrange(10**6, 10**9)},r=100"
    lines = [f"{oids.SYS_UPTIME}|{uptime}", f"{oids.SYS_NAME}|4|{name}"]  # (a switch's agent names it: sysName)
    for port, idx in if_indexes.items():
        in_rate, out_rate = rng.uniform(1e8, 5e9), rng.uniform(1e8, 5e9)
        mbps = (speeds or {}).get(port, 0)
        if mbps:  # (at most 80 % of the line: a port's octets are bounded by its speed, counters.py rule 3)
            in_rate, out_rate = min(in_rate, 0.8 * mbps * 1e6 / 8), min(out_rate, 0.8 * mbps * 1e6 / 8)
        queue_pps = out_rate / AVG_PACKET_BYTES / max(len(prios), 1)
        sent, received = {p: rng.randrange(10**5) for p in prios}, {p: rng.randrange(10**5) for p in prios}
        all_prios = NORMAL_PAUSE_PER_S * len(prios)
        lines += [
            f"{oids.IF_NAME}.{idx}|4x|{port.encode().hex()}",
            f"{oids.IF_HC_IN_OCTETS}.{idx}|{c64}|b={rng.randrange(10**15)},r={in_rate:.0f}",
            f"{oids.IF_HC_OUT_OCTETS}.{idx}|{c64}|b={rng.randrange(10**15)},r={out_rate:.0f}",
            # Counter32: `w` lets the wrap mode start them just below 2^32.
            f"{oids.IF_IN_DISCARDS}.{idx}|65:lossless|b={rng.randrange(10**4)},r=0.5,w=1",
            f"{oids.IF_OUT_DISCARDS}.{idx}|65:lossless|b={rng.randrange(10**4)},r=0.5,w=1",
            # ifXTable ifHighSpeed: a Gauge32 (type 66) of Mb/s, as sonic-snmpagent serves a port's speed (RFC 2863)
            f"{oids.IF_HIGH_SPEED}.{idx}|66|{mbps}",
            # ifCounterDiscontinuityTime, a TimeStamp: sysUpTime when the port's counters last restarted beneath the
            # running agent (Simulator.syncd_restart), 0 when not since it started (RFC 2863 ifXEntry 19, RFC 2579
            # TimeStamp); SONiC's agent serves 0 always (sonic-snmpagent rfc2863.py), so a SONiC switch does too
            f"{oids.IF_COUNTER_DISCONTINUITY_TIME}.{idx}|" + ("67|0" if platform == "sonic" else f"{uptime},d=1"),
        ]
        if not arista:  # per port: the sum over priorities, as CISCO-PFC-EXT-MIB describes it
            lines += [f"{oids.CPFC_IF_REQUESTS}.{idx}|{c64}|b={sum(sent.values())},r={all_prios}",
                      f"{oids.CPFC_IF_INDICATIONS}.{idx}|{c64}|b={sum(received.values())},r={all_prios},up={idx}"]
        for p in prios:
            key = f"{idx}.{p}"
            csq = f"{oids.CSQ_QOS_GROUP_STATS}.{idx}.{oids.CSQ_EGRESS}.{p + 1}"  # queue p (qos-group p, 1-based row)
            held = key if carried is None else f"{idx}.{carried.get(port, {}).get(p)}"  # whose pause stops queue p
            queue = [
                # The paused queue stops transmitting: what SONiC's PFC watchdog looks for.
                f"{csq}.{oids.CSQ_UCAST_PACKETS}|{c64}|b={rng.randrange(10**12)},r={queue_pps:.0f},stop={held}",
                f"{csq}.{oids.CSQ_UCAST_DROPPED_PACKETS}|{c64}|b={rng.randrange(10**3)},r=0,c={held}/drop",
            ]
            lines += [
                f"{requests}.{key}|{c64}|b={sent[p]},r={NORMAL_PAUSE_PER_S},c={key}/pfc_tx",
                f"{indications}.{key}|{c64}|b={received[p]},r={NORMAL_PAUSE_PER_S},up={key}",
                *([] if arista else queue),
            ]
    return records_text(lines)


@dataclass
class _Agent:
    name: str
    community: str
    home: Path  # the process's folder: the device's own, or the one all devices share
    if_indexes: dict[str, int]
    traffic: Traffic
    records: dict[str, Any]  # snmprec's keywords beyond the name and ifIndexes: a change of speed writes the file again
    port: int | None = None
    proc: subprocess.Popen | None = None
    down: bool = False

    @property
    def data_file(self) -> Path:
        return self.home / "data" / f"{self.community}.snmprec"

    @property
    def state_file(self) -> Path:
        return self.home / "data" / f"{self.community}.state.json"


class SnmpAgents:
    """snmpsim agents for a set of simulated devices; use as a context manager or call stop().

    ``wrap32_after_s``: the Counter32 columns (ifInDiscards, ifOutDiscards) start just below 2^32 and
    wrap that many seconds after start() returns."""

    def __init__(self, workdir: str | Path, v3_user: tuple[str, str, str] | None = None, *, shared: bool = False,
                 wrap32_after_s: float | None = None):
        self.workdir = Path(workdir) / "snmp"
        if v3_user and any(not v or any(c.isspace() for c in v) for v in v3_user):
            raise ValueError("SNMPv3 user, auth key and priv key must be non-empty and without blanks")
        self.v3_user = v3_user  # (user, SHA auth key, AES priv key), served by every agent
        self.shared = shared
        self.wrap32_after_s = wrap32_after_s
        self._agents: dict[str, _Agent] = {}

    def add(self, name: str, ports: list[str], priorities: Iterable[int] = range(8),
            traffic: Traffic | None = None, platform: str = "sonic",
            carried: dict[str, dict[int, int]] | None = None, speeds: dict[str, int] | None = None) -> str:
        """Generate the device's data file; returns its community (also its SNMPv3 contextName).
        ``traffic`` is the device's counter state when the caller shares it (the SSH side does);
        ``platform`` chooses the tables its agent serves, ``speeds`` its ports' Mb/s (snmprec)."""
        community = re.sub(r"[^A-Za-z0-9_-]", "_", name)
        if name in self._agents or any(a.community == community for a in self._agents.values()):
            raise ValueError(f"SNMP agent for {name!r} added twice")
        home = self.workdir / ("shared" if self.shared else community)
        records: dict[str, Any] = {"priorities": list(priorities), "platform": platform, "carried": carried,
                                   "speeds": dict(speeds or {})}
        agent = _Agent(name, community, home, sonic_if_indexes(list(ports)), traffic or Traffic(), records)
        agent.data_file.parent.mkdir(parents=True, exist_ok=True)
        agent.data_file.write_text(snmprec(name, agent.if_indexes, **records), encoding="utf-8")
        self.publish(name, agent)
        self._agents[name] = agent
        return community

    def start(self) -> dict[str, int]:
        """Start every process not yet running (in parallel); returns {name: UDP port}."""
        pending: dict[Path, list[_Agent]] = {}
        for agent in self._agents.values():
            if agent.proc is None:
                pending.setdefault(agent.home, []).append(agent)
        if self.shared and pending:  # a process reads its data files when it starts: restart it for new ones
            pending = {home: list(self._agents.values()) for home in pending}
        for agents in pending.values():
            self._launch(agents)
        for agents in pending.values():
            for _ in range(3):  # another process may grab the free port before snmpsim binds it
                if self._wait_ready(agents[0]):
                    break
                self._launch(agents)
            else:
                log = (agents[0].home / "agent.log").read_text(encoding="utf-8", errors="replace")[-2000:]
                raise RuntimeError(f"snmpsim for {agents[0].name} did not start:\n{log}")
        if self.wrap32_after_s is not None:
            wrap_at = time.time() + self.wrap32_after_s
            for agents in pending.values():
                for agent in agents:
                    agent.traffic.set(wrap_at=wrap_at)
                    self.publish(agent.name)
        return {a.name: a.port for a in self._agents.values()}

    def storm(self, name: str, port: str, priority: int, on: bool = True, ecn_healthy: bool = False,
              drains: bool = False) -> None:
        """Switch a PFC storm on ``port``/``priority`` on or off: while on, that priority's pause
        indications climb by STORM_PAUSE_PER_S and its egress queue stops transmitting (unless
        ``drains``: congestion, the queue keeps sending)."""
        agent = self._agents[name]
        try:
            key = storm_key(agent.if_indexes, port, priority)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        agent.traffic.storm(key, on, ecn_healthy, drains=drains)
        self.publish(name)

    def reset(self, name: str) -> None:
        """The agent restarts: sysUpTime and every counter start again from zero."""
        self._agents[name].traffic.reset()
        self.publish(name)

    def syncd_restart(self, name: str) -> None:
        """The device's counters restart from zero beneath its running agent, sysUpTime going on (Traffic.syncd_restart:
        a SONiC syncd restart or `config reload`)."""
        self._agents[name].traffic.syncd_restart()
        self.publish(name)

    def wrap32(self, name: str, after_s: float) -> None:
        """The Counter32 columns of ``name`` read just below 2^32 and cross it ``after_s`` seconds from
        now (the wrap moves: a test sets it ahead of its own first poll, however slow the machine)."""
        self._agents[name].traffic.set(wrap_at=time.time() + after_s)
        self.publish(name)

    def set_slow(self, name: str, delay_s: float) -> None:
        """Wait ``delay_s`` before answering sysUpTime, the first request of every poll (0: answer at
        once again). The wait blocks the agent's process, so a shared process would delay every
        device: refused there."""
        if self.shared:
            raise ValueError("set_slow needs a process per device (SnmpAgents(shared=False))")
        self._agents[name].traffic.set(slow_s=float(delay_s))
        self.publish(name)

    def set_garbage(self, name: str, on: bool = True) -> None:
        """Answer every counter with a string instead of a number (sysUpTime and ifName stay right)."""
        self._agents[name].traffic.set(garbage=on)
        self.publish(name)

    def set_down(self, name: str, down: bool = True) -> None:
        """Stop answering: a device's own process is stopped (SIGSTOP), so every request times out;
        in a shared process the device's counters stop answering (its requests time out as well)."""
        agent = self._agents[name]
        if self.shared:
            agent.traffic.set(down=down)
            self.publish(name)
        elif agent.proc is not None and agent.down != down:
            agent.proc.send_signal(signal.SIGSTOP if down else signal.SIGCONT)
        agent.down = down

    def set_speed(self, name: str, port: str, mbps: int) -> None:
        """The port's link came up again at another speed (a renegotiation): its ifHighSpeed serves ``mbps``, its
        counters go on (RFC 2863: a link flap is no counter discontinuity)."""
        agent = self._agents[name]
        if port not in agent.if_indexes:
            raise ValueError(f"{name}: no port {port!r}")
        agent.records["speeds"][port] = mbps
        self.rewrite(name, snmprec(name, agent.if_indexes, **agent.records))

    def rewrite(self, name: str, text: str) -> None:
        """Replace the records the device's running agent serves (a test's hostile answers). snmpsim keeps an index of
        byte offsets into the data file and rebuilds it only when the file's mtime, in whole seconds, changes
        (snmpsim/record/search/database.py): a rewrite within the second the index was built would be served through
        the old offsets (a walk then answers one OID twice). The mtime is moved on by two seconds."""
        path = self._agents[name].data_file
        before = path.stat().st_mtime
        path.write_text(text, encoding="utf-8")
        later = max(before, path.stat().st_mtime) + 2
        os.utime(path, (later, later))

    def publish(self, name: str, agent: _Agent | None = None) -> None:
        """Write the device's counter state where its agent reads it (after a change made to it)."""
        agent = agent or self._agents[name]
        tmp = agent.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(agent.traffic.snapshot()), encoding="utf-8")
        os.replace(tmp, agent.state_file)  # atomic: the agent never reads half a file

    def stop(self) -> None:
        for proc in {a.proc for a in self._agents.values() if a.proc is not None}:
            _terminate(proc)
        for agent in self._agents.values():
            agent.proc = None

    def __enter__(self) -> SnmpAgents:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _launch(self, agents: list[_Agent]) -> None:
        """(Re)start the process serving ``agents`` (which share one home) on a free port."""
        home = agents[0].home
        for proc in {a.proc for a in agents if a.proc is not None}:
            _terminate(proc)
        port = _free_udp_port()
        args = [
            sys.executable, "-m", "snmpsim.commands.responder",
            "--log-level=error",  # info would log every request and the USM keys
            f"--cache-dir={home / 'cache'}",
            f"--variation-modules-dir={VARIATION_DIR}",
            # One SNMP engine (snmpsim starts it with --v3-engine-id=auto) configured by these:
            f"--data-dir={home / 'data'}",
            f"--agent-udpv4-endpoint=127.0.0.1:{port}",
        ]
        if self.v3_user:
            # The keys go in a 0600 file rather than on the command line, where `ps` shows them.
            user, auth_key, priv_key = self.v3_user
            keys = home / "v3-user.args"
            keys.unlink(missing_ok=True)
            with os.fdopen(os.open(keys, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as f:
                f.write(f"--v3-user={user} --v3-auth-key={auth_key} --v3-auth-proto=SHA "
                        f"--v3-priv-key={priv_key} --v3-priv-proto=AES\n")
            args.append(f"--args-from-file={keys}")
        env = dict(os.environ, SNMPSIM_ALLOW_ROOT="true")  # it refuses to run as root otherwise
        with open(home / "agent.log", "wb") as log:
            proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, start_new_session=True)
        for agent in agents:
            agent.proc, agent.port, agent.down = proc, port, False

    @staticmethod
    def _wait_ready(agent: _Agent) -> bool:
        """True once the agent answers a GET; False if the process exited."""
        probe = _probe_packet(agent.community)
        deadline = time.monotonic() + START_TIMEOUT_S
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.2)
            while time.monotonic() < deadline:
                if agent.proc.poll() is not None:
                    return False
                s.sendto(probe, ("127.0.0.1", agent.port))
                try:
                    s.recv(4096)
                    return True
                except (TimeoutError, ConnectionRefusedError):
                    continue
        return False


def _terminate(proc: subprocess.Popen, timeout_s: float = 5.0) -> None:
    """SIGTERM (after SIGCONT), then SIGKILL when it has not exited within ``timeout_s``."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGCONT)  # a stopped process would never handle SIGTERM
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
