"""The one normalized model every parser produces and every rule reads.

Units live in field names (``_bytes``, ``_ms``, ``_gbps``, ``_m``, ``_pct``); ``None`` always
means "not known" (never 0 or -1). Objects a finding can point at carry a ``source``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, get_args

from ..records import record, written_later

MODEL_VERSION = 2

# The model is plain slotted dataclasses: parsers build tens of thousands of objects per fabric and
# per-object validation cost more than everything else in a fleet lint. Parser output is validated
# in the tests (losslessd.model.validate.check, strict) and dicts coming from outside (rule case
# files, the Python API) through pydantic (``Model.model_validate``).
if TYPE_CHECKING:  # for type checkers: a class keeps its annotated fields; Model says how it is built
    _C = TypeVar("_C")

    def model_class(cls: type[_C]) -> type[_C]: ...
else:
    model_class = record(slots=True, kw_only=True)  # (==, hash and repr shared: losslessd/records.py)


class Model:
    """What every model class shares: pydantic-like dump, copy and validation helpers."""

    __slots__ = ()
    if TYPE_CHECKING:  # a dataclass, built from keywords (as the pydantic models were: the mypy plugin's default)
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

        def __init__(self, **data: Any) -> None: ...

    @classmethod
    def model_validate(cls, data: Any):
        """Build (and type-check, coercing as pydantic does) an object of this class from plain data."""
        from .validate import adapter

        kind: Any = cls  # (a class is hashable; mypy says a model class is not)
        return adapter(kind).validate_python(data)

    def model_dump(self, *, mode: Literal["python", "json"] = "python", exclude_defaults: bool = False,
                   exclude: set[str] | None = None, include: set[str] | None = None) -> dict:
        return dump(self, mode=mode, exclude_defaults=exclude_defaults, exclude=exclude, include=include)

    def model_dump_json(self, *, indent: int | None = None, exclude_defaults: bool = False,
                        exclude: set[str] | None = None, include: set[str] | None = None) -> str:
        return json.dumps(dump(self, mode="json", exclude_defaults=exclude_defaults, exclude=exclude, include=include),
                          indent=indent, ensure_ascii=False)

    def model_copy(self, *, update: dict | None = None, deep: bool = False):
        if not deep and not isinstance(self, Source):
            return dataclasses.replace(self, **(update or {}))
        out = copy.deepcopy(self) if deep else copy.copy(self)  # a Source copies as a plain Source
        for name, value in (update or {}).items():
            setattr(out, name, value)
        return out


@model_class
class Source(Model):
    """Where a fact came from: a file and line, a JSON pointer, or a device command."""

    file: str | None = None
    line: int | None = None
    pointer: str | None = None  # RFC 6901 JSON pointer into a JSON/YAML document
    device: str | None = None
    command: str | None = None

    def describe(self, file: str | None = None) -> str:
        """'file:line pointer' (``file``: the file as a report shows it, instead of as recorded)."""
        where = file or self.file or (f"{self.device}: {self.command}" if self.command else self.device or "?")
        line = self.line
        if line is not None:
            where += f":{line}"
        pointer = self.pointer
        if pointer:  # (a key naming 20,000 ports is a pointer of 240 KB: shown cut, as messages show such keys)
            where += f" {pointer}" if len(pointer) <= 160 else f" {pointer[:160]}... ({len(pointer):,} characters)"
        return where

    def as_tuple(self) -> tuple:
        return self.file, self.line, self.pointer, self.device, self.command

    def __eq__(self, other: object) -> bool:  # a DocRef equals the plain Source it stands for
        return isinstance(other, Source) and self.as_tuple() == other.as_tuple()

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self) -> Source:
        file, line, pointer, device, command = self.as_tuple()
        return Source(file=file, line=line, pointer=pointer, device=device, command=command)

    def __deepcopy__(self, memo: dict) -> Source:
        return self.__copy__()

    def __reduce__(self):
        file, line, pointer, device, command = self.as_tuple()
        return _source, (file, line, pointer, device, command)

    def plain(self) -> Source:
        """This place as a plain Source (line looked up): what crosses a process boundary."""
        return self if type(self) is Source else self.__copy__()


def _source(file, line, pointer, device, command) -> Source:
    # (set slot by slot: half the time of Source(file=...) keywords, for the 100,000 a parallel lint's workers send)
    source = _new(Source)
    source.file, source.line, source.pointer, source.device, source.command = file, line, pointer, device, command
    return source


_new = object.__new__


class DocRef(Source):
    """A place in a JSON document: the document and the keys that lead there (an entry, maybe one of its fields).

    Parsers of large JSON inputs (SONiC CONFIG_DB) hand out one of these per fact: a reference, not a formatted
    record. Its pointer and line are worked out when someone reads them (a report shows a few of the hundreds of
    thousands a fabric holds). ``doc`` has ``path``, ``pointer(parts)`` and ``line(parts, field)``."""

    __slots__ = ("_line", "doc", "field", "parts")
    _line: int | None  # (set when first looked up)
    device = None
    command = None

    def __init__(self, doc, parts: tuple, field: str | None = None):
        self.doc = doc
        self.parts = parts
        self.field = field

    def _path(self) -> tuple:
        return self.parts if self.field is None else (*self.parts, self.field)

    @property
    def file(self) -> str:  # type: ignore[override]  # (read-only: the document's)
        return self.doc.path

    @property
    def pointer(self) -> str:  # type: ignore[override]
        return self.doc.pointer(self._path())

    @property
    def line(self) -> int | None:
        try:
            return self._line
        except AttributeError:  # (not looked up yet: subclasses made without __init__ need not set it)
            line = self._line = self.doc.line(self.parts, self.field)
            return line

    @line.setter
    def line(self, value: int | None) -> None:
        self._line = value

    def __repr__(self) -> str:
        return f"DocRef({self.file!r}, {self.pointer!r})"


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


@model_class
class Ecn(Model):
    """ECN/WRED marking on one egress queue. Thresholds are queue occupancy in bytes."""

    profile: str | None = None
    ecn_enabled: bool | None = None
    min_threshold_bytes: int | None = None  # Kmin
    max_threshold_bytes: int | None = None  # Kmax
    mark_probability_pct: float | None = None  # Pmax
    # Thresholds written in a unit we could not convert (e.g. EOS "segments", or time with no
    # known port speed): kept verbatim so rules can say what they could not verify.
    unconverted: str | None = None
    # What WRED drops on the queue before it is full: "all" packets (WRED without marking: a Junos drop profile
    # without explicit-congestion-notification, a SONiC WRED_PROFILE with a colour enabled that its `ecn` mode does
    # not mark, NX-OS `random-detect` without `ecn`, EOS `random-detect drop` without `random-detect ecn`), only
    # those that are not ECN-capable ("non-ect": SONiC or NX-OS WRED that marks), or "none" (no WRED, or one that marks
    # and tail-drops the rest, Junos). None: not known (EOS except "all"), or not read for the platform (NVUE, Dell).
    wred_drops: Literal["none", "non-ect", "all"] | None = None
    # Why the switch may not apply this profile (SONiC: a field orchagent takes on some releases only): a clause the
    # rules say where they would say "not in the input".
    unapplied: str | None = None
    source: Source | None = None


@model_class
class Scheduler(Model):
    """How an egress queue is scheduled: strict priority or a weight."""

    name: str | None = None
    type: SchedulerType | None = None
    weight: int | None = None
    default: bool = False  # the platform's default scheduling (no config line wrote it)
    shaped: bool = False  # a shaper or rate limit caps the queue: strict, it still cannot take the whole link
    # The scheduler's own rate, buffer and (not strict) priority statements, as the config writes them (Junos
    # `transmit-rate percent 60`, `shaping-rate 10g`, `buffer-size percent 50`, `priority high`): a snippet that puts a
    # new scheduler in its place restates them.
    rates: list[str] = dataclasses.field(default_factory=list)
    # Why the switch does not (or may not) apply the scheduler written for the queue (SONiC: orchagent refuses its
    # SCHEDULER or WRED_PROFILE entry, or takes it on some releases only): said where the rules would say "not in the
    # input"; the type is then unknown.
    unapplied: str | None = None
    source: Source | None = None


@model_class
class Queue(Model):
    """An egress queue of a port: its scheduling and ECN marking."""

    index: int
    scheduler: Scheduler | None = None
    ecn: Ecn | None = None
    source: Source | None = None  # the queue's scheduler/ECN entry (SONiC QUEUE); None: only its buffer is known
    # The egress buffer profile (name in Device.buffer_profiles) that bounds what the queue may hold before it drops
    # (SONiC BUFFER_QUEUE profile -> bufferorch.cpp SAI_QUEUE_ATTR_BUFFER_PROFILE_ID); None: not in the input.
    buffer_profile: str | None = None
    buffer_source: Source | None = None


@model_class
class BufferPool(Model):
    """A shared buffer pool that buffer profiles draw from."""

    name: str
    direction: Literal["ingress", "egress", "both"] | None = None  # SONiC BUFFER_POOL type (sonic-buffer-pool.yang)
    mode: Literal["static", "dynamic"] | None = None
    size_bytes: int | None = None  # None: sized at run time (SONiC dynamic buffer model)
    shared_headroom_bytes: int | None = None  # SONiC BUFFER_POOL.xoff: shared headroom pool
    source: Source | None = None


@model_class
class BufferProfile(Model):
    """An ingress (or egress) buffer profile: reserved size, PFC xon/xoff, shared threshold."""

    name: str
    pool: str | None = None
    size_bytes: int | None = None  # reserved (guaranteed) bytes incl. headroom
    xon_bytes: int | None = None
    xoff_bytes: int | None = None  # headroom that absorbs in-flight data after XOFF is sent
    xon_offset_bytes: int | None = None
    static_threshold_bytes: int | None = None  # static_th: shared-buffer cap for this PG
    dynamic_threshold: int | None = None  # dynamic_th: alpha = 2**dynamic_threshold
    # The fill level at which the PG sends XOFF where the config states it (NX-OS `pause-threshold`); None: the
    # reservation and the shared-buffer threshold decide it.
    xoff_threshold_bytes: int | None = None
    headroom_computed_at_runtime: bool = False  # SONiC dynamic headroom
    # What the queue does with a packet it cannot admit, where the config says (SONiC packet_discard_action): drop
    # it, or trim it to its headers and send those on (packet trimming; SAI DROP_AND_TRIM).
    discard_action: Literal["drop", "trim"] | None = None
    source: Source | None = None

    @property
    def alpha(self) -> float | None:
        return None if self.dynamic_threshold is None else 2.0**self.dynamic_threshold


@model_class
class PriorityGroup(Model):
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


@model_class
class Watchdog(Model):
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
    # Why enabled is None where the config's own lines leave it unknown and a line of it would settle it (EOS: the
    # port's switch is on, no timeout applies and no document names a built-in one): WDG001 warns, and its fix starts
    # the watchdog, instead of "not in the input".
    unknown: str | None = None
    # Why the priorities an enabled watchdog watches are not in the input, where its own lines leave them to what the
    # switch already holds (a SONiC CONFIG_DB part without pfcwd_sw_enable): ``priorities`` is then not read.
    priorities_unknown: str | None = None
    source: Source | None = None


@model_class
class NicEcn(Model):
    """mlx5 DCQCN switches per priority: notification point (NP) and reaction point (RP)."""

    np_enabled: dict[int, bool] = dataclasses.field(default_factory=dict)
    rp_enabled: dict[int, bool] = dataclasses.field(default_factory=dict)
    # DCQCN algorithm parameters (sysfs ecn/roce_rp/<name>: rpg_*, rate_*, dce_tcp_*, clamp_tgt_rate..., and
    # ecn/roce_np/<name>: min_time_between_cnps ...) as the NIC reports them.
    rp_params: dict[str, int] = dataclasses.field(default_factory=dict)
    np_params: dict[str, int] = dataclasses.field(default_factory=dict)
    params_source: Source | None = None
    # CNPs this NIC sends as notification point (sysfs ecn/roce_np/cnp_dscp, cnp_802p_prio)
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    source: Source | None = None
    # NP and RP switches are read from different places; a finding about one points there.
    np_source: Source | None = None
    rp_source: Source | None = None


@model_class
class LinkPause(Model):
    """IEEE 802.3x link-level (global) pause of a port (`ethtool -a`): it pauses every priority at once."""

    autoneg: bool | None = None
    rx: bool | None = None
    tx: bool | None = None
    source: Source | None = None


@model_class
class Incompatible(Model):
    """A setting in which a link aggregate member's own line differs from its aggregate's value, which the switch's
    compatibility check compares (NX-OS; on the models whose guides say so it suspends the member: ``check``)."""

    setting: str  # in the platform's words ("mtu", "priority-flow-control mode")
    member: str  # the member's value
    aggregate: str  # the aggregate's, in words ("1500, the default")
    # The aggregate's value alone, as the platform writes it ("1500"), which render.device_facts weighs.
    aggregate_value: str | None = None
    check: str | None = None  # what the platform's guides say the check does with such a member, naming the models
    # The models (as Device.hardware begins: "Nexus7000") whose guide says the check suspends such a member.
    suspended_on: list[str] | None = None
    source: Source | None = None  # the member's line


@model_class
class Port(Model):
    """A switch port or host NIC port with the QoS facts the rules read."""

    name: str
    alias: str | None = None  # SONiC PORT alias: what the switch's LLDP sends as its port ID
    description: str | None = None
    admin_up: bool | None = None
    speed_gbps: float | None = None
    # IP MTU: the largest IP packet the port sends/receives, without Ethernet header, VLAN tags or FCS
    # (Linux/SONiC/EOS/NVUE/Onyx `mtu`). Parsers of platforms whose `mtu` is the media/frame MTU (Junos:
    # IP MTU + 14) convert, so that LNK002 compares like with like.
    mtu_bytes: int | None = None
    cable_length_m: float | None = None
    lanes: int | None = None  # SerDes lanes (SONiC PORT lanes): 8-lane Spectrum ports need twice the xon
    max_mtu_bytes: int | None = None  # a NIC's largest settable MTU (ip -d link: maxmtu); sizes mlx5 buffers
    trust: Trust | None = None
    trust_source: Source | None = None
    # Why trust is None where the input does have a trust line (EOS: a bound qos policy-map the input does not define
    # classifies first), said instead of "not in the input".
    trust_unknown: str | None = None
    # Profile sections (trust, maps) no line of the port's own can change, each with why and the by-hand step: what
    # the port's config binds elsewhere decides them (EOS: its qos policy-map's class-default `set traffic-class`,
    # Junos: a DSCP classifier bound by a wildcard `class-of-service interfaces` entry other ports share). A key
    # "section/trust" holds only for a snippet of that trust (Junos: "trust/pcp", a DSCP classifier of the port's own
    # can be bound over the wildcard's). `fix` and `render --device` refuse those sections on the port
    # (render._check_by_hand) rather than print lines the switch would not act on.
    by_hand: dict[str, str] | None = None
    # DSCP -> (traffic class, why) for the DSCPs a class of the port's own policy-map sets a traffic class for before
    # the trust map (EOS: the first class that matches a packet takes it). The trust and maps sections are by hand on
    # the port where such a class gives one of the policy's lossless or CNP DSCPs another class, or another DSCP their
    # class (render._check_by_hand).
    by_hand_dscp: dict[int, tuple[int, str]] | None = None
    # The tool a NIC port's DCB was read or set with, which the fix texts speak: "dcb" (iproute2, any DCB driver:
    # Intel ice, Broadcom bnxt_en, mlx5 without MLNX_OFED), else mlnx_qos.
    dcb_tool: Literal["mlnx_qos", "dcb"] | None = None
    # A NIC port's kernel driver as `ethtool -i IF` names it ("mlx5_core", "ice", "bnxt_en"); None: not read.
    nic_driver: str | None = None
    # False where the input read an mlx5_core port's sysfs ecn/ files and the driver has none ("No such file or
    # directory"): the upstream kernel's mlx5_core, without MLNX_OFED's, serves DCQCN's parameters in debugfs and
    # leaves DCQCN per priority to the firmware (rules.common.dcqcn_elsewhere). None: not known to lack them.
    nic_sysfs_ecn: bool | None = None
    # What `dcb buffer show dev IF` answered where the NIC's driver has no DCB buffer operations (Intel ice, Broadcom
    # bnxt_en: "Attribute not found"): its receive buffers per priority are shown by nothing losslessd reads.
    nic_buffers_refused: str | None = None

    # Classification and queueing: three facts joined by explicit maps, never one derived from another's
    # number. Switch: DSCP/PCP -> traffic class (TC: the switch's internal class, e.g. SONiC TC, NX-OS
    # qos-group, Junos forwarding class, NVUE switch priority) -> ingress PG and egress queue; each TC has
    # a PFC priority (802.1p pause class). NIC: DSCP -> priority -> TC (ETS class), priority -> buffer.
    # A map that is None is not known; a key missing from a known map has no entry (see each field).
    dscp_to_tc: dict[int, int] | None = None
    pcp_to_tc: dict[int, int] | None = None  # switch port trusting PCP (802.1p/CoS): PCP -> TC
    # True: a DSCP missing from dscp_to_tc is classified by pcp_to_tc instead of having no entry (EOS: a CoS-trusting
    # port whose qos policy sets the traffic class of some DSCPs only).
    dscp_unmapped_by_pcp: bool = False
    # What operators call TC n where the platform names its classes (Junos: "forwarding class NO-LOSS").
    tc_names: dict[int, str] | None = None
    dscp_to_priority: dict[int, int] | None = None
    # True: the NIC map holds only the DSCPs the input sets (a script's `mlnx_qos --dscp2prio set,D,P` changes one
    # entry of a map the input does not show), so a DSCP missing from it is not known, not without an entry.
    dscp_to_priority_partial: bool = False
    priority_to_tc: dict[int, int] | None = None
    # The PFC priority of each TC: the priority of the pauses this port sends when the TC's ingress buffer
    # fills. A TC missing from the map has no PFC priority: it is never paused.
    tc_to_priority: dict[int, int] | None = None
    tc_to_pg: dict[int, int] | None = None
    priority_to_pg: dict[int, int] | None = None
    # What operators call PG n where the platform names its PGs ("PG 0 (bulk)"), or where its index is internal to
    # the platform and the key is losslessd's own (NVUE: the port's one lossless PG): messages show the name.
    pg_names: dict[int, str] | None = None
    tc_to_queue: dict[int, int] | None = None  # egress queue of each TC
    # The egress queues a received pause for priority P stops; a priority missing from the map stops none.
    pfc_priority_to_queue: dict[int, list[int]] | None = None
    # The ingress PG whose XOFF sends the pauses of PFC priority P (SONiC PORT_QOS_MAP pfc_to_pg_map ->
    # SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP); None: no map bound or not known (the ASIC's own
    # pairing applies); a priority missing from a bound map has no PG.
    pfc_priority_to_pg: dict[int, int] | None = None
    pfc_priority_to_pg_source: Source | None = None  # the map itself (SONiC PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|<name>)
    # Egress DSCP rewrite by TC (EOS `qos rewrite dscp` + `qos map traffic-class T to dscp D`, SONiC
    # PORT_QOS_MAP tc_to_dscp_map): the DSCP the next hop classifies. None: DSCP kept; a TC
    # missing from the map: rewritten to a value the input does not show.
    tc_to_dscp_rewrite: dict[int, int] | None = None
    # Whether traffic that arrives on this port is rewritten by the egress port's tc_to_dscp_rewrite (NVUE: the
    # ingress port's `qos remark` profile enables the rewrite, the egress port's gives the map). None: the egress
    # port's map alone decides (every other platform).
    ingress_rewrite: bool | None = None
    # DSCPs whose TC comes from the platform's default map, not a written line (EOS); None: all written or unknown.
    dscp_defaulted: list[int] | None = None
    map_source: Source | None = None

    pfc_enabled: list[int] | None = None  # priorities with PFC on; [] = PFC off, None = unknown
    pfc_source: Source | None = None
    # Priorities whose received pause frames stop the port's transmit, where they are not pfc_enabled's (asymmetric
    # PFC: SONiC `pfc_asym on` honours all eight); None: pfc_enabled's (symmetric PFC, every other platform).
    pfc_honoured: list[int] | None = None
    pfc_honoured_source: Source | None = None
    # True where pfc_source is a line that turns PFC off in so many words (NX-OS and Onyx `... priority-flow-control
    # mode off`, SONiC `pfc_enable: ""`, EOS `no priority-flow-control` or `priority-flow-control all off`, OS10 `no
    # priority-flow-control mode`): an explicit off, not lossless configuration without effect (engine.pfc_written).
    # Not where the port writes a no-drop priority beside it (EOS, OS10: pfc_declared): that off voids a lossless
    # class, PFC001's at the line.
    pfc_off_written: bool = False
    # The no-drop priorities the port's lines write while its PFC stays off for want of the port's PFC switch (EOS
    # `priority-flow-control priority 3 no-drop` without `priority-flow-control on`; OS10 a bound network-qos class's
    # `pfc-cos 3` without `priority-flow-control mode on`; Onyx `dcb priority-flow-control priority 3 enable` and the
    # port's `mode on` without the switch-wide enable), and that switch as written: PFC001 asks for it, not for the
    # priorities the port already names. None: not so, or not known.
    pfc_declared: list[int] | None = None
    pfc_switch: str | None = None
    # Priorities a line of the port pauses for a class the configuration leaves lossy, so the pause has no effect
    # (Junos: a congestion-notification-profile code point whose forwarding class has no `no-loss`), each with what
    # to add: PFC001 names it instead of asking for PFC the port already writes. None: not so, or not known.
    pfc_blocked: dict[int, str] | None = None
    queues: dict[int, Queue] = dataclasses.field(default_factory=dict)
    priority_groups: dict[int, PriorityGroup] = dataclasses.field(default_factory=dict)
    watchdog: Watchdog | None = None
    nic_ecn: NicEcn | None = None
    link_pause: LinkPause | None = None
    # L2 VLAN membership ([] = routed port, None = unknown). Read-only: ports with the same VLANs may share one list
    # (an EOS trunk of every VLAN holds 4,094; 4,000 such ports took 600 MiB as lists of their own).
    vlans: list[int] | None = None
    # True where the config says the port switches but sends no 802.1Q-tagged frame: an access port, or a trunk whose
    # allowed VLANs are its untagged native VLAN alone (clitext.untagged_only). Like a routed port's (vlans []), its
    # frames carry no 802.1p priority. False: it tags, or its lines do not say.
    untagged_only: bool = False
    # True when the config gives this port any PFC/QoS-map/trust setting (SONiC PORT_QOS_MAP entry,
    # EOS PFC or trust lines, every NIC port): the default set of RoCE-facing ports.
    qos_configured: bool = False
    # Why the config itself makes this port lossy on purpose (SONiC smart-switch DPU ports: a tc_to_pg_map
    # with no lossless PG and no pfc_enable): such a port is never selected as RoCE-facing.
    lossy_by_design: str | None = None
    # True where the port's PFC state is what the device's lossy mode (Device.lossy_mode) gives it, no setting of
    # its own: its lossless needs (PFC, buffers, watchdog) are reported once for the device (PFC004), not per port.
    lossy_mode: bool = False
    # Policies attached by name on the port itself, by attachment point in the platform's words (NX-OS "qos input",
    # "queuing output", "queuing input" -> policy-map name; Junos "congestion-notification-profile", the member's from
    # its aeN; "classifiers dscp" etc., a classifier bound on the interface or aeN entry itself, not its unit): what a
    # rendered snippet must detach before it attaches its own there, or writes into (a Junos watchdog fix). None: the
    # platform attaches none by name, or the port attaches none.
    service_policies: dict[str, str] | None = None
    # The link aggregate the port is a member of, as the config names it: NX-OS `channel-group 12` ("port-channel12"),
    # EOS `channel-group 12 mode active` ("Port-Channel12"), SONiC PORTCHANNEL_MEMBER ("PortChannel0012"), Junos
    # `ether-options 802.3ad ae12` ("ae12"). Routes through the aggregate go over its members; where the platform runs
    # the aggregate's QoS policies on its members (platforms.Platform.qos_on_aggregate: NX-OS, Junos) a snippet attaches
    # policies there. None: none, or the platform's reader does not say.
    bundle: str | None = None
    # The settings in which the port's own lines differ from its aggregate's (Port.bundle), which the switch's
    # compatibility check compares (Incompatible.check says what it does then: some models suspend the member). The
    # port is checked with its own values (as it would run them were it not suspended). None: none, or the platform has
    # no such check (or its reader none).
    incompatible: list[Incompatible] | None = None
    # The compatibility settings (Port.incompatible's, in the platform's words: NX-OS "mtu", "priority-flow-control
    # mode") for which a member of a link aggregate writes a line of its own, whatever its value: the switch compares
    # them with the aggregate's rather than replace them, so a snippet that changes the aggregate's value gives the
    # member the same on its own line (render PortFacts.own). None: none (or not a member, or joined with `force`).
    own_settings: list[str] | None = None
    source: Source | None = None

    def mlx5_ecn(self) -> bool:
        """Whether a NIC port's DCQCN is expected in mlx5's sysfs ecn/roce_np and ecn/roce_rp files (the MLNX_OFED
        mlx5 driver's own: NVIDIA MLNX_OFED user manual, "Explicit Congestion Notification"), so that lint asks for
        them: a port read with mlnx_qos, one whose input read those files, or an mlx5_core one. Not a dcb host's other
        NIC (Intel ice + irdma, Broadcom bnxt_en + bnxt_re), which sets DCQCN its own way. (A render writes them only
        where the input read them or mlnx_qos: render.PortFacts.mlx5_ecn.) Not an mlx5_core port whose input found
        no ecn/ files (Port.nic_sysfs_ecn: the upstream driver's)."""
        if self.nic_sysfs_ecn is False:
            return False
        return self.dcb_tool != "dcb" or self.nic_ecn is not None or self.nic_driver == "mlx5_core"

    def tc_label(self, tc: int | None) -> str:
        """'forwarding class NO-LOSS' where the platform names the class, else 'TC 3' ('TC ?' when unknown)."""
        if tc is None:
            return "TC ?"
        names = self.tc_names
        return names[tc] if names is not None and tc in names else f"TC {tc}"

    def pg_label(self, pg: int | None) -> str:
        """'PG 3', or the platform's name for the PG where it has one (Port.pg_names); 'PG ?' when unknown."""
        if pg is None:
            return "PG ?"
        names = self.pg_names
        return names[pg] if names is not None and pg in names else f"PG {pg}"

    def pg_key(self, pg: int | None) -> int | str | None:
        """The PG as findings name it in their key and data: the platform's name where it has one (Port.pg_names:
        NVUE's lossless PG, whose index is losslessd's own and never shown), else its index."""
        names = self.pg_names
        return names[pg] if names is not None and pg in names else pg

    def dscp_chain(self, dscp: int) -> Hop:
        """Follow one DSCP through this port's maps; a link of the chain that is not known stays None."""
        if self.dscp_to_priority is not None:  # NIC order: DSCP -> priority -> TC
            return self.nic_chain(dscp, self.dscp_to_priority.get(dscp), "DSCP")
        return self._tc_hop(dscp, self.dscp_to_tc.get(dscp) if self.dscp_to_tc is not None else None, "DSCP")

    def chain(self, marking: Literal["DSCP", "PCP"], value: int) -> Hop:
        """Follow the DSCP or 802.1p PCP ``value`` through this port's maps (dscp_chain, pcp_chain)."""
        return self.pcp_chain(value) if marking == "PCP" else self.dscp_chain(value)

    def pcp_chain(self, pcp: int) -> Hop:
        """Follow one 802.1p PCP through a switch port's maps (a port that trusts PCP classifies by it, not by DSCP)."""
        return self._tc_hop(pcp, self.pcp_to_tc.get(pcp) if self.pcp_to_tc is not None else None, "PCP")

    def dscp_queue(self, dscp: int) -> int | None:
        """``dscp_chain(dscp).queue`` without the Hop: what a rule that reads the queues all 64 DSCPs reach asks (the
        queue of a NIC port is its TC: nic_chain)."""
        if self.dscp_to_priority is not None:
            priority = self.dscp_to_priority.get(dscp)
            return None if priority is None or self.priority_to_tc is None else self.priority_to_tc.get(priority)
        return self._tc_queue(self.dscp_to_tc.get(dscp) if self.dscp_to_tc is not None else None)

    def pcp_queue(self, pcp: int) -> int | None:
        """``pcp_chain(pcp).queue`` without the Hop."""
        return self._tc_queue(self.pcp_to_tc.get(pcp) if self.pcp_to_tc is not None else None)

    def _tc_queue(self, tc: int | None) -> int | None:
        return None if tc is None or self.tc_to_queue is None else self.tc_to_queue.get(tc)

    def nic_chain(self, value: int, priority: int | None, marking: Literal["DSCP", "PCP"] = "PCP") -> Hop:
        """A NIC port's chain from the priority the marking ``value`` gives (NIC order: priority -> TC, receive
        buffer). A NIC that trusts PCP takes the 802.1p priority as the priority itself (mlnx_qos --trust pcp)."""
        tc = pg = None
        if priority is not None:
            if self.priority_to_tc is not None:
                tc = self.priority_to_tc.get(priority)
            if self.priority_to_pg is not None:
                pg = self.priority_to_pg.get(priority)
        # A NIC's ETS traffic class is its transmit queue class (mlnx_qos prints one `tc:` block per queue).
        return Hop(port=self.name, dscp=value, marking=marking, tc=tc, priority=priority, pg=pg, queue=tc)

    def _tc_hop(self, value: int, tc: int | None, marking: Literal["DSCP", "PCP"]) -> Hop:
        """A switch port's chain from the traffic class its map gave the marking ``value``."""
        if tc is None:
            return Hop(port=self.name, dscp=value, marking=marking)
        priority = self.tc_to_priority.get(tc) if self.tc_to_priority is not None else None
        pg = self.tc_to_pg.get(tc) if self.tc_to_pg is not None else None
        queue = self._tc_queue(tc)
        name = self.tc_names.get(tc) if self.tc_names is not None else None
        pg_name = self.pg_names.get(pg) if self.pg_names is not None and pg is not None else None
        return Hop(port=self.name, dscp=value, marking=marking, tc=tc, tc_name=name, priority=priority, pg=pg,
                   pg_name=pg_name, queue=queue)

    def pg_profiles(self) -> dict[int, tuple[str | None, bool]]:
        """PG index -> (profile, runtime_profile), in the PGs' order (read-only): what a rule that counts the PGs of
        every port of a device reads (a SharedPort answers from what it shares, without making its PG objects)."""
        return {index: (pg.profile, pg.runtime_profile) for index, pg in self.priority_groups.items()}

    def priority_queues(self) -> dict[int, list[int]] | None:
        """PFC priority -> the egress queues that carry its traffic: each TC whose PFC priority it is (tc_to_priority),
        through tc_to_queue (SONiC TC_TO_QUEUE_MAP, Junos forwarding-class queue-num, EOS traffic-class tx-queue).
        None when either map is not known; a priority with a TC missing from tc_to_queue is left out (its queue is
        not known), as is one no TC carries."""
        if self.tc_to_priority is None or self.tc_to_queue is None:
            return None
        out: dict[int, set[int]] = {}
        unknown = set()
        for tc, priority in self.tc_to_priority.items():
            queue = self.tc_to_queue.get(tc)
            if queue is None:
                unknown.add(priority)
            else:
                out.setdefault(priority, set()).add(queue)
        return {p: sorted(q) for p, q in sorted(out.items()) if p not in unknown}

    def paused_queues(self, priority: int | None) -> list[int] | None:
        """The egress queues a received pause for ``priority`` stops ([] none; None when the input does not say)."""
        if priority is None or self.pfc_priority_to_queue is None:
            return None
        return self.pfc_priority_to_queue.get(priority, [])


# The slots that hold a Port's queues, PGs and watchdog (a SharedPort fills them when they are first read).
_QUEUES_SLOT: Any = Port.__dict__["queues"]
_PGS_SLOT: Any = Port.__dict__["priority_groups"]
_WATCHDOG_SLOT: Any = Port.__dict__["watchdog"]


class SharedPort(Port):
    """A Port whose queues and PGs are made when first read, from what the ports of a device configured alike share
    and the port's own sources: a 64-port switch has 512 queues and 128 PGs, and the rules read those of one port per
    configuration (lint/groups.py keys the shared part once). Read, written, dumped, copied and compared, it is the
    Port it stands for; pickled or copied, it is that plain Port.

    ``_shared``: ((queues, PGs), (queue sources, PG sources), pg_profiles(), makers): the queues as (index,
    scheduler, ecn, buffer_profile) and the PGs as (index, profile, runtime_profile), in their dicts' order (the part
    lint/groups.py keys); per queue the positions of its source and buffer_source in ``_sources`` (-1: None), per PG
    its source's; ``makers``: None, or per place in ``_sources`` None (a source there) or what makes the source of the
    key there (an entry the parser did not make while reading). None once the dicts are made. ``_sources``: the
    port's own entries (or their keys), in the order the parser met them.

    ``_wd``: None, or the watchdog as (settings, source), made when first read: ``settings`` are its fields but its
    source, in their order, its priorities a tuple (what lint/groups.py keys of a watchdog; the rules read the
    watchdog of one port per configuration)."""

    __slots__ = ("_shared", "_sources", "_wd")
    _shared: tuple | None
    _sources: list
    _wd: tuple | None

    def __init__(self, **fields: Any) -> None:
        """A SharedPort built from keywords shares nothing (shared_port makes those that do): its three slots set, so
        that they are read as they are (here, lint/groups.py Keys.ports, paths/view.py)."""
        self._shared = self._wd = None
        self._sources = []
        Port.__init__(self, **fields)

    def _materialize(self) -> None:
        (queues, pgs), (queue_at, pg_at), _, makers = self._shared  # type: ignore[misc]
        sources = self._sources
        if makers is not None:  # (keys of entries made only now: see the parser's deferred tables)
            sources = [source if make is None else make(source) for source, make in zip(sources, makers, strict=True)]
        made_queues = {}
        for (index, scheduler, ecn, profile), (at, buffer_at) in zip(queues, queue_at, strict=True):
            made_queues[index] = _queue(index, scheduler, ecn, None if at < 0 else sources[at], profile,
                                        None if buffer_at < 0 else sources[buffer_at])
        made_pgs = {index: _priority_group(index, profile, runtime, sources[at])
                    for (index, profile, runtime), at in zip(pgs, pg_at, strict=True)}
        _QUEUES_SLOT.__set__(self, made_queues)
        _PGS_SLOT.__set__(self, made_pgs)
        self._shared = None
        self._sources = []

    @property
    def queues(self) -> dict[int, Queue]:
        if self._shared is not None:
            self._materialize()
        return _QUEUES_SLOT.__get__(self, Port)

    @queues.setter
    def queues(self, value: dict[int, Queue]) -> None:
        if self._shared is not None:
            self._materialize()
        _QUEUES_SLOT.__set__(self, value)

    @property
    def priority_groups(self) -> dict[int, PriorityGroup]:
        if self._shared is not None:
            self._materialize()
        return _PGS_SLOT.__get__(self, Port)

    @priority_groups.setter
    def priority_groups(self, value: dict[int, PriorityGroup]) -> None:
        if self._shared is not None:
            self._materialize()
        _PGS_SLOT.__set__(self, value)

    @property
    def watchdog(self) -> Watchdog | None:
        wd = self._wd
        if wd is not None:
            self._wd = None
            _WATCHDOG_SLOT.__set__(self, watchdog_of(*wd))
        return _WATCHDOG_SLOT.__get__(self, Port)

    @watchdog.setter
    def watchdog(self, value: Watchdog | None) -> None:
        self._wd = None
        _WATCHDOG_SLOT.__set__(self, value)

    def pg_profiles(self) -> dict[int, tuple[str | None, bool]]:
        shared = self._shared
        return Port.pg_profiles(self) if shared is None else shared[2]

    def plain(self) -> Port:
        """This port as a plain Port (its queues and PGs made)."""
        return Port(**self._fields())

    def _fields(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(Port)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Port):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in dataclasses.fields(Port))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.plain())

    def __reduce_ex__(self, protocol):
        return _port_of, (self._fields(),)

    def __copy__(self) -> Port:
        return dataclasses.replace(self.plain())

    def __deepcopy__(self, memo: dict) -> Port:
        return copy.deepcopy(self.plain(), memo)


