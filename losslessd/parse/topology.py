"""Topology files (`topology.yaml`, docs/topology.md): read and checked, not yet applied to a fabric.

A topology lists links (`leaf1:Ethernet48 <-> spine1:Ethernet1/1`) and optionally Clos tiers, the routing
model, routing-table captures and saved LLDP outputs. Errors in the YAML itself raise InputError
(file:line); an entry that cannot be used becomes a TopologyIssue (LNK009) and the rest is read.
losslessd.topology applies a Topology to a parsed Fabric.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from .. import yamlcache
from ..docpos import Document
from ..errors import InputError
from ..limits import read_text
from ..model import Source, TopologyIssue
from ..printable import quoted
from ..records import record
from . import display_path

TOPOLOGY_FILES = ("topology.yaml", "topology.yml")
ROUTINGS = ("updown", "shortest-path", "routes")
_KEYS = ("links", "tiers", "routing", "routes", "lldp")
ARROW = "<->"
MAX_TIER = 9


@record
class Topology:
    """A topology file, read and checked but not yet applied to a fabric."""

    file: str
    links: list[tuple[Any, int | None]] = field(default_factory=list)  # (entry as written, line)
    tiers: dict[str, tuple[Any, int | None]] = field(default_factory=dict)
    routing: str | None = None
    routes: dict[str, tuple[Path, int | None]] = field(default_factory=dict)  # device -> capture
    lldp: list[tuple[str | None, Path, int | None]] = field(default_factory=list)  # (device or None, file, line)
    issues: list[TopologyIssue] = field(default_factory=list)
    files: set[str] = field(default_factory=set)  # real paths of routes: and lldp: files: inputs, never devices

    def source(self, line: int | None) -> Source:
        return Source(file=self.file, line=line)


def find(paths: list[str | Path]) -> Path | None:
    """The topology file of the linted folders (topology.yaml beside the device files), if any."""
    found = [Path(p) / name for p in paths if os.path.isdir(p) for name in TOPOLOGY_FILES
             if os.path.lexists(Path(p) / name)]  # a FIFO or a folder of that name is refused when read
    # (one folder named twice, or by a link to it, has one topology file: `lint fabric fabric` was refused)
    found = list({os.path.realpath(f): f for f in reversed(found)}.values())[::-1]
    if len(found) > 1:
        raise InputError(f"several topology files ({', '.join(map(str, found))}); pass one with --topology")
    return found[0] if found else None


def read(path: str | Path, given: Sequence[str | Path] = ()) -> Topology:
    """Read a topology file; InputError (file:line) when the YAML or its layout is unusable. The files it
    names (routes:, lldp:) must lie in its own folder or under one of the ``given`` paths (the command
    line's): a topology file is data, and must not make lint read /etc/shadow or /dev/zero."""
    path = Path(path)
    shown = display_path(path)
    # (read by its own name: a link that leads nowhere is said; the command line's lint keeps its document)
    doc = yamlcache.load(shown, read_text(path, shown))
    doc.refuse_duplicates()
    return _build(doc, path.parent, [path.parent, *map(Path, given)])


def from_data(data: dict, file: str = "topology.yaml", base: Path | None = None) -> Topology:
    """A topology given as data (rule case files, the Python API); lines are unknown."""
    return _build(Document(data, {}, file), base or Path("."), [base or Path(".")])


def _inside(path: Path, tops: list[str]) -> str | None:
    """The real path of ``path`` when it lies under one of ``tops`` (real paths), else None."""
    real = os.path.realpath(path)
    for top in tops:
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return real
    return None


def _build(doc: Document, base: Path, roots: list[Path]) -> Topology:
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise InputError("a topology file is a YAML mapping (links:, tiers:, routing:, routes:, lldp:)",
                         file=doc.file, line=1)
    unknown = sorted(str(key) for key in data if key not in _KEYS)
    if unknown:
        raise InputError(f"unknown key {quoted(unknown[0])}; allowed keys: {', '.join(_KEYS)}", file=doc.file,
                         line=doc.line_of([unknown[0]]))
    topo = Topology(file=doc.file)

    def expect(key: str, kinds: tuple[type, ...], what: str) -> Any:
        value = data.get(key)
        if value is not None and not isinstance(value, kinds):
            raise InputError(f"{key}: expected {what}, got {type(value).__name__}", file=doc.file,
                             line=doc.line_of([key]))
        return value

    links = expect("links", (list,), "a list of `device:port <-> device:port` lines") or []
    topo.links = [(entry, doc.line_of(["links", i])) for i, entry in enumerate(links)]
    for name, tier in (expect("tiers", (dict,), "a mapping of device: tier") or {}).items():
        topo.tiers[str(name)] = (tier, doc.line_of(["tiers", name]))
    routing = expect("routing", (str,), f"one of {', '.join(ROUTINGS)}")
    if routing is not None and routing not in ROUTINGS:
        raise InputError(f"routing: expected one of {', '.join(ROUTINGS)}, got {quoted(routing)}", file=doc.file,
                         line=doc.line_of(["routing"]))
    topo.routing = routing

    tops = [os.path.realpath(root) for root in roots]  # (once: not again for each of 200,000 entries)

    def inside(what: str, rel: str, line: int | None) -> str | None:
        """The file's real path, or None (an LNK009 said why it is not read)."""
        if "\0" in rel:  # (YAML "\0": os.path.realpath raised ValueError, an internal error)
            topo.issues.append(entry_issue(topo, f"{what}: {rel!r} holds a NUL character, which no file name can; "
                                           "not read", line))
            return None
        real = _inside(base / rel, tops)
        if real is None:
            topo.issues.append(entry_issue(topo, f"{what}: {rel!r} is outside the fabric folder "
                                           f"({display_path(base)}); not read: a topology names files beside it "
                                           "(or under a path given on the command line)", line))
        else:
            topo.files.add(real)
        return real

    for name, rel in (expect("routes", (dict,), "a mapping of device: routing-table capture file") or {}).items():
        line = doc.line_of(["routes", name])
        if not isinstance(rel, str):
            topo.issues.append(entry_issue(topo, f"routes: {name}: expected a file name, got {rel!r}", line))
            continue
        if inside(f"routes: {name}", rel, line) is not None:
            topo.routes[str(name)] = (base / rel, line)
    saved = expect("lldp", (list, dict), "a list of files, or a mapping of device: file") or []
    entries = ([(str(k), v, doc.line_of(["lldp", k])) for k, v in saved.items()] if isinstance(saved, dict)
               else [(None, v, doc.line_of(["lldp", i])) for i, v in enumerate(saved)])
    # a file listed again without a device is dropped here, by name before its path is resolved (4 MiB of
    # `- lldp.json` lines name one file 500,000 times), then by real path (`./lldp.json`, a link to it)
    names: set[str] = set()
    reals: set[str] = set()
    for device, rel, line in entries:
        if not isinstance(rel, str):
            topo.issues.append(entry_issue(topo, f"lldp: expected a file name, got {rel!r}", line))
            continue
        if device is None and rel in names:
            continue
        real = inside(f"lldp: {device}" if device else "lldp", rel, line)
        if device is None:
            names.add(rel)
            if real in reals:
                continue
            if real is not None:
                reals.add(real)
        if real is not None:
            topo.lldp.append((device, base / rel, line))
    return topo


def entry_issue(topo: Topology, message: str, line: int | None, devices: list[str] | None = None) -> TopologyIssue:
    return TopologyIssue(code="LNK009", message=message, devices=devices or [], key=f"{topo.file}:{line}:{message}",
                         source=topo.source(line))
