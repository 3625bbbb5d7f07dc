"""Hosts whose NIC is read with iproute2 dcb and is not mlx5 (Intel ice + irdma, Broadcom bnxt_en + bnxt_re): what
lint asks of them follows their driver (`ethtool -i IF`, ethtool.c dump_drvinfo `driver: NAME`).

mlx5's sysfs ecn/roce_np, ecn/roce_rp files are the MLNX_OFED mlx5 driver's own (NVIDIA MLNX_OFED user manual,
"Explicit Congestion Notification"); Intel E810 sets DCQCN in irdma's configfs `roce_dcqcn_enable` (Intel Ethernet 800
Series Linux Flow Control Configuration Guide for RDMA Use Cases, "Congestion Control Parameter Settings"), Broadcom
with bnxt_re's congestion control. The fixture is such a host as examples/collect-host-capture.sh writes it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from losslessd import capture
from losslessd.api import lint
from losslessd.lint.finding import Severity
from losslessd.parse import detect, parse_group, read_input
from tests.clirun import losslessd

HERE = Path(__file__).resolve().parent
ICE = HERE / "realworld" / "linux_mlx5" / "dcb-ice-irdma-host.txt"
IFACE = "ens801f0np0"


def _host(tmp_path: Path, driver: str | None) -> Path:
    """The fixture with `ethtool -i` naming ``driver`` (None: no `ethtool -i` section, as captures before it)."""
    doc = capture.read(ICE.read_text())
    sections = [(s.command, s.output.replace("driver: ice", f"driver: {driver}")) for s in doc.sections
                if driver is not None or not s.command.startswith("ethtool -i")]
    path = tmp_path / "cpu07.capture"
    path.write_text(capture.write({"device": "cpu07", "platform": "linux_mlx5", "collected": "2026-12-04T12:00:00Z"},
                                  sections))
    return path


def _said(path: Path) -> list[str]:
    return [f"{f.severity.value} {f.code} {f.message}" for f in lint([path]).findings]


def test_an_intel_host_is_not_asked_for_mlx5_files_and_exits_clean():
    """Was three SYS002 warnings, one per absent mlx5 ecn/ file (exit 1 on every Intel host); now one NIC003 and one
    MAP002 "could not verify" naming irdma's own setting, and exit 0."""
    said = _said(ICE)
    assert not [s for s in said if " SYS002 " in s], said
    nic003 = [s for s in said if " NIC003 " in s]
    assert nic003 == ["info NIC003 could not verify DCQCN on lossless priority 3: the NIC has no mlx5 ecn/roce_np, "
                      "roce_rp files; its DCQCN is set with Intel irdma's configfs `/sys/kernel/config/irdma/<RDMA "
                      "device>/roce_dcqcn_enable`, which the input does not show"]
    map002 = [s for s in said if " MAP002 " in s]
    assert len(map002) == 1 and "roce_dcqcn_enable" in map002[0] and "is not in the input" not in map002[0], said
    # NIC006: the RDMA device's tc/1/traffic_class is MLNX_OFED's: only /etc/nccl.conf is asked for
    nic006 = [s for s in said if " NIC006 " in s]
    assert nic006 and "traffic_class" not in nic006[0] and "/etc/nccl.conf" in nic006[0], said
    ran = losslessd("lint", str(ICE))
    assert ran.returncode == 0, ran.stdout + ran.stderr


@pytest.mark.parametrize("driver, named", [
    ("bnxt_en", "niccli"),  # Broadcom: bnxt_re's congestion control
    (None, f"`ethtool -i {IFACE}` names"),  # a capture without the driver: every driver's setting, once
])
def test_the_setting_named_follows_the_driver(tmp_path, driver, named):
    said = _said(_host(tmp_path, driver))
    assert not [s for s in said if " SYS002 " in s], said
    nic003 = [s for s in said if " NIC003 " in s]
    assert len(nic003) == 1 and named in nic003[0], said


UPSTREAM = HERE / "realworld" / "linux_mlx5" / "dcb-mlx5-upstream-host.txt"


