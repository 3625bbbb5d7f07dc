"""CONFIG_DB JSON in, tables of entries out, each entry knowing its file, JSON pointer and line.

SONiC writes the same data in three shapes: nested ``{TABLE: {key: {field: value}}}`` (config_db.json,
qos.json, buffers.json, `show runningconfiguration all`), flat ``{"TABLE|key": {field: value}}``
(sonic-utilities mock tables) and redis-dump ``{"TABLE|key": {"type": "hash", "value": {...}}}``.
One device may come as several files; their tables are merged field by field, later files winning,
the way `sonic-cfggen -j a.json -j b.json` merges them.

A multi-ASIC device keeps one CONFIG_DB per namespace: `show runningconfiguration all` prints them as
``{"localhost": {tables}, "asic0": {tables}, ...}`` (sonic-utilities show/main.py, `all`), and
/etc/sonic holds config_db.json (host) beside config_db<N>.json (namespace asicN). ``namespaces``
lists the namespaces of such inputs; a ConfigDB is built per namespace.
"""

from __future__ import annotations

import bisect
import json
import re

from ...docpos import load_json, pointer
from ...errors import InputError
from ...limits import MAX_PORTS
from ...model import ParseIssue, Source
from ..base import Input, check_port_count

# The CONFIG_DB tables this parser reads (sonic-buildimage src/sonic-yang-models/doc/Configuration.md).
TABLES = frozenset({
    "DEVICE_METADATA", "PORT", "PORT_QOS_MAP", "DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP",
    "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "SCHEDULER", "QUEUE", "WRED_PROFILE", "BUFFER_POOL",
    "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH", "PFC_WD", "TC_TO_DSCP_MAP", "DEVICE_NEIGHBOR",
    "VLAN_MEMBER", "PORTCHANNEL_MEMBER", "LOSSLESS_TRAFFIC_PATTERN", "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
})
# A known table name used as a key: `"PORT_QOS_MAP": {` (nested) or `"PORT_QOS_MAP|Ethernet0"` (flat).
_TABLE_KEY = re.compile(r'"(?:' + "|".join(sorted(TABLES, key=len, reverse=True)) + r')(?:"\s*:|\|)')
_KEY_TOKEN = re.compile(r'("(?:[^"\\]|\\.)*")\s*:')  # a JSON string followed by a colon: an object key
# Namespace keys of a multi-ASIC `show runningconfiguration all` (sonic-py-common multi_asic: "asic<N>").
_NAMESPACE = re.compile(r"localhost|asic\d{1,3}")
_NEWLINE = re.compile("\n")


def mentions_table(text: str) -> bool:
    return _TABLE_KEY.search(text) is not None


class Doc:
    """One input file: its text, and the line of a JSON pointer into it, found on demand.

    Parsing only records pointers; a line is looked up when a report needs it (a fabric has
    hundreds of thousands of sources and a report shows a few), with a newline index built once.
    """

    __slots__ = ("_keys", "_newlines", "_pos", "path", "text")

    def __init__(self, inp: Input):
        self.path = inp.path
        self.text = inp.text
        self._pos: dict[tuple, int] = {(): 0}
        self._newlines: list[int] | None = None
        # per parent: the keys met scanning forward from it (quoted text -> first position) and where the
        # scan stopped; each parent's text is scanned at most once, however many keys are looked up
        self._keys: dict[tuple, tuple[dict[str, int], list[int]]] = {}

    def source(self, parts: tuple) -> dict:
        """Source fields (the model validates them once, with the rest of the device)."""
        joined = "/".join(parts)  # fast path: no key needs RFC 6901 escaping
        ptr = "/" + joined if "~" not in joined and joined.count("/") == len(parts) - 1 else pointer(parts)
        return {"file": self.path, "pointer": ptr}

    def line(self, parts: tuple) -> int | None:
        """Line of the last key in ``parts``; None when it cannot be found (e.g. written with escapes)."""
        pos = self._find(parts)
        if pos < 0:
            return None
        if self._newlines is None:
            self._newlines = [m.start() for m in _NEWLINE.finditer(self.text)]
        return bisect.bisect_left(self._newlines, pos) + 1

    def _find(self, parts: tuple) -> int:
        """Each key is the first key of that text after its parent's key (no second parse). That is right
        for CONFIG_DB's three levels, where a key does not reappear as a key inside an earlier sibling."""
        pos = self._pos.get(parts)
        if pos is None:
            parent = parts[:-1]
            pos = self._find(parent)
            if pos >= 0:
                key = parts[-1]
                plain = key.isprintable() and '"' not in key and "\\" not in key
                pos = self._key_after(parent, f'"{key}"' if plain else json.dumps(key, ensure_ascii=False), pos)
            self._pos[parts] = pos
        return pos

    def _key_after(self, parent: tuple, quoted: str, start: int) -> int:
        """Position of the first key ``quoted`` after ``start`` (the parent's key). The keys met on the way
        are remembered, so the lines of all ports of a 16,384-port table cost one scan, not one each."""
        seen, cursor = self._keys.setdefault(parent, ({}, [start]))
        hit = seen.get(quoted)
        if hit is not None:
            return hit
        for m in _KEY_TOKEN.finditer(self.text, cursor[0]):
            seen.setdefault(m.group(1), m.start())
            if m.group(1) == quoted:
                cursor[0] = m.end()
                return m.start()
        cursor[0] = len(self.text)
        return -1


