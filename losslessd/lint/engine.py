"""Run selected rules over a fabric under a policy."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import field
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, internal_error_message
from ..model import Device, DeviceKind, Fabric, Port, Source, suspended
from ..parse import INTERNAL_ERROR
from ..printable import shown_path
from ..records import record
from ..tuples import NamedTuple
from ..userre import compile_linear
from .finding import Finding, Severity, few
from .registry import PortRule, Rule, select

if TYPE_CHECKING:  # pydantic, for annotations only: `losslessd rules` does not need it
    from ..policy import Policy
    from .groups import Keys

T = TypeVar("T")


class PortChoice(NamedTuple):
    """Whether one port was selected as RoCE-facing (must be lossless), by which policy rule and why (a tuple:
    one per port of a fabric, made and sent between processes cheaply)."""

    port: str
    selected: bool
    rule: str  # what decided: host-nic, lossy-by-design, admin-down, roce_ports.select, roce_ports.name_regex, ...
    reason: str
    # False: a selected switch port whose input shows neither its PFC state nor a QoS setting (roce_ports.select: all
    # on a partial dump): nothing of it can be verified. Kept here so the run's coverage needs no rule to say so.
    shown: bool = True

    def as_dict(self) -> dict:
        return {"port": self.port, "selected": self.selected, "rule": self.rule, "reason": self.reason}


class NoLossless(NamedTuple):
    """A switch that configures no lossless setting on any port (no_lossless): how many of its ports show their QoS
    settings, and what none of them has, in words."""

    ports: int
    why: str


# What a switch that configures nothing lossless lacks (no_lossless), for messages.
NO_LOSSLESS_WHY = ("PFC is on no priority of any port, no priority group has lossless headroom (xoff), no queue marks "
                   "ECN, no port sends link-level pause and no traffic class is defined lossless")


def no_lossless(device: Device) -> NoLossless | None:
    """Whether ``device`` is a switch whose input shows its ports' QoS settings and configures nothing lossless on any
    of them: PFC on no priority of any port (every port that shows a QoS or PFC setting shows PFC off: an unknown PFC
    state is not "off") and no PFC line written on any (pfc_written: a PFC statement without effect is PFC001's, per
    port at that line; one that turns PFC off is not such a statement), no PG bound to a profile with xoff headroom or
    headroom sized at run time, no queue whose ECN
    marking is on or not known to be off, no 802.3x link pause on, no traffic class the config defines lossless
    (Junos `no-loss`, NX-OS no-drop) or gives a PFC priority (Junos `pfc-priority`). Not a switch-wide lossy mode
    (PFC004's) nor ports lossy by design (never selected). DSCP and priority maps do not count either way: every QoS
    configuration classifies (a WAN router's DSCP and EXP classifiers; SONiC's shared AZURE map on a lossy SKU), so a
    map says "QoS", not "lossless". None: not such a switch. Independent of the policy: what the policy calls lossless
    is not what is asked."""
    if device.kind != DeviceKind.switch or device.lossy_mode is not None:
        return None
    if any(fc.no_loss or fc.pfc_priority is not None for fc in device.forwarding_classes or ()):
        return None  # (a class written with a PFC priority: lossless intent, PFC001 points at what voids it)
    profiles = device.buffer_profiles
    shown = 0
    for port in device.ports.values():
        if port.pfc_enabled or pfc_written(port):
            return None  # (PFC written, with or without effect: PFC001 per port points at the line)
        if port.lossy_by_design:
            continue
        if port.qos_configured or port.pfc_enabled is not None:
            if port.pfc_enabled is None:
                return None  # (not known off: PFC001 says it could not be checked)
            shown += 1
        pause = port.link_pause
        if pause is not None and (pause.rx or pause.tx):
            return None
        for name, runtime in port.pg_profiles().values():
            profile = profiles.get(name) if name else None
            if runtime or (profile is not None and (profile.xoff_bytes or profile.headroom_computed_at_runtime)):
                return None
        for queue in port.queues.values():
            if queue.ecn is not None and queue.ecn.ecn_enabled is not False:
                return None
    return NoLossless(shown, NO_LOSSLESS_WHY) if shown else None


def pfc_written(port: Port) -> bool:
    """Whether a line of the input about PFC decided the port's PFC state (Port.pfc_source): a PFC statement, with or
    without effect (NX-OS `priority-flow-control mode on` with no no-drop class, a Junos congestion-notification-profile
    pausing a class without `no-loss`, Onyx `roce lossy` or port mode without the switch-wide enable, SONiC
    `pfc_enable`, even empty). Not where the reader names the port itself or its QoS map entry for want of such a line
    (a SONiC PORT_QOS_MAP entry without `pfc_enable`, a Dell OS9/OS10 interface without a dcb-map or PFC mode) or
    none (a Junos port without a congestion-notification-profile, EOS without PFC lines): the platform's default. Nor
    where the line turns PFC off in so many words (Port.pfc_off_written: NX-OS `priority-flow-control mode off`, SONiC
    `pfc_enable: ""`): an explicit off is no lossless configuration, so a switch whose PFC lines all say off is
    PFC006's."""
    src = port.pfc_source
    return src is not None and src != port.source and src != port.map_source and not port.pfc_off_written


def _crash_rule():
    from .internal import InternalError

    return InternalError()


class Context:
    """What rules see: the fabric, the policy and the policy's idea of RoCE-facing ports.

    Lives for one run, so the facts several rules derive from one object are worked out once. ``local``: what
    worker processes already worked out per device (losslessd.fabric, parallel lint)."""

    def __init__(self, fabric: Fabric, policy: Policy, local: LocalResults | None = None,
                 codes: frozenset[str] | None = None):
        self.fabric = fabric
        self.policy = policy
        self.local = local
        self.codes = codes  # the codes of the rules run (None: every rule), for selected()
        rp = policy.roce_ports
        self._name_re = compile_linear(rp.name_regex) if rp.name_regex else None  # (checked when the policy loaded)
        self._desc_re = compile_linear(rp.description_regex) if rp.description_regex else None
        why = ("the port has PFC, QoS-map or trust settings" if rp.select == "qos-configured"
               else "every admin-up port is selected")
        self._selected_why = f"roce_ports.select is {rp.select}: {why}"  # one string for every port (and its trip)
        self._memo: dict[tuple, Any] = {}
        self._alike: dict[Any, Any] = {}
        self._keys: Keys | None = None
        # id(device) -> the first device of the fabric configured alike (its device key, lint/groups.py), once the
        # grouper has sorted the devices into classes (_Grouper.classes); see first_alike
        self._first: dict[int, Device] = {}
        self._of_kinds: dict[frozenset[DeviceKind], list[Device]] = {}
        # rules that raised (SYS900): (device or None, rule code, message), in the order they raised
        self.crashes: list[tuple[Device | None, str, str]] = []

    @property
    def lossless(self) -> list[int]:
        return self.policy.lossless.priorities

    def memo(self, fn: Callable[..., T], *objs: Any) -> T:
        """``fn(ctx, *objs)``, worked out once per run for these model objects (the fabric keeps
        them alive, so their ids stay theirs): what several rules or ports derive from one object."""
        key = (fn, *map(id, objs))
        if key not in self._memo:
            self._memo[key] = fn(self, *objs)
        return self._memo[key]

    def alike(self, value: T, key: Any) -> T:
        """The first value given with this (hashable) key in this run, else ``value``: facts that thousands of
        devices built alike share are one object, which a worker sends once (pickle refers back to what it has
        sent) and a fabric rule can look at once."""
        return self._alike.setdefault(key, value)

    @property
    def keys(self) -> Keys:
        """The run's keys of ports and devices configured alike (lint/groups.py)."""
        if self._keys is None:
            from .groups import Keys

            self._keys = Keys(compiled=self.local is not None or _ports_over(self.fabric, KEY_COMPILE_PORTS))
        return self._keys

    def first_alike(self, device: Device) -> Device:
        """The first device of the fabric configured alike (the same device key: settings, and per port in order its
        key and selection), once the grouper has sorted them (else, and for that first one, the device itself): what
        is worked out of the device key's parts alone is the same for both, where their port names are too."""
        return self._first.get(id(device), device)

    def port_key(self, port: Port) -> int:
        """Equal for ports whose settings are equal (everything but names and sources): Keys.port."""
        return self.keys.port(port)

    def roce_ports(self, device: Device) -> list[Port]:
        """Ports that must be lossless: every NIC port; switch ports chosen by policy.roce_ports."""
        return self.memo(Context._roce_ports, device)

    def _roce_ports(self, device: Device) -> list[Port]:
        chosen = {c.port for c in self.selection(device) if c.selected}
        return [port for port in device.ports.values() if port.name in chosen]

    def selection(self, device: Device) -> list[PortChoice]:
        """Every port of ``device``, in or out of the RoCE-facing set, with the rule that decided."""
        if self.local is not None:  # (what the worker sent: kept there, asked for per device of a fleet)
            return self.local.selection(device)
        return self.memo(Context._selection, device)

    def _selection(self, device: Device) -> list[PortChoice]:
        ports = device.ports.values()
        if device.kind == DeviceKind.host:  # (each of a fleet's NIC ports: one check a host, not a port)
            return [_choice((port.name, True, "host-nic", _HOST_NIC, True)) for port in ports]
        return [self._choose(device, port) for port in ports]

    def device_facts(self, rule: Rule, device: Device) -> Any:
        """``rule.device_facts(ctx, device)``: what a fabric rule reads of one device (in a parallel lint, worked out
        by the worker process that parsed the device)."""
        if self.local is not None:
            return self.local.facts(rule.facts_key or rule.code, device)
        return rule.device_facts(self, device)

    def selected(self, code: str) -> bool:
        """Whether the rule ``code`` runs (--select/--ignore): a rule whose findings another subsumes stays silent
        only where that one runs and says it instead."""
        return self.codes is None or code in self.codes

    def of_kinds(self, kinds: frozenset[DeviceKind] | None) -> Collection[Device]:
        """The fabric's devices of these kinds (None: every kind), in fabric order (picked once a run for each set of
        kinds: the seven IBS rules read a fleet's few subnet managers, NIC007 its hosts)."""
        if kinds is None:
            return self.fabric.devices.values()
        found = self._of_kinds.get(kinds)
        if found is None:
            found = self._of_kinds[kinds] = [d for d in self.fabric.devices.values() if d.kind in kinds]
        return found

    def no_lossless(self, device: Device) -> NoLossless | None:
        """no_lossless(device), worked out once per run."""
        return self.memo(_no_lossless, device)

    def _choose(self, device: Device, port: Port) -> PortChoice:
        """A switch port's choice (a host's: _selection)."""
        rp = self.policy.roce_ports
        if port.lossy_by_design:
            return PortChoice(port.name, False, "lossy-by-design", port.lossy_by_design)
        if port.admin_up is False:
            return PortChoice(port.name, False, "admin-down", "the port is administratively down")
        if suspended(device, port):  # (PFC007 says why)
            return PortChoice(port.name, False, SUSPENDED_RULE, f"the switch ({device.hardware}) suspends the port "
                              f"from its aggregate {port.bundle} (a setting differs from the aggregate's): it carries "
                              "no traffic")
        if rp.select == "qos-configured" and not port.qos_configured:
            return PortChoice(port.name, False, "roce_ports.select", "roce_ports.select is qos-configured and the "
                              "port has no PFC, QoS-map or trust setting")
        if self._name_re and not self._name_re.search(port.name):
            return PortChoice(port.name, False, "roce_ports.name_regex", f"the name does not match {rp.name_regex!r}")
        if self._desc_re and not self._desc_re.search(port.description or ""):
            return PortChoice(port.name, False, "roce_ports.description_regex",
                              f"the description {port.description or ''!r} does not match {rp.description_regex!r}")
        if rp.devices_without_lossless == "skip" and self.no_lossless(device) is not None:
            return PortChoice(port.name, False, SKIP_RULE, "the switch configures no lossless setting on any port "
                              "and roce_ports.devices_without_lossless is skip: it carries no RoCE")
        return _choice((port.name, True, "roce_ports.select", self._selected_why,
                        port.pfc_enabled is not None or port.qos_configured))


# PortChoice(...) without its __new__ in Python (a choice per port of a fleet): every field given, in order.
_choice = partial(tuple.__new__, PortChoice)
_HOST_NIC = "every NIC port of a host is RoCE-facing"
# The selection rule that leaves out every port of a switch without lossless configuration (PortChoice.rule).
SKIP_RULE = "roce_ports.devices_without_lossless"
# The rule that leaves out a member the switch suspends from its aggregate (PFC007 names it and what to change).
SUSPENDED_RULE = "suspended"


def _no_lossless(ctx: Context, device: Device) -> NoLossless | None:
    return no_lossless(device)


def skipped_by_policy(names: Iterable[str], selection: Callable[[str], list[PortChoice] | None],
                      policy: str) -> tuple[list[str], str]:
    """The devices among ``names`` whose every port the policy's devices_without_lossless: skip left out, as the
    selection says (Context._choose: a name_regex or an admin-down port decides first, and then it is not the key),
    and the sentence that says so, for lint's, fix's and render's error ("" when none)."""
    skipped = [name for name in names if (sel := selection(name)) and all(c.rule == SKIP_RULE for c in sel)]
    one = len(skipped) == 1
    return skipped, (f"{few(skipped, shown=_SHOWN)} configure{'s' if one else ''} no lossless setting on any port "
                     f"and policy {policy} sets {SKIP_RULE}: skip, so {'it carries' if one else 'they carry'} no "
                     f"RoCE and none of {'its' if one else 'their'} ports is selected" if skipped else "")


def nothing_shown(choices: list[PortChoice]) -> bool:
    """Ports are selected as RoCE-facing, and none of them shows anything to verify (PortChoice.shown)."""
    selected = [c for c in choices if c.selected]
    return bool(selected) and not any(c.shown for c in selected)


def describe_selection(choices: list[PortChoice]) -> str:
    """'12 of 98 ports selected as RoCE-facing (roce_ports.select); out: 84 by roce_ports.select, 2 admin-down'."""
    chosen = [c for c in choices if c.selected]
    rules_in = sorted({c.rule for c in chosen})
    out: dict[str, int] = {}
    for c in choices:
        if not c.selected:
            out[c.rule] = out.get(c.rule, 0) + 1
    text = f"{len(chosen)} of {len(choices)} port{'s' if len(choices) != 1 else ''} selected as RoCE-facing"
    if rules_in:
        text += f" (by {', '.join(rules_in)})"
    if out:
        text += "; out: " + ", ".join(f"{n} by {rule}" for rule, n in sorted(out.items()))
    return text


@record
class LintResult:
    """One lint run: its findings, the rules and policy it ran and the fabric it read."""

    findings: list[Finding]
    rules: list[type[Rule]]
    policy: Policy
    fabric: Fabric
    baseline_suppressed: int = 0
    inputs: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)  # rule and parser bugs (SYS900), and fix's
    # device -> every port in or out of the RoCE-facing set, with why (lint --explain-selection, JSON report)
    selection: dict[str, list[PortChoice]] = field(default_factory=dict)
    # devices whose RoCE-facing ports show nothing to verify (a SEL001 finding with ports selected)
    unverified: set[str] = field(default_factory=set)
    _coverage: Coverage | None = field(default=None, init=False, repr=False, compare=False)  # (the property's)

    @property
    def crashed(self) -> bool:
        """A rule or parser failed on a bug: the run's conclusions are incomplete (exit 3, not 1)."""
        return bool(self.internal_errors)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def fails(self, fail_on: Severity) -> bool:
        return any(f.severity.rank >= fail_on.rank for f in self.findings)

    @property
    def coverage(self) -> Coverage:
        """What the run actually checked (worked out once, from the selection the run already made)."""
        if self._coverage is None:
            self._coverage = Coverage.of(self)
        return self._coverage

    def outcome(self, failed: bool) -> Outcome:
        """The run's verdict, the one place every command that lints decides it: 3 when a rule or parser crashed
        (never 1: a crash is not a finding), 2 when no device could be read or nothing was checked on any device
        read (never 0: nothing checked is not clean), else 1 on ``failed`` (findings at --fail-on, fixes) or 0."""
        if self.crashed:
            return Outcome(EXIT_INTERNAL, [f"internal error: {m}" for m in self.internal_errors])
        if not self.fabric.devices:
            lines = [f"error: nothing readable: no device could be read from "
                     f"{', '.join(map(shown_path, self.inputs))}" if self.inputs
                     else "error: nothing readable: the fabric given holds no device"]
            # One line for each reason, naming every file it stands for once (as the text report folds them): 100,000
            # empty files gave the first 5 files' lines and "... and 99995 more", the rest named nowhere here.
            reasons: dict[str, list[Source | None]] = {}
            for issue in self.fabric.issues:
                reasons.setdefault(issue.message, []).append(issue.source)
            for message, sources in list(reasons.items())[:_SHOWN]:
                places = list(dict.fromkeys(src.describe(shown_path(src.file) if src.file else None)
                                            for src in sources if src))
                files = len({src.file for src in sources if src})
                where = f"{files} files: {', '.join(places)}" if files > 1 else ", ".join(places)
                lines.append(f"error: {where + ': ' if where else ''}{message}")
            if len(reasons) > _SHOWN:
                hidden = len(reasons) - _SHOWN
                lines.append(f"... and {hidden} more reason{'s' if hidden > 1 else ''}")
            return Outcome(EXIT_INPUT, lines)
        cov = self.coverage
        if not cov.checked:
            return Outcome(EXIT_INPUT, [f"error: nothing checked: {cov.why_nothing(self)}"])
        # An input that gave no device is a SYS001 error, so it fails any --fail-on; where --select, --ignore or a
        # baseline left that finding out of the report, the run read 0, clean, with the input never checked (a
        # baseline taken while a file was empty accepted every later reason it could not be read). Said on stderr
        # and, as a run that checked nothing is, in SARIF and GitHub output.
        if cov.unread:  # (else nothing to look for: no set of every device's name made again)
            shown = {(f.code, f.key) for f in self.findings if f.device is None}
            unread = list(dict.fromkeys(i.source.describe() if i.source else i.message for i in unread_issues(self)
                                        if (i.code, i.source.describe() if i.source else "") not in shown))
            if unread:
                return Outcome(EXIT_FINDINGS, [
                    f"error: {few(unread, shown=_SHOWN)}: not read ({len(unread)} input"
                    f"{'s' if len(unread) != 1 else ''} unread; the SYS001 finding saying why is left out of the "
                    "report by --select, --ignore or --baseline): an input not read is not clean"])
        return Outcome(EXIT_FINDINGS if failed else EXIT_OK, [])


