"""A host whose DCB was read with iproute2 dcb (Port.dcb_tool "dcb": Intel ice, Broadcom bnxt_en, no MLNX_OFED) gets its
script in dcb(8) commands, not mlnx_qos's: dcb-pfc(8) `dcb pfc set dev IF prio-pfc P:on|off`, dcb-app(8) `dcb app
replace dev IF dscp-prio D:P`, dcb-buffer(8) `dcb buffer set dev IF buffer-size B:SIZE` / `prio-buffer P:B`."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from losslessd import capture
from losslessd import render as rnd
from losslessd.fix import lint_device
from losslessd.lint.finding import Severity
from losslessd.parse import parse_group
from losslessd.parse.base import Input
from losslessd.policy import load_policy
from tests.clirun import losslessd
from tests.test_parse_dcb_show import MAN, dcb_host_sections

IFACE = "enp65s0f0np0"  # (examples/fabric gpu01's RoCE port)


def _dcb_host(tmp_path: Path, edit=lambda command, output: output) -> Path:
    path = tmp_path / "gpu01.capture"
    path.write_text(capture.write({"device": "gpu01", "platform": "linux_mlx5", "collected": "2026-12-04T12:00:00Z"},
                                  dcb_host_sections(IFACE, edit)))
    return path


def _script(path: Path, policy: str, sections: list[str] | None = None, cable_m: float | None = None) -> str:
    device = parse_group("gpu01", [path])
    pol = load_policy(policy)
    ports = [replace(facts, cable_length_m=cable_m) for facts in rnd.device_facts(device, pol)[0]]
    prof = rnd.profile(pol, ports)
    return rnd.render("linux_mlx5", rnd.restrict(prof, sections) if sections else prof)


def _warnings(path: Path, policy: str, script: str) -> list[str]:
    device = parse_group("gpu01", [path])
    found = lint_device(device, load_policy(policy), [Input(str(path), path.read_text()), Input("fix", script)])
    assert found is not None
    return [f"{f.code} {f.message}" for f in found if f.severity != Severity.info]


@pytest.mark.parametrize("policy", ["roce-dscp26", "sonic-azure"])
def test_a_dcb_host_is_rendered_in_dcb_commands_that_lint_clean(tmp_path, policy):
    """Was `mlnx_qos -i IF --trust dscp`, `--dscp2prio`, `--pfc ... --cable_len`, `--buffer_size`, `cma_roce_tos`: tools
    the host does not have. Now dcb's (and configfs), and the script read after the host's capture lints clean."""
    path = _dcb_host(tmp_path)
    script = _script(path, policy, cable_m=5)  # (dcb shows no cable length; the policy's or --ports' gives one)
    assert "mlnx_qos" not in script and "cma_roce_tos" not in script
    lossless = sorted(load_policy(policy).lossless.priorities)
    pfc = " ".join(f"{p}:{'on' if p in lossless else 'off'}" for p in range(8))
    assert f"dcb pfc set dev {IFACE} prio-pfc {pfc}\n" in script
    assert f"dcb app replace dev {IFACE} dscp-prio 24:" in script  # (every DSCP: 8 a line)
    assert script.count(f"dcb app replace dev {IFACE} dscp-prio ") == 8
    # the transcript's NIC shows its buffers (1222 KiB in all): they are sized, then the priorities move
    sizes = script.index(f"dcb buffer set dev {IFACE} buffer-size 0:")
    assert sizes < script.index(f"dcb buffer set dev {IFACE} prio-buffer 0:0 ")
    assert "/tc/1/traffic_class" not in script  # (MLNX_OFED's: under `set -e` the script stopped there)
    # What the script cannot set: the host's own NCCL_IB_TC (106 = DSCP 26) under a policy whose RoCE DSCP is 3 stays
    # a NIC006 (MLNX_OFED's device-wide traffic_class overrode it; a host without MLNX_OFED has none)
    assert [w for w in _warnings(path, policy, script) if not w.startswith("NIC006 NCCL_IB_TC 106 ")] == []


def test_a_dcb_host_without_a_cable_length_still_gets_pfc(tmp_path):
    """dcb writes no cable length (mlnx_qos --cable_len has no dcb counterpart: dcb-pfc(8) `delay` is the driver's own
    unit), so a PFC fix needs none: `losslessd fix` of the dcb-pfc(8)/dcb-app(8) man pages' outputs printed no script
    line ("cannot work out a fix: cable length unknown")."""
    script = _script(_dcb_host(tmp_path), "roce-dscp26", ["pfc"])
    assert f"dcb pfc set dev {IFACE} prio-pfc 0:off 1:off 2:off 3:on " in script and "cable" not in script


def test_fix_of_bare_dcb_output_prints_and_verifies_a_dcb_script():
    """The man pages' example outputs (PFC on 6 and 7): the fix is dcb's, and it is checked by reading it after the
    bare output (appended to it, its lines were read as output: "still there after the fix")."""
    ran = losslessd("fix", "--unsafe-fixes", str(MAN))
    assert ran.returncode == 1, ran.stderr
    assert "dcb pfc set dev eth0 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n" in ran.stdout
    assert "mlnx_qos" not in ran.stdout and "still there" not in ran.stdout
    assert "every finding the printed fixes name is gone" in ran.stdout


def test_fix_of_bare_mlnx_qos_output_is_verified_as_host_state():
    """The same for a bare `mlnx_qos -i IF` output (trust PCP): its `--trust dscp` fix was reported unresolved."""
    bare = MAN.parent / "bare-mlnx-qos-pcp.txt"
    ran = losslessd("fix", "--unsafe-fixes", str(bare))
    assert "--trust dscp" in ran.stdout and "still there" not in ran.stdout, ran.stdout


def test_dcb_buffer_set_is_read_back(tmp_path):
    """`dcb buffer set` was skipped by the script reader ("not read"): dcb-buffer(8) SIZE is bytes, or K / M (iproute2
    get_size: KiB, MiB); keys it does not name keep the NIC's value, unknown to a script alone."""
    path = tmp_path / "set.sh"
    path.write_text("#!/bin/bash\nset -eu\ndcb buffer set dev eth0 buffer-size all:0 0:1M 3:262144 4:128k\n"
                    "dcb buffer set dev eth0 prio-buffer all:0 3:3 4:4\n"
                    "dcb buffer set dev eth1 prio-buffer 3:1\n")
    device = parse_group("h", [path])
    port = device.ports["eth0"]
    assert [port.priority_groups[b].size_bytes for b in range(5)] == [1024 * 1024, 0, 0, 262144, 128 * 1024]
    assert port.priority_to_pg == {0: 0, 1: 0, 2: 0, 3: 3, 4: 4, 5: 0, 6: 0, 7: 0}
    assert device.ports["eth1"].priority_to_pg is None
    assert not [i for i in device.issues if "not read" in i.message], [i.message for i in device.issues]



