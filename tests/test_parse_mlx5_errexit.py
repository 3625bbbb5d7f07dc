"""`set -e` in host setup scripts, read as bash runs it. bash(1) SHELL BUILTIN COMMANDS, set -e: a command that fails
ends the shell, except where errexit is ignored (an if's or while's test, a command after `!`, any command of an && or
|| list but the last, and everything a compound command or function runs there), in a command substitution (bash clears
-e there unless `shopt -s inherit_errexit` or POSIX mode keeps it), and in a pipeline's parts but the last (unless
`set -o pipefail`). The option itself is set as the script runs: in a function when it is called, in a `( )` subshell
for that subshell only. The referee is bash itself (tests/bashcalls.py): every case's mlnx_qos calls are what bash
makes with a stand-in dcb that fails as mlx5's kernel refuses `dcb apptrust set`; no expected list is written here."""

from __future__ import annotations

import pytest

from losslessd.parse import mlx5
from losslessd.parse.base import Input
from tests.bashcalls import BASH, bash_calls, read_calls

DCB = "dcb apptrust set dev eth1 order pcp dscp"  # (fails on mlx5: see losslessd/parse/mlx5/dcb.py fails)
PCP = "mlnx_qos -i eth1 --trust pcp"
AFTER = "mlnx_qos -i eth1 --trust dscp"
TRUST = ["trust() {", f"  {DCB}", f"  {PCP}", "}"]
TOS = "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"  # (300 is past its byte: see sysfs.kstrtou8)
P2B = "/sys/class/net/eth1/qos/prio2buffer"  # (buffer 9 is none of mlx5's 8: see sysfs.mlx5_list)

