"""Apply a snippet to a config text offline, the way the device would take it, one function per config shape.

Used to show a unified diff of what a fix changes and to lint the result before anyone pastes it.
Each function is a small model of the platform's semantics, not the platform itself (docs/fix.md
lists the limits): it never reorders what it does not touch, so the diff shows only the fix.
Beside each apply function, a ``*_changes`` function cuts a rendered snippet down to what it changes
in the current config by the same rules: what it drops, applying it would not have changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

from .. import rfc6902
from ..errors import InputError
from ..parse.clitext import tab_blocks, tab_width_lines
from ..parse.eos.flat import renest as eos_renest
from ..parse.eos.reader import outdent_ports as eos_ports
from ..parse.eos.reader import session_config as eos_session
from ..parse.mlx5 import is_state as mlx5_state
from ..parse.nvue import is_commands as nvue_commands
from ..parse.nxos.reader import outdent_ports as nxos_ports
from ..parse.nxos.reader import renest_paste as nxos_renest
from ..parse.nxos.reader import session_config as nxos_session
from ..parse.sonic import index_range, takes_bracketed_refs
from ..parse.sonic.configdb import is_namespaced
from ..platforms import PLATFORMS
from ..sorting import natural_key

# CONFIG_DB tables keyed "<ports>|<indexes>" (a VOQ chassis: "<host>|<asic>|<port>|<indexes>"), where one key may
# cover several ports ("Ethernet0,Ethernet4|3", bufferorch/qosorch split on ',') or indexes ("Ethernet0|3-4").
RANGE_KEYED = ("QUEUE", "BUFFER_PG", "BUFFER_QUEUE")
APPLY_PATCH = "sudo config apply-patch FILE"  # sonic-utilities config/main.py `apply-patch`: an RFC 6902 JSON Patch
LOAD = "sudo config load FILE"  # `sonic-cfggen -j FILE --write-to-db`: a table/key/field merge


def _cells(key: str) -> list[tuple[str, str, int]] | None:
    """The (prefix, port, index) a range key covers as orchagent reads it (parse.sonic.index_range):
    "Ethernet0,Ethernet4|3-4" -> 4 cells; None for other keys."""
    head, bar, span = key.rpartition("|")
    prefix, _, ports = head.rpartition("|")
    try:
        indexes = index_range(span)[0] if bar else ()
    except ValueError:
        return None
    names = [p.strip() for p in ports.split(",") if p.strip()]
    return [(prefix, name, i) for name in names for i in indexes] or None


def split_patch(current: dict, fragment: dict) -> list[dict] | None:
    """The fragment as an RFC 6902 patch of ``current`` where some of its keys fall inside another key of the device
    ("Ethernet0|3" inside "Ethernet0|3-4"): each such device key is removed and added back as one key per port and
    index, with its fields and the fragment's over them, so no two keys cover one PG or queue (SONiC would apply
    them in no defined order); the rest merges as `config load` would. None when no key needs splitting (the
    fragment merges as it is)."""
    split: dict[str, list[str]] = {}
    for table in RANGE_KEYED:
        have, wanted = current.get(table), fragment.get(table)
        if not isinstance(have, dict) or not isinstance(wanted, dict):
            continue
        cover = {cell: key for key in have for cell in _cells(key) or ()}
        inside = {cover[cell] for key in wanted if key not in have for cell in _cells(key) or () if cell in cover}
        if inside:
            split[table] = sorted(inside)
    if not split:
        return None
    ops: list[dict] = []
    rest = {table: dict(entries) for table, entries in fragment.items()}
    after = {table: dict(entries) for table, entries in current.items()}
    for table, olds in split.items():
        for old in olds:
            ops.append({"op": "remove", "path": rfc6902.pointer(table, old)})
            fields = after[table].pop(old)
            for prefix, port, index in _cells(old) or ():
                key = f"{prefix}|{port}|{index}" if prefix else f"{port}|{index}"
                after[table][key] = {**fields, **rest[table].pop(key, {})}
                ops.append({"op": "add", "path": rfc6902.pointer(table, key), "value": after[table][key]})
    return ops + rfc6902.merge_ops(after, {table: entries for table, entries in rest.items() if entries})


# Fields a fragment's entry replaces: a port classifies by its dscp_to_tc_map while one is bound, whatever its
# dot1p_to_tc_map (parse.sonic _qos_recipe), so an entry that binds the DOT1P map (PCP trust) takes the DSCP map off.
# `config load` merges fields and cannot remove one; `config apply-patch` can, with a remove op on the field's path,
# /PORT_QOS_MAP/Ethernet0/dscp_to_tc_map (sonic-utilities Generic Config Updater, the "GCU Port-Binding Replacement"
# design: PORT_QOS_MAP's bindable fields addressed as /PORT_QOS_MAP/<port>/<field>).
REPLACED_FIELDS = {"PORT_QOS_MAP": {"dot1p_to_tc_map": ("dscp_to_tc_map",)}}


def removals(current: dict, fragment: dict) -> list[dict]:
    """The RFC 6902 remove ops for the fields of ``current`` that the fragment's entries replace (REPLACED_FIELDS)."""
    ops = []
    for table, replacing in REPLACED_FIELDS.items():
        have, wanted = current.get(table), fragment.get(table)
        if not isinstance(have, dict) or not isinstance(wanted, dict):
            continue
        for key, entry in wanted.items():
            old = have.get(key)
            if isinstance(entry, dict) and isinstance(old, dict):
                ops += [{"op": "remove", "path": rfc6902.pointer(table, key, gone)}
                        for field, fields in replacing.items() if field in entry for gone in fields if gone in old]
    return ops


