"""The one normalized model every parser produces and every rule reads.

Units live in field names (``_bytes``, ``_ms``, ``_gbps``, ``_m``, ``_pct``); ``None`` always
means "not known" (never 0 or -1). Objects a finding can point at carry a ``source``.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
    direction: Literal["ingress", "egress"] | None = None
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


class Watchdog(_Base):
    """PFC watchdog (storm/deadlock detection) on a port."""

    enabled: bool | None = None
    priorities: list[int] | None = None  # None = every lossless priority on the port
    detection_time_ms: float | None = None
    restoration_time_ms: float | None = None
    polling_interval_ms: float | None = None
    action: str | None = None  # drop | forward | alert | ...
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
    description: str | None = None
    admin_up: bool | None = None
    speed_gbps: float | None = None
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
    map_source: Source | None = None

    pfc_enabled: list[int] | None = None  # priorities with PFC on; [] = PFC off, None = unknown
    pfc_source: Source | None = None
    queues: dict[int, Queue] = Field(default_factory=dict)
    priority_groups: dict[int, PriorityGroup] = Field(default_factory=dict)
    watchdog: Watchdog | None = None
    nic_ecn: NicEcn | None = None
    # True when the config gives this port any PFC/QoS-map/trust setting (SONiC PORT_QOS_MAP entry,
    # EOS PFC or trust lines, every NIC port): the default set of RoCE-facing ports.
    qos_configured: bool = False
    source: Source | None = None

    def dscp_chain(self, dscp: int) -> Hop:
        """Follow one DSCP through this port's maps; unknown links of the chain stay None."""
        hop = Hop(port=self.name, dscp=dscp)
        if self.dscp_to_priority is not None:  # NIC order: DSCP -> priority -> TC
            hop.priority = self.dscp_to_priority.get(dscp)
            if hop.priority is not None:
                if self.priority_to_tc is not None:
                    hop.tc = self.priority_to_tc.get(hop.priority)
                if self.priority_to_pg is not None:
                    hop.pg = self.priority_to_pg.get(hop.priority)
            hop.queue = hop.tc
            return hop
        if self.dscp_to_tc is None:
            return hop
        hop.tc = self.dscp_to_tc.get(dscp)
        if hop.tc is None:
            return hop
        hop.priority = self.tc_to_priority.get(hop.tc) if self.tc_to_priority is not None else hop.tc
        if self.tc_to_pg is not None:
            hop.pg = self.tc_to_pg.get(hop.tc)
        hop.queue = self.tc_to_queue.get(hop.tc) if self.tc_to_queue is not None else hop.tc
        return hop


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
    issues: list[ParseIssue] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    source: Source | None = None


class Fabric(_Base):
    version: int = MODEL_VERSION
    devices: dict[str, Device] = Field(default_factory=dict)
    issues: list[ParseIssue] = Field(default_factory=list)  # inputs that gave no device at all
