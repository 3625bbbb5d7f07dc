"""Load YAML or JSON while keeping line numbers, so errors can name file:line for a path.

Every YAML document losslessd reads (policies, topology, inventories, daemon settings, NVUE trees) is
composed here, within the limits of losslessd/limits.py: nesting depth, nodes after alias expansion
(the billion laughs), alias cycles and integer length are checked before any data is built, and
every failure is an InputError with the file and the line.
"""

from __future__ import annotations

import gc
import json
import re
import sys
import typing
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from itertools import chain
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError, WrapValidator
from pydantic.json_schema import GenerateJsonSchema

from .errors import InputError
from .limits import (
    ENV_MAX_FILE_MB,
    MAX_INT_DIGITS,
    MAX_NESTING,
    MAX_YAML_NODES,
    describe_mib,
    max_yaml_bytes,
    read_text,
)

_MERGE = "tag:yaml.org,2002:merge"
# Plain scalars YAML 1.1 (PyYAML's resolver) reads as numbers or dates where YAML 1.2's core schema (YAML 1.2.2,
# 10.3.2 "Tag Resolution") reads other numbers or text: a leading 0 is octal (`dscp: 026` was 22; 1.2 reads 26), `0b`
# binary, `1:40` base 60 (100; a MAC address of digits was a number), `2026-12-04` a date. They are read as the text
# written: a number's key then refuses them at their line (model_errors says why) and a name keeps what it says.
_YAML11_NUMBER = re.compile(r"[-+]?(?:0b[0-1_]+|0[0-7_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+"
                            r"|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)")
_YAML11_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}

_orjson: Any = None  # orjson, when installed (a dependency; json_value reads with json alone without it)
with suppress(ImportError):
    import orjson as _orjson

CParser: Any = None  # libyaml's parser, when PyYAML was built with it (yaml.__with_libyaml__)
with suppress(ImportError):  # (PyPI's wheels for our platforms have it)
    from yaml._yaml import CParser


class Document:
    """A parsed YAML/JSON document plus a map from JSON pointer to 1-based line.

    ``duplicates`` lists the mapping keys given twice, as (line, pointer parts of the mapping, key,
    line of the first one): PyYAML keeps only the last, so each loader decides whether that is an error."""

    def __init__(self, data: Any, lines: dict[str, int], file: str,
                 duplicates: list[tuple[int, tuple, str, int]] | None = None):
        self.data = data
        self.lines = lines
        self.file = file
        self.duplicates = duplicates or []

    def line_of(self, path: list[str | int] | tuple) -> int | None:
        """Line of the deepest existing prefix of ``path``."""
        parts = [str(p) for p in path]
        while True:
            line = self.lines.get(pointer(parts))
            if line is not None or not parts:
                return line
            parts = parts[:-1]

    def refuse_duplicates(self) -> None:
        """InputError at the first key given twice (for files where a repeated key is always a mistake)."""
        if self.duplicates:
            line, parts, key, first = self.duplicates[0]
            where = f" in {'.'.join(parts)}" if parts else ""
            raise InputError(f"duplicate key {key!r}{where}: also given at line {first} (YAML keeps only the last "
                             "one; remove or rename one)", file=self.file, line=line)


def pointer(parts: list | tuple) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _yaml_1_2(resolvers: dict[str | None, list]) -> dict[str | None, list]:
    """PyYAML's implicit resolvers with YAML 1.2's readings of what YAML 1.1 reads otherwise (_YAML11_NUMBER): no
    timestamps, and int and float patterns that do not match those numbers, which are text then. A table, not a
    resolve() of our own: a call more per scalar cost 9 % of reading an inventory."""
    out: dict[str | None, list] = {}
    for first, pairs in resolvers.items():
        kept = [(tag, re.compile(f"(?!(?:{_YAML11_NUMBER.pattern})$){regexp.pattern}", regexp.flags)
                 if tag in _YAML11_TAGS else regexp) for tag, regexp in pairs if not tag.endswith("timestamp")]
        if kept:
            out[first] = kept
    return out


