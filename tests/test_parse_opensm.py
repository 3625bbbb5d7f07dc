"""OpenSM parser: opensm.conf as OpenSM reads it, its companions, defaults, sources and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from losslessd.errors import InputError
from losslessd.fabric import load_fabric
from losslessd.parse import OPENSM_FOLDER_FILES, detect, opensm
from losslessd.parse.base import Input
from losslessd.parse.opensm.options import c_number
from tests.conftest import FIXTURES

RAW = FIXTURES / "raw" / "opensm"


def parse_text(text: str, name: str = "opensm.conf"):
    return opensm.parse([Input(name, text)], "sm")


def line_at(source) -> str:
    return Path(source.file).read_text().split("\n")[source.line - 1]


def test_fat_tree_master_folder():
    fabric = load_fabric([RAW / "fat-tree-master"])
    dev = fabric.devices["fat-tree-master"]
    assert (dev.kind.value, dev.platform, dev.issues, fabric.issues) == ("subnet_manager", "opensm", [], [])
    assert [Path(f).name for f in dev.files] == ["opensm.conf", "qos-policy.conf", "partitions.conf", "ibdiagnet2.log"]
    sm = dev.opensm
    assert (sm.routing_engines, sm.no_fallback) == (["ftree", "updn"], True)
    assert (sm.sm_priority, sm.sweep_interval_s, sm.transaction_timeout_ms, sm.transaction_retries) == (14, 10, 200, 3)
    assert (sm.lmc, sm.max_op_vls, sm.qos_enabled, sm.sm_sl) == (0, 4, True, 0)
    assert sm.subnet_prefix == 0xFE80000000000000 and sm.guid == 0x0C42A10300A1B2C4
    assert sm.root_guid_file == "/etc/opensm/root_guids.conf" and sm.qos_policy_file == "/etc/opensm/qos-policy.conf"
    # No per-type tables in the file: every port type uses the qos_ set.
    for qset in sm.qos_sets.values():
        assert qset.sl2vl == [0, 1, 2, 3, 4, 5, 6, 7] * 2 and (qset.max_vls, qset.high_limit) == (8, 4)
        assert qset.vlarb_high == [(2, 64)] and qset.vlarb_low[:2] == [(0, 128), (1, 64)]
    assert [(u.kind, u.name, u.sl) for u in sm.sl_uses] == [
        ("qos-level", "DEFAULT", 0), ("qos-level", "Storage", 1), ("qos-level", "Management", 2),
        ("qos-ulp", "default", 0), ("qos-ulp", "ipoib", 2), ("qos-ulp", "ipoib, pkey 0x8001", 1)]
    assert [(p.name, p.pkey, p.ipoib, p.sl) for p in sm.partitions] == [("Default", 0x7FFF, True, 2),
                                                                        ("storage", 0x8001, True, 1)]
    assert sm.partitions[1].members == ["0x0c42a10300b10001=full", "0x0c42a10300b10002=full", "ALL_CAS=limited"]
    assert (sm.credit_loops.loops_found, sm.credit_loops.sls, sm.credit_loops.vls) == (False, 3, 3)


def test_sources_point_at_the_line_the_fact_came_from():
    sm = load_fabric([RAW / "fat-tree-master"]).devices["fat-tree-master"].opensm
    assert line_at(sm.sources["sm_priority"]) == "sm_priority 14"
    assert line_at(sm.sources["routing_engine"]) == "routing_engine ftree,updn,no_fallback"
    assert line_at(sm.qos_sets["swe"].sl2vl_source) == "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"
    assert line_at(sm.sl_uses[1].source).strip() == "sl: 1"
    assert line_at(sm.partitions[1].source).startswith("storage=0x8001")
    assert line_at(sm.credit_loops.source) == "-I- no credit loops found"
    # `opensm -c` writes each option after its `#` description lines
    conf = (RAW / "fat-tree-master" / "opensm.conf").read_text().split("\n")
    description = conf[sm.sources["sweep_interval"].line - 2]
    assert description == "# The number of seconds between subnet sweeps (0 disables it)"


def test_absent_options_take_opensm_defaults():
    sm = parse_text("routing_engine ftree\n").opensm
    assert (sm.sm_priority, sm.sweep_interval_s, sm.transaction_timeout_ms, sm.lmc, sm.max_op_vls) == (0, 10, 200, 0, 5)
    assert sm.qos_enabled is False and list(sm.sources) == ["routing_engine"]
    ca = sm.qos_sets["ca"]  # OpenSM's built-in tables (osm_base.h OSM_DEFAULT_QOS_*), with no source
    assert ca.sl2vl == [*range(15), 7] and ca.sl2vl_source is None
    assert ca.vlarb_high[0] == (0, 4) and ca.vlarb_low[1] == (1, 4) and len(ca.vlarb_low) == 15
    assert parse_text("routing_engine (null)\n").opensm.routing_engines == []


def test_per_type_table_overrides_the_default_set():
    sm = opensm.parse([Input(str(RAW / "qos-sl2vl-beyond-vls.conf"), (RAW / "qos-sl2vl-beyond-vls.conf").read_text())],
                      "x").opensm
    assert sm.qos_sets["swe"].sl2vl == [0, 1, 2, 3] * 4
    assert line_at(sm.qos_sets["swe"].sl2vl_source).startswith("qos_swe_sl2vl ")
    assert sm.qos_sets["ca"].sl2vl == [0, 1, 2, 3, 4, 5, 6, 7] * 2
    assert line_at(sm.qos_sets["ca"].sl2vl_source).startswith("qos_sl2vl ")
    assert (sm.routing_engines, sm.no_fallback, sm.sm_sl) == (["updn"], True, 5)


def test_values_read_like_opensm_reads_them():
    sm = parse_text("\n".join([
        "sm_priority 0x0e",            # strtoul base 0: hex
        "lmc 010",                     # ... and octal
        "max_op_vls 260",              # uint8: 260 & 0xff
        "sweep_interval 5",
        "sweep_interval 15 # later lines win; comments are cut",
        'routing_engine "dfsssp"',     # enclosing quotes removed
        "qos TRUE",
        "qos_high_limit -1",           # unset: the built-in 0 applies
        "qos_max_vls 0",               # unset
        "unknown_vendor_option 42",    # ignored, as OpenSM does
    ])).opensm
    assert (sm.sm_priority, sm.lmc, sm.max_op_vls, sm.sweep_interval_s) == (14, 8, 4, 15)
    assert sm.routing_engines == ["dfsssp"] and sm.qos_enabled is True
    assert (sm.qos_sets["ca"].high_limit, sm.qos_sets["ca"].max_vls) == (0, 15)


def test_garbled_values_are_issues_with_what_opensm_makes_of_them():
    dev = opensm.parse([Input(str(RAW / "garbled.conf"), (RAW / "garbled.conf").read_text())], "garbled")
    messages = {(i.code, i.source.line): i.message for i in dev.issues}
    assert messages[("SYS002", 2)] == "sm_priority 'high' is not a number; OpenSM reads it as 0"
    assert messages[("SYS002", 4)] == "qos 'true': OpenSM reads anything but TRUE as FALSE"
    assert messages[("SYS002", 5)] == "sweep_interval '10s' is not a number; OpenSM reads it as 10"
    assert "lists 4 VLs, not one per SL 0-15" in " ".join(i.message for i in dev.issues if i.source.line == 8)
    assert len([i for i in dev.issues if i.source.line == 9]) == 2  # '1' and '2:300'
    sm = dev.opensm
    assert (sm.sm_priority, sm.sweep_interval_s, sm.qos_enabled, sm.max_op_vls) == (0, 10, False, 4)
    assert sm.qos_sets["ca"].sl2vl == [0, 1, 2, 0] + [0] * 12 and sm.qos_sets["ca"].vlarb_low == [(0, 64)]


def test_routing_engine_names_opensm_does_not_know_are_skipped_as_opensm_skips_them():
    """osm_opensm.c setup_routing_engines: the list is split on commas and blanks, each name compared with strcmp
    with the engines' (upstream's and NVIDIA's); an unknown one is logged and skipped (audit round 10: guides write
    `routing_engine = ftree`, whose `=` is a name of its own; `fat-tree` names the topology, `FTREE` no engine)."""
    dev = parse_text("sm_priority 14\nrouting_engine = fat-tree,FTREE,updn,ar_ftree,no_fallback\n")
    assert dev.opensm.routing_engines == ["updn", "ar_ftree"] and dev.opensm.no_fallback
    [issue] = dev.issues
    assert (issue.code, issue.source.line) == ("SYS002", 2)
    assert "'=', 'fat-tree', 'FTREE', which OpenSM does not know" in issue.message
    assert parse_text("routing_engine ftree,torus-2QoS,nue,kdor-hc\n").issues == []


def test_an_unknown_name_that_is_a_read_option_without_its_first_words_is_named():
    """`priority 15` for `sm_priority 15` (audit round 10): OpenSM logs `Unrecognized token` and keeps sm_priority 0.
    A tail several options share (`interval`: sweep_interval, osm_stats_interval) is named with no option guessed."""
    dev = parse_text("priority 15\ninterval 5\nrouting_engine ftree\n")
    issue, shared = dev.issues
    assert issue.source.line == 1 and "did you mean `sm_priority`?" in issue.message
    assert shared.source.line == 2 and shared.message == (
        "`interval` is not an option of OpenSM or NVIDIA's OpenSM (osm_subnet.c, osm_subnet.h): OpenSM logs "
        "`Unrecognized token` and ignores the line, so it sets nothing")
    assert dev.opensm.sm_priority == 0 and dev.opensm.sweep_interval_s == 10


def test_not_an_opensm_file():
    with pytest.raises(InputError) as exc:
        parse_text("hostname leaf1\ninterface Ethernet1\n", name="leaf1.cfg")
    assert exc.value.file == "leaf1.cfg" and "no OpenSM option" in exc.value.message
    with pytest.raises(InputError, match="no opensm.conf"):
        opensm.parse([Input("qos-policy.conf", "qos-ulps\n default : 0\nend-qos-ulps\n")], "x")


@pytest.mark.parametrize("case", sorted(p.name for p in RAW.glob("*.conf")))
def test_fixtures_are_detected_as_opensm(case):
    assert detect(Input(case, (RAW / case).read_text())) == "opensm"


@pytest.mark.parametrize("text,expected", [
    ("#\n# DEVICE ATTRIBUTES OPTIONS\n#\n", True),
    ("# my SM\nsm_priority 14\nrouting_engine ftree\n", True),
    ("set system host-name mystery\n", False),  # tests/test_loader.py's unknown format
    ("hostname leaf1\n!\ninterface Ethernet1\n   mtu 9214\n", False),
    ('{"DEVICE_METADATA": {}}', False),
    ("", False),
])
def test_sniff(text, expected):
    assert opensm.sniff(Input("x", text)) is expected


def test_companions_told_apart_by_content_when_names_do_not_say():
    conf = (RAW / "fat-tree-master" / "opensm.conf").read_text()
    names = (("sm.txt", "opensm.conf"), ("a.txt", "qos-policy.conf"), ("b.txt", "partitions.conf"),
             ("c.txt", "ibdiagnet2.log"))
    inputs = [Input(n, (RAW / "fat-tree-master" / f).read_text()) for n, f in names]
    sm = opensm.parse(inputs, "x").opensm
    assert len(sm.sl_uses) == 6 and len(sm.partitions) == 2 and sm.credit_loops.loops_found is False
    assert opensm.parse(inputs[1:] + [Input("sm.txt", conf)], "x").opensm.sm_priority == 14  # any order


def test_loader_groups_an_sm_folder_and_leaves_other_files_out(tmp_path):
    node = tmp_path / "sm01"
    shutil.copytree(RAW / "fat-tree-master", node)
    (node / "opensm.log").write_text("Jan 01 00:00:00 SUBNET UP\n")
    (node / "guid2lid").write_text("0x0c42a10300a1b2c4 1 1\n")
    fabric = load_fabric([tmp_path])
    assert list(fabric.devices) == ["sm01"] and fabric.issues == []
    files = [Path(f).name for f in fabric.devices["sm01"].files]
    assert files == [f for f in OPENSM_FOLDER_FILES if (node / f).exists()]


def test_qos_policy_problems():
    text = "qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 16\n  end-qos-level\nend-qos-levels\nstray line\n" \
           "qos-ulps\n  default : 0\n  ipoib 3\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("qos-policy.conf", text)], "x")
    got = {i.source.line: i.message for i in dev.issues}
    assert "qos-level DEFAULT: sl 16 is no SL 0-15" in got[4] and "outside any QoS policy section" in got[7]
    assert "is not `<match> : <SL>`" in got[10] and "qos-ulps is not closed" in got[8]
    # each of lines 7, 8 and 10 is a syntax error to OpenSM's grammar (osm_qos_parser_y.y): ERR AC03, no policy
    # applied, so `default : 0` hands out no SL (session 40 part j: it was read as in use)
    assert dev.opensm.sl_uses == [] and "applies no QoS policy from it, so none of its SLs" in got[7]
    good = text.replace("stray line\n", "").replace("ipoib 3", "ipoib : 3") + "end-qos-ulps\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("qos-policy.conf", good)], "x")
    assert [(u.name, u.sl) for u in dev.opensm.sl_uses] == [("default", 0), ("ipoib", 3)]


def test_partitions_problems():
    text = "Default=0x7fff, ipoib : ALL=full;\nlast=0x20, sl=3 : SELF=full\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    got = {i.source.line: i.message for i in dev.issues}
    assert "not closed by `;`" in got[2]  # OpenSM reads the last line without its `;` (osm_prtn_config_parse_file)
    assert [(p.name, p.pkey, p.sl) for p in dev.opensm.partitions] == [("Default", 0x7FFF, None), ("last", 0x20, 3)]


@pytest.mark.parametrize("text,line,why", [
    # each a PARSE ERROR of osm_prtn_config.c (linux-rdma/opensm fa74b98c) at which osm_prtn_config_parse_file stops:
    # parse_part_conf "no partition definition found" (no `:` on the line a partition starts on) ...
    ("Default=0x7fff : ALL=full;\nbroken=0x10 ALL=full;\nlast=0x20 : SELF=full;\n", 2, "has no `:`"),
    ("Default=0x7fff,\n  ipoib : ALL=full;\nlast=0x20 : SELF=full;\n", 1, "has no `:` on its line"),
    ("Default=0x7fff : ALL=full;\n. . .\nvlan100=0x64, ipoib : ALL;\n", 2, "'. . .' has no `:` on its line"),
    # ... partition_create refusing a P_Key strtoul does not read whole ("bad partition definition") ...
    ("Default=0x7fff : ALL=full;\nstorage=7fff : ALL;\nlast=0x20 : SELF;\n", 2, "P_Key is not a number"),
    # ... and partition_add_port refusing a port ("bad PortGUID"): host names, patterns, placeholders, lower case,
    # GUID 0
    ("Default=0x7fff : ALL=full;\nhpc=0x1 : hpc-node-*=full;\nai=0x2 : ALL;\n", 2, "'hpc-node-*=full'"),
    ("io=0x4 : 0x8f10001072a41,\n  <port-guid1> , 0x2;\nai=0x2 : ALL;\n", 2, "'<port-guid1>'"),
    ("Default=0x7fff : all=full;\n", 1, "'all=full' is not a port GUID"),
    ("t=0x5 : 0x0=full;\n", 1, "'0x0=full'"),
    # a partition not closed by `;`: OpenSM reads the next line as its ports
    ("Default=0x7fff : ALL=full\nstorage=0x2 : ALL;\n", 2, "'storage=0x2 : ALL' is not a port GUID"),
])
def test_opensm_stops_reading_partitions_at_its_first_parse_error(text, line, why):
    """At a line its parser refuses OpenSM drops the whole file and falls back to its default partition, Default
    0x7fff with ALL ports full and an IPoIB group (osm_prtn.c osm_prtn_make_partitions "retrying with default
    config", linux-rdma/opensm 5a97c782): none of the file's partitions is configured, not even those before it
    (session 41 part j kept those; `hpc-node-*=full` and `<port-guid1>` had been dropped silently before)."""
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(i.source.line, why in i.message, "OpenSM stops reading partitions.conf" in i.message)
            for i in dev.issues] == [(line, True, True)]
    assert ("end partition 'Default' with `;`" in dev.issues[0].message) == ("storage" in why)
    assert [(p.name, p.pkey, p.ipoib, p.sl, p.members, p.source.line) for p in dev.opensm.partitions] == [
        ("Default", 0x7FFF, True, None, ["ALL=full"], line)]


def test_opensm_falls_back_to_default_keeping_the_default_the_file_made():
    """The fallback finds the Default partition (and its IPoIB group) the file made before the error: OpenSM keeps its
    SL and group flags and deletes neither (osm_prtn_make_new, osm_prtn_add_mcgroup); a file with no partition falls
    back too (osm_prtn_config_parse_file returns 1 when nothing parsed)."""
    text = "Default=0xffff, ipoib, sl=1, mtu=5 : SELF=full, mgid=ff12::9,sl=2\n;\nai=0x2, sl=3 : ALL;\nx : nodes;\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.sl, p.mtu_code, p.group_sls, p.members) for p in dev.opensm.partitions] == [
        ("Default", 1, 5, {"ff12::9": 2}, ["ALL=full"])]
    assert [i.source.line for i in dev.issues] == [4]
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", "# none yet\n")], "x")
    assert [(p.name, p.members) for p in dev.opensm.partitions] == [("Default", ["ALL=full"])]
    assert ["holds no partition" in i.message for i in dev.issues] == [True]


def test_a_partition_without_ports_is_removed_with_its_groups():
    """OpenSM removes a partition no port is a member of, and its multicast groups with it (osm_prtn.c
    osm_prtn_make_partitions, osm_prtn_delete): its sl= and its groups' are no SL in use. Default stays: OpenSM
    makes every port a member before it reads the file (prtn_make_default)."""
    text = ("storage=0x3, ipoib, sl=5 : NONE;\nio=0x4, sl=6 :\n  mgid=ff12::1,sl=7\n  ;\n"
            "Default=0x7fff, ipoib, sl=1 : N;\nai=0x2, sl=2 : ALL;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.sl) for p in dev.opensm.partitions] == [("Default", 1), ("ai", 2)]
    assert dev.issues == []


def test_an_mgid_opensm_cannot_read_as_multicast_is_named():
    """mgroup_create takes the MGID with inet_pton (no `%scope`, which Python's ipaddress takes) and wants ff as its
    first byte; else it logs "gid is not multicast", makes no group and reads on."""
    text = "Default=0x7fff, ipoib :\n  mgid=ff12::1%ib0,sl=4\n  mgid=ff12::x,sl=5\n  mgid=ff12::2,sl=6\n  ALL=full;\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(i.source.line, "is not a multicast GID" in i.message) for i in dev.issues] == [(2, True), (3, True)]
    assert [p.group_sls for p in dev.opensm.partitions] == [{"ff12::2": 6}]


def test_partitions_lines_read_as_fgets_reads_them():
    """osm_prtn_config_parse_file reads with fgets into char line[4096] (4094 characters a read): a longer line is
    read as several, so a port GUID at a cut becomes two ports (here `...0b72` cut to `0x0002c903000` and `e0b72`, a
    bad PortGUID) and a comment's rest past a cut is read as text; each long line is named, and lines are numbered as
    the file numbers them."""
    guid = "0x0002c903000e0b72"
    long = "a=0x2, ipoib : " + ",".join([guid] * 300)  # the cut at 4094 falls inside the 228th GUID
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", f"{long};\nb=0x3 : ALL;\n")],
                       "x")
    assert [(i.source.line, i.message.split(":")[0]) for i in dev.issues] == [
        (1, "partition 'a'"), (1, "line 1 is longer than 4094 characters")]
    assert "'e0b72' is not a port GUID" in dev.issues[0].message
    assert [(p.name, p.members) for p in dev.opensm.partitions] == [("Default", ["ALL=full"])]
    spaced = "a=0x2, ipoib : ALL=full," + " " * 5000 + "SELF;\n#" + "x" * 4100 + "\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", spaced)], "x")
    assert [(i.source.line, "longer than" in i.message) for i in dev.issues] == [(2, False), (1, True), (2, True)]
    assert "OpenSM stops reading" in dev.issues[0].message  # the comment's last characters, read as a partition
    # an mgid= entry after a long line keeps the line the file numbers it with (IBS008 cites it)
    text = "Default=0x7fff, ipoib :\n  ALL=full," + " " * 5000 + "SELF,\n  mgid=ff12::1,sl=1;\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert dev.opensm.partitions[0].group_lines == {"ff12::1": 3}


def test_partition_flags_as_opensm_matches_them():
    """osm_prtn_config.c matches a flag by strncmp over the length written, in the order mtu, rate, scope, Q_Key,
    TClass, sl, FlowLabel, ipoib, defmember (indx0 whole): `ip` is ipoib and `m` mtu, `IPoIB` is no flag (logged
    "unrecognized partition flag", so no broadcast group); a P_Key is cut to 16 bits ((uint16_t)strtoul)."""
    text = ("a=0x2, ip, m=5, r=0x10 : ALL;\nb=0x3, IPoIB, mtu=5 : ALL;\n"
            "c=0x18001, ipoib, , indx0, defmember=full : ALL;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.pkey, p.ipoib, p.mtu_code, p.rate_code) for p in dev.opensm.partitions] == [
        ("a", 2, True, 5, 16), ("b", 3, False, 5, None), ("c", 0x8001, True, None, None)]
    got = {i.source.line: i.message for i in dev.issues}
    assert sorted(got) == [2, 3] and "'IPoIB' is no partition flag OpenSM knows" in got[2]
    assert "OpenSM takes the low 16 bits strtoul gives, 0x8001" in got[3]


def test_a_second_group_of_an_mgid_is_ignored_as_opensm_ignores_it():
    """OpenSM makes one group per MGID in the subnet, compared as 128-bit addresses once an IP group takes its
    partition's P_Key and the scope nibble is set (osm_prtn_config.c mgroup_create "don't create multiple copies of
    the group", osm_prtn.c osm_prtn_add_mcgroup): a later entry's sl= is no SL in use, and both lines are named."""
    text = ("Default=0x7fff, ipoib :\n"
            "  mgid=ff12::1,sl=1\n"
            "  mgid=ff12:0::1,sl=5\n"                     # the same address spelled otherwise
            "  mgid=ff15::1,sl=6\n"                       # scope 5 written, made at link-local scope 2: ff12::1
            "  mgid=ff15::1,sl=7,scope=5\n"               # made at scope 5: a group of its own
            "  mgid=ff12:401b:ffff::ffff:ffff,sl=8\n"     # Default's IPoIB broadcast group
            "  ALL=full;\n"
            "t=0x2, ipoib :\n"
            "  mgid=FF12:0:0:0:0:0:0:1,sl=3\n"            # another partition: still the subnet's group ff12::1
            "  mgid=ff12:401b::7,sl=4\n"                  # P_Key bits set to t's 0x8002: its own group
            "  mgid=ff12:401b:8002::7,sl=9\n"             # ... which this one is
            "  ALL=full;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [p.group_sls for p in dev.opensm.partitions] == [{"ff12::1": 1, "ff15::1": 7}, {"ff12:401b::7": 4}]
    got = {i.source.line: i.message for i in dev.issues}
    assert sorted(got) == [3, 4, 6, 9, 11]
    assert "mgid ff12:0::1 is the multicast group line 2 made (mgid=ff12::1;" in got[3] and "(sl=5)" in got[3]
    assert "line 2 made" in got[4] and "line 2 made" in got[9] and "line 10 made (mgid=ff12:401b::7" in got[11]
    assert "line 1 made (its IPoIB broadcast group" in got[6] and "ignores this one" in got[6]


def test_an_ip_multicast_group_opensm_refuses_hands_out_no_sl():
    """An IP group (MGID signature 0x401b/0x601b) must match its partition's broadcast group in rate and MTU (OpenSM's
    defaults 3 and 4 when unwritten) and carry its P_Key or 0x0000 (osm_prtn_config.c ip_mgroup_*_ok): else OpenSM
    logs an ERROR and makes no group, so its sl= is no SL in use; other groups keep their own flags."""
    text = ("Default=0x7fff, ipoib, rate=7 :\n"
            "  mgid=ff12:401b::1,sl=1\n"                  # inherits rate 7, MTU 4: made
            "  mgid=ff12:401b::2,sl=2,rate=3\n"           # rate 3 is not the broadcast group's 7
            "  mgid=ff12:601b:8002::3,sl=3\n"             # P_Key bits of another partition
            "  mgid=ff12:401b:ffff::ffff:ffff,sl=4\n"     # the IPoIB broadcast MGID itself
            "  mgid=ff12::5,sl=5,mtu=2,rate=3\n"          # not an IP group: its own MTU and rate
            "  ALL=full;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert dev.opensm.partitions[0].group_sls == {"ff12:401b::1": 1, "ff12::5": 5}
    got = {i.source.line: i.message for i in dev.issues}
    assert sorted(got) == [3, 4, 5] and "rate=3, not the broadcast group's 7" in got[3]
    assert "line 1 made (its IPoIB broadcast group" in got[5]  # P_Key bits 0xffff are Default's: the same MGID
    assert "P_Key bits 0x8002, not the partition's 0xffff or 0x0000" in got[4] and "makes no group" in got[4]


def test_partition_ports_as_opensm_reads_them():
    """A name starting with a digit is the P_Key (partition_create); a port is a prefix of a keyword or NONE
    (strncmp over its length; the model names the keyword in full, so no reader of it repeats the prefix rule); an
    `mgid=` entry takes the rest of its line as the group's flags (parse_part_conf)."""
    text = ("0x8001, ipoib : SELF=full, NONE, AL=limited;\n"
            "Default=0x7fff, ipoib :\n  mgid=ff12:401b::0707,sl=1, ALL=full\n  ALL_SWITCHES=full;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert dev.issues == []
    assert [(p.name, p.pkey, p.members) for p in dev.opensm.partitions] == [
        ("", 0x8001, ["SELF=full", "ALL=limited"]), ("Default", 0x7FFF, ["ALL_SWITCHES=full"])]


@pytest.mark.parametrize("text,found,evidence", [
    ("-I- Checking credit loops\n-I- Analyzing Fabric for Credit Loops 1 SLs, 1 VLs used.\n-I- no credit loops found\n",
     False, []),
    ("Found credit loop on: sw1/P1 VL: 0\n  - BT credit loop through: sw2/P2 VL: 0\n-E- credit loops in routing\n",
     True, ["Found credit loop on: sw1/P1 VL: 0", "- BT credit loop through: sw2/P2 VL: 0",
            "-E- credit loops in routing"]),
    ("-E- Found:3 Credit Loops\n", True, ["-E- Found:3 Credit Loops"]),  # older ibdm wording
    ("-E- Found:2 CA to CA paths that can cause credit loops.\n", True,
     ["-E- Found:2 CA to CA paths that can cause credit loops."]),
    ("-I- Discovering ... ibdiagnet\n-I- Done\n", None, []),  # ran without -r: no verdict
])
def test_ibdiagnet_verdicts(text, found, evidence):
    inputs = [Input("opensm.conf", "sm_priority 1\n"), Input("ibdiagnet2.log", text)]
    loops = opensm.parse(inputs, "x").opensm.credit_loops
    assert (loops.loops_found, loops.evidence) == (found, evidence)


def test_credit_loop_fixture():
    sm = load_fabric([RAW / "credit-loop"]).devices["credit-loop"].opensm
    assert sm.credit_loops.loops_found is True and len(sm.credit_loops.evidence) == 5
    assert line_at(sm.credit_loops.source) == "Found credit loop on: leaf03/P13 VL: 0"


def test_partition_group_mtu_and_rate_codes():
    """mtu= and rate= are kept as the IBA codes written (hex or decimal, as strtoul reads them); a garbled one is
    a SYS002 and leaves the code unknown."""
    text = "Default=0x7fff, ipoib, mtu=5, rate=0x10 : ALL=full;\nstorage=0x2, ipoib, rate=fast : ALL=full;\n"
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.mtu_code, p.rate_code) for p in dev.opensm.partitions] == [("Default", 5, 16),
                                                                                  ("storage", None, None)]
    assert ["rate='fast' is not a number" in i.message for i in dev.issues] == [True]


def test_a_misspelt_qos_option_is_named_and_nvidia_options_are_not():
    """OpenSM matches option names exactly and only logs `Unrecognized token` for the others
    (osm_subnet.c osm_subn_parse_conf_file): a misspelt QoS option leaves the table at its fallback."""
    text = "\n".join([
        "qos TRUE",
        "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7",
        "qos_swe_sl2vls 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3",  # meant qos_swe_sl2vl
        "QoS_max_vls 8",                                    # names are case-sensitive
        "qos_vlarb_hihg 0:64",
        # NVIDIA OpenSM's own options (UFM / MLNX_OFED docs), not in upstream's table: no word; `ar_enable` (no field
        # of NVIDIA's osm_subn_opt_t) and a vendor's unknown name are named as passed over (session 41)
        "ar_enable TRUE",
        "ar_mode bounded",
        "enhanced_qos_policy_file null",
        "routing_engine ar_ftree",
        "unknown_vendor_option 42",
    ])
    dev = parse_text(text)
    issues = {i.source.line: i.message for i in dev.issues}
    assert sorted(issues) == [3, 4, 5, 6, 10] and {i.code for i in dev.issues} == {"SYS002"}
    assert issues[6].startswith("`ar_enable` is not an option of OpenSM or NVIDIA's OpenSM") and \
        issues[10].startswith("`unknown_vendor_option` is not an option of OpenSM or NVIDIA's OpenSM")
    assert issues[3] == ("`qos_swe_sl2vls` is not an OpenSM option (did you mean `qos_swe_sl2vl`?): OpenSM logs "
                         "`Unrecognized token` and ignores the line, so the swe ports take qos_sl2vl or OpenSM's "
                         "built-in sl2vl")
    assert "(did you mean `qos_max_vls`?)" in issues[4] and "(did you mean `qos_vlarb_high`?)" in issues[5]
    sm = dev.opensm
    assert sm.qos_sets["swe"].sl2vl == [0, 1, 2, 3, 4, 5, 6, 7] * 2  # the qos_ set, as OpenSM falls back
    assert sm.qos_sets["ca"].max_vls == 15  # OpenSM's built-in


def test_a_qos_option_name_near_no_option_is_named():
    """Every QoS option OpenSM reads is in its table (osm_subnet.c opt_tbl: qos, qos_policy_file and the qos_,
    qos_ca_, qos_sw0_, qos_swe_, qos_rtr_ sets; NVIDIA's adds the qos_sw2sw_ set): any other `qos_` name is logged
    `Unrecognized token` and ignored, near a known name or not. The tiny file is still an opensm.conf."""
    text = "qos TRUE\nqos_ca_bogus 1\nqos_foo 3\nqos_sw2sw_max_vls 4\nqos_ca_max_vls 8\n"
    assert detect(Input("opensm.conf", text)) == "opensm"
    dev = parse_text(text)
    issues = {i.source.line: i.message for i in dev.issues}
    assert sorted(issues) == [2, 3] and {i.code for i in dev.issues} == {"SYS002"}
    assert issues[3].startswith("`qos_foo` is not an OpenSM QoS option (") and "`Unrecognized token`" in issues[3]
    assert dev.opensm.qos_sets["ca"].max_vls == 8


def test_options_of_a_newer_opensm_are_known():
    """KNOWN is upstream OpenSM's whole option table (osm_subnet.c opt_tbl at the commit its comment names): a file of
    options 3.3.21 and later added (avoid_throttled_links, force_link_width, long_transaction_timeout ...) is an
    opensm.conf (before: 3 of its 10 options known, so no platform took it), none of them reads as a misspelt QoS
    option, and every option the model keeps is one of upstream's or NVIDIA's (its qos_sw2sw_ set)."""
    text = (RAW / "newer-options.conf").read_text()
    keys = [line.split()[0] for line in text.split("\n") if line.strip() and not line.startswith("#")]
    assert len(keys) == 10 and all(k in opensm.options.KNOWN for k in keys)
    assert opensm.sniff(Input("sm.txt", text)) and detect(Input("sm.txt", text)) == "opensm"
    dev = parse_text(text)
    assert dev.issues == [] and dev.opensm.routing_engines == ["dfsssp"]
    assert set(opensm.options._TYPES) <= opensm.options.KNOWN | opensm.options.NVIDIA_KNOWN
    # a misspelling of one of the new names is not a QoS option's, and is named with the option it is near
    near = parse_text("qos TRUE\nforce_link_widht 255\navoid_throttled_link TRUE\n").issues
    assert ["did you mean `force_link_width`?" in near[0].message, "did you mean `avoid_throttled_links`?" in
            near[1].message] == [True, True], near


def test_an_option_an_older_opensm_had_is_named_with_what_it_asked_for():
    """OpenSM before 3.2 switched QoS with `no_qos` (default TRUE); linux-rdma/opensm commit 9d56daf8 renamed it `qos`
    (default FALSE), and a newer OpenSM only logs `Unrecognized token` for the old name. `no_qos FALSE` meant QoS on:
    a SYS002 says so (before: passed over without a word, with IBS005's "qos FALSE" the only trace)."""
    dev = parse_text("routing_engine ftree\nno_qos FALSE\nqos_max_vls 8\n")
    assert dev.opensm.qos_enabled is not True
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2)]
    assert dev.issues[0].message == (
        "`no_qos FALSE` is OpenSM 3.1's option for `qos` (renamed in 3.2, its sense reversed): a newer OpenSM logs "
        "`Unrecognized token` and ignores the line, so QoS stays off (OpenSM's default); the line asks for QoS on "
        "(`qos TRUE`)")
    assert "asks for QoS off (`qos FALSE`)" in parse_text("no_qos TRUE\nqos_max_vls 8\n").issues[0].message


@pytest.mark.parametrize("entry, line, says", [
    ("    sl: x\n", 4, "SL 'x' is not one number: OpenSM fails to parse the file (ERR AC03)"),
    ("    sl: 3 4\n", 4, "SL '3 4' is not one number"),
    ("    sl: 1\n    sl: 2\n", 5, "has a second `sl:` (line 4 wrote its first"),
    # `sl:` may take its number on the next line, but the level's end is no number (review r2: it was taken as a
    # level without `sl:`, silently, and the qos-ulps' `default : 2` stayed in use)
    ("    sl:\n", 4, "qos-level gpu: `sl:` has no number after it: OpenSM fails to parse the file"),
    ("    sl:\n    # the SL\n\n", 4, "`sl:` has no number after it"),
])
def test_a_qos_level_sl_opensm_s_grammar_refuses_drops_the_whole_policy(entry, line, says):
    """A qos-level's `sl:` is one TK_NUMBER to OpenSM's grammar (osm_qos_parser_y.y qos_level_sl: single_number): a
    word, two numbers or a second `sl:` in the level is a parse error (ERR AC03) and no SL of the file is handed out,
    the qos-ulps' included (before: the level was skipped and `default : 2` stayed in use)."""
    from losslessd.parse.opensm import qos_policy

    text = (f"qos-levels\n  qos-level\n    name: gpu\n{entry}  end-qos-level\nend-qos-levels\n"
            "qos-ulps\n  default : 2\nend-qos-ulps\n")
    uses, issues = qos_policy.read(text, "p.conf")
    assert uses == [] and [(i.source.line, says in i.message) for i in issues] == [(line, True)]


def test_a_qos_level_sl_is_read_as_opensm_reads_it():
    """qos_level_sl casts strtoull(text, NULL, 0) to uint8_t without a range check (osm_qos_parser_y.y): `010` is SL 8,
    `sl:` may take its number on the next line, and an SL above 15 is kept by the parser but refused for every path
    of the level (osm_sa_path_record.c: outside valid_sl_mask, IB_NOT_FOUND), named at its line; a qos-ulps SL above
    15 fails the whole parse ("illegal SL value")."""
    from losslessd.parse.opensm import qos_policy

    levels = ("qos-levels\n  qos-level\n    name: a\n    sl: 010\n  end-qos-level\n"
              "  qos-level\n    name: b\n    sl:\n      0x3\n  end-qos-level\n"
              "  qos-level\n    name: c\n    sl: 0x10f\n  end-qos-level\nend-qos-levels\n")
    uses, issues = qos_policy.read(levels, "p.conf")
    assert [(u.name, u.sl, u.source.line) for u in uses] == [("a", 8, 4), ("b", 3, 9), ("c", 15, 13)]
    assert [i.source.line for i in issues] == [13] and "takes its low 8 bits, SL 15" in issues[0].message
    uses, issues = qos_policy.read(levels.replace("0x10f", "0x110"), "p.conf")
    assert "qos-level c: sl 0x110 is no SL 0-15; OpenSM takes it (as 16)" in issues[0].message
    uses, issues = qos_policy.read("qos-ulps\n  default : 0\n  ipoib : 16\nend-qos-ulps\n", "p.conf")
    assert uses == [] and [i.source.line for i in issues] == [3] and "illegal SL value" in issues[0].message


def test_a_qos_policy_line_opensm_s_grammar_refuses_drops_the_whole_policy():
    """OpenSM's policy lexer takes an entry's keyword only before its colon (osm_qos_parser_l.l: `sl:`, `name:`); any
    other line in a block is a syntax error, on which osm_qos_parse_policy_file logs ERR AC03 and applies no policy.
    So `sl 1` is named once, and no SL of the file is handed out (before: such lines were passed over without a word).
    The syntax of QoS_management_in_OpenSM.txt (comma lists carried over lines, `use:` text, block ends) is taken."""
    from losslessd.parse.opensm import qos_policy

    bad = "qos-levels\n  qos-level\n    name: gpu\n    sl 1\n  end-qos-level\nend-qos-levels\n"
    uses, issues = qos_policy.read(bad, "p.conf")
    assert uses == [] and [(i.code, i.source.line) for i in issues] == [("SYS002", 4)]
    assert "OpenSM fails to parse the file (ERR AC03)" in issues[0].message
    good = ("port-groups\n  port-group\n    name: Storage\n    use: SRP targets, all of them\n"
            "    port-guid: 0x10000000000001,\n               0x10000000000005\n  end-port-group\nend-port-groups\n"
            "qos-setup\n  vlarb-tables\n    vlarb-scope\n      group: Storage\n      vlarb-high: 0:255\n"
            "    end-vlarb-scope\n  end-vlarb-tables\nend-qos-setup\n"
            "qos-levels\n  qos-level\n    name: gpu\n    sl: 1\n    mtu-limit: 4\n  end-qos-level\nend-qos-levels\n"
            "qos-match-rules\n  qos-match-rule\n    source: Storage\n    qos-level-name: gpu\n  end-qos-match-rule\n"
            "end-qos-match-rules\n")
    uses, issues = qos_policy.read(good, "p.conf")
    assert issues == [] and [(u.name, u.sl) for u in uses] == [("gpu", 1)]


def test_an_nvidia_opensm_excerpt_is_detected_by_nvidia_options():
    """NVIDIA's OpenSM (UFM, MLNX_OFED) reads options upstream's table lacks (fields of its osm_subn_opt_t:
    routing_threads_num, smp_threads, max_wire_smps_per_device ...). An excerpt written mostly in them is an
    opensm.conf (before: 5 of its 14 names upstream's, so no platform took it and lint refused it), and none
    of them is named."""
    text = (Path(__file__).parent / "realworld" / "opensm" / "nvidia-ufm-options.conf").read_text()
    assert opensm.sniff(Input("opensm.conf", text)) and detect(Input("opensm.conf", text)) == "opensm"
    dev = parse_text(text)
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 5)]
    assert dev.opensm.qos_enabled is True and dev.opensm.routing_engines == ["ar_updn"]
    # NVIDIA's options alone, fewer than upstream's five: still text no platform takes on its own
    assert not opensm.sniff(Input("x", "smp_threads 0\ngmp_threads 0\nhostname leaf1\nmtu 9216\n"))


