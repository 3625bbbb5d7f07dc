"""SONiC CONFIG_DB shapes of real deployments: VOQ chassis keys, multi-ASIC namespaces, partial dumps,
the PFC watchdog defaults of `pfcwd start_default` and orchagent."""

from __future__ import annotations

import json

from losslessd.api import lint
from losslessd.fabric import load_fabric
from losslessd.parse import parse_group
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from losslessd.paths.cabling import Cabling
from tests.clirun import losslessd


def _device(tables: dict, name: str = "dut"):
    return parse([Input("config_db.json", json.dumps(tables, indent=1))], name)


def test_voq_chassis_keys_read_this_line_cards_ports_only(corpus):
    """qos_config.j2 writes QUEUE|<host>|<asic>|<port>|<q> for every system port of the chassis; schedulers
    only for this line card's (the Nokia IXR7250E sample is line card lc1-1, asic0)."""
    device = parse_group("nokia", [corpus / "sonic" / "nokia-ixr7250e-36x100g" / f for f in ("qos.json", "buffers.json")])
    # (a template render names no release: its names alone read as 202111 on reads them, said once)
    assert [i.code for i in device.issues] == ["SYS004"] and "names alone" in device.issues[0].message
    port = device.ports["Ethernet0"]
    assert port.queues[3].scheduler.name == "scheduler.1" and port.queues[3].ecn.profile == "AZURE_LOSSLESS"
    assert sorted(port.queues) == [0, 1, 2, 3, 4, 5, 6]
    # lc1-1|asic1 (Ethernet144...) and other line cards' system ports are not ports of this device
    assert "Ethernet144" not in device.ports and len(device.ports) == 18


def test_voq_local_asic_from_device_metadata():
    queue = {f"{host}|{asic}|Ethernet0|3": {"wred_profile": "W"} for host in ("lc1", "lc2") for asic in ("Asic0",)}
    queue["lc2|Asic0|Ethernet0|4"] = {"wred_profile": "W"}
    tables = {"DEVICE_METADATA": {"localhost": {"hostname": "LC2", "asic_name": "asic0"}},
              "PORT": {"Ethernet0": {}}, "WRED_PROFILE": {"W": {"ecn": "ecn_all"}}, "QUEUE": queue,
              "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}}}
    device = _device(tables)
    assert sorted(device.ports["Ethernet0"].queues) == [3, 4]  # lc2's entries; host/asic compared case-blind
    assert device.issues == []


def test_voq_keys_of_unknown_line_card_are_one_info_not_hundreds_of_warnings():
    queue = {f"lc{n}|asic0|Ethernet{4 * p}|3": {"wred_profile": "W"} for n in (1, 2) for p in range(50)}
    device = _device({"WRED_PROFILE": {"W": {"ecn": "ecn_all"}}, "QUEUE": queue,
                      "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}}})
    assert [i.code for i in device.issues] == ["SYS004"]
    assert "2 line cards/ASICs" in device.issues[0].message and device.ports == {}


def test_multi_asic_running_config_is_one_device_with_every_namespace():
    """`show runningconfiguration all` on a multi-ASIC switch prints {"localhost": ..., "asic0": ..., ...}."""
    def asic(ports, xoff):
        return {"PORT": {p: {"admin_status": "up", "speed": "400000"} for p in ports},
                "BUFFER_PROFILE": {"pg_lossless": {"xoff": str(xoff), "pool": "ingress_lossless_pool"}},
                "BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000000"}},
                "BUFFER_PG": {f"{p}|3-4": {"profile": "pg_lossless"} for p in ports},
                "PORT_QOS_MAP": {p: {"pfc_enable": "3,4"} for p in ports}}
    dump = {"localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "t2-lc1", "hwsku": "multi"}}},
            "asic0": asic(["Ethernet0", "Ethernet-BP0"], 1000), "asic1": asic(["Ethernet8", "Ethernet-BP8"], 2000)}
    device = parse([Input("run.json", json.dumps(dump, indent=1))], "fallback")
    assert device.name == "t2-lc1" and device.hwsku == "multi"
    assert list(device.ports) == ["Ethernet0", "Ethernet8", "Ethernet-BP0", "Ethernet-BP8"]
    # the two ASICs' same-named profiles differ: kept apart, each namespace's PGs point at its own
    assert device.ports["Ethernet0"].priority_groups[3].profile == "pg_lossless"
    assert device.ports["Ethernet8"].priority_groups[3].profile == "pg_lossless@asic1"
    assert device.buffer_profiles["pg_lossless@asic1"].xoff_bytes == 2000
    assert device.ports["Ethernet8"].source.pointer == "/asic1/PORT/Ethernet8" and device.ports["Ethernet8"].source.line


def test_multi_asic_etc_sonic_folder(tmp_path):
    """/etc/sonic of a multi-ASIC switch: config_db.json (host) and config_db<N>.json (namespace asicN)."""
    (tmp_path / "config_db.json").write_text(json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "t2"}}}))
    for n in (0, 1):
        (tmp_path / f"config_db{n}.json").write_text(json.dumps(
            {"PORT": {f"Ethernet{8 * n}": {"admin_status": "up"}}, "PORT_QOS_MAP": {f"Ethernet{8 * n}": {"pfc_enable": "3"}}}))
    fabric = load_fabric([tmp_path])
    assert fabric.issues == [] and list(fabric.devices) == ["t2"]
    assert list(fabric.devices["t2"].ports) == ["Ethernet0", "Ethernet8"]
    assert fabric.devices["t2"].ports["Ethernet8"].pfc_enabled == [3]


