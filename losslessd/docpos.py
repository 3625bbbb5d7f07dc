"""Load YAML or JSON while keeping line numbers, so errors can name file:line for a path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError


class Document:
    """A parsed YAML/JSON document plus a map from JSON pointer to 1-based line."""

    def __init__(self, data: Any, lines: dict[str, int], file: str):
        self.data = data
        self.lines = lines
        self.file = file

    def line_of(self, path: list[str | int] | tuple) -> int | None:
        """Line of the deepest existing prefix of ``path``."""
        parts = [str(p) for p in path]
        while True:
            line = self.lines.get(pointer(parts))
            if line is not None or not parts:
                return line
            parts = parts[:-1]


def pointer(parts: list | tuple) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _walk(node: yaml.Node, parts: list[str], lines: dict[str, int]) -> Any:
    lines[pointer(parts)] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = yaml.safe_load(yaml.serialize(key_node)) if not isinstance(key_node, yaml.ScalarNode) else key_node.value
            lines[pointer([*parts, str(key)])] = key_node.start_mark.line + 1
            out[str(key)] = _walk(value_node, [*parts, str(key)], lines)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_walk(child, [*parts, str(i)], lines) for i, child in enumerate(node.value)]
    return None  # scalars are taken from safe_load; only positions are needed here


def load_yaml(path: str | Path, text: str | None = None) -> Document:
    path = str(path)
    try:
        if text is None:
            text = Path(path).read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=path) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"invalid YAML: {problem}", file=path, line=mark.line + 1 if mark else None) from None
    lines: dict[str, int] = {}
    if node is not None:
        _walk(node, [], lines)
    return Document(data, lines, path)


def load_json(path: str | Path, text: str | None = None) -> Any:
    """JSON with errors that name file, line and column."""
    path = str(path)
    try:
        if text is None:
            text = Path(path).read_text(encoding="utf-8")
        return json.loads(text)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=path, line=exc.lineno) from None