def suspended(device: Device, port: Port) -> bool:
    """Whether the switch suspends ``port`` from its aggregate (it carries none of its traffic): a setting differs from
    the aggregate's (Port.incompatible) for which the guide of the device's model, as the input names it
    (Device.hardware), says the check suspends the member. Where the model is not known, or its guide does not say so,
    the member counts as running with its own values."""
    if not port.incompatible:  # (nearly every port: asked of each port as the rules choose theirs)
        return False
    hardware = device.hardware or ""
    return bool(hardware) and any(hardware.startswith(model) for i in port.incompatible
                                  for model in i.suspended_on or ())


def _port_of(fields: dict[str, Any]) -> Port:
    """A SharedPort unpickled: the plain Port it stands for."""
    return Port(**fields)


def _queue(index, scheduler, ecn, source, buffer_profile, buffer_source) -> Queue:
    queue = _new(Queue)  # (slot by slot: a Queue of each of a port's indexes when the rules first read them)
    queue.index, queue.scheduler, queue.ecn, queue.source = index, scheduler, ecn, source
    queue.buffer_profile, queue.buffer_source = buffer_profile, buffer_source
    return queue


def _priority_group(index, profile, runtime_profile, source) -> PriorityGroup:
    pg = _new(PriorityGroup)
    pg.index, pg.profile, pg.runtime_profile, pg.size_bytes, pg.source = index, profile, runtime_profile, None, source
    return pg


