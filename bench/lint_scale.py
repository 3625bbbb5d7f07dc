#!/usr/bin/env python3
"""Whole-fabric lint time against the floor of merely reading and decoding the same files.

For each size N: generates N SONiC switches (64 ports each, config_db.json) and N*8 ConnectX host captures,
then prints, measured in the same run:
  - the floor: read every file and decode it (json.loads for JSON, splitlines for text), in one process, and
    the same floor with orjson decoding the JSON (as the lint does where orjson reads what json.loads reads);
  - `losslessd lint` (find the devices, parse, every rule) as the API runs it (worker processes for a large
    fabric), its wall and CPU time (this process and its workers), and the ratios to the floor (the two measured
    alternately, so that each lint has a floor measured just before it: that pair's ratio is printed too);
  - the peak resident memory of this process and of the largest worker;
  - a fabric with many findings (every switch port misses ECN, pauses a lossy priority and has too long a
    watchdog; every host pauses the wrong priority; 200 switches and 1,600 hosts at most: about 43,000
    findings): its lint, and its text and JSON report rendering beside it.
Targets: N=2,000 lint within 3x of the floor (wall), RSS under 2 GB; the many-findings report within 0.3x of
its lint.
With --topology, then the same fabric as a Clos: 4 spines of one port per leaf, a topology file (`routing: updown`)
naming the uplinks, the hosts' links from their LLDP; the path and deadlock rules then read every device. It is
timed in one process and with workers (whose parent reads what they sent of each device's ports).

Session 45 (close): N=2,000 2.75x, 2.79x, 2.83x in three idle runs (lint 3.93-4.10 s wall), main 8ff69b09 2.66x,
3.18x, 3.14x between them: docs/lint-at-scale.md, "Session 45: at the close".
Session 45, part c (hosts): a bench host's lint 1.240 M -> 1.142 M instructions (-7.9 %; its parse -15 %): a
capture's pieces cut once per piece text (a fleet's same outputs one string), a file's display name from its folder's
kept prefix, no read to see a file's end, other_encoding's magics screened by the first byte: docs/lint-at-scale.md,
"Session 45, part c".
Session 45, part d: a CONFIG_DB of tables of strings proved free of repeated keys by one quote count and of digit
runs by its shape (the `":` count, `" :` search, keys' walk and digit sample taken out): a lint of 20 bench switches
19.10 M -> 17.77 M instructions a switch (-7.0 %): docs/lint-at-scale.md, "Session 45, part d".
Session 45, part a: the parent's folder walk before the workers, 58.3 K -> 29.9 K instructions a file at N=2,000 (a
folder's names searched joined, its files made groups as it is listed; the stat a file kept): docs/lint-at-scale.md,
"Session 45, part a".
Session 45, part e: a device's header sent as the names of its fields (one tuple a set) and their values, made
a LazyDevice by one unpacking; its Sources one flat list: send -5.6 %, the parent's rebuild -11.6 % (instructions,
N=20): docs/lint-at-scale.md, "Session 45, part e".
Session 45, part b: the parallel lint's parent after the last share (`topology.apply`, the fabric rules) 13-14 %
cheaper by process time at N=200 (apply 14.6 -> 12.2 ms, engine.run 13.0 -> 11.4 ms, medians alternated with main),
22 % by instructions at N=20; not the halving asked: docs/lint-at-scale.md, "Session 45, part b".
Session 44, part h: the worker shares attributed part by part in instructions (N=200: parsing 77 %, keys and
selection 8.6 %, grouped rules 2.7 %, header 1.4 %, pickling 2.0 %); a SONiC switch's lossy-by-design step in one pass
(0.27 -> 0.21 M instructions a bench switch); no per-device step near the 5 % the margin needs:
docs/lint-at-scale.md, "Session 44, part h".
Session 38, part a (hosts): a host's worker share, each host's own sections (LLDP, ip link) read cold as in a lint,
1.335 M -> 1.270 M instructions (-4.9 %; 133 us of CPU on a quiet machine, of it 24 us those two sections): its
command read once per text, prompt forms tried only where they can match, LLDP keyvalue inline, sections cut in
comprehensions: docs/lint-at-scale.md, "Session 38, part a".
Last counted (session 37, part b): JSON decoded by orjson where it reads as json does (a bench CONFIG_DB's json_value
median 284 -> 208 us; a lint of 16 switches and 128 hosts, best of 60 alternating in one process, 54 -> 50 ms); each
port its own lanes and description (about 5 % harder); the floor printed decoded by orjson too; N=2,000 at load
2.7-4.7 only (4.05x-6.35x against 33d6407f's 4.72x-7.90x alternating): docs/lint-at-scale.md, "Session 37, part b".
Session 37: PORT lanes read on their own (a bench switch given its ports' own lanes 20.36 M -> 18.90 M
instructions, -7.2 %; the generated one, whose ports share the template's lanes, unchanged); the port-copy builder
sized at 0.23 ms a switch at most (0.47 s CPU at N=2,000) and not built; N=2,000 at load 4.9-6.0 only (7.66x, 5.13x
against 903f113b's 8.79x): docs/lint-at-scale.md, "Session 37".
Session 36, part c: the clean fabric's switches got a shared headroom pool sized for their 64 ports
(BUF004 had said on each that it could not judge 1.61x over-subscription: 2,000 of 2,001 findings); a worker's share
of 24 switches 708.5 M -> 699.4 M instructions (-1.3 %); N=2,000 at load 6-7 only (lint 7.5-9.1 s CPU, one finding,
against main's 8.2-12.2 s): docs/lint-at-scale.md, "Session 36, part c".
Session 36: a bench switch's worker share 22.85 M -> 21.87 M instructions (-4.3 %; process time, the
two changes toggled in one process at load 4-8: best 2,190 -> 1,954 us, -10.8 %), from main a3e053da's idle 3.36x and
3.48x (lead's runs; floor 1.12 s, lint 3.78 s wall, 7.04 s CPU); no idle N=2,000 run this session (load 4-8):
docs/lint-at-scale.md, "Session 36".
Last measured (session 35): the lead's idle run of main 1d065a62, N=2,000 3.24x (lint 3.70 s wall, 6.98 s CPU, floor
1.14 s); where its wall time goes (workers 97 % busy, 0.12-0.20 s before them and 0.2 s after the last share in this
process alone), what a switch and a host cost per part, the parallel path's transfer (about 4 % of the CPU) and the
repeated-key check's `" :` search (90 us of a switch's 1.87 ms; callgrind counts it the same: 763.1 M for the
parallel algorithm in one process against 762.2 M): docs/lint-at-scale.md, "Session 35".
Session 34 (callgrind, hash seed 0, one process, main a0ec0fc): a lint of the 20-switch, 160-host fabric
(two lints less one) 625.4 M instructions, the floor of its files 144.4 M in the same hour (4.33x); the engine alone
126.6 M; the parallel lint's own algorithm run in one process (11 shares, pickles, the parent's rebuild) 751.4 M:
docs/lint-at-scale.md, "Session 34". Session 33: 621.9 M, floor 144.8 M (4.29x); the switches' parse 394 M, the
hosts' 89 M.

    python bench/lint_scale.py [--switches 200 2000] [--repeat 3] [--jobs N] [--topology]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.api import lint  # noqa: E402
from losslessd.report import render  # noqa: E402

PORTS = 64
HOSTS_PER_SWITCH = 8
# The fabric with many findings has this many switches at most (and 8 hosts each): about 43,000 findings.
NOISY_SWITCHES = 200
# --topology: spines, and the first leaf port cabled up to them.
SPINES = 4
UPLINK = 56
EXAMPLE = ROOT / "examples" / "fabric"


def switch_config(n: int, findings: bool = False, ports_n: int = PORTS, role: str = "leaf") -> str:
    """A 64-port leaf derived from the example leaf1 (same tables, more ports, renamed, each port its own lanes and
    description); with ``findings``, every port pauses lossy priority 5 too, marks no ECN on its lossless queue and
    has a 5 s watchdog.
    ``ports_n`` and ``role``: a spine of as many ports as there are leaves (--topology)."""
    base = json.loads((EXAMPLE / "leaf1" / "config_db.json").read_text())
    ports = [f"Ethernet{4 * i}" for i in range(ports_n)]
    template_port = base["PORT"]["Ethernet0"]
    # (not the example's DEVICE_NEIGHBOR either: it names the example's devices; the hosts' LLDP gives the links)
    cfg = {k: v for k, v in base.items() if k not in ("PORT", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE",
                                                     "CABLE_LENGTH", "PFC_WD", "DEVICE_NEIGHBOR")}
    cfg["DEVICE_METADATA"] = {"localhost": {**base["DEVICE_METADATA"]["localhost"], "hostname": f"{role}{n:04d}"}}
    # Each port its own lanes (the example's lane width: `0,1,2,3`, `4,5,6,7`, ... as port_config.ini gives them) and
    # description (the host cabled to it, as the example's, or a server of its own): a real switch's PORT rows differ.
    width = len(template_port["lanes"].split(","))
    cfg["PORT"] = {p: {**template_port, "index": str(i), "alias": f"etp{i + 1}",
                       "lanes": ",".join(str(lane) for lane in range(width * i, width * (i + 1))),
                       "description": (f"gpu{n * HOSTS_PER_SWITCH + i:05d}:enp65s0f0np0" if i < HOSTS_PER_SWITCH
                                       else f"{role}{n:04d}-srv{i:02d}:enp65s0f0np0")}
                   for i, p in enumerate(ports)}
    qos = dict(base["PORT_QOS_MAP"]["Ethernet0"])
    if findings:
        qos["pfc_enable"] = qos["pfc_enable"] + ",5"
    cfg["PORT_QOS_MAP"] = {p: dict(qos) for p in ports}
    queues = {q: dict(base["QUEUE"][f"Ethernet0|{q}"]) for q in range(8)}
    if findings:
        queues[3].pop("wred_profile", None)
    cfg["QUEUE"] = {f"{p}|{q}": dict(queues[q]) for p in ports for q in range(8)}
    cfg["BUFFER_PG"] = {f"{p}|{g}": dict(base["BUFFER_PG"][f"Ethernet0|{g}"]) for p in ports for g in (0, 3)}
    # The example's shared headroom pool holds its 6 ports' lossless xoff; with more ports it is sized again as
    # sonic-swss buffer_pool_mellanox.lua sizes one: the PGs' accumulated xoff / over_subscribe_ratio (1 here), so
    # that BUF004 has no over-subscription to report on the clean fabric.
    xoff = sum(int(base["BUFFER_PROFILE"][pg["profile"]].get("xoff", 0)) for pg in cfg["BUFFER_PG"].values())
    pool = {**base["BUFFER_POOL"]["ingress_lossless_pool"], "xoff": str(xoff)}
    cfg["BUFFER_POOL"] = {**base["BUFFER_POOL"], "ingress_lossless_pool": pool}
    cfg["BUFFER_QUEUE"] = {f"{p}|3": {"profile": "egress_lossless_profile"} for p in ports}
    cfg["CABLE_LENGTH"] = {"AZURE": {p: "5m" for p in ports}}
    detection = "5000" if findings else "200"
    cfg["PFC_WD"] = {p: {"action": "drop", "detection_time": detection, "restoration_time": "400"} for p in ports}
    return json.dumps(cfg, indent=4)


def host_capture(n: int, findings: bool = False) -> str:
    """The example gpu01 capture as host n would print it: its own name, MAC address and LLDP neighbour
    (port n % 8 of leaf n // 8, as cabled in a rack), so no two hosts' captures are the same text."""
    text = (EXAMPLE / "gpu01.capture").read_text()
    if findings:  # PFC on priority 4 instead of 3
        text = text.replace("\tenabled     0   0   0   1   0", "\tenabled     0   0   0   0   1")
    leaf, port = divmod(n, HOSTS_PER_SWITCH)
    for old, new in (("#% device: gpu01", f"#% device: gpu{n:05d}"),
                     ("link/ether 0c:42:a1:5e:00:01", f"link/ether 0c:42:a1:{n >> 16 & 255:02x}:{n >> 8 & 255:02x}:"
                                                      f"{n & 255:02x}"),
                     ("chassis.mac=1c:34:da:5e:c2:00", f"chassis.mac=1c:34:da:5e:{leaf >> 8 & 255:02x}:"
                                                       f"{leaf & 255:02x}"),
                     ("chassis.name=leaf1", f"chassis.name=leaf{leaf:04d}"),
                     ("age=12 days, 03:41:07", f"age=12 days, 03:{n // 60 % 60:02d}:{n % 60:02d}"),
                     ("port.local=etp1", f"port.local=etp{port + 1}"),
                     ("port.descr=gpu01:", f"port.descr=gpu{n:05d}:")):
        assert old in text, old
        text = text.replace(old, new)
    return text


def add_spines(folder: Path, leaves: int) -> None:
    """A Clos over the generated leaves: SPINES spines of one port per leaf, each leaf's ports 56-59 up to them,
    and a topology file (routing: updown) listing those cables; the hosts' links come from their LLDP."""
    links = []
    for s in range(SPINES):
        d = folder / f"spine{s:04d}"
        d.mkdir()
        (d / "config_db.json").write_text(switch_config(s, ports_n=leaves, role="spine"))
        links += [f"  - leaf{n:04d}:Ethernet{4 * (UPLINK + s)} <-> spine{s:04d}:Ethernet{4 * n}" for n in range(leaves)]
    (folder / "topology.yaml").write_text("routing: updown\nlinks:\n" + "\n".join(links) + "\n")


def generate(folder: Path, switches: int, findings: bool = False) -> tuple[int, int]:
    nbytes = 0
    for n in range(switches):
        d = folder / f"leaf{n:04d}"
        d.mkdir()
        nbytes += (d / "config_db.json").write_text(switch_config(n, findings))
    for n in range(switches * HOSTS_PER_SWITCH):
        nbytes += (folder / f"gpu{n:05d}.capture").write_text(host_capture(n, findings))
    return switches * (1 + HOSTS_PER_SWITCH), nbytes


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn, repeat: int):
    """(best wall, CPU of that run, result of the last run)."""
    best = (float("inf"), 0.0, None)
    for _ in range(repeat):
        c0, t0 = _cpu(), time.perf_counter()
        out = fn()
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        if wall < best[0]:
            best = (wall, cpu, out)
    return best


