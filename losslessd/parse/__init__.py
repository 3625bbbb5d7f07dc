"""One device's files in, a Device out: read the files, detect the format, call the platform's pure parser.

Finding the devices under folders and snapshots, and the topology, is losslessd.fabric's work.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import posixpath
import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from types import ModuleType

from .. import capture
from ..docpos import read_whole
from ..errors import InputError
from ..lazyre import lazy
from ..limits import NOFOLLOW, LinkRefused, read_text
from ..model import Device, ParseIssue, Source
from ..platforms import PLATFORMS, SNIFF_ORDER, no_parser_message, resolve_format
from ..printable import (
    DEVICE_CONTROL,
    DEVICE_UNSEEN,
    LOOKALIKE,
    mixed_script_words,
    name_node,
    printable,
    quoted,
    shows_as,
)
from .base import Input, check_port_count

INTERNAL_ERROR = "SYS900"  # a bug in losslessd (rules/sys.py InternalError): the CLI exits 3
# Order matters only for sniffing: cheap, specific formats first (Platform.sniff).
_SNIFF_ORDER = SNIFF_ORDER
# SONiC device folder: these files together describe one switch.
SONIC_FOLDER_FILES = ("config_db.json", "qos.json", "buffers.json")
# What else an /etc/sonic copy holds at these names is the image's own, no configuration a platform reads
# (sonic-buildimage: sonic_version.yml and snmp.yml fed to sonic-cfggen by the snmp docker's start script, constants.yml
# by the bgp docker's, sonic-environment sourced by the platform scripts, generated_services.conf read by the systemd
# generator, minigraph.xml the graph sonic-cfggen reads): in a device's folder such a file is not sniffed (each was
# read and every platform's sniff run on it, 0.4 ms a file of prose).
SONIC_OWN_FILES = frozenset({"sonic_version.yml", "snmp.yml", "constants.yml", "sonic-environment",
                             "generated_services.conf", "minigraph.xml"})
# OpenSM node folder (one subnet manager): opensm.conf first, it is what the format is told from.
OPENSM_FOLDER_FILES = ("opensm.conf", "qos-policy.conf", "partitions.conf", "ibdiagnet2.log", "ibdiagnet.log")
# Files in a fabric folder that are not device configs.
NOT_DEVICE_FILES = {"topology.yaml", "topology.yml", "losslessd.yaml", "inventory.yaml", "policy.yaml"}
NOT_DEVICE_SUFFIXES = {".md", ".sarif", ".rst", ".html", ".png"}


@functools.cache  # (import_module's own lookup was a tenth of sniffing a file no platform knows)
def parser_for(platform: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{PLATFORMS[platform].parser}")


def display_path(path: Path | str) -> str:
    """Relative to the working directory when below it (SARIF wants repo-relative paths).

    Resolving a path costs a system call per part: a folder is resolved once per working directory, its
    files are only checked for being links (a fleet's folder holds thousands, a report names them again)."""
    return _display_path(path, links=True)


def display_link(path: Path | str) -> str:
    """display_path of a symbolic link itself, not of where it points."""
    return _display_path(path, links=False)


def _display_path(path: Path | str, links: bool) -> str:
    """display_path; ``links=False``: of a file known not to be a symbolic link (not checked)."""
    text = os.fspath(path)
    try:
        cwd = working_directory()
        # (a fleet's files share a few folders: the folder's real path, with its separator, is worked out once per
        # folder as written, os.path.split's and os.path.join's steps with it; _REAL_PATHS's lifetime)
        cut = text.rfind("/") + 1 if _POSIX and isinstance(text, str) else -1
        name = text[cut:] if cut >= 0 else os.path.split(text)[1]
        if name in ("", ".", "..") or (links and os.path.islink(text)):
            resolved = os.path.realpath(text)
        elif cut >= 0:
            if (prefix := _FOLDER_PREFIXES.get((cwd, text[:cut]))) is None:
                if len(_FOLDER_PREFIXES) > _REAL_PATHS_KEPT:
                    _FOLDER_PREFIXES.clear()
                real = _real_folder(cwd, os.path.split(text)[0])
                prefix = _FOLDER_PREFIXES[cwd, text[:cut]] = real if real.endswith("/") else real + "/"
            resolved = prefix + name
        else:
            resolved = os.path.join(_real_folder(cwd, os.path.split(text)[0]), name)
    except (OSError, ValueError):
        return text
    if resolved == cwd:
        return "."
    under = cwd if cwd.endswith(os.sep) else cwd + os.sep
    return resolved[len(under):] if resolved.startswith(under) else text


def display_file(file: str) -> str:
    """display_path of a file name, worked out once per name and working directory (reports name the same
    few files on thousands of findings)."""
    return _display_file(working_directory(), file)


_pinned_cwd: str | None = None


def working_directory() -> str:
    """os.getcwd(), asked once while a lint runs or a report is written (same_working_directory): a system call per
    file or finding otherwise."""
    return _pinned_cwd or os.getcwd()


@contextlib.contextmanager
def same_working_directory() -> Iterator[None]:
    """While a lint runs or a report is written the working directory stays where it is: display_path and
    display_file ask for it once (a working directory that was removed is not pinned: paths are named as given)."""
    global _pinned_cwd
    outer = _pinned_cwd
    with contextlib.suppress(OSError):
        _pinned_cwd = outer or os.getcwd()
    try:
        yield
    finally:
        _pinned_cwd = outer


@functools.lru_cache(maxsize=65536)
def _display_file(cwd: str, file: str) -> str:
    return display_path(file)


def _real_folder(cwd: str, folder: str) -> str:
    """``folder`` (relative to ``cwd``) without symlinks, ``..`` or ``.``."""
    return _real_path(os.path.join(cwd, folder) if folder else cwd)


_REAL_PATHS: dict[str, str] = {}  # path -> os.path.realpath(path), for _real_path
_REAL_PATHS_KEPT = 8192
# (working directory, a path's folder as written with its last "/") -> the folder's real path ending in "/", for
# _display_path: cleared with _REAL_PATHS, which it is read from
_FOLDER_PREFIXES: dict[tuple[str, str], str] = {}
_POSIX = os.path is posixpath


def _real_path(path: str) -> str:
    """os.path.realpath(path), from its parent's (resolved once for all its folders: a fleet keeps each switch in a
    folder of its own, and realpath asks the system about every part of every one) while its last part is a name
    that is no link. Walks up without recursion (a fabric folder may be nested deeper than the recursion limit)."""
    known = _REAL_PATHS
    below: list[tuple[str, str]] = []  # (path, its last part), from the path up
    while (real := known.get(path)) is None:
        parent, name = os.path.split(path)
        if name in ("", ".", "..") or not parent or parent == path or os.path.islink(path):
            real = os.path.realpath(path)
            break
        below.append((path, name))
        path = parent
    if len(known) > _REAL_PATHS_KEPT:
        known.clear()
        _FOLDER_PREFIXES.clear()
    known[path] = real
    for path, name in reversed(below):
        known[path] = real = os.path.join(real, name)
    return real


_FIRST_SHOWN = lazy(r"\S")
# The platforms whose sniff knows only files opening with their Platform.sniff_opens (past white space).
_SNIFF_OPENS = {p: PLATFORMS[p].sniff_opens for p in _SNIFF_ORDER if PLATFORMS[p].sniff_opens is not None}
_SNIFF_RANKED = frozenset(_SNIFF_ORDER)
# (strings, opening characters) of the platforms naming what every file their sniff knows holds (Platform.sniff_signs)
_SNIFF_SIGNS = {p: (signs, PLATFORMS[p].sniff_signs_open) for p in _SNIFF_ORDER
                if (signs := PLATFORMS[p].sniff_signs) is not None}


def detect(inp: Input) -> str | None:
    """The platform whose parser reads ``inp``; None when none does."""
    if capture.is_capture(inp.text) and (named := capture.sniff_platform(inp.text)) is not None:
        # Every platform's sniff takes no capture whose header names another platform (tests/test_sniff_opens.py):
        # only the platform named is asked, so a capture imports no other platform's reader to hear "not mine".
        return named if named in _SNIFF_RANKED and parser_for(named).sniff(inp) else None
    text = inp.text
    first = _FIRST_SHOWN.search(text)
    opens = first.group() if first else ""
    # A file no capture header names a platform of (the others returned above) is sniffed only by the platforms whose
    # signs it holds: the others' packages are not imported to hear "not mine" (tests/test_detect_signs.py: the answer
    # is the sniffs' in order).
    for platform in _SNIFF_ORDER:
        if _SNIFF_OPENS.get(platform, opens) != opens:
            continue
        if (signs := _SNIFF_SIGNS.get(platform)) is not None and not (
                opens and opens in signs[1] or any(holds_sign(text, sign) for sign in signs[0])):
            continue
        if parser_for(platform).sniff(inp):
            return platform
    return None


def holds_sign(text: str, sign: str) -> bool:
    """Whether ``text`` holds ``sign`` (Platform.sniff_signs); one opening with a line end also at the text's start."""
    return sign in text or sign[0] == "\n" and text.startswith(sign[1:])


def read_input(path: Path | str) -> Input:
    """A device or topology input file, read within the limits (losslessd/limits.py), named as display_path names
    it. A file is opened refusing a symbolic link first: what is not one is named without a system call of its
    own to ask (a fleet's thousands of files); a link is named by the file it points at."""
    if NOFOLLOW:
        shown = _display_path(path, links=False)
        try:
            return Input(shown, read_text(path, shown, links=False))
        except LinkRefused:
            pass
    shown = display_path(path)
    return Input(shown, read_text(path, shown))


# A copy of a file kept beside it is named after it with a tail (`sw1.cfg.bak`, `config_db.json~`, `opensm.conf.orig`,
# `sw1.cfg.old`, logrotate's `ibdiagnet2.log.1`, dated: `config_db.json.2024-05-01`, `sw1.cfg.20261204T0930`), or
# with the tail before the file's suffix (`sw1.bak.cfg`, `sw1-2026-12-04.cfg`; a number alone is no tail there:
# `leaf-1.cfg` beside `leaf.cfg` is another switch), or sits in a folder of copies (`backup/config_db.json`).
_DATE = r"\d{4}-?\d{2}-?\d{2}(?:[T_.-]?\d{2}(?::?\d{2}){1,2})?"
_WORD = r"bak|backup|orig|old|save|sav|prev|previous|dpkg-old|dpkg-dist|rpmsave|rpmnew"
_NAME_TAIL = lazy(rf"(?:~|\.\d{{1,3}}|[._-](?:{_WORD}|{_DATE}))$", re.IGNORECASE)
_STEM_TAIL = lazy(rf"(?:~|[._-](?:{_WORD}|{_DATE}))$", re.IGNORECASE)
BACKUP_FOLDERS = frozenset({"backup", "backups", "bak", "archive", "archives", "old"})
# Every copy's tail above begins with `~`, `.` and a digit, or one of `._-` and then a word's first two letters or a
# date's two digits, in either case (an ASCII letter is one of its two cases, or a letter past ASCII: `ſ` is `s` to a
# pattern that ignores case): a name without one is no copy, told by a search over a folder's names (named_in; a
# fleet's folder of 16,000 captures: each name was two searches and four calls, 4,700 instructions a name). Each of
# these begins with its one character, which a search finds as `str.find` would (a pattern that begins with a choice
# of characters, ignores case or chooses after its first character costs 1,000-2,000 instructions a name more).


def _one_of(letters: set[str]) -> str:
    """A class of ``letters`` in both cases, digits and every character past ASCII, written as the ASCII characters it
    is not (a class up to U+10FFFF took `re` 30 M instructions to compile)."""
    allowed = {c for letter in letters for c in (letter.lower(), letter.upper())} | set("0123456789")
    return "[^" + "".join(f"\\x{c:02x}" for c in range(128) if chr(c) not in allowed) + "]"


_WORDS = _WORD.split("|")
_TWO = _one_of({w[0] for w in _WORDS}) + _one_of({w[1] for w in _WORDS})
_MAYBE_TAILS = (lazy("~"), lazy(r"\.\d"), lazy(r"\." + _TWO), lazy("_" + _TWO), lazy("-" + _TWO))


# A file named by its switch's management address (`10.0.0.1`, `leaf-10.0.0.1`) ends in numbers that are no
# logrotate tail: once a name ends in a dotted quad, nothing more is cut (`10.0.0.1.1` is still `10.0.0.1`'s copy).
_ADDRESS_END = lazy(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}$", re.ASCII)


def _untailed(name: str, tail: re.Pattern[str]) -> str:
    while (found := tail.search(name)) and found.start() > 0 and _ADDRESS_END.search(name) is None:
        name = name[:found.start()]
    return name


def untailed(name: str) -> str:
    """``name`` without the tails a copy kept beside its file takes (`topology.yaml.bak` -> `topology.yaml`)."""
    return _untailed(name, _NAME_TAIL)


def backup_of(name: str, own: Collection[str]) -> str | None:
    """Which of the files ``own`` (names in one folder) the file ``name`` (a name in that folder, or `folder/name` in a
    folder of copies below it) is a copy of (never ``name`` itself); None for another file."""
    folder, sep, rest = name.rpartition("/")
    if sep:
        if "/" in folder or folder.lower() not in BACKUP_FOLDERS:
            return None
        if rest in own:
            return rest
        name = rest
    return next((live for live in _live_names(name) if live in own), None)


def maybe_copies(names: Collection[str]) -> list[str]:
    """Those of ``names`` (file names) that may be a copy of another file (backup_of), in their order."""
    return named_in(_MAYBE_TAILS, names)


def named_in(patterns: Iterable[re.Pattern[str]], names: Collection[str]) -> list[str]:
    """Those of ``names`` (file names) in which one of ``patterns`` finds a match, in their order: a search over them
    all joined by NUL, which no name holds (a search a name cost more than the match: 0.5 us of a 1 us search); in a
    pattern, `(?<![^\0])` is a name's start and `(?![^\0])` its end. Names that hold NUL (no listing gives one) are
    searched one by one."""
    text = "\0".join(names)
    if text.count("\0") != len(names) - 1:
        return [name for name in names if any(pattern.search(name) for pattern in patterns)]
    found: dict[int, str] = {}  # where a name begins in the text: the name
    for pattern in patterns:
        at, search = 0, pattern.search
        while (match := search(text, at)) is not None:  # (a name once however often it matches: searched after it)
            begin, end = text.rfind("\0", 0, match.start()) + 1, text.find("\0", match.start())
            end = len(text) if end < 0 else end
            found[begin] = text[begin:end]
            at = end + 1
    return [found[begin] for begin in sorted(found)]


def copy_named(name: str) -> bool:
    """Whether the file name ``name`` carries a copy's tail (`sw9.cfg.bak`, `sw9-2026-12-04.cfg`), whatever it
    copies."""
    return bool(_live_names(name))


def _live_names(name: str) -> list[str]:
    """The names of the file ``name`` would be a copy of, read from its tails (after the name, then before its
    suffix); none for a name without a copy's tail."""
    if not any(tail.search(name) for tail in _MAYBE_TAILS):
        return []
    out = [base] if (base := untailed(name)) != name else []
    dot = name.rfind(".")
    if dot > 0 and (stem := _untailed(name[:dot], _STEM_TAIL)) != name[:dot]:
        out.append(stem + name[dot:])
    return out


def backups(files: list[Path] | list[str]) -> list[tuple[str, str]]:
    """(path, name of the file it copies) of each file of a device's group that is a backup of another of them (the
    walk puts a device's live files first: fabric._walk): parse_group names each (SYS004) and reads none."""
    if len(files) < 2:
        return []
    folder = os.path.dirname(files[0])
    first, home = os.path.join(folder, ""), os.path.basename(folder)
    names = [_below(str(f), first).replace(os.sep, "/") for f in files]
    own = {n for n in names if "/" not in n}
    return [(str(f), orig) for f, n in zip(files, names, strict=True)
            if (orig := backup_of(_in_copied_folder(n, home), own))]


def _in_copied_folder(name: str, home: str) -> str:
    """A file of the copy of a device's folder (named ``home``) kept in a folder of copies beside it
    (`../backup/leaf1/config_db.json` of `leaf1/`), as backup_of reads a copy in a folder of copies
    (`backup/config_db.json`); other names as they are."""
    parts = name.split("/")
    return f"{parts[1]}/{parts[3]}" if len(parts) == 4 and parts[0] == ".." and parts[2] == home != "" else name


def _below(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` (a folder's path with its separator): as the walk writes a path below it, cut;
    else os.path.relpath's (2.5 us of CPU a call, its getcwd twice; backups() of a 2-file group 8.2 -> 4.2 us)."""
    rest = path[len(folder):] if path.startswith(folder) else ""
    clean = rest[:1] not in ("", ".", os.sep) and os.path.normpath(rest) == rest
    return rest if clean else os.path.relpath(path, folder or os.curdir)


def parse_group(name: str, files: list[Path] | list[str], fmt: str | None = None) -> Device:
    """Parse one device's files. Raises InputError when no device can be made of them.
    Sources find their line when it is read (model.DocRef). A backup of one of them in the group (its device folder's:
    fabric._walk; backups()) is named (SYS004) and not read: it was a second device of the same name (SYS001)."""
    copies = backups(files)
    skipped = {path for path, _ in copies}
    inputs = [read_input(f) for f in files if not skipped or str(f) not in skipped]
    for inp in inputs:
        if "\0" in inp.text and not inp.text.strip("\0 \t\n"):
            # (a file allocated and never written, a sparse file's hole, or one a crash left zeroed: "cannot tell
            # which platform" named the platforms instead, and a --format's reader its own syntax)
            raise InputError(f"the file holds only NUL bytes ({inp.text.count(chr(0)):,}): space allocated and "
                             "never written (a copy, capture or crash that left it zeroed?); fetch it again",
                             file=inp.path)
    platform = None
    if fmt:
        plat = resolve_format(fmt)
        if plat is None:
            raise InputError(f"unknown --format {quoted(fmt)}; known: {', '.join(PLATFORMS)}")
        platform = plat.id
    else:
        platform = detect(inputs[0])
        if platform is None and not inputs[0].text.strip():
            # (a copy or capture that failed leaves an empty file; the list of every platform, 950 bytes, said
            # nothing about it, and a folder of 100,000 of them was a 95 MB report)
            raise InputError("the file is empty" + (" but for blank space" if inputs[0].text else "") +
                             ": no configuration to read (a copy or capture that failed?)", file=inputs[0].path)
        if platform is None:
            _unparsed_capture(inputs[0])
            importlib.import_module(".sonic", __package__).other_database(inputs[0])
            importlib.import_module(".nvue", __package__).cumulus_file_not_read(inputs[0])
            importlib.import_module(".mlx5.remote", __package__).other_hosts(inputs[0])
            raise InputError("cannot tell which platform wrote this file (known: " + ", ".join(
                f"{p.id} = {p.description}" for p in PLATFORMS.values() if p.parser) + "); pass --format to say",
                file=inputs[0].path, line=1)
    if PLATFORMS[platform].parser is None:
        raise InputError(no_parser_message(PLATFORMS[platform]), file=inputs[0].path)
    device = parser_for(platform).parse(inputs, name)
    check_port_count(len(device.ports), inputs[0].path)
    device.files = [i.path for i in inputs]
    for inp in inputs:
        _control_characters(device, inp)
        _mixed_script_word(device, inp)
        _cut_short(device, inp)
    if device.name != name and not (device.name and device.name.isprintable() and device.name.strip() == device.name):
        # A host name of blanks, or with control or invisible characters (U+202E ...), would name the device in
        # every report and baseline as something no one can read back or type: the file's name is used.
        device.issues.append(ParseIssue(code="SYS002", source=device.source or Source(file=inputs[0].path), message=(
            f"the host name {device.name!r} is blank or holds control or invisible characters: the device is "
            f"named {name} after its file")))
        device.name = name
    for inp in inputs:
        _header_names_another(device, inp)
    device.issues = list(device.issues)  # (a parser's IssueList: a plain list from here on)
    device.issues.extend(ParseIssue(code="SYS004", source=Source(file=display_path(path)), message=(
        f"a backup of the device's {orig} (named as a copy of it), not read: lint it on its own to check that copy"))
        for path, orig in copies)
    return device


# printable.DEVICE_UNSEEN in a device file (a capture's carriage returns are line ends by then, limits.read_text):
# a NUL, an escape or a zero-width space in a word made the port or the line that held it vanish without a word
# (`interface Ethernet1/5<NUL>` is no Ethernet port). The ASCII ones are looked for each by `in` (memchr): a file
# without any is told in a quarter of the instructions of a str.translate pass deleting them (13 a character: 1.55 M
# of a bench switch's 20.7 M parse, 0.37 M now; half the time), which was itself 3.5x faster than the search (which
# scanned a fleet's 300 MB at 250 MB/s, a tenth of a lint's CPU). A file with other characters has them gathered by
# one simple search (30 ms for 9 MB) and only those are matched: DEVICE_UNSEEN's other digits (650 in 61 ranges)
# made a search of the file ten times slower. (Told at the first file, not at import: DEVICE_UNSEEN is then compiled
# where the command line's lint has its program kept, losslessd.recache; at import re compiled it, 1.6 M instructions.)
_control_chars: tuple[str, ...] = ()


def _ascii_unseen() -> tuple[str, ...]:
    """The ASCII characters of printable.DEVICE_UNSEEN (asked once a process)."""
    global _control_chars
    _control_chars = tuple(c for c in map(chr, range(0x80)) if DEVICE_UNSEEN.match(c))
    return _control_chars


_DEL = ("\x7f",)
_NOT_ASCII = lazy(r"[^\x00-\x7f]")
# What text in another script holds of DEVICE_UNSEEN: its digits, and the bidi marks right-to-left text carries (Unicode
# TR9 2.6: LRM U+200E, RLM U+200F, ALM U+061C; an Arabic or Hebrew description copied from a document holds them).
_BIDI_MARKS = "\u061c\u200e\u200f"
_SCRIPT_OWN = lazy(rf"(?:(?![0-9])\d|[{_BIDI_MARKS}])+")


# What ends a value in a device file's line: a quote, a JSON or list separator, a bracket or brace.
_VALUE_ENDS = "\"',;{}[]\n"
_VALUE_END = lazy(f"[{re.escape(_VALUE_ENDS)}]")


def _outside_script_text(text: str) -> list[re.Match]:
    """The runs of another script's digits or bidi marks (_SCRIPT_OWN) that stand where a number or a name may be
    read: in a value (the part of a line between quotes, separators and brackets: _VALUE_ENDS) holding no letter of
    another script (`"٣"`, ` ٣ `, `Ethernet١`, `Ether<RLM>net1`). In one that holds one (a Japanese description's
    `ラック １２`, an Arabic one's `"رف ٣"`, a Hebrew one's `שרת<RLM> 12`) they are that text's own, which an
    operator types there and no reader takes for a number or a name, unless they are part of an ASCII word (a port
    `swp١` on a line that also holds such a description). Each stretch of the text is looked at once
    (searched back from a run no further than the last value's end: a line of many runs in linear time)."""
    def ascii_word(at: int) -> bool:
        return 0 <= at < len(text) and text[at].isascii() and text[at].isalnum()

    def in_ascii_word(m: re.Match) -> bool:
        """Digits touching an ASCII letter or digit (`swp١`, `Cable３`); a mark inside an ASCII word (`Ether<RLM>net`:
        right-to-left text puts one after its Latin words and numbers, `12<RLM>`)."""
        before, after = ascii_word(m.start() - 1), ascii_word(m.end())
        return (before and after) if m[0].strip(_BIDI_MARKS) == "" else (before or after)

    found: list[re.Match] = []
    end, own = 0, False  # the value the last run was in: where it ends, whether it holds another script's letter
    for m in _SCRIPT_OWN.finditer(text):
        if m.start() >= end:
            start = max(text.rfind(c, end, m.start()) for c in _VALUE_ENDS) + 1 or end
            stop = _VALUE_END.search(text, m.end())
            end = len(text) if stop is None else stop.start()
            own = any(not c.isascii() and c.isalpha() for c in text[start:end])
        if not own or in_ascii_word(m):
            found.append(m)
    return found


def _control_characters(device: Device, inp: Input) -> None:
    """A SYS002 issue at the first line of ``inp`` holding a control or invisible character, or another script's digit
    or bidi mark outside that script's text (a binary or damaged copy, or a word pasted from a web page)."""
    text = inp.text
    # (a text a JSON reader read whole holds no other ASCII control: docpos.read_whole)
    found = [c for c in (_DEL if read_whole(text) else _control_chars or _ascii_unseen()) if c in text]
    runs: list[re.Match] = []  # (_outside_script_text)
    if not text.isascii():
        unseen = [c for c in set(_NOT_ASCII.findall(text)) if DEVICE_UNSEEN.match(c)]
        found += [c for c in unseen if not _SCRIPT_OWN.match(c)]
        if any(_SCRIPT_OWN.match(c) for c in unseen):
            runs = _outside_script_text(text)
    if not found and not runs:
        return
    at = min([text.find(c) for c in found] + [m.start() for m in runs[:1]])
    count = sum(text.count(c) for c in found) + sum(m.end() - m.start() for m in runs)
    char = text[at]
    kind = "a control character" if DEVICE_CONTROL.match(char) else "a digit of another script" if char.isalnum() \
        else "an invisible character"
    device.issues.append(ParseIssue(code="SYS002", source=Source(file=inp.path, line=text.count("\n", 0, at) + 1),
                                    message=(
        f"{kind} ({ascii(char)}{f', {count} in all' if count > 1 else ''}) no device writes in its configuration: a "
        "damaged or binary copy, or a word pasted from a document; the lines holding one may be misread or skipped "
        "(fetch the file again, or retype the line)")))


def _mixed_script_word(device: Device, inp: Input) -> None:
    """A SYS002 issue at the first line of ``inp`` holding a word of ASCII letters with a look-alike letter of
    another script in it (printable.LOOKALIKE: `interface Εthernet1/1`, a Greek Ε; `Ethernеt0`, a Cyrillic е, in a
    CONFIG_DB key), and how many such words the file holds: no switch CLI or swss takes such a name or keyword, and
    it shows as the one it imitates, so the port vanished or became a second one without a word."""
    text = inp.text
    if text.isascii():
        return
    words = list(mixed_script_words(text))
    if not words:
        return
    count, word = len(words), words[0]
    char = next(c for c in word[0] if c.isalpha() and LOOKALIKE.match(c))
    line = text.count("\n", 0, word.start()) + 1
    device.issues.append(ParseIssue(code="SYS002", source=Source(file=inp.path, line=line), message=(
        f"the word {ascii(word[0])} mixes Latin letters with {unicodedata.name(char).title()} {ascii(char)}, which "
        f"looks like a Latin one{f' ({count} such words in all)' if count > 1 else ''}: no device takes such a name "
        "or keyword, so the line is read otherwise than it shows (a port vanishes or becomes another); retype the "
        "word in ASCII")))


_DEVICE_FIELD = lazy(rf"^{re.escape(capture.MARKER)}[ \t]*device:", re.M)
# How a capture pull wrote of the device it is read as starts (capture.write: the magic line, then `device:`): its
# header names that device, as the parser read it (a header naming a field twice is refused), without reading it again
# (a bench host capture's header read again and its two names compared cost 15 us of its 120 us parse_group).
_HEADER_START = f"{capture.MARKER} {capture.MAGIC} {capture.VERSION}\n{capture.MARKER} device: "


def _an_address(name: str) -> bool:
    """Whether a capture header's device name is an IP address (a v6 one with its zone): an inventory keyed by
    addresses, Nornir's SimpleInventory's default where a host gives no hostname (inventory.py), names no device, so
    a configuration's hostname is no other device than it."""
    import ipaddress  # (only for a header naming another name than the hostname)

    try:
        ipaddress.ip_address(name)  # (a zone read since Python 3.9; capture.read strips a value)
    except ValueError:
        return False
    return True


def _header_names_another(device: Device, inp: Input) -> None:
    """A SYS004 note, once per capture, where its header's `device:` (pull's inventory name) and the name the
    device was read as (its configuration's hostname: what the device calls itself, what its neighbours' LLDP and a
    topology name it; every platform's parser takes it over the header's) are two devices: a capture of leaf2's
    address holding leaf9's config was linted as leaf9 without a word (an address moved, two inventory entries
    swapped). One name written otherwise (case, a domain, look-alike letters: printable.name_node) is no other.
    A note, not a warning: many sites name inventory entries otherwise than the switches call themselves
    (`dc1-leaf1` for `leaf1`), and a warning failed every lint of such a fleet (exit 1); where the address reached a
    device that is captured too, the two captures are two devices of one name, SYS001 (an error) already."""
    if not capture.is_capture(inp.text) or (
            inp.text.startswith(f"{_HEADER_START}{device.name}\n") and device.name.isprintable()):
        return
    said = capture.read(inp.text, inp.path, sections=False).header["device"]
    if shows_as(name_node(said), name_node(device.name)) or _an_address(said):
        return
    m = _DEVICE_FIELD.search(inp.text)
    line = inp.text.count("\n", 0, m.start()) + 1 if m else 1
    source = Source(file=inp.path, line=line)
    device.capture_claims.append((said, source))  # (fabric._claimed_twice reads them)
    device.issues.append(ParseIssue(code="SYS004", source=source, message=(
        f"the capture's header names the device {printable(said)}, but it is linted as {printable(device.name)}, "
        f"the name its configuration (or else its file) gives it: if the capture was pulled as {printable(said)}, "
        f"that address reached {printable(device.name)} (check the inventory)")))


def _cut_short(device: Device, inp: Input) -> None:
    """A SYS002 issue at the last line of a capture that does not end with a line end: every writer ends each
    output with one (docs/capture-format.md), so the file was cut (a copy or a collection stopped, a full disk), and
    its last section's output read as if whole."""
    text = inp.text
    if text and not text.endswith("\n") and capture.sniff_platform(text) is not None:
        last = text.rfind("\n") + 1
        section = text.rfind(f"\n{capture.MARKER} command:", 0, last)
        command = text[section:].split("\n", 2)[1].removeprefix(f"{capture.MARKER} command:").strip() \
            if section >= 0 else ""
        device.issues.append(ParseIssue(code="SYS002", source=Source(file=inp.path, line=text.count("\n") + 1),
                                        message=(
            "the capture ends in the middle of a line (a capture ends each output with a line end): it was cut short, "
            f"and the output of its last command{f' (`{command}`)' if command else ''} may be incomplete (collect the "
            "device again)")))


def _unparsed_capture(inp: Input) -> None:
    """A capture that names a platform no parser reads: say so (raises InputError), rather than "unknown format"."""
    named = capture.sniff_platform(inp.text)
    if named is None and capture.is_capture(inp.text):
        # A header the sniff could not read within its window: read whole, it says what is malformed (raises) or
        # names a platform past the window, a field no pull writes (a `device:` of 5,000,000 characters was "cannot
        # tell which platform wrote this file").
        header = capture.read(inp.text, inp.path, sections=False).header
        longest, line = max((len(text), n) for n, text in enumerate(inp.text.split("\n", 60)[:60], start=1))
        raise InputError(f"the capture's header names its platform ({quoted(header.get('platform', ''))}) past the "
                         f"first {capture.HEADER_CHARS:,} characters a reader looks at (line {line} holds "
                         f"{longest:,}): no header pull writes; fix or collect it again", file=inp.path, line=line)
    if named is None:
        return
    line = next((n for n, text in enumerate(inp.text.split("\n", 60)[:60], start=1)
                 if text.startswith(f"{capture.MARKER} platform:")), 1)
    platform = PLATFORMS.get(named)
    raise InputError(no_parser_message(platform) if platform else
                     f"this capture is for platform {quoted(named)}, which losslessd does not know "
                     f"(known: {', '.join(PLATFORMS)})", file=inp.path, line=line)
