"""Buffer maths for lossless priority groups: the xoff headroom a port needs, and where a PG sends PFC.

The one place for these numbers, so the rules (BUF001, BUF002, BUF004, ECN004) and the renderer agree.
Everything is in bytes. Where a switch's headroom comes from:

- SONiC on NVIDIA Spectrum: sonic-swss cfgmgr/buffer_headroom_mellanox.lua, the script SONiC's dynamic buffer
  manager runs for every (speed, cable, MTU, lanes) it meets. ``spectrum_headroom`` is that script line by line
  (sonic-swss e6b0c5b5, script last changed in 422271e7e), in the same floating-point order, and reproduces
  its outputs exactly (tests/fixtures/headroom/sonic_mellanox_lua_vectors.json were computed by running the
  script itself under lua5.1 with a stubbed redis). What changed in it over time (git log of the script):
  f9462c499 (2021) takes the peer response from the IEEE 802.3 pause quanta of the port speed instead of
  ASIC_TABLE's 3.8 KB; 4957df86d (2023) fixed 800G; 3943093d4 (2024) counts small packets by byte, not by
  packet, and rounds the cell factor up; b20a59691 (2026) adds 2 KiB when a reduced small-packet share leaves
  the xoff more than 2 KiB below the all-small-packets case and no shared headroom pool exists; 422271e7e
  (2026) adds 18 KiB on Spectrum-6. Spectrum-4/5 add the bytes "on tile" (120 ns at line rate).
- SONiC on any other SKU (and Spectrum in the traditional buffer model): the SKU's own pg_profile_lookup.ini
  row (losslessd.skutables). Rendering and BUF002 never go below it.
- Unknown ASIC: a lower bound, what arrives after XOFF on any ASIC: lossless MTU + port MTU + cable round
  trip, each byte once (``lower_bound_xoff``).
- ConnectX NICs: the Linux mlx5 driver, drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c
  (calculate_xoff and update_xoff_threshold, upstream Linux). NVIDIA's nic-kernel tree carries a newer
  pause-quanta formula that needs the NIC's cell size, which no capture shows; not used.
"""

from __future__ import annotations

import math
import re

from . import skutables
from .lazyre import lazy
from .model import BufferPool, BufferProfile, Device
from .records import record

# ---------------------------------------------------------------------------------------------------------------
# SONiC Spectrum: buffer_headroom_mellanox.lua


@record(frozen=True)
class SpectrumAsic:
    """STATE_DB ASIC_TABLE of one Spectrum generation (sonic-buildimage platform/mellanox/asic_table.j2)."""

    key: str  # ASIC_TABLE key; the script reads the generation from its last character
    generation: int
    cell_size_bytes: int
    pipeline_latency_kb: float
    mac_phy_delay_kb: float
    peer_response_time_kb: float


# sonic-buildimage platform/mellanox/asic_table.j2 @086b03bd70f9: cell_size, pipeline_latency, mac_phy_delay,
# peer_response_time per ASIC_TABLE key.
SPECTRUM = {
    1: SpectrumAsic("MELLANOX-SPECTRUM", 1, 96, 19, 0.8, 3.8),
    2: SpectrumAsic("MELLANOX-SPECTRUM-2", 2, 144, 19, 0.8, 3.8),
    3: SpectrumAsic("MELLANOX-SPECTRUM-3", 3, 144, 19, 0.8, 3.8),
    4: SpectrumAsic("MELLANOX-SPECTRUM-4", 4, 192, 19, 0.8, 3.8),
    5: SpectrumAsic("MELLANOX-SPECTRUM-5", 5, 192, 19, 0.8, 3.8),
    6: SpectrumAsic("MELLANOX-SPECTRUM-6", 6, 256, 42, 0.8, 3.8),
}
_SPECTRUM_BY_KEY = {asic.key: asic for asic in SPECTRUM.values()}
# buffer_headroom_mellanox.lua pause_quanta_per_speed, "defined in IEEE 802.3 31B.3.7": Mb/s -> quanta of 512
# bit times; speeds not listed fall back to ASIC_TABLE peer_response_time.
PAUSE_QUANTA = {800000: 905, 400000: 905, 200000: 453, 100000: 394, 50000: 147, 40000: 118, 25000: 80,
                10000: 67, 1000: 2, 100: 1}
