"""typing.NamedTuple's class syntax, made without typing checking each annotation.

A module written with ``from __future__ import annotations`` gives typing.NamedTuple each field's annotation as text,
and typing makes a ForwardRef of each, compiling the text: a class of 7 fields cost 2.5 M instructions to make, 0.6 M
of them collections.namedtuple's own, and the 11 classes a lint of the example made in the rules, the engine and the
paths 14 M of its 576 M (docs/lint-at-scale.md, "Session 44, part c"). ``class X(NamedTuple)`` with this module's
NamedTuple makes the class typing.NamedTuple makes (collections.namedtuple's, with the body's defaults, methods and
docstring, its module and qualified name), its ``__annotations__`` the texts as written; type checkers see
typing.NamedTuple itself.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING, Any

__all__ = ["NamedTuple"]

# What the class body may not set, and what it sets that the class already has (as typing.NamedTuple says).
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make",
                         "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_namedtuple: Any = namedtuple  # (its fields and defaults given at run time: not a literal a type checker reads)


class _NamedTupleMeta(type):
    def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if bases != (_Base,):
            raise TypeError("a NamedTuple inherits from NamedTuple alone")
        types = ns.get("__annotations__", {})
        defaults: list[str] = []
        for name in types:
            if name in ns:
                defaults.append(name)
            elif defaults:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow default field"
                                f"{'s' if len(defaults) > 1 else ''} {', '.join(defaults)}")
        made = _namedtuple(typename, list(types), defaults=[ns[n] for n in defaults], module=ns["__module__"])
        made.__annotations__ = made.__new__.__annotations__ = dict(types)
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in made._fields:
                setattr(made, key, value)
        return made


_Base = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _Base
