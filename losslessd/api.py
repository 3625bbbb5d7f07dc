"""The Python face of losslessd, used by the CLI, tests and other tools."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .docpos import load_json
from .errors import InputError
from .fix import FixResult, plan
from .gcpause import gc_paused
from .lint.engine import LintResult, run
from .lint.finding import Finding, Severity
from .lint.registry import Rule, all_rules, lookup, select
from .model import Fabric
from .parse import load_fabric
from .platforms import PLATFORMS, resolve_format
from .policy import Policy, load_policy

__all__ = ["Fabric", "Finding", "FixResult", "InputError", "LintResult", "Policy", "Rule", "Severity", "all_rules", "fix",
           "lint", "load_baseline", "load_fabric", "load_policy", "lookup", "select"]


def lint(paths: Sequence[str | Path], policy: str | Path | Policy = "roce-dscp26", *, fmt: str | None = None,
         select_codes: list[str] | None = None, ignore_codes: list[str] | None = None,
         baseline: set[str] | None = None, topology: str | Path | None = None,
         progress: Callable[[str, int, int, str], None] | None = None) -> LintResult:
    """Parse ``paths`` (files or fabric folders) and lint them under ``policy``; ``topology`` is the fabric's
    topology file (default: a linted folder's topology.yaml). ``progress(stage, done, total, note)`` is
    told how far reading ("devices") and checking ("rules", the rule's code as note) have got."""
    if fmt and resolve_format(fmt) is None:
        raise InputError(f"unknown --format {fmt!r}; known: {', '.join(PLATFORMS)} (or eos, mlx5)")
    pol = policy if isinstance(policy, Policy) else load_policy(policy)
    rules = select(select_codes, ignore_codes)
    reading = checking = None
    if progress is not None:
        def reading(done: int, total: int) -> None:
            progress("devices", done, total, "")

        def checking(done: int, total: int, code: str) -> None:
            progress("rules", done, total, code)
    with gc_paused():
        # run() finds the lines its findings show
        fabric = load_fabric(list(paths), fmt, lines=False, topology=topology, progress=reading)
        result = run(fabric, pol, rules, baseline=baseline, progress=checking)
    result.inputs = [str(p) for p in paths]
    return result


def fix(paths: Sequence[str | Path], policy: str | Path | Policy = "roce-dscp26", *, unsafe: bool = False,
        model: str | None = None, **lint_options) -> FixResult:
    """Lint ``paths`` (options as for ``lint``) and work out each device's fix snippets; nothing is sent anywhere.
    ``model``: the hardware model of devices whose input names none (chooses the command family)."""
    return plan(lint(paths, policy, **lint_options), unsafe=unsafe, model=model)


def load_baseline(path: str | Path) -> set[str]:
    """Fingerprints from an earlier `lint --output-format json` report: those findings are accepted."""
    data = load_json(path)  # InputError (file:line) for a file that is not JSON, or not a regular file
    try:
        return {str(f["fingerprint"]) for f in data["findings"]}
    except (KeyError, TypeError):
        raise InputError("not a losslessd JSON report (expected findings[].fingerprint)", file=str(path)) from None
