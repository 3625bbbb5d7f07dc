"""Every platform record (losslessd/platforms.py) has each capability losslessd offers, or says why not.

``problems(platform)`` is the one check: for each capability of platforms.CAPABILITIES, either the
implementation the record names works on the platform's own fixtures (tests/fixtures/raw/<id>/), or the record
gives a reason in ``unsupported``; never both, never neither. A new platform with a parser and nothing else
fails it (test_a_parser_alone_is_not_a_platform), so it cannot be silently never detected, rendered or simulated.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

from losslessd import parse, render
from losslessd.errors import InputError
from losslessd.fix.apply import SHAPE_NAMES
from losslessd.model import DeviceKind
from losslessd.monitor import sources
from losslessd.monitor.gnmi import PATH_SETS
from losslessd.parse import read_input
from losslessd.parse.base import Input
from losslessd.platforms import CAPABILITIES, PLATFORMS, Platform
from losslessd.policy import load_policy
from losslessd.render import families
from losslessd.sim import counters as sim_counters
from losslessd.sim import load_devices
from losslessd.sim.ssh import SHELLS
from losslessd.tune.apply import PUSHERS
from tests import render_golden
from tests.conftest import ROOT

RAW = ROOT / "tests" / "fixtures" / "raw"
PORT_FACTS = {"speed", "cable", "sonic"}  # what render._check_facts knows how to check


def samples(platform: Platform) -> list[Path]:
    """The platform's raw parser fixtures, every file (a folder case holds one device's files)."""
    folder = RAW / platform.id
    return sorted(f for f in folder.rglob("*") if f.is_file()) if folder.is_dir() else []


def parser_module(platform: Platform) -> ModuleType:
    return importlib.import_module(f"losslessd.parse.{platform.parser}")


def sniffers(platform: Platform) -> list[Platform]:
    """The detection order (Platform.sniff) with ``platform`` in the registry, as parse.detect asks them."""
    records = {**PLATFORMS, platform.id: platform}
    return sorted((q for q in records.values() if q.parser and q.sniff is not None), key=lambda q: q.sniff or 0)


def detect_as(platform: Platform, path: Path) -> str | None:
    inp = read_input(path)
    return next((q.id for q in sniffers(platform) if parser_module(q).sniff(inp)), None)


def own_samples(platform: Platform) -> list[Path]:
    return [f for f in samples(platform) if detect_as(platform, f) == platform.id]


def _detect(p: Platform) -> list[str]:
    out = []
    ranks = [q.id for q in PLATFORMS.values() if q.id != p.id and q.sniff == p.sniff]
    if ranks:
        out.append(f"sniff rank {p.sniff} is also {', '.join(ranks)}'s: the order between them is left to chance")
    module = parser_module(p)
    if not (callable(getattr(module, "sniff", None)) and callable(getattr(module, "parse", None))):
        out.append(f"losslessd.parse.{p.parser} has no sniff() and parse()")
    if getattr(module, "PLATFORM", None) != p.id:  # the id its sniff() reads capture headers by, its devices carry
        out.append(f"losslessd.parse.{p.parser}.PLATFORM is {getattr(module, 'PLATFORM', None)!r}, not {p.id!r}")
    if not samples(p):
        out.append(f"no raw fixture in tests/fixtures/raw/{p.id}/ to detect")
    elif not own_samples(p):
        out.append(f"detect() returns {p.id} for none of tests/fixtures/raw/{p.id}/")
    # Ranked too early, a sniffer takes the files of the platforms after it.
    out += [f"detect() takes {q.id}'s {f.relative_to(RAW)} for {p.id}" for q in PLATFORMS.values() if q.id != p.id
            for f in samples(q) if detect_as(p, f) == p.id]
    return out


def _render(p: Platform) -> list[str]:
    out = [f"port_facts[{section!r}]: unknown section or fact {facts}" for section, facts in p.port_facts.items()
           if section not in render.SECTIONS or not set(facts) <= PORT_FACTS]
    if p.id not in render_golden.EXTENSIONS:
        return [*out, "no file extension for its golden renders in tests/render_golden.py EXTENSIONS"]
    policy = render_golden.POLICIES_FOR.get(p.id, render_golden.POLICIES)[0]
    try:
        text = render_golden.rendered(p.id, policy)
    except (InputError, KeyError) as exc:
        return [*out, f"rendering {policy} fails: {exc}"]
    golden = render_golden.golden_path(p.id, policy)
    if not golden.is_file() or golden.read_text() != text:
        out.append(f"{golden.relative_to(ROOT)} is missing or stale (make golden)")
    return out


def _fix(p: Platform) -> list[str]:
    if p.fix not in SHAPE_NAMES:
        return [f"fix shape {p.fix!r} is not one of losslessd.fix.apply.SHAPE_NAMES ({', '.join(SHAPE_NAMES)})"]
    if not has(p, "render"):
        return ["a fix renders its snippets: it needs the render capability"]
    shape = SHAPE_NAMES[p.fix]
    own = [f for f in own_samples(p) if f.parent.name == p.id]  # a whole-device file, not a folder's part
    if not own:
        return [f"no single-file fixture of its own in tests/fixtures/raw/{p.id}/ to apply a snippet to"]
    snippet = render_golden.golden_path(p.id, render_golden.POLICIES_FOR.get(p.id, render_golden.POLICIES)[0])
    current = shape.normalize(own[0].read_text())
    fixed = shape.apply(current, shape.changes(current, snippet.read_text()))
    if fixed == current:
        return [f"applying its golden render to {own[0].name} changes nothing"]
    try:  # what the fix's lint reads back (tests/test_fix.py lints it, for every rule a fix clears)
        parser_module(p).parse([Input(own[0].name, fixed)], p.id)
    except InputError as exc:
        return [f"its golden render applied to {own[0].name} no longer parses: {exc}"]
    return []


def _ecn_section(p: Platform, scale: int) -> str:
    pol = load_policy(render_golden.POLICIES[0])
    ports = [render.parse_port_spec(spec) for spec in render_golden.port_specs(p.id)]
    prof = render.profile(pol, ports, pool_bytes=render_golden.POOL_BYTES, **render_golden.options(p.id))
    prof = dataclasses.replace(prof, ports=[dataclasses.replace(q, kmin_bytes=q.kmin_bytes * scale,
                                                                kmax_bytes=q.kmax_bytes * scale) for q in prof.ports])
    return render.render(p.id, render.restrict(prof, {"ecn"}))


def _tune(p: Platform) -> list[str]:
    if p.kind != DeviceKind.switch or not (has(p, "render") and has(p, "fix")):
        return ["tune renders and lints a switch's ECN section: it needs render and fix"]
    try:
        if _ecn_section(p, 1) == _ecn_section(p, 2):
            return ["its template's ecn section does not write the thresholds (the same text for other ones)"]
    except InputError as exc:
        return [f"its template renders no ecn section: {exc}"]
    return []


def _push(p: Platform) -> list[str]:
    if p.push not in PUSHERS:
        return [f"push {p.push!r} is not one of losslessd.tune.apply.PUSHERS ({', '.join(PUSHERS)})"]
    return [] if p.tune else ["a push sends tuned candidates: it needs the tune capability"]


def _counters(p: Platform) -> list[str]:
    out = [] if p.gnmi is None or p.gnmi in PATH_SETS else [f"gNMI path set {p.gnmi!r} is not in PATH_SETS"]
    lines = [line.replace("{iface}", "eth0") for line in p.counter_commands]
    out += [f"counter command `{line}` has no parser in losslessd.monitor.sources" for line in lines
            if sources._parser(line) is None]
    if p.shell is not None:  # the simulator answers what the daemon polls
        served = [pattern for pattern, _ in sim_counters.COMMANDS.get(p.id, ())]
        out += [f"the simulator does not answer counter command `{line}` (losslessd.sim.counters.COMMANDS)"
                for line in lines if not any(pattern.fullmatch(line) for pattern in served)]
    return out


def _sim(p: Platform) -> list[str]:
    out = [] if p.shell in SHELLS else [f"shell {p.shell!r} is not one of losslessd.sim.ssh.SHELLS"]
    out += [f"no {what} for the simulator's inventory" for what, value in
            (("login", p.login), ("netmiko type", p.netmiko), ("pull command", p.commands)) if not value]
    if not out and not (samples(p) and any(d.platform == p.id for d in load_devices(RAW / p.id).values())):
        out.append(f"the simulator serves no device of tests/fixtures/raw/{p.id}/")
    return out


def has(p: Platform, capability: str) -> bool:
    """Whether the record names an implementation of ``capability`` (problems() checks that it works)."""
    return {
        "detect": p.parser is not None and p.sniff is not None,
        "render": p.id in render.platforms(),
        "fix": p.fix is not None,
        "tune": p.tune,
        "push": p.push is not None,
        "counters": p.kind == DeviceKind.switch or bool(p.counter_commands) or p.gnmi is not None,
        "sim": p.shell is not None,
    }[capability]


CHECKS = {"detect": _detect, "render": _render, "fix": _fix, "tune": _tune, "push": _push, "counters": _counters,
          "sim": _sim}


def problems(p: Platform) -> list[str]:
    """What is wrong with ``p``'s record: a capability neither implemented nor explained, explained but
    implemented anyway, or named but not working on the platform's own fixtures."""
    out = [f"unsupported names an unknown capability {c!r}" for c in p.unsupported if c not in CAPABILITIES]
    for capability in CAPABILITIES:
        reason = p.unsupported.get(capability)
        if has(p, capability):
            if reason is not None:
                out.append(f"{capability}: implemented, yet unsupported says {reason!r}")
            out += [f"{capability}: {problem}" for problem in CHECKS[capability](p)]
        elif not (reason and reason.strip()):
            out.append(f"{capability}: missing ({CAPABILITIES[capability]}), and no reason in unsupported")
    if not has(p, "render") and p.port_facts:
        out.append("port_facts given for a platform that does not render")
    return out