def test_an_option_of_neither_opensm_is_named_as_passed_over():
    """Names neither upstream's option table (osm_subnet.c opt_tbl) nor NVIDIA OpenSM's option fields (osm_subnet.h
    osm_subn_opt_t) hold were passed over in silence (`partition_config`, `log_level`): OpenSM logs `Unrecognized
    token` and the setting is not made. Each is named, with the option it is near; NVIDIA's own fields are known."""
    dev = parse_text("sm_priority 14\npartition_config /etc/opensm/partitions.conf\nlog_level 3\nmax_op_vls_rtr 4\n"
                     "hm_ca_reboot_action isolate\nrouting_engine updn\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2), ("SYS002", 3)]
    assert dev.issues[0].message == (
        "`partition_config` is not an option of OpenSM or NVIDIA's OpenSM (osm_subnet.c, osm_subnet.h) (did you mean "
        "`partition_config_file`?): OpenSM logs `Unrecognized token` and ignores the line, so it sets nothing")
    assert "did you mean" not in dev.issues[1].message


def test_an_option_written_out_in_words_is_named_with_the_option_it_spells():
    """OpenSM matches names exactly: `max_operational_vls 4` sets nothing, max_op_vls keeps its built-in 5
    (osm_base.h OSM_DEFAULT_MAX_OP_VLS). A name whose every word starts the word of a read option is named;
    one with other words or another word count is not (an unrelated name: named as no option, NVIDIA's
    max_op_vls_ca known)."""
    dev = parse_text("qos TRUE\nmax_operational_vls 4\nsm_priority_value 3\nmax_op_vls_ca 2\nmaximum_ops 1\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2), ("SYS002", 3), ("SYS002", 5)]
    assert all("did you mean" not in i.message for i in dev.issues[1:])
    assert dev.issues[0].message == (
        "`max_operational_vls` is not an OpenSM option (did you mean `max_op_vls`?): OpenSM logs `Unrecognized "
        "token` and ignores the line, so OpenSM keeps its built-in `max_op_vls 5`")
    assert dev.opensm.max_op_vls is None or dev.opensm.max_op_vls == 5


def test_nvidia_adaptive_routing_and_sharp_options_are_known():
    """NVIDIA OpenSM 5.18's osm_subn_opt_t (libopensm-devel 5.18.0.MLNX20240128 osm_subnet.h) has ar_mode,
    shield_mode, pfrn_sl, ar_sl_mask and sharp_enabled: an AI-fabric guide's excerpt of a few OpenSM options beside
    them is an opensm.conf (before: SYS001, no platform took it without `--format opensm`). `sharp_enable`, which
    guides write, is no field of it: named with the one it resembles; `ar_enable` (no near name) is named as no
    option (session 41: it was left alone)."""
    text = "routing_engine ar_ftree\nsweep_interval 10\nar_mode 2\nshield_mode 1\nsharp_enabled 2\npfrn_sl 1\n"
    assert opensm.sniff(Input("sm.txt", text)) and detect(Input("sm.txt", text)) == "opensm"
    assert parse_text(text).issues == []
    dev = parse_text("routing_engine ftree,updn\nsm_priority 15\nar_enable 1\nsharp_enable 1\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 3), ("SYS002", 4)]
    assert "(did you mean NVIDIA's `sharp_enabled`?)" in dev.issues[1].message


def test_a_boolean_option_spelt_with_an_on_off_word_is_named():
    """`enable_qos yes`, as a guide's opensm.conf template writes QoS on (audit round 12): OpenSM's option is `qos`
    (osm_subnet.c opt_tbl), so it logs `Unrecognized token`, QoS stays off and lash/dfsssp lose their credit-loop
    freedom. Named with the option it spells; `ar_enable` (no such boolean) and `sharp_enable` keep their readings."""
    dev = parse_text("routing_engine lash\nenable_qos yes\nuse_connect_roots TRUE\nqos_enabled TRUE\nar_enable 1\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", n) for n in (2, 3, 4, 5)]
    assert "did you mean" not in dev.issues[3].message
    assert dev.issues[0].message == (
        "`enable_qos` is not an OpenSM option (did you mean `qos`?): OpenSM logs `Unrecognized token` and ignores "
        "the line, so QoS stays off (OpenSM's default)")
    assert "(did you mean `connect_roots`?)" in dev.issues[1].message and not dev.opensm.qos_enabled


def test_eos_global_qos_map_lines_are_no_opensm_options():
    """Session 35 part a: a file of EOS's `qos map ... to traffic-class N` lines sniffed as OpenSM (every line's first
    word is the `qos` option); a value of several bare words is no option line, a quoted one is."""
    from losslessd.parse import opensm
    from losslessd.parse.base import Input

    assert not opensm.sniff(Input("x", "qos map dscp 26 to traffic-class 3\nqos map traffic-class 3 to tx-queue 3\n"))
    assert opensm.sniff(Input("x", "qos TRUE\nqos_max_vls 8\n"))
    assert opensm.sniff(Input("x", 'qos TRUE\nnode_name_map_name "/etc/node names.map"\n'))


def test_a_trailing_comma_ends_an_opensm_table():
    """OpenSM's own doc/qos-config.txt writes `qos_ca_sl2vl 0,1,2,3,5,5,5,12,12,0,`: osm_subnet.c's checks split the
    list with strtok_r (no empty entry) and osm_qos.c's parse stops at the end. A trailing comma was a SYS002
    "'' is not a VL 0-15" and one VL too many in the count (a table of 16 with one: a false "lists 17 VLs")."""
    dev = parse_text("qos TRUE\nqos_ca_sl2vl 0,1,2,3,5,5,5,12,12,0,\nqos_swe_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,\n"
                    "qos_swe_vlarb_low 0:64,1:32,\n")
    said, sm = [i.message for i in dev.issues], dev.opensm
    assert said == ["qos_ca_sl2vl lists 10 VLs, not one per SL 0-15; OpenSM maps missing SLs to VL 0 and drops extra "
                    "entries"], said
    assert sm.qos_sets["ca"].sl2vl == [0, 1, 2, 3, 5, 5, 5, 12, 12, 0] + [0] * 6
    assert sm.qos_sets["swe"].sl2vl == [0, 1, 2, 3, 4, 5, 6, 7] * 2
    assert sm.qos_sets["swe"].vlarb_low == [(0, 64), (1, 32)]
    # an empty entry between commas is OpenSM's VL 0 in its place (strtoul of nothing), and said
    gap = parse_text("qos TRUE\nqos_ca_sl2vl 0,1,,3,4,5,6,7,8,9,10,11,12,13,14,7\n")
    assert gap.opensm.qos_sets["ca"].sl2vl[:4] == [0, 1, 0, 3]
    assert any("'' is not a VL" in i.message for i in gap.issues)


def test_a_file_named_opensm_conf_is_told_by_one_option_opensm_reads():
    """Session 40 part j: hand-written opensm.conf excerpts of HPC guides mix OpenSM's options with NVIDIA's
    (`ar_enable`), misnamed ones (`priority` for sm_priority) and site notes; with fewer than five upstream names
    the content rule took none of them and lint stopped with "cannot tell which platform" (exit 2). Under OpenSM's
    own file name (config.h: /etc/opensm/opensm.conf) one line OpenSM reads is enough when every line is shaped as
    an option; under another name the content rule stands."""
    text = "priority 15\nrouting_engine updn\nsweep_interval 10\nar_enable TRUE\nsite_rack_label r12\n"
    for name in ("sm01/opensm.conf", "opensm-sm01.conf"):
        assert detect(Input(name, text)) == "opensm"
    assert detect(Input("notes.txt", text)) is None
    assert detect(Input("opensm.conf", "hostname leaf1\nmtu 9216\n")) is None  # no OpenSM option at all
    # another platform's file under that name (a fleet folder's `sm-opensm.conf` switch config): EOS's `daemon
    # TerminAttr` and `qos ...` lines begin with OpenSM option names but are a few of its lines (before: OpenSM)
    eos = ("hostname leaf1\ndaemon TerminAttr\n   exec /usr/bin/TerminAttr -cvaddr=10.0.0.1:9910\n   no shutdown\n"
           "qos map dscp 26 to traffic-class 3\nqos rewrite dscp\ninterface Ethernet1\n   priority-flow-control on\n")
    for name in ("opensm.conf", "sm-opensm.conf"):
        assert detect(Input(name, eos)) == "arista_eos", name
    # under that name the content rule still stands: mostly options, one value of several words
    many = "sm_priority 14\nlmc 0\nqos TRUE\nsweep_interval 10\nrouting_engine updn\nlog_prefix fabric A SM\n"
    assert detect(Input("opensm.conf", many)) == "opensm"
    dev = parse_text(text)
    assert dev.opensm.routing_engines == ["updn"] and dev.opensm.sm_priority == 0
    # `priority`: did you mean sm_priority; `ar_enable` and the site's note: no option of OpenSM's
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 1), ("SYS002", 4), ("SYS002", 5)]


