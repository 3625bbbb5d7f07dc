"""Memory and DLK003 time of an EOS switch whose ports all trunk every VLAN (the default of `switchport mode trunk`).

Run: PYTHONPATH=. python bench/trunk_vlans.py [PORTS] [--distinct | --subsets | --all-line | --except-line]. Prints
the parsed device's traced memory and DLK003's time. With --distinct every port trunks VLAN 10 and a VLAN of its own:
as many distinct lists as ports, one subset (VLAN 10) shared between them. With --subsets port n trunks two VLANs,
n % 4000 + 1 and the one 1 + n // 4000 after it, each VLAN held by several ports: every port's shared subset is
distinct. --all-line / --except-line write `switchport trunk allowed vlan all` / `except 4000` on every port.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path
from tempfile import TemporaryDirectory

from losslessd.api import lint
from losslessd.fabric import load_fabric
from losslessd.lint.engine import Context
from losslessd.policy import load_policy
from losslessd.rules.dlk import LosslessOnL2Flooding


def _allowed(n: int, mode: str) -> list[str]:
    if mode == "--distinct":
        return [f"   switchport trunk allowed vlan 10,{100 + n}"]
    if mode == "--subsets":
        a = n % 4000
        return [f"   switchport trunk allowed vlan {a + 1},{(a + 1 + n // 4000) % 4000 + 1}"]
    return {"--all-line": ["   switchport trunk allowed vlan all"],
            "--except-line": ["   switchport trunk allowed vlan except 4000"]}.get(mode, [])


def config(ports: int, mode: str = "") -> str:
    lines = ["hostname big", "qos map dscp 26 to traffic-class 3", "priority-flow-control on"]
    for n in range(1, ports + 1):
        allowed = _allowed(n, mode)
        lines += [f"interface Ethernet{n}", "   switchport mode trunk", *allowed, "   priority-flow-control on",
                  "   priority-flow-control priority 3 no-drop", "!"]
    return "\n".join(lines) + "\n"


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    mode = next((a for a in sys.argv[1:] if a.startswith("--")), "")
    ports = int(args[0]) if args else (3900 if mode == "--distinct" else 4000)  # (VLANs 101-4000 with --distinct)
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.cfg"
        path.write_text(config(ports, mode))
        tracemalloc.start()
        fabric = load_fabric([path])
        size, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        device = fabric.devices["big"]
        distinct = len({id(p.vlans) for p in device.ports.values()})
        result = lint([path], "roce-dscp26", select_codes=["DLK003"])
        ctx = Context(fabric, load_policy("roce-dscp26"))
        start = time.perf_counter()
        found = list(LosslessOnL2Flooding().check_device(ctx, device))  # the rule alone, on the device read above
        took = time.perf_counter() - start
        assert len(found) == len(result.findings)
    what = {"--distinct": "VLAN 10 and one of their own", "--subsets": "two VLANs, every shared subset distinct",
            "--except-line": "every VLAN but 4000"}.get(mode, "every VLAN")
    print(f"{ports} ports trunking {what}: model {size / 2**20:.1f} MiB traced, {distinct} distinct VLAN list "
          f"object(s); DLK003 {took:.2f} s, {len(result.findings)} findings")


if __name__ == "__main__":
    main()
