"""IBS rules on the OpenSM fixtures as an operator lints them: which file and line, which SMs, which policy."""

from __future__ import annotations

import json
from pathlib import Path

from losslessd.api import lint
from losslessd.lint.engine import run
from losslessd.lint.registry import all_rules
from losslessd.model import Device, Fabric
from losslessd.policy import load_policy
from tests.clirun import losslessd
from tests.conftest import FIXTURES, ROOT

RAW = FIXTURES / "raw" / "opensm"
MASTER, STANDBY = RAW / "fat-tree-master", RAW / "fat-tree-standby.conf"
IBS = [code for code in all_rules() if code.startswith("IBS")]


def line_at(source) -> str:
    return Path(source.file).read_text().split("\n")[source.line - 1]


def policy(tmp_path, **infiniband) -> Path:
    path = tmp_path / "site.yaml"
    path.write_text("extends: infiniband\ninfiniband: " + json.dumps(infiniband) + "\n")
    return path


def test_master_and_standby_are_clean_under_every_rule():
    result = lint([MASTER, STANDBY], "infiniband")
    assert result.findings == [] and set(result.fabric.devices) == {"fat-tree-master", "fat-tree-standby"}


def test_minhop_on_a_torus(tmp_path):
    [hit] = lint([RAW / "torus-minhop.conf"], policy(tmp_path, topology="torus"), select_codes=["IBS001"]).findings
    assert hit.severity.value == "error" and "minhop is not credit-loop free on a torus" in hit.message
    assert "use torus-2QoS" in hit.message and line_at(hit.source) == "routing_engine minhop"
    # the same file is fine where min-hop cannot loop
    assert lint([RAW / "torus-minhop.conf"], policy(tmp_path, topology="tree"), select_codes=["IBS001"]).findings == []


def test_equal_priorities_name_both_sms():
    [f] = lint([MASTER, RAW / "standby-equal.conf"], "infiniband", select_codes=["IBS003"]).findings
    assert f.devices == ["fat-tree-master", "standby-equal"] and f.device == "fat-tree-master"
    assert "both have sm_priority 14" in f.message and line_at(f.source) == "sm_priority 14"


def test_sl2vl_beyond_max_op_vls_points_at_the_table():
    found = lint([RAW / "qos-sl2vl-beyond-vls.conf"], "infiniband", select_codes=["IBS005"]).findings
    by_key = {f.key: f for f in found}
    assert set(by_key) == {"qos_sl2vl:vls", "qos_vlarb_low"}
    sl2vl = by_key["qos_sl2vl:vls"]
    assert sl2vl.severity.value == "error" and "SL 5 is used by sm_sl" in sl2vl.message
    assert "(CA ports, switch port 0, router ports)" in sl2vl.message  # switch external ports have their own table
    assert line_at(sl2vl.source).startswith("qos_sl2vl 0,1,2,3,4,5,6,7")
    assert by_key["qos_vlarb_low"].severity.value == "warning" and "VL 4,5" in by_key["qos_vlarb_low"].message


def test_credit_loop_reported_by_ibdiagnet():
    result = lint([RAW / "credit-loop"], "infiniband", select_codes=["IBS"])
    by_code = {f.code: f for f in result.findings}
    loop = by_code["IBS007"]
    assert loop.severity.value == "error" and line_at(loop.source) == "Found credit loop on: leaf03/P13 VL: 0"
    assert "BT credit loop through: spine02/P3 VL: 0" in loop.message and "routing_engine updn" in loop.message
    # the config explains it: updn without a root GUID file can fall back to minhop
    assert "root auto-detection finds no roots" in by_code["IBS002"].message


def test_ethernet_rules_skip_subnet_managers_and_ibs_rules_skip_the_rest():
    on_sm = lint([MASTER, STANDBY], "roce-dscp26").findings
    assert {f.code[:3] for f in on_sm} <= {"IBS"}  # no PFC/ECN/MAP/... finding on an SM
    ethernet = lint([ROOT / "examples" / "fabric"], "infiniband").findings
    assert ethernet and not any(f.code.startswith("IBS") for f in ethernet)


