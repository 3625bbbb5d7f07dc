"""`losslessd events` and `losslessd history`: read the daemon's history file (docs/history.md).

Both open the file read-only, so they run beside the daemon. ``--config`` reads only the settings'
``history`` section: no inventory, credentials or policy are needed to look at what happened.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
import time
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Annotated, Literal

import typer
from pydantic import ValidationError

from ..docpos import load_yaml, pointer
from ..errors import EXIT_INPUT, InputError
from ..history import History
from ..limits import not_an_input, write_output
from ..monitor import (
    CNP_HANDLED,
    CNP_SENT,
    DROPPED_PACKETS,
    ECN_MARKED,
    PAUSE_DURATION_US,
    PFC_RX,
    PFC_TX,
    Event,
    EventKind,
)
from ..printable import printable, quoted
from .main import echo_error

# Counters shown for a port, in column order. PFC and NIC counters are per priority (or per port);
# ECN marks and drops are per egress queue.
PRIORITY_NAMES = (PFC_RX, PFC_TX, PAUSE_DURATION_US, CNP_SENT, CNP_HANDLED)
QUEUE_NAMES = (ECN_MARKED, DROPPED_PACKETS)
_AGO_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class Format(str, Enum):
    text = "text"
    json = "json"


_SINCE_HELP = "Start: a duration ago (30m, 6h, 2d) or an ISO time (2024-05-01T10:00; UTC unless it says otherwise)."
Db = Annotated[Path | None, typer.Option("--db", help="History file (the daemon's history.path).")]
Config = Annotated[Path | None, typer.Option("--config", help="Daemon settings file: its history.path is read "
                                             "(nothing else).")]
Fmt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
Until = Annotated[str | None, typer.Option("--until", help="End, like --since.")]


def events(db: Db = None, config: Config = None,
           device: Annotated[str | None, typer.Option("--device", help="Only this device.")] = None,
           kind: Annotated[EventKind | None, typer.Option("--kind", help="Only this kind.")] = None,
           since: Annotated[str | None, typer.Option("--since", help=_SINCE_HELP + " Events still open then are "
                                                     "included.")] = None,
           until: Until = None,
           open_only: Annotated[bool, typer.Option("--open", help="Only events that have not ended.")] = False,
           fmt: Fmt = Format.text) -> None:
    """List the daemon's events (storms, pause and ECN trouble, devices down, drift), oldest first.

    Exit 0: listed (`no events` when none match). 2: no history file there, bad options, or a damaged row: it is
    named (file and rowid) after the rows that read; the rest of the history is still shown, and a damaged file
    never reads as quiet."""
    now = time.time()
    damaged: list[InputError] = []
    span = _span(since, until, now)
    store = _history(db, config)
    found = store.events(device=device, kind=kind, since=span["since"], until=span["until"], open_only=open_only,
                         damaged=damaged)
    note = None
    if device is not None and not found and _known_device(store, device) == "polled":
        note = (f"losslessd: note: no events yet: the daemon polls {device} and the history holds no row of it yet "
                "(its first polls are not committed)")
    if fmt is Format.json:
        typer.echo(json.dumps({"events": [_event_json(e) for e in found],
                               "damaged": [str(exc) for exc in damaged]}, indent=2))
    else:
        for e in found:
            end = "open" if e.end_unix_s is None else \
                f"{_iso(e.end_unix_s)} ({_duration(e.end_unix_s - e.start_unix_s)})"
            where = " ".join(x for x in (e.device, e.port, None if e.priority is None else f"priority {e.priority}")
                             if x)
            text = e.message if e.message.startswith(where) else f"{where}: {e.message}"  # detectors name the place
            typer.echo(f"{_iso(e.start_unix_s)} -> {end}  {e.severity:<7} {e.kind:<15} {printable(text)}")
        if not found and not damaged:
            typer.echo("no events")
    if note is not None:
        typer.echo(printable(note), err=True)
    _refuse_damaged(damaged)


def _known_device(store: History, device: str) -> Literal["rows", "polled", "unknown"]:
    """InputError (exit 2) naming the devices the history knows when ``device`` is none of them: a mistyped --device
    must not read as a quiet device ("no events", exit 0), in `events` as in `history`. The history knows the devices
    it holds rows of ("rows") and those its daemon polls, as of its last start or reload (History.polled): one of
    those without rows ("polled") is a device whose first polls are not committed yet, not refused. A history that
    knows no device (written before schema 7 by a daemon that has not committed its first rows) has nothing to tell a
    mistyped name by: not refused either ("unknown")."""
    known = store.devices()
    if device in known:
        return "rows"
    polled = store.polled()
    if device in polled:
        return "polled"
    if not known and not polled:
        return "unknown"
    known = sorted({*known, *polled}, key=str)  # (str: a damaged file's row may hold another type)
    shown = ", ".join(map(str, known[:20])) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
    raise InputError(f"--device {quoted(device)}: the history holds no device of that name, nor does its daemon poll "
                     f"one (devices: {printable(shown) or 'none yet'}); give the name the daemon's inventory gives it",
                     file=str(store.path))


def _refuse_damaged(damaged: list[InputError]) -> None:
    """Each damaged row on stderr, then exit 2 (README "Exit codes": input that does not check out)."""
    for exc in damaged:
        echo_error(str(exc))
    if damaged:
        raise typer.Exit(EXIT_INPUT)


def history(db: Db = None, config: Config = None, *,
            device: Annotated[str, typer.Option("--device", help="Device name as in the inventory.")],
            port: Annotated[str, typer.Option("--port", help="Port name as the device calls it (Ethernet8).")],
            priority: Annotated[int | None, typer.Option("--priority", min=0, max=7, help="One priority (default: "
                                                         "each priority with samples, one after another).")] = None,
            # (SAI saiqueue.h: SAI_QUEUE_ATTR_INDEX is a sai_uint8_t; 10^30 was an OverflowError in SQLite, exit 3)
            queue: Annotated[int | None, typer.Option("--queue", min=0, max=255, help="Egress queue for ECN marks and "
                                                      "drops, all along (default: in each bucket, the queue the "
                                                      "device's maps in force then put the priority on).")] = None,
            since: Annotated[str, typer.Option("--since", help=_SINCE_HELP)] = "24h",
            until: Until = None,
            fmt: Fmt = Format.text,
            plot: Annotated[Path | None, typer.Option("--plot", dir_okay=False, help="Also write a plot: out.png, or "
                                                      "out.html (with a table).")] = None) -> None:
    """Show a port's pause and ECN rates over time (per second; mean and peak per stored bucket), per
    priority; the plot shades the port's events.

    Exit 0: rows shown. 2: the history holds no samples of that port in that time (nothing to show is not
    a finding: a mistyped --port must not read as quiet, nor as a port in trouble).
    """
    if plot is not None and plot.suffix.lower() not in (".png", ".html", ".htm"):
        raise InputError("--plot must end in .png or .html", file=str(plot))
    now = time.time()
    store = _history(db, config)
    if plot is not None:
        not_an_input(plot, [store.path, config], set(), "history", "plot", "--plot")
    span = _span(since, until, now)
    # Priorities are shown one by one: a sum over them has a mean (the sums add up) but no peak (the
    # store keeps each priority's highest one-poll rate, and those need not fall on the same poll).
    chosen: list[int | None] = [priority] if priority is not None else [
        *store.indexes(device, port, PRIORITY_NAMES + QUEUE_NAMES, **span)] or [None]
    by_prio = {p: _shown(_queues(store, device, port, p, span) if queue is None else [(-math.inf, queue, None)],
                         span) for p in chosen}
    blocks = [(p, by_prio[p], _rows(store, device, port, p, by_prio[p], span)) for p in chosen]
    blocks = [b for b in blocks if b[2]]
    for p, spans, _ in blocks:
        for start, end, _q, why in spans:
            if why is not None:
                when = "" if len(spans) == 1 else f" {_between(start, end)}"
                typer.echo(printable(f"losslessd: note: ECN marks and drops of {device} {port} priority {p} not "
                                     f"shown{when}: {why}; give --queue"), err=True)
    if not blocks:
        _known_device(store, device)
        raise InputError(f"no samples of {device} {port} in that time: check --device/--port (as the daemon names "
                         "them) and --since")
    titled = [(_title(device, port, p, spans), p, spans, rows) for p, spans, rows in blocks]
    if fmt is Format.json:
        def rows_json(rows: dict, spans: list[Span]) -> list[dict]:
            return [{"time": _iso(b), "time_unix_s": b, "queue": _span_at(spans, b)[2], "per_s": rows[b]}
                    for b in sorted(rows)]

        def queue_of(spans: list[Span]) -> int | None:  # one queue all along; else each row's "queue" says
            return spans[0][2] if len(spans) == 1 else None

        doc: dict = {"device": device, "port": port, "priority": priority, "queue": queue}
        if priority is not None:
            doc.update(queue=queue_of(titled[0][2]), rows=rows_json(titled[0][3], titled[0][2]))
        else:
            doc["priorities"] = [{"priority": p, "queue": queue_of(spans), "rows": rows_json(rows, spans)}
                                 for _, p, spans, rows in titled]
        typer.echo(json.dumps(doc, indent=2))
    else:
        typer.echo("\n\n".join(_table(title, rows) for title, _, _, rows in titled))
    if plot is not None:
        damaged: list[InputError] = []
        shown = [e for e in store.events(device=device, since=span["since"], until=span["until"], damaged=damaged)
                 if e.port == port and e.basis != "lint"
                 and (priority is None or e.priority in (None, priority))]
        lines = [(f" p{p}" if priority is None and p is not None else "", rows) for _, p, _, rows in titled]
        title = titled[0][0] if len(titled) == 1 else f"{device} {port} priorities " + ", ".join(
            str(p) for _, p, _, _ in titled)
        _write_plot(plot, title, lines, shown)
        typer.echo(f"plot written to {plot}", err=True)
        _refuse_damaged(damaged)


# The egress queue whose ECN marks and drops stand for a priority, from a time until a time (None, why: not shown).
Span = tuple[float, float, int | None, str | None]


def _queues(store: History, device: str, port: str, priority: int | None,
            span: dict) -> list[tuple[float, int | None, str | None]]:
    """(from, queue, why) for each map of the port the history holds (History.queue_spans): the egress queue whose
    ECN marks and drops stand for ``priority`` while that map held, the one it puts the priority on
    (monitor.carrying_queues); None and why when it does not say and the port has per-queue counters. A port with
    none (a NIC counts its marks per port) needs no queue; without a priority, only per-port counters are shown."""
    if priority is None or not store.indexes(device, port, QUEUE_NAMES, **span):
        return [(-math.inf, priority, None)]  # (per-port counters only: any index reads them)
    maps = store.queue_spans(device, port)
    if maps is None:
        return [(-math.inf, None, f"the history holds no queue maps of {device} (the daemon has not read its config)")]
    out: list[tuple[float, int | None, str | None]] = []
    for start, by_prio in maps:
        found = by_prio.get(priority)
        out.append((start, found[0], None) if found is not None and len(found) == 1 else (
            start, None, f"its maps as read do not say which egress queue carries priority {priority}" if not found else
            f"priority {priority} goes to queues {', '.join(map(str, found))}"))
    return out


def _shown(queues: list[tuple[float, int | None, str | None]], span: dict) -> list[Span]:
    """The maps' spans that overlap the time shown, each with its end, the ones in a row that agree joined."""
    ends = [start for start, _, _ in queues[1:]] + [math.inf]
    since, until = span["since"], span["until"]
    out: list[Span] = []
    for (start, queue, why), end in zip(queues, ends, strict=True):
        if (since is not None and end <= since) or (until is not None and start > until):
            continue
        if out and out[-1][2:] == (queue, why):
            out[-1] = (out[-1][0], end, queue, why)
        else:
            out.append((start, end, queue, why))
    return out or [(-math.inf, math.inf, None, None)]


