"""Benchmark readers: every fixture (tests/fixtures/bench/SOURCES.md) parses to exactly the numbers its text shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from losslessd.tune.bench import (
    cycles_option,
    format_size,
    parse_nccl_tests,
    parse_nccl_tests_json,
    parse_perftest,
    parse_size,
    read_benchmark,
)
from tests.clirun import losslessd

FIX = Path(__file__).parent / "fixtures" / "bench"


def text(name: str) -> str:
    return (FIX / name).read_text(encoding="utf-8")


def halves(row):
    """(time, algbw, busbw, wrong, error) of both halves, None for a missing half."""
    return [None if h is None else (h.time_us, h.algbw_gbps, h.busbw_gbps, h.wrong, h.error)
            for h in (row.out_of_place, row.in_place)]


def test_nccl_2_20_version_header_and_rank_lines():
    [run] = parse_nccl_tests(text("nccl/2.20.0-all_reduce-2xGB10-roce.txt"))
    assert (run.version, run.collective, run.ranks) == ("2.20.0", "all_reduce_perf", 2)
    assert run.columns[:5] == ["size", "count", "type", "redop", "root"]
    assert [(r.size_bytes, r.count, r.type, r.redop, r.root) for r in run.rows] == [
        (8192, 2048, "float", "sum", -1), (16384, 4096, "float", "sum", -1),
        (32768, 8192, "float", "sum", -1), (65536, 16384, "float", "sum", -1)]
    assert halves(run.rows[0]) == [(35.15, 0.23, 0.23, 0, None), (30.33, 0.27, 0.27, 0, None)]
    assert halves(run.rows[3]) == [(67.93, 0.96, 0.96, 0, None), (64.71, 1.01, 1.01, 0, None)]
    assert run.failures() == [] and run.notes == []  # 2 ranks: all_reduce busbw = algbw, consistent
    assert run.oob_values is None  # the thread shows no footer


def test_nccl_2021_error_column_blank_redop_and_two_runs():
    runs = parse_nccl_tests(text("nccl/2021-all_reduce-alltoall-8x8V100-ib.txt"))
    assert len(runs) == 2
    allreduce, alltoall = runs
    assert [(r.size_bytes, r.count, r.redop, r.root) for r in allreduce.rows] == [
        (268435456, 67108864, "sum", None), (536870912, 134217728, "sum", None)]
    assert halves(allreduce.rows[0]) == [(122131, 2.20, 4.33, None, 2e-06), (122165, 2.20, 4.33, None, 2e-06)]
    assert halves(allreduce.rows[1]) == [(244833, 2.19, 4.32, None, 2e-06), (244844, 2.19, 4.32, None, 2e-06)]
    assert (allreduce.oob_values, allreduce.oob_ok, allreduce.avg_busbw_gbps) == (0, True, 4.32178)
    [row] = alltoall.rows
    assert (row.size_bytes, row.count, row.type, row.redop) == (268435456, 1048576, "float", None)
    assert halves(row) == [(520935, 0.52, 0.51, None, 0.0), (519562, 0.52, 0.51, None, 1.0)]
    assert (alltoall.oob_values, alltoall.oob_ok, alltoall.avg_busbw_gbps) == (0, True, 0.507636)
    # The error column is kept, the out-of-bounds verdict decides: both runs are valid.
    assert allreduce.failures() == alltoall.failures() == []


def test_nccl_2020_no_redop_no_root_footer_without_hash_fails_out_of_bounds():
    [run] = parse_nccl_tests(text("nccl/2020-all_gather-8xV100-no-hash-footer.txt"))
    assert run.columns == ["size", "count", "type", "time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error"]
    [row] = run.rows
    assert (row.size_bytes, row.count, row.type, row.redop, row.root) == (4294967296, 134217728, "float", None, None)
    assert halves(row) == [(29122, 129.05, 129.05, None, 1.0), (29169, 128.84, 128.84, None, 1.0)]
    assert (run.oob_values, run.oob_ok, run.avg_busbw_gbps) == (2, False, 128.942)
    assert run.failures() == ["nccl-tests reports 2 out-of-bounds values (FAILED)"]
    result = read_benchmark(text("nccl/2020-all_gather-8xV100-no-hash-footer.txt"))
    assert not result.valid and "out-of-bounds" in result.invalid[0]


def test_nccl_2024_excerpt_keeps_the_complete_half_of_a_cut_line():
    [run] = parse_nccl_tests(text("nccl/2024-alltoall-64xH800-excerpt.txt"))
    [row] = run.rows
    assert (row.size_bytes, row.count, row.redop, row.root) == (8388608, 32768, "none", -1)
    assert halves(row) == [(337.8, 24.83, 24.44, 0, None), None]
    assert any("in-place half of 8388608 B is missing" in n for n in run.notes)
    assert run.ranks == 1  # the thread shows one rank line of 64: no busbw check on an excerpt


def test_nccl_rank_tags_anywhere_in_the_line():
    [run] = parse_nccl_tests(text("nccl/mpi-rank-tagged.txt"))
    [row] = run.rows
    assert (row.size_bytes, row.count, row.redop, row.root) == (1048576, 262144, "sum", -1)
    assert halves(row) == [(1626.5, 0.64, 1.24, 0, None), (2302.3, 0.46, 0.87, 0, None)]


def test_nccl_open_mpi_tag_output_interleaved_info_two_collectives_and_exponent():
    runs = parse_nccl_tests(text("nccl/synthetic-2.13-mpi-tag-output-two-runs.txt"))
    assert [(r.collective, r.version, r.ranks, len(r.rows)) for r in runs] == [
        ("all_reduce_perf", None, 8, 2), ("all_gather_perf", None, 8, 1)]
    first = runs[0]
    assert halves(first.rows[0]) == [(179.03, 5.86, 10.25, None, None)] * 2  # validation off: N/A
    big = runs[1].rows[0]
    assert (big.size_bytes, big.redop, halves(big)[0]) == (4294967296, "none", (1.2e7, 0.36, 0.31, None, None))
    assert runs[1].notes == []  # busbw = algbw x 7/8 within print rounding
    assert first.avg_busbw_gbps == 19.43


def test_nccl_per_iteration_columns_and_noise():
    [run] = parse_nccl_tests(text("nccl/synthetic-2.19-per-iteration-I1.txt"))
    assert len(run.rows) == 6 and run.notes == []
    last = run.rows[-1]
    assert last.out_of_place.time_us == 20320.6 and last.out_of_place.busbw_gbps == 92.47
    assert last.out_of_place.extra == {"i_min": 19711.0, "i_max": 21946.3, "i_p99": 21539.9, "i_cv%": 0.42}
    assert last.in_place.extra["i_min"] == 19908.1
    assert read_benchmark(text("nccl/synthetic-2.19-per-iteration-I1.txt")).noise_cv_pct == 1.37


def test_nccl_timestamps_and_cputime():
    [run] = parse_nccl_tests(text("nccl/synthetic-2.19-timestamps-S1-cputime-C1.txt"))
    assert [r.timestamp for r in run.rows] == ["2026-03-14 09:26:53", "2026-03-14 09:26:54", "2026-03-14 09:26:55"]
    assert halves(run.rows[2]) == [(478.41, 35.07, 61.37, 0, None)] * 2
    assert "cputime" in run.columns


def test_nccl_wrong_elements_make_the_run_invalid():
    result = read_benchmark(text("nccl/synthetic-2.19-wrong-elements.txt"))
    assert not result.valid
    assert result.invalid == ["nccl-tests reports 1 out-of-bounds values (FAILED)",
                              "#wrong 12 at 67108864 B in-place (line 19)"]


def test_nccl_json_report():
    raw = text("nccl/synthetic-2.19-json-J.json")
    run = parse_nccl_tests_json(raw)
    assert (run.collective, run.ranks, run.oob_values, run.oob_ok) == ("all_reduce_perf", 8, 0, True)
    assert [(r.size_bytes, r.out_of_place.busbw_gbps, r.in_place.algbw_gbps, r.root) for r in run.rows] == [
        (1048576, 10.25, 5.86, -1), (4194304, 28.61, 16.35, -1), (16777216, 61.37, 35.07, -1)]
    assert run.avg_busbw_gbps == json.loads(raw)["average_bus_bandwidth"]["bandwidth"]
    assert read_benchmark(raw).kind == "nccl-tests-json"


def test_perftest_bandwidth_units():
    mb = parse_perftest(text("perftest/ib_send_bw-MBsec.txt"))
    [row] = mb.rows
    assert (mb.unit, row.size_bytes, row.iterations, row.msg_rate_mpps) == ("MB/sec", 1024, 1000, 5.677340)
    assert row.bw_peak_gbps is None  # 0.00: not measured
    assert row.bw_avg_gbps == pytest.approx(5544.28 * 2**20 / 1e9)  # MB/sec is MiB/sec
    gb = parse_perftest(text("perftest/ib_write_bw-gbits-duration.txt"))
    [row] = gb.rows
    assert (gb.unit, row.size_bytes, row.iterations, row.bw_peak_gbps) == ("Gb/sec", 8, 224958464, None)
    assert row.bw_avg_gbps == pytest.approx(0.48 / 8)
    assert row.msg_rate_mpps == 7.498617


def test_perftest_cut_result_line_is_no_result():
    run = parse_perftest(text("perftest/ib_write_bw-roce-MBsec-excerpt.txt"))
    assert run.test == "RDMA_Write BW Test" and run.unit == "MB/sec" and run.rows == []
    result = read_benchmark(text("perftest/ib_write_bw-roce-MBsec-excerpt.txt"))
    assert result.invalid == ["no result rows"]


def test_perftest_latency():
    run = parse_perftest(text("perftest/ib_send_lat-synthetic.txt"))
    assert run.kind == "lat" and run.test == "Send Latency Test"
    assert [(r.size_bytes, r.latency_us["t_typical"], r.latency_us["t_min"], r.latency_us["99_9pct_percentile"])
            for r in run.rows] == [(2, 1.68, 1.62, 4.91), (4096, 2.95, 2.87, 6.02)]
    result = read_benchmark(text("perftest/ib_send_lat-synthetic.txt"))
    assert result.sizes[4096].latency_us == 2.95


@pytest.mark.parametrize("name", ["perftest/ib_send_bw-MBsec.txt", "perftest/ib_send_lat-synthetic.txt",
                                  "nccl/2.20.0-all_reduce-2xGB10-roce.txt"])
def test_a_size_measured_twice_keeps_its_worse_result(name):
    """Two runs in one output (or their lines interleaved) measure a size twice: the last one was kept, so a slow
    run before a fast one read as the fast one; nccl-tests' reader keeps the worse (round 13)."""
    lines = text(name).splitlines(keepends=True)
    rows = [i for i, line in enumerate(lines) if line.split() and line.split()[0].isdecimal()]
    first = lines[rows[0]]
    slow = (first.replace("5544.28", "55.44") if "5544.28" in first else first.replace("0.23", "0.01")
            if "0.23" in first else first.replace("1.68", "168.00", 1))
    assert slow != first
    single = read_benchmark("".join(lines))
    twice = read_benchmark("".join(lines[:rows[0]] + [slow] + lines[rows[0]:]))
    size = int(first.split()[0])
    good, bad = single.sizes[size], twice.sizes[size]
    if good.latency_us is not None:
        assert bad.latency_us == 168.0 and good.latency_us == 1.68
    elif name.startswith("nccl"):  # (one run whose rows repeat a size: kept the lower, now also noted)
        assert bad.busbw_gbps == 0.01 and good.busbw_gbps == 0.23
    else:
        assert bad.busbw_gbps == pytest.approx(55.44 * 2**20 / 1e9) and good.busbw_gbps > 5
    assert any("measured twice" in note for note in twice.notes)


