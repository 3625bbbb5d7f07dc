"""What the tuner may change, inside the policy's bounds: ECN Kmin, Kmax and Pmax of the lossless queues.

Values are given at the policy's reference speed (``ecn.speed_reference_gbps``, as losslessd.render scales
its thresholds) and scaled to each port's speed when rendered; without a reference speed they are the
bytes every port gets. Each dimension is a short list of levels (geometric for thresholds), so grid
search, coordinate descent and random search all walk the same grid and can be compared at equal budget.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..platforms import PLATFORMS
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
        return _at(self.kmin_bytes, factor), _at(self.kmax_bytes, factor)


def _at(threshold: float, factor: float) -> int:
    """A threshold at the reference speed, in whole bytes at a port ``factor`` x as fast (what render writes)."""
    return int(round(threshold * factor))


@record(frozen=True)
class Space:
    levels: tuple[tuple[float, ...], ...]  # per dimension of DIMENSIONS, ascending
    cuts: tuple[str, ...] = ()  # what the platforms' limits left out of the policy's ranges, and why (the plan)
    # The speed factors (Candidate.scaled) of the tuned ports whose platform's render refuses Kmin = Kmax
    # (RenderLimits.ecn_equal_unsourced): at each, Kmax must stay above Kmin once scaled and rounded to bytes.
    apart: tuple[float, ...] = ()

    def candidate(self, index: tuple[int, ...]) -> Candidate | None:
        """The candidate at grid ``index``; None outside the grid or where its Kmin and Kmax make none (holds)."""
        if len(index) != len(self.levels) or any(not 0 <= i < len(lv) for i, lv in zip(index, self.levels)):
            return None
        kmin, kmax, pmax = (lv[i] for i, lv in zip(index, self.levels))
        if not self.holds(kmin, kmax):
            return None
        return Candidate(int(kmin), int(kmax), float(pmax))

    def holds(self, kmin: float, kmax: float) -> bool:
        """Whether a Kmin and a Kmax make a candidate: Kmin <= Kmax, and at each ``apart`` factor Kmin < Kmax in the
        bytes written (a pair apart at the reference speed can round to one value at a slower port)."""
        return kmin <= kmax and all(_at(kmin, f) < _at(kmax, f) for f in self.apart)

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
            up = next((i for i, v in enumerate(kmaxs) if self.holds(kmins[moved[0]], v)), None)
            fixed = None if up is None else (moved[0], up, *moved[2:])
        elif dim == 1:  # Kmax fell below Kmin: Kmin falls to it
            down = max((i for i, v in enumerate(kmins) if self.holds(v, kmaxs[moved[1]])), default=None)
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

    def origin(self, start: Candidate | None) -> tuple[int, ...]:
        """Where a search from ``start`` begins: the grid point nearest it, else (none valid) the centre."""
        index = self.index_of(start) if start is not None else None
        return index if index is not None and self.candidate(index) is not None else self.centre()

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


def from_policy(policy: Policy, speeds_gbps: Mapping[str, Sequence[float]], mtu_bytes: int, *,
                levels: int = THRESHOLD_LEVELS) -> Space:
    """The grid inside ``policy``'s ECN ranges for the tuned ports, ``speeds_gbps`` (platform -> its ports' speeds):
    thresholds at the reference speed such that every port's scaled value stays inside the range and inside what its
    platform's CLI takes (platforms.RenderLimits: render refuses a snippet outside, which mid-tune ended the tune after
    trials had run), Kmin not below ``kmin_min_mtus`` MTUs, Pmax inside the policy's and the platforms' ranges.
    Space.cuts says what the platforms' limits cut; InputError, before any trial, where nothing is left."""
    ecn = policy.ecn
    if not ecn.required:
        raise InputError(f"policy {policy.name} does not use ECN (ecn.required false): there is nothing to tune")
    ref = ecn.speed_reference_gbps
    scales = {platform: [s / ref if ref else 1.0 for s in speeds] or [1.0] for platform, speeds in speeds_gbps.items()}
    every = [s for speeds in scales.values() for s in speeds] or [1.0]
    lo_scale, hi_scale = min(every), max(every)
    speeds = [s for ss in speeds_gbps.values() for s in ss] or [ref or 0.0]
    cuts: list[str] = []
    at = " at the reference speed" if ref else ""

    def bounds(rng, field: str, floor: float) -> tuple[float, float]:
        low = max(rng.min or 0, floor, 1.0) / lo_scale
        # (no maximum: a thousand times the policy's minimum; a minimum of 0, as none, gives the floor's)
        high = (rng.max if rng.max is not None else (rng.min or floor) * 1000) / hi_scale
        if high < low:
            raise InputError(f"policy {policy.name}: no ECN threshold fits every port: the range "
                             f"{rng.describe('B')} cannot hold ports from {min(speeds):g} to "
                             f"{max(speeds):g} Gb/s scaled from the {ref or 0:g} Gb/s reference")
        for platform, plat_scales in scales.items():
            limits = PLATFORMS[platform].limits
            if limits.ecn_threshold_bytes is None:
                continue
            took_lo, took_hi = limits.ecn_threshold_bytes
            cap_lo, cap_hi = took_lo / min(plat_scales), took_hi / max(plat_scales)
            why = (f"{platform} takes ECN thresholds of {took_lo}-{took_hi} B "
                   f"({limits.sources.get('ecn_threshold_bytes', 'its CLI')})")
            if cap_lo > high or cap_hi < low:
                raise InputError(f"policy {policy.name}: ecn.{field} {rng.describe('B')} holds no threshold {why} "
                                 f"at its ports' speeds: bring the range into that one, or leave {platform}'s devices "
                                 "out of --devices; nothing was run")
            if cap_hi < high:
                cuts.append(f"ecn.{field} above {cap_hi:.0f} B{at}: {why}")
                high = cap_hi
            if cap_lo > low:
                cuts.append(f"ecn.{field} below {cap_lo:.0f} B{at}: {why}")
                low = cap_lo
        return low, high

    kmin_lo, kmin_hi = bounds(ecn.min_threshold_bytes, "min_threshold_bytes", ecn.kmin_min_mtus * mtu_bytes)
    kmax_lo, kmax_hi = bounds(ecn.max_threshold_bytes, "max_threshold_bytes", ecn.kmin_min_mtus * mtu_bytes)
    # Kmin and Kmax levels come from one geometric ladder over both ranges, so a Kmax can equal a Kmin
    # (step marking) and the two dimensions line up.
    ladder = geometric(min(kmin_lo, kmax_lo), max(kmin_hi, kmax_hi), levels * 2 - 1)
    kmins = tuple(v for v in ladder if kmin_lo <= v <= kmin_hi) or (int(kmin_lo),)
    kmaxs = tuple(v for v in ladder if kmax_lo <= v <= kmax_hi) or (int(kmax_hi),)
    kmins, kmaxs = _thin(kmins, levels), _thin(kmaxs, levels)
    apart = [p for p in scales if PLATFORMS[p].limits.ecn_equal_unsourced]
    if apart:
        cuts.append(f"Kmax equal to Kmin: whether {', '.join(apart)} takes them equal is in no document read (in "
                    "the bytes written at each tuned port's speed)")
    space = Space((kmins, kmaxs, _pmax_levels(policy, speeds_gbps, cuts)), tuple(cuts),
                  apart=tuple(sorted({f for p in apart for f in scales[p]})))
    if apart and not space.points():
        at = ", ".join(f"{s:g}" for s in sorted({s for p in apart for s in speeds_gbps[p]}))
        raise InputError(f"policy {policy.name}: no ECN pair with Kmax above Kmin at every port: in the policy's "
                         f"ranges each comes out equal at {', '.join(apart)}'s ports{f' ({at} Gb/s)' if at else ''}, "
                         "and whether it takes them equal is in no document read: widen ecn.max_threshold_bytes "
                         "above ecn.min_threshold_bytes, or leave those devices out of --devices; nothing was run")
    return space


