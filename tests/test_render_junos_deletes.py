"""Junos snippets delete only what the switch holds (session 42, part j).

Loaded through napalm's junos driver (load_merge_candidate -> _load_candidate -> PyEZ Config.load(..., ignore_warning=
False by default)), a `delete` of a statement the switch does not have answers `warning: statement not found`, which
PyEZ's ignoreWarnDecorator raises (ConfigLoadError) unless the load ignores that warning: the whole snippet is refused.
`fix` and `render --device` know the config, so they write a delete only for a classifier it defines and a binding its
entry holds; one a configuration group gives is not deleted (a `delete` of the configuration's own statements leaves
the group's) but refused with what to change. `render --ports` knows neither: each delete is a comment."""

from __future__ import annotations

from losslessd.parse import parse_group
from tests import render_golden
from tests.clirun import losslessd

POLICY = "roce-pcp3"  # trusts PCP: the fix binds ieee-802.1 roce-pcp and takes the units' DSCP classifiers off
DSCP_LEAF = render_golden.golden_path("juniper_junos", "roce-dscp26")  # defines and binds dscp roce-dscp on unit 0
RELINTED = "linted again: every finding the printed fixes name is gone, and none is added"


def _deletes(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("delete ")]


def test_trust_fix_deletes_only_the_classifier_and_bindings_the_switch_has():
    """The leaf defines no roce-pcp and binds no dscp-ipv6 classifier: the fix deleted both anyway (and so failed to
    load through napalm). Now only the units' `classifiers dscp` bindings it holds are deleted."""
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(DSCP_LEAF))
    assert _deletes(ran.stdout) == [f"delete class-of-service interfaces et-0/0/{n} unit 0 classifiers dscp"
                                    for n in range(3)], ran.stdout
    assert RELINTED in ran.stdout


def test_trust_fix_deletes_the_dscp_classifier_of_each_unit_that_binds_one(tmp_path):
    """et-0/0/0 binds roce-dscp on unit 0 and unit 1: each binding is deleted on its own unit (the reader kept one
    unit-level binding per type, the last line's, so unit 0's stayed and its IP traffic was still classified by
    DSCP)."""
    config = tmp_path / "leaf.set"
    config.write_text(DSCP_LEAF.read_text() + "set class-of-service interfaces et-0/0/0 unit 1 classifiers dscp "
                      "roce-dscp\n")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert [line for line in _deletes(ran.stdout) if "et-0/0/0" in line] == [
        "delete class-of-service interfaces et-0/0/0 unit 0 classifiers dscp",
        "delete class-of-service interfaces et-0/0/0 unit 1 classifiers dscp"], ran.stdout
    assert RELINTED in ran.stdout


def test_trust_fix_deletes_a_classifier_the_switch_defines_before_rebuilding_it(tmp_path):
    """Where the switch defines roce-pcp already, the rebuild deletes it first (code-points is a leaf-list: a `set`
    adds to the old entries), and the re-lint of config + fix is clean."""
    config = tmp_path / "leaf.set"
    config.write_text(DSCP_LEAF.read_text() + "set class-of-service classifiers ieee-802.1 roce-pcp forwarding-class "
                      "best-effort loss-priority low code-points [ 011 ]\n")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "delete class-of-service classifiers ieee-802.1 roce-pcp" in _deletes(ran.stdout), ran.stdout
    assert RELINTED in ran.stdout


def test_a_deactivated_classifier_is_deleted_before_the_rebuild(tmp_path):
    """A deactivated roce-pcp is still in the configuration: the rebuild deletes it (its inactive: tag with it, Junos
    CLI `delete`), else the snippet's code points would go into the inactive classifier beside its old ones."""
    config = tmp_path / "leaf.set"
    config.write_text(DSCP_LEAF.read_text() + "set class-of-service classifiers ieee-802.1 roce-pcp forwarding-class "
                      "best-effort loss-priority low code-points [ 011 ]\n"
                      "deactivate class-of-service classifiers ieee-802.1 roce-pcp\n")
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "delete class-of-service classifiers ieee-802.1 roce-pcp" in _deletes(ran.stdout), ran.stdout
    assert RELINTED in ran.stdout


def test_a_unit_binding_from_a_configuration_group_is_refused_with_what_to_change(tmp_path):
    """et-0/0/1's DSCP classifier comes from configuration group COS: `delete class-of-service interfaces et-0/0/1
    unit 0 classifiers dscp` finds no statement of the configuration's own (napalm refuses the load) and would not
    remove the inherited one. The port's trust is refused, naming the group and the two ways out; the others fixed."""
    text = DSCP_LEAF.read_text().replace(
        "set class-of-service interfaces et-0/0/1 unit 0 classifiers dscp roce-dscp\n",
        "set groups COS class-of-service interfaces et-0/0/1 unit 0 classifiers dscp roce-dscp\nset apply-groups COS\n")
    config = tmp_path / "leaf.set"
    config.write_text(text)
    device = parse_group("leaf", [config], "juniper_junos")
    assert "unit 0 classifiers dscp" not in (device.ports["et-0/0/1"].service_policies or {})
    assert device.ports["et-0/0/0"].service_policies["unit 0 classifiers dscp"] == "roce-dscp"
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "et-0/0/1 unit 0 classifiers dscp" not in "\n".join(_deletes(ran.stdout)), ran.stdout
    assert "configuration group COS" in ran.stdout
    assert "apply-groups-except COS" in ran.stdout
    assert "delete class-of-service interfaces et-0/0/0 unit 0 classifiers dscp" in _deletes(ran.stdout)


