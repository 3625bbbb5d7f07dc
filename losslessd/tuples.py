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

import sys
import typing
from collections import namedtuple
from typing import TYPE_CHECKING, Any

__all__ = ["NamedTuple"]

# What the class body may not set, and what it sets that the class already has (as typing.NamedTuple says).
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make",
                         "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
# What a class body of Python 3.14 holds instead of __annotations__ when its module does not write
# ``from __future__ import annotations`` (PEP 649 and 749: the annotations are a function's, made when asked).
_ANNOTATE = ("__annotate__", "__annotate_func__")
_namedtuple: Any = namedtuple  # (its fields and defaults given at run time: not a literal a type checker reads)


class _NamedTupleMeta(type):
    def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if bases != (_Base,):
            raise TypeError("a NamedTuple inherits from NamedTuple alone")
        if "__annotations__" not in ns and any(key in ns for key in _ANNOTATE):
            raise TypeError(f"NamedTuple {typename}: its fields are not known without evaluating their annotations; "
                            "its module must write `from __future__ import annotations`")
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
        made.__orig_bases__ = (typing.NamedTuple,)  # (as typing's class statement leaves it: typing.get_original_bases)
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key in _SPECIAL:
                continue
            if key not in made._fields:
                setattr(made, key, value)
            _set_name(value, made, key, typename)
        return made

    def __instancecheck__(cls, obj: object) -> bool:
        raise TypeError("NamedTuple is no class to test an object against (as typing.NamedTuple is not)")

    def __subclasscheck__(cls, sub: type) -> bool:
        raise TypeError("NamedTuple is no class to test a class against (as typing.NamedTuple is not)")


def _set_name(value: Any, owner: type, key: str, typename: str) -> None:
    """A descriptor of the body told its class and name, as a class statement tells it (typing.NamedTuple does from
    Python 3.12: CPython Lib/typing.py NamedTupleMeta.__new__; a failure is noted as there, or wrapped in the
    RuntimeError type() raised before 3.12)."""
    try:
        set_name = type(value).__set_name__
    except AttributeError:
        return
    try:
        set_name(value, owner, key)
    except BaseException as e:
        note = f"Error calling __set_name__ on {type(value).__name__!r} instance {key!r} in {typename!r}"
        if sys.version_info >= (3, 12):
            e.add_note(note)
            raise
        raise RuntimeError(note) from e


_Base = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _Base
