"""The ruff and mypy gates and their baseline (tests/test_gates.py runs them in `make test`).

The baseline (tests/gates-baseline.json) counts today's findings per tool, file and rule code. A count
above its baseline is a new finding and fails with the findings named; a count below it fails too, so
that the fix lowers the committed baseline and the numbers only go down. Counting per file and code
(not one total) names the new finding's place, keeps a finding moved with its code to another file
visible, and lets branches that fix different files merge without conflicting on one number.

    python -m tests.gates            # compare with the baseline; exit 1 on any difference (`make lint`)
    python -m tests.gates --update   # write today's counts, refused when a tool's total would rise
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tests" / "gates-baseline.json"
TOOLS = ("ruff", "mypy")
UPDATE = "make lint-baseline"


class GateError(Exception):
    """The tool could not give an answer (not installed, wrong version, crashed): never read as clean."""


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the repository root, with forward slashes
    line: int
    code: str
    message: str

    @property
    def key(self) -> str:
        return f"{self.path} {self.code}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code} {self.message}"


def pinned_version(tool: str) -> str:
    """The exact version the `dev` extra of pyproject.toml pins."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(rf'^\s*"{tool}==([^"]+)"', text, re.M)
    if not match:
        raise GateError(f"pyproject.toml pins no {tool}== in its dev extra")
    return match[1]


def _check_installed(tool: str) -> None:
    want = pinned_version(tool)
    try:
        have = metadata.version(tool)
    except metadata.PackageNotFoundError:
        raise GateError(f"{tool} is not installed: `make test-deps` installs the dev extra ({tool}=={want})") from None
    if have != want:
        raise GateError(f"{tool} {have} is installed but pyproject.toml pins {want} (the baseline counts "
                        f"{want}'s findings): `make test-deps` installs the pinned version")


def _relative(path: str) -> str:
    p = Path(path)
    return (p.relative_to(ROOT) if p.is_absolute() else p).as_posix()


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def run_ruff() -> list[Finding]:
    """`ruff check` over the repository with pyproject.toml's rule selection."""
    _check_installed("ruff")
    done = _run(["ruff", "check", "--no-fix", "--output-format", "json", "."])
    if done.returncode not in (0, 1):
        raise GateError(f"ruff exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    try:
        rows = json.loads(done.stdout)
    except ValueError:
        raise GateError(f"ruff printed no JSON: {done.stdout[:500]!r} {done.stderr[-500:]!r}") from None
    found = [Finding(_relative(r["filename"]), r["location"]["row"], r["code"] or "syntax", r["message"])
             for r in rows]
    if done.returncode == 1 and not found:
        raise GateError(f"ruff failed without findings: {done.stderr.strip()[-2000:]}")
    return found


def run_mypy() -> list[Finding]:
    """mypy over losslessd/ with pyproject.toml's settings; notes are not findings."""
    _check_installed("mypy")
    done = _run(["mypy", "--output", "json", "--no-error-summary"])
    if done.returncode not in (0, 1):
        raise GateError(f"mypy exited {done.returncode}: {(done.stderr or done.stdout).strip()[-2000:]}")
    found = []
    for line in done.stdout.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            raise GateError(f"mypy printed a line that is not JSON: {line[:500]!r}") from None
        if row.get("severity") == "error":
            found.append(Finding(_relative(row["file"]), row["line"], row.get("code") or "error", row["message"]))
    if done.returncode == 1 and not found:
        raise GateError(f"mypy failed without findings: {(done.stderr or done.stdout).strip()[-2000:]}")
    return found


RUNNERS = {"ruff": run_ruff, "mypy": run_mypy}


def counts(findings: list[Finding]) -> dict[str, int]:
    return dict(sorted(Counter(f.key for f in findings).items()))


def load_baseline(path: Path = BASELINE) -> dict[str, dict[str, int]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GateError(f"cannot read the baseline {path}: {exc}") from None
    return {tool: dict(data.get(tool, {})) for tool in TOOLS}


def compare(tool: str, baseline: dict[str, int], findings: list[Finding]) -> list[str]:
    """What differs from the baseline, as sentences for the developer; empty when at the baseline."""
    now = counts(findings)
    problems = []
    for key in sorted(set(now) | set(baseline)):
        have, had = now.get(key, 0), baseline.get(key, 0)
        if have > had:
            named = "\n    ".join(str(f) for f in findings if f.key == key)
            problems.append(f"{tool}: {key}: {have} finding(s) where the baseline allows {had}; fix the new "
                            f"one(s) (the baseline only goes down):\n    {named}")
        elif have < had:
            problems.append(f"{tool}: {key}: {have} finding(s), the baseline still allows {had}: "
                            f"lower the baseline with `{UPDATE}` and commit it")
    return problems


def total(entries: dict[str, int]) -> int:
    return sum(entries.values())


def write_baseline(current: dict[str, dict[str, int]], path: Path = BASELINE) -> None:
    """Write today's counts; refuse when a tool's total would rise (new findings are fixed, not recorded)."""
    if path.exists():
        old = load_baseline(path)
        risen = [f"{tool} {total(old[tool])} -> {total(current[tool])}" for tool in TOOLS
                 if total(current[tool]) > total(old[tool])]
        if risen:
            raise GateError(f"not writing {path.name}: the total would rise ({', '.join(risen)}); "
                            "fix the new findings (`make lint` names them)")
    text = json.dumps({tool: current[tool] for tool in TOOLS}, indent=2, sort_keys=True)
    path.write_text(text + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.gates", description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write today's counts into the baseline")
    args = parser.parse_args(argv)
    try:
        findings = {tool: RUNNERS[tool]() for tool in TOOLS}
        baseline = load_baseline() if BASELINE.exists() or not args.update else {tool: {} for tool in TOOLS}
        if args.update:
            write_baseline({tool: counts(findings[tool]) for tool in TOOLS})
            for tool in TOOLS:
                print(f"{tool}: {total(baseline[tool])} -> {len(findings[tool])} in {BASELINE.relative_to(ROOT)}")
            return 0
    except GateError as exc:
        print(f"gates: error: {exc}", file=sys.stderr)
        return 2
    status = 0
    for tool in TOOLS:
        problems = compare(tool, baseline[tool], findings[tool])
        print(f"{tool}: {len(findings[tool])} finding(s), baseline {total(baseline[tool])}"
              + ("" if problems else " (at the baseline)"))
        for problem in problems:
            print(problem)
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main())
