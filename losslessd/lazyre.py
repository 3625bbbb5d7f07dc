"""Regular expressions compiled when first used, not when their module is imported.

A parser module holds tens of patterns for its formats' sections; a lint imports the module of every platform
it sniffs or parses, and meets few of the sections. `re` compiles a pattern in Python, about 0.8 M instructions
each: the 200 patterns a lint of the example fabric compiled at import were a tenth of its start-up, and most
of them never matched anything (docs/lint-at-scale.md, "Session 38, part c").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, AnyStr, cast

# What a caller may ask of a pattern; on first use each becomes the lazy pattern's own attribute (the compiled
# pattern's bound method or value), so later calls cost what they cost on the compiled pattern.
_ATTRIBUTES = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer", "scanner", "flags",
               "groups", "groupindex")


# While the command line's lint keeps compiled programs (losslessd.recache.used), what compiles a pattern instead of
# re.compile: the program kept for it, else re.compile's.
_compile: Callable[[Any, int], re.Pattern] | None = None


class _Lazy:
    """A pattern compiled on its first use; ``pattern`` (its text) is there before, for patterns built from it."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # (only for an attribute not set yet: before the first use)
        if name not in _ATTRIBUTES:
            raise AttributeError(name)
        compiled = (_compile or re.compile)(self.pattern, self._flags)
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)`` when first used (a text or a bytes pattern). Not for a pattern passed to `re`
    functions or isinstance checks (it is no re.Pattern): only its methods and attributes (match, search, sub,
    pattern, ...)."""
    return cast("re.Pattern[AnyStr]", _Lazy(pattern, int(flags)))
