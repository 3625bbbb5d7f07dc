"""NVIDIA Onyx running-config parser: configs written from NVIDIA's documented examples (the community RoCE guides'
steps, the Onyx manual's command pages), a losslessd capture, targeted snippets, detection against the other
platforms' files, and lint results under roce-dscp26."""

from __future__ import annotations

import pytest

from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.model import SchedulerType, Trust
from losslessd.parse import detect, onyx
from losslessd.parse.base import Input
from tests.conftest import FIXTURES

RAW = FIXTURES / "raw" / "nvidia_onyx"
HEAD = "##\n## Running database \"initial\"\n## Hostname: sw1\n##\nno cli default prefix-modes enable\n"
PFC = "   dcb priority-flow-control enable force\n   dcb priority-flow-control priority 3 enable\n"


def parse(text: str, name: str = "sw1", path: str = "sw1.cfg"):
    return onyx.parse([Input(path, text)], name)


def fixture_text(name: str) -> str:
    return (RAW / name).read_text(encoding="utf-8")


def line_of(text: str, wanted: str) -> int:
    return [line.strip() for line in text.split("\n")].index(wanted) + 1


def issues(device) -> set[tuple[str, int]]:
    return {(i.code, i.source.line) for i in device.issues}


def test_roce_leaf_reads_every_port_of_each_range():
    """The community guide's DSCP-based lossless steps: trust L3, PFC on priority 3 globally and per port, ECN on
    traffic class 3 at 150/1500 KB, CNP class strict."""
    text = fixture_text("roce-leaf.cfg")
    device = parse(text, "x", "roce-leaf.cfg")
    assert device.name == "onyx-leaf1" and device.issues == []
    assert set(device.ports) == {"Eth1/1", "Eth1/2", "Eth1/3", "Eth1/4", "Eth1/30", "Eth1/31", "Eth1/32"}
    port = device.ports["Eth1/3"]
    assert port.trust == Trust.dscp and port.speed_gbps == 100
    assert port.pfc_enabled == [3]
    assert port.pfc_source.line == line_of(text, "interface ethernet 1/1-1/4 dcb priority-flow-control mode on force")
    ecn = port.queues[3].ecn
    # `minimum-absolute 150 maximum-absolute 1500`: KB (mellanox.onyx onyx_traffic_class "in KBs"), 1 KB = 1,024 B
    assert (ecn.ecn_enabled, ecn.min_threshold_bytes, ecn.max_threshold_bytes) == (True, 150 * 1024, 1500 * 1024)
    assert port.queues[6].scheduler.type == SchedulerType.strict and port.queues[6].ecn is None
    assert port.tc_to_priority == {sp: sp for sp in range(8)} and port.tc_label(3) == "switch-priority 3"
    # the default maps as a switch's `show qos interface ethernet 1/1` prints them (mellanox.onyx collection fixture):
    # "0(0) 0(1)": switch-priority 0, DSCP "0 1 2 3 4 5 6 7"; "3(0) 3(1)": 3, "24 ... 31"; "6(0) 6(1)": 6, "48 ... 55";
    # switch-priority n -> TC n
    assert [port.dscp_to_tc[d] for d in (0, 7, 8, 24, 26, 31, 48, 55, 56, 63)] == [0, 0, 1, 3, 3, 3, 6, 6, 7, 7]
    assert port.tc_to_queue == {sp: sp for sp in range(8)} and port.pcp_to_tc is None  # trust L3: DSCP only
    hop = port.dscp_chain(26)
    assert (hop.tc, hop.priority, hop.queue) == (3, 3, 3) and port.dscp_chain(48).queue == 6
    # what the running-config does not state stays unknown
    assert port.watchdog is None and port.mtu_bytes is None and port.pfc_priority_to_queue is None
    assert device.ports["Eth1/1"].description == "gpu01-mlx5_0"
    assert device.ports["Eth1/30"].admin_up is False and device.ports["Eth1/30"].trust == Trust.pcp  # default L2
    # "0(0) 0(1)" ... "7(0) 7(1)": PCP n with either DEI -> switch-priority n
    eth30 = device.ports["Eth1/30"]
    assert eth30.pcp_to_tc == {pcp: pcp for pcp in range(8)} and eth30.dscp_to_tc is None
    assert device.ports["Eth1/32"].speed_gbps == 400


def test_capture_keeps_file_lines_and_reads_both_and_wrr():
    text = fixture_text("roce-capture.txt")
    device = parse(text, "x", "roce-capture.txt")
    assert device.name == "onyx-leaf3" and device.issues == []
    port = device.ports["Eth1/2"]
    assert port.trust == Trust.dscp  # `both`: DSCP for IP packets
    assert port.queues[3].ecn.min_threshold_bytes == 200 * 1024
    ecn_line = "interface ethernet 1/1-1/2 traffic-class 3 congestion-control both minimum-absolute 200 " \
               "maximum-absolute 2000"
    assert port.queues[3].ecn.source.line == line_of(text, ecn_line)
    assert (port.queues[0].scheduler.type, port.queues[0].scheduler.weight) == (SchedulerType.wrr, 50)
    assert (port.link_pause.rx, port.link_pause.tx) == (False, False)
    assert detect(Input("x.txt", text)) == "nvidia_onyx"


@pytest.mark.parametrize(("lines", "expected"), [
    (PFC + "   interface ethernet 1/1 dcb priority-flow-control mode on force\n", [3]),
    ("   dcb priority-flow-control priority 3 enable\n   interface ethernet 1/1 dcb priority-flow-control mode on\n",
     []),  # never enabled on the switch: off everywhere (Onyx User Manual, PFC)
    (PFC + "no dcb priority-flow-control enable force\n   interface ethernet 1/1 dcb priority-flow-control mode on\n",
     []),
    (PFC + "   interface ethernet 1/1 dcb priority-flow-control mode off\n", []),
    (PFC + "no interface ethernet 1/1 dcb priority-flow-control mode force\n", []),
    (PFC + "   interface ethernet 1/1 qos trust L3\n", None),  # the port's default mode is not stated
    ("   interface ethernet 1/1 qos trust L3\n", []),  # PFC never enabled
    (PFC + "   roce lossy\n   interface ethernet 1/1 dcb priority-flow-control mode on force\n", []),
    ("   roce\n   interface ethernet 1/1 qos trust L3\n", None),
])
def test_port_pfc(lines, expected):
    assert parse(HEAD + lines).ports["Eth1/1"].pfc_enabled == expected


def test_roce_mode_leaves_what_it_applies_unknown_and_says_so():
    text = HEAD + "   interface ethernet 1/1-1/2 speed 100G force\n   roce\n"
    device = parse(text)
    assert ("SYS004", line_of(text, "roce")) in issues(device)
    port = device.ports["Eth1/2"]
    assert port.trust is None and port.pfc_enabled is None and port.qos_configured
    assert "lossless" in device.issues[0].message


