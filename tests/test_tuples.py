"""losslessd.tuples.NamedTuple makes the class typing.NamedTuple makes, without typing's ForwardRef of each annotation
text (docs/lint-at-scale.md, "Session 44, part c")."""

from __future__ import annotations

import copy
import inspect
import pickle
import types
import typing

import pytest

from losslessd.lint import engine
from losslessd.paths import view
from losslessd.rules import common, ecn, lnk
from losslessd.tuples import NamedTuple


class Typed(typing.NamedTuple):
    """A point."""

    x: int
    label: str | None
    tags: tuple[str, ...] = ()
    weight: float = 1.0

    @property
    def double(self) -> int:
        return 2 * self.x

    def __str__(self) -> str:
        return f"{self.x}:{self.label}"


class Lean(NamedTuple):
    """A point."""

    x: int
    label: str | None
    tags: tuple[str, ...] = ()
    weight: float = 1.0

    @property
    def double(self) -> int:
        return 2 * self.x

    def __str__(self) -> str:
        return f"{self.x}:{self.label}"


def test_the_class_is_typings() -> None:
    assert Lean.__mro__[1:] == Typed.__mro__[1:] == (tuple, object)
    assert type(Lean) is type(Typed) is type
    assert (Lean._fields, Lean._field_defaults) == (Typed._fields, Typed._field_defaults)
    assert (Lean.__doc__, Lean.__module__) == (Typed.__doc__, Typed.__module__)
    assert (Lean.__qualname__, Typed.__qualname__) == ("Lean", "Typed")
    assert [(p.name, p.default) for p in inspect.signature(Lean).parameters.values()] \
        == [(p.name, p.default) for p in inspect.signature(Typed).parameters.values()]
    assert Lean.__annotations__ == {"x": "int", "label": "str | None", "tags": "tuple[str, ...]", "weight": "float"}
    assert typing.get_type_hints(Lean) == typing.get_type_hints(Typed)
    for made in (Lean(3, "a"), Lean(x=3, label="a", weight=2.0), Lean._make([3, "a", ("t",), 0.5])):
        twin = Typed(*made)
        assert made == twin and hash(made) == hash(twin) and tuple(made) == tuple(twin)
        assert repr(made).replace("Lean", "Typed") == repr(twin)
        assert (str(made), made.double, made._asdict()) == (str(twin), twin.double, twin._asdict())
        assert made._replace(x=4) == twin._replace(x=4) and type(made._replace(x=4)) is Lean
        assert pickle.loads(pickle.dumps(made)) == made and type(pickle.loads(pickle.dumps(made))) is Lean
        assert copy.copy(made) == made == copy.deepcopy(made)
    for args, kwargs in (((), {}), ((1,), {}), ((1, 2, 3, 4, 5), {}), ((1, 2), {"x": 1}), ((1, 2), {"y": 1})):
        with pytest.raises(TypeError) as lean:
            Lean(*args, **kwargs)
        with pytest.raises(TypeError) as typed:
            Typed(*args, **kwargs)
        assert str(lean.value).replace("Lean", "Typed") == str(typed.value)
    with pytest.raises(AttributeError):
        Lean(1, "a").x = 2  # type: ignore[misc]


def _class(bases: tuple, body: dict) -> type:
    return types.new_class("Bad", bases, exec_body=lambda ns: ns.update({"__module__": __name__, **body}))


def test_what_typing_refuses_is_refused() -> None:
    for base in (NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow default field a"):
            _class((base,), {"__annotations__": {"a": "int", "b": "int"}, "a": 1})
        for name in ("_replace", "__new__", "_fields"):
            with pytest.raises(AttributeError, match=f"Cannot overwrite NamedTuple attribute {name}"):
                _class((base,), {"__annotations__": {"a": "int"}, name: None})
        with pytest.raises(TypeError):
            _class((base, int), {"__annotations__": {"a": "int"}})


def test_the_lints_named_tuples_are_made_without_typing() -> None:
    """Every NamedTuple class of the engine, the paths and the rules: made by losslessd.tuples (its annotations the
    texts as written; typing's are ForwardRefs, each a compile: 14 M instructions of the example lint)."""
    classes = [value for module in (engine, view, common, ecn, lnk) for value in vars(module).values()
               if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")
               and value.__module__ == module.__name__]
    assert len(classes) >= 11
    for cls in classes:
        assert cls.__annotations__ and all(type(text) is str for text in cls.__annotations__.values()), cls


class _Named:
    """A descriptor told its class and name (__set_name__)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.told = (owner, name)


class _Refusing:
    def __set_name__(self, owner: type, name: str) -> None:
        raise ValueError("no")


def test_the_body_is_made_as_typing_312_makes_it() -> None:
    """What typing.NamedTuple's class statement does on the Pythons pyproject allows past 3.11 (CPython Lib/typing.py
    of 3.12 and 3.13, NamedTupleMeta.__new__): each value of the body told its name (__set_name__, a failure named),
    __orig_bases__ kept, and NamedTuple no class an isinstance can test against (typing's is a function)."""
    named, default = _Named(), _Named()
    made = _class((NamedTuple,), {"__annotations__": {"a": "int"}, "a": default, "d": named})
    assert named.told == (made, "d") and default.told == (made, "a") and made._field_defaults == {"a": default}
    assert made.__orig_bases__ == (typing.NamedTuple,) == Typed.__orig_bases__  # type: ignore[attr-defined]
    with pytest.raises((RuntimeError, ValueError)) as refused:
        _class((NamedTuple,), {"__annotations__": {"a": "int"}, "r": _Refusing()})
    told = getattr(refused.value, "__notes__", None) or [str(refused.value)]
    assert told == ["Error calling __set_name__ on '_Refusing' instance 'r' in 'Bad'"]
    for test in (isinstance, issubclass):
        with pytest.raises(TypeError):
            test(Lean(1, "a") if test is isinstance else Lean, NamedTuple)  # type: ignore[operator]
        with pytest.raises(TypeError):
            test(Typed(1, "a") if test is isinstance else Typed, typing.NamedTuple)  # type: ignore[operator]


def test_a_body_whose_annotations_are_not_texts_is_refused() -> None:
    """Python 3.14 (PEP 649, 749) puts no __annotations__ in a class body whose module does not write ``from
    __future__ import annotations``, only a function that makes them: such a class would be made with no field,
    its defaults left as class attributes. It is refused, naming the class."""
    with pytest.raises(TypeError, match="NamedTuple Bad: .*from __future__ import annotations"):
        _class((NamedTuple,), {"__annotate__": lambda format: {"a": int}, "a": 1})
    with pytest.raises(TypeError, match="from __future__ import annotations"):
        _class((NamedTuple,), {"__annotate_func__": lambda format: {"a": int}})
    assert _class((NamedTuple,), {})._fields == ()  # (no annotation at all: no field, as typing's)
