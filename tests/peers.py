"""Real peers for integration tests: the device simulator (SSH CLIs and SNMP agents on 127.0.0.1).

tests/conftest.py loads this module as a pytest plugin, so every test can ask for these fixtures:

- ``sim_fabric``: examples/fabric served over SSH and SNMPv2c, started once for the whole session
  (every module gets the same simulator). Tests must not change it: faults belong
  to a simulator of their own.
- ``make_sim(devices=None, snmp=True, snmp_v3=False, ssh=True, fabric=FABRIC)``: starts a simulator
  for one test and stops it after the test; use it for set_down, set_password, garble, storms.
- ``ssh_params(sim, name)``: netmiko ConnectHandler arguments that log in as the inventory would,
  verifying the host key against the simulator's known_hosts.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from losslessd import counters_oids as oids
from losslessd.collect.snmp import make_poller
from losslessd.sim import Simulator

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "examples" / "fabric"
BOTH_MAPS = ("TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE")


def if_name_record(if_index: int, name: bytes | int) -> str:
    """An snmprec line serving ``name`` as ifName.<if_index> (IF-MIB, RFC 2863): bytes as an OctetString in hex (any
    byte an agent may send: escapes, bytes that are not UTF-8), an int as an Integer where a DisplayString belongs."""
    if isinstance(name, int):
        return f"{oids.IF_NAME}.{if_index}|2|{name}"
    return f"{oids.IF_NAME}.{if_index}|4x|{name.hex()}"


def with_if_names(records: str, names: dict[int, bytes | int]) -> str:
    """An agent's snmprec ``records`` with the ifName of the ifIndexes in ``names`` replaced (if_name_record): the
    hostile port names a device may serve."""
    lines = records.splitlines()
    for if_index, name in names.items():
        at = next(k for k, line in enumerate(lines) if line.startswith(f"{oids.IF_NAME}.{if_index}|"))
        lines[at] = if_name_record(if_index, name)
    return "\n".join(lines) + "\n"


def swapped_leaf1(folder: Path, name: str = "leaf1", tables: tuple[str, ...] = BOTH_MAPS) -> Path:
    """examples/fabric/leaf1 copied to ``folder``/``name`` (its hostname ``name``) with priorities 3 and 4 swapped in
    its ROCE ``tables`` (both: TC 3's traffic and pause on queue 4; TC_TO_QUEUE_MAP alone: its traffic on queue 4, its
    pause still stopping queue 3); returns ``folder``."""
    shutil.copytree(FABRIC / "leaf1", folder / name)
    path = folder / name / "config_db.json"
    db = json.loads(path.read_text())
    db["DEVICE_METADATA"]["localhost"]["hostname"] = name
    for table in tables:
        db[table]["ROCE"].update({"3": "4", "4": "3"})
    path.write_text(json.dumps(db, indent=2))
    return folder

@pytest.fixture(scope="session")
def sim_fabric(tmp_path_factory) -> Simulator:
    sim = Simulator(FABRIC, tmp_path_factory.mktemp("sim-fabric")).start()
    yield sim
    sim.stop()


@pytest.fixture
def make_sim(tmp_path):
    started: list[Simulator] = []

    def start(devices: list[str] | None = None, *, snmp: bool = True, snmp_v3: bool = False, ssh: bool = True,
              fabric: Path = FABRIC) -> Simulator:
        sim = Simulator(fabric, tmp_path / f"sim{len(started)}", ssh=ssh, snmp=snmp, devices=devices,
                        snmp_v3=snmp_v3)
        started.append(sim)
        return sim.start()

    yield start
    for sim in started:
        sim.stop()


def ssh_params(sim: Simulator, name: str, **overrides) -> dict:
    d = sim.devices[name]
    params = {"device_type": d.netmiko_device_type, "host": d.host, "port": d.ssh_port, "username": d.username,
              "password": sim.env[d.password_env], "ssh_strict": True, "system_host_keys": False,
              "alt_host_keys": True, "alt_key_file": str(sim.known_hosts_path), "allow_agent": False,
              "use_keys": False, "conn_timeout": 10}
    params.update(overrides)
    return params


@pytest.fixture(scope="module")
def run():
    """Run coroutines on one event loop, so one poller (one SNMP engine) serves the whole module."""
    loop = asyncio.new_event_loop()
    yield loop.run_until_complete
    loop.close()


@pytest.fixture(scope="module")
def poller(run):
    """The daemon's default SNMP poller (the fast one when it can be imported) on ``run``'s loop."""
    p = make_poller("auto")
    yield p
    run(p.aclose())
