"""LLDP neighbour tables as EOS, NX-OS, SONiC, Junos and lldpd print them -> Neighbor entries, and the captures that
carry them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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

# A Junos neighbour sends its SNMP ifIndex as a locally assigned port ID (Junos default `port-id-subtype
# locally-assigned`); its port description is the interface's.
EOS_DETAIL_JUNOS = """Interface Ethernet5 detected 1 LLDP neighbors:

  Neighbor 3c8c.9300.0001/"531", age 11 seconds
  - Chassis ID type: MAC address (4)
    Chassis ID     : 3c8c.9300.0001
  - Port ID type: Locally assigned (7)
    Port ID     : "531"
  - Port Description: "et-0/0/48"
  - System Name: "qfx-spine1"

Interface Ethernet6 detected 1 LLDP neighbors:

  Neighbor 3c8c.9300.0001/"532", age 11 seconds
  - Chassis ID type: MAC address (4)
    Chassis ID     : 3c8c.9300.0001
  - Port ID type: Locally assigned (7)
    Port ID     : "532"
  - Port Description: "uplink to leaf 3"
  - System Name: "qfx-spine1"
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


def test_numeric_port_ids_give_way_to_a_description_that_names_a_port():
    """A number names no port of any platform read here (a Junos neighbour's ifIndex): reporting it made LNK006
    warn of a port the far device lacks. Its description stands in when it is a name, else the port is unknown."""
    neighbors, issues = lldp.parse(EOS_DETAIL_JUNOS, "d.txt")
    assert issues == [] and found(neighbors) == [("Ethernet5", "qfx-spine1", "et-0/0/48", 3),
                                                 ("Ethernet6", "qfx-spine1", None, 13)]
    table = NXOS_TABLE.replace("oob-sw1              mgmt0           120        B           Gi1/0/7",
                               "oob-sw1              mgmt0           120        B           16")
    assert ("mgmt0", "oob-sw1", None, 11) in found(lldp.parse(table, "t.txt")[0])


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

    # After the prompt the command was typed at, the prompt's words are no key: eth0 is at its own line.
    prompt = 'root@sonic:~# lldpcli -f json show neighbors ports eth0 | grep -v \'"eth1": {\'\n'
    assert [(n.port, n.source.line) for n in lldp.parse(prompt + text, "d.json")[0]] == [("eth1", 3), ("eth0", 4)]


# lldpctl's JSON (`lldpctl -f json`) as a shell session saves it: Cumulus Linux's and SONiC's admin users get bash's `$`
# prompt (review of round 11: refused, SYS001, while root's `#` prompt was read).
_LLDPCTL_JSON = ('{\n  "lldp": {\n    "interface": {\n      "swp1": {\n        "via": "LLDP",\n        "chassis": '
                 '{"spine1": {"id": {"type": "mac", "value": "aa:bb:cc:00:00:01"}}},\n        "port": {"id": {"type": '
                 '"ifname", "value": "swp51"}, "descr": "DESCR"}\n      }\n    }\n  }\n}\n')


@pytest.mark.parametrize("prompt", ["", "root@leaf1:~# lldpctl -f json\n",
                                    "cumulus@leaf1:mgmt:~$ sudo lldpctl -f json\n",
                                    "admin@sonic:~$ docker exec lldp lldpctl -f json\n"])
def test_lldpctl_json_after_a_shell_prompt_reads_as_without_it(prompt):
    neighbors, issues = lldp.parse(prompt + _LLDPCTL_JSON.replace("DESCR", "swp51"), "l.json", unknown="SYS001")
    assert (found(neighbors), issues) == ([("swp1", "spine1", "swp51", 4 + prompt.count("\n"))], [])


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x1c", "\x0b"])
def test_a_line_separator_inside_a_json_string_is_no_line_end(separator):
    # Review of round 11: JSON takes U+2028, U+2029 and U+0085 raw in a string (RFC 8259, section 7, escapes only
    # `"`, `\\` and U+0000-U+001F); str.splitlines ended a line there and blanked the string's tail as a prompt line
    # (`leaf1#...`), so a valid document was "not valid JSON". (U+001C and U+000B, which splitlines also splits at, are
    # control characters JSON refuses raw: an issue either way, never a neighbour read from a blanked tail.)
    # (a document on one line, as `jq -c` prints it: the string's tail was its last line)
    text = _LLDPCTL_JSON.replace("\n", "").replace("DESCR", f"to spine{separator}leaf1#uplink") + "\n"
    neighbors, issues = lldp.parse(text, "l.json", unknown="SYS001")
    if separator in "\u2028\u2029\x85":
        assert (found(neighbors), issues) == ([("swp1", "spine1", "swp51", 1)], [])
    else:
        assert issues

