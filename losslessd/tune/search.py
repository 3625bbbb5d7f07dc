"""Search strategies over a Space, at a budget of benchmark runs.

- ``coordinate`` (default): one knob at a time, stepping to the neighbouring level while the score improves
  beyond the noise, until a whole pass over the knobs moves nothing. ECN thresholds act on throughput and
  pauses in one direction each, so each knob's score is close to unimodal (AutoCCL, NSDI 2025, tunes NCCL's
  resource knobs the same way for the same reason).
- ``random``: distinct grid points in a seeded random order (the strongest simple baseline).
- ``grid``: every grid point (the reference the others are measured against).
- ``bayes``: optuna's TPE sampler over the grid's levels (optional extra ``losslessd[bayes]``).

A runner measures one candidate per call (one benchmark run) and returns its score, None for an invalid
trial. A candidate the runner refuses without running it (it lints with an error) costs no budget. Where
two scores are closer than the run-to-run noise the search measures the one with fewer runs again, up to
``repeats`` runs each, and keeps the incumbent on a tie.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from dataclasses import field
from enum import Enum

from ..errors import InputError
from ..printable import quoted
from ..records import record
from .score import DEFAULT_NOISE_PCT, compare, noise_pct
from .space import Candidate, Space


class Strategy(str, Enum):
    """The search strategies (`losslessd tune --strategy`); the module docstring says what each does."""

    coordinate = "coordinate"
    random = "random"
    grid = "grid"
    bayes = "bayes"


STRATEGIES = tuple(s.value for s in Strategy)


@record(frozen=True)
class Measured:
    score: float | None  # None: invalid trial, or refused
    ran: bool = True  # a benchmark run was spent on it


class StopTune(Exception):
    """The runner asks the search to stop now (a refused commit, drops, a storm): ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Exhausted(Exception):
    pass


@record
class SearchResult:
    best: Candidate | None
    best_score: float | None
    runs: int
    noise_pct: float
    stopped: str | None = None  # why the search stopped early (StopTune), None when it finished
    history: list[tuple[Candidate, float | None]] = field(default_factory=list)  # every measurement, in order


