"""A record (losslessd/records.py) is a dataclass whose ==, hash and repr are shared functions: each class below is
declared twice, once with @record and once with @dataclasses.dataclass, and the two must give the same answers
(equal or not, hash or none, the same repr, the same refusals to assign) for the same values."""

from __future__ import annotations

import dataclasses
import inspect
import math
import pickle
import subprocess
import sys

import pytest

from losslessd import records
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


# Session 41 (part b): dataclasses writes a record's __init__ when the class's first object is made, and a frozen
# record's __setattr__ and __delattr__ are closures (records._first_init, _frozen). Each class below and every record
# of losslessd is held to the dataclass of the same fields.
INIT_VARIANTS = {
    "post-init": ({}, {"b": 2, "__post_init__": lambda self: setattr(self, "c", self.a + self.b)},
                  {"a": "int", "b": "int"}),
    "frozen post-init": ({"frozen": True}, {"__post_init__": lambda self: object.__setattr__(self, "c", 1)},
                         {"a": "int"}),
    "factory and no-init field": ({}, {"b": dataclasses.field(default_factory=list),
                                       "c": dataclasses.field(default=5, init=False)}, {"a": "int", "b": "list",
                                                                                      "c": "int"}),
    "slots no-init default": ({"slots": True}, {"c": dataclasses.field(default=5, init=False)},
                              {"a": "int", "c": "int"}),
    "keywords and positional": ({}, {"b": dataclasses.field(default=1, kw_only=True)}, {"a": "int", "b": "int"}),
}


def _init_answers(cls, sentinel, pickled: bool = False) -> list:
    """What making an object of ``cls`` answers (with ``sentinel`` for each field it needs), then its signature,
    __init__'s annotations and name, its class's parameters, match arguments and docstring, each field's value, and
    a frozen object's refusals, each as its text; ``pickled``: last, whether a pickle's copy holds the same values."""
    needed = {f.name: sentinel for f in dataclasses.fields(cls) if f.init and f.default is dataclasses.MISSING
              and f.default_factory is dataclasses.MISSING}
    try:
        obj = cls(**needed)
    except Exception as exc:  # (a __post_init__ refusing the sentinel: both must refuse it alike)  # noqa: BLE001
        return [type(exc).__name__, str(exc)]
    params = cls.__dataclass_params__
    out = [str(inspect.signature(cls)), cls.__init__.__annotations__, cls.__init__.__qualname__, params.init,
           params.frozen, cls.__match_args__, cls.__doc__]
    # (what a factory made, an asyncio event or a clock's reading, is compared by its type)
    out += [type(value) if f.default_factory is not dataclasses.MISSING or type(value).__eq__ is object.__eq__
            else value for f, value in ((f, getattr(obj, f.name, "<unset>")) for f in dataclasses.fields(cls))]
    if params.frozen:
        for act in (lambda: setattr(obj, dataclasses.fields(cls)[0].name if dataclasses.fields(cls) else "x", 1),
                    lambda: setattr(obj, "not_a_field", 1), lambda: delattr(obj, "not_a_field")):
            with pytest.raises(dataclasses.FrozenInstanceError) as refused:
                act()
            out.append(str(refused.value))
    if pickled:
        try:
            copy = pickle.loads(pickle.dumps(obj))
        except (TypeError, pickle.PicklingError):  # (an object holding a lock or an event is never pickled)
            out.append(True)
        else:
            out.append(all(getattr(copy, f.name, "<unset>") == getattr(obj, f.name, "<unset>")
                           for f in dataclasses.fields(cls) if f.default_factory is dataclasses.MISSING))
    return out


@pytest.mark.parametrize("variant", INIT_VARIANTS)
def test_a_records_init_answers_as_the_dataclasss(variant):
    options, body, annotations = INIT_VARIANTS[variant]
    mine, theirs = _twins(options, {"__doc__": "An item.", **body}, annotations)
    for _ in range(records.READ_INITS):  # (the objects made from the fields)
        assert mine.__init__.__code__.co_filename == records.__file__  # (not written by dataclasses yet)
        assert _init_answers(mine, 3) == _init_answers(theirs, 3)
    assert _init_answers(mine, 3) == _init_answers(theirs, 3)
    assert mine.__init__.__code__.co_filename == theirs.__init__.__code__.co_filename  # (now dataclasses')
    assert _answers(mine, [(1,), (2,)]) == _answers(theirs, [(1,), (2,)])


