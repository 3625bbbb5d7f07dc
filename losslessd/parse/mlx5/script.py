"""A host setup script (such as `losslessd render --platform linux_mlx5` writes): what its commands set.

The script is not run: each line is read as the command it is, in order, so a later command overrides an
earlier one as it would on the host. Read are `mlnx_qos -i IF ...` (options as mlnx-tools python/mlnx_qos
defines them), `ip link set [dev] IF mtu N`, `echo V > /sys/class/net/IF/ecn/...` (and the other RoCE QoS files:
sysfs.py) and `cma_roce_tos -d DEV -t TOS`; sysfs writes may also be `echo V | tee PATH` or `sh -c 'echo V > PATH'`.
`set -e` is followed as bash runs the script (see _errexit).
The shell's own syntax (if/case/for blocks, `NAME=value` assignments, `echo` to the terminal) changes nothing on
the NIC and is skipped: a block's commands are read as if each ran once, in order (an `if`, `while` or `until`
testing `true`, `:` or `false` alone takes the branch bash takes: _known_conditions), a function's body where it is
called, and a variable given a literal value is replaced by it (one set at run time, `read IF`, is not: a command
on `$IF` then sets no port, and what it sets is unknown on each it may name). A block bash cannot read whole (a loop
no `done` closes, an `if` no `fi`, a `case` no `esac`, `{` or `(` left open, a `)` closing nothing, a closing word
where another is due, an empty body; a quote, `$(` or `${` never closed) ends the reading at its first line (bash
stops with a syntax error and runs none of it); so does an `exit` that always runs (after its line). `trap ARG EXIT`
runs ARG when the shell exits, so it is read after the script's last command; a trap on a signal is not read.
Anything else is reported. What the script leaves alone stays unknown (None), since it depends on the host's state
before.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Generator, Iterator

from ...errors import InputError
from ...lazyre import lazy
from ...limits import MAX_BRACE_WORDS, MAX_NESTING, MAX_SCRIPT_BRACE_WORDS, MAX_SCRIPT_COMMANDS
from ...model import PriorityGroup, Queue, Scheduler, SchedulerType, Source, Trust
from ...units import is_digits, is_small_int
from ...userre import Regex, compile_linear
from ..base import HEREDOC, heredoc_closes, heredoc_ends, split_shell
from ..braces import expand, holds_expression
from .wrappers import in_background, unwrap

# The RDMA device a rendered script finds at run time: `$(ls /sys/class/net/IF/device/infiniband)`.
_RDMA_OF = lazy(r"/sys/class/net/([^/\s]+)/device/infiniband")
_TSA = {"ets": SchedulerType.ets, "strict": SchedulerType.strict, "vendor": SchedulerType.vendor}


class Skip(ValueError):
    """A command (or option) that cannot be read; the message says why."""


# bash(1) SHELL GRAMMAR: the words that open, continue or close a compound command, and builtins that change nothing
# on the NIC (`set -eu` shell options, `exit`, `echo` to the terminal).
_BLOCK_WORDS = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
                          "done", "function", "{", "}", "(", ")", ";;"})
# sysctl sets the kernel's own network stack (net.ipv4.tcp_ecn is TCP's ECN), which RoCE traffic bypasses.
# (test / [ ]: an if or && condition; cd: the shell's own directory)
_NO_EFFECT = frozenset({"sysctl", "set", "exit", "return", "shift", "sleep", "true", ":", "wait", "read", "logger",
                        "unset", "[", "[[", "test", "continue", "break", "cd", "pushd", "popd"})
# Programs that print what they read and set nothing on the NIC (arithmetic `(( ))` neither): in a script they
# look things up or log; a line not read would only be noise.
_READS_ONLY = frozenset({"awk", "grep", "egrep", "cut", "cat", "head", "tail", "sort", "uniq", "wc", "tr", "date",
                         "ls", "ibdev2netdev", "ibstat", "ibv_devinfo", "ibv_devices", "show_gids", "lspci", "lsmod"})
# Programs that set nothing on a NIC's QoS and print nothing losslessd reads: linux-rdma/perftest's benchmarks (its
# README's list: each opens QPs of its own and measures them) and a file's own mode or owner (coreutils chmod, chown,
# touch). A script runs them around its setup (a bandwidth check after it, `chmod` of a file it wrote); a line not read
# would only be noise. (`systemctl start lldpad` stays read as unknown: lldpad applies what DCBX negotiates.)
_SETS_NO_NIC = frozenset({"ib_send_lat", "ib_send_bw", "ib_write_lat", "ib_write_bw", "ib_read_lat", "ib_read_bw",
                          "ib_atomic_lat", "ib_atomic_bw", "raw_ethernet_bw", "raw_ethernet_lat",
                          "raw_ethernet_burst_lat", "raw_ethernet_fs_rate", "chmod", "chown", "touch"})
_PASSED_OVER = _READS_ONLY | _SETS_NO_NIC
_BRANCHING = lazy(r"(?:^|[|;&])\s*(?:if|case|select|while|until|for\b(?!\s+\w+\s+in\b))\b", re.M)  # (`for ((`)
_FOR_LIST = lazy(r"^\s*for\s+\w+\s+in\b([^;\n]*)", re.M)
# What a for list holds that the shell only knows at run time: `$(ls ...)`, a backtick, `"$@"`, a glob; an array's
# `"${NAME[@]}"` is known, and so is a brace expansion (`{0..7}`: see braces.expand).
_RUNTIME_WORDS = lazy(r"\$\(|`|\$[@*0-9]|[*?]|\[(?![@*]\])")
# One word: `NAME=value` (quotes removed), or an array element's `NAME[SUBSCRIPT]=value` (bash(1) Arrays).
_ASSIGNMENT = lazy(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^]=]*\])?=(.*)$", re.S)
_VARIABLE = lazy(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[1-9])\}|([A-Za-z_][A-Za-z0-9_]*|[1-9]))")  # ($1: a call's)
_CASE_PATTERN = lazy(r"^\(?[^\s()]+\)$")  # `mce0)` / `eth*|ens*)`: a case branch's pattern line
# bash(1) Shell Function Definitions: `name() {`, `function name {`, `function name() {`, `name() (` (a body in a
# subshell)
_FUNCTION = lazy(r"^(?:function\s+([A-Za-z_][\w-]*)\s*(?:\(\))?|([A-Za-z_][\w-]*)\s*\(\))(?=\s*(?:\{|\(|$))")


def branches(text: str) -> bool:
    """Whether the script has if/case/while blocks, or a for loop over words known only at run time, whose commands
    are read as if each ran once, in order (a for loop over listed words runs once per word: see commands)."""
    text = "\n".join(line for _, line in _logical_lines(text))  # (a here-document's body is no block of this script)
    if _BRANCHING.search(text):
        return True
    sh, made = bool(_SHEBANG_SH.match(text)), [0]  # (in sh a brace expression is known only at run time: at_run_time)
    return any(_RUNTIME_WORDS.search(m.group(1)) or any(_unlisted(word, sh, made) for word in m.group(1).split())
               for m in _FOR_LIST.finditer(text))


def _unlisted(word: str, sh: bool, made: list[int]) -> bool:
    """Whether a for list's brace expression is left as written: in a `#!/bin/sh` script, or past MAX_BRACE_WORDS
    (``made``: the words expanded so far; past MAX_SCRIPT_BRACE_WORDS, commands refuses the file)."""
    if not holds_expression(word):
        return False
    try:
        made[0] += len(expand(word)) if not sh else 0
    except InputError:
        return True
    return sh or made[0] > MAX_SCRIPT_BRACE_WORDS


def commands(text: str, path: str | None = None) -> Iterator[tuple[int, list[str] | None, str]]:
    """(line number, words, line) per command line; words None when the shell could not split it. The shell's own
    syntax is skipped, `$NAME` of a variable assigned a literal value earlier is replaced by that value, `sudo`
    and `sh -c '...'` are unwrapped to the command they run, and a `for NAME in WORDS` loop over literal words (or
    an array's `"${ARRAY[@]}"`) runs its body once per word, NAME set to it."""
    flat: list[tuple[int, list[str] | None, str]] = []
    roles: list[str] = []  # (per command of flat: the operator after it, see _Grammar.ended)
    functions: set[str] = set()
    grammar = _Grammar()
    grammar.braces = not _SHEBANG_SH.match(text)  # (dash, as Debian's /bin/sh, expands no braces)
    for n, line in _logical_lines(text):
        roles.extend([""] * (len(flat) - len(roles)))
        if m := _FUNCTION.match(line):
            name = m.group(1) or m.group(2)
            functions.add(name)
            line = line[m.end():].strip()
            grammar.function = name  # (the `{` or `(` of its body: here or on the next line)
            if line.startswith("{"):  # `name() { body; }` on one line
                flat.append((n, ["{", _FUNCTION_BODY, name], line))
                grammar.command("{")
                grammar.function = ""
                line = line[1:].strip()
        if not line or line.startswith("#"):
            continue
        if m := _ARRAY.match(line):  # `NAME=(a b c)`: bash(1) Arrays (shlex would split it at its spaces)
            try:
                items = split_shell(_parens_marked(m.group(2)))
                flat.append((n, [_ARRAY_MARK, m.group(1), *(w for item in items for w in _words(item, [], grammar))],
                             line))
            except ValueError:
                flat.append((n, None, line))
            except InputError as exc:
                raise InputError(exc.message, file=path, line=n) from None
            continue
        shown = line.split("\n", 1)[0] + " ..." if "\n" in line else line  # (a quoted word over lines: its first)
        if "${" in line and (found := _expansion_left_open(line)):  # (to the end of the file: see _logical_lines)
            flat.append((n, [UNCLOSED, _LEFT_OPEN if found[1] == "${" else _QUOTE_LEFT_OPEN], shown))
            continue
        try:
            split = _split(_ARITHMETIC_FOR.sub(r"\1 ", line), grammar)
            if "${" in line and (bad := _bad_substitution(line)):
                _mark_bad_substitution(split, bad)
            flat.extend((n, words, shown) for words in split)
            roles.extend([""] * (len(flat) - len(roles) - len(grammar.ended)) + grammar.ended)
        except InputError as exc:  # (a brace expansion past its bound)
            raise InputError(exc.message, file=path, line=n) from None
        except ValueError:
            if _quote_left_open(line, None):  # (to the end of the file: see _logical_lines)
                flat.append((n, [UNCLOSED, _QUOTE_LEFT_OPEN], shown))
            elif any(_scan(line, (0, False, "", []))[0]):  # a substitution or backtick left open
                flat.append((n, [UNCLOSED, "a command substitution (`$(` or a backtick) opened on this line is never "
                                           "closed: bash stops with a syntax error at the end of the file"], shown))
            else:
                flat.append((n, None, shown))
    # A call of the script's own function (bash(1) FUNCTIONS: its body runs there, with the call's words as $1, $2,
    # ...; a function never called runs nothing).
    functions |= grammar.functions
    roles.extend([""] * (len(flat) - len(roles)))
    flat, roles = _known_conditions(flat, roles)
    flat = _calls(flat, functions)
    roles.extend([""] * (len(flat) - len(roles)))
    yield from _run(_tested_blocks(_errexit(flat, roles)), {}, {}, [0], path,
                    {**_shell_options(text), _EXPANDED: grammar.expanded})


# bash(1) Parameter Expansion: what may follow `${`: a length (`${#a}`, `${#a[@]}`), an indirection or a names list
# (`${!a}`, `${!a*}`), or a parameter (a name, with a subscript; digits; a special one), then nothing or an operator
# (`${a:}` is none). Anything else, `${a b}`, `${}`, `${1a}`, `${-a}`, `${a[}`, bash 5 reports as a bad substitution.
_PARAMETER = r"(?:[A-Za-z_]\w*(?:\[[^]]*\])?|\d+|[@*#?$!0-])"
# A transformation is `@` and one letter (bash 5.2 subst.c valid_parameter_transform: `${a@Q}`; `${a@}`, `${a@z}` and
# `${a@QQ}` are none).
_OPERATION = r"(?::.+|[-=?+#%/^,].*|@[QEPAaKkUuL])?"
_GOOD_EXPANSION = lazy(rf"#{_PARAMETER}|![A-Za-z_]\w*[*@]|!{_PARAMETER}{_OPERATION}|{_PARAMETER}{_OPERATION}",
                       re.S)
_BAD = "\0bad-substitution"  # ([_BAD, why]: in the place of a command a bad substitution keeps from running)
# A bad substitution bash meets only where a variable is set, or not ([_WHEN, name, when, why, the command's words]:
# _block reads it where the name's value is known, else reads the command as written, its value known at run time):
# - bash 5.2 subst.c parameter_brace_transform: a transformation that is none (`${a@}`, `${a@z}`) of a parameter
#   that is set is expand_param_fatal in a shell that is not interactive: "bad substitution", and the shell (a `( )`
#   subshell, a command substitution: that one) exits with status 1; of one that is not set it is nothing;
# - bash(1) Parameter Expansion: the word of `${a:-WORD}` (`-`, `=`, `?`) is expanded only where `a` is unset (with
#   the colon, or empty), that of `${a:+WORD}` only where it is set (and not empty): a bad `${b c}` in it is met then;
#   a pattern, offset or replacement (`${a#${b c}}`, `${a:${b c}}`) only where `a` is set and not empty (bash 5.2).
_WHEN = "\0bad-when"
_TRANSFORMED = lazy(r"\$\{([A-Za-z_]\w*|\d+|[@*])(?:\[[@*]\])?@")
_DEFAULTED = lazy(r"\$\{([A-Za-z_]\w*|\d+)(:?)([-=?+])(.*)\}", re.S)
_PATTERNED = lazy(r"(?:[A-Za-z_]\w*(?:\[[^]]*\])?|\d+|[@*])(?:##?|%%?|/[/#%]?|\^\^?|,,?|:)(.*)", re.S)


def _bad_substitution(line: str) -> str | None:
    """The first `${...}` of ``line`` (outside single quotes and comments, its nested ones left out: bash expands
    those only where their operator does) that bash refuses as a bad substitution when it expands it."""
    i, n, prev = 0, len(line), "\n"
    while i < n:
        step = _EXPANSION_SCAN.match(line, i).group()  # type: ignore[union-attr]
        starts = [i] if step == "${" else []
        if step == '"':
            if (end := _double_quoted_end(line, i + 1)) < 0:
                return None  # (a quote left open: see _expansion_left_open)
            j = i + 1
            while (k := line.find("${", j, end)) >= 0:
                starts.extend([k] * (line[k - 1] != "\\"))  # (`"\${a b}"` is no expansion)
                j = _expansion_end(line, k) or end
            i, prev = end + 1, step
        elif step == "#" and prev in " \t\n;&|(":  # a comment, to its line's end
            i = line.find("\n", i)
            i = n if i < 0 else i
        else:
            i, prev = i + len(step), step[-1]
        for k in starts:
            if (close := _expansion_end(line, k)) is None:
                return None
            if not _GOOD_EXPANSION.fullmatch(line, k + 2, close - 1):
                return line[k:close]
            if "${" in line[k + 2:close - 1] and _nested_bad(line[k + 2:close - 1]):
                return line[k:close]
            i = max(i, close) if step == "${" else i
    return None


def _nested_bad(body: str) -> str | None:
    """The bad substitution in the word of the good `${BODY}` (a default, a pattern: see _WHEN), met only as its
    variable is set or not; None for none, and where the nested one is itself good but holds one (not read)."""
    word = (defaulted.group(4) if (defaulted := _DEFAULTED.fullmatch("${" + body + "}")) else
            patterned.group(1) if (patterned := _PATTERNED.fullmatch(body)) else None)
    bad = _bad_substitution(word) if word else None
    return bad if bad and not _GOOD_EXPANSION.fullmatch(bad, 2, len(bad) - 1) else None


def _bad_met(name: str, when: str, values: dict[str, str], arrays: dict[str, list[str]]) -> bool:
    """Whether bash meets the bad substitution of a _WHEN mark, where ``name``'s value is known (else False: the
    command is read as written)."""
    if is_small_int(name):  # (a function's words: known in its call)
        value = arrays["@"][int(name) - 1] if "@" in arrays and 0 < int(name) <= len(arrays["@"]) else None
    else:
        value = values.get(name, " " if name in arrays else None)  # (an array: set; its elements are not looked at)
    if value is None:
        return False
    return when == "fatal" or when == "set" or (when == "set:" and value != "") or (when == "unset:" and value == "")


_NOT_WORD = lazy(r"[^\w]")


def _mark_bad_substitution(split: list[list[str]], bad: str) -> None:
    """The first simple command of ``split`` with ``bad`` in a word, in place of its words: what bash does there
    (_block). A compound command's own words (`for i in ${a b}`) are left as they are."""
    for k, words in enumerate(split):
        if words and words[0] not in _BLOCK_WORDS and not words[0].startswith("\0") and \
                any(bad in word.replace(_QUOTED_EXPANSION, "") for word in words):
            split[k] = [_BAD, f"`{bad}` is a bad substitution (bash(1) Parameter Expansion)"]
            if _GOOD_EXPANSION.fullmatch(bad, 2, len(bad) - 1):  # (a nested bad one: _nested_bad)
                name, colon, op = (m.group(1, 2, 3) if (m := _DEFAULTED.fullmatch(bad)) else
                                   (_NOT_WORD.split(bad[2:], maxsplit=1)[0], ":", "+"))
                split[k] = [_WHEN, name, ("set" if op == "+" else "unset") + colon, f"`{bad}` holds a bad "
                            f"substitution bash meets where `{name}` is {'set' if op == '+' else 'not set'}", *words]
            elif transformed := _TRANSFORMED.match(bad):
                split[k] = [_WHEN, transformed.group(1), "fatal", f"`{bad}` is no transformation of a parameter that "
                            "is set: bash stops the script (bash 5.2 subst.c parameter_brace_transform)", *words]
            return


# What bash 5 does with a line it cannot read to its end (`bash -n` and a run agree: "unexpected EOF while looking for
# matching ...", nothing from that line on runs): the reason [UNCLOSED, why] gives.
_QUOTE_LEFT_OPEN = "a quote opened on this line is never closed: bash stops with a syntax error at the end of the file"
_LEFT_OPEN = ("a parameter expansion `${` opened on this line is never closed: bash stops with a syntax error at the "
              "end of the file")
_ERREXIT = "\0errexit"  # (after `exit`: the exit `set -e` makes after a command that fails; the reason follows)
_ERREXIT_OFF = "\0errexit-off"  # (in ``functions``: how many contexts that ignore set -e are running; see _block)
_POSIX = "\0posix"  # (in ``functions``: whether the shell is in POSIX mode, `#!/bin/sh` or `set -o posix`)
_ERREXIT_ON = "\0errexit-on"  # (in ``functions``: whether the shell's -e option is on, as the script has run so far)
_INHERIT = "\0inherit-errexit"  # (in ``functions``: whether a command substitution keeps -e: shopt inherit_errexit, on
# in POSIX mode too, bash(1) shopt; see _shell_options)
_STATUS = "\0status"  # (a command substitution's failure: [_SUBSHELL, _STATUS, why, "last" or ""]; see _errexit)
_RETURNING = "\0returning"  # (in ``functions``: a `return` ran in a loop of the function's body, which it ends)
_RETURNED = "\0returned"  # (in ``functions``: (line, why) of a `return N` other than 0 that ended the call)
_SUBST_FAILED = "\0subst-failed"  # (in ``functions``: (line, why) of the last command substitution that failed)
_SHIFTED = "\0shifted"  # (after `exit`, _ERREXIT: a shift's failure known only as it runs, past the words)
_SHIFT_FAILED = "\0shift-failed"  # (in ``functions``: (line, why) of the last shift that failed as it ran)
# bash's legal_number (general.c), the number shift, exit and return take: strtoimax base 10 (C blanks before, a
# sign, ASCII digits, no overflow), then only blanks and tabs; anything else is "numeric argument required".
_SHELL_NUMBER = lazy(r"[ \t\n\v\f\r]*([+-]?)0*([0-9]{1,19})[ \t]*")
_ERREXIT_TOP = "\0errexit-top"  # (in ``functions``: (index, why) of the failure that ended the script's top level)
_SUBSHELL_FAILED = "\0subshell-failed"  # (in ``functions``: why set -e ended the `( )` subshell whose `)` is next)
_PIPEFAIL = "\0pipefail"  # (in ``functions``: `set -o pipefail`, a pipeline fails where any of its parts does)
_EXPANDED = "\0expanded"  # (in ``functions``: the file's count of brace-expanded words, see _Grammar.expanded)
_OPTIONS = (_ERREXIT_ON, _INHERIT, _PIPEFAIL)
# `#!/bin/bash -e`, `#!/bin/sh -eu`: the interpreter's options (bash(1) OPTIONS: those of `set`).
_SHEBANG_OPTIONS = lazy(r"\A\s*#!\s*\S*/(?:ba|da|k|z)?sh[ \t]+([^\n]*)")
_SHEBANG_SH = lazy(r"\A\s*#!\s*(?:\S*/env\s+)?(?:\S*/)?(?:da)?sh(?:\s|$)")  # (`#!/bin/sh`, not bash)


def _shell_number(word: str) -> int | None:
    """The number bash's shift, exit and return read in ``word`` (_SHELL_NUMBER), None where bash refuses it."""
    m = _SHELL_NUMBER.fullmatch(word)
    value = int(m.group(1) + m.group(2)) if m else None
    return value if value is not None and -2**63 <= value < 2**63 else None


def _shift_refused(words: list[str]) -> str | None:
    """Why bash's `shift [N]` fails whatever the words are (bash(1) shift: N a number, at least 0), or None. (Two
    counts or more, "too many arguments", end the command the shell runs at its top level, not by status 1: set -e
    does not stop the script there; see _block.)"""
    if len(words) != 2 or at_run_time(words[1]):
        return None
    count = _shell_number(words[1])
    return f"`shift {words[1]}`: numeric argument required" if count is None else \
        f"`shift {words[1]}`: shift count out of range" if count < 0 else None


def _shell_options(text: str) -> dict:
    """The shell's errexit state as the script starts: `-e` on the `#!` line (bash(1) OPTIONS); and whether a command
    substitution keeps -e, which bash clears there unless in POSIX mode (bash(1) COMMAND EXECUTION ENVIRONMENT; `sh`
    is bash in POSIX mode, or dash, which keeps it too: both run `x=$(false)` under set -e to an exit)."""
    shebang = _SHEBANG_OPTIONS.match(text)
    return {_ERREXIT_ON: _errexit_option(shebang.group(1).split(), False) if shebang else False,
            _INHERIT: bool(_SHEBANG_SH.match(text)), _POSIX: bool(_SHEBANG_SH.match(text))}


def _options_set(words: list[str], functions: dict) -> None:
    """The shell options ``words`` change: `set -e`, `set -o errexit`, `set -o posix` (and `+` turning each off);
    `shopt -s|-u inherit_errexit`; `shopt -s|-u -o errexit|posix` (bash(1) SHELL BUILTIN COMMANDS: set, shopt)."""
    args = words[1:]
    if words[0] == "set":
        functions[_ERREXIT_ON] = _errexit_option(args, bool(functions.get(_ERREXIT_ON)))
        for k, arg in enumerate(args[:-1]):
            named = args[k + 1] if arg[:1] in "-+" and "o" in arg[1:] and not arg.startswith("--") else ""
            if named == "pipefail" or (named == "posix" and arg[0] == "-"):  # (posix mode turns inherit_errexit on;
                functions[_INHERIT if named == "posix" else _PIPEFAIL] = arg[0] == "-"  # leaving it does not: bash 5.2)
            if named == "posix":
                functions[_POSIX] = arg[0] == "-"
        return
    flags = "".join(arg[1:] for arg in args if arg.startswith("-"))
    names = [arg for arg in args if not arg.startswith("-")]
    if ("s" in flags) == ("u" in flags):  # (neither: it prints; both: bash refuses the call)
        return
    for name in names:
        if "o" in flags and name in ("errexit", "posix", "pipefail"):
            if name != "posix" or "s" in flags:
                functions[{"errexit": _ERREXIT_ON, "posix": _INHERIT, "pipefail": _PIPEFAIL}[name]] = "s" in flags
            if name == "posix":
                functions[_POSIX] = "s" in flags
        elif "o" not in flags and name == "inherit_errexit":
            functions[_INHERIT] = "s" in flags


def _errexit(flat: list, roles: list[str]) -> list:
    """bash(1) `set -e` (also `set -o errexit`, or `-e` on the `#!` line; `set +e` turns it off): a command that fails
    ends the script, unless it is tested (if, while, until, `!`, before `&&` or `||`: ``roles``, the operator after
    each command), run in the background or a pipeline's part. Where the reader knows a command fails on mlx5 (see
    _fails), an `exit` is put after it, which ends the reading as an exit would where the option is on when it runs
    (see _block: the option is followed as the script runs, through the functions it calls and the subshells it
    opens), and not in a context that ignores it (see _tested_blocks). Marks for _block's status follow: a `!`
    (_NEGATION), an `&&` (_AND_THEN), a pipe into a compound command (_PIPED_INTO)."""
    from . import dcb

    out: list = []
    pending: dict[int, list[int]] = {}  # (by the index of the last command an `&&` skips: its _AND_THEN's places)
    flat = list(flat)  # (a piped `)` is marked in it: the caller's stays as it was)
    negated = [role.startswith("!") for role in roles]
    roles = [role.lstrip("!") for role in roles]
    operands = _and_operands(flat, roles)
    for k, (n, words, line) in enumerate(flat):
        if words and words[0] in _CLOSERS and words[1:] == [] and roles[k] == "&" or \
                words == [")"] and roles[k] in ("|", "|&"):  # (`( ... ) | cmd`: as `} | cmd`; `done &`: see _piped)
            flat[k] = (n, [words[0], roles[k]], line)
            if words == [")"] and _pipeline_role(roles, k) in ("&&", "||"):  # (`( ... ) | cat && cmd`: the pipeline
                flat[k] = (n, [")", _LISTED, roles[k]], line)  # is tested, as `{ ...; } | cat && cmd`)
        if roles[k] == "&" and words and _CALL in words[:3] and words[0] != _SUBSHELL:  # (`f eth3 &`: a background
            flat[k] = (n, [*words, _BACKGROUND], line)  # job, see _block)
        if words and words[0] in _CLOSERS and _piped(words) and roles[k] in ("&&", "||") and \
                words[1:2] != [_LISTED]:  # (`{ ...; } | cat && cmd`: the pipeline is tested, see _tested_blocks)
            flat[k] = (n, [words[0], _LISTED, *words[1:]], line)
        _one_errexit(out, k, flat, roles, dcb)
        if negated[k] and words and words[0] != _SUBSHELL:  # (`! cmd`: its status turned over, see _block)
            out.append((n, [_NEGATION], line))
        for at in pending.pop(k, ()):  # (where the skip goes on)
            out[at] = (out[at][0], [_AND_THEN, str(len(out)), *out[at][1][2:]], out[at][2])
        if roles[k] in ("|", "|&") and words and words[0] != _SUBSHELL:  # (`cmd | while ...`: the compound
            out.append((n, [_PIPED_INTO], line))  # command after it is the pipeline's last part)
        if roles[k] == "&&" and words and words[0] != _SUBSHELL and (end := operands[k + 1]) is not None:
            failure = _pipeline_fails(words, dcb) if not words[0].startswith("\0") else None
            pending.setdefault(end, []).append(len(out))  # (a command known to fail before `&&`: the status is its
            out.append((n, [_AND_THEN, "", *(failure or ())], line))  # own, and what `&&` runs is skipped)
    return out


def _pipeline_role(roles: list[str], k: int) -> str:
    """The operator after the pipeline whose part ends at command ``k`` (see _Grammar.ended)."""
    while k < len(roles) and roles[k] in ("|", "|&"):
        k += 1
    return roles[k] if k < len(roles) else ""


def _and_operands(flat: list, roles: list[str]) -> list[int | None]:
    """Per command, the index of the last command of the `&&` list it starts (bash(1) Lists: `a && b && c || d` runs
    neither b nor c where a fails, and d): what `&&` after the command before it runs where it succeeds; None where
    that holds a compound command (not followed here). One pass from the end (a long list is not scanned per
    command)."""
    out: list[int | None] = [None] * (len(flat) + 1)
    for j in range(len(flat) - 1, -1, -1):
        words = flat[j][1] or [""]
        while words[:1] and words[0] in (_GUARDED, _LISTED, _CONDITION, _CALL):
            words = words[1:]
        if not flat[j][1] or not words or words[0] in _BLOCK_WORDS or words[0].startswith("\0") or \
                flat[j][1][0] == _SUBSHELL or roles[j] in ("|", "|&"):  # (piped into a compound command; a line the
            # shell cannot split: not followed)
            out[j] = None
        else:
            out[j] = j if roles[j] != "&&" else out[j + 1]
    return out


def _one_errexit(out: list, k: int, flat: list, roles: list[str], dcb) -> None:
    """The command ``flat[k]``, and after it the `exit` set -e makes where it fails (see _errexit)."""
    n, words, line = flat[k]
    untested = _line_untested(line, words) if words and words[0] == _SUBSHELL else _untested(roles[k])
    if words and words[0] in _LOOP_WORDS and not untested:  # (`break 0 || true`: its failure is tested)
        words = [_TESTED, *words]
    out.append((n, words, line))
    if words and words[0] == _SUBSHELL and untested and (failure := _pipeline_fails(words[1:], dcb)):
        # a command substitution's command that fails: its status, where it is the last (bash(1) Command
        # Substitution), or where -e is kept in it (see _block); a pipeline whose part but the last fails, where
        # pipefail is on
        last = k + 1 == len(flat) or flat[k + 1][0] != n or (flat[k + 1][1] or [""])[0] != _SUBSHELL
        out.append((n, [_SUBSHELL, _STATUS, failure[0], "last" if last else "", *failure[1:]], line))
    if words and untested and all(_ASSIGNMENT.match(w) for w in words) and k and flat[k - 1][0] == n and \
            (flat[k - 1][1] or [""])[0] == _SUBSHELL:  # `x=$(cmd)`: its status is the substitution's
        out.append((n, ["exit", _ERREXIT, _STATUS], line))
    if not words or words[0].startswith("\0") or words[0] == "!":
        return  # (tested, after && or ||, in a command substitution, a call: not this command's failure)
    if untested and (failure := _pipeline_fails(words, dcb)):
        out.append((n, ["exit", _ERREXIT, *failure], line))
    elif untested and words[0] == "shift" and "|" not in words:  # (past the words: known as it runs, see _block)
        out.append((n, ["exit", _ERREXIT, _SHIFTED], line))


def _pipeline_fails(words: list[str], dcb) -> tuple[str] | tuple[str, str] | None:
    """(why) where the command, or the pipeline, ``words`` fails on mlx5 (see _fails); (why, _PIPEFAIL) where it fails
    only under `set -o pipefail`; None where neither is known. bash(1) Pipelines: a pipeline's status is its last
    part's, or with pipefail the last part's that fails (`dcb apptrust set ... | tee -a LOG`); `echo V | [sudo] tee
    PATH` fails as tee's write does."""
    if "|" not in words and "|&" not in words or _tee_form(words):
        return (why,) if (why := _fails(words, dcb)) else None
    parts = pipeline(words)
    fails = [_fails([*parts[k - 1], "|", *part] if k and part[:1] == ["tee"] and parts[k - 1][:1] == ["echo"] else
                    part, dcb) for k, part in enumerate(parts)]  # (`echo V | tee PATH | cat`: tee's write)
    if fails[-1]:
        return (fails[-1],)
    why = next((why for why in reversed(fails) if why), None)
    return (f"{why} (piped, under `set -o pipefail`: the pipeline fails with it)", _PIPEFAIL) if why else None


def pipeline(words: list[str]) -> list[list[str]]:
    """The parts of the pipeline ``words`` (bash(1) Pipelines: cut at each `|` or `|&`), each the command it runs
    (without the wrappers before it: see wrappers.unwrap); one part for a command that is no pipeline."""
    parts: list[list[str]] = [[]]
    for word in words:
        if word in ("|", "|&"):
            parts.append([])
        else:
            parts[-1].append(word)
    return [unwrap(part) for part in parts]


_PRINTS = frozenset({"echo", "printf", "true", ":", "yes"})  # (a pipeline's part that prints only, into a shell)


def _shell_parts(words: list[str]) -> tuple[list[list[str]], bool]:
    """The shells ``words`` starts, each `sh|bash -c STRING`: the command itself, or the `-c` shells of a pipeline
    whose other parts only print or read their input (`sh -c A | sh -c B`, `sh -c A | tee -a LOG`, `echo y | sh -c
    B`: bash(1) Pipelines, each part runs); and whether the pipeline's last part is one of them (its status is then
    the pipeline's). None for any other command."""
    from . import _output_reader

    def shell(part: list[str]) -> bool:
        return len(part) == 3 and os.path.basename(part[0]) in ("sh", "bash") and part[1] == "-c"

    def sets_nothing(part: list[str]) -> bool:  # (`tee` writing a sysfs file, or a redirection, sets something)
        return (_output_reader(part) or part[:1] != [] and part[0] in _PRINTS) and not any(">" in w for w in part)
    if shell(words):
        return [words], True
    if "|" not in words and "|&" not in words:
        return [], False
    parts = pipeline(words)
    if not any(shell(p) for p in parts) or not all(shell(p) or sets_nothing(p) for p in parts):
        return [], False
    return [p for p in parts if shell(p)], shell(parts[-1])


def _untested(role: str) -> bool:
    """Whether a failure of a command followed in its list by the operator ``role`` (see _Grammar.ended) may end the
    script under set -e (bash(1) set -e; Lists): it is not before `&&` or `||` (tested; the command after the last of
    them is not), not run in the background (`cmd &`: its status is 0 to the shell that started it), and not piped
    into a compound command (`cmd | while ...`: the pipeline's status is that command's, see _pipeline_ends). When a
    pipeline of its own fails: see _pipeline_fails."""
    return role not in ("&&", "||", "&", "|", "|&")


def _line_untested(line: str, words: list[str] | None, piped: bool = False) -> bool:
    """_untested of a command whose place in its list is not at hand (one a command substitution runs, a `sh -c`
    command): by the operators of its whole ``line``, its command substitutions left out (their `|`, `&&` are
    theirs: bash(1) Command Substitution); ``piped``: a pipeline's first part, whose pipes are not looked at."""
    bare, split = _bare(line)
    if any(op in bare for op in ("||", "&&")) or "!" in split:
        return False
    if "&" in split or (bare.rstrip().endswith("&") and not bare.rstrip().endswith(("&&", ">&", "|&"))):
        return False  # (`cmd &`: a background job)
    if piped:
        return True
    if words is None or "|" not in bare:
        return "|" not in bare
    return words.count("|") == 1 and "|&" not in words and \
        (words[words.index("|") + 1:] or [""])[0] in ("tee", "sudo") and _tee_form(words)  # (`echo V | tee PATH`:
    # exits 1 where the kernel refuses the write, coreutils tee)


@functools.lru_cache(maxsize=64)
def _bare(line: str) -> tuple[str, frozenset[str]]:
    """``line`` with its command substitutions folded and its quoted text emptied, and its words: once per line, not
    per command on it (a function whose one-line body runs 2,000 substitutions, called 2,000 times, folded its line
    for each: 35 s)."""
    with contextlib.suppress(ValueError):  # (one left open: the line as it is)
        line = _substitutions_folded(line)
    bare = _QUOTED.sub("''", line)
    return bare, frozenset(bare.split())


def _tee_form(words: list[str]) -> bool:
    """Whether ``words`` are `echo V | [sudo] tee [-a] PATH` (see redirect)."""
    try:
        redirect(words)
    except Skip:
        return False
    return True


def _fails(words: list[str], dcb) -> str | None:
    """Why the command fails on mlx5 (a `dcb` the kernel refuses: dcb.fails; a RoCE QoS file's write it refuses:
    sysfs.write_fails), or None."""
    from . import sysfs

    if in_background(words):  # (sudo -b: sudo's status is 0, whatever the command's)
        return None
    if words[:1] == ["shift"]:
        return _shift_refused(words)
    words = unwrap(words)  # (a wrapper's status is its command's: timeout(1), env(1), nice(1), sudo(8) ...)
    if words[:1] == ["echo"] and not any(at_run_time(w) for w in words):  # (`> PATH`, `| tee PATH`: see redirect)
        try:
            return sysfs.write_fails(*redirect(words))
        except Skip:
            return None
    # (mlnx-tools python/mlnx_qos: optparse exits 2 on an option it lacks, the script 1 on a word that is no option,
    # "Bad arguments", and on no -i, "Interface name is required")
    if words and os.path.basename(words[0]) == "mlnx_qos" and not any(at_run_time(w) for w in words) and (
            why := mlnx_qos_refuses(words[1:])):
        return f"mlnx_qos refuses the call and exits non-zero: {why}"
    return dcb.fails(words[1:]) if words and os.path.basename(words[0]) == "dcb" else None


# bash(1) SHELL BUILTIN COMMANDS: `true` and `:` always succeed, `false` always fails; so an `if` testing one of them
# alone (or `!` it) takes one branch whatever the host (`if true; then exit 1; fi` ends the script there), and a
# `while` or `until` loop runs its body (`while true; do ... exit 1; done`) or never does.
_KNOWN_TESTS = {"true": True, ":": True, "false": False}
_ONCE = "\0once"  # (the name of the one-word `for` a loop known to run is read as: no script's variable)


def _known_conditions(flat: list, roles: list[str]) -> tuple[list, list[str]]:
    """``flat`` (and the operators after its commands, ``roles``) with each `if` whose condition is known (see
    _KNOWN_TESTS) written as the branch it takes: `{ BODY; }`, or `:` where it takes none; and each `while` or `until`
    loop whose condition is known as a loop over one word (its body runs, read once as a loop over words is) or `:`.
    Every other if or loop is read with its commands as if each ran once (see branches); one from where bash stops
    with a syntax error on is left for _structure to name (a branch written away must not take the error with it)."""
    if not any(words and words[0] in ("if", "while", "until") for _, words, _ in flat):
        return flat, roles
    try:
        broken = _structure(flat, None)[1]
    except InputError:  # (nested too deep: said with its file where the script is run)
        return flat, roles
    flat, roles = list(flat), [*roles, *[""] * (len(flat) - len(roles))]
    k, limit = 0, len(flat) if broken is None else broken[0]
    while k < limit:
        known = _known_test(flat, roles, k)
        marks = None if known is None else _branch_words(flat, k)
        if marks is None or marks[-1] >= limit:
            k += 1
            continue
        fi, before = marks[-1], len(flat)
        after, tail = roles[fi], flat[fi][1][1:]  # (`fi && X`, `fi | cat`: what follows the if, as it was)
        if known and flat[k][1] != ["if"]:  # (`do ... done` as written)
            flat[k:k + 2] = [(flat[k][0], ["for", _ONCE, "in", "1"], flat[k][2])]
            roles[k:k + 2] = [roles[k + 1].lstrip("!")]
            k += 1
        elif known:  # the first branch: `{ BODY; }`
            closer = (flat[marks[0]][0], ["}", *tail], flat[marks[0]][2])
            flat[k:fi + 1] = [(flat[k][0], ["{"], flat[k][2]), *flat[k + 3:marks[0]], closer]
            roles[k:fi + 1] = ["", *roles[k + 3:marks[0]], after]
        elif flat[marks[0]][1][:1] == ["elif"]:  # the next test: read as an if of its own
            flat[k:marks[0] + 1] = [(flat[marks[0]][0], ["if", *flat[marks[0]][1][1:]], flat[marks[0]][2])]
            roles[k:marks[0] + 1] = [roles[marks[0]]]
            limit += len(flat) - before
            continue
        elif flat[marks[0]][1][:1] == ["else"]:  # `{ ELSE; }`
            closer = (flat[fi][0], ["}", *tail], flat[fi][2])
            flat[k:fi + 1] = [(flat[marks[0]][0], ["{"], flat[marks[0]][2]), *flat[marks[0] + 1:fi], closer]
            roles[k:fi + 1] = ["", *roles[marks[0] + 1:fi], after]
        else:  # no branch runs: the if's status is 0
            flat[k:fi + 1] = [(flat[fi][0], [":", *tail], flat[fi][2])]
            roles[k:fi + 1] = [after]
        limit += len(flat) - before
    return flat, roles


def _known_test(flat: list, roles: list[str], k: int) -> bool | None:
    """Whether the `if` at ``flat[k]`` takes its first branch (the `while` or `until` there runs its body), where its
    condition is one command of _KNOWN_TESTS (`!` before it turning it over) and `then` (`do`) follows; None for any
    other."""
    head = flat[k][1]
    if head not in (["if"], ["while"], ["until"]) or k + 2 >= len(flat) or \
            flat[k + 2][1] != (["then"] if head == ["if"] else ["do"]):
        return None
    test, role = flat[k + 1][1], roles[k + 1]
    if test is None or len(test) != 2 or test[0] != _CONDITION or test[1] not in _KNOWN_TESTS or \
            role.lstrip("!") not in ("", ";") or len(role) - len(role.lstrip("!")) > 1:
        return None
    return (_KNOWN_TESTS[test[1]] != role.startswith("!")) != (head == ["until"])


def _branch_words(flat: list, k: int) -> list[int] | None:
    """The indexes of the `elif`, `else` and `fi` of the `if` at ``flat[k]`` (its own, not those of blocks in it; of a
    loop there, its `done`); None when it is not closed by its own word (see _structure)."""
    marks = [_closing(flat, k + 1, len(flat), branches=True)]
    while marks[-1] < len(flat) and (flat[marks[-1]][1] or [""])[0] in ("elif", "else"):
        marks.append(_closing(flat, marks[-1] + 1, len(flat), branches=True))
    return marks if marks[-1] < len(flat) and flat[marks[-1]][1][0] == _OPENERS[flat[k][1][0]] else None


def _tested_blocks(flat: list) -> list:
    """bash(1) set -e: "If a compound command ... executes in a context where -e is being ignored, none of the commands
    executed within the compound command ... will be affected": in a `{ }` group, `( )` subshell, loop, if or case
    followed by `&&` or `||` (its closing word marked _LISTED by _calls) or after `!`, and in the test of an if,
    elif, while or until (over lines, and in blocks of its own), a failing command ends nothing, and a function
    called there runs as one called as a test. (A function defined there is not: its body runs where it is
    called.)"""
    out, open_, tests = list(flat), [], {}  # (tests: the index where the test of each open if/while/until starts)
    for j, (_, words, _) in enumerate(flat):
        first = words[0] if words else None
        if first in _OPENERS:
            open_.append(j)
            if first in ("if", "while", "until"):
                tests[j] = j
        elif first == "elif" and open_:
            tests[open_[-1]] = j
        elif first in ("then", "do") and open_ and open_[-1] in tests:
            _tested(out, tests.pop(open_[-1]) + 1, j)
        elif first in _CLOSERS and open_:
            opener = open_.pop()
            tests.pop(opener, None)
            negated = opener > 1 and flat[opener - 1][1] == [_PIPED_INTO] and flat[opener - 2][1] == [_NEGATION]
            if negated and words[1:] in ([], [_LISTED]):  # (`! cmd | { ...; }`: the pipeline's status turned over is
                out[j] = (out[j][0], [first, _LISTED, _NEGATION], out[j][2])  # tested, as `} || true` is; see
                # _piped_part_ends; before `&&` too, where _calls marked it _LISTED)
            own = opener + 1 < j and flat[opener + 1][1][:1] == [_OWN_SHELL]  # (`bash <<EOF || x`: see _tested)
            if (words[1:2] == [_LISTED] or flat[opener][1][1:2] == [_CONDITION] or negated) and not own:
                _tested(out, opener + 1, j)
    return out


def _tested(out: list, start: int, stop: int) -> None:
    """The commands of ``out[start:stop]`` run where set -e is ignored (see _tested_blocks)."""
    k, defined = start, 0  # (how deep in a function defined there, or a shell of its own on a here-document)
    own = False  # (the block skipped is a shell of its own: its status, at its `)`, is this context's)
    while k < stop:
        _, inner, _ = out[k]
        head = inner[0] if inner else None
        if defined or inner and inner[1:2] == [_FUNCTION_BODY] or \
                inner == ["("] and k + 1 < stop and out[k + 1][1][:1] == [_OWN_SHELL]:
            own = own if defined else inner == ["("]
            defined += (head in _OPENERS) - (head in _CLOSERS)
            if not defined and own and inner == [")"]:  # (`{ bash <<EOF ... EOF; } || true`: its failure is tested)
                out[k] = (out[k][0], [")", _LISTED], out[k][2])
        elif inner and (inner[1:2] == [_ERREXIT] or inner[:2] == [_SUBSHELL, _STATUS]):  # (its status still fails)
            why = inner[2:4] if inner[1:2] == [_ERREXIT] and inner[2] != _STATUS else []  # (and _PIPEFAIL's mark)
            out[k] = (out[k][0], [_AND_THEN, "", *why], out[k][2])
        elif inner and _CALL in inner[:3] and _LISTED not in inner[:3]:
            at = inner.index(_CALL)
            out[k] = (out[k][0], [*inner[:at], _LISTED, *inner[at:]], out[k][2])
        elif inner == [")"]:  # (a subshell's failure ends nothing either)
            out[k] = (out[k][0], [")", _LISTED], out[k][2])
        elif inner and [os.path.basename(w) for w in unwrap(inner)[:1]] in (["sh"], ["bash"]):
            out[k] = (out[k][0], [_CONDITION, *inner], out[k][2])  # (`sh -c '...'`: its failure ends nothing)
        k += 1


def _errexit_option(args: list[str], on: bool) -> bool:
    """Whether errexit is on after `set ARGS` (bash(1) set: `-e`, `-o errexit`, in any group of letters such as
    `-euo pipefail`; `+e`, `+o errexit` turn it off)."""
    k = 0
    while k < len(args):
        arg = args[k]
        if len(arg) < 2 or arg[0] not in "-+" or arg.startswith("--"):
            break  # (`--`, `-`, or the positional words: no more options)
        if "e" in arg[1:]:
            on = arg[0] == "-"
        if "o" in arg[1:]:  # (its option name is the next word)
            if args[k + 1:k + 2] == ["errexit"]:
                on = arg[0] == "-"
            k += 1
        k += 1
    return on


def _calls(flat: list, functions: set[str]) -> list:
    """_called of each command, and a call before `&&` or `||` marked _LISTED: bash(1) set -e is ignored in its body
    (`setup || true`), though an exit in it still ends the script; so is a compound command's closing word there
    (`} || true`: see _tested_blocks)."""
    out = []
    for k, (n, words, line) in enumerate(flat):
        called = _called(words, functions)
        after = flat[k + 1][1] if k + 1 < len(flat) else None
        listed = bool(after) and after[0] == _GUARDED  # type: ignore[index]
        if called and called[0] in (_CALL, _GUARDED, _CONDITION) and _CALL in called[:2] and listed:
            at = called.index(_CALL)
            called = [*called[:at], _LISTED, *called[at:]]
        elif called and len(called) == 1 and called[0] in _CLOSERS and listed:
            called = [called[0], _LISTED]
        elif called and called[0] in ("{", "(") and len(called) == 1 and k and flat[k - 1][1] == [_GUARDED]:
            called = [called[0], _GUARDED]  # (`|| { ...; }`: runs as the test before it says, see _split)
        elif called and called[:2] == [_SUBSHELL, _CALL] and _substitution_tested(flat, k, n):
            called = [_SUBSHELL, _LISTED, *called[1:]]
        out.append((n, called, line))
    return out


def _last_failure(name: str, functions: dict) -> tuple[int, str] | None:
    """(line, why) where the last command of the body of function ``name`` is one known to fail (bash(1) FUNCTIONS:
    its status is its last command's), or None."""
    if not isinstance(defined := functions.get(name), tuple):
        return None
    body, start, end, _ = defined
    j = end - 1
    while j > start and body[j][1] in (["}"], [")"], ["done"]):  # (a group's, subshell's or loop's status is its
        # last command's, bash(1) Compound Commands)
        j -= 1
    n, last, _ = body[j]
    if last and last[1:2] == [_ERREXIT] and last[2] == _STATUS:  # (`x=$(cmd)`: its status is the substitution's,
        k = j - 2  # whose last command's fails; those of the assignment's own substitutions, just before it: not
        while k > start and body[k][0] == n and (body[k][1] or [""])[0] == _SUBSHELL:  # `y=$(a); x=$(b)`'s y's)
            if body[k][1][:2] == [_SUBSHELL, _STATUS] and body[k][1][3]:
                return n, f"its command substitution fails ({body[k][1][2]})"
            k -= 1
        return None
    return (n, last[2]) if last and last[1:2] == [_ERREXIT] and (last[3:4] != [_PIPEFAIL] or
                                                                functions.get(_PIPEFAIL)) else None


def _substitution_tested(flat: list, k: int, n: int) -> bool:
    """Whether the command whose command substitution ``flat[k]`` runs is tested (`x=$(f) || true`, `if x=$(f)`):
    set -e is ignored in the substitution too."""
    j = k
    while j < len(flat) and flat[j][0] == n and (flat[j][1] or [""])[0] == _SUBSHELL:
        j += 1
    own = flat[j][1] if j < len(flat) and flat[j][0] == n else None
    after = flat[j + 1][1] if own and j + 1 < len(flat) else None
    return bool(own) and (own[0] == _CONDITION or bool(after) and after[0] == _GUARDED)  # type: ignore[index]


def _called(words: list[str] | None, functions: set[str]) -> list[str] | None:
    """The command's words, marked as a call where it is one of the script's functions; the mark of a command after
    `&&` or `||` kept for an exit, exec, return, break, continue or a call only (what may end the script or a loop)."""
    if words and words[0] == _GUARDED and (words[1:2] == [_CONDITION] or not (
            words[1:2] and (words[1] in ("exit", "exec", "return", *_LOOP_WORDS) or words[1] in functions))):
        words = words[1:] or [":"]
    at = 1 if words and words[0] in (_CONDITION, _GUARDED, _SUBSHELL) else 0
    name = at  # (`IF=eth3 setup`: the assignments before it are the call's, bash(1) ENVIRONMENT)
    while words and name < len(words) and _ASSIGNMENT.match(words[name]):
        name += 1
    return [*words[:at], _CALL, *words[at:]] if words and words[name:name + 1] and words[name] in functions else words


# bash(1) `for (( expr1 ; expr2 ; expr3 ))`: its `;` do not end commands (the loop's body is read once); `((` after
# a blank is an arithmetic command, folded whole (see _substitutions_folded), `$((...))` in it too.
_ARITHMETIC_FOR = lazy(r"^(\s*for)\s*(?=\(\()")


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(number of its first line, text) of each line as the shell reads it: a line ending in an unquoted `\\` goes
    on with the next (bash(1) QUOTING: a backslash-newline is removed), as long commands are written over lines.
    A here-document's body is the input of its command, not commands of this script: it is skipped (a usage text
    under `: <<EOF`, a file written by `cat <<EOF > FILE`), unless that command is a shell reading its commands
    from it (`sudo bash <<'EOF'`), whose body lines are then read in its place, in a `( )` subshell (a shell of its
    own: its exit and options are its own)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("#"):
            i += 1
            continue
        first, part = i + 1, lines[i].strip()
        parts, piped = [part], list[str]()  # (piped: the code of the lines before, each ending in `|`: see _piped_on)
        while i + 1 < len(lines):
            if part.endswith("\\") and _CONTINUED.search(part):
                parts[-1] = part[:-1].rstrip()
            elif (code := _piped_on(" ".join(parts), bool(piped))) is not None:
                piped.extend([code] * bool(code))
                parts = []
            else:
                break
            i += 1
            part = lines[i].strip()
            parts.append(part)
        line = " ".join([*piped, *parts])
        if quote := _quote_left_open(line, None):  # a quoted word over lines (an awk or perl program): one command
            parts = [line]
            while quote and i + 1 < len(lines):
                i += 1
                parts.append(lines[i])
                quote = _quote_left_open(lines[i], quote)
            line = "\n".join(parts)
        if "${" in line and (opened := _expansion_left_open(line)) and opened[1] == "${" and i + 1 < len(lines):
            # a `${` closed on a line below (bash reads on for its `}`), or by none: the rest of the file is its line
            rest = "\n".join([line, *lines[i + 1:]])
            end = _expansion_end(rest, opened[0])
            more = rest.count("\n", len(line), end) if end is not None else len(lines) - i - 1
            line = "\n".join([line, *lines[i + 1:i + 1 + more]])
            i += more
        bodies_read = False
        if ("(" in line or "`" in line) and any((scan := _scan(line, (0, False, "", [])))[0]):
            # `$(cmd |` (or a backtick) with the rest on the lines below, its comments left out
            state, parts = scan[0], [line[:scan[1]]]
            while True:  # (a here-document opened in it: its body is input, not a line to look into)
                for delimiter, tabs in heredoc_ends(parts[-1]):
                    while i + 1 < len(lines) and not heredoc_closes(lines[i + 1], delimiter, tabs):
                        i += 1
                    i += 1
                if not any(state) or i + 1 >= len(lines):
                    break
                i += 1
                state, end = _scan(lines[i], state)
                parts.append(lines[i][:end])
            line, bodies_read = "\n".join(parts), True
        if _ARRAY_OPEN.match(line):  # `NAME=(` with its words on the lines below, up to the `)`
            words: list[str] = []
            while i + 1 < len(lines) and not (words and ")" in words[-1]):
                i += 1
                word = lines[i].strip()  # (a `# comment` after a word ends at its line)
                words.append(word if "'" in word or '"' in word else _LINE_COMMENT.sub("", word))
            line = " ".join([line, *words])
        i += 1
        ends = [] if bodies_read else heredoc_ends(line)
        if ends and (found := _shell_on_stdin(line)):  # the body is read as the script's own lines
            before, shell, segment, after, own = found
            if before:  # (the commands ahead of it on the line: theirs are the bodies ahead of its own)
                yield first, before
            for delimiter, tabs in ends[:own]:
                while i < len(lines) and not heredoc_closes(lines[i], delimiter, tabs):
                    i += 1
                i += 1
            stop = next((j for j in range(i, len(lines)) if heredoc_closes(lines[j], *ends[own])), len(lines))
            if stop < len(lines):  # in a shell of its own, which ends at the end line (or at the end of the file,
                lines[stop] = f") {after}".rstrip()  # where bash warns and takes the rest as its body): its exit, its
            else:  # set -e and its variables are its own, as a `( )` subshell's (where it starts with no option set);
                lines.append(f") {after}".rstrip())  # the rest of its line follows it, with the bodies after its own
            quoted = next((m.group(4) is None or m.group(0).lstrip("<-\t ").startswith("\\") for m in
                           HEREDOC.finditer(segment) if ends[own][0] in m.group(2, 3, 4)), True)
            child = f"( {_OWN_SHELL};" + f" {_HEREDOC_SHELL};" * quoted + " set +e +o pipefail; " + \
                "shopt -u inherit_errexit" + "; set -o posix" * (not shell.group("bash"))  # (a quoted end word: its
            # `$NAME`s are the child's)
            yield first, child + "; set -e" * ("e" in shell.group(2))  # (`bash -e <<EOF`; sh: POSIX mode)
            continue
        yield first, line
        for delimiter, tabs in ends:  # bodies follow one another, in the order of their operators
            while i < len(lines) and not heredoc_closes(lines[i], delimiter, tabs):
                i += 1
            i += 1


