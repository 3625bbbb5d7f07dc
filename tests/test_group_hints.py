"""lint.groups._hints: typing.get_type_hints of the model's classes with each annotation text evaluated once (the
key functions of a lint's grouping read them; typing compiled each text per class, 15 M instructions of a lint's
start). Its answer must be typing's for every class of the model, or a key would leave out or mistake a field."""

from __future__ import annotations

import json
import sys
import typing

import losslessd.model
from losslessd.lint import groups
from losslessd.lint.groups import Keys, _annotations, _evaluated, _text_traits, _traits
from losslessd.model import Model, Port, SharedPort
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from tests.test_sonic_shared_ports import _WD, TABLES


def _hints(cls):
    return {name: _evaluated(text, module) if isinstance(text, str) else text
            for name, (text, module) in _annotations(cls).items()}


def test_hints_are_typings_for_every_model_class():
    classes = [c for c in vars(losslessd.model).values() if isinstance(c, type) and issubclass(c, Model)]
    assert len(classes) > 20
    for cls in classes:
        assert _hints(cls) == typing.get_type_hints(cls), cls


def test_a_text_read_without_evaluating_it_has_its_types_traits():
    """_text_traits reads a Literal's text and a class's name (with ` | None` or not) without evaluating them: what it
    says of every annotation text of the model, and of texts of other forms, is what the evaluated type says; a text
    it does not read is evaluated (an unknown name raises as evaluating it does)."""
    texts = {(text, module) for c in vars(losslessd.model).values() if isinstance(c, type) and issubclass(c, Model)
             for text, module in _annotations(c).values()}
    assert len(texts) > 60
    others = ["Literal['a[b]'] | None", "Literal[1, 2]", "None", "int", "dict", "Port | None", "Source",
              "DeviceKind | None", "list[int] | None", "Literal['x'] | int", "int | None | None", "Literal[]x"]
    for text, module in [*texts, *((t, "losslessd.model") for t in others)]:
        try:
            evaluated = _traits(eval(text, vars(sys.modules[module])))  # (as _evaluated, not cached)
        except (SyntaxError, TypeError):
            continue
        assert _text_traits(text, module) == evaluated, text
    for bad in ("NoSuchName", "NoSuchName | None", "Literal[NoSuchName]"):
        try:
            _text_traits(bad, "losslessd.model")
        except NameError:
            continue
        assert bad.startswith("Literal"), bad  # (a Literal's values are not read: plain whatever they name)



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


def _fabrics():
    from pathlib import Path

    from losslessd.fabric import load_fabric

    roots = [Path("examples/fabric"), Path("examples/clos"), Path("examples/infiniband"),
             *sorted(Path("tests/fixtures/raw").glob("*/*"))]
    for root in roots:
        yield root, load_fabric([root])


def test_key_functions_read_field_by_field_give_the_compiled_ones_content():
    """A run of few ports keys them with _read_function (and _read_alike), not the compiled key functions: for every
    device, port, queue, PG and the objects a port has of its own in the examples and every raw fixture, both give
    the same content (the same parts in the same order), and keys made either way group alike."""
    from losslessd.model import Device, Ecn, LinkPause, NicEcn, PriorityGroup, Queue, Scheduler, Watchdog

    seen = 0
    for root, fabric in _fabrics():
        token = Keys().token
        for device in fabric.devices.values():
            assert groups._read_function(Device)(device, {}, token) == groups._content_function(Device)(
                device, {}, token), root
            for port in device.ports.values():
                seen += 1
                assert groups._read_function(Port)(port, {}, token) == groups._content_function(Port)(
                    port, {}, token), (root, port.name)
                if type(port) is SharedPort:
                    assert groups._read_function(Port, shared=True)(port, {}, token) == groups._content_function(
                        Port, shared=True)(port, {}, token), (root, port.name)
                    read_values, read_same = groups._read_alike(Port)
                    values, same = groups._alike_functions(Port)
                    assert read_values(port) == values(port)
                    assert read_same(port, values(port)) and same(port, read_values(port))
                for owned, cls, value in [(True, Watchdog, port.watchdog), (True, NicEcn, port.nic_ecn),
                                          (True, LinkPause, port.link_pause),
                                          *[(False, Queue, q) for q in port.queues.values()],
                                          *[(False, PriorityGroup, pg) for pg in port.priority_groups.values()],
                                          *[(False, Scheduler, q.scheduler) for q in port.queues.values()],
                                          *[(False, Ecn, q.ecn) for q in port.queues.values()]]:
                    if value is not None:
                        assert groups._read_function(cls, owned=owned)(value, {}, token) == groups._content_function(
                            cls, owned=owned)(value, {}, token), (root, port.name, cls)
        ports = [p for d in fabric.devices.values() for p in d.ports.values()]
        compiled, read = Keys(compiled=True), Keys(compiled=False)
        by_compiled, by_read = compiled.ports(ports), read.ports(ports)
        assert [[by_compiled.index(k) for k in by_compiled]] == [[by_read.index(k) for k in by_read]], root
    assert seen > 100


