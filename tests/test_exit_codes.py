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
from tests.clirun import losslessd
from tests.hostile import FABRIC, ROOT, hostile_fleet

PLANT = {
    # an exception escaping the command itself
    "command": "import losslessd.api as api\n"
               "def broken(*a, **k): raise RuntimeError('planted bug')\n"
               "api.lint = broken\n",
    # a rule that raises on every port it checks (the rule's own code: the engine reaches it whether it checks
    # each port or one port per configuration, lint/groups.py)
    "rule": "from losslessd.rules.pfc import PfcDisabledOnLossless as R\n"
            "def broken(self, ctx, device, port): raise ZeroDivisionError('planted rule bug')\n"
            "R.check_port = broken\n",
    # the EOS parser raises (a bug), the SONiC leaf is still checked
    "parser": "import losslessd.parse.eos as eos\n"
              "def broken(inputs, name): raise KeyError('planted parser bug')\n"
              "eos.parse = broken\n",
    # a fabric rule's reading of one device raises (in a parallel lint, worked out in the worker process)
    "facts": "from losslessd.rules.nic import DcqcnParamsInconsistent as R\n"
             "def broken(self, ctx, device): raise IndexError('planted facts bug')\n"
             "R.device_facts = broken\n",
    # a rule that raises on one device of the fabric only (leaf1), while the others have findings
    "one": "from losslessd.rules.wdg import PfcWatchdogDisabled as R\n"
           "checked = R.check_port\n"
           "def broken(self, ctx, device, port):\n"
           "    if device.name == 'leaf1': raise ValueError('planted bug on leaf1')\n"
           "    return checked(self, ctx, device, port)\n"
           "R.check_port = broken\n",
    # the parallel lint's own code raises in a worker process, outside any rule or parser
    "worker": "import losslessd.fabric as fabric\n"
              "def broken(device): raise RuntimeError('planted worker bug')\n"
              "fabric._header = broken\n",
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
def test_an_internal_error_line_writes_out_the_control_characters_of_the_file_it_names(tmp_path):
    """The internal-error lines name the input file, as the input-error lines do: an escape sequence in a file name
    is written out there too, never sent to the operator's terminal."""
    (tmp_path / "spi\x1b[31mne1.cfg").write_text((FABRIC / "spine1.cfg").read_text())
    res = _run("parser", ["lint", str(tmp_path)])
    assert res.returncode == EXIT_INTERNAL, res.stderr
    assert "spi\\x1b[31mne1.cfg" in res.stderr and "KeyError" in res.stderr and "\x1b" not in res.stderr


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_nothing_readable_is_exit_2_and_says_why(tmp_path, command):
    (tmp_path / "README.md").write_text("not a device\n")
    os.mkfifo(tmp_path / "leaf1.cfg")
    res = losslessd(command, tmp_path)
    assert res.returncode == EXIT_INPUT, res.stdout + res.stderr
    assert "nothing readable" in res.stderr and "leaf1.cfg" in res.stderr and "not a regular file (a FIFO)" in res.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    res = losslessd(command, empty)
    assert res.returncode == EXIT_INPUT and "no device file in this folder" in res.stderr


def test_help_documents_the_exit_codes():
    res = losslessd("--help", env={"COLUMNS": "200"})
    assert res.returncode == 0, res.stderr
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


@pytest.mark.slow  # starts processes
@pytest.mark.parametrize("args", [("lint", "examples/fabric", "-f", "sarif"), ("lint", "examples/fabric/leaf1"),
                                  ("rules",), ("policy", "check", "roce-dscp26"),
                                  ("render", "--platform", "sonic", "--device", f"{FABRIC}/leaf1/config_db.json")])
def test_a_full_device_on_stdout_or_stderr_is_exit_2_not_a_bug_or_findings(args):
    """`> /dev/full` (a report redirected to a full disk): the report never got out. It was an internal error
    (exit 3, "a bug in losslessd") from every command; with stderr full too, an error exited 1 (Python's own code
    for the exception that the error line raised), which reads as findings."""
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "losslessd", *args], cwd=ROOT, stdout=full,
                             stderr=subprocess.PIPE, text=True, timeout=120)
        assert res.returncode == EXIT_INPUT, res.stderr
        # (render's notes on stderr come before: they were written; the snippet was not)
        assert res.stderr.splitlines()[-1] == "losslessd: error: cannot write to standard output: No space left on " \
            "device" and "Traceback" not in res.stderr
        both = subprocess.run([sys.executable, "-m", "losslessd", "policy", "check", "no-such-policy"], cwd=ROOT,
                              stdout=full, stderr=full, timeout=120)
        assert both.returncode == EXIT_INPUT


