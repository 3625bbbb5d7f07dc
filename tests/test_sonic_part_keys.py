"""The shared part of SharedPorts configured alike (their queues and PGs) tokened by its shape (Keys._part_token,
Session 39 part d) puts ports together exactly where tokening it as any tuple did (Keys.token, which hashes, is refused
and tokens item by item): both ways on every SONiC input the repository has and on generated switches whose ports differ
in one field of one table, are renamed or have their tables reordered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.lint_scale import switch_config
from losslessd import fabric as fabric_mod
from losslessd.errors import InputError
from losslessd.lint.groups import Keys
from losslessd.model import SharedPort
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from tests.test_fuzz_sonic import REAL, _mutate
from tests.test_worker_side import _partition, _ports_of_every_input

ROOT = Path(__file__).resolve().parent.parent


class _TupleKeys(Keys):
    """The keys before Session 39 part d: the shared part tokened as any tuple."""

    def _part_token(self, part: tuple) -> int:
        return self.token(part)


def _both_ways(ports: list) -> list[list[int]]:
    new, old = Keys(), _TupleKeys()
    # (each port keyed on its own, then all in order, as the engine's Keys.device does: the shortcut of ports alike)
    one_by_one = _partition(new.port, ports)
    assert one_by_one == _partition(old.port, ports)
    in_order = dict(zip(map(id, ports), Keys().ports(ports), strict=True))
    assert _partition(lambda p: in_order[id(p)], ports) == one_by_one
    return one_by_one


def _sonic_inputs() -> list[Path]:
    paths = [p for folder in ("examples", "tests/fixtures", "tests/realworld", "tests/rule_cases")
             for p in sorted((ROOT / folder).rglob("*.json")) if p.stat().st_size < 4 << 20]
    return [p for p in paths if '"PORT"' in p.read_text(errors="replace")]


def test_every_sonic_input_of_the_repository_keys_alike_both_ways(tmp_path):
    ports = []
    for path in _sonic_inputs():
        ports += getattr(fabric_mod.parse_one(path.stem, [path]), "ports", {}).values()
    shared = [p for p in ports if type(p) is SharedPort]
    assert len(shared) >= 100
    classes = _both_ways(shared)
    assert len(classes) < len(shared)  # (ports put together: the test could tell a part keyed too finely)


def test_every_input_the_worker_side_test_reads_keys_alike_both_ways(tmp_path):
    """examples/, tests/realworld and the shared corpus when present (its SONiC files among them)."""
    ports = [p for p in _ports_of_every_input(tmp_path) if type(p) is SharedPort]
    assert ports
    _both_ways(ports)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["bench", *range(len(REAL))]), st.data())
def test_fuzzed_sonic_inputs_key_alike_both_ways(which, data):
    """The bench's 8-port switch and tests/test_fuzz_sonic.py's real configs, mutated as that test mutates them."""
    doc = json.loads(switch_config(0, ports_n=8) if which == "bench" else json.dumps(REAL[which]))
    for _ in range(data.draw(st.integers(1, 6))):
        _mutate(doc, data)
    try:
        device = parse([Input("fuzz.json", json.dumps(doc, indent=4))], "fuzz")
    except InputError:
        return
    _both_ways([p for p in device.ports.values() if type(p) is SharedPort])


def _switch(tmp_path: Path, name: str, change) -> list:
    cfg = json.loads(switch_config(0, ports_n=8))
    change(cfg)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(cfg, indent=4))
    return list(fabric_mod.parse_one(name, [path]).ports.values())


def _set(table: str, key: str, field: str, value: str | None):
    def change(cfg: dict) -> None:
        if value is None:
            cfg[table][key].pop(field)
        else:
            cfg[table][key][field] = value
    return change


def _queue_index(cfg: dict) -> None:
    """Each port one queue, 3, with its buffer; Ethernet12's written at index 4, all else alike."""
    for table in ("QUEUE", "BUFFER_QUEUE"):
        cfg[table] = {key.replace("Ethernet12|3", "Ethernet12|4"): v for key, v in cfg[table].items()
                      if key.endswith("|3")}


