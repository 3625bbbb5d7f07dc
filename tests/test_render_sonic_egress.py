"""A SONiC patch binds every lossless queue to a lossless egress buffer profile (BUFFER_QUEUE).

SONiC's stock buffers (buffers_config.j2) put queues 3-4 on egress_lossless_profile and the others on
egress_lossy_profile: a policy whose lossless priority leaves by another queue (6 here) rendered a snippet that
linted clean and ran lossy at egress. The patch now binds that queue to the device's lossless egress profile, under
the device's own key, and the result, read back, lints clean of BUF005.
"""

from __future__ import annotations

import json
import shutil

import pytest

from losslessd import api
from losslessd import render as rnd
from losslessd.errors import InputError
from losslessd.fix import apply
from losslessd.policy import load_policy
from tests.clirun import losslessd
from tests.conftest import ROOT

# The render golden's Broadcom SKU (a known ASIC, so the maps can be written; the fixture's own SKU is not shipped).
SKU = ("--sku", "DellEMC-Z9664f-O64")
FIXTURE = ROOT / "tests" / "realworld" / "sonic" / "pfc-enable-6-stock-egress-buffers"
POLICY = ROOT / "tests" / "realworld" / "sonic" / "policy-lossless-3-4-6.yaml"
PORT_NAMES = ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")  # the fixture's ports


def _split(tmp_path, hwsku=None):
    """The fixture with each port's "|5-6" BUFFER_QUEUE key split into "|5" and "|6" (both still lossy)."""
    folder = tmp_path / "t0"
    shutil.copytree(FIXTURE, folder)
    path = folder / "config_db.json"
    db = json.loads(path.read_text())
    for key in [k for k in db["BUFFER_QUEUE"] if k.endswith("|5-6")]:
        value = db["BUFFER_QUEUE"].pop(key)
        port = key.partition("|")[0]
        db["BUFFER_QUEUE"][f"{port}|5"] = dict(value)
        db["BUFFER_QUEUE"][f"{port}|6"] = dict(value)
    if hwsku:
        db["DEVICE_METADATA"]["localhost"]["hwsku"] = hwsku
    path.write_text(json.dumps(db, indent=1) + "\n")
    return folder


def _codes(paths, policy=POLICY):
    return sorted(f.code for f in api.lint(paths, str(policy)).findings if f.severity.value != "info")


def test_render_binds_lossless_queue_6_and_round_trips_clean(tmp_path):
    folder = _split(tmp_path)
    assert _codes([folder]).count("BUF005") == 4  # queue 6 on egress_lossy_profile on every port
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY, "--device", folder, *SKU)
    assert ran.returncode == 0, ran.stderr
    patch = json.loads(ran.stdout)
    # Each lossless queue on the device's lossless profile, the lossy queue 5 left alone, under the device's keys
    # ("|3-4" for the stock lossless range, "|6" as split).
    assert patch["BUFFER_QUEUE"] == {f"{p}|{q}": {"profile": "egress_lossless_profile"}
                                     for p in PORT_NAMES
                                     for q in ("3-4", "6")}
    assert patch["BUFFER_PROFILE"]["egress_lossless_profile"] == {"pool": "egress_lossless_pool", "size": "0",
                                                                 "static_th": "32599040"}
    assert patch["BUFFER_POOL"]["egress_lossless_pool"] == {"type": "egress", "mode": "static", "size": "32599040"}
    rendered = tmp_path / "rendered" / "config_db.json"
    rendered.parent.mkdir()
    rendered.write_text(ran.stdout)
    assert "BUF005" not in [f.code for f in api.lint([rendered.parent], str(POLICY)).findings]  # the snippet alone
    applied = apply.SHAPES["sonic"].apply((folder / "config_db.json").read_text(), ran.stdout)
    (folder / "config_db.json").write_text(applied)
    assert "BUF005" not in _codes([folder])
    assert json.loads(applied)["BUFFER_QUEUE"]["Ethernet0|5"] == {"profile": "egress_lossy_profile"}


def test_fix_binds_the_queue(tmp_path):
    folder = _split(tmp_path, hwsku=SKU[1])  # a SKU whose headroom rows the buffer section can write
    result = api.fix([folder], str(POLICY), unsafe=True)
    (dev,) = result.devices
    assert dev.parts and dev.verified, dev.message
    assert any("BUFFER_QUEUE" in (part.snippet or "") for part in dev.parts)
    applied = (folder / "config_db.json").read_text()
    for part in dev.parts:
        applied = apply.SHAPES["sonic"].apply(applied, part.snippet)
    assert json.loads(applied)["BUFFER_QUEUE"]["Ethernet8|6"] == {"profile": "egress_lossless_profile"}


def test_a_range_key_mixing_lossy_and_lossless_queues_is_split():
    """The stock "|5-6" key: queue 5 would turn lossless with queue 6, so the patch splits it (it was refused)."""
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY, "--device", FIXTURE, *SKU)
    assert ran.returncode == 0, ran.stderr
    db = json.loads(apply.SHAPES["sonic"].apply((FIXTURE / "config_db.json").read_text(), ran.stdout))
    assert "Ethernet0|5-6" not in db["BUFFER_QUEUE"]
    assert db["BUFFER_QUEUE"]["Ethernet0|5"] == {"profile": "egress_lossy_profile"}
    assert db["BUFFER_QUEUE"]["Ethernet0|6"] == {"profile": "egress_lossless_profile"}


