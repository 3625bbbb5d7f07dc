"""The Python face of losslessd, used by the CLI, tests and other tools."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .docpos import load_json
from .errors import InputError
from .fabric import load_fabric
from .lint.engine import LintResult
from .lint.finding import Finding, Severity
from .lint.registry import Rule, all_rules, lookup, select
from .model import Fabric
from .platforms import PLATFORMS, resolve_format
from .printable import quoted

if TYPE_CHECKING:
    from .fix import FixResult
    from .policy import Policy, load_policy

__all__ = ["Fabric", "Finding", "FixResult", "InputError", "LintResult", "Policy", "Rule", "Severity", "all_rules", "fix",
           "lint", "lint_fabric", "load_baseline", "load_fabric", "load_policy", "lookup", "select"]


def lint(paths: Sequence[str | Path], policy: str | Path | Policy = "roce-dscp26", *, fmt: str | None = None,
         select_codes: list[str] | None = None, ignore_codes: list[str] | None = None,
         baseline: set[str] | None = None, topology: str | Path | None = None, jobs: int | None = None,
         progress: Callable[[str, int, int, str], None] | None = None,
         output: str | Path | None = None) -> LintResult:
    """Parse ``paths`` (files or fabric folders) and lint them under ``policy``; ``topology`` is the fabric's
    topology file (default: a linted folder's topology.yaml); ``output``: a report file about to be written there,
    which is no device. ``jobs``: worker processes (1: none; default: as
    many as cores for a large fabric, see losslessd.fabric). ``progress(stage, done, total, note)`` is told how
    far reading ("devices") and checking ("rules", the rule's code as note) have got."""
    from . import fabric
    from .gcpause import gc_paused

    if fmt and resolve_format(fmt) is None:
        raise InputError(f"unknown --format {quoted(fmt)}; known: {', '.join(PLATFORMS)} (or eos, mlx5)")
    pol = _policy(policy)
    rules = select(select_codes, ignore_codes)
    with gc_paused():
        result = fabric.lint(list(paths), pol, rules, fmt=fmt, topology=topology, baseline=baseline, jobs=jobs,
                             progress=progress, output=output)
    result.inputs = [str(p) for p in paths]
    return result


def lint_fabric(fabric: Fabric | dict, policy: str | Path | Policy = "roce-dscp26", *,
                select_codes: list[str] | None = None, ignore_codes: list[str] | None = None,
                baseline: set[str] | None = None) -> LintResult:
    """Lint a fabric built in Python (a Fabric, or its fields as plain data) under ``policy``.

    Parsers build the model unchecked; a model given here comes from outside and is checked first: every field of
    its declared type (InputError naming the first that is not), plain data converted as pydantic does."""
    from .gcpause import gc_paused
    from .lint.engine import run
    from .model.validate import ModelTypeError, check

    if isinstance(fabric, dict):
        try:
            checked = Fabric.model_validate(fabric)
        except ValueError as exc:
            raise InputError(f"not a fabric: {exc}") from None
    else:
        try:
            check(fabric, "fabric")
        except ModelTypeError as exc:
            raise InputError(f"not a valid fabric: {exc}") from None
        checked = fabric
    pol = _policy(policy)
    with gc_paused():
        return run(checked, pol, select(select_codes, ignore_codes), baseline)


def fix(paths: Sequence[str | Path], policy: str | Path | Policy = "roce-dscp26", *, unsafe: bool = False,
        model: str | None = None, family: str | None = None, **lint_options) -> FixResult:
    """Lint ``paths`` (options as for ``lint``) and work out each device's fix snippets; nothing is sent anywhere.
    ``model``/``family``: the hardware model or command family of devices whose input names no model."""
    from .fix import plan

    return plan(lint(paths, policy, **lint_options), unsafe=unsafe, model=model, family=family)


def _policy(policy: str | Path | Policy) -> Policy:
    """A policy named (a file or a shipped name) loaded; one given (a Policy, or the CLI's cached view of one) as
    it is."""
    if isinstance(policy, str | os.PathLike):
        from .policy import load_policy

        return load_policy(policy)
    return policy


def load_baseline(path: str | Path) -> set[str]:
    """Fingerprints from an earlier `lint --output-format json` report: those findings are accepted."""
    data = load_json(path)  # InputError (file:line) for a file that is not JSON, or not a regular file
    try:
        found = [f["fingerprint"] for f in data["findings"]]
    except (KeyError, TypeError):
        raise InputError("not a losslessd JSON report (expected findings[].fingerprint)", file=str(path)) from None
    # (a fingerprint is text: null, a number or an object was read as its str(), 'None', and matched nothing)
    bad = next((i for i, value in enumerate(found) if not isinstance(value, str) or not value), None)
    if bad is not None:
        raise InputError(f"not a losslessd JSON report: findings[{bad}].fingerprint is {found[bad]!r:.40}, not the "
                         "text losslessd writes", file=str(path))
    return set(found)


def __getattr__(name: str):
    """FixResult lives with `fix`, which imports the renderer: loaded when asked for, not for every lint; Policy and
    load_policy with pydantic, which a lint of a cached policy does without (losslessd.policycache)."""
    if name == "FixResult":
        from .fix import FixResult

        return FixResult
    if name in ("Policy", "load_policy"):
        from . import policy

        return getattr(policy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
