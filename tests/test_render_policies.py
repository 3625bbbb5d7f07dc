"""Generated policies through render and lint: the shipped policies (render_golden.POLICIES) all make priority 3 or
3 and 4 lossless with DSCP 26 or 3 and 4, so a template that writes a vendor default where the policy's value belongs
rendered them right. Here hypothesis builds policies the schema accepts (docs/policy.md): other lossless priority
sets, several DSCPs per priority, the CNP elsewhere, PCP or DSCP trust, ECN thresholds and watchdog timers across
their ranges, PFC-only. Each is rendered for every Ethernet platform and command family: every line must be an
accepted form (tests/test_render_accepted.py), and the snippet, read back by the platform's parser, must lint with
nothing above info under the same policy; or render refuses it with one of the reasons below. The shipped examples
lint under each without a crash. Below the property tests, one explicit test per bug class they found."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import fix, headroom, skutables
from losslessd import render as rnd
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.fix import apply
from losslessd.lint.finding import Severity
from losslessd.parse import parse_group
from losslessd.platforms import PLATFORMS
from losslessd.policy import Policy
from tests import render_golden
from tests.clirun import losslessd
from tests.part_sections import outside
from tests.test_fix import PASTED, SPEED_LINE, _problems
from tests.test_render_accepted import unlisted_lines, unlisted_sonic

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [ROOT / "examples" / name for name in ("clos", "fabric", "infiniband")]
# (platform, variant) pairs a snippet is read back for (render_golden.NO_ROUND_TRIP: not the Nexus 3000's).
TARGETS = [(platform, variant) for platform in render_golden.ethernet_platforms()
           for variant, _ in render_golden.variants(platform) if (platform, variant) not in render_golden.NO_ROUND_TRIP]
# What render may refuse a valid policy for, each a limit of the platform or of the stock config it patches.
REFUSALS = (
    "PFC watchdog:",  # timers or actions the platform cannot set inside the policy's ranges (render._fit_limits)
    "SONiC's stock buffers",  # a lossless queue outside the stock 3-4 without --device or a SKU's egress profile
    "enables PFC by DSCP",  # Junos: a lossless priority no DSCP reaches
    "sort CNPs by the priority",  # PCP trust and a CNP without cnp.priority
    "cannot be strict",  # EOS: a strict CNP queue below a round-robin lossless one
    "whole-percent fill levels",  # Junos: Kmin as a whole percent of the queue buffer outside the policy's range
    "before PFC",  # ECN004: the thresholds would mark after PFC
    "no ECN thresholds fit the policy",  # kmin_min_mtus x MTU above the Kmin range
    "Mb/s row",  # the SKU's own table has no row for the port
    "takes them equal is in no document",  # NVUE: Kmin = Kmax (a policy whose two ranges meet at one value)
    # fix on a device: Junos keeps no lossy class beside a lossless one on a queue, and which to move is the operator's
    "Junos takes no lossy class beside a lossless one",
    # fix on a device: NX-OS states no cable length, and a port's explicit pause buffer (ECN004's buffer section) is
    # sized by it; the stock config patched has one such port (Ethernet1/2, 400G over 300 m): that section is refused
    # on that port (Part.refused), the device's other parts printed
    "cable length unknown, so its PFC headroom cannot be sized",
)
PORTS = ("100G:5m:9100", "400G:300m:9100", "25G:3m:1500", "200G:40m:4200")


@st.composite
def policies(draw) -> Policy:
    """A policy the schema accepts, lossless over priorities 1-7 (render refuses 0: test_priority_0_is_refused)."""
    prios = draw(st.lists(st.integers(1, 7), min_size=1, max_size=3, unique=True))
    dscps = draw(st.lists(st.integers(0, 63), min_size=1, max_size=5, unique=True))
    trust = draw(st.sampled_from(["dscp", "pcp"]))
    data: dict = {"name": "generated", "lossless": {"priorities": prios, "dscp": dscps, "trust": trust},
                  "nic": {"trust": draw(st.sampled_from(["dscp", "pcp"]))}}
    free = [p for p in range(1, 8) if p not in prios]
    if free and draw(st.booleans()):
        data["lossless"]["tolerated_priorities"] = draw(st.lists(st.sampled_from(free), max_size=2, unique=True))
    if draw(st.integers(0, 9)) < 7:
        cnp: dict = {"dscp": draw(st.integers(0, 63).filter(lambda d: d not in dscps)),
                     "strict": draw(st.integers(0, 4)) > 0}
        if free:  # (none: a PCP policy's CNPs have no class, refused)
            cnp["priority"] = draw(st.sampled_from([*free, None] if trust == "dscp" else free))
        data["cnp"] = cnp
    if draw(st.integers(0, 9)) < 7:  # ECN: Kmin, Kmax and Pmax ranges, reference speed, which threshold leads
        low = draw(st.sampled_from([9216, 50000, 150 * 1024, 400000]))
        pmin = draw(st.sampled_from([1, 5, 50, 100]))
        data["ecn"] = {"min_threshold_bytes": {"min": low, "max": low * draw(st.sampled_from([1, 4, 30]))},
                       "max_threshold_bytes": {"min": low, "max": 16777216},
                       "mark_probability_pct": {"min": pmin, "max": draw(st.sampled_from([pmin, 100]))},
                       "speed_reference_gbps": draw(st.sampled_from([None, 25, 100, 400])),
                       "before_pfc": draw(st.sampled_from(["kmin", "kmax"])),
                       "kmin_min_mtus": draw(st.sampled_from([0, 1, 2])),
                       "assume_congested_queues": draw(st.sampled_from([None, 1, 4]))}
    else:  # PFC-only (policies/pfc-only.yaml)
        data["ecn"] = {"required": False}
        data["nic"].update({"ecn_np": False, "ecn_rp": False})
    detection = draw(st.sampled_from([100, 150, 200, 400, 1000]))
    restoration = draw(st.sampled_from([100, 200, 1000]))
    data["watchdog"] = {"detection_time_ms": {"min": detection, "max": detection * draw(st.sampled_from([1, 2, 5]))},
                        "restoration_time_ms": {"min": restoration, "max": restoration * draw(st.sampled_from([1, 5]))},
                        "actions": draw(st.sampled_from([None, ["drop"], ["forward"], ["drop", "forward", "errdisable"],
                                                         ["notify-only", "drop"], ["errdisable"]]))}
    if draw(st.booleans()):
        data["scheduler"] = {"min_lossless_weight_pct": draw(st.sampled_from([1, 10]))}
    if draw(st.booleans()):
        data["buffer"] = {"headroom_formula": draw(st.sampled_from(["sonic", "mlx5"]))}
    return Policy.model_validate(data)


def _render(pol: Policy, platform: str, variant: str | None, specs: tuple[str, ...]) -> tuple[str, str | None]:
    prof = profile_of(pol, platform, variant, specs)
    return rnd.render(platform, prof), rnd.families.resolve(platform, prof.model, prof.family)


def profile_of(pol: Policy, platform: str, variant: str | None, specs: tuple[str, ...]) -> rnd.Profile:
    """The whole profile of ``specs`` (PORTS) on the platform's ``variant``, as `render` makes it."""
    names = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)
    top = (PLATFORMS[platform].limits.mtu_bytes or (0, 9216))[1]  # the platform's largest MTU (EOS 9214)
    facts = [rnd.parse_port_spec(f"{name}:{spec}") for name, spec in zip(names[:len(specs)], specs, strict=True)]
    facts = [replace(f, mtu_bytes=min(f.mtu_bytes or 9100, top)) for f in facts]
    pool = None if variant in render_golden.SKU_POOL else render_golden.POOL_BYTES
    opts = render_golden.options(platform, variant)
    # (as `render --sku` does: the SKU's stock egress profile, for lossless queues outside the stock 3-4)
    egress = rnd.sku_egress(skutables.lookup(opts["hwsku"])) if "hwsku" in opts else None
    return rnd.profile(pol, facts, pool_bytes=pool, egress=egress, **opts)


