"""The command line's cache of parsed YAML documents (a fabric's topology file): a lint that read the same text before
reads its document back as JSON and imports neither PyYAML nor losslessd.yamlread (docs/lint-at-scale.md, "Session 42,
part a").

An entry is named by the SHA-256 of what decides the document: the text read (hashed as it was read, the bytes that
are then parsed) and the reading code (CODE's files, policycache._module_key; the installed PyYAML, the Python, the
size limits). Only a document PyYAML made of plain JSON values (mappings with text keys, lists, texts, integers,
booleans, null and finite numbers), with no key given twice, is kept, so that what is read back is equal to it, value
and type; a YAML error is never kept: it is reported every time. It is policycache's mechanism: JSON (never
pickle), in a regular file of the user's own that nobody else may write, opened without following a link, written
0600 through a rename; LOSSLESSD_NO_CACHE and `lint --no-policy-cache` read and write nothing. Only a command that
asks (``used``) reads or writes here: the library's lint never does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import limits
from .docpos import Document, load_yaml
from .policycache import MAX_ENTRY_BYTES, cache_dir, data_sum, disabled, identity, own_file, write_entry
from .sha import sha256

FORMAT = 1  # (the entry's layout)
# What makes a text a Document: the modules yamlread.load_yaml runs (tests/test_yaml_cache.py checks the list against
# what reading a YAML file loads), this one (the entry's layout) ...
CODE = ("__init__.py", "yamlcache.py", "docpos.py", "yamlread.py", "limits.py", "errors.py", "printable.py",
        "lazyre.py", "units.py", "gcpause.py")
# ... and the library it parses with.
LIBRARIES = ("yaml",)

_used = False


@contextmanager
def used(on: bool = True) -> Iterator[None]:
    """Within it, ``load`` reads and writes the cache (unless LOSSLESSD_NO_CACHE): the command line's lint."""
    global _used
    before, _used = _used, on and not disabled()
    try:
        yield
    finally:
        _used = before


def code_identity() -> str:
    """A digest of what reads a YAML text into a Document here (CODE's files, LIBRARIES' installed files, the
    interpreter, the size limits)."""
    return identity(CODE, LIBRARIES, f"yaml {FORMAT}\0{limits.max_file_bytes()}\0{limits.max_yaml_bytes()}")


def load(shown: str, text: str) -> Document:
    """docpos.load_yaml(shown, text), read back from the cache where a lint kept this very text's document (within
    ``used``), else parsed (its errors as ever) and kept when it is plain data."""
    if not _used:
        return load_yaml(shown, text)
    try:
        key = sha256(code_identity().encode() + b"\0" + text.encode("utf-8", "surrogateescape")).hexdigest()
    except (OSError, ValueError, ImportError):
        return load_yaml(shown, text)
    path = cache_dir() / f"yaml-{key[:32]}.json"
    hit = _read(path, key, shown)
    if hit is not None:
        return hit
    doc = load_yaml(shown, text)
    _write(path, key, doc)
    return doc


def _read(path: Path, key: str, shown: str) -> Document | None:
    try:
        raw = own_file(path)
        if raw is None:
            return None
        entry = json.loads(raw)
        if not (isinstance(entry, dict) and entry.get("format") == FORMAT and entry.get("key") == key
                and entry.get("sum") == data_sum(entry.get("document"))):
            return None
        data, lines = entry["document"]
        if not (isinstance(lines, dict) and all(type(v) is int for v in lines.values())):
            return None
        return Document(data, lines, shown)
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None


def _write(path: Path, key: str, doc: Document) -> None:
    """Keeps ``doc`` where it reads back equal (plain data, no key given twice: each reader decides what that is);
    where the cache cannot be written, nothing is said."""
    try:
        document = [doc.data, doc.lines]
        if doc.duplicates or not _plain(document):
            return
        text = json.dumps({"format": FORMAT, "key": key, "document": document, "sum": data_sum(document)},
                          allow_nan=False).encode("utf-8", "surrogateescape")
        if len(text) <= MAX_ENTRY_BYTES:
            write_entry(path, text)
    except (OSError, ValueError, TypeError, RecursionError):
        return


def _plain(value: Any) -> bool:
    """Whether JSON gives ``value`` back equal and of the same types (a YAML date, set, binary, a non-text key or
    a tuple would come back as something else)."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    if kind is float:
        return value - value == 0.0  # (finite: JSON has no NaN or infinity)
    return kind in (str, int, bool) or value is None