def watchdog_of(settings: tuple, source: Source | None) -> Watchdog:
    """A SharedPort's watchdog, made when first read (see SharedPort._wd): its priorities a list of its own."""
    wd = _new(Watchdog)
    (wd.enabled, priorities, wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms, wd.action,
     wd.action_raw, wd.default_rule, wd.unknown, wd.priorities_unknown) = settings
    wd.priorities, wd.source = None if priorities is None else list(priorities), source
    return wd


if ([f.name for f in dataclasses.fields(Queue)] != ["index", "scheduler", "ecn", "source", "buffer_profile",
                                                    "buffer_source"]
        or [f.name for f in dataclasses.fields(PriorityGroup)] != ["index", "profile", "runtime_profile", "size_bytes",
                                                                   "source"]
        or [f.name for f in dataclasses.fields(Watchdog)] != ["enabled", "priorities", "detection_time_ms",
                                                              "restoration_time_ms", "polling_interval_ms", "action",
                                                              "action_raw", "default_rule", "unknown",
                                                              "priorities_unknown", "source"]):
    raise TypeError("Queue, PriorityGroup or Watchdog has a field _queue, _priority_group or watchdog_of does not set")


# The fields the SONiC reader sets on a port (parse/sonic _Builder), in the order it sets them.
_SET_FIRST = ("name", "source", "pfc_enabled", "speed_gbps", "mtu_bytes", "admin_up", "lanes", "description", "alias",
              "vlans", "qos_configured", "dscp_to_tc", "trust", "tc_to_pg", "tc_to_queue", "pfc_priority_to_queue",
              "map_source", "pfc_source", "pfc_off_written", "trust_source", "cable_length_m", "tc_to_priority")