@pytest.mark.parametrize("output", [
    "", "bash: all_reduce_perf: command not found\n",
    "NCCL WARN NET/IB : Got completion with error 12\n", "{\"not\": \"nccl\"}", "12 apples\n",
    # JSON nested past the parser's recursion limit (a RecursionError escaped), an integer past CPython's 4,300 digits
    '{"results": ' + "[" * 100_000, '{"results": [' + "9" * 5000 + "]}",
])
def test_nothing_parseable_is_invalid_not_a_crash(output):
    result = read_benchmark(output)
    assert not result.valid and result.sizes == {}
    assert parse_nccl_tests_json(output).errors or not output.startswith("{")


PERF_HEAD = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
# nccl-tests' table header (src/common.cu, the %6s column names of the normal mode)
NCCL_HEAD = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
             "busbw #wrong\n")


@pytest.mark.parametrize("output", [
    # JSON: a result that is no object (AttributeError), a size or root of 1e999 (OverflowError), an out_of_bounds
    # count that is text or an object (ValueError, TypeError), a bandwidth of 1e999 (read as an infinite busbw)
    '{"results": [1]}', '{"results": [{"size": 1e999, "count": 1}]}', '{"results": [{"size": 8, "count": 1, '
    '"root": 1e999}]}', '{"results": [], "out_of_bounds": {"count": "x"}}', '{"results": [], "out_of_bounds": '
    '{"count": {}}}', '{"results": [{"size": 8, "count": 1, "type": "float", "out_of_place": {"bus_bw": 1e999}}]}',
    # perftest: an iteration count of inf or nan (OverflowError, ValueError), a bandwidth of 400 digits (inf), 2.5
    PERF_HEAD + " 8 inf 0.00 0.48 0.1\n", PERF_HEAD + " 8 nan 0.00 0.48 0.1\n",
    PERF_HEAD + " 8 1000 0.00 " + "9" * 400 + " 0.1\n", PERF_HEAD + " 8 2.5 0.00 0.48 0.1\n",
    # a bandwidth finite as printed but not in GB/s (1e308 Gb/s x 0.125: inf, which won every comparison)
    PERF_HEAD + " 8 1000 0.00 1e308 0.1\n",
    # nccl-tests text: a size, root, rank or out-of-bounds count past CPython's 4,300 digits (ValueError), a busbw
    # of inf or 1e999 (read as an infinite busbw: a valid trial that beat every other)
    NCCL_HEAD + "9" * 5000 + " 2 float sum -1 10.0 1.0 1.0 0 10.0 1.0 1.0 0\n",
    NCCL_HEAD + "8 2 float sum " + "9" * 5000 + " 10.0 1.0 1.0 0 10.0 1.0 1.0 0\n",
    "#  Rank " + "9" * 5000 + " Group  0 Pid 1 on host device  0 [0x01] GPU\n" + NCCL_HEAD,
    NCCL_HEAD + "# Out of bounds values : " + "9" * 5000 + " OK\n",
    NCCL_HEAD + "8 2 float sum -1 10.0 inf inf 0 10.0 inf inf 0\n",
    NCCL_HEAD + "8 2 float sum -1 10.0 1e999 1e999 0 10.0 1e999 1e999 0\n",
    # a negative bandwidth (round 4): kept as the size's busbw, and as the lower of two runs it beat the real one
    NCCL_HEAD + "8 2 float sum -1 10.0 -1.00 -2.00 0 10.0 -1.00 -2.00 0\n",
    '{"results": [{"size": 8, "count": 1, "type": "float", "out_of_place": {"bus_bw": -3}}]}',
    PERF_HEAD + " 8 1000 0.00 -0.48 0.1\n",
    # digits of another script (ARABIC-INDIC), which float() and \d read: a busbw of 999 from a row no benchmark prints
    NCCL_HEAD + "8 2 float sum -1 10.0 1.0 \u0669\u0669\u0669 0 10.0 1.0 \u0669\u0669\u0669 0\n",
    NCCL_HEAD + "\u0661\u0666 4 float sum -1 10.0 1.0 1.0 0 10.0 1.0 1.0 0\n",
    NCCL_HEAD + "# Avg bus bandwidth    : \u0669\u0669\n",
    PERF_HEAD + " 8 1000 0.00 \u0669\u0669\u0669 0.1\n",
    '{"results": [{"size": 8, "count": 1, "type": "float", "out_of_place": {"bus_bw": "\u0669\u0669"}}]}',
])
def test_numbers_no_benchmark_prints_are_skipped_never_a_crash(output):
    """Found by fuzzing read_benchmark (coverage-guided): each raised out of it (the tune stopped with a traceback)."""
    result = read_benchmark(output)
    assert not result.valid and result.sizes == {}


