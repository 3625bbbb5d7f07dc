"""A SONiC patch writes a PG or queue under the key the device already keys it with.

buffermgr.cpp writes a port's lossless PGs as one range key ("Ethernet0|3-4"); a patch that adds "Ethernet0|3" beside
it leaves two BUFFER_PG entries for PG 3, which SONiC applies in no defined order, so the old (too small) profile may
win: lossy under load, while the patched file, read back, lints clean.
"""

from __future__ import annotations

import json
import shutil

import pytest

from losslessd import api
from losslessd.fix import apply
from tests.clirun import losslessd
from tests.conftest import ROOT

LEAF = ROOT / "examples" / "fabric" / "leaf1" / "config_db.json"


def _leaf(tmp_path, rekey):
    """examples/fabric/leaf1 with each port's PG 3 entry rekeyed by ``rekey(port)`` (its other PGs as they are)."""
    db = json.loads(LEAF.read_text())
    pgs = {}
    for key, value in db["BUFFER_PG"].items():
        port, _, index = key.partition("|")
        new = rekey(port) if index == "3" else None
        pgs[new or key] = value if new is None or "profile" not in value else dict(value)
    db["BUFFER_PG"] = pgs
    folder = tmp_path / "leaf1"
    folder.mkdir()
    (folder / "config_db.json").write_text(json.dumps(db, indent=1) + "\n")
    return folder


def test_render_patches_the_devices_range_key(tmp_path):
    folder = _leaf(tmp_path, lambda port: f"{port}|3-4")
    ran = losslessd("render", "--platform", "sonic", "--policy", "roce-dscp26", "--device", str(folder))
    assert ran.returncode == 0, ran.stderr
    keys = list(json.loads(ran.stdout)["BUFFER_PG"])
    assert keys and all(key.endswith("|3-4") for key in keys), keys


def test_a_fix_leaves_one_entry_per_pg(tmp_path):
    """The applied config has no single-PG key beside the range key it overlaps."""
    folder = _leaf(tmp_path, lambda port: f"{port}|3-4")
    path = folder / "config_db.json"
    db = json.loads(path.read_text())
    for profile in db["BUFFER_PROFILE"].values():
        if "xoff" in profile:
            profile["xoff"] = "1024"  # every lossless PG short of headroom: BUF002 everywhere
    path.write_text(json.dumps(db, indent=1) + "\n")
    result = api.fix([folder], "roce-dscp26", unsafe=True)
    (dev,) = result.devices
    assert dev.parts and dev.verified, dev.message
    applied = path.read_text()
    for part in dev.parts:
        applied = apply.SHAPES["sonic"].apply(applied, part.snippet)
    pg_keys = json.loads(applied)["BUFFER_PG"]
    for port in {key.partition("|")[0] for key in pg_keys}:
        assert not (f"{port}|3" in pg_keys and f"{port}|3-4" in pg_keys), port


@pytest.mark.parametrize(("rekey", "split"), [
    (lambda port: f"{port}|0-3", "Ethernet0|0-3"),  # PG 3 inside the lossy PGs' key: they must not turn lossless
    (lambda port: "Ethernet0,Ethernet4|3" if port in ("Ethernet0", "Ethernet4") else None, "Ethernet0,Ethernet4|3"),
])
def test_a_key_the_patch_cannot_take_whole_is_split(tmp_path, rekey, split):
    """Such a key was refused; the render is now a JSON patch that splits it (tests/test_sonic_split_keys.py)."""
    folder = _leaf(tmp_path, rekey)
    db = json.loads((folder / "config_db.json").read_text())
    if split.endswith("0-3"):  # the range carries the lossy profile, as PG 0's entry did
        for key in [k for k in db["BUFFER_PG"] if k.endswith("|0-3")]:
            db["BUFFER_PG"][key] = {"profile": "ingress_lossy_profile"}
            db["BUFFER_PG"].pop(key.replace("|0-3", "|0"), None)
        (folder / "config_db.json").write_text(json.dumps(db, indent=1) + "\n")
    ran = losslessd("render", "--platform", "sonic", "--policy", "roce-dscp26", "--device", str(folder))
    assert ran.returncode == 0, ran.stderr
    patch = json.loads(ran.stdout)
    assert {"op": "remove", "path": f"/BUFFER_PG/{split}"} in patch
    pgs = apply.SHAPES["sonic"].apply(json.dumps(db), ran.stdout)
    assert json.loads(pgs)["BUFFER_PG"]["Ethernet0|0"] == {"profile": "ingress_lossy_profile"}


def test_a_range_key_on_a_profile_with_xoff_0_is_no_lossless_key(tmp_path):
    """A profile with `xoff: "0"` keeps no headroom (lint's PG check, rules.common.pg_buffer_break): PG 4 under
    "|3-4" is lossy now, and writing the key whole would make it lossless; render took xoff 0 for headroom. The key
    is split: PG 3 gets the rendered lossless profile, PG 4 keeps its entry."""
    folder = _leaf(tmp_path, lambda port: f"{port}|3-4")
    db = json.loads((folder / "config_db.json").read_text())
    db["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"]["xoff"] = "0"
    (folder / "config_db.json").write_text(json.dumps(db, indent=1) + "\n")
    ran = losslessd("render", "--platform", "sonic", "--policy", "roce-dscp26", "--device", str(folder))
    assert ran.returncode == 0, ran.stderr
    assert {"op": "remove", "path": "/BUFFER_PG/Ethernet0|3-4"} in json.loads(ran.stdout)
    pgs = json.loads(apply.SHAPES["sonic"].apply(json.dumps(db), ran.stdout))["BUFFER_PG"]
    assert pgs["Ethernet0|4"] == db["BUFFER_PG"]["Ethernet0|3-4"] and "Ethernet0|3-4" not in pgs


def test_untouched_device_keys_render_as_before(tmp_path):
    shutil.copytree(LEAF.parent, tmp_path / "leaf1")
    ran = losslessd("render", "--platform", "sonic", "--policy", "roce-dscp26", "--device", str(tmp_path / "leaf1"))
    assert ran.returncode == 0, ran.stderr
    assert all(key.endswith("|3") for key in json.loads(ran.stdout)["BUFFER_PG"])


def test_a_voq_line_cards_own_system_port_keys_are_one_port():
    """A VOQ line card keys its QUEUE entries by its own system ports ('lc-a-2|asic0|Ethernet0|3'): the patch writes
    under them (it was refused: 'also sets other ports')."""
    folder = ROOT / "tests" / "realworld" / "sonic" / "voq-linecard"
    ran = losslessd("render", "--platform", "sonic", "--policy", "sonic-azure", "--device", str(folder))
    assert ran.returncode == 0, ran.stderr
    queues = json.loads(ran.stdout)["QUEUE"]
    assert "lc-a-2|asic0|Ethernet0|0" in queues and "Ethernet0|0" not in queues, list(queues)[:8]
