"""Arista EOS running-config parser: AVD's real qos.cfg, hand-written RoCE leaf configs, and targeted snippets."""

from __future__ import annotations

import pytest

from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.model import SchedulerType, Trust
from losslessd.parse import clitext, detect, eos
from losslessd.parse.base import Input
from losslessd.parse.eos import flat as eos_flat
from losslessd.parse.eos import reader as eos_reader
from tests.conftest import FIXTURES

RAW = FIXTURES / "raw" / "arista_eos"


def parse(text: str, name: str = "sw1", path: str = "sw1.cfg"):
    return eos.parse([Input(path, text)], name)


def fixture(stem: str):
    path = RAW / f"{stem}.cfg"
    return eos.parse([Input(f"tests/fixtures/raw/arista_eos/{stem}.cfg", path.read_text(encoding="utf-8"))], stem)


def line_of(text: str, wanted: str, after: str | None = None) -> int:
    """1-based number of the first line that reads `wanted` (stripped), after the line that reads `after`."""
    lines = [line.strip() for line in text.split("\n")]
    start = lines.index(after) if after else 0
    return lines.index(wanted, start) + 1


@pytest.fixture(scope="module")
def avd_text(corpus) -> str:
    return (corpus / "eos" / "avd-qos.cfg").read_text(encoding="utf-8")


def with_port(text: str, *lines: str, name: str = "Ethernet99") -> str:
    """The real config with one more interface that uses what the test wants to see applied."""
    return text + f"interface {name}\n" + "".join(f"   {line}\n" for line in lines) + "!\n"


# --- the real AVD output ------------------------------------------------------------------------

def test_avd_config_parses_without_issues(avd_text):
    device = parse(avd_text, "avd-qos", "avd-qos.cfg")
    # Two things the file itself leaves open: profile experiment's qos policy-map test_qos_policy_v1 is not defined,
    # and pmap_test1 sets traffic classes for ACL classes, which are not evaluated; Port-Channel3's profile, trust
    # and default CoS, which no Arista document read says its members take.
    channel = [line_of(avd_text, line, after="interface Port-Channel3")
               for line in ("service-profile experiment", "qos trust cos", "qos cos 2")]
    assert sorted((i.code, i.source.line) for i in device.issues) == sorted([
        ("SYS002", line_of(avd_text, "service-policy type qos input test_qos_policy_v1")),
        ("SYS002", line_of(avd_text, "class cmap_tc0_v4", after="policy-map type quality-of-service pmap_test1")),
        *(("SYS002", n) for n in channel)])
    assert eos.sniff(Input("avd-qos.cfg", avd_text))
    # Ethernet interfaces only: Port-Channel3, Management1 are not ports here.
    assert sorted(device.ports) == ["Ethernet1", "Ethernet3", "Ethernet4", "Ethernet6", "Ethernet7"]


def test_avd_profile_test_kbytes_and_segments(avd_text):
    port = parse(avd_text).ports["Ethernet1"]  # service-profile test
    ecn = port.queues[2].ecn
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes) == (327680, 327680)  # 320 kbytes, 1024-based
    assert ecn.mark_probability_pct == 90
    assert ecn.profile == "test" and ecn.unconverted is None
    assert ecn.source.line == line_of(avd_text, "random-detect ecn minimum-threshold 320 kbytes maximum-threshold "
                                                "320 kbytes max-mark-probability 90", after="qos profile test")
    segments = port.queues[4].ecn
    assert segments.ecn_enabled and segments.min_threshold_bytes is None and segments.max_threshold_bytes is None
    assert "320 segments" in segments.unconverted


def test_avd_milliseconds_need_the_port_speed(avd_text):
    slow = parse(with_port(avd_text, "service-profile uc_mc_queues_test")).ports["Ethernet99"]
    assert slow.queues[1].ecn.min_threshold_bytes is None
    assert "3 milliseconds" in slow.queues[1].ecn.unconverted
    assert slow.queues[2].ecn.min_threshold_bytes == 327680  # the kbytes queue of the same profile converts
    fast = parse(with_port(avd_text, "speed forced 100gfull", "service-profile uc_mc_queues_test")).ports["Ethernet99"]
    ecn = fast.queues[1].ecn
    # 3 ms and 9 ms of 100 Gb/s line rate
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.unconverted) == (37_500_000, 112_500_000, None)


def test_avd_wred_drop_is_not_ecn(avd_text):
    port = parse(with_port(avd_text, "service-profile wred_queues_test")).ports["Ethernet99"]
    assert port.queues[1].ecn.ecn_enabled is False  # random-detect drop only
    assert port.queues[3].ecn.ecn_enabled is True
    assert not parse(with_port(avd_text, "service-profile wred_uc_queues_test")).ports["Ethernet99"].qos_configured


def test_avd_pfc_profile_and_global_all_off(avd_text):
    port = parse(with_port(avd_text, "service-profile test_with_pfc")).ports["Ethernet99"]
    # `priority-flow-control all off` at the end of the file switches PFC off everywhere.
    assert port.pfc_enabled == []
    assert port.pfc_source.line == line_of(avd_text, "priority-flow-control all off")
    without = avd_text.replace("priority-flow-control all off\n", "")
    port = parse(with_port(without, "service-profile test_with_pfc")).ports["Ethernet99"]
    assert port.pfc_enabled == [0]  # priority 0 no-drop, priority 1 drop
    assert port.pfc_source.line == line_of(without, "priority-flow-control on", after="qos profile test_with_pfc")
    assert port.qos_configured
    # The profile's port timers override the global defaults; the port action overrides the global action.
    wd = port.watchdog
    assert (wd.enabled, wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms, wd.action) == \
        (True, 50, 1110, None, "drop")


def test_avd_global_watchdog_defaults(avd_text):
    wd = parse(with_port(avd_text, "priority-flow-control pause watchdog")).ports["Ethernet99"].watchdog
    assert (wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms) == (50, 1220, 10001)
    assert (wd.action, wd.action_raw) == ("forward", "no-drop")  # EOS no-drop: keep forwarding, ignore pauses
    # No watchdog line on the port: the switch is on by default (`show running-config all` prints the positive line
    # on every port), so the global timeout starts it, as on a port with the line. Before: off (a false WDG001).
    plain = parse(avd_text).ports["Ethernet1"].watchdog
    assert (plain.enabled, plain.detection_time_ms, plain.action_raw) == (True, 50, "no-drop")
    assert plain.source.line == line_of(avd_text, "priority-flow-control pause watchdog default timeout 0.05")


def test_avd_maps_merge_over_eos_defaults(avd_text):
    device = parse(with_port(avd_text, "no switchport", "qos trust dscp"))
    routed = device.ports["Ethernet99"]
    assert routed.trust == Trust.dscp
    assert routed.dscp_to_tc[26] == 4 and routed.dscp_to_tc[46] == 5 and routed.dscp_to_tc[8] == 1  # configured
    assert routed.dscp_to_tc[0] == 1 and routed.dscp_to_tc[48] == 6 and routed.dscp_to_tc[56] == 7  # EOS defaults
    assert routed.map_source.line == line_of(avd_text, "qos map dscp 8 9 10 11 12 13 14 15 16 17 19 21 23 24 25 27 29 "
                                             "31 32 33 35 37 39 40 41 42 43 44 45 47 49 50 51 52 53 54 55 57 58 59 "
                                             "60 61 62 63 to traffic-class 1")
    assert routed.tc_to_queue == {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 2, 7: 7}
    # Ethernet1 also takes qos policy-map pmap_test1, whose class-default sets traffic class 1 for all the traffic
    # its ACL classes do not take: that wins over the DSCP map.
    policed = device.ports["Ethernet1"]
    assert set(policed.dscp_to_tc.values()) == {1} and policed.map_source.line == line_of(
        avd_text, "policy-map type quality-of-service pmap_test1")
    # Ethernet6 trusts CoS through qos profile experiment, whose qos policy-map test_qos_policy_v1 the file does not
    # define: that policy's classes come first, so which field sorts the port's traffic is unknown (it read PCP).
    experiment = device.ports["Ethernet6"]
    assert (experiment.trust, experiment.dscp_to_tc, experiment.pcp_to_tc) == (None, None, None)
    switched = parse(with_port(avd_text, "qos trust cos")).ports["Ethernet99"]
    assert switched.trust == Trust.pcp and switched.dscp_to_tc is None
    # `qos map cos 1 2 3 4 to traffic-class 2` then `qos map cos 3 to traffic-class 3`; CoS 0 -> TC 1 by default.
    assert switched.pcp_to_tc == {0: 1, 1: 2, 2: 2, 3: 3, 4: 2, 5: 5, 6: 6, 7: 7}


def test_avd_qos_configured_ports(avd_text):
    ports = parse(avd_text).ports
    assert ports["Ethernet1"].qos_configured and ports["Ethernet6"].qos_configured
    # Ethernet7's profile only shapes queues; `random-detect ecn count` turns on a counter, not marking.
    assert not ports["Ethernet7"].qos_configured
    assert not ports["Ethernet3"].qos_configured  # a plain port-channel member: default trust only
    assert ports["Ethernet3"].trust == Trust.pcp and ports["Ethernet3"].trust_source.line == line_of(
        avd_text, "interface Ethernet3")


def test_avd_no_qos_trust_is_trust_none(avd_text):
    port = parse(with_port(avd_text, "no switchport", "service-profile no_qos_trust")).ports["Ethernet99"]
    assert port.trust == Trust.none
    assert port.trust_source.line == line_of(avd_text, "no qos trust")
    assert port.dscp_to_tc is None and port.qos_configured


def test_avd_strict_until_no_priority(avd_text):
    text = avd_text
    queues = parse(text).ports["Ethernet1"].queues  # profile test: tx-queue 1 `no priority`, tx-queue 2 strict
    no_priority = line_of(text, "no priority", after="qos profile test")
    assert [queues[i].scheduler.type for i in range(4)] == [SchedulerType.wrr, SchedulerType.wrr,
                                                            SchedulerType.strict, SchedulerType.strict]
    assert queues[0].scheduler.source.line == no_priority  # made round robin by queue 1's `no priority`
    assert queues[1].scheduler.weight == 50
    assert queues[2].scheduler.source.line == line_of(text, "priority strict", after="qos profile test")
    assert queues[3].scheduler.source is None  # EOS default


# --- hand-written fixtures --------------------------------------------------------------------------

def test_roce_leaf():
    device = fixture("roce-leaf")
    assert device.name == "roce-leaf1" and device.hwsku == "DCS-7060X6-64PE" and device.issues == []
    port = device.ports["Ethernet1/1"]
    assert (port.speed_gbps, port.mtu_bytes, port.admin_up, port.trust) == (400, 9214, True, Trust.dscp)
    assert port.pfc_enabled == [3] and port.priority_groups[3].runtime_profile
    assert port.dscp_chain(26).describe() == "DSCP 26 -> TC 3 -> priority 3 -> PG 3 -> queue 3"
    assert port.queues[6].scheduler.type == SchedulerType.strict
    assert (port.queues[3].scheduler.type, port.queues[3].scheduler.weight) == (SchedulerType.wrr, 90)
    assert (port.queues[3].ecn.min_threshold_bytes, port.queues[3].ecn.max_threshold_bytes) == (153600, 1536000)
    wd = port.watchdog
    assert (wd.enabled, wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms, wd.action) == \
        (True, 200, 400, 100, "drop")
    assert device.ports["Ethernet2/1"].admin_up is False
    assert device.ports["Ethernet33/1"].speed_gbps == 800  # speed forced 800gfull
    unused = device.ports["Ethernet65"]
    # the global timeout starts the watchdog on every port (its switch is on by default); PFC off, it guards nothing
    assert not unused.qos_configured and unused.pfc_enabled == [] and unused.watchdog.enabled is True


def test_mixed_units():
    device = fixture("mixed-units")
    assert device.issues == []
    ports = device.ports
    # 10 us and 1 ms at 100 Gb/s
    ecn = ports["Ethernet1"].queues[3].ecn
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.unconverted) == (125_000, 12_500_000, None)
    assert ports["Ethernet2"].queues[3].ecn.unconverted.endswith("maximum-threshold 1 milliseconds "
                                                                 "max-mark-probability 10")
    assert ports["Ethernet3"].queues[3].ecn.min_threshold_bytes is None
    assert "2000 segments" in ports["Ethernet3"].queues[3].ecn.unconverted
    # Interface lines override the profile's: trust and the queue's ECN; the profile's PFC still applies.
    storage = ports["Ethernet4"]
    assert storage.trust == Trust.pcp and storage.pfc_enabled == [3]
    ecn = storage.queues[3].ecn
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.mark_probability_pct, ecn.profile) == \
        (65536, 524288, 50, None)
    assert device.ports["Ethernet1"].tc_to_queue[3] == 3
    # 20 us and 0.2 ms at 200 Gb/s; port watchdog timers, polling interval auto
    direct = ports["Ethernet5/1"]
    assert (direct.queues[3].ecn.min_threshold_bytes, direct.queues[3].ecn.max_threshold_bytes) == (500_000, 5_000_000)
    wd = direct.watchdog
    assert (wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms, wd.action) == \
        (500, 2000, None, "notify-only")


def test_truncated_config_reports_lines_and_parses_the_rest():
    text = (RAW / "truncated.cfg").read_text(encoding="utf-8")
    device = fixture("truncated")
    assert {issue.code for issue in device.issues} == {"SYS002"}
    lines = {issue.source.line for issue in device.issues}
    for wanted in ("qos map dscp x to traffic-class 6", "priority-flow-control priority x no-drop",
                   "### pasted by mistake ###", "bandwith percent 50", "service-profile ROCE-V2"):
        assert line_of(text, wanted) in lines, wanted
    last = text.count("\n") + 1
    assert [i for i in device.issues if i.source.line == last and "truncated" in i.message]
    good = device.ports["Ethernet1"]
    assert good.pfc_enabled == [3] and good.queues[3].ecn.min_threshold_bytes == 153600
    # An undefined service-profile: its settings are unknown, not "off".
    unknown = device.ports["Ethernet2"]
    assert unknown.qos_configured and unknown.pfc_enabled is None and unknown.trust is None and unknown.queues == {}


# --- snippets ---------------------------------------------------------------------------------------

ROUTED = ("interface Ethernet1\n   no switchport\n   priority-flow-control on\n"
          "   priority-flow-control priority 3 no-drop\n")


def test_unknown_threshold_unit_is_sys003_with_line():
    text = ROUTED + "   tx-queue 3\n      random-detect ecn minimum-threshold 5 furlongs maximum-threshold 9 furlongs\n"
    device = parse(text)
    assert [(i.code, i.source.file, i.source.line) for i in device.issues] == [("SYS003", "sw1.cfg", 6)]
    ecn = device.ports["Ethernet1"].queues[3].ecn
    assert ecn.ecn_enabled and ecn.min_threshold_bytes is None and "furlongs" in ecn.unconverted


