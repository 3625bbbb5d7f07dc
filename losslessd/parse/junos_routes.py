"""Junos routing tables: `show route` (text and `| display json`) and `show route forwarding-table`.

What forwards, by the Junos documentation:
- `show route` (Junos CLI reference, "show route", output fields): the route key `*` (active and last active) or `+`
  (active) marks "the route installed from the routing table into the forwarding table"; of its next hops, "an
  angle bracket (>) indicates" the selected one (JSON: `selected-next-hop`). Only those are kept. With equal-cost
  next hops Junos installs one of them by default ("Configuring Per-Packet Load Balancing": "Junos OS chooses one of
  the next-hop addresses to install into the forwarding table"), all of them when a `load-balance per-packet` (or
  per-flow) policy is exported to the forwarding table; `show route` may then still mark one, so the others are not
  guessed: one SYS004 per file says how many routes list more, and that `show route forwarding-table` shows what is
  installed.
- `show route forwarding-table` (Junos CLI reference): the forwarding table itself, a row per destination with its
  next-hop type: `ucst` (unicast, the interface in Netif), `ulst` (a unilist: its unicast members on the lines that
  follow, every one installed), `indr` (indirect: resolved on the lines that follow), `rslv` (the subnet of an
  interface: a connected route), `dscd` / `rjct` (discard, reject); `locl`, `recv`, `bcst`, `mcst`, `mdsc` are the
  device's own addresses or multicast, not forwarded to a port.
Tables of other routing instances and families (`VRF-A.inet.0`, `inet.3`, `mpls.0`, `bgp.evpn.0`; forwarding table
`VRF-A.inet`) are left out, as other VRFs are on the other platforms; a next hop into another table (`to table
VRF-A.inet.0`) is kept without an interface, so a path through it is unverified. `Local` routes (the device's own
addresses) forward nothing.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from ..docpos import json_value
from ..lazyre import lazy
from ..model import NextHop, ParseIssue, Route, Source
from .base import Input, IssueList, LineAt, cli_json
from .routes import JUNOS_READ as READ
from .routes import HopsOnce

# `inet.0: 12 destinations, 14 routes (12 active, 0 holddown, 0 hidden)`, `VRF-A.inet.0: ...`
_TABLE = lazy(r"^(?P<table>\S+): \d+ destinations?, \d+ routes?\b")
DEFAULT_TABLES = {"inet.0", "inet6.0"}
# `10.1.0.0/24        *[BGP/170] 1d 02:00:00, localpref 100`, or an entry of the same destination below it
# (`                    [BGP/170] ...`); the destination may stand alone on its line when it is long.
_ENTRY = lazy(r"^(?P<dest>[0-9A-Fa-f:.]+/\d+)?\s*(?P<key>[*+-]?)\[(?P<proto>[^/\]]+)/\d+\]")
_DEST_ALONE = lazy(r"^(?P<dest>[0-9A-Fa-f:.]+/\d+)\s*$")
# `> to 10.0.0.1 via et-0/0/48.0`, `  to 10.0.0.3 via et-0/0/49.0, Push 299776`, `> via et-0/0/48.0`,
# `  Local via et-0/0/48.0`, `> to table VRF-A.inet.0`, `  Discard`, `  Reject`, `  Receive`.
_HOP = lazy(r"^\s+(?P<sel>>)?\s*(?:(?:to (?P<to>[0-9A-Fa-f:.]+)\s+)?via (?P<via>[^,\s]+)|to table (?P<table>\S+)|"
            r"(?P<local>Local) via \S+|(?P<discard>Discard|Reject)|(?P<receive>Receive|MultiRecv|Multicast))\b")
# Lines of an entry that are no next hop (`AS path: ...`, `validation-state`, `Communities`, `Age`).
_ATTRIBUTE = lazy(r"^\s+(?:AS path|validation-state|Communities|Age|Metric|Tag|Preference|Source)\b|^\s+\S+:\s")

# What is no part of the table: a prompt (`user@qfx1> `), Junos's `{master:0}`, the command echoed alone.
_NOISE = lazy(r"^(?:\S+@\S+?[>#%]|\{|show\s)")

# `show route forwarding-table`
_FT_TABLE = lazy(r"^Routing table: (?P<table>\S+)")
DEFAULT_FT_TABLES = {"default.inet", "default.inet6"}
# `10.0.0.0/24        user     0                    ulst  1048574     2`,
# `10.1.1.1/32        dest     0 a8:d0:e5:00:00:01  ucst      578     4 et-0/0/0.0`, `default  perm  0  rjct  36  1`
_FT_ROW = lazy(r"^(?P<dest>\S+)\s+(?P<rtype>[a-z]+)\s+\d+\s+(?:(?P<nh>\S+)\s+)?(?P<nhtype>[a-z]{4})\s+\d+\s+\d+"
               r"(?:\s+(?P<netif>\S+))?\s*$")
# A next hop of the row above: `                              10.1.1.1           ucst      578     4 et-0/0/0.0`
_FT_MEMBER = lazy(r"^\s+(?:(?P<nh>\S+)\s+)?(?P<nhtype>[a-z]{4})\s+\d+\s+\d+(?:\s+(?P<netif>\S+))?\s*$")
_FT_LOCAL = {"locl", "recv", "bcst", "mcst", "mdsc", "mcrt", "mgrp", "sftw", "tabl"}

def parse(inp: Input, kind: str) -> tuple[list[Route], list[ParseIssue]]:
    return {"text": _text, "json": _json, "forwarding": _forwarding}[kind](inp)


class _Entry(HopsOnce):
    def __init__(self, prefix: str, line: int | None, path: str):
        super().__init__()
        self.prefix = prefix
        self.source = Source(file=path, line=line)
        self.discard = False
        self.others = 0  # next hops listed but not selected

    def route(self) -> Route | None:
        return Route(prefix=self.prefix, next_hops=self.hops, source=self.source) if self.hops or self.discard else None


def _prefix(text: str) -> str | None:
    try:
        return str(ipaddress.ip_network(text, strict=False))
    except ValueError:
        return None


def _issue(path: str, line: int | None, message: str, code: str = "SYS002") -> ParseIssue:
    return ParseIssue(code=code, message=message, source=Source(file=path, line=line))


def _unused(path: str, entries: list[_Entry]) -> list[ParseIssue]:
    """One SYS004 for the routes whose equal-cost next hops `show route` lists without marking them selected."""
    many = [e for e in entries if e.others and e.hops]
    if not many:
        return []
    return [_issue(path, many[0].source.line, (
        f"{len(many)} route(s) list next hops besides the selected one (`>`), from {many[0].prefix} on; Junos installs "
        "only the selected one unless a load-balance policy is exported to the forwarding table, and `show route` "
        "need not mark the others when one is: only the selected hops are followed (save `show route "
        "forwarding-table` to have every installed hop followed)"), code="SYS004")]


def _finish(inp: Input, entries: list[_Entry], issues: list[ParseIssue], tables: int) -> tuple[list[Route],
                                                                                           list[ParseIssue]]:
    """The routes read; a table of a known format with no route of the default instance is one SYS002 (``tables``:
    how many tables the text holds), text with no table of it one SYS001."""
    routes = [r for e in entries if (r := e.route()) is not None]
    issues.extend(_unused(inp.path, entries))
    if not routes and not any(i.code == "SYS002" for i in issues):
        issues.append(_issue(inp.path, None, (
            f"{inp.path}: a Junos routing table with no route of the default instance (inet.0, inet6.0 or the "
            "forwarding table's default.inet, default.inet6); no route read") if tables else
            f"{inp.path}: no routing-table entries found; read are: {READ}", code="SYS002" if tables else "SYS001"))
    return routes, issues


_TO_OR_VIA = lazy(r"\b(?:to|via)\b")


def _text(inp: Input) -> tuple[list[Route], list[ParseIssue]]:
    """`show route`: table headings, a destination line per prefix, its entries (`*[BGP/170]`), their next hops."""
    entries: list[_Entry] = []
    issues: list[ParseIssue] = IssueList()
    keep = True  # in a default table
    tables = 0
    dest: str | None = None  # the destination the entries below belong to
    current: _Entry | None = None  # the active entry being read (None: an inactive one, or nothing kept)
    in_entry = False
    for n, line in enumerate(inp.text.splitlines(), 1):
        if not line.strip():
            continue
        if table := _TABLE.match(line):
            keep, current, dest, in_entry = table["table"] in DEFAULT_TABLES, None, None, False
            tables += 1
            continue
        if not keep or line.startswith(("+ = Active Route", "Restart ")):
            continue
        if alone := _DEST_ALONE.match(line):
            dest, current, in_entry = alone["dest"], None, False
            continue
        if entry := _ENTRY.match(line):
            if entry["dest"]:
                dest = entry["dest"]
            in_entry, current = True, None
            if dest is None:
                issues.append(_issue(inp.path, n, f"route entry without a destination: {line.strip()[:80]!r}; skipped"))
                continue
            prefix = _prefix(dest)
            if prefix is None:
                issues.append(_issue(inp.path, n, f"{dest!r} is not an IP prefix; line skipped"))
                continue
            if entry["key"] in ("*", "+"):  # the active route: the one in the forwarding table
                current = _Entry(prefix, n, inp.path)
                entries.append(current)
            continue
        if not in_entry or not line[:1].isspace():
            if not line[:1].isspace() and not _NOISE.match(line):
                issues.append(_issue(inp.path, n, f"line not understood: {line.strip()[:80]!r}; skipped"))
            continue
        hop = _HOP.match(line)
        if hop is None:
            if not _ATTRIBUTE.match(line) and current is not None and _TO_OR_VIA.search(line):
                issues.append(_issue(inp.path, n, f"next hop not understood: {line.strip()[:80]!r}; line skipped"))
            continue
        if current is None:
            continue
        if hop["discard"]:
            current.discard = True
        elif hop["local"] or hop["receive"]:
            continue  # the device's own address: delivered to itself
        elif not hop["sel"]:
            current.others += 1
        elif hop["table"]:
            current.keep(NextHop(address=f"table {hop['table']}"))  # another instance's: no cable of its own
        elif hop["to"]:
            current.keep(NextHop(address=hop["to"], port=hop["via"]))
        else:
            current.keep(NextHop(port=hop["via"]))  # Direct: the subnet of that interface
    return _finish(inp, entries, issues, tables)


def _items(node: Any, key: str) -> list[dict]:
    """The objects of element ``key`` of a Junos JSON object (a list of objects; anything else holds none)."""
    value = node.get(key) if isinstance(node, dict) else None
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _data(node: Any) -> Any:
    """Junos JSON's `[{"data": X}]` -> X (None when absent or of another shape)."""
    if isinstance(node, list) and node and isinstance(node[0], dict):
        return node[0].get("data")
    return None


