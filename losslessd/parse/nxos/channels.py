"""NX-OS `show port-channel summary` and `show interface port-channel N`: which member ports of each port-channel
carry its traffic.

Nexus 9000 Interfaces Configuration Guide, "Configuring Port Channels" (verifying): a row per port-channel, `Group
Port-Channel Type Protocol Member Ports` (`10    Po10(RU)    Eth      LACP      Eth1/49(P)   Eth1/50(D)`), a long
member list going on on indented lines, `--` for none. A member's flag says its state: `P` up in the port-channel,
`p` up in delay-lacp mode (the one member LACP's delay mode brings up before the partner answers), both of which
forward; `D` down, `I` individual, `H` hot-standby, `s` suspended, `r` module removed carry none of the
port-channel's traffic.

`show interface port-channel N` (the same guide, verifying: "displays the status of a port-channel interface") opens
each port-channel's block with `port-channel10 is up` (`is down (No operational members)`) and lists its members on
one line, `  Members in this channel: Eth1/49, Eth1/50`, with no state of its own: the members of a port-channel that
is up are taken to carry its traffic (the summary's flags, where captured too, say which do), a port-channel that is
down carries nothing.
"""

from __future__ import annotations

import re

from ...lazyre import lazy
from ...model import ParseIssue, Source
from ..base import PROMPT_ALONE, IssueList, long_interface_name

# `10    Po10(RU)    Eth      LACP      Eth1/49(P)   Eth1/50(P)` (the member list may be empty or `--`).
_ROW = lazy(r"^(?P<group>\d+)\s+(?P<channel>Po\d+)\((?P<flags>[A-Za-z]+)\)\s+\S+\s+\S+(?P<members>(?:\s+.*)?)$")
_MEMBER = lazy(r"^(?P<port>[A-Za-z][\w/.:-]*)\((?P<flag>[A-Za-z])\)$")
_FORWARDING = {"P", "p"}  # up in the port-channel; up in delay-lacp mode
_HEADER = lazy(r"^\s*Group\s+Port-\s+Type\s+Protocol\s+Member Ports\s*$")


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
            if PROMPT_ALONE.match(line):  # the prompt after the table
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


_IF_HEADER = lazy(r"^port-channel(?P<number>\d+) is (?P<state>up|down)\b", re.IGNORECASE)
_IF_MEMBERS = lazy(r"^\s+Members in this channel\s*:\s*(?P<ports>.*?)\s*$", re.IGNORECASE)
_IF_PORT = lazy(r"^[A-Za-z][\w/.:-]*$")


_PORT_STATE = lazy(r"^\S+ is (?:up|down)\b")


def read_interfaces(text: str, path: str, first_line: int,
                    every: bool = False) -> tuple[dict[str, list[str] | None], list[ParseIssue]]:
    """port-channel name (`port-channel10`) -> the members its `show interface` block lists ([] for one that is down,
    None for one whose members line cannot be read: a SYS002 there), and output with no port-channel block is one
    SYS002. ``every``: the command named no port-channel (`show interface port-channel`), so an empty answer is a
    switch without port-channels (pull sends it to every NX-OS switch), not a SYS002."""
    members: dict[str, list[str] | None] = {}
    issues: list[ParseIssue] = IssueList()
    current: str | None = None
    up = False
    for n, line in enumerate(text.split("\n"), first_line):
        if head := _IF_HEADER.match(line):
            current, up = f"port-channel{int(head['number'])}", head["state"].lower() == "up"
            members[current] = []
        elif _PORT_STATE.match(line) or PROMPT_ALONE.match(line):  # another port's block, a prompt
            current = None
        elif current is not None and (m := _IF_MEMBERS.match(line)):
            ports = [p.strip() for p in m["ports"].replace(",", " ").split()]
            bad = [p for p in ports if not _IF_PORT.match(p)]
            if bad:
                issues.append(ParseIssue(code="SYS002", source=Source(file=path, line=n), message=(
                    f"`show interface {current}` members line not understood ({bad[0][:40]!r}): its members are not "
                    "known, so a route through it is not followed")))
                members[current] = None  # (not known: routes through it are not followed, paths.routing)
                current = None
            elif up:
                members[current] = [long_interface_name(p) for p in ports]
    if not members and not issues and not (every and not text.strip()):
        issues.append(ParseIssue(code="SYS002", source=Source(file=path, line=first_line), message=(
            "the `show interface port-channel` section holds no `port-channelN is up|down` block; its members are "
            "not known")))
    return members, issues
