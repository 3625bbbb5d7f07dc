"""`losslessd fix`: per device, the minimal snippet that resolves its fixable findings.

A fix is a render restricted to the profile sections the findings need (Rule.fix_sections) and to
the ports they name, so its numbers are the ones a full `render` would write. Findings are split
into safe and disruptive parts (Rule.disruptive_for); a disruptive part is only printed when asked.
Where the device's input is its config file, each printed part is cut down to what it changes
(fix/apply.py CHANGES), applied offline, shown as a unified diff, and the result is linted again;
a host capture is linted again with the printed script run over it (the mlx5 parser reads a capture
and a script of one host in order). What the printed parts do not resolve, or would break, is
reported rather than assumed. Nothing is ever sent to a device.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import capture, render
from ..errors import InputError, internal_error_message
from ..limits import read_text
from ..lint.engine import LintResult, run
from ..lint.finding import Finding, Severity, few
from ..lint.registry import all_rules
from ..model import Device, Fabric, Port, SchedulerType
from ..parse import parser_for, sonic
from ..parse.base import Input
from ..platforms import PLATFORMS
from ..policy import Policy
from ..render import families
from ..render import opensm as render_opensm
from ..rules.sch import WEIGHTED
from .apply import SHAPES, sonic_applied, sonic_snippet
from .diff import unified

HOST_STATE = "host state, not a text config: run this script on the host"


@dataclass
class Part:
    """One labelled snippet: the findings it resolves and the sections it lays out."""

    label: str  # "safe" | "disruptive"
    sections: list[str]
    findings: list[Finding]
    snippet: str | None  # None: withheld (disruptive, without --unsafe-fixes), or the template writes nothing
    apply_with: str | None = None  # the command that applies the snippet (SONiC: `config load` or `apply-patch`)
    notes: list[str] = field(default_factory=list)  # what the snippet cannot say (render.operator_notes)
    empty: bool = False  # the platform's template writes nothing for these sections: no fix, never a blank one
    held: bool = False  # (empty) what it writes, the device's config holds already (the snippet cut to nothing)
    refused: str | None = None  # a fact of the device this section needs is missing (render.refusal): no fix, why
    refused_on: tuple[str, ...] = ()  # (refused) the ports it is refused on
    # profile -> the ports bound to it that the part was not asked for, which take its change too (_shared)
    shared: dict[str, list[str]] = field(default_factory=dict)
    shared_notes: list[str] = field(default_factory=list)  # (shared) the notes saying what they take

    @property
    def withheld(self) -> bool:
        return self.snippet is None and not self.empty and self.refused is None

    @property
    def printed(self) -> bool:
        return self.snippet is not None


@dataclass
class DeviceFix:
    device: str
    platform: str | None
    files: list[str]
    findings: list[Finding]  # the device's fixable findings
    parts: list[Part] = field(default_factory=list)
    message: str | None = None  # why no snippet could be made
    limit: bool = False  # (message) the policy asks what the platform cannot do (render.PolicyLimit), facts aside
    input_error: bool = False  # (message) the input cannot take a fix as it is (blocks that depend on a tab's width)
    diff: str | None = None
    diff_note: str | None = None  # why there is no diff
    verified: bool = False  # the fixed config (or host) was linted again
    unresolved: list[Finding] = field(default_factory=list)  # still there after the printed parts
    introduced: list[Finding] = field(default_factory=list)  # new problems the printed parts would cause


@dataclass
class FixResult:
    lint: LintResult
    devices: list[DeviceFix]
    unsafe: bool

    @property
    def exit_code(self) -> int:
        """0: nothing to fix; 1: fixes printed, withheld or impossible, or a device or input the lint did not check
        (nothing to fix there is unknown, never "nothing to fix")."""
        return 1 if self.devices or self.not_checked else 0

    @property
    def input_errors(self) -> list[str]:
        """Why a device's input cannot take a fix as it is: the run exits 2 (cli.lint.exit_code)."""
        return [d.message for d in self.devices if d.input_error and d.message]

    @property
    def not_checked(self) -> bool:
        cov = self.lint.coverage
        return bool(cov.unchecked or cov.unread)


