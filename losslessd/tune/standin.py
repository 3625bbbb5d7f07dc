"""The stand-in benchmark: the fluid model's alltoall, printed as nccl-tests prints it, with the counter
deltas a switch would show for it. bench/tune_eval.py scores candidates with it directly; the simulator's
benchmark command (losslessd.sim.bench) reads the ECN settings from a simulated switch, runs it, prints
the text and credits the counters to the switch.
"""

from __future__ import annotations

import random
from dataclasses import replace

from .. import __version__
from ..headroom import ieee_xoff_bytes
from ..records import record
from ..render import DEFAULT_MTU_BYTES
from .fluid import PACKET_BYTES, Bottleneck, SizeOutcome, alltoall
from .score import Counters, pause_s_per_frame

DEFAULT_SIZES = (8 * 2**20, 64 * 2**20, 512 * 2**20)
# The scenario's switch when a config does not say: SONiC's lossless PG profile (dynamic_th -2, alpha 1/4,
# losslessd.render), a 32 MB shared pool (HPCC's example config) and 5 m cables.
DEFAULT_ALPHA = 0.25
DEFAULT_POOL_BYTES = 32 * 2**20
DEFAULT_CABLE_M = 5.0

ITERATIONS = 20  # iterations per size a run reports (nccl-tests -n 20)


def pfc_trigger_bytes(pool_bytes: float, alpha: float, incast: int) -> float:
    """Where an ingress PG pauses when ``incast`` lossless PGs share the pool's dynamic threshold:
    alpha x F / (1 + n x alpha) (Choudhury and Hahne; losslessd.headroom.dynamic_share_bytes)."""
    return alpha * pool_bytes / (1 + incast * alpha)


def scenario(link_gbps: float, incast: int, kmin_bytes: float, kmax_bytes: float, pmax_pct: float, *,
             pool_bytes: float = DEFAULT_POOL_BYTES, alpha: float = DEFAULT_ALPHA, headroom_bytes: float | None = None,
             cable_m: float = DEFAULT_CABLE_M, mtu: int = DEFAULT_MTU_BYTES, trigger_bytes: float | None = None) -> Bottleneck:
    """A bottleneck built from switch facts; the headroom need is what is in flight after XOFF on any ASIC: two
    frames, the cable's round trip and the peer's IEEE 802.3 pause response (losslessd.headroom.ieee_xoff_bytes),
    and the configured headroom defaults to exactly that."""
    need = ieee_xoff_bytes(int(round(link_gbps * 1000)), cable_m, mtu)
    return Bottleneck(link_gbps=link_gbps, incast=incast, kmin_bytes=kmin_bytes, kmax_bytes=kmax_bytes,
                      pmax=pmax_pct / 100, headroom_need_bytes=need,
                      headroom_bytes=headroom_bytes if headroom_bytes is not None else need,
                      pfc_trigger_bytes=trigger_bytes if trigger_bytes is not None
                      else pfc_trigger_bytes(pool_bytes, alpha, incast))


@record(frozen=True)
class Run:
    """One stand-in benchmark run: what it printed and what the switch counted."""

    text: str
    outcomes: list[SizeOutcome]
    counters: Counters


def run(b: Bottleneck, sizes: list[int] | tuple[int, ...] = DEFAULT_SIZES, *, noise_pct: float = 0.0,
        seed: int | str = 0, iterations: int = ITERATIONS) -> Run:
    """``iterations`` iterations of each size (nccl-tests' -n), each starting from line rate and an empty
    queue; ``noise_pct`` spreads busbw run to run (standard deviation, percent, seeded)."""
    return report(b, alltoall(b, list(sizes)), noise_pct=noise_pct, seed=seed, iterations=iterations)