class Search:
    def __init__(self, space: Space, measure: Callable[[Candidate], Measured], budget: int, *,
                 noise: float | None = None, repeats: int = 3, noise_runs: int = 3, seed: int = 0):
        if budget < 1:
            raise InputError("--budget must be at least one benchmark run")
        self.space, self._measure, self.budget = space, measure, budget
        self.noise = noise  # percent; None: measured at the start point
        self.repeats, self.noise_runs, self.seed = repeats, noise_runs, seed
        self.samples: dict[tuple[int, ...], list[float]] = {}
        self.tried: set[tuple[int, ...]] = set()
        self.runs = 0
        self.history: list[tuple[Candidate, float | None]] = []

    # -- measuring -----------------------------------------------------------------------------------
    def measure(self, idx: tuple[int, ...]) -> list[float]:
        """Measure ``idx`` once more (budget allowing); its scores so far."""
        cand = self.space.candidate(idx)
        if cand is None:
            return []
        if self.runs >= self.budget:
            raise _Exhausted()
        result = self._measure(cand)
        self.tried.add(idx)
        if result.ran:
            self.runs += 1
        self.history.append((cand, result.score))
        if result.score is not None:
            self.samples.setdefault(idx, []).append(result.score)
        return self.samples.get(idx, [])

    def scores(self, idx: tuple[int, ...]) -> list[float]:
        """Scores of ``idx``, measuring it once when it was never tried."""
        if idx not in self.tried:
            self.measure(idx)
        return self.samples.get(idx, [])

    def better(self, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        """``a`` beats ``b`` beyond the noise; closer than that, the one with fewer runs is measured again
        (up to ``repeats`` each) before it is called a tie, which ``a`` loses."""
        while True:
            sa, sb = self.scores(a), self.scores(b)
            verdict = compare(sa, sb, self.noise or 0.0)
            if verdict or not sa or not sb:
                return verdict > 0
            fewer = a if len(sa) <= len(sb) else b
            if len(self.samples[fewer]) >= self.repeats:
                return False
            self.measure(fewer)

    def _noise_at(self, idx: tuple[int, ...]) -> None:
        """The run-to-run noise from ``noise_runs`` runs of the start point (unless given)."""
        if self.noise is not None:
            return
        while len(self.scores(idx)) < self.noise_runs and len(self.history) < self.noise_runs * 2:
            self.measure(idx)
        measured = noise_pct(self.samples.get(idx, []))
        self.noise = measured if measured is not None else DEFAULT_NOISE_PCT

    # -- strategies ----------------------------------------------------------------------------------
    def run(self, strategy: str, start: Candidate | None = None) -> SearchResult:
        if strategy not in STRATEGIES:
            raise InputError(f"unknown --strategy {quoted(strategy)}; known: {', '.join(STRATEGIES)}")
        origin = self.space.origin(start)
        stopped = None
        try:
            self._noise_at(origin)
            getattr(self, f"_{strategy}")(origin)
        except _Exhausted:
            pass
        except StopTune as exc:
            stopped = exc.reason
        best = self.best()
        return SearchResult(best=self.space.candidate(best) if best is not None else None,
                            best_score=statistics.median(self.samples[best]) if best is not None else None,
                            runs=self.runs, noise_pct=self.noise if self.noise is not None else DEFAULT_NOISE_PCT,
                            stopped=stopped, history=list(self.history))

    def best(self) -> tuple[int, ...] | None:
        """The grid point with the best median score (the first measured among equals)."""
        if not self.samples:
            return None
        return max(self.samples, key=lambda i: statistics.median(self.samples[i]))

    def _grid(self, origin: tuple[int, ...]) -> None:
        for idx in self.space.points():
            self.scores(idx)

    def _random(self, origin: tuple[int, ...]) -> None:
        points = self.space.points()
        random.Random(self.seed).shuffle(points)
        for idx in points:
            self.scores(idx)

    def _coordinate(self, origin: tuple[int, ...]) -> None:
        """Steps of one level until nothing moves, then jumps of two levels (over a plateau the noise makes
        flat), and steps again from wherever a jump landed."""
        x = origin
        while True:
            x = self._descend(x, 1)
            jumped = self._descend(x, 2, passes=1)
            if jumped == x:
                return
            x = jumped

    def _descend(self, x: tuple[int, ...], stride: int, passes: int | None = None) -> tuple[int, ...]:
        moved = True
        while moved and passes != 0:
            moved = False
            passes = None if passes is None else passes - 1
            for dim in range(len(self.space.levels)):
                for step in (stride, -stride):
                    y = self.space.neighbour(x, dim, step)
                    if y is None or not self.better(y, x):
                        continue
                    x, moved = y, True
                    while (z := self.space.neighbour(x, dim, step)) is not None and self.better(z, x):
                        x = z
                    break
        return x

    def _bayes(self, origin: tuple[int, ...]) -> None:
        try:
            import optuna
        except ImportError:
            raise InputError("--strategy bayes needs optuna: pip install 'losslessd[bayes]'") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=self.seed))
        names = [f"d{i}" for i in range(len(self.space.levels))]
        study.enqueue_trial(dict(zip(names, origin, strict=True)))
        while self.runs < self.budget:
            trial = study.ask()
            idx = tuple(trial.suggest_int(n, 0, len(lv) - 1) for n, lv in zip(names, self.space.levels, strict=True))
            if self.space.candidate(idx) is None:
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                continue
            scores = self.samples.get(idx) if idx in self.tried else self.measure(idx)
            if scores:
                study.tell(trial, statistics.median(scores))
            else:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            if len(study.trials) > 20 * self.budget:  # every point tried: nothing left to ask
                break
