"""The one normalized model every parser produces and every rule reads.

Units live in field names (``_bytes``, ``_ms``, ``_gbps``, ``_m``, ``_pct``); ``None`` always
means "not known" (never 0 or -1). Objects a finding can point at carry a ``source``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

MODEL_VERSION = 1


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Source(_Base):
    """Where a fact came from: a file and line, a JSON pointer, or a device command."""

    file: str | None = None
    line: int | None = None
    pointer: str | None = None  # RFC 6901 JSON pointer into a JSON/YAML document
    device: str | None = None
    command: str | None = None

    def describe(self) -> str:
        where = self.file or (f"{self.device}: {self.command}" if self.command else self.device or "?")
        if self.line is not None:
            where += f":{self.line}"
        if self.pointer:
            where += f" {self.pointer}"
        return where


class DeviceKind(str, Enum):
    switch = "switch"
    host = "host"
    subnet_manager = "subnet_manager"  # InfiniBand subnet manager (OpenSM): Device.opensm


class Trust(str, Enum):
    dscp = "dscp"
    pcp = "pcp"  # 802.1p / CoS
    none = "none"


class SchedulerType(str, Enum):
    strict = "strict"
    dwrr = "dwrr"
    wrr = "wrr"
    ets = "ets"  # NIC ETS (weighted)
    vendor = "vendor"  # NIC "vendor" TSA: unlimited, best effort


class Ecn(_Base):
    """ECN/WRED marking on one egress queue. Thresholds are queue occupancy in bytes."""

    profile: str | None = None
    ecn_enabled: bool | None = None
    min_threshold_bytes: int | None = None  # Kmin
    max_threshold_bytes: int | None = None  # Kmax
    mark_probability_pct: float | None = None  # Pmax
    # Thresholds written in a unit we could not convert (e.g. EOS "segments", or time with no
    # known port speed): kept verbatim so rules can say what they could not verify.
    unconverted: str | None = None
    source: Source | None = None


class Scheduler(_Base):
    name: str | None = None
    type: SchedulerType | None = None
    weight: int | None = None
    source: Source | None = None


class Queue(_Base):
    index: int
    scheduler: Scheduler | None = None
    ecn: Ecn | None = None
    source: Source | None = None


class BufferPool(_Base):
    name: str
    direction: Literal["ingress", "egress", "both"] | None = None  # SONiC BUFFER_POOL type (sonic-buffer-pool.yang)
    mode: Literal["static", "dynamic"] | None = None
    size_bytes: int | None = None  # None: sized at run time (SONiC dynamic buffer model)
    shared_headroom_bytes: int | None = None  # SONiC BUFFER_POOL.xoff: shared headroom pool
    source: Source | None = None


class BufferProfile(_Base):
    """An ingress (or egress) buffer profile: reserved size, PFC xon/xoff, shared threshold."""

    name: str
    pool: str | None = None
    size_bytes: int | None = None  # reserved (guaranteed) bytes incl. headroom
    xon_bytes: int | None = None
    xoff_bytes: int | None = None  # headroom that absorbs in-flight data after XOFF is sent
    xon_offset_bytes: int | None = None
    static_threshold_bytes: int | None = None  # static_th: shared-buffer cap for this PG
    dynamic_threshold: int | None = None  # dynamic_th: alpha = 2**dynamic_threshold
    headroom_computed_at_runtime: bool = False  # SONiC dynamic headroom
    source: Source | None = None

    @property
    def alpha(self) -> float | None:
        return None if self.dynamic_threshold is None else 2.0**self.dynamic_threshold


class PriorityGroup(_Base):
    """An ingress priority group (switch) or NIC receive buffer, with its buffer profile."""

    index: int
    profile: str | None = None  # name in Device.buffer_profiles; None = none configured
    runtime_profile: bool = False  # SONiC "NULL"/absent lossless PG: headroom computed at run time
    size_bytes: int | None = None  # NIC receive buffer size when the NIC reports it directly
    source: Source | None = None


# What a PFC watchdog does to a queue it finds stormed, whatever the vendor calls it (parsers map their
# own words): drop its packets, forward them ignoring pauses, only log/notify, or shut the port
# (error-disable). The policy's `watchdog.actions` says which of these mitigate a storm.
WatchdogAction = Literal["drop", "forward", "notify-only", "errdisable"]
WATCHDOG_ACTIONS: tuple[str, ...] = get_args(WatchdogAction)


class Watchdog(_Base):
    """PFC watchdog (storm/deadlock detection) on a port."""

    enabled: bool | None = None
    priorities: list[int] | None = None  # None = every lossless priority on the port
    detection_time_ms: float | None = None
    restoration_time_ms: float | None = None
    polling_interval_ms: float | None = None
    action: WatchdogAction | None = None
    action_raw: str | None = None  # the vendor's own word for the action, as configured (or its default)
    # Set when the timers are the platform's own defaults computed by a documented rule (SONiC
    # `pfcwd start_default` scales them with the port count): the rule, in words, for messages.
    default_rule: str | None = None
    source: Source | None = None


class NicEcn(_Base):
    """mlx5 DCQCN switches per priority: notification point (NP) and reaction point (RP)."""

    np_enabled: dict[int, bool] = Field(default_factory=dict)
    rp_enabled: dict[int, bool] = Field(default_factory=dict)
    # CNPs this NIC sends as notification point (sysfs ecn/roce_np/cnp_dscp, cnp_802p_prio)
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    source: Source | None = None
    # NP and RP switches are read from different places; a finding about one points there.
    np_source: Source | None = None
    rp_source: Source | None = None


class Port(_Base):
    name: str
    alias: str | None = None  # SONiC PORT alias: what the switch's LLDP sends as its port ID
    description: str | None = None
    admin_up: bool | None = None
    speed_gbps: float | None = None
    # IP MTU: the largest IP packet the port sends/receives, without Ethernet header, VLAN tags or FCS
    # (Linux/SONiC/EOS/NVUE `mtu`). Parsers of platforms whose `mtu` is the media/frame MTU (Junos:
    # IP MTU + 14) convert, so that LNK002 compares like with like.
    mtu_bytes: int | None = None
    cable_length_m: float | None = None
    trust: Trust | None = None
    trust_source: Source | None = None

    # Classification and queueing. Switch chain: DSCP -> TC -> (PG, queue), TC -> priority.
    # NIC chain: DSCP -> priority -> TC, priority -> receive buffer (PG).
    dscp_to_tc: dict[int, int] | None = None
    pcp_to_tc: dict[int, int] | None = None  # switch port trusting PCP (802.1p/CoS): PCP -> TC
    dscp_to_priority: dict[int, int] | None = None
    priority_to_tc: dict[int, int] | None = None
    tc_to_priority: dict[int, int] | None = None  # None: TC n is sent as priority n
    tc_to_pg: dict[int, int] | None = None
    priority_to_pg: dict[int, int] | None = None
    tc_to_queue: dict[int, int] | None = None  # None on a switch: TC n uses queue n
    pfc_priority_to_queue: dict[int, int] | None = None
    # Egress DSCP rewrite by TC (EOS `qos rewrite dscp` + `qos map traffic-class T to dscp D`, SONiC
    # PORT_QOS_MAP tc_to_dscp_map): the DSCP the next hop classifies. None: DSCP kept; a TC
    # missing from the map: rewritten to a value the input does not show.
    tc_to_dscp_rewrite: dict[int, int] | None = None
    map_source: Source | None = None

    pfc_enabled: list[int] | None = None  # priorities with PFC on; [] = PFC off, None = unknown
    pfc_source: Source | None = None
    queues: dict[int, Queue] = Field(default_factory=dict)
    priority_groups: dict[int, PriorityGroup] = Field(default_factory=dict)
    watchdog: Watchdog | None = None
    nic_ecn: NicEcn | None = None
    vlans: list[int] | None = None  # L2 VLAN membership ([] = routed port, None = unknown)
    # True when the config gives this port any PFC/QoS-map/trust setting (SONiC PORT_QOS_MAP entry,
    # EOS PFC or trust lines, every NIC port): the default set of RoCE-facing ports.
    qos_configured: bool = False
    # Why the config itself makes this port lossy on purpose (SONiC smart-switch DPU ports: a tc_to_pg_map
    # with no lossless PG and no pfc_enable): such a port is never selected as RoCE-facing.
    lossy_by_design: str | None = None
    source: Source | None = None

    def dscp_chain(self, dscp: int) -> Hop:
        """Follow one DSCP through this port's maps; unknown links of the chain stay None."""
        tc = priority = pg = None
        if self.dscp_to_priority is not None:  # NIC order: DSCP -> priority -> TC
            priority = self.dscp_to_priority.get(dscp)
            if priority is not None:
                if self.priority_to_tc is not None:
                    tc = self.priority_to_tc.get(priority)
                if self.priority_to_pg is not None:
                    pg = self.priority_to_pg.get(priority)
            return Hop(port=self.name, dscp=dscp, tc=tc, priority=priority, pg=pg, queue=tc)
        tc = self.dscp_to_tc.get(dscp) if self.dscp_to_tc is not None else None
        if tc is None:
            return Hop(port=self.name, dscp=dscp)
        priority = self.tc_to_priority.get(tc) if self.tc_to_priority is not None else tc
        if self.tc_to_pg is not None:
            pg = self.tc_to_pg.get(tc)
        queue = self.tc_to_queue.get(tc) if self.tc_to_queue is not None else tc
        return Hop(port=self.name, dscp=dscp, tc=tc, priority=priority, pg=pg, queue=queue)


