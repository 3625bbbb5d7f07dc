"""Host setup scripts whose `if`, `while` or `until` tests a command of known status: bash(1) SHELL BUILTIN COMMANDS
says `true` and `:` always succeed and `false` always fails, so `if true; then exit 1; fi` ends the script whatever
the host, `if false; then ...; fi` runs nothing and `while true; do ... exit 1; done` ends it too. The reader took
every branch as one that may not run (an exit in it ended that branch only). bash itself is the referee: the calls
the reader takes the script to make are the calls bash makes running it (tests.bashcalls)."""

from __future__ import annotations

import random

import pytest

from tests.bashcalls import BASH, assert_calls, bash_calls, read_calls

AFTER = "mlnx_qos -i eth7 --trust dscp"

# (the script's lines after `#!/bin/bash`, the calls bash makes running it)
KNOWN = {
    "if-true-exit": (["if true; then exit 1; fi", AFTER], []),
    "if-colon-exit-else": (["if :; then exit 0; else :; fi", AFTER], []),
    "if-not-false-exit": (["if ! false", "then", "  exit 1", "fi", AFTER], []),
    "if-false-runs-nothing": (["if false; then mlnx_qos -i eth1 --trust pcp; fi", AFTER], ["-i eth7 --trust dscp"]),
    "if-false-else": (["if false; then exit 1; else mlnx_qos -i eth1 --trust pcp; fi", AFTER],
                      ["-i eth1 --trust pcp", "-i eth7 --trust dscp"]),
    "if-false-elif-true-exit": (["if false; then :; elif true; then exit 1; else :; fi", AFTER], []),
    "while-true-exit": (["while true; do", "  exit 1", "done", AFTER], []),
    "until-false-break": (["until false; do mlnx_qos -i eth1 --trust pcp; break; done", AFTER],
                          ["-i eth1 --trust pcp", "-i eth7 --trust dscp"]),
    "while-false-runs-nothing": (["while false; do mlnx_qos -i eth1 --trust pcp; done", AFTER],
                                 ["-i eth7 --trust dscp"]),
    "if-true-in-a-function": (["f() {", "  if true; then return 1; fi", "  mlnx_qos -i eth1 --trust pcp", "}", "f",
                               AFTER], ["-i eth7 --trust dscp"]),
    "if-true-in-sh-c": (["sh -c 'if true; then exit 1; fi; mlnx_qos -i eth1 --trust pcp'", AFTER],
                        ["-i eth7 --trust dscp"]),
}


@pytest.mark.slow  # (assert_calls runs bash beside the reader)
@pytest.mark.parametrize("name", list(KNOWN))
def test_a_test_of_known_status_takes_its_branch_as_bash_does(name, tmp_path):
    lines, calls = KNOWN[name]
    assert_calls(lines, calls, tmp_path)


_TESTS = ["true", ":", "false", "! true", "! false"]


def _random_block(rng: random.Random, depth: int, k: int) -> list[str]:
    if depth > 2 or rng.random() < 0.4:
        return [rng.choice([f"mlnx_qos -i eth{k} --trust dscp", "exit 1", "exit 0", f"mlnx_qos -i eth{k} --trust pcp",
                            ":"])]
    body = [line for _ in range(rng.randint(1, 2)) for line in _random_block(rng, depth + 1, k + 1)]
    other = _random_block(rng, depth + 1, k + 2)
    test, kind = rng.choice(_TESTS), rng.randrange(6)
    if kind < 3:
        return [f"if {test}; then", *body, *[["else"], [f"elif {rng.choice(_TESTS)}; then"], []][kind],
                *(other if kind < 2 else []), "fi"]
    if kind == 3:
        return ["{", *body, "}"]
    end = rng.choice(["break", "exit 1", f"mlnx_qos -i eth{k} --trust pcp; break"])  # (a loop that always ends)
    return [f"{rng.choice(['while', 'until'])} {test}; do", *body, end, "done"]