def fixable(finding: Finding) -> bool:
    """A finding a rendered section can resolve: a fixable rule's, about a problem that was actually seen."""
    rule = all_rules().get(finding.code)
    return (rule is not None and bool(rule.fix_sections_for(finding)) and not finding.unverified
            and finding.severity != Severity.info)


def plan(result: LintResult, unsafe: bool = False, model: str | None = None, family: str | None = None) -> FixResult:
    """Fixes for every device of a lint run that has fixable findings; one device's trouble is its own.
    ``model`` (the hardware model, --model) or ``family`` (--family) stands in for the model of devices whose input
    does not name one."""
    families.known(family)
    devices = []
    for name in sorted(result.fabric.devices):
        found = [f for f in result.findings if f.device == name and fixable(f)]
        if not found:
            continue
        device = result.fabric.devices[name]
        try:
            devices.append(device_fix(device, found, result.policy, unsafe, model, family))
        except InputError as exc:  # the file cannot take a fix as it is: exit 2, naming it (FixResult.input_errors)
            devices.append(DeviceFix(device=name, platform=device.platform, files=list(device.files),
                                     findings=found, message=f"cannot work out a fix: {exc}", input_error=True))
        except Exception as exc:  # noqa: BLE001 - deliberate: a bug on one device must not cost the others' fixes
            message = internal_error_message(f"working out the fix of {name} failed", exc)
            result.internal_errors.append(message)  # the run's verdict: exit 3, the JSON says incomplete
            devices.append(DeviceFix(device=name, platform=device.platform, files=list(device.files),
                                     findings=found, message=message))
    return FixResult(lint=result, devices=devices, unsafe=unsafe)


def device_fix(device: Device, findings: list[Finding], policy: Policy, unsafe: bool,
               model: str | None = None, family: str | None = None) -> DeviceFix:
    """The device's fix; where its own lines bring a fixable problem the device did not have (a class made lossless
    on a queue that marks no ECN, as Junos's trust fix does when it opens a new class), the sections that problem
    needs are rendered for the same ports too, once, and the whole verified again."""
    out = _device_fix(device, findings, policy, unsafe, (model, family), {})
    rules = all_rules()
    follow: dict[tuple[bool, str | None], set[str]] = {}
    for f in out.introduced:
        if fixable(f):
            rule = rules[f.code]
            follow.setdefault((rule.disruptive_for(f), f.port), set()).update(rule.fix_sections_for(f))
    if not follow:
        return out
    again = _device_fix(device, findings, policy, unsafe, (model, family), follow)
    # (a follow-up the facts cannot render, an ECN section for a port of unknown speed: the first fix stands, its
    # introduced problems listed, rather than no fix at all; one the policy cannot have on the platform, a strict CNP
    # queue below the new lossless one on EOS, is refused: no fix of this device can clear what the first brings)
    if again.message is not None and not again.limit:
        out.parts += _follow_refused(out, follow, again.message.removeprefix("cannot work out a fix: "))
        return out
    # A follow-up section refused on a port (NX-OS: the pause buffer an ECN part's new Kmin needs, with no cable length
    # stated) lists the problems it was for, which stay introduced.
    for part in again.parts:
        if part.refused is not None and not part.findings:
            part.findings = [f for f in again.introduced if f.port in part.refused_on
                             and part.sections[0] in rules[f.code].fix_sections_for(f)]
    return again