class Hop(_Base):
    """Where one DSCP lands on one port."""

    port: str
    dscp: int
    tc: int | None = None
    priority: int | None = None
    pg: int | None = None
    queue: int | None = None

    def describe(self) -> str:
        parts = [f"DSCP {self.dscp}"]
        for label, value in (("TC", self.tc), ("priority", self.priority), ("PG", self.pg), ("queue", self.queue)):
            parts.append(f"{label} {'?' if value is None else value}")
        return " -> ".join(parts)


class ParseIssue(_Base):
    """Something a parser could not read; becomes a SYS finding, never a crash."""

    code: str  # SYS rule code, e.g. SYS002
    message: str
    source: Source | None = None


class IbQosSet(_Base):
    """OpenSM's effective QoS tables for one kind of port (CA, switch port 0, switch external, router).

    Each table is what OpenSM applies: the qos_<type>_ option, else the qos_ option, else OpenSM's
    built-in default (then its *_source is None)."""

    max_vls: int | None = None
    high_limit: int | None = None
    vlarb_high: list[tuple[int, int]] | None = None  # (VL, weight) pairs in table order
    vlarb_low: list[tuple[int, int]] | None = None
    sl2vl: list[int] | None = None  # VL of SL 0..15; VL 15 drops the SL
    vlarb_high_source: Source | None = None
    vlarb_low_source: Source | None = None
    sl2vl_source: Source | None = None