def test_an_upstream_mlx5_host_is_not_asked_for_the_ecn_files_its_driver_lacks():
    """The kernel's own mlx5_core has no sysfs ecn/ directory (MLNX_OFED's driver adds it; upstream serves DCQCN's
    parameters in debugfs cc_params, Linux drivers/infiniband/hw/mlx5/cong.c, and leaves DCQCN per priority to the
    firmware's ROCE_CC_PRIO_MASK_P1). Was three SYS002 warnings, one per absent file (exit 1 on every such host), and
    NIC003/MAP002 asking for the files; now one NIC003 and one MAP002 "could not verify" naming where it is set."""
    said = _said(UPSTREAM)
    assert not [s for s in said if " SYS002 " in s], said
    nic003 = [s for s in said if " NIC003 " in s]
    assert len(nic003) == 1 and "ROCE_CC_PRIO_MASK_P1" in nic003[0] and "/sys/kernel/debug/mlx5/" in nic003[0], said
    map002 = [s for s in said if " MAP002 " in s]
    assert len(map002) == 1 and "cc_params" in map002[0] and "is not in the input" not in map002[0], said
    nic006 = [s for s in said if " NIC006 " in s]  # (tc/1/traffic_class is MLNX_OFED's too)
    assert nic006 and "traffic_class" not in nic006[0], said
    assert parse_group("gpu21", [UPSTREAM]).ports["ens1f0np0"].nic_sysfs_ecn is False
    ran = losslessd("lint", str(UPSTREAM))
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_mlnx_ofed_mlx5_port_missing_one_ecn_file_is_still_flagged(tmp_path):
    """The upstream reading needs every ecn/ read absent: a port whose enable files were read and whose cnp files are
    absent is a MLNX_OFED host with a read gone wrong (the warning stays)."""
    text = UPSTREAM.read_text().replace(
        "grep: /sys/class/net/ens1f0np0/ecn/roce_np/enable/*: No such file or directory",
        "\n".join(f"/sys/class/net/ens1f0np0/ecn/roce_np/enable/{n}:1" for n in range(8)))
    path = tmp_path / "gpu21.capture"
    path.write_text(text)
    said = _said(path)
    assert [s for s in said if " SYS002 " in s and "No such file or directory" in s], said


def test_an_absent_rdma_traffic_class_file_is_said_on_a_mlnx_ofed_host_only(tmp_path):
    """/sys/class/infiniband/DEV/tc/1/traffic_class is MLNX_OFED's, as the ecn/ files: the upstream host's `cat` of it
    ("No such file or directory", as pull keeps an optional command's answer) was a SYS002; a host whose ports have
    the ecn/ files still has it said."""
    tc = "#% command: cat /sys/class/infiniband/{0}/tc/1/traffic_class\ncat: /sys/class/infiniband/{0}/tc/1/" \
         "traffic_class: No such file or directory\n"
    for source, expected in ((UPSTREAM, 0), (GOOD, 1)):
        path = tmp_path / source.name
        path.write_text(source.read_text() + tc.format("mlx5_0"))
        said = [s for s in _said(path) if " SYS002 " in s and "traffic_class" in s]
        assert len(said) == expected, said


def test_a_dcb_host_without_mlx5_files_is_left_out_of_the_dcqcn_parameter_comparison(tmp_path):
    """NIC007 compares mlx5's DCQCN parameters between hosts: a host that has none (irdma's are elsewhere) was
    "DCQCN parameters (/sys/class/net/IF/ecn/roce_rp/*, roce_np/*) not in the input, while 1 other NIC port(s) report
    them"."""
    shutil.copy(HERE.parent / "examples" / "fabric" / "gpu01.capture", tmp_path / "gpu01.capture")
    shutil.copy(ICE, tmp_path / "cpu07.capture")
    findings = lint([tmp_path / "gpu01.capture", tmp_path / "cpu07.capture"]).findings
    assert not [f.message for f in findings if f.code == "NIC007" and f.device == "cpu07"]


