"""`losslessd fix`: for every fixable rule and every platform that can express its breakage, a config
rendered with the wrong value trips the rule, and the fix snippet, applied as the device would take it,
clears it without adding a new problem. Plus host captures with their fix script run over them, the CLI,
the JSON output, the apply functions and the cut of a snippet down to what it changes."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from losslessd import api, fix
from losslessd import render as rnd
from losslessd.fix import apply
from losslessd.fix import output as fix_output
from losslessd.lint.engine import run
from losslessd.lint.finding import Severity
from losslessd.lint.registry import all_rules
from losslessd.model import DeviceKind, Fabric, ForwardingClass, Source
from losslessd.parse import parse_group
from losslessd.platforms import PLATFORMS
from losslessd.policy import load_policy
from losslessd.render import opensm
from tests import render_golden
from tests.clirun import losslessd
from tests.conftest import CORPUS
from tests.test_render_accepted import unlisted_lines

ROOT = Path(__file__).resolve().parent.parent
POLICY = "roce-dscp26"  # lossless 3, CNP 48 strict on 6, ECN and watchdog required: every rule can fire
GPU03 = ROOT / "examples/fabric/gpu03.capture"  # trusts PCP, PFC on 4 instead of 3
FIXABLE = sorted(code for code, rule in all_rules().items() if rule.fixable)
# Config shapes a device takes by pasting: the snippet appended to the config must work as well.
PASTED = {"arista_eos", "cisco_nxos", "juniper_junos", "nvidia_cumulus"}


def _with_ports(prof, change):
    return replace(prof, ports=[replace(p, **change(p)) for p in prof.ports])


def _with_pgs(prof, change):
    """Change each port's SONiC lossless PG profile (render.SonicPg)."""
    return replace(prof, ports=[replace(p, sonic=replace(p.sonic, **change(p.sonic))) if p.sonic else p
                                for p in prof.ports])


def _lossy(pol) -> int:
    return max(set(range(8)) - set(pol.lossless.priorities) - set(pol.lossless.tolerated_priorities))


# How to break each rule's setting in a rendered profile (the policy is POLICY; for opensm, infiniband).
BREAK = {
    "PFC001": lambda prof, pol: replace(prof, pfc=prof.lossless[1:]),
    "PFC002": lambda prof, pol: replace(prof, pfc=[*prof.lossless, _lossy(pol)]),
    "MAP001": lambda prof, pol: replace(prof, dscp_to_tc={**prof.dscp_to_tc, **{d: 0 for d in pol.lossless.dscp}}),
    "MAP002": lambda prof, pol: replace(prof, strict_queues=[]),
    "MAP003": lambda prof, pol: replace(prof, trust="pcp"),
    "MAP004": lambda prof, pol: replace(prof, pfc_to_queue={q: (q + 1) % 8 if q in prof.lossless else q
                                                            for q in range(8)}),
    "ECN001": lambda prof, pol: replace(prof, ecn=False),
    "ECN002": lambda prof, pol: _with_ports(prof, lambda p: {"kmin_bytes": p.kmax_bytes + 1}),
    "ECN003": lambda prof, pol: _with_ports(prof, lambda p: {
        "kmin_bytes": int(pol.ecn.min_threshold_bytes.max) + 1,
        # (max above min: NVUE renders no equal pair)
        "kmax_bytes": max(p.kmax_bytes, int(pol.ecn.min_threshold_bytes.max) + 2)}),
    "ECN004": lambda prof, pol: _with_ports(prof, lambda p: {"kmin_bytes": int(pol.ecn.max_threshold_bytes.max),
                                                             "kmax_bytes": int(pol.ecn.max_threshold_bytes.max)}),
    "BUF001": lambda prof, pol: _with_pgs(prof, lambda pg: {"size_bytes": pg.xon_bytes}),
    "BUF002": lambda prof, pol: _with_pgs(prof, lambda pg: {"xoff_bytes": 1024, "size_bytes": pg.xon_bytes + 1024}),
    "WDG001": lambda prof, pol: replace(prof, watchdog=False),
    "WDG002": lambda prof, pol: replace(prof, wd_detection_ms=int(pol.watchdog.detection_time_ms.max) + 1000),
    "WDG004": lambda prof, pol: prof,  # the maps are edited after rendering (EDIT)
    "NIC001": lambda prof, pol: replace(prof, pfc=[*prof.lossless, _lossy(pol)]),
    "NIC002": lambda prof, pol: replace(prof, nic_trust="pcp"),
    "NIC003": lambda prof, pol: prof,  # the script is edited after rendering (EDIT)
    "NIC004": lambda prof, pol: replace(prof, ecn=False),  # the TOS loses its ECT bits
    "NIC005": lambda prof, pol: prof,  # the script is edited after rendering (EDIT)
    "BUF005": lambda prof, pol: prof,  # the patch is edited after rendering (EDIT)
    "PFC004": lambda prof, pol: prof,  # the config is edited after rendering (EDIT)
    "PFC007": lambda prof, pol: prof,  # the config is edited after rendering (EDIT)
    # Nothing lossless on any port: no PFC, no ECN marking (and so no lossless PG or watchdog rendered).
    "PFC006": lambda prof, pol: replace(prof, pfc=[], ecn=False, watchdog=False),
    "NIC006": lambda prof, pol: replace(prof, ecn=False),  # the device's traffic class loses its ECT bits
    # A strict queue above the lossless one that traffic reaches (the CNP class's queue stays strict).
    "SCH001": lambda prof, pol: replace(prof, strict_queues=[*prof.strict_queues, 0]),
    "IBS001": lambda prof, pol: replace(prof, routing_engines=["minhop"]),
    "IBS002": lambda prof, pol: replace(prof, no_fallback=False),
    "IBS004": lambda prof, pol: replace(prof, sweep_interval_s=0),
}
# Breakages a platform needs of its own, where the rule reads that platform differently.
BREAK_ON = {
    # A NIC's CNP check reads the priority it marks CNPs with (cnp_802p_prio), the profile's cnp_priority.
    ("MAP002", "linux_mlx5"): lambda prof, pol: replace(prof, cnp_priority=5),
    # NX-OS sends XOFF at a long cable's explicit pause-threshold, rendered a frame above the port's Kmin: a Kmin
    # broken past it would also trip ECN004, whose fix must size that buffer from a cable length the config does
    # not state. The broken port's pause buffer is sized for its broken Kmin, so only the rule under test fires.
    ("ECN002", "cisco_nxos"): lambda prof, pol: _pause_above_kmin(BREAK["ECN002"](prof, pol)),
    ("ECN003", "cisco_nxos"): lambda prof, pol: _pause_above_kmin(BREAK["ECN003"](prof, pol)),
    # Junos writes Kmin as a whole percent of the queue buffer, rounded to the policy's range where a whole percent
    # lands in it (PortProfile.ecn_fill): a Kmin one byte above the range would round back in.
    ("ECN003", "juniper_junos"): lambda prof, pol: _with_ports(BREAK["ECN003"](prof, pol), lambda p: {
        "kmin_bounds": (0, math.inf)}),
    # EOS queues above the last `no priority` one are strict by default (queue 0 cannot be made strict alone): a DSCP
    # the written map sends to TC 5 reaches strict queue 5 above the lossless queue; the fix remaps it (disruptive).
    ("SCH001", "arista_eos"): lambda prof, pol: replace(prof, dscp_to_tc={**prof.dscp_to_tc, 10: 5}),
}


def _pause_above_kmin(prof):
    return _with_ports(prof, lambda p: {"pause_buffer": p.pause_buffer and rnd._pause_buffer(
        p.speed_gbps, p.cable_length_m, p.mtu_bytes, p.kmin_bytes)})
# Rendered text edited into a broken one: the host template only ever switches DCQCN on.
EDIT = {"NIC003": lambda text: text.replace("echo 1 > ", "echo 0 > "),
        # 802.3x pause back on; RDMA-CM's own default is what NIC004 checks, so the device-wide traffic class
        # (which overrides it) is left out of that host's script.
        "NIC005": lambda text: text.replace("rx off tx off", "rx on tx on"),
        "NIC004": lambda text: "".join(line for line in text.splitlines(keepends=True) if "/traffic_class" not in line),
        "BUF005": lambda text: _lossy_egress(text),
        "WDG004": lambda text: _queued_one_up(text),
        "PFC004": lambda text: _roce_lossy_mode(text),
        "PFC006": lambda text: _no_lossless(text),
        "PFC007": lambda text: _member_pfc_off(text)}


def _member_pfc_off(text: str) -> str:
    """NX-OS: the first port made the one member of port-channel10, which carries the port's lines but its speed
    (Nexus 9000 Interfaces guide, "Configuring Port Channels"), with the member's own `priority-flow-control mode off`
    left (a compatibility parameter the member may set for itself: PFC007)."""
    head, first, rest = re.split(r"(?m)^(interface \S+\n(?:  .*\n)*)", text, maxsplit=1)
    lines = first.splitlines(keepends=True)
    channel = "interface port-channel10\n" + "".join(line for line in lines[1:] if not line.startswith("  speed "))
    member = "".join(lines[:1]) + "  channel-group 10 mode active\n" + "".join(lines[1:]).replace(
        "  priority-flow-control mode on\n", "  priority-flow-control mode off\n")
    return head + member + rest + channel


def _no_lossless(text: str) -> str:
    """A render with no PFC line at all (PFC written without effect is PFC001's, per port at the line, not PFC006's):
    SONiC without `pfc_enable` and without its lossless BUFFER_PG entries (a PG with xoff headroom is lossless
    configuration), EOS without `priority-flow-control on` (off by default); other platforms' text as rendered."""
    if not text.startswith("{"):
        return "".join(line for line in text.splitlines(keepends=True) if line.strip() != "priority-flow-control on")
    db = json.loads(text)
    db.pop("BUFFER_PG", None)
    for entry in db.get("PORT_QOS_MAP", {}).values():
        entry.pop("pfc_enable", None)
    return json.dumps(db, indent=2) + "\n"


def _roce_lossy_mode(text: str) -> str:
    """NVUE RoCE lossy mode (Cumulus Linux RoCE guide, `nv set qos roce mode lossy`) deciding PFC, with its cable
    length, instead of the rendered PFC profiles and traffic pools."""
    kept = [line for line in text.splitlines(keepends=True) if " qos pfc " not in line and "traffic-pool" not in line]
    return "".join(kept) + "nv set qos roce mode lossy\nnv set qos roce cable-length 5\n"


