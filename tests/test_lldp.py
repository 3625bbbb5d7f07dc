"""LLDP neighbour tables as EOS and lldpd print them -> Neighbor entries, and the captures that carry them."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.fabric import load_fabric
from losslessd.parse import lldp

# `show lldp neighbors` on EOS 4.2x: table-change counters, the header, a dash rule, short local names.
EOS_TABLE = """spine1#show lldp neighbors
Last table change time   : 2 days, 4:11:09 ago
Number of table inserts  : 4
Number of table deletes  : 0
Number of table drops    : 0
Number of table age-outs : 0

Port          Neighbor Device ID       Neighbor Port ID    TTL
---------- ------------------------ ---------------------- ---
Et1           leaf1.fabric.example     etp49               120
Et2/1         leaf2                    Ethernet49/1        120
Et3           gpu07                    b8ce.f6e4.71a2      120
Ma1           oob-sw1                  Gi1/0/3             120
Et4           half a row
"""

# `show lldp neighbors detail`: a block per interface, the port ID after its type line; the link
# aggregation TLV has a `Port ID` of its own that is not the neighbour's port.
EOS_DETAIL = """Interface Ethernet1 detected 1 LLDP neighbors:

  Neighbor 1c34.da5e.c200/"etp49", age 17 seconds
  Discovered 2 days, 4:11:09 ago; Last changed 2 days, 4:11:09 ago
  - Chassis ID type: MAC address (4)
    Chassis ID     : 1c34.da5e.c200
  - Port ID type: Locally assigned (7)
    Port ID     : "etp49"
  - Time To Live: 120 seconds
  - Port Description: "spine1:Ethernet1"
  - System Name: "leaf1"
  - IEEE802.1/IEEE802.3 Link Aggregation
    Link Aggregation Status: Capable, Disabled (0x01)
    Port ID                : 0

Interface Ethernet2 detected 0 LLDP neighbors:

Interface Ethernet3 detected 1 LLDP neighbors:

  Neighbor b8ce.f6e4.71a2/b8ce.f6e4.71a2, age 3 seconds
  - Chassis ID type: MAC address (4)
    Chassis ID     : b8ce.f6e4.71a2
  - Port ID type: MAC address (3)
    Port ID     : b8ce.f6e4.71a2
  - Port Description: "enp65s0f0np0"
  - System Name: "gpu07"
"""

KEYVALUE = """lldp.eth0.via=LLDP
lldp.eth0.rid=1
lldp.eth0.age=0 day, 00:41:07
lldp.eth0.chassis.mac=1c:34:da:5e:c2:00
lldp.eth0.chassis.name=leaf1
lldp.eth0.chassis.descr=SONiC Software Version: SONiC.202311.1
lldp.eth0.port.local=etp1
lldp.eth0.port.descr=gpu01:eth0
lldp.eth0.port.ttl=120
lldp.eth1.100.via=LLDP
lldp.eth1.100.chassis.mac=44:4c:a8:91:0e:5f
lldp.eth1.100.chassis.name=leaf2
lldp.eth1.100.port.ifname=Ethernet7
lldp.eth2.via=LLDP
lldp.eth2.chassis.mac=00:00:00:00:00:02
lldp.eth2.chassis.name=ns-2.example.com
lldp.eth2.port.mac=00:00:00:00:00:02
lldp.eth2.port.descr=eth1
"""

LLDPCTL = """-------------------------------------------------------------------------------
LLDP neighbors:
-------------------------------------------------------------------------------
Interface:    eth0, via: LLDP, RID: 1, Time: 0 day, 00:00:59
  Chassis:
    ChassisID:    mac 00:00:00:00:00:02
    SysName:      ns-2.example.com
    Capability:   Bridge, off
  Port:
    PortID:       mac 00:00:00:00:00:02
    PortDescr:    eth1
    TTL:          120
-------------------------------------------------------------------------------
Interface:    eth1, via: LLDP, RID: 2, Time: 0 day, 00:00:59
  Chassis:
    ChassisID:    mac 44:4c:a8:91:0e:5f
    SysName:      leaf2
  Port:
    PortID:       ifname Ethernet2
    TTL:          120
