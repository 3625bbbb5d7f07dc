"""`losslessd daemon`: monitor PFC/ECN counters and config drift until SIGTERM (docs/daemon.md)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Annotated

import typer

from .main import echo_error


def daemon(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="Settings file (YAML; systemd/losslessd.yaml "
                                                "is an example).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Check the settings, the inventory, the policy and the files "
                                        "they name, then exit: 0 when valid, 2 otherwise.")] = False,
    schema: Annotated[bool, typer.Option("--schema", help="Print the settings' JSON schema and exit.")] = False,
    shard: Annotated[str, typer.Option("--shard", metavar="I/N", help="Poll only the devices whose hashmod of the name "
                                       "by N is I (Prometheus' hashmod), so N daemons split a fleet with no "
                                       "coordination; shard 0 also runs drift.")] = "0/1",
    workers: Annotated[int | None, typer.Option("--workers", min=1, max=256, help="Worker processes (default: the "
                                                "settings' `workers`, else one per CPU core).")] = None,
) -> None:
    """Poll switches and hosts for PFC/ECN counters, detect storms, lint configs for drift, and serve
    /metrics. SIGHUP (or POST /-/reload) re-reads the settings; SIGTERM stops.

    Exit 0: stopped by SIGTERM (or --check: the settings are valid). 2: settings, inventory, policy or history
    that do not check out, or another daemon writing the same history. 3: internal error (a bug in losslessd)."""
    from ..daemon import hup

    hup.hold()  # first: a SIGHUP while the settings load and the pollers import must not end the daemon
    from ..daemon.settings import load_settings  # pydantic models: only when asked
    from ..daemon.settings import schema as settings_schema

    if schema:
        typer.echo(json.dumps(settings_schema(), indent=2))
        raise typer.Exit(0)
    if config is None:
        raise typer.BadParameter("give the settings file", param_hint="--config")
    from ..daemon.shard import parse_shard
    from ..inventory import InventoryError  # (here: `daemon --help` needs no inventory, its pydantic models)

    try:
        part = parse_shard(shard)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--shard") from None
    try:
        settings = load_settings(config)
    except InventoryError as exc:  # every inventory problem at once, as `pull` shows them
        for err in exc.errors:
            echo_error(str(err))
        raise typer.Exit(2) from None
    settings.apply_limits()
    if check:
        from ..history import check_writable

        check_writable(settings.history_path)  # the daemon's first step: a history it cannot open stops it (exit 2)
        snmp = sum(1 for h in settings.hosts.hosts.values() if h.snmp is not None)
        mine = len(part.select(settings.hosts.hosts))
        typer.echo(f"{config}: valid; {len(settings.hosts.hosts)} devices ({snmp} with SNMP; {mine} in shard "
                   f"{part}), policy {settings.lint_policy.name}, history {settings.history_path}, /metrics on "
                   f"{settings.http.host}:{settings.http.port}")
        raise typer.Exit(0)
    from ..daemon import logs
    from ..daemon.service import Daemon

    logs.configure(settings.log.level)
    from ..collect.snmp import fast_available

    if settings.poll.snmp_backend != "pysnmp" and (why := fast_available()):
        if settings.poll.snmp_backend == "fast":
            echo_error(f"poll.snmp_backend is fast, but {why}; install losslessd[fast]")
            raise typer.Exit(2)
        logging.getLogger("losslessd.daemon").warning(
            "SNMP polls use pysnmp: %s (install losslessd[fast] for about 100x less CPU per poll)", why)
    raise typer.Exit(asyncio.run(Daemon(settings, shard=part, workers=workers).run()))