def _json(inp: Input) -> tuple[list[Route], list[ParseIssue]]:
    """`show route | display json`: route-information / route-table / rt / rt-entry / nh (Junos writes each element
    as a list of objects, text as `{"data": ...}` and an empty element as `{"data": [null]}`)."""
    try:
        data = json_value(cli_json(inp.text) or inp.text)
    except ValueError as exc:
        return [], [_issue(inp.path, None, f"{inp.path}: routing table JSON is not valid ({exc})", code="SYS001")]
    entries: list[_Entry] = []
    issues: list[ParseIssue] = IssueList()
    tables = 0
    line_at = LineAt(inp.text)
    for info in _items(data, "route-information"):
        for table in _items(info, "route-table"):
            tables += 1
            if _data(table.get("table-name")) not in DEFAULT_TABLES:
                continue
            for rt in _items(table, "rt"):
                dest = _data(rt.get("rt-destination"))
                if not isinstance(dest, str):
                    issues.append(_issue(inp.path, None, "route without an `rt-destination`; skipped"))
                    continue
                line = line_at.find(json.dumps(dest))  # (one written otherwise, in \u escapes: no line, nor after it)
                prefix = _prefix(dest)
                if prefix is None:
                    issues.append(_issue(inp.path, line, f"{dest[:60]!r} is not an IP prefix; route skipped"))
                    continue
                active = next((e for e in _items(rt, "rt-entry") if _data(e.get("active-tag")) in ("*", "+")), None)
                if active is None:
                    continue
                entry = _Entry(prefix, line, inp.path)
                entries.append(entry)
                if _data(active.get("nh-type")) in ("Discard", "Reject"):
                    entry.discard = True
                for nh in _items(active, "nh"):
                    if "nh-local-interface" in nh:
                        continue
                    if "selected-next-hop" not in nh:
                        entry.others += 1
                        continue
                    to, via, other = _data(nh.get("to")), _data(nh.get("via")), _data(nh.get("nh-table"))
                    if isinstance(other, str):
                        entry.keep(NextHop(address=f"table {other}"))
                    elif isinstance(via, str):
                        entry.keep(NextHop(address=to if isinstance(to, str) else None, port=via))
    return _finish(inp, entries, issues, tables)


