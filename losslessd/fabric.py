"""The fabric: every device under the linted files and folders, their cables, and the lint over all of them.

``load_fabric`` finds the devices (loose files, SONiC and OpenSM device folders, snapshots written by
`losslessd pull`), has each parsed (losslessd.parse: one device's files in, a Device out), reads the
topology file (losslessd.parse.topology) and applies it with what the devices report (losslessd.topology).
One unreadable file becomes a SYS001 issue on the fabric; every other file is still read.

``lint`` runs the rules (losslessd.lint.engine) over the fabric. A large fabric is linted by worker
processes, one share of the devices each: a worker parses its devices and runs the rules that read one
device at a time (engine.is_local) and sends back their findings, each device's RoCE-port selection,
what fabric rules read of it (Rule.device_facts) and the device without its ports and buffers. This
process applies the topology and runs the fabric rules; a device whose ports something still asks for
(a link rule, `losslessd fix`) is parsed again here (LazyDevice). The findings are those of a serial
run, in the same order.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import os
import re
import stat
import sys
from collections.abc import Callable, Collection, Iterable, Iterator
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import collect, topology
from .errors import DescribedError, InputError, describe_exception, internal_error_message
from .gcpause import gc_paused, hold
from .lazyre import lazy
from .limits import MIB, file_limit_mb, max_file_bytes, os_reason, usable_cores
from .lint.engine import Context, LintResult, _Grouper, device_findings, is_local, run
from .lint.finding import Finding
from .lint.registry import Rule
from .model import Device, Fabric, Neighbor, ParseIssue, Route, Source
from .parse import (
    BACKUP_FOLDERS,
    INTERNAL_ERROR,
    NOT_DEVICE_FILES,
    NOT_DEVICE_SUFFIXES,
    OPENSM_FOLDER_FILES,
    SONIC_FOLDER_FILES,
    SONIC_OWN_FILES,
    Input,
    backup_of,
    copy_named,
    detect,
    display_link,
    display_path,
    maybe_copies,
    named_in,
    parse_group,
    read_input,
    same_working_directory,
    untailed,
)
from .parse import topology as topology_file
from .printable import fleet_nodes, name_node, names_shown, printable, quoted, shows_as
from .topology import unread
from .units import is_small_int

if TYPE_CHECKING:
    from .policy import Policy

# In a snapshot folder written by `losslessd pull` (one with manifest.json): not device files.
SNAPSHOT_FILES = {collect.MANIFEST, collect.COUNTERS, collect.PARTIAL}
# Fewer devices than this are linted in this process: starting workers and sending results back costs more
# than it saves (bench/lint_scale.py, 2 cores: 400 devices take about as long either way).
PARALLEL_MIN_DEVICES = 400
# Devices a worker parses and lints at once (its memory: a 64-port switch's model and text take about 1 MB).
SHARE_MAX_DEVICES = 256
# LOSSLESSD_JOBS=N: worker processes for a lint (1: none, 0 or unset: as many as cores for a large fabric).
JOBS_ENV = "LOSSLESSD_JOBS"
# --jobs asks for at most this many workers per usable core: a worker is all CPU (parse and lint), so more only
# share the cores and each holds its share's models (SHARE_MAX_DEVICES); `--jobs 1000000` had started one process
# per device (2,000 on a 2,000-device fabric). Two a core also lets a 1-core machine take the parallel path.
JOBS_PER_CORE = 2
Progress = Callable[[int, int], None]  # (devices read, devices in all)
# lint's: (stage, done, total, note): reading ("devices"), then checking ("rules", the rule's code as note)
LintProgress = Callable[[str, int, int, str], None]


def device_groups(path: Path, not_devices: set[str] | frozenset[str] = frozenset(),
                  snapshots: list[Path] | None = None) -> list[tuple[str, list[Path]]]:
    """(device name, files) for every device under ``path``, in sorted order, less a device whose files are all
    among ``not_devices`` (the routing tables and LLDP outputs a topology file names, which it reads itself; told
    apart by the file each path names, _identity, whatever the path); the snapshot folders (written by `losslessd
    pull`) found on the way are added to ``snapshots``. Anything that is not a folder is a device file candidate: a
    FIFO, a device node or a broken link then fails to read with a SYS001 that says what it is, instead of
    disappearing from the run. A folder that cannot be listed raises OSError; a link out of it, or a sub-folder that
    cannot be listed, InputError (_walk)."""
    refused: list[InputError] = []
    groups = _groups(path, snapshots, refused)
    if refused:  # (a device file left out without a word: render --device, fix, sim)
        raise refused[0]
    if not_devices:
        skip = frozenset(map(_identity, not_devices))
        groups = [group for group in groups if not frozenset(map(_identity, group[1])) <= skip]
    return [(name, [Path(f) for f in files]) for name, files in groups]


def _groups(path: Path, snapshots: list[Path] | None, refused: list[InputError],
            inside: tuple[str, ...] = ()) -> list[_Group]:
    """device_groups, a topology's own files still in, each file named by its path as text (str(Path) of it: what a
    lint reads and sends on); what the walk of a folder did not read is added to ``refused`` (_walk, which follows
    links into ``path`` and into the folders ``inside`` names)."""
    if not os.path.isdir(path):  # (Path.is_dir raises on a name too long; os.path's answers False)
        try:
            os.lstat(path)
        except OSError as exc:
            reason = "no such file or folder" if exc.errno == errno.ENOENT else f"cannot read: {os_reason(exc)}"
            raise InputError(reason, file=str(path)) from None
        # A file named on the command line is read as a device unless a folder walk would skip it too:
        # `lint fabric/*` must not read README.md (an EOS snippet in it sniffs as a config) or topology.yaml.
        return [] if not_a_device(path.name) else [(path.stem, [str(path)])]
    return _walk(path, snapshots, refused, inside)


# (device name, its files' paths as text)
_Group = tuple[str, list[str]]


def _walk(path: Path, snapshots: list[Path] | None, refused: list[InputError],
          inside: tuple[str, ...] = ()) -> list[_Group]:
    """The device groups of a folder. Folders are walked without recursion (a tree may nest thousands deep),
    each once (links back to a parent are not followed twice), each with one listing (a fleet's folder holds
    thousands of files). Paths are joined as text, as pathlib would write them (a fleet's folder holds thousands
    of files: a Path each cost more than the listing). A symbolic link to a file is followed wherever it points (a
    fabric folder of links into a config backup store, a SONiC folder's config_db.json linked to a shared copy: one
    file, read with the linter's own rights, as `cat` would); a link to a folder only inside the folder walked or the
    folders ``inside`` names (real paths: the other folders linted), or to one device's folder (SONiC's, OpenSM's,
    read as that device and not walked further): a link to another folder (to `/`, whose walk read the whole disk)
    and a sub-folder that cannot be listed are added to ``refused``, naming them, and the rest is read.

    A device's folder (SONiC's, OpenSM's) is one device, and what else it holds is walked as its companions: a file
    there is a device of its own only when it is one (_is_device: read and sniffed), as a sub-folder's files are; a
    fabric folder holding a stray config_db.json was read as that one switch, every other device left out without a
    word, exit 1; a real /etc/sonic copy's other files (counters_db.json, frr/, sonic_version.yml) stay unread."""
    out: list[_Group] = []
    seen: set[tuple[int, int]] = set()  # (device, inode) of each folder listed: one stat, whatever the depth
    inside = (os.path.join(os.path.realpath(path), ""), *inside)  # (real paths, each ending in a separator)
    # per folder being listed, its children still to visit (sorted): (path, folder name or file stem, is a folder,
    # is a symbolic link to a folder), in a folder of devices its files' groups in runs between them (_listing); and
    # whether they are a device folder's companions (in it or below it)
    stack: list[Iterator[Any]] = [iter([(str(path), path.name, True, False)])]
    companions = [False]
    copies: set[str] = set()  # paths of the backups put in a device's group (_with_backups, _sibling_backups)
    copies_of: dict[str, list[str]] = {}  # a device file's path: its backups' (beside it, in a folder of copies)
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            companions.pop()
            continue
        if item.__class__ is list:  # (a run of a folder's device files, each its group: _listing)
            out += item
            continue
        child, name, is_dir, is_link = item
        if not is_dir:
            if child in copies:
                continue
            if not companions[-1] or _is_device(child):
                out.append((name, [child, *copies_of.pop(child, ())]))
            continue
        if is_link and _out_of(child, inside):
            device = _device_folder(child, name)
            if device is None and companions[-1]:
                continue  # (a device's own link out, as /etc/sonic's to its platform folder: not walked, as before)
            if device is None:
                refused.append(InputError(
                    f"the symbolic link {os.path.basename(child)!r} points to a folder out of the linted folders (to "
                    f"{os.path.realpath(child)}) that is no device's folder, and is not walked: name it on the "
                    "command line to lint what it holds", file=display_link(child)))
            else:
                out.append(device)
            continue
        try:
            info = os.stat(child)
            seen_before = (info.st_dev, info.st_ino) in seen
            if not seen_before:
                with os.scandir(child) as listing:
                    entries = {e.name: e for e in listing}  # an entry of a name is os.path.lexists of it
                if copies:  # (a device's backups, in a folder of copies: not walked as devices again)
                    entries = {n: e for n, e in entries.items() if os.path.join(child, n) not in copies}
        except OSError as exc:
            if len(stack) == 1:  # the folder given
                raise
            if exc.errno != errno.ENOENT:  # (else it was a folder a moment ago)
                refused.append(InputError(f"cannot read folder: {os_reason(exc)}", file=display_path(Path(child))))
            continue
        if seen_before:
            continue
        seen.add((info.st_dev, info.st_ino))
        prefix = "" if child == "." else child if child.endswith(os.sep) else child + os.sep  # (as Path joins)
        one = _device_files(entries)
        if one:
            files = _with_backups(one, entries, prefix) + copies_of.pop(child, [])
            copies.update(files[len(one):])
            out.append((name, files))
            # (a file at a name an /etc/sonic copy's own non-configuration takes is not sniffed: a folder so named is)
            if len(entries) > len(one):  # (else it holds its own files only: a fleet's SONiC folder, one file)
                others = [c for c in _children(prefix, entries, False) if _companion(c[0][len(prefix):])
                          and c[0] not in files and (c[2] or c[0][len(prefix):] not in SONIC_OWN_FILES)]
                stack.append(iter(others))
                companions.append(True)
        else:
            snapshot = collect.MANIFEST in entries  # collect.is_snapshot, from the listing
            if snapshot and snapshots is not None:
                snapshots.append(Path(child))
            if companions[-1]:  # (a folder below a device's: its files are visited one by one, sniffed)
                visits: list = _children(prefix, entries, snapshot)
                live = {c[0][len(prefix):] for c in visits if not c[2]}
                folders = {c[0][len(prefix):] for c in visits if c[2]}
            else:
                visits, live, folders = _listing(prefix, entries, snapshot)
            found = _sibling_backups(prefix, live, folders)
            for live_path, copy in found:
                copies_of.setdefault(live_path, []).append(copy)
                copies.add(copy)
                if live_path[len(prefix):] in folders:  # (a device folder's copy is not walked, as a device again)
                    copies.add(os.path.dirname(copy))
            if found and not companions[-1]:  # (each live file's group takes its backups; a backup's goes)
                visits = [item if item.__class__ is tuple else [
                    (stem, [path, *copies_of.pop(path, ())]) for stem, (path,) in item if path not in copies]
                    for item in visits]
            stack.append(iter(visits))
            companions.append(companions[-1])
    return out