# Every way of calling __init__: each value by position, by name, both; one missing, one too many, a name no field
# has, one given twice, a keyword-only one by position, a field not in __init__ by name.
CALLS = [((), {}), ((1,), {}), ((1, 2), {}), ((1, 2, 3), {}), ((1, 2, 3, 4), {}), ((), {"a": 1}),
         ((), {"a": 1, "b": 2}), ((1,), {"b": 2}), ((1,), {"a": 2}), ((), {"b": 2}), ((), {"z": 1}),
         ((1,), {"c": 9}), ((1, 2), {"b": 3}), ((), {"a": 1, "b": 2, "c": 3})]
CALL_VARIANTS = {**INIT_VARIANTS, "two needed": ({"frozen": True}, {"c": 3}, {"a": "int", "b": "str", "c": "int"}),
                 "keywords only": ({"kw_only": True}, {"b": 2}, {"a": "int", "b": "int"}),
                 "own setattr": ({}, {"b": 2, "__setattr__": lambda self, name, value: object.__setattr__(
                     self, name, value * 2 if name == "a" else value)}, {"a": "int", "b": "int"})}


def _called(cls, args: tuple, kwargs: dict) -> list:
    try:
        obj = cls(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  (the refusal, its words: both alike)
        return [type(exc).__name__, str(exc)]
    return [getattr(obj, f.name, "<unset>") for f in dataclasses.fields(cls)] + [vars(obj) if hasattr(obj, "__dict__")
                                                                                   else None]


@pytest.mark.parametrize("variant", CALL_VARIANTS)
def test_a_records_first_objects_are_made_as_the_dataclass_makes_them(variant):
    """Each call shape on a fresh record (its __init__ reading the fields) and on one past READ_INITS objects
    (dataclasses' own by then) answers as the dataclass: the same values, or the same refusal in the same words."""
    options, body, annotations = CALL_VARIANTS[variant]
    for args, kwargs in CALLS:
        mine, theirs = _twins(options, {"__doc__": "An item.", **body}, annotations)
        assert _called(mine, args, kwargs) == _called(theirs, args, kwargs), (args, kwargs)
    mine, theirs = _twins(options, {"__doc__": "An item.", **body}, annotations)
    for args, kwargs in CALLS * 2:  # (the refusals pass to dataclasses' __init__, which then stays)
        assert _called(mine, args, kwargs) == _called(theirs, args, kwargs), (args, kwargs)
    assert mine.__init__.__code__.co_filename == "<string>"


def test_a_factory_is_called_for_each_object_and_post_init_after_every_field():
    calls = []
    mine, theirs = _twins({}, {"__doc__": "An item.", "b": dataclasses.field(default_factory=lambda: calls.append(1)
                                                                            or [len(calls)]),
                               "__post_init__": lambda self: calls.append(("post", self.a, self.b))},
                          {"a": "int", "b": "list"})
    for cls in (mine, theirs, mine, theirs):
        cls(5)
    assert calls == [1, ("post", 5, [1]), 1, ("post", 5, [3]), 1, ("post", 5, [5]), 1, ("post", 5, [7])]


# The shapes records._fits_lazy leaves to dataclasses whole: an init-only variable (its __init__ takes a parameter no
# field has), no docstring (dataclasses writes one from __init__'s signature). (Frozen with slots is one too, but
# Python 3.11's dataclasses refuses such an object's own attribute with a TypeError from super(): nothing to hold to.)
WHOLE_VARIANTS = {
    "init-only variable": ({}, {"__doc__": "An item.", "__post_init__": lambda self, b: setattr(self, "c", self.a + b)},
                           {"a": "int", "b": dataclasses.InitVar[int]}),
    "no docstring": ({}, {"__doc__": None, "b": 2}, {"a": "int", "b": "int"}),
}


@pytest.mark.parametrize("variant", WHOLE_VARIANTS)
def test_a_record_of_a_shape_dataclasses_makes_whole_answers_as_the_dataclass(variant):
    """Each variant made lazy, as the others are, answered otherwise: the init-only variable missing from __init__'s
    signature, the docstring written from no signature."""
    options, body, annotations = WHOLE_VARIANTS[variant]
    mine, theirs = _twins(options, body, annotations)
    assert (str(inspect.signature(mine)), mine.__doc__) == (str(inspect.signature(theirs)), theirs.__doc__)
    assert _init_answers(mine, 3) == _init_answers(theirs, 3)


def test_a_default_before_a_field_without_is_refused_as_dataclasses_refuses_it():
    """In dataclasses' words on each Python (3.13's name the field with the default too)."""
    refused = []
    for decorate in (record, dataclasses.dataclass):
        with pytest.raises(TypeError, match="non-default argument 'b' follows default argument") as refusal:
            decorate(type("Item", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1, "__doc__": "x"}))
        refused.append(str(refusal.value))
    assert refused[0] == refused[1]