def test_pfc_mode_auto_is_reported_and_unknown():
    text = HEAD + PFC + "   interface ethernet 1/1-1/2 dcb priority-flow-control mode auto\n"
    device = parse(text)
    auto = "interface ethernet 1/1-1/2 dcb priority-flow-control mode auto"
    assert issues(device) == {("SYS002", line_of(text, auto))}
    assert device.ports["Eth1/1"].pfc_enabled is None and device.ports["Eth1/2"].pfc_enabled is None


def test_ecn_forms():
    tc = "   interface ethernet 1/1 traffic-class"
    backwards = f"{tc} 2 congestion-control ecn minimum-absolute 1500 maximum-absolute 150"
    text = HEAD + (f"{tc} 3 congestion-control red minimum-absolute 150 maximum-absolute 1500\n"
                   f"{tc} 4 congestion-control ecn minimum-relative 10 maximum-relative 80\n"
                   f"{tc} 5 congestion-control ecn minimum-absolute 150 maximum-absolute 1500\n"
                   "no interface ethernet 1/1 traffic-class 5 congestion-control\n"
                   f"{backwards}\n")
    device = parse(text)
    queues = device.ports["Eth1/1"].queues
    assert queues[3].ecn.ecn_enabled is False  # RED drops, never marks
    assert queues[4].ecn.ecn_enabled and queues[4].ecn.min_threshold_bytes is None
    assert "minimum-relative 10 maximum-relative 80" in queues[4].ecn.unconverted
    assert queues[5].ecn.ecn_enabled is False
    assert queues[2].ecn.ecn_enabled is None  # its line was not read: marking unknown, not off
    assert issues(device) == {("SYS002", text.split("\n").index(backwards) + 1)}


@pytest.mark.parametrize("line", [
    "   interface ethernet 1/5-1/3 qos trust L3",  # backwards
    "   interface ethernet 1/1-2/4 qos trust L3",  # across slots
    "   interface ethernet 1/1,1/3 qos trust L3",
    "   interface ethernet 1/1 qos trust dscp",  # EOS's word
    "   interface ethernet 1/1 speed 0G force",
    "   interface ethernet 1/1 speed 1e3G force",
    "   interface ethernet 1/1 traffic-class 8 dcb ets strict",
    "   interface ethernet 1/1 traffic-class 3 congestion-control ecn minimum-absolute 0x10 maximum-absolute 1500",
    "   interface ethernet 1/1 traffic-class 3 congestion-control ecn minimum-relative 10 maximum-relative 101",
    "   dcb priority-flow-control priority 9 enable",
    "   roce lossier",
    "   traffic pool roce type lossfree",
    "   traffic pool roce map switch-priority 3 8",
    "   traffic pool roce memory percent 1e2",
    "   interface port-channel 1 dcb priority-flow-control mode on force",
    "   interface mlag-port-channel 7 traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 15",
    "   qos map dscp 26 switch-priority 3",
    "   interface ethernet 1/1 pfc-wd",
    "   interface ethernet 1/1 ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 67538 xoff 18432",
    "   advanced buffer management force",
    "   traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500",  # typed in prefix mode
    "   dcb priority-flow-control mode on force",
])
def test_a_line_that_cannot_be_read_is_a_sys002_on_it(line):
    text = HEAD + PFC + "   interface ethernet 1/2 qos trust L3\n" + line + "\n"
    device = parse(text)
    assert issues(device) == {("SYS002", text.split("\n").index(line) + 1)}
    assert device.ports["Eth1/2"].trust == Trust.dscp  # the rest is still read


def test_split_ports_and_a_cut_file():
    text = HEAD + "   interface ethernet 1/9/1-1/9/4 speed 25G force\n   interface ethernet 1/9/1 qos trust L3"
    device = parse(text)
    assert [n for n in device.ports] == ["Eth1/9/1", "Eth1/9/2", "Eth1/9/3", "Eth1/9/4"]
    assert ("SYS002", text.count("\n") + 1) in issues(device)  # no line end: truncated


@pytest.mark.parametrize("text", ["", "{\"a\": 1}\n", "set interfaces et-0/0/0 mtu 9216\n"])
def test_not_an_onyx_config_is_an_input_error(text):
    with pytest.raises(InputError) as err:
        parse(text)
    assert err.value.file == "sw1.cfg" and err.value.line == 1


@pytest.mark.parametrize(("text", "onyx_file"), [
    (HEAD, True),
    ("   interface ethernet 1/1 dcb priority-flow-control mode on force\n", True),
    ("   interface ethernet 1/1-1/4 traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute "
     "1500\n", True),
    ("interface ethernet 1/1 qos trust L3\n", True),
    # the indented form: the QoS command below other lines of the port's block (review round 31: only as its first)
    ("interface ethernet 1/1-1/4\n   speed 100G force\n   mtu 9216 force\n   qos trust L3\n", True),
    ("   interface ethernet 1/1\r\n      description \"gpu01\"\r\n"
     "      dcb priority-flow-control mode on force\r\n", True),
    # `qos trust L3` is Onyx's alone (EOS: `qos trust dscp|cos`; NX-OS has none), at any line of the block
    ("interface ethernet 1/1\n  priority-flow-control mode on\n  qos trust L3\n", True),
    # EOS and NX-OS typed by hand: the port on its own line, its commands indented below it
    ("hostname leaf1\ninterface ethernet 1/1\n   qos trust dscp\n   priority-flow-control on\n", False),
    ("feature lldp\ninterface ethernet1/1\n  priority-flow-control mode on\n", False),
    ("nv set interface swp1 qos pfc profile default-global\n", False),
    # session 36 part e: a test library's command script whose only Onyx signs are the global PFC lines (its port line
    # `traffic-class 1 bind switch-priority 3` is none) was SYS001 without --format
    ("configure terminal\ndcb priority-flow-control enable force\ndcb priority-flow-control priority 3 enable\n"
     "interface ethernet 1/5 traffic-class 1 bind switch-priority 3\ndcb ets strict\n", True),
    ("no dcb priority-flow-control priority 4 enable\n", True),
    # OS9's and iproute2's PFC words are not Onyx's
    ("dcb-map RDMA\n pfc on\n", False),
    ("dcb pfc set dev eth0 prio-pfc 3:on\n", False),
])
def test_detection(text, onyx_file):
    assert onyx.sniff(Input("x.cfg", text)) is onyx_file
    assert (detect(Input("x.cfg", text)) == "nvidia_onyx") is onyx_file


def test_detection_of_indented_blocks_takes_time_in_proportion():
    """Blocks of lines that are all blanks but their last character: each skipped line is read one way, so a block
    with no QoS command fails in one pass (read as `[ \\t]+[^\\n]*`, split every way, three blocks of five took 12 s,
    and each line more multiplies it by about 30: these blocks of sixteen would never finish)."""
    text = ("interface ethernet 1/1\n" + (" " * 30 + "x\n") * 16 + "x\n") * 3
    assert onyx.sniff(Input("x.cfg", text)) is False


