"""A stand-in fabric: the DCQCN fluid model of N senders into one bottleneck, with the switch's ECN marking
curve and PFC, solved with scipy. It maps (Kmin, Kmax, Pmax, PFC trigger, headroom, incast degree, link
speed) to throughput, queue, pause time, ECN marks and drops, so the tuner's whole loop runs without
hardware (bench/tune_eval.py, and the simulator's benchmark command losslessd.sim.bench).

The model is Zhu, Ghobadi, Misra, Padhye, "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY"
(CoNEXT 2016), figure "DCQCN fluid model", equations M1-M5, for N identical flows; its units are the
authors' (packets of 1000 bytes, rates in packets per second). docs/tune.md states how it is solved and
how well it agrees with the paper's fixed point.

How it is solved (scipy.integrate.solve_ivp, LSODA):
- the mark-to-reaction delay tau* (a delay differential equation in the paper, solved with Matlab's dde23)
  is a chain of ``DELAY_STAGES`` first-order lags on the marking probability and on R_C (the linear chain
  trick): an ordinary differential equation with the same fixed points;
- PFC [derived, from the note's fluid extension]: the switch pauses an ingress port when its share of
  the queue (q/N, every sender feeding the bottleneck through its own port) reaches the PFC trigger;
  pausing and resuming many times a millisecond is taken as its average: while the queue sits at the
  trigger, each sender gets only C/N through, and is paused the rest of the time (its share 1 - C/(N R_C));
  the DCQCN state keeps evolving while paused;
- each pause lets the bytes in flight after XOFF (the headroom need at line rate, scaled by the sender's
  rate) into the PG's headroom; what does not fit is dropped; a pause cycle lasts as long as the port needs
  to drain those bytes and the XON hysteresis at its share C/N.
"""

from __future__ import annotations

import math
from dataclasses import field, replace

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from ..records import record

PACKET_BYTES = 1000  # the authors' packet (CoNEXT'16 fluid model Matlab code, S = 1000 B)
DELAY_STAGES = 3  # first-order lags standing in for the delay tau*
# XON hysteresis when the config gives none: resume 3 KB below the pause threshold (HPCC switch-mmu.cc,
# alibaba-edu/High-Precision-Congestion-Control).
XON_HYSTERESIS_BYTES = 3 * 1024


@record(frozen=True)
class Dcqcn:
    """Reaction-point and notification-point parameters (CoNEXT'16, parameter table and Matlab model:
    tau 50 us, tau' = T = 55 us, B 10 MB, F 5, g 1/256, R_AI 40 Mb/s); tau* 4 us, the delay the paper
    finds stable for every N."""

    tau_s: float = 50e-6  # CNP interval: at most one CNP per flow per tau
    tau_alpha_s: float = 55e-6  # tau': alpha decays when no CNP arrived for this long
    timer_s: float = 55e-6  # T: rate-increase timer
    byte_counter_bytes: float = 10e6  # B: rate-increase byte counter
    fast_recovery_steps: int = 5  # F
    g: float = 1 / 256
    rai_bps: float = 40e6  # R_AI, additive increase
    feedback_delay_s: float = 4e-6  # tau*: mark to rate change
    # R_T <- R_C on every cut (the paper's model: M4's first term). ConnectX NICs leave R_T alone on a cut
    # unless the rate was raised by the timer since the last one (clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc
    # 1: prometheus/procfs sysfs/net_class_ecn.go and an mlxconfig dump of a ConnectX-5); False drops the term.
    clamp_target: bool = True
    # The rate a cut never goes below: rpg_min_rate, 1 Mb/s (NVIDIA DOCA "DCQCN CC parameters"). The paper's
    # model has none; without it a long mark storm drives R_C towards zero, where the model is stiff.
    min_rate_bps: float = 1e6

    @property
    def byte_counter_pkts(self) -> float:
        return self.byte_counter_bytes / PACKET_BYTES

    @property
    def rai_pps(self) -> float:
        return self.rai_bps / 8 / PACKET_BYTES


def _factors(p: float, r: float, d: Dcqcn) -> tuple[float, float, float, float, float]:
    """a..e of the model at marking probability p (0<p<1) and rate r (pkt/s), with log1p/expm1 so that
    (1-p)^B with B = 10^4 packets neither overflows nor rounds to 1."""
    lg = math.log1p(-p)
    tau_r = d.tau_s * r
    a = -math.expm1(tau_r * lg)
    b = p / _expm1(-d.byte_counter_pkts * lg)
    c = b * math.exp(d.fast_recovery_steps * d.byte_counter_pkts * lg)
    tr = d.timer_s * r
    dd = p / _expm1(-tr * lg) if tr > 0 else 0.0
    e = dd * math.exp(d.fast_recovery_steps * tr * lg)
    return a, b, c, dd, e


