"""Host setup scripts cut short in an if, case, { } group or ( ) subshell: bash(1) reads a compound command whole
before it runs it, so one never closed (or closed by the wrong word) is a syntax error and nothing from it on runs.
The fixtures are written from the bash manual (Compound Commands, Reserved Words, Pipelines, QUOTING, COMMENTS);
bash itself (`bash -n`) says of each whether it is a whole script."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from losslessd.errors import InputError
from losslessd.model import Trust
from losslessd.parse import mlx5
from losslessd.parse.base import Input
from losslessd.parse.mlx5 import script
from tests.bashcalls import assert_calls

# bash is the referee of most cases here (`bash -n`, tests.bashcalls): a process each, so not in `make test-fast`.
pytestmark = pytest.mark.slow
BEFORE = "mlnx_qos -i eth0 --trust dscp"  # runs: it comes before the broken block
INSIDE = "mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0"
AFTER = "mlnx_qos -i eth1 --trust dscp"
BASH = shutil.which("bash")


def parse_text(name: str, text: str):
    return mlx5.parse([Input(name, text)], "h")


def bash_reads_whole(text: str) -> bool:
    """What bash says of the script: True when it parses whole (`bash -n`), False on a syntax error."""
    assert BASH is not None
    return subprocess.run([BASH, "-n"], input=text, capture_output=True, text=True, check=False).returncode == 0


# (the lines between BEFORE and AFTER; the line, counted from 1 with the #! line, where nothing runs from; what the
# SYS002 says)
CUT = {
    "if-without-fi": (["if [ -d /sys/class/net/eth1 ]; then", f"  {INSIDE}"], 3, "no `fi` closes this `if`"),
    "else-without-fi": (["if [ -e /x ]; then", "  :", "else", f"  {INSIDE}"], 3, "no `fi` closes this `if`"),
    "case-without-esac": (["case \"$HOSTNAME\" in", "  gpu*)", f"    {INSIDE}", "    ;;"], 3,
                          "no `esac` closes this `case`"),
    "brace-without-close": (["{", f"  {INSIDE}"], 3, "no `}` closes this `{` group"),
    "brace-closed-as-an-argument": ([f"{{ {INSIDE} }}"], 3, "no `}` closes this `{` group"),  # (`}` is a word)
    "subshell-without-close": (["(", f"  {INSIDE}"], 3, "no `)` closes this `(` subshell"),
    "if-in-a-loop-closed-by-done": (["for i in eth1; do", "  if true; then", f"    {INSIDE}", "done"], 3,
                                    "`done` on line 6 where the `if` of line 4 wants `fi`"),
    "loop-in-an-if-closed-by-fi": (["if true; then", "  for i in eth1; do", f"    {INSIDE}", "fi"], 3,
                                   "`fi` on line 6 where the `for` of line 4 wants `done`"),
    "unclosed-if-inside-a-closed-case": (["case x in", "  x) if true; then", f"    {INSIDE}", "  ;;", "esac"], 3,
                                         "`esac` on line 7 where the `if` of line 4 wants `fi`"),
    "stray-fi": ([":", "fi"], 4, "`fi` on line 4 where nothing is open"),
    "loop-body-all-commented-out": (["for i in eth1; do", f"  # {INSIDE}", "done"], 3,
                                    "`done` on line 5 ends an empty `do` body"),
    "empty-group": (["{", "}"], 3, "`}` on line 4 ends an empty `{` body"),
    "empty-condition": (["if", "then :", "fi"], 3, "`then` on line 4 ends an empty `if` condition"),
    "if-without-then": (["if [ -e /sys/class/net/eth1 ]", f"  {INSIDE}", "fi"], 3,
                        "`fi` on line 5 where the `if` of line 3 wants `then`"),
    "loop-without-do": (["for i in eth1", f"  {INSIDE}", "done"], 3,
                        "`done` on line 5 where the `for` of line 3 wants `do`"),
    "elif-after-else": (["if true; then :", "else :", "elif true; then :", "fi"], 3,
                        "`elif` on line 5 where the `if` of line 3 wants `fi`"),
    "quote-in-a-loop-swallows-its-done": (["for i in eth1; do", "  echo 'it", f"  {INSIDE}", "done"], 3,
                                          "no `done` closes this loop (a quote opened on line 4 is never closed)"),
    "stray-done-after-a-closed-loop": (["for i in eth1; do :; done", "done"], 4, "`done` on line 4 where nothing"),
    # bash(1) DEFINITIONS: `)` is a metacharacter, an operator wherever it is unquoted; one that closes nothing is a
    # syntax error, and the line's list it is in runs none of its commands
    "stray-paren": ([":", ")"], 4, "`)` on line 4 where nothing is open"),
    "stray-paren-after-a-command-on-its-line": ([f"{INSIDE}; )"], 3, "`)` on line 3 where nothing is open"),
    "stray-paren-glued-to-a-word": ([f"{INSIDE} eth1)"], 3, "`)` on line 3 where nothing is open"),
    "paren-closing-a-group": (["{ :", f"  {INSIDE} )"], 3, "`)` on line 4 where the `{` of line 3 wants `}`"),
    "one-paren-too-many": ([f"( {INSIDE} ))"], 3, "`)` on line 3 where nothing is open"),
    "substitution-never-closed": (["x=$(ls |", f"  {INSIDE}"], 3, "a command substitution"),
}


@pytest.mark.parametrize("name", list(CUT))
def test_a_block_bash_cannot_read_whole_runs_nothing_from_its_first_line(name):
    """The commands before the block are read, none from its first line on, and a SYS002 there says why (before:
    read as if the block had run, so a script cut in an if could lint clean)."""
    lines, stop, why = CUT[name]
    text = "\n".join(["#!/bin/bash", BEFORE, *lines, AFTER])
    if BASH:
        assert not bash_reads_whole(text)
    host = parse_text("cut.sh", text)
    assert host.ports["eth0"].trust == Trust.dscp and "eth1" not in host.ports
    (issue,) = [i for i in host.issues if i.code == "SYS002"]
    assert issue.source.line == stop and why in issue.message
    assert "runs neither this command nor anything after it" in issue.message


# Whole scripts whose closing words bash matches otherwise than by a line's first word: each is read in full.
WHOLE = {
    "closing-words-as-arguments": ["echo fi done esac }", "printf '%s\\n' then", INSIDE],
    "quoted-esac-is-a-pattern": ["case \"$1\" in", "  \"esac\") echo odd ;;", f"  *) {INSIDE} ;;", "esac"],
    "one-line-case-and-if": [f"case x in x) if true; then {INSIDE}; fi ;; esac"],
    "elif-else-and-fall-through": ["if [ -e /a ]; then", "  :", "elif [ -e /b ]; then", "  :", "else",
                                   f"  case y in y) {INSIDE} ;& *) : ;; esac", "fi"],
    "loop-fed-and-feeding-pipes": ["ibdev2netdev | while read -r dev port n rest; do", "  :", "done | sort",
                                   "while read -r l; do :; done < /etc/hosts", f"for i in eth1; do {INSIDE}; done"],
    "compound-conditions": ["if { [ -e /a ] || [ -e /b ]; }; then :; fi",
                            "while case \"$#\" in 0) break ;; esac; do shift; done", INSIDE],
    "subshells": [f"(cd /tmp && {INSIDE})", "( true", "  true ) | cat", "(for i in 1; do :; done)"],
    "groups-and-functions": ["die() { echo \"$*\" >&2; exit 1; }", "setup() {", f"  {INSIDE}", "}", "setup",
                             "[ -n \"$x\" ] || { echo no; }", "test $# -eq 0 && { echo args; }"],
    "quoted-program-over-lines": ["awk '", "  /x/ { if (n) { n++ } }", "  END { while (0) { } }", "' /etc/hosts",
                                  ": \"", "  for (1) { done() }", "\" || true", INSIDE],
    "for-without-in": ["set -- eth1", f"for i do {INSIDE}; done", f"for ((k = 0; k < 1; k++)) do {INSIDE}; done"],
    "a-body-of-function-calls": ["say() { echo \"$*\"; }", "for i in a; do", "  say $i", "done", INSIDE],
    "pod-block-after-a-colon": [": <<=cut", "=head1 NAME", "It's the host's setup", "=cut", INSIDE],
    "comment-with-a-quote": ["# don't: a comment's quote opens nothing", f"{INSIDE}  # it's read"],
    # parentheses that are no operators (bash(1) QUOTING, Command Substitution, Process Substitution, ARITHMETIC
    # EVALUATION, [[ expression ]], Arrays, Shell Function Definitions)
    "quoted-and-escaped-parens": ["echo \")\" ')' \\) \"$(ls /sys/class/net/eth1/device/infiniband)\"",
                                  "[ \\( -e /a \\) ] || :", INSIDE],
    "substitutions-over-lines": ["n=$(ibdev2netdev |", "  awk '{ print $5 }' |  # it's a comment", "  wc -l)",
                                 "m=`ls /sys/class/net |", "  wc -l`", "functions=$(cat <<\\EOF", "f() ( : )", "EOF",
                                 ")", "k=$(case $1 in", "  a) echo x ;;", "esac)", INSIDE],
    "process-substitution": ["while read -r dev port n nd rest; do :; done < <(ibdev2netdev | awk '{print $1}')",
                             INSIDE],
    "arithmetic-and-tests": ["(( (1 + 2) > 0 )) || exit 1", "[[ -e /a && ( -e /b || -e /c ) ]] || :",
                             "[[ $x =~ ^(eth|ens)[0-9]+$ ]] || :",
                             "for ((i = 0; i < $(( (2 + 1) * 2 )); i++)); do :; done", INSIDE],
    "arrays-and-function-bodies": ["f() ( : )", "g() { local -a p=(a b); echo \"${p[@]}\"; }", "h() (",
                                   f"  {INSIDE}", ")", "r=(a", "  b)", "h"],
    "quotes-inside-a-quoted-substitution": ["old=\"$(grep -s \"$1\" /etc/roce.conf | sed -n -e \"\\' x ' { p }\")\"",
                                            "dev=\"$(ibdev2netdev | awk '$5 == \"eth1\" {print $1}')\"", INSIDE],
    "case-with-its-in-below-and-comments": ["case \"$1\"", "in", "  x)# a comment after a pattern", "    : ;;",
                                            f"  *) {INSIDE} ;;", "esac"],
}


@pytest.mark.parametrize("name", list(WHOLE))
def test_a_whole_script_is_read_to_its_end(name):
    text = "\n".join(["#!/bin/bash", BEFORE, *WHOLE[name], AFTER])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("whole.sh", text)
    assert host.ports["eth1"].pfc_enabled == [3] and host.ports["eth1"].trust == Trust.dscp
    assert not [i for i in host.issues if i.code == "SYS002"], host.issues


def test_blocks_nest_at_most_64_deep_and_the_reading_is_linear():
    """Each open block is a frame of the reading (as loops were): 5,000 nested ifs are refused at the 65th, with
    its line; 5,000 closed ones in a row read in one pass."""
    with pytest.raises(InputError) as err:
        parse_text("deep.sh", "#!/bin/bash\n" + "if true; then\n" * 5000 + INSIDE + "\n" + "fi\n" * 5000)
    assert err.value.line == 66 and "nest more than 64 deep" in err.value.message
    host = parse_text("flat.sh", "#!/bin/bash\n" + "if true; then { ( : ); }; fi\n" * 5000 + INSIDE)
    assert host.ports["eth1"].pfc_enabled == [3]
    # a million `)` past the one subshell open: the second is a syntax error (no million closing words are made)
    text = f"#!/bin/bash\n{BEFORE}\n( {INSIDE} " + ")" * 1_000_000 + f"\n{AFTER}"
    if BASH:
        assert not bash_reads_whole(text)
    host = parse_text("parens.sh", text)
    assert "eth1" not in host.ports and [(i.code, i.source.line) for i in host.issues] == [("SYS002", 3)]


def test_an_unclosed_quote_runs_nothing_after_it():
    """bash(1) QUOTING: a quote goes on over lines; one never closed is a syntax error at the end of the file, so the
    commands after it (inside it, to bash) are not read."""
    text = "\n".join(["#!/bin/bash", BEFORE, "echo 'it", INSIDE])
    if BASH:
        assert not bash_reads_whole(text)
    host = parse_text("quote.sh", text)
    assert "eth1" not in host.ports and [(i.code, i.source.line) for i in host.issues] == [("SYS002", 3)]
    assert "a quote opened on this line is never closed" in host.issues[0].message


# bash 5 (`bash -n`, and a run: "unexpected EOF while looking for matching `}'" or "... `\"'", nothing from the line
# on runs) of each: a `${` left open, nested or not, one whose `}` is quoted (in `${` the quotes are its own), one in
# double quotes (the `"` inside it is its own, so the outer quote is never closed).
@pytest.mark.parametrize("opened, why", [
    ("X=${${a", "a parameter expansion `${` opened on this line is never closed"),
    ("X=${a", "a parameter expansion `${` opened on this line is never closed"),
    ("X=${a:-${b}", "a parameter expansion `${` opened on this line is never closed"),
    ('X=${a"}"', "a parameter expansion `${` opened on this line is never closed"),
    ("X=${a'}'", "a parameter expansion `${` opened on this line is never closed"),
    ('X="${a"', "a quote opened on this line is never closed"),
    ('mlnx_qos -i eth1 --trust "${MODE:-dscp"', "a quote opened on this line is never closed"),
])
def test_an_unclosed_parameter_expansion_runs_nothing_after_it(opened, why):
    """bash reads a `${` on to its `}`: one never closed is a syntax error at the end of the file (the brief's
    reproducer, `X=${${a`, was read past, and the commands after it taken as run, with no SYS002)."""
    text = "\n".join(["#!/bin/bash", "mlnx_qos -i eth1 --trust pcp", opened, AFTER])
    if BASH:
        assert not bash_reads_whole(text)
    host = parse_text("brace.sh", text)
    assert host.ports["eth1"].trust == Trust.pcp
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS002", 3)]
    assert why in host.issues[0].message and "runs neither this command nor anything after it" in host.issues[0].message


@pytest.mark.parametrize("closed", ["X=${a:-foo\nbar}", 'X="${a:-"x"}"', "X=${a#}}", "echo '${' # ${", 'X="${a}"'])
def test_a_parameter_expansion_closed_on_its_line_or_below_reads_on(closed):
    """A `${` whose `}` comes on a later line is one word over the lines (bash(1) Parameter Expansion), nested quotes
    are its own, and a `${` in single quotes or a comment is no expansion: the lines after it run (a `bar}` line was
    read as a command of its own)."""
    text = "\n".join(["#!/bin/bash", "mlnx_qos -i eth1 --trust pcp", closed, AFTER])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("brace.sh", text)
    assert host.ports["eth1"].trust == Trust.dscp and host.issues == []


# -- writes whose value or file the script only knows at run time ------------------------------------------------
# Files from the NVIDIA MLNX_OFED user manual, "Explicit Congestion Notification (ECN)":
# `echo 1 > /sys/class/net/<interface>/ecn/<protocol>/enable/X` (protocol roce_np or roce_rp, X a priority), the
# notification point's cnp_dscp and cnp_802p_prio beside them; /sys/class/infiniband/DEV/tc/1/traffic_class.
KNOWN = ["echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3", "echo 1 > /sys/class/net/eth0/ecn/roce_rp/enable/3",
         "echo 48 > /sys/class/net/eth0/ecn/roce_np/cnp_dscp", "echo 6 > /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio",
         "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class", "ip link set dev eth0 mtu 4200",
         "cma_roce_tos -d mlx5_0 -t 106"]


def test_a_write_known_only_at_run_time_makes_that_setting_unknown():
    """`echo $V > FILE`, or a FILE with a part known at run time (`.../enable/$PRIO`): what the write may set is
    unknown from that line on, and a SYS002 says which earlier value no longer stands (before: the write was
    skipped, and the earlier value read as the one the NIC keeps). What it cannot reach stays."""
    text = "\n".join(["#!/bin/bash", "V=$1", "PRIO=$2", *KNOWN,
                      "echo $V > /sys/class/net/eth0/ecn/roce_np/enable/3",
                      "echo 1 | tee /sys/class/net/eth0/ecn/roce_rp/enable/$PRIO",
                      "echo \"$(cat /etc/cnp)\" > /sys/class/net/eth0/ecn/roce_np/cnp_dscp",
                      "echo $V > /sys/class/infiniband/mlx5_0/tc/1/traffic_class",
                      "ip link set dev eth0 mtu $MTU", "cma_roce_tos -d mlx5_0 -t $TOS"])
    host = parse_text("later.sh", text)
    ecn = host.ports["eth0"].nic_ecn
    assert (ecn.np_enabled, ecn.rp_enabled, ecn.cnp_dscp, ecn.cnp_priority) == ({}, {}, None, 6)
    assert (host.rdma_traffic_class, host.ports["eth0"].mtu_bytes, host.roce_tos) == (None, None, None)
    warned = [(i.source.line, i.message) for i in host.issues if i.code == "SYS002"]
    assert [line for line, _ in warned] == list(range(11, 17))
    assert "value known only at run time" in warned[0][1] and "was known: eth0/ecn/roce_np/enable/3" in warned[0][1]
    assert "path known only at run time" in warned[1][1] and "was known: eth0/ecn/roce_rp/enable/3" in warned[1][1]
    # each setting, written again with a literal value, is read again
    host = parse_text("again.sh", text + "\n" + "\n".join(KNOWN))
    ecn = host.ports["eth0"].nic_ecn
    assert (ecn.np_enabled, ecn.rp_enabled, ecn.cnp_dscp) == ({3: True}, {3: True}, 48)
    assert (host.rdma_traffic_class, host.ports["eth0"].mtu_bytes, host.roce_tos) == (106, 4200, 106)


def test_a_run_time_path_reaches_the_files_it_may_name_and_no_others():
    """`$NIC_DIR/ecn/...` reaches that file of every port written so far; `> $FILE` names no file losslessd reads
    (skipped, as before); an interface set at run time (`/sys/class/net/$IF/...`) is any port's: the file is each
    port's read so far (it was a port named `$IF`, set as written, which no host has)."""
    host = parse_text("ports.sh", "\n".join([
        "#!/bin/bash", "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3",
        "echo 1 > /sys/class/net/eth1/ecn/roce_np/enable/3", "echo 1 > /sys/class/net/eth1/ecn/roce_np/enable/5",
        "for d in /sys/class/net/*; do echo 0 > $d/ecn/roce_np/enable/3; done",
        "echo 1 > $FILE", "echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/5"]))
    assert sorted(host.ports) == ["eth0", "eth1"]
    assert host.ports["eth0"].nic_ecn.np_enabled == {} and host.ports["eth1"].nic_ecn.np_enabled == {}
    warned = [(i.source.line, i.message) for i in host.issues if i.code == "SYS002"]
    assert [line for line, _ in warned] == [5, 6, 7]
    assert "eth0/ecn/roce_np/enable/3, eth1/ecn/roce_np/enable/3" in warned[0][1]
    assert "`$FILE` is known only at run time" in warned[1][1]
    assert "path known only at run time" in warned[2][1] and "was known: eth1/ecn/roce_np/enable/5" in warned[2][1]