def test_lint_under_a_lossless_policy():
    result = lint([RAW / "roce-leaf.cfg"], policy="roce-dscp26")
    bad = [f for f in result.findings if f.severity.value in ("error", "warning")]
    assert bad == []
    infos = {f.code for f in result.findings if f.device == "onyx-leaf1"}
    assert {"MAP001", "BUF003", "WDG001"} <= infos  # what the running-config does not state: unverified
    eth1 = {f.code for f in result.findings if f.port == "Eth1/1"}
    assert "ECN001" not in eth1 and "MAP002" not in eth1  # queue 3 marks at 150/1500 KB, CNP queue 6 is strict


def test_lint_of_lossy_roce_mode_under_a_lossless_policy(tmp_path):
    """`roce lossy` is switch-wide ("No PFC support", Onyx User Manual, RoCE Commands): one PFC004 for the switch at
    that line, as NVUE's lossy mode, not PFC001 on each port."""
    path = tmp_path / "leaf.cfg"
    text = HEAD + "   interface ethernet 1/1-1/2 qos trust L3\n   roce lossy\n"
    path.write_text(text)
    result = lint([path], policy="roce-dscp26")
    errors = [f for f in result.findings if f.severity.value == "error"]
    assert [(f.code, f.port, f.source.line) for f in errors] == [("PFC004", None, line_of(text, "roce lossy"))]
    assert errors[0].data["ports"] == ["Eth1/1", "Eth1/2"] and "roce lossless" in errors[0].message
    device = next(iter(result.fabric.devices.values()))
    assert device.lossy_mode is not None and device.ports["Eth1/1"].lossy_mode
    # Session 34 (round 13's leftover): beside PFC004, each port had its MAP001 info "could not verify that RoCE
    # traffic is lossless" (the mode's DSCP map unprinted): PFC004 has said RoCE is lossy there, once. ECN001 and
    # MAP002 (ECN and the CNPs' class matter in lossy mode too) stay per port; with PFC004 not run, MAP001 says it.
    assert [f.code for f in result.findings if f.code == "MAP001"] == []
    assert {f.code for f in result.findings if f.port == "Eth1/1"} == {"ECN001", "MAP002"}
    alone = lint([path], policy="roce-dscp26", ignore_codes=["PFC004"])
    assert sorted(f.port for f in alone.findings if f.code == "MAP001" and f.unverified) == ["Eth1/1", "Eth1/2"]


def test_show_roce_in_a_capture_says_what_roce_mode_applies():
    """The manual's `show roce` (RoCE Commands): trust L3, PFC on switch priority 3, RoCE WRR 50 % and CNP strict."""
    text = fixture_text("roce-mode-capture.txt")
    device = parse(text, "x", "roce-mode-capture.txt")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS004", line_of(text, "roce"))]
    port = device.ports["Eth1/2"]
    assert port.trust == Trust.dscp and port.trust_source.line == line_of(text, "Port trust mode: L3")
    assert port.pfc_enabled == [3] and port.pfc_source.line == line_of(text, "PFC : enabled")
    assert (port.queues[3].scheduler.type, port.queues[3].scheduler.weight) == (SchedulerType.wrr, 50)
    assert port.queues[6].scheduler.type == SchedulerType.strict
    assert port.queues[3].ecn is None  # which traffic class its congestion control marks is not stated


def test_a_capture_is_split_into_sections_once(monkeypatch):
    """The running-config and `show roce` come from one reading of the capture (it was read twice). Counted by
    wrapping the capture reader, which still does all the work."""
    from losslessd import capture

    real, calls = capture.for_platform, []

    def counted(text, path, platform):
        calls.append(path)
        return real(text, path, platform)

    monkeypatch.setattr(capture, "for_platform", counted)
    text = fixture_text("roce-mode-capture.txt")
    device = parse(text, "x", "roce-mode-capture.txt")
    assert calls == ["roce-mode-capture.txt"]
    assert device.ports["Eth1/2"].pfc_enabled == [3]  # (what `show roce` says: the section was still read)
    assert device.ports["Eth1/2"].pfc_source.line == line_of(text, "PFC : enabled")


def test_show_roce_of_another_mode_or_refused_is_not_used():
    text = fixture_text("roce-mode-capture.txt")
    other = parse(text.replace("RoCE mode      : lossless", "RoCE mode      : lossy"))
    assert ("SYS002", line_of(text, "RoCE mode      : lossless")) in issues(other)
    assert other.ports["Eth1/1"].trust is None and other.ports["Eth1/1"].pfc_enabled is None
    refused = text[:text.index("#% command: show roce")] + "#% command: show roce\n% Unrecognized command \"roce\".\n"
    device = parse(refused)
    assert device.ports["Eth1/1"].trust is None and device.ports["Eth1/1"].pfc_enabled is None
    assert "does not print" in device.issues[0].message


def test_bind_switch_priority_lines_that_bind_every_switch_priority_give_the_egress_queues():
    """intel/mfd-switchmanagement (c79b9e18d9a7, test_mellanox.py): its NDK PFC setup binds switch priorities
    0 1 2 4 5 6 7 to traffic class 0 and 3 to traffic class 1 (`interface ethernet 1/1 traffic-class 1 bind
    switch-priority 3`); its userspace setup binds all eight to traffic class 0. Onyx's traffic class is the model's
    queue of each switch priority."""
    text = HEAD + PFC + ("   interface ethernet 1/1 traffic-class 0 bind switch-priority 0 1 2 4 5 6 7\n"
                         "   interface ethernet 1/1 traffic-class 1 bind switch-priority 3\n"
                         "   interface ethernet 1/2 traffic-class 0 bind switch-priority 0 1 2 3 4 5 6 7\n")
    device = parse(text)
    assert device.issues == []
    assert device.ports["Eth1/1"].tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0}
    assert device.ports["Eth1/2"].tc_to_queue == {sp: 0 for sp in range(8)}
    assert device.ports["Eth1/1"].dscp_chain(26).queue is None  # the DSCP map is still not known
    # a later line moves a switch priority to another traffic class
    moved = parse(text + "   interface ethernet 1/2 traffic-class 3 bind switch-priority 3\n")
    assert moved.ports["Eth1/2"].tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}


def test_bind_switch_priority_of_some_switch_priorities_keeps_the_default_for_the_others():
    text = HEAD + PFC + "   interface ethernet 1/1 traffic-class 0 bind switch-priority 3\n"
    device = parse(text)
    assert device.issues == []
    assert device.ports["Eth1/1"].tc_to_queue == {0: 0, 1: 1, 2: 2, 3: 0, 4: 4, 5: 5, 6: 6, 7: 7}


