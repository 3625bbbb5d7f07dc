"""SONiC's traditional buffer manager binds a PFC port's lossless PGs to its lookup profile, over the config's.

The configs here are written by us from sonic-swss cfgmgr/buffermgr.cpp (e6b0c5b5d2ab), BufferMgr::doSpeedUpdateTask
(the binding, the Mellanox/Barefoot admin-down case, no lookup row), BufferMgr::doTask (PORT speed and admin_status,
admin_status absent = down) and doBufferMetaTask (DEVICE_METADATA buffer_model), and orch.cpp generateIdListFromMap
(the BUFFER_PG key's range). The lookup rows are the SKUs' pg_profile_lookup.ini in sonic-net/sonic-buildimage
@086b03bd70f9 (losslessd/data/sonic_pg_profiles.json): wistron_6512_32r `400000 300m 1518 0 268640 1 9408`,
Mellanox-SN4600C-C64 `100000 5m 19456 19456 59392 0`, Alphanetworks-SNJ60D0-320F `100000 5m 1270 0 190500 -2 2540`.
"""

from __future__ import annotations

import copy
import json

import pytest

from losslessd import api
from losslessd.fix import apply
from losslessd.parse.base import Input
from losslessd.parse.sonic import buffermgrd, parse

# A t1 port of the Wistron 6512-32R as its template writes it (round 9 of docs/real-configs.md): the template's own
# static lossless profile (xoff 135520, the 400G 40m row) on a 400G port with 300 m of cable.
WISTRON = {
    "DEVICE_METADATA": {"localhost": {"hostname": "t1", "hwsku": "wistron_6512_32r",
                                      "platform": "x86_64-wistron_6512_32r-r0"}},
    "PORT": {"Ethernet0": {"speed": "400000", "mtu": "9100", "admin_status": "up"}},
    "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "tc_to_queue_map": "AZURE",
                                   "pfc_to_queue_map": "AZURE", "pfc_enable": "3,4"}},
    "DSCP_TO_TC_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4"}},
    "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4"}},
    "TC_TO_QUEUE_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4"}},
    "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {"3": "3", "4": "4"}},
    "CABLE_LENGTH": {"AZURE": {"Ethernet0": "300m"}},
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "51691264"}},
    "BUFFER_PROFILE": {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
        "ingress_lossless_profile": {"pool": "ingress_lossless_pool", "xon": "0", "xoff": "135520", "size": "1518",
                                     "dynamic_th": "1", "xon_offset": "9408"}},
    "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"},
                  "Ethernet0|3-4": {"profile": "ingress_lossless_profile"}},
}


def _config(**changes) -> dict:
    """WISTRON with tables replaced (None: removed); ``meta``/``port`` update DEVICE_METADATA / PORT Ethernet0."""
    db = copy.deepcopy(WISTRON)
    db["DEVICE_METADATA"]["localhost"].update(changes.pop("meta", {}))
    db["PORT"]["Ethernet0"].update(changes.pop("port", {}))
    for table, value in changes.items():
        if value is None:
            db.pop(table, None)
        else:
            db[table] = value
    return db


def _saved(db: dict) -> dict:
    """``db`` as a switch saves it: naming its release (202211 here, unless the test names one)."""
    return {"VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}}, **db}


def _parse(db: dict):
    text = json.dumps(_saved(db), indent=1)
    return parse([Input("config_db.json", text)], "sw")


def _pgs(device, port="Ethernet0") -> dict:
    return {i: (pg.profile, pg.runtime_profile) for i, pg in device.ports[port].priority_groups.items()}


def _lint(tmp_path, db: dict, select=("BUF", "SYS")):
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(_saved(db), indent=1))
    return api.lint([path], "sonic-azure", select_codes=list(select)).findings


def test_pg_keys_are_runs_of_pfc_enable_numbers():
    # orch.cpp generateIdListFromMap's own example: 00100110b -> ["1-2", "5"]
    assert buffermgrd.pg_ranges([1, 2, 5]) == (("1-2", (1, 2)), ("5", (5,)))
    # to_uint<uint8_t> reads an item whole or not at all: "3-4" is no number, " 6" is (stoul skips leading blanks)
    assert buffermgrd.pfc_pgs("3,4") == [3, 4] and buffermgrd.pfc_pgs("3-4") == []
    assert buffermgrd.pfc_pgs(" 6,x,3 ") == [6]


