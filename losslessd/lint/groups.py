"""Ports and devices configured alike, so that rules run once per configuration instead of once per port.

A large fabric is built from a few configurations: thousands of switches with the same QoS on every port,
thousands of hosts from one image. Each port gets a key covering everything a port rule can read of it
(every field but its name, alias, description and sources), each device a key covering its own settings
and its ports' keys in order (with whether each port was selected as RoCE-facing, and by which rule).
Maps and profiles that parsers share between ports (one dict for every port that binds a map) are keyed
once per object; a port's queues' schedulers and ECN records by their content (a host's are its own).

The engine (lint/engine.py) runs a groupable rule on one member of a group; when that member has no
finding, no member has any (same settings, same outcome: the rule reads nothing the key does not cover);
when it has some, every member is checked on its own, so messages and sources are exactly each one's.

Keys are built by code generated per model class from its field types (a key is computed for every port
of a fabric: generic code that inspects each value costs more than the rules it saves).
"""

from __future__ import annotations

import builtins
import dataclasses
import sys
import types
import typing
from collections.abc import Callable, Iterable
from enum import Enum
from functools import cache, cached_property, partial
from operator import attrgetter
from typing import Any

from ..model import Device, Model, Port, SharedPort, Source, Watchdog

# Not read by port rules but to name things in messages (the engine checks members on their own
# wherever a finding is made) or to say where a fact came from.
_PORT_NAMES = frozenset({"name", "alias", "description"})
# What a device key leaves out: its name, what only fabric rules read (links, routes, tiers), what rules
# that are never grouped read (issues, files), and its ports (keyed one by one, with their selection).
_DEVICE_SKIP = frozenset({"name", "ports", "neighbors", "routes", "tier", "issues", "files"})
_PLAIN = (str, int, float, bool, Enum, type(None))
# What a SharedPort's key takes from its shared part instead (the content of every queue and PG but their sources),
# and its watchdog, from the settings it is made of while it is not made (Keys.port).
_SHARED = frozenset({"queues", "priority_groups", "watchdog"})
_selected, _rule = attrgetter("selected"), attrgetter("rule")  # of a PortChoice


def _mentions(tp: Any, cls: type) -> bool:
    return tp is cls or any(_mentions(arg, cls) for arg in typing.get_args(tp))


def _strip_none(tp: Any) -> Any:
    """``X | None`` -> X (other unions are kept)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else tp
    return tp


def _is_plain(tp: Any) -> bool:
    """A type whose values are hashable as they are: str, numbers, enums, literals, None (or unions of them)."""
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return all(_is_plain(arg) for arg in typing.get_args(tp))
    return isinstance(tp, type) and issubclass(tp, _PLAIN)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Model)


def _is_plain_list(tp: Any) -> bool:
    """list[int] and the like: a tuple of it is hashable as it is."""
    inner = _strip_none(tp)
    return typing.get_origin(inner) is list and _is_plain(typing.get_args(inner)[0])


def _is_plain_dict(tp: Any) -> bool:
    """dict[int, bool] and the like: a tuple of its items is hashable as it is."""
    inner = _strip_none(tp)
    return typing.get_origin(inner) is dict and all(map(_is_plain, typing.get_args(inner)))


def _annotations(cls: type) -> dict[str, tuple[Any, str]]:
    """Each field's annotation of a model class, as written (a text: ``from __future__ import annotations``), and the
    module whose names it reads, the fields of its bases first."""
    return {name: (text, klass.__module__)
            for klass in reversed(cls.__mro__) for name, text in vars(klass).get("__annotations__", {}).items()}


@cache
def _evaluated(text: str, module: str) -> Any:
    """An annotation text's type, as typing.get_type_hints evaluates it (once for all classes that write it)."""
    return eval(text, vars(sys.modules[module]))  # noqa: S307 - an annotation of a class of losslessd's model


def _content_expression(cls: type, obj: str, env: dict[str, Any], inline: bool = True, owned: bool = False,
                        shared: bool = False) -> str:
    """Python for the content of the ``cls`` object named ``obj`` (see _content_function)."""
    return f"({', '.join(_content_parts(cls, obj, env, inline, owned, shared))},)"


