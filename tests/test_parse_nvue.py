"""NVUE (Cumulus Linux) parser: the command list, the YAML/JSON tree and captures give the same effective QoS."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from losslessd import api, limits
from losslessd.errors import InputError
from losslessd.model import Fabric, PriorityGroup, SchedulerType, Trust
from losslessd.parse import detect, eos, nvue
from losslessd.parse.base import Input
from losslessd.parse.nvue.reader import command_paths
from losslessd.parse.nvue.script import expansions
from tests.conftest import FIXTURES

RAW = FIXTURES / "raw" / "nvidia_cumulus"


def parse(text: str, path: str = "leaf.cfg"):
    return nvue.parse([Input(path, text)], "fallback")


def fixture(name: str):
    return nvue.parse([Input(name, (RAW / name).read_text(encoding="utf-8"))], "fallback")


def test_good_config_ports_and_maps():
    dev = fixture("leaf-roce-good.cfg")
    assert dev.name == "leaf01" and dev.platform == "nvidia_cumulus"
    assert sorted(dev.ports) == ["swp1", "swp2", "swp51", "swp52"]  # eth0 and lo carry no PFC
    p = dev.ports["swp1"]
    assert (p.mtu_bytes, p.speed_gbps, p.description) == (9216, 400.0, "gpu01 eth2")
    assert dev.ports["swp51"].speed_gbps == 800.0
    assert p.qos_configured and p.trust is Trust.dscp and p.trust_source.line == 14
    assert p.dscp_to_tc[26] == 3 and p.dscp_to_tc[48] == 6 and p.dscp_to_tc[0] == 0
    assert p.tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}  # RoCE mode SP -> TC
    assert p.pfc_enabled == [3] and p.pfc_source.line == 15
    ecn = p.queues[3].ecn
    assert (ecn.ecn_enabled, ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.mark_probability_pct) == (
        True, 150000, 1500000, 100.0)
    assert ecn.source.line == 16
    assert p.queues[6].scheduler.type is SchedulerType.strict and p.queues[6].scheduler.source.line == 20
    assert (p.queues[3].scheduler.type, p.queues[3].scheduler.weight) == (SchedulerType.dwrr, 50)
    wd = p.watchdog
    assert (wd.enabled, wd.detection_time_ms, wd.restoration_time_ms, wd.action) == (True, 300.0, 100.0, "drop")
    assert wd.source.line == 12


def test_roce_mode_alone_fills_documented_defaults():
    dev = parse("nv set interface swp7 type swp\nnv set qos roce\n")
    p = dev.ports["swp7"]
    assert p.qos_configured and p.trust is Trust.dscp and p.pfc_enabled == [3] and p.pfc_source.line == 2
    assert p.queues[3].ecn.min_threshold_bytes == 150000 and p.queues[3].ecn.source.line == 2
    assert p.queues[6].scheduler.type is SchedulerType.strict
    assert p.watchdog.enabled is False  # NVUE enables the watchdog per interface only


def test_single_ingress_pool_mode_is_lossless():
    # Cumulus Linux 5.14 RoCE guide, "Single Shared Buffer Pool": lossless RoCE whose lossy and lossless traffic share
    # one ingress buffer pool; it once read as an unknown setting and the switch as one with no QoS at all.
    dev = parse("nv set interface swp1 type swp\nnv set qos roce mode lossless-single-ipool\n")
    p = dev.ports["swp1"]
    assert not dev.issues and p.qos_configured and p.pfc_enabled == [3] and p.pfc_source.line == 2
    assert p.queues[3].ecn.ecn_enabled and p.queues[6].scheduler.type is SchedulerType.strict


@pytest.mark.parametrize("new, old", [("state enabled", "enable on"), ("state disabled", "enable off")])
def test_roce_state_is_the_cumulus_5_15_spelling_of_enable(new, old):
    # Cumulus Linux 5.15 renamed `qos roce enable on|off` to `qos roce state enabled|disabled`: read alike.
    def port(words: str):
        dev = parse(f"nv set interface swp1 type swp\nnv set qos roce {words}\n")
        assert not dev.issues
        return dev.ports["swp1"]
    assert (port(new).pfc_enabled, port(new).qos_configured) == (port(old).pfc_enabled, port(old).qos_configured)
    assert port("state enabled").pfc_enabled == [3]


def test_lossy_mode_has_no_pfc_and_explicit_values_win():
    dev = parse("nv set interface swp1 type swp\nnv set qos roce mode lossy\n"
                "nv set qos congestion-control default-global traffic-class 3 min-threshold 300000\n")
    p = dev.ports["swp1"]
    assert p.pfc_enabled == []
    assert (p.queues[3].ecn.min_threshold_bytes, p.queues[3].ecn.max_threshold_bytes) == (300000, 1500000)


def test_lossy_modes_name_the_device_and_mark_ports_whose_pfc_they_decide():
    """RoCE guide: lossy mode enables PFC on no priority; a port bound to its own PFC profile keeps it."""
    dev = parse("nv set interface swp1-2 type swp\nnv set qos roce mode lossy\n"
                "nv set qos pfc MINE switch-priority 3\nnv set interface swp2 qos pfc profile MINE\n")
    assert dev.lossy_mode == "RoCE lossy mode (nv set qos roce mode lossy)" and dev.lossy_mode_source.line == 2
    assert (dev.ports["swp1"].lossy_mode, dev.ports["swp1"].pfc_enabled) == (True, [])
    assert (dev.ports["swp2"].lossy_mode, dev.ports["swp2"].pfc_enabled) == (False, [3])
    assert "roce-lossless" not in dev.traffic_pools
    lossless = parse("nv set interface swp1 type swp\nnv set qos roce mode lossy\nnv set qos roce mode lossless\n")
    assert lossless.lossy_mode is None and not lossless.ports["swp1"].lossy_mode


def test_lossy_multi_tc_mode_reads_the_guides_defaults():
    """Cumulus Linux 5.14+ RoCE guide, `nv show qos roce` of the lossy multi TC profile: no PFC, trust pcp,dscp, SP n ->
    TC n with DWRR 4/8/18/22/22/22/4/0 %, ECN on TCs 1-3 from 163.00 KB to 234.00 KB at probability 5, DSCP 5,6 -> SP 3,
    11-40 -> SP 4 and (Cumulus Linux 5.16's table) 41-50 -> SP 5."""
    dev = parse("nv set interface swp1 type swp\nnv set qos roce mode lossy-multi-tc\n")
    assert not dev.issues  # no longer an unknown RoCE setting (SYS002)
    p = dev.ports["swp1"]
    assert dev.lossy_mode.startswith("RoCE lossy-multi-tc mode") and p.lossy_mode and p.pfc_enabled == []
    assert p.trust is Trust.dscp and p.tc_to_queue == {sp: sp for sp in range(8)}
    assert (p.dscp_to_tc[5], p.dscp_to_tc[6], p.dscp_to_tc[26], p.dscp_to_tc[40], p.dscp_to_tc[48]) == (3, 3, 4, 4, 5)
    assert (p.dscp_to_tc[41], p.dscp_to_tc[50], p.dscp_to_tc[51], p.dscp_to_tc[7]) == (5, 5, 0, 0)  # (5.16's table)
    assert [p.queues[tc].scheduler.weight for tc in range(8)] == [4, 8, 18, 22, 22, 22, 4, 0]
    marking = {tc: (q.ecn.min_threshold_bytes, q.ecn.max_threshold_bytes, q.ecn.mark_probability_pct)
               for tc, q in p.queues.items() if q.ecn is not None}
    assert marking == {tc: (166912, 239616, 5.0) for tc in (1, 2, 3)}


def test_port_profiles_override_default_global():
    dev = parse("nv set interface swp1-2 type swp\n"
                "nv set qos pfc default-global switch-priority 3\n"
                "nv set qos pfc STORAGE switch-priority 3,4\n"
                "nv set qos pfc STORAGE cable-length 50\n"
                "nv set interface swp2 qos pfc profile STORAGE\n"
                "nv set qos egress-queue-mapping default-global switch-priority 2 traffic-class 7\n")
    assert dev.ports["swp1"].pfc_enabled == [3]
    assert dev.ports["swp2"].pfc_enabled == [3, 4] and dev.ports["swp2"].pfc_source.line == 3
    assert dev.ports["swp2"].cable_length_m == 50.0
    assert dev.ports["swp1"].tc_to_queue[2] == 7


def test_no_qos_means_pfc_and_watchdog_off():
    p = parse("nv set interface swp1 type swp\nnv set interface swp1 link state down\n").ports["swp1"]
    assert not p.qos_configured and p.pfc_enabled == [] and p.watchdog.enabled is False
    assert p.admin_up is False and p.trust is None


def test_yaml_tree_and_capture_match_the_command_form():
    commands = parse("nv set interface swp1 description 'gpu06 eth2'\nnv set interface swp1-2 link mtu 9216\n"
                     "nv set interface swp1-2 link speed 400G\nnv set interface swp1-2 qos pfc-watchdog\n"
                     "nv set interface swp1-2 type swp\nnv set qos roce mode lossless\nnv set system hostname leaf05\n")
    tree = fixture("startup.yaml")
    def dump(device):
        def unsourced(node):
            if isinstance(node, dict):
                return {k: unsourced(v) for k, v in node.items() if not k.endswith("source")}
            return node
        return unsourced(device.model_dump(mode="json")["ports"])

    assert tree.name == "leaf05" and dump(tree) == dump(commands)
    assert tree.ports["swp2"].mtu_bytes == 9216 and tree.ports["swp2"].source.line == 12
    cap = fixture("leaf-capture.cfg")
    assert cap.name == "leaf04" and cap.ports["swp1"].watchdog.detection_time_ms == 600.0  # 200 ms x 3
    assert cap.ports["swp1"].pfc_enabled == [3] and cap.ports["swp1"].pfc_source.line == 26
    assert [(n.port, n.remote_device) for n in cap.neighbors] == [("swp1", "gpu05")]


def test_garbled_lines_become_issues_with_lines():
    dev = fixture("leaf-truncated.cfg")
    got = {(i.code, i.source.line) for i in dev.issues}
    # line 8, `qos traffic-pool ... memory-percent`, is buffer carving the lossless checks do not use: skipped
    assert got == {("SYS002", 3), ("SYS002", 6), ("SYS003", 7), ("SYS002", 9), ("SYS002", 10), ("SYS002", 12)}
    assert dev.name == "leaf03" and dev.ports["swp1"].pfc_enabled == [3]


def test_sniff_and_detect():
    for name in ("leaf-roce-good.cfg", "leaf-roce-mistakes.cfg", "leaf-capture.cfg", "startup.yaml"):
        inp = Input(name, (RAW / name).read_text(encoding="utf-8"))
        assert nvue.sniff(inp) and not eos.sniff(inp) and detect(inp) == "nvidia_cumulus"
    eos_text = (FIXTURES / "raw" / "arista_eos").glob("*.cfg")
    assert not any(nvue.sniff(Input(p.name, p.read_text(encoding="utf-8"))) for p in eos_text)


@pytest.mark.parametrize("text", ["", "hostname leaf1\n", "- just: a list\n", "key: [unclosed\n"])
def test_no_configuration_is_an_input_error(text):
    with pytest.raises(InputError) as err:
        parse(text)
    assert err.value.file == "leaf.cfg" and err.value.line >= 1


def test_range_flood_is_refused_at_the_line_past_the_limit():
    """`swp1-1024` on every line: the ports the ranges expand to are counted, and the line that passes
    MAX_EXPANDED_PORTS is refused (the same limit the NX-OS and Junos readers keep: tests/hostile.py)."""
    lines = limits.MAX_EXPANDED_PORTS // 1024 + 1  # the first line past the limit
    head, flood = "nv set system hostname sw\n", "nv set interface swp1-1024 link mtu 9216\n"
    with pytest.raises(InputError) as err:
        parse(head + flood * (lines + 5))
    assert (err.value.file, err.value.line) == ("leaf.cfg", 1 + lines)
    assert f"more than {limits.MAX_EXPANDED_PORTS:,} ports in all" in err.value.message
    assert len(parse(head + flood * (lines - 1)).ports) == 1024  # up to the limit: read


def _errors(name: str) -> set[tuple[str, str]]:
    result = api.lint([RAW / name], "roce-dscp26")
    return {(f.code, f.port) for f in result.findings if f.severity.value in ("error", "warning") and not f.unverified}


def test_lint_good_config_is_clean():
    assert not {f for f in _errors("leaf-roce-good.cfg") if f[0][:3] in ("PFC", "MAP", "ECN", "WDG")}


def test_lint_mistakes_are_found():
    found = _errors("leaf-roce-mistakes.cfg")
    assert {("PFC001", "swp1"), ("PFC002", "swp1"), ("MAP002", "swp1"), ("ECN002", "swp1"), ("WDG002", "swp1"),
            ("WDG001", "swp2")} <= found
    assert ("WDG001", "swp1") not in found


def test_rest_api_root_with_header_beside_the_objects_and_printed_defaults():
    """The REST API root (`header` beside `interface`, `qos`...) is a tree; empty defaults (`pfc: {}`,
    `remark: {default-global: {}}`) set nothing and are no SYS002; default PCP trust alone is no QoS."""
    root = "\n".join(["header:", "  model: VX", "  version: Cumulus Linux 5.5.1", "interface:", "  swp1:",
                      "    link:", "      state:", "        up: {}", "    type: swp", "qos:", "  link-pause: {}",
                      "  pfc: {}", "  remark:", "    default-global: {}", "  mapping:", "    default-global:",
                      "      trust: l2", "  roce:", "    enable: 'ROCE'", ""])
    off, on = parse(root.replace("ROCE", "off"), "api.yaml"), parse(root.replace("ROCE", "on"), "api.yaml")
    assert not off.issues and not off.ports["swp1"].qos_configured and off.ports["swp1"].admin_up
    assert on.ports["swp1"].qos_configured and on.ports["swp1"].pfc_enabled == [3]


def test_a_saved_ansible_api_result_is_read_as_its_message_tree():
    """`{"changed": false, "failed": false, "message": {<the tree>}}`: what the nvidia.nvue `api` module returns
    and playbooks save as a pre-change backup."""
    text = ('{"changed": false, "failed": false, "message": {"header": {"model": "msn3700c"}, '
            '"interface": {"swp1": {"type": "swp", "link": {"mtu": 9216}}}, "qos": {"roce": {"enable": "on"}}}}')
    device = parse(text, "backup.json")
    assert device.ports["swp1"].mtu_bytes == 9216 and device.ports["swp1"].pfc_enabled == [3]


def test_link_pause_profile_is_the_ports_802_3x_pause():
    # Cumulus Linux QoS guide, "Link Pause": a profile per port group, rx and tx "The default value is `true`"; it once
    # read as SYS002 "not read yet" and the port as one without pause, so PFC003 could not see it.
    dev = parse("nv set qos roce\nnv set qos link-pause my_pause_ports tx enable\n"
                "nv set qos link-pause my_pause_ports cable-length 50\nnv set qos link-pause quiet rx disable\n"
                "nv set qos link-pause quiet tx disable\nnv set interface swp1-3 link mtu 9216\n"
                "nv set interface swp1 qos link-pause profile my_pause_ports\n"
                "nv set interface swp2 qos link-pause profile quiet\n")
    assert not dev.issues
    pause = dev.ports["swp1"].link_pause
    assert (pause.rx, pause.tx, pause.source.line) == (True, True, 7)
    assert (dev.ports["swp2"].link_pause.rx, dev.ports["swp2"].link_pause.tx) == (False, False)
    assert dev.ports["swp3"].link_pause is None  # NVUE configures link pause per interface only
    found = api.lint_fabric(Fabric(devices={dev.name: dev}), select_codes=["PFC003"]).findings
    assert [(f.port, f.severity.value, f.source.line) for f in found] == [("swp1", "error", 7)]


def test_a_link_pause_profile_never_defined_is_unknown_not_off():
    dev = parse("nv set qos roce\nnv set interface swp1 qos link-pause profile typo\n")
    pause = dev.ports["swp1"].link_pause
    assert (pause.rx, pause.tx) == (None, None)
    assert [i.code for i in dev.issues] == ["SYS002"] and "link-pause profile typo" in dev.issues[0].message


def test_remark_rewrites_dscp_per_egress_port_for_traffic_of_rewriting_ingress_ports():
    # Cumulus Linux QoS guide, "Remarking": the rewrite flag is read on the ingress port, the map on the egress port;
    # a switch priority the map leaves out keeps qos_features.conf's shipped default (DSCP 8 x priority).
    glob = parse("nv set qos roce\nnv set interface swp1-2 link mtu 9216\nnv set qos remark default-global rewrite l3\n"
                 "nv set qos remark default-global switch-priority 3 dscp 24\n"
                 "nv set qos remark default-global switch-priority 1 pcp 3\n")
    assert not glob.issues
    p = glob.ports["swp1"]
    assert p.tc_to_dscp_rewrite == {0: 0, 1: 8, 2: 16, 3: 24, 4: 32, 5: 40, 6: 48, 7: 56} and p.ingress_rewrite
    per_port = parse("nv set qos roce\nnv set qos remark remark_port_group1 rewrite l3\n"
                     "nv set interface swp1 qos remark profile remark_port_group1\n"
                     "nv set qos remark remark_port_group2 switch-priority 0 dscp 37\n"
                     "nv set qos remark remark_port_group2 switch-priority 1 dscp 37\n"
                     "nv set interface swp2 qos remark profile remark_port_group2\n")
    sw1, sw2 = per_port.ports["swp1"], per_port.ports["swp2"]
    assert (sw1.ingress_rewrite, sw2.ingress_rewrite) == (True, False)
    assert sw2.tc_to_dscp_rewrite[0] == sw2.tc_to_dscp_rewrite[1] == 37 and sw2.tc_to_dscp_rewrite[3] == 24
    for text in ("nv set qos roce\nnv set interface swp1 link mtu 9216\n",
                 "nv set qos roce\nnv set interface swp1 link mtu 9216\nnv set qos remark default-global rewrite l2\n"
                 "nv set qos remark default-global switch-priority 3 dscp 24\n"):
        assert parse(text).ports["swp1"].tc_to_dscp_rewrite is None  # DSCP kept: no port rewrites L3


def test_a_remark_is_followed_to_the_next_hop_by_the_path_rules():
    """An NVUE leaf that rewrites switch priority 3 to DSCP 24 sends RoCE to a host whose NIC maps only DSCP 26 to its
    lossless priority: PTH001 shows the rewrite on the path; traffic from a port that does not rewrite stays clean."""
    from tests.test_rules_lnk_pth import device, fabric_of
    from tests.test_rules_lnk_pth import findings as path_findings

    def leaf(ingress_profile: str):
        dev = parse("nv set system hostname leaf1\nnv set qos roce\nnv set interface swp1-2 link mtu 9216\n"
                    "nv set qos remark rw rewrite l3\nnv set qos remark keep rewrite l2\n"
                    "nv set qos remark default-global switch-priority 3 dscp 24\n"
                    f"nv set interface swp1 qos remark profile {ingress_profile}\n"
                    "nv set interface swp2 qos remark profile keep\n")
        assert not dev.issues
        for port in dev.ports.values():  # NVUE does not show the PG map: the switch's own, given so the walk goes on
            port.tc_to_pg, port.priority_groups = {3: 3}, {3: PriorityGroup(index=3, runtime_profile=True)}
        return dev

    def found(ingress_profile: str):
        hosts = [device(h, {"eth0": {"mtu_bytes": 9000}}, "host") for h in ("h1", "h2")]
        fab = fabric_of([leaf(ingress_profile), *hosts], ["h1:eth0 <-> leaf1:swp1", "h2:eth0 <-> leaf1:swp2"])
        return [(f.key, f.unverified, f.message) for f in path_findings(fab, "PTH001")]

    [(key, unverified, message)] = found("rw")  # h1 -> h2: remarked to 24 leaving swp2, which h2 does not map
    assert (key, unverified) == ("h2:eth0|DSCP 24|in", False)
    assert "leaf1:swp1>swp2 [DSCP 26 switch-priority 3 PG 3 q 3 -> DSCP 24] -> h2:eth0" in message
    assert found("keep") == []


@pytest.mark.parametrize("mode, children, speed", [("4x", 4, None), ("2x", 2, None), ("4x25G", 4, 25.0),
                                                   ("8x lanes-per-port 1", 8, None)])
def test_a_broken_out_port_is_its_split_ports(mode, children, speed):
    # NVUE reference, `nv set interface <interface-id> link breakout`: swp1 split 4x is swp1s0-3, and swp1 itself
    # carries no traffic; it once read as one port (and the split ports as more, each alone).
    dev = parse(f"nv set qos roce\nnv set interface swp1 link breakout {mode}\nnv set interface swp1s0 link speed 10G\n"
                "nv set interface swp2 link breakout 1x\nnv set interface swp2 link mtu 9216\n")
    assert not dev.issues
    assert sorted(dev.ports) == sorted([f"swp1s{i}" for i in range(children)] + ["swp2"])
    assert dev.ports["swp1s0"].speed_gbps == 10.0 and dev.ports[f"swp1s{children - 1}"].speed_gbps == speed
    assert dev.ports["swp1s1"].pfc_enabled == [3] and dev.ports["swp1s1"].source.line == 2


def test_breakout_in_the_yaml_tree_and_a_disabled_neighbour():
    tree = "\n".join(["- header:", "    model: SN4700", "    nvue-api-version: nvue_v1", "- set:", "    interface:",
                      "      swp1:", "        link:", "          breakout:", "            4x:",
                      "              lanes-per-port: 2", "      swp2:", "        link:", "          breakout:",
                      "            disabled: {}", "    qos:", "      roce: {}", ""])
    dev = parse(tree, "startup.yaml")
    assert not dev.issues
    assert sorted(dev.ports) == ["swp1s0", "swp1s1", "swp1s2", "swp1s3", "swp2"]
    assert dev.ports["swp2"].admin_up is False and dev.ports["swp1s0"].source.line == 10


def test_an_unknown_breakout_mode_is_said_not_guessed():
    dev = parse("nv set qos roce\nnv set interface swp1 link breakout 3x7\nnv set interface swp1 link mtu 9216\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2)] and list(dev.ports) == ["swp1"]


def test_a_quoted_value_over_several_lines_is_one_command():
    # `nv config show -o commands` prints a login banner as one quoted value over its lines (an NVIDIA-generated
    # switch configuration does so for `system message pre-login`); each line read alone was SYS002 "No closing
    # quotation", a warning that failed the run, and the banner's `#` lines were skipped as comments.
    banner = "nv set system message pre-login '######\n#  authorized use only\n######'\n"
    dev = parse("nv set qos roce\n" + banner + "nv set interface swp1 link mtu 9216\n" + banner.replace("pre", "post"))
    assert not dev.issues and dev.ports["swp1"].mtu_bytes == 9216 and dev.ports["swp1"].source.line == 5
    unclosed = parse("nv set qos roce\nnv set interface swp1 description 'open\nnv set interface swp2 link mtu 9216\n")
    assert [(i.code, i.source.line) for i in unclosed.issues] == [("SYS002", 2)] and list(unclosed.ports) == ["swp2"]


def test_an_interface_qos_setting_nvue_does_not_have_is_said_not_dropped():
    # `nv set interface swp1-4 qos roce` (lab notes write it; NVUE sets RoCE switch-wide only) was dropped without a
    # word and only swp1 of the range was made; interface buffer settings (`headroom`, `shared-headroom-pool`,
    # NVUE reference 5.16/5.17) and shaping are knowingly skipped.
    dev = parse("nv set qos roce\nnv set interface swp1-4 qos roce\nnv set interface swp5 qos headroom lossy "
                "extra-threshold 50000\nnv set interface swp5 qos shared-headroom-pool enabled\n"
                "nv set interface swp5 qos egress-shaper profile s1\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2)]
    assert sorted(dev.ports) == ["swp1", "swp2", "swp3", "swp4", "swp5"]


# ---- traffic pools -> priority groups (Cumulus Linux QoS guide, "Traffic Pools", "Advanced Buffer Tuning",
# "Flow Control Buffers"; RoCE guide, "Default RoCE Mode Configuration") -------------------------------------------
def test_roce_mode_puts_the_pfc_priority_in_the_lossless_pg_and_the_rest_in_bulk():
    """RoCE lossless mode: PFC on switch priority 3, which the port's one lossless PG holds; every other priority is
    in default-lossy, whose PG is bulk (ID 0). The lossless PG's headroom is sized by the switch at run time."""
    dev = parse("nv set qos roce\nnv set interface swp1 link mtu 9216\n")
    p = dev.ports["swp1"]
    lossless = p.tc_to_pg[3]
    assert {sp: pg for sp, pg in p.tc_to_pg.items() if sp != 3} == {sp: 0 for sp in (0, 1, 2, 4, 5, 6, 7)}
    assert lossless != 0 and p.pg_label(lossless) == "lossless PG" and p.pg_label(0) == "PG 0 (bulk)"
    assert p.priority_groups[lossless].runtime_profile and p.priority_groups[lossless].source.line == 1
    assert p.priority_groups[0].profile == "bulk" and dev.buffer_profiles["bulk"].xoff_bytes is None
    assert p.pfc_priority_to_pg is None  # NVUE binds no such map: Cumulus pairs them itself (MAP005 checks none)
    assert p.dscp_chain(26).describe() == "DSCP 26 -> switch-priority 3 -> priority 3 -> lossless PG -> queue 3"
    assert not dev.issues


def test_traffic_pools_from_the_guide_tree_form():
    """The QoS guide's mc-lossy example (switch priority 2, lossy PG service2, ID 2) beside default-lossless."""
    dev = fixture("traffic-pools.yaml")
    p = dev.ports["swp2"]
    assert p.tc_to_pg[2] == 2 and p.pg_label(2) == "PG 2 (service2)"
    assert p.priority_groups[2].profile == "service2" and p.priority_groups[2].source.line == 38
    assert [sp for sp, pg in sorted(p.tc_to_pg.items()) if pg == 0] == [0, 1, 4, 5, 6, 7]
    assert p.priority_groups[p.tc_to_pg[3]].runtime_profile and p.pfc_enabled == [3]
    assert not dev.issues


def test_the_same_pools_as_commands_read_alike():
    dev = parse("nv set interface swp1 link mtu 9216\n"
                "nv set qos pfc default-global switch-priority 3\n"
                "nv set qos traffic-pool default-lossy switch-priority 0,1,3,4,5,6,7\n"
                "nv set qos traffic-pool default-lossy memory-percent 70\n"
                "nv set qos traffic-pool mc-lossy switch-priority 2\n"
                "nv set qos traffic-pool mc-lossy memory-percent 30\n")
    tree = fixture("traffic-pools.yaml").ports["swp1"]
    assert dev.ports["swp1"].tc_to_pg == tree.tc_to_pg and dev.ports["swp1"].priority_groups[2].source.line == 5


def test_pg_is_unknown_where_the_documentation_does_not_say():
    """Never guessed: a roce-lossy pool (no documented PG), a roce-lossless list other than the PFC priorities, an
    advance-buffer-config that moves priorities between lossy PGs, or a port whose PFC state is unknown."""
    for extra in ("nv set qos traffic-pool roce-lossy switch-priority 4\n"
                  "nv set qos traffic-pool default-lossy switch-priority 0-3,5-7\n",
                  "nv set qos traffic-pool roce-lossless switch-priority 4\n"
                  "nv set qos traffic-pool default-lossy switch-priority 0-3,5-7\n",
                  "nv set qos advance-buffer-config default-global ingress-lossy-buffer priority-group service2 "
                  "switch-priority 2\n",
                  "nv set interface swp1 qos pfc profile NOT_DEFINED\n"):
        dev = parse("nv set qos roce\nnv set interface swp1 link mtu 9216\n" + extra)
        p = dev.ports["swp1"]
        assert p.tc_to_pg is None and not p.priority_groups, extra
    listed = parse("nv set qos roce\nnv set qos traffic-pool roce-lossless switch-priority 3\n"
                   "nv set interface swp1 link mtu 9216\n")
    assert listed.ports["swp1"].tc_to_pg[3] == 8 and not listed.issues  # the list agrees with PFC


def test_bad_traffic_pool_lines_are_sys002_with_their_line():
    dev = parse("nv set qos roce\n"
                "nv set qos traffic-pool gold-lossless switch-priority 3\n"
                "nv set qos traffic-pool mc-lossy switch-priority 9\n"
                "nv set qos traffic-pool mc-lossy memory-percent 150\n"
                "nv set qos traffic-pool mc-lossy mode dynamic\n"
                "nv set interface swp1 link mtu 9216\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2), ("SYS002", 3), ("SYS002", 4),
                                                             ("SYS002", 5)]
    assert "not a traffic pool losslessd knows" in dev.issues[0].message
    assert dev.ports["swp1"].tc_to_pg[3] == 8  # what could be read still places the priorities


def test_a_priority_in_two_pools_or_in_none_is_sys002_and_its_pg_unknown():
    two = parse("nv set qos traffic-pool mc-lossy switch-priority 2\n"
                "nv set qos traffic-pool default-lossy switch-priority 0-7\n"
                "nv set interface swp1 link mtu 9216\n")
    assert [(i.code, i.source.line) for i in two.issues] == [("SYS002", 2)]
    assert "switch priority 2 is in traffic pools mc-lossy and default-lossy" in two.issues[0].message
    assert two.ports["swp1"].tc_to_pg is None
    none = parse("nv set qos traffic-pool default-lossy switch-priority 0-6\nnv set interface swp1 link mtu 9216\n")
    assert [(i.code, i.source.line) for i in none.issues] == [("SYS002", 1)]
    assert "switch priority 7 is in no traffic pool" in none.issues[0].message and none.ports["swp1"].tc_to_pg is None


def test_a_cable_length_that_is_no_length_is_sys002_not_a_crash():
    dev = parse("nv set qos pfc default-global switch-priority 3\nnv set qos pfc default-global cable-length 0x10\n"
                "nv set qos roce cable-length 5furlong\nnv set interface swp1 link mtu 9216\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2), ("SYS003", 3)]
    assert dev.ports["swp1"].pfc_enabled == [3] and dev.ports["swp1"].cable_length_m is None


def test_pfc_buffer_settings_make_the_lossless_pg_a_static_profile():
    """Cumulus Linux QoS guide, "Priority Flow Control" example: `port-buffer 2000`, `xoff-threshold 1500`,
    `xon-threshold 1000` (qos_features.conf port_buffer_bytes 2000, xoff_size 1500, xon_delta 500): reserved 2000 B,
    XOFF at 1500 B (so 500 B absorb what is in flight), XON at 1000 B. A profile that sets only some is sized by
    Cumulus."""
    dev = parse("nv set interface swp1-2 type swp\n"
                "nv set qos pfc default-global switch-priority 3\n"
                "nv set qos pfc default-global xoff-threshold 1500\n"
                "nv set qos pfc default-global xon-threshold 1000\n"
                "nv set qos pfc default-global port-buffer 2000\n"
                "nv set qos pfc default-global cable-length 50\n"
                "nv set qos pfc PART switch-priority 3\nnv set qos pfc PART xoff-threshold 9000\n"
                "nv set interface swp2 qos pfc profile PART\n")
    assert not dev.issues
    pg = dev.ports["swp1"].priority_groups[8]
    assert not pg.runtime_profile and pg.source.line == 3
    prof = dev.buffer_profiles[pg.profile]
    assert (prof.size_bytes, prof.xoff_threshold_bytes, prof.xon_bytes, prof.xoff_bytes) == (2000, 1500, 1000, 500)
    assert not prof.headroom_computed_at_runtime
    part = dev.buffer_profiles[dev.ports["swp2"].priority_groups[8].profile]
    assert (part.xoff_threshold_bytes, part.xoff_bytes, part.headroom_computed_at_runtime) == (9000, None, True)


@pytest.mark.parametrize(("lines", "message"), [
    ("nv set qos pfc P xon-threshold 6000\nnv set qos pfc P xoff-threshold 5000\n",
     "xon-threshold 6000 B is above xoff-threshold 5000 B"),
    ("nv set qos pfc P xoff-threshold 5000\nnv set qos pfc P port-buffer 4000\n",
     "xoff-threshold 5000 B is above port-buffer 4000 B"),
    ("nv set qos pfc P cable-length 0\n", "cable length '0' is outside 1-100000 m"),
    ("nv set qos pfc P cable-length 100001\n", "cable length '100001' is outside 1-100000 m"),
    ("nv set qos roce cable-length 200km\n", "cable length '200km' is outside 1-100000 m"),
    ("nv set qos pfc P port-buffer -5\n", "'-5' is not a byte count"),
])
def test_pfc_buffer_and_cable_values_nvue_refuses_are_sys002(lines, message):
    """NVUE command reference: cable-length 1-100000 (pfc and roce); thresholds the guide's xon_delta and reserved
    buffer cannot hold. The PG then keeps the switch's run-time headroom."""
    dev = parse("nv set interface swp1 type swp\nnv set qos pfc P switch-priority 3\n"
                "nv set interface swp1 qos pfc profile P\n" + lines)
    assert [i.code for i in dev.issues] == ["SYS002"] and message in dev.issues[0].message
    assert dev.ports["swp1"].priority_groups[8].runtime_profile
    assert dev.ports["swp1"].cable_length_m is None


def test_a_bare_number_after_a_comma_names_more_ports_of_the_name_before_it():
    # Cumulus Linux user guide, "Interface Configuration and Management", Port Ranges: `nv set interface
    # swp1-4,6,10-12` is swp1-4, swp6 and swp10-12. Generated lists print `swp1,4-11,28-53` / `swp2-3,12-27`.
    # Before, `6` and `10-12` named no swp port: their PFC profile was lost and they read as PFC-off.
    assert nvue.reader.expand("swp1-4,6,10-12") == ["swp1", "swp2", "swp3", "swp4", "swp6", "swp10", "swp11", "swp12"]
    assert nvue.reader.expand("swp1s0,1,swp2s0-1,3") == ["swp1s0", "swp1s1", "swp2s0", "swp2s1", "swp2s3"]
    dev = parse("nv set qos pfc P switch-priority 3\nnv set interface swp1-6 link mtu 9216\n"
                "nv set interface swp1,3-4,6 qos pfc profile P\nnv set interface swp2,5 link state down\n")
    assert not dev.issues
    assert {n for n, p in dev.ports.items() if 3 in p.pfc_enabled} == {"swp1", "swp3", "swp4", "swp6"}
    assert {n for n, p in dev.ports.items() if p.admin_up is False} == {"swp2", "swp5"}


def test_bond_members_are_switch_ports_in_both_forms():
    """NVUE reference, `nv set interface <interface-id> bond member <member-id>`: the members are switch ports even
    when no other line names them (before: only ports named by their own `interface swpN` lines existed, so an MLAG
    leaf whose host ports appear only as bond members had no port to check)."""
    commands = parse("sudo nv set qos roce\nsudo nv set interface bond1 bond member swp1\n"
                     "nv set interface peerlink bond member swp31-32\n")
    tree = parse("- header:\n    nvue-api-version: nvue_v1\n- set:\n    qos:\n      roce: {}\n    interface:\n"
                 "      bond1:\n        bond:\n          member:\n            swp1: {}\n", path="startup.yaml")
    assert sorted(commands.ports) == ["swp1", "swp31", "swp32"] and sorted(tree.ports) == ["swp1"]
    assert commands.ports["swp1"].pfc_enabled == [3] and tree.ports["swp1"].pfc_enabled == [3]
    assert detect(Input("leaf.txt", "sudo nv set interface swp1 qos pfc-watchdog\n")) == "nvidia_cumulus"


def test_qos_set_on_a_bond_is_named_not_dropped():
    """`nv set interface bond1 qos pfc-watchdog`: the NVUE reference shows interface QoS on switch ports; whether a
    bond's reaches its members is not written there, so the line is a SYS002 (before: dropped without a word, and
    the members' watchdog read as off)."""
    device = parse("nv set qos roce\nnv set interface bond1 bond member swp1\n"
                   "nv set interface bond1 qos pfc-watchdog\n")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 3)]
    assert "bond1, which is no switch port" in device.issues[0].message


def test_a_watchdog_on_a_bond_is_named_as_refused_with_its_members():
    """NVUE reference, `nv set interface <interface-id> qos pfc-watchdog state`: the watchdog cannot be enabled on a
    bond, only on its member swp ports (before: "whether it applies to a bond's members is unknown")."""
    device = parse("nv set qos roce\nnv set interface bond1 bond member swp1-2\n"
                   "nv set interface bond1 qos pfc-watchdog state enable\nnv set interface bond1 qos pfc profile p\n")
    watchdog, pfc = (i.message for i in device.issues)
    assert "NVUE enables the watchdog only on a swp port, never on a bond" in watchdog
    assert "`nv set interface swp1,swp2 qos pfc-watchdog state enable`" in watchdog and "unknown" not in watchdog
    assert "whether it applies to a bond's members is unknown" in pfc
    assert all(port.watchdog is None or not port.watchdog.enabled for port in device.ports.values())


def test_a_list_of_ports_and_bonds_sets_the_ports_and_names_the_bonds():
    """NVUE reference, `nv set interface <interface-id>`: the id is a comma list of ports and bonds (`swp1,bond1`),
    each set. The ports take the setting and the bond part is named (before: swp1 set, bond1 dropped without a
    word, so a lint read the bond's members as never given the watchdog or the PFC the line meant)."""
    device = parse("nv set qos roce\nnv set interface bond1 bond member swp3\n"
                   "nv set interface swp1,bond1,swp2 qos pfc-watchdog state enable\n"
                   "nv set interface swp1-2,bond1 qos pfc profile p\n")
    named = [i for i in device.issues if "is read for" in i.message]
    assert [(i.code, i.source.line) for i in named] == [("SYS002", 3), ("SYS002", 4)]
    watchdog, pfc = (i.message for i in named)
    assert "is read for swp1,swp2 only" in watchdog and "never on a bond" in watchdog
    assert "`nv set interface swp3 qos pfc-watchdog state enable`" in watchdog
    assert "is read for swp1,swp2 only" in pfc and "QoS set on bond1, which is no switch port" in pfc
    assert device.ports["swp1"].watchdog.enabled and device.ports["swp2"].watchdog.enabled
    assert device.ports["swp3"].watchdog is None or not device.ports["swp3"].watchdog.enabled


def test_lossy_multi_tc_mode_makes_its_trimming_remark_profiles():
    """Cumulus Linux 5.16 RoCE guide, "Lossy Multi TC Profile": the mode creates the port remark profiles
    lossy-multi-tc-host-group and lossy-multi-tc-network-group (`nv show qos remark` lists them), which the guide then
    sets on its host and network ports. Naming them is no undefined profile (before: a SYS002 per profile); without
    the mode it still is."""
    lines = ("nv set qos roce mode lossy-multi-tc\nnv set system forwarding packet-trim remark dscp port-level\n"
             "nv set interface swp1-16 qos remark profile lossy-multi-tc-host-group\n"
             "nv set interface swp17-32 qos remark profile lossy-multi-tc-network-group\n")
    assert parse(lines).issues == []
    lossless = parse(lines.replace("lossy-multi-tc\n", "lossless\n", 1))
    assert [i.code for i in lossless.issues] == ["SYS002", "SYS002"]
    assert "lossy-multi-tc-host-group, which is not defined" in lossless.issues[0].message


def test_startup_yaml_without_its_header_item_is_nvue():
    """The Cumulus Linux user guide prints /etc/nvue.d/startup.yaml (`sudo cat ...`, `nv config find`) as its `- set:`
    item alone: it was "cannot tell which platform". A `- set:` list whose first key is no NVUE object is not NVUE."""
    tree = "- set:\n    interface:\n      swp1:\n        type: swp\n    qos:\n      roce:\n        enable: on\n"
    for text in (tree, "cumulus@leaf01:mgmt:~$ sudo cat /etc/nvue.d/startup.yaml\n" + tree,
                 "cumulus@switch:~$ nv config find swp1\n" + tree):
        inp = Input("startup.yaml", text)
        assert detect(inp) == "nvidia_cumulus"
        dev = nvue.parse([inp], "leaf01")
        assert sorted(dev.ports) == ["swp1"] and dev.ports["swp1"].pfc_enabled == [3]
    for text in ("- set:\n    name: x\n", "- set_fact:\n    interface: swp1\n", "- hosts: all\n  set:\n    qos: 1\n"):
        assert not nvue.sniff(Input("play.yaml", text))


def test_shell_expansions_in_nv_set_lines_are_named_not_read():
    """A script's `nv set interface $PORTS ...` was read as an interface named `$PORTS` ("no switch port ... a bond's
    members") and `${PORTS} link mtu` dropped without a word: the shell fills these in (bash(1), EXPANSION) when it
    runs. A `$` inside single quotes is a plain character (QUOTING), so a banner keeps being read. (PORTS comes from
    the command line here: a plain literal assignment is filled in, the test below.)"""
    text = ("#!/bin/bash\nPORTS=${1:-swp1-4}\nnv set qos roce mode lossless\nnv set interface swp1-4 type swp\n"
            "nv set interface $PORTS qos pfc-watchdog\nnv set interface ${PORTS} link mtu 9216\n"
            "nv set qos congestion-control hpft traffic-class $(echo 3) min-threshold 800000\n"
            "nv set system message pre-login 'costs $5'\nnv set interface swp1 link mtu \\$MTU\n")
    dev = nvue.parse([Input("setup.sh", text)], "leaf01")
    named = {i.source.line: i.message for i in dev.issues
             if i.code == "SYS002" and "expanded by the shell" in i.message}
    assert sorted(named) == [5, 6, 7]
    assert "`$PORTS`" in named[5] and "`${PORTS}`" in named[6] and "`$(echo 3)`" in named[7]
    assert not any(p.watchdog and p.watchdog.enabled for p in dev.ports.values())  # the watchdog line was not guessed
    specials = [expansions(f"nv set interface swp{p} link mtu 9216") for p in ("$$", "$!", "$-")]  # (bash(1))
    assert [[e.text for e in found] for found in specials] == [["$$"], ["$!"], ["$-"]]
    assert expansions("nv set interface swp1 link mtu 9216") == []


def test_nv_set_inside_another_commands_quoted_argument_is_named():
    """`ssh switch "for tc in 0 3; do nv set ... \\$tc ...; done"` (an operator's lab script): the commands run on the
    switch, in its shell. Every line was skipped and the file was refused as holding no `nv set` command."""
    text = ('#!/usr/bin/env bash\nset -eu\nssh -o BatchMode=yes sn5600 "\n  for tc in 0 3; do\n'
            '    nv set qos congestion-control hpft traffic-class \\$tc ecn enable\n  done\n'
            '  nv config apply -y"\n')
    inp = Input("set_qos.sh", text)
    assert detect(inp) == "nvidia_cumulus"
    with pytest.raises(InputError) as err:
        nvue.parse([inp], "sn5600")
    assert err.value.line == 3 and "`ssh` runs" in err.value.message and "2 line(s) skipped" in err.value.message


def test_pfc_turned_off_one_way_is_named():
    """`nv set qos pfc PROFILE rx|tx disable`: the NVUE command reference has `tx` turn sending PFC frames on and off
    and `rx` receiving, the QoS guide's PFC table the reverse; either way the profile pauses one way only, which the
    model (PFC per priority) cannot hold, so the line is a SYS002 (before: passed over, PFC read as on). `enable`,
    the default, and a value that is neither stay as they were."""
    text = ("nv set interface swp1 qos pfc profile P\nnv set qos pfc P switch-priority 3\n"
            "nv set qos pfc P rx enable\nnv set qos pfc P tx disable\nnv set qos pfc P rx off\n"
            "nv set qos pfc P tx sometimes\n")
    device = parse(text)
    said = {i.source.line: i.message for i in device.issues}
    assert sorted(said) == [4, 5, 6] and {i.code for i in device.issues} == {"SYS002"}
    assert "`tx` turn sending PFC frames on and off" in said[4]
    assert "`rx` turn receiving PFC frames on and off" in said[5]
    assert "'sometimes' is neither enable nor disable" in said[6]
    assert device.ports["swp1"].pfc_enabled == [3]


def test_a_trailing_comment_is_dropped_as_bash_drops_it():
    """`nv set ... mtu 9216  # jumbo` (a pasted script) read the comment as more words (SYS002 "expected one value");
    a `$` in it named the line a run-time value, an apostrophe an unclosed quote. bash(1) COMMENTS: a word that starts
    with `#` and the rest of the line are ignored; a `#` inside quotes or inside a word (`a#b`) is a character."""
    text = ("nv set qos roce mode lossless\nnv set interface swp1 link mtu 9216  # jumbo for $FABRIC\n"
            "nv set interface swp2 link mtu 9000 # don't change\nnv set interface swp3 description 'rack # 4' # c\n"
            "nv set interface swp4 description gpu#4\t#x\nnv set interface swp5 link mtu 9216#x\n")
    dev = nvue.parse([Input("setup.sh", text)], "leaf01")
    assert (dev.ports["swp1"].mtu_bytes, dev.ports["swp2"].mtu_bytes) == (9216, 9000)
    assert (dev.ports["swp3"].description, dev.ports["swp4"].description) == ("rack # 4", "gpu#4")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 6)]  # `9216#x` is one word, no number
    assert "'9216#x' is not a number" in dev.issues[0].message


