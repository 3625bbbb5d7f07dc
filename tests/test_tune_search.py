"""Search space inside the policy's bounds, the score, ties within the noise, and the strategies at a budget."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from losslessd.errors import InputError
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.bench import read_benchmark
from losslessd.tune.score import Counters, Weights, compare, noise_pct, pause_s_per_frame, score, sizes_to_score
from losslessd.tune.search import Measured, Search, StopTune
from losslessd.tune.space import Candidate, Space, from_policy

POLICY = load_policy("roce-dscp26")


def test_space_stays_inside_the_policy_at_every_port_speed():
    space = from_policy(POLICY, {"sonic": [100.0, 400.0]}, 9100)
    kmins, kmaxs, pmaxs = space.levels
    ecn = POLICY.ecn
    for scale in (1.0, 4.0):  # ports at the 100G reference and at 400G get the thresholds scaled
        assert ecn.min_threshold_bytes.min <= min(kmins) * scale and max(kmins) * scale <= ecn.min_threshold_bytes.max
        assert ecn.max_threshold_bytes.min <= min(kmaxs) * scale and max(kmaxs) * scale <= ecn.max_threshold_bytes.max
    assert min(kmins) >= ecn.kmin_min_mtus * 9100  # Kmin not below one MTU (kmin_min_mtus)
    assert pmaxs == (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
    assert all(space.candidate(p).kmin_bytes <= space.candidate(p).kmax_bytes for p in space.points())


def test_space_refuses_a_pfc_only_policy():
    with pytest.raises(InputError, match="does not use ECN"):
        from_policy(load_policy("pfc-only"), {"sonic": [100.0]}, 9100)


def test_neighbour_keeps_kmin_below_kmax():
    space = Space(((10, 20, 40), (10, 20, 40), (1.0, 5.0)))
    assert space.neighbour((1, 1, 0), 0, 1) == (2, 2, 0)  # Kmin up past Kmax: Kmax follows
    assert space.neighbour((1, 1, 0), 1, -1) == (0, 0, 0)  # Kmax down below Kmin: Kmin follows
    assert space.neighbour((2, 2, 1), 2, 1) is None  # off the grid
    assert space.index_of(Candidate(19, 41, 4.0)) == (1, 2, 1)


def test_candidate_key_round_trip():
    c = Candidate(153600, 1572864, 5.0)
    assert Candidate.from_key(c.key) == c
    assert c.scaled(4.0) == (614400, 6291456)


def _bench(busbw: dict[int, float]) -> str:
    rows = "\n".join(f"{s:12d}  {s // 4:12d}     float     sum      -1   100.00  {b:6.2f}  {b:6.2f}       0"
                     f"   100.00  {b:6.2f}  {b:6.2f}       0" for s, b in busbw.items())
    return ("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw"
            "   busbw  #wrong\n" + rows + "\n# Out of bounds values : 0 OK\n")


def test_score_uses_the_named_sizes_and_penalises_pauses_and_drops():
    bench = read_benchmark(_bench({2**20: 10.0, 2**26: 40.0, 2**30: 80.0}))
    plain = score(bench, [2**26, 2**30], Counters(elapsed_s=10.0))
    assert plain.value == pytest.approx(60.0) and plain.per_size == {2**26: 40.0, 2**30: 80.0}
    # 100G port, frames worth 1 s of pause in a 10 s trial: 10 % paused.
    frames = 1.0 / pause_s_per_frame(100.0)
    paused = score(bench, [2**26, 2**30], Counters(elapsed_s=10.0, worst_paused_s=frames * pause_s_per_frame(100.0)))
    assert paused.value == pytest.approx(60.0 * 0.9)
    dropped = score(bench, [2**26, 2**30], Counters(elapsed_s=10.0, dropped=3), Weights(drop=0.5))
    assert dropped.value == pytest.approx(30.0)
    assert "paused" in paused.explain() and "dropped" in dropped.explain()


def test_score_is_invalid_for_a_size_the_output_lacks_or_a_failed_run():
    bench = read_benchmark(_bench({2**20: 10.0}))
    missing = score(bench, [2**30], None)
    assert missing.value is None and "1G not in the benchmark output (it printed 1M)" in missing.reason
    failed = score(read_benchmark("error: NCCL failure\n"), [], None)
    assert failed.value is None and "nccl-tests error: NCCL failure" in failed.reason
    nothing = score(read_benchmark("Segmentation fault\n"), [], None)
    assert nothing.value is None and "nothing parseable" in nothing.reason


def test_trials_without_sizes_are_scored_at_the_sizes_of_the_first_scored_trial():
    """Session 42 (round 22): without --sizes each trial was scored at the sizes its own output held, so a trial whose
    output lost its small size (a row printed as nan or cut) had a higher mean and beat settings it did not beat."""
    found = score(read_benchmark(_bench({2**20: 10.0, 2**30: 80.0})), sizes_to_score([], [])[0], None)
    assert found.value == pytest.approx(45.0)
    trials = [{}, found.per_size]  # (an invalid trial before it scored nothing)
    lost = read_benchmark(_bench({2**20: 10.0, 2**30: 70.0}).replace("  10.00       0", "    nan       0"))
    sizes, pinned = sizes_to_score([], trials)
    assert (sizes, pinned) == ([2**20, 2**30], True)
    worse = score(lost, sizes, None, pinned=pinned)
    assert worse.value is None and "1M not in the benchmark output (it printed 1G)" in worse.reason
    assert "first scored run printed it" in worse.reason and "no busbw read at 1048576 B" in " ".join(lost.notes)
    assert sizes_to_score([2**30], trials) == ([2**30], False)  # --sizes stays the operator's


def test_noise_and_ties():
    assert noise_pct([100.0, 101.0, 99.0]) == pytest.approx(1.0)
    assert noise_pct([100.0]) is None
    assert compare([100.0], [100.5], 1.0) == 0  # within 1 %: a tie
    assert compare([100.0], [103.0], 1.0) == -1
    assert compare([], [1.0], 1.0) == -1 and compare([1.0], [], 1.0) == 1


class Landscape:
    """A smooth single-peaked score over the grid, with seeded noise: each call is one benchmark run."""

    def __init__(self, space: Space, peak: tuple[int, ...], noise: float = 0.0, seed: int = 0):
        self.space, self.peak, self.noise = space, peak, noise
        self.rng = random.Random(seed)
        self.calls: list[Candidate] = []

    def true(self, cand: Candidate) -> float:
        idx = self.space.index_of(cand)
        return 100.0 - sum(3.0 * (a - b) ** 2 for a, b in zip(idx, self.peak))

    def __call__(self, cand: Candidate) -> Measured:
        self.calls.append(cand)
        return Measured(self.true(cand) * (1 + self.rng.gauss(0, self.noise / 100)))


SPACE = Space((tuple(1000 * 2 ** i for i in range(7)), tuple(1000 * 2 ** i for i in range(7)),
               (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)))


def test_coordinate_descent_finds_the_peak_in_a_fraction_of_the_grid():
    land = Landscape(SPACE, peak=(2, 5, 1), noise=0.3)
    result = Search(SPACE, land, budget=200, seed=1).run("coordinate", SPACE.candidate((0, 0, 6)))
    assert SPACE.index_of(result.best) == (2, 5, 1)
    assert result.runs == len(land.calls) < 0.2 * len(SPACE.points())
    assert result.noise_pct > 0  # measured from the repeated start point


def test_every_strategy_respects_the_budget_and_random_is_reproducible():
    for strategy in ("coordinate", "random", "grid"):
        land = Landscape(SPACE, peak=(3, 4, 2))
        result = Search(SPACE, land, budget=9, noise=0.0).run(strategy)
        assert result.runs == len(land.calls) == 9
    a = Search(SPACE, Landscape(SPACE, (3, 4, 2)), budget=12, noise=0.0, seed=7).run("random")
    b = Search(SPACE, Landscape(SPACE, (3, 4, 2)), budget=12, noise=0.0, seed=7).run("random")
    assert [c for c, _ in a.history] == [c for c, _ in b.history]


def test_grid_visits_every_point_once():
    land = Landscape(SPACE, peak=(1, 1, 1))
    result = Search(SPACE, land, budget=10_000, noise=0.0).run("grid")
    assert len(land.calls) == len(set(land.calls)) == len(SPACE.points())
    assert SPACE.index_of(result.best) == (1, 1, 1)


def test_ties_within_the_noise_are_measured_again():
    flat = Space(((1000, 2000), (4000,), (1.0,)))
    calls = []

    def measure(cand: Candidate) -> Measured:
        calls.append(cand)
        return Measured(100.0 + 0.1 * len(calls))  # differences far below the 5 % noise

    result = Search(flat, measure, budget=50, noise=5.0, repeats=3).run("coordinate", flat.candidate((0, 0, 0)))
    assert calls.count(flat.candidate((1, 0, 0))) == 3  # repeated up to `repeats` before calling it a tie
    assert result.best == flat.candidate((0, 0, 0)) or result.best == flat.candidate((1, 0, 0))
    assert result.stopped is None


def test_refused_candidates_cost_no_budget_and_stop_ends_the_search():
    refused = {SPACE.candidate((1, 1, 0))}

    def measure(cand: Candidate) -> Measured:
        if cand in refused:
            return Measured(None, ran=False)
        if cand.pmax_pct == 100.0:
            raise StopTune("drops on a lossless queue")
        return Measured(float(cand.kmin_bytes))

    result = Search(SPACE, measure, budget=100, noise=0.0).run("coordinate", SPACE.candidate((0, 0, 0)))
    assert result.runs == sum(1 for c, s in result.history if c not in refused)
    stop = Search(SPACE, measure, budget=100, noise=0.0).run("coordinate", SPACE.candidate((0, 0, 6)))
    assert stop.stopped == "drops on a lossless queue" and stop.runs == 0


def test_bayes_with_optuna():
    pytest.importorskip("optuna", reason="optuna is the `bayes` extra")
    land = Landscape(SPACE, peak=(4, 5, 3))
    result = Search(SPACE, land, budget=40, noise=0.0, seed=3).run("bayes")
    assert result.runs <= 40
    assert land.true(result.best) >= 100.0 - 3.0 * 3  # within a few grid steps of the peak


def test_unknown_strategy_and_bad_budget():
    with pytest.raises(InputError, match="unknown --strategy"):
        Search(SPACE, lambda c: Measured(1.0), budget=3).run("annealing")
    with pytest.raises(InputError, match="budget"):
        Search(SPACE, lambda c: Measured(1.0), budget=0)
    assert not math.isnan(SPACE.candidate(SPACE.centre()).kmin_bytes)


N9K = Path(__file__).parent / "fixtures" / "attached" / "nxos-n9k-older.cfg"


def _ecn_policy(tmp_path, ecn: str):
    (tmp_path / "wide.yaml").write_text(f"name: wide\nextends: roce-dscp26\necn:\n{ecn}")
    return load_policy(tmp_path / "wide.yaml")


def test_nxos_space_stays_inside_the_ecn_thresholds_the_switch_takes(tmp_path):
    """Session 40 review: a policy whose Kmax range goes above 52,428,800 B (Cisco-NX-OS-device.yang ipqos_ThreshVal,
    platforms.RenderLimits) gave NX-OS candidates render refuses, mid-tune (exit 2 after trials had run). The grid is
    now cut to what the switch takes at every tuned port's speed, the cut said, and its largest Kmax renders."""
    policy = _ecn_policy(tmp_path, "  max_threshold_bytes: {min: 9216, max: 70000000}\n")
    cfg = candidate.load("n9k", "cisco_nxos", N9K.read_text(), policy, model="N9K-C93180YC-EX")
    speeds = [p.speed_gbps for p in cfg.ports]
    space = from_policy(policy, {"cisco_nxos": speeds}, 9216)
    kmaxs = space.levels[1]
    top = max(speeds) / policy.ecn.speed_reference_gbps
    assert round(max(kmaxs) * top) <= 52_428_800 < 70_000_000 * top
    assert any("ecn.max_threshold_bytes above" in cut and "ipqos_ThreshVal range 0..52428800" in cut
               for cut in space.cuts), space.cuts
    checked = candidate.check(cfg, policy, Candidate(int(space.levels[0][0]), int(max(kmaxs)), 100.0))
    assert f"{round(max(kmaxs) * top)}" in checked.snippet  # (rendered, not refused)
    # the same policy on SONiC (no such bound) keeps its whole range
    assert max(from_policy(policy, {"sonic": speeds}, 9216).levels[1]) * top > 52_428_800