@pytest.mark.parametrize("output, issue", [
    ("Cannot get driver information: No such device\n", None),  # (an interface gone: nothing more to say)
    ("bash: ethtool: command not found\n", None),  # (a refusal, as pull keeps an optional command's)
    ("driver mlx5_core\n", "no `driver:` line"),
])
def test_an_ethtool_i_without_a_driver_line(tmp_path, output, issue):
    text = ICE.read_text().replace("driver: ice\n", output)
    path = tmp_path / "cpu07.capture"
    path.write_text(text)
    device = parse_group("cpu07", [path])
    assert device.ports[IFACE].nic_driver is None
    found = [i.message for i in device.issues if "ethtool -i" in i.message]
    assert found == ([] if issue is None else [f"`ethtool -i {IFACE}`: {issue}"])


# How each shell says a program is not there (losslessd.platforms._SHELL_REFUSALS cites each): bash, dash (Debian's
# /bin/sh, with its line number), busybox ash (and as a login shell), zsh.
SHELLS_NOT_FOUND = ["-bash: ethtool: command not found", "sh: 1: ethtool: not found", "sh: ethtool: not found",
                    "-sh: ethtool: not found", "zsh: command not found: ethtool"]
GOOD = HERE / "fixtures" / "raw" / "linux_mlx5" / "gpu01-good.txt"


@pytest.mark.parametrize("answer", SHELLS_NOT_FOUND)
@pytest.mark.parametrize("command", ["ethtool -i {}", "ethtool -a {}", "ethtool {}", "ip -d link show dev {}",
                                     "lldpcli show neighbors -f keyvalue"])
def test_a_capture_command_the_shell_could_not_run_is_unknown_whatever_the_shell(tmp_path, answer, command):
    """`ethtool -i` answered in dash's words (`sh: 1: ethtool: not found`), busybox's or zsh's was a SYS002 ("no
    `driver:` line"): the refusal list knew bash's wording only, and `ethtool -a`, `ethtool IF` and `ip -d link` were
    warned about even in bash's. One matcher (Platform.refusal) now decides for every section: not run, so unknown."""
    path = tmp_path / "gpu01.capture"
    path.write_text(GOOD.read_text() + f"#% command: {command.format('ens1f0np0')}\n{answer}\n")
    device = parse_group("gpu01", [path])
    assert [i.message for i in device.issues] == []
    port = device.ports["ens1f0np0"]
    assert (port.nic_driver, port.link_pause, port.max_mtu_bytes) == (None, None, None)


@pytest.mark.parametrize("answer", SHELLS_NOT_FOUND[1:])
def test_mlnx_qos_refused_in_any_shells_words_names_the_dcb_commands(tmp_path, answer):
    """`mlnx_qos -i IF` not installed, in dash's, busybox's or zsh's words, was "output not understood": now, as in
    bash's, the answer is named with the dcb commands that show the same."""
    text = GOOD.read_text()
    start = text.index("#% command: mlnx_qos -i ens1f1np1\n")
    end = text.index("#% command:", start + 1)
    path = tmp_path / "gpu01.capture"
    path.write_text(text[:start] + f"#% command: mlnx_qos -i ens1f1np1\n{answer.replace('ethtool', 'mlnx_qos')}\n"
                    + text[end:])
    said = [i.message for i in parse_group("gpu01", [path]).issues]
    refusal = answer.replace("ethtool", "mlnx_qos")
    assert len(said) == 1 and said[0].startswith(f"`mlnx_qos -i ens1f1np1` answered {refusal!r}"), said
    assert "`dcb pfc show dev ens1f1np1`" in said[0]


