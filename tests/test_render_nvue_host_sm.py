"""Rendered NVUE commands, ConnectX host scripts and opensm.conf fragments: numbers land where they should,
snippets appended to a real config behave as on the device (later commands win), and the subnet manager's
standby requirement is met by rendering a master and a standby."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from losslessd import render as rnd
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.lint.finding import Severity
from losslessd.parse import parse_group
from losslessd.policy import load_policy
from losslessd.render import opensm
from tests import render_golden
from tests.clirun import Ran, losslessd
from tests.conftest import FIXTURES

RAW = FIXTURES / "raw"


def _profile(platform: str, policy: str = "roce-dscp26", **changes) -> rnd.Profile:
    ports = [rnd.parse_port_spec(spec) for spec in render_golden.port_specs(platform)]
    return dataclasses.replace(rnd.profile(load_policy(policy), ports), **changes)


def _parse(tmp_path: Path, name: str, text: str, platform: str):
    path = tmp_path / name
    path.write_text(text)
    return parse_group(path.stem, [path], platform), path


def _left(findings, platform: str) -> list[str]:
    """Findings other than the platform's run-time infos (tests/render_golden.py RUNTIME_INFOS)."""
    runtime = render_golden.RUNTIME_INFOS.get(platform, set())
    return [f"{f.code} {f.message}" for f in findings
            if not (f.unverified and f.severity == Severity.info and f.code in runtime)]


# -- NVUE -------------------------------------------------------------------------------------------------

def test_nvue_ecn_scales_with_speed_and_each_port_gets_its_cable_length():
    device = parse_group("leaf", [render_golden.golden_path("nvidia_cumulus", "roce-dscp26")], "nvidia_cumulus")
    ecn = {name: (p.queues[3].ecn.min_threshold_bytes, p.queues[3].ecn.max_threshold_bytes)
           for name, p in device.ports.items()}
    assert ecn["swp1"] == (rnd.ECN_KMIN_BYTES, rnd.ECN_KMAX_BYTES)  # 100G: the reference
    assert ecn["swp2"] == (4 * rnd.ECN_KMIN_BYTES, 4 * rnd.ECN_KMAX_BYTES)  # 400G
    assert {n: p.cable_length_m for n, p in device.ports.items()} == {"swp1": 5, "swp2": 300, "swp3": 3}
    assert {n: (p.speed_gbps, p.mtu_bytes) for n, p in device.ports.items()} == {
        "swp1": (100, 9100), "swp2": (400, 9100), "swp3": (25, 1500)}
    port = device.ports["swp1"]
    assert port.pfc_enabled == [3] and port.queues[6].scheduler.type.value == "strict"
    assert (port.watchdog.enabled, port.watchdog.detection_time_ms, port.watchdog.polling_interval_ms) == (True, 200, 100)
    assert [port.dscp_chain(d).tc for d in (26, 48, 24, 0)] == [3, 6, 0, 0]


def test_nvue_pfc_only_writes_no_congestion_control():
    text = render_golden.golden_path("nvidia_cumulus", "pfc-only").read_text()
    assert "congestion-control" not in text and "qos pfc pfc_p3_5m switch-priority 3" in text


def test_nvue_cable_length_is_rounded_up_to_whole_metres(tmp_path):
    prof = rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts("swp9", 100, 2.2, 9216)])
    device, _ = _parse(tmp_path, "leaf.cfg", rnd.render("nvidia_cumulus", prof), "nvidia_cumulus")
    assert device.ports["swp9"].cable_length_m == 3


def test_nvue_snippet_appended_to_a_broken_config_wins(tmp_path):
    """A wrong config (PFC on 3 and 4, watchdog off), then the PFC and watchdog sections of the right profile
    appended, as `fix` would print them: the later commands rebind the ports and re-enable the watchdog."""
    broken = rnd.render("nvidia_cumulus", _profile("nvidia_cumulus", pfc=[3, 4], watchdog=False))
    device, path = _parse(tmp_path, "broken.cfg", broken, "nvidia_cumulus")
    assert device.ports["swp1"].pfc_enabled == [3, 4] and not device.ports["swp1"].watchdog.enabled
    assert sorted({c.split()[0] for c in _left(lint([path], "roce-dscp26").findings, "nvidia_cumulus")}) == [
        "PFC002", "WDG001"]
    snippet = rnd.render("nvidia_cumulus", _profile("nvidia_cumulus", sections=frozenset({"pfc", "watchdog"})))
    assert "link speed" not in snippet and "congestion-control" not in snippet
    device, path = _parse(tmp_path, "fixed.cfg", broken + snippet, "nvidia_cumulus")
    assert {n: (p.pfc_enabled, p.watchdog.enabled) for n, p in device.ports.items()} == {
        n: ([3], True) for n in ("swp1", "swp2", "swp3")}
    assert _left(lint([path], "roce-dscp26").findings, "nvidia_cumulus") == []