def _follow_refused(out: DeviceFix, follow: dict[tuple[bool, str | None], set[str]], why: str) -> list[Part]:
    """The follow-up a fact of the input is missing for (--model for a command family, a port's speed for ECN), said
    up front as a refused part per label: the problems the printed parts bring, and what to give so `fix` clears them
    too (before: the first fix listed what it brings, and what was missing was nowhere)."""
    rules = all_rules()
    parts = []
    for disruptive in (False, True):
        asked = {port: sections for (label, port), sections in follow.items() if label == disruptive}
        brought = [f for f in out.introduced if f.port in asked and fixable(f) and rules[f.code].disruptive_for(f) ==
                   disruptive]
        if not brought:
            continue
        ports = list(dict.fromkeys(f.port for f in brought if f.port is not None))
        sections = sorted({s for port in ports for s in asked[port]})
        codes = list(dict.fromkeys(f.code for f in brought))
        parts.append(Part("disruptive" if disruptive else "safe", sections, brought, None, refused_on=tuple(ports),
                          refused=f"{'port' if len(ports) == 1 else 'ports'} {few(ports)}: the printed parts bring "
                                  f"{', '.join(codes)} here, and the {', '.join(sections)} "
                                  f"{'section' if len(sections) == 1 else 'sections'} that would clear "
                                  f"{'it' if len(codes) == 1 else 'them'} cannot be worked out: {why}"))
    return parts


def _device_fix(device: Device, findings: list[Finding], policy: Policy, unsafe: bool,
                given: tuple[str | None, str | None], follow: dict[tuple[bool, str | None], set[str]]) -> DeviceFix:
    out = DeviceFix(device=device.name, platform=device.platform, files=list(device.files), findings=findings)
    if device.platform not in render.platforms():
        out.message = (f"no fix template for platform {device.platform}; fix these by hand (each finding says how). "
                       f"Templates: {', '.join(render.platforms())}")
        return out
    try:
        # (SONiC: its CONFIG_DB the parts are cut against, read once for the parts and the check after them)
        inputs = _read(device) if device.platform == "sonic" else None
        out.parts = _parts(device, findings, policy, unsafe, given, follow, inputs)
    except InputError as exc:
        out.message, out.limit = f"cannot work out a fix: {exc}", isinstance(exc, render.PolicyLimit)
        return out
    _apply_and_verify(out, device, policy, inputs)
    # (once the snippets are final: cutting one against the config, Shape.changes, may turn it into a patch)
    shape = SHAPES.get(device.platform)
    if shape is not None:
        for part in out.parts:
            part.apply_with = shape.applied_with(part.snippet) if part.snippet is not None else None
    return out


def _read(device: Device) -> list[Input]:
    return [Input(path, read_text(path)) for path in device.files]


