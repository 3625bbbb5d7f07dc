"""The losslessd capture format: one text file per device holding raw command outputs.

Collection only moves bytes; parsers read captures offline. The format is the same for every
platform (docs/capture-format.md):

    #% losslessd capture 1
    #% device: gpu01
    #% platform: linux_mlx5
    #% collected: 2024-05-01T12:00:00Z
    #% command: mlnx_qos -i eth0
    <raw output>
    #% command: cat /sys/class/net/eth0/mtu
    9000

Lines starting with ``#%`` are markers. An output line that itself starts with ``#%`` is written
with the escape prefix ``#%|`` in front, which the reader removes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from itertools import accumulate
from typing import NamedTuple

from .errors import InputError
from .lazyre import lazy
from .limits import universal_newlines
from .printable import quoted

MARKER = "#%"
ESCAPE = "#%|"
MAGIC = "losslessd capture"
VERSION = 1
REQUIRED = ("device", "platform", "collected")

_MAGIC_RE = lazy(r"^#%\s*losslessd capture\s+(\S+)\s*$")
_FIELD_RE = lazy(r"^#%\s*([a-z][a-z0-9_-]*):(.*)$")
_KEY_RE = lazy(r"^[a-z][a-z0-9_-]*$")
_START_RE = lazy(r"[\ufeff \t\r\n]*" + re.escape(MARKER))
# Sniffing reads the header from this many characters after its first marker, not the whole file.
HEADER_CHARS = 65536
# A header as write() writes it (no blank or odd lines): read in one match; any other is read line by line.
_PLAIN_HEADER = lazy(rf"{MARKER} {MAGIC} {VERSION}\n((?:{MARKER} (?!command:)[a-z][a-z0-9_-]*:[^\n]*\n)*)"
                           rf"{MARKER} command:")
_PLAIN_FIELD = lazy(rf"^{MARKER} ([a-z][a-z0-9_-]*):([^\n]*)$", re.M)
# The platform line among the first 49 after the magic line, as sniff_platform reads it.
_PLAIN_PLATFORM = lazy(rf"{MARKER} {MAGIC} {VERSION}\n"
                             rf"(?:{MARKER} (?!command:|platform:)[a-z][a-z0-9_-]*:[^\n]*\n){{0,48}}"
                             rf"{MARKER} platform:([^\n]*)")


class Section(NamedTuple):
    """One command and its raw output; ``line`` is the file line of the output's first line."""

    command: str
    output: str
    line: int


class Capture(NamedTuple):
    header: dict[str, str]
    sections: list[Section]


def write(header: Mapping[str, str], sections: Iterable[tuple[str, str]]) -> str:
    """Header fields and (command, output) pairs -> capture text. Raises ValueError on bad fields."""
    missing = [k for k in REQUIRED if not header.get(k)]
    if missing:
        raise ValueError(f"capture header lacks {', '.join(missing)}")
    _check_time(header["collected"])
    out = [f"{MARKER} {MAGIC} {VERSION}\n"]
    for key, value in header.items():
        if not _KEY_RE.match(key) or key == "command":
            raise ValueError(f"bad capture header key {key!r}")
        out.append(f"{MARKER} {key}: {_one_line(value, key)}\n")
    for command, output in sections:
        out.append(f"{MARKER} command: {_one_line(command, 'command')}\n")
        # Lines as the reader will see them: it takes a carriage return for a line end (limits.read_text), so an
        # output's `x\r#% command: ...` was a section of the device's making once read back.
        output = universal_newlines(output)
        if output and not output.endswith("\n"):
            output += "\n"
        for line in output.split("\n")[:-1]:
            out.append((ESCAPE + line if line.startswith(MARKER) else line) + "\n")
    return "".join(out)


def sniff_platform(text: str) -> str | None:
    """The platform a capture's header names, without validating the rest (for format sniffing).
    Cheap on a large file: only the header's lines are cut out, one by one, within HEADER_CHARS."""
    plain = _PLAIN_PLATFORM.match(text)
    if plain and plain.end(1) <= len(MARKER) + HEADER_CHARS:
        return plain.group(1).strip()
    marker = _START_RE.match(text)
    if marker is None:
        return None
    end = min(len(text), marker.end() + HEADER_CHARS)
    pos = 1 if text.startswith("\ufeff") else 0
    find = text.find
    fields = -1  # lines read after the magic line (-1: the magic line not reached yet)
    while pos < end and fields < 49:
        eol = find("\n", pos, end)
        eol = end if eol < 0 else eol
        line, pos = text[pos:eol], eol + 1
        if fields < 0:
            if not line.strip():
                continue
            if not _MAGIC_RE.match(line.rstrip()):
                return None
            fields = 0
            continue
        fields += 1
        m = _FIELD_RE.match(line.rstrip())
        if m and m.group(1) == "command":
            break
        if m and m.group(1) == "platform":
            return m.group(2).strip()
    return None


