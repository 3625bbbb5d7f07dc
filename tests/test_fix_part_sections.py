"""A fix's SAFE part writes only statements about its own sections, none about a disruptive one (a classifier, a PFC
code point, a trust change), for every platform and every generated policy: the statements are read by what they say
(tests/part_sections.py), not by the template branch that wrote them. Junos's watchdog section rebound the port's
congestion notification profile with the policy's PFC code points and rebuilt its DSCP classifier, inside a part
labelled safe (`ecn, scheduler, watchdog`)."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import fix
from losslessd import render as rnd
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.fix import output as fix_output
from losslessd.lint.finding import Finding, Severity
from losslessd.policy import Policy
from tests import render_golden
from tests.part_sections import outside
from tests.test_render_policies import (
    _ECN_9216,
    _WATCHDOG_100,
    PORTS,
    REFUSALS,
    ROOT,
    TARGETS,
    _device,
    _policy,
    _render,
    policies,
    profile_of,
)

SAFE = sorted(rnd.SECTIONS - rnd.DISRUPTIVE_SECTIONS - {"ports", "routing", "election", "timers", "sl2vl"})


@pytest.mark.parametrize(("platform", "variant"), TARGETS)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pol=policies(), specs=st.lists(st.sampled_from(PORTS), min_size=1, max_size=2).map(tuple),
       sections=st.sets(st.sampled_from(SAFE), min_size=1))
def test_a_safe_sections_render_writes_only_their_statements(platform, variant, pol: Policy, specs, sections):
    """Any set of safe sections rendered on its own (as a fix renders its safe part) writes no statement about
    another section, nor about a disruptive one beside its own."""
    try:
        _render(pol, platform, variant, specs)
    except InputError as exc:
        assert any(reason in str(exc) for reason in REFUSALS), str(exc)
        return
    prof = profile_of(pol, platform, variant, specs)
    try:
        text = rnd.render(platform, rnd.restrict(prof, sections))
    except InputError as exc:  # (a section the platform's facts here cannot give: the fix says so, prints nothing)
        assert any(reason in str(exc) for reason in REFUSALS), str(exc)
        return
    assert outside(platform, text, sections, safe=True) == []





def _fix(tmp_path, platform: str, variant: str | None, pol: Policy, unsafe: bool = True):
    before = lint([_device(tmp_path, platform, variant)], pol, fmt=platform)
    (dev,) = fix.plan(before, unsafe=unsafe, model=render_golden.options(platform, variant).get("model")).devices
    return before, dev


def test_junos_watchdog_part_keeps_the_ports_pfc_and_classifier(tmp_path):
    """Junos QFX5000, lossless 3 by DSCP 1: the safe part (ecn, scheduler, watchdog) deleted and rebuilt classifier
    roce-dscp and wrote `input dscp code-point 000001 pfc` into a profile it bound: RoCE reclassified and PFC changed
    in a part labelled safe. The watchdog goes into the profile each port is bound to now; the classifier and the PFC
    code point come with the disruptive maps part alone. (And ECN002, whose probability the safe part fixes, was
    reported still there with its old message: the re-lint leaves only its unverified fill levels, an info.)"""
    pol = _policy(lossless={"priorities": [3], "dscp": [1], "trust": "dscp"},
                  cnp={"dscp": 0, "priority": 1, "strict": False}, watchdog=_WATCHDOG_100, ecn=_ECN_9216)
    _, dev = _fix(tmp_path, "juniper_junos", "qfx5000", pol)
    assert dev.message is None and dev.verified and not dev.unresolved and not dev.introduced
    safe = [p for p in dev.parts if p.label == "safe"]
    assert [p.sections for p in safe] == [["ecn", "scheduler", "watchdog"]]
    lines = safe[0].snippet.splitlines()
    assert not [line for line in lines if "classifiers" in line or " input " in line
                or line.startswith("set class-of-service interfaces") and "congestion-notification-profile" in line]
    assert {line.split()[3] for line in lines if "pfc-watchdog" in line} == {"roce-pfc-3", "roce-pfc-3-300m"}
    assert safe[0].shared == {}  # (every port bound to those profiles is fixed here: no other port takes the timers)
    assert "ECN002" in {f.code for f in safe[0].findings}
    (maps,) = [p for p in dev.parts if p.label == "disruptive"]
    assert "set class-of-service congestion-notification-profile roce-pfc-3 input dscp code-point 000001 pfc" in (
        maps.snippet.splitlines())
    # Without --unsafe-fixes only the safe part is printed: nothing reclassified, no PFC code point changed.
    (tmp_path / "safe").mkdir()
    _, held = _fix(tmp_path / "safe", "juniper_junos", "qfx5000", pol, unsafe=False)
    printed = "".join(p.snippet for p in held.parts if p.printed)
    assert "classifiers" not in printed and " input " not in printed and held.verified


def test_junos_watchdog_part_names_the_ports_sharing_the_profile_it_writes(tmp_path):
    """Junos, et-0/0/0 and et-0/0/2 both bound to congestion-notification-profile roce-pfc-3, only et-0/0/0 RoCE-facing
    (roce_ports.name_regex): the safe watchdog part writes the policy's timers into roce-pfc-3, so et-0/0/2 takes them
    too. The part said nothing of it; now its note and its JSON `shared` name et-0/0/2 and the by-hand choice."""
    pol = _policy(lossless={"priorities": [3], "dscp": [26], "trust": "dscp"}, roce_ports={"name_regex": "^et-0/0/0$"},
                  cnp={"dscp": 48, "priority": 6, "strict": True}, watchdog=_WATCHDOG_100)
    before, dev = _fix(tmp_path, "juniper_junos", "qfx5000", pol, unsafe=False)
    assert {(f.code, f.port) for f in dev.findings} == {("WDG002", "et-0/0/0")}
    (part,) = dev.parts
    assert part.sections == ["watchdog"] and "congestion-notification-profile roce-pfc-3 pfc-watchdog" in part.snippet
    assert part.shared == {"roce-pfc-3": ["et-0/0/2"]}
    # (from what to what: the part writes poll-interval 50 and recovery 100; 2 polls are now a 100 ms detection)
    assert ("congestion-notification-profile roce-pfc-3 is shared: et-0/0/2 (not in this fix) takes the policy's "
            "watchdog timers (polling interval 100 ms -> 50 ms, detection time 200 ms -> 100 ms, restoration time "
            "200 ms -> 100 ms) too; to leave it as it is, bind the fixed ports to a congestion-notification-profile of "
            "their own by hand instead (a PFC change: disruptive)") in part.notes
    result = fix.FixResult(lint=before, devices=[dev], unsafe=False)
    data = json.loads(fix_output.as_json(result))
    jsonschema.validate(data, json.loads((ROOT / "losslessd/fix/schema.json").read_text()))
    assert data["devices"][0]["fixes"][0]["shared"] == {"roce-pfc-3": ["et-0/0/2"]}
    assert any("et-0/0/2 (not in this fix)" in note for note in fix_output.notes(result))


def test_junos_watchdog_part_names_no_port_whose_shared_profile_holds_the_timers_already(tmp_path):
    """Junos, the watchdog part writes into roce-pfc-3 (et-0/0/0, old timers) and roce-pfc-3-300m (et-0/0/1, which
    et-0/0/2 shares), whose timers are the policy's already (poll 50, detection 2 polls, recovery 100 ms): nothing
    changes for et-0/0/2, yet the note said it "takes the policy's watchdog timers too" and JSON `shared` named it. Now
    a shared profile is named only where a value it holds changes."""
    path = _device(tmp_path, "juniper_junos", "qfx5000")
    text = path.read_text().replace("interfaces et-0/0/2 congestion-notification-profile roce-pfc-3\n",
                                    "interfaces et-0/0/2 congestion-notification-profile roce-pfc-3-300m\n")
    for line, now in (("poll-interval 100", "poll-interval 50"), ("recovery 200", "recovery 100")):
        text = text.replace(f"roce-pfc-3-300m pfc-watchdog {line}\n", f"roce-pfc-3-300m pfc-watchdog {now}\n")
    path.write_text(text)
    pol = _policy(lossless={"priorities": [3], "dscp": [26], "trust": "dscp"},
                  roce_ports={"name_regex": "^et-0/0/[01]$"}, cnp={"dscp": 48, "priority": 6, "strict": True},
                  watchdog=_WATCHDOG_100)
    before = lint([path], pol, fmt="juniper_junos")
    (device,) = before.fabric.devices.values()
    assert device.ports["et-0/0/2"].watchdog.polling_interval_ms == 50
    wdg = [Finding(code="WDG002", name="pfc-watchdog-timers", severity=Severity.error, message="timers",
                   device=device.name, port=port, key="3") for port in ("et-0/0/0", "et-0/0/1")]
    (part,) = fix.device_fix(device, wdg, pol, unsafe=False).parts
    # (the roce-pfc-3-300m lines are cut: the config holds them)
    assert "congestion-notification-profile roce-pfc-3 pfc-watchdog poll-interval 50" in part.snippet
    assert part.shared == {} and not any("is shared" in note for note in part.notes)


def test_nvue_buffer_part_names_the_ports_sharing_the_pfc_profile_it_writes(tmp_path):
    """NVUE, swp2 and swp3 both bound to PFC profile pfc_p3_300m, a buffer finding on swp2 alone whose cable (a model
    given through the Python API) is 400 m: the safe buffer part sets `cable-length 400` in pfc_p3_300m, which sizes
    swp3's headroom too. The part said nothing of it; now its note and JSON `shared` name swp3."""
    path = _device(tmp_path, "nvidia_cumulus", None)
    path.write_text(path.read_text().replace("interface swp3 qos pfc profile pfc_p3_3m",
                                             "interface swp3 qos pfc profile pfc_p3_300m"))
    pol = _policy(lossless={"priorities": [3], "dscp": [26], "trust": "dscp"},
                  cnp={"dscp": 48, "priority": 6, "strict": True})
    before = lint([path], pol, fmt="nvidia_cumulus")
    (device,) = before.fabric.devices.values()
    assert device.ports["swp3"].service_policies == {"qos pfc profile": "pfc_p3_300m"}
    finding = Finding(code="BUF001", name="headroom", severity=Severity.error, message="xoff short",
                      device=device.name, port="swp2", key="3")
    # (swp2's own 300 m: the part writes what the profile holds, cut to nothing: no port changes, none named)
    (held,) = fix.device_fix(device, [finding], pol, unsafe=False).parts
    assert held.held and held.shared == {} and not any("is shared" in note for note in held.notes)
    device.ports["swp2"].cable_length_m = 400.0
    dev = fix.device_fix(device, [finding], pol, unsafe=False)
    (part,) = dev.parts
    assert part.sections == ["buffer"] and "nv set qos pfc pfc_p3_300m cable-length 400" in part.snippet.splitlines()
    assert part.shared == {"pfc_p3_300m": ["swp3"]}
    assert any(note.startswith("qos pfc profile pfc_p3_300m is shared: swp3 (not in this fix) takes the cable length "
                               "of the longest cable fixed here (300 -> 400 m: more headroom) too")
               for note in part.notes)
    # swp3 fixed too, by another safe part writing its buffer (ECN004: ecn, buffer): each part's change reaches only
    # ports this fix writes the cable length for, so neither names the other.
    other = Finding(code="ECN004", name="ecn-before-pfc", severity=Severity.warning, message="Kmax above xoff",
                    device=device.name, port="swp3", key="3")
    dev = fix.device_fix(device, [finding, other], pol, unsafe=False)
    assert sorted(p.sections for p in dev.parts) == [["buffer"], ["buffer", "ecn"]]
    assert [p.shared for p in dev.parts] == [{}, {}] and not any("is shared" in n for p in dev.parts for n in p.notes)


