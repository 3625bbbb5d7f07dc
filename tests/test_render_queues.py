"""ECN goes on the queue that carries each lossless priority, by one answer (render.Profile.ecn_queues) in every
template: a --device whose maps move a priority to another queue (NX-OS: the no-drop qos-group; Junos: the
forwarding class's queue-num; EOS and NVUE: the device's own TC -> queue maps, per port) gets its ECN there, and the
snippet pasted after the config parses and lints clean (render -> parse -> lint)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from losslessd import render as rnd
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.lint.finding import Severity
from losslessd.parse import eos, junos, nvue, nxos
from losslessd.parse.base import Input
from losslessd.policy import load_policy
from tests import render_golden
from tests.conftest import FIXTURES

POLICY = load_policy("roce-dscp26")
RAW = FIXTURES / "raw"
PARSERS = {"cisco_nxos": nxos, "juniper_junos": junos, "arista_eos": eos, "nvidia_cumulus": nvue}


def _parse(platform: str, text: str, name: str = "sw.cfg"):
    return PARSERS[platform].parse([Input(name, text)], "sw")


def _findings(tmp_path: Path, platform: str, text: str) -> set[str]:
    """What lint reports on ``text``, less the infos a switch that sizes its headroom at run time always gets
    (render_golden.RUNTIME_INFOS), as "CODE port" strings."""
    path = tmp_path / f"sw.{render_golden.EXTENSIONS[platform]}"
    path.write_text(text)
    runtime = render_golden.RUNTIME_INFOS[platform]
    return {f"{f.code} {f.port}" for f in lint([path], "roce-dscp26", fmt=platform).findings
            if not (f.unverified and f.severity == Severity.info and f.code in runtime)}


def _device_profile(device) -> rnd.Profile:
    """render --device's profile of a parsed config's ports of known speed (their maps, classes and attached
    policies), on 5 m cables."""
    facts, pool = rnd.device_facts(device, POLICY)
    return rnd.device_profile(POLICY, device, [replace(f, cable_length_m=5) for f in facts if f.speed_gbps],
                              device.platform, pool_bytes=pool)


def test_nxos_ecn_goes_on_the_no_drop_group_the_config_moves_priority_3_to(tmp_path):
    """NX-OS leaf whose DSCP 26 goes to qos-group 4 and whose no-drop class is c-8q-nq4 (`pause pfc-cos 3`; Nexus 9000
    QoS guide: qos-group N leaves by c-out-8q-qN), with its ECN still on queue 3: lint says ECN001 on queue 4. The
    ECN and scheduler sections rendered from that config mark on queue 4, and config + snippet lints as clean as the
    unmoved leaf."""
    plain = (RAW / "cisco_nxos" / "roce-leaf.cfg").read_text()
    moved = plain.replace("set qos-group 3", "set qos-group 4").replace("c-8q-nq3", "c-8q-nq4")
    device = _parse("cisco_nxos", moved)
    assert {p.priority_queues()[3] == [4] for p in device.ports.values()} == {True}
    assert {f.split()[0] for f in _findings(tmp_path, "cisco_nxos", moved)} >= {"ECN001", "SCH001"}
    prof = replace(_device_profile(device), model="N9K-C9336C-FX2", platform="cisco_nxos")
    assert prof.lossless_queues == [4] and {tuple(prof.ecn_queues(p)) for p in prof.ports} == {(4,)}
    snippet = rnd.render("cisco_nxos", rnd.restrict(prof, {"ecn", "scheduler"}))
    q4 = snippet.split("c-out-8q-q4\n")[1].split("class type")[0]
    q3 = snippet.split("c-out-8q-q3\n")[1].split("class type")[0]
    assert "random-detect minimum-threshold" in q4 and "bandwidth remaining percent 50" in q4
    assert "random-detect" not in q3
    fixed = _parse("cisco_nxos", moved + snippet)
    assert fixed.issues == []
    for name in (p.name for p in prof.ports):
        port = fixed.ports[name]
        assert port.queues[4].ecn.ecn_enabled and not port.queues[3].ecn.ecn_enabled, port.name
    assert _findings(tmp_path, "cisco_nxos", moved + snippet) == _findings(tmp_path, "cisco_nxos", plain)


def test_junos_ecn_goes_on_the_queue_num_of_the_class_that_carries_priority_3(tmp_path):
    """QFX leaf whose no-loss class roce (pfc-priority 3) is on `queue-num 5` (Junos CoS reference, forwarding-classes
    class queue-num), pauses stopping queue 5: the rendered ECN goes on roce's scheduler, which the switch runs on
    queue 5, and config + snippet parse with queue 5 marking and lint clean."""
    plain = (RAW / "juniper_junos" / "roce-leaf.cfg").read_text()
    moved = plain.replace("class roce queue-num 3", "class roce queue-num 5").replace(
        "code-point 011 flow-control-queue 3", "code-point 011 flow-control-queue 5")
    device = _parse("juniper_junos", moved)
    assert {p.priority_queues()[3] == [5] for p in device.ports.values() if p.priority_queues()} == {True}
    prof = replace(_device_profile(device), model="qfx10002-36q")
    assert prof.lossless_queues == [5] and prof.class_use(3).name == "roce"
    snippet = rnd.render("juniper_junos", rnd.restrict(prof, {"ecn", "scheduler"}))
    assert "queue-num" not in snippet  # (the config's class keeps its queue)
    marked = {line.split()[3].rsplit("-", 1)[-1] for line in snippet.splitlines()
              if line.endswith("explicit-congestion-notification")}
    assert marked == {"roce"}
    whole = moved + "\n" + snippet
    fixed = _parse("juniper_junos", whole)
    assert fixed.issues == []
    for name in ("et-0/0/0", "et-0/0/1"):
        port = fixed.ports[name]
        assert port.queues[5].ecn.ecn_enabled and port.queues[5].ecn.unconverted is None, name
        assert not any(q.ecn and q.ecn.ecn_enabled for i, q in port.queues.items() if i != 5), name
    assert {f for f in _findings(tmp_path, "juniper_junos", whole) if f.split()[1] in ("et-0/0/0", "et-0/0/1")} == set()


def test_ports_whose_maps_carry_priority_3_on_different_queues_get_ecn_profiles_of_their_own():
    """Two ports with the same thresholds, one carrying priority 3 on queue 3, the other on queue 4 (their --device
    maps): each gets an ECN profile marking its own carrying queue (EOS qos profile, NX-OS queuing policy, NVUE
    congestion-control profile), where before both took the first port's queue."""
    facts = [rnd.PortFacts("Ethernet1/1", 100, 5, carries={3: [3]}), rnd.PortFacts("Ethernet1/2", 100, 5,
                                                                                   carries={3: [4]})]
    eos_prof = rnd.profile(POLICY, facts, model="DCS-7050CX3-32S")
    out = rnd.render("arista_eos", eos_prof)
    ports = _parse("arista_eos", out).ports
    assert ports["Ethernet1/1"].queues[3].ecn.ecn_enabled and not ports["Ethernet1/1"].queues[4].ecn.ecn_enabled
    assert ports["Ethernet1/2"].queues[4].ecn.ecn_enabled and not ports["Ethernet1/2"].queues[3].ecn.ecn_enabled
    assert sorted(replace(eos_prof, platform="arista_eos").ports_by_ecn()) == [
        eos_prof.ports[0].wred_profile, f"{eos_prof.ports[0].wred_profile}_Q4"]
    nx = rnd.restrict(rnd.profile(POLICY, facts, model="N9K-C9336C-FX2"), {"ecn"})
    nx_ports = _parse("cisco_nxos", rnd.render("cisco_nxos", nx)).ports
    assert nx_ports["Ethernet1/1"].queues[3].ecn.ecn_enabled and nx_ports["Ethernet1/2"].queues[4].ecn.ecn_enabled
    assert not nx_ports["Ethernet1/2"].queues[3].ecn.ecn_enabled
    nv_facts = [replace(f, name=f"swp{i}") for i, f in enumerate(facts, 1)]
    nv = rnd.render("nvidia_cumulus", rnd.restrict(rnd.profile(POLICY, nv_facts), {"ecn"}))
    assert " traffic-class 3 ecn enable" in nv and " traffic-class 4 ecn enable" in nv
    assert "nv set interface swp2 qos congestion-control profile ROCE_LOSSLESS_153600_1572864_Q4" in nv


def test_nxos_pfc_section_places_the_priority_itself_and_ecn_alone_takes_the_devices_maps():
    """NX-OS: the PFC section writes the no-drop network-qos class that gives qos-group N its PFC priority, so a snippet
    with it marks the group it makes no-drop even where the device's config has none; ECN alone on such a port (its
    maps place no lossless priority) is refused rather than put on a guessed queue."""
    facts = [rnd.PortFacts("Ethernet1/1", 100, 5, carries={})]
    prof = rnd.profile(POLICY, facts, model="N9K-C9336C-FX2")
    out = rnd.render("cisco_nxos", rnd.restrict(prof, {"pfc", "ecn"}))
    ports = _parse("cisco_nxos", out).ports
    assert ports["Ethernet1/1"].queues[3].ecn.ecn_enabled and ports["Ethernet1/1"].pfc_enabled == [3]
    with pytest.raises(InputError, match="port Ethernet1/1: its config does not say which egress queue carries "
                                         "lossless priority 3"):
        rnd.render("cisco_nxos", rnd.restrict(prof, {"ecn"}))
