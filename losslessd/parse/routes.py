"""Routing-table captures: `show ip route` / `show ipv6 route` from FRR (SONiC vtysh; text or JSON), Arista EOS (text
or `| json`) and Cisco NX-OS; Junos `show route` and `show route forwarding-table` are read by parse/junos_routes.py.

Only what forwards counts. FRR marks a route's selected entry with `>` and each next hop installed
in the forwarding table with `*` (FRR zebra docs, "ECMP": "The `*` character tells us that the
route is installed in the Data Plane, or FIB"); routes and next hops without them, recursive next
hops (resolved on the lines that follow) and `inactive` ones are left out. EOS prints active routes
only, ECMP next hops on continuation lines, either after the prefix (`[200/0] via 10.1.11.4,
Ethernet1`) or, since 4.2x, on their own lines. Connected routes become a next hop with a port and
no address; discard routes (`Null0`, `unreachable (blackhole)`) a route with no next hops. Routes of
VRFs other than the default one are not kept: RoCE fabrics route in the default VRF, and a
management VRF's default route would name ports outside the fabric.

Cisco NX-OS (Nexus 9000 Unicast Routing Configuration Guide, `show ip route`: "'*' denotes best ucast
next-hop, '**' denotes best mcast next-hop") prints a prefix line (`10.1.0.0/24, ubest/mbest: 2/0`) and
one `*via ADDRESS, INTERFACE, [pref/metric], age, protocol` line per next hop: only the best unicast
ones (one `*`) forward. A next hop without an interface (iBGP, eBGP multihop) is resolved here through
the longest-prefix route of the same table, as the switch resolves it; `direct` and `local` hops are
connected routes (a port, no address).
"""

from __future__ import annotations

import ipaddress
import json
import re

from ..docpos import json_value
from ..lazyre import lazy
from ..model import NextHop, ParseIssue, Route, Source
from ..prefixes import LongestPrefix
from ..records import record
from .base import PROMPT_HOST, Input, IssueList, LineAt, cli_json, cli_json_documents, long_interface_name
from .base import prompt_host as base_prompt_host

# A route's first line: protocol code (FRR `B>*`, EOS ` B E`, ` O E1`, ` NG`), then the prefix.
# FRR 10 spaces an unselected route's FIB mark (`L * 10.0.0.1/32`): such a line is a header too, not left unread.
_HEADER = lazy(r"^(?P<code>\s*[A-Za-z][A-Za-z0-9>*=]*(?:\s[A-Z][A-Z0-9]?|\s\*)?)\s+"
                     r"(?P<prefix>[0-9A-Fa-f:.]+/\d+)(?:\s+(?P<rest>.*))?$")
# A further next hop of the route above: indented, FRR puts `*` before an installed one.
_CONTINUATION = lazy(r"^\s+(?P<fib>\*)?\s*(?P<hop>(?:via|is directly|directly connected|Null0|unreachable)\b.*)$")
# `VRF: x` (EOS; 4.1x `VRF name: x`), `VRF x:` (FRR), `IPv4 unicast VRF x:` (FRR 10),
# `IP Route Table for VRF "x"` (NX-OS).
_VRF = lazy(r"^\s*(?:VRF(?: name)?(?::\s*(?P<eos>\S+)|\s+(?P<frr>\S+?):)|IPv[46] unicast VRF\s+(?P<frr10>\S+?):"
                  r'|IP(?:v6)? Rout(?:e|ing) Table for (?:VRF|Context)\s+"(?P<nxos>[^"]*)")\s*$')