def test_lldpctl_default_text():
    neighbors, issues = lldp.parse(LLDPCTL, "t.txt")
    assert issues == []
    assert found(neighbors) == [("eth0", "ns-2.example.com", "eth1", 4), ("eth1", "leaf2", "Ethernet2", 14)]


def test_cdp_detail_is_not_read_as_lldpd_text():
    """`show cdp neighbors detail` has `Interface: X,` lines too: without lldpd's labels it is no LLDP table."""
    cdp = ("-------------------------\nDevice ID: spine1\nEntry address(es):\n  IPv4 Address: 192.0.2.1\n"
           "Interface: Ethernet1/49,  Port ID (outgoing port): Ethernet1/3\n")
    neighbors, issues = lldp.parse(cdp, "cdp.txt", unknown="SYS001")
    assert neighbors == [] and [(i.code, i.source.line) for i in issues] == [("SYS001", 1)]


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
    "Device ID            Local Intf      Hold-time  Capability  Port ID", "spine1  Eth1/49  120  BR  Eth1/3",
    "                     Eth1/50         120", "Chassis id: x", "Local Port id: Eth1/1", "Port id: ",
    "LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr",
    "-----------  --------------  -----------------", "Ethernet0    gpu21      x",
    "Local Interface    Parent Interface    Chassis Id          Port info          System Name",
    "et-0/0/0           -                   3c:8c:93:00:00:01   et-0/0/48.0        spine1", "et-0/0/5   -   x",
    "Interface  Speed  Type  Remote Host      Remote Port", "---------  -----  ----  ---------------  -------",
    "swp31      400G   swp   spine1           swp7", "Interface:    swp31",
    "sw1#show lldp neighbors Gi1/0/1 detail", "sw1# show lldp neighbors interface ethernet 1/1 detail", "sw1#",
    "sw1#show lldp neighbors interface detail", "System Name: spine1", "Local Intf: Te1/0/1",
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


# NX-OS `show lldp neighbors` (Nexus 9000 Interfaces Configuration Guide, "Verifying the LLDP Configuration"): a
# Device ID longer than its column on a line of its own; no capability or port ID when the neighbour sent none.
NXOS_TABLE = """leaf3# show lldp neighbors
Capability codes:
  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other
Device ID            Local Intf      Hold-time  Capability  Port ID
spine1               Eth1/49         120        BR          Ethernet1/3
spine2.fabric.example.net
                     Eth1/50         120        BR          Eth1/3
gpu11                Eth1/1          120                    b8ce.f6e4.7100
sonic-t1             Eth1/2          120        R           etp3
oob-sw1              mgmt0           120        B           Gi1/0/7
Onyx Switch 7        Eth1/7          120        BR          Eth1/7
Eth1/9               120        BR          half
Total entries displayed: 5
leaf3#
"""

NXOS_DETAIL = """Capability codes:
  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other
Device ID            Local Intf      Hold-time  Capability  Port ID

Chassis id: 5c83.8f12.3400
Port id: Ethernet1/3
Local Port id: Eth1/49
Port Description: to leaf3 uplink
System Name: spine1
System Description: Cisco Nexus Operating System (NX-OS) Software 10.3(4a)
TAC support: http://www.cisco.com/tac
Time remaining: 101 seconds
System Capabilities: B, R
Enabled Capabilities: B, R
Management Address: 192.0.2.11
Vlan ID: not advertised

Chassis id: b8ce.f6e4.7100
Port id: b8ce.f6e4.7100
Local Port id: Eth1/1
Port Description: enp65s0f0np0
System Name: gpu11
Time remaining: 97 seconds

Chassis id: 0c42.a100.0001
Port id: 0c42.a100.0001
Local Port id: Eth1/2
Port Description: null
System Name: not advertised
Time remaining: 97 seconds

Chassis id: 0c42.a100.0002
Port id: Eth1/5
System Name: lost-local-port
"""

