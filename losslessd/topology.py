"""The fabric's cables: a topology file merged with what the devices report (LLDP, SONiC DEVICE_NEIGHBOR).

`topology.yaml` (docs/topology.md; read by losslessd.parse.topology) lists links (`leaf1:Ethernet48 <->
spine1:Ethernet1/1`), and optionally Clos tiers, the routing model, routing-table captures and saved LLDP
outputs. Applying it to a parsed Fabric sets Fabric.links (one Link per cable, with the line or device
report it came from), Device.tier, Fabric.routing and Device.routes. Everything that cannot become a link
(a garbled line, an unknown device or port, the same cable twice, two ends that disagree) becomes a
TopologyIssue that the LNK rules report, and the rest of the fabric is still analysed.
"""

from __future__ import annotations

import os
from collections import deque
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import Any

from .errors import InputError
from .model import Device, DeviceKind, Endpoint, Fabric, Link, Neighbor, ParseIssue, Source, TopologyIssue
from .parse import display_path, lldp, read_input
from .parse.base import Input, long_interface_name
from .parse.routes import parse_routes
from .parse.routes import prompt_host as routes_prompt_host
from .parse.topology import ARROW, MAX_TIER, ROUTINGS, TOPOLOGY_FILES, Topology, entry_issue, find, from_data, read
from .paths.routing import aggregate_ports
from .platforms import PLATFORMS
from .tuples import NamedTuple

__all__ = ["MAX_TIER", "ROUTINGS", "TOPOLOGY_FILES", "Topology", "apply", "find", "from_data", "read"]


# ---- applying a topology to a fabric -----------------------------------------------------------------------
def apply(fabric: Fabric, topo: Topology | None) -> None:
    """Set Fabric.links, tiers and routing from the topology (may be None) and the devices' own reports."""
    names = _Names(fabric)
    if topo is not None:
        fabric.topology_issues.extend(topo.issues)
        fabric.topology_source = topo.source(1)
        reads: dict[str, Input | None] = {}  # each file the topology names is read once, however often named
        _read_lldp(fabric, topo, names, reads)
        _read_routes(fabric, topo, names, reads)
    merger = _Merger(fabric, names, topo)
    if topo is not None:
        merger.topology_links(topo)
    merger.reported_links()
    _tiers(fabric, topo, names)
    if topo is not None:
        fabric.routing = topo.routing or ("routes" if topo.routes else "shortest-path")


class _End(NamedTuple):
    """An Endpoint that can key a dict."""

    device: str
    port: str

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"


_name = attrgetter("name")  # (a device's, the order of the walk below)
_end = partial(tuple.__new__, _End)  # _End(...) without its __new__ in Python (two per host of a fleet)


def _claim_order(claim: tuple[_End, Any]) -> str:
    """A claim's place in the walk: its port as str(_End) writes it, `device:port`, joined in C."""
    return ":".join(claim[0])


def _ignores_case(platform: str | None) -> bool:
    """Whether the platform's CLI takes an interface name in any case (platforms.py)."""
    record = PLATFORMS.get(platform or "")
    return record is not None and record.port_names_ignore_case