def _lossy_egress(text: str) -> str:
    """SONiC stock egress buffers (buffers_config.j2: egress_lossless_profile static_th = its pool, sample
    buffers-dell6100.json numbers) with each port's lossless queue left on egress_lossy_profile."""
    db = json.loads(text)
    db["BUFFER_POOL"].update({"egress_lossless_pool": {"type": "egress", "mode": "static", "size": "15982720"},
                              "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "9243812"}})
    db["BUFFER_PROFILE"].update({
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "1518", "static_th": "15982720"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"}})
    db["BUFFER_QUEUE"] = {f"{port}|{q}": {"profile": "egress_lossy_profile"} for port in db["PORT"] for q in range(8)}
    return json.dumps(db, indent=2) + "\n"
def _queued_one_up(text: str) -> str:
    """SONiC maps with every class and its PFC pause in the next queue up (TC 3 and a pause for 3 -> queue 4): the
    maps agree with each other, but the watchdog still watches queue 3 for priority 3."""
    db = json.loads(text)
    for table in ("TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"):
        for entries in db[table].values():
            entries.update({k: str((int(v) + 1) % 8) for k, v in entries.items()})
    return json.dumps(db, indent=2) + "\n"


# Device kinds a rule checks, where it is not a port rule of one kind (a fixable rule in neither fails here).
KINDS = {"MAP001": {DeviceKind.switch, DeviceKind.host}, "MAP002": {DeviceKind.switch, DeviceKind.host},
         "NIC004": {DeviceKind.host}, "NIC006": {DeviceKind.host}, "SCH001": {DeviceKind.switch, DeviceKind.host},
         "PFC004": {DeviceKind.switch}, "PFC006": {DeviceKind.switch}, "PFC007": {DeviceKind.switch},
         "IBS001": {DeviceKind.subnet_manager},
         "IBS002": {DeviceKind.subnet_manager}, "IBS004": {DeviceKind.subnet_manager}}
# (rule, platform) pairs a platform cannot express, and why.
CANNOT = {
    ("MAP002", "arista_eos"): "EOS queues above the last `no priority` queue are strict by default",
    ("MAP003", "sonic"): "SONiC trusts DSCP wherever a DSCP map is bound; no PCP trust is rendered",
    ("MAP004", "arista_eos"): "EOS has no PFC priority->queue setting: a pause stops its traffic class's queue",
    ("MAP004", "cisco_nxos"): "NX-OS has no PFC priority->queue setting: a pause stops its no-drop class's queue",
    ("MAP004", "nvidia_cumulus"): "NVUE has no PFC priority->queue setting: a pause stops its switch priority's "
                                  "queue",
    ("MAP004", "juniper_junos"): "the Junos template writes flow-control-queue with the PFC profile, not with the "
                                 "maps MAP004's fix renders",
    ("MAP003", "cisco_nxos"): "the NX-OS template classifies by DSCP only: it renders no PCP trust",
    ("MAP003", "juniper_junos"): "the Junos template binds a DSCP classifier only: it renders no PCP trust",
    ("ECN002", "juniper_junos"): "Junos ECN is a drop profile of fill levels: the template cannot write Kmin above Kmax",
    ("PFC001", "nvidia_cumulus"): "NVUE with no PFC priority renders no PFC profile, which lint reads as unknown",
    ("PFC006", "nvidia_cumulus"): "NVUE with no PFC priority renders no PFC profile, which lint reads as unknown",
    ("PFC002", "juniper_junos"): "the Junos template sets PFC per lossless forwarding class: a lossy PFC priority "
                                 "renders lines its parser cannot read",
    ("SCH001", "linux_mlx5"): "the host script writes no ETS scheduler: SCH001's NIC findings need a human",
    ("SCH001", "nvidia_cumulus"): "the NVUE model reads no queue weights or strictness back",
    **{("BUF005", platform): "only SONiC writes an egress buffer profile per queue (BUFFER_QUEUE)"
       for platform in ("arista_eos", "cisco_nxos", "juniper_junos", "nvidia_cumulus")},
    **{("WDG004", platform): "WDG004 reads only platforms whose watchdog watches the queue numbered as the priority "
                             "(SONiC); this one's watches the paused queues, or its documentation does not say"
       for platform in ("arista_eos", "cisco_nxos", "juniper_junos", "nvidia_cumulus")},
    **{("PFC004", platform): "only NVUE (and Onyx, which has no renderer) has a switch-wide lossy mode"
       for platform in ("sonic", "arista_eos", "cisco_nxos", "juniper_junos")},
    **{("PFC007", platform): "only NX-OS reads a member's own compatibility parameters (model Port.incompatible)"
       for platform in ("sonic", "arista_eos", "juniper_junos", "nvidia_cumulus")},
}
HEADROOM_RULES = {"BUF001", "BUF002", "ECN004"}  # need a PG profile in the config
SWITCH_SECTIONS = {"ports", "maps", "trust", "pfc", "scheduler", "ecn", "buffer", "watchdog"}
# SONiC reads an absent PFC_WD table as "unknown" (unverified): a present table without the port is "off".
SONIC_WATCHDOG_TABLE = {"GLOBAL": {"POLL_INTERVAL": "100"}}
# The EOS template leaves `speed` alone (docs/render.md); a running-config usually shows it, and a fix
# needs it to scale ECN thresholds.
SPEED_LINE = {"arista_eos": "   speed {:g}g"}


def _ext(platform: str) -> str:
    return render_golden.EXTENSIONS.get(platform, "cfg")


def _policy(platform: str) -> str:
    return render_golden.POLICIES_FOR.get(platform, (POLICY,))[0]


def _broken_config(code: str, platform: str) -> str:
    pol = load_policy(_policy(platform))
    ports = [rnd.parse_port_spec(spec) for spec in render_golden.port_specs(platform)]
    prof = (opensm.profile(pol) if platform == "opensm" else
            rnd.profile(pol, ports, pool_bytes=render_golden.POOL_BYTES, **render_golden.options(platform)))
    text = EDIT.get(code, str)(rnd.render(platform, BREAK_ON.get((code, platform), BREAK[code])(prof, pol)))
    if platform in SPEED_LINE:
        for port in ports:
            text = text.replace(f"interface {port.name}\n", f"interface {port.name}\n"
                                f"{SPEED_LINE[platform].format(port.speed_gbps)}\n")
    if platform == "sonic":  # the SKU the profile was rendered for, as the device's config names it
        db = json.loads(text)
        if code == "WDG001":
            db.setdefault("PFC_WD", SONIC_WATCHDOG_TABLE)
        db["DEVICE_METADATA"] = {"localhost": {"hwsku": render_golden.options("sonic")["hwsku"]}}
        text = json.dumps(db, indent=2) + "\n"
    return text


def _lint(path: Path, platform: str):
    return api.lint([path], _policy(platform), fmt=platform)


def _problems(findings) -> dict[str, str]:
    """Fingerprint -> 'CODE port: message' of the findings that are real problems (not unverified infos)."""
    return {f.fingerprint: f"{f.code} {f.port}: {f.message}" for f in findings
            if not f.unverified and f.severity != Severity.info}


def _checks(code: str, platform: str) -> bool:
    """Whether the rule checks this platform's kind of device at all (a pair it does not is no case)."""
    return PLATFORMS[platform].kind in (KINDS.get(code) or {all_rules()[code].device_kind})


def _reason(code: str, platform: str) -> str | None:
    if code in HEADROOM_RULES and "BUF003" in render_golden.RUNTIME_INFOS.get(platform, ()):
        return f"{platform} sizes PFC headroom at run time: no PG profile to break, {code} is unverified there"
    return CANNOT.get((code, platform))


def _cases() -> list:
    return [pytest.param(code, platform, id=f"{code}-{platform}",
                         marks=[pytest.mark.skip(reason=reason)] if (reason := _reason(code, platform)) else [])
            for code in FIXABLE for platform in rnd.platforms() if _checks(code, platform)]


@pytest.mark.parametrize(("code", "platform"), _cases())
def test_fix_clears_the_rule_without_adding_problems(tmp_path, code, platform):
    path = tmp_path / f"broken.{_ext(platform)}"
    path.write_text(_broken_config(code, platform))
    before = _lint(path, platform)
    fired = [f for f in before.findings if f.code == code and not f.unverified]
    assert fired, f"the broken config does not trip {code}: {[f.code for f in before.findings]}"

    result = fix.plan(before, unsafe=True, model=render_golden.options(platform).get("model"))
    (dev,) = result.devices
    assert dev.message is None, dev.message
    assert {f.fingerprint for f in fired} <= {f.fingerprint for p in dev.parts for f in p.findings}
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)

    current = path.read_text()
    applied = {"apply": current}
    printed = [p.snippet for p in dev.parts if p.snippet is not None]  # (a part cut to nothing prints none)
    for snippet in printed:
        applied["apply"] = apply.SHAPES[platform].apply(applied["apply"], snippet)
    if platform in PASTED:  # pasting into config mode: the snippets after the config
        applied["pasted"] = current.rstrip("\n") + "\n" + "".join(printed)
    known = _problems(before.findings)
    for how, text in applied.items():
        fixed = tmp_path / how / path.name  # the same device name, so its other findings keep their fingerprints
        fixed.parent.mkdir()
        fixed.write_text(text)
        after = _problems(_lint(fixed, platform).findings)
        assert not [m for m in after.values() if m.startswith(code + " ")], f"{how}: {code} is still there"
        assert {k: m for k, m in after.items() if k not in known} == {}, f"{how}: the fix adds problems"


def test_junos_fix_takes_the_code_point_out_of_its_old_class(tmp_path):
    """The broken Junos config lists DSCP 26 (011010) under best-effort in roce-dscp; the fix lists it under the
    lossless class. Pasted after the config, its `delete` of the classifier comes before its set lines, so the switch
    keeps one entry for 26, and losslessd reads config + snippet the same way: 26 in the lossless class only, no
    MAP001 and no SYS002 for a code point in two classes (read without the `delete`, 26 sat in both)."""
    path = tmp_path / "broken.cfg"
    path.write_text(_broken_config("MAP001", "juniper_junos"))
    listed = [line for line in path.read_text().split("\n") if " code-points " in line and "011010" in line]
    assert len(listed) == 1 and "forwarding-class best-effort" in listed[0]
    before = _lint(path, "juniper_junos")
    result = fix.plan(before, unsafe=True, model=render_golden.options("juniper_junos").get("model"))
    (dev,) = result.devices
    snippet = "".join(p.snippet for p in dev.parts)
    lines = snippet.split("\n")
    new = next(i for i, line in enumerate(lines) if " code-points " in line and "011010" in line)
    assert "delete class-of-service classifiers dscp roce-dscp" in lines[:new]
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    pasted.write_text(path.read_text() + snippet)
    after = _lint(pasted, "juniper_junos")
    assert not [f for f in after.findings if f.code in ("MAP001", "SYS002")], [f.message for f in after.findings]
    (device,) = after.fabric.devices.values()
    port = next(iter(device.ports.values()))
    assert port.tc_label(port.dscp_to_tc[26]) == "forwarding class tc3"


def test_two_lossless_priorities_get_pfc_back(tmp_path):
    """sonic-azure pauses 3 and 4: a port with PFC on 4 only is fixed on both, and nothing else changes."""
    pol = load_policy("sonic-azure")
    ports = [rnd.parse_port_spec(s) for s in render_golden.port_specs("sonic")]
    prof = rnd.profile(pol, ports, pool_bytes=render_golden.POOL_BYTES, **render_golden.options("sonic"))
    path = tmp_path / "leaf.json"
    path.write_text(rnd.render("sonic", replace(prof, pfc=[4])))
    result = fix.plan(api.lint([path], pol), unsafe=True)
    (dev,) = result.devices
    # The watchdog follows pfc_enable in this render, so it lost priority 3 too: a safe fix of its own.
    assert [(p.label, p.sections) for p in dev.parts] == [("safe", ["watchdog"]), ("disruptive", ["pfc"])]
    assert {f.code for f in dev.parts[1].findings} == {"PFC001", "MAP001"}
    assert json.loads(dev.parts[1].snippet) == {"PORT_QOS_MAP": {p.name: {"pfc_enable": "3,4"} for p in ports}}
    assert dev.verified and not dev.unresolved and not dev.introduced


def test_turning_the_watchdog_on_does_not_leave_it_watching_the_wrong_queue(tmp_path):
    """SONiC watches queue 3 for priority 3: a port with its lossless class and pause in queue 4 and the watchdog off
    needs the maps as well as the watchdog. WDG004 fires before the fix (the policy requires a watchdog), so the
    watchdog fix alone never hands back a config that WDG004 flags as new; with --unsafe-fixes both clear."""
    db = json.loads(_broken_config("WDG004", "sonic"))
    db["PFC_WD"] = SONIC_WATCHDOG_TABLE  # a table without the ports: their watchdog is off
    path = tmp_path / "leaf.json"
    path.write_text(json.dumps(db, indent=2) + "\n")
    before = _lint(path, "sonic")
    assert {f.code for f in before.findings if not f.unverified} >= {"WDG001", "WDG004"}
    wdg004 = [f for f in before.findings if f.code == "WDG004"]
    assert all("the PFC watchdog the policy requires (off now) would watch queue 3" in f.message for f in wdg004)

    safe = fix.plan(before, unsafe=False)
    (dev,) = safe.devices
    safe_part, maps_part = dev.parts  # (the safe part also marks and schedules the queue the class sits in now)
    assert (safe_part.label, "watchdog" in safe_part.sections, safe_part.withheld) == ("safe", True, False)
    assert (maps_part.label, maps_part.sections, maps_part.withheld) == ("disruptive", ["maps"], True)
    assert "WDG004" in {f.code for f in maps_part.findings}
    assert dev.verified and not dev.introduced, dev.introduced

    unsafe = fix.plan(before, unsafe=True)
    (dev,) = unsafe.devices
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    fixed = path.read_text()
    for part in dev.parts:
        fixed = apply.SHAPES["sonic"].apply(fixed, part.snippet)
    path.write_text(fixed)
    assert not [f for f in _lint(path, "sonic").findings if f.code.startswith("WDG")]


def test_disruptive_fix_is_withheld_without_unsafe_fixes():
    result = api.fix([ROOT / "examples/fabric/spine1.cfg"], POLICY)
    (dev,) = result.devices
    assert [(p.label, p.withheld) for p in dev.parts] == [("disruptive", True)]
    assert {f.code for f in dev.parts[0].findings} >= {"PFC001", "PFC002"}
    assert dev.diff is None and result.exit_code == 1
    unsafe = api.fix([ROOT / "examples/fabric/spine1.cfg"], POLICY, unsafe=True)
    (dev,) = unsafe.devices
    assert not dev.parts[0].withheld and "priority-flow-control priority 3 no-drop" in dev.parts[0].snippet
    # The hand-typed priority 4 is turned off in place; the port keeps its other lines.
    assert "-   priority-flow-control priority 4 no-drop\n+   priority-flow-control priority 4 drop\n" in dev.diff
    assert dev.verified and not dev.unresolved and not dev.introduced


def test_cli_on_example_fabric_prints_snippets_and_a_diff():
    res = losslessd("fix", "examples/fabric")
    assert res.returncode == 1, res.stderr
    out = res.stdout
    assert "SAFE fix (buffer, ecn) for BUF002 Ethernet48, Ethernet52" in out
    assert '"Ethernet48|3": {"profile": "pg_lossless_100000_300m_profile"}' in out
    assert "+++ examples/fabric/leaf1/config_db.json (fixed)" in out
    assert "DISRUPTIVE fix (pfc) for PFC002 Ethernet8: withheld, needs --unsafe-fixes" in out
    assert "every finding the printed fixes name is gone" in out
    assert out.rstrip().endswith("Nothing was sent to any device.")


def test_lint_fix_prints_the_report_then_the_fixes():
    res = losslessd("lint", "--fix", "--unsafe-fixes", "examples/fabric/spine1.cfg")
    assert res.returncode == 1, res.stderr
    report, fixes = res.stdout.split("\nspine1  (arista_eos", 1)
    assert "PFC001 Ethernet2/1" in report and "DISRUPTIVE fix (pfc)" in fixes and "--- examples/fabric/spine1.cfg" in fixes
    assert losslessd("lint", "--fix", "-f", "json", "examples/fabric/spine1.cfg").returncode == 2


def test_json_output_validates():
    res = losslessd("fix", "-f", "json", "--unsafe-fixes", "examples/fabric")
    assert res.returncode == 1, res.stderr
    data = json.loads(res.stdout)
    schema = json.loads((ROOT / "losslessd/fix/schema.json").read_text())
    jsonschema.validate(data, schema)
    leaf1 = next(d for d in data["devices"] if d["device"] == "leaf1")
    assert leaf1["verified"] and leaf1["diff"].startswith("--- examples/fabric/leaf1/config_db.json")
    assert {f["label"] for f in leaf1["fixes"]} == {"safe", "disruptive"}


def test_device_without_facts_gets_its_section_refused_and_the_others_their_fixes(tmp_path):
    """One device's SONiC config lacks port speeds (no ECN thresholds can be worked out): its ECN part is refused,
    naming the ports and the missing fact, once; the other device is fixed."""
    good = json.loads(_broken_config("ECN001", "sonic"))
    bad = {table: rows for table, rows in good.items() if table != "PORT"}
    (tmp_path / "leafgood.json").write_text(json.dumps(good, indent=2))
    (tmp_path / "leafbad.json").write_text(json.dumps(bad, indent=2))
    result = api.fix([tmp_path], POLICY)
    by_name = {d.device: d for d in result.devices}
    (part,) = by_name["leafbad"].parts
    assert part.snippet is None and not part.withheld and part.sections == ["ecn"]
    assert part.refused == ("ports Ethernet0, Ethernet4, Ethernet8: speed unknown, so its ECN thresholds cannot be "
                            "worked out: state the port's speed in its config and run again, or write this section "
                            "by hand")
    assert by_name["leafgood"].parts and by_name["leafgood"].verified
    res = losslessd("fix", str(tmp_path))
    assert res.returncode == 1 and f"ECN001 Ethernet0, Ethernet4, Ethernet8: no fix, {part.refused}" in res.stdout
    assert "1 refused (each says what to give or to do by hand)" in res.stdout and "leafgood  (sonic" in res.stdout
    # JSON, as the text and the exit: the part refused on its ports (by hand there), the run complete, no input refused
    ran = losslessd("fix", "-f", "json", str(tmp_path))
    data = json.loads(ran.stdout)
    jsonschema.validate(data, json.loads((ROOT / "losslessd/fix/schema.json").read_text()))
    (fixes,) = [d["fixes"] for d in data["devices"] if d["device"] == "leafbad"]
    assert ran.returncode == 1 and data["complete"] is True and data["input_errors"] == []
    assert [(f["refused"], f["refused_on"], f["snippet"]) for f in fixes] == [
        (part.refused, ["Ethernet0", "Ethernet4", "Ethernet8"], None)]


def test_an_nvue_yaml_tree_is_fixed_by_reading_it_with_the_commands_not_by_appending_them(tmp_path):
    """startup.yaml (traffic-pools.yaml, with its ports' speed): the `nv set` snippet was appended to the YAML for the
    diff and the result read again as commands, so "the fix would add" 40 SYS002 lines of skipped YAML. The tree and
    the commands are read together instead: no diff, and the fix verified."""
    text = (ROOT / "tests/fixtures/raw/nvidia_cumulus/traffic-pools.yaml").read_text()
    config = tmp_path / "leaf.yaml"
    config.write_text(text.replace("          mtu: 9216\n", "          mtu: 9216\n          speed: 100G\n"))
    (found,) = api.fix([config], POLICY).devices
    assert found.parts and found.verified and found.diff is None
    assert not found.introduced and not found.unresolved
    assert found.diff_note.startswith("no diff: the config is an NVUE YAML tree")


def test_clean_config_has_nothing_to_fix():
    res = losslessd("fix", "--policy", "roce-dscp26", str(render_golden.golden_path("sonic", "roce-dscp26")))
    assert (res.returncode, res.stdout) == (0, "nothing to fix: no device has a finding a fix template resolves\n")


def test_rules_declare_sections_and_safety_consistently():
    """Disruptive exactly when a rule's fix touches PFC, trust or a map; only fixable rules name sections."""
    for code, rule in all_rules().items():
        assert bool(rule.fix_sections) == rule.fixable, code
        assert rule.fix_sections <= rnd.SECTIONS, code
        # (MAP002: a CNP queue's scheduler is safe, a CNP remap disruptive; SCH001: a scheduler is safe, the remap
        # off EOS's default-strict queues disruptive; their findings say which, disruptive_for)
        assert (rule.disruptive == bool(rule.fix_sections & rnd.DISRUPTIVE_SECTIONS)
                or code in ("MAP002", "SCH001")), code
    out = losslessd("rules", "MAP002").stdout
    assert out.startswith("MAP002 cnp-not-strict  [error, port scope, fixable, safe: `losslessd fix` renders ecn, "
                          "maps, scheduler]")


def test_restricted_sonic_render_is_valid_json_for_any_sections():
    prof = rnd.profile(load_policy(POLICY), [rnd.parse_port_spec(s) for s in render_golden.port_specs("sonic")],
                       pool_bytes=render_golden.POOL_BYTES, **render_golden.options("sonic"))
    for section in sorted(rnd.SECTIONS):
        db = json.loads(rnd.render("sonic", rnd.restrict(prof, {section}, ["Ethernet4"])))
        assert all("Ethernet0" not in json.dumps(rows) for rows in db.values()), section
        assert bool(db) == (section in SWITCH_SECTIONS), section  # a host's TOS, an SM's routing: nothing


# --- apply functions -----------------------------------------------------------------------------------


def test_cli_replay_merges_blocks_and_replaces_settings():
    current = ("hostname s1\n!\ninterface Ethernet1\n   mtu 1500\n   qos trust cos\n   tx-queue 3\n      priority strict\n"
               "!\nend\n")
    snippet = "interface Ethernet1\n   qos trust dscp\n   tx-queue 3\n      no priority\n   !\n   service-profile P\n" \
              "!\nqos map dscp 26 to traffic-class 3\n"
    assert apply.replay_cli(current, snippet) == (
        "hostname s1\n!\ninterface Ethernet1\n   mtu 1500\n   qos trust dscp\n   tx-queue 3\n      no priority\n"
        "   service-profile P\nqos map dscp 26 to traffic-class 3\n!\nend\n")


def test_an_eos_paste_without_indentation_is_fixed_at_the_margin(tmp_path):
    """An EOS config pasted without its indentation (EOS reads each margin line in the mode the one before it left:
    losslessd.parse.eos.flat). Before, the fix put its port line in indented (`   priority-flow-control pause
    watchdog`), so the fixed file read as a running-config and every port's margin line as a global one (SYS002 x3,
    SEL001); now its lines go in at the margin, a port's after the port's last line (its tx-queue's included), the
    global ones after the last port, as EOS takes them, and the fixed file reads as the switch would."""
    current = ("hostname leaf1\n!\ninterface Ethernet1\nmtu 9214\nqos tr d\npriority-flow-control on\n"
               "priority-flow-control priority 3 no-drop\ntx-queue 3\n"
               "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\nexit\n"
               "interface Ethernet2\nmtu 9214\n!\n")
    snippet = ("interface Ethernet1\n   !\n   priority-flow-control pause watchdog\n!\n"
               "priority-flow-control pause watchdog default timeout 0.2\n")
    fixed = apply.replay_cli(current, snippet, nest=apply.EOS_NEST)
    assert fixed == current.replace("kbytes\nexit\n", "kbytes\npriority-flow-control pause watchdog\nexit\n").replace(
        "mtu 9214\n!\n", "mtu 9214\npriority-flow-control pause watchdog default timeout 0.2\n!\n")
    (tmp_path / "leaf1.cfg").write_text(current)
    result = api.fix([tmp_path / "leaf1.cfg"], POLICY)
    assert result.devices[0].verified and not result.devices[0].introduced
    assert "\n+priority-flow-control pause watchdog\n" in result.devices[0].diff
    assert "\n+   " not in result.devices[0].diff


@pytest.mark.parametrize(("indent", "platform"), [(" ", "cisco_nxos"), ("    ", "cisco_nxos"), ("  ", "arista_eos")])
def test_a_fix_line_goes_in_as_far_as_the_lines_of_its_block(tmp_path, indent, platform):
    """Round 18: a generator's NX-OS snippet indents its port by one blank (IOS style), which the reader takes. The
    fix put its port line in with the template's two blanks, under lines of one: the fixed file read that line as
    wrapped under the one above it (SYS002, "opens no mode"), and the fix as not applied (WDG001 "fix by hand"). Now
    a line the fix adds to a block the file has goes in as far as the block's own lines, whatever the template writes;
    a block the file lacks keeps the template's indentation."""
    i = indent
    if platform == "cisco_nxos":
        current = (f"class-map type qos match-all ROCE\n{i}match dscp 26\npolicy-map type qos IN\n{i}class ROCE\n"
                   f"{i}{i}set qos-group 3\nclass-map type network-qos NQ\n{i}match qos-group 3\n"
                   f"policy-map type network-qos NQP\n{i}class type network-qos NQ\n{i}{i}pause pfc-cos 3\n"
                   f"system qos\n{i}service-policy type network-qos NQP\ninterface Ethernet1/1\n"
                   f"{i}service-policy type qos input IN\n{i}priority-flow-control mode on\n")
    else:
        current = (f"interface Ethernet1\n{i}no switchport\n{i}qos trust dscp\n{i}priority-flow-control on\n"
                   f"{i}priority-flow-control priority 3 no-drop\n")
    (tmp_path / "sw1.cfg").write_text(current)
    (dev,) = api.fix([tmp_path / "sw1.cfg"], POLICY, fmt=platform).devices
    assert dev.verified and not dev.introduced
    added = [line[1:] for line in dev.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    port_lines = [line for line in added if "watch" in line and line.startswith(" ")]
    assert port_lines and all(line[:len(indent) + 1] == indent + "p" for line in port_lines)


def test_a_fix_line_made_after_a_dropped_line_still_goes_in_as_far_as_its_block():
    """The file's own lines were told from the snippet's by id(); a line the merge drops (`no match dscp N` takes that
    line away, Nexus 9000 QoS guide, "Configuring Classification") was freed, and the snippet line made next took its
    id: read as the file's own, it kept the template's two blanks under lines of one (wrapped, for the reader)."""
    dropped = range(8, 24, 2)
    current = ("class-map type qos match-any RDMA\n match dscp 26\n" + "".join(f" match dscp {d}\n" for d in dropped)
               + "interface Ethernet1/1\n mtu 9216\n")
    snippet = "class-map type qos match-any RDMA\n" + "".join(f"  no match dscp {d}\n  match dscp {d + 1}\n"
                                                             for d in dropped)
    fixed = apply.replay_cli(current, snippet, lists=apply.NXOS_LISTS, detached=apply.NXOS_DETACHED)
    assert fixed == ("class-map type qos match-any RDMA\n match dscp 26\n" + "".join(f" match dscp {d + 1}\n"
                                                                                     for d in dropped)
                     + "interface Ethernet1/1\n mtu 9216\n")


def test_a_block_the_file_lacks_keeps_its_lines_under_its_header():
    """A block the fix adds inside one the file has (a network-qos class under the file's policy-map) goes in as far
    as that block's lines; its own lines then go as far in under it as the template has them. Before, in a file
    indented by four blanks, the header took the file's four and its lines kept the template's four: the same depth,
    so `pause pfc-cos 3` read as a line of the policy-map, not of the class (Nexus 9000 QoS guide: `pause pfc-cos`
    is a network-qos class's line)."""
    current = ("policy-map type network-qos NQP\n    class type network-qos c-8q-nq-default\n        mtu 1500\n"
               "interface Ethernet1/1\n    mtu 9216\n")
    snippet = "policy-map type network-qos NQP\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n    mtu 9216\n"
    fixed = apply.replay_cli(current, snippet, lists=apply.NXOS_LISTS, detached=apply.NXOS_DETACHED)
    assert fixed == ("policy-map type network-qos NQP\n    class type network-qos c-8q-nq-default\n        mtu 1500\n"
                     "    class type network-qos c-8q-nq3\n      pause pfc-cos 3\n      mtu 9216\n"
                     "interface Ethernet1/1\n    mtu 9216\n")
    # (a block whose every line the snippet replaces keeps the file's depth: it went in at the template's two)
    fixed = apply.replay_cli("system qos\n    service-policy type network-qos NQP\n",
                             "system qos\n  service-policy type network-qos ROCE_PFC_3\n", detached=apply.NXOS_DETACHED)
    assert fixed == "system qos\n    service-policy type network-qos ROCE_PFC_3\n"


def test_a_block_the_file_has_without_lines_takes_its_lines_under_its_header():
    """The same file with the class there but empty (a class at its defaults, no line under it): the header was the
    file's own, so its new lines kept the template's four blanks, the header's own depth, and `pause pfc-cos 3` read as
    a line of the policy-map again. A header alone now takes its lines as far under it as the template has them."""
    current = ("policy-map type network-qos NQP\n    class type network-qos c-8q-nq3\n"
               "interface Ethernet1/1\n    mtu 9216\n")
    snippet = "policy-map type network-qos NQP\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n    mtu 9216\n"
    fixed = apply.replay_cli(current, snippet, lists=apply.NXOS_LISTS, detached=apply.NXOS_DETACHED)
    assert fixed == ("policy-map type network-qos NQP\n    class type network-qos c-8q-nq3\n      pause pfc-cos 3\n"
                     "      mtu 9216\ninterface Ethernet1/1\n    mtu 9216\n")


def test_a_line_not_read_that_only_moved_is_not_introduced(tmp_path):
    """SYS002 is keyed by the file and line it was read at (and its place among the device's issues). Before, a fix
    that added a line above an unread one (Ethernet1's watchdog, above Ethernet2's `priority-flow-control priority 4`
    cut in two: EOS User Manual, QoS, `priority-flow-control priority N no-drop` is one command) reported the same
    two unread lines as problems its own lines would add; now the line's text says it is the same one, as often as
    the config had it."""
    path = tmp_path / "leaf7.cfg"
    port = "   mtu 9214\n   no switchport\n   qos trust dscp\n   priority-flow-control on\n" \
           "   priority-flow-control priority 3 no-drop\n"
    path.write_text(f"hostname leaf7\n!\ninterface Ethernet1\n{port}!\ninterface Ethernet2\n{port}"
                    "   priority-flow-control pause watchdog\n   priority-flow-control priority 4\n   no-drop\n!\n")
    (dev,) = api.fix([path], "pfc-only").devices
    assert [f.code for f in dev.findings] == ["WDG001"] and "+   priority-flow-control pause watchdog\n" in dev.diff
    assert dev.verified and dev.introduced == [] and dev.unresolved == []
    # (the unread lines are still there, a line below where they were (17, 18): a plain lint of the fixed file shows
    # both)
    fixed = tmp_path / "fixed" / "leaf7.cfg"
    fixed.parent.mkdir()
    fixed.write_text(apply.SHAPES["arista_eos"].apply(path.read_text(), dev.parts[0].snippet))
    assert sorted(f.source.line for f in api.lint([fixed], "pfc-only").findings if f.code == "SYS002") == [18, 19]


def test_a_fix_appended_to_host_steps_without_a_shebang_reads_back(tmp_path):
    """Host steps one a line without `#!` (as NVIDIA's RoCE guides print them: `mlnx_qos -i IF --trust dscp`,
    `--pfc 0,0,0,1,0,0,0,0`) are read as a script (parse.mlx5.is_command_list). Before, the fix's script appended to
    them began with `set -eu`, no step program, so the fixed file read as no platform at all: "could not be parsed
    again, so the fix is not verified". Now the appended fix reads back with the steps, and clears the finding."""
    path = tmp_path / "gpu9.txt"
    path.write_text("# one ConnectX port\nsudo mlnx_qos -i ens1f0np0 --trust dscp\n"
                    "sudo mlnx_qos -i ens1f0np0 --pfc 0,0,0,1,0,0,0,0\n")
    (dev,) = api.fix([path], "roce-pcp3", unsafe=True).devices
    assert "NIC002" in {f.code for f in dev.findings} and "set -eu" in dev.parts[0].snippet
    assert dev.verified, dev.diff_note
    assert "NIC002" not in {f.code for f in dev.unresolved} and dev.introduced == []


# Configuration sessions with their prompts, as a terminal log keeps them (EOS User Manual, Command-Line Interface:
# `(config-if-Et8)#` prompts; Nexus 9000 QoS guide: `(config-if)#`), ending in `write memory` / `copy r s` output.
SESSIONS = {
    "arista_eos": ("leaf8# configure terminal\nleaf8(config)# hostname leaf8\nleaf8(config)# interface Ethernet8\n"
                   "leaf8(config-if-Et8)# no switchport\nleaf8(config-if-Et8)# mtu 9214\n"
                   "leaf8(config-if-Et8)# qos trust dscp\nleaf8(config-if-Et8)# priority-flow-control on\n"
                   "leaf8(config-if-Et8)# priority-flow-control priority 3 no-drop\nleaf8(config-if-Et8)# end\n"
                   "leaf8# write memory\nCopy completed successfully.\n"),
    "cisco_nxos": ("tor8# configure terminal\ntor8(config)# hostname tor8\n"
                   "tor8(config)# policy-map type network-qos NQ\n"
                   "tor8(config-pmap-nqos)# class type network-qos c-8q-nq3\n"
                   "tor8(config-pmap-nqos-c)# pause pfc-cos 3\n"
                   "tor8(config-pmap-nqos-c)# mtu 9216\ntor8(config-pmap-nqos-c)# exit\ntor8(config-pmap-nqos)# exit\n"
                   "tor8(config)# system qos\ntor8(config-sys-qos)# service-policy type network-qos NQ\n"
                   "tor8(config-sys-qos)# exit\n"
                   "tor8(config)# interface Ethernet1/8\ntor8(config-if)# mtu 9216\n"
                   "tor8(config-if)# priority-flow-control mode on\ntor8(config-if)# end\n"
                   "tor8# copy running-config startup-config\n[########################################] 100%\n"
                   "Copy complete.\n"),
}


@pytest.mark.parametrize("platform", sorted(SESSIONS))
def test_a_configuration_session_is_fixed_as_the_config_it_makes(tmp_path, platform):
    """A configuration-session transcript (prompts, the switch's output) is read as the config its commands make
    (parse/clitext.config_session). Before, the fix appended its lines after the session's last output, where no
    prompt reads them: on EOS the fixed file lost its port (SEL001 "would add"), on NX-OS the fix was never seen.
    Now the snippet goes into the config the session makes, the diff says so, and the re-lint checks that config."""
    path = tmp_path / "s.txt"
    path.write_text(SESSIONS[platform])
    (dev,) = api.fix([path], "pfc-only", unsafe=True).devices
    assert "WDG001" in {f.code for f in dev.findings}
    assert dev.verified and dev.introduced == [] and "WDG001" not in {f.code for f in dev.unresolved}
    assert dev.diff.startswith(f"--- {path} ({apply.SESSION_FORM})\n")
    assert "#" not in "".join(line for line in dev.diff.splitlines()[2:] if line[:1] in "+ ")  # (no prompt kept)


@pytest.mark.parametrize("platform,port,settings", [
    ("arista_eos", "Ethernet3", "   description gpu03\n   priority-flow-control on\n   no shutdown\n"),
    ("cisco_nxos", "Ethernet1/3", "  description gpu03\n  priority-flow-control mode on\n  no shutdown\n"),
])
def test_a_port_block_a_template_indented_takes_the_fix(tmp_path, platform, port, settings):
    """A template that indents a port's `interface` line with its settings (read as the port's own block:
    clitext.outdent_interface_lines). Before, the fix did not find that block and wrote a second `interface` block for
    the port, above the indented one; now its lines go into the port's own block, as that block writes its lines."""
    path = tmp_path / "leaf.cfg"
    vrf = "vrf instance MGMT\n!\n   " if platform == "arista_eos" else "vrf context MGMT\n  "
    path.write_text(f"hostname leaf-t\n!\n{vrf}interface {port}\n{settings}!\n")
    (dev,) = api.fix([path], "pfc-only", fmt=platform).devices
    assert dev.verified and dev.introduced == [] and "WDG001" not in {f.code for f in dev.unresolved}
    added = [line[1:] for line in dev.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert f"interface {port}" not in [line.strip() for line in added], dev.diff
    indent = settings[:len(settings) - len(settings.lstrip())]  # (as the block writes its own lines)
    assert any("watch" in line and line.startswith(indent + "p") for line in added), dev.diff


@pytest.mark.parametrize("text,family", [
    ("policy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n", "n9k"),
    ("policy-map type network-qos NQ\nclass type network-qos NOLOSS\npause no-drop\n", "n3k"),
    ("sw(config-pmap-nqos-c)# pause pfc-cos 3\n", "n9k"),
    ("  pause pfc-cos 3\n  pause no-drop\n", None),  # (both: neither)
    ("! pause pfc-cos 3 is what a Nexus 9000 takes\n", None),
])
def test_an_nxos_config_shows_its_family_by_its_pause_lines(text, family):
    """The Nexus 9000 pauses its system classes with `pause pfc-cos N`, the Nexus 3000 its user classes with `pause
    no-drop` (render.families): a config the switch took shows which it is (as an EOS config's queue blocks do)."""
    from losslessd.parse.nxos import pause_family

    assert pause_family([text]) == family


@pytest.mark.parametrize("text", ["leaf(config-qos-profile-P)#uc-tx-queue 3\n", "qos profile P\nuc-tx-queue 3\n",
                                  "qos profile P\n   uc-tx-queue 3\n"])
def test_an_eos_session_or_paste_shows_its_queue_family(text):
    """`uc-tx-queue` typed at a session's prompt or pasted at the margin shows a Trident/Tomahawk switch as a
    running-config's indented block does (parse.eos.queue_family); before, only the indented block was seen."""
    from losslessd.parse.eos import queue_family

    assert queue_family([text]) == "trident-tomahawk"


@pytest.mark.slow  # (valgrind: a process per size)
def test_the_family_of_a_config_of_unclosed_prompts_is_read_in_linear_time():
    """`\\S*\\(config[^)]*\\)` scanned on across lines to the next `)` from each line's start: 40,000 lines `sw(config`
    (a cut session log) took 4 s of CPU in each of pause_family and queue_family, quadratic; now the prompt's runs are
    bounded (parse.base.CONFIG_PROMPT_TYPED). The work inside the pattern is counted by callgrind, not timed: four
    times the lines, about four times the instructions (the unbounded prompt: 16 times)."""
    from tests.workmeter import instruction_growth

    small, large = instruction_growth(
        "from losslessd.parse.eos import queue_family\nfrom losslessd.parse.nxos import pause_family",
        "text = 'sw(config\\n' * n + 'sw(config-pmap-nqos-c)# pause no-drop\\nsw(config-qos-profile-P)#tx-queue 3\\n'\n"
        "assert pause_family([text]) == 'n3k' and queue_family([text]) == 'sand'", (2_000, 8_000))
    assert large < 6 * small + 2, (small, large)


def test_a_fix_on_an_nxos_config_that_shows_its_family_needs_no_model(tmp_path):
    """A Nexus 9000 leaf without `show version` (no model), its no-drop class written `pause pfc-cos 3` in c-8q-nq3
    (Nexus 9000 NX-OS QoS Configuration Guide, PFC chapter). Before, every fix that needed a section whose commands
    differ between families (PFC, queuing, ECN, buffer) was refused "the model is not known: give --model", on 104
    of 124 NX-OS fix runs over the real inputs; now the config's own pause lines say n9k."""
    path = tmp_path / "leaf.cfg"
    path.write_text("hostname leaf-n9\nclass-map type qos match-any ROCE\n  match dscp 26\n"
                    "class-map type qos match-any CNP\n  match dscp 48\n"
                    "policy-map type qos CLASSIFY\n  class ROCE\n    set qos-group 3\n"
                    "  class CNP\n    set qos-group 6\n"
                    "policy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n"
                    "    mtu 9216\nsystem qos\n  service-policy type network-qos NQ\n"
                    "interface Ethernet1/1\n  speed 100000\n  mtu 9216\n  priority-flow-control mode on\n"
                    "  service-policy type qos input CLASSIFY\n  no switchport\n")
    (dev,) = api.fix([path], "roce-dscp26", unsafe=True).devices
    assert dev.message is None and "ECN001" in {f.code for f in dev.findings}
    assert dev.verified and dev.unresolved == [] and dev.introduced == []
    assert "class type queuing c-out-8q-q3" in "".join(p.snippet or "" for p in dev.parts)  # (the n9k's classes)


def test_a_policy_attached_on_a_line_not_read_is_named_as_such(tmp_path):
    """`service-policy type queuing output` with its name cut onto the next line (the switch takes no such line: the
    reader keeps "a policy, unknown", parse.nxos.reader.POLICY_UNREAD). Before, a fix that attaches its own queuing
    policy there was refused as "name '' cannot be written into a snippet safely ... rename the policy-map": there is
    no such name to rename. Now the refusal says the binding line was not read and to correct it."""
    path = tmp_path / "leaf.cfg"
    path.write_text("hostname leaf-cut\npolicy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n"
                    "    pause pfc-cos 3\n    mtu 9216\nsystem qos\n  service-policy type network-qos NQ\n"
                    "  service-policy type queuing output\n  OUT\ninterface Ethernet1/1\n  speed 100000\n"
                    "  priority-flow-control mode on\n  no switchport\n")
    (dev,) = api.fix([path], "roce-dscp26", unsafe=True).devices
    assert dev.message is not None and "could not read" in dev.message and "rename" not in dev.message, dev.message


# A Nexus 3000 storage ToR pasted in config mode with its indentation lost: each line entered in the mode the one
# before it left (Nexus 3000 NX-OS QoS Configuration Guide: class-map, policy-map, class and system qos modes;
# interface mode's `priority-flow-control mode on`).
NXOS_FLAT = ("hostname tor9\nclass-map type qos match-all STORAGE\nmatch cos 3\npolicy-map type qos CLASSIFY\n"
             "class STORAGE\nset qos-group 3\nclass-map type network-qos NOLOSS\nmatch qos-group 3\n"
             "policy-map type network-qos NQ\nclass type network-qos NOLOSS\npause no-drop\nmtu 9216\nsystem qos\n"
             "service-policy type qos input CLASSIFY\nservice-policy type network-qos NQ\n"
             "interface Ethernet1/7\nswitchport mode trunk\nno shutdown\npriority-flow-control mode on\n")


@pytest.mark.parametrize("indented_port", [False, True], ids=["flat", "mixed"])
def test_an_nxos_paste_without_indentation_is_fixed_as_it_is_read(tmp_path, indented_port):
    """An NX-OS paste that lost its indentation (read as NX-OS takes it: parse.nxos.reader.renest_paste). Before, the
    fix merged into the file's flat tree: its port lines went in indented under a bare `interface Ethernet1/7`, so
    the port's own margin lines after them read as global ones (`priority-flow-control mode on`: SYS002, the fix
    "would add" it). Now the snippet merges into the blocks NX-OS has, its lines written as the file writes that block
    (at the margin; indented in a port block the paste types indented), and the fixed file reads as the switch
    would: every finding the fix names gone, none added, by the fix's own check and by a plain lint of the file."""
    text = NXOS_FLAT
    if indented_port:  # (a paste may type one block indented among flat ones)
        head, port = text.split("interface Ethernet1/7\n")
        text = head + "interface Ethernet1/7\n" + "".join("  " + line + "\n" for line in port.splitlines())
    path = tmp_path / "tor9.cfg"
    path.write_text(text)
    result = api.fix([path], "pfc-only", unsafe=True)
    (dev,) = result.devices
    assert dev.verified and not dev.introduced and not dev.unresolved, [f.message for f in dev.introduced]
    added = [line[1:] for line in dev.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    port_lines = [line for line in added if "service-policy type qos input" in line]
    assert port_lines and all(line.startswith("  ") == indented_port for line in port_lines), added
    fixed = tmp_path / "fixed" / "tor9.cfg"
    fixed.parent.mkdir()
    fixed.write_text(apply.SHAPES["cisco_nxos"].apply(text, "\n".join(
        p.snippet for p in dev.parts if p.snippet is not None)))
    before = {f.code for f in api.lint([path], "pfc-only").findings if fix._problem(f)}
    after = api.lint([fixed], "pfc-only").findings
    assert [f.message for f in after if fix._problem(f) and f.code not in before] == []
    assert not any(f.code == "SYS002" for f in after)


@pytest.mark.parametrize("path", sorted((ROOT / "tests/fixtures/raw").glob("*/*.cfg")) +
                         [ROOT / "examples/fabric/spine1.cfg"], ids=lambda p: p.name)
def test_cli_replay_of_nothing_keeps_the_config(path):
    text = path.read_text()
    assert apply.replay_cli(text, "") == text.rstrip("\n") + "\n"


def test_set_lines_replace_the_same_path():
    current = "nv set qos pfc default-global switch-priority 4\nnv set system hostname leaf\n"
    snippet = "nv set qos pfc default-global switch-priority 3\nnv unset system hostname\n"
    assert apply.replace_set_lines(current, snippet) == "nv set qos pfc default-global switch-priority 3\n"


def test_key_value_lines_replace_the_key():
    assert apply.replace_keys("# opensm\nsm_priority 0\nlmc 0\n", "sm_priority 15\nqos TRUE\n") == \
        "# opensm\nsm_priority 15\nlmc 0\nqos TRUE\n"


def test_json_merge_sets_fields_and_keeps_the_others():
    current = json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"}}}, indent=4)
    merged = json.loads(apply.merge_json(current, '{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}, "X": {}}'))
    assert merged == {"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "tc_to_pg_map": "AZURE"}}, "X": {}}
    # (written with the file's own indentation, two blanks here: `config save` writes four)
    current = json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}, indent=2)
    assert apply.merge_json(current, '{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}') == \
        json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}, indent=2)


# --- host captures: the fix script run over the capture ---------------------------------------------------


def _device_findings(device, policy: str = POLICY):
    rules = [r for r in all_rules().values() if r.scope in ("device", "port")]
    return run(Fabric(devices={device.name: device}), load_policy(policy), rules).findings


def test_host_fix_is_a_script_that_clears_the_capture_it_runs_over(tmp_path):
    """gpu03 trusts PCP and pauses priority 4, not 3: a disruptive script sets trust and PFC. The capture and
    that script read as one host (the host once the script has run) lint clean."""
    before = {f.code for f in _device_findings(parse_group("gpu03", [GPU03])) if not f.unverified}
    assert before == {"MAP001", "NIC001", "NIC002"}
    (dev,) = api.fix([GPU03], POLICY).devices
    assert [(p.label, p.withheld) for p in dev.parts] == [("disruptive", True)]
    (dev,) = api.fix([GPU03], POLICY, unsafe=True).devices
    (part,) = dev.parts
    assert {f.code for f in part.findings} == before and part.sections == ["pfc", "trust"]
    assert part.snippet.splitlines()[-3:] == ["mlnx_qos -i enp65s0f0np0 --trust dscp",
                                              "ethtool -A enp65s0f0np0 autoneg off rx off tx off",
                                              "mlnx_qos -i enp65s0f0np0 --pfc 0,0,0,1,0,0,0,0 --cable_len 7"]
    assert dev.diff is None and dev.diff_note == fix.HOST_STATE
    assert dev.verified and not dev.unresolved and not dev.introduced
    script = tmp_path / "gpu03-fix.sh"
    script.write_text(part.snippet)
    host = parse_group("gpu03", [GPU03, script])
    assert host.issues == [] and [f.code for f in _device_findings(host) if not f.unverified] == []
    port = host.ports["enp65s0f0np0"]
    assert (port.trust.value, port.pfc_enabled, port.mtu_bytes, port.speed_gbps) == ("dscp", [3], 9000, 100)
    res = losslessd("fix", "--unsafe-fixes", "examples/fabric/gpu03.capture")
    assert res.returncode == 1
    assert "host state, not a text config: run this script on the host (linted again" in res.stdout


def test_script_over_a_capture_overwrites_the_roce_tos_only_when_it_names_every_captured_port(tmp_path):
    """A script names an RDMA device by its interface, a capture by name (mlx5_0); the script's value replaces
    the captured ones when it sets the device of every interface the capture read."""
    gpu02 = ROOT / "examples/fabric/gpu02.capture"  # cma_roce_tos 104 on mlx5_0, interface enp65s0f0np0
    script = '#!/bin/sh\ncma_roce_tos -d "$(ls /sys/class/net/{}/device/infiniband)" -t 106\n'
    same, other = tmp_path / "same.sh", tmp_path / "other.sh"
    same.write_text(script.format("enp65s0f0np0"))
    other.write_text(script.format("enp1s0f0np0"))
    host = parse_group("gpu02", [gpu02, same])
    assert (host.roce_tos, host.roce_tos_source.file, host.issues) == (106, str(same), [])
    assert "NIC004" not in {f.code for f in _device_findings(host)}
    host = parse_group("gpu02", [gpu02, other])
    assert host.roce_tos == 104 and "mlx5_0=104" in host.issues[0].message and "=106" in host.issues[0].message


# --- snippets carry only what changes ---------------------------------------------------------------------


def test_leaf1_fixes_leave_out_what_the_config_already_has():
    """leaf1 already has PFC_WD|GLOBAL POLL_INTERVAL 100 and BUFFER_POOL|ingress_lossless_pool as a render
    writes them: its watchdog and buffer fixes do not restate them."""
    current = json.loads((ROOT / "examples/fabric/leaf1/config_db.json").read_text())
    assert current["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "100"}
    (dev,) = api.fix([ROOT / "examples/fabric/leaf1"], POLICY).devices
    parts = {tuple(p.sections): json.loads(p.snippet) for p in dev.parts if not p.withheld}
    assert parts[("watchdog",)] == {"PFC_WD": {"Ethernet12": {"action": "drop", "detection_time": "200",
                                                              "restoration_time": "200"}}}
    assert sorted(parts[("buffer", "ecn")]) == ["BUFFER_PG", "BUFFER_PROFILE", "QUEUE", "WRED_PROFILE"]
    pool = rnd.render("sonic", rnd.restrict(rnd.profile(load_policy(POLICY), [rnd.PortFacts("Ethernet48", 100, 300)],
                                                        "Mellanox-SN4600C-C64", pool_bytes=47218432), {"buffer"}))
    rendered = json.loads(pool)["BUFFER_POOL"]["ingress_lossless_pool"]
    assert rendered.items() <= current["BUFFER_POOL"]["ingress_lossless_pool"].items()
    assert dev.verified and not dev.unresolved and not dev.introduced


def test_json_changes_drop_fields_keys_and_tables_already_there():
    current = json.dumps({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "tc_to_pg_map": "AZURE"}},
                          "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"}}})
    snippet = ('{\n  "PORT_QOS_MAP": {\n    "Ethernet0": {"pfc_enable": "3", "pfcwd_sw_enable": "3"}\n  },\n'
               '  "PFC_WD": {\n    "GLOBAL": {"POLL_INTERVAL": "100"}\n  }\n}\n')
    assert apply.json_changes(current, snippet) == (
        '{\n  "PORT_QOS_MAP": {\n    "Ethernet0": {"pfcwd_sw_enable": "3"}\n  }\n}\n')
    unchanged = '{\n  "PFC_WD": {\n    "Ethernet0": {"action": "drop"}\n  }\n}\n'
    assert apply.json_changes(current, unchanged) == unchanged  # nothing there yet: the template's own text
    assert apply.json_changes(current, '{"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"}}}') == "{}\n"


