"""Dataclasses whose ==, hash and repr are functions shared by every class instead of compiled for each one.

dataclasses writes each method it adds to a class as source text and compiles it: about 0.6 M instructions a
method, three methods a class (six when frozen). `record` gives the class an ==, a hash and a repr that behave as the
ones dataclasses writes: the same fields, compared, hashed and shown the same way. The example lint's start-up:
1,634 M instructions before the model's classes were records, and the numbers after each step (docs/lint-at-scale.md,
"Session 38, part c"). dataclasses writes a record's __init__ when the class's first object is made (most classes a
lint imports make none in a given run), and a frozen record's __setattr__ and __delattr__ are closures, not compiled
(docs/lint-at-scale.md, "Session 41, part b").
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
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
    (its own __init__ or a dataclass base, InitVar or ClassVar fields, frozen with slots: pickling needs dataclasses'
    __getstate__, no docstring: dataclasses writes one from __init__'s signature) is made as dataclasses makes it."""
    own = cls.__dict__
    if "__init__" in own or not cls.__doc__ or (frozen and ("__setattr__" in own or "__delattr__" in own or slots)):
        return False
    if any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        return False
    hints = own.get("__annotations__", {}).values()
    return not any("InitVar" in str(hint) or "ClassVar" in str(hint) or "KW_ONLY" in str(hint) for hint in hints)


def _made_init(cls: Any, frozen: bool, slots: bool) -> Callable[..., None]:
    """The __init__ dataclasses writes for ``cls``: made for a class of the same fields (the same default and factory
    objects, types and keyword-only flags) and the same __post_init__, whose presence alone counts (the __init__
    calls ``self.__post_init__()``)."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                                 "__doc__": cls.__doc__}  # (a docstring: dataclasses writes none from the signature)
    fields = dataclasses.fields(cls)
    for f in fields:
        namespace["__annotations__"][f.name] = object  # (a text would be read for ClassVar and InitVar again)
        namespace[f.name] = dataclasses.field(default=f.default, default_factory=f.default_factory, init=f.init,
                                              kw_only=f.kw_only)
    if hasattr(cls, "__post_init__"):
        namespace["__post_init__"] = cls.__post_init__
    # Slots change only how a field not in __init__ is given its default (assigned there, not a class attribute)
    slots = slots and any(not f.init and f.default is not dataclasses.MISSING for f in fields)
    twin: Any = dataclasses.dataclass(type(cls.__name__, (), namespace), frozen=frozen, slots=slots, repr=False,
                                      eq=False, match_args=False)
    init = twin.__init__
    types = {f.name: f.type for f in fields}
    init.__annotations__ = {name: types.get(name, hint) for name, hint in init.__annotations__.items()}
    return init


# Objects a record's __init__ makes by reading its fields before dataclasses writes (and compiles) the one it runs
# from then on: a class a lint makes a few objects of compiles none (the platforms' table makes 10 `Platform`s of 28
# fields and 8 `RenderLimits` of 21 at import), one made thousands of times (a port, a queue) runs dataclasses' own for
# all but these first few. 64, not 16: the example lint made 17 to 55 objects of 11 records (PgRow, Finding, Queue,
# the platforms' Command ...), each of which compiled its __init__ (the example lint 689.1 -> 677.8 M instructions,
# one NX-OS switch 523.1 -> 519.0 M, 128 was 681.4 M: docs/lint-at-scale.md, "Session 43, part c").
READ_INITS = 64


def _first_init(cls: Any, frozen: bool, slots: bool) -> Callable[..., None]:
    """An __init__ that makes the class's first READ_INITS objects as dataclasses' __init__ does, from its fields
    (each value given, else its default or a call of its factory, set in the fields' order, then __post_init__),
    and then puts dataclasses' own in its place: a class the run makes few objects of compiles none (about 0.5 M
    instructions a class, more for many fields: docs/lint-at-scale.md, "Session 41, part b" and "Session 42, part
    a"). A call that does not fit the fields (a value missing, one too many, a name no field has) is passed to
    dataclasses' own, which refuses it as ever."""
    assign = object.__setattr__ if frozen else setattr
    missing = dataclasses.MISSING
    made = 0
    read: tuple[tuple[str, ...], frozenset[str], tuple[tuple[str, bool, Any, Any], ...], bool] | None = None

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
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

    def _compiled(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _made_init(cls, frozen, slots)
        cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__annotations__ = {f.name: f.type for f in dataclasses.fields(cls) if f.init} | {"return": None}
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


class _Signature:
    """What inspect.signature reads of a record's first __init__ (following ``__wrapped__``): the signature of
    dataclasses' own, made when asked (nothing in a lint asks)."""

    def __init__(self, cls: Any, frozen: bool, slots: bool):
        self._of = (cls, frozen, slots)

    def __call__(self, *args: Any, **kwargs: Any) -> None:  # (inspect reads the signature of callables alone)
        raise TypeError("not an __init__ to call")

    @property
    def __signature__(self) -> Any:
        import inspect

        return inspect.signature(_made_init(*self._of))


def _frozen(cls: Any) -> None:
    """A frozen class's __setattr__ and __delattr__, as dataclasses writes them, without compiling them."""
    names = tuple(f.name for f in dataclasses.fields(cls))

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


def _check_order(cls: Any) -> None:
    """dataclasses' refusal of a field without a default after one with, which it makes writing __init__."""
    seen_default = False
    for f in dataclasses.fields(cls):
        if f.init and not f.kw_only:
            if not (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING):
                seen_default = True
            elif seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")


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
        cls.__annotations__ = dict.fromkeys(texts, object)
        try:
            cls = dataclasses.dataclass(cls, slots=slots, kw_only=kw_only, init=False, repr=False, eq=False)
        finally:
            cls.__annotations__ = texts
        for f in dataclasses.fields(cls):
            f.type = texts[f.name]
        _check_order(cls)
        params = cls.__dataclass_params__
        params.init, params.frozen = True, frozen
        cls.__init__ = _first_init(cls, frozen, slots)
        if frozen:
            _frozen(cls)
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
