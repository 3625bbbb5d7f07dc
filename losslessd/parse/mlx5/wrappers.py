"""Programs a host script runs another program through (`sudo -E mlnx_qos ...`, `timeout 10 dcb ...`): the command
they run, with their own words left out, as each one's manual page says it takes them.

Each wrapper runs the command with the words after its options (and, for env and sudo, after `NAME=VALUE`
settings of its environment), and its exit status is the command's (timeout: 124 only where the time runs out),
so the command sets and fails as it would written alone. A wrapper given words this reader cannot follow (an option
it does not list, `env -S STRING`) is left as written, so the line is named, not guessed.
"""

from __future__ import annotations

import os

from ...lazyre import lazy

# Per wrapper: its short options that take a value (glued, `-oL`, or the next word), its long ones that do
# (`--user=root` or `--user root`), and the options after which it runs no command (it prints, lists or edits).
# sudo(8) OPTIONS (sudo 1.9): -C -D -g -h -p -R -r -T -t -U -u take a value; -e (sudoedit), -l, -V, -v, -K, -k alone
# run no command. (`-h` alone is --help; with a word after it, --host: sudo(8) says so, so it is left unread.)
# timeout(1) (GNU coreutils): -k/--kill-after DURATION, -s/--signal SIGNAL; then DURATION, then the command.
# env(1) (GNU coreutils): -u/--unset NAME, -C/--chdir DIR, -a/--argv0 ARG; `-` is -i; then NAME=VALUE...; no
# command: it prints the environment. (-S/--split-string splits a string of its own: not followed.)
# nice(1) (GNU coreutils): -n/--adjustment N, or the older `-N`; no command: it prints the niceness.
# stdbuf(1) (GNU coreutils): -i/--input, -o/--output, -e/--error MODE.
# nohup(1) (GNU coreutils): no option but --help and --version.
# bash(1) SHELL BUILTIN COMMANDS, command [-pVv] command [arg ...]: -v and -V print, -p searches a default PATH.
_VALUED_SHORT = {"sudo": "CDgpRrTtUu", "timeout": "ks", "env": "uCa", "nice": "n", "stdbuf": "ioe", "nohup": "",
                 "command": ""}
_VALUED_LONG = {"sudo": ("--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role",
                         "--command-timeout", "--type", "--other-user", "--user"),
                "timeout": ("--kill-after", "--signal"), "env": ("--unset", "--chdir", "--argv0"),
                "nice": ("--adjustment",), "stdbuf": ("--input", "--output", "--error"), "nohup": (), "command": ()}
_FLAGS = {"sudo": "ABbEHiKknNPSsVv", "timeout": "v", "env": "i0v", "nice": "", "stdbuf": "", "nohup": "",
          "command": "pvV"}
_LONG_FLAGS = {"sudo": ("--askpass", "--bell", "--background", "--preserve-env", "--set-home", "--login",
                        "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--remove-timestamp",
                        "--reset-timestamp", "--no-update"),
               "timeout": ("--preserve-status", "--foreground", "--verbose"),
               "env": ("--ignore-environment", "--null", "--debug"), "nice": (), "stdbuf": (), "nohup": (),
               "command": ()}
_RUNS_NOTHING = {"sudo": "elVvK", "command": "vV"}  # (options after which no command is run; sudo -k with one
# runs it, asking for a password again)
_LONG_RUNS_NOTHING = ("--help", "--version", "--list", "--edit", "--validate", "--remove-timestamp")
_OBSOLETE_NICE = lazy(r"^-[0-9]+$")  # (`nice -10 cmd`: nice(1) still takes the older form)
_SETTING = lazy(r"^[A-Za-z_][A-Za-z0-9_]*=")  # (env(1), sudo(8): NAME=VALUE before the command)
# Python's own options (python3(1)): those that take a value, and those after which it runs no script.
_PYTHON = lazy(r"^python(?:[23](?:\.[0-9]+)?)?$")
_PYTHON_VALUED = "WX"
_PYTHON_NO_SCRIPT = "cmV"
# Python programs this reader reads (mlnx-tools python/mlnx_qos is one: `#!/usr/bin/python`).
_PYTHON_PROGRAMS = frozenset({"mlnx_qos"})


