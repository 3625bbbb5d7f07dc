"""Dell Networking OS9 (FTOS) running-config parser: a hand-written DCB ToR after Dell's documented DCB map example,
targeted snippets, and detection against every other reader's fixtures."""

from __future__ import annotations

import pytest

from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.model import Trust
from losslessd.parse import dell_os9, detect, read_input
from losslessd.parse.base import Input
from tests.clirun import losslessd
from tests.conftest import FIXTURES, ROOT

RAW = FIXTURES / "raw" / "dell_os9"
HEADER = "! Version 9.14(2.4)\n! Startup-config last updated at Sun Nov 29 10:00:03 2026 by admin\n"


def parse(text: str):
    return dell_os9.parse([Input("sw1.cfg", text)], "sw1")


def fixture():
    return dell_os9.parse([Input("roce-tor.cfg", (RAW / "roce-tor.cfg").read_text(encoding="utf-8"))], "roce-tor")


def line_of(text: str, wanted: str, after: str | None = None) -> int:
    lines = [line.strip() for line in text.split("\n")]
    start = lines.index(after) if after else 0
    return lines.index(wanted, start) + 1


def test_dcb_map_gives_pfc_on_the_priorities_of_its_pfc_groups():
    """OS9 Configuration Guide, DCB maps: `priority-pgid 0 0 0 1 0 0 0 0` puts dot1p 3 alone in priority group 1,
    whose `pfc on` makes priority 3 lossless."""
    text = (RAW / "roce-tor.cfg").read_text(encoding="utf-8")
    device = fixture()
    assert device.name == "os9-tor1" and device.platform == "dell_os9"
    # front-panel ports by OS9's own names; not the management port or the VLAN
    assert sorted(device.ports) == ["TenGigabitEthernet 1/1", "TenGigabitEthernet 1/2", "TenGigabitEthernet 1/3",
                                    "TenGigabitEthernet 1/4", "fortyGigE 1/49"]
    port = device.ports["TenGigabitEthernet 1/1"]
    assert port.pfc_enabled == [3] and port.tc_to_priority == {3: 3} and port.qos_configured
    assert port.pfc_source.line == line_of(text, "dcb-map ROCE-MAP", after="interface TenGigabitEthernet 1/1")
    assert port.trust == Trust.pcp and port.dscp_chain(26).tc is None  # DCB is by 802.1p; DSCP maps are not read
    assert port.pcp_to_tc[3] == 3 and port.tc_to_queue is None  # the dot1p -> queue table is the model's own
    assert (port.mtu_bytes, port.admin_up, port.description) == (9216, True, "host1 storage")
    assert port.priority_groups[3].runtime_profile
    assert device.ports["fortyGigE 1/49"].admin_up is False


def test_no_dcb_map_means_no_pfc_and_an_undefined_map_is_unknown():
    """OS9 Configuration Guide: no default PFC and ETS settings are applied to Ethernet interfaces."""
    text = (RAW / "roce-tor.cfg").read_text(encoding="utf-8")
    device = fixture()
    assert device.ports["TenGigabitEthernet 1/3"].pfc_enabled == []
    assert device.ports["TenGigabitEthernet 1/4"].pfc_enabled is None
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", line_of(text, "dcb-map NO-SUCH-MAP"))]


def test_link_pause_beside_pfc_is_pfc003():
    result = lint([RAW / "roce-tor.cfg"], ROOT / "tests" / "realworld" / "cisco_nxos" / "policy-storage-cos3.yaml")
    errors = {(f.code, f.port) for f in result.findings if f.severity.value == "error"}
    assert errors == {("PFC003", "TenGigabitEthernet 1/2")}
    port = result.fabric.devices["os9-tor1"].ports["TenGigabitEthernet 1/2"]
    assert (port.link_pause.rx, port.link_pause.tx) == (True, False)


def test_a_map_without_priority_pgid_reverts_to_no_pfc():
    """OS9 Configuration Guide: without the dot1p-to-priority-group mapping PFC and ETS revert to their defaults."""
    text = HEADER + ("dcb-map M\n priority-group 0 bandwidth 100 pfc on\ninterface TenGigabitEthernet 0/1\n"
                     " dcb-map M\n")
    assert parse(text).ports["TenGigabitEthernet 0/1"].pfc_enabled == []


def test_two_lossless_priorities_in_strict_and_weighted_groups():
    text = HEADER + ("dcb-map M\n priority-group 0 bandwidth 60 pfc off\n priority-group 1 bandwidth 40 pfc on\n"
                     " priority-group 2 strict-priority pfc on\n priority-pgid 0 0 0 1 2 0 0 0\n"
                     "interface fortyGigE 0/48\n dcb-map M\n")
    assert parse(text).ports["fortyGigE 0/48"].pfc_enabled == [3, 4]