def test_a_group_binding_s_by_hand_message_names_the_group_s_own_statement(tmp_path):
    """Session 42 part j Left: the by-hand message wrote `delete groups COS class-of-service interfaces ...`, not the
    group's own statement, which may name the port by a wildcard the switch matched (`"<et-*>"`): a `delete` naming
    et-0/0/1 inside the group finds nothing. The statement is given as the group writes it, less the classifier."""
    for written in ('"<et-*>"', "et-0/0/1"):
        text = DSCP_LEAF.read_text().replace(
            "set class-of-service interfaces et-0/0/1 unit 0 classifiers dscp roce-dscp\n",
            f"set groups COS class-of-service interfaces {written} unit 0 classifiers dscp roce-dscp\n"
            "set apply-groups COS\n")
        config = tmp_path / "leaf.set"
        config.write_text(text)
        device = parse_group("leaf", [config], "juniper_junos")
        why = device.ports["et-0/0/1"].by_hand["trust/pcp"]
        assert f"`delete groups COS class-of-service interfaces {written} unit 0 classifiers dscp`" in why, why


def test_a_classifier_a_configuration_group_defines_is_refused(tmp_path):
    """roce-pcp takes code points from group COS: the rebuild's `delete` removes the configuration's own statements
    only, and the group's code points would be inherited beside the snippet's, so the fix is refused naming the
    group's delete."""
    config = tmp_path / "leaf.set"
    config.write_text(DSCP_LEAF.read_text() + "set groups COS class-of-service classifiers ieee-802.1 roce-pcp "
                      "forwarding-class best-effort loss-priority low code-points [ 011 ]\nset apply-groups COS\n")
    device = parse_group("leaf", [config], "juniper_junos")
    assert device.defined_classifiers == {"dscp roce-dscp": "", "ieee-802.1 roce-pcp": "COS"}
    ran = losslessd("fix", "-p", POLICY, "--unsafe-fixes", str(config))
    assert "delete class-of-service classifiers ieee-802.1 roce-pcp" not in _deletes(ran.stdout)
    assert "delete groups COS class-of-service classifiers ieee-802.1 roce-pcp" in ran.stdout


def test_render_without_a_device_writes_each_delete_as_a_comment(tmp_path):
    """The reproducer: `render --ports` does not know what the switch holds, so no `delete` is written (one the
    switch lacks fails the whole load through napalm); each is a comment naming the statement to delete by hand
    where present. The snippet still lints clean and trusts PCP."""
    ran = losslessd("render", "-p", POLICY, "--platform", "junos", "--family", "qfx5000",
                    "--ports", "et-0/0/0:100G:5m")
    assert ran.returncode == 0, ran.stderr
    assert _deletes(ran.stdout) == []
    comments = [line.split(": ", 1)[1] for line in ran.stdout.splitlines() if line.startswith("# before loading")]
    assert comments == ["delete class-of-service classifiers ieee-802.1 roce-pcp",
                        "delete class-of-service interfaces et-0/0/0 unit 0 classifiers dscp",
                        "delete class-of-service interfaces et-0/0/0 classifiers dscp",
                        "delete class-of-service interfaces et-0/0/0 unit 0 classifiers dscp-ipv6",
                        "delete class-of-service interfaces et-0/0/0 classifiers dscp-ipv6",
                        "delete class-of-service interfaces et-0/0/0 classifiers ieee-802.1"]
    snippet = tmp_path / "snippet.set"
    snippet.write_text(ran.stdout)
    linted = losslessd("lint", "-p", POLICY, "--format", "juniper_junos", str(snippet))
    assert linted.returncode == 0, linted.stdout


def test_an_interface_binding_from_a_configuration_group_is_no_attachment_to_delete(tmp_path):
    """An interface-level DSCP classifier inherited from group COS (`<et-*>`) is not in et-0/0/0's own entry: no
    `delete class-of-service interfaces et-0/0/0 classifiers dscp` may be written (it finds nothing). The sections
    whose snippet would delete it, trust DSCP (a classifier of its type on the interface) and PCP (every DSCP one),
    are by hand; an 802.1p snippet's own type stays writable."""
    config = tmp_path / "leaf.set"
    config.write_text(DSCP_LEAF.read_text() + "set groups COS class-of-service interfaces <et-*> classifiers dscp "
                      "roce-dscp\nset apply-groups COS\n")
    port = parse_group("leaf", [config], "juniper_junos").ports["et-0/0/0"]
    assert "classifiers dscp" not in (port.service_policies or {})
    assert sorted(port.by_hand or {}) == ["maps/dscp", "maps/pcp", "pfc/dscp", "pfc/pcp", "trust/dscp", "trust/pcp"]
    assert "configuration group COS" in port.by_hand["trust/dscp"]