def test_a_device_without_a_lossless_egress_profile_keeps_a_queue_outside_3_4_refused():
    """With a device config (a fix), its buffers are its own, not the stock ones: no lossless egress profile there
    leaves nothing to bind queue 6 to."""
    prof = rnd.profile(load_policy(str(POLICY)), [rnd.PortFacts("Ethernet0", 100, 5, 9100)], SKU[1],
                       pool_bytes=32599040)
    with pytest.raises(InputError, match=r"keep queue\(s\) 6 on egress_lossy_profile"):
        rnd.render("sonic", prof)


def test_spectrum_stock_range_key_with_pfc_on_its_first_queue_alone_renders(tmp_path):
    """Spectrum stock buffers (egress_lossless_profile dynamic_th in egress_lossless_pool, sonic-buildimage
    device/mellanox buffers_defaults_objects.j2) with PFC on 3 alone: queue 4, lossy, shares the "|3-4" entry
    written for queue 3, so it does not make that profile the lossy queues'. Lint said so (BUF005 clean) while
    render took the profile for a lossy one and refused the "|3-4" key; both now read the port alike."""
    db = json.loads((ROOT / "tests" / "realworld" / "sonic" / "mellanox-pfc-to-pg-shared-pg" / "config_db.json")
                    .read_text())
    db["BUFFER_PROFILE"]["egress_lossless_profile"] = {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"}
    for entry in db["PORT_QOS_MAP"].values():
        if "pfc_enable" in entry:
            entry["pfc_enable"] = "3"
    folder = tmp_path / "t1"
    folder.mkdir()
    (folder / "config_db.json").write_text(json.dumps(db, indent=1) + "\n")
    assert "BUF005" not in [f.code for f in api.lint([folder], "roce-dscp26").findings]
    ran = losslessd("render", "--platform", "sonic", "--policy", "roce-dscp26", "--device", folder)
    assert ran.returncode == 0, ran.stderr
    assert all(value == {"profile": "egress_lossless_profile"} and key.endswith("|3-4")
               for key, value in json.loads(ran.stdout).get("BUFFER_QUEUE", {}).items())


STOCK_PORTS = [a for p in PORT_NAMES for a in ("--ports", f"{p}:100G:40m:9100")]


def _policy_2_3(tmp_path):
    path = tmp_path / "lossless-2-3.yaml"
    path.write_text("name: lossless-2-3\nextends: sonic-azure\nlossless:\n  priorities: [2, 3]\n  dscp: [2, 3]\n"
                    "  trust: dscp\n  tolerated_priorities: []\n")
    return path


def test_without_a_device_a_lossless_queue_outside_3_4_splits_the_stock_key(tmp_path):
    """Without --device, a policy whose lossless priorities leave by queue 2 (or 6) was refused: the stock buffers
    keep it on egress_lossy_profile, under "<port>|0-2", and a "<port>|2" beside that key would leave two entries
    for queue 2. The patch now deletes the stock key (null, as `config load` deletes) and writes its queues again,
    the lossless one on the stock egress_lossless_profile; applied to a stock config it lints clean of BUF005."""
    for policy, split in ((_policy_2_3(tmp_path), {"0-2": None, "0-1": "egress_lossy_profile",
                                                   "2": "egress_lossless_profile"}),
                          (POLICY, {"5-6": None, "5": "egress_lossy_profile", "6": "egress_lossless_profile"})):
        ran = losslessd("render", "--platform", "sonic", "--policy", policy, *STOCK_PORTS, *SKU)
        assert ran.returncode == 0, ran.stderr
        patch = json.loads(ran.stdout)
        assert list(patch["BUFFER_QUEUE"].items()) == [
            (f"{p}|{q}", None if profile is None else {"profile": profile})
            for p in PORT_NAMES for q, profile in split.items()]
        alone = tmp_path / policy.stem / "config_db.json"
        alone.parent.mkdir()
        alone.write_text(ran.stdout)
        assert _codes([alone.parent], policy) == []  # the snippet on its own
        folder = tmp_path / f"{policy.stem}-device"
        shutil.copytree(FIXTURE, folder)
        db_path = folder / "config_db.json"
        db_path.write_text(apply.SHAPES["sonic"].apply(db_path.read_text(), ran.stdout))
        queues = json.loads(db_path.read_text())["BUFFER_QUEUE"]
        assert set(queues) == {f"{p}|{q}" for p in PORT_NAMES
                               for q in ["3-4", "0-2", "5-6", *split] if split.get(q, q) is not None}
        assert "BUF005" not in _codes([folder], policy)


def test_without_a_device_a_sku_whose_stock_egress_profile_is_capped_is_refused(tmp_path):
    """Arista-7060X6-64PE-B-O128's buffers_defaults caps egress_lossless_profile at a static_th of half its pool
    (BUF005 takes that for lossy): binding queue 2 to it would not make queue 2 lossless, so render refuses."""
    ran = losslessd("render", "--platform", "sonic", "--policy", _policy_2_3(tmp_path), "--sku",
                    "Arista-7060X6-64PE-B-O128", "--ports", "Ethernet0:400G:5m:9100")
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert "keep queue(s) 2 on egress_lossy_profile" in ran.stderr and "BUF005" in ran.stderr, ran.stderr
