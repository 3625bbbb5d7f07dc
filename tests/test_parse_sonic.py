"""SONiC CONFIG_DB parser: real SONiC files (the corpus) and hand-written cases the goldens do not spell out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from losslessd import api
from losslessd.errors import InputError
from losslessd.fabric import load_fabric
from losslessd.model import SchedulerType, Trust
from losslessd.parse import detect, parse_group
from losslessd.parse.base import Input
from losslessd.parse.sonic import _NO_RELEASE as NO_RELEASE
from losslessd.parse.sonic import _priority_list, buffermgrd, index_range, parse, sniff
from losslessd.parse.sonic.converter import to_uint
from tests.clirun import losslessd

RAW = Path(__file__).parent / "fixtures" / "raw" / "sonic"
REALWORLD = Path(__file__).parent / "realworld" / "sonic"


def _device(folder: Path, *names: str):
    return parse_group(folder.name, [folder / n for n in names])


def _line_of(source) -> str:
    return Path(source.file).read_text(encoding="utf-8").splitlines()[source.line - 1]


# ---- the corpus: files SONiC itself generated ---------------------------------------------------

CORPUS_DEVICES = {
    "mellanox4600c-c64": ("qos.json", "buffers.json"),
    "arista7260-t0": ("qos.json", "buffers.json"),
    "mellanox2410": ("buffers.json",),
    "utilities": ("config_db.json",),
}


@pytest.mark.parametrize("folder", CORPUS_DEVICES)
def test_corpus_parses_without_sys_issues(corpus, folder):
    device = _device(corpus / "sonic" / folder, *CORPUS_DEVICES[folder])
    # (none names a release: the templates' renders write names alone, sonic-utilities' mock tables both forms
    # (`[SCHEDULER|scheduler.1]` beside names alone): said once, SYS004)
    assert [i.code for i in device.issues] == ["SYS004"] and device.issues[0].message.startswith(NO_RELEASE)
    assert ("written both in the old" in device.issues[0].message) == (folder == "utilities")
    assert len(device.ports) >= 30
    assert all(sniff(Input(f, (corpus / "sonic" / folder / f).read_text())) for f in CORPUS_DEVICES[folder])


def test_corpus_folders_load_as_one_device_each(corpus):
    """Every folder of the corpus is one device (however many folders the corpus gains), named by its
    DEVICE_METADATA hostname when it has one, else by the folder; its SONiC files all belong to it."""
    fabric = load_fabric([corpus / "sonic"])
    folders = sorted(p for p in (corpus / "sonic").iterdir() if p.is_dir())
    assert fabric.issues == []
    assert len(fabric.devices) == len(folders) >= 4
    by_files = {Path(d.files[0]).parent.name: d for d in fabric.devices.values()}
    for folder in folders:
        device = by_files[folder.name]
        wanted = [f for f in ("config_db.json", "qos.json", "buffers.json") if (folder / f).is_file()]
        assert [Path(f).name for f in device.files] == wanted
        data = json.loads((folder / wanted[0]).read_text())  # nested or flat (mock table) form
        meta = data.get("DEVICE_METADATA", {}).get("localhost") or data.get("DEVICE_METADATA|localhost") or {}
        assert device.name == meta.get("hostname", folder.name)
    assert fabric.devices["sonic-switch"].files[0].endswith("utilities/config_db.json")  # hostname, not folder


def test_mellanox4600c_lossless_chain(corpus):
    device = _device(corpus / "sonic" / "mellanox4600c-c64", "qos.json", "buffers.json")
    port = device.ports["Ethernet0"]
    assert port.qos_configured and port.pfc_enabled == [3, 4]
    hop = port.dscp_chain(3)
    assert (hop.tc, hop.priority, hop.pg, hop.queue) == (3, 3, 3, 3)
    assert port.dscp_chain(4).queue == 4
    assert port.trust == Trust.dscp and port.trust_source.pointer == "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map"
    assert port.pfc_source.pointer == "/PORT_QOS_MAP/Ethernet0/pfc_enable"
    assert '"pfc_enable"' in _line_of(port.pfc_source)
    ecn = port.queues[3].ecn
    assert (ecn.ecn_enabled, ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.mark_probability_pct) == (
        True, 2_000_000, 10_000_000, 5.0)
    assert ecn.source.pointer == "/WRED_PROFILE/AZURE_LOSSLESS" and '"AZURE_LOSSLESS"' in _line_of(ecn.source)
    assert port.queues[3].scheduler.type == SchedulerType.dwrr and port.queues[3].scheduler.weight == 15
    assert port.queues[0].ecn is None  # lossy queue: no wred_profile
    assert port.cable_length_m == 300.0
    # Lossless PGs 3-4 are absent from buffers.json: buffermgrd makes them at run time from cable length.
    assert port.priority_groups[3].runtime_profile and port.priority_groups[3].profile is None
    assert port.priority_groups[0].profile == "ingress_lossy_profile"
    assert device.buffer_pools["ingress_lossless_pool"].shared_headroom_bytes == 8_790_016
    assert device.buffer_profiles["ingress_lossless_zero_profile"].dynamic_threshold == -8
    # PORT_QOS_MAP|global supplies the DSCP map of ports that bind none; no PFC_WD table: watchdog unknown.
    other = device.ports["Ethernet8"]
    assert other.trust == Trust.dscp and other.trust_source.pointer == "/PORT_QOS_MAP/global/dscp_to_tc_map"
    assert other.dscp_to_tc[3] == 3 and other.pfc_enabled == [] and not other.qos_configured
    assert port.watchdog is None and other.watchdog is None


def test_buffers_only_folder_leaves_pfc_unknown(corpus):
    device = _device(corpus / "sonic" / "mellanox2410", "buffers.json")
    port = device.ports["Ethernet0"]
    assert port.pfc_enabled is None and port.dscp_to_tc is None and port.trust is None
    assert list(port.priority_groups) == [0]  # no PFC known: no run-time lossless PGs invented
    assert port.cable_length_m == 300.0
    assert device.buffer_pools["egress_lossless_pool"].size_bytes == 13_945_824


def test_flat_redis_dump_config_db(corpus):
    device = _device(corpus / "sonic" / "utilities", "config_db.json")
    assert device.name == "sonic-switch" and device.hwsku == "Mellanox-SN3800-D112C8"
    port = device.ports["Ethernet0"]
    assert port.pfc_enabled == [3, 4] and port.speed_gbps == 40.0 and port.mtu_bytes == 9100
    assert port.pfc_source.pointer == "/PORT_QOS_MAP|Ethernet0/pfc_enable"
    assert '"pfc_enable"' in _line_of(port.pfc_source)
    wd = port.watchdog
    assert (wd.enabled, wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms, wd.action) == (
        True, 600.0, 600.0, 600.0, "drop")
    assert wd.source.pointer == "/PFC_WD|Ethernet0" and '"PFC_WD|Ethernet0"' in _line_of(wd.source)
    # This file has no CABLE_LENGTH table, so the cable length is unknown rather than invented.
    assert port.cable_length_m is None
    # `[SCHEDULER|scheduler.1]` references resolve like plain names.
    assert port.queues[3].scheduler.name == "scheduler.1" and port.queues[3].scheduler.weight == 15
    assert port.queues[3].ecn.min_threshold_bytes == 1_048_576
    # BUFFER_PG|Ethernet0|3-4 profile "NULL": headroom computed at run time, for both PGs of the range.
    assert port.priority_groups[3].runtime_profile and port.priority_groups[4].runtime_profile
    headroom = device.buffer_profiles["headroom_profile"]
    assert (headroom.xon_bytes, headroom.xoff_bytes, headroom.size_bytes) == (18432, 32768, 51200)
    assert device.buffer_profiles["alpha_profile"].headroom_computed_at_runtime
    # A PFC_WD table exists, so a port without an entry has the watchdog off.
    assert device.ports["Ethernet12"].watchdog.enabled is False
    # No DSCP_TO_TC_MAP/DOT1P_TO_TC_MAP table anywhere: a partial dump, so trust is unknown, not "none".
    assert port.trust is None and port.dscp_to_tc is None
    assert device.ports["Ethernet16"].speed_gbps == 0.1


# ---- hand-written cases ---------------------------------------------------------------------------

def test_range_and_multi_port_keys():
    device = parse_group("n", [RAW / "nested_config_db.json"])
    e0, e4, e8 = (device.ports[n] for n in ("Ethernet0", "Ethernet4", "Ethernet8"))
    assert sorted(e0.queues) == [0, 1, 2, 3, 4, 6]  # Ethernet0|0-2, |3-4, |6
    assert e0.queues[4].source.pointer == "/QUEUE/Ethernet0|3-4"
    assert e0.queues[6].scheduler.type == SchedulerType.strict
    # "Ethernet4,Ethernet8" keys give both ports the entry's settings and pointer.
    for port in (e4, e8):
        assert port.pfc_enabled == [3, 4] and port.dscp_chain(26).pg == 3
        assert port.map_source.pointer == "/PORT_QOS_MAP/Ethernet4,Ethernet8"
        assert port.queues[3].ecn.profile == "ROCE_LOSSLESS"
    assert e0.priority_groups[3].profile == e0.priority_groups[4].profile == "pg_lossless_100000_5m_profile"
    assert device.buffer_profiles["pg_lossless_100000_5m_profile"].pool == "ingress_lossless_pool"
    # (no VERSIONS: Ethernet0's pfcwd_sw_enable 3 beside pfc_enable 3,4, and Ethernet4 without one, are read by release:
    # unknown here, docs/platforms.md SONiC)
    assert e0.watchdog.priorities_unknown and e4.watchdog.priorities_unknown and e8.watchdog.enabled is False
    assert e8.admin_up is False and device.ports["Ethernet12"].priority_groups == {}  # cable "0m": none made


def test_broken_value_is_sys002_and_other_ports_still_parse():
    device = parse_group("g", [RAW / "garbled.json"])
    by_pointer = {i.source.pointer: i for i in device.issues}
    issue = by_pointer["/PORT_QOS_MAP/Ethernet0/pfc_enable"]
    assert issue.code == "SYS002" and "'3,x'" in issue.message
    assert '"pfc_enable": "3,x"' in _line_of(issue.source)
    # (ecn 'ecn_sometimes' and green_min_threshold 'abc': orchagent never creates the profile, said at the first)
    assert "orchagent refuses" in by_pointer["/WRED_PROFILE/AZURE_LOSSLESS/ecn"].message
    assert by_pointer["/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map"].code == "SYS002"  # names a missing map
    assert by_pointer["/SCHEDULER"].code == "SYS002"  # a table that is not a mapping
    assert by_pointer["/CABLE_LENGTH/AZURE/Ethernet0"].code == "SYS003"  # "3 furlongs": unknown unit
    assert device.ports["Ethernet0"].pfc_enabled is None and device.ports["Ethernet0"].trust is None
    good = device.ports["Ethernet4"]
    assert good.pfc_enabled == [3, 4] and good.dscp_to_tc == {3: 3, 4: 4} and good.speed_gbps == 100.0
    assert 3 not in good.queues or good.queues[3].ecn is None


# A config_db.json edited by hand: pfc_enable written twice in one entry, a second PORT_QOS_MAP block pasted below
# the first, a repeated key with the same value, and one in a table losslessd does not read.
REPEATED = """{
    "PORT": {
        "Ethernet0": {"speed": "100000", "mtu": "9100"},
        "Ethernet4": {"speed": "100000", "mtu": "9100"}
    },
    "PORT_QOS_MAP": {
        "Ethernet0": {"pfc_enable": "3", "dscp_to_tc_map": "AZURE", "pfc_enable": "4"}
    },
    "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "26": "3"}},
    "BGP_NEIGHBOR": {"10.0.0.1": {"asn": "65001"}, "10.0.0.1": {"asn": "65002"}},
    "PORT_QOS_MAP": {
        "Ethernet0": {
            "pfc_enable": "3",
            "dscp_to_tc_map": "AZURE",
            "pfc_enable": "3,4"
        },
        "Ethernet4": {"pfc_enable": "3,4"}
    }
}
"""


def test_a_key_written_twice_keeps_the_last_value_as_sonic_does_and_names_both_lines():
    """SONiC keeps the last value of a repeated key (sonic-cfggen reads config_db.json with Python's json.load):
    the model does too, each repeated key of a table losslessd reads whose values differ is a SYS002 naming every
    line, and a finding about the value points at the line the switch runs. Same values, or a table losslessd does
    not read, say nothing."""
    lines = REPEATED.splitlines()
    tables = [n for n, text in enumerate(lines, 1) if '"PORT_QOS_MAP": {' in text]
    first, last = (lines.index(f'            "pfc_enable": {value}') + 1 for value in ('"3",', '"3,4"'))
    device = parse([Input("config_db.json", REPEATED)], "sw")
    assert device.ports["Ethernet0"].pfc_enabled == [3, 4]  # the second block's last value
    assert device.ports["Ethernet0"].pfc_source.line == last  # (the line the switch runs, not the first block's)
    assert device.ports["Ethernet4"].pfc_enabled == [3, 4]
    said = {i.source.line: i.message for i in device.issues if i.code == "SYS002"}
    assert set(said) == {tables[0], first}, said
    assert said[tables[0]].startswith(f"/PORT_QOS_MAP is written twice in one object (lines {tables[0]} and "
                                      f"{tables[1]}): SONiC keeps the last, an object of 2 keys")
    assert said[tables[0]].endswith("so an object of 1 key is not what the switch runs; delete the one not meant")
    assert said[first].startswith(f"/PORT_QOS_MAP/Ethernet0/pfc_enable is written twice in one object (lines "
                                  f"{first} and {last}): SONiC keeps the last, \"3,4\"")
    assert '"3" is not what the switch runs' in said[first]


@pytest.mark.parametrize("layout", ["a field a level down", "spaced colons", "escaped quote-colon", "namespaced",
                                    "one spaced colon"])
def test_a_repeated_key_is_found_whatever_the_file_looks_like(layout):
    """The reader parses once and looks for repeated keys only when the file's `":` count differs from the keys
    it holds: a repeat hidden among `"key" :` separators, a string holding `\\":`, or a multi-ASIC file's extra
    level must still be found."""
    tables = {"PORT": '{"Ethernet0": {"speed": "100000"}}',
              "PORT_QOS_MAP": '{"Ethernet0": {"pfc_enable": "3", "pfc_enable": "4"}}'}
    if layout == "a field a level down":
        tables["PORT_QOS_MAP"] = ('{"Ethernet0": {"pfc_enable": "4"}, '
                                  '"Ethernet0": {"pfc_enable": "3", "pfc_enable": "4"}}')
    body = ", ".join(f'"{name}": {value}' for name, value in tables.items())
    if layout == "escaped quote-colon":
        body += ', "DEVICE_METADATA": {"localhost": {"description": "say \\": here"}}'
    text = "{" + body + "}"
    if layout == "spaced colons":
        text = text.replace('":', '" :')
    if layout == "one spaced colon":  # (it balanced the repeat: the file held as many `":` as keys, and went unwarned)
        text = text.replace('"speed":', '"speed" :')
    if layout == "namespaced":
        text = '{"localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}}}, "asic0": ' + text + "}"
    device = parse([Input("config_db.json", text)], "sw")
    assert device.ports["Ethernet0"].pfc_enabled == [4]
    said = [i.message for i in device.issues if i.code == "SYS002"]
    assert any("pfc_enable is written twice in one object" in m for m in said), said



def test_a_key_written_100000_times_is_one_short_sys002():
    """Every line and earlier value of a repeat was listed: a key written 100,000 times made a SYS002 of about a
    megabyte. The first eight of each are named, then how many more."""
    fields = "".join(f'"pfc_enable": "{3 + i % 2}", ' for i in range(100_000))
    text = '{"PORT": {"Ethernet0": {"speed": "100000"}}, "PORT_QOS_MAP": {"Ethernet0": {' + fields + '"x": "1"}}}'
    device = parse([Input("config_db.json", text)], "sw")
    assert device.ports["Ethernet0"].pfc_enabled == [4]
    (said,) = [i.message for i in device.issues if "pfc_enable is written" in i.message]
    assert said.startswith("/PORT_QOS_MAP/Ethernet0/pfc_enable is written 100000 times in one object (lines 1, 1, 1, "
                           "1, 1, 1, 1, 1, ... (99,991 more) and 1): SONiC keeps the last, \"4\"")
    assert '"3", "4", "3", "4", "3", "4", "3", "4", ... (99,991 more) are not what the switch runs' in said
    assert len(said) < 500

def test_files_of_one_device_merge_with_per_field_sources():
    base = Input("config_db.json", json.dumps({
        "PORT": {"Ethernet0": {"speed": "100000"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "pfcwd_sw_enable": "3"}},
        "PFC_WD": {"Ethernet0": {"detection_time": "200"}},
        "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}}}, indent=1))  # (pfcwd_sw_enable read: 202205 on)
    override = Input("qos.json", json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}, indent=1))
    port = parse([base, override], "sw").ports["Ethernet0"]
    assert port.pfc_enabled == [3, 4] and port.pfc_source.file == "qos.json"
    assert port.watchdog.priorities == [3]  # pfcwd_sw_enable kept from the first file
    assert port.speed_gbps == 100.0 and port.source.file == "config_db.json"


def test_invalid_json_names_file_and_line(tmp_path):
    text = '{\n  "PORT": {\n    "Ethernet0": {"speed": "100000",}\n  }\n}\n'
    with pytest.raises(InputError) as err:
        parse([Input("sw1/config_db.json", text)], "sw1")
    assert err.value.file == "sw1/config_db.json" and err.value.line == 3
    (tmp_path / "config_db.json").write_text(text)
    fabric = load_fabric([tmp_path])
    assert [(i.code, i.source.line) for i in fabric.issues] == [("SYS001", 3)]


@pytest.mark.parametrize("text", ["[1, 2]", '{"VLAN": {"Vlan10": {"vlanid": "10"}}}', "{}"])
def test_json_that_is_not_a_config_db_is_an_input_error(text):
    with pytest.raises(InputError) as err:
        parse([Input("x.json", text)], "x")
    assert err.value.file == "x.json" and err.value.line == 1


def test_sniff_needs_an_object_keyed_by_a_config_db_table():
    assert sniff(Input("a", '  {"PORT_QOS_MAP|Ethernet0": {}}'))
    assert sniff(Input("a", '{\n "BUFFER_PG" : {}}'))
    assert not sniff(Input("a", '{"description": "PORT_QOS_MAP"}'))
    assert not sniff(Input("a", '["PORT_QOS_MAP"]'))
    assert not sniff(Input("a", "interface Ethernet1\n   priority-flow-control on\n"))


def test_port_binding_no_map_while_maps_exist_classifies_nothing():
    """Map tables exist but this port binds none (and no global map): in a whole CONFIG_DB it really trusts nothing
    (a part's entry would keep the switch's binding: test_sonic_list_keys.py)."""
    doc = {
        "PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
        "DSCP_TO_TC_MAP": {"AZURE": {str(d): "0" for d in range(64)}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3", "dscp_to_tc_map": "AZURE"}},
    }
    device = parse([Input("leaf.json", json.dumps(doc))], "leaf")
    assert device.ports["Ethernet0"].trust == Trust.none
    assert device.ports["Ethernet4"].trust == Trust.dscp


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_every_key_is_found_on_its_own_line_whichever_order_lines_are_asked(order):
    """Doc finds a key's line by its text, never by a second parse: the first lookups under a table with
    str.find, the rest by one scan of the table's keys. Every entry and field of a 100-port file is on the line
    json.dumps wrote it on, in either order, though values repeat entry keys and hold `{`, `,` and `:`."""
    from losslessd.parse.sonic.configdb import Doc

    ports = [f"Ethernet{4 * i}" for i in range(100)]
    data = {
        "PORT": {p: {"description": f'uplink to "{ports[-1]}|3", {{"speed": 1}}', "speed": "100000"} for p in ports},
        "QUEUE": {f"{p}|{q}": {"scheduler": f"{ports[0]}|{q}", "wred_profile": "AZURE_LOSSLESS"}
                  for p in ports for q in range(8)},
        "PORT_QOS_MAP": {p: {"pfc_enable": "3,4", "dscp_to_tc_map": "AZURE"} for p in ports},
    }
    text = json.dumps(data, indent=4)
    truth: dict[tuple, int] = {}
    table = entry = None
    for n, line in enumerate(text.splitlines(), start=1):
        indent, key = len(line) - len(line.lstrip()), line.strip().split('":', 1)[0].strip('"')
        if not line.strip().startswith('"'):
            continue
        if indent == 4:
            table, truth[(key,)] = key, n
        elif indent == 8:
            entry, truth[(table, key)] = key, n
        elif indent == 12:
            truth[(table, entry, key)] = n
    wanted = list(truth) if order == "forward" else list(reversed(truth))
    doc = Doc(Input("config_db.json", text))
    found = {parts: doc.line(parts) if len(parts) < 3 else doc.line(parts[:2], parts[2]) for parts in wanted}
    assert found == truth


def test_positional_constructors_make_what_the_keyword_call_makes():
    """The parser builds queues, PGs and watchdogs without the keyword call: every field is set, named ones to
    the values given, the others to the class's own defaults (a field left unset would raise when a rule reads it)."""
    import dataclasses

    from losslessd.model import (
        Device,
        DeviceKind,
        PriorityGroup,
        Queue,
        Scheduler,
        Source,
        Watchdog,
        _priority_group,
        _queue,
        watchdog_of,
    )
    from losslessd.parse.base import line_source, positional
    from losslessd.parse.mlx5 import _host

    src, sched = Source(file="f", line=3), Scheduler(name="s")
    made = [(_queue(2, sched, None, src, "egress", src),
             Queue(index=2, scheduler=sched, ecn=None, source=src, buffer_profile="egress", buffer_source=src)),
            (_priority_group(3, "p", True, src), PriorityGroup(index=3, profile="p", runtime_profile=True, source=src)),
            (watchdog_of((True, (3,), 200.0, 400.0, 100.0, "drop", "drop", None, None, None), src),
             Watchdog(enabled=True, priorities=[3], detection_time_ms=200.0, restoration_time_ms=400.0,
                      polling_interval_ms=100.0, action="drop", action_raw="drop", source=src)),
            (line_source("f", 3), src),  # (the text parsers' sources, the mlx5 host parser's objects: the same maker)
            (_host("h1", DeviceKind.host, "linux_mlx5"),
             Device(name="h1", kind=DeviceKind.host, platform="linux_mlx5"))]
    for fast, slow in made:
        assert type(fast) is type(slow)
        for f in dataclasses.fields(slow):
            assert getattr(fast, f.name) == getattr(slow, f.name), f.name
    assert _priority_group(1, None, False, None).size_bytes is None  # a field not named: its default
    assert type(made[2][0].priorities) is list  # (a SharedPort's watchdog: its settings keep them as a tuple)
    assert _host("a", DeviceKind.host, "x").ports is not _host("b", DeviceKind.host, "x").ports  # a fresh default each
    with pytest.raises(TypeError, match="no field"):
        positional(Queue, "index", "queue_name")
    with pytest.raises(TypeError, match="no default"):
        positional(Queue, "ecn")


def test_entries_written_alike_each_say_what_is_wrong_with_them():
    """PORT, PORT_QOS_MAP, QUEUE, BUFFER_PG, PFC_WD and CABLE_LENGTH read an entry (a cable length) once for those
    written alike after it, only when reading it said nothing: each entry of a bad value gets its own issue at its own
    field, and each reference into a table a partial dump lacks is counted."""
    ports = ["Ethernet0", "Ethernet4", "Ethernet8"]
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {p: {"lanes": "0", "speed": "100000", "mtu": "nine thousand"} for p in ports},
          "SCHEDULER": {"s1": {"type": "DWRR", "weight": "50"}},
          "QUEUE": {f"{p}|3": {"scheduler": "nope"} for p in ports},
          "BUFFER_PG": {f"{p}|3": {"profile": "nope"} for p in ports},
          "PORT_QOS_MAP": {p: {"pfc_enable": "3,x"} for p in ports},
          "PFC_WD": {p: {"action": "explode", "detection_time": "200", "restoration_time": "200"} for p in ports},
          "CABLE_LENGTH": {"AZURE": {p: "x" for p in ports}}}
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    said = [issue.source.pointer for issue in device.issues if issue.code == "SYS002"]
    fields = {"PORT": "mtu", "QUEUE": "scheduler", "BUFFER_PG": "profile", "PORT_QOS_MAP": "pfc_enable",
              "PFC_WD": "action"}
    for table, field in fields.items():
        keys = [f"{p}|3" if table in ("QUEUE", "BUFFER_PG") else p for p in ports]
        assert [p for p in said if p.startswith(f"/{table}/")] == [f"/{table}/{k}/{field}" for k in keys], table
    assert [p for p in said if p.startswith("/CABLE_LENGTH/")] == [f"/CABLE_LENGTH/AZURE/{p}" for p in ports]
    partial = {"QUEUE": {f"{p}|3": {"scheduler": "s1"} for p in ports}}  # a qos.json without its SCHEDULER table
    [absent] = parse([Input("qos.json", json.dumps(partial))], "sw").issues
    assert absent.code == "SYS004" and absent.message.startswith("3 setting(s) name entries of table SCHEDULER")


