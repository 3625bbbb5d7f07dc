"""Dataclasses whose ==, hash and repr are functions shared by every class instead of compiled for each one.

dataclasses writes each method it adds to a class as source text and compiles it: about 0.6 M instructions a
method, three methods a class (six when frozen). `record` gives the class an ==, a hash and a repr that behave as the
ones dataclasses writes: the same fields, compared, hashed and shown the same way. The example lint's start-up:
1,634 M instructions before the model's classes were records, and the numbers after each step (docs/lint-at-scale.md,
"Session 38, part c"). A record's first objects are made by reading its fields (most classes a lint imports make
none in a given run) and the __init__ dataclasses would write is made after from code of its shape, compiled once a
process (`_made_init`); a frozen record's __setattr__ and __delattr__ are closures, not compiled (docs/lint-at-scale.md,
"Session 41, part b" and "Session 44, part a").
"""

from __future__ import annotations

import abc
import builtins
import dataclasses
import operator
import reprlib
import sys
import types
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, overload

_T = TypeVar("_T")


def _values(names: Iterable[str]) -> staticmethod:
    """The named fields of an object as a tuple (dataclasses compares and hashes ``(self.a, self.b)``: a tuple even
    of one field, so a value equals itself as there, a NaN too); a static method of the class."""
    names = tuple(names)
    if len(names) > 1:
        return staticmethod(operator.attrgetter(*names))
    if names:
        get = operator.attrgetter(names[0])
        return staticmethod(lambda obj: (get(obj),))
    return staticmethod(lambda obj: ())


def _eq(self: Any, other: Any) -> bool:
    if other.__class__ is self.__class__:
        return self._compared(self) == self._compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._hashed(self))


@reprlib.recursive_repr()  # (an object inside itself shows as ..., as dataclasses' repr does)
def _repr(self: Any) -> str:
    values = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)
    return f"{self.__class__.__qualname__}({values})"


def _fits_lazy(cls: Any, frozen: bool, slots: bool) -> bool:
    """Whether dataclasses may leave out this class's __init__ (and a frozen one's __setattr__ and __delattr__) for
    `_record` to add: the shapes where what dataclasses does then differs in those methods alone. Any other class
    (its own __init__, a frozen dataclass base or a frozen one with a dataclass base, InitVar or ClassVar fields,
    frozen with slots: pickling needs dataclasses' __getstate__, no docstring: dataclasses writes one from __init__'s
    signature) is made as dataclasses makes it."""
    own = cls.__dict__
    if "__init__" in own or not cls.__doc__ or (frozen and ("__setattr__" in own or "__delattr__" in own or slots)):
        return False
    # A dataclass base: taken when neither it nor the class is frozen (dataclasses' refusals of frozen inheritance stay
    # its own) and its fields are fields (no ClassVar or InitVar), which come first, as dataclasses puts them.
    bases = [base for base in cls.__mro__[1:] if hasattr(base, "__dataclass_fields__")]
    if bases and (frozen or any(base.__dataclass_params__.frozen or any(
            getattr(f, "_field_type", None) is not _FIELD for f in base.__dataclass_fields__.values())
            for base in bases)):
        return False
    hints = repr(tuple(own.get("__annotations__", {}).values()))  # (each text, or the type's name, in one text)
    return "InitVar" not in hints and "ClassVar" not in hints and "KW_ONLY" not in hints


