"""The Finding: one thing wrong (or not verifiable) at one place."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import field
from enum import Enum
from functools import lru_cache
from typing import Any

from ..model import Model, Source, model_class
from ..sha import sha256
from ..sorting import natural_key as _natural_key

__all__ = ["Finding", "Severity", "few", "natural_key"]


def few(names: Sequence[str], total: int | None = None, shown: int = 4) -> str:
    """The first ``shown`` names and how many more (of ``total``, default len(names)): 'a, b, c, d and 3 more'."""
    total = len(names) if total is None else total
    return ", ".join(names[:shown]) + (f" and {total - shown} more" if total > shown else "")


class Severity(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@model_class
class Finding(Model):
    """One problem a rule found: where (device, port, source) and what to do about it."""

    code: str
    name: str
    severity: Severity
    message: str
    device: str | None = None
    port: str | None = None
    devices: list[str] = field(default_factory=list)  # every device involved (link/fabric scope)
    source: Source | None = None
    key: str = ""  # what distinguishes two findings of one rule on one port (priority, queue...)
    unverified: bool = False  # the rule could not check this for lack of data
    data: dict[str, Any] = field(default_factory=dict)  # numbers behind the message (margins...)

    @property
    def fingerprint(self) -> str:
        """Stable across runs and line moves: rule, device, port and key, never the message."""
        parts = [self.code, self.device or "", self.port or "", self.key]
        basis = "\x1f".join(parts)
        if basis.count("\x1f") != 3:  # a name holding the separator: `a<US>b` and no port was device `a`, port `b`
            basis = json.dumps(parts)  # (one spelling per parts; every other fingerprint stays as it was)
        # (surrogatepass: a CONFIG_DB's JSON may spell a lone surrogate, `"Ethernet0\ud800"`, in a port name; the
        # fingerprint of every other name is as before)
        return sha256(basis.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def sort_key(self) -> tuple:
        return (self.device or "", natural_key(self.port or ""), self.code, self.key)


# Findings are sorted by port: the same names again and again (losslessd.sorting bounds the key of any name).
natural_key = lru_cache(maxsize=65536)(_natural_key)