def test_in_roce_mode_only_a_complete_binding_is_known():
    """What RoCE mode sets is not stated: neither the default maps nor a partial binding are taken."""
    line = "interface ethernet 1/1-1/2 traffic-class 3 bind switch-priority 3"
    text = HEAD + "   roce\n" + f"   {line}\n   interface ethernet 1/1-1/2 traffic-class 6 bind switch-priority 6\n"
    device = parse(text)
    assert ("SYS004", line_of(text, line)) in issues(device)  # once for the range
    port = device.ports["Eth1/1"]
    assert port.tc_to_queue is None and port.dscp_to_tc is None and port.pcp_to_tc is None
    full = parse(text + "   interface ethernet 1/1 traffic-class 0 bind switch-priority 0 1 2 4 5 7\n")
    assert full.ports["Eth1/1"].tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}


def test_a_qos_line_losslessd_does_not_read_makes_the_maps_unknown():
    """A `qos map ...` line (its syntax is not in a source read) may change the map: the default is not assumed."""
    port_line = "interface ethernet 1/1 qos map dscp 26 to switch-priority 4"
    text = HEAD + "   interface ethernet 1/1-1/2 qos trust L3\n" + f"   {port_line}\n"
    device = parse(text)
    assert ("SYS002", line_of(text, port_line)) in issues(device)
    assert device.ports["Eth1/1"].dscp_to_tc is None
    assert device.ports["Eth1/2"].dscp_to_tc == {d: d // 8 for d in range(64)}
    assert device.ports["Eth1/1"].tc_to_queue == {sp: sp for sp in range(8)}  # not a traffic-class map
    glob = parse(text.replace(port_line, "qos map dscp 26 to switch-priority 4"))
    assert glob.ports["Eth1/1"].dscp_to_tc is None and glob.ports["Eth1/2"].dscp_to_tc is None


def test_mtu_is_the_ip_mtu():
    """mellanox.onyx onyx_interface: `mtu 1500` reads back as "1500 bytes(Maximum packet size 1522 bytes)"."""
    device = parse(HEAD + "   interface ethernet 1/1 mtu 1500 force\n   interface ethernet 1/2 mtu 9216\n")
    assert device.ports["Eth1/1"].mtu_bytes == 1500 and device.ports["Eth1/2"].mtu_bytes == 9216


@pytest.mark.parametrize("bad", [
    "interface ethernet 1/1 traffic-class 3 bind switch-priority 8",
    "interface ethernet 1/1 traffic-class 3 bind switch-priority",
    "interface ethernet 1/1 traffic-class 8 bind switch-priority 3",
    "interface ethernet 1/1 traffic-class 3 bind switch-priority 0-7",
])
def test_a_bind_line_that_cannot_be_read_is_a_sys002_and_the_map_stays_unknown(bad):
    full = "   interface ethernet 1/1 traffic-class 0 bind switch-priority 0 1 2 4 5 6 7\n"
    text = HEAD + full + f"   {bad}\n"
    device = parse(text)
    assert issues(device) == {("SYS002", line_of(text, bad))}
    assert device.ports["Eth1/1"].tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}  # the line skipped


def test_the_no_form_of_bind_makes_those_switch_priorities_unknown():
    full = "   interface ethernet 1/1 traffic-class 0 bind switch-priority 0 1 2 3 4 5 6 7\n"
    undo = "no interface ethernet 1/1 traffic-class 0 bind switch-priority 3"
    text = HEAD + full + f"{undo}\n"
    device = parse(text)
    assert ("SYS002", line_of(text, undo)) in issues(device)
    assert device.ports["Eth1/1"].tc_to_queue is None


def test_lint_with_switch_priorities_bound_to_other_traffic_classes():
    """Bulk switch priorities moved to traffic class 0 beside the default ones: RoCE still leaves by queue 3 and CNP
    by the strict queue 6."""
    result = lint([RAW / "roce-leaf-bound.cfg"], policy="roce-dscp26")
    assert [f for f in result.findings if f.severity.value in ("error", "warning")] == []
    eth1 = {f.code for f in result.findings if f.port == "Eth1/1"}
    assert "ECN001" not in eth1 and "MAP002" not in eth1 and "WDG001" in eth1


def test_lint_with_a_bind_moving_the_roce_priority_off_its_ecn_queue(tmp_path):
    """Switch priority 3 bound to traffic class 0, whose queue marks no ECN: ECN001 names the queue it leaves by."""
    path = tmp_path / "leaf.cfg"
    path.write_text(fixture_text("roce-leaf.cfg").replace(
        "   interface ethernet 1/1-1/4 traffic-class 6 dcb ets strict\n",
        "   interface ethernet 1/1-1/4 traffic-class 6 dcb ets strict\n"
        "   interface ethernet 1/1-1/4 traffic-class 0 bind switch-priority 3\n"))
    result = lint([path], policy="roce-dscp26")
    ecn = [f for f in result.findings if f.code == "ECN001" and f.port == "Eth1/1"]
    assert ecn and ecn[0].severity.value in ("error", "warning") and "queue 0" in ecn[0].message


def test_qos_rewrite_dscp_uses_the_default_rewrite_map():
    """`show qos interface ethernet 1/1` (mellanox.onyx fixture) rewrite table: switch-priority 3 -> DSCP 24,
    6 -> 48, 0 -> 0. Where the maps are not known (RoCE mode), the rewritten values are not either."""
    text = HEAD + "   interface ethernet 1/1 qos trust L3\n   interface ethernet 1/1 qos rewrite dscp\n"
    rewrite = parse(text).ports["Eth1/1"].tc_to_dscp_rewrite
    assert (rewrite[3], rewrite[6], rewrite[0], len(rewrite)) == (24, 48, 0, 8)
    assert parse(text + "   roce\n").ports["Eth1/1"].tc_to_dscp_rewrite == {}


def test_a_session_with_onyx_prompts_is_the_flat_running_config_it_makes():
    from losslessd.parse.onyx import reader as onyx_reader
    text = "\n".join(["sw1 [mlag: master] (config) # interface ethernet 1/13 dcb priority-flow-control mode on force",
                      "(config interface vlan 4000) # ip address 192.168.255.254 255.255.255.252",
                      "(config interface ethernet 1/1) # interface ethernet 1/2 mtu 9216 force",
                      "sw1 (config) # int ethernet 1/1 qos trust L3",
                      "sw1 (config) # show interfaces ethernet 1/1", "Eth1/1:", "  Admin state: Enabled",
                      "sw1 (config) # write memory"])
    assert onyx_reader.session(text).split("\n") == [
        "interface ethernet 1/13 dcb priority-flow-control mode on force",
        "interface vlan 4000 ip address 192.168.255.254 255.255.255.252",
        "interface ethernet 1/2 mtu 9216 force", "interface ethernet 1/1 qos trust L3", "", "", "", ""]
    assert onyx_reader.session("interface ethernet 1/1 qos trust L3\n") is None  # a running-config
    # EOS's and NX-OS's prompts have no space before the `#`
    assert not onyx.sniff(Input("x", "sw1(config)# interface ethernet 1/1\n"))
    assert onyx.sniff(Input("x", "sw1 (config) # interface ethernet 1/1 qos trust L3\n"))