def _above_info(tmp: Path, platform: str, pol: Policy, text: str) -> list[str]:
    path = tmp / f"rendered.{render_golden.EXTENSIONS[platform]}"
    path.write_text(text)
    return [f"{f.code} {f.message}" for f in lint([path], pol, fmt=platform).findings if f.severity != Severity.info]


@pytest.mark.parametrize(("platform", "variant"), TARGETS)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pol=policies(), specs=st.lists(st.sampled_from(PORTS), min_size=1, max_size=2).map(tuple))
def test_generated_policy_renders_accepted_lines_that_lint_clean(tmp_path_factory, platform, variant, pol, specs):
    try:
        text, family = _render(pol, platform, variant, specs)
    except InputError as exc:
        assert any(reason in str(exc) for reason in REFUSALS), str(exc)
        return
    bad = unlisted_sonic(text) if platform == "sonic" else unlisted_lines(platform, family, text)
    assert bad == [], f"{platform} {variant}: not in the accepted forms: {bad[:5]}"
    assert _above_info(tmp_path_factory.mktemp("render"), platform, pol, text) == []


def _device(tmp: Path, platform: str, variant: str | None) -> Path:
    """The platform's rendered roce-dscp26 fixture as a device's config: with the SKU its DEVICE_METADATA names
    (SONiC) and each port's `speed` line (EOS: the template leaves speed alone), as tests/test_fix.py does."""
    golden = render_golden.golden_path(platform, "roce-dscp26", variant)
    text = golden.read_text()
    if platform == "sonic":
        db = json.loads(text)
        db["DEVICE_METADATA"] = {"localhost": {"hwsku": render_golden.options(platform, variant)["hwsku"]}}
        text = json.dumps(db, indent=2) + "\n"
    if platform in SPEED_LINE:
        for spec in render_golden.port_specs(platform, variant):
            port = rnd.parse_port_spec(spec)
            text = text.replace(f"interface {port.name}\n",
                                f"interface {port.name}\n{SPEED_LINE[platform].format(port.speed_gbps)}\n")
    path = tmp / "device" / golden.name
    path.parent.mkdir()
    path.write_text(text)
    return path


# Fix bugs this test found and left open (session 37 report; `--runxfail` shows the failing policy): each fails.
FIX_OPEN: dict[tuple[str, str], str] = {}


@pytest.mark.slow
@pytest.mark.parametrize(("platform", "variant"), [
    pytest.param(*t, marks=[pytest.mark.xfail(strict=True, reason=FIX_OPEN[t])] if t in FIX_OPEN else [])
    for t in TARGETS])