def _forwarding(inp: Input) -> tuple[list[Route], list[ParseIssue]]:
    """`show route forwarding-table`: per destination of a default table, its unicast next hops (a unilist's every
    member, an indirect one's resolution), its interface's subnet (`rslv`), or a discard."""
    entries: list[_Entry] = []
    issues: list[ParseIssue] = IssueList()
    keep = six = False
    tables = 0
    current: _Entry | None = None
    connected: str | None = None  # a rslv row's interface, used when no unicast hop follows
    for n, line in enumerate(inp.text.splitlines(), 1):
        if not line.strip():
            continue
        if table := _FT_TABLE.match(line):
            _close_ft(current, connected)
            keep, current, connected = table["table"] in DEFAULT_FT_TABLES, None, None
            six, tables = table["table"].endswith("inet6"), tables + 1
            continue
        if not keep or line.startswith(("Internet", "Destination ")):
            continue
        if not line[:1].isspace():
            _close_ft(current, connected)
            current, connected = None, None
            row = _FT_ROW.match(line)
            if row is None:
                if not _NOISE.match(line):
                    issues.append(_issue(inp.path, n, f"forwarding-table row not understood: {line.strip()[:80]!r}; "
                                         "skipped"))
                continue
            prefix = ("::/0" if six else "0.0.0.0/0") if row["dest"] == "default" else _prefix(row["dest"])
            if prefix is None:
                issues.append(_issue(inp.path, n, f"{row['dest'][:60]!r} is not an IP prefix; row skipped"))
                continue
            nhtype = row["nhtype"]
            if nhtype in _FT_LOCAL:
                continue
            current = _Entry(prefix, n, inp.path)
            entries.append(current)
            _ft_hop(current, nhtype, row["nh"], row["netif"])
            if nhtype == "rslv" and row["netif"]:
                connected = row["netif"]
            continue
        member = _FT_MEMBER.match(line)
        if member is None:
            issues.append(_issue(inp.path, n, f"forwarding-table next hop not understood: {line.strip()[:80]!r}; "
                                 "skipped"))
        elif current is not None:
            _ft_hop(current, member["nhtype"], member["nh"], member["netif"])
    _close_ft(current, connected)
    return _finish(inp, entries, issues, tables)


def _ft_hop(entry: _Entry, nhtype: str, nh: str | None, netif: str | None) -> None:
    if nhtype in ("dscd", "rjct"):
        entry.discard = True
    elif nhtype == "ucst" and netif:
        try:
            address: str | None = str(ipaddress.ip_address(nh or ""))
        except ValueError:
            address = None  # a MAC: a host on that interface's subnet (a `dest` row), reached directly
        entry.keep(NextHop(address=address, port=netif))


def _close_ft(entry: _Entry | None, connected: str | None) -> None:
    """A `rslv` row (an interface's subnet) with no unicast hop: the connected route of that interface."""
    if entry is not None and connected and not entry.hops and not entry.discard:
        entry.keep(NextHop(port=connected))