# NX-OS: `10.1.0.0/24, ubest/mbest: 2/0[, attached]` (older: `1 ucast next-hops, 0 mcast next-hops`).
_NXOS_HEADER = lazy(r"^(?P<prefix>[0-9A-Fa-f:.]+/\d+),\s+(?:ubest/mbest:|\d+ ucast next-hops)")
# `*via 10.0.0.1, Eth1/49, [20/0], 1d02h, bgp-65000, external, tag 65001`, `*via 172.16.1.2, [200/0], ...`,
# `*via Null0, [1/0], ...`, `*via fe80::1%default, Eth1/1, ...`
_NXOS_HOP = lazy(r"^\s*(?P<stars>\**)via\s+(?P<target>[^,\s]+),\s*(?:(?P<iface>[^,\[\s]+),\s*)?"
                       r"(?P<rest>\[\d+/\d+\].*)$")
_DISTANCE = lazy(r"^\[\d+/\d+\]\s*")
_INTERFACE_END = lazy(r"[,\s]")
DEFAULT_VRFS = {"default", "global"}

_SKIP = object()  # a next hop that does not forward (recursive, inactive)
_INACTIVE = lazy(r"\binactive\b")
# The headers of a Junos forwarding table (`show route forwarding-table`) and of its routing table's text
_FORWARDING_HEAD = lazy(r"^Routing table: \S+\.inet6?\s*$", re.MULTILINE)
_TEXT_HEAD = lazy(r"^\S*inet6?\.\d+: \d+ destinations?,", re.MULTILINE)
_DISCARD = object()  # a route that drops what it matches


# What parse/junos_routes.py reads, and how a file is told to be one of them: here, so that a lint whose routing
# tables are not Junos's does not import that reader (its regular expressions are compiled at import).
JUNOS_READ = "Junos `show route` (text or `| display json`) or `show route forwarding-table`"
READ = ("`show ip route` / `show ipv6 route` of FRR (SONiC vtysh, Cumulus; text or `json`), Arista EOS (text or "
        f"`| json`) or Cisco NX-OS; {JUNOS_READ}")


# A prompt that ran the routing-table command: `leaf1#show ip route`, `user@qfx-leaf1> show route forwarding-table`,
# abbreviated as EOS, NX-OS, FRR's vtysh and the Junos CLI take it (`sh ip ro`: base.unique_prefix's sources), or vtysh
# at a shell, also through sudo and a multi-ASIC namespace (`sudo ip netns exec asic0 vtysh -c ...`).
_PROMPT = lazy(rf"^{PROMPT_HOST.pattern}\s*(?:sh(?:ow?)?\s+(?:ipv6\s+|ip\s+)?ro(?:u(?:te?)?)?\b"
               r"|(?:sudo\s+)?(?:ip\s+netns\s+exec\s+\S+\s+)?vtysh)", re.MULTILINE)


def prompt_host(text: str) -> str | None:
    """The switch the prompt line that ran the routing-table command names, when the capture has one."""
    return base_prompt_host(_PROMPT.search(text[:4096]))


def is_junos(text: str) -> str | None:
    """"text", "json" or "forwarding" for a Junos routing table of that kind; None for any other text."""
    head = text[:4096]
    if (document := cli_json(head)) is not None:  # (past the CLI's `{master:0}` and prompt lines)
        return "json" if '"route-information"' in document else None
    if _FORWARDING_HEAD.search(head) or "Destination        Type RtRef" in head:
        return "forwarding"
    if "+ = Active Route" in head or _TEXT_HEAD.search(head):
        return "text"
    return None


def _routed_twice(inp: Input, routes: list[Route], issues: list[ParseIssue]) -> None:
    """A SYS002 at each route whose prefix an earlier document of the file routed through other next hops (one
    switch's table holds one route a prefix; the default VRF's of two outputs saved at different times, or of two
    switches whose prompts do not say so): the later is the one kept, said rather than kept silently."""
    seen: dict[str, Route] = {}
    for route in routes:
        earlier = seen.setdefault(route.prefix, route)
        if earlier is not route and earlier.next_hops != route.next_hops:
            seen[route.prefix] = route
            at = earlier.source.line if earlier.source else None
            issues.append(ParseIssue(code="SYS002", source=route.source, message=(
                f"{route.prefix} is routed twice in this file, through other next hops at line {at} "
                f"({_hops(earlier)}) than here ({_hops(route)}): the outputs are of different times or switches; "
                "this later route is the one used")))


