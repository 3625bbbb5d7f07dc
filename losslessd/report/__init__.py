"""Report formatters, one module each, registered by name. Each exposes
``render(result: LintResult, *, color: bool = False, srcroot: Path | None = None) -> str``; the
formats that point into files (SARIF, GitHub annotations) give paths relative to ``srcroot``."""

from __future__ import annotations

import importlib
from enum import Enum
from pathlib import Path

FORMATS = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github"}


class Format(str, Enum):
    """`lint --output-format`: the names of FORMATS."""

    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


def render(fmt: str, result, *, color: bool = False, srcroot: Path | None = None) -> str:
    from ..gcpause import gc_paused
    from ..parse import same_working_directory

    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    with gc_paused(), same_working_directory():  # a report of a large fabric: many small objects, no cycles
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
