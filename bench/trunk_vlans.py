"""Memory and DLK003 time of an EOS switch whose ports all trunk every VLAN (the default of `switchport mode trunk`).

Run: PYTHONPATH=. python bench/trunk_vlans.py [PORTS] [--distinct]. Prints the parsed device's traced memory and
DLK003's time. With --distinct every port trunks VLAN 10 and a VLAN of its own: as many distinct lists as ports, one
subset (VLAN 10) shared between them.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path
from tempfile import TemporaryDirectory

from losslessd.api import lint
from losslessd.fabric import load_fabric


def config(ports: int, distinct: bool = False) -> str:
    lines = ["hostname big", "qos map dscp 26 to traffic-class 3", "priority-flow-control on"]
    for n in range(1, ports + 1):
        allowed = [f"   switchport trunk allowed vlan 10,{100 + n}"] if distinct else []
        lines += [f"interface Ethernet{n}", "   switchport mode trunk", *allowed, "   priority-flow-control on",
                  "   priority-flow-control priority 3 no-drop", "!"]
    return "\n".join(lines) + "\n"


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--distinct"]
    own = "--distinct" in sys.argv[1:]
    ports = int(args[0]) if args else (3900 if own else 4000)  # (VLANs 101-4000 with --distinct)
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.cfg"
        path.write_text(config(ports, own))
        tracemalloc.start()
        fabric = load_fabric([path])
        size, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        device = fabric.devices["big"]
        distinct = len({id(p.vlans) for p in device.ports.values()})
        start = time.perf_counter()
        result = lint([path], "roce-dscp26", select_codes=["DLK003"])
        took = time.perf_counter() - start
    what = "VLAN 10 and one of their own" if own else "every VLAN"
    print(f"{ports} ports trunking {what}: model {size / 2**20:.1f} MiB traced, {distinct} distinct VLAN list "
          f"object(s); lint --select DLK003 {took:.2f} s, {len(result.findings)} findings")


if __name__ == "__main__":
    main()