# One field of one table apart on Ethernet12 (each item of a queue and of a PG in the part: scheduler, ECN, buffer
# profile, a PG's profile, a queue's index, a queue or PG more).
APART = {
    "scheduler": _set("QUEUE", "Ethernet12|3", "scheduler", "[SCHEDULER|scheduler.0]"),
    "ecn": _set("QUEUE", "Ethernet12|3", "wred_profile", None),
    "ecn profile": _set("QUEUE", "Ethernet12|3", "wred_profile", "[WRED_PROFILE|UPLINK_LOSSLESS]"),
    "buffer profile": _set("BUFFER_QUEUE", "Ethernet12|3", "profile", "egress_lossy_profile"),
    "pg profile": _set("BUFFER_PG", "Ethernet12|3", "profile", "ingress_lossy_profile"),
    "pg more": lambda cfg: cfg["BUFFER_PG"].update({"Ethernet12|4": {"profile": "ingress_lossy_profile"}}),
    "queue index": _queue_index,
    "queue more": lambda cfg: cfg["BUFFER_QUEUE"].update({"Ethernet12|4": {"profile": "egress_lossy_profile"}}),
}


@pytest.mark.parametrize("what", sorted(APART))
def test_a_port_one_field_apart_keys_apart_both_ways(tmp_path, what):
    ports = _switch(tmp_path, "leaf", APART[what])
    assert all(type(p) is SharedPort for p in ports)
    assert _both_ways(ports) == [[0, 1, 2, 4, 5, 6, 7], [3]]


def _renamed(cfg: dict) -> None:
    names = {f"Ethernet{4 * i}": f"Ethernet{100 + 8 * i}" for i in range(8)}
    for table in ("PORT", "PORT_QOS_MAP", "PFC_WD", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE"):
        cfg[table] = {"|".join([names[key.split("|")[0]], *key.split("|")[1:]]): v for key, v in cfg[table].items()}
    cfg["CABLE_LENGTH"]["AZURE"] = {names[k]: v for k, v in cfg["CABLE_LENGTH"]["AZURE"].items()}


def _reordered(cfg: dict) -> None:
    for table in ("PORT", "PORT_QOS_MAP", "PFC_WD", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "SCHEDULER", "WRED_PROFILE"):
        cfg[table] = dict(reversed(cfg[table].items()))


@pytest.mark.parametrize("change", [lambda cfg: None, _renamed, _reordered], ids=["as made", "renamed", "reordered"])
def test_ports_alike_key_alike_both_ways_renamed_or_reordered(tmp_path, change):
    ports = _switch(tmp_path, "leaf", change)
    assert _both_ways(ports) == [list(range(8))]
    # and two switches alike (other objects, equal content): one key for their 16 ports
    other = _switch(tmp_path, "other", change)
    assert _both_ways(ports + other) == [list(range(16))]


def test_a_shared_port_built_from_keywords_keys_as_its_plain_port():
    """Keys.ports reads a SharedPort's _shared and _wd slots as they are: one built from keywords (not by
    model.shared_port) has them set, shares nothing, and keys as the plain Port of its fields."""
    from losslessd.model import Port

    fields = {"name": "Ethernet0", "mtu_bytes": 9100, "pfc_enabled": [3]}
    port = SharedPort(**fields)
    assert (port._shared, port._wd, port._sources) == (None, None, [])
    keys = Keys()
    assert keys.ports([port, Port(**fields), SharedPort(**{**fields, "mtu_bytes": 1500})])[:2] == (keys.port(port),) * 2
    assert len(set(keys.ports([port, SharedPort(**{**fields, "mtu_bytes": 1500})]))) == 2


def test_every_copy_of_a_shared_port_is_its_plain_port_and_keys_as_it(tmp_path):
    """A SharedPort copied (copy.copy, pickle, dataclasses.replace, the path engine's template a worker sends) is the
    Port it stands for, keyed as it. The template was a SharedPort made by object.__new__ without its three slots,
    which Keys.ports (and the SharedPort's own properties) read directly: AttributeError where it was keyed."""
    import copy
    import dataclasses
    import pickle

    from losslessd.model import Port
    from losslessd.paths.view import _stripped

    [port, *_] = _switch(tmp_path, "copied", lambda cfg: None)
    assert type(port) is SharedPort and port._shared is not None
    copies = [copy.copy(port), pickle.loads(pickle.dumps(port)), _stripped(port, "port", (), {})]
    assert [type(c) for c in copies] == [Port] * 3
    replaced = dataclasses.replace(port, mtu_bytes=port.mtu_bytes)
    assert (type(replaced), replaced._shared, replaced._wd) == (SharedPort, None, None)
    keys = Keys()
    assert set(keys.ports([port, *copies, replaced])) == {keys.port(port)}
