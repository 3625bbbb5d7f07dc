"""Policies: what lossless means for a fabric. YAML, validated by the models below, with extends.

A policy is data so that no rule hard-codes a vendor default (priority 3, DSCP 26). The models are the
one source of what a policy file may say: policies/schema.json is generated from PolicyFile
(`make schemas`; tests/test_schemas.py fails when the committed file differs) for editors.
"""

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from . import limits
from .docpos import Document, first_error, json_schema, load_yaml, merge, pointer
from .errors import InputError
from .model import WATCHDOG_ACTIONS
from .policyview import EcnMethods, RangeMethods, num, policy_path, shipped
from .printable import quoted
from .units import MAX_CABLE_M
from .userre import regex_problem

# Policies a chain of `extends` may hold (site -> region -> shipped is three).
MAX_EXTENDS = 32


_ACTION_NAMES = (*WATCHDOG_ACTIONS, "alert")  # what a policy may list under watchdog.actions


class _P(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _distinct(values: list) -> list:
    """``values`` when none is listed twice. One pass: a slice of the items before each made a policy's 100,000-item
    DSCP list take 5 s (quadratic)."""
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{v} is listed twice")
        seen.add(v)
    return values


# 802.1p priorities 0-7 and DSCP code points 0-63 (IEEE 802.1Q; RFC 2474).
Priority = Annotated[int, Field(ge=0, le=7)]
Dscp = Annotated[int, Field(ge=0, le=63)]
Priorities = Annotated[list[Priority], Field(json_schema_extra={"uniqueItems": True}), AfterValidator(_distinct)]
# (.inf and .nan are YAML floats: a bound of infinity is written null, and a renderer must never pick one)
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]

# What each number of a policy can mean on a device bounds it: a larger one is no setting any device holds, and was
# taken (`ecn.kmin_min_mtus: 1.0e+308` made every queue's Kmin "below 1e+308 x MTU"; a 32-digit cable length).
# SAI saiwred.h: WRED (ECN) thresholds are sai_uint32_t bytes.
MAX_THRESHOLD_BYTES = 2**32 - 1
# The smallest RoCE MTU is 256 bytes (IBTA MTU code 1, as infiniband.partition_mtu_bytes lists): a Kmin of more MTUs
# than that is above any threshold a switch holds.
MAX_KMIN_MTUS = MAX_THRESHOLD_BYTES // 256
# SAI saiport.h SAI_PORT_ATTR_SPEED: sai_uint32_t Mb/s, so 1 Mb/s to 2^32 - 1 Mb/s.
MIN_SPEED_GBPS, MAX_SPEED_GBPS = 0.001, (2**32 - 1) / 1000
# SAI saiswitch.h SAI_SWITCH_ATTR_PFC_TC_DLD_INTERVAL / _DLR_INTERVAL: a sai_map_list_t of milliseconds, whose values
# are sai_int32_t (saitypes.h sai_map_t).
MAX_WATCHDOG_MS = 2**31 - 1
# OpenSM osm_subnet.c opt_tbl: sweep_interval and transaction_timeout are uint32.
MAX_OPENSM_U32 = 2**32 - 1
# SAI saibuffer.h: buffer sizes, xon/xoff thresholds are sai_uint64_t bytes.
MAX_BUFFER_BYTES = 2**64 - 1
# mlx5_ifc.h mlx5_ifc_cong_control_r_roce_ecn_rp_bits / _np_bits: the widest DCQCN field is 32 bits, unsigned.
MAX_DCQCN_VALUE = 2**32 - 1
# The fastest rate partitions.conf names: rate code 24, 1200 Gb/s (rules/ibs.py IB_RATE_CODES, man partitions.conf).
MAX_IB_RATE_GBPS = 1200
SpeedGbps = Annotated[float, Field(ge=MIN_SPEED_GBPS, le=MAX_SPEED_GBPS, allow_inf_nan=False)]
Ratio = Annotated[float, Field(gt=0, le=MAX_BUFFER_BYTES, allow_inf_nan=False)]  # (bytes over bytes of one pool)