def test_a_header_line_of_many_words_is_read_in_one_pass():
    """The column pattern backtracked from every word of a header to look for a unit after it: 5 KB of words took
    4 s, this line about an hour. Words without a unit are no column."""
    run = parse_perftest(" #bytes   " + " ".join(["word"] * 40_000) + "    BW average[Gb/sec]\n 8 0.48\n")
    assert run.columns == ["#bytes", "BW average[Gb/sec]"]
    assert [(r.size_bytes, r.iterations) for r in run.rows] == [(8, 0)] and run.rows[0].bw_avg_gbps == 0.48 / 8


def test_sizes_as_operators_write_them():
    assert [parse_size(s) for s in ("8", "64K", "64M", "1G", "1GiB", "8192")] == [8, 65536, 67108864, 2**30, 2**30, 8192]
    assert [format_size(s) for s in (2**30, 64 * 2**20, 8192, 1000)] == ["1G", "64M", "8K", "1000"]
    with pytest.raises(ValueError):
        parse_size("lots")
    # (int() said "Exceeds the limit (4300 digits)"; \d read ARABIC-INDIC digits, and int() 64)
    for size in ("9" * 5000 + "G", "9" * 20, str(2**63), "9999999T", "\u0666\u0664M"):
        with pytest.raises(ValueError, match="not a message size"):
            parse_size(size)