def report(b: Bottleneck, outcomes: list[SizeOutcome], *, noise_pct: float = 0.0, seed: int | str = 0,
           iterations: int = ITERATIONS) -> Run:
    """The text and counters of one run of already solved ``outcomes`` (the model is deterministic: only
    the noise differs from run to run)."""
    if noise_pct:
        rng = random.Random(str(seed))
        outcomes = [replace(o, time_s=o.time_s * (1 + rng.gauss(0, noise_pct / 100))) for o in outcomes]
        outcomes = [replace(o, algbw_gbps=o.size_bytes / o.time_s / 1e9,
                            busbw_gbps=o.size_bytes / o.time_s / 1e9 * b.incast / (b.incast + 1)) for o in outcomes]
    elapsed = sum(o.time_s for o in outcomes) * iterations * 2  # out-of-place and in-place
    paused = sum(o.paused_s for o in outcomes) * iterations * 2  # each sender's port, all alike
    frames = paused / pause_s_per_frame(b.link_gbps)  # as a switch counts them: half a largest pause per frame
    counters = Counters(elapsed_s=elapsed, pause_frames=round(frames * b.incast), worst_paused_s=paused,
                        worst_port="sender port", ecn_marked=round(sum(o.ecn_marked for o in outcomes) * iterations * 2),
                        dropped=round(sum(o.dropped_bytes for o in outcomes) * iterations * 2 / PACKET_BYTES))
    return Run(nccl_text(outcomes, b.incast + 1, iterations), outcomes, counters)


def _fstr(value: float, width: int) -> str:
    """nccl-tests getFloatStr (src/util.cu): the decimals chosen by the digits before the point (``power``), not by
    whether the printed text fits: %.2f below width-2 digits, %.1f below width-1, %.0f up to width, else %.1e (width 7)
    or %.0e. 999.996 at width 6 prints `1000.00`, seven characters, as nccl-tests prints it."""
    power, val = 0, 1
    while value >= val and power <= width:  # (beyond width digits the branch is the same: bounded, also for inf)
        power, val = power + 1, val * 10
    if power < width - 2:
        return f"%{width}.2f" % value
    if power < width - 1:
        return f"%{width}.1f" % value
    if power < width + 1:
        return f"%{width}.0f" % value
    return (f"%{width}.1e" if width >= 7 else f"%{width}.0e") % value


def nccl_text(outcomes: list[SizeOutcome], ranks: int, iterations: int) -> str:
    """alltoall_perf output in the 2.19 layout (src/util.cu writeDeviceReport, writeResultHeader, ...)."""
    lines = [f"# nccl-tests version 2.19.6 (losslessd-{__version__}-fluid-model) nccl-headers=0 nccl-library=0",
             "# Collective test starting: alltoall_perf",
             f"# nThread 1 nGpus 1 minBytes {min(o.size_bytes for o in outcomes)} maxBytes "
             f"{max(o.size_bytes for o in outcomes)} step: 8(factor) warmup iters: 0 iters: {iterations} "
             "agg iters: 1 validation: 1 graph: 0 unalign: 0", "#", "# Using devices"]
    lines += ["#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
              % (r, 0, 1000 + r, f"sender{r}" if r else "receiver", 0, 0, 0, 0, "DCQCN fluid model") for r in range(ranks)]
    lines += ["#", "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
              % ("", "", "", "", ""),
              "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s "
              % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                 "#wrong"),
              "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s "
              % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")]
    for o in outcomes:
        half = "  %7s  %6s  %6s  %6g" % (_fstr(o.time_s * 1e6, 7), _fstr(o.algbw_gbps, 6), _fstr(o.busbw_gbps, 6), 0)
        lines.append("%12li  %12li  %8s  %6s  %6s" % (o.size_bytes, o.size_bytes // 4 // ranks, "float", "none",
                                                      "%6i" % -1) + half + half)
    avg = sum(o.busbw_gbps for o in outcomes) / len(outcomes)
    lines += ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"), "# %-20s : %g " % ("Avg bus bandwidth", avg),
              "#", "# Collective test concluded: alltoall_perf", ""]
    return "\n".join(lines)