def _ops(current: dict, fragment: dict) -> list[dict]:
    """The fragment as an RFC 6902 patch of one CONFIG_DB: merged as `config load` would (keys split: split_patch),
    then the fields it replaces removed."""
    return (split_patch(current, fragment) or rfc6902.merge_ops(current, fragment)) + removals(current, fragment)


# The reference fields of the tables render writes, and the table each names (sonic-swss orchagent qosorch.cpp
# qos_to_ref_table_map, bufferorch.cpp buffer_to_ref_table_map; a profile_list is a ','-separated list of them,
# resolveFieldRefArray). render writes names alone, as SONiC 202111 and later take them; a release up to 202106 takes
# only `[TABLE|name]` (orch.cpp parseReference: "Must be surrounded by [ ]"), and never applies an entry otherwise.
_REFERENCES = {
    "PORT_QOS_MAP": {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
                     "tc_to_queue_map": "TC_TO_QUEUE_MAP", "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
                     "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
                     "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE"},
    "QUEUE": {"scheduler": "SCHEDULER", "wred_profile": "WRED_PROFILE"},
    "BUFFER_PG": {"profile": "BUFFER_PROFILE"},
    "BUFFER_QUEUE": {"profile": "BUFFER_PROFILE"},
    "BUFFER_PROFILE": {"pool": "BUFFER_POOL"},
    "BUFFER_PORT_INGRESS_PROFILE_LIST": {"profile_list": "BUFFER_PROFILE"},
    "BUFFER_PORT_EGRESS_PROFILE_LIST": {"profile_list": "BUFFER_PROFILE"},
}


SONIC_RELEASES = ("the references (maps, scheduler, WRED and buffer profiles, pool) are written as names alone, for "
                  "SONiC 202111 and later; a switch on 202106 or before (VERSIONS|DATABASE VERSION version_2_0_2 or "
                  "below) takes only `[TABLE|name]` and never applies an entry otherwise (sonic-swss orch.cpp "
                  "parseReference): render with --device FILE, or run fix, to write the form the switch's release "
                  "takes")


def release_refs(config_dbs: Iterable[dict], fragment: dict) -> dict:
    """``fragment`` with its references in the form the device's release takes: `[TABLE|name]` where a CONFIG_DB of the
    device names a release up to 202106 (parse.sonic.takes_bracketed_refs), else as rendered (names alone)."""
    if not any(takes_bracketed_refs(db) for db in config_dbs):
        return fragment
    out: dict = {}
    for table, entries in fragment.items():
        refs = _REFERENCES.get(table)
        if refs is None or not isinstance(entries, dict):
            out[table] = entries
            continue
        out[table] = {key: {f: _bracketed(refs[f], v, f == "profile_list") if f in refs and isinstance(v, str) else v
                            for f, v in fields.items()} if isinstance(fields, dict) else fields
                      for key, fields in entries.items()}
    return out


def _bracketed(table: str, value: str, listed: bool) -> str:
    """A reference (a list of them where ``listed``) as `[TABLE|name]`; one already so, empty, or the dynamic buffer
    model's "NULL" profile (taken as it is: sonic-swss 202106 buffermgrdyn.cpp, `value != "NULL"`) as it is."""
    names = value.split(",") if listed else [value]
    return ",".join(name if not name or name == "NULL" or name.startswith("[") else f"[{table}|{name}]"
                    for name in names)


def sonic_snippet(current: dict[str | None, dict], snippet: str) -> str:
    """A rendered CONFIG_DB fragment as the device takes it, ``current`` being its CONFIG_DB per namespace
    (parse.sonic.config_db): itself (`config load`), or an RFC 6902 patch (`config apply-patch`) where it must split a
    key of the device or remove a field (REPLACED_FIELDS); on a multi-ASIC device always a patch whose paths name each
    namespace (namespaced_patch). References are written as the device's release takes them (release_refs)."""
    fragment = json.loads(snippet)
    released = release_refs(current.values(), fragment)
    if released is not fragment:
        fragment, snippet = released, json.dumps(released, indent=2) + "\n"
    if None in current:
        if split_patch(current[None], fragment) is None and not removals(current[None], fragment):
            return snippet
        return _patch_text(_ops(current[None], fragment))
    return _patch_text(namespaced_patch(current, fragment))


# Multi-ASIC: `config load` takes one file per namespace (sonic-utilities config/main.py `load`: a single file is
# refused), while `config apply-patch` takes one patch whose paths begin with the namespace, `/asic0/...` or
# `/localhost/...` (sonic-utilities generic_config_updater/generic_updater.py extract_scope; a path without one is
# refused: "Multi ASIC must have namespace prefix in path").
# Tables keyed by port (or "<ports>|<indexes>"): an entry goes to the namespace whose PORT holds its port; their
# GLOBAL/global keys and every other table (maps, profiles, pools, schedulers) go to each ASIC namespace, as each
# ASIC's own CONFIG_DB must hold what its ports refer to (sonic-buildimage qos_config.j2 and buffers_config.j2 are
# rendered per ASIC namespace).
PORT_KEYED = ("PORT", "PORT_QOS_MAP", "PFC_WD", "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST",
              *RANGE_KEYED)
# Tables whose entries' fields are ports: Configuration.md "Cable length", CABLE_LENGTH|AZURE {"Ethernet0": "5m"}.
PORT_FIELDS = ("CABLE_LENGTH",)
_DEVICE_WIDE = ("GLOBAL", "global")
# Tables whose values render may take from the device (the pool size, the egress profiles it restates): on a
# multi-ASIC switch, from the first ASIC's; written to every ASIC only where they all hold the same.
RESTATED = ("BUFFER_POOL", "BUFFER_PROFILE")


