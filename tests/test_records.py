"""A record (losslessd/records.py) is a dataclass whose ==, hash and repr are shared functions: each class below is
declared twice, once with @record and once with @dataclasses.dataclass, and the two must give the same answers
(equal or not, hash or none, the same repr, the same refusals to assign) for the same values."""

from __future__ import annotations

import dataclasses
import math

import pytest

from losslessd.model import Fabric, Port, Queue, Source
from losslessd.records import record


def _twins(options: dict, body: dict, annotations: dict, bases: tuple = ()):
    """The class ``Item`` made by @record and by @dataclasses.dataclass from the same body."""
    made = []
    for decorate in (record(**options), dataclasses.dataclass(**options)):
        namespace = {"__annotations__": dict(annotations), "__qualname__": "Item", **body}
        made.append(decorate(type("Item", bases, namespace)))
    return made


VARIANTS = {
    "plain": ({}, {"b": 2}, {"a": "int", "b": "int"}),
    "frozen": ({"frozen": True}, {"b": 2}, {"a": "int", "b": "int"}),
    "slots keywords": ({"slots": True, "kw_only": True}, {"b": 2}, {"a": "int", "b": "int"}),
    "one field": ({"frozen": True}, {}, {"a": "float"}),
    "no field": ({"frozen": True}, {}, {}),
    "field not compared": ({"frozen": True}, {"b": dataclasses.field(default=2, compare=False)},
                           {"a": "int", "b": "int"}),
    "field not hashed": ({"frozen": True}, {"b": dataclasses.field(default=2, hash=False)}, {"a": "int", "b": "int"}),
    "field not shown": ({}, {"b": dataclasses.field(default=2, repr=False)}, {"a": "int", "b": "int"}),
    "own ==": ({"frozen": True}, {"__eq__": lambda self, other: True}, {"a": "int"}),
    "own hash": ({}, {"__hash__": lambda self: 7}, {"a": "int"}),
    "own repr": ({}, {"__repr__": lambda self: "mine"}, {"a": "int"}),
}


def _answers(cls, values: list) -> list:
    """What a class's objects say: repr, == with each other and with a plain object, hash (or its refusal)."""
    def hashed(obj):
        try:
            return hash(obj)
        except TypeError as exc:
            return str(exc)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    objects = [cls(**dict(zip(names, v, strict=False))) for v in values]
    return ([repr(o) for o in objects] + [a == b for a in objects for b in objects] + [o == object() for o in objects]
            + [hashed(o) for o in objects] + [dataclasses.astuple(o) for o in objects])


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_record_answers_as_the_dataclass(variant):
    options, body, annotations = VARIANTS[variant]
    mine, theirs = _twins(options, body, annotations)
    nan = math.nan
    values = [(1, 2), (1, 2), (1, 3), (2, 2), (nan, 2), (nan,)] if annotations else [(), ()]
    assert _answers(mine, values) == _answers(theirs, values)
    if options.get("frozen"):
        obj = mine(**dict(zip([f.name for f in dataclasses.fields(mine)], values[0], strict=False)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.a = 5  # type: ignore[misc]


def test_a_subclass_compares_as_the_dataclass_subclass():
    """Another class with the same values is not equal (== asks for the same class), a subclass that declares no
    fields compares by its parent's."""
    mine, theirs = _twins({}, {}, {"a": "int"})
    for cls in (mine, theirs):
        sub = type("Sub", (cls,), {})
        assert sub(a=1) == sub(a=1) and sub(a=1) != cls(a=1) and repr(sub(a=1)) == "Sub(a=1)"


def test_an_object_inside_itself_shows_as_dots():
    mine, theirs = _twins({}, {}, {"a": "object"})
    shown = []
    for cls in (mine, theirs):
        obj = cls(a=None)
        obj.a = [obj]
        shown.append(repr(obj))
    assert shown[0] == shown[1] == "Item(a=[...])"


def test_the_model_compares_and_shows_as_before():
    """The model's classes are records (model_class): equal by value, unhashable, shown field by field."""
    assert Queue(index=3) == Queue(index=3) and Queue(index=3) != Queue(index=4)
    assert Queue(index=3) != Source(line=3)
    with pytest.raises(TypeError, match="unhashable"):
        hash(Queue(index=3))
    assert repr(Source(file="a", line=1)) == "Source(file='a', line=1, pointer=None, device=None, command=None)"
    assert Fabric() == Fabric() and Port(name="Ethernet0") == Port(name="Ethernet0")