# nccl-tests' device line and one row, written from src/common.cu's format strings ("#  Rank %2d Group %2d Pid %6d on
# %10s device %2d [%s] %s"; the row: size, count, type, redop, root, then time algbw busbw #wrong per half), with
# numbers of our own
def _rank(rank: int, host: str) -> str:
    return f"#  Rank {rank:2d} Group  0 Pid {4100 + rank:6d} on {host:>10s} device {rank:2d} [0x1b] GPU\n"


def _nccl_row(size: int, algbw: float, busbw: float) -> str:
    return f"{size:12d} {size // 4:13d}     float     sum      -1   100.00 {algbw:7.2f} {busbw:7.2f}      0   " \
           f"100.00 {algbw:7.2f} {busbw:7.2f}      0\n"


NTHREAD = "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20\n"


def test_a_rank_printed_by_several_processes_is_each_host_alone_not_the_fabric():
    """nccl-tests not built with MPI=1 under mpirun: every process runs a test of its own and prints its own header
    and device lines (nccl-tests issues 107, 182, 306; the maintainers' answer: rebuild with MPI=1). Its busbw is
    each host's alone, yet it was scored as the fabric's (round 19)."""
    alone = "".join([NTHREAD, _rank(0, "hostA"), _rank(1, "hostA"), NTHREAD, _rank(0, "hostB"), _rank(1, "hostB"),
                     NCCL_HEAD, _nccl_row(1048576, 10.0, 10.0), _nccl_row(1048576, 10.5, 10.5)])
    result = read_benchmark(alone)
    assert not result.valid
    assert any("printed 2 times" in why and "MPI=1" in why for why in result.invalid), result.invalid
    one_job = "".join([NTHREAD] + [_rank(r, h) for r, h in ((0, "hostA"), (1, "hostA"), (2, "hostB"), (3, "hostB"))]
                      + [NCCL_HEAD, _nccl_row(1048576, 10.0, 15.0)])
    assert read_benchmark(one_job).valid and read_benchmark(one_job).sizes[1048576].busbw_gbps == 15.0


# An NCCL WARN as NCCL prints it, from the transport failure of nccl-tests issue 24 (numbers of our own)
NCCL_WARN = "hostA:1:3 [0] transport/net_ib.cc:1000 NCCL WARN NET/IB : Got completion from peer with error 12\n"


def test_an_attempt_that_stopped_before_its_table_and_the_retry_are_two_runs():
    """A job that failed in NCCL's setup (device lines, an NCCL WARN, no table) and was launched again printed its
    device lines twice before the one table: read as nccl-tests without MPI=1 (each process its own test) and the
    retry's valid result refused. The retry names its ranks on the same hosts: it is scored, and the stopped attempt
    named."""
    retried = "".join([NTHREAD, _rank(0, "hostA"), _rank(1, "hostB"), NCCL_WARN, NTHREAD, _rank(0, "hostA"),
                       _rank(1, "hostB"), NCCL_HEAD, _nccl_row(1048576, 10.0, 15.0)])
    result = read_benchmark(retried)
    assert result.valid, result.invalid
    assert result.sizes[1048576].busbw_gbps == 15.0
    assert result.notes == ["line 5: a new attempt; the one from line 1 stopped before its table (line 4: "
                            + NCCL_WARN.strip() + ") and is not scored"]
    # A warning inside one launch (no header line after it) starts no attempt: the run is as it was.
    warned = "".join([NTHREAD, _rank(0, "hostA"), _rank(1, "hostB"), NCCL_WARN, NCCL_HEAD,
                      _nccl_row(1048576, 10.0, 15.0)])
    assert read_benchmark(warned).valid and read_benchmark(warned).notes == []


def test_a_warning_between_two_processes_own_tests_is_no_retry():
    """Without MPI=1 each mpirun process prints its own header and its own ranks, on its own host: a WARN printed
    between the two blocks does not make the second a new attempt (rank 0 is on hostA, then on hostB)."""
    alone = "".join([NTHREAD, _rank(0, "hostA"), _rank(1, "hostA"), NCCL_WARN, NTHREAD, _rank(0, "hostB"),
                     _rank(1, "hostB"), NCCL_HEAD, _nccl_row(1048576, 10.0, 10.0)])
    result = read_benchmark(alone)
    assert not result.valid and result.notes == []
    assert any("printed 2 times" in why and "MPI=1" in why for why in result.invalid), result.invalid