def test_rules_read_the_policy_not_constants(tmp_path):
    """sweep 0 and a 5 s timeout are wrong under the shipped policy and fine where the policy says so."""
    dev = {"name": "sm1", "kind": "subnet_manager", "platform": "opensm",
           "opensm": {"routing_engines": ["dor"], "no_fallback": True, "sweep_interval_s": 0,
                      "transaction_timeout_ms": 5000, "sm_priority": 3}}
    fabric = Fabric(devices={"sm1": Device.model_validate(dev)})
    rules = [all_rules()[c] for c in IBS]
    shipped = {(f.code, f.key) for f in run(fabric, load_policy("infiniband"), rules).findings}
    assert shipped == {("IBS001", "routing"), ("IBS003", "standby"), ("IBS004", "timers")}
    relaxed = load_policy(policy(tmp_path, topology="mesh", require_standby_sm=False,
                                 sweep_interval_s={"min": 0}, transaction_timeout_ms={"max": 10000}))
    assert run(fabric, relaxed, rules).findings == []


def test_cli_lints_an_sm_folder(tmp_path):
    clean = losslessd("lint", MASTER, STANDBY, "--policy", "infiniband")
    assert clean.returncode == 0, clean.stdout
    loop = losslessd("lint", RAW / "credit-loop", "--policy", "infiniband", "-f", "json")
    assert loop.returncode == 1
    findings = json.loads(loop.stdout)["findings"]
    assert {f["code"] for f in findings} >= {"IBS007", "IBS002"}
    assert any(f["device"] == "credit-loop" and f["code"] == "IBS007" for f in findings)
    doc = losslessd("rules", "IBS001")
    assert doc.returncode == 0 and "credit-loop" in doc.stdout


def test_nvidia_switch_to_switch_set_is_checked_as_its_own_table(tmp_path):
    """NVIDIA OpenSM's qos_sw2sw_ set is what its switch-to-switch ports take (before: recognised, never read, so
    SL 0 dropped between switches went unseen while the same table under qos_swe_ was an error)."""
    conf = RAW / "sw2sw-sl2vl-drops-sl0.conf"
    [hit] = lint([conf], "infiniband", select_codes=["IBS005"]).findings
    assert hit.severity.value == "error" and hit.key == "qos_sw2sw_sl2vl:drop"
    assert hit.message.startswith("qos_sw2sw_sl2vl (switch-to-switch ports) maps SL 0 to VL15")
    assert line_at(hit.source).startswith("qos_sw2sw_sl2vl 15,")
    # unset, the set falls back on qos_swe_'s table: one table, both port kinds named, the qos_swe_ line blamed
    text = conf.read_text().replace("qos_sw2sw_sl2vl 15,", "qos_sw2sw_sl2vl (null)\n#")
    text = text.replace("qos_swe_sl2vl 0,", "qos_swe_sl2vl 15,")
    (tmp_path / "sm.conf").write_text(text)
    [hit] = lint([tmp_path / "sm.conf"], "infiniband", select_codes=["IBS005"]).findings
    assert "qos_swe_sl2vl (switch external ports, switch-to-switch ports)" in hit.message
    assert line_at(hit.source).startswith("qos_swe_sl2vl 15,")


def test_a_dropped_qos_policy_leaves_sl_0_in_use_and_says_why(tmp_path):
    """A qos-policy.conf OpenSM fails to parse (ERR AC03) is no policy (p_qos_policy NULL): paths take SL 0 as with
    no file (osm_sa_path_record.c), so SL 0 sent to VL15 is an error; the message no longer says no file was given
    when one was (before: "no QoS policy file given")."""
    sm = tmp_path / "sm1"
    sm.mkdir()
    (sm / "opensm.conf").write_text("qos TRUE\nqos_max_vls 8\nqos_sl2vl 15,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n")
    (sm / "qos-policy.conf").write_text("qos-ulps\n  default : 1\n  storage : 3\nend-qos-ulps\n")
    [hit] = lint([sm], "infiniband", select_codes=["IBS005"]).findings
    assert hit.key == "qos_sl2vl:drop"
    assert "SL 0 is used by sm_sl (SM/SA traffic), the default SL 0 (no QoS policy SL applies)" in hit.message


