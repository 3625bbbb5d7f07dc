"""The SKU lookup tables reach files behind a folder link (tests/sku_tables.py resolve_path).

Many Broadcom SKUs of sonic-buildimage keep their pg_profile_lookup.ini in a shared profile folder: the SKU's
`pg_profile_lookup.ini -> BALANCED/pg_profile_lookup.ini`, and `BALANCED -> ../../../common/profiles/th2/7260/
BALANCED`. Git stores the folder link as one blob, so `<SKU>/BALANCED/pg_profile_lookup.ini` is in no tree; following
only the file's own link lost the table of 20 SKUs (Arista 7050QX/7060CX/7260CX3, Celestica DX010, Force10 S6000/
S6100), and their switches were linted with "losslessd ships no table for its SKU".
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from losslessd import api, skutables
from tests.sku_tables import device_files, resolve_text

# sonic-buildimage 086b03bd70f9 device/common/profiles/th2/7260/BALANCED/pg_profile_lookup.ini, the row for 50000
# 5m (speed cable size xon xoff threshold xon_offset), which Arista-7260CX3-D92C16 reaches through its BALANCED link.
ROW_50G_5M = (50000, "5m", 1248, 1248, 54080, 0, 2496)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.slow  # (runs git)
def test_a_lookup_file_behind_a_folder_link_is_read(tmp_path: Path) -> None:
    repo = tmp_path / "buildimage"
    shared = repo / "device/common/profiles/th2/7260/BALANCED"
    shared.mkdir(parents=True)
    (shared / "pg_profile_lookup.ini").write_text(" 50000  5m   1248    1248 54080      0        2496\n")
    sku = repo / "device/arista/x86_64-arista_7260cx3_64/Arista-7260CX3-D92C16"
    sku.mkdir(parents=True)
    (sku / "BALANCED").symlink_to("../../../common/profiles/th2/7260/BALANCED")
    (sku / "pg_profile_lookup.ini").symlink_to("BALANCED/pg_profile_lookup.ini")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "skus")
    path = "device/arista/x86_64-arista_7260cx3_64/Arista-7260CX3-D92C16/pg_profile_lookup.ini"
    text = resolve_text(str(repo / ".git"), "HEAD", path)
    assert text is not None and "54080" in text
    assert resolve_text(str(repo / ".git"), "HEAD", path.replace("D92C16/", "D92C16/missing/")) is None


def test_the_shipped_data_holds_the_skus_whose_file_is_behind_a_folder_link() -> None:
    table = skutables.lookup("Arista-7260CX3-D92C16")
    assert table is not None
    assert table.path.endswith("Arista-7260CX3-D92C16/pg_profile_lookup.ini")
    row = next(r for r in table.rows if r.speed_mbps == 50000 and r.cable == "5m")
    assert (row.speed_mbps, row.cable, row.size_bytes, row.xon_bytes, row.xoff_bytes, row.threshold,
            row.xon_offset_bytes) == ROW_50G_5M
    for sku in ("Celestica-DX010-C32", "Force10-S6000", "Arista-7060CX-32S-C32"):
        assert skutables.lookup(sku) is not None, sku


def test_a_7260cx3_switch_has_its_lossless_pgs_checked_against_its_own_table(tmp_path: Path) -> None:
    """A traditional-model SONiC switch of that SKU with PFC on a 50G port on 5 m: buffermgrd binds the row's
    profile, so the headroom is judged (before: SYS004 "ships no table for its SKU", nothing judged)."""
    config = {
        "DEVICE_METADATA": {"localhost": {"hostname": "tor1", "hwsku": "Arista-7260CX3-D92C16",
                                          "platform": "x86_64-arista_7260cx3_64", "type": "ToRRouter"}},
        "PORT": {"Ethernet0": {"speed": "50000", "mtu": "9100", "admin_status": "up", "lanes": "1,2"}},
        "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}},
        "BUFFER_POOL": {"ingress_lossless_pool": {"size": "33329088", "type": "ingress", "mode": "dynamic",
                                                  "xoff": "7827456"}},
        "BUFFER_PROFILE": {"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0",
                                                     "dynamic_th": "3"}},
        "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE",
                                       "tc_to_queue_map": "AZURE"}},
        "DSCP_TO_TC_MAP": {"AZURE": {str(d): ("3" if d == 3 else "4" if d == 4 else "0") for d in range(64)}},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
    }
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(config))
    result = api.lint([path], "sonic-azure")
    texts = [f"{f.code} {f.message}" for f in result.findings]
    assert not any("ships no table" in t for t in texts), texts
    assert not any(f.code == "BUF003" and f.port == "Ethernet0" for f in result.findings), texts


@pytest.mark.slow  # (runs git)
def test_an_sku_folder_that_links_to_another_skus_folder_lists_its_files(tmp_path: Path) -> None:
    """sonic-buildimage 086b03bd70f9 `Arista-7260CX3-Q44 -> Arista-7260CX3-Q64`: the switch reports hwsku
    Arista-7260CX3-Q44, and git lists no file below the link; a link to a file or to nothing adds no folder."""
    repo = tmp_path / "buildimage"
    platform = repo / "device/arista/x86_64-arista_7260cx3_64"
    (platform / "Arista-7260CX3-Q64").mkdir(parents=True)
    (platform / "Arista-7260CX3-Q64/pg_profile_lookup.ini").write_text(" 40000  5m   1248    1248 29536  0  2496\n")
    (platform / "Arista-7260CX3-Q64/buffers_defaults_t1.j2").write_text("{}\n")
    (platform / "Arista-7260CX3-Q44").symlink_to("Arista-7260CX3-Q64")
    (platform / "platform_asic").write_text("broadcom\n")
    (platform / "asic_link").symlink_to("platform_asic")
    (platform / "gone").symlink_to("Arista-7260CX3-Q00")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "skus")
    files = device_files(str(repo / ".git"), "HEAD")
    q44 = "device/arista/x86_64-arista_7260cx3_64/Arista-7260CX3-Q44"
    assert {f"{q44}/pg_profile_lookup.ini", f"{q44}/buffers_defaults_t1.j2"} <= files
    assert not any(f.startswith(("device/arista/x86_64-arista_7260cx3_64/asic_link/",
                                 "device/arista/x86_64-arista_7260cx3_64/gone/")) for f in files)


def test_the_shipped_data_holds_the_skus_whose_folder_is_a_link() -> None:
    q44, q64 = skutables.lookup("Arista-7260CX3-Q44"), skutables.lookup("Arista-7260CX3-Q64")
    assert q44 is not None and q64 is not None and q44.rows == q64.rows
    assert q44.path.endswith("/Arista-7260CX3-Q44/pg_profile_lookup.ini")
    a1 = skutables.lookup("ACS-MSN2700-A1", "x86_64-mlnx_msn2700a1-r0")
    assert a1 is not None and a1.asic_table == "MELLANOX-SPECTRUM"
    assert a1.rows == skutables.lookup("ACS-MSN2700", "x86_64-mlnx_msn2700-r0").rows  # type: ignore[union-attr]
    for sku in ("Force10-S6000-Q32", "Force10-S6100-T1", "Arista-7800R3A-36D-C36", "Arista-7060CX2-32S-C32"):
        assert skutables.lookup(sku) is not None, sku


def test_the_shipped_data_keeps_the_skus_whose_file_holds_its_header_alone() -> None:
    """sonic-buildimage 086b03bd70f9: 15 pg_profile_lookup.ini files of Arista 7060X6 SKUs (their own, or reached
    through `BALANCED -> ../../../common/profiles/th5/gen/BALANCED`) hold `# PG lossless profiles.` and the column
    comment alone. buffermgrd reads no row from them (buffermgr.cpp readPgProfileLookupFile skips '#' lines): kept as
    SKUs of no row, so buffermgrd is read as binding nothing (before: dropped, "ships no table for its SKU")."""
    empty = [(sku, t.path) for sku in skutables.skus() for t in skutables._sku_tables(sku) if not t.rows]
    assert len(empty) == 15 and all(sku.startswith("Arista-7060X6-") for sku, _ in empty), empty
    assert "th5" not in skutables.skus()  # (device/common/profiles holds linked files, no SKU)
    assert skutables.lookup("Arista-7060X6-32PE").rows == ()


def _whole() -> dict:
    return json.loads((Path(skutables.__file__).parent / "data" / skutables.DATA_FILE).read_text(encoding="utf-8"))


def test_every_part_read_alone_is_the_whole_documents() -> None:
    """skutables reads the data file a part at a time (a top-level key, one table, one SKU's entries): each part
    equals what json.loads makes of the whole file, and a name the file does not list, or lists in another part,
    is not found (the file written otherwise than tests/sku_tables.py writes it fails here)."""
    doc = _whole()
    assert set(doc) == {"about", "source", "columns", "mellanox_platform_asic_table", "tables", "skus"}
    for name, value in doc.items():
        assert skutables._section(name) == value, name
    for name in ("tables", "skus"):
        for key, value in doc[name].items():
            assert skutables._entry(name, key) == value, (name, key)
    assert skutables.source() == doc["source"]
    assert skutables.skus() == sorted(doc["skus"])
    assert skutables._listed() == doc["skus"].keys()
    for platform, table in doc["mellanox_platform_asic_table"].items():
        assert skutables.asic_table_of_platform(platform) == table
    sku = next(iter(doc["skus"]))
    others = [next(iter(doc["tables"])), next(iter(doc["mellanox_platform_asic_table"])), "source", "", " ", sku[:-1],
              sku + " ", sku.lower(), f'{sku}": []', f'\n    "{sku}": ', '"', "\\", "\n", "é", "\u2028", "x" * 100_000]
    for key in others:
        assert key not in doc["skus"]
        assert skutables._entry("skus", key) is None, key
        assert skutables.lookup(key) is None, key
    assert skutables._entry("tables", sku) is None
    assert skutables.lookup(None) is None


def test_each_skus_table_is_the_one_the_whole_document_gives() -> None:
    """lookup, for every SKU the file lists, with no platform and with each of its entries' platforms, answers as
    it did reading the whole document (the SKU's own folder, else the largest xoff; the rows of its table)."""
    doc = _whole()
    for sku, entries in doc["skus"].items():
        for platform in [None, *(e["platform"] for e in entries)]:
            chosen = [e for e in entries if e["platform"] == platform] or entries
            own = [e for e in chosen if e.get("variant") is None] or chosen
            tables = {json.dumps(doc["tables"][e["table"]]) for e in own}
            table = skutables.lookup(sku, platform)
            assert table is not None and table.sku == sku
            if len(tables) == 1:
                assert table.path == own[0]["path"], (sku, platform)
            assert json.dumps([[r.speed_mbps, r.cable, r.size_bytes, r.xon_bytes, r.xoff_bytes, r.threshold,
                                r.xon_offset_bytes] for r in table.rows]) in tables, (sku, platform)
            entry = next(e for e in own if e["path"] == table.path)
            assert (table.vendor, table.platform, table.asic, table.variant, table.asic_table, table.egress) == (
                entry["vendor"], entry["platform"], entry.get("asic"), entry.get("variant"), entry.get("asic_table"),
                entry.get("egress")), (sku, platform)
            pool = entry.get("ingress_lossless_pool") or {}
            assert (table.pool_size_bytes, table.pool_mode, table.pool_xoff_bytes) == (
                pool.get("size"), pool.get("mode"), pool.get("xoff"))


def test_a_lookup_decodes_no_list_of_every_sku() -> None:
    """A lint looks up its switches' SKUs: each is found as _entry finds it, without the list of the 275 SKUs (3.5 M
    instructions of the example lint's run: docs/lint-at-scale.md, "Session 44, part c"), and answers as the list
    says (listed or not)."""
    skutables._listed.cache_clear()
    sku = next(iter(_whole()["skus"]))
    assert skutables.lookup(sku) is not None and skutables.lookup(sku + "x") is None
    assert skutables.lookup("") is None and skutables.lookup(None) is None
    assert skutables._listed.cache_info().currsize == 0
    assert sku in skutables._listed() and sku + "x" not in skutables._listed()