def _quote_left_open(line: str, quote: str | None) -> str | None:
    """The quote (`'` or `"`) still open at the end of ``line``, which starts inside ``quote`` (bash(1) QUOTING: a
    quoted word goes on over newlines; a `#` starting a word begins a comment, whose quotes count for nothing)."""
    i, n = 0, len(line)
    while True:
        if quote == "'":
            j = line.find("'", i)
            if j < 0:
                return quote
            i, quote = j + 1, None
        elif quote == '"':
            i = _double_quoted_end(line, i)  # (a `$(...)` in it has quotes of its own: `"$(cmd "$x")"`)
            if i < 0:  # (a backslash ending the line goes on with the next)
                return quote
            i, quote = i + 1, None
        else:
            i = _UNQUOTED.match(line, i).end()  # type: ignore[union-attr]
            if i >= n or line[i] not in "'\"":
                return None
            i, quote = i + 1, line[i]


# What _scan steps over: plain characters, an ANSI-C quoted word (`$'it\\'s'`), a quoted word, an escaped
# character, `$(`, `<(`, `>(`.
_SUBSTITUTION_STEP = lazy(r"[^'\"\\()#$<>`]+|\$'(?:[^'\\]|\\.)*'|'[^']*'|\\.|[$<>]\(|.", re.S)