def test_queues_and_pgs_take_their_own_settings_when_entries_alternate():
    """QUEUE and BUFFER_PG reuse the settings of the entry before when an entry is written as it was: an entry
    written otherwise (a setting read for the first time, or one read before) is read for itself, and the entry
    after it, written as the first, gets the first's settings again."""
    ports = ["Ethernet0", "Ethernet4"]
    sched = ["s1", "s1", "s2", "s1", "s2"]  # (s2 read for the first time after s1 was found: then s1 again)
    prof = ["lossy", "lossy", "lossless", "lossy", "lossless"]
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {p: {"lanes": "0", "speed": "100000"} for p in ports},
          "SCHEDULER": {"s1": {"type": "DWRR", "weight": "10"}, "s2": {"type": "STRICT"}},
          "BUFFER_POOL": {"ingress": {"type": "ingress", "mode": "dynamic", "size": "1000000"}},
          "BUFFER_PROFILE": {"lossy": {"pool": "ingress", "size": "0", "dynamic_th": "3"},
                             "lossless": {"pool": "ingress", "size": "1518", "xon": "18432", "xoff": "40000",
                                          "dynamic_th": "1"}},
          "QUEUE": {f"{p}|{i}": {"scheduler": s} for p in ports for i, s in enumerate(sched)},
          "BUFFER_PG": {f"{p}|{i}": {"profile": name} for p in ports for i, name in enumerate(prof)}}
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    assert not [i for i in device.issues if i.code == "SYS002"], device.issues
    for p in ports:
        port = device.ports[p]
        assert [port.queues[i].scheduler.name for i in range(len(sched))] == sched, p
        assert [port.priority_groups[i].profile for i in range(len(prof))] == prof, p


