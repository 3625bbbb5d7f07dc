"""A SONiC patch binds every lossless queue to a lossless egress buffer profile (BUFFER_QUEUE).

SONiC's stock buffers (buffers_config.j2) put queues 3-4 on egress_lossless_profile and the others on
egress_lossy_profile: a policy whose lossless priority leaves by another queue (6 here) rendered a snippet that
linted clean and ran lossy at egress. The patch now binds that queue to the device's lossless egress profile, under
the device's own key, and the result, read back, lints clean of BUF005.
"""

from __future__ import annotations

import json
import shutil

from losslessd import api
from losslessd.fix import apply
from tests.clirun import losslessd
from tests.conftest import ROOT

# The render golden's Broadcom SKU (a known ASIC, so the maps can be written; the fixture's own SKU is not shipped).
SKU = ("--sku", "DellEMC-Z9664f-O64")
FIXTURE = ROOT / "tests" / "realworld" / "sonic" / "pfc-enable-6-stock-egress-buffers"
POLICY = ROOT / "tests" / "realworld" / "sonic" / "policy-lossless-3-4-6.yaml"


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
                                     for p in ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")
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


def test_without_a_device_a_queue_outside_the_stock_lossless_ones_is_refused():
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY, "--ports", "Ethernet0:100G:5m",
                    "--pool-size", "32599040", *SKU)
    assert ran.returncode == 2 and ran.stdout == ""
    assert "keep queue(s) 6 on egress_lossy_profile" in ran.stderr, ran.stderr


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
