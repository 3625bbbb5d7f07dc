"""SONiC (and NX-OS) WRED on a lossless queue marks ECT packets and drops the others with one probability per colour
(sonic-swss qosorch.cpp WredMapHandler takes `green_drop_probability` and no separate mark probability; saiwred.h: the
drop probability is the ECT mark probability unless SAI_WRED_ATTR_ECN_GREEN_MARK_PROBABILITY is set; the Spectrum SAI,
mlnx_sai_wred.c, refuses a profile with no colour enabled and binds every profile with RED drop on). render keeps the
WRED colours enabled (a profile without them would be refused) and says on stderr that packets that are not
ECN-capable are dropped there with the mark probability, which the policy's ecn.mark_probability_pct bounds. WRED that
drops and marks nothing on a lossless queue is lint's ECN005."""

from __future__ import annotations

import json

from losslessd import api
from losslessd.parse import sonic
from losslessd.parse.base import Input
from tests.clirun import losslessd
from tests.conftest import FIXTURES
from tests.test_render_eos_family import POLICY_5M

PORTS = ["--platform", "sonic", "--sku", "ACS-MSN4700", "--pool-size", "47218432", "--ports", "Ethernet0:400G:5m"]


def _wred(stdout: str) -> dict:
    (profile,) = json.loads(stdout)["WRED_PROFILE"].values()
    return profile


def test_render_says_the_lossless_wred_drops_non_ect_packets_with_the_mark_probability():
    ran = losslessd("render", "--policy", "roce-dscp26", *PORTS)
    assert ran.returncode == 0, ran.stderr
    wred = _wred(ran.stdout)
    assert (wred["wred_green_enable"], wred["ecn"], wred["green_drop_probability"]) == ("true", "ecn_all", "100")
    said = ("WRED_PROFILE's <colour>_drop_probability marks ECT packets on lossless queues 3 with up to 100 % between "
            "Kmin and Kmax, and drops the packets there that are not ECN-capable with that same probability")
    assert said in ran.stderr
    assert "ecn.mark_probability_pct" in ran.stderr


def test_a_policy_that_caps_the_mark_probability_caps_the_drop_too(tmp_path):
    """SONiC's stock AZURE_LOSSLESS profile (sonic-buildimage qos_config.j2) writes 5 %: a policy that allows at most
    5 % gets 5 % on every colour, and the note names it."""
    policy = tmp_path / "five.yaml"
    policy.write_text("name: roce-five\ndescription: at most 5 % marks\nextends: roce-dscp26\n"
                      "ecn:\n  mark_probability_pct:\n    min: 1\n    max: 5\n")
    ran = losslessd("render", "--policy", str(policy), *PORTS)
    assert ran.returncode == 0, ran.stderr
    wred = _wred(ran.stdout)
    assert {wred[f"{c}_drop_probability"] for c in ("green", "yellow", "red")} == {"5"}
    assert "with up to 5 % between Kmin and Kmax" in ran.stderr


def test_nxos_wred_ecn_says_so_too_and_marking_only_commands_do_not(tmp_path):
    """NX-OS `random-detect ... drop-probability P weight 0 ecn` is WRED with marking as well (RFC 3168 section 5: only
    an ECN-capable packet is marked where WRED would drop): the note names it, on the queue the config's no-drop
    class moves the priority to where --device says so. EOS `random-detect ecn`, NVUE `ecn enable` (RED off) and Junos
    (ECN-enabled queues tail-drop non-ECT packets only) get none, nor does a policy without ECN."""
    nxos = losslessd("render", "--platform", "nxos", "--family", "n9k", "--ports", "Ethernet1/1:100G:5m")
    assert nxos.returncode == 0 and "drop-probability 100 weight 0 ecn" in nxos.stdout
    assert "`random-detect ... drop-probability ... ecn` marks ECT packets on lossless queues 3" in nxos.stderr
    assert "AZURE_LOSSLESS" not in nxos.stderr
    moved = tmp_path / "moved.cfg"  # DSCP 26 in qos-group 4, whose no-drop class c-8q-nq4 pauses CoS 3: ECN on queue 4
    moved.write_text((FIXTURES / "raw" / "cisco_nxos" / "roce-leaf.cfg").read_text()
                     .replace("set qos-group 3", "set qos-group 4").replace("c-8q-nq3", "c-8q-nq4"))
    ran = losslessd("render", "--platform", "nxos", "--family", "n9k", "--policy", str(POLICY_5M), "--device", moved)
    assert ran.returncode == 0 and "marks ECT packets on lossless queues 4 with" in ran.stderr, ran.stderr
    others = [losslessd("render", "--policy", "pfc-only", *PORTS),
              losslessd("render", "--platform", "junos", "--model", "qfx5120-48y-8c", "--ports", "et-0/0/0:400G:3m"),
              losslessd("render", "--platform", "eos", "--model", "DCS-7060X6-64PE", "--ports", "Ethernet1/1:400G:3m"),
              losslessd("render", "--platform", "nvidia_cumulus", "--ports", "swp1:400G:3m")]
    for ran in others:
        assert ran.returncode == 0 and ran.stdout and "not ECN-capable" not in ran.stderr, ran.stderr