def test_ecn_wrapped_under_a_queue_line_leaves_the_marking_unknown():
    """A tx-queue's `bandwidth percent 50` with a `random-detect ecn ...` indented under it (a page's wrap): the piece
    is named, not read, and queue 3's marking is unknown, not "no ECN" (TreeReader.marking_piece)."""
    text = ROUTED + ("   tx-queue 3\n      bandwidth percent 50\n"
                     "         random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n")
    device = parse(text)
    ecn = device.ports["Ethernet1"].queues[3].ecn
    assert ecn.ecn_enabled is None and ecn.source.line == line_of(text, "bandwidth percent 50")
    assert ("SYS002", line_of(text, "bandwidth percent 50") + 1) in {(i.code, i.source.line) for i in device.issues}


@pytest.mark.parametrize("line", [
    # a unit keyword EOS's `random-detect ecn` syntax has no place for (EOS User Manual, QoS: `minimum-threshold X
    # UNIT maximum-threshold Y UNIT`)
    "random-detect ecn minimum-threshold 512 maximum-threshold 1536 units kbytes",
    "random-detect ecn min-threshold 150 kbytes max-threshold 1500 kbytes",
    "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability",
])
def test_a_random_detect_ecn_line_not_read_leaves_the_queue_s_marking_unknown(line):
    """Skipping the line must not read as `no random-detect ecn`: ECN001 would then call the queue unmarked."""
    text = ROUTED + f"   tx-queue 3\n      {line}\n"
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 6)]
    ecn = device.ports["Ethernet1"].queues[3].ecn
    assert ecn.ecn_enabled is None and ecn.source.line == 6
    # in a qos profile too, and the port's own `no random-detect ecn` still says off
    profile = ("qos profile P\n   tx-queue 3\n      " + line + "\n!\n"
               "interface Ethernet1\n   service-profile P\n!\n"
               "interface Ethernet2\n   service-profile P\n   tx-queue 3\n      no random-detect ecn\n")
    ports = parse(profile).ports
    assert ports["Ethernet1"].queues[3].ecn.ecn_enabled is None
    assert ports["Ethernet2"].queues[3].ecn.ecn_enabled is False


def test_pfc_needs_on_and_interface_overrides_profile():
    text = ("qos profile P\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
            "   priority-flow-control priority 4 no-drop\n!\n"
            "interface Ethernet1\n   service-profile P\n   priority-flow-control priority 4 drop\n!\n"
            "interface Ethernet2\n   service-profile P\n   priority-flow-control off\n!\n"
            "interface Ethernet3\n   priority-flow-control priority 3 no-drop\n")
    ports = parse(text).ports
    assert ports["Ethernet1"].pfc_enabled == [3]
    assert ports["Ethernet2"].pfc_enabled == [] and ports["Ethernet2"].pfc_source.line == 12
    # no-drop without `priority-flow-control on` pauses nothing
    assert ports["Ethernet3"].pfc_enabled == [] and ports["Ethernet3"].pfc_source.line == 15


def test_default_trust_follows_switchport_mode():
    ports = parse("hostname x\ninterface Ethernet1\n   no switchport\n!\ninterface Ethernet2\n   mtu 9000\n").ports
    assert (ports["Ethernet1"].trust, ports["Ethernet1"].trust_source.line) == (Trust.dscp, 3)
    assert (ports["Ethernet2"].trust, ports["Ethernet2"].trust_source.line) == (Trust.pcp, 5)
    assert ports["Ethernet1"].dscp_to_tc[26] == 3 and ports["Ethernet1"].tc_to_queue == {tc: tc for tc in range(8)}
    assert not ports["Ethernet1"].qos_configured


def test_name_from_hostname_else_given():
    assert parse("hostname leaf-7\n!\n", "file-name").name == "leaf-7"
    assert parse("interface Ethernet1\n   mtu 9214\n", "file-name").name == "file-name"


@pytest.mark.parametrize("text,line", [
    ('{"PORT": {}}\n', 1),
    ("\n\ninterfaces {\n    et-0/0/0 {\n", 3),
    ("set interfaces et-0/0/0 unit 0\nset class-of-service\n", 1),
    ("   \n", 1),
])
def test_not_eos_raises_input_error_with_file_and_line(text, line):
    with pytest.raises(InputError) as err:
        parse(text, path="notes.txt")
    assert (err.value.file, err.value.line) == ("notes.txt", line)


@pytest.mark.parametrize("text,expected", [
    ("! Command: show running-config\n! device: s1 (DCS-7050SX3-48YC8, EOS-4.27.0F)\n!\nhostname s1\n", True),
    ("hostname s1\n!\ninterface Ethernet1\n   mtu 9214\n!\n", True),
    # NX-OS: `!Command:` without a space, `feature`, two-space indentation
    ("!Command: show running-config\nversion 9.3(8)\nfeature lldp\ninterface Ethernet1/1\n  mtu 9216\n", False),
    ("interface Ethernet1/1\n  priority-flow-control mode on\n", False),
    ("interfaces {\n    et-0/0/0 {\n        mtu 9216;\n    }\n}\n", False),
    ('{"PORT": {"Ethernet0": {}}}', False),
    ("", False),
    # (noise census, session 37 part f) EOS's VXLAN tunnel interface block (`interface vxlan 1`, EOS User Manual);
    # NX-OS's is `interface nve1`, indented by two
    ("!\ninterface Vxlan1\n   vxlan source-interface Loopback1\n!\nrouter bgp 65101\n", True),
    ("interface nve1\n  source-interface loopback1\n", False),
    # RANCID's header of its `arista` type; of `cisco-nx` it is NX-OS's
    ("!RANCID-CONTENT-TYPE: arista\n!\nhostname rr1\n!\nrouter bgp 65010\n", True),
    ("!RANCID-CONTENT-TYPE: cisco-nx\n!\nhostname n1\n", False),
    # a switch with global lines alone: EOS's routing agent model, its streaming agent
    ("hostname m1\n!\nservice routing protocols model multi-agent\n!\nend\n", True),
    ("daemon TerminAttr\n   exec /usr/bin/TerminAttr -taillogs\n   no shutdown\n", True),
])
def test_sniff(text, expected):
    assert eos.sniff(Input("x", text)) is expected


def test_fixtures_sniff_as_eos():
    for path in RAW.glob("*.cfg"):
        assert eos.sniff(Input(path.name, path.read_text(encoding="utf-8"))), path


COMMENTED = """hostname leaf1
banner motd
Maintenance window: do not run
qos map dscp 26 to traffic-class 1
EOF
!
interface Ethernet1
   no switchport
   comment
   Planned for the RoCE rollout:
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   EOF
   qos trust dscp
!
"""


def test_comment_and_banner_text_is_not_configuration():
    # EOS keeps free text up to an `EOF` line (`comment` under a block, `banner login|motd`); text that reads like a
    # command inside one once set PFC and DSCP maps the switch does not have.
    device = parse(COMMENTED)
    port = device.ports["Ethernet1"]
    assert not device.issues and port.trust == Trust.dscp and port.pfc_enabled == []
    assert port.dscp_to_tc[26] == 3  # EOS's default map: the banner's line is text
    assert port.trust_source.line == line_of(COMMENTED, "qos trust dscp")


def test_a_comment_without_its_eof_is_read_as_configuration():
    # No closing `EOF` (a cut or hand-edited file): nothing is dropped on a guess.
    text = COMMENTED.replace("   EOF\n", "")
    assert parse(text).ports["Ethernet1"].pfc_enabled == [3]


POLICY_MAP = """hostname leaf1
class-map type qos match-any ROCE
   match dscp 26
!
class-map type qos match-any BULK-ACL
   match ip access-group bulk-v4
!
policy-map type quality-of-service CLASSIFY
   class ROCE
      set traffic-class 3
   !
   class BULK-ACL
      set traffic-class 2
   !
   class class-default
      set traffic-class 1
!
interface Ethernet1
   no switchport
   qos trust dscp
   service-policy type qos input CLASSIFY
!
interface Ethernet2
   no switchport
   qos trust dscp
!
"""


def test_a_qos_policy_map_classifies_over_the_dscp_map():
    # EOS QoS guide, policy maps (type quality-of-service): `set traffic-class` in a class gives the traffic it matches
    # that class, and class-default takes all the rest, whatever the trust map says; once skipped without a word.
    device = parse(POLICY_MAP)
    port, plain = device.ports["Ethernet1"], device.ports["Ethernet2"]
    assert port.dscp_to_tc[26] == 3 and port.dscp_to_tc[46] == 1 and port.dscp_to_tc[0] == 1
    assert plain.dscp_to_tc[46] == 5 and plain.dscp_to_tc[26] == 3  # EOS's default map: no policy on it
    assert port.map_source.line == line_of(POLICY_MAP, "policy-map type quality-of-service CLASSIFY")
    # The ACL class cannot be evaluated: said once for the policy, not guessed
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", line_of(POLICY_MAP, "class BULK-ACL"))]


def test_an_undefined_qos_policy_map_is_reported():
    text = POLICY_MAP.replace("service-policy type qos input CLASSIFY", "service-policy type qos input GONE")
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [
        ("SYS002", line_of(text, "service-policy type qos input GONE"))]
    # The policy's classes come before the trust map: the port's DSCP map is unknown, not the trust map's (which
    # read DSCP 46 -> 5 as if the policy changed nothing).
    port = device.ports["Ethernet1"]
    assert (port.trust, port.dscp_to_tc, port.map_source.line) == (None, None, line_of(
        text, "service-policy type qos input GONE"))


def test_a_port_channel_qos_policy_classifies_its_members_traffic():
    # EOS User Manual, Traffic Management: QoS policy maps apply to Ethernet and port-channel interfaces, so the
    # traffic a member receives for its port-channel is classified by the port-channel's policy.
    text = POLICY_MAP + """interface Port-Channel10
   no switchport
   service-policy type qos input CLASSIFY
!
interface Ethernet3
   channel-group 10 mode active
   qos trust dscp
!
interface Ethernet4
   channel-group 11 mode active
   qos trust dscp
!
"""
    device = parse(text)
    member, other = device.ports["Ethernet3"], device.ports["Ethernet4"]
    assert member.dscp_to_tc[46] == 1 and member.dscp_to_tc[26] == 3
    assert other.dscp_to_tc[46] == 5  # Port-Channel11 is not in the input: its own trust map
    assert "Port-Channel10" not in device.ports


def test_a_policy_class_without_set_traffic_class_keeps_its_traffic_from_class_default():
    # EOS QoS guide, policy maps: a packet takes the first class that matches it; class-default takes only the rest.
    # A class that matches DSCP 26 and only rewrites it (no `set traffic-class`) leaves that traffic the trust map's
    # traffic class, not class-default's, and a later class matching DSCP 26 never sees it.
    text = POLICY_MAP.replace("   class ROCE\n      set traffic-class 3\n",
                              "   class MARK\n      set dscp 26\n   !\n   class ROCE\n      set traffic-class 4\n")
    text = text.replace("policy-map type", "class-map type qos match-any MARK\n   match dscp 26\n!\npolicy-map type", 1)
    port = parse(text).ports["Ethernet1"]
    assert port.dscp_to_tc[26] == 3  # EOS's default map (DSCP 24-31 -> TC 3), as on a port without the policy
    assert port.dscp_to_tc[46] == 1 and port.dscp_to_tc[0] == 1  # class-default still takes the rest


@pytest.mark.parametrize("written, gbps", [
    ("speed 1.6t-8", 1600), ("speed auto 2.5gfull", 2.5), ("speed 2.5g", 2.5), ("speed forced 1000half", 1),
    ("speed 100mfull", 0.1), ("speed 10mhalf", 0.01), ("speed forced 100half", 0.1), ("speed 800g-8", 800),
    ("speed forced 10000full", 10)])
def test_every_speed_eos_takes_is_read(written, gbps):
    # AVD's eos_cli_config_gen schema lists the speeds EOS takes (ethernet_interfaces speed): each reads as its
    # rate, none as a garbled line.
    device = parse(f"interface Ethernet1\n   {written}\n!\n")
    assert not device.issues and device.ports["Ethernet1"].speed_gbps == pytest.approx(gbps)


def test_a_bare_number_is_the_one_speed_it_starts():
    """EOS takes a keyword's unambiguous prefix: `speed forced 10000` is 10000full (AVD's DC1-LEAF2A writes it; before,
    SYS002 and no speed); `1000` starts 1000full, 1000half and 10000full, so EOS refuses it, and so does the reader."""
    device = parse("interface Ethernet1\n   speed forced 10000\n!\ninterface Ethernet2\n   speed forced 1000\n!\n")
    assert device.ports["Ethernet1"].speed_gbps == pytest.approx(10)
    assert device.ports["Ethernet2"].speed_gbps is None
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 5)]
    assert "1000full, 1000half, 10000full" in device.issues[0].message
    # Review of round 12 (session 33): `2` was "the start of several EOS speeds (2.5g, 25g, 200g)", words that are no
    # EOS keywords, and `50` "not a speed". Only the documented Mb/s keywords are candidates; other numbers say so.
    for number in ("2", "50"):
        device = parse(f"interface Ethernet1\n   speed forced {number}\n!\n")
        assert device.ports["Ethernet1"].speed_gbps is None and [i.code for i in device.issues] == ["SYS002"]
        assert f"{number!r} starts none of the speed keywords written in Mb/s (10full, " in device.issues[0].message
        assert "2.5g" not in device.issues[0].message


def test_a_pdp_policy_on_a_port_is_known_and_leaves_its_queues():
    """`service-policy type pdp input default-pdp-policy` (`show running-config all` on every port of some platforms;
    batfish's EOS `qos` config binds `my-pdp-policy`, whose classes are `built-in` control protocols policed): a policy
    on the packets a port sends to the CPU, no traffic class set. Before, SYS002 per port; now read, the port's
    settings as without it."""
    lines = ("   priority-flow-control on", "   priority-flow-control priority 3 no-drop")
    plain = parse("interface Ethernet1\n" + "\n".join(lines) + "\n!\n")
    text = "interface Ethernet1\n" + "\n".join(lines) + ("\n   service-policy type pdp input default-pdp-policy\n!\n"
                                                        "policy-map type pdp default-pdp-policy\n"
                                                        "   class built-in ptp\n"
                                                        "      police rate 2560 kbps burst-size 64 kbytes\n"
                                                        "   class class-default\n      count\n!\n")
    device = parse(text)
    assert [i.code for i in device.issues] == []
    port, own = device.ports["Ethernet1"], plain.ports["Ethernet1"]
    assert (port.pfc_enabled, port.dscp_to_tc, port.tc_to_queue) == (own.pfc_enabled, own.dscp_to_tc, own.tc_to_queue)
    # Only that form (review of round 12, session 33: any line starting `service-policy type pdp` was passed over);
    # a negated form that is no binding is a SYS002 as its positive form is (session 34: they passed in silence).
    for odd in ("service-policy type pdp output default-pdp-policy", "service-policy type pdp input",
                "service-policy type pdp input a b", "no service-policy type pdp output X",
                "no service-policy type pdp input a b", "no service-policy type shaping input X"):
        found = parse("interface Ethernet1\n" + "\n".join(lines) + f"\n   {odd}\n!\n")
        assert [(i.code, i.source.line) for i in found.issues] == [("SYS002", 4)], (odd, found.issues)