@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pol=policies())
def test_fix_under_a_generated_policy_clears_what_it_fixes(tmp_path_factory, platform, variant, pol):
    """A device configured for roce-dscp26, linted under another valid policy: `fix --unsafe-fixes` either refuses
    for a listed limit of the platform or prints snippets that, applied as the device takes them (and pasted after
    the config where it takes pasting), leave none of the fixed findings and no new problem above info."""
    tmp = tmp_path_factory.mktemp("fix")
    path = _device(tmp, platform, variant)
    before = lint([path], pol, fmt=platform)
    result = fix.plan(before, unsafe=True, model=render_golden.options(platform, variant).get("model"))
    assert not before.internal_errors, before.internal_errors
    for dev in result.devices:
        if dev.message is not None:
            assert any(reason in dev.message for reason in REFUSALS), dev.message
            continue
        # (a problem the fix brings is listed, as introduced, by a part refused for a fact the device lacks)
        excused = {f.fingerprint for p in dev.parts if p.refused is not None for f in p.findings}
        introduced = [f for f in dev.introduced if f.fingerprint not in excused]
        assert dev.verified and not dev.unresolved and not introduced, (
            [f"{f.code} {f.message}" for f in dev.unresolved], [f"{f.code} {f.message}" for f in introduced])
        # A safe part writes only statements of its own sections, none of a disruptive one (tests/part_sections.py).
        pfc_now = {p.name: set(p.pfc_enabled or ()) for p in before.fabric.devices[dev.device].ports.values()}
        for part in dev.parts:
            if part.printed and part.label == "safe":
                assert outside(platform, part.snippet, part.sections, True, pfc_now) == [], part.sections
        for part in dev.parts:  # (a section refused for a fact the device lacks: its other parts are printed)
            assert part.refused is None or any(reason in part.refused for reason in REFUSALS), part.refused
        fixed = {f.fingerprint for p in dev.parts if p.refused is None for f in p.findings}
        printed = [p.snippet for p in dev.parts if p.snippet is not None]
        current = path.read_text()
        applied = {"apply": current}
        for snippet in printed:
            applied["apply"] = apply.SHAPES[platform].apply(applied["apply"], snippet)
        if platform in PASTED:
            applied["pasted"] = current.rstrip("\n") + "\n" + "".join(printed)
        known = _problems(before.findings)
        for how, text in applied.items():
            again = tmp / how / path.name  # the same device name: its other findings keep their fingerprints
            again.parent.mkdir()
            again.write_text(text)
            after = _problems(lint([again], pol, fmt=platform).findings)
            assert not fixed & set(after), f"{how}: still there: {[after[k] for k in fixed & set(after)]}"
            added = {k: m for k, m in after.items() if k not in set(known) | excused}
            assert added == {}, f"{how}: the fix adds problems"


@settings(max_examples=12, deadline=None, derandomize=True)
@given(pol=policies())
def test_examples_lint_under_generated_policies(pol):
    """The shipped examples under any valid policy: findings or none, never an exception (exit 3)."""
    for example in EXAMPLES:
        lint([example], pol, jobs=1)


@pytest.mark.slow
def test_cli_lints_the_examples_under_a_generated_policy_file(tmp_path):
    path = tmp_path / "gen.yaml"
    path.write_text(json.dumps({"name": "gen", "lossless": {"priorities": [2, 5], "dscp": [10, 40, 41], "trust": "pcp"},
                                "cnp": {"dscp": 46, "priority": 7}, "watchdog": {"actions": ["forward"]}}))
    for example in EXAMPLES:
        assert losslessd("lint", str(example), "--policy", str(path)).returncode in (0, 1)


# Regression tests, one per class of bug the generated policies found.

def _policy(**data) -> Policy:
    return Policy.model_validate({"name": "generated", **data})


def test_watchdog_action_is_written_in_the_platform_word_or_refused(tmp_path):
    """EOS wrote `action forward` (no EOS word; the reader skipped it and WDG002 found the default errdisable): EOS
    says no-drop for forward (AVD priority_flow_control.watchdog.action). NX-OS and NVUE drop, and no command
    chooses another action: a policy that accepts only forward is refused, not rendered to fail WDG002."""
    pol = _policy(watchdog={"actions": ["forward"]})
    text, _ = _render(pol, "arista_eos", "trident-tomahawk", ("100G:5m:9100",))
    assert "priority-flow-control pause watchdog action no-drop" in text.splitlines()
    assert _above_info(tmp_path, "arista_eos", pol, text) == []
    sonic = json.loads(_render(_policy(watchdog={"actions": ["notify-only"]}), "sonic", "spectrum3",
                               ("100G:5m:9100",))[0])
    assert sonic["PFC_WD"]["Ethernet0"]["action"] == "alert"  # sonic-utilities pfcwd: drop|forward|alert
    for platform, variant in (("cisco_nxos", "n9k"), ("nvidia_cumulus", None)):
        with pytest.raises(InputError, match=r"watchdog.actions \(forward\) are none that .* can set \(drop\)"):
            _render(pol, platform, variant, ("100G:5m:9100",))