def _span_at(spans: list[Span], bucket: float) -> Span:
    """The span a bucket is in: the map in force at its start."""
    return next(s for s in reversed(spans) if s[0] <= bucket)


def _between(start: float, end: float) -> str:
    return " ".join(([f"from {_iso(start)}"] if start > -math.inf else []) +
                    ([f"until {_iso(end)}"] if end < math.inf else []))


def _rows(store: History, device: str, port: str, priority: int | None, spans: list[Span],
          span: dict) -> dict[float, dict[str, dict[str, float]]]:
    """bucket -> counter -> {"mean", "max"} per second, for one priority (PFC, NIC) and, for ECN marks and drops, in
    each bucket the queue of the map in force then (none while it is not known: not shown)."""
    rows: dict[float, dict[str, dict[str, float]]] = {}
    queues = sorted({q for _, _, q, _ in spans if q is not None})
    for names, indexes in ((PRIORITY_NAMES, [priority]), (QUEUE_NAMES, queues if priority is not None else [None])):
        for index in indexes:
            for stat in ("mean", "max"):
                for bucket, name, value in store.series(device, port, names, index=index, stat=stat, **span):
                    if names is QUEUE_NAMES and priority is not None and _span_at(spans, bucket)[2] != index:
                        continue
                    rows.setdefault(bucket, {}).setdefault(name, {})[stat] = value
    return rows