class Locator:
    """Device.locate for a SONiC device: a source's line from its file and JSON pointer.

    Holds only the files' texts, not the decoded tables, so a linted fabric does not keep those."""

    __slots__ = ("docs",)

    def __init__(self, docs: list[Doc]):
        self.docs = {doc.path: doc for doc in docs}

    def __eq__(self, other: object) -> bool:  # devices parsed from the same files stay equal
        return isinstance(other, Locator) and {p: d.text for p, d in self.docs.items()} == {
            p: d.text for p, d in other.docs.items()}

    def __call__(self, source: Source) -> None:
        doc = self.docs.get(source.file)
        if doc is not None and source.pointer:
            parts = source.pointer.split("/")[1:]  # RFC 6901: ~1 is "/", ~0 is "~"
            source.line = doc.line(tuple(p.replace("~1", "/").replace("~0", "~") for p in parts))


class Entry:
    """One CONFIG_DB entry (``TABLE|key``): its fields and where each field was written."""

    __slots__ = ("table", "key", "fields", "doc", "parts", "owners")

    def __init__(self, table: str, key: str, fields: dict, doc: Doc, parts: tuple):
        self.table = table
        self.key = key
        self.fields = fields
        self.doc = doc
        self.parts = parts  # JSON pointer parts of the entry object in doc
        self.owners: dict[str, Entry] | None = None  # fields merged in from another file's entry

    def source(self, field: str | None = None) -> dict:
        if field is None:
            return self.doc.source(self.parts)
        owner = self.owners.get(field, self) if self.owners else self
        return owner.doc.source((*owner.parts, field))

    def merged(self, later: Entry) -> Entry:
        out = Entry(self.table, self.key, {**self.fields, **later.fields}, later.doc, later.parts)
        out.owners = {f: (self.owners or {}).get(f, self) for f in self.fields if f not in later.fields}
        return out


# Entries of the tables this parser reads, in one file (or ASIC namespace): a switch of MAX_PORTS ports with a
# PG and a queue entry per priority and one per map is far below; a generated file is not (900,000 ports in
# 20 MB took 1.4 GB before the port count was checked).
MAX_ENTRIES = MAX_PORTS * 24


def _check_size(data: dict, file: str) -> None:
    """Refuse a CONFIG_DB of more ports (or entries) than a switch has, before anything is built of it."""
    ports = data.get("PORT")
    check_port_count(len(ports) if isinstance(ports, dict) else 0, file)
    entries = sum(len(v) if isinstance(v, dict) and k in TABLES else 1 for k, v in data.items())
    if entries > MAX_ENTRIES:
        raise InputError(f"{entries:,} CONFIG_DB entries in one file: more than the {MAX_ENTRIES:,} of the largest "
                         "switch losslessd reads (a generated or concatenated file?); not read", file=file, line=1)


def _is_namespaced(data: object) -> bool:
    """A multi-ASIC dump: every top-level key a namespace holding an object of tables."""
    return (isinstance(data, dict) and bool(data) and "localhost" in data
            and all(_NAMESPACE.fullmatch(k) and isinstance(v, dict) for k, v in data.items()))