@pytest.mark.slow  # starts processes
def test_a_closed_standard_stream_is_no_bug(tmp_path):
    """A command started with a standard descriptor closed (`>&-`, `2>&-`, `<&-`): Python gives it no sys.stdout
    (stderr, stdin), and `lint 2>&-` was an internal error (exit 3) of a lint with findings, `lint >&-` too. Now a
    closed stderr or stdin changes nothing (exit 1, the report out), a closed stdout is "cannot write to standard
    output" (exit 2, as `> /dev/full`), and `-o FILE` writes the file: no file the command opens takes descriptor
    1 (it is given /dev/null, as OpenSSH's sanitise_stdfd gives it)."""
    def run(*args: str, close: int) -> subprocess.CompletedProcess:
        streams = {0: "stdin", 1: "stdout", 2: "stderr"}
        pipes = {name: subprocess.PIPE for fd, name in streams.items() if fd != close and fd != 0}
        return subprocess.run([sys.executable, "-m", "losslessd", *args], cwd=ROOT, text=True, timeout=120,
                              preexec_fn=lambda: os.close(close), **pipes)

    closed_err = run("lint", "examples/clos", close=2)
    assert closed_err.returncode == 1 and "ECN001" in closed_err.stdout
    assert run("lint", "examples/clos", close=0).returncode == 1
    closed_out = run("lint", "examples/clos", "-f", "json", close=1)
    assert closed_out.returncode == EXIT_INPUT, closed_out.stderr
    assert closed_out.stderr == "losslessd: error: cannot write to standard output: Bad file descriptor\n"
    report = tmp_path / "report.json"
    written = run("lint", "examples/clos", "-f", "json", "-o", str(report), close=1)
    assert written.returncode == 1 and written.stderr == "", written.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["summary"]["error"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("plant", ["rule", "parser", "facts"])
def test_a_bug_reads_the_same_from_worker_processes_as_from_one(tmp_path, plant):
    """A hostile fleet (FIFO, oversized file, link loop, a switch of too many ports...) with a planted bug:
    `--jobs 2` (worker processes, forked with the plant) prints the same report and the same lines on stderr,
    and exits 3 as `--jobs 1` does: a crash in a worker never reads as findings or as clean."""
    folder = hostile_fleet(tmp_path)
    one, two = (_run(plant, ["lint", str(folder), "--max-file-mb", "1", "--jobs", jobs]) for jobs in ("1", "2"))
    assert one.returncode == EXIT_INTERNAL, one.stderr
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
    assert "Traceback" not in one.stderr and "planted" in one.stderr and "SYS900" in one.stdout
    assert "not a regular file (a FIFO)" in one.stdout and "1 MiB" in one.stdout  # the refusals, in both


@pytest.mark.slow
def test_a_bug_outside_the_rules_in_a_worker_is_exit_3_with_its_own_line(tmp_path):
    res = _run("worker", ["lint", str(FABRIC), "--jobs", "2"])
    assert res.returncode == EXIT_INTERNAL, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert lines[0].startswith("losslessd: internal error: RuntimeError: planted worker bug [<string>:")
    assert "please report it" in lines[1] and len(lines) == 2 and "Traceback" not in res.stderr
    assert res.stdout == ""  # no report: nothing checked is never shown as clean
    debug = _run("worker", ["--debug", "lint", str(FABRIC), "--jobs", "2"])
    assert debug.returncode == EXIT_INTERNAL and "RuntimeError: planted worker bug" in debug.stderr
    assert "Traceback (most recent call last)" in debug.stderr and "_header" in debug.stderr  # the worker's frames


@pytest.mark.slow  # starts processes
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_crash_on_one_device_of_many_is_exit_3_and_no_report_reads_as_complete(jobs):
    """A rule that raises on leaf1 only, while other devices have findings at --fail-on: exit 3 (never 1), serially
    and through worker processes; the JSON report says it is incomplete and SARIF that the run did not succeed
    (both read as a complete report before: only the SYS900 finding among the others told)."""
    text = _run("one", ["lint", str(FABRIC), "--jobs", jobs])
    assert text.returncode == EXIT_INTERNAL, text.stderr
    assert "internal error: leaf1: rule WDG001 (pfc-watchdog-disabled) failed: ValueError: planted bug on leaf1" \
        in text.stderr and "Traceback" not in text.stderr
    assert "ECN" in text.stdout and "; INCOMPLETE: 1 internal error (SYS900) cut checks short" in text.stdout
    report = _run("one", ["lint", str(FABRIC), "--jobs", jobs, "-f", "json"])
    assert report.returncode == EXIT_INTERNAL
    summary = json.loads(report.stdout)["summary"]
    assert summary["complete"] is False and summary["error"] > 1
    assert [m.split(":")[0] for m in summary["internal_errors"]] == ["leaf1"]
    sarif = _run("one", ["lint", str(FABRIC), "--jobs", jobs, "-f", "sarif"])
    assert sarif.returncode == EXIT_INTERNAL
    (invocation,) = json.loads(sarif.stdout)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "planted bug on leaf1" in note["message"]["text"]
    github = _run("one", ["lint", str(FABRIC), "--jobs", jobs, "-f", "github"])
    assert github.returncode == EXIT_INTERNAL
    assert "::error title=losslessd::internal error: leaf1: rule WDG001" in github.stdout
    fix = _run("one", ["fix", str(FABRIC), "-f", "json"])
    assert fix.returncode == EXIT_INTERNAL and json.loads(fix.stdout)["complete"] is False
