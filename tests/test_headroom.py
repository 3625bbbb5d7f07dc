"""Buffer maths: hand-computed values, SONiC's published lookup tables, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import headroom
from losslessd.model import BufferPool, BufferProfile

SPECTRUM1 = headroom.options_for("ACS-MSN2700")
SPECTRUM2 = headroom.options_for("ACS-MSN3700")


def test_sonic_formula_by_hand():
    # 100 Gb/s, 5 m, MTU 9216 on Spectrum-1 (cell 96 B):
    #   cable round trip  2 x 5 m / 1.98e8 m/s x 100e9 b/s / 8 = 631.3 B
    #   in flight         9216 + 631.3 + 819.2 (MAC/PHY) + 3891.2 (peer) = 14557.7 B
    #   cell occupancy    2 x 96 / 97 = 1.9794
    #   xoff              1024 + 14557.7 x 1.9794 = 29839.3 B -> rounded up to 1 KiB = 30720 B
    assert headroom.cell_occupancy(96, 100) == pytest.approx(1.97938, abs=1e-5)
    assert headroom.sonic_xoff_bytes(100, 5, 9216, SPECTRUM1) == 30720
    # Unknown ASIC: every byte counted once, 1024 + 14557.7 = 15581.7 -> 16384 B.
    assert headroom.sonic_xoff_bytes(100, 5, 9216, headroom.options_for(None)) == 16384
    # A larger peer response allowance from the policy adds 1 KiB x 1.98 here.
    slower_peer = headroom.options_for("ACS-MSN2700", peer_response_time_bytes=3.8 * 1024 + 1024)
    assert headroom.sonic_xoff_bytes(100, 5, 9216, slower_peer) == 32768


# sonic-buildimage device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/pg_profile_lookup.ini
# (speed Mb/s, cable, xoff), Spectrum-1.
MSN2700 = [(10000, 5, 29696), (25000, 5, 29696), (40000, 5, 29696), (50000, 5, 29696), (100000, 5, 30720),
           (10000, 40, 29696), (25000, 40, 31744), (40000, 40, 32768), (50000, 40, 33792), (100000, 40, 38912),
           (10000, 300, 36864), (25000, 300, 48128), (40000, 300, 59392), (50000, 300, 66560), (100000, 300, 104448)]
# Same for .../x86_64-mlnx_msn3700-r0/ACS-MSN3700/pg_profile_lookup.ini, Spectrum-2.
MSN3700 = [(10000, 5, 32768), (25000, 5, 32768), (40000, 5, 33792), (50000, 5, 33792), (100000, 5, 33792),
           (200000, 5, 35840), (10000, 40, 33792), (25000, 40, 35840), (40000, 40, 37888), (50000, 40, 38912),
           (100000, 40, 44032), (200000, 40, 55296), (10000, 300, 40960), (25000, 300, 54272), (40000, 300, 66560),
           (50000, 300, 75776), (100000, 300, 117760), (200000, 300, 203776)]


# .../x86_64-mlnx_msn4700-r0/ACS-MSN4700/pg_profile_lookup.ini, Spectrum-3: the same rows up to 200G
# as MSN3700, plus 400G.
MSN4700 = MSN3700 + [(400000, 5, 38912), (400000, 40, 77824), (400000, 300, 373760)]


@pytest.mark.parametrize("speed_mbps,cable_m,xoff", MSN2700)
def test_sonic_formula_reproduces_msn2700_lookup_table(speed_mbps, cable_m, xoff):
    """Exactly, with the 9216 B port MTU; with SONiC's usual 9100 B it is at most 1 KiB lower."""
    assert headroom.sonic_xoff_bytes(speed_mbps / 1000, cable_m, 9216, SPECTRUM1) == xoff
    assert 0 <= xoff - headroom.sonic_xoff_bytes(speed_mbps / 1000, cable_m, 9100, SPECTRUM1) <= 1024


@pytest.mark.parametrize("speed_mbps,cable_m,xoff", MSN3700)
def test_sonic_formula_reproduces_msn3700_lookup_table(speed_mbps, cable_m, xoff):
    assert headroom.sonic_xoff_bytes(speed_mbps / 1000, cable_m, 9216, SPECTRUM2) == xoff


@pytest.mark.parametrize("speed_mbps,cable_m,xoff", MSN4700)
def test_sonic_formula_reproduces_msn4700_lookup_table(speed_mbps, cable_m, xoff):
    assert headroom.sonic_xoff_bytes(speed_mbps / 1000, cable_m, 9216, headroom.options_for("ACS-MSN4700")) == xoff