def _hops(route: Route) -> str:
    return ", ".join(" ".join(filter(None, (hop.address, hop.port))) for hop in route.next_hops) or "discard"


def parse_routes(inp: Input) -> tuple[list[Route], list[ParseIssue]]:
    """Routes with their forwarding next hops, and the lines that could not be read (SYS002); text that is no
    routing table read here is one SYS001."""
    if kind := is_junos(inp.text):
        from . import junos_routes

        return junos_routes.parse(inp, kind)
    if (documents := cli_json_documents(inp.text, inp.path)) is not None:
        # (a session that saved `show ip route vrf all | json` and `show ipv6 route vrf all | json` in one file: the
        # routes of each document, at the file's lines)
        read: list[Route] = []
        said_all: list[ParseIssue] = IssueList()
        for number, (before, text) in enumerate(documents, 1):
            found, said = _frr_json(_Document.of(inp.path, before, text, number, len(documents)), text)
            read.extend(found)
            said_all.extend(said)
        _routed_twice(inp, read, said_all)
        return read, said_all
    lines = inp.text.splitlines()
    if any(_NXOS_HEADER.match(line) for line in lines[:200]):
        return _nxos(inp, lines)
    frr = "selected route" in inp.text or any(
        (m := _HEADER.match(line)) and (">" in m["code"] or "*" in m["code"]) for line in lines)
    routes: list[Route] = []
    issues: list[ParseIssue] = IssueList()
    current: _Entry | None = None
    vrf_ok = True
    vrf_seen = False

    def issue(n: int, message: str) -> None:
        issues.append(_skipped(inp, n, message))

    def close() -> None:
        if current is not None and vrf_ok and (current.hops or current.discard):
            routes.append(Route(prefix=current.prefix, next_hops=current.hops, source=current.source))

    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        vrf = _VRF.match(line)
        if vrf:
            close()
            current = None
            vrf_ok = (vrf["eos"] or vrf["frr"] or vrf["frr10"]) in DEFAULT_VRFS
            vrf_seen = True
            continue
        head = _HEADER.match(line)
        if head:
            close()
            current = None
            code = head["code"].strip()
            try:
                prefix = str(ipaddress.ip_network(head["prefix"], strict=False))
            except ValueError:
                issue(n, f"{head['prefix']!r} is not an IP prefix")
                continue
            if frr and ">" not in code:
                continue  # FRR: not the selected route for this prefix
            current = _Entry(prefix, Source(file=inp.path, line=n))
            rest = _DISTANCE.sub("", (head["rest"] or "").strip())
            if rest:
                current.add(_hop(rest), installed=not frr or "*" in code, n=n, issue=issue)
            continue
        cont = _CONTINUATION.match(line)
        if cont:
            if current is None:
                continue  # next hops of a route that is not kept (not selected) or of a header we skipped
            current.add(_hop(cont["hop"]), installed=not frr or bool(cont["fib"]), n=n, issue=issue)
        elif current is not None and line[:1].isspace():
            issue(n, f"next hop not understood: {line.strip()!r}")
    close()
    if not routes and not issues:
        issues.append(_no_default(_Document(inp.path)) if vrf_seen else _unknown(_Document(inp.path)))
    return routes, issues