class Range(RangeMethods, _P):
    min: NonNegative | None = None
    max: NonNegative | None = None

    @model_validator(mode="after")
    def _ordered(self) -> "Range":  # (quoted: the module's annotations are objects, not texts pydantic compiles)
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {num(self.min)} is above max {num(self.max)}")
        return self


# The ranges of a count a device holds as an integer (the SAI and OpenSM types cited above) are of integers: a bound
# of 9216.5 bytes was taken, and render truncated the Kmin it clamped into [150000.5, 150000.7] to 150000, outside
# the policy it was rendered for (its lint said ECN003 of render's own snippet).
class BytesRange(Range):
    min: Annotated[int, Field(ge=0, le=MAX_THRESHOLD_BYTES)] | None = None
    max: Annotated[int, Field(ge=0, le=MAX_THRESHOLD_BYTES)] | None = None


class WatchdogMsRange(Range):
    min: Annotated[int, Field(ge=0, le=MAX_WATCHDOG_MS)] | None = None
    max: Annotated[int, Field(ge=0, le=MAX_WATCHDOG_MS)] | None = None


class PercentRange(Range):
    min: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    max: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None


class OpenSmRange(Range):
    min: Annotated[int, Field(ge=0, le=MAX_OPENSM_U32)] | None = None
    max: Annotated[int, Field(ge=0, le=MAX_OPENSM_U32)] | None = None


