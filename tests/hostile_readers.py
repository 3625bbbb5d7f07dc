"""Every device reader, one fixture each, damaged the ways a file goes wrong on its way to losslessd (issue 11,
round 2): the bytes (empty, NUL, UTF-16, Latin-1, CR-only line ends, a control character in a port name, a 1 MiB
line), the structure (half a file, braces and brackets dropped or doubled, indentation mixed with tabs) and the
file itself (a FIFO, a folder, a link that leads nowhere, a link loop). tests/test_hostile_readers.py runs each
through the real CLI entry (tests/hostile.py's harness) and, for every line cut short once, through lint.

READERS is the one list to extend when a platform gets a reader: add its fixture, and every mutation and the
truncation sweep cover it.

    python -m tests.hostile_readers [--only LABEL] [--every-position]

prints each outcome; ``--every-position`` cuts every line at every position (minutes, for a person to run).
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.hostile import Case, Outcome, run_case

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "tests" / "fixtures" / "raw"


@dataclass(frozen=True)
class Reader:
    label: str
    fmt: str  # --format
    path: Path  # a file, or a folder that is one device
    member: str | None = None  # the file of the folder that is damaged
    policy: str = "roce-dscp26"

    @property
    def file(self) -> Path:
        return self.path / self.member if self.member else self.path


# One fixture per reader (and per syntax a reader takes): the list the lead extends for a new platform.
READERS = [
    Reader("sonic-json", "sonic", RAW / "sonic" / "flat_config_db.json"),
    Reader("sonic-qos-folder", "sonic", RAW / "sonic" / "qos_buffers_folder", "qos.json"),
    Reader("eos", "arista_eos", RAW / "arista_eos" / "roce-leaf.cfg"),
    Reader("nxos", "cisco_nxos", RAW / "cisco_nxos" / "roce-leaf.cfg"),
    Reader("nxos-capture", "cisco_nxos", RAW / "cisco_nxos" / "roce-capture.txt"),
    Reader("junos-set", "juniper_junos", RAW / "juniper_junos" / "roce-leaf.cfg"),
    Reader("junos-curly", "juniper_junos", RAW / "juniper_junos" / "roce-leaf-braces.cfg"),
    Reader("nvue-set", "nvidia_cumulus", RAW / "nvidia_cumulus" / "leaf-roce-good.cfg"),
    Reader("nvue-yaml", "nvidia_cumulus", RAW / "nvidia_cumulus" / "startup.yaml"),
    Reader("mlx5", "linux_mlx5", RAW / "linux_mlx5" / "gpu01-good.txt"),
    Reader("mlx5-script", "linux_mlx5", ROOT / "tests" / "fixtures" / "render" / "linux_mlx5" / "roce-dscp26.sh"),
    Reader("dcb-show", "linux_mlx5", ROOT / "tests" / "realworld" / "linux_mlx5" / "dcb-show-transcript.txt"),
    Reader("opensm-conf", "opensm", RAW / "opensm" / "fat-tree-master", "opensm.conf", "infiniband"),
    Reader("opensm-qos", "opensm", RAW / "opensm" / "fat-tree-master", "qos-policy.conf", "infiniband"),
    Reader("opensm-partitions", "opensm", RAW / "opensm" / "fat-tree-master", "partitions.conf", "infiniband"),
    Reader("ibdiagnet", "opensm", RAW / "opensm" / "credit-loop", "ibdiagnet.log", "infiniband"),
    Reader("os10", "dell_os10", RAW / "dell_os10" / "roce-leaf.cfg"),
    Reader("os10-capture", "dell_os10", RAW / "dell_os10" / "roce-capture.txt"),
    Reader("os9", "dell_os9", RAW / "dell_os9" / "roce-tor.cfg"),
    Reader("onyx", "nvidia_onyx", RAW / "nvidia_onyx" / "roce-leaf.cfg"),
    Reader("onyx-capture", "nvidia_onyx", RAW / "nvidia_onyx" / "roce-mode-capture.txt"),
]

# What a file becomes on its way: name -> text -> bytes. Each is deterministic.
BYTES: dict[str, Callable[[str], bytes]] = {
    "empty": lambda t: b"",
    "nul-only": lambda t: b"\0" * 64,
    "nul-mid": lambda t: _at_mid(t, "\0").encode(),
    "control-mid": lambda t: _at_mid(t, "\x1b").encode(),
    "c1-mid": lambda t: _at_mid(t, "\x9b").encode(),
    "zero-width-mid": lambda t: _at_mid(t, "\u200b").encode(),
    "bidi-mid": lambda t: _at_mid(t, "\u202e").encode(),
    "lookalike-mid": lambda t: _lookalike_mid(t).encode(),
    "utf16-bom": lambda t: t.encode("utf-16"),
    "utf16le": lambda t: t.encode("utf-16-le"),
    "utf32be": lambda t: t.encode("utf-32-be"),
    "gzip": lambda t: gzip.compress(t.encode(), mtime=0),
    "latin1": lambda t: _at_mid(t, "caf\xe9").encode("latin-1"),
    "cr-only": lambda t: t.replace("\n", "\r").encode(),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "bom": lambda t: b"\xef\xbb\xbf" + t.encode(),
    "tabs": lambda t: re.sub(r"(?m)^( +)", lambda m: "\t" * (len(m[1]) % 3) + " " * (len(m[1]) // 3), t).encode(),
    "half": lambda t: t[:len(t) // 2].encode(),
    "one-line": lambda t: t.replace("\n", " ").encode(),
    "u2028": lambda t: t.replace("\n", "\u2028").encode(),
    "open-never-closed": lambda t: (t + "\ninterface x {\n  y {\n").encode(),
    "close-first": lambda t: ("}\n]\n" + t).encode(),
    "no-closing": lambda t: re.sub(r"[}\]]", "", t).encode(),
    "no-opening": lambda t: re.sub(r"[{\[]", "", t).encode(),
    "doubled": lambda t: (t + "\n" + t).encode(),
    "reversed": lambda t: "\n".join(reversed(t.split("\n"))).encode(),
    "indent-stripped": lambda t: "\n".join(line.lstrip() for line in t.split("\n")).encode(),
    "long-line": lambda t: (t + "\n" + "x" * (1 << 20) + "\n").encode(),
    "huge-numbers": lambda t: re.sub(r"(?<=[ :\"])\d+\b", "9" * 5000, t, count=40).encode(),
    "float-overflow": lambda t: re.sub(r"(?<=[ :])\d+\b", "1e309", t, count=40).encode(),
}
# ... and what stands where the file was (a FIFO must not block; a link is named with what it points at).
SPECIAL = ("fifo", "folder", "dangling-link", "link-loop", "dev-null")
# A file that holds nothing readable as its reader's format, or a control or invisible character no device writes
# (SYS002): never clean (exit 0), whatever else it is.
NEVER_CLEAN = {"empty", "nul-only", "nul-mid", "control-mid", "c1-mid", "zero-width-mid", "bidi-mid", "lookalike-mid",
               "utf16-bom", "utf16le", "utf32be", "gzip", "latin1", "fifo", "folder", "dangling-link", "link-loop",
               "dev-null"}


def _at_mid(text: str, what: str) -> str:
    """``what`` put into the middle of the line at the text's middle (a word of it, not between lines)."""
    mid = len(text) // 2
    start = text.rfind("\n", 0, mid) + 1
    end = text.find("\n", mid)
    end = len(text) if end < 0 else end
    at = (start + end) // 2
    return text[:at] + what + text[at:]


