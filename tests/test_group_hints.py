"""lint.groups._hints: typing.get_type_hints of the model's classes with each annotation text evaluated once (the
key functions of a lint's grouping read them; typing compiled each text per class, 15 M instructions of a lint's
start). Its answer must be typing's for every class of the model, or a key would leave out or mistake a field."""

from __future__ import annotations

import typing

import losslessd.model
from losslessd.lint.groups import _hints
from losslessd.model import Model


def test_hints_are_typings_for_every_model_class():
    classes = [c for c in vars(losslessd.model).values() if isinstance(c, type) and issubclass(c, Model)]
    assert len(classes) > 20
    for cls in classes:
        assert _hints(cls) == typing.get_type_hints(cls), cls
