"""`losslessd tune`: benchmark-driven ECN tuning (dry run unless --apply), and `losslessd tune report`."""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from ..limits import absent_or_kind, check_output, not_a_file, not_an_input
from ..printable import printable_lines, quoted
from ..tune.score import Weights
from ..tune.search import Strategy
from .main import new_app
from .options import DEFAULT_KNOWN_HOSTS, INSECURE_OPTION, KNOWN_HOSTS_OPTION, finite, policy_named, seconds

app = new_app(no_args_is_help=False,
              help="Tune ECN (Kmin, Kmax, Pmax) from benchmark results; `tune report` shows a tune's trials.\n\n"
                   "Every candidate inside the policy's bounds is rendered per device and linted before use; with "
                   "--apply each trial pushes it through the platform's transactional path (canary first), runs the "
                   "benchmark and scores it, and the fabric ends at the best-known settings. Without --apply it "
                   "prints each device's first snippet and the benchmark command, and pushes nothing.\n\n"
                   "Exit 0: done (or dry run printed). 1: the tune stopped early (a refused commit, drops, a storm, "
                   "no run of the settings as found to score) or no trial was valid. 2: input or usage error, or a "
                   "device answer that cannot be trusted (the devices put back as found). 3: internal error (a bug in "
                   "losslessd). 130, 143, 129: stopped by Ctrl-C, SIGTERM or SIGHUP, the devices put back to the "
                   "best-known settings.")


