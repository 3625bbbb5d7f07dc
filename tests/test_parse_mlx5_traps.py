"""Host setup scripts with `trap`: bash(1) SHELL BUILTIN COMMANDS, trap. `trap ARG EXIT` (or `0`) runs ARG when the
shell exits (at the end of the script, at an `exit`, after a syntax error; not after `exec PROGRAM`, which replaces the
shell), the last trap set wins and `trap - EXIT` removes it; a `sh -c` shell has traps of its own. A trap on a signal
runs only when the signal comes. The fixtures are written from the manual; bash itself, with a stand-in mlnx_qos that
logs its arguments, says which calls run and in which order."""

from __future__ import annotations

import pytest

from losslessd.model import Trust
from losslessd.parse import mlx5
from losslessd.parse.base import Input
from tests.bashcalls import assert_calls

# bash is the referee of each case (tests.bashcalls): a process each, so not in `make test-fast`.
pytestmark = pytest.mark.slow

SET = "mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0"
OFF = "mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0"

# (the script's lines after #!, the mlnx_qos calls bash makes in order)
RAN = {
    "exit-trap-runs-last": (["teardown() {", f"  {OFF}", "}", "trap teardown EXIT", SET],
                            ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --pfc 0,0,0,0,0,0,0,0"]),
    "zero-is-exit-and-the-last-trap-wins": ([f"trap '{OFF}' 0", "trap 'mlnx_qos -i eth1 --trust pcp' EXIT", SET],
                                            ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --trust pcp"]),
    "reset-with-dash": ([f"trap '{OFF}' EXIT", "trap - EXIT", SET], ["-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "reset-with-the-sigspec-alone": ([f"trap '{OFF}' EXIT", "trap EXIT", SET], ["-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "ignored-with-an-empty-string": ([f"trap '{OFF}' EXIT", "trap '' EXIT", SET], ["-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "at-an-exit-in-a-called-function": (["die() { exit 1; }", f"trap '{OFF}' EXIT", SET, "die",
                                         "mlnx_qos -i eth1 --trust dscp"],
                                        ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --pfc 0,0,0,0,0,0,0,0"]),
    "set-in-a-function": (["arm() { trap 'mlnx_qos -i eth1 --trust pcp' EXIT; }", "arm", SET],
                          ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --trust pcp"]),
    "not-after-exec": ([f"trap '{OFF}' EXIT", SET, "exec true"], ["-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "after-a-syntax-error": ([f"trap '{OFF}' EXIT", SET, "if true; then", "  mlnx_qos -i eth1 --trust pcp"],
                             ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --pfc 0,0,0,0,0,0,0,0"]),
    "a-sh-c-shell-s-own": (["bash -c \"trap 'mlnx_qos -i eth1 --trust pcp' EXIT; mlnx_qos -i eth1 --trust dscp\"",
                            SET],
                           ["-i eth1 --trust dscp", "-i eth1 --trust pcp", "-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "a-subshell-s-own-runs-as-it-ends": ([f"trap '{OFF}' EXIT",
                                          "( trap 'mlnx_qos -i eth1 --trust pcp' EXIT; mlnx_qos -i eth1 --trust dscp )",
                                          SET],
                                         ["-i eth1 --trust dscp", "-i eth1 --trust pcp",
                                          "-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --pfc 0,0,0,0,0,0,0,0"]),
    "a-subshell-s-at-its-exit": (["(", "  trap 'mlnx_qos -i eth1 --trust pcp' EXIT", "  exit 0",
                                  "  mlnx_qos -i eth1 --trust dscp", ")", SET],
                                 ["-i eth1 --trust pcp", "-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "set-again-by-itself-runs-once": (["again() { mlnx_qos -i eth1 --trust pcp; trap again EXIT; }", "trap again EXIT",
                                       SET], ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --trust pcp"]),
    "a-subshell-function-s-own-runs-as-it-returns": (["f() ( trap 'mlnx_qos -i eth1 --trust pcp' EXIT; "
                                                     "mlnx_qos -i eth1 --trust dscp )", "f",
                                                     "mlnx_qos -i eth1 --trust dscp"],
                                                    ["-i eth1 --trust dscp", "-i eth1 --trust pcp",
                                                     "-i eth1 --trust dscp"]),
    "a-subshell-s-trap-set-again-by-itself-runs-once": (["again() { mlnx_qos -i eth1 --trust pcp; trap again EXIT; }",
                                                         "( trap again EXIT; mlnx_qos -i eth1 --trust dscp )"],
                                                        ["-i eth1 --trust dscp", "-i eth1 --trust pcp"]),
    "a-signal-trap-does-not-run": (["trap 'mlnx_qos -i eth1 --trust pcp' INT TERM", SET],
                                   ["-i eth1 --pfc 0,0,0,1,0,0,0,0"]),
    "variables-known-when-it-is-set": (["IF=eth1", f"trap \"{OFF.replace('eth1', '$IF')}\" EXIT", SET],
                                       ["-i eth1 --pfc 0,0,0,1,0,0,0,0", "-i eth1 --pfc 0,0,0,0,0,0,0,0"]),
}


@pytest.mark.parametrize("name", list(RAN))
def test_the_calls_read_are_those_bash_makes_with_its_traps(name, tmp_path):
    """Before: `trap` was "not a command losslessd reads" (SYS002) and a function only a trap runs was never read, so a
    teardown's PFC off never counted."""
    lines, calls = RAN[name]
    assert_calls(lines, calls, tmp_path)


def _host(text: str):
    return mlx5.parse([Input("t.sh", "#!/bin/bash\n" + text)], "h")


def test_an_exit_trap_that_turns_pfc_off_leaves_it_off_and_says_it_was_read_last():
    dev = _host(f"off() {{ {OFF}; }}\ntrap off EXIT\n{SET}\n")
    port = dev.ports["eth1"]
    assert port.pfc_enabled == [] and port.pfc_source.line == 2
    assert [(i.code, i.source.line) for i in dev.issues] == [("SYS004", 3)]
    assert "the EXIT trap set on line 3 runs when the script ends" in dev.issues[0].message


def test_a_signal_trap_that_would_set_the_nic_is_named_and_one_that_would_not_is_silent():
    """A trap on INT/TERM/HUP/ERR runs only if that happens: its settings are not read; a SYS002 says so where they
    would change what is checked (a `rm -f` cleanup changes nothing: no word). One that also runs on EXIT is read."""
    dev = _host("undo() { mlnx_qos -i eth1 --trust pcp; }\ntrap undo INT TERM\ntrap 'rm -f /tmp/lock' HUP\n"
                "trap 'mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0' ERR\n"
                "mlnx_qos -i eth1 --trust dscp --pfc 0,0,0,1,0,0,0,0\n")
    port = dev.ports["eth1"]
    assert (port.trust, port.pfc_enabled) == (Trust.dscp, [3])
    named = {i.source.line: i.message for i in dev.issues if i.code == "SYS002"}
    assert sorted(named) == [3, 5]
    assert "the trap on INT, TERM runs `undo` only when the script gets SIGINT or SIGTERM" in named[3]
    assert "--trust pcp" in named[3] and "when a command fails" in named[5]
    dev = _host("trap 'mlnx_qos -i eth1 --trust pcp' EXIT INT TERM\nmlnx_qos -i eth1 --trust dscp\n")
    assert dev.ports["eth1"].trust == Trust.pcp and not [i for i in dev.issues if i.code == "SYS002"]


def test_a_trap_that_sets_itself_again_is_read_once():
    dev = _host("f() { mlnx_qos -i eth1 --trust pcp; trap f INT; }\ntrap f INT\nmlnx_qos -i eth1 --trust dscp\n")
    assert dev.ports["eth1"].trust == Trust.dscp and [i.source.line for i in dev.issues] == [3]


def test_print_options_set_no_trap():
    dev = _host("trap -p\ntrap -l\nmlnx_qos -i eth1 --trust dscp\n")
    assert dev.ports["eth1"].trust == Trust.dscp and not dev.issues
