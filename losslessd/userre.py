"""Regular expressions that come from input, matched by RE2 in time linear in the text.

Python's `re` backtracks and has no timeout: a policy's `description_regex: ^(\\w+\\s?)*-roce$` ran for minutes on a
description of 30 letters and `!` (hostile round 13), and so did a chain of `.*` built from a Junos interface-range
member (`et-*0*0*0...`) or from a host script's run-time parts (`$a-$b-$c...`) on a near miss. RE2 (google-re2) runs
an automaton: its time grows with the text's length times the pattern's size, never exponentially, and a pattern
whose automaton would pass RE2's memory budget (8 MiB) is refused when compiled. What needs backtracking RE2 has
not (lookaround, backreferences, atomic groups, possessive repeats): such a pattern is refused where it is read."""

from __future__ import annotations

import functools
import re
import warnings
from typing import Any

# What Python's `re` reads and RE2 refuses, said when a pattern is one of them
_RE2_LACKS = ("losslessd matches patterns from input in linear time (RE2), without what needs backtracking, whose "
              "time can grow exponentially: no lookaround (?= (?! (?<= (?<!, backreferences \\1 (?P=name), atomic "
              "groups or possessive repeats; nor (?x); \\z for \\Z; repeats up to 1000 (docs/policy.md)")


class Regex:
    """A pattern compiled by RE2. ``search``/``fullmatch`` say whether it matches ``text`` (any str: a lone surrogate
    of a port name read from JSON is matched as its bytes, not refused)."""

    __slots__ = ("_re",)

    def __init__(self, compiled: Any) -> None:
        self._re = compiled

    def search(self, text: str) -> bool:
        return self._re.search(text.encode("utf-8", "surrogatepass")) is not None

    def fullmatch(self, text: str) -> bool:
        return self._re.fullmatch(text.encode("utf-8", "surrogatepass")) is not None


@functools.cache
def _re2() -> tuple[Any, Any]:
    """The re2 module and its options, imported at the first pattern (2.5 ms: most lints have none)."""
    import re2

    options = re2.Options()
    options.log_errors = False  # (RE2 would print each refusal on stderr; the caller says it, with its file and line)
    return re2, options


def compile_linear(pattern: str) -> Regex:
    """``pattern`` compiled by RE2; ValueError saying why when RE2 refuses it."""
    re2, options = _re2()
    try:
        return Regex(re2.compile(pattern.encode("utf-8"), options))
    except UnicodeEncodeError as exc:
        raise ValueError(f"not a valid regular expression: it holds a lone surrogate ({pattern[exc.start]!r}), "
                         "which is no character") from None
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
    with warnings.catch_warnings():  # (`re` warns of a possible nested set `[[`)
        warnings.simplefilter("ignore")
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError, ValueError) as exc:  # re.error names the position
            raise ValueError(f"not a valid regular expression: {exc}") from None
    raise ValueError(f"not a regular expression RE2 accepts ({reason}): {_RE2_LACKS}")


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused (compile_linear), or None when it is accepted."""
    try:
        compile_linear(pattern)
    except ValueError as exc:
        return str(exc)
    return None