def namespaced_patch(current: dict[str | None, dict], fragment: dict) -> list[dict]:
    """A fragment rendered for a whole multi-ASIC switch as one RFC 6902 patch of its namespaces: each entry put in
    the namespace(s) it belongs to (PORT_KEYED, PORT_FIELDS), then merged there as `config load` would, keys to split
    split as on a single ASIC (split_patch). InputError for a port no namespace's PORT holds, and for a pool or
    buffer profile whose ASICs disagree on a value the fragment writes (losslessd took it from one ASIC's)."""
    namespaces = sorted((ns for ns in current if ns is not None), key=natural_key)
    home: dict[str, str] = {}  # port -> namespace (a port in two keeps the first, as the parser does)
    for ns in namespaces:
        for port in current[ns].get("PORT", {}):
            home.setdefault(port, ns)
    asics = sorted(set(home.values()), key=natural_key) or [ns for ns in namespaces if ns != "localhost"]
    parts: dict[str, dict[str, dict]] = {}
    for table, entries in fragment.items():
        for key, value in entries.items():
            for ns, at, fields in _placed(table, key, value, home, asics, current):
                parts.setdefault(ns, {}).setdefault(table, {})[at] = fields
    ops: list[dict] = []
    for ns in sorted(parts, key=natural_key):
        have = current.get(ns, {})
        for op in _ops(have, parts[ns]):
            ops.append({**op, "path": rfc6902.pointer(ns) + op["path"]})
    return ops


def _placed(table: str, key: str, value, home: dict[str, str], asics: list[str],
            current: dict[str | None, dict]) -> list[tuple[str, str, object]]:
    """(namespace, key, value) for one entry of a fragment (namespaced_patch)."""
    if table in PORT_FIELDS and isinstance(value, dict):
        split: dict[str, dict] = {}
        for port, field in value.items():
            split.setdefault(_home_of(port, table, home), {})[port] = field
        return [(ns, key, fields) for ns, fields in split.items()]
    if table in PORT_KEYED and key not in _DEVICE_WIDE:
        head, bar, index = key.rpartition("|") if table in RANGE_KEYED else ("", "", "")
        prefix, _, names = head.rpartition("|") if bar else ("", "", key)
        by_ns: dict[str, list[str]] = {}
        for name in (n.strip() for n in names.split(",") if n.strip()):
            by_ns.setdefault(_home_of(name, table, home), []).append(name)
        return [(ns, "|".join(p for p in (prefix, ",".join(ports), index) if p) if bar else ",".join(ports), value)
                for ns, ports in by_ns.items()]
    if "@" in key and key.rpartition("@")[2] in current:  # (parse.sonic: ASICs' same-named pools that differ)
        raise InputError(f"a multi-ASIC switch whose ASICs' {table}|{key.rpartition('@')[0]} differ: losslessd renders "
                         "one for the whole switch and writes no per-ASIC one; make them alike first")
    if table in RESTATED and isinstance(value, dict):  # one value for every ASIC: theirs must not differ
        held = {ns: current.get(ns, {}).get(table, {}).get(key) for ns in asics}
        for name in value:
            seen = {ns: have.get(name) for ns, have in held.items() if isinstance(have, dict) and name in have}
            if len(set(map(str, seen.values()))) > 1:
                shown = "; ".join(f"{ns}: {v}" for ns, v in seen.items())
                raise InputError(f"a multi-ASIC switch whose ASICs differ on {table}|{key} {name} ({shown}): losslessd "
                                 "renders one value for the whole switch and writes no per-ASIC one; make the "
                                 "ASICs' values alike first")
    return [(ns, key, value) for ns in asics]


def _home_of(port: str, table: str, home: dict[str, str]) -> str:
    ns = home.get(port)
    if ns is None:
        raise InputError(f"{table} names port {port}, which no namespace's PORT table of this multi-ASIC switch holds: "
                         "losslessd cannot tell which ASIC's CONFIG_DB it belongs to; name the switch's own ports")
    return ns


def sonic_patch(running: dict, fragment: dict) -> list[dict]:
    """The RFC 6902 patch that writes a CONFIG_DB fragment into a switch's running CONFIG_DB as `show
    runningconfiguration all` prints it (on a multi-ASIC switch, an object of namespaces): what `tune --apply`
    pushes."""
    if is_namespaced(running):
        return namespaced_patch(running, release_refs(running.values(), fragment))
    return _ops(running, release_refs([running], fragment))


def sonic_applied(current: dict[str | None, dict], snippet: str) -> dict[str | None, dict]:
    """``current`` (parse.sonic.config_db) after a snippet sonic_snippet made for it: what the next part is made
    against."""
    if None in current:
        return {None: merge_db(current[None], snippet)}
    return rfc6902.apply(current, json.loads(snippet))


def _patch_text(patch: list[dict]) -> str:
    """A JSON patch, one operation a line."""
    return "[\n" + ",\n".join(f"  {json.dumps(op)}" for op in patch) + "\n]\n"


def is_patch(snippet: str) -> bool:
    """A JSON Patch (a list of operations) rather than a CONFIG_DB fragment (an object of tables)."""
    return snippet.lstrip().startswith("[")


def applied_with(snippet: str) -> str:
    """The command that applies a SONiC snippet on the switch."""
    return APPLY_PATCH if is_patch(snippet) else LOAD


