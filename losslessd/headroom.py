"""Buffer maths for lossless priority groups: the xoff headroom a port needs, and where a PG sends PFC.

The one place for these numbers, so the rules (BUF001, BUF002, ECN004) and the config renderer
agree. Everything is in bytes.

Two published headroom formulas, chosen by ``policy.buffer.headroom_formula``:

- ``sonic``: SONiC's dynamic buffer calculation (sonic-swss cfgmgr/buffer_headroom_mellanox.lua,
  "well-known formula" of the SONiC HLD doc/qos/dynamically-headroom-calculation.md). With the
  Spectrum constants it reproduces every xoff of SONiC's shipped lookup tables exactly
  (tests/test_headroom.py).
- ``mlx5``: the ConnectX driver's own computation (Linux mlx5 en/port_buffer.c, calculate_xoff).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from .model import BufferPool, BufferProfile

# SONiC ASIC_TABLE cell sizes per Spectrum generation (asic_table.j2, as listed in the SONiC HLD
# doc/qos/dynamically-headroom-calculation.md): Spectrum 96 B, Spectrum-2 and -3 144 B.
SPECTRUM_CELL_BYTES = {1: 96, 2: 144, 3: 144}
# SONiC Mellanox SKU names: ACS-MSN2700, Mellanox-SN2700-D48C8, Mellanox-SN3800-D112C8, ACS-SN4700...
_SPECTRUM_SKU = re.compile(r"^(?:ACS-M?|Mellanox-)SN(\d)\d{3}", re.IGNORECASE)


@dataclass(frozen=True)
class HeadroomOptions:
    """Constants of the formulas. Defaults are SONiC's Spectrum-1 values; see ``options_for``."""

    # ASIC cell size; None = unknown ASIC: every byte counted once (a lower bound on any ASIC).
    cell_size_bytes: int | None = 96
    # Share of small packets in the worst case (LOSSLESS_TRAFFIC_PATTERN small_packet_percentage;
    # 100 in the SONiC Configuration.md example, and what SONiC's shipped lookup tables match).
    small_packet_pct: float = 100
    lossless_mtu_bytes: int = 1024  # LOSSLESS_TRAFFIC_PATTERN mtu (sonic-buildimage buffers_config.j2)
    mac_phy_delay_bytes: float = 0.8 * 1024  # ASIC_TABLE mac_phy_delay 0.8 (KB)
    peer_response_time_bytes: float = 3.8 * 1024  # ASIC_TABLE peer_response_time 3.8 (KB)
    gearbox_delay_bytes: float = 0  # PERIPHERAL_TABLE gearbox delay (one way); 0 without a gearbox
    propagation_m_per_s: float = 198_000_000  # buffer_headroom_mellanox.lua speed_of_light (~5.05 ns/m)
    mlx5_min_speed_gbps: float = 40  # port_buffer.c: "minimum speed value is 40Gbps"


def spectrum_generation(hwsku: str | None) -> int | None:
    """1 for Spectrum (SN2xxx), 2 for Spectrum-2 (SN3xxx)...; None when not a SONiC Mellanox SKU."""
    m = _SPECTRUM_SKU.match(hwsku or "")
    return int(m.group(1)) - 1 if m else None


def options_for(hwsku: str | None, peer_response_time_bytes: float | None = None) -> HeadroomOptions:
    """Formula constants for a device: Spectrum cell size from the SKU, else an unknown cell size."""
    gen = spectrum_generation(hwsku)
    opts = HeadroomOptions(cell_size_bytes=SPECTRUM_CELL_BYTES.get(gen) if gen else None)
    if peer_response_time_bytes is not None:
        opts = replace(opts, peer_response_time_bytes=peer_response_time_bytes)
    return opts


def cell_occupancy(cell_size_bytes: int | None, small_packet_pct: float) -> float:
    """How many buffer bytes one wire byte takes in the worst case (small packets waste cells)."""
    if cell_size_bytes is None:
        return 1.0
    # buffer_headroom_mellanox.lua: worst_case_factor and cell_occupancy, with 64 B minimal packets.
    if cell_size_bytes > 2 * 64:
        factor = cell_size_bytes / 64
    else:
        factor = 2 * cell_size_bytes / (1 + cell_size_bytes)
    return (100 - small_packet_pct + small_packet_pct * factor) / 100


def sonic_xoff_bytes(speed_gbps: float, cable_length_m: float, mtu_bytes: int,
                     options: HeadroomOptions = HeadroomOptions()) -> int:
    """SONiC's xoff: lossless MTU + (MTU + 2 x (cable + gearbox) + MAC/PHY + peer response) x occupancy.

    SONiC HLD "well-known formula" (doc/qos/dynamically-headroom-calculation.md): the bytes still
    arriving after XOFF is sent are a frame being sent, the round trip on the cable, the switch's
    MAC/PHY and the peer's reaction time; rounded up to 1 KiB as buffer_headroom_mellanox.lua does.
    The cable term is the physical round trip (2 x length / propagation speed x line rate): with it,
    SONiC's pg_profile_lookup.ini values are reproduced exactly.
    """
    cable = 2 * cable_length_m / options.propagation_m_per_s * speed_gbps * 1e9 / 8
    in_flight = (mtu_bytes + cable + 2 * options.gearbox_delay_bytes + options.mac_phy_delay_bytes
                 + options.peer_response_time_bytes)
    xoff = options.lossless_mtu_bytes + in_flight * cell_occupancy(options.cell_size_bytes, options.small_packet_pct)
    return math.ceil(xoff / 1024) * 1024