class _Composer(yaml.composer.Composer):
    """PyYAML's composer made iterative, so that depth costs no recursion (PyYAML's recursive one made a
    3,000-deep document a RecursionError) and a node costs a few steps, not PyYAML's ten calls: the same nodes
    (tests/test_yaml_readers.py compares them on every YAML the repository holds). It stops at MAX_NESTING levels
    and MAX_YAML_NODES nodes, and counts aliases, as only they make the nodes a graph. SafeLoader's resolver has
    no path resolvers, so a node's tag depends on its own event alone."""

    aliases = 0
    get_event: Callable[[], Any]  # (the parser's)

    resolve: Callable[..., str]  # (the resolver's, on this table:)
    yaml_implicit_resolvers = _yaml_1_2(yaml.resolver.Resolver.yaml_implicit_resolvers)

    def compose_node(self, parent, index):
        get_event, resolve, anchors = self.get_event, self.resolve, self.anchors
        nodes = 0
        opened: list[list] = []  # collections being filled, outermost first: [node, key waiting for its value]
        while True:
            event = get_event()
            kind = type(event)
            if kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
                node = opened.pop()[0]
                node.end_mark = event.end_mark
            else:
                nodes += 1  # aliases too (they cost an event each); their expansion is _check_graph's
                if len(opened) >= MAX_NESTING:
                    raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_NESTING} levels",
                                                      event.start_mark)
                if nodes > MAX_YAML_NODES:
                    raise yaml.composer.ComposerError(None, None, f"more than {MAX_YAML_NODES:,} nodes",
                                                      event.start_mark)
                anchor = event.anchor
                if kind is yaml.AliasEvent:
                    if anchor not in anchors:
                        raise yaml.composer.ComposerError(None, None, f"found undefined alias {anchor!r}",
                                                          event.start_mark)
                    self.aliases += 1
                    node = anchors[anchor]
                else:
                    if anchor is not None and anchor in anchors:  # (YAML 1.2 would rebind it; PyYAML refuses)
                        raise yaml.composer.ComposerError(
                            None, None, f"the anchor &{anchor} is defined twice (first at line "
                            f"{anchors[anchor].start_mark.line + 1}): rename this one, and the aliases *{anchor} "
                            "after it that mean this value", event.start_mark)
                    tag = event.tag
                    if kind is yaml.ScalarEvent:
                        if tag is None or tag == "!":  # ('!' reads as plain: libyaml says otherwise when empty)
                            tag = resolve(yaml.ScalarNode, event.value, (True, False) if tag else event.implicit)
                        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                               style=event.style or None)  # (libyaml's plain style is '')
                    else:
                        node_kind = yaml.SequenceNode if kind is yaml.SequenceStartEvent else yaml.MappingNode
                        if tag is None or tag == "!":
                            tag = resolve(node_kind, None, event.implicit)
                        node = node_kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
                    if anchor is not None:
                        anchors[anchor] = node
                    if kind is not yaml.ScalarEvent:
                        opened.append([node, None])
                        continue
            if not opened:
                return node
            top = opened[-1]
            if type(top[0]) is yaml.SequenceNode:
                top[0].value.append(node)
            elif top[1] is None:
                top[1] = node
            else:
                top[0].value.append((top[1], node))
                top[1] = None