def test_a_pdp_policy_unbound_is_read_as_eos_does_and_other_negated_bindings_are_not_passed_over():
    """Round 13's leftover (session 34): every `no service-policy ...` line on a port was passed over in silence.
    EOS's `no` form of a binding unbinds it (EOS User Manual, the `service-policy` commands: `no service-policy type
    ... input NAME` removes the policy map from the interface). `no service-policy type pdp input [NAME]` takes the CPU
    policer off the port: read, the port as without it. `no service-policy type qos input [NAME]` unbinds the qos
    policy map: before, the removed map kept classifying the port (DSCP 26 reached lossless TC 3 by it, no MAP001);
    now the trust map classifies again (the negated forms that are no binding: the test above)."""
    lines = ("   priority-flow-control on", "   priority-flow-control priority 3 no-drop")
    plain = parse("interface Ethernet1\n" + "\n".join(lines) + "\n!\n")
    for gone in ("no service-policy type pdp input default-pdp-policy", "no service-policy type pdp input"):
        device = parse("interface Ethernet1\n" + "\n".join(lines) + f"\n   {gone}\n!\n")
        assert [i.code for i in device.issues] == [], (gone, device.issues)
        port, own = device.ports["Ethernet1"], plain.ports["Ethernet1"]
        assert (port.pfc_enabled, port.trust, port.dscp_to_tc) == (own.pfc_enabled, own.trust, own.dscp_to_tc)
    policy = ("qos map dscp 26 to traffic-class 1\npolicy-map type qos P\n   class class-default\n"
              "      set traffic-class 3\n!\n")
    bound = policy + "interface Ethernet1\n   qos trust dscp\n   service-policy type qos input P\n"
    assert parse(bound + "!\n").ports["Ethernet1"].dscp_to_tc.get(26) == 3
    for unbind in ("no service-policy type qos input P", "no service-policy type qos input"):
        device = parse(bound + f"   {unbind}\n!\n")
        assert device.ports["Ethernet1"].dscp_to_tc.get(26) == 1 and device.issues == [], unbind
    other = parse(bound + "   no service-policy type qos input Q\n!\n")
    assert other.ports["Ethernet1"].dscp_to_tc.get(26) == 3
    assert [(i.code, i.source.line) for i in other.issues] == [("SYS002", 9)]
    assert "unbinds policy-map Q, but the port binds P" in other.issues[0].message


def test_a_speed_eos_does_not_take_is_reported():
    device = parse("interface Ethernet1\n   speed 1.6x-8\n!\n")
    assert device.ports["Ethernet1"].speed_gbps is None and [i.code for i in device.issues] == ["SYS002"]


def test_show_running_config_all_defaults_are_read_and_do_not_make_a_port_roce_facing():
    """`show running-config all` prints every port's defaults: they are read (no SYS002) and set nothing, so a port
    that shows only them is not QoS-configured; a configured port keeps its settings."""
    defaults = ["   no priority-flow-control", "   priority-flow-control pause watchdog",
                *(f"   no priority-flow-control priority {p}" for p in range(8)),
                "   no priority-flow-control pause watchdog port action",
                "   no priority-flow-control pause watchdog port timer",
                "   tx-queue 3", "      no random-detect ecn minimum-threshold",
                "   tx-queue 7", "      priority strict"]
    text = "\n".join(["hostname sw1", "interface Ethernet1", *defaults, "interface Ethernet2",
                      "   priority-flow-control on", "   priority-flow-control priority 3 no-drop",
                      *(line for line in defaults[2:] if line != "   no priority-flow-control priority 3"), ""])
    device = parse(text)
    idle, roce = device.ports["Ethernet1"], device.ports["Ethernet2"]
    assert not device.issues and not idle.qos_configured and idle.pfc_enabled == []
    assert roce.qos_configured and roce.pfc_enabled == [3] and not roce.queues[3].ecn.ecn_enabled
    assert roce.queues[7].scheduler.type == SchedulerType.strict and roce.queues[7].scheduler.default


def test_a_port_with_an_ip_address_is_routed_even_without_its_no_switchport_line():
    """EOS assigns addresses only to routed ports, so an excerpt that prints `ip address` (or `ipv6 address`) without
    `no switchport` shows a routed port: no VLAN, DSCP trust by default (before: a switchport in VLAN 1 trusting
    CoS, two such ports flooding to each other, DLK003). An explicit `switchport` stays a switchport."""
    text = ("hostname sw1\n!\ninterface Ethernet1\n   mtu 9214\n   ip address 10.0.0.1/31\n!\n"
            "interface Ethernet2\n   ipv6 address fd00::2/127\n!\ninterface Ethernet3\n   switchport\n"
            "   ip address 10.0.0.5/31\n!\ninterface Ethernet4\n   description spare\n!\n")
    ports = parse(text).ports
    assert [(ports[p].vlans, ports[p].trust) for p in ("Ethernet1", "Ethernet2")] == [([], Trust.dscp)] * 2
    assert ports["Ethernet1"].trust_source.line == line_of(text, "ip address 10.0.0.1/31")
    assert (ports["Ethernet3"].vlans, ports["Ethernet3"].trust) == ([1], Trust.pcp)
    assert (ports["Ethernet4"].vlans, ports["Ethernet4"].trust) == ([1], Trust.pcp)


def test_a_configuration_session_with_prompts_is_read_as_the_config_it_makes():
    # EOS guides print configuration as a session (`Spine-1(config-qos-profile-P-txq-3)# ...`); it was refused as no
    # running-config. Each prompt names its mode and a sub-mode's name extends its parent's, so the next prompt tells
    # which command opened a mode: `tx-queue 3` typed in the txq-1 sub-mode is the profile's own line.
    session = ("S1(config)# qos profile P\n"
               "S1(config-qos-profile-P)# priority-flow-control on\n"
               "S1(config-qos-profile-P)# priority-flow-control priority 3 no-drop\n"
               "S1(config-qos-profile-P)# tx-queue 1\n"
               "S1(config-qos-profile-P-txq-1)# bandwidth percent 5\n"
               "S1(config-qos-profile-P-txq-1)# tx-queue 3\n"
               "S1(config-qos-profile-P-txq-3)# random-detect ecn minimum-threshold 512 kbytes maximum-threshold "
               "768 kbytes\n"
               "S1(config-qos-profile-P-txq-3)# interface Ethernet1\n"
               "S1(config-if-Et1)# service-profile P\n"
               "S1(config-if-Et1)# end\n"
               "S1# show priority-flow-control\n"
               "Ethernet1  Yes      3           Yes\n")
    assert clitext.config_session(session, "   ").split("\n")[:10] == [
        "qos profile P", "   priority-flow-control on", "   priority-flow-control priority 3 no-drop", "   tx-queue 1",
        "      bandwidth percent 5",
        "   tx-queue 3", "      random-detect ecn minimum-threshold 512 kbytes maximum-threshold 768 kbytes",
        "interface Ethernet1", "   service-profile P", ""]
    assert eos.sniff(Input("s.txt", session))
    dev = eos.parse([Input("s.txt", session)], "s1")
    port = dev.ports["Ethernet1"]
    assert dev.issues == [] and set(port.pfc_enabled) == {3} and port.source.line == 8
    assert clitext.config_session("interface Ethernet1\n   mtu 9214\n", "   ") is None  # a running-config as it is
    banner = "hostname s1\nbanner motd\nS1(config-if-Et1)# is a prompt\nEOF\ninterface Ethernet1\n   mtu 9214\n"
    assert clitext.config_session(banner, "   ") is None  # a running-config whose banner quotes a prompt


def test_a_session_nested_past_the_limit_is_refused_with_its_line():
    # Each line of a session is written indented by its depth: modes nested without end would cost depth x lines.
    deep = "\n".join(f"s(config{'-q' * depth})# " for depth in range(1, 100)) + "\ns(config-if-Et1)# mtu 9214\n"
    with pytest.raises(InputError) as err:
        eos.parse([Input("deep.txt", deep)], "s")
    assert err.value.file == "deep.txt" and err.value.line == 64


# A paste with its indentation lost (parse/eos/flat.py): each line in the mode the line before it left.
FLAT = """hostname flat1
qos profile GPU
priority-flow-control on
priority-flow-control priority 3 no-drop
priority-flow-control pause watchdog
uc-tx-queue 3
random-detect ecn minimum-threshold 100 kbytes maximum-threshold 400 kbytes
priority-flow-control pause watchdog default timeout 0.3
interface Ethernet1
no switchport
service-profile GPU
interface Ethernet2
qos trust dscp
priority-flow-control on
priority-flow-control priority 4 no-drop
tx-queue 4
random-detect ecn minimum-threshold 200 kbytes maximum-threshold 600 kbytes
mtu 9000
exit
ip routing
interface Ethernet3
priority-flow-control priority 5 no-drop
end
priority-flow-control priority 6 no-drop
"""


def test_a_flat_paste_is_read_in_the_modes_eos_enters():
    dev = parse(FLAT)
    e1, e2, e3 = (dev.ports[f"Ethernet{n}"] for n in (1, 2, 3))
    assert e1.pfc_enabled == [3] and e1.queues[3].ecn.min_threshold_bytes == 100 * 1024
    # `mtu` after the tx-queue's ECN line leaves the tx-queue mode for the interface's; `exit`, then a global command
    assert e2.pfc_enabled == [4] and e2.trust == Trust.dscp and e2.mtu_bytes == 9000
    assert e2.queues[4].ecn.min_threshold_bytes == 200 * 1024  # EOS kbytes: KiB (units.py)
    # the global watchdog timer typed in the profile's tx-queue mode is a global command: it ends the profile
    assert e1.watchdog.detection_time_ms == 300
    # Ethernet3 has no `priority-flow-control on`; after `end` a line is no interface's (a SYS002 global line)
    assert e3.pfc_enabled == []
    assert [i.source.line for i in dev.issues if i.code == "SYS002"] == [line_of(FLAT, "priority-flow-control "
                                                                                       "priority 6 no-drop")]


def test_a_flat_paste_is_renested_keeping_line_numbers():
    out = eos.flat.renest(FLAT).split("\n")
    assert len(out) == len(FLAT.split("\n"))
    assert out[5:8] == ["   uc-tx-queue 3", "      random-detect ecn minimum-threshold 100 kbytes maximum-threshold "
                        "400 kbytes", "priority-flow-control pause watchdog default timeout 0.3"]
    assert out[17:20] == ["   mtu 9000", "", "ip routing"]


@pytest.mark.parametrize("text", [
    # a running-config: indented blocks, and a port without settings whose next line is another port
    "interface Ethernet1\n!\ninterface Ethernet2\n   priority-flow-control on\n!\n",
    "interface Ethernet1\n   priority-flow-control on\n!\ninterface Ethernet2\nqos map dscp 26 to traffic-class 3\n",
    # global lines only
    "hostname s1\nqos map dscp 26 to traffic-class 3\npriority-flow-control pause watchdog action drop\n",
])
def test_text_that_is_not_a_flat_paste_is_left_as_it_is(text):
    assert eos.flat.renest(text) == text


@pytest.mark.parametrize("text,expected", [
    ("interface Ethernet1\ndescription gpu\npriority-flow-control on\n", True),
    # a command list an automation tool sends (audit round 5), the port as EOS takes it typed
    ("interface Et1/1\npriority-flow-control on\npriority-flow-control priority 3 no-drop\n", True),
    ("interface Ethernet1\nservice-policy type qos input Q\nset traffic-class 3\npriority-flow-control priority 3 "
     "no-drop\n", True),
    # NX-OS and OS10 write `priority-flow-control mode on`; Junos `set` lines are not EOS
    ("interface Ethernet1/1\npriority-flow-control mode on\n", False),
    ("set interfaces et-0/0/0 mtu 9216\ninterface Ethernet1\npriority-flow-control on\n", False),
])
def test_a_flat_paste_sniffs_as_eos(text, expected):
    assert eos.sniff(Input("x", text)) is expected


@pytest.mark.parametrize("text,expected", [
    # Round 18: a page's EOS port block indented by two blanks (or a tab) told no platform (SYS001)
    ("interface Ethernet1-48\n  priority-flow-control on\n  priority-flow-control priority 3 no-drop\n", True),
    ("interface Ethernet1\n  mtu 9214\n  priority-flow-control priority 3 no-drop\n", True),
    ("interface Ethernet2\n\tservice-profile ROCE\n", True),
    # NX-OS's, OS10's and Onyx's own PFC words are no EOS sign; nor a line at another block's margin
    ("interface Ethernet1/1\n  priority-flow-control mode on\n", False),
    ("interface ethernet 1/1\n  dcb priority-flow-control mode on force\n", False),
    ("interface Ethernet1\n  mtu 9214\n!\nrouter bgp 1\n  priority-flow-control on\n", False),
])
def test_a_port_block_indented_otherwise_sniffs_as_eos(text, expected):
    assert (detect(Input("x", text)) == "arista_eos") is expected


@pytest.mark.parametrize("text,expected", [
    # Session 35 part a: a file of EOS's global `qos map` lines alone told no platform (SYS001)
    ("qos map dscp 26 to traffic-class 3\n", True),
    ("qos map cos 3 4 to traffic-class 3\n", True),
    ("qos map traffic-class 3 to tx-queue 3\n", True),
    ("qos map traffic-class 3 to dscp 26\n", True),
    # Onyx's map goes to a switch priority; OS10 names its maps; a map without its number is no sign
    ("qos map dscp 26 to switch-priority 3\n", False),
    ("qos-map dscp-tc rdma-map\n", False),
    ("qos map dscp 26 to traffic-class\n", False),
])
def test_global_qos_map_lines_sniff_as_eos(text, expected):
    assert eos.sniff(Input("x", text)) is expected
    assert (detect(Input("x", text)) == "arista_eos") is expected


def test_a_session_s_policy_map_classes_belong_to_their_policy_map():
    """EOS User Manual, policy-map class mode: `(config-pmap-P)# class C` enters `(config-pmap-c-P-C)#`, whose name
    does not extend the policy-map's; the class and its `set traffic-class` are the policy-map's, not global lines."""
    text = "\n".join([
        "leaf1(config)# class-map type qos match-any ROCE",
        "leaf1(config-cmap-qos-ROCE)# match dscp 26",
        "leaf1(config-cmap-qos-ROCE)# exit",
        "leaf1(config)# policy-map type quality-of-service QP",
        "leaf1(config-pmap-quality-of-service-QP)# class ROCE",
        "leaf1(config-pmap-c-quality-of-service-QP-ROCE)# set traffic-class 5",
        "leaf1(config-pmap-c-quality-of-service-QP-ROCE)# class class-default",
        "leaf1(config-pmap-c-quality-of-service-QP-class-default)# set traffic-class 1",
        "leaf1(config-pmap-c-quality-of-service-QP-class-default)# interface Ethernet1",
        "leaf1(config-if-Et1)# no switchport",
        "leaf1(config-if-Et1)# qos trust dscp",
        "leaf1(config-if-Et1)# service-policy type qos input QP",
        "leaf1(config-if-Et1)# priority-flow-control on",
        "leaf1(config-if-Et1)# priority-flow-control priority 5 no-drop",
        "leaf1(config-if-Et1)# end", ""])
    session = clitext.config_session(text, "   ")
    assert session.split("\n")[3:7] == ["policy-map type quality-of-service QP", "   class ROCE",
                                        "      set traffic-class 5", "   class class-default"]
    port = parse(text).ports["Ethernet1"]
    assert port.dscp_to_tc[26] == 5 and port.dscp_to_tc[0] == 1
    assert not [i for i in parse(text).issues if i.code == "SYS002"]