def test_the_command_an_if_or_while_tests_runs_and_is_read_when_it_sets_the_nic():
    """bash(1) Compound Commands: `if LIST; then` runs LIST, whatever it returns. Scripts set the NIC in the test
    itself (`if ! mlnx_qos -i IF --trust dscp ...; then echo FAIL; exit 1; fi`, `until cma_roce_tos ...; do sleep
    1; done`); those calls were skipped with the `if` (trust, PFC, the map and the ToS unknown). A test that only
    looks (`[ -e F ]`, `ip link show`, `ethtool -i | grep -q`) sets nothing and is not reported."""
    text = "\n".join([
        "#!/bin/bash", "for nd in eth1; do",
        "  if ! mlnx_qos -i \"$nd\" --pfc 0,0,0,1,0,0,0,0 >/dev/null 2>&1 \\",
        "     || ! mlnx_qos -i \"$nd\" --dscp2prio set,26,3 >/dev/null 2>&1; then",
        "    echo \"FAIL $nd\" >&2; exit 1", "  fi", "done",
        "if ip link show dev eth1 > /dev/null 2>&1 && [ -e /sys/class/net/eth1 ]; then :; fi",
        "if ethtool -i eth1 | grep -q mlx5_core; then echo mlx5; fi",
        "until cma_roce_tos -d mlx5_0 -t 106; do sleep 1; done",
        "if", f"  {AFTER}", "then :; elif mlnx_qos -i eth1 --prio_tc 0,1,2,3,4,5,6,7; then :; fi"])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("test.sh", text)
    port = host.ports["eth1"]
    assert (port.pfc_enabled, port.dscp_to_priority, port.trust, host.roce_tos) == ([3], {26: 3}, Trust.dscp, 106)
    assert port.priority_to_tc == dict(enumerate(range(8)))
    assert [i.code for i in host.issues] == ["SYS004"]  # (the blocks: each command read as if it ran once)


