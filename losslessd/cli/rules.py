"""`losslessd rules [CODE]`: list rules, or explain one."""

from __future__ import annotations

import inspect

import typer

from ..errors import InputError
from ..lint.registry import all_rules, lookup


def rules(code: str = typer.Argument(None, help="Rule code or name to explain.")):
    """List every rule, or print one rule's documentation."""
    if code is None:
        for rule in all_rules().values():
            fix = f" ({_fix_label(rule)})" if rule.fixable else ""
            typer.echo(f"{rule.code}  {rule.name:<32} {rule.severity.value:<7} {rule.scope:<6} {rule.summary()}{fix}")
        return
    rule = lookup(code)
    if rule is None:
        raise InputError(f"no rule {code!r}; run `losslessd rules` for the list")
    fix = (f", {_fix_label(rule)}: `losslessd fix` renders {', '.join(sorted(rule.fix_sections))}"
           if rule.fixable else "")
    typer.echo(f"{rule.code} {rule.name}  [{rule.severity.value}, {rule.scope} scope{fix}]\n")
    typer.echo(inspect.cleandoc(rule.__doc__ or ""))


def _fix_label(rule) -> str:
    """'fixable, safe' or 'fixable, disruptive' (disruptive fixes need --unsafe-fixes)."""
    return f"fixable, {'disruptive' if rule.disruptive else 'safe'}"