def _twin_of(cls):
    """The dataclass of ``cls``'s fields (each field's options, and its __post_init__) made by dataclasses."""
    namespace = {"__annotations__": {}, "__qualname__": cls.__qualname__, "__module__": cls.__module__,
                 "__doc__": cls.__doc__}
    for f in dataclasses.fields(cls):
        namespace["__annotations__"][f.name] = f.type
        namespace[f.name] = dataclasses.field(default=f.default, default_factory=f.default_factory, init=f.init,
                                              repr=f.repr, hash=f.hash, compare=f.compare, metadata=f.metadata,
                                              kw_only=f.kw_only)
    if hasattr(cls, "__post_init__"):
        namespace["__post_init__"] = cls.__post_init__
    return dataclasses.dataclass(type(cls.__name__, (), namespace), frozen=cls.__dataclass_params__.frozen,
                                 slots="__slots__" in cls.__dict__)


def _records_of_losslessd() -> list:
    from tests.test_lazyre import _modules
    return sorted({value for module in _modules() for value in vars(module).values()
                   if isinstance(value, type) and value.__module__ == module.__name__
                   and value.__dict__.get("__repr__") is records._repr},
                  key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def test_every_record_of_losslessd_makes_its_objects_as_the_dataclass():
    """Class by class: the object made with a value for each field it needs (or the same refusal), the signature,
    the frozen refusals and a pickle's copy are the dataclass's, and the first object replaced the lazy __init__."""
    for cls in _records_of_losslessd():
        twin = _twin_of(cls)
        sentinel = "a value"  # (one a pickle's copy equals)
        # (the twin is no module's attribute, so pickle cannot find it: only the record's own copy is checked)
        mine, theirs = _init_answers(cls, sentinel, pickled=True), _init_answers(twin, sentinel)
        name = f"{cls.__module__}.{cls.__qualname__}"
        if len(theirs) == 2:  # (the same refusal)
            assert mine == theirs, name
            continue
        assert mine[:-1] == theirs and mine[-1] is True, name
        for _ in range(records.READ_INITS):
            assert _init_answers(cls, sentinel) == theirs, name
        assert cls.__init__.__code__.co_filename != records.__file__, name


_COUNT_LAZY = """
import sys
import losslessd.api
from losslessd import records
made = [v for m in list(sys.modules.values()) if m.__name__.startswith("losslessd") for v in vars(m).values()
        if isinstance(v, type) and v.__module__ == m.__name__ and v.__dict__.get("__repr__") is records._repr]
print(sum(c.__init__.__code__.co_filename == records.__file__ for c in made), len(made),
      all(c.__init__.__code__.co_filename == records.__file__ for c in made if c.__module__ == "losslessd.model"))
"""


@pytest.mark.slow
def test_what_a_lint_imports_compiles_no_init_before_its_first_object():
    """In a fresh interpreter, the records ``losslessd.api`` imports have the first-object __init__: every model
    class's, 36 in all, `Platform` and `RenderLimits` among them, and, since READ_INITS is 64, `Command` too (the
    platforms' table makes 38 of them at import: it compiled an __init__ when READ_INITS was 16)."""
    assert records.READ_INITS > 38
    out = subprocess.run([sys.executable, "-c", _COUNT_LAZY], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) >= 39 and int(out[0]) == int(out[1]) and out[2] == "True", out


def test_every_records_fields_and_annotations_are_its_texts():
    """records hands dataclasses a lazy record's fields by name alone (no annotation text to match against ClassVar,
    InitVar and KW_ONLY) and puts the texts back: each field's type and the class's annotations are the texts the
    class body wrote, as dataclasses leaves them, and typing reads the same hints as of the dataclass."""
    import typing

    for cls in _records_of_losslessd():
        own = [vars(k).get("__annotations__", {}) for k in reversed(cls.__mro__)]
        written = {name: text for annotations in own for name, text in annotations.items()}
        name = f"{cls.__module__}.{cls.__qualname__}"
        assert [f.type for f in dataclasses.fields(cls)] == [written[f.name] for f in dataclasses.fields(cls)], name
        assert all(text is not object for text in cls.__dict__.get("__annotations__", {}).values()), name
        twin = _twin_of(cls)
        assert typing.get_type_hints(cls, vars(sys.modules[cls.__module__])) == typing.get_type_hints(
            twin, vars(sys.modules[cls.__module__])), name


# Session 44 (part a): past READ_INITS objects a record's __init__ is code of its shape given the class's names
# (records._made_init), no class made for dataclasses to write it, and a shape's code compiled once a process.
SHAPES = {**CALL_VARIANTS, "a field named self": ({}, {"b": 2}, {"self": "int", "b": "int"}),
          "frozen factory and no-init field": ({"frozen": True},
                                               {"b": dataclasses.field(default_factory=list),
                                                "c": dataclasses.field(default_factory=dict, init=False)},
                                               {"a": "int", "b": "list", "c": "dict"}),
          "slots factory and no-init default": ({"slots": True, "kw_only": True},
                                                {"b": dataclasses.field(default_factory=list),
                                                 "c": dataclasses.field(default=5, init=False)},
                                                {"a": "int", "b": "list", "c": "int"})}


@pytest.mark.parametrize("variant", SHAPES)
def test_a_records_written_init_makes_no_class_and_answers_as_the_dataclasss(variant, monkeypatch):
    options, body, annotations = SHAPES[variant]
    mine, theirs = _twins(options, {"__doc__": "An item.", **body}, annotations)
    made = mine.__init__.__wrapped__.__signature__  # (inspect's signature, read before dataclasses is refused)
    monkeypatch.setattr(records.dataclasses, "dataclass", None)  # (a class made for dataclasses: a TypeError)
    init = records._made_init(mine, options.get("frozen", False), options.get("slots", False))
    monkeypatch.undo()
    assert made == inspect.signature(theirs.__init__)
    assert (inspect.signature(init), init.__annotations__, init.__qualname__, init.__module__, init.__name__,
            init.__code__.co_filename) == (inspect.signature(theirs.__init__), theirs.__init__.__annotations__,
                                           theirs.__init__.__qualname__, theirs.__init__.__module__, "__init__",
                                           "<string>")
    mine.__init__ = init
    for args, kwargs in CALLS:
        assert _called(mine, args, kwargs) == _called(theirs, args, kwargs), (args, kwargs)


def test_records_of_one_shape_share_one_compiled_code(monkeypatch):
    """Two classes of the same kinds of fields (other names, defaults and types) compile one code between them;
    a class of another shape compiles its own."""
    compiled = []
    monkeypatch.setattr(records, "compile", lambda *args: compiled.append(args[0]) or compile(*args), raising=False)
    monkeypatch.setattr(records, "_TEMPLATES", {})
    one = record(slots=True, kw_only=True)(type("One", (), {"__doc__": "x", "__annotations__": {"a": "int",
                                                                                                "b": "str"}, "b": ""}))
    two = record(slots=True, kw_only=True)(type("Two", (), {"__doc__": "x", "__annotations__": {"x": "float",
                                                                                                "y": "list"}}))
    three = record(slots=True)(type("Three", (), {"__doc__": "x", "__annotations__": {"x": "float", "y": "list"}}))
    inits = [records._made_init(cls, False, True) for cls in (one, two, three)]
    assert len(compiled) == 2 and inits[0].__code__.co_code == inits[1].__code__.co_code
    assert inits[1].__code__.co_varnames == ("self", "x", "y") and inits[0].__kwdefaults__ == {"b": ""}
    for cls, init in zip((one, two, three), inits, strict=True):
        cls.__init__ = init
    assert (one(a=1).b, two(x=1.5, y=[2]).y, three(1.5, [3]).y) == ("", [2], [3])
    with pytest.raises(TypeError, match=r"Two.__init__\(\) missing 1 required keyword-only argument: 'y'"):
        two(x=1.5)


# Session 44 (part a): a lazy record's class is made by records._dataclass (Python 3.11 to 3.13), not by dataclasses:
# every record is held, part by part, to the class dataclasses made of it before (records._DIRECT off).
_DESCRIBE = """
import dataclasses, sys
from losslessd import records
records._DIRECT = records._DIRECT and sys.argv[1] == "direct"
from tests.test_lazyre import _modules
from tests.test_records import describe
made = sorted({value for module in _modules() for value in vars(module).values()
               if isinstance(value, type) and value.__module__ == module.__name__
               and value.__dict__.get("__repr__") is records._repr},
              key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
print(len(made))
for cls in made:
    print(describe(cls))
"""


def describe(cls) -> str:
    """What dataclasses makes of a class, as text: each field's options, kind, type and keyword-only flag, the class's
    params, __match_args__, slots, base classes, its own attributes by name (a field's default, a function's name)."""
    def shown(value):
        if callable(value) and hasattr(value, "__qualname__"):
            return f"<{type(value).__name__} {value.__qualname__}>"
        return repr(value)
    fields = [(name, f.name, f.type, shown(f.default), shown(f.default_factory), f.init, f.repr, f.hash, f.compare,
               dict(f.metadata), f.kw_only, repr(f._field_type)) for name, f in cls.__dataclass_fields__.items()]
    params = cls.__dataclass_params__
    own = sorted((name, shown(value)) for name, value in vars(cls).items()
                 if name not in ("__dataclass_fields__", "__dataclass_params__", "__init__", "__dict__", "__weakref__"))
    import re

    return re.sub(r" at 0x[0-9a-f]+", "", repr((  # (an object's address: another in each process)
        cls.__module__, cls.__qualname__, fields, repr(params), [k.__qualname__ for k in cls.__mro__], own,
        inspect.signature(cls), dataclasses.fields(cls) == tuple(cls.__dataclass_fields__.values()),
        "__dict__" in vars(cls), "__weakref__" in vars(cls))))


@pytest.mark.slow
def test_every_record_is_the_class_dataclasses_made_of_it():
    """Each record of losslessd (every module imported) described alike when its class is made by records._dataclass
    and by dataclasses (with records._DIRECT off, the code before): fields, params, match arguments, slots, class
    attributes, signature."""
    import os
    from pathlib import Path

    root, env = Path(__file__).resolve().parents[1], {**os.environ, "PYTHONHASHSEED": "0"}  # (a set shown alike)
    out = [subprocess.run([sys.executable, "-c", _DESCRIBE, way], capture_output=True, text=True, check=True,
                          cwd=root, env=env).stdout.splitlines() for way in ("direct", "dataclasses")]
    assert int(out[0][0]) > 70 and records._DIRECT
    for mine, theirs in zip(out[0], out[1], strict=True):
        assert mine == theirs


@pytest.mark.parametrize("variant", {**VARIANTS, **SHAPES, **WHOLE_VARIANTS})
def test_a_records_class_is_the_class_dataclasses_made(variant, monkeypatch):
    options, body, annotations = {**VARIANTS, **SHAPES, **WHOLE_VARIANTS}[variant]
    made = []
    for direct in (True, False):
        monkeypatch.setattr(records, "_DIRECT", direct)
        made.append(record(**options)(type("Item", (), {"__annotations__": dict(annotations), "__qualname__": "Item",
                                                        "__doc__": "An item.", **body})))
    assert describe(made[0]) == describe(made[1])


@pytest.mark.parametrize("options,body", [({}, {"b": []}), ({"slots": True}, {"b": {}}),
                                          ({}, {"c": dataclasses.field(default=1)}),
                                          ({"slots": True}, {"__slots__": ("a",)})])
def test_a_records_class_refused_as_dataclasses_refuses_it(options, body, monkeypatch):
    """A mutable default, a field without annotation, slots of its own: refused in dataclasses' words."""
    refused = []
    for direct in (True, False):
        monkeypatch.setattr(records, "_DIRECT", direct)
        with pytest.raises((TypeError, ValueError)) as refusal:
            record(**options)(type("Item", (), {"__annotations__": {"a": "int", "b": "list"}, "__doc__": "An item.",
                                                "a": 1, **body}))
        refused.append((type(refusal.value), str(refusal.value)))
    assert refused[0] == refused[1]


def test_a_lazy_records_class_is_made_without_dataclasses(monkeypatch):
    """Past the first class of its options (whose params a class dataclasses makes gives), a lazy record's class is
    made by records alone: no annotation read by dataclasses, no class made again for its slots."""
    for options in ({"slots": True, "kw_only": True}, {"frozen": True}, {}):
        record(**options)(type("First", (), {"__annotations__": {"a": "int"}, "__doc__": "x"}))
        monkeypatch.setattr(records.dataclasses, "dataclass", None)
        item = record(**options)(type("Item", (), {"__annotations__": {"a": "int", "b": "list"}, "__doc__": "x",
                                                   "b": dataclasses.field(default_factory=list)}))
        monkeypatch.undo()
        assert [f.name for f in dataclasses.fields(item)] == ["a", "b"] and item(a=1).b == []


def test_a_maker_written_in_two_threads_at_once_gives_each_its_code():
    """Two threads past a written_later maker's READ_CALLS at once (the daemon reads devices' configs in a pool of
    threads, each parsed with the positional makers) each write its code and run it: the second's definition made
    while the first's was being taken was popped by the first, and the second's call failed (KeyError)."""
    import threading

    both_defined = threading.Barrier(2, timeout=30)
    # (the text's statement after its def holds each thread until both have defined their make)
    env = {"_both": both_defined.wait}
    make = records.written_later("def make(a):\n    return a + 1\n_both()\n", "<make Item>", env, lambda a: a + 1)
    assert [make(i) for i in range(records.READ_CALLS)] == list(range(1, records.READ_CALLS + 1))
    made: list[object] = []

    def call(value):
        try:
            made.append(make(value))
        except Exception as exc:  # noqa: BLE001 - the failure the test looks for
            made.append(exc)

    threads = [threading.Thread(target=call, args=(value,)) for value in (10, 20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(made, key=repr) == [11, 21] and make(5) == 6


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"slots": True}])
def test_a_field_named_self_is_given_by_keyword_as_dataclasses_take_it(options):
    """dataclasses' __init__ calls its object __dataclass_self__ where a field is named self: a record's first objects
    (READ_INITS, made by reading the fields) were refused ("got multiple values for argument 'self'")."""
    made = []
    for decorate in (record, dataclasses.dataclass):
        namespace = {"__annotations__": {"self": "int", "other": "int"}, "__doc__": "x"}
        cls = decorate(**options)(type("Item", (), namespace))
        made.append([(o.self, o.other) for o in (cls(self=1, other=2), cls(3, other=4), cls(5, 6))])
    assert made[0] == made[1] == [(1, 2), (3, 4), (5, 6)]