@pytest.mark.parametrize("line", ["priority-group 8 bandwidth 50 pfc on", "priority-group 1 bandwidth 0 pfc on",
                                  "priority-group 1 bandwidth 50 pfc maybe", "priority-pgid 0 0 0 1",
                                  "priority-pgid 0 0 0 9 0 0 0 0", "bandwidth 50"])
def test_garbled_dcb_map_lines_are_sys002(line):
    device = parse(HEADER + f"dcb-map M\n {line}\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4)]


@pytest.mark.parametrize("line", ["pfc priority 3", "dcb-policy input pfc", "flowcontrol rx on", "ip mtu 99999",
                                  "dcb-map"])
def test_what_cannot_be_read_on_a_port_is_sys002(line):
    device = parse(HEADER + f"interface TenGigabitEthernet 0/1\n {line}\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4)]


@pytest.mark.parametrize("text, line", [("", 1), ("\n{\n", 2), ("just words\n", 1)])
def test_not_os9_raises_input_error_with_file_and_line(text, line):
    with pytest.raises(InputError) as err:
        parse(text)
    assert err.value.file == "sw1.cfg" and err.value.line == line


@pytest.mark.parametrize("text, platform", [
    (HEADER + "hostname s1\n", "dell_os9"),
    ("interface TenGigabitEthernet 0/1\n dcb-map M\n!\ndcb-map M\n priority-pgid 0 0 0 1 0 0 0 0\n", "dell_os9"),
    ("interface TenGigabitEthernet 0/1\n no shutdown\n", None),  # an OS9 port name alone is no proof
    ("interface TenGigabitEthernet1/0/1\n dcb-map M\n", None),  # Cisco IOS spells the port without the blank
    ("interface te 1/1\ndcb-map M\n", "dell_os9"),  # typed as OS9 takes it (audit round 15)
    ("interface ethernet 1/1\ndcb-map M\n", None),  # no OS9 port type
    ("! Version 10.5.1.0\n! Last configuration change at Nov  29 10:00:03 2026\n", "dell_os10"),
    # round 20: a configuration saved without its time stamps (Dell's JetPack S4048-ON and Z9100-ON samples), a
    # patch build with a letter, ports split in four (unit/port/subport); the version line alone is no proof
    ("! Version 9.11(0.0P2)\n!\nhostname s1\n!\ninterface TenGigabitEthernet 1/1\n no shutdown\n", "dell_os9"),
    ("! Version 9.11(2.4)\n!\ninterface twentyFiveGigE 1/1/1\n no shutdown\n", "dell_os9"),
    ("interface twentyFiveGigE 1/1/1\n dcb-map M\n", "dell_os9"),
    ("! Version 9.11(2.4)\n!\nhostname s1\n", None),
    ("! Version 10.5.1.0\n!\ninterface ethernet1/1/1\n no shutdown\n", "dell_os10"),
    # round 23: a session with OS9's prompts, CONFIGURATION mode `(conf)` with a port's or a DCB map's mode
    ("sw(conf)#interface TenGigabitEthernet 1/5\nsw(conf-if-te-1/5)#dcb-map M\n", "dell_os9"),
    ("s5000(conf)#dcb-map M\ns5000(conf-dcbmap-M)#priority-pgid 0 0 0 1 0 0 0 0\n", "dell_os9"),
    # Brocade Network OS names a port's mode so too, under `(config)#`: no OS9 session
    ("RB-7(config)# interface tengigabitethernet 7/0/1\nRB-7(conf-if-te-7/0/1)# switchport\n", None),
])
def test_detection(text, platform):
    assert detect(Input("x.cfg", text)) == platform


@pytest.mark.parametrize("typed, name", [
    ("te 0/1", "TenGigabitEthernet 0/1"), ("tengigabitethernet 0/1", "TenGigabitEthernet 0/1"),
    ("TENGIG 0/1", "TenGigabitEthernet 0/1"), ("Fo 0/48", "fortyGigE 0/48"), ("hu 1/1", "hundredGigE 1/1"),
    ("tw 1/1/1", "twentyFiveGigE 1/1/1"), ("gi 0/0", "GigabitEthernet 0/0"),
])
def test_a_port_type_typed_in_any_case_or_abbreviated_is_the_port(typed, name):
    """OS9 takes an interface type in any case and abbreviated to a unique prefix and prints it in full (`show
    running-config interface te 0/4` prints `interface TenGigabitEthernet 0/4`); audit round 15: `interface te 1/1`,
    as a test tool types it, was passed over without a word and its DCB map with it."""
    device = parse(f"interface {typed}\n dcb-map M\n!\ndcb-map M\n priority-group 1 bandwidth 50 pfc on\n"
                   " priority-group 0 bandwidth 50 pfc off\n priority-pgid 0 0 0 1 0 0 0 0\n")
    assert list(device.ports) == [name] and device.ports[name].pfc_enabled == [3] and device.issues == []


@pytest.mark.parametrize("typed", ["t 0/1", "te0/1", "TenGigabitEthernet0/1", "bogus 0/1"])
def test_a_port_whose_type_is_not_told_is_named_not_passed_over(typed):
    """A prefix of two types (`t`: TenGigabitEthernet, twentyFiveGigE), the type joined to its number, or no type:
    which port is unknown, so the line is a SYS002 and nothing under it is read."""
    device = parse(f"interface {typed}\n dcb-map M\n!\ninterface vlan 10\n!\ninterface managementethernet 0/0\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 1)] and not device.ports


def test_no_other_platforms_file_is_taken_for_os9():
    others = [p for p in (FIXTURES / "raw").rglob("*") if p.is_file() and "dell_os9" not in p.parts]
    others += [p for p in (ROOT / "examples").rglob("*") if p.is_file() and p.stat().st_size < 4_000_000]
    assert [str(p) for p in others if dell_os9.sniff(Input(p.name, p.read_text(encoding="utf-8", errors="replace")))] \
        == []
    assert detect(read_input(RAW / "roce-tor.cfg")) == "dell_os9"


def test_render_is_refused():
    res = losslessd("render", "--platform", "dell_os9", "--policy", "roce-dscp26", "--ports", "x:100G:5m")
    assert res.returncode == 2 and "dell_os9 has no render" in " ".join(res.stderr.split())


def test_a_config_cut_inside_a_block_is_truncated_and_one_closed_by_end_is_not():
    """OS9 closes a running-config with `end` at the margin: a block is never last in a whole file."""
    whole = (RAW / "roce-tor.cfg").read_text(encoding="utf-8")
    cut = whole[:whole.index(" ip mtu 9216", whole.index("interface TenGigabitEthernet 1/2"))] + " ip mt"
    issues = [(i.code, i.source.line) for i in parse(cut).issues if "truncated" in i.message]
    assert issues == [("SYS002", cut.count("\n") + 1)]
    assert not [i for i in parse(whole.rstrip("\n")).issues if "truncated" in i.message]  # `end`, no line end


def test_a_paste_with_its_indentation_lost_is_read_in_the_modes_os9_enters():
    """The OS9 Configuration Guide's DCB map procedure at the margin (tests/realworld/dell_os9/flat-paste-dcb-map.cfg):
    each port's `dcb-map` was read as a new, empty global map, so no port had PFC and nothing was checked. Read as OS9
    reads a paste: the map's lines are the map's, `dcb-map NAME` after `interface` is the port's (INTERFACE mode takes
    it), `protocol lldp` opens a sub-mode `exit` leaves, and a global command (`policy-map-input`) ends a port."""
    path = ROOT / "tests" / "realworld" / "dell_os9" / "flat-paste-dcb-map.cfg"
    text = path.read_text(encoding="utf-8")
    device = dell_os9.parse([Input(str(path), text)], "os9")
    assert detect(Input(str(path), text)) == "dell_os9" and not device.issues
    one, two, three = (device.ports[f"TenGigabitEthernet 0/{n}"] for n in (1, 2, 3))
    # priority-pgid 0 0 0 1 2 4 4 4: dot1p 3 in PG 1, dot1p 4 in PG 2, both `pfc on`
    assert one.pfc_enabled == two.pfc_enabled == [3, 4] and three.pfc_enabled == []
    assert one.pfc_source.line == line_of(text, "dcb-map SAN_A_dcb_map1", after="advertise dcbx-tlv ets-conf pfc")
    assert (one.mtu_bytes, one.admin_up, two.mtu_bytes, three.description) == (9216, True, 9216, "office")
    assert one.trust == Trust.pcp  # the global `service-class dynamic dot1p`


def test_a_running_config_and_a_priority_group_name_are_not_re_nested():
    """An indented running-config is read as printed; `priority-group NAME` (the older DCB policies' CONFIGURATION
    command) after a map's lines leaves the map, `priority-group N ...` with a number is the map's."""
    from losslessd.parse.dell_os9 import flat
    text = (RAW / "roce-tor.cfg").read_text(encoding="utf-8")
    assert flat.renest(text) == text
    paste = "dcb-map M\npriority-group 1 bandwidth 50 pfc on\npriority-group SAN\npriority-list 3\ninterface Te 0/1\n"
    assert flat.renest(paste).split("\n") == ["dcb-map M", " priority-group 1 bandwidth 50 pfc on",
                                              "priority-group SAN", " priority-list 3", "interface Te 0/1", ""]


@pytest.mark.parametrize("group_line,enabled", [
    ("priority-group 1 bandwidth 50 pfc on", [3]),
    ("priority-group 1 bandwidth 50 pfc", None),
    ("priority-group 1 bandwith 50 pfc on", None),
])
def test_a_dcb_map_line_not_read_leaves_the_ports_pfc_unknown(group_line, enabled):
    """OS9 Configuration Guide, "DCB Map: Configuration Procedure": `priority-group N {bandwidth P | strict-priority}
    pfc {on | off}`. A map line not read may be the group's `pfc on`: the ports the map is applied to read PFC unknown;
    they read "PFC off" (a PFC001 error)."""
    text = HEADER + ("dcb-map RDMA\n priority-group 0 bandwidth 50 pfc off\n"
                     f" {group_line}\n priority-pgid 0 0 0 1 0 0 0 0\n!\n"
                     "interface TenGigabitEthernet 0/1\n no ip address\n switchport\n dcb-map RDMA\n no shutdown\n")
    device = parse(text)
    assert device.ports["TenGigabitEthernet 0/1"].pfc_enabled == enabled
    assert [(i.code, i.source.line) for i in device.issues] == ([] if enabled else [("SYS002", 5)])


@pytest.mark.parametrize("group_line", ["priority group 0 bandwidth 90 pfc on", "priority-grp 0 bandwidth 90 pfc on"])
def test_a_garbled_map_line_of_a_flat_paste_stays_in_the_map(group_line):
    """Audit round 19: a converged-NIC switch guide's S4810 block, at the margin, writes `priority group 0 bandwidth
    90 pfc on` (a blank for the hyphen). It left the map for CONFIGURATION mode and was passed over there without a
    word: the ports read "PFC off" (PFC001) while the indented form of the same map read unknown with a SYS002. A
    `priority...` line no CONFIGURATION command is stays the map's, as the switch refuses it there."""
    text = (f"dcb-map SMB\n{group_line}\npriority-group 1 bandwidth 10 pfc off\npriority-pgid 1 1 1 0 1 1 1 1\n"
            "exit\ninterface TenGigabitEthernet 0/1\ndcb-map SMB\nexit\n")
    device = parse(text)
    assert device.ports["TenGigabitEthernet 0/1"].pfc_enabled is None
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 2)]


@pytest.mark.parametrize("head, ports", [
    ("interface range ten 0/0-3", ["TenGigabitEthernet 0/0", "TenGigabitEthernet 0/1", "TenGigabitEthernet 0/2",
                                    "TenGigabitEthernet 0/3"]),
    ("interface range tengigabitethernet 0/2 - 3 , tengigabitethernet 0/8",
     ["TenGigabitEthernet 0/2", "TenGigabitEthernet 0/3", "TenGigabitEthernet 0/8"]),
    ("interface range fortyGigE 1/1/1-1/1/2", ["fortyGigE 1/1/1", "fortyGigE 1/1/2"]),
    ("interface range tengigabitethernet 0/5 - 6 , vlan 1", None),  # a VLAN among them: not read, named
    ("interface range ten 0/9-4", None),  # backwards
])
def test_an_interface_range_of_a_session_gives_each_port_its_lines(head, ports):
    """Audit round 19: a converged-NIC switch guide's S4810 block applies its DCB map with `interface range ten
    0/0-31`; the range was a SYS002, no port was read, and the file was not even taken for OS9 (exit 2, "cannot tell
    which platform"). OS9 sessions as switches print them (`interface range tengigabitethernet 0/9-10` entering
    `(conf-if-range-te-0/9-10)`, `0/2 - 4`, comma lists): each port named takes the lines under the range."""
    text = ("dcb-map SMB\npriority-group 0 bandwidth 90 pfc off\npriority-group 1 bandwidth 10 pfc on\n"
            f"priority-pgid 0 0 0 1 0 0 0 0\nexit\n{head}\ndcb-map SMB\nno shutdown\nexit\n")
    assert detect(Input("s4810.cfg", text)) == "dell_os9"
    device = parse(text)
    assert sorted(device.ports) == sorted(ports or [])
    assert all(p.pfc_enabled == [3] and p.pfc_source.line == 7 for p in device.ports.values())
    assert [(i.code, i.source.line) for i in device.issues] == ([] if ports else [("SYS002", 6)])


@pytest.mark.parametrize("head, item", [
    ("interface range tengigabitethernet 0/5 - 6 , vlan 1", "vlan 1"),
    ("interface range port-channel 1 , tengigabitethernet 0/5", "port-channel 1"),
    ("interface range te 0/1 , te 0/2 , vlan 10 - 12", "vlan 10 - 12"),
])
def test_a_range_with_a_vlan_or_port_channel_item_names_that_item(head, item):
    """A range holding a VLAN or port-channel item was refused as "cannot tell which ports this range names"; no OS9
    reference read says what the lines under such a range do to its front-panel items. Still not read, the item is
    named."""
    device = parse(f"{head}\n dcb-map SMB\n no shutdown\n!\n")
    assert not device.ports
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 1)]
    assert f"`{item}` is no front-panel port or range of them" in device.issues[0].message