def test_cli_changes_keep_a_block_header_while_a_line_under_it_changes():
    current = ("interface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n"
               "   priority-flow-control priority 3 no-drop\n!\n"
               "interface Ethernet2\n   qos trust dscp\n   mtu 9214\n   mtu 9000\n!\n")
    snippet = ("! losslessd fix\ninterface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n"
               "   priority-flow-control priority 3 no-drop\n   priority-flow-control priority 4 drop\n!\n"
               "interface Ethernet2\n   qos trust dscp\n   mtu 9214\n!\ninterface Ethernet3\n   qos trust dscp\n!\n")
    # Ethernet1 keeps its header for the one new line; Ethernet2 sets mtu twice, so `mtu 9214` still changes it
    # (replay keeps one line); Ethernet3 is new.
    assert apply.cli_changes(current, snippet) == (
        "! losslessd fix\ninterface Ethernet1\n   priority-flow-control priority 4 drop\n!\ninterface Ethernet2\n"
        "   mtu 9214\n!\ninterface Ethernet3\n   qos trust dscp\n!\n")
    assert apply.cli_changes(current, "interface Ethernet1\n   qos trust dscp\n!\n") == "!\n"


def test_set_changes_drop_lines_already_set_unless_the_snippet_deletes_them_first():
    current = "set a b c 1\nset a d 2\nset e f 3\nset e f 4\n"
    snippet = "set a b c 1\nset a d 5\nset e f 3\ndelete g\nset g h 1\n"
    assert apply.set_changes(current + "set g h 1\n", snippet) == "set a d 5\nset e f 3\ndelete g\nset g h 1\n"
    assert apply.set_changes("nv set x y 1\n", "# fix\nnv set x y 1\nnv set x z 2\n") == "# fix\nnv set x z 2\n"


