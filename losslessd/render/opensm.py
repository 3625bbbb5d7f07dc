"""OpenSM parameters from a policy's `infiniband` section, for templates/opensm/profile.j2.

InfiniBand has no PFC, ECN or headroom: what a policy asks of an SM is routing free of credit loops on
its topology, a master/standby priority, timers inside its ranges and SL-to-VL tables that fit the
operational VLs. The numbers are worked out here so that the template only lays them out.
"""

from __future__ import annotations

from ..errors import InputError
from ..parse.opensm.options import DEFAULTS
from ..policy import Policy
from ..records import record
from ..rules.ibs import CREDIT_LOOP_FREE_ON, DATA_VLS, TOPOLOGIES
from . import SECTIONS, Sectioned, _clamp

# man opensm -p: "priority 0-15"; the master gets 14 so that an operator can still pre-empt it with 15,
# and a standby is rendered with a lower --sm-priority.
MASTER_SM_PRIORITY = 14
MAX_SM_PRIORITY = 15
# Engines in the order they are preferred when credit-loop free on the topology (man opensm, ROUTING):
# the topology-specific engine first, a general one (updn) as its fallback. OpenSM spells them so.
ENGINE_NAMES = {"ftree": "ftree", "torus-2qos": "torus-2QoS", "dor": "dor", "updn": "updn"}
# IBA OperationalVLs code 3 = VL0-VL3: four data VLs, what every ConnectX HCA port offers (a larger
# max_op_vls is cut to each port's VLCap anyway), and the four torus-2QoS needs to route around a
# failed switch (torus-2QoS(8)).
MAX_OP_VLS = 3


@record(frozen=True)
class SmProfile(Sectioned):
    """Everything templates/opensm/profile.j2 lays out for one subnet manager (sections: routing, election,
    timers, sl2vl)."""

    policy: str
    routing_engines: list[str]  # OpenSM names in trial order
    sm_priority: int
    sweep_interval_s: int
    transaction_timeout_ms: int
    max_op_vls: int
    data_vls: int
    sl2vl: list[int]  # VL of SL 0..15
    vlarb_high: list[tuple[int, int]]
    vlarb_low: list[tuple[int, int]]
    sections: frozenset[str] = SECTIONS
    # End the engine list with no_fallback (always, in a render; tests render False to build a broken config).
    no_fallback: bool = True


def engines_for(topology: str) -> list[str]:
    """Credit-loop free engines for ``topology``, preferred first; updn alone when the topology is unknown."""
    if topology not in TOPOLOGIES:
        return ["updn"]  # credit-loop free on every topology (man opensm: Up/Down routing)
    return [ENGINE_NAMES[e] for e in ENGINE_NAMES if topology in CREDIT_LOOP_FREE_ON[e]][:2]


def profile(pol: Policy, sm_priority: int | None = None) -> SmProfile:
    """The SM's parameters under ``pol``; ``sm_priority`` None renders the master."""
    priority = MASTER_SM_PRIORITY if sm_priority is None else sm_priority
    if not 0 <= priority <= MAX_SM_PRIORITY:
        raise InputError(f"--sm-priority {priority}: OpenSM takes 0-15 (a larger value is read as 0)")
    ib = pol.infiniband
    vls = DATA_VLS[MAX_OP_VLS]
    # OpenSM's built-in VL arbitration tables (osm_base.h OSM_DEFAULT_QOS_VLARB_HIGH/LOW: VL0 weight 4 in
    # the high table, VL1-VL14 weight 4 in the low one), cut to the operational VLs.
    return SmProfile(
        policy=pol.name, routing_engines=engines_for(ib.topology), sm_priority=priority,
        sweep_interval_s=_clamp(DEFAULTS["sweep_interval"], ib.sweep_interval_s, 1),
        transaction_timeout_ms=_clamp(DEFAULTS["transaction_timeout"], ib.transaction_timeout_ms, 1),
        max_op_vls=MAX_OP_VLS, data_vls=vls, sl2vl=[sl % vls for sl in range(16)],
        vlarb_high=[(vl, 4 if vl == 0 else 0) for vl in range(vls)],
        vlarb_low=[(vl, 0 if vl == 0 else 4) for vl in range(vls)])