def test_two_host_names_are_refused_at_the_second():
    """Two running-configs pasted into one file: refused at the `hostname` naming the second switch."""
    text = HEADER + ("hostname tor1\ninterface TenGigabitEthernet 1/1\n mtu 9216\n!\n"
                     "hostname tor2\ninterface TenGigabitEthernet 1/2\n mtu 9216\n!\n")
    with pytest.raises(InputError, match="several switches") as err:
        parse(text)
    assert err.value.line == 7


def test_a_sub_mode_the_reader_does_not_know_is_no_wrapped_line():
    """Session 36 part c: the wrapped-line check named the lines of every interface sub-mode missing from the reader's
    hand-kept list, a SYS002 on a clean file: `vrrp-ipv6-group 1` (FTOS Configuration Guide, VRRP version 3: like
    `vrrp-group` it moves from INTERFACE mode to a VRRP sub-mode) was one. A line under a command the reader reads
    (`description`) is still a wrapped piece of it."""
    text = HEADER + ("interface TenGigabitEthernet 1/1\n no ip address\n vrrp-ipv6-group 1\n  priority 110\n"
                     "  virtual-address fe80::1\n description gpu01\n  mlx5_0\n no shutdown\n!\nend\n")
    device = parse(text)
    named = [i.source.line for i in device.issues if "opens no mode" in i.message]
    assert named == [text.split("\n").index("  mlx5_0") + 1], device.issues


