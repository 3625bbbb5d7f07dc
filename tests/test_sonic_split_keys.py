"""A SONiC fix or render splits a device key whose ports or indexes the corrected profile gives different values.

SONiC's stock buffers key a port's lossless PGs and queues together ("Ethernet0|3-4") and its lossy queues in ranges
("|0-2", "|5-6"); operators' QUEUE entries may name several ports ("Ethernet0,Ethernet8|3-4"). A policy whose lossless
set is {3} or {3,4,6} gives the indexes of those keys different values, which a `config load` merge cannot write (it
sets fields, it never removes a key, and a second key beside the old one leaves two entries for one queue, applied in
no defined order). losslessd refused such devices ("a CONFIG_DB patch cannot split a key"). It now writes an RFC 6902
patch for `config apply-patch` that removes the old key and adds one key per port and index, each with the old
entry's fields and the new ones over them. The tests apply it with jsonpatch, the library SONiC's generic config
updater applies patches with (sonic-utilities gu_common.py PatchWrapper.simulate_patch), and lint the result.
"""

from __future__ import annotations

import json
import shutil

import jsonpatch
import pytest

from losslessd import api
from losslessd.fix import apply
from tests.clirun import losslessd
from tests.conftest import ROOT

SONIC = ROOT / "tests" / "realworld" / "sonic"
FIXTURE = SONIC / "stock-range-keys"
POLICY_3 = SONIC / "policy-lossless-3.yaml"
POLICY_3_4_6 = SONIC / "policy-lossless-3-4-6.yaml"
RANGE_KEYED = ("QUEUE", "BUFFER_PG", "BUFFER_QUEUE")


def _cells(key: str) -> list[tuple[str, int]]:
    """(port, index) pairs a key covers, read here on its own: "Ethernet0,Ethernet8|3-4" -> 4 pairs."""
    ports, _, span = key.rpartition("|")
    low, _, high = span.partition("-")
    return [(port, i) for port in ports.split(",") for i in range(int(low), int(high or low) + 1)]


def _one_key_per_cell(db: dict) -> None:
    for table in RANGE_KEYED:
        seen: dict[tuple[str, int], str] = {}
        for key in db.get(table, {}):
            for cell in _cells(key):
                assert cell not in seen, f"{table}: {key} and {seen[cell]} both cover {cell}"
                seen[cell] = key


def _copy(tmp_path):
    folder = tmp_path / "t0"
    shutil.copytree(FIXTURE, folder)
    return folder


def _lint_codes(folder, policy) -> list[str]:
    return sorted(f.code for f in api.lint([folder], str(policy)).findings if f.severity.value != "info")


def test_fix_for_lossless_3_4_6_splits_the_keys_and_relints_clean(tmp_path):
    folder = _copy(tmp_path)
    path = folder / "config_db.json"
    before = json.loads(path.read_text())
    assert {"BUF005", "ECN001", "PFC001"} <= set(_lint_codes(folder, POLICY_3_4_6))
    result = api.fix([folder], str(POLICY_3_4_6), unsafe=True)
    (dev,) = result.devices
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.message, dev.unresolved, dev.introduced)
    patches = [p for p in dev.parts if apply.is_patch(p.snippet)]
    assert patches and all(p.apply_with == apply.APPLY_PATCH for p in patches)
    assert all(p.apply_with == apply.LOAD for p in dev.parts if p not in patches)
    db = before
    for part in dev.parts:  # in the order printed, each as SONiC's generic config updater applies it
        snippet = json.loads(part.snippet)
        db = jsonpatch.JsonPatch(snippet).apply(db) if isinstance(snippet, list) else \
            json.loads(apply.merge_json(json.dumps(db), part.snippet))
    _one_key_per_cell(db)
    # The old entries' fields stay where the fix does not change them: lossy queue 5 keeps its scheduler and its
    # egress profile, queue 6 keeps its scheduler under the new ECN profile and moves to the lossless egress profile.
    assert db["QUEUE"]["Ethernet8|5"] == {"scheduler": "scheduler.0"}
    assert db["QUEUE"]["Ethernet8|6"]["scheduler"] == "scheduler.0" and "wred_profile" in db["QUEUE"]["Ethernet8|6"]
    assert db["BUFFER_QUEUE"]["Ethernet0|5"] == {"profile": "egress_lossy_profile"}
    assert db["BUFFER_QUEUE"]["Ethernet0|6"] == {"profile": "egress_lossless_profile"}
    assert db["BUFFER_QUEUE"]["Ethernet0|3-4"] == before["BUFFER_QUEUE"]["Ethernet0|3-4"]  # lossless: written whole
    path.write_text(json.dumps(db, indent=4) + "\n")
    assert _lint_codes(folder, POLICY_3_4_6) == []


