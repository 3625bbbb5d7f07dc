"""Render vendor config snippets from a policy and per-port facts (speed, cable length, MTU).

Two steps, both pure: ``profile(policy, ports)`` works out every number (headroom from
losslessd.headroom, ECN thresholds scaled with link speed, watchdog timers), then a Jinja2
template per platform (templates/<platform>/profile.j2) only lays the numbers out. Missing
facts raise InputError before any template runs, so the output is whole or absent.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field, replace

import jinja2

from .. import headroom as hr
from .. import skutables
from ..errors import InputError
from ..headroom import pfc_trigger
from ..lazyre import lazy
from ..limits import MAX_PORTS
from ..lint.engine import SUSPENDED_RULE, Context
from ..lint.finding import few
from ..model import BufferPool, BufferProfile, Device, DeviceKind, DocRef, Fabric, ForwardingClass, Source
from ..parse import sonic
from ..parse.base import Input
from ..parse.nvue.build import LOSSLESS_POOLS as NVUE_LOSSLESS_POOLS
from ..platforms import PLATFORMS, InPlace
from ..policy import NAME_RULE, Policy, Range, is_name
from ..printable import quoted
from ..records import record
from ..resources import data_dir
from ..rules.common import lossless_queues, lossy_egress_profiles, pg_buffer_break, pool_xoffs
from ..units import MAX_CABLE_M, bytes_to_us, is_small_int, length_m
from . import families

# Parts of a profile a template can lay out on its own; a fix renders only the ones its findings need.
# One vocabulary for every platform; a template lays out those it has (a host script has no scheduler or
# watchdog, a switch no default RoCE TOS, an opensm.conf only routing, election, timers and sl2vl).
SECTIONS = frozenset({"ports", "maps", "trust", "pfc", "scheduler", "ecn", "buffer", "watchdog", "tos",
                      "routing", "election", "timers", "sl2vl"})
# Sections that change which traffic is lossless, how it is classified or where it goes: on a live port,
# packets are reclassified or lose their pauses while the change lands, and an SM that routes anew or
# moves SLs to other VLs reprograms every switch (docs/fix.md); `fix` withholds them unless asked.
DISRUPTIVE_SECTIONS = frozenset({"maps", "trust", "pfc", "routing", "sl2vl"})
DEFAULT_MTU_BYTES = 9100  # SONiC's default port MTU (sonic-buildimage, PORT table mtu 9100)
# ECN at the reference speed: Kmin 150 KB, Kmax 1.5 MB, 100 % (NVIDIA Cumulus Linux user guide,
# "RDMA over Converged Ethernet - RoCE", NVUE lossless defaults), in KiB/MiB as SONiC writes them.
ECN_KMIN_BYTES = 150 * 1024
ECN_KMAX_BYTES = 1536 * 1024
ECN_MARK_PCT = 100
# Junos drop profiles give ECN thresholds as fill levels (percent) of the queue buffer, which a scheduler sizes
# in bytes only as `buffer-size temporal MICROSECONDS` (bytes = line rate x time; Junos CoS guide,
# "buffer-size (Schedulers)"). Kmax sits at a fixed 50 % fill level (never 100 %, the QFX fill-level note).
ECN_KMAX_FILL_PCT = 50
# QFX5000 schedulers have no temporal buffer size, so byte thresholds have no fill level there; Juniper's validated
# AI/ML design for the QFX5240 (Juniper/jvd data_center/aidc/aiml_multitenancy_backend leaf1_qfx5240-64od.conf,
# drop-profiles dp1 interpolate fill-level [ 55 90 ] drop-probability [ 0 100 ]) marks from 55 % to 90 %.
QFX5000_ECN_FILL_PCT = (55, 90)
ECT0 = 0b10  # the ECN bits of a TOS byte that say ECN-capable, ECT(0) (RFC 3168 section 5)
# Platforms whose snippet places each lossless priority on its queue (Profile.queue_of), and the sections that do it:
# SONiC TC_TO_QUEUE_MAP, NVUE egress-queue-mapping (TC n to queue n), NX-OS `set qos-group` and the no-drop network-qos
# class that gives a qos-group its PFC priority (`pause pfc-cos P` in c-8q-nqN; qos-group N leaves by queue N; their
# templates). EOS's maps write DSCP -> TC alone: the device's tx-queue map stays.
OWN_QUEUE_MAPS = {"sonic": frozenset({"maps"}), "nvidia_cumulus": frozenset({"maps"}),
                  "cisco_nxos": frozenset({"maps", "pfc"})}
# Platforms whose every section names the forwarding class of each TC (Profile.class_use), whose `queue-num` places it:
# Junos (a class of the config keeps its queue, one of the snippet's own is written on queue_of), so the snippet's
# placement holds whatever sections it writes.
CLASS_QUEUE_MAPS = frozenset({"juniper_junos"})
# Traffic class (and PG, queue) of every DSCP the policy does not name: best effort, priority 0 (IEEE 802.1Q Annex I,
# "Best Effort", the default priority).
BEST_EFFORT_TC = 0
CNP_DEFAULT_TC = 6  # CNP traffic class when the policy names none (NVIDIA RoCE convention: CNP on priority 6)
POOL = "ingress_lossless_pool"  # SONiC's lossless ingress pool name (sonic-buildimage buffers_config.j2)
# SONiC's dynamic buffer model gives Spectrum lossless profiles DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th
# "0" (sonic-buildimage files/build_templates/buffers_config.j2); SKU tables carry their own threshold.
DYNAMIC_TH = 0
# SONiC qos_config.j2: PFC_PRIORITY_TO_PRIORITY_GROUP_MAP and PORT_QOS_MAP pfc_to_pg_map only on these ASICs
# (pfc_to_pg_map_supported_asics).
PFC_TO_PG_ASICS = frozenset({"mellanox", "barefoot"})
# Cisco Nexus 9000 QoS guide, PFC chapter: "For cable lengths greater than 100m, the pause buffer size threshold
# configuration is mandatory"; Junos congestion-notification-profile input cable-length defaults to 100 m.
EXPLICIT_HEADROOM_ABOVE_M = 100
# The classifier a Junos snippet rebuilds and binds, by the policy's trust (templates/juniper_junos).
JUNOS_CLASSIFIERS = {"pcp": ("ieee-802.1", "roce-pcp"), "dscp": ("dscp", "roce-dscp")}
# Junos `mtu` is the media MTU: the IP MTU plus the 14-byte Ethernet header (Junos interfaces guide, "Media MTU").
JUNOS_MEDIA_OVERHEAD = 14
# SONiC pfcwd defaults (sonic-utilities pfcwd/main.py): detection 200 ms, restoration 200 ms. The
# watchdog polls twice per detection time, so a storm is seen within one detection window.
WD_DETECTION_MS = 200
WD_RESTORATION_MS = 200
# The egress queues SONiC's stock buffers put on egress_lossless_profile (sonic-buildimage
# files/build_templates/buffers_config.j2 BUFFER_QUEUE "<port>|3-4"; the others on egress_lossy_profile).
STOCK_LOSSLESS_QUEUES = frozenset({3, 4})
STOCK_EGRESS_PROFILE = "egress_lossless_profile"
# Its BUFFER_QUEUE keys, "<port>|0-2", "<port>|3-4", "<port>|5-6", and the profile of its lossy ones.
STOCK_QUEUE_RANGES = ((0, 2), (3, 4), (5, 6))
STOCK_LOSSY_PROFILE = "egress_lossy_profile"
# NX-OS system-defined policy-maps (default-in-policy, default-out-policy, default-8q-out-policy, default-nq-policy,
# default-8q-nq-policy...) are attached until another is: "The system-defined type queuing policy maps are attached to
# each interface unless you specifically attach a different policy map" (Nexus 9000 QoS guide, "Attaching and
# Detaching a QoS Policy Action"), and the guides attach their examples over them without a `no` line.
NXOS_SYSTEM_POLICY = "default-"
# The setting (model Incompatible.setting, the platform's word) in which a member's own MTU differs from its aggregate.
MEMBER_MTU = "mtu"


@record(frozen=True)
class PortFacts:
    """What the renderer must know about a port; None = not known (an error where it is needed)."""

    name: str
    speed_gbps: float | None
    cable_length_m: float | None
    mtu_bytes: int | None = None
    lanes: int | None = None  # SerDes lanes (SONiC PORT lanes): 8-lane Spectrum ports get twice the xon
    # A host NIC's receive buffer: the sum of its buffers' sizes (mlnx_qos) and its netdev max MTU (ip -d link).
    nic_buffer_total_bytes: int | None = None
    max_mtu_bytes: int | None = None
    source: Source | None = None  # where the port is defined (a --device config), for messages
    # SONiC: the device's own key of a PG or queue where it is not "<port>|<index>" (a range such as "Ethernet0|3-4",
    # as buffermgr.cpp writes BUFFER_PG), table -> index -> (key, whether the key's PGs are lossless now).
    keys: dict[str, dict[int, tuple[str, bool]]] = field(default_factory=dict, hash=False)
    # The policies attached on the port itself now, by attachment point (model Port.service_policies).
    attached: dict[str, str] = field(default_factory=dict, hash=False)
    # Sections no line of the port's own can change, and why (model Port.by_hand): render and fix refuse them there.
    by_hand: dict[str, str] = field(default_factory=dict, hash=False)
    by_hand_dscp: dict[int, tuple[int, str]] = field(default_factory=dict, hash=False)  # model Port.by_hand_dscp
    # The link aggregate the port is a member of (model Port.bundle: NX-OS port-channel, Junos aeN) where its platform
    # binds a member's QoS on the aggregate (Platform.qos_on_aggregate), and the policies attached on that aggregate
    # now (Device.bundle_policies).
    bundle: str | None = None
    bundle_attached: dict[str, str] = field(default_factory=dict, hash=False)
    # The settings a member writes a line of its own for (model Port.own_settings: NX-OS `mtu`, `priority-flow-control
    # mode`), which the switch compares with the aggregate's: a snippet gives the member the aggregate's value there.
    own: tuple[str, ...] = ()
    # A --device port's own maps: lossless priority -> the egress queues that carry it (model Port.priority_queues,
    # the lookup the daemon reads queue counters through: monitor.queue_maps_of); {} where its config does not say,
    # None without a --device. ECN goes on those queues wherever the snippet leaves the device's maps as they are.
    carries: dict[int, list[int]] | None = field(default=None, hash=False)
    # A --device port's egress queue -> its scheduler's rate, buffer and priority-level statements (model
    # Scheduler.rates: Junos `transmit-rate percent 60`), which the snippet's scheduler for that queue restates.
    rates: dict[int, list[str]] = field(default_factory=dict, hash=False)
    # A host port's DCB tool (model Port.dcb_tool): "dcb" where the host was read with iproute2 dcb (no mlnx_qos), so
    # its script is written in dcb(8) commands.
    dcb_tool: str | None = None
    # The port has mlx5's DCQCN switches in sysfs (ecn/roce_np, ecn/roce_rp; the mlx5 driver's only: NVIDIA MLNX_OFED
    # user manual, "Explicit Congestion Notification"): an mlnx_qos host, or a dcb host whose capture read them. A dcb
    # host without them (Intel ice, Broadcom bnxt_en) sets DCQCN with its vendor's tool, which its script names.
    mlx5_ecn: bool = True
    # A host port's kernel driver (model Port.nic_driver, `ethtool -i`): which vendor's DCQCN setting its script names.
    nic_driver: str | None = None
    # A --device port's PFC priorities now (model Port.pfc_enabled; None: unknown, or no --device). A buffer part that
    # must state PFC with its cable length (mlx5: `mlnx_qos --cable_len` without `--pfc` turns PFC off) restates these,
    # never the policy's: changing them is the pfc section's, a disruptive part.
    pfc_now: tuple[int, ...] | None = None


@record(frozen=True)
class SonicPg:
    """A SONiC lossless PG profile: the SKU's own row, or buffer_headroom_mellanox.lua's output on Spectrum."""

    name: str
    cable: str  # the CABLE_LENGTH value that selects it (the row's cable, which may be above the port's)
    xon_bytes: int
    xoff_bytes: int
    size_bytes: int
    threshold: int
    xon_offset_bytes: int | None
    basis: str


@record(frozen=True)
class SonicEgress:
    """A lossless egress buffer profile (``profile``) and the profiles and pools a patch binding queues restates,
    name -> CONFIG_DB fields as JSON: the device's own, or the SKU's stock ones (``stock``: the device's BUFFER_QUEUE
    is taken to be buffers_config.j2's, STOCK_QUEUE_RANGES, with lossy queues on egress_lossy_profile)."""

    profile: str
    profiles: dict[str, str] = field(hash=False)
    pools: dict[str, str] = field(hash=False)
    stock: bool = False
    lossy: str = STOCK_LOSSY_PROFILE  # the stock profile of the lossy queues (NVIDIA SKUs: q_lossy_profile)
    sources: dict[str, Source] = field(default_factory=dict, hash=False, compare=False)  # where each name was read


def sku_egress(sku: skutables.SkuTable | None) -> SonicEgress | None:
    """The SKU's stock egress profiles and pools (buffers_defaults, or on NVIDIA SKUs the buffers_defaults_objects.j2
    macros with the SKU's pool sizes), where its egress_lossless_profile is lossless beside queue 0 on the SKU's lossy
    queue profile (headroom.egress_lossless, BUF005's test: some SKUs cap it at a static_th below its pool)."""
    if sku is None or sku.egress is None:
        return None
    lossy = str(sku.egress.get("lossy") or STOCK_LOSSY_PROFILE)  # (a name: SkuTable.egress's one string)
    # (its fields read as the device's own CONFIG_DB is read: the same units, the same refusals)
    doc = json.dumps({"BUFFER_POOL": sku.egress["pools"], "BUFFER_PROFILE": sku.egress["profiles"]})
    device = sonic.parse([Input(f"{sku.source} {sku.sku}", doc)], sku.sku)
    if hr.egress_lossless(device, STOCK_EGRESS_PROFILE, {lossy: [BEST_EFFORT_TC]})[0] is not True:
        return None
    return SonicEgress(STOCK_EGRESS_PROFILE, {n: json.dumps(f) for n, f in sku.egress["profiles"].items()},
                       {n: json.dumps(f) for n, f in sku.egress["pools"].items()}, stock=True, lossy=lossy)


def sonic_egress(device: Device, policy: Policy) -> SonicEgress | None:
    """The egress profile the device's RoCE-facing ports bind their lossless queues to where it is lossless
    (headroom.egress_lossless), the most used one; else SONiC's stock egress_lossless_profile where the device
    defines it lossless (its lossy queues aside); None when neither."""
    used: dict[str, int] = {}
    stock = None
    for port in Context(Fabric(), policy).roce_ports(device):
        lossless = lossless_queues(policy, port)
        lossy = lossy_egress_profiles(port, lossless)
        for index in lossless:
            queue = port.queues.get(index)
            if queue is not None and queue.buffer_profile and hr.egress_lossless(device, queue.buffer_profile,
                                                                                   lossy)[0]:
                used[queue.buffer_profile] = used.get(queue.buffer_profile, 0) + 1
        lossy.pop(STOCK_EGRESS_PROFILE, None)
        stock = stock or hr.egress_lossless(device, STOCK_EGRESS_PROFILE, lossy)[0]
    if not used and not stock:
        return None
    used = used or {STOCK_EGRESS_PROFILE: 1}
    name = max(sorted(used), key=used.__getitem__)
    profile_, pool = device.buffer_profiles[name], device.buffer_pools[device.buffer_profiles[name].pool or ""]
    fields = {"pool": pool.name, "size": profile_.size_bytes, "static_th": profile_.static_threshold_bytes,
              "dynamic_th": profile_.dynamic_threshold}
    pool_fields = {"type": pool.direction, "mode": pool.mode, "size": pool.size_bytes}
    sources = {n: src for n, src in ((name, profile_.source), (pool.name, pool.source)) if src is not None}
    return SonicEgress(name, {name: _json_fields(fields)}, {pool.name: _json_fields(pool_fields)}, sources=sources)


def _json_fields(fields: dict) -> str:
    """CONFIG_DB fields (every value a string) of the known ones, as one JSON object."""
    return json.dumps({k: str(v) for k, v in fields.items() if v is not None})


@record(frozen=True)
class ClassUse:
    """A traffic class as a snippet names it where the device names its classes (Profile.class_use)."""

    name: str
    queue: int
    new: bool  # not in the config: the snippet writes its queue
    needs_lossless: bool  # a lossless priority's class, not lossless yet: the snippet writes no-loss, pfc-priority


def pick_class(classes: Iterable[ForwardingClass], tc: int, lossless: Iterable[int]) -> ForwardingClass | None:
    """The device's class a snippet names for traffic class ``tc`` (``lossless``: the priorities the snippet makes
    lossless, each the TC of its own number), so the classifier sends RoCE to the class the config already pauses:
    for a lossless ``tc``, the first no-loss class with `pfc-priority tc` (one on queue ``tc`` first, else on the queue
    it has); else, or for another TC, the class the config puts on queue ``tc`` (the first lossy one for a lossy TC).
    None: the config has no class there, and the snippet makes one on queue ``tc``. InputError where any class a
    snippet could name there would leave one queue with lossless and lossy classes: Junos refuses a queue whose
    classes differ in their packet drop attribute (Junos CoS reference for the QFX Series, `queue-num`: "all of the
    forwarding classes mapped to a queue must be lossless", or all lossy)."""
    classes, lossless = list(classes), set(lossless)
    if tc in lossless:
        own = [c for c in classes if c.no_loss and c.pfc_priority == tc]
        if own:
            return min(own, key=lambda c: c.queue != tc)  # (min keeps the first defined among equals)
    on_queue = [c for c in classes if c.queue == tc]
    if not on_queue:
        return None
    names = ", ".join(c.name for c in on_queue)
    if tc not in lossless:
        lossy = [c for c in on_queue if not c.no_loss]
        if len(lossy) == len(on_queue):
            return lossy[0]
        raise InputError(f"the config puts lossless forwarding class(es) on queue {tc} ({names}), where the policy "
                         f"wants traffic class {tc} lossy, and Junos takes no lossy class beside a lossless one on a "
                         f"queue: map those classes to another queue, or the policy's DSCPs by hand",
                         **_class_where(on_queue[0]))
    taken = [c for c in on_queue if c.no_loss and c.pfc_priority is not None and c.pfc_priority in lossless]
    if len(on_queue) > 1 or taken:
        raise InputError(f"no no-loss forwarding class has pfc-priority {tc}, and queue {tc} carries {names}"
                         + (f" (lossless for priority {taken[0].pfc_priority})" if taken else "") +
                         f": the snippet cannot make one class on queue {tc} lossless for priority {tc} without "
                         "leaving the queue's classes with different drop attributes (Junos refuses that); give one "
                         f"class `no-loss` and `pfc-priority {tc}` by hand", **_class_where(on_queue[0]))
    return on_queue[0]


def _class_where(fc: ForwardingClass) -> dict:
    return {"file": fc.source.file, "line": fc.source.line} if fc.source is not None and fc.source.file else {}


@record(frozen=True)
class PauseBuffer:
    """An explicit per-class pause buffer (NX-OS `pause buffer-size B pause-threshold X resume-threshold Y`)."""

    size_bytes: int
    pause_bytes: int
    resume_bytes: int


@record(frozen=True)
class PortProfile:
    name: str
    # None only in a profile made with all_facts=False (a fix), where the sections it renders do not need them.
    speed_gbps: float | None
    speed_mbps: int | None
    cable_length_m: float | None
    mtu_bytes: int
    wred_profile: str | None
    kmin_bytes: int | None
    kmax_bytes: int | None
    # The Kmin the policy accepts, bytes (ecn.min_threshold_bytes and kmin_min_mtus): where a platform writes Kmin in
    # coarser units (Junos whole-percent fill levels), the rounding that stays inside.
    kmin_bounds: tuple[float, float] = (0, math.inf)
    # SONiC: the lossless PG profile (None: the SKU's headroom is not known; ``sonic_note`` says why).
    sonic: SonicPg | None = None
    sonic_note: str | None = None
    # NX-OS: the pause buffer a cable longer than EXPLICIT_HEADROOM_ABOVE_M needs (None: not needed or unknown).
    pause_buffer: PauseBuffer | None = None
    # Host NIC: the mlx5 driver's xoff, and the 8 receive buffer sizes that give each lossless buffer room for it
    # (None: the NIC's buffer total or max MTU is not known, so the buffers are left to the driver).
    nic_xoff_bytes: int | None = None
    nic_buffer_sizes: tuple[int, ...] | None = None
    nic_buffer_note: str | None = None
    lanes: int | None = None
    keys: dict[str, dict[int, tuple[str, bool]]] = field(default_factory=dict, hash=False)  # PortFacts.keys
    attached: dict[str, str] = field(default_factory=dict, hash=False)  # PortFacts.attached
    bundle: str | None = None  # PortFacts.bundle
    bundle_attached: dict[str, str] = field(default_factory=dict, hash=False)  # PortFacts.bundle_attached
    own: tuple[str, ...] = ()  # PortFacts.own
    carries: dict[int, list[int]] | None = field(default=None, hash=False)  # PortFacts.carries
    rates: dict[int, list[str]] = field(default_factory=dict, hash=False)  # PortFacts.rates
    source: Source | None = field(default=None, compare=False)  # PortFacts.source: where an error about it points
    dcb_tool: str | None = None  # PortFacts.dcb_tool
    mlx5_ecn: bool = True  # PortFacts.mlx5_ecn
    nic_driver: str | None = None  # PortFacts.nic_driver
    pfc_now: tuple[int, ...] | None = None  # PortFacts.pfc_now
    by_hand: dict[str, str] = field(default_factory=dict, hash=False)  # PortFacts.by_hand
    by_hand_dscp: dict[int, tuple[int, str]] = field(default_factory=dict, hash=False)  # PortFacts.by_hand_dscp

    @property
    def xoff_bytes(self) -> int | None:
        return self.sonic.xoff_bytes if self.sonic else None

    @property
    def buffer_profile(self) -> str | None:
        return self.sonic.name if self.sonic else None

    @property
    def cable_length_ceil_m(self) -> int | None:
        """Cable length in whole metres, rounded up (more headroom, never less), for platforms that take no fraction."""
        return math.ceil(self.cable_length_m) if self.cable_length_m is not None else None

    @property
    def long_cable_m(self) -> int | None:
        """The cable length in whole metres when it is above EXPLICIT_HEADROOM_ABOVE_M (the switch's default)."""
        ceil = self.cable_length_ceil_m
        return ceil if ceil is not None and ceil > EXPLICIT_HEADROOM_ABOVE_M else None

    def scheduler_lines(self, queue: int, strict: bool, temporal: bool) -> list[str]:
        """A Junos snippet's scheduler for ``queue``: its priority (`strict-high` where ``strict``, else the device
        scheduler's level of the guaranteed-rate region, else `low`), then the device scheduler's rate and buffer
        statements (PortFacts.rates), less a `buffer-size` where the snippet writes its own (``temporal``: the ECN
        queue's `buffer-size temporal`). Before session 36 they were dropped: the queue lost its guarantee."""
        kept = self.rates.get(queue, [])
        level = next((r for r in kept if r.startswith("priority ")), "priority low")
        return ["priority strict-high" if strict else level] + [
            r for r in kept if not r.startswith("priority ") and not (temporal and r.startswith("buffer-size"))]

    @property
    def rates_tag(self) -> str:
        """"" where the port keeps no scheduler statements, else "-" and 8 hex digits that change with them: a
        scheduler-map the snippet names for the ECN profile alone would give every port one port's rates."""
        return f"-{zlib.crc32(json.dumps(self.rates, sort_keys=True).encode()):08X}" if self.rates else ""

    @property
    def media_mtu(self) -> int:
        """Junos `mtu`: the IP MTU plus the Ethernet header."""
        return self.mtu_bytes + JUNOS_MEDIA_OVERHEAD

    @property
    def ecn_fill(self) -> tuple[int, int, int] | None:
        """Kmin and Kmax as fill levels of a temporal queue buffer (Junos): (buffer in whole microseconds at line
        rate, Kmin %, Kmax %). The buffer is the whole microseconds that put Kmax at ECN_KMAX_FILL_PCT, rounded
        down, and Kmin the next whole percent up, so the switch marks from slightly above Kmin to slightly below
        Kmax; thresholds that scale with speed give the same levels at every speed. None without thresholds."""
        if self.kmin_bytes is None or self.kmax_bytes is None or not self.speed_gbps:
            return None
        buffer_us = max(int(bytes_to_us(self.kmax_bytes * 100 / ECN_KMAX_FILL_PCT, self.speed_gbps)), 1)
        exact = bytes_to_us(self.kmin_bytes * 100, self.speed_gbps) / buffer_us
        fits = [pct for pct in (math.ceil(exact), math.floor(exact))
                if 1 <= pct < ECN_KMAX_FILL_PCT and self._kmin_fits(buffer_us, pct)]
        kmin_pct = fits[0] if fits else math.ceil(exact)  # (none: render._check_facts refuses the port)
        return buffer_us, min(max(kmin_pct, 1), ECN_KMAX_FILL_PCT - 1), ECN_KMAX_FILL_PCT

    @property
    def ecn_fill_fits(self) -> bool:
        """Whether ecn_fill's Kmin, read back in bytes, lies in kmin_bounds."""
        fill = self.ecn_fill
        return fill is None or self._kmin_fits(fill[0], fill[1])

    def _kmin_fits(self, buffer_us: int, pct: int) -> bool:
        """Whether Kmin at ``pct`` % of a ``buffer_us`` us queue buffer at line rate, in bytes, lies in kmin_bounds."""
        assert self.speed_gbps  # (ecn_fill: None without a speed)
        return self.kmin_bounds[0] <= pct * buffer_us * self.speed_gbps * 1e3 / 8 / 100 <= self.kmin_bounds[1]


class Sectioned:
    """A template's parameters that know which sections to lay out (``sections``, all by default)."""

    sections: frozenset[str]

    @property
    def full(self) -> bool:
        """A whole profile (render), as opposed to the few sections a fix lays out on some ports."""
        return self.sections == SECTIONS

    def wants(self, section: str) -> bool:
        """Whether the template should lay out ``section`` (all of them for a full profile)."""
        if section not in SECTIONS:
            raise InputError(f"template asks for unknown section {quoted(section)}")
        return section in self.sections


def _by_tc(codes: dict[int, int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for code, tc in codes.items():
        out.setdefault(tc, []).append(code)
    return out


@record(frozen=True)
class Profile(Sectioned):
    """Everything a template needs: the policy's maps plus one PortProfile per port."""

    policy: str
    lossless: list[int]
    trust: str | None
    dscp_to_tc: dict[int, int]
    tc_to_pg: dict[int, int]
    strict_queues: list[int]
    ecn: bool
    mark_probability_pct: int
    pool_bytes: int | None
    wd_action: str
    wd_detection_ms: int
    wd_restoration_ms: int
    wd_poll_ms: int
    ports: list[PortProfile]
    # The policy's detection and restoration ranges (ms), within which render._fit_limits may move the timers to a
    # platform's granularity (whole polls, EOS's 10 ms).
    wd_detection_range: tuple[float, float] = (0, math.inf)
    wd_restoration_range: tuple[float, float] = (0, math.inf)
    # The lossless priorities none of the policy's DSCPs reaches (profile(): fewer DSCPs than lossless priorities).
    unreached: tuple[int, ...] = ()
    # The policy's watchdog actions (None: any), among which render._fit_limits picks one the platform can set.
    wd_actions: tuple[str, ...] | None = None
    sections: frozenset[str] = SECTIONS
    # Priorities with PFC on and whether the PFC watchdog is on. A full profile sets exactly the
    # lossless priorities and the watchdog; tests render other values to build broken configs.
    pfc: list[int] | None = None
    watchdog: bool = True
    # Priorities a partial render must turn PFC off for explicitly (on now at the device, not lossless);
    # a full render states the whole PFC set and leaves it empty.
    pfc_off: tuple[int, ...] = ()
    # Queues a partial render must make weighted explicitly (strict now at the device, not the policy's CNP queue:
    # an old CNP queue left strict above a newly lossless one starves it, SCH001); a full render leaves it empty.
    strict_off: tuple[int, ...] = ()
    # Queues the device's config makes weighted (a written scheduler line) that the policy does not: EOS serves every
    # tx-queue up to the highest `no priority` one round-robin, so an old lossless queue's line above the policy's
    # CNP queue keeps that strict (MAP002); a full render leaves it empty.
    weighted_off: tuple[int, ...] = ()
    # PFC priority -> queue a received pause stops (SONiC MAP_PFC_PRIORITY_TO_QUEUE); identity by default.
    pfc_to_queue: dict[int, int] | None = None
    # What host NICs trust (policy nic.trust), which may differ from the switches' lossless.trust.
    nic_trust: str | None = None
    # PCP (802.1p) -> TC where the policy trusts PCP: each lossless priority and the CNP priority to the TC of its own
    # number, every other PCP to BEST_EFFORT_TC, as dscp_to_tc does for DSCPs.
    pcp_to_tc: dict[int, int] = field(default_factory=dict)
    # The DSCP and priority a NIC marks its CNPs with (policy cnp); None when the policy has no CNP.
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    # The DSCP RDMA-CM connections send by default (a host's RoCE TOS): the lowest one mapped to a lossless TC.
    roce_dscp: int | None = None
    # The hardware model (EOS/NX-OS/Junos model, SONiC DEVICE_METADATA platform) and an explicit family; the
    # renderer resolves the family (render.families) when the sections differ between families.
    model: str | None = None
    family: str | None = None
    # Where the model was read (a --device's Device.hardware_source): an error about the model names that line.
    model_source: Source | None = field(default=None, compare=False)
    # SONiC: the SKU, its buffer pool (mode, shared headroom pool) and whether its ASIC takes a PFC priority ->
    # PG map (None: the ASIC is not known).
    sku: str | None = None
    sku_note: str | None = None
    # Where the SKU was read (a --device's DEVICE_METADATA|localhost hwsku): an error about it names that line.
    sku_source: Source | None = field(default=None, compare=False)
    pool_mode: str = "dynamic"
    pool_xoff_bytes: int | None = None
    pfc_to_pg_map: bool | None = None
    # ECN004's load: lossless PGs congested at once that the ECN-before-PFC check assumed, and why.
    assumed_congested: int = 1
    # SONiC: the device's lossless egress buffer profile the lossless queues are bound to (BUFFER_QUEUE); None: the
    # device's is not known, and the stock one (STOCK_LOSSLESS_QUEUES) is left as it is.
    egress: SonicEgress | None = None
    # The policies the device attaches switch-wide now (model Device.service_policies: NX-OS `system qos`).
    attached: dict[str, str] | None = None
    # NVUE: the device's traffic pools (model Device.traffic_pools), which decide whether the snippet may add its own.
    traffic_pools: dict[str, int | None] | None = None
    # The device's switch-wide lossy mode (model Device.lossy_mode: NVUE `nv set qos roce mode lossy`), which a
    # snippet enabling PFC changes to lossless.
    lossy_mode: str | None = None
    # The traffic classes the device's config names (model Device.forwarding_classes: Junos forwarding classes), which
    # the snippet names where one fits (class_use) instead of making its own beside them.
    classes: tuple[ForwardingClass, ...] = ()
    # The classifiers a --device defines (model Device.defined_classifiers: "TYPE NAME" -> the configuration group it
    # takes statements of one from, "" none), which the snippet deletes before rebuilding one; None: no --device, so
    # what the switch defines and binds is not known and the snippet deletes nothing (each delete a comment instead).
    defined: dict[str, str] | None = None
    # The platform the profile is rendered for (render() sets it): where the snippet places ECN (ecn_queues) depends on
    # which maps the platform's template writes.
    platform: str | None = None

    def __post_init__(self):
        if self.pfc is None:
            object.__setattr__(self, "pfc", list(self.lossless))
        if self.pfc_to_queue is None:
            object.__setattr__(self, "pfc_to_queue", {q: q for q in range(8)})

    def junos_classifier(self) -> tuple[str, str]:
        """The type and name of the classifier a Junos snippet rebuilds and binds: an 802.1p one where the policy
        trusts PCP (3-bit code points), else a DSCP one (6-bit)."""
        return JUNOS_CLASSIFIERS["pcp" if self.trust == "pcp" else "dscp"]

    def class_use(self, tc: int) -> ClassUse:
        """How the snippet names traffic class ``tc`` (Junos): the device's own class where one fits (pick_class),
        else one of its own on queue ``tc`` (best-effort for TC 0, the QFX default class of queue 0; else tcN; roce-tcN
        where the config has a class of that name on another queue, which a `queue-num` line would move)."""
        found = pick_class(self.classes, tc, self.pfc or ())
        if found is None:
            name = "best-effort" if tc == BEST_EFFORT_TC else f"tc{tc}"
            name = f"roce-tc{tc}" if any(c.name == name for c in self.classes) else name
            return ClassUse(name, tc, True, tc in (self.pfc or ()))
        lossless = tc in (self.pfc or ()) and not (found.no_loss and found.pfc_priority == tc)
        writable(found.name, "forwarding class name", "rename the class (and the classifiers and maps that name it)",
                 found.source)
        return ClassUse(found.name, found.queue, False, lossless)

    def pools_kept(self) -> str | None:
        """NVUE: why the snippet leaves the switch's traffic pools as they are, instead of giving default-lossless
        and default-lossy 50 % each (QoS guide, "Flow Control Buffers"); None: it writes them."""
        if self.lossy_mode is not None and self.pfc:
            # RoCE guide, default RoCE configuration: lossless mode allocates switch priority 3 to its own RoCE lossless
            # pool (roce-lossless), the switch's one lossless pool.
            return ("traffic pools left as they are: the RoCE mode changes to lossless, which makes its own lossless "
                    "pool (roce-lossless), and a switch has one lossless pool")
        pools = self.traffic_pools or {}
        # QoS guide, "Traffic Pools": "You can only have a single lossless pool configured on the switch at a time".
        lossless = next((name for name in NVUE_LOSSLESS_POOLS if name in pools), None)
        if lossless is not None:
            why = " (nv set qos roce makes it)" if lossless == "roce-lossless" else ""
            return (f"traffic pools left as they are: the switch's lossless pool is {lossless}{why}, and a switch "
                    "has one lossless pool")
        # QoS guide, "Flow Control Buffers": "The total memory allocation across pools must not exceed 100%".
        held = {name: pct for name, pct in pools.items() if name != "default-lossy" and pct}
        if held:
            shares = ", ".join(f"{name} {pct} %" for name, pct in sorted(held.items()))
            return (f"traffic pools left as they are: {shares} already taken, so default-lossless 50 % and "
                    "default-lossy 50 % would pass 100 %; give default-lossless a share that keeps the pools' sum "
                    "at most 100 % (nv set qos traffic-pool default-lossless memory-percent N)")
        return None

    @property
    def lossless_queues(self) -> list[int]:
        """The egress queues the lossless priorities' pauses stop (the queue each leaves by: the rendered maps)."""
        pfc_to_queue = self.pfc_to_queue or {}  # (set in __post_init__)
        return sorted({pfc_to_queue.get(prio, prio) for prio in self.lossless})

    @property
    def roce_tos(self) -> int | None:
        """The TOS byte of roce_dscp: DSCP << 2, with ECT(0) when ECN is on."""
        return None if self.roce_dscp is None else self.roce_dscp << 2 | (ECT0 if self.ecn else 0)

    def queue_of(self, tc: int) -> int:
        """The queue traffic class ``tc`` leaves by: a lossless priority's is the queue of the device's class that
        pauses it (pfc_to_queue), else ``tc``'s own. NX-OS: also the qos-group the snippet classifies ``tc`` into (a
        qos-group leaves by the queue of its number), so RoCE goes to the group the config's network-qos makes
        no-drop."""
        return (self.pfc_to_queue or {}).get(tc, tc) if tc in self.lossless else tc

    @property
    def bandwidth_pct(self) -> dict[int, int]:
        """Each weighted (not strict) queue's share, in percent, of the bandwidth strict queues leave: half to
        the lossless queues, split evenly, half to queue 0 (best effort), none to the others."""
        shared = [q for q in self.lossless_queues if q not in self.strict_queues]
        return {q: 50 // len(shared) if q in shared else 50 if q == 0 else 0
                for q in range(8) if q not in self.strict_queues}

    def traffic_classes(self) -> list[int]:
        """The TCs the profile uses: those some DSCP (PCP where the policy trusts PCP) maps to, the strict and the
        lossless ones."""
        return sorted({*self.classified().values(), *self.strict_queues, *self.lossless})

    def queues_used(self) -> list[int]:
        """The queues the profile's traffic classes leave by (queue_of)."""
        return sorted({self.queue_of(tc) for tc in self.traffic_classes()})

    @property
    def wd_word(self) -> str:
        """The word the platform's template writes for wd_action (RenderLimits.wd_actions)."""
        words = PLATFORMS[self.platform].limits.wd_actions if self.platform is not None else None
        return (words or {}).get(self.wd_action, self.wd_action)

    @property
    def wd_detection_polls(self) -> int:
        """Watchdog detection time in polling intervals, as platforms that count polls take it."""
        return self.wd_detection_ms // self.wd_poll_ms

    @property
    def wd_restoration_polls(self) -> int:
        return self.wd_restoration_ms // self.wd_poll_ms

    qfx5000_fill: tuple[int, int] = QFX5000_ECN_FILL_PCT

    @property
    def threshold_field(self) -> str:
        """buffermgr.cpp: a lossless profile's threshold field is the pool's mode + "_th"."""
        return f"{self.pool_mode}_th"

    def sonic_entries(self, port: PortProfile, table: str, fields: list[tuple[int, str]]) -> list[tuple[str, str]]:
        """(key, fields) of ``table`` (BUFFER_PG, QUEUE, BUFFER_QUEUE) for the port's (index, fields): under the
        device's own key where it keys an index with a range and the whole key takes these fields (once per key: a
        "<port>|3" beside the device's "<port>|3-4" would leave two entries for one PG, which SONiC applies in no
        defined order); else under "<port>|<index>", and the caller (fix.apply.sonic_snippet) turns the snippet
        into a patch that splits the device's key first. A range key may be written whole where its other indexes
        are lossless now (they stay lossless), but never where it would make a lossy PG or queue lossless or names
        other ports."""
        own = port.keys.get(table, {})
        written = dict(fields)
        out: dict[str, str] = {}
        for index, value in fields:
            key, lossless_now = own.get(index, (f"{port.name}|{index}", True))
            names, _, span = key.rpartition("|")
            low, _, high = span.partition("-")
            covered = set(range(int(low), int(high or low) + 1)) if is_small_int(low + high) else {index}
            others = {i for i in covered if written.get(i) != value}
            # A VOQ chassis keys this line card's own system port "<host>|<asic>|<port>|<n>" (the parser gave the
            # port only its own ones): one port; "<port>,<port>|<n>" names several.
            prefix, _, names = names.rpartition("|")
            if names != port.name or others - (set() if table not in _LOSSLESS_KEYED or not lossless_now else
                                               covered - set(written)):
                key = f"{prefix}|{port.name}|{index}" if prefix else f"{port.name}|{index}"
            out.setdefault(key, value)
        return list(out.items())

    def stock_egress_entries(self, port: PortProfile) -> list[tuple[str, str]]:
        """BUFFER_QUEUE (key, JSON value) putting each lossless queue outside 3-4 on the stock egress_lossless_profile,
        when the device's BUFFER_QUEUE is the stock one: the stock key covering it ("<port>|0-2") is deleted (null,
        as `config load` deletes) and its queues written again in runs, the lossy ones on the stock lossy profile as
        before. A "<port>|2" beside "<port>|0-2" would leave two entries for queue 2, applied in no defined order."""
        lossless = set(self.lossless_queues)
        lossy = self.egress.lossy if self.egress else STOCK_LOSSY_PROFILE
        out = []
        for low, high in STOCK_QUEUE_RANGES:
            span = range(low, high + 1)
            if not lossless.intersection(span) - STOCK_LOSSLESS_QUEUES:
                continue
            runs = []
            for kept, run in itertools.groupby(span, key=lambda q: q in lossless):
                first, *rest = run
                key = f"{port.name}|{first}" + (f"-{rest[-1]}" if rest else "")
                runs.append((key, json.dumps({"profile": STOCK_EGRESS_PROFILE if kept else lossy})))
            whole = f"{port.name}|{low}-{high}"
            # (a range lossless as a whole is written again under its own key: a null beside it would name it twice)
            out += runs if any(key == whole for key, _ in runs) else [(whole, "null"), *runs]
        return out

    def detach(self, point: str, new: str, port: PortProfile | None = None, bundle: bool = False) -> str | None:
        """The policy to detach at ``point`` ("qos input", "network-qos"...; of ``port``, or with ``bundle`` of the
        port-channel it is a member of, else switch-wide) before ``new`` is attached there: the one attached now,
        where it is another; None where nothing is, or where the attached one is system-defined
        (NXOS_SYSTEM_POLICY), which a new attachment replaces."""
        attached = (port.bundle_attached if bundle else port.attached) if port is not None else self.attached
        old = (attached or {}).get(point)
        return old if old is not None and old != new and not old.startswith(NXOS_SYSTEM_POLICY) else None

    def bundles(self) -> list[PortProfile]:
        """One member of each link aggregate the ports are members of (PortProfile.bundle), in port order: a policy is
        attached on the aggregate, where it takes effect for every member (render.profile made the members' numbers
        the same)."""
        seen: dict[str, PortProfile] = {}
        for port in self.ports:
            if port.bundle is not None:
                seen.setdefault(port.bundle, port)
        return list(seen.values())

    def classified(self) -> dict[int, int]:
        """The map the switch classifies by: PCP -> TC where the policy trusts PCP, else DSCP -> TC."""
        return self.pcp_to_tc if self.trust == "pcp" else self.dscp_to_tc

    def dscps_by_tc(self) -> dict[int, list[int]]:
        return _by_tc(self.dscp_to_tc)

    def codes_by_tc(self) -> dict[int, list[int]]:
        """TC -> the code points (PCPs where the policy trusts PCP, else DSCPs) classified into it."""
        return _by_tc(self.classified())

    def map_tag(self, tc: int | None = None) -> str:
        """8 hex digits that change with the classification map (codes_by_tc; or with traffic class ``tc``'s code
        points): a classifier named by them is new when what it matches changes. NX-OS `match` lines add to a
        class-map, so re-entering an old one would keep its old matches beside the new ones."""
        by_tc = self.codes_by_tc()
        if tc is not None:
            return f"{zlib.crc32(json.dumps(sorted(by_tc[tc])).encode()):08X}"
        # (a TC classified into another qos-group, queue_of, changes the name; the names of the others stay)
        moved = {t: self.queue_of(t) for t in sorted(by_tc) if self.queue_of(t) != t}
        return f"{zlib.crc32(json.dumps([by_tc, moved] if moved else by_tc, sort_keys=True).encode()):08X}"

    def ecn_queues(self, port: PortProfile) -> list[int]:
        """The egress queues ``port``'s ECN settings go on: those carrying the lossless priorities, every template's one
        answer. By the snippet's own placement (lossless_queues: queue_of, the device's class or qos-group that pauses
        the priority) where it writes it (OWN_QUEUE_MAPS' sections, CLASS_QUEUE_MAPS always) or where no --device gave
        the port's maps; else by the device's (PortFacts.carries: with TC 3 on queue 4, queue 4); InputError
        naming the port where they do not place a lossless priority (never queue n for priority n by guess)."""
        platform = self.platform
        if platform is None:  # (a bug: the answer depends on the platform's template)
            raise ValueError("Profile.ecn_queues: no platform; render() sets it")
        if (OWN_QUEUE_MAPS.get(platform, frozenset()) & self.sections or platform in CLASS_QUEUE_MAPS
                or port.carries is None):
            return self.lossless_queues
        return carried_queues([port], self.lossless)[port.name]

    def writes_ecn(self, platform: str) -> bool:
        """Whether the snippet for ``platform`` writes ECN: the policy requires it and the ecn section is wanted, or
        the scheduler section where the platform's ECN is part of its scheduler (Platform.ecn_in_scheduler: NX-OS
        queuing policy, Junos scheduler). What the refusals, the notes and the ECN profile names all ask."""
        return self.ecn and (self.wants("ecn") or (PLATFORMS[platform].ecn_in_scheduler and self.wants("scheduler")))

    def _in_place_record(self, platform: str | None) -> InPlace | None:
        platform = platform or self.platform
        return PLATFORMS[platform].in_place if platform is not None else None

    def writes_whole(self, platform: str | None = None) -> bool:
        """Whether a part of this profile binds a profile of its own where the platform writes its in-place section
        (Platform.in_place: a Junos PFC or trust part's congestion-notification-profile, an NVUE PFC part's PFC
        profile), written whole."""
        rec = self._in_place_record(platform)
        return (rec is not None and any(self.wants(s) for s in rec.whole)
                and (bool(self.pfc) or not rec.whole_needs_pfc))

    def in_place(self, platform: str | None = None) -> InPlace | None:
        """The platform's section this profile writes into the profile each port is bound to now, which every other
        port bound to it takes too (Platform.in_place); None where it writes no such section."""
        rec = self._in_place_record(platform)
        return rec if rec is not None and self.wants(rec.section) and not self.writes_whole(platform) else None

    def ecn_profile(self, port: PortProfile) -> str:
        """The name of the ECN profile ``port`` is bound to (EOS qos profile, NX-OS queuing policy, NVUE
        congestion-control profile): by its thresholds, and by the queues they go on (ecn_queues) where those are not
        the snippet's own lossless queues, so ports whose --device maps carry a lossless priority on other queues get
        a profile of their own, never the first port's queues."""
        name = port.wred_profile or "ROCE_LOSSLESS"
        # (no platform: ecn_queues refuses, a bug)
        if not self.ecn or (self.platform is not None and not self.writes_ecn(self.platform)):
            return name
        queues = self.ecn_queues(port)
        return name if queues == self.lossless_queues else f"{name}_Q{''.join(map(str, queues))}"

    def ports_by_ecn(self) -> dict[str, list[PortProfile]]:
        """Ports that share an ECN profile (ecn_profile), keyed by its name."""
        out: dict[str, list[PortProfile]] = {}
        for port in self.ports:
            out.setdefault(self.ecn_profile(port), []).append(port)
        return out


def restrict(prof: Sectioned, sections: Iterable[str], ports: Iterable[str] | None = None) -> Sectioned:
    """``prof`` reduced to ``sections`` on ``ports`` (all when None; a subnet manager's profile has no ports):
    the numbers stay the full profile's."""
    sections = frozenset(sections)
    if not sections or not sections <= SECTIONS:
        raise InputError(f"unknown or no profile sections: {sorted(sections - SECTIONS) or 'none'}")
    if ports is None or not isinstance(prof, Profile):
        return replace(prof, sections=sections)
    wanted = set(ports)  # (once: a set per port was quadratic, 5 s of a 16,000-port fix)
    return replace(prof, sections=sections, ports=[p for p in prof.ports if p.name in wanted])


# Tables whose range key may be written whole when its other indexes are lossless now (they stay lossless).
_LOSSLESS_KEYED = frozenset({"BUFFER_PG", "BUFFER_QUEUE"})
# (ASCII digits: \d also takes the digits of other scripts, which float() reads: "\u0663" was 3; no config writes them)
_SPEED = lazy(r"([0-9]{1,7}(?:\.[0-9]{1,3})?)\s*(?:g|gb/s|gbps|gbe)?", re.IGNORECASE)


class PolicyLimit(InputError):
    """The policy asks what the platform cannot do, whatever the device's facts (a strict CNP queue below a round-robin
    one on EOS, PFC by DSCP with no DSCP for a lossless priority on Junos, a Kmin range no whole-percent Junos fill
    level lands in, watchdog timers or actions outside the platform's): a fix whose follow-up render meets one
    refuses, rather than print a fix that brings the problem."""


_SHOWN = 80  # characters of a refused name or --ports an error quotes


def parse_port_spec(spec: str) -> PortFacts:
    """NAME:SPEED:CABLE[:MTU[:LANES]], e.g. Ethernet0:400G:5m:9100:8 (speed in Gb/s; cable length with unit or
    metres; LANES the port's SerDes lanes, which SONiC Spectrum headroom depends on)."""
    parts = spec.split(":")
    given = f"--ports {quoted(spec, _SHOWN)}"
    if len(parts) not in (3, 4, 5) or not parts[0]:
        raise InputError(f"{given}: expected NAME:SPEED:CABLE[:MTU[:LANES]], e.g. Ethernet0:100G:5m:9100")
    name, speed_text, cable_text = parts[:3]
    speed = _SPEED.fullmatch(speed_text.strip())
    if speed is None or not 0 < float(speed[1]) <= _MAX_SPEED_GBPS:
        raise InputError(f"{given}: speed {quoted(speed_text, 20)} is not a link speed in Gb/s above 0 and at most "
                         f"{_MAX_SPEED_GBPS} G (e.g. 100G, 400G)")
    try:
        cable = length_m(cable_text)
    except ValueError:
        cable = math.nan
    if not (math.isfinite(cable) and 0 < cable <= MAX_CABLE_M):  # also refuses nan and inf
        raise InputError(f"{given}: cable length {quoted(cable_text, 20)} is not a length above 0 and at most "
                         f"{MAX_CABLE_M} m (e.g. 3m, 300m, 1km)")
    mtu = lanes = None
    if len(parts) >= 4 and parts[3]:
        if not is_small_int(parts[3].strip(), 5) or not _MIN_MTU <= int(parts[3]) <= _MAX_MTU:
            raise InputError(f"{given}: MTU {quoted(parts[3], 20)} is not a whole number of bytes from {_MIN_MTU} to "
                             f"{_MAX_MTU} (e.g. 9100)")
        mtu = int(parts[3])
    if len(parts) == 5:
        if not is_small_int(parts[4].strip(), 2) or not 1 <= int(parts[4]) <= 16:
            raise InputError(f"{given}: lanes {quoted(parts[4], 20)} is not a whole number from 1 to 16")
        lanes = int(parts[4])
    return PortFacts(name, float(speed[1]), cable, mtu, lanes)


# Sanity bounds of a --ports spec. MTU: IPv4's minimum datagram every host must take (RFC 791, 68) to
# the 16-bit IP total length (65535). Speed: ten times today's fastest port (800G). Cable: units.MAX_CABLE_M, the
# bound a policy and a device's own cable lengths take (one ceiling: a render refused what a lint read).
_MIN_MTU, _MAX_MTU = 68, 65535
_MAX_SPEED_GBPS = 10000


def _num_or_none(value: float | None) -> str:
    return "none" if value is None else f"{value:g}"


def _clamp(value: float, rng: Range, floor: float = 0) -> int:
    """``value`` moved into the policy's range (and not below ``floor``), so the rendered number lints clean: a whole
    number, a low bound that is none (``floor``: kmin_min_mtus x MTU, 45.7 x 4096 B) rounded up (truncated, Kmin
    187187 B was written below 187187.2 B: ECN002 of render's own snippet)."""
    low = math.ceil(max(rng.min or 0, floor))
    high = rng.max if rng.max is not None else math.inf
    return int(min(max(value, low), high))


def _mark_pct(pol: Policy) -> int:
    """The ECN mark probability the snippets write, a whole percentage inside the policy's range (ECN_MARK_PCT moved
    into it). PolicyLimit where the range holds none: truncating 0.5 % wrote `probability 0`, which marks nothing,
    lies outside the policy and which NVUE and EOS reject."""
    rng = pol.ecn.mark_probability_pct
    pct = _clamp(ECN_MARK_PCT, rng)
    if pol.ecn.required and not rng.contains(pct):
        raise PolicyLimit(f"policy {pol.name}: ecn.mark_probability_pct {rng.describe('%')} holds no whole percentage, "
                          "and the switches' ECN mark probability is one; widen the range to hold one")
    return pct


def _check_headroom_fits(port: PortProfile, pg: SonicPg, pool_bytes: int | None, shared: int | None,
                         where: dict) -> None:
    """Refuse a lossless PG profile whose headroom the buffers it is written into cannot hold (hostile round 16: a
    --device of 120 km cables got an xoff of 18,761,728 B per PG, more than its shared headroom pool's 2,359,296 B
    and, six ports together, than the 47 MB pool; exit 0, and the snippet's own lint reported BUF004 as an error):
    a PG's xoff above the shared headroom pool (``shared``: BUFFER_POOL xoff) is BUF004's "one pause overflows it",
    and a PG's reserve (size, or xon + xoff where the pool has no shared headroom) above the whole pool is a buffer
    no switch has. ``pg``: the port's profile (``port.sonic``); ``where``: the port's file and line."""
    cable = f" ({port.speed_gbps:g} Gb/s" + (f", {port.cable_length_m:g} m of cable)" if port.cable_length_m is not None
                                             else ")")
    if shared and pg.xoff_bytes > shared:
        raise InputError(f"port {port.name}: its lossless PG's xoff {pg.xoff_bytes} B{cable} is more than the shared "
                         f"headroom pool (BUFFER_POOL|{POOL} xoff) holds, {shared} B: one pause would overflow it, so "
                         "the snippet's own lint would report BUF004; a larger pool xoff in the config, or this port "
                         "off the lossless priorities, is needed", **where)
    reserve = pg.size_bytes if shared else max(pg.size_bytes, pg.xon_bytes + pg.xoff_bytes)
    if pool_bytes is not None and reserve > pool_bytes:
        raise InputError(f"port {port.name}: its lossless PG needs {reserve} B of buffer{cable}, more than the whole "
                         f"ingress lossless pool's {pool_bytes} B: no switch can hold it; a larger pool (--pool-size), "
                         "or this port off the lossless priorities, is needed", **where)


def _check_shared_headroom(xoffs: list[int], held: Sequence[int], shared: int, allowed: float | None,
                           where: dict) -> None:
    """Refuse rendered PGs whose xoff, with the xoff the device's other ports hold in the pool (``held``: a --device's
    ports the snippet leaves as they are, which BUF004 sums too), over-subscribes the shared headroom pool past what
    the policy, else the switch, allows (BUF004's ratio, in its order; none given: not judged, as BUF004 does).
    ``where``: the first port's file and line."""
    total = sum(xoffs) + sum(held)
    others = (f", with the {len(held)} the device's other ports hold ({sum(held)} B)," if held else "")
    if allowed and total > shared * allowed + 1e-9:
        raise InputError(f"the {len(xoffs)} lossless PGs rendered{others} need {total} B of xoff together, "
                         f"{total / shared:.2f} x the shared headroom pool's {shared} B (BUFFER_POOL|{POOL} xoff; "
                         f"allowed: {allowed:g} x), so the snippet's own lint would report BUF004; a pool xoff of at "
                         f"least {math.ceil(total / allowed)} B, a larger allowed over-subscription "
                         "(buffer.headroom_pool_oversubscription), or fewer lossless ports is needed", **where)


def _check_ecn_before_pfc(policy: Policy, port: PortProfile, pool_bytes: int, pool_mode: str,
                          congested: int, ports: int, priorities: int, where: dict) -> None:
    """Refuse thresholds that ECN004 would report on the snippet itself (headroom.marks_after_pfc, its gate and the
    tuner's): ECN marking only after the PG pauses at the policy's ecn.assume_congested_queues, else once
    ``congested`` lossless PGs (the rendered ``ports`` x ``priorities``, all in the one pool) are congested at once,
    naming the break-even; ``where``: the file and line of the port (a --device file's), which the refusal names."""
    pg = port.sonic
    threshold = {"dynamic_threshold": pg.threshold} if pool_mode == "dynamic" else {"static_threshold_bytes":
                                                                                    pg.threshold}
    profile_ = BufferProfile(name=pg.name, pool=POOL, size_bytes=pg.size_bytes, xon_bytes=pg.xon_bytes,
                             xoff_bytes=pg.xoff_bytes, **threshold)
    pool = BufferPool(name=POOL, mode=pool_mode, size_bytes=pool_bytes)
    mark = port.kmin_bytes if policy.ecn.before_pfc == "kmin" else port.kmax_bytes
    label = "Kmin" if policy.ecn.before_pfc == "kmin" else "Kmax"
    if mark is None:  # no threshold rendered: nothing for ECN004 to compare
        return
    k = hr.marks_after_pfc(profile_, pool, mark, congested)
    # the trigger at the load that is reported: the policy's stated one, else the break-even
    trigger = pfc_trigger(profile_, pool, congested if policy.ecn.assumed_congested else k) \
        if k is not None else None
    if trigger is None:
        return
    if policy.ecn.assumed_congested:
        load = f"{congested} lossless PG(s) congested at once (ecn.assume_congested_queues; from {k} on)"
        change = "or a smaller ecn.assume_congested_queues"
    else:
        load = (f"{k} or more of the {congested} lossless PGs of the rendered ports ({ports} port(s) x "
                f"{priorities} lossless priorities, one pool) congested at once")
        change = "fewer ports, or the load the fabric is built for in ecn.assume_congested_queues"
    raise InputError(f"port {port.name}: ECN threshold {label} {mark} B would not mark before PFC pauses with {load}: "
                     f"{trigger.at_bytes} B ({trigger.basis}), so the snippet's own lint would report ECN004; a "
                     f"smaller {label} (the policy's ecn thresholds), a larger ingress lossless pool (--pool-size), "
                     f"{change} is needed", **where)


def _sonic_pg(bufs: hr.SwitchBuffers, pol: Policy, speed_gbps: float, cable: float, mtu: int,
              lanes: int | None, traditional: bool = True) -> tuple[SonicPg | None, str | None]:
    """The SKU's lossless PG profile for this port, never below the SKU's own row: on Spectrum the larger of
    buffer_headroom_mellanox.lua and the SKU's pg_profile_lookup.ini, elsewhere the SKU's row for the next listed
    cable length at or above the port's; (None, why) when the SKU gives no numbers for the port.

    Named as the traditional buffer manager names the profile it binds a PFC port's PGs to (buffermgr.cpp
    doSpeedUpdateTask: pg_lossless_<speed>_<cable>_profile, leaving a PG that names it and reusing a BUFFER_PROFILE of
    that name), so the switch keeps what is written; ``traditional`` False (a --device in the dynamic model): as
    buffermgrdyn names its profiles, which gives ports differing in MTU or lanes their own."""
    req = hr.required_headroom(bufs, speed_gbps, cable, mtu, lanes=lanes,
                               peer_response_bytes=pol.buffer.peer_response_time_bytes)
    speed_mbps = int(round(speed_gbps * 1000))
    if bufs.asic is not None and speed_mbps > hr.FASTEST_QUANTA_MBPS:
        return None, (f"buffer_headroom_mellanox.lua lists no IEEE 802.3 pause response for {speed_mbps} Mb/s (its "
                      f"fastest is {hr.FASTEST_QUANTA_MBPS}) and falls back to ASIC_TABLE's, which gives less xoff "
                      "than a slower port gets")
    if bufs.asic is not None and req.headroom is not None:
        script = req.headroom
        # (the policy's formula where it asks for more, as BUF002 checks it: buffer.headroom_formula mlx5)
        need = max(req.xoff_bytes, _policy_xoff(pol, speed_gbps, cable, mtu))
        if need > script.xoff_bytes and not bufs.shared_headroom_pool:
            # The SKU's table asks for more: keep the script's xon and overhead, with the table's xoff.
            overhead = script.size_bytes - script.xon_bytes - script.xoff_bytes
            size = hr._round_kib(script.xon_bytes + need + overhead)
        else:
            size = script.size_bytes
        cable_txt = f"{cable:g}m"
        name = (f"pg_lossless_{speed_mbps}_{cable_txt}_profile" if traditional else
                hr.spectrum_profile_name(speed_mbps, cable_txt, mtu, bufs.asic.generation,
                                         hr.spectrum_lanes(bufs.asic, speed_mbps, lanes)))
        return SonicPg(name, cable_txt, script.xon_bytes, need, size, DYNAMIC_TH, None, req.basis), None
    if req.row is not None:
        row = req.row
        # (a row's size is the PG's guaranteed reserve beside its xoff headroom: only the xoff grows)
        return SonicPg(row.profile_name, row.cable, row.xon_bytes,
                       max(row.xoff_bytes, _policy_xoff(pol, speed_gbps, cable, mtu)), row.size_bytes, row.threshold,
                       row.xon_offset_bytes, req.basis), None
    if bufs.sku is not None:
        return None, f"{req.note}; SONiC creates no lossless profile for the port without a row"
    return None, None


def _policy_xoff(pol: Policy, speed_gbps: float, cable: float, mtu: int) -> int:
    """The xoff the policy's own headroom formula asks for beyond SONiC's (BUF002 with buffer.headroom_formula mlx5:
    the ConnectX driver's, Linux mlx5 port_buffer.c); 0 under the sonic formula, which the SKU's numbers are."""
    return hr.mlx5_xoff_bytes(speed_gbps, cable, mtu) if pol.buffer.headroom_formula == "mlx5" else 0


def _pause_buffer(speed_gbps: float, cable: float, mtu: int, mark_bytes: int | None) -> PauseBuffer | None:
    """An explicit pause buffer for a cable above EXPLICIT_HEADROOM_ABOVE_M: headroom H (headroom.ieee_xoff_bytes)
    above a pause threshold of H, and a resume threshold one MTU below it (the one-frame hysteresis of mlx5
    port_buffer.c: xon = xoff threshold - max MTU). Where the queue marks ECN, the pause threshold sits a frame
    above ``mark_bytes`` (the threshold the policy wants reached before PFC): NX-OS sends XOFF at that fill level
    whatever the load, so a lower one would pause before DCQCN marks (ECN004)."""
    if cable <= EXPLICIT_HEADROOM_ABOVE_M:
        return None
    if speed_gbps * 1000 > hr.FASTEST_QUANTA_MBPS:
        return None  # no pause response listed for the speed: not sized (_check_facts refuses the buffer section)
    xoff = hr.ieee_xoff_bytes(int(round(speed_gbps * 1000)), cable, mtu)
    pause = xoff if mark_bytes is None else max(xoff, -(-(mark_bytes + mtu) // 1024) * 1024)
    return PauseBuffer(size_bytes=pause + xoff, pause_bytes=pause, resume_bytes=pause - mtu)


def _one_policy_per_bundle(ports: list[PortProfile]) -> list[PortProfile]:
    """Members of one link aggregate run its policies (Nexus 9000 QoS guide, "Attaching and Detaching a QoS Policy
    Action": one attached to a port channel takes effect even when its members have their own; Junos CoS guide,
    "Configuring Schedulers on Aggregated Interfaces": an aeN's CoS applies to all its members), so they get one: the
    largest pause buffer and the longest cable of any member (more headroom, never less), and one set of ECN
    thresholds, refused where members' speeds ask for different ones (NX-OS port-channel compatibility checks hold
    members to one speed: Nexus 5000/9000 interfaces guides, "Compatibility Requirements"), and one MTU, the largest
    (the MTU is a compatibility parameter too; the snippet writes it on the aggregate and on a member's own line)."""
    members: dict[str, list[PortProfile]] = {}
    for port in ports:
        if port.bundle is not None:
            members.setdefault(port.bundle, []).append(port)
    chosen: dict[str, PauseBuffer | None] = {}
    longest: dict[str, float | None] = {}
    mtus: dict[str, int] = {}
    for bundle, group in members.items():
        ecn = {(p.kmin_bytes, p.kmax_bytes) for p in group}
        if len(ecn) > 1:
            raise InputError(f"{bundle}: its members {', '.join(p.name for p in group)} need different ECN thresholds "
                             f"({', '.join(f'{lo}-{hi} B' for lo, hi in sorted(ecn, key=str))}: their speeds differ), "
                             "but a link aggregate takes one queuing policy for all of them")
        buffers = [p.pause_buffer for p in group if p.pause_buffer is not None]
        chosen[bundle] = max(buffers, key=lambda b: (b.size_bytes, b.pause_bytes)) if buffers else None
        cables = [p.cable_length_m for p in group if p.cable_length_m is not None]
        longest[bundle] = max(cables) if cables else None
        mtus[bundle] = max(p.mtu_bytes for p in group)
    return [p if p.bundle is None else
            replace(p, pause_buffer=chosen[p.bundle] or p.pause_buffer, cable_length_m=longest[p.bundle],
                    mtu_bytes=mtus[p.bundle])
            for p in ports]


def _nic_buffers(port: PortFacts, lossless: list[int], tc_to_pg: dict[int, int], speed_gbps: float | None,
                 cable: float | None, mtu: int) -> tuple[int | None, tuple[int, ...] | None, str | None]:
    """The mlx5 driver's xoff and 8 receive buffer sizes: each lossless buffer xoff + max MTU + one cell (the
    smallest the driver accepts, mlx5 port_buffer.c update_xoff_threshold), rounded up to 1 KiB, and buffer 0
    what the NIC's buffer has left. None when the NIC's buffer total or max MTU is not known."""
    if speed_gbps is None or cable is None:
        return None, None, "speed or cable length unknown"
    xoff = hr.mlx5_xoff_bytes(speed_gbps, math.ceil(cable), mtu)
    if port.nic_buffer_total_bytes is None or port.max_mtu_bytes is None:
        return xoff, None, ("the NIC's receive buffer total (`mlnx_qos -i IF`) and max MTU (`ip -d link show dev IF`) "
                            "are not known (render with --device and a host capture)")
    size = hr._round_kib(hr.mlx5_lossless_buffer_bytes(xoff, port.max_mtu_bytes))
    buffers = sorted({tc_to_pg.get(prio, prio) for prio in lossless} - {0})
    rest = port.nic_buffer_total_bytes - size * len(buffers)
    if rest < size:
        return xoff, None, (f"the NIC's receive buffer ({port.nic_buffer_total_bytes} B) cannot give {len(buffers)} "
                            f"lossless buffer(s) {size} B each and keep as much for buffer 0")
    return xoff, tuple(size if i in buffers else rest if i == 0 else 0 for i in range(8)), None


def _lossless_dscp_map(dscps: list[int], lossless: list[int]) -> dict[int, int]:
    """DSCP -> TC: a lossless DSCP numbered as a lossless priority to that priority (SONiC's Azure maps, DSCP 3 and 4
    to TC 3 and 4), the others in the policy's order first to the lossless priorities no DSCP reaches yet, then to
    the lowest lossless priority; every other DSCP to BEST_EFFORT_TC. So each lossless priority carries RoCE where
    the policy names enough DSCPs (a switch that enables PFC by DSCP, Junos, can pause no priority without one)."""
    out = {d: BEST_EFFORT_TC for d in range(64)}
    own = {d for d in dscps if d in lossless}
    empty = [prio for prio in lossless if prio not in own]
    for dscp in own:
        out[dscp] = dscp
    for i, dscp in enumerate(d for d in dscps if d not in own):
        out[dscp] = empty[i] if i < len(empty) else lossless[0]
    return out


def _cnp_class(pol: Policy, lossless: list[int]) -> int:
    """The traffic class of CNPs whose policy names no cnp.priority: CNP_DEFAULT_TC where it is free, else the highest
    class that is neither lossless nor tolerated to run PFC nor best effort. Under a PCP policy switches sort CNPs by
    the priority NICs tag them with, which only the policy can name."""
    if pol.lossless.trust == "pcp":
        raise PolicyLimit(f"policy {pol.name}: switches trust 802.1p (lossless.trust: pcp) and sort CNPs by the "
                         "priority the NICs tag them with, which cnp names none of: give cnp.priority",
                         file=pol.source_file)
    taken = {*lossless, *pol.lossless.tolerated_priorities, BEST_EFFORT_TC}
    free = [CNP_DEFAULT_TC] + list(range(7, 0, -1))
    found = next((tc for tc in free if tc not in taken), None)
    if found is None:
        raise InputError(f"policy {pol.name}: every traffic class is lossless, tolerated or best effort, so CNPs have "
                         "no class of their own: give cnp.priority", file=pol.source_file)
    return found


def profile(pol: Policy, ports: list[PortFacts], hwsku: str | None = None,
            pool_bytes: int | None = None, all_facts: bool = True, *, hardware: str | None = None,
            model: str | None = None, family: str | None = None,
            buffers: hr.SwitchBuffers | None = None, egress: SonicEgress | None = None,
            attached: dict[str, str] | None = None,
            traffic_pools: dict[str, int | None] | None = None, lossy_mode: str | None = None,
            sku_source: Source | None = None, classes: Iterable[ForwardingClass] | None = None,
            defined: dict[str, str] | None = None,
            model_source: Source | None = None, buffer_model: str | None = None,
            held_xoffs: Sequence[int] = ()) -> Profile:
    """All numbers of a lossless profile; InputError when a port lacks a fact the numbers need.

    ``hwsku``/``hardware`` (SONiC SKU and DEVICE_METADATA platform) decide SONiC's headroom (``buffers``, when a
    parsed device gave it, also carries its traffic pattern and shared headroom pool); ``model``/``family``
    decide the command family where platforms differ (render.families). ``pool_bytes`` is the ingress lossless
    pool, needed where the PG's PFC trigger depends on it (SONiC dynamic thresholds); a SKU the shipped tables
    list gives it when not given. ``attached``: the policies the device attaches switch-wide now (a --device's
    Device.service_policies), which the snippet detaches before attaching its own; ``traffic_pools`` a --device's
    NVUE traffic pools (Device.traffic_pools), which the snippet keeps where it cannot add its own, and ``lossy_mode``
    its switch-wide lossy mode (Device.lossy_mode), which a snippet that enables PFC changes to lossless.
    ``model_source``: where the model the profile takes (``model``, else ``hardware``, else ``hwsku``) was read, when
    a --device file gave it.
    ``buffer_model``: a --device's DEVICE_METADATA buffer_model; unless "dynamic", SONiC lossless profiles take the
    traditional buffer manager's names (_sonic_pg), one per speed and cable: ports that share one get the largest.
    ``classes``: a --device's named traffic classes (Device.forwarding_classes), which the snippet names where one
    fits (pick_class); a lossless priority whose class is on another queue has its pauses stop that queue.
    ``all_facts=False`` (a fix) leaves the numbers a missing fact decides unset (None) instead of refusing the port;
    render() refuses them where a section needs them.
    """
    if not ports:
        raise InputError("no ports to render: give --device or at least one --ports NAME:SPEED:CABLE[:MTU]")
    if len(ports) > MAX_PORTS:  # (a snippet of more was written, 2 MB for 20,001, that lint then refused to read)
        raise InputError(f"{len(ports):,} ports to render: more than the {MAX_PORTS:,} a switch can have (losslessd "
                         "lint refuses a config of more); render one switch's ports")
    seen: dict[str, PortFacts] = {}
    for facts in ports:  # (each would be written with its own numbers: two speeds, two MTUs for one port)
        if facts.name in seen:
            first = seen[facts.name].source
            there = f" (the --device config has it at {first.describe()})" if first is not None else ""
            raise InputError(f"port {quoted(facts.name, _SHOWN)} is given twice{there}: name each port once (--ports "
                             "adds ports to the --device config's)")
        seen[facts.name] = facts
    lossless = sorted(pol.lossless.priorities)
    if BEST_EFFORT_TC in lossless:
        raise InputError(f"policy {pol.name}: priority {BEST_EFFORT_TC} is lossless, and every DSCP the policy does "
                         f"not name goes to traffic class {BEST_EFFORT_TC} (and its PG and queue): all traffic would "
                         "be paused, none dropped; make other priorities lossless")
    dscp_to_tc = _lossless_dscp_map(pol.lossless.dscp, lossless)
    strict = []
    cnp_tc = None
    if pol.cnp is not None:
        cnp_tc = pol.cnp.priority if pol.cnp.priority is not None else _cnp_class(pol, lossless)
        dscp_to_tc[pol.cnp.dscp] = cnp_tc
        strict = [cnp_tc] if pol.cnp.strict else []
    tc_to_pg = {tc: (tc if tc in lossless else 0) for tc in range(8)}
    pcp_to_tc = {pcp: (pcp if pcp in lossless or pcp == cnp_tc else BEST_EFFORT_TC) for pcp in range(8)}
    bufs = buffers or hr.switch_buffers(hwsku=hwsku, platform=hardware)
    sku = bufs.sku
    pool_mode = (sku.pool_mode if sku and sku.pool_mode else "dynamic")
    if pool_bytes is None and sku is not None and bufs.asic is None:
        pool_bytes = sku.pool_size_bytes
    asic = "mellanox" if bufs.asic is not None else (sku.asic if sku else None)
    rendered = []
    places = []  # each port's file and line, for an InputError naming it
    for port in ports:
        where = {"file": port.source.file, "line": port.source.line} if port.source is not None else {}
        places.append(where)
        if port.speed_gbps is None and all_facts:
            raise InputError(f"port {port.name}: speed unknown, so its PFC headroom cannot be computed", **where)
        cable = port.cable_length_m if port.cable_length_m is not None else pol.buffer.default_cable_length_m
        if cable is None and all_facts and port.dcb_tool != "dcb":  # (dcb writes no cable length: _check_facts)
            raise InputError(f"port {port.name}: cable length unknown, so its PFC headroom cannot be computed "
                             "(give it in --ports NAME:SPEED:CABLE or set buffer.default_cable_length_m)", **where)
        mtu = port.mtu_bytes or DEFAULT_MTU_BYTES
        known = cable is not None and port.speed_gbps is not None
        sonic, note = (_sonic_pg(bufs, pol, port.speed_gbps, cable, mtu, port.lanes, buffer_model != "dynamic")
                       if known else (None, None))
        kmin = kmax = None
        if pol.ecn.required and port.speed_gbps is not None:
            # Thresholds grow linearly with line rate when the policy names a reference speed.
            scale = port.speed_gbps / pol.ecn.speed_reference_gbps if pol.ecn.speed_reference_gbps else 1
            kmin = _clamp(ECN_KMIN_BYTES * scale, pol.ecn.min_threshold_bytes, pol.ecn.kmin_min_mtus * mtu)
            kmax = max(kmin, _clamp(ECN_KMAX_BYTES * scale, pol.ecn.max_threshold_bytes))
            floor, kmin_max, kmax_max = (pol.ecn.kmin_min_mtus * mtu, pol.ecn.min_threshold_bytes.max,
                                         pol.ecn.max_threshold_bytes.max)
            if (kmin_max is not None and floor > kmin_max) or (kmax_max is not None and kmin > kmax_max):
                raise InputError(f"port {port.name}: no ECN thresholds fit the policy at MTU {mtu} B: Kmin at least "
                                 f"ecn.kmin_min_mtus {pol.ecn.kmin_min_mtus:g} x MTU = {floor:g} B (ECN002) and at "
                                 f"most ecn.min_threshold_bytes max {_num_or_none(kmin_max)} B, Kmax from Kmin to "
                                 f"ecn.max_threshold_bytes max {_num_or_none(kmax_max)} B; lower kmin_min_mtus or "
                                 "the port's MTU, or raise the maxima", file=pol.source_file)
        nic_xoff, nic_sizes, nic_note = _nic_buffers(port, lossless, tc_to_pg, port.speed_gbps, cable, mtu)
        rendered.append(PortProfile(
            name=port.name, speed_gbps=port.speed_gbps,
            speed_mbps=int(port.speed_gbps * 1000) if port.speed_gbps is not None else None,
            cable_length_m=cable, mtu_bytes=mtu,
            wred_profile=f"ROCE_LOSSLESS_{kmin}_{kmax}" if kmin is not None else None,
            kmin_bytes=kmin, kmax_bytes=kmax, sonic=sonic, sonic_note=note,
            kmin_bounds=(max(pol.ecn.min_threshold_bytes.min or 0, pol.ecn.kmin_min_mtus * mtu),
                         pol.ecn.min_threshold_bytes.max if pol.ecn.min_threshold_bytes.max is not None else math.inf),
            pause_buffer=_pause_buffer(port.speed_gbps, cable, mtu, kmin if pol.ecn.before_pfc == "kmin" else kmax)
            if known else None,
            nic_xoff_bytes=nic_xoff, nic_buffer_sizes=nic_sizes, nic_buffer_note=nic_note, lanes=port.lanes,
            keys=port.keys, attached=port.attached, bundle=port.bundle, bundle_attached=port.bundle_attached,
            own=port.own, carries=port.carries, rates=port.rates, source=port.source, dcb_tool=port.dcb_tool,
            mlx5_ecn=port.mlx5_ecn, nic_driver=port.nic_driver, pfc_now=port.pfc_now, by_hand=port.by_hand,
            by_hand_dscp=port.by_hand_dscp))
    largest: dict[str, SonicPg] = {}  # one profile per name (see _sonic_pg): the largest headroom of the ports'
    for prof in rendered:
        if prof.sonic is not None:
            held = largest.setdefault(prof.sonic.name, prof.sonic)
            if (prof.sonic.xoff_bytes, prof.sonic.size_bytes, prof.sonic.xon_bytes) > (
                    held.xoff_bytes, held.size_bytes, held.xon_bytes):
                largest[prof.sonic.name] = prof.sonic
    rendered = [replace(prof, sonic=largest[prof.sonic.name]) if prof.sonic is not None else prof for prof in rendered]
    # ECN004's load on the snippet: the policy's, else every lossless PG of the rendered ports (one pool), as its lint
    # counts them; what is rendered lints clean under its own default --fail-on warning (ECN004's break-even too).
    congested = pol.ecn.assumed_congested or max(1, len(rendered) * len(lossless))
    # The shared headroom pool (BUFFER_POOL xoff) the PGs are checked against is the one the snippet writes: the
    # device's where it has one, else the SKU's stock (a device's pool kept its xoff in the checks, the snippet wrote
    # the SKU's over it). 0 is none: buffer_check_headroom_mellanox.lua (xoff nil or 0: is_shp_enabled false).
    shared = bufs.shared_headroom_bytes or (sku.pool_xoff_bytes if sku and bufs.asic is None else None)
    for prof, where in zip(rendered, places, strict=True):
        if prof.sonic is not None:
            _check_headroom_fits(prof, prof.sonic, pool_bytes, shared, where)
        if prof.kmin_bytes is not None and pool_bytes is not None and prof.sonic is not None:
            _check_ecn_before_pfc(pol, prof, pool_bytes, pool_mode, congested, len(rendered), len(lossless), where)
    if shared and rendered:
        xoffs = [prof.sonic.xoff_bytes for prof in rendered if prof.sonic is not None for _ in lossless]
        allowed = pol.buffer.headroom_pool_oversubscription or bufs.over_subscribe_ratio
        _check_shared_headroom(xoffs, held_xoffs, shared, allowed, places[0])
    rendered = _one_policy_per_bundle(rendered)
    named = tuple(classes or ())
    # A lossless priority's pauses stop the queue of the class that carries it (the device's, on its own queue).
    queues = {}
    for prio in lossless:
        try:
            fc = pick_class(named, prio, lossless)
        except InputError:  # (refused by render() where a section names the class; the others render)
            fc = None
        # (not where another traffic class of the snippet leaves by that queue: the two would share it, one lossless and
        # one not; there the priority keeps the queue of its own number, as without the device's classes)
        if fc is not None and (fc.queue == prio or fc.queue not in {*dscp_to_tc.values(), *strict, *lossless}):
            queues[prio] = fc.queue
    wd = pol.watchdog
    detection = _clamp(WD_DETECTION_MS, wd.detection_time_ms)
    actions = wd.actions or ["drop"]
    if bufs.known:
        sku_note = None
    elif hwsku:
        read = " (DEVICE_METADATA|localhost hwsku)" if sku_source is not None else ""
        sku_note = (f"SKU {hwsku}{read} is neither an NVIDIA Spectrum SKU nor one whose pg_profile_lookup.ini "
                    f"losslessd ships ({len(skutables.skus())} SKUs of sonic-buildimage)")
    else:
        sku_note = "the switch SKU is not known (DEVICE_METADATA hwsku, or --sku)"
    return Profile(
        policy=pol.name, lossless=lossless, trust=pol.lossless.trust, nic_trust=pol.nic.trust, dscp_to_tc=dscp_to_tc,
        pcp_to_tc=pcp_to_tc,
        tc_to_pg=tc_to_pg, strict_queues=strict, ecn=pol.ecn.required,
        mark_probability_pct=_mark_pct(pol),
        pool_bytes=pool_bytes,
        cnp_dscp=pol.cnp.dscp if pol.cnp is not None else None, cnp_priority=cnp_tc,
        roce_dscp=min((d for d, tc in dscp_to_tc.items() if tc in lossless), default=None),
        wd_action="drop" if "drop" in actions else actions[0],
        wd_actions=tuple(wd.actions) if wd.actions else None,
        unreached=tuple(prio for prio in lossless if prio not in dscp_to_tc.values()),
        wd_detection_ms=detection,
        wd_restoration_ms=_clamp(WD_RESTORATION_MS, wd.restoration_time_ms), wd_poll_ms=detection // 2,
        wd_detection_range=_bounds(wd.detection_time_ms), wd_restoration_range=_bounds(wd.restoration_time_ms),
        ports=rendered, model=model or hardware or hwsku, family=family, sku=sku.sku if sku else hwsku,
        sku_note=sku_note, sku_source=sku_source if hwsku and not bufs.known else None, pool_mode=pool_mode,
        pool_xoff_bytes=shared if sku and bufs.asic is None else None,
        pfc_to_pg_map=(asic in PFC_TO_PG_ASICS) if asic else None, assumed_congested=congested, egress=egress,
        attached=attached, traffic_pools=traffic_pools, lossy_mode=lossy_mode, classes=named, defined=defined,
        model_source=model_source,
        pfc_to_queue={q: q for q in range(8)} | queues)


def unchecked_ecn(platform: str, prof: Profile) -> str | None:
    """Where the snippet writes ECN thresholds whose ECN-before-PFC break-even (ECN004, headroom.marks_after_pfc)
    render cannot check because the switch sizes its PFC headroom and xoff point itself at run time: the sentence
    that says so; None where it is checked or there is nothing to check. SONiC: the snippet writes the lossless PG
    profile with the thresholds, and render refuses thresholds ECN004 would report (_check_ecn_before_pfc). NX-OS: a
    port on a cable above EXPLICIT_HEADROOM_ABOVE_M gets a pause buffer whose pause threshold sits a frame above the
    mark (_pause_buffer); shorter ones keep the switch's own headroom. EOS, Junos, NVUE write no xoff at all (their
    templates: the switch sizes headroom from the cable length, or itself). A host script writes no thresholds."""
    record = PLATFORMS[platform]
    if record.kind == DeviceKind.host or platform == "sonic" or not prof.writes_ecn(platform):
        return None
    ports = [port.name for port in prof.ports if port.kmin_bytes is not None
             and not (platform == "cisco_nxos" and port.pause_buffer is not None)]
    if not ports:
        return None
    shown = ", ".join(ports[:4]) + (f" and {len(ports) - 4} more" if len(ports) > 4 else "")
    return (f"ECN thresholds written for {shown} without checking that they mark before PFC pauses (ECN004's "
            f"break-even): {platform} sizes the lossless headroom and its xoff point itself at run time (dynamic, "
            "not in the config), so losslessd does not know where PFC pauses there; compare the thresholds with the "
            "switch's own headroom and xoff")


# The ECN commands that are WRED with marking, one probability for both: ECT packets are marked with it, the others
# dropped (RFC 3168 section 5: where a router's AQM would drop a packet, it sets CE instead only if the packet is
# ECN-capable; Dell OS9 CLI reference, `wred ecn`: "If neither endpoint is ECN-capable, the packet may be dropped based
# on the WRED drop probability", and above the maximum threshold it is dropped). SONiC: CONFIG_DB's WRED_PROFILE has
# `<colour>_drop_probability` and no mark probability (sonic-swss qosorch.cpp WredMapHandler refuses any other field;
# saiwred.h: ECT traffic uses SAI_WRED_ATTR_GREEN_DROP_PROBABILITY as its marking probability unless
# SAI_WRED_ATTR_ECN_GREEN_MARK_PROBABILITY is set), and it cannot be marking-only: the Spectrum SAI refuses a profile
# with no colour enabled (mlnx_sai_wred.c: "no data specified") and binds every profile with RED drop on
# (mlnx_wred_apply). NX-OS: `random-detect ... drop-probability P weight 0 ecn`. Not so: EOS `random-detect ecn`
# (a marking command), NVUE `congestion-control ... ecn enable` (RED left off), Junos (QFX CoS guide, "Configuring CoS
# WRED Drop Profiles": on an ECN-enabled queue non-ECT packets are tail-dropped only, which PFC prevents on no-loss).
WRED_MARKS_AND_DROPS = {"sonic": "WRED_PROFILE's <colour>_drop_probability",
                        "cisco_nxos": "`random-detect ... drop-probability ... ecn`"}


def wred_drops(platform: str, prof: Profile) -> str | None:
    """Where the snippet's ECN is WRED that drops what it cannot mark (WRED_MARKS_AND_DROPS): the sentence that says
    packets that are not ECN-capable (a host with ECN off, traffic classified onto the priority by mistake) are
    dropped on the lossless queues from Kmin up, with the mark probability, PFC or not; None elsewhere."""
    command = WRED_MARKS_AND_DROPS.get(platform)
    if command is None or not prof.writes_ecn(platform):
        return None
    prof = replace(prof, platform=platform)  # (the queues as render places them for that platform)
    queues = ", ".join(map(str, sorted({q for port in prof.ports for q in prof.ecn_queues(port)})))
    return (f"{command} marks ECT packets on lossless queues {queues} with up to {prof.mark_probability_pct} % "
            "between Kmin and Kmax, and drops the packets there that are not ECN-capable with that same probability "
            "(all of them above Kmax), PFC or not: keep non-ECT traffic off the lossless priorities, or lower the "
            "policy's ecn.mark_probability_pct" + (" (SONiC's stock AZURE_LOSSLESS profile writes 5 %, "
                                                   "sonic-buildimage qos_config.j2)" if platform == "sonic" else ""))


def operator_notes(platform: str, prof) -> list[str]:
    """What an operator must know of a rendered snippet that the snippet cannot say (unchecked_ecn, wred_drops): render
    and fix both print these on stderr, so a snippet never reaches a switch without them."""
    if not isinstance(prof, Profile):  # (a subnet manager's profile: no queues, no ECN)
        return []
    return [note for note in (unchecked_ecn(platform, prof), wred_drops(platform, prof)) if note]


def environment() -> jinja2.Environment:
    """Templates from the shipped templates/ folder; a missing variable is an error, never a blank."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
                              undefined=jinja2.StrictUndefined, autoescape=False,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def platforms() -> tuple[str, ...]:
    """Platforms that can be rendered: those with a templates/<platform>/profile.j2."""
    return tuple(sorted(d.name for d in data_dir("templates").iterdir() if (d / "profile.j2").is_file()))


def render(platform: str, prof) -> str:
    """The platform's snippet for ``prof`` (a Profile, or the platform's own parameters object)."""
    if platform not in platforms():
        raise InputError(f"no render template for platform {quoted(platform)}; available: {', '.join(platforms())}")
    prof, family = prepared(platform, prof)
    # (queue_word: EOS's `tx-queue` or `uc-tx-queue`, the one table tune's put-backs read too; None elsewhere)
    return environment().get_template(f"{platform}/profile.j2").render(
        p=prof, pool=POOL, family=family, limits=PLATFORMS[platform].limits,
        queue_word=families.EOS_QUEUE_WORD.get(family or "") if platform == "arista_eos" else None)


def prepared(platform: str, prof):
    """``prof`` with the values the template writes (its platform set, its limits fitted: _fit_limits) and its
    command family; InputError where it cannot be rendered."""
    family = None
    if not is_name(prof.policy):  # (a policy made through the Python API: a file's name is checked as it loads)
        raise InputError(f"policy name {quoted(prof.policy, _SHOWN)} cannot be written into a snippet: a policy name "
                         f"is {NAME_RULE}; rename the policy")
    if isinstance(prof, Profile):
        _check_names(prof)
        prof = replace(prof, platform=platform)
        family = families.resolve(platform, prof.model, prof.family)
        families.require(platform, family, prof.model, prof.sections, prof.model_source)
        _check_facts(platform, prof, family)
        prof = _fit_limits(platform, prof, family)
    return prof, family


def refusal(platform: str, prof: Profile) -> str | None:
    """Why ``prof`` (a fix's sections on some of its ports) cannot be rendered for want of a fact of the device (a
    port's speed or cable length, SONiC's pool or SKU headroom) or because no line of the port's own can change it
    (_check_by_hand): a fix refuses that section alone, its other parts go on. None where nothing stands in the way.
    PolicyLimit is raised: the policy, not the device, is what no part can have."""
    prof = replace(prof, platform=platform)
    try:
        # (not the family: a model no family renders, a Nexus 7000, takes none of the platform's commands, so its whole
        # fix is refused by render(), as is one whose model is unknown)
        _check_facts(platform, prof, families.resolve(platform, prof.model, prof.family))
    except PolicyLimit:
        raise
    except ByHand as exc:
        return exc.message
    except InputError as exc:
        return str(exc)
    return None


_MISSING = {
    "speed": "speed unknown",
    "cable": "cable length unknown, so its PFC headroom cannot be sized",
}
# What gives a missing fact (a fix's refused part says it; render's own --ports message says its way).
_GIVE = {
    "speed": "state the port's speed in its config and run again, or write this section by hand",
    "cable": "set buffer.default_cable_length_m in the policy (or state the port's cable length in the input) and "
             "run again, or write this section by hand",
}


# A name a snippet may hold: what SONiC, EOS, NX-OS, Junos, NVUE and Linux name ports with (Ethernet1/1,
# et-0/0/0:1, swp1s0, enp65s0f0np0, eth0.100), and profiles, pools, policies, classes and port-channels with
# (egress_lossless_profile, default-8q-nq-policy, best-effort, port-channel12). A name from a config or a policy file
# is written into JSON strings, CLI lines and a shell script unquoted: a quote, a space, a newline or `$(...)` in it
# would break the snippet, run as a command, or add a line or JSON entry the operator did not ask for.
_WRITABLE_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,63}")


def writable(name: str, what: str, fix: str, source: Source | None = None) -> str:
    """``name`` when a snippet may write it as it is; else InputError naming it, ``what`` it is, where it was read
    (``source``) and the ``fix``."""
    if _WRITABLE_NAME.fullmatch(name):
        return name
    raise _error_at(f"{what} {quoted(name, _SHOWN)} cannot be written into a snippet safely (losslessd writes names "
                    f"of letters, digits and _ . : / @ - only, up to 64 characters); {fix}", source)


def _read_binding(name: str, what: str, source: Source | None = None) -> None:
    """InputError where the device attaches a policy on a line the parser could not read (its name empty: NX-OS
    parse.nxos.reader.POLICY_UNREAD, a `service-policy` line cut in two): a snippet that attaches its own policy there
    must detach that one first, and cannot name it."""
    if name:
        return
    raise _error_at(f"{what} is on a line losslessd could not read (the lint's SYS002 names it), so a snippet cannot "
                    "detach it before attaching its own; correct that line (the policy's name on the same line) and "
                    "run again", source)


def _error_at(message: str, source: Source | None) -> InputError:
    """InputError naming the file and line ``source`` gives (none where it names no file)."""
    return InputError(message, file=source.file, line=source.line) if source is not None and source.file else \
        InputError(message)


# Attachment points a template deletes by type, never naming what is bound there (Junos `delete class-of-service
# interfaces IF classifiers dscp`, `... unit 0 classifiers dscp`: parse.junos.build._interface_classifiers): their
# names are not checked as written.
_BOUND_BY_TYPE = ("classifiers ", "unit ")


def _check_names(prof: Profile) -> None:
    """Every name from the input a template writes (a port's, its port-channel's, its SONiC keys', the policies the
    device attaches, the device's egress profile and pool), before any template runs; the device's
    forwarding classes where one is chosen (Profile.class_use); the policy's name is render's."""
    for port in prof.ports:
        at = port.source  # (the port's own line: its port-channel, policies and keys are read around it)
        writable(port.name, "port name", "rename the port or leave it out of the policy's roce_ports", at)
        if port.bundle is not None:
            writable(port.bundle, f"port {port.name}: port-channel name", "rename the port-channel", at)
        for point, name in (port.attached | port.bundle_attached).items():
            _read_binding(name, f"port {port.name}: the service policy it attaches ({point})", at)
            if not point.startswith(_BOUND_BY_TYPE):
                writable(name, f"port {port.name}: service policy ({point}) name", "rename the policy-map", at)
        for table, keys in port.keys.items():
            for key, _ in keys.values():
                for part in re.split(r"[|,]", key):  # ("<host>|<asic>|<port>,<port>|<index>")
                    writable(part, f"port {port.name}: {table} key {quoted(key, _SHOWN)}: part", "rename the key", at)
    for point, name in (prof.attached or {}).items():
        _read_binding(name, f"system qos: the service policy it attaches ({point})")
        writable(name, f"system qos service policy ({point}) name", "rename the policy-map")
    if prof.egress is not None:
        for table, names in (("BUFFER_PROFILE", [prof.egress.profile, *prof.egress.profiles]),
                             ("BUFFER_POOL", prof.egress.pools)):
            for name in names:
                writable(name, f"SONiC {table} name", "rename it (and the entries that name it)",
                         prof.egress.sources.get(name))


class ByHand(InputError):
    """A section no line of the port's own can change (_check_by_hand): the port's file and line for `render`; a
    fix's refused part names the port itself."""


def _check_by_hand(prof: Profile) -> None:
    """Refuse the sections no line of a port's own can change (model Port.by_hand, Port.by_hand_dscp): `render
    --device` and `fix` alike, since a snippet the switch runs that does not do what it says is worse than none."""
    for port, why in _by_hand(prof):
        src = port.source
        raise ByHand(f"port {port.name}: {why}", src.file if src else None, src.line if src else None)


def _by_hand(prof: Profile) -> Iterator[tuple[PortProfile, str]]:
    """Each port of ``prof`` with a section of it no line of the port's own can change, and why (the first)."""
    # (a class overrides the policy where it moves a DSCP into or out of a lossless or the CNP class)
    kept = set(prof.lossless) | ({prof.dscp_to_tc.get(prof.cnp_dscp)} if prof.cnp_dscp is not None else set())
    for port in prof.ports:
        for section in sorted(prof.sections):
            why = port.by_hand.get(section) or port.by_hand.get(f"{section}/{prof.trust}")
            if why is None and section in ("trust", "maps"):
                why = next((why for d, (tc, why) in sorted(port.by_hand_dscp.items())
                            if prof.dscp_to_tc.get(d) != tc and (tc in kept or prof.dscp_to_tc.get(d) in kept)),
                           None)
            if why is not None:
                yield port, why
                break


def by_hand_rest(prof: Profile) -> str:
    """What `render --device` adds to a ByHand refusal of a whole device: how to render its other ports (the --ports
    each takes in place of --device, which adds to the device's ports), or `fix`, which refuses those ports alone."""
    held = {port.name: None for port, _ in _by_hand(prof)}  # (in order)
    rest = [port for port in prof.ports if port.name not in held]
    fix = f"`losslessd fix` on the file writes the rest and refuses only what is by hand on {few(list(held))}"
    if not rest:
        return f"; {fix}"
    specs = " ".join(f"--ports {p.name}:{p.speed_gbps:g}G:{p.cable_length_m:g}m:{p.mtu_bytes}" if p.speed_gbps and
                     p.cable_length_m else f"--ports {p.name}:SPEED:CABLE" for p in rest[:4])
    more = f" and {len(rest) - 4} more ports" if len(rest) > 4 else ""
    return (f"; to render the device's other {'port' if len(rest) == 1 else 'ports'}, name "
            f"{'it' if len(rest) == 1 else 'them'} in place of --device: {specs}{more} (with --model or --family), "
            f"or {fix}")


def _check_groups(platform: str, prof: Profile) -> None:
    """Refuse a Junos snippet that rebuilds its classifier where the --device config takes statements of it from a
    configuration group: the snippet's `delete` removes the configuration's own statements only, and a group's
    code-points are inherited beside the snippet's (Junos user guide, "Configuring Sets of Statements with
    Configuration Groups": all values of a set are inherited), so the old entries would still classify."""
    if platform != "juniper_junos" or not prof.defined or not (
            prof.wants("maps") or prof.wants("trust") or prof.writes_whole(platform)):
        return
    kind, name = prof.junos_classifier()
    group = prof.defined.get(f"{kind} {name}")
    if group:
        shown = group if _WRITABLE_NAME.fullmatch(group) else "GROUP"
        raise InputError(f"classifier {kind} {name}, which the snippet deletes and writes whole, takes statements "
                         f"from configuration group {quoted(group, _SHOWN)}: a `delete class-of-service classifiers "
                         f"{kind} {name}` leaves those (they are the group's), and their code points would add to "
                         f"the snippet's; delete the classifier from the group by hand (`delete groups {shown} "
                         f"class-of-service classifiers {kind} {name}`, for every place the group applies) and run "
                         "again")


def _check_facts(platform: str, prof: Profile, family: str | None) -> None:
    """Refuse, before any template runs, a section a port lacks the facts for: a fix's profile may hold ports
    without speed or cable length, and a SONiC SKU may give no lossless profile for a port."""
    _check_by_hand(prof)
    _check_groups(platform, prof)
    if platform == "sonic":
        if prof.wants("buffer") and prof.pool_bytes is None:
            raise InputError("SONiC lossless PG profiles share the ingress lossless pool: give its size "
                             "(--pool-size BYTES, or a --device config that has BUFFER_POOL|ingress_lossless_pool)")
        outside = sorted(set(prof.lossless_queues) - STOCK_LOSSLESS_QUEUES)
        if prof.wants("buffer") and prof.egress is None and outside:
            raise InputError(f"SONiC's stock buffers (buffers_config.j2) keep queue(s) {','.join(map(str, outside))} "
                             "on egress_lossy_profile, which drops when it fills: give a --device config whose "
                             "BUFFER_QUEUE binds lossless queues to a lossless egress profile, or a --sku whose "
                             "stock egress_lossless_profile losslessd ships and takes for lossless (BUF005), so the "
                             "patch can bind these queues to it too")
        if prof.wants("maps") and prof.pfc_to_pg_map is None:
            raise InputError(f"{prof.sku_note}: SONiC binds a PFC priority -> PG map (pfc_to_pg_map) on Mellanox and "
                             "Barefoot ASICs only (sonic-buildimage qos_config.j2), so the maps cannot be written for "
                             f"an unknown ASIC; {_sku_fix(prof)}", **_sku_where(prof))
    if platform == "juniper_junos" and prof.trust != "pcp" and prof.wants("pfc"):
        # Junos CoS guide, "Configuring DSCP-based PFC for Layer 3 Untagged Traffic": PFC is enabled per DSCP code
        # point (congestion-notification-profile input dscp), so a lossless priority no DSCP reaches is never paused.
        bare = prof.unreached
        if bare:
            raise PolicyLimit(f"juniper_junos enables PFC by DSCP, and no DSCP of the policy's lossless.dscp reaches "
                             f"lossless priority {','.join(map(str, bare))}: give lossless.dscp at least one DSCP per "
                             "lossless priority (or make fewer priorities lossless)")
    weighted = [q for q in prof.lossless_queues if q not in prof.strict_queues]
    if platform == "arista_eos" and prof.wants("scheduler") and weighted and any(
            q < max(weighted) for q in prof.strict_queues):
        # EOS User Manual, QoS, `priority` (tx-queue): `no priority` on queue N makes queues 0..N round robin, so only
        # queues above the highest weighted one can be strict.
        low = min(q for q in prof.strict_queues if q < max(weighted))
        raise PolicyLimit(f"arista_eos schedules every tx-queue up to the highest round-robin one (lossless queue "
                         f"{max(weighted)}) round robin, so the strict CNP queue {low} below it cannot be strict: give "
                         "cnp.priority a priority above every lossless priority (or cnp.strict: false)")
    record = PLATFORMS[platform]
    ecn = prof.writes_ecn(platform)
    if ecn and platform == "juniper_junos" and family != "qfx5000":
        for port in prof.ports:
            if not port.ecn_fill_fits:
                us, low, high = port.ecn_fill  # type: ignore[misc]
                raise PolicyLimit(f"port {port.name}: Junos writes ECN as whole-percent fill levels of a {us} us "
                                 f"queue buffer (Kmax at {high} %), and no whole percent puts Kmin {port.kmin_bytes} B "
                                 "inside the policy's ecn.min_threshold_bytes: widen that range or narrow "
                                 "ecn.max_threshold_bytes towards Kmin")
    if ecn and platform == "cisco_nxos" and family == "n3k":
        raise InputError("cisco_nxos n3k: losslessd has no verified Nexus 3000 command for ECN marking; render with "
                         "a policy that does not require ECN (ecn.required: false), or configure ECN by hand")
    needs = record.port_facts  # per section: "speed", "cable" or "sonic" (the SKU's lossless PG profile)
    for port in prof.ports:
        facts = {"speed": port.speed_gbps, "cable": port.cable_length_m}
        # A host script switches DCQCN on without thresholds: a NIC port's ECN needs no speed.
        if ecn and record.kind != DeviceKind.host and port.speed_gbps is None:
            raise InputError(f"port {port.name}: speed unknown, so its ECN thresholds cannot be worked out: "
                             f"{_GIVE['speed']}")
        if ecn and record.limits.ecn_equal_unsourced and port.kmin_bytes is not None and \
                port.kmin_bytes == port.kmax_bytes:
            raise InputError(f"port {port.name}: the policy's ECN thresholds scaled to {port.speed_gbps:g} Gb/s give "
                             f"a minimum and a maximum both of {port.kmin_bytes} B, and whether {platform} takes them "
                             "equal is in no document losslessd read (its command reference bounds neither by the "
                             f"other): give the policy an ecn.max_threshold_bytes min above {port.kmin_bytes} B, or "
                             "set this port's ECN by hand")
        if (record.id == "cisco_nxos" and prof.wants("buffer") and port.long_cable_m and port.pause_buffer is None
                and port.speed_gbps):
            raise InputError(f"port {port.name}: no IEEE 802.3 pause response is listed for {port.speed_gbps:g} Gb/s "
                             f"(headroom.PAUSE_QUANTA stops at {hr.FASTEST_QUANTA_MBPS // 1000}G), so the pause buffer "
                             f"its {port.long_cable_m} m cable needs cannot be sized: write this section by hand")
        for section, wanted in needs.items():
            if not prof.wants(section):
                continue
            for fact in wanted:
                if fact == "sonic" and port.sonic is None:
                    why = port.sonic_note or prof.sku_note or "speed or cable length unknown"
                    fix = f"; {_sku_fix(prof)}" if port.sonic_note is None and prof.sku_source is not None else ""
                    raise InputError(f"port {port.name}: {why}; SONiC's lossless headroom for it is not known, so "
                                     "losslessd writes no buffer profile (SONiC takes it from the SKU's "
                                     f"pg_profile_lookup.ini, or from buffer_headroom_mellanox.lua on Spectrum){fix}",
                                     **(_sku_where(prof) if fix else {}))
                # dcb(8) has no cable length to write (dcb-pfc(8) `delay` is the driver's own unit): a port read with
                # dcb gets PFC without it, and its buffers only where their sizes could be worked out.
                if fact == "cable" and port.dcb_tool == "dcb":
                    continue
                if fact in facts and facts[fact] is None:
                    raise InputError(f"port {port.name}: {_MISSING[fact]} ({section} section): {_GIVE[fact]}")


def _sku_fix(prof: Profile) -> str:
    """What to change when the SKU is not one losslessd knows: the device's hwsku line, or --sku."""
    if prof.sku_source is None:
        return "give --sku"
    return ("correct DEVICE_METADATA|localhost hwsku if it is misspelt, or give --sku with a SKU losslessd ships "
            "whose buffers the switch has")


def _sku_where(prof: Profile) -> dict:
    src = prof.sku_source
    return {"file": src.file, "line": src.line} if src is not None and src.file else {}


def _outside(value: int, bounds: tuple[int, int] | None) -> bool:
    return bounds is not None and not bounds[0] <= value <= bounds[1]


def _bounds(rng: Range) -> tuple[float, float]:
    return (rng.min or 0, rng.max if rng.max is not None else math.inf)


def _step(value: int, step: int, allowed: tuple[float, float]) -> int | None:
    """``value`` as a whole number of ``step``: rounded down, else up, whichever stays in ``allowed`` (and above 0)."""
    down, up = value // step * step, -(-value // step) * step
    return down if down > 0 and down >= allowed[0] else up if up <= allowed[1] else None


def _speeds(platform: str, family: str | None, port: str, speed: float,
            prof: Profile | None = None) -> frozenset[float] | None:
    """The speeds ``platform`` takes where ``speed`` is written: its family's; InputError when the family is not known
    and ``speed`` is one some of the platform's families do not take (the platform cannot know which it is)."""
    limits = PLATFORMS[platform].limits
    if family is not None:
        return limits.family_speeds_gbps.get(family, limits.speeds_gbps)
    short = sorted(name for name, speeds in limits.family_speeds_gbps.items() if speed not in speeds)
    if short:
        model, src = (prof.model, prof.model_source) if prof is not None else (None, None)
        seen = f" from model {model!r}{families.model_note(model, src)}" if model else ""
        raise InputError(f"port {port}: {speed:g} Gb/s is no port speed of {platform} family {', '.join(short)}, and "
                         f"the family is not known{seen}: {families.fix_model(model, src)} or "
                         f"--family {'|'.join(families.names(platform))}",
                         **families.where(src if model else None))
    return limits.speeds_gbps


def _check_bytes(platform: str, prof: Profile) -> None:
    """Refuse a port whose pause buffer, pause/resume threshold or ECN threshold in bytes lies outside what the
    platform's CLI takes (RenderLimits): the switch would reject the line, and a snippet it rejects half-applies.
    The message names what the number comes from: the cable and speed (pause buffer), the policy (ECN thresholds)."""
    limits = PLATFORMS[platform].limits
    ecn = prof.writes_ecn(platform)
    for port in prof.ports:
        speed = f"{port.speed_gbps:g} Gb/s" if port.speed_gbps is not None else "its speed"
        cable = f"its {port.cable_length_m:g} m cable at {speed}" if port.cable_length_m is not None else speed
        sized = (f"{cable} needs", "check the port's cable length and speed, or size this port's lossless buffer by "
                 "hand")
        policy = (f"the policy's ECN thresholds scaled to {speed} give", "bring the policy's ecn.min_threshold_bytes "
                  "and ecn.max_threshold_bytes into that range")
        written: list[tuple[str, int | None, tuple[int, int] | None, tuple[str, str]]] = []
        if prof.wants("buffer") and port.pause_buffer is not None:
            buf = port.pause_buffer
            written += [("a pause buffer-size", buf.size_bytes, limits.pause_buffer_bytes, sized),
                        ("a pause-threshold", buf.pause_bytes, limits.pause_threshold_bytes, sized),
                        ("a resume-threshold", buf.resume_bytes, limits.pause_threshold_bytes, sized)]
        if ecn:
            written += [("an ECN minimum threshold", port.kmin_bytes, limits.ecn_threshold_bytes, policy),
                        ("an ECN maximum threshold", port.kmax_bytes, limits.ecn_threshold_bytes, policy)]
        for what, value, bounds, (cause, remedy) in written:
            if value is not None and _outside(value, bounds):
                low, high = bounds  # type: ignore[misc]
                raise InputError(f"port {port.name}: {cause} {what} of {value} B, outside what {platform} accepts "
                                 f"({low}-{high} B), so the switch would reject the line: {remedy}")


def _fit_limits(platform: str, prof: Profile, family: str | None) -> Profile:
    """``prof`` with the values the platform accepts (platforms.RenderLimits): a port MTU outside its range is
    refused where the snippet writes it; the watchdog's polling interval is moved into its range and, where the
    platform counts polls, made long enough for the detection time in the most polls it takes; detection and
    restoration become whole polls (or the platform's step) inside the policy's ranges. Timers that still do not
    fit are refused."""
    limits = PLATFORMS[platform].limits
    for port in prof.ports if limits.cable_m is not None else ():
        cable = port.cable_length_ceil_m
        if cable is not None and _outside(cable, limits.cable_m):
            low, high = limits.cable_m  # type: ignore[misc]
            raise InputError(f"port {port.name}: a {cable} m cable is outside what {platform} applies ({low}-{high} "
                             f"m): {limits.cable_refused}; size this port's lossless buffer by hand")
    _check_bytes(platform, prof)
    pct = prof.mark_probability_pct
    if prof.writes_ecn(platform) and _outside(pct, limits.mark_probability_pct):
        low, high = limits.mark_probability_pct  # type: ignore[misc]
        raise PolicyLimit(f"{platform} takes an ECN mark probability of {low}-{high} %, and the policy gives {pct:g} % "
                          "(ecn.mark_probability_pct): the switch would reject the line; give the policy a range "
                          f"that holds a percentage from {low} to {high}")
    for port in prof.ports if prof.wants("ports") else ():  # (the section that writes the MTU and speed)
        if _outside(port.mtu_bytes, limits.mtu_bytes):
            low, high = limits.mtu_bytes  # type: ignore[misc]
            raise InputError(f"port {port.name}: MTU {port.mtu_bytes} B is outside what {platform} accepts "
                             f"({low}-{high} B of IP MTU); give the port an MTU in that range")
        speeds = _speeds(platform, family, port.name, port.speed_gbps, prof) if port.speed_gbps is not None else None
        if speeds and port.speed_gbps not in speeds:
            which = f"{platform} {family}" if family in limits.family_speeds_gbps else platform
            raise InputError(f"port {port.name}: {port.speed_gbps:g} Gb/s is no port speed {which} takes "
                             f"({', '.join(f'{s:g}G' for s in sorted(speeds))})")
    if not (prof.wants("watchdog") and prof.watchdog):
        return prof
    action = prof.wd_action
    if limits.wd_actions is not None:
        wanted = prof.wd_actions or tuple(limits.wd_actions)
        chosen = next((a for a in ("drop", *wanted) if a in wanted and a in limits.wd_actions), None)
        if chosen is None:
            raise PolicyLimit(f"{platform} PFC watchdog: the policy's watchdog.actions ({', '.join(wanted)}) are none "
                             f"that {platform} can set ({', '.join(limits.wd_actions)}); add one of those to the "
                             "policy's watchdog.actions")
        action = chosen
    poll = prof.wd_poll_ms
    if limits.wd_restoration_is_poll:  # (the poll is the restoration time: inside the policy's restoration range)
        low, high = prof.wd_restoration_range
        poll = max(poll, math.ceil(low))
        poll = min(poll, math.floor(high)) if high != math.inf else poll
    if limits.wd_detection_polls is not None:  # long enough for the detection time in as many polls as it takes
        poll = max(poll, math.ceil(prof.wd_detection_ms / limits.wd_detection_polls[1]))
    if limits.wd_poll_ms is not None:
        poll = min(max(poll, limits.wd_poll_ms[0]), limits.wd_poll_ms[1])
    counts = limits.wd_counts_polls
    detection = _step(prof.wd_detection_ms, poll if counts else limits.wd_detection_step_ms, prof.wd_detection_range)
    restoration = _step(prof.wd_restoration_ms, poll if limits.wd_restoration_polls else limits.wd_restoration_step_ms,
                        prof.wd_restoration_range)
    if limits.wd_restoration_is_poll:
        restoration = poll if prof.wd_restoration_range[0] <= poll <= prof.wd_restoration_range[1] else None
    if detection is not None and not counts and poll > detection // 2 and limits.wd_poll_ms is not None:
        poll = max(detection // 2, limits.wd_poll_ms[0])  # still twice per (rounded) detection time
    if restoration is not None and not counts and poll > restoration:  # (WDG002: a poll longer than the restoration)
        poll = max(restoration, limits.wd_poll_ms[0] if limits.wd_poll_ms is not None else 1)
    why = None
    if detection is None or detection < poll:
        step = poll if counts else limits.wd_detection_step_ms
        why = (f"a detection time of {prof.wd_detection_ms} ms is no whole number of {step} ms steps at or above its "
               f"{poll} ms polling interval within the policy's {_range_ms(prof.wd_detection_range)}")
    elif restoration is None and limits.wd_restoration_is_poll:
        why = (f"it restores a queue at its polling interval, {poll} ms here, outside the policy's "
               f"{_range_ms(prof.wd_restoration_range)}")
    elif restoration is None:
        why = (f"a restoration time of {prof.wd_restoration_ms} ms is no whole number of "
               f"{limits.wd_restoration_step_ms} ms within the policy's {_range_ms(prof.wd_restoration_range)}")
    elif poll > restoration:
        why = (f"its polling interval is at least {poll} ms, longer than a restoration time within the policy's "
               f"{_range_ms(prof.wd_restoration_range)}")
    elif _outside(detection, limits.wd_detection_ms) or _outside(restoration, limits.wd_restoration_ms):
        why = (f"detection {detection} ms and restoration {restoration} ms must lie in "
               f"{limits.wd_detection_ms} and {limits.wd_restoration_ms} ms")
    elif _outside(detection // poll, limits.wd_detection_polls) or _outside(restoration // poll,
                                                                            limits.wd_restoration_polls):
        why = (f"detection {detection} ms and restoration {restoration} ms are {detection // poll} and "
               f"{restoration // poll} polls of {poll} ms, outside {limits.wd_detection_polls} and "
               f"{limits.wd_restoration_polls}")
    if why or detection is None or restoration is None:
        raise PolicyLimit(f"{platform} PFC watchdog: {why}; widen the policy's watchdog.detection_time_ms or "
                         "restoration_time_ms range")
    return replace(prof, wd_poll_ms=poll, wd_detection_ms=detection, wd_restoration_ms=restoration, wd_action=action)


def _range_ms(rng: tuple[float, float]) -> str:
    return f"{rng[0]:g}-{rng[1]:g} ms"


def _sonic_keys(device: Device, port, policy: Policy) -> dict[str, dict[int, tuple[str, bool]]]:
    """PortFacts.keys: the CONFIG_DB key each PG and queue of the port came from, where it is not "<port>|<index>",
    and whether that PG (or queue's egress buffer) is lossless now (headroom computed at run time, or a profile with
    an xoff; an egress profile headroom.egress_lossless accepts)."""
    out: dict[str, dict[int, tuple[str, bool]]] = {}
    lossy = None
    for table, items, field_ in (("BUFFER_PG", port.priority_groups, "source"), ("QUEUE", port.queues, "source"),
                                 ("BUFFER_QUEUE", port.queues, "buffer_source")):
        for index, item in items.items():
            src = getattr(item, field_)
            parts = src.parts if isinstance(src, DocRef) else ()
            if parts[:1] != (table,):  # a multi-ASIC dump's namespace first ("asic0", "BUFFER_QUEUE", key)
                parts = parts[1:]
            if parts[:1] == (table,) and len(parts) > 1 and parts[1] != f"{port.name}|{index}":
                if table == "BUFFER_QUEUE":
                    lossy = lossy if lossy is not None else lossy_egress_profiles(port, lossless_queues(policy, port))
                    lossless = hr.egress_lossless(device, item.buffer_profile, lossy)[0] is True
                else:  # a PG with xoff headroom (or computed at run time); QUEUE's entries hold no buffer
                    lossless = table == "BUFFER_PG" and pg_buffer_break(device, port, index) is None
                out.setdefault(table, {})[index] = (parts[1], lossless)
    return out


def device_profile(pol: Policy, device: Device, facts: list[PortFacts], platform: str, *,
                   pool_bytes: int | None = None, hwsku: str | None = None, model: str | None = None,
                   family: str | None = None, all_facts: bool = True) -> Profile:
    """The profile of ``facts`` (a parsed ``device``'s ports, device_facts, and any given besides) rendered for
    ``platform``, with what the device says of itself: its SKU, model and buffers, SONiC's egress profiles, the
    policies, traffic pools and lossy mode it has now, its classes and buffer model; ``hwsku``/``model`` (--sku/--model)
    over its own, ``pool_bytes`` its pool (device_facts) or --pool-size. The one way render --device, fix, the tuner's
    candidates (tune.candidate.snippet) and their tests make it."""
    sku = hwsku or device.hwsku
    buffers = hr.switch_buffers(device, hwsku=sku)
    # (the family the device's own lines show comes before its model's: Device.config_family, read as it was parsed)
    family = family or device.config_family
    # The SKU the device's DEVICE_METADATA names (not --sku): an error about it names the file and line to change.
    sku_source = device.hwsku_source if hwsku is None and device.hwsku and not buffers.known else None
    return profile(pol, facts, sku, pool_bytes=pool_bytes, all_facts=all_facts, hardware=device.hardware,
                   model=model, family=family, buffers=buffers,
                   egress=sonic_egress(device, pol) if platform == "sonic" else None,  # (only SONiC binds BUFFER_QUEUE)
                   attached=device.service_policies, traffic_pools=device.traffic_pools,
                   lossy_mode=device.lossy_mode, sku_source=sku_source, classes=device.forwarding_classes,
                   defined=device.defined_classifiers if device.defined_classifiers is not None else {},
                   # (the model read from the device's file, unless --sku named another: hwsku stands for it on EOS)
                   model_source=device.hardware_source if not model and not (hwsku and not device.hardware)
                   else None, buffer_model=device.buffer_model,
                   held_xoffs=_held_xoffs(device, facts))


def _held_xoffs(device: Device, facts: list[PortFacts]) -> list[int]:
    """The xoff the device's lossless PGs hold in the shared headroom pool on the ports the snippet does not write:
    still there after it, so render's over-subscription check adds them (it counted the rendered PGs alone)."""
    written = {f.name for f in facts}
    return [xoff for port, held in pool_xoffs(device, POOL)[0].items() if port not in written for xoff in held]


def carried_queues(ports: Sequence[PortFacts | PortProfile], lossless: Iterable[int],
                   remedy: str = "write the maps too") -> dict[str, list[int]]:
    """Each port's egress queues that carry the ``lossless`` priorities by its device's own maps (``carries``,
    model Port.priority_queues: with TC 3 on queue 4, queue 4). InputError naming the first port whose maps do not
    place one (and how many more), never queue n for priority n by guess: the one refusal of render, fix and tune
    (``remedy``: what else the operator can do there)."""
    lossless = sorted(lossless)
    out, unplaced = {}, []
    for port in ports:
        carries = port.carries or {}
        missing = [prio for prio in lossless if not carries.get(prio)]
        if missing:
            unplaced.append((port, missing))
        else:
            out[port.name] = sorted({q for prio in lossless for q in carries[prio]})
    if unplaced:
        port, missing = unplaced[0]
        more = f" (and {len(unplaced) - 1} more port(s))" if len(unplaced) > 1 else ""
        raise InputError(f"port {port.name}{more}: its config does not say which egress queue carries lossless "
                         f"priority {', '.join(map(str, missing))}, so the ECN settings would go on a guessed queue: "
                         "map the priority's traffic class to a queue (SONiC TC_TO_QUEUE_MAP bound in PORT_QOS_MAP, "
                         "EOS `qos map traffic-class to tx-queue`, NVUE egress-queue-mapping, Junos forwarding-class "
                         f"queue-num, NX-OS no-drop class), or {remedy}",
                         file=port.source.file if port.source else None,
                         line=port.source.line if port.source else None)
    return out


def device_facts(device: Device, policy: Policy, names: Sequence[str] | None = None,
                 ) -> tuple[list[PortFacts], int | None]:
    """Port facts of a parsed config's RoCE-facing ports (the policy's choice, as lint makes it), or of the ports
    ``names`` (tune's --ports: each of the device's), with a host NIC's receive buffer total, and the config's ingress
    lossless pool size when it has one. A member the switch suspends from its aggregate (model.suspended) is one too:
    the snippet gives it the aggregate's values (PortFacts.own), with which it rejoins. The one way a port's facts are
    made, so none misses one (its DCB tool, SONiC keys, rates)."""
    if names is None:
        ctx = Context(Fabric(), policy)
        chosen = {c.port for c in ctx.selection(device) if c.selected or c.rule == SUSPENDED_RULE}
        ports = [p for p in device.ports.values() if p.name in chosen]
    else:
        ports = [device.ports[name] for name in names]
    pool = device.buffer_pools.get(POOL)
    record = PLATFORMS.get(device.platform)
    on_aggregate = record is not None and record.qos_on_aggregate  # (elsewhere a member keeps its own policies)
    # One MTU per aggregate, the largest of its members' and, where a member's own differs, the aggregate's own (the
    # snippet writes it on the aggregate and on members' own lines): every member's numbers (pause buffers) use it,
    # never smaller than a lossless frame any of them carries.
    bundle_mtu: dict[str, int] = {}
    for p in ports if on_aggregate else ():
        if p.bundle is not None:
            given = [p.mtu_bytes or 0] + [int(i.aggregate_value) for i in p.incompatible or ()
                                          if i.setting == MEMBER_MTU and i.aggregate_value is not None
                                          and is_small_int(i.aggregate_value)]
            bundle_mtu[p.bundle] = max(bundle_mtu.get(p.bundle, 0), *given)
    facts = []
    for p in ports:
        sizes = [pg.size_bytes for pg in p.priority_groups.values() if pg.size_bytes is not None]
        total = sum(sizes) if device.kind == DeviceKind.host and sizes else None
        own = tuple(p.own_settings or ()) if on_aggregate and p.bundle else ()
        mtu = (bundle_mtu.get(p.bundle) if p.bundle is not None else None) or p.mtu_bytes
        facts.append(PortFacts(p.name, p.speed_gbps, p.cable_length_m, mtu, p.lanes,
                               nic_buffer_total_bytes=total, max_mtu_bytes=p.max_mtu_bytes, source=p.source,
                               keys=_sonic_keys(device, p, policy), attached=p.service_policies or {},
                               by_hand=p.by_hand or {}, by_hand_dscp=p.by_hand_dscp or {},
                               bundle=p.bundle if on_aggregate else None,
                               bundle_attached=(device.bundle_policies or {}).get(p.bundle or "", {}), own=own,
                               carries=p.priority_queues() or {},
                               rates={q: list(queue.scheduler.rates) for q, queue in sorted(p.queues.items())
                                      if queue.scheduler is not None and queue.scheduler.rates},
                               dcb_tool=p.dcb_tool, mlx5_ecn=p.mlx5_ecn(), nic_driver=p.nic_driver,
                               pfc_now=tuple(p.pfc_enabled) if p.pfc_enabled is not None else None))
    return facts, pool.size_bytes if pool is not None else None
