"""`losslessd policy check|list|show`."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..policy import load_policy, shipped
from .main import new_app

app = new_app(no_args_is_help=True, help="Validate and inspect lossless policies.")


@app.command("check")
def check(files: Annotated[list[str], typer.Argument(help="Policy files (or shipped names) to validate.")]) -> None:
    """Validate policies (as lint loads them: each file, then the merged `extends` chain)."""
    for ref in files:
        pol = load_policy(ref)  # raises InputError with file, line and JSON path
        typer.echo(f"{ref}: ok (policy {pol.name}: {pol.description or 'no description'})")


@app.command("list")
def list_() -> None:
    """List shipped policies."""
    for name, path in shipped().items():
        typer.echo(f"{name:<16} {load_policy(path).description}")


@app.command("show")
def show(ref: Annotated[str, typer.Argument(help="Policy file or shipped name.")]) -> None:
    """Print a policy with `extends` resolved, as JSON."""
    typer.echo(json.dumps(load_policy(ref).model_dump(mode="json"), indent=2))