def _listing(prefix: str, entries: dict[str, os.DirEntry],
             snapshot: bool) -> tuple[list[list[_Group] | tuple[str, str, bool, bool]], set[str], set[str]]:
    """A folder of devices' children as _walk visits them, in order: its folders as _children gives them and, between
    them, runs of its files' groups (stem, [path]) made at once (a fleet's folder of 16,000 captures: a visit each, and
    a tuple each, were a tenth of the walk); and the names of those files and of those folders."""
    out: list[list[_Group] | tuple[str, str, bool, bool]] = []
    run: list[_Group] = []
    live: set[str] = set()
    folders: set[str] = set()
    for name in _names(entries, snapshot):
        entry = entries[name]
        if _is_folder(entry):
            if run:
                out.append(run)
                run = []
            out.append((prefix + name, name, True, entry.is_symlink()))
            folders.add(name)
        else:  # (the stem, as _split_name gives it)
            run.append((name[:dot] if 0 < (dot := name.rfind(".")) < len(name) - 1 else name, [prefix + name]))
            live.add(name)
    if run:
        out.append(run)
    return out, live, folders


def _companion(name: str) -> bool:
    """Whether ``name``, in a device's folder, is not one of that device's own files."""
    return name not in SONIC_FOLDER_FILES and name not in OPENSM_FOLDER_FILES and not _NAMESPACE_DB.fullmatch(name)


# How much of a companion larger than the file limit is sniffed: a platform shows in a config's first lines or keys
# (the sniffers look at headers, block lines and table names), and a SONiC COUNTERS_DB dump or an ibdiagnet2.db_csv
# beside a device's files runs to tens of MiB.
_SNIFF_HEAD = MIB


def _is_device(path: str) -> bool:
    """Whether the file at ``path``, beside a device's files, is a device of its own: a platform's sniff knows it, or
    it cannot be read (a FIFO, a file that is not text: named as a device file that failed, not left out). One larger
    than the file limit is told by its head: a counters dump over the limit was named a device file too large
    (SYS001, exit 1), a config over it still is."""
    try:
        return detect(read_input(path)) is not None
    except InputError:
        try:
            info = os.stat(path)
            if not (stat.S_ISREG(info.st_mode) and info.st_size > max_file_bytes()):
                return True
            with open(path, "rb") as file:
                # (without a leading byte order mark, as read_text reads a file: a sniff looks past none)
                head = file.read(_SNIFF_HEAD).decode("utf-8-sig", "replace")
        except OSError:
            return True
        return detect(Input(path, head)) is not None


def _out_of(link: str, inside: tuple[str, ...]) -> bool:
    """Whether the symbolic link ``link`` points out of the folders ``inside`` names (real paths ending in a
    separator)."""
    return not os.path.join(os.path.realpath(link), "").startswith(inside)


def _device_files(entries: dict[str, os.DirEntry] | set[str]) -> list[str]:
    """The names of one device's files in a folder's listing, SONiC's or OpenSM's; [] for a folder of devices."""
    one = [n for n in SONIC_FOLDER_FILES if n in entries]
    if one:  # a multi-ASIC /etc/sonic: config_db<N>.json per ASIC namespace beside the host's config_db.json
        return one + sorted((n for n in entries if _NAMESPACE_DB.fullmatch(n)), key=lambda n: int(n[9:-5]))
    return [n for n in OPENSM_FOLDER_FILES if n in entries] if OPENSM_FOLDER_FILES[0] in entries else []


def _device_folder(link: str, name: str) -> _Group | None:
    """The device a linked folder out of the linted folders is (SONiC's, OpenSM's files), without walking it; None
    when it is not one device's folder (or cannot be listed)."""
    try:
        names = set(os.listdir(link))
    except OSError:
        return None
    one = _device_files(names)
    return (name, _with_backups(one, names, os.path.join(link, ""))) if one else None


