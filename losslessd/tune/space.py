"""What the tuner may change, inside the policy's bounds: ECN Kmin, Kmax and Pmax of the lossless queues.

Values are given at the policy's reference speed (``ecn.speed_reference_gbps``, as losslessd.render scales
its thresholds) and scaled to each port's speed when rendered; without a reference speed they are the
bytes every port gets. Each dimension is a short list of levels (geometric for thresholds), so grid
search, coordinate descent and random search all walk the same grid and can be compared at equal budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..records import record

if TYPE_CHECKING:  # (only a type here: `tune --help` needs none of the policy's pydantic models)
    from ..policy import Policy

DIMENSIONS = ("kmin_bytes", "kmax_bytes", "pmax_pct")
# Mark probabilities tried (percent): the decades operators use, 1 % (CoNEXT'16's default) to 100 %
# (NVUE's RoCE default), inside the policy's mark_probability_pct range.
PMAX_LEVELS_PCT = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
THRESHOLD_LEVELS = 7


@dataclass(frozen=True, order=True)
class Candidate:
    """ECN settings at the reference speed."""

    kmin_bytes: int
    kmax_bytes: int
    pmax_pct: float

    @property
    def key(self) -> str:
        return f"kmin={self.kmin_bytes},kmax={self.kmax_bytes},pmax={self.pmax_pct:g}"

    @classmethod
    def from_key(cls, key: str) -> Candidate:
        parts = dict(p.split("=", 1) for p in key.split(","))
        return cls(int(parts["kmin"]), int(parts["kmax"]), float(parts["pmax"]))

    def describe(self) -> str:
        return f"Kmin {self.kmin_bytes} B, Kmax {self.kmax_bytes} B, Pmax {self.pmax_pct:g} %"

    def scaled(self, factor: float) -> tuple[int, int]:
        """(Kmin, Kmax) in bytes for a port whose speed is ``factor`` x the reference."""
        return int(round(self.kmin_bytes * factor)), int(round(self.kmax_bytes * factor))


@record(frozen=True)
class Space:
    levels: tuple[tuple[float, ...], ...]  # per dimension of DIMENSIONS, ascending

    def candidate(self, index: tuple[int, ...]) -> Candidate | None:
        """The candidate at grid ``index``; None outside the grid or where Kmin > Kmax."""
        if len(index) != len(self.levels) or any(not 0 <= i < len(lv) for i, lv in zip(index, self.levels)):
            return None
        kmin, kmax, pmax = (lv[i] for i, lv in zip(index, self.levels))
        if kmin > kmax:
            return None
        return Candidate(int(kmin), int(kmax), float(pmax))

    def index_of(self, cand: Candidate) -> tuple[int, ...]:
        """The grid point nearest ``cand`` (thresholds on a log scale)."""
        values = (cand.kmin_bytes, cand.kmax_bytes, cand.pmax_pct)
        return tuple(min(range(len(lv)), key=lambda i, v=v, lv=lv: abs(math.log(max(lv[i], 1e-9) / max(v, 1e-9))))
                     for v, lv in zip(values, self.levels))

    def neighbour(self, idx: tuple[int, ...], dim: int, step: int) -> tuple[int, ...] | None:
        """``idx`` moved ``step`` levels along ``dim``; where that puts Kmin above Kmax, the other threshold
        follows to the nearest level that keeps Kmin <= Kmax. None off the grid."""
        moved = idx[:dim] + (idx[dim] + step,) + idx[dim + 1:]
        if not 0 <= moved[dim] < len(self.levels[dim]):
            return None
        if self.candidate(moved) is not None:
            return moved
        kmins, kmaxs = self.levels[0], self.levels[1]
        if dim == 0:  # Kmin rose past Kmax: Kmax rises to it
            up = next((i for i, v in enumerate(kmaxs) if v >= kmins[moved[0]]), None)
            fixed = None if up is None else (moved[0], up, *moved[2:])
        elif dim == 1:  # Kmax fell below Kmin: Kmin falls to it
            down = max((i for i, v in enumerate(kmins) if v <= kmaxs[moved[1]]), default=None)
            fixed = None if down is None else (down, moved[1], *moved[2:])
        else:
            fixed = None
        return fixed if fixed is not None and self.candidate(fixed) is not None else None

    def points(self) -> list[tuple[int, ...]]:
        """Every valid grid index, in lexical order."""
        out: list[tuple[int, ...]] = [()]
        for lv in self.levels:
            out = [p + (i,) for p in out for i in range(len(lv))]
        return [p for p in out if self.candidate(p) is not None]

    def centre(self) -> tuple[int, ...]:
        mid = tuple(len(lv) // 2 for lv in self.levels)
        if self.candidate(mid) is not None:
            return mid
        return min(self.points(), key=lambda p: sum(abs(a - b) for a, b in zip(p, mid)))


def geometric(low: float, high: float, count: int) -> tuple[int, ...]:
    """``count`` values from ``low`` to ``high`` evenly spaced on a log scale, whole bytes, ascending."""
    if count <= 1 or high <= low:
        return (int(low),)
    ratio = (high / low) ** (1 / (count - 1))
    return tuple(sorted({int(round(low * ratio ** i)) for i in range(count)}))


def from_policy(policy: Policy, speeds_gbps: list[float], mtu_bytes: int, *, levels: int = THRESHOLD_LEVELS,
                kmin_range: tuple[float, float] | None = None, kmax_range: tuple[float, float] | None = None) -> Space:
    """The grid inside ``policy``'s ECN ranges for ports of ``speeds_gbps``: thresholds at the reference
    speed such that every port's scaled value stays inside the range, Kmin not below ``kmin_min_mtus`` MTUs.
    ``kmin_range``/``kmax_range`` narrow the ranges further (operator's choice)."""
    ecn = policy.ecn
    if not ecn.required:
        raise InputError(f"policy {policy.name} does not use ECN (ecn.required false): there is nothing to tune")
    scales = [s / ecn.speed_reference_gbps if ecn.speed_reference_gbps else 1.0 for s in speeds_gbps] or [1.0]
    lo_scale, hi_scale = min(scales), max(scales)

    def bounds(rng, floor: float, narrow) -> tuple[float, float]:
        low = max(rng.min or 0, floor, 1.0) / lo_scale
        high = (rng.max if rng.max is not None else (rng.min or floor) * 1000) / hi_scale
        if narrow is not None:
            low, high = max(low, narrow[0]), min(high, narrow[1])
        if high < low:
            raise InputError(f"policy {policy.name}: no ECN threshold fits every port: the range "
                             f"{rng.describe('B')} cannot hold ports from {min(speeds_gbps):g} to "
                             f"{max(speeds_gbps):g} Gb/s scaled from the {ecn.speed_reference_gbps:g} Gb/s reference")
        return low, high

    kmin_lo, kmin_hi = bounds(ecn.min_threshold_bytes, ecn.kmin_min_mtus * mtu_bytes, kmin_range)
    kmax_lo, kmax_hi = bounds(ecn.max_threshold_bytes, ecn.kmin_min_mtus * mtu_bytes, kmax_range)
    # Kmin and Kmax levels come from one geometric ladder over both ranges, so a Kmax can equal a Kmin
    # (step marking) and the two dimensions line up.
    ladder = geometric(min(kmin_lo, kmax_lo), max(kmin_hi, kmax_hi), levels * 2 - 1)
    kmins = tuple(v for v in ladder if kmin_lo <= v <= kmin_hi) or (int(kmin_lo),)
    kmaxs = tuple(v for v in ladder if kmax_lo <= v <= kmax_hi) or (int(kmax_hi),)
    kmins, kmaxs = _thin(kmins, levels), _thin(kmaxs, levels)
    rng = ecn.mark_probability_pct
    pmaxs = tuple(p for p in PMAX_LEVELS_PCT if rng.contains(p)) or (float(rng.max or 100),)
    return Space((kmins, kmaxs, pmaxs))


def _thin(values: tuple[int, ...], count: int) -> tuple[int, ...]:
    """At most ``count`` of ``values``, the ends kept, evenly picked."""
    if len(values) <= count:
        return values
    step = (len(values) - 1) / (count - 1)
    return tuple(sorted({values[round(i * step)] for i in range(count)}))