def test_a_dcb_line_under_an_interface_of_another_type_is_named_not_passed_over():
    """losslessd reads DCB on the OS9 Configuration Guide's Ethernet port types; an `interface fiftyGigE 1/2/1` or
    `interface Port-channel 10` block carrying `dcb-map` was passed over with its whole block without a word (session
    36's leftover): the map's PFC went unchecked there and the report did not say so. Such a block is now a SYS002 at
    its `interface` line; a loopback or VLAN block without a DCB line stays unremarked."""
    path = ROOT / "tests" / "realworld" / "dell_os9" / "dcb-map-on-other-interface-types.cfg"
    dev = parse(path.read_text(encoding="utf-8"))
    assert sorted(dev.ports) == ["hundredGigE 1/1"]
    named = sorted((i.source.line, i.message) for i in dev.issues if i.code == "SYS002")
    assert [line for line, _ in named] == [20, 27]
    assert "fiftyGigE 1/2/1 carries `dcb-map STORAGE` (line 24)" in named[0][1]
    assert "port-channel 10 carries `dcb-map STORAGE` (line 30)" in named[1][1]


def test_an_indented_interface_line_opens_its_own_interface():
    """`interface` is a CONFIGURATION mode command (OS9 Command Line Reference), run whatever its leading blanks: a
    VLAN's ` interface Vlan 102` / ` no shutdown` inside a shut port's block set the port up, and a port's block
    indented after another's merged into it (audit round 16: sonic-mgmt's S6100 fanout template)."""
    path = ROOT / "tests" / "realworld" / "dell_os9" / "fanout-vlan-lines-inside-ports.cfg"
    dev = parse(path.read_text(encoding="utf-8"))
    assert sorted(dev.ports) == ["fortyGigE 1/1/1", "fortyGigE 1/1/2", "fortyGigE 1/1/3"]
    assert [dev.ports[p].admin_up for p in sorted(dev.ports)] == [True, False, True]
    assert dev.ports["fortyGigE 1/1/2"].pfc_enabled == [3] and dev.ports["fortyGigE 1/1/3"].pfc_enabled == [4]