def test_nxos_missing_cable_length_refuses_the_buffer_section_alone(tmp_path):
    """NX-OS states no cable length; Ethernet1/2 (400G, 300 m) has an explicit pause buffer, which ECN004's buffer
    section resizes. That refused the whole device's fix, its watchdog and ECN too; now the buffer section of that
    port is refused (saying why, the finding listed) and every other part is printed and verified."""
    pol = _policy(lossless={"priorities": [3], "dscp": [26], "trust": "dscp"},
                  cnp={"dscp": 48, "priority": 6, "strict": True}, watchdog=_WATCHDOG_100,
                  ecn={"min_threshold_bytes": {"min": 100000, "max": 1000000}, "max_threshold_bytes": {"min": 100000},
                       "mark_probability_pct": {"min": 5, "max": 100}, "before_pfc": "kmax"})
    before, dev = _fix(tmp_path, "cisco_nxos", "n9k", pol, unsafe=False)
    assert "ECN004" in {f.code for f in before.findings if f.port == "Ethernet1/2" and f.severity != Severity.info}
    assert dev.message is None and dev.verified and not dev.unresolved and not dev.introduced
    (refused,) = [p for p in dev.parts if p.refused is not None]
    assert (refused.label, refused.sections, [(f.code, f.port) for f in refused.findings]) == (
        "safe", ["buffer"], [("ECN004", "Ethernet1/2")])
    assert refused.refused == ("port Ethernet1/2: cable length unknown, so its PFC headroom cannot be sized (buffer "
                               "section): set buffer.default_cable_length_m in the policy (or state the port's cable "
                               "length in the input) and run again, or write this section by hand (the ecn section "
                               "of the same finding waits for it there)")
    # (the watchdog is switch-wide on NX-OS: a part of it for other ports may find it written already, held)
    fixed = {(f.code, f.port) for p in dev.parts if p.printed or p.held for f in p.findings}
    assert fixed >= {("WDG002", "Ethernet1/2"), ("ECN003", "Ethernet1/3")} and any(p.printed for p in dev.parts)
    text = fix_output.text(fix.FixResult(lint=before, devices=[dev], unsafe=False))
    assert f"SAFE fix (buffer) for ECN004 Ethernet1/2: no fix, {refused.refused}" in text
    data = json.loads(fix_output.as_json(fix.FixResult(lint=before, devices=[dev], unsafe=False)))
    jsonschema.validate(data, json.loads((ROOT / "losslessd/fix/schema.json").read_text()))
    assert [f["refused"] for f in data["devices"][0]["fixes"] if f["refused"]] == [refused.refused]