# SONiC `show lldp table` (sonic-utilities scripts/lldpshow): columns under a dash rule, blank cells allowed.
SONIC_TABLE = """admin@leaf5:~$ show lldp table
Capability codes: (R) Router, (B) Bridge, (O) Other
LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr
-----------  --------------  -----------------  ------------  -----------------
Ethernet0    gpu21           0c:42:a1:00:21:00                enp65s0f0np0
Ethernet4    gpu22           0c:42:a1:00:22:00  R             Interface 8 as en0
Ethernet248  spine1          Ethernet1/5        BR            to leaf5
Ethernet252  spine2          etp2               BR            Ethernet4
Ethernet256  spine3-name-past-its-column  Ethernet9  BR
--------------------------------------------------
Total entries displayed:  5
"""

# Junos `show lldp neighbors` (Junos CLI reference, "show lldp neighbors": Port info is the neighbour's port ID or
# its description); a Junos neighbour's default port ID is its SNMP ifIndex.
JUNOS_TABLE = """user@qfx1> show lldp neighbors
Local Interface    Parent Interface    Chassis Id          Port info          System Name
et-0/0/0           -                   3c:8c:93:00:00:01   et-0/0/48.0        spine1
et-0/0/1           -                   3c:8c:93:00:00:02   531                spine2
et-0/0/2:1         ae1                 b8:ce:f6:00:00:03   enp65s0f0np0       gpu31.lab.example
et-0/0/3.0         -                   b8:ce:f6:00:00:04   to gpu32 port 1    gpu32
et-0/0/4           -                   b8:ce:f6:00:00:05   enp1s0
et-0/0/5

{master:0}
user@qfx1>
"""


def test_nxos_table_wrapped_names_blank_columns_and_short_local_names():
    neighbors, issues = lldp.parse(NXOS_TABLE, "leaf3.txt")
    assert found(neighbors) == [
        ("Ethernet1/49", "spine1", "Ethernet1/3", 6),
        ("Ethernet1/50", "spine2.fabric.example.net", "Eth1/3", 7),  # the name's own line
        ("Ethernet1/1", "gpu11", None, 9),  # no capability; a MAC port ID names no port
        ("Ethernet1/2", "sonic-t1", "etp3", 10),
        ("mgmt0", "oob-sw1", "Gi1/0/7", 11),
        ("Ethernet1/7", "Onyx Switch 7", "Eth1/7", 12),  # a system name with spaces: the Device ID column
    ]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 13)] and "Eth1/9" in issues[0].message
    assert lldp.prompt_host(NXOS_TABLE) == "leaf3"


def test_nxos_detail_blocks():
    neighbors, issues = lldp.parse(NXOS_DETAIL, "leaf3-detail.txt", first_line=10)
    assert found(neighbors) == [
        ("Ethernet1/49", "spine1", "Ethernet1/3", 15),
        ("Ethernet1/1", "gpu11", "enp65s0f0np0", 28),  # a host's MAC port ID: its port description names the port
        ("Ethernet1/2", "0c42.a100.0001", None, 35),  # `not advertised` / `null`: the chassis ID stands in
    ]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 42)]


def test_ios_ordered_detail_blocks_local_interface_first():
    """IOS (and some NX-OS releases) print `Local Intf:` before `Chassis id:`, blocks between dash rules."""
    text = ("------------------------------------------------\nLocal Intf: Eth1/49\nChassis id: 5c83.8f12.3400\n"
            "Port id: Ethernet1/3\nSystem Name: spine1\n\n------------------------------------------------\n"
            "Local Intf: Eth1/50\nChassis id: 5c83.8f12.3500\nPort id: Ethernet1/3\nSystem Name: spine2\n")
    neighbors, issues = lldp.parse(text, "x.txt")
    assert issues == [] and found(neighbors) == [("Ethernet1/49", "spine1", "Ethernet1/3", 2),
                                                 ("Ethernet1/50", "spine2", "Ethernet1/3", 8)]


def test_sonic_lldp_table_cut_by_the_dash_rule():
    neighbors, issues = lldp.parse(SONIC_TABLE, "leaf5.txt")
    assert found(neighbors) == [
        ("Ethernet0", "gpu21", "enp65s0f0np0", 5),  # MAC port ID: lldpd's description is the host's interface
        ("Ethernet4", "gpu22", None, 6),  # a description that names no interface
        ("Ethernet248", "spine1", "Ethernet1/5", 7),
        ("Ethernet252", "spine2", "etp2", 8),
    ]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 9)]
    assert lldp.prompt_host(SONIC_TABLE) == "leaf5"


