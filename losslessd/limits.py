"""How much losslessd reads, and how: every input file goes through ``read_text``.

Inputs come from operators, from devices and from whoever can write into a fabric folder, so each
read is bounded before it starts (README "Limits"):

- regular files only: a FIFO, a device (/dev/zero), a socket or a folder where a file is expected is
  refused at once, never read (a FIFO would block forever, /dev/zero never ends);
- at most ``max_file_bytes()`` per file (default 32 MiB: the largest real SONiC config_db.json files
  are a few MB; 2.6 million ports in 200 MB took 7.9 GB to lint), raised with `--max-file-mb` or
  the environment variable LOSSLESSD_MAX_FILE_MB;
- YAML documents (docpos.load_yaml) are at most an eighth of that (each node is a Python object or three),
  nest at most MAX_NESTING levels, hold at most MAX_YAML_NODES nodes once their aliases are expanded,
  and integers of at most MAX_INT_DIGITS digits;
- JSON documents nest no deeper than Python's parser allows (about 1,000 levels);
- a switch has at most MAX_PORTS ports (the memory a lint takes grows with ports, not bytes).
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError
from .lazyre import lazy

if TYPE_CHECKING:
    import sqlite3

MIB = 1024 * 1024
# The longest wait a timer, a lock or a socket takes (threading.TIMEOUT_MAX, Python docs "threading": about 292 years on
# Linux; socket.settimeout refuses more): `ssh_timeout_s: 1.0e+10` passed --check and every SSH poll's socket raised
# OverflowError. Every duration of the daemon's settings is at most this (as `pull --timeout` on the command line).
MAX_SECONDS = threading.TIMEOUT_MAX
DEFAULT_MAX_FILE_BYTES = 32 * MIB
ENV_MAX_FILE_MB = "LOSSLESSD_MAX_FILE_MB"
# The largest file limit that is a size: no file is larger than off_t, a signed 64-bit count of bytes (POSIX
# <sys/types.h>; st_size), 2^63 - 1 bytes. A larger one (1e308 MiB) was infinite bytes, and int() raised on it.
MAX_FILE_MB = (2**63 - 1) // MIB
# Small files read whole for one value (a password file): a secret is one line.
SECRET_FILE_BYTES = 64 * 1024
# YAML is parsed by libyaml (PyYAML's pure-Python reader where PyYAML lacks it) and composed, checked and
# constructed in Python: about 0.3-1 MB/s (0.1 MB/s in pure Python: bench/yaml_read.py) and ~1 KB per node,
# so a YAML document may hold an eighth of the file limit (4 MiB by default: a 10,000-host inventory is
# ~1.5 MB, an NVUE startup.yaml a few hundred KB).
YAML_SHARE = 8
# Deeper than any policy, inventory, settings or NVUE tree (NVUE's deepest paths are ~10 levels), and
# shallow enough that PyYAML's recursive composer and our walkers stay far from Python's recursion limit.
MAX_NESTING = 64
# Nodes a YAML document may hold once its aliases are expanded: the billion-laughs bound. A 10,000-host
# inventory is ~150,000 nodes.
MAX_YAML_NODES = 1_000_000
# Longer integers are never a setting (2^64 has 20 digits); CPython refuses to convert above 4,300.
MAX_INT_DIGITS = 32
# Ports of one switch: the largest chassis (36 line cards of 36 ports broken out in four) has ~5,200.
MAX_PORTS = 16_384
# Lossless PGs of one switch that can be congested at once: each of its ports has 8 priorities (IEEE 802.1Qbb).
MAX_LOSSLESS_PGS = 8 * MAX_PORTS
# Ports one interface range may name (`interface Ethernet1/1-48`, `swp1-64`): a line card or a switch has at most a
# few hundred (MAX_PORTS counts ~5,200 for the largest chassis, across dozens of cards); a range past 1,024 is a typo
# or a generated flood, refused with its line rather than read as a thousand ports.
MAX_RANGE_PORTS = 1024
# Port names the interface ranges of one input may expand to (`swp1-1024`, `interface Ethernet1/1-48`), each
# expansion applying a block of settings: 64 settings lines for every port of the largest switch.
MAX_EXPANDED_PORTS = 64 * MAX_PORTS
# Statements of one Junos file that can change what is read (interfaces, class-of-service, VLANs, their groups,
# deletes): 32 for every port of the largest switch. Each kept statement takes about 335 bytes until the file is read,
# so a file of short ones (1.4 million `set class-of-service x` lines in 32 MiB) took 900 MB; a real one keeps a few
# thousand (a JVD EVPN leaf with 4,094 VLANs in a routing instance, three statements each: about 13,000).
MAX_KEPT_STATEMENTS = 32 * MAX_PORTS
# Commands a host setup script may run once its `for` loops are unrolled: one NIC port's full setup is ~20, a
# host has at most a few dozen ports; nested loops over long lists multiply (a generated file, or a hostile one).
MAX_SCRIPT_COMMANDS = 100_000
# Words the brace expansions of one host script may make in all (each word past MAX_BRACE_WORDS counted as that many):
# as many as the commands it may run, since a `for` over such words runs its body once per word. Without it one line of
# 8,000 `{1..1000}` (80 KB) made 8 million words: 16 s and 642 MB.
MAX_SCRIPT_BRACE_WORDS = MAX_SCRIPT_COMMANDS
# Issues of one code (SYS002: a line not read) a parser lists for one file; beyond, one more issue counts the rest from
# the first it leaves out. Each is a line for a person to fix (a broken real config has a handful); a file of 16 million
# lines of `}` alone (32 MiB) was 16 million issues: 3 GB to parse, about 14 GB to lint and report.
MAX_ISSUES_PER_FILE = 1_000

_max_file_bytes: int | None = None


def set_max_file_mb(mb: float | None) -> None:
    """The per-file size limit for this process (`--max-file-mb`); None: the environment or the default."""
    global _max_file_bytes
    size = None if mb is None else _limit_bytes(mb)
    if size == 0:
        raise InputError(f"--max-file-mb must be a positive number of MiB, not {mb:g} (at most {MAX_FILE_MB:,}: 2^63 "
                         f"bytes), and at least one byte ({1 / MIB:.2g})")
    _max_file_bytes = size


def _limit_bytes(mb: float) -> int:
    """``mb`` MiB in whole bytes, or 0 where that is no file size limit: inf (no limit is not a size), nan, 0 or
    less, and a limit below one byte (1e-9 MiB: every file, the policy first, was "larger than the 0 KiB limit")."""
    return int(mb * MIB) if 0 < mb <= MAX_FILE_MB else 0


@contextmanager
def file_limit_mb(mb: float | None) -> Iterator[None]:
    """The per-file limit set to ``mb`` (None: unchanged) while the block runs, then restored."""
    global _max_file_bytes
    saved = _max_file_bytes
    if mb is not None:
        set_max_file_mb(mb)
    try:
        yield
    finally:
        _max_file_bytes = saved


def max_file_bytes() -> int:
    if _max_file_bytes is not None:
        return _max_file_bytes
    raw = os.environ.get(ENV_MAX_FILE_MB)
    if raw:
        try:  # (ASCII, as --max-file-mb takes it: float() also reads other scripts' digits, '١' as 1)
            size = _limit_bytes(float(raw)) if raw.isascii() else 0
        except ValueError:
            size = 0
        if not size:
            raise InputError(f"{ENV_MAX_FILE_MB}={raw[:40]!r} is not a positive number of MiB (at most "
                             f"{MAX_FILE_MB:,}: 2^63 bytes), and at least one byte ({1 / MIB:.2g})")
        return size
    return DEFAULT_MAX_FILE_BYTES


def max_yaml_bytes() -> int:
    return max_file_bytes() // YAML_SHARE


def describe_mib(size: int) -> str:
    if size < MIB:
        return f"{size / 1024:.0f} KiB"
    return f"{size / MIB:.1f} MiB" if size % MIB else f"{size // MIB} MiB"


class LinkRefused(Exception):
    """read_bytes(..., links=False) of a symbolic link: nothing was read."""


# Where the system can refuse to open a symbolic link (read_bytes(..., links=False)).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


_recording: list[set[tuple[int, int]]] = []  # reads_recorded's sets, while they record


@contextmanager
def reads_recorded() -> Iterator[set[tuple[int, int]]]:
    """The (device, inode) of every file read_bytes reads in this process meanwhile: what a report written after
    must not replace (a policy an `extends` chain names, a topology's routes file), whatever path named it."""
    seen: set[tuple[int, int]] = set()
    _recording.append(seen)
    try:
        yield seen
    finally:
        _recording.remove(seen)


def not_an_input(output: str | Path, named: list, read: set[tuple[int, int]], command: str, what: str,
                 option: str = "--output") -> None:
    """An output naming a file the command read (``named`` by their paths; else among the files ``read``, as
    reads_recorded gives them: a policy the policy extends, a topology's routes file) would replace it with the
    ``what``: refused (a `-o leaf1.cfg` meant for `-o leaf1.txt` lost the config; a `--plot` linked to the
    history file replaced the database with a picture)."""
    try:
        out = os.stat(output)
    except (OSError, ValueError):
        return  # (not there yet: nothing to lose)
    for path in named:
        try:
            info = os.stat(path) if path is not None else None
        except (OSError, ValueError):
            continue
        if info is not None and (info.st_dev, info.st_ino) == (out.st_dev, out.st_ino):
            raise InputError(f"{option} names {path}, which this {command} read: the {what} would replace it; write "
                             f"the {what} to another file", file=str(output))
    if (out.st_dev, out.st_ino) in read:
        raise InputError(f"{option} names a file this {command} read (a device file of a folder it reads; a policy "
                         f"the policy extends; a file the topology names): the {what} would replace it; write the "
                         f"{what} to another file",
                         file=str(output))


def read_bytes(path: str | Path, display: str | None = None, *, limit: int | None = None,
               what: str = "file", links: bool = True) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (default ``max_file_bytes()``); InputError
    naming ``display`` (default the path) otherwise. Never blocks: a FIFO is opened non-blocking and
    refused. ``links=False`` (where NOFOLLOW): LinkRefused when ``path`` itself is a symbolic link (or a link
    loop), for a caller that names a linked file otherwise."""
    display = display or str(path)
    limit = max_file_bytes() if limit is None else limit
    if "\0" in str(path):  # (os.open raises ValueError: a YAML "\0" in a path the settings or a topology give)
        raise InputError(f"cannot read {what}: its name holds a NUL character (\\0), which no file name can",
                         file=display.replace("\0", "\\0"))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
                     | (0 if links else NOFOLLOW))
    except OSError as exc:
        if not links and exc.errno in (errno.ELOOP, errno.EMLINK):  # (Linux; the BSDs and macOS say EMLINK)
            raise LinkRefused(display) from None
        if exc.errno == errno.ENXIO and (kind := not_a_file(path)):  # (a socket: open(2) says "No such device")
            raise InputError(f"{kind}: losslessd reads {what}s only from regular files", file=display) from None
        raise InputError(f"cannot read {what}: {os_reason(exc)}{_dangling(path, exc)}", file=display) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"not a regular file ({file_kind(info.st_mode)}): losslessd reads {what}s only from "
                             "regular files", file=display)
        for seen in _recording:
            seen.add((info.st_dev, info.st_ino))
        if info.st_size > limit:
            raise _too_big(display, info.st_size, limit, what)
        chunks, size = [], 0
        # Each read asks for the bytes the file has and one more (to see its end), not 4 MiB: a read allocates what
        # it asks for, and a worker's heap, full of a share's devices, made that cost more than the reading.
        expected = info.st_size + 1
        while True:  # the file may grow while it is read (then in chunks): never read more than the limit
            chunk = os.read(fd, min(limit + 1 - size, expected - size if size < expected else 4 * MIB))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise _too_big(display, size, limit, what)
            if size == info.st_size:  # (all its bytes, in one read asking for one more: at its end, no read to see it)
                break
        data = b"".join(chunks)
        _unchanged(fd, info, data, display, what)
        return data
    except OSError as exc:
        raise InputError(f"cannot read {what}: {os_reason(exc)}", file=display) from None
    finally:
        os.close(fd)


def _unchanged(fd: int, before: os.stat_result, data: bytes, display: str, what: str) -> None:
    """InputError where the file was written while it was read (its size moved between the fstat before the first
    read and the one after the last, or the bytes read are not its size): a copy or an editor's save in place
    truncated it under the read, and the half read looked like a whole config cut at a line. A kernel file's size
    (/proc's 0 bytes, /sys's 4,096: no blocks stored) is no count of its bytes and is not compared with them. A file
    whose modification time alone moved (a backup tool's touch, a rewrite of the same length) is read once more:
    the same bytes are what it holds."""
    after = os.fstat(fd)
    if after.st_size == before.st_size and (before.st_blocks == 0 or len(data) == before.st_size):
        if after.st_mtime_ns == before.st_mtime_ns or os.pread(fd, len(data) + 1, 0) == data:
            return
        why = "its bytes differ when read again"
    else:
        why = f"{before.st_size:,} bytes as the read began, {len(data):,} read, {after.st_size:,} as it ended"
    raise InputError(f"the {what} changed while it was read ({why}): another program is writing it; read it again "
                     "once written", file=display)


def open_output(path: str | Path, flags: int = 0, mode: int = 0o666) -> int:
    """``path`` opened for writing (created, emptied; ``flags`` more) without blocking: a blocking open of a FIFO no
    process reads waits for ever. Where open(2) answers ENXIO (a FIFO without a reader, a socket), the OSError says
    what is there."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_CLOEXEC
                       | getattr(os, "O_NOCTTY", 0) | flags, mode)
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        try:
            kind = os.stat(path).st_mode
        except OSError:
            raise exc from None
        why = ("it is a FIFO no process reads (writing to it would wait for ever)" if stat.S_ISFIFO(kind)
               else f"not a regular file ({file_kind(kind)})")
        raise OSError(errno.ENXIO, why) from None


def check_output(path: str | Path, what: str, *, regular: bool = False, folder: bool = False) -> str:
    """``path`` as an error names it, or InputError for an output no run may write: a name with a NUL, a file (or,
    ``folder``, a folder) on a kernel filesystem (/proc/sys/..., /sys/...: settings, not storage); ``regular``:
    anything there but a regular file too (a FIFO, a device: a SQLite file, which SQLite opens itself, beside its
    journal). write_output's checks, and output_folder's; SQLite stores (the daemon's history, a tune database)
    make them before they create a file."""
    display = str(path)
    if "\0" in display:
        raise InputError(f"cannot write the {what}: its name holds a NUL character (\\0), which no file name can",
                         file=display.replace("\0", "\\0"))
    kernel = _kernel_fs(path, folder)
    if kernel:
        raise InputError(f"cannot write the {what}: the path is on the kernel's {kernel} filesystem, whose files are "
                         f"kernel interfaces, not storage: write the {what} to a {'folder' if folder else 'file'} on "
                         "disk", file=display)
    kind = not_a_file(path) if regular else None
    if kind:
        raise InputError(f"cannot write the {what}: {kind}; name a regular file (or a new one)", file=display)
    return display


def write_output(path: str | Path, data: bytes, what: str) -> None:
    """Write an output file (a report, a plot) whole; InputError naming it, never a hang: it is opened without
    blocking, so a FIFO no process reads is refused at once (a blocking open waits for a reader for ever), then
    written blocking (a pipe with a reader, /dev/stdout, a terminal take it as they drain)."""
    display = check_output(path, what)
    target, temp = _beside(path)
    try:
        fd = open_output(temp or path, os.O_EXCL if temp else 0)
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {os_reason(exc)}", file=display) from None
    try:
        if temp:
            with suppress(OSError):  # (the report keeps the mode it had)
                os.fchmod(fd, stat.S_IMODE(os.stat(target).st_mode))
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if temp:
            os.replace(temp, target)  # (the report as it was, or the new one whole: never a cut one)
            temp = None
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {os_reason(exc)}", file=display) from None
    finally:
        os.close(fd)
        if temp:
            with suppress(OSError):
                os.unlink(temp)


def output_folder(path: str | Path, what: str, option: str, mode: int = 0o777) -> None:
    """Make the folder (and its parents) that an output's files go into (pull's snapshot and session logs, tune
    report's plots), with write_output's checks, before anything is written there; InputError naming it otherwise.
    A folder on a kernel filesystem is refused before it is made: under /sys/fs/cgroup a mkdir makes a cgroup, and
    /proc takes no file. ``mode``: the folder's own, where it is made (its parents take the umask's)."""
    display = check_output(path, what, folder=True)
    try:
        os.makedirs(path, mode=mode, exist_ok=True)
    except OSError as exc:  # (a file of that name, a path below one, a folder not writable)
        why = f"it is a file: {option} names a folder" if isinstance(exc, FileExistsError) else os_reason(exc)
        raise InputError(f"cannot make the folder for the {what}: {why}", file=display) from None


# Filesystems whose files are the kernel's interfaces (proc(5), sysfs(5), cgroups(7), debugfs, tracefs, configfs,
# securityfs, bpf, pstore, efivarfs): a report is never kept there, and /proc/self/comm or /sys/... take it as a
# setting
_KERNEL_FS = frozenset({"proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "configfs", "securityfs", "bpf",
                        "pstore", "efivarfs"})


def _kernel_fs(path: str | Path, folder: bool = False) -> str | None:
    """The kernel-interface filesystem a regular file at ``path`` (or, where nothing is there, its folder) is on, by
    its device in /proc/self/mountinfo (proc(5)); None elsewhere, for what is not a regular file (a pipe or terminal
    behind /dev/stdout), or where there is no mountinfo to read. ``folder``: ``path`` is a folder, or the first of
    its parents that is there."""
    try:
        kind = os.stat(path)
        if not (stat.S_ISDIR if folder else stat.S_ISREG)(kind.st_mode):
            return None
    except OSError:
        parent = os.path.dirname(os.path.abspath(path))
        while True:
            try:
                kind = os.stat(parent)
                break
            except OSError:
                if not folder or parent == os.path.dirname(parent):
                    return None
                parent = os.path.dirname(parent)
    device = f"{os.major(kind.st_dev)}:{os.minor(kind.st_dev)}"
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:  # ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE ...
                fields = line.split()
                if len(fields) > 7 and fields[2] == device and "-" in fields[6:]:
                    fstype = fields[fields.index("-", 6) + 1]
                    return fstype if fstype in _KERNEL_FS else None
    except (OSError, IndexError):
        return None
    return None


def _beside(path: str | Path) -> tuple[str, str | None]:
    """Where a regular file (or a new one) is written first: a file beside it, renamed over it once whole, so a disk
    that fills mid-write keeps the report that was there (it was truncated first); None for what is not a regular
    file (a FIFO, /dev/stdout, a terminal: written in place) or a folder that takes no new file (its file written in
    place, as before)."""
    try:
        kind = os.stat(path).st_mode
    except OSError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind):
        return os.fspath(path), None
    # A report the user may not write is opened in place, where open(2) says EACCES as `>` does (renamed over, it was
    # replaced wherever its folder took a new file). A link is resolved by the kernel, open(2) without emptying the
    # file it names: the report is written there, not over the link; a link to no file yet makes that file, as `>`
    # does; a loop (ELOOP), a link fs.protected_symlinks refuses (another user's, in a sticky world-writable folder
    # such as /tmp: proc(5)) and a file named read-only are opened in place, where open(2) says why. (os.path.realpath
    # followed every link itself, around the kernel's checks.)
    if kind is not None and not os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        return os.fspath(path), None
    target = os.fspath(path)
    if os.path.islink(path):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0),
                         0o666)
        except OSError:
            return target, None
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return os.fspath(path), None
        finally:
            os.close(fd)
    folder, name = os.path.split(target)
    temp = os.path.join(folder, f".{name}.{os.getpid()}.part")
    if not os.access(folder or ".", os.W_OK) or os.path.lexists(temp):
        return target, None
    return target, temp