def test_an_option_written_name_equals_value_is_named_once_with_the_line_to_write():
    """OpenSM splits an option line at its first blank and takes the rest as the value (osm_subnet.c
    osm_subn_parse_conf_file): `lmc = 2` is strtoul("= 2"), 0; `qos = TRUE` leaves QoS off (the `=` of
    `routing_engine = updn` is an engine name, test above). Before: a number or boolean line was named without the
    cause, a path not at all, a QoS table by its entries ('= 0' is not a VL)."""
    dev = parse_text("qos = TRUE\nlmc = 2\nrouting_engine = updn\nlog_file = /var/log/opensm.log\nqos_sl2vl = 0,1\n"
                     "sm_priority 3\n")
    issues = sorted(dev.issues, key=lambda i: i.source.line)
    assert [i.source.line for i in issues] == [1, 2, 3, 4, 5]
    messages = [i.message for i in issues]
    assert "OpenSM reads FALSE); write `qos TRUE`" in messages[0]
    assert "OpenSM reads 0); write `lmc 2`" in messages[1]
    assert "'='" in messages[2] and messages[3].endswith("write `log_file /var/log/opensm.log`")
    assert messages[4].endswith("write `qos_sl2vl 0,1`")
    assert dev.opensm.qos_enabled is False and dev.opensm.lmc == 0 and dev.opensm.routing_engines == ["updn"]
    assert dev.opensm.sm_priority == 3


