"""IBS: InfiniBand subnet manager (OpenSM) lint: credit-loop free routing, SM failover, timers, QoS VLs.

InfiniBand links are lossless by credit-based flow control, so a cycle of buffer dependencies
(a credit loop) deadlocks the fabric just as PFC does on Ethernet: freedom from it is the routing
engine's job. These rules read subnet_manager devices only (Device.opensm); the Ethernet rule
families skip them, and these skip every other device.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ..lint.engine import Context
from ..lint.finding import Finding, Severity, few
from ..lint.registry import Rule, register
from ..model import DEFAULT_MGRP_MTU_CODE, DEFAULT_MGRP_RATE_CODE, Device, DeviceKind, IbPartition, OpenSm, Source
from .common import numbers

TOPOLOGIES = frozenset({"fat-tree", "torus", "dragonfly", "mesh", "tree"})
# Topologies on which each upstream OpenSM engine's routes are free of credit loops (man opensm,
# ROUTING; doc/current-routing.txt): updn/dnup restrict paths by ranking, lash and dfsssp move
# cycle-closing paths to other virtual layers (SL/VL), nue avoids cycles within a VL budget (SPCL's
# Nue page: "deadlock-freedom without exceeding a given number of virtual lanes"); ftree routes fat-trees only; dor
# is deadlock free on meshes and hypercubes but not on tori (wrap-around links close loops);
# torus-2QoS routes 2D/3D tori and meshes (torus-2QoS.conf(5)); minhop and sssp take shortest
# paths with no turn restriction, which only a loop-free topology (a tree) cannot turn into a cycle.
CREDIT_LOOP_FREE_ON = {
    "updn": TOPOLOGIES, "dnup": TOPOLOGIES, "lash": TOPOLOGIES, "dfsssp": TOPOLOGIES, "nue": TOPOLOGIES,
    "ftree": frozenset({"fat-tree"}), "dor": frozenset({"mesh"}), "torus-2qos": frozenset({"torus", "mesh"}),
    "minhop": frozenset({"tree"}), "sssp": frozenset({"tree"}),
}
WHY_NOT = {
    "minhop": "min-hop routing takes shortest paths with no turn restriction, so the loops of the fabric can close "
              "a cycle of buffer dependencies (a credit loop)",
    "sssp": "SSSP takes shortest paths without DFSSSP's VL layering, so the loops of the fabric can close a "
            "credit loop",
    "ftree": "ftree routes only fat-trees: elsewhere it fails and OpenSM moves on to the next engine (last minhop)",
    "dor": "DOR is credit-loop free on meshes and hypercubes, but a torus's wrap-around links close routing loops",
    "torus-2qos": "torus-2QoS routes only 2D/3D tori and meshes: elsewhere it fails and OpenSM moves on to the next "
                  "engine (last minhop)",
}
SUGGEST = {"fat-tree": "ftree (or updn)", "torus": "torus-2QoS (or lash, dfsssp)", "mesh": "dor (or torus-2QoS, lash)",
           "dragonfly": "dfsssp, nue or lash (or updn)", "tree": "any engine"}
# Why a listed engine may fail, so that OpenSM tries the next one (man opensm, ROUTING).
WHY_FAIL = {"ftree": "the fabric is not a pure fat-tree, e.g. after a link failure",
            "updn": "root auto-detection finds no roots", "dnup": "root auto-detection finds no roots",
            "dfsssp": "it needs more VLs than are operational", "lash": "LMC > 0 or too few SLs",
            "torus-2qos": "the torus cannot be built from the seed configuration"}
DECLARE = "declare infiniband.topology in the policy (e.g. --policy infiniband) to check it"
# Engines that keep routes credit-loop free by putting them on virtual layers (SLs): only when QoS is on (man opensm,
# LASH: "QoS support has to be turned on in order that SL/VL mappings are used"; DFSSSP: run "-R dfsssp -Q") and
# "applications must perform a path record query to get path SL for each route" (DFSSSP usage notes a.2).
SL_LAYERED = frozenset({"lash", "dfsssp"})
# NCCL sets the SL of its InfiniBand QPs from NCCL_IB_SL (default 0) and asks no path record for it (NCCL
# environment variables documentation, NCCL_IB_SL).
NCCL_DEFAULT_SL = "0"
PATH_SL = ("deadlock-free only while every application takes each route's SL from a path-record query (man opensm, "
           "DFSSSP notes a.2: \"applications must perform a path record query to get path SL\"); a fixed SL defeats the "
           "layering")
# IBA PortInfo OperationalVLs (ib_types.h IB_VL_TYPE): code -> data VLs (1: VL0 ... 5: VL0-VL14).
DATA_VLS = {1: 1, 2: 2, 3: 4, 4: 8, 5: 15}
PORT_TYPES = {"ca": "CA ports", "sw0": "switch port 0", "swe": "switch external ports", "rtr": "router ports",
              "sw2sw": "switch-to-switch ports"}  # the last: NVIDIA OpenSM's qos_sw2sw_ set, where the file has it


def data_vls(sm: OpenSm) -> int | None:
    return DATA_VLS.get(sm.max_op_vls) if sm.max_op_vls is not None else None


def vl_mask(sm: OpenSm) -> int:
    """osm_qos.c sl2vl_update_table / vlarb_update_table_block: VL &= (1 << (op_vls - 1)) - 1."""
    return (1 << (sm.max_op_vls - 1)) - 1


def engines(sm: OpenSm) -> list[str]:
    """Engines in trial order, lower-case; OpenSM's default is minhop (man opensm -R)."""
    return [e.lower() for e in sm.routing_engines] or ["minhop"]


def may_loop(engine: str, topo: str, sm: OpenSm | None = None) -> bool:
    """Can this engine's routes close a credit loop on this topology? Engines losslessd does not know are not
    accused; with the topology unknown only minhop and sssp are (they loop on anything but a tree); LASH and
    DFSSSP without QoS lose their layers."""
    if engine in SL_LAYERED and sm is not None and not sm.qos_enabled:
        return True
    if topo not in TOPOLOGIES:
        return engine in ("minhop", "sssp")
    return topo not in CREDIT_LOOP_FREE_ON.get(engine, TOPOLOGIES)


