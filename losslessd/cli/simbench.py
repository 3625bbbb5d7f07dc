"""`losslessd sim-bench`: the stand-in fabric's benchmark against the simulator (losslessd.sim.bench)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .options import DEFAULT_KNOWN_HOSTS, INSECURE_OPTION, KNOWN_HOSTS_OPTION, POLICY_OPTION, finite
from .pull import preflight


def sim_bench(
    inventory: Annotated[Path, typer.Option("--inventory", "-i", help="The simulator's inventory.")],
    device: Annotated[str, typer.Option("--device", help="The switch whose port is the bottleneck.")],
    port: Annotated[str, typer.Option("--port", help="The bottleneck port: its ECN, PFC trigger and headroom are "
                                      "used.")],
    incast: Annotated[int, typer.Option("--incast", min=1, help="Senders into the port.")] = 8,
    priority: Annotated[int | None, typer.Option("--priority", min=0, max=7, help="The lossless priority (default: "
                                                 "the policy's, where it names one).")] = None,
    policy: Annotated[str, POLICY_OPTION] = "roce-dscp26",
    sizes: Annotated[str, typer.Option("--sizes", help="Message sizes per rank.")] = "8M,64M,512M",
    noise: Annotated[float, typer.Option("--noise-pct", min=0.0,
                                         callback=finite, help="Run-to-run busbw noise (standard deviation, "
                                         "%).")] = 0.5,
    known_hosts: Annotated[Path, KNOWN_HOSTS_OPTION] = DEFAULT_KNOWN_HOSTS,
    insecure: Annotated[bool, INSECURE_OPTION] = False,
    slow_below_kmax: Annotated[int | None, typer.Option("--slow-below-kmax", help="Plant a regression: runs with the "
                                                        "port's Kmax below this many bytes are 30 % slower.")] = None,
    slow_from_kmax: Annotated[int | None, typer.Option("--slow-from-kmax", help="Plant a regression: runs with the "
                                                       "port's Kmax at or above this many bytes are 30 % "
                                                       "slower.")] = None,
    storm_on_run: Annotated[int | None, typer.Option("--storm-on-run", help="Plant a PFC storm on the port during "
                                                     "this run (counted in --state).")] = None,
    state: Annotated[Path | None, typer.Option("--state", dir_okay=False, help="File that counts the runs (for "
                                               "--storm-on-run).")] = None,
    headroom: Annotated[float | None, typer.Option("--headroom-bytes",
                                                   callback=finite, help="Override the PG's headroom (too little "
                                                   "drops).")] = None,
    trigger: Annotated[float | None, typer.Option("--pfc-trigger-bytes",
                                                  callback=finite, help="Override where the PG pauses (per "
                                                  "port).")] = None,
) -> None:
    """Run the DCQCN + PFC fluid model with a simulated switch port's settings; print nccl-tests output.

    Exit 0: the run printed. 2: an inventory, device or port it cannot use, or settings it cannot read."""
    try:
        from ..sim.bench import run, sizes_arg
    except ImportError as exc:
        raise InputError(f"sim-bench needs the `sim` extra ({exc.name} is not installed)") from None
    if storm_on_run is not None and state is None:
        raise InputError("--storm-on-run needs --state FILE to count the runs")
    if priority is None:
        priority = lossless_priority(policy)
    inv, keys = preflight(inventory, known_hosts, insecure)  # (host keys checked as pull and tune check them)
    typer.echo(run(inv, inventory, device, port, incast=incast, priority=priority, sizes=sizes_arg(sizes),
                   noise_pct=noise, known_hosts=keys, slow_below_kmax=slow_below_kmax,
                   slow_from_kmax=slow_from_kmax, storm_on_run=storm_on_run, state=state,
                   headroom_bytes=headroom, trigger_bytes=trigger), nl=False)


def lossless_priority(policy: str) -> int:
    """The priority the workload runs on when --priority is not given: the policy's lossless priority (what lossless
    means is the policy's to say, never a vendor default); a policy with several needs --priority to pick one."""
    from ..policy import load_policy

    pol = load_policy(policy)
    priorities = pol.lossless.priorities
    if len(priorities) != 1:
        raise InputError(f"policy {pol.name} has lossless priorities {', '.join(map(str, priorities))}: give "
                         "--priority to say which one the benchmark runs on")
    return priorities[0]
