"""Seconds to read YAML at the size limit (4 MiB by default): libyaml's parser under docpos's composer against
PyYAML's pure-Python reader (docpos's fallback where PyYAML lacks libyaml), in the same run, with the ratio.

Each shape is generated just under the YAML limit and read by docpos.load_yaml (compose, lines, construct) in a
child process of its own, so one reader's heap does not slow the other's; the figures are CPU seconds:

- inventory: a 10,000s-host inventory in block style (the largest real YAML losslessd reads);
- flow: dense flow mappings of short scalars (the most nodes a byte; refused at MAX_YAML_NODES);
- nvue: an NVUE startup.yaml tree, 8 levels deep, a port per branch;
- long: few nodes, long quoted scalars;
- aliases: anchors and aliases (the alias expansion walk runs).

    python bench/yaml_read.py [--mb 4] [--only NAME] [--no-pure]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.child import run, timed  # noqa: E402
from losslessd import docpos, yamlread  # noqa: E402
from losslessd.limits import MIB  # noqa: E402


def _fill(line, budget: int, head: str = "") -> str:
    out, size, i = [head], len(head), 0
    while True:
        text = line(i)
        if size + len(text) > budget:
            return "".join(out)
        out.append(text)
        size += len(text)
        i += 1


SHAPES = {
    "inventory": lambda b: _fill(lambda i: f"  h{i}:\n    platform: sonic\n    address: 10.{i // 65536 % 256}."
                                           f"{i // 256 % 256}.{i % 256}\n    groups: [leaf, pod{i % 64}]\n", b,
                                 "hosts:\n"),
    "flow": lambda b: _fill(lambda i: f"- {{n: h{i}, a: {i}, b: [1, 2, x], c: y}}\n", b),
    "nvue": lambda b: _fill(lambda i: f"      swp{i}:\n        qos:\n          pfc:\n            profile: lossless\n"
                                      f"          roce:\n            enable: on\n        link:\n          mtu: 9216\n",
                            b, "- set:\n    interface:\n"),
    "long": lambda b: _fill(lambda i: f"k{i}: \"{'x' * 2000}\"\n", b),
    "aliases": lambda b: _fill(lambda i: f"h{i}: {{<<: *base, name: h{i}}}\n", b,
                               "base: &base {platform: sonic, mtu: 9216, pfc: [3, 4]}\n"),
}


def _read(path: str, pure: bool) -> str:
    """Runs in the child: read ``path`` and say what came of it."""
    if pure:
        yamlread._Composing = yamlread._Loader  # the fallback, as where PyYAML has no libyaml
    return timed(lambda: f"read, {len(docpos.load_yaml(path).lines):,} paths")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=4.0, help="document size in MiB (default: the YAML limit)")
    ap.add_argument("--only", choices=sorted(SHAPES))
    ap.add_argument("--no-pure", action="store_true", help="skip PyYAML's pure-Python reader (minutes at 4 MiB)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--pure", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(_read(args.child, args.pure))
        return 0
    if yamlread.CParser is None:
        print("this PyYAML has no libyaml: losslessd reads YAML in pure Python here")
    budget = int(args.mb * MIB) - 64
    with tempfile.TemporaryDirectory(prefix="losslessd-yaml-") as tmp:
        for name, make in SHAPES.items():
            if args.only and name != args.only:
                continue
            path = Path(tmp) / f"{name}.yaml"
            path.write_text(make(budget))
            size = path.stat().st_size / MIB
            fast, what = run(__file__, str(path))
            line = f"{name:9} {size:.2f} MiB  libyaml {fast:7.2f} s ({size / fast:.2f} MiB/s)"
            if not args.no_pure:
                slow, slow_what = run(__file__, str(path), "--pure")
                line += f"  pure Python {slow:7.2f} s  ratio {slow / fast:5.1f}x"
                if slow_what != what:
                    line += f"  DIFFERENT: {slow_what}"
            print(f"{line}  [{what}]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
