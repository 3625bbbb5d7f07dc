"""The daemon's logs: one JSON object per line on stderr, which journald keeps as the message and
log shippers parse without a grok pattern.

Fields: ts (UTC, ISO 8601), level, logger, msg, then whatever the call passed as ``extra`` (device,
port, kind, ...), and ``exc`` with the traceback when there is one. A Secret prints as where it came
from; a field whose name says it holds a secret is masked whatever its type.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import datetime, timezone
from typing import TextIO

from losslessd.credentials import SECRET_KEYS

LEVELS = ("debug", "info", "warning", "error", "critical")
# Attributes every LogRecord has; the rest came from ``extra``.
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
_SECRET_FIELD = re.compile("|".join(SECRET_KEYS + ("token", "authorization", "headers")), re.IGNORECASE)
MASK = "<hidden>"


class JsonFormatter(logging.Formatter):
    """A LogRecord as one line of JSON."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name, value in record.__dict__.items():
            if name not in _RECORD_FIELDS and name not in out:
                out[name] = MASK if _SECRET_FIELD.search(name) else value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class _JsonHandler(logging.StreamHandler):
    """Marks the handler configure() installed, so a second call (a reload) replaces it."""


class OwnRecordsFirst(logging.Filter):
    """Below warning, only losslessd's own records: the libraries it drives (paramiko logs every SSH
    transport step at info, netmiko, pysnmp, asyncssh) would otherwise be most of an info log. Their
    warnings and errors always pass; at debug everything does (the filter is not installed)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.name == "losslessd" or record.name.startswith("losslessd.")


def configure(level: str, stream: TextIO | None = None) -> None:
    """Send losslessd's records, and the warnings of the libraries it drives (netmiko, paramiko,
    pysnmp; all of their records at ``debug``), as JSON lines to ``stream`` (stderr)."""
    if level.lower() not in LEVELS:
        raise ValueError(f"log level {level!r}: use one of {', '.join(LEVELS)}")
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _JsonHandler)]:
        root.removeHandler(handler)
    handler = _JsonHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter())
    if level.lower() != "debug":
        handler.addFilter(OwnRecordsFirst())
    root.addHandler(handler)
    root.setLevel(level.upper())
