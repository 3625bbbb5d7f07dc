"""The SONiC builder's lossy-by-design step in one pass over the ports (docs/lint-at-scale.md, "Session 44, part h").

_Builder._lossy_by_design judges each port without PFC (PORT role Dpc, a tc_to_pg_map no PFC-enabled port binds, a
service port's shape) and takes out the three reading notes the earlier steps left on it (`_role`, `_pfc_written`,
`_pfcq_written`, no Port field). It took them out in a second pass over every port, half of the step's instructions;
now as each port is judged. What a switch builds must not change: the two-pass step is kept here, and every SONiC input
of the repository and the corpus, and generated switches of every shape the step tells apart, build the same device
(the whole model dump, sources and issues) both ways."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import losslessd.parse.sonic as sonic
from tests.conftest import CORPUS, ROOT
from tests.test_sonic_switch_parse import _built  # (a device, or its refusal, as data to compare)


def _two_passes(self) -> None:
    """_lossy_by_design as it was before (session 43): the verdicts, then a second pass taking the notes out."""
    pfc_ports = [p for p in self.ports.values() if p.get("pfc_enabled")]
    lossless_maps = {self._tc_to_pg_names.get(p["name"]) for p in pfc_ports}
    lossless_maps.discard(None)
    service_shape = bool(pfc_ports) and all(p.get("_pfcq_written") for p in pfc_ports)
    for name, port in self.ports.items():
        if port.get("pfc_enabled") or port.get("_pfc_written"):
            continue
        if port.get("_role") == sonic._DPC_ROLE:
            port["lossy_by_design"] = (f"PORT role {sonic._DPC_ROLE} (smart-switch DPU-facing port) and no "
                                       "pfc_enable: lossy by design")
        elif lossless_maps and (own := self._tc_to_pg_names.get(name)) and own not in lossless_maps:
            port["lossy_by_design"] = (f"binds tc_to_pg_map {own} (the PFC-enabled ports bind "
                                       f"{', '.join(sorted(lossless_maps))}) and writes no pfc_enable: lossy by design")
        elif service_shape and port.get("qos_configured") and "_pfcq_written" in port and not port["_pfcq_written"]:
            port["lossy_by_design"] = ("writes neither pfc_enable nor the pfc_to_queue_map every PFC-enabled port "
                                       "binds (a SONiC service port): lossy by design")
    for port in self.ports.values():
        for key in ("_role", "_pfc_written", "_pfcq_written"):
            port.pop(key, None)


def _sonic_inputs() -> list[Path]:
    """Every JSON file of examples/ and tests/, and the corpus's sonic/ when present."""
    roots = [ROOT / "examples", ROOT / "tests"] + ([CORPUS / "sonic"] if (CORPUS / "SOURCES.md").is_file() else [])
    return sorted(p for root in roots for p in root.rglob("*.json") if "golden" not in p.parts)


_FULL = {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE"}


def _shapes(tmp_path: Path) -> list[Path]:
    """Switches of every shape the step tells apart: per port a role (none, Dpc, another word, not a string), a
    pfc_enable (none, "", "3,4"), a tc_to_pg_map (none, the lossless ports', another), a pfc_to_queue_map or none, a
    PORT_QOS_MAP entry or none; three ports each, so that the PFC ports' maps and service shape vary too (150 switches
    of three kinds drawn from the 144)."""
    kinds = list(itertools.product((None, "Dpc", "Other", 7), (None, "", "3,4"), (None, "AZURE", "AZURE_DPC"),
                                   (False, True), (False, True)))
    out = []
    rng = random.Random(44)
    for n, chosen in enumerate(rng.sample(range(len(kinds)), 3) for _ in range(150)):
        port, qos = {}, {}
        for i, at in enumerate(chosen):
            role, pfc, pg_map, to_queue, entry = kinds[at]
            name = f"Ethernet{4 * i}"
            port[name] = {"admin_status": "up", **({} if role is None else {"role": role})}
            if entry:
                qos[name] = {**_FULL, **({} if pfc is None else {"pfc_enable": pfc}),
                             **({} if pg_map is None else {"tc_to_pg_map": pg_map}),
                             **({"pfc_to_queue_map": "AZURE"} if to_queue else {})}
        data = {"DEVICE_METADATA": {"localhost": {"hostname": f"s{n}"}}, "PORT": port,
                "DSCP_TO_TC_MAP": {"AZURE": {"3": "3", "4": "4"}}, "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3", "4": "4"}},
                "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}, "AZURE_DPC": {"3": "0", "4": "0"}},
                "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {"3": "3", "4": "4"}}, "PORT_QOS_MAP": qos}
        path = tmp_path / f"s{n}.json"
        path.write_text(json.dumps(data))
        out.append(path)
    return out


def test_every_sonic_input_builds_what_the_two_passes_built(monkeypatch, tmp_path):
    inputs = _sonic_inputs() + _shapes(tmp_path)
    one = {path: _built(path) for path in inputs}
    monkeypatch.setattr(sonic._Builder, "_lossy_by_design", _two_passes)
    two = {path: _built(path) for path in inputs}
    assert [p for p in inputs if one[p] != two[p]] == []
    built = [p for p in inputs if isinstance(one[p], dict) and one[p]["ports"]]
    assert len(built) >= 150, len(built)  # (the generated shapes, and the repository's SONiC examples and fixtures)
    lossy = {p["lossy_by_design"].split()[0] for d in one.values() if isinstance(d, dict)
             for p in d["ports"].values() if p.get("lossy_by_design")}
    assert lossy == {"PORT", "binds", "writes"}, lossy  # (each of the three verdicts given somewhere)


class _Counted(dict):
    """A builder's ports, counting the passes over them."""

    passes = 0

    def values(self):
        _Counted.passes += 1
        return super().values()

    def items(self):
        _Counted.passes += 1
        return super().items()


def test_the_ports_are_walked_once_for_the_notes():
    """Two passes over the ports (the PFC-enabled ones, and each port judged and its notes taken out), not three."""
    builder = sonic._Builder.__new__(sonic._Builder)
    builder._tc_to_pg_names = {"Ethernet0": "AZURE"}
    builder.ports = _Counted({f"Ethernet{4 * i}": {"name": f"Ethernet{4 * i}", "pfc_enabled": [3] if i else [],
                                                   "_role": None, "_pfc_written": bool(i), "_pfcq_written": True}
                              for i in range(4)})
    _Counted.passes = 0
    builder._lossy_by_design()
    assert _Counted.passes == 2
    assert all(set(port) == {"name", "pfc_enabled"} for port in builder.ports.values())
