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
from tests.clirun import ROOT, losslessd


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


def _path_params() -> list[tuple[tuple[str, ...], str, object]]:
    """(command words, option or argument, typer's parameter info) of every parameter naming a file or folder."""
    from pathlib import Path

    from losslessd.cli.main import COMMANDS, _load

    out = []

    def walk(command, words):
        if hasattr(command, "list_commands"):
            for name in command.list_commands(None):
                walk(command.get_command(None, name), (*words, name))
        out.extend((words, param.opts[0], param.type_descriptor.parameter_info) for param in command.params
                   if param.type_descriptor.annotation in (Path, list[Path]))

    for name in COMMANDS:
        walk(_load(name, *COMMANDS[name]), (name,))
    return out


def _given(words, opt, value):
    given = [value, "--policy", "roce-dscp26"] if opt == "paths" else [opt, value]
    if words in (("lint",), ("fix",)) and opt != "paths":
        given += ["examples/fabric"]
    return given


def _refused(res, opt, *words) -> str:
    message = " ".join(res.stderr.replace("│", " ").split())
    shown = "'paths'" if opt == "paths" else f"'{opt}'"
    assert res.returncode == 2 and res.stdout == "" and f"Invalid value for {shown}" in message, (opt, res.stderr)
    assert all(word in message for word in words), (opt, message)
    return message


def test_a_dash_is_standard_output_where_an_option_takes_it_and_refused_elsewhere(tmp_path):
    """`lint -o -` wrote a file named `-`; `pull -o -` made a folder named `-`. `-` stands for standard input or
    output (POSIX.1-2017 XBD 12.2, Utility Syntax Guideline 13): lint's --output writes the report to stdout, as
    without the option; every other option or argument naming a file or folder refuses it, nothing written, and
    `./-` still names a file called `-`."""
    found = _path_params()
    assert len(found) >= 25 and any(opt == "--out" for _, opt, _ in found)
    for words, opt, info in found:
        if info.allow_dash:
            continue
        _refused(losslessd(*words, *_given(words, opt, "-"), cwd=tmp_path), opt, "`-` stands for standard input or "
                 "output, which this option does not take")
        assert not (tmp_path / "-").exists(), (words, opt)
    assert [(w, o) for w, o, info in found if info.allow_dash] == [(("lint",), "--output")]
    res = losslessd("lint", "examples/fabric", "-f", "json", "-o", "-")
    assert res.returncode in (0, 1) and json.loads(res.stdout)["schema"] == "losslessd-report", res.stderr
    res = losslessd("lint", str(ROOT / "examples/fabric"), "-f", "json", "-o", "./-", cwd=tmp_path)
    assert res.stdout == "" and json.loads((tmp_path / "-").read_text())["schema"] == "losslessd-report"


def test_a_trailing_slash_names_a_folder_and_is_never_dropped(tmp_path):
    """typer makes `out.json/` the Path `out.json`: `lint -o out.json/` wrote the file out.json, and `lint
    leaf1.cfg/` read the file, where open(2) says ENOTDIR. A path ending in / names a folder: refused where a file
    is there, for every option or argument naming a file or folder, and by the options naming a file (lint --output,
    history --plot, tune --db, sim-bench --state) whatever is there."""
    (tmp_path / "afile").write_text("x\n")
    for words, opt, info in _path_params():
        res = losslessd(*words, *_given(words, opt, "afile/"), cwd=tmp_path)
        _refused(res, opt, "afile/ ends with /, which names a folder, but afile is a file")
        if not info.dir_okay:
            _refused(losslessd(*words, *_given(words, opt, "new.json/"), cwd=tmp_path), opt,
                     "new.json/ ends with /, so it names a folder; this option names a file")
    assert sorted(tmp_path.iterdir()) == [tmp_path / "afile"]
    res = losslessd("lint", "examples/fabric/", "-o", str(tmp_path / "out.txt"))  # (a folder's slash: as before)
    assert res.returncode in (0, 1) and (tmp_path / "out.txt").exists(), res.stderr


@pytest.mark.parametrize("end", ["/.", "/./", "//.//", "/./."])
def test_a_dot_after_a_slash_names_a_folder_too(tmp_path, end):
    """Path drops a last `.` as it drops a slash: `lint -o out.json/.` wrote the file out.json and `lint leaf1.cfg/.`
    read the file (exit 1, its findings), where open(2) says ENOTDIR for both. Such an ending names a folder as a
    slash does: refused naming what ends the path, nothing written."""
    (tmp_path / "leaf1.cfg").write_text((ROOT / "examples/clos/leaf1.cfg").read_text())
    _refused(losslessd("lint", f"leaf1.cfg{end}", cwd=tmp_path), "paths",
             f"leaf1.cfg{end} ends with {end}, which names a folder, but leaf1.cfg is a file")
    _refused(losslessd("lint", "leaf1.cfg", "-o", f"out.json{end}", cwd=tmp_path), "--output",
             f"out.json{end} ends with {end}, so it names a folder; this option names a file")
    assert sorted(tmp_path.iterdir()) == [tmp_path / "leaf1.cfg"]
    res = losslessd("lint", "leaf1.cfg", "-o", "out.json", cwd=tmp_path)  # (the same path without it: as before)
    assert res.returncode == 1 and (tmp_path / "out.json").exists(), res.stderr