def test_pfc_enable_items_read_as_to_uint_reads_them():
    """swss converter.h to_uint<uint8_t> is stoul(item, &idx, 0) with nothing after idx and at most 255: C strtoul
    base 0 reads '0x4' as hex 4, '04' as octal 4, '08' as 0 then '8' unread (skipped), '-0' as 0; buffermgr.cpp skips
    what throws invalid_argument. generateIdListFromMap(bitmap, 8) scans ids 0-8 and writes a run only when a clear
    id ends it: '7,8' writes nothing, '3,4,8' writes 3-4."""
    cases = {"0x3,0X4": [3, 4], "03,04": [3, 4], "08": [], "0x": [], "0xg": [], "-0": [0], "-3": [], "+3": [3],
             "256": [], "0x100": [], "010": [8], "3\x00x": [3], "3 ": [], "": []}
    for text, read in cases.items():
        assert buffermgrd.pfc_pgs(text) == read, text
    assert buffermgrd.pg_ranges(buffermgrd.pfc_pgs("7,8")) == ()
    assert buffermgrd.pg_ranges(buffermgrd.pfc_pgs("3,4,8")) == (("3-4", (3, 4)),)
    assert buffermgrd.pg_ranges(buffermgrd.pfc_pgs("0x3,0x4")) == (("3-4", (3, 4)),)
    for text in ("35", "0x23", "9" * 30):  # `1 << n` past an int; stoul's out_of_range, which ends buffermgrd
        with pytest.raises(ValueError):
            buffermgrd.pfc_pgs(text)


def test_hex_pfc_enable_items_are_bound_by_buffermgrd():
    """'0x3,0x4': orchagent's stoi reads priority 0 (SYS002), buffermgrd binds PGs 3-4 to its lookup profile."""
    device = _parse(_config(PORT_QOS_MAP={"Ethernet0": {**WISTRON["PORT_QOS_MAP"]["Ethernet0"],
                                                        "pfc_enable": "0x3,0x4"}}))
    pgs = _pgs(device)
    assert pgs[3] == pgs[4] == ("pg_lossless_400000_300m_profile", False)


def test_an_undefined_pfc_enable_item_leaves_buffermgrds_pgs_unknown():
    """'3,4,40': buffermgrd shifts 1 by 40 (undefined), so what it binds is unknown (SYS004), not the file's profile."""
    device = _parse(_config(PORT_QOS_MAP={"Ethernet0": {**WISTRON["PORT_QOS_MAP"]["Ethernet0"],
                                                        "pfc_enable": "3,4,40"}}))
    assert {i: pg for i, pg in _pgs(device).items() if i in (3, 4)} == {3: (None, True), 4: (None, True)}
    assert any(i.code == "SYS004" and "'40'" in i.message for i in device.issues)


def test_the_lookup_profile_runs_over_the_templates_static_one(tmp_path):
    device = _parse(WISTRON)
    assert _pgs(device) == {0: ("ingress_lossy_profile", False), 3: ("pg_lossless_400000_300m_profile", False),
                            4: ("pg_lossless_400000_300m_profile", False)}
    made = device.buffer_profiles["pg_lossless_400000_300m_profile"]
    assert (made.pool, made.size_bytes, made.xon_bytes, made.xoff_bytes, made.xon_offset_bytes,
            made.dynamic_threshold) == ("ingress_lossless_pool", 1518, 0, 268640, 9408, 1)
    assert "`400000 300m`" in made.source.command and "wistron_6512_32r/pg_profile_lookup.ini" in made.source.command
    assert device.ports["Ethernet0"].priority_groups[3].source.pointer == "/PORT_QOS_MAP/Ethernet0/pfc_enable"
    # the template's 135520 B was a false BUF002: the 268640 B row is what runs
    assert [f.code for f in _lint(tmp_path, WISTRON) if not f.unverified] == []


