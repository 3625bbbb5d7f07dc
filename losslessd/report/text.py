"""Human report: findings grouped by device, colour only when asked (the CLI asks on a TTY)."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from ..lint.engine import PortChoice, describe_selection
from ..lint.finding import Finding, Severity
from ..parse import display_file
from ..printable import printable, shown_path

_COLOURS = {Severity.error: "\033[31m", Severity.warning: "\033[33m", Severity.info: "\033[36m"}
_RESET, _BOLD, _DIM = "\033[0m", "\033[1m", "\033[2m"
# Continuation lines of a multi-line message sit under the message, never at a device header's margin.
_CONTINUATION = "\n" + " " * 10
SELECTION_HEADER = "RoCE-facing ports (what the port rules checked; `--explain-selection` lists each port):"


def render(result, *, color: bool = False, srcroot: Path | None = None) -> str:
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines: list[str] = []
    for device, group in groupby(result.findings, key=lambda f: f.device or "(fabric)"):
        items: list[Finding] = list(group)
        lines.append(paint(printable(device), _BOLD))
        for f, ports, places in _fold(items):
            where = printable(_ports(ports) if len(ports) > 1 else f.port or "(device)")
            loc = f" {paint('[' + printable(places) + ']', _DIM)}" if f.source else ""
            sev = paint(f"{f.severity.value:<7}", _COLOURS[f.severity])
            message = _CONTINUATION.join(printable(line) for line in f.message.splitlines() or [""])
            lines.append(f"  {sev} {f.code} {where}: {message}{loc}")
        lines.append("")
    if result.selection:
        lines.append(SELECTION_HEADER)
        lines.extend(f"  {printable(name)}: {describe_selection(choices)}"
                     for name, choices in result.selection.items())
    counts = ", ".join(f"{result.count(s)} {s.value}{'s' if result.count(s) != 1 else ''}"
                       for s in (Severity.error, Severity.warning, Severity.info))
    summary = f"{checked(result, result.policy.name)}: {counts}"
    if result.baseline_suppressed:
        summary += f" ({result.baseline_suppressed} suppressed by baseline)"
    if result.crashed:
        n = len(result.internal_errors)
        summary += f"; INCOMPLETE: {n} internal error{'s' if n != 1 else ''} (SYS900) cut checks short"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def checked(result, policy: str) -> str:
    """'8 devices checked against policy P (18 RoCE-facing ports)', or '3 devices read, 2 checked against policy P
    (12 RoCE-facing ports, 1 input unread)': what the run looked at, never more than it did."""
    cov = result.coverage
    text = _n(cov.devices, "device") + (" read" if not cov.devices else " checked" if cov.checked == cov.devices
                                        else f" read, {cov.checked} checked")
    extra = [_n(cov.ports, "RoCE-facing port")] if cov.ports else []
    if cov.unread:
        extra.append(f"{_n(cov.unread, 'input')} unread")
    return f"{text} against policy {policy}" + (f" ({', '.join(extra)})" if extra else "")


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'s' if count != 1 else ''}"


def _fold(items: list[Finding]) -> list[tuple[Finding, list[str], str]]:
    """A device's findings with one line for each message its ports, or its files, share: (first finding, its ports,
    where: the first place and ' and N other lines' or 'places' when their sources differ, or 'N files: ' and every
    place). Ports configured alike give the same finding on every port: one problem printed 32 times reads as 32
    (docs/real-configs.md, Session 39 part f); a folder of 100,000 empty files gave 100,000 lines of one SYS001.
    The machine formats keep every finding."""
    groups: dict[tuple, list[Finding]] = {}
    for f in items:
        if f.port:
            key: tuple = (f.severity, f.code, f.message, (f.source.file,) if f.source else None)
        elif f.source and f.source.file:  # a finding about a whole file: the same one in other files folds
            key = (f.severity, f.code, f.message, "files")
        else:
            key = (id(f),)
        groups.setdefault(key, []).append(f)
    out: list[tuple[Finding, list[str], str]] = []
    for key, members in groups.items():
        if key[-1] == "files":
            files = dict.fromkeys(m.source.file for m in members if m.source)
            if len(files) > 1:  # every file named, so that `grep name report.txt` still finds its line
                out.append((members[0], [], f"{len(files)} files: {', '.join(dict.fromkeys(map(_where, members)))}"))
            else:  # one file: its lines apart, as before
                out.extend((m, [], _where(m)) for m in members)
            continue
        # Every place counts, not only its line: a minified CONFIG_DB holds each port's entry on line 1 under its
        # own pointer, and a capture names each port's command; the line shows the first place and how many more.
        places = {m.source.as_tuple() for m in members if m.source}
        noun = "other line" if len({place[1] for place in places}) == len(places) else "other place"
        more = f" and {_n(len(places) - 1, noun)}" if len(places) > 1 else ""
        first = members[0]
        where = _where(first) if first.source else ""
        out.append((first, list(dict.fromkeys(m.port or "" for m in members)), where + more))
    return out


def _ports(ports: list[str]) -> str:
    """'3 ports (Ethernet1/1, Ethernet1/2, Ethernet1/3)': every port named, so that `grep Ethernet1/3` of a report
    still finds the port's line."""
    return f"{len(ports)} ports ({', '.join(ports)})"


def _where(f: Finding) -> str:
    """The source as the operator would type it: relative to the working directory when below it, a path past
    printable.PATH_SHOWN_START + NAME_SHOWN characters cut in its middle (JSON, SARIF and GitHub give it whole)."""
    src = f.source
    return src.describe(shown_path(display_file(src.file)) if src.file else None)


def explain_selection(result) -> str:
    """`lint --explain-selection`: every port of every device, in or out of the RoCE-facing set, and why."""
    lines: list[str] = []
    for name, choices in result.selection.items():
        lines.append(f"{printable(name)}: {describe_selection(choices)}")
        lines.extend(_choice_line(c) for c in choices)
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "")


def _choice_line(c: PortChoice) -> str:
    return f"  {'in ' if c.selected else 'out'} {printable(c.port)}: {printable(c.reason)} [{c.rule}]"