def test_render_for_lossless_3_is_a_patch_that_applies_and_lints_clean(tmp_path):
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY_3, "--device", FIXTURE)
    assert ran.returncode == 0, ran.stderr
    assert "config apply-patch" in ran.stderr
    patch = json.loads(ran.stdout)
    assert {"op": "remove", "path": "/QUEUE/Ethernet0,Ethernet8|3-4"} in patch
    before = json.loads((FIXTURE / "config_db.json").read_text())
    db = jsonpatch.JsonPatch(patch).apply(before)
    _one_key_per_cell(db)
    # Queue 4, lossy now, keeps the ECN profile its old entry gave it; queue 3 gets the policy's.
    assert db["QUEUE"]["Ethernet0|4"]["wred_profile"] == "AZURE_LOSSLESS"
    assert db["QUEUE"]["Ethernet0|3"]["wred_profile"] != "AZURE_LOSSLESS"
    folder = tmp_path / "t0"
    folder.mkdir()
    (folder / "config_db.json").write_text(json.dumps(db, indent=4) + "\n")
    assert _lint_codes(folder, POLICY_3) == []


def test_render_without_a_split_stays_a_config_load_merge():
    ran = losslessd("render", "--platform", "sonic", "--policy", "sonic-azure", "--device",
                    ROOT / "examples" / "fabric" / "leaf1")
    assert ran.returncode == 0, ran.stderr
    assert isinstance(json.loads(ran.stdout), dict) and "apply-patch" not in ran.stderr


@pytest.mark.parametrize("key", ["Ethernet0|3-4", "Ethernet0,Ethernet8|3", "host1|asic0|Ethernet0|3-4"])
def test_split_patch_keeps_each_cell_once_with_its_old_fields(key):
    current = {"QUEUE": {key: {"scheduler": "s1", "wred_profile": "W"}}, "PORT_QOS_MAP": {"Ethernet0": {"a": "1"}}}
    fragment = {"QUEUE": {key.replace("3-4", "3").replace("Ethernet0,Ethernet8", "Ethernet0"): {"wred_profile": "R"}},
                "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}
    patch = apply.split_patch(current, fragment)
    db = jsonpatch.JsonPatch(patch).apply(current)
    assert key not in db["QUEUE"]
    new = next(iter(fragment["QUEUE"]))
    assert db["QUEUE"][new] == {"scheduler": "s1", "wred_profile": "R"}
    others = {k: v for k, v in db["QUEUE"].items() if k != new}
    assert others and all(v == {"scheduler": "s1", "wred_profile": "W"} for v in others.values())
    assert db["PORT_QOS_MAP"]["Ethernet0"] == {"a": "1", "pfc_enable": "3"}  # merged as `config load` merges
    assert apply.split_patch(current, {"QUEUE": {key: {"wred_profile": "R"}}}) is None  # the key itself: a merge


def test_cutting_a_fragment_that_lands_inside_a_key_gives_the_patch():
    """What `fix` prints and `tune` pushes is the snippet cut against the config (Shape.changes): a fragment that
    lands inside a device key becomes the splitting patch there too, never a second key beside the old one."""
    shape = apply.SHAPES["sonic"]
    current = shape.normalize((FIXTURE / "config_db.json").read_text())
    fragment = json.dumps({"QUEUE": {"Ethernet0|3": {"wred_profile": "[WRED_PROFILE|ROCE]"}}})
    cut = shape.changes(current, fragment)
    assert apply.is_patch(cut) and shape.applied_with(cut) == apply.APPLY_PATCH
    db = json.loads(shape.apply(current, cut))
    _one_key_per_cell(db)
    assert db["QUEUE"]["Ethernet8|3"] == {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
    assert db == jsonpatch.JsonPatch(json.loads(cut)).apply(json.loads(current))
