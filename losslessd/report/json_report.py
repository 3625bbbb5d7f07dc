"""Machine-readable report following the versioned schema in ``schema/report-v1.json``.

Other tools read it, and ``lint --baseline`` reads ``findings[].fingerprint`` back from it, so the
layout only changes together with that schema (a new ``version`` for anything not additive).
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from .. import __version__
from ..lint.engine import describe_selection
from ..lint.finding import Finding, Severity
from ..model import dump
from ..parse import display_file

SCHEMA_NAME = "losslessd-report"
VERSION = 1


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of this report; it ships inside the package."""
    text = (resources.files(__package__) / "schema" / f"report-v{VERSION}.json").read_text(encoding="utf-8")
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
        },
        "devices": [],
        "findings": [],
    }
    doc["devices"] = [_device(d, result.selection.get(d.name)) for d in result.fabric.devices.values()]
    doc["findings"] = [finding_dict(f) for f in result.findings]
    return dumps(doc, ("devices", "findings"))


def dumps(doc: dict, rows: tuple[str, ...]) -> str:
    """``doc`` as indented JSON, but the lists under the keys ``rows`` (at any depth) one compact item per line:
    an indented dump (json's pure-Python encoder) of a large fabric's report costs more than its lint, the
    items by json's C encoder much less."""
    lists: dict[str, list] = {}

    def mark(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (_token(k, lists, v) if k in rows and isinstance(v, list) else mark(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [mark(v) for v in node]
        return node

    text = json.dumps(mark(doc), indent=2, ensure_ascii=False)
    parts, start = [], 0  # the report is tens of MB for a large fabric: joined once, not spliced per list
    for token, items in sorted(lists.items(), key=lambda kv: text.index(json.dumps(kv[0]))):
        at = text.index(json.dumps(token), start)
        line = text[text.rfind("\n", 0, at) + 1:at]
        indent = " " * (len(line) - len(line.lstrip(" ")))  # the key's
        parts.append(text[start:at])
        if items:
            parts += ["[\n", indent, "  ", f",\n{indent}  ".join(map(_ENCODER.encode, items)), "\n", indent, "]"]
        else:
            parts.append("[]")
        start = at + len(json.dumps(token))
    parts.append(text[start:])
    parts.append("\n")
    return "".join(parts)


def _token(key: str, lists: dict[str, list], items: list) -> str:
    token = f"\x00{key}{len(lists)}"  # no other string of a report can be this: JSON escapes it as \u0000
    lists[token] = items
    return token


# The rows are dicts and lists built for the report (no cycles): the check for them would cost a tenth of the dump.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), check_circular=False)


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


def jsonable_data(f: Finding) -> dict:
    """The finding's numbers in JSON's types: tuples and sets become lists, enums their values, inf/nan null.
    Most findings carry a few plain numbers and words under string keys: those are returned as they are."""
    data = f.data
    for key, value in data.items():
        kind = type(value)
        if type(key) is not str or not (kind is str or kind is int or kind is bool or value is None
                                        or (kind is float and math.isfinite(value))):
            return dump(data, mode="json")
    return data


def _path(path: str | None) -> str | None:
    return None if path is None else display_file(str(path))