_SHOWN = 5  # input errors repeated on stderr when nothing was readable
_SELECTED = itemgetter(1)  # PortChoice.selected, read fast: a large fabric has a choice per port
_ETHERNET = frozenset({DeviceKind.switch, DeviceKind.host})
# Rule families that say what was not read (SYS) or not selected (SEL): they check no lossless setting themselves.
_META_FAMILIES = ("SEL", "SYS")


class Outcome(NamedTuple):
    """A lint run's exit code and the lines that say why on stderr (for 2 and 3), each an operator reads after
    "losslessd: " (they name input files: a command writes out their control characters)."""

    code: int
    lines: list[str]


def unread_issues(result: LintResult, names: set[str] | None = None) -> list:
    """The fabric's issues of inputs that gave no device (``names``: the devices read, default the fabric's)."""
    names = set(result.fabric.devices) if names is None else names
    return [i for i in result.fabric.issues if i.code != INTERNAL_ERROR
            and (i.source is None or i.source.device is None or i.source.device not in names)]


def checks_kinds(rule: type[Rule]) -> frozenset[DeviceKind] | None:
    """The kinds of devices whose lossless settings ``rule`` checks (None: any kind); empty for the SEL and SYS
    rules, which say what was not selected or read rather than check a setting."""
    if rule.code[:3] in _META_FAMILIES:
        return frozenset()
    if rule.kinds is not None:
        return rule.kinds
    if issubclass(rule, PortRule) and rule.device_kind is not None:
        return frozenset({rule.device_kind})
    if issubclass(rule, PortRule) or rule.scope in ("link", "fabric"):  # an Ethernet fabric's cables, paths, PFC
        return _ETHERNET  # (a fabric rule about subnet managers says so: IBS003's kinds)
    return None