def universal_newlines(text: str) -> str:
    """``text`` with "\\r\\n" and "\\r" as "\\n", as ``open()`` in text mode reads lines (the one reading of line ends
    for files, captures written and command outputs)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_text(path: str | Path, display: str | None = None, *, limit: int | None = None, what: str = "file",
              links: bool = True) -> str:
    """``read_bytes`` decoded as UTF-8 with universal newlines (as ``open()`` in text mode reads: "\\r\\n" and
    "\\r" become "\\n") and without a leading byte order mark (a Windows editor's; JSON readers refuse it and
    it glued itself to the first word of a config); text that is not UTF-8 names the line of the first bad byte."""
    return decoded(read_bytes(path, display, limit=limit, what=what, links=links), display or str(path))


def decoded(data: bytes, display: str) -> str:
    """The text ``read_text`` makes of a file's bytes (for a reader that keeps the bytes too: the policy cache's
    key); InputError naming ``display`` for bytes that are no UTF-8 text."""
    if (other := other_encoding(data)) is not None:
        raise InputError(other, file=display, line=1)
    try:
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            text = text[1:]
        return universal_newlines(text)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8")) + 1  # (in characters, as an editor counts them)
        raise InputError(_not_utf8(data, exc, column), file=display,
                         line=data.count(b"\n", 0, line_start) + 1) from None


def _not_utf8(data: bytes, exc: UnicodeDecodeError, column: int) -> str:
    """Why ``data`` is no UTF-8 text, its first bad byte at ``column`` of its line: a binary file, the file cut inside
    a character (a copy cut short), a character of Windows-1252 (a description typed in a Windows editor, "Caf"
    e9: said with what the byte reads there and how to convert), else text of another legacy encoding."""
    at, byte = exc.start, data[exc.start]
    if _BINARY_CONTROL.search(data):  # (text has no C0 control but tabs, line ends, form feed and ESC)
        return f"not UTF-8 text (is this a binary file?): bad byte 0x{byte:02X} at column {column} (offset {at})"
    if exc.end == len(data) and exc.reason == "unexpected end of data":
        return (f"the file ends inside a UTF-8 character (byte 0x{byte:02X} at column {column} begins one that is "
                "cut off): a copy cut short? fetch the file again")
    said = f"not UTF-8 text: byte 0x{byte:02X} at column {column}"
    text = data.decode("utf-8", "surrogateescape")
    stray = len(_STRAY.findall(text))
    if stray <= len(_HIGH.findall(text)) - stray:  # (the characters UTF-8 reads above 127 against the bytes it cannot)
        # (mostly UTF-8, a character typed in another editor: iconv of the whole file would spoil the others)
        return f"{said}{_reads(data[at:at + 1], list(_CODEPAGES))} among UTF-8 characters: retype that character " \
            "(or save the file as UTF-8 again)"
    read = _latin_codepages(data)
    if not read:
        return f"{said}, in text of another encoding (Shift-JIS, GBK, EUC-KR, Windows-1251, KOI8-R?): save the " \
            "file as UTF-8"
    if read == ["cp1252"]:
        return (f"{said}{_reads(data[at:at + 1], read)}, which the file seems to be written in: convert it to UTF-8 "
                "(iconv -f WINDOWS-1252 -t UTF-8)")
    # (Windows-1250 text was called Windows-1252, and its iconv turned "Řízení" into "Øízení" without a word: where
    # the bytes do not tell which of the two it is, no conversion is offered)
    return (f"{said}{_reads(data[at:at + 1], read)}, in a legacy 8-bit encoding (Windows-1252 or -1250?): open it in "
            "an editor that shows its text right and save it as UTF-8")


def _reads(byte: bytes, codecs: list[str]) -> str:
    """What ``byte`` reads as in ``codecs`` that have it (" is 'ø' in Windows-1252 (Latin-1) and 'ř' in Windows-1250
    (Central European)"), in the first of them alone where they read it alike (" is 'é' in Windows-1252 (Latin-1)")."""
    seen: dict[str, list[str]] = {}
    for codec in codecs:
        with suppress(UnicodeDecodeError):
            seen.setdefault(byte.decode(codec), []).append(codec)
    return (" is " + " and ".join(f"{char!r} in {_CODEPAGES[names[0]]}" for char, names in seen.items())) if seen \
        else ""


def _latin_codepages(data: bytes) -> list[str]:
    """The Windows code pages ``data`` reads as European text in (``_latin``), the likelier first; Windows-1252 alone
    where it wins clearly, or where both read the file alike (its conversion is right either way). Windows-1250 text
    reads as letters in Windows-1252 too ("Řízení sítě" as "Øízení sítì", "Łódź" as "£ódŸ"): each reading is scored
    by ``_fit`` over the characters that tell them apart and the letters both read alike."""
    read = {}
    for codec, together in (("cp1252", 2), ("cp1250", 4)):
        with suppress(UnicodeDecodeError):
            if _latin(data, text := data.decode(codec), together):
                read[codec] = text[:_SCORED]
    if "cp1252" in read and read["cp1252"] == read.get("cp1250"):
        return ["cp1252"]
    if (central := read.get("cp1250")) is not None and _fit(
            central, [i for i, char in enumerate(central) if char > "\x7f"], _CENTRAL, alone=False) < _WORDS:
        del read["cp1250"]
    if len(read) < 2:
        return list(read)
    western, central = read["cp1252"], read["cp1250"]
    at = [i for i, (w, c) in enumerate(zip(western, central, strict=True)) if w != c or w > "\x7f" and w.isalpha()]
    fit_w, fit_c = _fit(western, at, _WESTERN), _fit(central, at, _CENTRAL, alone=False)
    if fit_w >= fit_c + _CLEAR:
        return ["cp1252"]
    return ["cp1252", "cp1250"] if fit_w >= fit_c else ["cp1250", "cp1252"]


def _fit(text: str, at: list[int], alphabets: dict[str, str], alone: bool = True) -> float:
    """The largest share of the characters of ``text`` at ``at`` that one language of ``alphabets`` writes (a mark,
    no letter, fits any). Polish writes ć ń ś ź before no vowel (ci, ni, si, zi there): "España" read as "Espańa" is
    no Polish. ``alone``: the languages have one-letter words above ASCII (French à, Italian è); where they have
    none, a letter between no others is no word of theirs ("£100" read as "Ł100")."""
    def writes(language: str, i: int) -> bool:
        char = text[i].lower()
        if not char.isalpha():
            return True
        if not alone and not text[i - 1:i].isalpha() and not text[i + 1:i + 2].isalpha():
            return False
        return char in alphabets[language] and not (
            language == "Polish" and char in "ćńśź" and text[i + 1:i + 2].lower() in _POLISH_VOWELS)

    return max(sum(writes(language, i) for i in at) for language in alphabets) / len(at) if at else 1.0


def _latin(data: bytes, legacy: str, together: int = 2) -> bool:
    """Whether ``data`` (``legacy`` as a Windows code page reads it) reads as European text: accented letters at most
    ``together`` at a time among ASCII ones ("Café", "ação", "Łódź"), and typographic marks. Every byte above 127 is
    some character in Windows-1252, so Cyrillic, Greek or Shift-JIS text decoded too and was called Windows-1252, with
    an iconv that garbles it: their words are runs of such bytes, or symbols among letters (Shift-JIS's 83 lead byte,
    the florin sign ƒ, before each ASCII trail byte of katakana; ISO 8859-2's ą, which reads ± in both code pages)."""
    return not _HIGH_RUN[together].search(data) and all(c.isalpha() and c != "\u0192" or c in _MARKS
                                                        for c in _HIGH.findall(legacy))


# U+FEFF as each wider encoding form writes it (The Unicode Standard, 23.8 "Byte Order Mark"), the 4-byte ones first:
# UTF-32LE's begins as UTF-16LE's does
_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32LE"), (b"\x00\x00\xfe\xff", "UTF-32BE"), (b"\xff\xfe", "UTF-16LE"),
         (b"\xfe\xff", "UTF-16BE"))
