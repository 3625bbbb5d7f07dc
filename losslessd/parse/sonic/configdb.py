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

from ...docpos import load_json, pointer, strings_read
from ...errors import InputError
from ...lazyre import lazy
from ...limits import MAX_PORTS
from ...model import DocRef, ParseIssue, Source
from ...printable import printable
from ..base import Input, IssueList, check_port_count

# The CONFIG_DB tables this parser reads (sonic-buildimage src/sonic-yang-models/doc/Configuration.md).
TABLES = frozenset({
    "DEVICE_METADATA", "PORT", "PORT_QOS_MAP", "DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP",
    "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "SCHEDULER", "QUEUE",
    "WRED_PROFILE", "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH", "PFC_WD",
    "TC_TO_DSCP_MAP", "DEVICE_NEIGHBOR", "VLAN_MEMBER", "PORTCHANNEL_MEMBER", "LOSSLESS_TRAFFIC_PATTERN",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "VERSIONS", "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST",
})
# A known table name used as a key: `"PORT_QOS_MAP": {` (nested) or `"PORT_QOS_MAP|Ethernet0"` (flat). (Longest
# first, then by name: the same text in every run, whatever order the set is in, so the compiled program kept by
# losslessd.recache is found again; names of one length cannot both match at one place, so their order is no matter.)
_TABLE_KEY = lazy(r'"(?:' + "|".join(sorted(TABLES, key=lambda name: (-len(name), name))) + r')(?:"\s*:|\|)')
# An object key: a JSON string after `{` or `,` and before a colon (the leading character lets the regular
# expression engine skip to the candidates in C; the object's own `{` is left for its first key).
_KEY_TOKEN = lazy(r'[{,]\s*("[^"\\]*(?:\\.[^"\\]*)*")\s*:')
# ... whose value is an object: a namespace, a table or an entry (a file holds far fewer of these than keys)
_OBJECT_KEY = lazy(r'[{,]\s*("[^"\\]*(?:\\.[^"\\]*)*")\s*:(?=\s*\{)')
# What follows a key of each kind (a key found by str.find is checked with these).
_KEY_END = {_KEY_TOKEN: lazy(r"\s*:"), _OBJECT_KEY: lazy(r"\s*:(?=\s*\{)")}
# Keys looked up under one parent by str.find (in C, from the parent's key) before its keys are scanned once: a
# report shows a few keys of each table, a fabric of findings every key of some (a 16,384-port table: one scan).
_FIND_FIRST = 16
# Namespace keys of a multi-ASIC `show runningconfiguration all` (sonic-py-common multi_asic: "asic<N>").
NAMESPACE = r"localhost|asic\d{1,3}"
_NAMESPACE = lazy(NAMESPACE)
# `" :`, looked for before it is counted (_load): a search for a literal finds its first character as memchr does
# (31 us over a bench switch's 116 kB), where str.count compares at every step (127 us).
_SPACE_COLON = lazy('" :')
_JSON_TYPES = {str: "a string", list: "an array", type(None): "null", bool: "a boolean", int: "a number",
               float: "a number"}


def mentions_table(text: str) -> bool:
    return _TABLE_KEY.search(text) is not None


