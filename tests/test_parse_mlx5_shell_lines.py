"""How a host setup script's lines are cut into commands, read as bash reads them: bash(1) QUOTING (a backslash quotes
the next character, outside quotes too), COMMENTS (a word beginning with an unquoted `#` and the rest of its line are
ignored), Here Documents, and Pipelines and Lists (a line ending in `|`, `|&`, `&&` or `||` goes on at the next). The
referee is bash itself (tests/bashcalls.py): each case's mlnx_qos calls are those bash makes with a stand-in mlnx_qos
that logs its arguments."""

from __future__ import annotations

import pytest

from losslessd.model import Trust
from losslessd.parse.base import Input
from losslessd.parse.mlx5 import is_command_list, parse
from tests.bashcalls import DASH, assert_calls, bash_calls, read_calls
from tests.workmeter import instruction_growth, mlx5_modules, work

# bash is the referee of each case (tests.bashcalls): a process each, so not in `make test-fast`.
pytestmark = pytest.mark.slow

TRUST = "mlnx_qos -i eth2 --trust dscp"
PFC = "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0"

# (the script's lines after #!, the mlnx_qos calls bash makes in order)
ESCAPED = {
    # an escaped quote opens no quote, so the comment after it is one and its `<<` opens no here-document (before:
    # `\'` to `it's` was read as quoted, the `<<` after `#` opened one, and the rest of the script was lost)
    "an-escaped-quote-before-a-comment": (["echo Can\\'t find the NIC   # it's DSCP (26 << 2)", TRUST, PFC],
                                          ["-i eth2 --trust dscp", "-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-quote-before-a-quote-in-a-comment": (["echo \\' # ' <<E", TRUST, "E"], ["-i eth2 --trust dscp"]),
    "an-ansi-c-quoted-quote": (["x=$'it\\'s' # <<E", TRUST, "E"], ["-i eth2 --trust dscp"]),
    # an escaped blank before `#` joins it to the word: no comment, the `<<` opens a here-document (before: its body
    # was read as commands)
    "an-escaped-blank-before-a-hash": (["echo a\\ #b <<E", TRUST, "E", PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-semicolon-before-a-hash": (["echo a\\;#b <<E", TRUST, "E", PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-backslash-before-a-comment": (["echo a\\\\ #b <<E", TRUST], ["-i eth2 --trust dscp"]),
}


@pytest.mark.parametrize("name", list(ESCAPED))
def test_escapes_outside_quotes_are_read_as_bash_reads_them(name, tmp_path):
    lines, calls = ESCAPED[name]
    assert_calls(lines, calls, tmp_path)


# bash(1) Parameter Expansion: `${...}` is one word, its blanks, `;`, `|`, `<` and `>` its own (before: the line was
# cut at them, so `X=${X:-a; mlnx_qos ...}` ran the mlnx_qos in the default and `${1:?usage: s <if>}` redirected)
EXPANSIONS = {
    "a-default-holding-a-semicolon": (["X=${X:-a; mlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0}", TRUST],
                                      ["-i eth2 --trust dscp"]),
    "a-usage-guard-with-blanks-and-angles": (["IF=eth2", "IF=${IF:?usage: steps <interface> [prio]}", TRUST],
                                             ["-i eth2 --trust dscp"]),
    "an-expansion-with-a-quoted-brace": (["X=${X:-'a }' b | c}", TRUST], ["-i eth2 --trust dscp"]),
    "a-nested-expansion-with-blanks": (["IF=eth2", "X=${X:-${IF} is up; ok}", "mlnx_qos -i $IF --trust dscp"],
                                       ["-i eth2 --trust dscp"]),
}


@pytest.mark.parametrize("name", list(EXPANSIONS))
def test_parameter_expansions_are_one_word_as_bash_reads_them(name, tmp_path):
    lines, calls = EXPANSIONS[name]
    assert_calls(lines, calls, tmp_path)

@pytest.mark.slow  # (valgrind: a process per size)
def test_a_line_of_many_expansions_is_refused_as_a_step_at_once():
    """_STEP read `${a}` as one token or as five characters alike, so a line of many before a blank was tried every
    way (2^n) before it was refused: 26 took 7 s of CPU (40: `lint` never ended). The work inside the pattern is
    counted by callgrind (tests.workmeter.instruction_growth), not timed: 20 expansions cost about what 16 do (2^n:
    16 times)."""
    small, large = instruction_growth(
        "from losslessd.parse.mlx5 import is_command_list",
        "assert not is_command_list('mlnx_qos -i eth2 --trust dscp\\nX=' + '${a}' * n + ' y\\n')", (16, 20))
    assert large < 2 * small + 2, (small, large)
    assert is_command_list("mlnx_qos -i eth2 --trust dscp\nX=" + "${a}" * 40 + "\nIF=${1:?usage: s <if>}\n")


def test_a_line_of_unclosed_expansions_is_read_once():
    """Each unclosed `${` of a line scanned on to the line's end, once per `${`: 4,000 of them in a script took 13 s of
    CPU, 8,000 46 s (quadratic). Now each `${` the scan passes keeps its answer."""
    counts = []
    for n in (1_000, 4_000):
        script = "#!/bin/bash\nmlnx_qos -i eth2 --trust pcp\nX=" + "${" * n + "}\n"
        count, device = work(mlx5_modules(), parse, [Input("s.sh", script)], "h")
        assert device.ports["eth2"].trust == Trust.pcp
        counts.append(count)
    assert counts[1] < 6 * counts[0], counts  # (counted, not timed: tests.workmeter)


# bash(1) QUOTING, ANSI-C Quoting: in `$'...'` a backslash escapes, `\\'` included (before: the split read `$'it\\'s'`
# as a quote left open and named the line a command substitution never closed)
ANSI_C = {
    "an-escaped-quote": (["mlnx_qos -i eth2 --trust pcp", "echo $'it\\'s'", TRUST],
                         ["-i eth2 --trust pcp", "-i eth2 --trust dscp"]),
    "an-escaped-quote-before-a-command": (["echo $'it\\'s' > /dev/null; " + TRUST], ["-i eth2 --trust dscp"]),
    "an-escaped-quote-and-paren-in-a-substitution": (["x=$(echo $'a\\'b)' ); " + PFC],
                                                     ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-backslash-then-a-command": (["z=$'\\\\'; " + TRUST], ["-i eth2 --trust dscp"]),
    "hex-and-octal-escapes-in-a-name": (["IF=$'eth\\x32'; mlnx_qos -i $IF --trust dscp",
                                         "mlnx_qos -i $'eth\\0623' --trust pcp"],
                                        ["-i eth2 --trust dscp", "-i eth23 --trust pcp"]),
    "in-a-default": (["X=${Y:-$'}\\''}; " + TRUST], ["-i eth2 --trust dscp"]),
    "a-literal-in-double-quotes": (['echo "$\'x"; ' + TRUST], ["-i eth2 --trust dscp"]),
}


@pytest.mark.parametrize("name", list(ANSI_C))
def test_ansi_c_quoted_words_are_read_as_bash_reads_them(name, tmp_path):
    lines, calls = ANSI_C[name]
    assert_calls(lines, calls, tmp_path)


PCP = "mlnx_qos -i eth2 --trust pcp"
# bash(1) Parameter Expansion: a `${...}` bash cannot read (subst.c: "bad substitution") drops the command it is in and
# the rest of the top-level command it runs (a whole `if` block, a line's list), and bash goes on after it; where -e is
# on or in POSIX mode, the shell exits (before: the `${a b}` was taken for a value and the rest was read)
BAD_SUBSTITUTIONS = {
    "in-an-if-block": ([PCP, "if true; then", "  X=${a b}", f"  {TRUST}", "fi", PFC],
                       ["-i eth2 --trust pcp", "-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "in-a-list": ([PCP, "echo a; X=${a b}; " + TRUST, PFC], ["-i eth2 --trust pcp", "-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "empty-in-double-quotes-in-a-function": (["f() { X=\"${}\"; " + TRUST + "; }", "f || " + PCP, PFC],
                                             ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "in-a-loop": (["for i in 1 2; do X=${1a}; " + TRUST + "; done", PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "a-colon-and-nothing": (["X=${a:}; " + TRUST, PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "in-a-subshell": (["( X=${a[}; " + TRUST + " ); " + PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "skipped-after-and": (["false && X=${-a}; " + TRUST], ["-i eth2 --trust dscp"]),
    "single-quoted-or-escaped-or-in-a-comment": (["echo '${a b}' \"\\${a b}\"; " + TRUST + "  # ${a b}"],
                                                 ["-i eth2 --trust dscp"]),
    "in-a-substitution-only": (["Y=$(X=${a b}; echo s); " + TRUST], ["-i eth2 --trust dscp"]),
    "good-forms": (["a=1; X=${#}${##a}${!a*}${a: -1}${10}${a[1]}${!#}${a::}${#a[@]}; " + TRUST],
                   ["-i eth2 --trust dscp"]),
    "under-set-e-even-tested": ([PCP, "set -e", "X=${a b} || true", TRUST], ["-i eth2 --trust pcp"]),
    "in-posix-mode": ([PCP, "set -o posix", "X=${a b}", TRUST], ["-i eth2 --trust pcp"]),
}


@pytest.mark.parametrize("name", list(BAD_SUBSTITUTIONS))
def test_bad_substitutions_are_read_as_bash_runs_them(name, tmp_path):
    lines, calls = BAD_SUBSTITUTIONS[name]
    assert_calls(lines, calls, tmp_path)


def test_a_sh_script_exits_at_a_bad_substitution(tmp_path):
    """dash (Debian's /bin/sh) exits at a bad substitution, as bash does in POSIX mode."""
    text = f"#!/bin/sh\n{PCP}\nX=${{a b}}\n{TRUST}\n"
    assert read_calls(text) == ["-i eth2 --trust pcp"]
    if DASH:
        assert bash_calls(text, tmp_path, shell=DASH) == ["-i eth2 --trust pcp"]


def test_lines_of_ansi_c_words_and_bad_substitutions_are_read_in_linear_time():
    """Each `$'...'` and `${...}` is stepped over once: four times the pieces, about four times the work (counted by
    tests.workmeter, not timed)."""
    for piece in ("$'a\\'b' ", "${a b}", '"${}"', "${a:-${b}}", "$'"):
        counts = [work(mlx5_modules(), parse, [Input("s.sh", f"#!/bin/bash\n{PCP}\nX=" + piece * n + f"; {TRUST}\n")],
                       "h")[0] for n in (2_000, 8_000)]
        assert counts[1] < 6 * counts[0], (piece, counts)


DCB = "dcb apptrust set dev eth2 order pcp dscp"  # (fails on mlx5: see losslessd/parse/mlx5/dcb.py fails)

# bash(1) SHELL GRAMMAR: a pipeline's `|` (or `|&`) and a list's `&&` or `||` at a line's end, a comment after it or
# not, go on at the next line that holds a command (blank and comment lines between are skipped)
OVER_LINES = {
    "a-pipe-at-the-end": ([f"{PFC} 2>&1 |", "  tee -a /tmp/q.log", TRUST],
                          ["-i eth2 --pfc 0,0,0,1,0,0,0,0", "-i eth2 --trust dscp"]),
    "a-pipe-before-a-comment": ([f"{PFC} 2>&1 | # keep a log", "  tee -a /tmp/q.log"],
                                ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "a-pipe-of-stderr-at-the-end": ([f"{PFC} |&", "  logger -t q"], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "a-pipe-before-blank-and-comment-lines": ([f"{PFC} |", "", "  # the log", "  tee -a /tmp/q.log"],
                                              ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "a-pipe-at-the-end-of-two-lines": ([f"{PFC} |", "  grep -v x |", "  tee -a /tmp/q.log"],
                                       ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "a-pipe-after-a-continued-line": (["mlnx_qos -i eth2 \\", "  --pfc 0,0,0,1,0,0,0,0 |", "  tee -a /tmp/q.log"],
                                      ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    # (`\ #x` is a word: the `|` after it is code)
    "a-pipe-after-an-escaped-blank-and-hash": ([f"{PFC} \\ #x |", "  cat"], ["-i eth2 --pfc 0,0,0,1,0,0,0,0  #x"]),
    "an-escaped-pipe-at-the-end": (["echo \\|", TRUST], ["-i eth2 --trust dscp"]),
    "a-pipe-in-a-comment-at-the-end": (["echo a # b |", TRUST], ["-i eth2 --trust dscp"]),
    "an-or-at-the-end": ([f"{DCB} ||", "  # say so", f"  {TRUST}"], ["-i eth2 --trust dscp"]),
    "an-and-at-the-end": ([f"{TRUST} && # then", "", f"  {PFC}"],
                          ["-i eth2 --trust dscp", "-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "a-failure-before-an-and-at-the-end": (["set -e", f"{DCB} &&", f"  {PFC}", TRUST], ["-i eth2 --trust dscp"]),
    "a-failure-after-an-and-at-the-end": (["set -e", "true &&", f"  {DCB}", TRUST], []),
    "a-failure-before-an-or-at-the-end-under-e": (["set -e", f"{DCB} ||", f"  {PFC}", TRUST],
                                                  ["-i eth2 --pfc 0,0,0,1,0,0,0,0", "-i eth2 --trust dscp"]),
}


@pytest.mark.parametrize("name", list(OVER_LINES))
def test_pipelines_and_lists_over_lines_are_read_as_bash_reads_them(name, tmp_path):
    lines, calls = OVER_LINES[name]
    assert_calls(lines, calls, tmp_path)


def test_a_call_piped_into_a_log_over_lines_sets_what_it_sets_and_is_named_at_its_first_line():
    """Before: `mlnx_qos ... 2>&1 |` was skipped ("'|' is not an mlnx_qos option") and `tee -a LOG` below it was
    named as a command not read."""
    from losslessd.parse import mlx5
    from losslessd.parse.base import Input

    text = "\n".join(["#!/bin/bash", f"{TRUST} |& # keep a log", "", "  tee -a /var/log/q.log", f"{PFC} 2>&1 |",
                      "  sudo tee -a /var/log/q.log |", "  logger -t q", "mlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0 |",
                      "  xargs echo"]) + "\n"
    host = mlx5.parse([Input("p.sh", text)], "h")
    assert (host.ports["eth2"].trust, host.ports["eth2"].pfc_enabled) == (Trust.dscp, [3])
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS002", 8)]  # (the pipe into xargs: not read)
