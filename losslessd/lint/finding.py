"""The Finding: one thing wrong (or not verifiable) at one place."""

from __future__ import annotations

import hashlib
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from ..model import Source
from ..sorting import natural_key

__all__ = ["Finding", "Severity", "natural_key"]


class Severity(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Finding(BaseModel):
    code: str
    name: str
    severity: Severity
    message: str
    device: str | None = None
    port: str | None = None
    devices: list[str] = Field(default_factory=list)  # every device involved (link/fabric scope)
    source: Source | None = None
    key: str = ""  # what distinguishes two findings of one rule on one port (priority, queue...)
    unverified: bool = False  # the rule could not check this for lack of data
    data: dict[str, Any] = Field(default_factory=dict)  # numbers behind the message (margins...)

    @property
    def fingerprint(self) -> str:
        """Stable across runs and line moves: rule, device, port and key, never the message."""
        basis = "\x1f".join([self.code, self.device or "", self.port or "", self.key])
        return hashlib.sha256(basis.encode()).hexdigest()[:32]

    def sort_key(self) -> tuple:
        return (self.device or "", natural_key(self.port or ""), self.code, self.key)
