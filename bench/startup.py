#!/usr/bin/env python3
"""How fast the command line starts: `losslessd --help`, `losslessd rules`, a lint of the example fabric and the
other commands (a lint of one NX-OS, Junos or OS10 switch, render, fix, the tuner's and the daemon's help, the daemon's
settings check), beside `python -c "import typer, rich"` (the libraries every command needs) in the same run.

Each command runs --repeat times in a fresh interpreter; the best wall time counts (the one least disturbed
by other processes). The package is byte-compiled first, as an installed one is (pip and `make venv` do it):
with PYTHONDONTWRITEBYTECODE set, every start would otherwise compile losslessd's modules again.
Targets: --help and the example lint within 2x of the reference. A bare typer app's own figures are printed
too: a command of one that does nothing is what no typer program starts faster than (typer 0.29 builds a
pydantic TypeAdapter per parameter, so a command with options imports pydantic: `import typer, pydantic` is
the floor of any typer command that takes one).

With --instructions each command runs once under valgrind's callgrind, which counts the instructions it
executes: the same count whatever else the machine is doing (wall times on a loaded machine are not).

Session 45 (close): the example lint 522.1 M (1.97x; 525.8 M at main 8ff69b09 in the same hour):
docs/lint-at-scale.md, "Session 45: at the close".
Session 45 (part i): the example lint 521.3 M (1.96x; 524.5 M at main 8ff69b09): SCH001 reads a port's queue for
each DSCP without making its Hop: docs/lint-at-scale.md, "Session 45, part i".
Session 44 (close): the example lint 524.9 M (1.98x; 588.7 M at the session's start), 1.85x wall (106.1 ms), `--help`
1.30x wall: docs/lint-at-scale.md, "Session 44: start-up at the close".
Session 44 (part i): the example lint 524.4 M (1.97x; 528.3 M before): a record with a record base (the EOS reader's
InterfaceConf) made by records, not by dataclasses' class processing: docs/lint-at-scale.md, "Session 44, part i".
Session 44 (part c): the example lint 570.0 M (2.14x; 588.4 M before), one NX-OS switch 457.9 M (467.8 M): a SKU
looked up without the list of every SKU, each field type's traits worked out once for the grouping's keys, the
engine's, paths' and rules' NamedTuples made without typing's ForwardRefs, Literal and class-name annotation texts
read without eval: docs/lint-at-scale.md, "Session 44, part c".
Session 44 (part b): the example lint 583.5 M (2.19x; 588.6 M before), one NX-OS / Junos / OS10 switch 465.1 / 463.5 /
455.9 M (467.8 / 466.5 / 458.7 M), a host script 508.0 M (542.8 M): the platforms' refusal matchers, DEVICE_UNSEEN, the
host script reader's and the parsers' run-time patterns lazy (kept), OpenSM's sniff without its options reader:
docs/lint-at-scale.md, "Session 44, part b".
Session 44 (part d): the example lint 571.6 M (2.15x; 587.0 M before), `--help` 408.4 M (416.7 M), `rules` 279.4 M
(288.4 M): the process ends at once after lint, rules and --help where Python's shutdown has nothing to do, typer
reads the commands' annotations as objects and lint's signature once: docs/lint-at-scale.md, "Session 44, part d".
Session 44 (part a): the example lint 567.0 M (2.13x; 587.0 M before): records' __init__ from code of its shape, not
a class made for dataclasses; a lazy record's class made by records; makers' first 16 objects read, their code
written after: docs/lint-at-scale.md, "Session 44, part a".
Session 43 (part k): no change (the example lint 587.7 M): annotation texts read without eval measured 0.47 M
less, not shipped: docs/lint-at-scale.md, "Session 43, part k".
Session 43 (part b): the example lint 696.9 M (2.62x; 713.7 M before), one NX-OS switch 514.0 M (530.8 M):
SHA-256 from CPython's own module (no OpenSSL load), losslessd's modules keyed by their file's stat, not their
bytes: docs/lint-at-scale.md, "Session 43, part b".
Session 43 (part c): the example lint 664.6 M (2.50x; 713.7 M before): the SKU data file read a part at a time, key
functions of a run of at most 128 ports read field by field, not compiled, a record's first 64 objects made from its
fields, dataclasses given a record's field names alone: docs/lint-at-scale.md, "Session 43, part c".
Session 43 (part a): the example lint 653.3 M (2.46x; 713.7 M before), one NX-OS / Junos / OS10 switch 507.5 / 508.3 /
500.4 M (530.8 / 524.5 / 526.4 M): no pattern compiled at import that a lint may not use, and the programs `re`
compiled for losslessd's lazy patterns kept by a lint and read back by the next: docs/lint-at-scale.md, "Session 43,
part a".
Session 42 (part l): the example lint 713.3 M (2.68x; 739.8 M before), one EOS / NX-OS / Junos / OS10 running-config
521.8 / 530.8 / 523.4 / 526.2 M (561.3 / 580.6 / 583.0 / 565.2 M): a plain file sniffed only by the platforms whose
signs it holds: docs/lint-at-scale.md, "Session 42, part l".
Session 42 (part a): the example lint 738.1 M (2.78x; 863.3 M before) with its policy and topology read back, 1,179.7 M
validating (1,265.5 M): the topology file's document cached, records' first 16 objects made without compiling an
__init__: docs/lint-at-scale.md, "Session 42, part a".
Session 41 (part a): the example lint 936.9 M (3.52x; 1,331.0 M before) with its policy validated by an earlier lint
and read back from the cache (1,330.3 M validating it: `--no-policy-cache`), a lint of one NX-OS switch 712.5 M
(1,201.6 M): docs/lint-at-scale.md, "Session 41, part a".
Session 41 (part b): the example lint 1,309 M (4.92x; 1,332 M before), a lint of one NX-OS switch 1,144 M (1,202 M),
render 1,466 M (1,591 M): records' __init__ written at their first object, three patterns compiled on first use:
docs/lint-at-scale.md, "Session 41, part b".
Session 41 (part k): the example lint 848.7 M (3.19x; 919.2 M before) with its policy cached, 1,252.5 M validating it
(1,311.3 M): PyYAML's check of the characters compiled only for a text that needs it, shipped data found without
importlib.resources: docs/lint-at-scale.md, "Session 41, part k".
Session 41 (part c): a lint of one NX-OS switch 1,185 M (1,202 M), the example with `--select PFC` 1,226 M (1,276 M),
render 1,543 M (1,591 M): the rule families a run selects imported alone, the deadlock analysis only for a routed
fabric: docs/lint-at-scale.md, "Session 41, part c".
Session 40 (part c): the example lint 1,315 M (4.94x; 1,464 M before), `--help`
412 M (1.55x; 436 M), a lint of one NX-OS switch 1,187 M (1,290 M): the heap frozen at exit, a command imported with
the collector paused, one SKU's rows built, annotations as objects: docs/lint-at-scale.md, "Session 40, part c".
Session 40 (part a): the example lint 1,462 M (5.50x; 1,491 M before), a lint of
one NX-OS / Junos / OS10 switch 1,288 / 1,290 / 1,276 M (1,332 / 1,334 / 1,320 M): type hints evaluated once, no SONiC
package to sniff a file that opens with no `{`: docs/lint-at-scale.md, "Session 40, part a".
Session 39 (part e, branch j-startup over main 6bd189df): a lint of one NX-OS / Junos / OS10 switch 1,329 / 1,331 /
1,317 M (1,355 / 1,366 / 1,337 M before), render 1,729 M (1,810 M), fix 2,161 M (2,230 M), `tune --help` 516 M
(2,458 M), `daemon --help` 403 M (1,030 M): docs/lint-at-scale.md, "Session 39, part e".
Session 38 (branch i-startup over main f1ab687e): `import typer, rich` 266 M, `losslessd --help` 429 M
(1.61x), `losslessd rules` 321 M (1.21x), the example lint 1,480 M (5.57x; 1,634 M, 6.14x, before dataclasses' methods
were shared and the parsers' patterns compiled on first use), `import typer, pydantic` 381 M, a bare typer command
661 M: docs/lint-at-scale.md, "Session 38, part c".
Session 35: `import typer, rich` 266 M, `losslessd --help` 415 M (1.56x), `losslessd rules` 318 M
(1.20x), the example lint 1,559 M (5.86x; 1,502 M, 5.65x, with pydantic's plugin loader and importlib.resources
left out of it, not taken), `import typer, pydantic` 381 M, a bare typer command 661 M; the floor, step by step
(pydantic and PyYAML take it to 2.04x before losslessd's own models): docs/lint-at-scale.md, "Session 35".
Session 34 (main a0ec0fc): `import typer, rich` 266 M, `losslessd --help` 407 M (1.53x), `losslessd
rules` 318 M (1.20x), the example lint 1,530 M (5.76x), `import typer, pydantic` 381 M, a bare typer command 661 M:
docs/lint-at-scale.md, "Session 34".
Session 33: `import typer, rich` 265.9 M, the example lint 1,515.9 M (5.70x; 1,524.4 M, 5.73x, before the
Junos routing-table reader was imported only for a Junos table): docs/lint-at-scale.md, "Session 33".
Session 32 (typer 0.29, pydantic 2.14): `import typer, rich` 266 M, `losslessd --help` 404 M (1.52x),
`losslessd rules` 317 M (1.19x; 694 M before a parameter built typer's pydantic validator only for a value given),
the example lint 1,516 M (5.70x; 1,522 M before); where its instructions go, and the floor that keeps it above 2x
(pydantic and PyYAML 2.0x, losslessd's own modules and work 2.6x): docs/lint-at-scale.md, "Session 32".
Session 26: `import typer, rich` 266 M, `import typer, pydantic` 381 M,
a bare typer command 661 M; `losslessd --help` 397 M (1.49x), `losslessd rules` 690 M (2.59x; 954 M before it
printed the rule index instead of importing the rules), the example lint 1,429 M (5.37x; 1,483 M before). What the
rest is, and why 2x of `import typer, rich` is out of reach of a typer 0.29 command with pydantic policy models and
YAML inputs (`import typer, pydantic` and PyYAML alone are 473 M of its 532 M): docs/lint-at-scale.md.

    python bench/startup.py [--repeat 10] [--instructions]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


_BARE_APP = """
import typer
app = typer.Typer(add_completion=False)
@app.command()
def hello(name: str = typer.Option("x", help="who")):
    "Say hello."
