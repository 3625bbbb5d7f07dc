"""NX-OS `show port-channel summary`: which member ports of each port-channel carry its traffic.

Nexus 9000 Interfaces Configuration Guide, "Configuring Port Channels" (verifying): a row per port-channel, `Group
Port-Channel Type Protocol Member Ports` (`10    Po10(RU)    Eth      LACP      Eth1/49(P)   Eth1/50(D)`), a long
member list going on on indented lines, `--` for none. A member's flag says its state: `P` up in the port-channel,
`p` up in delay-lacp mode (the one member LACP's delay mode brings up before the partner answers), both of which
forward; `D` down, `I` individual, `H` hot-standby, `s` suspended, `r` module removed carry none of the
port-channel's traffic.
"""

from __future__ import annotations

import re

from ...model import ParseIssue, Source
from ..base import IssueList, long_interface_name

# `10    Po10(RU)    Eth      LACP      Eth1/49(P)   Eth1/50(P)` (the member list may be empty or `--`).
_ROW = re.compile(r"^(?P<group>\d+)\s+(?P<channel>Po\d+)\((?P<flags>[A-Za-z]+)\)\s+\S+\s+\S+(?P<members>(?:\s+.*)?)$")
_MEMBER = re.compile(r"^(?P<port>[A-Za-z][\w/.:-]*)\((?P<flag>[A-Za-z])\)$")
_FORWARDING = {"P", "p"}  # up in the port-channel; up in delay-lacp mode
_HEADER = re.compile(r"^\s*Group\s+Port-\s+Type\s+Protocol\s+Member Ports\s*$")


def read_summary(text: str, path: str, first_line: int) -> tuple[dict[str, list[str]], list[ParseIssue]]:
    """port-channel name (`port-channel10`, as the config names it) -> its forwarding members (`Ethernet1/49`), and
    a SYS002 per row that cannot be read; text with no summary table is one SYS002."""
    members: dict[str, list[str]] = {}
    issues: list[ParseIssue] = IssueList()
    current: list[str] | None = None
    table = False
    for n, line in enumerate(text.split("\n"), first_line):
        if _HEADER.match(line):
            table = True
            continue
        if not table or not line.strip() or set(line.strip()) <= {"-"} or line.strip() == "Channel":
            continue
        if row := _ROW.match(line):
            current = members.setdefault(f"port-channel{row['channel'][2:]}", [])
            words = row["members"].split()
        elif line[:1].isspace() and current is not None:
            words = line.split()  # the member list of the row above, going on
        else:
            current = None
            if re.match(r"^\S+[#>]\s*$", line):  # the prompt after the table
                continue
            issues.append(ParseIssue(code="SYS002", source=Source(file=path, line=n), message=(
                f"`show port-channel summary` row not understood: {line.strip()[:80]!r}; its members are not known, "
                "so a route through that port-channel is not followed")))
            continue
        for word in words:
            if word == "--":
                continue
            m = _MEMBER.match(word)
            if m is None:
                issues.append(ParseIssue(code="SYS002", source=Source(file=path, line=n), message=(
                    f"`show port-channel summary` member {word[:40]!r} is not PORT(FLAG); skipped")))
            elif m["flag"] in _FORWARDING and current is not None:
                current.append(long_interface_name(m["port"]))
    if not table:
        issues.append(ParseIssue(code="SYS002", source=Source(file=path, line=first_line), message=(
            "the `show port-channel summary` section holds no `Group Port-Channel Type Protocol Member Ports` "
            "table; the port-channels' members are not known")))
    return members, issues
