"""Buffer maths against their sources: the sonic-swss script's own outputs, SONiC's per-SKU tables, the mlx5
driver's formula, and properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import headroom, skutables
from losslessd.model import BufferPool, BufferProfile, Device, DeviceKind

VECTORS = json.loads((Path(__file__).parent / "fixtures" / "headroom" / "sonic_mellanox_lua_vectors.json")
                     .read_text(encoding="utf-8"))


def _vector_id(v):
    return f"{v['asic_table']}-{v['speed_mbps']}-{v['cable']}-mtu{v['port_mtu']}-l{v['lanes']}-spp{v['small_packet_percentage']}"


@pytest.mark.parametrize("v", VECTORS["vectors"], ids=_vector_id)
def test_spectrum_headroom_equals_the_lua_script(v):
    """Each vector is buffer_headroom_mellanox.lua's output (run under lua5.1 with a stubbed redis)."""
    asic = headroom.SPECTRUM[int(v["asic_table"].rsplit("-", 1)[1]) if v["asic_table"][-1].isdigit() else 1]
    assert asic.key == v["asic_table"]
    assert (asic.cell_size_bytes, asic.pipeline_latency_kb, asic.mac_phy_delay_kb, asic.peer_response_time_kb) == \
        (v["cell_size"], v["pipeline_latency_kb"], v["mac_phy_delay_kb"], v["peer_response_time_kb"])
    shp = bool(v["shared_headroom_pool_bytes"]) or bool(v["over_subscribe_ratio"])
    got = headroom.spectrum_headroom(
        asic, v["speed_mbps"], float(v["cable"].rstrip("m")), v["port_mtu"], gearbox_delay=v["gearbox_delay_ns"],
        lanes=v["lanes"], pattern=headroom.TrafficPattern(v["lossless_mtu"], v["small_packet_percentage"]),
        shared_headroom_pool=shp)
    assert (got.xon_bytes, got.xoff_bytes, got.size_bytes) == (v["xon"], v["xoff"], v["size"])


def test_vectors_cover_every_generation_and_the_script_branches():
    vs = VECTORS["vectors"]
    assert len(vs) >= 8
    assert {v["asic_table"] for v in vs} == {a.key for a in headroom.SPECTRUM.values()}
    assert any(v["lanes"] == 8 for v in vs) and any(v["shared_headroom_pool_bytes"] for v in vs)
    assert any(v["over_subscribe_ratio"] for v in vs) and any(v["gearbox_delay_ns"] for v in vs)
    assert {50, 100} <= {v["small_packet_percentage"] for v in vs}
    assert any(v["speed_mbps"] not in headroom.PAUSE_QUANTA for v in vs)  # falls back to ASIC_TABLE


def test_sn4700_400g_5m_by_hand():
    """The issue's case: SN4700 (Spectrum-3, cell 144 B) 400G/5 m, MTU 9100, 8 lanes, SONiC defaults.

    worst case factor ceil(144/64) = 3; small packets by byte 100 x 64 / ((50 x 64 + 50 x 1024) / 100) = 11.76 %;
    occupancy (100 - 11.76 + 11.76 x 3) / 100 = 1.2353; peer response 905 quanta x 64 B = 57920 B; cable
    2 x 5 x 400e9 / 1.98e8 / 8 = 2525.3 B; in flight 9100 + 2525.3 + 819.2 + 57920 = 70364.5 B;
    xoff 1024 + 70364.5 x 1.2353 = 87944 -> 88064 B; no shared headroom pool and the all-small-packets
    xoff (212992 B) is more than 2 KiB above: + 2048 = 90112 B."""
    got = headroom.spectrum_headroom(headroom.SPECTRUM[3], 400000, 5, 9100, lanes=8)
    assert got.xoff_bytes == 90112
    assert got.xon_bytes == 2 * 19 * 1024  # 8 lanes: twice the pipeline latency
    assert got.size_bytes == 90112 + 38912 + 9100 + 1024 - (90112 + 38912 + 9100) % 1024
    shp = headroom.spectrum_headroom(headroom.SPECTRUM[3], 400000, 5, 9100, lanes=8, shared_headroom_pool=True)
    assert shp.xoff_bytes == 88064 and shp.size_bytes == shp.xon_bytes