def test_a_session_drops_what_the_switch_refused_and_leaves_a_running_config_it_shows_alone():
    """Onyx answers a command it does not take with a `% ` line before the next prompt: the command set nothing (it
    was read as applied). A running-config after a typed `show running-config` is read as the running-config (the
    session step blanked it: an 'empty file' error, or one typed line read instead of the whole config)."""
    prompt = "sw1 [standalone: master] (config) # "
    device = parse(f"{prompt}interface ethernet 1/1 mtu 9216 force\n"
                   f"{prompt}dcb priority-flow-control priority 3 enable\n"
                   "% Priority flow control is not supported on this system\n"
                   f"{prompt}interface ethernet 1/1 dcb priority-flow-control mode on force\n")
    assert device.ports["Eth1/1"].pfc_enabled == []
    # ... and says so: what the operator meant to set is not set
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 2)]
    assert "`dcb priority-flow-control priority 3 enable`" in device.issues[0].message
    assert "% Priority flow control is not supported" in device.issues[0].message
    config = "\n".join(["## Running database \"initial\"", "hostname sw1",
                        "interface ethernet 1/1 mtu 9216 force", "interface ethernet 1/2 mtu 9216 force"])
    device = parse(f"{prompt}show running-config\n{config}\n")
    assert set(device.ports) == {"Eth1/1", "Eth1/2"}


@pytest.mark.parametrize("line,marks", [
    ("traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500", True),
    ("traffic-class 3 congestion-control ecn minimum-absolute 150", None),
    ("traffic-class 3 congestion-control ecn minimum-absolute 1500 maximum-absolute 150", None),
    ("traffic-class 3 congestion-control red minimum-absolute 150 maximum-absolute 1500", False),
])
def test_a_congestion_control_line_not_read_leaves_marking_unknown(line, marks):
    """An unreadable `traffic-class N congestion-control` line (here cut short, or thresholds out of order) is named,
    and the queue's marking is unknown: it was read as if the traffic class had no congestion control (no marking,
    an ECN001 error), as EOS's and NX-OS's readers no longer do."""
    text = HEAD + f"   interface ethernet 1/1 qos trust L3\n   interface ethernet 1/1 {line}\n" + PFC
    device = parse(text)
    queue = device.ports["Eth1/1"].queues.get(3)
    assert queue is not None and queue.ecn.ecn_enabled is marks
    assert issues(device) == (set() if marks is not None else {("SYS002", 7)})


@pytest.mark.parametrize("line,enabled", [
    ("dcb priority-flow-control priority 3 enable", [3]),
    ("dcb priority-flow-control priority 3", None),
    ("dcb priority-flow-control priority 9 enable", None),
    ("dcb priority-flow-control priority 3 no-drop", None),
])
def test_a_global_pfc_line_not_read_leaves_the_paused_priorities_unknown(line, enabled):
    """Onyx User Manual, PFC: `dcb priority-flow-control priority <0-7> enable`. A global PFC line not read (cut short,
    out of range, another vendor's words) is named and the ports' PFC is unknown; it was read as no priority enabled
    (PFC001 and MAP001 errors)."""
    text = HEAD + ("   dcb priority-flow-control enable force\n"
                   f"   {line}\n"
                   "   interface ethernet 1/1 dcb priority-flow-control mode on force\n")
    device = parse(text)
    assert device.ports["Eth1/1"].pfc_enabled == enabled
    assert issues(device) == (set() if enabled else {("SYS002", 7)})


def test_pfc_switched_off_globally_stays_off_beside_a_line_not_read():
    """`no dcb priority-flow-control enable` turns PFC off on the switch whatever a priority line says."""
    text = HEAD + ("   no dcb priority-flow-control enable\n"
                   "   dcb priority-flow-control priority 3\n"
                   "   interface ethernet 1/1 dcb priority-flow-control mode on force\n")
    assert parse(text).ports["Eth1/1"].pfc_enabled == []


def test_a_port_mode_on_beside_the_switch_wide_off_is_no_written_off():
    """`no dcb priority-flow-control enable` with no priority listed and a port `mode on force`: the port's PFC is
    off but written on without effect (PFC001 on the port), not an explicit off (PFC006's pfc_off_written)."""
    text = HEAD + ("   no dcb priority-flow-control enable\n"
                   "   interface ethernet 1/1 dcb priority-flow-control mode on force\n"
                   "   interface ethernet 1/2 speed 100G force\n")
    device = parse(text)
    assert (device.ports["Eth1/1"].pfc_enabled, device.ports["Eth1/1"].pfc_off_written) == ([], False)
    assert (device.ports["Eth1/2"].pfc_enabled, device.ports["Eth1/2"].pfc_off_written) == ([], True)


@pytest.mark.parametrize("word,trust", [("L3", "dscp"), ("L33", None), ("", None)])
def test_a_trust_line_not_read_leaves_the_port_trust_unknown(word, trust):
    """Onyx User Manual, QoS Commands, `qos trust [port | L2 | L3 | both]` (default L2). A trust line not read is named
    and the port's trust is unknown; it was read as the default L2 (a MAP003 error under a DSCP policy)."""
    text = HEAD + f"   interface ethernet 1/1 qos trust {word}\n".replace(" \n", "\n") + PFC
    device = parse(text)
    port = device.ports["Eth1/1"]
    assert (port.trust.value if port.trust else None) == trust
    assert issues(device) == (set() if trust else {("SYS002", 6)})