class _Loader(_Composer, yaml.SafeLoader):
    """The pure-Python loader (PyYAML's reader, scanner and parser: 20-60 KB/s on dense YAML), whose integers are
    at most MAX_INT_DIGITS digits long; it constructs every document."""

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError, TypeError) as exc:  # e.g. the date 2001-02-30
            raise yaml.constructor.ConstructorError(None, None, f"cannot read this value: {exc}",
                                                    node.start_mark) from None

    @staticmethod
    def _yaml_1_2(node) -> None:
        """`!!int 026`, `!!float 1:40.5`: YAML 1.1's readings a tag asks for (plain, they are text: _Composer)."""
        if _YAML11_NUMBER.fullmatch(str(node.value)):
            raise yaml.constructor.ConstructorError(None, None, f"{node.value!r} is an octal, binary or base-60 "
                                                    "number in YAML 1.1 and not in YAML 1.2: write the number in "
                                                    "decimal", node.start_mark)

    def construct_yaml_float(self, node):
        self._yaml_1_2(node)
        return super().construct_yaml_float(node)

    def construct_yaml_int(self, node):
        self._yaml_1_2(node)
        text = str(node.value)
        digits = sum(ch.isalnum() for ch in text) if len(text) > MAX_INT_DIGITS else 0  # (short: no count needed)
        if digits > MAX_INT_DIGITS:
            raise yaml.constructor.ConstructorError(None, None, f"an integer of {digits} digits (at most "
                                                    f"{MAX_INT_DIGITS} are read)", node.start_mark)
        return super().construct_yaml_int(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)

# A document libyaml refuses is read again by PyYAML, for its verdict and its words, up to this size: PyYAML reads
# 20-60 KB/s of dense YAML (bench/yaml_read.py), so a hand-written file errs as it always did within a second or
# two, and a large one errs in libyaml's words without minutes of re-reading.
REREAD_CHARS = 64 * 1024
_Composing: type = _Loader
if CParser is not None:
    class _CComposer(_Composer, CParser, yaml.resolver.Resolver):
        """The same composer on libyaml's parser (events with the same marks, about 5 times as fast)."""

        def __init__(self, stream: str):
            CParser.__init__(self, stream)
            yaml.resolver.Resolver.__init__(self)
            yaml.composer.Composer.__init__(self)

    _Composing = _CComposer


def _yaml_error(exc: yaml.YAMLError, path: str) -> InputError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    # PyYAML's words for two constructions it refuses, made to say what to change
    if problem == "found unhashable key":
        problem = "a key that is a list or a mapping (`? [a, b]` or `{a: 1}: x`): write each key as a plain name"
    elif m := re.fullmatch(r"could not determine a constructor for the tag '(.*)'", problem):
        tag = m[1].replace("tag:yaml.org,2002:", "!!")
        problem = f"the tag {tag} is not read: losslessd reads plain YAML data (remove the tag)"
    return InputError(f"invalid YAML: {problem}", file=path, line=mark.line + 1 if mark else None)