def _shared_port_maker():
    """``make(shared, sources, wd, **fields)``: a SharedPort set slot by slot (Port.__init__ would set its queue and
    PG dicts through the properties, only for them to be dropped again); its first ports made by reading the fields,
    the rest by code written for them (records.written_later: a fabric of a few SONiC ports compiles nothing)."""
    set_watchdog = _WATCHDOG_SLOT.__set__
    env: dict = {"_new": _new, "cls": SharedPort, "set_watchdog": set_watchdog}
    params, lines = [], []
    # (the fields a switch's port sets first: CPython binds each keyword by comparing it with the parameters in
    # order, so these 22 are found among the first 25 instead of anywhere in 57; 1.25 K instructions a port,
    # docs/lint-at-scale.md "Session 40, part b")
    first = {name: at for at, name in enumerate(_SET_FIRST)}
    if unknown := first.keys() - {f.name for f in dataclasses.fields(Port)}:
        raise TypeError(f"_SET_FIRST names what is no Port field: {sorted(unknown)}")
    plan = []  # (each field's name and default, MISSING for none, in the order the code sets them)
    for f in sorted(dataclasses.fields(Port), key=lambda f: first.get(f.name, len(first))):
        if f.name in ("queues", "priority_groups"):
            continue
        if f.default_factory is not dataclasses.MISSING:  # (none but the two above)
            raise TypeError(f"Port.{f.name} has a default factory: make it in shared_port")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            env[f"d_{f.name}"] = f.default
            params.append(f"{f.name}=d_{f.name}")
        plan.append((f.name, f.default))
        # (the watchdog's slot set as it is: through the property, each port would pay a call)
        lines.append("    set_watchdog(o, watchdog)" if f.name == "watchdog" else f"    o.{f.name} = {f.name}")
    code = "\n".join([f"def make(shared, sources, wd, *, {', '.join(params)}):", "    o = _new(cls)", *lines,
                      "    o._shared, o._sources, o._wd = shared, sources, wd", "    return o", ""])
    names = frozenset(name for name, _ in plan)
    needed = frozenset(name for name, default in plan if default is dataclasses.MISSING)

    def read(*args: Any, **fields: Any) -> Any:
        if len(args) != 3 or not names.issuperset(fields) or not needed.issubset(fields):  # (the code's refusal)
            return NotImplemented
        o = _new(SharedPort)
        for name, default in plan:
            value = fields.get(name, default)
            if name == "watchdog":
                set_watchdog(o, value)
            else:
                setattr(o, name, value)
        o._shared, o._sources, o._wd = args
        return o

    return written_later(code, "<make SharedPort>", env, read)


