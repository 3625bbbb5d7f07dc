"""The shell around `nv set` lines in a script: its expansions, and the variables it sets to a known value.

An operator's setup script writes `PORTS=swp1-4` once and `nv set interface $PORTS ...` after it. bash fills `$PORTS`
in when it runs (bash(1), EXPANSION); where the script itself set it earlier, at its top level, to a plain literal, the
value is known and the line is read with it. A variable set in a loop, a function, a conditional, by a command (`read`,
`for`, `$(...)`), in a subshell or anywhere in another way stays a run-time value: the line is named, not guessed.
A here-document's lines are its command's input (bash(1), Here Documents), not commands of the script.
"""

from __future__ import annotations

from collections.abc import Callable

from ...lazyre import lazy
from ...records import record
from ..base import SHELL_SPACE, heredoc_ends, split_shell

# A shell parameter or command substitution (bash(1), EXPANSION): `$NAME`, `${...}`, `$(...)`, `$1`.
# (bash(1) special parameters too: $$, $!, $-)
_DOLLAR = lazy(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}?|\([^)]*\)?|[0-9@*#?$!-])")
_BACKTICK = lazy(r"`[^`]*`?")  # bash(1), Command Substitution: the old form
# `$NAME` / `${NAME}`: the forms a plain variable is read in (`${NAME:-x}` and the like stay run-time).
_PLAIN_REF = lazy(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$")


@record(frozen=True)
class Expansion:
    start: int
    end: int
    text: str
    quoted: bool  # inside double quotes (no word splitting, no globbing)


def expansions(line: str) -> list[Expansion]:
    """The expansions bash makes in ``line`` (bash(1), QUOTING: none inside single quotes; `\\$` is a plain `$`;
    within double quotes `'` is a plain character). A `#` that starts a word outside quotes starts a comment (bash(1),
    COMMENTS): nothing after it is expanded."""
    out: list[Expansion] = []
    if "$" not in line and "`" not in line:  # (most lines: not read character by character)
        return out

    def expansion(i: int, ch: str, quote: str) -> int | None:
        m = (_DOLLAR if ch == "$" else _BACKTICK).match(line, i) if quote != "'" else None
        if m:
            out.append(Expansion(i, m.end(), m.group(0), quote == '"'))
            return m.end()  # (what it holds is its own: not scanned for quotes)
        return None
    _scan(line, "$`", expansion)
    return out


def _scan(text: str, wanted: str, seen: Callable[[int, str, str], int | None]) -> None:
    """Calls ``seen(index, character, quote open there)`` for each character of ``wanted`` in ``text`` that is not
    escaped (bash(1), QUOTING: `\\` takes the next character as it is, but in single quotes; within double quotes `'`
    is a plain character), up to a `#` that starts a word outside quotes (bash(1), COMMENTS); ``seen`` returns the
    index to go on from, or None for the next character. The scanner of expansions and _bare_parens."""
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if ch == "#" and not quote and (i == 0 or text[i - 1] in SHELL_SPACE):
            return
        if ch in "'\"" and quote in ("", ch):
            quote = "" if quote else ch
        elif ch in wanted and (going := seen(i, ch, quote)) is not None:
            i = going
            continue
        i += 1


# Builtins that set the variables they name (bash(1), SHELL BUILTIN COMMANDS); `export NAME` and `readonly NAME`
# without a value keep it.
_WRITERS = {"read", "unset", "local", "declare", "typeset", "mapfile", "readarray", "let", "getopts", "printf"}
_KEEPERS = {"export", "readonly"}
# Commands that may set any variable: after them no earlier value is known.
_ANYTHING = {"source", ".", "eval"}
# bash(1), SHELL GRAMMAR, Compound Commands: the words that open a block and those that close one.
_OPENERS = {"if", "for", "while", "until", "select", "case", "{"}
_CLOSERS = {"fi", "done", "esac", "}"}
_KEYWORDS = {"then", "do", "else", "elif", "!", "time"}  # a command follows them
_ASSIGNMENT = lazy(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=")
_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_LIST = lazy(r"[;&|()<>]")  # bash(1) metacharacters that end a command or redirect it
# The characters of a value that reads as itself where it is put unquoted: no blank (word splitting) and no `*?[`
# (pathname expansion, bash(1) EXPANSION).
_SAFE_UNQUOTED = lazy(r"[^\s*?\[]*")


@record(frozen=True)
class Line:
    """What a script line does to its variables: the plain literal it assigns at top level (name, value), whether it
    runs inside a function body, whether it may set anything (`source`, `eval`); and the here-documents it opens
    (delimiter, whether `<<-` lets the end line start with tabs), whose lines follow it in that order."""

    plain: tuple[str, str] | None = None
    in_function: bool = False
    anything: bool = False
    heredocs: tuple[tuple[str, bool], ...] = ()


_AT_TOP, _IN_FUNCTION = Line(), Line(in_function=True)  # what a plain command does (most lines: made once)


class Tracker:
    """Follows a script's blocks line by line (``line(text)``) and collects the variables it writes other than by a
    plain top-level assignment (``written``). Heuristic where bash is not: a block the tracker misreads leaves it
    deeper, and then no later assignment is plain (a value is named, never guessed)."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # "block" | "function" | "subshell" (`( ... )`, `$( ... )`)
        self.written: set[str] = set()
        self.function_next = False  # `f()` or `function f` was read: the next `{` opens a function body

    def line(self, text: str, words: list[str]) -> Line:
        """``text``'s effect; ``words`` its words as split_shell gives them with comments (a plain `nv set` line, the
        most of a script, is then not split again)."""
        in_function = "function" in self.stack
        if words[:1] in (["nv"], ["sudo"]) and not _LIST.search(text):
            return _IN_FUNCTION if in_function else _AT_TOP
        try:
            words = split_shell(text, ";&|()<>", comments=True)
        except ValueError:
            words = text.split()
        top = not self.stack and not self.function_next
        if top and len(words) in (1, 2) and (len(words) == 1 or words[0] in _KEEPERS):
            m = _ASSIGNMENT.match(words[-1])
            value = words[-1][m.end():] if m else ""
            if m and not m.group(2) and not m.group(0).endswith("+=") and not value.startswith("~") \
                    and not expansions(text):
                return Line(plain=(m.group(1), value))
        arithmetic = anything = False
        cmd: list[str] = []
        words = [*words, ";"]
        parens = _bare_parens(text)  # (a `(` quoted, `echo "("`, is a word, no subshell)
        k = 0
        while k < len(words):
            w = words[k]
            k += 1
            if w and all(c in ";&|()<>" for c in w):
                if "((" in w:
                    arithmetic = True
                anything |= self._command(cmd, arithmetic)
                if parens and not arithmetic:
                    self._subshells(w)
                if "))" in w:
                    arithmetic = False
                if w == "()" and len(cmd) == 1:
                    self.function_next = True
                cmd = []
                if w.endswith("<<") and not w.endswith("<<<") and not arithmetic and k < len(words) - 1 \
                        and not all(c in ";&|()<>" for c in words[k]):
                    k += 1  # `<<WORD`, `<<-WORD` (bash(1), Here Documents): not a word of the command
            else:
                cmd.append(w)
        return Line(in_function=in_function, anything=anything, heredocs=tuple(heredoc_ends(text)))

    def _subshells(self, marks: str) -> None:
        """`(` opens a subshell, as `$(` does (its assignments stay in it, bash(1), COMMAND EXECUTION ENVIRONMENT);
        `)` closes one (a `case` pattern's `)` closes none)."""
        for c in marks:
            if c == "(":
                self.stack.append("subshell")
            elif c == ")" and self.stack[-1:] == ["subshell"]:
                self.stack.pop()

    def _command(self, cmd: list[str], arithmetic: bool) -> bool:
        """Reads one simple command (its leading keywords open or close blocks); True when it may set anything."""
        if arithmetic:  # `(( P = 3 ))`, `for ((i = 0; ...))`: any name in it may be set
            self.written.update(n for w in cmd for n in _NAME.findall(w))
            return False
        i = 0
        while i < len(cmd):
            w = cmd[i]
            if w in _KEYWORDS:
                i += 1
            elif w == "function" and i + 1 < len(cmd):
                self.function_next = True
                i += 2
            elif w in _OPENERS:
                self.stack.append("function" if w == "{" and self.function_next else "block")
                self.function_next = False
                if w in ("for", "select", "case"):  # the rest is a list of words, not a command
                    if w != "case" and i + 1 < len(cmd) and _NAME.fullmatch(cmd[i + 1]):
                        self.written.add(cmd[i + 1])
                    return False
                i += 1
            elif w in _CLOSERS:
                if self.stack:
                    self.stack.pop()
                i += 1
            else:
                break
        rest = cmd[i:]
        while rest and (m := _ASSIGNMENT.match(rest[0])):  # `P=1 cmd`, or an assignment not plain
            self.written.add(m.group(1))
            rest = rest[1:]
        if not rest:
            return False
        if rest[0] in _ANYTHING:
            return True
        if rest[0] in _WRITERS or rest[0] in _KEEPERS:
            for w in rest[1:]:
                m = _ASSIGNMENT.match(w)
                if m:
                    self.written.add(m.group(1))
                elif rest[0] in _WRITERS and _NAME.fullmatch(w):
                    self.written.add(w)
        return False


def _bare_parens(text: str) -> bool:
    """Whether ``text`` holds a `(` or `)` neither quoted nor escaped (bash(1), QUOTING), before a comment."""
    if "(" not in text and ")" not in text:
        return False
    found: list[int] = []

    def paren(i: int, ch: str, quote: str) -> int | None:
        if quote:
            return None
        found.append(i)
        return len(text)  # (the first is enough)
    _scan(text, "()", paren)
    return bool(found)


_SHELL_SPECIAL = lazy(r'(["\\$`])')


def substitute(line: str, found: list[Expansion], known: dict[str, str]) -> str | Expansion:
    """``line`` with each of its expansions ``found`` replaced by the literal ``known`` gives its variable, quoted so
    that the words come out as bash makes them; or the first expansion that has no known value."""
    out, at = [], 0
    for exp in found:
        m = _PLAIN_REF.match(exp.text)
        name = m and (m.group(1) or m.group(2))
        value = known.get(name) if name else None
        if value is None or (not exp.quoted and not _SAFE_UNQUOTED.fullmatch(value)):
            return exp
        if exp.quoted:
            text = _SHELL_SPECIAL.sub(r"\\\1", value)
        else:
            text = "'" + value.replace("'", "'\\''") + "'" if value else ""  # (an empty unquoted value is no word)
        out.append(line[at:exp.start] + text)
        at = exp.end
    return "".join(out) + line[at:]
