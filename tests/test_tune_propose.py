"""The daemon proposes: an ecn_not_marking event ("PFC doing ECN's job") carries the tuner's proposed ECN settings
for its port, rendered for the device's platform and linted, never applied."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
from pathlib import Path

import pytest

from losslessd import capture
from losslessd.daemon.drift import pull_and_lint
from losslessd.daemon.settings import load_settings
from losslessd.daemon.sinks import LogSink
from losslessd.inventory import load
from losslessd.monitor import PFC_RX, TX_PACKETS, Key, Rates
from losslessd.monitor.detect import Detectors, Thresholds
from losslessd.policy import load_policy
from losslessd.sim import SONIC_RUNNING_CONFIG, Simulator
from losslessd.tune import candidate
from losslessd.tune.propose import Proposer, configs_from_captures, propose

from .daemonproc import INTERVAL_S, DaemonProcess, wait_for

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "examples" / "fabric"
POLICY = load_policy("roce-dscp26")


def ecn_event(proposer: Proposer, device: str, port: str):
    """Sustained pauses and no ECN marks on ``port`` priority 3: the detector opens ecn_not_marking."""
    det = Detectors(Thresholds(ecn_polls=1), {3}, propose=proposer)
    det.set_queues(device, {port: {3: [3]}})  # (its config's map: priority 3 on queue 3)
    pauses = {Key(port, PFC_RX, 3): 500.0, Key(port, TX_PACKETS, 3): 1000.0}
    det.feed(Rates(device, 1010.0, 10.0, {}, pauses))
    det.feed(Rates(device, 1030.0, 30.0, {}, {Key(port, "ecn_marked", 3): 0.0}))
    [event] = det.feed(Rates(device, 1040.0, 10.0, {}, pauses))
    assert event.kind == "ecn_not_marking"
    return event


def test_sonic_port_gets_a_lower_kmin_as_a_config_db_patch():
    text = (FABRIC / "leaf1" / "config_db.json").read_text()
    proposer = Proposer(POLICY)
    proposer.update({"leaf1": ("sonic", text, None)})
    proposal = ecn_event(proposer, "leaf1", "Ethernet0").proposal
    assert proposal["applied"] is False and proposal["platform"] == "sonic" and proposal["port"] == "Ethernet0"
    assert proposal["now"] == "Kmin 153600 B, Kmax 1572864 B, Pmax 100 %"
    assert proposal["kmin_bytes"] < 153600 and proposal["pmax_pct"] == 100.0
    patch = json.loads(proposal["snippet"])
    profile = f"ROCE_LOSSLESS_{proposal['kmin_bytes']}_{proposal['kmax_bytes']}"
    assert patch["QUEUE"] == {"Ethernet0|3": {"wred_profile": profile}}
    assert patch["WRED_PROFILE"][profile]["green_min_threshold"] == str(proposal["kmin_bytes"])
    # It lints clean on the device's config and is not pushed anywhere: the config is what it was.
    cfg = candidate.load("leaf1", "sonic", text, POLICY, ["Ethernet0"])
    assert (FABRIC / "leaf1" / "config_db.json").read_text() == text
    assert candidate.ecn_settings(cfg, POLICY, text)["Ethernet0"] == (153600, 1572864, 100.0)


def test_eos_port_proposal_and_a_port_at_the_floor_raises_pmax():
    text = (FABRIC / "spine1.cfg").read_text()
    proposer = Proposer(POLICY)
    proposer.update({"spine1": ("arista_eos", text, None)})
    proposal = ecn_event(proposer, "spine1", "Ethernet1/1").proposal
    assert "interface Ethernet1/1" in proposal["snippet"]
    assert f"minimum-threshold {proposal['kmin_bytes']} bytes" in proposal["snippet"]
    floor = text.replace("random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
                         "max-mark-probability 100",
                         "random-detect ecn minimum-threshold 9216 bytes maximum-threshold 1500 kbytes "
                         "max-mark-probability 20")
    proposer.update({"spine1": ("arista_eos", floor, None)})
    raised = ecn_event(proposer, "spine1", "Ethernet1/1").proposal
    assert raised["kmin_bytes"] == 9216 and raised["pmax_pct"] == 50.0 and "higher Pmax" in raised["why"]


def test_no_config_yet_is_said_not_guessed():
    proposal = ecn_event(Proposer(POLICY), "leaf1", "Ethernet0").proposal
    assert proposal == {"unavailable": "no config of leaf1 read yet (the daemon reads it at its start and retries a "
                                       "failed read)"}
    without = Detectors(Thresholds(ecn_polls=1), {3})  # no proposer: the event has none
    without.set_queues("leaf1", {"Ethernet0": {3: [3]}})
    pauses = {Key("Ethernet0", PFC_RX, 3): 500.0, Key("Ethernet0", TX_PACKETS, 3): 1000.0}
    without.feed(Rates("leaf1", 1010.0, 10.0, {}, pauses))
    without.feed(Rates("leaf1", 1030.0, 30.0, {}, {Key("Ethernet0", "ecn_marked", 3): 0.0}))
    [event] = without.feed(Rates("leaf1", 1040.0, 10.0, {}, pauses))
    assert event.proposal is None


def test_the_proposal_travels_in_the_log_event(caplog):
    proposer = Proposer(POLICY)
    proposer.update({"leaf1": ("sonic", (FABRIC / "leaf1" / "config_db.json").read_text(), None)})
    event = ecn_event(proposer, "leaf1", "Ethernet0")
    with caplog.at_level(logging.WARNING, logger="losslessd.daemon"):
        asyncio.run(LogSink().send(event, "start"))
    [record] = [r for r in caplog.records if "ecn_not_marking" in r.getMessage()]
    assert record.proposal["snippet"] == event.proposal["snippet"] and record.proposal["applied"] is False


def test_the_drift_pull_hands_the_configs_to_the_proposer(sim_fabric):
    hosts = load(sim_fabric.inventory_path, sim_fabric.env)
    pulled = pull_and_lint(hosts, POLICY, known_hosts=sim_fabric.known_hosts_path, concurrency=4, timeout_s=30)
    assert pulled.configs["leaf1"][0] == "sonic" and pulled.configs["spine1"][0] == "arista_eos"
    assert "gpu01" not in pulled.configs  # a host: nothing the tuner renders ECN for
    # each device's priority -> queue maps as its config gives them, for the ECN detector: leaf1's ROCE
    # TC_TO_QUEUE_MAP (TC n on queue n, TC n priority n), spine1's EOS tx-queue defaults
    # (and MAP_PFC_PRIORITY_TO_QUEUE, the queues a pause stops, for the storm check)
    leaf1 = pulled.queues["leaf1"]
    assert leaf1.carries["Ethernet0"][3] == leaf1.pauses["Ethernet0"][3] == [3] and pulled.queues["spine1"].carries
    assert pulled.queues["gpu01"] == ({}, {})  # a NIC counts its marks per port: no queue map
    proposer = Proposer(POLICY)
    proposer.update(pulled.configs)
    assert ecn_event(proposer, "spine1", "Ethernet1/1").proposal["platform"] == "arista_eos"


@pytest.mark.slow
def test_a_daemon_worker_attaches_the_proposal_and_it_reaches_the_history_and_the_log(tmp_path):
    """A real `losslessd daemon`: its drift run reads leaf1's config, the worker polling leaf1 sees PFC
    doing ECN's job on Ethernet12 and opens ecn_not_marking with the tuner's proposal, which crosses to
    the daemon and lands in the history and the log sink. A worker killed and started again gets the
    configs back from the daemon: the event it opens next carries a proposal too."""
    sim = Simulator(FABRIC, tmp_path / "sim", devices=["leaf1"]).start()
    # CLI counters every poll (SONiC's ECN marks come from the CLI); a drift run every few seconds.
    daemon = DaemonProcess(sim, tmp_path / "daemon", detection={"ecn_polls": 2},
                           poll={"ssh_counters_interval_s": INTERVAL_S},
                           drift={"enabled": True, "interval_s": 5.0})
    try:
        daemon.start()
        wait_for(lambda: any(r["msg"].startswith("drift run:") for r in daemon.log_records()), "a drift run", 60)
        wait_for(lambda: daemon.value("losslessd_ecn_marked_packets_total", device="leaf1", port="Ethernet12",
                                      queue="3"), "leaf1's ECN marks read over SSH")
        settings = load_settings(daemon.config, sim.env)
        text = sim.devices["leaf1"].outputs[SONIC_RUNNING_CONFIG]
        expected = propose("sonic", "leaf1", text, "Ethernet12", settings.lint_policy)
        assert expected["snippet"] and expected["applied"] is False
        sim.congest("leaf1", "Ethernet12", 3)  # pauses while the queue drains, ECN marks flat: PFC doing ECN's job
        try:
            [event] = wait_for(lambda: daemon.events(device="leaf1", kind="ecn_not_marking"), "ecn_not_marking", 60)
            assert event["port"] == "Ethernet12" and event["proposal"] == expected
            logged = wait_for(lambda: [r for r in daemon.log_records() if r["msg"].startswith("event start ecn_not_marking")],
                              "the event in the log")
            assert logged[0]["proposal"] == expected

            pid = daemon.worker_pid(0)
            os.kill(pid, signal.SIGKILL)  # its detectors' state and its copy of the configs die with it
            wait_for(lambda: daemon.value("losslessd_worker_restarts_total", worker="0") == 1, "the worker restarted")
            again = wait_for(lambda: [e for e in daemon.events(device="leaf1", kind="ecn_not_marking")
                                      if e["id"] != event["id"]], "ecn_not_marking from the new worker", 60)
            assert again[0]["proposal"] == expected
        finally:
            sim.congest("leaf1", "Ethernet12", 3, on=False)
    finally:
        assert daemon.stop() == 0
        sim.stop()


NXOS_CAPTURE = ROOT / "tests" / "fixtures" / "raw" / "cisco_nxos" / "roce-capture.txt"
# `show version` on a Nexus 9000: the chassis line under "Hardware" names the model (parse.nxos.MODEL).
NXOS_VERSION = "Cisco Nexus Operating System (NX-OS) Software\n\nHardware\n  cisco Nexus9000 C93180YC-EX Chassis\n"


def test_an_nxos_proposal_takes_the_model_from_the_show_version_the_drift_pull_read(make_sim, tmp_path):
    """NX-OS's ECN commands differ by family (Nexus 9000 / 3000) and its config does not name the model: the drift
    pull runs `show version` (an optional command of the platform), and the proposer reads the model from it as
    `tune` does. A switch that refuses `show version` and whose config shows no family (no `pause` line) gets no
    proposal, and the event says why."""
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    recorded = capture.read(NXOS_CAPTURE.read_text(encoding="utf-8"))
    sections = [(s.command, s.output) for s in recorded.sections]
    # nx-leaf5's config without its `pause pfc-cos` line, which shows the Nexus 9000 family by itself (docs/render.md)
    unshown = [(command, "".join(line for line in output.splitlines(keepends=True) if "pause pfc-cos" not in line))
               for command, output in sections]
    for name, extra in (("nx-leaf4", [("show version", NXOS_VERSION)]), ("nx-leaf5", [])):
        (fabric / f"{name}.capture").write_text(capture.write(
            {"device": name, "platform": "cisco_nxos", "collected": "2026-11-29T10:00:05Z"},
            (sections if extra else unshown) + extra))
    sim = make_sim(snmp=False, fabric=fabric)
    hosts = load(sim.inventory_path, sim.env)
    pulled = pull_and_lint(hosts, POLICY, known_hosts=sim.known_hosts_path, concurrency=2, timeout_s=30)
    platform, text, version = pulled.configs["nx-leaf4"]
    assert platform == "cisco_nxos" and version == NXOS_VERSION
    assert "interface Ethernet1/2" in text and "policy-map type queuing" in text  # both parts of the config
    assert pulled.configs["nx-leaf5"][2].lstrip().startswith("^\n% Invalid command")  # refused: kept, no model
    proposer = Proposer(POLICY)
    proposer.update(pulled.configs)
    proposal = ecn_event(proposer, "nx-leaf4", "Ethernet1/2").proposal
    assert proposal["platform"] == "cisco_nxos" and proposal["kmin_bytes"] < 153600
    assert f"random-detect minimum-threshold {proposal['kmin_bytes']} bytes" in proposal["snippet"]
    assert "class type queuing c-out-8q-q3" in proposal["snippet"]  # the Nexus 9000 system classes
    refused = ecn_event(proposer, "nx-leaf5", "Ethernet1/2").proposal
    assert "its `show version` printed no model" in refused["unavailable"]
    assert "let nx-leaf5 answer `show version`" in refused["unavailable"]
    assert "--model" not in refused["unavailable"]  # the daemon has no such option


def test_tune_reads_an_nxos_running_config_in_both_its_parts(make_sim, tmp_path):
    """NX-OS prints its QoS (`show running-config ipqos all`) apart from its interfaces' speeds and MTUs (`show
    running-config interface`): tune reads both over SSH, as the drift pull does, so its ports have their speeds (with
    the QoS part alone every port's speed was unknown and NX-OS could not be tuned), and the model from `show
    version`."""
    from losslessd.tune.session import Options, Tuner

    fabric = tmp_path / "fabric"
    fabric.mkdir()
    recorded = capture.read(NXOS_CAPTURE.read_text(encoding="utf-8"))
    sections = [(s.command, s.output) for s in recorded.sections] + [("show version", NXOS_VERSION)]
    (fabric / "nx-leaf4.capture").write_text(capture.write(
        {"device": "nx-leaf4", "platform": "cisco_nxos", "collected": "2026-11-29T10:00:05Z"}, sections))
    sim = make_sim(snmp=False, fabric=fabric)
    opts = Options(benchmark=["true"], sizes=[], known_hosts=sim.known_hosts_path, db=tmp_path / "t.sqlite")
    tuner = Tuner(load(sim.inventory_path, sim.env), ["nx-leaf4"], POLICY, opts, say=lambda line: None)
    tuner.load()
    cfg = tuner.configs["nx-leaf4"]
    assert "interface Ethernet1/2" in cfg.text and "policy-map type queuing" in cfg.text
    assert cfg.device.hardware == "Nexus9000 C93180YC-EX"
    assert cfg.ports and all(p.speed_gbps for p in cfg.ports), cfg.ports


JUNOS_LEAF = ROOT / "tests" / "fixtures" / "raw" / "juniper_junos" / "roce-leaf.cfg"


@pytest.mark.parametrize("model, wanted", [
    ("qfx10002-36q", "buffer-size temporal"),  # QFX10000: the temporal buffer the ECN section writes
    ("qfx5120-48y-8c", "fixed fill levels"),  # QFX5000: nothing for the tuner to move, and the proposal says so
    (None, "its `show version` printed no model"),
])
def test_a_junos_proposal_reads_the_model_from_the_captured_show_version(tmp_path, model, wanted):
    version = f"Hostname: leaf1\nModel: {model}\nJunos: 23.4R2.13\n" if model else \
        "error: syntax error, expecting <command>: version\n"
    path = tmp_path / "leaf1.capture"
    path.write_text(capture.write({"device": "leaf1", "platform": "juniper_junos", "collected": "2026-11-29T10:00:05Z"},
                                  [("show configuration | display set", JUNOS_LEAF.read_text()),
                                   ("show version", version)]))
    configs = configs_from_captures([path])
    assert configs["leaf1"] == ("juniper_junos", JUNOS_LEAF.read_text(), version)
    proposer = Proposer(POLICY)
    proposer.update(configs)
    proposal = ecn_event(proposer, "leaf1", "et-0/0/1").proposal
    assert wanted in (proposal.get("snippet") or proposal.get("unavailable", "")), proposal
