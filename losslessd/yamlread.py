"""YAML read with line numbers and within limits: the reader behind docpos.load_yaml (see docpos), apart so
that only what reads YAML imports PyYAML."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .docpos import _YAML11_NUMBER, Document, pointer
from .errors import InputError
from .gcpause import gc_paused
from .lazyre import lazy
from .limits import (
    ENV_MAX_FILE_MB,
    MAX_INT_DIGITS,
    MAX_NESTING,
    MAX_YAML_NODES,
    describe_mib,
    max_yaml_bytes,
    read_text,
)

# PyYAML's check of the characters (yaml/reader.py, Reader.NON_PRINTABLE: all but YAML 1.1's c-printable). Compiling
# this class of ranges up to U+10FFFF is 57 M instructions alone, paid by `import yaml` (38 M, 4 %, of a lint of the
# example fabric, docs/lint-at-scale.md "Session 41, part k"): imported here, it is compiled when first used, which
# _Reader asks only of a text that is not plain ASCII.
_PYYAML_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
# The ASCII characters outside YAML 1.1's c-printable (the YAML 1.1 specification, 5.1 "Character Set": #x9, #xA,
# #xD and #x20-#x7E are printable): an ASCII text without them passes PyYAML's check.
_ASCII_NOT_PRINTABLE = re.compile("[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]")


def _import_yaml() -> Any:
    """PyYAML, with its reader's check of the characters compiled on first use (``_PYYAML_NON_PRINTABLE``); every
    other pattern as ever. Where PyYAML is imported already (or its pattern is another), nothing changes but the
    cost."""
    compile_ = re.compile

    def deferring(pattern: Any, flags: int = 0) -> Any:
        return lazy(pattern, flags) if pattern == _PYYAML_NON_PRINTABLE and not flags else compile_(pattern, flags)

    re.compile = deferring
    try:
        import yaml
    finally:
        re.compile = compile_
    return yaml


if TYPE_CHECKING:
    import yaml
else:
    yaml = _import_yaml()

_MERGE = "tag:yaml.org,2002:merge"
_YAML11_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}

CParser: Any = None  # libyaml's parser, when PyYAML was built with it (yaml.__with_libyaml__)
with suppress(ImportError):  # (PyPI's wheels for our platforms have it)
    from yaml._yaml import CParser


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


class _Reader(yaml.reader.Reader):
    """PyYAML's reader, whose check of the characters is asked only of a text that is not ASCII or holds an ASCII
    control (an ASCII text without one passes it): plain ASCII YAML leaves the pattern it compiles uncompiled."""

    def check_printable(self, data: str) -> None:
        if not data.isascii() or _ASCII_NOT_PRINTABLE.search(data):
            super().check_printable(data)


class _Loader(_Reader, _Composer, yaml.SafeLoader):
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
_KEY_READER = _Loader("")  # (_typed_key: reads one scalar, keeps nothing)

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
        _Reader(text)  # PyYAML's check of the characters, for either parser (the same error)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, other controls)
        raise InputError(f"invalid YAML: {exc.reason} (character #x{exc.character:04x})", file=path,
                         line=text.count("\n", 0, exc.position) + 1) from None
    loader = (composer or _Composing)(text)
    try:
        with gc_paused():
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


class _Retyped(_Respelled):
    """A key given again in another spelling of the same value (`0x1f` and `31`, `on` and `true`): its repr, which
    duplicate messages quote, shows both."""

    def __repr__(self) -> str:
        return f"{str(self)!r} (read as the same value as {self.first!r})"


# Plain keys read as something else than their text: a loader's data holds `on:` as True, `null:` as None, `0x1f:` as
# 31, so an error about such a key (an inventory's host `on`) named the pointer of the value and found no line for it
# (it said the line of the mapping), and two spellings of one value (`0x1f:` and `31:`) were one key, the first lost
# without the duplicate named.
_TYPED_KEYS = frozenset({"tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:int",
                         "tag:yaml.org,2002:float"})
_NOT_READ = object()


def _typed_key(node: yaml.ScalarNode) -> object:
    """The value a plain bool, null or number key is read as (_NOT_READ where it cannot be: its loader says why), read
    as the loader reads it: within MAX_INT_DIGITS and YAML 1.2 (PyYAML's own reader took `? 0x` and 4,000 hex digits,
    whose str() then raised ValueError, and a base-60 `!!int` of 100,000 parts in quadratic time)."""
    try:
        return _Loader.yaml_constructors[node.tag](_KEY_READER, node)
    except (ValueError, OverflowError, TypeError, KeyError, yaml.YAMLError):
        return _NOT_READ


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
            first: dict[object, tuple[int, str]] = {}  # by the key's NFC form or typed value: (line, key as written)
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                    continue
                key, line = str(key_node.value), key_node.start_mark.line + 1
                # `café` composed (NFC) and as `e` and a combining accent (NFD, as macOS writes file names) show
                # alike: two hosts, devices or keys no one can tell apart
                entry = (line, key)
                value = _typed_key(key_node) if key_node.tag in _TYPED_KEYS else _NOT_READ
                ident = (key if key.isascii() else unicodedata.normalize("NFC", key)) if value is _NOT_READ else value
                same = first.setdefault(ident, entry)
                if same is not entry:
                    again = key if same[1] == key else _Respelled(key, same[1]) if value is _NOT_READ else \
                        _Retyped(key, same[1])
                    duplicates.append((line, parts, again, same[0]))
                child = at + pointer((key,))  # the parent's pointer and one part: each node's costs its own key
                lines[child] = line
                if value is not _NOT_READ and str(value) != key:  # (the pointer of the value read: `/hosts/True`)
                    lines.setdefault(at + pointer((str(value),)), line)
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
    with gc_paused():
        node = compose(text, path)
        if node is None:
            return Document(None, {}, path)
        lines, duplicates = _positions(node)  # before construction: merge keys rewrite the mappings
        try:
            data = _Loader("").construct_document(node)
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, path) from None
    return Document(data, lines, path, duplicates)