def read(text: str, file: str | None = None, *, sections: bool = True) -> Capture:
    """Capture text -> header fields and sections (``sections`` False: the header alone, no section cut out). Raises
    InputError (file and line) when malformed.

    The header is read in one match when it is as write() writes it, else line by line; the outputs, which are
    most of a capture, are cut out between marker lines, not split into lines (a fleet has thousands of captures)."""
    text = text.removeprefix("\ufeff")
    if plain := _plain_header(text, file, sections):
        return plain
    header: dict[str, str] = {}
    n, pos, end = 0, 0, len(text)
    magic = False
    while pos < end:
        eol = text.find("\n", pos)
        eol = end if eol < 0 else eol
        raw, line_start, pos, n = text[pos:eol], pos, eol + 1, n + 1
        if not magic:
            if not raw.strip():
                continue
            m = _MAGIC_RE.match(raw.rstrip())
            if not m:
                raise InputError(f"not a losslessd capture: the first line must be '{MARKER} {MAGIC} {VERSION}'",
                                 file=file, line=n)
            if m.group(1) != str(VERSION):
                raise InputError(f"capture format version {quoted(m.group(1))} is not supported (this losslessd reads "
                                 f"version {VERSION})", file=file, line=n)
            magic = True
            continue
        if not raw.startswith(MARKER):
            if raw.strip():
                raise InputError(f"text before the first '{MARKER} command:' line; header lines start with "
                                 f"'{MARKER}'", file=file, line=n)
            continue
        key, value = _field(raw, file, n)
        if key == "command":
            if not value:
                raise InputError("empty command", file=file, line=n)
            if missing := [k for k in REQUIRED if k not in header]:
                raise InputError(f"capture header lacks {', '.join(f'{MARKER} {k}:' for k in missing)}",
                                 file=file, line=n)
            return Capture(header, _cut(text[line_start:], n, file) if sections else [])
        if key in header:
            raise InputError(f"header field '{key}' given twice", file=file, line=n)
        if not value:
            raise InputError(f"header field '{key}' is empty", file=file, line=n)
        if key == "collected":
            try:
                _check_time(value)
            except ValueError as exc:
                raise InputError(str(exc), file=file, line=n) from None
        header[key] = value
    if not magic:
        raise InputError("empty file, not a losslessd capture", file=file, line=1)
    if missing := [k for k in REQUIRED if k not in header]:
        raise InputError(f"capture header lacks {', '.join(f'{MARKER} {k}:' for k in missing)}",
                         file=file, line=n or 1)
    return Capture(header, [])


def _plain_header(text: str, file: str | None, sections: bool = True) -> Capture | None:
    """``read`` of a capture whose header is as write() writes it and valid; None for any other (read() then reads
    it line by line, and says what is wrong)."""
    m = _PLAIN_HEADER.match(text)
    if m is None:
        return None
    header: dict[str, str] = {}
    for key, value in _PLAIN_FIELD.findall(m.group(1)):
        value = value.strip()
        if not value or key in header:
            return None
        header[key] = value
    if any(k not in header for k in REQUIRED):
        return None
    try:
        _check_time(header["collected"])
    except ValueError:
        return None
    start = m.end() - len(_COMMAND)
    return Capture(header, _cut(text[start:], m.group(1).count("\n") + 2, file) if sections else [])


def _field(raw: str, file: str | None, n: int) -> tuple[str, str]:
    if raw.startswith(_COMMAND):  # most marker lines: what the regular expression below would make of them
        return "command", raw[len(_COMMAND):].strip()
    fm = _FIELD_RE.match(raw.rstrip())
    if not fm and _MAGIC_RE.match(raw):  # (`cat a.capture b.capture > c.capture`)
        raise InputError("a second capture starts here (two captures joined into one file): give each device's "
                         "capture a file of its own", file=file, line=n)
    if not fm:
        raise InputError(f"malformed marker line {raw.strip()[:80]!r}: expected '{MARKER} key: value' "
                         f"(an output line starting with '{MARKER}' must be written as '{ESCAPE}...')",
                         file=file, line=n)
    return fm.group(1), fm.group(2).strip()


_COMMAND = f"{MARKER} command:"


