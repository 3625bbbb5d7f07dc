"""NX-OS and Junos render templates: numbers land where they should, every subset of sections stays a valid
config, and a rendered snippet appended to a real config changes it the way the switch would (later
commands win, re-entered blocks merge)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import render as rnd
from losslessd.api import lint
from losslessd.fix import apply
from losslessd.lint.finding import Severity
from losslessd.model import ForwardingClass, SchedulerType
from losslessd.parse import eos, junos, nxos
from losslessd.parse.base import Input
from losslessd.platforms import PLATFORMS
from losslessd.policy import load_policy
from losslessd.units import time_to_bytes
from tests import render_golden
from tests.conftest import FIXTURES

PARSERS = {"cisco_nxos": nxos, "juniper_junos": junos}
RAW = FIXTURES / "raw"


def _profile(platform: str, policy: str = "roce-dscp26") -> rnd.Profile:
    ports = [rnd.parse_port_spec(spec) for spec in render_golden.port_specs(platform)]
    return rnd.profile(load_policy(policy), ports, pool_bytes=render_golden.POOL_BYTES,
                       **render_golden.options(platform))


def _parse(platform: str, text: str):
    return PARSERS[platform].parse([Input(f"sw.{render_golden.EXTENSIONS[platform]}", text)], "sw")


def _golden(platform: str, policy: str):
    return _parse(platform, render_golden.golden_path(platform, policy).read_text())


def _only(prof: rnd.Profile, sections: set[str], ports: list[str] | None = None) -> rnd.Profile:
    """What `fix` renders: some sections, on some ports, with the full profile's numbers."""
    kept = [p for p in prof.ports if ports is None or p.name in ports]
    return replace(prof, sections=frozenset(sections), ports=kept)


def _extra_findings(platform: str, policy: str, path: Path) -> list[str]:
    runtime = render_golden.RUNTIME_INFOS[platform]
    return [f"{f.code} {f.message}" for f in lint([path], policy, fmt=platform).findings
            if not (f.unverified and f.severity == Severity.info and f.code in runtime)]


