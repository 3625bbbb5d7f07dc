"""Run selected rules over a fabric under a policy."""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..model import Device, DeviceKind, Fabric, Port
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
    for n, rule_cls in enumerate(rules):
        if progress is not None:
            progress(n, len(rules), rule_cls.code)
        rule = rule_cls()
        if rule.scope in ("device", "port"):
            for device in fabric.devices.values():
                findings.extend(_guard(rule, lambda: list(rule.check_device(ctx, device)), device.name))
        else:
            findings.extend(_guard(rule, lambda: list(rule.check(ctx)), None))
    if progress is not None:
        progress(len(rules), len(rules), "")
    suppressed = 0
    if baseline:
        kept = [f for f in findings if f.fingerprint not in baseline]
        suppressed = len(findings) - len(kept)
        findings = kept
    findings.sort(key=Finding.sort_key)
    _locate(fabric, findings)
    return LintResult(findings=findings, rules=rules, policy=policy, fabric=fabric, baseline_suppressed=suppressed)


def _locate(fabric: Fabric, findings: list[Finding]) -> None:
    """Reports show file:line; parsers of JSON leave lines to be looked up for the few sources that need one."""
    for f in findings:
        if f.source is not None and f.source.line is None and f.source.pointer:
            for name in f.devices:
                if name in fabric.devices:
                    fabric.devices[name].locate(f.source)


def _guard(rule: Rule, fn, device: str | None) -> list[Finding]:
    """A rule bug on one device becomes a finding; the rest of the fabric is still checked."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - deliberate: one rule/device must not stop a run
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return [_crash_rule().finding(f"rule {rule.code} ({rule.name}) failed: {type(exc).__name__}: {exc} "
                                 f"[{tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}]; please report this",
                                 device=device, key=rule.code)]