def test_a_configuration_session_saved_without_its_last_line_end_is_not_called_truncated():
    """A configuration session's transcript shows what was typed and may stop in any mode (EOS User Manual, Command
    Modes): no `end` at the margin follows, so its last line, written into an interface's mode without a line end,
    is no sign of a cut. The same line ending a running-config still is."""
    session = parse("sw1#configure\nsw1(config)#interface Ethernet1\nsw1(config-if-Et1)#priority-flow-control on\n"
                    "sw1(config-if-Et1)#priority-flow-control priority 3 no-drop")
    assert session.ports["Ethernet1"].pfc_enabled == [3]
    assert not [i for i in session.issues if "truncated" in i.message], session.issues
    running = parse("hostname sw1\ninterface Ethernet1\n   priority-flow-control on\n"
                    "   priority-flow-control priority 3 no-drop")
    assert [i for i in running.issues if "truncated" in i.message]


def test_a_session_command_the_switch_refused_is_a_sys002_naming_it():
    """EOS answers a command the mode does not take with `% Invalid input` and stays in the mode (EOS User Manual,
    "Command-Line Interface"): the line was blanked without a word, so a session whose PFC line was refused read as
    one that never tried. An exec command refused is not about the configuration: no issue."""
    text = ("S1(config)#interface Ethernet1\n"
            "S1(config-if-Et1)#priority-flow-control mode on\n"
            "% Invalid input\n"
            "S1(config-if-Et1)#priority-flow-control on\n"
            "S1(config-if-Et1)#show interfaces Ethernet1 statu\n"
            "% Invalid input\n"
            "S1(config-if-Et1)#")
    dev = eos.parse([Input("s.txt", text)], "s1")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2)]
    assert "`priority-flow-control mode on`" in dev.issues[0].message and "% Invalid input" in dev.issues[0].message
    assert dev.ports["Ethernet1"].source.line == 1


def test_a_qos_map_with_words_after_its_number_is_named_not_read():
    """A design write-up annotates each map with `! comment` after it (audit round 6); the EOS manual gives the
    command as `qos map dscp V... to traffic-class T [drop-precedence D]` and describes no comment after a command,
    so such a line is a SYS002 and sets nothing (before: read as if the words were not there)."""
    text = "\n".join(["qos map dscp 10 to traffic-class 3   ! AF11 -> Q3 (RDMA data)",
                      "qos map dscp 26 to traffic-class 3 drop-precedence 1",
                      "interface Ethernet1", "   no switchport", "   qos trust dscp",
                      "   priority-flow-control on", ""])
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 1)]
    assert "after the command is not part of it" in device.issues[0].message
    port = device.ports["Ethernet1"]
    assert port.dscp_to_tc[26] == 3 and port.dscp_to_tc.get(10) != 3  # DSCP 10 keeps EOS's default


# A paste typed with abbreviated sub-mode keywords (EOS User Manual, Quality of Service: tx-queue and policy-map class
# commands, each cut to a prefix no other command of its mode begins with, as EOS takes it: "Command-Line Interface",
# command abbreviation).
FLAT_ABBREVIATED = """hostname flat2
class-map type qos match-any ROCE
mat dscp 26
policy-map type quality-of-service MARK
cl ROCE
se traffic-class 3
interface Ethernet2
qos trust dscp
priority-flow-control on
priority-flow-control priority 3 no-drop
tx-queue 3
band percent 50
random-det ecn minimum-threshold 200 kbytes maximum-threshold 600 kbytes
no prio
"""


def test_abbreviated_commands_in_a_flat_paste_stay_in_their_sub_mode():
    """`band percent 50` in a tx-queue was no command of the queue to the re-nesting: it and the queue's next lines
    (its ECN thresholds) went up to the interface, and the queue read as strict with no ECN, without a word. EOS takes
    a unique prefix of a mode's keyword: the line is read as the command it abbreviates."""
    dev = parse(FLAT_ABBREVIATED)
    queue = dev.ports["Ethernet2"].queues[3]
    assert not [i for i in dev.issues if i.code == "SYS002"], dev.issues
    assert queue.ecn.min_threshold_bytes == 200 * 1024 and queue.ecn.source.line == 13
    assert (queue.scheduler.type, queue.scheduler.weight) == (SchedulerType.wrr, 50)
    out = eos.flat.renest(FLAT_ABBREVIATED).split("\n")
    assert out[1:6] == ["class-map type qos match-any ROCE", "   match dscp 26",
                        "policy-map type quality-of-service MARK", "   class ROCE", "      set traffic-class 3"]
    assert out[11] == "      bandwidth percent 50" and out[13] == "      no priority"
    cfg = eos_reader.read([Input("flat.cfg", FLAT_ABBREVIATED)])
    assert cfg.class_maps["ROCE"].dscp == {26} and cfg.qos_policies["MARK"][0][1].value == 3


@pytest.mark.parametrize("typed", [
    "co 3",  # comment or count (a policy-map class's): ambiguous
    "sh",  # show (any mode's): not set
])
def test_an_ambiguous_prefix_is_not_read_as_a_sub_mode_command(typed):
    text = f"policy-map type quality-of-service MARK\nclass ROCE\n{typed}\n"
    assert eos.flat.renest(text).split("\n")[2] == typed


def test_running_configs_read_as_before_abbreviations_were_taken():
    """A running-config is never abbreviated and its blocks are indented: it is left as it is."""
    for path in sorted(RAW.glob("*")):
        text = path.read_text(encoding="utf-8")
        assert eos.flat.renest(text) == text, path.name


def test_an_interface_range_or_list_configures_each_port_it_names():
    """Configuration mode takes `interface Ethernet1-3`, `interface eth 5,7`, `interface range Et9/1-2` and
    `Ethernet9/3-9/4` (the far end repeating the slot) and enters one mode for all of them: each port takes the
    block's lines. A range that runs backwards or into another slot names no port and is a SYS002 at its line."""
    text = "\n".join([
        "interface Ethernet1-3", "   no switchport", "   priority-flow-control on",
        "   priority-flow-control priority 3 no-drop",
        "interface eth 5,7", "   qos trust dscp",
        "interface range Et9/1-2", "   qos trust cos",
        "interface Ethernet9/3-9/4", "   qos trust cos",
        "interface Ethernet12-10", "   qos trust dscp",
        "interface Ethernet9/5-10/1", "   qos trust dscp", ""])
    dev = parse(text)
    ports = dev.ports
    assert sorted(ports) == sorted(["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet5", "Ethernet7", "Ethernet9/1",
                                    "Ethernet9/2", "Ethernet9/3", "Ethernet9/4"])
    assert all(ports[f"Ethernet{n}"].pfc_enabled == [3] for n in (1, 2, 3))
    assert ports["Ethernet7"].trust == Trust.dscp and ports["Ethernet9/4"].trust == Trust.pcp
    assert [(i.code, i.source.line) for i in dev.issues if "port range" in i.message] == [("SYS002", 11),
                                                                                          ("SYS002", 13)]


def test_a_session_that_ends_with_show_running_config_output_is_still_a_session():
    """A session that verifies its work (`S1# show running-config interface Ethernet1` and the block it prints) was
    read as a running-config because of the printed `interface` line: the session's qos profile and its other port
    were lost. The output of a show command typed at an exec prompt is not the file's own running-config; a
    running-config whose banner quotes a prompt is still read as it is."""
    session = ("S1(config)# qos profile P\n"
               "S1(config-qos-profile-P)# priority-flow-control on\n"
               "S1(config-qos-profile-P)# priority-flow-control priority 3 no-drop\n"
               "S1(config-qos-profile-P)# interface Ethernet1\n"
               "S1(config-if-Et1)# service-profile P\n"
               "S1(config-if-Et1)# interface Ethernet2\n"
               "S1(config-if-Et2)# service-profile P\n"
               "S1(config-if-Et2)# end\n"
               "S1# show running-config interface Ethernet1\n"
               "interface Ethernet1\n"
               "   service-profile P\n"
               "end\n"
               "S1#\n")
    out = clitext.config_session(session, "   ")
    assert out is not None and out.split("\n")[9:12] == ["", "", ""]
    dev = eos.parse([Input("s.txt", session)], "s1")
    assert dev.issues == [] and set(dev.ports["Ethernet2"].pfc_enabled) == {3}
    banner = "hostname s1\nbanner motd\nS1# show version\nS1(config)# x\nEOF\ninterface Ethernet1\n   mtu 9214\n"
    assert clitext.config_session(banner, "   ") is None


def test_an_abbreviated_interface_command_is_read_as_interface():
    """`int eth 5-7` and `inter Ethernet8` (EOS takes a command's unambiguous prefix; sessions type `int`): the block
    was skipped without a word and its ports lost. `in` (also `ip`'s prefix) is no abbreviation losslessd reads."""
    text = "\n".join(["int eth 5-7", "   priority-flow-control on", "inter Ethernet8", "   qos trust dscp",
                      "in Ethernet9", "   qos trust dscp", ""])
    dev = parse(text)
    assert sorted(dev.ports) == ["Ethernet5", "Ethernet6", "Ethernet7", "Ethernet8"]
    assert dev.ports["Ethernet8"].trust == Trust.dscp


def test_a_port_binding_of_a_service_policy_type_not_read_is_named():
    """An output policy of a type losslessd does not read (an AI design's `service-policy type tx-queue output`) was
    skipped without a word; `type qos input` is read and `type pbr` routes, so neither is named."""
    text = ROUTED + ("   service-policy type tx-queue output EGRESS\n   service-policy type pbr input ROUTE-MAP\n"
                     "   service-policy type qos input CLASSIFY\n!\npolicy-map type quality-of-service CLASSIFY\n"
                     "   class class-default\n      set traffic-class 1\n")
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 5)]
    assert "tx-queue" in device.issues[0].message
    # an output qos policy on a port, and a port-channel's binding (its lines go through the same reader: review)
    text = ROUTED + "   service-policy type qos output SHAPE\n!\ninterface Port-Channel1\n" \
                    "   service-policy type tx-queue output EGRESS\n"
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 5), ("SYS002", 8)]


def test_an_abbreviated_interface_opens_its_block_in_a_flat_paste_too():
    """`int Ethernet5` (EOS takes a command's unambiguous prefix) was read as `interface` in an indented config only: in
    a flat paste its lines were global ones (trust and PFC lost, two SYS002); one helper spells it for both (review)."""
    text = ("int Ethernet5\nqos trust dscp\npriority-flow-control on\npriority-flow-control priority 3 no-drop\n"
            "inter Ethernet6\nqos trust dscp\n")
    device = parse(text)
    assert (device.ports["Ethernet5"].trust, device.ports["Ethernet5"].pfc_enabled) == (Trust.dscp, [3])
    assert device.ports["Ethernet6"].trust == Trust.dscp and not device.issues


def test_a_tx_queue_class_typed_in_a_qos_policy_map_is_named():
    """EOS User Manual, QoS chapter: a `policy-map type quality-of-service` classifies by class-maps, `class NAME`; a
    design document's `class tx-queue 3` (from its `policy-map type tx-queue`) typed in one was skipped without a
    word, with the `set traffic-class` and shaping under it. It is a SYS002 at its line saying the switch refuses it
    and what is under it (before session 38: "not read", beside an ECN001 that asserts no marking); the policy's real
    class is still read."""
    text = ("hostname leaf-3\nclass-map type qos match-any ROCE\n   match dscp 26\n"
            "policy-map type quality-of-service ROCE-IN\n   class ROCE\n      set traffic-class 3\n"
            "   class tx-queue 3\n      set traffic-class 5\n!\n"
            "interface Ethernet5\n   qos trust dscp\n   service-policy type qos input ROCE-IN\n!\nend\n")
    cfg = eos_reader.read([Input("leaf-3.cfg", text)])
    assert [(i.code, i.source.line) for i in cfg.issues] == [("SYS002", 7)]
    assert "`class tx-queue 3`" in cfg.issues[0].message
    assert "the switch refuses this one and the lines under it" in cfg.issues[0].message
    assert [(name, tc.value) for name, tc, _ in cfg.qos_policies["ROCE-IN"]] == [("ROCE", 3)]


# A configuration session (EOS User Manual, "Command-Line Interface": the mode prompts) binding the switch's own
# policy-map, which the session does not define (EOS User Manual, QoS chapter: `service-policy type qos input NAME`;
# the policy's classes set the traffic class before the trust map).
SESSION_BINDING_ITS_SWITCH_POLICY = """leaf-3(config)#interface Ethernet5
leaf-3(config-if-Et5)#{trust}priority-flow-control on
leaf-3(config-if-Et5)#priority-flow-control priority 3 no-drop
leaf-3(config-if-Et5)#service-policy type qos input ROCE-IN
"""


@pytest.mark.parametrize("trust", ["", "qos trust cos\nleaf-3(config-if-Et5)#"])
def test_a_session_binding_a_policy_it_does_not_define_leaves_the_classification_unknown(tmp_path, trust):
    """The port kept the trust map's classification beside the SYS002: switched, so trusting CoS by EOS's default (or
    as written), and MAP003 said "trusts PCP, set trust dscp" (an error) for a port whose policy-map may well classify
    DSCP 26 into a lossless class. Which field sorts its traffic, and into which class, is unknown."""
    path = tmp_path / "leaf-3-session.txt"
    path.write_text(SESSION_BINDING_ITS_SWITCH_POLICY.format(trust=trust), encoding="utf-8")
    port = eos.parse([Input(str(path), path.read_text(encoding="utf-8"))], "leaf-3").ports["Ethernet5"]
    assert (port.trust, port.dscp_to_tc, port.pcp_to_tc) == (None, None, None)
    assert port.pfc_enabled == [3]
    findings = lint([path], "roce-dscp26").findings
    assert [(f.code, f.severity.value) for f in findings if f.code == "MAP003"] == [("MAP003", "info")]
    assert ("SYS002", 4 + bool(trust)) in {(f.code, f.source.line) for f in findings}


# A switched port, so trusting CoS (EOS User Manual, QoS chapter: CoS on switched ports by default, or `qos trust cos`),
# binding a qos policy-map whose class matches DSCP 26 (`class-map type qos`, `match dscp 26`) and sets its traffic
# class (`set traffic-class 3`); no class-default action, so what the class does not match keeps the CoS map's class.
COS_PORT_DSCP_POLICY = """hostname leaf-4
class-map type qos match-any ROCE
   match dscp 26
!
policy-map type quality-of-service ROCE-IN
   class ROCE
      set traffic-class 3
!
interface Ethernet5
{trust}   priority-flow-control on
   priority-flow-control priority 3 no-drop
   service-policy type qos input ROCE-IN
!
"""