class Doc:
    """One input file: its text, and the pointer and line of a path of keys into it, found on demand.

    Parsing only records paths (model.DocRef); a line is looked up when a report needs it (a fabric has
    hundreds of thousands of sources and a report shows a few), with a newline index built once.
    """

    __slots__ = ("_keys", "_newlines", "_objects", "_pos", "path", "text")

    def __init__(self, inp: Input):
        self.path = inp.path
        self.text = inp.text
        self._pos: dict[tuple, int] = {(): 0}
        self._newlines: list[tuple[int, int]] | None = None  # (position, its line) already counted
        # per parent: the keys met scanning forward from it (quoted text -> first position) and where the
        # scan stopped; each parent's text is scanned at most once, however many keys are looked up. _objects
        # holds the keys whose value is an object (what a namespace, table or entry is looked up among).
        self._keys: dict[tuple, list] = {}  # parent -> [{quoted key: position}, where the scan stopped, finds]
        self._objects: dict[tuple, list] = {}

    def ref(self, parts: tuple, field: str | None = None) -> DocRef:
        return DocRef(self, parts, field)

    @staticmethod
    def pointer(parts: tuple) -> str:
        joined = "/".join(parts)  # fast path: no key needs RFC 6901 escaping
        return "/" + joined if "~" not in joined and joined.count("/") == len(parts) - 1 else pointer(parts)

    def line(self, parts: tuple, field: str | None = None) -> int | None:
        """Line of the last key in ``parts`` (of ``field`` in that entry, if given); None when it cannot be found
        (e.g. written with escapes)."""
        pos = self._find(parts) if field is None else self._find((*parts, field), obj=False)
        if pos < 0:
            return None
        return self._line_at(pos)

    def repeated(self, parts: tuple, count: int) -> list[int]:
        """Lines of the ``count`` keys ``parts[-1]`` written in one object (after the parent's key; [] or fewer when
        not found, e.g. written with escapes). Every later look-up of ``parts`` finds the last of them: the one
        json keeps, so a finding about the value points at the line the switch runs."""
        start = self._find(parts[:-1])
        key = parts[-1]
        plain = key.isprintable() and '"' not in key and "\\" not in key
        quoted = f'"{key}"' if plain else json.dumps(key, ensure_ascii=False)
        found: list[int] = []
        while start >= 0 and len(found) < count:
            start = self._find_key(quoted, start, _KEY_END[_KEY_TOKEN])
            if start >= 0:
                found.append(start)
        if len(found) == count:
            self._pos[parts] = found[-1]
        return [self._line_at(pos) for pos in found]

    def _line_at(self, pos: int) -> int:
        # Newlines are counted from the nearest position already known, before or after: a report asks for a few
        # lines of a large file, and counting (in C) is cheaper than indexing every line of it. Counting from either
        # side keeps lines asked for in any order (findings are sorted by port, tables by key) near linear.
        marks = self._newlines
        if marks is None:
            marks = self._newlines = [(0, 1)]
        i = bisect.bisect_right(marks, (pos, float("inf"))) - 1
        start, line = marks[i]
        if start == pos:
            return line
        if i + 1 < len(marks) and marks[i + 1][0] - pos < pos - start:
            end, after = marks[i + 1]
            line = after - self.text.count("\n", pos, end)
        else:
            line += self.text.count("\n", start, pos)
        marks.insert(i + 1, (pos, line))
        return line

    def _find(self, parts: tuple, obj: bool = True) -> int:
        """Each key is the first key of that text after its parent's key (no second parse). That is right
        for CONFIG_DB's three levels, where a key does not reappear as a key inside an earlier sibling.
        ``obj``: the key's value is an object (every key but an entry's field)."""
        pos = self._pos.get(parts)
        if pos is None:
            parent = parts[:-1]
            pos = self._find(parent)
            if pos >= 0:
                key = parts[-1]
                plain = key.isprintable() and '"' not in key and "\\" not in key
                quoted = f'"{key}"' if plain else json.dumps(key, ensure_ascii=False)
                found = self._key_after(self._objects, _OBJECT_KEY, parent, quoted, pos) if obj else -1
                # a field, or a table or entry that is no object (reported as such): among all the keys
                pos = found if found >= 0 else self._key_after(self._keys, _KEY_TOKEN, parent, quoted, pos)
            self._pos[parts] = pos
        return pos

    def _key_after(self, memo: dict, tokens: re.Pattern, parent: tuple, quoted: str, start: int) -> int:
        """Position of the first key ``quoted`` (of those ``tokens`` matches) after ``start`` (the parent's key).
        The first few are found with str.find; then the keys met on the way are remembered, so the lines of all
        ports of a 16,384-port table cost one scan, not one each. The scan for a namespace, table or entry meets
        only keys whose value is an object (the regular expression skips the fields in C), and one for a field
        stays within its entry."""
        state = memo.get(parent)
        if state is None:
            state = memo[parent] = [{}, start, 0]
        seen = state[0]
        hit = seen.get(quoted)
        if hit is not None:
            return hit
        if state[2] < _FIND_FIRST:
            state[2] += 1
            seen[quoted] = found = self._find_key(quoted, start, _KEY_END[tokens])
            return found
        for m in tokens.finditer(self.text, state[1]):
            key = m.group(1)
            seen.setdefault(key, m.start(1))
            if key == quoted:
                state[1] = m.end()
                return m.start(1)
        state[1] = len(self.text)
        return -1

    def _find_key(self, quoted: str, start: int, end: re.Pattern) -> int:
        """The first ``quoted`` after ``start`` (the parent's own key) followed by ``end``: in JSON, a key."""
        text = self.text
        i = text.find(quoted, start + 1)
        while i >= 0 and not end.match(text, i + len(quoted)):
            i = text.find(quoted, i + 1)
        return i