def _ecn005(tmp_path, name: str, text: str, fmt: str) -> list:
    path = tmp_path / name
    path.write_text(text)
    return [f for f in api.lint([path], "pfc-only", fmt=fmt).findings if f.code == "ECN005"]


def test_wred_that_drops_without_marking_on_a_lossless_queue_is_ecn005_also_pfc_only(tmp_path):
    """ECN005 (error, whatever ecn.required says): SONiC WRED with green enabled and `ecn_none` drops the lossless
    queue's packets from Kmin up; the rendered profile (ecn_all) drops only non-ECT packets, and `wred_green_enable:
    "false"` none. Before session 36 a PFC-only lint of the ecn_none profile said nothing (SCH001 only)."""
    rendered = losslessd("render", "--policy", "roce-dscp26", *PORTS).stdout
    device = sonic.parse([Input("sw.json", rendered)], "sw")
    assert device.ports["Ethernet0"].queues[3].ecn.wred_drops == "non-ect"
    assert _ecn005(tmp_path, "rendered.json", rendered, "sonic") == []
    dropping = rendered.replace('"ecn": "ecn_all"', '"ecn": "ecn_none"')
    (finding,) = _ecn005(tmp_path, "dropping.json", dropping, "sonic")
    assert finding.port == "Ethernet0" and finding.severity.value == "error"
    assert "queue 3 (lossless priority 3): WRED drop profile ROCE_LOSSLESS_" in finding.message
    off = dropping.replace('"wred_green_enable": "true"', '"wred_green_enable": "false"')
    assert sonic.parse([Input("sw.json", off)], "sw").ports["Ethernet0"].queues[3].ecn.wred_drops == "none"
    assert _ecn005(tmp_path, "off.json", off, "sonic") == []


def test_a_junos_drop_profile_without_ecn_on_the_no_loss_queue_is_ecn005(tmp_path):
    """Junos: a no-loss scheduler's drop profile without `explicit-congestion-notification` is WRED that drops (QFX CoS
    guide: do not enable WRED on lossless flows); with ECN it only marks (non-ECT packets are tail-dropped, which PFC
    prevents), and a profile never above 0 % drops nothing."""
    leaf = (FIXTURES / "raw" / "juniper_junos" / "roce-leaf.cfg").read_text()
    assert _ecn005(tmp_path, "leaf.cfg", leaf, "juniper_junos") == []
    no_ecn = "\n".join(line for line in leaf.splitlines() if "roce-sched explicit-congestion" not in line) + "\n"
    found = _ecn005(tmp_path, "no-ecn.cfg", no_ecn, "juniper_junos")
    assert {f.port for f in found} == {"et-0/0/0", "et-0/0/1", "et-0/0/48"}
    assert "WRED drop profile roce-ecn drops packets without marking them" in found[0].message
    flat = no_ecn.replace("drop-probability [ 0 20 ]", "drop-probability [ 0 0 ]")
    assert _ecn005(tmp_path, "flat.cfg", flat, "juniper_junos") == []


def test_nxos_wred_without_ecn_on_the_no_drop_queue_is_ecn005(tmp_path):
    """NX-OS `random-detect ... drop-probability 7 weight 0` without `ecn` on the lossless queue's class drops (the
    Nexus 9000 QoS guide's WRED); with `ecn` it marks and drops only non-ECT packets, render's note."""
    leaf = (FIXTURES / "raw" / "cisco_nxos" / "roce-leaf.cfg").read_text()
    assert _ecn005(tmp_path, "leaf.cfg", leaf, "cisco_nxos") == []
    dropping = leaf.replace("drop-probability 7 weight 0 ecn", "drop-probability 7 weight 0")
    found = _ecn005(tmp_path, "dropping.cfg", dropping, "cisco_nxos")
    assert found and {f.severity.value for f in found} == {"error"}
    assert "queue 3 (lossless priority 3): WRED drops packets without marking them" in found[0].message