def compose(text: str, path: str, composer: type | None = None) -> yaml.Node | None:
    """The node graph of a YAML document, checked against the limits (InputError with file:line). ``composer``:
    the loader class that composes (default: on libyaml's parser where PyYAML has it, else pure Python)."""
    limit = max_yaml_bytes()
    if len(text) > limit:  # characters: at most the bytes
        raise InputError(f"a YAML document is read up to {describe_mib(limit)} (an eighth of the file limit); "
                         f"raise the file limit with --max-file-mb or {ENV_MAX_FILE_MB} if it is real", file=path)
    try:
        yaml.reader.Reader(text)  # PyYAML's check of the characters, for either parser (the same error)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, other controls)
        raise InputError(f"invalid YAML: {exc.reason} (character #x{exc.character:04x})", file=path,
                         line=text.count("\n", 0, exc.position) + 1) from None
    loader = (composer or _Composing)(text)
    try:
        with _gc_paused():
            node = loader.get_single_node()
    except yaml.YAMLError as exc:
        # Any error, the composer's too: libyaml reads some text PyYAML refuses (a tab as a separator) and may then
        # stop later, at another document, for another reason.
        if composer is None and _Composing is not _Loader and len(text) <= REREAD_CHARS:
            return compose(text, path, _Loader)  # PyYAML's verdict, as before libyaml (it reads `{a:, b}`)
        if isinstance(exc, yaml.MarkedYAMLError) and "maximum nesting depth" in str(exc.problem):
            # libyaml's own bound (1,000 levels), far beyond ours
            raise InputError(f"invalid YAML: nested deeper than {MAX_NESTING} levels", file=path,
                             line=exc.problem_mark.line + 1 if exc.problem_mark else None) from None
        raise _yaml_error(exc, path) from None
    finally:
        loader.dispose()
    if node is not None and loader.aliases:  # else a tree, whose nodes and depth the composer counted
        _check_graph(node, path)
    return node


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cycle collector off while a document's nodes are built: it walks the young objects again and
    again, half the time of composing a large document; node trees hold no cycles, and anything else waits."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check_graph(root: yaml.Node, path: str) -> None:
    """Aliases make the node tree a graph: refuse a cycle (an alias inside the node it names), more than
    MAX_YAML_NODES nodes once every alias is expanded, or nesting through aliases deeper than MAX_NESTING.
    Iterative, each node once: sizes and depths of shared nodes are remembered."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            active.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if size[key] > MAX_YAML_NODES:
                raise InputError(f"invalid YAML: aliases expand this document beyond {MAX_YAML_NODES:,} nodes "
                                 "(an alias bomb?)", file=path, line=node.start_mark.line + 1)
            if depth[key] > MAX_NESTING:
                raise InputError(f"invalid YAML: aliases nest this document deeper than {MAX_NESTING} levels",
                                 file=path, line=node.start_mark.line + 1)
            continue
        if key in size:
            continue
        if key in active:
            raise InputError("invalid YAML: an alias refers to a node that contains it (a recursive alias)",
                             file=path, line=node.start_mark.line + 1)
        active.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class _Respelled(str):
    """A key given again in another Unicode spelling: its repr, which duplicate messages quote, shows both."""

    first: str

    def __new__(cls, key: str, first: str):
        self = super().__new__(cls, key)
        self.first = first
        return self

    def __repr__(self) -> str:
        return (f"{str(self)!r} (written {ascii(str(self))}, the first {ascii(self.first)}: one name in two Unicode "
                "spellings)")


def _positions(root: yaml.Node) -> tuple[dict[str, int], list[tuple[int, tuple, str, int]]]:
    """Line of every JSON pointer (a mapping value's is its key's line, where an error about it should point;
    a shared node's inside is walked at its first place only), and the mapping keys given twice (merge keys
    `<<` are not duplicates)."""
    lines: dict[str, int] = {}
    duplicates: list[tuple[int, tuple, str, int]] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, tuple, str]] = [(root, (), "")]  # (node, its path, the path's pointer)
    while stack:
        node, parts, at = stack.pop()
        lines.setdefault(at, node.start_mark.line + 1)  # a mapping value keeps its key's line
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, tuple[int, str]] = {}  # by the key's NFC form: (line, key as written)
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                    continue
                key, line = str(key_node.value), key_node.start_mark.line + 1
                # `café` composed (NFC) and as `e` and a combining accent (NFD, as macOS writes file names) show
                # alike: two hosts, devices or keys no one can tell apart
                entry = (line, key)
                same = first.setdefault(key if key.isascii() else unicodedata.normalize("NFC", key), entry)
                if same is not entry:
                    duplicates.append((line, parts, key if same[1] == key else _Respelled(key, same[1]), same[0]))
                child = at + pointer((key,))  # the parent's pointer and one part: each node's costs its own key
                lines[child] = line
                stack.append((value_node, (*parts, key), child))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*parts, str(i)), f"{at}/{i}") for i, item in enumerate(node.value))
    duplicates.sort()
    return lines, duplicates


def load_yaml(path: str | Path, text: str | None = None) -> Document:
    """A YAML file (or ``text`` shown as ``path``) read within the limits; InputError (file:line) otherwise."""
    path = str(path)
    if text is None:
        text = read_text(path)
    with _gc_paused():
        node = compose(text, path)
        if node is None:
            return Document(None, {}, path)
        lines, duplicates = _positions(node)  # before construction: merge keys rewrite the mappings
        try:
            data = _Loader("").construct_document(node)
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, path) from None
    return Document(data, lines, path, duplicates)


def merge(base: Any, over: Any) -> Any:
    """Deep merge of YAML data (`extends`, inventory levels): mappings key by key; anything else replaces."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{key: merge(base[key], value) if key in base else value for key, value in over.items()}}
    return over