def _expm1(x: float) -> float:
    """e^x - 1, infinite where a float cannot hold it (1/inf = 0 then, as the limit is)."""
    return math.inf if x > 700 else math.expm1(x)


def marking(q_pkts: float, kmin: float, kmax: float, pmax: float) -> float:
    """M1: the RED/ECN ramp, thresholds in packets, pmax a fraction. The jump from Pmax to 1 above Kmax is
    spread over one packet (and a step ramp, Kmin = Kmax, rises over one packet), so a queue that settles on
    it does not make the solver chatter; the ramp itself, where the fixed points lie, is exact."""
    if q_pkts <= kmin:
        return 0.0
    if q_pkts <= kmax:
        return pmax * (q_pkts - kmin) / (kmax - kmin) if kmax > kmin else min(pmax, q_pkts - kmin)
    if q_pkts < kmax + 1:
        return pmax + (1.0 - pmax) * (q_pkts - kmax)
    return 1.0


@record(frozen=True)
class FixedPoint:
    p: float  # marking probability
    alpha: float
    rc_pps: float  # = C / N
    rt_pps: float

    def queue_bytes(self, kmin_bytes: float, kmax_bytes: float, pmax: float) -> float | None:
        """F4: the queue on the ramp that marks with p; None when p > Pmax (no point on the ramp)."""
        if self.p > pmax:
            return None
        return kmin_bytes + self.p / pmax * (kmax_bytes - kmin_bytes)


def fixed_point(n: int, link_gbps: float, d: Dcqcn = Dcqcn()) -> FixedPoint:  # noqa: B008 (a frozen record)
    """The equilibrium of CoNEXT'16 section 'DCQCN stability' (F1-F5): R_C* = C/N and the p* that solves
    a^2 alpha* / ((b + d)(c + e)) = tau^2 R_AI R_C*, found with brentq (its left side grows with p)."""
    rc = link_gbps * 1e9 / 8 / PACKET_BYTES / n

    def alpha_of(p: float) -> float:
        return -math.expm1(d.tau_alpha_s * rc * math.log1p(-p))

    def h(p: float) -> float:
        a, b, c, dd, e = _factors(p, rc, d)
        if (b + dd) * (c + e) <= 0.0:  # increases have stopped: far above the root
            return 1e3
        return math.log(a * a * alpha_of(p) / ((b + dd) * (c + e))) - math.log(d.tau_s ** 2 * d.rai_pps * rc)

    p = brentq(h, 1e-12, 0.5, xtol=1e-18, rtol=1e-13)
    a, b, c, dd, e = _factors(p, rc, d)
    return FixedPoint(p=p, alpha=alpha_of(p), rc_pps=rc, rt_pps=rc * (1 + (c + e) * d.tau_s * d.rai_pps / a))


@record(frozen=True)
class Bottleneck:
    """One incast: ``incast`` senders at ``link_gbps`` into one port of ``link_gbps``."""

    link_gbps: float
    incast: int
    kmin_bytes: float
    kmax_bytes: float
    pmax: float  # fraction (a config's 100 % is 1.0)
    pfc_trigger_bytes: float | None = None  # per ingress PG: pause when its share of the queue reaches it
    headroom_bytes: float | None = None  # per ingress PG: what absorbs the bytes in flight after XOFF
    headroom_need_bytes: float | None = None  # bytes in flight after XOFF at line rate (the headroom formula)
    xon_hysteresis_bytes: float = XON_HYSTERESIS_BYTES
    dcqcn: Dcqcn = field(default_factory=Dcqcn)

    @property
    def c_pps(self) -> float:
        return self.link_gbps * 1e9 / 8 / PACKET_BYTES


@record
class Trajectory:
    """The solved model, sampled at ``t``; per-sender quantities are for one (identical) sender."""

    t: np.ndarray
    q_bytes: np.ndarray
    rc_gbps: np.ndarray
    sent_bytes: np.ndarray  # per sender, cumulative
    paused_s: np.ndarray  # per sender, cumulative time paused
    marked_pkts: np.ndarray  # cumulative ECN marks at the bottleneck egress
    dropped_bytes: np.ndarray  # cumulative, all senders
    pause_frames: np.ndarray  # cumulative, all senders' ports
    bottleneck: Bottleneck

    def at(self, name: str, when: float) -> float:
        return float(np.interp(when, self.t, getattr(self, name)))