class Entry(DocRef):
    """One CONFIG_DB entry (``TABLE|key``): its fields, and where it and each field was written. An entry is the
    source of what it sets (a DocRef to itself); ``release`` drops the decoded fields once the device is built,
    so the model keeps only the file's text.

    A switch has about a thousand entries, a fleet millions: an entry sets only its own four attributes; it
    points at the entry itself (``field`` None), its line is looked up when first read, and only an entry merged
    from several files (_Merged) knows which file wrote each field."""

    __slots__ = ("fields", "key", "table")
    field = None  # (read-only: an entry's own place)
    owners: dict[str, Entry] | None = None  # fields merged in from another file's entry (_Merged)

    def __init__(self, table: str, key: str, fields: dict, doc: Doc, parts: tuple):
        self.doc = doc
        self.parts = parts  # JSON pointer parts of the entry object in doc
        self.table = table
        self.key = key
        self.fields = fields

    def source(self, field: str | None = None) -> DocRef:
        if field is None:
            return self
        owner = self.owners.get(field, self) if self.owners else self
        ref = _new(_FieldRef)  # (a switch has a few per port: without DocRef's __init__ call)
        ref.doc, ref.entry, ref.field = owner.doc, owner, field
        return ref

    def merged(self, later: Entry) -> Entry:
        out = _Merged(self.table, self.key, {**self.fields, **later.fields}, later.doc, later.parts)
        out.owners = {f: (self.owners or {}).get(f, self) for f in self.fields if f not in later.fields}
        return out


_new = object.__new__


class _Nested(Entry):
    """An entry of a nested table of a single-ASIC file (almost every entry): its JSON pointer parts are (table, key),
    worked out when read (a report's few) rather than kept as a tuple per entry (a switch has about a thousand)."""

    __slots__ = ()

    @property
    def parts(self) -> tuple:  # type: ignore[override]  # (read-only here)
        return self.table, self.key


class _FieldRef(DocRef):
    """One field of an entry (Entry.source): the entry's place and the field's name, its line looked up when read."""

    __slots__ = ("entry",)
    entry: Entry

    @property
    def parts(self) -> tuple:  # type: ignore[override]  # (read-only here)
        return self.entry.parts


class _Merged(Entry):
    """An entry whose fields come from several files (later files winning): where each earlier field came from."""

    __slots__ = ("owners",)


# Tables of a port's queues and PGs (a switch has hundreds of entries in them): kept as decoded, their entries made when
# cited (ConfigDB.deferred, entry_maker).
DEFERRED = frozenset({"QUEUE", "BUFFER_PG", "BUFFER_QUEUE"})


def entry_maker(doc: Doc, table: str):
    """``make(key)``: the entry ``key`` of a deferred ``table`` of ``doc`` as a source (its fields released)."""
    def make(key: str) -> Entry:
        e = _new(_Nested)
        e.doc, e.table, e.key, e.fields = doc, table, key, None  # type: ignore[assignment]
        return e
    return make


# Entries of the tables this parser reads, in one file (or ASIC namespace): a switch of MAX_PORTS ports with a
# PG and a queue entry per priority and one per map is far below; a generated file is not (900,000 ports in
# 20 MB took 1.4 GB before the port count was checked).
MAX_ENTRIES = MAX_PORTS * 24


def _shown(value: object) -> str:
    """A repeated key's value in a message: a string or number as written, an object by its size."""
    if isinstance(value, dict):
        return f"an object of {len(value)} key{'s' if len(value) != 1 else ''}"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_size(data: dict, file: str) -> None:
    """Refuse a CONFIG_DB of more ports (or entries) than a switch has, before anything is built of it."""
    ports = data.get("PORT")
    check_port_count(len(ports) if isinstance(ports, dict) else 0, file)
    entries = sum(len(v) if isinstance(v, dict) and k in TABLES else 1 for k, v in data.items())
    if entries > MAX_ENTRIES:
        raise InputError(f"{entries:,} CONFIG_DB entries in one file: more than the {MAX_ENTRIES:,} of the largest "
                         "switch losslessd reads (a generated or concatenated file?); not read", file=file, line=1)


