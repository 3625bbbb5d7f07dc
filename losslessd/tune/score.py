"""A trial's score: what the benchmark measured at the operator's sizes, with penalties for pauses and drops,
in a form an operator can check by hand (``Score.explain``).

    score = mean busbw at the sizes (GB/s) x (1 - pause_weight x paused share) x (1 - drop_weight if any drop)

The paused share is the time the most paused of the tuned ports spent paused on its lossless priorities,
over the trial's wall time. A counter that gives pause time (a ConnectX NIC's rx_prioN_pause_duration) is used as it is;
from pause frames alone (switch counters: CISCO-PFC-EXT-MIB counts frames) each frame is taken to hold the
priority for half a pause of the largest quanta (65535 x 512 bit times, IEEE 802.1Qbb), as a receiver that
stays above XOFF refreshes its pause about twice per pause time. For a latency test (perftest ib_*_lat) the
measure is 1000 / median latency in microseconds ("round trips per millisecond"), so that higher is better.
Two scores closer than the measured run-to-run noise are a tie (``compare``).
"""

from __future__ import annotations

import statistics
from dataclasses import field

from ..records import record
from .bench import BenchResult, format_size

MAX_PAUSE_QUANTA = 65535  # IEEE 802.1Qbb: the largest pause time a PFC frame can ask for, in quanta
QUANTUM_BITS = 512  # one pause quantum is 512 bit times
DEFAULT_NOISE_PCT = 1.0  # tie margin before any repeat measured the noise


def pause_s_per_frame(speed_gbps: float) -> float:
    """Half a pause of the largest quanta at ``speed_gbps``: 168 us at 100 Gb/s."""
    return MAX_PAUSE_QUANTA * QUANTUM_BITS / (speed_gbps * 1e9) / 2


@record(frozen=True)
class Weights:
    pause: float = 1.0  # a port paused all of the time scores 0
    drop: float = 0.5  # any drop on a lossless priority halves the score


@record
class Counters:
    """What the counters of the tuned ports did during a trial (None: no counter said)."""

    elapsed_s: float
    pause_frames: float | None = None  # PFC frames on the lossless priorities, both directions, all tuned ports
    pause_us: float | None = None  # time paused, where a counter gives it, all tuned ports
    # The most paused direction of a tuned port, one priority: its time paused (or frames x pause_s_per_frame; frames
    # received pause the port, frames sent its peer)
    worst_paused_s: float | None = None
    worst_port: str | None = None  # "device:port" of it, "device:port (its peer, paused by it)" for the peer's
    ecn_marked: float | None = None
    cnp: float | None = None
    dropped: float | None = None  # packets dropped on the lossless queues of the tuned ports
    storms: list[str] = field(default_factory=list)  # storm events the daemon's detector raised

    @property
    def paused_share(self) -> float | None:
        """The share of the trial the most paused tuned port spent paused."""
        if self.elapsed_s <= 0 or self.worst_paused_s is None:
            return None
        return min(1.0, self.worst_paused_s / self.elapsed_s)

    def as_dict(self) -> dict:
        return {"elapsed_s": self.elapsed_s, "pause_frames": self.pause_frames, "pause_us": self.pause_us,
                "worst_paused_s": self.worst_paused_s, "worst_port": self.worst_port, "ecn_marked": self.ecn_marked,
                "cnp": self.cnp, "dropped": self.dropped, "storms": list(self.storms),
                "paused_share": self.paused_share}

    @classmethod
    def from_dict(cls, data: dict) -> Counters:
        return cls(**{k: v for k, v in data.items() if k != "paused_share"})


@record
class Score:
    value: float | None  # None: the trial is invalid (``reason``)
    measure: float | None = None  # mean busbw (GB/s), or round trips per ms for a latency test
    per_size: dict[int, float] = field(default_factory=dict)
    paused_share: float | None = None
    dropped: float | None = None
    reason: str | None = None
    weights: Weights = field(default_factory=Weights)
    unit: str = "GB/s busbw"

    def explain(self) -> str:
        if self.value is None:
            return f"invalid: {self.reason}"
        parts = [f"{self.measure:.3f} {self.unit}"]
        if self.paused_share:
            parts.append(f"(1 - {self.weights.pause:g} x {100 * self.paused_share:.2f} % paused)")
        if self.dropped:
            parts.append(f"(1 - {self.weights.drop:g}: {self.dropped:g} dropped)")
        sizes = ", ".join(f"{format_size(s)} {v:.2f}" for s, v in sorted(self.per_size.items()))
        return f"{self.value:.3f} = {' x '.join(parts)} [{sizes}]"