def test_junos_watchdog_forwards_in_its_documented_word(tmp_path):
    """Junos takes `watchdog-action drop` or `forward` (Junos AI-ML data center guide, "PFC Watchdog"): the parser
    read both, the accepted forms listed drop|alarm and render refused a forward-only policy on Junos."""
    pol = _policy(watchdog={"actions": ["forward"]})
    for variant in ("qfx10000-ptx", "qfx5000"):
        text, family = _render(pol, "juniper_junos", variant, ("100G:5m:9100",))
        assert [line for line in text.splitlines() if line.endswith("pfc-watchdog watchdog-action forward")]
        assert unlisted_lines("juniper_junos", family, text) == []
        assert _above_info(tmp_path, "juniper_junos", pol, text) == []
    assert "watchdog-action alarm" in "\n".join(unlisted_lines(
        "juniper_junos", family, "set class-of-service congestion-notification-profile p pfc-watchdog "
        "watchdog-action alarm\n"))


def test_eos_errdisable_is_its_default_action_put_back(tmp_path):
    """EOS's watchdog error-disables the port where no action is configured (AVD: action default errdisable; the
    global `action` takes drop|no-drop): a policy accepting only errdisable was refused, and the global `no` line that
    takes a configured action away was passed over by the reader (the drop before it stayed)."""
    pol = _policy(watchdog={"actions": ["errdisable"]})
    text, family = _render(pol, "arista_eos", "trident-tomahawk", ("100G:5m:9100",))
    assert "no priority-flow-control pause watchdog action" in text.splitlines()
    assert unlisted_lines("arista_eos", family, text) == []
    assert _above_info(tmp_path, "arista_eos", pol, text) == []
    pasted = "priority-flow-control pause watchdog action drop\n" + text  # a device's drop, then the snippet
    assert _above_info(tmp_path, "arista_eos", pol, pasted) == []


def test_nvue_restoration_is_its_polling_interval(tmp_path):
    """NVUE writes no restoration time: a stormed queue is restored at the next poll (the NVUE reader takes the
    restoration as the poll). The poll was detection / 2, 100 ms, outside a policy's restoration 1000-5000 ms."""
    pol = _policy(watchdog={"detection_time_ms": {"min": 2000, "max": 4000},
                            "restoration_time_ms": {"min": 1000, "max": 5000}})
    text, _ = _render(pol, "nvidia_cumulus", None, ("100G:5m:9100",))
    assert "nv set qos pfc-watchdog polling-interval 1000" in text.splitlines()
    assert _above_info(tmp_path, "nvidia_cumulus", pol, text) == []
    unbounded = _policy(watchdog={"detection_time_ms": {"min": 2000}, "restoration_time_ms": {"min": 1500}})
    text, _ = _render(unbounded, "nvidia_cumulus", None, ("100G:5m:9100",))
    assert "nv set qos pfc-watchdog polling-interval 1500" in text.splitlines()
    assert _above_info(tmp_path, "nvidia_cumulus", unbounded, text) == []
    short = _policy(watchdog={"detection_time_ms": {"min": 100, "max": 200},
                              "restoration_time_ms": {"min": 1000, "max": 5000}})
    with pytest.raises(InputError, match="nvidia_cumulus PFC watchdog"):
        _render(short, "nvidia_cumulus", None, ("100G:5m:9100",))


def test_watchdog_poll_is_no_longer_than_the_restoration(tmp_path):
    """EOS polled at detection / 2 = 500 ms with a restoration of 200 ms (WDG002: a poll longer than the
    restoration time)."""
    pol = _policy(watchdog={"detection_time_ms": {"min": 1000, "max": 1000},
                            "restoration_time_ms": {"min": 200, "max": 1000}})
    text, _ = _render(pol, "arista_eos", "trident-tomahawk", ("100G:5m:9100",))
    assert "priority-flow-control pause watchdog default polling-interval 0.2" in text.splitlines()
    assert _above_info(tmp_path, "arista_eos", pol, text) == []


def test_each_lossless_priority_gets_a_dscp_where_the_policy_names_enough(tmp_path):
    """Every DSCP not numbered as a lossless priority went to the lowest one: with priorities 1 and 3 and DSCPs
    20 and 32, priority 3 carried nothing, and Junos, which enables PFC per DSCP, left it without PFC (PFC001)."""
    pol = _policy(lossless={"priorities": [1, 3], "dscp": [20, 32]})
    prof = rnd.profile(pol, [rnd.parse_port_spec("et-0/0/0:100G:5m:9100")], pool_bytes=render_golden.POOL_BYTES)
    assert (prof.dscp_to_tc[20], prof.dscp_to_tc[32]) == (1, 3)
    text, _ = _render(pol, "juniper_junos", "qfx10000-ptx", ("100G:5m:9100",))
    assert _above_info(tmp_path, "juniper_junos", pol, text) == []
    few = _policy(lossless={"priorities": [3, 5, 7], "dscp": [1]})
    with pytest.raises(InputError, match="no DSCP of the policy's lossless.dscp reaches lossless priority 5,7"):
        _render(few, "juniper_junos", "qfx10000-ptx", ("100G:5m:9100",))