def test_a_qos_ulps_match_opensm_does_not_know_drops_the_policy():
    """The lexer (osm_qos_parser_l.l) takes a qos-ulps line's match only as a ULP name (`default`, `sdp`, `rds`,
    `iser`, `ipoib`, any case) before `:`, or with its qualifier (`any, service-id`, `ipoib, pkey`, `srp,
    target-port-guid`, `sdp, port-num` ...) and numbers; `storage : 3` is a syntax error, ERR AC03, no policy.
    Before: read as an SL in use. The examples of doc/QoS_management_in_OpenSM.txt's simplified section pass."""
    from losslessd.parse.opensm import qos_policy

    good = ("qos-ulps\n  default : 0\n  SDP, port-num 10000-20000 : 2\n  any, service-id 0x1000-0x1fff : 3\n"
            "  ipoib, pkey 0x8001 : 4\n  srp, target-port-guid 0x1234 : 5\n  iser : 6\nend-qos-ulps\n")
    uses, issues = qos_policy.read(good, "q.conf")
    assert issues == [] and [u.sl for u in uses] == [0, 2, 3, 4, 5, 6]
    for bad in ("storage : 3", "any : 3", "ipoib, pkey : 3"):
        uses, issues = qos_policy.read(good.replace("iser : 6", bad), "q.conf")
        assert uses == [] and [(i.code, i.source.line) for i in issues] == [("SYS002", 7)], bad
        assert "matches no ULP OpenSM knows" in issues[0].message