def test_a_multicast_groups_own_sl_is_in_use(tmp_path):
    """An `mgid=` group of partitions.conf with its own `sl=` carries traffic on that SL (osm_prtn_config.c
    mgroup_create; doc/partition-config.txt's example `mgid=ff12::1,sl=1,...`): sent to VL15 it is dropped. A GID
    that is not multicast makes no group, and a port written after an mgid on its line is one of the group's flags
    (session 41 part j: such SLs were not read)."""
    sm = tmp_path / "sm1"
    sm.mkdir()
    (sm / "opensm.conf").write_text("qos TRUE\nqos_max_vls 8\nqos_sl2vl 0,15,2,15,4,5,6,7,0,1,2,3,4,5,6,7\n")
    (sm / "partitions.conf").write_text("Default=0x7fff, ipoib :\n  mgid=ff12:401b::707,sl=1,Q_Key=0x1, ALL=full\n"
                                        "  mgid=fe80::1,sl=3\n  ALL=full;\n")
    [hit] = lint([sm], "infiniband", select_codes=["IBS005"]).findings
    assert "maps SL 1 to VL15" in hit.message and "SL 3" not in hit.message
    assert "SL 1 is used by partition Default's multicast group ff12:401b::707" in hit.message
    assert hit.source.line == 3  # the qos_sl2vl line
    [issue] = lint([sm], "infiniband", select_codes=["SYS002"]).findings
    assert "mgid 'fe80::1' is not a multicast GID" in issue.message
    assert (issue.source.file.endswith("partitions.conf"), issue.source.line) == (True, 3)


def test_a_multicast_groups_pinned_sl_is_cited_at_its_mgid_line(tmp_path):
    """IBS008 on an `mgid=` group's own sl= under LASH names the group's line, not the partition's first line (session
    41 part j Left: the model kept no line for a group); the partition's own sl= stays cited at its definition."""
    sm = tmp_path / "sm1"
    sm.mkdir()
    (sm / "opensm.conf").write_text("qos TRUE\nrouting_engine lash\n")
    (sm / "partitions.conf").write_text("Default=0x7fff, ipoib, sl=2 :\n  ALL=full,\n  mgid=ff12::1,sl=1\n"
                                        "  ;\nt=0x2 : ALL,\n\n  mgid=ff12::9,sl=4;\n")
    found = {f.key: f for f in lint([sm], "infiniband", select_codes=["IBS008"]).findings}
    assert set(found) == {"Default|sl", "Default|sl|ff12::1", "t|sl|ff12::9"}
    assert [(found[k].source.file.endswith("partitions.conf"), found[k].source.line) for k in sorted(found)] == [
        (True, 1), (True, 3), (True, 7)]
    assert line_at(found["t|sl|ff12::9"].source) == "  mgid=ff12::9,sl=4;"


def test_a_partitions_file_without_default_leaves_hosts_limited_members(tmp_path):
    """With a partitions.conf that defines no Default, OpenSM makes `Default=0x7fff : ALL=limited, SELF=full;` with no
    IPoIB group (man opensm, PARTITION CONFIGURATION; osm_prtn.c prtn_make_default): hosts cannot reach each other on
    the default P_Key. A note naming the file (session 41 part j Left: silent); none without a file (OpenSM makes
    Default ALL=full with IPoIB), with a Default written, or with a file OpenSM refuses (it falls back to ALL=full)."""
    sm = tmp_path / "sm1"
    sm.mkdir()
    (sm / "opensm.conf").write_text("routing_engine ftree\n")
    assert lint([sm], "infiniband", select_codes=["IBS008"]).findings == []
    (sm / "partitions.conf").write_text("t=0x2, ipoib : ALL=full;\n")
    [hit] = lint([sm], "infiniband", select_codes=["IBS008"]).findings
    assert (hit.severity.value, hit.key, hit.source.file.endswith("partitions.conf")) == ("info", "Default|implicit",
                                                                                          True)
    assert "hosts cannot talk to each other on it" in hit.message
    assert "write `Default=0x7fff, ipoib : ALL=full;`" in hit.message
    # (a `Default` written without its P_Key is the Default partition: osm_prtn_make_new finds a partition of P_Key 0
    # by its name, and prtn_make_default made `Default` before the file was read; review r2: it was noted as missing)
    for text in ("t=0x2, ipoib : ALL=full;\nDefault=0xffff : ALL=full;\n", "t=0x2 : hpc-node-*=full;\n",
                 "t=0x2 : ALL=full;\nDefault, ipoib : ALL=full;\n", "Default=0x8000 : ALL=full;\n"):
        (sm / "partitions.conf").write_text(text)
        assert lint([sm], "infiniband", select_codes=["IBS008"]).findings == []


