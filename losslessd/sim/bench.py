"""The simulator's benchmark: reads a simulated switch's running config over SSH (as any client would), runs the
stand-in fabric (losslessd.tune.standin: the DCQCN + PFC fluid model) with the ECN thresholds, PFC trigger and
headroom of one of its ports, prints nccl-tests output, and credits the switch's counters with what the
workload did (pause frames the port sent, ECN marks, drops) through the simulator's control command. So
`losslessd tune --apply` against the simulator closes the loop: what it pushes changes what this measures.

    losslessd sim-bench --inventory INV --known-hosts FILE --device leaf1 --port Ethernet0 [--incast 8]
        [--sizes 8M,64M,512M]

Planted faults for tests (docs/tune.md): ``--slow-below-kmax BYTES`` makes every run with the port's Kmax below
BYTES 30 % slower (a regression the tuner must roll back), ``--slow-from-kmax BYTES`` those at or above it (the
settings as found lose to the first smaller Kmax); ``--storm-on-run N --state FILE`` starts a PFC storm
on the port during the N-th run; ``--headroom-bytes`` and ``--pfc-trigger-bytes`` override the PG's headroom and
PFC trigger (a trigger the incast reaches with too little headroom drops packets).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from ..collect.ssh import Guard, connect_args, host_key_refusal
from ..errors import InputError
from ..headroom import pfc_trigger
from ..inventory import Inventory
from ..model import DeviceKind
from ..monitor import carrying_queues, queue_maps_of
from ..parse import parser_for
from ..parse.base import Input
from ..tune import standin
from ..tune.bench import parse_size
from . import WORKLOAD_COMMAND

SLOWDOWN = 1.3  # what --slow-below-kmax / --slow-from-kmax do to every size's time


@dataclass(frozen=True)
class PortSettings:
    speed_gbps: float
    kmin_bytes: int
    kmax_bytes: int
    pmax_pct: float
    trigger_bytes: float | None  # per ingress PG, at this incast
    headroom_bytes: float | None
    cable_m: float | None
    mtu: int | None


def port_settings(platform: str, name: str, config: str, port: str, priority: int, incast: int) -> PortSettings:
    """What the model needs of ``port``, read from the device's running config with losslessd's parser."""
    device = parser_for(platform).parse([Input(f"{name} (running config)", config)], name)
    p = device.ports.get(port)
    if p is None:
        raise InputError(f"{name}: no port {port} (ports: {', '.join(device.ports)})")
    # The queue the port's own maps put the priority's traffic on (TC_TO_QUEUE_MAP 3 -> 4: queue 4 marks it), as the
    # daemon's ECN detector reads it (monitor.carrying_queues), never the queue numbered like the priority.
    queues = carrying_queues(queue_maps_of(device).carries, port, priority)
    if not queues:
        raise InputError(f"{name} {port}: which egress queue carries priority {priority} is unknown (its config "
                         "maps no traffic class of that priority to a queue)")
    if len(queues) > 1:
        raise InputError(f"{name} {port}: priority {priority} goes to several egress queues ({queues}); the model "
                         "runs one")
    [index] = queues
    queue = p.queues.get(index)
    ecn = queue.ecn if queue is not None else None
    if p.speed_gbps is None:
        raise InputError(f"{name} {port}: speed unknown")
    if ecn is None or None in (ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.mark_probability_pct):
        raise InputError(f"{name} {port}: ECN thresholds of queue {index} (priority {priority}'s) unknown or not in "
                         "bytes" + (f" ({ecn.unconverted})" if ecn is not None and ecn.unconverted else ""))
    trigger = headroom = None
    # The ingress PG the port's TC -> PG map puts the priority's traffic classes in (TC_TO_PRIORITY_GROUP_MAP), never
    # the PG numbered like the priority; none where the maps do not say (the model then runs without a PFC trigger).
    pgs = [(p.tc_to_pg or {}).get(tc) for tc, prio in (p.tc_to_priority or {}).items() if prio == priority]
    pg_index = pgs[0] if len(set(pgs)) == 1 else None
    pg = p.priority_groups.get(pg_index) if pg_index is not None else None
    profile = device.buffer_profiles.get(pg.profile) if pg is not None and pg.profile else None
    if profile is not None:
        found = pfc_trigger(profile, device.buffer_pools.get(profile.pool or ""), incast)
        trigger = found.at_bytes if found is not None else None
        headroom = profile.xoff_bytes
    return PortSettings(p.speed_gbps, ecn.min_threshold_bytes, ecn.max_threshold_bytes, float(ecn.mark_probability_pct),
                        trigger, headroom, p.cable_length_m, p.mtu_bytes)


def run(inv: Inventory, inventory: Path, device: str, port: str, *, incast: int = 8, priority: int = 3,
        sizes: list[int] | None = None, noise_pct: float = 0.0, known_hosts: Path | None,
        slow_below_kmax: int | None = None, slow_from_kmax: int | None = None,
        storm_on_run: int | None = None, state: Path | None = None,
        headroom_bytes: float | None = None, trigger_bytes: float | None = None, timeout_s: float = 30.0) -> str:
    """``inv``: the inventory read from ``inventory``; ``known_hosts``: the host keys checked (None: not checked,
    --insecure-no-host-key-check)."""
    from netmiko import ConnectHandler

    if device not in inv.hosts:
        raise InputError(f"no device {device} in {inventory}")
    host = inv.hosts[device]
    if host.platform.kind is not DeviceKind.switch:  # (its config is no switch's: "neither a losslessd capture ...")
        raise InputError(f"{device} is a {host.platform.kind.value} ({host.platform.id}): --device names the switch "
                         "whose port is the bottleneck")
    count = _count_run(state) if state is not None else 1
    try:
        conn = ConnectHandler(**connect_args(host, known_hosts, timeout_s))
    except Exception as exc:  # noqa: BLE001 - host key, login or network: a benchmark that cannot run
        why = host_key_refusal(exc, host, known_hosts) or f"{type(exc).__name__}: {exc}"
        raise InputError(f"{device}: cannot log in: {Guard(host, timeout_s).mask(why)[0]}") from None
    try:
        if host.platform.enable:
            conn.enable()
        config = conn.send_command(host.platform.commands[0].line, read_timeout=timeout_s)
        s = port_settings(host.platform.id, device, config, port, priority, incast)
        b = standin.scenario(s.speed_gbps, incast, s.kmin_bytes, s.kmax_bytes, s.pmax_pct,
                             headroom_bytes=headroom_bytes if headroom_bytes is not None else s.headroom_bytes,
                             cable_m=s.cable_m or standin.DEFAULT_CABLE_M, mtu=s.mtu or standin.DEFAULT_MTU_BYTES,
                             trigger_bytes=trigger_bytes if trigger_bytes is not None else s.trigger_bytes)
        # Each run draws its own noise; runs counted in a state file repeat theirs.
        seed = f"{device}/{port}/{count}" if state is not None else os.urandom(8).hex()
        result = standin.run(b, sizes or list(standin.DEFAULT_SIZES), noise_pct=noise_pct, seed=seed)
        if (slow_below_kmax is not None and s.kmax_bytes < slow_below_kmax
                or slow_from_kmax is not None and s.kmax_bytes >= slow_from_kmax):
            slowed = [replace(o, time_s=o.time_s * SLOWDOWN, algbw_gbps=o.algbw_gbps / SLOWDOWN,
                              busbw_gbps=o.busbw_gbps / SLOWDOWN) for o in result.outcomes]
            result = replace(result, text=standin.nccl_text(slowed, incast + 1, standin.ITERATIONS))
        c = result.counters
        credits = {"pfc_tx": c.pause_frames or 0, "ecn": c.ecn_marked or 0, "drop": c.dropped or 0}
        _control(conn, f"credit {port} {priority} " + " ".join(f"{k}={v:.0f}" for k, v in credits.items()))
        if storm_on_run is not None and count == storm_on_run:
            _control(conn, f"storm {port} {priority} on")
    finally:
        conn.disconnect()
    return result.text


def _control(conn, args: str) -> None:
    out = conn.send_command(f"{WORKLOAD_COMMAND} {args}")
    if out.strip().startswith("error") or "Invalid" in out or "not found" in out:
        raise InputError(f"the simulator refused `{WORKLOAD_COMMAND} {args}`: {out.strip()[:200]} "
                         "(sim-bench runs only against losslessd's simulator)")


def _count_run(state: Path) -> int:
    """This run's number, counted in ``state`` (a JSON file the test owns)."""
    runs = json.loads(state.read_text(encoding="utf-8"))["runs"] + 1 if state.is_file() else 1
    state.write_text(json.dumps({"runs": runs}), encoding="utf-8")
    return runs


def sizes_arg(text: str) -> list[int]:
    try:
        return [parse_size(s) for s in text.split(",") if s.strip()]
    except ValueError as exc:
        raise InputError(f"--sizes: {exc}") from None