def test_a_pg_already_on_the_lookup_name_keeps_the_configs_profile(tmp_path):
    """buffermgrd reuses a BUFFER_PROFILE of its name as written, and binds the PGs not yet on it (PG 4)."""
    short = {"pool": "ingress_lossless_pool", "xon": "0", "xoff": "100000", "size": "1518", "dynamic_th": "1"}
    db = _config(BUFFER_PROFILE={**WISTRON["BUFFER_PROFILE"], "pg_lossless_400000_300m_profile": short},
                 BUFFER_PG={"Ethernet0|3": {"profile": "pg_lossless_400000_300m_profile"}})
    device = _parse(db)
    assert _pgs(device) == {3: ("pg_lossless_400000_300m_profile", False),
                            4: ("pg_lossless_400000_300m_profile", False)}
    assert device.buffer_profiles["pg_lossless_400000_300m_profile"].xoff_bytes == 100000
    assert device.ports["Ethernet0"].priority_groups[3].source.pointer == "/BUFFER_PG/Ethernet0|3"
    assert sorted(f.message[:4] for f in _lint(tmp_path, db)
                  if f.code == "BUF002") == ["PG 3", "PG 4"]


def test_fix_edits_the_profile_buffermgrd_binds(tmp_path):
    """The fix writes the profile under buffermgrd's own name, so the switch keeps it (applied: lint is clean)."""
    short = {"pool": "ingress_lossless_pool", "xon": "0", "xoff": "100000", "size": "1518", "dynamic_th": "1"}
    db = _config(BUFFER_PROFILE={**WISTRON["BUFFER_PROFILE"], "pg_lossless_400000_300m_profile": short})
    folder = tmp_path / "t1"
    folder.mkdir()
    path = folder / "config_db.json"
    path.write_text(json.dumps(_saved(db), indent=1) + "\n")
    result = api.fix([folder], "sonic-azure", unsafe=True)
    (dev,) = result.devices
    assert dev.parts, dev.message
    applied = path.read_text()
    for part in dev.parts:
        applied = apply.SHAPES["sonic"].apply(applied, part.snippet)
    fixed = json.loads(applied)
    assert int(fixed["BUFFER_PROFILE"]["pg_lossless_400000_300m_profile"]["xoff"]) >= 268640
    assert {fixed["BUFFER_PG"][k]["profile"] for k in fixed["BUFFER_PG"] if k != "Ethernet0|0"} == {
        "pg_lossless_400000_300m_profile"}
    assert [f.code for f in _lint(tmp_path, fixed) if not f.unverified] == []


@pytest.mark.parametrize(("hwsku", "platform", "bound"), [
    ("Mellanox-SN4600C-C64", "x86_64-mlnx_msn4600c-r0", False),  # m_platform mellanox: not while down
    ("Alphanetworks-SNJ60D0-320F", "x86_64-alphanetworks_snj60d0_320f-r0", True),  # broadcom: bound even when down
])
@pytest.mark.parametrize("admin", ["down", None])  # (an absent admin_status is "down" to buffermgrd)
def test_admin_down_ports_are_left_alone_on_mellanox_only(hwsku, platform, bound, admin):
    db = _config(meta={"hwsku": hwsku, "platform": platform}, CABLE_LENGTH={"AZURE": {"Ethernet0": "5m"}},
                 port={"speed": "100000"})
    if admin is None:
        del db["PORT"]["Ethernet0"]["admin_status"]
    else:
        db["PORT"]["Ethernet0"]["admin_status"] = admin
    want = "pg_lossless_100000_5m_profile" if bound else "ingress_lossless_profile"
    assert _pgs(_parse(db))[3] == (want, False)
    db["PORT"]["Ethernet0"]["admin_status"] = "up"
    assert _pgs(_parse(db))[3] == ("pg_lossless_100000_5m_profile", False)


def test_no_lookup_row_leaves_the_configs_pgs_and_makes_none(tmp_path):
    """250m is no row of the table (5m, 40m, 100m, 300m): buffermgrd binds nothing, so the template's profile runs
    (and is short), and a PFC PG the config leaves out has no buffer at all."""
    db = _config(CABLE_LENGTH={"AZURE": {"Ethernet0": "250m"}},
                 BUFFER_PG={"Ethernet0|3": {"profile": "ingress_lossless_profile"}})
    assert _pgs(_parse(db)) == {3: ("ingress_lossless_profile", False)}
    found = {(f.code, f.severity.value, f.unverified) for f in _lint(tmp_path, db)}
    assert ("BUF002", "error", False) in found and ("BUF003", "warning", False) in found


def test_the_dynamic_model_is_not_bound():
    device = _parse(_config(meta={"buffer_model": "dynamic"}))
    assert _pgs(device) == {0: ("ingress_lossy_profile", False), 3: ("ingress_lossless_profile", False),
                            4: ("ingress_lossless_profile", False)}
    assert "pg_lossless_400000_300m_profile" not in device.buffer_profiles and device.issues == []