def test_key_changes_drop_options_already_set_and_their_comments():
    current = "# opensm\nrouting_engine ftree,updn,no_fallback\nlmc 0\nsweep_interval 0\ntransaction_timeout 200\n"
    snippet = render_golden.golden_path("opensm", "infiniband").read_text()
    cut = apply.key_changes(current, snippet)
    assert "routing_engine" not in cut and "lmc" not in cut and "Routing engines" not in cut
    assert "sweep_interval 10\n" in cut and "transaction_timeout" not in cut and "# Sweep interval" in cut
    assert cut.startswith("# losslessd render: policy infiniband\n")
    assert apply.replace_keys(current, cut) == apply.replace_keys(current, snippet)


def test_key_value_replace_leaves_no_later_line_for_the_key():
    """OpenSM reads the last line of an option: the replaced key keeps no later line that would win."""
    assert apply.replace_keys("sm_priority 0\nlmc 0\nsm_priority 3\n", "sm_priority 14\n") == "sm_priority 14\nlmc 0\n"


def test_ib_fallback_is_fixable_but_connect_roots_needs_a_human(tmp_path):
    conf = tmp_path / "sm1" / "opensm.conf"
    conf.parent.mkdir()
    conf.write_text("routing_engine ftree\nconnect_roots TRUE\nsweep_interval 10\n")
    (dev,) = api.fix([conf.parent], "infiniband", unsafe=True).devices
    assert {f.key for f in dev.findings if f.code == "IBS002"} == {"fallback"}
    (part,) = dev.parts
    assert (part.label, part.sections) == ("disruptive", ["routing"])
    assert "routing_engine ftree,updn,no_fallback\n" in part.snippet and "lmc 0" in part.snippet
    assert dev.verified and not dev.unresolved and not dev.introduced
    added = [line for line in dev.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added == ["+routing_engine ftree,updn,no_fallback", "+lmc 0"]


def test_readme_fix_example_is_real_output():
    """The README shows `losslessd fix --unsafe-fixes examples/fabric/spine1.cfg` as it prints today."""
    readme = (ROOT / "README.md").read_text()
    command = "$ losslessd fix --unsafe-fixes examples/fabric/spine1.cfg\n"
    shown = readme.split(command, 1)[1].split("```", 1)[0]
    res = losslessd("fix", "--unsafe-fixes", "examples/fabric/spine1.cfg")
    assert res.returncode == 1, res.stderr
    assert res.stdout == shown


JUNOS_LEAF = ROOT / "tests/fixtures/raw/juniper_junos/roce-leaf.cfg"  # lossless class `roce`: queue 3, pfc-priority 3
ROCE_LINE = "forwarding-class roce loss-priority low code-points 011010"


def _junos_maps_fix(tmp_path, text: str):
    """The MAP001 fix of a Junos config (the maps alone), and the lint of config + snippet read back together."""
    path = tmp_path / "leaf.cfg"
    path.write_text(text)
    result = fix.plan(api.lint([path], POLICY, select_codes=["MAP001"]), unsafe=True)
    (dev,) = result.devices
    assert dev.message is None, dev.message
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    pasted.write_text(text + snippet)
    return dev, snippet, api.lint([pasted], POLICY)


def test_junos_maps_fix_sends_roce_to_the_configs_own_lossless_class(tmp_path):
    """roce-leaf.cfg's lossless class is `roce` (no-loss, pfc-priority 3), its CNP class `cnp` (queue 6): with DSCP 26
    moved to best-effort, the fix's classifier sends 26 back to `roce` and 48 to `cnp`, and makes no class of its own
    (a lossy tc3 beside the no-loss roce on queue 3 is what the fix wrote before: useless, and Junos refuses a queue
    whose classes differ in drop attribute)."""
    text = JUNOS_LEAF.read_text().replace(ROCE_LINE, ROCE_LINE.replace("roce", "best-effort"))
    dev, snippet, after = _junos_maps_fix(tmp_path, text)
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    assert "forwarding-class roce loss-priority low code-points [ 011010 ]" in snippet
    assert "forwarding-class cnp loss-priority low code-points [ 110000 ]" in snippet
    assert " tc3" not in snippet and " tc6" not in snippet and "forwarding-classes class" not in snippet
    problems = [f"{f.code} {f.message}" for f in after.findings if f.code in ("MAP001", "SYS002")]
    assert problems == []
    port = after.fabric.devices["qfx-leaf1"].ports["et-0/0/0"]
    assert port.tc_label(port.dscp_to_tc[26]) == "forwarding class roce"


def test_junos_maps_fix_makes_the_configs_class_lossless_where_none_is(tmp_path):
    """With no no-loss class at all (roce lost `no-loss` and its pfc-priority), the fix keeps roce, the class on the
    lossless priority's queue, and writes what it lacks beside the maps: no-loss and pfc-priority 3."""
    text = (JUNOS_LEAF.read_text().replace("class roce queue-num 3 no-loss", "class roce queue-num 3")
            .replace("set class-of-service forwarding-classes class roce pfc-priority 3\n", ""))
    dev, snippet, after = _junos_maps_fix(tmp_path, text)
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    assert "set class-of-service forwarding-classes class roce no-loss" in snippet
    assert "set class-of-service forwarding-classes class roce pfc-priority 3" in snippet
    assert "queue-num" not in snippet
    assert not [f.message for f in after.findings if f.code in ("MAP001", "SYS002")]


def test_junos_class_a_snippet_cannot_name_is_refused_with_the_line():
    """Classes of both drop attributes on one queue are what Junos refuses: the snippet makes none, and says where."""
    src = Source(file="leaf.cfg", line=7)
    lossless = ForwardingClass(name="RDMA", queue=6, no_loss=True, pfc_priority=5, source=src)
    with pytest.raises(api.InputError, match="queue 6 .*RDMA") as err:
        rnd.pick_class([lossless], 6, [3])  # the policy's CNP class (lossy) on queue 6
    assert (err.value.file, err.value.line) == ("leaf.cfg", 7)
    two = [ForwardingClass(name="A", queue=3, source=src), ForwardingClass(name="B", queue=3, source=src)]
    with pytest.raises(api.InputError, match="queue 3 carries A, B"):
        rnd.pick_class(two, 3, [3])
    assert rnd.pick_class(two, 0, [3]) is None  # nothing on queue 0: the snippet's own best-effort
    assert rnd.pick_class([*two, lossless], 5, [5]).name == "RDMA"  # its own no-loss class, on whatever queue


def test_junos_curly_config_is_fixed_in_its_display_set_form(tmp_path):
    """roce-leaf-braces.cfg (curly braces) with DSCP 26 under cnp: the diff is of the config as `display set` prints
    it, with the fix's set lines in it (appended to the braces they were lines not read, SYS002, and the fix showed
    as unresolved), and the fixed config lints without MAP001."""
    text = (ROOT / "tests/fixtures/raw/juniper_junos/roce-leaf-braces.cfg").read_text()
    broken = text.replace("forwarding-class roce {\n                loss-priority low code-points 011010;",
                          "forwarding-class roce {\n                loss-priority low code-points 011011;")
    broken = broken.replace("loss-priority low code-points 110000;", "loss-priority low code-points [ 110000 011010 ];")
    assert broken.count("011011") == 1 and "[ 110000 011010 ]" in broken
    path = tmp_path / "leaf.cfg"
    path.write_text(broken)
    (dev,) = fix.plan(api.lint([path], POLICY, select_codes=["MAP001"]), unsafe=True).devices
    assert dev.message is None and dev.verified and not dev.unresolved and not dev.introduced, \
        (dev.message, dev.unresolved, dev.introduced)
    first, second = dev.diff.split("\n")[:2]
    assert first == f"--- {path} (as `show configuration | display set` prints it)" and "(fixed, as" in second
    assert "+set class-of-service classifiers dscp roce-dscp forwarding-class roce loss-priority low code-points " \
        "[ 011010 ]" in dev.diff.split("\n")
    assert not [line for line in dev.diff.split("\n") if line.startswith("+") and "{" in line]


def _jvd_broken(tmp_path) -> Path:
    """Juniper's JVD QFX5240 leaf (curly braces; NO-LOSS queue 4 pfc-priority 3, CNP queue 3) with DSCP 26 moved to
    the lossy CNP class."""
    jvd = CORPUS / "junos" / "jvd-aiml-mtb-leaf1.conf"
    if not jvd.is_file():
        pytest.skip(f"{jvd} is absent")
    text = jvd.read_text()
    broken = (text.replace("loss-priority low code-points 110000;", "loss-priority low code-points [ 110000 011010 ];")
              .replace("loss-priority low code-points 011010;", "loss-priority low code-points 011011;"))
    assert broken.count("011010") == text.count("011010") and broken != text
    path = tmp_path / "leaf1.conf"
    path.write_text(broken)
    return path


def test_jvd_curly_config_maps_fix_resolves_on_its_own_class(tmp_path):
    """The fix of the curly JVD config names its NO-LOSS class (queue 4, pfc-priority 3), is shown against the config
    as `display set` prints it (Junos loads one form per file) and, applied there, lints clean."""
    path = _jvd_broken(tmp_path)
    before = api.lint([path], POLICY)
    assert any(f.code == "MAP001" for f in before.findings)
    result = fix.plan(api.lint([path], POLICY, select_codes=["MAP001"]), unsafe=True)
    (dev,) = result.devices
    assert dev.message is None, dev.message
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    snippet = "".join(p.snippet for p in dev.parts)
    assert "forwarding-class NO-LOSS loss-priority low code-points [ 011010 ]" in snippet
    assert "class tc3" not in snippet
    assert "display set" in dev.diff.split("\n", 1)[0]
    shape = apply.SHAPES["juniper_junos"]
    fixed = tmp_path / "fixed" / path.name
    fixed.parent.mkdir()
    fixed.write_text(shape.apply(shape.normalize(path.read_text()), snippet))
    assert [f.code for f in api.lint([fixed], POLICY).findings if f.severity != Severity.info] == []


def test_jvd_curly_config_refuses_the_ecn_it_lacks_speeds_for_and_fixes_the_rest(tmp_path):
    """ECN thresholds need port speeds the JVD config does not write: the ECN part is refused, saying which fact is
    missing, rather than a snippet that does not resolve; the maps and PFC part (whose new PFC profile carries the
    policy's watchdog, so binding it turns no watchdog off) is printed and verified."""
    path = _jvd_broken(tmp_path)
    result = fix.plan(api.lint([path], POLICY), unsafe=True, model="qfx5240-64od")
    (dev,) = result.devices
    assert dev.message is None and dev.verified and not dev.unresolved and not dev.introduced
    (ecn,) = [p for p in dev.parts if p.refused is not None]
    assert ecn.sections == ["ecn"] and "speed unknown" in ecn.refused and {f.code for f in ecn.findings} == {"ECN001"}
    (printed,) = [p for p in dev.parts if p.printed]
    assert printed.sections == ["maps", "pfc"] and "pfc-watchdog detection" in printed.snippet


NXOS_LEAF = ROOT / "tests/fixtures/raw/cisco_nxos/roce-leaf.cfg"  # no-drop c-8q-nq3 (pause pfc-cos 3), ECN on q3
NXOS_MODEL = "N9K-C93180YC-EX"  # a Nexus 9000: c-8q-nqN network-qos classes


def _nxos_nq4(text: str) -> str:
    """roce-leaf.cfg with its no-drop class on qos-group 4 (`class type network-qos c-8q-nq4` / `pause pfc-cos 3`:
    the Nexus 9000 QoS guide's system-defined network-qos class c-8q-nqN stands for qos-group N), its ECN and
    bandwidth on queue 4 (qos-group N leaves by queue N), and its RoCE class matching DSCP 24, so DSCP 26 falls to
    class-default, qos-group 0: a MAP001 whose fix must use qos-group 4, not 3."""
    q4, q3 = "  class type queuing c-out-8q-q4\n", "  class type queuing c-out-8q-q3\n"
    lossy = "    bandwidth remaining percent 0\n"
    lossless = ("    bandwidth remaining percent 60\n    random-detect minimum-threshold 150 kbytes maximum-threshold "
                "3000 kbytes drop-probability 7 weight 0 ecn\n")
    assert q4 + lossy + q3 + lossless in text
    moved = (text.replace(q4 + lossy + q3 + lossless, q4 + lossless + q3 + lossy)
             .replace("match dscp 26", "match dscp 24").replace("set qos-group 3", "set qos-group 4")
             .replace("c-8q-nq3", "c-8q-nq4"))
    assert "c-8q-nq4\n    mtu 9216\n    pause pfc-cos 3" in moved and "set qos-group 3" not in moved
    return moved


def _nxos_fix(tmp_path, text: str, select: list[str] | None):
    """The fix of an NX-OS config and the lint of config + snippet read back together (as pasted: later lines win)."""
    path = tmp_path / "leaf.cfg"
    path.write_text(text)
    result = fix.plan(api.lint([path], POLICY, select_codes=select), unsafe=True, model=NXOS_MODEL)
    (dev,) = result.devices
    assert dev.message is None, dev.message
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    pasted.write_text(apply.SHAPES["cisco_nxos"].apply(text, snippet))
    return dev, snippet, api.lint([path], POLICY), api.lint([pasted], POLICY)


def test_nxos_maps_fix_classifies_roce_into_the_configs_no_drop_group(tmp_path):
    """The config makes qos-group 4 no-drop for CoS 3: the MAP001 fix sends DSCP 26 to qos-group 4 (it sent it to 3,
    which no class pauses: unresolved), and config + snippet read back have no MAP001 and nothing new."""
    dev, snippet, before, after = _nxos_fix(tmp_path, _nxos_nq4(NXOS_LEAF.read_text()), ["MAP001"])
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    assert "    set qos-group 4\n" in snippet and "set qos-group 3" not in snippet
    assert "network-qos" not in snippet  # the config's no-drop class stays as it is
    assert [f.message for f in after.findings if f.code in ("MAP001", "SYS002")] == []
    known = {f.fingerprint for f in before.findings}
    assert [f"{f.code} {f.message}" for f in after.findings if f.fingerprint not in known] == []
    port = after.fabric.devices["nx-leaf1"].ports["Ethernet1/1"]
    assert port.dscp_to_tc[26] == 4 and port.dscp_chain(26).priority == 3


def test_nxos_whole_fix_keeps_the_queuing_on_the_no_drop_group(tmp_path):
    """With the ECN finding the RoCE DSCP's lossy queue 0 gives, the whole fix's queuing policy marks ECN on queue 4
    (the no-drop group's) and gives it the lossless share: the same group as the maps, so nothing is left or added."""
    dev, snippet, _, after = _nxos_fix(tmp_path, _nxos_nq4(NXOS_LEAF.read_text()), None)
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    assert ("  class type queuing c-out-8q-q4\n    bandwidth remaining percent 50\n    random-detect" in snippet)
    assert "  class type queuing c-out-8q-q3\n    bandwidth remaining percent 0\n  class" in snippet
    assert [f"{f.code} {f.message}" for f in after.findings if f.severity != Severity.info] == []


def test_nxos_maps_fix_without_such_a_class_is_as_before(tmp_path):
    """No no-drop class for CoS 3 elsewhere (roce-leaf.cfg's is c-8q-nq3, the group of its own number): the fix's
    classification is the one it always wrote, qos-group 3, named as before."""
    text = NXOS_LEAF.read_text().replace("match dscp 26", "match dscp 24")
    dev, snippet, _, after = _nxos_fix(tmp_path, text, ["MAP001"])
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    assert "    set qos-group 3\n" in snippet and "policy-map type qos ROCE_DSCP_A060D638\n" in snippet


def test_junos_inactive_statement_survives_a_fix_and_a_delete_takes_its_tag():
    """A curly config's `inactive:` statement is kept in the fixed file as `display set` prints it (set lines, then
    `deactivate`), not dropped; a snippet's `delete PATH` removes the `deactivate` at or below PATH with the
    statement (Junos CLI guide, "delete"), so the snippet's own `set PATH ...` after it applies, not left inactive."""
    shape = apply.SHAPES["juniper_junos"]
    text = (ROOT / "tests/fixtures/raw/juniper_junos/roce-leaf-braces.cfg").read_text()
    flat = shape.normalize(text)
    kept = shape.apply(flat, "set class-of-service interfaces et-0/0/0 congestion-notification-profile roce-cnp\n")
    assert "set interfaces et-0/0/1 mtu 1500\ndeactivate interfaces et-0/0/1\n" in kept
    gone = shape.apply(flat, "delete interfaces et-0/0/1\nset interfaces et-0/0/1 mtu 9216\n")
    assert "deactivate interfaces et-0/0/1" not in gone and "mtu 1500" not in gone
    assert gone.rstrip("\n").endswith("set interfaces et-0/0/1 mtu 9216")


def test_a_part_the_template_writes_nothing_for_is_no_fix_never_a_blank_snippet():
    """Junos sizes lossless headroom itself, so its template writes nothing for the buffer section: a BUF002 finding
    there (a real finding object, through the real render) got a part whose snippet was the header alone, printed as
    a fix. It is now a part with no snippet that says the template writes nothing, counted apart, never verified as
    applied (the trust section printed the same blank on Junos before it had a branch)."""
    config = render_golden.golden_path("juniper_junos", "roce-dscp26")
    device = parse_group("sw", [config], "juniper_junos")
    rule = all_rules()["BUF002"]()
    finding = rule.finding("xoff below the headroom", device=device, port="et-0/0/0", key="3")
    policy = load_policy(POLICY)
    out = fix.device_fix(device, [finding], policy, unsafe=True)
    [part] = out.parts
    assert part.empty and part.snippet is None and not part.withheld and not part.printed
    assert out.unresolved == [] and out.diff is None  # nothing printed: nothing applied, nothing claimed
    result = fix.FixResult(lint=api.lint([config], POLICY), devices=[out], unsafe=True)
    text = fix_output.text(result)
    assert "SAFE fix (buffer) for BUF002 et-0/0/0: no fix, the template writes nothing for it on this platform" in text
    assert "# losslessd render" not in text
    assert "0 fixes printed, 1 the template writes nothing for (fix by hand)" in text
    data = json.loads(fix_output.as_json(result))
    jsonschema.validate(data, json.loads((ROOT / "losslessd/fix/schema.json").read_text()))
    assert data["devices"][0]["fixes"][0] | {"findings": None} == {
        "label": "safe", "sections": ["buffer"], "withheld": False, "empty": True, "refused": None, "refused_on": [],
        "snippet": None, "apply_with": None, "findings": None, "shared": {}, "notes": []}


@pytest.mark.parametrize(("platform", "port"), [("nvidia_cumulus", "swp1"), ("sonic", "Ethernet0")])
def test_a_part_cut_to_nothing_is_no_fix_never_a_blank_snippet(platform, port):
    """A part whose snippet the device's config holds already is cut (Shape.changes) to its header alone (NVUE) or
    `{}` (SONiC): it was printed as a fix, the blank `writes_nothing` keeps out before the cut. It is now a part with
    no snippet that says the device holds what the template writes, as tune says of a cut that changes nothing."""
    config = render_golden.golden_path(platform, "roce-dscp26")
    device = parse_group("sw", [config], platform)
    finding = all_rules()["ECN001"]().finding("queue 3 does not mark ECN", device=device, port=port, key="3")
    out = fix.device_fix(device, [finding], load_policy(POLICY), unsafe=True)
    [part] = out.parts
    assert part.empty and part.held and part.snippet is None and not part.printed and part.apply_with is None
    text = fix_output.text(fix.FixResult(lint=api.lint([config], POLICY), devices=[out], unsafe=True))
    assert (f"SAFE fix (ecn) for ECN001 {port}: no fix, the device holds what the template writes for it already: "
            "another part or a fix by hand clears it") in text
    assert "# losslessd render" not in text and "{}" not in text and "0 fixes printed" in text


def test_a_part_cut_to_nothing_still_names_what_stays_unresolved(tmp_path):
    """The broken MAP001 config sends DSCP 26 to a queue that does not mark ECN (ECN001): the ECN part's snippet is
    cut to nothing (queue 3 marks already), and with the MAP part withheld (no --unsafe-fixes) ECN001 stays; the
    re-lint names it unresolved, as it did when the blank part was printed."""
    path = tmp_path / "broken.conf"
    path.write_text(_broken_config("MAP001", "nvidia_cumulus"))
    dev = fix.plan(_lint(path, "nvidia_cumulus"), unsafe=False).devices[0]
    [held] = [p for p in dev.parts if p.held]
    assert held.sections == ["ecn"] and held.snippet is None and {f.code for f in held.findings} == {"ECN001"}
    assert dev.verified and {f.fingerprint for f in held.findings} <= {f.fingerprint for f in dev.unresolved}


@pytest.mark.parametrize(("snippet", "empty"), [
    ("# losslessd render: policy roce-pcp3\n", True), ("! losslessd render: policy p\n\n", True), ("{}", True),
    ("[]\n", True), ("# header\n}\n", True), ("0", False),
    ("{\n}\n", True), ("# header\nset class-of-service classifiers dscp x\n", False),
    ('{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}', False), ("mlnx_qos -i eth0 --trust pcp\n", False)])
def test_writes_nothing_tells_a_header_from_a_command(snippet, empty):
    assert fix.writes_nothing(snippet) is empty


# Which of `priority level 1` and `bandwidth remaining percent N` a Nexus queuing class holding both serves by no Cisco
# document says (parse.nxos.reader.both_lines): a fix never leaves both, and never counts on one replacing the other.
@pytest.mark.parametrize(("code", "cls", "gone", "written"), [
    ("SCH001", "c-out-8q-q-default", "priority level 1", "bandwidth remaining percent 50"),  # strict -> a share
    ("MAP002", "c-out-8q-q6", "bandwidth remaining percent 0", "priority level 1"),  # the CNP class: a share -> strict
])
def test_nxos_fix_takes_the_classs_other_scheduling_line_away_first(tmp_path, code, cls, gone, written):
    path = tmp_path / "broken.cfg"
    path.write_text(_broken_config(code, "cisco_nxos"))
    result = fix.plan(_lint(path, "cisco_nxos"), unsafe=True, model=render_golden.options("cisco_nxos").get("model"))
    (dev,) = result.devices
    snippet = "".join(p.snippet for p in dev.parts if p.snippet)
    assert f"  class type queuing {cls}\n    no {gone}\n    {written}\n" in snippet
    assert unlisted_lines("cisco_nxos", "n9k", snippet) == []
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    pasted.write_text(apply.SHAPES["cisco_nxos"].apply(path.read_text(), snippet))
    after = _lint(pasted, "cisco_nxos")
    assert [f"{f.code} {f.message}" for f in after.findings if f.code in (code, "SYS002") and not f.unverified] == []
    blocks = pasted.read_text().split(f"  class type queuing {cls}\n")[1:]
    assert blocks and all(f"    {gone}\n" not in b.split("  class")[0] and "    no " not in b.split("  class")[0]
                          for b in blocks)


def test_nxos_render_without_a_device_writes_no_no_lines():
    """A fresh render has no device's lines to take away."""
    pol = load_policy(_policy("cisco_nxos"))
    ports = [rnd.parse_port_spec(spec) for spec in render_golden.port_specs("cisco_nxos")]
    prof = rnd.profile(pol, ports, pool_bytes=render_golden.POOL_BYTES, **render_golden.options("cisco_nxos"))
    text = rnd.render("cisco_nxos", prof)
    assert "    priority level 1\n" in text and "bandwidth remaining percent" in text
    assert not re.search(r"^\s*no (priority|bandwidth)", text, re.M)


@pytest.mark.parametrize(("held", "written", "cut"), [
    # the class holds both (its scheduling unknown): the fix's line stays or goes as before, the other line goes first
    ("    priority level 1\n    bandwidth remaining percent 5\n", "    priority level 1\n",
     "    no bandwidth remaining percent 5\n"),
    ("    bandwidth percent 5\n", "    bandwidth remaining percent 50\n",  # another share command: not a replace either
     "    no bandwidth percent 5\n    bandwidth remaining percent 50\n"),
    ("    priority\n", "    bandwidth percent 20\n", "    no priority\n    bandwidth percent 20\n"),  # Nexus 3000
    ("    bandwidth remaining percent 5\n", "    bandwidth remaining percent 50\n",  # the same command: replaced
     "    bandwidth remaining percent 50\n"),
])
def test_nxos_scheduling_line_goes_in_after_the_no_form_of_the_others(held, written, cut):
    shape = apply.SHAPES["cisco_nxos"]
    head = "policy-map type queuing Q\n  class type queuing c-out-8q-q3\n"
    tail = "  class type queuing c-out-8q-q-default\n    bandwidth remaining percent 50\n"
    changes = shape.changes(head + held + tail, head + written)
    assert changes == head + cut
    assert shape.apply(head + held + tail, changes) == head + written + tail


def test_nxos_render_device_takes_the_classs_priority_line_away_first(tmp_path):
    """`render --device` prints the whole snippet, with the same `no` line before the share where the device's class
    of that policy is strict now: pasted whole, the class is served by the share alone (it stayed strict, both
    lines held)."""
    path = tmp_path / "broken.cfg"
    path.write_text(_broken_config("SCH001", "cisco_nxos"))
    policy = tmp_path / "five-metres.yaml"
    policy.write_text("name: five-metres\nextends: roce-dscp26\nbuffer:\n  default_cable_length_m: 5\n")
    ran = losslessd("render", "--platform", "cisco_nxos", "--device", str(path), "--policy", str(policy),
                    "--model", render_golden.options("cisco_nxos")["model"])
    assert ran.returncode == 0, ran.stderr
    default = "  class type queuing c-out-8q-q-default\n"
    assert ran.stdout.count(default + "    no priority level 1\n    bandwidth remaining percent 50\n") == 3
    assert ran.stdout.count(default) == 3 and unlisted_lines("cisco_nxos", "n9k", ran.stdout) == []
    pasted = tmp_path / "pasted" / path.name
    pasted.parent.mkdir()
    pasted.write_text(apply.SHAPES["cisco_nxos"].apply(path.read_text(), ran.stdout))
    after = api.lint([pasted], str(policy), fmt="cisco_nxos")
    assert [f"{f.code} {f.message}" for f in after.findings if f.code in ("SCH001", "SYS002")] == []


# EOS User Manual, Traffic Management, QoS policies: `policy-map type quality-of-service NAME` classes, class-default
# last, `set traffic-class N`, bound by `service-policy type qos input NAME`; a packet takes the first class that
# matches it, class-default the rest, whatever the port trusts. Ethernet1 trusts DSCP (roce-pcp3 wants CoS) and binds
# a policy whose class-default sets traffic-class 1; Ethernet2 trusts DSCP too, with no policy.
_EOS_PFC3 = "   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
_EOS_CLASS_DEFAULT = ("hostname leaf3\n!\ninterface Ethernet1\n   mtu 9214\n   no switchport\n   qos trust dscp\n"
                      f"{_EOS_PFC3}   service-policy type qos input P1\n!\ninterface Ethernet2\n   mtu 9214\n"
                      f"   no switchport\n   qos trust dscp\n{_EOS_PFC3}!\n"
                      "class-map type qos match-any C_EF\n   match dscp 46\n!\n"
                      "policy-map type quality-of-service P1\n   class C_EF\n      set traffic-class 5\n   !\n"
                      "   class class-default\n      set traffic-class 1\n!\n")


@pytest.mark.parametrize("policy", ["roce-pcp3", "roce-dscp26"])
def test_an_eos_port_whose_own_policy_map_sets_the_class_refuses_trust_and_maps(tmp_path, policy):
    """corpus avd-qos.cfg under roce-pcp3: the trust fix made Ethernet1 trust CoS, and its own policy-map's
    class-default `set traffic-class 1` then took PCP 3 and the CNP's PCP 6 to TC 1 (MAP001/MAP002 brought; under a
    DSCP policy the DSCP map the fix wrote did not reach DSCP 26 either). No trust or map line reaches that traffic: the
    trust and maps sections are refused on that port, naming the policy-map and its class as the by-hand step; the
    port without a policy-map is fixed as before."""
    path = tmp_path / "leaf3.cfg"
    path.write_text(_EOS_CLASS_DEFAULT)
    (dev,) = api.fix([path], policy, unsafe=True).devices
    refused = [p for p in dev.parts if p.refused is not None and {"trust", "maps"} & set(p.sections)
               and "Ethernet1" in p.refused_on]
    assert refused and all(p.refused_on == ("Ethernet1",) for p in refused)
    assert all("qos policy-map P1 (service-policy type qos input) sets traffic-class 1 in class class-default"
               in p.refused for p in refused)
    written = "".join(p.snippet or "" for p in dev.parts)
    assert "interface Ethernet2\n" in written and "interface Ethernet1\n   qos trust" not in written
    assert not {"MAP001", "MAP002"} & {f.code for f in dev.introduced}


def test_a_follow_up_refused_for_want_of_the_model_says_so_up_front():
    """examples/clos under roce-pcp3: the trust fix moves RoCE to queue 3 below EOS's default strict queues 4-7
    (SCH001); the maps and scheduler follow-up that clears it differs by EOS family (tx-queue, uc-tx-queue), which the
    example's configs do not show. Before, the first fix stood with "the fix would add: SCH001 ..." and --model was
    nowhere; now a refused part, printed before the snippets, names SCH001 and what to give, and with --model the
    follow-up is written (SCH001 cleared)."""
    result = api.fix([ROOT / "examples" / "clos"], "roce-pcp3", unsafe=True)
    leaf = next(d for d in result.devices if d.device == "leaf1")
    (follow,) = [p for p in leaf.parts if p.refused is not None and "SCH001" in {f.code for f in p.findings}]
    assert follow.sections == ["maps", "scheduler"] and follow.refused_on == ("Ethernet1", "Ethernet2", "Ethernet3")
    assert "the printed parts bring SCH001 here" in follow.refused and "give --model" in follow.refused
    lines = fix_output.device_text(leaf)
    first_snippet = next(i for i, line in enumerate(lines) if line.endswith(":") and " fix (" in line)
    assert any("give --model" in line for line in lines[:first_snippet])
    assert any("the fix would add: SCH001 Ethernet1, Ethernet2, Ethernet3 until what the refused part above needs"
               in line for line in lines)
    # (the refusal says "--model ... or --family ...": fix takes both, as render does; a family no platform has is a
    # usage error, exit 2)
    for given in ({"model": "DCS-7050CX3-32S"}, {"family": "trident-tomahawk"}):
        fixed = api.fix([ROOT / "examples" / "clos"], "roce-pcp3", unsafe=True, **given)
        leaf = next(d for d in fixed.devices if d.device == "leaf1")
        assert "SCH001" not in {f.code for f in leaf.introduced}
        assert any("maps" in p.sections and p.printed for p in leaf.parts)
    run = losslessd("fix", "--unsafe-fixes", "-p", "roce-pcp3", "--family", "tomahawk", str(ROOT / "examples" / "clos"))
    assert run.returncode == 2 and "--family 'tomahawk' is no command family" in run.stderr
    # (said as the option is read: before, lint --fix printed the whole lint report, then the error)
    run = losslessd("lint", "--fix", "-p", "roce-pcp3", "--family", "tomahawk", str(ROOT / "examples" / "clos"))
    assert (run.returncode, run.stdout) == (2, "") and "--family 'tomahawk' is no command family" in run.stderr


# EOS User Manual, QoS policies: a packet takes the first class of the port's policy-map that matches it, and `set
# traffic-class N` gives it class N whatever the trust map says. C_ROCE matches DSCP 26 (roce-dscp26's lossless DSCP).
_EOS_DSCP_CLASS = ("hostname leaf4\n!\ninterface Ethernet1\n   mtu 9214\n   speed 100g-4\n   no switchport\n"
                   f"   qos trust dscp\n{_EOS_PFC3}   service-policy type qos input P1\n!\n"
                   "class-map type qos match-any C_ROCE\n   match dscp {dscp}\n!\n"
                   "policy-map type quality-of-service P1\n   class C_ROCE\n      set traffic-class {tc}\n!\n")


def _cable5(tmp_path: Path) -> Path:
    """roce-dscp26 with 5 m cables, so each port's headroom can be sized and only a by-hand refusal stops render."""
    policy = tmp_path / "cable5.yaml"
    policy.write_text("extends: roce-dscp26\nname: cable5\nbuffer:\n  default_cable_length_m: 5\n")
    return policy


def _render_eos_device(path: Path, text: str):
    """`render --device` of the EOS config ``text`` written to ``path``, under _cable5."""
    path.write_text(text)
    return losslessd("render", "--platform", "arista_eos", "--family", "sand", "--device", str(path), "-p",
                     str(_cable5(path.parent)))


@pytest.mark.parametrize("dscp, tc, refused", [("26", "1", True), ("26", "3", False), ("10", "3", True),
                                               ("10", "5", False)])
def test_render_device_refuses_a_port_whose_policy_map_classifies_the_lossless_dscp(tmp_path, dscp, tc, refused):
    """`render --device` wrote the trust and DSCP map for a port whose own policy-map sets the class (only `fix`
    refused it, and only for class-default): a snippet the switch runs that does not do what it says. One check now
    serves both: a class that takes the policy's lossless DSCP to another traffic class, or another DSCP into the
    lossless class, is refused, naming the class; one that agrees with the policy (or touches neither) is rendered."""
    path, policy = tmp_path / "leaf4.cfg", tmp_path / "cable5.yaml"  # (_cable5, which the render writes)
    out = _render_eos_device(path, _EOS_DSCP_CLASS.format(dscp=dscp, tc=tc))
    if refused:
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert (f"{path}:3: port Ethernet1: its qos policy-map P1 (service-policy type qos input) sets traffic-class "
                f"{tc} for DSCP {dscp} in class C_ROCE") in out.stderr
    if dscp == "26" and refused:
        (dev,) = api.fix([path], str(policy), unsafe=True, family="sand").devices
        (part,) = [p for p in dev.parts if "maps" in p.sections]
        assert part.refused is not None and "class C_ROCE" in part.refused
        assert "MAP001" in {f.code for f in part.findings}
        assert "qos map dscp 26" not in "".join(p.snippet or "" for p in dev.parts)
        # (not "for a fact the input lacks": the input states the class; no line of a snippet can change it)
        text = fix_output.text(fix.FixResult(lint=api.lint([path], str(policy)), devices=[dev], unsafe=True))
        assert "1 refused (each says what to give or to do by hand)" in text and "fact the input lacks" not in text
    if not refused:
        assert out.returncode == 0 and "qos map dscp 26 to traffic-class 3" in out.stdout
    # class-default too (the check fix had): render refuses it as well
    out = _render_eos_device(path, _EOS_CLASS_DEFAULT.replace("   mtu 9214\n", "   mtu 9214\n   speed 100g-4\n"))
    assert out.returncode == 2 and "sets traffic-class 1 in class class-default" in out.stderr


def test_a_refused_part_for_a_device_finding_names_it_and_says_what_to_give(tmp_path):
    """Two routed ports trusting DSCP, no PFC: the only finding is PFC006 (device), whose ECN section needs the ports'
    speeds. The refused part read `DISRUPTIVE fix (ecn) for : no fix, ...` (no finding) and ended with the generic
    "(each finding says how)"; it now names PFC006 and says what to give."""
    path = tmp_path / "leaf9.cfg"
    path.write_text("hostname leaf9\n!\n" + "".join(f"interface Ethernet{n}\n   mtu 9214\n   no switchport\n"
                                                     "   qos trust dscp\n!\n" for n in (1, 2)))
    (dev,) = api.fix([path], "roce-pcp3", unsafe=True).devices
    text = "\n".join(fix_output.device_text(dev))
    assert ("DISRUPTIVE fix (ecn) for PFC006 (device): no fix, ports Ethernet1, Ethernet2: speed unknown, so its ECN "
            "thresholds cannot be worked out: state the port's speed in its config and run again, or write this "
            "section by hand (the maps, pfc, trust, watchdog sections of the same finding wait for it there)") in text
    assert "each finding says how" not in text and " for : " not in text


def test_render_device_refusing_a_by_hand_port_says_how_to_render_the_others(tmp_path):
    """`render --device` refused the whole device for one port whose policy-map classifies the lossless DSCP, saying
    only what to do by hand on that port: the operator was not told that the device's other ports render, nor how
    (--ports adds to --device's ports, so they go in its place). It now gives their --ports and names `fix`, which
    refuses the by-hand port's sections alone; the --ports it gives render."""
    path, policy = tmp_path / "leaf4.cfg", _cable5(tmp_path)
    plain = ("interface Ethernet2\n   mtu 9214\n   speed 100g-4\n   no switchport\n   qos trust dscp\n" + _EOS_PFC3
             + "!\n")
    path.write_text(_EOS_DSCP_CLASS.format(dscp="26", tc="1").replace("!\nclass-map", "!\n" + plain + "class-map", 1))
    args = ["render", "--platform", "arista_eos", "--family", "sand", "-p", str(policy)]
    out = losslessd(*args, "--device", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr and f"{path}:3: port Ethernet1: " in out.stderr
    assert ("to render the device's other port, name it in place of --device: --ports Ethernet2:100G:5m:9214 (with "
            "--model or --family), or `losslessd fix` on the file writes the rest and refuses only what is by hand on "
            "Ethernet1") in out.stderr
    given = re.search(r"--ports (\S+)", out.stderr)
    assert given is not None
    rest = losslessd(*args, "--ports", given[1])
    assert rest.returncode == 0 and "qos map dscp 26 to traffic-class 3" in rest.stdout
    # every port by hand: fix is what renders the rest
    path.write_text(path.read_text().replace("interface Ethernet2\n", "interface Ethernet2\n   service-policy type qos "
                                                                      "input P1\n"))
    out = losslessd(*args, "--device", str(path))
    assert out.returncode == 2 and "--ports Ethernet" not in out.stderr
    assert "; `losslessd fix` on the file writes the rest and refuses only what is by hand on Ethernet1, Ethernet2" in (
        out.stderr)


# EOS User Manual, QoS policies: the first class of the port's policy-map that matches a packet takes it, before the
# trust map. FIRST (an ACL, a CoS, or DSCP 26 with ECN CE: AVD class-maps.j2 match forms) sets traffic-class 1 ahead
# of C_ROCE (DSCP 26, roce-dscp26's lossless DSCP, to traffic-class 3), or after it.
_EOS_CLASS_FIRST = ("hostname leaf7\n!\ninterface Ethernet1\n   mtu 9214\n   speed 100g-4\n   no switchport\n"
                    f"   qos trust dscp\n{_EOS_PFC3}   service-policy type qos input P1\n!\n"
                    "class-map type qos match-any FIRST\n   {match}\n!\n"
                    "class-map type qos match-any C_ROCE\n   match dscp 26\n!\n"
                    "policy-map type quality-of-service P1\n{classes}!\n")
_FIRST = "   class FIRST\n      set traffic-class 1\n   !\n"
_ROCE = "   class C_ROCE\n      set traffic-class 3\n   !\n"


@pytest.mark.parametrize("match, order, refused", [
    ("match ip access-group BULK", "first", 26), ("match cos 1", "first", 26), ("match dscp 26 ecn ce", "first", 26),
    ("match ip access-group BULK", "after", 48), ("match dscp 26 ecn ce", "after", None)])
def test_render_device_refuses_a_class_it_cannot_evaluate_ahead_of_the_lossless_dscp(tmp_path, match, order, refused):
    """A class on an ACL, a CoS or DSCP with ECN bits, ahead of the DSCP class that gives DSCP 26 the lossless class,
    may take DSCP 26's traffic (or some of it) to traffic class 1 first: a SYS002 warned, but `render --device` wrote
    the trust and DSCP map as if the DSCP class decided. It is refused now, naming the class. After the DSCP class it
    takes nothing of DSCP 26, but an ACL class may still take the CNP's DSCP 48 (no class before it matches 48); the
    ECN class after it matches DSCP 26 alone, which C_ROCE took: the port is rendered."""
    path = tmp_path / "leaf7.cfg"
    classes = _FIRST + _ROCE if order == "first" else _ROCE + _FIRST
    out = _render_eos_device(path, _EOS_CLASS_FIRST.format(match=match, classes=classes))
    if refused:
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert (f"{path}:3: port Ethernet1: its qos policy-map P1 (service-policy type qos input) sets traffic-class 1 "
                "in class FIRST, which matches") in out.stderr and f"may take DSCP {refused} traffic" in out.stderr
    else:
        assert out.returncode == 0 and "qos map dscp 26 to traffic-class 3" in out.stdout


@pytest.mark.parametrize("trust", ["", "   no qos trust\n"])
def test_a_cos_trusting_eos_port_with_dscp_classes_is_not_told_to_trust_cos(tmp_path, trust):
    """A switched EOS port (CoS trust, EOS's default) binding a policy-map whose class sets DSCP 26's traffic class,
    under roce-pcp3: MAP003 said "port trusts DSCP ... set trust pcp (the interface's `qos trust cos`)", an error
    whose fix the port already has (and the trust fix wrote it again). The class classifies ahead of the CoS trust:
    MAP003 now says so as "cannot tell" (which DSCPs the CoS 3 traffic carries is not in the input). With `no qos
    trust` (EOS User Manual, QoS: the port trusts neither field; what no class matches takes the default traffic
    class) that read "the port trusts 802.1p CoS ... cannot tell" too: it is the error, and the fix writes the trust
    line. (The class gives DSCP 26 the lossless class 3, so nothing of it is by hand and the trust fix is written
    where it is due; without a family no snippet is written at all.)"""
    path = tmp_path / "leaf8.cfg"
    path.write_text("hostname leaf8\n!\nclass-map type qos match-any C_ROCE\n   match dscp 26\n!\n"
                    "policy-map type quality-of-service P1\n   class C_ROCE\n      set traffic-class 3\n!\n"
                    f"interface Ethernet1\n   mtu 9214\n   speed 100g-4\n{trust}{_EOS_PFC3}"
                    "   service-policy type qos input P1\n")
    result = api.lint([path], "roce-pcp3")
    (map003,) = [f for f in result.findings if f.code == "MAP003"]
    said = "the port trusts 802.1p CoS, but its qos policy-map's DSCP" in map003.message
    assert (map003.severity.value, said) == (("error", False) if trust else ("info", True)), map003.message
    (dev,) = api.fix([path], "roce-pcp3", unsafe=True, family="sand").devices
    assert dev.parts and ("qos trust cos" in "".join(p.snippet or "" for p in dev.parts)) == bool(trust)


@pytest.mark.parametrize("command", [("fix", "--unsafe-fixes"), ("lint", "--fix", "--unsafe-fixes")])
def test_a_config_whose_blocks_depend_on_a_tabs_width_is_refused_not_merged(tmp_path, command):
    """Session 39: lint warns (SYS002) where a line's block depends on a tab's width, but fix merged its snippet with
    tabs read as 8 columns, so its lines could land in a block other than the one the operator's editor shows. Now
    refused, exit 2, naming the file and the line (here `<TAB>uc-tx-queue 3`, under line 19 with tabs of 8 columns
    and under the profile, line 15, with tabs of 1); the same file indented with spaces takes its fix (exit 1)."""
    spaces = (Path("examples/fabric/spine1.cfg")).read_text()
    (tmp_path / "spine1.cfg").write_text(spaces.replace("\n   uc-tx-queue 3\n", "\n\tuc-tx-queue 3\n"))
    ran = losslessd(*command[:1], tmp_path / "spine1.cfg", "--policy", POLICY, *command[1:])
    assert ran.returncode == 2, ran.stderr
    assert (f"losslessd: error: cannot work out a fix: {tmp_path / 'spine1.cfg'}:21: the indentation mixes tabs and "
            "spaces") in ran.stderr, ran.stderr
    assert "re-indent the file with spaces" in ran.stderr and "(fixed)" not in ran.stdout
    (tmp_path / "spine1.cfg").write_text(spaces)
    ok = losslessd(*command[:1], tmp_path / "spine1.cfg", "--policy", POLICY, *command[1:])
    assert ok.returncode == 1 and "(fixed)" in ok.stdout, ok.stderr


def test_a_refused_input_reads_as_refused_in_json_and_text_beside_the_other_devices_fixes(tmp_path):
    """Session 40 review: `fix -f json` on a tab-ambiguous file exited 2 but said `"complete": true` and nothing of
    the refusal but a device message, like any device without a template; the text counted it "without a fix". Now
    the JSON says complete false with the refusal in input_errors (as stderr says it) and on the device, the text
    summary counts it refused; the other device's fixes are printed in both, and the run exits 2 in both."""
    spaces = (ROOT / "examples/fabric/spine1.cfg").read_text()
    (tmp_path / "spine1.cfg").write_text(spaces.replace("\n   uc-tx-queue 3\n", "\n\tuc-tx-queue 3\n"))
    (tmp_path / "leaf1").symlink_to(ROOT / "examples/fabric/leaf1")
    ran = losslessd("fix", "-f", "json", tmp_path, "--policy", POLICY)
    assert ran.returncode == 2, ran.stderr
    data = json.loads(ran.stdout)
    jsonschema.validate(data, json.loads((ROOT / "losslessd/fix/schema.json").read_text()))
    spine, leaf = (next(d for d in data["devices"] if d["device"] == name) for name in ("spine1", "leaf1"))
    assert data["complete"] is False and data["input_errors"] == [spine["message"]]
    assert spine["input_error"] and f"{tmp_path / 'spine1.cfg'}:21: the indentation mixes tabs" in spine["message"]
    assert f"losslessd: error: {spine['message']}" in ran.stderr
    assert not leaf["input_error"] and any(f["snippet"] for f in leaf["fixes"])
    text = losslessd("fix", tmp_path, "--policy", POLICY)
    assert text.returncode == 2, text.stderr
    summary = text.stdout.rstrip().splitlines()[-1]
    assert "1 input refused as it stands (each says what to change)" in summary and "without a fix" not in summary
    assert "0 fixes printed" not in summary
    # a run with nothing refused is complete, with no input errors
    (tmp_path / "spine1.cfg").write_text(spaces)
    data = json.loads(losslessd("fix", "-f", "json", tmp_path, "--policy", POLICY).stdout)
    assert data["complete"] is True and data["input_errors"] == [] and not any(d["input_error"]
                                                                               for d in data["devices"])


def test_junos_a_classifier_on_the_interface_and_another_on_its_unit_is_unknown_and_the_fix_keeps_one(tmp_path):
    """JVD compute-leaf1 binds its DSCP classifier on the interface (`class-of-service interfaces et-0/0/48 classifiers
    dscp ...`); the fix binds its own on unit 0. Which of two classifies is in no Juniper page read (_both_levels),
    so a port with both reads unknown (SYS002), and the fix deletes the interface's: config + snippet reads the unit's.
    Before, the later line was read as the switch's and the fix left both."""
    unit_line = "set class-of-service interfaces et-0/0/0 unit 0 classifiers dscp roce-dscp\n"
    text = JUNOS_LEAF.read_text()
    both = text.replace(unit_line, unit_line + "set class-of-service interfaces et-0/0/0 classifiers dscp old-dscp\n"
                        "set class-of-service classifiers dscp old-dscp forwarding-class best-effort loss-priority "
                        "low code-points 011010\n")
    path = tmp_path / "both.cfg"
    path.write_text(both)
    port = api.lint([path], POLICY).fabric.devices["qfx-leaf1"].ports["et-0/0/0"]
    assert port.trust is None and port.dscp_to_tc is None and "old-dscp (on the interface)" in port.trust_unknown
    # The interface's classifier alone (as the JVD leaf), sending DSCP 26 to best effort: MAP001, and the fix.
    text = text.replace(unit_line, "set class-of-service interfaces et-0/0/0 classifiers dscp old-dscp\n"
                        "set class-of-service classifiers dscp old-dscp forwarding-class best-effort loss-priority "
                        "low code-points 011010\n")
    dev, snippet, after = _junos_maps_fix(tmp_path, text)
    assert "delete class-of-service interfaces et-0/0/0 classifiers dscp\n" in snippet, snippet
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
    port = after.fabric.devices["qfx-leaf1"].ports["et-0/0/0"]
    assert port.trust == "dscp" and port.tc_label(port.dscp_to_tc[26]) == "forwarding class roce"


@pytest.mark.parametrize("extra, deleted", [
    ("", []),
    # (a wildcard entry's interface classifier is that entry's: `delete` on the port finds nothing there)
    ("set class-of-service interfaces et-* classifiers dscp roce-dscp\n", []),
    ("set class-of-service interfaces et-0/0/1 classifiers dscp roce-dscp\n", ["et-0/0/1"]),
    ("set interfaces et-0/0/0 ether-options 802.3ad ae1\nset interfaces ae1 unit 0 family inet mtu 9000\n"
     "set class-of-service interfaces ae1 classifiers dscp roce-dscp\n", ["ae1"]),
])
def test_junos_fix_deletes_an_interface_classifier_only_where_the_config_binds_one(tmp_path, extra, deleted):
    """Junos PyEZ and napalm's junos driver load a `delete` of a statement the switch does not have as an error
    (`warning: statement not found`): the fix deletes `class-of-service interfaces IF classifiers dscp` only on the
    entry (the port, or its aeN) the config binds one on. Before, every bound port had the delete."""
    text = JUNOS_LEAF.read_text().replace(ROCE_LINE, ROCE_LINE.replace("roce", "best-effort")) + extra
    dev, snippet, after = _junos_maps_fix(tmp_path, text)
    assert re.findall(r"^delete class-of-service interfaces (\S+) classifiers", snippet, re.M) == deleted, snippet
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)


def test_junos_fix_deletes_an_interface_classifier_whatever_its_name(tmp_path):
    """The fix deletes an interface's classifier by its type (`delete class-of-service interfaces IF classifiers
    dscp`), never by its name: a name losslessd would not write (Junos takes a quoted one, `"old dscp"`) does not
    refuse the fix. Before, render checked it as a name the snippet writes ("rename the policy-map")."""
    text = JUNOS_LEAF.read_text().replace(
        "set class-of-service interfaces et-0/0/0 unit 0 classifiers dscp roce-dscp\n",
        'set class-of-service interfaces et-0/0/0 classifiers dscp "old dscp"\n'
        'set class-of-service classifiers dscp "old dscp" forwarding-class best-effort loss-priority low code-points '
        "011010\n")
    dev, snippet, after = _junos_maps_fix(tmp_path, text)
    assert "delete class-of-service interfaces et-0/0/0 classifiers dscp\n" in snippet and "old" not in snippet
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.unresolved, dev.introduced)