def nccl_fixed_sls(ctx) -> dict[str, str]:
    """Hosts whose NCCL settings are in the input -> the SL NCCL gives its QPs there (NCCL_IB_SL, default 0)."""
    return {d.name: d.nccl_env.get("NCCL_IB_SL", NCCL_DEFAULT_SL) for d in ctx.fabric.devices.values()
            if d.kind == DeviceKind.host and d.nccl_env is not None}


def where(device: Device, sm: OpenSm, key: str) -> Source | None:
    return sm.sources.get(key) or device.source


def setting(sm: OpenSm, key: str, value) -> str:
    """`sm_priority 0`, or `sm_priority 0 (OpenSM's default)` when the file does not set it."""
    return f"{key} {value}" + ("" if key in sm.sources else " (OpenSM's default)")


def chain(sm: OpenSm) -> str:
    if not sm.routing_engines:
        return "no routing_engine (OpenSM's default minhop)"
    return "routing_engine " + ",".join(sm.routing_engines + (["no_fallback"] if sm.no_fallback else []))


class _SmRule(Rule):
    scope = "device"
    needs_fabric = True  # the hosts' NCCL settings (nccl_fixed_sls) and subnet managers beside this one
    kinds = frozenset({DeviceKind.subnet_manager})

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        if device.opensm is None:
            return
        yield from self.check_sm(ctx, device, device.opensm)

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:  # pragma: no cover - interface
        raise NotImplementedError


@register
class RoutingNotCreditLoopFree(_SmRule):
    """The OpenSM routing engine is not free of credit loops on the fabric's topology.

    ## What it checks
    The first engine of `routing_engine` (OpenSM's default `minhop` when none is set) is one that
    routes the policy's `infiniband.topology` without credit loops: `updn`, `dnup`, `lash`,
    `dfsssp` and `nue` on any topology, `ftree` on fat-trees, `dor` on meshes, `torus-2QoS` on
    tori and meshes, `minhop` and `sssp` on trees only (man opensm, ROUTING). `minhop`/`sssp` on a
    fat-tree is a warning, not an error: on a pure fat-tree every shortest path goes up then down, so
    they are loop free until a failure leaves it impure (the man page has UPDN "chosen if the subnet is
    not a pure Fat Tree"). `lash` and `dfsssp` are credit-loop free only with QoS on (`qos TRUE`: their
    layers are SLs mapped to VLs) and only for applications that take each route's SL from a path-record
    query (DFSSSP notes a.2): without QoS it is an error; hosts whose NCCL settings are in the input use a
    fixed SL (NCCL_IB_SL, default 0) and are named in a warning; otherwise the condition is stated as
    unverified. With the topology `unknown`, topology-bound engines are reported as unverified and
    minhop/sssp as a warning. Engines losslessd does not know (vendor engines such as `ar_ftree`) are
    reported as unverified.

    ## Why it matters
    InfiniBand is lossless: a packet waits for buffer credits at the next hop. When routes make
    those waits cyclic, a burst can fill every buffer on the cycle and the traffic stops for good
    (a credit-loop deadlock), exactly as with PFC on Ethernet.

    ## Failing example
    Policy topology `torus`, opensm.conf `routing_engine minhop`:
    `routing_engine minhop: minhop is not credit-loop free on a torus ...; use torus-2QoS (or lash, dfsssp)`.

    ## Passing example
    Topology `fat-tree`, `routing_engine ftree`; topology `torus`, `routing_engine torus-2QoS`.

    ## Fix
    Set `routing_engine` to an engine suited to the topology (the message suggests one), or
    correct `infiniband.topology` in the policy; with LASH/DFSSSP, turn QoS on and let applications take
    the SL from path records (leave NCCL_IB_SL unset only if the SL 0 layer is deadlock free, else prefer
    an engine that needs no SL: updn, ftree).
    """

    code = "IBS001"
    name = "ib-routing-not-credit-loop-free"
    severity = Severity.error
    fix_sections = frozenset({"routing"})
    disruptive = True

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        topo = ctx.policy.infiniband.topology
        first = engines(sm)[0]
        src = where(device, sm, "routing_engine")
        safe_on = CREDIT_LOOP_FREE_ON.get(first)
        if safe_on is None:
            yield self.unverified(f"{chain(sm)}: losslessd does not know whether {first} is credit-loop free; check it "
                                  "with `ibdiagnet -r`", device=device, source=src, key="routing")
        elif topo not in TOPOLOGIES:
            if first in ("minhop", "sssp"):
                yield self.finding(f"{chain(sm)}: {first} is credit-loop free only on a tree ({WHY_NOT[first]}); "
                                   f"{DECLARE}", device=device, source=src, key="routing", severity=Severity.warning,
                                   engine=first)
            elif safe_on != TOPOLOGIES:
                yield self.unverified(f"{chain(sm)}: {first} is credit-loop free only on "
                                      f"{' or '.join(f'a {t}' for t in sorted(safe_on))}; {DECLARE}",
                                      device=device, source=src, key="routing")
        elif topo not in safe_on:
            fat_tree_minhop = topo == "fat-tree" and first in ("minhop", "sssp")
            why = ("on a pure fat-tree every shortest path goes up then down, so it stays loop free only until a "
                   "link or switch failure leaves the tree impure (man opensm: UPDN \"should be chosen if the subnet "
                   "is not a pure Fat Tree\")" if fat_tree_minhop else WHY_NOT[first])
            yield self.finding(f"{chain(sm)}: {first} is not credit-loop free on a {topo} ({why}); use "
                               f"{SUGGEST[topo]}", device=device, source=src, key="routing", engine=first,
                               topology=topo, severity=Severity.warning if fat_tree_minhop else None)
        if first in SL_LAYERED:
            yield from self._layers(ctx, device, sm, first)

    def _layers(self, ctx, device, sm, engine):
        src = where(device, sm, "qos") if "qos" in sm.sources else where(device, sm, "routing_engine")
        if not sm.qos_enabled:
            yield self.finding(f"{chain(sm)} with QoS off: {engine} keeps routes credit-loop free on virtual layers "
                               "(SLs mapped to VLs), which OpenSM only programs with `qos TRUE` (man opensm: \"QoS "
                               "support has to be turned on in order that SL/VL mappings are used\"); set qos TRUE",
                               device=device, source=src, key="sl", engine=engine)
            return
        fixed = nccl_fixed_sls(ctx)
        if fixed:
            hosts = few([f"{h} (SL {sl})" for h, sl in sorted(fixed.items())], shown=5)
            yield self.finding(f"{chain(sm)}: {engine} is {PATH_SL}, and NCCL on {hosts} sends on a fixed SL "
                               "(NCCL_IB_SL, default 0) without asking a path record: its traffic can close the credit "
                               "loops the layers avoid; route with an engine that needs no SL (updn, ftree) or give "
                               "NCCL the path's SL", device=device, source=where(device, sm, "routing_engine"),
                               key="sl", severity=Severity.warning, engine=engine, hosts=sorted(fixed))
        else:
            yield self.unverified(f"{chain(sm)}: {engine} is {PATH_SL} (NCCL uses NCCL_IB_SL, default 0); no host's "
                                  "NCCL settings are in the input to check", device=device,
                                  source=where(device, sm, "routing_engine"), key="sl")