@pytest.mark.parametrize(("written", "read"), [("enable", True), ("disable", False), (None, None)])
def test_big_red_switch_is_read_from_pfc_wd_global(written, read):
    """PFC_WD|GLOBAL BIG_RED_SWITCH (sonic-utilities `pfcwd big_red_switch`): only 'enable' and 'disable' mean
    something to orchagent (pfcwdsworch.cpp setBigRedSwitchMode); another word is reported, not guessed."""
    glob = {"POLL_INTERVAL": "200", **({"BIG_RED_SWITCH": written} if written else {})}
    db = {"PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}}, "PFC_WD": {"GLOBAL": glob}}
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    assert device.big_red_switch is read and not device.issues
    assert (device.big_red_switch_source is None) == (written is None)
    if written:
        assert device.big_red_switch_source.line == 11  # the BIG_RED_SWITCH line of the indented JSON
    db["PFC_WD"]["GLOBAL"]["BIG_RED_SWITCH"] = "on"
    [issue] = parse([Input("c.json", json.dumps(db, indent=1))], "sw").issues
    assert issue.code == "SYS002" and "'on' is not one of enable, disable" in issue.message


def test_big_red_switch_of_one_asic_is_the_switch_s():
    """A multi-ASIC `show runningconfiguration all`: the namespace that enables it makes the switch drop."""
    def ns(n, brs):
        return {"PORT": {f"Ethernet{n}": {"lanes": str(n), "speed": "100000"}},
                "PFC_WD": {"GLOBAL": {"BIG_RED_SWITCH": brs}}}
    running = {"localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}}},
               "asic0": ns(0, "disable"), "asic1": ns(4, "enable")}
    device = parse([Input("running.json", json.dumps(running, indent=1))], "sw")
    assert device.big_red_switch is True
    assert device.big_red_switch_source.pointer == "/asic1/PFC_WD/GLOBAL/BIG_RED_SWITCH"


def test_a_port_the_port_table_lacks_is_reported_and_is_no_port():
    """QoS entries left for a port the PORT table no longer has (an earlier breakout's sub-port) go to no port:
    reported once, and not built as a port that rules would judge (as unguarded by the watchdog, say)."""
    db = {"PORT": {"Ethernet0": {"lanes": "0,1", "speed": "100000"}},
          "PORT_QOS_MAP": {p: {"pfc_enable": "3,4"} for p in ("Ethernet0", "Ethernet2")},
          "PFC_WD": {"Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}}
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    assert list(device.ports) == ["Ethernet0"] and device.ports["Ethernet0"].pfc_enabled == [3, 4]
    [issue] = device.issues
    assert issue.code == "SYS002" and issue.message.startswith("Ethernet2 is not in the PORT table")
    assert issue.source.pointer == "/PORT_QOS_MAP/Ethernet2"


@pytest.mark.parametrize(("status", "enabled"), [("disable", False), ("enable", None), (None, None)])
def test_no_pfc_wd_table_is_off_only_where_default_pfcwd_status_says_disable(status, enabled):
    """Without a PFC_WD table the watchdog is unknown (a partial dump may leave the table out), but
    `default_pfcwd_status: disable` means start_default wrote none: off (sonic-utilities pfcwd/main.py)."""
    meta = {"hostname": "sw", **({"default_pfcwd_status": status} if status else {})}
    db = {"DEVICE_METADATA": {"localhost": meta}, "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}},
          "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}
    wd = parse([Input("c.json", json.dumps(db, indent=1))], "sw").ports["Ethernet0"].watchdog
    assert (wd.enabled if wd else None) is enabled
    if enabled is False:
        assert wd.source.pointer == "/DEVICE_METADATA/localhost/default_pfcwd_status"


# ---- PFC priority -> PG (pfc_to_pg_map) -----------------------------------------------------------------------
def _pfc_to_pg_doc(**maps) -> dict:
    """A Mellanox-shaped CONFIG_DB (qos_config.j2 binds pfc_to_pg_map on pfc_to_pg_map_supported_asics)."""
    return {"PORT": {p: {"lanes": "0", "speed": "100000"} for p in ("Ethernet0", "Ethernet4", "Ethernet8")},
            "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}},
            "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}, **maps},
            "PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE", "pfc_to_pg_map": "AZURE", "pfc_enable": "3,4"},
                             "Ethernet4": {"pfc_to_pg_map": "[PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|AZURE]"},
                             "Ethernet8": {"tc_to_pg_map": "AZURE", "pfc_enable": "3,4"}}}


def test_pfc_to_pg_map_is_read_per_port():
    device = parse([Input("leaf.json", json.dumps(_pfc_to_pg_doc()))], "leaf")
    e0, e4, e8 = (device.ports[n] for n in ("Ethernet0", "Ethernet4", "Ethernet8"))
    assert e0.pfc_priority_to_pg == e4.pfc_priority_to_pg == {3: 3, 4: 4}  # plain name and [TABLE|name] reference
    assert e8.pfc_priority_to_pg is None  # binds none (a Broadcom port): the ASIC pairs them itself
    # (no release takes both forms: the bracketed one is read as up to 202106, and said once)
    assert [i.code for i in device.issues] == ["SYS004"] and "`[TABLE|name]` form" in device.issues[0].message


def _own_issues(device) -> list:
    """The issues but test_pfc_to_pg_map_is_read_per_port's note on Ethernet4's bracketed reference."""
    return [i for i in device.issues if "`[TABLE|name]` form" not in i.message]


@pytest.mark.parametrize("entry, bad", [({"3": "8", "4": "4"}, "'3' to '8'"), ({"8": "3", "4": "4"}, "'8' to '3'"),
                                        ({"3": "", "4": "4"}, "'3' to ''"), ({"3": "٣", "4": "4"}, "'3' to '٣'")])
def test_pfc_to_pg_entry_outside_0_7_is_reported_and_the_rest_kept(entry, bad):
    """sonic-pfc-priority-priority-group-map.yang: pfc_priority and pg are "[0-7]?"; orchagent's stoi takes no other."""
    doc = _pfc_to_pg_doc(AZURE=entry)
    device = parse([Input("leaf.json", json.dumps(doc))], "leaf")
    [issue] = _own_issues(device)
    assert issue.code == "SYS002" and bad in issue.message and "0-7 and 0-7" in issue.message
    assert issue.source.pointer.startswith("/PFC_PRIORITY_TO_PRIORITY_GROUP_MAP/AZURE/")
    assert device.ports["Ethernet0"].pfc_priority_to_pg == {4: 4}


def test_pfc_to_pg_map_naming_an_undefined_map_is_reported_like_the_other_maps():
    doc = _pfc_to_pg_doc()
    doc["PORT_QOS_MAP"]["Ethernet0"]["pfc_to_pg_map"] = "AZURE_DUALTOR"
    device = parse([Input("leaf.json", json.dumps(doc))], "leaf")
    [issue] = _own_issues(device)
    assert issue.code == "SYS002" and issue.source.pointer == "/PORT_QOS_MAP/Ethernet0/pfc_to_pg_map"
    assert "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|AZURE_DUALTOR, which the config does not define" in issue.message
    assert device.ports["Ethernet0"].pfc_priority_to_pg is None and device.ports["Ethernet0"].tc_to_pg == {3: 3, 4: 4}


def test_qos_json_without_the_pfc_to_pg_table_leaves_it_unknown():
    """A rendered qos.json part that binds the map while the map table comes in another file: SYS004, not an error."""
    doc = {"PORT_QOS_MAP": {"Ethernet0": {"pfc_to_pg_map": "AZURE", "pfc_enable": "3,4"}}}
    device = parse([Input("qos.json", json.dumps(doc))], "leaf")
    [issue] = device.issues
    assert issue.code == "SYS004" and "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" in issue.message
    assert device.ports["Ethernet0"].pfc_priority_to_pg is None


def test_buffer_queue_profiles_are_read_per_queue():
    """BUFFER_QUEUE|<ports>|<range> gives each queue of the range its egress buffer profile and the entry as its
    source; a queue no QUEUE entry wrote gets one without a scheduler or source of its own; entries written alike
    (the stock "|0-2" and "|5-6") read as the first; "NULL", an undefined profile and a partial dump say so."""
    ports = ["Ethernet0", "Ethernet4"]
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {p: {"lanes": "0", "speed": "100000"} for p in ports},
          "SCHEDULER": {"s1": {"type": "DWRR", "weight": "15"}},
          "QUEUE": {f"{p}|3": {"scheduler": "s1"} for p in ports},
          "BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "mode": "static", "size": "32599040"},
                          "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "24686592"}},
          "BUFFER_PROFILE": {"egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0",
                                                         "static_th": "32599040"},
                             "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"}},
          "BUFFER_QUEUE": {"Ethernet0,Ethernet4|0-2": {"profile": "egress_lossy_profile"},
                           "Ethernet0|3-4": {"profile": "[BUFFER_PROFILE|egress_lossless_profile]"},
                           "Ethernet0|5-6": {"profile": "egress_lossy_profile"},
                           "Ethernet4|3": {"profile": "NULL"},
                           "Ethernet4|4": {"profile": "nope"}}}
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    e0, e4 = device.ports["Ethernet0"], device.ports["Ethernet4"]
    assert {i: q.buffer_profile for i, q in e0.queues.items()} == {
        0: "egress_lossy_profile", 1: "egress_lossy_profile", 2: "egress_lossy_profile", 3: "egress_lossless_profile",
        4: "egress_lossless_profile", 5: "egress_lossy_profile", 6: "egress_lossy_profile"}
    assert e0.queues[3].scheduler.name == "s1" and e0.queues[3].source.pointer == "/QUEUE/Ethernet0|3"
    assert e0.queues[4].buffer_source.pointer == "/BUFFER_QUEUE/Ethernet0|3-4"
    assert e0.queues[4].scheduler is None and e0.queues[4].source is None  # known only from BUFFER_QUEUE
    assert e4.queues[1].buffer_source.pointer == "/BUFFER_QUEUE/Ethernet0,Ethernet4|0-2"
    assert e4.queues[3].buffer_profile is None and e4.queues[3].buffer_source.pointer == "/BUFFER_QUEUE/Ethernet4|3"
    assert e4.queues[4].buffer_profile is None
    [undefined] = [i for i in device.issues if i.code == "SYS002"]
    assert undefined.source.pointer == "/BUFFER_QUEUE/Ethernet4|4/profile"
    partial = {"BUFFER_QUEUE": {f"{p}|3-4": {"profile": "egress_lossless_profile"} for p in ports}}  # no BUFFER_PROFILE
    part = parse([Input("buffers.json", json.dumps(partial))], "sw")
    assert part.ports["Ethernet4"].queues[4].buffer_profile == "egress_lossless_profile"
    [absent] = part.issues
    assert absent.code == "SYS004" and absent.message.startswith("2 setting(s) name entries of table BUFFER_PROFILE")


