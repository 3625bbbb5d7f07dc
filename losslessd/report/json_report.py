"""Machine-readable report following the versioned schema in ``schema/report-v1.json``.

Other tools read it, and ``lint --baseline`` reads ``findings[].fingerprint`` back from it, so the
layout only changes together with that schema (a new ``version`` for anything not additive).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import c_make_encoder  # type: ignore[attr-defined]  # None where json's C part is not built
from json.encoder import encode_basestring as _string  # json's C function where built, as JSONEncoder uses
from pathlib import Path
from typing import Any

from .. import __version__
from ..lint.engine import describe_selection
from ..lint.finding import Finding, Severity
from ..model import dump
from ..parse import display_file
from ..printable import json_safe

SCHEMA_NAME = "losslessd-report"
VERSION = 1


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of this report; it ships inside the package."""
    text = (Path(__file__).parent / "schema" / f"report-v{VERSION}.json").read_text(encoding="utf-8")
    return json.loads(text)


def render(result, *, color: bool = False, srcroot: Path | None = None) -> str:
    del color  # JSON is never coloured
    doc = {
        "schema": SCHEMA_NAME,
        "version": VERSION,
        "tool": {"name": "losslessd", "version": __version__},
        "policy": {"name": result.policy.name, "description": result.policy.description,
                   "source_file": _path(result.policy.source_file)},
        "inputs": [_path(p) for p in result.inputs],
        "summary": {
            "findings": len(result.findings),
            **{s.value: result.count(s) for s in (Severity.error, Severity.warning, Severity.info)},
            "unverified": sum(1 for f in result.findings if f.unverified),
            "baseline_suppressed": result.baseline_suppressed,
            "devices": len(result.fabric.devices),
            "rules_run": [rule.code for rule in result.rules],
            **coverage_summary(result),
        },
        "devices": [],
        "findings": [],
    }
    doc["devices"] = [_device(d, result.selection.get(d.name)) for d in result.fabric.devices.values()]
    doc["findings"] = result.findings
    return dumps(doc, {"devices": compact, "findings": finding_json})


def coverage_summary(result) -> dict:
    """What the run checked and whether it ran to its end: a report of nothing checked, or of a run a bug cut
    short, must not read as a complete clean one."""
    cov = result.coverage
    return {"devices_checked": cov.checked, "devices_unchecked": list(cov.unchecked), "ports_checked": cov.ports,
            "inputs_unread": cov.unread, "complete": not result.crashed,
            "internal_errors": list(result.internal_errors)}


def dumps(doc: dict, rows: dict[str, Callable[[Any], str]]) -> str:
    """``doc`` as indented JSON, but each list under a key of ``rows`` (at any depth) one compact item per line,
    written by that key's function: an indented dump (json's pure-Python encoder) of a large fabric's report
    costs more than its lint, the items by json's C encoder much less."""
    lists: dict[str, tuple[list, Callable[[Any], str]]] = {}

    def mark(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (_token(k, lists, (v, rows[k])) if k in rows and isinstance(v, list) else mark(v))
                    for k, v in node.items()}
        if isinstance(node, list):
            return [mark(v) for v in node]
        return node

    text = json.dumps(mark(doc), indent=2, ensure_ascii=False)
    parts, start = [], 0  # the report is tens of MB for a large fabric: joined once, not spliced per list
    for token, (items, encode) in sorted(lists.items(), key=lambda kv: text.index(json.dumps(kv[0]))):
        at = text.index(json.dumps(token), start)
        line = text[text.rfind("\n", 0, at) + 1:at]
        indent = " " * (len(line) - len(line.lstrip(" ")))  # the key's
        parts.append(text[start:at])
        if items:
            parts += ["[\n", indent, "  ", f",\n{indent}  ".join(map(encode, items)), "\n", indent, "]"]
        else:
            parts.append("[]")
        start = at + len(json.dumps(token))
    parts.append(text[start:])
    parts.append("\n")
    return json_safe("".join(parts))


def _token(key: str, lists: dict[str, tuple], rows: tuple) -> str:
    token = f"\x00{key}{len(lists)}"  # no other string of a report can be this: JSON escapes it as \u0000
    lists[token] = rows
    return token


