"""BUF: every lossless PG has a buffer profile whose headroom can absorb what is in flight after XOFF.

The lossless PGs of a port are those its lossless priorities use (see rules/ecn.py
``lossless_lanes``). Switch ports only: a ConnectX NIC computes its receive-buffer xoff itself
(mlx5 port_buffer.c). The maths lives in losslessd/headroom.py.
"""

from __future__ import annotations

from .. import headroom
from ..lint.finding import Severity
from ..lint.registry import PortRule, register
from ..model import BufferProfile, Device, Port, PriorityGroup
from .ecn import Lane, split_lanes


class _BufRule(PortRule):
    depends_on_pfc = True
    reports_unknown_lane = False  # one rule of the family says when a lossless priority's PG is unknown

    def check_port(self, ctx, device: Device, port: Port):
        known, said = split_lanes(self, ctx, device, port, "pg")
        yield from said
        for lane in known:
            yield from self.check_pg(ctx, device, port, lane, port.priority_groups.get(lane.pg))

    def check_pg(self, ctx, device: Device, port: Port, lane: Lane, pg: PriorityGroup | None):
        """Default: check the PG's static profile; run-time and missing profiles are BUF003's."""
        profile = _static_profile(device, pg)
        if profile is not None:
            yield from self.check_profile(ctx, device, port, lane, profile)

    def check_profile(self, ctx, device, port, lane, profile: BufferProfile):  # pragma: no cover - interface
        raise NotImplementedError

    def _at(self, device, port, lane, profile: BufferProfile | None = None, pg: PriorityGroup | None = None) -> dict:
        source = (profile.source if profile else None) or (pg.source if pg else None) or port.source
        return {"device": device, "port": port, "source": source, "key": lane.pg}


def _static_profile(device: Device, pg: PriorityGroup | None) -> BufferProfile | None:
    """The PG's profile when the input fixes its headroom (not computed by the switch at run time)."""
    if pg is None or pg.runtime_profile or pg.profile is None:
        return None
    profile = device.buffer_profiles.get(pg.profile)
    if profile is None or profile.headroom_computed_at_runtime:
        return None
    return profile


def _headroom_options(ctx, device: Device) -> headroom.HeadroomOptions:
    return headroom.options_for(device.hwsku, ctx.policy.buffer.peer_response_time_bytes)


def _pg(lane: Lane) -> str:
    return f"PG {lane.pg} (lossless priority {lane.priority})"


@register
class BufferProfileTooSmall(_BufRule):
    """A lossless PG's buffer profile reserves less than its xon + xoff, on a platform where it must hold both.

    ## What it checks
    On SONiC Mellanox (Spectrum) SKUs, a lossless PG's profile `size` is at least xon + xoff, or
    at least xon when the pool has a shared headroom pool (pool `xoff`) that holds the xoff part:
    that is how SONiC's buffer_headroom_mellanox.lua builds these profiles. On other SKUs `size`
    means something else and is not checked: SONiC Broadcom lookup tables give a small guaranteed
    minimum with the headroom counted apart (Arista-7260CX3: size 1248, xoff 54080), and some
    carry size = xon + xoff, so neither can be asserted. When the input names no SKU and the size
    is below xon + xoff, the PG is reported as unverified. One finding per port and PG.

    ## Why it matters
    On Spectrum the headroom is carved out of the reservation: a size below xon + xoff leaves less
    room than the xoff the switch was told it has, and packets arriving after the pause are dropped.

    ## Failing example
    hwsku `Mellanox-SN2700`, profile `{xon: 19456, xoff: 30720, size: 40960}`:
    `PG 3 (lossless priority 3): profile pg_lossless_100000_5m_profile reserves 40960 B, less than
    xon 19456 + xoff 30720 = 50176 B`.

    ## Passing example
    `{xon: 19456, xoff: 30720, size: 50176}` (SONiC ACS-MSN2700 100G/5m).

    ## Fix
    Set size to xon + xoff (SONiC: let the buffer manager compute the profile, or copy the row of
    the SKU's pg_profile_lookup.ini).
    """

    code = "BUF001"
    name = "buffer-profile-too-small"
    severity = Severity.error
    fix_sections = frozenset({"buffer"})

    def check_profile(self, ctx, device, port, lane, profile):
        if profile.size_bytes is None or profile.xoff_bytes is None:
            return
        xon = profile.xon_bytes or 0
        pool = device.buffer_pools.get(profile.pool or "")
        shared_headroom = bool(pool and pool.shared_headroom_bytes)
        needed = xon if shared_headroom else xon + profile.xoff_bytes
        if profile.size_bytes >= needed:
            return
        what = (f"xon {xon} B (its xoff comes from the shared headroom pool {pool.name})" if shared_headroom
                else f"xon {xon} + xoff {profile.xoff_bytes} = {needed} B")
        msg = f"{_pg(lane)}: profile {profile.name} reserves {profile.size_bytes} B, less than {what}"
        includes = headroom.reservation_includes_headroom(device.hwsku)
        at = self._at(device, port, lane, profile)
        if includes:
            yield self.finding(f"{msg}; set size to at least {needed} B", **at, size_bytes=profile.size_bytes,
                               needed_bytes=needed)
        elif includes is None:
            yield self.unverified(f"{msg}; that is an error on Mellanox Spectrum but normal on Broadcom, and the input "
                                  f"does not name the switch SKU (hwsku)", **at)