def test_a_dump_of_asic_namespaces_without_localhost_is_read_as_a_multi_asic_switch():
    """No CONFIG_DB table is named `asicN`: a file of ASIC namespaces alone is a multi-ASIC dump, not a file of
    unknown tables (it said "no CONFIG_DB table")."""
    text = json.dumps({"asic0": {"PORT": {"Ethernet0": {"speed": "100000"}},
                                 "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}},
                       "asic1": {"PORT": {"Ethernet8": {"speed": "100000"}}}})
    device = parse([Input("config_db.json", text)], "sw")
    assert device.ports["Ethernet0"].pfc_enabled == [3]
    assert "Ethernet8" in device.ports


def test_no_table_read_names_the_top_level_keys_and_hints_at_namespaces():
    with pytest.raises(InputError) as err:
        parse([Input("config_db.json", json.dumps({"asic-1": {"PORT": {}}, "VLANX": {}}))], "sw")
    assert "the top-level keys are asic-1, VLANX" in str(err.value)
    assert "not a multi-ASIC dump: asic-1 is not a namespace name (a multi-ASIC dump names them `localhost`, `asic0`" \
        in str(err.value)
    with pytest.raises(InputError) as err:
        parse([Input("config_db.json", json.dumps({"VLAN": {"Vlan10": {"vlanid": "10"}}}))], "sw")
    assert "the top-level keys are VLAN" in str(err.value) and "namespaces" not in str(err.value)


@pytest.mark.parametrize(("value", "said"), [('"x"', "holds a string"), ("[1]", "holds an array"),
                                             ("null", "holds null"), ("3", "holds a number")])
def test_a_namespace_that_holds_no_tables_is_named_with_its_line(value, said):
    """`"asic1": "x"` beside namespaces of tables: the file is no multi-ASIC dump, and the error said only how
    namespaces are named (which these are); it names the namespace, what it holds and its line."""
    text = ('{\n  "localhost": {\n    "DEVICE_METADATA": {"localhost": {"hostname": "sw"}}\n  },\n'
            f'  "asic0": {{"PORT": {{"Ethernet0": {{"speed": "100000"}}}}}},\n  "asic1": {value}\n}}\n')
    with pytest.raises(InputError) as err:
        parse([Input("config_db.json", text)], "sw")
    assert f"not a multi-ASIC dump: namespace asic1 {said}, not an object of tables" in str(err.value)
    assert err.value.line == 6


def test_the_keys_not_listed_are_counted():
    """2,000 `asicN` keys (asic1000 is no namespace name): "... (1 more)" counted the nine keys kept for the message,
    not the file's."""
    text = json.dumps({"localhost": {"DEVICE_METADATA": {}}, **{f"asic{i}": {"PORT": {}} for i in range(2000)}})
    with pytest.raises(InputError) as err:
        parse([Input("config_db.json", text)], "sw")
    assert "asic5, asic6, ... (1,993 more); not a multi-ASIC dump: asic1000 is not a namespace name" in str(err.value)


def test_a_map_of_many_unreadable_entries_is_said_in_a_few_findings():
    """A DSCP_TO_TC_MAP of 10,000 keys that are no DSCP: one finding each (100,000 made a report of 16 MB); the
    first eight are named with their lines, the rest (a 5,000-character key among them) counted."""
    maps = {"ROCE": {"26": "3", **{f"x{i}": "0" for i in range(10_000)}, "y" * 5000: "0"}}
    text = json.dumps({"PORT": {"Ethernet0": {"speed": "100000"}}, "DSCP_TO_TC_MAP": maps,
                       "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "ROCE", "pfc_enable": "3"}}}, indent=1)
    device = parse([Input("config_db.json", text)], "sw")
    said = [i.message for i in device.issues if "DSCP_TO_TC_MAP|ROCE" in i.message]
    assert len(said) == 9 and said[0] == "DSCP_TO_TC_MAP|ROCE maps 'x0' to '0': not two numbers 0-63 and 0-15; ignored"
    assert said[-1] == ("DSCP_TO_TC_MAP|ROCE has 9,993 more entries that are not two numbers 0-63 and 0-15 (a map has "
                        "at most 64); ignored")
    assert device.ports["Ethernet0"].dscp_to_tc == {26: 3}


# ---- overlapping range keys (sonic-swss applies each key to every index of its range, the last applied winning, in
# an order the file does not fix: orch.h SyncMap, bufferorch.cpp processPriorityGroup, qosorch.cpp handleQueueTable)

OVERLAP_BASE = {
    "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}},  # (a saved config names its release: 202211)
    "PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet4": {"pfc_enable": "3,4"}},
    "BUFFER_POOL": {"ingress_lossless_pool": {"size": "12766208", "type": "ingress", "mode": "dynamic"},
                    "egress_lossless_pool": {"size": "12766208", "type": "egress", "mode": "static"}},
    "BUFFER_PROFILE": {
        "pg_a": {"pool": "ingress_lossless_pool", "xon": "18432", "xoff": "63488", "size": "65536", "dynamic_th": "1"},
        "pg_b": {"pool": "ingress_lossless_pool", "xon": "18432", "xoff": "20000", "size": "40000", "dynamic_th": "1"},
        "q_a": {"pool": "egress_lossless_pool", "size": "0", "static_th": "12766208"},
        "q_b": {"pool": "egress_lossless_pool", "size": "0", "static_th": "1000"}},
    "SCHEDULER": {"strict": {"type": "STRICT"}, "dwrr": {"type": "DWRR", "weight": "15"}},
    "WRED_PROFILE": {
        "wred_a": {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152",
                   "green_drop_probability": "5", "wred_green_enable": "true"},
        "wred_b": {"ecn": "ecn_all", "green_min_threshold": "150000", "green_max_threshold": "1500000",
                   "green_drop_probability": "5", "wred_green_enable": "true"}},
}


def _overlap(tmp_path, **tables):
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps({**OVERLAP_BASE, **tables}, indent=1))
    text = path.read_text()
    device = parse([Input(str(path), text)], "sw1")
    lines = text.splitlines()
    return device, lambda key: next(n for n, line in enumerate(lines, 1) if line.strip().startswith(f'"{key}"'))


def test_overlapping_buffer_pg_keys_that_differ_are_named_and_the_pg_is_unknown(tmp_path):
    # (the dynamic buffer model: the traditional one would bind PGs 3-4 over both keys, see test_sonic_buffermgrd.py)
    device, line = _overlap(tmp_path, BUFFER_PG={"Ethernet0,Ethernet4|3-4": {"profile": "pg_a"},
                                                 "Ethernet0,Ethernet4|3": {"profile": "pg_b"}},
                            CABLE_LENGTH={"AZURE": {"Ethernet0": "5m", "Ethernet4": "5m"}},
                            DEVICE_METADATA={"localhost": {"buffer_model": "dynamic"}})
    [issue] = device.issues  # one for the pair of keys, not one per port
    assert issue.code == "SYS002" and issue.source.line == line("Ethernet0,Ethernet4|3")
    assert f"BUFFER_PG|Ethernet0,Ethernet4|3-4 (line {line('Ethernet0,Ethernet4|3-4')})" in issue.message
    assert "PG 3 (pg_a and pg_b)" in issue.message
    for port in device.ports.values():
        # PG 3 is neither profile, nor one buffermgrd would make at run time from the cable length; PG 4 is pg_a
        assert 3 not in port.priority_groups and port.priority_groups[4].profile == "pg_a"


def test_overlapping_keys_that_agree_or_set_different_fields_are_silent(tmp_path):
    device, _ = _overlap(tmp_path, BUFFER_PG={"Ethernet0|3-4": {"profile": "pg_a"}, "Ethernet0|3": {"profile": "pg_a"}},
                         QUEUE={"Ethernet0|3-4": {"scheduler": "strict"}, "Ethernet0|3": {"wred_profile": "wred_a"}})
    assert device.issues == []
    port = device.ports["Ethernet0"]
    assert port.priority_groups[3].profile == "pg_a"
    # handleQueueTable leaves a field the key does not write as it was: queue 3 has both
    assert port.queues[3].scheduler.name == "strict" and port.queues[3].ecn.profile == "wred_a"
    assert port.queues[4].ecn is None


def test_overlapping_queue_keys_make_the_setting_they_differ_on_unknown(tmp_path):
    device, line = _overlap(
        tmp_path, QUEUE={"Ethernet0|0-7": {"scheduler": "dwrr", "wred_profile": "wred_a"},
                         "Ethernet0|3": {"scheduler": "dwrr", "wred_profile": "wred_b"}},
        BUFFER_QUEUE={"Ethernet0|3-4": {"profile": "q_a"}, "Ethernet0|4": {"profile": "q_b"}})
    messages = {(i.source.line, i.message.split(":")[0]) for i in device.issues}
    assert messages == {
        (line("Ethernet0|3"), f"QUEUE|Ethernet0|0-7 (line {line('Ethernet0|0-7')}) and QUEUE|Ethernet0|3 both set the "
                              "wred_profile of queue 3 (wred_a and wred_b)"),
        (line("Ethernet0|4"), f"BUFFER_QUEUE|Ethernet0|3-4 (line {line('Ethernet0|3-4')}) and BUFFER_QUEUE|Ethernet0|4 "
                              "both set the buffer profile of queue 4 (q_a and q_b)")}
    queues = device.ports["Ethernet0"].queues
    assert queues[3].scheduler.name == "dwrr" and queues[3].ecn.ecn_enabled is None  # unknown, not off
    assert queues[2].ecn.profile == "wred_a" and queues[3].buffer_profile == "q_a"
    assert queues[4].buffer_profile is None and queues[4].ecn.profile == "wred_a"


def test_overlapping_keys_naming_the_same_profile_of_a_partial_dump_are_silent(tmp_path):
    """A dump without SCHEDULER and WRED_PROFILE (partial: each QUEUE entry's profile is a placeholder of its own,
    with its own source): two keys naming the same profiles agree, so no clash and queue 3 keeps the names (a false
    SYS002 'both set the scheduler of queue 3 (s1 and s1)' and blank unknowns before)."""
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps({"QUEUE": {"Ethernet0|0-7": {"scheduler": "s1", "wred_profile": "w1"},
                                          "Ethernet0|3": {"scheduler": "s1", "wred_profile": "w1"}}}, indent=1))
    device = parse([Input(str(path), path.read_text())], "sw1")
    assert not [i for i in device.issues if i.code == "SYS002"], device.issues
    queue = device.ports["Ethernet0"].queues[3]
    assert queue.scheduler.name == "s1" and queue.ecn.profile == "w1"