_make_shared_port = _shared_port_maker()


def shared_port(fields: dict, shared: tuple, sources: list, wd: tuple | None = None) -> SharedPort:
    """A SharedPort of ``fields`` (Port's keywords but queues and priority_groups), its shared part and its watchdog's
    (settings, source) or None (see there)."""
    return _make_shared_port(shared, sources, wd, **fields)


@model_class
class Hop(Model):
    """Where one DSCP (or, on a port that trusts 802.1p, one PCP) lands on one port."""

    port: str
    dscp: int  # the value of ``marking``: a PCP where the chain starts at the 802.1p priority (Port.pcp_chain)
    marking: Literal["DSCP", "PCP"] = "DSCP"
    tc: int | None = None
    tc_name: str | None = None  # the platform's name for the TC (Port.tc_names)
    priority: int | None = None
    pg: int | None = None
    pg_name: str | None = None  # the platform's name for the PG (Port.pg_names)
    queue: int | None = None

    @property
    def tc_label(self) -> str:
        return self.tc_name or f"TC {'?' if self.tc is None else self.tc}"

    @property
    def pg_label(self) -> str:
        return self.pg_name or f"PG {'?' if self.pg is None else self.pg}"

    def describe(self) -> str:
        parts = [f"{self.marking} {self.dscp}", self.tc_label]
        for label, value in (("priority", self.priority), ("PG", self.pg), ("queue", self.queue)):
            parts.append(self.pg_label if label == "PG" else f"{label} {'?' if value is None else value}")
        return " -> ".join(parts)


