"""`losslessd fix`: print the snippets that resolve fixable findings (never sends anything to a device)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import api
from ..fix import output
from ..limits import set_max_file_mb
from .lint import exit_code
from .options import (
    FAMILY_OPTION,
    FORMAT_OPTION,
    IGNORE_OPTION,
    MAX_FILE_MB_OPTION,
    MODEL_OPTION,
    PATHS_ARGUMENT,
    POLICY_OPTION,
    SELECT_OPTION,
    TOPOLOGY_OPTION,
)


def fix(
    paths: Annotated[list[Path], PATHS_ARGUMENT],
    policy: Annotated[str, POLICY_OPTION] = "roce-dscp26",
    fmt: Annotated[str | None, FORMAT_OPTION] = None,
    select: Annotated[list[str] | None, SELECT_OPTION] = None,
    ignore: Annotated[list[str] | None, IGNORE_OPTION] = None,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="Also print disruptive fixes (PFC priorities, "
                                               "trust, DSCP/queue maps on live ports).")] = False,
    output_format: Annotated[output.Format, typer.Option("--output-format", "-f",
                                                         help="Output format.")] = output.Format.text,
    topology: Annotated[Path | None, TOPOLOGY_OPTION] = None,
    max_file_mb: Annotated[float | None, MAX_FILE_MB_OPTION] = None,
    model: Annotated[str | None, MODEL_OPTION] = None,
    family: Annotated[str | None, FAMILY_OPTION] = None,
) -> None:
    """Print, per device, the minimal snippet that resolves its fixable findings, with a diff.

    Exit 0: nothing to fix (every input read and checked). 1: fixes printed, withheld or impossible, or a
    device or input not checked. 2: unusable input (a config whose blocks depend on a tab's width among them),
    nothing readable or nothing checked. 3: internal error
    (a bug in losslessd).
    """
    set_max_file_mb(max_file_mb)
    result = api.fix(paths, policy, fmt=fmt, select_codes=select, ignore_codes=ignore, topology=topology,
                     unsafe=unsafe_fixes, model=model, family=family)
    for note in output.notes(result):  # (as render says them: stderr, whatever the format)
        typer.echo(f"losslessd fix: {note}", err=True)
    sys.stdout.write(output.render(output_format.value, result))
    raise typer.Exit(exit_code(result.lint, result.exit_code != 0, result.input_errors))