@register
class RoutingUnsafeFallback(_SmRule):
    """OpenSM can fall back to routing that is not credit-loop free, or an option weakens a safe engine.

    ## What it checks
    - Fallback: when an engine fails, OpenSM tries the next one listed and finally `minhop`
      unless `no_fallback` is listed (man opensm -R). Every engine it may fall back to must be
      credit-loop free on the policy topology (a tree needs nothing).
    - `connect_roots TRUE` with updn, dnup or ftree: connecting root switches "can violate pure
      deadlock free algorithm" (man opensm -z).
    - `max_reverse_hops` above 0 with ftree: I/O nodes use switches the wrong way round, which
      "can in theory cause credit loops" (man opensm, Fat-tree Routing).
    One finding per problem.

    ## Why it matters
    The fallback is silent: a link failure that leaves a fat-tree no longer pure makes ftree fail,
    and the fabric then runs on min-hop routes that can deadlock, with no configuration change.

    ## Failing example
    `routing_engine ftree` on a fat-tree: `if ftree fails (the fabric is not a pure fat-tree, e.g.
    after a link failure), OpenSM routes with minhop, which is not credit-loop free on a fat-tree`.

    ## Passing example
    `routing_engine ftree,updn,no_fallback`, `connect_roots FALSE`, `max_reverse_hops 0`.

    ## Fix
    List only engines safe for the topology and end the list with `no_fallback`, so that a routing
    failure shows in the OpenSM log instead of silently installing deadlock-prone routes; keep
    `connect_roots FALSE` and `max_reverse_hops 0` unless their risk is understood.
    """

    code = "IBS002"
    name = "ib-routing-unsafe-fallback"
    severity = Severity.warning
    # A render lists only safe engines and ends them with no_fallback; connect_roots and max_reverse_hops
    # findings carry section=None: they are there for a reason the config does not show, so a human decides.
    fix_sections = frozenset({"routing"})
    disruptive = True

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        topo = ctx.policy.infiniband.topology
        listed = engines(sm)
        src = where(device, sm, "routing_engine")
        if topo != "tree" and listed[0] not in ("minhop", "sssp"):  # a minhop/sssp first engine is IBS001's
            later = listed[1:] + ([] if sm.no_fallback or "minhop" in listed else ["minhop"])
            unsafe = [e for e in later if may_loop(e, topo, sm)]
            if unsafe:
                why = WHY_FAIL.get(listed[0], "it cannot route the fabric")
                if listed[0] in ("updn", "dnup") and sm.root_guid_file:  # roots given: no auto-detection
                    why = "it cannot route the fabric"
                layered = [e for e in unsafe if e in SL_LAYERED]
                what = ("not credit-loop free with QoS off" if layered == unsafe else
                        f"not credit-loop free on {f'a {topo}' if topo in TOPOLOGIES else 'anything but a tree'}")
                yield self.finding(f"{chain(sm)}: if {listed[0]} fails ({why}), OpenSM routes with "
                                   f"{' or '.join(unsafe)}, which is {what}; list only "
                                   "engines safe for the topology and end the list with no_fallback",
                                   device=device, source=src, key="fallback", fallback=unsafe)
        if sm.connect_roots and {"updn", "dnup", "ftree"} & set(listed):
            yield self.finding("connect_roots TRUE makes updn/ftree route between root switches, which in many cases "
                               "breaks their deadlock freedom (man opensm -z); set connect_roots FALSE",
                               device=device, source=where(device, sm, "connect_roots"), key="connect_roots",
                               section=None)
        if sm.max_reverse_hops and "ftree" in listed:
            yield self.finding(f"max_reverse_hops {sm.max_reverse_hops} lets ftree route I/O nodes the wrong way "
                               "through switches, which can cause credit loops (man opensm, Fat-tree Routing); use it "
                               "only for low-bandwidth HA paths, or set it to 0", device=device,
                               source=where(device, sm, "max_reverse_hops"), key="max_reverse_hops", section=None)


