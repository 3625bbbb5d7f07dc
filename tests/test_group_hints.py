"""lint.groups._hints: typing.get_type_hints of the model's classes with each annotation text evaluated once (the
key functions of a lint's grouping read them; typing compiled each text per class, 15 M instructions of a lint's
start). Its answer must be typing's for every class of the model, or a key would leave out or mistake a field."""

from __future__ import annotations

import json
import typing

import losslessd.model
from losslessd.lint import groups
from losslessd.lint.groups import Keys, _hints
from losslessd.model import Model, Port, SharedPort
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from tests.test_sonic_shared_ports import _WD, TABLES


def test_hints_are_typings_for_every_model_class():
    classes = [c for c in vars(losslessd.model).values() if isinstance(c, type) and issubclass(c, Model)]
    assert len(classes) > 20
    for cls in classes:
        assert _hints(cls) == typing.get_type_hints(cls), cls



def test_shared_ports_key_functions_are_compiled_at_the_first_shared_port():
    """Keys compiles a SharedPort's key functions (its alike test, its content, its watchdog's settings) when the first
    one is keyed: a lint of hosts or device files alone (no SharedPort) compiled them in vain (11 M instructions of a
    host's lint). A plain port's key and a SharedPort's are as before (tests/test_sonic_shared_ports.py)."""
    groups._alike_functions.cache_clear()
    groups._content_function.cache_clear()
    host = Port(name="enp1s0f0", speed_gbps=100)
    keys = Keys()
    host_key = keys.port(host)
    assert groups._alike_functions.cache_info().currsize == 0
    compiled = groups._content_function.cache_info().currsize
    ports = parse([Input("config_db.json", json.dumps({**TABLES, **_WD}, indent=1))], "dut").ports
    first, second = ports["Ethernet0"], ports["Ethernet4"]
    assert type(first) is SharedPort and first._shared is not None and first._wd is not None
    assert keys.port(first) == keys.port(second) != host_key
    assert groups._alike_functions.cache_info().currsize == 1
    assert groups._content_function.cache_info().currsize > compiled  # (the shared port's content function)