@pytest.mark.slow  # (runs bash)
@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("seed", range(3))
def test_random_scripts_of_known_tests_are_read_as_bash_runs_them(seed, tmp_path):
    """Before, every seed failed (47 of 80 such scripts in a first sample, if/elif/else, while/until, `!`, groups,
    nested, under set -e or not, were read otherwise than bash ran them); these 120 agree now."""
    rng = random.Random(seed)
    wrong = []
    for t in range(40):
        lines = [line for _ in range(rng.randint(1, 4)) for line in _random_block(rng, 0, t % 5)]
        text = "\n".join(["#!/bin/bash", rng.choice(["", "set -e"]), *lines, AFTER]) + "\n"
        if read_calls(text) != bash_calls(text, tmp_path / str(t)):
            wrong.append(text)
    assert wrong == []


# bash 5.2 subst.c parameter_brace_transform: `${a@}`, `${a@z}`, `${a@QQ}` (no transformation: `@` takes one of
# Q E P A a K k U u L) of a set parameter end the shell that expands them; of an unset one they are nothing. Where the
# name is set only at run time (or never in the script: the environment may set it) the command is read as written,
# its value known only at run time.
TRANSFORMS = {
    "no-operator-of-a-set-name": (["a=1", "echo ${a@}; mlnx_qos -i eth1 --trust pcp", AFTER], []),
    "unknown-operator": (["a=1", "echo \"${a@z}\"", AFTER], []),
    "two-operators": (["a=1", "echo ${a@QQ}", AFTER], []),
    "of-an-unset-name": (["echo ${a@}; mlnx_qos -i eth1 --trust pcp", AFTER],
                         ["-i eth1 --trust pcp", "-i eth7 --trust dscp"]),
    "in-a-loop": (["a=1", "for i in 1 2; do", "  echo ${a@}", "  mlnx_qos -i eth1 --trust pcp", "done", AFTER], []),
    "in-a-subshell": (["a=1", "( echo ${a@}; mlnx_qos -i eth1 --trust pcp )", AFTER], ["-i eth7 --trust dscp"]),
    "of-a-function-word": (["f() { echo ${1@}; mlnx_qos -i eth1 --trust pcp; }", "f x", AFTER], []),
    "a-real-transformation": (["a=1", "echo ${a@Q}; mlnx_qos -i eth1 --trust pcp"], ["-i eth1 --trust pcp"]),
    # bash(1) Parameter Expansion: a bad `${b c}` nested in a default is met only where the default is expanded (and
    # in a pattern only where the variable is set and not empty): the line's list is dropped there, as for `${b c}`
    "nested-in-an-alternative-of-a-set-name": (["a=x", "echo ${a:+${b c}}; mlnx_qos -i eth1 --trust pcp", AFTER],
                                               ["-i eth7 --trust dscp"]),
    "nested-in-a-default-of-an-empty-name": (["a=", "x=${a:-${b c}}; mlnx_qos -i eth1 --trust pcp", AFTER],
                                             ["-i eth7 --trust dscp"]),
    "nested-in-a-pattern": (["a=x", "echo \"${a#${b c}}\" && mlnx_qos -i eth1 --trust pcp", AFTER],
                            ["-i eth7 --trust dscp"]),
    "nested-in-a-default-of-a-set-name": (["a=x", "x=${a:-${b c}}; mlnx_qos -i eth1 --trust pcp"],
                                          ["-i eth1 --trust pcp"]),
    "nested-under-set-e": (["set -e", "a=x", "echo ${a/x/${b c}}", AFTER], []),
}


@pytest.mark.slow  # (assert_calls runs bash beside the reader)
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_a_substitution_bash_refuses_only_as_a_name_is_set_is_read_where_it_is_known(name, tmp_path):
    lines, calls = TRANSFORMS[name]
    assert_calls(lines, calls, tmp_path)