def test_a_qos_ulps_list_is_read_as_the_lexer_reads_it():
    """osm_qos_parser_l.l skips blanks and new lines between tokens, so a ULP's list of numbers may go on over lines
    after a `,` and need no blank after its qualifier (`pkey0x8001`); its entries are numbers or ranges
    (list_of_ranges in osm_qos_parser_y.y), so `pkey foo` is a syntax error (ERR AC03). Before: the first two
    dropped the whole policy as syntax errors, the third was read as a match."""
    from losslessd.parse.opensm import qos_policy

    good = ("qos-ulps\n  any, service-id 0x1000-0x1fff,\n    0x3000 : 3\n  ipoib, pkey0x8001 : 4\n"
            "  SDP, port-num 1 - 2 , 5 : 2\nend-qos-ulps\n")
    uses, issues = qos_policy.read(good, "q.conf")
    assert issues == [] and [(u.sl, u.source.line) for u in uses] == [(3, 2), (4, 4), (2, 5)]
    assert uses[0].name == "any, service-id 0x1000-0x1fff, 0x3000"
    for bad, line in (("ipoib, pkey foo : 4", 4), ("ipoib, pkey 0x8001,", 4)):
        uses, issues = qos_policy.read(good.replace("ipoib, pkey0x8001 : 4", bad), "q.conf")
        assert uses == [] and [(i.code, i.source.line) for i in issues] == [("SYS002", line)], bad
        assert "applies no QoS policy" in issues[0].message


