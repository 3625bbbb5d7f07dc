#!/usr/bin/env python3
"""gNMI streaming client at scale: N simulated 64-port switches streaming their counters over TLS
(losslessd.sim.gnmi, in a subprocess so that its CPU is not counted), followed by the daemon's gNMI
client (losslessd.collect.gnmi.follow: decode, parse, assemble rounds into Readings) in this process.

Prints, per platform path set (SONiC COUNTERS_DB JSON objects; OpenConfig + Arista PFC leaves):
  * client CPU ms per device-update (one 64-port sample round turned into a Reading), from this
    process's CPU time over a window of at least two sample rounds;
  * achieved update interval per device vs the configured sample interval;
  * the devices per core that CPU implies at 10 s and 30 s.
The SNMP figures for the same 64-port devices come from bench/daemon_scale.py; compare them side by
side (same machine, same run order).

    python bench/gnmi_scale.py [--devices 20] [--ports 64] [--interval 10] [--window 30] [--platform sonic]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.collect.gnmi import GnmiTarget, follow  # noqa: E402
from losslessd.credentials import Secret  # noqa: E402

TEMPLATE = ROOT / "examples" / "fabric" / "leaf1" / "config_db.json"

SERVER = """
import json, sys
sys.path.insert(0, {root!r})
from losslessd.sim import Simulator
from losslessd.sim.fleet import write_fleet
names = write_fleet({template!r}, {work!r} + "/fleet", {devices}, ports={ports})
sim = Simulator({work!r} + "/fleet", {work!r} + "/sim", ssh=False, snmp=False, gnmi=True)
for d in sim.devices.values():
    d.platform = {platform!r}  # the same counters, served on this platform's paths
sim.start()
print(json.dumps({{"ca": str(sim.gnmi_ca_path), "password": sim.env["LOSSLESSD_SIM_PASSWORD"],
                  "devices": {{n: [d.gnmi_port, d.username, len(d.ports)] for n, d in sim.devices.items()}}}}),
      flush=True)
sys.stdin.read()
sim.stop()
"""


def run(platform: str, devices: int, ports: int, interval: float, window: float) -> dict:
    work = tempfile.mkdtemp(prefix="gnmi-bench-")
    code = SERVER.format(root=str(ROOT), template=str(TEMPLATE), work=work, devices=devices, ports=ports,
                         platform=platform)
    server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(server.stdout.readline())
        targets = [GnmiTarget(device=name, host="127.0.0.1", port=port, platform=platform, username=user,
                              password=Secret(info["password"], "the bench simulator"), ca_file=Path(info["ca"]),
                              sample_interval_s=interval, timeout_s=10.0)
                   for name, (port, user, _) in info["devices"].items()]
        return asyncio.run(_measure(targets, interval, window))
    finally:
        server.stdin.close()
        server.wait(timeout=60)


async def _measure(targets: list[GnmiTarget], interval: float, window: float) -> dict:
    counts: dict[str, int] = {}
    failures: list[str] = []
    keys = []

    def got(reading, started):
        counts[reading.device] = counts.get(reading.device, 0) + 1
        keys.append(len(reading.values))

    tasks = [asyncio.create_task(follow(t, got, lambda e, s: failures.append(str(e)))) for t in targets]
    warm_deadline = time.monotonic() + 3 * interval + 30
    while len(counts) < len(targets) and time.monotonic() < warm_deadline:  # everyone sent a first round
        await asyncio.sleep(0.1)
    before = dict(counts)
    cpu0, t0 = time.process_time(), time.monotonic()
    await asyncio.sleep(window)
    cpu, elapsed = time.process_time() - cpu0, time.monotonic() - t0
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    updates = sum(counts.get(t.device, 0) - before.get(t.device, 0) for t in targets)
    per_update_ms = 1000 * cpu / updates if updates else float("nan")
    return {"updates": updates, "cpu_s": cpu, "elapsed_s": elapsed, "per_update_ms": per_update_ms,
            "achieved_interval_s": elapsed * len(targets) / updates if updates else float("nan"),
            "counters_per_update": round(sum(keys) / len(keys)) if keys else 0, "failures": failures[:3]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", type=int, default=20)
    ap.add_argument("--ports", type=int, default=64)
    ap.add_argument("--interval", type=float, default=10.0, help="sample interval asked of the devices, s")
    ap.add_argument("--window", type=float, default=30.0, help="measuring window, s (at least two intervals)")
    ap.add_argument("--platform", action="append", choices=["sonic", "arista_eos"],
                    help="path set(s) to measure (default: both)")
    a = ap.parse_args()
    window = max(a.window, 2 * a.interval)
    print(f"gNMI client: {a.devices} devices x {a.ports} ports, sample interval {a.interval:g} s, "
          f"window {window:g} s (server in a subprocess, not counted)")
    for platform in a.platform or ["sonic", "arista_eos"]:
        r = run(platform, a.devices, a.ports, a.interval, window)
        per_core = {s: (s * 1000 / r["per_update_ms"]) if r["per_update_ms"] > 0 else float("nan") for s in (10, 30)}
        print(f"  gnmi {platform:<10} client CPU {r['per_update_ms']:.1f} ms per {a.ports}-port device-update "
              f"({r['counters_per_update']} counters), {r['updates']} updates; achieved interval "
              f"{r['achieved_interval_s']:.1f} s (ratio {r['achieved_interval_s'] / a.interval:.2f}); "
              f"implies {per_core[10]:.0f} devices/core at 10 s, {per_core[30]:.0f} at 30 s")
        if r["failures"]:
            print(f"    failures: {r['failures']}")


if __name__ == "__main__":
    main()