def _scan(line: str, state: tuple, i: int = 0, closing: bool = False, level: int = 0) -> tuple[tuple, int]:
    """(the state at the end of ``line`` from ``i``, and where its code ends: a comment's start, or the line's end);
    with ``closing``, up to the `)` closing the substitution ``state`` starts in (end -1 when none does). ``level``:
    how deep in `"$(...)"` this is (quotes in a substitution are its own). A state is (how many command substitutions,
    `$(`, `<(`, `>(`, are open, whether a backtick is, the quote open, the depths at which a `case` in them is open):
    bash(1) Command Substitution, `$(cmd | awk '...` goes on over lines up to its `)`, a backtick up to the next one,
    and a case pattern's `)` in it closes nothing."""
    depth, tick, quote, cases = state
    if quote:
        i = line.find("'", i) if quote == "'" else _double_quoted_end(line, i, level)
        if i < 0 or i >= len(line):
            return state, -1 if closing else len(line)
        i, quote = i + 1, ""
    prev, n = "\n", len(line)
    while i < n:
        step = _SUBSTITUTION_STEP.match(line, i).group()  # type: ignore[union-attr]
        i += len(step)
        if step == '"':
            i = _double_quoted_end(line, i, level)
            if i < 0:
                return (depth, tick, step, cases), -1 if closing else n
            i, prev = i + 1, '"'
            continue
        if step == "'":
            return (depth, tick, step, cases), -1 if closing else n
        if step == "#" and prev in " \t\n;&|(":  # a comment, to the end of its line
            if not closing:
                return (depth, tick, quote, cases), i - 1
            i = line.find("\n", i)
            if i < 0:
                break
            step = "\n"
        elif step == "`":
            tick = not tick
        elif step in ("$(", "<(", ">(") or (step == "(" and depth):
            depth += 1
        elif step == ")" and depth:
            if not cases or cases[-1] != depth:
                depth -= 1
                if closing and not depth:
                    return (depth, tick, quote, cases), i
        elif depth and ("case" in step or "esac" in step):
            for word in _CASE_WORD.finditer(step):
                if word.start() or "\n" in word.group() or prev in "\n(":  # (a command's first word)
                    if word.group(1) == "case":
                        cases.append(depth)
                    elif cases:
                        cases.pop()
        prev = "\\" if step[0] == "\\" else step[-1]  # (an escaped blank is a word's: `a\\ #b` is no comment)
    return (depth, tick, quote, cases), -1 if closing else n


_CASE_WORD = lazy(r"(?:^|(?<=[;&|(\n]))\s*(case|esac)(?=[\s;&|)]|$)")


def _double_quoted_end(line: str, i: int, level: int = 0) -> int:
    """The index of the `"` ending the double-quoted text from ``i`` (-1: none on the line). A `$(...)` in it is read
    with its own quotes (`"$(cmd "$x")"`), at most MAX_NESTING deep (deeper: taken for a quote left open), and so is a
    `${...}` (`"${a:-"x"}"`; bash(1) Parameter Expansion: `"${a"` leaves the quote open, as bash finds)."""
    while True:
        i = _IN_DOUBLE_QUOTES_TO_SUBSTITUTION.match(line, i).end()  # type: ignore[union-attr]
        if line.startswith("${", i):
            end = _expansion_end(line, i)
            if end is None:
                return -1
            i = end
            continue
        if not line.startswith("$(", i):
            return i if line.startswith('"', i) else -1
        if level >= MAX_NESTING:
            return -1
        i = _scan(line, (1, False, "", []), i + 2, True, level + 1)[1]
        if i < 0:
            return -1


def _expansion_end(text: str, i: int) -> int | None:
    """Past the `}` closing the `${` at ``i`` (its quotes and nested `${` its own, bash(1) Parameter Expansion, over
    newlines); None where none closes it: bash then reads on to the end of the file and stops with a syntax error
    ("unexpected EOF while looking for matching `}'", as bash 5 prints it for `X=${${a` or `X=${a"}"`)."""
    depth, j, n = 0, i, len(text)
    while j < n:
        step = _EXPANSION_STEP.match(text, j).group()  # type: ignore[union-attr]
        j += len(step)
        if step == "${":
            depth += 1
        elif step == "}":
            depth -= 1
            if not depth:
                return j
    return None


# What _expansion_left_open steps over: an escaped character, an ANSI-C quoted word (`$'it\\'s'`), a single-quoted
# word, a double quote, a comment's `#`, a `${`, plain characters.
_EXPANSION_SCAN = lazy(r"\\.|\$'(?:[^'\\]|\\.)*'|'[^']*'|\"|#|\$\{|[^\\'\"#$]+|.", re.S)


def _expansion_left_open(text: str) -> tuple[int, str] | None:
    """(where, what) of the first `${` in ``text`` that nothing after it closes, or of a quote left open (a `"` whose
    text holds such a `${`: `X="${a"`, bash looks for the `"`), outside comments; None where all close."""
    i, n, prev = 0, len(text), "\n"
    while i < n:
        step = _EXPANSION_SCAN.match(text, i).group()  # type: ignore[union-attr]
        if step == "${":
            if (end := _expansion_end(text, i)) is None:
                return i, step
            i, prev = end, "}"
        elif step == '"':
            if (end := _double_quoted_end(text, i + 1)) < 0:
                return i, step
            i, prev = end + 1, step
        elif step == "'":  # (one no `'` closes)
            return i, step
        elif step == "#" and prev in " \t\n;&|(":  # a comment, to its line's end
            i = text.find("\n", i)
            if i < 0:
                return None
        else:
            i += len(step)
            prev = step[-1]
    return None


# (`$'...'`: bash(1) ANSI-C quoting, where `\'` does not end the word)
_UNQUOTED = lazy(r"(?:[^'\"\\#$]+|\$'[^'\\]*(?:\\.[^'\\]*)*'|\$|\\.|'[^']*'|(?<=[^\s;&|(])#|#.*)*")
_IN_DOUBLE_QUOTES_TO_SUBSTITUTION = lazy(r'[^"\\$]*(?:(?:\\.|\$(?![({]))[^"\\$]*)*')


# A command that reads shell commands from its standard input (bash(1) INVOCATION: without -c, commands are read
# from the standard input): `bash <<EOF`, `sudo sh -s <<'EOF'`, `/bin/bash -e <<EOF`.
_SHELL_ON_STDIN = lazy(r"^(?:[A-Za-z_]\w*=\S*\s+)*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?P<bash>ba)?sh"
                       r"((?:\s+-[a-bd-zA-Z]+)*)\s*<<")  # (`X=1 bash <<EOF`: X is in its environment)
# The operators that end a command of a list (bash(1) Lists), outside quotes: `&&`, `||`, `;`, `&` (not `>&`, `&>`,
# `|&`).
_LIST_OPERATOR = lazy(r"&&|\|\||;|(?<![>|&])&(?![>&])")


def _shell_on_stdin(line: str) -> tuple[str, re.Match, str, str, int] | None:
    """Where a command of ``line`` is a shell reading its commands from a here-document: (the commands before it with
    the operator after them, the match, its own text, the rest of the line from the operator after it, the index of
    its here-document among those the line opens: its last one, the one its standard input is last redirected
    from, bash(1) REDIRECTION); None where there is none."""
    at, before_docs = 0, 0
    bare = _QUOTED.sub(lambda m: "_" * len(m.group()), line)  # (operators in quotes are words)
    for m in [*_LIST_OPERATOR.finditer(bare), None]:
        end = m.start() if m else len(line)
        segment = line[at:end]
        docs = len(heredoc_ends(segment))
        if docs and (shell := _SHELL_ON_STDIN.match(segment.strip())):
            return line[:at], shell, segment, line[end:], before_docs + docs - 1
        before_docs += docs
        if m:
            at = m.end()
    return None


_CONTINUED = lazy(r"(?<!\\)(?:\\\\)*\\$")  # an odd number of backslashes ends the line
_PIPED_ON = lazy(r"(?<![|\\])\|&?$")  # (a `|` or `|&`, not `||` nor an escaped `\|`)


def _piped_on(line: str, after_pipe: bool) -> str | None:
    """``line``'s code, its comment left out, where it ends in a pipeline's `|` or `|&`: bash(1) SHELL GRAMMAR, the
    pipeline goes on at the next line holding a command (`mlnx_qos ... 2>&1 |` then `tee -a LOG`; `cmd | # note`),
    blank and comment lines between skipped (``after_pipe``: "" for them); a list's `&&` or `||` there does too, which
    the line splitter carries to the next line (see _Grammar.after). None for any other line, and where a quote or a
    command substitution is left open (read as such, below)."""
    if after_pipe and (not line or line.startswith("#")):
        return ""
    if "|" not in line:
        return None
    state, end = _scan(line, (0, False, "", []))
    code = line[:end].rstrip()
    return code if not any(state) and _PIPED_ON.search(code) else None


_LINE_COMMENT = lazy(r"(?:^|\s)#.*$")
_DECLARED = r"^(?:(?:declare|local|typeset|readonly|export)(?:\s+-[a-zA-Z]+)*\s+)?"  # (`local -a`, `declare -A`)
_ARRAY_OPEN = lazy(_DECLARED + r"[A-Za-z_][A-Za-z0-9_]*=\([^)]*$")


# bash(1) Arrays: `NAME=(word ...)`, `declare -A NAME=([key]=value ...)`; `"${NAME[@]}"` (or `[*]`) in a for list
# expands to its values.
# (a comment after the `)`: bash(1) COMMENTS; one holding no `)` or quote)
_ARRAY = lazy(_DECLARED + r"([A-Za-z_][A-Za-z0-9_]*)=\((.*)\)(?:\s+#[^)'\"]*)?$")
_ARRAY_KEYED = lazy(r"^\[[^]]*\]=(.*)$", re.S)  # `[key]=value`: an element given with its key
_ARRAY_ALL = lazy(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}$")
_CONDITION = "\0condition"  # (a word no split gives: before the words of a command an if or while tests)
_ARRAY_MARK = "\0array"  # (a word no split gives: the array assignment's place among the commands)
# bash(1) Compound Commands: the reserved word (or operator) that opens each, and the one that closes it.
_OPENERS = {"for": "done", "while": "done", "until": "done", "select": "done", "if": "fi", "case": "esac", "{": "}",
            "(": ")"}
_CLOSERS = frozenset(_OPENERS.values())
_HEADED = frozenset({"if", "for", "while", "until", "select"})  # (a `then` or `do` comes before their bodies)
# The words that may not come right after another (an empty body or condition: `do` then `done`, `{` then `}`).
_EMPTY_AFTER = {**dict.fromkeys(("do", "then", "else", "{", "("), ("done", "fi", "else", "elif", "}", ")")),
                **dict.fromkeys(("if", "elif", "while", "until"), ("then", "do"))}
_KINDS = {"done": "loop", "fi": "`if`", "esac": "`case`", "}": "`{` group", ")": "`(` subshell"}


def _run(flat: list, values: dict[str, str], arrays: dict[str, list[str]], count: list[int],
         path: str | None, options: dict | None = None) -> Iterator[tuple[int, list[str] | None, str]]:
    """The commands of ``flat`` as the shell would run them, variables substituted, a loop's body once per word.
    ``count`` holds the commands given so far and the words loops went round, bounded: nested loops multiply
    them (a loop over no words runs nothing, yet its header is counted). Each loop's `done` is found once, so a
    body is never scanned again per round; loops nest at most MAX_NESTING deep. ``options``: the shell's errexit
    state as it starts (see _shell_options)."""
    yield from _whole(flat, values, arrays, count, path, 0, dict(options or {}))


# bash(1) reads a compound command whole before it runs it: one no closing word ends (`for` without `done`, `if`
# without `fi`, `case` without `esac`, `{` without `}`, `(` without `)`) is a syntax error at the end of the file, and
# a closing word where another is due (`done` in an open `if`, a `fi` with no `if`) one at that word; neither that
# command nor anything after it runs (the commands before it have run).
UNCLOSED = "\0unclosed"  # (a word no split gives: [UNCLOSED, why], in the place of the commands never run)
ENDED = "\0ended"  # ([ENDED, why]: at a top-level `exit` or `exec PROGRAM`, with commands after it)
NOTE = "\0note"  # ([NOTE, code, message]: a finding on the script's reading at that line)


