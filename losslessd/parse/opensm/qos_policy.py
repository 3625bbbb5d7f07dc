"""The SLs an OpenSM QoS policy file (qos-policy.conf) hands out.

doc/QoS_management_in_OpenSM.txt: sections `port-groups`, `qos-setup`, `qos-levels` (each
`qos-level` ... `end-qos-level` block has `name:` and `sl:`), `qos-match-rules` and the simplified
`qos-ulps` (lines `<match> : <SL>`); each closes with `end-<section>`; `#` starts a comment;
keywords are the first non-blank of a line. Only the SLs matter here: the SL2VL tables they pass
through come from opensm.conf (the `qos-setup` section is parsed and ignored by OpenSM).
"""

from __future__ import annotations

from ...model import IbSlUse, ParseIssue, Source
from .options import c_number

SECTIONS = ("port-groups", "qos-setup", "qos-levels", "qos-match-rules", "qos-ulps")


def read(text: str, path: str) -> tuple[list[IbSlUse], list[ParseIssue]]:
    uses: list[IbSlUse] = []
    issues: list[ParseIssue] = []
    section: tuple[str, int] | None = None  # name, line it opened on
    level: dict | None = None  # the qos-level block being read

    def issue(line: int, message: str) -> None:
        issues.append(ParseIssue(code="SYS002", message=message, source=Source(file=path, line=line)))

    def sl_of(text: str, line: int) -> int | None:
        sl, clean = c_number(text, 32, False)
        if clean and sl <= 15:
            return sl
        issue(line, f"SL {text!r} is not a number 0-15; this entry is skipped")
        return None

    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if section is None:
            if line in SECTIONS:
                section = (line, n)
            else:
                issue(n, f"{line[:60]!r} is outside any QoS policy section ({', '.join(SECTIONS)})")
            continue
        name = section[0]
        if line == f"end-{name}":
            section = None
        elif name == "qos-levels":
            if line == "qos-level":
                level = {"line": n}
            elif line == "end-qos-level" and level is not None:
                if level.get("sl") is not None:
                    uses.append(IbSlUse(kind="qos-level", name=level.get("name", "?"), sl=level["sl"],
                                        source=Source(file=path, line=level["sl_line"])))
                level = None
            elif level is not None and ":" in line:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "name":
                    level["name"] = value
                elif key == "sl":
                    level["sl"], level["sl_line"] = sl_of(value, n), n
        elif name == "qos-ulps":
            match, sep, value = line.rpartition(":")
            if not sep or not match.strip():
                issue(n, f"qos-ulps line {line[:60]!r} is not `<match> : <SL>`")
                continue
            sl = sl_of(value.strip(), n)
            if sl is not None:
                uses.append(IbSlUse(kind="qos-ulp", name=" ".join(match.split()), sl=sl,
                                    source=Source(file=path, line=n)))
    if section is not None:
        issue(section[1], f"section {section[0]} is not closed by end-{section[0]} (file truncated?)")
    return uses, issues
