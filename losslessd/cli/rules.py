"""`losslessd rules [CODE]`: list rules, or explain one."""

from __future__ import annotations

import inspect
from typing import Annotated

import typer

from ..errors import InputError
from ..lint.registry import all_rules, lookup


def rules(code: Annotated[str | None, typer.Argument(help="Rule code or name to explain.")] = None) -> None:
    """List every rule, or print one rule's documentation."""
    if code is None:
        for rule in all_rules().values():
            fix = f" ({_fix_label(rule)})" if rule.fixable else ""
            typer.echo(f"{rule.code}  {rule.name:<32} {rule.severity.value:<7} {rule.scope:<6} {rule.summary()}{fix}")
        return
    found = lookup(code)
    if found is None:
        raise InputError(f"no rule {code!r}; run `losslessd rules` for the list")
    fix = (f", {_fix_label(found)}: `losslessd fix` renders {', '.join(sorted(found.fix_sections))}"
           if found.fixable else "")
    typer.echo(f"{found.code} {found.name}  [{found.severity.value}, {found.scope} scope{fix}]\n")
    typer.echo(inspect.cleandoc(found.__doc__ or ""))


def _fix_label(rule) -> str:
    """'fixable, safe' or 'fixable, disruptive' (disruptive fixes need --unsafe-fixes)."""
    return f"fixable, {'disruptive' if rule.disruptive else 'safe'}"
