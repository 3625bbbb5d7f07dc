"""The stand-in fabric: the DCQCN fluid model against the published fixed point (CoNEXT'16, Zhu et al.).

Test vectors are the ones worked out for the model in the shared research note (dcqcn-model.md section 5):
V1 reproduces the authors' own table (their notes), V2 and V3 solve the paper's fixed-point equation F3 exactly
at the paper's parameters, and the time-domain run must settle at that fixed point.
"""

from __future__ import annotations

import math

import pytest

from losslessd.tune import standin
from losslessd.tune.fluid import Bottleneck, Dcqcn, alltoall, fixed_point, simulate, steady_queue

KMIN, KMAX, PMAX = 5000, 200_000, 0.01  # the paper's ramp: 5 KB, 200 KB, 1 %


@pytest.mark.parametrize("n, p_pct, q_kb, alpha, rt_gbps", [
    # V2: 40G, the paper's parameters (tau 50 us, tau' = T = 55 us, B 10 MB, F 5, g 1/256, R_AI 40 Mb/s)
    (2, 0.0777, 20.15, 0.1014, 20.218),
    (4, 0.1888, 41.81, 0.1218, 10.160),
    (10, 0.6032, 122.62, 0.1533, 4.103),
    (12, 0.7586, 152.92, 0.1601, 3.428),
])
def test_fixed_point_40g(n, p_pct, q_kb, alpha, rt_gbps):
    fp = fixed_point(n, 40)
    assert 100 * fp.p == pytest.approx(p_pct, abs=5e-5)
    assert fp.queue_bytes(KMIN, KMAX, PMAX) / 1000 == pytest.approx(q_kb, abs=0.005)
    assert fp.alpha == pytest.approx(alpha, abs=5e-5)
    assert fp.rt_pps * 8000 / 1e9 == pytest.approx(rt_gbps, abs=5e-4)


def test_fixed_point_beyond_the_ramp():
    """V2: at N=16 (40G) p* = 1.0873 % > Pmax, so no queue on the ramp marks that much."""
    fp = fixed_point(16, 40)
    assert 100 * fp.p == pytest.approx(1.0873, abs=5e-5)
    assert fp.queue_bytes(KMIN, KMAX, PMAX) is None


def test_fixed_point_authors_notes_table():
    """V1: B = 300 packets and T = 1.5 ms reproduce the authors' notes: p* 0.0436 % .. 0.1447 %."""
    d = Dcqcn(byte_counter_bytes=300 * 1000, timer_s=1.5e-3)
    assert [round(100 * fixed_point(n, 40, d).p, 4) for n in (2, 5, 10, 20)] == [0.0436, 0.0698, 0.0986, 0.1447]
    assert fixed_point(20, 40, d).queue_bytes(KMIN, KMAX, PMAX) / 1000 == pytest.approx(33.23, abs=0.005)


def test_fixed_point_depends_on_c_over_n():
    """V3: at 100G the same protocol gives 9.65 KB (N=2), 41.81 KB (N=10: 40G N=4's point) and 71.92 KB (N=16)."""
    assert [round(fixed_point(n, 100).queue_bytes(KMIN, KMAX, PMAX) / 1000, 2) for n in (2, 10, 16)] == [9.65, 41.81, 71.92]
    assert fixed_point(10, 100).p == pytest.approx(fixed_point(4, 40).p, rel=1e-9)


def test_time_domain_settles_at_the_fixed_point():
    """N=10 at 40G with tau* = 4 us (stable for every N in the paper): the simulated queue and marking
    probability over 100-150 ms equal the fixed point's 122.62 KB and 0.6032 %."""
    q, p = steady_queue(Bottleneck(40, 10, KMIN, KMAX, PMAX))
    assert q / 1000 == pytest.approx(122.62, rel=1e-3)
    assert 100 * p == pytest.approx(0.6032, rel=1e-3)


def test_long_feedback_delay_oscillates():
    """tau* = 85 us: N=10 is in a limit cycle (the paper's phase-margin result), N=2 settles."""
    slow = Dcqcn(feedback_delay_s=85e-6)
    for n, swings in ((2, False), (10, True)):
        traj = simulate(Bottleneck(40, n, KMIN, KMAX, PMAX, dcqcn=slow), 0.12)
        tail = traj.q_bytes[traj.t > 0.08]
        assert bool(tail.max() - tail.min() > 100_000) is swings


def test_alltoall_bandwidth_pauses_and_drops():
    sizes = [8 * 2**20, 64 * 2**20]
    healthy = standin.scenario(100, 8, 2_400_000, 16_000_000, 1)
    out = alltoall(healthy, sizes)
    assert all(o.busbw_gbps <= 12.5 * 1.001 for o in out)  # never above the line rate of 100 Gb/s
    assert all(o.dropped_bytes == 0 for o in out)
    # A PFC trigger low enough that the incast reaches it: pauses, and with too little headroom, drops.
    tight = standin.scenario(100, 32, 2_400_000, 16_000_000, 1, trigger_bytes=50_000)
    paused = alltoall(tight, sizes)
    assert paused[-1].paused_s > 0 and paused[-1].pause_frames > 0 and paused[-1].dropped_bytes == 0
    starved = alltoall(standin.scenario(100, 32, 2_400_000, 16_000_000, 1, trigger_bytes=50_000,
                                       headroom_bytes=1000), sizes)
    assert starved[-1].dropped_bytes > 0


def test_standin_prints_nccl_tests_output_its_reader_reads_back():
    from losslessd.tune.bench import read_benchmark
    run = standin.run(standin.scenario(100, 8, 150_000, 1_500_000, 100), [8 * 2**20, 64 * 2**20])
    result = read_benchmark(run.text)
    assert result.valid and result.collective == "alltoall_perf"
    assert sorted(result.sizes) == [8 * 2**20, 64 * 2**20]
    for o in run.outcomes:
        assert result.sizes[o.size_bytes].busbw_gbps == pytest.approx(o.busbw_gbps, abs=0.006)
    assert run.counters.ecn_marked > 0


def test_the_standin_prints_numbers_as_nccl_tests_getfloatstr_does():
    """nccl-tests src/util.cu getFloatStr picks the decimals by the digits before the point: 999.996 at width 6 is
    `%6.2f`, `1000.00` (seven characters), not the `1000.0` a fit-the-width rule gives; 1234567 at width 6 `%6.0e`,
    12345678 at width 7 `%7.1e`, 123456 at width 6 `%6.0f`."""
    _fstr = standin._fstr
    assert _fstr(999.996, 6) == "1000.00"
    assert _fstr(0.5, 6) == "  0.50" and _fstr(1000, 6) == "1000.0" and _fstr(123456, 6) == "123456"
    assert _fstr(1234567, 6) == " 1e+06" and _fstr(12345678, 7) == "1.2e+07" and _fstr(float("inf"), 7) == "    inf"


@pytest.mark.parametrize(("gbps", "v5_bytes"), [(25, 26_709), (100, 56_274), (400, 126_857)])
def test_the_standin_headroom_need_is_the_notes_v5(gbps, v5_bytes):
    """/work/shared/tuning dcqcn-model.md V5: 2 MTU + the 100 m cable's round trip at 1.98e8 m/s + the IEEE 802.3
    Annex 31B pause response (80 / 394 / 905 quanta of 64 B), MTU 9216, no ASIC terms; the stand-in rounds it up to
    whole KiB as the headroom formula does."""
    need = standin.scenario(gbps, 2, 100_000, 1_000_000, 10, cable_m=100, mtu=9216).headroom_need_bytes
    assert need == math.ceil(v5_bytes / 1024) * 1024