# What a compressed copy of a config starts with: gzip (RFC 1952 2.3.1: 1f 8b), zip (PKWARE APPNOTE 4.3.7, a local
# file header: "PK" 03 04), bzip2 ("BZh", a block size 1-9, the block magic "1AY&SY"), xz (The .xz File Format
# 2.1.1.1: fd "7zXZ" 00), zstd (RFC 8878 3.1.1: 28 b5 2f fd), 7z (7-Zip's 7zFormat.txt, SignatureHeader:
# "7z" bc af 27 1c)
_PACKED = (((b"\x1f\x8b",), "gzip", "gunzip"), ((b"PK\x03\x04",), "zip", "unzip"),
           (tuple(b"BZh%d1AY&SY" % size for size in range(1, 10)), "bzip2", "bunzip2"),
           ((b"\xfd7zXZ\x00",), "xz", "unxz"), ((b"\x28\xb5\x2f\xfd",), "zstd", "unzstd"),
           ((b"7z\xbc\xaf\x27\x1c",), "7z", "7z x"))
# Files that hold a config but are no text of one: a tar archive (POSIX.1-2017 pax, "ustar Interchange Format": the
# magic "ustar" NUL at offset 257 of the first header; GNU tar writes "ustar" and two spaces, then NUL) and a PDF
# (ISO 32000-1 7.5.2, the header "%PDF-"). A tar's text stands in it as written, between headers of NULs: it was
# read as the config with a SYS002 for its NULs, findings and all
_NOT_TEXT = (((b"ustar\x00", b"ustar  \x00"), 257, "a tar archive, not text: unpack it (tar -xf) and give the file it "
              "holds"),
             ((b"%PDF-",), 0, "a PDF document, not text: give the text itself (a configuration as the device prints "
              "it), not a document holding it"))
