"""Peak memory and time of `losslessd lint` on the worst inputs the limits let through (README "Limits").

Each input is generated at the size limit (default 32 MiB) in the shape that costs most per byte,
and linted in a child process of its own; the child's peak RSS (ru_maxrss) and wall time are printed
with what lint said. The reference is an empty lint of one small device in the same run (Python and
losslessd's imports), so the figures can be read as "above the floor".

    python bench/input_limits.py [--mb 32] [--only NAME]

Not a test: it prints figures; tests/test_hostile.py asserts on the limits themselves.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.limits import MAX_PORTS, MIB  # noqa: E402


def _fill(line, budget: int) -> str:
    """Lines ``line(i)`` up to ``budget`` bytes (less the 1 KiB a header may take)."""
    out, size, i = [], 0, 0
    while True:
        text = line(i)
        if size + len(text) > budget - 1024:
            return "".join(out)
        out.append(text)
        size += len(text)
        i += 1


def sonic_compact(budget: int) -> tuple[str, str]:
    ports, size, i = [], 2, 0
    while size < budget - 100:
        item = f'"E{i}":{{"speed":"1"}}'
        ports.append(item)
        size += len(item) + 1
        i += 1
    return "config_db.json", '{"PORT":{' + ",".join(ports) + "}}"


def sonic_max_ports(budget: int) -> tuple[str, str]:
    """The example leaf's port, MAX_PORTS times (the most ports a device may have), pretty-printed."""
    base = json.loads((ROOT / "examples" / "fabric" / "leaf1" / "config_db.json").read_text())
    n = MAX_PORTS
    port, qos = base["PORT"]["Ethernet0"], base["PORT_QOS_MAP"].get("Ethernet0", {})
    db = {k: v for k, v in base.items() if k not in ("PORT", "PORT_QOS_MAP", "BUFFER_PG", "QUEUE", "CABLE_LENGTH",
                                                        "DEVICE_NEIGHBOR")}
    db["PORT"] = {f"Ethernet{i}": dict(port) for i in range(n)}
    db["PORT_QOS_MAP"] = {f"Ethernet{i}": dict(qos) for i in range(n)}
    db["BUFFER_PG"] = {f"Ethernet{i}|3-4": {"profile": "pg_lossless_100000_5m_profile"} for i in range(n)}
    db["QUEUE"] = {f"Ethernet{i}|3": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"} for i in range(n)}
    return "config_db.json", json.dumps(db, indent=4)


def eos_interfaces(budget: int) -> tuple[str, str]:
    return "sw.cfg", "hostname sw\n" + _fill(lambda i: f"interface Ethernet{i}\n   mtu 9214\n", budget)


def eos_lines(budget: int) -> tuple[str, str]:
    """Few interfaces, a flood of PFC lines inside them (each a SYS002 finding when unreadable)."""
    return "sw.cfg", "hostname sw\ninterface Ethernet1\n" + _fill(
        lambda i: f"   priority-flow-control priority {i % 9} no-drop\n", budget)


def junos_set(budget: int) -> tuple[str, str]:
    return "sw.cfg", "set system host-name sw\n" + _fill(
        lambda i: f"set class-of-service interfaces et-0/0/{i % 16000} congestion-notification-profile cnp\n", budget)


def nvue_ranges(budget: int) -> tuple[str, str]:
    return "sw.cfg", "nv set system hostname sw\n" + _fill(lambda i: "nv set interface swp1-1024 link mtu 9216\n", budget)


def yaml_nvue_tree(budget: int) -> tuple[str, str]:
    return "sw.yaml", "- header:\n    model: vx\n    nvue-api-version: nvue_v1\n- set:\n    interface:\n" + _fill(
        lambda i: f"      swp{i}: {{link: {{mtu: 9216}}}}\n", budget)


CASES = {"sonic-compact-ports": sonic_compact, f"sonic-{MAX_PORTS}-ports": sonic_max_ports,
         "eos-interfaces": eos_interfaces, "eos-pfc-lines": eos_lines, "junos-set-lines": junos_set,
         "nvue-ranges": nvue_ranges, "nvue-yaml-tree": yaml_nvue_tree}

CHILD = """
import resource, sys, time
from losslessd.api import lint
t = time.monotonic()
r = lint([sys.argv[1]], "roce-dscp26")
sys.stdout.write(f"{time.monotonic() - t:.1f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} "
                 f"{len(r.fabric.devices)} {r.fabric.issues[0].message[:90] if r.fabric.issues else ''}")
"""


def measure(path: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True)
    if proc.returncode:
        return f"FAILED: {proc.stderr.strip().splitlines()[-1:]}"
    seconds, rss, devices, message = (proc.stdout.split(" ", 3) + [""])[:4]
    return f"{seconds:>6} s {rss:>6} MiB  devices {devices}  {message}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=32.0, help="size of each generated input (MiB; default the limit)")
    ap.add_argument("--only", action="append", choices=sorted(CASES))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="losslessd-limits-") as tmp:
        ref = Path(tmp) / "spine1.cfg"
        ref.write_text((ROOT / "examples" / "fabric" / "spine1.cfg").read_text())
        print(f"{'reference (one small device)':<28} {measure(ref)}")
        for name in args.only or CASES:
            started = time.monotonic()
            file_name, text = CASES[name](int(args.mb * MIB))
            folder = Path(tmp) / name
            folder.mkdir()
            (folder / file_name).write_text(text)
            size = len(text.encode()) / MIB
            del text
            print(f"{name + f' ({size:.1f} MiB)':<28} {measure(folder / file_name if file_name != 'config_db.json' else folder)}"
                  f"  [generated in {time.monotonic() - started:.0f} s]")
    print(f"(this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)")


if __name__ == "__main__":
    main()