@pytest.mark.slow  # bash runs the script beside the reader
def test_a_variable_the_script_sets_to_a_literal_is_filled_in():
    """`PORTS=swp1-4` then `nv set interface $PORTS ...` (an operator's setup script) was named a run-time value: the
    script's own top-level plain assignment says what bash fills in (bash(1), PARAMETERS, EXPANSION). A later plain
    assignment wins from its line on; inside double quotes a value with a blank stays one word."""
    text = ("#!/bin/bash\nset -e\nPORTS=swp1-4\nexport PRIO='3'\nDESC=\"gpu rack\"  # who\n"
            "nv set qos roce mode lossless\nnv set qos pfc p1 switch-priority $PRIO\n"
            "nv set interface $PORTS qos pfc profile p1\nnv set interface ${PORTS},swp9 link mtu 9216\n"
            "nv set interface swp9 description \"$DESC\"\nPORTS=swp7\nsudo nv set interface $PORTS link mtu 9000\n"
            "nv config apply -y\n")
    dev = nvue.parse([Input("setup.sh", text)], "leaf01")
    assert [(i.source.line, i.message[:30]) for i in dev.issues] == [(2, "skipped 'set -e': not an `nv s")]
    assert sorted(dev.ports) == ["swp1", "swp2", "swp3", "swp4", "swp7", "swp9"]
    assert dev.ports["swp3"].pfc_enabled == [3] and dev.ports["swp3"].pfc_source.line == 7
    assert dev.ports["swp4"].mtu_bytes == 9216 and dev.ports["swp9"].description == "gpu rack"
    assert dev.ports["swp7"].mtu_bytes == 9000 and dev.ports["swp1"].mtu_bytes == 9216
    bash = shutil.which("bash")
    if bash:  # bash itself runs the script with an `nv` that prints the words it is given
        run = subprocess.run([bash, "-c", 'nv() { if [ "$1" = set ]; then printf "<%s>" "${@:2}"; echo; fi; }\n'
                              'sudo() { "$@"; }\n' + text], capture_output=True, text=True, check=True).stdout
        assert run.splitlines() == ["".join(f"<{w}>" for w in words) for words, _ in command_paths(text, "s")[0]]
    # a function body runs when it is called, after assignments below it perhaps: its `$PORTS` stays named
    dev = nvue.parse([Input("setup.sh", "PORTS=swp1\nfunction setup {\n  nv set interface $PORTS link mtu 9216\n}\n"
                                        "PORTS=swp2\nsetup\nnv set interface $PORTS type swp\n")], "leaf01")
    assert [i.source.line for i in dev.issues if "expanded by the shell" in i.message] == [3]
    assert sorted(dev.ports) == ["swp2"] and dev.ports["swp2"].mtu_bytes is None