def _title(device: str, port: str, priority: int | None, spans: list[Span]) -> str:
    if priority is None:  # only counters the device keeps per port (a NIC's CNPs)
        return f"{device} {port}"
    shown = ", ".join(("queue unknown" if q is None else f"queue {q}") + (f" {_between(start, end)}" if len(spans) > 1
                      else "") for start, end, q, _ in spans if not (len(spans) == 1 and q == priority))
    return f"{device} {port} priority {priority}" + (f", {shown}" if shown else "")


def _history(db: Path | None, config: Path | None) -> History:
    if db is not None and config is None:
        return History(db, create=False)
    if db is not None or config is None:
        raise InputError("give the history file with --db FILE or the daemon's settings with --config FILE (one)")
    from ..daemon.settings import HistorySettings  # the daemon's own defaults, e.g. losslessd.db

    doc = load_yaml(config)
    section = (doc.data.get("history") if isinstance(doc.data, dict) else None) or {}
    if not isinstance(section, dict):
        raise InputError("history must be a mapping", file=doc.file, line=doc.line_of(["history"]))
    try:
        relative = HistorySettings.model_validate(section).path
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(map(str, ("history", *err["loc"])))
        raise InputError(f"`{where}`: {err['msg'].removeprefix('Value error, ')}", file=doc.file,
                         line=doc.line_of(["history", *err["loc"]]),
                         pointer=pointer(["history", *err["loc"]])) from None
    return History(config.resolve().parent / Path(relative).expanduser(), create=False)