# A SKU template that pads numbers with a blank (sonic-buildimage Arista-7060X6-64PE-B-C448O16 qos.json.j2:
# `"green_min_threshold": " 166912"`); orchagent reads these fields with std::stoi/stol/stoul, which skip leading
# white space and stop after the number (sonic-swss orchagent/qosorch.cpp, bufferorch.cpp).
PADDED = """{
    "PORT": {"Ethernet0": {"speed": "400000", "mtu": "9100"}},
    "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_enable": "3"}},
    "DSCP_TO_TC_MAP": {"AZURE": {"3": " 3", " 4": "4"}},
    "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3", "4": "4"}},
    "WRED_PROFILE": {"LOSSY_Q3": {"ecn": "ecn_all", "green_min_threshold": " 166912",
                                  "green_max_threshold": "282624 ", "green_drop_probability": "\\t5"},
                     "TYPO": {"ecn": "ecn_all", "green_min_threshold": "166912B"},
                     "BLANK": {"ecn": "ecn_all", "green_max_threshold": " "}},
    "QUEUE": {"Ethernet0|3": {"wred_profile": "LOSSY_Q3"}, "Ethernet0|4": {"wred_profile": "TYPO"},
              "Ethernet0|5": {"wred_profile": "BLANK"}},
    "BUFFER_POOL": {"egress_lossy_pool": {"size": " 166607744", "type": "egress", "mode": "dynamic"}},
    "BUFFER_PROFILE": {"egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1778 ", "dynamic_th": " -1"}}
}
"""