@pytest.mark.slow  # bash runs the script beside the reader
@pytest.mark.parametrize("setting", [
    "for PORTS in swp1 swp2; do\n  nv set interface $PORTS link mtu 9216\ndone",  # a loop variable
    "if [ -n \"$1\" ]; then\n  PORTS=swp2\nfi",  # set in a conditional: which value depends on the run
    "setup() {\n  PORTS=swp2\n}\nsetup",  # set in a function
    "while read PORTS; do :; done < ports.txt",  # set by a command
    "PORTS=$(cat ports.txt)",  # a command substitution
    "PORTS=`cat ports.txt`",
    "PORTS=swp2 ./other.sh",  # an assignment for one command
    "(( PORTS = 2 ))",  # arithmetic
    "PORTS+=,swp3",  # an append (a value the script builds)
    "source ./ports.env",  # a sourced file may set anything
    "PORTS='swp1 swp2'",  # unquoted, bash splits it into two words
    "PORTS='swp*'",  # unquoted, bash matches it against file names
    "(\n  PORTS=swp2\n)",  # a subshell: its assignment does not reach the script (read as swp2)
    "X=$(\n  PORTS=swp2\n  echo x\n)",  # a command substitution runs in a subshell too
])
def test_a_variable_set_at_run_time_stays_named(setting, tmp_path):
    """What bash gives `$PORTS` here is not known from the text (bash(1): a loop, a conditional or a function runs as
    the run decides; `read`, `$(...)`, `source` set values of their own; a subshell's assignment stays in it): the
    line is named, not guessed. bash itself runs each script: every line read is one bash runs with those words."""
    text = f"PORTS=swp1\nnv set interface swp1 type swp\n{setting}\nnv set interface $PORTS link mtu 9216\n"
    dev = nvue.parse([Input("setup.sh", text)], "leaf01")
    named = [i for i in dev.issues if "expanded by the shell" in i.message]
    assert named and named[-1].source.line == text.count("\n") and "`$PORTS`" in named[-1].message
    assert dev.ports["swp1"].mtu_bytes is None
    bash = shutil.which("bash")
    if bash:
        ran = iter(_bash_nv(bash, text, tmp_path))
        assert all(any(line == got for got in ran) for line in _read_nv(text))  # (in order, among bash's)


