"""`losslessd sim`: serve a fabric folder's devices over SSH and SNMP on 127.0.0.1 until Ctrl-C or SIGTERM."""

from __future__ import annotations

import shlex
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError


def sim(
    fabric: Annotated[Path, typer.Option("--fabric", help="Folder of device files (e.g. examples/fabric).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the inventory, known_hosts, host key and SNMP data.")],
    v3: Annotated[bool, typer.Option("--v3", help="SNMPv3 authPriv (SHA/AES) instead of SNMPv2c.")] = False,
    snmp: Annotated[bool, typer.Option("--snmp/--no-snmp", help="Start SNMP agents for the switches.")] = True,
    device: Annotated[list[str] | None, typer.Option("--device", help="Serve only this device (repeatable).")] = None,
    live_counters: Annotated[bool, typer.Option("--live-counters/--no-live-counters", help="Answer the counter "
                                                "commands `losslessd daemon` polls over SSH (SONiC `show pfcwd "
                                                "stats`, hosts' `ethtool -S`) from live counters.")] = True,
) -> None:
    """Start the device simulator and write an inventory for it; `losslessd pull` can then collect from it.

    Exit 0: stopped by Ctrl-C or SIGTERM. 2: nothing it can serve in --fabric, an --out folder holding files it
    did not write, or a start that failed (a port or file it could not take)."""
    try:  # asyncssh and snmpsim come with the `sim` extra; other commands must not need them
        from ..sim import Simulator
    except ImportError as exc:
        raise InputError(f"the simulator needs the `sim` extra ({exc.name} is not installed): "
                         "pip install 'losslessd[sim]'") from None
    simulator = Simulator(fabric, out, snmp=snmp, snmp_v3=v3, devices=device or None, live_counters=live_counters)
    if not simulator.devices:  # serving nothing would read as a simulator up
        raise InputError("no device the simulator can serve in this folder (it serves files lint reads of "
                         "platforms with a simulated CLI; the warnings above say why each file was left out)",
                         file=str(fabric))
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        try:
            simulator.start()
        except OSError as exc:  # a file it could not write, a port it could not bind
            raise InputError(f"the simulator did not start: {exc.strerror or exc}",
                             file=exc.filename and str(exc.filename)) from None
        for d in simulator.devices.values():
            snmp_at = f"snmp udp/{d.snmp_port}" if d.snmp_port else "no snmp"
            typer.echo(f"{d.name:<12} {d.platform:<11} ssh {d.host}:{d.ssh_port}  {snmp_at}  "
                       f"(netmiko {d.netmiko_device_type}, user {d.username})")
        typer.echo(f"inventory:   {simulator.inventory_path}")
        typer.echo(f"known_hosts: {simulator.known_hosts_path}")
        typer.echo("# Throwaway secrets this simulator made up for its devices (not credentials of anything real):")
        for name, value in simulator.env.items():
            typer.echo(f"export {name}={shlex.quote(value)}")
        typer.echo("Serving; Ctrl-C or SIGTERM stops it.")
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
    finally:
        simulator.stop()
        signal.signal(signal.SIGTERM, previous)
    typer.echo("simulator stopped")
