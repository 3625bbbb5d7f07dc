"""BUF: every lossless PG has a buffer profile whose headroom can absorb what is in flight after XOFF.

The lossless PGs of a port are those its lossless priorities use (see rules/common.py
``lossless_lanes``: reached by the policy's DSCPs, or under `lossless.trust: pcp` by its priorities' PCPs).
Switch ports only: a ConnectX NIC computes its receive-buffer xoff itself (mlx5 port_buffer.c).
The maths lives in losslessd/headroom.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .. import headroom
from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import Rule, register
from ..model import BufferProfile, Device, DeviceKind, Port, PriorityGroup
from .common import Lane, LaneRule, lossless_queues, lossy_egress_profiles, numbers, pool_xoffs


class _BufRule(LaneRule):
    hop = "pg"  # BUF003 says when a lossless priority's PG is unknown

    def check_lane(self, ctx: Context, device: Device, port: Port, lane: Lane) -> Iterator[Finding]:
        yield from self.check_pg(ctx, device, port, lane, port.priority_groups.get(lane.pg))

    def check_pg(self, ctx: Context, device: Device, port: Port, lane: Lane, pg: PriorityGroup | None,
                 ) -> Iterator[Finding]:
        """Default: check the PG's static profile; run-time and missing profiles are BUF003's."""
        profile = _static_profile(device, pg)
        if profile is not None:
            yield from self.check_profile(ctx, device, port, lane, profile)

    def check_profile(self, ctx: Context, device: Device, port: Port, lane: Lane, profile: BufferProfile,
                      ) -> Iterator[Finding]:  # pragma: no cover - interface
        raise NotImplementedError

    def _at(self, device, port, lane, profile: BufferProfile | None = None, pg: PriorityGroup | None = None) -> dict:
        """Where a finding on the lane's PG points: its profile's line, else the line that made the PG (the lane's own
        PG where none is given: NVUE's lossy PG comes from the PFC line that left the priority out), else the port's."""
        pg = pg if pg is not None else port.priority_groups.get(lane.pg) if lane.pg is not None else None
        source = (profile.source if profile else None) or (pg.source if pg else None) or port.source
        return {"device": device, "port": port, "source": source, "key": port.pg_key(lane.pg)}


def _static_profile(device: Device, pg: PriorityGroup | None) -> BufferProfile | None:
    """The PG's profile when the input fixes its headroom (not computed by the switch at run time)."""
    if pg is None or pg.runtime_profile or pg.profile is None:
        return None
    profile = device.buffer_profiles.get(pg.profile)
    if profile is None or profile.headroom_computed_at_runtime:
        return None
    return profile


def _buffers(ctx, device: Device) -> headroom.SwitchBuffers:
    return headroom.switch_buffers(device)


def _pg(port: Port, lane: Lane) -> str:
    return f"{port.pg_label(lane.pg)} (lossless priority {lane.priority})"


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

    def check_profile(self, ctx: Context, device: Device, port: Port, lane: Lane, profile: BufferProfile,
                      ) -> Iterator[Finding]:
        if profile.size_bytes is None or profile.xoff_bytes is None:
            return
        xon = profile.xon_bytes or 0
        pool = device.buffer_pools.get(profile.pool or "")
        shared = pool if pool is not None and pool.shared_headroom_bytes else None  # xoff from its headroom pool
        needed = xon if shared else xon + profile.xoff_bytes
        if profile.size_bytes >= needed:
            return
        what = (f"xon {xon} B (its xoff comes from the shared headroom pool {shared.name})" if shared
                else f"xon {xon} + xoff {profile.xoff_bytes} = {needed} B")
        msg = f"{_pg(port, lane)}: profile {profile.name} reserves {profile.size_bytes} B, less than {what}"
        includes = headroom.reservation_includes_headroom(device.hwsku, device.hardware)
        at = self._at(device, port, lane, profile)
        if includes:
            yield self.finding(f"{msg}; set size to at least {needed} B", **at, size_bytes=profile.size_bytes,
                               needed_bytes=needed)
        elif includes is None:
            yield self.unverified(f"{msg}; that is an error on Mellanox Spectrum but normal on Broadcom, and the input "
                                  f"does not name the switch SKU (hwsku)", **at)


@register
class HeadroomInsufficient(_BufRule):
    """A lossless PG's xoff is below the headroom its switch, port speed, cable length and MTU need.

    ## What it checks
    A lossless PG's profile xoff is at least what the switch's own buffer maths gives
    (`buffer.headroom_formula: sonic`, losslessd/headroom.py), whichever of these apply, the larger:

    - NVIDIA Spectrum (SONiC Mellanox SKUs): sonic-swss buffer_headroom_mellanox.lua, by generation
      (cell size, IEEE 802.3 pause quanta of the port speed, small packets counted by byte with the
      switch's LOSSLESS_TRAFFIC_PATTERN, default 50 %, 8-lane ports, Spectrum-4/5 tile bytes, Spectrum-6
      compensation, shared headroom pool), exactly as the script computes it;
    - any SONiC SKU whose pg_profile_lookup.ini losslessd ships (sonic-buildimage, with its path): the
      SKU's own row for the port's speed and the next listed cable length at or above the port's.

    For a switch whose ASIC and SKU are both unknown, a lower bound that holds on any ASIC (a frame from
    the peer, a lossless frame and the cable's round trip, each byte once) is used, so only a clearly
    short xoff is reported. `buffer.headroom_formula: mlx5` uses the ConnectX driver's formula (Linux mlx5
    port_buffer.c) instead. The cable length is the port's (SONiC CABLE_LENGTH), else
    `buffer.default_cable_length_m`. A port whose speed, cable length or MTU is unknown is reported as
    unverified, naming the missing fact. A lossless PG whose profile has no xoff at all is reported too.

    ## Why it matters
    After a PG sends XOFF, the peer keeps sending until the pause reaches it and takes effect:
    the frame being sent, the bytes on the cable both ways, and the pipelines on both ends. If the
    xoff headroom cannot hold them, lossless traffic is dropped, which RoCE handles badly. SONiC's
    older lookup tables (2020) are below what its current script computes at 400G.

    ## Failing example
    hwsku `ACS-MSN4700`, 400 Gb/s, 5 m, MTU 9100, 8 lanes, profile xoff 38912 (the 2020 table value):
    `PG 3 (lossless priority 3): xoff 38912 B is below the 90112 B a 400 Gb/s port with 5 m of cable and
    MTU 9100 needs (sonic-swss buffer_headroom_mellanox.lua on Spectrum-3 ...)`.

    ## Passing example
    xoff 612140 B for 400 Gb/s and 5 m on `Arista-7060X6-64PE-O128S2` (its pg_profile_lookup.ini row).

    ## Fix
    Raise xoff (and size) to the required value, or correct the port's cable length (SONiC
    `CABLE_LENGTH`) so the switch's buffer manager computes the right profile.
    """

    code = "BUF002"
    name = "headroom-insufficient"
    severity = Severity.error
    fix_sections = frozenset({"buffer"})

    def check_profile(self, ctx: Context, device: Device, port: Port, lane: Lane, profile: BufferProfile,
                      ) -> Iterator[Finding]:
        at = self._at(device, port, lane, profile)
        if profile.xoff_bytes is None:
            yield self.finding(f"{_pg(port, lane)}: profile {profile.name} has no xoff, so the PG has no headroom for "
                               f"data in flight after it sends XOFF; use a lossless profile with xoff headroom", **at)
            return
        buf = ctx.policy.buffer
        cable = port.cable_length_m if port.cable_length_m is not None else buf.default_cable_length_m
        missing = [name for name, value in (("port speed", port.speed_gbps), ("cable length", cable),
                                            ("MTU", port.mtu_bytes)) if value is None]
        if missing:
            hint = " (or set buffer.default_cable_length_m in the policy)" if cable is None else ""
            yield self.unverified(f"{_pg(port, lane)}: {' and '.join(missing)} not in the input{hint}, so xoff "
                                  f"{profile.xoff_bytes} B was not compared with the required headroom", **at)
            return
        req = headroom.required_headroom(ctx.memo(_buffers, device), port.speed_gbps, cable, port.mtu_bytes,
                                         lanes=port.lanes, formula=buf.headroom_formula,
                                         peer_response_bytes=buf.peer_response_time_bytes)
        if profile.xoff_bytes >= req.xoff_bytes:
            return
        what = f"the {req.xoff_bytes} B" if req.exact else f"even the {req.xoff_bytes} B lower bound that"
        note = f"; {req.note}" if req.note else ""
        fix = f"raise xoff by {req.xoff_bytes - profile.xoff_bytes} B"
        row = req.row
        if (device.platform == "sonic" and row is not None and profile.name == row.profile_name
                and profile.xoff_bytes == row.xoff_bytes):
            # buffermgr.cpp doSpeedUpdateTask binds the PG to this row's profile whatever the port's MTU, and reuses a
            # BUFFER_PROFILE of that name as written: the file's own numbers there are what the switch keeps.
            note += (f"; {profile.name} is the SKU's own pg_profile_lookup.ini row, which SONiC's traditional buffer "
                     f"manager binds whatever the port's MTU, and the row is short for this port")
            fix += (f" in a BUFFER_PROFILE|{profile.name} of the config (buffermgrd takes a profile of that name as "
                    f"written), or run the dynamic buffer model")
        yield self.finding(f"{_pg(port, lane)}: xoff {profile.xoff_bytes} B is below {what} a {port.speed_gbps:g} Gb/s "
                           f"port with {cable:g} m of cable and MTU {port.mtu_bytes} needs ({req.basis}{note}); {fix}",
                           **at,
                           xoff_bytes=profile.xoff_bytes, required_xoff_bytes=req.xoff_bytes,
                           shortfall_bytes=req.xoff_bytes - profile.xoff_bytes, formula=buf.headroom_formula,
                           basis=req.basis, exact=req.exact)


@register
class LosslessPgUnverified(_BufRule):
    """A lossless priority's PG has no buffer profile that can be verified offline.

    ## What it checks
    Each lossless PG of a RoCE-facing switch port (the PG the policy's DSCPs reach, or under
    `lossless.trust: pcp` its lossless priorities' 802.1p PCPs) has a buffer profile in the input. A PG whose
    headroom the switch computes at run time (SONiC BUFFER_PG profile `NULL`, a profile with
    `headroom_type: dynamic`, or on SONiC no BUFFER_PG entry at all, which the buffer manager
    creates from the port's speed and cable length for every PFC-enabled priority) is reported as
    unverified (info), as is a port on an input that carries no ingress buffer configuration at
    all. In SONiC's traditional buffer model the buffer manager binds every PFC port's lossless PGs
    to `pg_lossless_<speed>_<cable>_profile` from the SKU's pg_profile_lookup.ini row, over the
    config's own profile (sonic-swss cfgmgr/buffermgr.cpp): where losslessd ships the SKU's table that
    profile is what BUF001/BUF002 check; where the table is unknown the PG is unverified (SYS004 says
    why, once per switch); a missing PG on a port it binds nothing to (no row for the port's speed
    and cable length, or no mode on ingress_lossless_pool) is a warning, unverified where the input
    does not say which priorities the port pauses (pfc_enable). A PG that is missing (also when PFC
    is off for its priority, so no switch creates one), has no profile, or names a profile the input
    does not define is a warning. One finding per port and PG.

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

    def check_pg(self, ctx: Context, device: Device, port: Port, lane: Lane, pg: PriorityGroup | None,
                 ) -> Iterator[Finding]:
        at = self._at(device, port, lane, pg=pg)
        if pg is None:
            yield self._missing(device, port, lane, at)
            return
        profile = device.buffer_profiles.get(pg.profile) if pg.profile else None
        if pg.runtime_profile or (profile is not None and profile.headroom_computed_at_runtime):
            yield self.unverified(f"{_pg(port, lane)}: headroom computed at run time by the switch from cable length "
                                  f"and speed; cannot be verified offline", **at)
        elif pg.profile is None and pg.size_bytes is None:
            yield self.finding(f"{_pg(port, lane)} has no buffer profile; give it a lossless buffer profile", **at)
        elif pg.profile is not None and profile is None:
            yield self.finding(f"{_pg(port, lane)} uses buffer profile {pg.profile}, which is not defined", **at)

    def _missing(self, device, port, lane, at):
        if port.pfc_enabled is not None and lane.priority not in port.pfc_enabled:
            return self.finding(f"{_pg(port, lane)} has no lossless buffer configuration: PFC is off for priority "
                                f"{lane.priority}, so the switch keeps no headroom for it (see PFC001)", **at)
        if not port.priority_groups and not device.buffer_profiles:  # e.g. a SONiC qos.json without buffers.json
            return self.unverified(f"{_pg(port, lane)}: the input carries no ingress buffer configuration, so the PG's "
                                   f"headroom cannot be verified offline", **at)
        if device.platform == "sonic" and port.cable_length_m is not None and port.pfc_enabled is not None:
            # The parser models buffermgrd's binding (parse/sonic/buffermgrd.py): with the port's cable length and
            # pfc_enable known, a PG still missing is one it binds nothing to.
            return self.finding(f"{_pg(port, lane)} has no BUFFER_PG entry, and SONiC's buffer manager binds none for "
                                f"it (buffermgr.cpp doSpeedUpdateTask: the SKU's pg_profile_lookup.ini has no row for "
                                f"the port's speed and CABLE_LENGTH, the cable is 0m, the port's own PORT_QOS_MAP "
                                f"entry has no pfc_enable, or BUFFER_POOL ingress_lossless_pool has no mode), so the "
                                f"switch keeps no headroom for it; give it a lossless buffer profile", **at)
        if device.platform == "sonic" and port.cable_length_m is not None:
            return self.unverified(f"{_pg(port, lane)} has no BUFFER_PG entry and the input does not say which "
                                   f"priorities the port pauses: SONiC's buffer manager creates a PG only for a "
                                   f"pfc_enable priority (buffermgr.cpp doSpeedUpdateTask); cannot be verified "
                                   f"offline", **at)
        if device.platform == "sonic":
            # sonic-swss buffermgr.cpp adds BUFFER_PG for each pfc_enable priority of a port with a cable length
            # (the parser models those PGs as computed at run time); this port's length is not in the input.
            return self.unverified(f"{_pg(port, lane)} has no BUFFER_PG entry and the input gives no cable length "
                                   f"for the port: SONiC's buffer manager creates the PG at run time only from a "
                                   f"cable length and speed; cannot be verified offline", **at)
        return self.finding(f"{_pg(port, lane)} has no buffer configuration; give it a lossless buffer profile", **at)


@register
class LosslessQueueLossyEgressBuffer(LaneRule):
    """A lossless priority's egress queue has a buffer profile that drops when it fills.

    ## What it checks
    On switch ports whose egress queues have buffer profiles in the input (SONiC `BUFFER_QUEUE`), the queue
    each lossless priority leaves by (its traffic class's queue, through the port's maps) must be on a
    lossless egress profile: one whose `static_th` covers its whole pool (SONiC's Broadcom SKUs), or one in an
    egress pool no lossy queue of the port uses (SONiC's Spectrum SKUs: `egress_lossless_pool`). A queue on
    a profile a lossy queue of the port (one no PFC-enabled or lossless priority reaches) is bound to as well,
    with a `static_th` below its pool, with a dynamic threshold in a pool lossy queues fill too, one that trims
    what it cannot admit (`packet_discard_action: trim`, SONiC's packet trimming), or on a profile that holds
    nothing (size 0 with `static_th` 0 or `dynamic_th` -8: SONiC's zero profiles for ports that are down) is an
    error. Size 0 with a `dynamic_th` of -1 to 7, or with a `static_th`, is the stock lossless
    profile of most SKUs. The message says which side to move: the lossless queue when its profile is the one
    most of the port's lossy queues use, else the lossy queues bound to it. A lossy queue bound by the same
    entry as a lossless one (the stock `|3-4` with PFC on 3 alone) does not count: that entry was written for
    the lossless queue. A lossless queue without a `BUFFER_QUEUE` entry
    among entries for the port's other queues, an undefined profile or pool, or a pool not of type egress (a
    VOQ chassis) is unverified (info). Ports without any `BUFFER_QUEUE` entry are not checked. A lossless priority
    whose queue the input does not show is ECN001's unverified finding, and this rule's where ECN001 is not selected.
    One finding per port and queue.

    ## Why it matters
    PFC stops the sender when the ingress PG fills; nothing stops the egress queue from filling: many ingress
    ports may send into one egress queue, and its profile's limit decides whether it drops. SONiC's stock
    buffers bind queues 3-4 to `egress_lossless_profile` and the others to `egress_lossy_profile`, so a
    lossless priority on another queue (`pfc_enable: "3,4,6"`) is lossless in name only: dropped at egress
    under congestion.

    ## Failing example
    `pfc_enable: "3,4,6"` with `BUFFER_QUEUE|Ethernet0|5-6: {profile: egress_lossy_profile}`:
    `queue 6 (lossless priority 6) is on egress buffer profile egress_lossy_profile: profile egress_lossy_profile
    is also the profile of lossy queue(s) 0,1,2 of the port`.

    ## Passing example
    `BUFFER_QUEUE|Ethernet0|6: {profile: egress_lossless_profile}`, the profile `static_th` equal to its
    `egress_lossless_pool` size, and `BUFFER_QUEUE|Ethernet0|5: {profile: egress_lossy_profile}`.

    ## Fix
    Bind the queue to the lossless egress profile (or the lossy queues bound to it to the lossy queues' profile);
    `losslessd fix` writes the `BUFFER_QUEUE` entry, as a `config apply-patch` patch that splits a range key such
    as `Ethernet0|5-6` into one key per queue where the key also covers a lossy queue.
    """

    code = "BUF005"
    name = "lossless-queue-lossy-egress-buffer"
    severity = Severity.error
    hop = "queue"
    checks = "egress buffer"  # (selected without ECN001, it says an unknown queue itself: not its ECN marking)
    fix_sections = frozenset({"buffer"})

    def check_port(self, ctx: Context, device: Device, port: Port) -> Iterator[Finding]:
        if any(q.buffer_source is not None for q in port.queues.values()):  # no BUFFER_QUEUE: nothing to check
            yield from super().check_port(ctx, device, port)

    def check_lane(self, ctx: Context, device: Device, port: Port, lane: Lane) -> Iterator[Finding]:
        if lane.priority is None:  # a RoCE DSCP on a lossy class (MAP001's)
            return
        index = lane.queue if lane.queue is not None else -1  # (LaneRule passes only lanes whose queue is known)
        queue = port.queues.get(index)
        where = f"queue {index} (lossless priority {lane.priority})"
        at: dict[str, Any] = {"device": device, "port": port, "key": str(index),
                              "source": (queue.buffer_source if queue else None) or port.source}
        if queue is None or queue.buffer_source is None:
            yield self.unverified(f"{where} has no BUFFER_QUEUE entry beside the port's other queues: the switch's "
                                  "default egress buffer applies, which the input does not show", **at)
            return
        lossy = ctx.memo(_lossy_egress, port)
        verdict, why = headroom.egress_lossless(device, queue.buffer_profile, lossy)
        if verdict is None:
            yield self.unverified(f"{where}: {why}, so whether it drops at egress could not be checked", **at)
        elif not verdict:
            strays = lossy.get(queue.buffer_profile or "", [])
            home = max(sorted(set(lossy) - {queue.buffer_profile}), key=lambda name: len(lossy[name]), default=None)
            if strays and home is not None and len(lossy[home]) > len(strays):
                # Most lossy queues are on another profile: the lossy queues bound to this one are what is wrong.
                yield self.finding(f"{where} is on egress buffer profile {queue.buffer_profile}, which lossy "
                                   f"queue(s) {numbers(strays)} of the port are bound to as well: their traffic fills "
                                   "the buffer this queue holds paused traffic in, so it drops when that fills; bind "
                                   f"queue(s) {numbers(strays)} to the lossy queues' egress profile {home}",
                                   profile=queue.buffer_profile, lossy_queues=strays, **at)
                return
            yield self.finding(f"{where} is on egress buffer profile {queue.buffer_profile}: {why}; it drops when "
                               "it fills, so this class is lossless in name only; bind the queue to the lossless "
                               "egress profile", profile=queue.buffer_profile, **at)


def _lossy_egress(ctx: Context, port: Port) -> dict[str, list[int]]:
    """The port's lossy queues' egress profiles, worked out once per port (BUF005 checks each lossless queue)."""
    return lossy_egress_profiles(port, lossless_queues(ctx.policy, port))


def _oversubscription(ctx, device: Device) -> tuple[float | None, str]:
    """The largest summed-xoff / shared-headroom-pool ratio allowed, and who says so; None when nobody does.

    A pool xoff written in the config is the operator's or the SKU's chosen size: sonic-swss
    buffer_pool_mellanox.lua sizes the pool at accumulative xoff / over_subscribe_ratio only when no xoff is
    configured, and uses a configured one as it is; the SKU templates (sonic-buildimage device/mellanox/*/
    buffers_defaults_t*.j2 ingress_lossless_pool_xoff) over-subscribe it on purpose. So without the policy's
    or the switch's ratio the intended over-subscription is unknown, not 1."""
    allowed = ctx.policy.buffer.headroom_pool_oversubscription
    if allowed is not None:
        return allowed, "buffer.headroom_pool_oversubscription"
    if device.over_subscribe_ratio:
        return device.over_subscribe_ratio, "the switch's DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio"
    return None, ("neither the policy (buffer.headroom_pool_oversubscription) nor the switch "
                  "(DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio) says how far the pool may be "
                  "over-subscribed")


@register
class SharedHeadroomPoolShort(Rule):
    """The lossless PGs' xoff adds up to more than the shared headroom pool holds.

    ## What it checks
    On a switch whose ingress lossless pool has a shared headroom pool (SONiC `BUFFER_POOL` `xoff`), the
    xoff of every lossless PG that takes its headroom from the pool (static profiles of that pool with an
    xoff, on any port) is summed. The sum divided by the pool may not exceed the over-subscription the
    policy allows (`buffer.headroom_pool_oversubscription`), else the switch's own `over_subscribe_ratio`
    (DEFAULT_LOSSLESS_BUFFER_PARAMETER). When neither says, a pool over-subscribed past 1 is reported as
    unverified (info): a configured pool xoff is the SKU's or operator's chosen size (sonic-swss
    buffer_pool_mellanox.lua computes summed xoff / over_subscribe_ratio only when none is configured, and
    SONiC's Mellanox SKU templates over-subscribe the pool on purpose). A pool smaller than one PG's xoff is
    an error whatever the ratio. The message says how many PGs the pool covers pausing at once. PGs sized
    at run time are named as not counted.

    ## Why it matters
    With a shared headroom pool, a PG's xoff is not set aside for it: every PG that pauses draws its
    in-flight bytes from the one pool. When more PGs pause at once than the pool can absorb (an incast on
    many ports, a PFC storm), the bytes still arriving after XOFF are dropped on a lossless class.

    ## Failing example
    128 PGs with xoff 612140 B (78.4 MB in all), `BUFFER_POOL|ingress_lossless_pool` `xoff: 29423360` and
    `over_subscribe_ratio: 2`: `the 128 lossless PGs of pool ingress_lossless_pool need 78353920 B of xoff
    together, 2.66 x the shared headroom pool's 29423360 B (allowed: 2 x ...); the pool covers 48 of them
    pausing at once`.

    ## Passing example
    The same PGs with `over_subscribe_ratio: 3` in DEFAULT_LOSSLESS_BUFFER_PARAMETER, or a pool `xoff` of
    at least 78353920 B.

    ## Fix
    Grow the pool's `xoff`, lower the over-subscription only where the traffic never pauses many ports at
    once (and say so with `over_subscribe_ratio` or the policy), or move ports off the lossless class.
    """

    code = "BUF004"
    name = "shared-headroom-pool-short"
    scope = "device"
    group = "device"
    severity = Severity.warning

    kinds = frozenset({DeviceKind.switch})

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        for pool in device.buffer_pools.values():
            if pool.shared_headroom_bytes:
                yield from self._pool(ctx, device, pool)

    def _pool(self, ctx, device: Device, pool):
        by_port, runtime = pool_xoffs(device, pool.name)
        xoffs = [xoff for held in by_port.values() for xoff in held]
        ports = by_port.keys()
        if not xoffs:
            return
        total, shp = sum(xoffs), pool.shared_headroom_bytes
        covered, used = 0, 0
        for xoff in sorted(xoffs, reverse=True):
            if used + xoff > shp:
                break
            used, covered = used + xoff, covered + 1
        ratio = total / shp
        allowed, who = _oversubscription(ctx, device)
        skipped = f"; {runtime} PG(s) sized at run time not counted" if runtime else ""
        at = {"device": device, "source": pool.source or device.source, "key": pool.name, "pool": pool.name,
              "total_xoff_bytes": total, "shared_headroom_bytes": shp, "oversubscription": round(ratio, 3),
              "pgs": len(xoffs), "covered_pgs": covered}
        what = (f"the {len(xoffs)} lossless PGs of pool {pool.name} on {len(ports)} port(s) need {total} B of xoff "
                f"together")
        if covered == 0:
            yield self.finding(f"{what}; the shared headroom pool's {shp} B cannot hold even the largest PG's "
                               f"xoff ({max(xoffs)} B): one pause overflows it{skipped}; grow the pool's xoff",
                               severity=Severity.error, **at)
        elif allowed is None:
            if ratio > 1 + 1e-9:
                yield self.unverified(f"{what}, {ratio:.2f} x the shared headroom pool's {shp} B: {who}, so this "
                                      f"over-subscription was not judged; the pool covers {covered} of them pausing at "
                                      f"once{skipped}", **at)
        elif ratio > allowed + 1e-9:
            yield self.finding(f"{what}, {ratio:.2f} x the shared headroom pool's {shp} B (allowed: {allowed:g} x, "
                               f"{who}); the pool covers {covered} of them pausing at once{skipped}; grow the pool's "
                               f"xoff to {math.ceil(total / allowed)} B or accept the over-subscription in the policy",
                               **at)
