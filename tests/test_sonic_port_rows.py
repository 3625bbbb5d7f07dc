"""A new PORT port made in one dict display, and the SharedPort maker's keywords in the order a switch sets them,
without a change to what a switch builds (docs/lint-at-scale.md, "Session 40, part b: shared port rows").

parse/sonic _Builder._port_table made each port by port() and then update(facts, lanes=..., description=...,
alias=...); a port the PORT table names first is now made in one display. The reading before (kept here, as it was
at eb9cb49c) and the one now are run on every SONiC input the repository has (examples/, tests/: fixtures, real-world
configs, rule cases, hostile inputs), the shared corpus's SONiC files when present, hand-written edges (pfc_asym
and a description that is no text on one port: the issues' order; a PORT_QOS_MAP written before PORT; no PORT
table) and fuzzed mutations of the bench switch and of tests/test_fuzz_sonic.py's real configs: the device (every
port's fields and sources with their lines, the issues in order) and the lint findings are equal.

model._shared_port_maker now lists first the 22 keywords a switch's port passes (CPython binds a keyword by
comparing it with the parameters in order): each field must still reach its own slot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import losslessd.parse.sonic as sonic
from bench.lint_scale import switch_config
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.parse.base import Input
from losslessd.parse.sonic import _ABSENT, _LANES, _PFC_ASYM, _lane_count, _mtu, _speed
from tests.conftest import CORPUS, ROOT
from tests.test_fuzz_sonic import REAL, _mutate

# ---- the readings before (eb9cb49c), the oracle ----------------------------------------------------------------

def _old_port_table(self) -> None:
    # The fields ports share, as written -> what they set. Not the lanes: each port of a real switch has its own
    # (`0,1,2,3`, `4,5,6,7`), so a key holding them found nothing and every port read every field again.
    read: dict[tuple, dict] = {}
    for name, e in self.db.table("PORT").items():
        fields = e.fields
        # (counted here where the text reads: value()'s memo never finds a port's own lanes, and its call, key and
        # entry cost more than the count; anything else is value()'s to read and say, as before)
        lanes = fields.get("lanes")
        try:
            lanes = _lane_count(lanes) if type(lanes) is str else self.value(e, "lanes", _lane_count, _LANES)
        except ValueError:
            lanes = self.value(e, "lanes", _lane_count, _LANES)
        written = (fields.get("speed"), fields.get("mtu"), fields.get("admin_status"), fields.get("role"))
        try:
            facts = read[written]
        except (KeyError, TypeError):  # not seen yet, or values that are not strings
            facts = self._read_alike(read, written, lambda e: {
                "speed_gbps": self.value(e, "speed", _speed, "a speed in Mb/s"),
                # PORT.mtu is the IP MTU: orchagent/portsorch.cpp setPortMtu adds 14 + 4 + 4 for the frame.
                "mtu_bytes": self.value(e, "mtu", _mtu, "an MTU of 68-9216 bytes"),
                "admin_up": self.choice(e, "admin_status", {"up": True, "down": False}),
                "_role": self.text(e, "role")}, e)
        # (text() written out for the usual string or absent field: two calls a port)
        description, alias = fields.get("description", _ABSENT), fields.get("alias", _ABSENT)
        if "pfc_asym" in fields and self.choice(e, "pfc_asym", _PFC_ASYM):
            self.port(name, e).update(pfc_honoured=list(range(8)), pfc_honoured_source=e.source("pfc_asym"))
        self.port(name, e).update(
            facts, lanes=lanes,
            description=description if type(description) is str else None if description is _ABSENT
            else self.text(e, "description"),
            alias=alias if type(alias) is str else None if alias is _ABSENT else self.text(e, "alias"))




# ---- the inputs ----------------------------------------------------------------------------------------------


def _sonic_files() -> list[Path]:
    """Every JSON file of examples/ and tests/ (fixtures, real-world configs, rule cases, hostile ones) that names a
    PORT or PORT_QOS_MAP table, and the shared corpus's SONiC files when present."""
    roots = [ROOT / "examples", ROOT / "tests"] + ([CORPUS / "sonic"] if (CORPUS / "SOURCES.md").is_file() else [])
    paths = sorted(p for root in roots for p in root.rglob("*.json")
                   if ("golden" not in p.parts or "sonic" in p.parts) and p.stat().st_size < 4 << 20)
    return [p for p in paths if '"PORT' in p.read_text(errors="replace")]