@pytest.mark.parametrize("head", ["interface fortyGigE 1/1-1/4", "interface fortyGigE 1/1 - 1/4",
                                  "interface TenGigabitEthernet 0/1,0/2", "interface fortyGigE 1/x"])
def test_a_port_line_naming_no_single_port_is_named_with_its_dcb_map(head):
    """OS9 Configuration Guide, "Interfaces": a port is `interface TYPE unit/port` (a range is `interface range`).
    `interface fortyGigE 1/1-1/4` with a `dcb-map` under it was passed over without a word."""
    text = f"hostname sw1\ndcb-map ROCE\n priority-pgid 0 0 0 1 0 0 0 0\n{head}\n dcb-map ROCE\n"
    device = parse(text)
    assert device.ports == {}
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4)]


def test_layer3_ports_are_untagged_unless_a_lite_subinterface():
    """OS9 Configuration Guide, "Interfaces": `no switchport` takes a port out of Layer 2 mode and an `ip address` puts
    it in Layer 3 mode (OS9 prints `no ip address` on every port without one, which is no address); OS9 Command Line
    Reference, `encapsulation dot1q`: a lite subinterface routes frames tagged with its VLAN. So a Layer 3 port is
    untagged (Port.vlans []) except a lite subinterface (None, as a switchport and a port in neither mode). Before:
    every port None."""
    device = parse(HEADER + "\n".join([
        "interface TenGigabitEthernet 1/1", " no ip address", " switchport", " no shutdown", "!",
        "interface TenGigabitEthernet 1/2", " ip address 192.0.2.0/31", " no shutdown", "!",
        "interface TenGigabitEthernet 1/3", " ip address 192.0.2.2/31", " encapsulation dot1q 100", "!",
        "interface TenGigabitEthernet 1/4", " no ip address", " no shutdown", "!",
        "interface TenGigabitEthernet 1/5", " no switchport", " ipv6 address 2001:db8::/127", ""]))
    assert device.issues == []
    assert [port.vlans for port in device.ports.values()] == [None, [], None, None, []]


