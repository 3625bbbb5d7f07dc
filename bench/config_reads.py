#!/usr/bin/env python3
"""The config reads a `losslessd daemon` makes at its start (every switch's config over SSH, for the ECN detector's
queue maps and the proposals; docs/daemon.md "Which queue's ECN marks"), on a big shard: time to READY, time until
every switch's maps are read, and the SNMP polls meanwhile against the polls after the reads, in the same run.

N simulated SONiC switches (losslessd.sim.fleet from examples/fabric/leaf1, --ports each) behind the simulator's
SSH servers (one asyncio loop in this process) and one shared snmpsim agent; the daemon polls SNMP every --interval
(SSH counter polls off, so SSH is the reads' alone). A read is done when the history holds the switch's queue maps
(the queue_map_reads table, written as the daemon takes them). Polls: losslessd_poll_duration_seconds of every switch
(median and 95th percentile of the values seen at each scrape) and SNMP polls completed per second, while the reads
run and in a window as long after them. Runs once per --concurrency value (poll.concurrency: it bounds the reads and
each worker's polls alike).

    python bench/config_reads.py [--devices 200] [--ports 8] [--interval 10] [--concurrency 32,8]

On a shared machine the figures move with the other load: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from losslessd.sim import Simulator  # noqa: E402
from losslessd.sim.fleet import write_fleet  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as resp:
            return resp.status, resp.read().decode()
    except OSError:
        return 0, ""


def poll_state(port: int) -> tuple[list[float], float]:
    """(each device's last SNMP poll duration, SNMP polls completed in all)."""
    _, text = get(port, "/metrics")
    durations, total = [], 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.labels.get("source") != "snmp":
                continue
            if s.name == "losslessd_poll_duration_seconds":
                durations.append(s.value)
            elif s.name == "losslessd_polls_total":
                total += s.value
    return durations, total


def maps_read(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            return con.execute("SELECT COUNT(DISTINCT device) FROM queue_map_reads").fetchone()[0]
    except sqlite3.Error:
        return 0


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def run(sim: Simulator, work: Path, devices: int, concurrency: int, args) -> dict:
    port = free_port()
    db = work / f"history-{concurrency}.db"
    settings = {"inventory": str(sim.inventory_path), "known_hosts": str(sim.known_hosts_path),
                "poll": {"snmp_interval_s": args.interval, "ssh_counters_interval_s": None, "jitter": 0.1,
                         "concurrency": concurrency, "snmp_timeout_s": 5, "snmp_retries": 1, "ssh_timeout_s": 60},
                "drift": {"enabled": False}, "http": {"host": "127.0.0.1", "port": port},
                "history": {"path": str(db), "resolution_s": 10}, "log": {"level": "warning"}}
    config = work / f"losslessd-{concurrency}.yaml"
    config.write_text(yaml.safe_dump(settings))
    started = time.monotonic()
    with open(work / f"daemon-{concurrency}.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "losslessd", "daemon", "--config", str(config)],
                                stderr=log, stdout=subprocess.DEVNULL, env={**os.environ, **sim.env})
    try:
        while get(port, "/-/ready")[0] != 200:
            if proc.poll() is not None or time.monotonic() - started > 600:
                tail = (work / f"daemon-{concurrency}.log").read_text()[-2000:]
                raise SystemExit(f"the daemon did not get ready: {tail}")
            time.sleep(0.2)
        ready_s = time.monotonic() - started
        during: list[float] = []
        first = None
        while (read := maps_read(db)) < devices:
            durations, total = poll_state(port)
            if first is None and total:
                first = (time.monotonic(), total)
            during += durations
            if time.monotonic() - started > 1800:
                raise SystemExit(f"only {read}/{devices} configs read after 30 min")
            time.sleep(1.0)
        reads_s = time.monotonic() - started
        mid = (time.monotonic(), poll_state(port)[1])
        window = max(reads_s - ready_s, 3 * args.interval)
        after: list[float] = []
        end = time.monotonic() + window
        while time.monotonic() < end:
            after += poll_state(port)[0]
            time.sleep(1.0)
        last = (time.monotonic(), poll_state(port)[1])
        rate_during = (mid[1] - first[1]) / (mid[0] - first[0]) if first and mid[0] > first[0] else float("nan")
        rate_after = (last[1] - mid[1]) / (last[0] - mid[0])
        return {"concurrency": concurrency, "ready_s": ready_s, "reads_s": reads_s,
                "during": (statistics.median(during) if during else float("nan"), pct(during, 0.95), rate_during),
                "after": (statistics.median(after) if after else float("nan"), pct(after, 0.95), rate_after)}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=200, help="simulated SONiC switches")
    ap.add_argument("--ports", type=int, default=8, help="ports of each (SNMP work per poll grows with them)")
    ap.add_argument("--interval", type=float, default=10.0, help="SNMP poll interval, s")
    ap.add_argument("--concurrency", default="32,8", help="poll.concurrency values, one run each")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="losslessd-config-reads-"))
    names = write_fleet(ROOT / "examples" / "fabric" / "leaf1" / "config_db.json", work / "fleet", args.devices,
                        ports=args.ports)
    print(f"{len(names)} switches x {args.ports} ports, SNMP every {args.interval:g} s, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    with Simulator(work / "fleet", work / "sim", snmp_shared=True) as sim:
        print("concurrency  READY s  all read s | poll s during: median p95  polls/s | after: median p95  polls/s")
        for c in (int(v) for v in args.concurrency.split(",")):
            r = run(sim, work, len(names), c, args)
            (dm, dp, dr), (am, ap95, ar) = r["during"], r["after"]
            print(f"{c:>11}  {r['ready_s']:7.1f}  {r['reads_s']:10.1f} | {dm:20.3f} {dp:5.3f} {dr:8.1f} | "
                  f"{am:13.3f} {ap95:5.3f} {ar:8.1f}   (load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