def _edges() -> dict[str, dict]:
    """Hand-written switches at the edges of the two changes (names, order of tables and issues)."""
    base = json.loads(switch_config(0, ports_n=6))
    out = {}

    def variant(name: str, change) -> None:
        cfg = json.loads(json.dumps(base))
        change(cfg)
        out[name] = cfg

    qos = base["PORT_QOS_MAP"]
    variant("one key, many ports", lambda c: c.update(PORT_QOS_MAP={
        "Ethernet0,Ethernet4, Ethernet8": qos["Ethernet0"], "Ethernet12": qos["Ethernet12"]}))
    variant("pfc off in so many words", lambda c: [c["PORT_QOS_MAP"][p].update(pfc_enable="") for p in ("Ethernet0",
                                                                                                   "Ethernet8")])
    variant("no pfc_enable, no pfc_to_queue_map", lambda c: [c["PORT_QOS_MAP"][p].pop(f, None) for p in ("Ethernet4",)
                                                            for f in ("pfc_enable", "pfc_to_queue_map")])
    variant("pfc_enable orchagent cuts (no memo)", lambda c: c["PORT_QOS_MAP"]["Ethernet4"].update(pfc_enable="3-4"))
    variant("recipes alternating", lambda c: [c["PORT_QOS_MAP"][f"Ethernet{4 * i}"].update(pfc_enable="3,4")
                                              for i in range(0, 6, 2)])
    variant("a map no table holds", lambda c: c["PORT_QOS_MAP"]["Ethernet8"].update(dscp_to_tc_map="NOPE"))
    variant("dot1p trust", lambda c: [c["PORT_QOS_MAP"]["Ethernet4"].pop("dscp_to_tc_map"),
                                      c["PORT_QOS_MAP"]["Ethernet4"].update(dot1p_to_tc_map="AZURE")])
    variant("a global map", lambda c: c["PORT_QOS_MAP"].update({"global": {"dscp_to_tc_map": "AZURE"}}))
    variant("ports not in PORT", lambda c: c["PORT_QOS_MAP"].update(ethernet0=qos["Ethernet0"], Ethernet99={}))
    variant("pfc_asym", lambda c: [c["PORT"]["Ethernet4"].update(pfc_asym="on"),
                                   c["PORT"]["Ethernet8"].update(pfc_asym="maybe")])
    variant("description and alias not text", lambda c: [c["PORT"]["Ethernet0"].update(description=7, alias=None),
                                                         c["PORT"]["Ethernet4"].pop("description"),
                                                         c["PORT"]["Ethernet8"].update(alias=["x"])])
    variant("pfc_asym and a description said on one port", lambda c: c["PORT"]["Ethernet0"].update(
        pfc_asym="maybe", description={"a": 1}, alias=["x"]))
    variant("speeds that read and do not", lambda c: [c["PORT"]["Ethernet0"].update(speed="fast"),
                                                      c["PORT"]["Ethernet4"].update(speed=100000, mtu="9100 ")])
    variant("no PORT table", lambda c: c.pop("PORT"))
    variant("PORT_QOS_MAP first", lambda c: c.update({"PORT_QOS_MAP": c.pop("PORT_QOS_MAP")}))
    return out


# ---- both ways -----------------------------------------------------------------------------------------------


def _old_way(monkeypatch) -> None:
    monkeypatch.setattr(sonic._Builder, "_port_table", _old_port_table)


def _device(inp: Input) -> object:
    try:
        device = sonic.parse([inp], "sw")
    except InputError as exc:  # (a refusal is an outcome to compare too)
        return ("refused", str(exc), exc.file, exc.line)
    ports = {name: (type(port).__name__, port.model_dump(mode="json"),
                    [(str(s), getattr(s, "line", None)) for s in (port.source, port.map_source, port.pfc_source,
                                                                   port.trust_source, port.pfc_honoured_source)])
             for name, port in device.ports.items()}
    issues = [(i.code, i.message, i.source and (i.source.file, i.source.line)) for i in device.issues]
    return device.model_dump(mode="json"), ports, issues


def _both_ways(inputs: list[Input], monkeypatch) -> tuple[list, list]:
    new = [_device(inp) for inp in inputs]
    with monkeypatch.context() as m:
        _old_way(m)
        old = [_device(inp) for inp in inputs]
    return new, old


def _findings(paths: list[Path]) -> list:
    return sorted((f.code, f.device, f.port or "", f.message, str(f.source)) for f in
                  lint([str(p) for p in paths], jobs=1).findings)


def test_every_sonic_input_builds_the_same_device_both_ways(monkeypatch):
    paths = _sonic_files()
    inputs = [Input(str(p), p.read_text(errors="replace")) for p in paths]
    new, old = _both_ways(inputs, monkeypatch)
    assert [str(p) for p, a, b in zip(paths, new, old, strict=True) if a != b] == []
    built = [p for p, d in zip(paths, new, strict=True) if isinstance(d[0], dict) and d[0]["ports"]]
    assert len(built) >= 20, built  # (the repository's SONiC examples and fixtures, at least)


def test_the_corpus_sonic_inputs_are_compared():
    if not (CORPUS / "SOURCES.md").is_file():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    assert [p for p in _sonic_files() if p.is_relative_to(CORPUS)]


