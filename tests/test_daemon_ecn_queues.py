"""A real `losslessd daemon` reads a priority's ECN marks from the egress queue the switch's own maps put it on
(SONiC TC_TO_QUEUE_MAP), as its drift run read them, never from the queue numbered like the priority."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from losslessd.sim import Simulator

from .daemonproc import INTERVAL_S, DaemonProcess, wait_for

FABRIC = Path(__file__).resolve().parent.parent / "examples" / "fabric"


@pytest.mark.slow
def test_the_ecn_detector_reads_the_queue_the_tc_to_queue_map_names(tmp_path):
    """leaf1 with TC 3 on queue 4 (and TC 4 on queue 3): priority 3's marks count on queue 4. Ethernet12 is
    congested with ECN marking on its queue 4 (healthy), Ethernet0 without marks: only Ethernet0 is "PFC doing ECN's
    job". Read by number (queue 3, which carries no lossless class and never marks), Ethernet12 was too."""
    fabric = tmp_path / "fabric"
    shutil.copytree(FABRIC / "leaf1", fabric / "leaf1")
    db_path = fabric / "leaf1" / "config_db.json"
    db = json.loads(db_path.read_text())
    for table in ("TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"):
        if table in db:
            db[table]["ROCE"].update({"3": "4", "4": "3"})
    db_path.write_text(json.dumps(db, indent=2))
    sim = Simulator(fabric, tmp_path / "sim", devices=["leaf1"]).start()
    daemon = DaemonProcess(sim, tmp_path / "daemon", detection={"ecn_polls": 2},
                           poll={"ssh_counters_interval_s": INTERVAL_S}, drift={"enabled": True, "interval_s": 5.0})
    try:
        daemon.start()
        wait_for(lambda: any(r["msg"].startswith("drift run:") for r in daemon.log_records()), "a drift run", 60)
        wait_for(lambda: daemon.value("losslessd_ecn_marked_packets_total", device="leaf1", port="Ethernet12",
                                      queue="4"), "leaf1's ECN marks read over SSH")
        sim.congest("leaf1", "Ethernet12", 3, ecn_healthy=True)  # queue 4 marks with the pauses
        sim.congest("leaf1", "Ethernet0", 3)  # no marks anywhere
        try:
            [event] = wait_for(lambda: daemon.events(device="leaf1", kind="ecn_not_marking"), "ecn_not_marking", 60)
            assert (event["port"], event["priority"]) == ("Ethernet0", 3)
            polled = daemon.value("losslessd_polls_total", device="leaf1", source="ssh")
            wait_for(lambda: daemon.value("losslessd_polls_total", device="leaf1", source="ssh") >= polled + 3,
                     "three more polls of leaf1's ECN marks")
            assert [e["port"] for e in daemon.events(device="leaf1", kind="ecn_not_marking")] == ["Ethernet0"]
            marks3 = daemon.value("losslessd_ecn_marked_packets_total", device="leaf1", port="Ethernet12", queue="3")
            assert marks3 == 0  # (queue 3 carries no lossless class here: read by number, "no marks")
        finally:
            sim.congest("leaf1", "Ethernet12", 3, on=False)
            sim.congest("leaf1", "Ethernet0", 3, on=False)
    finally:
        assert daemon.stop() == 0
        sim.stop()