def _span(since: str | None, until: str | None, now: float) -> dict[str, float | None]:
    """--since and --until as times; InputError when --until is before --since: that span holds nothing, and
    `events --since 1h --until 2h` listed no event, exit 0, as a quiet fabric does."""
    span = {"since": _when(since, now, "--since"), "until": _when(until, now, "--until")}
    if span["since"] is not None and span["until"] is not None and span["until"] < span["since"]:
        raise InputError(f"--until ({_iso(span['until'])}) is before --since ({_iso(span['since'])}): no time is "
                         "in between (a duration is how long ago: --since 2h --until 1h)")
    return span


def _when(text: str | None, now: float, option: str) -> float | None:
    """'30m' -> now - 1800; ISO times as given (naive = UTC)."""
    if text is None:
        return None
    # (ASCII digits, at most 12: \d also reads other scripts' digits, and 5,000 of them were an infinite duration)
    if m := re.fullmatch(r"\s*(\d{1,12}(?:\.\d{1,9})?)\s*([smhdw])\s*", text, re.ASCII):
        return now - float(m[1]) * _AGO_S[m[2]]
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"{option} {quoted(text)}: give a duration ago (30m, 6h, 2d) or an ISO time "
                         "(2024-05-01T10:00Z)") from None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def _event_json(e: Event) -> dict:
    return {"id": e.id, "kind": e.kind, "device": e.device, "port": e.port, "priority": e.priority,
            "start": _iso(e.start_unix_s), "start_unix_s": e.start_unix_s,
            "end": None if e.end_unix_s is None else _iso(e.end_unix_s), "end_unix_s": e.end_unix_s,
            "severity": e.severity, "basis": e.basis, "code": e.code, "message": e.message, "numbers": e.numbers,
            "proposal": e.proposal}