def _content_parts(cls: type, obj: str, env: dict[str, Any], inline: bool, owned: bool = False,
                   shared: bool = False, item_of: type | None = None) -> list[str]:
    """The parts of _content_expression. Dicts of model objects (queues, PGs: each port has its own) are keyed item
    by item, their items' content written out in place beside their keys; so are, in a port, the model objects
    a port has of its own (watchdog, NIC DCQCN record, link pause: one per port, tokened once each in vain), and
    (``owned``) their dicts of plain values (a NIC's DCQCN switches and parameters: a host's own, never shared).
    ``item_of``: the class whose dict item ``cls`` is; a port's queue's scheduler and ECN are keyed by their content
    in place too, never tokened: a host's are its own (mlnx_qos.apply makes three a host, each with the host's
    source), and tokening them was a third of a host port's key; a switch's shared ones cost their few fields."""
    parts: list[str] = []
    for name, kind, of in _content_fields(cls, owned, shared, item_of):
        v = f"{obj}.{name}"
        if kind == "plain":
            parts.append(v)
        elif kind == "list":
            parts.append(f"(None if {v} is None else _tuple({v}))")
        elif kind == "items":
            parts.append(f"(None if {v} is None else _tuple({v}.items()))")
        elif kind == "dict":
            var = f"x{len(env)}"
            if inline:
                expr = ", ".join(_content_parts(of, var, env, inline=False, item_of=cls))
            else:
                env[f"c_{var}"] = _content_function(of)
                expr = f"c_{var}({var}, memo, token)"
            parts.append(f"_tuple([(k, {expr}) for k, {var} in {v}.items()])")
        elif kind == "own":
            env[f"c_{obj}_{name}"] = _content_function(of, owned=cls is Port)
            parts.append(f"(None if {v} is None else c_{obj}_{name}({v}, memo, token))")
        else:
            parts.append(f"(None if {v} is None else memo.get(_id({v})) or token({v}))")
    return parts


@cache
def _content_fields(cls: type, owned: bool, shared: bool, item_of: type | None) -> tuple[tuple[str, str, Any], ...]:
    """``(name, kind, of)`` of each field the content of a ``cls`` object takes, in order, as _content_parts
    (compiled) and _read_parts (read) key it: ``plain`` as it is, ``list`` (of plain values) as a tuple, ``items``
    (an ``owned`` dict of plain values) as its items, ``dict`` (of model objects of class ``of``) item by item,
    ``own`` (a model object of class ``of`` a port, or a port's queue or PG, has of its own) by its content,
    ``token`` by its token."""
    skip = _PORT_NAMES if cls is Port else _DEVICE_SKIP if cls is Device else frozenset()
    if shared:
        skip = skip | _SHARED
    fields: list[tuple[str, str, Any]] = []
    for name, (source, plain, plain_list, plain_dict, dict_of, model) in _field_traits(cls):
        if name in skip or source:
            continue
        if plain:
            fields.append((name, "plain", None))
        elif plain_list:
            fields.append((name, "list", None))
        elif owned and plain_dict:
            fields.append((name, "items", None))
        elif dict_of is not None:
            fields.append((name, "dict", dict_of))
        elif (cls is Port or item_of is Port) and model is not None:
            fields.append((name, "own", model))
        else:
            fields.append((name, "token", None))
    return tuple(fields)


@cache
def _field_traits(cls: type) -> tuple[tuple[str, tuple], ...]:
    """Each field of ``cls`` in order, with what _content_fields reads of its type (_traits)."""
    written = _annotations(cls)
    return tuple((f.name, _text_traits(*written[f.name])) for f in dataclasses.fields(cls))


_OR_NONE = " | None"


