"""`break`, `continue` and builtins given too many arguments in host setup scripts, read as bash runs them. bash(1)
SHELL BUILTIN COMMANDS break [n] / continue [n]: out of n enclosing loops (all where n is more); bash 5.2 leaves every
loop at an n below 1 (status 1), ends the shell with status 128 at an n that is no number, and does nothing outside
a loop (nor in a function or subshell of its own). builtins/common.c no_args: exit, return, shift, break and
continue given more words than they take drop the rest of the command bash is running (status 1) and bash goes on.
The referee is bash itself (tests/bashcalls.py): no expected list is written here."""

from __future__ import annotations

import pytest

from losslessd.parse import mlx5
from losslessd.parse.base import Input
from tests.bashcalls import BASH, bash_calls, read_calls

AFTER = "mlnx_qos -i eth9 --trust dscp"
NESTED = ["for p in eth1 eth2; do", "  for q in 1 2; do", "    mlnx_qos -i $p --prio_tc $q", "    {WORD}",
          "    mlnx_qos -i $p --trust pcp", "  done", "  mlnx_qos -i $p --trust dscp", "done"]
SCRIPTS = {
    "break": ["for p in eth1 eth2; do mlnx_qos -i $p --trust pcp; break; done"],
    "break in a while": ["while true; do", "  mlnx_qos -i eth1 --trust pcp", "  break",
                         "  mlnx_qos -i eth2 --trust pcp", "done"],
    **{f"{word} nested": [w.replace("{WORD}", word) for w in NESTED]
       for word in ("break", "continue", "break 2", "continue 2", "break 5", "continue 5", "break 0", "continue -1",
                    "break ²", "continue 1x", "{ break; }", "( break )", "break 1 2", "exit 1 2", "continue 2 >&2",
                    "break 2>/dev/null")},
    "break 0 under set -e": ["set -e", *(w.replace("{WORD}", "break 0") for w in NESTED)],
    # (its failure tested, as a command's before `||` or `&&` is: set -e does not stop there, every loop is left)
    **{f"{word} under set -e": ["set -e", *(w.replace("{WORD}", word) for w in NESTED)]
       for word in ("break 0 || true", "continue 0 || :", "break 0 && mlnx_qos -i eth7 --trust pcp",
                    "break -1 || mlnx_qos -i eth7 --trust pcp", "break 2 || true")},
    "break in a piped loop": ["for p in eth1; do", "  for q in eth2 eth3; do mlnx_qos -i $q --trust pcp; break 2; "
                              "done | cat", "  mlnx_qos -i $p --trust dscp", "done"],
    "break in a function called in a loop": ["f() { break; }", "for p in eth1 eth2; do f; mlnx_qos -i $p --trust pcp;"
                                                                " done"],
    "break outside a loop": ["break", "mlnx_qos -i eth1 --trust pcp"],
    "break piped": ["for p in eth1 eth2; do break | cat; mlnx_qos -i $p --trust pcp; done"],
    "break negated": ["for p in eth1 eth2; do mlnx_qos -i $p --trust pcp; ! break; mlnx_qos -i $p --prio_tc 1; done"],
    "break in sh -c": ["sh -c 'for p in eth1 eth2; do mlnx_qos -i $p --trust pcp; break; done; mlnx_qos -i eth3 "
                       "--trust pcp'"],
    "exit 1 2 in sh -c": ["sh -c 'exit 1 2; mlnx_qos -i eth3 --trust pcp'", "mlnx_qos -i eth4 --trust pcp"],
    "exit 1 2 in an if": ["if true; then exit 1 2; fi; mlnx_qos -i eth1 --trust pcp", "mlnx_qos -i eth2 --trust pcp"],
    "exit 1 2 in a loop with an EXIT trap": ["trap 'mlnx_qos -i eth5 --trust pcp' EXIT",
                                             "for p in eth1; do exit 1 2; done", "mlnx_qos -i eth4 --trust pcp"],
    "exit 1 2 at the top level": ["exit 1 2", "mlnx_qos -i eth1 --trust pcp"],
    "exit 1 2 then more on its line": ["exit 1 2; mlnx_qos -i eth1 --trust pcp", "mlnx_qos -i eth2 --trust pcp"],
    "exit 1 2 in a subshell": ["( exit 1 2; mlnx_qos -i eth1 --trust pcp ); mlnx_qos -i eth2 --trust pcp"],
    "exit 1 2 in a substitution": ["f() { exit 1 2; }", "x=$(f); mlnx_qos -i eth1 --trust pcp"],
    "shift 1 2 in a function": ["f() {", "  shift 1 2", "  mlnx_qos -i $1 --trust pcp", "}", "f eth1 eth2; f eth3",
                                "mlnx_qos -i eth4 --trust pcp"],
    "return 1 2 in a function called in a loop": ["f() { return 1 2; mlnx_qos -i $1 --trust pcp; }",
                                                  "for p in eth1 eth2; do", "  f $p",
                                                  "done; mlnx_qos -i eth3 --prio_tc 1", "mlnx_qos -i eth4 --trust pcp"],
    "shift 1 2 under set -e": ["set -e", "f() { shift 1 2; }", "f a b", "mlnx_qos -i eth1 --trust pcp"],
    # (a redirection to a file is no argument: `exit 0 >exit.log` exits; it was read as `exit 0 x`, which bash drops)
    "exit with its output sent to a file": ["mlnx_qos -i eth1 --trust pcp", "exit 0 >exit.log",
                                            "mlnx_qos -i eth2 --trust pcp"],
    "exit 1 > FILE in a loop": ["for p in eth1 eth2; do mlnx_qos -i $p --trust pcp; exit 1 > exit.log; done"],
    "break 1 >FILE nested": [w.replace("{WORD}", "break 1 >>loop.log") for w in NESTED],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_loops_and_dropped_commands_are_read_as_bash_runs_them(name, tmp_path):
    """Before, break and continue were ignored (`for p in eth1 eth2; do mlnx_qos ...; break; done` read for both
    ports, bash sets eth1 only), `break ²` went on (bash ends with 128), and `exit 1 2` was read as an exit (bash
    goes on) while `shift 1 2` in a function went on with the call (bash drops it, and the rest of its line)."""
    text = "\n".join(["#!/bin/bash", *SCRIPTS[name], AFTER]) + "\n"
    assert read_calls(text) == bash_calls(text, tmp_path)


def test_a_break_under_a_test_known_at_run_time_is_read_as_not_taken():
    """`[ -e F ] && break`, `[ -d /sys/class/net/$p/ecn ] || continue`: whether it runs is known on the host only; it
    is read as an `exit` in its place is (`[ -e F ] || exit 1` goes on): not taken, so a loop guarded at its top still
    reads its ports as configured (tests/realworld/linux_mlx5/heredoc-rollback-and-unit.sh). A count known only at run
    time (`break $N`) is named and the loop's commands after it are not read."""
    text = ("for p in eth1 eth2; do\n  mlnx_qos -i $p --trust pcp\n  [ -e /etc/skip ] && break\n"
            "  mlnx_qos -i $p --prio_tc 0,1,2,3,4,5,6,7\ndone\nmlnx_qos -i eth3 --trust pcp\n")
    assert read_calls(text) == ["-i eth1 --trust pcp", "-i eth1 --prio_tc 0,1,2,3,4,5,6,7", "-i eth2 --trust pcp",
                                "-i eth2 --prio_tc 0,1,2,3,4,5,6,7", "-i eth3 --trust pcp"]
    device = mlx5.parse([Input("setup.sh", "#!/bin/bash\n" + text)], "h")
    assert not [i for i in device.issues if "runs only as a test known at run time says" in i.message]
    counted = text.replace("[ -e /etc/skip ] && break", "break $N")
    assert read_calls(counted) == ["-i eth1 --trust pcp", "-i eth3 --trust pcp"]
    device = mlx5.parse([Input("setup.sh", "#!/bin/bash\n" + counted)], "h")
    named = [i for i in device.issues if "runs only as a test known at run time says" in i.message]
    assert [(i.code, i.source.line) for i in named] == [("SYS002", 4)]
    assert "are not read, nor its later rounds" in named[0].message