@record(frozen=True)
class Coverage:
    """What a lint run checked: a device is checked when a selected rule checks devices of its kind and, for a
    switch or host, at least one of its ports is RoCE-facing (what the port rules check) and, for a switch, the
    input shows the PFC state or a QoS setting of one (else SEL001 says nothing could be verified); a subnet
    manager's settings are its opensm.conf's. Findings alone cannot tell "clean" from "nothing looked at"."""

    devices: int  # devices read
    checked: int  # devices with something checked
    ports: int  # RoCE-facing ports of the checked switches and hosts
    unchecked: tuple[str, ...]  # devices read with nothing checked, in fabric order
    unread: int  # inputs that gave no device (SYS001: unreadable or unrecognized; a device a pull did not collect)
    kinds: frozenset[DeviceKind] | None  # what the selected rules check (None: every kind)

    @classmethod
    def of(cls, result: LintResult) -> Coverage:
        looks = [checks_kinds(rule) for rule in result.rules]
        kinds = None if any(k is None for k in looks) else frozenset().union(*(k for k in looks if k is not None))
        # (a member the switch suspends from its aggregate is out of the RoCE-facing set, and PFC007 checks it: an
        # aggregate whose every member is suspended is down, a verdict on the device, not "nothing checked")
        unselected = frozenset().union(*(rule.checks_unselected for rule in result.rules))
        checked = ports = 0
        unchecked: list[str] = []
        names = set()
        for device in result.fabric.devices.values():
            names.add(device.name)
            if kinds is not None and device.kind not in kinds:
                unchecked.append(device.name)
            elif device.kind == DeviceKind.subnet_manager:
                checked += 1
            else:
                choices = result.selection.get(device.name, ())
                selected = sum(map(_SELECTED, choices))  # (True counts 1)
                if (selected or unselected and any(c.rule in unselected for c in choices)) \
                        and device.name not in result.unverified:
                    checked += 1
                    ports += selected
                else:
                    unchecked.append(device.name)
        return cls(len(result.fabric.devices), checked, ports, tuple(unchecked), len(unread_issues(result, names)),
                   kinds)

    def why_nothing(self, result: LintResult) -> str:
        """Why no device of the run was checked (for the stderr line of exit 2)."""
        n = self.devices
        read = f"{n} device{'s' if n != 1 else ''} read ({few(self.unchecked, shown=_SHOWN)})"
        # the files too: `fix` prints no finding, so its stderr line is all that says where to look
        files = list(dict.fromkeys(d.source.file for name in self.unchecked[:_SHOWN]
                                   if (d := result.fabric.devices.get(name)) is not None and d.source is not None
                                   and d.source.file))
        read += f" from {', '.join(files)}" if files else ""
        present = {d.kind for d in result.fabric.devices.values()}
        codes = ", ".join(r.code for r in result.rules[:_SHOWN]) + (" ..." if len(result.rules) > _SHOWN else "")
        if self.kinds is not None and not self.kinds:
            return (f"{read}, and the selected rules ({codes}) check no setting (SEL and SYS rules say what was not "
                    "selected or read); widen --select or --ignore")
        if self.kinds is not None and not (self.kinds & present):
            return (f"{read}, and the selected rules ({codes}) check no device of "
                    f"{'this kind' if len(present) == 1 else 'these kinds'} "
                    f"({', '.join(sorted(k.value for k in present))}); widen --select or --ignore")
        skipped, said = skipped_by_policy(self.unchecked, result.selection.get, result.policy.name)
        if skipped:  # (lint, fix: a switch left out by the policy's own key, named, so no one reads it as a bug)
            some = len(skipped) < len(self.unchecked)
            return (f"{read}: {'of them, ' if some else ''}{said}"
                    + ("; the others have no RoCE-facing port whose settings the input shows (SEL001 or SYS002 says "
                       "why)" if some else "; lint or fix it with a policy without that key to make it lossless")
                    + ": a device with nothing checked is not clean")
        return (f"{read}, and none has a RoCE-facing port whose settings the input shows (the SEL001 or SYS002 "
                "finding on each says why; `--explain-selection` lists every port): a device with nothing checked is "
                "not clean")