def test_every_capability_is_checked():
    assert set(CHECKS) == set(CAPABILITIES)


@pytest.mark.parametrize("platform", list(PLATFORMS))
def test_every_platform_has_each_capability_or_says_why_not(platform):
    assert problems(PLATFORMS[platform]) == []


def test_a_parser_alone_is_not_a_platform():
    """A platform added with a parser and nothing else (a switch: SNMP gives it counters) fails every other
    capability; the same record with a reason for each passes."""
    bare = Platform("example_os", DeviceKind.switch, "eos", "a parser and nothing else")
    found = problems(bare)
    assert {p.split(":")[0] for p in found} == set(CAPABILITIES) - {"counters"}, found
    assert any("no reason in unsupported" in p for p in found if p.startswith("detect"))

    explained = dataclasses.replace(bare, unsupported={c: "not yet: an example" for c in CAPABILITIES
                                                      if c != "counters"})
    assert problems(explained) == []
    assert problems(dataclasses.replace(explained, unsupported={**explained.unsupported, "sim": " "})) == [
        f"sim: missing ({CAPABILITIES['sim']}), and no reason in unsupported"]


def test_a_half_added_platform_is_caught():
    """Entries that name nothing real, a sniff rank another platform has, and a reason beside an implementation."""
    eos = PLATFORMS["arista_eos"]
    broken = dataclasses.replace(eos, sniff=PLATFORMS["sonic"].sniff, fix="eos_config", shell="ios",
                                 unsupported={"render": "no template", "tuning": "later"})
    found = "\n".join(problems(broken))
    assert "unknown capability 'tuning'" in found
    assert "sniff rank 10 is also sonic's" in found
    assert "fix shape 'eos_config' is not one of" in found
    assert "shell 'ios' is not one of" in found
    assert "render: implemented, yet unsupported says 'no template'" in found
    # A new parser whose sniff() also accepts EOS files, ranked before EOS, would take them.
    greedy = "\n".join(problems(dataclasses.replace(eos, id="eos_clone", sniff=PLATFORMS["sonic"].sniff - 1)))
    assert "detect() takes arista_eos's arista_eos/roce-leaf.cfg for eos_clone" in greedy


