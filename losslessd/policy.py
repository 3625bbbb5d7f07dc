"""Policies: what lossless means for a fabric. YAML, validated by policies/schema.json, with extends.

A policy is data so that no rule hard-codes a vendor default (priority 3, DSCP 26).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .docpos import Document, load_yaml, pointer
from .errors import InputError
from .model import WatchdogAction
from .resources import data_dir


class _P(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Range(_P):
    min: float | None = None
    max: float | None = None

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
    congested_lossless_queues: int = 1
    speed_reference_gbps: float | None = None


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


class NicPolicy(_P):
    trust: Literal["dscp", "pcp"] | None = "dscp"
    ecn_np: bool = True
    ecn_rp: bool = True
    check_roce_tos: bool = True


class InfinibandPolicy(_P):
    """What the IBS rules expect of an InfiniBand subnet manager (OpenSM)."""

    topology: Literal["fat-tree", "torus", "dragonfly", "mesh", "tree", "unknown"] = "unknown"
    sweep_interval_s: Range = Field(default_factory=Range)
    transaction_timeout_ms: Range = Field(default_factory=Range)
    require_standby_sm: bool = False


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
    infiniband: InfinibandPolicy = Field(default_factory=InfinibandPolicy)


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads((data_dir("policies") / "schema.json").read_text(encoding="utf-8"))


def shipped() -> dict[str, Path]:
    """Shipped profiles by name."""
    return {p.stem: p for p in sorted(data_dir("policies").glob("*.yaml"))}


def _validate(doc: Document) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(doc.data), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    err = errors[0]
    path = list(err.absolute_path)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise InputError(f"{_explain(err)}{more}", file=doc.file, line=doc.line_of(path), pointer=pointer(path) or "/")


def _explain(err: jsonschema.ValidationError) -> str:
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        return f"{err.message}; allowed keys: {', '.join(allowed)}"
    if err.validator == "enum":
        return f"expected one of {err.validator_value}, got {err.instance!r}"
    if err.validator == "type":
        return f"expected {err.validator_value}, got {err.instance!r}"
    return err.message


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
    if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
        return candidate
    if ref in shipped():
        return shipped()[ref]
    raise InputError(f"extends {ref!r}: no such file next to this policy and no shipped policy of that name "
                     f"(shipped: {', '.join(shipped())})", file=str(relative_to))


def _load_raw(path: Path, seen: tuple[Path, ...]) -> dict:
    path = path.resolve()
    if path in seen:
        chain = " -> ".join(p.name for p in (*seen, path))
        raise InputError(f"extends forms a loop: {chain}", file=str(path))
    doc = load_yaml(path)
    if not isinstance(doc.data, dict):
        raise InputError("a policy must be a YAML mapping", file=str(path), line=1)
    _validate(doc)
    data = dict(doc.data)
    parent = data.pop("extends", None)
    if parent is None:
        return data
    return _merge(_load_raw(_resolve(parent, path), (*seen, path)), data)


def load_policy(ref: str | Path) -> Policy:
    """Load a policy by path or by shipped name (``roce-dscp26``), resolving ``extends``."""
    path = Path(ref)
    if not path.is_file():
        if str(ref) in shipped():
            path = shipped()[str(ref)]
        else:
            raise InputError(f"no policy file or shipped policy named {str(ref)!r} (shipped: {', '.join(shipped())})")
    data = _load_raw(path, ())
    data.setdefault("name", path.stem)
    try:
        return Policy(**data, source_file=str(path))
    except Exception as exc:  # pydantic errors after a schema pass mean the two disagree
        raise InputError(f"policy does not load: {exc}", file=str(path)) from None