def merge_json(current: str, snippet: str) -> str:
    """SONiC CONFIG_DB: table/key/field merge, as `config load` and `sonic-cfggen --write-to-db` write
    (a field is set, the key's other fields stay; a key whose value is null is deleted, ConfigDBConnector.mod_entry);
    an RFC 6902 patch as `config apply-patch` applies it.
    Indentation is taken from the current file."""
    db = merge_db(json.loads(current), snippet)
    return json.dumps(db, indent=_indent(current)) + ("\n" if current.endswith("\n") else "")


def merge_db(db: dict, snippet: str) -> dict:
    """``db`` (changed in place for a fragment, copied for a patch) with a SONiC snippet applied (merge_json)."""
    if is_patch(snippet):
        return rfc6902.apply(db, json.loads(snippet))
    for table, entries in json.loads(snippet).items():
        into = db.get(table)
        if not isinstance(into, dict):  # absent, or not a table (the parser skipped it): the patch's replaces it
            into = db[table] = {}
        for key, fields in entries.items():
            if fields is None:
                into.pop(key, None)
            elif isinstance(fields, dict) and isinstance(into.get(key), dict):
                into[key].update(fields)
            else:
                into[key] = fields
    return db


def json_changes(current: str, snippet: str) -> str:
    """The CONFIG_DB patch without the fields the current config already has (keys and tables left
    empty go too), in the layout templates/sonic writes: a table per block, a key per line. An RFC 6902 patch
    (sonic_snippet) was made against the config it applies to and changes only what differs: it stays whole; a
    fragment that must split a key of the config becomes one (split_patch)."""
    if is_patch(snippet):
        return snippet
    db, patch = json.loads(current), json.loads(snippet)
    split = split_patch(db, patch)
    if split is not None:
        return _patch_text(split)
    out: dict[str, dict] = {}
    for table, entries in patch.items():
        have = db.get(table) if isinstance(db.get(table), dict) else {}
        for key, fields in entries.items():
            old = have.get(key)
            if isinstance(fields, dict) and isinstance(old, dict):
                fields = {name: value for name, value in fields.items() if old.get(name) != value}
                if fields:
                    out.setdefault(table, {})[key] = fields
            elif fields != old and not (fields is None and key not in have):  # (deleting what is not there)
                out.setdefault(table, {})[key] = fields
    if out == patch:
        return snippet
    if not out:
        return "{}\n"
    tables = [f'  {json.dumps(table)}: {{\n' + ",\n".join(f"    {json.dumps(key)}: {json.dumps(value)}"
                                                       for key, value in entries.items()) + "\n  }"
              for table, entries in out.items()]
    return "{\n" + ",\n".join(tables) + "\n}\n"


def _indent(text: str) -> int:
    for line in text.splitlines()[1:]:
        if line.strip():
            return len(line) - len(line.lstrip(" ")) or 4
    return 4


@dataclass
class _Node:
    """One config line (``raw`` as written; None for the root) and the lines indented under it."""

    raw: str | None
    children: list[_Node] = field(default_factory=list)
    shown: str | None = None  # the line as the file writes it, where ``raw`` is its re-nested form (_flat_tree)

    @property
    def text(self) -> str:
        return (self.raw or "").strip()

    @property
    def filler(self) -> bool:
        """`!` separators, comments and blank lines: kept in place, never matched."""
        return not self.text or self.text.startswith(("!", "#"))

    @property
    def line(self) -> bool:
        """A setting, not a block: nothing but fillers under it (a blank line after the last line of a block hangs
        under that line)."""
        return not self.filler and all(c.filler for c in self.children)

    def lines(self) -> list[str]:
        """Every line of the block in order; without recursion (a config may indent thousands of levels)."""
        out: list[str] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.raw is not None:
                out.append(node.raw if node.shown is None else node.shown)
            stack.extend(reversed(node.children))
        return out


def _tree(text: str, shown: list[str] | None = None) -> _Node:
    """Every line, nested by indentation (a `!` or blank line belongs to the block it is indented in); ``shown``: the
    file's own lines, where ``text`` is them re-nested (_flat_tree)."""
    root = _Node(None)
    stack: list[tuple[int, _Node]] = [(-1, root)]
    for i, raw in enumerate(text.split("\n")):
        body = raw.expandtabs(8)
        indent = len(body) - len(body.lstrip(" ")) if body.strip() else stack[-1][0] + 1
        while stack[-1][0] >= indent:
            stack.pop()
        node = _Node(raw, shown=shown[i] if shown is not None else None)
        stack[-1][1].children.append(node)
        stack.append((indent, node))
    return root


# NX-OS class-map `match` lines add to the class (`match dscp 24` beside `match dscp 26` matches both; only `no match
# dscp 26` takes one away: Nexus 9000 QoS guide, "Configuring Classification"): each line is its own setting.
NXOS_LISTS = ("match",)
# NX-OS `no service-policy type KIND [DIRECTION] NAME` detaches NAME (Nexus 9000 QoS guide, "Attaching and Detaching a
# QoS Policy Action"): the running config shows no line for it, and the system-defined default policy applies again.
NXOS_DETACHED = ("service-policy",)
# An NX-OS queuing class's scheduling: `priority [level N]`, or a share, `bandwidth percent N` or `bandwidth remaining
# percent N` (Nexus 9000 and 3000 QoS guides, "Configuring Queuing and Scheduling"). Whether a line of one kind replaces
# a line of another in the class, stands beside it, or is refused no Cisco document says (parse.nxos.reader.both_lines),
# so a snippet line of one kind goes in after the `no` form of each line of another kind its class holds, word for word
# (Cisco MQC command references, `priority` and `bandwidth`: the no form takes the class's setting away),
# and that `no` line removes that line only (as NXOS_DETACHED).
NXOS_EXCLUSIVE = ("priority", "bandwidth percent", "bandwidth remaining percent")
NXOS_REMOVED = NXOS_DETACHED + ("priority", "bandwidth")