def _made_init(cls: Any, frozen: bool, slots: bool) -> Callable[..., None]:
    """The __init__ dataclasses writes for ``cls`` (the same parameters, defaults, annotations and name, the same
    assignments in the fields' order, then ``self.__post_init__()`` if the class has one), made from the code of its
    shape (`_init_code`): a shape's code is compiled once a process and given each class's names, so no class is
    made again for dataclasses to write the method, nor is a frozen one's __setattr__ and __delattr__ written for it
    (docs/lint-at-scale.md, "Session 44, part a")."""
    fields = dataclasses.fields(cls)
    names = {f.name for f in fields}
    params = [f for f in fields if f.init and not f.kw_only] + [f for f in fields if f.init and f.kw_only]
    # What each field's line does (dataclasses' _field_init): p a parameter, f a parameter or its factory's value,
    # n the factory's value (not in __init__), d the default (not in __init__, slots: no class attribute holds it);
    # a field not in __init__ without a factory (or a default, with slots) is not set.
    kinds = tuple("f" if f.default_factory is not dataclasses.MISSING else "p" if f.init
                  else "d" if slots and f.default is not dataclasses.MISSING else "" for f in fields)
    kinds = tuple("n" if kind == "f" and not f.init else kind for kind, f in zip(kinds, fields, strict=True))
    at = {f.name: i for i, f in enumerate(params)}
    shape = (tuple((kind, at.get(f.name, -1)) for kind, f in zip(kinds, fields, strict=True)),
             sum(not f.kw_only for f in params), len(params), frozen, hasattr(cls, "__post_init__"))
    code = _TEMPLATES.get(shape)
    if code is None:
        code = _TEMPLATES[shape] = _init_code(*shape)
    # (dataclasses calls the object __dataclass_self__ where a field is named self)
    own = {f"_f{i}": f.name for i, f in enumerate(fields)}
    qualname: dict[str, Any] = {"co_qualname": f"{cls.__qualname__}.__init__"} if _QUALNAMED else {}
    code = code.replace(co_varnames=("__dataclass_self__" if "self" in names else "self",
                                     *(f.name for f in params)),
                        co_names=tuple(own.get(name, name) for name in code.co_names),
                        co_consts=tuple(own.get(c, c) if type(c) is str else c for c in code.co_consts), **qualname)
    env = {"__name__": cls.__module__, "__builtins__": builtins, "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY,
           "_set": object.__setattr__}
    for i, f in enumerate(fields):
        env[f"_d{i}"] = f.default_factory if f.default_factory is not dataclasses.MISSING else f.default
    init: Any = types.FunctionType(code, env, "__init__")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__defaults__ = tuple(_default(f) for f in params if not f.kw_only and _default(f) is not _NONE) or None
    init.__kwdefaults__ = {f.name: _default(f) for f in params if f.kw_only and _default(f) is not _NONE} or None
    init.__annotations__ = {f.name: f.type for f in params} | {"return": None}
    return init


_NONE = object()  # (a parameter without a default)
_HAS_DEFAULT_FACTORY: Any = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", _NONE)  # (what dataclasses shows as <factory>)
_QUALNAMED = hasattr(_made_init.__code__, "co_qualname")  # (Python 3.11: a call's refusal names the code's qualname)
# An __init__'s code by its shape (the fields' kinds, where each is a parameter, how many are positional, frozen,
# __post_init__): the names are placeholders each class's code replaces.
_TEMPLATES: dict[tuple, types.CodeType] = {}


def _default(f: dataclasses.Field) -> Any:
    """A parameter's default as dataclasses writes it: the factory marker, the default, or _NONE."""
    if f.default_factory is not dataclasses.MISSING:
        return _HAS_DEFAULT_FACTORY
    return _NONE if f.default is dataclasses.MISSING else f.default