def test_a_cnp_without_priority_is_sch001_clean_and_avoids_lossless_classes(tmp_path):
    """A CNP without cnp.priority went to class 6, strict, and SCH001 allowed no strict queue without cnp.priority
    (a warning on the snippet render wrote); class 6 lossless refused the policy. SCH001 now takes the queue cnp.dscp
    reaches; render takes the highest free class where 6 is lossless; under PCP trust it asks for cnp.priority."""
    pol = _policy(lossless={"priorities": [5], "dscp": [1, 25]}, cnp={"dscp": 62})
    for platform, variant in (("arista_eos", "trident-tomahawk"), ("cisco_nxos", "n9k"), ("nvidia_cumulus", None)):
        text, _ = _render(pol, platform, variant, ("100G:5m:9100",))
        assert _above_info(tmp_path, platform, pol, text) == [], platform
    six = _policy(lossless={"priorities": [3, 6], "dscp": [26, 6]}, cnp={"dscp": 48})
    assert rnd.profile(six, [rnd.parse_port_spec("Ethernet0:100G:5m")]).cnp_priority == 7
    with pytest.raises(InputError, match="give cnp.priority"):
        _render(_policy(lossless={"priorities": [3], "trust": "pcp"}, cnp={"dscp": 48}), "arista_eos", "sand",
                ("100G:5m:9100",))


def test_eos_refuses_a_strict_cnp_queue_below_a_round_robin_lossless_one():
    """EOS makes every tx-queue up to the highest `no priority` one round robin: CNPs on priority 3 below lossless
    priority 7 were written `priority strict` and read back WRR (MAP002)."""
    pol = _policy(lossless={"priorities": [7], "dscp": [26]}, cnp={"dscp": 48, "priority": 3})
    with pytest.raises(InputError, match="strict CNP queue 3 below it cannot be strict"):
        _render(pol, "arista_eos", "trident-tomahawk", ("100G:5m:9100",))


def test_junos_kmin_fill_level_rounds_into_the_policys_range(tmp_path):
    """Kmin as a whole percent of the temporal buffer was always rounded up: at 400G, Kmin 276,480 B (the policy's
    maximum) became 3 % of 251 us = 376,500 B (ECN003 out of range); 2 % (251,000 B) is inside."""
    pol = _policy(ecn={"min_threshold_bytes": {"min": 9216, "max": 276480}, "speed_reference_gbps": 100})
    text, _ = _render(pol, "juniper_junos", "qfx10000-ptx", ("400G:5m:9100",))
    assert _above_info(tmp_path, "juniper_junos", pol, text) == []
    point = _policy(ecn={"min_threshold_bytes": {"min": 9216, "max": 9216}, "speed_reference_gbps": 100})
    with pytest.raises(InputError, match="whole-percent fill levels"):
        _render(point, "juniper_junos", "qfx10000-ptx", ("100G:5m:9100",))


def test_junos_read_back_of_a_two_priority_snippet_pauses_both(tmp_path):
    pol = _policy(lossless={"priorities": [2, 5], "dscp": [10, 40]}, cnp={"dscp": 46, "priority": 7})
    text, _ = _render(pol, "juniper_junos", "qfx10000-ptx", ("100G:5m:9100",))
    path = tmp_path / "r.set"
    path.write_text(text)
    port = parse_group("r", [path], "juniper_junos").ports["et-0/0/0"]
    assert sorted(port.pfc_enabled) == [2, 5]


def test_sonic_stock_queue_range_lossless_as_a_whole_is_named_once():
    """Lossless queues 5 and 6 fill the stock range 5-6: the patch deleted `<port>|5-6` (null) and wrote it again
    in one JSON object, a key twice (SYS002: sonic-cfggen keeps the last)."""
    pol = _policy(lossless={"priorities": [1, 5, 6], "dscp": [1, 5, 6]}, ecn={"required": False})
    text = _render(pol, "sonic", "broadcom", ("100G:5m:9100",))[0]
    assert text.count('"Ethernet0|5-6"') == 1
    queues = json.loads(text)["BUFFER_QUEUE"]
    assert queues["Ethernet0|5-6"] == {"profile": "egress_lossless_profile"}
    assert queues["Ethernet0|0-2"] is None and queues["Ethernet0|1"] == {"profile": "egress_lossless_profile"}


def test_kmin_floor_above_the_kmin_range_is_refused():
    """ecn.kmin_min_mtus 2 at MTU 9100 asks Kmin >= 18,200 B, and ecn.min_threshold_bytes max 9,216 B: the range's
    maximum won, and the snippet failed ECN002 on its own policy."""
    pol = _policy(ecn={"min_threshold_bytes": {"min": 9216, "max": 9216}, "kmin_min_mtus": 2})
    with pytest.raises(InputError, match=r"Kmin at least ecn.kmin_min_mtus 2 x MTU = 18200 B \(ECN002\)"):
        _render(pol, "arista_eos", "sand", ("100G:5m:9100",))


def test_sonic_pg_xoff_holds_the_policys_headroom_formula(tmp_path):
    """buffer.headroom_formula mlx5: BUF002 wants the ConnectX driver's xoff (headroom.mlx5_xoff_bytes: 88,824 B for
    200G, 40 m, MTU 4200), and render wrote buffer_headroom_mellanox.lua's 58,368 B."""
    pol = _policy(buffer={"headroom_formula": "mlx5"}, ecn={"required": False})
    text, _ = _render(pol, "sonic", "spectrum3", ("200G:40m:4200",))
    (profile,) = json.loads(text)["BUFFER_PROFILE"].values()
    assert int(profile["xoff"]) >= headroom.mlx5_xoff_bytes(200, 40, 4200)
    assert _above_info(tmp_path, "sonic", pol, text) == []