def unwrap(words: list[str]) -> list[str]:
    """The command ``words`` run once the wrappers before it are left out (`sudo -u root timeout 10 mlnx_qos -i eth0
    ...` -> `mlnx_qos -i eth0 ...`); [] where a wrapper runs no command (`command -v X`, `env` alone, `sudo -l`); the
    words as they are where a wrapper's words cannot be followed."""
    return _unwrapped(words, set())


def in_background(words: list[str]) -> bool:
    """Whether a wrapper runs the command in the background and exits 0 itself: sudo(8) -b, --background (sudo's
    src/exec.c, CD_BACKGROUND: it forks the command and returns at once), so the status `set -e` sees is 0, as after
    `&`."""
    seen: set[str] = set()
    _unwrapped(words, seen)
    return bool(seen & {"sudo -b", "sudo --background"})


def _unwrapped(words: list[str], seen: set[str]) -> list[str]:
    """unwrap; ``seen`` gets each wrapper's flags ("sudo -b", "sudo --background")."""
    out = words
    while out:
        prog = os.path.basename(out[0])
        if prog in _VALUED_SHORT:
            rest = _after_options(prog, out[1:], seen)
        elif _PYTHON.match(prog):
            rest = _python_script(out[1:])
        else:
            return out
        if rest is None:
            return words
        out = rest
        if prog in ("env", "sudo"):
            while out[:1] and _SETTING.match(out[0]):
                out = out[1:]
        elif prog == "timeout":
            out = out[1:]  # (its DURATION)
        if not out:
            return []
    return out


def _after_options(prog: str, args: list[str], seen: set[str]) -> list[str] | None:
    """``args`` past ``prog``'s options; [] where an option runs no command; None where one is not known. Each flag
    given goes to ``seen`` ("sudo -b")."""
    k = 0
    while k < len(args):
        arg = args[k]
        if arg == "--":
            return args[k + 1:]
        if arg == "-" and prog == "env":  # (env(1): `-` implies -i)
            k += 1
            continue
        if not arg.startswith("-") or arg == "-":
            return args[k:]
        if prog == "nice" and _OBSOLETE_NICE.match(arg):
            k += 1
            continue
        if arg.startswith("--"):
            name, eq, _ = arg.partition("=")
            if name in _LONG_RUNS_NOTHING:
                return []
            if name in _VALUED_LONG[prog]:
                k += 1 if eq else 2
            elif name in _LONG_FLAGS[prog]:  # (`--preserve-env=LIST` too)
                seen.add(f"{prog} {name}")
                k += 1
            else:
                return None
            continue
        for at, letter in enumerate(arg[1:], 1):
            if letter in _RUNS_NOTHING.get(prog, ""):
                return []
            if letter in _VALUED_SHORT[prog]:
                k += 1 if at + 1 < len(arg) else 2  # (`-oL`, `-uroot`: glued; `-u root`: the next word)
                break
            if letter not in _FLAGS[prog] or (prog == "sudo" and letter == "h"):
                return None
            seen.add(f"{prog} -{letter}")
        else:
            k += 1
    return []


def _python_script(args: list[str]) -> list[str] | None:
    """`python3 [OPTIONS] SCRIPT ARGS`, where SCRIPT is a Python program this reader reads: SCRIPT ARGS, as if run
    by its name (its `#!` line names the interpreter); None for any other."""
    k = 0
    while k < len(args) and args[k].startswith("-") and args[k] != "-":
        letters = args[k][1:]
        if letters.startswith("-") or any(c in _PYTHON_NO_SCRIPT for c in letters):
            return None
        valued = next((at for at, c in enumerate(letters) if c in _PYTHON_VALUED), None)
        k += 2 if valued is not None and valued + 1 == len(letters) else 1
    if k < len(args) and os.path.basename(args[k]) in _PYTHON_PROGRAMS:
        return [os.path.basename(args[k]), *args[k + 1:]]
    return None
