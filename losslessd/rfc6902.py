"""RFC 6902 JSON Patch on a SONiC CONFIG_DB, as `config apply-patch` takes it (sonic-utilities generic_config_updater:
the patch is applied to the running CONFIG_DB with jsonpatch, then validated and sorted into steps).

One home for the three users: `tune --apply` pushes its changes as a patch, `fix`/`render` write one where a key must
be split (a `config load` merge cannot remove a key), and the simulator's `config apply-patch` applies them.
"""

from __future__ import annotations

import json


def pointer(*parts: str) -> str:
    """An RFC 6901 JSON pointer."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def apply(doc, patch: list[dict]):
    """RFC 6902 add, replace and remove on ``doc`` (a copy is changed); JSON pointers per RFC 6901."""
    doc = json.loads(json.dumps(doc))
    if not isinstance(patch, list):
        raise ValueError("a JSON patch is a list of operations")
    for op in patch:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        if not parts:
            raise ValueError("the whole document cannot be patched")
        parent = doc
        for p in parts[:-1]:
            parent = parent[p] if isinstance(parent, dict) else parent[int(p)]
        last = parts[-1]
        if op["op"] in ("add", "replace"):
            if op["op"] == "replace" and last not in parent:
                raise KeyError(f"replace: no {op['path']}")
            parent[last] = op["value"]
        elif op["op"] == "remove":
            del parent[last]
        else:
            raise ValueError(f"operation {op['op']!r} is not supported")
    return doc


def merge_ops(current: dict, snippet: dict) -> list[dict]:
    """The `add` operations that merge a CONFIG_DB fragment into ``current`` the way `config load` would (a field is
    set, the key's other fields stay): a missing table or key is added whole, a field that already has its value is
    left out."""
    ops = []
    for table, entries in snippet.items():
        if table not in current:
            ops.append({"op": "add", "path": pointer(table), "value": entries})
            continue
        for key, fields in entries.items():
            have = current[table].get(key)
            if not isinstance(have, dict) or not isinstance(fields, dict):
                if have != fields:
                    ops.append({"op": "add", "path": pointer(table, key), "value": fields})
                continue
            for name, value in fields.items():
                if have.get(name) != value:
                    ops.append({"op": "add", "path": pointer(table, key, name), "value": value})
    return ops