def _with_backups(one: list[str], names: Collection[str], prefix: str) -> list[str]:
    """A device folder's own files (``one``) as paths (``prefix``: the folder's, with its separator), then the backups
    of them it holds, beside them or in a folder of copies (`backup/config_db.json`; parse.backups, named by
    parse_group, SYS004: each was a second device of the same name, SYS001, exit 1); a sub-folder named as a backup is
    walked as any other."""
    return [prefix + n for n in one] + sorted(copy for _, copy in _copies(prefix, names, one, names))


def _sibling_backups(prefix: str, live: set[str], folders: set[str]) -> list[tuple[str, str]]:
    """(live file or device folder, its backup) for each backup of a device in a folder of devices (``prefix``: its
    path and separator; ``live``, ``folders``: the names of its files and folders that may be devices): of a file,
    beside it (`sw1.cfg.bak`, `sw1-2026-12-04.cfg`) or in a folder of copies (`backup/sw1.cfg`); of a device folder,
    its files in that folder's copy in a folder of copies (`backup/leaf1/config_db.json` of `leaf1/`). Each was a
    second device of the same name (SYS001, exit 1); put in the live device's group, it is named (SYS004) and not read.
    A backup without its live file (`sw2.cfg.bak` alone) is read: it may be the only copy of a device."""
    subs = [n for n in folders if n.lower() in BACKUP_FOLDERS]  # (only a folder is one: _copies_folder)
    return sorted((prefix + orig, copy) for orig, copy in _copies(prefix, live, live, subs, folders))


def _named_backups(paths: list[str | Path]) -> dict[str, list[str]]:
    """The backups (paths as text) of each device named on the command line, among the other files named there and in
    a folder of copies named there (`lint fabric/*` names `fabric/sw1.cfg`, `fabric/sw1.cfg.bak`, `fabric/leaf1` and
    `fabric/backup`, which holds `sw1.cfg` and `leaf1/`): each is put in its device's group (_walk finds the same in a
    folder). Paths are paired as written: `lint ../sw1.cfg .` run in `backup/` names `.`, no folder of copies."""
    named: dict[str, dict[str, str]] = {}  # folder -> file or folder name -> the path as given
    subs: dict[str, list[str]] = {}  # folder -> the folders named in it (folders of copies among them)
    for raw in paths:
        folder, name = os.path.split(os.path.normpath(str(raw)))
        named.setdefault(folder, {})[name] = str(raw)
        if os.path.isdir(raw):
            subs.setdefault(folder, []).append(name)
    found: dict[str, list[str]] = {}
    for folder, given in named.items():
        inside = subs.get(folder, [])
        files = [n for n in given if n not in inside]
        prefix = os.path.join(folder, "")
        for orig, copy in _copies(prefix, files, files, inside, inside):
            rel = copy[len(prefix):]  # (written as given: a copy in a named folder below the path that names it)
            top, _, rest = rel.partition(os.sep)
            found.setdefault(given[orig], []).append(given[rel] if rel in given else os.path.join(given[top], rest))
    return found


def _copies(prefix: str, names: Collection[str], live: Collection[str], subs: Iterable[str],
            folders: Collection[str] = ()) -> list[tuple[str, str]]:
    """(name copied, path of the copy) of each backup, in the folder ``prefix`` (its path with its separator), of the
    files ``live`` names there: among ``names`` (`sw1.cfg.bak`, `sw1-2026-12-04.cfg`), and in the folders of copies
    among ``subs`` (`backup/sw1.cfg`); and of the device folders ``folders`` names there: the files of their copies in
    a folder of copies (`backup/leaf1/config_db.json` of `leaf1/`, the name copied `leaf1`)."""
    found = [(orig, prefix + n) for n in maybe_copies(names)
             if (orig := backup_of(n, live)) and not os.path.isdir(prefix + n)]
    for sub in subs:
        if not _copies_folder(sub, path := prefix + sub):
            continue
        try:
            inside = sorted(os.listdir(path))
        except OSError:
            continue  # (its walk names why)
        for n in inside:
            copy = os.path.join(path, n)
            if n in folders and os.path.isdir(copy) and not os.path.islink(copy):
                found += ((n, os.path.join(copy, f)) for f in _copied_files(copy, prefix + n))
            elif (orig := backup_of(f"{sub}/{n}", live)) and not os.path.isdir(copy):
                found.append((orig, copy))
    return found


def _copied_files(copy: str, folder: str) -> list[str]:
    """The device files (SONiC's, OpenSM's) of ``copy``, a copy of the device folder ``folder``; [] when it holds one
    ``folder`` lacks (then it is no copy of it: walked, a second device of its name said, SYS001), or either is no
    device folder (or cannot be listed)."""
    try:
        own, copied = _device_files(set(os.listdir(folder))), _device_files(set(os.listdir(copy)))
    except OSError:
        return []
    return copied if own and set(copied) <= set(own) else []


def _copies_folder(name: str, path: str) -> bool:
    """Whether ``path`` (named ``name``) is a folder of copies; a link to one is walked as any link is (_walk)."""
    return name.lower() in BACKUP_FOLDERS and os.path.isdir(path) and not os.path.islink(path)


