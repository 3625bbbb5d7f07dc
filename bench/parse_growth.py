"""Does any parser grow faster than its input? Each platform's input is generated at 1x, 4x and 16x in the construct
most likely to be super-linear, and linted (parse, then every rule) in a child process of its own; the CPU seconds
and the ratio 16x / 1x are printed (16 is linear; well above it, something scans what it has already seen).

- eos: ports on one service-policy whose classes grow with them (a policy's classes resolved per port was ports x
  classes), each port with an unreadable PFC line, and the policy's ACL class a shared broken line;
- eos-l2: switch ports in their default VLAN with PFC on (DLK003's flooding ports);
- nxos: `interface Ethernet1/1-54` ranges repeated, port-profile inherits four deep, a qos policy whose classes
  grow, unreadable shared network-qos lines said once (a scan of the issue list per port was ports x issues);
- junos: interfaces, and groups with wildcards (`<et-*>`) applied to all of them;
- sonic: config_db.json ports with their QoS maps, PGs and queues;
- sonic-runs: a first port with a long run of QUEUE rows, then many ports of one row each (each checked against that
  run: a copy of the whole run per port was run x ports);
- sonic-shared: ports alike but one, their PGs and queues written by 64-port keys with overlapping ranges;
- nvue: `nv set interface swp1-64 ...` ranges repeated, each port on a broken line;
- os10: `interface range ethernetN/1/1-N/1/54` blocks repeated with a trust map and qos-map that grow with them, every
  port on a network-qos policy that is not defined (a shared broken line said once);
- os9: OS9 ports each applying a DCB map, and many DCB maps;
- mlx5: a host capture with many mlnx_qos sections;
- mlx5-script: a host setup script of if/case/{ }/( ) blocks one in another, awk programs over lines and long quoted
  words (the block matching and the quote scanning);
- opensm: an opensm.conf with many options and a qos-policy of many entries;
- yaml-topology: a topology.yaml with many links (docpos, then the link walk).

    python bench/parse_growth.py [--base 1] [--only NAME]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.child import run, timed  # noqa: E402


def eos(n: int) -> dict[str, str]:
    ports, classes = 400 * n, 40 * n
    out = ["hostname sw\n"]
    for j in range(classes):
        out.append(f"class-map type qos match-any C{j}\n   match ip access-group ACL{j}\n!\n" if j % 2 else
                   f"class-map type qos match-any C{j}\n   match dscp {j % 64}\n!\n")
    out.append("policy-map type qos P\n" + "".join(f"   class C{j}\n      set traffic-class {j % 8}\n"
                                                    for j in range(classes)) + "!\n")
    for i in range(ports):
        out.append(f"interface Ethernet{i // 64 + 1}/{i % 64 + 1}\n   no switchport\n   mtu 9214\n"
                   f"   service-policy type qos input P\n   priority-flow-control on\n"
                   f"   priority-flow-control priority 3 no-drop\n   priority-flow-control priority 9 no-drop\n!\n")
    return {"sw.cfg": "".join(out)}


def eos_l2(n: int) -> dict[str, str]:
    """Switch ports left in their default VLAN with PFC on: DLK003 names the ports each floods with (listed again
    per port, that was ports x ports)."""
    return {"sw.cfg": "hostname sw\n" + "".join(f"interface Ethernet{i + 1}/1\n   mtu 9214\n"
                                                "   priority-flow-control on\n"
                                                "   priority-flow-control priority 3 no-drop\n!\n"
                                                for i in range(250 * n))}


def nxos(n: int) -> dict[str, str]:
    out = ["hostname sw\n"]
    classes = 20 * n
    for j in range(classes):
        out.append(f"class-map type qos match-any C{j}\n  match dscp {j % 64}\n")
    out.append("policy-map type qos P\n" + "".join(f"  class C{j}\n    set qos-group {j % 8}\n"
                                                    for j in range(classes)))
    out.append("class-map type network-qos NQ3\n  match qos-group 3\n"
               "policy-map type network-qos NQP\n  class type network-qos NQ3\n    pause pfc-cos 3\n    mtu 9216\n"
               "    congestion-control random-detect ecn bogus\n"
               "system qos\n  service-policy type network-qos NQP\n")
    for level in range(4):
        out.append(f"port-profile type ethernet PP{level}\n"
                   + (f"  inherit port-profile PP{level - 1}\n" if level else "")
                   + "  mtu 9216\n  service-policy type qos input P\n  state enabled\n")
    for slot in range(1, 8 * n + 1):
        out.append(f"interface Ethernet{slot}/1-54\n  inherit port-profile PP3\n  priority-flow-control mode on\n"
                   "  no shutdown\n")
    return {"sw.cfg": "".join(out)}


def os10(n: int) -> dict[str, str]:
    out = ["! Version 10.5.4.5\n! Last configuration change at Nov  29 10:00:03 2026\nhostname sw\n"]
    out.append("trust dscp-map T\n" + "".join(f" qos-group {j % 8} dscp {j % 64}\n" for j in range(40 * n)))
    out.append("qos-map traffic-class Q\n" + "".join(f" queue {j % 8} qos-group {j % 8}\n" for j in range(40 * n)))
    out.append("system qos\n trust-map dscp T\n qos-map traffic-class Q\n service-policy input type network-qos NOPE\n")
    for node in range(1, 8 * n + 1):
        out.append(f"interface range ethernet{node}/1/1-{node}/1/54\n mtu 9216\n priority-flow-control mode on\n"
                   " ets mode on\n no shutdown\n")
    return {"sw.cfg": "".join(out)}


def os9(n: int) -> dict[str, str]:
    out = ["! Version 9.14(2.4)\n! Startup-config last updated at Sun Nov 29 10:00:03 2026 by admin\nhostname sw\n"]
    for j in range(20 * n):
        out.append(f"dcb-map M{j}\n priority-group 0 bandwidth 50 pfc off\n priority-group 1 bandwidth 50 pfc on\n"
                   " priority-pgid 0 0 0 1 0 0 0 0\n")
    for i in range(400 * n):
        out.append(f"interface TenGigabitEthernet {i // 64}/{i % 64}\n ip mtu 9216\n dcb-map M{i % (20 * n)}\n"
                   " flowcontrol rx maybe\n no shutdown\n")
    return {"sw.cfg": "".join(out)}


def junos(n: int) -> dict[str, str]:
    ports, groups = 256 * n, 8  # groups x ports is the statements they give: bounded (MAX_EXPANDED_PORTS)
    out = ["set system host-name sw\n"]
    for j in range(groups):
        out.append(f"set groups G{j} class-of-service interfaces <et-0/{j % 4}/*> congestion-notification-profile cnp\n"
                   f"set groups G{j} interfaces <et-*> mtu 9216\nset apply-groups G{j}\n")
    out.append("set class-of-service congestion-notification-profile cnp input dscp code-point 011010 pfc\n")
    for i in range(ports):
        name = f"et-0/{i % 4}/{i // 4}"
        out.append(f"set interfaces {name} unit 0 family inet address 10.{i // 256 % 256}.{i % 256}.1/31\n"
                   f"set class-of-service interfaces {name} classifiers dscp missing\n")
    return {"sw.cfg": "".join(out)}


def sonic(n: int) -> dict[str, str]:
    import json
    ports = 256 * n
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw", "hwsku": "Mellanox-SN4600C-C64"}},
          "PORT": {f"Ethernet{i}": {"speed": "100000", "mtu": "9100", "admin_status": "up"} for i in range(ports)},
          "PORT_QOS_MAP": {f"Ethernet{i}": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "pfc_enable": "3,4",
                                            "tc_to_queue_map": "AZURE"} for i in range(ports)},
          "DSCP_TO_TC_MAP": {"AZURE": {str(d): "3" if d == 26 else "0" for d in range(64)}},
          "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
          "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
          "BUFFER_PG": {f"Ethernet{i}|3-4": {"profile": "missing_profile"} for i in range(ports)},
          "QUEUE": {f"Ethernet{i}|3": {"scheduler": "nowhere", "wred_profile": "AZURE_LOSSLESS"} for i in range(ports)}}
    return {"config_db.json": json.dumps(db, indent=1)}


def sonic_runs(n: int) -> dict[str, str]:
    import itertools
    import json
    # distinct texts of queue indexes below 64: leading zeros (6 digits at most), comma lists of them
    forms = [[("0" * z) + str(i) for z in range(7 - len(str(i)))] for i in range(64)]
    every = (",".join(c) for length in (1, 2, 3) for f in forms for c in itertools.product(f, repeat=length))
    names = list(itertools.islice(every, 1024 * n))
    queue: dict[str, dict] = {f"Ethernet0|{q}": {"scheduler": "S0"} for q in names}
    for q in names:
        queue[f"Ethernet4|{q}"] = queue[f"Ethernet8|{q}"] = {"scheduler": "S0", "weight": 1}
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw", "hwsku": "Mellanox-SN4600C-C64"}},
          "PORT": {p: {"speed": "100000", "mtu": "9100"} for p in ("Ethernet0", "Ethernet4", "Ethernet8")},
          "SCHEDULER": {"S0": {"type": "DWRR", "weight": "10"}}, "QUEUE": queue}
    return {"config_db.json": json.dumps(db, indent=1)}


def sonic_shared(n: int) -> dict[str, str]:
    """Ports configured alike but for one (its lossless PG lossy), their queues and PGs written by keys of 64 ports
    with ranges that overlap (`Ethernet0,...|0-7`, then `|3-4`), as a generated file may: the shared-port path."""
    import json
    ports = [f"Ethernet{i}" for i in range(256 * n)]
    groups = [",".join(ports[i:i + 64]) for i in range(0, len(ports), 64)]
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sw", "hwsku": "Mellanox-SN4600C-C64"}},
          "PORT": {p: {"speed": "100000", "mtu": "9100", "admin_status": "up"} for p in ports},
          "PORT_QOS_MAP": {p: {"pfc_enable": "3,4"} for p in ports},
          "CABLE_LENGTH": {"AZURE": {p: "5m" for p in ports}},
          "BUFFER_POOL": {"ingress_lossless_pool": {"size": "47218432", "type": "ingress", "mode": "dynamic"}},
          "BUFFER_PROFILE": {"lossy": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
                             "lossless": {"pool": "ingress_lossless_pool", "size": "19456", "xon": "19456",
                                          "xoff": "59392", "dynamic_th": "-2"}},
          "BUFFER_PG": {**{f"{g}|0-7": {"profile": "lossy"} for g in groups},
                        **{f"{g}|3-4": {"profile": "lossless"} for g in groups},
                        f"{ports[len(ports) // 2]}|3": {"profile": "lossy"}},
          "QUEUE": {**{f"{g}|0-7": {"scheduler": "nowhere"} for g in groups},
                    **{f"{g}|3-4": {"wred_profile": "AZURE_LOSSLESS"} for g in groups}}}
    return {"config_db.json": json.dumps(db, indent=1)}


def nvue(n: int) -> dict[str, str]:
    out = ["nv set system hostname sw\n"]
    for r in range(16 * n):
        lo = 64 * r + 1
        out.append(f"nv set interface swp{lo}-{lo + 63} link mtu 9216\n"
                   f"nv set interface swp{lo}-{lo + 63} qos pfc profile missing\n"
                   f"nv set interface swp{lo}-{lo + 63} qos bogus thing\n")
    out.append("nv set qos pfc default-global switch-priority 3\n")
    return {"sw.cfg": "".join(out)}


def mlx5(n: int) -> dict[str, str]:
    base = (ROOT / "tests" / "fixtures" / "raw" / "linux_mlx5" / "gpu01-good.txt").read_text()
    return {"host.txt": base * (4 * n)}


def mlx5_script(n: int) -> dict[str, str]:
    unit = ("if [ -e /sys/class/net/eth0 ]; then\n  case \"$1\" in\n"
            "    up) { ( mlnx_qos -i eth0 --trust dscp ) ; } ;;\n  esac\nfi\n"
            "ibdev2netdev | while read -r dev port n rest; do\n  awk '\n    /x/ { if (n) { n++ } }\n  ' /etc/hosts\n"
            "done\necho \"" + "quoted text " * 40 + "\" > /dev/null\n")
    return {"setup.sh": "#!/bin/bash\nmlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0\n" + unit * (300 * n)}


def opensm(n: int) -> dict[str, str]:
    conf = "".join(f"# comment {i}\nsm_priority {i % 15}\nqos_max_vls 8\n" for i in range(200 * n))
    return {"opensm.conf": "routing_engine ftree\nqos TRUE\n" + conf}


def topology(n: int) -> dict[str, str]:
    devices = {"leaf.cfg": "hostname leaf\n" + "".join(
        f"interface Ethernet{i + 1}\n   no switchport\n   mtu 9214\n!\n" for i in range(64 * n))}
    links = "".join(f"  - [leaf:Ethernet{i + 1}, host{i}:eth0]\n" for i in range(64 * n))
    return {**devices, "topology.yaml": "links:\n" + links}


SHAPES = {"eos": eos, "eos-l2": eos_l2, "nxos": nxos, "os10": os10, "os9": os9, "junos": junos, "sonic": sonic,
          "sonic-runs": sonic_runs, "sonic-shared": sonic_shared, "nvue": nvue, "mlx5": mlx5,
          "mlx5-script": mlx5_script, "opensm": opensm, "yaml-topology": topology}


def _child(folder: str) -> str:
    """Runs in the child: lint ``folder`` (a device file, or a fabric folder) and say what came of it."""
    from losslessd import api
    files = sorted(Path(folder).iterdir())
    target = [str(folder)] if len(files) > 1 else [str(files[0])]
    return timed(lambda: f"{len(api.lint(target).findings)} findings")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=int, default=1, help="multiply every size (default 1)")
    ap.add_argument("--only", choices=sorted(SHAPES))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(_child(args.child))
        return 0
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="losslessd-growth-") as tmp:
        for name, make in SHAPES.items():
            if args.only and name != args.only:
                continue
            figures = []
            for k in (1, 4, 16):
                folder = Path(tmp) / f"{name}-{k}"
                folder.mkdir()
                size = 0
                for fname, text in make(k * args.base).items():
                    (folder / fname).write_text(text)
                    size += len(text)
                seconds, what = run(__file__, str(folder))
                figures.append((k, size, seconds, what))
            ratio = figures[-1][2] / max(figures[0][2], 1e-3)
            worst = max(worst, ratio)
            print(f"{name:14} " + "  ".join(f"{k:2}x {size / 1e6:6.2f} MB {s:6.2f} s" for k, size, s, _ in figures)
                  + f"  16x/1x {ratio:5.1f}{'  SUPER-LINEAR' if ratio > 32 else ''}  [{figures[-1][3]}]", flush=True)
    print(f"worst ratio {worst:.1f} (16 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