@pytest.mark.parametrize(("platform", "marks"), [
    ("sonic", '"Ethernet0|1": {"wred_profile": "ROCE_LOSSLESS'),
    ("nvidia_cumulus", "nv set qos congestion-control ROCE_LOSSLESS_153600_1572864 traffic-class 1 ecn enable")])
def test_ecn_part_waiting_for_the_withheld_maps_part_says_so(tmp_path, platform, marks):
    """SONiC and NVUE, a new lossless priority 1 whose RoCE DSCP the device's maps put on another queue: the ECN part
    (a WRED profile on queue 1, where priority 1 is now and the maps part sends RoCE; safe) is printed without
    --unsafe-fixes, with a note that the withheld maps part changes what reaches it, and its ECN001 is still there
    until then. With
    --unsafe-fixes the maps part is printed too: no note, nothing left."""
    pol = _policy(lossless={"priorities": [1], "dscp": [0], "trust": "dscp"},
                  cnp={"dscp": 1, "priority": 2, "strict": False}, watchdog=_WATCHDOG_100)
    _, dev = _fix(tmp_path, platform, None, pol, unsafe=False)
    ports = ", ".join(render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)[:3])
    # (priority 1 reaches queue 1 by the device's own maps: the ECN goes there now; the RoCE DSCP reaches it once
    # the withheld maps part is applied)
    note = (f"the ECN on {ports} goes on the queue(s) the lossless priorities reach now: the withheld maps part "
            "changes what reaches them, so run fix again once it is applied")
    (ecn,) = [p for p in dev.parts if "ecn" in p.sections]
    assert ecn.label == "safe" and ecn.printed and note in ecn.notes and marks in ecn.snippet
    (maps,) = [p for p in dev.parts if "maps" in p.sections]
    assert maps.label == "disruptive" and maps.withheld
    assert "ECN001" in {f.code for f in dev.unresolved}
    (tmp_path / "unsafe").mkdir()
    _, both = _fix(tmp_path / "unsafe", platform, None, pol, unsafe=True)
    assert not [n for p in both.parts for n in p.notes if "withheld maps part" in n]
    assert both.verified and not both.unresolved and not both.introduced


