"""Comment lines in the indented CLI readers (EOS, NX-OS, OS10, OS9 through clitext.tree): a comment never changes or
hides a reading, and a line the switch does not take is named, never passed over (round 16's leftovers)."""

from __future__ import annotations

import pytest

from losslessd.parse import dell_os10, eos, nxos
from losslessd.parse.base import Input
from losslessd.parse.clitext import tree

# Each platform's port PFC lines: EOS User Manual, Quality of Service (`priority-flow-control on`, `... priority N
# no-drop`); Cisco Nexus 9000 QoS guide, PFC chapter (`priority-flow-control mode on`); Dell OS10 User Guide, PFC
# (`priority-flow-control mode on`). The `#` note is a design write-up's, between the port's lines at the margin.
PORTS = {
    "eos": (eos, "Ethernet1", "hostname sw1\ninterface Ethernet1\n   qos trust dscp\n{note}\n"
                              "   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"),
    "nxos": (nxos, "Ethernet1/1", "hostname sw1\nfeature lldp\ninterface Ethernet1/1\n  description gpu\n{note}\n"
                                  "  priority-flow-control mode on\n"),
    "os10": (dell_os10, "ethernet1/1/1", "hostname sw1\ninterface ethernet1/1/1\n no shutdown\n{note}\n"
                                         " priority-flow-control mode on\n"),
}


@pytest.mark.parametrize("note", ["# RoCE settings below", "#", "! RoCE settings below", "   # RoCE settings"])
@pytest.mark.parametrize("platform", PORTS)
def test_a_comment_line_inside_a_port_block_leaves_the_port_its_lines(platform, note):
    """A `#` line at the margin closed the port's block: the PFC lines after it were read as the comment's and the
    port as having no PFC, without a word (a false PFC001 / PFC006). Now the block stays open and the line is named."""
    module, port, text = PORTS[platform]
    device = module.parse([Input("sw1.cfg", text.format(note=note))], "sw1")
    assert device.ports[port].pfc_enabled is not None and device.ports[port].pfc_source.line >= 5
    # (a `#` line is named: no comment of these switches, `!` is; it sets nothing either way)
    named = [i.source.line for i in device.issues if i.code == "SYS002"]
    assert named == ([text.split("\n").index("{note}") + 1] if note.strip().startswith("#") else []), device.issues


def test_tree_keeps_a_block_open_across_comment_lines():
    nodes = tree("interface Ethernet1\n   mtu 9214\n# note\n! note\n   shutdown\nhostname x\n")
    assert [(n.text, [c.text for c in n.children]) for n in nodes] == [
        ("interface Ethernet1", ["mtu 9214", "shutdown"]), ("hostname x", [])]


# EOS User Manual, Quality of Service: `qos map dscp V... to traffic-class T` is a line of global configuration.
EOS_MAP_BLOCK = """hostname sw1
qos map dscp-to-traffic-class
   dscp 46 traffic-class 5 ! Voice EF
   dscp 26 traffic-class 3 ! RoCE
qos map dscp 26 to traffic-class 3
   dscp 8 traffic-class 1
interface Ethernet1
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
"""


def test_an_eos_map_block_and_lines_under_a_map_are_named():
    """The design write-up's `qos map dscp-to-traffic-class` block was passed over in silence: its head and each
    line under it (and a line indented under a real `qos map` line) is named; the real line is read."""
    device = eos.parse([Input("sw1.cfg", EOS_MAP_BLOCK)], "sw1")
    named = sorted(i.source.line for i in device.issues if i.code == "SYS002")
    assert named == [2, 3, 4, 6]
    assert device.ports["Ethernet1"].dscp_to_tc[26] == 3


# Cisco Nexus 9000 Fundamentals guide, "Configuring the Banner": `banner motd delimiting-character message
# delimiting-character`; a message ruled with `#` around indented text, delimited by `#` (sdn-n3132-tor1.cfg of the
# corpus is delimited so).
BANNER = "banner motd #\n####################\n    Authorized access only\n####################\n#\n"


@pytest.mark.parametrize("platform", ["nxos", "os10"])
def test_a_banner_text_is_no_comment_line_in_a_block(platform):
    """A banner's `####` rule followed by an indented line of its text was named as a `#` line interrupting a block
    (SYS002, exit 1 on a clean config); a `#` note inside a port after the banner is still named."""
    module, port, text = PORTS[platform]
    config = text.replace("hostname sw1\n", "hostname sw1\n" + BANNER).format(note="# RoCE")
    device = module.parse([Input("sw1.cfg", config)], "sw1")
    assert [i.source.line for i in device.issues if i.code == "SYS002"] == [config.split("\n").index("# RoCE") + 1]
    assert device.ports[port].pfc_enabled is not None
    one_line = text.replace("hostname sw1\n", "hostname sw1\nbanner motd #hi#\n" + BANNER[14:]).format(note="")
    device = module.parse([Input("sw1.cfg", one_line)], "sw1")  # (closed on its own line: the rule after it is named)
    assert [i.source.line for i in device.issues if i.code == "SYS002"] == [3]


@pytest.mark.parametrize("platform", ["nxos", "os10"])
def test_a_banner_text_indented_with_tabs_and_spaces_is_no_block(platform):
    """A banner's text is free text: a line of it indented with a tab above one indented with spaces was named as a
    block depending on a tab's width (SYS002, exit 1 on a clean config); a config line after the banner whose block
    depends on it is still named."""
    module, port, text = PORTS[platform]
    banner = "banner motd #\n\tAuthorized access only\n    Violators will be prosecuted\n#\n"
    config = text.replace("hostname sw1\n", "hostname sw1\n" + banner).format(note="")
    device = module.parse([Input("sw1.cfg", config)], "sw1")
    assert [i for i in device.issues if "tab's width" in i.message] == []
    assert device.ports[port].pfc_enabled is not None
    after = config + "line vty\n\tsession-limit 5\n    exec-timeout 5\n"  # (the last: under session-limit at tabs of 1)
    device = module.parse([Input("sw1.cfg", after)], "sw1")
    named = [i.source.line for i in device.issues if "tab's width" in i.message]
    assert named == [after.split("\n").index("    exec-timeout 5") + 1]
