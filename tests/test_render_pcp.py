"""Rendered profiles for a policy that trusts PCP (roce-pcp3): every platform classifies RoCE by its 802.1p priority.

SONiC wrote a DSCP_TO_TC_MAP and bound only `dscp_to_tc_map` under roce-pcp3, so the switch classified by DSCP and
the snippet failed MAP003 under the policy it came from."""

from __future__ import annotations

import json

import pytest

from losslessd.api import lint
from losslessd.fix import apply
from losslessd.lint.finding import Severity
from losslessd.model import Trust
from losslessd.parse import parse_group
from losslessd.parse.sonic import _NO_RELEASE as NO_RELEASE
from losslessd.policy import load_policy
from tests import render_golden
from tests.clirun import losslessd

POLICY = "roce-pcp3"
# The Nexus 3000 has no verified ECN command, so a policy requiring ECN is refused there (test_render_nxos_junos): it
# renders roce-pcp3 without ECN, as pfc-only does roce-dscp26.
NO_ECN = {("cisco_nxos", "n3k")}
CASES = [(platform, variant) for platform in render_golden.ethernet_platforms()
         for variant, _ in render_golden.variants(platform)]


@pytest.mark.parametrize(("platform", "variant"), CASES)
def test_pcp_policy_renders_pcp_trust(platform, variant, tmp_path):
    """Re-linted under the same policy: every port trusts PCP, and no finding above info remains (EOS left CoS 4, 5
    and 7 in its default map, on strict queues: SCH001; NX-OS and Junos classified by DSCP: MAP003)."""
    policy = POLICY
    if (platform, variant) in NO_ECN:
        policy = tmp_path / "pcp-no-ecn.yaml"
        policy.write_text(f"name: pcp-no-ecn\nextends: {POLICY}\necn:\n  required: false\n")
        policy = str(policy)
    path = tmp_path / f"rendered.{render_golden.EXTENSIONS[platform]}"
    path.write_text(render_golden.rendered(platform, policy, variant))
    findings = lint([path], policy, fmt=platform).findings
    assert [f"{f.code} {f.message}" for f in findings if f.severity.rank > Severity.info.rank] == []
    device = parse_group(path.stem, [path], platform)
    assert {name: port.trust for name, port in device.ports.items()} == {name: Trust.pcp for name in device.ports}


def test_sonic_binds_the_dot1p_map_and_no_dscp_map(tmp_path):
    """DOT1P_TO_TC_MAP (qosorch.cpp Dot1pToTcMapHandler) puts the policy's lossless and CNP priorities each in the TC
    of its own number, the rest in best effort, and PORT_QOS_MAP binds it in place of the DSCP map."""
    pol = load_policy(POLICY)
    db = json.loads(render_golden.rendered("sonic", POLICY))
    assert "DSCP_TO_TC_MAP" not in db
    cnp = pol.cnp.priority if pol.cnp.priority is not None else 6
    assert db["DOT1P_TO_TC_MAP"]["LOSSLESS"] == {
        str(pcp): str(pcp if pcp in pol.lossless.priorities or pcp == cnp else 0) for pcp in range(8)}
    for fields in db["PORT_QOS_MAP"].values():
        assert fields["dot1p_to_tc_map"] == "LOSSLESS" and "dscp_to_tc_map" not in fields
    path = tmp_path / "rendered.json"
    path.write_text(json.dumps(db))
    assert [f"{f.code} {f.message}" for f in lint([path], POLICY, fmt="sonic").findings
            if not f.message.startswith(NO_RELEASE)] == []  # (a render names no release: said once)
    # (read back: the parser took the bound DOT1P_TO_TC_MAP as the port's PCP -> TC map, so MAP001 verifies PCP 3)
    device = parse_group("rendered", [path], "sonic")
    assert {port.pcp_to_tc[3] for port in device.ports.values()} == {3}


def test_nxos_trust_fix_moves_a_dscp_port_to_cos_classes():
    """MAP003's fix (the trust section) on NX-OS wrote nothing, the class-maps being the maps section's: an empty
    snippet, MAP003 left "fix by hand". It now writes the CoS classes and attaches their policy in place of the old."""
    config = render_golden.golden_path("cisco_nxos", "roce-dscp26")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "match cos 3\n" in ran.stdout and "  no service-policy type qos input ROCE_DSCP_" in ran.stdout
    assert "still there" not in ran.stdout and "MAP003" in ran.stdout