def test_numbers_padded_with_blanks_are_read_as_orchagent_reads_them(tmp_path):
    (tmp_path / "config_db.json").write_text(PADDED, encoding="utf-8")
    device = parse_group("t1", [tmp_path / "config_db.json"])
    port = device.ports["Ethernet0"]
    ecn = port.queues[3].ecn
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.mark_probability_pct) == (166912, 282624, 5)
    assert port.dscp_to_tc[3] == 3 and port.dscp_to_tc[4] == 4
    assert device.buffer_pools["egress_lossy_pool"].size_bytes == 166607744
    profile = device.buffer_profiles["egress_lossy_profile"]
    assert (profile.size_bytes, profile.dynamic_threshold) == (1778, -1)
    # A unit after the digits is still not a number: named, not guessed. Blanks alone are no number std::stoi reads
    # (it throws): orchagent never creates that profile, and queue 5 marks nothing.
    said = {i.source.pointer: i.message for i in device.issues}
    assert "'166912B'" in said["/WRED_PROFILE/TYPO/green_min_threshold"]
    assert port.queues[4].ecn.min_threshold_bytes is None
    assert "' '" in said["/WRED_PROFILE/BLANK/green_max_threshold"] and "orchagent refuses" in \
        said["/WRED_PROFILE/BLANK/green_max_threshold"]
    assert 5 not in port.queues or port.queues[5].ecn is None


def test_pfc_enable_read_as_orchagent_reads_it():
    """qosorch.cpp processPortQosMapTask: swss tokenize(value, ',') (std::getline: nothing after a final ','), then
    std::stoi of each item, which skips leading blanks, takes a sign and stops at the first character that is no
    digit. A range or a blank-separated list is its first priority only; an empty item throws."""
    cases = {"": (), "3,4": (3, 4), "3,4,": (3, 4), " 3, 4": (3, 4), "+3,04": (3, 4), "3-4": (3,), "3 4": (3,),
             "2-4,6": (2, 6), "3\t4": (3,)}
    for text, read in cases.items():
        assert _priority_list(text)[0] == read, text
    for text in (",3", "3,,4", "   ", "a", "9", "-1", "3,8"):
        with pytest.raises(ValueError):
            _priority_list(text)
    assert _priority_list("3,4")[1] == _priority_list(" 3, 4 ")[1] == ()
    assert _priority_list("2-4,6")[1] == ("'2-4' counts as 2",)
    # stoi and buffermgrd's to_uint read any number of leading zeros; ten significant digits are out of range
    assert _priority_list("0" * 5000 + "3")[0] == (3,) and buffermgrd.pfc_pgs("0" * 5000 + "3,4") == [3, 4]
    with pytest.raises(ValueError):
        _priority_list("9" * 5000)
    with pytest.raises(ValueError):  # buffermgrd's stoul throws out_of_range, which ends buffermgrd
        buffermgrd.pfc_pgs("9" * 5000 + ",3")


def test_key_index_read_as_parse_index_range_reads_it():
    """orch.cpp parseIndexRange (QUEUE, BUFFER_QUEUE, BUFFER_PG keys): 'N', or 'N-M' split by swss tokenize on '-'
    (nothing after a final '-') with N < M, each end std::stoul'd up to its first character that is no digit."""
    cases = {"3": ((3,), True), "3-4": ((3, 4), True), "3-4-": ((3, 4), True), "0-2": ((0, 1, 2), True),
             "3,4": ((3,), False), "3 4": ((3,), False), "0-2,5": ((0, 1, 2), False)}
    for text, read in cases.items():
        assert index_range(text, 7) == read, text
    for text in ("3-3", "4-3", "3-", "1-2-3", "", "-4", "a", "8", "6-8"):
        with pytest.raises(ValueError):
            index_range(text, 7)


def test_pfcwd_timers_read_as_swss_to_uint_reads_them():
    """swss-common converter.h to_uint(text, min, max): std::stoul(text, &idx, 0) must read the whole text (base 0:
    0x-hex, 0-octal), then the range; pfcwdorch.cpp reads detection_time within 100-5000 ms (pfcwdorch.h)."""
    for text in ("100", "0144", "0x64", "+100", " 100", "100\x00ms"):  # (str[idx] a NUL: the C string's end)
        assert to_uint(text, 100, 5000) == 100, text
    assert to_uint("-0", 0, 255) == 0  # strtoul negates in unsigned long
    for text in ("100 ", "200ms", "08", "0x", "-100", "99", "5001", "1e3", "", "9" * 5000):
        with pytest.raises(ValueError):
            to_uint(text, 100, 5000)


@pytest.mark.parametrize(("table", "fields", "said"), [
    # sonic-swss qosorch.cpp WredMapHandler::convertFieldValuesToAttributes: "Unknown wred profile field" (every
    # release since 5c3dfebb, 2016, with none taking this misspelt one)
    ("WRED_PROFILE", {"green_max_treshold": "524288"}, "green_max_treshold"),
    # WredMapHandler::convertBool takes "true" and "false" alone
    ("WRED_PROFILE", {"wred_green_enable": "yes"}, "wred_green_enable"),
    # QosOrch::handleSchedulerTable: "Unknown field", and a type other than DWRR, WRR, STRICT
    ("SCHEDULER", {"prio": "1"}, "prio"),
    ("SCHEDULER", {"type": "strict"}, "type"),
    # ecn_map.at and scheduler_meter_map.at throw out_of_range, std::stoi invalid_argument (no digit) or out_of_range
    # (past int): Consumer::drain catches it and the entry stays pending, never created
    ("WRED_PROFILE", {"ecn": "ecn_green_only"}, "ecn"),
    ("WRED_PROFILE", {"green_min_threshold": "1M"}, None),  # (stoi reads 1: the profile stands)
    ("WRED_PROFILE", {"green_max_threshold": "two megabytes"}, "green_max_threshold"),
    ("WRED_PROFILE", {"green_max_threshold": "4294967296"}, "green_max_threshold"),
    ("SCHEDULER", {"meter_type": "bits"}, "meter_type"),
    ("SCHEDULER", {"weight": "heavy"}, "weight"),
    ("SCHEDULER", {"pir": "-1"}, None),  # (stoull wraps a negative: read, the scheduler shapes, from 201911 on)
    ("SCHEDULER", {"meter_type": "bits", "pir": "1"}, "meter_type"),
    # a value every release throws on wins over a field some releases take, whichever comes first
    ("SCHEDULER", {"priority": "1", "weight": "heavy"}, "weight"),
])
def test_a_profile_orchagent_refuses_leaves_its_queues_unset(table, fields, said):
    """orchagent never creates a WRED_PROFILE or SCHEDULER entry with a field no release takes or a value its reader
    throws on or refuses, and retries a QUEUE entry naming it without ever applying it (handleQueueTable:
    task_need_retry): queue 3 gets neither its scheduler nor its WRED profile, where both were read as set; its
    scheduler says why (SCH001 says it in place of "not in the input")."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}}, "VERSIONS": {"DATABASE": {"VERSION": "version_2_0_2"}},
          "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}},
          "SCHEDULER": {"s1": {"type": "DWRR", "weight": "50"}},
          "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true",
                                              "green_min_threshold": "1048576", "green_max_threshold": "2097152",
                                              "green_drop_probability": "5"}},
          # (written as version_2_0_2 takes references: in brackets alone, orch.cpp parseReference to 202106)
          "QUEUE": {"Ethernet0|3": {"scheduler": "[SCHEDULER|s1]", "wred_profile": "[WRED_PROFILE|AZURE_LOSSLESS]"},
                    "Ethernet0|4": {"scheduler": "[SCHEDULER|s1]", "wred_profile": "[WRED_PROFILE|AZURE_LOSSLESS]"}}}
    name = "s1" if table == "SCHEDULER" else "AZURE_LOSSLESS"
    queue = parse([Input("c.json", json.dumps(db, indent=1))], "sw").ports["Ethernet0"].queues[3]
    assert queue.scheduler.name == "s1" and queue.ecn.ecn_enabled  # (as written before the field)
    db[table][name].update(fields)
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    if said is None:
        assert not [i for i in device.issues if "orchagent refuses" in i.message]
        assert device.ports["Ethernet0"].queues[3].scheduler.name == "s1"
        return
    [issue] = [i for i in device.issues if i.code == "SYS002"]
    assert issue.source.pointer == f"/{table}/{name}/{said}" and "orchagent refuses" in issue.message
    for q in (3, 4):
        queue = device.ports["Ethernet0"].queues[q]
        assert queue.ecn is None and queue.scheduler.type is None, queue
        assert f"orchagent refuses {table}|{name}" in queue.scheduler.unapplied
        assert queue.scheduler.source.pointer == issue.source.pointer


@pytest.mark.parametrize(("table", "field", "releases", "value"), [
    # sonic-swss a01470f8 (pull request 2622) removed handleSchedulerTable's `priority` branch, which ignored it: the
    # 202205 branch takes the field, 202211 refuses it
    ("SCHEDULER", "priority", "202211", "1"),
    # sonic-swss cadc5bd8 (pull request 991) added cir/cbs/pir/pbs (201811's handleSchedulerTable: "Unknown field"),
    # 9b018449 (pull request 1296) meter_type (201911's: "Unknown field")
    ("SCHEDULER", "pir", "201811", "1"),
    ("SCHEDULER", "cbs", "201811", "1"),
    ("SCHEDULER", "meter_type", "201911", "bytes"),
    # sonic-swss pull request 4719 (open) adds `{color}_ect_min_threshold` to WredMapHandler
    ("WRED_PROFILE", "green_ect_min_threshold", "4719", "1"),
    ("WRED_PROFILE", "red_ect_mark_probability", "4719", "1"),
    # (the pull request's first name, sonic-buildimage 28164's)
    ("WRED_PROFILE", "ecn_green_min_threshold", "4719", "1"),
])
def test_a_field_some_releases_refuse_leaves_its_queues_unknown(table, field, releases, value):
    """A field orchagent takes on some releases and refuses on others: the queues naming the entry are applied or
    not as the switch's release decides, so their scheduler and ECN are unknown (SCH001, ECN001 unverified), not
    unset (which read as errors on a config that works on the switch's own release). A config naming no release (a
    template render) is no fault of its own where a release takes the field: SYS004 (info), naming the releases;
    a field no release takes yet stays a SYS002 warning (before: SYS002 for both, failing `--fail-on warning`)."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}},
          "SCHEDULER": {"s1": {"type": "DWRR", "weight": "50"}},
          "WRED_PROFILE": {"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1048576",
                                 "green_max_threshold": "2097152", "green_drop_probability": "5"}},
          "QUEUE": {"Ethernet0|3": {"scheduler": "s1", "wred_profile": "W"}}}
    db[table]["s1" if table == "SCHEDULER" else "W"][field] = value
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    code = "SYS002" if releases == "4719" else "SYS004"
    # (the note on references read without a release, test_sonic_bracket_refs.py, is another matter)
    [issue] = [i for i in device.issues if i.code in ("SYS002", "SYS004") and not i.message.startswith(NO_RELEASE)]
    assert issue.code == code and issue.source.pointer.endswith(f"/{field}") and releases in issue.message
    assert "refuses the whole" not in issue.message and "read as unknown" in issue.message
    assert ("VERSIONS|DATABASE" in issue.message) == (releases != "4719")  # (what settles it, where a release does)
    queue = device.ports["Ethernet0"].queues[3]
    assert queue.scheduler.type is None and queue.ecn.ecn_enabled is None
    assert "depends on the switch's release" in queue.scheduler.unapplied == queue.ecn.unapplied
    if table == "SCHEDULER":  # a QUEUE entry naming no WRED profile marks nothing on any release
        del db["QUEUE"]["Ethernet0|3"]["wred_profile"]
        queue = parse([Input("c.json", json.dumps(db, indent=1))], "sw").ports["Ethernet0"].queues[3]
        assert queue.scheduler.unapplied and queue.ecn is None


