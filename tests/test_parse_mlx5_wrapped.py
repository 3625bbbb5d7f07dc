"""Host script calls made through another program (`timeout 10 mlnx_qos ...`, `sudo -E mlnx_qos ...`), words brace
expansion makes (`ens{1,2}f0np0`, `for p in {0..7}`), and command substitutions on one line with other commands: read
as bash runs them. The referee is bash (tests/bashcalls.py) where the program is installed here; sudo is not, so its
cases are sudo(8)'s OPTIONS."""

from __future__ import annotations

import random
import subprocess

import pytest

from losslessd.errors import InputError
from losslessd.limits import MAX_SCRIPT_BRACE_WORDS
from losslessd.parse import mlx5
from losslessd.parse.base import Input
from losslessd.parse.braces import expand
from tests.bashcalls import BASH, DASH, assert_calls, bash_calls, read_calls

DCB = "dcb apptrust set dev eth1 order pcp dscp"  # (fails on mlx5: see losslessd/parse/mlx5/dcb.py fails)
AFTER = "mlnx_qos -i eth1 --trust dscp"

# Each wrapper's options as its manual page gives them (coreutils timeout(1), env(1), nice(1), stdbuf(1), nohup(1);
# bash(1) command; python3(1)), values glued and apart.
WRAPPED = {
    "timeout": ["timeout 10 mlnx_qos -i eth1 --trust pcp"],
    "timeout-options": ["timeout -s KILL -k5 --preserve-status 10 mlnx_qos -i eth1 --trust pcp"],
    "env": ["env VAR=1 mlnx_qos -i eth1 --trust pcp"],
    "env-options": ["env -i -u HOME PATH=$PATH LC_ALL=C mlnx_qos -i eth1 --trust pcp"],
    "nohup": ["nohup mlnx_qos -i eth1 --trust pcp"],
    "nice": ["nice -n 5 mlnx_qos -i eth1 --trust pcp"],
    "nice-older-form": ["nice -5 mlnx_qos -i eth1 --trust pcp"],
    "stdbuf": ["stdbuf -oL -e 0 mlnx_qos -i eth1 --trust pcp"],
    "command": ["command mlnx_qos -i eth1 --trust pcp"],
    "command-v-prints": ["command -v mlnx_qos >/dev/null"],
    "python": ["python3 -u ./mlnx_qos -i eth1 --trust pcp"],
    "stacked": ["nohup env X=1 timeout 5 nice -n 1 stdbuf -oL mlnx_qos -i eth1 --trust pcp"],
    "exec": ["exec timeout 10 mlnx_qos -i eth1 --trust pcp", "mlnx_qos -i eth2 --trust pcp"],
    "env-alone-prints": ["env >/dev/null"],
    # their status is the command's: set -e ends the script where the wrapped dcb fails
    "timeout-fails": ["set -e", f"timeout 10 {DCB}", AFTER],
    "env-fails": ["set -e", f"env X=1 nice -n 2 {DCB}", AFTER],
    "python-piped-tee": ["python3 ./mlnx_qos -i eth1 --trust pcp | tee /dev/null", AFTER],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.parametrize("name", list(WRAPPED))
def test_a_wrapped_call_is_read_as_the_wrapper_runs_it(name, tmp_path):
    """Before: every one but `command` and `exec` was "not a command losslessd reads" (the call named, not read),
    and a wrapped dcb's failure did not end a script under set -e."""
    if BASH is None:
        pytest.skip("bash is not installed")
    text = "\n".join(["#!/bin/bash", *WRAPPED[name]]) + "\n"
    assert read_calls(text) == bash_calls(text, tmp_path)


def test_sudo_options_are_skipped_as_sudo_takes_them():
    """sudo(8) OPTIONS: -u, -g, -C, -D, -p, -r, -t, -T, -U, -R take a value (glued or the next word), `--` ends them,
    NAME=VALUE settings go to the command's environment; -l, -v, -K, -V, -e run no command, and an option sudo does
    not list leaves the line named, not guessed."""
    cases = {
        "sudo -E mlnx_qos -i eth1 --trust pcp": ["-i eth1 --trust pcp"],
        "sudo -u root -g adm mlnx_qos -i eth1 --trust pcp": ["-i eth1 --trust pcp"],
        "sudo -uroot --preserve-env=PATH -- mlnx_qos -i eth1 --trust pcp": ["-i eth1 --trust pcp"],
        "sudo --user=root PYTHONPATH=/x python3 /usr/bin/mlnx_qos -i eth1 --trust pcp": ["-i eth1 --trust pcp"],
        "sudo -l mlnx_qos -i eth1 --trust pcp": [],
    }
    for line, calls in cases.items():
        assert read_calls(f"#!/bin/bash\n{line}\n") == calls, line
    host = mlx5.parse([Input("s.sh", "#!/bin/bash\nsudo -Z mlnx_qos -i eth1 --trust pcp\n")], "h")
    assert any("sudo -Z" in i.message and i.code == "SYS002" for i in host.issues), host.issues


# bash(1) Brace Expansion: words whose expansions bash prints one a line (`printf '%s\n' WORD`).
BRACE_WORDS = ["ens{1,2}f0np0", "{0..7}", "{a..e}", "{01..10}", "{1..10..3}", "{10..1..-3}", "{-3..3}", "{-05..5..5}",
               "a{b,c{d,e}f}g", "{a}{b,c}", "{{a,b}", "{a,b", "x{,a}", "{,a}", "{}", "{1..3}{a,b}", "{a,}", "{..}",
               "{1..a}", "{5..5}", "{1..2..0}", "{a..c..2}", "{x,y}{1..2}{p,q}", "a}b{c,d}", "{a,b}}", "{{}}",
               "{a,b,}", "x{1..1}y{2..2}"]


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_brace_expansion_makes_the_words_bash_makes():
    rng = random.Random(7)
    words = BRACE_WORDS + ["".join(rng.choice(["{", "}", ",", "a", "1", "..", "2", "0", "-"])
                                   for _ in range(rng.randint(1, 9))) for _ in range(200)]
    script = "".join(f"printf '%s\\n' {word}; echo @@\n" for word in words)
    printed = subprocess.run([BASH, "-c", script], capture_output=True, text=True, check=True).stdout
    made = printed.split("@@\n")[:-1]
    assert len(made) == len(words)
    for word, lines in zip(words, made, strict=True):
        assert (expand(word) or [""]) == lines.splitlines(), word


BRACED = {
    "a-loop-over-a-sequence": ["for p in {1..3}; do mlnx_qos -i eth$p --trust pcp; done"],
    "a-loop-over-a-list-in-a-word": ["for p in eth{1,2}; do mlnx_qos -i $p --trust pcp; done"],
    "an-array": ["P=(eth{1..2})", "for p in \"${P[@]}\"; do mlnx_qos -i $p --trust pcp; done"],
    "a-call-given-two-words": ["mlnx_qos -i ens{1,2}f0np0 --trust pcp"],
    "quoted-or-escaped": ["mlnx_qos -i 'eth{1,2}' --trust pcp", "mlnx_qos -i eth\\{1,2} --trust pcp"],
    "an-assignment-is-not-expanded": ["X=eth{1,2}", "mlnx_qos -i \"$X\" --trust pcp"],
    "in-bash-c": ["bash -c 'mlnx_qos -i eth{1..1} --trust pcp'"],
    # (a quoted part is one word with what bash expands before it, spaces and all)
    "a-quoted-part-with-a-space": ['for p in eth{1,2}"x y"; do mlnx_qos -i "$p" --trust pcp; done'],
    "a-quoted-word-with-a-space": ['for p in "x y"; do mlnx_qos -i "$p" --trust pcp; done'],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.parametrize("name", list(BRACED))
def test_brace_expansions_in_a_script_are_read_as_bash_runs_them(name, tmp_path):
    """Before: `{1..3}` made the loop's list "known at run time" (its body read once, `$p` unknown) and a call's
    `ens{1,2}f0np0` was one word, the port `ens{1,2}f0np0`."""
    if BASH is None:
        pytest.skip("bash is not installed")
    text = "\n".join(["#!/bin/bash", *BRACED[name]]) + "\n"
    assert read_calls(text) == bash_calls(text, tmp_path)


def test_a_call_brace_expansion_gives_two_interfaces_is_refused_as_mlnx_qos_refuses_it():
    """`-i ens{1,2}f0np0` is `-i ens1f0np0 ens2f0np0`: mlnx_qos takes no word but its options (mlnx-tools
    python/mlnx_qos: "Bad arguments", exit 1), so neither port is set; a quoted `'|'` is such a word too, no pipe."""
    for line in ["mlnx_qos -i ens{1,2}f0np0 --trust dscp", "mlnx_qos -i ens1f0np0 --trust dscp '|' cat"]:
        host = mlx5.parse([Input("s.sh", f"#!/bin/bash\n{line}\n")], "h")
        assert all(p.trust is None for p in host.ports.values()), line
        assert any("Bad arguments" in i.message for i in host.issues), host.issues


def test_a_loop_over_a_brace_sequence_is_no_loop_over_run_time_words():
    host = mlx5.parse([Input("s.sh", "#!/bin/bash\nfor p in {0..1}; do mlnx_qos -i eth$p --trust dscp; done\n")], "h")
    assert {name: p.trust.value for name, p in host.ports.items()} == {"eth0": "dscp", "eth1": "dscp"}
    assert not [i for i in host.issues if i.code == "SYS004"], host.issues


def test_a_loop_over_more_brace_words_than_its_bound_is_read_at_run_time():
    """Past MAX_BRACE_WORDS a word is left as written, known only at run time: the loop is read once (SYS004) and the
    script goes on. Before: the whole file was unreadable (exit 2)."""
    text = ("#!/bin/bash\nmlnx_qos -i eth1 --trust dscp\nfor vf in {0..1099}; do mlnx_qos -i eth$vf --trust pcp; done\n"
            "mlnx_qos -i eth2 --trust dscp\n")
    host = mlx5.parse([Input("s.sh", text)], "h")
    assert {name: p.trust.value if p.trust else None for name, p in host.ports.items()} == {"eth1": None,
                                                                                           "eth2": "dscp"}
    assert [i for i in host.issues if i.code == "SYS004" and "known at run time" in i.message], host.issues
    with pytest.raises(InputError):
        expand("{a,b}" * 11)


def test_a_brace_flood_is_refused_with_its_file_and_line():
    """More than MAX_SCRIPT_BRACE_WORDS words in all (each expansion under its bound) is refused. Before: one line of
    8,000 `{1..1000}` made 8 million words (16 s, 642 MB)."""
    words = MAX_SCRIPT_BRACE_WORDS // 1000 + 1
    with pytest.raises(InputError) as got:
        list(mlx5.script.commands("#!/bin/bash\n\necho " + "{1..1000} " * words + "\n", "big.sh"))
    assert (got.value.file, got.value.line) == ("big.sh", 3)
    assert f"{MAX_SCRIPT_BRACE_WORDS:,}" in got.value.message
    with pytest.raises(InputError) as got:  # (and in a command substitution's commands, which count with the file's)
        list(mlx5.script.commands("#!/bin/bash\n" + "echo {1..1000}\n" * (words // 2) + "x=$(echo " + "{1..1000} " *
                                  (words // 2 + 1) + ")\n", "sub.sh"))
    assert got.value.file == "sub.sh"


@pytest.mark.slow  # a real shell runs the script beside the reader
def test_a_dash_script_expands_no_braces(tmp_path):
    """`#!/bin/sh` is dash on Debian and Ubuntu, which has no brace expansion: the word stays as written."""
    text = "#!/bin/sh\nmlnx_qos -i eth{1,2} --trust pcp\n"
    assert read_calls(text) == ["-i eth{1,2} --trust pcp"]
    if DASH:
        assert bash_calls(text, tmp_path, shell=DASH) == ["-i eth{1,2} --trust pcp"]


def test_a_brace_word_in_a_sh_script_is_known_only_at_run_time():
    """`#!/bin/sh` is dash on Debian (`ens1f{0,1}np0` as written) but bash on RHEL (two ports): which is known only
    where it runs, so the word names no port. Before: the port `ens1f{0,1}np0` was set and linted clean. A write to
    such a path sets nothing under either (see the traffic class's test below)."""
    for body, said in [("for p in ens1f{0,1}np0; do mlnx_qos -i $p --trust dscp; done", "known only at run time"),
                       ("mlnx_qos -i ens1f{0,1}np0 --trust dscp", "known only at run time"),
                       ("echo 1 > /sys/class/net/ens1f{0,1}np0/ecn/roce_np/enable/3", "nothing is set")]:
        host = mlx5.parse([Input("s.sh", f"#!/bin/sh\nmlnx_qos -i eth9 --trust pcp\n{body}\n")], "h")
        assert list(host.ports) == ["eth9"], (body, list(host.ports))
        assert [i for i in host.issues if said in i.message], (body, host.issues)


@pytest.mark.slow  # a real shell runs the script beside the reader
def test_a_sh_script_s_write_to_a_brace_path_sets_no_traffic_class(tmp_path):
    """`#!/bin/sh`, `echo 106 > /sys/class/infiniband/mlx5_{0,1}/tc/1/traffic_class`: dash writes a file named with
    the braces (no such directory: it fails), bash as /bin/sh stops at an ambiguous redirect (bash(1) REDIRECTION),
    so nothing is set under either; through `| tee` bash's tee writes both files and dash's fails: unknown. Before:
    the host's traffic class was 106 from that line (the path's device is no port, so the word was taken as named)."""
    base = "/sys/class/infiniband/mlx5_{0,1}/tc/1/traffic_class"
    for line, said in [(f"echo 106 > {base}", "nothing is set"), (f"echo 106 | tee {base}", "it is unknown")]:
        host = mlx5.parse([Input("s.sh", f"#!/bin/sh\nmlnx_qos -i eth9 --trust dscp\n{line}\n")], "h")
        assert host.rdma_traffic_class is None, line
        assert [i.source.line for i in host.issues if said in i.message] == [3], (line, host.issues)
    if BASH and DASH:  # (the redirection, as both shells run it: no file is written)
        for shell in (DASH, BASH):
            run = subprocess.run([shell, *(["--posix"] if shell == BASH else []), "-c", "echo 106 > d{0,1}/x"],
                                 cwd=tmp_path, capture_output=True, text=True, check=False)
            assert run.returncode != 0 and not list(tmp_path.iterdir()), run.stderr


@pytest.mark.slow  # a real shell runs the script beside the reader
def test_a_quoted_expansion_in_a_for_list_is_one_word(tmp_path):
    """bash(1) Word Splitting: the result of an expansion in double quotes is not split, so `for p in "$X"` with X
    holding `eth1 eth2` runs once, p the two names with the space; mlnx_qos given `-i eth1 eth2` refuses the word
    left over (mlnx-tools python/mlnx_qos: "Bad arguments"), so neither port is set (the reader names no interface).
    Before: two rounds, each port set; an unquoted `$X` still splits."""
    assert_calls(['X="eth1 eth2"', 'for p in "$X" eth3; do mlnx_qos -i "$p" --trust pcp; done',
                  'for p in "${X}"; do mlnx_qos -i "x$p" --trust pcp; done',
                  'for p in $X; do mlnx_qos -i "$p" --trust dscp; done'],
                 ["-i eth1 eth2 --trust pcp", "-i eth3 --trust pcp", "-i xeth1 eth2 --trust pcp",
                  "-i eth1 --trust dscp", "-i eth2 --trust dscp"], tmp_path)
    text = '#!/bin/bash\nX="eth1 eth2"\nfor p in "$X"; do mlnx_qos -i $p --trust dscp; done\n'
    host = mlx5.parse([Input("s.sh", text)], "h")
    assert all(p.trust is None for p in host.ports.values()) and host.issues, host.ports


ONE_LINE = {
    "a-function-defined-then-substituted": ["set -e", f"f() {{ {DCB}; }}; x=$(f)", AFTER],
    "a-function-defined-then-substituted-calling": ["f() { mlnx_qos -i eth2 --trust pcp; }; x=$(f)", AFTER],
    "two-substitutions-the-first-failing": ["set -e", f"x=$({DCB}); y=$(mlnx_qos -i eth2 --trust pcp)", AFTER],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.parametrize("name", list(ONE_LINE))
def test_command_substitutions_run_where_their_command_is_on_the_line(name, tmp_path):
    """Before: a line's substitutions ran ahead of all its commands, so `f() {...}; x=$(f)` called f inside its own
    definition (nothing ran) and `x=$(dcb ...); y=$(...)` ran y's before x's assignment ended the script."""
    if BASH is None:
        pytest.skip("bash is not installed")
    assert_calls(ONE_LINE[name], bash_calls("\n".join(["#!/bin/bash", *ONE_LINE[name]]) + "\n", tmp_path), tmp_path)


# Other constructs bash ran otherwise than the reader read them (session 31's Left).
STILL = {
    "a-subshell-piped-before-and": ["set -e", f"( {DCB}; mlnx_qos -i eth2 --trust pcp ) | cat && true", AFTER],
    "a-subshell-piped-before-and-under-pipefail": ["set -eo pipefail",
                                                   f"( {DCB}; mlnx_qos -i eth2 --trust pcp ) | cat && true", AFTER],
    "a-negated-pipeline-into-a-group-before-and": ["set -e", "! true | { true; } && mlnx_qos -i eth2 --trust pcp",
                                                   AFTER],
    "a-negated-group-before-and": ["! { true; } && mlnx_qos -i eth2 --trust pcp", AFTER],
    "a-call-given-a-variable": ["f() { mlnx_qos -i $x --trust pcp; }", "x=eth4", "x=eth3 f",
                                "mlnx_qos -i $x --trust dscp"],
    "sh-c-piped-into-tee": ["sh -c 'mlnx_qos -i eth2 --trust pcp' | tee /dev/null", AFTER],
    "bash-c-piped-into-grep": ["bash -c 'mlnx_qos -i eth2 --trust pcp' 2>&1 | grep -v x", AFTER],
    "sh-c-piped-under-pipefail-fails": ["set -eo pipefail", f"sh -c '{DCB}' | tee /dev/null", AFTER],
    "sh-c-piped-without-pipefail": ["set -e", f"sh -c '{DCB}' | tee /dev/null", AFTER],
    "sh-c-failing-in-a-group-before-or": ["set -e", "{", f"sh -c '{DCB}'", "mlnx_qos -i eth2 --trust pcp", "} || true",
                                          AFTER],
    "sh-c-piped-failing-in-a-group-before-or": ["set -eo pipefail", "{", f"sh -c '{DCB}' | tee /dev/null",
                                                "mlnx_qos -i eth2 --trust pcp", "} || true", AFTER],
    # (random seed 45, script 24: the pipeline's status is its last part's, 0, which `!` turns over to end the
    # subshell; seed 41, script 25: a piped `sh -c` in a function gives it tee's status, not the string's)
    "a-subshell-ending-in-a-negated-pipeline-into-a-call": ["set -e", "f() { ( true | { set +e; } ) }", "(",
                                                            "! true | { f; }", ")", AFTER],
    "a-function-ending-in-a-piped-sh-c": ["f() {", f"sh -c '{DCB}' | tee /dev/null", "}", "set -e", "f", AFTER],
    # (random seed 34, script 28: g's status is y's assignment's, 0, not x's substitution's)
    "a-function-ending-in-two-substitutions": ["set -e", "g() {", f"x=$({DCB}); y=$(mlnx_qos -i eth8 --trust pcp)",
                                               "}", "(", "x=$(g)", ")", AFTER],
}


@pytest.mark.slow  # (runs bash)
@pytest.mark.parametrize("name", list(STILL))
def test_pipelines_negations_and_call_variables_are_read_as_bash_runs_them(name, tmp_path):
    """Before: the subshell's calls were skipped (set -e taken to end it, though the pipeline before `&&` is tested),
    `!` of a group was not turned over, `x=eth3 f` was no call, and a piped `sh -c` was not read."""
    if BASH is None:
        pytest.skip("bash is not installed")
    text = "\n".join(["#!/bin/bash", *STILL[name]]) + "\n"
    assert read_calls(text) == bash_calls(text, tmp_path)


def test_a_call_mlnx_qos_refuses_ends_a_set_e_script_there():
    """mlnx-tools python/mlnx_qos exits 1 on a word that is no option ("Bad arguments") and optparse exits 2 on an
    option it lacks: under set -e bash runs nothing after such a call (the stand-in mlnx_qos of tests/bashcalls.py
    accepts any words, so this is read against mlnx_qos's source, not run)."""
    for call in ["mlnx_qos -i ens{1,2}f0np0 --trust dscp", "mlnx_qos -i ens1f0np0 --tc_bw 50,50,0,0,0,0,0,0"]:
        text = f"#!/bin/bash\nset -e\n{call}\nmlnx_qos -i ens1f0np0 --trust pcp\n"
        host = mlx5.parse([Input("s.sh", text)], "h")
        ended = [i for i in host.issues if i.code == "SYS004" and "the script ends here" in i.message]
        assert [i.source.line for i in ended] == [3] and "mlnx_qos refuses the call" in ended[0].message, host.issues
        assert all(p.trust is None for p in host.ports.values())
    assert read_calls("#!/bin/bash\nset -e\nmlnx_qos $OPTS\nmlnx_qos -i eth1 --trust pcp\n") == [
        "$OPTS", "-i eth1 --trust pcp"]  # (words known only at run time: not known to fail)


NEXT = "mlnx_qos -i eth2 --trust pcp"
# Per call under set -e: whether mlnx_qos accepts it (optparse, then mlnx-tools python/mlnx_qos's "Bad arguments" and
# "Interface name is required"), so bash goes on to NEXT.
OPTPARSE_CALLS = {
    "mlnx_qos -ieth1 --trust dscp": True,  # (a short option's value glued to it)
    "mlnx_qos -i eth1 -f0,0,0,1,0,0,0,0": True,
    "mlnx_qos -ai eth1": True,  # (a switch, then an option taking the next word)
    "mlnx_qos -i eth1 --trust dscp --": True,  # (`--` ends the options)
    "mlnx_qos --version": True,  # (prints, exits 0)
    "mlnx_qos -h": True,
    "mlnx_qos -i eth1 --vers": True,  # (a prefix of --version)
    "mlnx_qos -i eth1 --trust dscp > \"qos log.txt\"": True,  # (bash's redirections, quoted targets too)
    "mlnx_qos -i eth1 --trust dscp 2> '/dev/null'": True,
    "mlnx_qos -i eth1 --trust dscp 2>&1 < /dev/null": True,
    "mlnx_qos -i eth1 --trust dscp 1>qos.log": True,
    "mlnx_qos --trust dscp": False,  # ("Interface name is required")
    "mlnx_qos -a": False,
    "mlnx_qos -i eth1 -- --trust dscp": False,  # (a word after `--`: "Bad arguments")
    "mlnx_qos -i eth1 --version=1": False,  # (--version takes no value)
    "mlnx_qos -zz --version": False,  # (-z first: optparse exits 2 before --version)
    "mlnx_qos -i eth1 -i": False,  # (-i without its value)
}


@pytest.mark.slow  # a real shell runs the script beside the reader
@pytest.mark.parametrize("call", list(OPTPARSE_CALLS))
def test_set_e_ends_at_an_mlnx_qos_call_only_where_mlnx_qos_refuses_it(call, tmp_path):
    """Before: a glued value, `--`, --version, -h and a quoted redirection target read as mlnx_qos refusing the call,
    which ended the script there, and a call without -i did not."""
    text = f"#!/bin/bash\nset -e\n{call}\n{NEXT}\n"
    assert (NEXT[9:] in read_calls(text)) is OPTPARSE_CALLS[call]
    if BASH:
        assert (NEXT[9:] in bash_calls(text, tmp_path, optparse=True)) is OPTPARSE_CALLS[call]


def test_a_glued_value_and_a_redirected_output_are_read():
    """Before: `-ieth1` was "not an mlnx_qos option" and `> FILE` after a call "Bad arguments" (nothing read)."""
    text = "#!/bin/bash\nmlnx_qos -ieth1 --trust dscp\nmlnx_qos -i eth2 --trust=dscp >> \"/var/log/qos.log\"\n"
    host = mlx5.parse([Input("s.sh", text)], "h")
    assert {name: p.trust.value for name, p in host.ports.items()} == {"eth1": "dscp", "eth2": "dscp"}
    assert not [i for i in host.issues if i.code == "SYS002"], host.issues


def test_sudo_b_exits_0_whatever_the_command_does():
    """sudo(8) -b runs the command in the background (sudo's src/exec.c: CD_BACKGROUND) and exits 0 itself, as `&`:
    under set -e the script goes on (sudo is not installed here to run)."""
    for wrapped in ("sudo -b", "sudo -nb", "sudo --background"):
        text = f"#!/bin/bash\nset -e\n{wrapped} {DCB}\n{wrapped} mlnx_qos --trust dscp\n{NEXT}\n"
        assert read_calls(text) == ["--trust dscp", NEXT[9:]], wrapped
    assert read_calls(f"#!/bin/bash\nset -e\nsudo -n {DCB}\n{NEXT}\n") == []


def test_a_wrapped_tee_writes_the_sysfs_file():
    """Before: only a literal `sudo` before tee was looked past, so `sudo -E tee` was a line not read (SYS002)."""
    for tee in ("sudo -E tee", "sudo -u root tee -a", "timeout 5 tee"):
        text = f"#!/bin/bash\nmlnx_qos -i eth1 --trust dscp\necho 1 | {tee} /sys/class/net/eth1/ecn/roce_np/enable/3\n"
        host = mlx5.parse([Input("s.sh", text)], "h")
        assert not [i for i in host.issues if i.code == "SYS002"], (tee, host.issues)
        assert host.ports["eth1"].nic_ecn.np_enabled[3] is True, tee


def test_a_line_the_shell_cannot_split_after_a_call_is_named_not_a_crash():
    """Before: `$( \\` ) \\`` (a backtick in a substitution, none closing) crashed the set -e pass (TypeError)."""
    host = mlx5.parse([Input("s.sh", "#!/bin/bash\nmlnx_qos -i eth1 --trust dscp\n$( ` ) `\n")], "h")
    assert host.ports["eth1"].trust.value == "dscp"
    assert [i.source.line for i in host.issues if i.code == "SYS002"] == [3], host.issues
