"""The command line's cache of compiled patterns' programs: a lint's lazy patterns (losslessd.lazyre) are given to the
regular expression engine as the program `re` compiled for them in an earlier lint, not compiled again (`re` parses
and compiles a pattern in Python, about 0.8 M instructions each: docs/lint-at-scale.md, "Session 43, part a").

What `re` makes of a pattern (its parser's and compiler's output, handed to `_sre.compile`) depends on the pattern's
text and type, its flags, and the Python that compiles it: its version and build (`sys.version`, the bytecode's cache
tag), the engine's own version and code unit (`_sre.MAGIC`, `_sre.CODESIZE`), the Unicode database case-insensitive
classes are compiled from, and the `re` package's modules (their files, told as policycache tells the libraries a
policy is validated with). The entry is named by a digest of all of those, so a program is used only by the very code
that made it; a program that is not the engine's (a damaged entry: a digest of the programs is in it; `_sre.compile`
checks the code as well) is compiled by `re` as ever, as is anything the entry does not hold or cannot give. It is
policycache's mechanism: JSON (never pickle or marshal), a regular file of the user's own that nobody else may write,
opened without following a link, written 0600 through a rename; LOSSLESSD_NO_CACHE and `lint --no-policy-cache` read
and write nothing. Only a command that asks (``used``) reads or writes here: the library's lint never does.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Any

from . import lazyre
from .sha import blake2b

FORMAT = 1  # (the entry's layout)
MAX_PROGRAMS = 1024  # (losslessd holds about 400 lazy patterns; an entry past this keeps a run's own programs alone)
# What decides a program besides the pattern and the interpreter: the `re` package's parser, compiler, constants and
# case-folding table (Lib/re/, Python 3.11 on; an older re has none of these and keeps no program here: ``used``)
_RE_MODULES = ("re._parser", "re._compiler", "re._constants", "re._casefix")

Program = list  # [the final flags, the code (hex of its native 32-bit units), the groups' names (None: unnamed)]
_programs: dict[str, Program] | None = None  # the entry read: each program by its key (``_key``)
_new: dict[str, Program] = {}  # the programs compiled here that the entry did not hold
_hits: set[str] = set()  # the entry's programs used here


@contextmanager
def used(on: bool = True) -> Iterator[None]:
    """Within it, a lazy pattern's first use takes its program from the cache, or compiles it and keeps it (unless
    LOSSLESSD_NO_CACHE); what was compiled is written when it ends. The command line's lint."""
    from .policycache import disabled

    global _programs
    if (not on or disabled() or lazyre._compile is not None or sys.version_info < (3, 11)
            or _sre().CODESIZE != _UNIT):
        yield
        return
    _programs, lazyre._compile = None, compile_kept
    _new.clear()
    _hits.clear()
    try:
        yield
    finally:
        lazyre._compile = None
        if _new:
            _write()
        _programs = None
        _new.clear()
        _hits.clear()


_UNIT = memoryview(b"\0\0\0\0").cast("I").itemsize  # (a code unit as the entry's hex holds it: 4 bytes)


def _key(pattern: str | bytes, flags: int) -> str:
    return f"{'b' if isinstance(pattern, bytes) else 's'}{int(flags)}:" + (
        pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern)


def compile_kept(pattern: str | bytes, flags: int) -> re.Pattern:
    """``re.compile(pattern, flags)``: from the program kept for it where there is one the engine takes."""
    global _programs
    if _programs is None:
        _programs = _read()
    flags = int(flags)
    key = _key(pattern, flags)
    kept = _programs.get(key)
    if kept is not None:
        try:
            final, code, names = kept
            if not (type(final) is int and type(names) is list and names and names[0] is None
                    and all(name is None or type(name) is str for name in names)):
                raise TypeError("no program")
            compiled = _sre().compile(pattern, final, memoryview(bytes.fromhex(code)).cast("I").tolist(),
                                      len(names) - 1, {name: i for i, name in enumerate(names) if name is not None},
                                      tuple(names))
            _hits.add(key)
            return compiled
        except Exception:  # noqa: BLE001  (anything the engine refuses, or no program: compiled by re, below)
            pass
    compiled, program = _compiled(pattern, flags)
    if program is not None and len(_new) < MAX_PROGRAMS:
        _new[key] = program
    return compiled