def test_indented_interface_blocks_read_as_the_flat_form():
    """The same leaf as roce-leaf.cfg, printed the indented way (`interface ethernet 1/1-1/4` on its own line, the
    commands of its mode indented below it, as with the Onyx manual's CLI prefix modes): the same ports and facts,
    each at its own line; it was refused (`mtu`, `speed` and `traffic-class` outside an `interface ethernet` line)."""
    flat, text = fixture_text("roce-leaf.cfg"), fixture_text("roce-leaf-indented.cfg")
    want, device = parse(flat, "x", "roce-leaf.cfg"), parse(text, "x", "roce-leaf-indented.cfg")
    assert device.issues == [] and detect(Input("roce-leaf-indented.cfg", text)) == "nvidia_onyx"
    # known by its blocks without the `## Running database` header too (its first block sets `speed` first)
    bare = "\n".join(line for line in text.split("\n") if not line.startswith("##"))
    assert "qos trust" in bare and detect(Input("roce-leaf-indented.cfg", bare)) == "nvidia_onyx"
    assert set(device.ports) == set(want.ports)
    for name, port in device.ports.items():
        other = want.ports[name]
        assert (port.trust, port.speed_gbps, port.pfc_enabled, port.admin_up, port.description) == \
            (other.trust, other.speed_gbps, other.pfc_enabled, other.admin_up, other.description)
        assert {q: (v.ecn and (v.ecn.ecn_enabled, v.ecn.min_threshold_bytes, v.ecn.max_threshold_bytes),
                    v.scheduler and v.scheduler.type) for q, v in port.queues.items()} == \
            {q: (v.ecn and (v.ecn.ecn_enabled, v.ecn.min_threshold_bytes, v.ecn.max_threshold_bytes),
                 v.scheduler and v.scheduler.type) for q, v in other.queues.items()}
    port = device.ports["Eth1/3"]
    assert port.queues[3].ecn.min_threshold_bytes == 150 * 1024
    assert port.queues[6].scheduler.type == SchedulerType.strict
    ecn_line = "traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500"
    assert port.queues[3].ecn.source.line == line_of(text, ecn_line)
    assert port.pfc_source.line == line_of(text, "dcb priority-flow-control mode on force")


@pytest.mark.parametrize("block, admin_up, trust", [
    ("   interface ethernet 1/1\n      no shutdown\n      qos trust L3\n", True, Trust.dscp),
    # a line no deeper than the interface line ends its block: `qos trust L3` at the margin is no port's
    ("   interface ethernet 1/1\n      shutdown\n   hostname sw1\n", False, Trust.pcp),
])
def test_indented_block_ends_at_a_line_no_deeper(block, admin_up, trust):
    pfc_on = "   interface ethernet 1/1 dcb priority-flow-control mode on force\n"
    port = parse(HEAD + PFC + block + pfc_on).ports["Eth1/1"]
    assert port.admin_up is admin_up and port.trust == trust


@pytest.mark.parametrize("pool, lossless", [
    ("   traffic pool roce type lossless\n   traffic pool roce map switch-priority 3\n", [3]),
    ("   traffic pool roce map switch-priority 3 4\n   traffic pool roce type lossless\n", [3, 4]),
    # "Default: Lossy" (Onyx User Manual, Shared Buffer Commands, `type`): a pool without a type is no lossless intent
    ("   traffic pool roce map switch-priority 3\n", []),
    ("   traffic pool bulk type lossy\n   traffic pool bulk map switch-priority 3\n", []),
    ("   traffic pool roce type lossless\n", []),
])
def test_a_lossless_traffic_pool_is_lossless_intent_not_pfc(tmp_path, pool, lossless):
    """Session 35 part a's leftover: a switch whose only lossless setting is a lossless traffic pool read as one with
    no lossless setting (PFC006, and skipped under devices_without_lossless: skip). The pool makes its switch
    priorities lossless classes; PFC stays off without the `dcb priority-flow-control` lines (Onyx User Manual, PFC),
    so each RoCE port's PFC001 says so."""
    text = HEAD + "   interface ethernet 1/1-1/2 qos trust L3\n" + pool
    device = parse(text)
    assert [fc.pfc_priority for fc in device.forwarding_classes or () if fc.no_loss] == lossless
    path = tmp_path / "mc01.cfg"
    path.write_text(text)
    codes = [f.code for f in lint([path], policy="roce-dscp26").findings if f.severity.value == "error"]
    if 3 in lossless:
        assert "PFC006" not in codes and codes.count("PFC001") == 2
        skip = tmp_path / "skip.yaml"
        skip.write_text("name: skip\nextends: roce-dscp26\nroce_ports:\n  devices_without_lossless: skip\n")
        assert [f.code for f in lint([path], policy=str(skip)).findings if f.code in ("PFC001", "SEL001")] == \
            ["PFC001", "PFC001"]
    else:
        assert codes == ["PFC006"]


@pytest.mark.parametrize("pfc, add", [
    # Onyx User Manual, "Priority Flow Control (PFC)": `dcb priority-flow-control enable force` switch-wide, `dcb
    # priority-flow-control priority N enable` per priority, `dcb priority-flow-control mode on force` per port
    ("", "add `dcb priority-flow-control enable force`, `dcb priority-flow-control priority 3 enable` and the port's "
         "`dcb priority-flow-control mode on force`"),
    ("   dcb priority-flow-control enable force\n",
     "add `dcb priority-flow-control priority 3 enable` and the port's `dcb priority-flow-control mode on force`"),
])
def test_pfc001_names_the_lossless_pool_and_the_lines_to_add(tmp_path, pfc, add):
    """Session 35 part c: a lossless pool without PFC gave PFC001 at the port's line with "enable PFC on priority 3":
    the operator was not told which line made the priority lossless nor what Onyx line pauses it."""
    text = (HEAD + pfc + "   interface ethernet 1/1 qos trust L3\n   traffic pool roce type lossless\n"
            "   traffic pool roce map switch-priority 3\n")
    path = tmp_path / "mc01.cfg"
    path.write_text(text)
    found = [f for f in lint([path], policy="roce-dscp26").findings if f.code == "PFC001"]
    pool = line_of(text, "traffic pool roce type lossless")
    assert [f.message for f in found] == [
        f"PFC is off for lossless priority 3 (enabled: none); traffic pool roce switch-priority 3 at line {pool} "
        f"declares it lossless: {add}"]
    assert found[0].source.line == (line_of(text, "dcb priority-flow-control enable force") if pfc else pool)


@pytest.mark.parametrize(("text", "onyx_file"), [
    # after an Onyx prompt, the signs of a bare line: a port, global PFC, `roce`, a traffic pool, the prefix-mode line
    ("sw1 [standalone: master] (config) # traffic pool roce type lossless\n", True),
    ("sw1 (config) # roce lossless\n", True),
    ("sw1 (config) # no cli default prefix-modes enable\n", True),
    ("sw1 [standalone: master] (config) # dcb priority-flow-control priority 3 enable\n", True),
    # a port's sub-mode at an Onyx-only QoS command (the flat `interface ethernet 1/1 qos trust L3` typed so)
    ("sw1 [standalone: master] (config interface ethernet 1/1) # qos trust L3\n", True),
    ("sw1 (config interface ethernet 1/1-1/4) # traffic-class 3 congestion-control ecn minimum-absolute 150 "
     "maximum-absolute 1500\n", True),
    # Session 35 part a: `dcb enable` (a "Mellanox SX" DCB chapter) is no Onyx command as a bare line: no sign after a
    # prompt either (it was, and then refused with "no `dcb` lines" beside it)
    ("switch [standalone: master] (config) # dcb enable\n", False),
    ("switch (config interface ethernet 1/1) # speed 100G\n", False),
])
def test_detection_after_a_prompt_reads_the_command_as_a_bare_line(text, onyx_file):
    assert onyx.sniff(Input("x.cfg", text)) is onyx_file