def test_an_unknown_lookup_table_leaves_the_pg_unverified_and_says_so_once(tmp_path):
    db = _config(PORT={f"Ethernet{n}": {"speed": "400000", "admin_status": "up"} for n in (0, 8)},
                 PORT_QOS_MAP={f"Ethernet{n}": {**WISTRON["PORT_QOS_MAP"]["Ethernet0"]} for n in (0, 8)},
                 CABLE_LENGTH={"AZURE": {"Ethernet0": "300m", "Ethernet8": "300m"}},
                 BUFFER_PG={"Ethernet0|3-4": {"profile": "ingress_lossless_profile"},
                            "Ethernet8|3-4": {"profile": "ingress_lossless_profile"}})
    del db["DEVICE_METADATA"]
    device = _parse(db)
    assert _pgs(device) == {3: (None, True), 4: (None, True)}
    [issue] = device.issues
    assert issue.code == "SYS004" and "2 PFC port(s)" in issue.message and "names no SKU" in issue.message
    found = _lint(tmp_path, db)
    assert "BUF002" not in {f.code for f in found}  # the template's profile does not run: not judged
    assert {f.code for f in found if not f.unverified} == {"SYS004"}


def test_a_file_key_beside_buffermgrds_leaves_the_pg_unknown():
    """`|0-7` lossy while pfc_enable is 3,4: buffermgrd writes `|3-4` beside it, applied in no fixed order."""
    device = _parse(_config(BUFFER_PG={"Ethernet0|0-7": {"profile": "ingress_lossy_profile"}}))
    pgs = _pgs(device)
    assert pgs[3] == pgs[4] == (None, True) and pgs[0] == ("ingress_lossy_profile", False)
    [issue] = device.issues
    assert issue.code == "SYS004" and "BUFFER_PG|Ethernet0|3-4" in issue.message and "Ethernet0|0-7" in issue.message


def test_wistron_template_from_the_corpus(corpus):
    found = sorted(corpus.glob("sonic/*wistron*6512*"))
    if not found:
        pytest.skip("the Wistron 6512-32R t1 render (docs/real-configs.md, round 9) is not in the corpus; its shape is "
                    "WISTRON above")
    findings = api.lint(found, "sonic-azure", select_codes=["BUF002"]).findings
    assert [f for f in findings if not f.unverified] == []


def test_json_numbers_are_read_as_the_switch_holds_them(tmp_path):
    """`"speed": 400000` and `"pfc_enable": 3` (JSON numbers) are the strings "400000" and "3" to buffermgrd, as
    everywhere else in the reader: the port is bound (they turned the binding off, and the template's short profile
    was a false BUF002)."""
    db = _config(port={"speed": 400000})
    db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = 3
    db["BUFFER_PG"]["Ethernet0|3"] = db["BUFFER_PG"].pop("Ethernet0|3-4")
    assert _pgs(_parse(db))[3] == ("pg_lossless_400000_300m_profile", False)
    assert [f.code for f in _lint(tmp_path, db) if not f.unverified and f.code == "BUF002"] == []


def test_a_lossless_pool_without_mode_leaves_the_configs_pgs_as_written(tmp_path):
    """buffermgr.cpp: getPgPoolMode() is "" and doSpeedUpdateTask returns task_need_retry before it writes BUFFER_PG,
    so the file's PG 3 runs its own profile (judged: BUF002) and PG 4, left out, gets none (BUF003 says why)."""
    db = _config(BUFFER_POOL={"ingress_lossless_pool": {"type": "ingress", "size": "51691264"}},
                 BUFFER_PG={"Ethernet0|3": {"profile": "ingress_lossless_profile"}})
    device = _parse(db)
    assert _pgs(device) == {3: ("ingress_lossless_profile", False)}
    assert "pg_lossless_400000_300m_profile" not in device.buffer_profiles
    found = [f for f in _lint(tmp_path, db) if not f.unverified]
    assert [f.message[:4] for f in found if f.code == "BUF002"] == ["PG 3"]
    [missing] = [f for f in found if f.code == "BUF003"]
    assert missing.message.startswith("PG 4") and "ingress_lossless_pool has no mode" in missing.message