def test_spectrum_sku_stock_egress_profiles_carry_lossless_queues_outside_3_4(tmp_path):
    """ACS-MSN4700 writes its egress profiles through buffers_defaults_objects.j2 macros (sonic-buildimage 086b03bd,
    device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/buffers_defaults_objects.j2, pool sizes from ACS-MSN4700's
    buffers_defaults_t1.j2), which the SKU table did not read: every policy lossless outside 3-4 was refused on
    Spectrum-3. Its lossy queues sit on q_lossy_profile (egress_lossy_pool), not egress_lossy_profile."""
    sku = skutables.lookup("ACS-MSN4700")
    assert sku.egress["pools"]["egress_lossless_pool"]["size"] == "60817392"
    assert sku.egress["profiles"]["egress_lossless_profile"] == {"pool": "egress_lossless_pool", "size": "0",
                                                                 "dynamic_th": "7"}
    pol = _policy(lossless={"priorities": [2, 5], "dscp": [10, 40]}, ecn={"required": False})
    text, _ = _render(pol, "sonic", "spectrum3", ("100G:5m:9100",))
    queues = json.loads(text)["BUFFER_QUEUE"]
    assert queues["Ethernet0|2"] == queues["Ethernet0|5"] == {"profile": "egress_lossless_profile"}
    assert queues["Ethernet0|0-1"] == queues["Ethernet0|6"] == {"profile": "q_lossy_profile"}
    assert unlisted_sonic(text) == []
    assert _above_info(tmp_path, "sonic", pol, text) == []



def test_fix_renders_what_its_own_lines_need(tmp_path):
    """Junos's trust fix (MAP003, PCP) opens forwarding class tc1 on queue 1 for lossless priority 1, and PFC001's
    makes it no-loss; no section of theirs writes queue 1's ECN, so the fix itself brought ECN001 (reported as
    introduced). The sections an introduced finding needs are rendered for the same ports."""
    pol = _policy(lossless={"priorities": [1], "dscp": [0], "trust": "pcp"})
    path = _device(tmp_path, "juniper_junos", "qfx5000")
    before = lint([path], pol, fmt="juniper_junos")
    assert {"MAP003", "PFC001"} <= {f.code for f in before.findings}
    assert "ECN001" not in {f.code for f in before.findings}
    (dev,) = fix.plan(before, unsafe=True, model=render_golden.options("juniper_junos", "qfx5000").get("model")).devices
    assert dev.message is None and dev.verified and not dev.unresolved
    assert [f.code for f in dev.introduced] == []
    assert any("ecn" in p.sections for p in dev.parts)


def test_fix_verification_reports_what_a_re_lint_of_the_applied_fix_shows(tmp_path):
    """EOS sand, lossless priority 2 by PCP: before the fix SCH001 on queues 4-7 (strict by EOS's default above the
    last `no priority` queue) was an unverified info (PFC off for priority 2, trust DSCP); the applied fix makes it
    a warning with the same fingerprint, and `_verify` counted it known: "verified" while a plain re-lint showed a
    new problem. Every problem a re-lint of the applied snippets shows that the config did not have is introduced."""
    pol = _policy(lossless={"priorities": [2], "dscp": [1], "trust": "pcp"},
                  cnp={"dscp": 0, "priority": 1, "strict": False},
                  ecn={"required": False}, nic={"ecn_np": False, "ecn_rp": False},
                  watchdog={"detection_time_ms": {"min": 100, "max": 100},
                            "restoration_time_ms": {"min": 100, "max": 100}})
    path = _device(tmp_path, "arista_eos", "sand")
    before = lint([path], pol, fmt="arista_eos")
    (dev,) = fix.plan(before, unsafe=True).devices
    assert dev.message is None and dev.verified
    text = path.read_text()
    for part in dev.parts:
        if part.snippet is not None:
            text = apply.SHAPES["arista_eos"].apply(text, part.snippet)
    again = tmp_path / "applied" / path.name
    again.parent.mkdir()
    again.write_text(text)
    new = set(_problems(lint([again], pol, fmt="arista_eos").findings)) - set(_problems(before.findings))
    assert new <= {f.fingerprint for f in dev.introduced}