# C0 controls no text holds (all but tab, line feed, vertical tab, form feed, carriage return, and ESC)
_BINARY_CONTROL = lazy(b"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
# A byte UTF-8 cannot read, as the surrogateescape error handler decodes it (Python docs, codecs: U+DC80-U+DCFF)
_STRAY = lazy("[\udc80-\udcff]")
# More bytes above 127 in a row than a word has accented letters together: two in Western European ones, four in
# Polish ("Zażółć", the pangram "Zażółć gęślą jaźń"), and three or more there only beside an ASCII letter (Hebrew
# "שרת", all its letters above 127, reads as "ůřú" in Windows-1250)
_HIGH_RUN = {2: lazy(b"[\x80-\xff]{3}"),
             4: lazy(b"[\x80-\xff]{5}|(?<![A-Za-z\x80-\xff])[\x80-\xff]{3,}(?![A-Za-z\x80-\xff])")}
_HIGH = lazy("[^\x00-\x7f]")  # a character above 127 (ASCII's last, ISO/IEC 646)
# What Western European text holds above 127 besides letters (Windows-1252's code chart: quotes, dashes, the
# ellipsis, bullet, euro, pound, degree, copyright and trademark signs, section sign, middle dot, no-break space,
# Spanish inverted marks, multiplication sign)
_MARKS = frozenset("\u2018\u2019\u201a\u201c\u201d\u201e\u2013\u2014\u2026\u2022\u20ac\u00ab\u00bb\u00a3\u00b0"
                   "\u00a9\u00ae\u2122\u00a7\u00b7\u00a0\u00a1\u00bf\u00d7")
# Each language's letters above ASCII, lower case, as its alphabet has them (rare ones left out: French ÿ, Slovak ĺ
# ŕ): those of Windows-1252 (Microsoft's code page chart: Western European) and of Windows-1250 (Central European)
_WESTERN = {"French": "àâæçéèêëîïôœùû", "Spanish": "áéíñóúü", "Portuguese": "àáâãçéêíóôõú", "Italian": "àèéìíòóù",
            "German": "äöüß", "Nordic": "äåæéöø", "Catalan": "àçèéíïòóúü"}
_CENTRAL = {"Czech": "áčďéěíňóřšťúůýž", "Slovak": "áäčďéíľňóôšťúýž", "Polish": "ąćęłńóśźż",
            "Hungarian": "áéíóöőúüű", "Croatian": "čćđšž", "Romanian": "âîăşţ"}
_POLISH_VOWELS = frozenset("aąeęioóuy")
_CLEAR = 0.25  # how much better Windows-1252 must fit to be named alone ("café cœur": French all, Czech é é of 3)
_WORDS = 0.75  # how well Windows-1250 must fit to be read at all (four letters together: GBK's 上海 reads as "ÉĎşŁ")
_SCORED = 1 << 16  # characters of a file the code pages are scored over (enough words, and fast on a large file)
_CODEPAGES = {"cp1252": "Windows-1252 (Latin-1)", "cp1250": "Windows-1250 (Central European)"}
_SAMPLE = 4096  # bytes looked at for a wider encoding without a byte order mark
# The first bytes of _BOMS and _PACKED: a file opening with another is none of them
_OPENINGS = frozenset([bom[:1] for bom, _ in _BOMS] + [magic[:1] for magics, _, _ in _PACKED for magic in magics])


def other_encoding(data: bytes) -> str | None:
    """Why ``data`` is no UTF-8 text to read, when it is text in a wider encoding (UTF-16 or UTF-32, with or without
    a byte order mark: without one, ASCII in them is valid UTF-8 with a NUL beside each letter, and read as a file
    of NULs no platform knows), a compressed copy, a tar archive or a PDF; None otherwise."""
    if data[:1] in _OPENINGS:  # (a text's first byte starts no byte order mark or packed format: not looked for)
        for bom, name in _BOMS:
            if data.startswith(bom):
                return f"{name} text: losslessd reads UTF-8 (save the file as UTF-8)"
        for magic, name, tool in _PACKED:
            if data.startswith(magic):
                return f"compressed with {name}, not text: decompress it ({tool}) and give the file it holds"
    for magic, offset, what in _NOT_TEXT:
        if data.startswith(magic, offset):
            return what
    if data.find(b"\x00", 0, _SAMPLE) < 0:
        return None
    sample = data[:_SAMPLE]
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        end = len(sample) // width * width
        if end < 2 * width:
            continue
        lanes = [sample[k:end:width].count(0) * width / end for k in range(width)]  # share of NULs per byte lane
        # ASCII text: every lane but the low byte's is NUL (90%: a description may hold letters of other scripts)
        for low, order in ((0, "LE"), (width - 1, "BE")):
            if lanes[low] < 0.1 and all(share > 0.9 for k, share in enumerate(lanes) if k != low):
                return (f"{name}{order} text without a byte order mark: losslessd reads UTF-8 (save the file as "
                        "UTF-8)")
    return None


# SQLite's result codes (sqlite.org/rescode.html) of a reader that cannot make the -shm file of a WAL database: the
# folder not writable to it (SQLITE_READONLY_DIRECTORY 1544), or the file not made there (SQLITE_CANTOPEN 14)
_NO_SHM = (1544, 14)


# How long a read-only report (`events`, `history`, `tune report`) waits for a lock: in WAL mode a reader waits for no
# writer (SQLite "Write-Ahead Logging": "readers do not block writers and a writer does not block readers"), only for
# a moment's recovery of the WAL after a crash, or for a program holding the file in exclusive locking mode (an
# sqlite3 shell's `PRAGMA locking_mode=EXCLUSIVE`), which does not let go in seconds: the reader names it at once.
READ_WAIT_S = 1.0


def sqlite_readable(db: sqlite3.Connection, path: Path, timeout: float) -> sqlite3.Connection:
    """``db`` (a state file opened ``mode=ro``), or where the reader cannot make the -shm file SQLite reads a WAL
    database through, the file opened immutable, as SQLite's "WAL mode" page ("Read-Only Databases") says such a file
    is read: the daemon's history or a tune database of another user, in a folder only that user writes, with no
    writer running, was "attempt to write a readonly database" to `events`, `history` and `tune report`. Only with no
    -wal file beside it: no writer has it open. Immutable, SQLite takes no lock and trusts its cached pages: a writer
    that starts meanwhile goes unseen (see ``still_as_read``)."""
    import sqlite3

    try:
        db.execute("PRAGMA user_version")
        return db
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", 0) not in _NO_SHM or os.path.lexists(f"{path}-wal"):
            raise
    db.close()
    stamp = _stamp(path)  # (taken before the first page is read: a writer's checkpoint from then on changes it)
    reader: Any = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True, timeout=timeout,
                                  isolation_level=None, check_same_thread=False, factory=_immutable())
    reader.stamp = stamp
    return reader