class _Names:
    """Device and port names as other devices write them: FQDNs, EOS short names, SONiC aliases, any case."""

    def __init__(self, fabric: Fabric):
        self.fabric = fabric
        # A device by its name in any case, or by any leading part of a dotted name (`leaf1.pod2` as `leaf1.pod2.dc`'s
        # neighbour, `leaf1` for `leaf1.pod1`); a part two devices share names neither (None: `leaf1` of `leaf1.pod1`
        # and `leaf1.pod2` was leaf1.pod1's, and leaf1.pod2's own table, its prompt `leaf1#`, refused as not its own).
        parts: dict[str, str | None] = {}
        whole: dict[str, str] = {}
        for name in fabric.devices:
            lower = name.lower()
            whole[lower] = name
            while "." in lower:  # (`a.b.c`: `a.b`, then `a`)
                lower = lower.rpartition(".")[0]
                parts[lower] = name if parts.get(lower, name) == name else None
        self._devices: dict[str, str | None] = {**parts, **whole}
        # device -> [port -> alias, name or alias (lower-case where folded) -> port, whether the names fold case]
        self._ports: dict[str, list] = {}
        self._named: dict[str, Device | None] = {}  # a name as written -> its device (a fleet names a few often)
        self._forms: dict[tuple, dict[str, str]] = {}  # (folds case, (port, alias) pairs) -> name or alias -> port

    def device(self, name: str) -> Device | None:
        devices = self.fabric.devices
        if name in devices:
            return devices[name]
        try:
            return self._named[name]
        except KeyError:
            form, found = name.lower(), None
            while form:  # (the whole name, then without its last label, and so on to the first that is known)
                if form in self._devices:
                    found = self._devices[form]
                    break
                form = form.rpartition(".")[0]
            device = self._named[name] = devices[found] if found else None
            return device

    def port(self, device: Device, name: str) -> str | None:
        known = self._ports.get(device.name)
        if known is None:
            known = self._ports[device.name] = [device.port_aliases(), None, False]
        if name in known[0]:
            return name
        if known[1] is None:  # the other forms, made when a name is not a port's own (once per port list: read only)
            # A name in another case is the same port only where the platform takes names in any case (NX-OS, EOS:
            # platforms.Platform.port_names_ignore_case); SONiC's `ethernet0` is no port of one whose port is Ethernet0.
            fold = known[2] = _ignores_case(device.platform)
            ports = tuple(known[0].items())
            index = self._forms.get((fold, ports))
            if index is None:
                index = self._forms[(fold, ports)] = {}
                for port, alias in ports:
                    for form in (port, alias):
                        if form:
                            index.setdefault(form.lower() if fold else form, port)
            known[1] = index
        if not known[2]:
            return known[1].get(name) or known[1].get(long_interface_name(name))
        return known[1].get(name.lower()) or known[1].get(long_interface_name(name, ignore_case=True).lower())


def _read_lldp(fabric: Fabric, topo: Topology, names: _Names, reads: dict[str, Input | None]) -> None:
    """Saved LLDP outputs the topology names: the device is the entry's key, a prompt line, or the file name. A file
    listed again without a device was dropped when the topology was read; one named for a device that is not linted
    is not read."""
    for device_name, path, line in topo.lldp:
        if device_name is not None and names.device(device_name) is None:
            fabric.topology_issues.append(TopologyIssue(
                code="LNK006", message=f"lldp: {device_name} is not among the linted devices; its LLDP output "
                f"{display_path(path)} is not used", key=f"lldp|{display_path(path)}", source=topo.source(line)))
            continue
        inp = _input(fabric, path, reads)
        if inp is None:
            continue
        shown, text = inp.path, inp.text
        device_name = device_name or lldp.prompt_host(text) or path.stem
        device = names.device(device_name)
        if device is None:
            fabric.topology_issues.append(TopologyIssue(
                code="LNK006", message=f"LLDP output {shown} is for {device_name}, which is not among the linted "
                "devices; name the device (`lldp: {DEVICE: FILE}`) or lint its config too",
                key=f"lldp|{shown}", source=topo.source(line)))
            continue
        neighbors, issues = lldp.parse(text, shown, unknown="SYS001")
        device.neighbors.extend(neighbors)
        device.issues.extend(issues)


