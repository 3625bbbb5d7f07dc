#!/usr/bin/env python3
"""`losslessd daemon` at scale: N simulated 64-port SONiC switches (losslessd.sim.fleet, all served by
one snmpsim process: losslessd.sim many-devices mode), polled by the daemon as a subprocess.

Prints, from the daemon's own /metrics and /proc:
  * achieved SNMP poll interval per device (from losslessd_polls_total over the window) vs configured;
  * the daemon's CPU per device-poll (utime + stime from /proc/<pid>/stat) and its RSS;
  * storm detection latency: from sim.storm(...) to losslessd_pfc_storm{...} == 1 on /metrics;
and a reference measured in the same run first: the same polls by a bare SnmpPoller loop in this
process (its round time and CPU per device-poll), with the daemon/reference ratios. The single
snmpsim process is the ceiling (docs/snmp.md: a few thousand OIDs/s, about 2,600 OIDs a 64-port
device): an achieved interval above the configured one with a reference round as long says so.

    python bench/daemon_scale.py [--devices 50] [--ports 64] [--interval 10] [--window 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prometheus_client.parser import text_string_to_metric_families

from losslessd.collect.snmp import SnmpPoller, SnmpTarget
from losslessd.sim import Simulator
from losslessd.sim.fleet import write_fleet

TEMPLATE = ROOT / "examples" / "fabric" / "leaf1" / "config_db.json"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """utime + stime of a process in seconds (/proc/<pid>/stat fields 14 and 15, proc(5))."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def scrape(port: int) -> dict[str, dict[tuple, float]]:
    """/metrics as {family name: {sorted label items: value}}."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    out: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def targets(sim: Simulator) -> list[SnmpTarget]:
    return [SnmpTarget(device=n, host=d.host, port=d.snmp_port, community=sim.env[d.snmp_community_env],
                       timeout_s=10, retries=1) for n, d in sim.devices.items()]


async def reference(sim: Simulator, rounds: int, concurrency: int) -> tuple[float, float, int]:
    """Back-to-back rounds of a bare poller: (seconds a round, CPU seconds a device-poll, failures)."""
    async with SnmpPoller(concurrency=concurrency) as poller:
        await poller.poll(targets(sim)[0])  # the engine's first request costs about half a second
        cpu0, t0, failed = time.process_time(), time.monotonic(), 0
        for _ in range(rounds):
            results = await poller.poll_many(targets(sim))
            failed += sum(isinstance(r, Exception) for r in results.values())
        wall, cpu = time.monotonic() - t0, time.process_time() - cpu0
    return wall / rounds, cpu / (rounds * len(sim.devices)), failed


def settings(sim: Simulator, work: Path, http_port: int, interval: float, concurrency: int) -> Path:
    path = work / "losslessd.yaml"
    path.write_text(json.dumps({  # YAML is a superset of JSON
        "inventory": str(sim.inventory_path), "known_hosts": str(sim.known_hosts_path),
        "poll": {"snmp_interval_s": interval, "ssh_counters_interval_s": None, "concurrency": concurrency,
                 "snmp_timeout_s": 10, "snmp_retries": 1},
        "drift": {"enabled": False},
        "http": {"host": "127.0.0.1", "port": http_port},
        "history": {"path": str(work / "history.db")},
        "log": {"level": "warning"},
    }, indent=2))
    return path


def polls(metrics: dict) -> dict[str, float]:
    return {dict(k)["device"]: v for k, v in metrics.get("losslessd_polls_total", {}).items()
            if dict(k).get("source") == "snmp"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=50, help="simulated switches (up to 200)")
    ap.add_argument("--ports", type=int, default=64)
    ap.add_argument("--interval", type=float, default=10.0, help="configured SNMP poll interval, seconds")
    ap.add_argument("--window", type=float, default=60.0, help="seconds the daemon is measured")
    # One snmpsim process answers one request at a time: more polls in flight only queue and time out.
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--reference-rounds", type=int, default=1)
    args = ap.parse_args()
    if not 1 <= args.devices <= 200:
        ap.error("--devices must be 1-200")

    with tempfile.TemporaryDirectory(prefix="losslessd-daemon-scale-") as tmp:
        work = Path(tmp)
        write_fleet(TEMPLATE, work / "fleet", args.devices, ports=args.ports)
        t = time.monotonic()
        with Simulator(work / "fleet", work / "sim", snmp_shared=True) as sim:
            print(f"{args.devices} devices x {args.ports} ports, one snmpsim process; started in "
                  f"{time.monotonic() - t:.1f} s")
            ref_round, ref_cpu, ref_failed = asyncio.run(reference(sim, args.reference_rounds, args.concurrency))
            print(f"reference (bare SnmpPoller): {ref_round:.1f} s a round of {args.devices} polls, "
                  f"{ref_cpu * 1000:.0f} ms CPU a device-poll, {ref_failed} failed")

            http_port = free_port()
            cmd = [sys.executable, "-m", "losslessd", "daemon", "--config",
                   str(settings(sim, work, http_port, args.interval, args.concurrency))]
            with open(work / "daemon.log", "wb") as log:
                daemon = subprocess.Popen(cmd, env=dict(os.environ, **sim.env), stdout=log, stderr=subprocess.STDOUT)
            try:
                return measure(sim, daemon, http_port, args, ref_round, ref_cpu)
            finally:
                daemon.terminate()
                try:
                    daemon.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    daemon.kill()
                    daemon.wait()
                tail = (work / "daemon.log").read_text(errors="replace").splitlines()[-5:]
                if daemon.returncode not in (0, -15):
                    print(f"daemon exited {daemon.returncode}; last log lines:", *tail, sep="\n  ")


def measure(sim: Simulator, daemon: subprocess.Popen, http_port: int, args, ref_round: float,
            ref_cpu: float) -> int:
    wait_s = 60 + 3 * args.interval + 2 * ref_round
    deadline = time.monotonic() + wait_s
    while True:  # every device polled once: the window starts
        if daemon.poll() is not None:
            print(f"daemon exited with {daemon.returncode} before its first round")
            return 1
        try:
            first = polls(scrape(http_port))
        except OSError:
            first = {}
        if len(first) == args.devices and all(v >= 1 for v in first.values()):
            break
        if time.monotonic() > deadline:
            print(f"daemon polled {len(first)} of {args.devices} devices within {wait_s:.0f} s; giving up")
            return 1
        time.sleep(0.5)
    # Quiet window: nothing scrapes the daemon, so its CPU is polling and detection only.
    t0, cpu0 = time.monotonic(), cpu_s(daemon.pid)
    time.sleep(args.window)
    elapsed, cpu = time.monotonic() - t0, cpu_s(daemon.pid) - cpu0
    metrics = scrape(http_port)
    last = polls(metrics)
    done = sum(last[d] - first.get(d, 0) for d in last)
    per_device = [elapsed / (last[d] - first[d]) for d in last if last[d] > first.get(d, 0)]
    achieved = sorted(per_device)[len(per_device) // 2] if per_device else float("inf")
    up = sum(v for v in metrics.get("losslessd_up", {}).values())
    durations = sorted(v for k, v in metrics.get("losslessd_poll_duration_seconds", {}).items()
                       if dict(k).get("source") == "snmp")

    # Storm phase: scraped every 0.2 s until the gauge turns (this CPU is not counted above).
    device = next(iter(sim.devices))
    port = sim.devices[device].ports[0]
    labels = (("device", device), ("port", port), ("priority", "3"))
    sim.storm(device, port, 3)
    storm_t, latency = time.monotonic(), None
    while latency is None and time.monotonic() - storm_t < 10 * args.interval:
        if scrape(http_port).get("losslessd_pfc_storm", {}).get(labels) == 1:
            latency = time.monotonic() - storm_t
        time.sleep(0.2)
    sim.storm(device, port, 3, on=False)
    print(f"daemon: window {elapsed:.0f} s, {done:.0f} device-polls, {up:.0f}/{args.devices} up")
    print(f"  poll interval: configured {args.interval:.1f} s, achieved {achieved:.1f} s (median per device); "
          f"ratio {achieved / args.interval:.2f}")
    if durations:
        print(f"  poll duration: median {durations[len(durations) // 2]:.2f} s, max {durations[-1]:.2f} s")
    if done:
        per_poll = cpu / done
        print(f"  CPU: {per_poll * 1000:.0f} ms a device-poll (reference {ref_cpu * 1000:.0f} ms; ratio "
              f"{per_poll / ref_cpu:.2f}), {cpu / elapsed * 100:.0f} % of a core")
    print(f"  round: achieved interval vs reference round {achieved / ref_round:.2f}")
    print(f"  memory: RSS {rss_mb(daemon.pid):.0f} MB")
    if latency is None:
        print("  storm detection latency: not detected")
    else:
        print(f"  storm detection latency: {latency:.1f} s ({latency / args.interval:.1f} configured intervals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