@functools.cache
def _immutable() -> type[sqlite3.Connection]:
    """A connection that keeps the file's ``_stamp`` as it was opened immutable (sqlite3 is imported when used)."""
    import sqlite3

    class Immutable(sqlite3.Connection):
        stamp: tuple | None = None

    return Immutable


def _stamp(path: str | Path) -> tuple | None:
    """What changes when a file is written or replaced (a checkpoint writes the database file), None when it is gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def still_as_read(db: sqlite3.Connection, path: str | Path, what: str) -> None:
    """InputError when a state file ``sqlite_readable`` opened immutable was written since (a daemon or a tune that
    started while `events`, `history` or `tune report` read it): SQLite read it trusting it never changes, old pages
    from its cache beside new ones from the file, and answered from them without an error (rows a writer added
    missing, or pages of two states of the file); a file removed meanwhile is said to be gone, not written. Nothing
    for a file read the ordinary way (SQLite's locks)."""
    if (stamp := getattr(db, "stamp", None)) is not None and (now := _stamp(path)) != stamp:
        if now is None:  # (a file deleted or moved away meanwhile: nothing was written, and another run finds none)
            raise InputError(f"the {what} was removed while it was read (deleted or moved away by another process): "
                             "give the file where it is now", file=str(path))
        raise InputError(f"the {what} was written while it was read (its writer started): run the command again",
                         file=str(path))


def _dangling(path: str | Path, exc: OSError) -> str:
    """Where a link that cannot be opened points (the display name of a link is its target: the link's own name is
    said): to what is not there, or on into a loop (a loop's link was said to point to "loop2, which is not
    there", beside loop2)."""
    try:
        target = os.readlink(path)
    except (OSError, ValueError):
        return ""
    why = ", which is not there" if exc.errno == errno.ENOENT else ""
    return f" ({os.fspath(path)} is a symbolic link to {target}{why})"


def _too_big(display: str, size: int, limit: int, what: str) -> InputError:
    return InputError(f"{what} is larger than the {describe_mib(limit)} limit ({describe_mib(size)} or more); if it "
                      f"is real, raise the limit with --max-file-mb or {ENV_MAX_FILE_MB}", file=display)


def os_reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop (a link that points back at itself)"
    if exc.errno == errno.EISDIR:
        return "it is a folder, not a file"
    if exc.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return exc.strerror or str(exc)


def not_a_file(path: str | Path) -> str | None:
    """Why something at ``path`` is no regular file to open ("not a regular file (a FIFO)"); None when it is one or
    nothing is there. (A database file is opened by SQLite, not read_bytes: this is its check of the kind.)"""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else f"not a regular file ({file_kind(mode)})"


def absent_or_kind(path: str | os.PathLike) -> str:
    """Why ``path`` is no regular file, in words: "not found", what is there instead (a FIFO or a folder was
    called "not found"), or why it cannot be reached (a folder on the way this user may not enter was "not found")."""
    try:
        return f"is {file_kind(os.stat(path).st_mode)}, not a file"
    except OSError as exc:
        return "not found" if exc.errno in (errno.ENOENT, errno.ENOTDIR) else f"cannot be reached: {os_reason(exc)}"


def file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"
# Words one brace expansion of a host script may make (`ens{1,2}f0np0`, `for p in {0..7}`): a loop over each VF of a
# port (NVIDIA DOCA SR-IOV: ConnectX supports up to 127 VFs per port, numbered from 0) for each of the 8 priorities
# (IEEE 802.1Q). Past it the word is left as written, known only at run time (a loop over it is read once, SYS004),
# so one generated flood (`{1..100000000}`) is not unrolled.
MAX_BRACE_WORDS = 128 * 8


def usable_cores() -> int:
    """The cores this process may run on (its affinity: a container or `taskset` gives fewer than the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