@record(frozen=True)
class _Document:
    """Where one routing table of a file stands, so that its reader makes each Source once: ``path``; the file's
    lines before it (its lines are the file's past those); with several JSON documents in the file (a session that
    saved `show ip route vrf all | json` and `show ipv6 route vrf all | json`), its first line and the ``label`` an
    issue of the whole document (not a routing table, none of the default VRF), or one at no line, says which it is."""

    path: str
    before: int = 0
    first: int | None = None
    label: str = ""  # "JSON document N of M (line F): ", or "" for a file of one

    @staticmethod
    def of(path: str, before: int, text: str, number: int, count: int) -> _Document:
        if count == 1:
            return _Document(path, before)
        first = before + text.count("\n", 0, len(text) - len(text.lstrip())) + 1
        return _Document(path, before, first, f"JSON document {number} of {count} (line {first}): ")

    def whole(self, code: str, message: str) -> ParseIssue:
        """An issue of the whole document: at the file, its path first; or at the document's line, its label first."""
        if self.label:
            return ParseIssue(code=code, source=Source(file=self.path, line=self.first), message=self.label + message)
        return ParseIssue(code=code, source=Source(file=self.path), message=f"{self.path}: {message}")

    def at(self, code: str, line: int | None, message: str) -> ParseIssue:
        """An issue at a line of the document (``line``: the file's); one at no line is at the document's."""
        if line is None and self.label:
            return ParseIssue(code=code, source=Source(file=self.path, line=self.first), message=self.label + message)
        return ParseIssue(code=code, source=Source(file=self.path, line=line), message=message)


def _no_default(doc: _Document) -> ParseIssue:
    """A routing table of a known format whose default VRF holds no route: nothing of it is used."""
    return doc.whole("SYS002", "a routing table with no route of the default VRF; no route read")


def _skipped(inp: Input, line: int, message: str) -> ParseIssue:
    return ParseIssue(code="SYS002", message=f"{message}; line skipped", source=Source(file=inp.path, line=line))


def _unknown(doc: _Document) -> ParseIssue:
    return doc.whole("SYS001", f"no routing-table entries found; read are: {READ}")


_OVERLAY_TAIL = lazy(r"\bsegid:|\bencap:")
_CONNECTED_TAIL = lazy(r",\s*(?:direct|local|hsrp|vrrp)\b")


def _nxos(inp: Input, lines: list[str]) -> tuple[list[Route], list[ParseIssue]]:
    """NX-OS `show ip route`: a prefix line, then its `*via` lines; routes of VRFs other than the default left out."""
    routes: list[Route] = []
    issues: list[ParseIssue] = IssueList()
    current: _Entry | None = None
    vrf_ok = True
    unresolved: list[tuple[_Entry, str]] = []  # (route, next-hop address without an interface)
    entries: list[_Entry] = []
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []  # each entry's prefix

    def issue(n: int, message: str) -> None:
        issues.append(_skipped(inp, n, message))

    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if vrf := _VRF.match(line):
            current, vrf_ok = None, (vrf["nxos"] or vrf["eos"] or vrf["frr"] or vrf["frr10"]) in DEFAULT_VRFS
            continue
        if head := _NXOS_HEADER.match(line):
            current = None
            try:
                net = ipaddress.ip_network(head["prefix"], strict=False)
            except ValueError:
                issue(n, f"{head['prefix']!r} is not an IP prefix")
                continue
            if vrf_ok:
                current = _Entry(str(net), Source(file=inp.path, line=n))
                entries.append(current)
                networks.append(net)
            continue
        hop = _NXOS_HOP.match(line)
        if hop is None:
            if current is not None and line[:1].isspace() and "via" in line:
                issue(n, f"next hop not understood: {line.strip()!r}")
            continue
        if current is None or hop["stars"] != "*":  # not kept, not the best unicast hop (`**`: multicast)
            continue
        (target, _, in_vrf), iface, rest = hop["target"].partition("%"), hop["iface"], hop["rest"]
        if target == "Null0" or (iface or "").startswith("Null"):
            current.discard = True
            continue
        port = long_interface_name(iface) if iface else None
        if _CONNECTED_TAIL.search(rest):
            if port:
                current.keep(NextHop(port=port))
            continue
        try:
            ipaddress.ip_address(target)
        except ValueError:
            issue(n, f"next hop not understood: {line.strip()!r}")
            continue
        if port is None and ((in_vrf and in_vrf not in DEFAULT_VRFS) or _OVERLAY_TAIL.search(rest)):
            # a next hop in another VRF (`%management`), or a VTEP behind a VXLAN tunnel (EVPN `segid: ... encap:
            # VXLAN`): not reached through this table's cables; kept without an interface (the path is unverified)
            current.keep(NextHop(address=target))
        elif port is None:
            unresolved.append((current, target))
        else:
            current.keep(NextHop(address=target, port=port))
    if unresolved:
        table = LongestPrefix(zip(networks, entries, strict=True))
        for last in (False, False, True):  # a next hop reached through another recursive one: its route first
            found: dict[str, list[NextHop]] = {}
            for entry, address in unresolved:
                if address not in found:
                    found[address] = _resolve(table, address)
                for h in found[address] or ([NextHop(address=address)] if last else []):
                    entry.keep(h)
    routes = [Route(prefix=e.prefix, next_hops=e.hops, source=e.source) for e in entries if e.hops or e.discard]
    if not routes and not issues:
        issues.append(_no_default(_Document(inp.path)))
    return routes, issues