def _whole(flat: list, values: dict[str, str], arrays: dict[str, list[str]], count: list[int], path: str | None,
           depth: int, functions: dict) -> Iterator[tuple[int, list[str] | None, str]]:
    """The commands of a whole script (or `sh -c` string) up to the first compound command bash cannot read whole,
    then [UNCLOSED, why] at its first line (a script cut short in a block must not read as if the block had run)."""
    ends, broken, exited = _structure(flat, path)
    stop = exited + 1 if exited is not None else len(flat) if broken is None else broken[0]
    outer = functions.pop(_TRAP, None)  # (a `sh -c` shell starts with no trap of its own, and ends with its own)
    yield from _block(flat, 0, stop, ends, values, arrays, count, path, depth, functions, top=True)
    failing = None  # (why set -e ended the script's top level)
    if (top := functions.pop(_ERREXIT_TOP, None)) is not None:  # (bash reads no further: nor need it be shell)
        (exited, failing), broken = top, None
    failed = functions.pop(_ERREXIT, None)
    if (line := functions.pop(_EXITED, None)) is not None and not depth:  # (a `sh -c`'s exit ends that shell only)
        why = "an exit in the function called, or the loop" if failed is None else \
            f"`set -e` is in force and line {failed[0]} in it fails: {failed[1]}"
        yield line, [ENDED, f"the script ends here ({why}): bash runs nothing after it, so the commands after it are "
                            "not read"], ""
    if broken is not None:
        yield flat[stop][0], [UNCLOSED, broken[1]], flat[stop][2]
    after = exited + 1 if exited is not None else stop
    rest = next((item for item in flat[after:] if item[1] and item[1][0] not in _BLOCK_WORDS and
                 item[1][0] not in (_AND_THEN, _PIPED_INTO, _NEGATION) and
                 item[1][1:2] != [_ERREXIT]), None)
    if exited is not None and rest is not None and not depth:  # (bash reads no further: nor need it be shell)
        why = f"`{flat[exited][1][0]}` at its top level" if failing is None else \
            f"`set -e` is in force and this command fails: {failing}"
        yield flat[exited][0], [ENDED, f"the script ends here ({why}): bash runs nothing after it, so its commands "
                                       f"from line {rest[0]} on are not read"], flat[exited][2]
    trap = functions.pop(_TRAP, None)
    if trap is not None and not functions.get(_EXITING) and \
            not (exited is not None and flat[exited][1][0] == "exec"):  # (exec: the shell is gone)
        ran = _exit_trap_run(trap, values, arrays, count, path, depth, functions)
        if any(words and not words[0].startswith("\0") and _sets_nic(words) for _, words, _ in ran):
            shell = "the script" if not depth else "its `sh -c` shell"
            yield trap[0], [NOTE, "SYS004", f"the EXIT trap set on line {trap[0]} runs when {shell} ends (bash(1) "
                                            f"trap): `{trap[1][:60]}` is read after {shell}'s last command"], trap[2]
        yield from ran
    if outer is not None:
        functions[_TRAP] = outer


def _block(flat: list, start: int, stop: int, ends: dict[int, int], values: dict[str, str],
           arrays: dict[str, list[str]], count: list[int], path: str | None,
           depth: int, functions: dict, top: bool = False) -> Iterator[tuple[int, list[str] | None, str]]:
    """``functions``: name -> (flat, first index of its body, its closing word's index, ends) of each function
    defined so far, and the names of those running ("\0calls"). ``top``: the block is a shell's whole script, where
    a command bash drops (_JUMP) ends."""
    i = ran = start
    while i < stop:
        if (jump := functions.get(_JUMP)) is not None:  # (a break, continue or dropped command ran: see _loop_jump)
            if jump[1] is not None and jump[1] < stop:
                i = jump[1]  # (the `done` of the loop it goes to, in this block)
                del functions[_JUMP]
            elif jump[1] is None and top:
                i = _after_command(flat, ran, ends, stop)
                del functions[_JUMP]
                continue
            else:
                break  # (out of this loop's round, or function call, to the block it goes to)
        n, written, line = flat[i]
        ran, i = i, i + 1
        _counted(count, 1, path, n)
        if written is None or written[0] == UNCLOSED:
            yield n, written, line
            continue
        if written[0] == _GUARDED and written[1:2] not in ([_CALL], [_LISTED], ["exit"], ["exec"], ["return"],
                                                           *([w] for w in _LOOP_WORDS)):
            written = written[1:] or [":"]  # (a mark only an exit or a call keeps: see _called; `sh -c` lists)
        if written[0] == _NEGATION:  # (`!`, bash(1) Pipelines: a status of 0 fails, one known to fail is 0, another
            functions[_FAILING] = _NEGATED if functions.get(_FAILING) == "" else None  # is not known)
            continue
        if written[0] == _AND_THEN:  # (see _errexit)
            if written[2:] and (written[3:4] != [_PIPEFAIL] or functions.get(_PIPEFAIL)):
                functions[_FAILING] = f"line {n} in it fails: {written[2]}"
            if functions.get(_FAILING) and written[1]:
                i = min(int(written[1]), stop)
            continue
        if written[0] not in _KEEPS_STATUS and written[1:2] != [_ERREXIT] and not (
                written[0] in _CLOSERS and (not _piped(written) or i - 1 in functions.get(_PIPED_GROUPS, {}))):
            # (a command ran: the status is its own, which is not known to fail, and known to be 0 for a few builtins;
            # a compound command's is its last command's; a piped one's the pipeline's, see _piped_part_ends)
            succeeds = written[0 if written[0] != _CONDITION else 1:][:1] in ([w] for w in _SUCCEEDS)
            functions[_FAILING] = "" if succeeds else None
        if written[0] == _SUBSHELL:  # a command substitution's command: read when it sets the NIC (its variables,
            written = written[1:]  # cd and exit stay in its subshell)
            if written[0] == _STATUS:  # (its command failed: see _errexit)
                if written[3:4] == [_PIPEFAIL] and not functions.get(_PIPEFAIL):
                    continue
                kept = functions.get(_ERREXIT_ON) and functions.get(_INHERIT) and not functions.get(_ERREXIT_OFF)
                if written[2] or kept:
                    functions[_SUBST_FAILED] = (n, written[1])
                while kept and i < stop and flat[i][0] == n and (flat[i][1] or [""])[0] == _SUBSHELL:
                    i += 1  # (-e kept: the substitution ends there)
                continue
            listed = written[0] == _LISTED  # (the command it is part of is tested: see _calls)
            written = written[listed:]
            written = (written[1:] or [":"]) if written[0] == _GUARDED else written
            if written[0] in functions and not written[0].startswith("\0"):  # (a call of the script's function)
                written = [_CALL, *written]
            if written[:1] == [_CALL]:
                kept = dict(values), {name: list(items) for name, items in arrays.items()}
                # bash(1): a command substitution runs with -e cleared, unless inherit_errexit or POSIX mode keeps it
                on, options = functions.get(_ERREXIT_ON), {key: functions.get(key) for key in _OPTIONS}
                functions[_ERREXIT_ON] = on and functions.get(_INHERIT)
                functions[_ERREXIT_OFF] = functions.get(_ERREXIT_OFF, 0) + listed
                status = functions.get(_FAILING)  # (its commands' statuses are its own)
                try:
                    yield from _call(_expanded(written[1:], values, arrays, path, n), values, arrays, count, path,
                                     depth, functions, n)
                finally:  # (the options it sets are its subshell's: `set -o pipefail` in it ends with it)
                    functions.update(options)
                    ended, functions[_FAILING] = functions.get(_FAILING), status
                    functions[_ERREXIT_OFF] -= listed
                exited, returned = functions.pop(_EXITED, None), functions.pop(_RETURNED, None)
                functions.pop(_JUMP, None)  # (a command dropped in it: it ends the substitution only)
                if returned is not None:
                    functions[_SUBST_FAILED] = (n, returned[1])
                if (failed := functions.pop(_ERREXIT, None)) is not None:  # (set -e ended it: its status fails)
                    functions[_SUBST_FAILED] = (n, f"line {failed[0]} fails in it: {failed[1]}")
                elif exited is None and returned is None and ended:  # (its status is its last command's, as it ran)
                    functions[_SUBST_FAILED] = (n, ended)
                elif exited is None and (last := _last_failure(written[1], functions)) is not None:  # (its status is
                    functions[_SUBST_FAILED] = (n, f"line {last[0]} in it fails: {last[1]}")  # its last command's)
                values.clear()
                values.update(kept[0])
                arrays.clear()
                arrays.update(kept[1])
                continue
            words = unwrap(_expanded(written, values, arrays, path, n))
            if not words or not (os.path.basename(words[0]) in ("sh", "bash") or _sets_nic(words)):
                continue
            written = [_CONDITION, *written]
        if written[1:2] == [_FUNCTION_BODY]:  # a definition: its body runs where it is called
            functions[written[2]] = (flat, i, ends[i - 1], ends)
            functions[_FAILING] = ""  # (bash(1) Shell Function Definitions: its status is 0 unless a syntax error)
            i = ends[i - 1] + 1
            continue
        if _CALL in written[:3]:
            background = written[-1] == _BACKGROUND  # (`f eth3 &`: in a subshell of its own, whose status is 0)
            written = written[:-1] if background else written
            at = written.index(_CALL)
            # bash(1) set -e: ignored in the body of a function called as a test (an if's, before && or ||)
            ignored = written[0] == _CONDITION or _LISTED in written[:at]
            functions[_ERREXIT_OFF] = functions.get(_ERREXIT_OFF, 0) + ignored
            options = {key: functions.get(key) for key in _OPTIONS}  # (`f | cat`: f runs in a subshell of the
            try:  # pipeline, bash(1) Pipelines: a `set +e` in it is its own)
                yield from _call(_expanded(written[at + 1:], values, arrays, path, n), values, arrays, count, path,
                                 depth, functions, n)
            finally:
                functions[_ERREXIT_OFF] -= ignored
            ended = functions.get(_FAILING)  # (its status: its last command's, as it ran, or its return's)
            if "|" in written or "|&" in written or background:
                functions.update(options)
                functions.pop(_JUMP, None)  # (a command dropped in it: it ends that part's subshell only)
                functions[_FAILING] = "" if background else ended or None if functions.get(_PIPEFAIL) else None
                # (the pipeline's is its last part's, or under pipefail the last that fails: bash(1) Pipelines)
            if background:
                functions.pop(_RETURNED, None)
                functions.pop(_ERREXIT, None)
                functions.pop(_EXITED, None)
                continue
            if (returned := functions.pop(_RETURNED, None)) is not None and written[0] == _CALL and \
                    ("|" not in written or functions.get(_PIPEFAIL)):  # (its status fails: set -e ends the script
                # as at a command that fails; piped, where `set -o pipefail` makes the pipeline fail with it)
                i = _errexit_ends(flat, i, stop, ends, functions, n, depth, returned[1])
            elif returned is None and ended and written[0] == _CALL and _EXITED not in functions and \
                    ("|" not in written or functions.get(_PIPEFAIL)):  # (`f() { dcb ... && x; }`: f fails)
                i = _errexit_ends(flat, i, stop, ends, functions, n, depth, f"the call fails: {ended}")
            if _EXITED in functions:  # its body ran an exit: as one written here (see below), unless tested, or
                if written[0] in (_CALL, _LISTED) and "|" not in written:  # piped (a subshell's exit ends that only)
                    i = _out_of_groups(flat, _exited(flat, i, stop, functions, n), stop, ends, functions, n, 1)
                    _subshell_failing(flat, i, stop, functions)
                else:
                    del functions[_EXITED]
                    failed = functions.pop(_ERREXIT, None)
                    if failed is not None and written[0] == _CALL and functions.get(_PIPEFAIL):  # (set -o pipefail:
                        # the pipeline fails as its part did, bash(1) Pipelines)
                        i = _errexit_ends(flat, i, stop, ends, functions, n, depth, f"it is piped under `set -o "
                                          f"pipefail` and line {failed[0]} in it fails: {failed[1]}")
            continue
        tested = written[0] == _CONDITION
        if tested:
            written = written[1:]
        if written[1:2] == [_ERREXIT]:
            if written[3:4] == [_PIPEFAIL] and not functions.get(_PIPEFAIL):  # (a pipeline whose part fails only)
                continue
            if written[2] == _STATUS:  # `x=$(cmd)`: it fails as its command substitution did
                failed = functions.pop(_SUBST_FAILED, None)
                if failed is None or failed[0] != n:
                    continue
                written = [*written[:2], f"its command substitution fails ({failed[1]})"]
            elif written[2] == _SHIFTED:  # `shift 3` of two words: it fails as it ran
                failed = functions.pop(_SHIFT_FAILED, None)
                if failed is None or failed[0] != n:
                    continue
                written = [*written[:2], failed[1]]
            functions[_FAILING] = f"line {n} in it fails: {written[2]}"  # (where -e is off: see `)`)
            i = _errexit_ends(flat, i, stop, ends, functions, n, depth, written[2])
            continue
        jump_tested = written[0] == _TESTED  # (a break or continue before `&&` or `||`, see _one_errexit)
        written = written[1:] if jump_tested else written
        guard = written[:1] if written[0] == _GUARDED else []
        if written[len(guard):len(guard) + 1] == [_WHEN]:  # (see _WHEN: a name set only at run time: as written)
            mark = written[len(guard):]
            met = _bad_met(mark[1], mark[2], values, arrays)
            written = [*guard, *(mark[4:] if not met else ["exit", "1"] if mark[2] == "fatal" else [_BAD, mark[3]])]
        own = written[1:] if written[0] == _GUARDED else written
        own = [] if "|" in own or "|&" in own else own  # (`break | cat`: a subshell of the pipeline, whose own it is)
        if own[:1] == [_BAD]:  # (subst.c: a bad substitution drops the command bash runs, as below; where -e is on,
            # in POSIX mode (`#!/bin/sh`: dash too) or in a `( )` subshell, the shell exits)
            if not (functions.get(_SUBSHELL_TRAPS) or functions.get(_ERREXIT_ON) or functions.get(_POSIX)):
                functions[_JUMP] = ("discard", None)
                functions[_FAILING] = None
                continue
            written = [*written[:len(written) - len(own)], "exit", "1"]
            own = written
        if own[:1] in (["exit"], ["return"], ["shift"], *([w] for w in _LOOP_WORDS)) and len(_arguments(own)) > 1:
            # (builtins/common.c no_args: "too many arguments", the command bash runs dropped: see _JUMP)
            if not functions.get(_SUBSHELL_TRAPS):
                functions[_JUMP] = ("discard", None)
                functions[_FAILING] = None  # (status 1, which set -e does not stop at)
                continue
            written = [*written[:len(written) - len(own)], "exit", "1"]  # (in a `( )` subshell: it ends that)
        if own[:1] in ([w] for w in _LOOP_WORDS):
            args = _arguments(own)
            if args and not at_run_time(args[0]) and _shell_number(args[0]) is None:  # (no number: bash ends)
                written = [*written[:len(written) - len(own)], "exit", "128"]
            else:
                i = yield from _loop_jump(flat, ran, stop, ends, functions, own[0],
                                          None if args and at_run_time(args[0]) else
                                          _shell_number(args[0]) if args else 1, written[0] == _GUARDED, depth,
                                          jump_tested)
                continue
        if written[0] == _GUARDED or written[0] in ("exit", "return", "exec"):  # bash(1) SHELL BUILTIN COMMANDS
            guarded = written[0] == _GUARDED  # (`|| exit 1`: as the test before it says)
            written = written[1:] if guarded else written
            guarded = guarded or "|" in written  # (`exit | cat`: in a subshell of its own)
            program = _exec_program(written) if written[0] == "exec" else None
            # (bash(1) exit, return: the status is N & 255, and 2 where N is no number: "numeric argument required")
            word = written[1] if written[0] in ("exit", "return") and written[1:2] else None
            number = _shell_number(word) if word is not None and not at_run_time(word) else None
            refused = word is not None and number is None and not at_run_time(word)
            status = "2" if refused else str(number % 256) if number is not None and number % 256 else None
            failing = f"its `{written[0]} {word}` on line {n} (no number: status 2)" if refused else \
                f"its `{written[0]} {status}` on line {n}" if status is not None else \
                functions.get(_FAILING) if written[1:2] in ([], ["$?"]) else \
                "" if number is not None else None  # (bare: the last command's; 0: known)
            if written[0] in ("exit", "return") and not guarded:
                functions[_FAILING] = failing
            if written[0] == "return" and functions.get(_CALL_SUBSHELLS) and \
                    len(functions.get(_SUBSHELL_TRAPS, ())) > functions[_CALL_SUBSHELLS][-1]:  # (in a `( )` subshell
                written = ["exit", *written[1:]]  # of the function's body: it ends that subshell, as an exit would)
            if tested and not guarded:  # (`if return 1; then`: the test runs whenever the if does, and what it ends
                i = _test_end(flat, i, stop)  # ends the if too: as if written after it)
            if not guarded and written[0] == "return":  # (outside a function: an error bash goes
                rest = _return_end(flat, i, stop, ends)  # on after)
                i = rest if functions.get("\0calls") else i
                if rest == stop and functions.get("\0calls") and depth:  # (in a loop of the function's body: see
                    functions[_RETURNING] = n  # the loop's end)
                if failing and rest < stop and (flat[rest][1] or [""])[0] == ")" and \
                        functions.get(_SUBSHELL_TRAPS):  # (`( return 1 )`: it ends the subshell, which fails)
                    functions[_SUBSHELL_FAILED] = failing
                elif failing and functions.get("\0calls"):
                    functions[_RETURNED] = (n, f"it returns {status} on line {n}" if status is not None else failing)
            elif not guarded and (written[0] != "exec" or program):
                i = _out_of_groups(flat, _exited(flat, i, stop, functions, n, depth), stop, ends, functions, n,
                                   depth)  # the rest of its list never runs, nor that of the `{ }` groups it is in
                functions.pop(_ERREXIT, None)  # (an exit written: not set -e's, see _whole)
                if failing and i < stop and (flat[i][1] or [""])[0] == ")" and \
                        functions.get(_SUBSHELL_TRAPS):  # (the `( )` subshell it ends fails: see _errexit_ends)
                    functions[_SUBSHELL_FAILED] = failing
            if not program:
                continue
            written = program
        if written[0] == "(":
            _subshell_starts(functions)
            continue
        if written[0] == _PIPED_INTO:  # (see _errexit)
            functions[_PIPED_INTO] = i
            continue
        into = functions.pop(_PIPED_INTO, None) == i - 1
        if written[0] in _OPENERS and written[0] != "(" and i - 1 in ends and (
                into or _piped(flat[ends[i - 1]][1] or [""])):  # (`{ ...; } | cat`, `cmd | while ...; done`: a
            functions.setdefault(_PIPED_GROUPS, {})[ends[i - 1]] = {  # subshell of the pipeline, whose `set` is its
                **{key: functions.get(key) for key in _OPTIONS}, _PIPE_LAST: into}  # own: see _pipeline_ends)
            if written[0] == "{":
                continue
        if written[0] == "}" and not _piped(written) and (opener := _opener(ends, i - 1)) is not None and \
                flat[opener][1][1:2] == [_CONDITION]:  # (`! { ...; }`: its status turned over, bash(1) Pipelines)
            functions[_FAILING] = _NEGATED if functions.get(_FAILING) == "" else None
        if written[0] in _CLOSERS and i - 1 in functions.get(_PIPED_GROUPS, {}):
            i = _piped_part_ends(flat, i, stop, ends, functions, n, depth)
            continue
        if written[0] == _OWN_SHELL and functions.get(_SUBSHELL_OPTIONS):  # (a process of its own: a context around
            functions[_SUBSHELL_OPTIONS][-1][_ERREXIT_OFF] = functions.pop(_ERREXIT_OFF, 0)  # it that ignores set -e
            continue  # does not reach it; its `)` gives the count back)
        if written[0] == _HEREDOC_SHELL and functions.get(_SUBSHELL_VALUES):  # a shell of its own, on a quoted
            functions[_SUBSHELL_VALUES][-1] = dict(values)  # here-document: it knows the exported variables only
            for name in set(values) - functions.get(_EXPORTED, set()):  # (bash(1) ENVIRONMENT), so its `$IF` is
                del values[name]  # known only at run time
            continue
        if written[0] == ")" and functions.get(_SUBSHELL_TRAPS):
            status = functions.get(_FAILING)  # (its status is its last command's, also where -e was off in it, in
            yield from _subshell_ends(values, arrays, count, path, depth, functions)  # a group, a loop, an if or a
            why = functions.pop(_SUBSHELL_FAILED, None) or status  # subshell of its own: bash(1) ( list ))
            opener = _opener(ends, i - 1)  # (the `(` this `)` closes)
            negated = opener is not None and flat[opener][1][1:2] == [_CONDITION]
            functions[_FAILING] = ("" if written[1:] == ["&"] else None) if _piped(written) else \
                (_NEGATED if why == "" else None) if negated else why
            why = why or None  # (`! ( ... )`: see a call's; "": it succeeds)
            if why is not None and written[1:2] != [_LISTED] and not _piped(written) and not (  # (`( ) || true`,
                    opener is not None and flat[opener][1][1:2] == [_GUARDED]):  # `( ) | cat`: tested, piped;
                # `|| ( )`)
                i = _errexit_ends(flat, i, stop, ends, functions, n, depth, f"a `( )` subshell ends: {why}")
            continue
        if written[0] == "trap":  # bash(1) trap [-lp] [[ARG] SIGSPEC ...]: runs ARG later, not here
            yield from _trap(_expanded(written, values, arrays, path, n), values, arrays, count, path, depth,
                             functions, n, line)
            continue
        if written[0] in ("set", "shopt"):  # the shell's options (errexit, as it runs: see _errexit)
            _options_set(written, functions)
            continue
        if written[0] == "shift":  # bash(1) shift [N]: $N+1 ... become $1 ...; status 1 and nothing shifted where N
            # is no number, below 0 or past $#
            shift_fails = _shift_refused(written)
            k = 1 if written[1:2] == [] or at_run_time(written[1]) else _shell_number(written[1]) \
                if len(written) == 2 else None  # (too many counts: nothing shifted)
            if shift_fails is None and k is not None and "@" in arrays:  # (a function's words; the script's own are
                if k > len(arrays["@"]):  # known only at run time)
                    shift_fails = f"`{' '.join(written)}` passes the {len(arrays['@'])} words $# holds"
                    functions[_SHIFT_FAILED] = (n, shift_fails)
                else:
                    _positional(arrays["@"][k:], values, arrays)
            functions[_FAILING] = shift_fails if shift_fails is not None else "" if "@" in arrays else None
            continue
        if written[0] in _SETS_NAMES and (written[0] != "printf" or written[1:2] == ["-v"]):  # (`read IF`: what it
            # sets is known only at run time)
            _names_set(written, values, arrays)
            if written[0] not in (".", "source", "eval", "select"):
                continue
        if written[0] == _ARRAY_MARK:
            arrays[written[1]] = [_substitute(m.group(1) if (m := _ARRAY_KEYED.match(w)) else w, values, path, n)
                                  for w in written[2:]]
            continue
        if written[0] in _DECLARING and len(written) > 1:  # (`local -a P=(a b)`, `declare -i N`, `local dev`)
            declared, written = written[0], [w for w in written[1:] if not w.startswith("-")]
            if declared == "export" or declared == "declare" and "-x" in flat[i - 1][1]:
                functions.setdefault(_EXPORTED, set()).update(w.split("=", 1)[0] for w in written)
            if declared == "local":  # (a function's own NAME, empty; `export NAME` keeps its value)
                for name in filter(_NAME.match, written):
                    values.pop(name, None)
            written = [w for w in written if not _NAME.match(w)] or [":"]
        assigned = [m for w in written if (m := _ASSIGNMENT.match(w))]
        if assigned and len(assigned) == len(written):  # `A=1`, `A="x y" B=2` (quotes already removed by the split)
            for m in assigned:
                if m.group(2):  # an element: the array's words are no longer the ones it was given
                    arrays.pop(m.group(1), None)
                elif m.group(3).startswith("(") and m.group(3).endswith(")"):  # `local -a P=(a b)` in a list
                    values.pop(m.group(1), None)
                    try:
                        arrays[m.group(1)] = [_substitute(w, values, path, n) for w in split_shell(m.group(3)[1:-1])]
                    except ValueError:
                        arrays.pop(m.group(1), None)
                else:  # (`IF=$NIC` of a known NIC: known too; `CMD="mlnx_qos -i $1 ..."`: its known parts)
                    values[m.group(1)] = _substitute(m.group(3), values, path, n)
            continue
        if assigned and _ASSIGNMENT.match(written[0]):  # bash(1) SIMPLE COMMAND EXPANSION: `LC_ALL=C mlnx_qos ...`
            written = written[next(k for k, w in enumerate(written) if not _ASSIGNMENT.match(w)):]  # (the command's
            # environment only: its words are expanded before, with the shell's values)
        if written[0] == "for" and len(written) >= 3 and written[2] == "in":
            end = min(ends[i - 1], stop)
            items = _loop_words(written[3:], values, arrays, count, path, n)
            if items is None:  # a list known only at run time (`$(ls ...)`, `"$@"`): the body once, as written
                values.pop(written[1], None)
                yield from _block(flat, i, end, ends, values, arrays, count, path, depth + 1, functions)
                if (functions.get(_JUMP) or ("", None))[1] == end:  # (a break or continue of its own)
                    del functions[_JUMP]
                functions.pop(_EXITED, None)  # (it may run no round: an exit in it is as conditional as an if's)
            for item in items or []:
                values[written[1]] = item
                yield from _block(flat, i, end, ends, values, arrays, count, path, depth + 1, functions)
                if (jump := functions.get(_JUMP)) is not None and jump[1] == end:  # (a break or continue of its own)
                    del functions[_JUMP]
                    if jump[0] == "continue":
                        continue
                if _EXITED in functions or _RETURNING in functions or jump is not None:  # (an exit, a return, a
                    break  # break or a dropped command in its body ran: no more rounds)
            if _RETURNING in functions:  # (the return ends the function's body the loop is in)
                i = stop
            elif _EXITED in functions and (_piped(flat[end][1] or [""]) or end in functions.get(_PIPED_GROUPS, {})):
                i = _pipeline_ends(flat, end + 1, stop, ends, functions, n, depth)  # (`done | cat`, `| for ...`)
            elif _EXITED in functions:  # (the exit ends what the loop is in too, out of its `{ }` groups)
                i = _out_of_groups(flat, _exited(flat, end + 1, stop, functions, n), stop, ends, functions, n, 1)
                _subshell_failing(flat, i, stop, functions)
            else:
                i = end + 1
            if end in functions.get(_PIPED_GROUPS, {}) and i == end + 1:  # (a piped loop ends)
                i = _piped_part_ends(flat, i, stop, ends, functions, n, depth)
            continue
        words = unwrap(_expanded(written, values, arrays, path, n))  # (`sudo -E X`, `timeout 10 X`: X runs)
        if words and (words[0].startswith("((") or (words[0] in _PASSED_OVER and not any(">" in w for w in words))):
            continue
        if tested and words and not (os.path.basename(words[0]) in ("sh", "bash") or _sets_nic(words)):
            continue  # a condition that only looks (`[ -e F ]`, `ip link show`, `grep -q`): it sets nothing
        shells, last_shell = _shell_parts(words)  # (`sh -c '...'`; each `sh -c` of `sh -c A | sh -c B | tee LOG`)
        piped = "|" in words or "|&" in words
        failing = None  # why the pipeline fails, where a part's shell ends in a failing command (bash(1) Pipelines:
        # its status is its last part's, or under pipefail the last part's that fails)
        statuses: list[str | None] = []  # each shell's status as its commands ran (_FAILING)
        for k, shell in enumerate(shells):
            try:
                grammar = _Grammar(functions.get(_EXPANDED))
                grammar.braces = os.path.basename(shell[0]) == "bash"
                inner = [(n, w, line) for w in _split(shell[2], grammar)]  # the commands it runs, in their place
                inner, roles = _known_conditions(inner, grammar.ended)
            except ValueError:
                yield n, None, line
                continue
            except InputError as exc:
                raise InputError(exc.message, file=path, line=n) from None
            if depth >= MAX_NESTING:
                raise InputError(f"its loops and `sh -c` commands nest more than {MAX_NESTING} deep; not read",
                                 file=path, line=n)
            outer = {key: functions.get(key, False) for key in (*_OPTIONS, _ERREXIT_OFF)}  # (a shell of its own: no
            functions.update(dict.fromkeys(_OPTIONS, False), **{_ERREXIT_OFF: 0, _INHERIT: os.path.basename(
                shell[0]) == "sh"})  # option set)
            inner = _tested_blocks(_errexit(_calls(inner, grammar.functions), roles))
            try:
                yield from _whole(inner, values, arrays, count, path, depth + 1, functions)
                own_pipefail = functions.get(_PIPEFAIL)  # (the shell's own, as its last command ran)
            finally:
                functions.update(outer)
            statuses.append(functions.get(_FAILING))
            last = next((w for _, w, _ in reversed(inner) if w and w[0] not in _BLOCK_WORDS), None)
            if last and last[1:2] == [_ERREXIT] and last[2] != _STATUS and (
                    last[3:4] != [_PIPEFAIL] or own_pipefail) and (
                    functions.get(_PIPEFAIL) or (last_shell and k == len(shells) - 1)):
                # (its status is its last command's, bash(1) -c: it fails; one that fails only under pipefail
                # fails it where the shell set pipefail itself)
                pipe = " under `set -o pipefail`" if functions.get(_PIPEFAIL) else ""
                failing = (f"it is piped{pipe} and " if piped else "") + \
                    f"its `{shell[0]} -c` shell's last command fails: {last[2]}"
        if shells:
            if piped and not last_shell and not functions.get(_PIPEFAIL):  # (the status is its reader's, not known)
                functions[_FAILING] = None
            elif piped and functions.get(_PIPEFAIL) and (failed := [s for s in statuses if s]):
                functions[_FAILING] = failed[-1]  # (under pipefail the last part's that fails: `&&` skips on it)
            if failing and not tested and _line_untested(line, written, piped):
                i = _errexit_ends(flat, i, stop, ends, functions, n, depth, failing)
            continue
        if not words or words[0] in _BLOCK_WORDS or words[0] in _NO_EFFECT:
            continue
        if words[0] in ("echo", "printf") and not any(w.startswith(">") or w == "|" for w in words):
            continue  # prints to the terminal
        if words[0] in ("echo", "printf") and not any(">" in w or os.path.basename(w) == "tee" for w in words) and \
                all(words[k + 1:k + 2] and words[k + 1] in _READS_ONLY for k, w in enumerate(words) if w == "|"):
            continue  # `echo "$OUT" | grep X`: filtered to the terminal
        yield n, words, line


