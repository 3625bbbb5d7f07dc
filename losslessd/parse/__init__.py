"""Turn files and folders into a Fabric: find device inputs, detect formats, call pure parsers.

This module is the only one here that touches the file system. One unreadable file becomes a
SYS001 issue on the fabric; every other file is still parsed.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from .. import capture, collect
from ..errors import InputError, internal_error_message
from ..limits import os_reason, read_text
from ..model import Device, Fabric, ParseIssue, Source
from ..platforms import PLATFORMS, SNIFF_ORDER, no_parser_message, resolve_format
from .base import Input, check_port_count

INTERNAL_ERROR = "SYS900"  # a bug in losslessd (rules/sys.py InternalError): the CLI exits 3
Progress = Callable[[int, int], None]  # (done, total)

# Order matters only for sniffing: cheap, specific formats first (Platform.sniff).
_SNIFF_ORDER = SNIFF_ORDER
# SONiC device folder: these files together describe one switch.
SONIC_FOLDER_FILES = ("config_db.json", "qos.json", "buffers.json")
# OpenSM node folder (one subnet manager): opensm.conf first, it is what the format is told from.
OPENSM_FOLDER_FILES = ("opensm.conf", "qos-policy.conf", "partitions.conf", "ibdiagnet2.log", "ibdiagnet.log")
# Files in a fabric folder that are not device configs.
NOT_DEVICE_FILES = {"topology.yaml", "topology.yml", "losslessd.yaml", "inventory.yaml", "policy.yaml"}
NOT_DEVICE_SUFFIXES = {".md", ".sarif", ".rst", ".html", ".png"}
# In a snapshot folder written by `losslessd pull` (one with manifest.json): not device files.
SNAPSHOT_FILES = {collect.MANIFEST, collect.COUNTERS}


def parser_for(platform: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{PLATFORMS[platform].parser}")


def display_path(path: Path) -> str:
    """Relative to the working directory when below it (SARIF wants repo-relative paths)."""
    try:
        # realpath never raises (a symlink loop stays as it is); getcwd already has no symlinks.
        resolved, cwd = os.path.realpath(path), os.getcwd()
        return os.path.relpath(resolved, cwd) if Path(resolved).is_relative_to(cwd) else str(path)
    except (OSError, ValueError):
        return str(path)


def detect(inp: Input) -> str | None:
    """The platform whose parser reads ``inp``; None when none does."""
    for platform in _SNIFF_ORDER:
        if parser_for(platform).sniff(inp):
            return platform
    return None


def read_input(path: Path) -> Input:
    """A device or topology input file, read within the limits (losslessd/limits.py)."""
    shown = display_path(path)
    return Input(shown, read_text(path, shown))


def device_groups(path: Path, not_devices: set[str] | frozenset[str] = frozenset(),
                  snapshots: list[Path] | None = None) -> list[tuple[str, list[Path]]]:
    """(device name, files) for every device under ``path``, less the files ``not_devices`` holds (real
    paths: the routing tables and LLDP outputs a topology file names, which it reads itself); the snapshot
    folders (written by `losslessd pull`) found on the way are added to ``snapshots``."""
    return [(name, files) for name, files in _groups(path, snapshots)
            if not (not_devices and {os.path.realpath(f) for f in files} <= not_devices)]


def _groups(path: Path, snapshots: list[Path] | None = None) -> list[tuple[str, list[Path]]]:
    """(device name, files) for every device under ``path``, in sorted order; the snapshot folders (written by
    `losslessd pull`) found on the way are added to ``snapshots``. Anything that is not a folder
    is a device file candidate: a FIFO, a device node or a broken link then fails to read with a SYS001
    that says what it is, instead of disappearing from the run. Folders are walked without recursion (a
    tree may nest thousands deep), each once (links back to a parent are not followed twice)."""
    if not path.is_dir():
        if not os.path.lexists(path):
            raise InputError("no such file or folder", file=str(path))
        return [(path.stem, [path])]
    out: list[tuple[str, list[Path]]] = []
    seen: set[tuple[int, int]] = set()  # (device, inode) of each folder listed: one stat, whatever the depth
    stack = [iter([path])]  # per folder being listed, its children still to visit (sorted): depth-first order
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        if child is not path and not child.is_dir():
            out.append((child.stem, [child]))
            continue
        try:
            info = child.stat()
        except OSError:
            continue  # it was a folder a moment ago
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        sonic = [child / f for f in SONIC_FOLDER_FILES if os.path.lexists(child / f)]
        if sonic:  # a multi-ASIC /etc/sonic: config_db<N>.json per ASIC namespace beside the host's config_db.json
            sonic += sorted((p for p in child.glob("config_db[0-9]*.json")
                             if re.fullmatch(r"config_db\d{1,3}\.json", p.name)), key=lambda p: int(p.name[9:-5]))
            out.append((child.name, sonic))
        elif os.path.lexists(child / OPENSM_FOLDER_FILES[0]):
            out.append((child.name, [child / f for f in OPENSM_FOLDER_FILES if os.path.lexists(child / f)]))
        else:
            snapshot = collect.is_snapshot(child)
            if snapshot and snapshots is not None:
                snapshots.append(child)
            stack.append(iter([c for c in sorted(child.iterdir()) if not (
                c.name.startswith(".") or c.name in NOT_DEVICE_FILES or c.suffix in NOT_DEVICE_SUFFIXES
                or (snapshot and c.name in SNAPSHOT_FILES))]))
    return out


def load_device(path: Path, fmt: str | None = None) -> Device:
    """The one device that a file, or a device folder lint reads as one device (SONiC, OpenSM), holds.
    Raises InputError when ``path`` holds no device or several."""
    from .. import topology as topo  # a folder's topology names files that are not devices

    found = topo.find([path])
    groups = device_groups(path, topo.read(found, [path]).files if found else frozenset())
    if len(groups) != 1:
        names = ", ".join(name for name, _ in groups[:5]) + (", ..." if len(groups) > 5 else "")
        raise InputError(f"holds {len(groups)} devices ({names}); give one device's file or folder" if groups
                         else "holds no device file", file=str(path))
    name, files = groups[0]
    return parse_group(name, files, fmt)


def parse_group(name: str, files: list[Path], fmt: str | None = None, *, lines: bool = True) -> Device:
    """Parse one device's files. Raises InputError when no device can be made of them.

    ``lines=False`` leaves JSON-pointer sources without their line until Device.locate (lint
    looks up only the lines its findings show)."""
    inputs = [read_input(f) for f in files]
    platform = None
    if fmt:
        plat = resolve_format(fmt)
        if plat is None:
            raise InputError(f"unknown --format {fmt!r}; known: {', '.join(PLATFORMS)}")
        platform = plat.id
    else:
        platform = detect(inputs[0])
        if platform is None:
            _unparsed_capture(inputs[0])
            raise InputError("cannot tell which platform wrote this file (known: " + ", ".join(
                f"{p.id} = {p.description}" for p in PLATFORMS.values() if p.parser) + "); pass --format to say",
                file=inputs[0].path, line=1)
    if PLATFORMS[platform].parser is None:
        raise InputError(no_parser_message(PLATFORMS[platform]), file=inputs[0].path)
    device = parser_for(platform).parse(inputs, name)
    check_port_count(len(device.ports), inputs[0].path)
    device.files = [i.path for i in inputs]
    if lines:
        device.locate()
    return device


def _unparsed_capture(inp: Input) -> None:
    """A capture that names a platform no parser reads: say so (raises InputError), rather than "unknown format"."""
    named = capture.sniff_platform(inp.text)
    if named is None:
        return
    line = next((n for n, text in enumerate(inp.text.split("\n", 60)[:60], start=1)
                 if text.startswith(f"{capture.MARKER} platform:")), 1)
    platform = PLATFORMS.get(named)
    raise InputError(no_parser_message(platform) if platform else
                     f"this capture is for platform {named!r}, which losslessd does not know "
                     f"(known: {', '.join(PLATFORMS)})", file=inp.path, line=line)


def load_fabric(paths: list[str | Path], fmt: str | None = None, *, lines: bool = True,
                topology: str | Path | None = None, progress: Progress | None = None) -> Fabric:
    """Every device under ``paths``, with the links of ``topology`` (else of a linted folder's topology.yaml)
    and those the devices report; ``lines`` as for parse_group; ``progress(done, total)`` after each
    device. A topology file that cannot be read raises InputError."""
    from .. import topology as topo  # topology reads LLDP outputs with this package's parsers

    found = Path(topology) if topology else topo.find(paths)
    spec = topo.read(found, paths) if found else None
    skip = spec.files if spec else set()
    fabric = Fabric()
    snapshots: list[Path] = []
    found_groups: list[list[tuple[str, list[Path]]]] = []
    for raw in paths:
        try:
            groups = device_groups(Path(raw), skip, snapshots)
        except InputError as exc:
            fabric.issues.append(_issue(exc, str(raw)))
            continue
        except OSError as exc:  # a folder that cannot be listed
            fabric.issues.append(ParseIssue(code="SYS001", message=f"cannot read folder: {os_reason(exc)}",
                                            source=Source(file=display_path(Path(raw)))))
            continue
        if not groups:
            fabric.issues.append(ParseIssue(code="SYS001", message=(
                "nothing readable: no device file in this folder (hidden files, topology.yaml and documents "
                "are not device files)"), source=Source(file=display_path(Path(raw)))))
        found_groups.append(groups)
    total, done = sum(map(len, found_groups)), 0
    for groups in found_groups:
        for name, files in groups:
            if progress is not None:
                progress(done, total)
            done += 1
            try:
                device = parse_group(name, files, fmt, lines=lines)
            except InputError as exc:
                fabric.issues.append(_issue(exc, display_path(files[0])))
                continue
            except Exception as exc:  # noqa: BLE001 - a parser bug must not stop the fleet
                fabric.issues.append(ParseIssue(code=INTERNAL_ERROR, message=internal_error_message(
                    f"the parser failed on {', '.join(display_path(f) for f in files)}", exc),
                    source=Source(file=display_path(files[0]))))
                continue
            if device.name in fabric.devices:
                other = fabric.devices[device.name]
                fabric.issues.append(ParseIssue(code="SYS001", message=(
                    f"device name {device.name!r} also comes from {', '.join(other.files)}; this one is "
                    "skipped: give each device its own hostname or file name"), source=Source(file=device.files[0])))
                continue
            fabric.devices[device.name] = device
    if progress is not None:
        progress(total, total)
    for folder in snapshots:
        fabric.issues.extend(_snapshot_issues(folder, fabric))
    topo.apply(fabric, spec)
    return fabric


def _snapshot_issues(folder: Path, fabric: Fabric) -> list[ParseIssue]:
    """SYS findings for the devices a pull could not collect (or collected with problems), so that
    nothing missing from a snapshot is silent. Issues in a capture name the device parsed from it."""
    display = display_path(folder / collect.MANIFEST)
    try:
        data = collect.read_manifest(folder, display)
    except InputError as exc:
        return [_issue(exc, display)]
    parsed = {file: device.name for device in fabric.devices.values() for file in device.files}
    issues = collect.manifest_issues(data, display, lambda name: display_path(folder / name))
    for issue in issues:
        issue.source.device = parsed.get(issue.source.file, issue.source.device)
    return issues


def _issue(exc: InputError, fallback_file: str) -> ParseIssue:
    return ParseIssue(code="SYS001", message=exc.message,
                      source=Source(file=exc.file or fallback_file, line=exc.line, pointer=exc.pointer))