def _listed(words: list[str], lists: tuple[str, ...]) -> bool:
    joined = " ".join(words[1:] if words[:1] == ["no"] else words)
    return any(joined == prefix or joined.startswith(prefix + " ") for prefix in lists)


def _setting(text: str, prefixes: tuple[str, ...], lists: tuple[str, ...] = ()) -> str:
    """What a line sets: a known command prefix, else the line without its last word (the value);
    `no X` sets the same thing as `X`; a line of a list command (``lists``) sets itself."""
    words = text.split()
    if words[0] == "no":
        words = words[1:] or words
    joined = " ".join(words)
    if _listed(words, lists):
        return joined
    for prefix in prefixes:
        if joined == prefix or joined.startswith(prefix + " "):
            return prefix
    return " ".join(words[:-1]) if len(words) > 1 else joined


def replay_cli(current: str, snippet: str, prefixes: tuple[str, ...] = (), lists: tuple[str, ...] = (),
               detached: tuple[str, ...] = (), nest: Callable[[str], str] | None = None,
               ports: Callable[[str], str] | None = None) -> str:
    """Hierarchical CLI (EOS, NX-OS) pasted in config mode: re-entering a block merges into it, a line
    replaces a sibling that sets the same thing (``prefixes`` name multi-value commands), `no X`
    replaces X, anything new goes at the end of its block (before a final `end`). A line of a list command
    (``lists``) adds to its block, and its `no` form removes that one line; so does the `no` form of a command
    in ``detached`` (the running config then shows neither). ``nest``: the platform's re-nesting of a paste that lost
    its indentation, ``ports`` its reading of `interface` lines a template indented (_flat_tree)."""
    root, flat = _flat_tree(current.rstrip("\n"), nest, ports)
    # (without its final newline, which _tree would hang under the last line as a filler child, making that line
    # a block that is added, never replacing the line it sets)
    # (the file's own nodes, held: a node _merge drops is freed, and a snippet node made after it may take its id)
    kept = _walk(root)
    own = {id(node) for node in kept}
    # (each block's depth as the file has it, taken before the merge: a block whose lines the snippet all replaces
    # keeps it too)
    depth = {id(node): _lead(line) for node in kept if (line := next(
        (c.shown if c.shown is not None else c.raw for c in node.children if not c.filler), None)) is not None}
    heads: dict[int, tuple[_Node, str]] = {}  # block -> the depth of the snippet's header merged into it (_merge)
    _merge(root, _tree(snippet.rstrip("\n")), prefixes, lists, detached, heads)
    # The snippet's lines written as the file writes its own: as far in as the lines the file has in their block (an
    # NX-OS port indented by one blank, as IOS-style generators write it, took the template's two: the reader then
    # read the added line as wrapped under the one above it, and the fix as not applied); in a paste that lost its
    # indentation, at the margin. A block with no lines in the file (one the file lacks, or its own header alone: EOS
    # and NX-OS print a port at its defaults so) keeps the template's indentation under its header, wherever the
    # header is: its lines at the header's own depth, or above it, left the block empty and them its siblings.
    for node in _walk(root):  # (headers before their lines)
        have = depth.get(id(node))
        if have is None and not flat:
            if node.raw is None:
                continue
            base = _lead(node.shown if node.shown is not None else node.raw)
            header = heads[id(node)][1] if id(node) in heads else _lead(node.raw)
            for c in node.children:
                if c.raw is not None and id(c) not in own:
                    c.shown = base + _lead(c.raw)[len(header):] + c.raw.lstrip()
            continue
        for c in node.children:
            if c.raw is not None and id(c) not in own:
                c.shown = (have or "") + c.raw.lstrip()
    return "\n".join(root.lines()) + "\n"


def _lead(line: str) -> str:
    """The blanks a line starts with."""
    return line[:len(line) - len(line.lstrip())]