# bash(1) SHELL BUILTIN COMMANDS break [n], continue [n]: out of n enclosing for, while, until or select loops (all of
# them where n is more). As bash 5.2 runs them (builtins/break.def): n below 1 is "loop count out of range", status 1,
# and every enclosing loop is left; n no number is "numeric argument required", which ends the shell with status 128;
# outside a loop, or in a function or subshell of its own, they do nothing. builtins/common.c no_args: exit, return,
# shift, break and continue given more words than they take print "too many arguments" and bash drops the rest of
# the command it is running (the script's whole line, or compound command, through the calls it is in; in a `( )`
# subshell, the rest of that), status 1 (set -e does not stop there), and goes on at the next.
_LOOP_WORDS = ("break", "continue")
_LOOPS = frozenset({"for", "while", "until", "select"})
_JUMP = "\0jump"  # (in ``functions``: ("break" or "continue", the index of the `done` it goes to), or ("discard",
# None): a command dropped, see _block)
_ENCLOSING = "\0enclosing"  # (in ``functions``: (the list, _enclosing's answer) by (id of the list, index))
_NOTED = "\0noted"  # (in ``functions``: the lines whose break or continue was named as undecided)
# (a builtin's word that opens a redirection, `>FILE`, `2>>FILE`, `>`; named apart from _REDIRECTION below, which,
# defined later under the same name, had replaced it: `exit 0 >FILE` was read as given two arguments, not as an exit)
_WORD_REDIRECTION = lazy(r"^(?:\d*|&)(?:>>?|<<?|>&|<&|>\|)")


def _arguments(words: list[str]) -> list[str]:
    """A builtin's arguments: its words after the name, less its redirections (`exit 1 2>/dev/null` takes one)."""
    out: list[str] = []
    operand = False
    for word in words[1:]:
        if operand:
            operand = False
        elif m := _WORD_REDIRECTION.match(word):
            operand = m.group(0) == word  # (`> FILE`: the file is the next word)
        else:
            out.append(word)
    return out


def _loop_jump(flat: list, j: int, stop: int, ends: dict[int, int], functions: dict, word: str, count: int | None,
               guarded: bool, depth: int, tested: bool) -> Generator[tuple[int, list[str] | None, str], None, int]:
    """The `break` or `continue` ``flat[j]`` (``count``: its n, None where known only at run time; ``guarded``: after
    `&&` or `||`; ``tested``: before one, where set -e does not stop at its failure): where the shell goes on, as
    bash(1) says (see _LOOP_WORDS); returns the index to go on at. One the reader cannot decide is read as an `exit` in
    its place is: under an if, a case, `&&` or `||` as not taken; of a count known only at run time, named, and the
    loop's commands after it are not read (left unknown, not guessed)."""
    n, written, line = flat[j]
    cached = functions.setdefault(_ENCLOSING, {}).get((id(flat), j))  # (found once per line: each loop round
    if cached is None or cached[0] is not flat:  # comes back to it; the list kept, so that its id is no other's)
        cached = functions[_ENCLOSING][id(flat), j] = (flat, _enclosing(flat, j, ends))
    enclosing = cached[1]
    loops = [end for end in enclosing if end is not None and end >= 0]
    if not loops:
        return j + 1  # ("only meaningful in a `for', `while', or `until' loop": bash goes on)
    reach = len(loops) if count is None or count < 1 else min(count, len(loops))
    target = loops[reach - 1]
    if count is not None and count < 1 and not tested:
        why = f"`{' '.join(written)}` on line {n}: loop count out of range"
        functions[_FAILING] = why
        after = _errexit_ends(flat, j + 1, stop, ends, functions, n, depth, why)
        if after != j + 1 or _EXITED in functions or _ERREXIT_TOP in functions:
            return after  # (set -e ends the script at its status 1)
    if count is not None and (guarded or None in enclosing[:enclosing.index(target)]):
        return j + 1  # (under a test known at run time: read as not taken, as `[ -e F ] || exit 1` is, so that the
        # common `[ -d /sys/class/net/$p/ecn ] || continue` reads the loop's ports as configured)
    undecided = count is None
    start = _opener(ends, target) or 0
    skipped = flat[j + 1:target] if word == "continue" and count is not None and count > 0 else \
        flat[start + 1:j] + flat[j + 1:target]  # (a break's: its loop's later rounds too)
    if undecided and any(words and (words[0] not in _BLOCK_WORDS | _NO_EFFECT | {"echo", "printf"} and (
            not words[0].startswith("\0") or _CALL in words[:3])) for _, words, _ in skipped) and \
            n not in functions.setdefault(_NOTED, set()):  # (`[ -n "$p" ] || continue` last in a body: it leaves
        # nothing unread that sets anything)
        functions[_NOTED].add(n)
        what = "the loops it may leave" if count is None else "its loop"
        yield n, [NOTE, "SYS002", f"`{' '.join(w for w in written if not w.startswith(chr(0)))}` runs only as a "
                                  f"test known at run time says: {what}'s commands after it, to line "
                                  f"{flat[target][0]}, are not read, nor its later rounds" if word == "break" or
                                  count is None else f"its loop's commands after it, to line {flat[target][0]}, are "
                                  "not read"], line
    functions[_JUMP] = ("break" if count is None or count < 1 else word, target)
    return j + 1


# bash(1) SHELL BUILTIN COMMANDS that set variables from what they read at run time, and those that may set any.
_SETS_NAMES = frozenset({"read", "getopts", "mapfile", "readarray", "unset", "select", "printf", ".", "source",
                         "eval"})