def test_a_single_host_jobs_warning_between_its_processes_blocks_is_no_retry():
    """One host, nccl-tests without MPI=1 under mpirun: each process prints its own block naming rank 0 on the same
    host, and an NCCL WARN between the blocks read as a stopped attempt launched again: the second process's test
    scored as the fabric's. The first process goes on (its pid prints again, NCCL src/debug.cc's `HOST:PID:TID`
    prefix; or its own table follows): two processes of one launch, each its own test."""
    def rank0(pid: int) -> str:
        return f"#  Rank  0 Group  0 Pid {pid:6d} on      hostA device  0 [0x1b] GPU\n"

    warn = "hostA:4100:4105 [0] misc/ibvwrap.cc:100 NCCL WARN Call to ibv_modify_qp failed with error 110\n"
    head = [NTHREAD, rank0(4100), warn, NTHREAD, rank0(4200)]
    info = "".join(head + ["hostA:4100:4110 [0] NCCL INFO Channel 00/02 :    0\n", NCCL_HEAD,
                           _nccl_row(1048576, 10.0, 10.0)])
    tables = "".join(head + [NCCL_HEAD, _nccl_row(1048576, 10.0, 10.0), NCCL_HEAD, _nccl_row(1048576, 9.0, 9.0)])
    for log in (info, tables):
        result = read_benchmark(log)
        assert not result.valid, log
        assert any("rank 0's device line is printed 2 times" in why and "MPI=1" in why for why in result.invalid), \
            result.invalid
        assert not any("a new attempt" in note for note in result.notes), result.notes
    # The retry of a stopped attempt names new processes only: still a retry, scored.
    retried = "".join(head + ["hostA:4200:4210 [0] NCCL INFO Channel 00/02 :    0\n", NCCL_HEAD,
                              _nccl_row(1048576, 10.0, 15.0)])
    assert read_benchmark(retried).valid and read_benchmark(retried).sizes[1048576].busbw_gbps == 15.0


def test_a_one_rank_run_measures_no_network():
    """One rank: busbw = algbw x (n-1)/n or 2(n-1)/n is 0 at every size (nccl-tests doc/PERFORMANCE.md; issues 71,
    249): a trial scored 0 whatever the ECN settings. An excerpt that shows one rank line of many keeps its busbw."""
    one = "".join([NTHREAD, _rank(0, "hostA"), NCCL_HEAD, _nccl_row(1048576, 4.2, 0.0), _nccl_row(2097152, 4.4, 0.0)])
    result = read_benchmark(one)
    assert not result.valid and any("one rank" in why for why in result.invalid), result.invalid
    excerpt = "".join([_rank(71, "hostZ"), NCCL_HEAD, _nccl_row(1048576, 300.0, 590.0)])
    assert read_benchmark(excerpt).valid
    tiny = NCCL_HEAD + _nccl_row(8, 0.0, 0.0)  # (sizes too small to print an algbw above 0.00: no verdict)
    assert read_benchmark(tiny).valid


def test_a_table_header_without_rows_names_the_line_the_run_stopped_at():
    """A run that printed its table header and then an NCCL WARN (the transport failed) read as "nothing parseable:
    no nccl-tests table" (nccl-tests issue 24's shape)."""
    stopped = (NTHREAD + _rank(0, "hostA") + NCCL_HEAD + "hostA:1:2 [0] NCCL INFO Launch mode Parallel\n"
               "hostA:1:3 [0] transport/net_ib.cc:1000 NCCL WARN NET/IB : Got completion from peer with error 12\n")
    result = read_benchmark(stopped)
    assert not result.valid and result.sizes == {}
    assert result.invalid == ["no result rows after the table header; the run stopped: line 5: hostA:1:3 [0] "
                              "transport/net_ib.cc:1000 NCCL WARN NET/IB : Got completion from peer with error 12"]


def test_an_attempt_alone_that_stopped_before_its_table_names_the_warning():
    """A log that is only a stopped attempt (device lines, then an NCCL WARN, no table) read as "nothing parseable"
    without a word of why: the WARN line is named as the reason, as a table header followed by WARN names it."""
    result = read_benchmark(NTHREAD + _rank(0, "hostA") + _rank(1, "hostB") + NCCL_WARN)
    assert not result.valid and result.sizes == {}
    assert result.invalid == ["no result rows nor table header; the run stopped in NCCL's setup: line 4: "
                              + NCCL_WARN.strip()]


# What launchers and loggers write before each line (each format named in bench._LAUNCH_PREFIX's comment): Slurm
# `srun --label`, moreutils `ts` (default and `-s`), `ts '[%Y-%m-%d %H:%M:%S]'`, `kubectl logs --timestamps` (RFC 3339
# with nanoseconds), Open MPI `--timestamp-output` with and without `--tag-output`, pdsh; two stacked (ts over srun -l);
# a kubelet's log file line (the CRI log format: time, stream, tag F for a full line).
LAUNCH_PREFIXES = ["0: ", " 3: ", "Dec 05 06:14:09 ", "00:00:12.503 ", "[2026-12-05 06:14:09] ",
                   "2026-12-05T06:14:09.123456789Z ", "Sat Dec  5 06:14:09 2026[1,0]<stdout>:",
                   "Sat Dec  5 06:14:09 2026<stdout>:", "gpu-node-17: ", "Dec 05 06:14:09  0: ",
                   "2026-12-05T06:14:09.123456789Z stdout F "]


@pytest.mark.parametrize("prefix", LAUNCH_PREFIXES)
def test_a_benchmark_run_through_a_launcher_that_prefixes_its_lines_is_read(prefix):
    """`tune --benchmark "srun -l ..."` (or `| ts`, `kubectl logs --timestamps`, `mpirun --timestamp-output`, pdsh):
    every line starts with a task number, a time or a host, and every trial read "nothing parseable" (round 21)."""
    log = "".join([NTHREAD, _rank(0, "hostA"), _rank(1, "hostB"), NCCL_HEAD, _nccl_row(1048576, 10.0, 10.0),
                   _nccl_row(2097152, 12.0, 12.0), "# Out of bounds values : 0 OK\n"])
    result = read_benchmark("".join(prefix + line + "\n" for line in log.splitlines()))
    assert result.valid, result.invalid
    assert {s: r.busbw_gbps for s, r in result.sizes.items()} == {1048576: 10.0, 2097152: 12.0}
    # the verdict reads through the prefix too: an out-of-bounds FAILED still invalidates
    failed = log.replace("# Out of bounds values : 0 OK", "# Out of bounds values : 3 FAILED")
    assert not read_benchmark("".join(prefix + line + "\n" for line in failed.splitlines())).valid
    # perftest (ib_write_bw --report_gbits; perftest_parameters.h RESULT_FMT_G and REPORT_FMT, numbers of our own)
    perf = (" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
            " 65536      5000             97.51              97.43  \t\t   0.185833\n")
    got = read_benchmark("".join(prefix + line + "\n" for line in perf.splitlines()))
    assert got.valid and got.sizes[65536].busbw_gbps == pytest.approx(97.43 / 8)


