"""`losslessd pull`: collect configs (and SNMP counters) from an inventory into a snapshot folder."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..collect import pull as collect
from ..collect.ssh import check_known_hosts
from ..errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, InputError
from ..inventory import InventoryError, load
from ..limits import absent_or_kind, not_an_input, output_folder, reads_recorded
from ..lint.registry import lookup
from ..printable import printable
from .main import echo_error
from .options import DEFAULT_KNOWN_HOSTS, INSECURE_OPTION, KNOWN_HOSTS_OPTION, seconds
from .term import ProgressLine

log = logging.getLogger("losslessd")


def pull(
    inventory: Annotated[Path, typer.Option("--inventory", "-i", help="Inventory: one YAML file (hosts, groups, "
                                            "defaults) or a folder with hosts.yaml, groups.yaml, defaults.yaml.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Snapshot folder to create (must be new or empty).")],
    known_hosts: Annotated[Path, KNOWN_HOSTS_OPTION] = DEFAULT_KNOWN_HOSTS,
    insecure: Annotated[bool, INSECURE_OPTION] = False,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Devices collected at the same "
                                             "time.")] = collect.DEFAULT_CONCURRENCY,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1,
                                           callback=seconds, help="Seconds allowed for one attempt at one device "
                                           "(connect and all commands).")] = collect.DEFAULT_TIMEOUT_S,
    retries: Annotated[int, typer.Option("--retries", min=0, help="Extra attempts after a connection failure (not "
                                         "after a refused login or host key).")] = collect.DEFAULT_RETRIES,
    serial: Annotated[bool, typer.Option("--serial", help="Debug: one device at a time, in order, with retries and "
                                         "paramiko's own errors logged.")] = False,
    session_log: Annotated[Path | None, typer.Option("--session-log", help="Folder for netmiko session logs "
                                                     "(passwords masked).")] = None,
) -> None:
    """Pull every inventory device's configuration into a snapshot folder that `losslessd lint` reads.

    Exit 0: every device collected. 1: some devices failed (the others are saved; lint reports the
    failures as SYS findings). 2: inventory or usage error (nothing was contacted), or a file of the snapshot
    that could not be written (a full disk; what was written stays). 3: internal error (a bug
    in losslessd, met on a device: the other devices are still collected and saved).
    """
    with reads_recorded() as read:  # (the inventory's files, known_hosts, password files)
        inv, keys = preflight(inventory, known_hosts, insecure)
    logging.basicConfig(stream=sys.stderr, format="losslessd: %(levelname)s: %(message)s",
                        level=logging.INFO if serial else logging.WARNING)
    if not serial:  # paramiko logs each failed connection with a traceback; the summary says what failed
        logging.getLogger("paramiko").setLevel(logging.CRITICAL)
    if session_log:
        output_folder(session_log, "session logs", "--session-log")
        for name in (host.name for host in inv.hosts.values()):  # (a log is opened emptied: never over an input)
            for attempt in range(1, retries + 2):
                not_an_input(collect.session_log_path(session_log, name, attempt), [inventory, keys], read, "pull",
                             "session log", "--session-log")
    collect.prepare(out)
    progress = ProgressLine.on_terminal()
    finished = {"ok": 0, "failed": 0}

    def show(device=None) -> None:
        if progress is None:
            return
        if device is not None:
            finished["ok" if device.status == "ok" else "failed"] += 1
        failed = finished["failed"]
        progress.show(sum(finished.values()), len(inv.hosts), "devices", f"{failed} failed" if failed else "")

    options = collect.Options(known_hosts=keys, concurrency=concurrency, timeout_s=timeout, retries=retries,
                              serial=serial, session_log=session_log)
    try:
        if progress:
            show()
        result = collect.pull(inv, out, options, inventory_path=str(inventory), on_result=show if progress else None)
    finally:
        if progress:
            progress.close(keep=True)
    for device in result.devices.values():
        for code, message in ([(device.code, device.message)] if device.status != "ok" else []) + [
                (i["code"], i["message"]) for i in device.issues]:
            rule = lookup(code)
            typer.echo(f"{device.name}: {code} {rule.name if rule else ''}: {printable(message)}")  # (device output)
    failed = len(result.failed)
    if failed == len(inv.hosts):  # linting it would only repeat the failures
        typer.echo(f"pulled nothing: all {len(inv.hosts)} devices of the inventory failed (see above; "
                   f"{out}/manifest.json records why)")
    else:
        typer.echo(f"pulled {len(inv.hosts) - failed} of {len(inv.hosts)} devices into {out}"
                   + (f" ({failed} failed)" if failed else "") + f"; check them with: losslessd lint {out}")
    for device in result.crashed:  # a bug, not a device that failed: exit 3, never 1 (the rest is saved)
        typer.echo(f"losslessd: internal error: {printable(device.message or '')}", err=True)
    for message in result.unwritten:  # the snapshot folder, not a device: exit 2 (what was written stays)
        echo_error(message)
    raise typer.Exit(EXIT_INTERNAL if result.crashed else EXIT_INPUT if result.unwritten else
                     EXIT_FINDINGS if failed else EXIT_OK)



def preflight(inventory: Path, known_hosts: Path, insecure: bool) -> tuple:
    """The inventory and the known_hosts file to verify host keys against (None: not verified), or every
    problem that stops a run before it starts, reported together and exit 2: the inventory's problems,
    then the known_hosts file (an operator fixes them in one round). Nothing is contacted before."""
    problems: list[str] = []
    inv = None
    try:
        inv = load(inventory)
    except InventoryError as exc:
        problems += [str(err) for err in exc.errors]
    keys = None
    if not insecure:
        keys = known_hosts.expanduser()
        if not os.path.isfile(keys):
            problems.append(str(InputError(
                f"known_hosts file {absent_or_kind(keys)}: pass --known-hosts FILE holding the devices' host keys "
                "(or, on a lab network only, --insecure-no-host-key-check)", file=str(keys))))
        else:
            try:
                check_known_hosts(keys)
            except InputError as exc:
                problems.append(str(exc))
    if problems:
        for problem in problems:
            echo_error(problem)
        typer.echo(f"losslessd: {len(problems)} problem(s) before starting; nothing was contacted", err=True)
        raise typer.Exit(2)
    if insecure:
        log.warning("SSH HOST KEYS ARE NOT CHECKED (--insecure-no-host-key-check): any machine that answers at a "
                    "device's address gets its login and password. Use this only on a lab network.")
    return inv, keys
