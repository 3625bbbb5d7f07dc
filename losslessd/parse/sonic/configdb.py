"""CONFIG_DB JSON in, tables of entries out, each entry knowing its file, JSON pointer and line.

SONiC writes the same data in three shapes: nested ``{TABLE: {key: {field: value}}}`` (config_db.json,
qos.json, buffers.json, `show runningconfiguration all`), flat ``{"TABLE|key": {field: value}}``
(sonic-utilities mock tables) and redis-dump ``{"TABLE|key": {"type": "hash", "value": {...}}}``.
One device may come as several files; their tables are merged field by field, later files winning,
the way `sonic-cfggen -j a.json -j b.json` merges them.
"""

from __future__ import annotations

import json
import re

from ...docpos import load_json, pointer
from ...errors import InputError
from ...model import ParseIssue, Source
from ..base import Input

# The CONFIG_DB tables this parser reads (sonic-buildimage src/sonic-yang-models/doc/Configuration.md).
TABLES = frozenset({
    "DEVICE_METADATA", "PORT", "PORT_QOS_MAP", "DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP",
    "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "SCHEDULER", "QUEUE", "WRED_PROFILE", "BUFFER_POOL",
    "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH", "PFC_WD",
})
# A known table name used as a key: `"PORT_QOS_MAP": {` (nested) or `"PORT_QOS_MAP|Ethernet0"` (flat).
_TABLE_KEY = re.compile(r'"(?:%s)(?:"\s*:|\|)' % "|".join(sorted(TABLES, key=len, reverse=True)))
_WS = " \t\r\n"


def mentions_table(text: str) -> bool:
    return _TABLE_KEY.search(text) is not None


class Doc:
    """One input file: its text and a lazy key -> line finder for JSON pointers."""

    __slots__ = ("path", "text", "order", "_mark", "_line", "_pos", "_cursor", "_sources")

    def __init__(self, inp: Input):
        self.path = inp.path
        self.text = inp.text
        self.order: dict[tuple, int] = {}  # pointer parts -> rank among its siblings (json keeps file order)
        self._mark, self._line = 0, 1  # last position asked for, and its line: lookups mostly move forward
        self._pos: dict[tuple, int] = {(): 0}
        self._cursor: dict[tuple, tuple[int, int]] = {}  # parent -> (rank, position) of the furthest sibling found
        self._sources: dict[tuple, Source] = {}

    def source(self, parts: tuple) -> Source:
        src = self._sources.get(parts)
        if src is None:
            joined = "/".join(parts)  # fast path: no key needs RFC 6901 escaping
            ptr = "/" + joined if "~" not in joined and joined.count("/") == len(parts) - 1 else pointer(parts)
            src = self._sources[parts] = Source(file=self.path, line=self.line(parts), pointer=ptr)
        return src

    def line(self, parts: tuple) -> int | None:
        """Line of the last key in ``parts``; None when it cannot be found (e.g. written with escapes).

        Each key is searched (str.find, no second parse) after its parent's key, or after the furthest
        earlier sibling already found when ``order`` ranks it. That is right for CONFIG_DB's three
        levels, where a key never reappears as a key inside an earlier sibling.
        """
        pos = self._find(parts)
        if pos < 0:
            return None
        if pos >= self._mark:
            self._line += self.text.count("\n", self._mark, pos)
        else:
            self._line = self.text.count("\n", 0, pos) + 1
        self._mark = pos
        return self._line

    def _find(self, parts: tuple) -> int:
        pos = self._pos.get(parts)
        if pos is None:
            parent = parts[:-1]
            pos = start = self._find(parent)
            if start >= 0:
                rank = self.order.get(parts)
                cursor = self._cursor.get(parent) if rank is not None else None
                if cursor is not None and cursor[0] < rank:
                    start = cursor[1]
                key = parts[-1]
                plain = key.isprintable() and '"' not in key and "\\" not in key
                pos = self._key_after(f'"{key}"' if plain else json.dumps(key, ensure_ascii=False), start)
                if rank is not None and pos >= 0 and (cursor is None or cursor[0] < rank):
                    self._cursor[parent] = (rank, pos)
            self._pos[parts] = pos
        return pos

    def _key_after(self, quoted: str, start: int) -> int:
        text, n = self.text, len(self.text)
        while True:
            i = text.find(quoted, start)
            if i < 0:
                return -1
            j = i + len(quoted)
            while j < n and text[j] in _WS:
                j += 1
            if j < n and text[j] == ":":
                return i
            start = i + 1


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

    def source(self, field: str | None = None) -> Source:
        if field is None:
            return self.doc.source(self.parts)
        owner = self.owners.get(field, self) if self.owners else self
        return owner.doc.source((*owner.parts, field))

    def merged(self, later: Entry) -> Entry:
        out = Entry(self.table, self.key, {**self.fields, **later.fields}, later.doc, later.parts)
        out.owners = {f: (self.owners or {}).get(f, self) for f in self.fields if f not in later.fields}
        return out


class ConfigDB:
    """The merged tables of one device, plus the SYS002 issues found while reading them."""

    def __init__(self, inputs: list[Input]):
        self.tables: dict[str, dict[str, Entry]] = {}
        self.table_source: dict[str, Source] = {}
        self.issues: list[ParseIssue] = []
        seen = False
        for inp in inputs:
            seen = self._add(Doc(inp)) or seen
        if not seen:
            raise InputError("no SONiC CONFIG_DB table losslessd reads (e.g. PORT, PORT_QOS_MAP, QUEUE, BUFFER_PG)",
                             file=inputs[0].path if inputs else None, line=1)

    def table(self, name: str) -> dict[str, Entry]:
        return self.tables.get(name, {})

    def issue(self, message: str, source: Source | None, code: str = "SYS002") -> None:
        self.issues.append(ParseIssue(code=code, message=message, source=source))

    def _add(self, doc: Doc) -> bool:
        """Add one file's tables; False when it has none this parser reads."""
        try:
            data = load_json(doc.path, doc.text)
        except (ValueError, RecursionError) as exc:  # json raises these for huge integers and deep nesting
            raise InputError(f"invalid JSON: {exc}", file=doc.path) from None
        if not isinstance(data, dict):
            raise InputError(f"not a SONiC CONFIG_DB: the top level is a JSON {type(data).__name__}, "
                             "not an object of tables", file=doc.path, line=1)
        seen = False
        order = doc.order
        for rank, (top, value) in enumerate(data.items()):
            table, bar, key = top.partition("|")
            if table not in TABLES:
                continue
            seen = True
            order[(top,)] = rank
            if bar:  # flat form: "TABLE|key": {fields}
                self._entry(doc, table, key, value, (top,))
                self.table_source.setdefault(table, Source(file=doc.path))
                continue
            self.table_source.setdefault(table, doc.source((table,)))
            if not isinstance(value, dict):
                self.issue(f"table {table} is not a JSON object of entries; skipped", doc.source((table,)))
                continue
            for rank, (key, fields) in enumerate(value.items()):
                order[(table, key)] = rank
                self._entry(doc, table, key, fields, (table, key))
        if not seen:
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