def test_a_default_partition_leaving_hosts_limited_members_is_named(tmp_path):
    """`Default=0x7fff, ipoib : ALL;`: a port written without `=full` is a limited member unless the definition says
    `defmember=full` (doc/partition-config.txt "When omitted (or unrecognized) limited membership is assumed";
    osm_prtn_config.c partition_add_port), and limited members reach only full ones, so hosts cannot talk over the
    default P_Key: a warning where the Default asks for IPoIB, a note without (the doc's own `Default=0x7fff : ALL,
    SELF=full ;` may be meant). Session 42 part h Left: silent."""
    sm = tmp_path / "sm1"
    sm.mkdir()
    (sm / "opensm.conf").write_text("routing_engine ftree\n")
    # Session 44 part f (session 43 part e Left): the ports written after the last ALL/ALL_CAS with another membership
    # are not every host; they are named (before: "every host a limited member" whatever followed)
    for text, severity, shown, but in (
            ("Default=0x7fff, ipoib : ALL;\n", "warning", "ALL=limited", ""),
            ("Default=0x7fff : ALL, SELF=full ;\n", "info", "ALL=limited", " but the 1 port(s) written after it "
             "(`SELF=full`)"),
            ("Default=0x7fff, ipoib : ALL=full;\nDefault=0x7fff : ALL_CAS=l;\n", "warning", "ALL_CAS=limited", ""),
            ("Default=0x7fff, ipoib : AL;\n", "warning", "ALL=limited", ""),
            ("Default=0x7fff, ipoib : 0x1=full, ALL, 0x2=full, 0x3, ALL_SWITCHES=full, 0x4=both;\n", "warning",
             "ALL=limited", " but the 2 port(s) written after it (`0x2=full`, `0x4=both`)")):
        (sm / "partitions.conf").write_text(text)
        [hit] = lint([sm], "infiniband", select_codes=["IBS008"]).findings
        assert (hit.severity.value, hit.key, hit.source.line) == (severity, "Default|limited", 1)
        assert f"partition Default makes every host{but} a limited member (`{shown}`" in hit.message
        assert "hosts cannot talk to each other on the default P_Key" in hit.message
    for text in ("Default=0x7fff, ipoib : ALL=full;\n", "Default=0x7fff, ipoib, defmember=full : ALL;\n",
                 "Default=0x7fff, ipoib : ALL, ALL=both;\n", "Default=0x7fff : ALL_SWITCHES=limited, ALL_CAS=full;\n",
                 "Default, ipoib : ALL=limited;\nDefault : ALL=f;\n", "t=0x2 : ALL;\n"):
        (sm / "partitions.conf").write_text(text)
        assert [f.key for f in lint([sm], "infiniband", select_codes=["IBS008"]).findings
                if f.key == "Default|limited"] == [], text


def test_a_qos_level_without_sl_puts_paths_on_their_partitions_sl(tmp_path):
    """A qos-level with no `sl:` leaves a path its partition's SL, OSM_DEFAULT_SL 0 for a partition without sl=
    (osm_sa_path_record.c pr_rcv_get_path_parms takes the level's SL only when sl_set; osm_prtn.c osm_prtn_new):
    SL 0 sent to VL15 then drops those paths (before: only the levels' SLs were counted, and SL 0 was not)."""
    sm = tmp_path / "sm1"
    sm.mkdir()
    (sm / "opensm.conf").write_text("qos TRUE\nqos_max_vls 8\nsm_sl 1\n"
                                    "qos_sl2vl 15,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n")
    (sm / "qos-policy.conf").write_text("qos-levels\n  qos-level\n    name: DEFAULT\n  end-qos-level\n"
                                        "  qos-level\n    name: gpu\n    sl: 3\n  end-qos-level\nend-qos-levels\n")
    (sm / "partitions.conf").write_text("Default=0x7fff, ipoib, sl=2 : ALL=full;\nt=0x2 : ALL;\n")
    [hit] = lint([sm], "infiniband", select_codes=["IBS005"]).findings
    assert hit.key == "qos_sl2vl:drop" and hit.message.startswith("qos_sl2vl (")
    assert "SL 0 is used by qos-level DEFAULT (no sl: the SL 0 of partition t)" in hit.message
    # every partition with its own sl=: the level's paths take those SLs, and SL 0 is no longer in use
    (sm / "partitions.conf").write_text("Default=0x7fff, ipoib, sl=2 : ALL=full;\nt=0x2, sl=4 : ALL;\n")
    assert lint([sm], "infiniband", select_codes=["IBS005"]).findings == []
