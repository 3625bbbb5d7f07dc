"""Issue 11 item 1: a crash is not a finding. A bug in losslessd (an exception that escapes a command, a
rule or a parser that raises) exits 3 with one line naming it and a hint to report it, never 1 (what
CI reads as "findings") and never a bare traceback; the traceback comes only with --debug or
LOSSLESSD_DEBUG=1. Nothing readable is exit 2, never "0 devices checked" and exit 0.

The bug is planted in a child interpreter that then runs the real CLI entry (losslessd.cli.main.main):
a stand-in for a defect, the way tests/test_rules_meta.py plants a raising rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from losslessd.errors import DEBUG_ENV, EXIT_INPUT, EXIT_INTERNAL
from tests.hostile import FABRIC, ROOT

PLANT = {
    # an exception escaping the command itself
    "command": "import losslessd.api as api\n"
               "def broken(*a, **k): raise RuntimeError('planted bug')\n"
               "api.lint = broken\n",
    # a rule that raises on every device
    "rule": "from losslessd.rules.pfc import PfcDisabledOnLossless as R\n"
            "def broken(self, ctx, device): raise ZeroDivisionError('planted rule bug')\n"
            "R.check_device = broken\n",
    # the EOS parser raises (a bug), the SONiC leaf is still checked
    "parser": "import losslessd.parse.eos as eos\n"
              "def broken(inputs, name): raise KeyError('planted parser bug')\n"
              "eos.parse = broken\n",
}


def _run(plant: str, args: list[str], debug: bool = False) -> subprocess.CompletedProcess:
    code = PLANT[plant] + "import sys\nfrom losslessd.cli.main import main\nsys.argv = ['losslessd', *sys.argv[1:]]\nmain()\n"
    env = {**os.environ, DEBUG_ENV: "1"} if debug else {k: v for k, v in os.environ.items() if k != DEBUG_ENV}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow  # starts a process
def test_an_escaping_exception_is_exit_3_with_one_line_and_a_hint():
    res = _run("command", ["lint", str(FABRIC / "spine1.cfg")])
    assert res.returncode == EXIT_INTERNAL, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert lines[0].startswith("losslessd: internal error: RuntimeError: planted bug [")
    assert "please report it" in lines[1] and DEBUG_ENV in lines[1] and len(lines) == 2


@pytest.mark.slow  # starts a process
@pytest.mark.parametrize("how", ["env", "flag"])
def test_debug_prints_the_traceback(how):
    args = ["--debug", "lint", str(FABRIC / "spine1.cfg")] if how == "flag" else ["lint", str(FABRIC / "spine1.cfg")]
    res = _run("command", args, debug=how == "env")
    assert res.returncode == EXIT_INTERNAL
    assert "Traceback (most recent call last)" in res.stderr and "RuntimeError: planted bug" in res.stderr


@pytest.mark.slow  # starts a process
def test_a_rule_bug_keeps_the_report_but_exits_3():
    res = _run("rule", ["lint", str(FABRIC / "leaf1"), "-f", "json"])
    assert res.returncode == EXIT_INTERNAL, res.stderr
    codes = {f["code"] for f in json.loads(res.stdout)["findings"]}
    assert "SYS900" in codes and "PFC002" in codes and "PFC001" not in codes  # the other rules still reported
    assert "internal error: leaf1: rule PFC001 (pfc-disabled-on-lossless) failed: ZeroDivisionError" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.slow  # starts a process
def test_a_parser_bug_names_its_file_checks_the_rest_and_exits_3():
    res = _run("parser", ["lint", str(FABRIC)])
    assert res.returncode == EXIT_INTERNAL, res.stderr
    assert "SYS900" in res.stdout and "the parser failed on" in res.stdout
    assert "spine1.cfg" in res.stderr and "KeyError" in res.stderr and "Traceback" not in res.stderr
    assert "leaf1" in res.stdout and "PFC002" in res.stdout  # the SONiC leaf was still linted


@pytest.mark.slow  # starts a process
@pytest.mark.parametrize("command", ["lint", "fix"])
def test_nothing_readable_is_exit_2_and_says_why(tmp_path, command):
    (tmp_path / "README.md").write_text("not a device\n")
    os.mkfifo(tmp_path / "leaf1.cfg")
    res = subprocess.run([sys.executable, "-m", "losslessd", command, str(tmp_path)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == EXIT_INPUT, res.stdout + res.stderr
    assert "nothing readable" in res.stderr and "leaf1.cfg" in res.stderr and "not a regular file (a FIFO)" in res.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    res = subprocess.run([sys.executable, "-m", "losslessd", command, str(empty)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == EXIT_INPUT and "no device file in this folder" in res.stderr


@pytest.mark.slow  # starts a process
def test_help_documents_the_exit_codes():
    res = subprocess.run([sys.executable, "-m", "losslessd", "--help"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLUMNS": "200"})
    text = " ".join(res.stdout.split())
    assert "3 internal error" in text and "2 unusable input" in text and "1 findings" in text


@pytest.mark.slow  # starts a process
def test_a_closed_pipe_ends_quietly():
    """`losslessd lint ... | head`: the reader has left when the report is written. Its end of the pipe is
    closed before the program starts, so every write fails (a pipe's capacity, which varies by kernel, and the
    timing of the reader play no part)."""
    script = textwrap.dedent(f"""
        import os, subprocess, sys
        read_end, write_end = os.pipe()
        os.close(read_end)
        p = subprocess.Popen([sys.executable, "-m", "losslessd", "lint", "examples/fabric", "-f", "sarif"],
                             stdout=write_end, stderr=subprocess.PIPE)
        os.close(write_end)
        err = p.stderr.read().decode(); p.wait()
        print(p.returncode, repr(err))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    code, err = out.split(" ", 1)
    assert code == "141" and "Traceback" not in err, out
