"""Which ports carry RoCE: every port in or out with the rule that decided, and never a silent pass."""

from __future__ import annotations

import json
from pathlib import Path

from losslessd import api
from losslessd.lint.finding import Severity
from tests.clirun import losslessd


def _config_db(tmp_path: Path, ports: int, qos: dict | None) -> Path:
    """A whole CONFIG_DB with ``ports`` admin-up ports and the given PORT_QOS_MAP (None: no table)."""
    data = {"DEVICE_METADATA": {"localhost": {"hostname": "tor1", "hwsku": "Test-98"}},
            "PORT": {f"Ethernet{4 * i}": {"admin_status": "up", "speed": "100000", "mtu": "9100"}
                     for i in range(ports)}}
    if qos is not None:
        data["PORT_QOS_MAP"] = qos
    folder = tmp_path / "tor1"
    folder.mkdir(parents=True)
    (folder / "config_db.json").write_text(json.dumps(data, indent=2))
    return folder


def test_98_admin_up_ports_without_port_qos_map_fail_the_run_not_a_clean_pass(tmp_path):
    for qos in (None, {}):  # no table, or an empty one
        folder = _config_db(tmp_path / ("none" if qos is None else "empty"), 98, qos)
        result = api.lint([folder], "sonic-azure")
        (sel,) = [f for f in result.findings if f.code == "SEL001"]
        assert sel.severity == Severity.warning and sel.device == "tor1"
        assert "0 of 98 ports selected as RoCE-facing; out: 98 by roce_ports.select" in sel.message
        assert result.fails(Severity.warning)
        # the one device of the run had nothing checked: not findings (1), and never clean (0)
        res = losslessd("lint", folder, "--policy", "sonic-azure", "--fail-on", "error")
        assert res.returncode == 2 and "SEL001" in res.stdout
        assert "nothing checked: 1 device read (tor1)" in res.stderr
        assert "1 device read, 0 checked against policy sonic-azure" in res.stdout


def test_explain_selection_and_json_report_say_why_each_port_is_in_or_out(tmp_path):
    qos = {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet4": {"pfc_enable": "3,4"}}
    folder = _config_db(tmp_path, 3, qos)
    data = json.loads((folder / "config_db.json").read_text())
    data["PORT"]["Ethernet4"]["admin_status"] = "down"
    (folder / "config_db.json").write_text(json.dumps(data))
    res = losslessd("lint", folder, "--policy", "sonic-azure", "--explain-selection")
    assert "tor1: 1 of 3 ports selected as RoCE-facing (by roce_ports.select); out: 1 by admin-down, " \
           "1 by roce_ports.select" in res.stdout
    assert "  in  Ethernet0: roce_ports.select is qos-configured: the port has PFC, QoS-map or trust settings" in res.stdout
    assert "  out Ethernet4: the port is administratively down [admin-down]" in res.stdout
    assert "  out Ethernet8: roce_ports.select is qos-configured and the port has no PFC" in res.stdout
    report = json.loads(losslessd("lint", folder, "--policy", "sonic-azure", "-f", "json").stdout)
    (device,) = report["devices"]
    assert device["selection"]["selected"] == 1
    assert {p["port"]: (p["selected"], p["rule"]) for p in device["selection"]["ports"]} == {
        "Ethernet0": (True, "roce_ports.select"), "Ethernet4": (False, "admin-down"),
        "Ethernet8": (False, "roce_ports.select")}


def test_smart_switch_dpu_ports_are_lossy_by_design(tmp_path):
    """qos_config.j2 (sonic-buildimage) gives PORT role Dpc ports tc_to_pg_map AZURE_DPC and no pfc_enable."""
    data = {
        "DEVICE_METADATA": {"localhost": {"hostname": "ss1"}},
        "PORT": {"Ethernet0": {"admin_status": "up"}, "Ethernet224": {"admin_status": "up", "role": "Dpc"},
                 "Ethernet232": {"admin_status": "up"}},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}, "AZURE_DPC": {str(t): "0" for t in range(7)}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"},
                         "Ethernet224": {"tc_to_pg_map": "AZURE_DPC"},
                         # no role in PORT, but the same shape: a map no PFC-enabled port binds, no pfc_enable
                         "Ethernet232": {"tc_to_pg_map": "AZURE_DPC"}},
    }
    (tmp_path / "config_db.json").write_text(json.dumps(data))
    result = api.lint([tmp_path], "sonic-azure", select_codes=["PFC", "SEL"])
    choices = {c.port: c for c in result.selection["ss1"]}
    assert choices["Ethernet0"].selected
    assert (choices["Ethernet224"].selected, choices["Ethernet224"].rule) == (False, "lossy-by-design")
    assert "PORT role Dpc" in choices["Ethernet224"].reason
    assert "binds tc_to_pg_map AZURE_DPC (the PFC-enabled ports bind AZURE)" in choices["Ethernet232"].reason
    assert [f.port for f in result.findings if f.severity != Severity.info] == []  # no PFC001 on DPU ports


