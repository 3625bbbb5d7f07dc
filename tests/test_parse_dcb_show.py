"""iproute2 `dcb pfc|ets|app|buffer show dev IF` output read as a host's DCB state.

Layouts: dcb-pfc(8), dcb-ets(8), dcb-app(8), dcb-buffer(8) EXAMPLE & USAGE; -j as iproute2 dcb/dcb_pfc.c and dcb_ets.c
print it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from losslessd import capture
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.model import SchedulerType, Trust
from losslessd.parse import detect, parse_group, read_input
from losslessd.parse.mlx5.dcb_show import dscp_number

HERE = Path(__file__).resolve().parent
FABRIC = HERE.parent / "examples" / "fabric"
TRANSCRIPT = HERE / "realworld" / "linux_mlx5" / "dcb-show-transcript.txt"
MAN = HERE / "realworld" / "linux_mlx5" / "dcb-show-man-examples.txt"
HEADER = ("#% losslessd capture 1\n#% device: gpu12\n#% platform: linux_mlx5\n"
          "#% collected: 2026-12-04T12:00:00Z\n")
# dcb-ets(8) EXAMPLE & USAGE: `dcb ets show dev eth0 prio-tc tc-tsa tc-bw`
ETS = ("prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7\n"
       "tc-tsa 0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
       "tc-bw 0:33 1:33 2:34 3:0 4:0 5:0 6:0 7:0\n")


def dcb_host_sections(iface: str, edit=lambda command, output: output) -> list[tuple[str, str]]:
    """examples/fabric's gpu01 capture with the transcript's `dcb pfc|ets|app|buffer show dev IF` (recorded on an mlx5
    host) in place of its `mlnx_qos -i IF`: a host without mlnx_qos. ``edit(command, output)``: a dcb output changed.
    The app table as pull and the collector read it, `dcb -N app show` (dcb_app.c: the DSCPs as numbers)."""
    transcript = TRANSCRIPT.read_text()
    typed = transcript.rsplit("root@gpu11:~#", 1)[0].split("root@gpu11:~# ")[1:]  # (an Enter pressed at the end)
    shows = [chunk.partition("\n") for chunk in typed]
    dcb = [(command.replace("ens5f0", iface), edit(command.split()[1], output)) for command, _, output in shows]
    dcb = [(command.replace("dcb app ", "dcb -N app "), _numbered(output) if " app " in command else output)
           for command, output in dcb]
    recorded = capture.read((FABRIC / "gpu01.capture").read_text()).sections
    return [pair for s in recorded
            for pair in (dcb if s.command == f"mlnx_qos -i {iface}" else [(s.command, s.output)])]


def _numbered(output: str) -> str:
    """An app table's DSCP names as `dcb -N` prints the same entries: numbers."""
    lines = []
    for line in output.splitlines():
        words = line.split()
        if words[:1] == ["dscp-prio"]:
            line = " ".join([words[0], *(f"{dscp_number(k)}:{p}" for k, _, p in (w.partition(":") for w in words[1:]))])
        lines.append(f"{line}\n")
    return "".join(lines)


def _issues(device) -> list[str]:
    return [f"{i.code} {i.message}" for i in device.issues]


def test_a_transcript_of_the_four_shows_fills_the_port():
    device = parse_group("gpu11", [TRANSCRIPT])
    port = device.ports["ens5f0"]
    assert port.pfc_enabled == [3]
    assert port.priority_to_tc == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}
    assert {tc: (q.scheduler.type, q.scheduler.weight) for tc, q in port.queues.items() if tc in (0, 1, 3)} == {
        0: (SchedulerType.ets, 50), 1: (SchedulerType.strict, None), 3: (SchedulerType.ets, 50)}
    # dcb-app(8): names from rt_dsfield (AF31 = 26, CS6 = 48); the other DSCPs are not in the table
    assert port.dscp_to_priority == {0: 0, 8: 0, 16: 0, 26: 3, 32: 0, 48: 6} and port.dscp_to_priority_partial
    assert port.trust == Trust.dscp
    assert port.priority_to_pg == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0}
    # dcb-buffer(8) sizes as tc(8) prints them: Kb = 1024 bytes
    assert port.priority_groups[0].size_bytes == 128 * 1024 and port.priority_groups[1].size_bytes == 256 * 1024
    assert not [i for i in _issues(device) if i.startswith("SYS002")]