def test_junos_trust_fix_moves_a_dscp_port_to_the_8021p_classifier():
    """MAP003's fix (the trust section) on Junos printed the header alone, the classifier being the maps section's:
    an empty DISRUPTIVE snippet, MAP003 left "fix by hand". It now writes the 802.1p classifier, takes the unit's DSCP
    classifier off (which IP traffic would still be classified by) and rebinds the PFC profile by 802.1p code points
    (DSCP- and 802.1p-based PFC cannot share one profile): the re-lint clears MAP003 and adds nothing."""
    config = render_golden.golden_path("juniper_junos", "roce-dscp26")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "set class-of-service interfaces et-0/0/0 unit 0 classifiers ieee-802.1 roce-pcp\n" in ran.stdout
    assert "delete class-of-service interfaces et-0/0/0 unit 0 classifiers dscp\n" in ran.stdout
    assert "congestion-notification-profile roce-pcp-pfc-3 input ieee-802.1 code-point 011 pfc\n" in ran.stdout
    assert "linted again: every finding the printed fixes name is gone, and none is added" in ran.stdout


def test_sonic_trust_fix_removes_the_dscp_map_by_apply_patch():
    """MAP003's fix on a SONiC port bound to a DSCP_TO_TC_MAP: `config load` merges fields, so the printed fragment
    added dot1p_to_tc_map beside dscp_to_tc_map, the port kept classifying by DSCP and MAP003 stayed 'fix by hand'.
    The fix is now a `config apply-patch` JSON Patch whose remove op takes the DSCP map off each port, and the
    re-lint of the patched config clears MAP003 and adds nothing."""
    config = render_golden.golden_path("sonic", "roce-dscp26")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "(apply with `sudo config apply-patch FILE`)" in ran.stdout
    for port in ("Ethernet0", "Ethernet4", "Ethernet8"):
        assert f'{{"op": "remove", "path": "/PORT_QOS_MAP/{port}/dscp_to_tc_map"}}' in ran.stdout
        assert f'{{"op": "add", "path": "/PORT_QOS_MAP/{port}/dot1p_to_tc_map", "value": "LOSSLESS"}}' in ran.stdout
    assert "linted again: every finding the printed fixes name is gone, and none is added" in ran.stdout


def test_sonic_multi_asic_trust_fix_removes_the_dscp_map_in_the_port_namespace():
    """On a multi-ASIC switch the remove op names the namespace whose PORT holds the port, as the add does."""
    current = {"localhost": {}, "asic0": {"PORT": {"Ethernet0": {}}, "PORT_QOS_MAP": {"Ethernet0": {
        "dscp_to_tc_map": "AZURE", "pfc_enable": "3"}}}, "asic1": {"PORT": {"Ethernet8": {}}, "PORT_QOS_MAP": {
        "Ethernet8": {"pfc_enable": "3"}}}}
    fragment = {"PORT_QOS_MAP": {port: {"dot1p_to_tc_map": "LOSSLESS"} for port in ("Ethernet0", "Ethernet8")}}
    ops = apply.namespaced_patch(current, fragment)
    assert {"op": "remove", "path": "/asic0/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map"} in ops
    assert not [op for op in ops if op["op"] == "remove" and "Ethernet8" in op["path"]]  # nothing there to remove


def test_junos_trust_fix_deletes_the_interfaces_dscp_classifier_only_where_bound(tmp_path):
    """A DSCP classifier bound on the interface itself classifies IP traffic beside the 802.1p one too, so the trust
    fix deletes it, on et-0/0/0 that binds one; on the other ports no such `delete` (Junos PyEZ and napalm load a
    `delete` of a statement the switch does not have as an error: `warning: statement not found`)."""
    config = tmp_path / "leaf.set"
    config.write_text(render_golden.golden_path("juniper_junos", "roce-dscp26").read_text()
                      + "set class-of-service interfaces et-0/0/0 classifiers dscp roce-dscp\n")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    deletes = [line for line in ran.stdout.splitlines() if line.startswith("delete class-of-service interfaces")
               and " unit " not in line]
    assert deletes == ["delete class-of-service interfaces et-0/0/0 classifiers dscp"], ran.stdout
    assert "linted again: every finding the printed fixes name is gone, and none is added" in ran.stdout