def _bash_nv(bash: str, text: str, cwd) -> list[str]:
    """The `nv set` commands bash runs in ``text``, each as `<word>...`, with an `nv` and a `sudo` that print them and
    an `ssh` that takes its input and runs nothing."""
    stubs = ('nv() { if [ "$1" = set ]; then printf "<%s>" "${@:2}"; echo; fi; }\n'
             'sudo() { "$@"; }\nssh() { cat > /dev/null; }\n')
    return subprocess.run([bash, "-c", stubs + text], capture_output=True, text=True, cwd=cwd).stdout.splitlines()


def _read_nv(text: str) -> list[str]:
    return ["".join(f"<{w}>" for w in words) for words, _ in command_paths(text, "s")[0]]


@pytest.mark.slow  # bash runs the script beside the reader
@pytest.mark.parametrize("heredoc", [
    "cat > ports.env <<EOF\nPORTS=swp2\nEOF",
    "cat > ports.env << 'END'\nPORTS=swp2\nexport PORTS\nEND",
    "cat > ports.env <<-\"EOF\"\n\tPORTS=swp2\n\tEOF",  # `<<-`: the end line may be indented with tabs
    "ssh sw2 <<EOF\nnv set interface swp1 link mtu 1500\nPORTS=swp2\nEOF",  # commands ssh runs on another switch
])
def test_a_here_document_is_data_not_commands(heredoc, tmp_path):
    """bash(1), Here Documents: the lines up to the delimiter are the command's input, not commands of the script.
    Their `PORTS=swp2` was read as the script's own assignment, their `nv set` line as this switch's setting."""
    text = f"PORTS=swp1\n{heredoc}\nnv set interface $PORTS link mtu 9216\n"
    dev = nvue.parse([Input("setup.sh", text)], "leaf01")
    assert sorted(dev.ports) == ["swp1"] and dev.ports["swp1"].mtu_bytes == 9216
    assert not [i for i in dev.issues if "expanded by the shell" in i.message]
    if "nv set" in heredoc:  # named, on its own line
        assert [i.source.line for i in dev.issues if "here-document" in i.message] == [3]
    bash = shutil.which("bash")
    if bash:
        assert _bash_nv(bash, text, tmp_path) == _read_nv(text) == ["<interface><swp1><link><mtu><9216>"]