# How the script turns errexit on (or leaves it off, or off again), before the context below.
SETTINGS = {
    "set -e": ["set -e"], "set -euo pipefail": ["set -euo pipefail"],
    "set +o errexit after": ["set -e", "set +o errexit"],
    "inherit_errexit": ["set -e", "shopt -s inherit_errexit"], "posix": ["set -e", "set -o posix"], "off": [],
}
# Where the failing command runs: in the body of `trust` (defined first), or written there.
CONTEXTS = {
    "called": ["trust"],
    "before-or": ["trust || true"],
    "before-and": ["trust && echo ok"],
    "before-and-over-lines": ["trust &&", "  echo ok"],
    "between-and-and-or": ["true && trust || true"],
    "negated": ["! trust"],
    "before-or-a-group": ["trust || { echo failed; exit 1; }"],
    "before-or-a-subshell": ["trust || ( echo failed; exit 1 )"],
    "an-if-tests": ["if trust; then :; fi"],
    "an-if-tests-negated": ["if ! trust; then :; fi"],
    "an-if-tests-over-lines": ["if", "  trust", "then :; fi"],
    "a-while-tests": ["while trust; do break; done"],
    "in-a-group-before-or": ["{", "  trust", "  mlnx_qos -i eth2 --trust pcp", "} || true"],
    "in-a-negated-group": ["! {", "  trust", "}"],
    "in-a-loop-before-or": ["for p in eth1; do", "  trust", "done || true"],
    "in-a-subshell": ["(", "  trust", ")"],
    "in-a-subshell-before-or": ["( trust ) || true"],
    "piped": ["trust | cat"],
    "substituted": ["x=$(trust)"],
    "substituted-echoed": ["echo \"$(trust)\""],
    "substituted-before-or": ["x=$(trust) || true"],
    "substituted-local": ["f() { local x=$(trust); mlnx_qos -i eth2 --trust pcp; }", "f"],
    "written": [DCB, PCP],
    "written-in-a-group-before-or": ["{", f"  {DCB}", f"  {PCP}", "} || true"],
    "written-in-an-if-test-over-lines": ["if", f"  {DCB}", f"  {PCP}", "then :; fi"],
    "written-in-a-subshell": ["(", f"  {DCB}", f"  {PCP}", ")", "mlnx_qos -i eth2 --trust pcp"],
    "written-substituted": [f"x=$({DCB})"],
    "written-substituted-then-more": [f"x=$({DCB}; {PCP})"],
    "written-substituted-echoed": [f"echo $({DCB})"],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("context", list(CONTEXTS))
def test_errexit_is_read_as_bash_runs_it(context, tmp_path):
    """Each context under each way of setting errexit: the calls read are those bash makes. Before, a function called
    in `$(...)`, after `!` or before `|| { ... }`, a group or loop before `||` over lines, an if's test over lines, and
    `set -e` in a function or subshell were read as the script's order says, not as bash runs them (the reading ended
    at a failure bash goes on after, or went on where bash stops)."""
    wrong = []
    for name, setting in SETTINGS.items():
        text = "\n".join(["#!/bin/bash", *setting, *TRUST, *CONTEXTS[context], AFTER]) + "\n"
        ran = bash_calls(text, tmp_path / name.replace(" ", "_"))
        if read_calls(text) != ran:
            wrong.append((name, read_calls(text), ran))
    assert wrong == []


# Where `set -e` (or `+e`) is written: it takes effect when its line runs, in the shell that runs it.
PLACED = {
    "set-o-errexit": ["set -o errexit", DCB, PCP, AFTER],
    "shopt-s-o-errexit": ["shopt -s -o errexit", DCB, PCP, AFTER],
    "shopt-so-errexit-then-set-plus-e": ["shopt -so errexit", "set +e", DCB, PCP, AFTER],
    "in-a-function-called-after": ["on() { set -e; }", DCB, PCP, "on", AFTER],
    "in-a-function-called-before": ["on() { set -e; }", "on", DCB, PCP, AFTER],
    "in-a-subshell": [f"( set -e; {DCB}; {PCP} )", DCB, PCP, AFTER],
    "in-a-subshell-over-lines": ["(", "  set -e", f"  {DCB}", f"  {PCP}", ")", DCB, PCP, AFTER],
    "off-in-a-function-never-called": ["set -e", "off() { set +e; }", DCB, PCP, AFTER],
    "off-in-a-function-called": ["set -e", "off() { set +e; }", "off", DCB, PCP, AFTER],
    "on-in-a-function-called-as-a-test": ["trust() {", "  set -e", f"  {DCB}", f"  {PCP}", "}", "trust || true",
                                          AFTER],
    "on-in-an-if-branch": ["if [ -d / ]; then", "  set -e", "fi", DCB, PCP, AFTER],
    "pipefail-then-off": ["set -e", "set -o pipefail", "set +o pipefail", *TRUST, "trust | cat", AFTER],
    "posix-then-off": ["set -e", "set -o posix", "set +o posix", *TRUST, "x=$(trust)", AFTER],
    "inherit-then-off": ["set -e", "shopt -s inherit_errexit", "shopt -u inherit_errexit", *TRUST, "x=$(trust)", AFTER],
    "inherited-in-a-local": ["set -e", "shopt -s inherit_errexit", "f() {", f"  local x=$({DCB}; {PCP})",
                             "  mlnx_qos -i eth2 --trust pcp", "}", "f", AFTER],
    "a-function-whose-body-is-a-subshell": ["set -e", "trust() (", f"  {DCB}", f"  {PCP}", ")", "trust", AFTER],
    # a function's status is its `return N`'s, or its last command's; a subshell's its `exit N`'s
    "a-function-returning-1": ["set -e", f"f() {{ {PCP}; return 1; }}", "f", AFTER],
    "a-function-returning-1-before-or": ["set -e", f"f() {{ {PCP}; return 1; }}", "f || true", AFTER],
    "a-function-returning-0": ["set -e", f"f() {{ {PCP}; return 0; }}", "f", AFTER],
    "a-function-returning-1-substituted": ["set -e", f"f() {{ {PCP}; return 1; }}", "x=$(f)", AFTER],
    "a-function-whose-last-command-fails-substituted": ["set -e", f"f() {{ {PCP}; {DCB}; }}", "x=$(f)", AFTER],
    "exit-1-in-a-subshell": ["set -e", f"( {PCP}; exit 1 )", AFTER],
    "exit-1-in-a-subshell-before-or": ["set -e", f"( {PCP}; exit 1 ) || true", AFTER],
    "exit-1-in-a-subshell-without-e": [f"( {PCP}; exit 1 )", AFTER],
    # a shell reading its commands from a here-document is a shell of its own: it starts without -e (unless given
    # it: `bash -e <<EOF`), and its exit ends it only (before: its body was read as the script's own lines)
    "a-shell-on-a-here-document": ["set -e", "bash <<EOF", DCB, PCP, "EOF", AFTER],
    "a-shell-on-a-here-document-with-e": ["bash -e <<'EOF'", DCB, PCP, "EOF", AFTER],
    "set-e-in-a-shell-on-a-here-document": ["bash <<EOF", "set -e", DCB, PCP, "EOF", DCB, PCP, AFTER],
    "exit-in-a-shell-on-a-here-document": ["sh <<'EOF'", PCP, "exit 0", "EOF", AFTER],
    # given variables for its environment, after other commands of its line, or with other here-documents on its line
    # (its standard input is the last of its own; the others are input to their commands); before: its body was
    # skipped as input, or another body read as its commands
    "a-shell-given-a-variable-on-a-here-document": ["set -e", "X=1 bash <<'EOF'", DCB, PCP, "EOF", AFTER],
    "a-shell-given-a-variable-on-a-here-document-with-e": ["X=1 bash -e <<'EOF'", PCP, DCB,
                                                            "mlnx_qos -i eth2 --trust pcp", "EOF", AFTER],
    "a-shell-on-the-second-here-document-of-a-line": ["cat <<A; bash <<B", "mlnx_qos -i eth9 --trust pcp", "A", PCP,
                                                       "B", AFTER],
    "a-shell-on-the-first-here-document-of-a-line": ["bash <<A; cat <<B", PCP, "A", "mlnx_qos -i eth9 --trust pcp",
                                                      "B", AFTER],
    "a-shell-on-two-here-documents": ["bash <<A <<B", "mlnx_qos -i eth9 --trust pcp", "A", PCP, "B", AFTER],
    "a-shell-on-a-here-document-after-and": ["set -e", "true && bash <<A", DCB, PCP, "A", AFTER],
    "a-shell-on-a-here-document-after-a-quoted-semicolon": ["bash -c 'x;y' <<A; bash <<B",
                                                             "mlnx_qos -i eth9 --trust pcp", "A", PCP, "B", AFTER],
    # its own set -e works where the shell is tested (`|| echo failed`, `&&`, in a group or function before `||`): a
    # process of its own, no tested context of the script reaches it (before: its failure was read as tested)
    "set-e-in-a-shell-on-a-here-document-before-or": ["sudo bash <<'EOS' || echo failed", "set -e", DCB, PCP, "EOS",
                                                       AFTER],
    "set-e-in-a-shell-on-a-here-document-before-and": ["bash <<'EOS' && echo ok", "set -e", DCB, PCP, "EOS", AFTER],
    "set-e-in-a-shell-on-a-here-document-in-a-group-before-or": ["{", "bash <<'E'", "set -e", DCB, PCP, "E",
                                                                  "} || true", AFTER],
    # its failure, in a tested group of a script under set -e, is tested too: the group goes on (before: the skipped
    # shell's closing `)` lost the tested mark and its failing status ended the reading)
    "a-failing-shell-on-a-here-document-in-a-group-before-or": ["set -e", "{", "bash <<'EOS'", "set -e", DCB, "EOS",
                                                                 PCP, "} || true", AFTER],
    "a-failing-shell-on-a-here-document-in-a-group-before-and": ["set -e", "{", "bash <<EOS", "set -e", DCB, "EOS",
                                                                  PCP, "} && true", AFTER],
    "set-e-in-a-shell-on-a-here-document-in-a-function-before-or": ["f() {", "bash <<E", "set -e", DCB, PCP, "E", "}",
                                                                     "f || true", AFTER],
    "set-e-in-a-shell-on-a-here-document-calling-before-or": ["bash <<'EOS' || echo failed", "set -e",
                                                               f"g() {{ {DCB}; }}", "g", PCP, "EOS", AFTER],
    # with no end line, bash warns and takes the rest of the file as the body: still the shell's own (before: read
    # under the script's set -e)
    "a-shell-on-a-here-document-never-ended": ["set -e", "bash <<EOF", DCB, PCP],
    "a-shell-on-a-here-document-never-ended-with-e": ["bash -e <<EOF", DCB, PCP],
    # so is `sh -c '...'`
    "set-e-in-sh-c": [f"sh -c 'set -e; {DCB}; {PCP}'", AFTER],
    "set-e-does-not-reach-sh-c": ["set -e", f"sh -c '{DCB}; {PCP}'", AFTER],
    "a-function-in-sh-c-before-or": [f"bash -c 'set -e; trust() {{ {DCB}; {PCP}; }}; trust || true'", AFTER],
    # a RoCE QoS file's write the kernel refuses (see losslessd/parse/mlx5/sysfs.py; no such file here, so bash's
    # write fails too) through tee, whose status is the pipeline's, or as the last command of `sh -c`, whose status is
    # the shell's (before: read as tested, the reading went on)
    "a-refused-write-through-tee": ["set -e", f"echo 300 | tee {TOS}", AFTER],
    "a-refused-write-through-tee-appending": ["set -e", f"echo 0,0,0,0,0,0,0,9 | tee -a {P2B} >/dev/null", AFTER],
    "a-refused-write-through-tee-before-or": ["set -e", f"echo 300 | tee {TOS} || true", AFTER],
    "a-refused-write-through-tee-piped-on": ["set -e", f"echo 300 | tee {TOS} | cat", AFTER],
    "a-refused-write-in-sh-c": ["set -e", f"sh -c 'echo 300 > {TOS}'", AFTER],
    "a-refused-write-in-sh-c-then-more": ["set -e", f"sh -c 'echo 300 > {TOS}; true'", AFTER],
    "a-refused-write-in-sh-c-before-or": ["set -e", f"sh -c 'echo 300 > {TOS}' || true", AFTER],
    "a-refused-write-in-sh-c-in-a-function": ["set -e", "f() {", f"  bash -c 'echo 300 > {TOS}'",
                                              "  mlnx_qos -i eth2 --trust pcp", "}", "f || true", "f", AFTER],
    # a group or loop piped is a pipeline's part, in a subshell of its own: set -e's exit in it ends that subshell,
    # and the script goes on after the pipeline (before: the reading ended there), unless `set -o pipefail`
    # the status of a function whose body ends in a loop is the loop's last command's; `return 1` piped under
    # pipefail fails the pipeline; a `set` in a piped call or a command substitution is its subshell's; `return 1`
    # ending a `( )` subshell in a function fails that subshell
    "a-function-ending-in-a-loop-substituted": ["set -e", f"g() {{ for p in a; do {DCB}; done; }}", "x=$(g)", AFTER],
    "a-function-returning-1-piped-under-pipefail": ["set -eo pipefail", "f() { return 1; }", "f | cat", AFTER],
    "a-function-returning-1-piped": ["set -e", "f() { return 1; }", "f | cat", AFTER],
    "set-plus-e-in-a-piped-call": ["set -e", "f() { set +e; }", "f | cat", DCB, AFTER],
    "pipefail-in-a-substituted-call": ["set -e", "g() { set -o pipefail; }", "x=$(g)", *TRUST, "trust | cat",
                                       AFTER],
    "return-1-ends-a-subshell-in-a-function": ["set -e", "g() {", "(", "  return 1", ")",
                                               "  mlnx_qos -i eth2 --trust pcp", "}", "g", AFTER],
    "a-group-piped-calling": ["set -e", *TRUST, "{ trust; } | cat", AFTER],
    "a-group-piped-over-lines": ["set -e", "{", f"  {DCB}", f"  {PCP}", "} | cat", AFTER],
    "a-group-piped-with-a-redirection": ["set -e", "{", f"  {DCB}", f"  {PCP}", "} 2>&1 |& cat", AFTER],
    "a-group-piped-in-a-group": ["set -e", "{", "{", f"  {DCB}", f"  {PCP}", "} | cat", "mlnx_qos -i eth2 --trust pcp",
                                 "}", AFTER],
    "a-loop-piped": ["set -e", "for p in a; do", f"  {DCB}", f"  {PCP}", "done | cat", AFTER],
    "a-loop-piped-in-a-function": ["set -e", "f() {", "for p in a; do", f"  {DCB}", f"  {PCP}", "done | cat",
                                   "mlnx_qos -i eth2 --trust pcp", "}", "f", AFTER],
    "a-group-piped-on-one-line": ["set -e", f"{{ {DCB}; {PCP}; }} | cat", AFTER],
    "a-loop-piped-on-one-line": ["set -e", f"for p in a; do {DCB}; {PCP}; done | cat", AFTER],
    "a-group-piped-on-one-line-under-pipefail": ["set -eo pipefail", f"{{ {DCB}; {PCP}; }} | cat", AFTER],
    "a-pipe-after-the-failing-command": ["set -e", f"{DCB}; echo ok | cat", AFTER],
    # a `( )` subshell's status is its last command's, also where -e is off in it
    "a-subshell-whose-last-command-fails-with-e-off": ["set -e", f"( set +e; {DCB} )", AFTER],
    "a-subshell-whose-last-command-fails-with-e-off-over-lines": ["set -e", "(", "  set +e", f"  {PCP}", f"  {DCB}",
                                                                  ")", AFTER],
    "a-subshell-whose-last-substitution-fails-with-e-off": ["set -e", f"f() {{ x=$({DCB}); }}", "(", "  set +e",
                                                            "  {", "    x=$(f)", "  }", ")", AFTER],
    "a-subshell-whose-failure-is-not-last": ["set -e", "(", "  set +e", f"  {DCB}", "  true", ")", AFTER],
    "a-subshell-whose-last-command-fails-before-or": ["set -e", "(", "  set +e", f"  {DCB}", ") || true", AFTER],
    "set-plus-e-in-a-piped-group": ["set -e", "f() { set +e; }", "{ f; } | cat", DCB, AFTER],
    "set-plus-e-in-a-piped-group-over-lines": ["set -e", "{", "  set +e", "} | cat", DCB, AFTER],
    "a-group-piped-under-pipefail": ["set -e", "set -o pipefail", "{", f"  {DCB}", f"  {PCP}", "} | cat", AFTER],
    "a-loop-piped-under-pipefail": ["set -eo pipefail", "for p in a; do", f"  {DCB}", f"  {PCP}", "done | cat",
                                    AFTER],
    # a background job's status is 0 to the shell that started it (bash(1) Lists: `&`); a command after `&` on its
    # line is not one (before: the whole line was read as backgrounded)
    "a-background-job": ["set -e", f"{DCB} &", "wait", AFTER],
    "a-background-job-in-a-subshell": ["set -e", f"( set +e; {DCB} & )", AFTER],
    "a-failure-after-a-background-job": ["set -e", f"true & {DCB}", AFTER],
    "a-failure-after-a-failing-background-job": ["set -e", f"{DCB} & {DCB}", AFTER],
    # a compound command or a call run in the background is a subshell of its own: set -e's exit (or an exit,
    # a return) ends that job only, a `set` in it is its own, and its status is 0 (before: the reading ended there)
    "a-subshell-in-the-background": ["set -e", f"( {PCP}; {DCB} ) &", "wait", AFTER],
    "a-group-in-the-background": ["set -e", f"{{ {PCP}; {DCB}; }} &", "wait", AFTER],
    "a-group-in-the-background-under-pipefail": ["set -eo pipefail", f"{{ {PCP}; {DCB}; }} &", "wait", AFTER],
    "a-loop-in-the-background-over-lines": ["set -e", "for p in a; do", f"  {DCB}", f"  {PCP}", "done &", "wait",
                                            AFTER],
    "an-exit-in-a-group-in-the-background": ["set -e", f"{{ {PCP}; exit 1; }} &", "wait", AFTER],
    "calls-in-the-background": ["set -e", f"f() {{ {PCP}; {DCB}; }}", "f eth3 &", "f eth4 &", "wait", AFTER],
    "calls-in-the-background-on-one-line": ["set -e", f"f() {{ {PCP}; {DCB}; }}", "f eth3 & f eth4 &", "wait", AFTER],
    "a-call-returning-1-in-the-background": ["set -e", f"f() {{ {PCP}; return 1; }}", "f &", "wait", AFTER],
    "set-plus-e-in-a-call-in-the-background": ["set -e", "f() { set +e; }", "f &", "wait", DCB, AFTER],
    # the command after the last `&&` or `||` of a list is not tested: its failure ends the script (before: any
    # command of a line holding `&&` or `||` was read as tested, `||` in a `$(...)` of the line too)
    "a-failure-after-and": ["set -e", f"true && {DCB}", PCP, AFTER],
    "a-failure-after-or": ["set -e", f"false || {DCB}", PCP, AFTER],
    "a-failure-beside-an-or-in-a-substitution": ["set -e", f"{DCB}; y=$(true || true)", AFTER],
    "a-failure-beside-an-and-in-backticks": ["set -e", f"{DCB}; y=`true && true`", AFTER],
    # a `( )` subshell's status is its last command's, however that command ends it: an if, a loop, a subshell of
    # its own, an && or || list (where `&&` skips what follows a failure), a bare `exit` (before: read as carrying on)
    "a-subshell-ending-in-a-subshell-that-fails": ["set -e", f"( set +e; ( {DCB} ) )", AFTER],
    "a-subshell-ending-in-a-subshell-that-fails-over-lines": ["set -e", "(", "  set +e", "  (", f"    {DCB}", "  )",
                                                               ")", AFTER],
    "a-subshell-ending-in-an-and-list-that-fails": ["set -e", f"( set +e; true && {DCB} )", AFTER],
    "a-subshell-ending-in-an-or-list-that-fails": ["set -e", f"( set +e; false || {DCB} )", AFTER],
    "a-subshell-ending-in-a-failure-before-and": ["set -e", f"( set +e; {DCB} && true )", AFTER],
    "a-subshell-ending-in-a-failure-before-and-and-or": ["set -e", f"( set +e; {DCB} && {PCP} || {DCB} )", AFTER],
    "a-subshell-ending-in-a-failing-call-before-and": ["set -e", f"g() {{ {DCB}; }}", "( set +e; g && true )", AFTER],
    "a-subshell-ending-in-a-loop-that-fails": ["set -e", "(", "  set +e", "  for p in a; do", f"    {DCB}", "  done",
                                               ")", AFTER],
    "a-subshell-ending-in-an-if-that-fails": ["set -e", "(", "  set +e", "  if true; then", f"    {DCB}", "  fi", ")",
                                              AFTER],
    "a-subshell-ending-in-a-bare-exit-after-a-failure": ["set -e", f"( set +e; {DCB}; exit )", AFTER],
    "a-subshell-ending-in-exit-status-after-a-failure": ["set -e", f"( set +e; {DCB}; exit $? )", AFTER],
    "a-subshell-piped-on-backticks": ["set -e", f"( set +e; {DCB} ); echo `echo a | cat`", AFTER],
    # a compound command piped into (or out of) runs in a subshell of the pipeline: a `set` in it is its own, an exit
    # in it ends it only, and its status is the pipeline's where it is the last part (before: the set reached the
    # shell, the exit ended the script)
    "set-plus-e-in-a-piped-loop": ["set -e", "for p in a; do set +e; done | cat", DCB, AFTER],
    "set-plus-e-in-a-group-piped-into": ["set -e", "echo | { set +e; }", DCB, AFTER],
    "set-plus-e-in-a-group-piped-into-over-lines": ["set -e", "echo | {", "  set +e", "}", DCB, AFTER],
    "set-plus-e-in-a-loop-piped-into": ["set -e", "echo a | while read x; do set +e; done", DCB, AFTER],
    "set-e-in-a-loop-piped-into": ["echo a | while read x; do set -e; done", DCB, AFTER],
    "set-plus-e-in-a-for-loop-piped-into": ["set -e", "echo | for p in a; do set +e; done", DCB, AFTER],
    "set-plus-e-in-a-case-piped-into": ["set -e", "echo | case a in a) set +e;; esac", DCB, AFTER],
    "set-plus-e-in-an-if-piped-into": ["set -e", "echo | if true; then set +e; fi", DCB, AFTER],
    "a-failure-ends-a-group-piped-into": [f"echo | {{ set -e; {DCB}; {PCP}; }}", AFTER],
    "a-failure-ends-a-loop-piped-into": ["set -e", "echo a | while read x; do", f"  {DCB}", f"  {PCP}", "done",
                                         AFTER],
    "a-failure-ends-a-for-loop-piped-into-with-e-off": ["set -e", f"echo | for p in a; do set +e; {DCB}; done",
                                                        AFTER],
    "exit-in-a-group-piped-into": ["echo | { exit 1; }", AFTER],
    "a-piped-loop-that-fails-under-pipefail": ["set -eo pipefail", f"for p in a; do set +e; {DCB}; done | cat",
                                               AFTER],
    # a function's status is its last command's as it ran (a list whose `&&` skipped after a failure, a subshell, a
    # loop), which its call, its command substitution and, under pipefail, its pipeline take (before: only its last
    # line, where set -e would have ended it, or its `return N`)
    "a-call-whose-last-list-fails-before-and": ["set -e", f"f() {{ {DCB} && true; }}", "f", AFTER],
    "a-call-ending-in-a-subshell-returning-1-substituted": ["set -e", "g() {", f"  {PCP}", "  ( return 1 )", "}",
                                                            "x=$(g)", AFTER],
    "a-call-ending-in-a-failing-subshell-piped-under-pipefail": ["set -e", "(", "  set +e -o pipefail",
                                                                 f"  f() {{ ( {PCP}; {DCB} ); }}", "  f | cat", ")",
                                                                 AFTER],
    "a-call-ending-in-a-failing-loop-piped-under-pipefail": ["set -e", "(", "  set +e -o pipefail",
                                                             f"  f() {{ for p in a; do {DCB}; done; }}", "  f | cat",
                                                             ")", AFTER],
    # a `return` in a `( )` subshell of a function's body ends that subshell only, also from a loop in it; an `exit`
    # in a `{ }` group ends what the group is in (before: the function's body, or the group only)
    "return-in-a-loop-in-a-subshell-of-a-function": ["g() {", "  (", "    for p in a; do return 1; done", f"    {DCB}",
                                                     "  )", f"  {PCP}", "}", "g", AFTER],
    "exit-in-a-group-in-a-subshell": ["(", "  {", "    exit 1", "  }", f"  {PCP}", ")", AFTER],
    "exit-in-a-group-in-a-function": ["f() {", "  {", "    exit 1", "  }", f"  {PCP}", "}", "f", AFTER],
    # `!` makes a status of 0 fail: a subshell or function ending in `!` of a command known to succeed (true, `:`, set,
    # shopt, `return 0`, a function or subshell ending in one) fails (before: read as carrying on)
    "a-subshell-ending-in-not-true": ["set -e", "( ! true )", AFTER],
    "a-subshell-ending-in-not-a-call-that-succeeds": ["set -e", "f() { shopt -s inherit_errexit; }", "( ! f )", AFTER],
    "a-subshell-ending-in-not-a-call-returning-0": ["set -e", "f() { return 0; }", "( ! f )", AFTER],
    "a-subshell-ending-in-not-a-subshell": ["set -e", "( ! ( true ) )", AFTER],
    "a-call-ending-in-not-true": ["set -e", "g() { ! true; }", "g", AFTER],
    "a-subshell-ending-in-not-a-call-that-fails": ["set -e", f"f() {{ {DCB}; }}", "( ! f )", AFTER],
    # `return` (or `exit`) as an if's test returns whenever the if runs (before: read as a test that returns nothing)
    "return-1-as-an-if-test": ["set -e", "f() {", "  if return 1; then :; fi", f"  {PCP}", "}", "f", AFTER],
    "return-0-as-an-if-test": ["set -e", "f() {", "  if return 0; then :; fi", f"  {PCP}", "}", "f", AFTER],
    "return-in-a-group-as-an-if-test": ["g() {", "  if", "    { return 1; }", "    true", "  then :; fi", f"  {PCP}",
                                        "}", "g", AFTER],
    # a pipeline's status is its last part's, or under pipefail the last failing part's (bash(1) Pipelines): a `dcb`
    # known to fail piped into a log ends the script where pipefail is on (before: read on), a `dcb` last in a
    # pipeline whether it is on or not (before: read on), and the pipeline's `&&` skips (review 31)
    "a-failure-piped-into-a-log-under-pipefail": ["set -eo pipefail", PCP, f"{DCB} 2>&1 | tee -a /tmp/q.log", AFTER],
    "a-failure-piped-into-a-log-without-pipefail": ["set -e", PCP, f"{DCB} | tee -a /tmp/q.log", AFTER],
    "a-failure-piped-into-logger-under-pipefail-over-lines": ["set -e", "set -o pipefail", f"{DCB} |&", "  logger -t q",
                                                              AFTER],
    "a-failure-piped-into-two-under-pipefail-then-off": ["set -eo pipefail", "set +o pipefail",
                                                         f"{DCB} | tee /tmp/q.log | cat", AFTER],
    "a-failure-last-in-a-pipeline": ["set -e", f"true | {DCB}", AFTER],
    "a-failure-piped-before-and-under-pipefail": ["set -eo pipefail", f"{DCB} | cat && {PCP}", AFTER],
    "a-failure-piped-before-and-without-pipefail": ["set -e", f"{DCB} | cat && {PCP}", AFTER],
    "a-failure-piped-before-or-under-pipefail": ["set -eo pipefail", f"{DCB} | cat || {PCP}", AFTER],
    "a-failure-piped-in-a-substitution-under-pipefail": ["set -eo pipefail", f"x=$({DCB} | cat)", AFTER],
    "a-failure-piped-last-in-a-function-under-pipefail": ["set -eo pipefail", f"f() {{ {DCB} | cat; }}", "f",
                                                          AFTER],
    "a-failure-piped-last-in-a-subshell-under-pipefail": ["set -o pipefail", "set -e", f"( set +e; {DCB} | cat )",
                                                          AFTER],
    "a-refused-write-piped-on-under-pipefail": ["set -eo pipefail", f"echo 9 | tee {P2B} | cat", AFTER],
    # `return` outside a function is an error bash goes on after, also in a `( )` subshell (before: it ended that)
    "return-outside-a-function-in-a-subshell": ["(", "  { return 1; }", f"  ( {PCP}; {DCB} )", ")", AFTER],
    # a function's definition is a command whose status is 0: a subshell ending in one after a failure succeeds (bash(1)
    # Shell Function Definitions; before: it kept the failure before it, and the reading ended)
    "a-subshell-ending-in-a-definition-after-a-failure": ["set -e", f"( set +e; {DCB}; g() {{ :; }} )", AFTER],
    "a-subshell-ending-in-a-definition-after-a-failure-over-lines": ["set -e", "(", "  set +e", f"  {DCB}", "  g() {",
                                                                     "    :", "  }", ")", AFTER],
    "a-bare-exit-after-a-definition-after-a-failure": ["set -e", f"( set +e; {DCB}; g() {{ :; }}; exit )", AFTER],
    # a compound command piped into another command before `&&` or `||` is tested (its failures end nothing); an exit
    # in it ends that part only; the pipeline's status, under pipefail its own, skips what `&&` runs (before: what
    # `&&` runs was dropped, or the reading ended there; review 31)
    "a-group-piped-before-and": ["set -e", f"{{ {DCB}; }} | cat && {PCP}", AFTER],
    "a-group-piped-before-and-under-pipefail": ["set -eo pipefail", f"{{ {DCB}; }} | cat && {PCP}", AFTER],
    "a-group-piped-before-or-under-pipefail": ["set -eo pipefail", f"{{ {DCB}; }} | cat || {PCP}", AFTER],
    "a-group-piped-going-on-before-and": ["set -e", f"{{ {DCB}; {PCP}; }} | cat && mlnx_qos -i eth2 --trust pcp",
                                          AFTER],
    "a-loop-piped-before-and-under-pipefail": ["set -eo pipefail", f"for p in a; do {DCB}; done | cat && {PCP}",
                                               AFTER],
    "an-exit-in-a-group-piped-before-and": ["set -e", f"{{ {PCP}; exit 1; }} | cat && mlnx_qos -i eth2 --trust pcp",
                                            AFTER],
    # a pipeline whose last part is a compound command, before `||` or after `!`, is tested: its failure ends nothing,
    # nor does one in that compound command (before: the reading ended there; review 31)
    "a-loop-piped-into-before-or": ["set -e", "echo eth1 | while read dev; do", f"  {PCP}", f"  {DCB}", "done || true",
                                    AFTER],
    "a-group-piped-into-before-or": ["set -e", f"true | {{ {DCB}; }} || true", AFTER],
    "an-if-piped-into-before-or": ["set -e", f"true | if true; then {DCB}; fi || true", AFTER],
    "a-group-piped-into-negated": ["set -e", f"! true | {{ {DCB}; {PCP}; }}", AFTER],
    "a-loop-piped-into-negated": ["set -e", f"! true | while true; do {DCB}; {PCP}; break; done", AFTER],
    # its status turned over is the subshell's it ends (before: the pipeline's, not turned over)
    "a-subshell-ending-in-a-group-piped-into-negated": ["set -e", f"( ! true | {{ {DCB}; }} )", AFTER],
    "a-subshell-ending-in-a-succeeding-group-piped-into-negated": ["set -e", "( ! true | { true; } )", AFTER],
    # a `sh -c` shell piped into another: both run (bash(1) Pipelines), and the pipeline's status is the last's, or
    # under pipefail the last that fails (before: neither was read, and the script read on past their failure)
    "a-failing-shell-piped-into-a-shell-under-pipefail": ["set -eo pipefail", f"sh -c '{DCB}' | sh -c 'cat'", PCP,
                                                          AFTER],
    "a-shell-piped-into-a-failing-shell": ["set -e", f"sh -c '{PCP}' | sh -c '{DCB}'", AFTER],
    "a-failing-shell-piped-into-a-shell": ["set -e", f"sh -c '{DCB}' | bash -c '{PCP}'", AFTER],
    "a-failing-shell-piped-into-a-shell-and-tee": ["set -eo pipefail", f"sh -c '{DCB}' | sh -c 'true' | tee /dev/null",
                                                   AFTER],
    "a-shell-piped-into-a-shell-before-or": ["set -eo pipefail", f"sh -c '{PCP}' | sh -c '{DCB}' || true", AFTER],
    # such a pipeline's status before `&&`: under pipefail the last failing shell's, not the last shell's (before: `cat`
    # in the last shell made it succeed and what `&&` runs was read); a shell after a part that only prints is read
    # (before: `echo y | sh -c '...'` was not read at all, nor did its failure end the script)
    "a-failing-shell-piped-into-a-shell-before-and-under-pipefail": ["set -eo pipefail",
                                                                     f"sh -c '{DCB}' | sh -c 'cat' && {PCP}", AFTER],
    "a-shell-piped-into-a-failing-shell-before-and": ["set -e", f"sh -c 'true' | sh -c '{DCB}' && {PCP}", AFTER],
    "an-echo-piped-into-a-shell": ["set -e", f"echo y | sh -c '{PCP}'", AFTER],
    "true-piped-into-a-failing-shell": ["set -e", f"true | sh -c '{DCB}'", AFTER],
    # a shell that sets pipefail itself fails with its last pipeline's failing part (before: not followed)
    "a-shell-ending-in-a-pipeline-under-its-own-pipefail": ["set -e", f"bash -c 'set -o pipefail; {DCB} | cat'",
                                                            AFTER],
    "a-shell-piped-into-one-ending-under-its-own-pipefail": [
        "set -e", f"sh -c 'true' | bash -c 'set -o pipefail; {DCB} | cat'", AFTER],
    "a-shell-setting-pipefail-then-off": ["set -e", f"bash -c 'set -o pipefail; set +o pipefail; {DCB} | cat'",
                                          AFTER],
    "printf-piped-into-a-shell-and-a-log": ["set -eo pipefail", f"printf 'y\\n' | bash -c '{DCB}' | tee -a /tmp/q.log",
                                            PCP, AFTER],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", list(PLACED))
def test_errexit_is_set_where_its_line_runs(name, tmp_path):
    text = "\n".join(["#!/bin/bash", *PLACED[name]]) + "\n"
    assert read_calls(text) == bash_calls(text, tmp_path)


def test_a_script_ended_by_errexit_says_why_at_the_line_that_fails():
    """The SYS004 names the failing line and what failed in it: a command substitution's status, a subshell's end,
    a pipeline's part under pipefail."""
    cases = [
        (["set -e", f"x=$({DCB})"], 3, "its command substitution fails"),
        (["set -e", "(", f"  {DCB}", ")"], 5, "a `( )` subshell ends"),
        (["set -eo pipefail", *TRUST, "trust | cat"], 7, "piped under `set -o pipefail`"),
        (["set -eo pipefail", f"{DCB} | tee -a /tmp/q.log"], 3, "piped, under `set -o pipefail`"),
        (["set -eo pipefail", f"sh -c '{DCB}' | sh -c 'cat'"], 3, "piped under `set -o pipefail` and its `sh -c`"),
    ]
    for lines, line, why in cases:
        host = mlx5.parse([Input("e.sh", "\n".join(["#!/bin/bash", *lines, AFTER]) + "\n")], "h")
        ended = [i for i in host.issues if i.code == "SYS004" and "the script ends here" in i.message]
        assert [i.source.line for i in ended] == [line] and why in ended[0].message, host.issues
        assert "`set -e` is in force" in ended[0].message and host.ports["eth1"].trust is None


def test_sh_keeps_errexit_in_a_command_substitution():
    """`#!/bin/sh`: dash, or bash in POSIX mode, keep -e in a command substitution (bash(1) shopt inherit_errexit: on
    in POSIX mode), so `x=$(trust)` ends at trust's failure, and the assignment's failure ends the script."""
    text = "\n".join(["#!/bin/sh", "set -e", *TRUST, "x=$(trust)", AFTER]) + "\n"
    assert read_calls(text) == []
    assert read_calls(text.replace("#!/bin/sh", "#!/bin/bash", 1)) == ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]


# Random scripts of the pieces above, nested (seeded): every one is run by bash and read, and the calls must agree.
# Left out by design: a call after `&&` and a branch of an if or case, which the reader takes as conditional (it does
# not evaluate tests). (`true | { ...; }`, not `echo |`: echo may get SIGPIPE, which fails the pipeline under pipefail
# as the machine's scheduling decides.)
_SIMPLE = [DCB, "mlnx_qos -i eth{k} --trust pcp", "set -e", "set +e", "set -o pipefail", "shopt -s inherit_errexit",
           f"x=$({DCB})", f"( mlnx_qos -i eth{{k}} --trust pcp; {DCB} )", "true", f"{DCB} && true", f"true && {DCB}",
           "true | { set +e; }", f"true & {DCB}", f"{DCB} | cat", f"timeout 10 {DCB}",
           "env X=1 nice -n 1 mlnx_qos -i eth{k} --trust pcp",
           "for q in {1..2}; do mlnx_qos -i eth{k}$q --trust pcp; done",
           f"x=$({DCB}); y=$(mlnx_qos -i eth{{k}} --trust pcp)",
           f"( {DCB}; mlnx_qos -i eth{{k}} --trust pcp ) | cat && true",
           f"sh -c '{DCB}' | tee /dev/null"]
_CALLING = ["f", "g", "f || true", "! f", "x=$(f)", "echo \"$(g)\"", "f | cat", "(f)", "x=$(g)", "g && true",
            "{ g; } | cat && true", "! true | { f; }", "h() { f; }; x=$(h)", "x=1 g"]


def _random_block(rng, depth: int, k: int, calls: bool) -> list[str]:
    if depth > 2 or rng.random() < 0.5:
        pieces = _SIMPLE + (_CALLING if calls else ["return 1"])
        return [rng.choice(pieces).replace("{k}", str(k))]
    kind = rng.randrange(5)
    body = [line for _ in range(rng.randint(1, 3))
            for line in _random_block(rng, depth + 1, k + 1, calls)]
    return [["{", *body, "} || true"], ["(", *body, ")"], ["if", *body, "then :; fi"], ["{", *body, "}"],
            ["for p in a; do", *body, "done"]][kind]


# Random scripts the reader still reads otherwise than bash runs them, by (seed, index): each is known, none is passed
# over unnamed (the test fails where one of them comes to agree, so the list only shrinks).
_DISAGREE: set[tuple[int, int]] = {(47, 21), (59, 11)}  # (with session 32's pieces, seeds 37 to 59 agree but
# these two, run below; session 33 reduced them (docs/real-configs.md, Session 33, Left): (59, 11) is `( ! mlnx_qos
# ... )` under set -e, an mlnx_qos call's status not known to the reader; (47, 21) a `set -e` run inside a `( )`
# subshell that runs where -e is ignored (`! f`), which bash follows in that subshell; a background call, `f &`, is
# no piece: bash's order of its calls is the scheduler's)


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("seed", [*range(30, 37), 47, 59])
def test_random_scripts_are_read_as_bash_runs_them(seed, tmp_path):
    """Before, seeds other than 30 gave 12 disagreements: a loop's `done` was not passed over to a function's last
    command (`g() { for ...; do dcb ...; done; }; x=$(g)`), a function returning 1 piped under pipefail was taken as
    tested, a `set` in a piped call or a command substitution reached the shell around it, and a `return 1` ending a
    `( )` subshell, or its last command failing where -e was off in it, did not make it fail. Three more were left
    (a `( )` subshell ending in a list whose `&&` skipped after a failure, or in `! f` of a function that succeeds),
    and the pieces now hold `&&` lists, a group piped into, a background job and `return 1` in an if's test. With
    `dcb ... | cat` among the pieces (review 31), seeds 31, 32, 33 and 36 disagreed where pipefail was on; with a
    group piped before `&&` and `! true | { f; }` (review 31b), the reader before this round's mend gave 10
    disagreements in seeds 30 to 36, and (32, 24) was left until a negated pipeline's status was turned over. With
    session 32's pieces (wrapped calls, a brace loop, two substitutions on one line, a piped `sh -c`, a subshell piped
    before `&&`, `x=1 g`), (33, 18), (34, 28) and (35, 14) disagreed until a function's status was its last
    assignment's own substitution's and a `sh -c` in a tested group was tested."""
    import random

    rng = random.Random(seed)
    wrong, agree = [], []
    for t in range(30):
        functions = ["f() {", *_random_block(rng, 1, 5, False), "}",
                     "g() {", *_random_block(rng, 1, 7, False), "f", *_random_block(rng, 1, 8, False), "}"]
        main = [line for _ in range(rng.randint(2, 5)) for line in _random_block(rng, 0, 1, True)]
        text = "\n".join(["#!/bin/bash", rng.choice(["set -e", "", "set -eo pipefail"]), *functions, *main, AFTER])
        same = read_calls(text + "\n") == bash_calls(text + "\n", tmp_path / str(t))
        if not same and (seed, t) not in _DISAGREE:
            wrong.append(text)
        elif same and (seed, t) in _DISAGREE:
            agree.append(t)
    assert (wrong, agree) == ([], [])


# bash(1) SHELL BUILTIN COMMANDS: shift, exit and return take a number as bash's legal_number reads it (strtoimax
# base 10: blanks before, a sign, ASCII digits, blanks after). Other text ("²", "1x", "0x10") is "numeric argument
# required": shift fails (status 1) and shifts nothing, exit and return end with status 2. shift past the words or
# by a negative count fails too (status 1) and shifts nothing.
FUNCTION = ["f() {", "  shift {N}", "  mlnx_qos -i $1 --trust pcp", "}", "f eth1 eth2"]
BUILTIN_NUMBERS = {
    **{f"shift {n!r}{' under set -e' if e else ''}": [*(["set -e"] if e else []),
                                                     *(w.replace("{N}", n) for w in FUNCTION), AFTER]
       for n in ("²", "1x", "0x1", "-1", "3", '" 1"', "+1", "01", "1 ") for e in (True, False)},
    # two counts: "too many arguments" shifts nothing and is no status set -e stops at
    "shift 1 1 at the top level under set -e": ["set -e", "shift 1 1", "mlnx_qos -i eth2 --trust pcp", AFTER],
    **{f"{word} {n!r} in a subshell under set -e": ["set -e", f"( {word} {n} )", AFTER]
       for word in ("exit",) for n in ("²", "1x", '" 0"', "-256", "+0", "256", "0x0", '"0 "')},
    **{f"return {n!r} under set -e": ["set -e", f"g() {{ return {n}; }}", "g", AFTER]
       for n in ("²", "1x", '" 0"', "-256", "+0", "0x0")},
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", list(BUILTIN_NUMBERS))
def test_builtin_numbers_are_read_as_bash_reads_them(name, tmp_path):
    """Before, `shift ²` was read as `shift 1` (bash: "numeric argument required", nothing shifted, and under set -e
    the script stops), a shift past the words emptied them, and `exit ²` / `return ²` were read as of unknown status
    (bash: status 2)."""
    text = "\n".join(["#!/bin/bash", *BUILTIN_NUMBERS[name]]) + "\n"
    assert read_calls(text) == bash_calls(text, tmp_path)