def mlx5_xoff_bytes(speed_gbps: float, cable_length_m: float, mtu_bytes: int,
                    options: HeadroomOptions = HeadroomOptions()) -> int:
    """The mlx5 driver's xoff: (301 + 2.16 x length[m]) x speed[Gb/s] + 2.72 x MTU, speed at least 40G.

    Linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c calculate_xoff(), in the
    driver's integer arithmetic (cable length in whole metres, speed in Mb/s).
    """
    speed_mbps = int(max(speed_gbps, options.mlx5_min_speed_gbps) * 1000)
    length = int(cable_length_m)
    return (301 + 216 * length // 100) * speed_mbps // 1000 + 272 * int(mtu_bytes) // 100


FORMULAS = {"sonic": sonic_xoff_bytes, "mlx5": mlx5_xoff_bytes}
FORMULA_SOURCES = {
    "sonic": "SONiC dynamic headroom formula, sonic-swss buffer_headroom_mellanox.lua",
    "mlx5": "mlx5 driver formula, Linux mlx5 port_buffer.c calculate_xoff",
}


def required_xoff_bytes(formula: str, speed_gbps: float, cable_length_m: float, mtu_bytes: int,
                        options: HeadroomOptions = HeadroomOptions()) -> int:
    """Headroom a lossless PG needs to absorb what is in flight after it sends XOFF."""
    return FORMULAS[formula](speed_gbps, cable_length_m, mtu_bytes, options)


def reservation_includes_headroom(hwsku: str | None) -> bool | None:
    """Does a buffer profile's ``size`` have to hold xon + xoff on this device?

    True on SONiC Mellanox SKUs: buffer_headroom_mellanox.lua sets size = xon + xoff (size = xon
    when a shared headroom pool holds the xoff part). False on other known SKUs: there ``size`` is
    the guaranteed minimum and headroom is counted apart (SONiC Broadcom Arista-7260CX3
    pg_profile_lookup.ini: size 1248, xoff 54080), or varies per SKU (the example profile in
    sonic-swss buffermgr.cpp has size = xon + xoff). None when the SKU is unknown.
    """
    if spectrum_generation(hwsku) is not None:
        return True
    return None if hwsku is None else False


def reserved_before_xoff(profile: BufferProfile) -> int:
    """Bytes of the PG's own reservation that fill before the PG reaches its shared-buffer limit.

    A reservation that holds xon + xoff (Mellanox) keeps its xoff part for data arriving after
    the pause, so only size - xoff fills first; a smaller one (Broadcom guaranteed minimum, or
    Mellanox with a shared headroom pool) is all used before the shared buffer.
    """
    size = profile.size_bytes or 0
    xoff = profile.xoff_bytes or 0
    if xoff and size >= (profile.xon_bytes or 0) + xoff:
        return size - xoff
    return size


def dynamic_share_bytes(alpha: float, free_bytes: float, congested: int) -> float:
    """Choudhury & Hahne dynamic threshold: with n queues congested, each settles at a*F/(1 + n*a).

    A. K. Choudhury, E. L. Hahne, "Dynamic queue length thresholds for shared-memory packet
    switches", IEEE/ACM ToN 6(2), 1998: a queue may grow while it is below alpha x (free buffer).
    """
    n = max(1, congested)
    return alpha * free_bytes / (1 + n * alpha)


@dataclass(frozen=True)
class PfcTrigger:
    """Ingress occupancy of a lossless PG at which it sends XOFF, and how it was worked out."""

    at_bytes: int
    basis: str


def pfc_trigger(profile: BufferProfile, pool: BufferPool | None, congested: int) -> PfcTrigger | None:
    """Where a lossless PG triggers PFC: its reservation plus its shared-buffer limit.

    Static threshold: reservation + static_th. Dynamic threshold (SONiC dynamic_th: alpha =
    2**dynamic_th, SAI "2^n of available buffer of the pool"): reservation + alpha*F/(1 + n*alpha)
    with F approximated by the pool size; the reservations of other PGs are not known offline,
    and SONiC Mellanox pool sizes already exclude them. None when the input cannot tell.
    """
    reserved = reserved_before_xoff(profile)
    mode = pool.mode if pool is not None else None
    use_static = profile.static_threshold_bytes is not None and (mode == "static" or profile.alpha is None)
    if use_static:
        return PfcTrigger(reserved + profile.static_threshold_bytes,
                          f"reserved {reserved} B + static_th {profile.static_threshold_bytes} B")
    if profile.alpha is None or pool is None or pool.size_bytes is None:
        return None
    share = dynamic_share_bytes(profile.alpha, pool.size_bytes, congested)
    return PfcTrigger(int(reserved + share),
                      f"reserved {reserved} B + alpha {profile.alpha:g} x pool {pool.name} {pool.size_bytes} B "
                      f"/ (1 + {max(1, congested)} x {profile.alpha:g})")