_BRACKETS_TAKEN = ("version_1_0_1", "version_1_0_6", "version_2_0_2")  # (db_migrator versions up to 202106)


@pytest.mark.parametrize(("field", "value", "version", "taken"), [
    # sonic-utilities db_migrator.py CURRENT_VERSION: 201811 version_1_0_1, 201911 version_1_0_6, 202012
    # version_2_0_2, 202205 version_3_0_7, 202211 version_4_0_3; version_1_0_2 (November 2019) came after sonic-swss
    # cadc5bd8 (cir/pir, July 2019), version_2_0_0 (December 2020) after 9b018449 (meter_type, July 2020), and
    # version_4_0_0 (November 2022) before a01470f8 (priority refused, January 2023)
    ("pir", "1", "version_1_0_6", True),
    ("pir", "1", "version_1_0_1", False),
    ("meter_type", "bytes", "version_1_0_6", False),
    ("meter_type", "bytes", "version_2_0_2", True),
    ("meter_type", "bytes", "version_202305_01", True),
    ("priority", "1", "version_3_0_7", True),
    ("priority", "1", "version_4_0_0", False),
    ("pir", "1", "version_soon", None),  # (no version read: the release is not known)
    ("meter_type", "bytes", "version_\u0662_0_2", None),  # (an Arabic-Indic 2: no db_migrator version)
])
def test_the_configs_db_migrator_version_settles_which_release_it_is(field, value, version, taken):
    """A field some releases refuse is taken, not unknown, where the config's VERSIONS|DATABASE names a release that
    takes it (db_migrator writes it on every boot, and `config save` keeps it); where it names one that refuses it,
    the entry is refused (SYS002, the queue's scheduler unset: before, unknown as if no release were named); where
    it names none losslessd reads, unknown (SYS004, info)."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}}, "VERSIONS": {"DATABASE": {"VERSION": version}},
          "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}},
          "SCHEDULER": {"s1": {"type": "DWRR", "weight": "50", field: value}},
          # (written in the form the release takes: brackets alone up to 202106, orch.cpp parseReference)
          "QUEUE": {"Ethernet0|3": {"scheduler": "[SCHEDULER|s1]" if version in _BRACKETS_TAKEN else "s1"}}}
    device = parse([Input("c.json", json.dumps(db, indent=1))], "sw")
    scheduler = device.ports["Ethernet0"].queues[3].scheduler
    said = [i for i in device.issues if i.code in ("SYS002", "SYS004") and not i.message.startswith(NO_RELEASE)]
    assert [i.code for i in said] == {True: [], False: ["SYS002"], None: ["SYS004"]}[taken]
    assert (scheduler.type is SchedulerType.dwrr, scheduler.unapplied is None) == (bool(taken), bool(taken))
    if taken is False:
        assert f"VERSIONS|DATABASE VERSION '{version}' names a release that refuses it" in said[0].message
        assert "refuses the whole SCHEDULER entry" in said[0].message
        assert scheduler.unapplied.startswith("orchagent refuses SCHEDULER|s1")


@pytest.mark.parametrize(("field", "severity", "said"), [
    ("weight", "error", "orchagent refuses SCHEDULER|scheduler.1, so the QUEUE entry is never applied (SYS002 at line"),
    ("priority", "info", "SCHEDULER|scheduler.1 has priority, which orchagent ignores up to SONiC 202205 and refuses"),
])
def test_sch001_and_ecn001_say_why_a_refused_entry_leaves_the_queue_unknown(tmp_path, field, severity, said):
    """SCH001 says the scheduler was refused (or may be, by release) and points to the SYS002's line, not "the
    scheduler ... is not in the input"; ECN001 is an error where no release applies the queue's WRED profile and
    unverified where the switch's release decides."""
    db = json.loads((REALWORLD / "wred-field-orchagent-refuses" / "config_db.json").read_text())
    del db["WRED_PROFILE"]["AZURE_LOSSLESS"]["green_ect_min_threshold"]
    db["SCHEDULER"]["scheduler.1"][field] = "heavy" if field == "weight" else "1"
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(db, indent=1))
    findings = api.lint([path], "sonic-azure", fmt="sonic").findings
    [sys002] = [f for f in findings if f.code in ("SYS002", "SYS004") and f"/SCHEDULER/scheduler.1/{field}" in
                f.source.pointer]
    [sch] = [f for f in findings if f.code == "SCH001" and f.port == "Ethernet0" and "queue 3" in f.message]
    assert sch.severity.value == "info" and said in sch.message and "not in the input" not in sch.message
    assert f"line {sys002.source.line})" in sch.message and sch.source.line == sys002.source.line
    [ecn] = [f for f in findings if f.code == "ECN001" and f.port == "Ethernet0" and "queue 3" in f.message]
    assert ecn.severity.value == severity


@pytest.mark.parametrize(("fields", "pmax"), [
    ({"wred_green_enable": "true"}, 100.0),
    ({"wred_green_enable": "true", "green_drop_probability": "5"}, 5.0),
    ({}, None),  # (green WRED not enabled in the entry: no probability set, the SAI default stands)
    ({"wred_green_enable": "false"}, None),
])
def test_green_wred_enabled_without_a_drop_probability_marks_at_100_percent(fields, pmax):
    """qosorch.cpp WredMapHandler::addQosItem: a profile created with wred_green_enable true and no
    green_drop_probability gets SAI_WRED_ATTR_GREEN_DROP_PROBABILITY 100, the marking probability at Kmax."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}},
          "WRED_PROFILE": {"W": {"ecn": "ecn_all", "green_min_threshold": "1048576",
                                 "green_max_threshold": "2097152", **fields}},
          "QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}}
    ecn = parse([Input("c.json", json.dumps(db))], "sw").ports["Ethernet0"].queues[3].ecn
    assert ecn.mark_probability_pct == pmax


@pytest.mark.parametrize(("enable", "marks", "drops"), [(None, None, "none"), ("false", None, "none"),
                                                        ("true", True, "non-ect")])
def test_a_green_marking_mode_without_green_wred_enabled_marks_unknown(enable, marks, drops):
    """sonic-buildimage issue 4545 (`ecnconfig` writes no `wred_green_enable`): SAI saiwred.h makes the green
    thresholds valid where SAI_WRED_ATTR_GREEN_ENABLE is true or SAI_WRED_ATTR_ECN_MARK_MODE marks green, so by the
    header `ecn_all` marks with GREEN_ENABLE at its default false; but the issue's switch marked nothing and Spectrum's
    SAI refuses a profile with no colour enabled: absent or "false", whether it marks is unknown (named, not read as
    marking, which linted clean, nor as off, an ECN001 error); GREEN_ENABLE is WRED dropping green packets."""
    profile = {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152"}
    if enable is not None:
        profile["wred_green_enable"] = enable
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000"}},
          "WRED_PROFILE": {"W": profile}, "QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}}
    ecn = parse([Input("c.json", json.dumps(db))], "sw").ports["Ethernet0"].queues[3].ecn
    assert ecn.ecn_enabled is marks and ecn.wred_drops == drops
    assert (ecn.unapplied is None) == (marks is True) and (marks or "issue 4545" in ecn.unapplied)


@pytest.mark.parametrize(("asym", "honoured", "said"), [
    ("on", list(range(8)), None),
    ("off", None, None),
    (None, None, None),
    ("yes", None, "PORT|Ethernet0 pfc_asym 'yes' is not one of on, off; ignored"),
])
def test_pfc_asym_on_makes_the_port_obey_pauses_on_every_priority(tmp_path, asym, honoured, said):
    """SONiC PORT `pfc_asym: on` (sonic-swss portsorch.cpp setPortPfcAsym: PFC mode SEPARATE, TX on pfc_enable's
    priorities, RX 0xff) was not read: the port obeys a neighbour's pauses on its lossy priorities too, queues no PFC
    watchdog watches. Read as Port.pfc_honoured; PFC002 names those priorities (info)."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
          "PORT": {"Ethernet0": {"lanes": "0", "speed": "100000", **({"pfc_asym": asym} if asym else {})}},
          "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(db, indent=1))
    device = parse([Input(str(path), path.read_text())], "sw")
    port = device.ports["Ethernet0"]
    assert port.pfc_honoured == honoured and port.pfc_enabled == [3, 4]
    assert [i.message for i in device.issues if "pfc_asym" in i.message] == ([said] if said else [])
    found = [f for f in api.lint([path], "sonic-azure", select_codes=["PFC002"]).findings if f.key == "pfc-asym"]
    if honoured:
        [f] = found
        assert f.severity.value == "info" and f.source.pointer == "/PORT/Ethernet0/pfc_asym"
        assert "lossy priorities 0,1,2,5,6,7 too" in f.message
    else:
        assert found == []