@register
class SmPriority(Rule):
    """Subnet managers lack a standby with a lower sm_priority, or cannot elect a master cleanly.

    ## What it checks
    Across every OpenSM config linted together, per subnet prefix: with
    `infiniband.require_standby_sm`, there are at least two active SMs (not `sm_inactive`); the
    highest `sm_priority` (0-15; OpenSM replaces a larger value by 0) belongs to one SM only, so
    the others are standbys with a lower priority; no SM sets `ignore_other_sm TRUE` when others
    exist. The finding lists every SM involved.

    ## Why it matters
    The SM with the highest priority becomes master; a tie is broken by port GUID (man opensm -p:
    "master is chosen by priority and GUID"), so with equal priorities which node is master depends
    on GUIDs and on restart order, not on intent. Without a standby, the fabric loses its SM (no
    routing after failures, no new nodes) when the master node dies. An SM that ignores other SMs
    runs as a second master and fights the first over the subnet's configuration.

    ## Failing example
    Two SMs both with `sm_priority 14`: `SMs sm1 and sm2 both have sm_priority 14, the highest ...`.

    ## Passing example
    Master `sm_priority 14`, standby `sm_priority 10`, both `ignore_other_sm FALSE`.

    ## Fix
    Give the intended master the highest priority (up to 15) and each standby a lower one; keep
    `ignore_other_sm FALSE`; run a standby OpenSM on a second node.
    """

    code = "IBS003"
    name = "ib-sm-priority"
    scope = "fabric"
    severity = Severity.warning
    kinds = frozenset({DeviceKind.subnet_manager})  # (a fabric rule: the devices it reads, for Coverage)

    def check(self, ctx: Context) -> Iterator[Finding]:
        subnets: dict[int | None, list[tuple[Device, OpenSm]]] = defaultdict(list)
        for device in ctx.of_kinds(self.kinds):  # (the subnet managers, picked once a run for the IBS rules)
            if device.opensm is not None:
                subnets[device.opensm.subnet_prefix].append((device, device.opensm))
        for prefix, sms in subnets.items():
            yield from self._subnet(ctx, prefix, sorted(sms, key=lambda s: s[0].name), len(subnets) > 1)

    def _subnet(self, ctx: Context, prefix: int | None, sms: list[tuple[Device, OpenSm]],
                several: bool) -> Iterator[Finding]:
        names = [d.name for d, _ in sms]
        subnet = f" (subnet prefix {prefix:#018x})" if several and prefix is not None else ""
        for d, sm in sms:
            p = sm.sm_priority
            if p is not None and p > 15:
                yield self.finding(f"sm_priority {p} is outside 0-15: OpenSM uses 0 instead, so this SM cannot win the "
                                   "master election", device=d, source=where(d, sm, "sm_priority"),
                                   key="range", devices=names)
            if len(sms) > 1 and sm.ignore_other_sm:
                yield self.finding(f"ignore_other_sm TRUE with {len(sms) - 1} other SM(s){subnet}: this SM ignores "
                                   "them and runs as a second master; set ignore_other_sm FALSE", device=d,
                                   source=where(d, sm, "ignore_other_sm"), key="ignore_other_sm",
                                   severity=Severity.error, devices=names)
        active = [(d, sm) for d, sm in sms if not sm.sm_inactive]
        if len(active) < 2 and ctx.policy.infiniband.require_standby_sm:
            only, only_sm = active[0] if active else sms[0]
            state = (f"{only.name} is the only subnet manager" if len(sms) == 1 else
                     f"{only.name} is the only active subnet manager" if active else "every SM is sm_inactive")
            yield self.finding(f"no standby SM{subnet}: {state} among the linted configs; run a standby "
                               "OpenSM with a lower sm_priority on another node (and lint its opensm.conf together "
                               "with this one)", device=only, source=where(only, only_sm, "sm_priority"),
                               key="standby", devices=names)
        known = [(d, sm, prio) for d, sm in active if (prio := _effective_priority(sm)) is not None]
        if len(known) >= 2:
            top = max(prio for _, _, prio in known)
            masters = [(d, sm) for d, sm, prio in known if prio == top]
            if len(masters) > 1:
                tied = [d.name for d, _ in masters]
                each = "both" if len(tied) == 2 else "all"
                first, first_sm = masters[0]
                yield self.finding(f"SMs {', '.join(tied[:-1])} and {tied[-1]} {each} have sm_priority {top}, the "
                                   f"highest{subnet}: the master is then chosen by port GUID, not by intent; give the "
                                   "intended master a higher sm_priority than every standby", device=first,
                                   source=where(first, first_sm, "sm_priority"), key="tie", devices=names,
                                   sm_priority=top)


def _effective_priority(sm: OpenSm) -> int | None:
    """osm_subnet.c osm_subn_verify_config: an sm_priority above 15 is replaced by the default 0."""
    if sm.sm_priority is None:
        return None
    return sm.sm_priority if sm.sm_priority <= 15 else 0


@register
class SmTimers(_SmRule):
    """OpenSM sweep interval or transaction timeout outside the policy's range.

    ## What it checks
    `sweep_interval` (seconds) within `infiniband.sweep_interval_s` and `transaction_timeout`
    (milliseconds) within `infiniband.transaction_timeout_ms`; `sweep_interval 0` (periodic
    sweeps off) is named as such. Absent options count with OpenSM's defaults, 10 s and 200 ms
    (man opensm -s, -t). One finding per SM listing every problem.

    ## Why it matters
    Sweeps find ports and links that changed without a trap reaching the SM; with sweeping off a
    lost trap leaves a failed link routed until the next event. Too short a transaction timeout
    makes MADs to slow or busy switches time out and sweeps fail on a large subnet; too long a
    timeout slows every sweep that meets a dead port.

    ## Failing example
    `sweep_interval 0`: `sweep_interval 0 disables periodic sweeps (outside [5, 60] s) ...`.

    ## Passing example
    `sweep_interval 10`, `transaction_timeout 200` (OpenSM's defaults).

    ## Fix
    Set the values inside the policy's ranges in opensm.conf (or OpenSM's `-s`/`-t` options), or
    widen the ranges in the policy for a fabric that needs it.
    """

    code = "IBS004"
    name = "ib-sm-timers"
    severity = Severity.warning
    fix_sections = frozenset({"timers"})

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        pol = ctx.policy.infiniband
        problems = []
        for key, value, rng, unit in (
                ("sweep_interval", sm.sweep_interval_s, pol.sweep_interval_s, "s"),
                ("transaction_timeout", sm.transaction_timeout_ms, pol.transaction_timeout_ms, "ms")):
            if value is not None and not rng.contains(value):
                text = f"{setting(sm, key, value)} is outside {rng.describe(unit)}"
                if key == "sweep_interval" and value == 0:  # man opensm -s: "-s 0 disables sweeping"
                    text = f"{setting(sm, key, value)} disables periodic sweeps (outside {rng.describe(unit)})"
                problems.append((key, text))
        if problems:
            yield self.finding(f"{'; '.join(p for _, p in problems)}; set it inside the policy's range",
                               device=device, source=where(device, sm, problems[0][0]), key="timers",
                               sweep_interval_s=sm.sweep_interval_s, transaction_timeout_ms=sm.transaction_timeout_ms)