def _frr_json(doc: _Document, text: str) -> tuple[list[Route], list[ParseIssue]]:
    """FRR `show ip route json` (`{PREFIX: [entry, ...]}`) or `show ip route vrf all json` (`{VRF: {PREFIX: ...}}`):
    the entry with `"selected": true`, its next hops with `"fib": true` (FRR zebra_vty.c writes the FIB mark of the
    text as "fib" and a resolved recursive hop as one of its own). ``text``: the file's, with the prompt lines around
    the document blanked (cli_json), so that it is read and searched at the file's own positions."""
    try:
        data = json_value(text)
    except ValueError as exc:
        return [], [doc.whole("SYS001", f"routing table JSON is not valid ({exc})")]
    if not isinstance(data, dict):
        return [], [_unknown(doc)]
    if isinstance(data.get("vrfs"), dict):
        return _eos_json(doc, text, data["vrfs"])
    search_from = 0  # (where the line search for the prefix keys starts)
    if data and not all(isinstance(v, dict) for v in data.values()) and not any(_is_prefix(k) or "/" in k
                                                                              for k in data):
        # a plain table with no key an IP prefix or near one (EOS `show lldp neighbors | json`'s `{"lldpNeighbors":
        # [...]}`, a second command's document in a session's file): no routing table, not one of bad prefixes
        return [], [_unknown(doc)]
    if data and all(isinstance(v, dict) for v in data.values()):  # keyed by VRF, or a JSON of another platform
        if not _keyed_by_vrf(data):
            return [], [_unknown(doc)]
        name = next((k for k in data if k in DEFAULT_VRFS), None)
        if name is None:
            return [], [_no_default(doc)]
        data = data[name]
        # the default VRF's key (`"default": {`), not the `"vrfName": "default"` FRR writes inside every entry
        key = re.search(rf'"{re.escape(name)}"\s*:', text)
        search_from = key.end() if key else 0
    routes: list[Route] = []
    issues: list[ParseIssue] = IssueList()
    line_at = LineAt(text, first=doc.before + 1, search_from=search_from)
    slash = "\\/" if "\\/" in text else "/"  # some FRR releases escape the slash of a prefix key: "10.0.0.0\/24"
    for key, entries in data.items():
        line = line_at.find('"' + key.replace("/", slash) + '"')  # (one written otherwise: no line, nor after it)
        if (prefix := _json_prefix(doc, key, line, issues)) is None:
            continue
        chosen = next((e for e in entries if isinstance(e, dict) and e.get("selected") is True), None) \
            if isinstance(entries, list) else None
        if chosen is None:
            continue
        entry = _Entry(prefix, Source(file=doc.path, line=line))
        hops = chosen.get("nexthops")
        for nh in hops if isinstance(hops, list) else []:
            if not isinstance(nh, dict) or nh.get("fib") is not True:
                continue
            name = nh.get("interfaceName") if isinstance(nh.get("interfaceName"), str) else None
            if nh.get("unreachable") or nh.get("blackhole") or name == "Null0":
                entry.discard = True
            elif isinstance(nh.get("ip"), str) and not nh.get("directlyConnected"):
                entry.add(NextHop(address=nh["ip"], port=name), installed=True, n=0, issue=None)
            elif name:
                entry.add(NextHop(port=name), installed=True, n=0, issue=None)
        if entry.hops or entry.discard:
            routes.append(Route(prefix=entry.prefix, next_hops=entry.hops, source=entry.source))
    if not routes and not issues:
        issues.append(_no_default(doc) if data else _unknown(doc))
    return routes, issues