@model_class
class ParseIssue(Model):
    """Something a parser could not read; becomes a SYS finding, never a crash."""

    code: str  # SYS rule code, e.g. SYS002
    message: str
    source: Source | None = None


@model_class
class IbQosSet(Model):
    """OpenSM's effective QoS tables for one kind of port (CA, switch port 0, switch external, router; NVIDIA's
    switch-to-switch).

    Each table is what OpenSM applies: the qos_<type>_ option (for sw2sw: else qos_swe_'s), else the qos_ option,
    else OpenSM's built-in default (then its *_source is None)."""

    max_vls: int | None = None
    high_limit: int | None = None
    vlarb_high: list[tuple[int, int]] | None = None  # (VL, weight) pairs in table order
    vlarb_low: list[tuple[int, int]] | None = None
    sl2vl: list[int] | None = None  # VL of SL 0..15; VL 15 drops the SL
    vlarb_high_source: Source | None = None
    vlarb_low_source: Source | None = None
    sl2vl_source: Source | None = None


# OpenSM's multicast group MTU and rate when partitions.conf writes none: IBA codes 4 (2048 B) and 3 (10 Gb/s)
# (include/opensm/osm_base.h OSM_DEFAULT_MGRP_MTU, OSM_DEFAULT_MGRP_RATE; man opensm, PARTITION CONFIGURATION).
DEFAULT_MGRP_MTU_CODE, DEFAULT_MGRP_RATE_CODE = 4, 3


@model_class
class IbPartition(Model):
    """One partition of partitions.conf, as OpenSM makes it from every definition naming it (P_Key, IPoIB flag, SL,
    members with their membership)."""

    name: str
    pkey: int | None = None  # None: OpenSM generates one
    ipoib: bool = False
    sl: int | None = None
    # The partition's multicast (IPoIB broadcast) group MTU and rate, in IBA encoding as written (mtu=4 is 2048 B,
    # rate=3 is 10 Gb/s); None: not written (OpenSM's defaults mtu 4, rate 3: man opensm, PARTITION CONFIGURATION).
    mtu_code: int | None = None
    rate_code: int | None = None
    # The ports as `PORT=full|limited|both` (a keyword in full, `AL` read as ALL), each with the membership OpenSM
    # gives it (osm_prtn_config.c partition_add_port: its own flag, else the definition's `defmember`, limited unless
    # written), in file order: a port named again takes its last (osm_prtn.c osm_prtn_add_port "Will overwrite")
    members: list[str] = dataclasses.field(default_factory=list)
    # MGID -> SL of the partition's other multicast groups that set their own (`mgid=ff12::1,sl=1`): traffic on an SL
    # the broadcast group's `sl=` does not name (osm_prtn_config.c mgroup_create: the partition's flags, then its own);
    # only groups OpenSM makes: not a second entry of an MGID the subnet already has (mgroup_create).
    group_sls: dict[str, int] = dataclasses.field(default_factory=dict)
    # MGID -> the partitions.conf line of its `mgid=` entry (the file is the partition's source's), for findings on it
    group_lines: dict[str, int] = dataclasses.field(default_factory=dict)
    source: Source | None = None

    def is_default(self) -> bool:
        """The Default partition, P_Key 0x7fff (IB_DEFAULT_PARTIAL_PKEY, include/iba/ib_types.h; osm_prtn.c
        osm_prtn_make_new drops the membership bit 0x8000)."""
        return self.pkey is not None and self.pkey & 0x7FFF == 0x7FFF