def test_a_qos_ulps_entry_whose_sl_is_on_the_next_line_is_read():
    """A new line only resets the lexer's list flags (osm_qos_parser_l.l reset_new_line_flags); the number after it
    is a TK_NUMBER the grammar's `... TK_DOTDOT qos_ulp_sl` takes, so `any, service-id 0x10 :` with its SL on the
    next line is OpenSM's syntax. It was refused as a syntax error and the whole policy dropped."""
    from losslessd.parse.opensm import qos_policy

    text = "qos-ulps\n  default :\n    0\n  any, service-id 0x1000-0x1fff :\n    3\n  iser : 6\nend-qos-ulps\n"
    uses, issues = qos_policy.read(text, "q.conf")
    assert issues == [] and [(u.name, u.sl, u.source.line) for u in uses] == [
        ("default", 0, 2), ("any, service-id 0x1000-0x1fff", 3, 4), ("iser", 6, 6)]
    uses, issues = qos_policy.read(text.replace("    3\n  iser : 6\n", ""), "q.conf")  # (no SL: the end follows)
    assert uses == [] and [i.source.line for i in issues] == [4], issues
    assert issues[0].message.startswith("qos-ulps line 'any, service-id 0x1000-0x1fff :' has no SL after its `:`")


def test_a_file_of_many_unknown_options_is_read_in_linear_time():
    """100,000 option names of neither table (hostile input): each was looked up near ~400 known names (difflib),
    13 s of CPU, though the issues list shows 1,000 of them and counts the rest. Past those, none is looked up; the
    first ones still name the option they are near. The look-ups are counted (difflib's frames, tests.workmeter), not
    timed: as many for 8,000 unknown options as for 2,000."""
    import difflib

    from tests.workmeter import steps

    looked = []
    for n in (2_000, 8_000):
        text = "routing_engine ftree\nsm_priority 15\npartition_config /etc/opensm/partitions.conf\n" + \
            "".join(f"o{i} 1\n" for i in range(n))
        count, dev = steps({difflib.__file__}, parse_text, text)
        assert "(did you mean `partition_config_file`?)" in dev.issues[0].message
        assert dev.issues[-1].message.startswith(f"{n - 999:,} more SYS002 issues in this file"), dev.issues[-1].message
        looked.append(count)
    assert looked[0] == looked[1] > 0, looked


