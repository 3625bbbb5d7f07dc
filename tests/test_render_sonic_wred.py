"""SONiC (and NX-OS) WRED on a lossless queue marks ECT packets and drops the others with one probability per colour
(sonic-swss qosorch.cpp WredMapHandler takes `green_drop_probability` and no separate mark probability; saiwred.h: the
drop probability is the ECT mark probability unless SAI_WRED_ATTR_ECN_GREEN_MARK_PROBABILITY is set; the Spectrum SAI,
mlnx_sai_wred.c, refuses a profile with no colour enabled and binds every profile with RED drop on). render keeps the
WRED colours enabled (a profile without them would be refused) and says on stderr that packets that are not
ECN-capable are dropped there with the mark probability, which the policy's ecn.mark_probability_pct bounds."""

from __future__ import annotations

import json

from tests.clirun import losslessd
from tests.conftest import FIXTURES

POLICY_5M = FIXTURES.parent / "realworld" / "cisco_nxos" / "policy-roce-5m.yaml"  # roce-dscp26 on 5 m cables
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
