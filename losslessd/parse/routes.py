"""Routing-table captures: `show ip route` / `show ipv6 route` text from FRR (SONiC vtysh) and Arista EOS.

Only what forwards counts. FRR marks a route's selected entry with `>` and each next hop installed
in the forwarding table with `*` (FRR zebra docs, "ECMP": "The `*` character tells us that the
route is installed in the Data Plane, or FIB"); routes and next hops without them, recursive next
hops (resolved on the lines that follow) and `inactive` ones are left out. EOS prints active routes
only, ECMP next hops on continuation lines, either after the prefix (`[200/0] via 10.1.11.4,
Ethernet1`) or, since 4.2x, on their own lines. Connected routes become a next hop with a port and
no address; discard routes (`Null0`, `unreachable (blackhole)`) a route with no next hops. Routes of
VRFs other than the default one are not kept: RoCE fabrics route in the default VRF, and a
management VRF's default route would name ports outside the fabric.
"""

from __future__ import annotations

import ipaddress
import re

from ..model import NextHop, ParseIssue, Route, Source
from .base import Input

# A route's first line: protocol code (FRR `B>*`, EOS ` B E`, ` O E1`, ` NG`), then the prefix.
_HEADER = re.compile(r"^(?P<code>\s*[A-Za-z][A-Za-z0-9>*=]*(?:\s[A-Z][A-Z0-9]?)?)\s+"
                     r"(?P<prefix>[0-9A-Fa-f:.]+/\d+)(?:\s+(?P<rest>.*))?$")
# A further next hop of the route above: indented, FRR puts `*` before an installed one.
_CONTINUATION = re.compile(r"^\s+(?P<fib>\*)?\s*(?P<hop>(?:via|is directly|directly connected|Null0|unreachable)\b.*)$")
_VRF = re.compile(r"^\s*VRF(?::\s*(?P<eos>\S+)|\s+(?P<frr>\S+?):)\s*$")
_DISTANCE = re.compile(r"^\[\d+/\d+\]\s*")
_INTERFACE_END = re.compile(r"[,\s]")
DEFAULT_VRFS = {"default", "global"}

_SKIP = object()  # a next hop that does not forward (recursive, inactive)
_DISCARD = object()  # a route that drops what it matches


def parse_routes(inp: Input) -> tuple[list[Route], list[ParseIssue]]:
    """Routes with their forwarding next hops, and the lines that could not be read (SYS002)."""
    lines = inp.text.splitlines()
    frr = "selected route" in inp.text or any(
        (m := _HEADER.match(line)) and (">" in m["code"] or "*" in m["code"]) for line in lines)
    routes: list[Route] = []
    issues: list[ParseIssue] = []
    current: _Entry | None = None
    vrf_ok = True

    def issue(n: int, message: str) -> None:
        issues.append(ParseIssue(code="SYS002", message=f"{message}; line skipped", source=Source(file=inp.path, line=n)))

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
            vrf_ok = (vrf["eos"] or vrf["frr"]) in DEFAULT_VRFS
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
        issues.append(ParseIssue(code="SYS002", message="no routing-table entries found (expected `show ip route` "
                                 "output from FRR/SONiC vtysh or Arista EOS)", source=Source(file=inp.path)))
    return routes, issues


class _Entry:
    def __init__(self, prefix: str, source: Source):
        self.prefix = prefix
        self.source = source
        self.hops: list[NextHop] = []
        self.discard = False

    def add(self, hop, *, installed: bool, n: int, issue) -> None:
        if hop is None:
            issue(n, "next hop not understood")
        elif hop is _DISCARD:
            self.discard = self.discard or installed
        elif hop is not _SKIP and installed and hop not in self.hops:
            self.hops.append(hop)


def _hop(text: str):
    """One next hop: NextHop, _SKIP (does not forward), _DISCARD, or None (not understood)."""
    text = _DISTANCE.sub("", text.strip())
    for lead in ("is directly connected,", "directly connected,"):
        if text.startswith(lead):
            return NextHop(port=_interface(text[len(lead):]))
    if text.startswith(("Null0", "unreachable", "blackhole")):
        return _DISCARD
    if not text.startswith("via "):
        return None
    words = text[4:].split(None, 1)
    target, rest = words[0].rstrip(","), (words[1] if len(words) > 1 else "")
    if target == "VTEP":  # EOS EVPN: via VTEP 10.1.1.1 VNI 10010 router-mac ... local-interface Vxlan1
        m = re.search(r"^(\S+).*\blocal-interface\s+(\S+)", rest)
        return NextHop(address=m[1], port=m[2]) if m else None
    try:
        ipaddress.ip_address(target)
    except ValueError:  # EOS: via Ethernet2.101, directly connected
        return NextHop(port=target) if "directly connected" in rest else None
    if "(recursive)" in rest or re.search(r"\binactive\b", rest):
        return _SKIP
    if rest.startswith("(blackhole)"):
        return _DISCARD
    return NextHop(address=target, port=_interface(rest) if words[0].endswith(",") else None)


def _interface(text: str) -> str | None:
    """The interface name at the start of `Ethernet0, 00:01:51` or `Ethernet0 onlink, weight 1`."""
    name = _INTERFACE_END.split(text.strip(), 1)[0]
    return name or None
