"""One `losslessd tune`: read the devices' running configs, build the search space inside the policy's bounds,
and either print what it would do (the default) or run trials against the fabric (--apply).

A trial: the candidate is rendered and linted per device (refused without running when it lints with an
error), pushed through each platform's transactional path (the canary device first; losslessd.tune.apply),
the counters are read, the benchmark runs, the counters are read again, and the trial is scored and stored.
The fabric goes back to the best-known settings when a trial scores worse than the best by more than the
regression margin (and the search goes on), and when a trial drops packets on a lossless queue, the storm
detector fires, or a device refuses a commit (and the tune stops). It ends at the best-known settings.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import statistics
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import field, replace
from pathlib import Path

from .. import render
from ..collect.ssh import CollectError, Session
from ..errors import InputError
from ..inventory import Host, Inventory, device_keys
from ..limits import ENV_MAX_FILE_MB, describe_mib, max_file_bytes, universal_newlines
from ..monitor import QueueMaps, clock, queue_maps_of
from ..platforms import Command
from ..policy import Policy
from ..records import record
from ..render.families import FAMILY_SECTIONS
from ..statelock import WRITERS
from . import candidate as cand_mod
from .apply import Pusher, PushError, pusher_for
from .bench import BenchResult, format_size, read_benchmark
from .counters import CounterReader
from .score import DEFAULT_NOISE_PCT, Weights, compare, noise_pct, score, sizes_to_score
from .search import Measured, Search, StopTune
from .space import Candidate, Space, from_policy
from .store import AS_FOUND, Store, Trial

KILL_GRACE_S = 5.0  # after SIGTERM, how long a timed-out benchmark gets before SIGKILL
EXIT_GRACE_S = 2.0  # after the benchmark exits, how long processes it left may keep its output open
POLL_S = 0.25  # how often a running benchmark is asked whether it exited (its pipes may outlive it)
# Signals that stop a tune the way a refused push does (put back, recorded, said): Ctrl-C, `kill`/systemd/a cancelled CI
# job, the terminal or SSH session it ran in going away.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """A stop signal arrived: the tune unwinds to its put-back (a BaseException, as KeyboardInterrupt is, so no
    ``except Exception`` on the way, in losslessd or a library it drives, takes it for a failed push or read)."""

    def __init__(self, signum: int):
        self.signum = signum
        self.reason = f"interrupted by {signal.Signals(signum).name}"
        super().__init__(self.reason)


class Stop:
    """The stop signal a tune got (``signum``, the first one), and the switch that holds the ones after it."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.armed = False  # (handlers installed: only on the main thread)

    def first(self, signum: int, _frame) -> None:
        self.hold()
        self.signum = signum
        raise Interrupted(signum)

    def later(self, signum: int, _frame) -> None:
        if self.signum is None:  # (the first one, arrived while held: the put-back goes on, the exit says it)
            self.signum = signum
        # (straight to the descriptor: a print from a handler that interrupted a print raises RuntimeError, reentrant)
        with contextlib.suppress(OSError):
            os.write(2, f"{signal.Signals(signum).name}: already stopping; the devices are being put back\n".encode())

    def hold(self) -> None:
        """From here a stop signal is recorded and said, never raised: the put-back and the tune's closing run to
        their end (a signal raising in them left the tune `running` and the -origin checkpoint on the switch)."""
        if self.armed:
            for sig in STOP_SIGNALS:
                signal.signal(sig, self.later)


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[Stop]:
    """The first of STOP_SIGNALS raises Interrupted where the tune stands; the ones after it, and any once the tune
    holds them (its put-back), are said and ignored, so a second Ctrl-C does not cut the put-back short (SIGKILL
    still does: the next run resumes). Before, SIGTERM and SIGHUP killed the tune with the candidate on the devices
    and the benchmark running."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():  # (signal handlers belong to the main thread)
        yield stop
        return
    previous = {sig: signal.signal(sig, stop.first) for sig in STOP_SIGNALS}
    stop.armed = True
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@record
class Options:
    benchmark: list[str]
    sizes: list[int]
    budget: int = 30
    strategy: str = "coordinate"
    seed: int = 0
    timeout_s: float = 3600.0
    weights: Weights = field(default_factory=Weights)
    regression_pct: float = 10.0
    noise_runs: int = 3
    repeats: int = 3
    apply: bool = False
    canary: str | None = None
    known_hosts: Path | None = None
    ssh_timeout_s: float = 60.0
    db: Path = Path("losslessd-tune.sqlite")
    ports: dict[str, list[str]] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)  # --model DEVICE:MODEL, over what `show version` prints


@record
class Ran:
    """One benchmark run."""

    result: BenchResult
    output: str
    elapsed_s: float


def run_benchmark(argv: list[str], timeout_s: float, limit: int | None = None) -> Ran:
    """Run the benchmark command (no shell) in its own process group; a failure, a timeout, output beyond ``limit``
    bytes (default: the input file limit) or output with nothing to read is an invalid result with its reason,
    never an exception."""
    started = time.monotonic()
    limit = max_file_bytes() if limit is None else limit
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return Ran(BenchResult("unknown", invalid=[f"cannot run {argv[0]!r}: {exc.strerror or exc}"]), "", 0.0)
    try:
        out, err, stopped = _read_output(proc, started + timeout_s, limit)
    except BaseException:  # (interrupted: the benchmark runs in its own session, so nothing else stops it)
        _stop(proc)
        raise
    notes = [LEFTOVERS] if stopped == "leftovers" else []
    if stopped == "limit":
        return Ran(BenchResult("unknown", invalid=[f"the benchmark printed more than {describe_mib(limit)}, the "
                                                    f"limit of any input ({ENV_MAX_FILE_MB}); it was stopped"]),
                   out, time.monotonic() - started)
    if stopped == "timeout":
        return Ran(BenchResult("unknown", invalid=[f"the benchmark did not finish within {timeout_s:g} s (--timeout); "
                                                    "it was stopped"]), out, time.monotonic() - started)
    elapsed = time.monotonic() - started
    if proc.returncode != 0:
        tail = next((line.strip() for line in reversed((err or out).splitlines()) if line.strip()), "no output")
        how = (f"exited with status {proc.returncode}" if proc.returncode > 0
               else f"was killed by {_signal(proc.returncode)}")
        return Ran(BenchResult("unknown", invalid=[f"the benchmark {how}: {tail[:200]}"], notes=notes), out, elapsed)
    result = read_benchmark(out)
    result.notes[:0] = notes
    return Ran(result, out, elapsed)


# What a trial's notes say when the benchmark exited but processes it left held its output open.
LEFTOVERS = ("the benchmark exited, but processes it started kept its output open: they were stopped, and what it "
             "printed was read")


def _signal(returncode: int) -> str:
    """`signal 9 (SIGKILL)` for Popen's returncode -9 (a process ended by a signal: its status is none)."""
    try:
        return f"signal {-returncode} ({signal.Signals(-returncode).name})"
    except ValueError:
        return f"signal {-returncode}"