# A SKU template in the shape sonic-buildimage ships (device/<vendor>/<platform>/<SKU>/buffers.json.j2: Jinja `set`
# and `for` around CONFIG_DB JSON, rendered by sonic-cfggen with the SKU's port_config.ini); values our own.
SKU_TEMPLATE = """{# buffers for a 32-port SKU #}
{% set default_cable = '5m' %}
{
    "CABLE_LENGTH": {
        "AZURE": {
{% for port in PORT %}
            "{{ port }}": "{{ default_cable }}"{% if not loop.last %},{% endif %}
{% endfor %}
        }
    }
}
"""


@pytest.mark.parametrize("text, line", [
    (SKU_TEMPLATE, 1),  # a Jinja comment first
    (SKU_TEMPLATE.split("\n", 1)[1], 1),  # a `{% set %}` first
    # (`{{` inside a string on line 3 comes first)
    ('{\n    "BUFFER_POOL": {\n        "ingress_lossless_pool": {"size": "{{ pool_size }}", "type": "ingress"},\n'
     '{% if lossy %}\n        "egress_lossy_pool": {"size": "1", "type": "egress"}\n{% endif %}\n    }\n}\n', 3),
])
def test_a_sku_template_is_refused_as_what_it_is(tmp_path, text, line):
    """A sonic-buildimage SKU template given to lint was "invalid JSON: Expecting property name enclosed in double
    quotes (column 2)": true, and no help. Now: a Jinja template, where, and that sonic-cfggen renders it (exit 2)."""
    path = tmp_path / "buffers.json.j2"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        parse_group("sku", [path], "sonic")
    assert err.value.message.startswith("a Jinja template, not a CONFIG_DB") and "sonic-cfggen" in err.value.message
    assert (err.value.file, err.value.line) == (str(path), line)
    ran = losslessd("lint", "-p", "sonic-azure", str(path))
    assert ran.returncode == 2 and "a Jinja template" in ran.stdout + ran.stderr, ran.stdout + ran.stderr


# A SKU's buffers_defaults_t1.j2 in the shape Mellanox SKUs ship in sonic-buildimage (device/mellanox/<platform>/
# <SKU>/): pool sizes set, buffers_defaults_objects.j2 imported, and macros that buffers_config.j2 calls; no CONFIG_DB
# table name written. Values our own.
MACROS_ONLY_TEMPLATE = """{% set default_cable = '5m' %}
{% set ingress_lossless_pool_size = '4194304' %}

{% import 'buffers_defaults_objects.j2' as defs with context %}

{%- macro generate_buffer_pool_and_profiles_with_inactive_ports(port_names_inactive) %}
{{ defs.generate_buffer_pool_and_profiles_with_inactive_ports(port_names_inactive) }}
{%- endmacro %}
"""


@pytest.mark.parametrize("text", [
    MACROS_ONLY_TEMPLATE,
    MACROS_ONLY_TEMPLATE.replace("{% import", "{# no import #}"),  # the macro alone
    "{%- include 'buffers_config.j2' %}\n",  # buffers.json.j2 of most SKUs (the SONiC buffer template HLD)
    # Jinja's third form of reading another template (template designer docs, "Import")
    "{% from 'buffers_config.j2' import generate_buffer_pool_and_profiles %}\n"
    "{{ generate_buffer_pool_and_profiles() }}\n",
])
def test_a_sku_template_naming_no_table_is_detected_as_sonic_and_refused(tmp_path, text):
    """Such a template was "cannot tell which platform" unless `--format sonic`: the macros and files SONiC's buffer
    and QoS templates share name it, and it is refused as a Jinja template at its first line (exit 2)."""
    path = tmp_path / "buffers_defaults_t1.j2"
    path.write_text(text)
    assert detect(Input(str(path), text)) == "sonic"
    with pytest.raises(InputError) as err:
        parse_group("sku", [path])
    assert err.value.message.startswith("a Jinja template, not a CONFIG_DB") and err.value.line == 1
    ran = losslessd("lint", "-p", "sonic-azure", str(path))
    assert ran.returncode == 2 and "a Jinja template" in ran.stderr + ran.stdout, ran.stdout + ran.stderr
    # Jinja of no SONiC template keeps "cannot tell"
    other = "{% macro greet(name) %}hello {{ name }}{% endmacro %}\n"
    assert detect(Input("x.j2", other)) is None


def test_broken_json_before_any_template_syntax_keeps_its_own_error(tmp_path):
    path = tmp_path / "qos.json"
    path.write_text('{\n    "PORT_QOS_MAP": {\n        "Ethernet0": {"pfc_enable": "3,4",}\n    }\n}\n{% if x %}\n')
    with pytest.raises(InputError) as err:
        parse_group("leaf", [path], "sonic")
    assert err.value.message.startswith("invalid JSON") and err.value.line == 3


# A CONFIG_DB fragment as vendor guides print one for `sonic-cfggen -j FILE --write-to-db` (the NVIDIA SONiC 202012
# guide, "QoS and Buffers": a shared headroom pool example set in typographic quotes, a buffer PG example with a comma
# after its last profile); our own tables and numbers. RFC 8259: strings are delimited by U+0022 (section 7), members
# and array values separated by commas, none after the last (sections 4, 5).
@pytest.mark.parametrize("text, line, said", [
    ('{\n  "BUFFER_POOL": {\n    "ingress_lossless_pool": {\n      \u201cxoff\u201d: \u201c4096\u201d\n    }\n  }\n}\n',
     4, "a typographic quote \u201c (U+201C) at column 7"),
    ('{\n  "BUFFER_PROFILE": {\n    "p": {"size": "0"},\n  },\n  "BUFFER_PG": {}\n}\n', 3,
     "a comma after the last member (column 23) before the } on line 4"),
    ('{\n  "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},\n  "X": [1, 2,\n  ]\n}\n', 3,
     "a comma after the last member (column 13) before the ] on line 4"),
])
def test_json_pasted_from_a_document_says_what_to_change_where(tmp_path, text, line, said):
    """Both were "Expecting property name enclosed in double quotes" at the line after the comma, or at a quote that
    looks like any other: true, and no help to whoever pasted the guide's example (round 19)."""
    path = tmp_path / "qos_test.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        parse_group("leaf", [path], "sonic")
    assert err.value.message.startswith("invalid JSON: " + said), err.value.message
    assert err.value.line == line
    ran = losslessd("lint", "-p", "sonic-azure", str(path))
    assert ran.returncode == 2 and f"qos_test.json:{line}: invalid JSON: {said}" in ran.stderr, ran.stderr
    # a typographic quote inside a string is a character like any other
    quoted = tmp_path / "ok.json"
    quoted.write_text('{"PORT": {"Ethernet0": {"description": "\u201cuplink\u201d", "speed": "100000"}}}\n',
                      encoding="utf-8")
    assert parse_group("ok", [quoted], "sonic").ports


@pytest.mark.parametrize("text", ['{"localhost": {}, "asic0": {}, "asic1": {}}', '{\n  "asic0": { }\n}\n'])
def test_a_multi_asic_dump_of_empty_namespaces_is_named(tmp_path, text):
    """`config save` of a multi-ASIC switch with empty namespaces (sonic-utilities tests/config_save_output/
    all_config_db.json) was "cannot tell which platform wrote this file": it is a SONiC dump with nothing to read."""
    path = tmp_path / "all_config_db.json"
    path.write_text(text)
    with pytest.raises(InputError, match=r"SONiC multi-ASIC CONFIG_DB dump whose namespaces .* hold no table") as err:
        parse_group("sw", [path])
    assert err.value.line == 1
    other = tmp_path / "other.json"  # (a namespace holding a table losslessd does not read: not claimed)
    other.write_text('{"localhost": {}, "asic0": {"FOO": {}}}')
    with pytest.raises(InputError, match="cannot tell which platform"):
        parse_group("sw", [other])


def test_a_positional_maker_compiles_only_past_its_first_objects(monkeypatch):
    """A maker's first READ_CALLS objects are made by reading the fields (nothing compiled: a maker a run calls a few
    times costs no compile), the rest by the code written for it; both make what the keyword call makes, a fresh
    default of a factory each, and refuse a wrong call in the compiled code's words."""
    import dataclasses

    from losslessd import records
    from losslessd.model import Device, DeviceKind, Port
    from losslessd.parse import base
    from losslessd.records import READ_CALLS

    real = compile
    compiled = []
    monkeypatch.setattr(records, "compile", lambda *args: (args[1].startswith("<make") and compiled.append(args[1]))
                        or real(*args), raising=False)  # (the makers', not Device's own __init__ past its 64th)
    make = base.positional(Device, "name", "kind", "platform")
    port = base.positional(Port, "name")
    for i in range(READ_CALLS + 3):
        made = make(f"h{i}", DeviceKind.host, "linux_mlx5")
        wanted = Device(name=f"h{i}", kind=DeviceKind.host, platform="linux_mlx5")
        assert [getattr(made, f.name) for f in dataclasses.fields(Device)] == [
            getattr(wanted, f.name) for f in dataclasses.fields(Device)]
        assert make("a", DeviceKind.host, "x").ports is not made.ports  # (two objects an iteration)
        assert compiled == ([] if i < READ_CALLS // 2 else ["<make Device>"]), i
    assert port("Ethernet0") == Port(name="Ethernet0") and compiled == ["<make Device>"]
    with pytest.raises(TypeError, match=r"^make\(\) missing 1 required positional argument: 'platform'$"):
        make("h", DeviceKind.host)
    with pytest.raises(TypeError, match=r"^make\(\) takes 1 positional argument but 2 were given$"):
        port("a", "b")  # (a wrong call: the code is written then, and refuses it)
    assert compiled == ["<make Device>", "<make Port>"] and port("b").name == "b"
