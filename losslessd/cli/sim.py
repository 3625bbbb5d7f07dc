"""`losslessd sim`: serve a fabric folder's devices over SSH and SNMP on 127.0.0.1 until Ctrl-C or SIGTERM; `losslessd
sim storm|congest|stall|down|reset|syncd-restart|wrap32` start and stop faults on it from another shell."""

from __future__ import annotations

import shlex
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .main import new_app
from .options import seconds

app = new_app(no_args_is_help=False, subcommand_metavar="[FAULT DEVICE [PORT] [OPTIONS]]",
              help="Start the device simulator and write an inventory for it; `losslessd pull` can then collect from "
                   "it. `losslessd sim storm DEVICE PORT` (and congest, stall, down, reset, syncd-restart, wrap32) "
                   "start and stop faults on a running simulator through its control socket in --out.\n\n"
                   "Exit 0: stopped by Ctrl-C or SIGTERM (a fault: done). 2: nothing it can serve in --fabric, an "
                   "--out folder holding files it did not write or another simulator serves, or a start that failed "
                   "(a port or file it could not take); a fault: no simulator serving --out, or a device, port or "
                   "priority it does not have.")

OUT_OPTION = typer.Option("--out", help="The running simulator's --out folder (its control socket is there).")
OFF_OPTION = typer.Option("--on/--off", help="Start the fault (default) or end it.")


def _for_seconds(value: float | None) -> float | None:
    if seconds(value) is not None and value <= 0:  # type: ignore[operator]
        raise typer.BadParameter("takes seconds above 0")
    return value


FOR_OPTION = typer.Option("--for", callback=_for_seconds,
                          help="End the fault after this many seconds (the simulator ends it, whatever the shell "
                          "does).")


@app.callback(invoke_without_command=True)
def sim(
    ctx: typer.Context,
    fabric: Annotated[Path | None, typer.Option("--fabric", help="Folder of device files (e.g. "
                                                "examples/fabric).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Folder for the inventory, known_hosts, host key, SNMP data "
                                             "and control socket.")] = None,
    v3: Annotated[bool, typer.Option("--v3", help="SNMPv3 authPriv (SHA/AES) instead of SNMPv2c.")] = False,
    snmp: Annotated[bool, typer.Option("--snmp/--no-snmp", help="Start SNMP agents for the switches.")] = True,
    device: Annotated[list[str] | None, typer.Option("--device", help="Serve only this device (repeatable).")] = None,
    live_counters: Annotated[bool, typer.Option("--live-counters/--no-live-counters", help="Answer the counter "
                                                "commands `losslessd daemon` polls over SSH (SONiC `show pfcwd "
                                                "stats`, hosts' `ethtool -S`) from live counters.")] = True,
) -> None:
    if ctx.invoked_subcommand is not None:  # a fault: only --out may come before its name
        if fabric is not None or device or v3 or not snmp or not live_counters:
            raise InputError(f"--fabric, --device, --v3, --no-snmp and --no-live-counters start a simulator; "
                             f"`sim {ctx.invoked_subcommand}` acts on a running one (give its --out)")
        ctx.obj = out
        return
    if fabric is None or out is None:
        raise InputError(f"missing {'--fabric' if fabric is None else '--out'}: `losslessd sim --fabric FOLDER --out "
                         "FOLDER` starts a simulator")
    serve(fabric, out, v3=v3, snmp=snmp, devices=device or None, live_counters=live_counters)


def serve(fabric: Path, out: Path, *, v3: bool, snmp: bool, devices: list[str] | None, live_counters: bool) -> None:
    try:  # asyncssh and snmpsim come with the `sim` extra; other commands must not need them
        from ..sim import Simulator
        from ..sim.control import ControlServer
        from ..simcontrol import claim
    except ImportError as exc:
        raise InputError(f"the simulator needs the `sim` extra ({exc.name} is not installed): "
                         "pip install 'losslessd[sim]'") from None
    simulator = Simulator(fabric, out, snmp=snmp, snmp_v3=v3, devices=devices, live_counters=live_counters)
    if not simulator.devices:  # serving nothing would read as a simulator up
        raise InputError("no device the simulator can serve in this folder (it serves files lint reads of "
                         "platforms with a simulated CLI; the warnings above say why each file was left out)",
                         file=str(fabric))
    claim(out)  # (a live simulator on this folder: refused before its inventory is rewritten)
    server = ControlServer(simulator, out)
    control: ControlServer | None = None
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        try:
            simulator.start()
        except OSError as exc:  # a file it could not write, a port it could not bind
            raise InputError(f"the simulator did not start: {exc.strerror or exc}",
                             file=exc.filename and str(exc.filename)) from None
        try:
            server.start()
            control = server
            controlled = f"control:     {server.path} (losslessd sim storm --out {shlex.quote(str(out))} ...)"
        except OSError as exc:  # (a --out too deep for a unix socket's path): serving goes on without it
            controlled = f"control:     none, faults come from the Python API only ({exc.strerror or exc})"
        for d in simulator.devices.values():
            snmp_at = f"snmp udp/{d.snmp_port}" if d.snmp_port else "no snmp"
            typer.echo(f"{d.name:<12} {d.platform:<11} ssh {d.host}:{d.ssh_port}  {snmp_at}  "
                       f"(netmiko {d.netmiko_device_type}, user {d.username})")
        typer.echo(f"inventory:   {simulator.inventory_path}")
        typer.echo(f"known_hosts: {simulator.known_hosts_path}")
        typer.echo(controlled)
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
        if control is not None:
            control.stop()
        simulator.stop()
        signal.signal(signal.SIGTERM, previous)
    typer.echo("simulator stopped")