def _read_routes(fabric: Fabric, topo: Topology, names: _Names, reads: dict[str, Input | None]) -> None:
    """Routing-table captures (`routes: {leaf1: routes/leaf1.txt}`) -> Device.routes."""
    for device_name, (path, line) in topo.routes.items():
        device = names.device(device_name)
        if device is None:
            fabric.topology_issues.append(TopologyIssue(
                code="LNK006", message=f"routes: {device_name} is not among the linted devices; its routing table "
                f"{display_path(path)} is not used", key=f"routes|{device_name}", source=topo.source(line)))
            continue
        inp = _input(fabric, path, reads)
        if inp is not None and not _routes_of(fabric, topo, names, device, inp, line):
            continue
        if inp is not None:
            try:
                routes, issues = parse_routes(inp)
            except InputError as exc:  # (two switches' tables in one file: unread, as an unreadable file is)
                fabric.issues.append(unread(exc, inp.path))
                continue
            device.routes.extend(routes)
            device.issues.extend(issues)


def _routes_of(fabric: Fabric, topo: Topology, names: _Names, device: Device, inp: Input, line: int | None) -> bool:
    """Whether the routing table ``inp`` may be ``device``'s: one whose prompt names another linted switch
    (`spine1: routes/leaf1.txt`, the file of `leaf1# show ip route`) is LNK006 and not used, so neither switch's
    forwarding is read from the other's table."""
    host = routes_prompt_host(inp.text)
    owner = names.device(host) if host else None
    if owner is None or owner is device:
        return True
    fabric.topology_issues.append(TopologyIssue(
        code="LNK006", message=f"routes: {device.name}'s routing table {inp.path} is {owner.name}'s, as its prompt "
        f"`{host}` says; it is not used for {device.name} (name {device.name}'s own table, or correct the prompt)",
        devices=[device.name], key=f"routes|{device.name}", source=topo.source(line)))
    return False


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except ValueError:  # (a NUL in the name: read_input says so)
        return str(path)


def _input(fabric: Fabric, path: Path, reads: dict[str, Input | None]) -> Input | None:
    """A file the topology names, read once (``reads``, by real path); unreadable -> SYS001 on the fabric (like any
    input, once), None."""
    key = _real(path)
    if key in reads:
        return reads[key]
    try:
        reads[key] = read_input(path)
    except InputError as exc:
        fabric.issues.append(unread(exc, str(path)))
        reads[key] = None
    return reads[key]


def unread(exc: InputError, fallback_file: str) -> ParseIssue:
    """The SYS001 of a file not read: ``exc``'s message at its file (``fallback_file`` where it names none), line and
    pointer."""
    return ParseIssue(code="SYS001", message=exc.message,
                      source=Source(file=exc.file or fallback_file, line=exc.line, pointer=exc.pointer))


_REPEATS_SHOWN = 4  # places a repeated topology issue names before "..."