def test_a_policy_range_the_platform_takes_none_of_is_refused_before_any_trial(tmp_path):
    policy = _ecn_policy(tmp_path, "  max_threshold_bytes: {min: 60000000, max: 70000000}\n")
    with pytest.raises(InputError, match=r"ecn.max_threshold_bytes \[60000000, 70000000\] B holds no threshold "
                                         r"cisco_nxos takes .*52428800.*nothing was run"):
        from_policy(policy, {"cisco_nxos": [100.0]}, 9216)


def test_a_zero_mark_probability_is_kept_not_read_as_no_maximum(tmp_path):
    """`mark_probability_pct {min: 0, max: 0}` made Pmax 100 % (`rng.max or 100`). 0 is the policy's value: SONiC
    takes it (WRED green_drop_probability 0); NVUE and EOS take 1-100, so a tune of them is refused up front."""
    policy = _ecn_policy(tmp_path, "  mark_probability_pct: {min: 0, max: 0}\n")
    assert from_policy(policy, {"sonic": [100.0]}, 9216).levels[2] == (0.0,)
    for platform, source in (("nvidia_cumulus", "NVUE command reference"), ("arista_eos", "AVD qos_profiles")):
        with pytest.raises(InputError, match=rf"mark_probability_pct \[0, 0\] % holds no Pmax {platform} takes .*"
                                             rf"{source}"):
            from_policy(policy, {"sonic": [100.0], platform: [100.0]}, 9216)