# Session 44 (part i): a record whose base is a record (parse/eos/reader.py's InterfaceConf(QosConf)) is made by
# records._dataclass too, the base's fields first; a frozen one, or one of a frozen base, is dataclasses' whole.
_BASED = {
    "plain": ({}, {}),
    "slots": ({"slots": True}, {"slots": True}),
    "keywords": ({"kw_only": True}, {}),
    "base keywords": ({}, {"kw_only": True}),
}


def _based(base_options: dict, options: dict):
    base = record(**base_options)(type("Base", (), {
        "__annotations__": {"source": "str", "trust": "int | None", "queues": "dict[int, str]"},
        "__qualname__": "Base", "__doc__": "A base.", "trust": None,
        "queues": dataclasses.field(default_factory=dict)}))
    sub = record(**options)(type("Sub", (base,), {
        "__annotations__": {"mtu": "int | None", "trust": "int | None", "names": "list[str]"},
        "__qualname__": "Sub", "__doc__": "A sub.", "mtu": None, "trust": 7,
        "names": dataclasses.field(default_factory=list, compare=False)}))
    return base, sub


@pytest.mark.parametrize("variant", _BASED)
def test_a_record_of_a_record_base_is_the_class_dataclasses_made(variant, monkeypatch):
    """Made by records._dataclass (and no dataclasses.dataclass once its options' reference exists), the subclass is
    described as dataclasses makes it (_DIRECT off), its objects made alike before and past the written __init__."""
    base_options, options = _BASED[variant]
    _based(base_options, options)  # (each options' reference class made)
    made = []
    for direct in (True, False):
        monkeypatch.setattr(records, "_DIRECT", direct)
        if direct:
            monkeypatch.setattr(records.dataclasses, "dataclass", None)
        made.append(_based(base_options, options)[1])
        monkeypatch.undo()
    assert describe(made[0]) == describe(made[1])
    assert [f.name for f in dataclasses.fields(made[0])] == ["source", "trust", "queues", "mtu", "names"]
    shapes = [((), {"source": "s"}), (("s", 1), {}), ((), {"source": "s", "trust": 2, "mtu": 9000, "names": ["x"]}),
              ((), {}), ((), {"source": "s", "other": 1})]
    if not {**base_options, **options}.get("kw_only"):
        shapes.append((("s", 1, {2: "q"}, 1500, ["n"]), {}))

    def answers(cls):
        out = []
        for _ in range(records.READ_INITS + 2):  # (read, then past the threshold the written __init__)
            for args, kwargs in shapes:
                try:
                    obj = cls(*args, **kwargs)
                except TypeError as exc:
                    out.append(str(exc).replace("__dataclass_self__", "self"))
                else:
                    out.append((repr(obj), dataclasses.astuple(obj), obj == cls(*args, **kwargs)))
        return out
    assert answers(made[0]) == answers(made[1])