def _backplane_asic(n: int, ports: dict[str, tuple[str, str, str]], pfc: dict[str, str]) -> dict:
    """One ASIC namespace's CONFIG_DB as sonic-cfggen writes it from a multi-NPU minigraph (sonic-config-engine
    tests/test_multinpu_cfggen.py): PORT with role and asic_port_name, DEVICE_NEIGHBOR of a backplane port naming
    the sibling ASIC ("ASIC<N>") and that ASIC's asic_port_name. ``ports``: port -> (asic_port_name, role, far)."""
    neighbors = {}
    for port, (_, _, far) in ports.items():
        device, _, far_port = far.partition(":")
        neighbors[port] = {"name": device, "port": far_port}
    return {"DEVICE_METADATA": {"localhost": {"hostname": "t2", "asic_name": f"asic{n}"}},
            "PORT": {p: {"admin_status": "up", "asic_port_name": a, "role": r, "speed": "100000", "mtu": "9100"}
                     for p, (a, r, _) in ports.items()},
            "DEVICE_NEIGHBOR": neighbors,
            "DEVICE_NEIGHBOR_METADATA": {"ASIC0": {"type": "Asic"}, "ASIC1": {"type": "Asic"},
                                         "01T1": {"type": "LeafRouter"}},
            "PORT_QOS_MAP": {p: {"pfc_enable": pfc.get(p, "3,4"), "pfc_to_queue_map": "AZURE"} for p in ports}}


def _backplane_folder(root, topology: bool = False):
    (root / "config_db.json").write_text(json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "t2"}}}))
    (root / "config_db0.json").write_text(json.dumps(_backplane_asic(0, {
        "Ethernet0": ("Eth0-ASIC0", "Ext", "01T1:Ethernet1"),
        "Ethernet-BP0": ("Eth4-ASIC0", "Int", "ASIC1:Eth0-ASIC1")}, {})))
    (root / "config_db1.json").write_text(json.dumps(_backplane_asic(1, {
        "Ethernet-BP256": ("Eth0-ASIC1", "Int", "ASIC0:Eth4-ASIC0")}, {"Ethernet-BP256": "3"})))
    if topology:
        (root.parent / "topology.yaml").write_text("links: []\nrouting: shortest-path\n")


def test_multi_asic_backplane_hop_is_a_link_inside_the_device(tmp_path):
    """A backplane port's DEVICE_NEIGHBOR names the sibling ASIC (ASIC1 / Eth0-ASIC1): the far end is this device's
    port whose asic_port_name that is, so the hop is a link the LNK rules check; it was a neighbour 'ASIC1' that
    no linted device is (silently dropped, or LNK006 under a topology file) and the hop went unchecked."""
    _backplane_folder(tmp_path)
    fabric = load_fabric([tmp_path])
    device = fabric.devices["t2"]
    hops = {(n.port, n.remote_device, n.remote_port) for n in device.neighbors}
    assert ("Ethernet-BP0", "t2", "Ethernet-BP256") in hops and ("Ethernet-BP256", "t2", "Ethernet-BP0") in hops
    assert ("Ethernet0", "01T1", "Ethernet1") in hops  # a neighbour outside the switch is kept as written
    assert [(lk.a.device, lk.a.port, lk.b.device, lk.b.port) for lk in fabric.links] == [
        ("t2", "Ethernet-BP0", "t2", "Ethernet-BP256")]
    result = lint([tmp_path], "sonic-azure", select_codes=["LNK"])
    assert [(f.code, f.port) for f in result.findings if f.severity.value != "info"] == [("LNK001", "Ethernet-BP256")]
    # the same switch as `show runningconfiguration all` prints it (with the bgpraw text each namespace carries)
    running = {"localhost": json.loads((tmp_path / "config_db.json").read_text())}
    for n in (0, 1):
        running[f"asic{n}"] = {**json.loads((tmp_path / f"config_db{n}.json").read_text()), "bgpraw": "!\n"}
    dump = tmp_path.parent / "running.json"
    dump.write_text(json.dumps(running, indent=2))
    assert [(lk.a.port, lk.b.port) for lk in load_fabric([dump]).links] == [("Ethernet-BP0", "Ethernet-BP256")]


def test_multi_asic_backplane_hop_under_a_topology_stays_out_of_the_path_analysis(tmp_path):
    """Under a topology file the hop names no missing device (LNK006), and the path and deadlock analyses, which
    take a switch as one node, leave the hop inside it out of the cables they route over."""
    sonic = tmp_path / "t2"
    sonic.mkdir()
    _backplane_folder(sonic, topology=True)
    fabric = load_fabric([tmp_path])
    assert [i.message for i in fabric.topology_issues if "ASIC" in i.message] == []
    cabling = Cabling(fabric)
    assert cabling.peer == {}
    assert [why for *_, why in cabling.skipped] == [
        "it joins two ports of t2 (a hop inside one switch, which the analyses take as one node)"]