@app.callback(invoke_without_command=True)
def tune(
    ctx: typer.Context,
    benchmark: Annotated[str | None, typer.Option("--benchmark", "-b", help="The benchmark command a trial runs (split "
                                                  "like a shell line, run without a shell): anything printing "
                                                  "nccl-tests or perftest output.")] = None,
    inventory: Annotated[Path | None, typer.Option("--inventory", "-i", help="Inventory of the devices (as `pull` "
                                                   "reads it).")] = None,
    devices: Annotated[str | None, typer.Option("--devices", "-d", help="Devices to tune, comma-separated (default: "
                                                "every inventory device of a tunable platform); the first is the "
                                                "canary unless --canary says.")] = None,
    ports: Annotated[list[str] | None, typer.Option("--ports", help="DEVICE:PORT[,PORT...] to tune on a device "
                                                    "(default: its RoCE-facing ports, as lint picks them). "
                                                    "Repeatable.")] = None,
    models: Annotated[list[str] | None, typer.Option("--model", help="DEVICE:MODEL, the hardware model of a device "
                                                     "whose ECN commands differ by model (Junos, NX-OS) when its "
                                                     "`show version` does not print it (e.g. leaf1:qfx10002-36q). "
                                                     "Repeatable.")] = None,
    sizes: Annotated[str | None, typer.Option("--sizes", help="Message sizes to score, comma-separated (64M,1G): the "
                                              "busbw at each, never the average the benchmark prints. Default: every "
                                              "printed size.")] = None,
    budget: Annotated[int, typer.Option("--budget", min=1, help="Benchmark runs the search may spend "
                                        "(settings-as-found runs not counted).")] = 30,
    strategy: Annotated[Strategy, typer.Option("--strategy", help="Search strategy (bayes needs the `bayes` extra: "
                                               "optuna).")] = Strategy.coordinate,
    policy: Annotated[str, typer.Option("--policy", "-p", callback=policy_named,
                                        help="Policy whose ECN ranges bound the search.")] = "roce-dscp26",
    apply: Annotated[bool, typer.Option("--apply", help="Push candidates to the devices and run the benchmark. "
                                        "Without it, print the snippets and the command only.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="With --apply: do not ask for confirmation.")] = False,
    canary: Annotated[str | None, typer.Option("--canary", help="The device pushed first in every trial.")] = None,
    db: Annotated[Path, typer.Option("--db", dir_okay=False, help="Trial database; the same command resumes a "
                                     "killed tune from it.")] = Path("losslessd-tune.sqlite"),
    timeout: Annotated[float, typer.Option("--timeout", min=1.0,
                                           callback=seconds, help="Seconds a benchmark run may take.")] = 3600.0,
    regression: Annotated[float, typer.Option("--regression-pct", min=0.0,
                                              callback=finite, help="Back to the best-known settings "
                                              "after a trial this much below the best score.")] = 10.0,
    noise_runs: Annotated[int, typer.Option("--noise-runs", min=2, help="Runs of the settings as found, to measure "
                                            "the noise.")] = 3,
    pause_weight: Annotated[float, typer.Option("--pause-weight", min=0.0,
                                                callback=finite, help="Score penalty per unit of time "
                                                "paused (1: a port paused all the time scores 0).")] = Weights.pause,
    drop_weight: Annotated[float, typer.Option("--drop-weight", min=0.0, max=1.0, help="Score penalty share for any "
                                               "drop on a lossless queue.")] = Weights.drop,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random and bayes strategies.")] = 0,
    known_hosts: Annotated[Path, KNOWN_HOSTS_OPTION] = DEFAULT_KNOWN_HOSTS,
    insecure: Annotated[bool, INSECURE_OPTION] = False,
) -> None:
    """Run (or resume) a tune; `losslessd tune --help` shows the group's help= above (typer shows it, not this)."""
    if ctx.invoked_subcommand is not None:
        return
    # (here, not at the top: `tune --help` and `tune report` need neither the tuner, the renderer, the fixer nor the
    # collectors these bring: 2,458 M instructions of start-up for the help before, docs/lint-at-scale.md)
    from ..policy import load_policy
    from ..tune.bench import cycles_option, parse_size
    from ..tune.session import Options, Tuner
    from .pull import preflight

    logging.getLogger("paramiko").setLevel(logging.CRITICAL)
    if not benchmark or inventory is None:
        raise InputError("give --benchmark CMD and --inventory FILE (and --devices), or see `losslessd tune --help`")
    try:
        argv = shlex.split(benchmark)
    except ValueError as exc:  # ("No closing quotation", "No escaped character": an internal error, exit 3)
        raise InputError(f"--benchmark {quoted(benchmark)} is no command line: {exc} (it is split as a shell "
                         "splits one, and run without a shell)") from None
    if not argv:
        raise InputError("--benchmark is empty")
    if why := cycles_option(argv):
        raise InputError(f"--benchmark: {why}")
    try:
        size_list = _listed("--sizes", sizes, parse_size)
    except ValueError as exc:
        raise InputError(f"--sizes: {exc}") from None
    inv, keys = preflight(inventory, known_hosts, insecure)
    check_output(db, "tune database", regular=True)  # (before any device is contacted; Store checks it again)
    opts = Options(benchmark=argv, sizes=size_list, budget=budget, strategy=strategy.value, seed=seed,
                   timeout_s=timeout,
                   weights=Weights(pause=pause_weight, drop=drop_weight), regression_pct=regression,
                   noise_runs=noise_runs, apply=apply, canary=canary, known_hosts=keys, db=db,
                   ports=_ports(ports or []), models=_models(models or []))
    tuner = Tuner(inv, _listed("--devices", devices), load_policy(policy), opts, say=say)
    if not apply:
        tuner.load()
        raise typer.Exit(tuner.dry_run())
    if not yes and not sys.stdin.isatty():
        raise InputError("--apply asks for confirmation on a terminal; give --yes to confirm non-interactively")
    with tuner.locked():  # (before the running configs are read: a second tune read the first's candidate there)
        tuner.load()
        for line in tuner.describe():
            say(line)
        if not yes:
            _confirm(f"Push candidates to {', '.join(tuner.devices)} and run the benchmark?", tuner.devices)
        code = tuner.run()
    if tuner.stop.signum is not None:  # stopped by a signal (SIGHUP: its terminal is gone): the exit says so, not EIO
        _drop_unwritable_output()
    raise typer.Exit(code)


def _confirm(question: str, devices: list[str]) -> None:
    """The operator's yes, or InputError (exit 2, as docs/tune.md gives every run that pushed nothing): a no, an end
    of input or Ctrl-C at the question ended as click's "Aborted!" with exit 1, the code of a tune that stopped
    early after pushing."""
    try:
        if typer.confirm(question):
            return
    except typer.Abort:
        pass
    raise InputError(f"--apply was not confirmed: nothing was pushed to {', '.join(devices)}")


def _drop_unwritable_output() -> None:
    """What a tune stopped by a signal still had buffered: written if it can be, else dropped (and the interpreter's
    last flush made quiet), so 128 + the signal stays the exit status."""
    try:
        sys.stdout.flush()
    except OSError:
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - (closed by the interpreter at exit)


def say(text: str) -> None:
    """A line (or several: a snippet) of the tuner's, its control characters written out: snippets and the
    reasons a candidate lints with an error carry names from the devices' running configs."""
    typer.echo(printable_lines(text))


def _listed(option: str, value: str | None, parse: Callable[[str], Any] = str) -> list:
    """The comma-separated items of ``value`` (each stripped, then ``parse``d), [] when the option is not given. Given,
    it must name one at least and each once, as parsed: `--devices ","` (or an empty $DEVICES) tuned every tunable
    device of the inventory, `--sizes ""` scored every printed size, `-d leaf1,spine1,spine1` pushed spine1 twice a
    trial, `-d "leaf1, spine1"` named no device ` spine1`, and `--sizes 64M,67108864` scored one size twice."""
    if value is None:
        return []
    written = [item.strip() for item in value.split(",") if item.strip()]
    if not written:
        raise InputError(f"{option} {quoted(value)} names nothing (leave the option out for its default)")
    spellings: dict[Any, list[str]] = {}
    for text in written:
        spellings.setdefault(parse(text), []).append(text)
    if twice := [" = ".join(quoted(t) for t in dict.fromkeys(ts)) for ts in spellings.values() if len(ts) > 1]:
        raise InputError(f"{option} names {', '.join(twice)} twice: name each once")
    return list(spellings)


def _ports(specs: list[str]) -> dict[str, list[str]]:
    """--ports DEVICE:PORT[,PORT...] per device, its repeats joined (a port named twice, in one or two, refused)."""
    named: dict[str, str] = {}
    for spec in specs:
        device, _, names = spec.partition(":")
        if not device.strip() or not names.strip(", \t"):  # (`leaf1:,` named no port: every RoCE port was tuned)
            raise InputError(f"--ports {quoted(spec)}: expected DEVICE:PORT[,PORT...]")
        named[device.strip()] = f"{named.get(device.strip(), '')},{names}"
    return {device: _listed(f"--ports {device}:", names) for device, names in named.items()}


def _models(specs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for spec in specs:
        device, _, model = spec.partition(":")
        if not device.strip() or not model.strip():
            raise InputError(f"--model {quoted(spec)}: expected DEVICE:MODEL")
        if device.strip() in out:  # (the last one was taken without a word: the ECN commands of which model?)
            raise InputError(f"--model names {quoted(device.strip())} twice: name each device once")
        out[device.strip()] = model.strip()
    return out


@app.command("report")
def report(
    db: Annotated[Path, typer.Option("--db", help="Trial database.")] = Path("losslessd-tune.sqlite"),
    # (a tune number is an SQLite rowid, a signed 64-bit integer: a larger one was an OverflowError, exit 3)
    tune_id: Annotated[int | None, typer.Option("--tune", min=1, max=2**63 - 1,
                                                help="Tune number (default: the latest).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for the PNG plots and the HTML "
                                             "page.")] = None,
) -> None:
    """Print a tune's trials; with --out also write plots (measure against each knob, score over trials, time
    paused) as PNG and an HTML page with all of it.

    Exit 0: printed (and written). 2: no tune database or no such tune there, or an --out that cannot be written."""
    from ..tune import report as report_mod
    from ..tune.store import Store

    if kind := not_a_file(db):
        raise InputError(f"{kind}: a tune database is a file", file=str(db))
    if not os.path.isfile(db):
        why = absent_or_kind(db)  # (a folder on the way this user may not enter was "no such")
        raise InputError("no such tune database" if why == "not found" else f"the tune database {why}", file=str(db))
    with Store(db, create=False) as store:  # a report writes nothing
        tune = store.tune(tune_id)
        found = report_mod.rows(store, tune)
        text = report_mod.table(tune, found, store.events(tune.id))
    for path in report_mod.written(tune.id, out) if out is not None else []:  # (a link to the database among them)
        not_an_input(path, [db], set(), "tune report", "plot", "--out")
    typer.echo(printable_lines(text), nl=False)
    if out is not None:
        images = report_mod.plots(tune, found, out)
        page = report_mod.page(tune, text, images, out)
        typer.echo(f"wrote {', '.join(str(p) for p in images)} and {page}")
