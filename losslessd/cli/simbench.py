"""`losslessd sim-bench`: the stand-in fabric's benchmark against the simulator (losslessd.sim.bench)."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import InputError


def sim_bench(
    inventory: Path = typer.Option(..., "--inventory", "-i", help="The simulator's inventory."),
    device: str = typer.Option(..., "--device", help="The switch whose port is the bottleneck."),
    port: str = typer.Option(..., "--port", help="The bottleneck port: its ECN, PFC trigger and headroom are used."),
    incast: int = typer.Option(8, "--incast", min=1, help="Senders into the port."),
    priority: int = typer.Option(3, "--priority", min=0, max=7, help="The lossless priority (and queue)."),
    sizes: str = typer.Option("8M,64M,512M", "--sizes", help="Message sizes per rank."),
    noise: float = typer.Option(0.5, "--noise-pct", min=0.0, help="Run-to-run busbw noise (standard deviation, %)."),
    known_hosts: Path = typer.Option(None, "--known-hosts", help="The simulator's known_hosts (host keys checked)."),
    slow_below_kmax: int = typer.Option(None, "--slow-below-kmax", help="Plant a regression: runs with the port's "
                                        "Kmax below this many bytes are 30 % slower."),
    storm_on_run: int = typer.Option(None, "--storm-on-run", help="Plant a PFC storm on the port during this run "
                                     "(counted in --state)."),
    state: Path = typer.Option(None, "--state", help="File that counts the runs (for --storm-on-run)."),
    headroom: float = typer.Option(None, "--headroom-bytes", help="Override the PG's headroom (too little drops)."),
    trigger: float = typer.Option(None, "--pfc-trigger-bytes", help="Override where the PG pauses (per port)."),
):
    """Run the DCQCN + PFC fluid model with a simulated switch port's settings; print nccl-tests output."""
    try:
        from ..sim.bench import run, sizes_arg
    except ImportError as exc:
        raise InputError(f"sim-bench needs the `sim` extra ({exc.name} is not installed)") from None
    if storm_on_run is not None and state is None:
        raise InputError("--storm-on-run needs --state FILE to count the runs")
    typer.echo(run(inventory, device, port, incast=incast, priority=priority, sizes=sizes_arg(sizes), noise_pct=noise,
                   known_hosts=known_hosts, slow_below_kmax=slow_below_kmax, storm_on_run=storm_on_run, state=state,
                   headroom_bytes=headroom, trigger_bytes=trigger), nl=False)
