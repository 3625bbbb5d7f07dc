"""GitHub Actions annotations: one workflow command per finding, shown on the file and line it names.

Syntax and escaping follow GitHub's "Workflow commands for GitHub Actions" page and the
escapeData/escapeProperty functions of actions/toolkit (packages/core/src/command.ts).
"""

from __future__ import annotations

from pathlib import Path

from ..lint.finding import Finding, Severity
from ..printable import printable
from .sarif import finding_file, located_message, root_relative

COMMANDS = {Severity.error: "error", Severity.warning: "warning", Severity.info: "notice"}


def render(result, *, color: bool = False, srcroot: Path | None = None) -> str:
    del color  # the runner log renders annotations itself
    root = (srcroot or Path.cwd()).resolve()
    # A run a bug cut short, or that checked nothing, says so in the workflow too (one annotation per line the
    # command's stderr gives), never only by findings that look like a whole report.
    incomplete = [f"::error title=losslessd::{escape_data(line.removeprefix('error: '))}\n"
                  for line in result.outcome(False).lines]
    return "".join(annotation(f, result, root) + "\n" for f in result.findings) + "".join(incomplete)


def annotation(f: Finding, result, root: Path | None = None) -> str:
    """One workflow command; its file is relative to ``root`` (the repository root, where GitHub looks)."""
    src = f.source
    props: list[tuple[str, str]] = []
    file = finding_file(f, result)
    own_line = src.line if src is not None and src.file and src.line is not None else None
    if file is not None:
        absolute, relative = root_relative(file, root or Path.cwd().resolve())
        props.append(("file", relative if relative is not None else str(absolute)))
        if own_line is not None:
            props.append(("line", str(own_line)))
    props.append(("title", f"{f.code} {f.name}"))
    message = located_message(f)
    if own_line is None and src is not None and src.pointer:
        message += f" (at {src.pointer})"
    head = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{COMMANDS[f.severity]} {head}::{escape_data(message)}"


def escape_data(text: str) -> str:
    # (then the other control and bidi characters written out: an ESC in a device name would colour the runner log)
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