class IbPartition(_Base):
    """One partitions.conf definition (P_Key, IPoIB flag, broadcast-group SL, members as written)."""

    name: str
    pkey: int | None = None  # None: OpenSM generates one
    ipoib: bool = False
    sl: int | None = None
    members: list[str] = Field(default_factory=list)
    source: Source | None = None


class IbSlUse(_Base):
    """An SL that the QoS policy hands out: a qos-levels entry or a qos-ulps match rule."""

    kind: Literal["qos-level", "qos-ulp"]
    name: str  # qos-level name, or the qos-ulps match text ("ipoib, pkey 0x0001")
    sl: int
    source: Source | None = None


class IbCreditLoops(_Base):
    """The verdict of a saved ibdiagnet credit-loop check, as the tool printed it."""

    loops_found: bool | None = None  # None: the output holds no credit-loop check
    evidence: list[str] = Field(default_factory=list)  # the lines that report the loop(s)
    sls: int | None = None  # "Analyzing Fabric for Credit Loops N SLs, M VLs used"
    vls: int | None = None
    source: Source | None = None


class OpenSm(_Base):
    """OpenSM subnet manager options (opensm.conf) with its QoS policy, partitions and ibdiagnet verdict.

    Options absent from the file hold OpenSM's built-in default and have no entry in ``sources``."""

    routing_engines: list[str] = Field(default_factory=list)  # in trial order; [] = OpenSM's default
    no_fallback: bool = False  # `no_fallback` in the list: no last-resort minhop
    sm_priority: int | None = None
    sweep_interval_s: int | None = None
    transaction_timeout_ms: int | None = None
    transaction_retries: int | None = None
    lmc: int | None = None
    max_op_vls: int | None = None  # IBA OperationalVLs code: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14
    qos_enabled: bool | None = None
    qos_sets: dict[str, IbQosSet] = Field(default_factory=dict)  # ca, sw0, swe, rtr
    sm_sl: int | None = None
    lash_start_vl: int | None = None
    connect_roots: bool | None = None
    max_reverse_hops: int | None = None
    root_guid_file: str | None = None
    ignore_other_sm: bool | None = None
    sm_inactive: bool | None = None
    subnet_prefix: int | None = None
    guid: int | None = None  # port GUID OpenSM binds to (0: the first active port)
    qos_policy_file: str | None = None
    partition_config_file: str | None = None
    sl_uses: list[IbSlUse] = Field(default_factory=list)
    partitions: list[IbPartition] = Field(default_factory=list)
    credit_loops: IbCreditLoops | None = None
    sources: dict[str, Source] = Field(default_factory=dict)  # opensm.conf option -> where it was set


