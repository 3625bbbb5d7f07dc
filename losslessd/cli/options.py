"""Options several commands share, and the choices that come from a registry rather than a fixed list:
platforms (losslessd.platforms, with their short names). Import-light: lint uses it.

Fixed choice lists are str-valued Enums beside the code that uses them (fix.output.Format,
tune.search.Strategy, lint.finding.Severity). Platforms are not: an Enum would be one more table of
platform facts to keep in step with the registry (and a type checker cannot see an Enum built from it),
so these options take the registry's names as plain strings, listed in --help the way typer lists an
Enum's, and refused, as an Enum's would be, with a usage error (exit 2) before the command runs.
"""

import math
import threading
from collections.abc import Iterable
from pathlib import Path

import typer

from ..platforms import FORMAT_ALIASES, PLATFORMS, resolve_format
from ..printable import quoted


def platform_choice(*decls: str, ids: Iterable[str], help: str,
                    capability: str | None = None) -> typer.models.OptionInfo:
    """An option naming one of the platforms ``ids``, or one of their short names (FORMAT_ALIASES: eos, mlx5...).
    ``capability`` (platforms.CAPABILITIES): a known platform that lacks it is refused with its record's reason."""
    known = list(ids)
    aliases = [alias for alias, target in FORMAT_ALIASES.items() if target in known]
    names = known + aliases

    def check(value: str | None) -> str | None:
        lacking = resolve_format(value) if capability and value is not None and value not in names else None
        if lacking is not None and not lacking.supports(capability or ""):
            raise typer.BadParameter(f"{lacking.id} has no {capability}: {lacking.unsupported[capability or '']}")
        if value is not None and value not in names:
            raise typer.BadParameter(f"{quoted(value)} is not one of {', '.join(repr(n) for n in names)}.")
        return value

    return typer.Option(*decls, metavar="[" + "|".join(known) + "]", callback=check,
                        help=f"{help} Short names: {', '.join(aliases)}.")


def finite(value: float | None) -> float | None:
    """Callback of a number option: ``inf`` and ``nan`` (and 1e400, read as inf) are no amount of anything, and
    were passed on to timers and scores (an OverflowError traceback from a worker thread)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{quoted(value)} is not a finite number.")
    return value


def seconds(value: float | None) -> float | None:
    """Callback of a duration option: finite, and at most the longest wait Python's timers take
    (threading.TIMEOUT_MAX, Python docs "threading": about 292 years on Linux; above it a wait raises)."""
    if finite(value) is not None and value > threading.TIMEOUT_MAX:  # type: ignore[operator]
        raise typer.BadParameter(f"{value:g} s is longer than any wait can be ({threading.TIMEOUT_MAX:g} s).")
    return value


# What lint and fix read: the inputs, the policy, and the rules.
PATHS_ARGUMENT = typer.Argument(help="Device files or fabric folders.")
def policy_named(value: str | None) -> str | None:
    """A --policy callback: "" was read as the path `.` ("not a regular file (a folder)")."""
    if value == "":
        raise typer.BadParameter("is empty: give a shipped policy name or a policy file (an unset shell variable?)")
    return value


POLICY_OPTION = typer.Option("--policy", "-p", callback=policy_named, help="Shipped policy name or policy file.")
# render, fix and lint --fix: where a platform's CLI differs by hardware (EOS Sand, NX-OS 3000, Junos QFX10k).
MODEL_OPTION = typer.Option("--model", help="Hardware model (e.g. DCS-7280SR3-48YC8, N9K-C93180YC-EX, qfx5120-48y): "
                            "chooses the command family where a platform's CLI differs. fix and lint --fix use it for "
                            "devices whose input names none.")


def family_named(value: str | None) -> str | None:
    """A --family callback: a family no platform has stops lint --fix and fix before any file is linted (it stopped
    them after the lint, whose report lint --fix had printed). The renderer is imported only when one is given."""
    if value is not None:
        from ..render import families

        families.known(value)
    return value


FAMILY_OPTION = typer.Option("--family", callback=family_named, help="Command family, when the model is not known: "
                             "arista_eos sand|trident-tomahawk; cisco_nxos n9k|n3k; juniper_junos "
                             "qfx5000|qfx10000-ptx. fix and lint --fix use it for devices whose input names no model.")
SELECT_OPTION = typer.Option("--select", help="Only these rules (code, prefix or name; comma list).")
IGNORE_OPTION = typer.Option("--ignore", help="Skip these rules (code, prefix or name; comma list).")
TOPOLOGY_OPTION = typer.Option("--topology", help="Topology file (links, tiers, routing); default: topology.yaml in "
                               "a linted folder.")

# `--format` of lint and fix.
FORMAT_OPTION = platform_choice("--format", ids=PLATFORMS,
                                help="Force the input platform instead of detecting it from content.")

# `--max-file-mb` of fix and render (lint says more: an oversized file there is a SYS001 finding).
MAX_FILE_MB_OPTION = typer.Option("--max-file-mb", help="Largest input file read, in MiB (default 32, or "
                                  "LOSSLESSD_MAX_FILE_MB).")
# `--known-hosts` and `--insecure-no-host-key-check` of pull and tune, which reach the same devices.
DEFAULT_KNOWN_HOSTS = Path("~/.ssh/known_hosts")
KNOWN_HOSTS_OPTION = typer.Option("--known-hosts", help="known_hosts file the devices' SSH host keys are verified "
                                  "against.")
INSECURE_OPTION = typer.Option("--insecure-no-host-key-check", help="Accept any SSH host key (lab use only: anyone "
                               "in the path can pose as a device).")