# The rows are dicts and lists built for the report (no cycles): the check for them would cost a tenth of the dump.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), check_circular=False)
_C_ENCODER = c_make_encoder and c_make_encoder(None, _ENCODER.default, _string, None, ": ", ", ", False, False, True)


def compact(row: Any) -> str:
    """One row of a report as _ENCODER writes it (dumps' default way), by json's C encoder made once: made per
    call, as JSONEncoder.encode does, it took half the time of a small row."""
    return "".join(_C_ENCODER(row, 0)) if _C_ENCODER else _ENCODER.encode(row)


def _device(device, choices) -> dict:
    out = {"name": device.name, "kind": device.kind.value, "platform": device.platform,
           "files": [_path(f) for f in device.files]}
    if choices is not None:
        out["selection"] = {"selected": sum(c.selected for c in choices), "summary": describe_selection(choices),
                            "ports": [c.as_dict() for c in choices]}
    return out


_SEVERITY = {s: s.value for s in Severity}


def finding_dict(f: Finding) -> dict:
    src = f.source
    location = None
    if src is not None:
        location = {"file": _path(src.file), "line": src.line, "pointer": src.pointer, "command": src.command}
    return {
        "code": f.code,
        "name": f.name,
        "severity": _SEVERITY[f.severity],
        "message": f.message,
        "device": f.device,
        "port": f.port,
        "devices": f.devices,
        "key": f.key,
        "location": location,
        "fingerprint": f.fingerprint,
        "unverified": f.unverified,
        "data": jsonable_data(f),
    }


def finding_json(f: Finding) -> str:
    """``finding_dict(f)`` as compact JSON, written field by field: a report of 45,000 findings spent as long
    building and encoding their dicts as its lint's workers took to find them. Fields of another type than the
    model's (a hand-made Finding) take the dict's way."""
    src, code, name, message, device, port, key = f.source, f.code, f.name, f.message, f.device, f.port, f.key
    if not (type(code) is str and type(name) is str and type(message) is str and type(key) is str
            and (device is None or type(device) is str) and (port is None or type(port) is str)
            and type(f.unverified) is bool and (src is None or _plain_source(src))
            and all(type(d) is str for d in f.devices)):
        return compact(finding_dict(f))
    if src is None:
        location = "null"
    else:
        file, line = _path(src.file), src.line
        location = (f'{{"file": {"null" if file is None else _string(file)}, '
                    f'"line": {"null" if line is None else line}, '
                    f'"pointer": {"null" if src.pointer is None else _string(src.pointer)}, '
                    f'"command": {"null" if src.command is None else _string(src.command)}}}')
    data = jsonable_data(f)
    return (f'{{"code": {_string(code)}, "name": {_string(name)}, "severity": "{_SEVERITY[f.severity]}", '
            f'"message": {_string(message)}, "device": {"null" if device is None else _string(device)}, '
            f'"port": {"null" if port is None else _string(port)}, "devices": [{", ".join(map(_string, f.devices))}], '
            f'"key": {_string(key)}, "location": {location}, "fingerprint": "{f.fingerprint}", '
            f'"unverified": {"true" if f.unverified else "false"}, '
            f'"data": {compact(data) if data else "{}"}}}')


def _plain_source(src) -> bool:
    """A source whose fields finding_json writes itself: text or nothing, the line a whole number."""
    line = src.line
    return ((src.file is None or type(src.file) is str) and (line is None or type(line) is int)
            and (src.pointer is None or type(src.pointer) is str) and (src.command is None or type(src.command) is str))


def jsonable_data(f: Finding) -> dict:
    """The finding's numbers in JSON's types: tuples and sets become lists, enums their values, inf/nan null.
    Most findings carry a few plain numbers and words, or lists of them, under string keys: those are returned
    as they are (json writes a tuple as a list)."""
    data = f.data
    for key, value in data.items():
        if type(key) is not str or not (_plain(value) or (type(value) in (list, tuple) and all(map(_plain, value)))):
            return dump(data, mode="json")
    return data


def _plain(value: Any) -> bool:
    """A value json writes as it is: text, a whole number, a finite float, true/false or null."""
    kind = type(value)
    return kind is str or kind is int or kind is bool or value is None or (kind is float and math.isfinite(value))


def _path(path: str | None) -> str | None:
    return None if path is None else display_file(str(path))