def test_eos_random_detect_drop_on_the_lossless_tx_queue_is_ecn005(tmp_path):
    """EOS `random-detect drop ...` (WRED: ECN-capable packets and others alike, Arista's WRED TOI) on the lossless
    tx-queue with no `random-detect ecn` drops it; one for a single drop precedence, or one undone by `no random-detect
    drop`, says nothing."""
    leaf = (FIXTURES / "raw" / "arista_eos" / "roce-leaf.cfg").read_text()
    marking = ("      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
               "max-mark-probability 100 weight 0\n      random-detect ecn count\n")
    assert marking in leaf
    dropping = leaf.replace(marking, "      random-detect drop minimum-threshold 150 kbytes maximum-threshold "
                                     "1500 kbytes drop-probability 100\n")
    found = _ecn005(tmp_path, "dropping.cfg", dropping, "arista_eos")
    assert found and "queue 3 (lossless priority 3): WRED drops packets without marking them" in found[0].message
    one = dropping.replace("random-detect drop minimum", "random-detect drop drop-precedence 2 minimum")
    assert _ecn005(tmp_path, "one.cfg", one, "arista_eos") == []
    undone = dropping.replace("drop-probability 100\n", "drop-probability 100\n      no random-detect drop\n")
    assert _ecn005(tmp_path, "undone.cfg", undone, "arista_eos") == []


def test_fix_says_what_render_says_of_the_wred_it_writes(tmp_path):
    """`fix` prints the same snippet render does for a SONiC or NX-OS queue with ECN off, so it says the same on
    stderr (render.operator_notes, once per device, in every output format; `lint --fix` too); a fix that writes no
    ECN (a watchdog) and a platform whose ECN command only marks (EOS) say nothing of WRED."""
    from tests.test_fix import _broken_config, _ext

    said = "marks ECT packets on lossless queues 3 with up to"
    for platform, command in (("sonic", "WRED_PROFILE's <colour>_drop_probability"),
                              ("cisco_nxos", "`random-detect ... drop-probability ... ecn`")):
        path = tmp_path / f"{platform}-leaf.{_ext(platform)}"
        path.write_text(_broken_config("ECN001", platform))
        for fmt in ("text", "json"):
            ran = losslessd("fix", "--policy", "roce-dscp26", "--model", "N9K-C9336C-FX2", "-f", fmt, str(path))
            assert ran.returncode == 1 and ("1 fix printed" in ran.stdout or '"snippet": "' in ran.stdout), ran.stderr
            assert f"losslessd fix: {path.stem}: {command} {said}" in ran.stderr
            assert ran.stderr.count(said) == 1
            if fmt == "json":  # (the notes in the output too, on the fix whose snippet they are of)
                fixes = json.loads(ran.stdout)["devices"][0]["fixes"]
                notes = [f"losslessd fix: {path.stem}: {n}" for f in fixes for n in f["notes"]]
                assert notes and [n for n in notes if said in n] and set(notes) <= set(ran.stderr.splitlines())
                assert all(not f["notes"] for f in fixes if "ecn" not in f["sections"])
        linted = losslessd("lint", "--policy", "roce-dscp26", "--model", "N9K-C9336C-FX2", "--fix", str(path))
        assert linted.returncode == 1 and "1 fix printed" in linted.stdout, linted.stderr
        assert f"losslessd lint --fix: {path.stem}: {command} {said}" in linted.stderr
    eos = tmp_path / "eos-leaf.cfg"
    eos.write_text(_broken_config("ECN001", "arista_eos"))
    watchdog = tmp_path / "wdg-leaf.json"
    watchdog.write_text(_broken_config("WDG001", "sonic"))
    for path in (eos, watchdog):
        ran = losslessd("fix", "--policy", "roce-dscp26", str(path))
        assert ran.returncode == 1 and said not in ran.stderr, ran.stderr
        ran = losslessd("fix", "--policy", "roce-dscp26", "-f", "json", str(path))
        notes = [n for f in json.loads(ran.stdout)["devices"][0]["fixes"] for n in f["notes"]]
        assert not [n for n in notes if said in n] and {f"losslessd fix: {path.stem}: {n}" for n in notes} <= set(
            ran.stderr.splitlines())
