"""Natural order of names that carry numbers (Ethernet2 before Ethernet10), for parsers and reports alike."""

from __future__ import annotations

from .lazyre import lazy

_DIGITS = lazy(r"(\d+)")


def natural_key(text: str) -> tuple:
    """Digit runs compare as numbers, whatever their length: a run is keyed by its length without leading
    zeros and then its digits, so no int() is made (CPython refuses to convert more than 4,300 digits,
    and a port name is input). Non-ASCII digits (which ``\\d`` matches) compare by their characters."""
    parts = _DIGITS.split(text)
    for i in range(1, len(parts), 2):
        digits = parts[i].lstrip("0") or "0"
        parts[i] = (len(digits), digits)
    return tuple(parts)