# A run of at most this many ports keys them with key functions read field by field (lint/groups.py _read_function),
# not compiled: compiling them is about 12 M instructions, reading costs more per port keyed (examples/fabric's 17
# ports: 106.9 -> 95.0 M instructions of the run; one bench switch of 64 ports and 8 hosts: 63.2 -> 51.1 M; two and
# 16: 67.4 -> 58.5 M; by these, even near 340 ports: docs/lint-at-scale.md, "Session 43, part c").
KEY_COMPILE_PORTS = 128


def _ports_over(fabric: Fabric, n: int) -> bool:
    """Whether the fabric's devices have more than ``n`` ports (counted device by device, up to n)."""
    for device in fabric.devices.values():
        n -= len(device.ports)
        if n < 0:
            return True
    return False


def run(fabric: Fabric, policy: Policy, rules: Iterable[type[Rule]] | None = None,
        baseline: set[str] | None = None, *, grouping: bool = True, local: LocalResults | None = None,
        progress: Callable[[int, int, str], None] | None = None) -> LintResult:
    """Lint ``fabric`` under ``policy``. ``grouping``: check ports and devices configured alike once (see
    lint/groups.py); the findings are the same either way, in the same order. ``local``: the findings of the
    rules that read one device at a time, worked out by worker processes (losslessd.fabric).
    ``progress(done, total, code)`` before each rule, and once at the end."""
    rules = list(rules) if rules is not None else select()
    ctx = Context(fabric, policy, local, frozenset(r.code for r in rules))
    findings: list[Finding] = []
    # Bugs met (SYS900): parsers that failed, then rule by rule, each rule's on the devices in fabric order (as
    # the grouped, plain and parallel runs all give them: the same lines on stderr whichever ran).
    crashes = [i.message for i in fabric.issues if i.code == INTERNAL_ERROR]
    grouper = _Grouper(ctx) if grouping and local is None else None
    crashed: list[Device] = []
    if local is not None:
        # Device by device rather than rule by rule: the same list once sorted (findings of two rules never tie
        # on the sort key, and each rule's findings on a device keep their order).
        findings.extend(local.findings(fabric.devices.values()))
        crashed = local.crashed(fabric.devices.values())  # (few or none: asked rule by rule below)
    for n, rule_cls in enumerate(rules):
        if progress is not None:
            progress(n, len(rules), rule_cls.code)
        rule = rule_cls()
        if local is not None and rule.code in local.codes:
            crashes.extend(m for device in crashed for m in local.crashes(device, rule.code))
            continue
        mark = len(ctx.crashes)
        if rule.scope in ("device", "port") and grouper is not None and rule.group is not None:
            found = grouper.findings(rule)
            findings.extend(f for key in fabric.devices for f in found.get(key, ()))
        elif rule.scope in ("device", "port"):
            # (device_findings finds nothing on other kinds: thousands of devices skipped here)
            for device in ctx.of_kinds(rule.kinds):
                findings.extend(device_findings(ctx, rule, device))
        else:
            findings.extend(_guard(ctx, rule, lambda: list(rule.check(ctx))))
        if len(ctx.crashes) > mark:
            crashes.extend(_in_fabric_order(fabric, ctx.crashes[mark:]))
    if progress is not None:
        progress(len(rules), len(rules), "")
    suppressed = 0
    if baseline:
        kept = [f for f in findings if f.fingerprint not in baseline]
        suppressed = len(findings) - len(kept)
        findings = kept
    findings.sort(key=Finding.sort_key)
    for f in findings:  # sources found their line when read (DocRef): the findings' lines are looked up now
        if f.source is not None:
            f.source.line  # noqa: B018
    # (what a worker sent, read without Context.selection's call for each of a fleet's devices)
    select_one = ctx.selection if local is None else local.selection
    selection = {d.name: select_one(d) for d in fabric.devices.values() if d.kind != DeviceKind.subnet_manager}
    # switches whose selected ports show nothing to verify (roce_ports.select: all on a partial dump; SEL001 says so
    # on each when it runs): not checked, whether SEL001 was selected or not, whatever a baseline accepts (Coverage)
    shown: dict[int, bool] = {}  # id(choices) -> nothing_shown: devices built alike share one list (Context.alike)
    unverified = set()
    for name, choices in selection.items():
        nothing = shown.get(id(choices))
        if nothing is None:
            nothing = shown[id(choices)] = nothing_shown(choices)
        if nothing:
            unverified.add(name)
    return LintResult(findings=findings, rules=rules, policy=policy, fabric=fabric, baseline_suppressed=suppressed,
                      internal_errors=crashes, selection=selection, unverified=unverified)


