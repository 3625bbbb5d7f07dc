"""SONiC render for real SKUs reproduces the SKU's own lossless profile.

Each case is one row of a SKU's pg_profile_lookup.ini, copied here as the file writes it (sonic-net/sonic-buildimage
at 086b03bd70f9, the path given), independently of losslessd/data/sonic_pg_profiles.json. Rendering that SKU for a
port of that speed and cable length must write the BUFFER_PROFILE SONiC's buffer manager would create from the row
(sonic-swss cfgmgr/buffermgr.cpp doSpeedUpdateTask: pool, xon, xon_offset when the row has one, xoff, size and the
threshold as dynamic_th), named pg_lossless_<speed>_<cable>_profile, the CABLE_LENGTH that selects it, and never an
xoff below the row's for a longer cable than the rows list up to.
"""

from __future__ import annotations

import json

import pytest

from losslessd import render as rnd
from losslessd import skutables
from losslessd.errors import InputError
from losslessd.policy import load_policy

COMMIT = "086b03bd70f9e211aaaf5f6aefe0790b508d2a94"
# (SKU, path in sonic-buildimage, the row as written: speed cable size xon xoff threshold [xon_offset])
ROWS = [
    ("Arista-7060X6-64PE-O128S2", "device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE-O128S2/pg_profile_lookup.ini",
     "400000  5m    18796   0    612140  0         3556"),
    ("Arista-7060X6-64PE-O128S2", "device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE-O128S2/pg_profile_lookup.ini",
     "400000  150m  18796   0    612140  0         3556"),
    ("Arista-7050CX3-32S-C32",
     "device/arista/x86_64-arista_7050cx3_32s/Arista-7050CX3-32S-C32/BALANCED/pg_profile_lookup.ini (the SKU's symlink)",
     " 100000  40m  4608    4608 160000   0        4608"),
    ("DellEMC-Z9664f-O64", "device/dell/x86_64-dell_z9664f-r0/DellEMC-Z9664f-O64/pg_profile_lookup.ini",
     "  25000  5m   9144     9144    75438      0        9144"),
    ("DellEMC-Z9664f-O64", "device/dell/x86_64-dell_z9664f-r0/DellEMC-Z9664f-O64/pg_profile_lookup.ini",
     " 400000  300m 9144     9144   817372      0        9144"),
    ("DellEMC-Z9332f-O32", "device/dell/x86_64-dellemc_z9332f_d1508-r0/DellEMC-Z9332f-O32/pg_profile_lookup.ini",
     " 100000  5m     2540    2540  68580     -2        2540"),
    ("Force10-Z9100", "device/dell/x86_64-dell_z9100_c2538-r0/Force10-Z9100/pg_profile_lookup.ini",
     "  25000  5m   1248    2288 53248  -3        2288"),
    ("Alphanetworks-SNJ60D0-320F",
     "device/alphanetworks/x86_64-alphanetworks_snj60d0_320f-r0/Alphanetworks-SNJ60D0-320F/pg_profile_lookup.ini",
     "  25000  5m   1270     0   190500  -2        2540"),
    ("Supermicro_sse_t7132s", "device/supermicro/x86_64-supermicro_sse_t7132s-r0/Supermicro_sse_t7132s/pg_profile_lookup.ini",
     "  25000   5m    1518  0    15680   1       9408"),
    ("montara", "device/accton/x86_64-accton_wedge100bf_32qs-r0/montara/pg_profile_lookup.ini",
     "  25000  5m   34816  18432 16384  0"),
    ("E530-24x2c", "device/centec/arm64-centec_e530_24x2c-r0/E530-24x2c/pg_profile_lookup.ini",
     "  25000  5m   34816  18432 16384  0"),
    ("Nokia-IXR7250E-36x100G", "device/nokia/x86_64-nokia_ixr7250e_36x400g-r0/Nokia-IXR7250E-36x100G/0/pg_profile_lookup.ini",
     " 100000  300m      0    2560 110592   -6      363506"),
    ("Arista-7260CX3-D96C16", "device/arista/x86_64-arista_7260cx3_64/Arista-7260CX3-D96C16/pg_profile_lookup.ini",
     " 100000  5m   1248    1248 96928    0         2496"),
    ("NH-4010", "device/nexthop/x86_64-nexthop_4010-r0/NH-4010/pg_profile_lookup.ini",
     "25000   5m    18796   0    612140  0         3556"),
]
POOL = 33554432  # given where the SKU's buffers_defaults does not write its pool literally