def test_link_mtu_gives_the_ip_mtu_where_the_frames_overhead_is_known():
    """OS9 Command Line Reference, `mtu`: since 9.2(0.2) `ip mtu` is not taken and the IP MTU is computed from the link
    MTU; the Layer 2 overhead between them is 18 bytes untagged, 22 with a VLAN tag. So `mtu 9216` on a routed port is
    an IP MTU of 9198, on a lite subinterface (tagged) 9194; on a switched port, whose tagging is not read, unknown; an
    `ip mtu` line (releases before 9.2) is the IP MTU itself. Before: only `ip mtu` was read, so a 9.2+ config, which
    cannot hold one, had no MTU on any port (LNK002 and PTH003 could not compare)."""
    device = parse(HEADER + "\n".join([
        "interface TenGigabitEthernet 1/1", " ip address 192.0.2.0/31", " mtu 9216", "!",
        "interface TenGigabitEthernet 1/2", " ip address 192.0.2.2/31", " encapsulation dot1q 100", " mtu 9216", "!",
        "interface TenGigabitEthernet 1/3", " no ip address", " mtu 9216", "!",
        "interface TenGigabitEthernet 1/4", " ip address 192.0.2.4/31", " mtu 9216", " ip mtu 9000", "!",
        "interface TenGigabitEthernet 1/5", " no switchport", " mtu 9252", ""]))
    assert device.issues == []
    assert [port.mtu_bytes for port in device.ports.values()] == [9198, 9194, None, 9000, 9234]


def test_the_link_mtu_floor_is_the_lower_of_the_platform_guides():
    """The S4048-ON Administrator Guide ("Configure the MTU Size on an Interface") takes `mtu` from 592 bytes, the
    C9000 Series Command Line Reference (`mtu`) from 594; the config does not name its platform, so 592 is read.
    Before: `mtu 592` on an S4048-ON was SYS002 and its MTU unknown."""
    device = parse(HEADER + "interface TenGigabitEthernet 0/1\n ip address 192.0.2.0/31\n mtu 592\n")
    assert device.issues == []
    assert device.ports["TenGigabitEthernet 0/1"].mtu_bytes == 592 - 18


def test_the_link_mtu_ceiling_is_the_higher_of_the_platform_guides():
    """Round 23: the FN I/O Aggregator Configuration Guide 9.6 prints a port's default configuration with `mtu 12000`
    (`show running-config interface te 0/4`), and the S5000 and MXL Command Line References take `mtu` up to 12000:
    it was SYS002 ("must be 592-9252") and the port's MTU unknown. The IP MTU computed from it stops at 9234, the
    largest `ip mtu` (S4810 Configuration Guide: a link MTU of 12000 bytes and a maximum IP MTU of 9234 bytes)."""
    device = parse(HEADER + "interface TenGigabitEthernet 0/4\n mtu 12000\n portmode hybrid\n!\n"
                   "interface TenGigabitEthernet 0/5\n ip address 192.0.2.0/31\n mtu 12000\n!\n"
                   "interface TenGigabitEthernet 0/6\n ip address 192.0.2.2/31\n mtu 9000\n")
    assert device.issues == []
    assert [p.mtu_bytes for p in device.ports.values()] == [None, 9234, 9000 - 18]