def is_namespaced(data: object) -> bool:
    """A multi-ASIC dump: every top-level key a namespace holding an object of tables (`localhost` and `asicN`, as
    `show runningconfiguration all` writes them; a dump of the ASIC namespaces alone, without `localhost`, too: no
    CONFIG_DB table is named so)."""
    return (isinstance(data, dict) and bool(data)
            and all(_NAMESPACE.fullmatch(k) and isinstance(v, dict) for k, v in data.items()))


# A key written twice in one object: its path (the key last) and its values in the order written. SONiC keeps the
# last: sonic-cfggen reads config_db.json with Python's json.load (sonic-buildimage sonic-cfggen, _process_json),
# which keeps the last value of a repeated key; so does docpos.json_value.
Repeated = tuple[tuple, list]


# A Jinja statement, comment or expression opener, which no JSON holds outside a string: sonic-buildimage's per-SKU
# templates (device/*/*/<SKU>/qos.json.j2, buffers.json.j2, buffers_defaults_t1.j2) that sonic-cfggen renders.
_JINJA = lazy(r"\{[%#{]")
# What names a SONiC buffer or QoS template where it writes no CONFIG_DB table name (a Mellanox buffers_defaults_t1.j2
# is macros over buffers_defaults_objects.j2): a `generate_` macro, as buffers_config.j2 and qos_config.j2 call them
# (sonic-buildimage files/build_templates/: generate_port_lists, generate_buffer_pool_and_profiles,
# generate_pg_profiles, generate_tc_to_pg_map...), or an include, import or `from ... import` of one of the files those
# macros live in (Jinja template designer docs: the three forms of reading another template).
_SKU_TEMPLATE = lazy(  # (asked only of a file that opens with `{` and names no table: compiled then)
    r"\{%-?\s*(?:macro\s+generate_\w+\s*\("
    r"|(?:include|import|from)\s+['\"](?:buffers_config|buffers_defaults_objects|buffers_defaults_t\d|buffer_ports|"
    r"qos_config)\.j2['\"])")


def is_sku_template(text: str) -> bool:
    """A SONiC SKU buffer or QoS template (Jinja), told by the macros and files sonic-cfggen's templates share (in its
    first 64 KB: a Mellanox buffers_defaults_t1.j2 is 2 KB)."""
    return _SKU_TEMPLATE.search(text, 0, 65536) is not None


def _template(doc: Doc, exc: InputError) -> InputError:
    """The JSON error, said as what the file is where it is a Jinja template: a JSON parser's "Expecting property
    name" at its first `{%` told an operator who linted a SKU's buffers.json.j2 nothing."""
    m = _JINJA.search(doc.text)
    if m is None or exc.line is None or doc.text.count("\n", 0, m.start()) + 1 > exc.line:
        return exc  # (the JSON broke before any template syntax: its own error says where)
    line = doc.text.count("\n", 0, m.start()) + 1
    return InputError(f"a Jinja template, not a CONFIG_DB (`{m.group()}` at line {line}): sonic-cfggen renders SONiC's "
                      "SKU templates into CONFIG_DB JSON (on the switch `sonic-cfggen -d -t FILE`); lint what it "
                      "writes, or the switch's config_db.json", file=doc.path, line=line)


def _load(doc: Doc) -> tuple[dict, list[Repeated]]:
    """The file's tables, and the keys it repeats with another value (what the last one hides)."""
    try:
        data = load_json(doc.path, doc.text)  # (an InputError for huge integers and deep nesting too)
    except InputError as exc:
        raise _template(doc, exc) from None
    if not isinstance(data, dict):
        raise InputError(f"not a SONiC CONFIG_DB: the top level is a JSON {type(data).__name__}, "
                         "not an object of tables", file=doc.path, line=1)
    text = doc.text
    # Every string of the tables (keys and values) is a string the text writes, each a different one, and each string
    # the text writes holds two `"` (and one more per escaped quote): a text of twice as many `"` as the tables have
    # strings writes no string they lack, so no key twice (a key written again drops the earlier key's string). One
    # count in C instead of the `":` count, the `" :` search and the keys' walk below: about 1.9 M -> 0.6 M
    # instructions a bench switch (docs/lint-at-scale.md, "Session 45, part d"). Any other text is counted as before.
    strings = strings_read(text)
    if strings is not None and text.count('"') == 2 * strings:
        return data, []
    keys = _keys(data)
    # (`"key" :` and `"key"\t:` counted too: one such key balanced a repeated key elsewhere, which went unwarned. Each
    # count is a pass over the text, a twelfth of a bench switch's parse: the others are not needed once `":` alone is
    # past the keys, `"\t:` not in a text without a tab, which memchr finds at once, nor `" :` in one the regular
    # expression finds none in: its search skips to each quote as memchr does, a quarter of the count's time.)
    written = text.count('":')
    if written <= keys:
        written += ((text.count('" :') if _SPACE_COLON.search(text) else 0)
                    + (text.count('"\t:') if "\t" in text else 0))
    if written == keys:
        return data, []  # no key written twice (below): no second parse, which costs as much as the first
    found: list = []
    data = load_json(doc.path, doc.text, found)
    return data, _repeated(data, found) if found else []