# Faster ports (1.6T, IEEE 802.3dj) have no listed response: the script's fallback, ASIC_TABLE's 3.8 KB, is below
# what an 800G port gets (905 quanta, 57,920 B), so headroom sized with it would drop under load.
FASTEST_QUANTA_MBPS = max(PAUSE_QUANTA)
SPEED_OF_LIGHT_M_PER_S = 198000000  # buffer_headroom_mellanox.lua speed_of_light (in fibre)
MINIMAL_PACKET_BYTES = 64  # buffer_headroom_mellanox.lua minimal_packet_size
COMPENSATION_BYTES = 2 * 1024  # buffer_headroom_mellanox.lua headroom_compensation (b20a59691)
SPECTRUM6_COMPENSATION_BYTES = 18 * 1024  # buffer_headroom_mellanox.lua spectrum6_headroom_compensation
TILE_NS = 120  # buffer_headroom_mellanox.lua kb_on_tile = speed / 1000 * 120 / 8 on Spectrum-4 and -5
DEFAULT_PORT_MTU = 9100  # sonic-swss cfgmgr/buffermgrdyn.h DEFAULT_MTU_STR "9100"
# The Mellanox SKU names SONiC uses (ACS-MSN2700, Mellanox-SN2700-D48C8, ACS-SN4700 ...): a fallback for SKUs the
# shipped tables do not list. Model numbers map to one generation only up to the SN4xxx (SN5xxx are Spectrum-4
# or -5: sonic-buildimage asic_table.j2), so later ones are not guessed.
_SPECTRUM_SKU = lazy(r"^(?:ACS-M?|Mellanox-)SN(\d)\d{3}", re.IGNORECASE)
_SKU_GENERATION = {"2": 1, "3": 2, "4": 3}


@record(frozen=True)
class TrafficPattern:
    """CONFIG_DB LOSSLESS_TRAFFIC_PATTERN; defaults mtu 1024 and small_packet_percentage 50 from sonic-buildimage
    files/build_templates/buffers_config.j2 (the values every SONiC Mellanox SKU gets)."""

    mtu_bytes: int = 1024
    small_packet_pct: float = 50


DEFAULT_PATTERN = TrafficPattern()


@record(frozen=True)
class Headroom:
    """The script's output: xon, xoff and size (size = xon when a shared headroom pool holds the xoff)."""

    xon_bytes: int
    xoff_bytes: int
    size_bytes: int


def _round_kib(value: float) -> int:
    return math.ceil(value / 1024) * 1024


def spectrum_headroom(asic: SpectrumAsic, speed_mbps: int, cable_m: float, port_mtu: int, *,
                      gearbox_delay: float = 0, lanes: int | None = None, pattern: TrafficPattern = DEFAULT_PATTERN,
                      shared_headroom_pool: bool = False, peer_response_bytes: float | None = None) -> Headroom:
    """buffer_headroom_mellanox.lua: ARGV speed (Mb/s), cable (m), port MTU, gearbox delay, lane count.

    ``shared_headroom_pool`` is the script's shp_enabled (BUFFER_POOL|ingress_lossless_pool xoff, or a
    DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio, non-zero). ``peer_response_bytes`` (policy
    buffer.peer_response_time_bytes) replaces the script's peer response when given.
    """
    eight_lanes = lanes == 8
    pause_quanta = PAUSE_QUANTA.get(speed_mbps)
    pipeline_latency = asic.pipeline_latency_kb * 1024
    mac_phy_delay = asic.mac_phy_delay_kb * 1024
    kb_on_tile = speed_mbps / 1000 * TILE_NS / 8 if asic.generation in (4, 5) else 0
    if eight_lanes:
        pipeline_latency = pipeline_latency * 2
        speed_overhead = port_mtu
    else:
        speed_overhead = 0
    cell = asic.cell_size_bytes
    worst_case_factor = cell / MINIMAL_PACKET_BYTES if cell > 2 * MINIMAL_PACKET_BYTES else (2 * cell) / (1 + cell)
    worst_case_factor = math.ceil(worst_case_factor)
    spp, lossless_mtu = pattern.small_packet_pct, pattern.mtu_bytes
    by_byte = 100 * MINIMAL_PACKET_BYTES / ((spp * MINIMAL_PACKET_BYTES + (100 - spp) * lossless_mtu) / 100)
    cell_occupancy = (100 - by_byte + by_byte * worst_case_factor) / 100
    bytes_on_gearbox = 0 if gearbox_delay == 0 else speed_mbps * gearbox_delay / (8 * 1024)
    if peer_response_bytes is not None:
        peer_response = peer_response_bytes
    elif pause_quanta is not None:
        peer_response = pause_quanta * 512 / 8
    else:
        peer_response = asic.peer_response_time_kb * 1024
    bytes_on_cable = 2 * cable_m * speed_mbps * 1000000000 / SPEED_OF_LIGHT_M_PER_S / (8 * 1000)
    propagation = port_mtu + bytes_on_cable + 2 * bytes_on_gearbox + mac_phy_delay + peer_response + kb_on_tile
    xoff = _round_kib(lossless_mtu + propagation * cell_occupancy)
    if asic.generation == 6:
        xoff += SPECTRUM6_COMPENSATION_BYTES
    if not shared_headroom_pool and spp != 100:
        all_small = _round_kib(lossless_mtu + propagation * worst_case_factor)
        if xoff + COMPENSATION_BYTES < all_small:
            xoff += COMPENSATION_BYTES
    xon = _round_kib(pipeline_latency)
    size = xon if shared_headroom_pool else xoff + xon + speed_overhead
    return Headroom(xon_bytes=xon, xoff_bytes=xoff, size_bytes=_round_kib(size))


