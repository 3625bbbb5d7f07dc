"""Dataclasses whose ==, hash and repr are functions shared by every class instead of compiled for each one.

dataclasses writes each method it adds to a class as source text and compiles it: about 0.6 M instructions a
method, three methods a class (six when frozen). `record` lets dataclasses write only what must differ from class
to class (__init__; a frozen class's __setattr__ and __delattr__) and gives the class an ==, a hash and a repr that
behave as the ones dataclasses writes: the same fields, compared, hashed and shown the same way. The example lint's
start-up: 1,634 M instructions before the model's classes were records, and the numbers after each step
(docs/lint-at-scale.md, "Session 38, part c").
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


def _record(cls: Any, frozen: bool, slots: bool, kw_only: bool) -> Any:
    own = cls.__dict__
    has_eq = "__eq__" in own
    has_repr = "__repr__" in own
    # As dataclasses decides: a class's own __hash__ stays, but not the None Python sets beside an own __eq__.
    has_hash = "__hash__" in own and not (own["__hash__"] is None and has_eq)
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