@cache
def _text_traits(text: Any, module: str) -> tuple:
    """_traits of an annotation written ``text`` in ``module``. One written ``Literal[...]`` (no bracket among its
    values) is plain and mentions nothing; one written as a name that names a class, that class's: neither is
    evaluated, with ` | None` after it or not (evaluating an annotation text compiles it and makes its typing objects,
    a Literal's dearest: 5.5 M instructions of the example lint's 50 texts, docs/lint-at-scale.md "Session 44, part
    c"). Any other text is evaluated (_evaluated)."""
    if not isinstance(text, str):
        return _traits(text)
    optional = text.endswith(_OR_NONE)
    bare = text[:-len(_OR_NONE)] if optional else text
    names = vars(sys.modules[module])
    if bare.startswith("Literal[") and bare.endswith("]") and "[" not in bare[8:-1] and "]" not in bare[8:-1]:
        if names.get("Literal") is typing.Literal:
            return _PLAIN_TRAITS
    elif bare.isidentifier() and bare != "None":
        found = names[bare] if bare in names else getattr(builtins, bare, None)
        if isinstance(found, type):
            return _traits(found | None if optional else found)
    return _traits(_evaluated(text, module))


_PLAIN_TRAITS = (False, True, False, False, None, None)  # (what _traits_of says of any Literal, with None or not)


_TRAITS: dict[Any, tuple] = {}  # type -> _traits_of(type)


def _traits(tp: Any) -> tuple:
    """What _content_fields reads of a field's type: whether it mentions Source, is plain, a plain list, a plain dict,
    a dict of model objects (their class) or a model class (itself), ``X | None`` or not. Worked out once per type
    (_evaluated evaluates each annotation text once: the same object for every field written alike), not per field and
    key function: typing's get_args and get_origin per field were 19 M instructions of the example lint's run of
    88 M (docs/lint-at-scale.md, "Session 44, part c")."""
    try:
        return _TRAITS[tp]
    except KeyError:
        pass
    except TypeError:  # (an unhashable annotation: worked out each time)
        return _traits_of(tp)
    found = _TRAITS[tp] = _traits_of(tp)
    return found


def _traits_of(tp: Any) -> tuple:
    inner = _strip_none(tp)
    args = typing.get_args(inner)
    dict_of = args[1] if typing.get_origin(inner) is dict and _is_model(args[1]) else None
    return (_mentions(tp, Source), _is_plain(tp), _is_plain_list(tp), _is_plain_dict(tp), dict_of,
            inner if _is_model(inner) else None)


@cache
def _alike_functions(cls: type):
    """``(values, same)``: ``values(o)``, the fields of a SharedPort's content as _content_function(cls, shared=True)
    takes them, as they are (the plain values and lists of them, then the others); ``same(o, values)``, whether
    ``o``'s equal them: the plain ones equal (one tuple comparison: a third fewer instructions than a test per field),
    every other the same object (its token then the same). What ``same`` tells alike has equal content: a port keyed
    after one configured alike costs a comparison, not its content (Keys.ports). (A tuple comparison takes an object
    as equal to itself, as the content's comparison and look-up do: a port whose one NaN is the port before's
    object had that port's key either way.)"""
    plain, others = ([f"o.{name}" for name in names] for names in _alike_fields(cls))
    tests = [f"({''.join(f'{v}, ' for v in plain)}) == p"] + [f"{o} is q[{i}]" for i, o in enumerate(others)]
    env: dict[str, Any] = {}
    code = (f"def values(o):\n    return ({''.join(f'{v}, ' for v in plain)}), ({''.join(f'{o}, ' for o in others)})\n"
            f"def same(o, v):\n    p, q = v\n    return {' and '.join(tests)}\n")
    exec(compile(code, f"<alike {cls.__name__}>", "exec"), env)  # noqa: S102 - code built from field names only
    return env["values"], env["same"]