def paired(floor_fn, lint_fn, repeat: int):
    """The floor and the lint alternating, ``repeat`` times each: (best floor and best lint as ``timed`` gives them,
    the wall ratio of each lint to the floor measured just before it). Measured apart (every floor, then every lint),
    a minute of load from elsewhere falls on one side only: on this shared 2-core machine the ratio of the two bests
    moved from 3.1 to 4.1 between two runs of the same code; a pair shares its minute."""
    best_floor = best_lint = (float("inf"), 0.0, None)
    ratios = []
    for _ in range(repeat):
        one_floor = timed(floor_fn, 1)
        one_lint = timed(lint_fn, 1)  # (only the best run's result is kept: each holds a whole fabric)
        ratios.append(one_lint[0] / one_floor[0])
        best_floor, best_lint = min(best_floor, one_floor, key=_wall), min(best_lint, one_lint, key=_wall)
        one_lint = None
    return best_floor, best_lint, ratios


def _wall(measured: tuple) -> float:
    return measured[0]


def floor(folder: Path, loads=json.loads) -> None:
    """Read every file and decode it: ``loads`` for JSON (the issue's floor: json.loads), splitlines for text."""
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".json":
            loads(path.read_text(encoding="utf-8"))
        elif path.is_file():
            path.read_text(encoding="utf-8").splitlines()


