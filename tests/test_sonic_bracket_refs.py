"""SONiC references written `[TABLE|name]`, as older SKU templates write them (sonic-buildimage 086b03bd70f9:
DellEMC-Z9432f-O32 and Celestica Midstone-200i qos.json.j2 / buffers.json.j2, under keys joining every port with ','),
read by release (docs/real-configs.md "Session 42, part f").

sonic-swss orch.cpp parseReference required the brackets up to the 202106 branch ("Must be surrounded by [ ]") and
refuses them from 202111 on ("Must not be surrounded by [ ]", a3fdaf41c / da49332b8, pull request 1754): the entry is
retried and never applied. sonic-utilities db_migrator (202111: version_2_0_2 -> version_2_0_3,
migrate_qos_fieldval_reference_format) strips them when it upgrades an older CONFIG_DB, not from a template render. A
key listing ports is split on ',' by qosorch.cpp handlePortQosMapTable and bufferorch.cpp processPriorityGroup
(tokenize(key, list_item_delimiter)), so the list keys of those templates are read port by port (as before)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from losslessd.fix.apply import _REFERENCES, merge_db, release_refs, sonic_patch, sonic_snippet
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from tests.clirun import losslessd

# Written by us in the shape of the Z9432f-O32 template: one PORT_QOS_MAP key for the ports, references in brackets.
OLD_FORM = {
    "DSCP_TO_TC_MAP": {"DEFAULT": {str(d): ("3" if d == 26 else "0") for d in range(64)}},
    "TC_TO_QUEUE_MAP": {"DEFAULT": {str(t): str(t) for t in range(8)}},
    "TC_TO_PRIORITY_GROUP_MAP": {"DEFAULT": {str(t): ("3" if t == 3 else "0") for t in range(8)}},
    "PORT_QOS_MAP": {"Ethernet0,Ethernet8": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|DEFAULT]",
                                             "tc_to_queue_map": "[TC_TO_QUEUE_MAP|DEFAULT]",
                                             "tc_to_pg_map": "[TC_TO_PRIORITY_GROUP_MAP|DEFAULT]",
                                             "pfc_enable": "3"}},
}


def _parse(version: str | None):
    db = dict(OLD_FORM)
    if version:
        db["VERSIONS"] = {"DATABASE": {"VERSION": version}}
    return parse([Input("qos.json", json.dumps(db, indent=1))], "sw")


def _said(device) -> list:
    return [i for i in device.issues if "old `[TABLE|name]` form" in i.message]


def test_a_release_that_takes_bracketed_references_reads_them_without_a_word():
    device = _parse("version_2_0_2")  # db_migrator's 202012 / 202106 version
    assert not _said(device)
    assert device.ports["Ethernet8"].dscp_to_tc[26] == 3 and device.ports["Ethernet8"].tc_to_pg[3] == 3


def test_bracketed_references_without_a_release_are_read_with_a_warning():
    # Before: read without a word, though every release since 202111 never applies such an entry.
    device = _parse(None)
    [issue] = _said(device)
    assert issue.code == "SYS004" and issue.message.startswith("references are written")
    assert "refuses it from 202111 on" in issue.message and "VERSIONS|DATABASE VERSION" in issue.message
    assert device.ports["Ethernet0"].dscp_to_tc[26] == 3  # (read as 202106 and before read them)


def test_a_release_that_refuses_bracketed_references_reads_them_unset():
    device = _parse("version_3_0_7")  # db_migrator's 202205 version
    [issue] = _said(device)
    assert issue.code == "SYS002" and "'version_3_0_7' names such a release" in issue.message
    assert device.ports["Ethernet0"].dscp_to_tc is None and device.ports["Ethernet0"].tc_to_pg is None


# Review r4 (docs/real-configs.md "Session 42, review r4: mends"): orchagent resolves every reference of an entry before
# applying any field (sonic-swss 202111 qosorch.cpp handlePortQosMapTable and handleQueueTable: not_resolved ->
# task_need_retry), so one reference in a form the release refuses leaves the whole entry unapplied; up to 202106 a
# name alone is the refused form (orch.cpp parseReference: "Must be surrounded by [ ]").
def _port(db: dict, version: str | None, port: str = "Ethernet0"):
    db = dict(db, VERSIONS={"DATABASE": {"VERSION": version}}) if version else db
    device = parse([Input("config_db.json", json.dumps(db, indent=1))], "sw")
    return device, device.ports[port]


PLAIN = dict(OLD_FORM, PORT={"Ethernet0": {"lanes": "0", "speed": "100000"}, "Ethernet8": {"lanes": "8"}},
             DEVICE_METADATA={"localhost": {"hostname": "sw"}},
             PORT_QOS_MAP={"Ethernet0,Ethernet8": {"dscp_to_tc_map": "DEFAULT", "tc_to_queue_map": "DEFAULT",
                                                   "tc_to_pg_map": "DEFAULT", "pfc_enable": "3"}})


def test_a_refused_bracketed_reference_leaves_the_whole_port_qos_map_entry_unapplied():
    # Before: the bracketed maps read unset, but pfc_enable 3 read as on, on a switch that runs no PFC on the port.
    whole = dict(PLAIN, PORT_QOS_MAP={"Ethernet0,Ethernet8": dict(PLAIN["PORT_QOS_MAP"]["Ethernet0,Ethernet8"],
                                                                 tc_to_pg_map="[TC_TO_PRIORITY_GROUP_MAP|DEFAULT]")})
    device, port = _port(whole, "version_3_0_7")
    assert not port.pfc_enabled and port.dscp_to_tc is None and port.tc_to_queue is None
    assert [i.code for i in _said(device)] == ["SYS002"]
    _, port = _port(whole, "version_2_0_2")  # (202106 refuses the names alone: unapplied too)
    assert not port.pfc_enabled


@pytest.mark.parametrize("version", ["version_1_0_6", "version_2_0_0", "version_2_0_2"])
def test_names_alone_on_a_release_that_requires_brackets_are_refused(version):
    # Before: read as applied (PFC on 3, DSCP 26 -> TC 3) on a release whose orchagent retries the entry for ever.
    device, port = _port(PLAIN, version)
    assert not port.pfc_enabled and port.dscp_to_tc is None
    [issue] = [i for i in device.issues if "written as names alone" in i.message]
    assert issue.code == "SYS002" and f"'{version}'" in issue.message and "Must be surrounded by [ ]" in issue.message


@pytest.mark.parametrize("ref", ["[DSCP_TO_TC_MAP|DEFAULT]", "[DSCP_TO_TC_MAP:DEFAULT]"])
def test_a_release_that_requires_brackets_takes_both_delimiters(ref):
    # orch.cpp parseReference (202106) splits on ':' first, then on '|'. Before: '[DSCP_TO_TC_MAP:DEFAULT]' was "not
    # a reference to DSCP_TO_TC_MAP; ignored".
    db = dict(PLAIN, PORT_QOS_MAP={"Ethernet0": {"dscp_to_tc_map": ref, "pfc_enable": "3"}})
    device, port = _port(db, "version_2_0_2")
    assert port.pfc_enabled == [3] and port.dscp_to_tc[26] == 3
    assert not [i for i in device.issues if i.code == "SYS002"]


@pytest.mark.parametrize("ref", ["[SCHEDULER|s1]", "[SCHEDULER|s1", "s1]"])
def test_a_refused_queue_reference_leaves_its_wred_profile_unapplied_too(ref):
    # Before: the scheduler read unset but the WRED profile, written as a name, read as marking ECN.
    db = dict(PLAIN, SCHEDULER={"s1": {"type": "DWRR", "weight": "50"}},
              WRED_PROFILE={"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1048576",
                                  "green_max_threshold": "2097152", "green_drop_probability": "5"}},
              QUEUE={"Ethernet0|3": {"scheduler": ref, "wred_profile": "W"}})
    device, port = _port(db, "version_4_0_3")
    queue = port.queues[3]
    assert queue.ecn is None and queue.scheduler.unapplied
    _, port = _port(dict(db, QUEUE={"Ethernet0|3": {"scheduler": "s1", "wred_profile": "W"}}), "version_4_0_3")
    assert port.queues[3].ecn.ecn_enabled and port.queues[3].scheduler.unapplied is None


# fix, `render --device` (fix.apply.sonic_snippet) and `tune --apply` (fix.apply.sonic_patch) write references as the
# device's release takes them: `[TABLE|name]` where its CONFIG_DB names 202106 or before. Before: names alone on every
# release, which orchagent up to 202106 retries for ever (no PFC, maps, scheduler, WRED profile or PG profile applied).
RENDERED = Path(__file__).parent / "fixtures/render/sonic/roce-dscp26.json"  # (losslessd's own render, names alone)


def _device_db(version: str) -> dict:
    return {"VERSIONS": {"DATABASE": {"VERSION": version}}, "DEVICE_METADATA": {"localhost": {"hostname": "sw"}},
            "PORT": {p: {"lanes": str(i), "speed": s} for i, (p, s) in
                     enumerate((("Ethernet0", "100000"), ("Ethernet4", "400000"), ("Ethernet8", "25000")))}}


def _refs(fragment: dict) -> list[str]:
    return [v for t, fields_of in _REFERENCES.items() for e in fragment.get(t, {}).values()
            for f, v in e.items() if f in fields_of]


@pytest.mark.parametrize("version", ["version_1_0_6", "version_2_0_2"])
def test_fix_writes_bracketed_references_for_a_release_that_takes_only_them(version):
    current = _device_db(version)
    out = json.loads(sonic_snippet({None: current}, RENDERED.read_text()))
    refs = _refs(out)
    assert refs and all(r.startswith("[") and r.endswith("]") for r in refs)
    assert out["QUEUE"]["Ethernet0|3"]["scheduler"] == "[SCHEDULER|scheduler.dwrr]"
    assert out["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"]["pool"] == "[BUFFER_POOL|ingress_lossless_pool]"
    # the device after the snippet, read as its release reads it: PFC on, DSCP 26 classified, no refused reference
    device, port = _port(merge_db(current, json.dumps(out)), None)
    assert port.pfc_enabled == [3] and port.dscp_to_tc[26] == 3 and port.queues[3].ecn.ecn_enabled
    assert not [i for i in device.issues if "names alone" in i.message or "`[TABLE|name]` form" in i.message]
    # tune's push: the same form in the patch it writes
    ops = sonic_patch(_device_db(version), json.loads(RENDERED.read_text()))
    values = json.dumps([op.get("value") for op in ops])
    assert '"scheduler": "[SCHEDULER|scheduler.dwrr]"' in values and '"scheduler": "scheduler.dwrr"' not in values


@pytest.mark.parametrize("version", ["version_2_0_3", "version_3_0_7", None])
def test_fix_writes_names_alone_for_a_later_release_or_none_named(version):
    current = _device_db(version or "version_soon")  # (no version losslessd reads: today's form, as render writes)
    text = RENDERED.read_text()
    assert sonic_snippet({None: current}, text) == text


def test_render_says_which_releases_its_references_are_for_and_writes_the_devices_form(tmp_path):
    # Before: render wrote names alone and said nothing, on a switch of any release.
    args = ("render", "--platform", "sonic", "--sku", "Force10-Z9100-C32", "--pool-size", "12766208")
    bare = losslessd(*args, "--ports", "Ethernet0:100G:5m:9100")
    assert bare.returncode == 0 and '"scheduler": "scheduler.dwrr"' in bare.stdout
    assert "written as names alone, for SONiC 202111 and later" in bare.stderr and "version_2_0_2" in bare.stderr
    device = tmp_path / "config_db.json"
    db = dict(_device_db("version_2_0_2"), DEVICE_METADATA={"localhost": {"hostname": "sw",
                                                                          "hwsku": "Force10-Z9100-C32"}})
    device.write_text(json.dumps(db, indent=1))
    ran = losslessd(*args, "--device", device, "--ports", "Ethernet0:100G:5m:9100")
    assert ran.returncode == 0, ran.stderr
    assert '"scheduler": "[SCHEDULER|scheduler.dwrr]"' in ran.stdout and "names alone" not in ran.stderr


def test_the_dynamic_models_null_profile_and_a_profile_list_keep_their_own_form():
    # 202106 buffermgrdyn.cpp takes BUFFER_PG profile "NULL" as it is; a profile_list is bracketed item by item
    # (bufferorch.cpp resolveFieldRefArray). Before this mend "NULL" became "[BUFFER_PROFILE|NULL]".
    fragment = {"BUFFER_PG": {"Ethernet0|3-4": {"profile": "NULL"}},
                "BUFFER_PORT_INGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": "a,[BUFFER_PROFILE|b]"}}}
    out = release_refs([_device_db("version_2_0_2")], fragment)
    assert out["BUFFER_PG"]["Ethernet0|3-4"]["profile"] == "NULL"
    listed = out["BUFFER_PORT_INGRESS_PROFILE_LIST"]["Ethernet0"]["profile_list"]
    assert listed == "[BUFFER_PROFILE|a],[BUFFER_PROFILE|b]"


# Reread rr-b: a BUFFER_PROFILE whose pool reference the release refuses is never created (sonic-swss bufferorch.cpp
# processBufferProfile: the pool unresolved, the entry retried), so a PG naming it holds no profile. Before: the profile
# read as created (pool unknown) and PG 3 as bound to its xoff, as it is where the pool is written as the release takes
# it.
@pytest.mark.parametrize(("version", "pool"), [("version_4_0_3", "[BUFFER_POOL|ingress_lossless_pool]"),
                                                ("version_2_0_2", "ingress_lossless_pool")])
@pytest.mark.parametrize("sku", [None, "Mellanox-SN4600C-C64"])  # (with a SKU, buffermgrd reuses the profile)
def test_a_profile_whose_pool_reference_is_refused_binds_no_pg(version, pool, sku):
    bracketed = version == "version_2_0_2"
    ref = "[BUFFER_PROFILE|pg_lossless_100000_5m_profile]" if bracketed else "pg_lossless_100000_5m_profile"
    db = dict(PLAIN, DEVICE_METADATA={"localhost": {"hostname": "sw", **({"hwsku": sku} if sku else {})}},
              PORT={"Ethernet0": {"lanes": "0", "speed": "100000", "admin_status": "up"}},
              CABLE_LENGTH={"AZURE": {"Ethernet0": "5m"}},
              BUFFER_POOL={"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "47218432"}},
              BUFFER_PROFILE={"pg_lossless_100000_5m_profile": {"pool": pool, "xon": "19456", "xoff": "59392",
                                                                "size": "19456", "dynamic_th": "-2"}},
              BUFFER_PG={"Ethernet0|3-4": {"profile": ref}},
              PORT_QOS_MAP={"Ethernet0": dict(PLAIN["PORT_QOS_MAP"]["Ethernet0,Ethernet8"])})  # (buffermgrd's key)
    device, port = _port(db, version)
    assert port.priority_groups[3].profile is None
    assert "pg_lossless_100000_5m_profile" not in device.buffer_profiles
    assert [i.code for i in device.issues if "VERSIONS|DATABASE VERSION" in i.message] == ["SYS002"]
    good = "ingress_lossless_pool" if not bracketed else "[BUFFER_POOL|ingress_lossless_pool]"
    db["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"]["pool"] = good
    _, port = _port(db, version)
    assert port.priority_groups[3].profile == "pg_lossless_100000_5m_profile"


# Session 43 part g: names alone where the config names no release are read as 202111 on reads them, as before, but
# no longer silently: one SYS004 per switch says which releases refuse them. Before: no word.
@pytest.mark.parametrize("version", [None, "version_soon"])
def test_names_alone_without_a_release_read_say_so_once(version):
    device, port = _port(PLAIN, version)
    assert port.pfc_enabled == [3] and port.dscp_to_tc[26] == 3  # (read as 202111 and later read them)
    said = [i for i in device.issues if i.message.startswith("this input names no SONiC release")]
    assert [i.code for i in said] == ["SYS004"], [i.message for i in device.issues]
    assert "names alone" in said[0].message and "Must be surrounded by [ ]" in said[0].message
    for named in ("version_2_0_2", "version_4_0_3"):  # a release read: no note (202106's refusal is a SYS002)
        device, _ = _port(PLAIN, named)
        assert not [i for i in device.issues if i.message.startswith("this input names no SONiC release")]


def test_names_alone_without_a_release_are_said_once_per_multi_asic_switch():
    files = [Input(f"config_db{n}.json", json.dumps(dict(PLAIN, DEVICE_METADATA={"localhost": {
        "hostname": "sw", "asic_name": f"asic{n}"}}, PORT={f"Ethernet{n}": {"lanes": str(n), "speed": "100000"}},
        PORT_QOS_MAP={f"Ethernet{n}": {"dscp_to_tc_map": "DEFAULT", "pfc_enable": "3"}}), indent=1))
        for n in (0, 8)]
    device = parse(files, "sw")
    assert set(device.ports) == {"Ethernet0", "Ethernet8"}
    assert len([i for i in device.issues if i.message.startswith("this input names no SONiC release")]) == 1


# BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST profile_list: orch.cpp resolveFieldRefArray reads each ','-separated item
# with parseReference; one refused or unresolved item retries the entry (bufferorch.cpp processIngressBufferProfileList:
# not_resolved -> task_need_retry). Before: not read at all, a refused form or a missing profile without a word.
PROFILES = {"ingress_lossless_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "7"},
            "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}}


def _lists(version: str | None, listed: str, table: str = "BUFFER_PORT_INGRESS_PROFILE_LIST"):
    bracketed = version == "version_2_0_2"
    profiles = {name: dict(p, pool="[BUFFER_POOL|ingress_lossless_pool]" if bracketed else p["pool"])
                for name, p in PROFILES.items()}
    db = dict(PLAIN, BUFFER_POOL={"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "4096000"}},
              BUFFER_PROFILE=profiles, **{table: {"Ethernet0": {"profile_list": listed}}})
    if bracketed:
        db["PORT_QOS_MAP"] = {"Ethernet0,Ethernet8": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|DEFAULT]", "pfc_enable": "3"}}
    device, _ = _port(db, version)
    return [(i.code, i.message) for i in device.issues if "profile_list" in i.message]


@pytest.mark.parametrize("table", ["BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"])
@pytest.mark.parametrize(("version", "listed", "said"), [
    ("version_4_0_3", "ingress_lossless_profile,ingress_lossy_profile", None),
    ("version_4_0_3", "ingress_lossless_profile,[BUFFER_PROFILE|ingress_lossy_profile]", "SYS002"),
    ("version_2_0_2", "[BUFFER_PROFILE|ingress_lossless_profile],[BUFFER_PROFILE|ingress_lossy_profile]", None),
    ("version_2_0_2", "[BUFFER_PROFILE|ingress_lossless_profile],ingress_lossy_profile", "SYS002"),
    ("version_2_0_2", "", "SYS002"),  # ("" is too short for 202106's parseReference)
    ("version_4_0_3", "ingress_lossless_profile,nothing_profile", "SYS002"),  # (names no profile: retried for ever)
])
def test_a_profile_list_is_read_item_by_item_by_release(table, version, listed, said):
    found = _lists(version, listed, table)
    assert [code for code, _ in found] == ([said] if said else []), found
    if said and "nothing" not in listed:
        assert "VERSIONS|DATABASE VERSION" in found[0][1] and "PROFILE_LIST entry sets no profile" in found[0][1]
    if "nothing" in listed:
        assert "names BUFFER_PROFILE|nothing_profile, which the config does not define" in found[0][1]


@pytest.mark.parametrize("listed", ["ingress_lossless_profile,ingress_lossy_profile",
                                    "[BUFFER_PROFILE|ingress_lossless_profile],[BUFFER_PROFILE|ingress_lossy_profile]"])
def test_a_profile_list_without_a_release_is_read_by_its_form_with_a_note(listed):
    # (the list's items the only references of the input: no map bound, the profiles without a pool)
    db = dict(PLAIN, BUFFER_PROFILE={p: {k: v for k, v in f.items() if k != "pool"} for p, f in PROFILES.items()},
              BUFFER_PORT_EGRESS_PROFILE_LIST={"Ethernet0": {"profile_list": listed}},
              PORT_QOS_MAP={"Ethernet0": {"pfc_enable": "3"}})
    device, _ = _port(db, None)
    [note] = [i for i in device.issues if "references are written" in i.message]
    assert note.code == "SYS004" and "BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet0 profile_list" in note.message
    assert not [i for i in device.issues if i.code == "SYS002"]


# Session 44 part f. sonic-swss 202012 and 202106 (2cab51d11 to a3fdaf41c) cfgmgr/buffermgr.cpp transformReference:
# buffermgrd copies the buffer tables to APPL_DB rewriting the `|` of each `pool`, `profile` and `profile_list`
# reference, so `[BUFFER_PROFILE:a]` reaches bufferorch as `[BUFFER_PROFILE:a]_TABLE`, which parseReference refuses
# ("Must be surrounded by [ ]"); 201911 and before read CONFIG_DB's buffer tables in orchagent, either separator taken.
def _colon_db(version: str | None, sep: str, listed: str | None = None) -> dict:
    db = dict(PLAIN, PORT_QOS_MAP={"Ethernet0,Ethernet8": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|DEFAULT]",
                                                          "pfc_enable": "3"}},
              BUFFER_POOL={"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "4096000"}},
              BUFFER_PROFILE={"pg_lossless": {"pool": f"[BUFFER_POOL{sep}ingress_lossless_pool]", "size": "0",
                                              "xon": "18432", "xoff": "100000", "dynamic_th": "0"}},
              BUFFER_PG={"Ethernet0|3": {"profile": f"[BUFFER_PROFILE{sep}pg_lossless]"}})
    if listed is not None:
        db = dict(db, BUFFER_PROFILE=dict(db["BUFFER_PROFILE"], pg_lossless=dict(
            db["BUFFER_PROFILE"]["pg_lossless"], pool="[BUFFER_POOL|ingress_lossless_pool]")),
                  BUFFER_PG={}, BUFFER_PORT_INGRESS_PROFILE_LIST={"Ethernet0": {"profile_list": listed}})
    return dict(db, VERSIONS={"DATABASE": {"VERSION": version}}) if version else db


@pytest.mark.parametrize(("version", "sep", "bound", "said"), [
    ("version_2_0_2", ":", None, ("SYS002", "names SONiC 202012 or 202106, whose buffermgrd")),  # (refused)
    ("version_2_0_0", ":", None, ("SYS002", "names SONiC 202012 or 202106, whose buffermgrd")),
    ("version_2_0_2", "|", "pg_lossless", None),
    ("version_1_0_6", ":", "pg_lossless", None),  # (201911: orchagent reads CONFIG_DB, ':' taken)
    (None, ":", "pg_lossless", ("SYS004", "they are read here as 201911 reads them")),
    (None, "|", "pg_lossless", None),
])
def test_a_buffer_reference_written_with_a_colon_is_read_by_release(version, sep, bound, said):
    """Session 43 part g Left: `[BUFFER_PROFILE:a]` was read as bound on 202106, whose buffermgrd makes it a form
    bufferorch refuses: the PG holds no profile and the profile is never created (its `pool` refused too)."""
    device = parse([Input("config_db.json", json.dumps(_colon_db(version, sep), indent=1))], "sw")
    pg = device.ports["Ethernet0"].priority_groups.get(3)
    assert (pg.profile if pg else None) == bound
    assert ("pg_lossless" in device.buffer_profiles) == (bound is not None)
    found = [(i.code, i.message) for i in device.issues if "`[TABLE:name]`" in i.message]
    assert [code for code, _ in found] == ([said[0]] if said else []), found
    if said:
        assert said[1] in found[0][1] and "BUFFER_PROFILE|pg_lossless pool '[BUFFER_POOL:" in found[0][1]


def test_a_profile_list_item_written_with_a_colon_is_refused_on_202106():
    listed = "[BUFFER_PROFILE|pg_lossless],[BUFFER_PROFILE:pg_lossless]"
    device = parse([Input("config_db.json", json.dumps(_colon_db("version_2_0_2", "|", listed), indent=1))], "sw")
    [said] = [i for i in device.issues if "`[TABLE:name]`" in i.message]
    assert said.code == "SYS002" and "BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet0 profile_list" in said.message
    device = parse([Input("config_db.json", json.dumps(_colon_db("version_2_0_2", "|", listed.replace(":", "|")),
                                                       indent=1))], "sw")
    assert not [i for i in device.issues if "profile_list" in i.message]


@pytest.mark.parametrize("listed", ["ingress_lossless_profile,,ingress_lossy_profile", ",ingress_lossless_profile"])
def test_an_empty_profile_list_item_is_named(listed):
    """Session 43 part g Left: `a,,b` on 202111 and later passed without a word. orch.cpp parseReference takes "" as
    a valid reference, resolveFieldRefArray's std::map operator[] gives it a null SAI object: named, what the SAI
    does with it not verified."""
    found = _lists("version_4_0_3", listed)
    assert [code for code, _ in found] == ["SYS002"], found
    assert "holds an empty item" in found[0][1] and "could not be verified" in found[0][1]


def _namespace(n: int, ref: str, version: str | None = None) -> Input:
    db = dict(PLAIN, DEVICE_METADATA={"localhost": {"hostname": "sw", "asic_name": f"asic{n}"}},
              PORT={f"Ethernet{n}": {"lanes": str(n), "speed": "100000"}},
              PORT_QOS_MAP={f"Ethernet{n}": {"dscp_to_tc_map": ref, "pfc_enable": "3"}})
    if version:
        db["VERSIONS"] = {"DATABASE": {"VERSION": version}}
    return Input(f"config_db{n}.json", json.dumps(db, indent=1))


def _release_notes(device) -> list[tuple[str, str]]:
    return [(i.code, i.message[:60]) for i in device.issues
            if "release" in i.message and ("form" in i.message or "names alone" in i.message
                                           or "different SONiC releases" in i.message)]


def test_a_multi_asic_switch_s_release_notes_are_the_switch_s():
    """Session 43 part g/reread sc Left: each namespace said its own release note, so a switch whose namespaces
    write the two forms got two notes, each saying its form is taken (one image runs them all: on any release one
    form's entries are never applied), and a namespace naming no release was read without its sibling's."""
    both = parse([_namespace(0, "DEFAULT"), _namespace(8, "[DSCP_TO_TC_MAP|DEFAULT]")], "sw")
    assert [(code, text[:45]) for code, text in _release_notes(both)] == [
        ("SYS004", "this input names no SONiC release losslessd r")]
    assert "written both in the old `[TABLE|name]` form" in next(
        i.message for i in both.issues if i.message.startswith("this input names no SONiC release"))
    # asic0 names no release; asic8 names 202211's: the switch runs it, asic0's bracketed reference is refused there
    sibling = parse([_namespace(0, "[DSCP_TO_TC_MAP|DEFAULT]"), _namespace(8, "DEFAULT", "version_4_0_3")], "sw")
    assert not sibling.ports["Ethernet0"].pfc_enabled and sibling.ports["Ethernet8"].pfc_enabled == [3]
    assert [code for code, _ in _release_notes(sibling)] == ["SYS002"]
    differ = parse([_namespace(0, "DEFAULT", "version_2_0_2"), _namespace(8, "DEFAULT", "version_4_0_3")], "sw")
    assert [i.code for i in differ.issues if "name different SONiC releases" in i.message] == ["SYS002"]