class _Merger:
    """Builds Fabric.links: topology links first, then every cable the devices report on both or one end."""

    def __init__(self, fabric: Fabric, names: _Names, topo: Topology | None):
        self.fabric = fabric
        self.names = names
        self.topo = topo
        self.linked: dict[_End, tuple[_End, Link]] = {}
        # (code, key) -> the issue, its first message, how many times it was said again and the first few places
        self.reported: dict[tuple[str, str], tuple[TopologyIssue, str, list[int], list[str]]] = {}

    def issue(self, code: str, message: str, ends: list[_End], what: str, source: Source | None,
              severity: str | None = None) -> None:
        """One issue per code and key: a port named wrongly on several lines, or a cable listed many times, is
        reported at the first, counting the repeats and naming where (the first few: a count, not a list, so a
        cable listed a million times holds four places)."""
        key = "|".join(sorted(str(e) for e in ends)) + f"|{what}"
        seen = self.reported.get((code, key))
        if seen is not None:
            found, first, count, places = seen
            count[0] += 1
            if len(places) < _REPEATS_SHOWN:
                places.append(_where(source))
            again = count[0]
            found.message = (f"{first}; said {again} more time{'s' if again > 1 else ''} "
                             f"({', '.join(dict.fromkeys(places))}{', ...' if again > _REPEATS_SHOWN else ''})")
            return
        issue = TopologyIssue(code=code, message=message, devices=list(dict.fromkeys(e.device for e in ends)),
                              port=ends[0].port if ends else None, key=key, severity=severity, source=source)
        self.reported[(code, key)] = (issue, message, [0], [])
        self.fabric.topology_issues.append(issue)

    def add(self, a: _End, b: _End, origin: str, source: Source | None) -> None:
        link = _link(a, b, origin, source)
        self.fabric.links.append(link)
        self.linked[a] = (b, link)
        self.linked[b] = (a, link)

    # -- topology.yaml ------------------------------------------------------------------------
    def topology_links(self, topo: Topology) -> None:
        for entry, line in topo.links:
            src, where = topo.source(line), _where(topo.source(line))
            ends = _split_link(entry)
            if ends is None:
                self.fabric.topology_issues.append(entry_issue(
                    topo, f"cannot read link {entry!r}: expected `device:port {ARROW} device:port`", line))
                continue
            resolved = [self.endpoint(dev, port, src, where, "error") for dev, port in ends]
            if None in resolved:
                continue
            a, b = resolved
            if a == b:
                self.fabric.topology_issues.append(entry_issue(topo, f"link {entry!r} joins {a} to itself", line,
                                                                [a.device]))
                continue
            self.place(a, b, src, where)

    def place(self, a: _End, b: _End, src: Source, where: str) -> None:
        """Add a declared link unless it repeats one, or one of its ports is already cabled elsewhere."""
        for end, other in ((a, b), (b, a)):
            if end not in self.linked:
                continue
            far, link = self.linked[end]
            if far == other:
                self.issue("LNK007", f"link {a} {ARROW} {b} ({where}) is listed again; it was first given at "
                           f"{_where(link.source)}", [a, b], "duplicate", src, severity="warning")
            else:
                self.issue("LNK007", f"{end} is on two links: {end} {ARROW} {far} ({_where(link.source)}) and "
                           f"{end} {ARROW} {other} ({where}); a port takes one cable, the second is ignored",
                           [end, other, far], "port-reused", src)
            return
        self.add(a, b, "topology", src)

    def endpoint(self, device_name: str, port_name: str, src: Source | None, where: str, severity: str,
                 reporter: _End | None = None) -> _End | None:
        """The model's name for a device:port, or None after a LNK006 issue saying what is unknown."""
        device = self.names.device(device_name)
        if device is not None:
            port = self.names.port(device, port_name)
            if port is not None:
                return _end((device.name, port))
        ends = [reporter] if reporter else []
        said = (f"{reporter} reports neighbour {device_name}:{port_name} ({where}), but" if reporter
                else f"link end {device_name}:{port_name} ({where}):")
        if device is None:
            # Without a topology file the fabric is whatever was linted: a neighbour outside it is no news.
            if reporter is None or self.topo is not None:
                self.issue("LNK006", f"{said} no device {device_name} is among the linted inputs; the link is not "
                           "checked", ends, f"device {device_name}", src, severity="info" if reporter else severity)
            return None
        members = aggregate_ports(device, port_name)
        if members:  # a cable runs to a member port: the aggregate is no end of one
            self.issue("LNK006", f"{said} {port_name} is a link aggregate of {device.name} (members "
                       f"{', '.join(members[:8])}{' ...' if len(members) > 8 else ''}), not a port: list each member's "
                       f"cable (`{device.name}:{members[0]} {ARROW} ...`); the link is not checked",
                       [*ends, _End(device.name, port_name)], "port", src, severity="warning" if reporter else severity)
            return None
        self.issue("LNK006", f"{said} {device.name} has no port {port_name} in its input "
                   f"({', '.join(device.files) or 'no file'}); the link is not checked",
                   [*ends, _End(device.name, port_name)], "port", src, severity="warning" if reporter else severity)
        return None

    # -- what the devices report --------------------------------------------------------------
    def reported_links(self) -> None:
        """A cable both ends report, or one end reports and nothing contradicts, becomes a link; a report that
        contradicts the topology, an earlier link, or the far end's own report is LNK008."""
        claims: dict[_End, tuple[_End, Neighbor]] = {}
        ambiguous: set[_End] = set()
        for device in sorted(self.fabric.devices.values(), key=_name):
            for nb in device.neighbors:
                port = self.names.port(device, nb.port)
                if port is None:
                    self.unheld(device, nb)
                    continue
                local = _end((device.name, port))
                remote = self.remote(local, nb)
                if remote is None:
                    continue
                if remote == local:
                    self.issue("LNK008", f"{local} reports itself as its neighbour ({self.how(nb)}): a looped "
                               "cable or a copied report; not used", [local], "self", nb.source)
                    continue
                first = claims.setdefault(local, (remote, nb))
                if first[0] != remote and local not in ambiguous:
                    ambiguous.add(local)
                    self.issue("LNK008", f"{local} reports two neighbours, {first[0]} ({self.how(first[1])}) "
                               f"and {remote} ({self.how(nb)}); neither is used", [local, first[0], remote],
                               "two-neighbours", nb.source)
        for local, (remote, nb) in sorted(claims.items(), key=_claim_order):
            if ambiguous and (local in ambiguous or remote in ambiguous):
                continue
            if local in self.linked:
                far, link = self.linked[local]
                if far != remote:
                    self.disagree(local, remote, nb, f"{_origin(link)} says {local} {ARROW} {far}", far)
                continue
            back = claims.get(remote)
            if back is not None and back[0] != local:
                self.disagree(local, remote, nb, f"{remote} reports {back[0]} ({self.how(back[1])})", back[0])
            elif remote in self.linked:
                far, link = self.linked[remote]
                self.disagree(local, remote, nb, f"{_origin(link)} says {remote} {ARROW} {far}", far)
            else:
                self.add(local, remote, nb.origin, nb.source)

    def unheld(self, device: Device, nb: Neighbor) -> None:
        """A neighbour on a port the device's model does not hold: nothing said when the neighbour is no linted device
        (a management port's out-of-band switch); a linted one is a cable that goes unchecked (a port name not
        matched, a NIC port not captured), LNK006 as for a far port the far device lacks."""
        if self.names.device(nb.remote_device) is None:
            return
        far = f"{nb.remote_device}:{nb.remote_port}" if nb.remote_port else nb.remote_device
        self.issue("LNK006", f"{device.name} reports neighbour {far} on its port {nb.port} ({self.how(nb)}), but "
                   f"{device.name} has no port {nb.port} in its input ({', '.join(device.files) or 'no file'}); the "
                   "link is not checked from this end", [_End(device.name, nb.port)], "local port", nb.source,
                   severity="warning")

    def remote(self, local: _End, nb: Neighbor) -> _End | None:
        """The far end a neighbour entry names; a missing port (a MAC port ID) is taken from the far device's
        own report about this port, when it has one."""
        if nb.remote_port is not None:
            return self.endpoint(nb.remote_device, nb.remote_port, nb.source, _kind(nb), "warning", reporter=local)
        device = self.names.device(nb.remote_device)
        port = self.back_port(device, local) if device else None
        if port is None:
            if device is not None or self.topo is not None:
                self.issue("LNK006", f"{local} reports neighbour {nb.remote_device} ({_kind(nb)}) without a port name "
                           "(a MAC port ID?) and the far end does not say which of its ports it is; the link is not "
                           "checked (lldpd: `configure lldp portidsubtype ifname`)", [local],
                           f"port of {nb.remote_device}", nb.source, severity="info")
            return None
        return _end((device.name, port))

    def back_port(self, device: Device, local: _End) -> str | None:
        """The one port of ``device`` whose own neighbour entry names ``local``."""
        me = self.fabric.devices[local.device]
        ports = {self.names.port(device, n.port) for n in device.neighbors
                 if n.remote_port and self.names.device(n.remote_device) is me
                 and self.names.port(me, n.remote_port) == local.port} - {None}
        return ports.pop() if len(ports) == 1 else None

    def how(self, nb: Neighbor) -> str:
        """How and where a device reported a neighbour, with the line (a DocRef looks its line up when read)."""
        return f"{_kind(nb)}, {_where(nb.source)}"

    def disagree(self, local: _End, remote: _End, nb: Neighbor, but: str, other: _End) -> None:
        self.issue("LNK008", f"{local} reports neighbour {remote} ({self.how(nb)}), but {but}: the accounts "
                   "of this cabling disagree, so it is not checked", [local, remote, other], "neighbours", nb.source)


