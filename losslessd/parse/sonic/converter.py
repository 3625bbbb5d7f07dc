"""swss-common common/converter.h ``to_uint``, which orchagent (pfcwdorch.cpp: the PFC_WD timers) and buffermgrd
(buffermgr.cpp doSpeedUpdateTask: each `pfc_enable` item, as ``to_uint<uint8_t>``) read numbers with:
``unsigned long ret = stoul(str, &idx, 0)``, then ``str[idx]`` must be the end (or a NUL) and ``min <= ret <= max``,
else it throws invalid_argument; stoul itself throws out_of_range past unsigned long. One function for both."""

from __future__ import annotations

from ...lazyre import lazy

# What strtoul (base 0) reads: C blanks, a sign, then "0x" and hex digits, or digits (octal after a leading 0).
_STOUL_BASE0 = lazy(r"[ \t\n\v\f\r]*([+-]?)(?:0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))")
_ULONG_MAX = 2**64 - 1  # unsigned long on SONiC's 64-bit targets (x86-64, arm64)


class StoulOutOfRange(ValueError):
    """stoul's out_of_range: the number is past unsigned long (what catches it differs from invalid_argument's)."""


def to_uint(text: str, low: int, high: int) -> int:
    """converter.h to_uint(text, low, high): ValueError where it throws invalid_argument (not a number read to the
    end of ``text``, or outside ``low``-``high``), StoulOutOfRange where stoul throws out_of_range."""
    m = _STOUL_BASE0.match(text)
    if m is None or text[m.end():m.end() + 1] not in ("", "\0"):
        raise ValueError(text)
    digits, base = (m.group(2), 16) if m.group(2) else (m.group(3), 8) if m.group(3) else (m.group(4), 10)
    # (more than 80 significant digits is past 2^64 in any base: no int() of 5,000 digits)
    if len(digits.lstrip("0")) > 80 or (value := int(digits, base)) > _ULONG_MAX:
        raise StoulOutOfRange(text)
    if m.group(1) == "-":  # strtoul negates in unsigned long: "-0" is 0, "-3" far above any range
        value = -value % 2**64
    if not low <= value <= high:
        raise ValueError(text)
    return value