@pytest.mark.parametrize("base_frozen,frozen", [(True, True), (True, False), (False, True)])
def test_a_frozen_record_with_a_record_base_is_made_and_refused_as_dataclasses_does(base_frozen, frozen, monkeypatch):
    """Frozen inheritance stays dataclasses' whole: the same class, or its refusal in its words."""
    made = []
    for direct in (True, False):
        monkeypatch.setattr(records, "_DIRECT", direct)
        base = record(frozen=base_frozen)(type("Base", (), {"__annotations__": {"a": "int"}, "__doc__": "A base."}))
        try:
            sub = record(frozen=frozen)(type("Sub", (base,), {"__annotations__": {"b": "int"}, "__doc__": "A sub.",
                                                              "b": 2}))
        except TypeError as exc:
            made.append(str(exc))
        else:
            made.append(describe(sub))
    assert made[0] == made[1]
    assert (base_frozen == frozen) == (not made[0].startswith("cannot inherit"))


def test_the_eos_readers_interface_conf_is_made_without_dataclasses_class_processing():
    """InterfaceConf(QosConf): its class made by records (the params of records' reference class, which dataclasses'
    _process_class never gives a class it makes whole), not by dataclasses (4.7 M instructions of every lint that
    reads an EOS switch: docs/lint-at-scale.md, "Session 44, part i")."""
    if not records._DIRECT:
        pytest.skip("dataclasses makes a lazy record's class on this Python")
    from losslessd.parse.eos.reader import InterfaceConf, QosConf

    reference = records._REFERENCES[(False, False, False)].__dataclass_params__
    assert QosConf.__dataclass_params__ is reference and InterfaceConf.__dataclass_params__ is reference
    assert [f.name for f in dataclasses.fields(InterfaceConf)][:2] == ["source", "trust"]