def _cut(tail: str, n: int, file: str | None) -> list[Section]:
    """The sections of ``tail``, a capture from its first command line (file line ``n``) to the end."""
    # Cut without the file's last newline: then every output is what follows its command line, and a newline.
    pieces = (tail[:-1] if tail.endswith("\n") else tail).split(_NEXT_COMMAND)
    if tail.startswith(_COMMAND):
        pieces[0] = pieces[0][len(_COMMAND):]  # what follows "#% command:"
        # Marker lines that are all command lines (no escaped output, nothing malformed): cut the text at them. Told
        # by the pieces between the command lines: none holds a `#` (a fleet's host captures: one memchr pass over
        # them joined), or none a marker's start on a line of its own (the joined pieces may make one where a piece
        # ends a line and the next command's starts `#%`: each is then looked at alone). (Counting `#` in the tail
        # was 4-5 instructions a character.)
        joined = "".join(pieces)
        if "#" not in joined or _NEXT_MARKER not in joined or not any(_NEXT_MARKER in piece for piece in pieces):
            # Each piece's command, output and line count, once per piece text (_PIECES): a fleet's captures hold the
            # same outputs host after host; a host's own (its LLDP neighbours, its MAC) are worked out here.
            known = _PIECES
            cut = [known.get(piece) or _piece(piece) for piece in pieces]
            if all(command for command, _, _ in cut):  # (an empty command: the reader below says where)
                # each section's output starts on the line after its command's; the next command follows its output
                lines = accumulate([lines for _, _, lines in cut[:-1]], initial=n + 1)
                return [_section(Section, (command, output, line))
                        for (command, output, _), line in zip(cut, lines, strict=True)]
    return _marked_sections(tail, 0, n, file)


# A piece of a capture's tail between command lines (its command line's rest, a newline, its output) -> (the command,
# the output with its last newline, the lines from its command's to the next command's). Kept while the pieces kept
# hold under _PIECES_KEPT characters: the same outputs of a fleet's hosts are one string each (their hash worked out
# once, then the section reads' caches compare them by identity); a capture of one large output is not kept.
_PIECES: dict[str, tuple[str, str, int]] = {}
_PIECES_KEPT = 1 << 22
_pieces_held = 0


def _piece(piece: str) -> tuple[str, str, int]:
    global _pieces_held
    command, newline, output = piece.partition("\n")
    cut = (command.strip(), output + newline, output.count("\n") + 1 + len(newline))
    if _pieces_held + len(piece) > _PIECES_KEPT:
        _PIECES.clear()
        _pieces_held = 0
    if len(piece) <= _PIECES_KEPT >> 4:
        _PIECES[piece] = cut
        _pieces_held += len(piece)
    return cut


_NEXT_COMMAND = f"\n{MARKER} command:"
_section = tuple.__new__  # Section(command, output, line) without the generated __new__'s Python call
_NEXT_MARKER = f"\n{MARKER}"


def _marked_sections(text: str, start: int, n: int, file: str | None) -> list[Section]:
    """``_cut`` for captures with escaped output lines or malformed markers: marker line by marker line."""
    sections: list[Section] = []
    command, escaped, body_line = None, [], 0
    line, out_start, end = n, start, len(text)
    pos, last = start, start  # the marker line being read; where line numbers were last counted
    find, count = text.find, text.count
    while pos >= 0:
        eol = find("\n", pos)
        if eol < 0:
            eol = end
        raw = text[pos:eol]
        line += count("\n", last, pos)
        last = pos
        if raw.startswith(ESCAPE):
            escaped.append(text[out_start:pos])
            escaped.append(raw[len(ESCAPE):] + "\n")
        else:
            key, value = _field(raw, file, line)
            if key != "command":
                raise InputError(f"header field '{key}' after the first command (only '{MARKER} command:' "
                                 "lines may follow)", file=file, line=line)
            if not value:
                raise InputError("empty command", file=file, line=line)
            if command is not None:
                output = text[out_start:pos]
                if escaped:
                    output, escaped = "".join(escaped) + output, []
                sections.append(Section(command, output, body_line))
            command, body_line = value, line + 1
        out_start = eol + 1
        pos = find("\n" + MARKER, eol)
        if pos >= 0:
            pos += 1
    output = text[out_start:]
    if output and not output.endswith("\n"):
        output += "\n"
    if escaped:
        output = "".join(escaped) + output
    if command is not None:  # (always: the caller starts at a command's marker line)
        sections.append(Section(command, output, body_line))
    return sections


def is_capture(text: str) -> bool:
    return _START_RE.match(text) is not None


def for_platform(text: str, file: str, platform: str) -> tuple[dict[str, str], list[Section]]:
    """Read a capture that a ``platform`` parser was given; InputError when it belongs to another platform."""
    header, sections = read(text, file)
    if header["platform"] != platform:
        raise InputError(f"this capture is for platform {quoted(header['platform'])}, not {platform}", file=file,
                         line=1)
    return header, sections


def section_text(section: Section) -> str:
    """A section's output preceded by blank lines, so a parser's line numbers are the capture file's."""
    return "\n" * (section.line - 1) + section.output


def _one_line(value: str, what: str) -> str:
    if not isinstance(value, str) or not value or value != value.strip() or "\n" in value or "\r" in value:
        raise ValueError(f"capture {what} must be one line without surrounding spaces: {value!r}")
    return value


def _check_time(value: str) -> None:
    """ISO 8601 date and time, e.g. 2024-05-01T12:00:00Z."""
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        shown = repr(value) if len(value) <= 64 else f"{value[:64]!r}... ({len(value):,} characters)"  # (not 20 KB)
        raise ValueError(f"collected time {shown} is not an ISO 8601 date and time "
                         "(e.g. 2024-05-01T12:00:00Z)") from None