class _Schema(GenerateJsonSchema):
    def field_title_should_be_set(self, schema: Any) -> bool:
        return False  # "Kmin Min Mtus" says nothing the key does not


def json_schema(model: type[BaseModel]) -> dict:
    """The JSON schema of a file ``model`` validates, for editors (no titles made up from field names)."""
    return model.model_json_schema(schema_generator=_Schema)


def must(phrase: str) -> WrapValidator:
    """Annotated metadata: any failure of the value it marks reads "`path` must be ``phrase``" (for values
    whose own wording says more than a type or a bound would)."""
    def check(value: Any, handler: Any) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise ValueError(f"must be {phrase}") from None
    return WrapValidator(check)


_TYPES = {"int_type": "an integer", "float_type": "a number", "bool_type": "true or false", "string_type": "a string",
          "list_type": "a list", "dict_type": "a mapping", "model_type": "a mapping", "none_required": "null",
          "finite_number": "a finite number"}
_BOUNDS = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
           "greater_than": ("above", "gt"), "less_than": ("below", "lt")}


def model_errors(exc: ValidationError, model: type[BaseModel], doc: Document | None, base: tuple = (), *,
                 label: str = "", noun: str = "key", echo: bool = True, file: str | None = None,
                 pointers: bool = True) -> list[InputError]:
    """Each error of ``model``'s validation as an InputError at its file:line and JSON path, in the words of the
    file, never pydantic's. ``base``: where the validated value sits in ``doc``; ``label`` starts each message
    ("host leaf1"); ``echo``: quote the offending value (not for files that may hold secrets); ``pointers``:
    give the JSON pointer too (for messages that do not name the path themselves)."""
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
        name = "`" + ".".join(map(str, loc)) + "`" if loc else "it"
        got = f", not {_short(value)}" if echo and kind != "missing" else ""
        if kind == "extra_forbidden":
            known = _fields_at(model, loc[:-1])
            message = f"unknown {noun} {name}" + (f" (known: {', '.join(known)})" if known else "")
        elif kind == "missing":
            message = f"{name} is required"
        elif kind in ("literal_error", "enum"):
            choices = [c.strip().strip("'") for c in ctx.get("expected", "").replace(" or ", ", ").split(", ")]
            message = f"{name} must be {_choice(choices)}{got}"
        elif kind in _TYPES:
            message = f"{name} must be {_TYPES[kind]}{got}"
            if kind in ("int_type", "float_type") and isinstance(value, str) and _YAML11_NUMBER.fullmatch(value):
                message += (" (YAML 1.1 reads a leading 0 as octal and `1:40` as base 60, YAML 1.2 does not: write "
                            "the number in decimal)")
            elif kind == "string_type" and isinstance(value, bool):
                message += " (YAML 1.1 reads yes, no, on and off as true or false: quote it)"
        elif kind in _BOUNDS:
            word, key = _BOUNDS[kind]
            bound = ctx.get(key)
            if isinstance(bound, float):  # (4294967295, 4294967.295: written as a policy or a config writes them)
                bound = int(bound) if bound.is_integer() else f"{bound:.15g}"
            message = f"{name} must be {word} {bound}{got}"
        elif kind == "string_pattern_mismatch":
            message = f"{name} must match {ctx.get('pattern')}{got}"
        elif kind == "too_short":
            message = f"{name} must have at least {ctx.get('min_length')} item(s)"
        else:  # a model's own check (ValueError), written for the operator: after the key it is about
            text = err["msg"].removeprefix("Value error, ")
            said = not loc or text.startswith(f"{loc[-1]} ")  # "platform 'vyos' is not ...": names it
            message = text if said else f"{name} {text}" if text.startswith("must ") else f"{name}: {text}"
        parts = (*base, *loc)
        out.append(InputError(f"{label}: {message}" if label else message, file=doc.file if doc else file,
                              line=doc.line_of(parts) if doc else None,
                              pointer=(pointer(parts) or "/") if pointers else None))
    return out