def _load(doc: Doc) -> dict:
    try:
        data = load_json(doc.path, doc.text)
    except (ValueError, RecursionError) as exc:  # json raises these for huge integers and deep nesting
        raise InputError(f"invalid JSON: {exc}", file=doc.path) from None
    if not isinstance(data, dict):
        raise InputError(f"not a SONiC CONFIG_DB: the top level is a JSON {type(data).__name__}, "
                         "not an object of tables", file=doc.path, line=1)
    return data


def split_namespaces(inputs: list[Input], namespace_of: dict[str, str]) -> dict[str | None, list[tuple[Input, dict, tuple]]]:
    """Inputs per namespace (None: a single-ASIC device): (input, its tables, JSON-pointer prefix).
    ``namespace_of`` names the namespace of whole files (config_db0.json -> asic0)."""
    out: dict[str | None, list[tuple[Input, dict, tuple]]] = {}
    for inp in inputs:
        data = _load(Doc(inp))
        if _is_namespaced(data):
            for ns, tables in data.items():
                out.setdefault(ns, []).append((inp, tables, (ns,)))
        else:
            out.setdefault(namespace_of.get(inp.path), []).append((inp, data, ()))
    if len(out) > 1 and None in out:  # host-namespace files of a multi-ASIC device
        out.setdefault("localhost", []).extend(out.pop(None))
    return out


class ConfigDB:
    """The merged tables of one device (or one ASIC namespace), plus the issues found while reading them."""

    def __init__(self, inputs: list[Input], loaded: list[tuple[Input, dict, tuple]] | None = None,
                 namespace: str | None = None):
        self.tables: dict[str, dict[str, Entry]] = {}
        self.table_source: dict[str, Source | dict] = {}
        self.issues: list[ParseIssue] = []
        self.namespace = namespace
        self.docs = [Doc(inp) for inp in inputs]
        by_path = {doc.path: doc for doc in self.docs}
        seen = False
        for inp, data, prefix in loaded if loaded is not None else [(inp, None, ()) for inp in inputs]:
            doc = by_path[inp.path]
            seen = self._add(doc, _load(doc) if data is None else data, prefix) or seen
        if not seen and namespace is None:
            raise InputError("no SONiC CONFIG_DB table losslessd reads (e.g. PORT, PORT_QOS_MAP, QUEUE, BUFFER_PG)",
                             file=inputs[0].path if inputs else None, line=1)
        self.empty = not seen

    def table(self, name: str) -> dict[str, Entry]:
        return self.tables.get(name, {})

    def locator(self) -> Locator:
        return Locator(self.docs)

    def issue(self, message: str, source: Source | dict | None, code: str = "SYS002") -> None:
        self.issues.append(ParseIssue(code=code, message=message, source=source))

    def _add(self, doc: Doc, data: dict, prefix: tuple = ()) -> bool:
        """Add one file's (or one namespace's) tables; False when it has none this parser reads."""
        _check_size(data, doc.path)
        seen = False
        for top, value in data.items():
            table, bar, key = top.partition("|")
            if table not in TABLES:
                continue
            seen = True
            if bar:  # flat form: "TABLE|key": {fields}
                self._entry(doc, table, key, value, (*prefix, top))
                self.table_source.setdefault(table, doc.source(prefix) if prefix else Source(file=doc.path))
                continue
            self.table_source.setdefault(table, doc.source((*prefix, table)))
            if not isinstance(value, dict):
                self.issue(f"table {table} is not a JSON object of entries; skipped", doc.source((*prefix, table)))
                continue
            for key, fields in value.items():
                self._entry(doc, table, key, fields, (*prefix, table, key))
        if not seen and not prefix:
            self.issue("no CONFIG_DB table losslessd reads; file skipped", Source(file=doc.path, line=1))
        return seen

    def _entry(self, doc: Doc, table: str, key: str, fields, parts: tuple) -> None:
        if isinstance(fields, dict) and fields.get("type") == "hash" and isinstance(fields.get("value"), dict):
            fields, parts = fields["value"], (*parts, "value")  # redis-dump wrapper with expireat/ttl
        if not isinstance(fields, dict):
            self.issue(f"{table} entry {key!r} is not a JSON object of fields; skipped", doc.source(parts))
            return
        entry = Entry(table, key, fields, doc, parts)
        rows = self.tables.setdefault(table, {})
        old = rows.get(key)
        rows[key] = entry if old is None else old.merged(entry)