_READ_ARGS = {"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}  # (options that take a value)


def _names_set(words: list[str], values: dict[str, str], arrays: dict[str, list[str]]) -> None:
    """Forget the variables ``words`` set to what is known only at run time: `read [-r] [-a ARRAY] NAME...` (REPLY
    without one), `mapfile ARRAY`, `getopts OPTS NAME`, `select NAME in ...`, `printf -v NAME`, `unset NAME`; every
    variable after `.`, `source` or `eval` (the file or string may set any)."""
    prog, rest = words[0], words[1:]
    if prog in (".", "source", "eval"):
        values.clear()
        arrays.clear()
        return
    names: list[str] = []
    if prog in _READ_ARGS:
        while rest[:1] and rest[0].startswith("-") and len(rest[0]) > 1:
            if rest[0][-1] in _READ_ARGS[prog]:
                names += rest[1:2] if rest[0][-1] == "a" else []
                rest = rest[2:]
            else:
                rest = rest[1:]
        names += rest if prog == "read" else rest[-1:]
        names = names or ["REPLY" if prog == "read" else "MAPFILE"]
    elif prog == "getopts":
        names = rest[1:2]
    elif prog == "select":
        names = rest[:1]
    elif prog == "printf":
        names = rest[1:2] if rest[:1] == ["-v"] else []
    else:  # unset
        names = [w for w in rest if not w.startswith("-")]
    for name in names:
        values.pop(name, None)
        arrays.pop(name, None)


def _call(words: list[str], values: dict[str, str], arrays: dict[str, list[str]], count: list[int], path: str | None,
          depth: int, functions: dict, n: int) -> Iterator[tuple[int, list[str] | None, str]]:
    """A call of the script's function: its body, run with the call's words as $1, $2, ... (bash(1) FUNCTIONS: "the
    positional parameters are restored" when it returns). One not defined yet runs nothing (bash finds no such
    command); one called from its own body is not run again (each of its commands is read once)."""
    words = words[:words.index("|")] if "|" in words else words
    settings = {}  # (bash(1) ENVIRONMENT: `IF=eth3 setup` sets IF while setup runs, and it is as it was after)
    while words and (m := _ASSIGNMENT.match(words[0])) and not m.group(2):
        settings[m.group(1)] = m.group(3)
        words = words[1:]
    if not words:
        return
    name, args = words[0], words[1:]
    running = functions.setdefault("\0calls", set())
    if name not in functions or name in running:
        return
    if depth >= MAX_NESTING:
        raise InputError(f"its function calls and loops nest more than {MAX_NESTING} deep; not read", file=path, line=n)
    body, start, end, ends = functions[name]
    saved = {key: values.pop(key) for key in _POSITIONAL if key in values}, arrays.pop("@", None)
    before = {key: values.get(key) for key in settings}
    values.update(settings)
    _positional(args, values, arrays)
    running.add(name)
    subshell = body[start - 1][1][0] == "("  # (`name() ( ... )`: its body runs in a subshell)
    try:
        if subshell:
            _subshell_starts(functions)
        functions.setdefault(_CALL_SUBSHELLS, []).append(len(functions.get(_SUBSHELL_TRAPS, ())))
        yield from _block(body, start, end, ends, values, arrays, count, path, depth + 1, functions)
        functions.pop(_RETURNING, None)
        if subshell:
            yield from _subshell_ends(values, arrays, count, path, depth + 1, functions)
    finally:
        if functions.get(_CALL_SUBSHELLS):
            functions[_CALL_SUBSHELLS].pop()
        running.discard(name)
        for key in _POSITIONAL:
            values.pop(key, None)
        values.update(saved[0])
        for key, value in before.items():
            if value is None:
                values.pop(key, None)
            else:
                values[key] = value
        arrays.pop("@", None)
        if saved[1] is not None:
            arrays["@"] = saved[1]


_POSITIONAL = tuple(str(k) for k in range(1, 10))
_TRAP = "\0trap"  # (in ``functions``: (line, command string, line text) of the EXIT trap set so far)
_EXITING = "\0exiting"  # (in ``functions`` while an EXIT trap runs)
_DRY = "\0dry"  # (in the ``functions`` of a signal trap's trial run)
_SUBSHELL_TRAPS = "\0subshells"  # (in ``functions``: the EXIT trap of each shell a `( )` subshell runs in)
_FAILING = "\0failing"  # (in ``functions``: why the status of the last command that ran fails, "" where it is known
# to be 0, None where it is not known: what a `( )` subshell, a bare `exit` or `return`, a function call give)
_NEGATED = "`!` of a command that succeeds"  # (bash(1) Pipelines: `!` makes a status of 0 fail)
# Builtins whose status is 0 as a script writes them (bash(1) SHELL BUILTIN COMMANDS: true, `:`, set and shopt
# given options they know).
_SUCCEEDS = frozenset({"true", ":", "set", "shopt"})
_PIPED_GROUPS = "\0piped-groups"  # (in ``functions``: the options as each piped `{ }` group running starts, by the
# index of its `}`)
_HEREDOC_SHELL = "losslessd-heredoc-shell"  # (the first command of a shell on a quoted here-document: see _block)
_OWN_SHELL = "losslessd-own-shell"  # (the first command of any shell on a here-document: a process of its own, which
# no tested context around it reaches: see _tested, _block)
_SUBSHELL_VALUES = "\0subshell-values"  # (in ``functions``: the variables of the shell around each `( )` subshell a
# here-document's shell is modelled as, None for others)
_EXPORTED = "\0exported"  # (in ``functions``: the names `export` gave the environment, which a child shell keeps)
_SUBSHELL_OPTIONS = "\0subshell-options"  # (in ``functions``: the options of each shell a `( )` subshell runs in)
# bash(1) trap: the pseudo-signals other than EXIT, and when each runs its command.
_TRAP_WHEN = {"ERR": "when a command fails", "DEBUG": "before every command",
              "RETURN": "each time a function or a sourced file returns"}


def _trap(words: list[str], values: dict[str, str], arrays: dict[str, list[str]], count: list[int],
          path: str | None, depth: int, functions: dict, n: int,
          line: str) -> Iterator[tuple[int, list[str] | None, str]]:
    """`trap ARG EXIT` (or `0`): ARG runs when the shell exits, at the end of the script or at an `exit`, not here;
    the last one set wins, and `trap - EXIT`, `trap EXIT` or `trap '' EXIT` leave none (bash(1) trap). A trap on a
    signal, ERR, DEBUG or RETURN runs only if that happens, which reading cannot tell: where its command would set the
    NIC, a [NOTE, SYS002] says it is not read (the values read are a run's that no signal interrupts); one that runs
    the EXIT trap's command too changes nothing the end of the script does not."""
    args = words[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or (args[0].startswith("-") and args[0] != "-"):  # (`trap`, `trap -p`, `trap -l`: they print)
        return
    action, specs = (None, args[1:] if args[0] == "-" else args) if len(args) == 1 or args[0] == "-" else \
        (args[0], args[1:])
    names = [spec.upper().removeprefix("SIG") for spec in specs]
    if {"EXIT", "0"} & set(names):
        if action:
            functions[_TRAP] = (n, action, line)
        else:
            functions.pop(_TRAP, None)
    signals = [name for name in names if name not in ("EXIT", "0")]
    if not action or not signals or len(signals) < len(names) or functions.get(_DRY):  # (with EXIT: the end of the
        return  # script runs it anyway; in a trap's trial run: that run's own traps are not tried)
    dry = {**functions, "\0calls": set(functions.get("\0calls", ())),  # (a run that leaves this one's state alone)
           _SUBSHELL_TRAPS: list(functions.get(_SUBSHELL_TRAPS, ())), _DRY: True}
    ran = _trap_run((n, action, line), dict(values), {k: list(v) for k, v in arrays.items()}, count, path, depth, dry)
    setting = next((words for _, words, _ in ran if words and not words[0].startswith("\0") and _sets_nic(words)),
                   None)
    if setting is not None:
        raised = [f"SIG{name}" for name in signals if name not in _TRAP_WHEN]
        when = " or ".join([_TRAP_WHEN[name] for name in signals if name in _TRAP_WHEN]
                           + [f"when the script gets {' or '.join(raised)}"] * bool(raised))
        yield n, [NOTE, "SYS002", f"the trap on {', '.join(signals)} runs `{action[:60]}` only {when}, which reading "
                                  f"the script cannot tell: what it sets (`{' '.join(setting)[:60]}`) is not read (the "
                                  "values read are those of a run nothing interrupts)"], line


def _trap_run(trap: tuple, values: dict[str, str], arrays: dict[str, list[str]], count: list[int], path: str | None,
              depth: int, functions: dict) -> Iterator[tuple[int, list[str] | None, str]]:
    """The commands of a trap's command string as the shell runs them, in the shell that set it (its functions
    called), at the trap's line."""
    n, action, line = trap
    if depth >= MAX_NESTING:
        raise InputError(f"its traps, loops and `sh -c` commands nest more than {MAX_NESTING} deep; not read",
                         file=path, line=n)
    defined = {name for name in functions if not name.startswith("\0")}
    grammar = _Grammar(functions.get(_EXPANDED))
    inner: list[tuple[int, list[str] | None, str]] = []
    for _, part in _logical_lines(action):
        try:
            inner += [(n, words, line) for words in _split(part, grammar)]
        except ValueError:
            inner.append((n, None, line))
    yield from _whole(_calls(inner, defined), values, arrays, count, path, depth + 1, functions)


def _exit_trap_run(trap: tuple, values: dict[str, str], arrays: dict[str, list[str]], count: list[int],
                   path: str | None, depth: int, functions: dict) -> list[tuple[int, list[str] | None, str]]:
    """An EXIT trap's commands as the shell runs them as it ends: once (a trap it sets as it runs is not run again)."""
    running = functions.get(_EXITING)
    functions[_EXITING] = True
    try:
        return list(_trap_run(trap, values, arrays, count, path, depth, functions))
    finally:
        if not running:
            del functions[_EXITING]


def _subshell_starts(functions: dict) -> None:
    """A `( )` subshell starts with no EXIT trap of its own (bash(1) COMMAND EXECUTION ENVIRONMENT), and the shell's
    options as they are: a `set -e` or `shopt` in it is its own."""
    functions.setdefault(_SUBSHELL_TRAPS, []).append(functions.pop(_TRAP, None))
    functions.setdefault(_SUBSHELL_OPTIONS, []).append({key: functions.get(key) for key in _OPTIONS})
    functions.setdefault(_SUBSHELL_VALUES, []).append(None)


def _subshell_ends(values: dict[str, str], arrays: dict[str, list[str]], count: list[int], path: str | None,
                   depth: int, functions: dict) -> Iterator[tuple[int, list[str] | None, str]]:
    """... and runs the EXIT trap it set as it ends; the shell around it has its own again."""
    if (trap := functions.pop(_TRAP, None)) is not None:
        yield from _exit_trap_run(trap, values, arrays, count, path, depth, functions)
    if (outer := functions[_SUBSHELL_TRAPS].pop()) is not None:
        functions[_TRAP] = outer
    functions.update(functions[_SUBSHELL_OPTIONS].pop())
    if (kept := functions[_SUBSHELL_VALUES].pop()) is not None:  # (a here-document's shell ends: the script's own)
        values.clear()
        values.update(kept)


def _sets_nic(words: list[str]) -> bool:
    """A command this reader takes for one that sets the NIC: what makes a trap's command worth a word."""
    prog = os.path.basename(words[0])
    return prog in ("mlnx_qos", "dcb", "lldptool", "cma_roce_tos") or (prog != "echo" and is_write(words)) or \
        (prog == "echo" and any(w.startswith(">") or os.path.basename(w) == "tee" for w in words))


def _expanded(written: list[str], values: dict[str, str], arrays: dict[str, list[str]], path: str | None,
              n: int) -> list[str]:
    """The words with their known `$NAME`s substituted, and `"$@"` a function's words (`wrap() { mlnx_qos "$@"; }`)."""
    return [word for w in written for word in (
        arrays["@"] if w in ("$@", "${@}", "$*") and "@" in arrays else [_substitute(w, values, path, n)])]


def _positional(args: list[str], values: dict[str, str], arrays: dict[str, list[str]]) -> None:
    """$1 ... $9 and "$@" set to ``args`` (a word known only at run time leaves its parameter so)."""
    for key in _POSITIONAL:
        values.pop(key, None)
    for key, arg in zip(_POSITIONAL, args, strict=False):
        values[key] = arg
    arrays["@"] = args


_EXITED = "\0exited"  # (in ``functions``: the line of an exit, or of the call running one, that ends the script)


def _subshell_failing(flat: list, i: int, stop: int, functions: dict) -> None:
    """Where set -e's exit (``functions[_ERREXIT]``) went on at ``flat[i]``, the `)` of the subshell it ended: that
    subshell fails (see _errexit_ends)."""
    if _EXITED in functions:
        return
    failed = functions.pop(_ERREXIT, None)
    if failed is not None and i < stop and (flat[i][1] or [""])[0] == ")" and functions.get(_SUBSHELL_TRAPS):
        functions[_SUBSHELL_FAILED] = f"line {failed[0]} in it fails: {failed[1]}"


def _out_of_groups(flat: list, i: int, stop: int, ends: dict[int, int], functions: dict, n: int, depth: int,
                   failure: tuple[int, str] | None = None) -> int:
    """Where an exit that went on at ``flat[i]`` goes on: past the `}` of each `{ }` group it is in (a group's end is
    no branch's: see _exited), unless the group runs as tested (`|| { ...; }`), to the end of a piped one (see
    _pipeline_ends; ``failure``: set -e's, where it made the exit)."""
    piped = functions.get(_PIPED_GROUPS, {})
    while i < stop and flat[i][1] and flat[i][1][0] == "}" and not _piped(flat[i][1]) and i not in piped and not (
            (k := _opener(ends, i)) is not None and flat[k][1][1:2] == [_GUARDED]):
        i = _exited(flat, i + 1, stop, functions, n, depth)
    if i < stop and (_piped(flat[i][1] or [""]) or i in piped) and flat[i][1][0] == "}":
        i = _pipeline_ends(flat, i + 1, stop, ends, functions, n, depth, failure)
    return i


def _pipeline_ends(flat: list, i: int, stop: int, ends: dict[int, int], functions: dict, n: int, depth: int,
                   failure: tuple[int, str] | None = None) -> int:
    """Where to go on after an exit ended a pipeline's part before ``flat[i]`` (`{ ...; } | cat`, `done | cat`): it
    ran in a subshell of its own (bash(1) Pipelines), so the shell goes on after it, unless set -e's exit ended it
    under `set -o pipefail` (the pipeline fails as its part did)."""
    functions.pop(_EXITED, None)
    saved = functions.get(_PIPED_GROUPS, {}).pop(i - 1, {})
    last = saved.pop(_PIPE_LAST, False)  # (the pipeline's last part: its status is the pipeline's)
    functions.update(saved)  # (the options of the shell around it)
    failed = functions.pop(_ERREXIT, None) or failure
    if flat[i - 1][1][1:] == ["&"]:  # (a background job: its exit ends it only, its status is 0)
        functions[_FAILING] = ""
        return i
    if flat[i - 1][1][1:2] == [_LISTED]:  # (`{ ...; exit 1; } | cat && cmd`: tested, its status skips what `&&` runs)
        why = f"line {failed[0]} in it fails: {failed[1]}" if failed is not None else None
        functions[_FAILING] = why if last or functions.get(_PIPEFAIL) else None
        return i
    if failed is not None and last:
        return _errexit_ends(flat, i, stop, ends, functions, n, depth, f"the pipeline's last part ends: line "
                             f"{failed[0]} in it fails: {failed[1]}")
    if failed is not None and functions.get(_PIPEFAIL):
        return _errexit_ends(flat, i, stop, ends, functions, n, depth, f"it is piped under `set -o pipefail` and "
                             f"line {failed[0]} in it fails: {failed[1]}")
    functions.pop(_FAILING, None)  # (the pipeline's status is not its ended part's: `&&` after it runs)
    return i


def _piped_part_ends(flat: list, i: int, stop: int, ends: dict[int, int], functions: dict, n: int, depth: int) -> int:
    """Where to go on after the compound command a pipeline's part is, ``flat[i - 1]`` its closing word, ended as its
    commands ran: in the shell around it again (its options), whose status is the pipeline's (bash(1) Pipelines: the
    last part's, or under `set -o pipefail` the last part's that fails)."""
    saved = dict(functions[_PIPED_GROUPS].pop(i - 1))
    last = saved.pop(_PIPE_LAST)
    functions.update(saved)
    failing = functions.get(_FAILING)
    if flat[i - 1][1][1:] == ["&"]:  # (a background job: its status is 0 to the shell that started it)
        functions[_FAILING] = ""
        return i
    if flat[i - 1][1][1:2] == [_LISTED]:  # (`... | while ...; done || true`: the pipeline is tested, its status ends
        status = failing if last or functions.get(_PIPEFAIL) else None  # nothing; `&&` skips on it)
        if flat[i - 1][1][2:3] == [_NEGATION]:  # (`! cmd | { ...; }`: turned over, as after a command, see _block)
            status = _NEGATED if status == "" else None
        functions[_FAILING] = status
        return i
    if failing and last:
        return _errexit_ends(flat, i, stop, ends, functions, n, depth, f"the pipeline's last part fails: {failing}")
    if failing and functions.get(_PIPEFAIL):
        return _errexit_ends(flat, i, stop, ends, functions, n, depth, f"it is piped under `set -o pipefail` and "
                             f"it fails: {failing}")
    if not (last and failing == "" and not functions.get(_PIPEFAIL)):  # (the last part's status, known 0, is the
        functions.pop(_FAILING, None)  # pipeline's: `true | { set +e; }` succeeds)
    return i


def _piped(closing: list[str]) -> bool:
    """Whether the compound command a closing word (`}`, `done`) ends is a pipeline's part (`} | cat`, `done |& tee
    LOG`; not `} || true`), or a background job (`done &`): bash(1) Pipelines run each part in a subshell of its own,
    Lists a command ended by `&` too."""
    return "|" in closing[1:] or "|&" in closing[1:] or closing[1:] == ["&"]


def _errexit_ends(flat: list, i: int, stop: int, ends: dict[int, int], functions: dict, n: int, depth: int,
                  why: str) -> int:
    """Where to go on after ``flat[i - 1]`` failed (``why``): under set -e, where it is not ignored, the shell exits
    there as at an `exit` (see _exited), out of the `{ }` groups it is in; else on after it."""
    if not functions.get(_ERREXIT_ON) or functions.get(_ERREXIT_OFF):
        return i  # (-e off, or in a context that ignores it: the failure ends nothing)
    failed = i - 1
    i = _out_of_groups(flat, _exited(flat, i, stop, functions, n, depth), stop, ends, functions, n, depth, (n, why))
    if _EXITED in functions:  # (what the end of the loop or call it ends says: see _whole)
        functions[_ERREXIT] = (n, why)
    elif i >= stop and not depth:  # (the script's top level: see _whole)
        functions[_ERREXIT_TOP] = (failed, why)
    elif i < stop and flat[i][1] and flat[i][1][0] == ")" and functions.get(_SUBSHELL_TRAPS):  # (the subshell's exit
        functions[_SUBSHELL_FAILED] = why  # status fails: so does the `( )` command, in the shell around it)
    return i


def _exited(flat: list, i: int, stop: int, functions: dict, n: int, depth: int = 1) -> int:
    """Where to go on after an exit that ran before ``flat[i]`` (on line ``n``): past the rest of its list. When that
    list is the whole of a loop's body or a called function's, the exit ends that loop or call too, and so on out
    (``functions[_EXITED]``: its line); one in an `if` or `case` branch ends that branch only (as if it was taken)."""
    rest = _rest_skipped(flat, i, stop)
    if rest == stop and depth:
        functions[_EXITED] = n
    else:
        functions.pop(_EXITED, None)
    return rest


def _return_end(flat: list, i: int, stop: int, ends: dict[int, int]) -> int:
    """Where the list a `return` before ``flat[i]`` ends goes on: as _rest_skipped, out of the `{ }` groups it is in
    (but one run as a test says, `|| { ...; }`) and out of the if, while or until whose test it is in (it runs
    whenever that does: `if { return 1; }; then`)."""
    depth, test = 0, False
    for j in range(i, stop):
        first = flat[j][1][0] if flat[j][1] else None
        if first in _OPENERS:
            depth += 1
        elif first in _CLOSERS and depth:
            depth -= 1
        elif first in _CLOSERS:
            if not test and (first != "}" or ((k := _opener(ends, j)) is not None and
                                               flat[k][1][1:2] == [_GUARDED])):
                return j
            test = False
        elif not depth and first in ("then", "do"):
            test = True
        elif not depth and not test and first in ("elif", "else", ";;"):
            return j
    return stop


def _test_end(flat: list, i: int, stop: int) -> int:
    """The index after the closing word of the if, while or until whose test ``flat[i - 1]`` is in."""
    j = _closing(flat, i, stop, branches=False)
    return stop if j == stop else j + 1


def _rest_skipped(flat: list, i: int, stop: int) -> int:
    """Where the list an `exit` before ``flat[i]`` ends: the closing word of the block it is in, or the next branch of
    it (`elif`, `else`, a case's `;;`), which may run instead; ``stop`` at the top level."""
    return _closing(flat, i, stop, branches=True)


def _closing(flat: list, i: int, stop: int, branches: bool) -> int:
    """The index of the closing word of the block ``flat[i]`` is in (with ``branches``, or of its next `elif`, `else`
    or `;;`), counting the blocks opened and closed on the way; ``stop`` when there is none before it."""
    depth = 0
    for j in range(i, stop):
        first = flat[j][1][0] if flat[j][1] else None
        if first in _OPENERS:
            depth += 1
        elif first in _CLOSERS:
            if not depth:
                return j
            depth -= 1
        elif branches and not depth and first in ("elif", "else", ";;"):
            return j
    return stop


def _counted(count: list[int], more: int, path: str | None, n: int) -> None:
    count[0] += more
    if count[0] > MAX_SCRIPT_COMMANDS:
        raise InputError(f"it runs more than {MAX_SCRIPT_COMMANDS:,} commands once its for loops and function calls "
                         "are unrolled (a generated file?); not read", file=path, line=n)


# Linux include/uapi/linux/binfmts.h MAX_ARG_STRLEN (32 pages of 4 KiB): the longest word execve passes to a program,
# so no command of a script is longer once its variables are substituted.
MAX_WORD_CHARS = 32 * 4096


def _substitute(word: str, values: dict[str, str], path: str | None = None, n: int = 0) -> str:
    """``word`` with each `$NAME` of a known literal value replaced by it; an InputError when that makes it longer
    than a program can be given (`$A$A$A...` of a long A doubles per reference: memory, not a command)."""
    if "$" not in word:
        return word
    size = [len(word)]

    def value(v: re.Match) -> str:
        got = values.get(v.group(1) or v.group(2), v.group(0))
        size[0] += len(got)
        if size[0] > MAX_WORD_CHARS:
            raise InputError(f"a word is longer than {MAX_WORD_CHARS:,} characters once its variables are substituted "
                             "(Linux MAX_ARG_STRLEN); not read", file=path, line=n)
        return got
    return _VARIABLE.sub(value, word)


class _Ends(dict):
    """_structure's map of each compound command's first index to its closing word's, with the way back (which
    command a closing word closes) made once: a search of the map at each `)` or `}` was quadratic in the script."""

    _back: dict[int, int] | None = None


def _opener(ends: dict[int, int], j: int) -> int | None:
    """The first index of the compound command whose closing word is ``flat[j]`` (None: it closes none)."""
    if not isinstance(ends, _Ends):
        return next((k for k, end in ends.items() if end == j), None)
    if ends._back is None:
        ends._back = {end: k for k, end in ends.items()}
    return ends._back.get(j)


def _structure(flat: list, path: str | None) -> tuple[dict[int, int], tuple[int, str] | None, int | None]:
    """For each compound command's first index, the index of the word closing it, found in one pass as bash(1)
    matches them (a reserved word counts only as a command's first word: `echo fi` closes nothing); where bash
    would stop with a syntax error, (the index from which nothing runs, why); and the index of an `exit` that always
    runs (at the top level, or in a `{ }` group there), after whose line bash reads nothing (not even its syntax).
    InputError when compound commands nest deeper than MAX_NESTING (each loop level is a frame of the reading: bash
    has no such limit, no setup script comes near it)."""
    ends: dict[int, int] = _Ends()
    exited: int | None = None  # an `exit` (or `exec PROGRAM`) that always runs: at the top level, or in { } there
    open_: list[int] = []
    body: list[int] = []  # per open command: 0 before its `then` or `do`, 1 after (a case, { }, ( ): 1), 2 past `else`
    before = ""
    for j, (n, words, _) in enumerate(flat):
        if exited is not None and not open_ and n != flat[j - 1][0]:  # bash ran the line holding it, and stops
            return ends, None, exited
        first = words[0] if words else None
        if exited is None and _ends_script(words) and all(  # (a group `|| { ...; }` runs as the test says; one
                flat[k][1][:1] == ["{"] and flat[k][1][1:2] in ([], [_CONDITION]) and  # piped into, in a subshell)
                not (k and flat[k - 1][1] == [_PIPED_INTO]) for k in open_):
            exited = j
        if first in _EMPTY_AFTER.get(before, ()):  # bash(1): a body (or a condition) is a list of one command or more
            what = "condition" if before in ("if", "elif", "while", "until") else "body"
            return ends, (_line_start(flat, open_[0] if open_ else j), f"`{first}` on line {n} ends an empty "
                          f"`{before}` {what}: bash stops with a syntax error there (a `:` keeps a block whose "
                          "commands are all commented out)"), None
        before = first or ""
        top = flat[open_[-1]][1][0] if open_ else None
        if first in _OPENERS:
            open_.append(j)
            body.append(0 if first in _HEADED else 1)
            if len(open_) > MAX_NESTING:
                raise InputError(f"its loops, if, case and {{ }} blocks nest more than {MAX_NESTING} deep; not read",
                                 file=path, line=n)
            continue
        if first in ("then", "do", "elif", "else"):  # bash(1): `if LIST; then LIST; [elif LIST; then LIST;]... [else
            # LIST;] fi`, `for NAME [in WORDS]; do LIST; done`, `while LIST; do LIST; done`
            if (first == "then" and top == "if" and body[-1] == 0) or \
                    (first == "do" and top in _HEADED and top != "if" and body[-1] == 0):
                body[-1] = 1
                continue
            if first in ("elif", "else") and top == "if" and body[-1] == 1:
                body[-1] = 2 if first == "else" else 0
                continue
        elif first not in _CLOSERS:
            continue
        elif top is not None and first == _OPENERS[top] and body[-1]:
            if exited is not None and exited > open_[-1] and _piped(words):  # (`{ ...; exit 1; } | cat`: a subshell
                exited = None  # of the pipeline, which the exit ends only)
            ends[open_.pop()] = j
            body.pop()
            continue
        due = "" if top is None else _OPENERS[top] if body[-1] else "then" if top == "if" else "do"
        where = f"the `{top}` of line {flat[open_[-1]][0]} wants `{due}`" if open_ else "nothing is open"
        return ends, (_line_start(flat, open_[0] if open_ else j), f"`{first}` on line {n} where {where}: bash stops "
                      "with a syntax error there"), None
    if open_:
        closer = _OPENERS[flat[open_[0]][1][0]]
        inner = f" (nor the `{flat[open_[-1]][1][0]}` of line {flat[open_[-1]][0]} in it)" if len(open_) > 1 else ""
        if flat[-1][1] and flat[-1][1][0] == UNCLOSED:  # (its closing word read into a quote never closed)
            inner += f" (a quote opened on line {flat[-1][0]} is never closed)"
        return ends, (_line_start(flat, open_[0]), f"no `{closer}` closes this {_KINDS[closer]}{inner}: bash stops "
                      "with a syntax error at the end of the file"), None
    return ends, None, exited


def _ends_script(words: list[str] | None) -> bool:
    """`exit [N]`, or `exec PROGRAM ...` (bash(1) SHELL BUILTIN COMMANDS: exec replaces the shell with the program;
    without one, it only redirects the shell's own input and output, and the script goes on). Not a pipeline's part
    (a subshell of its own), nor set -e's exit, which depends on the option as the script runs (see _errexit_ends),
    nor `exit 1 2`, which exits not (see _LOOP_WORDS)."""
    return words is not None and words[:1] in (["exit"], ["exec"]) and "|" not in words and "|&" not in words and \
        words[1:2] != [_ERREXIT] and (words[0] == "exit" and len(_arguments(words)) < 2 or
                                      words[0] == "exec" and _exec_program(words) is not None)


def _exec_program(words: list[str]) -> list[str] | None:
    """The command `exec` runs in the shell's place (its -c, -l, -a NAME options left out); None for a redirection."""
    rest = words[1:]
    while rest[:1] and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] == "-a" else rest[1:]
    if not rest or rest[0] in ("<", ">", ">>", "<<", "<>", ">|", "<&", ">&") or \
            (is_digits(rest[0]) and rest[1:2] and rest[1][:1] in "<>"):
        return None
    return rest

def _enclosing(flat: list, j: int, ends: dict[int, int]) -> list[int | None]:
    """Each compound command around ``flat[j]`` that a break there counts through, innermost first: a loop's `done`
    index, -1 for a `{ }` group, None for a command that runs its body only as a test says (if, case, `|| { }`)."""
    enclosing: list[int | None] = []
    for k in range(j - 1, -1, -1):
        if k not in ends or ends[k] < j:
            continue
        opener, closer = flat[k][1] or [""], flat[ends[k]][1] or [""]
        piped = _piped(closer) or (k and flat[k - 1][1] == [_PIPED_INTO])
        if opener[1:2] == [_FUNCTION_BODY] or opener[0] == "(" or (opener[0] == "{" and piped):
            break  # (a function's or subshell's loops are its own: bash's loop count starts again in it)
        enclosing.append(ends[k] if opener[0] in _LOOPS else None if opener != ["{"] else -1)
        if opener[0] in _LOOPS and piped:  # (`done | cat`: the loop is a subshell of the pipeline)
            break
    return enclosing


def _after_command(flat: list, j: int, ends: dict[int, int], stop: int) -> int:
    """The first index after the script's command ``flat[j]`` is part of: the compound command around it outermost,
    and the rest of the line that ends it (bash reads and runs a line's list whole: `done; echo x`)."""
    last = max((end for k, end in ends.items() if k <= j <= end), default=j)
    after = last + 1
    while after < stop and flat[after][0] == flat[last][0]:
        after += 1
    return after


def _line_start(flat: list, j: int) -> int:
    """The first command of the line of ``flat[j]``: bash reads a line's list whole before it runs any of it, so a
    syntax error anywhere in it runs none of it (`mlnx_qos ...; )`)."""
    while j and flat[j - 1][0] == flat[j][0] and flat[j - 1][1] is not None:
        j -= 1
    return j


def _loop_words(words: list[str], values: dict[str, str], arrays: dict[str, list[str]], count: list[int],
                path: str | None, n: int) -> list[str] | None:
    """The words a `for` loop runs over (each counted against MAX_SCRIPT_COMMANDS as it is listed); None when the
    shell only knows them at run time."""
    out: list[str] = []
    for word in words:
        quoted = _QUOTED_EXPANSION in word  # (`"$X"`: one word, whatever X holds: bash(1) Word Splitting)
        word = word.replace(_QUOTED_EXPANSION, "")
        if (m := _ARRAY_ALL.match(word)) or word in ("$@", "${@}", "$*"):  # ("$@": a function call's words)
            if (name := m.group(1) if m else "@") not in arrays:
                return None
            listed = arrays[name]
        else:
            substituted = _substitute(word, values, path, n)
            if at_run_time(substituted) or any(c in substituted for c in "*?["):  # (a glob; braces: see _words)
                return None
            # a variable holding `eth0 eth1` gives two words (bash word splitting); a literal word, `"x y"`, one
            listed = substituted.split() if "$" in word and not quoted else [substituted]
        _counted(count, len(listed), path, n)
        out.extend(listed)
    return out


# bash(1) REDIRECTION that leaves what a command does as it is: its output thrown away (`>/dev/null`,
# `&>/dev/null`, `1>/dev/null`), stderr sent anywhere (`2>FILE`, `2> "/var/log/x"`), a descriptor duplicated (`2>&1`),
# input from /dev/null (`< /dev/null`); a target may be quoted (`> '/dev/null'`). `echo V > FILE` writes the file and
# stays (`1>FILE` as `>FILE`: descriptor 1 is the output). A number is a descriptor only as a word of its own glued
# to the operator (`eth2>x` redirects the output of a command whose argument is `eth2`).
_TARGET = r"""(?:"[^"\\]*(?:\\.[^"\\]*)*"|'[^']*'|\\.|[^\s;&|<>"'\\])+"""
_NULL = r"""\s*(?:/dev/null|"/dev/null"|'/dev/null')(?![^\s;&|<>])"""
# (a quoted part or an escaped character first, kept as it is: what is in it is no redirection)
_REDIRECTION = lazy(r"""(\\.|"[^"\\]*(?:\\.[^"\\]*)*"|'[^']*')"""
                    rf"|(?:(?<![^\s;&|])[0-9]+|&)?>>?\|?(?:&[0-9-]+|{_NULL})"
                    rf"|(?<![^\s;&|])2>>?\s*{_TARGET}|(?:(?<![^\s;&|])[0-9]+)?(?<!<)<(?![<>&(]){_NULL}"
                    r"|(?<![^\s;&|])1(?=>)")
# (a double-quoted word's run of plain characters taken whole, not one alternation per character: 0.23 s per MB of
# quoted text was spent here, 0.008 s now; the same splits)
_QUOTED = lazy(r"(\"[^\"\\]*(?:\\.[^\"\\]*)*\"|'[^']*')")


def _without_redirections(line: str) -> str:
    """The line without the redirections that leave what its commands do unchanged (quoted text kept)."""
    if ">" not in line and "<" not in line:
        return line
    return _REDIRECTION.sub(lambda m: m.group(1) or ("" if m.group(0) == "1" else " "), line)


# bash(1) Parameter Expansion: `${1:?usage: setup.sh <iface>}`, `${2:-a b}` are one word, blanks, `<` and `;` included.
_BLANKS_AND_OPERATORS = lazy(r"[\s;&|<>()]")
_EXPANSION_STEP = lazy(r"\\.|\$'(?:[^'\\]|\\.)*'|'[^']*'|\"(?:[^\"\\]|\\.)*\"|\$\{|\}|[^\\'\"${}]+|.", re.S)


# _expansion_word's answers for one line: where a `${` starts -> (the scan's steps, the index of its first and past its
# last, where it ends on the line), joined only when asked for (a nested one's word is inside the outer's); None: it
# does not end on the line.
_Expansions = dict[int, tuple[list[str], int, int, int] | None]


def _expansion_word(line: str, i: int, memo: _Expansions) -> tuple[str, int] | None:
    """The `${...}` from ``i`` as one word (its unquoted blanks and operators escaped: its quotes and nested `${` are
    its own), and where it ends; None when it does not end on the line or holds a command substitution (folded as
    one, below). ``memo`` keeps the answer for each `${` the scan passes (a scan from one reads the same steps), so a
    line of unclosed `${` is read once, not once per `${` (quadratic: 8,000 of them took 46 s)."""
    if i not in memo:
        j, word = i, []
        opened: list[tuple[int, int]] = []  # (where a `${` the scan is in starts, its step's index in word)
        while opened or j == i:
            if j >= len(line):
                break
            step = _EXPANSION_STEP.match(line, j).group()  # type: ignore[union-attr]
            start, j = j, j + len(step)
            quoted = step[:1] in ("'", '"', "\\") or step.startswith("$'")
            if not quoted and ("$(" in step or "`" in step):  # (a newline in it: _logical_lines joined its lines)
                break
            word.append(step if quoted else _BLANKS_AND_OPERATORS.sub(r"\\\g<0>", step))
            if step == "${":
                opened.append((start, len(word) - 1))
            elif step == "}":
                at, k = opened.pop()
                memo[at] = word, k, len(word), j
        memo.update(dict.fromkeys((at for at, _ in opened), None))  # (each still open where the scan stopped)
        memo.setdefault(i, None)  # (the callers' ``i`` is a `${`: never left unset)
    found = memo[i]
    return None if found is None else ("".join(found[0][found[1]:found[2]]), found[3])


def _substitutions_folded(line: str, inner: list[str] | None = None) -> str:
    """The line with each unquoted command substitution (`$(...)`, nested ones and backticks too) as the one word
    `$(...)`: its output is known only at run time, and its `|`, `;` and spaces are not the line's (bash(1) Command
    Substitution). Quoted text is left as it is (`"$(ls /sys/class/net/IF/device/infiniband)"` names a device). The
    commands each substitution runs go to ``inner``."""
    inner = [] if inner is None else inner
    if "(" not in line and "`" not in line and "${" not in line:
        return line
    out, i, quote = [], 0, False
    expansions: _Expansions = {}
    while i < len(line):
        c = line[i]
        if c == "$" and not quote and line.startswith("${", i) and (expansion := _expansion_word(line, i, expansions)):
            out.append(expansion[0])
            i = expansion[1]
            continue
        if c == "\\":  # (an escaped character: `\'` opens no quote)
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == "'" and not quote:
            end = line.find("'", i + 1)
            end = len(line) - 1 if end < 0 else end
            out.append(line[i:end + 1])
            i = end + 1
            continue
        if c == "#" and not quote and (not i or line[i - 1] in " \t\n;&|("):  # a comment, to its line's end
            end = line.find("\n", i)
            end = len(line) if end < 0 else end
            out.append(line[i:end])
            i = end
            continue
        if c == '"':
            quote = not quote
        if quote and line.startswith("$(", i):  # (kept, unless a quote in it would end the word for the split)
            end = _scan(line, (1, False, "", []), i + 2, True)[1]
            if end < 0:  # (bash reads on to the end of the file for its `)`)
                raise ValueError("No closing parenthesis")
            out.append("$(...)" if '"' in line[i:end] else line[i:end])  # (whole: what is in it is not scanned again)
            out.append(_OWNED)
            inner.append(line[i + 2:end - 1])
            i = end
            continue
        arithmetic = line.startswith("((", i) and (not i or line[i - 1] in " \t;&|(!")
        if not quote and (c in "$<>" and line.startswith("(", i + 1) or c == "`" or arithmetic):
            # (in double quotes the split keeps it whole; `<(...)`, `>(...)`: bash(1) Process Substitution)
            if arithmetic:
                depth, j = 2, i + 2
                while j < len(line) and depth:
                    depth += {"(": 1, ")": -1}.get(line[j], 0)
                    j += 1
            else:
                depth, j = 0, line.find("`", i + 1) if c == "`" else _scan(line, (1, False, "", []), i + 2, True)[1]
            if depth or j < 0:  # (over lines up to the end of the file: see _logical_lines)
                raise ValueError("No closing parenthesis")
            out.append("((...))" if arithmetic else "$(...)" + _OWNED)
            if not arithmetic:
                inner.append(line[i + 1:j] if c == "`" else line[i + 2:j - 1])
            i = (j if c != "`" else (len(line) if j < 0 else j + 1))
            continue
        out.append(c)
        i += 1
    return "".join(out)


class _Grammar:
    """What splitting carries from one line to the next (bash(1) SHELL GRAMMAR): the opening words of the compound
    commands still open, and whether the next word is a case pattern (after `case W in` or a `;;`)."""

    __slots__ = ("open", "pattern", "condition", "function", "functions", "after", "ended", "braces", "expanded")

    def __init__(self, expanded: list[int] | None = None) -> None:
        self.open: list[str] = []
        self.pattern = False
        self.function = ""  # after a function's `name()`: the `{` (or `(`) of its body comes next
        self.functions: set[str] = set()  # (those defined in a list: `cleanup() { ...; }; trap cleanup EXIT`)
        self.after = ""  # the `&&` or `||` a line ends in: the next line's first command runs as the test says
        self.condition = False  # between `if`/`elif`/`while`/`until` and its `then`/`do`
        # per command the last split gave: the operator after it in its list (`&&`, `||`, `&`, `;`, a `|` into a
        # compound command), "" where the list ends, after a `!` where it is negated; a command substitution's
        # commands have their command's
        self.ended: list[str] = []
        self.braces = True  # (bash expands braces; dash, a Debian `#!/bin/sh`, does not: see commands)
        # the words brace expansions made so far in the file, its substitutions, `sh -c` strings and traps
        # (MAX_SCRIPT_BRACE_WORDS)
        self.expanded = [0] if expanded is None else expanded

    def command(self, first: str) -> None:
        """A command starting with ``first`` was read: an opening word opens, the closing word due closes."""
        if first in _OPENERS:
            self.open.append(first)
        elif self.open and _OPENERS[self.open[-1]] == first:
            self.open.pop()
            self.pattern = False


# What _ansi_c_folded steps over: an escaped character, a quoted word (a `"` one with its `$(...)` too, as bash reads
# `"$(echo ")")"` only roughly: the words of a substitution are split again, where this runs on them), an ANSI-C quoted
# word, a comment, plain characters.
_ANSI_C_STEP = lazy(r"\\.|'[^']*'|\"(?:[^\"\\]|\\.)*\"|\$'((?:[^'\\]|\\.)*)'|(?:^|(?<=[\s;&|(]))#[^\n]*|"
                    r"[^\\'\"$#]+|.", re.S)
# bash(1) QUOTING, ANSI-C Quoting: `$'...'` with its backslash escapes decoded (\xHH, \nnn, \uHHHH, \UHHHHHHHH, \cx;
# an unknown one is kept with its backslash).
_ANSI_C_ESCAPE = lazy(r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|"
                      r"U([0-9A-Fa-f]{1,8})|c(.))", re.S)
_ANSI_C_LETTERS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                   "v": "\v"}