def _keys(data: dict) -> int:
    """Keys of the objects three levels deep (table, entry, field; four in a multi-ASIC file's namespaces). A file
    that writes every key as `"key":` (or `"key" :`, `"key"\t:`) holds at least as many of these as keys, and as many
    only when none is written twice and no object lies deeper: then there is nothing to look for. (A key written with a
    newline or two blanks before its colon can still balance a repeated key; the value read is the last either way, as
    SONiC reads it.) Loops, not a walk: 0.03 ms for a bench CONFIG_DB of 2,900 keys."""
    if is_namespaced(data):
        return len(data) + sum(_keys(tables) for tables in data.values())
    count = len(data)
    for table in data.values():
        if type(table) is dict:
            count += len(table)
            for entry in table.values():
                if type(entry) is dict:
                    count += len(entry)
    return count


def _repeated(data: dict, found: list) -> list[Repeated]:
    """The repeated keys of ``found`` (json_value's objects) whose earlier values differ from the last, with their
    paths, shortest first. The paths come from walking the objects kept (namespace, table, entry): an object
    inside a value a later one replaced is gone with it, and hidden by that one."""
    pairs = {id(made): items for made, items in found}
    out: list[Repeated] = []
    stack: list[tuple[tuple, dict]] = [((), data)]
    while stack:
        parts, obj = stack.pop()
        items = pairs.get(id(obj))
        if items is not None:
            values: dict[str, list] = {}
            for key, value in items:
                values.setdefault(key, []).append(value)
            out += [((*parts, key), vals) for key, vals in values.items()
                    if len(vals) > 1 and any(v != vals[-1] for v in vals[:-1])]
        if len(parts) < 3:
            stack.extend(((*parts, key), value) for key, value in obj.items() if type(value) is dict)
    return sorted(out, key=lambda r: len(r[0]))


def _namespace_fault(doc: Doc, data: dict) -> tuple[str, int | None] | None:
    """(why, line) a top level whose keys look like a multi-ASIC dump's namespaces is not read as one: the first key
    that is not a namespace name (asic1000, asic-1) or whose value is no object of tables ("asic0": "x"); None when
    no key is `localhost` or starts with `asic`. The message said only how namespaces are named, and named them."""
    if not any(key == "localhost" or key.lower().startswith("asic") for key in data):
        return None
    for key, value in data.items():
        if not _NAMESPACE.fullmatch(key):
            return (f"{printable(key[:40])}{'...' if len(key) > 40 else ''} is not a namespace name (a multi-ASIC "
                    "dump names them `localhost`, `asic0`, `asic1`, ... up to `asic999`)"), doc.line((key,), None)
        if type(value) is not dict:
            return (f"namespace {key} holds {_JSON_TYPES.get(type(value), 'no object')}, not an object of tables"
                    ), doc.line((key,), None)
    return None


Loaded = tuple[Input, dict, tuple, list[Repeated]]


def split_namespaces(inputs: list[Input], namespace_of: dict[str, str]) -> dict[str | None, list[Loaded]]:
    """Inputs per namespace (None: a single-ASIC device): (input, its tables, JSON-pointer prefix, the keys it
    repeats there). ``namespace_of`` names the namespace of whole files (config_db0.json -> asic0)."""
    out: dict[str | None, list[Loaded]] = {}
    for inp in inputs:
        data, repeated = _load(Doc(inp))
        if is_namespaced(data):
            for ns, tables in data.items():
                out.setdefault(ns, []).append((inp, tables, (ns,), [r for r in repeated if r[0][0] == ns]))
        else:
            out.setdefault(namespace_of.get(inp.path), []).append((inp, data, (), repeated))
    if len(out) > 1 and None in out:  # host-namespace files of a multi-ASIC device
        out.setdefault("localhost", []).extend(out.pop(None))
    return out