@cache
def _content_function(cls: type, owned: bool = False, shared: bool = False):
    """``f(obj, memo, token) -> tuple``: the content of a ``cls`` object without its sources (and, for a port,
    its names). Lists of plain values are taken as tuples; dicts of model objects item by item (queues, PGs:
    each port has its own); other containers and nested objects through ``memo`` (id -> token, hit when
    parsers share them: the maps, profiles, schedulers) or, the first time, ``token``. ``owned``: an object a
    port has of its own (see _content_parts). ``shared``: a SharedPort's content but its queues and PGs, which
    Keys.port takes from the part it shares."""
    env: dict[str, Any] = {"_id": id, "_tuple": tuple}
    body = _content_expression(cls, "o", env, owned=owned, shared=shared)
    code = f"def content(o, memo, token):\n    return {body}\n"
    exec(compile(code, f"<key of {cls.__name__}>", "exec"), env)  # noqa: S102 - code built from field names only
    return env["content"]


def _read_parts(cls: type, inline: bool, owned: bool = False, shared: bool = False,
                item_of: type | None = None) -> list[Callable[[Any, dict, Any], Any]]:
    """What _content_parts writes as Python, as functions ``part(obj, memo, token)``: the same parts of the same
    content, read field by field instead of compiled (see _read_function)."""
    parts: list[Callable[[Any, dict, Any], Any]] = []
    for name, kind, of in _content_fields(cls, owned, shared, item_of):
        get = attrgetter(name)
        if kind == "plain":
            parts.append(partial(_part_plain, get))
        elif kind == "list":
            parts.append(partial(_part_list, get))
        elif kind == "items":
            parts.append(partial(_part_items, get))
        elif kind == "dict":
            if inline:  # (an item's parts beside its key: (k, a, b, ...))
                parts.append(partial(_part_inline, get, _read_parts(of, inline=False, item_of=cls)))
            else:
                parts.append(partial(_part_items_of, get, _read_function(of)))
        elif kind == "own":
            parts.append(partial(_part_own, get, _read_function(of, owned=cls is Port)))
        else:
            parts.append(partial(_part_token, get))
    return parts


def _part_plain(get: Callable, o: Any, memo: dict, token: Any) -> Any:
    return get(o)


def _part_list(get: Callable, o: Any, memo: dict, token: Any) -> Any:
    return None if (v := get(o)) is None else tuple(v)


def _part_items(get: Callable, o: Any, memo: dict, token: Any) -> Any:
    return None if (v := get(o)) is None else tuple(v.items())


def _part_inline(get: Callable, of_item: list, o: Any, memo: dict, token: Any) -> tuple:
    return tuple([(k, *[part(x, memo, token) for part in of_item]) for k, x in get(o).items()])


def _part_items_of(get: Callable, content: Callable, o: Any, memo: dict, token: Any) -> tuple:
    return tuple([(k, content(x, memo, token)) for k, x in get(o).items()])


def _part_own(get: Callable, content: Callable, o: Any, memo: dict, token: Any) -> Any:
    return None if (v := get(o)) is None else content(v, memo, token)


def _part_token(get: Callable, o: Any, memo: dict, token: Any) -> Any:
    return None if (v := get(o)) is None else memo.get(id(v)) or token(v)


@cache
def _read_function(cls: type, owned: bool = False, shared: bool = False):
    """_content_function(cls, owned, shared) read field by field, not compiled: the same content (a tuple of the same
    parts), for a run that keys too few ports for compiling its key functions to pay (Keys ``compiled``)."""
    parts = _read_parts(cls, inline=True, owned=owned, shared=shared)

    def content(o: Any, memo: dict, token: Any) -> tuple:
        return tuple([part(o, memo, token) for part in parts])

    return content


@cache
def _alike_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fields a SharedPort's alike test compares, ``(plain, others)`` by name: the plain values and lists of them
    (compared equal), then the others (compared by identity); names, sources and the shared parts left out."""
    fields = _content_fields(cls, False, True, None)  # (as _read_parts asks it: one cached answer)
    return (tuple(name for name, kind, _ in fields if kind in ("plain", "list")),
            tuple(name for name, kind, _ in fields if kind not in ("plain", "list")))


@cache
def _read_alike(cls: type):
    """_alike_functions(cls) read field by field, not compiled."""
    plain, others = _alike_fields(cls)
    get_plain, get_others = _getter(plain), _getter(others)

    def values(o: Any) -> tuple[tuple, tuple]:
        return get_plain(o), get_others(o)

    def same(o: Any, v: tuple[tuple, tuple]) -> bool:
        p, q = v
        return get_plain(o) == p and all(a is b for a, b in zip(get_others(o), q, strict=True))

    return values, same


def _getter(names: tuple[str, ...] | list[str]) -> Callable[[Any], tuple]:
    """The named attributes of an object as a tuple (of one, of none too)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda o: (get(o),)
    return lambda o: ()