@pytest.mark.parametrize("trust", ["", "   qos trust cos\n"], ids=["default", "qos-trust-cos"])
def test_a_cos_trusting_port_whose_policy_matches_dscp_sorts_that_traffic_by_dscp(tmp_path, trust):
    """The policy's `set traffic-class` wins for the packets its class matches, whatever the port trusts: DSCP 26 is
    traffic class 3 on this port. It read as trusting PCP with no DSCP map, and MAP003 said "trusts PCP, set trust
    dscp" (an error) where the policy already sorts RoCE by its DSCP. A DSCP no class sets keeps the CoS map's class,
    so it has no DSCP entry."""
    text = COS_PORT_DSCP_POLICY.format(trust=trust)
    port = parse(text).ports["Ethernet5"]
    assert (port.trust, port.dscp_to_tc) == (Trust.dscp, {26: 3})
    assert port.trust_source.line == line_of(text, "service-policy type qos input ROCE-IN")
    assert port.pcp_to_tc == {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}  # the rest: EOS's default CoS map
    path = tmp_path / "leaf-4.cfg"
    path.write_text(text, encoding="utf-8")
    assert [f for f in lint([path], "roce-dscp26").findings if f.code == "MAP003"] == []


def test_the_cnp_dscp_no_class_matches_on_such_a_port_is_sorted_by_its_cos(tmp_path):
    """EOS User Manual, QoS: the trust map classifies what no class of the qos policy sets. On a CoS-trusting port
    whose policy matches DSCP 26 only, CNPs (DSCP 48) take the class of the CoS they carry, not "no class": MAP002 said
    "no entry in the DSCP->TC map" (an error). Which CoS they carry is not in the input: unverified, saying why."""
    text = COS_PORT_DSCP_POLICY.format(trust="")
    path = tmp_path / "leaf-4.cfg"
    path.write_text(text, encoding="utf-8")
    found = [f for f in lint([path], "roce-dscp26").findings if f.code == "MAP002"]
    assert [f.severity.value for f in found] == ["info"] and "802.1p CoS" in found[0].message
    # with trust DSCP and the same policy, DSCP 48 takes EOS's default DSCP map (TC 6): checked, not unverified
    path.write_text(COS_PORT_DSCP_POLICY.format(trust="   qos trust dscp\n"), encoding="utf-8")
    assert all("802.1p CoS" not in f.message for f in lint([path], "roce-dscp26").findings if f.code == "MAP002")


def test_the_roce_dscp_no_class_matches_on_such_a_port_is_sorted_by_its_cos(tmp_path):
    """The same for RoCE: a policy matching the CNP DSCP only leaves DSCP 26 to the CoS map. MAP001 said "DSCP 26 has
    no entry in the DSCP->TC map" (an error); its class is its CoS's, not in the input: unverified."""
    text = COS_PORT_DSCP_POLICY.format(trust="").replace("match dscp 26", "match dscp 48").replace(
        "set traffic-class 3", "set traffic-class 6")
    path = tmp_path / "leaf-4.cfg"
    path.write_text(text, encoding="utf-8")
    found = [f for f in lint([path], "roce-dscp26").findings if f.code == "MAP001"]
    assert [f.severity.value for f in found] == ["info"] and "802.1p CoS" in found[0].message


def test_strict_queues_the_cos_map_reaches_on_such_a_port_are_still_checked(tmp_path):
    """Only DSCP 26 has a DSCP entry there; the rest is classified by the CoS map, whose traffic reaches queues 4-7,
    strict by EOS's default above the weighted lossless queue 3: SCH001 still says it cannot tell whether that traffic
    starves RoCE (it went silent, the queues read as reached by no DSCP)."""
    text = COS_PORT_DSCP_POLICY.format(trust="") + "interface Ethernet5\n   tx-queue 3\n      no priority\n!\n"
    path = tmp_path / "leaf-4.cfg"
    path.write_text(text, encoding="utf-8")
    found = [f for f in lint([path], "roce-dscp26").findings if f.code == "SCH001"]
    assert [(f.severity.value, f.data.get("strict")) for f in found] == [("info", [4, 5, 6, 7])]


def test_a_cos_trusting_port_s_policy_class_default_takes_the_rest():
    # POLICY_MAP's class-default sets traffic class 1: every DSCP its classes do not match, and every CoS, is TC 1.
    text = with_port(POLICY_MAP, "qos trust cos", "service-policy type qos input CLASSIFY")
    port = parse(text).ports["Ethernet99"]
    assert port.trust == Trust.dscp and (port.dscp_to_tc[26], port.dscp_to_tc[46], port.dscp_to_tc[0]) == (3, 1, 1)
    assert set(port.pcp_to_tc.values()) == {1}
    plain = parse(with_port(POLICY_MAP, "qos trust cos")).ports["Ethernet99"]  # no policy: the CoS map alone
    assert (plain.trust, plain.dscp_to_tc) == (Trust.pcp, None)


# An interface typed with abbreviated commands (EOS User Manual, "Command-Line Interface": a command's unique prefix
# runs it; QoS chapter: `qos trust dscp`, `priority-flow-control on`, `priority-flow-control priority N no-drop`,
# `priority-flow-control pause watchdog`, `tx-queue N` with `no priority`, `bandwidth percent N`, `random-detect ecn
# minimum-threshold ... maximum-threshold ...`), as a hand-typed indented block, a session and a flat paste.
_ABBREVIATED = ["interface Ethernet5", "qo tr d", "prio on", "prio prio 3 no-d", "prio pa wat", "desc  RoCE  host",
                "tx-q 3", "no prio", "band percent 40",
                "random-det ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes"]
_DEPTH = [0, 1, 1, 1, 1, 1, 1, 2, 2, 2]
_PROMPT = ["(config)", *["(config-if-Et5)"] * 6, *["(config-if-Et5-txq-3)"] * 3]
ABBREVIATED_INTERFACE = {
    "indented": "hostname leaf-4\n" + "".join("   " * d + c + "\n" for c, d in zip(_ABBREVIATED, _DEPTH, strict=True)),
    "session": "".join(f"leaf-4{p}#{c}\n" for c, p in zip(_ABBREVIATED, _PROMPT, strict=True)),
    "flat": "".join(c + "\n" for c in _ABBREVIATED),
}


@pytest.mark.parametrize("form", sorted(ABBREVIATED_INTERFACE))
def test_abbreviated_interface_commands_are_read_as_the_commands_they_abbreviate(form):
    """`qo tr d`, `prio on`, `prio prio 3 no-d`, `prio pa wat` under `interface Ethernet5`, and `band percent 40` under
    its tx-queue, were skipped (or named unreadable): the port read as trusting CoS with PFC off, the watchdog off and
    queue 3 strict. Interface mode takes unique prefixes, of each keyword of a command, as the QoS modes do."""
    device = eos.parse([Input("leaf-4.txt", ABBREVIATED_INTERFACE[form])], "leaf-4")
    assert device.issues == []
    port = device.ports["Ethernet5"]
    assert (port.trust, port.pfc_enabled, port.description) == (Trust.dscp, [3], "RoCE  host")
    assert port.watchdog.source.line == 5 + (form == "indented")  # `prio pa wat` read (no timeout set: off)
    assert port.trust_source.line == 2 + (form == "indented")  # `qo tr d`, after `hostname` there
    queue = port.queues[3]
    assert (queue.scheduler.type, queue.scheduler.weight, queue.ecn.min_threshold_bytes) == (SchedulerType.wrr, 40,
                                                                                           150 * 1024)


@pytest.mark.parametrize("typed, said", [
    ("serv type qos input ROCE-IN", "`serv` could be service-policy or service-profile"),  # EOS refuses it
    ("sh", "`sh` could be shape, show or shutdown"),
    ("sp 100g", "`sp` could be spanning-tree or speed"),
    ("q tr d", "`q` could be qos or queue-monitor"),
    ("no q tr", "`q` could be qos or queue-monitor"),
])
def test_an_ambiguous_interface_prefix_is_not_read_and_is_named(typed, said):
    """The switch refuses an ambiguous prefix, so what it would set is not set; it was dropped without a word (a
    `serv` binding the RoCE classification lost in silence): a SYS002 at its line, the rest of the block read."""
    device = parse(f"hostname leaf-4\ninterface Ethernet5\n   {typed}\n   priority-flow-control on\n")
    port = device.ports["Ethernet5"]
    assert (port.trust, port.admin_up, port.speed_gbps, port.map_source) == (Trust.pcp, True, None, None)
    assert port.pfc_enabled is not None
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 3)]
    assert f"ambiguous: {said}; the switch refuses it" in device.issues[0].message


def test_a_cut_capture_s_last_word_is_no_abbreviation():
    """A file cut inside its last line: `qos trust d` may be `qos trust dscp` cut short, or a `d` typed; its last word
    is left as written (named unreadable, beside the truncation; the trust it may set is unknown, as for any trust
    line not read), the words before it are spelled."""
    text = "hostname leaf-4\ninterface Ethernet5\n   prio on\n   qos tr d"
    device = parse(text)
    port = device.ports["Ethernet5"]
    assert port.trust is None and port.pfc_source.line == 3
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4), ("SYS002", 4)]
    assert "qos trust d`" in device.issues[0].message and "truncated" in device.issues[1].message
    assert parse(text + "\n").ports["Ethernet5"].trust == Trust.dscp  # a whole file: the `d` typed, dscp


def test_running_configs_interface_lines_are_spelled_as_written(corpus):
    """A running-config is never abbreviated: every interface line and tx-queue line stays as written (a cut last line
    is no abbreviation either: test_a_cut_capture_s_last_word_is_no_abbreviation)."""
    from losslessd.parse.eos import flat
    paths = [*sorted(RAW.glob("*.cfg")), corpus / "eos" / "avd-qos.cfg"]
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for node in clitext.tree(text if text.endswith("\n") else text[:text.rfind("\n") + 1]):
            if node.words[:1] == ["interface"]:
                for child in node.children:
                    assert flat.interface_words(child.words) == child.words, (path.name, child.text)
                    for sub in child.children:
                        assert flat.queue_words(sub.words) == sub.words, (path.name, sub.text)


@pytest.mark.parametrize("spelled, ports", [
    ("Ethernet1-1024", 1024),  # limits.MAX_RANGE_PORTS, as on NX-OS
    ("Ethernet1-1025", None),
    ("Et9/1-9/4,6", ["Ethernet9/1", "Ethernet9/2", "Ethernet9/3", "Ethernet9/4", "Ethernet6"]),  # (a bare item: EOS)
    ("ethernet 3/1-3/2, Ethernet5", ["Ethernet3/1", "Ethernet3/2", "Ethernet5"]),
    ("Ethernet9/5-10/1", None),
])
def test_a_range_is_read_by_the_helper_nxos_shares(spelled, ports):
    """EOS `_ethernet_range` is clitext.ethernet_ports, as NX-OS `_ethernets` is: the same cap (limits) and far-end
    rule; a bare number after a comma is EOS's own (`interface Ethernet1,3,5-7`)."""
    dev = parse(f"interface {spelled}\n   priority-flow-control on\n")
    if ports is None:
        assert not dev.ports and [i.code for i in dev.issues] == ["SYS002"] and "port range" in dev.issues[0].message
    elif isinstance(ports, int):
        assert len(dev.ports) == ports and not dev.issues
    else:
        assert sorted(dev.ports) == sorted(ports) and not dev.issues


def test_a_range_block_s_lines_are_spelled_once_and_read_on_every_port(monkeypatch):
    """A range's block is read once for each port it names; its lines, spelled once (they were spelled again for each
    port), still give each port the abbreviated commands, and an ambiguous one is one SYS002 at its line."""
    text = ("interface Ethernet1-3\n   prio on\n   serv type qos input ROCE-IN\n   tx-q 3\n      band percent 40\n"
            "      no prio\n")
    spelled: list[tuple[str, ...]] = []
    def counting(spell):
        def spell_and_count(words, *args, **kwargs):
            spelled.append(tuple(words))
            return spell(words, *args, **kwargs)
        return spell_and_count
    for name in ("interface_words", "queue_words"):
        monkeypatch.setattr(eos_flat, name, counting(getattr(eos_flat, name)))
    device = parse(text)
    # one spelling per line of the block (the ambiguous one too), not one per port
    assert sorted(spelled) == sorted(tuple(line.split()) for line in text.splitlines()[1:])
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 3)]
    for name in ("Ethernet1", "Ethernet2", "Ethernet3"):
        port = device.ports[name]
        assert port.pfc_source.line == 2 and port.map_source is None
        assert (port.queues[3].scheduler.type, port.queues[3].scheduler.weight) == (SchedulerType.wrr, 40)


@pytest.mark.parametrize("line,enabled", [
    ("priority-flow-control priority 3 no-drop", [3]),
    ("priority-flow-control priority 3", None),
    ("priority-flow-control priority 3 nodrop", None),
    ("priority-flow-control onn", None),
    ("priority-flow-control priority x no-drop", []),  # names no priority: what the others set stands
    ("priority-flow-control watchdog action errdisable", []),  # a watchdog line: PFC is as the others set it
])
def test_a_pfc_line_not_read_leaves_the_port_pfc_unknown(line, enabled):
    """EOS User Manual, `priority-flow-control on` and `priority-flow-control priority N {drop|no-drop}`. A port's PFC
    line not read (cut short, misspelt) is named and the port's PFC is unknown; it was read as no priority no-drop
    (PFC001 and MAP001 errors)."""
    device = parse("interface Ethernet1\n   no switchport\n   priority-flow-control on\n   " + line + "\n")
    assert device.ports["Ethernet1"].pfc_enabled == enabled
    assert [(i.code, i.source.line) for i in device.issues] == ([] if enabled == [3] else [("SYS002", 4)])


@pytest.mark.parametrize("line,trust", [
    ("qos trust dscp", "dscp"), ("qos trust", None), ("qos trust dscpp", None), ("no qos trust", "none")])
def test_a_trust_line_not_read_leaves_the_port_trust_unknown(line, trust):
    """EOS User Manual, QoS: `qos trust {cos|dscp}`, `no qos trust`; a switchport trusts CoS by default. A trust line
    not read is named and the port's trust is unknown; it was read as the default (a MAP003 error under a DSCP
    policy)."""
    device = parse(f"interface Ethernet1\n   switchport access vlan 10\n   {line}\n   priority-flow-control on\n")
    port = device.ports["Ethernet1"]
    assert (port.trust.value if port.trust else None) == trust
    assert [(i.code, i.source.line) for i in device.issues] == ([] if trust else [("SYS002", 3)])


@pytest.mark.parametrize("lines,trust", [
    (("qos trust dscpp", "qos trust cos"), "pcp"), (("qos trust cos", "qos trust dscpp"), None),
    (("qos trust", "no qos trust"), "none")])
def test_a_later_trust_line_decides_over_an_earlier_one_not_read(lines, trust):
    """EOS runs a port's trust lines in order and keeps the last (EOS User Manual, QoS: `qos trust {cos|dscp}`). A
    trust line read after one not read sets the trust (it stayed unknown); one not read after a read one leaves the
    trust unknown."""
    device = parse("interface Ethernet1\n   switchport access vlan 10\n" + "".join(f"   {line}\n" for line in lines))
    port = device.ports["Ethernet1"]
    assert (port.trust.value if port.trust else None) == trust
    bad = next(n for n, line in enumerate(lines, 3) if line not in ("qos trust cos", "no qos trust"))
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", bad)]
    if trust:
        assert port.trust_source.line == 4