def test_nvue_snippet_appended_to_a_real_leaf_config(tmp_path):
    """leaf-roce-good.cfg runs RoCE lossless mode (PFC on SP 3); the sonic-azure profile appended moves swp1 to
    PFC 3,4 with DSCP 3 and 4 on their own switch priorities, and leaves the other ports as they were."""
    base = (RAW / "nvidia_cumulus" / "leaf-roce-good.cfg").read_text()
    ports = [rnd.PortFacts("swp1", 400, 5, 9216)]
    pools = _parse(tmp_path, "base.cfg", base, "nvidia_cumulus")[0].traffic_pools  # as render --device reads them
    snippet = rnd.render("nvidia_cumulus", rnd.profile(load_policy("sonic-azure"), ports, traffic_pools=pools))
    device, _ = _parse(tmp_path, "leaf01.cfg", base + snippet, "nvidia_cumulus")
    swp1, swp2 = device.ports["swp1"], device.ports["swp2"]
    assert (swp1.pfc_enabled, swp2.pfc_enabled) == ([3, 4], [3])
    assert [swp1.dscp_chain(d).queue for d in (3, 4)] == [3, 4]
    assert swp1.queues[4].ecn.min_threshold_bytes == 4 * rnd.ECN_KMIN_BYTES and swp2.queues[3].ecn.min_threshold_bytes == 150000
    assert not device.issues



def _render_device(tmp_path: Path, text: str) -> Ran:
    device = tmp_path / "leaf.cfg"
    device.write_text(text)
    return losslessd("render", "--platform", "nvue", "--device", device)


_PORT = "nv set interface swp1 link speed 100G\nnv set interface swp1 link mtu 9216\n" \
        "nv set qos pfc default-global switch-priority 3\nnv set qos pfc default-global cable-length 10\n"


def _pool_lines(snippet: str) -> list[str]:
    return [line for line in snippet.splitlines() if line.startswith("nv set qos traffic-pool")]


def test_nvue_render_keeps_the_roce_lossless_pool_of_a_switch_in_roce_mode(tmp_path):
    """QoS guide, Traffic Pools: one lossless pool per switch, roce-lossless when RoCE runs. A --device in RoCE
    lossless mode gets no default-lossless pool; the snippet appended to it leaves one lossless pool."""
    base = "nv set qos roce mode lossless\n" + _PORT
    res = _render_device(tmp_path, base)
    assert res.returncode == 0, res.stderr
    assert not _pool_lines(res.stdout)
    assert "# traffic pools left as they are: the switch's lossless pool is roce-lossless" in res.stdout
    device, _ = _parse(tmp_path, "after.cfg", base + res.stdout, "nvidia_cumulus")
    assert device.traffic_pools == {"roce-lossless": None} and not device.issues
    assert device.ports["swp1"].pfc_enabled == [3]


def test_nvue_fix_on_a_roce_switch_adds_no_second_lossless_pool(tmp_path):
    """fix renders from the device as render --device does: PFC moved to switch priority 3, pools kept."""
    device = tmp_path / "leaf.cfg"
    device.write_text("nv set qos roce mode lossless\nnv set interface swp1 link speed 100G\n"
                      "nv set interface swp1 link mtu 9216\nnv set qos pfc default-global switch-priority 4\n"
                      "nv set qos pfc default-global cable-length 10\n")
    res = losslessd("fix", "--unsafe-fixes", device)
    assert res.returncode == 1 and "nv set qos pfc pfc_p3_10m switch-priority 3" in res.stdout, res.stderr
    assert not _pool_lines(res.stdout) and "the switch's lossless pool is roce-lossless" in res.stdout