def _walk(root: _Node) -> list[_Node]:
    """Every node of the tree, without recursion."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


def _flat_tree(text: str, nest: Callable[[str], str] | None,
               ports: Callable[[str], str] | None = None) -> tuple[_Node, bool]:
    """The config's tree, and whether the file is a paste that lost its indentation (every command at the margin, as
    EOS still reads it: losslessd.parse.eos.flat). Such a file is nested as the switch reads it, each line keeping the
    text the file gives it, so a fix merges into the blocks the switch has and its lines go in at the margin too (an
    indented line among margin ones made the file read as a running-config, every port's margin lines global)."""
    nested = nest(text) if nest is not None else text
    flat = nested != text
    # (an `interface` line a template indented inside another block is the margin line of its own, as the reader has
    # it: the snippet's port lines go into that block, written as the snippet writes them)
    nested = ports(nested) if ports is not None else nested
    if nested == text:
        return _tree(text), False
    return _tree(nested, text.split("\n")), flat


def _blocks(into: _Node | None) -> dict[str, _Node]:
    """The block of ``into`` that a pasted block header re-enters, by the header's text (the first with the same
    line). Made once per level, not searched per header: 4,000 pasted `interface` blocks over as many in the config
    took 16 s, 16,000 five minutes."""
    index: dict[str, _Node] = {}
    for c in into.children if into else ():
        if not c.filler:
            index.setdefault(c.text, c)
    return index


def _same_setting(into: _Node | None, node: _Node, prefixes: tuple[str, ...], lists: tuple[str, ...] = ()) -> list[int]:
    """Where ``into`` has lines (not blocks) that set what ``node`` sets."""
    key = _setting(node.text, prefixes, lists)
    return [i for i, c in enumerate(into.children)
            if c.line and _setting(c.text, prefixes, lists) == key] if into else []


def _merge(into: _Node, patch: _Node, prefixes: tuple[str, ...], lists: tuple[str, ...] = (),
           detached: tuple[str, ...] = (), heads: dict[int, tuple[_Node, str]] | None = None) -> None:
    """``patch``'s lines merged into ``into``; ``heads``: each block a header of the patch merged into -> that header's
    depth in the patch (replay_cli writes the block's new lines as far under the block as the patch has them)."""
    blocks: dict[str, _Node] | None = None  # (made again after a line below changed into's children)
    for node in patch.children:
        if node.filler:
            continue
        if node.children:
            if blocks is None:
                blocks = _blocks(into)
            block = blocks.get(node.text)
            if block is None:
                block = _Node(node.raw)
                _insert(into, block)
                blocks[block.text] = block
            if heads is not None:
                heads[id(block)] = (block, _lead(node.raw or ""))
            _merge(block, node, prefixes, lists, detached, heads)
            continue
        blocks = None
        words = node.text.split()
        if words[0] == "no" and _listed(words, detached):  # detaches that one line; one naming another does nothing
            into.children = [kept for c in into.children
                             for kept in ([c] if not c.line or c.text.split() != words[1:] else c.children)]
            continue
        same = _same_setting(into, node, prefixes, lists)
        if node.text.split()[0] == "no" and _listed(node.text.split(), lists):
            for i in reversed(same):  # the running config shows the list without the line, not the `no`
                del into.children[i]
        elif same:
            into.children[same[0]] = _Node(node.raw, into.children[same[0]].children)  # (its blank lines stay)
            for i in reversed(same[1:]):
                del into.children[i]
        else:
            _insert(into, _Node(node.raw))


def cli_changes(current: str, snippet: str, prefixes: tuple[str, ...] = (), detached: tuple[str, ...] = (),
                nest: Callable[[str], str] | None = None, exclusive: tuple[str, ...] = (),
                ports: Callable[[str], str] | None = None) -> str:
    """The snippet without the lines its block already has (a line that is the block's only one setting
    that thing, word for word), nor the `no` lines of ``detached`` commands whose line the block, where the config
    has it, does not have (a detach of what is not attached, which the switch may refuse); a block header stays
    while a line under it changes, and goes with the last of them. Comments and `!` separators stay, runs of them
    fold into one. A line of one of the ``exclusive`` commands goes after the `no` form of each line of another of
    them that its block holds (the switch may keep both, or refuse the line)."""
    patch = _tree(snippet.rstrip("\n"))
    _keep_changes(_flat_tree(current.rstrip("\n"), nest, ports)[0], patch, prefixes, detached, exclusive)
    lines = patch.lines()
    folded = [line for i, line in enumerate(lines) if not (i and line.strip() == lines[i - 1].strip() == "!")]
    return "\n".join(folded) + "\n"


def _keep_changes(into: _Node | None, patch: _Node, prefixes: tuple[str, ...], detached: tuple[str, ...] = (),
                  exclusive: tuple[str, ...] = ()) -> None:
    kept = []
    blocks = _blocks(into)  # (the config is not changed here: the patch is)
    for node in patch.children:
        words = node.text.split()
        if node.children:
            block = blocks.get(node.text)
            _keep_changes(block, node, prefixes, detached, exclusive)
            if block is None or not all(c.filler for c in node.children):
                kept.append(node)
        elif node.filler:
            kept.append(node)
        elif words[0] == "no" and _listed(words, detached):
            # Cut only where the block is in the config without the line (an earlier part detached it). A block not
            # found by its text may be the same port written another way (`interface eth1/41-42`, `eth1/43`): the
            # render detaches only what the parser read as attached there, so the line stays.
            if into is None or any(c.line and c.text.split() == words[1:] for c in into.children):
                kept.append(node)
        else:
            kept += _unset_others(into, node, exclusive)
            same = _same_setting(into, node, prefixes)
            if not (len(same) == 1 and into.children[same[0]].text.split() == node.text.split()):
                kept.append(node)
    patch.children = kept


def unset_exclusive(current: str, snippet: str, exclusive: tuple[str, ...]) -> str:
    """The whole snippet with, before each line of one of the ``exclusive`` commands, the `no` form of each line of
    another of them that the config's block holds (as cli_changes writes them): what `render --device` prints."""
    patch = _tree(snippet.rstrip("\n"))
    _with_unsets(_tree(current.rstrip("\n")), patch, exclusive)
    return "\n".join(patch.lines()) + "\n"


def _with_unsets(into: _Node | None, patch: _Node, exclusive: tuple[str, ...]) -> None:
    blocks = _blocks(into)
    out: list[_Node] = []
    for node in patch.children:
        if node.children:
            _with_unsets(blocks.get(node.text), node, exclusive)
        elif not node.filler:
            out += _unset_others(into, node, exclusive)
        out.append(node)
    patch.children = out


def _unset_others(into: _Node | None, node: _Node, exclusive: tuple[str, ...]) -> list[_Node]:
    """The `no` lines, indented as ``node``, of the lines of ``into`` that set another of the ``exclusive`` commands
    than ``node`` does (none where ``node`` sets none of them)."""
    mine = [prefix for prefix in exclusive if _listed(node.text.split(), (prefix,))]
    if not mine or into is None or node.text.split()[0] == "no":
        return []
    indent = node.raw[:len(node.raw) - len(node.raw.lstrip())] if node.raw else ""
    return [_Node(f"{indent}no {c.text}") for c in into.children
            if c.line and c.text.split()[0] != "no" and not _listed(c.text.split(), tuple(mine))
            and _listed(c.text.split(), exclusive)]


nxos_unsets = partial(unset_exclusive, exclusive=NXOS_EXCLUSIVE)


def _insert(into: _Node, node: _Node) -> None:
    """After the block's last real line (so trailing `!` separators and a final `end` stay last)."""
    at = len(into.children)
    while at and (into.children[at - 1].filler or (into.raw is None and into.children[at - 1].text == "end")):
        at -= 1
    into.children.insert(at, node)


def replace_set_lines(current: str, snippet: str) -> str:
    """Set-style configs (NVUE `nv set`, Junos `set`): a `set PATH VALUE` takes the place of the current
    lines that set the same PATH (so readers that care about order see it where the old value was);
    `unset`/`delete PATH` removes the current lines at or below PATH; new paths are appended. Two snippet
    lines never replace each other: a leaf-list takes both."""
    lines: list[tuple[str, bool]] = [(line, False) for line in current.rstrip("\n").split("\n")]  # (text, from snippet)
    for raw in snippet.split("\n"):
        verb, path = _verb_path(raw)
        if verb in ("unset", "delete"):
            gone = " ".join(path) + " "
            lines = [(t, new) for t, new in lines if new or not (_tagged_path(t) + " ").startswith(gone)]
        elif verb == "set" and path:
            target = " ".join(path[:-1])
            same = [i for i, (t, new) in enumerate(lines) if not new and _set_path(t, drop_value=True) == target]
            if same:
                lines[same[0]] = (raw, True)
                lines = [entry for i, entry in enumerate(lines) if i not in same[1:]]
            else:
                lines.append((raw, True))
    return "\n".join(t for t, _ in lines) + "\n"


def _tagged_path(line: str) -> str:
    """The path a `set` line sets, or a Junos `deactivate`/`activate` line tags: `delete PATH` removes the statement
    with its inactive: tag (Junos CLI guide, "delete"), so a `deactivate` left behind would tag what the snippet
    sets there next."""
    verb, path = _verb_path(line)
    return " ".join(path) if verb in ("deactivate", "activate") else _set_path(line)


def set_changes(current: str, snippet: str) -> str:
    """The snippet without `set` lines the config already has, each the only line setting its path, word for
    word (unless an `unset`/`delete` earlier in the snippet removes it first)."""
    have: dict[str, list[str]] = {}
    for line in current.split("\n"):
        have.setdefault(_set_path(line, drop_value=True), []).append(" ".join(line.split()))
    kept, gone = [], []
    for raw in snippet.rstrip("\n").split("\n"):
        verb, path = _verb_path(raw)
        if verb in ("unset", "delete"):
            gone.append(" ".join(path) + " ")
        elif have.get(_set_path(raw, drop_value=True)) == [" ".join(raw.split())] \
                and not any((" ".join(path) + " ").startswith(deleted) for deleted in gone):
            continue
        kept.append(raw)
    return "\n".join(kept) + "\n"


def _verb_path(line: str) -> tuple[str, list[str]]:
    """The verb of a set-style line (`set`, `unset`, `delete`; a comment's `#`) and the path words after it;
    a leading `nv` is skipped."""
    words = line.split()
    lead = 1 if words[:1] == ["nv"] else 0
    return (words[lead] if len(words) > lead else ""), words[lead + 1:]


def _set_path(line: str, drop_value: bool = False) -> str:
    verb, path = _verb_path(line)
    if verb != "set":
        return "\x00"  # not a set line: never matches a path
    return " ".join(path[:-1] if drop_value else path)


def junos_set_form(text: str) -> str:
    """A Junos config in `display set` form (parse.junos.reader.display_set; the reader is imported when a Junos fix
    needs it, not with this module)."""
    from ..parse.junos.reader import display_set

    return display_set(text)


def replace_keys(current: str, snippet: str) -> str:
    """Key-value files (opensm.conf): a `key value` line takes the place of the key's lines (OpenSM reads
    the last, so none may stay after it), else is appended."""
    lines = current.rstrip("\n").split("\n")
    for raw in snippet.split("\n"):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        at = _key_lines(lines, words[0])
        if at:
            lines[at[0]] = raw
            lines = [line for i, line in enumerate(lines) if i not in at[1:]]
        else:
            lines.append(raw)
    return "\n".join(lines) + "\n"


def _key_lines(lines: list[str], key: str) -> list[int]:
    return [i for i, line in enumerate(lines) if line.split()[:1] == [key]]


def key_changes(current: str, snippet: str) -> str:
    """The snippet without `key value` lines the file already has (its only line for that key, word for
    word), and without the comments above a run of option lines that all go. The first line, a comment
    saying what the snippet is, stays."""
    lines = current.split("\n")
    rows = snippet.rstrip("\n").split("\n")
    out = rows[:1] if rows[0].lstrip().startswith("#") else []
    notes: list[str] = []  # comments waiting for a kept option line of their run
    after_option = False
    for raw in rows[len(out):]:
        words = raw.split()
        if not words or words[0].startswith("#"):
            if after_option:  # a new run begins: the last one's comments had nothing left to describe
                notes, after_option = [], False
            notes.append(raw)
            continue
        after_option = True
        at = _key_lines(lines, words[0])
        if len(at) == 1 and lines[at[0]].split("#", 1)[0].split() == words:
            continue
        out += notes + [raw]
        notes = []
    return "\n".join(out) + "\n"


def every_line(current: str, snippet: str) -> str:
    """A script's every command counts, in order: one it already has may still undo a later one."""
    del current
    return snippet


def append(current: str, snippet: str) -> str:
    """A script runs after what is there: the snippet goes at the end (without its #! line, which only
    counts as the first line of a file)."""
    return current.rstrip("\n") + "\n" + (snippet.split("\n", 1)[1] if snippet.startswith("#!") else snippet)


# What a fix's user does about a file whose blocks depend on a tab's width (Shape.current).
FIX_REMEDY = "re-indent the file with spaces (the switch writes no tab), then run fix again"


@dataclass(frozen=True)
class Shape:
    """How a platform's config takes a snippet, and which of a snippet's lines change it."""

    apply: Callable[[str, str], str]
    changes: Callable[[str, str], str]
    # The current config as ``apply`` writes it back, so a diff shows only the fix.
    normalize: Callable[[str], str] = str
    # A script: where a device's input is its state (a capture, a bare output: ``state``), the printed script changes
    # that state (no config text to diff); None: the platform's configs are text a snippet goes into.
    state: Callable[[str], bool] | None = None
    # The command that applies a snippet on the device, where the platform has one for files (SONiC).
    applied_with: Callable[[str], str | None] = lambda snippet: None
    # What the diff labels a config that ``normalize`` turned into another form (Junos curly braces -> set lines).
    normal_form: str | None = None
    # Whether a config text is in the form the snippet's lines apply to (None: every one is); where it is not (an
    # NVUE YAML tree, the snippet `nv set` commands), the fix is checked by reading the config and the snippet
    # together, without a diff, and ``other_form`` says why.
    takes: Callable[[str], bool] | None = None
    other_form: str = ""
    # The platform's blocks are lines indented under their header (EOS, NX-OS): a file whose blocks depend on a tab's
    # width is refused (current), as lint warns (SYS002).
    indented: bool = False

    def current(self, text: str, path: str, remedy: str = FIX_REMEDY) -> str:
        """``text`` (the file at ``path``) as ``apply`` takes it (normalize). InputError naming the file and line where
        its indentation mixes tabs and spaces so that a line's block depends on a tab's width: the merge would read
        tabs as 8 columns and could put the fix's lines into another block than the one the operator sees. ``remedy``:
        what the caller's user does about it (tune's is a running config, no file to edit)."""
        if self.indented and (found := tab_width_lines(text)):
            number, wide, narrow = found[0]
            raise InputError(f"the indentation mixes tabs and spaces so that the block this line belongs to depends "
                             f"on a tab's width ({tab_blocks(wide, narrow)}), so lines merged into it could land "
                             f"in another block than the one you see: {remedy}", file=path, line=number)
        return self.normalize(text)


# EOS commands whose value is several words (thresholds, units, probability).
EOS_SETTINGS = ("random-detect ecn minimum-threshold",)
# A flat EOS paste indented as EOS reads it, its `exit` and `end` kept: fix writes the file back (eos.flat.renest).
EOS_NEST = partial(eos_renest, blank_exits=False)

# A configuration-session transcript (prompts, output) is no file a snippet goes into: its commands as the config they
# make (the reader's own reading of it) are.
SESSION_FORM = "as the configuration session's commands make it"


def _session_config(session: Callable[[str], str | None], text: str) -> str:
    made = session(text)
    return text if made is None else made.rstrip("\n") + "\n"  # (the blanked output after the last command: gone)


# By the name a platform record gives (losslessd.platforms, Platform.fix).
SHAPE_NAMES: dict[str, Shape] = {
    # json.dumps re-indents a CONFIG_DB file whole: compare it with itself written back the same way.
    "config_db": Shape(merge_json, json_changes, lambda current: merge_json(current, "{}"), applied_with=applied_with),
    "eos_cli": Shape(partial(replay_cli, prefixes=EOS_SETTINGS, nest=EOS_NEST, ports=eos_ports),
                     partial(cli_changes, prefixes=EOS_SETTINGS, nest=EOS_NEST, ports=eos_ports),
                     normalize=partial(_session_config, eos_session), normal_form=SESSION_FORM, indented=True),
    "nxos_cli": Shape(partial(replay_cli, lists=NXOS_LISTS, detached=NXOS_REMOVED, nest=nxos_renest, ports=nxos_ports),
                      partial(cli_changes, detached=NXOS_REMOVED, exclusive=NXOS_EXCLUSIVE, nest=nxos_renest,
                              ports=nxos_ports),
                      normalize=partial(_session_config, nxos_session), normal_form=SESSION_FORM, indented=True),
    # NVUE: `nv set` commands apply to a file of them; a startup.yaml or `nv config show` tree takes them on the switch.
    "set_lines": Shape(replace_set_lines, set_changes, takes=nvue_commands,
                       other_form="the config is an NVUE YAML tree (startup.yaml, `nv config show`), the fix `nv set` "
                                  "commands: run them, then `nv config apply`"),
    # Junos: a set snippet goes into the `display set` form of a curly-brace configuration (Junos loads a file in one
    # form or the other), so the diff and the lint of the result show the set lines the switch would hold.
    "junos_set": Shape(replace_set_lines, set_changes, normalize=junos_set_form,
                       normal_form="as `show configuration | display set` prints it"),
    "key_value": Shape(replace_keys, key_changes),
    "script": Shape(append, every_line, state=mlx5_state),
}
SHAPES: dict[str, Shape] = {p.id: SHAPE_NAMES[p.fix] for p in PLATFORMS.values() if p.fix}