# -- dcb app show without -N: DSCP names --------------------------------------------------------------------------
def test_rt_dsfield_site_names_leave_only_their_dscps_unknown(tmp_path):
    """iproute2 dcb_app.c dcb_app_print_key_dscp prints a DSCP as its /etc/iproute2/rt_dsfield name unless -N. The
    RFC names (CS1 = 8: RFC 2474; AF31 = 26: RFC 2597; EF = 46: RFC 3246) are fixed; a site's own ("roce"), or
    iproute2's older ToS names ("lowdelay", 0x10), say nothing of the DSCP. Was: the whole map unknown (SYS002)."""
    path = tmp_path / "h.capture"
    path.write_text(ICE.read_text().replace("dcb -N app", "dcb app").replace(  # (as captures before -N)
        "dscp-prio 0:0 8:0 16:0 26:3 32:0 48:6", "dscp-prio 0:0 CS1:0 lowdelay:0 AF31:3 roce:3 EF:5 CS6:6"))
    device = parse_group("cpu07", [path])
    port = device.ports[IFACE]
    assert port.dscp_to_priority == {0: 0, 8: 0, 26: 3, 46: 5, 48: 6} and port.dscp_to_priority_partial
    assert port.trust is not None and port.trust.value == "dscp"
    named = [(i.code, i.message) for i in device.issues if "dscp-prio" in i.message]
    assert len(named) == 1 and named[0][0] == "SYS004", named
    assert "lowdelay, roce" in named[0][1] and "`dcb -N app show`" in named[0][1]
    # the policy's DSCP 26 shown only by a site name: not "no entry" (an error), but not verified
    path.write_text(path.read_text().replace(" AF31:3 ", " "))
    lossless = [f for f in lint([path]).findings if f.code == "MAP001"]
    assert [f.severity for f in lossless] == [Severity.info], lossless
    assert "DSCP 26's priority on the NIC is not in the input" in lossless[0].message


# -- dcb -j as a bare file ---------------------------------------------------------------------------------------
def test_bare_dcb_json_is_detected_and_refused_with_what_to_do(tmp_path):
    """docs/capture-format.md: `dcb -j` output is read as a capture's section. A bare file of it was "cannot tell which
    platform wrote this file"; now it is told by its keys (iproute2 dcb_pfc.c, dcb_ets.c: pfc_cap, prio_pfc, tc_tsa ...)
    and refused naming what to do, exit 2. A SONiC CONFIG_DB is not taken for it."""
    path = tmp_path / "pfc.json"
    path.write_text('{"pfc_cap":8,"macsec_bypass":false,"delay":0,'
                    '"prio_pfc":[false,false,false,true,false,false,false,false]}\n')
    assert detect(read_input(path)) == "linux_mlx5"
    ran = losslessd("lint", str(path))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "save it in a losslessd capture's section" in ran.stderr and "collect-host-capture.sh" in ran.stderr
    other = tmp_path / "config_db.json"
    other.write_text('{"PORT": {"Ethernet0": {"mtu": "9100"}}, "prio_pfc": [true]}\n')
    assert detect(read_input(other)) != "linux_mlx5"


@pytest.mark.parametrize("obj, warned", [("buffer", False), ("pfc", True)])
def test_a_driver_without_dcb_buffers_is_no_warning(tmp_path, obj, warned):
    """iproute2 dcb/dcb.c __dcb_get_attribute: perror("Attribute not found") where the kernel's reply lacks the object
    (net/dcb/dcbnl.c dcbnl_ieee_fill adds DCB_ATTR_DCB_BUFFER only for a driver with dcbnl_getbuffer: not ice, not
    bnxt_en). `dcb buffer show` so answered was a SYS002 on every such host; the PFC state missing still is one."""
    path = tmp_path / "h.capture"
    path.write_text(capture.write({"device": "h", "platform": "linux_mlx5", "collected": "2026-12-04T12:00:00Z"},
                                  [(f"dcb {obj} show dev {IFACE}", "Attribute not found: Success\n")]))
    device = parse_group("h", [path])
    issues = [i.message for i in device.issues if f"dcb {obj} show" in i.message]
    assert bool(issues) == warned, issues
    # (MAP001 says the driver shows no receive buffers, not that a capture lacks them: common._pg_break)
    assert device.ports[IFACE].nic_buffers_refused == (None if warned else "Attribute not found: Success")