@register
class QosSl2Vl(_SmRule):
    """OpenSM's SL-to-VL and VL arbitration tables do not fit the operational VLs.

    ## What it checks
    With `qos TRUE`, for each table OpenSM applies (`qos_<type>_sl2vl` / `_vlarb_high` /
    `_vlarb_low`, else the `qos_` one, else the built-in default; CA, switch port 0, switch
    external and router ports): no SL that is in use maps to VL15, which drops it (man opensm,
    QOS CONFIGURATION); no SL maps to a VL beyond those `max_op_vls` makes operational (error when
    an SL in use is affected, else warning); no VL arbitration entry with a weight gives bandwidth
    to such a VL (warning). SLs in use: `sm_sl`, the QoS policy's qos-levels and qos-ulps, the
    partitions' `sl=` and their multicast groups' (`mgid=ff12::1,sl=1`), and SL 0 when no QoS policy
    file is given. Also warns when `qos TRUE` has a single VL to work with, and when QoS tables, a
    QoS policy or a partition's `sl=` are given with `qos FALSE` (OpenSM then puts every partition on
    SL 0: osm_prtn_config.c partition_create, "Overriding SL ... as QoS is not enabled").

    ## Why it matters
    OpenSM writes each table masked to the port's operational VLs (`VL & (2^(n-1) - 1)` for
    OperationalVLs code n, opensm/osm_qos.c): an SL meant for VL 5 with `max_op_vls 3` (VL0-VL3)
    silently lands on VL 1 and shares its buffers and arbitration weight with other traffic, and
    arbitration weight given to VL 5 goes to VL 1. An SL on VL15 is dropped outright.

    ## Failing example
    `max_op_vls 3`, `sm_sl 5`, `qos_sl2vl 0,1,2,3,4,5,6,7,...`: `qos_sl2vl (CA ports, switch port 0,
    router ports) maps SL 4->VL4, SL 5->VL5 ... but max_op_vls 3 makes VL0-VL3 operational: OpenSM
    masks them onto VL0, VL1 ... (SL 5 is used by sm_sl)`.

    ## Passing example
    `max_op_vls 4` (VL0-VL7), `qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7`,
    `qos_vlarb_low 0:128,1:64,3:32,...` naming VLs 0-7 only.

    ## Fix
    Map every SL to a VL below the operational count (or raise `max_op_vls` if every port
    supports more VLs), keep VL15 for SLs nobody uses, and list only operational VLs in the VL
    arbitration tables.
    """

    code = "IBS005"
    name = "ib-qos-sl2vl"
    severity = Severity.error

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        if not sm.qos_enabled:
            configured = any(src is not None for _, src, _ in _tables(sm))
            # (partition_create resets an sl= other than OSM_DEFAULT_SL 0, include/opensm/osm_base.h, with QoS off)
            pinned = [f"{part.name} (sl={part.sl})" for part in sm.partitions if part.sl]
            if sm.qos_enabled is False and (configured or sm.sl_uses or pinned):
                given = ("the QoS tables set in opensm.conf have" if configured else
                         "the QoS policy file has" if sm.sl_uses else None)
                yield self.finding(f"{setting(sm, 'qos', 'FALSE')}: OpenSM applies no SL2VL or VL arbitration tables "
                                   "and no QoS policy" + (f", so {given} no effect" if given else "") +
                                   (f", and puts partition {few(pinned)} on SL 0" if pinned else "") +
                                   "; set qos TRUE", device=device, source=where(device, sm, "qos"), key="qos-off",
                                   severity=Severity.warning)
            return
        vls = data_vls(sm)
        if vls is None:
            return  # an invalid max_op_vls is IBS006's finding
        used = used_sls(sm)
        if vls == 1:
            yield self.finding(f"qos TRUE but {setting(sm, 'max_op_vls', 1)} makes VL0 the only data VL: every SL "
                               "shares it and QoS cannot separate traffic; raise max_op_vls", device=device,
                               source=where(device, sm, "max_op_vls"), key="one-vl", severity=Severity.warning)
            return
        for field, src, types in _tables(sm):
            table = getattr(sm.qos_sets[types[0]], field)
            if table is None:
                continue
            option = _option(sm, src, field)
            label = f"{option} ({', '.join(PORT_TYPES[t] for t in types)})"
            if field == "sl2vl":
                yield from self._sl2vl(device, sm, table, label, option, src, vls, used)
            else:
                yield from self._vlarb(device, sm, table, label, option, src, vls)

    def _sl2vl(self, device, sm, table, label, option, src, vls, used):
        src = src or where(device, sm, "max_op_vls")
        dropped = [sl for sl, vl in enumerate(table) if vl == 15 and sl in used]
        if dropped:
            yield self.finding(f"{label} maps SL {numbers(dropped)} to VL15, which drops the packets, but "
                               f"{_uses(used, dropped)}; map {'them' if len(dropped) > 1 else 'it'} to a data VL",
                               device=device, source=src, key=f"{option}:drop", sls=dropped)
        folded = [(sl, vl) for sl, vl in enumerate(table) if vl != 15 and vl >= vls]
        if folded:
            hit = [sl for sl, _ in folded if sl in used]
            mask = vl_mask(sm)
            yield self.finding(f"{label} maps {', '.join(f'SL {sl}->VL{vl}' for sl, vl in folded)} but "
                               f"{setting(sm, 'max_op_vls', sm.max_op_vls)} makes VL0-VL{vls - 1} operational: OpenSM "
                               f"masks them onto {', '.join(f'VL{vl & mask}' for _, vl in folded)}, sharing those VLs "
                               f"with other SLs{f' ({_uses(used, hit)})' if hit else ''}; map every SL to "
                               f"VL0-VL{vls - 1}", device=device, source=src, key=f"{option}:vls",
                               severity=None if hit else Severity.warning,
                               sls=[sl for sl, _ in folded])

    def _vlarb(self, device, sm, table, label, option, src, vls):
        beyond = sorted({vl for vl, weight in table if weight and vl >= vls})
        if beyond:
            yield self.finding(f"{label} gives weight to VL {numbers(beyond)}, beyond the VL0-VL{vls - 1} that "
                               f"{setting(sm, 'max_op_vls', sm.max_op_vls)} makes operational: OpenSM masks those "
                               f"entries onto other VLs and changes their share; list only VL0-VL{vls - 1}",
                               device=device, source=src or where(device, sm, "max_op_vls"), key=option,
                               severity=Severity.warning, vls=beyond)


