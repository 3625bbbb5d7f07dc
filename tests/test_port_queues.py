"""Port.dscp_queue and pcp_queue: the queue dscp_chain and pcp_chain reach, without the Hop (SCH001 reads the queues
all 64 DSCPs reach on each strict port: 396 Hop records in the example lint; docs/lint-at-scale.md, "Session 45, part
i")."""

from __future__ import annotations

from pathlib import Path

import pytest

from losslessd.fabric import load_fabric
from losslessd.model import DeviceKind, Port
from losslessd.rules import sch

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ["examples/fabric", "examples/clos", "examples/infiniband",
          *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests/fixtures/raw").glob("*/*"))]


def _ports():
    for inp in INPUTS:
        fabric = load_fabric([ROOT / inp])
        for device in fabric.devices.values():
            for port in device.ports.values():
                yield inp, device, port


def _assert_alike(port: Port, where: object) -> None:
    for dscp in range(64):
        assert port.dscp_queue(dscp) == port.dscp_chain(dscp).queue, (where, dscp)
    for pcp in range(8):
        assert port.pcp_queue(pcp) == port.pcp_chain(pcp).queue, (where, pcp)


def test_every_port_read_answers_as_its_chains():
    seen = 0
    for inp, device, port in _ports():
        _assert_alike(port, (inp, device.name, port.name))
        seen += 1
    assert seen > 100


@pytest.mark.parametrize("fields", [
    {},
    {"dscp_to_tc": {26: 3, 48: 6}},
    {"dscp_to_tc": {26: 3, 48: 6}, "tc_to_queue": {3: 5}},
    {"dscp_to_tc": {26: 3}, "pcp_to_tc": {3: 3, 6: 1}, "tc_to_queue": {3: 3, 1: 0}},
    {"dscp_to_priority": {26: 3, 48: 6}},
    {"dscp_to_priority": {26: 3, 48: 6}, "priority_to_tc": {3: 2}},
    {"dscp_to_priority": {26: 3}, "priority_to_tc": {3: 2}, "dscp_to_tc": {26: 7}, "tc_to_queue": {7: 1, 2: 4}},
    {"pcp_to_tc": {0: 0, 3: 3}, "tc_to_queue": {}},
])
def test_a_port_of_each_shape_answers_as_its_chains(fields):
    _assert_alike(Port(name="Ethernet0", **fields), fields)


def test_the_queues_sch001_reads_make_no_hop(monkeypatch):
    """_used_units asks each port for its queues alone (it followed 64 DSCP chains a port before)."""
    fabric = load_fabric([ROOT / "examples/fabric"])
    ports = [(d, p) for d in fabric.devices.values() for p in d.ports.values() if d.kind != DeviceKind.subnet_manager]
    expected = {(d.name, p.name, pcp, written): sch._used_units(d, p, pcp, written)
                for d, p in ports for pcp in (False, True) for written in (False, True)}

    def refused(*args, **kwargs):
        raise AssertionError("a Hop made")

    monkeypatch.setattr(Port, "dscp_chain", refused)
    monkeypatch.setattr(Port, "pcp_chain", refused)
    assert any(expected.values())
    for d, p in ports:
        for pcp in (False, True):
            for written in (False, True):
                assert sch._used_units(d, p, pcp, written) == expected[(d.name, p.name, pcp, written)]