def _parts(device: Device, findings: list[Finding], policy: Policy, unsafe: bool,
           given: tuple[str | None, str | None] = (None, None),
           follow: dict[tuple[bool, str | None], set[str]] | None = None,
           inputs: list[Input] | None = None) -> list[Part]:
    """One part per label and set of sections: each port gets only the sections its own findings need (and
    ``follow``'s, (disruptive, port) -> sections the first try's lines needed too)."""
    rules = all_rules()
    facts, pool = render.device_facts(device, policy)
    everywhere: list[str | None] = [f.name for f in facts] or [None]  # a device-wide finding: every port, or an SM
    # A port whose queue maps a printed part of this fix writes gets its ECN on the queues those maps place the lossless
    # classes on (NX-OS: WRED ECN in the queuing policy, the class in the qos-group maps). Where that maps part is
    # withheld, the ECN stays on the queues the lossless classes reach NOW (RoCE is marked at once, and no queue that
    # carries another class meanwhile gets WRED, which drops its non-ECT packets); only a port whose lossless classes
    # reach no queue yet gets it where the withheld part will place them (never a refusal for want of one).
    own = render.OWN_QUEUE_MAPS.get(device.platform, frozenset())
    asked: list[tuple[Finding | None, bool, frozenset[str], list[str | None]]] = [
        (f, rules[f.code].disruptive_for(f), rules[f.code].fix_sections_for(f),
         [f.port] if f.port is not None else everywhere) for f in findings]
    asked += [(None, disruptive, frozenset(more), [where] if where is not None else everywhere)
              for (disruptive, where), more in (follow or {}).items()]
    remapped = {port for _, _, sections, ports in asked if sections & own for port in ports}
    remapped_later = set() if unsafe else {port for _, disruptive, sections, ports in asked
                                           if disruptive and sections & own for port in ports}
    # Where the ECN is the queuing policy (NX-OS), an ECN or scheduler part also weighs every queue, the ones the
    # classes running now use among them: until the maps part lands it is no safer than that part, so where that part
    # is withheld the port's ECN and scheduler sections wait with it (withheld in it, its findings listed there).
    waits = frozenset({"ecn", "scheduler"}) if PLATFORMS[device.platform].ecn_in_scheduler else frozenset()

    def label(disruptive: bool, sections: frozenset[str], port: str | None) -> bool:
        return disruptive or bool(sections & waits and port in remapped_later)

    by_port: dict[tuple[bool, str | None], set[str]] = {}
    for _, disruptive, sections, ports in asked:
        for port in ports:
            by_port.setdefault((label(disruptive, sections, port), port), set()).update(sections)
    future: set[str] = set()  # the ports whose ECN goes on the queues a maps part of this fix places the classes on
    if device.opensm is not None:  # a subnet manager's numbers come from the policy alone
        prof = render_opensm.profile(policy)
    else:
        wanted = {port for _, port in by_port}
        # (the device's own model over --model/--family: the snippet goes on that device)
        # (--family for the devices of a platform that has it: a fabric mixes platforms)
        model, family = (None, None) if device.hardware or device.hwsku else given
        family = family if family in families.names(device.platform or "") else None
        made = render.device_profile(policy, device, [f for f in facts if f.name in wanted], device.platform,
                                     pool_bytes=pool, model=model, family=family, all_facts=False)
        future = {p.name for p in made.ports if p.name in remapped and (
            p.name not in remapped_later or not all((p.carries or {}).get(prio) for prio in made.lossless))}
        on_now = {prio for name in wanted if name in device.ports for prio in device.ports[name].pfc_enabled or ()}
        scheduled = [(q, queue.scheduler) for name in wanted if name in device.ports
                     for q, queue in device.ports[name].queues.items() if queue.scheduler is not None]
        strict_now = {q for q, sched in scheduled if sched.type == SchedulerType.strict}
        weighted_now = {q for q, sched in scheduled if sched.type in WEIGHTED and not sched.default}
        # (what the device has now that the policy's profile leaves out: a partial render says it explicitly)
        prof = replace(made, pfc_off=tuple(sorted(on_now - set(made.pfc or ()))),
                       # (a queue scheduler.strict_allowed lists stays strict: SCH001 accepts it)
                       strict_off=tuple(sorted(strict_now - set(made.strict_queues)
                                               - set(policy.scheduler.strict_allowed or ()))),
                       weighted_off=tuple(sorted(weighted_now - set(made.lossless_queues) - set(made.strict_queues))),
                       ports=[replace(p, carries=None) if p.name in future else p for p in made.ports])
    # A section a port lacks a fact for (an NX-OS pause buffer with no cable length stated) is refused on that port
    # alone, with the findings that need it (none of their other sections is written for them: half a fix); the
    # port's other findings, and the other ports, keep their parts.
    refused: dict[tuple[str, str], str] = (_refused(device.platform, prof, by_port)
                                           if isinstance(prof, render.Profile) else {})
    before_refusals = by_port
    if refused:
        by_port = {}
        for _, disruptive, sections, ports in asked:
            for port in ports:
                if port is None or not any((port, s) in refused for s in sections):
                    by_port.setdefault((label(disruptive, sections, port), port), set()).update(sections)
    groups: dict[tuple[bool, frozenset[str]], set[str | None]] = {}
    for (disruptive, port), sections in by_port.items():
        groups.setdefault((disruptive, frozenset(sections)), set()).add(port)
    # SONiC: each printed part as the device takes it after the ones before (a key one part splits is not there for
    # the next to split again).
    db = sonic.config_db(inputs or _read(device)) if device.platform == "sonic" else None
    parts = []
    for (disruptive, sections), ports in sorted(groups.items(), key=lambda g: (g[0][0], sorted(g[0][1]))):
        group = [f for f, was, wants, _ in asked if f is not None and wants <= sections
                 and (f.port in ports or f.port is None) and label(was, wants, f.port) == disruptive]
        snippet, notes, empty, shared = None, [], False, {}
        if unsafe or not disruptive:
            restricted = render.restrict(prof, sections, ports)
            snippet = render.render(device.platform, restricted)
            notes = render.operator_notes(device.platform, restricted)
            shared = _shared(device, restricted, by_port, unsafe) if not disruptive else {}
            pending = sorted(p for p in ports if p is not None and p in remapped_later)
            if pending and not sections & own and isinstance(restricted, render.Profile) and restricted.writes_ecn(
                    device.platform):
                later, now = [p for p in pending if p in future], [p for p in pending if p not in future]
                if later:
                    notes.append(f"the ECN on {', '.join(later)} goes on the queue(s) the withheld maps part places "
                                 "the lossless class on: RoCE is marked there once that part is applied")
                if now:
                    notes.append(f"the ECN on {', '.join(now)} goes on the queue(s) the lossless priorities reach "
                                 "now: the withheld maps part changes what reaches them, so run fix again once it is "
                                 "applied")
            if writes_nothing(snippet):  # (a template with no branch for these sections: its header alone)
                snippet, empty = None, True
            elif db is not None:
                snippet = sonic_snippet(db, snippet)
                db = sonic_applied(db, snippet)
        shared = shared if snippet is not None else {}
        notes += [note for _, note in shared.values()]
        parts.append(Part("disruptive" if disruptive else "safe", sorted(sections), group, snippet, notes=notes,
                          empty=empty, shared={name: others for name, (others, _) in shared.items()},
                          shared_notes=[note for _, note in shared.values()]))
    # One refused part per label, section and reason, naming its ports (the reason said once, not once a port).
    no_fix: dict[tuple[bool, str, str], dict[str, None]] = {}
    for (port, section), why in refused.items():
        for disruptive in (False, True):
            if (disruptive, port) in before_refusals and section in before_refusals[disruptive, port]:
                no_fix.setdefault((disruptive, section, why.removeprefix(f"port {port}: ")), {})[port] = None
    for (disruptive, section, why), named in sorted(no_fix.items()):
        names = list(named)
        # (a device-wide finding, PFC006, asks the section on every port: its part is for it where those are refused)
        hits = [(f, wants) for f, was, wants, on in asked if f is not None and section in wants
                and (f.port in named if f.port is not None else not named.keys().isdisjoint(on))
                and label(was, wants, f.port) == disruptive]
        group = [f for f, _ in hits]
        # (the findings' other sections are not written on these ports either: said, not left for the reader to infer;
        # from the same entries, not by `f in group`, which compared every asked finding with every one of the group)
        waiting = sorted({s for _, wants in hits for s in wants} - {section})
        one = len(waiting) == 1
        wait = (f" (the {', '.join(waiting)} {'section' if one else 'sections'} of the same "
                f"{'finding' if len(group) == 1 else 'findings'} {'waits' if one else 'wait'} for it there)"
                if waiting else "")
        parts.append(Part("disruptive" if disruptive else "safe", [section], group, None,
                          refused=f"{'port' if len(names) == 1 else 'ports'} {few(names)}: {why}{wait}",
                          refused_on=tuple(names)))
    return parts