def _json_prefix(doc: _Document, key: object, line: int | None, issues: list[ParseIssue]) -> str | None:
    """A JSON routing table's prefix key as a network, or None with a SYS002 saying the route is skipped."""
    try:
        return str(ipaddress.ip_network(str(key), strict=False))
    except ValueError:
        issues.append(doc.at("SYS002", line, f"{str(key)[:60]!r} is not an IP prefix; route skipped"))
        return None


def _eos_json(doc: _Document, text: str, vrfs: dict) -> tuple[list[Route], list[ParseIssue]]:
    """Arista EOS `show ip route [vrf all] | json` (eAPI's form of the text: `{"vrfs": {VRF: {"routes": {PREFIX:
    {"routeAction", "vias": [...]}}}}}`, as cEOS 4.2x prints it in batfish/lab-validation's captures): the routes EOS
    prints, which are its active ones, as in the text. A via gives its port and next hop (`interface`,
    `nexthopAddr`), a connected route's its port only; an EVPN route's via gives the VTEP (`vtepAddr`) and no port, so
    the hop has an address and no port (the text names the VXLAN interface); `routeAction` `drop` (an aggregate or a
    static route to Null0) discards."""
    name = next((k for k in vrfs if k in DEFAULT_VRFS), None)
    table = vrfs.get(name) if name is not None else None
    routes_of = table.get("routes") if isinstance(table, dict) else None
    if not isinstance(routes_of, dict):
        return [], [_no_default(doc) if vrfs else _unknown(doc)]
    key = re.search(rf'"{re.escape(str(name))}"\s*:', text)
    line_at = LineAt(text, first=doc.before + 1, search_from=key.end() if key else 0)
    routes: list[Route] = []
    issues: list[ParseIssue] = IssueList()
    for prefix_text, body in routes_of.items():
        line = line_at.find(json.dumps(prefix_text))
        if (prefix := _json_prefix(doc, prefix_text, line, issues)) is None:
            continue
        if not isinstance(body, dict):
            issues.append(doc.at("SYS002", line, f"route {prefix} is not an object; skipped"))
            continue
        entry = _Entry(prefix, Source(file=doc.path, line=line))
        vias = body.get("vias")
        for via in vias if isinstance(vias, list) else []:
            if not isinstance(via, dict):
                continue
            port = via.get("interface") if isinstance(via.get("interface"), str) else None
            address = next((via[k] for k in ("nexthopAddr", "vtepAddr") if isinstance(via.get(k), str)), None)
            if port == "Null0":
                entry.discard = True
            elif address is not None or port is not None:
                entry.add(NextHop(address=address, port=port), installed=True, n=0, issue=None)
        if body.get("routeAction") == "drop":
            entry.discard = True
        if entry.hops or entry.discard:
            routes.append(Route(prefix=entry.prefix, next_hops=entry.hops, source=entry.source))
        elif body.get("routeAction") == "forward":
            issues.append(doc.at("SYS002", line,
                                 f"route {prefix} forwards, but no next hop of it was understood; skipped"))
    if not routes and not issues:
        issues.append(_no_default(doc))
    return routes, issues


