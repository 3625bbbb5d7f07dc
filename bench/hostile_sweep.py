"""A fresh hostile set each run: byte-level mutations of every real input the repository holds, through
the CLI entry that reads it, counting what issue 11 forbids.

Inputs: parser fixtures and the example fabric (lint, fix, render --device), the shipped policies
(policy check, lint --policy), the example topology (lint of a folder), the daemon settings example
(daemon --check) and an inventory (pull --inventory, against TEST-NET addresses with a 1 s timeout).
Mutations: random bytes flipped, control and non-UTF-8 bytes inserted, chunks duplicated or deleted,
the file cut short, two files spliced, digit runs made 5,000 digits long or numbers at their edges (0, -1, 2^63,
1e309, NaN, 0x10, 1_000, full-width digits, 100G), indentation deepened or made a tab.

Every case runs in this process through losslessd.cli.main.main (tests/hostile.py run_case) under a
3 GiB address-space limit, and the summary counts tracebacks, internal errors (exit 3), exits outside
0-2, hangs (a 60 s alarm) and MemoryErrors, with the slowest case and the peak RSS. It exits 1 when a case
did not go as documented (the seed printed repeats the set).

    python bench/hostile_sweep.py [--cases 700] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile import FABRIC, MEMORY_LIMIT_BYTES, ROOT, TEST_NET_INVENTORY, Case, _rmtree, run_case  # noqa: E402

DEVICE_FILES = sorted(p for p in (ROOT / "tests" / "fixtures" / "raw").rglob("*") if p.is_file()) + sorted(
    p for p in FABRIC.rglob("*") if p.is_file() and p.name != "topology.yaml")
POLICIES = sorted((ROOT / "policies").glob("*.yaml"))
INVENTORY = TEST_NET_INVENTORY


# Numbers at their type's edges and in spellings no device writes: 0, -1, 2^63, 2^64, past a double, not a number,
# hexadecimal, digit groups, full-width digits, a sign, a unit.
EDGE_NUMBERS = [b"0", b"-1", b"9223372036854775808", b"18446744073709551616", b"1e309", b"NaN", b"0x10", b"1_000",
                "\uff11\uff10".encode(), b"+5", b"100G", b"40000m", b"-0", b"1.5"]


def mutate(data: bytes, rnd: random.Random, other: bytes) -> bytes:
    """One to four edits of ``data``."""
    for _ in range(rnd.randint(1, 4)):
        n = len(data)
        op = rnd.choice(["flip", "insert", "duplicate", "delete", "truncate", "splice", "digits", "indent", "edge",
                         "tabs"])
        at = rnd.randrange(n + 1) if n else 0
        if op == "flip" and n:
            data = data[:at - 1] + bytes([rnd.randrange(256)]) + data[at:]
        elif op == "insert":
            data = data[:at] + rnd.choice([b"\x00", b"\xff\xfe", b"\x1b[2J", b"\r", b"\t", b"{", b"[", b"&a ", b"*a",
                                           b"\n  - ", b'"', b"'", b"\\", b"#%", b"!!"]) * rnd.randint(1, 50) + data[at:]
        elif op == "duplicate" and n:
            end = min(n, at + rnd.randint(1, 2000))
            data = data[:end] + data[at:end] * rnd.randint(1, 30) + data[end:]
        elif op == "delete" and n:
            data = data[:at] + data[at + rnd.randint(1, 500):]
        elif op == "truncate":
            data = data[:at]
        elif op == "splice" and other:
            cut = rnd.randrange(len(other) + 1)
            data = data[:at] + other[cut:cut + rnd.randint(1, 3000)] + data[at:]
        elif op == "digits":
            data = re.sub(rb"\d+", lambda m: b"9" * 5000 if rnd.random() < 0.2 else m.group(), data)
        elif op == "edge":  # a number at its type's edges, or in a spelling no device writes (round 16)
            data = re.sub(rb"\d+", lambda m: rnd.choice(EDGE_NUMBERS) if rnd.random() < 0.1 else m.group(), data)
        elif op == "tabs":  # some indentation a tab: a block that depends on a tab's width (round 16)
            data = re.sub(rb"(?m)^ +", lambda m: b"\t" if rnd.random() < 0.3 else m.group(), data)
        elif op == "indent":
            lines = data.split(b"\n")
            i = rnd.randrange(len(lines))
            lines[i:i + 1] = [b" " * k + lines[i].lstrip() for k in range(rnd.randint(2, 300))]
            data = b"\n".join(lines)
    return data


def build_case(i: int, rnd: random.Random) -> Case:
    kind = rnd.choice(["lint", "lint", "lint", "fix", "render", "policy", "lint-policy", "topology", "daemon",
                       "pull"])
    other = rnd.choice(DEVICE_FILES).read_bytes()

    def build(tmp: Path) -> list[str]:
        if kind in ("lint", "fix", "render"):
            src = rnd.choice(DEVICE_FILES)
            target = tmp / src.name
            target.write_bytes(mutate(src.read_bytes(), rnd, other))
            if kind == "render":
                return ["render", "--platform", rnd.choice(["sonic", "arista_eos"]), "--device", str(target)]
            return [kind, str(target)]
        if kind in ("policy", "lint-policy"):
            target = tmp / "p.yaml"
            target.write_bytes(mutate(rnd.choice(POLICIES).read_bytes(), rnd, other))
            if kind == "policy":
                return ["policy", "check", str(target)]
            return ["lint", str(FABRIC / "spine1.cfg"), "--policy", str(target)]
        if kind == "topology":
            folder = tmp / "fabric"
            folder.mkdir()
            for name in ("spine1.cfg", "leaf2.capture", "gpu01.capture"):
                (folder / name).write_bytes((FABRIC / name).read_bytes())
            (folder / "topology.yaml").write_bytes(mutate((FABRIC / "topology.yaml").read_bytes(), rnd, other))
            return ["lint", str(folder)]
        if kind == "daemon":
            (tmp / "inventory.yaml").write_text(INVENTORY)
            (tmp / "known_hosts").write_text("")
            target = tmp / "losslessd.yaml"
            target.write_bytes(mutate((ROOT / "systemd" / "losslessd.yaml").read_bytes(), rnd, other))
            return ["daemon", "--config", str(target), "--check"]
        (tmp / "known_hosts").write_text("")
        target = tmp / "inv.yaml"
        target.write_bytes(mutate(INVENTORY.encode(), rnd, other))
        return ["pull", "-i", str(target), "-o", str(tmp / "out"), "--known-hosts", str(tmp / "known_hosts"),
                "--timeout", "1", "--retries", "0"]

    return Case(f"{i:04d}-{kind}", build, exits=(0, 1, 2), env={"HOSTILE_PW": "pw"})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=700)
    ap.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "big"))
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    rnd = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="losslessd-sweep-")
    cwd = os.getcwd()
    os.chdir(tmp)
    outcomes = []
    try:
        for i in range(args.cases):
            outcomes.append(run_case(build_case(i, rnd), Path(tmp)))
    finally:
        os.chdir(cwd)
        _rmtree(tmp)
    bad = [o for o in outcomes if not o.ok]
    for o in bad[:20]:
        print(f"{o.name}: exit {o.exit} {'; '.join(o.problems)}\n    {o.output.strip().splitlines()[-1:]}")
    slowest = max(outcomes, key=lambda o: o.seconds)
    exits = {code: sum(o.exit == code for o in outcomes) for code in sorted({o.exit for o in outcomes}, key=str)}
    print(f"seed {args.seed}: {len(outcomes)} cases; exits {exits}; tracebacks {sum(o.traceback for o in outcomes)}, "
          f"internal errors {sum(o.exit == 3 for o in outcomes)}, hung {sum(o.hung for o in outcomes)}, "
          f"out of memory {sum(o.memory_error for o in outcomes)}, not as documented {len(bad)}; slowest "
          f"{slowest.name} {slowest.seconds:.1f} s; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