def _shared(device: Device, prof: render.Profile | object, by_port: dict[tuple[bool, str | None], set[str]],
            unsafe: bool) -> dict[str, tuple[list[str], str]]:
    """Profile -> (the device's ports bound to it that no printed part of the fix writes the section for, the note
    saying what they take), ``by_port``: (disruptive, port) -> sections. A safe part writing into the profile a fixed
    port is bound to (Platform.in_place: Junos the watchdog timers, NVUE the cable length its headroom is sized by)
    changes them too, so the part names them rather than change them silently; a profile whose values already are
    what the part writes changes nothing for them, and is not named."""
    rec = prof.in_place(device.platform) if isinstance(prof, render.Profile) else None
    if rec is None or not isinstance(prof, render.Profile):
        return {}
    ports = {port for (disruptive, port), sections in by_port.items()
             if rec.section in sections and (unsafe or not disruptive)}
    fixed = {p.name: p for p in prof.ports}
    written: dict[str, list[render.PortProfile]] = {}
    for name, profiled in fixed.items():
        bound = (device.ports[name].service_policies or {}).get(rec.point) if name in device.ports else None
        if bound is not None:
            written.setdefault(bound, []).append(profiled)
    others: dict[str, list[str]] = {}
    for name, port in device.ports.items():
        bound = (port.service_policies or {}).get(rec.point)
        if bound is not None and bound in written and name not in ports:
            others.setdefault(bound, []).append(name)
    if not others:
        return {}
    try:
        final, _ = render.prepared(device.platform or "", prof)  # (the values the template writes)
    except InputError:
        final = prof
    out: dict[str, tuple[list[str], str]] = {}
    for bound, names in sorted(others.items()):
        change = _CHANGES[rec.section](final, written[bound], device.ports[names[0]])
        if change:
            out[bound] = (names, _shared_note(rec.point, bound, names, change))
    return out