@pytest.mark.parametrize("mode", ["lossy", "lossy-multi-tc"])
def test_nvue_render_on_a_lossy_mode_switch_changes_the_mode_and_writes_no_pools(tmp_path, mode):
    """RoCE guide: lossy mode (and the 5.14 lossy multi TC profile) has no PFC and no lossless pool. PFC for the
    policy's lossless priority needs lossless mode, which makes roce-lossless: the snippet says the mode changes, sets
    it, and writes no default-lossless pool beside it; appended to the config it leaves a lossless switch with one
    lossless pool, and lint finds no PFC004 left."""
    base = f"nv set qos roce mode {mode}\n" + _PORT
    res = _render_device(tmp_path, base)
    assert res.returncode == 0, res.stderr
    assert f"# the switch runs RoCE {mode} mode (nv set qos roce mode {mode}): the RoCE mode changes to lossless " \
           "for PFC on 3\nnv set qos roce mode lossless\n" in res.stdout
    assert not _pool_lines(res.stdout) and "makes its own lossless pool (roce-lossless)" in res.stdout
    device, _ = _parse(tmp_path, "after.cfg", base + res.stdout, "nvidia_cumulus")
    assert device.lossy_mode is None and device.traffic_pools == {"roce-lossless": None} and not device.issues
    assert device.ports["swp1"].pfc_enabled == [3]
    assert not [f for f in lint([tmp_path / "after.cfg"], policy="roce-dscp26").findings if f.code == "PFC004"]


def test_nvue_render_keeps_pools_that_leave_no_room_for_its_own(tmp_path):
    """QoS guide, Traffic Pools example: mc-lossy takes 30 %; 50 % + 50 % more would pass the 100 % total."""
    base = _PORT + ("nv set qos traffic-pool default-lossy switch-priority 0,1,3,4,5,6,7\n"
                    "nv set qos traffic-pool default-lossy memory-percent 70\n"
                    "nv set qos traffic-pool mc-lossy switch-priority 2\n"
                    "nv set qos traffic-pool mc-lossy memory-percent 30\n")
    res = _render_device(tmp_path, base)
    assert res.returncode == 0, res.stderr
    assert not _pool_lines(res.stdout) and "mc-lossy 30 % already taken" in res.stdout
    kept = _render_device(tmp_path, base + "nv set qos traffic-pool default-lossless memory-percent 20\n"
                          "nv set qos traffic-pool default-lossy memory-percent 50\n")
    assert not _pool_lines(kept.stdout) and "lossless pool is default-lossless" in kept.stdout
    fresh = _render_device(tmp_path, _PORT)  # no pools of its own: the Flow Control Buffers example
    assert "nv set qos traffic-pool default-lossless memory-percent 50\n" \
           "nv set qos traffic-pool default-lossy memory-percent 50\n" in fresh.stdout


def test_nvue_two_lossless_pools_or_more_than_100_percent_are_sys002(tmp_path):
    """The guide's rules the render keeps are read too: its own earlier output on a RoCE switch (default-lossless
    beside RoCE mode's roce-lossless), and pools whose shares pass 100 %."""
    device, _ = _parse(tmp_path, "two.cfg", "nv set qos roce\n" + _PORT +
                       "nv set qos traffic-pool default-lossless memory-percent 50\n"
                       "nv set qos traffic-pool default-lossy memory-percent 50\n"
                       "nv set qos traffic-pool mc-lossy memory-percent 30\n", "nvidia_cumulus")
    assert [(i.code, i.source.line) for i in device.issues] == [("SYS002", 6), ("SYS002", 8)]
    assert "default-lossless beside roce-lossless (made by RoCE lossless mode" in device.issues[0].message
    assert "take 130 % of the buffer memory" in device.issues[1].message
    zero, _ = _parse(tmp_path, "zero.cfg", "nv set qos roce\n" + _PORT +
                     "nv set qos traffic-pool default-lossless memory-percent 0\n", "nvidia_cumulus")
    # RoCE with its own pool resized, as an NVIDIA-generated leaf config in the code index does: no issue
    sized, _ = _parse(tmp_path, "sized.cfg", "nv set qos roce state enabled\nnv set qos roce mode lossless\n" + _PORT +
                      "nv set qos traffic-pool default-lossy memory-percent 10\n"
                      "nv set qos traffic-pool roce-lossless memory-percent 90\n", "nvidia_cumulus")
    assert not sized.issues and sized.traffic_pools == {"default-lossy": 10, "roce-lossless": 90}
    # NVUE reference: `memory-percent 1-100`; a 0 is not read as a pool
    assert [(i.code, i.source.line) for i in zero.issues] == [("SYS002", 6)]
    assert "is not a number from 1 to 100" in zero.issues[0].message and zero.traffic_pools == {"roce-lossless": None}