def test_a_kubelet_log_file_joins_the_parts_the_runtime_split():
    """A kubelet's container log file (CRI log format, kubernetes pkg/kubelet/kuberuntime/logs/logs.go parseCRILog)
    stores a line past the runtime's buffer as `P` parts ended by an `F` entry, and ReadLogs drops each part's newline
    so it runs into the next entry of its stream: a row split so was read as two lines (session 41 part i Left), here
    its busbw lost. Joined per stream (a stderr entry between the parts stays a line of its own), at the line the row
    began on; a part with nothing after it ends the file."""
    time = "2026-12-05T06:14:09.123456789Z"
    row = _nccl_row(2097152, 12.0, 12.0).rstrip("\n")
    log = [f"{time} stdout F {line}" for line in (NTHREAD + _rank(0, "hostA") + _rank(1, "hostB") + NCCL_HEAD
                                                   + _nccl_row(1048576, 10.0, 10.0)).splitlines()]
    log += [f"{time} stdout P {row[:30]}", f"{time} stderr F hostA:12:12 [0] NCCL INFO 2 coll channels",
            f"2026-12-05T06:14:09+01:00 stdout P {row[30:60]}", f"{time} stdout F {row[60:]}",
            f"{time} stdout F #wrong above: none", f"{time} stdout P # Out of bounds values : 0 OK"]
    result = read_benchmark("\n".join(log) + "\n")
    assert result.valid, result.invalid
    assert {s: r.busbw_gbps for s, r in result.sizes.items()} == {1048576: 10.0, 2097152: 12.0}
    bad = read_benchmark("\n".join(log).replace(" 0 OK", " 3 FAILED").replace("0   100.00", "7   100.00"))
    assert "#wrong 7 at 2097152 B out-of-place (line 6)" in bad.invalid  # (the line the split row began on)
    # a tag with more after a colon is a full or partial line all the same (parseCRILog reads the tag's first field)
    assert read_benchmark("\n".join(log).replace(" stdout F ", " stdout F:x ")).sizes[2097152].busbw_gbps == 12.0


def test_kubectl_logs_timestamps_inside_a_split_row_are_taken_out():
    """`kubectl logs --timestamps` prints each entry's RFC 3339 time before it (logs.go logWriter.write), the later
    parts of a row the runtime split included, so their times stand inside the row (session 42 part h Left: the row
    then did not parse and its size was lost). A row's own words are never taken for a time."""
    time, later = "2026-12-05T06:14:09.123456789Z", "2026-12-05T06:14:09.5+01:00"
    row = _nccl_row(2097152, 12.0, 12.0).rstrip("\n")
    head = [f"{time} {line}" for line in (NTHREAD + _rank(0, "hostA") + _rank(1, "hostB") + NCCL_HEAD
                                          + _nccl_row(1048576, 10.0, 10.0)).splitlines()]
    for split in (f"{time} {row[:30]}{later} {row[30:60]}2026-12-05T06:14:10Z {row[60:]}",
                  f"{time} {row[:28]}{later} {row[28:]}"):
        result = read_benchmark("\n".join([*head, split, f"{time} # Out of bounds values : 0 OK"]) + "\n")
        assert result.valid, result.invalid
        assert {s: r.busbw_gbps for s, r in result.sizes.items()} == {1048576: 10.0, 2097152: 12.0}


def test_an_out_of_place_busbw_not_read_keeps_the_in_place_one():
    """A row whose out-of-place busbw is nan (or inf, or negative) and whose in-place one is a number: the size kept
    at its in-place busbw with a note (session 42 part h Left: the size was dropped)."""
    log = NTHREAD + _rank(0, "hostA") + _rank(1, "hostB") + NCCL_HEAD + _nccl_row(1048576, 10.0, 10.0)
    row = _nccl_row(2097152, 12.0, 12.0).replace("  12.00   12.00      0   100.00", "    nan     nan      0   100.00",
                                                 1)
    assert "nan" in row
    result = read_benchmark(log + row)
    assert result.valid, result.invalid
    assert {s: r.busbw_gbps for s, r in result.sizes.items()} == {1048576: 10.0, 2097152: 12.0}
    assert "line 6: no out-of-place busbw read at 2097152 B (nan, inf or negative): the in-place one is kept for the " \
           "size" in result.notes
    both = read_benchmark(log + row.replace("  12.00   12.00      0", "    nan     nan      0"))
    assert 2097152 not in both.sizes
    assert any("no busbw read at 2097152 B" in note for note in both.notes)


def test_a_line_that_only_looks_prefixed_keeps_its_words():
    """A `#`-less `error: ...` line (a pasted log) is nccl-tests' verdict, not a host's prefix; a size column is never
    taken for a task number (it has no colon)."""
    log = NTHREAD + _rank(0, "hostA") + _rank(1, "hostB") + NCCL_HEAD + _nccl_row(1048576, 10.0, 10.0)
    result = read_benchmark(log + "error: 12 wrong elements\n")
    assert not result.valid and result.invalid == ["nccl-tests error: 12 wrong elements"]