def test_corpus_smart_switch_dpu_ports_are_out(corpus):
    result = api.lint([corpus / "sonic" / "mellanox4700-smartswitch"], "sonic-azure")
    out = {c.port for c in result.selection["mellanox4700-smartswitch"] if c.rule == "lossy-by-design"}
    assert out == {"Ethernet224", "Ethernet232", "Ethernet240", "Ethernet248"}
    assert not [f for f in result.findings if f.severity != Severity.info]


def test_buffers_only_dump_is_not_clean(corpus):
    """A buffers-only dump cannot show which ports carry RoCE, so nothing on it was checked: a warning (it was an
    unverified info and the run exited 0, which read as clean), and exit 2 when it is the run's only device."""
    folder = corpus / "sonic" / "mellanox2410"
    result = api.lint([folder], "sonic-azure")
    (sel,) = [f for f in result.findings if f.code == "SEL001"]
    assert sel.severity == Severity.warning and "so no port of this switch was checked" in sel.message
    assert (result.coverage.checked, result.coverage.unchecked) == (0, ("mellanox2410",))
    res = losslessd("lint", folder, "--policy", "sonic-azure")
    assert res.returncode == 2 and "nothing checked" in res.stderr


def test_service_ports_without_pfc_and_pfc_to_queue_map_are_lossy_by_design(tmp_path):
    """qos_config.j2 PORT_SERVICE ports (Arista 7060X6 Ethernet512/513) get the maps but neither pfc_enable
    nor pfc_to_queue_map; a port that forgot only pfc_enable is still checked (and PFC001 finds it)."""
    full = {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE"}
    data = {"DEVICE_METADATA": {"localhost": {"hostname": "x6"}},
            "PORT": {p: {"admin_status": "up"} for p in ("Ethernet0", "Ethernet8", "Ethernet512")},
            "DSCP_TO_TC_MAP": {"AZURE": {"3": "3", "4": "4"}}, "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3", "4": "4"}},
            "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}},
            "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {"3": "3", "4": "4"}},
            "PORT_QOS_MAP": {"Ethernet0": {**full, "pfc_enable": "3,4", "pfc_to_queue_map": "AZURE"},
                             "Ethernet8": {**full, "pfc_to_queue_map": "AZURE"},
                             "Ethernet512": dict(full)}}
    (tmp_path / "config_db.json").write_text(json.dumps(data))
    result = api.lint([tmp_path], "sonic-azure", select_codes=["PFC001"])
    choices = {c.port: c for c in result.selection["x6"]}
    assert (choices["Ethernet512"].selected, choices["Ethernet512"].rule) == (False, "lossy-by-design")
    assert "service port" in choices["Ethernet512"].reason
    assert choices["Ethernet8"].selected
    assert {f.port for f in result.findings if f.code == "PFC001"} == {"Ethernet8"}