def used_sls(sm: OpenSm) -> dict[int, list[str]]:
    """SL -> what uses it: sm_sl, the QoS policy, the partitions' IPoIB broadcast and other multicast groups."""
    used: dict[int, list[str]] = defaultdict(list)
    if sm.sm_sl is not None:
        used[sm.sm_sl].append("sm_sl (SM/SA traffic)")
    for use in sm.sl_uses:
        if use.sl is not None:
            used[use.sl].append(f"{use.kind} {use.name}")
            continue
        # a level without sl: its paths take their partition's SL, OSM_DEFAULT_SL 0 where the partition has no sl=
        # (osm_sa_path_record.c pr_rcv_get_path_parms; osm_prtn.c osm_prtn_new), as in the Default partition OpenSM
        # makes when no partitions.conf is read (prtn_make_default); partitions with sl= are counted below
        plain = [part.name for part in sm.partitions if part.sl is None]
        if plain or not sm.partitions:
            used[0].append(f"qos-level {use.name} (no sl: the SL 0 of partition {few(plain or ['Default'])})")
    for part in sm.partitions:
        if part.sl is not None:
            used[part.sl].append(f"partition {part.name}")
        for mgid, sl in part.group_sls.items():
            used[sl].append(f"partition {part.name}'s multicast group {mgid}")
    if not sm.sl_uses:
        # no policy file, or one OpenSM drops (ERR AC03/AC04, p_qos_policy NULL): paths get OSM_DEFAULT_SL 0 or their
        # partition's SL (osm_sa_path_record.c pr_rcv_get_path_parms, osm_base.h OSM_DEFAULT_SL)
        used[0].append("the default SL 0 (no QoS policy SL applies)")
    return used


def _uses(used: dict[int, list[str]], sls: list[int]) -> str:
    return "; ".join(f"SL {sl} is used by {', '.join(used[sl])}" for sl in sls)


def _tables(sm: OpenSm) -> list[tuple[str, Source | None, list[str]]]:
    """Each distinct table OpenSM applies (told apart by the line that set it), with the port types it serves."""
    out: dict[tuple, tuple[str, Source | None, list[str]]] = {}
    for t in PORT_TYPES:
        for field in ("sl2vl", "vlarb_high", "vlarb_low") if t in sm.qos_sets else ():
            src = getattr(sm.qos_sets[t], f"{field}_source")
            key = (field, src.file, src.line) if src else (field,)
            out.setdefault(key, (field, src, []))[2].append(t)
    return list(out.values())


def _option(sm: OpenSm, src: Source | None, field: str) -> str:
    """The opensm.conf option that set a table, or OpenSM's built-in default."""
    for key, s in sm.sources.items():
        if s == src and key.endswith(field):
            return key
    return f"OpenSM's built-in {field} table"


@register
class VlsLmcForEngine(_SmRule):
    """LMC or the operational VLs do not suit the routing engine.

    ## What it checks
    - `max_op_vls` is an IBA OperationalVLs code 1-5 (VL0, VL0-1, VL0-3, VL0-7, VL0-14).
    - `lmc` is 0-7 (OpenSM replaces a larger value by 0; each port gets 2^LMC LIDs), and is 0 with
      ftree or lash, which do not support LMC > 0 and hand routing to the default engine instead
      (man opensm, ROUTING).
    - lash and torus-2QoS run with `qos TRUE`, without which OpenSM programs no SL2VL tables for
      their layers (man opensm: `-R lash -Q`, `-R torus-2QoS -Q`); lash_start_vl leaves lash a VL.
    - torus-2QoS has 2 data VLs to route a torus without credit loops, and 4 to do so around a
      failed switch (OpenSM osm_torus.c; torus-2QoS(8)).
    - dfsssp has more than VL0: it breaks cycles by moving paths to further VLs and stops routing
      when it runs out ("ERR AD25: Not enough VLs available", osm_ucast_dfsssp.c).
    Every listed engine is checked, since any of them may end up routing.

    ## Why it matters
    Each of these makes the configured engine fail or degrade silently, and OpenSM then routes
    with another engine, usually min-hop, that is not credit-loop free.

    ## Failing example
    `routing_engine ftree`, `lmc 2`: `lmc 2 with ftree: ftree does not support LMC > 0 and OpenSM
    invokes the default routing engine (minhop) instead`.

    ## Passing example
    `routing_engine ftree`, `lmc 0`; `routing_engine torus-2QoS`, `qos TRUE`, `max_op_vls 4`.

    ## Fix
    Use LMC 0 with ftree and lash (or updn/dfsssp for multipath LIDs), turn QoS on for lash and
    torus-2QoS, and give VL-based engines enough operational VLs.
    """

    code = "IBS006"
    name = "ib-vls-lmc-for-engine"
    severity = Severity.error

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        listed = engines(sm)
        vls = data_vls(sm)
        if sm.max_op_vls is not None and vls is None:
            yield self.finding(f"{setting(sm, 'max_op_vls', sm.max_op_vls)} is not an IBA OperationalVLs code: use "
                               "1 (VL0), 2 (VL0-VL1), 3 (VL0-VL3), 4 (VL0-VL7) or 5 (VL0-VL14)", device=device,
                               source=where(device, sm, "max_op_vls"), key="max_op_vls")
        lmc_src = where(device, sm, "lmc")
        if sm.lmc is not None and sm.lmc > 7:
            yield self.finding(f"lmc {sm.lmc} is outside 0-7: OpenSM uses 0 instead", device=device, source=lmc_src,
                               key="lmc")
        elif sm.lmc:
            for engine in ("ftree", "lash"):
                if engine in listed:
                    yield self.finding(f"lmc {sm.lmc} with {engine}: {engine} does not support LMC > 0 and OpenSM "
                                       "invokes the default routing engine (minhop) instead; set lmc 0", device=device,
                                       source=lmc_src, key=f"lmc-{engine}")
        for engine in ("lash", "torus-2qos"):
            if engine in listed and sm.qos_enabled is False:
                yield self.finding(f"{engine} with {setting(sm, 'qos', 'FALSE')}: its layers need the SL2VL tables "
                                   "OpenSM programs only with QoS on; set qos TRUE", device=device,
                                   source=where(device, sm, "qos"), key=f"{engine}-qos")
        if vls is None:
            return
        span = f"{setting(sm, 'max_op_vls', sm.max_op_vls)} (VL0-VL{vls - 1})"
        vls_src = where(device, sm, "max_op_vls")
        if "lash" in listed and sm.lash_start_vl is not None and sm.lash_start_vl >= vls:
            yield self.finding(f"lash_start_vl {sm.lash_start_vl} leaves lash no VL for its layers with {span}",
                               device=device, source=where(device, sm, "lash_start_vl"), key="lash-vl")
        if "torus-2qos" in listed and vls < 4:
            yield self.finding(f"torus-2QoS with {span}: it needs 2 data VLs to route a torus without credit loops and "
                               "4 to keep doing so around a failed switch; raise max_op_vls", device=device,
                               source=vls_src, key="torus-vls", severity=None if vls < 2 else Severity.warning)
        if "dfsssp" in listed and vls == 1:
            yield self.finding(f"dfsssp with {span}: DFSSSP removes credit loops by moving paths to further VLs and "
                               "stops routing when it has none (ERR AD25), leaving the fabric to the next engine; "
                               "raise max_op_vls", device=device, source=vls_src, key="dfsssp-vls",
                               severity=Severity.warning)


