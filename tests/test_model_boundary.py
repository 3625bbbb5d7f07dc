"""The model is built unchecked by parsers and checked where it comes from outside: the strict check names the
first field whose value has another type, plain data is converted as pydantic does, and the Python API's
lint_fabric refuses a malformed fabric with an InputError rather than linting it."""

from __future__ import annotations

import pytest

from losslessd.api import InputError, lint, lint_fabric, load_fabric
from losslessd.model import Device, DeviceKind, DocRef, Fabric, Port, Source, Trust
from losslessd.model.validate import ModelTypeError, check
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "fabric"


def test_the_parsed_example_fabric_is_every_field_of_its_type():
    fabric = load_fabric([EXAMPLE])
    check(fabric)
    sources = [p.source for d in fabric.devices.values() for p in d.ports.values()]
    assert any(isinstance(s, DocRef) for s in sources)  # SONiC facts point into their JSON, lines found when read


@pytest.mark.parametrize("field,value,words", [
    ("pfc_enabled", "3", "pfc_enabled: str where a list belongs"),
    ("speed_gbps", 100, "speed_gbps: int 100 where a float belongs"),
    ("trust", "dscp", "trust: 'dscp' is not a Trust"),
    ("dscp_to_tc", {"26": 3}, "dscp_to_tc key '26': str '26' where a int belongs"),
])
def test_the_strict_check_names_the_field(field, value, words):
    port = Port(name="Ethernet0", **{field: value})
    with pytest.raises(ModelTypeError, match=words.replace("(", r"\(").replace("[", r"\[")):
        check(Device(name="s", kind=DeviceKind.switch, platform="sonic", ports={"Ethernet0": port}))


def test_plain_data_is_converted_as_pydantic_does():
    device = Device.model_validate({"name": "s", "kind": "switch", "platform": "sonic", "ports": {
        "Ethernet0": {"name": "Ethernet0", "speed_gbps": 100, "trust": "dscp", "dscp_to_tc": {"26": "3"},
                      "source": {"file": "config_db.json", "line": 3}}}})
    port = device.ports["Ethernet0"]
    assert (port.speed_gbps, port.trust, port.dscp_to_tc) == (100.0, Trust.dscp, {26: 3})
    assert port.source == Source(file="config_db.json", line=3)
    check(device)


def test_lint_fabric_checks_a_fabric_from_outside_then_lints_it():
    fabric = load_fabric([EXAMPLE])
    assert [f.message for f in lint_fabric(fabric).findings] == [f.message for f in lint([EXAMPLE]).findings]
    fabric.devices["leaf1"].ports["Ethernet0"].pfc_enabled = "3,4"  # a string where the list of priorities goes
    with pytest.raises(InputError, match=r"devices\['leaf1'\].ports\['Ethernet0'\].pfc_enabled"):
        lint_fabric(fabric)
    with pytest.raises(InputError, match="not a fabric"):
        lint_fabric({"devices": {"s": {"name": "s", "kind": "router", "platform": "sonic"}}})
    port = {"name": "Ethernet0", "qos_configured": True, "pfc_enabled": []}
    # (a second port pausing priority 3: a switch with no lossless setting at all is PFC006's, said once)
    paused = {"name": "Ethernet4", "qos_configured": True, "pfc_enabled": [3]}
    data = {"devices": {"s": {"name": "s", "kind": "switch", "platform": "sonic",
                              "ports": {"Ethernet0": port, "Ethernet4": paused}}}}
    codes = {f.code for f in lint_fabric(data).findings}
    assert "PFC001" in codes  # PFC off on the lossless priority of a RoCE-facing port
    assert isinstance(Fabric.model_validate(data).devices["s"], Device)