def _ansi_c_char(m: re.Match) -> str:
    """One escape of a `$'...'` word as bash decodes it; a control character the reader uses as a mark (and NUL,
    where bash ends the word) is kept as written: it names no NIC, port or value."""
    letter, octal, hx, u4, u8, ctrl = m.groups()
    if letter is not None:
        return _ANSI_C_LETTERS.get(letter, letter)
    code = ord(ctrl) & 0x1F if ctrl is not None else int(octal, 8) & 0xFF if octal else int(hx or u4 or u8, 16)
    if code > 0x10FFFF or (code < 0x20 and chr(code) not in "\t\n") or 0xD800 <= code <= 0xDFFF:
        return m.group()
    return chr(code)


def _ansi_c_folded(line: str) -> str:
    """``line`` with each `$'...'` outside quotes and comments as the single-quoted word of its decoded text (bash(1)
    QUOTING: `$'it\\'s'` is the word `it's`, which shlex and the scans here would read as a quote left open)."""
    out, i = [], 0
    while i < len(line):
        m = _ANSI_C_STEP.match(line, i)
        assert m is not None
        i = m.end()
        if m.group(1) is None:
            out.append(m.group())
        else:
            out.append("'" + _ANSI_C_ESCAPE.sub(_ansi_c_char, m.group(1)).replace("'", "'\\''") + "'")
    return "".join(out)


def _split(line: str, grammar: _Grammar | None = None, level: int = 0) -> list[list[str]]:
    """The commands of one line, as bash(1) separates a list (`;`, `;;`, `&&`, `||`, `&`), each without the case
    pattern before it: `if [ -d X ]; then echo 1 > F; fi` runs `echo 1 > F`, and `eth0) mlnx_qos -i eth0 ... ;;`
    runs mlnx_qos (shlex.split would keep `F;` as the file and `eth0)` as the program). The reserved words that open,
    go on with or close a compound command (`then`, `do`, `else`, `{`, a subshell's `(` and `)`, `case W in`, `while`
    after a `|`) are commands of their own, so a block's structure can be followed (see _structure); ``grammar``
    carries what is open from line to line. Redirections that change nothing the command does are dropped first.
    ValueError where the shell could not split it (an open quote)."""
    grammar = grammar or _Grammar()
    out: list[list[str]] = [[]]

    def start(*words: str) -> None:  # a command of its own (a reserved word), then a new command
        if out[-1]:
            out.append([])
        for word in words:
            stray = word == ")" and grammar.open[-1:] != ["("]
            out[-1].append(word)
            grammar.command(word)
            out.append([])
            if stray:  # (a syntax error there, which _structure reports: `))))` past it makes no more of them)
                break

    # (shlex.shlex(line, posix=True, punctuation_chars=";&|<>"), linear: a 1 MiB word through shlex did not end)
    line = _ansi_c_folded(line) if "$'" in line else line
    line = _QUOTED_RESERVED.sub(_mark_reserved, line) if "'" in line or '"' in line else line
    inner: list[str] = []
    line = _substitutions_folded(line, inner)
    line = _parens_marked(line) if ("'" in line or '"' in line or "\\" in line) and _MARKABLE.search(line) else line
    line = _PAREN_HASH.sub(r"\1 #", line) if "#" in line else line
    closed = in_array = in_test = negated = False
    owners: list[int] = []  # (per command substitution of the line, in order: the command whose word holds it)
    ended: dict[int, str] = {}
    negations: set[int] = set()
    separator, token = grammar.after, ""  # (`[ -e F ] ||` with its `exit 1` on the next line)
    for token in split_shell(_without_redirections(line), ";&|<>", comments=True):
        cur = out[-1]
        if _OWNED in token:  # (the command it is a word of: the last one, where the word goes below)
            owners.extend([len(out) - 1] * token.count(_OWNED))
        if closed and token in ("|", "|&"):  # `( ... ) | cmd`: cmd reads the subshell's output
            _ended(out, ended, token)
            closed = False
            continue
        closed = False
        if in_test:  # bash(1) [[ expression ]]: its `&&`, `||`, `(`, `)` and `|` (in a =~ pattern) are its own
            cur.append(_word(token))
            in_test = token != "]]"
            continue
        if in_array:  # an array's words, up to its `)`: one word with them
            cur[-1] += " " + _word(token)
            in_array = ")" not in token
            continue
        if (not cur or cur[0] in _DECLARING) and _ARRAY_WORD.match(token):  # `local -a P=(a b)` in a list
            cur.append(_word(token))
            in_array = token.count("(") > token.count(")")
            continue
        if token in _SEPARATORS:
            _ended(out, ended, token)
            out.append([])
            separator = token
            if token.startswith(";;") or token == ";&":  # a case branch ends: a pattern (or `esac`) comes next
                grammar.pattern = bool(grammar.open) and grammar.open[-1] == "case"
                if grammar.pattern:
                    start(";;")  # (where a branch's commands end: see _rest_skipped)
            continue
        if token == "in" and not cur and grammar.open[-1:] == ["case"] and not grammar.pattern:
            grammar.pattern = True  # (`case WORD` with its `in` on the next line)
            continue
        if grammar.pattern and not cur:  # bash(1) case: `[(] pattern [| pattern]... )`, or the `esac` closing it
            if token.rstrip(")") == "esac":
                start("esac", *[")"] * (len(token) - 4))
            elif token.endswith(")"):
                grammar.pattern = False
            continue
        if cur and cur[-1] in ("|", "|&") and (token in _OPENERS or token.startswith("(")):
            cur.pop()  # `cmd | while read x; do`: the loop is a command of its own (cmd's output goes to it)
            _ended(out, ended, "|")
            out.append([])
            cur = out[-1]
        if token == "do" and cur[:1] in (["for"], ["select"]) and len(cur) == 2:  # `for NAME do`, `for ((...)) do`
            start("do")
            continue
        if cur in (["if"], ["elif"], ["while"], ["until"]):  # the condition: commands of their own, which run
            out.append([])  # (`if ! mlnx_qos -i IF --trust dscp; then`, `if { ...; }; then`, `while case ... esac`)
            cur = out[-1]
            grammar.condition = True
        if not cur and grammar.function and token in ("{", "("):  # a function's body (in a subshell: `name() (`)
            start(token)
            out[-2] += [_FUNCTION_BODY, grammar.function]
            grammar.function = ""
            continue
        if not cur:
            if token in ("then", "do", "else", "{"):  # the command after it is what runs
                grammar.condition = grammar.condition and token not in ("then", "do")
                if token == "{" and separator in ("&&", "||") and not negated:
                    out[-1].append(_GUARDED)  # (`setup || { ...; }`: what precedes is tested; see _calls)
                start(token)
                if token == "{" and negated:  # (`! { ...; }`: the group is tested; see _tested_blocks)
                    out[-2].append(_CONDITION)
                negated = False
                continue
            if token == "!" or _DEFINED.match(token):  # (`name()` in a list: the `{` after it opens its body)
                grammar.function = "" if token == "!" else token[:-2]
                negated = token == "!"  # bash(1) Pipelines: `! cmd` tests cmd (set -e ignores its failure)
                if grammar.function:
                    grammar.functions.add(grammar.function)
                continue
            grammar.function = ""
            bang, negated = negated and token not in ("exit", "exec", "return"), False
            if separator in ("&&", "||") and token not in _OPENERS and token[:1] != "(" and \
                    token.rstrip(")") not in _CLOSERS:
                out[-1].append(_GUARDED)  # (`[ -e F ] || exit 1`, `|| die`: runs as the test says; see _called)
            if token.endswith(")") and token.rstrip(")") in _CLOSERS:  # `done)`: the reserved word, then `)`
                start(token.rstrip(")"), *[")"] * (len(token) - len(token.rstrip(")"))))
                closed = True
                continue
            if _CASE_PATTERN.match(token) and not token.startswith("(") and "case" in grammar.open[-1:]:
                continue  # a pattern of a case whose header was not read as one
            if token.startswith("(") and not token.startswith("(("):  # bash(1) Compound Commands: `(list)`
                if separator in ("&&", "||") and not bang:
                    out[-1].append(_GUARDED)  # (`setup || (...)`: as a `{ }` group, above)
                start("(")
                if bang:
                    out[-2].append(_CONDITION)
                token = token[1:]
                if not token:
                    continue
            grammar.command(token)
            if (grammar.condition or bang) and token not in _OPENERS and token not in _BLOCK_WORDS:
                out[-1].append(_CONDITION)  # (a test: read only when it is a command that sets the NIC)
                if bang:
                    negations.add(len(out) - 1)
            in_test = token == "[["
        # A subshell's `)`, a word of its own or glued to the last word before it (`(cd /x; mlnx_qos ...)`); one that
        # closes no subshell is a syntax error there (bash(1) DEFINITIONS: `)` is an operator wherever it is unquoted,
        # but in `$(...)`, `((...))`, `${...}` and a function's `name()`)
        shut = _unbalanced(token) if ")" in token else 0
        if shut > 0:
            trailing = len(token) - len(token.rstrip(")"))
            if token[:len(token) - min(shut, trailing)]:
                out[-1].append(_word(token[:len(token) - min(shut, trailing)]))
            start(*[")"] * shut)
            closed = True
            continue
        out[-1].extend(_words(token, out[-1], grammar))
        if len(out[-1]) == 3 and out[-1][0] == "case" and token == "in":  # `case W in PATTERN) CMD ;;`
            out.append([])
            grammar.pattern = True
    grammar.after = token if token in ("&&", "||") else ""
    if out[-1] in (["if"], ["elif"], ["while"], ["until"]):  # (its condition on the lines below: tested too)
        grammar.condition = True
    own = [k for k, words in enumerate(out) if words]
    # Each substitution's commands run as the words of its own command are expanded, just before it (bash(1) SIMPLE
    # COMMAND EXPANSION): `f() { ...; }; x=$(f)` calls f after its definition, `x=$(a); y=$(b)` runs b after x's
    # assignment (one whose command is not known: ahead of the line's first)
    runs: dict[int | None, list[list[str]]] = {}
    for t, commands in enumerate(_substituted(inner, level, grammar)):
        owner = owners[t] if t < len(owners) and owners[t] < len(out) and out[owners[t]] else own[0] if own else None
        runs.setdefault(owner, []).extend(commands)
    result = runs.pop(None, [])
    grammar.ended = [""] * len(result)
    for k in own:
        ran = runs.get(k, [])
        result += [*ran, out[k]]
        grammar.ended += [ended.get(k, "")] * len(ran) + ["!" * (k in negations) + ended.get(k, "")]
    return result


def _ended(out: list[list[str]], ended: dict[int, str], operator: str) -> None:
    """The list operator after the last command of ``out`` (see _Grammar.ended)."""
    k = next((k for k in range(len(out) - 1, -1, -1) if out[k]), None)
    if k is not None:
        ended.setdefault(k, operator)


def _substituted(texts: list[str], level: int, outer: _Grammar) -> Iterator[list[list[str]]]:
    """Per command substitution of a line, the commands it runs, each marked _SUBSHELL (bash(1) SIMPLE COMMAND
    EXPANSION: a command's words are expanded before it runs): `out=$(mlnx_qos -i IF --trust dscp)` sets the NIC.
    Their here-documents are input (see _logical_lines), `$((...))` arithmetic; deeper than MAX_NESTING they are not
    looked into."""
    for text in texts:
        out: list[list[str]] = []
        if level < MAX_NESTING and not text.startswith("("):
            grammar = _Grammar(outer.expanded)
            grammar.braces = outer.braces
            for _, part in _logical_lines(text):
                try:
                    out += [[_SUBSHELL, *words] for words in _split(part, grammar, level + 1)]
                except ValueError:
                    continue
        yield out


# A reserved word quoted is a plain word (bash(1) RESERVED WORDS: recognized unquoted only): `"esac")` is a pattern.
# It is kept apart from the unquoted one by a NUL (no script holds one), dropped once the word is read.
_QUOTED_RESERVED = lazy(r"""(["'])(esac|fi|done|then|do|else|elif|if|case|for|while|until|select)\1"""
                        r"(?=[\s;&|)]|$)")


def _mark_reserved(m: re.Match) -> str:
    """(the word's start is looked at here: a look-behind ahead of the quote made the search try every character)"""
    at = m.start()
    return m.group(0) if at and m.string[at - 1] not in " \t\n;&|(" else f"{m.group(1)}\0{m.group(2)}{m.group(1)}"


# A `(` or `)` quoted or escaped is a plain character (bash(1) QUOTING), kept apart from the operator by a \2 or
# \3 (dropped once the word is read); an unquoted one right before a `#` is a word of its own (bash(1) COMMENTS:
# a `#` starting a word begins a comment, and `)` ends a word).
_PAREN_MARKS = str.maketrans("(){},|&;<>", "\2\3\4\5\6\x10\x11\x12\x13\x14")  # (braces, commas: brace expansion;
# operators: see _word)
_PAREN_HASH = lazy(r"(?<!\$\(\.\.\.)([()])#")


# A `$` in double quotes: its expansion is not split into words (bash(1) Word Splitting), kept apart by a \x16 before
# it in a `for` list (see _loop_words), dropped from every other word
_QUOTED_EXPANSION = "\x16"
_DOUBLE_QUOTED_MARKS = str.maketrans({**{chr(k): chr(v) for k, v in _PAREN_MARKS.items()},
                                      "$": _QUOTED_EXPANSION + "$"})
_MARKABLE = lazy(r"[(){},|&;<>]|\"[^\"]*\$")
_QUOTED_OR_ESCAPED = lazy(r"(\\.|\"[^\"\\]*(?:\\.[^\"\\]*)*\"|'[^']*')", re.S)


def _parens_marked(line: str) -> str:
    parts = _QUOTED_OR_ESCAPED.split(line)
    return "".join(part.translate(_DOUBLE_QUOTED_MARKS if part[:1] == '"' else _PAREN_MARKS) if k % 2 else part
                   for k, part in enumerate(parts))