def _link(a: _End, b: _End, origin: Any, source: Source | None) -> Link:  # (origin: Link.origin's words)
    """Link(a=Endpoint(...), b=Endpoint(...), origin=..., source=...), set slot by slot as model._source does (a link
    per host of a fleet: about half the time of the keywords; Link and Endpoint are records without checks)."""
    link, one, other = _new(Link), _new(Endpoint), _new(Endpoint)
    one.device, one.port = a
    other.device, other.port = b
    link.a, link.b, link.origin, link.source = one, other, origin, source
    return link


_new = object.__new__


def _split_link(entry: Any) -> list[tuple[str, str]] | None:
    if not isinstance(entry, str) or entry.count(ARROW) != 1:
        return None
    ends = []
    for side in entry.split(ARROW):
        device, colon, port = side.strip().partition(":")
        if not colon or not device.strip() or not port.strip() or " " in device.strip() or " " in port.strip():
            return None
        ends.append((device.strip(), port.strip()))
    return ends


def _where(source: Source | None) -> str:
    return source.describe() if source else "?"


def _kind(nb: Neighbor) -> str:
    return "LLDP" if nb.origin == "lldp" else "config DEVICE_NEIGHBOR"


def _origin(link: Link) -> str:
    kind = {"topology": "the topology", "lldp": "LLDP", "config": "the config"}[link.origin]
    return f"{kind} ({_where(link.source)})"


