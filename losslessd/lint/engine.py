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


def _crash_rule():
    from ..rules.sys import InternalError

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
        if device.kind == DeviceKind.host:
            return list(device.ports.values())
        out = []
        for port in device.ports.values():
            if self.policy.roce_ports.select == "qos-configured" and not port.qos_configured:
                continue
            if port.admin_up is False:
                continue
            if self._name_re and not self._name_re.search(port.name):
                continue
            if self._desc_re and not self._desc_re.search(port.description or ""):
                continue
            out.append(port)
        return out


@dataclass
class LintResult:
    findings: list[Finding]
    rules: list[type[Rule]]
    policy: Policy
    fabric: Fabric
    baseline_suppressed: int = 0
    inputs: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)  # rule and parser bugs (SYS900), whatever was selected

    @property
    def crashed(self) -> bool:
        """A rule or parser failed on a bug: the run's conclusions are incomplete (exit 3, not 1)."""
        return bool(self.internal_errors)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def fails(self, fail_on: Severity) -> bool:
        return any(f.severity.rank >= fail_on.rank for f in self.findings)


def run(fabric: Fabric, policy: Policy, rules: Iterable[type[Rule]] | None = None,
        baseline: set[str] | None = None) -> LintResult:
    rules = list(rules) if rules is not None else select()
    ctx = Context(fabric, policy)
    findings: list[Finding] = []
    crashes = [i.message for i in fabric.issues if i.code == INTERNAL_ERROR]  # parsers that failed on a bug
    for rule_cls in rules:
        rule = rule_cls()
        if rule.scope in ("device", "port"):
            for device in fabric.devices.values():
                findings.extend(_guard(rule, lambda: list(rule.check_device(ctx, device)), device.name, crashes))
        else:
            findings.extend(_guard(rule, lambda: list(rule.check(ctx)), None, crashes))
    suppressed = 0
    if baseline:
        kept = [f for f in findings if f.fingerprint not in baseline]
        suppressed = len(findings) - len(kept)
        findings = kept
    findings.sort(key=Finding.sort_key)
    _locate(fabric, findings)
    return LintResult(findings=findings, rules=rules, policy=policy, fabric=fabric, baseline_suppressed=suppressed,
                      internal_errors=crashes)


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