def test_nvue_fix_makes_the_old_strict_cnp_queue_dwrr(tmp_path):
    """NVUE, lossless priority 1 and a non-strict CNP on priority 2: the device's old CNP queue 6 (`mode strict`)
    stayed strict above the newly lossless queue 1, so the applied fix added SCH001. The scheduler section of a fix
    puts a queue strict at the device that the policy does not make strict back to `mode dwrr`."""
    pol = _policy(lossless={"priorities": [1], "dscp": [0], "trust": "pcp"},
                  cnp={"dscp": 1, "priority": 2, "strict": False}, ecn={"required": False},
                  nic={"ecn_np": False, "ecn_rp": False})
    path = _device(tmp_path, "nvidia_cumulus", None)
    (dev,) = fix.plan(lint([path], pol, fmt="nvidia_cumulus"), unsafe=True).devices
    assert dev.message is None and dev.verified and not dev.unresolved
    assert [f.code for f in dev.introduced] == []
    printed = "".join(p.snippet for p in dev.parts if p.snippet is not None)
    assert "nv set qos egress-scheduler default-global traffic-class 6 mode dwrr" in printed.splitlines()
    again = tmp_path / "pasted" / path.name
    again.parent.mkdir()
    again.write_text(path.read_text() + printed)
    assert "SCH001" not in {f.code for f in lint([again], pol, fmt="nvidia_cumulus").findings
                            if f.severity != Severity.info}
    # A strict CNP (its queue 2 needs the scheduler section) and scheduler.strict_allowed 2 and 6: 6 stays strict.
    allowed = _policy(lossless={"priorities": [1], "dscp": [0], "trust": "pcp"}, cnp={"dscp": 1, "priority": 2},
                      ecn={"required": False}, nic={"ecn_np": False, "ecn_rp": False},
                      scheduler={"strict_allowed": [2, 6]})
    (dev,) = fix.plan(lint([path], allowed, fmt="nvidia_cumulus"), unsafe=True).devices
    assert dev.message is None and not dev.introduced
    printed = "".join(p.snippet for p in dev.parts if p.snippet is not None).splitlines()
    assert "nv set qos egress-scheduler default-global traffic-class 2 mode strict" in printed
    assert not [line for line in printed if "mode dwrr" in line]


def test_eos_fix_remaps_the_cnp_class_and_makes_its_queue_strict(tmp_path):
    """EOS, lossless priority 1, CNP DSCP 1 strict on priority 2: MAP002 (the CNPs on TC 0, WRR) named the scheduler
    section alone, so the fix never mapped DSCP 1 to TC 2, and the service-profile's `no priority` on the old lossless
    queue 3 kept queue 2 round-robin. The finding names the maps too (a remap: disruptive), and the fix makes the old
    `no priority` queue above the CNP queue strict again."""
    pol = _policy(lossless={"priorities": [1], "dscp": [0], "trust": "dscp"}, cnp={"dscp": 1, "priority": 2},
                  watchdog={"detection_time_ms": {"min": 100, "max": 100},
                            "restoration_time_ms": {"min": 100, "max": 100}})
    path = _device(tmp_path, "arista_eos", "trident-tomahawk")
    before = lint([path], pol, fmt="arista_eos")
    (cnp,) = {frozenset(f.data["section"]) for f in before.findings if f.code == "MAP002"}
    assert cnp == {"maps", "scheduler"}
    (dev,) = fix.plan(before, unsafe=True).devices
    assert dev.message is None and dev.verified
    assert ([f.code for f in dev.unresolved], [f.code for f in dev.introduced]) == ([], [])
    (part,) = [p for p in dev.parts if any(f.code == "MAP002" for f in p.findings)]
    assert part.label == "disruptive" and "qos map dscp 1 to traffic-class 2" in part.snippet.splitlines()
    assert "   uc-tx-queue 3\n      priority strict\n" in part.snippet
    assert not fix.plan(before).devices[0].parts[-1].printed  # (withheld without --unsafe-fixes)


def test_mlx5_fix_writes_the_cnp_marking_without_ecn_required(tmp_path):
    """A PFC-only policy (ecn.required false) with a `cnp`: MAP002 checks the NIC's cnp_dscp and cnp_802p_prio either
    way, but the host script wrote them only beside the DCQCN enable lines, so its fix left MAP002 unresolved."""
    pol = _policy(lossless={"priorities": [1], "dscp": [0]}, cnp={"dscp": 1, "priority": 2, "strict": False},
                  ecn={"required": False}, nic={"ecn_np": False, "ecn_rp": False})
    path = _device(tmp_path, "linux_mlx5", None)
    before = lint([path], pol, fmt="linux_mlx5")
    assert "MAP002" in {f.code for f in before.findings if not f.unverified}
    devices = fix.plan(before, unsafe=True).devices
    assert devices and all(d.message is None and d.verified and not d.unresolved and not d.introduced for d in devices)
    script = "".join(p.snippet for d in devices for p in d.parts if p.snippet is not None)
    assert "/ecn/roce_np/cnp_802p_prio" in script and "/ecn/roce_np/enable/" not in script


_WATCHDOG_100 = {"detection_time_ms": {"min": 100, "max": 100}, "restoration_time_ms": {"min": 100, "max": 100}}
# ECN thresholds every lossless queue can hold (Kmin = Kmax = one 9216 B frame, 1 %): what the fix tests vary is the
# maps, never whether the thresholds fit.
_ECN_9216 = {"min_threshold_bytes": {"min": 9216, "max": 9216}, "max_threshold_bytes": {"min": 9216},
             "mark_probability_pct": {"min": 1, "max": 1}, "kmin_min_mtus": 0}