def test_an_ansi_c_quoted_word_ends_at_its_own_quote():
    """bash(1) QUOTING: in `$'...'` a `\\'` does not end the word, so no quote is left open after it and the next
    line is a command of its own; the line itself is read too (before: a SYS002 there, the split could not read it)."""
    text = "\n".join(["#!/bin/bash", "printf $'it\\'s\\n'", INSIDE])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("ansi.sh", text)
    assert host.ports["eth1"].pfc_enabled == [3] and host.issues == []


# Pieces of host scripts, put together at random (seeded) into nested blocks, then cut short at a random line as a
# copy interrupted would be: bash -n says whether each is whole, and the reader must say the same.
_PIECES = ["echo a", INSIDE, ": ok", "x=1", "echo \"$#\" 'q'", "test $# -eq 0 && echo none", "echo fi done esac",
           "awk '\n  /x/ { if (n) { n++ } }\n' /etc/hosts", "grep -q x /etc/hosts # it's", "echo \"a\n b\"",
           "cat <<EOF\nif then\nEOF", "printf '%s\\n' \"}\"", "ls | sort", "[ -e /x ] || exit 0",
           "n=$(ls |\n  wc -l)", "echo \")\" \\)", "[[ -e /a && ( -e /b ) ]] || :", ": $(( (1) ))", "x=`ls |\n wc -l`"]


