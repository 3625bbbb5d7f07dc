"""Noise census: lint every real input under the given folders and count the findings by class.

A linter that is wrong more often than right gets switched off; the usual cause is a "could not verify" or a SYS002
("lines not read") on a clean real file. This walks each folder, lints each input on its own (a folder whose files
are all JSON is one SONiC device, its qos and buffer files together; one with an opensm.conf one subnet manager)
under the shipped policy that fits its platform (SONiC: sonic-azure, OpenSM: infiniband, else roce-dscp26) and under
roce-dscp26, and prints, per policy:
the exit codes, then every class of finding (code, severity and the message with its values stripped), how many
findings and how many inputs it hit, by platform, with up to three example inputs to read by hand. No network.

    python bench/noise_census.py FOLDER... [--policy fitting|roce-dscp26|both] [--json OUT] [--examples 3]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.api import lint  # noqa: E402
from losslessd.errors import InputError  # noqa: E402
from losslessd.lint.finding import Severity  # noqa: E402

# Files that are a fixture's companions (expectations, policies, notes) or a repository's own, not device inputs.
_SKIP_SUFFIXES = {".md", ".yaml", ".yml", ".py", ".pyc", ".bazel", ".bzl", ".ref", ".gitignore"}
_SKIP_NAMES = {"BUILD", "README", "LICENSE", "SOURCES"}
_FITTING = {"sonic": "sonic-azure", "opensm": "infiniband"}

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_PORT = re.compile(r"\b(?:[A-Za-z][A-Za-z-]*?(?:ethernet|eth|port-channel|po|swp|et|xe|ge|mgmt|ib|mlx5_)"
                   r"[\w/.:-]*\d[\w/.:-]*)\b", re.I)
_NUMBER = re.compile(r"\b\d[\d./:,-]*\b")
_SPACES = re.compile(r"\s+")


def template(message: str) -> str:
    """The message with its values (quoted text, port names, numbers) stripped, so one class reads as one line."""
    text = _QUOTED.sub("<q>", message.splitlines()[0] if message else "")
    text = _PORT.sub("<port>", text)
    text = _NUMBER.sub("<n>", text)
    return _SPACES.sub(" ", text).strip()[:160]


def units(folder: Path) -> list[Path]:
    """Every input under ``folder``: a folder of JSON files alone (a SONiC device) or with an opensm.conf (a subnet
    manager's files) as one, else each file."""
    found: list[Path] = []
    for directory in sorted([folder, *(p for p in folder.rglob("*") if p.is_dir())]):
        files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix not in _SKIP_SUFFIXES
                       and p.stem not in _SKIP_NAMES and not p.name.startswith("."))
        if (len(files) >= 2 and all(p.suffix == ".json" for p in files)) or directory / "opensm.conf" in files:
            found.append(directory)
        else:
            found.extend(files)
    return found


def lint_one(path: Path, policy: str | None) -> tuple[int, str, list[tuple[str, str, str, bool]], str | None]:
    """(exit code, platform, [(code, severity, template, unverified)], the fitting policy) of one input."""
    try:
        result = lint([path], policy or "roce-dscp26")
    except InputError as exc:
        return 2, "?", [("INPUT", "error", template(str(exc)), False)], None
    platforms = sorted({d.platform for d in result.fabric.devices.values()}) or ["?"]
    platform = "+".join(platforms)
    fitting = _FITTING.get(platforms[0], "roce-dscp26")
    if policy is None and fitting != "roce-dscp26":
        return lint_one(path, fitting)[:3] + (fitting,)
    failed = result.fails(Severity.warning)
    code = result.outcome(failed).code
    rows = [(f.code, f.severity.value, template(f.message), f.unverified) for f in result.findings]
    rows += [("SYS900", "error", template(m), False) for m in result.internal_errors]
    return code, platform, rows, policy or fitting


def census(inputs: list[Path], policy: str | None) -> dict:
    exits: Counter[int] = Counter()
    platforms: Counter[str] = Counter()
    classes: dict[tuple[str, str, str], dict] = {}
    start = time.process_time()
    for path in inputs:
        code, platform, rows, _ = lint_one(path, policy)
        exits[code] += 1
        platforms[platform] += 1
        seen: set[tuple[str, str, str]] = set()
        for rule, severity, text, unverified in rows:
            key = (rule, severity, text)
            entry = classes.setdefault(key, {"findings": 0, "inputs": 0, "unverified": unverified,
                                             "platforms": Counter(), "examples": []})
            entry["findings"] += 1
            if key not in seen:
                seen.add(key)
                entry["inputs"] += 1
                entry["platforms"][platform] += 1
                entry["examples"].append(str(path))
    return {"policy": policy or "fitting", "inputs": len(inputs), "cpu_s": round(time.process_time() - start, 1),
            "exits": dict(sorted(exits.items())), "platforms": dict(platforms.most_common()),
            "classes": [{"code": k[0], "severity": k[1], "template": k[2], **v,
                         "platforms": dict(v["platforms"].most_common())}
                        for k, v in sorted(classes.items(), key=lambda kv: (-kv[1]["inputs"], kv[0]))]}


def show(report: dict, examples: int, least: int) -> None:
    print(f"== policy {report['policy']}: {report['inputs']} inputs, {report['cpu_s']} s CPU; exit codes "
          f"{report['exits']}; platforms {report['platforms']}")
    print(f"{'inputs':>6} {'finds':>6}  code    severity  message (values stripped) [platforms]")
    for c in report["classes"]:
        if c["inputs"] < least:
            continue
        mark = " (unverified)" if c["unverified"] else ""
        where = ", ".join(f"{p} {n}" for p, n in c["platforms"].items())
        print(f"{c['inputs']:>6} {c['findings']:>6}  {c['code']:7} {c['severity']:8}  {c['template']}{mark} [{where}]")
        for example in c["examples"][:examples]:
            print(f"{'':16}e.g. {example}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--policy", choices=["fitting", "roce-dscp26", "both"], default="both")
    ap.add_argument("--json", type=Path, help="also write the full census here")
    ap.add_argument("--examples", type=int, default=3, help="example inputs shown per class")
    ap.add_argument("--least", type=int, default=1, help="show classes hitting at least this many inputs")
    args = ap.parse_args()
    inputs = [u for folder in args.folders for u in units(folder)]
    policies = {"fitting": [None], "roce-dscp26": ["roce-dscp26"], "both": [None, "roce-dscp26"]}[args.policy]
    reports = [census(inputs, p) for p in policies]
    for report in reports:
        show(report, args.examples, args.least)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1, default=list))


if __name__ == "__main__":
    main()
