"""`losslessd fix` output: text for people (snippets ready to paste, then the diff) and JSON for automation."""

from __future__ import annotations

import json
from enum import Enum

from ..lint.finding import few
from ..printable import printable_lines
from . import DeviceFix, FixResult, Part


class Format(str, Enum):
    """`losslessd fix --output-format`."""

    text = "text"
    json = "json"


FORMATS = tuple(f.value for f in Format)
JSON_VERSION = 1


def render(fmt: str, result: FixResult) -> str:
    return text(result) if fmt == "text" else as_json(result)


def notes(result: FixResult) -> list[str]:
    """'DEVICE: note' for what the printed snippets cannot say (render.operator_notes), each once: `fix` and
    `lint --fix` print them on stderr, as render does for the same snippet."""
    return list(dict.fromkeys(f"{d.device}: {note}" for d in result.devices for p in d.parts for note in p.notes))


def _findings(findings) -> str:
    """'BUF002 Ethernet48, Ethernet52; WDG001 Ethernet12; PFC006 (device)' (a device-wide finding, as lint prints it:
    a part for it alone would read 'fix (ecn) for : ...')."""
    ports: dict[str, dict[str, None]] = {}  # code -> its ports, in order (a dict: a list's `in` was quadratic)
    for f in findings:
        ports.setdefault(f.code, {})[f.port or "(device)"] = None
    return "; ".join(f"{code} {', '.join(names)}" for code, names in ports.items())


def _part(part: Part) -> list[str]:
    head = f"  {part.label.upper()} fix ({', '.join(part.sections)}) for {_findings(part.findings)}"
    if part.withheld:
        return [f"{head}: withheld, needs --unsafe-fixes"]
    if part.refused is not None:
        return [f"{head}: no fix, {part.refused}"]  # (each refusal says what to give or do by hand)
    if part.empty:
        why = ("the device holds what the template writes for it already: another part or a fix by hand clears it"
               if part.held else "the template writes nothing for it on this platform; fix by hand")
        return [f"{head}: no fix, {why} (each finding says how)"]
    how = f" (apply with `{part.apply_with}`)" if part.apply_with else ""
    return [f"{head}{how}:", part.snippet.rstrip("\n")]


def _verdict(dev: DeviceFix) -> str:
    if dev.unresolved or dev.introduced:
        notes = []
        if dev.unresolved:
            notes.append(f"still there after the fix: {_findings(dev.unresolved)} (fix by hand)")
        # (a problem a refused part names is said there, with what to give: named here, not restated)
        said = {(f.code, f.port) for p in dev.parts if p.refused is not None for f in p.findings}
        named = [f for f in dev.introduced if (f.code, f.port) in said]
        if named:
            notes.append(f"the fix would add: {_findings(named)} until what the refused part above needs is given")
        if len(named) < len(dev.introduced):
            notes.append("the fix would add: " + "; ".join(f"{f.code} {f.port or ''}: {f.message}".replace(" :", ":")
                                                          for f in dev.introduced if (f.code, f.port) not in said))
        return "; ".join(notes)
    return "linted again: every finding the printed fixes name is gone, and none is added"


def device_text(dev: DeviceFix) -> list[str]:
    lines = [f"{dev.device}  ({dev.platform}, {', '.join(dev.files) or 'no file'})"]
    if dev.message:
        return lines + [f"  no fix: {dev.message}", f"  findings: {_findings(dev.findings)}"]
    # (refused parts first: what the input must give, up front, before the snippets it leaves unfinished)
    for part in sorted(dev.parts, key=lambda p: p.refused is None):
        lines += _part(part)
    verdict = _verdict(dev) if dev.verified else None
    if dev.diff is not None:
        lines.append(f"  diff with the printed fixes applied ({verdict or dev.diff_note}):")
        lines.append(dev.diff.rstrip("\n") or "  (no change)")
    elif dev.diff_note:
        lines.append(f"  {dev.diff_note}" + (f" ({verdict})" if verdict else ""))
    return lines