def first_error(exc: ValidationError, model: type[BaseModel], doc: Document | None,
                file: str | None = None) -> InputError:
    """The first of ``model_errors``, saying how many more there are (for files fixed one error at a time)."""
    first = model_errors(exc, model, doc, file=file)[0]
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return InputError(first.message + more, file=first.file, line=first.line, pointer=first.pointer)


def _choice(choices: list[str]) -> str:
    return " or ".join(choices) if len(choices) <= 2 else "one of " + ", ".join(choices)


def _fields_at(model: Any, loc: tuple) -> list[str]:
    """The field names of the model at ``loc`` inside ``model`` (the first model an annotation names)."""
    def inner(t: Any) -> Any:
        if isinstance(t, type) and issubclass(t, BaseModel):
            return t
        return next((m for m in map(inner, typing.get_args(t)) if m is not None), None)

    for part in loc:
        field = model.model_fields.get(str(part)) if model else None
        if field is not None:  # a list index or a mapping key is no field: the model stays
            model = inner(field.annotation)
    return sorted(model.model_fields) if model else []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def load_json(path: str | Path, text: str | None = None, duplicates: list | None = None) -> Any:
    """JSON with errors that name file, line and column (``duplicates``: as json_value)."""
    path = str(path)
    if text is None:
        text = read_text(path)
    try:
        return json_value(text, duplicates)
    except json.JSONDecodeError as exc:
        message, line = _json_error(exc)
        raise InputError(message, file=path, line=line) from None
    except ValueError as exc:
        raise InputError(f"invalid JSON: {exc}", file=path) from None


# Quotes a word processor or web page types for `"` (U+201C/D, U+201E/F, U+2033, U+00AB/BB, and the single ones):
# RFC 8259 section 7 delimits a string with U+0022 alone, so json.loads stops at the first.
_TYPOGRAPHIC_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\u2018\u2019"


def _json_error(exc: json.JSONDecodeError) -> tuple[str, int]:
    """json.loads's error in an operator's words where a config pasted from a document breaks it: a typographic quote
    where a string starts, or a comma after an object's or array's last member (RFC 8259 sections 4 and 5: members
    and values are separated by commas, none after the last); otherwise json's own message. The line is the one to
    change."""
    text, pos = exc.doc, exc.pos
    if isinstance(text, str) and 0 <= pos < len(text):
        if text[pos] in _TYPOGRAPHIC_QUOTES:
            return (f"invalid JSON: a typographic quote {text[pos]} (U+{ord(text[pos]):04X}) at column {exc.colno} "
                    "where JSON takes only the straight double quote \" (text pasted from a document or web page?): "
                    "replace every typographic quote in the file", exc.lineno)
        before = text[:pos].rstrip()
        if text[pos] in "}]" and before.endswith(","):
            comma = len(before) - 1
            line = text.count("\n", 0, comma) + 1
            column = comma - text.rfind("\n", 0, comma)
            return (f"invalid JSON: a comma after the last member (column {column}) before the {text[pos]} on line "
                    f"{exc.lineno}: JSON takes none there; remove it", line)
    return f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno


_LONG_DIGITS = re.compile(rf"[0-9]{{{sys.get_int_max_str_digits() + 1},}}")
# orjson reads an integer beyond 64 bits as a float where json.loads keeps it an int; the shortest such is 19 digits
# (-9223372036854775809; orjson's README, "Deserialize": integers up to 64 bits). A text with a run of 19 digits
# anywhere (strings too, which costs only a fallback) is read by json.loads.
_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
_DIGIT_RUN = b"0" * 19

# What opens or closes a level of JSON, and a string (RFC 8259 7: a quote, then unescaped characters or escapes) whose
# brackets open none (one character or escape a step: no possessive quantifiers, which Python 3.10's re refuses)
_LEVEL = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def _deepest(text: str) -> tuple[int, int]:
    """How deep ``text``'s arrays and objects nest, and where the first at that depth opens (a file nested past what
    json.loads reads was named without a line: the error names where its nesting peaks)."""
    depth = deepest = at = 0
    for m in _LEVEL.finditer(text):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, m.start()
        elif m.group() in "]}":
            depth -= 1
    return deepest, at


