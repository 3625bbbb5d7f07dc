"""Policies: what lossless means for a fabric. YAML, validated by policies/schema.json, with extends.

A policy is data so that no rule hard-codes a vendor default (priority 3, DSCP 26).
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .docpos import Document, load_yaml, pointer, schema_error
from .errors import InputError
from .model import WatchdogAction
from .resources import data_dir

# Policies a chain of `extends` may hold (site -> region -> shipped is three).
MAX_EXTENDS = 32


class _P(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Range(_P):
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {_num(self.min)} is above max {_num(self.max)}")
        return self

    def contains(self, value: float) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def describe(self, unit: str = "") -> str:
        lo = "-inf" if self.min is None else _num(self.min)
        hi = "inf" if self.max is None else _num(self.max)
        return f"[{lo}, {hi}]{(' ' + unit) if unit else ''}"


def _num(value: float) -> str:
    """1048576 rather than 1.04858e+06: operators compare these with config text."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class RocePorts(_P):
    select: Literal["qos-configured", "all"] = "qos-configured"
    name_regex: str | None = None
    description_regex: str | None = None

    @field_validator("name_regex", "description_regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        """lint compiles these: a policy made in Python is held to what a policy file is."""
        problem = None if value is None else regex_problem(value)
        if problem:
            raise ValueError(f"not a valid regular expression: {problem}")
        return value


class Lossless(_P):
    priorities: list[int] = Field(default_factory=lambda: [3])
    dscp: list[int] = Field(default_factory=lambda: [26])
    tolerated_priorities: list[int] = Field(default_factory=list)
    trust: Literal["dscp", "pcp"] | None = "dscp"


class Cnp(_P):
    dscp: int
    priority: int | None = None
    strict: bool = True


class EcnPolicy(_P):
    required: bool = True
    min_threshold_bytes: Range = Field(default_factory=Range)
    max_threshold_bytes: Range = Field(default_factory=Range)
    mark_probability_pct: Range = Field(default_factory=lambda: Range(min=0.0001, max=100))
    kmin_min_mtus: float = 1
    before_pfc: Literal["kmin", "kmax"] = "kmin"
    # Lossless PGs congested at once that ECN004 assumes (n in alpha*F/(1 + n*alpha)); None: every lossless PG
    # that shares the PG's pool. ``congested_lossless_queues`` is the earlier name, still read.
    assume_congested_queues: int | None = None
    congested_lossless_queues: int | None = None
    speed_reference_gbps: float | None = None

    @property
    def assumed_congested(self) -> int | None:
        return self.assume_congested_queues if self.assume_congested_queues is not None \
            else self.congested_lossless_queues


class WatchdogPolicy(_P):
    required: bool = True
    detection_time_ms: Range = Field(default_factory=Range)
    restoration_time_ms: Range = Field(default_factory=Range)
    # Normalised watchdog actions (model.WatchdogAction) that mitigate a storm; None: any action.
    actions: list[WatchdogAction] | None = None

    @field_validator("actions", mode="before")
    @classmethod
    def _alias(cls, value):
        """SONiC's `alert` (forward and raise an alarm) is the normalised `notify-only`."""
        if isinstance(value, list):
            return list(dict.fromkeys("notify-only" if a == "alert" else a for a in value))
        return value


class BufferPolicy(_P):
    headroom_formula: Literal["sonic", "mlx5"] = "sonic"
    default_cable_length_m: float | None = None
    peer_response_time_bytes: int | None = None
    # Largest (summed xoff of the lossless PGs) / (shared headroom pool) BUF004 accepts; None: the device's own
    # over_subscribe_ratio (SONiC DEFAULT_LOSSLESS_BUFFER_PARAMETER), else 1 (buffers_config.j2's value).
    headroom_pool_oversubscription: float | None = None


class NicPolicy(_P):
    trust: Literal["dscp", "pcp"] | None = "dscp"
    ecn_np: bool = True
    ecn_rp: bool = True
    check_roce_tos: bool = True
    check_traffic_class: bool = True  # NIC006: NCCL_IB_TC and the RDMA device's traffic_class
    # DCQCN parameters (sysfs ecn/roce_rp/<name>, ecn/roce_np/<name>) every host must have; NIC007 also
    # checks that hosts agree where the policy names none.
    dcqcn: dict[str, int] = Field(default_factory=dict)


class SchedulerPolicy(_P):
    """What SCH001 accepts above and for the lossless class."""

    # Traffic classes/queues allowed strict priority besides the lossless ones; None: the CNP class only.
    strict_allowed: list[int] | None = None
    min_lossless_weight_pct: float | None = None  # lowest share of weighted bandwidth; None: only 0 is refused


class InfinibandPolicy(_P):
    """What the IBS rules expect of an InfiniBand subnet manager (OpenSM)."""

    topology: Literal["fat-tree", "torus", "dragonfly", "mesh", "tree", "unknown"] = "unknown"
    sweep_interval_s: Range = Field(default_factory=Range)
    transaction_timeout_ms: Range = Field(default_factory=Range)
    require_standby_sm: bool = False
    # What IPoIB/multicast partitions (partitions.conf mtu=, rate=) must use: IB MTU in bytes, rate in Gb/s;
    # None: only values that are no IBA code are reported.
    partition_mtu_bytes: int | None = None
    partition_rate_gbps: float | None = None


class Policy(_P):
    name: str
    description: str = ""
    source_file: str | None = None
    roce_ports: RocePorts = Field(default_factory=RocePorts)
    lossless: Lossless = Field(default_factory=Lossless)
    cnp: Cnp | None = None
    ecn: EcnPolicy = Field(default_factory=EcnPolicy)
    watchdog: WatchdogPolicy = Field(default_factory=WatchdogPolicy)
    buffer: BufferPolicy = Field(default_factory=BufferPolicy)
    nic: NicPolicy = Field(default_factory=NicPolicy)
    scheduler: SchedulerPolicy = Field(default_factory=SchedulerPolicy)
    infiniband: InfinibandPolicy = Field(default_factory=InfinibandPolicy)


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads((data_dir("policies") / "schema.json").read_text(encoding="utf-8"))


def shipped() -> dict[str, Path]:
    """Shipped profiles by name."""
    return {p.stem: p for p in sorted(data_dir("policies").glob("*.yaml"))}


def _validate(doc: Document) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(doc.data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        raise schema_error(doc, errors[0], len(errors))


def _merge(base: Any, child: Any) -> Any:
    """Deep merge: mappings merge key by key; anything else (lists, scalars, null) replaces."""
    if isinstance(base, dict) and isinstance(child, dict):
        out = dict(base)
        for key, value in child.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    return child


def _resolve(ref: str, relative_to: Path) -> Path:
    candidate = (relative_to.parent / ref)
    if candidate.suffix in (".yaml", ".yml") and os.path.lexists(candidate):
        return candidate  # read (and refused, if it is no regular file) by load_yaml
    if ref in shipped():
        return shipped()[ref]
    raise InputError(f"extends {ref!r}: no such file next to this policy and no shipped policy of that name "
                     f"(shipped: {', '.join(shipped())})", file=str(relative_to))


def _load_raw(path: Path) -> dict:
    """The policy at ``path`` merged over its `extends` chain (followed without recursion, at most
    MAX_EXTENDS long, a loop refused), each file checked on its own first."""
    chain: list[tuple[Path, dict]] = []
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
        doc = load_yaml(path)
        if not isinstance(doc.data, dict):
            raise InputError("a policy must be a YAML mapping", file=str(path), line=1)
        doc.refuse_duplicates()
        _validate(doc)
        _check_values(doc.data, doc)
        data = dict(doc.data)
        parent = data.pop("extends", None)
        chain.append((path, data))
        if parent is None:
            break
        path = _resolve(parent, path)
    merged: dict = {}
    for _, data in reversed(chain):
        merged = _merge(merged, data)
    return merged


def _check_values(data: dict, doc: Document | None, file: str | None = None) -> None:
    """What the schema cannot say: every range has min <= max, every regex compiles. ``doc`` gives lines;
    without one (a merged policy) the error names ``file`` and the JSON path."""
    def fail(message: str, parts: list) -> None:
        raise InputError(message, file=doc.file if doc else file, line=doc.line_of(parts) if doc else None,
                         pointer=pointer(parts) or "/")

    for section, body in data.items():
        if not isinstance(body, dict):
            continue
        for key, value in body.items():
            if (isinstance(value, dict) and set(value) <= {"min", "max"} and _number(value.get("min"))
                    and _number(value.get("max")) and value["min"] > value["max"]):
                fail(f"{section}.{key}: min {_num(value['min'])} is above max {_num(value['max'])}",
                     [section, key])
    for key in _REGEX_KEYS:
        value = (data.get("roce_ports") or {}).get(key) if isinstance(data.get("roce_ports"), dict) else None
        if isinstance(value, str):
            problem = regex_problem(value)
            if problem:
                fail(f"roce_ports.{key}: not a valid regular expression: {problem}", ["roce_ports", key])


_REGEX_KEYS = ("name_regex", "description_regex")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a Python regular expression, or None when it is one."""
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:  # re.error names the position
        return str(exc)
    return None


def load_policy(ref: str | Path) -> Policy:
    """Load a policy by path or by shipped name (``roce-dscp26``), resolving ``extends``."""
    path = Path(ref)
    if not os.path.lexists(path):
        if str(ref) in shipped():
            path = shipped()[str(ref)]
        else:
            raise InputError(f"no policy file or shipped policy named {str(ref)!r} (shipped: {', '.join(shipped())})")
    data = _load_raw(path)
    data.setdefault("name", path.stem)
    _check_values(data, None, str(path))  # a child's min over its parent's max
    try:
        return Policy(**data, source_file=str(path))
    except Exception as exc:  # noqa: BLE001 - pydantic errors after a schema pass mean the two disagree
        raise InputError(f"policy does not load: {exc}", file=str(path)) from None