def test_junos_trust_part_is_refused_where_a_wildcard_entry_binds_the_dscp_classifier(tmp_path):
    """Junos, `class-of-service interfaces et-* unit * classifiers dscp roce-dscp` (the JVD AI/ML leaves' form) and a
    policy classifying by 802.1p: the trust part deleted the port's own DSCP classifier (it has none) and bound an
    IEEE one, while the wildcard's DSCP classifier stays on every et- port, so MAP003 stayed ("fix by hand") after
    printing lines the switch does not classify by. Now the trust section is refused on those ports, naming the
    wildcard entry; with the classifier bound on the ports' own entries, the trust part is printed and verified."""
    path = _device(tmp_path, "juniper_junos", "qfx5000")
    own = path.read_text()
    pol = _policy(lossless={"priorities": [3], "dscp": [26], "trust": "pcp"},
                  cnp={"dscp": 48, "priority": 6, "strict": True})
    for text, wildcard in ((own, False), (re.sub(r"set class-of-service interfaces et-0/0/\d unit 0 classifiers dscp "
                                                 r"roce-dscp\n", "", own, count=3).replace(
            "set class-of-service congestion-notification-profile",
            "set class-of-service interfaces et-* unit * classifiers dscp roce-dscp\n"
            "set class-of-service congestion-notification-profile", 1), True)):
        path.write_text(text)
        before = lint([path], pol, fmt="juniper_junos")
        assert {f.port for f in before.findings if f.code == "MAP003"} == {"et-0/0/0", "et-0/0/1", "et-0/0/2"}
        (dev,) = fix.plan(before, unsafe=True).devices
        trust = [p for p in dev.parts if "trust" in p.sections]
        if not wildcard:
            assert all(p.printed for p in trust) and "MAP003" not in {f.code for f in dev.unresolved}
            continue
        (refused,) = trust
        assert refused.refused_on == ("et-0/0/0", "et-0/0/1", "et-0/0/2")
        assert "bound by the wildcard entry `class-of-service interfaces et-*`" in refused.refused
        assert not any("ieee-802.1" in (p.snippet or "") for p in dev.parts)