def _lossy_sku(tmp_path: Path, name: str, ports: int) -> Path:
    """A SONiC switch lossy by design, as the lossy SKUs' qos_config.j2 writes it: maps bound on every port, every
    TC in PG 0 on a profile without xoff, no pfc_enable, no wred_profile on any queue."""
    names = [f"Ethernet{4 * i}" for i in range(ports)]
    data = {"DEVICE_METADATA": {"localhost": {"hostname": name, "hwsku": "Lossy-SKU"}},
            "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}},  # (a saved config names its release: 202211)
            "PORT": {p: {"admin_status": "up", "speed": "100000", "mtu": "9100"} for p in names},
            "DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "3": "3", "4": "4"}},
            "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"1": "0", "3": "0", "4": "0"}},
            "BUFFER_POOL": {"ingress_lossy_pool": {"type": "ingress", "mode": "dynamic", "size": "12766208"}},
            "BUFFER_PROFILE": {"ingress_lossy_profile": {"pool": "ingress_lossy_pool", "size": "0", "dynamic_th": "3"}},
            "BUFFER_PG": {f"{p}|0": {"profile": "ingress_lossy_profile"} for p in names},
            "PORT_QOS_MAP": {p: {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE"} for p in names}}
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "config_db.json").write_text(json.dumps(data, indent=2))
    return folder


def test_a_switch_without_lossless_configuration_is_said_once_or_skipped_by_the_policy(tmp_path):
    """Under a lossless policy a lossy-by-design switch is one PFC006 error for the switch, not PFC001, MAP001,
    ECN001 and BUF002 on each of its ports; with roce_ports.devices_without_lossless: skip it carries no RoCE: its
    ports are out, SEL001 says so as an info, and a run that checked nothing else exits 2 (never clean), while one
    that checked another switch has its exit code from that switch's findings alone."""
    lossy = _lossy_sku(tmp_path, "lossy1", 8)
    result = api.lint([lossy], "sonic-azure")
    assert [(f.code, f.severity, f.port) for f in result.findings] == [("PFC006", Severity.error, None)]
    assert "on its 8 RoCE-facing ports (Ethernet0, Ethernet4, Ethernet8, Ethernet12 and 4 more)" in \
        result.findings[0].message
    assert losslessd("lint", lossy, "--policy", "sonic-azure").returncode == 1

    policy = tmp_path / "skip.yaml"
    policy.write_text("name: skip\nextends: sonic-azure\nroce_ports: {devices_without_lossless: skip}\n")
    result = api.lint([lossy], str(policy))
    (sel,) = result.findings
    assert (sel.code, sel.severity) == ("SEL001", Severity.info)
    assert "out: 8 by roce_ports.devices_without_lossless" in sel.message
    assert {c.rule for c in result.selection["lossy1"]} == {"roce_ports.devices_without_lossless"}
    res = losslessd("lint", lossy, "--policy", policy, "--fail-on", "info")
    assert res.returncode == 2 and "nothing checked: 1 device read (lossy1)" in res.stderr
    assert "of them" not in res.stderr and "the others" not in res.stderr
    # beside a switch whose one port is down (SEL001 for another reason): the key is named for lossy1 alone
    down = tmp_path / "down1"
    down.mkdir()
    (down / "config_db.json").write_text(json.dumps({
        "DEVICE_METADATA": {"localhost": {"hostname": "down1", "hwsku": "X"}},
        "PORT": {"Ethernet0": {"admin_status": "down", "speed": "100000"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}))
    res = losslessd("lint", lossy, down, "--policy", policy)
    assert res.returncode == 2 and "nothing checked: 2 devices read (lossy1, down1)" in res.stderr
    assert ": of them, lossy1 configures no lossless setting on any port" in res.stderr
    assert "; the others have no RoCE-facing port whose settings the input shows" in res.stderr

    # beside a switch with PFC on its ports: that one is checked, the lossy one is not, and it fails nothing
    leaf = _config_db(tmp_path / "leaf", 2, {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet4": {"pfc_enable": "3,4"}})
    result = api.lint([lossy, leaf], str(policy))
    assert {f.code for f in result.findings if f.device == "lossy1"} == {"SEL001"}
    assert (result.coverage.checked, result.coverage.unchecked) == (1, ("lossy1",))
    assert not [f for f in result.findings if f.device == "tor1" and f.code in ("PFC001", "PFC006", "SEL001")]


def test_render_and_fix_of_a_switch_the_policy_skips_say_so_naming_the_key(tmp_path):
    """Under roce_ports.devices_without_lossless: skip a switch without lossless configuration has no selected port:
    `render --device` and `fix` exit 2 with a message naming the policy key (not a bare "no RoCE-facing port", nor a
    generic "nothing checked"), and never print a snippet."""
    lossy = _lossy_sku(tmp_path, "lossy1", 4)
    policy = tmp_path / "skip.yaml"
    policy.write_text("name: skip\nextends: sonic-azure\nroce_ports: {devices_without_lossless: skip}\n")
    render = losslessd("render", "--platform", "sonic", "--device", lossy, "--policy", policy)
    assert render.returncode == 2 and render.stdout == ""
    assert "lossy1 configures no lossless setting on any port and policy skip sets " \
           "roce_ports.devices_without_lossless: skip" in render.stderr and "nothing to render" in render.stderr
    fix = losslessd("fix", lossy, "--policy", policy, "--unsafe-fixes")
    assert fix.returncode == 2 and "{" not in fix.stdout
    assert "lossy1 configures no lossless setting on any port and policy skip sets " \
           "roce_ports.devices_without_lossless: skip" in fix.stderr
    # a name_regex that leaves every port out first: the selection's reason, not the key (render blamed the key)
    policy.write_text("name: skip\nextends: sonic-azure\nroce_ports: {devices_without_lossless: skip, "
                      "name_regex: '^Nope'}\n")
    render = losslessd("render", "--platform", "sonic", "--device", lossy, "--policy", policy)
    assert render.returncode == 2 and render.stdout == ""
    assert "devices_without_lossless" not in render.stderr and "no RoCE-facing port" in render.stderr


def test_a_switch_whose_pfc_lines_all_turn_pfc_off_is_pfc006(tmp_path):
    """An explicit off (NX-OS `priority-flow-control mode off`, SONiC `pfc_enable: ""`) is no lossless configuration:
    the switch is one PFC006 naming the first such line, not PFC001 per port at it (session 32 counted it as PFC
    written). A PFC line that turns PFC on without effect (NX-OS `mode on`, no no-drop class) stays PFC001's."""
    nxos = tmp_path / "n9k.cfg"
    nxos.write_text("hostname n9k-off\n" + "".join(
        f"interface Ethernet1/{i}\n  priority-flow-control mode off\n  no shutdown\n" for i in (1, 2)))
    result = api.lint([nxos], "roce-dscp26", fmt="cisco_nxos")
    errors = [f for f in result.findings if f.severity != Severity.info]
    assert [(f.code, f.port) for f in errors] == [("PFC006", None)]
    assert f"PFC is turned off in so many words on 2 of them (first: Ethernet1/1 at {nxos}:3)" in errors[0].message
    assert errors[0].data["pfc_off_ports"] == ["Ethernet1/1", "Ethernet1/2"]

    sonic_db = _config_db(tmp_path / "off", 2, {"Ethernet0": {"pfc_enable": ""}, "Ethernet4": {"pfc_enable": ""}})
    result = api.lint([sonic_db], "sonic-azure")
    assert [f.code for f in result.findings if f.severity != Severity.info] == ["PFC006"]

    nxos.write_text(nxos.read_text().replace("mode off", "mode on"))
    result = api.lint([nxos], "roce-dscp26", fmt="cisco_nxos")
    assert sorted((f.code, f.port) for f in result.findings if f.code in ("PFC001", "PFC006")) == [
        ("PFC001", "Ethernet1/1"), ("PFC001", "Ethernet1/2")]


def test_pfc_off_beside_a_written_lossless_priority_is_pfc001_per_port_not_pfc006(tmp_path):
    """Onyx `no dcb priority-flow-control enable` beside `dcb priority-flow-control priority 3 enable` and a port's
    `mode on force`, EOS `no priority-flow-control` beside `priority-flow-control priority 3 no-drop`: lossless
    settings written without effect (PFC001 per port, at the line that turns PFC off), not a switch that configures
    nothing lossless (PFC006, which is for off lines alone)."""
    onyx = tmp_path / "onyx.cfg"
    onyx.write_text("no dcb priority-flow-control enable\ndcb priority-flow-control priority 3 enable\n" + "".join(
        f"interface ethernet 1/{i} qos trust L3\ninterface ethernet 1/{i} dcb priority-flow-control mode on force\n"
        for i in (1, 2)))
    result = api.lint([onyx], "roce-dscp26", fmt="nvidia_onyx")
    assert sorted((f.code, f.port, f.source.line) for f in result.findings if f.code in ("PFC001", "PFC006")) == [
        ("PFC001", "Eth1/1", 1), ("PFC001", "Eth1/2", 1)]
    onyx.write_text("no dcb priority-flow-control enable\n" + "".join(
        f"interface ethernet 1/{i} qos trust L3\n" for i in (1, 2)))  # the off line alone: PFC006
    result = api.lint([onyx], "roce-dscp26", fmt="nvidia_onyx")
    assert [f.code for f in result.findings if f.code in ("PFC001", "PFC006")] == ["PFC006"]

    eos = tmp_path / "eos.cfg"
    eos.write_text("hostname eos-a\n" + "".join(
        f"interface Ethernet{i}\n   qos trust dscp\n   priority-flow-control priority 3 no-drop\n"
        "   no priority-flow-control\n" for i in (1, 2)))
    result = api.lint([eos], "roce-dscp26", fmt="arista_eos")
    assert sorted((f.code, f.port, f.source.line) for f in result.findings if f.code in ("PFC001", "PFC006")) == [
        ("PFC001", "Ethernet1", 5), ("PFC001", "Ethernet2", 9)]


def test_rules_pfc006_subsumes_report_their_own_when_pfc006_is_not_run(tmp_path):
    """On a switch with no lossless setting PFC006 says once what PFC001 and MAP003 would say per port; with PFC006
    not selected (--select MAP003, --select PFC001,MAP003, --ignore PFC006) they report their own: the run is never
    clean (exit 0) because an unselected rule would have said it."""
    eos = tmp_path / "eos.cfg"
    eos.write_text("hostname eos-a\ninterface Ethernet1\n   qos trust cos\n\ninterface Ethernet2\n   qos trust cos\n")
    for args, codes in ((("--select", "MAP003"), ["MAP003", "MAP003"]),
                        (("--select", "PFC001,MAP003"), ["MAP003", "MAP003", "PFC001", "PFC001"]),
                        (("--select", "PFC006,MAP003"), ["PFC006"])):
        res = losslessd("lint", eos, "--output-format", "json", *args)
        assert res.returncode == 1, res.stderr
        found = json.loads(res.stdout)["findings"]
        assert sorted(f["code"] for f in found if f["severity"] == "error") == codes
    other = tmp_path / "eos-b.cfg"
    other.write_text(eos.read_text().replace("eos-a", "eos-b"))
    for jobs in ("1", "2"):  # (two devices, two worker processes check the per-port rules: the same)
        res = losslessd("lint", eos, other, "--ignore", "PFC006", "--output-format", "json", "--jobs", jobs)
        assert res.returncode == 1
        found = json.loads(res.stdout)["findings"]
        assert {(f["device"], f["code"]) for f in found if f["severity"] == "error"} >= {
            (d, c) for d in ("eos-a", "eos-b") for c in ("PFC001", "MAP003")}


def test_rules_pfc004_subsumes_report_their_own_when_pfc004_is_not_run(tmp_path):
    """On a lossy-mode switch (Onyx `roce lossy`) PFC004 says once what
    PFC001 would say per port; with PFC004 not selected (--select PFC001, --ignore PFC004) PFC001 reports its own: the
    run is never clean (exit 0) because an unselected rule would have said it (session 33 gave 0 errors here)."""
    onyx = tmp_path / "onyx.cfg"
    onyx.write_text("interface ethernet 1/1-1/2 qos trust L3\nroce lossy\n")
    errors = {}
    for name, kw in (("default", {}), ("select", {"select_codes": ["PFC001"]}),
                     ("ignore", {"ignore_codes": ["PFC004"]})):
        result = api.lint([onyx], "roce-dscp26", fmt="nvidia_onyx", **kw)
        errors[name] = sorted((f.code, f.port) for f in result.findings if f.severity == Severity.error)
    assert errors["default"] == [("PFC004", None)]
    assert errors["select"] == errors["ignore"] == [("PFC001", "Eth1/1"), ("PFC001", "Eth1/2")]