@register
class CreditLoopReported(_SmRule):
    """A saved ibdiagnet run reports credit loops in the fabric's routing.

    ## What it checks
    The ibdiagnet output saved beside opensm.conf (ibdiagnet2.log or ibdiagnet.log, from
    `ibdiagnet -r`): its credit-loop verdict is taken as ibdiagnet printed it, not re-derived, and
    a reported loop is an error quoting ibdiagnet's lines. An output without a credit-loop check is
    reported as unverified; without an ibdiagnet output the rule is silent.

    ## Why it matters
    ibdiagnet traces the forwarding tables the SM actually installed, so it sees what configuration
    cannot: a fallback to min-hop after a failure, a miscabled fat-tree, a bad root list. A loop it
    finds can deadlock the fabric under load.

    ## Failing example
    `-E- credit loops in routing` after `Found credit loop on: leaf03/P13 VL: 0`: `ibdiagnet reports
    credit loops in the routing installed by routing_engine updn: Found credit loop on: leaf03/P13 VL: 0 | ...`.

    ## Passing example
    `-I- no credit loops found`.

    ## Fix
    Find why the routing has a cycle: check the OpenSM log for a routing engine failure and
    fallback, the topology against the engine (IBS001, IBS002) and the root GUID file; reroute
    (`kill -HUP` the OpenSM process for a heavy sweep) and run `ibdiagnet -r` again.
    """

    code = "IBS007"
    name = "ib-credit-loop-reported"
    severity = Severity.error

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        loops = sm.credit_loops
        if loops is None:
            return
        if loops.loops_found is None:
            yield self.unverified("the ibdiagnet output holds no credit-loop check: run `ibdiagnet -r` and save its "
                                  "log beside opensm.conf", device=device, source=loops.source, key="credit-loops")
        elif loops.loops_found:
            yield self.finding(f"ibdiagnet reports credit loops in the routing installed by {chain(sm)}: "
                               f"{' | '.join(loops.evidence)}", device=device, source=loops.source, key="credit-loops",
                               evidence=loops.evidence)


# IBA encodings OpenSM takes in partitions.conf mtu= and rate= (man opensm, PARTITION CONFIGURATION: "as defined in
# the IBTA specification"; include/iba/ib_types.h IB_MTU_LEN_* and IB_PATH_RECORD_RATE_*).
IB_MTU_CODES = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
IB_RATE_CODES = {2: 2.5, 3: 10, 4: 30, 5: 5, 6: 20, 7: 40, 8: 60, 9: 80, 10: 120, 11: 14, 12: 56, 13: 112, 14: 168,
                 15: 25, 16: 100, 17: 200, 18: 300, 19: 28, 20: 50, 21: 400, 22: 600, 23: 800, 24: 1200}