def test_a_lint_of_few_ports_compiles_no_key_function():
    """examples/fabric (17 ports) is grouped with key functions read field by field: compiling them was 12 M
    instructions of its 107 M of rules (docs/lint-at-scale.md, "Session 43, part c"); its findings are as ever."""
    from losslessd import api

    groups._alike_functions.cache_clear()
    groups._content_function.cache_clear()
    result = api.lint(["examples/fabric"], "roce-dscp26", topology="examples/fabric/topology.yaml")
    assert result.findings
    assert groups._content_function.cache_info().currsize == 0
    assert groups._alike_functions.cache_info().currsize == 0
    assert groups._read_function.cache_info().currsize > 0


def _kinds_per_field(cls, owned, shared, item_of):
    """_content_fields as it read each field's type (session 43): typing asked field by field."""
    from losslessd.model import Device, Source

    hints = typing.get_type_hints(cls)
    skip = groups._PORT_NAMES if cls is Port else groups._DEVICE_SKIP if cls is Device else frozenset()
    skip = skip | groups._SHARED if shared else skip
    out = []
    for f in __import__("dataclasses").fields(cls):
        tp = hints[f.name]
        if f.name in skip or groups._mentions(tp, Source):
            continue
        inner = groups._strip_none(tp)
        if groups._is_plain(tp):
            out.append((f.name, "plain", None))
        elif groups._is_plain_list(tp):
            out.append((f.name, "list", None))
        elif owned and groups._is_plain_dict(tp):
            out.append((f.name, "items", None))
        elif typing.get_origin(inner) is dict and groups._is_model(typing.get_args(inner)[1]):
            out.append((f.name, "dict", typing.get_args(inner)[1]))
        elif (cls is Port or item_of is Port) and groups._is_model(inner):
            out.append((f.name, "own", inner))
        else:
            out.append((f.name, "token", None))
    return tuple(out)


def test_each_fields_kind_is_the_one_its_type_gives():
    """_content_fields reads what each field's type says once per type (_traits), not field by field: for every class
    of the model, owned or not, shared or not, an item of a port's or not, each field's kind is what typing says of
    its own type, field by field."""
    classes = [c for c in vars(losslessd.model).values() if isinstance(c, type) and issubclass(c, Model)
               and __import__("dataclasses").is_dataclass(c)]
    assert len(classes) > 20
    for cls in classes:
        for owned in (False, True):
            for shared in (False, True):
                for item_of in (None, Port):
                    assert tuple(groups._content_fields(cls, owned, shared, item_of)) == _kinds_per_field(
                        cls, owned, shared, item_of), (cls, owned, shared, item_of)


def test_keying_reads_each_type_once(monkeypatch):
    """Keying the example's ports and devices asks typing of each distinct field type a few times, not of each field
    of each key function (1,130 get_origin calls of the example lint's run: docs/lint-at-scale.md, "Session 44,
    part c")."""
    from types import SimpleNamespace

    calls = []
    counting = SimpleNamespace(**{name: getattr(typing, name) for name in dir(typing) if not name.startswith("__")})
    for name in ("get_origin", "get_args"):
        real = getattr(typing, name)
        setattr(counting, name, lambda tp, real=real, name=name: calls.append(name) or real(tp))
    monkeypatch.setattr(groups, "typing", counting)
    for fn in (groups._read_function, groups._read_alike, groups._alike_fields, groups._content_function,
               getattr(groups, "_content_fields", None), getattr(groups, "_field_traits", None),
               getattr(groups, "_text_traits", None)):
        if hasattr(fn, "cache_clear"):
            fn.cache_clear()
    getattr(groups, "_TRAITS", {}).clear()
    fabric = dict(_fabrics())[__import__("pathlib").Path("examples/fabric")]
    keys = Keys(compiled=False)
    for device in fabric.devices.values():
        keys.ports(device.ports.values())
    types_seen = {id(tp) for cls in vars(losslessd.model).values() if isinstance(cls, type) and issubclass(cls, Model)
                  for tp in _hints(cls).values()}
    assert calls and len(calls) < 15 * len(types_seen), (len(calls), len(types_seen))  # (852 of 69; 2,629 before)


def test_keying_evaluates_no_literal_nor_class_name(monkeypatch):
    """The example's key functions evaluate none of the annotation texts written as a Literal or a class's name (with
    ` | None` or not): _text_traits reads them (5.5 M instructions of its run were the 50 texts evaluated, 27 are)."""
    evaluated = []
    monkeypatch.setattr(groups, "_evaluated", lambda text, module: evaluated.append(text) or eval(
        text, vars(sys.modules[module])))
    for fn in (groups._read_function, groups._read_alike, groups._alike_fields, groups._content_fields,
               groups._field_traits, groups._text_traits):
        fn.cache_clear()
    fabric = dict(_fabrics())[__import__("pathlib").Path("examples/fabric")]
    keys = Keys(compiled=False)
    for device in fabric.devices.values():
        keys.ports(device.ports.values())
    named = vars(losslessd.model)
    assert evaluated and not [t for t in evaluated if t.startswith("Literal[")
                              or isinstance(named.get(t.removesuffix(" | None")), type)]
    assert "WatchdogAction | None" in evaluated  # (a name of a Literal, not of a class: evaluated)