@model_class
class IbSlUse(Model):
    """An SL that the QoS policy hands out: a qos-levels entry or a qos-ulps match rule."""

    kind: Literal["qos-level", "qos-ulp"]
    name: str  # qos-level name, or the qos-ulps match text ("ipoib, pkey 0x0001")
    # None: a qos-level without `sl:`, whose paths take their partition's SL (osm_sa_path_record.c
    # pr_rcv_get_path_parms: the level's SL only when sl_set, else the partition's)
    sl: int | None
    source: Source | None = None


@model_class
class IbCreditLoops(Model):
    """The verdict of a saved ibdiagnet credit-loop check, as the tool printed it."""

    loops_found: bool | None = None  # None: the output holds no credit-loop check
    evidence: list[str] = dataclasses.field(default_factory=list)  # the lines that report the loop(s)
    sls: int | None = None  # "Analyzing Fabric for Credit Loops N SLs, M VLs used"
    vls: int | None = None
    source: Source | None = None


@model_class
class OpenSm(Model):
    """OpenSM subnet manager options (opensm.conf) with its QoS policy, partitions and ibdiagnet verdict.

    Options absent from the file hold OpenSM's built-in default and have no entry in ``sources``."""

    routing_engines: list[str] = dataclasses.field(default_factory=list)  # in trial order; [] = OpenSM's default
    no_fallback: bool = False  # `no_fallback` in the list: no last-resort minhop
    sm_priority: int | None = None
    sweep_interval_s: int | None = None
    transaction_timeout_ms: int | None = None
    transaction_retries: int | None = None
    lmc: int | None = None
    max_op_vls: int | None = None  # IBA OperationalVLs code: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14
    qos_enabled: bool | None = None
    qos_sets: dict[str, IbQosSet] = dataclasses.field(default_factory=dict)  # ca, sw0, swe, rtr; sw2sw if written
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
    sl_uses: list[IbSlUse] = dataclasses.field(default_factory=list)
    partitions: list[IbPartition] = dataclasses.field(default_factory=list)
    credit_loops: IbCreditLoops | None = None
    sources: dict[str, Source] = dataclasses.field(default_factory=dict)  # opensm.conf option -> where it was set


@model_class
class Endpoint(Model):
    """One end of a link: a device and one of its ports."""

    device: str
    port: str

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"


@model_class
class ForwardingClass(Model):
    """A traffic class a config defines by name (Junos forwarding class; NX-OS no-drop network-qos class, queue = its
    qos-group; each switch priority of an Onyx lossless traffic pool), which the device's classifiers, scheduler-maps
    and PFC profile name: a snippet names the same class rather than making another on its queue."""

    name: str
    queue: int
    no_loss: bool = False  # Junos `no-loss`: the class is lossless (sends pauses with its pfc_priority)
    pfc_priority: int | None = None  # the 802.1p priority its pauses carry; None: not written
    source: Source | None = None
    # The lines that turn PFC on for its priority, as its platform writes them, for a class whose pauses are not
    # written beside it (an Onyx lossless pool): PFC001 says what to add. None: the class's own lines do.
    enable_pfc: str | None = None


@model_class
class Neighbor(Model):
    """What a device itself reports about the far end of one of its ports (LLDP or config)."""

    port: str
    remote_device: str
    remote_port: str | None = None
    origin: Literal["lldp", "config"] = "lldp"
    source: Source | None = None


@model_class
class Link(Model):
    """A cable between two ports; either end may be a host NIC."""

    a: Endpoint
    b: Endpoint
    origin: Literal["topology", "lldp", "config"] = "topology"
    source: Source | None = None


@model_class
class NextHop(Model):
    """Where a route sends traffic: an egress interface and/or a next-hop address."""

    port: str | None = None  # egress interface
    address: str | None = None  # next-hop IP as printed


@model_class
class Route(Model):
    """One routing-table entry with its ECMP next hops (from a routing-table capture)."""

    prefix: str
    next_hops: list[NextHop] = dataclasses.field(default_factory=list)
    source: Source | None = None


@model_class
class TopologyIssue(Model):
    """What could not be made into a link (unknown device or port, duplicate, disagreeing ends, garbled
    topology entry): kept for the LNK rule ``code`` to report, while the rest of the fabric is analysed."""

    code: str  # LNK rule code
    message: str
    devices: list[str] = dataclasses.field(default_factory=list)  # every device involved, the one to report on first
    port: str | None = None  # the port of devices[0] the issue is about
    key: str = ""  # stable id (sorted endpoints + what)
    severity: Literal["info", "warning", "error"] | None = None  # None: the rule's own severity
    source: Source | None = None


