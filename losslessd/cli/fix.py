"""`losslessd fix`: print the snippets that resolve fixable findings (never sends anything to a device)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from .. import api
from ..errors import InputError
from ..fix import output
from ..limits import set_max_file_mb
from ..platforms import PLATFORMS
from .lint import exit_code


def fix(
    paths: list[Path] = typer.Argument(..., help="Device files or fabric folders."),
    policy: str = typer.Option("roce-dscp26", "--policy", "-p", help="Shipped policy name or policy file."),
    fmt: str = typer.Option(None, "--format", help=f"Force the input platform ({', '.join(PLATFORMS)})."),
    select: list[str] = typer.Option(None, "--select", help="Only fix these rules (code, prefix or name)."),
    ignore: list[str] = typer.Option(None, "--ignore", help="Do not fix these rules (code, prefix or name)."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also print disruptive fixes (PFC priorities, "
                                      "trust, DSCP/queue maps on live ports)."),
    output_format: str = typer.Option("text", "--output-format", "-f", help=f"One of: {', '.join(output.FORMATS)}."),
    topology: Path = typer.Option(None, "--topology", help="Topology file; default: topology.yaml in a linted folder."),
    max_file_mb: float = typer.Option(None, "--max-file-mb", help="Largest input file read, in MiB (default 32, or "
                                      "LOSSLESSD_MAX_FILE_MB)."),
    model: str = typer.Option(None, "--model", help="Hardware model of devices whose input names none (e.g. "
                              "N9K-C93180YC-EX, qfx5120-48y): chooses the command family where the CLI differs."),
):
    """Print, per device, the minimal snippet that resolves its fixable findings, with a diff.

    Exit 0: nothing to fix. 1: fixes printed, withheld or impossible. 2: unusable input, or nothing
    readable. 3: internal error (a bug in losslessd).
    """
    set_max_file_mb(max_file_mb)
    if output_format not in output.FORMATS:
        raise InputError(f"--output-format {output_format!r} is not one of: {', '.join(output.FORMATS)}")
    result = api.fix(paths, policy, fmt=fmt, select_codes=select, ignore_codes=ignore, topology=topology,
                     unsafe=unsafe_fixes, model=model)
    sys.stdout.write(output.render(output_format, result))
    raise typer.Exit(exit_code(result.lint, result.exit_code != 0))
