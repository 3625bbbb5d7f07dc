"""`render` and `fix` on a multi-ASIC SONiC switch write one RFC 6902 patch whose paths name each ASIC's namespace.

Such a switch keeps a CONFIG_DB per ASIC namespace. Its `config load` takes one file per namespace and refuses a
single one (sonic-utilities config/main.py `load`), so the flat fragment losslessd printed could not be applied;
where a key had to be split, losslessd refused. sonic-utilities' generic config updater takes one patch whose paths
begin with the namespace (`/asic0/QUEUE/...`, `/localhost/...`) and refuses a path without one on a multi-ASIC
switch ("Multi ASIC must have namespace prefix in path": generic_updater.py extract_scope). The tests apply the
patch the way that updater does (each path's first part names the scope, the rest is applied with jsonpatch to
that namespace's CONFIG_DB) and lint the result.
"""

from __future__ import annotations

import json
import re

import jsonpatch
import pytest

from losslessd import api
from losslessd.fix import apply
from losslessd.inventory import load
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.apply import SonicPusher
from losslessd.tune.space import Candidate
from tests.clirun import losslessd
from tests.conftest import ROOT

SONIC = ROOT / "tests" / "realworld" / "sonic"
STOCK = json.loads((SONIC / "stock-range-keys" / "config_db.json").read_text())
POLICY_3 = SONIC / "policy-lossless-3.yaml"
POLICY_3_4_6 = SONIC / "policy-lossless-3-4-6.yaml"
TUNE_POLICY = load_policy(str(POLICY_3))
TUNE_CANDIDATE = Candidate(300_000, 3_000_000, 20.0)
PORT_KEYED = ("PORT", "PORT_QOS_MAP", "PFC_WD", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE")


def _asic(offset: int) -> dict:
    """The stock two-port ASIC config with its ports renumbered (Ethernet0 -> Ethernet<offset>), as a second ASIC of
    one switch numbers its front-panel ports after the first's."""
    text = re.sub(r"Ethernet(\d+)", lambda m: f"Ethernet{int(m.group(1)) + offset}", json.dumps(STOCK))
    out = json.loads(text)
    out["DEVICE_METADATA"]["localhost"]["hostname"] = "t2"
    return out


def _switch(tmp_path, asic1: dict | None = None):
    """`show runningconfiguration all` of a two-ASIC switch (sonic-utilities show/main.py prints every namespace)."""
    folder = tmp_path / "t2"
    folder.mkdir()
    dump = {"localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "t2", "hwsku": STOCK["DEVICE_METADATA"][
        "localhost"]["hwsku"]}}}, "asic0": _asic(0), "asic1": asic1 or _asic(256)}
    (folder / "running.json").write_text(json.dumps(dump, indent=4) + "\n")
    return folder, dump


def _scoped(patch: list[dict]) -> dict[str, list[dict]]:
    """The patch per namespace, as the generic config updater cuts it: the first part of a path names an ASIC
    namespace (asicN) or the host (localhost); a path without one is refused on a multi-ASIC switch."""
    out: dict[str, list[dict]] = {}
    for op in patch:
        scope, _, rest = op["path"][1:].partition("/")
        assert re.fullmatch(r"asic\d+|localhost", scope), f"no namespace in {op['path']}"
        out.setdefault(scope, []).append({**op, "path": "/" + rest})
    return out


def _applied(dump: dict, patch: list[dict]) -> dict:
    out = dict(dump)
    for scope, ops in _scoped(patch).items():
        out[scope] = jsonpatch.JsonPatch(ops).apply(dump[scope])
    return out


def _codes(folder, policy) -> list[str]:
    return sorted(f.code for f in api.lint([folder], str(policy)).findings if f.severity.value != "info")


def test_render_splits_each_asics_keys_in_its_own_namespace_and_the_result_lints_clean(tmp_path):
    folder, dump = _switch(tmp_path)
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY_3, "--device", folder)
    assert ran.returncode == 0, ran.stderr
    assert "multi-ASIC" in ran.stderr and "config apply-patch" in ran.stderr, ran.stderr
    patch = json.loads(ran.stdout)
    scoped = _scoped(patch)
    assert set(scoped) == {"asic0", "asic1"}  # nothing of the ASICs' QoS goes to the host namespace
    assert {"op": "remove", "path": "/asic0/QUEUE/Ethernet0,Ethernet8|3-4"} in patch
    assert {"op": "remove", "path": "/asic1/QUEUE/Ethernet256,Ethernet264|3-4"} in patch
    for scope, ops in scoped.items():  # every port's entry in the namespace whose PORT holds the port
        for op in ops:
            table, _, key = op["path"][1:].partition("/")
            key = key.split("/")[0]
            if table in PORT_KEYED and key != "GLOBAL":
                ports = key.rpartition("|")[0] if "|" in key else key
                assert all(p in dump[scope]["PORT"] for p in ports.split(",")), (scope, op["path"])
    # what every ASIC's ports refer to is written to every ASIC
    for table in ("DSCP_TO_TC_MAP", "WRED_PROFILE"):
        assert all(any(op["path"].startswith(f"/{table}") for op in scoped[ns]) for ns in ("asic0", "asic1")), table
    fixed = _applied(dump, patch)
    assert fixed["localhost"] == dump["localhost"]
    (folder / "running.json").write_text(json.dumps(fixed, indent=4) + "\n")
    assert _codes(folder, POLICY_3) == []