def _read_output(proc: subprocess.Popen, deadline: float, limit: int) -> tuple[str, str, str | None]:
    """(stdout, stderr, why it was stopped: "timeout", "limit", "leftovers" or None) of ``proc``, read as it prints
    until it exits; at ``deadline`` (monotonic), or past ``limit`` bytes in all, its process group is stopped and what
    it printed up to the limit kept. Decoded as text mode did (UTF-8, bad bytes replaced, universal newlines).
    communicate() kept everything: a benchmark printing without end (`yes`) filled the memory until --timeout.
    A benchmark that exited while processes it started (`monitor &` in a wrapper script) hold its output open has
    them stopped after EXIT_GRACE_S ("leftovers"): its output was read until --timeout (an hour), then thrown away."""
    assert proc.stdout is not None and proc.stderr is not None
    fds = (proc.stdout.fileno(), proc.stderr.fileno())
    chunks: dict[int, list[bytes]] = {fd: [] for fd in fds}
    size, stopped = 0, None
    try:  # (closed however the loop ends: a stop signal raised inside it left the pipes to the collector)
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            sel.register(proc.stderr, selectors.EVENT_READ)
            while sel.get_map():
                remaining = deadline - time.monotonic()
                if not stopped and proc.poll() is not None:  # it exited; its pipes are still open
                    stopped = "exited"
                    deadline = min(deadline, time.monotonic() + EXIT_GRACE_S)
                    continue
                if remaining <= 0:
                    if stopped == "exited":  # its leftovers hold the pipes: stop them, the output is whole
                        stopped = "leftovers"
                        _signal_group(proc.pid, signal.SIGTERM)
                        deadline = time.monotonic() + KILL_GRACE_S
                        continue
                    if stopped == "leftovers":
                        _signal_group(proc.pid, signal.SIGKILL)
                    if stopped:
                        break  # stopped, and the pipes still open after the grace (a process outside its group)
                    stopped = "timeout"
                    _stop(proc)
                    deadline = time.monotonic() + KILL_GRACE_S
                    continue
                for key, _ in sel.select(min(remaining, POLL_S) if not stopped else remaining):
                    data = os.read(key.fd, 65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        continue
                    if size < limit:
                        chunks[key.fd].append(data[:limit - size])
                    size += len(data)
                    if size > limit and stopped in (None, "exited"):
                        stopped = "limit"
                        _stop(proc)
                        deadline = time.monotonic() + KILL_GRACE_S
    finally:
        proc.stdout.close()
        proc.stderr.close()
    if stopped == "exited":  # (the pipes closed within the grace)
        stopped = None
    if not stopped:
        try:  # (its pipes are closed: it is exiting, or closed them and runs on)
            proc.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            stopped = "timeout"
            _stop(proc)

    def text(fd: int) -> str:
        return universal_newlines(b"".join(chunks[fd]).decode("utf-8", errors="replace"))

    return text(fds[0]), text(fds[1]), stopped


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    """``sig`` to what is left of an exited benchmark's process group (nothing may be left)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the benchmark's own process group (it started it: start_new_session), SIGKILL after a grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(KILL_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


def read_config(host: Host, known_hosts: Path | None, timeout_s: float) -> tuple[str, str | None]:
    """The device's running config over SSH, in the form a snippet applies to (Platform.config_reads: NX-OS's two
    parts joined), and its `show version` output where the platform's ECN commands differ by model
    (render.families) and its config does not name it (Junos, NX-OS: the platform record lists `show version` among
    its commands), as printed (a refusal included: it names no model, and candidate.load says so); None otherwise."""
    reads = host.platform.config_reads
    version = next((c for c in host.platform.commands if c.line == "show version"), None)
    wanted = reads + (version,) if version is not None and "ecn" in FAMILY_SECTIONS.get(host.platform.id, ()) \
        else reads
    session = Session(_only(host, *wanted), known_hosts=known_hosts, timeout=timeout_s)
    try:
        result = session.run()
    except CollectError as exc:
        raise InputError(f"{host.name}: cannot read its running config: {exc.code}: {exc.message}") from None
    for i, command in enumerate(reads):
        if i in result.refused:
            raise InputError(f"{host.name}: `{command.line}` failed: {result.refused[i]}")
    n = len(reads)
    printed = result.sections[n][1] if len(result.sections) > n else None  # (optional: never in result.refused)
    return cand_mod.joined_config([out for _, out in result.sections[:n]]), printed


def _only(host: Host, *commands: Command) -> Host:
    return replace(host, platform=replace(host.platform, commands=commands))


class Tuner:
    """Everything one `losslessd tune` needs; ``say`` prints progress (the CLI's echo)."""

    def __init__(self, inventory: Inventory, devices: list[str], policy: Policy, opts: Options,
                 say: Callable[[str], None] = print):
        unknown = [d for d in devices if d not in inventory.hosts]
        if unknown:
            raise InputError(f"no device {', '.join(unknown)} in the inventory (it has: {', '.join(inventory.hosts)})")
        if not devices:
            devices = [n for n, h in inventory.hosts.items() if h.platform.id in cand_mod.TUNABLE]
            if not devices:
                raise InputError("no device of the inventory has a platform losslessd can tune "
                                 f"({', '.join(cand_mod.TUNABLE)})")
        if refused := [cand_mod.untunable(d, inventory.hosts[d].platform.id) for d in devices
                       if inventory.hosts[d].platform.id not in cand_mod.TUNABLE]:  # (before any device is read)
            raise InputError("; ".join(refused))
        if opts.canary is not None and opts.canary not in devices:
            raise InputError(f"--canary {opts.canary} is not one of the tuned devices ({', '.join(devices)})")
        # (--ports of a device not tuned was dropped: `--ports leafl:Ethernet0` tuned every RoCE port of leaf1)
        for option, given in (("--ports", opts.ports), ("--model", opts.models)):
            if stray := [d for d in given if d not in devices]:
                raise InputError(f"{option} for {', '.join(stray)}, which is not tuned (tuned: {', '.join(devices)})")
        canary = opts.canary or devices[0]
        self.devices = [canary] + [d for d in devices if d != canary]
        self.hosts = {d: inventory.hosts[d] for d in self.devices}
        self.policy, self.opts, self._echo = policy, opts, say
        self.stop = Stop()
        self.putting_back = False
        self.configs: dict[str, cand_mod.DeviceConfig] = {}
        self.holding = False  # the device locks, taken by locked()

    def say(self, text: str) -> None:
        """Progress, as the caller prints it; once the tune was stopped by a signal, or while it puts the devices
        back, an output that fails (SIGHUP: the terminal is gone, EIO) is dropped: it never cuts a put-back short."""
        try:
            self._echo(text)
        except OSError:
            if self.stop.signum is None and not self.putting_back:
                raise

    # -- setting up ------------------------------------------------------------------------------------
    def load(self) -> None:
        for name in self.devices:
            host = self.hosts[name]
            text, version = read_config(host, self.opts.known_hosts, self.opts.ssh_timeout_s)
            self.configs[name] = cand_mod.load(name, host.platform.id, text, self.policy, self.opts.ports.get(name),
                                               version=version, model=self.opts.models.get(name))
        ports = [p for c in self.configs.values() for p in c.ports]
        speeds: dict[str, list[float]] = {}
        for cfg in self.configs.values():
            speeds.setdefault(cfg.platform, []).extend(p.speed_gbps for p in cfg.ports)
        self.space: Space = from_policy(self.policy, speeds,
                                        max(p.mtu_bytes or render.DEFAULT_MTU_BYTES for p in ports))
        found = {cand_mod.as_found(c, self.policy) for c in self.configs.values()}
        self.found: Candidate | None = found.pop() if len(found) == 1 else None
        # The grid point a search from the settings found (else render's) begins at (Space.origin), not the setting
        # itself: the dry run showed a start off the grid that no trial pushed, the first trial its nearest point.
        start = self.space.candidate(self.space.origin(
            self.found or Candidate(render.ECN_KMIN_BYTES, render.ECN_KMAX_BYTES, float(render.ECN_MARK_PCT))))
        assert start is not None  # (Space.origin is a point of the grid)
        self.start: Candidate = start

    def params(self) -> dict:
        """What decides this tune's search: a killed tune with the same parameters resumes."""
        o = self.opts
        return {"benchmark": o.benchmark, "sizes": o.sizes, "budget": o.budget, "strategy": o.strategy, "seed": o.seed,
                "devices": {d: self.configs[d].port_names for d in self.devices}, "policy": self.policy.name,
                "weights": [o.weights.pause, o.weights.drop], "regression_pct": o.regression_pct,
                "space": [list(lv) for lv in self.space.levels]}

    def describe(self) -> list[str]:
        o = self.opts
        lines = [f"devices (canary first): {', '.join(self.devices)}",
                 f"benchmark: {' '.join(o.benchmark)} (timeout {o.timeout_s:g} s), scored at "
                 f"{', '.join(format_size(s) for s in o.sizes) or 'every printed size'}",
                 f"search: {o.strategy}, at most {o.budget} benchmark runs, policy {self.policy.name} bounds: "
                 + "; ".join(f"{name} {', '.join(f'{v:.0f}' if v >= 100 else f'{v:g}' for v in lv)}"
                             for name, lv in zip(("Kmin B", "Kmax B", "Pmax %"), self.space.levels)),
                 f"settings as found: {self.found.describe() if self.found else 'not one setting on every tuned queue'}"
                 f"; the search starts at {self.start.describe()}"]
        return lines + [f"left out of the policy's bounds: {cut}" for cut in self.space.cuts]

    def dry_run(self) -> int:
        """Print the snippet the first candidate would push to each device and the command a trial runs."""
        for line in self.describe():
            self.say(line)
        for name in self.devices:
            cfg = self.configs[name]
            checked = cand_mod.check(cfg, self.policy, self.start)
            self.say(f"\n== {name} ({cfg.platform}) ports {', '.join(cfg.port_names)}")
            if checked.refused:
                self.say("   lints with an error, would not be pushed: " + "; ".join(checked.reasons()))
            self.say(checked.snippet.rstrip() or "   (holds these settings already: nothing to push)")
        self.say(f"\ndry run: nothing was pushed or run. With --apply every trial pushes its candidate through each "
                 f"device's transactional path and runs: {' '.join(self.opts.benchmark)}")
        return 0

    # -- tuning ----------------------------------------------------------------------------------------
    def run(self) -> int:
        """Run the tune; a stop signal mid-way puts the devices back as a refused push does (exit 128 + the signal).
        Only with Options.apply (the CLI's --apply, confirmed): a caller of this API gets no push without it."""
        if not self.opts.apply:
            raise InputError("a tune pushes candidates only with --apply (and its confirmation); without it, print "
                             "the dry run (losslessd tune without --apply)")
        with self.locked(), stopped_by_signals() as self.stop:
            try:
                return self._run()
            except Interrupted as exc:  # before its trials began: nothing is left to put back
                self.say(f"stopped: {exc.reason}")
                return 128 + exc.signum

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One tune per device on this machine: a lock per tuned device's address and port, whatever the database (a
        second tune with its own --db pushed its candidates to the same switch between the first's, each scoring
        the other's settings and putting back its own origin over them). `tune --apply` holds them from before it
        reads the running configs to its end: a second tune that read them beside the first built its way back from
        the first's candidate. run() takes them unless its caller holds them (the CLI does, once per device)."""
        if self.holding:
            yield
            return
        taken: list[str] = []
        try:
            for name in self.devices:
                host = self.hosts[name]
                try:
                    for key in device_keys(host.hostname, host.port):  # (its name and each address it resolves to)
                        taken.append(WRITERS.take_shared("tune", key, "tune",
                                                         "wait for it to end, or leave this device out of --devices",
                                                         busy="tuned", per="device"))
                except InputError as exc:
                    raise InputError(f"{name} ({host.hostname} port {host.port}): {exc.message}") from None
            self.holding = True
            yield
        finally:
            self.holding = False
            for lock in taken:
                WRITERS.release(lock)

    def _run(self) -> int:
        store = Store(self.opts.db)
        tune, resumed = store.open_tune(self.params())
        self.store, self.tune = store, tune
        self.tag = f"losslessd-tune-{tune.id}"
        replay = deque(store.trials(tune.id)) if resumed else deque()
        if resumed:
            self.say(f"resuming tune {tune.id} of {self.opts.db}: {len(replay)} trials done")
        if tune.start is not None:  # the devices may hold a candidate now: the search starts where it first did
            self.start = Candidate.from_key(tune.start)
        else:
            store.set_start(tune.id, self.start.key)
        self.seq = len(replay)
        self.replay = replay
        self.pushers: dict[str, Pusher] = {}  # only sessions that opened
        # a resumed tune's ways back, from the start: a stop while the sessions open puts those devices back (a killed
        # run's candidate and -origin checkpoint were left on the switch without a word)
        self.origins: dict = dict(tune.origins)
        self.applied: str | None = None
        error: InputError | None = None
        self.reader = CounterReader(self.hosts, {d: {p.name: p.speed_gbps for p in c.ports}
                                                 for d, c in self.configs.items()},
                                    self.policy.lossless.priorities, known_hosts=self.opts.known_hosts,
                                    timeout_s=self.opts.ssh_timeout_s,
                                    queues={d: _tuned_queues(c) for d, c in self.configs.items()})
        stopped = None
        interrupted: Interrupted | None = None
        try:
            for name in self.devices:
                self.pushers[name] = _opened(pusher_for(self.hosts[name], self.opts.known_hosts,
                                                        self.opts.ssh_timeout_s, self.tag))
            self._origins()
            self.applied = AS_FOUND if not resumed else None  # unknown after a kill
            baseline = [self._as_found() for _ in range(self.opts.noise_runs)]
            if all(s is None for s in baseline):  # nothing measured: no candidate is pushed to be measured by nothing
                why = next((t.reason for t in reversed(store.trials(tune.id)) if t.candidate == AS_FOUND and t.reason),
                           "no score")
                raise StopTune(f"no run of the settings as found gave a result to score ({why}); nothing was "
                               "changed: check --benchmark and --sizes")
            noise = noise_pct([s for s in baseline if s is not None])
            self.noise = noise if noise is not None else DEFAULT_NOISE_PCT
            store.set_noise(tune.id, self.noise)
            self.say(f"run-to-run noise {self.noise:.2f} % (settings as found, {len(baseline)} runs): "
                     "closer scores are ties")
            search = Search(self.space, self.measure, self.opts.budget, noise=self.noise, repeats=self.opts.repeats,
                            seed=self.opts.seed)
            result = search.run(self.opts.strategy, self.start)
            stopped = result.stopped
        except StopTune as exc:
            stopped = exc.reason
        except Interrupted as exc:
            stopped, interrupted = exc.reason, exc
            store.event(tune.id, "interrupted", exc.reason)
        except PushError as exc:
            stopped = str(exc)
            store.event(tune.id, "push_failed", exc.message, exc.device)
        except InputError as exc:  # a read of a running config that cannot be trusted: exit 2 after putting back
            stopped, error = str(exc), exc
            store.event(tune.id, "read_refused", str(exc))
        finally:
            self.stop.hold()  # (a signal from here on is recorded: the put-back and the closing run to their end)
            self.putting_back = True
            best, best_score = self.best()
            try:
                if self.pushers and self.origins:
                    self.restore_best(final=True)
            except (PushError, InputError) as exc:
                stopped = f"{stopped + '; ' if stopped else ''}could not return to the best-known settings: {exc}"
                store.event(tune.id, "restore_failed", str(exc), getattr(exc, "device", None))
            if interrupted is None and self.stop.signum is not None:  # a signal that came during the put-back
                interrupted = Interrupted(self.stop.signum)
                stopped = f"{stopped + '; ' if stopped else ''}{interrupted.reason}"
                store.event(tune.id, "interrupted", interrupted.reason)
            self._name_left()
            self._close()
            store.finish(tune.id, "stopped" if stopped else "finished", best, best_score, stopped)
            store.close()
        self.say(f"{'stopped: ' + stopped if stopped else 'finished'}; best-known settings: "
                 f"{_label(best)} (score {best_score:.3f})" if best_score is not None else
                 f"{'stopped: ' + stopped if stopped else 'finished'}; no trial was valid")
        if interrupted is not None:
            self.say("the same command starts a new tune from the settings now on the devices")
            return 128 + interrupted.signum
        if error is not None:
            raise InputError(stopped or error.message) from None
        return 1 if stopped or best is None else 0

    def _close(self) -> None:
        for pusher in self.pushers.values():
            pusher.close()
        self.reader.close()

    def _origins(self) -> None:
        """How to put each device back as found: taken once per tune (a resumed tune keeps the first), each kept as
        soon as it is taken (a stop while a later device's was taken left the earlier ones' checkpoints unnamed)."""
        for name, pusher in self.pushers.items():
            if name not in self.origins:
                cfg = self.configs[name]
                token = pusher.origin(cfg.text, cfg.queues, cfg.family)
                token["ecn"] = {p: list(v) if v else None
                                for p, v in cand_mod.ecn_settings(cfg, self.policy, cfg.text, cfg.device).items()}
                # (each port's carrying queues as parsed: a put-back is checked on ports "ecn" knows nothing of too)
                token["states"] = cand_mod.ecn_states(cfg, self.policy, cfg.text, cfg.device)
                self.origins[name] = token
                self.store.set_origins(self.tune.id, self.origins)

    def _put(self, name: str, cand: Candidate | None) -> None:
        """One device to ``cand``'s settings (None: as found) over its session (restore)."""
        cfg, pusher, token = self.configs[name], self.pushers[name], self.origins[name]
        if cand is None:
            want = {p: tuple(v) if v else None for p, v in token.get("ecn", {}).items()}
            states = token.get("states")  # (None: an origin stored before they were kept)
            pusher.restore(token, cand_mod.ecn_check(cfg, self.policy, want, states),
                           known=states is not None or None not in want.values())
            cfg.text = pusher.running()
        else:
            checked = cand_mod.check(cfg, self.policy, cand)
            if checked.snippet:
                pusher.push(checked.snippet, cand_mod.ecn_check(cfg, self.policy,
                                                                cand_mod.expected(cfg, self.policy, cand)))
                cfg.text = pusher.running()

    def _reopen(self, name: str) -> None:
        """A new session for ``name``'s pusher: a push whose session broke off left it unusable, while the device
        may well take a new login (a link that flapped); PushError when it does not."""
        old = self.pushers[name]
        with contextlib.suppress(Exception):
            old.close()
        self.pushers[name] = _opened(pusher_for(self.hosts[name], self.opts.known_hosts, self.opts.ssh_timeout_s,
                                                self.tag))
        self.pushers[name].left = old.left  # (what the failed push kept on the device: removed once it is back)

    def _name_left(self) -> None:
        """A device with a way back but no open session when the tune stopped (a resumed tune stopped while its
        sessions opened) is not put back: said and kept with the tune's events, with its pusher's commands that put it
        back by hand (no session opened: pusher_for only makes one)."""
        for name, token in self.origins.items():
            if name in self.pushers:
                continue
            pusher = pusher_for(self.hosts[name], self.opts.known_hosts, self.opts.ssh_timeout_s, self.tag)
            lines = pusher.by_hand(token)
            why = (f"{name}: not put back (its session was not open when the tune stopped); to put its settings as "
                   "found back by hand, run on it:\n" + "\n".join(f"    {line}" for line in lines))
            self.say(why)
            self.store.event(self.tune.id, "restore_failed", why, name)

    # -- one trial -------------------------------------------------------------------------------------
    def _replayed(self, key: str) -> Trial | None:
        if self.replay and self.replay[0].candidate == key:
            return self.replay.popleft()
        if self.replay:  # the search went another way than the stored trials: they stay, new ones follow
            self.say(f"stored trials after {self.seq - len(self.replay)} do not match this search; running on")
            self.replay.clear()
        return None

    def _as_found(self) -> float | None:
        done = self._replayed(AS_FOUND)
        if done is not None:
            return done.score
        if self.applied != AS_FOUND:
            self.restore(AS_FOUND)
        trial = self._trial(AS_FOUND, "settings as found")
        if trial.status == "stopped":
            raise StopTune(f"{trial.reason} with the settings as found; nothing was changed")
        return trial.score

    def measure(self, cand: Candidate) -> Measured:
        done = self._replayed(cand.key)
        if done is not None:
            return Measured(done.score, done.ran)
        checks = {name: cand_mod.check(self.configs[name], self.policy, cand) for name in self.devices}
        refused = [f"{name}: {'; '.join(c.reasons())}" for name, c in checks.items() if c.refused]
        if refused:
            self._store(Trial(self.seq, cand.key, "refused", False, reason="lints with an error: " + " | ".join(refused),
                              started_unix_s=clock.wall(), ended_unix_s=clock.wall()))
            self.say(f"trial {self.seq - 1}: {cand.describe()} refused: lints with an error ({refused[0]})")
            return Measured(None, ran=False)
        self._push(cand, checks)
        trial = self._trial(cand.key, cand.describe())
        if trial.status == "stopped":
            raise StopTune(trial.reason)
        best, best_score = self.best()
        if trial.score is not None and best_score and trial.score < best_score * (1 - self.opts.regression_pct / 100):
            self.store.event(self.tune.id, "regression", f"{cand.describe()} scored {trial.score:.3f}, more than "
                             f"{self.opts.regression_pct:g} % below the best {best_score:.3f}: back to {_label(best)}")
            self.say(f"   regression: back to the best-known settings ({_label(best)})")
            self.restore_best()
        return Measured(trial.score)

    def _push(self, cand: Candidate, checks: dict[str, cand_mod.Checked]) -> None:
        self.applied = None  # some devices may take it before one refuses: a restore must go to every device
        for name in self.devices:  # the canary first: a refusal there leaves the others untouched
            cfg = self.configs[name]
            snippet = checks[name].snippet
            if snippet:
                check = cand_mod.ecn_check(cfg, self.policy, cand_mod.expected(cfg, self.policy, cand))
                try:
                    pushed = self.pushers[name].push(snippet, check)
                except PushError as exc:
                    self._warnings(name)
                    self.store.event(self.tune.id, "push_failed", exc.message, name)
                    self.say(f"   {name} refused the push: {exc.message}")
                    self.restore_best()
                    raise StopTune(f"{name} refused a commit ({exc.message}); the fabric is back at the best-known "
                                   "settings") from None
                self.store.event(self.tune.id, "pushed", f"{cand.key}\n{pushed.diff}", name)
                self._warnings(name)
                cfg.text = self.pushers[name].running()
        self.applied = cand.key

    def _warnings(self, name: str) -> None:
        """What the device's pusher warned of (a checkpoint left on the switch): said, and kept with the tune's
        events so that `tune report` shows it."""
        pusher = self.pushers[name]
        for text in pusher.warnings:
            self.say(f"   warning: {text}")
            self.store.event(self.tune.id, "warning", text, name)
        pusher.warnings.clear()

    def _trial(self, key: str, label: str) -> Trial:
        started = clock.wall()  # (labels; the trial's own duration is the benchmark's, on the monotonic clock)
        before = self.reader.read()
        ran = run_benchmark(self.opts.benchmark, self.opts.timeout_s)
        after = self.reader.read()
        counters, problems = self.reader.delta(before, after, ran.elapsed_s)
        # A storm at the end of the run: two readings right after it (the on-box watchdog's over the whole trial).
        counters.storms = self.reader.storms(before, after) + self.reader.storms(after, self.reader.read())
        sizes, pinned = sizes_to_score(self.opts.sizes, [t.per_size for t in self.store.trials(self.tune.id)
                                                         if t.score is not None])
        sc = score(ran.result, sizes, counters, self.opts.weights, pinned=pinned)
        status = "ok" if sc.value is not None else "invalid"
        reason = sc.reason
        if counters.dropped or counters.storms:
            status = "stopped"
            reason = (f"{counters.dropped:g} packets dropped on lossless queues" if counters.dropped else
                      f"the storm detector fired: {counters.storms[0]}")
        trial = Trial(self.seq, key, status, True, reason=reason, score=sc.value, measure=sc.measure,
                      paused_share=sc.paused_share, dropped=sc.dropped, per_size=sc.per_size,
                      counters=counters.as_dict(), notes=ran.result.notes + problems, output=ran.output,
                      started_unix_s=started, ended_unix_s=clock.wall())
        self._store(trial)
        self.say(f"trial {trial.seq}: {label} -> {sc.explain()}" + (f"; STOP: {reason}" if status == "stopped" else ""))
        if status == "stopped":
            self.store.event(self.tune.id, "stopped", reason)
            self.restore_best()
        return trial

    def _store(self, trial: Trial) -> None:
        self.store.add_trial(self.tune.id, trial)
        self.seq += 1

    # -- best-known settings ---------------------------------------------------------------------------
    def best(self) -> tuple[str | None, float | None]:
        """The candidate key with the best median score over the stored trials (settings as found win ties)."""
        by_key: dict[str, list[float]] = {}
        for t in self.store.trials(self.tune.id):
            if t.status == "ok" and t.score is not None:
                by_key.setdefault(t.candidate, []).append(t.score)
        if not by_key:
            return None, None
        best = AS_FOUND if AS_FOUND in by_key else next(iter(by_key))
        for key, scores in by_key.items():
            if compare(scores, by_key[best], getattr(self, "noise", DEFAULT_NOISE_PCT)) > 0:
                best = key
        return best, statistics.median(by_key[best])

    def restore_best(self, final: bool = False) -> None:
        best, _ = self.best()
        self.restore(best or AS_FOUND, final=final)

    def restore(self, key: str, final: bool = False) -> None:
        """Every device to ``key``'s settings. A device that fails does not stop the others: each is tried, and the
        first failure is raised after them (the fabric is put back wherever it can be). ``final``: the tune is over,
        so each device put back also forgets its origin (a checkpoint), also when ``key`` is already applied (the
        best-known settings were the last candidate: its checkpoint was left on the switch without a word)."""
        moved = key != self.applied
        if not moved and not final:
            return
        cand = None if key == AS_FOUND else Candidate.from_key(key)
        failed: list[Exception] = []
        for name in self.devices:
            if name not in self.pushers or name not in self.origins:
                continue  # not open (named by _name_left), or no way back taken: nothing was pushed to it
            token = self.origins[name]
            try:
                if moved:
                    try:
                        self._put(name, cand)
                    except (PushError, InputError):  # (a session that broke off mid-push: once more on a new one)
                        self._warnings(name)
                        self._reopen(name)
                        self._put(name, cand)
            except (PushError, InputError) as exc:
                self._warnings(name)
                lines = self.pushers[name].by_hand(token)
                self.say(f"{name}: could not be put back to {_label(key)}: {exc}; to put its settings as found back "
                         "by hand, run on it:\n" + "\n".join(f"    {line}" for line in lines))
                failed.append(exc)
                continue
            self._warnings(name)
            pusher = self.pushers[name]
            if final:
                pusher.forget(token)
                self._warnings(name)
        if failed:
            raise failed[0]
        if moved:
            self.store.event(self.tune.id, "restored", "settings as found" if cand is None else cand.describe())
        self.applied = key


def _opened(pusher: Pusher) -> Pusher:
    """``pusher`` with its session open; a session that did not open (a refusal, a stop signal mid-login) is closed
    and never joins the tune's (a half-open one was asked to put its device back, and closed, as an open one)."""
    try:
        pusher.open()
    except BaseException:
        with contextlib.suppress(Exception):
            pusher.close()
        raise
    return pusher


def _label(key: str | None) -> str:
    if key is None:
        return "none"
    return "settings as found" if key == AS_FOUND else Candidate.from_key(key).describe()


def _tuned_queues(config) -> QueueMaps:
    """The queue maps (monitor.QueueMaps) of the ports a tune changes, for its trial sums and storm check."""
    tuned, maps = {p.name for p in config.ports}, queue_maps_of(config.device)
    return QueueMaps(*({port: q for port, q in m.items() if port in tuned} for m in maps))