@model_class
class Device(Model):
    """One switch, host or subnet manager as its parser read it."""

    name: str
    kind: DeviceKind
    platform: str  # id from losslessd.platforms
    hwsku: str | None = None
    # Where the SKU was read (SONiC DEVICE_METADATA|localhost hwsku), so an error about an SKU render does not know
    # names the line to change without reading the files again.
    hwsku_source: Source | None = None
    # The command family the device's own lines show where a platform's families write different commands (EOS: the
    # queue keyword its `tx-queue` or `uc-tx-queue` blocks use, which the switch took; render.families), read as it
    # was parsed; None where they show none.
    config_family: str | None = None
    # The vendor's name of the hardware platform: SONiC DEVICE_METADATA platform (x86_64-mlnx_msn4700-r0), the
    # model `show version` prints (NX-OS N9K-C93180YC-EX, Junos qfx5120-48y-8c); EOS writes its model as hwsku.
    hardware: str | None = None
    # Where the model was read (the EOS running-config header's line), so an error about the model names it.
    hardware_source: Source | None = None
    # SONiC buffer facts (CONFIG_DB DEVICE_METADATA buffer_model, LOSSLESS_TRAFFIC_PATTERN mtu and
    # small_packet_percentage, DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio) that size headroom.
    buffer_model: Literal["traditional", "dynamic"] | None = None
    lossless_mtu_bytes: int | None = None
    small_packet_pct: float | None = None
    over_subscribe_ratio: int | None = None  # a uint16 (sonic-default-lossless-buffer-parameter.yang)
    # SONiC PFC_WD|GLOBAL BIG_RED_SWITCH (`pfcwd big_red_switch enable`): True puts every PFC-enabled queue of
    # every port in the watchdog's drop state, storm or not (sonic-swss orchagent/pfcwdsworch.cpp
    # enableBigRedSwitchMode). None: not in the input.
    big_red_switch: bool | None = None
    big_red_switch_source: Source | None = None
    ports: dict[str, Port] = dataclasses.field(default_factory=dict)
    buffer_pools: dict[str, BufferPool] = dataclasses.field(default_factory=dict)
    buffer_profiles: dict[str, BufferProfile] = dataclasses.field(default_factory=dict)
    # NIC host facts
    roce_tos: int | None = None  # cma_roce_tos: IP TOS byte for RDMA-CM connections (DSCP << 2 | ECN)
    roce_tos_source: Source | None = None
    # The RDMA device's traffic class for every QP of its port (/sys/class/infiniband/DEV/tc/1/traffic_class), which
    # overrides what applications ask for. None with a source: read, and not set.
    rdma_traffic_class: int | None = None
    rdma_traffic_class_source: Source | None = None
    # NCCL settings the host gives every job (/etc/nccl.conf NAME=VALUE lines): NCCL_IB_TC, NCCL_IB_SL ... None: not
    # in the input; {} read, and sets nothing (NCCL's defaults apply unless a job's environment says otherwise).
    nccl_env: dict[str, str] | None = None
    nccl_env_source: Source | None = None
    opensm: OpenSm | None = None  # subnet manager devices
    neighbors: list[Neighbor] = dataclasses.field(default_factory=list)  # LLDP / DEVICE_NEIGHBOR, as the device reports
    routes: list[Route] = dataclasses.field(default_factory=list)  # routing-table capture, when given
    tier: int | None = None  # Clos tier from the topology (0 hosts, 1 leaves, 2 spines, 3 super-spines)
    tier_source: Source | None = None  # the topology's `tiers:` line when declared (else a hop distance)
    # Policies attached switch-wide (NX-OS `system qos`: "network-qos", "queuing output", "queuing input", "qos input"
    # -> policy-map name), as Port.service_policies; None: none named.
    service_policies: dict[str, str] | None = None
    # The policies attached on each link aggregate its ports are members of (Port.bundle), by attachment point as
    # Port.service_policies ({}: none, or the aggregate is not in the input); None: no port is a member of one, or the
    # platform attaches no named policy on an aggregate for its members (NX-OS does; Junos binds CoS on aeN, which its
    # parser reads into each member's own settings).
    bundle_policies: dict[str, dict[str, str]] | None = None
    # The member ports that carry each link aggregate's traffic, as a capture shows them (NX-OS `show port-channel
    # summary`: members up in the port-channel), by aggregate as Port.bundle names it. None: not captured (a route
    # through an aggregate then goes over the members its config names, Port.bundle).
    bundle_members: dict[str, list[str]] | None = None
    # The members each link aggregate's own interface output lists (NX-OS `show interface port-channel N`: "Members in
    # this channel: Eth1/49, Eth1/50"), by aggregate as Port.bundle names it; None for one whose members line could
    # not be read (a SYS002 says routes through it are not followed: not the config's members either); an aggregate it
    # does not show is merely not asked about. bundle_members, whose flags say which members are up, wins where it
    # lists the aggregate.
    bundle_members_shown: dict[str, list[str] | None] | None = None
    # Routed VLAN interfaces whose name does not say their VLAN (Junos `vlans V vlan-id 100` with `l3-interface
    # irb.5`: {"irb.5": 100}): a connected route on one delivers out of the VLAN's member ports. `Vlan100` names its
    # own. None: none read.
    vlan_interfaces: dict[str, int] | None = None
    # NVIDIA Cumulus traffic pools beyond the default one (pool -> the memory-percent the config gives it; None: not
    # given), with roce-lossless where `nv set qos roce` runs a lossless mode. None: not an NVUE switch.
    traffic_pools: dict[str, int | None] | None = None
    # The switch-wide mode that makes the switch lossy whatever its ports say, in the vendor's words (NVUE `nv set
    # qos roce mode lossy`: ECN only, PFC on no priority; Onyx `roce lossy`: ECN marking only, no PFC); None: no such
    # mode (or not known).
    lossy_mode: str | None = None
    lossy_mode_source: Source | None = None
    # The traffic classes the config defines by name (Junos `forwarding-classes class`; not the default classes it
    # leaves as they are), or, NX-OS, its system network-qos policy's no-drop classes (queue: the qos-group). None: the
    # config names none (NX-OS: makes no class no-drop), or the platform numbers its classes.
    forwarding_classes: list[ForwardingClass] | None = None
    # ECN-marking profiles the config defines but binds to no queue (OS10 `wred NAME` with `random-detect ecn` that no
    # `policy-map type queuing` class names), each at its definition line: ECN001 names them beside a lossless queue
    # that marks nothing. None: none, or not read for the platform.
    unbound_marking: dict[str, Source] | None = None
    # The classifiers the config defines (Junos `classifiers TYPE NAME ...`), "TYPE NAME" -> the configuration group it
    # takes statements of one from ("": none, all its own), which a snippet rebuilding one must delete first, and only
    # where it is defined. None: the platform's reader does not say.
    defined_classifiers: dict[str, str] | None = None
    # The devices captures' headers name (`device:`, pull's inventory name) where that is another than the one read
    # (the configuration's hostname), each with that line, in the order the files were read; empty: no capture, or
    # each naming this device or an address. A SYS004 note on the device per capture (parse._header_names_another),
    # or once for the fleet where it names another device of the same lint (fabric._claimed_twice).
    capture_claims: list[tuple[str, Source]] = dataclasses.field(default_factory=list)
    issues: list[ParseIssue] = dataclasses.field(default_factory=list)
    files: list[str] = dataclasses.field(default_factory=list)
    source: Source | None = None

    def port_aliases(self) -> dict[str, str | None]:
        """Port name -> alias (what a neighbour's LLDP may call the port)."""
        return {port.name: port.alias for port in self.ports.values()}


@model_class
class Fabric(Model):
    """Every device that was read, the links between them and the inputs that gave no device."""

    version: int = MODEL_VERSION
    devices: dict[str, Device] = dataclasses.field(default_factory=dict)
    issues: list[ParseIssue] = dataclasses.field(default_factory=list)  # inputs that gave no device at all
    links: list[Link] = dataclasses.field(default_factory=list)
    # How packets are routed for path and deadlock analysis: declared in the topology file
    # ("updown": valley-free Clos routing; "shortest-path": ECMP shortest paths, as BGP/OSPF pick
    # them), or "routes" when routing-table captures are given; None when there is no topology.
    routing: Literal["updown", "shortest-path", "routes"] | None = None
    topology_source: Source | None = None
    topology_issues: list[TopologyIssue] = dataclasses.field(default_factory=list)


# ---- plain data out: what pydantic's model_dump gave, for goldens, JSON reports and tests ---------------------
def _spec(cls: type) -> tuple[tuple[str, Any, Any], ...]:
    spec = _SPECS.get(cls)
    if spec is None:
        spec = _SPECS[cls] = tuple((f.name, f.default, f.default_factory) for f in dataclasses.fields(cls))
    return spec


_SPECS: dict[type, tuple] = {}
_MISSING = dataclasses.MISSING


def dump(obj: Any, *, mode: str = "python", exclude_defaults: bool = False, exclude: set[str] | None = None,
         include: set[str] | None = None) -> Any:
    """A model object as plain data: dicts of fields, nested. ``mode="json"``: only JSON types (enum values, string
    keys, lists for tuples and sets, null for inf/nan). ``exclude_defaults``: fields equal to their default left out."""
    json_mode = mode == "json"
    if isinstance(obj, Model):
        out = {}
        for name, default, factory in _spec(type(obj)):
            if (exclude and name in exclude) or (include is not None and name not in include):
                continue
            value = getattr(obj, name)
            if exclude_defaults and (value == default if factory is _MISSING else
                                     default is _MISSING and value == factory()):
                continue
            out[name] = dump(value, mode=mode, exclude_defaults=exclude_defaults)
        return out
    if isinstance(obj, dict):
        return {(_key(k) if json_mode else k): dump(v, mode=mode, exclude_defaults=exclude_defaults)
                for k, v in obj.items()}
    if isinstance(obj, Enum):
        return obj.value if json_mode else obj
    if isinstance(obj, list) or (json_mode and isinstance(obj, (tuple, set, frozenset))):
        return [dump(v, mode=mode, exclude_defaults=exclude_defaults) for v in obj]
    if isinstance(obj, tuple):
        return tuple(dump(v, mode=mode, exclude_defaults=exclude_defaults) for v in obj)
    if json_mode and isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _key(key: Any) -> str:
    if isinstance(key, Enum):
        return str(key.value)
    return key if isinstance(key, str) else json.dumps(key)