def test_the_man_pages_examples():
    device = parse_group("h", [MAN])
    port = device.ports["eth0"]
    assert port.pfc_enabled == [6, 7]
    assert port.priority_to_tc == {p: p for p in range(8)}
    assert [port.queues[tc].scheduler.weight for tc in range(3)] == [33, 33, 34]
    assert port.queues[3].scheduler.type == SchedulerType.strict
    assert port.priority_groups[6].size_bytes == 1024 * 1024
    # `dscp-prio 0:0 CS3:2 CS3:3 CS6:6`: two app entries give DSCP 24 two priorities: the map is unknown, the trust
    # (mlx5: DSCP while there are DSCP entries) is not
    assert port.dscp_to_priority is None and port.trust == Trust.dscp
    assert any("DSCP 24 is given priorities 2 and 3" in i for i in _issues(device))


def test_a_capture_of_dcb_sections_json_and_an_empty_app_table(tmp_path):
    path = tmp_path / "gpu12.capture"
    path.write_text(HEADER + "#% command: dcb -j pfc show dev ens5f0\n"
                    '{"pfc_cap":8,"macsec_bypass":false,"delay":0,"prio_pfc":[false,false,false,true,false,false,false,'
                    'false]}\n#% command: dcb -j ets show dev ens5f0\n'
                    '{"willing":false,"ets_cap":8,"cbs":false,"tc_bw":[50,0,0,50,0,0,0,0],"pg_bw":[0,0,0,0,0,0,0,0],'
                    '"tc_tsa":["ets","strict","strict","ets","strict","strict","strict","strict"],'
                    '"prio_tc":[0,0,0,3,0,0,0,0]}\n'
                    "#% command: dcb app show dev ens5f0\n")
    device = parse_group("gpu12", [path])
    port = device.ports["ens5f0"]
    assert port.pfc_enabled == [3] and port.priority_to_tc[3] == 3 and port.queues[3].scheduler.weight == 50
    assert port.trust == Trust.pcp  # no DSCP entry in the app table: mlx5 trusts PCP
    issues = _issues(device)
    assert not [i for i in issues if "mlnx_qos" in i]  # PFC, ETS and app shown: nothing of mlnx_qos's is missing
    path.write_text(path.read_text().replace("#% command: dcb app show dev ens5f0\n", ""))
    issues = _issues(parse_group("gpu12", [path]))
    assert [i for i in issues if "mlnx_qos" in i or "dcb" in i] == [
        "SYS002 no `dcb app show dev ens5f0` section in the capture: trust and DSCP->priority map unknown"]


@pytest.mark.parametrize("app", [
    '{"dscp_prio":[[0,0," "],[8,0," "],[26,3," "],[48,6," "]],"default_prio":[0]}',  # iproute2 6.5 on (a245bfe1)
    '{"dscp_prio":[[0,0],[8,0],[26,3],[48,6]]}',  # before
])
def test_dcb_json_app_and_buffer_are_read(tmp_path, app):
    """`dcb -j app show` and `dcb -j buffer show` were refused per key (SYS002): their layouts are iproute2's
    dcb_app.c dcb_app_print_filtered (an array per entry, the DSCP a number) and dcb_buffer.c (arrays in key order,
    sizes in bytes: lib/json_print_math.c print_color_size). The transcript's host, printed so."""
    path = tmp_path / "gpu12.capture"
    path.write_text(HEADER + f"#% command: dcb -j app show dev ens5f0\n{app}\n"
                    "#% command: dcb -j buffer show dev ens5f0\n"
                    '{"prio_buffer":[0,0,0,1,0,0,0,0],"buffer_size":[131072,262144,0,0,0,0,0,0],"total_size":1251328}\n'
                    "#% command: dcb -j app show dev ens5f1\n{}\n")
    device = parse_group("gpu12", [path])
    port = device.ports["ens5f0"]
    assert port.dscp_to_priority == {0: 0, 8: 0, 26: 3, 48: 6} and port.trust == Trust.dscp
    assert port.priority_to_pg == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0}
    assert [port.priority_groups[b].size_bytes for b in range(3)] == [128 * 1024, 256 * 1024, 0]
    assert device.ports["ens5f1"].trust == Trust.pcp  # an empty table prints {}: no DSCP entry
    assert not [i for i in _issues(device) if "dcb -j" in i], _issues(device)  # (pfc and ets: sections missing)