def _lookalike_mid(text: str) -> str:
    """The first Latin `e` of a word from the text's middle on made the Cyrillic `е` U+0435 that looks like it."""
    at = re.compile(r"(?<=[A-Za-z])e|e(?=[A-Za-z])").search(text, len(text) // 2) or re.search("[A-Za-z]e", text)
    assert at is not None
    return text[:at.start()] + "\u0435" + text[at.end():]


def place(reader: Reader, folder: Path, data: bytes | None, special: str | None = None) -> Path:
    """The reader's fixture copied under ``folder`` with its file replaced by ``data`` (or ``special``); the path
    to lint."""
    target = folder / "in" / reader.path.name
    if reader.path.is_dir():
        shutil.copytree(reader.path, target)
        changed = target / reader.member if reader.member else target
    else:
        target.parent.mkdir(parents=True)
        changed = target
    if changed.exists():
        changed.unlink()
    if special == "fifo":
        os.mkfifo(changed)
    elif special == "folder":
        changed.mkdir()
        (changed / "x").write_text("x")
    elif special == "dangling-link":
        changed.symlink_to(folder / "gone")
    elif special == "link-loop":
        changed.symlink_to(changed)
    elif special == "dev-null":
        changed.symlink_to("/dev/null")
    else:
        assert data is not None
        changed.write_bytes(data)
    return target if reader.path.is_dir() else target.parent if special else target


def mutation_case(reader: Reader, name: str) -> Case:
    def build(folder: Path) -> list[str]:
        if name in BYTES:
            path = place(reader, folder, BYTES[name](reader.file.read_text(encoding="utf-8")))
        else:
            path = place(reader, folder, None, name)
        return ["lint", str(path), "--format", reader.fmt, "--policy", reader.policy]
    return Case(f"{reader.label}-{name}", build, exits=(1, 2) if name in NEVER_CLEAN else (0, 1, 2))


def truncations(text: str, every_position: bool = False) -> Iterator[tuple[int, int, str]]:
    """(line, column, text) with that line cut at that column: each line once (at a column picked by a hash of
    the line, so the sweep is the same on every run), or at every column."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        cuts = range(len(line)) if every_position else [zlib.crc32(line.encode()) % len(line)] if line else []
        for j in cuts:
            yield i + 1, j, "\n".join([*lines[:i], line[:j], *lines[i + 1:]])


def problems(outcome: Outcome, reader: Reader) -> list[str]:
    """What the documented behaviour rules out: a traceback, a hang, an internal error (exit 3), an input error
    that names no file of the device."""
    found = list(outcome.problems)
    if outcome.exit == 3 or "internal error" in outcome.output:
        found.append("internal error")
    if outcome.exit == 2 and reader.path.name not in outcome.output:
        found.append("exit 2 naming no file of the device")
    return found


def main() -> None:
    import argparse

    from losslessd import api
    from losslessd.errors import InputError

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="readers whose label holds this")
    ap.add_argument("--every-position", action="store_true", help="cut every line at every position")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="losslessd-readers-"))
    bad = 0
    try:
        for reader in READERS:
            if args.only and args.only not in reader.label:
                continue
            for name in (*BYTES, *SPECIAL):
                o = run_case(mutation_case(reader, name), tmp)
                found = problems(o, reader)
                bad += bool(found)
                print(f"{'FAIL' if found else 'ok  '} {o.name:<36} exit {o.exit} {'; '.join(found)}")
            text = reader.file.read_text(encoding="utf-8")
            for line, column, cut in truncations(text, args.every_position):
                folder = tmp / "cut"
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                path = place(reader, folder, cut.encode())
                try:
                    result = api.lint([path], reader.policy, fmt=reader.fmt, jobs=1)
                    if result.internal_errors:
                        bad += 1
                        print(f"FAIL {reader.label} line {line} cut at {column}: {result.internal_errors[0]}")
                except InputError:
                    pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{bad} not as documented", file=sys.stderr)


if __name__ == "__main__":
    main()
