"""A summary of OpenSM's partitions.conf: name, P_Key, IPoIB flag, broadcast-group SL, members.

man opensm, PARTITION CONFIGURATION: `<Partition Definition>:[<newline>]<Partition Properties>;`
with the definition `[PartitionName][=PKey][,ipoib_bc_flags][,defmember=full|limited]`, flags
such as `ipoib`, `sl=<val>`, `mtu=<val>`; `#` starts a comment; white space is allowed between
delimiters, and a definition may span lines (multicast groups). Example:
`Default=0x7fff, ipoib, defmember=full : ALL=full;`.
"""

from __future__ import annotations

import re

from ...lazyre import lazy
from ...model import IbPartition, ParseIssue, Source
from ..base import IssueList, LineAt
from .options import c_number

# Port specifiers (man opensm: PortGUID[=full|limited], or the keywords ALL, ALL_CAS, ALL_SWITCHES,
# ALL_ROUTERS, SELF); multicast group lines (mgid=...) are not members.
_MEMBER = lazy(r"^(ALL|ALL_CAS|ALL_SWITCHES|ALL_ROUTERS|SELF|0[xX][0-9a-fA-F]+|[0-9]+)(\s*=\s*\w+)?$")


def read(text: str, path: str) -> tuple[list[IbPartition], list[ParseIssue]]:
    parts: list[IbPartition] = []
    issues: list[ParseIssue] = IssueList()
    body = "\n".join(line.split("#", 1)[0] for line in text.split("\n"))
    start = 0
    line_at = LineAt(body)
    for m in re.finditer(r";", body + ";"):
        stmt, offset = body[start:m.start()], start
        start = m.end()
        if not stmt.strip():
            continue
        line = line_at(offset + len(stmt) - len(stmt.lstrip()))
        src = Source(file=path, line=line)
        definition, sep, props = stmt.partition(":")
        if not sep:
            if m.start() < len(body):  # a statement without its `:`; the unterminated tail is reported below
                issues.append(ParseIssue(code="SYS002", message=f"partition {' '.join(stmt.split())[:60]!r} has no "
                                         "`:` between its definition and its members; skipped", source=src))
            else:
                issues.append(ParseIssue(code="SYS002", message="text after the last `;` is not a complete partition "
                                         "(file truncated?)", source=src))
            continue
        if m.start() >= len(body):
            issues.append(ParseIssue(code="SYS002", message="the last partition is not closed by `;` (file "
                                     "truncated?); read anyway", source=src))
        parts.append(_partition(definition, props, src, issues))
    return parts, issues


def _partition(definition: str, props: str, src: Source, issues: list[ParseIssue]) -> IbPartition:
    head, *flags = [f.strip() for f in definition.split(",")]
    name, _, pkey_text = (s.strip() for s in head.partition("="))
    pkey = sl = mtu = rate = None
    if pkey_text:
        pkey, clean = c_number(pkey_text, 16, False)
        if not clean:
            issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: P_Key {pkey_text!r} is not a number",
                                     source=src))
            pkey = None
    for flag in flags:
        key, _, value = (s.strip() for s in flag.partition("="))
        if key == "sl":
            sl, clean = c_number(value, 8, False)
            if not clean or sl > 15:
                issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: sl={value!r} is not an SL 0-15",
                                         source=src))
                sl = None
        elif key in ("mtu", "rate"):  # IBA encodings, checked by IBS008
            number, clean = c_number(value, 8, False)
            if not clean:
                issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: {key}={value!r} is not a number",
                                         source=src))
                number = None
            mtu, rate = (number, rate) if key == "mtu" else (mtu, number)
    members = [m for m in (" ".join(t.split()) for t in re.split(r"[,\n]", props)) if _MEMBER.match(m)]
    return IbPartition(name=name, pkey=pkey, ipoib="ipoib" in flags, sl=sl, mtu_code=mtu, rate_code=rate,
                       members=members, source=src)