def test_rows_without_a_header_are_noted_once():
    """Rows pasted without their table header (kvcache-ai/Mooncake pull request 3484's shape) were noted at each row."""
    result = read_benchmark(_nccl_row(1048576, 10.0, 10.0) + _nccl_row(2097152, 12.0, 12.0)
                            + _nccl_row(4194304, 13.0, 13.0))
    assert result.valid and len(result.sizes) == 3
    assert result.notes == ["line 1: no table header before the rows; columns assumed by their count"]


def test_several_collectives_or_ops_in_one_output_are_not_one_measure():
    """busbw is a per-collective figure and `-o all`/`-d all` print each size once per op and type (nccl-tests util.cu
    `# Collective test starting: <program>`, all_reduce.cu's loops over types and ops): a log holding several was read
    as one measure, a size under two keeping the worse (session 41 part i Left). Refused, naming where each starts;
    one collective run twice (`-N 2`, a relaunch) stays one measure."""
    def run(name: str, rows: str) -> str:
        return f"# Collective test starting: {name}\n" + NTHREAD + NCCL_HEAD + rows + "# Out of bounds values : 0 OK\n"

    two = read_benchmark(run("all_reduce_perf", _nccl_row(1048576, 10.0, 18.0))
                         + run("all_gather_perf", _nccl_row(1048576, 12.0, 11.0)))
    assert two.invalid == ["the output holds several collectives (all_reduce_perf from line 1, all_gather_perf from "
                           "line 6): their busbw are different measures; run one collective per --benchmark"]
    ops = NCCL_HEAD + "".join(_nccl_row(size, 10.0, 18.0).replace(" sum ", f" {op} ")
                              for op in ("sum", "max") for size in (1048576, 2097152))
    result = read_benchmark(ops)
    assert result.invalid == ["rows of several data types or reduction ops (float sum at line 2, float max at line 4): "
                              "each is a measure of its own; run one type and one op (`-d float -o sum`)"]
    types = NCCL_HEAD + _nccl_row(1048576, 10.0, 18.0) + _nccl_row(1048576, 10.0, 18.0).replace("float", " half")
    assert "half sum at line 3" in read_benchmark(types).invalid[0]
    # logs before nccl-tests named its program (2021): all_reduce's `sum` rows and alltoall's blank redop
    assert "float sum at line" in read_benchmark(text("nccl/2021-all_reduce-alltoall-8x8V100-ib.txt")).invalid[0]
    same = read_benchmark(run("all_reduce_perf", _nccl_row(1048576, 10.0, 18.0))
                          + run("all_reduce_perf", _nccl_row(1048576, 9.0, 16.2)))
    assert same.valid and same.sizes[1048576].busbw_gbps == 16.2


def test_perftest_output_bandwidth_alone_says_what_to_change():
    """`ib_write_bw --output=bandwidth` prints its average alone (perftest_parameters.c print_report_bw: "%lf\n"),
    without a unit or a size: invalid as before, now with the option named (it read "nothing parseable" only)."""
    result = read_benchmark("11728.470000\n")
    assert not result.valid and result.sizes == {}
    assert result.invalid == ["nothing parseable: no nccl-tests table and no perftest result header; '11728.470000' "
                              "alone is how perftest's --output=bandwidth (or message_rate) prints its average, "
                              "without its unit or message size: run it without --output"]


# ib_write_lat -C -H's output as perftest writes it (write_lat.c: RESULT_LINE, RESULT_FMT_LAT; print_report_lat: the
# histogram `#, <units>` and `%d, %g` samples, the header again, REPORT_FMT_LAT), numbers of our own (cycles at ~3 GHz).
LAT_HEADER = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
              "99% percentile[usec]   99.9% percentile[usec] \n")
LAT_ROW = (" 1024    1000          8101.00        9950.00      8299.00  \t       8310.12     \t54.20\t\t8801.00 \t\t"
           "9900.00\n")


@pytest.mark.parametrize("units,valid", [("cycles", False), ("usec", True)])
def test_perftest_latency_in_cpu_cycles_is_refused(units, valid):
    """`ib_write_lat -C` prints CPU cycles under the same `t_typical[usec]` header; its sample list (-H, -U) says
    `#, cycles`. 8299 cycles were scored as 8299 us."""
    out = ("-" * 87 + "\n" + LAT_HEADER + "#, " + units + "\n1, 8101\n2, 8299\n3, 9950\n" + "-" * 87 + "\n"
           + LAT_HEADER + LAT_ROW)
    result = read_benchmark(out)
    assert result.valid is valid, result.invalid
    if not valid:
        assert result.invalid == ["line 3: perftest printed its latencies in 'cycles', under headers that say usec "
                                  "(ib_*_lat -C, --report-cycles): run it without -C"]
    assert result.sizes[1024].latency_us == 8299.0
    # a header naming another unit than usec is refused too, not read as microseconds
    other = read_benchmark(LAT_HEADER.replace("[usec]", "[nsec]") + LAT_ROW)
    assert other.invalid == ["perftest header's latency unit is 'nsec', not usec"]


