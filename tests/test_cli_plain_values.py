"""cli.main._plain coerces a text, path or choice as typer's own validator (a pydantic TypeAdapter) does, without
importing pydantic: for every parameter of every command, on texts, paths that exist or not, files and folders, and
choices in any case, it answers what typer answers (the value, or an error in typer's words: _plain leaves those to
typer)."""

from __future__ import annotations

import sys

import typer

from losslessd.cli import main
from tests.conftest import ROOT

SAMPLES = ("x", "examples/fabric", "examples/fabric/spine1.cfg", "no/such/file", "JSON", "json", "Warning", "-",
           "roce-dscp26", " spaced ")


def _commands() -> list:
    out = []
    for name, (module, function) in main.COMMANDS.items():
        command = main._load(name, module, function)
        ctx = typer.Context(command)
        out += [command.get_command(ctx, s) for s in command.list_commands(ctx)] if function is None else [command]
    return out


def _typers(param, value, ctx):
    try:
        return ("value", param.get_runtime_param().coerce(value, param=param, ctx=ctx))
    except typer.BadParameter as exc:
        return ("error", exc.format_message())


def test_plain_values_coerce_as_typer_does(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    checked = 0
    for command in _commands():
        ctx = typer.Context(command)
        for param in command.get_params(ctx):
            if not hasattr(param, "type_descriptor"):
                continue
            multi = param.multiple or param.nargs == -1
            for sample in SAMPLES:
                value = (sample, "examples/fabric") if multi else sample
                got = main._plain(param, value, ctx)
                if got is main._TYPERS:
                    continue
                param._runtime_param = None  # (typer's own validator, built for the comparison)
                assert ("value", got) == _typers(param, value, ctx), (command.name, param.name, value)
                checked += 1
    assert checked > 100  # (texts, paths and choices of every command)


def test_a_typer_without_its_private_coerce_functions_answers_every_value(monkeypatch) -> None:
    """typer._param_types is typer's private module (pyproject allows typer up to 1): a release that moves it must
    cost the start-up _plain saves, not every command given a text or a path."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setitem(sys.modules, "typer._param_types", None)  # (import raises ImportError)
    command = main._load("lint", *main.COMMANDS["lint"])
    ctx = typer.Context(command)
    policy = next(p for p in command.get_params(ctx) if p.name == "policy")
    assert main._plain(policy, "roce-dscp26", ctx) is main._TYPERS