def measure(switches: int, repeat: int, jobs: int | None, topology: bool = False) -> None:
    with tempfile.TemporaryDirectory(prefix="losslessd-bench-") as tmp:
        clean, noisy = Path(tmp) / "clean", Path(tmp) / "findings"
        clean.mkdir()
        noisy.mkdir()
        t0 = time.perf_counter()
        files, nbytes = generate(clean, switches)
        noisy_switches = min(switches, NOISY_SWITCHES)
        generate(noisy, noisy_switches, findings=True)
        print(f"N={switches}: {switches} switches x {PORTS} ports + {switches * HOSTS_PER_SWITCH} hosts = "
              f"{files} files, {nbytes / 1e6:.1f} MB (both fabrics generated in {time.perf_counter() - t0:.1f} s)")
        (f_wall, f_cpu, _), (l_wall, l_cpu, result), pairs = paired(
            lambda: floor(clean), lambda: lint([clean], "roce-dscp26", jobs=jobs), repeat)
        print(f"  floor (read + json.loads/splitlines): wall {f_wall:7.2f} s  CPU {f_cpu:7.2f} s")
        print(f"  lint (parse + all rules):             wall {l_wall:7.2f} s  CPU {l_cpu:7.2f} s  "
              f"({len(result.findings)} findings, {len(result.fabric.devices)} devices)")
        print(f"  ratio lint/floor: wall {l_wall / f_wall:.2f}, CPU {l_cpu / f_cpu:.2f}  (target: wall <= 3 at N=2000)")
        print(f"    each floor and the lint right after it: wall {', '.join(f'{r:.2f}' for r in pairs)} "
              f"(median {statistics.median(pairs):.2f})")
        # The lint decodes with orjson (docpos.json_value): the floor read so too, after the pairs, for the ratio
        # against the faster decoder.
        o_wall, o_cpu, _ = timed(lambda: floor(clean, orjson.loads), repeat)
        print(f"  floor decoded by orjson instead:      wall {o_wall:7.2f} s  CPU {o_cpu:7.2f} s  "
              f"(lint/that floor: wall {l_wall / o_wall:.2f}, CPU {l_cpu / o_cpu:.2f})")
        me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"  peak RSS: this process {me:.0f} MB, largest worker {kids:.0f} MB  (target < 2048 MB)")
        result = None
        if topology:
            add_spines(clean, switches)
            s_wall, _, _ = timed(lambda: floor(clean), repeat)  # the floor of this fabric: the spines are read too
            for label, n in (("one process", 1), ("workers", jobs)):
                t_wall, t_cpu, result = timed(lambda n=n: lint([clean], "roce-dscp26", jobs=n), repeat)
                print(f"  with {SPINES} spines and a topology, {label:<12} wall {t_wall:7.2f} s  CPU {t_cpu:7.2f} s  "
                      f"= {t_wall / s_wall:.2f}x its floor ({len(result.findings)} findings)")
            result = None
        n_wall, _, result = timed(lambda: lint([noisy], "roce-dscp26", jobs=jobs), repeat)
        print(f"  many findings ({noisy_switches} switches, {noisy_switches * HOSTS_PER_SWITCH} hosts): lint "
              f"{n_wall:6.2f} s, {len(result.findings)} findings")
        for fmt in ("text", "json"):
            r_wall, _, _ = timed(lambda fmt=fmt, result=result: render(fmt, result, color=False), repeat)
            print(f"    {fmt} report {r_wall:6.2f} s = {r_wall / n_wall:.2f}x the lint (target <= 0.3)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switches", type=int, nargs="+", default=[200, 2000],
                    help="fabric sizes in SONiC switches (hosts = 8x each)")
    ap.add_argument("--repeat", type=int, default=3, help="best of N for each measurement")
    ap.add_argument("--jobs", type=int, default=None, help="lint worker processes (default: as `losslessd lint`)")
    ap.add_argument("--topology", action="store_true", help="also time the fabric with a topology file")
    args = ap.parse_args()
    for n in args.switches:
        measure(n, args.repeat, args.jobs, args.topology)
    return 0


if __name__ == "__main__":
    sys.exit(main())