def test_junos_table_units_ifindex_port_ids_and_descriptions():
    neighbors, issues = lldp.parse(JUNOS_TABLE, "qfx1.txt")
    assert found(neighbors) == [
        ("et-0/0/0", "spine1", "et-0/0/48", 3),  # a logical unit's cable is its interface's
        ("et-0/0/1", "spine2", None, 4),  # 531: an ifIndex, no port name
        ("et-0/0/2:1", "gpu31.lab.example", "enp65s0f0np0", 5),
        ("et-0/0/3", "gpu32", None, 6),  # a description
        ("et-0/0/4", "b8:ce:f6:00:00:05", "enp1s0", 7),  # no system name: the chassis ID stands in
    ]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 8)]


def test_junos_table_after_the_cli_member_banner():
    """A Virtual Chassis member's CLI prints `{master:0}` on the line before each prompt, so a copied session starts
    with it (audit round 10): the table below is read as without it (before: the leading `{` read as JSON, one SYS002
    and no neighbour)."""
    neighbors, issues = lldp.parse("{master:0}\n" + JUNOS_TABLE, "qfx1.txt")
    assert [(port, device, remote, line - 1) for port, device, remote, line in found(neighbors)] == found(
        lldp.parse(JUNOS_TABLE, "qfx1.txt")[0])
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 9)]
    assert lldp.prompt_host("{master:0}\n" + JUNOS_TABLE) == "qfx1"


def test_unknown_format_from_a_topology_file_is_sys001_naming_what_is_read():
    text = "LLDP Neighbor Information:\nLocal Interface    : xe-0/0/1\n"
    neighbors, issues = lldp.parse(text, "lldp/qfx2.txt", unknown="SYS001")
    assert neighbors == [] and [(i.code, i.source.line) for i in issues] == [("SYS001", 1)]
    assert issues[0].message.startswith("lldp/qfx2.txt: no LLDP neighbour table") and "NX-OS" in issues[0].message


# Cumulus Linux NVUE `nv show interface lldp` (NVUE command reference, "nv show interface lldp"): every interface,
# a host's MAC as its remote port.
NVUE_TABLE = """cumulus@leaf07:mgmt:~$ nv show interface lldp
Interface  Speed  Type  Remote Host      Remote Port
---------  -----  ----  ---------------  -----------------
eth0       1G     eth   oob-sw1          swp12
swp1       400G   swp   gpu41            b8:ce:f6:00:41:00
swp2       400G   swp
swp31      400G   swp   spine1           swp7
swp32      400G   swp   spine2.fabric    Ethernet7
"""

# `nv show interface lldp-detail`: lldpd's text with a bare `Interface:` line.
NVUE_DETAIL = """-------------------------------------------------------------------------------
LLDP neighbors:
-------------------------------------------------------------------------------

Interface:    swp31
-------------------------------------------------------------------------------
  Time:
    0 days, 03:12:09

  Chassis:
    ChassisID:    mac 48:b0:2d:00:00:31
    SysName:      spine1
  Port:
    PortID:       ifname swp7
    PortDescr:    to leaf07
"""


def test_cumulus_nvue_table_and_detail():
    neighbors, issues = lldp.parse(NVUE_TABLE, "leaf07.txt")
    assert issues == []  # swp2: no neighbour
    assert found(neighbors) == [("eth0", "oob-sw1", "swp12", 4), ("swp1", "gpu41", None, 5),
                                ("swp31", "spine1", "swp7", 7), ("swp32", "spine2.fabric", "Ethernet7", 8)]
    assert lldp.prompt_host(NVUE_TABLE) == "leaf07"
    neighbors, issues = lldp.parse(NVUE_DETAIL, "leaf07-detail.txt")
    assert issues == [] and found(neighbors) == [("swp31", "spine1", "swp7", 5)]