def _in_fabric_order(fabric: Fabric, crashes: list[tuple[Device | None, str, str]]) -> list[str]:
    """The messages of one rule's crashes, the fabric's own first, then device by device in fabric order (a
    grouped run meets the devices class by class)."""
    order = {name: i for i, name in enumerate(fabric.devices)}
    return [m for _, _, m in sorted(crashes, key=lambda c: -1 if c[0] is None else order.get(c[0].name, len(order)))]


def is_local(rule: type[Rule], topology: bool = True) -> bool:
    """A rule that reads one device at a time (a worker process can check it alone): device or port scope and
    nothing of the fabric around the device (links, other devices, what the topology adds; ``topology``: the
    lint has a topology file)."""
    return rule.scope in ("device", "port") and (
        not rule.needs_fabric or (rule.needs_fabric == "topology" and not topology))


class LocalResults(Protocol):
    """Per device, what worker processes worked out: the local rules' findings, the selection, fabric rules' facts."""

    codes: set[str]

    def findings(self, devices: Iterable[Device]) -> list[Finding]:
        """The local rules' findings on these devices, device after device."""

    def selection(self, device: Device) -> list[PortChoice]: ...

    def facts(self, code: str, device: Device) -> Any: ...

    def crashed(self, devices: Iterable[Device]) -> list[Device]:
        """Those of these devices on which a local rule raised, in order."""

    def crashes(self, device: Device, code: str) -> list[str]: ...