def test_broadcom_lookup_rows_pass_the_cell_agnostic_bound():
    """Arista-7260CX3-C64 pg_profile_lookup.ini rows (Broadcom) are above the bound used for unknown cells,
    though the Spectrum-1 cell factor would call the 40G/40m row short (31616 < 32768)."""
    broadcom = headroom.options_for("Arista-7260CX3-C64")
    rows = [(100, 5, 54080), (100, 40, 59696), (100, 300, 101088), (40, 5, 29536), (40, 40, 31616), (40, 300, 48256)]
    for speed, cable, xoff in rows:
        assert headroom.sonic_xoff_bytes(speed, cable, 9216, broadcom) <= xoff
    assert headroom.sonic_xoff_bytes(40, 40, 9216, SPECTRUM1) > 31616


def test_mlx5_formula_by_hand():
    # (301 + 216 x 5 // 100) x 100000 // 1000 + 272 x 1500 // 100 = 311 x 100 + 4080
    assert headroom.mlx5_xoff_bytes(100, 5, 1500) == 35180
    # The driver's default 7 m cable: 216 x 7 // 100 = 15 -> 316 x 100 + 272 x 9000 // 100 = 31600 + 24480
    assert headroom.mlx5_xoff_bytes(100, 7, 9000) == 56080
    # Below 40 Gb/s the driver computes as if at 40 Gb/s.
    assert headroom.mlx5_xoff_bytes(25, 5, 1500) == headroom.mlx5_xoff_bytes(40, 5, 1500) == 311 * 40 + 4080
    assert headroom.required_xoff_bytes("mlx5", 100, 5, 1500) == 35180


def test_cell_occupancy():
    assert headroom.cell_occupancy(None, 100) == 1.0
    assert headroom.cell_occupancy(144, 100) == 2.25  # cell > 128 B: cell / 64
    assert headroom.cell_occupancy(144, 0) == 1.0  # no small packets: no waste
    assert headroom.cell_occupancy(144, 50) == pytest.approx(1.625)


@pytest.mark.parametrize("hwsku,generation,cell", [
    ("ACS-MSN2700", 1, 96), ("Mellanox-SN2700-D48C8", 1, 96), ("Mellanox-SN3800-D112C8", 2, 144),
    ("ACS-SN4700", 3, 144), ("Arista-7260CX3-C64", None, None), ("Force10-S6100", None, None), (None, None, None)])
def test_spectrum_sku_and_cell(hwsku, generation, cell):
    assert headroom.spectrum_generation(hwsku) == generation
    assert headroom.options_for(hwsku).cell_size_bytes == cell


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


speeds = st.sampled_from([10, 25, 40, 50, 100, 200, 400, 800])
lengths = st.floats(min_value=0, max_value=2000, allow_nan=False)
mtus = st.integers(min_value=1500, max_value=9216)
formulas = st.sampled_from(sorted(headroom.FORMULAS))
options = st.sampled_from([SPECTRUM1, SPECTRUM2, headroom.options_for(None)])


@settings(max_examples=200, deadline=None)
@given(formulas, speeds, lengths, lengths, mtus, options)
def test_longer_cable_never_needs_less_headroom(formula, speed, a, b, mtu, opts):
    short, long_ = sorted((a, b))
    assert headroom.required_xoff_bytes(formula, speed, short, mtu, opts) <= \
        headroom.required_xoff_bytes(formula, speed, long_, mtu, opts)


@settings(max_examples=200, deadline=None)
@given(formulas, speeds, speeds, lengths, mtus, options)
def test_faster_port_never_needs_less_headroom(formula, s1, s2, cable, mtu, opts):
    slow, fast = sorted((s1, s2))
    low = headroom.required_xoff_bytes(formula, slow, cable, mtu, opts)
    assert low <= headroom.required_xoff_bytes(formula, fast, cable, mtu, opts)
    assert low > mtu  # always at least one full frame in flight


@settings(max_examples=200, deadline=None)
@given(speeds, lengths, mtus, options)
def test_sonic_xoff_is_whole_kib_and_above_the_unknown_cell_bound(speed, cable, mtu, opts):
    xoff = headroom.sonic_xoff_bytes(speed, cable, mtu, opts)
    assert xoff % 1024 == 0
    assert xoff >= headroom.sonic_xoff_bytes(speed, cable, mtu, headroom.options_for(None))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-7, max_value=7), st.integers(min_value=1, max_value=2**30), st.integers(1, 64))
def test_dynamic_share_below_free_over_n(dynamic_th, free, n):
    share = headroom.dynamic_share_bytes(2.0**dynamic_th, free, n)
    assert 0 < share < free / n
