"""`losslessd rules [CODE]`: list rules, or explain one."""

from __future__ import annotations

import inspect
from typing import Annotated

import typer

from ..errors import InputError
from ..lint.index import fix_label, listing
from ..printable import quoted


def rules(code: Annotated[str | None, typer.Argument(help="Rule code or name to explain.")] = None) -> None:
    """List every rule, or print one rule's documentation.

    Exit 0: listed or explained. 2: no rule has that code or name."""
    if code is None:
        for line in listing():  # (from the rule index: the rules themselves are not imported)
            typer.echo(line)
        return
    from ..lint.registry import lookup

    found = lookup(code)
    if found is None:
        raise InputError(f"no rule {quoted(code)}; run `losslessd rules` for the list")
    fix = (f", {fix_label(found)}: `losslessd fix` renders {', '.join(sorted(found.fix_sections))}"
           if found.fixable else "")
    typer.echo(f"{found.code} {found.name}  [{found.severity.value}, {found.scope} scope{fix}]\n")
    typer.echo(inspect.cleandoc(found.__doc__ or ""))
