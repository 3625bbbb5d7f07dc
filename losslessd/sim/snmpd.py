"""SNMP agents on net-snmp's snmpd (Debian package `snmpd`) serving the OIDs losslessd polls: the
agents of bench/daemon_scale.py, and the SNMPv3 peer of the fast poller's tests.

Why beside snmpsim (losslessd.sim.snmp): snmpsim encodes with pysnmp, about 0.4 ms of CPU per OID,
so one core serves one or two polls of a 64-port switch (2,497 OIDs) a second; a fleet of 200 such
switches at a 10 s interval would need more than ten cores of agents. snmpd serves the same poll
in about 7 ms of CPU. What it cannot do, and how this module gets round it:

* Its ``override`` directive (one OID, a type, a value) has no Counter64, and net-snmp's snmpset
  can set no Counter32: every counter is served as Gauge32. A poller reads the same number of
  varbinds of the same size class; values stay below 2^32 (bases modulo 2^28, rates capped at
  RATE_CAP_PER_S so that they do not wrap within a day).
* Values do not move by themselves: ``move()`` sets every counter to base + rate x elapsed with
  ``snmpset`` (128 varbinds a call), from the same records and storm state as snmpsim's variation
  module (losslessd.sim.snmpsim_variation.lossless.counter), so a storm looks the same.
* One data set per process: every device a process serves shares its values (a fleet of look-alike
  switches); ``processes`` spreads the devices over several processes so that the agents are not
  the limit of a bench.

No contextName: snmpd serves the default context, the one gufo-snmp (the fast poller) asks for.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from losslessd import counters_oids as oids

from .counters import Traffic, storm_key
from .snmp import _free_udp_port, _probe_packet, _terminate, snmprec, sonic_if_indexes
from .snmpsim_variation.lossless import counter

SNMPD = "/usr/sbin/snmpd"
SNMPSET = "snmpset"
START_TIMEOUT_S = 30.0
RATE_CAP_PER_S = 40_000.0  # (2^32 - 2^28) / 86,400 s ~ 46,600: no wrap within a day
BASE_MODULUS = 2**28
SET_BATCH = 128  # snmpset takes at most 128 assignments a call ("Only 128 allowed in one request")
READ_COMMUNITY = "public"
_WRITE_COMMUNITY = "losslessd-bench-rw"  # 127.0.0.1 only; it can change nothing but the simulated values


def available() -> str | None:
    """None when snmpd and snmpset are installed, else what is missing."""
    missing = [tool for tool in (SNMPD, SNMPSET) if shutil.which(tool) is None]
    return None if not missing else f"{', '.join(missing)} not installed (Debian: apt-get install snmpd snmp)"


@dataclass
class _Process:
    index: int
    home: Path
    devices: list[str]
    ports: dict[str, int]
    traffic: Traffic = field(default_factory=Traffic)
    proc: subprocess.Popen | None = None


class NetSnmpAgents:
    """snmpd processes serving ``devices`` look-alike switches of ``ports`` ports; a context manager.

    ``ports[device]`` is the UDP port of each device, ``community`` its SNMPv2c community; with
    ``v3_user`` = (user, auth key, priv key), that user is served too (SHA, AES, authPriv)."""

    def __init__(self, workdir: str | Path, devices: Iterable[str], ports: list[str], *, processes: int = 1,
                 priorities: Iterable[int] = range(8), v3_user: tuple[str, str, str] | None = None):
        self.workdir = Path(workdir) / "snmpd"
        self.devices = list(devices)
        self.if_indexes = sonic_if_indexes(list(ports))
        self.v3_user = v3_user
        self.community = READ_COMMUNITY
        self._records = _records(snmprec("netsnmp-fleet", self.if_indexes, priorities))
        count = max(1, min(processes, len(self.devices)))
        self._procs = [_Process(i, self.workdir / f"agent{i}", self.devices[i::count], {}) for i in range(count)]
        self.ports: dict[str, int] = {}

    @property
    def pids(self) -> list[int]:
        return [p.proc.pid for p in self._procs if p.proc is not None]

    def __enter__(self) -> NetSnmpAgents:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> NetSnmpAgents:
        if (why := available()) is not None:
            raise RuntimeError(why)
        try:
            for process in self._procs:
                self._launch(process)
            for process in self._procs:
                for attempt in range(3):  # another process may take a free port before snmpd binds it
                    try:
                        self._wait_ready(process)
                        break
                    except RuntimeError:
                        if attempt == 2:
                            raise
                        self._terminate(process)
                        self._launch(process)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for process in self._procs:
            self._terminate(process)

    @staticmethod
    def _terminate(process: _Process) -> None:
        if process.proc is not None:
            _terminate(process.proc)
        process.proc = None

    def move(self, now: float | None = None) -> None:
        """Set every counter of every process to its value at ``now`` (base + rate x elapsed, storms
        included)."""
        now = time.time() if now is None else now
        for process in self._procs:
            state = process.traffic.snapshot()
            values = [(oid, counter(spec, state, now, 2**32)) for oid, spec in self._records if "b" in spec]
            for k in range(0, len(values), SET_BATCH):
                args = []
                for oid, value in values[k:k + SET_BATCH]:
                    args += [oid, "u", str(value)]
                port = next(iter(process.ports.values()))
                subprocess.run([SNMPSET, "-v2c", "-c", _WRITE_COMMUNITY, "-m", "", "-Oq", "-t", "5",
                                f"127.0.0.1:{port}", *args], check=True, capture_output=True, env=_env(process))

    def storm(self, port: str, priority: int, on: bool = True) -> None:
        """Storm (or stop storming) ``port``/``priority`` on every device (they share values); seen
        from the next ``move()``."""
        key = storm_key(self.if_indexes, port, priority)
        for process in self._procs:
            process.traffic.storm(key, on)

    # -- processes -----------------------------------------------------------------------------------
    def _launch(self, process: _Process) -> None:
        process.home.mkdir(parents=True, exist_ok=True)
        for device in process.ports:
            self.ports.pop(device, None)
        process.ports = {d: _free_udp_port() for d in process.devices}
        endpoints = ",".join(f"udp:127.0.0.1:{p}" for p in process.ports.values())
        lines = [f"agentaddress {endpoints}", f"rocommunity {READ_COMMUNITY} 127.0.0.1",
                 f"rwcommunity {_WRITE_COMMUNITY} 127.0.0.1"]
        if self.v3_user:
            user, auth, priv = self.v3_user
            lines += [f'createUser {user} SHA "{auth}" AES "{priv}"', f"rouser {user} priv"]
        for oid, spec in self._records:
            if oid.startswith(oids.IF_NAME + "."):
                lines.append(f'override .{oid} octet_str "{spec["name"]}"')
            elif "gauge" in spec:  # (net-snmp's uinteger is ASN_UNSIGNED, SMIv2's Gauge32)
                lines.append(f"override .{oid} uinteger {spec['gauge']}")
            else:
                lines.append(f"override -rw .{oid} uinteger {int(spec['b']) % 2**32}")
        config = process.home / "snmpd.conf"
        # (v3 keys: the owner's alone)
        with os.fdopen(os.open(config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        log = open(process.home / "snmpd.log", "wb")
        with log:
            process.proc = subprocess.Popen(
                [SNMPD, "-f", "-C", "-c", str(config), "-Lf", str(process.home / "snmpd.log"), "-I",
                 "-ifTable,ifXTable,interfaces,if_mib,hrSWRunTable,hrSWInstalledTable"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=_env(process),
                start_new_session=True)
        self.ports.update(process.ports)

    def _wait_ready(self, process: _Process) -> None:
        probe = _probe_packet(READ_COMMUNITY)
        deadline = time.monotonic() + START_TIMEOUT_S
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.2)
            for port in process.ports.values():
                while True:
                    if process.proc is None or process.proc.poll() is not None or time.monotonic() > deadline:
                        log = (process.home / "snmpd.log").read_text(encoding="utf-8", errors="replace")[-2000:]
                        raise RuntimeError(f"snmpd {process.index} did not start:\n{log}")
                    s.sendto(probe, ("127.0.0.1", port))
                    try:
                        s.recv(4096)
                        break
                    except (TimeoutError, ConnectionRefusedError):
                        continue


def _env(process: _Process) -> dict[str, str]:
    # MIBS="": no MIB files read (start-up and each snmpset); a private persistent dir, not /var/lib/snmp.
    return {**os.environ, "MIBS": "", "SNMP_PERSISTENT_DIR": str(process.home / "persist")}


def _records(text: str) -> list[tuple[str, dict[str, str]]]:
    """The counters of an .snmprec (OID, spec with b and r, rates capped), ifName (spec name) and gauges (spec gauge);
    sysUpTime and sysName are snmpd's own, and so ifCounterDiscontinuityTime (a sysUpTime of snmpsim's clock) is left
    out."""
    out = []
    for line in text.splitlines():
        oid, tag, value = line.split("|", 2)
        if oid in (oids.SYS_UPTIME, oids.SYS_NAME) or oid.startswith(oids.IF_COUNTER_DISCONTINUITY_TIME + "."):
            continue
        if tag == "4x":
            out.append((oid, {"name": bytes.fromhex(value).decode()}))
            continue
        if tag == "66":  # a Gauge32 that stays (ifHighSpeed)
            out.append((oid, {"gauge": value}))
            continue
        spec = dict(item.split("=", 1) for item in value.split(","))
        spec["b"] = str(int(spec["b"]) % BASE_MODULUS)
        spec["r"] = str(min(float(spec["r"]), RATE_CAP_PER_S))
        spec.pop("w", None)  # no wrap mode here
        out.append((oid, spec))
    return out
