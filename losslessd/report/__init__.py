"""Report formatters, one module each, registered by name. Each exposes
``render(result: LintResult, *, color: bool = False) -> str``."""

from __future__ import annotations

import importlib

FORMATS = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github"}


def render(fmt: str, result, *, color: bool = False) -> str:
    from ..gcpause import gc_paused
    from ..parse import same_working_directory

    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    with gc_paused(), same_working_directory():  # a report of a large fabric: many small objects, no cycles
        return module.render(result, color=color)