def test_the_dry_run_plan_says_what_the_platform_limits_cut(tmp_path):
    """The plan (Tuner.describe, the dry run's head) names the levels a platform's limit left out and its source."""
    from types import SimpleNamespace

    from losslessd.tune.session import Options, Tuner

    policy = _ecn_policy(tmp_path, "  max_threshold_bytes: {min: 9216, max: 70000000}\n")
    space = from_policy(policy, {"cisco_nxos": [100.0]}, 9216)
    plan = Tuner.describe(SimpleNamespace(opts=Options(["bench"], []), devices=["n9k"], policy=policy, space=space,
                                          found=None, start=Candidate(153600, 1572864, 100.0)))
    assert plan[-1] == ("left out of the policy's bounds: ecn.max_threshold_bytes above 52428800 B at the reference "
                        "speed: cisco_nxos takes ECN thresholds of 0-52428800 B (Cisco-NX-OS-device.yang "
                        "(NX-OS 9.3(1)) ipqos_ThreshVal range 0..52428800)")


def test_an_nvue_tune_offers_no_candidate_whose_kmin_equals_its_kmax():
    """The grid lets Kmax equal Kmin (step marking), but render refuses that pair on NVUE (whether NVUE takes
    min-threshold = max-threshold is in no document read): such a candidate ended an NVUE tune with an input error.
    Tuning NVUE ports leaves equal pairs out and says so; a SONiC tune keeps them."""
    nvue = from_policy(POLICY, {"nvidia_cumulus": [100.0]}, 9100)
    pairs = [(c.kmin_bytes, c.kmax_bytes) for c in map(nvue.candidate, nvue.points()) if c is not None]
    assert pairs and all(kmin < kmax for kmin, kmax in pairs)
    assert any("Kmax equal to Kmin: whether nvidia_cumulus takes them equal" in cut for cut in nvue.cuts)
    assert all(nvue.candidate(nvue.neighbour(p, d, s)) is not None for p in nvue.points() for d in (0, 1)
               for s in (-1, 1) if nvue.neighbour(p, d, s) is not None)
    sonic = from_policy(POLICY, {"sonic": [100.0]}, 9100)
    assert any(c.kmin_bytes == c.kmax_bytes for c in map(sonic.candidate, sonic.points()) if c is not None)