def test_lint_detects_in_the_records_order():
    """parse.detect asks the parsers in the order of their records' sniff ranks (what problems() checks)."""
    assert list(parse._SNIFF_ORDER) == [q.id for q in sniffers(PLATFORMS["sonic"])]
    files = [f for p in PLATFORMS.values() for f in samples(p)]
    assert [parse.detect(read_input(f)) for f in files] == [detect_as(PLATFORMS["sonic"], f) for f in files]


def test_tables_outside_the_record_name_only_known_platforms():
    """What stays with its implementation (command families, the simulator's counter outputs, test golden
    data) is keyed by platform ids that exist, and by platforms that have the capability it serves."""
    renderable = {p for p in PLATFORMS if PLATFORMS[p].supports("render")}
    assert set(families.FAMILIES) <= renderable and set(families.FAMILY_SECTIONS) <= set(families.FAMILIES)
    assert set(sim_counters.COMMANDS) <= {p for p in PLATFORMS if PLATFORMS[p].counter_commands}
    for table in (render_golden.EXTENSIONS, render_golden.RUNTIME_INFOS, render_golden.PORT_NAMES,
                  render_golden.POLICIES_FOR, render_golden.VARIANTS):
        assert set(table) <= renderable
    assert set(render_golden.EXTENSIONS) == renderable


def test_the_docs_table_matches_the_records():
    """docs/platforms.md lists each platform's capabilities and the reasons for those it lacks."""
    text = (ROOT / "docs" / "platforms.md").read_text()
    for p in PLATFORMS.values():
        row = re.search(rf"^\| `{p.id}` \|(.*)\|$", text, re.MULTILINE)
        assert row, f"docs/platforms.md has no row for {p.id}"
        cells = [c.strip() for c in row.group(1).split("|")]
        assert cells == [("yes" if p.supports(c) else "no") for c in CAPABILITIES], p.id
    flat = " ".join(text.split())
    assert [r for p in PLATFORMS.values() for r in p.unsupported.values() if " ".join(r.split()) not in flat] == []
