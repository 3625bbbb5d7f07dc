"""The one path engine: which cables carry traffic, how each switch forwards it, and how a DSCP fares hop by hop.

    cabling.py   the cables traffic crosses (one set of skip rules for every analysis)
    routing.py   routing models: updown, shortest-path, routing-table captures (ECMP); their turns
                 (for the deadlock analysis) and their next hops towards one receiver (for the path rules)
    walk.py      following one DSCP from a sender to a receiver over every ECMP path, through each
                 port's maps and egress rewrites, memoised per state; the rule says what each hop must do

The path rules (rules/pth.py: PTH001-003) and the deadlock analysis (losslessd/deadlock: DLK001-005)
both read a fabric through `fabric_paths`, so they see the same cables and the same routes.
docs/topology.md and docs/deadlock.md describe what is followed and what is left out.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..gcpause import gc_paused
from ..model import Device, Fabric
from ..records import record
from .cabling import Cabling, End
from .routing import BadHop, DestRouting, ShortestPaths, Toward, UpDown, route_tables

__all__ = ["BadHop", "Cabling", "DestRouting", "End", "Paths", "ShortestPaths", "Toward", "UpDown", "fabric_paths"]


@record
class Paths:
    """A fabric's cabling under its routing model."""

    routing: str  # updown, shortest-path or routes
    cabling: Cabling
    turns: UpDown | DestRouting
    gaps: dict[str, str]  # switch -> why its forwarding is not known (left out of both analyses)
    bad_hops: list[BadHop]  # captured next hops that cannot be followed to a cable (DLK005)
    shortest: ShortestPaths | None  # shortest-path routing: the distance tables the turns came from

    def toward(self, target: End) -> Toward:
        """The ECMP next hops towards one receiver NIC port (a Cabling endpoint)."""
        return self.turns.toward(target)


def fabric_paths(fabric: Fabric, devices: Mapping[str, Device] | None = None) -> Paths | None:
    """None when the fabric has no cables or no routing model (no topology): no paths to follow. ``devices``: as
    the path engine reads them (Cabling)."""
    if not fabric.links or fabric.routing is None:
        return None
    with gc_paused():
        cabling = Cabling(fabric, devices)
        bad: list[BadHop] = []
        shortest = None
        if fabric.routing == "updown":
            turns: UpDown | DestRouting = UpDown(cabling)
        elif fabric.routing == "shortest-path":
            shortest = ShortestPaths(cabling)
            turns = shortest.routing()
        else:
            turns, bad = route_tables(cabling)
        return Paths(fabric.routing, cabling, turns, turns.gaps, bad, shortest)