def test_nxos_numbers_land_on_each_port():
    """ECN thresholds scale from 100 Gb/s per port (one queuing policy each); watchdog timers are
    the profile's; CNP's queue is strict; speed and MTU are restated."""
    device = _golden("cisco_nxos", "roce-dscp26")
    ports = [device.ports[name] for name in ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3")]
    ecn = [port.queues[3].ecn for port in ports]
    assert [(e.min_threshold_bytes, e.max_threshold_bytes) for e in ecn] == [
        (rnd.ECN_KMIN_BYTES * s // 100, rnd.ECN_KMAX_BYTES * s // 100) for s in (100, 400, 25)]
    assert all(e.ecn_enabled and e.mark_probability_pct == 100 for e in ecn)
    assert [(p.speed_gbps, p.mtu_bytes) for p in ports] == [(100, 9100), (400, 9100), (25, 1500)]
    for port in ports:
        assert port.pfc_enabled == [3] and port.dscp_chain(26).queue == 3 and port.dscp_chain(48).tc == 6
        assert port.queues[6].scheduler.type == SchedulerType.strict
        wd = port.watchdog
        assert (wd.enabled, wd.polling_interval_ms, wd.detection_time_ms, wd.restoration_time_ms) == (True, 100, 200, 200)


def test_nxos_long_cable_pauses_above_the_ecn_threshold():
    """NX-OS sends XOFF at the pause-threshold whatever the load (QoS guide, PFC chapter): the long-cable port's
    threshold sits a frame above its Kmin, rounded up to 1 KiB, and the headroom H lies above it."""
    device = _golden("cisco_nxos", "roce-dscp26")
    port = device.ports["Ethernet1/2"]  # 400 Gb/s on a cable above 100 m: the one with a pause buffer
    kmin = port.queues[3].ecn.min_threshold_bytes
    profile = device.buffer_profiles[port.priority_groups[3].profile]
    assert profile.xoff_threshold_bytes == -(-(kmin + port.mtu_bytes) // 1024) * 1024 > kmin
    assert profile.size_bytes - profile.xoff_threshold_bytes == profile.xoff_bytes  # H, as without ECN
    assert profile.xon_bytes == profile.xoff_threshold_bytes - port.mtu_bytes


def test_junos_ecn_fill_levels_read_back_in_bytes():
    """The temporal queue buffer turns fill levels into bytes: Kmin just above and Kmax just below the
    profile's (within one percent of the buffer and one microsecond at line rate), 400G 4x 100G."""
    prof = _profile("juniper_junos")
    device = _golden("juniper_junos", "roce-dscp26")
    assert device.issues == []
    for want in prof.ports:
        ecn = device.ports[want.name].queues[3].ecn
        assert ecn.ecn_enabled and ecn.unconverted is None and ecn.mark_probability_pct == 100
        buffer = 2 * ecn.max_threshold_bytes  # Kmax sits at the 50 % fill level
        assert want.kmin_bytes <= ecn.min_threshold_bytes < want.kmin_bytes + buffer / 100
        assert want.kmax_bytes - time_to_bytes(1e-3, want.speed_gbps) < ecn.max_threshold_bytes <= want.kmax_bytes
    # Thresholds that scale with speed share one drop profile and buffer time; bytes differ by rounding only.
    assert {port.queues[3].ecn.profile for port in device.ports.values()} == {"roce-251us-5-50"}
    kmin = {name: port.queues[3].ecn.min_threshold_bytes for name, port in device.ports.items()}
    assert kmin["et-0/0/1"] == 4 * kmin["et-0/0/0"] == pytest.approx(16 * kmin["et-0/0/2"], abs=16)


def test_junos_pfc_watchdog_and_maps():
    device = _golden("juniper_junos", "sonic-azure")
    for port in device.ports.values():
        assert port.pfc_enabled == [3, 4] and port.pfc_priority_to_queue == {3: [3], 4: [4]}
        assert [port.dscp_chain(d).queue for d in (3, 4, 26, 48)] == [3, 4, 0, 0]
        assert port.dscp_to_tc is not None and len(port.dscp_to_tc) == 64  # every code point listed
        wd = port.watchdog
        assert (wd.enabled, wd.polling_interval_ms, wd.detection_time_ms, wd.restoration_time_ms, wd.action) == (
            True, 100, 200, 200, "drop")


@pytest.mark.parametrize("platform", list(PARSERS))
def test_pfc_only_writes_no_ecn(platform):
    text = render_golden.golden_path(platform, "pfc-only").read_text()
    assert "random-detect" not in text and "drop-profile" not in text and "explicit-congestion" not in text
    assert all(not q.ecn or not q.ecn.ecn_enabled for port in _golden(platform, "pfc-only").ports.values()
               for q in port.queues.values())


@pytest.mark.parametrize("platform", list(PARSERS))
def test_pfc_priorities_and_watchdog_follow_the_profile_not_the_policy(platform):
    """A profile with PFC on other priorities or the watchdog off (how fix tests build broken configs)
    renders exactly that."""
    prof = replace(_profile(platform), pfc=[], watchdog=False)
    port = next(iter(_parse(platform, rnd.render(platform, prof)).ports.values()))
    assert port.pfc_enabled == [] and port.watchdog.enabled is False
    if platform == "cisco_nxos":  # NX-OS can pause a priority no DSCP maps to; Junos' DSCP-based PFC cannot
        prof = replace(_profile(platform), pfc=[3, 4])
        assert all(p.pfc_enabled == [3, 4] for p in _parse(platform, rnd.render(platform, prof)).ports.values())


@settings(max_examples=60, deadline=None)
@given(platform=st.sampled_from(list(PARSERS)),
       sections=st.sets(st.sampled_from(sorted(rnd.SECTIONS)), min_size=1))
def test_any_subset_of_sections_is_a_whole_config(platform, sections):
    """Each subset parses without a problem, and a section left out leaves no trace."""
    text = rnd.render(platform, _only(_profile(platform), sections))
    device = _parse(platform, text)
    assert device.issues == []
    traces = {"watchdog": ("watch-dog", "pfc-watchdog"), "maps": ("class-map", "classifiers"),
              "ports": ("speed ", " mtu ")}
    if platform == "juniper_junos" and "pfc" in sections:
        del traces["maps"]  # DSCP-based PFC works through the classifier, written with it
        # the PFC profile it binds in place of the port's holds the watchdog: written with it, so none goes off
        traces.pop("watchdog", None)
    if platform == "cisco_nxos" and "trust" in sections:
        del traces["maps"]  # what a port trusts is what its qos policy's classes match: trust writes them
    if platform == "juniper_junos" and "trust" in sections:
        # what a port trusts is its unit's classifier, and the PFC profile (holding the watchdog) pauses by the
        # classifier's kind of code point: trust writes and binds both
        traces.pop("maps", None)
        traces.pop("watchdog", None)
    # A network-qos class's `    mtu 9216` is switch-wide and written with PFC: not a port's MTU.
    lines = [line for line in text.splitlines()[1:] if line != "    mtu 9216"]
    for section, words in traces.items():
        if section not in sections:
            assert not any(word in line for line in lines for word in words), section
    if not sections & {"scheduler", "ecn"}:
        assert "random-detect" not in text and "scheduler-map" not in text


@settings(max_examples=30, deadline=None)
@given(platform=st.sampled_from(list(PARSERS)), speed=st.sampled_from([10, 25, 40, 50, 100, 200, 400, 800]),
       cable=st.integers(1, 2000), mtu=st.integers(1500, 9216), policy=st.sampled_from(render_golden.POLICIES))
def test_any_port_round_trips_clean(tmp_path_factory, platform, speed, cable, mtu, policy):
    """Like test_render's property test, with the platform's own port names so the port is really read."""
    name = render_golden.PORT_NAMES[platform][0]
    mtu = min(mtu, PLATFORMS[platform].limits.mtu_bytes[1])  # the platform's largest (Junos: 9202 + 14)
    text = rnd.render(platform, rnd.profile(load_policy(policy), [rnd.PortFacts(name, speed, cable, mtu)],
                                                   **render_golden.options(platform)))
    path = tmp_path_factory.mktemp("r") / f"sw.{render_golden.EXTENSIONS[platform]}"
    path.write_text(text)
    assert _extra_findings(platform, policy, path) == []
    assert list(_parse(platform, text).ports) == [name]


def _appended(tmp_path: Path, platform: str, base: str, *snippets: str) -> Path:
    path = tmp_path / f"sw.{render_golden.EXTENSIONS[platform]}"
    path.write_text(base + "".join(snippets))
    return path


def test_nxos_snippet_appended_to_a_real_config(tmp_path):
    """A watchdog snippet's global timers replace the config's; an ECN snippet for one port binds a new
    queuing policy there while the other ports keep theirs."""
    base = (RAW / "cisco_nxos" / "roce-leaf.cfg").read_text()
    prof = replace(_profile("cisco_nxos"), ports=[rnd.profile(
        load_policy("roce-dscp26"), [rnd.PortFacts("Ethernet1/1", 100, 5, 9216)]).ports[0]])
    device = _parse("cisco_nxos", base + rnd.render("cisco_nxos", _only(prof, {"watchdog", "ecn"})))
    assert device.issues == []
    wd = device.ports["Ethernet1/49"].watchdog  # timers are global: 3 x 100 ms / 10 x 100 ms before
    assert (wd.detection_time_ms, wd.restoration_time_ms) == (200, 200)
    ecn = {name: device.ports[name].queues[3].ecn.max_threshold_bytes for name in ("Ethernet1/1", "Ethernet1/2")}
    assert ecn == {"Ethernet1/1": rnd.ECN_KMAX_BYTES, "Ethernet1/2": 3000 * 1024}


@pytest.mark.parametrize("platform", list(PARSERS))
def test_fix_snippet_merges_into_a_broken_rendered_config(tmp_path, platform):
    """A config rendered with the CNP queue not strict and no watchdog, then the scheduler and watchdog
    sections of the right profile appended: the re-entered queue class / scheduler takes the later
    priority and the config lints clean. On NX-OS the snippet is as `render --device` prints it, the class's
    `bandwidth` line taken away before its `priority` goes in (a class holding both is served in a way not known)."""
    prof = _profile(platform)
    broken = rnd.render(platform, replace(prof, strict_queues=[], watchdog=False))
    before = _appended(tmp_path, platform, broken)
    assert {f.split()[0] for f in _extra_findings(platform, "roce-dscp26", before)} == {"MAP002", "WDG001"}
    # (as `fix` makes it, with the ports' facts from the config: Junos writes the watchdog into the congestion
    # notification profile a port is bound to, render.PortFacts.attached)
    bound = _parse(platform, broken).ports
    prof = replace(prof, ports=[replace(p, attached=bound[p.name].service_policies or {}) for p in prof.ports])
    snippet = rnd.render(platform, _only(prof, {"scheduler", "watchdog"}))
    if platform == "cisco_nxos":
        snippet = apply.nxos_unsets(broken, snippet)
        assert "c-out-8q-q6\n    no bandwidth remaining percent 0\n    priority level 1\n" in snippet
    fixed = _appended(tmp_path, platform, broken, snippet)
    assert _extra_findings(platform, "roce-dscp26", fixed) == []
    port = _parse(platform, fixed.read_text()).ports[render_golden.PORT_NAMES[platform][0]]
    assert port.queues[6].scheduler.type == SchedulerType.strict and port.watchdog.enabled


def test_junos_snippet_appended_to_a_real_config():
    """On the QFX leaf, an ECN + watchdog snippet for et-0/0/0 rebinds its scheduler-map (one per interface, the
    later `set` wins; et-0/0/1 keeps the old one) and writes the watchdog into roce-cnp, the congestion notification
    profile the port is bound to: a profile of its own bound in its place would carry its own PFC code points (a PFC
    change in a safe part). Every port bound to roce-cnp gets the new timers; its PFC stays as it was."""
    base = (RAW / "juniper_junos" / "roce-leaf.cfg").read_text()
    prof = _profile("juniper_junos")
    port = replace(prof.ports[0], attached=_parse("juniper_junos", base).ports["et-0/0/0"].service_policies)
    # (its unit's DSCP classifier too: a snippet trusting PCP deletes that binding, as the switch has it)
    assert port.attached == {"congestion-notification-profile": "roce-cnp", "unit 0 classifiers dscp": "roce-dscp"}
    snippet = rnd.render("juniper_junos", _only(replace(prof, ports=[port]), {"ecn", "watchdog"}))
    assert "congestion-notification-profile roce-cnp pfc-watchdog recovery 200" in snippet
    assert not [line for line in snippet.splitlines() if " input " in line or "classifiers" in line]
    device = _parse("juniper_junos", base + "\n" + snippet)
    assert device.issues == []
    new, old = device.ports["et-0/0/0"], device.ports["et-0/0/1"]
    assert new.queues[3].ecn.unconverted is None and new.queues[3].ecn.min_threshold_bytes >= rnd.ECN_KMIN_BYTES
    assert old.queues[3].ecn.unconverted is not None  # percent of a buffer the config does not size
    assert (new.watchdog.restoration_time_ms, old.watchdog.restoration_time_ms) == (200, 200)
    assert new.pfc_enabled == old.pfc_enabled == [3]


def test_junos_maps_snippet_pasted_over_a_classifier_that_lists_the_dscp_elsewhere():
    """The QFX leaf's roce-dscp lists 011010 under its own class roce; the rendered maps and PFC for et-0/0/0 put it
    under tc3. The snippet deletes roce-dscp before writing it whole, so pasted after the config the classifier holds
    one entry for 26 (read without the `delete`, 26 sat in roce and tc3 and the old 001010 / 110000 entries stayed).
    The delete is written as the config defines roce-dscp (Profile.defined, a --device's)."""
    base = (RAW / "juniper_junos" / "roce-leaf.cfg").read_text()
    prof = _profile("juniper_junos")
    defined = _parse("juniper_junos", base).defined_classifiers
    assert defined is not None and defined.get("dscp roce-dscp") == ""
    snippet = rnd.render("juniper_junos", _only(replace(prof, ports=prof.ports[:1], defined=defined), {"maps", "pfc"}))
    assert "\ndelete class-of-service classifiers dscp roce-dscp\n" in snippet
    device = _parse("juniper_junos", base + "\n" + snippet)
    assert device.issues == []
    for name in ("et-0/0/0", "et-0/0/1"):  # the other port is bound to the same, rebuilt classifier
        port = device.ports[name]
        assert (port.tc_label(port.dscp_to_tc[26]), port.tc_label(port.dscp_to_tc[48])) == (
            "forwarding class tc3", "forwarding class tc6"), name
    new = device.ports["et-0/0/0"]
    assert new.dscp_chain(26).priority == 3 and new.pfc_enabled == [3]


def test_junos_snippet_names_the_devices_classes_and_their_queues():
    """With the device's forwarding classes (a --device or a fix), the snippet names them: roce-leaf.cfg's `roce`
    (no-loss, pfc-priority 3) and `cnp` (queue 6), restating neither's queue; a no-loss class on another queue (the
    JVD leaf's NO-LOSS, queue 4 for priority 3) is what the PFC profile's pauses stop. Pasted after the config, the
    snippet reads back lossless on the config's own classes, with nothing unread."""
    base = (RAW / "juniper_junos" / "roce-leaf.cfg").read_text()
    classes = _parse("juniper_junos", base).forwarding_classes
    assert sorted((c.name, c.queue, c.no_loss, c.pfc_priority) for c in classes) == [
        ("best-effort", 0, False, None), ("cnp", 6, False, None), ("roce", 3, True, 3)]
    prof = _profile("juniper_junos")
    own = rnd.profile(load_policy("roce-dscp26"), [rnd.parse_port_spec(s) for s in
                                                   render_golden.port_specs("juniper_junos")],
                      pool_bytes=render_golden.POOL_BYTES, classes=classes, **render_golden.options("juniper_junos"))
    snippet = rnd.render("juniper_junos", _only(replace(own, ports=own.ports[:1]), {"maps", "pfc"}))
    assert "forwarding-classes class" not in snippet and " tc3" not in snippet and " tc6" not in snippet
    assert "forwarding-class roce loss-priority low code-points [ 011010 ]" in snippet
    device = _parse("juniper_junos", base + "\n" + snippet)
    assert device.issues == []
    port = device.ports["et-0/0/0"]
    assert port.tc_label(port.dscp_to_tc[26]) == "forwarding class roce" and port.dscp_chain(26).priority == 3
    elsewhere = rnd.profile(load_policy("roce-dscp26"), [rnd.parse_port_spec(s) for s in
                                                         render_golden.port_specs("juniper_junos")],
                            pool_bytes=render_golden.POOL_BYTES, **render_golden.options("juniper_junos"),
                            classes=[ForwardingClass(name="NO-LOSS", queue=4, no_loss=True, pfc_priority=3)])
    snippet = rnd.render("juniper_junos", _only(elsewhere, {"pfc"}))
    assert "output ieee-802.1 code-point 011 flow-control-queue 4" in snippet.replace("roce-pfc-3 ", "")
    assert elsewhere.lossless_queues == [4] and prof.lossless_queues == [3]


def test_junos_later_priority_replaces_strict():
    """`priority` is one leaf: `low` after `strict-high` leaves the queue weighted."""
    text = (RAW / "juniper_junos" / "roce-leaf.cfg").read_text()
    text += "set class-of-service schedulers cnp-sched priority low\n"
    assert _parse("juniper_junos", text).ports["et-0/0/0"].queues[6].scheduler.type == SchedulerType.wrr


def test_junos_temporal_buffer_without_speed_stays_unconverted():
    text = (RAW / "juniper_junos" / "roce-leaf.cfg").read_text()
    text += "set class-of-service schedulers roce-sched buffer-size temporal 250\n"
    ports = _parse("juniper_junos", text).ports
    assert ports["et-0/0/0"].queues[3].ecn.min_threshold_bytes == round(time_to_bytes(0.25, 100) * 10 / 100)
    assert "unknown port speed" in ports["et-0/0/48"].queues[3].ecn.unconverted  # no `speed` line there


def test_nxos_no_lines_undo_queue_settings():
    text = (RAW / "cisco_nxos" / "roce-leaf.cfg").read_text()
    text += ("policy-map type queuing PM-QUEUING-ROCE\n  class type queuing c-out-8q-q3\n    no random-detect\n"
             "  class type queuing c-out-8q-q6\n    no priority\n    bandwidth remaining percent 10\n")
    port = _parse("cisco_nxos", text).ports["Ethernet1/1"]
    assert port.queues[3].ecn.ecn_enabled is False and port.queues[3].scheduler.weight == 60  # merged, not replaced
    assert port.queues[6].scheduler.type == SchedulerType.dwrr and port.queues[6].scheduler.weight == 10


@pytest.mark.parametrize("platform", ["cisco_nxos", "juniper_junos", "arista_eos"])
def test_a_render_over_an_older_one_leaves_no_stale_classification(platform):
    """Render sonic-azure (DSCP 3, 4 -> TC 3, 4), then roce-dscp26 (DSCP 26 -> TC 3) over it, merged as `fix` merges:
    every port classifies as the second policy says. NX-OS `match` lines add to a class-map and Junos `code-points`
    to a classifier, so re-entering ROCE_TC3 / roce-dscp kept DSCP 3 in TC 3 (and ROCE_TC4 kept DSCP 4)."""
    older = rnd.render(platform, _profile(platform, "sonic-azure"))
    newer = rnd.render(platform, _profile(platform, "roce-dscp26"))
    merged = apply.SHAPES[platform].apply(older, newer)
    device = {**PARSERS, "arista_eos": eos}[platform].parse([Input("sw.cfg", merged)], "sw")
    for port in device.ports.values():
        assert port.dscp_to_tc is not None, port.name
        # (Junos numbers a port's classes by forwarding class, not queue: compare with best effort's, DSCP 0's)
        best_effort = port.dscp_to_tc[0]
        assert [port.dscp_to_tc[d] == best_effort for d in (3, 4, 26)] == [True, True, False], (port.name, merged)


def test_nxos_match_lines_add_to_a_class_map():
    """What the switch does with a pasted `match`: it adds to the class-map (and `no match` takes one away); the
    merge `fix` lints replaced the old match instead, so a render that left stale matches linted clean."""
    current = "class-map type qos match-any C\n  match dscp 26\n"
    merged = apply.SHAPES["cisco_nxos"].apply(current, "class-map type qos match-any C\n  match dscp 24\n")
    assert merged == "class-map type qos match-any C\n  match dscp 26\n  match dscp 24\n"
    assert apply.SHAPES["cisco_nxos"].apply(merged, "class-map type qos match-any C\n  no match dscp 26\n") == (
        "class-map type qos match-any C\n  match dscp 24\n")


def test_junos_class_of_its_own_never_takes_a_config_class_name():
    """A class the snippet makes (nothing of the config's on its queue) is tcN, or roce-tcN where the config already
    has a tcN on another queue: a `queue-num` line for that name would move the config's class."""
    prof = replace(_profile("juniper_junos"), classes=(ForwardingClass(name="tc6", queue=2),
                                                       ForwardingClass(name="roce", queue=3, no_loss=True,
                                                                       pfc_priority=3)))
    assert [(prof.class_use(tc).name, prof.class_use(tc).new) for tc in (0, 3, 6)] == [
        ("best-effort", True), ("roce", False), ("roce-tc6", True)]
    snippet = rnd.render("juniper_junos", _only(prof, {"maps"}))
    assert "class roce-tc6 queue-num 6" in snippet and "class tc6 " not in snippet


def _nxos_with(classes, platform_variant: str = "n9k", policy: str = "roce-dscp26") -> rnd.Profile:
    ports = [rnd.parse_port_spec(spec) for spec in render_golden.port_specs("cisco_nxos", platform_variant)]
    return rnd.profile(load_policy(policy), ports, pool_bytes=render_golden.POOL_BYTES, classes=classes,
                       **render_golden.options("cisco_nxos", platform_variant))


def test_nxos_snippet_uses_the_configs_no_drop_group():
    """A --device config whose no-drop class is c-8q-nq4 with `pause pfc-cos 3` (qos-group 4: the Nexus 9000 QoS
    guide's system-defined network-qos classes) gets a snippet that classifies DSCP 26 into qos-group 4 and keeps every
    other part on that group: the network-qos class pausing CoS 3, ECN and the lossless share on queue 4, the long
    cable's pause buffer on c-in-q4. Read back, DSCP 26 is lossless on priority 3 through queue 4."""
    base = (RAW / "cisco_nxos" / "roce-leaf.cfg").read_text().replace("c-8q-nq3", "c-8q-nq4")
    classes = _parse("cisco_nxos", base).forwarding_classes
    assert [(c.name, c.queue, c.no_loss, c.pfc_priority) for c in classes] == [("c-8q-nq4", 4, True, 3)]
    prof = _nxos_with(classes)
    assert (prof.queue_of(3), prof.queue_of(6), prof.lossless_queues) == (4, 6, [4])
    out = rnd.render("cisco_nxos", prof)
    assert "    set qos-group 4\n" in out and "set qos-group 3" not in out
    assert "policy-map type network-qos ROCE_PFC_3g4\n  class type network-qos c-8q-nq4\n    pause pfc-cos 3\n" in out
    assert "class type queuing c-in-q4\n    pause buffer-size" in out and "c-in-q3" not in out
    device = _parse("cisco_nxos", out)
    assert device.issues == []
    for port in device.ports.values():
        hop = port.dscp_chain(26)
        assert (port.dscp_to_tc[26], hop.priority, port.pfc_priority_to_queue) == (4, 3, {3: [4]}), port.name
        assert port.queues[4].ecn.ecn_enabled and not port.queues[3].ecn.ecn_enabled
        assert port.queues[4].scheduler.weight == 50 and port.queues[3].scheduler.weight == 0
    assert device.ports["Ethernet1/2"].priority_groups[3].profile  # the long cable's pause buffer, read on group 4
    # Without the config's classes: the snippet of the priority's own number, named as ever.
    plain = rnd.render("cisco_nxos", _nxos_with(None))
    assert "    set qos-group 3\n" in plain and "ROCE_PFC_3\n" in plain and "c-8q-nq4" not in plain


def test_nxos_n3k_snippet_names_the_no_drop_group():
    """Nexus 3000: the user network-qos and queuing classes match the config's no-drop group (4), named by it."""
    prof = _nxos_with([ForwardingClass(name="NQ-ROCE", queue=4, no_loss=True, pfc_priority=3)], "n3k", "pfc-only")
    out = rnd.render("cisco_nxos", _only(prof, {"maps", "pfc", "scheduler"}))
    assert "class-map type network-qos ROCE_NQ4\n  match qos-group 4\n" in out
    assert "class-map type queuing ROCE_Q4\n  match qos-group 4\n" in out and "ROCE_Q3" not in out
    assert "    set qos-group 4\n" in out and "ROCE_NQ3" not in out


def test_nxos_no_drop_group_another_class_uses_is_not_taken():
    """A no-drop class for CoS 3 on qos-group 6, which the policy's strict CNPs use, is not where the snippet puts
    RoCE (lossless and strict CNP traffic on one queue): the priority keeps qos-group 3, as without the classes."""
    prof = _nxos_with([ForwardingClass(name="c-8q-nq6", queue=6, no_loss=True, pfc_priority=3)])
    assert (prof.queue_of(3), prof.lossless_queues) == (3, [3])
    assert "    set qos-group 3\n" in rnd.render("cisco_nxos", _only(prof, {"maps"}))