@pytest.mark.slow  # bash runs the script beside the reader
def test_a_quoted_or_escaped_paren_opens_no_subshell(tmp_path):
    """bash(1), QUOTING: `: "("` takes a paren as a word; no subshell opens, so the script's later assignments stay
    its own and are read (a `(` taken as a subshell left every later line inside it)."""
    text = ': "(" \\( \')\'\nPORTS=swp2\nnv set interface $PORTS link mtu 9216\n'
    assert _read_nv(text) == ["<interface><swp2><link><mtu><9216>"]
    bash = shutil.which("bash")
    if bash:
        assert _bash_nv(bash, text, tmp_path) == _read_nv(text)


def test_a_here_document_without_its_end_line_is_named():
    """bash takes the rest of the file as the here-document's data (and warns): nothing after it runs, and the
    reader says so rather than reading those lines, or dropping them unsaid."""
    text = "cat > ports.env <<EOF\nnv set interface swp1 link mtu 9216\nEOF \n"
    paths, issues = command_paths(text, "s")[:2]
    assert paths == [] and [(i.source.line, "no end line" in i.message) for i in issues if "here-document" in
                            i.message] == [(1, True), (2, False)]


@pytest.mark.parametrize("line, unknown", [
    ("nv set qos pfc-watchdog recovery-interval 400", "restoration"),
    ("nv set qos pfc-watchdog rx-pause-duration multiplier 3", "detection"),
    ("nv set qos pfc-watchdog rx-pause-threshold 80", "detection"),
    ("nv set qos pfc-watchdog tx-frames-threshold value 10", "detection"),
    ("nv set qos pfc-watchdog transmit-queue-threshold percent 50", "detection"),
    ("nv set qos pfc-watchdog transmit-queue-threshold state disabled", None),  # a check turned off changes nothing
])
def test_pfc_watchdog_settings_new_in_5_19_are_named_and_their_time_unknown(line, unknown):
    """Cumulus Linux 5.19's release notes list new `qos pfc-watchdog` settings without saying what they do (no NVUE
    reference or guide page read does): they were "not a QoS setting losslessd knows" while the watchdog kept the
    5.6 guide's times (detection polling-interval x robustness, restoration one polling interval), which they may
    change. Each is named and the time it touches is unknown; the rest of the watchdog is still read."""
    dev = parse(f"nv set qos roce\nnv set qos pfc-watchdog polling-interval 200\n"
                f"nv set interface swp1 qos pfc-watchdog state enable\n{line}\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 4)]
    assert "new in Cumulus Linux 5.19" in dev.issues[0].message
    wd = dev.ports["swp1"].watchdog
    assert wd.enabled and wd.polling_interval_ms == 200.0
    assert (wd.detection_time_ms, wd.restoration_time_ms) == (
        None if unknown == "detection" else 600.0, None if unknown == "restoration" else 200.0)


def test_unsetting_a_port_watchdog_turns_it_off():
    """NVUE reference: `nv unset` removes what the `nv set` of the same path set; an interface's `qos pfc-watchdog
    state` defaults to `disable` (before: the unset was skipped and the port read as guarded). An unset whose ports
    the shell expands is still named; `nv unset qos roce` is applied (test below)."""
    dev = parse("\n".join([
        "nv set interface swp1-4 type swp", "nv set qos roce enable on", "nv set interface swp1-4 qos pfc-watchdog",
        "nv unset interface swp2 qos pfc-watchdog", "sudo nv unset interface swp3 qos pfc-watchdog state",
        "nv unset interface $P qos pfc-watchdog", "nv unset qos roce"]))
    assert [dev.ports[p].watchdog.enabled for p in ("swp1", "swp2", "swp3", "swp4")] == [True, False, False, True]
    assert [(i.code, i.source.line) for i in dev.issues if i.code == "SYS002"] == [("SYS002", 6)]


def test_unset_paths_go_back_to_nvue_defaults():
    """NVUE reference, Set and Unset Commands: `nv unset` removes the configuration the equivalent `nv set` set, so
    what it held is NVUE's default again (before: every unset but a port watchdog's was a SYS002 and the earlier
    value stayed: `nv unset qos roce` left RoCE lossless, an unset profile line kept its priorities). A list the
    unset names in part keeps the rest; the ports stay ports."""
    dev = parse("\n".join([
        "nv set interface swp1-4 type swp",  # 1
        "nv set qos roce",  # 2: RoCE lossless (PFC on switch priority 3)
        "nv set qos pfc default-global switch-priority 3,5",  # 3
        "nv set qos congestion-control default-global traffic-class 3 min-threshold 40000",  # 4
        "nv set interface swp1-4 qos mapping profile M1",  # 5
        "nv set qos mapping M1 trust l3",  # 6
        "nv set qos mapping M1 dscp 26 switch-priority 3",  # 7
        "nv unset qos pfc default-global switch-priority 5",  # 8: priority 5 only
        "nv unset qos congestion-control default-global traffic-class 3 min-threshold",  # 9: default Kmin
        "nv unset interface swp2-3 qos mapping",  # 10: swp2, swp3 back to default-global's mapping
        "nv unset qos roce",  # 11: RoCE off
    ]))
    assert not [i for i in dev.issues if i.code == "SYS002"]
    assert sorted(dev.ports) == ["swp1", "swp2", "swp3", "swp4"]
    assert [dev.ports[p].pfc_enabled for p in ("swp1", "swp2")] == [[3], [3]]
    assert dev.ports["swp1"].pfc_source.line == 3
    # swp2-3 back on default-global's mapping, which does not trust DSCP; swp1 and swp4 keep M1's DSCP 26 -> SP 3
    assert [dev.ports[p].trust is Trust.dscp for p in ("swp1", "swp2", "swp3", "swp4")] == [True, False, False, True]
    assert dev.ports["swp4"].dscp_to_tc[26] == 3
    ecn = dev.ports["swp1"].queues.get(3)
    assert ecn is None or ecn.ecn is None or ecn.ecn.min_threshold_bytes != 40000
    roce_off = parse("nv set interface swp1 type swp\nnv set qos roce\nnv unset qos roce\n")
    assert roce_off.ports["swp1"].pfc_enabled == [] and not roce_off.issues
    # RoCE guide: `nv set qos roce` is lossless mode; unsetting the mode leaves RoCE on in its default mode, lossless
    mode_unset = parse("nv set interface swp1 type swp\nnv set qos roce\nnv set qos roce mode lossy\n"
                       "nv unset qos roce mode\n")
    assert mode_unset.ports["swp1"].pfc_enabled == [3] and not mode_unset.issues


def test_unset_of_part_of_a_traffic_class_list_keeps_the_rest():
    """`nv unset` of one traffic class of a line that set two removes that class's setting only."""
    dev = parse("nv set qos congestion-control P traffic-class 0,3 ecn enable\n"
                "nv set interface swp1-2 qos congestion-control profile P\n"
                "nv unset qos congestion-control P traffic-class 3\n")
    assert not dev.issues
    queues = dev.ports["swp1"].queues
    assert queues[0].ecn.ecn_enabled and queues[0].ecn.source.line == 1 and queues[3].ecn is None


@pytest.mark.parametrize("value", ["150KB", "1500KB", "2 MB", "0.15MB"])
def test_ecn_threshold_with_a_unit_is_unknown(value):
    """NVUE command reference, QoS: `min-threshold`/`max-threshold` are "the buffer threshold in bytes", written as a
    bare number (`min-threshold 40000`); guides write `min-threshold 150KB`. Whether NVUE takes a unit there, and as
    1000 or 1024 bytes (`nv show` prints 150000 B as 146.48 KB), is not documented: the threshold is unknown and the
    line named (before: read as KiB, 153600 B, without a word)."""
    dev = parse("nv set interface swp1 type swp\nnv set qos roce\n"
                f"nv set qos congestion-control default-global traffic-class 3 min-threshold {value}\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 3)]
    assert "NVUE command reference" in dev.issues[0].message
    ecn = dev.ports["swp1"].queues[3].ecn
    assert ecn.min_threshold_bytes is None and ecn.max_threshold_bytes == 1500000


def test_unset_of_part_of_a_port_list_and_of_a_dscp_list_keeps_the_rest():
    """An unset naming part of a line's port list, or part of its DSCP list, keeps the rest of the line (before this
    was tested on a made-up path through the private _unset)."""
    dev = parse("nv set qos mapping M dscp 26,28 switch-priority 5\n"  # 1
                "nv set qos mapping M dscp 46 switch-priority 3\n"  # 2
                "nv set qos mapping M trust l3\n"  # 3
                "nv set interface swp1-2 qos mapping profile M\n"  # 4
                "nv unset interface swp2 qos mapping profile\n"  # 5: swp2 back on default-global
                "nv unset qos mapping M dscp 28,46\n")  # 6: DSCP 28 of line 1, all of line 2
    assert not dev.issues
    assert [dev.ports[p].trust is Trust.dscp for p in ("swp1", "swp2")] == [True, False]
    swp1 = dev.ports["swp1"]
    assert swp1.dscp_to_tc[26] == 5 and swp1.dscp_to_tc.get(28) != 5 and swp1.dscp_to_tc.get(46) != 3


def test_unsetting_the_roce_mode_leaves_roce_on_in_lossless_mode():
    """Cumulus Linux 5.x RoCE guide, Single Shared Buffer Pool: "To disable single shared buffer pool mode and use the
    default mode (lossless), run the `nv unset qos roce mode lossless-single-ipool` command". NVUE keeps the `qos roce`
    object a child's unset leaves, so RoCE stays on, lossless (before: with no bare `nv set qos roce` first, the unset
    dropped RoCE and the ports read as without PFC)."""
    dev = parse("nv set interface swp1 type swp\n"
                "nv set qos roce mode lossless-single-ipool\n"
                "nv unset qos roce mode lossless-single-ipool\n")
    assert not dev.issues
    assert dev.ports["swp1"].pfc_enabled == [3] and dev.ports["swp1"].pfc_source.line == 2
    # a bare `nv set qos roce` stays as well; `nv unset qos roce` itself turns RoCE off
    assert parse("nv set interface swp1 type swp\nnv set qos roce mode lossy\nnv unset qos roce mode\n"
                 "nv unset qos roce\n").ports["swp1"].pfc_enabled == []


def test_an_unset_whose_port_list_cannot_be_read_is_named():
    """`swp1-1100` is more than a range may name (MAX_RANGE_PORTS): what the unset removes is unknown, so the line is a
    SYS002 and the earlier setting stays (before: dropped without a word)."""
    dev = parse("nv set interface swp1-4 qos pfc-watchdog\n"
                "nv unset interface swp1-1100 qos pfc-watchdog\n"
                "nv set qos roce\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 2)]
    assert "interface list cannot be read" in dev.issues[0].message
    assert dev.ports["swp4"].watchdog.enabled


def test_unsetting_one_member_of_a_bond_keeps_the_others():
    """NVUE reference, `nv set interface <interface-id> bond member <member-id>` takes a port list: an unset of one
    member removes that port from the bond only (before: the list was compared as numbers, so the unset matched
    nothing and swp2 stayed a member unsaid)."""
    dev = parse("nv set interface bond1 bond member swp1-3\n"
                "nv unset interface bond1 bond member swp2\n")
    assert not dev.issues
    assert [dev.ports[p].bundle for p in ("swp1", "swp3")] == ["bond1", "bond1"]
    assert "swp2" not in dev.ports or dev.ports["swp2"].bundle is None


def test_a_file_whose_every_set_is_unset_says_so():
    """Every `nv set` undone by a later `nv unset`: nothing to check (exit 2), and the message says why rather than
    that no `nv set` line was found."""
    with pytest.raises(InputError) as err:
        parse("nv set qos roce\nnv set qos pfc default-global switch-priority 3\nnv unset qos\nnv config apply\n")
    assert "undone by a later `nv unset`" in err.value.message and err.value.line == 3


def test_the_port_lists_unsets_expand_count_against_the_limit():
    """An unset's port list is expanded to compare it with the earlier lines': its names count toward
    MAX_EXPANDED_PORTS like those of `nv set` lines (before: uncounted, 1,000 unsets of `swp1-1024` ran unbounded)."""
    lines = limits.MAX_EXPANDED_PORTS // limits.MAX_RANGE_PORTS + 1
    text = "nv set interface swp1 link mtu 9216\n" + "nv unset interface swp1-1024 description\n" * lines
    with pytest.raises(InputError) as err:
        parse(text)
    assert "more than" in err.value.message and 1 < err.value.line <= lines + 1  # (an unset line)


@pytest.mark.parametrize("field, value", [("xoff-threshold", "150KB"), ("port-buffer", "2MB"),
                                          ("xon-threshold", "1 KB")])
def test_pfc_buffer_value_with_a_unit_is_unknown(field, value):
    """NVUE command reference, `nv set qos pfc <profile-id> port-buffer|xoff-threshold|xon-threshold <value>`: a size
    "in bytes", its examples bare numbers (`port-buffer 20000`, `xoff-threshold 1000`); no unit is documented. A value
    with one is unknown and its line named, as for the ECN thresholds (before: read as KiB, 153600 B, unsaid); the
    PG keeps the switch's run-time headroom. A unit no one uses for bytes stays SYS003."""
    dev = parse("nv set interface swp1 type swp\nnv set qos pfc P switch-priority 3\n"
                f"nv set interface swp1 qos pfc profile P\nnv set qos pfc P {field} {value}\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 4)]
    message = dev.issues[0].message
    assert "NVUE command reference" in message and f"profile's {field} is unknown" in message
    assert dev.ports["swp1"].priority_groups[8].runtime_profile
    odd = parse("nv set interface swp1 type swp\nnv set qos pfc P switch-priority 3\n"
                f"nv set interface swp1 qos pfc profile P\nnv set qos pfc P {field} 2 furlongs\n")
    assert [i.code for i in odd.issues] == ["SYS003"]


def test_an_unset_leaves_a_tombstone_the_defaults_it_restores_cite():
    """NVUE reference, Set and Unset Commands: `nv unset` puts what its path held back at NVUE's default. The builder
    fills such a default in for want of a line, and cites the unset that restored it (before: only a port watchdog's
    unset was cited, by a special case; `nv unset qos roce` left PFC001, ECN001 and the trust and map findings at the
    port's first line)."""
    dev = parse("\n".join([
        "nv set interface swp1-3 type swp",  # 1
        "nv set interface swp1-3 qos pfc-watchdog",  # 2
        "nv set qos roce",  # 3
        "nv unset qos roce",  # 4: RoCE off: no PFC, plain queue defaults, trust unknown
        "nv unset interface swp2 qos pfc-watchdog",  # 5
        "nv unset interface swp3",  # 6: the whole port
    ]))
    swp1 = dev.ports["swp1"]
    assert swp1.pfc_enabled == [] and swp1.pfc_source.line == 4
    assert swp1.trust is None and swp1.trust_source.line == 4 and swp1.map_source.line == 4
    assert swp1.queues[3].ecn is None and swp1.queues[3].source.line == 4  # (ECN001's line: the queue's)
    assert swp1.queues[0].ecn.source.line == 4  # the plain default profile's ECN on queue 0, back by the unset
    assert [dev.ports[p].watchdog.source.line for p in ("swp1", "swp2", "swp3")] == [2, 5, 6]
    assert [dev.ports[p].watchdog.enabled for p in ("swp1", "swp2", "swp3")] == [True, False, False]
    # a port's profile unset: the port is back on default-global, which sets no PFC (RoCE off): at the unset line
    dev = parse("nv set interface swp1-2 type swp\nnv set qos pfc P switch-priority 3\n"
                "nv set interface swp1-2 qos pfc profile P\nnv unset interface swp2 qos pfc profile\n")
    assert [(dev.ports[p].pfc_enabled, dev.ports[p].pfc_source.line) for p in ("swp1", "swp2")] == [([3], 2), ([], 4)]
    # no unset: the defaults keep no line of their own, as before
    plain = parse("nv set interface swp1 type swp\nnv set interface swp1 qos pfc-watchdog state disable\n")
    assert plain.ports["swp1"].pfc_source is None and plain.ports["swp1"].trust_source is None


def test_an_unset_below_the_path_looked_up_is_cited_too():
    """An unset below the setting a default stands for restores it as well as one at or above it: `nv unset qos pfc
    default-global switch-priority 3` (the value's own path) takes the PFC priorities away, `nv unset qos mapping
    default-global trust` the trust, `nv unset qos congestion-control default-global traffic-class 0,3 ecn` queue 0's
    and queue 3's ECN (before: only unsets at or above the path were matched, so these findings stayed at line 1)."""
    head = "nv set interface swp1 type swp\nnv set interface swp1 qos pfc-watchdog\n"
    for unset in ("nv unset qos pfc default-global switch-priority 3",
                  "nv unset qos pfc default-global switch-priority"):
        port = parse(head + f"nv set qos pfc default-global switch-priority 3\n{unset}\n").ports["swp1"]
        assert port.pfc_enabled == [] and port.pfc_source.line == 4
    for unset in ("nv unset qos mapping default-global trust", "nv unset qos mapping default-global"):
        port = parse(head + f"nv set qos mapping default-global trust l3\n{unset}\n").ports["swp1"]
        assert port.trust is None and port.trust_source.line == 4 and port.map_source.line == 4
    dev = parse(head + "nv set qos congestion-control default-global traffic-class 0,3 ecn enable\n"
                "nv unset qos congestion-control default-global traffic-class 0,3 ecn\n"
                "nv unset qos congestion-control default-global traffic-class 5 ecn\n")  # (dropped nothing)
    queues = dev.ports["swp1"].queues
    assert queues[0].ecn.ecn_enabled and queues[0].ecn.source.line == 4  # the plain default, back by the unset
    assert queues[3].ecn is None and queues[3].source.line == 4
    # an unset of another queue's traffic class is not this queue's
    dev = parse(head + "nv set qos congestion-control default-global traffic-class 4 ecn enable\n"
                "nv unset qos congestion-control default-global traffic-class 4 ecn\n")
    assert dev.ports["swp1"].queues[0].ecn.source is None


def test_an_unset_that_removed_nothing_is_not_cited():
    """`nv unset qos roce` on a switch where no line set RoCE removes nothing, so it restored no default (before: it
    left a tombstone and PFC001, ECN001 and the MAP findings pointed at it, line 1)."""
    port = parse("nv unset qos roce\nnv set interface swp1 type swp\nnv set interface swp1 qos pfc-watchdog\n"
                 "nv set interface swp1 link mtu 9216\n").ports["swp1"]
    assert port.pfc_enabled == [] and port.pfc_source is None and port.trust_source is None
    assert port.queues[3].source.line == 2  # the port's own line, as without the unset


def test_the_line_that_turned_roce_off_outranks_an_earlier_unset():
    """`nv set qos roce enable off` after an unset of RoCE and a new `mode lossless`: RoCE is off because of the
    `enable off` line, so the defaults it leaves cite that line, the latest (before: the earlier unset, line 4; and
    `enable off` alone was never cited)."""
    port = parse("nv set interface swp1 type swp\nnv set interface swp1 qos pfc-watchdog\nnv set qos roce\n"
                 "nv unset qos roce\nnv set qos roce mode lossless\nnv set qos roce enable off\n").ports["swp1"]
    assert port.pfc_enabled == [] and port.pfc_source.line == 6 and port.trust_source.line == 6
    assert port.queues[3].source.line == 6 and port.queues[0].ecn.source.line == 6
    alone = parse("nv set interface swp1 type swp\nnv set qos roce enable off\n").ports["swp1"]
    assert alone.pfc_source.line == 2 and alone.trust_source.line == 2


@pytest.mark.parametrize("lines", [
    ["nv set qos roce enable off", "nv set qos roce mode lossless"],
    ["nv set qos roce mode lossless", "nv set qos roce enable off"],
    ["nv set qos roce state disabled", "nv set qos roce"],
    ["nv set qos roce enable off", "nv set qos roce mode lossy", "nv set qos roce mode lossless"],
])
def test_roce_turned_off_stays_off_whatever_mode_is_set(lines):
    """NVUE reference, QoS: `qos roce enable` "Turns QoS RoCE on or off on the switch", `qos roce mode` "Configures the
    RoCE mode" (default lossless): two settings of one object, so a mode set before or after `enable off` leaves RoCE
    off (before: a later `mode lossless` read as RoCE on, PFC on switch priority 3). The second case, `enable off` last,
    was read right before too: it stays as a guard."""
    dev = parse("\n".join(["nv set interface swp1 type swp", *lines]))
    port = dev.ports["swp1"]
    assert port.pfc_enabled == [] and port.trust is None and dev.lossy_mode is None and not dev.issues


def test_roce_turned_back_on_runs_the_mode_set():
    """`enable on` after `enable off` runs the mode the object holds (before: lossless whatever mode was set); the same
    settings as a startup.yaml tree (`roce: {enable: off, mode: lossless}`) read as the commands do."""
    dev = parse("nv set interface swp1 type swp\nnv set qos roce mode lossy\nnv set qos roce enable off\n"
                "nv set qos roce enable on\n")
    assert dev.ports["swp1"].pfc_enabled == [] and dev.lossy_mode is not None and dev.lossy_mode_source.line == 2
    tree = ("- header:\n    model: VX\n    nvue-api-version: nvue_v1\n- set:\n    interface:\n      swp1:\n"
            "        type: swp\n    qos:\n      roce:\n        enable: off\n        mode: lossless\n")
    port = parse(tree, "startup.yaml").ports["swp1"]
    assert port.pfc_enabled == [] and port.pfc_source.line == 10  # (the `enable: off` that turned RoCE off)


def test_a_bare_qos_roce_keeps_the_mode_set():
    """Cumulus Linux 5.17 RoCE guide: "If you enable `roce mode lossy`, configuring `nv set qos roce` without a `mode`
    does not change the RoCE mode" (before: the bare line read as lossless, PFC on switch priority 3)."""
    dev = parse("nv set interface swp1 type swp\nnv set qos roce mode lossy\nnv set qos roce\n")
    assert dev.ports["swp1"].pfc_enabled == [] and dev.lossy_mode_source.line == 2
    assert parse("nv set interface swp1 type swp\nnv set qos roce\n").ports["swp1"].pfc_enabled == [3]


def test_trust_port_sends_every_packet_to_the_port_default_switch_priority():
    """Cumulus Linux QoS guide, "Trust Port": `trust port` with `port-default-sp 3` assigns all traffic to switch
    priority 3 regardless of the ingress marking; without `port-default-sp` the NVUE reference's `nv show interface
    <id> qos mapping` shows 0 (before: the line was passed over and DSCP read as unmapped, so the CNP's landing in
    the lossless priority was "could not verify")."""
    dev = parse("nv set interface swp1-2 type swp\nnv set qos roce\nnv set qos mapping default-global trust port\n"
                "nv set qos mapping default-global port-default-sp 3\n")
    port = dev.ports["swp1"]
    assert port.trust is Trust.none and set(port.dscp_to_tc.values()) == {3} and set(port.pcp_to_tc.values()) == {3}
    assert port.map_source.line == 4 and not dev.issues
    plain = parse("nv set interface swp1 type swp\nnv set qos mapping default-global trust port\n").ports["swp1"]
    assert set(plain.dscp_to_tc.values()) == {0} and plain.map_source.line == 2


def test_dynamic_ecn_makes_the_byte_thresholds_unknown():
    """Cumulus Linux 5.17/5.18 QoS guides, "Dynamic ECN": in `mode relative` the switch ignores the byte
    thresholds and marks at `min-threshold-percent`/`max-threshold-percent` (0-100) of a buffer allowance set at run
    time; `mode absolute` goes back to the bytes. Before: each line a SYS002 and the RoCE default bytes (150000/1500000)
    kept as what the queue marks at."""
    dev = parse("nv set interface swp1 type swp\nnv set qos roce\n"
                "nv set qos congestion-control default-global traffic-class 3 mode relative\n"
                "nv set qos congestion-control default-global traffic-class 3 min-threshold-percent 20\n"
                "nv set qos congestion-control default-global traffic-class 3 max-threshold-percent 80\n")
    assert not dev.issues
    ecn = dev.ports["swp1"].queues[3].ecn
    assert ecn.ecn_enabled and (ecn.min_threshold_bytes, ecn.max_threshold_bytes) == (None, None)
    assert ecn.source.line == 3
    back = parse("nv set interface swp1 type swp\nnv set qos roce\n"
                 "nv set qos congestion-control default-global traffic-class 3 min-threshold 40000\n"
                 "nv set qos congestion-control default-global traffic-class 3 mode relative\n"
                 "nv set qos congestion-control default-global traffic-class 3 mode absolute\n"
                 "nv set qos congestion-control default-global traffic-class 3 max-threshold-percent 150\n")
    ecn = back.ports["swp1"].queues[3].ecn
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes) == (40000, 1500000)
    assert [(i.code, i.source.line) for i in back.issues] == [("SYS002", 6)]


def test_dynamic_ecn_lines_of_a_profile_are_ecn_settings_of_its_queue():
    """A custom congestion-control profile whose traffic class has only the dynamic ECN lines (the 5.17/5.18 QoS guides'
    `mode relative`, `min-threshold-percent 20`, `max-threshold-percent 80`) configures ECN on it, as a profile's byte
    thresholds do; the thresholds it marks at are unknown (before: "whether queue 3 marks ECN is not in the input")."""
    lines = ["nv set interface swp1 type swp", "nv set qos roce",
             "nv set qos congestion-control P traffic-class 3 mode relative",
             "nv set qos congestion-control P traffic-class 3 min-threshold-percent 20",
             "nv set qos congestion-control P traffic-class 3 max-threshold-percent 80",
             "nv set interface swp1 qos congestion-control profile P"]
    ecn = parse("\n".join(lines)).ports["swp1"].queues[3].ecn
    assert ecn.ecn_enabled and (ecn.min_threshold_bytes, ecn.max_threshold_bytes) == (None, None)
    assert ecn.source.line == 3
    ecn = parse("\n".join(lines[:3] + lines[5:])).ports["swp1"].queues[3].ecn
    assert ecn.ecn_enabled and ecn.source.line == 3


@pytest.mark.parametrize("line", [
    "nv set qos pfc default-global small-packet-probability 60",  # 5.18 QoS guide, and 5.18's new NVUE commands
    "nv set qos link-pause L small-packet-probability 60",  # 5.17's new NVUE commands
])
def test_small_packet_probability_is_a_pfc_or_link_pause_profiles_setting(line):
    """Cumulus Linux 5.17/5.18 "New NVUE Commands": `nv set qos pfc <profile-id> small-packet-probability` and `nv set
    qos link-pause <profile-id> small-packet-probability` (headroom sized at run time: knowingly skipped); no interface
    command has it, so `nv set interface swp1 qos small-packet-probability 60` is named (before: the documented forms
    were SYS002 and the invented one passed in silence)."""
    dev = parse(f"nv set interface swp1 type swp\nnv set qos roce\n{line}\n")
    assert not dev.issues and dev.ports["swp1"].pfc_enabled == [3]
    bad = parse("nv set interface swp1 type swp\nnv set qos roce\n"
                f"nv set interface swp1 qos small-packet-probability 60\n{line.replace(' 60', ' 160')}\n")
    assert [(i.code, i.source.line) for i in bad.issues] == [("SYS002", 3), ("SYS002", 4)]


def test_an_unset_of_ports_beyond_the_config_adds_none():
    """`nv unset interface swp8-12 qos pfc-watchdog` on a configuration of swp1-9: the restored default is filed on
    swp8 and swp9 only; swp10-12, which the unset alone names, are no ports of this switch."""
    text = ("nv set interface swp1-9 link mtu 9216\nnv set interface swp1-9 qos pfc-watchdog\n"
            "nv unset interface swp8-12 qos pfc-watchdog\n")
    device = parse(text)
    assert sorted(device.ports, key=lambda n: int(n[3:])) == [f"swp{n}" for n in range(1, 10)]


def test_a_bare_interface_unset_is_the_source_of_each_later_ports_default():
    """`nv unset interface` puts every port's settings back to their defaults: a port set again after it has its
    watchdog off (the reference's default) at that line, not at its own first line."""
    device = parse("nv set interface swp1 qos pfc-watchdog\nnv unset interface\nnv set interface swp1 link mtu 9216\n")
    assert device.ports["swp1"].watchdog.enabled is False and device.ports["swp1"].watchdog.source.line == 2


def _lint_lines(tmp_path, text: str, name: str = "leaf.nvue") -> list[tuple[str, int | None]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return [(f.code, f.source.line if f.source else None) for f in api.lint([path], "roce-dscp26").findings]


def test_a_switch_whose_roce_is_turned_off_is_cited_at_that_line(tmp_path):
    """A switch whose only RoCE line is `nv set qos roce enable off` (NVUE reference: `qos roce enable` "Turns QoS RoCE
    on or off"): no port carries RoCE, and SEL001 says so at that line, the one that made every port's PFC state
    (before: at the `system hostname` line, the device's)."""
    found = _lint_lines(tmp_path, "nv set interface swp1-2 link state up\nnv set system hostname leaf1\n"
                                  "nv set qos roce enable off\n")
    assert found == [("SEL001", 3)]
    # no line made the ports' PFC state (no QoS line at all): the device's line, as before
    assert _lint_lines(tmp_path, "nv set interface swp1-2 link state up\nnv set system hostname leaf1\n") == [
        ("SEL001", 2)]


def test_the_lossy_pg_of_a_priority_left_out_of_pfc_is_cited_at_the_pfc_line(tmp_path):
    """The 5.17 QoS guide's PFC block (`pfc default-global switch-priority 0`): switch priority 3 has no PFC, so it
    sits in the lossy PG `bulk`, whose BUF002 (no xoff headroom) points at the PFC line that left it out, as PFC001
    does (before: at the port's first line, 1)."""
    found = _lint_lines(tmp_path, "nv set interface swp1 link state up\nnv set interface swp1 link speed 100G\n"
                                  "nv set qos pfc default-global switch-priority 0\n"
                                  "nv set qos pfc default-global tx enable\n"
                                  "nv set qos pfc default-global cable-length 50\n")
    assert ("BUF002", 3) in found and ("PFC001", 3) in found and ("BUF002", 1) not in found


@pytest.mark.parametrize("setting", ["small-packet-probability 60", "cable-length 50"])
def test_a_pfc_profile_naming_no_switch_priority_pauses_none(setting):
    """Cumulus Linux QoS guide, Port Groups, PFC: "you create a profile to define the egress queues that support
    sending PFC pause frames". A profile of the port's own made only by `small-packet-probability` (5.18) or
    `cable-length` defines none: PFC is off on its ports, at the profile's line, though RoCE's default-global profile
    pauses 3 (before: "profile P is not defined" and PFC unknown for the first, PFC unknown for the second). The
    default-global profile keeps RoCE's switch priority 3 (the guide's `nv show qos pfc default-global` after
    `small-packet-probability 60`: `[switch-priority] 3`)."""
    dev = parse(f"nv set interface swp1-2 type swp\nnv set qos roce\nnv set qos pfc P {setting}\n"
                f"nv set qos pfc default-global {setting}\nnv set interface swp1 qos pfc profile P\n")
    assert not dev.issues
    assert (dev.ports["swp1"].pfc_enabled, dev.ports["swp1"].pfc_source.line) == ([], 3)
    assert (dev.ports["swp2"].pfc_enabled, dev.ports["swp2"].pfc_source.line) == ([3], 2)


@pytest.mark.parametrize("text, line", [
    # startup.yaml items of two switches in one list (a script setting the host name twice renames the switch:
    # tests/test_loader.py, test_a_session_whose_prompt_follows_its_rename_is_one_switch)
    ("- header:\n    nvue-api-version: nvue_v1\n- set:\n    system:\n      hostname: leaf1\n    interface:\n"
     "      swp1:\n        type: swp\n- header:\n    nvue-api-version: nvue_v1\n- set:\n    system:\n"
     "      hostname: leaf2\n    interface:\n      swp2:\n        type: swp\n", 13),
])
def test_two_switches_in_one_file_are_refused_at_the_second_host_name(text, line):
    """Two switches' startup.yaml items pasted in one file name two host names: refused at the second (base.host_name,
    as the CLI readers do), never one switch of both's ports (before: `leaf2` with every port and leaf1's RoCE). One
    host name said twice is one switch."""
    with pytest.raises(InputError) as exc:
        parse(text)
    assert exc.value.line == line and "several switches" in exc.value.message
    assert parse("nv set system hostname leaf1\nnv set interface swp1 type swp\nnv set system hostname leaf1\n"
                 ).name == "leaf1"


@pytest.mark.parametrize("text, line", [
    ("header:\n  nvue-api-version: nvue_v1\nsystem:\n  hostname: leaf1\n---\nheader:\n  nvue-api-version: nvue_v1\n"
     "system:\n  hostname: leaf2\n", 5),
    ('{"header": {"nvue-api-version": "nvue_v1"},\n "interface": {"swp1": {"type": "swp"}}}\n'
     '{"header": {"nvue-api-version": "nvue_v1"},\n "interface": {"swp2": {"type": "swp"}}}\n', 3),
])
def test_several_yaml_or_json_documents_are_refused_at_the_second(text, line):
    """`nv config show -o json` (or -o yaml) of two switches saved in one file: refused at the second document's line
    saying so (before: "invalid YAML: expected '<document start>', but found '{'" or "... but found another
    document")."""
    with pytest.raises(InputError) as exc:
        parse(text)
    assert exc.value.line == line and "several YAML/JSON documents" in exc.value.message


def test_a_session_behind_two_switches_prompts_is_refused_at_the_second():
    """A session pasted with its prompts (the Cumulus guides print `cumulus@leaf01:mgmt:~$ nv set ...`): `nv set` lines
    behind `leaf01`'s prompt and then `leaf02`'s are two switches, refused at the first line of the second (before: one
    switch of both). The same switch logged in again under the name its `system hostname` line gave it is one switch,
    and a jump host's prompt before a line that is no `nv set` (`ubuntu@oob-mgmt-server:~$ ssh cumulus@leaf01`)
    names no switch."""
    with pytest.raises(InputError) as exc:
        parse("cumulus@leaf01:mgmt:~$ nv set interface swp1 link mtu 9216\ncumulus@leaf01:mgmt:~$ nv set qos roce\n"
              "cumulus@leaf01:mgmt:~$ nv config apply\ncumulus@leaf02:mgmt:~$ nv set interface swp1 link mtu 9216\n")
    assert exc.value.line == 4 and "several switches" in exc.value.message
    renamed = parse("cumulus@cumulus:mgmt:~$ nv set system hostname leaf01\ncumulus@cumulus:mgmt:~$ nv config apply\n"
                    "cumulus@leaf01:mgmt:~$ nv set interface swp1 link mtu 9216\n")
    assert renamed.name == "leaf01" and list(renamed.ports) == ["swp1"]
    jump = parse("ubuntu@oob-mgmt-server:~$ ssh cumulus@leaf01\n"
                 "cumulus@leaf01:mgmt:~$ nv set interface swp1 type swp\n")
    assert list(jump.ports) == ["swp1"]


@pytest.mark.parametrize(("script", "name", "line"), [
    ("nv set system hostname leaf1\nnv set interface swp1 type swp\nnv unset system hostname\n", "cumulus", 3),
    ("nv set system hostname leaf1\nnv set interface swp1 type swp\nnv unset system\n", "cumulus", 3),
    ("nv unset system hostname\nnv set interface swp1 type swp\n", "cumulus", 1),
    ("nv set system hostname leaf1\nnv unset system hostname\nnv set system hostname leaf2\n"
     "nv set interface swp1 type swp\n", "leaf2", 3),
])
def test_a_script_unsetting_the_hostname_names_the_switch_cumulus(script, name, line):
    """`nv unset system hostname` (or of all `system`) gives the switch its default name back (Cumulus Linux User
    Guide, Quick Start: the default hostname is cumulus) until a later `nv set system hostname`; the device was named
    after the file."""
    device = nvue.parse([Input("leaf-from-file.nvue", script)], "leaf-from-file")
    assert device.name == name and device.source.line == line, (device.name, device.source)


@pytest.mark.parametrize("word", ["2.5G", "5G", "100Gbps", "100000"])
def test_a_link_speed_nvue_does_not_take_is_named_and_leaves_the_speed_unknown(word):
    """NVUE's `link speed` is one of auto, 10M, 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G (Cumulus Linux
    guide, "NVUE Commands", the `nv list-commands` list). Any other word was read as a speed (2.5G as 2.5 Gb/s, SONiC's
    Mb/s 100000 as 100G), though NVUE refuses the line and the port keeps its speed."""
    dev = parse(f"nv set qos roce\nnv set interface swp1 link speed 400G\nnv set interface swp1 link speed {word}\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 3)]
    assert "no NVUE link speed" in dev.issues[0].message and "800G" in dev.issues[0].message
    assert dev.ports["swp1"].speed_gbps == 400.0  # the earlier line's: NVUE refused this one


@pytest.mark.parametrize(("word", "spelled"), [("100g", "100G"), ("10m", "10M"), ("1g", "1G"), ("AUTO", "auto"),
                                             ("Auto", "auto")])
def test_an_nvue_link_speed_in_another_case_is_named_and_leaves_the_speed_unknown(word, spelled):
    """`nv list-commands` writes `100G`; no NVIDIA document read says whether NVUE takes `100g`. It was read as a
    line NVUE refuses, keeping the earlier 400G: a guess either way. Now the speed is unknown and the line named."""
    dev = parse(f"nv set qos roce\nnv set interface swp1 link speed 400G\nnv set interface swp1 link speed {word}\n")
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS002", 3)]
    assert f"not NVUE's spelling ({spelled})" in dev.issues[0].message
    assert dev.ports["swp1"].speed_gbps is None


@pytest.mark.parametrize("word, gbps", [("10M", 0.01), ("100M", 0.1), ("1G", 1.0), ("800G", 800.0)])
def test_every_nvue_link_speed_is_read(word, gbps):
    dev = parse(f"nv set qos roce\nnv set interface swp1 link speed {word}\n")
    assert not dev.issues and dev.ports["swp1"].speed_gbps == gbps


def test_link_speed_auto_after_a_speed_leaves_the_port_to_the_firmware():
    """Cumulus Linux guide, "Switch Port Attributes": by default the Spectrum firmware picks the link speed; `link
    speed auto` puts that default back. A script setting 400G and then auto kept 400G (the ECN thresholds, headroom
    and LNK rules read a speed the config no longer sets); now the speed is as with no line: unknown, no issue."""
    dev = parse("nv set qos roce\nnv set interface swp1 link speed 400G\nnv set interface swp1 link speed auto\n"
                "nv set interface swp2 link speed auto\nnv set interface swp2 link speed 100G\n")
    assert not dev.issues and [p.speed_gbps for p in dev.ports.values()] == [None, 100.0]


# Cumulus Linux user guide, "VLAN-aware Bridge Mode" (its NVUE examples): ports join a bridge (`nv set interface
# swp1-2 bridge domain br_default`) and carry its VLANs (`nv set bridge domain br_default vlan 10,20`) and untagged
# VLAN (`untagged 1`; the PVID defaults to 1), unless a port lists its own (`... bridge domain br_default vlan 20`,
# "VLAN Pruning"); `access 10` makes an access port ("Access Ports and Tagged Packets"); `untagged none` drops
# untagged frames ("Drop Untagged Frames"). NVUE reference: `nv set interface <interface-id> ip address`.
BRIDGED = """nv set qos roce
nv set interface swp1-2 bridge domain br_default
nv set bridge domain br_default vlan 10,20
nv set bridge domain br_default untagged 1
nv set interface swp3 bridge domain br_default access 10
nv set interface swp4 bridge domain br_default vlan 20
nv set interface swp4 bridge domain br_default untagged none
nv set interface swp5 ip address 10.0.0.1/31
nv set interface swp6 ip address 10.0.0.3/31
nv set interface swp6.100 ip address 10.1.0.3/31
nv set interface bond1 bond member swp7-8
nv set interface bond1 bridge domain br_default
nv set interface swp9 link mtu 9216
"""
# The same as `nv config show` prints it (the YAML tree: each VLAN a key).
BRIDGED_TREE = """- set:
    qos:
      roce: {}
    bridge:
      domain:
        br_default:
          untagged: 1
          vlan:
            '10': {}
            '20': {}
    interface:
      swp1:
        bridge:
          domain:
            br_default: {}
      swp3:
        bridge:
          domain:
            br_default:
              access: 10
      swp4:
        bridge:
          domain:
            br_default:
              untagged: none
              vlan:
                '20': {}
      swp5:
        ip:
          address:
            10.0.0.1/31: {}
"""


def test_bridge_vlans_access_and_routed_ports_are_read():
    """Before session 40 no NVUE port had VLANs: DLK003 could not fire on a Cumulus switch."""
    for dev in (parse(BRIDGED), parse(BRIDGED_TREE, "leaf.yaml")):
        got = {n: (p.vlans, p.untagged_only) for n, p in dev.ports.items()}
        assert got["swp1"] == ([1, 10, 20], False)  # the bridge's VLANs and its untagged VLAN
        assert got["swp3"] == ([10], True)  # an access port sends no tagged frame
        assert got["swp4"] == ([20], False)  # its own list, no untagged VLAN
        assert got["swp5"] == ([], False)  # routed
    dev = parse(BRIDGED)
    assert dev.ports["swp6"].vlans is None  # a subinterface tags it: not an untagged routed port
    assert dev.ports["swp7"].vlans == dev.ports["swp8"].vlans == [1, 10, 20]  # the bond's
    assert dev.ports["swp9"].vlans is None  # its lines do not say
    assert dev.ports["swp1"].vlans is dev.ports["swp2"].vlans  # shared, read-only (Port.vlans)


def test_bridge_vlan_line_not_read_leaves_vlans_unknown():
    dev = parse("nv set qos roce\nnv set interface swp1 bridge domain br_default vlan ten\n"
                "nv set interface swp2 bridge domain br_default\nnv set bridge domain br_default vlan 5000\n")
    assert dev.ports["swp1"].vlans is None and dev.ports["swp2"].vlans is None
    said = [(i.code, i.source.line) for i in dev.issues]
    assert ("SYS002", 2) in said and ("SYS002", 4) in said


def test_dlk003_fires_on_nvue_bridge_not_on_routed_ports(tmp_path):
    path = tmp_path / "leaf.cfg"
    path.write_text(BRIDGED, encoding="utf-8")
    found = {f.port for f in api.lint([path], "roce-dscp26", select_codes=["DLK003"]).findings}
    # swp3-4 share VLAN 10 or 20 with swp1-2 and the bond; swp5 routes; swp6 is tagged (its VLANs unknown)
    assert {"swp1", "swp2", "swp3", "swp4"} <= found and "swp5" not in found and "swp6" not in found


def test_a_ports_vlan_lines_add_up_without_touching_the_ports_that_shared_the_first():
    """Each `vlan` line (each key of the YAML tree) adds to the port's list; ports a range line named share that line's
    set until one of them adds its own, which must not reach the others."""
    dev = parse("nv set qos roce\nnv set interface swp1-3 bridge domain br_default vlan 10,20\n"
                "nv set interface swp1 bridge domain br_default vlan 30\n"
                "nv set interface swp1 bridge domain br_default vlan 40-41\n"
                "nv set interface swp2 bridge domain br_default vlan 50\n")
    assert {n: p.vlans for n, p in dev.ports.items()} == {
        "swp1": [1, 10, 20, 30, 40, 41], "swp2": [1, 10, 20, 50], "swp3": [1, 10, 20]}


@pytest.mark.parametrize("vid", ["5000", "0", "0-10", "4000-4095"])
def test_a_vlan_outside_the_range_is_named_with_the_vlan_range(vid):
    """NVUE reference `<vid>`: 1-4094. A VLAN above it was told "outside 0-4094" (the number lists' bound), as if 0 were
    a VLAN."""
    dev = parse(f"nv set qos roce\nnv set interface swp1 bridge domain br_default vlan {vid}\n")
    (issue,) = dev.issues
    assert issue.code == "SYS002" and issue.message.endswith(f"{vid!r} is outside 1-4094"), issue.message
    assert dev.ports["swp1"].vlans is None


UNNUMBERED = """nv set qos roce
nv set interface swp1-4 type swp
nv set interface swp3 bridge domain br_default
nv set bridge domain br_default vlan 10
nv set vrf default router bgp autonomous-system 65101
nv set vrf default router bgp neighbor swp1 remote-as external
nv set vrf default router bgp neighbor swp3 remote-as external
nv set vrf default router bgp neighbor swp4.100 peer-group SPINE
nv set vrf default router bgp neighbor 10.0.0.1 remote-as external
"""

UNNUMBERED_TREE = """- set:
    qos:
      roce: {}
    interface:
      swp1-4:
        type: swp
      swp3:
        bridge:
          domain:
            br_default: {}
    bridge:
      domain:
        br_default:
          vlan:
            '10': {}
    vrf:
      default:
        router:
          bgp:
            neighbor:
              swp1:
                remote-as: external
              swp3:
                remote-as: external
              swp4.100:
                peer-group: SPINE
              10.0.0.1:
                remote-as: external
"""


def test_a_bgp_unnumbered_port_routes_untagged():
    """Cumulus Linux user guide, "Optional BGP Configuration": a BGP neighbor named by its interface (swp51) is an
    unnumbered peering over that port, routed as with an `ip address`. Such a port (no bridge, no address) kept unknown
    VLANs; a bridge port keeps its bridge's, a subinterface neighbor tags its parent, an address neighbor names no
    port."""
    for dev in (parse(UNNUMBERED), parse(UNNUMBERED_TREE, "leaf.yaml")):
        assert {n: p.vlans for n, p in dev.ports.items()} == {
            "swp1": [], "swp2": None, "swp3": [1, 10], "swp4": None}
        assert [i.code for i in dev.issues if i.code.startswith("SYS")] == []
