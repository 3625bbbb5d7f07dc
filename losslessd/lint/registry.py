"""Rule registry and selection (--select/--ignore by code, prefix or kebab name)."""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..errors import InputError
from ..model import Device, DeviceKind, Port, Source
from ..printable import quoted
from ..units import is_digits
from .finding import Finding, Severity

if TYPE_CHECKING:  # the engine imports the registry
    from .engine import Context

DOC_HEADINGS = ("What it checks", "Why it matters", "Failing example", "Passing example", "Fix")

# Renamed or renumbered rules keep working under their old code or name.
ALIASES: dict[str, str] = {}

_REGISTRY: dict[str, type[Rule]] = {}

Scope = Literal["device", "port", "link", "fabric"]


class Rule:
    """Base class. Subclasses set code/name/scope/severity, write a docstring with DOC_HEADINGS
    and implement ``check(ctx)`` yielding findings built with ``self.finding``."""

    code: ClassVar[str]
    name: ClassVar[str]
    scope: ClassVar[Scope] = "port"
    severity: ClassVar[Severity] = Severity.error
    # What `losslessd fix` renders to resolve a finding (render.SECTIONS), and whether applying it
    # changes classification or PFC on a live port (held back without --unsafe-fixes).
    fix_sections: ClassVar[frozenset[str]] = frozenset()
    disruptive: ClassVar[bool] = False
    fixable: ClassVar[bool] = False  # derived: the rule names sections to render
    # How the engine may share work between devices (and ports) configured alike (lint/groups.py): "port" for
    # PortRules; "device" for a device-scope rule whose findings depend on the device's settings only, never
    # on names, links or other devices; None: checked on every device as it is (names, links, the fabric).
    group: ClassVar[Literal["port", "device"] | None] = None
    # A device- or port-scope rule that reads more than its device (other devices, what the topology adds to a
    # device): never checked by a worker process that holds only some devices (losslessd.fabric). "topology": it
    # reads no more than what a topology file adds to the device (its LLDP and routing files' issues): a lint
    # without a topology file has it checked by the workers.
    needs_fabric: ClassVar[bool | Literal["topology"]] = False
    # A fabric rule with nothing to check but under a topology file's routing (the path engine: cables, routes, the
    # hop-by-hop walk over every cabled device's ports): without one the workers send no facts for it
    # (losslessd.fabric; with one they send what paths/view.py makes, not the ports).
    topology_only: ClassVar[bool] = False
    # Rules whose device_facts are the same facts (the path rules') name them alike: a worker works them out once.
    facts_key: ClassVar[str | None] = None
    # A device- or port-scope rule that looks only at devices of these kinds (None: any): the engine skips the rest.
    # A fabric rule's: the kinds of devices it reads (what a run checked, engine.Coverage; the engine runs it once).
    kinds: ClassVar[frozenset[DeviceKind] | None] = None
    # The selection rules (lint.engine PortChoice.rule) of ports left out of the RoCE-facing set that this rule still
    # checks: a device where it finds such a port has been checked (engine.Coverage), though no port is RoCE-facing.
    checks_unselected: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.fixable = bool(cls.fix_sections)

    def check(self, ctx: Context) -> Iterator[Finding]:
        """Fabric-scope rules override this; others implement ``check_device``."""
        for device in ctx.fabric.devices.values():
            yield from self.check_device(ctx, device)

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:  # pragma: no cover - interface
        raise NotImplementedError

    def device_facts(self, ctx: Context, device: Device) -> Any:
        """For a fabric rule: what it reads of one device, as plain data (worked out where the device was parsed,
        so a parallel lint need not hold every device); None by default."""
        return None

    @classmethod
    def fix_sections_for(cls, finding: Finding) -> frozenset[str]:
        """The sections that resolve this finding: the one its data names (``section``, for rules whose
        findings need different ones; ``section=None``: no render resolves it), else all of the rule's;
        empty: this finding needs a human."""
        if "section" in finding.data:
            named = finding.data["section"]  # (one section, a list of them, or None)
            return frozenset(named if isinstance(named, list) else {named}) & cls.fix_sections
        return cls.fix_sections

    @classmethod
    def disruptive_for(cls, finding: Finding) -> bool:
        """Whether this finding's fix changes classification or PFC on a live port: the rule's, or the finding's own
        (``disruptive``: MAP002 where the CNPs must be remapped to another class)."""
        return cls.disruptive or bool(finding.data.get("disruptive"))

    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    def finding(self, message: str, *, device: Device | str | None = None, port: Port | str | None = None,
                source: Source | None = None, key: object = "", severity: Severity | None = None,
                devices: list[str] | None = None, **data: Any) -> Finding:
        dev_name = getattr(device, "name", device)
        port_name = getattr(port, "name", port)
        if source is None:
            source = getattr(port, "source", None) or getattr(device, "source", None)
        return Finding(code=self.code, name=self.name, severity=severity or self.severity, message=message,
                       device=dev_name, port=port_name, source=source, key=str(key),
                       devices=devices or ([dev_name] if dev_name else []), data=data)

    def unverified(self, message: str, **kwargs: Any) -> Finding:
        """This rule could not check something for lack of data: an info finding, never an error."""
        f = self.finding(message, severity=Severity.info, **kwargs)
        f.unverified = True
        return f


