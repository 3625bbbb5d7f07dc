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