class Keys:
    """Keys of ports and devices for one lint run (objects are keyed by identity while the fabric holds them)."""

    def __init__(self, compiled: bool = True) -> None:
        """``compiled``: key with the compiled key functions (_content_function); else with the same functions read
        field by field (_read_function), for a run of few ports (Context.keys): the same keys, without compiling."""
        self._content, self._alike_of = (_content_function, _alike_functions) if compiled else (_read_function,
                                                                                                _read_alike)
        self._memo: dict[int, Any] = {}  # id(object) -> its token
        self._intern: dict[Any, int] = {}  # content -> token
        self._alive: list[Any] = []  # what _memo keys by identity stays alive as long as the memo
        self._ports: dict[int, int] = {}  # id(port) -> its key
        self._last_port: tuple[Any, int] = (None, 0)  # the content and key of the port keyed last
        # Of the port keyed last when it is a SharedPort whose watchdog is not made: (its values, its shared part, its
        # watchdog's settings), what the next port is compared with (see port); else None.
        self._last_shared: tuple | None = None
        # (looked up once, not per port: a cached call with a keyword builds and hashes its key each time; those of
        # SharedPorts below, at the first one: a lint of none, a host's or a device file's alone, compiles none)
        self._port_content = self._content(Port)
        self._device_content = self._content(Device)

    @cached_property
    def _alike_values(self) -> Any:
        return self._alike_of(Port)[0]

    @cached_property
    def _alike(self) -> Any:
        return self._alike_of(Port)[1]

    @cached_property
    def _shared_content(self) -> Any:
        return self._content(Port, shared=True)

    @cached_property
    def _watchdog_content(self) -> Any:
        return self._content(Watchdog, owned=True)

    def token(self, value: Any) -> Any:
        """A hashable stand-in for ``value``: the value itself when plain, else a small number shared by
        every value of equal content (dicts, lists, model objects without their sources)."""
        if value is None:
            return None
        ident = id(value)
        token = self._memo.get(ident)
        if token is None:
            if isinstance(value, _PLAIN):
                return value
            content: tuple[Any, ...]
            # (a dict or list is looked up as it is: the lookup hashes it once, and raises TypeError where it holds
            # lists or objects, which are then keyed by their tokens; a host's own 64-entry DSCP map was hashed twice)
            if isinstance(value, Model):
                kind: Any = type(value)  # (a class is hashable; mypy says a model class is not)
                content = (kind, self._content(kind)(value, self._memo, self.token))
                token = self._intern.get(content)
            elif isinstance(value, dict):
                content = ("d", tuple(value.items()))
                try:
                    token = self._intern.get(content)
                except TypeError:  # lists or objects as values
                    content = ("d", tuple((k, self.token(v)) for k, v in value.items()))
                    token = self._intern.get(content)
            elif isinstance(value, (list, tuple)):
                content = ("l", tuple(value))
                try:
                    token = self._intern.get(content)
                except TypeError:
                    content = ("l", tuple(map(self.token, value)))
                    token = self._intern.get(content)
            else:
                raise TypeError(f"cannot key a {type(value).__name__}")
            if token is None:
                token = self._intern[content] = len(self._intern) + 1  # never 0: `memo.get(..) or` relies on it
            self._memo[ident] = token
            self._alive.append(value)
        return token

    def port(self, port: Port) -> int:
        key = self._ports.get(id(port))
        return self.ports((port,))[0] if key is None else key

    def ports(self, ports: Iterable[Port]) -> tuple[int, ...]:
        """``port(p)`` of each port, in order. A SharedPort keyed right after one configured alike (the same shared
        part, equal watchdog settings, equal or the same values: a switch's ports mostly are) takes that one's key by
        a comparison, neither content made, and here, without a call per port."""
        keys = []
        known, alive = self._ports, self._alive
        # (the alike test, compiled with _alike_values as _content_key sets _last_shared: looked up then, once)
        alike: Any = None if self._last_shared is None else self._alike
        for p in ports:
            key = known.get(id(p))
            if key is None:
                last = self._last_shared
                shared = wd = None
                if type(p) is SharedPort:
                    shared, wd = p._shared, p._wd  # (always set: by shared_port, or None by SharedPort(**fields))
                if (last is not None and shared is not None and wd is not None and shared[0] is last[1]
                        and wd[0] == last[2] and alike(p, last[0])):
                    key = known[id(p)] = self._last_port[1]
                    alive.append(p)
                else:
                    key = self._content_key(p, shared, wd)
                    if alike is None and self._last_shared is not None:
                        alike = self._alike
            keys.append(key)
        return tuple(keys)

    def _content_key(self, port: Port, shared: tuple | None, wd: tuple | None) -> int:
        """The key of a port not keyed alike the one before (ports): of its content."""
        self._last_shared = None
        if shared is None:
            content: tuple = ("port", self._port_content(port, self._memo, self.token))
        else:  # queues and PGs as the ports configured alike share them (one token), the rest as any port's
            parts = shared[0]  # (not where the port's own sources are in its list: shared[1])
            # The watchdog's content: the settings it is made of (its fields but the source, in order, as the
            # watchdog's own content function gives them), or, once made, its content.
            if wd is not None:
                watchdog = wd[0]
                self._last_shared = (self._alike_values(port), parts, watchdog)
            else:
                made = port.watchdog
                watchdog = None if made is None else self._watchdog_content(made, self._memo, self.token)
            content = ("shared port", self._shared_content(port, self._memo, self.token),
                       watchdog, self._memo.get(id(parts)) or self._part_token(parts))
        last, last_key = self._last_port
        if content == last:  # the port before it, configured alike (as a switch's ports mostly are): no hashing
            key = last_key
        else:
            found = self._intern.get(content)
            key = found if found is not None else self._intern.setdefault(content, len(self._intern) + 1)
            self._last_port = content, key
        self._ports[id(port)] = key
        self._alive.append(port)
        return key

    def _part_token(self, part: tuple) -> int:
        """The token of what SharedPorts configured alike share (SharedPort._shared's first item: queues as (index,
        scheduler, ecn, buffer profile), PGs as (index, profile, run-time profile)), their schedulers and ECN records
        tokened and the rest as it is: the classes ``token(part)`` gives, without the four levels of hashing refused
        (a tuple holding objects raises TypeError and is tokened item by item, ten times a switch: its first port's key
        took 34 us, now 21)."""
        memo, token = self._memo, self.token
        queues, pgs = part
        try:
            content = ("part", tuple([(index, None if s is None else memo.get(id(s)) or token(s),
                                       None if e is None else memo.get(id(e)) or token(e), profile)
                                      for index, s, e, profile in queues]), pgs)
            found = self._intern.get(content)
        except (TypeError, ValueError):  # (a part of another shape than the parser makes: keyed item by item)
            return token(part)
        if found is None:
            found = self._intern[content] = len(self._intern) + 1
        memo[id(part)] = found
        self._alive.append(part)
        return found

    def device(self, device: Device, choices: list) -> tuple:
        """The device's settings, and per port (in order) its key and whether and by which rule it is selected (as
        three columns: a switch's 64 ports made and hashed 64 tuples of three)."""
        if len(choices) != len(device.ports):
            raise ValueError(f"{len(choices)} port choices for the {len(device.ports)} ports of {device.name}")
        return (self._device_content(device, self._memo, self.token), self.ports(device.ports.values()),
                tuple(map(_selected, choices)), tuple(map(_rule, choices)))