def _watchdog_change(prof: render.Profile, _fixed: list[render.PortProfile], other: Port) -> str:
    """What the watchdog part changes for a port bound to the profile it writes: each timer (and the action) the
    profile holds now -> the one written, those that differ; "" where none does."""
    wd = other.watchdog if other.watchdog is not None and other.watchdog.enabled is not False else None
    if not prof.watchdog:
        return ""
    if wd is None:
        return "the policy's watchdog timers (the watchdog is off there now)"
    pairs = (("polling interval", wd.polling_interval_ms, prof.wd_poll_ms, " ms"),
             ("detection time", wd.detection_time_ms, prof.wd_detection_polls * prof.wd_poll_ms, " ms"),
             ("restoration time", wd.restoration_time_ms, prof.wd_restoration_ms, " ms"),
             ("action", wd.action, prof.wd_action, ""))
    moved = [f"{what} {'unknown' if now is None else f'{now:g}' if isinstance(now, float) else now}{unit} -> "
             f"{new}{unit}" for what, now, new, unit in pairs if now is None or now != new]
    return f"the policy's watchdog timers ({', '.join(moved)})" if moved else ""


def _cable_change(_prof: render.Profile, fixed: list[render.PortProfile], other: Port) -> str:
    """What the buffer part changes for a port bound to the PFC profile it writes: the profile's cable length now
    -> the longest cable of its ports fixed here; "" where they are the same."""
    new = max((p.cable_length_ceil_m or 0 for p in fixed), default=0)
    now = other.cable_length_m
    if now == new:
        return ""
    more = "more" if now is None or now < new else "less"
    return (f"the cable length of the longest cable fixed here ({'unknown' if now is None else f'{now:g}'} -> {new} m: "
            f"{more} headroom)")


# Platform.in_place's section -> what its part changes for the other ports bound to the profile it writes.
_CHANGES: dict[str, Callable[[render.Profile, list[render.PortProfile], Port], str]] = {
    "watchdog": _watchdog_change, "buffer": _cable_change}


def _shared_note(point: str, profile: str, others: list[str], change: str) -> str:
    """What a safe part written into a shared profile does to ports it was not asked for, and the by-hand way out."""
    return (f"{point} {profile} is shared: {few(others)} (not in this fix) {'takes' if len(others) == 1 else 'take'} "
            f"{change} too; to leave {'it' if len(others) == 1 else 'them'} as "
            f"{'it is' if len(others) == 1 else 'they are'}, bind the fixed ports to a {point} of their own by hand "
            "instead (a PFC change: disruptive)")