@pytest.mark.parametrize("line,known", [
    ("qos map dscp 26 to traffic-class 5", True),
    ("qos map dscp 26 to traffic-class", False),
    ("qos map dscp 26 to", False),
    ("qos map dscp 26 to traffic-class five", False),
    ("qos map dscp 26 to traffic-class 5   ! RoCE", True),  # whole up to its number: EOS refuses it (round 6)
])
def test_a_qos_map_line_cut_short_leaves_the_map_unknown(line, known):
    """EOS User Manual, QoS: `qos map dscp V... to traffic-class T`. A map line cut before its value was read as EOS's
    default for the values it names (DSCP 26 -> TC 3: a MAP001 error under a priority-5 policy); the DSCP map is now
    unknown (the model has no unknown entry, so the whole map is)."""
    device = parse(f"{line}\ninterface Ethernet1\n   no switchport\n   qos trust dscp\n   priority-flow-control on\n")
    port = device.ports["Ethernet1"]
    assert (port.dscp_to_tc is not None) is known
    assert [(i.code, i.source.line) for i in device.issues] == ([] if line.endswith(" 5") else [("SYS002", 1)])


@pytest.mark.parametrize("set_line,tc", [("set traffic-class 5", 5), ("set traffic-class", None)])
def test_a_set_traffic_class_line_not_read_leaves_the_policy_map_unknown(set_line, tc):
    """EOS User Manual, QoS policies: a class's `set traffic-class N`. One not read left the class's DSCPs on the trust
    map's traffic class; the port's DSCP map is now unknown."""
    device = parse("class-map type qos match-any ROCE\n   match dscp 26\n"
                   f"policy-map type quality-of-service MARK\n   class ROCE\n      {set_line}\n"
                   "interface Ethernet1\n   no switchport\n   service-policy type qos input MARK\n"
                   "   priority-flow-control on\n")
    port = device.ports["Ethernet1"]
    assert (port.dscp_to_tc.get(26) if port.dscp_to_tc is not None else None) == tc
    assert [(i.code, i.source.line) for i in device.issues] == ([] if tc else [("SYS002", 5)])


# An interface profile in the form AVD's eos_cli_config_gen writes its `interface_profiles` (`interface profile NAME`,
# `command <interface command>` lines) and an interface applying it with `profile NAME`.
_IF_PROFILE = ("! device: leaf1 (DCS-7280SR3-48YC8, EOS-4.30.1F)\n!\nhostname leaf1\n!\n"
               "interface profile ROCE\n   command description gpu\n   command qos trust dscp\n"
               "   command priority-flow-control on\n!\ninterface profile LLDP-ONLY\n   command no lldp transmit\n!\n"
               "interface Ethernet1\n   profile ROCE\n!\ninterface Ethernet2\n   profile LLDP-ONLY\n!\n"
               "interface Ethernet3\n   profile MISSING\n!\nend\n")


def test_interface_profile_with_commands_read_on_a_port_is_named():
    """The commands a `profile` line applies were skipped without a word: Ethernet1 read as untouched (CoS trust, no
    PFC) while its profile sets DSCP trust and PFC. losslessd does not apply them (no document read says how they
    combine with the interface's lines): a SYS002 at the `profile` line names the profile and a command there."""
    device = parse(_IF_PROFILE)
    found = {i.source.line: i.message for i in device.issues if i.code == "SYS002"}
    at = line_of(_IF_PROFILE, "profile ROCE")
    assert "ROCE" in found[at] and f"sw1.cfg:{line_of(_IF_PROFILE, 'command qos trust dscp')}" in found[at]
    assert line_of(_IF_PROFILE, "profile LLDP-ONLY") not in found  # nothing losslessd reads: nothing to say
    assert "not defined" in found[line_of(_IF_PROFILE, "profile MISSING")]
    assert len(found) == 2


@pytest.mark.parametrize("line", ["qos trust dscp", "qos trust cos", "no qos trust"])
def test_global_qos_trust_is_named_not_skipped(line):
    """EOS's `qos trust` is an interface's or a `qos profile`'s command; at the margin of a running-config it was
    skipped without a word. A SYS002 at the line says it sets no port's trust; the port keeps its own (CoS, EOS's
    default on a switched port)."""
    text = f"hostname leaf1\n!\n{line}\n!\ninterface Ethernet1\n   priority-flow-control on\n!\nend\n"
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 3)]
    assert "not in global configuration" in device.issues[0].message
    assert device.ports["Ethernet1"].trust == Trust.pcp


@pytest.mark.parametrize("block", ["tx-queue 6\n   priority strict", "uc-tx-queue 3\n   random-detect ecn "
                                   "minimum-threshold 150 kbytes maximum-threshold 1500 kbytes"])
def test_global_tx_queue_is_named_not_skipped(block):
    """Round 13 (session 34): a RoCE guide's EOS block ends with `tx-queue 6` / `priority strict` at the margin, meant
    to make the CNP queue strict. EOS's `tx-queue N` (and `uc-tx-queue N`) is an interface's or a `qos profile`'s
    mode, none of global configuration (EOS User Manual, Quality of Service); it was passed over in silence. A SYS002
    at the line says it sets no port's queue; the port's queues are as without it."""
    text = f"hostname leaf1\n!\ninterface Ethernet1\n   priority-flow-control on\n!\n{block}\n!\nend\n"
    device = parse(text)
    plain = parse("hostname leaf1\n!\ninterface Ethernet1\n   priority-flow-control on\n!\nend\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 6)], device.issues
    assert "not in global configuration" in device.issues[0].message
    assert device.ports["Ethernet1"].queues == plain.ports["Ethernet1"].queues


def test_interface_profile_in_a_paste_without_indentation_is_named_too():
    """The same profile and port pasted at the margin (EOS reads a paste line by line: `command` lines stay in the
    profile's mode, `profile ROCE` in the port's)."""
    text = ("hostname x\ninterface profile ROCE\ncommand qos trust dscp\ncommand priority-flow-control on\n"
            "interface Ethernet1\nprofile ROCE\npriority-flow-control on\n"
            "priority-flow-control priority 3 no-drop\nend\n")
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 6)]
    assert device.ports["Ethernet1"].pfc_enabled == [3]


_SUB_BASE = ("hostname leaf1\nqos profile ROCE\n   qos trust dscp\n   priority-flow-control on\n"
             "   priority-flow-control priority 3 no-drop\ninterface Ethernet1\n   no switchport\n"
             "   service-profile ROCE\n")


@pytest.mark.parametrize(("header", "line"), [
    # Review of round 11: the subinterface check read the raw first word: an abbreviation EOS runs as the full
    # command, and a `no` form, passed silently (EOS User Manual, "Command-Line Interface": command abbreviation)
    ("interface Ethernet49/1.100", "service-prof ROCE"),
    ("interface Ethernet49/1.100", "priority-flow on"),
    ("interface Ethernet49/1.100", "no qos trust"),
    ("interface Ethernet49/1.100", "no priority-flow-control"),
    ("interface Ethernet49/1.100", "default priority-flow-control priority 3"),
    # a port-channel's subinterface (Arista subinterfaces: "a single ethernet or port channel interface") and a
    # comma list of subinterfaces
    ("interface Port-Channel10.100", "service-profile ROCE"),
    ("interface Ethernet51/1.1,Ethernet52/1.1", "service-profile ROCE"),
])
def test_qos_under_a_subinterface_is_named_however_it_is_written(header, line):
    text = _SUB_BASE + f"{header}\n   encapsulation dot1q vlan 100\n   {line}\n   ip address 10.0.0.1/31\n"
    device = parse(text)
    assert [(i.code, i.source.line, "QoS on a subinterface" in i.message) for i in device.issues] == [
        ("SYS002", text.count("\n") - 1, True)]
    assert device.ports["Ethernet1"].pfc_enabled == [3] and set(device.ports) == {"Ethernet1"}


@pytest.mark.parametrize("pieces, pfc, trust", [
    # a cut PFC line and its rest on a line of its own under it (audit round 14): both named, PFC unknown
    ("   priority-flow-control priority 3\n      no-drop\n", None, Trust.dscp),
    # a whole command with another under it: the switch runs both lines in interface mode, not one; PFC unknown
    ("   priority-flow-control on\n      priority-flow-control priority 3 no-drop\n", None, Trust.dscp),
    ("   qos trust\n      dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n", [3], None),
    # a line under a command that sets no lossless fact: named, nothing else unknown
    ("   description gpu01\n      mlx5_0\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n",
     [3], Trust.dscp),
])
def test_lines_indented_under_an_interface_command_are_named_and_leave_its_fact_unknown(pieces, pfc, trust):
    """Session 35 part a: lines indented under an interface command that opens no mode were named only under queue
    commands; elsewhere passed over in silence (an indented `no-drop` under `priority-flow-control priority 3`)."""
    text = "interface Ethernet1\n" + ("" if "qos trust" in pieces else "   qos trust dscp\n") + pieces + "!\nend\n"
    device = parse(text)
    port = device.ports["Ethernet1"]
    assert port.pfc_enabled == pfc
    assert (port.trust.value if port.trust else None) == trust
    indented = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith("      ")]
    named = {i.source.line for i in device.issues if i.code == "SYS002" and "opens no mode" in i.message}
    assert named == set(indented)


def test_blocks_of_real_sub_modes_are_no_wrapped_lines():
    """`tx-queue N` (read) and `mc-tx-queue N`, `evpn ethernet-segment`, `sync-e`, a subinterface's `encapsulation
    vlan` (EOS modes losslessd passes over; the last two were named in Arista AVD's rendered configs) hold lines of
    their own mode: none is named as a wrapped command."""
    text = ("interface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n"
            "   priority-flow-control priority 3 no-drop\n   tx-queue 3\n      bandwidth percent 50\n"
            "   mc-tx-queue 1\n      bandwidth percent 10\n   evpn ethernet-segment\n      identifier 0000:0000\n"
            "   sync-e\n      priority 10\n!\n"
            "interface Ethernet1.100\n   encapsulation vlan\n      client dot1q 100 network client\n!\nend\n")
    device = parse(text)
    assert [i for i in device.issues if "opens no mode" in i.message] == []
    assert device.ports["Ethernet1"].pfc_enabled == [3]


@pytest.mark.parametrize("line", ["congestion-control ecn mark", "trust dscp", "pause pfc-cos 3", "random-detect ecn",
                                  "no-drop", "dcb priority-flow-control mode on force"])
def test_a_port_line_of_another_platforms_qos_is_named_not_passed_over(line):
    """Audit round 15: port lines in another platform's QoS words (NX-OS generators' `congestion-control ecn mark`,
    OS10's `trust dscp`, a queue's `random-detect ecn` written under the port, a wrapped-off `no-drop`) are no EOS
    interface command: the switch refuses them. They were passed over without a word; now a SYS002 each."""
    text = f"hostname e1\ninterface Ethernet1\n   priority-flow-control on\n   {line}\n   switchport\n" \
           "   flowcontrol receive off\n   qos cos 3\n"
    device = parse(text)
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 4)] and "Ethernet1" in device.ports


def test_a_line_that_cannot_begin_a_command_under_one_the_reader_passes_over_is_a_wrapped_piece():
    """Session 36 part c: a block under a command the reader does not read is a sub-mode's (its lines are commands)
    unless a line of it cannot begin a command: `0.5` under `storm-control broadcast level` is the command's rest."""
    text = ("interface Ethernet1\n   qos trust dscp\n   storm-control broadcast level\n      0.5\n"
            "   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n!\nend\n")
    device = parse(text)
    assert [i.source.line for i in device.issues if "opens no mode" in i.message] == [4]
    assert device.ports["Ethernet1"].pfc_enabled == [3]


@pytest.mark.parametrize("lead", ["no", "default"])
def test_a_wrapped_piece_of_a_restored_pfc_line_leaves_pfc_unknown(lead):
    """Session 36 part e: a PFC line wrapped onto a line of its own left PFC unknown after `no` only: `default
    priority-flow-control` / `priority 3 no-drop` kept the PFC the lines before it set. Now the reader's LEADING words
    (`no`, `default`) name the command, as everywhere else in the EOS reader."""
    text = ("hostname e1\ninterface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n"
            f"   priority-flow-control priority 3 no-drop\n   {lead} priority-flow-control\n      priority 3 no-drop\n")
    port = parse(text).ports["Ethernet1"]
    assert port.pfc_enabled is None and port.pfc_source is not None and port.pfc_source.line == 7, \
        (port.pfc_enabled, port.pfc_source)


def test_default_priority_flow_control_restores_pfc_off_and_default_trust_the_port_default():
    """`default priority-flow-control` (EOS: a command's default form restores its default: PFC off, every priority
    drop) was passed over, so the port kept PFC on; `default qos trust` restores the port's default trust (CoS on a
    switched port), replacing the `qos trust dscp` before it."""
    text = ("hostname e1\ninterface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n"
            "   priority-flow-control priority 3 no-drop\n   default priority-flow-control\n   default qos trust\n")
    device = parse(text)
    port = device.ports["Ethernet1"]
    assert not device.issues and port.pfc_enabled == [] and port.trust == Trust.pcp, \
        (device.issues, port.pfc_enabled, port.trust)


def test_a_port_whose_policy_map_is_undefined_says_so_in_map003(tmp_path):
    """Round 15's leftover (avd 6318): MAP003 said "trust mode is not in the input" on a port with `qos trust cos`
    whose bound policy-map is not defined; the real gap is the policy-map (it classifies before the trust)."""
    text = ("hostname e1\ninterface Ethernet1\n   qos trust cos\n   priority-flow-control on\n"
            "   priority-flow-control priority 3 no-drop\n   service-policy type qos input ROCE-IN\n")
    (tmp_path / "e1.cfg").write_text(text)
    findings = [f for f in lint([tmp_path / "e1.cfg"], "roce-dscp26").findings if f.code == "MAP003"]
    assert len(findings) == 1 and "binds qos policy-map ROCE-IN, which is not defined in the input" in \
        findings[0].message and findings[0].source.line == 6, [(f.message, f.source) for f in findings]


def test_a_port_trusting_cos_says_so_where_its_dscp_map_is_unused():
    """A switched port trusts CoS by default (EOS User Manual, QoS, port trust settings): the global `qos map dscp 26
    to traffic-class 3` in the file does not classify it. MAP001/MAP002 said "the DSCP->TC map is not in the input"
    though the file states one; they now say the port sorts by the CoS the packets carry (audit round 16)."""
    path = FIXTURES.parent / "realworld" / "arista_eos" / "switched-port-dscp-map-unused.cfg"
    result = lint([path], "roce-dscp26")
    texts = {f.code: f.message for f in result.findings if f.code in ("MAP001", "MAP002")}
    assert set(texts) == {"MAP001", "MAP002"}
    for code, text in texts.items():
        assert "not in the input" not in text.split("(known")[0], (code, text)
        assert "trusts 802.1p CoS, not DSCP" in text, (code, text)


