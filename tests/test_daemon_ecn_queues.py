"""A real `losslessd daemon` reads a priority's ECN marks from the egress queue the switch's own maps put it on
(SONiC TC_TO_QUEUE_MAP), never from the queue numbered like the priority: the maps come from the config the daemon
reads at its start for the devices it polls (each shard its own), and its drift runs refresh them."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest

from losslessd.daemon.shard import hashmod
from losslessd.sim import PASSWORD_ENV, Simulator

from .clirun import losslessd
from .daemonproc import INTERVAL_S, DaemonProcess, wait_for
from .peers import swapped_leaf1


def _swapped_fabric(tmp_path: Path, names: list[str]) -> Path:
    """leaf1's config as each of ``names`` (its hostname), with TC 3 on queue 4 and TC 4 on queue 3."""
    for name in names:
        swapped_leaf1(tmp_path / "fabric", name)
    return tmp_path / "fabric"


@contextmanager
def _running(tmp_path: Path, names: list[str], *, args: tuple[str, ...] = (), password: str | None = None,
             **overrides):
    """The simulator serving ``names`` (_swapped_fabric; ``password``: what they accept at first) and a daemon polling
    their ECN marks every INTERVAL_S, stopped at the end (cleanly)."""
    sim = Simulator(_swapped_fabric(tmp_path, names), tmp_path / "sim", devices=names).start()
    daemon = DaemonProcess(sim, tmp_path / "daemon", detection={"ecn_polls": 2},
                           poll={"ssh_counters_interval_s": INTERVAL_S}, **overrides)
    for name in names if password is not None else []:
        sim.set_password(name, password)
    try:
        daemon.start(args=args)
        yield sim, daemon
    finally:
        assert daemon.stop() == 0
        sim.stop()


def _only_the_unmarked_port_is_found(sim: Simulator, daemon: DaemonProcess, device: str) -> None:
    """Ethernet12 congested with ECN marking on its queue 4 (healthy), Ethernet0 without marks: only Ethernet0 is
    "PFC doing ECN's job". Read by number (queue 3, which carries no lossless class and never marks), Ethernet12 was
    too; with the maps unknown, neither is (the detector holds)."""
    wait_for(lambda: daemon.value("losslessd_ecn_marked_packets_total", device=device, port="Ethernet12",
                                  queue="4") is not None, f"{device}'s ECN marks read over SSH")
    sim.congest(device, "Ethernet12", 3, ecn_healthy=True)  # queue 4 marks with the pauses
    sim.congest(device, "Ethernet0", 3)  # no marks anywhere
    try:
        [event] = wait_for(lambda: daemon.events(device=device, kind="ecn_not_marking"), "ecn_not_marking", 60)
        assert (event["port"], event["priority"]) == ("Ethernet0", 3)
        polled = daemon.value("losslessd_polls_total", device=device, source="ssh")
        wait_for(lambda: daemon.value("losslessd_polls_total", device=device, source="ssh") >= polled + 3,
                 f"three more polls of {device}'s ECN marks")
        assert [e["port"] for e in daemon.events(device=device, kind="ecn_not_marking")] == ["Ethernet0"]
        marks3 = daemon.value("losslessd_ecn_marked_packets_total", device=device, port="Ethernet12", queue="3")
        assert marks3 == 0  # (queue 3 carries no lossless class here: read by number, "no marks")

        def history() -> dict:  # `losslessd history` shows priority 3's marks from queue 4 too, by the stored maps
            res = losslessd("history", "--db", daemon.folder / "history.db", "--device", device, "--port", "Ethernet12",
                            "--priority", "3", "--since", "1h", "-f", "json")
            return json.loads(res.stdout) if res.returncode == 0 else {}

        doc = wait_for(lambda: (d := history()).get("queue") == 4 and d, "priority 3's history read from queue 4")
        assert any(r["per_s"].get("ecn_marked", {}).get("max") for r in doc["rows"])
    finally:
        sim.congest(device, "Ethernet12", 3, on=False)
        sim.congest(device, "Ethernet0", 3, on=False)


@pytest.mark.slow
def test_the_ecn_detector_reads_the_queue_the_tc_to_queue_map_names(tmp_path):
    """With drift on, as its run read the maps."""
    with _running(tmp_path, ["leaf1"], drift={"enabled": True, "interval_s": 5.0}) as (sim, daemon):
        wait_for(lambda: any(r["msg"].startswith("drift run:") for r in daemon.log_records()), "a drift run", 60)
        _only_the_unmarked_port_is_found(sim, daemon, "leaf1")


@pytest.mark.slow
def test_the_queue_maps_are_known_from_the_start_with_drift_off(tmp_path):
    """Drift off (the test daemon's default): the config read at the start tells the detector which queue carries
    priority 3, so it finds Ethernet0 from its first polls. It was blind (held) until a drift run, i.e. forever."""
    with _running(tmp_path, ["leaf1"]) as (sim, daemon):
        _only_the_unmarked_port_is_found(sim, daemon, "leaf1")
        assert not any(r["msg"].startswith("drift run:") for r in daemon.log_records())


@pytest.mark.slow
def test_a_shard_other_than_0_reads_the_queue_maps_of_its_own_devices(tmp_path):
    """--shard 1/2 never runs drift (shard 0 does): it reads its own devices' configs at its start, so the detector
    on its device works from the first polls; the device of shard 0 it does not poll."""
    mine, other = "leaf3", "leaf1"
    assert (hashmod(mine, 2), hashmod(other, 2)) == (1, 0)
    with _running(tmp_path, [mine, other], args=("--shard", "1/2"),
                  drift={"enabled": True, "interval_s": 5.0}) as (sim, daemon):
        _only_the_unmarked_port_is_found(sim, daemon, mine)
        assert daemon.devices_polled() == {mine}
        assert not any(r["msg"].startswith("drift run:") for r in daemon.log_records())


@pytest.mark.slow
def test_a_config_read_that_fails_is_said_once_and_retried(tmp_path):
    """leaf1 refuses the inventory's password at the start: its config is not read (said once, however often the
    read is retried) and the detector holds there; once it accepts the password again, a retry within the backoff
    (2 s here, not drift.interval_s) reads the maps and the detector finds Ethernet0."""
    with _running(tmp_path, ["leaf1"], password="not-the-inventory-one") as (sim, daemon):
        def said(start: str) -> list[dict]:
            return [r for r in daemon.log_records() if r["msg"].startswith(start)]

        wait_for(lambda: said("the config of leaf1 was not read"), "the failed config read said")
        wait_for(lambda: len(said("ssh poll of leaf1 failed")) >= 4, "four failed SSH polls of leaf1")
        sim.set_password("leaf1", sim.env[PASSWORD_ENV])
        wait_for(lambda: said("the config of leaf1 was read"), "a retried config read")
        assert len(said("the config of leaf1 was not read")) == 1
        _only_the_unmarked_port_is_found(sim, daemon, "leaf1")
