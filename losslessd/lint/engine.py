"""Run selected rules over a fabric under a policy."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import internal_error_message
from ..model import Device, DeviceKind, Fabric, Port
from ..parse import INTERNAL_ERROR
from ..policy import Policy
from .finding import Finding, Severity
from .registry import Rule, select

T = TypeVar("T")


@dataclass(frozen=True)
class PortChoice:
    """Whether one port was selected as RoCE-facing (must be lossless), by which policy rule and why."""

    port: str
    selected: bool
    rule: str  # what decided: host-nic, lossy-by-design, admin-down, roce_ports.select, roce_ports.name_regex, ...
    reason: str

    def as_dict(self) -> dict:
        return {"port": self.port, "selected": self.selected, "rule": self.rule, "reason": self.reason}


def _crash_rule():
    from .internal import InternalError

    return InternalError()


class Context:
    """What rules see: the fabric, the policy and the policy's idea of RoCE-facing ports.

    Lives for one run, so the facts several rules derive from one object are worked out once."""

    def __init__(self, fabric: Fabric, policy: Policy):
        self.fabric = fabric
        self.policy = policy
        rp = policy.roce_ports
        self._name_re = re.compile(rp.name_regex) if rp.name_regex else None
        self._desc_re = re.compile(rp.description_regex) if rp.description_regex else None
        self._memo: dict[tuple, Any] = {}

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

    def roce_ports(self, device: Device) -> list[Port]:
        """Ports that must be lossless: every NIC port; switch ports chosen by policy.roce_ports."""
        return self.memo(Context._roce_ports, device)

    def _roce_ports(self, device: Device) -> list[Port]:
        chosen = {c.port for c in self.selection(device) if c.selected}
        return [port for port in device.ports.values() if port.name in chosen]

    def selection(self, device: Device) -> list[PortChoice]:
        """Every port of ``device``, in or out of the RoCE-facing set, with the rule that decided."""
        return self.memo(Context._selection, device)

    def _selection(self, device: Device) -> list[PortChoice]:
        return [self._choose(device, port) for port in device.ports.values()]

    def _choose(self, device: Device, port: Port) -> PortChoice:
        rp = self.policy.roce_ports
        if device.kind == DeviceKind.host:
            return PortChoice(port.name, True, "host-nic", "every NIC port of a host is RoCE-facing")
        if port.lossy_by_design:
            return PortChoice(port.name, False, "lossy-by-design", port.lossy_by_design)
        if port.admin_up is False:
            return PortChoice(port.name, False, "admin-down", "the port is administratively down")
        if rp.select == "qos-configured" and not port.qos_configured:
            return PortChoice(port.name, False, "roce_ports.select", "roce_ports.select is qos-configured and the "
                              "port has no PFC, QoS-map or trust setting")
        if self._name_re and not self._name_re.search(port.name):
            return PortChoice(port.name, False, "roce_ports.name_regex", f"the name does not match {rp.name_regex!r}")
        if self._desc_re and not self._desc_re.search(port.description or ""):
            return PortChoice(port.name, False, "roce_ports.description_regex",
                              f"the description {port.description or ''!r} does not match {rp.description_regex!r}")
        why = ("the port has PFC, QoS-map or trust settings" if rp.select == "qos-configured"
               else "every admin-up port is selected")
        return PortChoice(port.name, True, "roce_ports.select", f"roce_ports.select is {rp.select}: {why}")


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


@dataclass
class LintResult:
    findings: list[Finding]
    rules: list[type[Rule]]
    policy: Policy
    fabric: Fabric
    baseline_suppressed: int = 0
    inputs: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)  # rule and parser bugs (SYS900), whatever was selected
    # device -> every port in or out of the RoCE-facing set, with why (lint --explain-selection, JSON report)
    selection: dict[str, list[PortChoice]] = field(default_factory=dict)

    @property
    def crashed(self) -> bool:
        """A rule or parser failed on a bug: the run's conclusions are incomplete (exit 3, not 1)."""
        return bool(self.internal_errors)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def fails(self, fail_on: Severity) -> bool:
        return any(f.severity.rank >= fail_on.rank for f in self.findings)


def run(fabric: Fabric, policy: Policy, rules: Iterable[type[Rule]] | None = None,
        baseline: set[str] | None = None, progress: Callable[[int, int, str], None] | None = None) -> LintResult:
    """Run ``rules`` over ``fabric``; ``progress(done, total, code)`` before each rule."""
    rules = list(rules) if rules is not None else select()
    ctx = Context(fabric, policy)
    findings: list[Finding] = []
    crashes = [i.message for i in fabric.issues if i.code == INTERNAL_ERROR]  # parsers that failed on a bug
    for n, rule_cls in enumerate(rules):
        if progress is not None:
            progress(n, len(rules), rule_cls.code)
        rule = rule_cls()
        if rule.scope in ("device", "port"):
            for device in fabric.devices.values():
                findings.extend(_guard(rule, lambda: list(rule.check_device(ctx, device)), device.name, crashes))
        else:
            findings.extend(_guard(rule, lambda: list(rule.check(ctx)), None, crashes))
    if progress is not None:
        progress(len(rules), len(rules), "")
    suppressed = 0
    if baseline:
        kept = [f for f in findings if f.fingerprint not in baseline]
        suppressed = len(findings) - len(kept)
        findings = kept
    findings.sort(key=Finding.sort_key)
    _locate(fabric, findings)
    selection = {d.name: ctx.selection(d) for d in fabric.devices.values() if d.kind != DeviceKind.subnet_manager}
    return LintResult(findings=findings, rules=rules, policy=policy, fabric=fabric, baseline_suppressed=suppressed,
                      internal_errors=crashes, selection=selection)


def _locate(fabric: Fabric, findings: list[Finding]) -> None:
    """Reports show file:line; parsers of JSON leave lines to be looked up for the few sources that need one."""
    for f in findings:
        if f.source is not None and f.source.line is None and f.source.pointer:
            for name in f.devices:
                if name in fabric.devices:
                    fabric.devices[name].locate(f.source)


def _guard(rule: Rule, fn, device: str | None, crashes: list[str]) -> list[Finding]:
    """A rule bug on one device becomes a SYS900 finding (and a crash of the run); the rest of the fabric is
    still checked."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - deliberate: one rule/device must not stop a run
        message = internal_error_message(f"rule {rule.code} ({rule.name}) failed", exc)
        crashes.append(f"{device}: {message}" if device else message)
        return [_crash_rule().finding(message, device=device, key=rule.code)]
