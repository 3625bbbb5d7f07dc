"""bash(1) Brace Expansion of one word: `ens{1,2}f0np0` -> ens1f0np0 ens2f0np0, `{0..7}` -> 0 1 ... 7.

"Patterns to be brace expanded take the form of an optional preamble, followed by either a series of comma-separated
strings or a sequence expression between a pair of braces, followed by an optional postscript"; the results are not
sorted (left to right order is kept), expressions nest, and a brace pair holding neither an unquoted comma nor a
valid sequence expression is left as it is, as is `${`, which starts a parameter expansion up to its `}`. A sequence
`{x..y[..incr]}` holds two integers or two single characters; where either integer begins with a zero, every term is
padded to the same width. A quoted or escaped brace or comma is a plain character: the caller marks those
(QUOTED_BRACE_MARKS) before and takes the marks out after.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import InputError
from ..lazyre import lazy
from ..limits import MAX_BRACE_WORDS, MAX_NESTING

# A quoted or escaped `{`, `}`, `,` (kept apart from the unquoted ones by these characters, which no script holds).
QUOTED_BRACE_MARKS = str.maketrans("{},", "\4\5\6")
UNMARK = str.maketrans("\4\5\6", "{},")
_PADDED = lazy(r"-?0[0-9]")  # (an integer that begins with a zero)
_SEQUENCE = lazy(r"(?:(-?[0-9]+)\.\.(-?[0-9]+)|([A-Za-z])\.\.([A-Za-z]))(?:\.\.(-?[0-9]+))?")


def expand(word: str, limit: int = MAX_BRACE_WORDS) -> list[str]:
    """The words bash makes of ``word`` (itself where it holds no brace expression); InputError past ``limit``
    words (a generated flood: `{1..100000000}`, `{a,b}` written thirty times)."""
    if "{" not in word or "}" not in word:
        return [word]
    out = _expand(word, limit)
    return [w for w in out if w] if len(out) > 1 else out  # (an empty word made by `{,a}` is removed, bash(1))


def holds_expression(word: str) -> bool:
    """Whether ``word`` holds a brace expression (one bash would expand; dash leaves it as written)."""
    if "{" not in word or "}" not in word:
        return False
    try:
        return next(_expressions(word), None) is not None
    except InputError:  # (a sequence past its bound is one)
        return True


def _expand(word: str, limit: int, depth: int = 0) -> list[str]:
    """The words of ``word``: its top-level brace expressions, left to right (bash expands the first, then the
    postscript after it, whose braces pair as they do in the whole word), each alternative expanded in turn."""
    if depth > MAX_NESTING:
        raise InputError(f"its brace expressions nest more than {MAX_NESTING} deep; not read")
    pieces: list[list[str]] = [[]]  # (runs of literal text and single words, joined once; then the choices)
    at = 0
    for start, end, alternatives in _expressions(word):
        pieces[-1].append(word[at:start])
        choices = [w for alternative in alternatives for w in (
            _expand(alternative, limit, depth + 1) if "{" in alternative else [alternative])]
        if len(choices) == 1:
            pieces[-1].append(choices[0])
        else:
            pieces += [choices, []]
        at = end + 1
    pieces[-1].append(word[at:])
    out = [""]
    for k, piece in enumerate(pieces):
        if k % 2 == 0:
            literal = "".join(piece)
            out = [head + literal for head in out]
            continue
        if len(out) * len(piece) > limit:
            raise InputError(f"a brace expansion makes more than {limit:,} words (bash(1) Brace Expansion); not read")
        out = [head + tail for head in out for tail in piece]
    return out


def _expressions(word: str) -> Iterator[tuple[int, int, list[str]]]:
    """(its `{`, its `}`, what it expands to one level deep) per well-formed brace expression of ``word`` not inside
    another, left to right. One pass pairs the braces (a stack), noting the commas directly in each pair."""
    stack: list[tuple[int, list[int]]] = []
    pairs: list[tuple[int, int, list[int]]] = []
    i, n = 0, len(word)
    while i < n:
        c = word[i]
        if c == "$" and word.startswith("${", i):  # (a parameter expansion, to its `}`: no brace expression)
            close = word.find("}", i + 2)
            i = n if close < 0 else close + 1
            continue
        if c == "{":
            stack.append((i, []))
        elif c == "," and stack:
            stack[-1][1].append(i)
        elif c == "}" and stack:
            at, commas = stack.pop()
            pairs.append((at, i, commas))
        i += 1
    after = 0
    for at, close, commas in sorted(pairs):
        if at < after:  # (in the expression taken: expanded with its alternatives)
            continue
        if commas:
            bounds = [at, *commas, close]
            yield at, close, [word[a + 1:b] for a, b in zip(bounds, bounds[1:], strict=False)]
            after = close + 1
        elif (terms := _sequence(word, at + 1, close)) is not None:
            yield at, close, terms
            after = close + 1


def _sequence(word: str, start: int, end: int) -> list[str] | None:
    """The terms of `x..y[..incr]` (bash(1): the increment's sign is not used; 0 is 1), or None where it is not one."""
    m = _SEQUENCE.fullmatch(word, start, end)  # (in place: a slice per pair was quadratic in nested braces)
    if m is None:
        return None
    step = abs(int(m.group(5))) if m.group(5) else 1
    step = step or 1
    if m.group(1) is not None:
        a, b = int(m.group(1)), int(m.group(2))
        count = abs(b - a) // step + 1
        if count > MAX_BRACE_WORDS:
            raise InputError(f"a brace expansion makes more than {MAX_BRACE_WORDS:,} words (bash(1) Brace Expansion); "
                             "not read")
        padded = bool(_PADDED.match(m.group(1)) or _PADDED.match(m.group(2)))
        width = max(len(m.group(1)), len(m.group(2))) if padded else 0
        terms = range(a, b + (1 if b >= a else -1), step if b >= a else -step)
        return [(f"-{str(-t).zfill(width - 1)}" if t < 0 else str(t).zfill(width)) for t in terms]
    a, b = ord(m.group(3)), ord(m.group(4))
    return [chr(t) for t in range(a, b + (1 if b >= a else -1), step if b >= a else -step)]