# -- ConnectX host script -----------------------------------------------------------------------------------

def test_host_script_sets_what_the_policy_asks():
    device = parse_group("gpu", [render_golden.golden_path("linux_mlx5", "roce-dscp26")], "linux_mlx5")
    assert not device.issues and sorted(device.ports) == ["ens1f0np0", "ens1f1np1", "ens2f0np0"]
    port = device.ports["ens1f1np1"]  # 400G, 300 m
    assert (port.trust.value, port.pfc_enabled, port.cable_length_m, port.mtu_bytes) == ("dscp", [3], 300, 9100)
    assert len(port.dscp_to_priority) == 64 and port.dscp_to_priority[26] == 3 and port.dscp_to_priority[24] == 0
    assert port.nic_ecn.np_enabled == {3: True} and port.nic_ecn.rp_enabled == {3: True}
    assert (port.nic_ecn.cnp_dscp, port.nic_ecn.cnp_priority) == (48, 6)
    assert device.roce_tos == 106  # DSCP 26 << 2 | ECT(0)
    assert device.ports["ens2f0np0"].mtu_bytes == 1500


def test_host_script_without_ecn_sends_not_ect_and_touches_no_dcqcn_switch():
    device = parse_group("gpu", [render_golden.golden_path("linux_mlx5", "pfc-only")], "linux_mlx5")
    assert device.roce_tos == 104 and all(p.nic_ecn is None for p in device.ports.values())


def test_host_script_binds_cma_roce_tos_to_the_ports_rdma_device(tmp_path):
    text = "#!/bin/sh\nmlnx_qos -i eth2 --trust dscp\ncma_roce_tos -d \"$(ls /sys/class/net/eth2/device/infiniband)\" -t 106\n" \
           "cma_roce_tos -d mlx5_3 -t 96\n"
    device, _ = _parse(tmp_path, "h.sh", text, "linux_mlx5")
    assert device.roce_tos == 106 and device.roce_tos_source.line == 3
    assert "the RDMA device of eth2=106" in device.issues[0].message and "mlx5_3=96" in device.issues[0].message


def test_host_script_is_detected_by_content(tmp_path):
    path = tmp_path / "setup-roce"
    path.write_text(render_golden.golden_path("linux_mlx5", "sonic-azure").read_text())
    device = parse_group("gpu", [path])
    assert device.platform == "linux_mlx5" and device.ports["ens1f0np0"].pfc_enabled == [3, 4]


def test_host_script_later_commands_win_as_on_the_host(tmp_path):
    """`--cable_len` alone: an mlnx_qos before mlnx-tools 83b87d9 (2024) sent it in one DCB PFC set with every PFC bit
    0, a later one keeps the PFC bits, so PFC is unknown after it; a later `--pfc` (the fix snippet appended to the
    broken script) sets it and keeps the cable length."""
    broken = rnd.render("linux_mlx5", _profile("linux_mlx5", pfc=[4])) + "mlnx_qos -i ens1f0np0 --cable_len 7\n"
    device, path = _parse(tmp_path, "gpu.sh", broken, "linux_mlx5")
    assert (device.ports["ens1f0np0"].pfc_enabled, device.ports["ens1f0np0"].cable_length_m) == (None, 7)
    assert device.ports["ens1f1np1"].pfc_enabled == [4]
    assert {f.code for f in lint([path], "roce-dscp26").findings if not f.unverified} == {"MAP001", "NIC001"}
    snippet = rnd.render("linux_mlx5", _profile("linux_mlx5", sections=frozenset({"pfc"})))
    assert "dscp2prio" not in snippet and "ecn" not in snippet
    device, path = _parse(tmp_path, "gpu-fixed.sh", broken + snippet, "linux_mlx5")
    assert {n: (p.pfc_enabled, p.cable_length_m) for n, p in device.ports.items()} == {
        "ens1f0np0": ([3], 5), "ens1f1np1": ([3], 300), "ens2f0np0": ([3], 3)}
    assert _left(lint([path], "roce-dscp26").findings, "linux_mlx5") == []


