"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; a rule descriptor for every rule run (and for any rule a finding names, such as the
engine's SYS900); a physical location on every result, because GitHub code scanning shows only
results that have one; repo-relative URIs and fingerprints that survive line moves and rewording.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..lint.finding import Finding, Severity
from ..lint.registry import Rule, all_rules
from ..parse import working_directory
from .json_report import compact, coverage_summary, dumps, jsonable_data

# The $schema value GitHub's "SARIF support for code scanning" page uses in its examples.
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# The package page until the project has a homepage of its own.
INFORMATION_URI = "https://pypi.org/project/losslessd/"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "losslessdFingerprint/v1"
LEVELS = {Severity.error: "error", Severity.warning: "warning", Severity.info: "note"}
# GitHub code scanning limits shortDescription and fullDescription to 1024 characters (same page).
_GITHUB_TEXT_LIMIT = 1024


def render(result, *, color: bool = False, srcroot: Path | None = None) -> str:
    del color  # SARIF is never coloured
    root = (srcroot or Path.cwd()).resolve()  # %SRCROOT%: the repository root (report.source_root)
    rules = _rules(result)
    index = {rule.code: n for n, rule in enumerate(rules)}
    artifacts: dict[str, dict] = {}  # file -> its artifactLocation, shared by the findings that name it
    run = {
        "tool": {"driver": {"name": "losslessd", "version": __version__, "semanticVersion": __version__,
                            "informationUri": INFORMATION_URI, "rules": [_descriptor(r) for r in rules]}},
        # SARIF 2.1.0 §3.14.14: a uriBaseId's URI ends with a slash (sarif-sdk checks it as SARIF1004)
        "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}},
        "results": [_result(f, result, index, root, artifacts) for f in result.findings],
        "invocations": [_invocation(result)],
        "properties": {"policy": result.policy.name, "baselineSuppressed": result.baseline_suppressed,
                       **{_camel(k): v for k, v in coverage_summary(result).items()}},
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return dumps(log, {"results": compact})


def _invocation(result) -> dict:
    """SARIF 2.1.0 §3.20: executionSuccessful is false when a rule or parser failed on a bug (the results miss its
    conclusions) or nothing was checked; each such problem is a toolExecutionNotification (§3.20.21), so a viewer
    never shows a cut-short or empty run as a clean one."""
    notes = [{"level": "error", "message": {"text": line.removeprefix("error: ")}}
             for line in result.outcome(False).lines]
    return {"executionSuccessful": not notes, "toolExecutionNotifications": notes}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def finding_file(f: Finding, result) -> str | None:
    """The file a finding points at: its source file, else the first file of its device."""
    if f.source is not None and f.source.file:
        return f.source.file
    device = result.fabric.devices.get(f.device) if f.device else None
    return device.files[0] if device is not None and device.files else None


def located_message(f: Finding) -> str:
    """The message with device and port in front: one file can describe several ports."""
    where = " ".join(part for part in (f.device, f.port) if part)
    return f"{where}: {f.message}" if where else f.message


def _rules(result) -> list[type[Rule]]:
    """The rules run, plus any rule a finding names that was not run (the engine's SYS900)."""
    chosen = {rule.code: rule for rule in result.rules}
    missing = {f.code for f in result.findings} - set(chosen)
    if missing:
        registry = all_rules()
        chosen.update({code: registry[code] for code in missing})
    return sorted(chosen.values(), key=lambda r: r.code)


def _descriptor(rule: type[Rule]) -> dict:
    doc = inspect.cleandoc(rule.__doc__ or "")
    summary = rule.summary() or rule.name
    what = _section(doc, "What it checks")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": _clip(summary)},
        "fullDescription": {"text": _clip(f"{summary} {what}" if what else summary)},
        "help": {"text": doc or summary, "markdown": f"# {rule.code} {rule.name}\n\n{doc or summary}"},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": [rule.code[:3]], "scope": rule.scope, "fixable": rule.fixable},
    }


def _result(f: Finding, result, index: dict[str, int], root: Path, artifacts: dict[str, dict]) -> dict:
    return {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVELS[f.severity],
        "message": {"text": located_message(f)},
        "locations": [_location(f, result, root, artifacts)],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {"device": f.device, "port": f.port, "devices": f.devices, "key": f.key,
                       "unverified": f.unverified, "data": jsonable_data(f)},
    }


def _location(f: Finding, result, root: Path, artifacts: dict[str, dict]) -> dict:
    src = f.source
    own_file = src is not None and bool(src.file)
    # A finding with no file of its own (a fabric-level issue, a live capture) still needs a
    # physical location for GitHub: its device's file, else the first input given to lint.
    file = finding_file(f, result) or (result.inputs[0] if result.inputs else None)
    location: dict = {}
    if file is not None:
        # GitHub requires region.startLine; a finding on a whole file points at its first line.
        line = src.line if own_file and src.line is not None else 1
        artifact = artifacts.get(file) or artifacts.setdefault(file, _artifact(file, root))
        location["physicalLocation"] = {"artifactLocation": artifact, "region": {"startLine": line}}
    location["logicalLocations"] = [_logical(f)]
    props = {key: value for key, value in (("jsonPointer", src.pointer if src else None),
                                          ("command", src.command if src else None)) if value}
    if props:
        location["properties"] = props
    return location


def _artifact(file: str, root: Path) -> dict:
    """Relative to %SRCROOT% (the repository root) when below it; otherwise an absolute file URI."""
    absolute, relative = root_relative(file, root)
    if relative is None:
        return {"uri": absolute.as_uri()}
    # a byte that is not UTF-8 (a lone surrogate in Python) percent-encoded as itself (RFC 3986 §2.1)
    return {"uri": quote(relative, errors="surrogateescape"), "uriBaseId": SRCROOT}


def root_relative(file: str, root: Path) -> tuple[Path, str | None]:
    """``file`` (a report path: relative to the working directory, which may be below ``root``) without
    symlinks, and its path below ``root`` (POSIX form), or None when it is not below it."""
    return _root_relative(file, root, working_directory())


@lru_cache(maxsize=65536)  # thousands of findings name the same few files
def _root_relative(file: str, root: Path, cwd: str) -> tuple[Path, str | None]:
    absolute = Path(cwd, file).resolve()
    return absolute, absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else None


def _logical(f: Finding) -> dict:
    if f.device and f.port:
        return {"name": f.port, "fullyQualifiedName": f"{f.device}/{f.port}", "kind": "port"}
    if f.device:
        return {"name": f.device, "fullyQualifiedName": f.device, "kind": "device"}
    return {"name": "fabric", "fullyQualifiedName": "fabric", "kind": "fabric"}


def _section(doc: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}[ \t]*\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    return " ".join(match.group(1).split()) if match else ""


def _clip(text: str) -> str:
    return text if len(text) <= _GITHUB_TEXT_LIMIT else text[: _GITHUB_TEXT_LIMIT - 1] + "…"
