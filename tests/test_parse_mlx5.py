"""mlx5 host parser: what each fixture says, where each fact came from, and what it cannot read."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from losslessd import api, capture
from losslessd.errors import InputError
from losslessd.fabric import load_fabric
from losslessd.limits import read_text
from losslessd.model import SchedulerType, Trust
from losslessd.parse import detect, mlx5
from losslessd.parse.base import Input
from tests.conftest import FIXTURES, ROOT
from tests.workmeter import instruction_growth, work

RAW = FIXTURES / "raw" / "linux_mlx5"
HEADER = {"device": "gpu09", "platform": "linux_mlx5", "collected": "2024-05-02T09:14:03Z"}


def parse_file(name: str):
    path = RAW / name
    return mlx5.parse([Input(str(path), path.read_text())], path.stem)


def parse_sections(sections, name="t.txt", header=HEADER):
    return mlx5.parse([Input(name, capture.write(header, sections))], "fallback")


def line_at(source) -> str:
    return Path(source.file).read_text().split("\n")[source.line - 1]


def test_good_host_two_interfaces():
    dev = parse_file("gpu01-good.txt")
    assert dev.name == "gpu01" and dev.kind.value == "host" and not dev.issues
    assert list(dev.ports) == ["ens1f0np0", "ens1f1np1"]
    port = dev.ports["ens1f1np1"]
    assert port.qos_configured and port.trust == Trust.dscp and port.pfc_enabled == [3]
    hop = port.dscp_chain(26)
    assert (hop.priority, hop.tc, hop.pg, hop.queue) == (3, 3, 1, 3)
    assert port.dscp_chain(48).tc == 6 and port.queues[6].scheduler.type == SchedulerType.strict
    assert (port.queues[3].scheduler.type, port.queues[3].scheduler.weight) == (SchedulerType.ets, 50)
    assert port.priority_groups[1].size_bytes == 176128 and port.cable_length_m == 7
    assert (port.mtu_bytes, port.speed_gbps) == (9000, 200.0)
    assert all(port.nic_ecn.np_enabled[p] and port.nic_ecn.rp_enabled[p] for p in range(8))
    assert (port.nic_ecn.cnp_dscp, port.nic_ecn.cnp_priority) == (48, 6)
    assert dev.roce_tos == 106


def test_sources_point_at_the_line_the_fact_came_from():
    dev = parse_file("gpu01-good.txt")
    port = dev.ports["ens1f1np1"]
    assert line_at(port.trust_source) == "Priority trust state: dscp"
    assert line_at(port.pfc_source).split() == ["enabled", "0", "0", "0", "1", "0", "0", "0", "0"]
    assert line_at(port.map_source) == "dscp2prio mapping:"
    assert line_at(port.queues[3].source) == "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%"
    assert line_at(port.priority_groups[1].source).startswith("Receive buffer size (bytes): 86016,176128,")
    assert line_at(port.nic_ecn.rp_source).startswith("/sys/class/net/ens1f1np1/ecn/roce_rp/enable/")
    assert line_at(port.nic_ecn.np_source).startswith("/sys/class/net/ens1f1np1/ecn/roce_np/enable/")
    assert line_at(port.source) == "#% command: mlnx_qos -i ens1f1np1"
    assert line_at(dev.roce_tos_source) == "106"


def test_ofed4_layout_vendor_tsa_no_buffers_speed_from_ethtool():
    dev = parse_file("storage07-ofed4.txt")
    assert not dev.issues
    port = dev.ports["eth2"]
    assert port.priority_to_tc == {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert {q.scheduler.type for q in port.queues.values()} == {SchedulerType.vendor}
    assert port.priority_to_pg is None and port.priority_groups == {}
    assert (port.speed_gbps, port.mtu_bytes, port.cable_length_m) == (25.0, 4200, 10.0)
    assert dev.roce_tos == 106 and line_at(dev.roce_tos_source) == "106"


def test_rp_off_on_lossless_priority_and_pfc_on_the_wrong_priority():
    dev = parse_file("gpu03-rp-off-pfc-wrong.txt")
    assert not dev.issues
    port = dev.ports["ens3np0"]
    assert port.pfc_enabled == [4] and port.priority_to_pg[4] == 1 and port.priority_to_pg[3] == 0
    assert port.nic_ecn.rp_enabled[3] is False and port.nic_ecn.np_enabled[3] is True
    assert sum(port.nic_ecn.rp_enabled.values()) == 7
    assert port.priority_groups[0].size_bytes == 130944  # "total_size=" variant of the buffer line


def test_garbled_and_missing_sections_are_issues_and_the_rest_parses():
    dev = parse_file("gpu04-garbled.txt")
    assert {i.code for i in dev.issues} == {"SYS002"}
    messages = [i.message for i in dev.issues]
    # The traceback instead of mlnx_qos output: that interface keeps its sysfs facts.
    [qos_eth0] = [i for i in dev.issues if i.message.startswith("`mlnx_qos -i eth0`")]
    assert "Traceback" in qos_eth0.message and line_at(qos_eth0.source).startswith("Traceback")
    eth0 = dev.ports["eth0"]
    assert eth0.trust is None and eth0.pfc_enabled is None and (eth0.mtu_bytes, eth0.speed_gbps) == (9000, 100.0)
    assert eth0.nic_ecn is None
    assert any(m.startswith("`grep . /sys/class/net/eth0/ecn/roce_rp/enable/*`") and "No such file" in m for m in messages)
    # One truncated PFC row: PFC unknown, everything else of that output kept.
    eth1 = dev.ports["eth1"]
    assert eth1.pfc_enabled is None and eth1.trust == Trust.dscp and eth1.dscp_chain(26).pg == 1
    assert any("'enabled     0   0   0   1   0   0'" in m for m in messages)
    assert 3 not in eth1.nic_ecn.rp_enabled and eth1.nic_ecn.rp_enabled[4] is True
    assert "no `cat /sys/class/net/eth1/speed` section in the capture: port speed unknown" in messages
    assert dev.roce_tos is None and any(m.startswith("`cat /sys/kernel/config/rdma_cm/mlx5_0/") for m in messages)


def test_bare_mlnx_qos_output():
    named = parse_file("gpu05-bare-prompt.txt")
    assert list(named.ports) == ["ens4np0"] and named.name == "gpu05-bare-prompt"
    port = named.ports["ens4np0"]
    assert port.trust == Trust.pcp and port.dscp_to_priority is None and port.pfc_enabled == []
    assert port.queues[7].scheduler.type == SchedulerType.vendor  # "ratelimit: 100.0 Gbps, tsa: vendor"
    [issue] = named.issues
    assert "bare mlnx_qos output" in issue.message and "ens4np0" in issue.message
    assert issue.code == "SYS004"  # everything given was read; the missing sysfs facts are unknown, not unread

    unnamed = parse_file("nic-bare.txt")
    port = unnamed.ports[mlx5.PLACEHOLDER_PORT]
    assert port.dscp_to_priority[30] == 6 and port.dscp_to_priority[48] == 6  # prio:6 spans two lines
    assert port.priority_to_pg == {0: 0, 1: 2, 2: 5, 3: 3, 4: 1, 5: 2, 6: 3, 7: 6}
    assert port.queues[7].scheduler.type is None  # "tsa: unknown"
    assert [i.message for i in unnamed.issues if "eth?" in i.message]


def test_loader_detects_captures_and_bare_outputs(tmp_path):
    for name in ("gpu01-good.txt", "nic-bare.txt"):
        shutil.copy(RAW / name, tmp_path / name)
    fabric = load_fabric([tmp_path])
    assert sorted(fabric.devices) == ["gpu01", "nic-bare"] and not fabric.issues
    assert {d.platform for d in fabric.devices.values()} == {"linux_mlx5"}


def test_sniff_says_no_to_other_formats(corpus):
    for path in sorted(corpus.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".cfg"):
            assert not mlx5.sniff(Input(str(path), path.read_text())), path
    sonic_capture = capture.write({**HEADER, "platform": "sonic"}, [("show runningconfiguration all", "{}\n")])
    assert not mlx5.sniff(Input("s.txt", sonic_capture))


def test_not_a_host_capture_is_an_input_error():
    with pytest.raises(InputError, match="neither a losslessd capture"):
        mlx5.parse([Input("notes.txt", "interface Ethernet1\n   mtu 9214\n")], "x")
    with pytest.raises(InputError, match="for platform 'sonic'") as err:
        parse_sections([], header={**HEADER, "platform": "sonic"})
    assert err.value.file == "t.txt"
    with pytest.raises(InputError) as err:
        mlx5.parse([Input("h.txt", "#% losslessd capture 1\n#% device gpu01\n")], "x")
    assert err.value.line == 2


def test_link_down_duplicate_sections_and_tos_disagreement():
    sections = [
        ("cat /sys/class/net/eth0/speed", "-1\n"),
        ("cat /sys/class/net/eth0/mtu", "1500\n"),
        ("cat /sys/class/net/eth0/mtu", "9000\n"),
        ("cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106\n"),
        ("cma_roce_tos -d mlx5_1", "0\n"),
    ]
    dev = parse_sections(sections)
    port = dev.ports["eth0"]
    assert port.speed_gbps is None and port.mtu_bytes == 9000 and port.source.line == 5
    messages = [i.message for i in dev.issues]
    assert any("speed is -1" in m for m in messages)
    assert any("`cat /sys/class/net/eth0/mtu` appears more than once" in m for m in messages)
    assert dev.roce_tos == 106 and any("mlx5_0=106, mlx5_1=0" in m for m in messages)
    missing = sorted(m for m in messages if m.startswith("no `"))
    assert missing == [f"no `{cmd}` section in the capture: {what} unknown" for cmd, what in sorted([
        ("grep . /sys/class/net/eth0/ecn/roce_np/cnp_dscp /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio",
         "CNP DSCP and priority"),
        ("grep . /sys/class/net/eth0/ecn/roce_np/enable/*", "DCQCN notification point switches"),
        ("grep . /sys/class/net/eth0/ecn/roce_rp/enable/*", "DCQCN reaction point switches"),
        ("mlnx_qos -i eth0", "trust, PFC, DSCP/priority/TC maps, receive buffers and schedulers"),
    ])]


def test_empty_capture_has_no_interface():
    dev = parse_sections([])
    assert dev.name == "gpu09" and not dev.ports
    assert any("no interface to check" in i.message for i in dev.issues)
    assert any("cma_roce_tos unknown" in i.message for i in dev.issues)


@pytest.mark.parametrize("output, mtu", [
    ("2: eth0: <UP> mtu 9000\n    link/ether 0c:42:a1:00:00:01 promiscuity 0 minmtu 68 maxmtu 9978\n", 9978),
    ("maxmtu 9978 addrgenmode eui64\n", 9978),  # at the very start of the output
    ("alias lab_maxmtu 1500 minmtu 68 maxmtu 9978\n", 9978),  # inside another word: not iproute2's field
    ("alias lab_maxmtu 1500\n", None),
    ("minmtu 68 maxmtu 99781234\n", None),  # more digits than a size: no number at all
])
def test_maxmtu_is_the_first_that_starts_a_word(output, mtu):
    """iproute2 `ip -d link show` prints "minmtu N maxmtu N": the first `maxmtu N` that is a word of its own (the
    parser searches without a leading \\b and checks the word start after: what `\\bmaxmtu (\\d{2,7})\\b` finds)."""
    dev = parse_sections([("ip -d link show dev eth0", output)])
    assert dev.ports["eth0"].max_mtu_bytes == mtu
    assert any("no maxmtu" in i.message for i in dev.issues) == (mtu is None)


# -- examples/collect-host-capture.sh, run against a fake sysfs and a stand-in mlnx_qos -------------

def _fake_sysfs(root: Path, iface: str, dev: str, ecn: bool, rp: list[int]) -> None:
    net = root / "class" / "net" / iface
    (net / "device" / "infiniband" / dev).mkdir(parents=True)
    (net / "mtu").write_text("9000\n")
    (net / "speed").write_text("100000\n")
    if ecn:
        for proto, values in (("roce_np", [1] * 8), ("roce_rp", rp)):
            (net / "ecn" / proto / "enable").mkdir(parents=True)
            for prio, value in enumerate(values):
                (net / "ecn" / proto / "enable" / str(prio)).write_text(f"{value}\n")
        (net / "ecn" / "roce_np" / "cnp_dscp").write_text("48\n")
        (net / "ecn" / "roce_np" / "cnp_802p_prio").write_text("6\n")
    tos = root / "kernel" / "config" / "rdma_cm" / dev / "ports" / "1"
    tos.mkdir(parents=True, exist_ok=True)
    (tos / "default_roce_tos").write_text("106\n")


@pytest.mark.slow
def test_collect_script_output_parses(tmp_path):
    sysfs, bin_dir = tmp_path / "sys", tmp_path / "bin"
    _fake_sysfs(sysfs, "ens1f0np0", "mlx5_0", ecn=True, rp=[1, 1, 1, 0, 1, 1, 1, 1])
    _fake_sysfs(sysfs, "ens1f1np1", "mlx5_1", ecn=False, rp=[])
    # Stand-in mlnx_qos: prints a recorded output; for the second port, a first line that looks like a marker.
    recorded = capture.read((RAW / "gpu01-good.txt").read_text()).sections[0].output
    (tmp_path / "qos.txt").write_text(recorded)
    bin_dir.mkdir()
    (bin_dir / "mlnx_qos").write_text(f'#!/bin/sh\n[ "$2" = ens1f1np1 ] && echo "#% not a marker"\ncat "{tmp_path}/qos.txt"\n')
    (bin_dir / "mlnx_qos").chmod(0o755)
    out = tmp_path / "gpu07.txt"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SYSFS_ROOT": str(sysfs), "LC_ALL": "C"}
    script = ROOT / "examples" / "collect-host-capture.sh"
    res = subprocess.run(["sh", str(script), "-n", "gpu07", "-o", str(out), "ens1f0np0", "ens1f1np1"],
                         env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text = out.read_text()
    assert "\n#%|#% not a marker\n" in text

    dev = mlx5.parse([Input(str(out), text)], "fallback")
    assert dev.name == "gpu07" and list(dev.ports) == ["ens1f0np0", "ens1f1np1"] and dev.roce_tos == 106
    good, no_ecn = dev.ports["ens1f0np0"], dev.ports["ens1f1np1"]
    assert good.pfc_enabled == [3] and good.dscp_chain(26).pg == 1 and good.speed_gbps == 100.0
    assert good.nic_ecn.rp_enabled == {0: True, 1: True, 2: True, 3: False, 4: True, 5: True, 6: True, 7: True}
    assert no_ecn.nic_ecn is None and no_ecn.pfc_enabled == [3]
    assert sorted(i.message.split("`")[1] for i in dev.issues) == [
        "grep . " + " ".join(f"{sysfs}/class/net/ens1f1np1/ecn/roce_np/{f}" for f in ("cnp_dscp", "cnp_802p_prio")),
        f"grep . {sysfs}/class/net/ens1f1np1/ecn/roce_np/enable/*",
        f"grep . {sysfs}/class/net/ens1f1np1/ecn/roce_rp/enable/*",
        "mlnx_qos -i ens1f1np1",  # the '#% not a marker' line came back as output
    ]


@pytest.mark.slow
def test_collect_script_runs_dcb_where_mlnx_qos_is_absent(tmp_path):
    """A host without mlnx_qos (Intel ice, Broadcom bnxt_en) but with iproute2's dcb: the script wrote a `mlnx_qos -i
    IF` section saying `not found`, and PFC, ETS and the DSCP map were unknown; now it captures `dcb pfc|ets|app|buffer
    show dev IF` (a stand-in dcb printing the outputs of tests/realworld/linux_mlx5/dcb-show-transcript.txt)."""
    sysfs, bin_dir = tmp_path / "sys", tmp_path / "bin"
    _fake_sysfs(sysfs, "ens5f0", "irdma0", ecn=True, rp=[1] * 8)
    transcript = (Path(__file__).parent / "realworld/linux_mlx5/dcb-show-transcript.txt").read_text()
    bin_dir.mkdir()
    for chunk in transcript.rsplit("root@gpu11:~#", 1)[0].split("root@gpu11:~# ")[1:]:
        command, _, output = chunk.partition("\n")
        (tmp_path / f"{command.split()[1]}.txt").write_text(output)
    (bin_dir / "dcb").write_text(f'#!/bin/sh\n[ "$1" = -N ] && shift\n'  # (app: -N, DSCPs as numbers)
                                 f'[ "$2 $3 $4" = "show dev ens5f0" ] && exec cat "{tmp_path}/$1.txt"\n')
    (bin_dir / "dcb").chmod(0o755)
    out = tmp_path / "gpu11.txt"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SYSFS_ROOT": str(sysfs), "LC_ALL": "C"}
    if shutil.which("mlnx_qos", path=env["PATH"]):
        pytest.skip("mlnx_qos is installed on this machine")
    res = subprocess.run(["sh", str(ROOT / "examples" / "collect-host-capture.sh"), "-n", "gpu11", "-o", str(out),
                          "ens5f0"], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    _, sections = capture.read(read_text(out), str(out))
    assert [s.command for s in sections][:4] == [f"dcb {o} show dev ens5f0" for o in ("pfc", "ets", "-N app",
                                                                                      "buffer")]
    dev = mlx5.parse([Input(str(out), read_text(out))], "fallback")
    port = dev.ports["ens5f0"]
    assert port.pfc_enabled == [3] and port.dscp_chain(26).pg == 1 and port.priority_to_tc[3] == 3
    assert not [i.message for i in dev.issues if "dcb" in i.message or "mlnx_qos" in i.message]


@pytest.mark.slow
def test_collect_script_escapes_a_marker_after_a_carriage_return(tmp_path):
    """A reader takes a carriage return for a line end: an output's `x<CR>#% command: ...` was written as is and read
    back as a section of the output's making."""
    sysfs, bin_dir = tmp_path / "sys", tmp_path / "bin"
    _fake_sysfs(sysfs, "ens1f0np0", "mlx5_0", ecn=True, rp=[1] * 8)
    bin_dir.mkdir()
    (bin_dir / "mlnx_qos").write_text("#!/bin/sh\nprintf 'Priority trust state: dscp\\r#%% command: forged\\r\\n\\n'\n")
    (bin_dir / "mlnx_qos").chmod(0o755)
    out = tmp_path / "gpu07.txt"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SYSFS_ROOT": str(sysfs), "LC_ALL": "C"}
    res = subprocess.run(["sh", str(ROOT / "examples" / "collect-host-capture.sh"), "-n", "gpu07", "-o", str(out),
                          "ens1f0np0"], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    _, sections = capture.read(read_text(out), str(out))
    assert "forged" not in [s.command for s in sections]
    (qos,) = [s for s in sections if s.command == "mlnx_qos -i ens1f0np0"]
    assert qos.output == "Priority trust state: dscp\n#% command: forged\n\n"


@pytest.mark.slow
def test_collect_script_refuses_odd_interface_names(tmp_path):
    script = ROOT / "examples" / "collect-host-capture.sh"
    res = subprocess.run(["sh", str(script), "eth0;reboot"], capture_output=True, text=True,
                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert res.returncode == 2 and "bad interface name" in res.stderr and not res.stdout


@pytest.mark.parametrize("mbps", ["1600001", "2000000", "9999999"])
def test_a_sysfs_speed_faster_than_any_ethernet_is_reported_not_a_crash(mbps):
    # units.speed_gbps refuses more than 1.6 Tb/s (SONiC sonic-port.yang speed range 1..1600000 Mb/s); sysfs speeds
    # past it once raised out of the parser (a traceback) instead of being the capture's issue.
    dev = parse_sections([("cat /sys/class/net/eth0/speed", f"{mbps}\n"), ("cat /sys/class/net/eth0/mtu", "9000\n")])
    assert dev.ports["eth0"].speed_gbps is None and dev.ports["eth0"].mtu_bytes == 9000
    assert f"`cat /sys/class/net/eth0/speed`: no value read ('{mbps}')" in [i.message for i in dev.issues]
    assert parse_sections([("cat /sys/class/net/eth0/speed", "1600000\n")]).ports["eth0"].speed_gbps == 1600.0


def parse_text(name: str, text: str):
    return mlx5.parse([Input(name, text)], "h")


def test_script_shell_syntax_variables_tee_and_sh_c_are_read_as_the_shell_would():
    """A dispatcher hook (case block, NAME=value, `echo V | sudo tee PATH`, `sudo sh -c '...'`) sets what it says;
    an interface named by a variable given a literal value is that port; an RDMA device known only at run time none."""
    host = parse_text("hook.sh", "\n".join([
        "#!/bin/bash", "NIC=ens1f0np0", "DEV=$1", "case \"$IFACE\" in", "  ens1f0np0)",
        "    mlnx_qos -i $NIC --trust dscp --pfc 0,0,0,1,0,0,0,0",
        "    echo 1 | sudo tee /sys/class/net/${NIC}/ecn/roce_np/enable/3 > /dev/null",
        "    echo 1 >> /sys/class/net/$NIC/ecn/roce_rp/enable/3",
        "    sudo sh -c 'echo 48 > /sys/class/net/$NIC/ecn/roce_np/cnp_dscp'",
        "    echo \"configuring $NIC\"", "    cma_roce_tos -d $DEV -t 106", "    sysctl -w net.ipv4.tcp_ecn=1",
        "    ;;", "esac"]))
    port = host.ports["ens1f0np0"]
    assert list(host.ports) == ["ens1f0np0"] and port.pfc_enabled == [3] and port.trust == Trust.dscp
    assert port.nic_ecn.np_enabled == port.nic_ecn.rp_enabled == {3: True} and port.nic_ecn.cnp_dscp == 48
    # DEV=$1: the RDMA device is known only at run time, so no device named `$DEV` holds the host's ToS (it did)
    assert host.roce_tos is None
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS004", None), ("SYS002", 11)]


def test_a_set_x_trace_reads_the_output_and_the_traced_writes():
    trace = "\n".join([
        "+ mlnx_qos -i eth4 --pfc 0,0,0,1,0,0,0,0", "DCBX mode: OS controlled", "Priority trust state: pcp",
        "PFC configuration:", "        priority    0   1   2   3   4   5   6   7",
        "        enabled     0   0   0   1   0   0   0   0", "tc: 3 ratelimit: unlimited, tsa: vendor",
        "         priority:  3",
        "+ sudo sh -c ' echo 106 > /sys/class/infiniband/mlx5_2/tc/1/traffic_class'",
        "+ sudo cma_roce_tos -d mlx5_2 -t 106", "106", "+ sudo sysctl -w net.ipv4.tcp_ecn=1", "net.ipv4.tcp_ecn = 1"])
    host = parse_text("trace.txt", trace)
    assert host.ports["eth4"].pfc_enabled == [3] and (host.roce_tos, host.rdma_traffic_class) == (106, 106)
    assert [i.code for i in host.issues] == ["SYS004"]  # bare output: what it does not show is unknown


def test_commands_on_a_case_pattern_or_after_then_do_and_semicolons_are_read():
    """bash runs `eth0) CMD ;;`, `if C; then CMD; fi`, `for ...; do CMD; done` and `C && CMD`: each CMD is read (the
    line was split on whitespace only: `eth0)` read as the program, `then ...` skipped whole, `F;` as the file)."""
    host = parse_text("hook.sh", "\n".join([
        "#!/bin/bash", "set -e; IF=ens1f0", "case \"$IF\" in",
        "  ens1f0) mlnx_qos -i ens1f0 --trust dscp ;;", "  *) echo unknown ;;", "esac",
        "if [ -d /sys/class/net/$IF ]; then echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/3; fi",
        "for p in 3; do echo 1 >/sys/class/net/ens1f0/ecn/roce_rp/enable/3; done",
        "[ -e /sys/class/net/$IF ] && mlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0 || exit 1",
        "sh -c 'echo 48 > /sys/class/net/ens1f0/ecn/roce_np/cnp_dscp; true'"]))
    port = host.ports["ens1f0"]
    assert port.trust == Trust.dscp and port.pfc_enabled == [3] and port.nic_ecn.cnp_dscp == 48
    assert port.nic_ecn.np_enabled == port.nic_ecn.rp_enabled == {3: True}
    assert [i.code for i in host.issues] == ["SYS004"]  # the blocks, and no line left unread


def test_a_command_whose_output_is_redirected_still_runs():
    """`>/dev/null`, `1>/dev/null`, `&>/dev/null`, `2>&1`, `2>>LOG` leave what a command sets as it is (bash(1)
    REDIRECTION); `echo V > FILE` still writes FILE. Before, each such mlnx_qos call was skipped, and a lone
    `--cable_len` call (one DCB PFC set) left PFC off: a false NIC001 error."""
    host = parse_text("quiet.sh", "\n".join([
        "#!/bin/bash", "mlnx_qos -i eth2 --cable_len 30",
        "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 >/dev/null 2>&1",
        "mlnx_qos -i eth2 --trust dscp 1>/dev/null", "mlnx_qos -i eth2 --prio_tc 0,1,2,3,4,5,6,7 2>>/var/log/qos.err",
        "cma_roce_tos -d mlx5_0 -t 106 &> /dev/null || true",
        "echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp 2>/dev/null",
        "mlnx_qos -i eth2>/dev/null"]))  # (`eth2>`: the word is eth2, not a descriptor)
    port = host.ports["eth2"]
    assert (port.pfc_enabled, port.trust, port.cable_length_m) == ([3], Trust.dscp, 30.0)
    assert port.priority_to_tc == dict(enumerate(range(8))) and port.nic_ecn.cnp_dscp == 48 and host.roce_tos == 106
    assert list(host.ports) == ["eth2"] and host.issues == []


def test_a_for_loop_over_listed_words_or_an_array_runs_its_body_once_per_word():
    """`for p in "${PORTS[@]}"` over `PORTS=(a b)`, `for d in mlx5_0 mlx5_1`, nested loops, one-line loops: each
    port gets what the body sets (before, the body was read once with `$p` and `${p}` as two ports named so)."""
    host = parse_text("loop.sh", "\n".join([
        "#!/bin/bash", "PORTS=(ens1f0np0 'ens1f1np1')", "PRIO=3",
        "for p in \"${PORTS[@]}\"; do", "  mlnx_qos -i \"$p\" --trust dscp",
        "  for x in np rp", "  do", "    echo 1 > /sys/class/net/${p}/ecn/roce_$x/enable/$PRIO", "  done",
        "done", "for p in ens1f1np1; do mlnx_qos -i $p --pfc 0,0,0,1,0,0,0,0; done"]))
    assert list(host.ports) == ["ens1f0np0", "ens1f1np1"] and host.issues == []
    first, second = host.ports.values()
    assert first.trust == second.trust == Trust.dscp and (first.pfc_enabled, second.pfc_enabled) == (None, [3])
    assert first.nic_ecn.np_enabled == first.nic_ecn.rp_enabled == second.nic_ecn.rp_enabled == {3: True}


def test_a_variable_holding_several_words_gives_a_for_loop_each_word():
    host = parse_text("words.sh", "\n".join([
        "#!/bin/bash", "export IFACES=\"ens1f0 ens1f1\" TOS=106", "for i in $IFACES; do",
        "  mlnx_qos -i $i --trust dscp", "done", "cma_roce_tos -d mlx5_0 -t $TOS"]))
    assert [p.trust for p in host.ports.values()] == [Trust.dscp, Trust.dscp] and list(host.ports) == [
        "ens1f0", "ens1f1"]
    assert host.roce_tos == 106 and host.issues == []


@pytest.mark.parametrize("loop", ["for p in $(ls /sys/class/net | grep ens1); do", "for ((i = 0; i < 2; i++)); do"])
def test_a_loop_over_words_known_at_run_time_is_read_once_and_said_so(loop):
    host = parse_text("glob.sh", "\n".join(["#!/bin/bash", loop, "  mlnx_qos -i ens1f0 --trust dscp", "done"]))
    assert host.ports["ens1f0"].trust == Trust.dscp and [i.code for i in host.issues] == ["SYS004"]


def test_loops_that_would_run_millions_of_commands_are_refused_with_the_line():
    words = " ".join(["w"] * 400)  # 400 x 400 runs of the body: more than MAX_SCRIPT_COMMANDS
    text = "\n".join(["#!/bin/bash", f"for a in {words}; do", f"for b in {words}; do", "true", "done", "done",
                      "mlnx_qos -i eth0 --trust dscp"])
    with pytest.raises(InputError) as err:
        parse_text("bomb.sh", text)
    assert err.value.line in (3, 4, 5)
    assert "runs more than 100,000 commands once its for loops and function calls are unrolled" in err.value.message
    # functions that each call the next twice: 2**40 runs of the last one's body, bounded the same way
    text = "\n".join(["#!/bin/bash", *(f"f{k}() {{ f{k + 1}; f{k + 1}; }}" for k in range(40)),
                      "f40() { mlnx_qos -i eth0 --trust dscp; }", "f0"])
    with pytest.raises(InputError) as err:
        parse_text("calls.sh", text)
    assert "runs more than 100,000 commands" in err.value.message



def test_a_loop_no_done_closes_runs_nothing_from_its_header_on():
    """bash(1) reads a compound command whole before running it: a script cut short inside a loop stops with a
    syntax error at its end, so the loop and the commands after it never run (they were read as run: a script cut
    in its loop could read clean). The commands before the loop ran; the loop's header is a SYS002."""
    text = "\n".join(["#!/bin/bash", "mlnx_qos -i eth0 --trust dscp", "for i in eth0 eth1; do",
                      "  mlnx_qos -i $i --pfc 0,0,0,1,0,0,0,0", "  for j in a; do :", "  done",  # (a body: bash)
                      "mlnx_qos -i eth1 --trust dscp"])
    host = parse_text("cut.sh", text)
    assert host.ports["eth0"].trust == Trust.dscp and host.ports["eth0"].pfc_enabled is None
    assert "eth1" not in host.ports
    (issue,) = [i for i in host.issues if "no `done` closes this loop" in i.message]
    assert issue.code == "SYS002" and issue.source.line == 3
    # closed, the same loop is read (once per word)
    host = parse_text("whole.sh", text + "\ndone")
    assert host.ports["eth1"].pfc_enabled == [3] and host.ports["eth1"].trust == Trust.dscp

def test_env_shebang_backslash_continuations_and_the_scripts_own_functions():
    """`#!/usr/bin/env bash` is a shell script (before: SYS001, not read); a command continued over lines ending in
    `\\` is one command (bash(1) QUOTING; before: cut into an unsplittable line and stray options); a call of a function
    the script defines is not a command to read (its body is read where it is written)."""
    text = "\n".join([
        "#!/usr/bin/env bash", "say() { echo \"$*\"; }", "function die {", "  say \"$*\"; exit 1", "}",
        "say start", "mlnx_qos -i eth3 \\", "    --trust dscp \\", "    --pfc 0,0,0,1,0,0,0,0", "die_not_called=1",
        "echo 'a\\\\' > /dev/null", "cma_roce_tos -d mlx5_3 \\", "  -t 106 || die \"no tos\""])
    assert mlx5.sniff(Input("s.sh", text))
    host = parse_text("s.sh", text)
    port = host.ports["eth3"]
    assert (port.trust, port.pfc_enabled, port.pfc_source.line) == (Trust.dscp, [3], 7)
    assert host.roce_tos == 106 and host.issues == []


def test_arrays_over_lines_command_v_arithmetic_and_lookups_are_shell_not_nic_commands():
    """`NAME=(` with its words on the lines below, `command -v X`, `(( ... ))` and programs that only print what
    they read (awk, grep, ibdev2netdev) change nothing on the NIC: before, each was a "not a command" warning, and
    the array's words (`ip`, `mlnx_qos`) were read as commands."""
    host = parse_text("lookups.sh", "\n".join([
        "#!/bin/bash", "PORTS=(", "    ens4f0  # storage A", "    ens4f1", ")", "required=(", "  ip", "  mlnx_qos", ")",
        "command -v mlnx_qos >/dev/null 2>&1 || exit 1", "(( ${#PORTS[@]} > 0 )) || exit 1",
        "dev=$(ibdev2netdev | awk '$5 == \"ens4f0\" {print $1}')", "ibdev2netdev | grep ens4",
        "for p in \"${PORTS[@]}\"; do command mlnx_qos -i $p --trust dscp; done"]))
    assert list(host.ports) == ["ens4f0", "ens4f1"] and all(p.trust == Trust.dscp for p in host.ports.values())
    assert host.issues == []


def test_here_documents_are_input_not_commands_unless_a_shell_reads_them():
    """bash(1) Here Documents: the body up to the delimiter line is the input of its command. A usage text under
    `: <<'EOF'` and a script written with `cat > FILE <<EOF` are not commands of this script (before: each body line
    was read, so a written rollback script's `--pfc 0,...` turned PFC off); `bash <<EOF` runs its body, which is read
    in its place; `<<-` strips the tabs before the delimiter; `<<<` (a here-string) and a quoted `<<` open none."""
    host = parse_text("h.sh", "\n".join([
        "#!/bin/bash", ": <<'USAGE'", "  mlnx_qos -i eth2 --trust pcp", "USAGE",
        "mlnx_qos -i eth2 --trust dscp --pfc 0,0,0,1,0,0,0,0",
        "sudo bash <<EOF", "cma_roce_tos -d mlx5_2 -t 106", "EOF",
        "cat > /root/off.sh <<\"OFF\"", "mlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0", "OFF",
        "cat <<-UNIT >> /etc/x.service", "\t[Unit]", "\tUNIT",
        "grep -q dscp <<< \"$(mlnx_qos -i eth2)\"", "echo \"see << below\" > /dev/null",
        "while read -r l; do echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3; done",
        "declare -A P=(", "  [roce]=3", ")", "for p in \"${P[@]}\"; do [ -n \"$p\" ] || continue; done",
        "TC=$((26 << 2))", "(( TC <<= 0 ))", "echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp"]))
    port = host.ports["eth2"]
    assert (port.trust, port.pfc_enabled, host.roce_tos) == (Trust.dscp, [3], 106)
    assert port.nic_ecn.cnp_dscp == 48  # read after the arithmetic shifts (`<<` there opens no here-document)
    warned = [i for i in host.issues if i.code == "SYS002"]
    assert [(i.source.line, i.message.split(":")[0]) for i in warned] == [
        (9, "skipped `cat > /root/off.sh <<\"OFF\"`"), (12, "skipped `cat <<-UNIT >> /etc/x.service`")]
    assert "writes the here-document below it to /root/off.sh" in warned[0].message
    assert [i.code for i in host.issues if i.code != "SYS002"] == ["SYS004"]  # the while loop
    # an unterminated here-document runs to the end of the file (bash warns and takes it all)
    host = parse_text("u.sh", "#!/bin/bash\nmlnx_qos -i eth2 --trust dscp\ncat <<EOF > /tmp/x\n"
                              "mlnx_qos -i eth2 --trust pcp")
    assert host.ports["eth2"].trust == Trust.dscp and len(host.issues) == 1


def test_a_shell_on_a_quoted_here_document_knows_only_the_exported_variables():
    """bash(1) ENVIRONMENT: a child shell gets the exported variables only, and with a quoted end word (`<<'EOF'`) its
    `$IF` is its own to expand (unquoted, the script expands it first). Before, the body was read with the script's
    variables, so `IF=eth1` named eth1 there (bash: an empty word); now `$IF` is named as known only at run time, and
    the script's own IF stands again after the end line."""
    lines = ["#!/bin/bash", "IF=eth1", "export NIC=eth2", "mlnx_qos -i eth1 --trust dscp", "bash <<'EOF'",
             "mlnx_qos -i $IF --trust pcp", "mlnx_qos -i $NIC --trust pcp", "EOF",
             "mlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0", "sh <<EOF", "mlnx_qos -i $IF --prio_tc 0,0,0,1,0,0,0,0", "EOF"]
    host = parse_text("h.sh", "\n".join(lines) + "\n")
    eth1, eth2 = host.ports["eth1"], host.ports["eth2"]
    assert (eth1.trust, eth1.pfc_enabled, eth1.priority_to_tc[3], eth2.trust) == (None, [3], 1, Trust.pcp)
    (issue,) = host.issues
    assert (issue.source.line, "`$IF` is known only at run time" in issue.message) == (6, True), issue.message


def test_one_dscp2prio_entry_set_by_a_script_leaves_the_rest_of_the_map_unknown(tmp_path):
    # mlnx_qos --dscp2prio set,D,P changes one DSCP's priority; the others keep what the NIC had, which a script
    # does not show. The one entry was read as the whole map: DSCP 26 "had no entry", a false MAP001 error.
    text = ("#!/bin/bash\nmlnx_qos -i eth2 --trust dscp\nmlnx_qos -i eth2 --dscp2prio set,48,6\n"
            "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0\n")
    port = mlx5.parse([Input("setup.sh", text)], "h1").ports["eth2"]
    assert port.dscp_to_priority == {48: 6} and port.dscp_to_priority_partial
    (tmp_path / "setup.sh").write_text(text)
    found = [f for f in api.lint([tmp_path / "setup.sh"], "roce-dscp26").findings if f.code == "MAP001"]
    assert [(f.severity.value, "not in the input" in f.message) for f in found] == [("info", True)]
    shown = mlx5.parse([Input("q.txt", text.replace("set,48,6", "set,26,3"))], "h1").ports["eth2"]
    assert shown.dscp_to_priority == {26: 3} and shown.dscp_to_priority_partial  # the policy DSCP itself is read


LLDPTOOL = """#!/bin/bash
mlnx_qos -i ens1f0 --trust dscp --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,1,2,3,4,5,6,7
lldptool set-lldp -i ens1f0 adminStatus=rxtx
lldptool -T -i ens1f0 -V sysName enableTx=yes
lldptool -t -i ens1f0 -V PFC
lldptool -T -i ens1f0 -V PFC enableTx=yes
lldptool -T -i ens1f0 -V APP app=3,1,35093
lldptool -T -i ens1f0 -V PFC willing=no enabled=3
lldptool -T -i ens1f0 -V ETS-CFG up2tc=0:0,1:1,2:2,3:3,4:4,5:5,6:6,7:7
lldptool -T -i ens1f0 -V APP app=3,5,26
"""


def test_lldptool_dcb_settings_are_named_and_make_what_they_set_unknown():
    """lldptool-pfc(8)/-ets(8)/-app(8): lldpad applies its DCBX configuration only while it runs with the NIC's DCBX
    under the host's control, and a willing port takes its peer's: the script cannot say what the NIC runs."""
    dev = mlx5.parse([Input("setup.sh", LLDPTOOL)], "h1")
    port = dev.ports["ens1f0"]
    # mlnx_qos set them; the lldptool lines after it leave them unknown
    assert port.pfc_enabled is None and port.priority_to_tc is None
    assert port.dscp_to_priority is None and port.trust is None
    named = {i.source.line: i.message for i in dev.issues if i.code == "SYS002"}
    # the LLDP TLVs a host advertises, queries, enableTx alone and an EtherType APP entry set nothing the NIC runs
    assert sorted(named) == [8, 9, 10]
    assert "PFC priorities" in named[8] and "priority->TC map" in named[9] and "trust" in named[10]


def test_lldptool_before_mlnx_qos_leaves_mlnx_qos_s_values():
    dev = mlx5.parse([Input("setup.sh", "#!/bin/sh\nlldptool -T -i ens1f0 -V PFC enabled=3\n"
                                        "mlnx_qos -i ens1f0 --pfc 0,0,0,1,0,0,0,0\n")], "h1")
    assert dev.ports["ens1f0"].pfc_enabled == [3]
    assert [i.source.line for i in dev.issues if i.code == "SYS002"] == [2]


def _host(text: str):
    return mlx5.parse([Input("setup.sh", "#!/bin/bash\n" + text)], "h1")


def test_dcb_pfc_and_app_set_pfc_map_and_trust():
    """dcb-pfc(8), dcb-app(8); mlx5 en/dcbnl.c mlx5e_dcbnl_ieee_setapp: a first DSCP entry makes the port trust DSCP."""
    dev = _host("dcb app add dev ens6 dscp-prio 26:3 AF41:4 2>/dev/null\n"
                "dcb pfc set dev ens6 prio-pfc all:off 3:on\n"
                "dcb ets set dev ens6 prio-tc all:0 3:3 tc-tsa all:ets 6:strict tc-bw 0:40 3:60\n")
    port = dev.ports["ens6"]
    assert port.pfc_enabled == [3] and port.pfc_source.line == 3
    assert port.trust == Trust.dscp and port.dscp_to_priority == {26: 3, 34: 4} and port.dscp_to_priority_partial
    assert port.priority_to_tc == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}
    assert port.queues[6].scheduler.type == SchedulerType.strict
    assert (port.queues[3].scheduler.type, port.queues[3].scheduler.weight) == (SchedulerType.ets, 60)
    assert not [i for i in dev.issues if i.code in ("SYS002", "SYS004")]


def test_dcb_options_before_the_object_are_stepped_over_namespace_and_all():
    """dcb(8): `-n NETNS` takes a value, `-s`/`-j`/`-p`/`-N` none: the object and command follow them. A `-n` line was
    refused as "'ns1' is not a dcb option" and the earlier PFC stood; on a port known only at run time it was read as
    setting nothing."""
    dev = _host("dcb pfc set dev ens6 prio-pfc all:off 3:on\ndcb -n ns1 -s pfc set dev ens6 prio-pfc all:off 4:on\n")
    assert dev.ports["ens6"].pfc_enabled == [4] and dev.ports["ens6"].pfc_source.line == 3
    dev = _host("dcb pfc set dev ens6 prio-pfc all:off 3:on\nIF=$1\ndcb -n ns1 pfc set dev $IF prio-pfc all:off\n")
    assert dev.ports["ens6"].pfc_enabled is None
    assert any("`$1` is known only at run time" in i.message and i.source.line == 4 for i in dev.issues)


def test_lldptool_on_a_port_known_only_at_run_time_sets_no_port_named_after_the_variable():
    """`lldptool -T -i $IF ...` with IF=$1: the port is unknown, so what the line may change is unknown on each port
    read so far, and no port named `$IF` is made (one was, and ens1f0's earlier PFC stood as known)."""
    dev = _host("mlnx_qos -i ens1f0 --pfc 0,0,0,1,0,0,0,0\nIF=$1\nlldptool -T -i $IF -V PFC enabled=3\n")
    assert set(dev.ports) == {"ens1f0"} and dev.ports["ens1f0"].pfc_enabled is None
    assert any("known only at run time" in i.message and i.source.line == 4 for i in dev.issues)


def test_dcb_arrays_change_only_the_keys_named():
    """dcb(8) ARRAY PARAMETERS; dcb-pfc(8): `prio-pfc 6:on 7:on` enables 6 and 7 "leaving the rest intact"."""
    dev = _host("mlnx_qos -i ens6 --pfc 0,0,0,1,0,0,0,0\n"
                "dcb pfc set dev ens6 prio-pfc 4:on\n"
                "dcb pfc set dev ens7 prio-pfc 3:on\n"
                "dcb -s pfc show dev ens7\n")
    assert dev.ports["ens6"].pfc_enabled == [3, 4]
    assert dev.ports["ens7"].pfc_enabled is None  # the other seven keep what the script does not show
    assert [(i.code, i.source.line) for i in dev.issues if i.code in ("SYS002", "SYS004")] == [("SYS004", 4)]


# dcb-app(8), dcb-buffer(8), dcb-dcbx(8), dcb-ets(8), dcb-maxrate(8) and dcb-pfc(8) EXAMPLES (iproute2 6.1), as a script
# writes them (a path, sudo, dcb's -n NETNS, an interface variable); lldptool's DCBX settings (lldptool-pfc(8),
# lldptool-ets(8), lldptool-app(8) with a DSCP entry, selector 5; lldptool-dcbx(8)).
@pytest.mark.parametrize("command", [
    "dcb app add dev eth0 dscp-prio 0:0 24:3 48:6",
    "dcb app replace dev eth0 dscp-prio 24:4",
    "dcb app flush dev eth0 dscp-prio",
    "dcb buffer set dev eth0 prio-buffer 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7",
    "dcb dcbx set dev eth0 host ieee",
    "dcb ets set dev eth0 prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7",
    "dcb maxrate set dev eth0 tc-maxrate all:25Gbit 6:100Gbit",
    "dcb pfc set dev eth0 prio-pfc all:off 6:on 7:on delay 0x1000",
    "sudo /usr/sbin/dcb -n rdma0 pfc set dev $IF prio-pfc 3:on",
    "  dcb pfc set dev eth2 prio-pfc 3:on 2>/dev/null || true",
    "lldptool -T -i eth2 -V PFC enabled=3",
    "lldptool set-tlv -i eth2 -V ETS-CFG up2tc=0:0,1:1,2:2,3:3,4:4,5:5,6:6,7:7",
    "lldptool -T -i eth2 -V APP app=3,5,26",
    "sudo lldptool -i $IF -T -V IEEE-DCBX mode=reset",
])
def test_a_script_setting_dcb_with_dcb_or_lldptool_alone_is_a_host_script(command):
    """A shell script whose only NIC commands are iproute2 dcb or lldptool DCB settings is a host setup script (before:
    only one running `mlnx_qos -i IF` was, and these were SYS001 "cannot tell which platform" without --format)."""
    assert detect(Input("setup.sh", f"#!/bin/sh\nset -e\n{command}\n")) == "linux_mlx5"


# An ifupdown / networkd-dispatcher hook giving RoCE its TOS alone, as a DCBX-negotiated host needs no mlnx_qos call
# (MLNX_OFED user manual, "RDMA over Converged Ethernet": the RDMA device's tc/1/traffic_class, cma_roce_tos -d DEV -t
# TOS; "Explicit Congestion Notification": /sys/class/net/IF/ecn/roce_np|roce_rp/).
_TOS_HOOK = ('case "$IFACE" in\n    ens1f0)\n        echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n'
             '        cma_roce_tos -d mlx5_0 -t 106\n        sysctl -w net.ipv4.tcp_ecn=1\n        ;;\nesac\n')


@pytest.mark.parametrize("text", [
    f"#!/bin/bash\n{_TOS_HOOK}",
    "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\nsudo cma_roce_tos -d mlx5_0 -t 106\n",  # (no #!)
    "#!/bin/sh\necho 1 | sudo tee /sys/class/net/ens1f0/ecn/roce_np/enable/3\n",
])
def test_a_host_script_setting_only_the_roce_tos_or_dcqcn_is_a_host_script(text):
    """A host's boot hook that sets RoCE's TOS (or its DCQCN switches) and no DCB is a host script (before: SYS001
    "cannot tell which platform wrote this file" without --format, though its TOS reads as set)."""
    assert detect(Input("mlnx-roce-qos", text)) == "linux_mlx5"
    if "106" in text:
        host = parse_text("mlnx-roce-qos", text)
        assert (host.roce_tos, host.rdma_traffic_class) == (106, 106)


@pytest.mark.parametrize("text", [
    "dcb pfc set dev eth2 prio-pfc 3:on\n",  # no #!: not a script
    "#!/bin/sh\ndcb pfc show dev eth0\ndcb -N app show dev eth0 dscp-prio\ndcb -j ets show dev eth0\n",
    "#!/bin/sh\n# dcb pfc set dev eth0 prio-pfc 3:on\necho 'run: dcb pfc set dev eth0 prio-pfc 3:on'\n",
    "#!/bin/sh\ndcb pfc set prio-pfc 3:on\n",  # no port named
    "#!/bin/bash\nlldptool -t -i eth2 -V PFC\nlldptool set-lldp -i eth2 adminStatus=rxtx\n"
    "lldptool -T -i eth2 -V sysName enableTx=yes\nlldptool -T -i eth2 -V PFC enableTx=yes\n"
    "lldptool -T -i eth2 -V APP app=3,1,35093\nlldptool -T -V PFC enabled=3\n",
    "#!/bin/bash\nip link set dev eth2 mtu 9000\ntc qdisc add dev eth2 root mqprio num_tc 8\n",
])
def test_scripts_that_set_no_dcb_are_not_taken_for_host_scripts(text):
    """Shows, queries, comments, echoes, LLDP's own settings, an EtherType APP entry and other tools set no NIC DCB."""
    assert not mlx5.sniff(Input("s.sh", text)) and detect(Input("s.sh", text)) != "linux_mlx5"


def test_the_systems_own_shell_scripts_are_not_taken_for_host_scripts():
    """False-positive check over real scripts: those under /usr/bin, /usr/sbin and /etc set no NIC DCB (measured when
    this was written: 442 shell scripts under /usr/bin, /usr/sbin, /usr/lib, /usr/share and /etc, none taken)."""
    seen, taken = 0, []
    for root in ("/usr/bin", "/usr/sbin", "/etc"):
        for folder, _, names in os.walk(root):
            for name in names:
                path = Path(folder, name)
                try:
                    if path.is_symlink() or not path.is_file() or path.stat().st_size > 1_000_000:
                        continue
                    with path.open("rb") as f:
                        if f.read(2) != b"#!":
                            continue
                    text = path.read_text(errors="replace")
                except OSError:
                    continue
                seen += 1
                if mlx5.sniff(Input(str(path), text)):
                    taken.append(str(path))
    if not seen:
        pytest.skip("no shell scripts on this system")
    assert taken == []


@pytest.mark.parametrize("command,why", [
    ("dcb app add dev ens6 ethtype-prio 0x8915:3", "refused by mlx5"),
    ("dcb pfc set dev ens6 prio-pfc 9:on", "not a key 0-7"),
    ("dcb maxrate set dev ens6 tc-maxrate 3:10G", "is not read"),
    ("dcb pfc set prio-pfc 3:on", "no interface"),
])
def test_dcb_commands_not_read_are_named(command, why):
    dev = _host(command + "\n")
    issues = [i.message for i in dev.issues if i.code == "SYS002" and i.source.line == 2]
    assert len(issues) == 1 and why in issues[0], issues


def test_dcb_apptrust_and_rewr_change_nothing_on_mlx5():
    """dcb-apptrust(8) `dcb apptrust set dev eth0 order dscp pcp`, dcb-rewr(8) `dcb rewr add dev eth0 prio-dscp 3:26`:
    the kernel refuses an apptrust order a driver has no dcbnl_setapptrust for, and keeps rewrite entries in its own
    table when the driver has no dcbnl_setrewr (net/dcb/dcbnl.c dcbnl_ieee_set); mlx5e_dcbnl_ops has neither. So the
    port's trust stays as it was (here pcp, from mlnx_qos) and a SYS002 says why; before, both were "not read" alike."""
    dev = _host("mlnx_qos -i ens6 --trust pcp\ndcb apptrust set dev ens6 order dscp pcp\n"
                "dcb rewr add dev ens6 prio-dscp 3:26 prio-pcp 3:3\ndcb rewr flush dev ens6\n"
                "dcb apptrust set dev ens6 order dscp banana\ndcb rewr show dev ens6\n")
    assert dev.ports["ens6"].trust == Trust.pcp and dev.ports["ens6"].trust_source.line == 2
    named = {i.source.line: i.message for i in dev.issues if i.code == "SYS002"}
    assert sorted(named) == [3, 4, 5, 6]
    assert "mlx5 has no application trust order" in named[3] and "trust stays as it was" in named[3]
    assert "mlx5 does not rewrite by this table" in named[4] and "mlx5 does not rewrite" in named[5]
    assert "dcb-apptrust(8)" in named[6]  # (an unknown selector: dcb itself refuses it)


def test_dcb_dcbx_host_keeps_the_host_s_settings_and_no_keyword_hands_them_to_the_peer():
    """dcb-dcbx(8) `dcb dcbx set dev DEV [host] [lld-managed] [cee] [ieee] [static]`, keywords not named are off.
    mlx5e_dcbnl_setdcbx (en_dcbnl.c): lld-managed refused; no keyword: the firmware runs DCBX, willing (so the peer's
    PFC, ETS and application settings replace the host's); a mode without host refused; host: the host's stand."""
    base = "mlnx_qos -i ens6 --trust dscp --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,0,0,3,0,0,0,0\n"
    for keep in ("dcb dcbx set dev ens6 host ieee", "dcb dcbx set dev ens6 lld-managed", "dcb dcbx set dev ens6 cee"):
        dev = _host(base + keep + "\n")
        port = dev.ports["ens6"]
        assert (port.trust, port.pfc_enabled, port.priority_to_tc[3]) == (Trust.dscp, [3], 3), keep
        refused = [i.message for i in dev.issues if i.code == "SYS002"]
        assert refused == [] if "host" in keep else ("mlx5 refuses this DCBX mode" in refused[0]), keep
    dev = _host(base + "dcb dcbx set dev ens6\n")
    port = dev.ports["ens6"]
    assert port.trust is None and port.pfc_enabled is None and port.priority_to_tc is None
    assert port.dscp_to_priority is None and port.pfc_source.line == 3
    assert [i.source.line for i in dev.issues if i.code == "SYS002"] == [3]
    assert "hands the port's DCBX to the NIC's firmware" in dev.issues[0].message
    dev = _host(base + "IF=$1\ndcb dcbx set dev $IF\n")  # (a port known only at run time: any read so far)
    assert dev.ports["ens6"].pfc_enabled is None and set(dev.ports) == {"ens6"}


def test_mlnx_qos_dcbx_fw_hands_dcbx_to_the_firmware():
    """mlnx_qos -d/--dcbx: "set dcbx mode to firmware controlled(fw) or OS controlled(os)" (mlnx-tools mlnx_qos): under
    the firmware a willing port takes its peer's settings; before, the option was dropped without a word."""
    dev = _host("mlnx_qos -i ens6 --trust dscp --pfc 0,0,0,1,0,0,0,0\nmlnx_qos -i ens6 --dcbx fw\n"
                "mlnx_qos -i ens7 --dcbx os --pfc 0,0,0,1,0,0,0,0\nmlnx_qos -i ens7 --dcbx=auto\n")
    assert dev.ports["ens6"].pfc_enabled is None and dev.ports["ens6"].trust is None
    assert dev.ports["ens7"].pfc_enabled == [3]
    named = {i.source.line: i.message for i in dev.issues if i.code == "SYS002"}
    assert sorted(named) == [3, 5] and "--dcbx fw hands ens6's DCBX" in named[3] and "neither fw nor os" in named[5]


def test_cma_roce_tos_on_a_device_known_only_at_run_time_sets_none_and_leaves_those_it_may_name_unknown():
    """cma_roce_tos -d DEV -t TOS (mlnx-tools sbin/cma_roce_tos) with DEV known only at run time: before, a device named
    `$DEV` was recorded and its ToS stood for the host's while mlx5_0's earlier value stood too."""
    dev = _host("mlnx_qos -i ens6 --trust dscp\ncma_roce_tos -d mlx5_0 -t 106\nDEV=$1\ncma_roce_tos -d $DEV -t 96\n")
    assert dev.roce_tos is None
    named = [i.message for i in dev.issues if i.code == "SYS002"]
    assert len(named) == 1 and "its RDMA device `$1` is known only at run time" in named[0]
    assert "(96) is unknown on each device it may name (mlx5_0)" in named[0]
    # a name with a run-time part reaches only the devices it may be
    dev = _host("mlnx_qos -i ens6 --trust dscp\ncma_roce_tos -d roce0 -t 106\ncma_roce_tos -d mlx5_0 -t 106\n"
                "cma_roce_tos -d mlx5_$N -t 96\n")
    assert dev.roce_tos == 106 and "(mlx5_0)" in dev.issues[0].message
    # a loop over the devices the host has: each of them (and the one named through an interface) may be one
    dev = _host('mlnx_qos -i ens6 --trust dscp\ncma_roce_tos -d "$(ls /sys/class/net/ens6/device/infiniband)" -t 106\n'
                "for d in $(ls /sys/class/infiniband); do cma_roce_tos -d $d -t $TOS; done\n")
    assert dev.roce_tos is None
    assert any("a value known only at run time" in i.message and "the RDMA device of ens6" in i.message
               for i in dev.issues)
    # one that sets nothing (no -t, or one out of 0-255) is skipped as on a named device: the ToS read stands
    for line in ("cma_roce_tos -d $1", "cma_roce_tos -d $1 -t 400"):
        dev = _host(f"mlnx_qos -i ens6 --trust dscp\ncma_roce_tos -d mlx5_0 -t 106\n{line}\n")
        assert dev.roce_tos == 106 and "only `cma_roce_tos -d DEV -t TOS`" in dev.issues[0].message


def test_lldptool_glued_or_in_a_function_on_a_run_time_port_forgets_what_it_may_change():
    dev = _host("mlnx_qos -i ens6 --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,0,0,3,0,0,0,0\n"
                'cfg() { lldptool -T -i "$1" -V PFC enabled=3; }\nfor i in $(ls /sys/class/net); do cfg $i; done\n'
                "lldptool set-tlv -i${NIC} -V ETS-CFG up2tc=0:0\n")
    assert set(dev.ports) == {"ens6"}
    assert dev.ports["ens6"].pfc_enabled is None and dev.ports["ens6"].priority_to_tc is None


def test_a_script_setting_a_switch_asic_s_shared_buffer_is_refused_as_a_linux_switch_s():
    """devlink-sb(8) `devlink sb pool set DEV pool N size S thtype T`, `sb port pool set`, `sb tc bind set`: a shared
    buffer a switch ASIC has (mlxsw, Spectrum switchdev); mlx5's devlink ops (mlx5/core/devlink.c) offer none. Such a
    script sets up a Linux switch, whose swp ports were read as host NICs (their host-only checks infos and SYS002):
    a clear input error now, naming the line. Showing the buffer (`devlink sb show`) is not setting it."""
    text = ("#!/bin/bash\nmlnx_qos -i swp3 --pfc=0,1,0,0,0,0,0,0\n"
            "devlink sb pool set pci/0000:03:00.0 pool 2 size 1000000 thtype static\n")
    with pytest.raises(InputError) as err:
        mlx5.parse([Input("sw.sh", text)], "sw")
    assert err.value.line == 3 and "sets up a Linux switch (mlxsw" in str(err.value)
    dev = _host("mlnx_qos -i ens6 --pfc 0,0,0,1,0,0,0,0\ndevlink sb show\ndevlink dev show\n")
    assert dev.ports["ens6"].pfc_enabled == [3]


def test_host_steps_without_a_shebang_are_read_as_the_shell_runs_them():
    """A guide's steps, one command a line with no `#!` line (bash(1): a file given to the shell without one is read
    as commands): read as a script (before: refused, SYS001 even with --format mlx5). A file whose lines are not all
    such steps (a switch's `nv set` lines beside them, an output line) is not taken for one."""
    text = ("# host steps\nsudo mlnx_qos -i ens1f0 --trust dscp\nsudo mlnx_qos -i ens1f0 --pfc 0,0,0,1,0,0,0,0\n"
            "echo 106 | sudo tee /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"
            "sudo mlnx_qos -i ens1f0 \\\n    --prio_tc 0,0,0,3,0,0,0,0\nIF=ens1f0\nsysctl -w net.ipv4.tcp_ecn=1\n")
    assert mlx5.sniff(Input("steps.txt", text)) and detect(Input("steps.txt", text)) == "linux_mlx5"
    host = parse_text("steps.txt", text)
    port = host.ports["ens1f0"]
    assert (port.trust, port.pfc_enabled, port.priority_to_tc[3]) == (Trust.dscp, [3], 3)
    assert [i.code for i in host.issues] == ["SYS004"] and "without a `#!` line" in host.issues[0].message
    for other in ("nv set qos roce mode lossless\nsudo mlnx_qos -i ens1f0 --trust dscp\n",
                  "mlnx_qos -i ens1f0 --trust dscp\nPriority trust state: dscp\n",
                  "interface Ethernet1\nmlnx_qos -i ens1f0 --trust dscp\n"):
        assert not mlx5.sniff(Input("doc.txt", other)), other
        with pytest.raises(InputError, match="neither a losslessd capture"):
            parse_text("doc.txt", other)


def test_an_option_mlnx_qos_does_not_take_sets_nothing_and_a_prefix_is_its_option():
    """mlnx_qos parses its options with optparse (mlnx-tools python/mlnx_qos): an option it does not define
    (`--tc_bw`, `--up2tc`, as guides misspell --tcbw and --prio_tc) ends the call before anything is set; an
    unambiguous prefix of a long option is that option (`--cable 30` is --cable_len), an ambiguous one (`--prio`:
    --prio_tc or --prio2buffer) is refused; `-a` takes no value. Before, unknown options were dropped without a word
    and the rest of the call read."""
    host = parse_text("o.sh", "#!/bin/bash\nmlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0\n"
                      "mlnx_qos -i eth2 --tc_bw 50,0,0,50,0,0,0,0 --pfc 1,1,1,1,1,1,1,1\n"
                      "mlnx_qos -i eth2 --up2tc 0,0,0,3,0,0,0,0\nmlnx_qos -i eth2 --prio 0,0,0,3,0,0,0,0\n"
                      "mlnx_qos -a -i eth2 --cable 30 --pfc=0,0,0,1,0,0,0,0\n")
    port = host.ports["eth2"]
    assert (port.pfc_enabled, port.priority_to_tc, port.cable_length_m) == ([3], None, 30.0)
    skipped = sorted((i.source.line, i.message.split(": ", 1)[1]) for i in host.issues if i.code == "SYS002")
    assert skipped == [(3, "mlnx_qos takes no option --tc_bw: mlnx_qos refuses the whole call, so it sets nothing"),
                       (4, "mlnx_qos takes no option --up2tc: mlnx_qos refuses the whole call, so it sets nothing"),
                       (5, "--prio is ambiguous (--prio_tc, --prio2buffer): mlnx_qos refuses the whole call, so it "
                           "sets nothing")]


def test_a_prompt_with_nothing_typed_after_it_ends_the_output_above_it():
    """A transcript shows Enter pressed at a prompt (`root@host:~# `, `[root@host ~]# `, `user@host:~$`): no command,
    the end of the output above (before: a SYS002 "1 line(s) not understood and skipped" inside that output). A line
    of output is not taken for one."""
    text = ("root@h:~# mlnx_qos -i eth2\nDCBX mode: OS controlled\nPriority trust state: pcp\nCable len: 7\n"
            "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
            "\tenabled     0   0   0   1   0   0   0   0\n"
            "tc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  0\nroot@h:~# \n[root@h ~]# \nuser@h:~$\n")
    host = parse_text("t.txt", text)
    assert host.ports["eth2"].pfc_enabled == [3] and host.ports["eth2"].trust == Trust.pcp
    assert [i.code for i in host.issues] == ["SYS004"]
    assert not mlx5._EMPTY_PROMPT.match("\tenabled     0   0") and not mlx5._EMPTY_PROMPT.match("# comment")


@pytest.mark.parametrize("text", [
    # a line that is no command the reader takes: prose, a command's output, another program
    "Run these on each GPU node:\nsudo mlnx_qos -i ens1f0 --trust dscp\n",
    "sudo mlnx_qos -i ens1f0 --trust dscp\nPriority trust state: dscp\n",
    "sudo mlnx_qos -i ens1f0 --trust dscp\nsudo systemctl restart openibd\n",
    # commands the reader takes, but no mlnx_qos -i: not told from any other host's list
    "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3\nip link set dev eth0 mtu 9000\n",
    # mlnx_qos named without its interface (a help line)
    "mlnx_qos --help\n",
])
def test_a_text_that_is_not_only_host_steps_is_not_taken_for_them(text):
    assert detect(Input("notes.txt", text)) is None


APPTRUST = "dcb apptrust set dev ens6 order dscp"  # (mlx5: the kernel refuses it, EOPNOTSUPP)
PFC_AFTER = "mlnx_qos -i ens6 --pfc 0,0,0,1,0,0,0,0"


@pytest.mark.parametrize("head,ends", [
    ("#!/bin/bash\nset -e\n", True),
    ("#!/bin/bash\nset -euo pipefail\n", True),
    ("#!/bin/bash\nset -o errexit\n", True),
    ("#!/bin/bash -e\n", True),
    ("#!/bin/sh -eu\n", True),
    ("#!/bin/bash\nset -e\nset +e\n", False),  # off again
    ("#!/bin/bash\nset -e\nset +o errexit\n", False),
    ("#!/bin/bash\nset -o pipefail\n", False),  # another option only
    ("#!/bin/bash\n", False),
])
def test_set_e_ends_the_script_at_a_command_mlx5_refuses(head, ends):
    """bash(1) `set -e`: a command that fails ends the script. `dcb apptrust set` fails on mlx5 (its dcbnl ops have no
    dcbnl_setapptrust: net/dcb/dcbnl.c answers EOPNOTSUPP), so under set -e the script's mlnx_qos after it never runs:
    it was read as setting PFC. The reading ends there (a SYS004 naming the line), as at an exit."""
    text = head + "mlnx_qos -i ens6 --trust dscp\n" + APPTRUST + "\n" + PFC_AFTER + "\n"
    dev = mlx5.parse([Input("e.sh", text)], "h")
    line = text.split("\n").index(APPTRUST) + 1
    ended = [i for i in dev.issues if i.code == "SYS004" and "the script ends here" in i.message]
    assert dev.ports["ens6"].trust == Trust.dscp
    if ends:
        assert dev.ports["ens6"].pfc_enabled is None
        assert [i.source.line for i in ended] == [line] and "`set -e` is in force" in ended[0].message
        assert f"from line {line + 1} on are not read" in ended[0].message
    else:
        assert dev.ports["ens6"].pfc_enabled == [3] and ended == []


@pytest.mark.parametrize("tested", [
    f"{APPTRUST} || true",  # bash(1): a command before || or && does not end the script
    f"{APPTRUST} && echo trusted",
    f"if {APPTRUST}; then echo trusted; fi",  # nor one an if tests
    f"! {APPTRUST}",
    "dcb rewr add dev ens6 prio-dscp 3:26",  # (does not fail: the kernel keeps the entries in its own table)
    "dcb apptrust show dev ens6",
])
def test_set_e_does_not_end_the_script_where_the_command_is_tested_or_does_not_fail(tested):
    dev = mlx5.parse([Input("e.sh", f"#!/bin/bash\nset -e\n{tested}\n{PFC_AFTER}\n")], "h")
    assert dev.ports["ens6"].pfc_enabled == [3]
    assert not [i for i in dev.issues if "the script ends here" in i.message]


def test_set_e_in_a_loop_ends_the_script_at_the_first_round():
    """The loop's first round fails: its later rounds and the lines after the loop never run."""
    text = ("#!/bin/bash\nset -e\nfor p in ens6 ens7; do\n  mlnx_qos -i $p --trust dscp\n"
            "  dcb apptrust set dev $p order dscp\ndone\n" + PFC_AFTER + "\n")
    dev = mlx5.parse([Input("e.sh", text)], "h")
    assert sorted(dev.ports) == ["ens6"] and dev.ports["ens6"].pfc_enabled is None
    ended = [i for i in dev.issues if "the script ends here" in i.message]
    assert len(ended) == 1 and "`set -e` is in force and line 5 in it fails" in ended[0].message


def test_specific_pfc_and_get_pfc_as_current_mlnx_qos_runs_them():
    """mlnx-tools python/mlnx_qos (commit 227c7ab, 2024): `-F/--specific_pfc LIST` sets the priorities written 0 or 1
    and keeps those written x, `-P/--get_pfc N` prints one bit; after --dcbx and --cable_len each exits, so the call's
    other options are not applied. Before, both were "not an mlnx_qos option" and the call was skipped."""
    host = parse_text("doca.sh", "\n".join([
        "#!/bin/bash", "mlnx_qos -i eth2 --pfc 0,0,0,0,1,0,0,0 --trust dscp",
        "mlnx_qos -i eth2 -F x,x,x,1,0,x,x,x",          # 3 on, 4 off
        "mlnx_qos -i eth2 -F x,x,x,x,x,1,x,x --trust pcp",  # 5 on; --trust not applied (exit after -F)
        "mlnx_qos -i eth2 -P 3 --pfc 0,0,0,0,0,0,0,0",   # a query: nothing set
        "mlnx_qos -i eth2 --specific_pfc=x,x,x,x,x,0,x,x --cable_len=7",
        "mlnx_qos -i eth2 -F 1,1,1", "mlnx_qos -i eth2 -P 9"]))
    port = host.ports["eth2"]
    assert (port.pfc_enabled, port.trust, port.cable_length_m) == ([3], Trust.dscp, 7.0)
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS002", 7), ("SYS002", 8)]
    assert "is not 8 comma separated values 0, 1 or x" in host.issues[0].message
    # x on a priority whose bit the script never set: the result is unknown
    assert parse_text("x.sh", "#!/bin/bash\nmlnx_qos -i eth2 -F x,x,x,1,x,x,x,x\n").ports["eth2"].pfc_enabled is None


def test_cable_len_alone_leaves_pfc_unknown():
    """`--cable_len` without `--pfc`: mlnx_qos before mlnx-tools 83b87d9 (2024) sent one DCB PFC set with every PFC bit
    0, a later one keeps the bits (it reads them first); the script does not say which runs, so PFC is unknown (before:
    read as off, a false NIC001 error on a current host)."""
    host = parse_text("c.sh", "#!/bin/bash\nmlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0\nmlnx_qos -i eth2 --cable_len 7\n")
    assert (host.ports["eth2"].pfc_enabled, host.ports["eth2"].cable_length_m) == (None, 7.0)


def test_specific_pfc_or_get_pfc_known_only_at_run_time_still_exits_before_the_rest_of_the_call():
    """`-P $N` or `-F $LIST` (mlnx-tools 227c7ab): whatever the value, mlnx_qos exits after --dcbx and --cable_len, so
    the call's --pfc and --trust are never applied. Before, the option given at run time was dropped, the early exit
    never ran and the rest of the call was read (PFC off, trust pcp: a false NIC001)."""
    first = "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 --trust dscp"
    query = parse_text("p.sh", "\n".join(["#!/bin/bash", first,
                                          "mlnx_qos -i eth2 -P $N --pfc 0,0,0,0,0,0,0,0 --trust pcp --cable_len 7"]))
    port = query.ports["eth2"]
    assert (port.pfc_enabled, port.trust, port.cable_length_m) == ([3], Trust.dscp, 7.0)
    assert not any("--pfc" in i.message or "--trust" in i.message for i in query.issues)
    setter = parse_text("f.sh", "\n".join(["#!/bin/bash", first,
                                           "mlnx_qos -i eth2 -F $LIST --pfc 0,0,0,0,0,0,0,0 --trust pcp"]))
    assert (setter.ports["eth2"].pfc_enabled, setter.ports["eth2"].trust) == (None, Trust.dscp)
    said = [i.message for i in setter.issues if "known only at run time" in i.message]
    assert len(said) == 1 and said[0].split("`: ")[1].startswith("--specific_pfc given a value")
    # -P wins over -F, and a --pfc given at run time beside a literal -P is never applied either
    for line in ("mlnx_qos -i eth2 -P 3 --pfc $PFC", "mlnx_qos -i eth2 -P $N -F 0,0,0,0,0,0,0,0"):
        assert parse_text("q.sh", "\n".join(["#!/bin/bash", first, line])).ports["eth2"].pfc_enabled == [3]


def test_a_call_piped_into_a_reader_of_its_output_sets_what_it_sets():
    """bash(1) Pipelines: `mlnx_qos ... | tee -a LOG` runs mlnx_qos with its own words, up to the `|` (before: the
    call was skipped, "'|' is not an mlnx_qos option", and what it set was lost). A pipe into a command that may act
    on the output (`xargs`) is still not read, and named."""
    host = parse_text("p.sh", "\n".join([
        "#!/bin/bash", "mlnx_qos -i eth2 --trust dscp 2>&1 | tee -a /var/log/q.log",
        "sudo mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 |& logger -t q", "mlnx_qos -i eth2 | grep -i trust | head -1",
        "cma_roce_tos -d mlx5_2 -t 106 | cat", "mlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0 | xargs echo"]))
    port = host.ports["eth2"]
    assert (port.trust, port.pfc_enabled, host.roce_tos) == (Trust.dscp, [3], 106)
    assert [(i.source.line, i.code) for i in host.issues] == [(6, "SYS002")]
    assert "mlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0 | xargs echo" in host.issues[0].message


def test_a_transcript_query_piped_into_a_filter_is_not_read_as_the_whole_output():
    """bash(1) Pipelines: after `# mlnx_qos -i IF | grep trust` the terminal shows grep's lines, not mlnx_qos's whole
    output (before: they were read as one, the last such output winning, so PFC and the maps went unknown). A call
    piped into `tee FILE` shows its whole output and is read as the call (fixture realworld/linux_mlx5/
    transcript-piped-query)."""
    text = (Path(__file__).parent / "realworld" / "linux_mlx5" / "transcript-piped-query.txt").read_text()
    host = parse_text("t.txt", text)
    port = host.ports["ens1f0np0"]
    assert (port.trust, port.pfc_enabled, port.dscp_to_priority[26]) == (Trust.dscp, [3], 3)
    notes = [i for i in host.issues if "lets through" in i.message]
    assert [(i.code, i.source.line) for i in notes] == [("SYS004", 1), ("SYS004", 67), ("SYS004", 71)]
    assert not [i for i in host.issues if i.code == "SYS002"]


def test_a_setting_call_piped_into_a_filter_in_a_transcript_still_sets_what_it_sets():
    """`# mlnx_qos -i IF --pfc ... | grep PFC` ran mlnx_qos with its own words (bash(1) Pipelines): its settings are
    applied as a script's call would be, its filtered output is not read."""
    host = parse_text("t.txt", "\n".join([
        "root@h:~# mlnx_qos -i eth0 --trust dscp | grep -i trust", "Priority trust state: dscp",
        "root@h:~# sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0 | grep -A2 PFC", "PFC configuration:",
        "\tpriority    0   1   2   3   4   5   6   7", "\tenabled     0   0   0   1   0   0   0   0", "root@h:~# "]))
    assert (host.ports["eth0"].trust, host.ports["eth0"].pfc_enabled) == (Trust.dscp, [3])
    assert {i.code for i in host.issues} == {"SYS004"}


def test_a_transcript_cat_of_the_roce_files_is_read_as_a_capture_section_is():
    """A transcript's `# cat /sys/class/net/IF/ecn/roce_np/enable/P` prompt and its output: read as a capture's section
    of that command (before: script.commands leaves a read out, so no section was made and the port's ECN stayed
    unknown without a word). A piped or redirected cat stays unread; other read-only prompts add nothing."""
    lines = ["root@h:~# mlnx_qos -i eth0", "Priority trust state: dscp", "PFC configuration:",
             "\tpriority    0   1   2   3   4   5   6   7", "\tenabled     0   0   0   1   0   0   0   0",
             "root@h:~# cat /sys/class/net/eth0/ecn/roce_np/enable/3", "1",
             "root@h:~# sudo cat /sys/class/net/eth0/ecn/roce_rp/enable/3", "0",
             "root@h:~# ls /sys/class/net/eth0/ecn", "roce_np  roce_rp", "root@h:~# "]
    host = parse_text("t.txt", "\n".join(lines))
    ecn = host.ports["eth0"].nic_ecn
    assert ecn is not None and (ecn.np_enabled, ecn.rp_enabled) == ({3: True}, {3: False})
    assert (ecn.np_source.line, ecn.rp_source.line) == (7, 9)
    assert {i.code for i in host.issues} <= {"SYS004", "SYS002"}
    assert not [i for i in host.issues if i.source and i.source.line in (10, 11)]
    piped = parse_text("t.txt", "\n".join(
        [*lines[:5], "root@h:~# cat /sys/class/net/eth0/ecn/roce_np/enable/3 | tr 1 0", "0", "root@h:~# "]))
    assert piped.ports["eth0"].nic_ecn is None or not piped.ports["eth0"].nic_ecn.np_enabled
    # cat prints several files' values unnamed, one after another: not read, and no SYS002 for what it printed
    for cat in ("cat /sys/class/net/eth0/ecn/roce_np/enable/*",
                "cat /sys/class/net/eth0/ecn/roce_np/enable/3 /sys/class/net/eth0/ecn/roce_rp/enable/3"):
        several = parse_text("t.txt", "\n".join([*lines[:5], f"root@h:~# {cat}", *["1"] * 8, "root@h:~# "]))
        assert several.ports["eth0"].nic_ecn is None or not several.ports["eth0"].nic_ecn.np_enabled
        assert not [i for i in several.issues if i.code == "SYS002" and i.source.line > 5]


def test_a_piped_prompt_of_a_command_not_read_is_not_said_to_lose_output():
    """Only a command whose output the transcript reader reads (mlnx_qos -i IF, ethtool, cma_roce_tos -d) loses
    something when piped into a filter (before: `history | tail -3` or `dmesg | grep mlx5` after the first mlnx_qos
    prompt each got a SYS004 "lets through")."""
    host = parse_text("t.txt", "\n".join([
        "root@h:~# mlnx_qos -i eth0 --trust dscp", "Priority trust state: dscp", "PFC configuration:",
        "\tpriority    0   1   2   3   4   5   6   7", "\tenabled     0   0   0   1   0   0   0   0",
        "root@h:~# history | tail -3", "  501  mlnx_qos -i eth0", "root@h:~# dmesg | grep -i mlx5 | head -2",
        "[    3.1] mlx5_core 0000:3b:00.0: firmware version: 22.36.1010",
        "root@h:~# sudo cat /var/log/syslog | grep pfc", "root@h:~# ethtool eth0 | grep Speed", "\tSpeed: 100000Mb/s",
        "root@h:~# sudo mlnx_qos -i eth0 | grep -i trust", "Priority trust state: dscp", "root@h:~# "]))
    assert host.ports["eth0"].trust == Trust.dscp
    notes = [(i.code, i.source.line, i.message.split("`")[1]) for i in host.issues if "lets through" in i.message]
    assert notes == [("SYS004", 11, "ethtool eth0 | grep Speed"),
                     ("SYS004", 13, "sudo mlnx_qos -i eth0 | grep -i trust")]


def test_benchmarks_and_file_modes_in_a_host_script_are_not_lines_left_unread():
    """A host script's perftest run (linux-rdma/perftest README: its benchmarks open QPs of their own and measure) and
    a `chmod`/`chown`/`touch` of a file set nothing on the NIC: no SYS002 "not a command losslessd reads" (the noise
    census's most frequent host warning, 3 of 29 host inputs). A redirect still writes, and lldpad still applies
    what DCBX negotiates: those stay said."""
    host = parse_text("bench.sh", "#!/bin/bash\nset -e\nmlnx_qos -i ens3f0 --trust dscp --pfc 0,0,0,1,0,0,0,0\n"
                                  "chmod 755 /usr/local/sbin/roce-off.sh\nsudo chown root /etc/roce.conf\n"
                                  "touch /var/run/roce.done\nib_write_bw -d mlx5_0 -x 3 --report_gbits -D 10\n"
                                  "ib_send_lat -d mlx5_0 -F\nsystemctl start lldpad\n"
                                  "touch /x > /sys/class/net/ens3f0/mtu\n")
    assert host.ports["ens3f0"].pfc_enabled == [3]
    skipped = sorted(i.source.line for i in host.issues if i.code == "SYS002")
    assert skipped == [9, 10]  # (systemctl; the redirect into sysfs)


# A query script's report of a host (a Kubernetes RDMA QoS guide's `rdma-qos.sh q`): its own header line, `mlnx_qos -i
# IF` lines it greps out, then each sysfs file as `LABEL: PATH = VALUE`; and the same files as `grep -r . DIR` prints
# them (`PATH:VALUE`) or bare `PATH = VALUE`. Files and values: NVIDIA MLNX_OFED user manual, "Explicit Congestion
# Notification" (ecn/roce_np|roce_rp/enable/N 0 or 1, roce_np/cnp_dscp) and "RoCE" (tc/1/traffic_class, which MLNX_OFED
# prints as `Global tclass=N`); ours: ens1f0, mlx5_2, priority 3, CNP DSCP 48, traffic class 106 (DSCP 26, ECT(0)).
def _sysfs_report(form: str) -> str:
    lines = []
    for n in range(8):
        for point in ("np", "rp"):
            path, on = f"/sys/class/net/ens1f0/ecn/roce_{point}/enable/{n}", int(n == 3)
            lines.append(form.format(label=f"ECN Enabled for priority {n}", path=path, value=on))
    lines.append(form.format(label="QOS for CNP", path="/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp", value=48))
    lines.append(form.format(label="QOS for rdma", path="/sys/class/infiniband/mlx5_2/tc/1/traffic_class",
                             value="Global tclass=106"))
    return "\n".join(lines) + "\n"


_QUERY_HEAD = ("======== show configuration for device ens1f0 / mlx5_2========\nPriority trust state: dscp\n"
               "PFC configuration:\n        priority    0   1   2   3   4   5   6   7\n"
               "        enabled     0   0   0   1   0   0   0   0   \n"
               "        buffer      0   0   0   1   0   0   0   0   \n")


@pytest.mark.parametrize("text", [
    _QUERY_HEAD + _sysfs_report("{label}: {path} = {value}"),
    _sysfs_report("{path} = {value}"),
    _sysfs_report("{path}:{value}"),
])
def test_sysfs_path_and_value_lines_are_read_on_the_port_their_path_names(text):
    """`PATH = VALUE` and `PATH:VALUE` lines, labelled or not, are the sysfs reads they print, on the port the path
    names (before: the query script's report was a bare mlnx_qos output of port `eth?` whose 20 such lines were "not
    understood", DCQCN and the traffic class unknown; without its mlnx_qos lines the file was SYS001, exit 2)."""
    assert detect(Input("q.txt", text)) == "linux_mlx5"
    host = parse_text("q.txt", text)
    assert list(host.ports) == ["ens1f0"]
    ecn = host.ports["ens1f0"].nic_ecn
    assert ecn.np_enabled == ecn.rp_enabled == {n: n == 3 for n in range(8)}
    assert (ecn.cnp_dscp, host.rdma_traffic_class) == (48, 106)
    if text.startswith("===="):
        assert host.ports["ens1f0"].pfc_enabled == [3]
        assert not any("not understood" in i.message and "ECN Enabled" in i.message for i in host.issues)


def test_sysfs_lines_of_several_ports_leave_the_tools_output_unnamed():
    """A report of two ports reads each path on its own port; the mlnx_qos lines, which no path names, stay `eth?`
    and the SYS004 names the ports the paths give."""
    text = (_QUERY_HEAD + _sysfs_report("{label}: {path} = {value}")
            + "QOS for CNP: /sys/class/net/ens1f1/ecn/roce_np/cnp_dscp = 48\n")
    host = parse_text("q.txt", text)
    assert sorted(host.ports) == ["ens1f0", "ens1f1", mlx5.PLACEHOLDER_PORT]
    assert any("its sysfs paths name ens1f0, ens1f1" in i.message for i in host.issues)


@pytest.mark.parametrize("arm, why", [
    ("    mce0)\n        echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"
     "        cma_roce_tos -d mlx5_0 -t 106\n        ;;\n", "knows the port (ifupdown"),
    ("    (mce0|mce1) mlnx_qos -i \"$IFACE\" --trust dscp ;;\n", "which of the 2 ports its pattern names it is"),
    # a glob (bash(1) Pattern Matching): before, no arm was named ("names no interface known before it runs")
    ("    mce*)\n        mlnx_qos -i \"$IFACE\" --trust dscp\n        ;;\n", "which port its glob pattern matched"),
])
def test_a_hook_naming_its_port_only_in_a_case_pattern_says_why_nothing_is_checked(tmp_path, arm, why):
    """An NFS over RDMA guide's ifupdown hook (round 18) sets RoCE's TOS only in the `mce0)` arm of `case "$IFACE" in`
    (ifupdown(8): a hook runs with IFACE set to the interface brought up). Before: SYS002 "names no interface known
    before it runs", which named neither the arm nor what to do. Now the SYS002 names the arm's line and pattern, why
    its port is not known (several names, a glob: which one matched is the running shell's) and the capture to lint it
    after; nothing checked stays exit 2, never clean."""
    text = f'#!/bin/sh\ncase "$IFACE" in\n{arm}esac\n'
    host = parse_text("hook", text)
    assert not host.ports
    said = [i for i in host.issues if "arm of `case \"$IFACE\" in`" in i.message]
    assert len(said) == 1 and said[0].source.line == 3 and why in said[0].message, said
    assert ("a capture of each port it matches" if "*" in arm else "a capture of mce0") in said[0].message
    (tmp_path / "hook").write_text(text)
    assert api.lint([tmp_path / "hook"], "roce-dscp26").outcome(False).code == 2


@pytest.mark.slow  # (valgrind: a process per size)
def test_a_sysfs_value_line_of_a_long_blank_run_is_read_in_linear_time():
    """A value line ending in a run of blanks then a word (hostile input): read in work that grows with the run, not
    with its square (a lazy value before trailing blanks took minutes at 200,000). The work inside the pattern is
    counted by callgrind (tests.workmeter.instruction_growth), not timed."""
    small, large = instruction_growth(
        "from losslessd.parse import mlx5\nfrom losslessd.parse.base import Input",
        "text = '/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp:' + ' ' * n + 'x\\n/sys/class/net/ens1f0/mtu = 9000\\n'\n"
        "port = mlx5.parse([Input('dump.txt', text)], 'h').ports['ens1f0']\n"
        "assert port.mtu_bytes == 9000 and port.nic_ecn.cnp_dscp is None", (20_000, 80_000))
    assert large < 6 * small + 2, (small, large)


def test_a_case_arms_variable_is_the_arms_one_name():
    """bash(1) case: in the arm `mce0)` of `case "$IFACE" in` the word matched the pattern, so `$IFACE` is mce0 there
    (ifupdown(8) runs a hook with IFACE set to the interface it brings up). Before: `mlnx_qos -i "$IFACE" ...` in the
    arm was a port known only at run time, nothing checked. An arm that assigns the variable itself, or a pattern of
    several names, keeps the reading it had."""
    text = ('#!/bin/sh\ncase "$IFACE" in\n    mce0)\n        mlnx_qos -i "$IFACE" --trust dscp --pfc 0,0,0,1,0,0,0,0\n'
            '        echo 1 > /sys/class/net/${IFACE}/ecn/roce_np/enable/3\n        ;;\n'
            '    mce1)\n        IFACE=mce9\n        mlnx_qos -i $IFACE --trust pcp\n        ;;\n'
            '    mce2|mce3) mlnx_qos -i $IFACE --trust pcp ;;\nesac\n')
    host = parse_text("hook", text)
    assert sorted(host.ports) == ["mce0", "mce9"]
    port = host.ports["mce0"]
    assert (port.trust.value, port.pfc_enabled, port.nic_ecn.np_enabled) == ("dscp", [3], {3: True})
    assert any(i.code == "SYS004" and i.source.line == 3 and "$IFACE read as mce0" in i.message for i in host.issues)


@pytest.mark.parametrize("text", [
    'case "$IFACE" in eth0) mlnx_qos -i "$IFACE" --trust dscp --pfc 0,0,0,1,0,0,0,0 ;; '
    'eth1) mlnx_qos -i $IFACE --pfc 0,0,0,0,1,0,0,0 ;; esac\n',
    'case "$IFACE" in\n  eth0) mlnx_qos -i "$IFACE" --trust dscp --pfc 0,0,0,1,0,0,0,0 ;;\n'
    '  (eth1) mlnx_qos -i ${IFACE} --pfc 0,0,0,0,1,0,0,0\nesac\n',
    'if [ -n "$IFACE" ]; then case $IFACE in eth0) mlnx_qos -i $IFACE --trust dscp --pfc 0,0,0,1,0,0,0,0;; '
    'eth1) mlnx_qos -i $IFACE --pfc 0,0,0,0,1,0,0,0; esac; fi\n',
])
def test_a_case_on_one_line_or_an_arm_with_its_command_is_read(text):
    """bash(1) case: `case WORD in PATTERN) LIST ;; ... esac` may stand on one line, an arm's commands on its
    pattern's line, the last arm without `;;`, the case after `then`. Before: such a hook was no host script
    (SYS001, exit 2: `mlnx_qos` not at a line's start) and, with --format, its `$IFACE` known only at run time
    (nothing checked). Now each arm's `$IFACE` is its one name."""
    text = "#!/bin/sh\n" + text
    assert detect(Input("hook", text)) == "linux_mlx5"
    host = parse_text("hook", text)
    assert {name: port.pfc_enabled for name, port in host.ports.items()} == {"eth0": [3], "eth1": [4]}
    assert host.ports["eth0"].trust.value == "dscp"
    assert sum("$IFACE read as" in i.message for i in host.issues) == 2


def test_a_hostile_line_of_case_arms_or_separators_is_read_in_linear_time():
    """A one-line case of n arms, a script line of 10 n `;` and of `sudo` after each: sniffed and its arms read in work
    that grows with n (a command searched after every separator must not rescan the line's rest: a path before
    `cma_roce_tos` did, 27 s for 200,000 `;`; the case's `esac` searched again per arm was quadratic). The work is
    counted (tests.workmeter: the parser's frames and what its patterns scanned), not timed; a reader that searches
    the line's `esac` again from each arm counts its square, so the measure sees the class it guards."""

    def measured(n: int, case_arms=mlx5._case_arms) -> int:
        def read() -> None:
            for text in ("#!/bin/sh\ncase $IFACE in " + "eth0) echo $IFACE ;; " * n + "esac\n",
                         "#!/bin/sh\n" + ";" * (10 * n), "#!/bin/sh\n" + "; sudo -x" * (2 * n)):
                assert mlx5.is_script(text) is False
                arms = case_arms(text)
                got, named = mlx5._arm_values(text, arms)
                assert len(named) == len(arms) == (n if "case" in text else 0) and "echo $IFACE" not in got
        return work([mlx5], read)[0]

    def searching_esac_per_arm(text: str) -> list:
        """The reader before its mend: the rest of the line searched for its `esac` again from each arm."""
        arms = mlx5._case_arms(text)
        for arm in arms:
            mlx5._ESAC.search(text, arm[4])
        return arms

    # four times the input counts four times the work when linear, sixteen when quadratic
    small, large = measured(2_000), measured(8_000)
    assert large < 6 * small, (small, large)
    small, large = measured(500, searching_esac_per_arm), measured(2_000, searching_esac_per_arm)
    assert large > 10 * small, (small, large)


def _two_runs():
    """Two `mlnx_qos -i IF` outputs (the nic-bare fixture's, as mlnx-tools pretty_print prints them), the second with
    PFC off on priority 3."""
    out = (RAW / "nic-bare.txt").read_text().split("\n", 2)[2]
    return out, out.replace("enabled     0   0   0   1", "enabled     0   0   0   0")


@pytest.mark.parametrize("prompt, names", [
    ("", ["eth?1", "eth?2"]),
    ("$ for i in ens1f0 ens1f1; do mlnx_qos -i $i; done\n", ["ens1f0", "ens1f1"]),
    ('$ for i in ens1f0 ens1f1; do echo "== $i"; mlnx_qos -i $i; done\n== ens1f0\n', ["ens1f0", "ens1f1"]),
    ("mlnx_qos -i ens1f0\n", ["ens1f0", "ens1f1"]),  # (each output after its command line, no prompt)
])
def test_a_report_of_several_mlnx_qos_runs_reads_each_on_its_own_port(prompt, names):
    """Outputs of several `mlnx_qos -i IF` runs one after another (bash(1) for: a loop runs its body once per word, in
    order). Before: all of them one output of one port (`eth?`, or the loop's first word), the last run's PFC taken
    for the first port's and the repeated tc lines "not understood". Now each run is its own port: the loop's words in
    order, or `eth?1`, `eth?2` where no line names them; PFC on 3 on the first, off on the second."""
    first, second = _two_runs()
    between = ("== ens1f1\n" if "echo" in prompt else
               "\nmlnx_qos -i ens1f1\n" if prompt.startswith("mlnx_qos") else "")
    host = parse_text("q.txt", prompt + first + between + second)
    assert {name: port.pfc_enabled for name, port in host.ports.items()} == {names[0]: [3], names[1]: []}
    assert not any("not understood" in i.message and "mlnx_qos -i" in i.message.split(":", 1)[-1] for i in host.issues)


@pytest.mark.parametrize("prompt", ["$ for i in $(ls /sys/class/net | grep ens); do mlnx_qos -i $i; done\n",
                                    "$ cat ifs | while read i; do mlnx_qos -i $i; done\n", "# mlnx_qos -i ens1f0\n"])
def test_a_prompts_one_read_whose_output_holds_several_runs_is_not_read(prompt, tmp_path):
    """A loop over words known only at run time (bash(1) for over `$(...)`, while read) runs `mlnx_qos -i $i` once as
    written, yet its output holds a run per port. Before: all runs read as one output of port `$i`, the last run's
    PFC over the first's (a misread). Now, as a loop of another count of runs: none read, said why."""
    first, second = _two_runs()
    host = parse_text("q.txt", prompt + first + second)
    assert not host.ports
    assert any("runs mlnx_qos once as written but its output holds 2 mlnx_qos output(s)" in i.message
               for i in host.issues)
    (tmp_path / "q.txt").write_text(prompt + first + second)
    assert api.lint([tmp_path / "q.txt"], "roce-dscp26").outcome(False).code == 2


def test_a_report_of_many_runs_names_a_few_of_them():
    """A report of 2,000 `mlnx_qos -i IF` runs: each read on its port, the SYS004 naming the first few runs' lines and
    ports and how many more (lint.finding.few). Before: every line number and port in one 27,000-character message."""
    first, second = _two_runs()
    rest = "".join(f"\nmlnx_qos -i e{k}\n{second}" for k in range(1, 2000))
    host = parse_text("q.txt", "mlnx_qos -i e0\n" + first + rest)
    assert len(host.ports) == 2000 and host.ports["e0"].pfc_enabled == [3] and host.ports["e1999"].pfc_enabled == []
    (said,) = [i.message for i in host.issues if "mlnx_qos outputs (lines" in i.message]
    assert "read as ports e0, e1, e2, e3 and 1996 more" in said and len(said) < 400, said


def test_a_loops_output_of_another_count_of_runs_is_not_read():
    first, _ = _two_runs()
    host = parse_text("q.txt", "$ for i in ens1f0 ens1f1; do mlnx_qos -i $i; done\n" + first)
    assert not host.ports
    assert any("runs mlnx_qos 2 times but its output holds 1" in i.message for i in host.issues)


@pytest.mark.parametrize("text", [
    _QUERY_HEAD + _sysfs_report("{label}: {path} = {value}").replace("QOS for rdma", "cma_roce_tos: 160\nQOS for rdma"),
    _sysfs_report("{label}: {path} = {value}") + "cma_roce_tos: 160\n",
])
def test_a_tos_line_naming_no_rdma_device_says_why_it_is_not_read(text):
    """A Kubernetes RDMA QoS guide's `rdma-qos.sh q` prints `cma_roce_tos: $(cma_roce_tos –d ${RDMA_DEV})` (its own
    label; the `–d` is an en dash, no option, so which device's TOS the tool printed is its default's): no RDMA device
    is named. Before: "line(s) not understood" in a report, and beside sysfs lines alone the file was no host output
    at all (exit 2). Now a SYS002 at its line says why it is not read and what to capture; the rest is read."""
    assert detect(Input("q.txt", text)) == "linux_mlx5"
    host = parse_text("q.txt", text)
    said = [i for i in host.issues if i.message.startswith("`cma_roce_tos: 160`: a TOS that names no RDMA device")]
    assert len(said) == 1 and text.split("\n")[said[0].source.line - 1] == "cma_roce_tos: 160"
    assert host.roce_tos is None and host.rdma_traffic_class == 106
    assert not any("not understood" in i.message and "cma_roce_tos" in i.message for i in host.issues)


def test_a_query_report_of_two_devices_reads_each_under_its_header():
    """spidernet-io's `set-rdma-qos.sh q` prints, per device, `======== show configuration for device $dev /
    ${RDMA_DEV}========`, then that device's grepped mlnx_qos trust and PFC lines and its sysfs files. Before: the two
    devices' mlnx_qos lines were one output of port `eth?` (the second's PFC over the first's), beside ports ens1f0 and
    ens1f1 named by the paths. Now each header names its block: ens1f0 PFC on 3, ens1f1 on 4, no `eth?` port."""
    second = (_QUERY_HEAD + _sysfs_report("{label}: {path} = {value}")).replace("ens1f0", "ens1f1").replace(
        "mlx5_2", "mlx5_3").replace("enabled     0   0   0   1   0", "enabled     0   0   0   0   1")
    host = parse_text("q.txt", _QUERY_HEAD + _sysfs_report("{label}: {path} = {value}") + second)
    assert {name: port.pfc_enabled for name, port in host.ports.items()} == {"ens1f0": [3], "ens1f1": [4]}
    assert host.ports["ens1f1"].nic_ecn.cnp_dscp == 48


# A host script that runs the NIC tools on other hosts, as cluster guides write them (ssh(1) `ssh [options]
# destination command`, pdsh(1)/clush(1) `-w HOSTS command`), and pdsh's output of several hosts, each line
# prefixed `HOST: ` (pdsh(1)); transcribed in our own words and values.
REMOTE = [
    ("for h in gpu01 gpu02; do\n  ssh -o BatchMode=yes root@$h 'sudo mlnx_qos -i ens1f0 --pfc 0,0,0,1,0,0,0,0'\ndone\n",
     2, "it runs mlnx_qos on another host through ssh (`$h`)"),
    ("#!/bin/bash\nset -e\npdsh -w gpu[01-04] \"cma_roce_tos -d mlx5_0 -t 106\"\n", 3,
     "it runs cma_roce_tos on another host through pdsh (`gpu[01-04]`)"),
    ("on_node gpu07 mlnx_qos -i ens1f0 --trust dscp\n", 1, "through on_node (`gpu07`)"),
    # (ssh(1)'s `-P tag` takes a value: the tag is no host)
    ("ssh -P rdma -p 2222 gpu05 mlnx_qos -i ens1f0 --trust dscp\n", 1, "through ssh (`gpu05`)"),
    # (ssh's getopt bundles letters: `-tp 2222` is -t and -p 2222, the port no host; session 42 reread rr-d: it was
    # named as the host)
    ("ssh -tp 2222 gpu06 mlnx_qos -i ens1f0 --trust dscp\n", 1, "through ssh (`gpu06`)"),
    ("gpu01: DCBX mode: OS controlled\ngpu01: Priority trust state: dscp\ngpu02: DCBX mode: OS controlled\n", 1,
     "it holds the mlnx_qos output of 2 hosts (gpu01, gpu02), each line prefixed `HOST: `"),
]


@pytest.mark.parametrize(("text", "line", "said"), REMOTE)
def test_a_file_about_other_hosts_names_them(tmp_path, text, line, said):
    """Session 40 left these "cannot tell which platform wrote this file" without a word of why: what they set or
    show is another host's NIC. Each is named with the host and what to lint instead (exit 2 still: nothing of this
    file's host is read)."""
    from losslessd.parse import parse_group

    path = tmp_path / "f.sh"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        parse_group("h", [path])
    assert err.value.line == line and said in err.value.message, err.value.message
    assert "cannot tell which platform" not in err.value.message