@app.command()
def bye():
    "Say goodbye."
app()
"""


def best(cmd: list[str], repeat: int) -> float:
    times = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t0)
    return min(times)


def instructions(cmd: list[str], repeat: int) -> float:
    """Instructions the command executes (callgrind's "Collected"), in millions; ``repeat`` is not used. The hash
    seed is fixed: set and dict orders (and so a few million instructions) otherwise change from run to run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False).stderr
    found = re.search(r"Collected\s*:\s*(\d+)", out)
    if found is None:
        raise SystemExit(f"valgrind gave no instruction count for {cmd}: {out[-500:]}")
    return int(found.group(1)) / 1e6


def _other_commands(cli: list[str], scratch: Path) -> list[tuple[str, list[str]]]:
    """The commands of the other platforms and parts (session 39, part e): a lint of one NX-OS, Junos or OS10
    switch, render, fix, tune's help and the daemon's settings check (``scratch`` holds that check's files)."""
    (scratch / "password").write_text("pw\n")
    (scratch / "password").chmod(0o600)
    (scratch / "inventory.yaml").write_text(
        "hosts:\n  leaf1:\n    hostname: 192.0.2.1\n    platform: sonic\n    data:\n      credentials: "
        f"{{username: admin, password_file: {scratch / 'password'}}}\n")
    (scratch / "known_hosts").write_text("")
    (scratch / "losslessd.yaml").write_text(f"inventory: inventory.yaml\nknown_hosts: known_hosts\n"
                                            f"history: {{path: {scratch / 'history.db'}}}\n")
    raw = "tests/fixtures/raw"
    return [(f"losslessd lint <one {name} switch>", [*cli, "lint", f"{raw}/{platform}/roce-leaf.cfg", "--policy",
                                                     "roce-dscp26"])
            for name, platform in (("NX-OS", "cisco_nxos"), ("Junos", "juniper_junos"), ("OS10", "dell_os10"))] + [
        ("losslessd render --platform cisco_nxos", [*cli, "render", "--platform", "cisco_nxos", "--family", "n9k",
                                                    "--ports", "Ethernet1/1:100G:3", "--policy", "roce-dscp26"]),
        ("losslessd fix <one NX-OS switch>", [*cli, "fix", f"{raw}/cisco_nxos/roce-mistakes.cfg", "--policy",
                                              "roce-dscp26"]),
        ("losslessd tune --help", [*cli, "tune", "--help"]),
        ("losslessd daemon --help", [*cli, "daemon", "--help"]),
        ("losslessd daemon --check", [*cli, "daemon", "--config", str(scratch / "losslessd.yaml"), "--check"]),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10, help="runs of each command; the best counts")
    ap.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    ap.add_argument("--only", metavar="TEXT", help="run only the commands whose label holds TEXT (and the reference)")
    args = ap.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        ap.error("--instructions needs valgrind (Debian package valgrind)")
    measure, unit = (instructions, "M instr") if args.instructions else (lambda c, r: best(c, r) * 1000, "ms")
    py = sys.executable
    subprocess.run([py, "-m", "compileall", "-q", str(ROOT / "losslessd")], check=True)
    cli = [py, "-m", "losslessd"]
    scratch = Path(tempfile.mkdtemp(prefix="losslessd-startup-"))
    # A policy cache of the run's own (losslessd.policycache), written by a first lint of each policy below: a lint
    # is measured as it runs again; "policy validated" is one that validates it (as a first lint, or a new policy).
    os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")
    runs = [
        ('python -c "import typer, rich"', [py, "-c", "import typer, rich"]),
        ('python -c "import typer, pydantic"', [py, "-c", "import typer, pydantic"]),
        ("losslessd --help", [*cli, "--help"]),
        ("losslessd rules", [*cli, "rules"]),
        ("losslessd lint examples/fabric", [*cli, "lint", "examples/fabric", "--policy", "roce-dscp26"]),
        ("losslessd lint examples/fabric, policy validated", [*cli, "lint", "examples/fabric", "--policy",
                                                              "roce-dscp26", "--no-policy-cache"]),
        # What typer itself costs: its rich help renderer, and building a command's parameters (typer imports
        # pydantic for that), in a two-command app that does nothing else.
        ("a bare typer app: --help", [py, "-c", _BARE_APP, "--help"]),
        ("a bare typer app: one command", [py, "-c", _BARE_APP, "hello"]),
        *_other_commands(cli, scratch),
    ]
    runs = [run for n, run in enumerate(runs) if n == 0 or args.only is None or args.only in run[0]]
    for _, cmd in runs:
        if cmd[3:4] == ["lint"]:  # (the cache warmed)
            subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=False)
    walls = {label: measure(cmd, args.repeat) for label, cmd in runs}
    reference = walls[runs[0][0]]
    floor = walls.get("a bare typer app: one command")
    for label, wall in walls.items():
        print(f"{label:<48} {wall:7.1f} {unit}   {wall / reference:5.2f}x the reference"
              + (f"   {wall / floor:5.2f}x a bare typer command" if floor else ""))
    print("targets: --help and the example lint within 2x of `import typer, rich`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
