"""A validated policy as plain, frozen objects: what a lint reads when `losslessd.policycache` holds the policy.

losslessd.policy's pydantic models are the one validator of a policy and the API's type; building them (and
importing pydantic and PyYAML) is most of a lint's start-up. A policy they validated once is kept as plain data,
and this view gives the rules the same attribute names and values without importing either (tests/test_policy_cache.py
compares the two attribute by attribute for every shipped profile). What the rules call on a policy (a range's
`contains` and `describe`, ECN's `assumed_congested`) lives here, in plain classes both share.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError
from .printable import shown_path
from .resources import data_dir


def num(value: float) -> str:
    """1048576 rather than 1.04858e+06: operators compare these with config text."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class RangeMethods:
    """What a policy range answers (policy.Range and the view's Range)."""

    if TYPE_CHECKING:  # (the fields are the pydantic model's or the view's, not this mixin's)
        min: float | None
        max: float | None

    def contains(self, value: float) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def describe(self, unit: str = "") -> str:
        lo = "-inf" if self.min is None else num(self.min)
        hi = "inf" if self.max is None else num(self.max)
        return f"[{lo}, {hi}]{(' ' + unit) if unit else ''}"


class EcnMethods:
    """What ECN's policy answers (policy.EcnPolicy and the view's EcnPolicy)."""

    if TYPE_CHECKING:
        assume_congested_queues: int | None
        congested_lossless_queues: int | None

    @property
    def assumed_congested(self) -> int | None:
        return self.assume_congested_queues if self.assume_congested_queues is not None \
            else self.congested_lossless_queues


def shipped() -> dict[str, Path]:
    """Shipped profiles by name."""
    return {p.stem: p for p in sorted(data_dir("policies").glob("*.yaml"))}


def policy_path(ref: str | Path) -> Path:
    """The file a policy reference names: a path, else a shipped policy's name (``roce-dscp26``)."""
    if str(ref) == "":  # (Path("") is `.`: "not a regular file (a folder)")
        raise InputError(f"the policy named is empty: give a shipped policy name ({', '.join(shipped())}) or a "
                         "policy file")
    path = Path(ref)
    if not os.path.lexists(path):
        profiles = shipped()  # (the folder listed once: 0.6 M instructions a lint)
        if str(ref) in profiles:
            return profiles[str(ref)]
        raise InputError(f"no policy file or shipped policy named {shown_path(str(ref))!r} (shipped: "
                         f"{', '.join(profiles)})")
    return path


def _rebuild(cls: type[_Frozen], values: dict) -> _Frozen:
    return cls(**values)


class _Frozen:
    """Fields set once from keywords (exactly the class's __slots__: anything else is a cache of another
    version), then read-only. No code is compiled per class (dataclasses' and namedtuple's are)."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, **values: Any) -> None:
        if values.keys() != set(self.__slots__):
            raise ValueError(f"{type(self).__name__}: fields {sorted(values)} are not {sorted(self.__slots__)}")
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a validated policy is read-only ({type(self).__name__}.{name})")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def _values(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # (lists inside, as the models hold)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._values().items())})"

    def __reduce__(self) -> tuple:  # (worker processes get the policy pickled)
        return _rebuild, (type(self), self._values())


class Range(RangeMethods, _Frozen):
    __slots__ = ("min", "max")


class RocePorts(_Frozen):
    __slots__ = ("select", "name_regex", "description_regex", "devices_without_lossless")


class Lossless(_Frozen):
    __slots__ = ("priorities", "dscp", "tolerated_priorities", "trust")


class Cnp(_Frozen):
    __slots__ = ("dscp", "priority", "strict")


class EcnPolicy(EcnMethods, _Frozen):
    __slots__ = ("required", "min_threshold_bytes", "max_threshold_bytes", "mark_probability_pct", "kmin_min_mtus",
                 "before_pfc", "assume_congested_queues", "congested_lossless_queues", "speed_reference_gbps")


class WatchdogPolicy(_Frozen):
    __slots__ = ("required", "detection_time_ms", "restoration_time_ms", "actions")


class BufferPolicy(_Frozen):
    __slots__ = ("headroom_formula", "default_cable_length_m", "peer_response_time_bytes",
                 "headroom_pool_oversubscription")


class NicPolicy(_Frozen):
    __slots__ = ("trust", "ecn_np", "ecn_rp", "check_roce_tos", "check_traffic_class", "dcqcn")


class SchedulerPolicy(_Frozen):
    __slots__ = ("strict_allowed", "min_lossless_weight_pct")


class InfinibandPolicy(_Frozen):
    __slots__ = ("topology", "sweep_interval_s", "transaction_timeout_ms", "require_standby_sm", "partition_mtu_bytes",
                 "partition_rate_gbps")


class Policy(_Frozen):
    __slots__ = ("name", "description", "roce_ports", "lossless", "cnp", "ecn", "watchdog", "buffer", "nic",
                 "scheduler", "infiniband", "source_file")


# Which fields of each class hold another (the rest are plain values: numbers, text, lists, a dict).
_NESTED: dict[type[_Frozen], dict[str, type[_Frozen]]] = {
    Policy: {"roce_ports": RocePorts, "lossless": Lossless, "cnp": Cnp, "ecn": EcnPolicy, "watchdog": WatchdogPolicy,
             "buffer": BufferPolicy, "nic": NicPolicy, "scheduler": SchedulerPolicy, "infiniband": InfinibandPolicy},
    EcnPolicy: {"min_threshold_bytes": Range, "max_threshold_bytes": Range, "mark_probability_pct": Range},
    WatchdogPolicy: {"detection_time_ms": Range, "restoration_time_ms": Range},
    InfinibandPolicy: {"sweep_interval_s": Range, "transaction_timeout_ms": Range},
}


def view(data: dict, cls: type[_Frozen] = Policy) -> Any:
    """The frozen view of a validated policy's plain data (``Policy.model_dump()``); ValueError or TypeError
    where ``data`` is not shaped as one (a cache of another version)."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: not a mapping")
    nested = _NESTED.get(cls, {})
    return cls(**{k: (view(v, nested[k]) if k in nested and v is not None else v) for k, v in data.items()})
