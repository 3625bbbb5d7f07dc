"""Load YAML or JSON while keeping line numbers, so errors can name file:line for a path.

Every YAML document losslessd reads (policies, topology, inventories, daemon settings, NVUE trees) is
composed by losslessd.yamlread (imported by load_yaml: a run that reads no YAML imports no PyYAML), within
the limits of losslessd/limits.py: nesting depth, nodes after alias expansion
(the billion laughs), alias cycles and integer length are checked before any data is built, and
every failure is an InputError with the file and the line.
"""

from __future__ import annotations

import gc
import json
import re
import sys
import typing
from contextlib import suppress
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (imported where used: a lint of a cached policy needs no pydantic, losslessd.policycache)
    from pydantic import BaseModel, ValidationError, WrapValidator

from .errors import InputError
from .lazyre import lazy
from .limits import read_text
from .printable import quoted

# Plain scalars YAML 1.1 (PyYAML's resolver) reads as numbers or dates where YAML 1.2's core schema (YAML 1.2.2,
# 10.3.2 "Tag Resolution") reads other numbers or text: a leading 0 is octal (`dscp: 026` was 22; 1.2 reads 26), `0b`
# binary, `1:40` base 60 (100; a MAC address of digits was a number), `2026-12-04` a date. They are read as the text
# written: a number's key then refuses them at their line (model_errors says why) and a name keeps what it says.
_YAML11_NUMBER = lazy(r"[-+]?(?:0b[0-1_]+|0[0-7_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+"
                            r"|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)")

_orjson: Any = None  # orjson, when installed (a dependency; json_value reads with json alone without it)
with suppress(ImportError):
    import orjson as _orjson


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
            # (a key given again in another spelling says both in its repr after its own: yamlread._Respelled)
            said = quoted(str(key)) + (repr(key).removeprefix(repr(str(key))) if type(key) is not str else "")
            raise InputError(f"duplicate key {said}{where}: also given at line {first} (YAML keeps only the "
                             "last one; remove or rename one)", file=self.file, line=line)


def pointer(parts: list | tuple) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def load_yaml(path: str | Path, text: str | None = None) -> Document:
    """A YAML file (or ``text`` shown as ``path``) read within the limits; InputError (file:line) otherwise (read by
    losslessd.yamlread, imported here: PyYAML is no import of a lint that reads no YAML)."""
    from .yamlread import load_yaml as read

    return read(path, text)



def merge(base: Any, over: Any) -> Any:
    """Deep merge of YAML data (`extends`, inventory levels): mappings key by key; anything else replaces."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{key: merge(base[key], value) if key in base else value for key, value in over.items()}}
    return over


def json_schema(model: type[BaseModel]) -> dict:
    """The JSON schema of a file ``model`` validates, for editors (no titles made up from field names)."""
    from pydantic.json_schema import GenerateJsonSchema

    class _Schema(GenerateJsonSchema):
        def field_title_should_be_set(self, schema: Any) -> bool:
            return False  # "Kmin Min Mtus" says nothing the key does not

    return model.model_json_schema(schema_generator=_Schema)


def must(phrase: str) -> WrapValidator:
    """Annotated metadata: any failure of the value it marks reads "`path` must be ``phrase``" (for values
    whose own wording says more than a type or a bound would)."""
    from pydantic import ValidationError, WrapValidator

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
    from pydantic import BaseModel

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


_LONG_DIGITS = lazy(rf"[0-9]{{{sys.get_int_max_str_digits() + 1},}}")
# orjson reads an integer beyond 64 bits as a float where json.loads keeps it an int; the shortest such is 19 digits
# (-9223372036854775809; orjson's README, "Deserialize": integers up to 64 bits). A text with a run of 19 digits
# anywhere (strings too, which costs only a fallback) is read by json.loads.
_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
_DIGIT_RUN = b"0" * 19
_STEP = 3
_SAMPLE_RUN = b"0" * (len(_DIGIT_RUN) // _STEP)  # (six: _orjson_read)

# What opens or closes a level of JSON, and a string (RFC 8259 7: a quote, then unescaped characters or escapes) whose
# brackets open none (one character or escape a step: no possessive quantifiers, which Python 3.10's re refuses)
_LEVEL = lazy(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


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

    Without ``duplicates``, orjson reads the text when it gives what json.loads gives (_orjson_read: half the
    time for a bench CONFIG_DB); anything else, every error included, is json.loads's reading."""
    if duplicates is None:
        value, strings = _orjson_read(text)
        if value is not _JSON:
            _read_whole[:] = text, strings
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

            value = json.loads(text, object_pairs_hook=pairs)
        else:
            value = json.loads(text)
        _read_whole[:] = text, None
        return value
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


_JSON = object()  # (_orjson_read: "ask json.loads")

# The last text json_value read whole (one slot: the object itself, so that no other text can pass for it). Both
# readers are strict: no character U+0000-U+001F stands raw in a string (RFC 8259 section 7: each must be escaped;
# json.loads's strict default, orjson alike) and none but space, tab, line feed and carriage return between tokens
# (section 2), before the first or after the last (tests/test_json_decode.py holds both readers to it).
# With it, how many strings (keys and values) the value read holds where it is an object of objects of objects of
# strings (_strings), else None.
_read_whole: list[Any] = [None, None]