def test_profile_names_follow_buffermgrdyn():
    assert headroom.spectrum_profile_name(100000, "5m", 9100, 3, 4) == "pg_lossless_100000_5m_profile"
    assert headroom.spectrum_profile_name(100000, "5m", 4096, 3, 8) == "pg_lossless_100000_5m_mtu4096_8lane_profile"
    assert headroom.spectrum_profile_name(400000, "5m", 9100, 3, 8) == "pg_lossless_400000_5m_profile"
    assert headroom.spectrum_profile_name(800000, "40m", 9100, 4, 8) == "pg_lossless_800000_40m_profile"


@pytest.mark.parametrize("hwsku,platform,generation", [
    ("ACS-MSN2700", None, 1), ("Mellanox-SN2700-D48C8", None, 1), ("Mellanox-SN3800-D112C8", None, 2),
    ("ACS-MSN4700", None, 3), ("ACS-SN5600", None, 4), ("Mellanox-SN5640-C512S2", None, 5),
    (None, "x86_64-nvidia_sn6600_ld-r0", 6), ("ACS-MSN9999", None, None), ("ACS-SN4999", None, 3),
    ("Arista-7260CX3-C64", None, None), ("Arista-7060X6-64PE-O128S2", None, None), (None, None, None)])
def test_spectrum_generation(hwsku, platform, generation):
    asic = headroom.spectrum_asic(hwsku, platform)
    assert (asic.generation if asic else None) == generation


def test_lower_bound_is_below_the_script_and_every_shipped_sku_row():
    """The bound for unknown ASICs never asks for more than a Spectrum switch or any shipped SKU table gives.

    Rows whose size is only the xon (the SKU keeps xoff in a shared headroom pool, over-subscribed: Mellanox
    D48C8-style SKUs list 2000 m rows whose xoff is below the cable's own round trip) are not private headroom."""
    rows = 0
    for sku in skutables.skus():
        for row in skutables.lookup(sku).rows:
            if row.size_bytes == row.xon_bytes:
                continue
            rows += 1
            assert headroom.lower_bound_xoff(row.speed_mbps, row.cable_m, 9216) <= row.xoff_bytes, (sku, row)
    assert rows > 2500
    for asic in headroom.SPECTRUM.values():
        for speed in (10000, 25000, 100000, 400000, 800000, 1600000):
            for cable in (1, 40, 300):
                assert headroom.lower_bound_xoff(speed, cable, 9216) <= \
                    headroom.spectrum_headroom(asic, speed, cable, 9216, shared_headroom_pool=True).xoff_bytes


def test_the_sn2700_table_is_the_script_at_mtu_9100_with_the_old_peer_response():
    """Why the traditional model's ACS-MSN2700 rows fall short of the script (BUF002 on every such port): not the MTU.

    Each row of its pg_profile_lookup.ini (sonic-buildimage, last changed 2020) is the script's own sum at port MTU
    9100, lossless MTU 1024 and every packet small, with ASIC_TABLE's 3.8 KB peer response: the script took the
    IEEE 802.3 pause quanta of the port speed instead only in 2021 (sonic-swss f9462c499), 394 quanta (25,216 B) at
    100G. So a port at MTU 9100 running the row has the row's MTU term and lacks the peer response."""
    table = skutables.lookup("ACS-MSN2700")
    asic = headroom.SPECTRUM[1]
    old = headroom.TrafficPattern(mtu_bytes=1024, small_packet_pct=100)
    assert len(table.rows) == 15
    for row in table.rows:
        made = headroom.spectrum_headroom(asic, row.speed_mbps, row.cable_m, 9100, pattern=old,
                                          peer_response_bytes=asic.peer_response_time_kb * 1024)
        assert (made.xon_bytes, made.xoff_bytes, made.size_bytes) == (row.xon_bytes, row.xoff_bytes, row.size_bytes)
    req = headroom.required_headroom(headroom.switch_buffers(hwsku="ACS-MSN2700"), 100, 5, 9100)
    assert (req.xoff_bytes, req.row.xoff_bytes) == (44032, 30720)  # the script's vector (lua run) above the row