def _keyed_by_vrf(data: dict) -> bool:
    """FRR `show ip route vrf all json` (values all objects): some VRF's table keyed by IP prefixes, or every table
    empty. A JSON of another shape whose values are objects (EOS `{"vrfs": ...}`, NX-OS `{"TABLE_vrf": ...}`) is not
    one (EOS's is read by _eos_json; NX-OS's is not read): read as one it would say "no route of the default VRF"."""
    return all(not v for v in data.values()) or any(_is_prefix(k) for v in data.values() for k in v)


def _is_prefix(text: str) -> bool:
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return "/" in text


def _resolve(table: LongestPrefix[_Entry], address: str) -> list[NextHop]:
    """The next hops with an interface that ``address`` reaches, as the switch resolves a BGP next hop; the address
    itself on a connected route's port; [] when nothing reaches it."""
    addr = ipaddress.ip_address(address)
    entry = table.match(addr.version, int(addr))
    if entry is None:
        return []
    return [NextHop(address=address, port=h.port) if h.address is None else h
            for h in entry.hops if h.port]  # connected: the address is on that port's subnet


class HopsOnce:
    """A route's next hops in their order, each once. A set of (port, address) beside the list: the list's `in` made an
    ECMP route of 10,000 next hops 50 million comparisons (13 s CPU for two such tables)."""

    def __init__(self) -> None:
        self.hops: list[NextHop] = []
        self._kept: set[tuple[str | None, str | None]] = set()

    def keep(self, hop: NextHop) -> None:
        key = (hop.port, hop.address)  # (what NextHop compares)
        if key not in self._kept:
            self._kept.add(key)
            self.hops.append(hop)


class _Entry(HopsOnce):
    def __init__(self, prefix: str, source: Source):
        super().__init__()
        self.prefix = prefix
        self.source = source
        self.discard = False

    def add(self, hop, *, installed: bool, n: int, issue) -> None:
        if hop is None:
            issue(n, "next hop not understood")
        elif hop is _DISCARD:
            self.discard = self.discard or installed
        elif hop is not _SKIP and installed:
            self.keep(hop)


_LOCAL_INTERFACE = lazy(r"^(\S+).*\blocal-interface\s+(\S+)")


def _hop(text: str):
    """One next hop: NextHop, _SKIP (does not forward), _DISCARD, or None (not understood)."""
    text = _DISTANCE.sub("", text.strip())
    for lead in ("is directly connected,", "directly connected,"):
        if text.startswith(lead):
            port = _interface(text[len(lead):])
            return _DISCARD if port == "Null0" else NextHop(port=port)  # EOS: `is directly connected, Null0`
    if text.startswith(("Null0", "unreachable", "blackhole")):
        return _DISCARD
    if not text.startswith("via "):
        return None
    words = text[4:].split(None, 1)
    target, rest = words[0].rstrip(","), (words[1] if len(words) > 1 else "")
    if target == "VTEP":  # EOS EVPN: via VTEP 10.1.1.1 VNI 10010 router-mac ... local-interface Vxlan1
        m = _LOCAL_INTERFACE.search(rest)
        return NextHop(address=m[1], port=m[2]) if m else None
    try:
        ipaddress.ip_address(target)
    except ValueError:  # EOS: via Ethernet2.101, directly connected
        return NextHop(port=target) if "directly connected" in rest else None
    if "(recursive)" in rest or _INACTIVE.search(rest):
        return _SKIP
    if rest.startswith("(blackhole)"):
        return _DISCARD
    return NextHop(address=target, port=_interface(rest) if words[0].endswith(",") else None)


def _interface(text: str) -> str | None:
    """The interface name at the start of `Ethernet0, 00:01:51` or `Ethernet0 onlink, weight 1`."""
    name = _INTERFACE_END.split(text.strip(), 1)[0]
    return name or None