class Endpoint(_Base):
    """One end of a link: a device and one of its ports."""

    device: str
    port: str

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"


class Neighbor(_Base):
    """What a device itself reports about the far end of one of its ports (LLDP or config)."""

    port: str
    remote_device: str
    remote_port: str | None = None
    origin: Literal["lldp", "config"] = "lldp"
    source: Source | None = None


class Link(_Base):
    """A cable between two ports; either end may be a host NIC."""

    a: Endpoint
    b: Endpoint
    origin: Literal["topology", "lldp", "config"] = "topology"
    source: Source | None = None


class NextHop(_Base):
    port: str | None = None  # egress interface
    address: str | None = None  # next-hop IP as printed


class Route(_Base):
    """One routing-table entry with its ECMP next hops (from a routing-table capture)."""

    prefix: str
    next_hops: list[NextHop] = Field(default_factory=list)
    source: Source | None = None


class TopologyIssue(_Base):
    """What could not be made into a link (unknown device or port, duplicate, disagreeing ends, garbled
    topology entry): kept for the LNK rule ``code`` to report, while the rest of the fabric is analysed."""

    code: str  # LNK rule code
    message: str
    devices: list[str] = Field(default_factory=list)  # every device involved, the one to report on first
    port: str | None = None  # the port of devices[0] the issue is about
    key: str = ""  # stable id (sorted endpoints + what)
    severity: Literal["info", "warning", "error"] | None = None  # None: the rule's own severity
    source: Source | None = None


class Device(_Base):
    name: str
    kind: DeviceKind
    platform: str  # id from losslessd.platforms
    hwsku: str | None = None
    ports: dict[str, Port] = Field(default_factory=dict)
    buffer_pools: dict[str, BufferPool] = Field(default_factory=dict)
    buffer_profiles: dict[str, BufferProfile] = Field(default_factory=dict)
    # NIC host facts
    roce_tos: int | None = None  # cma_roce_tos: IP TOS byte for RDMA-CM connections (DSCP << 2 | ECN)
    roce_tos_source: Source | None = None
    opensm: OpenSm | None = None  # subnet manager devices
    neighbors: list[Neighbor] = Field(default_factory=list)  # LLDP / DEVICE_NEIGHBOR, as the device reports
    routes: list[Route] = Field(default_factory=list)  # routing-table capture, when given
    tier: int | None = None  # Clos tier from the topology (0 hosts, 1 leaves, 2 spines, 3 super-spines)
    issues: list[ParseIssue] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    source: Source | None = None
    # Set by parsers of JSON inputs: fills in a source's line from its JSON pointer (see locate).
    _locator: Callable[[Source], None] | None = PrivateAttr(default=None)

    def locate(self, source: Source | None = None) -> None:
        """Fill in the line of one of this device's JSON-pointer sources (of all of them when None).

        Looking lines up for every source would cost more than the rest of a large lint: they are
        found when a finding, or a caller that wants the whole model, needs them."""
        locator = self._locator
        if locator is None:
            return
        for src in (source,) if source is not None else _sources(self):
            if src.line is None and src.pointer:
                locator(src)


def _sources(root: BaseModel) -> list[Source]:
    """Every Source in a model tree (a few thousand per switch: only fields that can hold models are walked)."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Source):
            found.append(node)
            continue
        for name in _model_fields(type(node)):
            value = node.__dict__[name]
            if isinstance(value, BaseModel):
                stack.append(value)
            elif isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
    return found


@cache
def _model_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """Names of the fields of ``cls`` whose type mentions a model (not the int maps, strings...)."""
    return tuple(name for name, f in cls.model_fields.items() if _mentions_model(f.annotation))


def _mentions_model(annotation) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_mentions_model(arg) for arg in get_args(annotation))


class Fabric(_Base):
    version: int = MODEL_VERSION
    devices: dict[str, Device] = Field(default_factory=dict)
    issues: list[ParseIssue] = Field(default_factory=list)  # inputs that gave no device at all
    links: list[Link] = Field(default_factory=list)
    # How packets are routed for path and deadlock analysis: declared in the topology file
    # ("updown": valley-free Clos routing; "shortest-path": ECMP shortest paths, as BGP/OSPF pick
    # them), or "routes" when routing-table captures are given; None when there is no topology.
    routing: Literal["updown", "shortest-path", "routes"] | None = None
    topology_source: Source | None = None
    topology_issues: list[TopologyIssue] = Field(default_factory=list)