class PortRule(Rule):
    """A rule checked on each RoCE-facing port (per the policy) of one kind of device.

    What it finds on a port depends on that port's settings and its device's, never on the port's name (but
    in messages) or on other devices: the engine checks one port of each set of ports configured alike, and
    every port of the set only where that one has findings (lint/groups.py)."""

    scope = "port"
    group = "port"
    device_kind: ClassVar[DeviceKind | None] = DeviceKind.switch  # None: switches and hosts
    # True for rules about what a lossless port needs (ECN, buffers, watchdog): on a port whose PFC state
    # the input does not show (PFC001 says so), their findings cannot read as certain and become unverified.
    depends_on_pfc: ClassVar[bool] = False
    # True for rules about what only a port with PFC on its lossless priorities needs (PFC itself, PG headroom, the
    # watchdog, where pauses land): on a port whose PFC state is its device's lossy mode (Port.lossy_mode) they stay
    # silent, and PFC004 says once for the device that it is not lossless. None: as depends_on_pfc.
    needs_pfc: ClassVar[bool | None] = None
    # True for rules about what a lossless class lacks or needs (PFC, its map, headroom, ECN on its queue, the
    # watchdog): on a switch that configures no lossless setting on any port (engine.no_lossless) they stay silent,
    # and PFC006 says it once for the switch. None: as needs_pfc. Rules about settings that are there (the CNP queue,
    # link pause, ECN thresholds written) keep reporting; trust (MAP003) only decides which class RoCE reaches, so it
    # is one of the silent ones.
    needs_lossless: ClassVar[bool | None] = None
    # The device rules that say those two cases once (lossy mode; no lossless setting): a rule stays silent for them
    # only where they run (Context.selected).
    lossy_mode_rule: ClassVar[str] = "PFC004"
    # True for a rule whose "could not verify" infos ask whether RoCE reaches a lossless class (MAP001): on a port of
    # a lossy-mode switch PFC004 has answered that once for the switch (no class is lossless), so they stay silent
    # there rather than once a port; its errors (a map written in the config, which lossless mode keeps) are said.
    doubt_moot_when_lossy: ClassVar[bool] = False
    no_lossless_rule: ClassVar[str] = "PFC006"

    def applies(self, ctx: Context, device: Device) -> bool:
        """Whether this rule checks the ports of ``device`` at all (its kind, the policy)."""
        if self.device_kind is None:
            return device.kind in (DeviceKind.switch, DeviceKind.host)
        return device.kind == self.device_kind

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        if not self.applies(ctx, device):
            return
        for port in ctx.roce_ports(device):
            yield from self.port_findings(ctx, device, port)

    def port_findings(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        """What this rule finds on one RoCE-facing port of a device it applies to."""
        cover = self._cover(ctx, device, port)
        if cover is not None and ctx.selected(cover):
            # The device rule's, once for the device; where it does not run (--select, --ignore) the rule says its
            # own, never a clean run for what none said
            if cover == self.lossy_mode_rule:
                yield from self._lossy_mode_port(ctx, device, port)
        elif self.depends_on_pfc and port.pfc_enabled is None:
            yield from self._doubtful_port(ctx, device, port)
        else:
            yield from self.check_port(ctx, device, port)

    def _cover(self, ctx: Context, device: Device, port: Port) -> str | None:
        """The device rule that says once for the device what this rule would find on ``port``, if any: PFC004 on a
        lossy-mode port, PFC006 on a switch without any lossless setting (a port whose PFC is unknown keeps its own,
        unverified findings)."""
        if port.lossy_mode:
            return self.lossy_mode_rule
        if (device.kind == DeviceKind.switch and port.pfc_enabled is not None and self._subsumed()
                and ctx.no_lossless(device) is not None):
            return self.no_lossless_rule
        return None

    @classmethod
    def _subsumed(cls) -> bool:
        """Whether PFC006 says what this rule would find on a switch without any lossless setting (needs_lossless)."""
        if cls.needs_lossless is not None:
            return cls.needs_lossless
        return cls.depends_on_pfc if cls.needs_pfc is None else cls.needs_pfc

    def _lossy_mode_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        """A port whose PFC state is its device's lossy mode's: nothing from a rule about what only PFC needs, and
        no finding that rests on the mode's own line (its default maps, ECN, scheduling, which lossless mode
        replaces): PFC004 says once for the device that it is not lossless."""
        if self.depends_on_pfc if self.needs_pfc is None else self.needs_pfc:
            return
        mode = device.lossy_mode_source
        for f in self.check_port(ctx, device, port):
            if (mode is None or f.source != mode) and not (f.unverified and self.doubt_moot_when_lossy):
                yield f

    def _doubtful_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        """The port's findings when its PFC state is unknown: infos as they are, the rest as one unverified info."""
        doubts: list[Finding] = []
        for f in self.check_port(ctx, device, port):
            if f.severity == Severity.info:
                yield f
            else:
                doubts.append(f)
        if doubts:
            yield self.unverified(f"the port's PFC state is not in the input, so whether it must be lossless is "
                                  f"unknown; if it must: {'; '.join(f.message for f in doubts)}", device=device,
                                  port=port, source=doubts[0].source)

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError


def doubtful(finding: Finding, why: str) -> Finding:
    """An error or warning that rests on a fact the input does not show, turned into an unverified info (its key
    cleared, as every unverified finding's: a baseline that accepts it must not hide the error once it is known)."""
    if finding.severity == Severity.info:
        return finding
    finding.severity = Severity.info
    finding.unverified = True
    finding.key = ""
    finding.message = f"{finding.message} (not certain: {why})"
    return finding


def register(cls: type[Rule]) -> type[Rule]:
    letters, digits = cls.code[:3], cls.code[3:]  # (three capitals and three digits 0-9, no pattern)
    if not (len(cls.code) == 6 and letters.isascii() and letters.isalpha() and letters.isupper()
            and is_digits(digits)):
        raise ValueError(f"bad rule code {cls.code!r}")
    if cls.code in _REGISTRY:
        raise ValueError(f"duplicate rule code {cls.code}")
    _REGISTRY[cls.code] = cls
    return cls


def all_rules() -> dict[str, type[Rule]]:
    """Every rule, every family imported; sorted by code."""
    from .. import rules

    # (a family is any module the import system loads: xyz.py, or xyz.pyc where an install ships compiled modules
    # alone; not an editor's lock or backup file, `.#xyz.py`, whose name no module has)
    suffixes = tuple(importlib.machinery.all_suffixes())
    names = {name.partition(".")[0] for name in os.listdir(rules.__path__[0]) if name.endswith(suffixes)}
    _import_families(name for name in names if name.isidentifier() and name[0] != "_")
    return dict(sorted(_REGISTRY.items()))


def rules_of(codes: Iterable[str]) -> dict[str, type[Rule]]:
    """The rules of these codes, sorted by code, importing only their families."""
    codes = sorted(set(codes))
    _import_families({code[:3].lower() for code in codes})
    return {code: _REGISTRY[code] for code in codes}


def _import_families(families: Iterable[str]) -> None:
    """Family XYZ's rules are registered by losslessd/rules/xyz.py; SYS900 (the engine's crash rule) by
    lint/internal.py, always imported."""
    from . import internal  # noqa: F401

    for family in sorted(families):
        importlib.import_module(f"losslessd.rules.{family}")


@functools.cache  # (`pull` looks up each device's issue, an API caller selects for each lint: 0.6 ms a reading)
def catalogue() -> dict[str, str]:
    """Every rule's name by code, from the rule index (lint/index.py: no family imported) when it is the sources',
    else from the rules themselves; read once a process (its rules are those it imports)."""
    from .index import listing

    return dict(line.split()[:2] for line in listing())


def lookup(token: str) -> type[Rule] | None:
    names = catalogue()
    token = ALIASES.get(token, token)
    code = token.upper() if token.upper() in names else next((c for c, n in names.items() if n == token), None)
    return None if code is None else rules_of([code]).get(code)


def _matches(token: str, rules: dict[str, str]) -> set[str]:
    """The codes ``token`` names among ``rules`` (each code's name)."""
    token = ALIASES.get(token.strip(), token.strip())
    if token.upper() == "ALL":
        return set(rules)
    upper = token.upper()
    hit = {code for code in rules if code.startswith(upper)} if re.fullmatch(r"[A-Z]{3}\d{0,3}", upper) else set()
    hit |= {code for code, name in rules.items() if name == token}
    return hit


def select(select: Iterable[str] | None = None, ignore: Iterable[str] | None = None) -> list[type[Rule]]:
    """Rules chosen by --select (default all) minus --ignore. An unknown selector is an error, and so is a --select
    given empty (`--select ""`, `--select ,`): an unset variable in a unit or CI line (`--select "$RULES"`) must not
    widen the run to every rule without a word; leaving the option out selects them all. (An empty --ignore ignores
    nothing, which hides no finding.)"""
    # (every family is imported for a run of every rule: the catalogue would only add its reading)
    rules = catalogue() if [*_split(select), *_split(ignore)] else {code: r.name for code, r in all_rules().items()}
    if select is not None and not list(_split(select)):
        given = " ".join(repr(t) for t in select) or "nothing"
        raise InputError(f"--select is empty ({given} given): name rules by code, prefix or name (`--select PFC,ECN`), "
                         "or leave --select out to run every rule")
    chosen: set[str] = set()
    for label, tokens, into in (("--select", select, True), ("--ignore", ignore, False)):
        for token in _split(tokens):
            hit = _matches(token, rules)
            if not hit:
                raise InputError(f"{label} {quoted(token)} matches no rule code, prefix or name; "
                                 f"run `losslessd rules` for the list")
            if into:
                chosen |= hit
    if not list(_split(select)):
        chosen = set(rules)
    for token in _split(ignore):
        chosen -= _matches(token, rules)
    if not chosen:  # a run of no rule would read as clean
        raise InputError(f"the rule selection ({' '.join(_given(select, ignore))}) leaves no rule to run; run "
                         "`losslessd rules` for the list")
    return list(rules_of(chosen).values())


def _given(select: Iterable[str] | None, ignore: Iterable[str] | None) -> list[str]:
    """The selection as given: '--select PFC --ignore PFC'."""
    return [f"{label} {','.join(_split(tokens))}" for label, tokens in (("--select", select), ("--ignore", ignore))
            if list(_split(tokens))]


def _split(tokens: Iterable[str] | None) -> Iterator[str]:
    for t in tokens or ():
        for part in t.split(","):
            if part.strip():
                yield part.strip()