@register
class HeadroomInsufficient(_BufRule):
    """A lossless PG's xoff is below the headroom its port speed, cable length and MTU need.

    ## What it checks
    A lossless PG's profile xoff is at least the headroom given by the policy's formula
    (`buffer.headroom_formula`, losslessd/headroom.py):

    - `sonic`: SONiC's dynamic headroom formula (sonic-swss buffer_headroom_mellanox.lua): lossless
      MTU + (MTU + cable round trip at ~5 ns/m + MAC/PHY delay + peer response) x cell occupancy,
      rounded up to 1 KiB. The cell occupancy uses the Spectrum cell size on SONiC Mellanox SKUs
      (reproducing their shipped lookup tables exactly); on other ASICs the cell size is unknown
      and every byte is counted once, a lower bound, so only a clearly short xoff is reported.
    - `mlx5`: the ConnectX driver's formula (Linux mlx5 port_buffer.c):
      (301 + 2.16 x metres) x Gb/s + 2.72 x MTU.

    The cable length is the port's (SONiC CABLE_LENGTH), else `buffer.default_cable_length_m`. A
    port whose speed, cable length or MTU is unknown is reported as unverified, naming the missing
    fact. A lossless PG whose profile has no xoff at all is reported too.

    ## Why it matters
    After a PG sends XOFF, the peer keeps sending until the pause reaches it and takes effect:
    the frame being sent, the bytes on the cable both ways, and the pipelines on both ends. If the
    xoff headroom cannot hold them, lossless traffic is dropped, which RoCE handles badly.

    ## Failing example
    100 Gb/s port, 300 m cable, MTU 9216 on hwsku `ACS-MSN2700`, profile xoff 38912 (the 40 m
    value): `PG 3 (lossless priority 3): xoff 38912 B is below the 104448 B ...`.

    ## Passing example
    xoff 104448 B for 100 Gb/s and 300 m (SONiC ACS-MSN2700 pg_profile_lookup.ini).

    ## Fix
    Raise xoff (and size) to the required value, or correct the port's cable length (SONiC
    `CABLE_LENGTH`) so the switch's buffer manager computes the right profile.
    """

    code = "BUF002"
    name = "headroom-insufficient"
    severity = Severity.error
    fix_sections = frozenset({"buffer"})

    def check_profile(self, ctx, device, port, lane, profile):
        at = self._at(device, port, lane, profile)
        if profile.xoff_bytes is None:
            yield self.finding(f"{_pg(lane)}: profile {profile.name} has no xoff, so the PG has no headroom for data "
                               f"in flight after it sends XOFF; use a lossless profile with xoff headroom", **at)
            return
        buf = ctx.policy.buffer
        cable = port.cable_length_m if port.cable_length_m is not None else buf.default_cable_length_m
        missing = [name for name, value in (("port speed", port.speed_gbps), ("cable length", cable),
                                            ("MTU", port.mtu_bytes)) if value is None]
        if missing:
            hint = " (or set buffer.default_cable_length_m in the policy)" if cable is None else ""
            yield self.unverified(f"{_pg(lane)}: {' and '.join(missing)} not in the input{hint}, so xoff "
                                  f"{profile.xoff_bytes} B was not compared with the required headroom", **at)
            return
        required = headroom.required_xoff_bytes(buf.headroom_formula, port.speed_gbps, cable, port.mtu_bytes,
                                                ctx.memo(_headroom_options, device))
        if profile.xoff_bytes >= required:
            return
        yield self.finding(f"{_pg(lane)}: xoff {profile.xoff_bytes} B is below the {required} B a "
                           f"{port.speed_gbps:g} Gb/s port with {cable:g} m of cable and MTU {port.mtu_bytes} needs "
                           f"({headroom.FORMULA_SOURCES[buf.headroom_formula]}); raise xoff by "
                           f"{required - profile.xoff_bytes} B", **at,
                           xoff_bytes=profile.xoff_bytes, required_xoff_bytes=required,
                           shortfall_bytes=required - profile.xoff_bytes, formula=buf.headroom_formula)


