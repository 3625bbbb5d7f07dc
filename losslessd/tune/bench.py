"""Readers for the benchmarks operators trust: nccl-tests (text of every published layout, and `-J` JSON)
and perftest (ib_write_bw, ib_send_bw, ib_send_lat and their relatives). Pure functions: text in, results
out; they never raise on bad content, they say what is wrong with it.

nccl-tests layouts (src/common.cu before 2.18, src/util.cu after; NVIDIA/nccl-tests):
- columns are found by name from the table header, never by position: before mid-2020 there is no
  redop and no root column, 2021 has redop without root, later both; `error` (a float, the largest
  deviation) came before `#wrong` (a count of wrong elements, or `N/A` when not validated); `-I 1`
  adds i_min i_max i_p99 i_cv% to each half, `-S 1` a timestamp, `-C 1` renames time to cputime;
- numbers switch from %.2f to %.1f, %.0f and %.1e as they widen (util.cu getFloatStr);
- the `#` of header and footer lines may be lost (pasted into markdown), lines may carry MPI tags
  (`[0]`, `[1,0]<stdout>:`) anywhere a write began and a launcher's or logger's prefix (`srun -l`, `ts`,
  `mpirun --timestamp-output`, pdsh) before it, and NCCL INFO lines interleave with the table;
- several runs can share one log: each `# nccl-tests version`, `# Collective test starting` or
  `# nThread` line after a table starts the next run, and so does one after an attempt that stopped before its
  table (device lines, an `NCCL WARN`, no table header): the job launched again, the last attempt is scored.
A run is a failed run when `Out of bounds values` says FAILED or any printed `#wrong` is above 0: its
bandwidth does not count. The old `error` column is kept but not judged here: nccl-tests compares it with
a tolerance per data type that the text does not show, and reports the verdict as the out-of-bounds count.
`Avg bus bandwidth` is the mean over every printed size and both halves (common.cu), so tuning never uses
it: results are read per size, at the sizes the operator names.

Bandwidths are GB/s of 1e9 bytes, as nccl-tests prints them. perftest's MiB/sec (labelled MB/sec before
release 24.07, commit 1d202bb; the same 2^20-byte unit) and Gb/sec are converted to that unit.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import field

from ..lazyre import lazy
from ..records import record

# Each MPI rank tag open-mpi's --tag-output (`[1,0]<stdout>:`) or a launcher's plain `[0]` puts where a
# write began; a bus id (`[0x0a]`, `[000f:01:00]`) is not one.
_MPI_TAG = lazy(r"\[\d+(?:,\d+)?\](?:<std(?:out|err)>:?)?", re.ASCII)
# What a launcher or a logger writes before each line of the benchmark's output, one or several in a row, each ended by
# a blank (MPI tags are taken out first, so Open MPI's timestamp is followed by one):
# - Slurm `srun --label` (srun(1): "Prepend task number to lines of stdout/err"): `0: `, padded (` 0: `) past 9 tasks;
# - moreutils `ts` (ts(1): the default format "%b %d %H:%M:%S", `-s`/`-i` "%H:%M:%S", `%.S` adds fractions);
# - an ISO 8601 date and time, bracketed or not (`ts '[%Y-%m-%d %H:%M:%S]'`, `kubectl logs --timestamps` and
#   `docker logs -t`: RFC 3339 with nanoseconds and `Z`), and in a kubelet's own log files the stream and tag after
#   that time (the CRI container log format, "<time> stdout F <line>");
# - Open MPI `--timestamp-output` (orte/mca/iof/base/iof_base_output.c: ctime() without its newline, then the
#   `[job,rank]<stdout>:` tag, or `<stdout>:` alone without --tag-output);
# - pdsh and clush (pdsh(1): each line "prefixed with the hostname"): `node17: `, taken only before what nccl-tests or
#   perftest start a line with (a blank, `#`, a digit), so a `#`-less `error: ...` line keeps its word.
# Before session 41 every such line was "nothing parseable": a tune run through `srun -l` had no valid trial.
_CTIME = r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}"  # C's ctime(): "Sat Dec  5 06:14:09 2026"
_LAUNCH_PREFIX = lazy(
    r"^(?:\s*(?:(?:\d{1,7}:"
    r"|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d+)?"
    r"|\d{2}:\d{2}:\d{2}(?:\.\d+)?"
    r"|\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?"
    r"|(?:stdout|stderr) [FP]"
    r"|(?!error:)[A-Za-z0-9][\w.-]*:(?=\s+[#\d\s])"
    rf"|{_CTIME})(?=\s)|{_CTIME}<std(?:out|err)>:))+",
    re.ASCII)
# A kubelet's container log file (the CRI log format; kubernetes/kubernetes pkg/kubelet/kuberuntime/logs/logs.go
# parseCRILog): `<RFC 3339 time> <stdout|stderr> <tag>[:<more tags>] <content>`, tag `F` a full line and `P` a part the
# runtime split (a line past its buffer), whose newline ReadLogs drops, so that the part runs into the next entry
# written to the same stream.
_RFC3339_BLANK = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}) "  # (either log's time)
_CRI = lazy(_RFC3339_BLANK + r"(stdout|stderr) ([^ :]*)(?::[^ ]*)? ", re.ASCII)
# `kubectl logs --timestamps` (pkg/kubelet/kuberuntime/logs/logs.go logWriter.write, as session 42 part h read it) puts
# each entry's RFC 3339 time (time.RFC3339Nano: trailing zeros and an all-zero fraction dropped) and a blank before
# its content, the parts of a split line included: the later parts' times stand inside the joined line.
_KUBECTL_TIME = lazy(_RFC3339_BLANK, re.ASCII)
_VERSION = lazy(r"nccl-tests version\s+(\S+)")
_STARTING = lazy(r"Collective test starting:\s*(\S+)")
_NTHREAD = lazy(r"^nThread\s+\d+")
_RANK = lazy(r"^Rank\s+(\d{1,19})\b", re.ASCII)
# The host of a device line (`#  Rank %2d Group %2d Pid %6d on %10s device %2d [...] %s`; very old builds: no Group)
_RANK_HOST = lazy(r"\bon\s+(\S+)\s+device\b")
_RANK_PID = lazy(r"\bPid\s+(\d{1,10})\b", re.ASCII)
# The process an NCCL INFO/WARN line comes from: NCCL src/debug.cc ncclDebugLog writes `HOST:PID:TID [DEV] ...`.
_NCCL_PID = lazy(r"^([^\s:]+):(\d{1,10}):\d{1,10}\s", re.ASCII)  # (the `[DEV]` is gone: _clean takes it as a tag)
_OOB = lazy(r"^Out of bounds values\s*:\s*(\d{1,19})\s*(OK|FAILED)?", re.IGNORECASE | re.ASCII)
_AVG = lazy(r"^Avg bus bandwidth\s*:\s*(\S+)")
_ERROR = lazy(r"^error:\s*(.+)")
_TIMESTAMP = lazy(r"\s+(\d{4}-\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2})\s*$", re.ASCII)
# A whole number as nccl-tests and perftest print them: %li / %lu / %d, at most 19 digits (a 64-bit long on
# LP64 Linux, 9223372036854775807). More digits are no printed number (and int() refuses above 4,300: ValueError).
_INT = lazy(r"^-?\d{1,19}$", re.ASCII)  # (\d: ASCII digits, as every pattern here)

# busbw = algbw x factor(n ranks), per collective (nccl-tests doc/PERFORMANCE.md and src/*.cu GetBw).
BUSBW_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
}
# How far a printed busbw may be from algbw x factor: both are rounded to two decimals (getFloatStr).
_BUSBW_SLACK = 0.011
MIB = 2**20
GBIT = 125_000_000  # bytes per second in one Gb/s (perftest --report_gbits: bytes / 125,000,000)


@record(frozen=True)
class Half:
    """One half of an nccl-tests row: out-of-place or in-place."""

    time_us: float | None
    algbw_gbps: float | None  # GB/s, 1e9 bytes/s
    busbw_gbps: float | None
    wrong: float | None = None  # #wrong: elements that failed validation; None: N/A or not printed
    error: float | None = None  # the pre-2021 `error` column: largest deviation seen
    extra: dict[str, float] = field(default_factory=dict)  # -I 1: i_min, i_max, i_p99 (us), i_cv% (%)


@record(frozen=True)
class NcclRow:
    size_bytes: int
    count: int
    type: str
    redop: str | None
    root: int | None
    out_of_place: Half | None  # None: not printed (trace replay prints in-place only)
    in_place: Half | None  # None: not printed, or the line was cut short
    line: int  # 1-based line of the input
    timestamp: str | None = None


@record
class NcclRun:
    """One nccl-tests invocation of a log."""

    collective: str | None = None  # `all_reduce_perf` from `# Collective test starting:`
    version: str | None = None  # `2.20.0` from `# nccl-tests version`
    ranks: int | None = None  # number of `Rank N` device lines
    repeated_rank: tuple[int, int] | None = None  # (rank, times): one rank's line printed by several processes
    stopped: str | None = None  # the first `NCCL WARN` line of a run that printed its table header but no row
    warned: str | None = None  # the first `NCCL WARN` line after its device lines, before any table header
    hosts: dict[int, str] = field(default_factory=dict)  # rank -> the host its device line names
    relaunch: str | None = None  # why an attempt before this one, stopped before its table, is not scored
    pids: set[str] = field(default_factory=set)  # `HOST:PID` of the processes its device lines name
    columns: list[str] = field(default_factory=list)  # the table header, as read
    rows: list[NcclRow] = field(default_factory=list)
    oob_values: int | None = None
    oob_ok: bool | None = None
    avg_busbw_gbps: float | None = None
    errors: list[str] = field(default_factory=list)  # `# error:` lines
    notes: list[str] = field(default_factory=list)  # what the reader noticed but did not judge
    first_line: int = 1

    def failures(self) -> list[str]:
        """Why this run's bandwidth must not count (empty: it may)."""
        out = []
        if self.oob_ok is False or (self.oob_values or 0) > 0:
            out.append(f"nccl-tests reports {self.oob_values} out-of-bounds values (FAILED)")
        for row in self.rows:
            for name, half in (("out-of-place", row.out_of_place), ("in-place", row.in_place)):
                if half is not None and half.wrong is not None and half.wrong > 0:
                    out.append(f"#wrong {half.wrong:g} at {row.size_bytes} B {name} (line {row.line})")
        out += [f"nccl-tests error: {e}" for e in self.errors]
        if self.repeated_rank:
            rank, times = self.repeated_rank
            out.append(f"rank {rank}'s device line is printed {times} times: {times} processes each ran a test of "
                       "their own (nccl-tests not built with MPI=1 runs every mpirun process alone), so its busbw is "
                       "each host's alone, not the fabric's; rebuild nccl-tests with `make MPI=1`")
        elif self.rows and _one_rank(self.rows):
            out.append("busbw is 0 at every size whose algbw is not: the run had one rank (busbw = algbw x (n-1)/n "
                       "or 2(n-1)/n), so nothing crossed the network; run one rank per GPU across the hosts")
        if not self.rows:
            out.append("no result rows" + (f" after the table header; the run stopped: {self.stopped}"
                                           if self.stopped else
                                           f" nor table header; the run stopped in NCCL's setup: {self.warned}"
                                           if _stopped_attempt(self) else ""))
        return out


