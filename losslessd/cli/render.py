"""`losslessd render`: print a platform's lossless profile for a policy and a set of ports."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import headroom
from .. import render as rnd
from ..errors import InputError
from ..fabric import load_device
from ..fix.apply import APPLY_PATCH, SONIC_RELEASES, is_patch, nxos_unsets, sonic_snippet
from ..limits import read_text, set_max_file_mb
from ..lint.engine import Context, skipped_by_policy
from ..model import Fabric
from ..parse import sonic
from ..parse.base import Input
from ..platforms import resolve_format
from ..policy import load_policy
from ..render import opensm
from .options import FAMILY_OPTION, MAX_FILE_MB_OPTION, MODEL_OPTION, POLICY_OPTION, platform_choice

# SAI saibuffer.h SAI_BUFFER_POOL_ATTR_SIZE is a sai_uint64_t (as the CONFIG_DB reader takes BUFFER_POOL sizes).
MAX_POOL_BYTES = 2**64 - 1
# `render --platform`: the platforms with a templates/<platform>/profile.j2 (one without: its record's reason).
RENDER_PLATFORM_OPTION = platform_choice("--platform", ids=rnd.platforms(), help="Target platform.",
                                         capability="render")

def render(
    *,
    policy: Annotated[str, POLICY_OPTION] = "roce-dscp26",
    platform: Annotated[str, RENDER_PLATFORM_OPTION],
    device: Annotated[Path | None, typer.Option("--device", help="A device's config file or folder (as lint reads "
                                                "it) to take ports (speed, cable, MTU) and pool from.")] = None,
    ports: Annotated[list[str] | None, typer.Option("--ports", help="NAME:SPEED:CABLE[:MTU[:LANES]], e.g. "
                                                    "Ethernet0:100G:5m:9100 (repeatable).")] = None,
    pool_size: Annotated[int | None, typer.Option("--pool-size", min=1, max=MAX_POOL_BYTES,
                                                  help="Ingress lossless pool in bytes (SONiC).")] = None,
    sm_priority: Annotated[int | None, typer.Option("--sm-priority", help="OpenSM sm_priority 0-15 (default 14, the "
                                                    "master; render a standby with a lower one).")] = None,
    sku: Annotated[str | None, typer.Option("--sku", help="SONiC hwsku (e.g. Arista-7060X6-64PE-O128S2, "
                                            "ACS-MSN4700): its headroom comes from its pg_profile_lookup.ini or, on "
                                            "Spectrum, buffer_headroom_mellanox.lua.")] = None,
    model: Annotated[str | None, MODEL_OPTION] = None,
    family: Annotated[str | None, FAMILY_OPTION] = None,
    max_file_mb: Annotated[float | None, MAX_FILE_MB_OPTION] = None,
) -> None:
    """Print a full lossless profile (maps, PFC, headroom, ECN, watchdog) for one platform.

    Exit 0: the profile printed. 2: a fact it needs is missing or refused (a speed, cable or SKU the switch's
    tables do not list, the pool size, the command family), or an input or usage error: nothing printed, never
    half a snippet. 3: internal error (a bug in losslessd)."""
    set_max_file_mb(max_file_mb)
    pol = load_policy(policy)
    known = resolve_format(platform)  # the same short names lint --format takes (eos, mlx5)
    platform = known.id if known is not None else platform
    if platform == "opensm":  # a subnet manager has no Ethernet ports: its parameters come from the policy alone
        if device is not None or ports:
            raise InputError("--device and --ports do not apply to opensm: its fragment comes from the policy's "
                             "infiniband section (and --sm-priority)")
        typer.echo(rnd.render(platform, opensm.profile(pol, sm_priority)), nl=False)
        return
    facts: list[rnd.PortFacts] = []
    pool, parsed = pool_size, None
    if device is not None:
        parsed = load_device(device)  # a file or a device folder, as lint reads it
        facts, device_pool = rnd.device_facts(parsed, pol)
        if not facts and not ports:
            selection = Context(Fabric(), pol).selection(parsed)
            skipped, said = skipped_by_policy([parsed.name], lambda _: selection, pol.name)
            if skipped:
                raise InputError(f"device {said}: nothing to render; render it with a policy without that key (or "
                                 "name the ports with --ports NAME:SPEED:CABLE[:MTU]) to write its lossless "
                                 "configuration", file=str(device))
        if not facts and not ports:  # (render's own "give --device or --ports" would send the operator in a circle)
            raise InputError(f"device {parsed.name} has no RoCE-facing port under policy {pol.name} to render a "
                             "profile for (`losslessd lint --explain-selection` says why); name the ports with "
                             "--ports NAME:SPEED:CABLE[:MTU]", file=str(device))
        pool = pool if pool is not None else device_pool
    facts += [rnd.parse_port_spec(spec) for spec in ports or []]
    if parsed is not None:
        prof = rnd.device_profile(pol, parsed, facts, platform, pool_bytes=pool, hwsku=sku, model=model, family=family)
    else:
        buffers = headroom.switch_buffers(hwsku=sku)  # (the lookup profile() makes without them)
        # the SKU's stock egress profiles, for lossless queues outside the stock 3-4 (Profile.stock_egress_entries)
        prof = rnd.profile(pol, facts, sku, pool_bytes=pool, model=model, family=family, buffers=buffers,
                           egress=rnd.sku_egress(buffers.sku) if platform == "sonic" else None)
    try:
        out = rnd.render(platform, prof)
    except rnd.ByHand as exc:  # (one port of the device's: say how its others render)
        if parsed is None:
            raise
        raise rnd.ByHand(exc.message + rnd.by_hand_rest(prof), exc.file, exc.line) from None
    if parsed is not None and platform == "sonic":  # where a key of the device's must be split: a JSON patch
        db = sonic.config_db([Input(path, read_text(path)) for path in parsed.files])
        try:
            out = sonic_snippet(db, out)
        except InputError as exc:  # (a multi-ASIC device's port or pool it cannot place: name the device it read)
            raise InputError(exc.message, file=str(device)) from None
        if is_patch(out):
            why = (f"{parsed.name} is a multi-ASIC switch: an RFC 6902 JSON Patch whose paths name each ASIC's "
                   "namespace (/asic0/...)" if None not in db else
                   f"keys of {parsed.name} are split (each removed and added back per port and index): an RFC 6902 "
                   "JSON Patch of its CONFIG_DB")
            typer.echo(f"losslessd render: {why}; apply with `{APPLY_PATCH}`, not `config load`", err=True)
    if parsed is not None and platform == "cisco_nxos":  # a queuing class's scheduling line of another kind goes first
        out = nxos_unsets("\n".join(read_text(path) for path in parsed.files), out)
    for note in rnd.operator_notes(platform, prof):
        typer.echo(f"losslessd render: {note}", err=True)
    if platform == "sonic" and parsed is None:  # (with --device, sonic_snippet writes the form its release takes)
        typer.echo(f"losslessd render: {SONIC_RELEASES}", err=True)
    typer.echo(out, nl=False)