def json_value(text: str | bytes, duplicates: list | None = None) -> Any:
    """``json.loads(text)``, every failure a ValueError that says what is wrong (never a RecursionError): a
    JSONDecodeError (line and column) for bad syntax, for an integer beyond CPython's conversion limit (4,300
    digits: its own message tells the reader to call sys.set_int_max_str_digits) and for nesting deeper than the
    parser reads (at the bracket where it peaks). Bytes are UTF-8 (RFC 8259; a UnicodeDecodeError is a ValueError
    too).

    An object that names a key twice keeps the last value, as json.loads does (RFC 8259 leaves it to the reader).
    With ``duplicates`` given, each such object is appended to it as (the dict made, its pairs in order), for a
    reader that warns about the values the last one hides (measured: 3.3 ms instead of 2.0 ms for a 256-port
    CONFIG_DB of 385 KB, whose whole parse takes about 22 ms).

    Without ``duplicates``, orjson reads the text when it gives what json.loads gives (_orjson_value: half the
    time for a bench CONFIG_DB); anything else, every error included, is json.loads's reading."""
    if duplicates is None:
        value = _orjson_value(text)
        if value is not _JSON:
            return value
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        if duplicates is not None:
            def pairs(items: list) -> dict:
                made = dict(items)
                if len(made) < len(items):
                    duplicates.append((made, items))
                return made

            return json.loads(text, object_pairs_hook=pairs)
        return json.loads(text)
    except RecursionError:
        depth, at = _deepest(text)
        raise json.JSONDecodeError(f"nested deeper than Python's JSON parser reads (about 1,000 levels): {depth:,} "
                                   "levels at this bracket", text, at) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # the integer conversion limit
        m = _LONG_DIGITS.search(text)
        raise json.JSONDecodeError(f"an integer of {len(m.group()) if m else 'too many'} digits (at most "
                                   f"{sys.get_int_max_str_digits()} are read)", text, m.start() if m else 0) from None


_JSON = object()  # (_orjson_value: "ask json.loads")


def _orjson_value(text: str | bytes) -> Any:
    """orjson's reading of ``text`` where it is json.loads's, else _JSON. Where orjson fails (NaN, Infinity, 1e400,
    lone surrogates, a BOM, beyond 1,024 levels) json.loads says what it says today. Where orjson reads and
    json.loads would not, or would read otherwise, this says _JSON: integers beyond 64 bits (_DIGIT_RUN), and nesting
    json.loads refuses for want of recursion (its limit is what is left at its call: about 1,000 less the frames
    above it). The depth is at most one more than the levels of containers gc tracks (a dict of atoms alone is
    untracked: CPython's dictobject.c, MAINTAIN_TRACKING), and json.loads is tried on that depth from this frame, one
    deeper than its real call: never less strict. Floats, -0, repeated keys (the last value at the first key's
    place) and escapes read the same (tests/test_json_decode.py). A bench CONFIG_DB of 116 KB: orjson 147 us, the
    digit runs 47 us, the depth 13 us; json.loads 262 us."""
    if _orjson is None:
        return _JSON
    try:
        value = _orjson.loads(text)
    except Exception:  # (its JSONDecodeError; anything else it may raise is json.loads's to say too)
        return _JSON
    raw = text if isinstance(text, bytes) else text.encode()
    if raw.translate(_DIGITS).rfind(_DIGIT_RUN) >= 0:  # (rfind: a third of find's time on a CONFIG_DB)
        return _JSON
    depth, level = 1, [value] if gc.is_tracked(value) else []
    while level:
        depth += 1
        level = list(filter(gc.is_tracked, chain.from_iterable([c.values() if type(c) is dict else c
                                                                 for c in level])))
    try:
        json.loads("[" * depth + "]" * depth)
    except RecursionError:
        return _JSON
    return value