def sizes_to_score(given: list[int], scored: list[dict[int, float]]) -> tuple[list[int], bool]:
    """The sizes a tune's trials are scored at, and whether they were pinned rather than given: ``given`` (--sizes),
    else the sizes of the first trial scored before (``scored``: each scored trial's per-size results, in order).
    Without --sizes a trial was scored at whatever sizes its output held, so a row a benchmark cut short or printed
    as nan dropped a size from one trial's mean alone: the means of trials over different sizes were compared, and a
    trial that lost its largest (fastest) size lost to the settings it beat, one that lost a small size won."""
    if given:
        return given, False
    first = next((sorted(per_size) for per_size in scored if per_size), [])
    return first, bool(first)


def score(bench: BenchResult, sizes: list[int], counters: Counters | None,
          weights: Weights = Weights(), pinned: bool = False) -> Score:  # noqa: B008 (a frozen record)
    """The trial's score, or an invalid one naming why (a failed run, a size the output lacks). ``pinned``: ``sizes``
    are those the tune's first scored trial printed (no --sizes), not the operator's."""
    if not bench.valid:
        return Score(None, reason="; ".join(bench.invalid), weights=weights)
    chosen = sizes or sorted(bench.sizes)
    missing = [s for s in chosen if s not in bench.sizes]
    if missing:
        shown = ", ".join(format_size(s) for s in sorted(bench.sizes)) or "none"
        advice = ("the tune's first scored run printed it and every trial is scored at the same sizes; see the "
                  "trial's notes for a row not read, or give --sizes" if pinned else
                  "give --sizes the benchmark runs")
        return Score(None, reason=f"size {', '.join(format_size(s) for s in missing)} not in the benchmark output "
                                  f"(it printed {shown}); {advice}", weights=weights)
    results = [bench.sizes[s] for s in chosen]
    latency = all(r.busbw_gbps is None and r.latency_us for r in results)
    if latency:
        per_size = {r.size_bytes: 1000.0 / r.latency_us for r in results}
    else:
        bad = [format_size(r.size_bytes) for r in results if r.busbw_gbps is None]
        if bad:
            return Score(None, reason=f"no bandwidth at {', '.join(bad)}", weights=weights)
        per_size = {r.size_bytes: r.busbw_gbps for r in results}
    measure = statistics.fmean(per_size.values())
    paused = counters.paused_share if counters is not None else None
    dropped = counters.dropped if counters is not None else None
    value = measure * (1 - weights.pause * (paused or 0.0))
    if dropped:
        value *= 1 - weights.drop
    return Score(value=value, measure=measure, per_size=per_size, paused_share=paused, dropped=dropped,
                 weights=weights, unit="round trips/ms" if latency else "GB/s busbw")


def noise_pct(samples: list[float]) -> float | None:
    """Run-to-run noise of repeated scores of one setting: their coefficient of variation (sample standard
    deviation over mean, in percent: with the few repeats a tune makes, the n-1 estimate, where nccl-tests' i_cv% of
    many iterations divides by n, src/util.cu computeIterStats); None with fewer than two."""
    if len(samples) < 2:
        return None
    mean = statistics.fmean(samples)
    return 100.0 * statistics.stdev(samples) / mean if mean > 0 else None


def compare(a: list[float], b: list[float], noise: float) -> int:
    """+1 when ``a`` scores better than ``b`` beyond the noise (percent of the larger median), -1 when
    worse, 0 a tie. An empty list (invalid trials only) loses to any score."""
    if not a or not b:
        return (1 if a else 0) - (1 if b else 0)
    ma, mb = statistics.median(a), statistics.median(b)
    margin = noise / 100 * max(abs(ma), abs(mb))
    if abs(ma - mb) <= margin:
        return 0
    return 1 if ma > mb else -1