def test_host_script_lines_it_cannot_read_are_issues_not_crashes(tmp_path):
    # (the quote opened on line 8 is never closed: bash reads line 9 as part of it and stops with a syntax error)
    text = ("#!/bin/bash\nset -eu\nmlnx_qos -i eth2 --trust dscp --dscp2prio set,26,3\nmlnx_qos -i eth2 --pfc 0,0,1\n"
            "echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/9\nsystemctl restart openibd\n"
            "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0\nmlnx_qos -i 'eth2\nmlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0\n")
    device, _ = _parse(tmp_path, "h.sh", text, "linux_mlx5")
    assert [i.source.line for i in device.issues] == [3, 4, 5, 6, 8]
    assert "a quote opened on this line is never closed" in device.issues[-1].message
    assert all(i.code == "SYS002" for i in device.issues) and "refuses --trust and --dscp2prio" in device.issues[0].message
    port = device.ports["eth2"]
    assert port.pfc_enabled == [3] and port.trust is None and port.dscp_to_priority is None


# -- OpenSM -------------------------------------------------------------------------------------------------

def _cli(*args: str) -> Ran:
    return losslessd("render", "--platform", "opensm", *args)


def test_opensm_master_and_rendered_standby_lint_clean_together(tmp_path):
    """IBS003 is fabric-level: a lone SM has no standby. Rendered with a lower --sm-priority on a second
    node, the pair satisfies every IBS rule; the master alone is told to run one."""
    for name, args in (("sm1", ()), ("sm2", ("--sm-priority", "13"))):
        res = _cli("--policy", "infiniband", *args)
        assert res.returncode == 0, res.stderr
        (tmp_path / name).mkdir()
        (tmp_path / name / "opensm.conf").write_text(res.stdout)
    result = lint([tmp_path / "sm1", tmp_path / "sm2"], "infiniband")
    assert result.findings == [] and result.fabric.devices["sm2"].opensm.sm_priority == 13
    [alone] = lint([tmp_path / "sm1"], "infiniband").findings
    assert alone.code == "IBS003" and "no standby SM" in alone.message


def test_opensm_numbers_come_from_the_policy(tmp_path):
    device = parse_group("sm", [render_golden.golden_path("opensm", "infiniband")], "opensm")
    sm = device.opensm
    assert (sm.routing_engines, sm.no_fallback, sm.sm_priority, sm.lmc) == (["ftree", "updn"], True, 14, 0)
    assert (sm.sweep_interval_s, sm.transaction_timeout_ms, sm.qos_enabled, sm.max_op_vls) == (10, 200, True, 3)
    assert all(vl < 4 for vl in sm.qos_sets["ca"].sl2vl) and not device.issues
    policy = tmp_path / "torus.yaml"
    policy.write_text("extends: infiniband\ninfiniband: {topology: torus, sweep_interval_s: {min: 20, max: 30}}\n")
    prof = opensm.profile(load_policy(policy))
    assert (prof.routing_engines, prof.sweep_interval_s) == (["torus-2QoS", "updn"], 20)
    conf = tmp_path / "torus" / "opensm.conf"
    conf.parent.mkdir()
    conf.write_text(rnd.render("opensm", prof))
    assert [f.code for f in lint([conf.parent], policy).findings] == ["IBS003"]


def test_opensm_fragment_appended_to_a_full_opensm_conf_wins(tmp_path):
    """OpenSM reads the last line of an option: the fragment appended to a torus config with minhop routing
    and a 0 s sweep replaces both."""
    base = (RAW / "opensm" / "torus-minhop.conf").read_text()
    (tmp_path / "sm").mkdir()
    (tmp_path / "sm" / "opensm.conf").write_text(base + rnd.render("opensm", opensm.profile(load_policy("infiniband"))))
    device = parse_group("sm", [tmp_path / "sm" / "opensm.conf"], "opensm")
    assert device.opensm.routing_engines == ["ftree", "updn"] and device.opensm.sm_priority == 14
    assert [f.code for f in lint([tmp_path / "sm"], "infiniband").findings] == ["IBS003"]


@pytest.mark.parametrize(("args", "message"), [
    (["--sm-priority", "16"], "0-15"),
    (["--ports", "ib0:100G:5m"], "do not apply to opensm"),
])
def test_opensm_cli_refuses_what_it_cannot_render(args, message):
    res = _cli(*args)
    assert res.returncode == 2 and res.stdout == "" and message in res.stderr, res.stderr


def test_opensm_rejects_an_out_of_range_priority_in_the_library_too():
    with pytest.raises(InputError, match="0-15"):
        opensm.profile(load_policy("infiniband"), sm_priority=-1)
