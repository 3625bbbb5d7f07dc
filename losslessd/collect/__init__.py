"""Snapshots: what `losslessd pull` writes and `losslessd lint` reads back (docs/collection.md).

    SNAPSHOT/manifest.json           every inventory device: status, platform, SYS code and message
                                     when it failed, collection time, sha256 of its capture
    SNAPSHOT/<device>.capture        one losslessd capture per collected device (docs/capture-format.md)
    SNAPSHOT/counters/<device>.json  SNMP counters, for devices with SNMP settings

This module stays free of netmiko and pysnmp: the loader imports it to turn a manifest's failures
into SYS findings.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

from ..docpos import load_json
from ..errors import InputError
from ..limits import read_text
from ..model import ParseIssue, Source
from ..parse import INTERNAL_ERROR
from ..printable import quoted
from ..sha import sha256 as _sha256

MANIFEST = "manifest.json"
COUNTERS = "counters"
PARTIAL = "partial"  # the outputs of devices that failed midway (pull._save_partial), never linted
FORMAT = "losslessd-snapshot"
VERSION = 1
# SYS codes of collection (losslessd/rules/sys.py).
UNREACHABLE, AUTH_FAILED, HOST_KEY, TIMEOUT, COMMAND_FAILED, SNMP_V2C = (
    "SYS010", "SYS011", "SYS012", "SYS013", "SYS014", "SYS015")
CODES = (UNREACHABLE, AUTH_FAILED, HOST_KEY, TIMEOUT, COMMAND_FAILED, SNMP_V2C)
# A device whose collection met a bug in losslessd: recorded as such (lint reports SYS900, exits 3), never as a
# device that timed out.
FAILURE_CODES = (*CODES, INTERNAL_ERROR)


MASK = "********"  # what a login secret found in a device's output or error is written as (netmiko's session log too)


class DeviceError(Exception):
    """A failed SNMP poll or gNMI subscription of one device; ``sys_code`` is the SYS finding it becomes
    (a subclass per cause; SYS014, a bad answer, otherwise)."""

    sys_code = COMMAND_FAILED

    def __init__(self, device: str, message: str):
        self.device = device
        self.message = message
        super().__init__(f"{device}: {message}")


def capture_name(device: str) -> str:
    return f"{device}.capture"


def in_snapshot(capture: object) -> TypeGuard[str]:
    """Whether a manifest's ``capture`` names a file of its snapshot folder, as pull writes it (capture_name: a file
    name, no folder): `../../etc/passwd`, `/etc/shadow` or `sub/x` in a hand-edited manifest named a file outside
    the snapshot as the place of a refused command (`[/etc/shadow:3]`), a file no lint read."""
    return (isinstance(capture, str) and capture not in ("", ".", "..") and "/" not in capture
            and "\x00" not in capture)


def sha256(data: bytes) -> str:
    return _sha256(data).hexdigest()


def write_atomic(path: Path, text: str) -> bytes:
    """Write ``text`` so that readers see the old file or the new one, never half of it (a run can be
    interrupted at any point). The temporary file starts with a dot: the loader skips it. A new file is mode 0600
    (docs/collection.md); one written over keeps the mode of the file it replaces (``_kept_mode``)."""
    import tempfile  # (a lint writes nothing: it imports neither tempfile nor the random tempfile brings)

    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:  # (owns fd from here: closed whatever _kept_mode raises)
            _kept_mode(fd, path)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return data


def _kept_mode(fd: int, path: Path) -> None:
    """The file at ``fd`` (mkstemp's, mode 0600) given the read and write bits of the regular file at ``path`` it
    replaces, and its group: a capture made 0640 for a group of operators was 0600 again after the next pull. Never
    wider than that file: no execute or set-id bits, and no group bits when the group cannot be kept (a user outside
    it may not give a file to it). A link, no file there, or another user's file: 0600 stays (a file someone else put
    where a capture goes, world-readable, would otherwise make the capture readable to them)."""
    try:
        old = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISREG(old.st_mode) or old.st_uid != os.geteuid():
        return
    mode = stat.S_IMODE(old.st_mode) & 0o666
    if os.fstat(fd).st_gid != old.st_gid:
        try:
            os.fchown(fd, -1, old.st_gid)
        except OSError:
            mode &= ~0o070
    os.fchmod(fd, mode)


def is_snapshot(folder: Path) -> bool:
    """A folder `pull` wrote (its manifest may be broken: reading it says how)."""
    return os.path.lexists(folder / MANIFEST)


def read_manifest(folder: Path, display: str) -> dict:
    """The manifest of a snapshot folder; ``display`` is its path as reports show it."""
    try:
        data = load_json(display, read_text(folder / MANIFEST, display))
    except InputError as exc:
        raise InputError(f"not a losslessd snapshot manifest: {exc.message}", file=display, line=exc.line) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("devices"), dict):
        raise InputError(f"not a losslessd snapshot manifest (expected \"format\": \"{FORMAT}\" and \"devices\")",
                         file=display, line=1)
    if data.get("version") != VERSION:
        raise InputError(f"snapshot manifest version {quoted(data.get('version'))} is not supported (this losslessd "
                         f"reads version {VERSION})", file=display, line=1)
    return data


def manifest_issues(data: dict, display: str, file_display: Callable[[str], str]) -> list[ParseIssue]:
    """SYS issues for the manifest's failed devices and the problems recorded for collected ones.

    Each issue's source names the inventory device (``source.device``); a failure points into the
    manifest (shown as ``display``), a refused command at its line in the device's capture (a file
    of the snapshot, shown as ``file_display(name)``)."""
    out = []
    for name, rec in sorted(data["devices"].items()):
        if not isinstance(rec, dict):
            continue
        status = rec.get("status")
        if status in ("failed", "pending"):
            code = rec.get("code") if rec.get("code") in FAILURE_CODES else TIMEOUT
            message = rec.get("message") or "collection did not finish (the pull was interrupted)"
            out.append(ParseIssue(code=code, message=message,
                                  source=Source(file=display, pointer=f"/devices/{_escape(name)}", device=name)))
        for issue in rec.get("issues") or ():
            if not isinstance(issue, dict) or issue.get("code") not in CODES:
                continue
            capture, command = rec.get("capture"), issue.get("command")
            command = command if isinstance(command, str) else None
            line = issue.get("line")
            message = str(issue.get("message", ""))
            if isinstance(line, int) and not isinstance(line, bool) and line >= 1 and in_snapshot(capture):
                source = Source(file=file_display(capture), line=line, device=name, command=command)
            else:
                source = Source(file=display, pointer=f"/devices/{_escape(name)}", device=name, command=command)
                if capture is not None and not in_snapshot(capture):
                    message += (f" (the manifest names its capture {quoted(str(capture))}, no file of the snapshot "
                                "folder: pointed at the manifest)")
            out.append(ParseIssue(code=issue["code"], message=message, source=source))
    return out


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")  # RFC 6901