def _blocks(rng, depth: int) -> list[str]:
    if depth > 3 or rng.random() < 0.35:
        return [rng.choice(_PIECES)]
    body = [line for _ in range(rng.randint(1, 2)) for line in _blocks(rng, depth + 1)]
    return rng.choice([
        ["if [ -e /a ]; then", *body, "elif false; then", ":", "else", ":", "fi"],
        ["case \"$1\" in", "  a|b)", *body, "  ;;", "  \"esac\") : ;;", "  *) :;;", "esac"],
        ["for i in a b; do", *body, "done"], ["ls | while read -r l; do", *body, "done | sort"],
        ["{", *body, "} > /dev/null"], ["(", *body, ")"], ["f() {", *body, "}"],
        ["while read -r l; do", *body, "done < /etc/hosts"], ["if", "  true", "then", *body, "fi"],
        ["g() (", *body, ")"], ["x=$(", *body, ")"]])


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_scripts_cut_short_at_random_are_refused_exactly_when_bash_refuses_them():
    import random

    rng = random.Random(27)
    disagree, verdicts = [], set()
    for _ in range(150):
        lines = "\n".join(line for _ in range(3) for line in _blocks(rng, 0)).split("\n")
        text = "#!/bin/bash\n" + "\n".join(lines[:rng.randrange(len(lines) + 1)]) + "\n"
        refused = any(words and words[0] == script.UNCLOSED for _, words, _ in script.commands(text, "cut.sh"))
        verdicts.add(refused)
        if refused == bash_reads_whole(text):
            disagree.append(text)
    assert disagree == [] and verdicts == {True, False}  # (both kinds were made)