def _columns(rows: dict) -> list[str]:
    present = {name for row in rows.values() for name in row}
    return [n for n in PRIORITY_NAMES + QUEUE_NAMES if n in present]


def _table(title: str, rows: dict) -> str:
    names = _columns(rows)
    lines = [f"{printable(title)}: mean/peak per second", "time (UTC)           " + "".join(f"{n:>24}" for n in names)]
    for bucket in sorted(rows):
        cells = (rows[bucket].get(n, {}) for n in names)
        lines.append(_iso(bucket) + "  " + "".join(f"{_cell(c):>24}" for c in cells))
    return "\n".join(lines)


def _cell(values: dict[str, float]) -> str:
    return "-" if not values else f"{values.get('mean', 0):.4g}/{values.get('max', 0):.4g}"


def _write_plot(path: Path, title: str, series: list[tuple[str, dict]], shown: list[Event]) -> None:
    """Pause rates above, ECN marks and CNPs below, the port's events shaded; PNG, or HTML with the PNG
    inlined and the numbers. ``series``: (label suffix, rows) per priority shown."""
    try:  # Agg canvas behind Figure.savefig: pyplot (and a display) never needed
        from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plots need matplotlib, which comes with the `plot` extra: pip install 'losslessd[plot]'") \
            from None
    times = sorted({t for _, rows in series for t in rows})
    fig = Figure(figsize=(10, 6), layout="constrained")
    pause, ecn = fig.subplots(2, 1, sharex=True)
    for axes, names, label in ((pause, (PFC_RX, PFC_TX), "pause frames/s"),
                               (ecn, (ECN_MARKED, CNP_SENT, CNP_HANDLED), "packets/s")):
        for suffix, rows in series:
            x = [datetime.fromtimestamp(t, timezone.utc) for t in sorted(rows)]
            for name in names:
                if any(name in row for row in rows.values()):
                    axes.plot(x, [rows[t].get(name, {}).get("mean", 0.0) for t in sorted(rows)],
                              label=f"{name}{suffix} (mean)", drawstyle="steps-post")  # a mean holds to the next bucket
        for e in shown:
            axes.axvspan(datetime.fromtimestamp(e.start_unix_s, timezone.utc),
                         datetime.fromtimestamp(e.end_unix_s or times[-1], timezone.utc), color="tab:red", alpha=0.12)
        axes.set_ylabel(label)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(loc="upper left")
        axes.grid(True, alpha=0.3)
    locator = AutoDateLocator()
    ecn.xaxis.set_major_locator(locator)
    ecn.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    pause.set_title(title + (f" (shaded: {', '.join(sorted({e.kind for e in shown}))})" if shown else ""))
    ecn.set_xlabel("time (UTC)")
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=100)
    write_output(path, png.getvalue() if path.suffix.lower() == ".png" else
                 _html(title, series, png.getvalue()).encode("utf-8"), "plot")


def _html(title: str, series: list[tuple[str, dict]], png: bytes) -> str:
    tables = []
    for suffix, rows in series:
        names = _columns(rows)
        head = "".join(f"<th>{html.escape(n + suffix)} /s mean/peak</th>" for n in names)
        body = "\n".join("<tr><td>" + _iso(t) + "</td>" + "".join(
            f"<td>{_cell(rows[t].get(n, {}))}</td>" for n in names) + "</tr>" for t in sorted(rows))
        tables.append(f"<table border=\"1\"><tr><th>time (UTC)</th>{head}</tr>\n{body}\n</table>\n")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head><body>\n"
            f"<h1>{html.escape(title)}</h1>\n<img alt=\"pause and ECN rates\" src=\"data:image/png;base64,"
            f"{base64.b64encode(png).decode()}\">\n{''.join(tables)}</body></html>\n")