def test_a_missing_pg_of_a_port_whose_pfc_is_unknown_is_unverified(tmp_path):
    """pfc_enable not read (a JSON list: SYS002): whether buffermgrd binds the port's PGs is unknown, so a missing PG
    is unverified, not the warning that buffermgrd binds none."""
    db = _config(BUFFER_PG={"Ethernet0|0": {"profile": "ingress_lossy_profile"}})
    db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = ["3", "4"]
    device = _parse(db)
    assert device.ports["Ethernet0"].pfc_enabled is None
    missing = [f for f in _lint(tmp_path, db) if f.code == "BUF003"]
    assert missing and all(f.unverified for f in missing), [f.message for f in missing]
    assert all("which priorities the port pauses" in f.message for f in missing)


def test_a_short_lookup_row_is_named_with_the_fix_the_switch_keeps(tmp_path):
    """ACS-MSN2700 `100000 5m 50176 19456 30720 0` is what buffermgrd binds (the file writes no lossless PG, as the
    SKU's traditional template does); the script asks 44032 B (its lua vector). The message says the row is the SKU's
    own and where a larger xoff stays: a BUFFER_PROFILE of buffermgrd's name is taken as written."""
    db = _config(meta={"hwsku": "ACS-MSN2700", "platform": "x86_64-mlnx_msn2700-r0"}, port={"speed": "100000"},
                 CABLE_LENGTH={"AZURE": {"Ethernet0": "5m"}},
                 BUFFER_PG={"Ethernet0|0": {"profile": "ingress_lossy_profile"}})
    short = [f for f in _lint(tmp_path, db) if f.code == "BUF002"]
    assert [f.message[:4] for f in short] == ["PG 3", "PG 4"]
    assert all("xoff 30720 B is below the 44032 B" in f.message and "SKU's own pg_profile_lookup.ini row" in f.message
               and "BUFFER_PROFILE|pg_lossless_100000_5m_profile" in f.message for f in short)
    db["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"] = {
        "pool": "ingress_lossless_pool", "xon": "19456", "xoff": "44032", "size": "63488", "dynamic_th": "0"}
    assert [f for f in _lint(tmp_path, db) if f.code == "BUF002"] == []


# The Arista 7060X6 SKUs' pg_profile_lookup.ini at sonic-buildimage 086b03bd70f9 holds its two comment lines alone
# (`# PG lossless profiles.`, `# speed cable size    xon  xoff threshold xon_offset`): readPgProfileLookupFile skips
# '#' lines, so buffermgrd has no row and binds nothing on any port (doSpeedUpdateTask "No PG profile configured").
X6 = {"hwsku": "Arista-7060X6-64PE", "platform": "x86_64-arista_7060x6_64pe"}


def test_a_sku_whose_lookup_file_is_its_header_alone_binds_nothing(tmp_path):
    # Before: SYS004 "losslessd ships no table for its SKU", the PGs read as computed at run time, the config's
    # profile not judged; now the config's own PGs run as written, as for a speed or cable with no row.
    db = _config(meta=X6, port={"speed": "800000"}, CABLE_LENGTH={"AZURE": {"Ethernet0": "5m"}},
                 BUFFER_PG={"Ethernet0|3": {"profile": "ingress_lossless_profile"}})
    device = _parse(db)
    assert _pgs(device) == {3: ("ingress_lossless_profile", False)}
    [issue] = device.issues
    assert issue.code == "SYS004" and "holds only its comment header" in issue.message \
        and "device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE/pg_profile_lookup.ini" in issue.message
    found = {(f.code, f.severity.value, f.unverified) for f in _lint(tmp_path, db)}
    assert ("BUF003", "warning", False) in found  # PG 4: PFC on, no buffer from the config nor from buffermgrd


def test_a_header_only_lookup_sku_name_shared_with_a_table_follows_the_platform():
    # Arista-7060X6-64PE-P64 is a SKU folder on two platforms: 7060x6_64pe's file holds its header alone,
    # 7060x6_64pe_b's the row `800000 5m ...`; DEVICE_METADATA platform picks.
    from losslessd import skutables
    assert skutables.lookup("Arista-7060X6-64PE-P64", "x86_64-arista_7060x6_64pe").rows == ()
    assert skutables.lookup("Arista-7060X6-64PE-P64", "x86_64-arista_7060x6_64pe_b").rows
    assert skutables.lookup("Arista-7060X6-64PE-P64").rows  # (no platform: the table with the largest xoff, as before)