def _is_folder(entry: os.DirEntry) -> bool:
    """Whether a listing's entry is a folder, or a link to one (False where that cannot be told, as Path.is_dir)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _children(prefix: str, entries: dict[str, os.DirEntry],
              snapshot: bool) -> list[tuple[str, str, bool, bool]]:
    """(path, name of a folder or stem of a file, is a folder, is a symbolic link to a folder) of a listing's entries
    that may be devices, sorted."""
    out = []
    for name in _names(entries, snapshot):
        entry = entries[name]
        if _is_folder(entry):
            out.append((prefix + name, name, True, entry.is_symlink()))
        else:
            out.append((prefix + name, _split_name(name)[0], False, False))
    return out


def _names(entries: dict[str, os.DirEntry], snapshot: bool) -> list[str]:
    """The names of a listing's entries that may be devices, sorted: less hidden files, ours, documents
    (not_a_device) and, in a snapshot, its own files."""
    names = sorted(entries)
    odd = named_in((_MAYBE_NOT_DEVICE,), names)  # (the rest are device names)
    if snapshot:
        odd += SNAPSHOT_FILES
    if not odd:
        return names
    skip = {name for name in odd if name in entries and (not_a_device(name) or (snapshot and name in SNAPSHOT_FILES))}
    return [name for name in names if name not in skip] if skip else names


# The suffixes of the files that are no device's (of the names and suffixes above): a copy of one holds its suffix.
_NOT_DEVICE_SUFFIXES = NOT_DEVICE_SUFFIXES | {Path(n).suffix for n in NOT_DEVICE_FILES}
_NOT_DEVICE_PART = lazy("|".join(sorted(map(re.escape, _NOT_DEVICE_SUFFIXES))))
# Every name _not_device tells (a hidden one, one with such a suffix in it) matches this, and more, among a folder's
# names joined (parse.named_in): one try at each dot (a pattern that begins otherwise is tried at every character,
# 6,000 instructions a name in a fleet's folder).
_MAYBE_NOT_DEVICE = lazy(r"\.(?:(?<=\0\.)|(?<=\A\.)|" + "|".join(
    sorted(re.escape(s[1:]) for s in _NOT_DEVICE_SUFFIXES if s)) + ")" + "".join(
    f"|{re.escape(n)}" for n in sorted(NOT_DEVICE_FILES) if not Path(n).suffix))  # (and a name without a suffix)


def not_a_device(name: str) -> bool:
    """A hidden file, a file of ours (topology, settings, inventory, policy) or a document."""
    return _not_device(name, _split_name(name)[1])


def _not_device(name: str, suffix: str) -> bool:
    if name.startswith(".") or name in NOT_DEVICE_FILES or suffix in NOT_DEVICE_SUFFIXES:
        return True
    # a copy of one kept beside it (`topology.yaml.bak`, `README.md~`) is none either: it was a SYS001 "cannot tell
    # which platform wrote this file", exit 1 (a device file's copy is named with its device instead: _with_backups)
    if _NOT_DEVICE_PART.search(name) is None:  # (no such suffix in the name, no copy of one: 0.19 us of CPU, not 0.7)
        return False
    base = untailed(name)
    return base != name and (base in NOT_DEVICE_FILES or _split_name(base)[1] in NOT_DEVICE_SUFFIXES)


_NAMESPACE_DB = lazy(r"config_db\d{1,3}\.json")


def _split_name(name: str) -> tuple[str, str]:
    """(stem, suffix) as pathlib.PurePath gives them."""
    dot = name.rfind(".")
    return (name, "") if dot <= 0 or dot == len(name) - 1 else (name[:dot], name[dot:])


class _Inputs:
    """What the linted paths hold, in order: device file groups, and the paths that gave none (SYS001)."""

    def __init__(self, paths: Iterable[str | Path], topology: str | Path | None = None,
                 output: str | Path | None = None):
        paths = list(paths)
        found = Path(topology) if topology else topology_file.find(paths)
        self.spec = topology_file.read(found, paths) if found else None
        # the files the topology reads itself (routing tables, LLDP outputs), as _identity names them: a group of them
        # only is no device, whichever path reaches them (a symbolic link, `..`); nor is the report this run writes
        # (``output``): `lint fab -o fab/report.json` run again read the last report as a device (SYS001) and then
        # refused to replace a file it had read
        skip = frozenset(map(_identity, self.spec.files)) if self.spec else frozenset()
        if output is not None and os.path.isfile(output):
            skip |= {_identity(str(output))}
        self.steps: list[ParseIssue | _Group] = []
        self.snapshots: list[Path] = []
        left_out: list[str | Path] = []  # files named on the command line that are no device (README.md, ...)
        # Each device's files (real paths) once: a file named twice, or by a folder and by itself, or through a link,
        # is the same device, read once (it was read again and refused as a second device of its name, SYS001; a
        # command line of 100,000 such names parsed it 100,000 times). A device of several files (OpenSM and its
        # companions) too: a file of it named beside its folder was a second device of that file alone.
        reading: dict[Any, tuple[_Group, frozenset]] = {}  # each file read (_identity) -> its group, their files
        # a link in one linted folder into another is followed (what it leads to is linted anyway, once)
        folders = tuple(os.path.join(os.path.realpath(raw), "") for raw in paths if os.path.isdir(raw))
        copies_of = _named_backups(paths)  # (`lint fabric/*`: a backup named beside its device file, as a walk finds)
        copied = {copy for copies in copies_of.values() for copy in copies}
        for raw in paths:
            if str(raw) in copied:
                continue
            refused: list[InputError] = []
            copies_only = False  # (a folder named that holds backups alone: each is named with its device, SYS004)
            try:
                groups = _groups(Path(raw), self.snapshots, refused, folders)
                if copies_of and os.path.isdir(raw):
                    kept = [group for group in groups if not copied.issuperset(group[1])]
                    groups, copies_only = kept, bool(groups) and not kept
                if str(raw) in copies_of:  # (a device folder named: its copy's files too)
                    groups = [(name, [*files, *copies_of[str(raw)]]) for name, files in groups]
            except InputError as exc:
                self.steps.append(unread(exc, str(raw)))
                continue
            except OSError as exc:  # a folder that cannot be listed
                self.steps.append(ParseIssue(code="SYS001", message=f"cannot read folder: {os_reason(exc)}",
                                             source=Source(file=display_path(Path(raw)))))
                continue
            self.steps.extend(unread(exc, str(raw)) for exc in refused)
            keyed = [(group, frozenset(map(_identity, group[1]))) for group in groups]  # (one stat a file)
            if skip:
                keyed = [(group, real) for group, real in keyed if not real <= skip]
            if not keyed and os.path.isdir(raw) and not copies_only:  # (a named document: left out quietly, below)
                self.steps.append(ParseIssue(code="SYS001", message=(
                    "nothing readable: no device file in this folder (hidden files, topology.yaml and documents "
                    "are not device files)"), source=Source(file=display_path(Path(raw)))))
            elif not keyed and os.path.isfile(raw):
                left_out.append(raw)
            new = reading.keys().isdisjoint
            for group, real in keyed:
                if new(real):  # (a fleet's every group: none of its files met before; no set made)
                    self.steps.append(group)
                    entry = (group, real)
                    for file in real:
                        reading[file] = entry
                else:
                    self._take(group, real, reading)
        if left_out and not self.groups:  # ... unless nothing else was given: then say why it was not read
            self.steps.extend(ParseIssue(code="SYS001", message=(
                "not read: a document (.md, .rst, .html), a hidden file or losslessd's own file (topology.yaml, "
                "policy.yaml, ...) is not taken for a device config; give the config in a file of its own"),
                source=Source(file=display_path(Path(raw)))) for raw in left_out)

    def _take(self, group: _Group, real: frozenset, reading: dict[Any, tuple[_Group, frozenset]]) -> None:
        """Add ``group`` (``real``: its files' _identity, some met before) unless a group before it reads all its files;
        one whose files were named before it, alone or in parts (`lint d/opensm.conf d`), reads them all in the first
        one's place: one device."""
        earlier = {id(entry[0]): entry for entry in map(reading.get, real) if entry is not None}
        if any(real <= files for _, files in earlier.values()):
            return
        if earlier and all(files <= real for _, files in earlier.values()):
            at = [k for k, step in enumerate(self.steps) if id(step) in earlier]
            self.steps[at[0]] = group
            for k in reversed(at[1:]):
                del self.steps[k]
            owned: Iterable = real
        else:
            self.steps.append(group)
            owned = [f for f in real if f not in reading]  # (not `real - reading.keys()`: that copies every key)
        reading.update(dict.fromkeys(owned, (group, real)))

    @property
    def groups(self) -> list[_Group]:
        return [step for step in self.steps if isinstance(step, tuple)]

    def fabric(self, outcomes: Iterable[Device | ParseIssue], progress: Progress | None = None) -> Fabric:
        """The fabric of these inputs, given each group's device (or why there is none), in order;
        ``progress(done, total)`` before each group's outcome is taken (a generator parses it then)."""
        fabric = Fabric()
        outcomes = iter(outcomes)
        done, total = 0, len(self.groups) if progress is not None else 0
        # Host names ignore case (RFC 4343): `SPINE1` in one file and `spine1` in another name one switch twice.
        folded: dict[str, str] = {}
        for step in self.steps:
            outcome: Device | ParseIssue
            if isinstance(step, ParseIssue):
                outcome = step
            else:
                if progress is not None:
                    progress(done, total)
                    done += 1
                outcome = next(outcomes)
            if isinstance(outcome, ParseIssue):
                fabric.issues.append(outcome)
                continue
            name = folded.setdefault(outcome.name.lower(), outcome.name)
            if name in fabric.devices:
                other = fabric.devices[name]
                if _kept_copy(other.files[0], outcome.files[0]):  # (a backup met first: the live file is linted)
                    if outcome.name != name:  # (in its place, under the live file's spelling)
                        fabric.devices = {outcome.name if k == name else k: v for k, v in fabric.devices.items()}
                        folded[name.lower()] = outcome.name
                    fabric.devices[outcome.name], outcome, other = outcome, other, outcome
                fabric.issues.append(ParseIssue(code="SYS001", message=(
                    f"device name {outcome.name!r} "
                    + (f"differs only in case from {other.name!r}, which " if outcome.name != other.name else "also ")
                    + f"comes from {', '.join(other.files)}; this one is skipped: "
                    + ("it is a backup copy (in a folder of copies or named as one), the live file is linted; lint "
                       "it on its own to check it" if _kept_copy(outcome.files[0], other.files[0])
                       else "give each device its own hostname or file name")), source=Source(file=outcome.files[0])))
                continue
            fabric.devices[outcome.name] = outcome
        if progress is not None:
            progress(total, total)
        _claimed_twice(fabric)
        for folder in self.snapshots:
            fabric.issues.extend(_snapshot_issues(folder, fabric))
        topology.apply(fabric, self.spec)
        return fabric


def _claimed_twice(fabric: Fabric) -> None:
    """A capture whose header names another device of this lint (Device.capture_claims) said once for the fleet,
    naming both files, in place of the note on each device (parse._header_names_another): two files claim that device
    (a capture saved under another device's name or folder, two captures swapped, an inventory entry that reached
    another device's address), where a header naming no device of the lint is a site's own naming. A note still:
    each file is linted as its configuration names the device, which is what the switch runs. Said on the device
    read from the capture (SYS004 reads a device's issues), for each of its captures that names another; of two
    captures swapped, on the first."""
    claims = [device for device in fabric.devices.values() if device.capture_claims]
    if not claims:
        return
    nodes = fleet_nodes(fabric.devices)
    said: set[tuple[str, str]] = set()
    for device in claims:
        for header, source in device.capture_claims:
            named = [name for name in names_shown(name_node(header), nodes) if name != device.name]
            if not named:
                continue
            device.issues = [i for i in device.issues if not (i.code == "SYS004" and i.source is not None and (
                i.source.file, i.source.line) == (source.file, source.line))]
            other = fabric.devices[named[0]]
            swapped = any(shows_as(name_node(theirs), name_node(device.name)) for theirs, _ in other.capture_claims)
            if swapped and (other.name, device.name) in said:  # (two captures swapped: said once, by the first)
                continue
            said.add((device.name, other.name))
            device.issues.append(ParseIssue(code="SYS004", source=source, message=(
                f"the capture {printable(source.file or '')} has the header of {printable(other.name)} "
                f"(`device: {printable(header)}`), but its configuration is "
                f"{printable(device.name)}'s, and {printable(other.name)} is read from "
                f"{printable(', '.join(other.files))}"
                + (f", whose header names {printable(device.name)}: the two captures are swapped" if swapped else
                   ": two files claim that device")
                + " (a capture saved under another device's name or folder, or an inventory entry that reached "
                  "another device's address); each file is linted as the device its configuration names")))


def _kept_copy(path: str, other: str) -> bool:
    """Whether ``path`` is a backup kept beside the live ``other`` (both read as one device, by its host name: a copy
    under another name, `backup/spine9.cfg` of `spine1.cfg`, that the walk cannot pair by name): below the folder both
    share, it sits in a folder of copies (`backup/`, `old/`, ...) or carries a copy's tail, and ``other`` does not."""
    a, b = Path(path).parts, Path(other).parts
    shared = len(os.path.commonprefix([a[:-1], b[:-1]]))

    def copy(parts: tuple[str, ...]) -> bool:
        return copy_named(parts[-1]) or any(p.lower() in BACKUP_FOLDERS for p in parts[shared:-1])
    return copy(a) and not copy(b)


def _identity(path: str) -> tuple[int, int] | str:
    """The file a path names, whatever the path (through symbolic links, `..`, twice): its (device, inode), one stat
    (os.path.realpath walks each part of the path in Python, per file of a fleet); the path itself where it cannot be
    stat'ed (its read says why)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return path
    # (a file with hard links is named by its real path: two devices' configs linked by a dedup tool stay two devices)
    return (info.st_dev, info.st_ino) if info.st_nlink == 1 else os.path.realpath(path)


def parse_one(name: str, files: list[Path] | list[str], fmt: str | None = None) -> Device | ParseIssue:
    """One device, or the issue saying why its files give none: SYS001 for unusable input, SYS900 for a parser
    bug (the lint then exits 3)."""
    try:
        return parse_group(name, files, fmt)
    except InputError as exc:
        return unread(exc, display_path(files[0]))
    except Exception as exc:  # noqa: BLE001 - a parser bug must not stop the fleet
        return ParseIssue(code=INTERNAL_ERROR, message=internal_error_message(
            f"the parser failed on {', '.join(display_path(f) for f in files)}", exc),
            source=Source(file=display_path(files[0])))


def load_fabric(paths: list[str | Path], fmt: str | None = None, *, topology: str | Path | None = None,
                progress: Progress | None = None) -> Fabric:
    """Every device under ``paths``, with the links of ``topology`` (else of a linted folder's topology.yaml)
    and those the devices report; ``progress(done, total)`` before each device and at the end. A topology
    file that cannot be read raises InputError."""
    inputs = _Inputs(paths, topology)
    return inputs.fabric((parse_one(name, files, fmt) for name, files in inputs.groups), progress)


def folder_groups(path: Path) -> list[tuple[str, list[Path]]]:
    """The device file groups under ``path`` (device_groups), without the files its topology file names (routing
    tables and LLDP outputs are not devices)."""
    found = topology_file.find([path])
    return device_groups(path, topology_file.read(found, [path]).files if found else frozenset())


def load_device(path: Path, fmt: str | None = None) -> Device:
    """The one device that a file, or a device folder lint reads as one device (SONiC, OpenSM), holds.
    Raises InputError when ``path`` holds no device or several."""
    groups = folder_groups(path)
    if len(groups) != 1:
        names = ", ".join(name for name, _ in groups[:5]) + (", ..." if len(groups) > 5 else "")
        raise InputError(f"holds {len(groups)} devices ({names}); give one device's file or folder" if groups
                         else "holds no device file", file=str(path))
    name, files = groups[0]
    return parse_group(name, files, fmt)


def lint(paths: list[str | Path], policy: Policy, rules: list[type[Rule]], *, fmt: str | None = None,
         topology: str | Path | None = None, baseline: set[str] | None = None, jobs: int | None = None,
         grouping: bool = True, progress: LintProgress | None = None,
         output: str | Path | None = None) -> LintResult:
    """Lint the devices under ``paths``. ``jobs``: worker processes (1: none; None or 0: as many as cores when
    the fabric has at least PARALLEL_MIN_DEVICES devices; LOSSLESSD_JOBS sets the default). ``progress(stage,
    done, total, note)`` is told how far reading ("devices") and checking ("rules", the rule's code as note)
    have got. ``output``: the report file this run writes, which a folder's walk does not take for a device."""
    with same_working_directory():  # (each file is named relative to it: asked for once, not once per file)
        return _lint(paths, policy, rules, fmt, topology, baseline, jobs, grouping, progress, output)


def _lint(paths: list[str | Path], policy: Policy, rules: list[type[Rule]], fmt: str | None,
          topology: str | Path | None, baseline: set[str] | None, jobs: int | None, grouping: bool,
          progress: LintProgress | None, output: str | Path | None = None) -> LintResult:
    reading = checking = None
    if progress is not None:
        def reading(done: int, total: int) -> None:
            progress("devices", done, total, "")

        def checking(done: int, total: int, code: str) -> None:
            progress("rules", done, total, code)
    inputs = _Inputs(paths, topology, output)
    groups = inputs.groups
    workers = worker_count(jobs, len(groups))
    if workers > 1:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return _lint_parallel(inputs, groups, policy, rules, fmt, baseline, workers, grouping, reading, checking)
        except BrokenProcessPool:  # a worker died (out of memory?): lint here, as for a small fabric, and say so
            import logging  # (only here: importing it costs a small lint 1 % of its start)

            # (no handler configured, as under the CLI: Python writes a warning on stderr)
            logging.getLogger(__name__).warning(
                "losslessd: a lint worker process died (out of memory?); linting again in this one process "
                "(--jobs 1 or %s=1 skips the workers)", JOBS_ENV)
    fabric = inputs.fabric((parse_one(name, files, fmt) for name, files in groups), reading)
    return run(fabric, policy, rules, baseline, grouping=grouping, progress=checking)


def worker_count(jobs: int | None, devices: int) -> int:
    """How many worker processes lint ``devices`` devices (1: none)."""
    if jobs is None:
        env = os.environ.get(JOBS_ENV, "").strip()
        if env and not is_small_int(env):  # a typo must not quietly mean "as many as cores"
            raise InputError(f"{JOBS_ENV}={quoted(env)} is not a number of worker processes (0: as many as cores)")
        jobs = int(env) if env else 0
    cores = usable_cores()
    if jobs >= 1:
        return min(jobs, max(devices, 1), JOBS_PER_CORE * cores)
    return min(cores, devices) if devices >= PARALLEL_MIN_DEVICES else 1


# ---- parallel lint ------------------------------------------------------------------------------------------
# What of a Device a worker sends back: everything but its ports, buffers and subnet manager record, which
# stay there (LazyDevice parses the files again when something asks for them).
_HEAVY = ("ports", "buffer_pools", "buffer_profiles", "opensm")


class LazyDevice(Device):
    """A device a worker process parsed and linted: what the fabric rules, the topology and the reports read
    of it is here; its ports, buffers and subnet manager record are parsed again from its files when asked for."""

    __slots__ = ("_fmt", "_group", "_paths", "_port_names", "_sent", "_sources")
    _fmt: str | None
    _group: str
    _paths: list[str]
    _port_names: list[tuple[str, str | None]] | None  # (None once the ports are parsed here)
    # The device's fields that are a Source, each its name and then its five values as Source.as_tuple gives them,
    # one after the other in one list (a dict of tuples was five objects a host to send and read back): made a
    # Source when read (a host has four and the parent reads none of them unless a finding cites it: 64,000 Sources
    # of a fleet's hosts it would make for nothing); None: none.
    _sources: list | None
    # what the worker worked out: (findings of the local rules, selection, facts, [(rule code, crash message)])
    _sent: tuple[list[Finding], list, dict[str, Any], list[tuple[str, str]]]

    def __getattr__(self, name: str) -> Any:  # only called for what is not set: defaults and the parts left behind
        if name not in _HEAVY:
            field = Device.__dataclass_fields__.get(name)
            if field is None or name.startswith("_"):
                raise AttributeError(name)
            sources = self._sources
            value: Any
            if sources is not None and name in (named := sources[::6]):
                at = named.index(name) * 6
                file, line, pointer, device, command = sources[at + 1:at + 6]
                value = Source(file=file, line=line, pointer=pointer, device=device, command=command)
            else:  # a default the worker did not send (a list of its own: topology extends some)
                value = field.default if field.default_factory is dataclasses.MISSING else field.default_factory()
            setattr(self, name, value)
            return value
        fresh = parse_group(self._group, self._paths, self._fmt)
        for part in _HEAVY:
            setattr(self, part, getattr(fresh, part))
        self._port_names = None
        return getattr(self, name)

    def port_aliases(self) -> dict[str, str | None]:
        names = self._port_names
        if names is not None:  # the ports are in the worker: their names came with the rest
            return dict(names)
        return Device.port_aliases(self)


# Values a header or a fact holds that go as they are (a dict too: its values are not looked into); _plain returns
# these at once, and a list's or tuple's members of them without a call each.
_AS_IS = frozenset({str, int, float, bool, type(None), dict})


def _plain(value: Any) -> Any:
    """A header value without references into a document (a Source with its line looked up) for the trip."""
    kind = type(value)
    if kind in _AS_IS or kind is Source:
        return value
    if kind is list:
        return [v if type(v) in _AS_IS else _plain(v) for v in value]
    if kind is tuple:
        return tuple([v if type(v) in _AS_IS else _plain(v) for v in value])
    if isinstance(value, Source):
        return value.plain()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if (isinstance(value, (Neighbor, ParseIssue, Route)) and value.source is not None
            and type(value.source) is not Source):
        return dataclasses.replace(value, source=value.source.plain())
    return value


def _header(device: Device) -> tuple[tuple[str, ...], list[Any]]:
    """The device's fields but its ports and buffers (those that differ from their default), those that are a
    Source as LazyDevice._sources: the names of those sent (one tuple for every device that sends the same ones)
    and their values in that order, _port_names and _sources last."""
    return _header_function()(device)


@functools.cache  # (made when a worker first sends a device: a small lint's start does without it)
def _header_function() -> Callable[[Device], tuple[tuple[str, ...], list[Any]]]:
    """_header, written out field by field from Device's field types (a fleet's 16,000 hosts each send one: a loop
    asking each of 31 fields what it holds took 62 K instructions a host, this 31 K): a field of plain values (text,
    numbers, enums) is taken as it is, one that may be a Source looked at. Which fields a device sends is a bit
    each in ``mask``; the names of a mask are made once (_header_names)."""
    import typing

    from .lint.groups import _is_plain

    hints = typing.get_type_hints(Device)
    env: dict[str, Any] = {"_plain": _plain, "_Source": Source, "_names": _header_names}
    lines = ["def header(device):", "    mask = 0", "    values = []", "    add = values.append", "    sources = []"]
    for i, f in enumerate(_HEADER_FIELDS):
        lines.append(f"    v = device.{f.name}")
        if f.default_factory is not dataclasses.MISSING:  # (a list or dict: sent when not empty)
            lines.append("    if v:")
        else:
            env[f"d{i}"] = f.default
            lines.append(f"    if v is not d{i}:" if f.default is not dataclasses.MISSING else "    if True:")
        if _is_plain(hints[f.name]):
            lines.append(f"        mask |= {1 << i}; add(v)")
        else:  # (a Source's five fields read as Source.as_tuple reads them)
            lines += ["        if isinstance(v, _Source):",
                      f"            sources += ({f.name!r}, v.file, v.line, v.pointer, v.device, v.command)",
                      "        else:", f"            mask |= {1 << i}; add(_plain(v))"]
    lines += ["    add([(p.name, p.alias) for p in device.ports.values()])",
              "    add(sources or None)", "    return _names(mask), values", ""]
    exec(compile("\n".join(lines), "<header of Device>", "exec"), env)  # noqa: S102 - code built from field names only
    return env["header"]


# The fields a worker sends of a device (all but _HEAVY), in Device's order.
_HEADER_FIELDS = tuple(f for f in dataclasses.fields(Device) if f.name not in _HEAVY)


@functools.cache  # (a fleet's devices send a few sets of fields: hosts one, a platform's switches another)
def _header_names(mask: int) -> tuple[str, ...]:
    """The names of the fields whose bits ``mask`` sets, then _port_names and _sources (_header's values)."""
    return (*(f.name for i, f in enumerate(_HEADER_FIELDS) if mask >> i & 1), "_port_names", "_sources")


# Fillers made for the names a worker sent (_filler), at most FILLERS of them: past that (a fleet of devices that
# each send other fields) the rest are filled field by field.
FILLERS = 64
_fillers: dict[tuple[str, ...], Callable[..., LazyDevice]] = {}


def _filler(names: tuple[str, ...]) -> Callable[..., LazyDevice]:
    """A function that makes the LazyDevice of a header whose fields are ``names`` from (values, what the worker
    worked out, group name, paths, format): its slots set by one unpacking, not a setattr by name each."""
    fill = _fillers.get(names)
    if fill is not None:
        return fill
    if len(_fillers) >= FILLERS or not all(map(str.isidentifier, names)):
        return functools.partial(_fill, names)
    slots = ", ".join(f"device.{name}" for name in names)
    lines = ["def fill(values, sent, group, paths, fmt):", "    device = _new(_Lazy)",
             *([] if "issues" in names else ["    device.issues = []"]),  # (SYS001 reads every device's)
             f"    {slots}, = values",
             "    device._sent, device._group, device._paths, device._fmt = sent, group, paths, fmt",
             "    return device", ""]
    env: dict[str, Any] = {"_new": object.__new__, "_Lazy": LazyDevice}
    exec(compile("\n".join(lines), "<fill a LazyDevice>", "exec"), env)  # noqa: S102 - Device's field names only
    fill = _fillers[names] = env["fill"]
    return fill


def _fill(names: tuple[str, ...], values: list, sent: tuple, group: str, paths: list[str],
          fmt: str | None) -> LazyDevice:
    device = LazyDevice.__new__(LazyDevice)
    device.issues = []  # (SYS001 reads every device's: set here, not by __getattr__ 18,000 times)
    for name, value in zip(names, values, strict=True):
        setattr(device, name, value)
    device._sent, device._group, device._paths, device._fmt = sent, group, paths, fmt
    return device


def _plain_finding(f: Finding) -> Finding:
    if f.source is not None and type(f.source) is not Source:
        f.source = f.source.plain()
    return f


# The peak resident memory, in MB, that a lint's forked workers may reach between them keeping the objects of the
# shares they are done with (a share's model, CONFIG_DB entries, decoded tables and text). A forked worker ends by
# os._exit, which frees nothing, so freeing them only cost its CPU: 99-147 us a bench switch, 6-12 us a host,
# on the last share's critical path too (docs/lint-at-scale.md, "Session 38, part e"). Kept, 200 bench switches and
# 1,600 hosts hold about 56 MB (bench/lint_scale.py N=2,000: 376-396 MB a worker of two; "Session 39, part a").
KEEP_MB = 768
# ... while the worker's system CPU is at most this part of its user CPU. What is kept is memory the worker has not
# touched, each 4 kB page a fault (a kept bench switch 64, a host 2): on this 2-core VM 2 us each at load 3-5 and up
# to 15 us under load, where they cost more than the freeing saves (about a tenth of a switch's user CPU). A worker
# that frees its shares spends 4-5 % of its CPU in the system ("Session 39, part a").
KEEP_SYSTEM_PART = 0.1

# In a forked worker: each share's objects that _keeps let it keep, until the worker ends.
_kept: list[list] = []


def _lint_share(task: tuple) -> bytes:
    """A worker's share: parse these groups, run the local rules (grouped as in a serial run), and return per
    group its SYS001 or SYS900 issue, or (header, findings, selection, facts per fabric rule code, rule crashes),
    pickled. The worker reads within the limits this process reads with (a spawned worker does not inherit them),
    and keeps the share's objects instead of freeing them while its peak RSS is under ``keep`` bytes and keeping
    them costs less than freeing (_keeps; ``keep`` 0: a spawned worker, whose interpreter frees them at its end)."""
    import pickle  # (pickle and the pool: a parallel lint's only, not a small one's start)

    limit, keep, *args = task
    try:
        with file_limit_mb(None if limit is None else limit / MIB), gc_paused():
            held: list = []
            # Pickled here, with the collector still paused: pickled by the pool, after, the share's objects were
            # scanned again and again (45,000 findings: 0.5 s to pickle and 0.4 s to read back instead of 0.15 each).
            sent = pickle.dumps(_share(held, *args), protocol=pickle.HIGHEST_PROTOCOL)
            if keep and _keeps(keep):
                _kept.append(held)
                hold()
            return sent
    except Exception as exc:  # a bug outside any rule: this process's line for it, exit 3 there
        raise DescribedError(describe_exception(exc)) from exc  # (--debug shows the worker's traceback)


def _keeps(keep: int) -> bool:
    """Whether a worker keeps the share it is done with: its peak RSS under ``keep`` bytes, and its page faults (its
    system CPU) still cheaper than freeing (KEEP_SYSTEM_PART). A forked worker's peak starts at its parent's RSS at
    the fork (Linux fork copies the RSS high-water mark: a child of a 300 MB process reads 305 MB), so the budget
    counts the pages it shares with the parent too: it errs towards freeing, and under a parent larger than its part
    of KEEP_MB (a daemon, an API caller holding a fabric) nothing is kept."""
    peak, user, system = _usage()
    return peak < keep and system <= KEEP_SYSTEM_PART * user


def _usage() -> tuple[int, float, float]:
    """This process's peak resident memory in bytes, and its user and system CPU in seconds."""
    import resource  # (Unix, as fork is)

    use = resource.getrusage(resource.RUSAGE_SELF)
    peak = use.ru_maxrss if sys.platform == "darwin" else use.ru_maxrss * 1024  # (macOS counts bytes, Linux kB)
    return peak, use.ru_utime, use.ru_stime


def _share(held: list, groups: list, fmt: str | None, policy: Policy, local_rules: list[type[Rule]],
           fact_rules: list[type[Rule]], grouping: bool, codes: frozenset[str]) -> list[tuple]:
    outcomes = [parse_one(name, files, fmt) for name, files in groups]
    devices = {str(i): d for i, d in enumerate(outcomes) if isinstance(d, Device)}
    ctx = Context(Fabric(devices=devices), policy, codes=codes)
    grouper = _Grouper(ctx) if grouping else None
    held += (outcomes, ctx, grouper)  # (the share's objects: _lint_share keeps them or lets them go)
    found: dict[str, list[Finding]] = {key: [] for key in devices}  # per device, rule after rule
    for rule_cls in local_rules:
        rule = rule_cls()
        per_device = grouper.findings(rule) if grouper is not None and rule.group is not None else {
            key: device_findings(ctx, rule, device) for key, device in devices.items()}
        for key, findings in per_device.items():
            if findings:
                found[key].extend(_plain_finding(f) for f in findings)
    out: list[tuple] = []
    # Devices built alike select the same ports and name them alike: one list of each is sent (pickle sends an
    # object it has sent once as a reference), and this process keeps one. Nothing changes them once made.
    for i, outcome in enumerate(outcomes):
        if not isinstance(outcome, Device):
            out.append((outcome,))
            continue
        key = str(i)
        names, values = _header(outcome)
        ports = values[-2]
        values[-2] = ctx.alike(ports, ("names", *ports))
        selection = ctx.selection(outcome)
        selection = ctx.alike(selection, ("selection", *selection))
        facts: dict[str, Any] = {}
        for rule_cls in fact_rules:
            kind = rule_cls.facts_key or rule_cls.code
            if kind in facts:  # (rules that read the same facts: the path rules)
                continue
            try:
                facts[kind] = _plain(rule_cls().device_facts(ctx, outcome))
            except Exception as exc:  # noqa: BLE001 - raised again where the fabric rule asks (_Local.facts)
                facts[kind] = DescribedError(describe_exception(exc))
        crashes = [(code, message) for device, code, message in ctx.crashes if device is outcome]
        out.append((names, values, (found[key], selection, facts, crashes)))
    return out


# What a device costs to parse and lint besides its files' bytes, in bytes of them (bench/lint_scale.py: a 4 kB host
# capture costs about as much as 6 kB of a switch's CONFIG_DB).
DEVICE_BYTES = 2048
# Files looked at for their size when sharing the devices out (one in every few of a larger fabric's).
SIZED_FILES = 2048
# The last shares are cut smaller, down to this part of a worker's cost: a worker that takes the last one keeps the
# others waiting for no longer than it takes (bench/lint_scale.py N=2,000: the last of 4 shares per worker kept
# the other worker idle for up to a quarter of its time).
LAST_SHARE_PART = 32


def _shares(groups: list[_Group], workers: int) -> list[list[_Group]]:
    """Runs of the devices, a few per worker, so that none waits long for the last; sized by cost (a switch costs
    as much as 20 hosts, and a fabric lists its hosts apart from its switches: shares of as many devices would
    leave one worker with all the switches): a quarter of a worker's part at most, and once less than half of
    the fabric is left, half a worker's part of what is left, down to 1/LAST_SHARE_PART of its part (the last
    shares end close together); of SHARE_MAX_DEVICES at most, as a worker holds its share's devices until it
    is done with them. A device's cost is its first file's size (one device in every few is measured, the ones
    between costing as much as the costlier of the two measured around them)."""
    step = max(1, len(groups) // SIZED_FILES)
    sizes: list[int] = []
    for i in range(0, len(groups), step):
        try:
            size = os.stat(groups[i][1][0]).st_size
        except OSError:
            size = 0  # (the worker says what is wrong with it)
        sizes.append(size + DEVICE_BYTES)
    total = sum(sizes) * step
    most, least = max(1, total // (workers * 4)), max(1, total // (workers * LAST_SHARE_PART))
    target = most
    last = len(sizes) - 1
    shares: list[list[_Group]] = [[]]
    cost = done = 0
    for i, group in enumerate(groups):
        if cost >= target or len(shares[-1]) >= SHARE_MAX_DEVICES:
            shares.append([])
            done += cost
            cost = 0
            target = min(most, max(least, (total - done) // (workers * 2)))
        shares[-1].append(group)
        at = i // step
        cost += sizes[at] if i % step == 0 else max(sizes[at], sizes[min(at + 1, last)])
    return [share for share in shares if share]


class _Local:
    """engine.LocalResults: what the workers sent, per device of the fabric (LazyDevice._sent: on the device, not
    in a table of 18,000 beside it, where looking each up again cost more than the rest of the fabric rules)."""

    def __init__(self, codes: set[str]):
        self.codes = codes

    def findings(self, devices: Iterable[Device]) -> list[Finding]:
        return [f for device in devices for f in _sent(device)[0]]

    def selection(self, device: Device):
        return _sent(device)[1]

    def facts(self, code: str, device: Device) -> Any:  # (code: Rule.facts_key, else the rule's code)
        """What the worker worked out; a bug it met there is raised here, in the fabric rule that asks, which
        reports it (SYS900) as a lint in one process does."""
        value = _sent(device)[2].get(code)
        if isinstance(value, DescribedError):
            raise value
        return value

    def crashed(self, devices: Iterable[Device]) -> list[Device]:
        return [device for device in devices if _sent(device)[3]]

    def crashes(self, device: Device, code: str) -> list[str]:
        return [message for rule, message in _sent(device)[3] if rule == code]


_sent = attrgetter("_sent")  # of a LazyDevice (every device of a parallel lint's fabric is one)


def _lint_parallel(inputs: _Inputs, groups: list, policy: Policy, rules: list[type[Rule]], fmt: str | None,
                   baseline: set[str] | None, workers: int, grouping: bool, reading: Progress | None,
                   checking: Callable[[int, int, str], None] | None) -> LintResult:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    shares = _shares(groups, workers)
    tasks = _tasks(shares, inputs.spec is not None, policy, rules, fmt, grouping,
                   KEEP_MB * MIB // workers if method == "fork" else 0)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) as pool:
        results = pool.map(_lint_share, tasks)
        # The fabric is built as the shares come back (between them this process waits for the workers).
        try:
            fabric = inputs.fabric(_arrivals(shares, results, fmt, reading))
        except BaseException:  # (a progress callback that ends the lint: the shares not started are not waited for)
            pool.shutdown(cancel_futures=True)
            raise
        # Every share is back: the fabric rules run while the workers exit (waiting for them took 18 ms at N=2,000,
        # after the last share, when nothing else runs).
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False)
    try:
        return run(fabric, policy, rules, baseline, grouping=grouping,
                   local=_Local({r.code for r in rules if is_local(r, inputs.spec is not None)}), progress=checking)
    finally:
        # ... and the pool's manager thread is joined after them, its workers gone by then: left running, it raced
        # Python's exit, whose handler (concurrent.futures.process._python_exit) wakes it through a pipe the thread
        # closes as it ends, unlocked in Python 3.11: "Exception ignored in: <module 'threading'> ... OSError: [Errno 9]
        # Bad file descriptor" on stderr after about one --jobs 2 lint in four.
        if manager is not None:
            manager.join()


def _tasks(shares: list[list[_Group]], topology: bool, policy: Policy, rules: list[type[Rule]], fmt: str | None,
           grouping: bool, keep: int) -> list[tuple]:
    """Each share's task for _lint_share; ``keep``: the peak RSS in bytes under which a worker keeps the objects of
    the shares it is done with (0: it frees them)."""
    local_rules = [r for r in rules if is_local(r, topology)]
    # (the path rules read nothing without a topology: no routing, no paths to follow)
    fact_rules = [r for r in rules if r not in local_rules and r.device_facts is not Rule.device_facts
                  and (topology or not r.topology_only)]
    try:
        limit: int | None = max_file_bytes()
    except InputError:
        limit = None  # LOSSLESSD_MAX_FILE_MB is unusable: each worker's reads say so, as this process's would
    codes = frozenset(r.code for r in rules)
    return [(limit, keep, share, fmt, policy, local_rules, fact_rules, grouping, codes) for share in shares]


def _arrivals(shares: list[list[_Group]], results: Iterable[bytes], fmt: str | None,
              reading: Progress | None) -> Iterator[Device | ParseIssue]:
    """Each group's device (or SYS001/SYS900 issue), share after share as the workers send them back."""
    import pickle

    done, total = 0, sum(map(len, shares))
    if reading is not None:
        reading(0, total)
    for share, blob in zip(shares, results, strict=True):
        with gc_paused():
            result = pickle.loads(blob)  # noqa: S301 - what our own worker process pickled
        done += len(share)
        if reading is not None:  # a share's devices are read and checked when its result comes back
            reading(done, total)
        names: tuple[str, ...] | None = None
        fill: Callable[..., LazyDevice] = _fill  # (set with the first names)
        for (name, files), sent in zip(share, result, strict=True):
            if len(sent) == 1:
                yield sent[0]
                continue
            if sent[0] is not names:  # (the devices of a share that send the same fields send one tuple of names)
                names = sent[0]
                fill = _filler(sent[0])
            yield fill(sent[1], sent[2], name, files, fmt)


# ---- snapshots and issues -----------------------------------------------------------------------------------
def _snapshot_issues(folder: Path, fabric: Fabric) -> list[ParseIssue]:
    """SYS findings for the devices a pull could not collect (or collected with problems), so that
    nothing missing from a snapshot is silent. Issues in a capture name the device parsed from it."""
    display = display_path(folder / collect.MANIFEST)
    try:
        data = collect.read_manifest(folder, display)
    except InputError as exc:
        return [unread(exc, display)]
    parsed = {file: device.name for device in fabric.devices.values() for file in device.files}
    # A collected device's issues name the device parsed from its capture, those at a line of it and those without
    # (an SNMPv2c warning): its config may name it otherwise than the inventory does (a SONiC hostname), and an
    # issue naming no device of the fabric reads as an input that gave none (Coverage.unread).
    captures = {name: display_path(folder / rec["capture"]) for name, rec in data["devices"].items()
                if isinstance(rec, dict) and collect.in_snapshot(rec.get("capture"))}
    issues = collect.manifest_issues(data, display, lambda name: display_path(folder / name))
    for issue in issues:
        source = issue.source
        if source is not None:
            file = source.file if source.line is not None else captures.get(source.device or "")
            source.device = parsed.get(file or "", source.device)
    return issues
