"""Text from inputs as a terminal shows it: control characters written out, never sent.

A device name, port name or file name comes from a config or capture someone else wrote. Printed raw, an
escape sequence in it (ESC [ ... m, OSC 52 ...) recolours, retitles or rewrites the operator's terminal, and a
newline forges a report line. The text report and the command line's error lines show such characters as
``\\x1b`` / ``\\n`` escapes; JSON, SARIF and GitHub annotations escape them by their own rules.
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls (ESC, CSI 0x9b, OSC 0x9d ... in 8-bit form) and the Unicode line breaks;
# tabs are left as they are.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in "\n\r":
        return "\\n" if char == "\n" else "\\r"
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def printable(text: str) -> str:
    """``text`` on one line, its control characters written out (a message of several lines: line by line)."""
    return text if text.isprintable() else _CONTROL.sub(_escape, text)  # (isprintable: the usual case, in C)


def printable_lines(text: str) -> str:
    """``text`` with its lines kept (snippets, diffs, reports of several lines), each line's control characters
    written out."""
    return "\n".join(printable(line) for line in text.split("\n"))