class RocePorts(_P):
    """Which switch ports carry RoCE and must be lossless."""

    select: Literal["qos-configured", "all"] = Field("qos-configured", description=(
        "qos-configured: ports with any PFC/QoS map configuration (SONiC PORT_QOS_MAP entry, EOS PFC or trust lines)."))
    name_regex: str | None = Field(None, description=(
        "Only ports whose name this matches (a search, RE2 syntax: matched in linear time) are RoCE-facing."))
    description_regex: str | None = Field(None, description=(
        "Only ports whose description this matches (a search, RE2 syntax) are RoCE-facing."))
    devices_without_lossless: Literal["error", "skip"] = Field("error", description=(
        "A switch that configures no lossless setting on any port (PFC on no priority, no PG with lossless headroom, "
        "no queue marking ECN, no link pause, no lossless class): error: PFC006 says once that it would drop RoCE; "
        "skip: it carries no RoCE (a WAN router, a lossy-by-design SKU), none of its ports is selected and SEL001 "
        "says, as an info, that it was not checked."))

    @field_validator("name_regex", "description_regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        """lint compiles these (losslessd.userre): a policy made in Python is held to what a policy file is."""
        problem = None if value is None else regex_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class Lossless(_P):
    priorities: Priorities = Field(default_factory=lambda: [3], min_length=1)
    dscp: Annotated[list[Dscp], Field(json_schema_extra={"uniqueItems": True}), AfterValidator(_distinct)] = Field(
        default_factory=lambda: [26], min_length=1, description="DSCP values of RoCE data traffic.")
    # (a lambda, not `list`: pydantic reads a factory's signature, and a builtin's is parsed from text with the
    # tokenizer, whose regular expressions cost every lint about 1 % of its start)
    tolerated_priorities: Priorities = Field(default_factory=lambda: [], description=(
        "Priorities that may also run PFC without being required (e.g. SONiC dual-ToR tunnel priorities 2 and 6)."))
    trust: Literal["dscp", "pcp"] | None = "dscp"


class Cnp(_P):
    dscp: Dscp
    priority: Priority | None = None
    strict: bool = Field(True, description="CNPs must leave through a strict-priority queue.")


class EcnPolicy(EcnMethods, _P):
    required: bool = Field(True, description="false for PFC-only fabrics.")
    min_threshold_bytes: BytesRange = Field(default_factory=BytesRange)
    max_threshold_bytes: BytesRange = Field(default_factory=BytesRange)
    mark_probability_pct: PercentRange = Field(default_factory=lambda: PercentRange(min=0.0001, max=100))
    kmin_min_mtus: Annotated[float, Field(ge=0, le=MAX_KMIN_MTUS, allow_inf_nan=False)] = 1
    before_pfc: Literal["kmin", "kmax"] = Field("kmin", description="Which threshold must sit below the PFC trigger.")
    # ``congested_lossless_queues`` is the earlier name, still read.
    # At most every PG of the largest switch (limits.MAX_LOSSLESS_PGS): 10^29 was taken and ECN004 and render
    # printed it as a load (a 30-digit count of PGs, a trigger of the reserved size alone).
    assume_congested_queues: Annotated[int, Field(ge=1, le=limits.MAX_LOSSLESS_PGS)] | None = Field(None, description=(
        "Lossless PGs congested at once ECN004 assumes (n in alpha*F/(1+n*alpha)), an error where ECN marks after "
        "PFC at that load; null: an error where it does with one congested PG, else a warning naming the break-even "
        "(the fewest congested PGs of the pool, up to all of them, from which it does)."))
    congested_lossless_queues: Annotated[int, Field(ge=1, le=limits.MAX_LOSSLESS_PGS)] | None = Field(
        None, description="Earlier name of assume_congested_queues.")
    speed_reference_gbps: SpeedGbps | None = Field(None, description=(
        "Speed the thresholds are written for; renderers scale them linearly to other speeds."))


def _actions(value: Any) -> Any:
    """SONiC's `alert` (forward and raise an alarm) is the normalised `notify-only`."""
    if isinstance(value, list):
        return list(dict.fromkeys("notify-only" if a == "alert" else a for a in value))
    return value


class WatchdogPolicy(_P):
    required: bool = True
    detection_time_ms: WatchdogMsRange = Field(default_factory=WatchdogMsRange)
    restoration_time_ms: WatchdogMsRange = Field(default_factory=WatchdogMsRange)
    # Normalised watchdog actions (model.WatchdogAction) that mitigate a storm; None: any action.
    actions: Annotated[list[Literal[_ACTION_NAMES]], Field(min_length=1),  # type: ignore[valid-type]
                       AfterValidator(_actions)] | None = Field(None, description=(
        "PFC watchdog actions that mitigate a storm, in the words every platform's actions are normalised to: drop "
        "(discard the stormed queue's packets), forward (forward them, ignoring pauses), notify-only (log only), "
        "errdisable (shut the port). SONiC's `alert` is accepted for notify-only."))


class BufferPolicy(_P):
    headroom_formula: Literal["sonic", "mlx5"] = "sonic"
    default_cable_length_m: Annotated[float, Field(ge=0, le=MAX_CABLE_M, allow_inf_nan=False)] | None = None
    peer_response_time_bytes: Annotated[int, Field(ge=0, le=MAX_BUFFER_BYTES)] | None = Field(
        None, description="Override of the formula's peer response (pause reaction) allowance.")
    # None: the device's own over_subscribe_ratio (SONiC DEFAULT_LOSSLESS_BUFFER_PARAMETER), else not judged (a
    # configured pool xoff is the SKU's chosen size: sonic-swss buffer_pool_mellanox.lua uses it as it is).
    headroom_pool_oversubscription: Ratio | None = Field(None, description=(
        "Largest summed lossless xoff / shared headroom pool (BUF004); null: the device's over_subscribe_ratio, "
        "else not judged (reported as unverified)."))


class NicPolicy(_P):
    trust: Literal["dscp", "pcp"] | None = "dscp"
    ecn_np: bool = Field(True, description="Notification point (CNP generation) enabled on lossless priorities.")
    ecn_rp: bool = Field(True, description="Reaction point (rate reduction) enabled on lossless priorities.")
    check_roce_tos: bool = True
    check_traffic_class: bool = Field(
        True, description="Check NCCL_IB_TC and the RDMA device's traffic_class (NIC006).")
    # NIC007 also checks that hosts agree where the policy names none.
    dcqcn: dict[str, Annotated[int, Field(ge=0, le=MAX_DCQCN_VALUE)]] = Field(default_factory=dict, description=(
        "DCQCN parameters every host must have: sysfs ecn/roce_rp/<name> or ecn/roce_np/<name> -> value (NIC007)."))


class SchedulerPolicy(_P):
    """What SCH001 accepts above and for the lossless class."""

    strict_allowed: list[Priority] | None = Field(None, description=(
        "Traffic classes allowed strict priority besides the lossless ones (SCH001); null: the CNP class."))
    min_lossless_weight_pct: Annotated[float, Field(ge=0, le=100)] | None = Field(None, description=(
        "Lowest share of weighted bandwidth for the lossless class (SCH001); null: only 0 is refused."))


class InfinibandPolicy(_P):
    """InfiniBand subnet manager (OpenSM) expectations, checked by the IBS rules."""

    topology: Literal["fat-tree", "torus", "dragonfly", "mesh", "tree", "unknown"] = Field(
        "unknown", description="Fabric topology: decides which routing engines are credit-loop free.")
    sweep_interval_s: OpenSmRange = Field(default_factory=OpenSmRange)
    transaction_timeout_ms: OpenSmRange = Field(default_factory=OpenSmRange)
    require_standby_sm: bool = Field(False, description=(
        "A standby SM with a lower sm_priority must be among the linted SM configs."))
    # IB MTUs (IBA spec, PortInfo NeighborMTU codes 1-5); None: only values that are no IBA code are reported.
    partition_mtu_bytes: Literal[256, 512, 1024, 2048, 4096] | None = Field(
        None, description="IB MTU partitions must use (partitions.conf mtu=, IBS008).")
    partition_rate_gbps: Annotated[float, Field(gt=0, le=MAX_IB_RATE_GBPS, allow_inf_nan=False)] | None = Field(
        None, description="Rate partitions must use (partitions.conf rate=, IBS008), Gb/s.")


class _Policy(_P):
    """What a policy says, whether one file or a merged `extends` chain."""

    name: str
    description: str = ""
    roce_ports: RocePorts = Field(default_factory=RocePorts)
    lossless: Lossless = Field(default_factory=Lossless)
    cnp: Cnp | None = None
    ecn: EcnPolicy = Field(default_factory=EcnPolicy)
    watchdog: WatchdogPolicy = Field(default_factory=WatchdogPolicy)
    buffer: BufferPolicy = Field(default_factory=BufferPolicy)
    nic: NicPolicy = Field(default_factory=NicPolicy)
    scheduler: SchedulerPolicy = Field(default_factory=SchedulerPolicy)
    infiniband: InfinibandPolicy = Field(default_factory=InfinibandPolicy)


class Policy(_Policy):
    """A loaded policy: its `extends` chain merged, named after its file when it names itself not."""

    source_file: str | None = None

    @field_validator("cnp")
    @classmethod
    def _cnp_apart(cls, cnp: Cnp | None, info: ValidationInfo) -> Cnp | None:
        """CNPs and RoCE data cannot share a DSCP: the one must be strict and lossy, the other lossless (checked
        once the `extends` chain is merged: a file may set one and inherit the other)."""
        lossless = info.data.get("lossless")
        if cnp is not None and lossless is not None and cnp.dscp in lossless.dscp:
            raise ValueError(f"DSCP {cnp.dscp} is also a lossless RoCE DSCP (lossless.dscp): CNPs and RoCE data need "
                             "code points of their own")
        # A strict CNP queue that is also a lossless one makes RoCE data strict priority too (it starves every other
        # queue) and asks for `priority strict` and a weighted lossless queue on one queue.
        if cnp is not None and lossless is not None and cnp.strict and cnp.priority in lossless.priorities:
            raise ValueError(f"priority {cnp.priority} is also a lossless priority (lossless.priorities): a strict CNP "
                             "queue needs a priority of its own (or cnp.strict: false)")
        return cnp


# A policy's name (its `name:`, or its file's when it names itself nowhere) goes into every report, log line and
# rendered snippet (`! losslessd render: policy NAME`): lower-case letters, digits and -, at most as long as any name
# render writes (render._WRITABLE_NAME: 64 characters). One rule for the schema, file names and render.
NAME_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
NAME_MAX = 64
NAME_RULE = f"lower-case letters, digits and -, at most {NAME_MAX} characters"
_NAME = re.compile(NAME_PATTERN.strip("^$"))


def is_name(name: str) -> bool:
    """Whether ``name`` is a policy name (NAME_PATTERN, NAME_MAX)."""
    return len(name) <= NAME_MAX and _NAME.fullmatch(name) is not None


class PolicyFile(_Policy):
    """What lossless means for one fabric. Profiles may extend another by name or relative path."""

    model_config = ConfigDict(title="losslessd policy", json_schema_extra={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://losslessd.invalid/policies/schema.json"})

    # Neither may be null: a file names itself or not (then it is named after the file), extends or not.
    name: str = Field(None, pattern=NAME_PATTERN, max_length=NAME_MAX)  # type: ignore[assignment]
    extends: str = Field(None, description="Name of a shipped policy or a path relative to this file.")  # type: ignore[assignment]


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON schema of a policy file (policies/schema.json is this, written by `make schemas`)."""
    return json_schema(PolicyFile)


_M = TypeVar("_M", bound=BaseModel)


def _validated(model: type[_M], data: dict, docs: list[Document], file: str) -> _M:
    """``data`` as ``model`` (strict: a policy file says 3, not "3"); the first problem as an InputError at
    the line of the first of ``docs`` (a child before its parents) that writes the offending value."""
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        loc = pointer(exc.errors()[0]["loc"])
        raise first_error(exc, model, next((d for d in docs if loc in d.lines), docs[0]), file) from None


def _resolve(ref: str, relative_to: Path) -> Path:
    candidate = (relative_to.parent / ref)
    if candidate.suffix in (".yaml", ".yml") and os.path.lexists(candidate):
        return candidate  # read (and refused, if it is no regular file) by load_yaml
    if ref in shipped():
        return shipped()[ref]
    raise InputError(f"extends {quoted(ref)}: no such file next to this policy and no shipped policy of that name "
                     f"(shipped: {', '.join(shipped())})", file=str(relative_to))


def _load_raw(path: Path, files: list[tuple[str, str]]) -> tuple[dict, list[Document]]:
    """The policy at ``path`` merged over its `extends` chain (followed without recursion, at most
    MAX_EXTENDS long, a loop refused), each file checked on its own first; and the chain's documents. Each file
    read is added to ``files`` (its path as opened, the SHA-256 of the bytes its text was read from)."""
    chain: list[tuple[Path, dict]] = []
    docs: list[Document] = []
    seen: dict[str, Path] = {}
    while True:
        key = os.path.realpath(path)
        if key in seen:
            names = " -> ".join(p.name for p, _ in chain) + f" -> {path.name}"
            raise InputError(f"extends forms a loop: {names}", file=str(chain[-1][0]))
        if len(chain) >= MAX_EXTENDS:
            raise InputError(f"extends chain is longer than {MAX_EXTENDS} policies (a loop through differently "
                             "named files?)", file=str(chain[0][0]))
        seen[key] = path
        raw = limits.read_bytes(path)
        files.append((str(path), hashlib.sha256(raw).hexdigest()))
        doc = load_yaml(path, limits.decoded(raw, str(path)))
        if not isinstance(doc.data, dict):
            raise InputError("a policy must be a YAML mapping", file=str(path), line=1)
        doc.refuse_duplicates()
        _validated(PolicyFile, doc.data, [doc], doc.file)
        docs.append(doc)
        data = dict(doc.data)
        parent = data.pop("extends", None)
        chain.append((path, data))
        if parent is None:
            break
        path = _resolve(parent, path)
    merged: dict = {}
    for _, data in reversed(chain):
        merged = merge(merged, data)
    return merged, docs


def load_policy(ref: str | Path, *, files: list[tuple[str, str]] | None = None) -> Policy:
    """Load a policy by path or by shipped name (``roce-dscp26``), resolving ``extends``; ``files`` (when given) is
    told each file read and the SHA-256 of its bytes (losslessd.policycache's key)."""
    path = policy_path(ref)
    data, docs = _load_raw(path, [] if files is None else files)
    if "name" not in data:  # (no file of the chain names itself)
        if not is_name(path.stem):  # (a newline in it wrote a line of its own in a snippet)
            raise InputError(f"the policy names itself nowhere, and its file name {quoted(path.stem)} is no policy "
                             f"name ({NAME_RULE}): give it a `name:`", file=str(path), line=1)
        data["name"] = path.stem
    data["source_file"] = str(path)
    return _validated(Policy, data, docs, str(path))  # e.g. a child's min over its parent's max