def _tiers(fabric: Fabric, topo: Topology | None, names: _Names) -> None:
    """Declared tiers win; otherwise hosts are tier 0 and a switch's tier is its hop distance from the nearest
    host (leaves 1, spines 2, super-spines 3). Switches no host reaches keep None."""
    neighbors: dict[str, set[str]] = {}  # (a device without links has none: no set for each of them)
    for link in fabric.links:
        a, b = link.a.device, link.b.device
        if a in neighbors:
            neighbors[a].add(b)
        else:
            neighbors[a] = {b}
        if b in neighbors:
            neighbors[b].add(a)
        else:
            neighbors[b] = {a}
    hosts = [d.name for d in fabric.devices.values() if d.kind == DeviceKind.host]
    distance = {name: 0 for name in hosts}
    queue = deque(hosts)
    while queue:
        name = queue.popleft()
        for other in neighbors.get(name, ()):  # (a breadth-first walk: the distance is the same in any order)
            if other not in distance and fabric.devices[other].kind != DeviceKind.host:
                distance[other] = distance[name] + 1
                queue.append(other)
    for name, device in fabric.devices.items():
        device.tier = distance.get(name)
    if topo is None:
        return
    for name, (tier, line) in topo.tiers.items():
        device = names.device(name)
        if device is None or not isinstance(tier, int) or isinstance(tier, bool) or not 0 <= tier <= MAX_TIER:
            why = (f"{name} is not among the linted devices" if device is None
                   else f"tier {tier!r} is not a whole number 0-{MAX_TIER}")
            fabric.topology_issues.append(entry_issue(topo, f"tiers: {why}; entry ignored", line))
            continue
        device.tier = tier
        device.tier_source = topo.source(line)