def _compiled(pattern: str | bytes, flags: int) -> tuple[re.Pattern, Program | None]:
    """``re.compile(pattern, flags)`` and its program, compiled once: as `re._compiler.compile` compiles (parsed,
    coded, given to `_sre.compile` with the flags the parser adds and the groups' names by number, group 0 first),
    keeping what it gives `_sre.compile`. By re.compile itself, keeping nothing, for its debug output, a Python
    whose re has other internals, and a pattern re refuses (re.compile raises its error)."""
    if not flags & re.DEBUG:
        with suppress(Exception):
            from array import array
            from re import _compiler, _parser  # type: ignore[attr-defined]

            parsed = _parser.parse(pattern, flags)
            code = _compiler._code(parsed, flags)
            names: list[str | None] = [None] * parsed.state.groups
            for name, index in parsed.state.groupdict.items():
                names[index] = name
            final = flags | parsed.state.flags
            compiled = _sre().compile(pattern, final, code, parsed.state.groups - 1, parsed.state.groupdict,
                                      tuple(names))
            return compiled, [final, array("I", code).tobytes().hex(), names]
    return re.compile(pattern, flags), None


def _sre() -> Any:
    import _sre  # type: ignore[import-not-found]

    return _sre


@cache  # (what it digests does not change while the process runs: asked by _read, and by _write after)
def identity() -> str:
    """A digest of what decides a pattern's program here: the Python, the engine, the Unicode database, the byte
    order the code is kept in, and _RE_MODULES' files, each told as policycache.identity tells the libraries a policy
    is validated with (path, size, mtime and inode: hashing their bytes was 0.3 ms a lint)."""
    import unicodedata

    from .policycache import identity as files_identity

    sre = _sre()
    return files_identity((), _RE_MODULES, f"re {FORMAT}\0{sys.implementation.cache_tag}\0{sre.MAGIC}\0"
                                           f"{sre.CODESIZE}\0{unicodedata.unidata_version}\0{sys.byteorder}")


def _sum(body: bytes) -> str:
    """A digest of an entry's programs (a byte damaged on the disk is no entry). BLAKE2b, CPython's own
    (losslessd.sha; no OpenSSL load): counted by callgrind, 12.6 instructions a byte where SHA-256 takes 27 (the entry
    is about 100 KB)."""
    return blake2b(body).hexdigest()


def _path(key: str) -> Path:
    from .policycache import cache_dir

    return cache_dir() / f"re-{key[:32]}.json"


def _read() -> dict[str, Program]:
    """The programs of the entry of this Python, by key; none where there is no entry it is sure of."""
    from .policycache import own_file

    try:
        key = identity()
        raw = own_file(_path(key))
        if raw is None:
            return {}
        head, _, body = raw.partition(b"\n")
        entry = json.loads(head)
        if not (isinstance(entry, dict) and entry.get("format") == FORMAT and entry.get("key") == key
                and entry.get("sum") == _sum(body)):
            return {}
        programs = json.loads(body)
        return programs if isinstance(programs, dict) else {}
    except (OSError, ValueError, TypeError, RecursionError):
        return {}


def _write() -> None:
    """Keeps the programs read and those compiled since; where the cache cannot be written, nothing is said."""
    from .policycache import MAX_ENTRY_BYTES, write_entry

    try:
        key = identity()
        kept = _programs or {}
        if len(kept) + len(_new) > MAX_PROGRAMS:  # (a run's own programs, those it used and those it compiled)
            kept = {name: kept[name] for name in _hits}
        # (ASCII: a lone surrogate of a pattern is written as its escape)
        body = json.dumps({**kept, **_new}, sort_keys=True, separators=(",", ":")).encode()
        head = json.dumps({"format": FORMAT, "key": key, "sum": _sum(body)}).encode()
        if len(head) + len(body) < MAX_ENTRY_BYTES:
            write_entry(_path(key), head + b"\n" + body)
    except (OSError, ValueError, TypeError, RecursionError):
        return