def test_cumulus_nclu_tables_in_either_column_order():
    """NCLU `net show lldp` has printed RemoteHost before RemotePort and after it: columns are known by header."""
    host_first = ("LocalPort  Speed  Mode     RemoteHost  RemotePort\n"
                  "---------  -----  -------  ----------  -----------------\n"
                  "swp51      400G   Default  spine1      swp9\n"
                  "swp1       400G   Default  gpu51       b8:ce:f6:00:51:00\n")
    port_first = ("LocalPort    Speed    Mode    RemotePort    RemoteHost    Summary\n"
                  "-----------  -------  ------  ------------  ------------  ---------\n"
                  "swp51        400G     Default swp9          spine1        IP: 10.0.0.1/32\n")
    assert found(lldp.parse(host_first, "a.txt")[0]) == [("swp51", "spine1", "swp9", 3), ("swp1", "gpu51", None, 4)]
    assert found(lldp.parse(port_first, "b.txt")[0]) == [("swp51", "spine1", "swp9", 3)]
    spilled = port_first.replace("Default swp9 ", "Default-swp9 ")  # a cell across a column edge: not guessed
    assert [(i.code, i.source.line) for i in lldp.parse(spilled, "b.txt")[1]] == [("SYS002", 3)]


def test_junos_system_name_with_spaces_pushed_off_its_column_is_not_guessed():
    """A long port info pushes a system name with spaces (`Onyx Switch 7`) right of its header: where the port info
    ends is not known, so the row is a SYS002 and skipped (it gave device '7'). The same name under its header is read
    whole; a pushed name of one word is still the last word; words all left of the column are no system name."""
    head = "Local Interface    Parent Interface    Chassis Id          Port info          System Name\n"
    col = head.index("System Name")
    rows = ["et-0/0/6           -                   3c:8c:93:00:00:07   Eth1/7-long-port-info Onyx Switch 7",
            "et-0/0/7           -                   3c:8c:93:00:00:08   Eth1/8".ljust(col) + "Onyx Switch 8",
            "et-0/0/8           -                   3c:8c:93:00:00:09   Eth1/9-long-port-info spine9",
            "et-0/0/9           -                   3c:8c:93:00:00:0a   to gpu33 port 1"]
    neighbors, issues = lldp.parse("user@qfx1> show lldp neighbors\n" + head + "\n".join(rows) + "\n", "qfx1.txt")
    assert found(neighbors) == [("et-0/0/7", "Onyx Switch 8", "Eth1/8", 4),
                                ("et-0/0/8", "spine9", "Eth1/9-long-port-info", 5),
                                ("et-0/0/9", "3c:8c:93:00:00:0a", None, 6)]  # a description, no system name
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 3)]
    assert "Onyx Switch 7" in issues[0].message and "row skipped" in issues[0].message


# IOS `show lldp neighbors INTERFACE detail`, run per interface (a collector's loop): the releases that print no
# `Local Intf:` line leave the interface to the command in the prompt line (Cisco IOS LLDP configuration guide's
# detail fields: Chassis id, Port id, Port Description, System Name, Time remaining, capabilities).
IOS_PER_INTERFACE = """sw-leaf7#show lldp neighbors Te1/0/49 detail
------------------------------------------------
Chassis id: 5c83.8f12.3400
Port id: Eth1/3
Port Description: Ethernet1/3
System Name: spine1

System Description:
Cisco Nexus Operating System (NX-OS) Software 10.3(4a)

Time remaining: 101 seconds
System Capabilities: B,R
Enabled Capabilities: B,R

Total entries displayed: 1

sw-leaf7#show lldp neighbors TenGigabitEthernet1/0/1 detail
------------------------------------------------
Chassis id: b8ce.f6e4.7100
Port id: b8ce.f6e4.7100
Port Description: enp65s0f0np0
System Name: gpu11

Total entries displayed: 1

sw-leaf7#show lldp neighbors
Chassis id: 0c42.a100.0009
Port id: Eth1/9
System Name: spine9
"""


def test_per_interface_detail_takes_the_local_port_from_the_command():
    """IOS prints no local port in a per-interface detail: the prompt line's command names it, and a block no command
    names is skipped with why (it was the whole output refused: `no LLDP neighbour table`)."""
    neighbors, issues = lldp.parse(IOS_PER_INTERFACE, "sw-leaf7.txt")
    assert found(neighbors) == [("Te1/0/49", "spine1", "Eth1/3", 3),
                                ("TenGigabitEthernet1/0/1", "gpu11", "enp65s0f0np0", 19)]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 27)]
    assert "names no local interface" in issues[0].message and "show lldp neighbors Gi1/0/1 detail" in issues[0].message
    assert lldp.prompt_host(IOS_PER_INTERFACE) == "sw-leaf7"
    # typed short or in two words, as the CLI takes it: the port as the configs spell it (`eth1` was read as a port
    # no device has, and topology dropped the neighbour)
    block = "Chassis id: 5c83.8f12.3400\nPort id: etp49\nSystem Name: leaf1\n"
    for typed, port in (("eth1", "Ethernet1"), ("Eth1", "Ethernet1"), ("ethernet 1/1", "Ethernet1/1"),
                        ("Ethernet1", "Ethernet1"), ("Te1/0/49", "Te1/0/49")):
        neighbors, issues = lldp.parse(f"spine1# show lldp neighbors interface {typed} detail\n{block}", "s.txt")
        assert (found(neighbors), issues) == ([(port, "leaf1", "etp49", 2)], []), typed
    # old IOS's whole-device detail (no Local Intf line at all) is read as such, each block a SYS002, not one SYS001
    whole = IOS_PER_INTERFACE.split("\n", 1)[1]
    assert lldp.parse(whole, "x.txt")[1][0].code == "SYS002"