def _pmax_levels(policy: Policy, platforms: Iterable[str], cuts: list[str]) -> tuple[float, ...]:
    """The mark probabilities tried: PMAX_LEVELS_PCT inside the policy's range, else its maximum (0 % too: a stated 0
    is a value, not "no maximum"), each one every platform's CLI takes (RenderLimits.mark_probability_pct)."""
    rng = policy.ecn.mark_probability_pct
    pmaxs = tuple(p for p in PMAX_LEVELS_PCT if rng.contains(p)) or (float(rng.max if rng.max is not None else 100),)
    for platform in platforms:
        limits = PLATFORMS[platform].limits
        if limits.mark_probability_pct is None:
            continue
        low, high = limits.mark_probability_pct
        why = (f"{platform} takes a mark probability of {low}-{high} % "
               f"({limits.sources.get('mark_probability_pct', 'its CLI')})")
        kept = tuple(p for p in pmaxs if low <= p <= high)
        if not kept:
            raise InputError(f"policy {policy.name}: ecn.mark_probability_pct {rng.describe('%')} holds no Pmax "
                             f"{why}: give the policy a range that holds one, or leave {platform}'s devices out of "
                             "--devices; nothing was run")
        if kept != pmaxs:
            cuts.append(f"ecn.mark_probability_pct {', '.join(f'{p:g}' for p in pmaxs if p not in kept)} %: {why}")
        pmaxs = kept
    return pmaxs


def _thin(values: tuple[int, ...], count: int) -> tuple[int, ...]:
    """At most ``count`` of ``values``, the ends kept, evenly picked."""
    if len(values) <= count:
        return values
    step = (len(values) - 1) / (count - 1)
    return tuple(sorted({values[round(i * step)] for i in range(count)}))