def test_an_interface_line_indented_in_an_interface_or_vrf_block_opens_its_own_port():
    """EOS reads each line in the mode the one before it left, whatever its indentation; a command the mode does not
    take runs in the enclosing one (EOS User Manual, Command Modes). A template rendering `   interface Ethernet1`
    with its settings at the same indentation had the port read as a VRF block's lines (passed over) or merged into
    the port above it (audit round 16: sonic-mgmt's 7260CX3 fanout template). Each now opens its own port."""
    path = FIXTURES.parent / "realworld" / "arista_eos" / "template-indented-port-blocks.cfg"
    dev = parse(path.read_text(encoding="utf-8"), path=str(path))
    assert sorted(dev.ports) == ["Ethernet1", "Ethernet2", "Ethernet3"]
    assert [dev.ports[p].description for p in sorted(dev.ports)] == ["gpu01", "gpu02", "gpu03"]
    assert dev.ports["Ethernet1"].pfc_enabled == [3] and dev.ports["Ethernet1"].trust == Trust.dscp
    assert dev.ports["Ethernet3"].pfc_enabled == []


def test_an_interface_line_a_mode_takes_stays_in_that_mode():
    """`interface Ethernet1` under a mode that takes one (a service-insertion connection) is that mode's, not a port."""
    text = ("hostname r1\n!\nrouter service-insertion\n   connection c1\n      interface Ethernet1 primary\n"
            "      monitor connectivity host h1\n!\ninterface Ethernet2\n   priority-flow-control on\n")
    assert sorted(parse(text).ports) == ["Ethernet2"]


def test_a_routed_port_with_a_subinterface_is_not_untagged():
    """EOS User Manual, "Subinterfaces": a subinterface of a routed port or port-channel (`interface Ethernet1.100`,
    `encapsulation dot1q vlan 100`) sends its frames tagged, so its parent is no untagged routed port (Port.vlans
    stays unknown, None); a routed port without one is [] (`no switchport`). Before: [] for both."""
    device = parse("\n".join([
        "interface Ethernet1", "   no switchport", "   ip address 192.0.2.0/31", "!",
        "interface Ethernet2", "   no switchport", "!",
        "interface Ethernet2.100", "   encapsulation dot1q vlan 100", "   ip address 192.0.2.2/31", "!",
        "interface Port-Channel5", "   no switchport", "!",
        "interface Ethernet3", "   channel-group 5 mode active", "!",
        "interface Po5.7", "   encapsulation dot1q vlan 7", "!", ""]))
    assert {name: port.vlans for name, port in device.ports.items()} == {
        "Ethernet1": [], "Ethernet2": None, "Ethernet3": None}


def test_a_watchdog_line_not_read_leaves_the_watchdog_unknown(tmp_path):
    """EOS User Manual, "Priority Flow Control": the port's watchdog is `priority-flow-control pause watchdog`, its
    action `priority-flow-control pause watchdog port action drop|errdisable|notify-only`. A blog's EOS port (round 17)
    wrote `priority-flow-control watchdog action errdisable`. Before: a SYS002, yet the port read as having the
    watchdog off (WDG001 error "PFC watchdog is off"): a watchdog line not read may be the one that starts it. Now the
    watchdog is unknown (WDG001 info), on the port alone, as a PFC line not read leaves the port's PFC unknown."""
    bad = "priority-flow-control watchdog action errdisable"
    # the global timeout: Arista's AI fabric guide's example value, 0.20 s
    text = "\n".join(["hostname sw1", "priority-flow-control pause watchdog default timeout 0.20",
                      "interface Ethernet1", "   qos trust dscp", "   priority-flow-control on",
                      "   priority-flow-control priority 3 no-drop", f"   {bad}",
                      "interface Ethernet2", "   qos trust dscp", "   priority-flow-control on",
                      "   priority-flow-control priority 3 no-drop",
                      "   priority-flow-control pause watchdog port action fast",
                      "interface Ethernet3", "   qos trust dscp", "   priority-flow-control on", ""])
    device = parse(text)
    assert ("SYS002", line_of(text, bad)) in {(i.code, i.source.line) for i in device.issues}
    first, second, third = (device.ports[f"Ethernet{n}"] for n in (1, 2, 3))
    assert first.watchdog.enabled is None and first.watchdog.source.line == line_of(text, bad)
    assert second.watchdog.enabled is None  # an action EOS does not name: the line is not read
    assert first.pfc_enabled == [3] and third.watchdog.enabled is True  # no watchdog line: on, by the global timeout
    (tmp_path / "sw1.cfg").write_text(text, encoding="utf-8")
    wdg = [f for f in lint([tmp_path / "sw1.cfg"], "roce-dscp26").findings if f.code == "WDG001"]
    assert {f.severity.value for f in wdg if f.port == "Ethernet1"} == {"info"}


@pytest.mark.parametrize(("bad", "marking", "severity"), [
    # EOS has no tx-queue policy-map (its types: quality-of-service, pbr, copp, pdp; AVD writes no other): refused
    ("service-policy type tx-queue output AI-EGRESS-QUEUE", False, "error"),
    ("service-policy type qos output EGRESS", None, "info"),  # a qos type, output: not read, so unknown
])
def test_a_queue_binding_not_read_leaves_the_queues_marking_unknown(tmp_path, bad, marking, severity):
    """Round 18: a RoCEv2 design document's EOS port binds `service-policy type tx-queue output NAME` to its `policy-map
    type tx-queue NAME`. Session 39 part a left the port's queue 3 marking unknown (ECN001 info); but EOS has no
    tx-queue policy-map, so the switch refuses both lines and the queue keeps EOS's default (no marking): ECN001 is an
    error again, and each SYS002 says the switch refuses the line. A binding of a type EOS has but losslessd does not
    read still leaves a queue no line sets unknown; a queue whose own `random-detect ecn` line is read keeps it, and a
    port without the binding keeps the default (off)."""
    text = "\n".join(["hostname sw1", "policy-map type tx-queue AI-EGRESS-QUEUE", "   class tx-queue 3",
                      "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 3000 kbytes",
                      "interface Ethernet1", "   no switchport", "   qos trust dscp",
                      "   priority-flow-control on", "   priority-flow-control priority 3 no-drop", f"   {bad}",
                      "   uc-tx-queue 4",
                      "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
                      "interface Ethernet2", "   no switchport", "   qos trust dscp", "   priority-flow-control on",
                      "   priority-flow-control priority 3 no-drop", ""])
    device = parse(text)
    issues = {i.source.line: i.message for i in device.issues if i.code == "SYS002"}
    assert ("the switch refuses" in issues[line_of(text, bad)]) is (marking is False)
    assert "the switch refuses this line and the lines under it" in issues[2]
    first, second = device.ports["Ethernet1"], device.ports["Ethernet2"]
    assert first.queues[3].ecn.ecn_enabled is marking
    assert first.queues[4].ecn.ecn_enabled is True  # (its own line, read)
    assert second.queues[3].ecn.ecn_enabled is False
    (tmp_path / "sw1.cfg").write_text(text, encoding="utf-8")
    ecn = {f.port: f.severity.value for f in lint([tmp_path / "sw1.cfg"], "roce-dscp26").findings
           if f.code == "ECN001"}
    assert ecn == {"Ethernet1": severity, "Ethernet2": "error"}


def test_a_global_watchdog_line_of_no_eos_form_is_refused_and_changes_no_port():
    """A design page's `priority-flow-control pause watchdog default action drop timer 200 milliseconds
    polling-interval 50 milliseconds`: EOS User Manual, "DCBX and Flow Control", takes `... pause watchdog default
    timeout|recovery-time|polling-interval SECONDS` one timer a line and `... pause watchdog action ACTION`. Before:
    "not a priority-flow-control command losslessd knows"; now the SYS002 names the forms EOS takes and says the
    switch refuses the line; the port's own watchdog line still starts it, with EOS's default timers."""
    bad = ("priority-flow-control pause watchdog default action drop timer 200 milliseconds polling-interval 50 "
           "milliseconds")
    text = "\n".join(["hostname sw1", bad, "priority-flow-control pause watchdog default timeout 200 milliseconds",
                      "interface Ethernet1", "   qos trust dscp", "   priority-flow-control on",
                      "   priority-flow-control priority 3 no-drop", "   priority-flow-control pause watchdog", ""])
    device = parse(text)
    issues = {i.source.line: i.message for i in device.issues if i.code == "SYS002"}
    assert set(issues) == {2, 3}
    assert all("the switch refuses this line" in m and "default timeout|recovery-time|polling-interval SECONDS" in m
               for m in issues.values())
    watchdog = device.ports["Ethernet1"].watchdog  # the refused lines set no timeout: whether it watches is unknown
    assert watchdog.enabled is None and watchdog.detection_time_ms is None and watchdog.unknown


def test_a_qos_class_on_cos_is_not_called_an_acl_class():
    """The SYS002 for a class losslessd does not evaluate said "matched on an ACL" for every such class, a `match cos`
    one too (QosClass.other: an ACL, CoS, a VLAN): the operator looked for an ACL the config does not have."""
    text = POLICY_MAP.replace("   match ip access-group bulk-v4\n", "   match cos 3\n")
    (issue,) = parse(text).issues
    assert (issue.code, issue.source.line) == ("SYS002", line_of(text, "class BULK-ACL"))
    assert "on an ACL" not in issue.message and "matched on something other than DSCP alone (an ACL, CoS, a VLAN, " \
        "ECN bits)" in issue.message


# EOS ports of our own, written from what `show running-config all` prints (batfish's arista_interface_show_run_all*
# captures, EOS 4.19.1F, 4.21.7M, 4.22.3M: `priority-flow-control pause watchdog` on every port, PFC off too) and the
# watchdog forms AVD eos_cli_config_gen writes (global `default timeout|recovery-time`, `action`; a qos profile's
# `priority-flow-control pause watchdog`, `no` form, `port timer`). Timer values: Arista's AI fabric guide's example.
_WATCHDOG_PORTS = """hostname leaf-7
qos profile ROCE
   priority-flow-control on
   priority-flow-control priority 3 no-drop
qos profile ROCE-NO-WD
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   no priority-flow-control pause watchdog
{global_lines}interface Ethernet1
   description no watchdog line
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
interface Ethernet2
   description the watchdog turned off on the port
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   no priority-flow-control pause watchdog
interface Ethernet3
   description a profile without watchdog lines
   qos trust dscp
   service-profile ROCE
interface Ethernet4
   description a profile that turns it off
   qos trust dscp
   service-profile ROCE-NO-WD
interface Ethernet5
   description the port turns back on what its profile turns off
   qos trust dscp
   service-profile ROCE-NO-WD
   priority-flow-control pause watchdog
interface Ethernet6
   description the watchdog line, as show running-config all prints it
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
interface Ethernet7
   description port timers only
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog port timer timeout 0.20 polling-interval 0.10 recovery-time 0.20
"""
_GLOBAL_TIMEOUT = ("priority-flow-control pause watchdog default timeout 0.20\n"
                   "priority-flow-control pause watchdog default recovery-time 0.20\n"
                   "priority-flow-control pause watchdog action drop\n")


def test_the_watchdog_is_on_by_default_on_each_port_and_the_global_timeout_starts_it(tmp_path):
    """`show running-config all` prints `priority-flow-control pause watchdog` on every port nobody configured (PFC off
    too): EOS's per-port switch is on by default, and the global `... default timeout` is what the ports watch with.
    Before: a port without the line read as watchdog off, so a switch started by the global timeout alone (AVD's
    global `priority_flow_control.watchdog`, Arista's AI fabric guide) had a false WDG001 error on every port, while
    the same port with the default line read on even with no timeout anywhere. Now a port without the line is as one
    with it: on with a timeout (global, or its own `port timer`), off where a `no` line of the port or its profile
    says so. Where no timeout is set it was read off (session 39), an inference no source states (Arista's documents
    start it with a timeout and name no built-in one; no `show priority-flow-control` of such a switch was found):
    it is unknown now, and WDG001 a warning naming the global timeout, which the fix sets (session 40 part d)."""
    text = _WATCHDOG_PORTS.format(global_lines=_GLOBAL_TIMEOUT)
    ports = parse(text).ports
    state = {n: ports[f"Ethernet{n}"].watchdog.enabled for n in range(1, 8)}
    assert state == {1: True, 2: False, 3: True, 4: False, 5: True, 6: True, 7: True}
    first = ports["Ethernet1"].watchdog
    assert (first.detection_time_ms, first.restoration_time_ms, first.action_raw) == (200, 200, "drop")
    assert first.source.line == line_of(text, "priority-flow-control pause watchdog default timeout 0.20")
    assert ports["Ethernet4"].watchdog.source.line == line_of(text, "no priority-flow-control pause watchdog",
                                                              after="qos profile ROCE-NO-WD")

    bare = _WATCHDOG_PORTS.format(global_lines="")
    ports = parse(bare).ports
    state = {n: ports[f"Ethernet{n}"].watchdog.enabled for n in range(1, 8)}
    assert state == {1: None, 2: False, 3: None, 4: False, 5: None, 6: None, 7: True}
    assert ports["Ethernet7"].watchdog.detection_time_ms == 200  # the port's own timeout
    assert "no Arista document losslessd read names a built-in one" in ports["Ethernet1"].watchdog.unknown

    wdg = {}
    for name, body in (("timeout", text), ("bare", bare)):
        (tmp_path / f"{name}.cfg").write_text(body, encoding="utf-8")
        found = lint([tmp_path / f"{name}.cfg"], "roce-dscp26").findings
        wdg[name] = {(f.port, f.severity.value) for f in found if f.code == "WDG001"}
    assert wdg == {"timeout": {("Ethernet2", "error"), ("Ethernet4", "error")},
                   "bare": {("Ethernet2", "error"), ("Ethernet4", "error"),
                            *((f"Ethernet{n}", "warning") for n in (1, 3, 5, 6))}}


# AVD eos_cli_config_gen class-maps.j2 (avd 0dc169fdc4): EOS qos class-maps are `class-map type qos match-any NAME`,
# with `match dscp D ecn E` among their match forms; EOS User Manual, QoS policies: the first class of the policy-map
# that matches a packet takes it, before the trust map. ROCE_CE matches DSCP 26 with ECN CE (some of DSCP 26's
# packets), ROCE all of DSCP 26 and, from a second line, DSCP 24 (match-any: either line matches).
_ECN_CLASS = ("hostname leaf6\n!\nclass-map type qos match-any ROCE_CE\n   match dscp 26 ecn ce\n!\n"
              "class-map type qos match-any ROCE\n   match dscp 26\n   match dscp 24\n!\n"
              "class-map type qos match-all BOTH\n   match dscp 10\n   match cos 1\n!\n"
              "policy-map type quality-of-service P1\n   class ROCE_CE\n      set traffic-class 1\n   !\n"
              "   class ROCE\n      set traffic-class 3\n   !\n   class BOTH\n      set traffic-class 2\n!\n"
              "interface Ethernet1\n   no switchport\n   qos trust dscp\n   service-policy type qos input P1\n")