@pytest.mark.parametrize("argv,refused", [
    (["ib_write_lat", "-C", "-s", "1024", "10.0.0.2"], True),
    (["srun", "-l", "-C", "gpu", "/usr/bin/ib_send_lat", "--report-cycles", "host2"], True),
    (["ib_write_lat", "-C", "-D", "10", "host2"], False),  # (duration mode reports microseconds whatever -C says)
    (["ib_read_lat", "-C", "--duration=5", "host2"], False),
    (["srun", "-C", "gpu", "ib_write_lat", "host2"], False),  # (srun's -C is its --constraint)
    (["ib_write_bw", "-C", "host2"], False),
    (["all_reduce_perf", "-b", "8", "-C", "1"], False),  # (nccl-tests' -C: report cputime)
    # perftest reads its options with getopt_long (perftest_parameters.c): short options bundle, an option that takes
    # an argument takes the word's rest, options follow the server name, `--` ends them, long names abbreviate
    (["ib_write_lat", "-aC", "host2"], True),
    (["ib_write_lat", "-Ca", "-F", "host2"], True),
    (["ib_write_lat", "host2", "-n", "5", "-FC"], True),
    (["ib_write_lat", "--report-cy", "host2"], True),
    (["ib_write_lat", "-sC", "host2"], False),  # (--size C)
    (["ib_write_lat", "-s", "-C", "host2"], False),  # (-C is -s's argument)
    (["ib_write_lat", "--", "host2", "-C"], False),
    (["ib_write_lat", "--report-c", "host2"], False),  # (report-cycles or report-counters: perftest refuses it)
    (["ib_write_lat", "-aCD5", "host2"], False),
    (["ib_write_lat", "-aC", "--dur=5", "host2"], False),
    # wrapped in a shell's -c command line, split and cut at `;`/`&&` as the shell does
    (["bash", "-c", "ib_write_lat -aC -s 1024 host2"], True),
    (["ssh", "h1", "sh", "-lc", "cd /tmp && taskset -c 3 ib_send_lat -F -C host2; echo done"], True),
    (["bash", "--login", "-o", "pipefail", "-xc", "ib_read_lat --report-cycles host2 | tee log"], True),
    (["bash", "-c", "ib_write_lat -a host2; echo -C"], False),
    (["bash", "run.sh", "-c", "ib_write_lat -C host2"], False),  # (a script's own arguments)
    (["bash", "-c", "ib_write_lat -C 'host2"], False),  # (the shell refuses the quote: nothing runs)
    # ssh runs the words after its destination, joined by blanks, in the remote user's shell (ssh.c's getopt reads
    # its options, also after the destination)
    (["ssh", "h1", "ib_write_lat -C host2"], True),
    (["ssh", "-p", "2222", "-o", "BatchMode=yes", "root@h1", "cd /tmp && ib_send_lat -aC host2"], True),
    (["ssh", "-tt", "h1", "-p22", "--", "ib_read_lat --report-cycles host2 | tee log"], True),
    (["ssh", "h1", "ib_write_lat -C -D 5 host2"], False),
    (["ssh", "-l", "ib_write_lat", "h1", "uname -C"], False),  # (-l's login name, not a command)
])
def test_a_latency_benchmark_asked_for_cpu_cycles_is_refused_before_any_trial(argv, refused):
    """`--benchmark "ib_write_lat -C ..."` without -H/-U prints cycles under `[usec]` headers and no word of cycles:
    each trial's latency was cycles read as microseconds. The command line says so before anything is pushed."""
    why = cycles_option(argv)
    assert (why is not None) is refused, why
    if refused:
        assert "CPU cycles" in why and "run it without" in why, why


def test_a_bundled_cycles_option_is_named_with_the_word_that_gave_it():
    assert cycles_option(["ib_write_lat", "-aC", "h"]).endswith("run it without -C (written -aC)")


def test_tune_refuses_a_cycles_latency_benchmark_as_a_usage_error(tmp_path):
    res = losslessd("tune", "--benchmark", "ib_write_lat -C -s 1024 host2", "--inventory", "inv.yaml", cwd=tmp_path)
    message = " ".join(res.stderr.replace("│", " ").split())
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert ("--benchmark: ib_write_lat -C prints CPU cycles under its t_typical[usec] header, which the tuner would "
            "score as microseconds: run it without -C") in message, message


@pytest.mark.parametrize("damage", [
    lambda row: row.replace("100.00", "100,00"),  # a number in a locale with a decimal comma
    lambda row: row[:40],  # the line cut short (a log copied while written, a job killed)
    lambda row: row.replace(" 0   ", " O   ", 1),  # a letter for a digit
])
def test_a_row_of_the_table_that_cannot_be_read_is_a_note_not_a_silent_gap(damage):
    """Session 42 (round 22): a row under the table header whose numbers were no numbers was skipped without a word,
    as a library's own number-led line is; a tune without --sizes then scored that output's mean over fewer sizes."""
    rows = [_nccl_row(1048576, 10.0, 15.0), _nccl_row(2097152, 20.0, 30.0)]
    result = read_benchmark(NTHREAD + NCCL_HEAD + rows[0] + damage(rows[1]))
    assert sorted(result.sizes) == [1048576]
    assert any(n.startswith("line 4: a row of the table that cannot be read") for n in result.notes), result.notes


def test_a_row_whose_busbw_is_nan_inf_or_negative_is_named():
    # (both halves: an out-of-place nan beside an in-place number keeps the size, session 43 part e)
    rows = [_nccl_row(1048576, 10.0, 15.0), _nccl_row(2097152, 20.0, 30.0).replace(" 30.00", "   nan")]
    result = read_benchmark(NTHREAD + NCCL_HEAD + "".join(rows))
    assert sorted(result.sizes) == [1048576]
    assert "line 4: no busbw read at 2097152 B (nan, inf or negative): the size is left out" in result.notes


def test_a_perftest_row_that_cannot_be_read_is_a_note():
    result = read_benchmark(PERF_HEAD + " 65536      1000             0.00               91,50	   0.174528\n"
                            " 131072     1000             0.00               92.00	   0.087739\n")
    assert sorted(result.sizes) == [131072]
    assert any(n.startswith("line 2: a row that cannot be read") for n in result.notes), result.notes


def test_a_number_led_line_of_a_library_is_still_no_row():
    text = NTHREAD + NCCL_HEAD + _nccl_row(1048576, 10.0, 15.0) + "12 of 16 ranks connected\n"
    assert read_benchmark(text).notes == []