def _non_mlx5_host(tmp_path: Path, driver: str | None = None) -> Path:
    """gpu01 read with dcb, without its mlx5 sysfs ecn reads: an Intel ice / Broadcom bnxt_en host has no ecn/roce_np,
    roce_rp files (the mlx5 driver's own: NVIDIA MLNX_OFED user manual, "Explicit Congestion Notification"); with
    ``driver``, its `ethtool -i` answer naming it."""
    path = tmp_path / "gpu01.capture"
    sections = [(c, o) for c, o in dcb_host_sections(IFACE) if "/ecn/" not in c]
    if driver is not None:
        sections.append((f"ethtool -i {IFACE}", f"driver: {driver}\nversion: 6.8.0-49-generic\n"))
    path.write_text(capture.write({"device": "gpu01", "platform": "linux_mlx5", "collected": "2026-12-04T12:00:00Z"},
                                  sections))
    return path


@pytest.mark.parametrize("policy", ["roce-dscp26", "sonic-azure"])
def test_a_dcb_host_without_mlx5_sysfs_gets_no_ecn_write(tmp_path, policy):
    """Was `echo 1 > .../ecn/roce_np/enable/3` (and roce_rp, cnp_dscp) on such a host; now a comment naming the vendor's
    setting (irdma configfs, niccli), and the script still re-lints as the capture does."""
    path = _non_mlx5_host(tmp_path)
    script = _script(path, policy, cable_m=5)
    commands = [line for line in script.splitlines() if not line.startswith("#")]
    assert not [line for line in commands if "/ecn/" in line], script
    assert "roce_dcqcn_enable" in script and "niccli" in script
    # re-linted after the capture: clean, as the mlx5 host's (the mlx5 ecn/ reads are not asked of a host without
    # them: they were SYS002 warnings, one per file)
    after = _warnings(path, policy, script)
    assert [w for w in after if not w.startswith("NIC006 NCCL_IB_TC 106 ")] == []  # (as in the test above)