def read_whole(text: str) -> bool:
    """Whether ``text`` (the object) is the last one json_value read whole: then its only ASCII control character
    can be DEL (U+007F), which a JSON string may hold raw (parse._control_characters looks for that one alone: a
    bench CONFIG_DB's 30 searches for the others were 57 us of its 1.2 ms parse)."""
    return text is _read_whole[0]


def strings_read(text: str) -> int | None:
    """How many strings, keys and values, the value json_value last read whole from ``text`` (the object) holds, where
    that value is an object of objects of objects of strings (a CONFIG_DB's tables, entries and fields: _strings);
    None for any other value or text. Every string the value holds is a string of the text, each a different one, and
    each string of the text holds two `"` (and one more per escaped quote): where the text holds twice this many `"`,
    it writes no string the value lacks, so no key twice in one object (configdb._load)."""
    return _read_whole[1] if text is _read_whole[0] else None


def _strings(value: Any) -> int | None:
    """The strings (keys and values) of ``value`` where it is an object of objects of objects of strings, else None.
    Such a value holds no number, so orjson reads it as json.loads does (_orjson_read). Each level is read in C: the
    entries gathered by dict.values (a TypeError where a table is no object), and their values as gc.get_referents
    lists them, all of them strings where they join. (A dict's traversal visits every value, and in a table of keys
    not made for strings alone, as orjson makes its larger objects, every key too, each a string: at least as many
    as the entries' fields; tests/test_json_strings.py holds the interpreter to it.) A bench CONFIG_DB: about 0.9 M
    instructions, where the digit runs' check it spares, and the repeated keys' count, search and key walk it spares
    (configdb._load), are about 2.6 M."""
    if type(value) is not dict:
        return None
    try:
        entries = list(chain.from_iterable(map(dict.values, value.values())))
        if not all(map(isinstance, entries, repeat(dict))):
            return None
        fields = sum(map(len, entries))
        leaves = gc.get_referents(*entries)
        if len(leaves) < fields:
            return None
        "".join(leaves)  # (a TypeError unless every one is a string)
    except TypeError:
        return None
    return len(value) + len(entries) + 2 * fields


def _orjson_read(text: str | bytes) -> tuple[Any, int | None]:
    """(orjson's reading of ``text`` where it is json.loads's, else _JSON; its strings where _strings counts them).
    Where orjson fails (NaN, Infinity, 1e400, lone surrogates, a BOM, beyond 1,024 levels) json.loads says what it says
    today. Where orjson reads and json.loads would not, or would read otherwise, this says _JSON: integers beyond 64
    bits (_DIGIT_RUN), and nesting json.loads refuses for want of recursion (its limit is what is left at its call:
    about 1,000 less the frames above it). The depth is at most one more than the levels of containers gc tracks (a dict
    of atoms alone is untracked: CPython's dictobject.c, MAINTAIN_TRACKING), and json.loads is tried on that depth from
    this frame, one deeper than its real call: never less strict. Floats, -0, repeated keys (the last value at the first
    key's place) and escapes read the same (tests/test_json_decode.py). A bench CONFIG_DB of 116 KB: orjson 147 us, the
    digit runs 47 us (before every third byte was looked at first: about half their instructions now), the depth 13 us;
    json.loads 262 us."""
    if _orjson is None:
        return _JSON, None
    try:
        value = _orjson.loads(text)
    except Exception:  # (its JSONDecodeError; anything else it may raise is json.loads's to say too)
        return _JSON, None
    # A value of objects and strings alone holds no number (a key dropped for a later one took its value with it, in
    # both readings), so it needs no look for digit runs.
    strings = _strings(value)
    if strings is None:
        raw = text if isinstance(text, bytes) else text.encode()
        # A run of 19 digits covers six byte positions in a row that are multiples of 3 (its first such position is
        # at most its third byte, the sixth 15 after it), so every third byte is looked at first: where no six of them
        # in a row are digits, no run is (a bench CONFIG_DB: 1.05 M -> 0.5 M instructions); anywhere else the whole
        # text is.
        if (_SAMPLE_RUN in raw[::_STEP].translate(_DIGITS)
                and raw.translate(_DIGITS).rfind(_DIGIT_RUN) >= 0):  # (rfind: a third of find's time on a CONFIG_DB)
            return _JSON, None
    # (an object of objects of objects of strings nests three deep, and the walk below says at most four for it (one
    # more where a container dropped for a later value left an entry tracked): four is never less strict)
    depth, level = (4, []) if strings is not None else (1, [value] if gc.is_tracked(value) else [])
    while level:
        depth += 1
        level = list(filter(gc.is_tracked, chain.from_iterable([c.values() if type(c) is dict else c
                                                                 for c in level])))
    try:
        json.loads("[" * depth + "]" * depth)
    except RecursionError:
        return _JSON, None
    return value, strings