def test_partial_qos_json_names_tables_it_lacks_as_unknown(corpus):
    """The smart-switch sample qos.json binds maps, schedulers and WRED profiles it does not define."""
    device = parse_group("ss", [corpus / "sonic" / "mellanox4700-smartswitch" / "qos.json"])
    assert {i.code for i in device.issues} == {"SYS004"}
    assert any("table WRED_PROFILE" in i.message for i in device.issues)
    q3 = device.ports["Ethernet216"].queues[3]
    assert q3.ecn.profile == "AZURE_LOSSLESS" and q3.ecn.ecn_enabled is None  # unknown, not off
    assert device.ports["Ethernet216"].dscp_to_tc is None


def test_dangling_reference_in_a_whole_config_db_stays_sys002():
    device = _device({"PORT": {"Ethernet0": {}}, "QUEUE": {"Ethernet0|3": {"wred_profile": "NOPE"}}})
    assert [i.code for i in device.issues] == ["SYS002"]


def _wd_switch(ports: int, detection: int, poll: int | None, action: str | None = None) -> dict:
    wd = {"detection_time": str(detection), "restoration_time": str(detection)}
    if action:
        wd["action"] = action
    tables = {"PORT": {f"Ethernet{i}": {} for i in range(ports)},
              "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"}},
              "PFC_WD": {"Ethernet0": wd}}
    if poll is not None:
        tables["PFC_WD"]["GLOBAL"] = {"POLL_INTERVAL": str(poll)}
    return tables


def test_pfcwd_start_default_scales_with_port_count():
    """sonic-utilities pfcwd/main.py: multiply = max(1, (ports-1)//32 + 1); timers 200 ms x multiply,
    poll 200 ms x multiply capped at 1000 ms; 256 ports -> 1600 ms, 33 ports -> 400 ms."""
    for ports, ms, poll in ((256, 1600, 1000), (33, 400, 400), (32, 200, 200), (1, 200, 200)):
        wd = _device(_wd_switch(ports, ms, poll)).ports["Ethernet0"].watchdog
        assert wd.default_rule and f"{ports} ports" in wd.default_rule and f"= {ms} ms" in wd.default_rule
        assert (wd.detection_time_ms, wd.polling_interval_ms, wd.action, wd.action_raw) == (ms, poll, "drop", "drop")
    assert _device(_wd_switch(256, 1600, 200)).ports["Ethernet0"].watchdog.default_rule is None  # hand-set poll
    assert _device(_wd_switch(64, 1600, 1000)).ports["Ethernet0"].watchdog.default_rule is None  # 64 ports: 400 ms


def test_watchdog_poll_and_action_defaults():
    """No GLOBAL POLL_INTERVAL: orchagent's PFC_WD_POLL_MSECS (100 ms); `alert` is notify-only."""
    wd = _device(_wd_switch(8, 300, None, "alert")).ports["Ethernet0"].watchdog
    assert (wd.polling_interval_ms, wd.action, wd.action_raw) == (100, "notify-only", "alert")
    bad = _device(_wd_switch(8, 300, None, "shout"))
    assert bad.ports["Ethernet0"].watchdog.action is None and [i.code for i in bad.issues] == ["SYS002"]


def test_other_sonic_databases_are_named_not_unknown(tmp_path):
    """A JSON dump of COUNTERS_DB, ASIC_DB or APPL_DB (keys as sonic-swss doc/swss-schema.md and syncd write them) is
    refused naming the database and the line of its first key (exit 2), not as a file of an unknown platform; a
    CONFIG_DB that names a table this parser reads is not taken for one."""
    dumps = {
        "counters_db.json": ({"COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x1000000000002"},
                              "COUNTERS:oid:0x1000000000002": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "7"}}, "COUNTERS_DB"),
        "asic_db.json": ({"ASIC_STATE:SAI_OBJECT_TYPE_PORT:oid:0x1000000000002": {"SAI_PORT_ATTR_MTU": "9122"}},
                         "ASIC_DB"),
        "appl_db.json": ({"PORT_TABLE:Ethernet0": {"mtu": "9100"}}, "APPL_DB"),
    }
    for name, (data, db) in dumps.items():
        path = tmp_path / name
        path.write_text(json.dumps(data, indent=1))
        ran = losslessd("lint", "--policy", "sonic-azure", path)
        assert ran.returncode == 2 and f"a SONiC {db} dump" in ran.stderr and f"{path}:2:" in ran.stderr, ran.stderr
    config = tmp_path / "config_db.json"
    config.write_text(json.dumps({"PORT_TABLE:Ethernet0": {"mtu": "9100"}, "PORT": {"Ethernet0": {"mtu": "9100"}}}))
    ran = losslessd("lint", "--policy", "sonic-azure", config)
    assert "APPL_DB" not in ran.stderr and "Traceback" not in ran.stderr