@pytest.mark.parametrize(("driver", "named", "not_named"), [
    ("ice", ["its driver ice, Intel E810 (irdma)", "roce_dcqcn_enable"], ["niccli"]),
    ("bnxt_en", ["its driver bnxt_en, Broadcom (bnxt_re)", "niccli"], ["roce_dcqcn_enable"]),
    ("i40e", ["roce_dcqcn_enable", "niccli", "its driver i40e: see its vendor's DCQCN setting"], []),
    (None, ["roce_dcqcn_enable", "niccli", f"`ethtool -i {IFACE}` names its driver"], []),
])
def test_the_ecn_comment_names_the_setting_of_the_hosts_driver(tmp_path, driver, named, not_named):
    """The DCQCN comment of a host without mlx5's sysfs switches named Intel's and Broadcom's settings both; where
    `ethtool -i` named the driver (Port.nic_driver) it names that driver's only, and both where it is unknown."""
    script = _script(_non_mlx5_host(tmp_path, driver), "roce-dscp26", ["ecn"], cable_m=5)
    comment = "\n".join(line for line in script.splitlines() if line.startswith("#"))
    assert all(text in comment for text in named) and not any(text in comment for text in not_named), comment


def test_a_dcb_host_whose_driver_is_mlx5_gets_the_sysfs_writes(tmp_path):
    """A dcb host whose `ethtool -i` says mlx5_core has the ecn/ sysfs files (Port.mlx5_ecn) though its capture did not
    read them: the render wrote the vendor comment instead of the writes (it judged by the ecn/ reads alone)."""
    script = _script(_non_mlx5_host(tmp_path, "mlx5_core"), "roce-dscp26", ["ecn"], cable_m=5)
    assert f"echo 1 > /sys/class/net/{IFACE}/ecn/roce_np/enable/3" in script and "niccli" not in script


@pytest.mark.slow
def test_a_non_mlx5_dcb_host_script_runs_to_its_end(tmp_path):
    """Under set -e a write to a missing ecn/roce_np file stopped the script there. A dry run of what runs without root
    (no configfs/sysfs TOS writes), with dcb, ip and ethtool accepting anything: it reaches its end."""
    dry = _script(_non_mlx5_host(tmp_path), "roce-dscp26", ["pfc", "maps", "trust", "ecn"], cable_m=5)
    dry += "echo reached-the-end\n"
    assert subprocess.run(["bash", "-n"], input=dry, text=True).returncode == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dcb", "ip", "ethtool"):
        (bin_dir / tool).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / tool).chmod(0o755)
    ran = subprocess.run(["bash"], input=dry, text=True, capture_output=True, env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
                         timeout=60)
    assert ran.returncode == 0 and ran.stdout.endswith("reached-the-end\n"), ran.stderr


def test_an_upstream_mlx5_host_gets_no_ecn_write_and_its_own_setting_named():
    """The kernel's own mlx5_core has no sysfs ecn/ directory (Port.nic_sysfs_ecn False: its capture found none):
    the render wrote `echo 1 > .../ecn/roce_np/enable/3`, which stops the script there (set -e); now a comment naming
    the firmware's ROCE_CC_PRIO_MASK_P1 and debugfs cc_params, and no other vendor's setting."""
    upstream = Path(__file__).parent / "realworld" / "linux_mlx5" / "dcb-mlx5-upstream-host.txt"
    script = _script(upstream, "roce-dscp26", ["ecn"], cable_m=5)
    commands = [line for line in script.splitlines() if not line.startswith("#")]
    assert not [line for line in commands if "/ecn/" in line], script
    comment = "\n".join(line for line in script.splitlines() if line.startswith("#"))
    assert "ROCE_CC_PRIO_MASK_P1" in comment and "/sys/kernel/debug/mlx5/" in comment, comment
    assert "roce_dcqcn_enable" not in comment and "niccli" not in comment, comment