def test_a_hash_inside_a_word_is_no_comment():
    """bash(1) COMMENTS: a `#` starts a comment only where it starts a word. A `$(...)#` word was cut there (its
    redirection unread: the earlier value stood for a file the line writes again), and an array with a comment after
    its `)` was read as a command `PORTS=(eth1` (a SYS002) with its loop run once for a port named `$p`."""
    text = "\n".join(["#!/bin/bash", "echo 1 > /sys/class/net/eth1/ecn/roce_np/enable/3",
                      "echo $(cat /etc/np)#on > /sys/class/net/eth1/ecn/roce_np/enable/3",
                      "PORTS=(eth1 eth2)  # the two rails", "for p in \"${PORTS[@]}\"; do",
                      "  mlnx_qos -i $p --pfc 0,0,0,1,0,0,0,0#4", "  mlnx_qos -i $p --trust dscp # pcp before", "done"])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("hash.sh", text)
    assert sorted(host.ports) == ["eth1", "eth2"] and host.ports["eth1"].nic_ecn.np_enabled == {}
    assert [p.trust for p in host.ports.values()] == [Trust.dscp] * 2
    assert [p.pfc_enabled for p in host.ports.values()] == [None] * 2  # (mlnx_qos refuses `0,...,0#4`)
    warned = [(i.source.line, i.message) for i in host.issues if i.code == "SYS002"]
    assert warned[0][0] == 3 and "value known only at run time" in warned[0][1]
    assert [line for line, _ in warned[1:]] == [6, 6] and all("0,0,0,1,0,0,0,0#4" in m for _, m in warned[1:])