# Parentheses of a word that are no operator: a command substitution (folded to `$(...)`), an arithmetic command
# (`((...))`), a parameter expansion (`${x%)}`), a function's `name()`.
_WORD_PARENS = lazy(r"\$\(\.\.\.\)|^\(\(.*\)\)$|\$\{[^}]*\}|^(?:function\s+)?[A-Za-z_][\w-]*\(\)$")
# An array given its words (bash(1) Arrays): `NAME=(`, `NAME+=(`, after `local -a` or `declare -A` too.
_ARRAY_WORD = lazy(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=\(")
_NAME = lazy(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DEFINED = lazy(r"^[A-Za-z_][\w-]*\(\)$")
_DECLARING = frozenset({"local", "declare", "typeset", "readonly", "export"})


def _unbalanced(token: str) -> int:
    """How many of the token's `)` close nothing opened in it."""
    bare = _WORD_PARENS.sub("", token)
    return bare.count(")") - bare.count("(")


def _word(token: str, listed: bool = False) -> str:
    """A word as the script wrote it (the marks _split put in taken out). A quoted word of operator characters only
    (`'|'`, `">"`) keeps its quotes: it is a word, not the pipe or redirection the reader looks for (bash(1)
    QUOTING). In a `for` list (``listed``) a quoted `$` keeps its mark (see _loop_words)."""
    if not _MARKED.search(token):
        return token
    if _OPERATOR_ONLY.match(token):
        return f"'{token.translate(_UNMARKS)}'"
    return token.translate(_UNMARKS_LISTED if listed else _UNMARKS)


def _words(token: str, cur: list[str], grammar: _Grammar) -> list[str]:
    """The words ``token`` makes as a word of the command ``cur``: bash(1) Brace Expansion (see braces.expand), but in
    an assignment (`X={a,b}` before the command) and a case word, which bash does not brace-expand."""
    listed = cur[:1] == ["for"] and cur[2:3] == ["in"]
    if "{" not in token or not grammar.braces or cur[:1] == ["case"] or (
            _ASSIGNMENT_WORD.match(token) and all(_ASSIGNMENT_WORD.match(w) or w.startswith("\0") for w in cur)):
        return [_word(token, listed)]
    try:
        words = expand(token)
        made = len(words)
    except InputError:  # (past MAX_BRACE_WORDS, or nested past MAX_NESTING: as written, known only at run time)
        words, made = [token], MAX_BRACE_WORDS
    grammar.expanded[0] += made
    if grammar.expanded[0] > MAX_SCRIPT_BRACE_WORDS:
        raise InputError(f"its brace expansions make more than {MAX_SCRIPT_BRACE_WORDS:,} words in all (bash(1) Brace "
                         "Expansion; a generated file?); not read")
    return [_word(w, listed) for w in words]


_MARKED = lazy("[\0\2-\6\x10-\x16]")
_OWNED = "\x15"  # (after a command substitution folded to `$(...)`: see _split)
_OPERATOR_ONLY = lazy("^[\x10-\x14]+$")
_UNMARKS_LISTED: dict[int, str | None]  # (_UNMARKS but the mark of a quoted `$`: below)
_UNMARKS = str.maketrans({"\0": None, "\2": "(", "\3": ")", "\4": "{", "\5": "}", "\6": ",", "\x10": "|",
                          "\x11": "&", "\x12": ";", "\x13": "<", "\x14": ">", _OWNED: None, _QUOTED_EXPANSION: None})
_UNMARKS_LISTED = {**_UNMARKS}
del _UNMARKS_LISTED[ord(_QUOTED_EXPANSION)]
_ASSIGNMENT_WORD = lazy(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=")


_FUNCTION_BODY = "\0function"  # (after the `{` opening a function's body: it runs when called, not where it is)
_SUBSHELL = "\0subshell"  # (before a command a command substitution runs: in a subshell of its own)
_CALL = "\0call"  # (before the words of a call of the script's own function)
_GUARDED = "\0guarded"  # (before an `exit`, `exec` or `return` after `&&` or `||`)
_LISTED = "\0listed"  # (before the _CALL of a call before `&&` or `||`)
_TESTED = "\0tested"  # (before a `break` or `continue` before `&&` or `||`)
# (the words after which the status stays that of the command before: a command substitution's, an exit's after `&&`
# or `||`, the reserved words of a compound command's head, `exit` and `return`, which give it)
_PIPED_INTO = "\0piped-into"  # ([_PIPED_INTO] after a command piped into the compound command after it; in
# ``functions``: the index of that command)
_CALL_SUBSHELLS = "\0call-subshells"  # (in ``functions``: per function call running, how many `( )` subshells were
# open as its body started: a `return` in one it opens ends that subshell)
_PIPE_LAST = "\0pipe-last"  # (in a _PIPED_GROUPS entry: the compound command is the pipeline's last part)
_AND_THEN = "\0and-then"  # ([_AND_THEN, index, why]: after a command before `&&`; where its status fails (why: a
# command known to fail), the commands `&&` runs are skipped to flat[index])
_NEGATION = "\0negation"  # ([_NEGATION] after a command `!` negates)
_BACKGROUND = "\0background"  # (after the words of a call run in the background: `f eth3 &`)
_KEEPS_STATUS = frozenset({_SUBSHELL, _GUARDED, _AND_THEN, _PIPED_INTO, _NEGATION, _FUNCTION_BODY, _HEREDOC_SHELL,
                           _OWN_SHELL,
                           _ARRAY_MARK, "exit", "return", "then", "do", "else", "elif", "if", "while", "until", "for",
                           "case", "select", "{", "(", ";;"})
_SEPARATORS = frozenset({";", ";;", ";;&", ";&", "&&", "||", "&"})  # (`;;&`, `;&`: bash 4's case fall-through)


def is_write(words: list[str]) -> bool:
    """A command that sets the host rather than shows it (a transcript's writes are read as a script's)."""
    prog = os.path.basename(words[0])
    return (prog == "echo" or (prog == "cma_roce_tos" and "-t" in words) or words[:3] == ["ip", "link", "set"]
            or (prog == "ethtool" and words[1:2] in (["-A"], ["--pause"])))


def rdma_device(arg: str) -> tuple[str, str | None]:
    """The -d argument of cma_roce_tos, or what it names when the script looks the device up at run time;
    and the interface it is looked up by (None for a device named as such)."""
    m = _RDMA_OF.search(arg)
    return (f"the RDMA device of {m.group(1)}", m.group(1)) if m else (arg, None)


def redirect(words: list[str]) -> tuple[str, str]:
    """`echo V > PATH` (or `>PATH`), or `echo V | [sudo] tee [-a] PATH` (how a non-root shell writes sysfs) ->
    (V, PATH)."""
    if words[0] != "echo":
        heredoc = any(w.startswith("<<") and not w.startswith("<<<") for w in words)
        target = next((w.lstrip(">") or nxt for w, nxt in zip(words, [*words[1:], ""], strict=True)
                       if w.startswith(">")), "")
        if heredoc and target:  # (its body was not read as commands: see _logical_lines)
            raise Skip(f"`{words[0][:40]}` writes the here-document below it to {target[:80]}: a file the script "
                       "writes is not followed, so the commands in it are not read (lint that file on its own)")
        raise Skip(f"`{words[0][:40]}` is not a command losslessd reads (mlnx_qos, ip link ... mtu, ethtool -A, "
                   "cma_roce_tos, `echo VALUE > FILE`)")
    rest = [w for w in words[1:] if w != "-n"]  # echo -n: the same value without the newline
    if len(rest) == 3 and rest[1] in (">", ">>"):  # (appending to a sysfs file writes it too)
        return rest[0], rest[2]
    if len(rest) == 2 and rest[1].startswith(">") and len(rest[1]) > 1:
        return rest[0], rest[1][1:]
    tee = [w for w in unwrap(rest[2:]) if w not in ("-a", ">", "/dev/null")]  # (`sudo -E tee`: see wrappers)
    if len(rest) >= 4 and rest[1] == "|" and tee[:1] == ["tee"] and len(tee) == 2:
        return rest[0], tee[1]
    raise Skip("not an `echo VALUE > FILE` line")


# What a word holds that the shell only knows at run time: `$NAME`, `${...}`, `$(...)` (a command substitution
# folded to one word), a backtick's output, `$1`, `$@`.
_RUN_TIME_PART = lazy(r"\$\{[^}]*\}|\$\([^)]*\)+|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|`[^`]*`?"
                      r"|\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")  # (and a brace expression left as written)


def at_run_time(word: str) -> bool:
    """Whether the word holds a part the shell only knows at run time (a variable not given a literal value), or a
    brace expression left as written: `#!/bin/sh` is dash on Debian (no brace expansion) but bash on RHEL, so
    `ens1f{0,1}np0` there names no port known before it runs; past MAX_BRACE_WORDS, bash's words are not listed."""
    return "$" in word or "`" in word or holds_expression(word)


def run_time_pattern(path: str) -> Regex:
    """The files ``path`` may name once its run-time parts are known: each part any text (a variable may hold
    `eth0` or `/sys/class/net/eth0`). Matched in linear time (losslessd.userre: `$a-$b-$c...` as `.*-.*-.*...` in
    Python's `re` took minutes on a name of many dashes)."""
    parts = _RUN_TIME_PART.split(path)
    try:
        return compile_linear("(?s)" + ".*".join(re.escape(part) for part in parts))
    except ValueError as exc:  # (RE2's memory budget: a path of thousands of run-time parts)
        raise Skip(f"`{path[:80]}`: {exc}") from None


def run_time_sample(path: str) -> str:
    """``path`` with each run-time part a `1` (what a device or port number there may be)."""
    return _RUN_TIME_PART.sub("1", path)


def ip_link_mtu(words: list[str]) -> tuple[str, int | None]:
    """`ip link set [dev] IF mtu N` -> (IF, N) (iproute2 ip-link(8)); N None when known only at run time (`$MTU`)."""
    rest = words[3:] if words[:3] == ["ip", "link", "set"] else []
    if rest[:1] == ["dev"]:
        rest = rest[1:]
    if len(rest) == 3 and rest[1] == "mtu" and (is_small_int(rest[2], 6) or at_run_time(rest[2])):
        return rest[0], None if at_run_time(rest[2]) else int(rest[2])
    raise Skip("only `ip link set dev IF mtu N` is read")


# The options mlnx_qos takes, each with a value (mlnx-tools python/mlnx_qos: its optparse OptionParser), and `-a`, a
# switch; optparse refuses the whole call on any other option (exit 2, nothing set) and takes an unambiguous prefix of
# a long one (`--cable` for `--cable_len`). `-F/--specific_pfc` and `-P/--get_pfc` came with mlnx-tools commit 227c7ab
# (2024: MLNX_OFED 24.x, DOCA); an older mlnx_qos refuses them, as it refuses any option it lacks.
_MLNX_QOS_SHORT = {"-i": "--interface", "-f": "--pfc", "-p": "--prio_tc", "-s": "--tsa", "-t": "--tcbw", "-d": "--dcbx",
                   "-r": "--ratelimit", "-F": "--specific_pfc", "-P": "--get_pfc"}
_MLNX_QOS_LONG = ("--interface", "--pfc", "--prio_tc", "--tsa", "--tcbw", "--dcbx", "--ratelimit", "--trust",
                  "--dscp2prio", "--defltprio", "--cable_len", "--prio2buffer", "--buffer_size", "--specific_pfc",
                  "--get_pfc")


# optparse's own options (mlnx_qos gives OptionParser a version): each prints and exits 0.
_MLNX_QOS_SHOWS = ("--help", "--version")
# bash(1) REDIRECTION operators left as words (see _without_redirections), each with its target after it.
_REDIRECTS = frozenset({">", ">>", ">|", "<", "<>"})


class Shown(Skip):
    """An mlnx_qos call that only prints (--help, --version) and exits 0."""


def _mlnx_qos_long(name: str) -> str:
    """The mlnx_qos option a long name stands for, as optparse matches it (exact, else the one it begins)."""
    if name in _MLNX_QOS_LONG or name in _MLNX_QOS_SHOWS:
        return name
    hits = [o for o in (*_MLNX_QOS_LONG, *_MLNX_QOS_SHOWS) if o.startswith(name)]
    if len(hits) != 1:
        what = f"{name} is ambiguous ({', '.join(hits)})" if hits else f"mlnx_qos takes no option {name}"
        raise Skip(f"{what}: mlnx_qos refuses the whole call, so it sets nothing")
    return hits[0]


def mlnx_qos_options(args: list[str]) -> list[tuple[str, str]]:
    """(option, value) pairs in command-line order, long names, as optparse reads them (`--opt=value`, `--opt value`,
    `-ieth0`, `-i eth0`, `-ai eth0`, `--` ending the options); raises Skip where mlnx_qos sets nothing: an option it
    does not take or one without its value (optparse exits 2), a word that is no option ("Bad arguments", exit 1),
    `--help`/`-h`/`--version` (it prints and exits 0: Shown). A redirection's words are the shell's, not its own."""
    out: list[tuple[str, str]] = []
    words: list[str] = []  # (optparse's leftover arguments)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in _REDIRECTS:  # (`> "/var/log/qos.log"`, `< FILE`: bash opens the file; mlnx_qos never sees them)
            i += 1
        elif arg == "--":
            words += args[i:]
            break
        elif arg.startswith("--"):
            name, eq, value = arg.partition("=")
            name = _mlnx_qos_long(name)
            if name in _MLNX_QOS_SHOWS:
                if eq:
                    raise Skip(f"{name} takes no value: optparse refuses the call (exit 2), so it sets nothing")
                raise Shown(f"`mlnx_qos {name}` prints its {name[2:]} and exits 0; it sets nothing")
            if not eq:
                value, i = _optparse_value(args, i, arg)
            out.append((name, value))
        elif arg.startswith("-") and arg != "-":
            for at, letter in enumerate(arg[1:], 2):
                if letter == "a":  # (show all TCs: a switch without a value)
                    continue
                if letter == "h":
                    raise Shown("`mlnx_qos -h` prints its help and exits 0; it sets nothing")
                if (option := _MLNX_QOS_SHORT.get(f"-{letter}")) is None:
                    raise Skip(f"{arg!r}: mlnx_qos takes no option -{letter}; optparse refuses the whole call "
                               "(exit 2), so it sets nothing")
                value, i = (arg[at:], i) if at < len(arg) else _optparse_value(args, i, f"-{letter}")
                out.append((option, value))
                break
        else:
            words.append(arg)
    if words:  # (mlnx-tools python/mlnx_qos: `if len(args) > 0: print("Bad arguments")`)
        raise Skip(f"{words[0]!r} is no option: mlnx_qos takes none but its options (`ens{{1,2}}f0np0` expands to "
                   "two words), prints \"Bad arguments\" and exits 1, so it sets nothing")
    return out


def mlnx_qos_refuses(args: list[str]) -> str | None:
    """Why mlnx_qos exits non-zero before it sets anything (see mlnx_qos_options; and without -i, "Interface name is
    required": exit 1), or None where it runs (what it then does with the values is not known here)."""
    try:
        options = mlnx_qos_options(args)
    except Shown:
        return None
    except Skip as exc:
        return str(exc)
    if "--interface" not in dict(options):
        return "no -i: it prints \"Interface name is required\" and exits 1"
    return None


def _optparse_value(args: list[str], i: int, name: str) -> tuple[str, int]:
    """The value of an option given apart (optparse takes the next word, whatever it is), and the index after it."""
    if i >= len(args):
        raise Skip(f"{name} has no value: optparse refuses the call (exit 2), so it sets nothing")
    return args[i], i + 1


def _eight(value: str, hi: int, what: str) -> list[int]:
    items = value.split(",")
    if len(items) != 8 or not all(is_small_int(v, 3) and int(v) <= hi for v in items):
        raise Skip(f"{what} {value!r} is not 8 comma separated values 0-{hi}")
    return [int(v) for v in items]


def known_at_run_time(options: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[str]]:
    """The options whose values the script states, and the names of those it computes at run time
    (`--pfc ${pfc_queue}`, `--trust=$MODE`): what those set is unknown, what the others set is read."""
    later = [name for name, value in options if at_run_time(value)]
    names = [name for name, _ in options]
    if "--get_pfc" in names or "--specific_pfc" in names:
        # mlnx-tools 227c7ab: -P/-F exit after --dcbx and --cable_len whatever their value (-P, a query that sets
        # nothing, wins over -F), so the call's other options are never applied; the exit stays in the known options
        # (apply_mlnx_qos takes its run-time value as unknown).
        exit_ = "--get_pfc" if "--get_pfc" in names else "--specific_pfc"
        return ([(name, value) for name, value in options if name == exit_ or name in ("--dcbx", "--cable_len")
                 and name not in later], [name for name in later if name in ("--dcbx", "--cable_len", exit_)
                                          and name != "--get_pfc"])
    return [(name, value) for name, value in options if name not in later], later


# What a peer may give a port whose DCBX the NIC's firmware runs, willing (IEEE 802.1Qaz DCBX: a willing port takes its
# peer's configuration): its PFC, ETS and application (DSCP) settings, as the mlnx_qos options naming them.
PEER_SETS = ["--pfc", "--prio_tc", "--tsa", "--dscp2prio", "--trust"]
# What a port whose DCBX the NIC's firmware runs, willing, leaves unknown (mlx5 en_dcbnl.c mlx5e_dcbnl_set_dcbx_mode).
PEER_TAKES = ("it takes the PFC, ETS and application settings its peer advertises, so PFC priorities, priority->TC "
              "map, schedulers, DSCP map and trust are unknown from here")


def forget(port, names: list[str], src: Source) -> None:
    """What each option of ``names`` sets on ``port``, made unknown: the script sets it to a value known only at
    run time (after what an earlier line set)."""
    for name in names:
        if name in ("--pfc", "--specific_pfc"):
            port.pfc_enabled, port.pfc_source = None, src
        elif name == "--cable_len":
            port.cable_length_m = None
        elif name == "--trust":
            port.trust, port.trust_source = None, src
        elif name == "--dscp2prio":
            port.dscp_to_priority, port.map_source = None, src
        elif name == "--prio_tc":
            port.priority_to_tc, port.map_source = None, src
        elif name == "--prio2buffer":
            port.priority_to_pg = None
        elif name == "--buffer_size":
            port.priority_groups = {}
        elif name in ("--tsa", "--tcbw"):
            for queue in port.queues.values():
                queue.scheduler = None
        elif name == "--dcbx":  # (DCBX handed to the firmware: what a willing port's peer may set)
            forget(port, PEER_SETS, src)


_BUFFER_SIZES = lazy(r"\d{1,12}(,\d{1,12}){7},?")


def apply_mlnx_qos(port, options: list[tuple[str, str]], src: Source) -> None:
    """Set ``port`` as one `mlnx_qos` call would (mlnx-tools python/mlnx_qos); raises Skip, changing nothing,
    when mlnx_qos would refuse the call."""
    opts = dict(options)
    if "--trust" in opts and "--dscp2prio" in opts:
        raise Skip("mlnx_qos refuses --trust and --dscp2prio in one call")
    if "--trust" in opts and opts["--trust"] not in ("dscp", "pcp"):
        raise Skip(f"--trust {opts['--trust']!r} is neither dscp nor pcp")
    if "--dcbx" in opts and opts["--dcbx"] not in ("fw", "os"):  # (mlnx_qos --dcbx: fw or os)
        raise Skip(f"--dcbx {opts['--dcbx']!r} is neither fw nor os")
    pfc = _eight(opts["--pfc"], 1, "--pfc") if "--pfc" in opts else None
    cable = opts.get("--cable_len")
    if cable is not None and not (is_small_int(cable, 5) and int(cable) <= 0xFFFF):
        raise Skip(f"--cable_len {cable!r} is not a length in metres")
    lists = {name: _eight(opts[name], hi, name) for name, hi in (("--prio_tc", 7), ("--prio2buffer", 7))
             if name in opts}
    dscp2prio = [_dscp2prio(value) for name, value in options if name == "--dscp2prio"]
    sizes = opts.get("--buffer_size")
    if sizes is not None and not _BUFFER_SIZES.fullmatch(sizes):
        raise Skip(f"--buffer_size {sizes!r} is not 8 comma separated byte counts")
    tsa = opts.get("--tsa")
    if tsa is not None and (len(tsa.split(",")) > 8 or not set(tsa.split(",")) <= set(_TSA)):
        raise Skip(f"--tsa {tsa!r} is not a list of strict, ets and vendor")
    weights = _eight(opts["--tcbw"], 100, "--tcbw") if "--tcbw" in opts else None

    if cable is not None and int(cable):
        port.cable_length_m = float(cable)
    if "--get_pfc" in opts or "--specific_pfc" in opts:
        # mlnx-tools 227c7ab: after --dcbx and --cable_len, `-P N` prints priority N's PFC bit and `-F LIST` sets the
        # priorities written 0 or 1 (`x` keeps one), each then exits: the call's other options are not applied.
        _specific_pfc(port, opts, src)
        return
    if pfc is not None:
        # The kernel keeps the cable length when --cable_len is absent (delay 0: mlx5 en_dcbnl.c
        # mlx5e_dcbnl_ieee_setpfc).
        port.pfc_enabled, port.pfc_source = [prio for prio, bit in enumerate(pfc) if bit], src
    elif cable is not None:
        # --cable_len alone: an mlnx_qos before mlnx-tools 83b87d9 (2024) sent it in one PFC set with every enable bit
        # 0, a later one keeps the enabled priorities; which one the host runs is not in the script.
        port.pfc_enabled, port.pfc_source = None, src
    if "--trust" in opts:
        port.trust, port.trust_source = Trust(opts["--trust"]), src
    for action, dscp, prio in dscp2prio:
        if port.dscp_to_priority is None:
            # NVIDIA MLNX_OFED user manual, mlnx_qos `--dscp2prio set,<dscp>,<prio>`: one DSCP's priority is set, the
            # others keep theirs, which this input does not show.
            port.dscp_to_priority_partial = True
        mapping = dict(port.dscp_to_priority or {})
        if action == "set":
            mapping[dscp] = prio
        else:  # del/flush: back to a default that depends on the driver's interface (netlink or sysfs)
            for key in ([dscp] if action == "del" else list(mapping)):
                mapping.pop(key, None)
        port.dscp_to_priority, port.map_source = dict(sorted(mapping.items())), src
    if "--prio2buffer" in lists:
        port.priority_to_pg = dict(enumerate(lists["--prio2buffer"]))
    if "--prio_tc" in lists:
        port.priority_to_tc, port.map_source = dict(enumerate(lists["--prio_tc"])), port.map_source or src
    if sizes is not None:
        port.priority_groups = {i: PriorityGroup(index=i, size_bytes=int(size), source=src)
                                for i, size in enumerate(sizes.rstrip(",").split(","))}
    if tsa is not None or weights is not None:
        for tc, name in enumerate(tsa.split(",") if tsa else []):
            queue = port.queues.setdefault(tc, Queue(index=tc, source=src))
            queue.scheduler = Scheduler(type=_TSA[name], source=src)
        for tc, weight in enumerate(weights or []):
            queue = port.queues.setdefault(tc, Queue(index=tc, source=src))
            queue.scheduler = queue.scheduler or Scheduler(source=src)
            queue.scheduler.weight = weight if queue.scheduler.type in (SchedulerType.ets, None) else None


def _specific_pfc(port, opts: dict[str, str], src: Source) -> None:
    """`mlnx_qos -P N` (a query: sets nothing) or `-F LIST` (8 items, each 0, 1 or x; -P wins when both are given)."""
    if "--get_pfc" in opts:
        if opts["--get_pfc"] not in [str(n) for n in range(8)] and not at_run_time(opts["--get_pfc"]):
            raise Skip(f"--get_pfc {opts['--get_pfc']!r} is not a priority 0-7 (mlnx_qos then exits)")
        return
    if at_run_time(opts["--specific_pfc"]):  # (a list known only at run time: any priority may change)
        port.pfc_enabled, port.pfc_source = None, src
        return
    items = opts["--specific_pfc"].split(",")
    if len(items) != 8 or not set(items) <= {"0", "1", "x"}:
        raise Skip(f"--specific_pfc {opts['--specific_pfc']!r} is not 8 comma separated values 0, 1 or x "
                   "(mlnx_qos then exits)")
    if port.pfc_enabled is None and "x" in items:
        port.pfc_source = src  # (the priorities kept are not known, so neither is the result)
        return
    on = set(port.pfc_enabled or ())
    for prio, item in enumerate(items):
        if item != "x":
            on = on | {prio} if item == "1" else on - {prio}
    port.pfc_enabled, port.pfc_source = sorted(on), src


def _dscp2prio(value: str) -> tuple[str, int | None, int | None]:
    """`set,DSCP,PRIO`, `del,DSCP,PRIO` or `flush` (mlnx_qos --dscp2prio)."""
    if value == "flush":
        return "flush", None, None
    parts = value.split(",")
    if len(parts) != 3 or parts[0] not in ("set", "del") or not all(is_small_int(p, 3) for p in parts[1:]) \
            or int(parts[1]) > 63 or int(parts[2]) > 7:
        raise Skip(f"--dscp2prio {value!r} is not set,DSCP,PRIO (DSCP 0-63, priority 0-7)")
    return parts[0], int(parts[1]), int(parts[2])