def test_a_session_without_onyx_lines_is_refused_with_a_true_message():
    """The refusal named `dcb` lines as what was missing beside `switch (config) # dcb enable`: it names the lines it
    asks for (`dcb priority-flow-control`), as bare lines or typed at a prompt."""
    with pytest.raises(InputError) as err:
        parse("switch [standalone: master] (config) # dcb enable\n"
              "switch [standalone: master] (config) # interface 1/1-1/32\n")
    assert "`dcb priority-flow-control`" in str(err.value) and "`dcb` " not in str(err.value)
    assert "typed at an Onyx prompt" in str(err.value) and err.value.line == 1


@pytest.mark.parametrize("typed", ["int eth 1/1 dcb priority-flow-control mode on force",
                                   "interface Ethernet 1/1 dcb priority-flow-control mode on force",
                                   "inter e 1/1 dcb priority-flow-control mode on force",
                                   "int eth 1/1\n   dcb priority-flow-control mode on force\n   exit"])
def test_interface_words_abbreviated_as_onyx_takes_them_are_read(typed):
    """`int eth 1/1-1/36` typed at `(config) #` enters `(config interface ethernet 1/1-1/36) #` (audit round 15: an
    SX6036 session): the abbreviated line was passed over without a word, the port and its PFC with it."""
    device = parse(f"hostname o1\ndcb priority-flow-control enable force\ndcb priority-flow-control priority 3 enable\n"
                   f"{typed}\ninterface ethernet 1/2 qos trust L3\n")
    assert device.ports["Eth1/1"].pfc_enabled == [3] and device.issues == []


def test_an_ambiguous_or_other_interface_word_is_left_as_written():
    """`int m 1/1` could be mgmt0, mgmt1 or mlag-port-channel: not spelled out, not read as a port."""
    device = parse("hostname o1\nint m 1/1 dcb priority-flow-control mode on force\n"
                   "interface ethernet 1/2 qos trust L3\n")
    assert list(device.ports) == ["Eth1/2"]


def test_an_interface_command_abbreviated_in_a_port_mode_is_its_own_command():
    """`inter eth 1/2 ...` or `no int port-channel 1` typed at `(config interface ethernet 1/1) #` is an `interface`
    command of its own, as the whole word is: only `int` was written out there (the session's own special case beside
    _spelled), so the line became a command of port 1/1 and port 1/2's MTU was passed over without a word."""
    from losslessd.parse.onyx import reader as onyx_reader
    text = "\n".join(["sw1 (config) # int eth 1/1",
                      "sw1 (config interface ethernet 1/1) # inter eth 1/2 mtu 9216 force",
                      "sw1 (config interface ethernet 1/1) # no int port-channel 1"])
    assert onyx_reader.session(text).split("\n") == [
        "interface ethernet 1/1", "interface ethernet 1/2 mtu 9216 force", "no interface port-channel 1"]
    assert parse(f"{text}\nsw1 (config) # interface ethernet 1/2 qos trust L3\n").ports["Eth1/2"].mtu_bytes == 9216


def test_router_ports_are_untagged():
    """Onyx User Manual, "IP Routing Overview": a router port interface is an Ethernet port (or port-channel) taken out
    of Layer 2 with `no switchport force` and given an `ip address`; Onyx names no dot1q subinterface (`interface
    ethernet <slot>/<port>[/<subport>]`), so it sends untagged (Port.vlans []) and a member of a routed port-channel
    with it. A trunk, a port with a `no ip address` alone and one the config says nothing of keep None. Before: every
    port None."""
    device = parse("\n".join([
        "## Hostname: leaf1", "no cli default prefix-modes enable",
        "   interface ethernet 1/1 no switchport force",
        "   interface ethernet 1/1 ip address 192.0.2.0/31 primary",
        "   interface ethernet 1/2 switchport mode trunk",
        "   interface ethernet 1/3 no ip address",
        "   interface port-channel 10 no switchport force",
        "   interface ethernet 1/4 channel-group 10 mode active",
        "   interface ethernet 1/5 description nothing said",
        "   interface ethernet 1/6 ipv6 address 2001:db8::/127", ""]))
    assert device.issues == []
    assert {name: port.vlans for name, port in device.ports.items()} == {
        "Eth1/1": [], "Eth1/2": None, "Eth1/3": None, "Eth1/4": [], "Eth1/5": None, "Eth1/6": []}


def test_qos_lines_of_other_words_are_named_and_leave_what_they_name_unknown():
    """Onyx User Manual: trust is `qos trust L2|L3|both|port` on the port, ECN `traffic-class N congestion-control`,
    PFC `dcb priority-flow-control ...`. A guide's Onyx page (round 17) wrote `traffic ecn tc 3 ...`, `pfc-watchdog
    enable`, `traffic dscp-map dscp 26 priority 3`, `dcbx mode cee` globally and `dcb trust dscp` on the ports: no
    Onyx command losslessd reads. Before: the global lines passed over without a word, and the ports read as trusting
    L2 (MAP003 error), marking nothing and mapping DSCP by the default map. Now each line is a SYS002, and the trust,
    the DSCP map, the ECN marking and (for a cut mode line) the port's PFC are unknown, not the defaults."""
    glob = ["traffic ecn tc 3 min-absolute 150 max-absolute 1500", "pfc-watchdog enable",
            "traffic dscp-map dscp 26 priority 3", "dcbx mode cee"]
    port_lines = ["interface ethernet 1/1 dcb trust dscp", "interface ethernet 1/2 dcb priority-flow-control mode"]
    text = HEAD + PFC + "".join(f"   {line}\n" for line in [*glob, *port_lines]) + \
        "   interface ethernet 1/3 dcb priority-flow-control mode on force\n"
    device = parse(text)
    assert {("SYS002", line_of(text, line)) for line in [*glob, *port_lines]} <= issues(device)
    first, second, third = (device.ports[f"Eth1/{n}"] for n in (1, 2, 3))
    assert first.trust is None and first.trust_source.line == line_of(text, port_lines[0])
    assert second.trust == Trust.pcp  # (no line names its trust: Onyx's default L2)
    assert first.dscp_to_tc is None and third.dscp_to_tc is None  # the global `dscp-map` line
    assert third.queues[3].ecn.ecn_enabled is None
    assert second.pfc_enabled is None and second.pfc_source.line == line_of(text, port_lines[1])
    assert third.pfc_enabled == [3]
    # lines of the same words on a port alone: only that port's settings are unknown
    alone = parse(HEAD + PFC + "   interface ethernet 1/1 ecn enable\n   interface ethernet 1/2 qos trust L3\n")
    assert alone.ports["Eth1/1"].queues[3].ecn.ecn_enabled is None
    assert 3 not in alone.ports["Eth1/2"].queues and alone.ports["Eth1/2"].trust == Trust.dscp