def test_junos_pause_to_queue_break_is_fixed_in_the_pfc_profile():
    """aiml-leaf-pause-stops-cnp-queue.conf: `class NO-LOSS queue-num 4 no-loss pfc-priority 3` with the PFC profile's
    `output ieee-802.1 code-point 011 flow-control-queue 3`. Junos says which queue a pause stops in the congestion
    notification profile (Junos "Configuring DSCP-based PFC for Layer 3 Untagged Traffic"), the template's pfc section;
    MAP001 (its last link) and MAP004 asked the maps section, whose classifier changes no pause, so both were "still
    there". They now ask the pfc section: the part writes `flow-control-queue 4` and the re-lint clears them."""
    path = ROOT / "tests/realworld/juniper_junos/aiml-leaf-pause-stops-cnp-queue.conf"
    result = fix.plan(lint([path], "roce-dscp26"), unsafe=True)
    (dev,) = result.devices
    (part,) = [p for p in dev.parts if {"MAP001", "MAP004"} & {f.code for f in p.findings}]
    assert "pfc" in part.sections and part.snippet is not None
    assert "congestion-notification-profile roce-pfc-3 output ieee-802.1 code-point 011 flow-control-queue 4" in (
        part.snippet)
    assert dev.verified and not {f.code for f in dev.unresolved} & {"MAP001", "MAP004"}
