"""Pause Python's cyclic garbage collector around bulk model building."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Set by hold(): this process keeps what it froze for the rest of its life.
_holding = False


def hold() -> None:
    """Freeze every object the collector tracks, for good: a forked lint worker keeps its shares' objects until
    it ends (fabric._lint_share), and the collector must not scan them again (a full collection of a few hundred
    MB of them would cost more than freeing them). From then on gc_paused freezes what it made too, instead of
    asking how many objects are frozen (gc.get_freeze_count walks them all)."""
    global _holding
    gc.freeze()
    _holding = True


@contextmanager
def gc_paused() -> Iterator[None]:
    """Parsing a fabric or building its dependency graph allocates millions of small objects that stay
    alive and hold no garbage cycles: the collector would re-scan them again and again (half the time
    of a large lint or a 3,000-switch graph build) and free nothing.

    On the way out what was made joins the oldest generation at once (freeze + unfreeze, both O(1))
    instead of being scanned one more time as young objects; objects a caller froze on purpose are
    left alone. Nested uses are cheap: only the outermost one re-enables collection.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if _holding:
                gc.freeze()
            elif gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