@register
class LosslessPgUnverified(_BufRule):
    """A lossless priority's PG has no buffer profile that can be verified offline.

    ## What it checks
    Each lossless PG of a RoCE-facing switch port has a buffer profile in the input. A PG whose
    headroom the switch computes at run time (SONiC BUFFER_PG profile `NULL`, a profile with
    `headroom_type: dynamic`, or on SONiC no BUFFER_PG entry at all, which the buffer manager
    creates from the port's speed and cable length for every PFC-enabled priority) is reported as
    unverified (info), as is a port on an input that carries no ingress buffer configuration at
    all. A PG that is missing (also when PFC is off for its priority, so no switch creates one),
    has no profile, or names a profile the input does not define is a warning. One finding per
    port and PG.

    ## Why it matters
    BUF001, BUF002 and ECN004 can only check headroom and PFC trigger points that are written
    down; a lossless PG without a profile either falls back to a lossy default or is filled in
    by the switch, and the report should say which conclusions are missing.

    ## Failing example
    `BUFFER_PG|Ethernet0|3: {profile: pg_lossless_100000_5m_profile}` where that profile is not
    defined: `PG 3 (lossless priority 3) uses buffer profile pg_lossless_100000_5m_profile, which is
    not defined`.

    ## Passing example
    A defined lossless profile with xon/xoff on PG 3.

    ## Fix
    Define the profile (or let the switch's buffer manager create it), or collect `show buffer`
    / APPL_DB output so the run-time values can be checked.
    """

    code = "BUF003"
    name = "lossless-pg-unverified"
    severity = Severity.warning
    reports_unknown_lane = True

    def check_pg(self, ctx, device, port, lane, pg):
        at = self._at(device, port, lane, pg=pg)
        if pg is None:
            yield self._missing(device, port, lane, at)
            return
        profile = device.buffer_profiles.get(pg.profile) if pg.profile else None
        if pg.runtime_profile or (profile is not None and profile.headroom_computed_at_runtime):
            yield self.unverified(f"{_pg(lane)}: headroom computed at run time by the switch from cable length and "
                                  f"speed; cannot be verified offline", **at)
        elif pg.profile is None and pg.size_bytes is None:
            yield self.finding(f"{_pg(lane)} has no buffer profile; give it a lossless buffer profile", **at)
        elif pg.profile is not None and profile is None:
            yield self.finding(f"{_pg(lane)} uses buffer profile {pg.profile}, which is not defined", **at)

    def _missing(self, device, port, lane, at):
        if port.pfc_enabled is not None and lane.priority not in port.pfc_enabled:
            return self.finding(f"{_pg(lane)} has no lossless buffer configuration: PFC is off for priority "
                                f"{lane.priority}, so the switch keeps no headroom for it (see PFC001)", **at)
        if device.platform == "sonic":  # sonic-swss buffermgr.cpp adds BUFFER_PG for each pfc_enable priority
            return self.unverified(f"{_pg(lane)} has no BUFFER_PG entry: SONiC's buffer manager creates it at run "
                                   f"time from the port's cable length and speed; cannot be verified offline", **at)
        if not port.priority_groups and not device.buffer_profiles:
            return self.unverified(f"{_pg(lane)}: the input carries no ingress buffer configuration, so the PG's "
                                   f"headroom cannot be verified offline", **at)
        return self.finding(f"{_pg(lane)} has no buffer configuration; give it a lossless buffer profile", **at)