@pytest.mark.parametrize("value", ["591", "12001", "9k", ""])
def test_a_link_mtu_os9_does_not_take_is_sys002_and_leaves_the_mtu_unknown(value):
    device = parse(HEADER + f"interface TenGigabitEthernet 0/1\n ip address 192.0.2.0/31\n mtu {value}\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 5)]
    assert device.ports["TenGigabitEthernet 0/1"].mtu_bytes is None


def test_port_speed_from_its_type_and_speed_line():
    """OS9 Configuration Guide, "Interfaces": the type names the port's speed (`fortyGigE 0/48` 40 Gb/s); FTOS
    Configuration Guide, `speed {100 | 1000 | 10000 | auto}` in Mb/s. A TenGigabitEthernet port may be Base-T and
    negotiate (its speed unknown without a line), as is `speed auto`. Before: no OS9 port had a speed (LNK003
    silent)."""
    device = parse(HEADER + "\n".join([
        "interface fortyGigE 0/48", " no shutdown", "!",
        "interface hundredGigE 1/1", " no shutdown", "!",
        "interface twentyFiveGigE 1/2", " no shutdown", "!",
        "interface TenGigabitEthernet 0/1", " no shutdown", "!",
        "interface TenGigabitEthernet 0/2", " speed 1000", "!",
        "interface TenGigabitEthernet 0/3", " speed auto", ""]))
    assert device.issues == []
    assert [port.speed_gbps for port in device.ports.values()] == [40.0, 100.0, 25.0, None, 1.0, None]


def test_a_portmode_speed_line_leaves_type_speeds_unknown():
    device = parse(HEADER + "stack-unit 1 port 1 portmode single speed 40G\n!\ninterface hundredGigE 1/1\n"
                   " no shutdown\n!\ninterface hundredGigE 1/5\n speed 100000\n")
    assert [port.speed_gbps for port in device.ports.values()] == [None, 100.0]


def test_a_speed_is_one_the_os9_references_list_or_the_one_its_type_names():
    """FTOS/OS9 Configuration Guide: `speed {100 | 1000 | 10000 | auto}`; the S3048-ON/S4048-ON Command Line
    References (`negotiation auto`) also set 10 Mb/s; a port's type names its own speed (`hundredGigE` 100 Gb/s).
    Before: any 10 to 400,000 Mb/s was read, `speed 40000` on a hundredGigE port as 40 Gb/s and `speed 400000` as
    400 Gb/s though no OS9 source lists them."""
    device = parse(HEADER + "\n".join([
        "interface TenGigabitEthernet 0/1", " speed 10", "!",
        "interface twentyFiveGigE 1/2", " speed 25000", "!",
        "interface hundredGigE 1/5", " speed 100000", "!",
        "interface hundredGigE 1/6", " speed 40000", "!",
        "interface TenGigabitEthernet 0/2", " speed 400000", ""]))
    assert [port.speed_gbps for port in device.ports.values()] == [0.01, 25.0, 100.0, None, None]
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 13), ("SYS002", 16)]
    assert "no OS9 reference losslessd read lists this speed on hundredGigE 1/6 (they list 10, 100, 1000, 10000, " \
        "100000 Mb/s or auto): whether the switch runs the port at it or refuses the line is not known" \
        in device.issues[0].message


@pytest.mark.parametrize("value", ["fast", "5", "1000 full", "", "25000", "0100"])
def test_a_speed_os9_does_not_take_is_sys002_and_leaves_the_speed_unknown(value):
    device = parse(HEADER + f"interface fortyGigE 0/48\n speed {value}\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4)]
    assert device.ports["fortyGigE 0/48"].speed_gbps is None


def test_a_session_with_its_prompts_is_read_as_the_running_config_it_makes():
    """Round 23: OS9 sessions pasted with their prompts (an S4048-ON's `DellEMC(conf)# interface TenGigabitEthernet
    1/5` / `DellEMC(conf-if-te-1/5)# ...`, an S5000's `(conf-dcbmap-NAME)#priority-pgid ...`) were refused as "not a
    Dell OS9 running-config": CONFIGURATION mode is `(conf)`, and each command nests under the one whose mode the next
    prompt names; `exit`, `end` and exec-mode commands are no configuration, a refused command (`% ` answer) is
    named."""
    text = ("DellEMC#configure\nDellEMC(conf)#dcb-map SAN\n"
            "DellEMC(conf-dcbmap-SAN)#priority-group 0 bandwidth 60 pfc off\n"
            "DellEMC(conf-dcbmap-SAN)#priority-group 1 bandwidth 40 pfc on\n"
            "DellEMC(conf-dcbmap-SAN)#priority-pgid 0 0 0 1 0 0 0 0\nDellEMC(conf-dcbmap-SAN)#exit\n"
            "DellEMC(conf)#interface range tengigabitethernet 1/6 - 7\nDellEMC(conf-if-range-te-1/6-7)#dcb-map SAN\n"
            "DellEMC(conf-if-range-te-1/6-7)#exit\nDellEMC(conf)#interface TenGigabitEthernet 1/8\n"
            "DellEMC(conf-if-te-1/8)#dcb-map SAN\nDellEMC(conf-if-te-1/8)#flowcontrol rx on tx on\n"
            "DellEMC(conf-if-te-1/8)#speed 100\n% Error: Invalid speed.\nDellEMC(conf-if-te-1/8)#end\n"
            "DellEMC#copy running-config startup-config\n")
    assert detect(Input("x.txt", text)) == "dell_os9"
    device = parse(text)
    assert sorted(device.ports) == ["TenGigabitEthernet 1/6", "TenGigabitEthernet 1/7", "TenGigabitEthernet 1/8"]
    assert all(p.pfc_enabled == [3] for p in device.ports.values())
    assert device.ports["TenGigabitEthernet 1/8"].link_pause.rx is True
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 13)]


