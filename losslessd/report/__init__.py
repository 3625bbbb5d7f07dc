"""Report formatters, one module each, registered by name. Each exposes
``render(result: LintResult, *, color: bool = False, srcroot: Path | None = None) -> str``; the
formats that point into files (SARIF, GitHub annotations) give paths relative to ``srcroot``."""

from __future__ import annotations

import importlib
from pathlib import Path

FORMATS = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github"}


def render(fmt: str, result, *, color: bool = False, srcroot: Path | None = None) -> str:
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    return module.render(result, color=color, srcroot=source_root(srcroot))


def source_root(given: Path | None = None, cwd: Path | None = None) -> Path:
    """What report paths are relative to: ``given`` (lint --source-root), else the root of the git
    work tree holding the working directory (where code scanning and annotations look files up), else
    the working directory."""
    if given is not None:
        return Path(given).resolve()
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():  # a folder, or a file in a worktree or submodule
            return folder
    return here