def test_command_port_gives_the_interface_words_as_typed():
    """The words only: `e1/10` is NX-OS's Ethernet1/10 and no other platform's, so its reader spells them."""
    assert [lldp.command_port(c) for c in (
        "show lldp neighbors interface ethernet 1/10 detail", "sh lldp nei int e1/10 det",
        "show lldp neighbors interface Ethernet1/10 detail", "show lldp neighbors Et5 detail",
        "show lldp neighbors Gi1/0/1 detail", "show lldp neighbors detail", "show lldp neighbors Eth1/1",
        "show lldp neighbors interface detail")] == [
        ["ethernet", "1/10"], ["e1/10"], ["Ethernet1/10"], ["Et5"], ["Gi1/0/1"], None, None, None]


def test_nxos_spells_a_per_interface_command_port_as_its_interface_lines_do():
    """NX-OS's `interface` line reader names the port (its spellings); a range names no one port, another interface
    is as typed (`mgmt0`), short names long (`Po10`)."""
    from losslessd.parse.nxos import _command_port

    assert [_command_port(f"show lldp neighbors interface {typed} detail") for typed in (
        "ethernet 1/10", "e1/10", "ETH1/10", "Ethernet1/1/2", "ethernet 1/1-4", "ethernet 1/4-1", "ethernet 1/1-2/4",
        "mgmt0", "Po10", "po10")] == ["Ethernet1/10", "Ethernet1/10", "Ethernet1/10", "Ethernet1/1/2", None, None,
                                      None, "mgmt0", "Port-Channel10", "Port-Channel10"]


def test_nxos_capture_reads_lldp_sections_and_port_channel_members(tmp_path):
    """An NX-OS capture's `show lldp neighbors` (collected, and was not read), its per-interface detail sections,
    and `show port-channel summary`: the members up in each port-channel (Device.bundle_members)."""
    config = Path("tests/fixtures/raw/cisco_nxos/roce-capture.txt").read_text()
    capture = config + """#% command: show lldp neighbors
Capability codes:
  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other
Device ID            Local Intf      Hold-time  Capability  Port ID
spine1               Eth1/49         120        BR          Ethernet1/4
Total entries displayed: 1
#% command: show lldp neighbors interface ethernet 1/50 detail
Chassis id: 5c83.8f12.3500
Port id: Ethernet1/4
System Name: spine2
Time remaining: 101 seconds
#% command: show port-channel summary
Flags:  D - Down        P - Up in port-channel (members)
        I - Individual  H - Hot-standby (LACP only)
        s - Suspended   r - Module-removed
        b - BFD Session Wait
        S - Switched    R - Routed
        U - Up (port-channel)
        p - Up in delay-lacp mode (member)
        M - Not in use. Min-links not met
--------------------------------------------------------------------------------
Group Port-       Type     Protocol  Member Ports
      Channel
--------------------------------------------------------------------------------
10    Po10(RU)    Eth      LACP      Eth1/51(P)   Eth1/52(D)   Eth1/53(p)
                                     Eth1/54(P)
20    Po20(SD)    Eth      LACP      Eth1/55(s)
30    Po30(SD)    Eth      NONE      --
40    Po40        Eth      LACP      Eth1/56(P)
"""
    path = tmp_path / "nx-leaf4.txt"
    path.write_text(capture)
    device = load_fabric([path]).devices["nx-leaf4"]
    assert [(n.port, n.remote_device, n.remote_port) for n in device.neighbors] == [
        ("Ethernet1/49", "spine1", "Ethernet1/4"), ("Ethernet1/50", "spine2", "Ethernet1/4")]
    assert device.bundle_members == {"port-channel10": ["Ethernet1/51", "Ethernet1/53", "Ethernet1/54"],
                                     "port-channel20": [], "port-channel30": []}
    line = capture.splitlines().index("40    Po40        Eth      LACP      Eth1/56(P)") + 1
    assert [(i.code, i.source.line) for i in device.issues if i.code == "SYS002"] == [("SYS002", line)]
    # `feature lldp` off: the optional command refused, as a pull saves it, is no LLDP output to complain about
    path.write_text(config + "#% command: show lldp neighbors\n% Invalid command at '^' marker.\n"
                    "#% command: show port-channel summary\n% Invalid command at '^' marker.\n")
    device = load_fabric([path]).devices["nx-leaf4"]
    assert device.neighbors == [] and device.bundle_members is None
    assert not [i for i in device.issues if "LLDP" in i.message or "port-channel" in i.message]
    # NX-OS takes the interface typed short (`e1/50`, `eth 1/50`): the neighbour is on Ethernet1/50 all the same
    for typed in ("e1/50", "eth 1/50", "ETHERNET1/50"):
        path.write_text(capture.replace("interface ethernet 1/50 detail", f"int {typed} det"))
        device = load_fabric([path]).devices["nx-leaf4"]
        assert [n.port for n in device.neighbors] == ["Ethernet1/49", "Ethernet1/50"], typed
    # a per-interface command answered, then given again and refused: the answer is what is known
    path.write_text(capture + "#% command: show lldp neighbors interface ethernet 1/50 detail\n"
                    "% Permission denied for the role\n")
    device = load_fabric([path]).devices["nx-leaf4"]
    assert [(n.port, n.remote_device) for n in device.neighbors] == [("Ethernet1/49", "spine1"),
                                                                      ("Ethernet1/50", "spine2")]