def spectrum_lanes(asic: SpectrumAsic, speed_mbps: int, lanes: int | None) -> int | None:
    """The port's lane count, or the one the speed forces when unknown: sonic-swss buffermgrdyn.cpp, "for 4xxx
    models, 400G ports can only have 8 lanes, and for 5xxx models, 800G ports can only have 8 lanes"."""
    if lanes is not None:
        return lanes
    if (asic.generation == 3 and speed_mbps == 400000) or (asic.generation in (4, 5) and speed_mbps == 800000):
        return 8
    return None


def spectrum_profile_name(speed_mbps: int, cable: str, mtu: int, generation: int, lanes: int | None) -> str:
    """sonic-swss buffermgrdyn.cpp getDynamicProfileName: pg_lossless_<speed>_<cable>[_mtu<mtu>][_8lane]_profile;
    _8lane only on 8-lane ports of SN4xxx below 400G and of SN5xxx below 800G (those share no profile)."""
    name = f"pg_lossless_{speed_mbps}_{cable}" + ("" if mtu == DEFAULT_PORT_MTU else f"_mtu{mtu}")
    if lanes == 8 and ((generation == 3 and speed_mbps != 400000) or (generation in (4, 5) and speed_mbps != 800000)):
        name += "_8lane"
    return name + "_profile"


def spectrum_asic(hwsku: str | None, platform: str | None = None) -> SpectrumAsic | None:
    """The Spectrum generation of a SONiC switch: from its platform (DEVICE_METADATA platform, asic_table.j2),
    its SKU in the shipped tables, else its SKU name up to SN4xxx; None for anything else."""
    key = skutables.asic_table_of_platform(platform)
    table = skutables.lookup(hwsku, platform)
    if key is None and table is not None:
        key = table.asic_table
    if key is not None:
        return _SPECTRUM_BY_KEY.get(key)
    if table is not None and table.asic != "mellanox":
        return None
    m = _SPECTRUM_SKU.match(hwsku or "")
    gen = _SKU_GENERATION.get(m.group(1)) if m else None
    return SPECTRUM[gen] if gen else None


def lower_bound_xoff(speed_mbps: int, cable_m: float, port_mtu: int, pattern: TrafficPattern = DEFAULT_PATTERN) -> int:
    """What arrives after XOFF whatever the ASIC: the frame the peer is sending when the pause reaches it (port
    MTU), a lossless frame already in flight here (the traffic pattern's MTU) and the cable's round trip, each
    byte counted once, rounded up to 1 KiB (the script's terms without its cell factor, ASIC delays and peer
    response). Checked to be below the script on every Spectrum generation and below every row of every shipped
    SKU table (tests/test_headroom.py): vendors assume shorter peer responses than IEEE 802.3's maximum."""
    cable = 2 * cable_m * speed_mbps * 1000000000 / SPEED_OF_LIGHT_M_PER_S / (8 * 1000)
    return _round_kib(pattern.mtu_bytes + port_mtu + cable)