@pytest.mark.parametrize("lines", [
    # a page's nested form: the marking typed under a `traffic-class 3` line of the port (audit round 18)
    ["  traffic-class 3", "    congestion-control ecn minimum-absolute 150 maximum-absolute 1500"],
    # a `traffic-class 3` line alone, or with a command after it that losslessd does not read
    ["  traffic-class 3"],
    ["  traffic-class 3 shaper 10G"],
])
def test_a_traffic_class_line_not_read_leaves_its_marking_unknown(tmp_path, lines):
    """Round 18: an Onyx port line naming traffic class 3 that losslessd does not read left queue 3 unmarked, so
    ECN001 said "does not mark ECN" as an error; and a line indented under a port's command (Onyx User Manual, "CLI
    prefix modes": each port command is one line under `interface ethernet`, none opens a mode) was skipped without a
    word, since its first word (`congestion-control`) is no port command's."""
    text = HEAD + PFC + "interface ethernet 1/1\n  qos trust L3\n  dcb priority-flow-control mode on force\n" + \
        "\n".join(lines) + "\n"
    path = tmp_path / "leaf.cfg"
    path.write_text(text)
    result = lint([path], policy="roce-dscp26")
    assert [f.severity.value for f in result.findings if f.code == "ECN001"] == ["info"]
    named = sorted(f.source.line for f in result.findings if f.code == "SYS002")
    assert named == list(range(len(text.split("\n")) - len(lines), len(text.split("\n"))))


def test_a_traffic_class_line_read_before_an_unread_one_keeps_its_marking():
    """The unknown marking of a traffic-class line not read does not undo one read before it on the port."""
    text = HEAD + PFC + "interface ethernet 1/1\n  traffic-class 3 congestion-control ecn minimum-absolute 150 " \
        "maximum-absolute 1500\n  traffic-class 3 shaper 10G\n"
    assert parse(text).ports["Eth1/1"].queues[3].ecn.min_threshold_bytes == 150 * 1024


@pytest.mark.parametrize("switch", ["   no dcb priority-flow-control enable\n", ""])
def test_pfc001_asks_for_the_switch_wide_enable_where_priority_and_port_mode_are_written(tmp_path, switch):
    """Onyx User Manual, "Priority Flow Control (PFC)": a port pauses a priority with the switch-wide `dcb
    priority-flow-control enable`, the priority's `dcb priority-flow-control priority N enable` and the port's `mode
    on`. With the last two written and the first off or absent, PFC001 said "enable PFC on priority 3" (already
    enabled); it names the missing switch, as on EOS and OS10 (Port.pfc_switch). A port without `mode on` keeps the
    plain message (the switch alone would not pause there)."""
    text = (HEAD + switch + "   dcb priority-flow-control priority 3 enable\n   interface ethernet 1/1 qos trust L3\n"
            "   interface ethernet 1/1 dcb priority-flow-control mode on force\n"
            "   interface ethernet 1/2 qos trust L3\n")
    path = tmp_path / "sw1.cfg"
    path.write_text(text)
    found = {f.port: f.message for f in lint([path], policy="roce-dscp26").findings if f.code == "PFC001"}
    assert found["Eth1/1"].endswith("the port writes priority 3 no-drop, but its PFC is off: add `dcb "
                                    "priority-flow-control enable force` (switch-wide)"), found
    assert found["Eth1/2"].endswith("; enable PFC on priority 3"), found


@pytest.mark.parametrize(("line", "what"), [
    ("   dcb priority-flow-control watchdog enable", "the Onyx PFC watchdog"),
    ("   dcb priority-flow-control watchdog polling-interval 100", "the Onyx PFC watchdog"),
    ("   interface ethernet 1/1 pfc-wd enable", "the Onyx PFC watchdog"),
    ("   traffic pool roce size 5242880", "a buffer pool or priority-group size"),
    ("   pool iPool1 size 5242880", "a buffer pool or priority-group size"),
    ("   interface ethernet 1/1 ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 67538 xoff 24576 "
     "xon 24576 shared alpha 2", "a buffer pool or priority-group size"),
])
def test_a_watchdog_or_buffer_size_line_names_what_no_nvidia_document_gives(line, what):
    """Session 42 part g: the Onyx PFC watchdog lines and the buffer sizes of advanced buffer mode were named as "a
    QoS/PFC command losslessd does not read", or refused as no `traffic pool` form; no NVIDIA page read gives the
    watchdog's command or timers (the Onyx manual's PFC page describes what it does), nor the unit of a pool's or
    PG's sizes. Each is now named with what could not be
    verified, and none is read with a guessed unit. A global `dcb priority-flow-control watchdog ...` line read as
    "what PFC it sets is unknown", so the switch-wide enable and `priority 3 enable` beside it were lost (PFC001
    "PFC state is not in the input"): a watchdog line sets no priority's PFC, which stays read. Our fixture, in the
    Onyx User Manual's PFC and Shared Buffer forms."""
    text = (HEAD + PFC + "   interface ethernet 1/1 dcb priority-flow-control mode on force\n"
            + "   traffic pool roce type lossless\n" + line + "\n")
    device = parse(text)
    found = [i for i in device.issues if i.source.line == line_of(text, line.strip())]
    assert len(found) == 1 and found[0].code == "SYS002" and what in found[0].message, device.issues
    assert "could not be verified" in found[0].message or "no NVIDIA document losslessd read" in found[0].message
    port = device.ports["Eth1/1"]
    assert port.pfc_enabled == [3] and port.watchdog is None and not port.priority_groups


@pytest.mark.parametrize("line", ["   interface ethernet 1/1 ingress-buffer iPort.pg3 bind switch-priority 3",
                                  "   pool iPool0 direction ingress mode dynamic",
                                  "   interface ethernet 1/1 egress-buffer ePort.tc3 map pool ePool0"])
def test_a_buffer_line_that_sets_no_size_is_not_said_to(line):
    """Session 42 review r3: part g named every `ingress-buffer`, `egress-buffer` and `pool` line "a buffer pool or
    priority-group size" whose unit no NVIDIA document gives, also one that binds a PG or names a pool's mode and
    has no size. Those are named as any QoS line losslessd does not read. Our fixture, in the Onyx User Manual's
    Shared Buffer forms."""
    text = (HEAD + PFC + "   interface ethernet 1/1 dcb priority-flow-control mode on force\n" + line + "\n")
    device = parse(text)
    found = [i for i in device.issues if i.source.line == line_of(text, line.strip())]
    assert len(found) == 1 and found[0].code == "SYS002", device.issues
    assert "size" not in found[0].message.split("`")[-1] and "not read" in found[0].message, found[0].message