def test_a_partition_defined_again_is_the_one_opensm_adds_its_ports_to():
    """A definition without a P_Key names the partition of that name, one with a P_Key the partition of that P_Key
    (its membership bit ignored, the first name kept): OpenSM adds the ports to it (osm_prtn.c osm_prtn_make_new,
    linux-rdma/opensm fa74b98c; doc/partition-config.txt "If PKey is repeated then those partition configurations will
    be merged"). The partition's SL is the last definition's (partition_create sets it, OSM_DEFAULT_SL when none is
    written), while the broadcast group the first made keeps its SL (session 42 part h Left: a second partition
    without a P_Key was made)."""
    text = ("storage=0x8001, ipoib, sl=1 : 0x0002c903000e0b71=full;\n"
            "storage : 0x0002c903000e0b72=full;\n"
            "gpu=0x0003 : NONE;\n"
            "gpu-again=0x8003, sl=4 : ALL_CAS=full;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert dev.issues == []
    assert [(p.name, p.pkey, p.ipoib, p.sl, p.members, p.group_sls, p.source.line)
            for p in dev.opensm.partitions] == [
        ("storage", 0x8001, True, None, ["0x0002c903000e0b71=full", "0x0002c903000e0b72=full"],
         {"ff12:401b:8001::ffff:ffff": 1}, 1),
        ("gpu", 0x0003, False, 4, ["ALL_CAS=full"], {}, 3)]
    # a definition without a P_Key and a name used before is a partition of its own, with a P_Key OpenSM generates
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"),
                        Input("partitions.conf", "a=0x2 : ALL=full;\nb : ALL=full;\nb, sl=3 : SELF=full;\n")], "x")
    assert [(p.name, p.pkey, p.sl, p.members) for p in dev.opensm.partitions] == [
        ("a", 2, None, ["ALL=full"]), ("b", 1, 3, ["ALL=full", "SELF=full"])]
    # two partitions of one name: osm_prtn_find_by_name takes the first of the subnet's P_Key table, which holds the
    # P_Keys in network byte order (a little-endian host: 0x0100 before 0x0002)
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input(
        "partitions.conf", "s=0x0002 : 0x1=full;\ns=0x0100 : 0x2=full;\ns : 0x3=full;\n")], "x")
    assert [(p.pkey, p.members) for p in dev.opensm.partitions] == [(2, ["0x1=full"]),
                                                                     (0x100, ["0x2=full", "0x3=full"])]