def test_requirement_takes_the_larger_of_script_and_sku_table():
    bufs = headroom.switch_buffers(hwsku="ACS-MSN4700")
    req = headroom.required_headroom(bufs, 400, 5, 9100)  # 400G on a SN4xxx is 8 lanes (buffermgrdyn.cpp)
    assert req.xoff_bytes == 90112 and req.row.xoff_bytes == 38912  # the 2020 table is below the script
    assert req.headroom.xon_bytes == 38912
    assert "buffer_headroom_mellanox.lua" in req.basis and "38912" in req.basis
    broadcom = headroom.switch_buffers(hwsku="Arista-7060X6-64PE-O128S2")
    req = headroom.required_headroom(broadcom, 400, 5, 9100)
    assert (req.xoff_bytes, req.row.size_bytes, req.row.xon_offset_bytes) == (612140, 18796, 3556)
    # 10 m is not listed: the next listed cable (40m) decides, never a shorter one.
    assert headroom.required_headroom(broadcom, 400, 10, 9100).row.cable == "40m"
    long = headroom.required_headroom(broadcom, 400, 500, 9100)
    assert not long.exact and "only up to 150m" in long.note
    unknown = headroom.required_headroom(headroom.switch_buffers(hwsku=None), 100, 5, 9100)
    assert not unknown.exact and unknown.xoff_bytes == headroom.lower_bound_xoff(100000, 5, 9100)


def test_device_traffic_pattern_and_shared_headroom_pool_feed_the_script():
    dev = Device(name="x", kind=DeviceKind.switch, platform="sonic", hwsku="ACS-MSN2700", small_packet_pct=100,
                 buffer_pools={"ingress_lossless_pool": BufferPool(name="ingress_lossless_pool",
                                                                   shared_headroom_bytes=1048576)})
    bufs = headroom.switch_buffers(dev)
    assert bufs.pattern.small_packet_pct == 100 and bufs.shared_headroom_pool
    assert headroom.required_headroom(bufs, 100, 5, 9100).xoff_bytes == headroom.spectrum_headroom(
        headroom.SPECTRUM[1], 100000, 5, 9100, pattern=headroom.TrafficPattern(1024, 100),
        shared_headroom_pool=True).xoff_bytes


def test_mlx5_formula_by_hand():
    # port_buffer.c calculate_xoff: (301 + 216 x 5 // 100) x 100000 // 1000 + 272 x 1500 // 100 = 311 x 100 + 4080
    assert headroom.mlx5_xoff_bytes(100, 5, 1500) == 35180
    # The driver's default 7 m cable: 216 x 7 // 100 = 15 -> 316 x 100 + 272 x 9000 // 100 = 31600 + 24480
    assert headroom.mlx5_xoff_bytes(100, 7, 9000) == 56080
    # Below 40 Gb/s the driver computes as if at 40 Gb/s.
    assert headroom.mlx5_xoff_bytes(25, 5, 1500) == headroom.mlx5_xoff_bytes(40, 5, 1500) == 311 * 40 + 4080
    # update_xoff_threshold: a lossless buffer needs xoff + max(max_mtu, 9216) + one cell (128 B by default).
    assert headroom.mlx5_lossless_buffer_bytes(56080, 9978) == 56080 + 9978 + 128
    assert headroom.mlx5_lossless_buffer_bytes(56080, 1500) == 56080 + 9216 + 128


def test_reservation_meaning_per_sku():
    assert headroom.reservation_includes_headroom("Mellanox-SN2700") is True
    assert headroom.reservation_includes_headroom("Arista-7260CX3-C64") is False
    assert headroom.reservation_includes_headroom(None) is None


def test_reserved_before_xoff():
    mellanox = BufferProfile(name="m", size_bytes=50176, xon_bytes=19456, xoff_bytes=30720)
    shared_headroom = BufferProfile(name="s", size_bytes=19456, xon_bytes=19456, xoff_bytes=30720)
    broadcom = BufferProfile(name="b", size_bytes=1248, xon_bytes=1248, xoff_bytes=54080)
    assert headroom.reserved_before_xoff(mellanox) == 19456
    assert headroom.reserved_before_xoff(shared_headroom) == 19456
    assert headroom.reserved_before_xoff(broadcom) == 1248
    assert headroom.reserved_before_xoff(BufferProfile(name="x", dynamic_threshold=0)) == 0