def _refused(platform: str, prof: render.Profile, by_port: dict[tuple[bool, str | None], set[str]],
             ) -> dict[tuple[str, str], str]:
    """(port, section) -> why the section cannot be rendered on that port (render.refusal: a missing fact). Each
    section is checked on all its ports at once, and port by port only where that refuses (16,000 ports stay cheap)."""
    ports = {p.name: p for p in prof.ports}
    wanted: dict[str, list[str]] = {}
    for (_, port), sections in by_port.items():
        for section in sections:
            if port is not None and port in ports:
                wanted.setdefault(section, []).append(port)
    out: dict[tuple[str, str], str] = {}
    for section, names in sorted(wanted.items()):
        names = list(dict.fromkeys(names))
        if render.refusal(platform, replace(prof, sections=frozenset({section}),
                                            ports=[ports[n] for n in names])) is None:
            continue
        for name in names:
            why = render.refusal(platform, replace(prof, sections=frozenset({section}), ports=[ports[name]]))
            if why is not None:
                out[name, section] = why
    return out


_NO_COMMAND = frozenset(("{", "}", "{}"))  # (lines of a Junos or JSON block that change nothing alone)


def writes_nothing(snippet: str) -> bool:
    """Whether a rendered or cut snippet holds no command: comment lines (`#`, `!`: every template's header) and
    braces alone, or an empty JSON document (a SONiC fragment or patch)."""
    if all(not line.strip() or line.strip() in _NO_COMMAND or line.lstrip().startswith(("#", "!"))
           for line in snippet.splitlines()):
        return True
    try:
        return json.loads(snippet) in ({}, [])
    except ValueError:
        return False


def _apply_and_verify(out: DeviceFix, device: Device, policy: Policy, inputs: list[Input] | None = None) -> None:
    """Cut the printed parts down to what they change, apply them, diff, lint again (as far as the input allows)."""
    printed = [p for p in out.parts if p.printed]
    if not printed:
        return
    try:
        inputs = inputs or _read(device)
    except InputError as exc:  # changed since it was linted
        out.diff_note = f"no diff: {exc}"
        return
    shape = SHAPES.get(device.platform)
    # A capture or a bare output is a host's state, which a printed script changes: the fix is checked by parsing the
    # state and the script together (no diff: there is no config text to change).
    if shape is not None and shape.state is not None and any(shape.state(i.text) for i in inputs):
        out.diff_note = HOST_STATE
        _verify(out, device, policy, inputs, inputs + _snippet_inputs(device, printed))
        return
    target = _config_file(device, inputs)
    if shape is None:
        out.diff_note = f"no diff: losslessd does not know how a {device.platform} config takes a snippet"
        return
    if target is None:
        out.diff_note = f"no diff: the config is split over {len(inputs)} files"
        return
    if capture.is_capture(target.text):
        out.diff_note = "no diff: the device's input is a capture of command outputs, not its config file"
        return
    if shape.takes is not None and not shape.takes(target.text):
        out.diff_note = f"no diff: {shape.other_form}"
        _verify(out, device, policy, inputs, inputs + _snippet_inputs(device, printed))
        return
    current = shape.current(target.text, target.path)
    fixed = current
    for part in printed:
        part.snippet = shape.changes(fixed, part.snippet)
        if writes_nothing(part.snippet):  # (the config holds what it writes: no fix, never a blank snippet)
            part.snippet, part.empty, part.held = None, True, True
            # (nothing written: no port takes a change, shared or not)
            part.notes = [note for note in part.notes if note not in part.shared_notes]
            part.shared, part.shared_notes = {}, []
            continue
        fixed = shape.apply(fixed, part.snippet)
    form = shape.normal_form if shape.normal_form and current != target.text else None
    out.diff = unified(current.splitlines(keepends=True), fixed.splitlines(keepends=True),
                       f"{target.path} ({form})" if form else target.path,
                       f"{target.path} (fixed, {form})" if form else f"{target.path} (fixed)")
    _verify(out, device, policy, [Input(i.path, current) if i is target else i for i in inputs],
            [Input(i.path, fixed) if i is target else i for i in inputs])