@pytest.mark.parametrize("text, read", [
    # generate_pkey: a counter from 0, each P_Key the next number the P_Key table does not hold (0x0001 is x's)
    ("x=0x0001 : 0x1=full;\ny : 0x2=full;\nz : 0x3=full;\n", [("x", 1, ["0x1=full"]), ("y", 2, ["0x2=full"]),
                                                                ("z", 3, ["0x3=full"])]),
    # a name found again without a P_Key: the first of its namesakes in the P_Key table, which a little-endian host
    # orders by the P_Key's bytes swapped: 0x0100 (swapped 0x0001) before the generated 0x0001 (swapped 0x0100)
    ("a : 0x1=full;\na=0x0100 : 0x2=full;\na : 0x3=full;\n", [("a", 1, ["0x1=full"]),
                                                              ("a", 0x100, ["0x2=full", "0x3=full"])]),
    # a P_Key written later that OpenSM generated for an earlier partition is that partition ("Duplicated partition
    # definition ... Will use it", its first name kept)
    ("a : 0x1=full;\nb=0x8001 : 0x2=full;\n", [("a", 1, ["0x1=full", "0x2=full"])]),
    # the membership bit alone is no P_Key (osm_prtn_make_new drops it first): the name is looked up, else generated
    ("a=0x8000 : 0x1=full;\nb : 0x2=full;\na=0 : 0x3=full;\n", [("a", 1, ["0x1=full", "0x3=full"]),
                                                               ("b", 2, ["0x2=full"])]),
])
def test_a_generated_p_key_is_the_one_opensm_generates(text, read):
    """Session 43 part e Left: a partition without a P_Key was kept with none ("OpenSM generates one"), so a namesake
    found later took the first made, and a P_Key written later never met it. linux-rdma/opensm fa74b98c osm_prtn.c
    generate_pkey (global_pkey_counter, set to 0 by osm_prtn_make_partitions before the file is read) and
    osm_prtn_find_by_name (the P_Key table's order) say which it is."""
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.pkey, p.members) for p in dev.opensm.partitions] == read


def test_a_partition_past_the_last_p_key_opensm_can_generate_stops_the_file():
    """generate_pkey counts from 0x0001 to 0x7ffe; past it osm_prtn_make_new returns NULL, partition_create -1, and
    OpenSM logs "bad partition definition" and falls back to its default partition (before: read with no P_Key)."""
    from losslessd.parse.opensm import partitions

    text = "".join(f"p{i} : 0x{i + 1:x}=full;\n" for i in range(0x7FFE + 1))
    parts, issues = partitions.read(text, "partitions.conf")
    assert [(p.name, p.pkey, p.members) for p in parts] == [("Default", 0x7FFF, ["ALL=full"])]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 0x7FFF)]
    assert "has no P_Key and OpenSM has none left to generate" in issues[0].message


@pytest.mark.parametrize("text, members", [
    ("p=0x10 : 0x1=full, 0x2, 0x01=limited;\n", ["0x2=limited", "0x01=limited"]),
    ("p=0x10 : ALL=full, 0x1=limited;\np=0x10 : ALL=limited;\n", ["0x1=limited", "ALL=limited"]),
    ("p=0x10, defmember=full : SELF, 0x5;\np=0x10 : 0x0000000000000005=limited, SELF=lim;\n",
     ["0x0000000000000005=limited", "SELF=limited"]),
])
def test_a_port_named_twice_is_kept_once_with_its_last_membership(text, members):
    """Session 43 part e Left: a port named twice was kept twice in members. osm_prtn.c osm_prtn_add_port takes a port
    named again out of both tables before adding it ("Will overwrite"; with allow_both_pkeys, osm_prtn_config.c
    manage_membership_change takes it out of the other one), so the last entry is the port's; a GUID is one port
    however many zeros lead it (strtoull)."""
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [p.members for p in dev.opensm.partitions] == [members]


def test_each_port_has_the_membership_opensm_gives_it():
    """A port's own flag, matched as strncmp over its length (`f`, even an empty one, is full), an unknown one limited;
    a port without one takes the definition's `defmember`, limited unless written (osm_prtn_config.c
    partition_add_port, partition_add_flag, new_part_conf; doc/partition-config.txt's ShareIO examples)."""
    text = ("ShareIO=0x80, defmember=full : 0x123451, 0x123452=lim;\n"
            "ShareIO=0x80 : 0x123453, 0x123454=f, 0x123455=b, 0x123456=, 0x123457=limi, 0x123458=x;\n"
            "Default=0x7fff, ipoib, defmember=all : ALL;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.members) for p in dev.opensm.partitions] == [
        ("ShareIO", ["0x123451=full", "0x123452=limited", "0x123453=limited", "0x123454=full", "0x123455=both",
                     "0x123456=full", "0x123457=limited", "0x123458=limited"]),
        ("Default", ["ALL=limited"])]
    assert [(i.source.line, "defmember='all' is not limited, both or full" in i.message) for i in dev.issues] == [
        (3, True)]


def test_a_signed_p_key_or_port_guid_is_read_as_strtoul_reads_it():
    """Session 44 review r1 Left: a port GUID or P_Key written with a sign stopped the file ("not a port GUID", "P_Key
    is not a number"). partition_add_port and partition_create (osm_prtn_config.c, linux-rdma/opensm fa74b98c) refuse
    only a number strtoull/strtoul does not read whole, and C11 7.22.1.4 reads a sign as part of it, negating the value
    in the return type: `-1` is 0xffffffffffffffff, a port osm_prtn_add_port finds none of and passes over ("port ...
    not found"); P_Key `-0x7fff` is (uint16_t)(2^64 - 0x7fff), 0x8001; `-1` is 0xffff, Default's (osm_prtn_make_new
    drops the membership bit and finds 0x7fff)."""
    text = ("Default=0x7fff, ipoib : ALL=full;\n"
            "x=0x10 : -1, 0x2=full, 0xffffffffffffffff=full;\n"
            "y=-0x7fff : 0x3=full;\n"
            "z=-1 : 0x4;\n"
            "w=+0x20 : +5=full;\n")
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", text)], "x")
    assert [(p.name, p.pkey, p.members) for p in dev.opensm.partitions] == [
        ("Default", 0x7FFF, ["ALL=full", "0x4=limited"]),
        # `-1` and 0xffffffffffffffff are one port: its last entry kept
        ("x", 0x10, ["0x2=full", "0xffffffffffffffff=full"]),
        ("y", 0x8001, ["0x3=full"]),
        ("w", 0x20, ["+5=full"])]
    assert [(i.source.line, i.message.split(";")[0]) for i in dev.issues] == [
        (3, "partition 'y': P_Key '-0x7fff' is no 16-bit number"), (4, "partition 'z': P_Key '-1' is no 16-bit number")]
    # what strtoul does not read whole still stops the file
    for bad in ("x=0x10 : -0x;\n", "x=0x10 : - 1;\n", "x=-0x : 0x2;\n"):
        stopped = opensm.parse([Input("opensm.conf", "qos TRUE\n"), Input("partitions.conf", bad)], "x")
        assert "OpenSM stops reading partitions.conf" in stopped.issues[0].message, bad


@pytest.mark.parametrize(("written", "pkey"), [
    ("-99999999999999999999", 0xFFFF), ("-0x10000000000000000", 0xFFFF), ("-0x1ffffffffffffffff", 0xFFFF),
    ("-18446744073709551615", 0x0001), ("-0xffffffffffffffff", 0x0001),
])
def test_a_negative_number_past_ulong_max_is_ulong_max_not_negated(written, pkey):
    """Session 45 review r1: C11 7.22.1.4p8 ("If the correct value is outside the range of representable values ...
    ULONG_MAX ... is returned"): strtoul's `-N` is N negated in unsigned long only where N fits; one past ULONG_MAX
    is ULONG_MAX, not its negation, so partition_create's (uint16_t) P_Key is 0xffff, not 0x0001."""
    assert c_number(written, 64, False)[0] == (2**64 - 1 if pkey == 0xFFFF else 1)
    dev = opensm.parse([Input("opensm.conf", "qos TRUE\n"),
                        Input("partitions.conf", f"Default=0x7fff : ALL=full;\np={written} : 0x3=full;\n")], "x")
    said = [i.message for i in dev.issues if i.source.line == 2]
    assert len(said) == 1 and said[0].endswith(f"OpenSM takes the low 16 bits strtoul gives, {pkey:#06x}"), said