def _expected(row: str) -> tuple[int, str, dict]:
    speed, cable, size, xon, xoff, threshold, *offset = row.split()
    profile = {"pool": "ingress_lossless_pool", "xon": xon, "xoff": xoff, "size": size, "dynamic_th": threshold}
    if offset:
        profile["xon_offset"] = offset[0]
    return int(speed), cable, profile


def _render(sku: str, spec: str, policy: str = "pfc-only") -> dict:
    table = skutables.lookup(sku)
    pool = None if table.pool_size_bytes else POOL
    prof = rnd.profile(load_policy(policy), [rnd.parse_port_spec(f"Ethernet0:{spec}")], sku, pool_bytes=pool)
    return json.loads(rnd.render("sonic", prof))


@pytest.mark.parametrize(("sku", "path", "row"), ROWS, ids=[f"{s}-{r.split()[0]}-{r.split()[1]}" for s, _, r in ROWS])
def test_render_reproduces_the_skus_own_profile(sku, path, row):
    speed, cable, profile = _expected(row)
    db = _render(sku, f"{speed // 1000}G:{cable}:9100")
    name = f"pg_lossless_{speed}_{cable}_profile"
    assert db["BUFFER_PROFILE"] == {name: profile}, path
    assert db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] == cable
    assert db["BUFFER_PG"]["Ethernet0|3"] == {"profile": name}


def test_the_rows_cover_ten_skus_and_several_asics():
    assert len({sku for sku, _, _ in ROWS}) >= 10
    assert {skutables.lookup(sku).asic for sku, _, _ in ROWS} >= {"broadcom", "broadcom-dnx", "marvell-teralynx",
                                                                    "barefoot", "centec"}
    assert skutables.source() == {"repo": "sonic-net/sonic-buildimage", "commit": COMMIT}


def test_a_cable_between_rows_takes_the_longer_rows_profile():
    """10 m is not listed: SONiC's buffer manager would find no row; the render writes the 40m row (more headroom,
    never less) and the CABLE_LENGTH that selects it."""
    db = _render("Arista-7050CX3-32S-C32", "100G:10m:9100")
    assert db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] == "40m"
    assert db["BUFFER_PROFILE"]["pg_lossless_100000_40m_profile"]["xoff"] == "160000"


@pytest.mark.parametrize(("sku", "spec", "message"), [
    ("Arista-7060X6-64PE-O128S2", "100G:5m:9100", "has no 100000 Mb/s row"),
    ("Arista-7060X6-64PE-O128S2", "400G:500m:9100", "lists 400000 Mb/s only up to 150m"),
    ("Celestica-Unknown-SKU", "100G:5m:9100", "SKU Celestica-Unknown-SKU is neither an NVIDIA Spectrum SKU nor one"),
])
def test_no_row_or_an_unknown_sku_is_refused(sku, spec, message):
    prof = rnd.profile(load_policy("pfc-only"), [rnd.parse_port_spec(f"Ethernet0:{spec}")], sku, pool_bytes=POOL)
    with pytest.raises(InputError, match=message):
        rnd.render("sonic", prof)


def test_no_rendered_xoff_is_below_the_skus_own_value():
    """For every shipped SKU and every row it lists: a port at the row's speed on any cable up to the row's length
    (the row itself, and a shorter cable that rounds up to it) is rendered with at least the row's xoff."""
    checked = 0
    policy = load_policy("pfc-only")
    for sku in skutables.skus():
        table = skutables.lookup(sku)
        for row in table.rows[:6]:
            for cable in (row.cable_m, max(row.cable_m - 1, 0.5)):
                expected = table.row_for(row.speed_mbps, cable)
                prof = rnd.profile(policy, [rnd.PortFacts("Ethernet0", row.speed_mbps / 1000, cable, 9100)], sku,
                                   pool_bytes=POOL)
                port = prof.ports[0]
                if port.sonic is None:
                    continue
                assert port.sonic.xoff_bytes >= expected.xoff_bytes, (sku, row, cable)
                checked += 1
    assert checked > 1000


def test_a_lookup_builds_the_rows_of_its_own_sku_alone():
    # (building every SKU's rows was 43.5 M instructions of a lint that asks for one: Session 40, part c)
    skutables._sku_tables.cache_clear()
    skutables._rows.cache_clear()
    table = skutables.lookup("ACS-MSN2700")
    assert skutables._sku_tables.cache_info().currsize == 1
    own_rows = {e["table"] for e in skutables._entry("skus", "ACS-MSN2700")}
    assert skutables._rows.cache_info().currsize == len(own_rows)
    assert table is not None and table.rows
    assert skutables.lookup("no such SKU") is None and skutables.lookup(None) is None
    assert skutables._sku_tables.cache_info().currsize == 1
