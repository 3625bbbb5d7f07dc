#!/usr/bin/env python3
"""How well the tuner's search finds good ECN settings, on the stand-in fabric (the DCQCN + PFC fluid model,
losslessd.tune.fluid) at 100G and 400G with incast 8 and 32.

For each scenario: grid search measures every point of the policy's grid once (the reference best);
coordinate descent (the default strategy) runs from the policy's rendered default with its own noise
measurement and tie repeats; random search gets the same number of benchmark runs; each is repeated with
several seeds of run-to-run noise. A strategy's result is the true (noise-free) score of the setting it
returned, so noise cannot flatter it. Printed per scenario: grid's best and its runs; coordinate
descent's runs and gap to grid's best; random search's gap at equal budget. The targets: coordinate
descent within 2 % of grid's best using at most 20 % of grid's runs, and better than random search.

    python bench/tune_eval.py [--seeds 5] [--noise 0.5] [--scenarios 100:8,100:32,400:8,400:32] [--levels 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.policy import load_policy
from losslessd.render import ECN_KMAX_BYTES, ECN_KMIN_BYTES, ECN_MARK_PCT
from losslessd.tune import standin
from losslessd.tune.bench import read_benchmark
from losslessd.tune.fluid import alltoall
from losslessd.tune.score import score
from losslessd.tune.search import Measured, Search
from losslessd.tune.space import Candidate, from_policy


class Scenario:
    def __init__(self, speed: float, incast: int, policy, levels: int):
        self.speed, self.incast = speed, incast
        self.scale = speed / policy.ecn.speed_reference_gbps
        self.space = from_policy(policy, [speed], standin.DEFAULT_MTU, levels=levels)
        self.model_runs = 0

    def bottleneck(self, cand: Candidate):
        kmin, kmax = cand.scaled(self.scale)
        return standin.scenario(self.speed, self.incast, kmin, kmax, cand.pmax_pct)

    @lru_cache(maxsize=None)
    def outcomes(self, cand: Candidate):
        self.model_runs += 1
        return alltoall(self.bottleneck(cand), list(standin.DEFAULT_SIZES))

    def measure(self, cand: Candidate, noise_pct: float, seed: str) -> float | None:
        result = standin.report(self.bottleneck(cand), self.outcomes(cand), noise_pct=noise_pct, seed=seed)
        return score(read_benchmark(result.text), list(standin.DEFAULT_SIZES), result.counters).value

    @lru_cache(maxsize=None)
    def true_score(self, cand: Candidate) -> float | None:
        return self.measure(cand, 0.0, "")


def strategy_run(sc: Scenario, strategy: str, budget: int, noise: float, seed: int, start: Candidate | None,
                 given_noise: float | None = None) -> tuple[Candidate | None, int]:
    counter = iter(range(10**9))

    def measure(cand: Candidate) -> Measured:
        return Measured(sc.measure(cand, noise, f"{strategy}/{seed}/{cand.key}/{next(counter)}"))

    result = Search(sc.space, measure, budget, noise=given_noise, seed=seed).run(strategy, start)
    return result.best, result.runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--noise", type=float, default=0.5, help="run-to-run busbw noise, standard deviation in %%")
    ap.add_argument("--scenarios", default="100:8,100:32,400:8,400:32", help="SPEED:INCAST,...")
    ap.add_argument("--levels", type=int, default=7, help="threshold levels per knob")
    ap.add_argument("--policy", default="roce-dscp26")
    args = ap.parse_args()
    policy = load_policy(args.policy)
    default = Candidate(ECN_KMIN_BYTES, ECN_KMAX_BYTES, float(ECN_MARK_PCT))  # what render writes today
    rows = []
    for spec in args.scenarios.split(","):
        speed, incast = (float(x) for x in spec.split(":"))
        sc = Scenario(speed, int(incast), policy, args.levels)
        started = time.monotonic()
        points = sc.space.points()
        scored = {p: sc.true_score(sc.space.candidate(p)) for p in points}
        best_p = max(scored, key=lambda p: scored[p] if scored[p] is not None else -1)
        grid_best, grid_runs = scored[best_p], len(points)
        coord_gaps, coord_runs, rand_gaps = [], [], []
        for seed in range(args.seeds):
            cand, runs = strategy_run(sc, "coordinate", grid_runs, args.noise, seed, default)
            coord_runs.append(runs)
            coord_gaps.append(100 * (grid_best - (sc.true_score(cand) or 0)) / grid_best)
            rcand, _ = strategy_run(sc, "random", runs, args.noise, seed, default, given_noise=0.0)
            rand_gaps.append(100 * (grid_best - (sc.true_score(rcand) or 0)) / grid_best)
        default_score = sc.true_score(sc.space.candidate(sc.space.index_of(default)))
        rows.append((spec, grid_runs, grid_best, sc.space.candidate(best_p), default_score, coord_runs, coord_gaps,
                     rand_gaps, time.monotonic() - started))
    print(f"stand-in fabric: fluid model alltoall at sizes 8M/64M/512M, {args.seeds} noise seeds at "
          f"{args.noise:g} % busbw noise, policy {args.policy}, grid of {args.levels} threshold levels per knob")
    print("| Gb/s:incast | grid runs | grid best (score, setting) | today's default | coordinate runs, max (share of grid) | "
          "coordinate gap to grid best, mean/max | random gap at equal runs, mean/max | vs random | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    for spec, gruns, gbest, gcand, dflt, cruns, cgaps, rgaps, secs in rows:
        cmean, rmean = statistics.fmean(cgaps), statistics.fmean(rgaps)
        # Differences below the run-to-run noise are ties (the tuner's own rule).
        verdict = "tie" if abs(cmean - rmean) <= args.noise else ("better" if cmean < rmean else "worse")
        ok &= max(cruns) <= 0.2 * gruns and max(cgaps) <= 2.0 and verdict != "worse"
        print(f"| {spec} | {gruns} | {gbest:.2f}, {gcand.describe()} | {dflt:.2f} | {max(cruns)} "
              f"({100 * max(cruns) / gruns:.0f} %) | {cmean:.2f} %/{max(cgaps):.2f} % | {rmean:.2f} %/{max(rgaps):.2f} % | "
              f"{verdict} | {secs:.0f} |")
    overall_c = statistics.fmean(g for r in rows for g in r[6])
    overall_r = statistics.fmean(g for r in rows for g in r[7])
    ok &= overall_c < overall_r
    print(f"over all scenarios and seeds: coordinate gap {overall_c:.2f} %, random gap {overall_r:.2f} % at equal runs")
    print("targets met (coordinate within 2 % of grid's best in at most 20 % of grid's runs, and better than random "
          "at equal runs):", "yes" if ok else "NO")


if __name__ == "__main__":
    main()