def test_dynamic_share():
    assert headroom.dynamic_share_bytes(1, 1000, 1) == 500  # alpha 1, one congested PG: half the free buffer
    assert headroom.dynamic_share_bytes(0.25, 1000, 2) == pytest.approx(0.25 * 1000 / 1.5)
    assert headroom.dynamic_share_bytes(2, 1000, 0) == headroom.dynamic_share_bytes(2, 1000, 1)


def test_pfc_trigger():
    pool = BufferPool(name="ingress_lossless_pool", mode="dynamic", size_bytes=4194304)
    dyn = BufferProfile(name="p", pool=pool.name, size_bytes=50176, xon_bytes=19456, xoff_bytes=30720,
                        dynamic_threshold=-2)
    trig = headroom.pfc_trigger(dyn, pool, 1)
    assert trig.at_bytes == 19456 + int(0.25 * 4194304 / 1.25) == 858316
    assert "alpha 0.25" in trig.basis
    # Two congested lossless PGs share the pool: the trigger comes earlier.
    assert headroom.pfc_trigger(dyn, pool, 2).at_bytes == 19456 + int(0.25 * 4194304 / 1.5)
    static = BufferProfile(name="s", size_bytes=1248, xon_bytes=1248, xoff_bytes=54080, static_threshold_bytes=100000)
    assert headroom.pfc_trigger(static, BufferPool(name="x", mode="static"), 1).at_bytes == 101248
    # Pool sized at run time, or no threshold at all: unknown.
    assert headroom.pfc_trigger(dyn, BufferPool(name="x", mode="dynamic"), 1) is None
    assert headroom.pfc_trigger(dyn, None, 1) is None
    assert headroom.pfc_trigger(BufferProfile(name="n", size_bytes=0), pool, 1) is None


speeds = st.sampled_from([10000, 25000, 40000, 50000, 100000, 200000, 400000, 800000])
lengths = st.floats(min_value=0, max_value=2000, allow_nan=False)
mtus = st.integers(min_value=1500, max_value=9216)
asics = st.sampled_from(sorted(headroom.SPECTRUM.values(), key=lambda a: a.generation))
lane_counts = st.sampled_from([1, 2, 4, 8])


@settings(max_examples=200, deadline=None)
@given(asics, speeds, lengths, lengths, mtus, lane_counts)
def test_longer_cable_never_needs_less_headroom(asic, speed, a, b, mtu, lanes):
    short, long_ = sorted((a, b))
    assert headroom.spectrum_headroom(asic, speed, short, mtu, lanes=lanes).xoff_bytes <= \
        headroom.spectrum_headroom(asic, speed, long_, mtu, lanes=lanes).xoff_bytes
    assert headroom.mlx5_xoff_bytes(speed / 1000, short, mtu) <= headroom.mlx5_xoff_bytes(speed / 1000, long_, mtu)


@settings(max_examples=200, deadline=None)
@given(asics, speeds, lengths, mtus, lane_counts)
def test_script_output_is_whole_kib_and_above_the_lower_bound(asic, speed, cable, mtu, lanes):
    got = headroom.spectrum_headroom(asic, speed, cable, mtu, lanes=lanes)
    assert got.xoff_bytes % 1024 == 0 and got.xon_bytes % 1024 == 0 and got.size_bytes % 1024 == 0
    assert got.xoff_bytes >= headroom.lower_bound_xoff(speed, cable, mtu)
    assert got.size_bytes >= got.xoff_bytes + got.xon_bytes


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-7, max_value=7), st.integers(min_value=1, max_value=2**30), st.integers(1, 64))
def test_dynamic_share_below_free_over_n(dynamic_th, free, n):
    share = headroom.dynamic_share_bytes(2.0**dynamic_th, free, n)
    assert 0 < share < free / n