# Repeats named in full up to here; a key written 100,000 times made a SYS002 of a megabyte.
_LISTED = 8


def listed(items: list) -> str:
    """``items`` joined with commas, the first _LISTED of them and how many more when there are more."""
    shown = ", ".join(map(str, items[:_LISTED]))
    return shown if len(items) <= _LISTED else f"{shown}, ... ({len(items) - _LISTED:,} more)"


class ConfigDB:
    """The merged tables of one device (or one ASIC namespace), plus the issues found while reading them."""

    def __init__(self, inputs: list[Input], loaded: list[Loaded] | None = None, namespace: str | None = None):
        self.tables: dict[str, dict[str, Entry]] = {}
        # Deferred tables (DEFERRED) of one file and no namespace, each entry an object of fields: their rows in
        # ``tables`` are the decoded fields until table() makes their entries; the builder reads them as they are.
        self._deferred: dict[str, Doc] = {}
        self.table_source: dict[str, Source] = {}
        self.issues: list[ParseIssue] = IssueList()
        self.namespace = namespace
        self.docs = [Doc(inp) for inp in inputs]
        by_path = {doc.path: doc for doc in self.docs}
        seen = False
        top: list[str] = []  # the top-level keys of the files (what the error names when none is a table)
        keys = 0  # how many there are
        fault: tuple[str, int | None] | None = None  # why the first file that looks namespaced is not (see below)
        items: list[tuple[Input, dict | None, tuple, list[Repeated]]] = \
            list(loaded) if loaded is not None else [(inp, None, (), []) for inp in inputs]
        for inp, given, prefix, repeated in items:
            doc = by_path[inp.path]
            data, repeated = _load(doc) if given is None else (given, repeated)
            if repeated:
                self._hidden(doc, repeated, prefix)
            seen = self._add(doc, data, prefix) or seen
            if not seen:
                keys += len(data)
                if len(top) <= _LISTED:
                    top += [printable(str(key)[:40]) for key in list(data)[:_LISTED + 1]]
                if fault is None and namespace is None:
                    fault = _namespace_fault(doc, data)
        if not seen and namespace is None:
            shown = ", ".join(top[:_LISTED]) + (f", ... ({keys - _LISTED:,} more)" if keys > _LISTED else "")
            raise InputError("no SONiC CONFIG_DB table losslessd reads (e.g. PORT, PORT_QOS_MAP, QUEUE, BUFFER_PG)"
                             + (f"; the top-level keys are {shown}" if top else "; the file holds no key")
                             + (f"; not a multi-ASIC dump: {fault[0]}" if fault else ""),
                             file=inputs[0].path if inputs else None, line=(fault[1] or 1) if fault else 1)
        self.empty = not seen

    def table(self, name: str) -> dict[str, Entry]:
        if name in self._deferred:
            self._undefer(name)
        return self.tables.get(name, {})

    def deferred(self, name: str) -> tuple[Doc, dict[str, dict]] | None:
        """(file, {key: fields}) of a table whose entries are not made yet (see DEFERRED); None: read table()."""
        doc = self._deferred.get(name)
        return None if doc is None else (doc, self.tables[name])  # type: ignore[return-value]

    def fields(self, name: str) -> dict[str, dict]:
        """{key: fields} of a table, deferred or not."""
        if name in self._deferred:
            return self.tables[name]  # type: ignore[return-value]
        return {key: e.fields for key, e in self.tables.get(name, {}).items()}

    def _undefer(self, name: str) -> None:
        doc = self._deferred.pop(name)
        made: dict[str, Entry] = {}
        for key, fields in self.tables[name].items():
            made[key] = e = _new(_Nested)
            e.doc, e.table, e.key, e.fields = doc, name, key, fields  # type: ignore[assignment]
        self.tables[name] = made

    def release(self) -> None:
        """Drop the decoded fields: entries stay the sources of what the device holds, the texts their lines."""
        for name in self._deferred:  # (their entries, made when cited, have no fields)
            self.tables[name] = {}
        for name, rows in self.tables.items():
            if name in self._deferred:
                continue
            for entry in rows.values():
                entry.fields = None  # type: ignore[assignment]
                if entry.owners is not None:
                    entry.owners = None

    def issue(self, message: str, source: Source | None, code: str = "SYS002") -> None:
        self.issues.append(ParseIssue(code=code, message=message, source=source))

    def _hidden(self, doc: Doc, repeated: list[Repeated], prefix: tuple) -> None:
        """A SYS002 for each key of a table this parser reads that the file writes twice with different values: the
        switch runs the last (Repeated), and the earlier one may be the value the operator meant."""
        for parts, values in repeated:
            inner = parts[len(prefix):]
            if inner and inner[0].partition("|")[0] not in TABLES:
                continue
            lines = doc.repeated(parts, len(values))
            where = f" (lines {listed(lines[:-1])} and {lines[-1]})" if len(lines) == len(values) else ""
            hidden = listed([_shown(v) for v in values[:-1]])
            times = "twice" if len(values) == 2 else f"{len(values)} times"
            self.issue(f"{pointer(parts)} is written {times} in one object{where}: SONiC keeps the last, "
                       f"{_shown(values[-1])} (sonic-cfggen reads the file with Python's json.load), so {hidden} "
                       f"{'is' if len(values) == 2 else 'are'} not what the switch runs; delete the one not meant",
                       Source(file=doc.path, line=lines[0]) if lines else DocRef(doc, parts[:-1]))

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
                self.table_source.setdefault(table, DocRef(doc, prefix) if prefix else Source(file=doc.path))
                continue
            self.table_source.setdefault(table, DocRef(doc, (*prefix, table)))
            if not isinstance(value, dict):
                self.issue(f"table {table} is not a JSON object of entries; skipped", DocRef(doc, (*prefix, table)))
                continue
            if value and table not in self.tables and not prefix and table in DEFERRED:
                for fields in value.values():  # (the usual table's test below, without its entries)
                    if type(fields) is not dict or ("type" in fields and fields["type"] == "hash"):
                        break
                else:
                    self.tables[table] = value
                    self._deferred[table] = doc
                    continue
            if value and table not in self.tables:  # the usual table: its first file, every entry an object of fields
                # Entry(table, key, fields, doc, parts) written out in the loop (a switch has about a thousand entries:
                # the call was a fifth of their cost).
                made: dict[str, Entry] = {}
                for key, fields in value.items():
                    if type(fields) is not dict or ("type" in fields and fields["type"] == "hash"):
                        break
                    if prefix:
                        made[key] = e = _new(Entry)
                        e.parts = (*prefix, table, key)
                    else:
                        made[key] = e = _new(_Nested)
                    e.doc = doc
                    e.table = table
                    e.key = key
                    e.fields = fields
                else:
                    self.tables[table] = made
                    continue
            if table in self._deferred:  # a later file's entries merge with the earlier file's entries
                self._undefer(table)
            rows = None  # (entry by entry, when some are not plain objects: they are reported or unwrapped in order)
            for key, fields in value.items():
                if rows is not None and type(fields) is dict and key not in rows and fields.get("type") != "hash":
                    # the usual entry, inline
                    rows[key] = Entry(table, key, fields, doc, (*prefix, table, key) if prefix else (table, key))
                    continue
                self._entry(doc, table, key, fields, (*prefix, table, key))
                rows = self.tables.get(table)
        if not seen and not prefix:
            self.issue("no CONFIG_DB table losslessd reads; file skipped", Source(file=doc.path, line=1))
        return seen

    def _entry(self, doc: Doc, table: str, key: str, fields, parts: tuple) -> None:
        if table in self._deferred:
            self._undefer(table)
        if fields is None:
            # A patch's deletion: `config load` (sonic-cfggen --write-to-db, ConfigDBConnector.mod_entry) deletes a
            # key whose value is null.
            self.tables.get(table, {}).pop(key, None)
            return
        if type(fields) is not dict or fields.get("type") == "hash":
            if isinstance(fields, dict) and fields.get("type") == "hash" and isinstance(fields.get("value"), dict):
                fields, parts = fields["value"], (*parts, "value")  # redis-dump wrapper with expireat/ttl
            if not isinstance(fields, dict):
                self.issue(f"{table} entry {key!r} is not a JSON object of fields; skipped", DocRef(doc, parts))
                return
        entry = Entry(table, key, fields, doc, parts)
        rows = self.tables.setdefault(table, {})
        old = rows.get(key)
        rows[key] = entry if old is None else old.merged(entry)
