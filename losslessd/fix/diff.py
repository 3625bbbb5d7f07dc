"""The unified diff `fix` prints. difflib's matcher is quadratic on a config of many alike blocks (16,000 NX-OS
`interface` blocks of the same lines: 160 s), so a large config is first cut at its anchors, the lines that occur
once in each file (patience diffing's idea: their longest run in the same order), and difflib matches the short
stretches between them. Small configs (all the goldens) take difflib's matcher alone, as before."""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

# Above this many line pairs (about 3,000 lines each), anchors first.
DIRECT_PAIRS = 10_000_000


def unified(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, context: int = 3) -> str:
    """As ``"".join(difflib.unified_diff(a, b, fromfile, tofile))`` (lines keep their ends)."""
    if len(a) * len(b) <= DIRECT_PAIRS:
        return "".join(difflib.unified_diff(a, b, fromfile=fromfile, tofile=tofile, n=context))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    # The matching blocks difflib's opcodes are made of (its get_matching_blocks returns them once set), found
    # between the anchors instead of by its own search over the whole files.
    setattr(matcher, "matching_blocks", _matching_blocks(a, b))  # noqa: B010 - (typeshed does not declare it)
    return "".join(_format(a, b, matcher.get_grouped_opcodes(context), fromfile, tofile))


def _matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[difflib.Match]:
    """difflib's matching blocks (ascending, adjacent runs joined, a last empty one at the ends), its matcher
    run only on the stretches between consecutive anchors."""
    blocks: list[tuple[int, int, int]] = []
    i = j = 0
    for ai, bj in [*_anchors(a, b), (len(a), len(b))]:
        sub = difflib.SequenceMatcher(None, a[i:ai], b[j:bj], autojunk=False)
        blocks += [(i + m.a, j + m.b, m.size) for m in sub.get_matching_blocks() if m.size]
        if ai < len(a):
            blocks.append((ai, bj, 1))
        i, j = ai + 1, bj + 1
    merged: list[tuple[int, int, int]] = []
    for ai, bj, size in blocks:
        if merged and merged[-1][0] + merged[-1][2] == ai and merged[-1][1] + merged[-1][2] == bj:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        else:
            merged.append((ai, bj, size))
    return [difflib.Match(*m) for m in merged] + [difflib.Match(len(a), len(b), 0)]


def _anchors(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """(i, j) of the lines once in ``a`` and once in ``b``, the longest run of them in the same order in both."""
    count_a, count_b = Counter(a), Counter(b)
    where_b = {line: j for j, line in enumerate(b) if count_b[line] == 1}
    pairs = [(i, where_b[line]) for i, line in enumerate(a) if count_a[line] == 1 and line in where_b]
    # longest increasing run of j (patience sorting: O(n log n))
    tails: list[int] = []  # the smallest last j of a run of each length
    tail_at: list[int] = []  # its index in pairs
    back = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tails, j)
        if at == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[at], tail_at[at] = j, k
        back[k] = tail_at[at - 1] if at else -1
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def _format(a: Sequence[str], b: Sequence[str], groups: Iterable[list[tuple[str, int, int, int, int]]],
            fromfile: str, tofile: str) -> Iterator[str]:
    """Unified diff lines (POSIX diff -u): headers, then per hunk its ranges and its lines."""
    started = False
    for group in groups:
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's range: its first line (1-based) and length; one line is its number alone, none the line before."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"