def test_a_dscp_and_ecn_class_may_take_part_of_its_dscp_and_match_lines_add_up():
    """`match dscp 26 ecn ce` read "cannot read ... 'ecn' is not a DSCP value" and its class as matching nothing known.
    It now matches DSCP 26's CE-marked packets: the DSCP map keeps DSCP 26 for the class after it (the rest of its
    packets), and DSCP 26 is by hand on the port, naming the ECN class that may take it first. Two `match dscp` lines
    of a match-any class both classify; a `match-all` class (no form AVD writes) is named and not evaluated."""
    device = parse(_ECN_CLASS)
    port = device.ports["Ethernet1"]
    assert (port.dscp_to_tc[26], port.dscp_to_tc[24], port.dscp_to_tc[10]) == (3, 3, 0)  # (10: EOS's default map)
    tc, why = port.by_hand_dscp[26]
    assert tc == 1 and "class ROCE_CE, which matches DSCP with its ECN bits and may take DSCP 26 traffic" in why
    assert port.by_hand_dscp[24][0] == 3
    assert port.by_hand_dscp[10][0] == 2 and "may take DSCP 10" in port.by_hand_dscp[10][1]  # (BOTH: may match it)
    messages = [(i.source.line, i.message) for i in device.issues]
    assert not any("cannot read" in m for _, m in messages)
    assert any(line == line_of(_ECN_CLASS, "class-map type qos match-all BOTH") and "`match-all`" in m
               for line, m in messages)
    assert any(line == line_of(_ECN_CLASS, "class ROCE_CE") and "ROCE_CE, BOTH" in m for line, m in messages)


# Arista rbeapi, EthernetInterface#set_flowcontrol: `flowcontrol send|receive on|off`, `no` / `default flowcontrol
# DIRECTION`. Audit round 19: an HPC fabric guide's EOS ports write `flowcontrol send on` / `flowcontrol receive on`;
# EOS's were passed over as "other" lines, so PFC003 never spoke on EOS. A direction not written, or reset, is the
# platform's default, which no source read gives: unknown (None), not off.
@pytest.mark.parametrize("lines, pause, named", [
    (["flowcontrol send on", "flowcontrol receive on"], (True, True), 1),  # receive's line first
    (["flowcontrol receive on"], (True, None), 0),
    (["flowcontrol send on", "no flowcontrol send", "flowcontrol receive off"], (False, None), 2),
    (["flowcontrol receive desired"], (None, None), 0),  # not read: unknown, and named
    (["default flowcontrol receive"], None, None)])
def test_link_pause_is_read_per_direction(lines, pause, named):
    text = "interface Ethernet1\n" + "".join(f"   {line}\n" for line in ["priority-flow-control on", *lines])
    device = parse(text)
    got = device.ports["Ethernet1"].link_pause
    assert (got.rx, got.tx) == pause if pause is not None else got is None
    if pause is not None:
        assert got.source.line == line_of(text, lines[named])
    assert [i.code for i in device.issues] == (["SYS002"] if pause == (None, None) else [])


def test_link_pause_beside_pfc_is_pfc003(tmp_path):
    path = tmp_path / "leaf.cfg"
    path.write_text("interface Ethernet24/1\n   flowcontrol send on\n   flowcontrol receive on\n"
                    "   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n")
    found = [f for f in lint([path]).findings if f.code == "PFC003"]
    assert [(f.severity.value, f.port, "RX on, TX on" in f.message) for f in found] == [("error", "Ethernet24/1", True)]


def test_an_ecn_class_after_the_class_that_takes_its_dscp_whole_is_no_warning():
    """EOS User Manual, QoS policies: the first class that matches a packet takes it. `match dscp 26 ecn ce` after a
    class matching all of DSCP 26 takes no packet: it was still a SYS002 "losslessd does not evaluate it" (a warning,
    exit 1 for a config otherwise clean). An ECN class ahead of it is still named, and DSCP 26 by hand."""
    after = _ECN_CLASS.replace("   class ROCE_CE\n      set traffic-class 1\n   !\n", "").replace(
        "   class BOTH\n", "   class ROCE_CE\n      set traffic-class 1\n   !\n   class BOTH\n")
    assert after.index("class ROCE_CE\n      set") > after.index("class ROCE\n      set")
    device = parse(after)
    assert [m for i in device.issues for m in [i.message] if "ROCE_CE" in m] == []
    assert device.ports["Ethernet1"].by_hand_dscp[26][0] == 3  # (ROCE's, which takes DSCP 26 first)
    assert any("for class ROCE_CE, BOTH" in i.message for i in parse(_ECN_CLASS).issues)


@pytest.mark.parametrize("line", ["flow tracker sampled FLOW-TRACKER", "flow tracker hardware FT", "l2 mtu 9214",
                                  "link tracking group LT upstream", "port-channel lacp fallback individual",
                                  "tcp mss ceiling ipv4 1436", "pim ipv4 sparse-mode", "sync-e"])
def test_a_whole_interface_command_is_not_read_as_an_abbreviation(line):
    """Round 20: 20 of aristanetworks/avd's whole intended configs write `flow tracker sampled NAME` under a port (EOS
    User Manual, Flow Tracking); `flow`, a whole command, was read as an abbreviated `flowcontrol` and named (SYS002,
    exit 1 on a clean config). The commands those configs write under ports are listed (eos/flat.py _IF_OTHER)."""
    text = "interface Ethernet1\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n" \
        f"   {line}\n"
    device = parse(text)
    assert device.issues == [] and device.ports["Ethernet1"].pfc_enabled == [3] \
        and device.ports["Ethernet1"].link_pause is None


@pytest.mark.parametrize("line", ["priority-flow-control on", "priority-flow-control priority 3 no-drop",
                                  "flowcontrol send on", "qos trust dscp", "qos cos 3", "no qos trust",
                                  "service-profile ROCE", "tx-queue 3"])
def test_a_port_channel_qos_line_is_named_not_passed_over(line):
    """EOS takes PFC, link pause, trust and profile lines under a Port-Channel (AVD's port-channel schema writes
    them), but no Arista document read says whether its members take them: each was read into the port-channel and
    dropped without a word. Now a SYS002 names the line; the member keeps its own lines (here: no PFC line, PFC off)."""
    text = (f"interface Port-Channel10\n   {line}\n   switchport mode trunk\n!\n"
            "interface Ethernet2\n   channel-group 10 mode active\n!\n")
    device = parse(text)
    named = [i for i in device.issues if i.code == "SYS002"]
    assert [(i.source.line, "port-channel" in i.message and "its members keep their own" in i.message)
            for i in named] == [(2, True)]
    port = device.ports["Ethernet2"]
    assert (port.bundle, port.pfc_enabled, port.vlans) == ("Port-Channel10", [], list(range(1, 4095)))  # its trunk


@pytest.mark.parametrize(("line", "unknown"), [
    ("priority-flow-control priority 3 no-drop ! RoCE", "pfc"),
    ("qos trust dscp !! to the GPUs", "trust"),
    ("priority-flow-control on !", "pfc"),
])
def test_an_inline_bang_comment_is_named_and_leaves_what_the_line_sets_unknown(line, unknown):
    """No Arista document read says whether EOS takes words after an inline `!` as a comment (EOS writes comments on
    lines of their own). The line was a SYS002 "not a command losslessd knows" (the PFC one) or read as if the `!`
    was not there (the trust one, `qos trust dscp` took the first three words); now each is named for its `!`, and
    what it sets is unknown rather than its default. A description keeps its `!`."""
    text = (f"interface Ethernet1\n   description uplink ! spine1\n   priority-flow-control on\n   {line}\n!\n")
    device = parse(text)
    named = [i for i in device.issues if i.code == "SYS002"]
    assert [(i.source.line, "inline `!`" in i.message) for i in named] == [(4, True)]
    port = device.ports["Ethernet1"]
    assert port.description == "uplink ! spine1"
    assert (port.pfc_enabled, port.trust) == ((None, Trust.pcp) if unknown == "pfc" else ([], None))


@pytest.mark.parametrize(("line", "vlans"), [("switchport mode trunk ! to spine", [1]), ("no switchport !routed", [1])])
def test_an_inline_bang_on_a_port_channel_line_its_members_take_is_named(line, vlans):
    """A Port-Channel's switchport lines reach its members, but its lines skipped the inline-`!` check an Ethernet's
    get: `switchport mode trunk ! to spine` made the member a trunk of every VLAN without a word. Now it is named as
    on an Ethernet and not read (the member keeps an access port's VLAN 1); the channel's description keeps its `!`."""
    text = (f"interface Port-Channel10\n   description to ! spine\n   {line}\n!\n"
            "interface Ethernet2\n   channel-group 10 mode active\n!\n")
    device = parse(text)
    assert [(i.code, i.source.line, "inline `!`" in i.message) for i in device.issues] == [("SYS002", 3, True)]
    assert device.ports["Ethernet2"].vlans == vlans


def test_no_drop_priorities_without_pfc_on_ask_for_the_pfc_switch_not_the_priorities(tmp_path):
    """Session 41 part l (round 22, a ZTP generator's AI-fabric leaves): every port wrote `priority-flow-control
    priority 3 no-drop` but no `priority-flow-control on`, and PFC001 said "enable PFC on priority 3" at that very
    line. EOS User Manual, Priority Flow Control: `priority-flow-control on` enables PFC on the interface, `priority
    N no-drop` names the priorities it pauses; PFC001 now names the missing switch. Our fixture: a routed port
    (the manual's command forms), one with the switch for contrast."""
    path = tmp_path / "leaf.cfg"
    path.write_text("hostname leaf\ninterface Ethernet1\n   no switchport\n   qos trust dscp\n"
                    "   priority-flow-control priority 3 no-drop\n!\ninterface Ethernet2\n   no switchport\n"
                    "   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n")
    device = parse(path.read_text())
    assert (device.ports["Ethernet1"].pfc_declared, device.ports["Ethernet2"].pfc_declared) == ([3], None)
    found = [f for f in lint([path], "roce-dscp26").findings if f.code == "PFC001"]
    assert [(f.port, f.source.line) for f in found] == [("Ethernet1", 5)], [(f.port, f.message) for f in found]
    assert found[0].message.endswith("the port writes priority 3 no-drop, but its PFC is off: add "
                                     "`priority-flow-control on` on the port (or its qos profile)"), found[0].message


@pytest.mark.parametrize(("line", "named"), [
    # a generator's `units` keyword (round 22's ZTP leaves): the unit after each threshold is EOS's form
    ("random-detect ecn minimum-threshold 100 maximum-threshold 200 units kbytes", "`units kbytes` is no EOS form"),
    ("random-detect ecn minimum-threshold 100 maximum-threshold 200", "no unit after `minimum-threshold 100`"),
    ("random-detect ecn minimum-threshold 100 kbytes maximum-threshold 200 max-mark-probability 20",
     "no unit after `maximum-threshold 200`"),
    ("random-detect ecn minimum-threshold 150KB maximum-threshold 1500KB", "`minimum-threshold 150KB`: not a number"),
    ("random-detect ecn maximum-threshold 200 kbytes", "no `minimum-threshold`"),
    ("random-detect ecn minimum-threshold 100 kbytes", "no `maximum-threshold`"),
    # (session 42 review r3: a threshold given out of order, or without its number, was "no `minimum-threshold`"
    # and "no unit after `maximum-threshold`")
    ("random-detect ecn maximum-threshold 200 kbytes minimum-threshold 100 kbytes",
     "`minimum-threshold` comes first, then `maximum-threshold`"),
    ("random-detect ecn weight 0 minimum-threshold 100 kbytes maximum-threshold 200 kbytes",
     "`minimum-threshold` comes first"),
    ("random-detect ecn minimum-threshold 100 kbytes maximum-threshold", "no number after `maximum-threshold`"),
    ("random-detect ecn minimum-threshold 100 kbytes maximum-threshold weight 0", "no number after `maximum-thr"),
    ("random-detect ecn minimum-threshold maximum-threshold 200 kbytes", "no number after `minimum-threshold`"),
])
def test_an_ecn_line_not_in_eos_form_names_what_is_wrong_and_leaves_the_marking_unknown(line, named):
    """Session 42 part g: each `random-detect ecn` line not in EOS's form had the one message "expected
    `minimum-threshold X UNIT maximum-threshold Y UNIT`" (a `units kbytes` one said nothing of its `units`). AVD
    eos_cli_config_gen (3cac535c16) writes the unit after each threshold, of segments, bytes, kbytes, mbytes,
    milliseconds (microseconds in later schemas), and no Arista source read writes another form: the SYS002 now names
    what is wrong, and the queue's marking stays unknown (ECN_UNREAD), not off."""
    device = parse(f"hostname e\ninterface Ethernet1\n   uc-tx-queue 3\n      {line}\n")
    found = [i.message for i in device.issues if i.code == "SYS002"]
    assert len(found) == 1 and named in found[0] and "the unit (bytes, kbytes, mbytes, segments, milliseconds or " \
        "microseconds) after each threshold" in found[0], found
    assert device.ports["Ethernet1"].queues[3].ecn.ecn_enabled is None


@pytest.mark.parametrize("unit", ["bytes", "kbytes", "mbytes", "segments", "milliseconds", "microseconds"])
def test_each_ecn_threshold_unit_eos_writes_is_read(unit):
    """The six units of EOS's form (AVD eos_cli_config_gen's `random_detect.ecn.threshold.units`) read without a
    finding: marking on, thresholds in bytes where the unit (and the port's speed, for time) converts."""
    device = parse("hostname e\ninterface Ethernet1\n   speed 100g\n   uc-tx-queue 3\n"
                   f"      random-detect ecn minimum-threshold 1 {unit} maximum-threshold 2 {unit}\n")
    assert not device.issues and device.ports["Ethernet1"].queues[3].ecn.ecn_enabled is True


@pytest.mark.parametrize("profile, pmap, intf", [("qos profile", "policy-map", "interface"),
                                                 ("q profile", "pol", "int"), ("qo profile", "policy-m", "inter")])
def test_a_session_s_abbreviated_mode_opening_commands_read_as_written_out(profile, pmap, intf):
    """Session 42 reread rr-c: a session's command that opens a mode of configuration mode is read by the mode the
    next prompt names (clitext._OPENING_WORDS). `q profile P` opening `(config-qos-profile-P)#` was not among them:
    the profile's PFC lines went under an unknown command and the port's `service-profile P` named P "not defined"
    (PFC001 "not in the input"); `pol type quality-of-service P` opening `(config-pmap-quality-of-service-P)#` left
    the policy-map so too."""
    text = ("leaf1#configure\n"
            f"leaf1(config)#{profile} P\nleaf1(config-qos-profile-P)#priority-flow-control on\n"
            "leaf1(config-qos-profile-P)#priority-flow-control priority 3 no-drop\nleaf1(config-qos-profile-P)#exit\n"
            f"leaf1(config)#{pmap} type quality-of-service ROCE-IN\n"
            "leaf1(config-pmap-quality-of-service-ROCE-IN)#class class-default\n"
            "leaf1(config-pmap-c-quality-of-service-ROCE-IN-class-default)#set traffic-class 3\n"
            "leaf1(config-pmap-c-quality-of-service-ROCE-IN-class-default)#exit\n"
            "leaf1(config-pmap-quality-of-service-ROCE-IN)#exit\n"
            f"leaf1(config)#{intf} Ethernet1\nleaf1(config-if-Et1)#service-profile P\n"
            "leaf1(config-if-Et1)#service-policy type qos input ROCE-IN\nleaf1(config-if-Et1)#end\n")
    device = parse(text)
    assert device.issues == [] and device.ports["Ethernet1"].pfc_enabled == [3], device.issues