# State vector layout.
_RC, _RT, _ALPHA, _Q, _SENT, _PAUSED, _MARKED, _DROPPED, _FRAMES = range(9)
_CHAIN = 9  # DELAY_STAGES lags of p, then DELAY_STAGES lags of R_C


def simulate(b: Bottleneck, t_end_s: float, max_step_s: float = 20e-6) -> Trajectory:
    """Flows start at line rate with an empty queue (CoNEXT'16: 'flows start at line rate') and alpha 1."""
    d = b.dcqcn
    c = b.c_pps
    n = b.incast
    kmin, kmax = b.kmin_bytes / PACKET_BYTES, b.kmax_bytes / PACKET_BYTES
    qx = n * b.pfc_trigger_bytes / PACKET_BYTES if b.pfc_trigger_bytes is not None else math.inf
    width = 1.0  # packets over which the PFC limit and the empty queue switch on (keeps the solver stepping)
    k = DELAY_STAGES / d.feedback_delay_s
    min_rate = d.min_rate_bps / 8 / PACKET_BYTES
    lag_p, lag_r = _CHAIN, _CHAIN + DELAY_STAGES
    need = b.headroom_need_bytes or 0.0
    room = b.headroom_bytes if b.headroom_bytes is not None else math.inf
    hyst = b.xon_hysteresis_bytes

    def rhs(_t, y):
        rc, rt, alpha, q = max(y[_RC], 1e-9), y[_RT], min(max(y[_ALPHA], 0.0), 1.0), max(y[_Q], 0.0)
        pd, rd = min(max(y[lag_p + DELAY_STAGES - 1], 0.0), 1.0), max(y[lag_r + DELAY_STAGES - 1], 1e-9)
        if pd <= 0.0:
            a, bb, cc, dd, e = 0.0, 1 / d.byte_counter_pkts, 1 / d.byte_counter_pkts, 1 / (d.timer_s * rd), 1 / (d.timer_s * rd)
        elif pd >= 1.0:
            a, bb, cc, dd, e = 1.0, 0.0, 0.0, 0.0, 0.0
        else:
            a, bb, cc, dd, e = _factors(pd, rd, d)
        alpha_target = 1.0 if pd >= 1.0 else -math.expm1(d.tau_alpha_s * rd * math.log1p(-pd))
        dalpha = d.g / d.tau_alpha_s * (alpha_target - alpha)
        drt = (-(rt - rc) * a / d.tau_s if d.clamp_target else 0.0) + d.rai_pps * rd * (cc + e)
        drc = -rc * alpha * a / (2 * d.tau_s) + (rt - rc) * rd * (bb + dd) / 2
        if rc >= c and drc > 0:
            drc = 0.0
        if rc <= min_rate and drc < 0:
            drc = 0.0
        if rt >= c and drt > 0:
            drt = 0.0
        # PFC: at the trigger a sender gets only its share of the drain.
        limit = min(max((q - (qx - width)) / width, 0.0), 1.0) if n * rc > c else 0.0
        send = rc - limit * (rc - c / n)
        paused_share = 1.0 - send / rc
        arrivals = n * send
        departures = c if q > width else min(c, arrivals + c * q / width)
        dq = arrivals - departures
        mark = marking(q, kmin, kmax, b.pmax)
        frames = drops = 0.0
        if limit > 0.0:
            inflight = need * rc / c  # bytes in flight after XOFF at this rate
            cycles = (c / n * PACKET_BYTES) / (inflight + hyst) * limit  # per port per second
            frames = n * cycles
            drops = n * cycles * max(0.0, inflight - room)
        out = [drc, drt, dalpha, dq, send * PACKET_BYTES, paused_share, mark * departures, drops, frames]
        chain_p = [k * ((mark if i == 0 else y[lag_p + i - 1]) - y[lag_p + i]) for i in range(DELAY_STAGES)]
        chain_r = [k * ((rc if i == 0 else y[lag_r + i - 1]) - y[lag_r + i]) for i in range(DELAY_STAGES)]
        return out + chain_p + chain_r

    y0 = [c, c, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] + [0.0] * DELAY_STAGES + [c] * DELAY_STAGES
    samples = max(200, int(t_end_s / 1e-6) // 4)
    sol = solve_ivp(rhs, (0.0, t_end_s), y0, method="LSODA", max_step=max_step_s, rtol=1e-4, atol=1e-6,
                    t_eval=np.linspace(0.0, t_end_s, samples))
    if not sol.success:
        raise RuntimeError(f"fluid model did not solve: {sol.message}")
    y = sol.y
    return Trajectory(t=sol.t, q_bytes=np.maximum(y[_Q], 0) * PACKET_BYTES, rc_gbps=y[_RC] * PACKET_BYTES * 8 / 1e9,
                      sent_bytes=y[_SENT], paused_s=y[_PAUSED], marked_pkts=y[_MARKED], dropped_bytes=y[_DROPPED],
                      pause_frames=y[_FRAMES], bottleneck=b)


@record(frozen=True)
class SizeOutcome:
    """One message size of an alltoall over the bottleneck (docs/tune.md, 'stand-in benchmark')."""

    size_bytes: int
    time_s: float
    algbw_gbps: float  # GB/s, as nccl-tests prints
    busbw_gbps: float
    paused_s: float  # per sender
    pause_frames: float
    ecn_marked: float
    dropped_bytes: float
    queue_peak_bytes: float


def alltoall(b: Bottleneck, sizes: list[int], horizon_s: float = 3e-3) -> list[SizeOutcome]:
    """An alltoall of n = N + 1 ranks in which the bottleneck is one rank's link, ``size`` bytes per rank:
    each of the N others sends it size/n bytes, starting at line rate with an empty queue, as every
    iteration of a benchmark does. The transfer ends when the last byte leaves the queue. Past
    ``horizon_s`` the model is taken to be at its steady state and extended at its final rates.
    algbw = size / time and busbw = algbw x (n-1)/n, as nccl-tests computes them for alltoall."""
    n_ranks = b.incast + 1
    chunks = [s / n_ranks for s in sizes]
    c_bytes = b.link_gbps * 1e9 / 8
    need_s = max(chunks) * b.incast / c_bytes * 1.5
    traj = simulate(b, min(horizon_s, max(need_s, 50e-6)))
    out = []
    t_last = traj.t[-1]
    tail = traj.t >= t_last * 0.8
    rate = {name: _slope(traj.t[tail], getattr(traj, name)[tail])
            for name in ("sent_bytes", "paused_s", "marked_pkts", "dropped_bytes", "pause_frames")}
    delivered = traj.sent_bytes * b.incast - traj.q_bytes  # bytes through the bottleneck so far
    rate["delivered"] = min(_slope(traj.t[tail], delivered[tail]), c_bytes)
    for size, chunk in zip(sizes, chunks):
        if traj.sent_bytes[-1] >= chunk:
            t_send = float(np.interp(chunk, traj.sent_bytes, traj.t))
            at = {name: traj.at(name, t_send) for name in rate if name != "delivered"}
            time = t_send + traj.at("q_bytes", t_send) / c_bytes  # the senders stop, the queue drains
            peak = float(traj.q_bytes[traj.t <= t_send].max(initial=0.0))
        else:  # beyond the horizon: extend at the final rates
            extra = (chunk * b.incast - delivered[-1]) / max(rate["delivered"], 1e-9)
            time = t_last + extra
            at = {name: float(getattr(traj, name)[-1]) + rate[name] * extra for name in rate if name != "delivered"}
            peak = float(traj.q_bytes.max())
        algbw = size / time / 1e9
        out.append(SizeOutcome(size_bytes=size, time_s=time, algbw_gbps=algbw,
                               busbw_gbps=algbw * (n_ranks - 1) / n_ranks, paused_s=at["paused_s"],
                               pause_frames=at["pause_frames"], ecn_marked=at["marked_pkts"],
                               dropped_bytes=at["dropped_bytes"], queue_peak_bytes=peak))
    return out


def _slope(t: np.ndarray, y: np.ndarray) -> float:
    if len(t) < 2 or t[-1] <= t[0]:
        return 0.0
    return float((y[-1] - y[0]) / (t[-1] - t[0]))


def steady_queue(b: Bottleneck, t_end_s: float = 0.15, window_s: float = 0.05) -> tuple[float, float]:
    """(mean queue in bytes, mean marking probability) over the last ``window_s`` of a run without PFC:
    what the paper's fixed point predicts."""
    traj = simulate(replace(b, pfc_trigger_bytes=None), t_end_s, max_step_s=10e-6)
    tail = traj.t >= t_end_s - window_s
    q = traj.q_bytes[tail]
    kmin, kmax = b.kmin_bytes / PACKET_BYTES, b.kmax_bytes / PACKET_BYTES
    p = np.array([marking(x / PACKET_BYTES, kmin, kmax, b.pmax) for x in q])
    return float(q.mean()), float(p.mean())