# -- exit, exec, return ---------------------------------------------------------------------------------------------
# bash(1) SHELL BUILTIN COMMANDS: `exit` ends the shell; `exec PROGRAM` replaces it with the program (`exec` with
# redirections only goes on); a subshell's exit ends the subshell; a function's body runs when it is called. bash
# reads and runs a script a line at a time, so nothing after the line of an exit that runs is read, even its syntax.
RAN = {  # (script lines, the mlnx_qos calls bash makes: each condition here passes)
    "top-level": (["mlnx_qos -i eth1 --trust dscp", "exit 0", AFTER], ["-i eth1 --trust dscp"]),
    "same-line-and-garbage-after": (["mlnx_qos -i eth1 --trust dscp; exit 0; " + AFTER, ")", "fi", "echo 'open"],
                                    ["-i eth1 --trust dscp"]),
    "in-a-group": (["{ mlnx_qos -i eth1 --trust dscp; exit 0; mlnx_qos -i eth1 --trust pcp; }", AFTER],
                   ["-i eth1 --trust dscp"]),
    "exec-a-program": (["exec mlnx_qos -i eth1 --trust dscp", AFTER], ["-i eth1 --trust dscp"]),
    "exec-redirection-only": (["exec >/dev/null 2>&1", "exec 3</dev/null", AFTER], ["-i eth1 --trust dscp"]),
    "guards-that-pass": (["[ -d / ] || exit 1", "true || exit 1", "[ -d / ] && exec >/dev/null", AFTER],
                         ["-i eth1 --trust dscp"]),
    "in-a-subshell": (["( mlnx_qos -i eth1 --trust pcp; exit 0; mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0 )", AFTER],
                      ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
    "in-a-function-never-called": (["die() { echo \"$*\"; exit 1; }", "warn() {", "  exit 2", "}", AFTER],
                                   ["-i eth1 --trust dscp"]),
    "in-a-pipeline": (["exit 0 | cat", "true | exit 0", AFTER], ["-i eth1 --trust dscp"]),
    "return-outside-a-function": (["return 0 2>/dev/null", AFTER], ["-i eth1 --trust dscp"]),
    # bash(1) FUNCTIONS: a body runs where the function is called, its words $1, $2, ... and "$@" there
    "functions-run-where-called": (["setup() { mlnx_qos -i $1 --trust $2; }", "unused() { mlnx_qos -i eth9 --pfc 0; }",
                                    "for p in eth1 eth2; do setup $p pcp; done", AFTER],
                                   ["-i eth1 --trust pcp", "-i eth2 --trust pcp", "-i eth1 --trust dscp"]),
    "function-words-shifted": (["each() {", "  local mode=$1", "  shift", "  for p in \"$@\"; do",
                                "    mlnx_qos -i \"$p\" --trust \"$mode\"", "  done", "}", "each pcp eth2 eth1", AFTER],
                               ["-i eth2 --trust pcp", "-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
    "words-passed-on": (["qos() { mlnx_qos \"$@\" >/dev/null; }", "qos -i eth2 --trust pcp", AFTER],
                        ["-i eth2 --trust pcp", "-i eth1 --trust dscp"]),
    "called-before-it-is-defined": (["early 2>/dev/null", "early() { mlnx_qos -i eth1 --trust pcp; }", AFTER],
                                    ["-i eth1 --trust dscp"]),
    "exit-in-a-called-function": (["die() { echo \"$*\" >&2; exit 1; }", "mlnx_qos -i eth1 --trust pcp",
                                   "[ -d / ] || die no root", "[ -d / ] &&", "  mlnx_qos -i eth2 --trust pcp ||",
                                   "  die failed", "die stop", AFTER],
                                  ["-i eth1 --trust pcp", "-i eth2 --trust pcp"]),
    "exit-in-a-loop": (["for p in eth1 eth2; do", "  mlnx_qos -i $p --trust pcp", "  exit 0", "done", AFTER],
                       ["-i eth1 --trust pcp"]),
    "exit-after-a-test-on-the-line-above": (["[ -d / ] ||", "  exit 1", AFTER], ["-i eth1 --trust dscp"]),
    # bash(1) SIMPLE COMMAND EXPANSION: `NAME=value cmd` sets cmd's environment only, after its words are expanded
    "environment-before-a-command": (["IF=eth1", "IF=eth2 LC_ALL=C mlnx_qos -i $IF --trust pcp", AFTER.replace(
        "eth1", "$IF")], ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
    # bash(1) Command Substitution: `$(...)` and backticks run their commands (in a subshell: the NIC is set all the
    # same); before, they were one word and never read
    "commands-of-substitutions": (["out=$(mlnx_qos -i eth2 --trust pcp 2>&1)",
                                   "echo \"$(mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0)\" >/dev/null",
                                   "d=$(basename /a/b); y=`echo \"$d\" | sed s/b/c/`",
                                   "run() { r=$(bash -c \"$1\" 2>&1); }",
                                   "run \"mlnx_qos -i eth2 --pfc 0,0,0,0,0,0,0,0\"",
                                   "t=$(cat <<EOF", "mlnx_qos -i eth9 --trust pcp", "EOF", ")", AFTER],
                                  ["-i eth2 --trust pcp", "-i eth1 --pfc 0,0,0,1,0,0,0,0",
                                   "-i eth2 --pfc 0,0,0,0,0,0,0,0", "-i eth1 --trust dscp"]),
    "after-a-test-in-sh-c-and-substitutions": (["sh -c 'cd / && mlnx_qos -i eth2 --trust pcp'",
                                                "setpfc() { mlnx_qos -i $1 --pfc 0,0,0,1,0,0,0,0; }",
                                                "out=$(cd / && setpfc eth1)", AFTER],
                                               ["-i eth2 --trust pcp", "-i eth1 --pfc 0,0,0,1,0,0,0,0",
                                                "-i eth1 --trust dscp"]),
    # bash(1) set -e: a command that fails ends the script, unless tested; in a function called as a test (before
    # && or ||, an if's) set -e is ignored through its body; a function piped runs in a subshell, which it ends
    **{name: (["set -e", "trust() {", "  dcb apptrust set dev eth1 order pcp dscp", "  mlnx_qos -i eth1 --trust pcp",
               "}", call, AFTER], calls) for name, call, calls in [
        ("errexit-in-a-function-called", "trust", []),
        ("errexit-in-a-function-called-before-or", "trust || true", ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
        ("errexit-in-a-function-called-before-and", "trust && echo ok",
         ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
        ("errexit-in-a-function-called-between", "true && trust || true",
         ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
        ("errexit-in-a-function-an-if-calls", "if trust; then :; fi", ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
        ("errexit-in-a-function-piped", "trust | cat", ["-i eth1 --trust dscp"])]},
    "exit-in-a-function-called-before-or": (["stop() { mlnx_qos -i eth1 --trust pcp; exit 0; }", "stop || true",
                                             AFTER], ["-i eth1 --trust pcp"]),
    "exit-in-a-function-piped": (["stop() { mlnx_qos -i eth1 --trust pcp; exit 0; }", "stop | cat", AFTER],
                                 ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
    "returns-early": (["set_up() {", "  mlnx_qos -i eth1 --trust pcp", "  return 0",
                       "  mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0", "}", "set_up", AFTER],
                      ["-i eth1 --trust pcp", "-i eth1 --trust dscp"]),
}


@pytest.mark.parametrize("name", list(RAN))
def test_exit_and_exec_end_the_reading_where_bash_stops(name, tmp_path):
    """The mlnx_qos calls read are those bash makes, with a stand-in mlnx_qos logging its arguments (before, each line
    after an exit was read as run: an `exit 0` ahead of a debug section left that section's settings standing)."""
    lines, calls = RAN[name]
    assert_calls(lines, calls, tmp_path)


def test_an_exit_in_a_called_function_or_a_loop_ends_the_script_with_an_info():
    text = "\n".join(["#!/bin/bash", "die() { exit 1; }", BEFORE, "for p in eth0; do die; done", AFTER])
    host = parse_text("die.sh", text)
    assert "eth1" not in host.ports and host.ports["eth0"].trust == Trust.dscp
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS004", 4)]
    assert "the script ends here (an exit in the function called, or the loop)" in host.issues[0].message


def test_an_exit_in_a_branch_ends_that_branch_only():
    """Inside an if, a case branch or a loop, an exit is as conditional as its block: the rest of its own list never
    runs (read no more), the other branches and what follows the block may (read as if they ran, as before)."""
    text = "\n".join(["#!/bin/bash", "if [ -e /sys/class/net/eth1 ]; then", f"  {BEFORE}", "  exit 0",
                      "  mlnx_qos -i eth0 --trust pcp", "else", f"  {INSIDE}", "fi",
                      "case \"$1\" in",
                      "  stop) mlnx_qos -i eth2 --trust dscp; exit 0; mlnx_qos -i eth2 --trust pcp ;;",
                      "  *) mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 ;;", "esac", AFTER, "exit 0",
                      "mlnx_qos -i eth1 --trust pcp"])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("branch.sh", text)
    assert host.ports["eth0"].trust == Trust.dscp and host.ports["eth1"].pfc_enabled == [3]
    assert (host.ports["eth2"].trust, host.ports["eth2"].pfc_enabled) == (Trust.dscp, [3])
    assert host.ports["eth1"].trust == Trust.dscp  # (the last line is after the top-level exit)
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS004", None), ("SYS004", 14)]


def test_a_port_known_only_at_run_time_is_set_on_none_and_unknown_on_each_it_may_name():
    """`mlnx_qos -i $IF` where the script knows IF (IF=eth1, NIC=$IF, a loop over listed words) sets that port; where
    IF is known only at run time (`read IF`, `${1:-eth0}`, a loop over `$(ls ...)`) it may set any port: what it sets
    is unknown on each port read so far, and a SYS002 names them. Before, a port named `$IF` was made and set, which
    no host has, and eth0's earlier PFC and MTU stood (a `read` kept IF's earlier value)."""
    text = "\n".join([
        "#!/bin/bash", "mlnx_qos -i eth0 --trust dscp --pfc 0,0,0,1,0,0,0,0", "ip link set dev eth0 mtu 4200",
        "mlnx_qos -i eth1 --trust dscp", "IF=eth1", "mlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0",
        "NIC=$IF; mlnx_qos -i \"$NIC\" --prio_tc 0,1,2,3,4,5,6,7", "read -r IF < /etc/roce-port",
        "mlnx_qos -i $IF --pfc 0,0,0,0,1,0,0,0", "ip link set dev ${1:-eth0} mtu 9000",
        "for p in $(ls /sys/class/net); do mlnx_qos -i $p --trust pcp; done",
        "mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0", "mlnx_qos -i ${IF}np0 --cable_len 10"])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("runtime-port.sh", text)
    eth0, eth1 = host.ports["eth0"], host.ports["eth1"]
    assert sorted(host.ports) == ["eth0", "eth1"]
    assert (eth0.pfc_enabled, eth0.mtu_bytes, eth0.trust) == (None, None, None)
    assert (eth1.pfc_enabled, eth1.trust, eth1.priority_to_tc) == ([3], None, dict(enumerate(range(8))))
    warned = [(i.source.line, i.message) for i in host.issues if i.code == "SYS002"]
    assert [line for line, _ in warned] == [9, 10, 11, 13]
    assert "its interface `$IF` is known only at run time: what it sets (--pfc) is unknown on each port it may name " \
           "(eth0, eth1), and set on none" in warned[0][1]
    assert "(MTU)" in warned[1][1] and "(--trust)" in warned[2][1]
    assert "(--cable_len)" in warned[3][1] and "(none of those read so far)" in warned[3][1]


def test_iproute2_dcb_on_a_port_known_only_at_run_time_sets_none():
    """dcb-pfc(8), dcb-ets(8): `dcb pfc set dev $IF ...` after `read IF` may set any port's PFC (a port named `$IF`
    was made); `dcb pfc show` sets nothing."""
    host = parse_text("dcb.sh", "\n".join([
        "#!/bin/bash", "mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,1,2,3,4,5,6,7", "read -r IF",
        "dcb pfc show dev $IF", "dcb pfc set dev $IF prio-pfc 3:off", "dcb ets set dev $IF prio-tc 3:3"]))
    assert list(host.ports) == ["eth1"] and host.ports["eth1"].pfc_enabled is None
    assert host.ports["eth1"].priority_to_tc is None
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS002", 5), ("SYS002", 6)]
    assert "(priority->TC map, schedulers) is unknown on each port it may name (eth1)" in host.issues[1].message


def test_a_command_substitution_s_settings_are_read_and_its_lookups_are_not_reported():
    """`out=$(mlnx_qos ...)` sets the NIC (before: one word known at run time, the call never read, PFC left as an
    earlier line had it); `$(basename ...)`, `$(echo | sed ...)` only print: no SYS002 for them. A substitution's
    variables stay in its subshell."""
    text = "\n".join(["#!/bin/bash", "IF=eth1", "mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0",
                      "log=$(mlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0 2>&1) || exit 1",
                      "x=$(IF=eth9; basename /sys/class/net/$IF)", "y=$(echo \"$x\" | sed 's/a/b/')",
                      "mlnx_qos -i $IF --trust dscp"])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("subst.sh", text)
    assert list(host.ports) == ["eth1"] and host.ports["eth1"].pfc_enabled == [3]
    assert host.ports["eth1"].trust == Trust.dscp and host.issues == []


def test_a_command_line_kept_in_a_variable_is_run_with_its_known_parts():
    """A wrapper running the command line it is given (`run_cmd NAME "mlnx_qos -i $netdev ..."`, its body
    `care=\\`sudo bash -c "$cmd_line" 2>&1\\``, as vendor RoCE setup scripts log each step): the line keeps its known
    parts (`--trust=$trust` of trust=dscp) and its run-time ones (`$netdev` from a lookup), so the call is read with a
    port known only at run time (before: the variable was dropped, and the call was never read)."""
    text = "\n".join(["#!/bin/bash", "trust=dscp", "run_cmd () {", "    cmd_line=$2",
                      "    care=`sudo bash -c \"$cmd_line\" 2>&1`", "}",
                      "mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0", "netdev=`ls /sys/class/infiniband/mlx5_0/device/net/`",
                      "run_cmd mlnx_qos \"mlnx_qos -i $netdev --trust=$trust --pfc=0,0,0,1,0,0,0,0\"",
                      "run_cmd again \"mlnx_qos -i eth1 --trust=$trust\""])
    if BASH:
        assert bash_reads_whole(text)
    host = parse_text("run-cmd.sh", text)
    assert (host.ports["eth1"].pfc_enabled, host.ports["eth1"].trust) == (None, Trust.dscp)
    (issue,) = host.issues
    assert issue.source.line == 5 and "what it sets (--trust, --pfc) is unknown on each port it may name (eth1)" \
        in issue.message


@pytest.mark.parametrize("write,said", [
    # a file losslessd does not read: the path is named, not the value
    ("echo 96 > /sys/class/net/eth0/roce/dscp/1", "/sys/class/net/eth0/roce/dscp/1 is not a file losslessd reads"),
    ("echo 96 > /sys/class/net/eth0/ecn/roce_np/enable/3/x", "/sys/class/net/eth0/ecn/roce_np/enable/3/x is not a "
                                                           "file losslessd reads"),
    ("echo $V > /sys/class/net/eth0/roce/dscp/1", "/sys/class/net/eth0/roce/dscp/1 is not a file losslessd reads"),
    # (Linux net/core/net-sysfs.c: speed is a read-only attribute)
    ("echo 100000 > /sys/class/net/eth0/speed", "/sys/class/net/eth0/speed only reports the port's link speed"),
    ("echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/9", "names priority 9, which is none of the 8 priorities"),
    # a file it reads, given what that file does not hold: the value is named, with what the file holds
    ("echo 96 > /sys/class/net/eth0/ecn/roce_np/cnp_dscp", "`96` is not a value /sys/class/net/eth0/ecn/roce_np/"
                                                          "cnp_dscp holds (a DSCP value 0-63)"),
    ("echo on > /sys/class/net/eth0/ecn/roce_rp/enable/3", "`on` is not a value /sys/class/net/eth0/ecn/roce_rp/"
                                                          "enable/3 holds (0 or 1)"),
])
def test_a_write_not_read_names_the_part_not_read(write, said):
    """A SYS002 said "`96` is not a value losslessd reads for PATH" also when PATH was the part not known: the
    message names the file when no value written to it would be read, and the value only when the file is one
    losslessd reads."""
    host = parse_text("w.sh", "\n".join(["#!/bin/bash", "V=$1", "ip link set dev eth0 mtu 4200", write]))
    messages = [i.message for i in host.issues if i.code == "SYS002" and i.source.line == 4]
    assert len(messages) == 1 and said in messages[0], messages
    assert (host.ports["eth0"].mtu_bytes, host.ports["eth0"].speed_gbps) == (4200, None)  # (the write set neither)
