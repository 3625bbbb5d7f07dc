"""`losslessd tune report`: a tune's trials as a table, PNG plots (the measure against each knob, the score over
the trials, the time paused) and one HTML page with both, written from the tune database."""

from __future__ import annotations

import html
import io
import time
from pathlib import Path

from ..errors import InputError
from ..limits import output_folder, write_output
from ..records import record
from .bench import format_size
from .space import Candidate
from .store import AS_FOUND, Store, Trial, Tune

KNOBS = (("kmin_bytes", "Kmin (bytes, reference speed)", True), ("kmax_bytes", "Kmax (bytes, reference speed)", True),
         ("pmax_pct", "Pmax (%)", True))


@record
class Row:
    trial: Trial
    candidate: Candidate | None  # None: settings as found


def rows(store: Store, tune: Tune) -> list[Row]:
    return [Row(t, None if t.candidate == AS_FOUND else Candidate.from_key(t.candidate)) for t in store.trials(tune.id)]


def table(tune: Tune, found: list[Row], events: list[tuple]) -> str:
    """The trials as fixed-width text, then the tune's pushes and rollbacks."""
    lines = [f"tune {tune.id}: {tune.status}, started {_when(tune.started_unix_s)}"
             + (f", noise {tune.noise_pct:.2f} %" if tune.noise_pct is not None else "")
             + (f"; stopped: {tune.stopped}" if tune.stopped else ""),
             f"benchmark: {' '.join(tune.params.get('benchmark', []))}; sizes "
             f"{', '.join(format_size(s) for s in tune.params.get('sizes', [])) or 'all printed'}",
             f"{'#':>3}  {'Kmin B':>9}  {'Kmax B':>9}  {'Pmax %':>6}  {'status':8}  {'score':>8}  {'measure':>8}  "
             f"{'paused %':>8}  {'drops':>6}  reason"]
    for r in found:
        t, c = r.trial, r.candidate
        knobs = ("as found", "", "") if c is None else (str(c.kmin_bytes), str(c.kmax_bytes), f"{c.pmax_pct:g}")
        lines.append(f"{t.seq:>3}  {knobs[0]:>9}  {knobs[1]:>9}  {knobs[2]:>6}  {t.status:8}  {_num(t.score):>8}  "
                     f"{_num(t.measure):>8}  {_num(100 * t.paused_share if t.paused_share is not None else None):>8}  "
                     f"{_num(t.dropped, '{:g}'):>6}  {t.reason or ''}")
    best = "settings as found" if tune.best == AS_FOUND else Candidate.from_key(tune.best).describe() if tune.best else None
    lines.append(f"best-known: {best} (score {tune.best_score:.3f})" if best and tune.best_score is not None
                 else "best-known: none yet")
    for when, kind, device, message in events:
        if kind != "pushed":
            lines.append(f"{_when(when)} {kind}{' ' + device if device else ''}: {message.splitlines()[0]}")
    return "\n".join(lines) + "\n"


def _num(value: float | None, fmt: str = "{:.3f}") -> str:
    return "-" if value is None else fmt.format(value)


def _when(unix_s: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(unix_s))


def written(tune_id: int, out: Path) -> list[Path]:
    """The files a report of tune ``tune_id`` writes into ``out``: its three plots and its page."""
    return [out / f"tune-{tune_id}-{name}.png" for name in ("knobs", "score", "pause")] + [out / f"tune-{tune_id}.html"]


def plots(tune: Tune, found: list[Row], out: Path) -> list[Path]:
    """tune-<id>-knobs.png (the measure against each knob), tune-<id>-score.png (score over trials, with the best
    so far), tune-<id>-pause.png (share of the trial the most paused tuned port spent paused)."""
    try:  # Agg canvas behind Figure.savefig: pyplot (and a display) never needed
        from matplotlib.figure import Figure
        from matplotlib.ticker import NullFormatter
    except ImportError:
        raise InputError("plots need matplotlib, which comes with the `plot` extra: pip install 'losslessd[plot]'") \
            from None
    output_folder(out, "plots", "--out")
    ok = [r for r in found if r.trial.score is not None]
    paths = []
    fig = Figure(figsize=(12, 3.8), layout="constrained")
    axes = fig.subplots(1, len(KNOBS), sharey=True)
    for ax, (attr, label, log) in zip(axes, KNOBS):
        # (a trial scored has a measure, and a knob is positive, as the tuner writes them; an edited database may
        # hold neither: such a point is left out rather than failing the whole plot)
        tried = [r for r in ok if r.candidate is not None and r.trial.measure is not None]
        xs = [getattr(r.candidate, attr) for r in tried]
        ax.scatter(xs, [r.trial.measure for r in tried], s=18, alpha=0.7, label="trials")
        best = max(ok, key=lambda r: r.trial.score, default=None)
        if best is not None and best.candidate is not None and best.trial.measure is not None:
            ax.scatter([getattr(best.candidate, attr)], [best.trial.measure], s=80, marker="*", color="tab:red",
                       label="best score")
        if log and all(x > 0 for x in xs):
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # decades only: minor labels overlap
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("busbw at the chosen sizes (GB/s)")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(f"tune {tune.id}: measure against each knob")
    paths.append(_save(fig, written(tune.id, out)[0]))

    fig = Figure(figsize=(10, 3.8), layout="constrained")
    ax = fig.subplots()
    seqs = [r.trial.seq for r in ok]
    scores = [r.trial.score for r in ok]
    ax.plot(seqs, scores, marker="o", linestyle="", label="score")
    running, best_so_far = [], float("-inf")
    for s in scores:
        best_so_far = max(best_so_far, s)
        running.append(best_so_far)
    ax.step(seqs, running, where="post", color="tab:red", label="best so far")
    for r in found:
        if r.trial.status in ("refused", "invalid", "stopped"):
            ax.axvline(r.trial.seq, color="tab:gray", alpha=0.3, linewidth=1)
    ax.set_xlabel("trial (grey lines: refused, invalid or stopping trials)")
    ax.set_ylabel("score")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    paths.append(_save(fig, written(tune.id, out)[1]))

    fig = Figure(figsize=(10, 3.2), layout="constrained")
    ax = fig.subplots()
    shown = [r for r in found if r.trial.paused_share is not None]
    ax.bar([r.trial.seq for r in shown], [100 * r.trial.paused_share for r in shown], color="tab:orange")
    ax.set_xlabel("trial")
    ax.set_ylabel("time paused, most paused port (%)")
    ax.grid(alpha=0.3, axis="y")
    paths.append(_save(fig, written(tune.id, out)[2]))
    return paths


def _save(fig, path: Path) -> Path:
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=100)
    write_output(path, png.getvalue(), "plot")
    return path


def page(tune: Tune, text: str, images: list[Path], out: Path) -> Path:
    """One self-contained HTML page next to the PNGs (they are referenced by file name)."""
    body = "".join(f'<p><img src="{html.escape(p.name)}" alt="{html.escape(p.stem)}"></p>\n' for p in images)
    doc = (f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>losslessd tune {tune.id}</title></head>\n"
           f"<body>\n<h1>losslessd tune {tune.id}</h1>\n<pre>{html.escape(text)}</pre>\n{body}</body></html>\n")
    path = written(tune.id, out)[3]
    write_output(path, doc.encode("utf-8"), "page")
    return path