def device_findings(ctx: Context, rule: Rule, device: Device) -> list[Finding]:
    """What a device- or port-scope rule finds on one device (a crash becomes a SYS900 finding); nothing on a
    device of a kind the rule does not look at (``Rule.kinds``), on every path: plain, grouped and parallel."""
    if rule.kinds is not None and device.kind not in rule.kinds:
        return []
    try:
        return list(rule.check_device(ctx, device))
    except Exception as exc:  # noqa: BLE001 - deliberate: one rule/device must not stop a run
        return _crashed(ctx, rule, exc, device)


class _Crashed(Exception):
    """A rule raised on a group's representative: the group is checked member by member, as without groups."""


class _Grouper:
    """Runs groupable rules once per device configuration and, inside a device, once per port configuration."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.keys = ctx.keys
        self._classes: list[list[str]] | None = None

    def classes(self) -> list[list[str]]:
        """Keys (in Fabric.devices) of devices configured alike (ports included), in fabric order."""
        if self._classes is None:
            by_key: dict[tuple, list[str]] = {}
            for name, device in self.ctx.fabric.devices.items():
                if device.kind == DeviceKind.subnet_manager:
                    by_key[("sm", name)] = [name]
                    continue
                by_key.setdefault(self.keys.device(device, self.ctx.selection(device)), []).append(name)
            self._classes = list(by_key.values())
            devices = self.ctx.fabric.devices
            first = self.ctx._first
            for members in self._classes:
                one = devices[members[0]]
                for name in members[1:]:
                    first[id(devices[name])] = one
        return self._classes

    def findings(self, rule: Rule) -> dict[str, list[Finding]]:
        """Per device (its key in Fabric.devices), what the rule finds there; the devices of a class whose first
        member has no finding are left out (nothing found: a fleet's 16,000 hosts alike are one class, and an empty
        list stored and read back per host and rule cost more than the rule's one check)."""
        devices = self.ctx.fabric.devices
        found: dict[str, list[Finding]] = {}
        for members in self.classes():
            first = self._device(rule, devices[members[0]])
            if not first:
                continue
            found[members[0]] = first
            for key in members[1:]:
                found[key] = self._device(rule, devices[key])
        return found

    def _device(self, rule: Rule, device: Device) -> list[Finding]:
        if rule.group != "port":
            return device_findings(self.ctx, rule, device)
        try:
            return self._ports(rule, device)
        except Exception:  # noqa: BLE001 - _Crashed, or rule.applies raised: the crash as the plain run reports it
            return device_findings(self.ctx, rule, device)

    def _ports(self, rule, device: Device) -> list[Finding]:
        ctx = self.ctx
        if not rule.applies(ctx, device):
            return []
        ports = ctx.roce_ports(device)
        by_key: dict[int, list[Port]] = {}
        for port in ports:
            by_key.setdefault(self.keys.port(port), []).append(port)
        found: dict[int, list[Finding]] = {}
        for members in by_key.values():
            first = found[id(members[0])] = self._port(rule, device, members[0])
            for port in members[1:]:
                found[id(port)] = self._port(rule, device, port) if first else []
        return [f for port in ports for f in found[id(port)]]

    def _port(self, rule, device: Device, port: Port) -> list[Finding]:
        try:
            return list(rule.port_findings(self.ctx, device, port))
        except Exception as exc:  # reported by the plain run of the device
            raise _Crashed from exc


def _guard(ctx: Context, rule: Rule, fn) -> list[Finding]:
    """A fabric rule's bug becomes a SYS900 finding (and a crash of the run); the other rules still run."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - deliberate: one rule must not stop a run
        return _crashed(ctx, rule, exc, None)


def _crashed(ctx: Context, rule: Rule, exc: Exception, device: Device | None) -> list[Finding]:
    """The SYS900 finding of a rule that raised on ``device`` (None: on the fabric), noted in ctx.crashes."""
    message = internal_error_message(f"rule {rule.code} ({rule.name}) failed", exc)
    ctx.crashes.append((device, rule.code, f"{device.name}: {message}" if device is not None else message))
    return [_crash_rule().finding(message, device=device.name if device is not None else None, key=rule.code)]