@pytest.mark.parametrize("opening", ["int TenGigabitEthernet 1/8", "in te 1/8", "INT te 1/8", "inter te 1/8"])
def test_a_session_s_abbreviated_interface_command_is_read_by_the_mode_it_opened(opening):
    """An OS9 session types `interface` abbreviated (an S4048-ON's `S4048-ON-sw(conf)#int range te1/2,te1/7` opening
    `(conf-if-range-te-1/2,te-1/7)#`); the port's own prompt shows the switch ran it. Its port and DCB map were left
    out without a word (and a session typing only `int` was refused as "not a Dell OS9 running-config")."""
    text = ("DellEMC#configure\nDellEMC(conf)#dcb-m SAN\n"
            "DellEMC(conf-dcbmap-SAN)#priority-group 0 bandwidth 60 pfc off\n"
            "DellEMC(conf-dcbmap-SAN)#priority-group 1 bandwidth 40 pfc on\n"
            "DellEMC(conf-dcbmap-SAN)#priority-pgid 0 0 0 1 0 0 0 0\nDellEMC(conf-dcbmap-SAN)#exit\n"
            f"DellEMC(conf)#{opening}\nDellEMC(conf-if-te-1/8)#dcb-map SAN\n"
            "DellEMC(conf-if-te-1/8)#flowcontrol rx on tx on\nDellEMC(conf-if-te-1/8)#end\n")
    device = parse(text)
    assert sorted(device.ports) == ["TenGigabitEthernet 1/8"]
    assert device.ports["TenGigabitEthernet 1/8"].pfc_enabled == [3]
    assert device.issues == []


@pytest.mark.parametrize("line, ports", [
    # an S4048-ON session (an Open vSwitch course's LACP steps): `int range te1/2,te1/7` entered
    # `(conf-if-range-te-1/2,te-1/7)#`, the switch writing each item back with its type
    ("interface range te1/2,te1/7", ["TenGigabitEthernet 1/2", "TenGigabitEthernet 1/7"]),
    ("interface range te1/2 , te1/7", ["TenGigabitEthernet 1/2", "TenGigabitEthernet 1/7"]),
    ("interface range Te1/1-3 , fo1/49", ["TenGigabitEthernet 1/1", "TenGigabitEthernet 1/2", "TenGigabitEthernet 1/3",
                                         "fortyGigE 1/49"]),
    # the reference's own forms, read before and still
    ("interface range Te 1/1 - 2", ["TenGigabitEthernet 1/1", "TenGigabitEthernet 1/2"]),
    ("interface range tengigabitethernet 1/2 , tengigabitethernet 1/8", ["TenGigabitEthernet 1/2",
                                                                         "TenGigabitEthernet 1/8"]),
])
def test_a_range_item_with_its_type_joined_is_read(line, ports):
    """Session 42 parts c and r2 Left: `interface range te1/2,te1/7` (each item's type joined to its number) was named
    (SYS002), not read. The switch's own prompt shows it took each item as that port; each is read so."""
    device = parse(f"{line}\n flowcontrol rx on tx on\n")
    assert device.issues == []
    assert sorted(device.ports) == ports


@pytest.mark.parametrize("line, item", [("interface range Te1/1,2,3,4", "2"),
                                        ("interface range tengigabitethernet 1/2,8,14", "8"),
                                        ("interface range te1/1-4,1/8", "1/8")])
def test_a_range_item_without_its_type_is_named_not_guessed(line, item):
    """`Te1/1,2,3,4` (part c's S4048-ON page, whose prompts were edited by hand) and `tengigabitethernet 1/2,8,14`:
    whether OS9 reads a bare number after a comma as a port of the item before it is in no OS9 reference read. The
    SYS002 names the item without its type (before: `Te1/1`, which is a port, was named as none)."""
    device = parse(f"{line}\n flowcontrol rx on tx on\n")
    assert [i.code for i in device.issues] == ["SYS002"]
    assert f"`{item}` has no port type" in device.issues[0].message, device.issues
    assert device.ports == {}


@pytest.mark.parametrize("line, item", [("interface range te1/2-te1/4", "te1/2-te1/4"),
                                        ("interface range tengigabitethernet 1/2 - tengigabitethernet 1/4",
                                         "tengigabitethernet 1/2 - tengigabitethernet 1/4"),
                                        ("interface range te1/8 , Te1/2 - Te1/4", "Te1/2 - Te1/4")])
def test_a_range_whose_end_repeats_the_port_type_is_named_as_such(line, item):
    """Session 43 part e Left (brief of session 44 part f): `interface range te1/2-te1/4`, the type written again after
    the dash. No OS9 reference or switch session read writes a range so (every one writes the end as a number:
    `tengigabitethernet 0/1 - 4`, `te0/1-12` entering `(conf-if-range-te-0/1-12)`), so it is not read; the SYS002
    said the item "is no front-panel port or range of them" and now names the type after the dash."""
    device = parse(f"{line}\n flowcontrol rx on tx on\n")
    assert [i.code for i in device.issues] == ["SYS002"]
    assert f"`{item[:40]}` names a port type after the dash" in device.issues[0].message, device.issues
    assert device.ports == {}