@pytest.mark.parametrize("output, expected", [
    ("prio-pfc 0:off 1:off 2:off 3:maybe 4:off 5:off 6:off 7:off\n", "PFC priorities unknown"),
    ("prio-pfc 0:off 3:on\n", "PFC priorities unknown"),  # not every priority: not dcb's show
    ("prio-tc 0:0 1:9 2:2 3:3 4:4 5:5 6:6 7:7\n", "priority to TC map unknown"),
    ("buffer-size 0:10Kib 1:10Kb 2:10Kb 3:10Kb 4:10Kb 5:10Kb 6:1Mb 7:10Kb\n", "receive buffer sizes unknown"),
    ("dscp-prio 0:0 64:3\n", "DSCP to priority map unknown"),  # (DSCP 64: none of 0-63)
    ("prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\nError: Operation not supported\n",
     "1 line(s) not understood and skipped, first: 'Error: Operation not supported'"),
    ('{"prio_pfc": [false, true\n', "line(s) not understood"),
    ('{"dscp_prio": [[24, 3, 5]]}\n', "DSCP to priority map unknown"),
    ('{"dscp_prio": [[24, null]]}\n', "DSCP to priority map unknown"),
    ('{"buffer_size": [1.5, 0, 0, 0, 0, 0, 0, 0]}\n', "receive buffer sizes unknown"),
    ('{"prio_buffer": [0, 0, 0, 1, 0, 0, 0, {}]}\n', "priority to buffer map unknown"),
    ('{"dscp_prio_x": []}\n', "'dscp_prio_x': no parameter of dcb pfc, ets, app or buffer"),
    ('{"prio_pfc": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "nested deeper than"),  # (was a RecursionError: SYS900)
])
def test_what_cannot_be_read_is_named_never_a_crash(tmp_path, output, expected):
    path = tmp_path / "h.capture"
    path.write_text(HEADER + "#% command: dcb pfc show dev eth1\n" + output)
    device = parse_group("h", [path])
    assert any(i.startswith("SYS002") and expected in i for i in _issues(device)), _issues(device)


def test_an_app_show_that_printed_an_error_says_nothing_of_the_trust(tmp_path):
    path = tmp_path / "h.capture"
    path.write_text(HEADER + "#% command: dcb app show dev eth1\nError: Operation not supported\n")
    device = parse_group("h", [path])
    assert device.ports["eth1"].trust is None  # (an empty table would say PCP; an error says nothing)
    assert any("not understood" in i for i in _issues(device))


def test_dcb_output_is_told_from_the_formats_beside_it(tmp_path):
    bare = tmp_path / "ets.txt"
    bare.write_text(ETS)
    assert detect(read_input(bare)) == "linux_mlx5"
    port = parse_group("h", [bare]).ports["eth?"]  # no command line: the port is named as for bare mlnx_qos
    assert port.priority_to_tc == {p: p for p in range(8)}
    crlf = tmp_path / "pfc.txt"  # (copied from a Windows terminal: CR LF line ends)
    crlf.write_bytes(b"pfc-cap 8 macsec-bypass off delay 4096\r\n"
                     b"prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\r\n")
    assert parse_group("h", [crlf]).ports["eth?"].pfc_enabled == [3]
    script = tmp_path / "set.sh"  # a script's dcb lines set; the same words after #! are not output
    script.write_text("#!/bin/bash\ndcb ets set dev eth0 prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7\n" + ETS)
    assert detect(read_input(script)) == "linux_mlx5"
    assert any("skipped `prio-tc" in i or "prio-tc 0:0" in i for i in _issues(parse_group("h", [script])))
    prose = tmp_path / "notes.txt"
    prose.write_text("prio-tc is set on the NIC before the run\n")
    assert detect(read_input(prose)) is None


@pytest.mark.parametrize("tool", ["dcb", "mlnx_qos"])
def test_a_host_read_from_dcb_is_told_the_dcb_commands(tmp_path, tool):
    """NIC001, NIC002, MAP001 and LNK004 said `mlnx_qos -i IF ...` also for a host read from dcb output, whose NIC
    may have no mlnx_qos (Intel ice, Broadcom bnxt_en): it is told dcb-pfc(8) and dcb-app(8)'s commands (Port.dcb_tool);
    a host read from mlnx_qos keeps mlnx_qos's. gpu01 of examples/fabric (linked to leaf1) with PFC on priority 4, not
    3, and DSCP 26 (AF31) on priority 4; then with no DSCP entry (trust PCP)."""
    iface = "enp65s0f0np0"
    fabric = tmp_path / "fabric"
    shutil.copytree(FABRIC, fabric)

    def edit(obj: str, output: str) -> str:
        return {"pfc": output.replace("3:on 4:off", "3:off 4:on"), "app": output.replace("AF31:3", "AF31:4")}.get(
            obj, output)

    def messages(sections) -> list[str]:
        if tool == "mlnx_qos":  # the same host as mlnx_qos prints it (the capture examples/fabric holds)
            recorded = capture.read((FABRIC / "gpu01.capture").read_text()).sections
            qos = next(s.output for s in recorded if s.command.startswith("mlnx_qos"))
            apps = [o for c, o in sections if c.startswith("dcb -N app")]
            qos = qos.replace("enabled     0   0   0   1   0", "enabled     0   0   0   0   1")
            qos = qos.replace("prio:3 dscp:31,30,29,28,27,26,25,24,", "prio:3 dscp:31,30,29,28,27,25,24,")
            qos = qos.replace("prio:4 dscp:", "prio:4 dscp:26," if apps[0].strip() else "prio:4 dscp:")
            if not apps[0].strip():
                qos = qos.replace("Priority trust state: dscp", "Priority trust state: pcp")
            sections = [(c, o) for c, o in sections if not c.startswith("dcb ")]
            sections.insert(0, (f"mlnx_qos -i {iface}", qos))
        (fabric / "gpu01.capture").write_text(capture.write(
            {"device": "gpu01", "platform": "linux_mlx5", "collected": "2026-12-04T12:00:00Z"}, sections))
        return [f"{f.code} {f.message}" for f in lint([fabric]).findings
                if f.device == "gpu01" and f.code in ("NIC001", "NIC002", "MAP001", "LNK004")]

    said = messages(dcb_host_sections(iface, edit))
    fixes = {m.split(" ", 1)[0]: m.rsplit("`", 2)[1] for m in said if "`" in m}
    if tool == "dcb":
        assert fixes["NIC001"] == f"dcb pfc set dev {iface} prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"
        assert fixes["LNK004"] == f"dcb app replace dev {iface} dscp-prio 26:3", said
    else:
        assert fixes["NIC001"] == f"mlnx_qos -i {iface} --pfc 0,0,0,1,0,0,0,0"
        assert fixes["LNK004"] == f"mlnx_qos -i {iface} --dscp2prio set,26,3", said
    assert not [m for m in said if ("mlnx_qos" in m) == (tool == "dcb") and "`" in m], said

    said = messages(dcb_host_sections(iface, lambda obj, output: "" if obj == "app" else output))
    trust = [m for m in said if m.startswith(("NIC002", "LNK004"))]
    assert trust, said
    for message in trust:
        assert (f"`dcb app replace dev {iface} dscp-prio DSCP:PRIORITY` for each DSCP in use" in message
                if tool == "dcb" else f"`mlnx_qos -i {iface} --trust dscp`" in message), message


def test_bare_dcb_json_is_named_not_read(tmp_path):
    """A bare `dcb -j pfc show` file says no command: read with --format mlx5 it is refused, saying to save it in a
    capture (before: "neither a losslessd capture ..."; without --format no platform claims it)."""
    path = tmp_path / "pfc.json"
    path.write_text('{"pfc_cap":8,"prio_pfc":[false,false,false,true,false,false,false,false]}\n')
    with pytest.raises(InputError, match=r"capture's section, whose `#% command: dcb -j pfc show dev IF` line"):
        parse_group("h", [path], fmt="linux_mlx5")
