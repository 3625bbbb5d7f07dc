#!/usr/bin/env python3
"""Whole-fabric lint time against the floor of merely reading and decoding the same files.

Generates N SONiC switches (64 ports each, config_db.json) and N*8 ConnectX host captures, then
prints: the floor (read every file + json.loads for JSON / splitlines for text), the full
`losslessd lint` time (parse + every rule), and their ratio. Target: ratio <= 3.

    python bench/lint_scale.py --switches 2000

Measured on the 2-core CI machine (2026-11): N=200: floor 0.11 s, lint 2.1 s (19.7x); N=2000: floor
~1.1 s, lint ~21 s (~20x), linear in N. The 3x target is not met. What the time buys: every port,
queue, PG and fact becomes a typed model object with its provenance (about 1,500 objects per
64-port switch, validated once), and 20+ rules run per port; json.loads alone builds none of that.
Closing the gap needs a leaner model (provenance as shared tables, ports with identical settings
sharing one object) and rules evaluated once per distinct port configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.api import lint  # noqa: E402

PORTS = 64
EXAMPLE = ROOT / "examples" / "fabric"


def switch_config(n: int) -> str:
    """A 64-port leaf derived from the example leaf1 (same tables, more ports, renamed)."""
    base = json.loads((EXAMPLE / "leaf1" / "config_db.json").read_text())
    ports = [f"Ethernet{4 * i}" for i in range(PORTS)]
    template_port = base["PORT"]["Ethernet0"]
    cfg = {k: v for k, v in base.items() if k not in ("PORT", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE",
                                                     "CABLE_LENGTH", "PFC_WD")}
    cfg["DEVICE_METADATA"] = {"localhost": {**base["DEVICE_METADATA"]["localhost"], "hostname": f"leaf{n:04d}"}}
    cfg["PORT"] = {p: {**template_port, "index": str(i), "alias": f"etp{i + 1}"} for i, p in enumerate(ports)}
    cfg["PORT_QOS_MAP"] = {p: dict(base["PORT_QOS_MAP"]["Ethernet0"]) for p in ports}
    cfg["QUEUE"] = {f"{p}|{q}": dict(base["QUEUE"][f"Ethernet0|{q}"]) for p in ports for q in range(8)}
    cfg["BUFFER_PG"] = {f"{p}|{g}": dict(base["BUFFER_PG"][f"Ethernet0|{g}"]) for p in ports for g in (0, 3)}
    cfg["BUFFER_QUEUE"] = {f"{p}|3": {"profile": "egress_lossless_profile"} for p in ports}
    cfg["CABLE_LENGTH"] = {"AZURE": {p: "5m" for p in ports}}
    cfg["PFC_WD"] = {p: {"action": "drop", "detection_time": "200", "restoration_time": "400"} for p in ports}
    return json.dumps(cfg, indent=4)


def host_capture(n: int) -> str:
    text = (EXAMPLE / "gpu01.capture").read_text()
    return text.replace("#% device: gpu01", f"#% device: gpu{n:05d}")


def generate(folder: Path, switches: int) -> tuple[int, int]:
    nbytes = 0
    for n in range(switches):
        d = folder / f"leaf{n:04d}"
        d.mkdir()
        nbytes += (d / "config_db.json").write_text(switch_config(n))
    for n in range(switches * 8):
        nbytes += (folder / f"gpu{n:05d}.capture").write_text(host_capture(n))
    return switches * 9, nbytes


def floor(folder: Path) -> float:
    t0 = time.perf_counter()
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        elif path.is_file():
            path.read_text(encoding="utf-8").splitlines()
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switches", type=int, default=200, help="SONiC switches (hosts = 8x); up to 2000")
    ap.add_argument("--repeat", type=int, default=3, help="best of N for each measurement")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="losslessd-bench-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        files, nbytes = generate(folder, args.switches)
        gen = time.perf_counter() - t0
        print(f"fabric: {args.switches} switches x {PORTS} ports + {args.switches * 8} hosts = {files} files, "
              f"{nbytes / 1e6:.1f} MB (generated in {gen:.1f} s)")
        floor_s = min(floor(folder) for _ in range(args.repeat))
        lint_s, findings = float("inf"), 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = lint([folder], "roce-dscp26")
            lint_s = min(lint_s, time.perf_counter() - t0)
            findings = len(result.findings)
        print(f"floor (read + json.loads/splitlines): {floor_s:8.2f} s")
        print(f"losslessd lint (parse + all rules):   {lint_s:8.2f} s   ({findings} findings, "
              f"{len(result.fabric.devices)} devices)")
        print(f"ratio lint/floor: {lint_s / floor_s:.2f}  (target <= 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
