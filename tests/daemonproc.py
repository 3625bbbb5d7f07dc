"""A real `losslessd daemon` subprocess for integration tests against the device simulator: its own
settings file (1 s SNMP polls, short backoff), history and HTTP port, and what it shows (/metrics,
`losslessd events`, its JSON log lines)."""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from losslessd.daemon.service import SCRAPE_WAIT_S
from losslessd.sim import Simulator

from .clirun import losslessd

INTERVAL_S = 1.0  # SNMP poll interval of a test daemon
SSH_INTERVAL_S = 2.0  # its SSH counter poll interval
CLI = [sys.executable, "-m", "losslessd"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check: Callable[[], object], what: str, timeout_s: float = 60.0, poll_s: float = 0.2):
    """The first truthy value of ``check()``, asked every ``poll_s``; fails naming ``what`` after
    ``timeout_s``, a bound for a daemon that never gets there, not a measure of how fast it is."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(poll_s)


def wait_polls(d: DaemonProcess, check: Callable[[], object], what: str, device: str, polls: int,
               source: str = "snmp", stalled_s: float = 120.0, poll_s: float = 0.2):
    """The first truthy value of ``check()``, bounded by the daemon's own work rather than by wall time: fails naming
    ``what`` once ``device``'s polls by ``source`` (losslessd_polls_total) have grown by ``polls`` without it (a loaded
    machine polls slower, and is given as many polls to get there), or when they stop growing for ``stalled_s`` (a
    daemon that no longer polls: a bound for a hang, not a measure of speed)."""
    def count() -> float:
        return d.value("losslessd_polls_total", device=device, source=source) or 0

    first = last = count()
    moved = time.monotonic()
    while True:
        value = check()
        if value:
            return value
        now = count()
        if now - first >= polls:
            pytest.fail(f"{what} not seen in {polls} {source} polls of {device}")
        if now != last:
            last, moved = now, time.monotonic()
        elif time.monotonic() - moved > stalled_s:
            pytest.fail(f"waiting for {what}: no {source} poll of {device} ended for {stalled_s:g} s")
        time.sleep(poll_s)


class DaemonProcess:
    """A `losslessd daemon` subprocess with its own settings file, history and port."""

    def __init__(self, sim: Simulator, folder: Path, **overrides):
        self.sim = sim
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.settings = {
            "inventory": str(sim.inventory_path), "known_hosts": str(sim.known_hosts_path),
            "poll": {"snmp_interval_s": INTERVAL_S, "ssh_counters_interval_s": SSH_INTERVAL_S, "jitter": 0.0,
                     "snmp_timeout_s": 2, "snmp_retries": 0, "ssh_timeout_s": 20,
                     "backoff_initial_s": 1, "backoff_max_s": 2},
            "drift": {"enabled": False},
            "detection": {"storm_detection_s": 0, "storm_min_intervals": 1, "down_after_failures": 2},
            "http": {"host": "127.0.0.1", "port": self.port},
            "history": {"path": "history.db", "resolution_s": 1},
            "log": {"level": "info"},
        }
        for key, value in overrides.items():
            self.settings[key] = {**self.settings.get(key, {}), **value} if isinstance(value, dict) else value
        self.config = folder / "losslessd.yaml"
        self.write(self.settings)
        self.log = folder / "daemon.log"
        self.proc: subprocess.Popen | None = None

    def write(self, settings: dict | str) -> None:
        self.config.write_text(settings if isinstance(settings, str) else yaml.safe_dump(settings))

    def start(self, env: dict | None = None, args: tuple[str, ...] = (), nofile: int | None = None) -> DaemonProcess:
        """``args``: more command-line options (--shard, --workers); ``nofile``: an open-file limit."""
        def limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        # Python code between fork and exec (preexec_fn) only when a limit asks for it: this process may run
        # the simulator's gRPC servers, and a fork taken while their poller thread is in epoll_wait can leave
        # the child unable to reach exec.
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([*CLI, "daemon", "--config", str(self.config), *args], stderr=log,
                                         stdout=subprocess.DEVNULL, env={**os.environ, **self.sim.env, **(env or {})},
                                         preexec_fn=limit if nofile is not None else None)
        # Workers are processes of their own: on a loaded machine their start can take a while.
        wait_for(lambda: self.get("/-/ready")[0] == 200 or self.proc.poll() is not None, "the daemon to be ready",
                 timeout_s=120)
        assert self.proc.poll() is None, self.log.read_text()[-3000:]
        return self

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    # -- what it shows ------------------------------------------------------------------------------
    def request(self, path: str, method: str = "GET") -> tuple[int, str]:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     data=b"" if method == "POST" else None)
        try:
            # (a bound above the daemon's own: it answers a scrape within SCRAPE_WAIT_S, going on without a slower
            # worker; a 10 s client read a loaded machine's slow but whole answer as none)
            with urllib.request.urlopen(req, timeout=SCRAPE_WAIT_S + 10) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except OSError:
            return 0, ""

    def get(self, path: str) -> tuple[int, str]:
        return self.request(path)

    def samples(self) -> list:
        status, text = self.get("/metrics")
        assert status == 200, f"/metrics answered {status or 'nothing'}: {text[:500]}"
        return [s for family in text_string_to_metric_families(text) for s in family.samples]

    def value(self, name: str, **labels) -> float | None:
        found = [s.value for s in self.samples() if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
        return found[0] if found else None

    def answered(self, device: str, source: str = "snmp") -> float:
        """Polls of ``device`` by ``source`` that answered: losslessd_polls_total counts failed ones too."""
        labels = {"device": device, "source": source}
        return (self.value("losslessd_polls_total", **labels) or 0) - \
            (self.value("losslessd_poll_failures_total", **labels) or 0)

    def events(self, device: str | None = None, **filters) -> list[dict]:
        """`losslessd events` on its history (in this process: it only reads the file, and tests ask often), those of
        ``device`` picked here: `--device` refuses a name the history holds no row of yet (a mistyped name), and a
        starting daemon commits one device's first rows before another's, so a test asking at once failed (exit 2)."""
        args = ["events", "--db", self.folder / "history.db", "-f", "json"]
        for key, value in filters.items():
            args += [f"--{key}", value]
        res = losslessd(*args)
        assert res.returncode == 0, res.stderr
        return [e for e in json.loads(res.stdout)["events"] if device is None or e["device"] == device]

    def devices_polled(self) -> set[str]:
        """Devices this daemon's /metrics says it polled (any source)."""
        return {s.labels["device"] for s in self.samples() if s.name == "losslessd_polls_total" and s.value > 0}

    def worker_pid(self, index: int) -> int | None:
        """The pid of this daemon's worker process ``index`` (None: not running)."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if int(stat[1]) == self.proc.pid and b"losslessd.daemon.worker" in cmdline and \
                    cmdline[cmdline.index(b"--index") + 1] == str(index).encode():
                return int(entry.name)
        return None

    def log_lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    def log_records(self) -> list[dict]:
        out = []
        for line in self.log.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out
