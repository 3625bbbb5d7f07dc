"""Machine-readable report following the versioned schema in ``schema/report-v1.json``.

Other tools read it, and ``lint --baseline`` reads ``findings[].fingerprint`` back from it, so the
layout only changes together with that schema (a new ``version`` for anything not additive).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from .. import __version__
from ..lint.engine import describe_selection
from ..lint.finding import Finding, Severity
from ..parse import display_path

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
        "devices": [_device(d, result.selection.get(d.name)) for d in result.fabric.devices.values()],
        "findings": [finding_dict(f) for f in result.findings],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _device(device, choices) -> dict:
    out = {"name": device.name, "kind": device.kind.value, "platform": device.platform,
           "files": [_path(f) for f in device.files]}
    if choices is not None:
        out["selection"] = {"selected": sum(c.selected for c in choices), "summary": describe_selection(choices),
                            "ports": [c.as_dict() for c in choices]}
    return out


def finding_dict(f: Finding) -> dict:
    src = f.source
    location = None
    if src is not None:
        location = {"file": _path(src.file), "line": src.line, "pointer": src.pointer, "command": src.command}
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity.value,
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
    """The finding's numbers through pydantic's JSON mode: sets become lists, inf/nan null (valid JSON)."""
    return json.loads(f.model_dump_json(include={"data"}))["data"]


def _path(path: str | None) -> str | None:
    return None if path is None else display_path(Path(path))