@register
class PartitionGroupSettings(_SmRule):
    """A partition's multicast group MTU, rate or SL does not fit the policy or the routing engine.

    ## What it checks
    For every partition of partitions.conf: `mtu=` and `rate=` are IBA codes (MTU 1-5 = 256-4096 B, rate
    2-24) (error otherwise); where the policy sets `infiniband.partition_mtu_bytes` or
    `partition_rate_gbps`, every IPoIB partition's group uses them, OpenSM's defaults (mtu 4 = 2048 B, rate
    3 = 10 Gb/s) counting when the partition writes none (warning); with an engine that keeps routes
    credit-loop free on SL layers (`lash`, `dfsssp`) and `qos TRUE`, a partition that pins its group's SL
    with `sl=`, or a multicast group of its own (`mgid=ff12::1,sl=1`) (warning: the group's traffic then
    runs on a layer the engine did not pick for it; with QoS off OpenSM sets SL 0 whatever `sl=` says).
    One finding per partition and problem. A partitions.conf that defines no Default partition (P_Key
    0x7fff) is a note: OpenSM then makes `Default=0x7fff : ALL=limited, SELF=full;` with no IPoIB group
    (man opensm, PARTITION CONFIGURATION), so hosts cannot reach each other on the default P_Key. A Default
    whose last `ALL` or `ALL_CAS` entry makes hosts limited members (`ALL` without `=full` and no
    `defmember=full`) is a warning where it asks for IPoIB, a note otherwise; the ports written after that
    entry with another membership are named as the exceptions (OpenSM keeps each port's last entry).

    ## Why it matters
    A port joins a multicast group only if it can run at the group's rate and MTU: a group rate above
    some links' keeps their hosts out of the partition's IPoIB broadcast (no ARP, no IPoIB), and a group
    MTU below the fabric's caps IPoIB datagram mode at 2048 bytes. OpenSM's defaults (2048 B, 10 Gb/s) date
    from SDR/DDR fabrics. On a LASH/DFSSSP fabric, deadlock freedom holds only for traffic on the SL the
    engine assigns to each path; a pinned group SL bypasses that.

    ## Failing example
    Policy `partition_mtu_bytes: 4096`, `Default=0x7fff, ipoib : ALL=full;`:
    `partition Default: its IPoIB group MTU is 2048 B (OpenSM's default mtu=4), the policy asks 4096 B`.

    ## Passing example
    `Default=0x7fff, ipoib, mtu=5, rate=16 : ALL=full;` under `partition_mtu_bytes: 4096,
    partition_rate_gbps: 100`.

    ## Fix
    Write `mtu=`/`rate=` in IBA encoding (mtu=5 for 4096, rate=16 for 100 Gb/s, rate=17 for 200 Gb/s, rate=21
    for 400 Gb/s) on the partition line; with LASH/DFSSSP leave `sl=` off, or use an engine that needs no SL.
    """

    code = "IBS008"
    name = "ib-partition-group-settings"
    severity = Severity.warning

    def check_sm(self, ctx: Context, device: Device, sm: OpenSm) -> Iterator[Finding]:
        ib = ctx.policy.infiniband
        layered = engines(sm)[0] in SL_LAYERED
        if sm.partitions and not any(part.is_default() for part in sm.partitions):
            # a partitions.conf OpenSM read without a Default (with none, or a file OpenSM refuses, the model holds
            # its `Default=0x7fff, ipoib : ALL=full;`); man opensm, PARTITION CONFIGURATION; osm_prtn.c
            # prtn_make_default (no_config FALSE: ports limited, the SM's port full, no broadcast group)
            first = sm.partitions[0].source
            yield self.finding(
                "partitions.conf defines no Default partition, so OpenSM makes it as `Default=0x7fff : ALL=limited, "
                "SELF=full;` without an IPoIB broadcast group: every host is a limited member of the default P_Key, "
                "and limited members reach only full ones (here the SM's port), so hosts cannot talk to each other "
                "on it, nor run IPoIB over it; if they use the default P_Key (a port's P_Key index 0 unless set "
                "otherwise), write `Default=0x7fff, ipoib : ALL=full;`", key="Default|implicit",
                severity=Severity.info, device=device,
                source=Source(file=first.file, line=None) if first is not None else device.source)
        for part in sm.partitions:
            at: dict[str, Any] = {"device": device, "source": part.source or device.source}
            hosts = _hosts_membership(part.members) if part.is_default() else None
            if hosts is not None and hosts[1] == "limited":
                # osm_prtn_config.c partition_add_port: a port without `=full` takes the definition's defmember,
                # limited unless written (new_part_conf); doc/partition-config.txt: limited members reach full ones only
                but = (f" but the {len(hosts[2])} port(s) written after it (`{'`, `'.join(hosts[2][:3])}`"
                       + (", ..." if len(hosts[2]) > 3 else "") + ")") if hosts[2] else ""
                yield self.finding(
                    f"partition Default makes every host{but} a limited member (`{hosts[0]}` as OpenSM reads it: a "
                    "port written without `=full` is limited unless the definition says `defmember=full`): limited "
                    "members reach only full ones, so hosts cannot talk to each other on the default P_Key"
                    + (", nor over its IPoIB" if part.ipoib else "") + "; if they use it, write `ALL=full`",
                    key="Default|limited",
                    severity=Severity.warning if part.ipoib else Severity.info, **at)
            for key, code, table in (("mtu", part.mtu_code, IB_MTU_CODES), ("rate", part.rate_code, IB_RATE_CODES)):
                if code is not None and code not in table:
                    yield self.finding(f"partition {part.name}: {key}={code} is not an IBA {key} code "
                                       f"({min(table)}-{max(table)}); OpenSM cannot create its multicast group",
                                       key=f"{part.name}|{key}", severity=Severity.error, **at)
            if part.ipoib:
                mtu = IB_MTU_CODES.get(part.mtu_code if part.mtu_code is not None else DEFAULT_MGRP_MTU_CODE)
                rate = IB_RATE_CODES.get(part.rate_code if part.rate_code is not None else DEFAULT_MGRP_RATE_CODE)
                if ib.partition_mtu_bytes is not None and mtu is not None and mtu != ib.partition_mtu_bytes:
                    how = f"mtu={part.mtu_code}" if part.mtu_code is not None else "OpenSM's default mtu=4"
                    want = next(c for c, v in IB_MTU_CODES.items() if v == ib.partition_mtu_bytes)
                    yield self.finding(f"partition {part.name}: its IPoIB group MTU is {mtu} B ({how}), the policy asks "
                                       f"{ib.partition_mtu_bytes} B; write mtu={want}", key=f"{part.name}|mtu", **at)
                if ib.partition_rate_gbps is not None and rate is not None and rate != ib.partition_rate_gbps:
                    how = f"rate={part.rate_code}" if part.rate_code is not None else "OpenSM's default rate=3"
                    codes = [c for c, v in IB_RATE_CODES.items() if v == ib.partition_rate_gbps]
                    hint = f"; write rate={codes[0]}" if codes else ""
                    yield self.finding(f"partition {part.name}: its IPoIB group rate is {rate:g} Gb/s ({how}), the "
                                       f"policy asks {ib.partition_rate_gbps:g} Gb/s{hint}", key=f"{part.name}|rate",
                                       **at)
            if not (layered and sm.qos_enabled):  # (with QoS off OpenSM uses SL 0 and no layers: IBS005, IBS003)
                continue
            pins = [(f"partition {part.name}", "its multicast group's SL", part.sl, "", at["source"])
                    ] if part.sl is not None else []
            pins += [(f"partition {part.name}'s multicast group {mgid}", "its SL", sl, f"|{mgid}",
                      _group_source(part, mgid) or at["source"]) for mgid, sl in part.group_sls.items()]
            for what, whose, sl, group, src in pins:
                yield self.finding(f"{what}: sl={sl} pins {whose}, while {engines(sm)[0]} keeps routes credit-loop "
                                   "free by giving each path its own SL layer; this group's traffic runs on a layer "
                                   "the engine did not pick for it; leave sl= off", key=f"{part.name}|sl{group}",
                                   device=device, source=src)


def _hosts_membership(members: list[str]) -> tuple[str, str, list[str]] | None:
    """The last `ALL` or `ALL_CAS` entry of a partition's members (IbPartition.members: the keyword in full, each port
    once at its last entry), the membership it gives every host (channel adapter) port, and the ports written after it
    with another membership (a GUID or SELF: osm_prtn_config.c partition_add_port adds each in file order, a later
    entry replacing a port's earlier one); None when none is written."""
    last = None
    for n, member in enumerate(members):
        port, _, membership = member.rpartition("=")
        if port in ("ALL", "ALL_CAS"):
            last = (n, member, membership)
    if last is None:
        return None
    n, member, membership = last
    later = [m for m in members[n + 1:] if m.rpartition("=")[0] not in ("ALL_SWITCHES", "ALL_ROUTERS")
             and m.rpartition("=")[2] != membership]
    return member, membership, later


def _group_source(part: IbPartition, mgid: str) -> Source | None:
    """The line of a partition's `mgid=` entry, in the partition's file."""
    line = part.group_lines.get(mgid)
    return None if line is None or part.source is None else Source(file=part.source.file, line=line)