def test_edge_switches_build_the_same_device_and_findings_both_ways(monkeypatch, tmp_path):
    edges = _edges()
    paths = []
    for name, cfg in edges.items():
        paths.append(tmp_path / name.replace(" ", "_").replace(",", "") / "config_db.json")
        paths[-1].parent.mkdir()
        paths[-1].write_text(json.dumps(cfg, indent=4))
    inputs = [Input(str(p), p.read_text()) for p in paths]
    new, old = _both_ways(inputs, monkeypatch)
    assert [str(p) for p, a, b in zip(paths, new, old, strict=True) if a != b] == []
    assert sum(1 for d in new if d[0] != "refused" and d[2]) >= 5  # (issues said: their order is compared)
    found = _findings(paths)
    with monkeypatch.context() as m:
        _old_way(m)
        assert _findings(paths) == found
    assert found


def test_repository_switches_lint_to_the_same_findings_both_ways(monkeypatch):
    paths = [p for p in _sonic_files() if p.is_relative_to(ROOT / "examples")]
    assert paths
    found = _findings(paths)
    with monkeypatch.context() as m:
        _old_way(m)
        assert _findings(paths) == found


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["bench", *range(len(REAL))]), st.data())
def test_fuzzed_sonic_inputs_build_the_same_device_both_ways(which, data):
    """The bench's 8-port switch and tests/test_fuzz_sonic.py's real configs, mutated as that test mutates them."""
    doc = json.loads(switch_config(0, ports_n=8) if which == "bench" else json.dumps(REAL[which]))
    for _ in range(data.draw(st.integers(1, 6))):
        _mutate(doc, data)
    inp = Input("fuzz.json", json.dumps(doc, indent=4))
    new = _device(inp)
    with pytest.MonkeyPatch.context() as m:
        _old_way(m)
        assert _device(inp) == new


def test_the_shared_port_maker_sets_each_field_from_its_own_keyword():
    """Every field given a value of its own: the SharedPort holds each in its place, whatever the keywords' order."""
    import dataclasses

    from losslessd.model import Port, shared_port

    names = [f.name for f in dataclasses.fields(Port) if f.name not in ("queues", "priority_groups")]
    fields = {name: f"value of {name}" for name in names}
    port = shared_port(dict(fields), None, [], None)
    assert {name: getattr(port, name) for name in names if name != "watchdog"} == {
        name: value for name, value in fields.items() if name != "watchdog"}
    assert type(port).__name__ == "SharedPort"


def test_hostile_sonic_inputs_build_the_same_device_both_ways(monkeypatch):
    """tests/hostile_readers.py's damage (bytes, structure) done to its SONiC fixtures and to the bench's 8-port switch,
    each read as text (bytes that are no UTF-8 replaced) and built both ways."""
    from tests.hostile_readers import BYTES, READERS

    texts = [r.file.read_text() for r in READERS if r.fmt == "sonic"] + [switch_config(0, ports_n=8)]
    inputs = [Input(f"{name}.json", damage(text).decode("utf-8", "replace"))
              for text in texts for name, damage in BYTES.items()]
    new, old = _both_ways(inputs, monkeypatch)
    assert [inp.path for inp, a, b in zip(inputs, new, old, strict=True) if a != b] == []
    assert sum(1 for d in new if d[0] != "refused" and d[0]["ports"]) >= 10  # (damaged, and still switches)


def test_the_shared_port_maker_reads_its_first_ports_and_writes_its_code_after(monkeypatch):
    """A SharedPort made by reading the fields (the maker's first READ_CALLS) holds what one made by the code written
    after holds, slot by slot (the watchdog's slot set as it is, the three of its own); a port the code would refuse
    (an unknown keyword, a field without default missing) is refused in the code's words; a run of few SONiC ports
    compiles nothing."""
    import dataclasses

    from losslessd import model, records
    from losslessd.model import Port, SharedPort

    real = compile
    compiled = []
    monkeypatch.setattr(records, "compile", lambda *args: compiled.append(args[1]) or real(*args), raising=False)
    make = model._shared_port_maker()
    names = [f.name for f in dataclasses.fields(Port) if f.name not in ("queues", "priority_groups")]
    slots = [*names, "_shared", "_sources", "_wd"]

    def made(i):
        fields = {"name": f"Ethernet{i}", "speed_gbps": 100.0, "watchdog": ("a", "watchdog"), "mtu_bytes": i}
        port = make(("shared",), ["sources"], None, **fields)
        assert type(port) is SharedPort
        return [model._WATCHDOG_SLOT.__get__(port) if name == "watchdog" else getattr(port, name) for name in slots]

    first = [made(i) for i in range(records.READ_CALLS)]
    assert compiled == []
    assert [made(i) for i in range(records.READ_CALLS)] == first and compiled == ["<make SharedPort>"]
    assert first[3][slots.index("watchdog")] == ("a", "watchdog") and first[3][slots.index("_wd")] is None
    for maker in (model._shared_port_maker(), model._shared_port_maker()):
        with pytest.raises(TypeError, match=r"^make\(\) got an unexpected keyword argument 'nope'$"):
            maker(None, [], None, name="x", nope=1)
        with pytest.raises(TypeError, match=r"^make\(\) missing 1 required keyword-only argument: 'name'$"):
            maker(None, [], None)