def _send(ctx: typer.Context, out: Path | None, **message: object) -> None:
    """One fault to the simulator serving --out; prints what it did (control characters written out, as the error
    lines are: whatever listens on the socket in a folder someone else can write wrote the reply)."""
    from ..printable import printable
    from ..simcontrol import request

    folder = out if out is not None else ctx.obj
    if folder is None:
        raise InputError("missing --out: the running simulator's --out folder (its control socket is there)")
    typer.echo(printable(request(folder, {k: v for k, v in message.items() if v is not None})))


DEVICE = typer.Argument(help="A device the simulator serves (as its listing names it).")
PORT = typer.Argument(help="A port of that device (as its config names it).")
PRIORITY = typer.Option("--priority", min=0, max=7, help="The 802.1p priority (default: the port's lossless "
                        "priority, where its config has exactly one).")
ECN = typer.Option("--ecn-healthy", help="ECN marks (and a host's CNPs) climb with the pauses instead of staying flat.")


@app.command("storm")
def storm(ctx: typer.Context, device: Annotated[str, DEVICE], port: Annotated[str, PORT],
          out: Annotated[Path | None, OUT_OPTION] = None, priority: Annotated[int | None, PRIORITY] = None,
          on: Annotated[bool, OFF_OPTION] = True, for_s: Annotated[float | None, FOR_OPTION] = None,
          ecn_healthy: Annotated[bool, ECN] = False) -> None:
    """PFC storm on a running simulator: the port's pause counters climb, its queue stops sending, the on-box
    watchdog counts it after its detection time.

    Exit 0: done. 2: no simulator serving --out, or a device, port or priority it does not have."""
    _send(ctx, out, fault="storm", device=device, port=port, priority=priority, on=on, for_s=for_s,
          ecn_healthy=ecn_healthy)


@app.command("congest")
def congest(ctx: typer.Context, device: Annotated[str, DEVICE], port: Annotated[str, PORT],
            out: Annotated[Path | None, OUT_OPTION] = None, priority: Annotated[int | None, PRIORITY] = None,
            on: Annotated[bool, OFF_OPTION] = True, for_s: Annotated[float | None, FOR_OPTION] = None,
            ecn_healthy: Annotated[bool, ECN] = False) -> None:
    """A pause flood on a running simulator: a storm's pauses while the queue keeps sending (congestion; with flat ECN
    marks, PFC doing ECN's job).

    Exit 0: done. 2: no simulator serving --out, or a device, port or priority it does not have."""
    _send(ctx, out, fault="congest", device=device, port=port, priority=priority, on=on, for_s=for_s,
          ecn_healthy=ecn_healthy)


@app.command("stall")
def stall(ctx: typer.Context, device: Annotated[str, DEVICE], port: Annotated[str, PORT],
          out: Annotated[Path | None, OUT_OPTION] = None, on: Annotated[bool, OFF_OPTION] = True,
          for_s: Annotated[float | None, FOR_OPTION] = None) -> None:
    """A host NIC stops draining on a running simulator: its PFC storm prevention counts a warning, then an error.

    Exit 0: done. 2: no simulator serving --out, or a host or port it does not have."""
    _send(ctx, out, fault="stall", device=device, port=port, on=on, for_s=for_s)


@app.command("down")
def down(ctx: typer.Context, device: Annotated[str, DEVICE], out: Annotated[Path | None, OUT_OPTION] = None,
         on: Annotated[bool, OFF_OPTION] = True, for_s: Annotated[float | None, FOR_OPTION] = None) -> None:
    """A device of a running simulator stops answering SSH and SNMP (--off: it answers again, on the same ports).

    Exit 0: done. 2: no simulator serving --out, or a device it does not have."""
    _send(ctx, out, fault="down", device=device, on=on, for_s=for_s)


@app.command("reset")
def reset(ctx: typer.Context, device: Annotated[str, DEVICE],
          out: Annotated[Path | None, OUT_OPTION] = None) -> None:
    """A device of a running simulator restarts: sysUpTime and every counter start again from 0.

    Exit 0: done. 2: no simulator serving --out, or a device it does not have."""
    _send(ctx, out, fault="reset", device=device)


@app.command("syncd-restart")
def syncd_restart(ctx: typer.Context, device: Annotated[str, DEVICE],
                  out: Annotated[Path | None, OUT_OPTION] = None) -> None:
    """A device's counters restart from 0 beneath its running agent (sysUpTime goes on): a counter discontinuity.

    Exit 0: done. 2: no simulator serving --out, or a device it does not have."""
    _send(ctx, out, fault="syncd-restart", device=device)


@app.command("wrap32")
def wrap32(ctx: typer.Context, device: Annotated[str, DEVICE], out: Annotated[Path | None, OUT_OPTION] = None,
           after: Annotated[float, typer.Option("--after", min=0.0, callback=seconds,
                                                help="Seconds from now to the wrap.")] = 10.0) -> None:
    """A switch's 32-bit SNMP counters (ifInDiscards, ifOutDiscards) read just below 2^32 and wrap --after seconds
    from now.

    Exit 0: done. 2: no simulator serving --out, or a switch with SNMP it does not have."""
    _send(ctx, out, fault="wrap32", device=device, after_s=after)
