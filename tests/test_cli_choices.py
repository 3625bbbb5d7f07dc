"""Options with a fixed set of values list them in --help and refuse any other value with a usage error
(exit 2) before the command runs; the values on the command line are the ones the code uses."""

from __future__ import annotations

import json
import re
from typing import get_args

import pytest

from losslessd import render
from losslessd.fix.output import FORMATS as FIX_FORMATS
from losslessd.monitor import EventKind
from losslessd.platforms import FORMAT_ALIASES, PLATFORMS
from losslessd.report import FORMATS as REPORT_FORMATS
from losslessd.tune.search import STRATEGIES
from tests.clirun import losslessd


def _help(*command: str) -> str:
    res = losslessd(*command, "--help", env={"COLUMNS": "400"})  # one option per line, no wrapped choice list
    assert res.returncode == 0, res.stderr
    return res.stdout


def _option_line(text: str, option: str) -> str:
    return next(line for line in text.splitlines() if re.search(rf"\s{re.escape(option)}\s", line))


@pytest.mark.parametrize(("command", "option", "values"), [
    (("tune",), "--strategy", STRATEGIES),
    (("lint",), "--output-format", tuple(REPORT_FORMATS)),  # (report.Format lists the formatters of FORMATS)
    (("lint",), "--format", tuple(PLATFORMS)),
    (("fix",), "--output-format", FIX_FORMATS),
    (("fix",), "--format", tuple(PLATFORMS)),
    (("render",), "--platform", render.platforms()),
    (("events",), "--kind", get_args(EventKind)),
    (("history",), "--format", ("text", "json")),
])
def test_help_lists_every_choice(command, option, values):
    line = _option_line(_help(*command), option)
    assert all(re.search(rf"[\[<|]{re.escape(v)}[\]>|]", line) for v in values), line


@pytest.mark.parametrize(("args", "bad"), [
    (["tune", "--benchmark", "x", "--inventory", "inv.yaml", "--strategy", "annealing"], "annealing"),
    (["fix", "--output-format", "yaml", "examples/fabric"], "yaml"),
    (["fix", "--format", "vyos", "examples/fabric"], "vyos"),
    (["render", "--platform", "linux", "--ports", "eth0:100G:5m"], "linux"),
    (["events", "--db", "none.db", "--kind", "storm"], "storm"),
])
def test_a_value_outside_the_choices_is_a_usage_error_before_anything_runs(args, bad, tmp_path):
    res = losslessd(*args, cwd=tmp_path)  # nothing exists there: a command that ran would fail differently
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert f"'{bad}' is not one of" in " ".join(res.stderr.replace("│", " ").split()), res.stderr  # a boxed message


def test_platform_options_take_the_short_names_lint_takes():
    for alias, target in FORMAT_ALIASES.items():
        assert target in PLATFORMS, alias
    res = losslessd("fix", "--format", "eos", "--output-format", "json", "examples/fabric/spine1.cfg")
    assert res.returncode in (0, 1), res.stderr
    assert [d["platform"] for d in json.loads(res.stdout)["devices"]] == ["arista_eos"]
    short = losslessd("render", "--platform", "eos", "--family", "sand", "--ports", "Ethernet1:100G:5m")
    long = losslessd("render", "--platform", "arista_eos", "--family", "sand", "--ports", "Ethernet1:100G:5m")
    assert short.returncode == 0 and short.stdout == long.stdout and "Ethernet1" in short.stdout, short.stderr


@pytest.mark.parametrize("name", ["onyx", "nvidia_onyx"])
def test_a_platform_losslessd_reads_but_does_not_render_says_why(name, tmp_path):
    """`render --platform onyx`: a usage error (exit 2) naming the platform and its record's reason, not the bare list
    of renderable platforms that makes it look unknown."""
    res = losslessd("render", "--platform", name, "--ports", "Eth1/1:100G:5m", cwd=tmp_path)
    message = " ".join(res.stderr.replace("│", " ").split())
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert f"nvidia_onyx has no render: {' '.join(PLATFORMS['nvidia_onyx'].unsupported['render'].split())}" in message


def _path_options() -> list[tuple[tuple[str, ...], str]]:
    """(command words, option or argument) of every parameter of every command that names a file or folder."""
    from pathlib import Path

    from losslessd.cli.main import COMMANDS, _load

    out = []

    def walk(command, words):
        if hasattr(command, "list_commands"):
            for name in command.list_commands(None):
                walk(command.get_command(None, name), (*words, name))
        out.extend((words, param.opts[0]) for param in command.params
                   if param.type_descriptor.annotation in (Path, list[Path]) or param.name == "policy")

    for name in COMMANDS:
        walk(_load(name, *COMMANDS[name]), (name,))
    return out


def test_an_empty_path_is_refused_naming_the_option(tmp_path):
    """`--policy ""` was "`.`: not a regular file (a folder)", naming neither the option nor the empty value (typer
    reads "" as the path `.`); `lint ""` linted the working folder. Every option or argument naming a file, folder or
    policy now refuses an empty value with a usage error (exit 2) naming it, before the command runs."""
    found = _path_options()
    assert len(found) >= 25 and (("tune", "report"), "--db") in found and (("lint",), "paths") in found
    for words, opt in found:
        given = ["", "--policy", "roce-dscp26"] if opt == "paths" else [opt, ""]
        if words == ("lint",) or words == ("fix",):
            given += ["examples/fabric"] if opt != "paths" else []
        res = losslessd(*words, *given, cwd=tmp_path)
        message = " ".join(res.stderr.replace("│", " ").split())
        assert res.returncode == 2 and res.stdout == "", (words, opt, res.stdout, res.stderr)
        shown = "'paths'" if opt == "paths" else f"'{opt}'"
        assert f"Invalid value for {shown}" in message and "is empty" in message, (words, opt, message)


def test_an_empty_policy_name_is_said_to_be_empty(tmp_path):
    res = losslessd("policy", "check", "", cwd=tmp_path)
    assert res.returncode == 2 and "the policy named is empty: give a shipped policy name (" in res.stderr, res.stderr
