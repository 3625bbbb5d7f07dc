"""Validation of model objects, kept off the hot path.

Parsers build the model without checking each object (it is the costliest part of a large lint when done
per object); what they build is checked here, in the tests (``check``: strict, every field of every object
has its declared type) and where plain data enters from outside (``adapter``: pydantic, coercing as the
earlier pydantic model did: "3" -> 3 for int keys, "switch" -> DeviceKind.switch).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

from . import Model


@cache
def adapter(cls: type):
    """A pydantic TypeAdapter for one model class (built on first use: pydantic builds validators slowly)."""
    from pydantic import TypeAdapter

    return TypeAdapter(cls)


class ModelTypeError(TypeError):
    """A model object holds a value of another type than its field declares."""


def check(obj: Model, where: str | None = None) -> None:
    """Raise ModelTypeError naming the first field (as a path) whose value is not of its declared type.

    Strict: an int is no float, a str no enum, a tuple no list, so what a parser builds is exactly what a
    dump of it shows and what rules expect."""
    _check(obj, type(obj), where or type(obj).__name__)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _check(value: Any, tp: Any, path: str) -> None:
    origin = get_origin(tp)
    if tp is Any:
        return
    if origin in (Union, types.UnionType):
        args = [arg for arg in get_args(tp) if arg is not type(None)]
        if value is None and len(args) < len(get_args(tp)):
            return
        if len(args) == 1:
            _check(value, args[0], path)
            return
        errors = []
        for arg in args:
            try:
                _check(value, arg, path)
                return
            except ModelTypeError as exc:
                errors.append(str(exc))
        raise ModelTypeError(errors[-1] if len(errors) == 1 else f"{path}: {value!r} is none of {tp}")
    if tp is type(None):
        if value is not None:
            raise ModelTypeError(f"{path}: {value!r} is not None")
        return
    if origin is Literal:
        if value not in get_args(tp) or type(value) is not str:
            raise ModelTypeError(f"{path}: {value!r} is not one of {get_args(tp)}")
        return
    if origin in (list, dict, tuple):
        if type(value) is not origin:
            raise ModelTypeError(f"{path}: {type(value).__name__} where a {origin.__name__} belongs")
        params = get_args(tp)
        if origin is list:
            for n, item in enumerate(value):
                _check(item, params[0], f"{path}[{n}]")
        elif origin is dict:
            for key, item in value.items():
                _check(key, params[0], f"{path} key {key!r}")
                _check(item, params[1], f"{path}[{key!r}]")
        else:
            if len(value) != len(params):
                raise ModelTypeError(f"{path}: {len(value)} items where {len(params)} belong")
            for n, (item, arg) in enumerate(zip(value, params, strict=True)):
                _check(item, arg, f"{path}[{n}]")
        return
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, tp):
            raise ModelTypeError(f"{path}: {type(value).__name__} where a {tp.__name__} belongs")
        for name, hint in _hints(tp).items():
            _check(getattr(value, name), hint, f"{path}.{name}")
        return
    if isinstance(tp, type) and issubclass(tp, Enum):
        if not isinstance(value, tp):
            raise ModelTypeError(f"{path}: {value!r} is not a {tp.__name__}")
        return
    if tp in (int, str, bool, float):
        if type(value) is not tp:
            raise ModelTypeError(f"{path}: {type(value).__name__} {value!r} where a {tp.__name__} belongs")
        return
    raise ModelTypeError(f"{path}: cannot check type {tp}")