# ---------------------------------------------------------------------------------------------------------------
# ConnectX NICs: Linux mlx5 en/port_buffer.c

MLX5_MIN_SPEED_MBPS = 40000  # calculate_xoff: "minimum speed value is 40Gbps" (SPEED_40000)
MLX5_MINIMUM_MAX_MTU = 9216  # port_buffer.c MINIMUM_MAX_MTU: max_mtu = max(netdev max_mtu, 9216)
MLX5_DEFAULT_CELL_BYTES = 128  # en_dcbnl.c MLX5E_BUFFER_CELL_SHIFT 7, the cell size without SBCAM


def mlx5_xoff_bytes(speed_gbps: float, cable_length_m: float, mtu_bytes: int) -> int:
    """The mlx5 driver's xoff: (301 + 2.16 x length[m]) x speed[Gb/s] + 2.72 x MTU, speed at least 40G.

    calculate_xoff() in the driver's integer arithmetic (cable length in whole metres, speed in Mb/s)."""
    speed_mbps = max(int(round(speed_gbps * 1000)), MLX5_MIN_SPEED_MBPS)
    length = int(cable_length_m)
    return (301 + 216 * length // 100) * speed_mbps // 1000 + 272 * int(mtu_bytes) // 100


def mlx5_lossless_buffer_bytes(xoff_bytes: int, max_mtu_bytes: int, cell_bytes: int = MLX5_DEFAULT_CELL_BYTES) -> int:
    """The smallest receive buffer the driver accepts as lossless: update_xoff_threshold() refuses (-ENOMEM) a
    lossless buffer whose size is below xoff + max_mtu + one cell, with max_mtu at least 9216."""
    return xoff_bytes + max(max_mtu_bytes, MLX5_MINIMUM_MAX_MTU) + cell_bytes


# ---------------------------------------------------------------------------------------------------------------
# A switch's requirement


@record(frozen=True)
class SwitchBuffers:
    """What decides a switch's headroom: its Spectrum generation, its SKU table, its traffic pattern."""

    asic: SpectrumAsic | None
    sku: skutables.SkuTable | None
    pattern: TrafficPattern = DEFAULT_PATTERN
    shared_headroom_pool: bool = False
    shared_headroom_bytes: int | None = None  # the device's BUFFER_POOL|ingress_lossless_pool xoff, where it gives one
    over_subscribe_ratio: float | None = None  # the device's DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio

    @property
    def known(self) -> bool:
        return self.asic is not None or self.sku is not None


def switch_buffers(device: Device | None = None, hwsku: str | None = None, platform: str | None = None,
                   ) -> SwitchBuffers:
    """The buffer facts of a device (or of a SKU named on the command line)."""
    if device is not None:
        hwsku = hwsku or device.hwsku
        platform = platform or device.hardware
    pattern = DEFAULT_PATTERN
    shared, shared_bytes = False, None
    if device is not None:
        pattern = TrafficPattern(mtu_bytes=device.lossless_mtu_bytes or DEFAULT_PATTERN.mtu_bytes,
                                 small_packet_pct=(device.small_packet_pct if device.small_packet_pct is not None
                                                   else DEFAULT_PATTERN.small_packet_pct))
        pool = device.buffer_pools.get("ingress_lossless_pool")
        shared_bytes = pool.shared_headroom_bytes if pool is not None else None
        shared = bool(shared_bytes or device.over_subscribe_ratio)
    return SwitchBuffers(asic=spectrum_asic(hwsku, platform), sku=skutables.lookup(hwsku, platform),
                         pattern=pattern, shared_headroom_pool=shared, shared_headroom_bytes=shared_bytes or None,
                         over_subscribe_ratio=device.over_subscribe_ratio if device is not None else None)


@record(frozen=True)
class Requirement:
    """The xoff a lossless PG needs and what says so."""

    xoff_bytes: int
    basis: str
    exact: bool = True  # False: a lower bound (the ASIC is not known)
    headroom: Headroom | None = None  # the Spectrum script's full output
    row: skutables.PgRow | None = None  # the SKU table's row, when that decided (or also applies)
    note: str = ""  # e.g. why the SKU table had no row


def required_headroom(bufs: SwitchBuffers, speed_gbps: float, cable_m: float, mtu: int, *, lanes: int | None = None,
                      formula: str = "sonic", peer_response_bytes: float | None = None) -> Requirement:
    """The headroom SONiC would give this port, the larger where both the Spectrum script and the SKU table
    apply (never less than the SKU's own value); the mlx5 formula when the policy asks for it; a lower bound
    when neither the ASIC nor the SKU is known."""
    speed_mbps = int(round(speed_gbps * 1000))
    if formula == "mlx5":
        return Requirement(mlx5_xoff_bytes(speed_gbps, cable_m, mtu), "mlx5 driver formula, Linux mlx5 "
                           "port_buffer.c calculate_xoff")
    found: list[Requirement] = []
    note = ""
    if bufs.asic is not None:
        lanes = spectrum_lanes(bufs.asic, speed_mbps, lanes)
        hr = spectrum_headroom(bufs.asic, speed_mbps, cable_m, mtu, lanes=lanes, pattern=bufs.pattern,
                               shared_headroom_pool=bufs.shared_headroom_pool, peer_response_bytes=peer_response_bytes)
        found.append(Requirement(hr.xoff_bytes, f"sonic-swss buffer_headroom_mellanox.lua on Spectrum-"
                                 f"{bufs.asic.generation}", headroom=hr))
    if bufs.sku is not None:
        row = bufs.sku.row_for(speed_mbps, cable_m)
        if row is not None:
            found.append(Requirement(row.xoff_bytes, f"SKU {bufs.sku.sku} pg_profile_lookup.ini row {speed_mbps} "
                                     f"{row.cable}", row=row))
        else:
            listed = bufs.sku.cables(speed_mbps)
            note = (f"SKU {bufs.sku.sku}'s pg_profile_lookup.ini lists {speed_mbps} Mb/s only up to "
                    f"{listed[-1].cable}" if listed else
                    f"SKU {bufs.sku.sku}'s pg_profile_lookup.ini has no {speed_mbps} Mb/s row")
    if not found:
        bound = lower_bound_xoff(speed_mbps, cable_m, mtu, bufs.pattern)
        return Requirement(bound, "lower bound for an unknown ASIC: one frame from the peer, one lossless frame and "
                           "the cable round trip", exact=False, note=note)
    best = max(found, key=lambda r: r.xoff_bytes)
    other = [r for r in found if r is not best]
    row = best.row or (other[0].row if other else None)
    headroom = best.headroom or (other[0].headroom if other else None)
    basis = best.basis + (f" (above {other[0].basis}: {other[0].xoff_bytes} B)" if other
                          and other[0].xoff_bytes < best.xoff_bytes else "")
    return Requirement(best.xoff_bytes, basis, headroom=headroom, row=row, note=note)


# ---------------------------------------------------------------------------------------------------------------
# What a profile's size means, and where a PG triggers PFC


def reservation_includes_headroom(hwsku: str | None, platform: str | None = None) -> bool | None:
    """Does a buffer profile's ``size`` have to hold xon + xoff on this device?

    True on SONiC Spectrum: buffer_headroom_mellanox.lua sets size = xon + xoff (size = xon when a shared
    headroom pool holds the xoff part). False on other known SKUs: there ``size`` is the guaranteed minimum
    and headroom is counted apart (Arista-7260CX3 pg_profile_lookup.ini: size 1248, xoff 54080). None when the
    SKU is unknown.
    """
    if spectrum_asic(hwsku, platform) is not None:
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


@record(frozen=True)
class PfcTrigger:
    """Ingress occupancy of a lossless PG at which it sends XOFF, and how it was worked out."""

    at_bytes: int
    basis: str


def pfc_trigger(profile: BufferProfile, pool: BufferPool | None, congested: int) -> PfcTrigger | None:
    """Where a lossless PG triggers PFC: its reservation plus its shared-buffer limit.

    A fill level the config states (NX-OS and Dell OS10 pause-threshold, NVUE xoff-threshold): that level.
    Static threshold: reservation + static_th. Dynamic threshold (SONiC dynamic_th: alpha = 2**dynamic_th, SAI
    "2^n of available buffer of the pool"): reservation + alpha*F/(1 + n*alpha)
    with F approximated by the pool size and n the lossless PGs congested at once; the reservations of
    other PGs are not known offline, and SONiC Mellanox pool sizes already exclude them. None when the
    input cannot tell.
    """
    if profile.xoff_threshold_bytes is not None:
        # Cisco Nexus 9000 QoS guide, PFC chapter: `pause ... pause-threshold X` sends XOFF when the no-drop class's
        # ingress buffer holds X bytes, whatever the load (Cumulus QoS guide: NVUE `xoff-threshold` likewise).
        return PfcTrigger(profile.xoff_threshold_bytes, f"stated XOFF threshold {profile.xoff_threshold_bytes} B")
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


def marks_after_pfc(profile: BufferProfile, pool: BufferPool | None, threshold: int, load: int) -> int | None:
    """Whether PFC pauses before ECN marks at ``threshold`` once ``load`` lossless PGs are congested at once: the
    fewest congested PGs (at most ``load``) with which the PG's PFC trigger (pfc_trigger) is at or below
    ``threshold`` bytes, None where ECN marks first with ``load`` (or the trigger is unknown).

    The one gate ECN004 reports on (an error where the policy states the load or it fails with one PG, else a warning
    naming this break-even), which render refuses (the rendered ports' lossless PGs as the load) and the tuner refuses
    through ECN004's findings on the tuned ports. Choudhury & Hahne (dynamic_share_bytes): the trigger
    R + a*F/(1 + n*a) only falls as n grows, and is at or below T once a*F/(1 + n*a) < T + 1 - R (pfc_trigger keeps
    whole bytes), i.e. n > (a*F/(T + 1 - R) - 1)/a; the smallest such n, checked against pfc_trigger itself so that
    float rounding cannot move it by one. A stated or static trigger is the same at any load."""
    most = max(1, load)
    first = pfc_trigger(profile, pool, 1)
    if first is None or first.at_bytes <= threshold:
        return 1 if first is not None else None
    if pfc_trigger(profile, pool, 2) == first:  # (a stated or static trigger: the same at any load)
        return None
    alpha, size = profile.alpha, pool.size_bytes if pool is not None else None
    if alpha is None or size is None:
        return None
    room = threshold + 1 - reserved_before_xoff(profile)
    n = most if room <= 0 else max(1, min(most, math.floor((alpha * size / room - 1) / alpha) + 1))

    def reached(k: int) -> bool:
        trigger = pfc_trigger(profile, pool, k)
        return trigger is not None and trigger.at_bytes <= threshold

    while n < most and not reached(n):
        n += 1
    while n > 1 and reached(n - 1):
        n -= 1
    return n if reached(n) else None


def ieee_xoff_bytes(speed_mbps: int, cable_m: float, mtu: int) -> int:
    """Headroom to reserve where the switch takes explicit numbers but publishes no formula (NX-OS pause
    buffer): a full frame at each end (the one the peer is sending, the one ahead of our XOFF), the cable's
    round trip, and the peer's pause response in IEEE 802.3 pause quanta (as buffer_headroom_mellanox.lua
    lists them; 3.8 KB, ASIC_TABLE peer_response_time, for speeds it lists none), each byte once, rounded up
    to 1 KiB. Above ``lower_bound_xoff`` by the response and one frame."""
    quanta = PAUSE_QUANTA.get(speed_mbps)
    peer = quanta * 512 / 8 if quanta is not None else SPECTRUM[1].peer_response_time_kb * 1024
    cable = 2 * cable_m * speed_mbps * 1000000000 / SPEED_OF_LIGHT_M_PER_S / (8 * 1000)
    return _round_kib(2 * mtu + cable + peer)


# ---------------------------------------------------------------------------------------------------------------
# Egress: whether a queue's buffer profile lets it hold what PFC leaves it


def egress_lossless(device: Device, name: str | None, lossy: dict[str, list[int]]) -> tuple[bool | None, str]:
    """Whether egress buffer profile ``name`` (a SONiC BUFFER_QUEUE profile) never drops a lossless queue:
    (True/False, or None when the input cannot tell; why). ``lossy``: the profiles of the port's lossy queues ->
    those queues. PFC holds lossless traffic at ingress; at egress only the queue's shared-buffer limit
    (sonic-swss bufferorch.cpp: static_th -> SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH, dynamic_th -> ..._DYNAMIC_TH)
    decides whether a full queue drops."""
    profile = device.buffer_profiles.get(name) if name else None
    if profile is None:
        return None, f"its egress buffer profile {name or '(none)'} is not in the input"
    pool = device.buffer_pools.get(profile.pool) if profile.pool else None
    static = profile.static_threshold_bytes
    zero = _no_buffer(profile)
    if zero:
        return False, f"profile {name} gives the queue no buffer ({zero})"
    if profile.discard_action == "trim":
        # sonic-swss bufferorch.cpp: packet_discard_action trim -> SAI DROP_AND_TRIM, the packets the queue cannot
        # admit cut to their headers (SONiC packet trimming, for lossy queues: sonic-mgmt's trimming test plan
        # binds queues to its `q_lossy_trim_profile`)
        return False, f"profile {name} trims the packets it cannot admit (packet_discard_action trim)"
    # (before the static_th test: a lossy queue on a profile that may take the whole pool may fill it all too)
    if name in lossy:
        return False, f"profile {name} is also the profile of lossy queue(s) {_numbers(lossy[name])} of the port"
    # Broadcom SKUs (sonic-buildimage buffers_defaults_t*.j2, e.g. Force10-S6100): egress_lossless_profile
    # static_th = the egress_lossless_pool size, so the queue may take the whole pool.
    if static is not None and pool is not None and pool.size_bytes is not None and static >= pool.size_bytes:
        return True, f"profile {name} may take all of pool {pool.name} (static_th {static} B)"
    if pool is None:
        return None, f"the pool of egress buffer profile {name} ({profile.pool or 'none'}) is not in the input"
    if pool.direction != "egress":
        # A VOQ chassis (e.g. Nokia IXR7250E buffers_defaults) keeps egress profiles in one pool of type "both".
        return None, (f"profile {name} takes from pool {pool.name} of type {pool.direction or 'unknown'}, not an "
                      f"egress pool: whether a full queue drops is the ASIC's to decide")
    if static is not None:
        if pool.size_bytes is None:
            return None, f"the size of pool {pool.name} (profile {name}'s static_th {static} B) is not in the input"
        return False, (f"profile {name} caps the queue at static_th {static} B, below pool {pool.name}'s "
                       f"{pool.size_bytes} B")
    if profile.dynamic_threshold is not None:
        shared = sorted({q for other, queues in lossy.items() for q in queues
                         if (p := device.buffer_profiles.get(other)) is not None and p.pool == pool.name})
        if shared:
            return False, (f"profile {name} has a dynamic threshold in pool {pool.name}, which lossy queue(s) "
                           f"{_numbers(shared)} of the port fill too")
        # NVIDIA Spectrum SKUs (sonic-buildimage device/mellanox/*/buffers_defaults_objects.j2): egress_lossless_profile
        # dynamic_th 7 in egress_lossless_pool, a pool no lossy queue (q_lossy_profile, egress_lossy_pool) uses.
        return True, f"profile {name} is in egress pool {pool.name}, which no lossy queue of the port uses"
    return None, f"profile {name} has neither static_th nor dynamic_th"


# SONiC's zero profiles, what a port that is down gets (sonic-buildimage platform/mellanox/zero_profiles.j2, and
# device/mellanox/*/buffers_defaults_objects.j2 for port_names_inactive: egress_lossless_zero_profile size 0,
# dynamic_th -8; ingress_lossy_pg_zero_profile size 0, static_th 0): nothing reserved and the smallest share of the
# pool SAI takes (alpha 2^-8, the bottom of sonic-buffer-profile.yang's dynamic_th range -8..7) or none. Stock
# lossless egress profiles reserve nothing either (size 0) but share with dynamic_th -1..7 or a static_th.
ZERO_DYNAMIC_TH = -8


def _no_buffer(profile: BufferProfile) -> str | None:
    """Why ``profile`` holds no packet at all (nothing reserved, no share of its pool), or None."""
    if profile.size_bytes != 0:  # (None: what it reserves is not known)
        return None
    if profile.static_threshold_bytes == 0:
        return "size 0 and static_th 0"
    if profile.static_threshold_bytes is None and profile.dynamic_threshold == ZERO_DYNAMIC_TH:
        return f"size 0 and dynamic_th {ZERO_DYNAMIC_TH}, SONiC's zero profile for ports that are down"
    return None


def _numbers(values: list[int]) -> str:
    return ",".join(map(str, sorted(values)))