def test_an_nvue_tune_offers_no_pair_that_rounds_to_equal_at_a_slow_port(tmp_path):
    """Kmin < Kmax at the reference speed can round to one byte count at a slower port (Candidate.scaled): with a
    [9216, 9217] B range and a 10G NVUE port, Kmin 92160 and Kmax 92162 both render as 9216 B, which render refuses on
    NVUE (RenderLimits.ecn_equal_unsourced), ending the tune mid-way. The grid now leaves out every pair that comes out
    equal at a tuned NVUE port's speed; SONiC, which takes them equal, keeps such pairs."""
    policy = _ecn_policy(tmp_path, "  min_threshold_bytes: {min: 9216, max: 9217}\n"
                                   "  max_threshold_bytes: {min: 9216, max: 9217}\n")
    speeds = [10.0, 10.0]  # (two ports: a range this narrow holds one speed)
    nvue = from_policy(policy, {"nvidia_cumulus": speeds}, 9100)
    pairs = {(c.kmin_bytes, c.kmax_bytes) for c in map(nvue.candidate, nvue.points()) if c is not None}
    assert pairs, nvue.levels
    for kmin, kmax in pairs:
        for speed in speeds:
            low, high = Candidate(kmin, kmax, 1.0).scaled(candidate.scale(policy, speed))
            assert low < high, (kmin, kmax, speed, low)
    assert all(nvue.candidate(n) is not None for p in nvue.points() for d in (0, 1) for s in (-1, 1)
               if (n := nvue.neighbour(p, d, s)) is not None)
    sonic = from_policy(policy, {"sonic": speeds}, 9100)
    assert any(len(set(c.scaled(0.1))) == 1 for c in map(sonic.candidate, sonic.points()) if c is not None)


def test_an_nvue_tune_whose_every_pair_comes_out_equal_is_refused_before_any_trial(tmp_path):
    """Both ranges one value: every pair is Kmin = Kmax, none of which NVUE's render writes. The grid was empty and
    the tune's start (Space.centre) crashed on it (ValueError, exit 3); now an input error says what to widen."""
    policy = _ecn_policy(tmp_path, "  min_threshold_bytes: {min: 9216, max: 9216}\n"
                                   "  max_threshold_bytes: {min: 9216, max: 9216}\n")
    with pytest.raises(InputError, match=r"no ECN pair with Kmax above Kmin .*nvidia_cumulus.s ports \(100 Gb/s\).*"
                                         r"ecn.max_threshold_bytes.*nothing was run"):
        from_policy(policy, {"nvidia_cumulus": [100.0]}, 9100)
    assert from_policy(policy, {"sonic": [100.0]}, 9100).points()  # SONiC takes the equal pair