def _snippet_inputs(device: Device, printed: list[Part]) -> list[Input]:
    """The printed parts as inputs read after the device's own (a host's scripts, an NVUE tree's commands)."""
    return [Input(f"{device.name} fix {n}", p.snippet) for n, p in enumerate(printed, 1) if p.snippet is not None]


def _config_file(device: Device, inputs: list[Input]) -> Input | None:
    """The one input a snippet applies to: the device's only file, or a subnet manager's opensm.conf (its
    companions hold nothing a fix writes)."""
    if len(inputs) == 1:
        return inputs[0]
    if device.opensm is not None and device.source is not None:
        return next((i for i in inputs if i.path == device.source.file), None)
    return None


def _verify(out: DeviceFix, device: Device, policy: Policy, before: list[Input], after: list[Input]) -> None:
    found_before, found_after = lint_device(device, policy, before), lint_device(device, policy, after)
    if found_before is None or found_after is None:
        note = "the fixed config could not be parsed again, so the fix is not verified"
        out.diff_note = f"{out.diff_note}; {note}" if out.diff_note else note
        return
    out.verified = True
    # (a part cut to nothing, held: its findings are the other parts' to clear)
    fixed = {f.fingerprint for p in out.parts if p.printed or p.held for f in p.findings}
    # Still there: what the re-lint reports as a problem, in its words. A finding the fixed config leaves only as an
    # unverified info (Junos QFX5000 ECN002: the probability fixed, the fill levels as unconvertible as before) is
    # no longer a problem, as `introduced` counts; its old message ("probability 100 %") would be false.
    out.unresolved = [f for f in found_after if f.fingerprint in fixed and _problem(f)]
    # What the operator sees on a plain re-lint: a problem is new unless the config had it, as a problem, at least
    # as severe (an unverified info the fix makes checkable, a warning it makes an error, keeps its fingerprint).
    out.introduced = introduced(found_before, found_after, before, after)


def introduced(found_before: list[Finding], found_after: list[Finding], before: list[Input],
               after: list[Input]) -> list[Finding]:
    """The problems a re-lint of ``after`` shows that ``before`` did not have, at least as severe. A finding keyed by
    its place in the input (a line not read, SYS002) is the same one where its line only moved under the fix's added
    lines: matched by the line's text, as often as the config had it."""
    known = {f.fingerprint: f.severity.rank for f in found_before if _problem(f)}
    lines_before, lines_after = ({i.path: i.text.splitlines() for i in inputs} for inputs in (before, after))
    placed = Counter(_place(f, lines_before) for f in found_before if _problem(f))
    new = []
    for f in found_after:
        if not _problem(f) or f.severity.rank <= known.get(f.fingerprint, -1):
            continue
        place = _place(f, lines_after)
        if place is not None and placed[place] > 0:
            placed[place] -= 1
            continue
        new.append(f)
    return new


def _place(finding: Finding, lines_by_path: dict[str, list[str]]) -> tuple | None:
    """A finding keyed by the file and line it was read at (SYS002's `file:line#n`, n its place among the device's
    issues, which a fixed issue before it shifts), without the line's number or n: its rule, device, port, severity,
    JSON pointer and the text of that line; None for any other."""
    src = finding.source
    if src is None or src.line is None or not finding.key.startswith(src.describe()):
        return None
    lines = lines_by_path.get(src.file or "", [])
    line = lines[src.line - 1].strip() if 0 < src.line <= len(lines) else None
    return finding.code, finding.device, finding.port, finding.severity.rank, src.pointer, line


def _problem(finding: Finding) -> bool:
    """A finding a re-lint reports as a problem: checked (not unverified) and above info."""
    return not finding.unverified and finding.severity != Severity.info


def lint_device(device: Device, policy: Policy, inputs: list[Input]) -> list[Finding] | None:
    """The device's own findings (device and port rules) for ``inputs``; None when they no longer parse."""
    try:
        parsed = parser_for(device.platform).parse(inputs, device.name)
    except InputError:
        return None
    rules = [r for r in all_rules().values() if r.scope in ("device", "port")]
    return run(Fabric(devices={parsed.name: parsed}), policy, rules).findings
