"""The diff `fix` prints: difflib's for small configs; for large ones cut at the lines found once in each file first
(difflib alone was quadratic on many alike blocks: a 16,000-port NX-OS fix spent 2.5 minutes in it)."""

from __future__ import annotations

import difflib
import random

import pytest

from losslessd.fix import diff


def _blocks(n: int, extra: bool) -> list[str]:
    return "".join(f"interface Ethernet1/{i}\n  mtu 9216\n  priority-flow-control mode on\n"
                   + ("  priority-flow-control watch-dog-interval on\n" if extra and i % 3 else "")
                   + "  service-policy type qos input QOS\n!\n" for i in range(n)).splitlines(keepends=True)


def _sides(text: str) -> tuple[list[str], list[str]]:
    """Both files back from a diff with all lines as context (one hunk)."""
    body = text.splitlines(keepends=True)[3:]
    return [line[1:] for line in body if line[0] in " -"], [line[1:] for line in body if line[0] in " +"]


def _edited(rnd: random.Random) -> tuple[list[str], list[str]]:
    a = [rnd.choice(["x\n", "y\n", "!\n", f"u{rnd.randint(0, 30)}\n"]) for _ in range(rnd.randint(1, 40))]
    b = list(a)
    for _ in range(rnd.randint(1, 6)):
        at = rnd.randint(0, len(b) - 1) if b else 0
        op = rnd.randint(0, 2)
        if op == 0 or not b:
            b.insert(at, rnd.choice(["x\n", "new\n", f"u{rnd.randint(0, 30)}\n"]))
        elif op == 1:
            del b[at]
        else:
            b[at] = "changed\n"
    return a, b


@pytest.mark.parametrize("seed", range(40))
def test_the_anchored_diff_holds_both_files(monkeypatch, seed):
    monkeypatch.setattr(diff, "DIRECT_PAIRS", 0)  # every input takes the anchors
    a, b = _edited(random.Random(seed))
    text = diff.unified(a, b, "a", "b", context=10**9)
    if a == b:
        assert text == ""
        return
    assert text.startswith("--- a\n+++ b\n@@ -1") and _sides(text) == (a, b)


def test_a_large_config_of_alike_blocks_is_diffed_by_its_anchors_as_difflib_would():
    a, b = _blocks(16_000, False), _blocks(16_000, True)
    assert len(a) * len(b) > diff.DIRECT_PAIRS
    text = diff.unified(a, b, "a", "b", context=10**9)
    assert _sides(text) == (a, b)
    assert text.count("\n+") - 1 == sum(1 for i in range(16_000) if i % 3)  # only the added lines (and +++ b)
    small_a, small_b = _blocks(300, False), _blocks(300, True)
    assert diff.unified(small_a, small_b, "a", "b") == "".join(difflib.unified_diff(small_a, small_b, "a", "b"))