def test_fix_prints_namespaced_patches_that_relint_clean(tmp_path):
    folder, dump = _switch(tmp_path)
    assert {"BUF005", "ECN001", "PFC001"} <= set(_codes(folder, POLICY_3_4_6))
    (dev,) = api.fix([folder], str(POLICY_3_4_6), unsafe=True).devices
    # linted again with the printed parts applied to the dump itself (its top-level keys are the namespaces)
    assert dev.verified and not dev.unresolved and not dev.introduced, (dev.message, dev.unresolved, dev.introduced)
    assert dev.parts and all(apply.is_patch(p.snippet) and p.apply_with == apply.APPLY_PATCH for p in dev.parts)
    for part in dev.parts:  # in the order printed, each as the generic config updater applies it
        dump = _applied(dump, json.loads(part.snippet))
    (folder / "running.json").write_text(json.dumps(dump, indent=4) + "\n")
    assert _codes(folder, POLICY_3_4_6) == []


def test_an_etc_sonic_folder_gets_the_same_namespaced_patch(tmp_path):
    """config_db.json (host) beside config_db0.json / config_db1.json (asic0, asic1): the same namespaces."""
    folder, dump = _switch(tmp_path)
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "config_db.json").write_text(json.dumps(dump["localhost"]))
    for n in (0, 1):
        (etc / f"config_db{n}.json").write_text(json.dumps(dump[f"asic{n}"], indent=4))
    dumped = losslessd("render", "--platform", "sonic", "--policy", POLICY_3, "--device", folder)
    files = losslessd("render", "--platform", "sonic", "--policy", POLICY_3, "--device", etc)
    assert dumped.returncode == files.returncode == 0, files.stderr
    assert json.loads(files.stdout) == json.loads(dumped.stdout)


def test_a_port_no_namespace_holds_is_refused_naming_it(tmp_path):
    folder, _ = _switch(tmp_path)
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY_3, "--device", folder,
                    "--ports", "Ethernet999:400:5")
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert "Ethernet999" in ran.stderr and "no namespace's PORT" in ran.stderr and str(folder) in ran.stderr
    assert "Traceback" not in ran.stderr


@pytest.mark.parametrize("field", ["size", "xoff"])
def test_asics_whose_pool_differs_are_refused_rather_than_given_one_asics_pool(tmp_path, field):
    """render sizes the ingress lossless pool from the device's (the first ASIC's): written to an ASIC whose own pool
    differs, it would resize that ASIC's buffers."""
    other = _asic(256)
    pool = other["BUFFER_POOL"]["ingress_lossless_pool"]
    pool[field] = str(int(pool.get(field, "1000000")) // 2)
    folder, _ = _switch(tmp_path, other)
    ran = losslessd("render", "--platform", "sonic", "--policy", POLICY_3, "--device", folder)
    assert ran.returncode == 2 and ran.stdout == "", (ran.stdout, ran.stderr)
    assert "ASICs" in ran.stderr and "ingress_lossless_pool" in ran.stderr and str(folder) in ran.stderr, ran.stderr


def test_tune_pushes_a_namespaced_patch_to_a_multi_asic_switch_over_ssh(tmp_path, make_sim):
    """`tune --apply` writes its ECN candidate with `config apply-patch`: on a multi-ASIC switch each path names the
    namespace of the port it changes (the simulator serves the dump and applies the patch to it over SSH); the push
    reads the switch back and checks the candidate landed (ecn_check), else it raises."""
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    folder, _ = _switch(fabric)
    sim = make_sim(["t2"], snmp=False, fabric=fabric)
    host = load(sim.inventory_path, sim.env).hosts["t2"]
    cfg = candidate.load("t2", host.platform.id, sim.running_config("t2"), TUNE_POLICY, ["Ethernet0", "Ethernet256"])
    pusher = SonicPusher(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    pusher.open()
    try:
        checked = candidate.check(cfg, TUNE_POLICY, TUNE_CANDIDATE)
        pushed = pusher.push(checked.snippet, candidate.ecn_check(cfg, TUNE_POLICY, candidate.expected(
            cfg, TUNE_POLICY, TUNE_CANDIDATE)))
    finally:
        pusher.close()
    ops = json.loads(pushed.diff)
    assert pushed.changed and set(_scoped(ops)) == {"asic0", "asic1"}
    db = json.loads(sim.running_config("t2"))
    profile = next(iter(op["path"].split("/")[3] for op in ops if "/WRED_PROFILE/" in op["path"]))
    for ns, port in (("asic0", "Ethernet0"), ("asic1", "Ethernet256")):
        assert db[ns]["WRED_PROFILE"][profile] == db["asic0"]["WRED_PROFILE"][profile], ns
        # (its CONFIG_DB names no release: a name alone, as 202111 and later take it; fix.apply.release_refs)
        assert any(port in key.split("|")[0].split(",") and q.get("wred_profile") == profile
                   for key, q in db[ns]["QUEUE"].items()), (ns, db[ns]["QUEUE"])