-------------------------------------------------------------------------------
"""


def found(neighbors):
    return [(n.port, n.remote_device, n.remote_port, n.source.line) for n in neighbors]


def test_eos_table_expands_local_names_and_drops_mac_port_ids():
    neighbors, issues = lldp.parse(EOS_TABLE, "spine1.txt", first_line=1)
    assert found(neighbors) == [
        ("Ethernet1", "leaf1.fabric.example", "etp49", 10),
        ("Ethernet2/1", "leaf2", "Ethernet49/1", 11),
        ("Ethernet3", "gpu07", None, 12),  # a MAC port ID names no port
        ("Management1", "oob-sw1", "Gi1/0/3", 13),
    ]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 14)]
    assert "half a row" in issues[0].message
    assert lldp.prompt_host(EOS_TABLE) == "spine1"


def test_eos_detail_takes_the_neighbour_port_not_the_aggregation_port():
    neighbors, issues = lldp.parse(EOS_DETAIL, "d.txt")
    assert issues == []
    assert found(neighbors) == [("Ethernet1", "leaf1", "etp49", 3), ("Ethernet3", "gpu07", "enp65s0f0np0", 20)]


def test_lldpcli_keyvalue_with_dotted_interfaces_and_mac_port_ids():
    neighbors, issues = lldp.parse(KEYVALUE, "kv.txt", first_line=100)
    assert issues == []
    # lldpd sends a MAC port ID by default and the interface name as the port description.
    assert found(neighbors) == [("eth0", "leaf1", "etp1", 100), ("eth1.100", "leaf2", "Ethernet7", 109),
                                ("eth2", "ns-2.example.com", "eth1", 113)]


def test_lldpcli_keyvalue_reads_only_lines_that_name_an_interface():
    """A line is `lldp.<interface>.<key>=<value>` with an interface of at least one character: lines that do not
    start with `lldp.`, or name no interface, are no neighbour (the parser searches for the key, then checks both)."""
    others = "xlldp.eth3.chassis.name=ghost1\nlldp..chassis.name=ghost2\nlldp.chassis.name=ghost3\n"
    neighbors, issues = lldp.parse(KEYVALUE + others, "kv.txt", first_line=100)
    assert issues == []
    assert [n.remote_device for n in neighbors] == ["leaf1", "leaf2", "ns-2.example.com"]


def test_lldpcli_json_one_and_several_interfaces_and_json0():
    one = {"lldp": {"interface": {"eth0": {"via": "LLDP", "chassis": {"leaf1": {"id": {"type": "mac", "value": "x"}}},
                                           "port": {"id": {"type": "local", "value": "etp1"}, "descr": "d"}}}}}
    several = {"lldp": {"interface": [
        {"eth0": {"chassis": {"leaf1": {"id": {"type": "mac", "value": "x"}}},
                  "port": {"id": {"type": "ifname", "value": "Ethernet0"}}}},
        {"eth1": {"chassis": {"id": {"type": "mac", "value": "44:4c:a8:91:0e:5f"}},
                  "port": {"id": {"type": "mac", "value": "44:4c:a8:91:0e:60"}, "descr": "Ethernet4"}}}]}}
    json0 = {"lldp": [{"interface": [{"name": "eth0", "chassis": [{"id": [{"type": "mac", "value": "x"}],
                                                                    "name": [{"value": "ns-2"}]}],
                                      "port": [{"id": [{"type": "mac", "value": "y"}], "descr": [{"value": "eth1"}]}]}]}]}
    assert found(lldp.parse(json.dumps(one, indent=2), "a.json")[0]) == [("eth0", "leaf1", "etp1", 4)]
    # No system name: the chassis ID stands in (it matches no device, so the loader reports it).
    assert [(n.port, n.remote_device, n.remote_port) for n in lldp.parse(json.dumps(several), "b.json")[0]] == [
        ("eth0", "leaf1", "Ethernet0"), ("eth1", "44:4c:a8:91:0e:5f", "Ethernet4")]
    assert [(n.port, n.remote_device, n.remote_port) for n in lldp.parse(json.dumps(json0), "c.json")[0]] == [
        ("eth0", "ns-2", "eth1")]
    # Each interface at its own line, not at the entry before whose port id has the same name (json and json0).
    text = ('{"lldp": {"interface": [\n{"eth1": {"chassis": {"a": {}}, "port": {"id": {"type": "ifname", "value": '
            '"eth0"}}}},\n{"eth0": {"chassis": {"b": {}}, "port": {"id": {"type": "ifname", "value": "x"}}}}\n]}}')
    assert [(n.port, n.source.line) for n in lldp.parse(text, "b.json")[0]] == [("eth1", 2), ("eth0", 3)]
    text = ('{"lldp": [{"interface": [\n{"name": "eth1", "chassis": [{"name": [{"value": "a"}]}], "port": [{"id": '
            '[{"type": "ifname", "value": "eth0"}]}]},\n{"name": "eth0", "chassis": [{"name": [{"value": "b"}]}], '
            '"port": [{"id": [{"type": "ifname", "value": "x"}]}]}\n]}]}')
    assert [(n.port, n.source.line) for n in lldp.parse(text, "c.json")[0]] == [("eth1", 2), ("eth0", 3)]


def test_lldpctl_default_text():
    neighbors, issues = lldp.parse(LLDPCTL, "t.txt")
    assert issues == []
    assert found(neighbors) == [("eth0", "ns-2.example.com", "eth1", 4), ("eth1", "leaf2", "Ethernet2", 14)]


def test_unrecognised_output_is_one_issue():
    neighbors, issues = lldp.parse("% Invalid input (privileged mode required)\n", "x.txt", first_line=40)
    assert neighbors == [] and [(i.code, i.source.line) for i in issues] == [("SYS002", 40)]


def test_captures_carry_neighbours():
    """An EOS capture's `show lldp neighbors` and a host capture's `lldpcli`/`lldpctl` sections."""
    fabric = load_fabric(["examples/fabric/leaf2.capture", "examples/fabric/gpu01.capture",
                          "examples/fabric/gpu02.capture", "examples/fabric/gpu03.capture"])
    leaf2 = fabric.devices["leaf2"]
    assert [(n.port, n.remote_device, n.remote_port) for n in leaf2.neighbors] == [
        ("Ethernet1", "gpu05", "enp65s0f0np0"), ("Ethernet2", "gpu06", None), ("Ethernet49/1", "spine1", "Ethernet3/1"),
        ("Management1", "oob-sw1", "Gi1/0/12")]
    assert leaf2.neighbors[0].source.file == "examples/fabric/leaf2.capture"
    assert leaf2.ports["Ethernet1"].pfc_source.line == 20  # `priority-flow-control on`: file lines survive the capture
    for host, alias in (("gpu01", "etp1"), ("gpu02", "etp2"), ("gpu03", "etp3")):  # keyvalue, JSON, lldpctl text
        assert [(n.port, n.remote_device, n.remote_port) for n in fabric.devices[host].neighbors] == [
            ("enp65s0f0np0", "leaf1", alias)]
        assert not fabric.devices[host].issues


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "Port  Neighbor Device ID  Neighbor Port ID  TTL", "Et1  leaf1  Ethernet1  120", "lldp.eth0.chassis.name=x",
    "lldp.eth0.port.mac=", "Interface Ethernet1 detected 1 LLDP neighbors:", "  Neighbor x/y, age 1 seconds",
    "  - Port ID type: MAC address (3)", "    Port ID     : ", "Interface:    eth0, via: LLDP", "    PortID:   ifname",
    "{", '{"lldp": {"interface": [1, {"eth0": []}]}}', '{"lldp": [{"interface": {"name": 3}}]}', "", "-----",
]) | st.text(max_size=30), max_size=12))
def test_any_text_gives_neighbours_or_issues(lines):
    neighbors, issues = lldp.parse("\n".join(lines), "fuzz.txt", first_line=3)
    assert all(n.source.line >= 3 for n in neighbors)
    assert all(i.code == "SYS002" for i in issues)


def test_lldpcli_json_nested_past_the_parser_is_said_in_words_not_pythons():
    """JSON nested deeper than Python's parser reads is an issue that says so (docpos.json_value's words), never
    "maximum recursion depth exceeded"."""
    deep = '{"lldp": ' + "[" * 100_000 + "]" * 100_000 + "}"
    neighbors, issues = lldp.parse(deep, "gpu01.lldp.json")
    assert neighbors == [] and len(issues) == 1
    assert "nested deeper than Python's JSON parser reads" in issues[0].message
    assert "recursion" not in issues[0].message