def _one_rank(rows: list[NcclRow]) -> bool:
    """True when some half has an algbw above 0 and every busbw is 0: the busbw factor of one rank (nccl-tests
    doc/PERFORMANCE.md: all_reduce 2(n-1)/n, all_gather / reduce_scatter / alltoall (n-1)/n)."""
    pairs = [(h.algbw_gbps, h.busbw_gbps) for row in rows for h in (row.out_of_place, row.in_place)
             if h is not None and h.algbw_gbps is not None and h.busbw_gbps is not None]
    return any(algbw > 0 for algbw, _ in pairs) and all(busbw == 0 for _, busbw in pairs)


@record(frozen=True)
class PerftestRow:
    size_bytes: int
    iterations: int
    line: int
    bw_peak_gbps: float | None = None  # GB/s (1e9 B/s); None: not measured (perftest prints 0.00)
    bw_avg_gbps: float | None = None
    msg_rate_mpps: float | None = None
    latency_us: dict[str, float] = field(default_factory=dict)  # t_min, t_max, t_typical (median), t_avg, ...


@record
class PerftestRun:
    test: str | None = None  # "RDMA_Write BW Test", from the banner
    kind: str = "bw"  # "bw" or "lat"
    unit: str | None = None  # the unit the header printed: MiB/sec, MB/sec, Gb/sec; a latency test's: usec
    samples: tuple[int, str] | None = None  # the line and unit of a `#, <unit>` sample list (-U, -H)
    columns: list[str] = field(default_factory=list)
    rows: list[PerftestRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def failures(self) -> list[str]:
        return [] if self.rows else ["no result rows"]


# -- nccl-tests text ----------------------------------------------------------------------------------
def _untag(line: str) -> str:
    """A line without MPI tags and without what a launcher or logger wrote before it (``_LAUNCH_PREFIX``)."""
    return _LAUNCH_PREFIX.sub("", _MPI_TAG.sub(" ", line))


def _cri_joined(text: str) -> str:
    """``text`` with the entries of a CRI container log file (``_CRI``) read as the kubelet reads them: each entry's
    content, a `P` part joined with the next entry of its stream. A joined line stands where its first part did and
    the parts after it leave blank lines, so lines keep the numbers the file gives them; other lines are left as
    they are."""
    lines = text.split("\n")
    parts: dict[int, list[str]] = {}  # the line an entry began on -> its parts (joined once: no quadratic copying)
    open_at: dict[str, int] = {}  # stream -> the line its unfinished (P) entry began on
    for n, line in enumerate(lines):
        m = _CRI.match(line)
        if m is None:
            continue
        stream, content = m.group(1), line[m.end():]
        parts.setdefault(open_at.get(stream, n), []).append(content)
        lines[n] = ""
        if m.group(2) == "P":
            open_at.setdefault(stream, n)
        else:
            open_at.pop(stream, None)
    for n, joined in parts.items():
        lines[n] = "".join(joined)
    return "\n".join(lines)


def _kubectl_joined(text: str) -> str:
    """``text`` with the times `kubectl logs --timestamps` put before the later parts of a line the runtime split
    (``_KUBECTL_TIME``) taken out of each line it starts with such a time: the line is what the program wrote."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        m = _KUBECTL_TIME.match(line)
        if m is not None and _KUBECTL_TIME.search(line, m.end()):
            lines[n] = line[:m.end()] + _KUBECTL_TIME.sub("", line[m.end():])
    return "\n".join(lines)


def _clean(line: str) -> str:
    """A line without MPI tags, launcher prefixes, surrounding blanks and its leading `#` (which a paste may have
    lost)."""
    text = _untag(line).strip()
    return text[1:].strip() if text.startswith("#") else text


def _float(text: str) -> float:
    """float(), for numbers written in ASCII digits only: float() also reads other scripts' digits (an Arabic-Indic
    three is 3.0), which no benchmark prints; ValueError for them, as for any other text."""
    if not text.isascii():
        raise ValueError(f"{text[:40]!r} is not a number in ASCII digits")
    return float(text)


def _number(token: str) -> float | None:
    """A printed number (%.2f, %.1f, %.0f, %.1e, %g); None for N/A and for what is not finite or is negative."""
    if token.upper() == "N/A":
        return None
    value = _float(token)
    # nan, inf, 1e999: no measurement (a busbw of inf would win every comparison); nor is a negative time, bandwidth
    # or count (getFloatStr prints elapsed time and bytes over it): a busbw of -1 was kept as the size's (lower) one
    if not math.isfinite(value) or value < 0:
        return None
    return value


def _whole(value) -> int:
    """A size or count as nccl-tests and perftest print it (%lu): a whole number; ValueError for anything else (inf,
    nan, 1e999, 2.5, text), which int(float(...)) let through or raised OverflowError on."""
    number = _float(str(value).strip())
    if not number.is_integer():
        raise ValueError(f"{str(value)[:40]!r} is not a whole number")
    return int(number)


def _is_header(words: list[str]) -> bool:
    return len(words) >= 3 and words[0] == "size" and words[1] == "count" and words[2] == "type"


@record(frozen=True)
class _Layout:
    """Where the columns of a data row are, from a table header."""

    lead: tuple[str, ...]  # size, count, type[, redop][, root]
    half: tuple[str, ...]  # time|cputime, algbw, busbw, #wrong|error[, i_min, i_max, i_p99, i_cv%]
    halves: int
    timestamp: bool

    @classmethod
    def from_header(cls, words: list[str]) -> _Layout | None:
        try:
            start = next(i for i, w in enumerate(words) if w in ("time", "cputime"))
        except StopIteration:
            return None
        lead = tuple(words[:start])
        rest = [w for w in words[start:] if w != "timestamp"]
        try:
            second = rest.index(rest[0], 1)
        except ValueError:
            second = len(rest)
        half = tuple(rest[:second])
        halves = 2 if second < len(rest) else 1
        if tuple(rest[second:]) not in ((), half) or not {"algbw", "busbw"} <= set(half):
            return None
        return cls(lead, half, halves, "timestamp" in words[start:])


# What each generation prints when a log has no header left (cut before the table, or pasted without it).
_DEFAULT_LAYOUTS = [
    _Layout(("size", "count", "type", "redop", "root"), ("time", "algbw", "busbw", "#wrong"), 2, False),
    _Layout(("size", "count", "type", "redop"), ("time", "algbw", "busbw", "error"), 2, False),
    _Layout(("size", "count", "type"), ("time", "algbw", "busbw", "error"), 2, False),
]


def _row(text: str, layout: _Layout, line: int, whole: bool = False) -> NcclRow | None:
    """One data row, or None when ``text`` is not one for this layout. ``whole``: every column must be
    there (a layout assumed without a header); else a row cut short keeps its complete halves."""
    timestamp = None
    if layout.timestamp and (m := _TIMESTAMP.search(text)):
        timestamp, text = m.group(1), text[:m.start()]
    words = text.split()
    if len(words) < 3 or not _INT.match(words[0]) or not _INT.match(words[1]) or _is_number_like(words[2]):
        return None
    size, count, dtype = int(words[0]), int(words[1]), words[2]
    rest = words[3:]
    redop = root = None
    if "redop" in layout.lead:
        # The redop column is blank for alltoall in 2021 builds: take it only when it is a word.
        if rest and not _is_number_like(rest[0]):
            redop = rest.pop(0)
    if "root" in layout.lead:
        if not rest or not _INT.match(rest[0]):
            return None
        root = int(rest.pop(0))
    width = len(layout.half)
    try:
        values = [_number(w) for w in rest]
    except ValueError:
        return None
    full = width * layout.halves
    if len(values) > full or len(values) < width or (whole and len(values) != full):
        return None
    parsed = [_half(layout.half, values[i:i + width]) for i in range(0, len(values) - width + 1, width)]
    if len(parsed) == 1 and layout.halves == 2 and len(values) == width and _blank_oop(text):
        return NcclRow(size, count, dtype, redop, root, None, parsed[0], line, timestamp)
    return NcclRow(size, count, dtype, redop, root, parsed[0], parsed[1] if len(parsed) > 1 else None, line, timestamp)


def _damaged_row(words: list[str]) -> bool:
    """A line under a table header that starts as its rows do (a size and a count in digits, then a type word) but
    is not one: a number printed in another locale (`0,23`), cut short, or changed. A library's own number-led line
    (NCCL's `HOST:PID:TID`, a progress count) does not start so."""
    return (len(words) >= 3 and bool(_INT.match(words[1]))
            and words[2].isascii() and words[2].isidentifier())


def _blank_oop(text: str) -> bool:
    """Trace replay leaves the out-of-place half blank (util.cu writeBenchMarkLineNullBody): a wide gap."""
    return bool(re.search(r"\S\s{34,}\S", text))


def _is_number_like(word: str) -> bool:
    try:
        _number(word)
        return True
    except ValueError:
        return False


def _half(names: tuple[str, ...], values: list[float | None]) -> Half:
    got = dict(zip(names, values))
    time = got.get("time", got.get("cputime"))
    extra = {k: v for k, v in got.items() if k.startswith("i_") and v is not None}
    return Half(time_us=time, algbw_gbps=got.get("algbw"), busbw_gbps=got.get("busbw"),
                wrong=got.get("#wrong"), error=got.get("error"), extra=extra)


def parse_nccl_tests(text: str) -> list[NcclRun]:
    """Every nccl-tests run in ``text`` (a log may hold several), with rows read per column name."""
    runs: list[NcclRun] = []
    run: NcclRun | None = None
    layout: _Layout | None = None
    rank_ids: dict[int, int] = {}  # rank -> how many device lines name it
    before: NcclRun | None = None  # the attempt that stopped before its table, which the current run launched again

    def current(lineno: int, fresh: bool, launch: bool = False) -> NcclRun:
        """The run a header line belongs to: a new one when the current run already has a table, or, at a line
        that opens a launch (``launch``: version, test name, nThread), stopped before its table (an attempt whose
        device lines an NCCL WARN followed: the job was launched again)."""
        nonlocal run, layout, rank_ids, before
        relaunched = launch and run is not None and _stopped_attempt(run)
        if run is None or relaunched or (fresh and (run.rows or run.oob_values is not None)):
            before = run if relaunched else None
            run = NcclRun(first_line=lineno)
            if before is not None:
                run.relaunch = (f"line {lineno}: a new attempt; the one from line {before.first_line} stopped before "
                                f"its table ({before.warned}) and is not scored")
            runs.append(run)
            layout, rank_ids = None, {}
        return run

    for lineno, raw in enumerate(text.splitlines(), 1):
        body = _clean(raw)
        if not body:
            continue
        words = body.split()
        if m := _VERSION.search(body):
            current(lineno, True, launch=True).version = m.group(1)
        elif m := _STARTING.search(body):
            current(lineno, True, launch=True).collective = m.group(1)
        elif _NTHREAD.match(body):
            current(lineno, True, launch=True)
        elif m := _RANK.match(body):
            r = current(lineno, False)
            rank = int(m.group(1))
            rank_ids[rank] = rank_ids.get(rank, 0) + 1
            r.ranks = len(rank_ids)
            if rank_ids[rank] > 1 and not r.columns:  # (a log that prints its device lines again after the table
                r.repeated_rank = (rank, rank_ids[rank])  # is not this: only lines before the header count)
            if host := _RANK_HOST.search(body):
                r.hosts.setdefault(rank, host.group(1))
                if pid := _RANK_PID.search(body):
                    r.pids.add(f"{host.group(1)}:{pid.group(1)}")
                # A job launched again names its ranks on the same hosts: one rank on another host than in the
                # attempt before is a second process's own test (no MPI=1), whatever warned between them.
                if before is not None and before.hosts.get(rank, host.group(1)) != host.group(1):
                    r.repeated_rank, r.relaunch = r.repeated_rank or (rank, 2), None
        elif _is_header(words):
            if run is not None and run.relaunch and run.columns:  # (a second table in one launch: the attempt
                _alive(run, before)                                # before printed its own)
            r = current(lineno, True)
            layout = _Layout.from_header(words)
            r.columns = words
            if layout is None:
                r.notes.append(f"line {lineno}: table header not understood: {body[:120]!r}")
        elif m := _OOB.match(body):
            r = current(lineno, False)
            r.oob_values = int(m.group(1))
            r.oob_ok = None if m.group(2) is None else m.group(2).upper() == "OK"
        elif m := _AVG.match(body):
            try:
                current(lineno, False).avg_busbw_gbps = _float(m.group(1))
            except ValueError:
                current(lineno, False).notes.append(f"line {lineno}: Avg bus bandwidth {m.group(1)!r} is not a number")
        elif m := _ERROR.match(body):
            current(lineno, False).errors.append(m.group(1).strip())
        # (a process of the attempt before, not of this one: a retry in a fresh container may get its pid)
        elif before is not None and run is not None and "NCCL WARN" not in body and (who := _NCCL_PID.match(body)) and (
                proc := f"{who[1]}:{who[2]}") in before.pids and proc not in run.pids:
            _alive(run, before)  # the attempt taken for stopped goes on
        elif "NCCL WARN" in body and run is not None and run.columns and not run.rows and run.stopped is None:
            run.stopped = f"line {lineno}: {raw.strip()[:160]}"
        elif "NCCL WARN" in body and run is not None and run.ranks and not run.columns and run.warned is None:
            run.warned = f"line {lineno}: {raw.strip()[:160]}"
        elif words and _INT.match(words[0]):
            if layout is not None:
                row = _row(body, layout, lineno)
            else:
                row = next((r for lay in _DEFAULT_LAYOUTS if (r := _row(body, lay, lineno, whole=True))), None)
            if row is None:
                if layout is not None and _damaged_row(words):
                    current(lineno, False).notes.append(
                        f"line {lineno}: a row of the table that cannot be read ({body[:80]!r}): skipped")
                continue  # a number-led line that is no row of this table (a library's own output)
            kept = layout
            r = current(lineno, run is not None and run.oob_values is not None)  # rows after a footer: next run
            layout = kept
            if layout is None and not r.columns and not r.rows:  # (once a run: it was said at each of 11 rows)
                r.notes.append(f"line {lineno}: no table header before the rows; columns assumed by their count")
            if row.in_place is None and row.out_of_place is not None and (layout is None or layout.halves == 2):
                r.notes.append(f"line {lineno}: the in-place half of {row.size_bytes} B is missing (line cut short)")
            r.rows.append(row)
    for r in runs:
        _check_busbw(r)
        if r.relaunch:
            r.notes.insert(0, r.relaunch)
    read = [r for r in runs if r.rows or r.oob_values is not None or r.errors]
    # a table header alone: the run stopped before its first row; else an attempt alone that stopped in NCCL's setup
    return read or [r for r in runs if r.columns] or [r for r in runs if _stopped_attempt(r)]


def _alive(run: NcclRun, before: NcclRun | None) -> None:
    """``run`` is no relaunch of ``before``: both are processes of one launch, each its own test (a rank of both is
    printed twice)."""
    if run.relaunch is None or before is None:
        return
    ranks = sorted(set(before.hosts) & set(run.hosts)) or sorted(run.hosts) or [0]
    run.repeated_rank, run.relaunch = run.repeated_rank or (ranks[0], 2), None


def _stopped_attempt(run: NcclRun) -> bool:
    """Device lines, then an NCCL WARN, and no table header: the attempt stopped in NCCL's setup (a header line
    after it is the job launched again, not a second process of the same launch)."""
    return bool(run.ranks) and run.warned is not None and not run.columns and not run.rows


def _check_busbw(run: NcclRun) -> None:
    """busbw should be algbw x the collective's factor: a mismatch means misread columns or the pre-2020
    all_gather/reduce_scatter semantics (algbw already folded (n-1)/n, nccl-tests#45). A note, not a verdict."""
    name = (run.collective or "").removesuffix("_perf")
    factor = BUSBW_FACTOR.get(name)
    if factor is None or not run.ranks or run.ranks < 2:
        return  # one rank: busbw is 0 by definition; fewer rank lines than ranks: an excerpt
    f = factor(run.ranks)
    for row in run.rows:
        for half in (row.out_of_place, row.in_place):
            if half is None or half.algbw_gbps is None or half.busbw_gbps is None:
                continue
            expected = half.algbw_gbps * f
            if abs(expected - half.busbw_gbps) > _BUSBW_SLACK * max(1.0, f) + 1e-6 * expected:
                run.notes.append(f"line {row.line}: busbw {half.busbw_gbps:g} is not algbw {half.algbw_gbps:g} x "
                                 f"{f:.4g} ({name}, {run.ranks} ranks)")
                return


def parse_nccl_tests_json(text: str) -> NcclRun:
    """The `-J file.json` report (util.cu, JSON_FILE_VERSION 3): results, out_of_bounds, average_bus_bandwidth.
    Its `env` list (the environment of the run, secrets included) is never read."""
    from ..docpos import json_value  # (here: `tune --help` reads no benchmark, and docpos brings PyYAML)

    try:
        doc = json_value(text)
    except ValueError as exc:
        return NcclRun(errors=[f"not JSON: {exc}"])
    run = NcclRun()
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        run.errors.append("not an nccl-tests JSON report (no `results` list)")
        return run
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    devices = config.get("devices") if isinstance(config.get("devices"), list) else []
    run.ranks = len(devices) or None
    args = doc.get("args") if isinstance(doc.get("args"), list) else []
    if args and isinstance(args[0], str):
        run.collective = args[0].rsplit("/", 1)[-1]
    for i, item in enumerate(doc["results"], 1):
        if not isinstance(item, dict):
            run.notes.append(f"results[{i - 1}] is not an object")
            continue
        try:
            root = _json_num(item.get("root"))
            row = NcclRow(size_bytes=_whole(item["size"]), count=_whole(item["count"]), type=str(item.get("type")),
                          redop=item.get("redop"), root=_whole(root) if root is not None else None,
                          out_of_place=_json_half(item.get("out_of_place")),
                          in_place=_json_half(item.get("in_place")), line=i)
        except (KeyError, TypeError, ValueError) as exc:
            run.notes.append(f"results[{i - 1}] not understood: {exc}")
            continue
        run.rows.append(row)
    oob = doc.get("out_of_bounds")
    if isinstance(oob, dict):
        try:
            run.oob_values = _whole(oob.get("count", 0))
        except ValueError as exc:
            run.errors.append(f"out_of_bounds count not understood: {exc}")
        run.oob_ok = str(oob.get("okay")).lower() == "true"  # util.cu writes booleans as strings
    avg = doc.get("average_bus_bandwidth")
    if isinstance(avg, dict):
        run.avg_busbw_gbps = _json_num(avg.get("bandwidth"))
    errors = doc.get("errors")
    if isinstance(errors, list):
        run.errors += [str(e) for e in errors if e]
    _check_busbw(run)
    return run


def _json_num(value) -> float | None:
    if value is None:
        return None
    try:
        number = _float(str(value).strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _json_half(obj) -> Half | None:
    if not isinstance(obj, dict):
        return None
    return Half(time_us=_measured(obj.get("time", obj.get("cpu_time"))), algbw_gbps=_measured(obj.get("alg_bw")),
                busbw_gbps=_measured(obj.get("bus_bw")), wrong=_measured(obj.get("nwrong")))


def _measured(value) -> float | None:
    """A time, bandwidth or count of a result: finite and not negative (as _number reads them in text)."""
    number = _json_num(value)
    return None if number is None or number < 0 else number


# -- perftest -----------------------------------------------------------------------------------------
_PERF_HEADER = lazy(r"^\s*#bytes\b")
# A column name: #bytes, "tps average", or words and a unit ("BW peak[MB/sec]"). A run of words is taken whole,
# unit or not, and those without one dropped after: a pattern that backtracks to find a unit after each word
# took seconds on a few KB of words in a header line (quadratic), minutes on a long one. The unit is optional, so
# the greedy run matches at its first try (nothing to backtrack for), and the lookbehind starts runs at a word's
# start only; no possessive quantifiers, which Python 3.10 (requires-python) refuses ("multiple repeat").
_PERF_COLUMN = lazy(r"#\w+|tps average|(?<![\w.%])[\w.%]+(?: [\w.%]+)*(?:\[[^\]]+\])?")
_PERF_TITLE = lazy(r"^\s*(.+?(?:BW|Lat(?:ency)?) Test)\s*$", re.IGNORECASE)
_BW_UNIT = lazy(r"BW average\[([^\]]+)\]")
_LAT_UNIT = lazy(r"t_(?:typical|avg)\[([^\]]+)\]")
# ib_*_lat -C (--report-cycles) prints CPU cycles under RESULT_FMT_LAT's `[usec]` header all the same; only its sample
# lists (-U, -H) say so, `printf("#, %s\n", units)` with units "cycles" (perftest_parameters.c print_report_lat).
_SAMPLES = lazy(r"^\s*#,\s*(\S+)\s*$")
# perftest --output=bandwidth / message_rate (perftest_parameters.c print_report_bw: `printf("%lf\n", bw_avg)`, the
# message rate alike): the average alone, in MiB/s or, with --report_gbits, Gb/s; nothing says which, nor the size.
_BARE = lazy(r"\d{1,19}\.\d{6}", re.ASCII)


# perftest's latency tests (ib_read_lat, ib_write_lat, ib_send_lat, ib_atomic_lat, raw_ethernet_lat).
_PERF_LAT_BIN = lazy(r"(?:ib_\w+|raw_ethernet)_lat")
# How perftest reads its command line (linux-rdma/perftest 00b55b66, perftest_parameters.c parser): GNU getopt_long
# with this option string, so short options bundle (`-aC` is -a -C; `-sC` is --size C) and take their argument from
# the word's rest or the next word, options and the server name mix in any order, and `--` ends the options; and with
# these long options that take an argument (has_arg 1), each also `--name=value`; a long option may be abbreviated to
# a prefix no other long option shares (getopt_long). 'C' is report-cycles, 'D' duration (print_report_lat_duration
# reports microseconds whatever -C says).
_PERF_SHORT = "w:y:p:d:i:m:s:n:t:u:S:x:c:q:I:o:M:r:Q:A:l:D:f:B:T:L:E:J:j:K:k:X:W:aFegzRvhbNVCHUOZP"
_PERF_LONG_ARG = frozenset((
    "MGID", "aes_block_size", "atomic_type", "bind_source_ip", "burst_size", "congest_type", "connection", "cpu_id",
    "cq-mod", "cqe_poll", "credentials_path", "cuda_mem_type", "data_enc_key_app_path", "data_enc_keys_number",
    "dest_ip", "dest_mac", "dest_port", "dlid", "duration", "ethertype", "flow_label", "flows", "flows_burst",
    "force-link", "gid-index", "gpu_touch", "hop_limit", "ib-dev", "ib-port", "inline_size", "iters", "kek_path",
    "latency_gap", "limit_bw", "limit_msgrate", "local_ip", "local_mac", "local_port", "log_active_dci_streams",
    "log_dci_streams", "margin", "mmap", "mmap-offset", "mtu", "numa_node", "opencl_platform_id", "out_json_file",
    "output", "outs", "payload_file_path", "ph", "pin_cores", "pkey_index", "port", "post_list", "qp", "qp-timeout",
    "rate_limit", "rate_limit_type", "rate_units", "recv_post_list", "remote_ip", "remote_mac", "remote_port",
    "reply_every", "report-counters", "retry_count", "rx-depth", "size", "sl", "source_ip", "source_mac",
    "source_port", "tclass", "tos", "tph_mem", "tx-depth", "typical_pkt_size", "use_cuda", "use_cuda_bus_id", "use_hl",
    "use_ib_dm_dmabuf", "use_mlu", "use_musa", "use_musa_bus_id", "use_neuron", "use_opencl", "use_rocm", "vector",
    "vlan_pcp", "wait_destroy"))
# ... and those that take none (the same table; #ifdef'd ones included: a build may have them)
_PERF_LONG_FLAG = frozenset((
    "aes_xts", "all", "bidirectional", "client", "comm_rdma_cm", "connectionless", "CPU-freq", "cpu_util",
    "data_validation", "data_validation_debug", "disable_dynamic_polling", "disable_numa", "disable_pcie_relaxed",
    "dont_xchg_versions", "dualport", "encrypt_on_tx", "events", "help", "ipv6", "ipv6-addr", "mac_fwd", "mcg",
    "mr_per_qp", "no_enhanced_reorder", "no_lock", "noPeak", "odp", "out_json", "perform_warm_up", "promiscuous",
    "raw_ipv6", "raw_mcast", "rdma_cm", "report-both", "report-cycles", "report-histogrm", "report-per-port",
    "report-unsorted", "report_gbits", "reversed", "run_infinitely", "send_with_imm", "server", "sig_before",
    "sig_offload", "sniffer", "tcp", "unsolicited_write", "use-null-mr", "use-srq", "use_cuda_dmabuf",
    "use_cuda_pcie_mapping", "use_data_direct", "use_hugepages", "use_mlu_dmabuf", "use_musa_dmabuf",
    "use_musa_pcie_mapping", "use_neuron_dmabuf", "use_old_post_send", "use_ooo", "use_rocm_dmabuf", "use_rss",
    "version", "vlan_en", "write_with_imm"))
_PERF_LONG = _PERF_LONG_ARG | _PERF_LONG_FLAG
_PERF_LONG_SHORT = {"report-cycles": "C", "duration": "D"}
# Shells whose `-c` runs the next word as a command line (bash(1), dash(1): the first non-option argument is the
# command string); -o/-O/+o/+O and --rcfile/--init-file take a word of their own.
_SHELLS = frozenset(("sh", "bash", "dash", "ksh", "zsh"))


def _perftest_options(args: list[str]) -> dict[str, str]:
    """The perftest options in ``args`` (the words after the binary) as getopt_long reads them: short option letter
    (or long name without one) -> the word that gave it."""
    seen: dict[str, str] = {}
    words = iter(args)
    for word in words:
        if word == "--":
            break
        if word.startswith("--"):
            name, eq, _ = word[2:].partition("=")
            hits = [name] if name in _PERF_LONG else [n for n in _PERF_LONG if n.startswith(name)] if name else []
            if len(hits) != 1:  # (unknown or ambiguous: perftest stops with "Invalid Command or flag")
                continue
            seen.setdefault(_PERF_LONG_SHORT.get(hits[0], hits[0]), word)
            if hits[0] in _PERF_LONG_ARG and not eq:
                next(words, None)
        elif word.startswith("-") and word != "-":
            for i, letter in enumerate(word[1:], 1):
                at = _PERF_SHORT.find(letter)
                if at < 0 or letter == ":":
                    break  # (an unknown letter: perftest stops)
                seen.setdefault(letter, word)
                if _PERF_SHORT[at + 1:at + 2] == ":":
                    if i == len(word) - 1:
                        next(words, None)
                    break  # (the rest of the word is the argument)
    return seen


def _commands(argv: list[str]) -> list[list[str]]:
    """``argv`` and the command lines a shell in it runs with `-c` (`bash -c 'ib_write_lat -C host'`) or ssh runs on
    its destination (`ssh h2 'ib_write_lat -C h1'`), each split as the shell splits it, at `;`, `&&`, `||`, `|` and
    `&`."""
    out = [argv]
    for at, word in enumerate(argv):
        program = word.rpartition("/")[2]
        if program == "ssh":
            from ..parse.mlx5.remote import ssh_destination

            # (ssh(1): the command "is executed on the remote host instead of a login shell", its words joined by
            # blanks for the remote user's shell)
            out += _shell_line(" ".join(ssh_destination(argv[at + 1:])[1]))
            break
        if program not in _SHELLS:
            continue
        words, c = iter(argv[at + 1:]), False
        for arg in words:
            if arg in ("-o", "-O", "+o", "+O", "--rcfile", "--init-file"):
                next(words, None)
            elif arg[:1] in "-+" and arg not in ("-", "--"):
                c = c or (arg[:2] != "--" and "c" in arg[1:])
            else:
                if arg == "--":
                    arg = next(words, "")
                if c:
                    out += _shell_line(arg)
                break
    return out


def _shell_line(line: str) -> list[list[str]]:
    """The commands of a shell command line (_commands), split as the shell splits it; none when the shell refuses
    it (an unclosed quote)."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # (an unclosed quote: the shell refuses it too)
        return []
    out: list[list[str]] = []
    part: list[str] = []
    for token in [*tokens, ";"]:
        if token and all(ch in "();&|" for ch in token):
            out += _commands(part) if part else []
            part = []
        else:
            part.append(token)
    return out


def cycles_option(argv: list[str]) -> str | None:
    """Why a benchmark command line makes perftest print CPU cycles as latencies (``-C`` given to a latency test, not in
    duration mode), or None. Without ``-H``/``-U`` the output cannot tell cycles from the microseconds its header
    says. Read as perftest's getopt_long reads it, also inside a shell's `-c` command line."""
    for words in _commands(argv):
        at = next((i for i, word in enumerate(words) if _PERF_LAT_BIN.fullmatch(word.rpartition("/")[2])), None)
        if at is None:
            continue
        seen = _perftest_options(words[at + 1:])
        flag = seen.get("C")
        if flag is None or "D" in seen:
            continue
        without = flag if flag in ("-C", "--report-cycles") else f"-C (written {flag})"
        return (f"{words[at]} {flag} prints CPU cycles under its t_typical[usec] header, which the tuner would score "
                f"as microseconds: run it without {without}")
    return None


def _to_gbytes(value: float, unit: str) -> float | None:
    """perftest bandwidth in GB/s (1e9 bytes/s). MB/sec and MiB/sec are both 2^20 bytes/s."""
    u = unit.lower()
    if u in ("mib/sec", "mb/sec"):
        return value * MIB / 1e9
    if u in ("gb/sec", "gbit/sec"):
        return value * GBIT / 1e9
    return None


def parse_perftest(text: str) -> PerftestRun:
    """ib_*_bw and ib_*_lat results: columns by their printed names, tabs and blanks alike."""
    run = PerftestRun()
    names: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = _untag(raw)
        if not names and (m := _PERF_TITLE.match(line)) and "#" not in line:
            run.test = " ".join(m.group(1).split())
        if run.samples is None and (m := _SAMPLES.match(line)):
            run.samples = (lineno, m.group(1))
        if _PERF_HEADER.match(line):
            names = [n for n in _PERF_COLUMN.findall(line) if n.startswith("#") or n.endswith("]")
                     or n == "tps average"]
            run.columns = names
            run.kind = "lat" if any(n.startswith(("t_", "tps")) for n in names) else "bw"
            if (m := _LAT_UNIT.search(line) if run.kind == "lat" else _BW_UNIT.search(line)) is not None:
                run.unit = m.group(1)
                if run.unit.lower() == "mb/sec":
                    run.notes.append("MB/sec is perftest's label for MiB/sec before release 24.07: read as 2^20 B/s")
            continue
        if not names:
            continue
        words = line.split()
        if not words or not _INT.match(words[0]):
            if line.strip().startswith("-" * 10):
                continue
            continue
        try:
            values = [_float(w) for w in words]
        except ValueError:
            run.notes.append(f"line {lineno}: a row that cannot be read ({line.strip()[:80]!r}): skipped")
            continue
        if len(values) < len(names):
            run.notes.append(f"line {lineno}: {len(values)} values for {len(names)} columns: skipped")
            continue
        if not all(math.isfinite(v) and v >= 0 for v in values):  # (float() reads inf, nan, 1e999 and -1)
            run.notes.append(f"line {lineno}: a value that is not a finite, non-negative number: skipped")
            continue
        try:
            run.rows.append(_perf_row(dict(zip(names, values)), run.unit, lineno))
        except ValueError as exc:
            run.notes.append(f"line {lineno}: {exc}: skipped")
    return run


def _perf_row(row: dict[str, float], unit: str | None, lineno: int) -> PerftestRow:
    peak = avg = rate = None
    lat: dict[str, float] = {}
    for name, value in row.items():
        if name.startswith("BW peak") and unit:
            peak = _to_gbytes(value, unit) if value > 0 else None  # 0.00: "BW peak won't be measured"
        elif name.startswith("BW average") and unit:
            avg = _to_gbytes(value, unit)
        elif name.startswith("MsgRate["):
            rate = value
        elif name.startswith(("t_", "99")) or name == "tps average":
            key = name.split("[")[0].replace("%", "pct").replace(" ", "_").replace(".", "_")
            lat[key] = value
    if not all(v is None or math.isfinite(v) for v in (peak, avg)):  # 1e308 MB/sec: inf once in GB/s
        raise ValueError("a bandwidth too large to be one")
    return PerftestRow(size_bytes=_whole(row["#bytes"]), iterations=_whole(row.get("#iterations", 0)), line=lineno,
                       bw_peak_gbps=peak, bw_avg_gbps=avg, msg_rate_mpps=rate, latency_us=lat)


# -- one reading for the tuner -------------------------------------------------------------------------
@record(frozen=True)
class SizeResult:
    """What the tuner scores at one message size: a bandwidth (GB/s) or, for a latency test, a latency."""

    size_bytes: int
    busbw_gbps: float | None = None  # nccl-tests busbw, perftest BW average
    latency_us: float | None = None  # perftest latency: t_typical (the median)


@record
class BenchResult:
    """A benchmark's output read for one trial: per-size results, or why the trial is invalid."""

    kind: str  # "nccl-tests", "nccl-tests-json", "perftest", "unknown"
    sizes: dict[int, SizeResult] = field(default_factory=dict)
    invalid: list[str] = field(default_factory=list)  # reasons; empty = valid
    notes: list[str] = field(default_factory=list)
    collective: str | None = None
    noise_cv_pct: float | None = None  # the largest i_cv% nccl-tests printed (-I 1), when it did

    @property
    def valid(self) -> bool:
        return not self.invalid


def read_benchmark(text: str) -> BenchResult:
    """The benchmark output in ``text``, whatever it is: nccl-tests text or JSON, or perftest, also as a kubelet's
    container log file holds it."""
    text = _kubectl_joined(_cri_joined(text))
    stripped = text.lstrip()
    if stripped.startswith("{"):
        from ..docpos import json_value

        try:
            doc = json_value(stripped)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and "results" in doc:
            return _from_nccl([parse_nccl_tests_json(stripped)], "nccl-tests-json")
    # (untagging replaces tags by a blank and cuts prefixes only: a header line holds "#bytes" before it too)
    if "#bytes" in text and any(_PERF_HEADER.match(_untag(line)) for line in text.splitlines()):
        return _from_perftest(parse_perftest(text))
    runs = parse_nccl_tests(text)
    if runs:
        return _from_nccl(runs, "nccl-tests")
    why = "nothing parseable: no nccl-tests table and no perftest result header"
    if bare := next((line.strip() for line in text.splitlines() if _BARE.fullmatch(_untag(line).strip())), None):
        why += (f"; {bare[:40]!r} alone is how perftest's --output=bandwidth (or message_rate) prints its average, "
                "without its unit or message size: run it without --output")
    return BenchResult("unknown", invalid=[why])


def _from_nccl(runs: list[NcclRun], kind: str) -> BenchResult:
    out = BenchResult(kind, collective=runs[0].collective)
    if len(runs) > 1:
        out.notes.append(f"{len(runs)} runs in one output")
    if why := _several_measures(runs):
        out.invalid.append(why)
    cvs = []
    twice: list[int] = []
    for run in runs:
        out.invalid += run.failures()
        out.notes += run.notes
        for row in run.rows:
            halves = [(name, h) for name, h in (("out-of-place", row.out_of_place), ("in-place", row.in_place))
                      if h is not None]
            half = next((h for _, h in halves if h.busbw_gbps is not None), None)
            if half is None:
                out.notes.append(f"line {row.line}: no busbw read at {row.size_bytes} B (nan, inf or negative): "
                                 "the size is left out")
                continue
            if half is not halves[0][1]:
                out.notes.append(f"line {row.line}: no {halves[0][0]} busbw read at {row.size_bytes} B (nan, inf or "
                                 "negative): the in-place one is kept for the size")
            cvs += [v for h in (row.out_of_place, row.in_place) if h for k, v in h.extra.items() if k == "i_cv%"]
            _keep(out, SizeResult(row.size_bytes, busbw_gbps=half.busbw_gbps), row.line, twice)
    _note_twice(out, twice)
    out.noise_cv_pct = max(cvs) if cvs else None
    if not out.sizes and not out.invalid:
        out.invalid.append("no busbw was printed")
    return out


def _several_measures(runs: list[NcclRun]) -> str | None:
    """Why the rows of ``runs`` are not one measure, or None. busbw is a per-collective figure (nccl-tests
    doc/PERFORMANCE.md: its factor differs by collective), and one binary run with `-d all` or `-o all` prints every
    size once per data type and reduction op (all_reduce.cu AllReduceRunTest loops over both; the row's type and redop
    columns say which): a tuner comparing trials on a mix of them compares different things."""
    named: dict[str, int] = {}  # `# Collective test starting: <program>` (util.cu) -> the run's first line
    for run in runs:
        if run.collective and run.rows:
            named.setdefault(run.collective, run.first_line)
    if len(named) > 1:
        return (f"the output holds several collectives ({', '.join(f'{c} from line {n}' for c, n in named.items())}): "
                "their busbw are different measures; run one collective per --benchmark")
    kinds: dict[tuple[str, str | None], int] = {}
    for run in runs:
        for row in run.rows:
            kinds.setdefault((row.type, row.redop), row.line)
    if len(kinds) > 1:
        return ("rows of several data types or reduction ops ("
                + ", ".join(f"{t} {op or '(no redop)'} at line {n}" for (t, op), n in kinds.items())
                + "): each is a measure of its own; run one type and one op (`-d float -o sum`)")
    return None


def _from_perftest(run: PerftestRun) -> BenchResult:
    out = BenchResult("perftest", invalid=run.failures(), notes=list(run.notes), collective=run.test)
    twice: list[int] = []
    for row in run.rows:
        if run.kind == "lat":
            new = SizeResult(row.size_bytes, latency_us=row.latency_us.get("t_typical", row.latency_us.get("t_avg")))
        else:
            new = SizeResult(row.size_bytes, busbw_gbps=row.bw_avg_gbps)
        _keep(out, new, row.line, twice)
    _note_twice(out, twice)
    if run.rows and run.kind == "bw" and run.unit is None:
        out.invalid.append("perftest header names no bandwidth unit")
    if run.rows and run.kind == "lat" and run.samples is not None and run.samples[1] != "usec":
        out.invalid.append(f"line {run.samples[0]}: perftest printed its latencies in {run.samples[1]!r}, under "
                           "headers that say usec (ib_*_lat -C, --report-cycles): run it without -C")
    elif run.rows and run.kind == "lat" and run.unit is not None and run.unit != "usec":
        out.invalid.append(f"perftest header's latency unit is {run.unit!r}, not usec")
    return out


def _keep(out: BenchResult, new: SizeResult, line: int, twice: list[int]) -> None:
    """``new`` as its size's result, unless the size was measured before (two runs in one output, or their lines
    interleaved: ``line`` is added to ``twice``) with a worse result, which is kept. perftest's reader kept the last,
    so a slow run before a fast one read as the fast one alone."""
    old = out.sizes.get(new.size_bytes)
    if old is not None:
        twice.append(line)
        if _worse(old, new):
            return
    out.sizes[new.size_bytes] = new


def _note_twice(out: BenchResult, twice: list[int]) -> None:
    if twice:
        out.notes.append(f"a size measured twice (line {', '.join(map(str, twice[:5]))}"
                         f"{', ...' if len(twice) > 5 else ''}) keeps its worse result")


def _worse(a: SizeResult, b: SizeResult) -> bool:
    """``a`` is no better than ``b``: a bandwidth not above it, a latency not below it (a missing value is worst)."""
    if a.latency_us is not None or b.latency_us is not None:
        return a.latency_us is None or (b.latency_us is not None and a.latency_us >= b.latency_us)
    return a.busbw_gbps is None or (b.busbw_gbps is not None and a.busbw_gbps <= b.busbw_gbps)


def parse_size(text: str) -> int:
    """An nccl-tests size as operators write it (`-b 8 -e 8G`): 8, 64K, 1M, 8G (powers of 1024), or bytes."""
    m = re.fullmatch(r"\s*(\d{1,19})\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE | re.ASCII)
    size = int(m.group(1)) * 1024 ** ("KMGT".find(m.group(2).upper()) + 1 if m.group(2) else 0) if m else -1
    if not 0 <= size < 2**63:  # a size nccl-tests prints (%li: a 64-bit long, see _INT); 5,000 digits: int()'s error
        raise ValueError(f"not a message size: {text[:40]!r}{'...' if len(text) > 40 else ''} (e.g. 64M, 1G, 8192)")
    return size


def format_size(size: int) -> str:
    for unit, scale in (("G", 1024**3), ("M", 1024**2), ("K", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)