@pytest.mark.parametrize("variant", ["trident-tomahawk", "sand"])
def test_eos_fix_moves_traffic_off_the_default_strict_queues_it_leaves_above_a_new_lossless_queue(tmp_path, variant):
    """EOS queues above the last `no priority` one are strict by default: a PCP trust fix making priority 2 lossless
    left PCP 4-7 (EOS's default CoS map) on strict queues 4-7 above it, and SCH001 named no section on EOS, so the fix
    reported the SCH001 it brought. Its follow-up now writes the policy's whole CoS map (a remap: disruptive)."""
    pol = _policy(lossless={"priorities": [2], "dscp": [0], "trust": "pcp"},
                  cnp={"dscp": 1, "priority": 1, "strict": False}, ecn={"required": False},
                  nic={"ecn_np": False, "ecn_rp": False}, watchdog=_WATCHDOG_100)
    before = lint([_device(tmp_path, "arista_eos", variant)], pol, fmt="arista_eos")
    (dev,) = fix.plan(before, unsafe=True).devices
    assert dev.message is None and dev.verified
    assert ([f.code for f in dev.unresolved], [f"{f.code} {f.message}" for f in dev.introduced]) == ([], [])
    (part,) = [p for p in dev.parts if "maps" in p.sections]
    assert part.label == "disruptive" and {"pfc", "scheduler", "trust"} <= set(part.sections)
    assert "qos map cos 0 3 4 5 6 7 to traffic-class 0" in part.snippet.splitlines()
    assert any(f"   {word} 2\n      no priority\n" in part.snippet for word in ("uc-tx-queue", "tx-queue"))
    # Without --unsafe-fixes the trust part that opens the class is withheld: nothing is brought, nothing remapped.
    (safe,) = fix.plan(before).devices
    assert safe.verified and not safe.introduced and not any(p.printed for p in safe.parts if "maps" in p.sections)


def test_eos_fix_is_refused_where_the_policy_cannot_have_its_strict_cnp_queue(tmp_path):
    """The same fix under a strict CNP on PCP 1, below the new round-robin lossless queue 2: no EOS config has both
    (render refuses the policy), so the follow-up is refused and the fix with it, not printed with the MAP002 and
    SCH001 it brings listed as introduced."""
    pol = _policy(lossless={"priorities": [2], "dscp": [1], "trust": "pcp"},
                  cnp={"dscp": 0, "priority": 1, "strict": True}, ecn={"required": False},
                  nic={"ecn_np": False, "ecn_rp": False}, watchdog=_WATCHDOG_100)
    before = lint([_device(tmp_path, "arista_eos", "sand")], pol, fmt="arista_eos")
    (dev,) = fix.plan(before, unsafe=True).devices
    assert dev.message is not None and "the strict CNP queue 1 below it cannot be strict" in dev.message
    assert dev.parts == []


def test_nxos_fix_puts_the_safe_ecn_on_the_queue_its_maps_part_makes_lossless(tmp_path):
    """NX-OS: a new lossless priority 1 that the device's maps put on no queue. The ECN part (safe: ECN-capable
    packets are marked, none changes class) was rendered by the device's own maps, which place priority 1 nowhere:
    the whole fix was refused ("does not say which egress queue"). It goes on queue 1, where the maps part (qos-group
    1, `pause pfc-cos 1`) places the class, printed before it. NX-OS's ECN is its queuing policy, which also weighs
    the queues the classes running now use: without --unsafe-fixes it is withheld with the maps part it waits for."""
    pol = _policy(lossless={"priorities": [1], "dscp": [0], "trust": "dscp"},
                  cnp={"dscp": 1, "priority": 2, "strict": False}, watchdog=_WATCHDOG_100,
                  ecn=_ECN_9216)
    before = lint([_device(tmp_path, "cisco_nxos", "n9k")], pol, fmt="cisco_nxos")
    model = render_golden.options("cisco_nxos", "n9k")["model"]
    (dev,) = fix.plan(before, unsafe=True, model=model).devices
    assert dev.message is None and dev.verified and not dev.unresolved and not dev.introduced
    assert [(p.label, "ecn" in p.sections, "maps" in p.sections) for p in dev.parts] == [
        ("safe", True, False), ("disruptive", False, True)]
    ecn = dev.parts[0].snippet
    assert ("  class type queuing c-out-8q-q1\n    bandwidth remaining percent 50\n    random-detect minimum-threshold "
            "9216 bytes") in ecn
    assert "    pause pfc-cos 1" in dev.parts[1].snippet.splitlines()
    (safe,) = fix.plan(before, model=model).devices
    assert [(p.label, p.sections, p.printed) for p in safe.parts] == [
        ("safe", ["watchdog"], True), ("disruptive", ["ecn", "maps", "pfc"], False)]
    assert "ECN001" in {f.code for f in safe.parts[1].findings} and safe.verified and not safe.unresolved


def test_junos_fix_is_refused_where_no_whole_percent_fill_level_fits_the_ecn_its_trust_fix_needs(tmp_path):
    """Junos's PCP trust fix opens a no-loss class on queue 1 that marks no ECN (ECN001); the ECN its follow-up
    needs is refused, Kmin 9216 B in no whole percent of the queue buffer (a policy limit, as `render` refuses it):
    the fix was printed with the ECN001 it brings listed, now it is refused with that reason."""
    pol = _policy(lossless={"priorities": [1], "dscp": [1], "trust": "pcp"},
                  cnp={"dscp": 0, "priority": 2, "strict": False}, watchdog=_WATCHDOG_100,
                  ecn=_ECN_9216)
    before = lint([_device(tmp_path, "juniper_junos", "qfx10000-ptx")], pol, fmt="juniper_junos")
    model = render_golden.options("juniper_junos", "qfx10000-ptx")["model"]
    (dev,) = fix.plan(before, unsafe=True, model=model).devices
    assert dev.message is not None and "whole-percent fill levels" in dev.message, dev.message