def text(result: FixResult) -> str:
    unchecked = _not_checked(result)
    if not result.devices:
        if unchecked:
            checked = result.lint.coverage.checked
            return printable_lines(f"nothing to fix on the {_n(checked, 'device')} checked; {unchecked}") + "\n"
        return "nothing to fix: no device has a finding a fix template resolves\n"
    out: list[str] = []
    for dev in result.devices:
        out += device_text(dev) + [""]
    parts = [p for d in result.devices for p in d.parts]
    printed = sum(p.printed for p in parts)
    withheld = sum(p.withheld for p in parts)
    refused_inputs = sum(d.input_error for d in result.devices)
    none = sum(1 for d in result.devices if d.message) - refused_inputs
    empty = sum(p.empty for p in parts)
    summary = f"{_n(len(result.devices), 'device')} with fixable findings: {_n(printed, 'fix', 'fixes')} printed"
    if withheld:
        summary += f", {withheld} disruptive withheld (add --unsafe-fixes to print them)"
    if empty:
        summary += f", {empty} the template writes nothing for (fix by hand)"
    refused = sum(p.refused is not None for p in parts)
    if refused:
        # (a fact the input lacks, or a setting of the device's own no snippet line can change: each part says which)
        summary += f", {refused} refused (each says what to give or to do by hand)"
    if none:
        summary += f", {none} without a fix"
    if refused_inputs:
        # (exit 2: the input must change before fix can go into it; each device above says how)
        stands = "it stands" if refused_inputs == 1 else "they stand"
        summary += f", {_n(refused_inputs, 'input')} refused as {stands} (each says what to change)"
    out.append(summary + ". Nothing was sent to any device." + (f" {unchecked[0].upper()}{unchecked[1:]}" if unchecked
                                                                   else ""))
    # Line by line (snippets and diffs hold several): control characters from the inputs' names written out.
    return printable_lines("\n".join(out)) + "\n"


def _not_checked(result: FixResult) -> str:
    """'not checked, so not known to need no fix: sw9 (no RoCE-facing port), 2 inputs unread (`losslessd lint` says
    why)', or ''."""
    cov = result.lint.coverage
    parts = []
    if cov.unchecked:
        parts.append(few(cov.unchecked, shown=5))
    if cov.unread:
        parts.append(f"{_n(cov.unread, 'input')} unread")
    if not parts:
        return ""
    return f"not checked, so not known to need no fix: {'; '.join(parts)} (`losslessd lint` says why)"


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _finding(f) -> dict:
    return {"code": f.code, "name": f.name, "severity": f.severity.value, "port": f.port, "message": f.message,
            "fingerprint": f.fingerprint}


def as_json(result: FixResult) -> str:
    data = {
        "version": JSON_VERSION,
        "policy": result.lint.policy.name,
        "unsafe_fixes": result.unsafe,
        "not_checked": {"devices": list(result.lint.coverage.unchecked), "inputs_unread": result.lint.coverage.unread},
        # (false too where an input was refused, exit 2: the fixes of its findings are missing, input_errors says why)
        "complete": not result.lint.crashed and not result.input_errors,
        "input_errors": result.input_errors,
        "devices": [{
            "device": d.device, "platform": d.platform, "files": d.files,
            "findings": [_finding(f) for f in d.findings],
            "message": d.message, "input_error": d.input_error,
            "fixes": [{"label": p.label, "sections": p.sections, "withheld": p.withheld, "empty": p.empty,
                       "refused": p.refused, "refused_on": list(p.refused_on),
                       "snippet": p.snippet,
                       "apply_with": p.apply_with, "findings": [f.fingerprint for f in p.findings],
                       "shared": p.shared,
                       "notes": p.notes}  # (what the text's stderr says of the snippet: automation reads it here)
                      for p in d.parts],
            "diff": d.diff, "diff_note": d.diff_note, "verified": d.verified,
            "unresolved": [f.fingerprint for f in d.unresolved],
            "introduced": [_finding(f) for f in d.introduced],
        } for d in result.devices],
    }
    return json.dumps(data, indent=2) + "\n"
