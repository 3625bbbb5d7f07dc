"""`losslessd policy check|list|show`."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..errors import EXIT_INPUT, InputError
from ..policy import load_policy, shipped
from ..printable import printable
from .main import echo_error, new_app

app = new_app(no_args_is_help=True, help="Validate and inspect lossless policies.")


@app.command("check")
def check(files: Annotated[list[str], typer.Argument(help="Policy files (or shipped names) to validate.")]) -> None:
    """Validate policies (as lint loads them: each file, then the merged `extends` chain).

    Exit 0: every policy is valid. 2: one or more are not (each is checked and reported).
    """
    failed = 0
    for ref in files:
        try:
            pol = load_policy(ref)  # InputError with file, line and JSON path
        except InputError as exc:  # one broken policy never hides what the others' checks say
            echo_error(str(exc))
            failed += 1
            continue
        about = printable(pol.description or "no description")
        typer.echo(f"{printable(ref)}: ok (policy {printable(pol.name)}: {about})")
    if failed:
        raise typer.Exit(EXIT_INPUT)


@app.command("list")
def list_() -> None:
    """List shipped policies.

    Exit 0: listed."""
    for name, path in shipped().items():
        typer.echo(f"{name:<16} {load_policy(path).description}")


@app.command("show")
def show(ref: Annotated[str, typer.Argument(help="Policy file or shipped name.")]) -> None:
    """Print a policy with `extends` resolved, as JSON.

    Exit 0: printed. 2: no such policy, or one that does not check out (as `policy check` reports it)."""
    typer.echo(json.dumps(load_policy(ref).model_dump(mode="json"), indent=2))
