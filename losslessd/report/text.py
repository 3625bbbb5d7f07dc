"""Human report: findings grouped by device, colour only when asked (the CLI asks on a TTY)."""

from __future__ import annotations

from itertools import groupby

from ..lint.finding import Finding, Severity

_COLOURS = {Severity.error: "\033[31m", Severity.warning: "\033[33m", Severity.info: "\033[36m"}
_RESET, _BOLD, _DIM = "\033[0m", "\033[1m", "\033[2m"


def render(result, *, color: bool = False) -> str:
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines: list[str] = []
    for device, group in groupby(result.findings, key=lambda f: f.device or "(fabric)"):
        items: list[Finding] = list(group)
        lines.append(paint(device, _BOLD))
        for f in items:
            where = f.port or "-"
            loc = f" {paint('[' + f.source.describe() + ']', _DIM)}" if f.source else ""
            sev = paint(f"{f.severity.value:<7}", _COLOURS[f.severity])
            lines.append(f"  {sev} {f.code} {where}: {f.message}{loc}")
        lines.append("")
    n_dev = len(result.fabric.devices)
    counts = ", ".join(f"{result.count(s)} {s.value}{'s' if result.count(s) != 1 else ''}"
                       for s in (Severity.error, Severity.warning, Severity.info))
    summary = f"{n_dev} device{'s' if n_dev != 1 else ''} checked against policy {result.policy.name}: {counts}"
    if result.baseline_suppressed:
        summary += f" ({result.baseline_suppressed} suppressed by baseline)"
    lines.append(summary)
    return "\n".join(lines) + "\n"