def _init_code(fields: tuple[tuple[str, int], ...], positional: int, count: int, frozen: bool,
               post_init: bool) -> types.CodeType:
    """The code of an __init__ of this shape, as dataclasses writes it: field i's name is ``_f{i}`` (an attribute,
    and for a frozen class the text object.__setattr__ is given), parameter j is ``_a{j}``, field i's default or
    factory the global ``_d{i}``."""
    params = [f"_a{j}" for j in range(count)]
    if positional < count:
        params.insert(positional, "*")
    body = []
    for i, (kind, j) in enumerate(fields):
        value = {"p": f"_a{j}", "f": f"_d{i}() if _a{j} is _HAS_DEFAULT_FACTORY else _a{j}", "n": f"_d{i}()",
                 "d": f"_d{i}"}.get(kind)
        if value is not None:
            body.append(f"_set(self, '_f{i}', {value})" if frozen else f"self._f{i} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    text = f"def __init__({', '.join(['self', *params])}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    return next(c for c in compile(text, "<string>", "exec").co_consts if isinstance(c, types.CodeType))


# Objects a record's __init__ makes by reading its fields before the one it runs from then on is made (`_made_init`):
# a class a lint makes a few objects of makes none (the platforms' table makes 10 `Platform`s of 28 fields and 8
# `RenderLimits` of 21 at import), one made thousands of times (a port, a queue) runs the written one for all but these
# first few. 64, not 16: the example lint made 17 to 55 objects of 11 records (PgRow, Finding, Queue,
# the platforms' Command ...), each of which compiled its __init__ (the example lint 689.1 -> 677.8 M instructions,
# one NX-OS switch 523.1 -> 519.0 M, 128 was 681.4 M: docs/lint-at-scale.md, "Session 43, part c").
READ_INITS = 64


def _first_init(cls: Any, fields: tuple[dataclasses.Field, ...], frozen: bool, slots: bool) -> Callable[..., None]:
    """An __init__ that makes the class's first READ_INITS objects as dataclasses' __init__ does, from its fields
    (each value given, else its default or a call of its factory, set in the fields' order, then __post_init__),
    and then puts the one dataclasses writes (`_made_init`) in its place: a class the run makes few objects of makes
    none (docs/lint-at-scale.md, "Session 41, part b" and "Session 42, part a"). A call that does not fit the fields
    (a value missing, one too many, a name no field has) is passed to that one, which refuses it in dataclasses'
    words."""
    assign = object.__setattr__ if frozen else setattr
    missing = dataclasses.MISSING
    made = 0
    read: tuple[tuple[str, ...], frozenset[str], tuple[tuple[str, bool, Any, Any], ...], bool] | None = None

    def __init__(self: Any, /, *args: Any, **kwargs: Any) -> None:  # (a field may be named self)
        nonlocal made, read
        made += 1
        if read is None:  # (at the first object: a class that makes none reads nothing)
            read = _fields_read(cls, slots)
        positional, names, plan, post_init = read
        if made > READ_INITS or len(args) > len(positional) or not names.issuperset(kwargs) \
                or not kwargs.keys().isdisjoint(positional[:len(args)]):
            _compiled(self, *args, **kwargs)
            return
        given = dict(zip(positional, args, strict=False))  # (args may be fewer)
        given.update(kwargs)
        values = []
        for name, init, default, factory in plan:
            if init and name in given:
                values.append((name, given[name]))
            elif default is not missing:
                values.append((name, default))
            elif factory is not missing:
                values.append((name, factory()))
            else:  # (a value missing: dataclasses' refusal, its words)
                _compiled(self, *args, **kwargs)
                return
        for name, value in values:
            assign(self, name, value)
        if post_init:
            self.__post_init__()

    def _compiled(self: Any, /, *args: Any, **kwargs: Any) -> None:
        init = _made_init(cls, frozen, slots)
        cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    __init__.__wrapped__ = _Signature(cls, frozen, slots)  # type: ignore[attr-defined]
    return __init__


def _fields_read(cls: Any, slots: bool) -> tuple[tuple[str, ...], frozenset[str], tuple[tuple[str, bool, Any, Any],
                                                                                       ...], bool]:
    """What _first_init reads of ``cls``: the names taken by position, every name __init__ takes, and the fields it
    sets, in their order (name, whether __init__ takes it, its default or MISSING, its factory or MISSING: a field
    not in __init__ is set by its factory, or by its default in a class with slots), and whether __post_init__ runs."""
    fields = dataclasses.fields(cls)
    return (tuple(f.name for f in fields if f.init and not f.kw_only), frozenset(f.name for f in fields if f.init),
            tuple((f.name, f.init, f.default, f.default_factory) for f in fields
                  if f.init or f.default_factory is not dataclasses.MISSING
                  or (slots and f.default is not dataclasses.MISSING)),
            hasattr(cls, "__post_init__"))


# Calls a `written_later` function answers by reading before its code is written. Reading a field costs about a
# hundredth of compiling its line, so a maker called past this many pays both: 16, not READ_INITS' 64, measured on
# the example lint (8 / 16 / 32 / 64: 567.9 / 566.8 / 567.0 / 566.9 M instructions) and a lint of the N=20 bench
# fabric, --jobs 1 (1,470.2 / 1,472.0 / 1,475.3 / 1,481.8 M; 1,479.5 M before: docs/lint-at-scale.md, "Session 44,
# part a").
READ_CALLS = 16


def written_later(text: str, filename: str, env: dict, read: Callable[..., Any]) -> Any:
    """A function ``make`` that answers its first READ_CALLS calls with ``read``'s answer to the same arguments and
    then runs the code of ``text`` (the source of a ``def make``, compiled with ``env`` its globals), as it does for
    any call ``read`` answers NotImplemented (one the code refuses, in its words): a maker a run calls a few times
    compiles nothing, one called thousands of times runs its written code, no call between (the function's own code
    is replaced: docs/lint-at-scale.md, "Session 44, part a")."""
    make: Any = types.FunctionType(_first_calls.__code__, env, "make")
    make.__qualname__ = "make"  # (the written code's name: a call's refusal names it)
    make.__kwdefaults__ = {"_later": _Later(make, text, filename, env, read)}
    return make


def _first_calls(*args: Any, _later: _Later, **kwargs: Any) -> Any:
    """The code a `written_later` function runs first (its globals are the written code's)."""
    return _later.call(args, kwargs)


class _Later:
    """A `written_later` function, what answers its first calls, and the code it runs after."""

    __slots__ = ("calls", "env", "filename", "make", "read", "text")

    def __init__(self, make: Any, text: str, filename: str, env: dict, read: Callable[..., Any]):
        self.make, self.text, self.filename, self.env, self.read, self.calls = make, text, filename, env, read, 0

    def call(self, args: tuple, kwargs: dict) -> Any:
        self.calls += 1
        if self.calls <= READ_CALLS:
            made = self.read(*args, **kwargs)
            if made is not NotImplemented:
                return made
        make = self.make
        # (defined in a namespace of this call's own, its globals env: two threads past READ_CALLS at once, as the
        # daemon's config reads are, each take the code they wrote, never the other's or none)
        space: dict[str, Any] = {}
        exec(compile(self.text, self.filename, "exec"), self.env, space)  # noqa: S102 - field names only
        written = space["make"]
        make.__code__, make.__defaults__, make.__kwdefaults__ = (written.__code__, written.__defaults__,
                                                                 written.__kwdefaults__)
        return make(*args, **kwargs)


class _Signature:
    """What inspect.signature reads of a record's first __init__ (following ``__wrapped__``): the signature of
    the one `_made_init` writes, made when asked (nothing in a lint asks)."""

    def __init__(self, cls: Any, frozen: bool, slots: bool):
        self._of = (cls, frozen, slots)

    def __call__(self, *args: Any, **kwargs: Any) -> None:  # (inspect reads the signature of callables alone)
        raise TypeError("not an __init__ to call")

    @property
    def __signature__(self) -> Any:
        import inspect

        return inspect.signature(_made_init(*self._of))


def _frozen(cls: Any, fields: tuple[dataclasses.Field, ...]) -> None:
    """A frozen class's __setattr__ and __delattr__, as dataclasses writes them, without compiling them."""
    names = tuple(f.name for f in fields)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for method in (__setattr__, __delattr__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)


def _check_order(fields: tuple[dataclasses.Field, ...]) -> None:
    """dataclasses' refusal of a field without a default after one with, which it makes writing __init__, in its
    words: from Python 3.13 they name the field with the default (CPython 3.13 Lib/dataclasses.py, _process_class)."""
    seen_default = None
    for f in fields:
        if f.init and not f.kw_only:
            if not (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING):
                seen_default = f
            elif seen_default is not None:
                named = f" {seen_default.name!r}" if sys.version_info >= (3, 13) else ""
                raise TypeError(f"non-default argument {f.name!r} follows default argument{named}")


# What a lazy record's class is made by here, not by dataclasses: Python 3.11 to 3.13, whose dataclasses were read
# for it (and the classes compared field by field with dataclasses' own on each: docs/lint-at-scale.md, "Session 44,
# part a"); any other Python has dataclasses make it.
_FIELD = getattr(dataclasses, "_FIELD", None)  # (the kind of Field dataclasses.fields() returns: no ClassVar, InitVar)
_DIRECT = (3, 11) <= sys.version_info[:2] <= (3, 13) and _FIELD is not None
# A class dataclasses made with each (frozen, slots, kw_only) a lazy record is made with: its __dataclass_params__
# (init True and the frozen-ness asked: _record writes the methods), and what else dataclasses puts in every class.
_REFERENCES: dict[tuple[bool, bool, bool], Any] = {}


def _dataclass(cls: Any, texts: dict[str, Any], frozen: bool, slots: bool, kw_only: bool) -> Any:
    """The class ``dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only)`` makes
    of a class `_fits_lazy` takes (a dataclass base not frozen, its fields first; no ClassVar, InitVar or KW_ONLY
    annotation), its fields' types the annotation texts, with the params of a record: the same fields (each field's
    options, its kind, its type, its keyword-only flag), refusals, class attributes, slots and __match_args__,
    without dataclasses' reading of each annotation and its class made a second time for the slots alone. About 0.2 M
    instructions a class less (docs/lint-at-scale.md, "Session 44, parts a and i")."""
    key = (frozen, slots, kw_only)
    reference = _REFERENCES.get(key)
    if reference is None:
        reference = dataclasses.dataclass(type("Reference", (), {"__doc__": "-"}), init=False, repr=False, eq=False,
                                          slots=slots, kw_only=kw_only)
        reference.__dataclass_params__.init, reference.__dataclass_params__.frozen = True, frozen
        _REFERENCES[key] = reference
    missing: Any = dataclasses.MISSING
    field_type = dataclasses.Field
    fields: dict[str, dataclasses.Field] = {}
    for base in cls.__mro__[-1:0:-1]:  # (dataclasses' _process_class: a dataclass base's fields first; _fits_lazy)
        fields.update(getattr(base, "__dataclass_fields__", {}))
    for name, text in texts.items():  # (dataclasses' _get_field)
        default = getattr(cls, name, missing)
        if isinstance(default, field_type):
            f = default
        else:
            if isinstance(default, types.MemberDescriptorType):  # (a base's slot: no default)
                default = missing
            f = dataclasses.field(default=default)
        f.name, f.type, f._field_type = name, text, _FIELD  # type: ignore[attr-defined]
        if f.kw_only is missing:
            f.kw_only = kw_only
        if f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        fields[name] = f
    own = cls.__dict__
    if any(isinstance(value, field_type) and name not in texts for name, value in own.items()):
        name = next(name for name, value in own.items() if isinstance(value, field_type) and name not in texts)
        raise TypeError(f"{name!r} is a field but has no type annotation")
    made = {"__dataclass_params__": reference.__dataclass_params__, "__dataclass_fields__": fields}
    if "__match_args__" not in own:
        made["__match_args__"] = tuple(f.name for f in fields.values() if f.init and not f.kw_only)
    if "__replace__" in reference.__dict__ and "__replace__" not in own:  # (Python 3.13: copy.replace)
        made["__replace__"] = reference.__replace__
    if slots:  # (dataclasses' _add_slots: the class made once more, its fields slots)
        if "__slots__" in own:
            raise TypeError(f"{cls.__name__} already specifies __slots__")
        inherited = {slot for base in cls.__mro__[1:-1] for slot in _slots_of(base)}
        namespace = {name: value for name, value in own.items()
                     if name not in fields and name != "__dict__" and name != "__weakref__"}
        namespace.update(made, __slots__=tuple(name for name in fields if name not in inherited))
        qualname = getattr(cls, "__qualname__", None)
        cls = type(cls)(cls.__name__, cls.__bases__, namespace)
        if qualname is not None:
            cls.__qualname__ = qualname
    else:
        for name, value in made.items():
            setattr(cls, name, value)
        for f in fields.values():
            if f.name in texts and isinstance(getattr(cls, f.name, None), field_type):
                if f.default is missing:
                    delattr(cls, f.name)
                else:
                    setattr(cls, f.name, f.default)
    abc.update_abstractmethods(cls)
    return cls


def _slots_of(cls: type) -> Iterable[str]:
    """A class's own slots, as dataclasses' _get_slots reads them."""
    slots = cls.__dict__.get("__slots__")
    if slots is None:
        return ()
    if isinstance(slots, str):
        return (slots,)
    if hasattr(slots, "__next__"):
        raise TypeError(f"Slots of '{cls.__name__}' cannot be determined")
    return slots


def _record(cls: Any, frozen: bool, slots: bool, kw_only: bool) -> Any:
    own = cls.__dict__
    has_eq = "__eq__" in own
    has_repr = "__repr__" in own
    # As dataclasses decides: a class's own __hash__ stays, but not the None Python sets beside an own __eq__.
    has_hash = "__hash__" in own and not (own["__hash__"] is None and has_eq)
    if _fits_lazy(cls, frozen, slots):
        # dataclasses asks of each annotation text whether it names ClassVar, InitVar or KW_ONLY (three pattern matches
        # and module look-ups a field: _fits_lazy said none does): given the fields' names alone, and the texts put
        # back into the class and its fields after (the model's import 5.4 M instructions less:
        # docs/lint-at-scale.md, "Session 43, part c").
        texts = own.get("__annotations__", {})
        if _DIRECT:
            cls = _dataclass(cls, texts, frozen, slots, kw_only)
        else:
            cls.__annotations__ = dict.fromkeys(texts, object)
            try:
                cls = dataclasses.dataclass(cls, slots=slots, kw_only=kw_only, init=False, repr=False, eq=False)
            finally:
                cls.__annotations__ = texts
            for f in dataclasses.fields(cls):
                if f.name in texts:  # (a base's fields are the base's)
                    f.type = texts[f.name]
            params = cls.__dataclass_params__
            params.init, params.frozen = True, frozen
        fields = dataclasses.fields(cls)
        _check_order(fields)
        cls.__init__ = _first_init(cls, fields, frozen, slots)
        if frozen:
            _frozen(cls, fields)
    else:
        cls = dataclasses.dataclass(cls, frozen=frozen, slots=slots, kw_only=kw_only, repr=False, eq=False)
        fields = dataclasses.fields(cls)
    if not has_eq:
        cls._compared = _values(f.name for f in fields if f.compare)
        cls.__eq__ = _eq
    if not has_repr:
        cls.__repr__ = _repr
    if not has_hash:
        if frozen:
            cls._hashed = _values(f.name for f in fields if (f.compare if f.hash is None else f.hash))
            cls.__hash__ = _hash
        else:
            cls.__hash__ = None
    return cls


if TYPE_CHECKING:  # (typing has dataclass_transform from Python 3.11; losslessd runs on 3.10)
    from typing_extensions import dataclass_transform

    @overload
    @dataclass_transform()  # (on the first overload: where mypy reads it)
    def record(cls: type[_T], /) -> type[_T]: ...

    @overload
    def record(*, frozen: bool = False, slots: bool = False, kw_only: bool = False) -> Callable[[type[_T]], type[_T]]:
        ...

    def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False, kw_only: bool = False) -> Any: ...
else:
    def record(cls=None, /, *, frozen=False, slots=False, kw_only=False):
        """``@dataclasses.dataclass`` (with these options) whose ==, hash and repr are shared, not compiled per
        class."""
        if cls is not None:
            return _record(cls, frozen, slots, kw_only)
        return lambda cls: _record(cls, frozen, slots, kw_only)