def test_a_refused_optional_lldp_command_is_no_lldp_output_on_every_platform(tmp_path):
    """EOS, NVUE and host captures whose optional LLDP command the device refused (as `pull` saves it: EOS's `%
    Invalid input`, a Cumulus switch or a host without lldpcli) read as no LLDP table, not as a table of no format
    (a false SYS002); an answered section of the same command before it is read. A refused required command stays an
    error."""
    from losslessd.errors import InputError
    from losslessd.parse import eos
    from losslessd.parse.base import Input

    eos_text = Path("examples/fabric/leaf2.capture").read_text()
    lldp_at = eos_text.index("#% command: show lldp neighbors")
    nvue_text = Path("tests/fixtures/raw/nvidia_cumulus/leaf-capture.cfg").read_text()
    refused = {"leaf2.capture": eos_text[:lldp_at] + "#% command: show lldp neighbors\n% Invalid input (privileged "
                                "mode required)\n",
               "leaf04.cfg": nvue_text[:nvue_text.index("#% command: lldpcli")] + (
                   "#% command: lldpcli show neighbors -f keyvalue\n-bash: lldpcli: command not found\n")}
    host_text = Path("examples/fabric/gpu01.capture").read_text()
    refused["gpu01.capture"] = host_text[:host_text.index("#% command: lldpcli")] + (
        "#% command: lldpcli show neighbors -f keyvalue\n-bash: lldpcli: command not found\n")
    for name, text in refused.items():
        (tmp_path / name).write_text(text)
    fabric = load_fabric([tmp_path / name for name in refused])
    assert sorted(fabric.devices) == ["gpu01", "leaf04", "leaf2"]
    for device in fabric.devices.values():
        assert device.neighbors == [] and not [i for i in device.issues if "LLDP" in i.message], device.name
    # the answered table, then the same command refused: the answer is what is known
    (tmp_path / "leaf2.capture").write_text(eos_text + "#% command: show lldp neighbors\n% Invalid input\n")
    leaf2 = load_fabric([tmp_path / "leaf2.capture"]).devices["leaf2"]
    assert [n.remote_device for n in leaf2.neighbors] == ["gpu05", "gpu06", "spine1", "oob-sw1"]
    config_at = eos_text.index("#% command: show running-config")
    with pytest.raises(InputError, match="EOS running-config"):
        eos.parse([Input("leaf2.capture", eos_text[:config_at] + "#% command: show running-config\n% Invalid input\n"
                         + eos_text[lldp_at:])], "leaf2")
