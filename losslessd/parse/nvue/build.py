"""Turn the NVUE settings into ports with their effective QoS: a port's own profiles, else the
switch-wide `default-global` ones, over Cumulus Linux's documented defaults (RoCE mode included).

Cumulus classifies DSCP/PCP to a switch priority (SP); PFC pauses switch priorities; the SP goes to an
egress queue, which NVUE calls the traffic class. In the model the SP is the TC (its PFC priority is its
own number) and the NVUE traffic class is the queue (tc_to_queue).
"""

from __future__ import annotations

from ...model import (
    BufferProfile,
    Device,
    DeviceKind,
    Ecn,
    LinkPause,
    ParseIssue,
    Port,
    PriorityGroup,
    Queue,
    Scheduler,
    SchedulerType,
    Source,
    Trust,
    Watchdog,
)
from ...records import record
from .reader import Conf, EcnConf, PortConf, SchedConf, Val

GLOBAL = "default-global"
# Cumulus Linux 5.x QoS guide, "Trust DSCP": DSCP 0-7 -> SP 0, 8-15 -> SP 1, ... 56-63 -> SP 7.
DEFAULT_DSCP_TO_SP = {d: d >> 3 for d in range(64)}
# Cumulus Linux 5.x RoCE guide, default RoCE configuration (lossy and lossless): SP 3 -> TC 3 (RoCE),
# SP 6 -> TC 6 (CNP), every other SP -> TC 0; TC 6 strict, TC 3 and TC 0 WRR 50 % each.
ROCE_SP_TO_TC = {sp: sp if sp in (3, 6) else 0 for sp in range(8)}
ROCE_SCHED = {0: ("dwrr", 50), 3: ("dwrr", 50), 6: ("strict", None)}
# Cumulus Linux 5.x QoS guide, "Egress Scheduler": default DWRR 12 % on queues 0,2,4,6 and 13 % on 1,3,5,7.
DEFAULT_SCHED = {tc: ("dwrr", 12 if tc % 2 == 0 else 13) for tc in range(8)}
# Cumulus Linux 5.x QoS guide, "Congestion Control (ECN)": default-global marks on queue 0 from 150000 to
# 1500000 bytes with probability 100; `nv show qos roce` lists ECN on traffic classes 0 and 3 in RoCE mode.
DEFAULT_ECN = (150000, 1500000, 100)
# Cumulus Linux RoCE guide: lossless mode enables PFC on switch priority 3; lossy mode does not.
ROCE_PFC = [3]
# RoCE modes that enable PFC on no priority and make no lossless pool: `lossy` (RoCE guide, default RoCE configuration
# table: "Enable PFC on switch priority 3" and "Switch priority 3 allocated to RoCE lossless traffic pool" NO in lossy
# mode) and `lossy-multi-tc` (5.14+, "Lossy Multi TC Profile": `nv show qos roce` shows `pfc-priority -` and the one
# pool lossy-default-ingress, 100 %). The switch is not lossless in either, whatever the ports say.
LOSSY_MODES = ("lossy", "lossy-multi-tc")
# The lossy multi TC profile's defaults (Cumulus Linux 5.14/5.15 RoCE guide, `nv show qos roce` in lossy-multi-tc
# mode): trust pcp,dscp; switch priority n -> traffic class n, DWRR 4, 8, 18, 22, 22, 22, 4 and 0 %; ECN on traffic
# classes 1, 2 and 3 from 163.00 KB to 234.00 KB (KiB: the lossless example's 146.48 KB is its 150000 B) at
# probability 5; DSCP 1,2 -> SP 1, 3,4 -> SP 2, 5,6 -> SP 3, 11-40 -> SP 4, 41-50 -> SP 5, every other DSCP -> SP 0
# (the 5.16 guide's table, "RoCE PCP/DSCP->SP mapping configurations"; the 5.14/5.15 tables had 41-50 on SP 0, and the
# 5.15 release notes moved them to traffic class 5).
MULTI_TC = "lossy-multi-tc"
MULTI_TC_DSCP_TO_SP = {d: 1 if d in (1, 2) else 2 if d in (3, 4) else 3 if d in (5, 6) else 4 if 11 <= d <= 40
                       else 5 if 41 <= d <= 50 else 0 for d in range(64)}
MULTI_TC_SCHED = {tc: ("dwrr", pct) for tc, pct in enumerate((4, 8, 18, 22, 22, 22, 4, 0))}
MULTI_TC_ECN, MULTI_TC_ECN_TCS = (163 * 1024, 234 * 1024, 5), (1, 2, 3)
# The remark profiles the lossy multi TC mode creates for packet trimming (Cumulus Linux 5.16 RoCE guide, "Lossy Multi
# TC Profile": `nv show qos remark` lists them once the mode is set; they remark trimmed packets of switch priority 4,
# to DSCP 21 towards hosts and 11 towards the network): a port naming one names a profile the switch has.
MULTI_TC_REMARKS = ("lossy-multi-tc-host-group", "lossy-multi-tc-network-group")
# Cumulus Linux 5.6+ QoS guide, "PFC Watchdog": polling interval 100 ms, robustness 3 intervals by default;
# a storm makes the switch discard packets for the queue, and PFC comes back after a polling interval
# without pause frames.
WD_POLL_MS, WD_ROBUSTNESS, WD_ACTION = 100, 3, "drop"
# Cumulus Linux qos_features.conf as shipped, remark section: `traffic.cos_N.priority_remark.dscp = [8N]`
# (cos_0 -> 0, cos_1 -> 8, ... cos_7 -> 56): the egress DSCP of a switch priority no remark profile maps.
DEFAULT_REMARK_DSCP = {sp: sp * 8 for sp in range(8)}
# Traffic pools -> ingress priority groups. Cumulus Linux QoS guide, "Advanced Buffer Tuning" (the table of default
# traffic pools and advanced buffer properties): default-lossy's switch priorities are those of lossy PG `bulk`,
# mc-lossy's those of lossy PG `service2`. Their IDs: the shipped qos_infra.conf `priority_group.bulk.id = 0` (and
# `nv show qos advance-buffer-config -o json`: `bulk: id 0`); the guide's "Traffic Pools" example for mc-lossy, Linux
# commands: `priority_group.service2.id = 2`.
LOSSY_PG = {"default-lossy": (0, "bulk"), "mc-lossy": (2, "service2")}
# Cumulus Linux keeps one lossless PG per port, internal to its implementation, for the switch priorities with PFC
# on the port (CumulusNetworks/docs, Cumulus Linux 5.0 "Buffer and Queue Management": "only ONE LOSSLESS PG
# configured per port ... with PFC/LinkPause enabled on the port"); no guide gives its index, so this key is
# losslessd's own and never shown: messages name the PG (Port.pg_names).
LOSSLESS_PG = 8
PG_NAMES = {0: "PG 0 (bulk)", 2: "PG 2 (service2)", LOSSLESS_PG: "lossless PG"}
# The traffic pools for lossless traffic (QoS guide, "Traffic Pools" table): a `switch-priority` list there names the
# priorities with flow control.
LOSSLESS_POOLS = ("roce-lossless", "default-lossless")
SP_PRIORITY = {sp: sp for sp in range(8)}
SP_NAMES = {sp: f"switch-priority {sp}" for sp in range(8)}
# NVUE reference, `nv show interface <interface-id> qos mapping`: a port without QoS settings shows `port-default-sp 0`.
PORT_DEFAULT_SP = 0
_TRUST = {"l3": Trust.dscp, "both": Trust.dscp, "l2": Trust.pcp, "port": Trust.none}


def build(conf: Conf, platform: str, name: str, path: str) -> Device:
    device = Device(name=conf.hostname.value if conf.hostname else name, kind=DeviceKind.switch,
                    platform=platform, source=conf.hostname.source if conf.hostname else Source(file=path))
    ports = _broken_out(conf.ports)
    rewrite = _ingress_rewrite(conf, ports)
    layout, pool_issues = _layout(conf)
    buffers, buffer_issues = _pfc_buffers(conf)
    shared: dict[tuple, dict[int, int] | None] = {}
    vlan_lists: dict[tuple[int, int | str], tuple[list[int], bool]] = {}
    for pname, pc in ports.items():
        device.ports[pname] = port = _port(conf, pname, pc)
        _vlans(conf, port, vlan_lists)
        if rewrite:
            _remark(conf, pc, port, rewrite[pname])
        if layout is not None:
            _priority_groups(layout, port, device, shared, buffers.get(_profile(pc, "pfc")))
    device.traffic_pools, more = _traffic_pools(conf)
    mode = _roce(conf)
    if mode in LOSSY_MODES and conf.roce is not None:
        device.lossy_mode = f"RoCE {mode} mode (nv set qos roce mode {mode})"
        device.lossy_mode_source = conf.roce.source
    device.issues = [*conf.issues, *_undefined_profiles(conf), *pool_issues, *buffer_issues, *more]
    return device


def _traffic_pools(conf: Conf) -> tuple[dict[str, int | None], list[ParseIssue]]:
    """The pools the switch has beyond default-lossy's 100 % (what render must keep), and SYS002 where they break
    the QoS guide's rules (Traffic Pools: "You can only have a single lossless pool configured on the switch at a
    time"; Flow Control Buffers: "The total memory allocation across pools must not exceed 100%")."""
    pools = {name: pool.memory_pct.value if pool.memory_pct else None for name, pool in conf.pools.items()}
    sources = {name: pool.source for name, pool in conf.pools.items()}
    if _roce(conf) == "lossless" and conf.roce is not None:
        # RoCE guide, `nv show qos roce` in lossless mode: RoCE mode makes its own lossless pool (roce-reserved, the
        # QoS guide's roce-lossless) beside lossy-default, 50 % each.
        pools.setdefault("roce-lossless", None)
        sources.setdefault("roce-lossless", conf.roce.source)
    issues = []
    if all(name in pools for name in LOSSLESS_POOLS):
        why = " (made by RoCE lossless mode, nv set qos roce)" if "roce-lossless" not in conf.pools else ""
        issues.append(ParseIssue(code="SYS002", source=sources["default-lossless"], message=(
            f"traffic pool default-lossless beside roce-lossless{why}: a switch has a single lossless pool (Cumulus "
            "Linux QoS guide, Traffic Pools: roce-lossless when RoCE runs, else default-lossless); unset one")))
    shares = {name: pct.value for name, pool in conf.pools.items() if (pct := pool.memory_pct) is not None}
    if sum(shares.values()) > 100:
        last = max((pool.memory_pct.source for pool in conf.pools.values() if pool.memory_pct is not None),
                   key=lambda src: src.line or 0)
        listed = ", ".join(f"{name} {pct} %" for name, pct in sorted(shares.items()))
        issues.append(ParseIssue(code="SYS002", source=last, message=(
            f"traffic pools take {sum(shares.values())} % of the buffer memory ({listed}); the total must not "
            "exceed 100 % (Cumulus Linux QoS guide, Flow Control Buffers)")))
    return pools, issues


@record
class Layout:
    """The switch's traffic pools as they place switch priorities: each priority's lossy pool, and the priorities a
    lossless pool lists (None: it lists none)."""

    lossy: dict[int, str]
    lossless_sps: set[int] | None
    sources: dict[str, Source]  # pool -> the line that configured it


def _layout(conf: Conf) -> tuple[Layout | None, list[ParseIssue]]:
    """Where the traffic pools put each switch priority; None (with why, when the configuration is at fault) when the
    input does not say which PG a priority uses."""
    if conf.pg_override is not None:
        return None, []  # advance-buffer-config moves priorities between lossy PGs: not read
    pools = conf.pools
    listed = {name: pool.sps for name, pool in pools.items() if pool.sps is not None}
    lossless_sps: set[int] | None = None
    for name in LOSSLESS_POOLS:
        if name in listed:
            lossless_sps = (lossless_sps or set()) | set(listed[name])
    lossy: dict[int, str] = {}
    for sp in range(8):
        holders = [name for name, sps in listed.items() if sp in sps]
        if len(holders) > 1:
            return None, [ParseIssue(code="SYS002", source=listed[holders[1]][sp], message=(
                f"switch priority {sp} is in traffic pools {' and '.join(holders)}; a switch priority belongs to one "
                "pool (qos_infra.conf: each cos value is assigned exactly once), so its PG is unknown"))]
        if holders and holders[0] not in LOSSLESS_POOLS:
            lossy[sp] = holders[0]
        elif "default-lossy" not in listed:
            lossy[sp] = "default-lossy"  # QoS guide: "The default traffic pool for all switch priorities"
        elif not holders:
            return None, [ParseIssue(code="SYS002", source=pools["default-lossy"].source, message=(
                f"switch priority {sp} is in no traffic pool; NVUE maps every switch priority to a priority group "
                "(Cumulus Linux QoS guide, Advanced Buffer Tuning), so its PG is unknown"))]
    return Layout(lossy, lossless_sps, {name: pool.source for name, pool in pools.items()}), []


def _pfc_buffers(conf: Conf) -> tuple[dict[str, BufferProfile], list[ParseIssue]]:
    """The buffer profile of each `qos pfc` profile that sets `port-buffer`, `xoff-threshold` or `xon-threshold`
    (Cumulus Linux QoS guide, "Priority Flow Control": the reserved buffer, the fill level that sends XOFF and the one
    that sends XON; its Linux tab writes them as port_buffer_bytes, xoff_size and xon_delta = xoff - xon). With both
    the reservation and the XOFF level, what lies between them absorbs the data in flight after XOFF (xoff_bytes); what
    the profile leaves out, Cumulus sizes itself (the guide: "let Cumulus Linux configure the settings dynamically").
    Refused (SYS002, the headroom left to the switch) where XON lies above XOFF (a negative xon_delta) or XOFF above
    the reserved buffer."""
    out, issues = {}, []
    for name, buf in conf.pfc_buffer.items():
        size, xoff, xon = (v.value if v is not None else None for v in (buf.port_buffer, buf.xoff, buf.xon))
        src = min((v.source for v in (buf.port_buffer, buf.xoff, buf.xon) if v is not None), key=lambda s: s.line or 0)
        if xon is not None and xoff is not None and xon > xoff:
            issues.append(ParseIssue(code="SYS002", source=buf.xon.source if buf.xon else src, message=(
                f"qos pfc {name}: xon-threshold {xon} B is above xoff-threshold {xoff} B, so XON would come before "
                "XOFF (the guide's xon_delta = xoff - xon must not be negative); its buffer settings are not used")))
            continue
        if size is not None and xoff is not None and xoff > size:
            issues.append(ParseIssue(code="SYS002", source=buf.xoff.source if buf.xoff else src, message=(
                f"qos pfc {name}: xoff-threshold {xoff} B is above port-buffer {size} B, so no reserved buffer is left "
                "for the data in flight after XOFF; its buffer settings are not used")))
            continue
        known = size is not None and xoff is not None
        out[name] = BufferProfile(name=f"qos pfc {name}", size_bytes=size, xon_bytes=xon, xoff_threshold_bytes=xoff,
                                  xoff_bytes=size - xoff if known else None,  # type: ignore[operator]
                                  headroom_computed_at_runtime=not known, source=src)
    return out, issues


def _priority_groups(layout: Layout, port: Port, device: Device, shared: dict[tuple, dict[int, int] | None],
                     buffer: BufferProfile | None = None) -> None:
    """The port's switch priority -> PG map. A priority with PFC on the port uses the port's lossless PG, whatever the
    traffic pools' memory (the pools share out buffer memory; the PG and its headroom come with PFC), its headroom
    sized by Cumulus from the cable length at run time (QoS guide, Priority Flow Control: "let Cumulus Linux configure
    the settings dynamically"); every other priority uses its lossy pool's PG, which has no headroom. Unknown (left
    None) when the port's PFC state is, when a priority's pool has no documented PG (roce-lossy), or when a lossless
    pool's `switch-priority` list and the port's PFC priorities differ (what the switch then does is not documented)."""
    if port.pfc_enabled is None:
        return
    pfc = set(port.pfc_enabled)
    if layout.lossless_sps is not None and layout.lossless_sps != pfc:
        return
    key = tuple(sorted(pfc))
    if key not in shared:
        pgs = {sp: LOSSLESS_PG if sp in pfc else LOSSY_PG[pool][0] for sp in range(8)
               if sp in pfc or (pool := layout.lossy.get(sp, "")) in LOSSY_PG}
        shared[key] = pgs if len(pgs) == 8 else None  # roce-lossy: no documented PG
    tc_to_pg = shared[key]
    if tc_to_pg is None:
        return
    # NVUE binds no PFC priority -> PG map (pfc_priority_to_pg stays None): Cumulus pairs each PFC priority with the
    # port's lossless PG itself, so MAP005 has no configured map to compare.
    port.tc_to_pg, port.pg_names = tc_to_pg, PG_NAMES
    fallback = port.pfc_source or port.map_source or port.source
    for pool, (index, name) in LOSSY_PG.items():
        if index in tc_to_pg.values():
            src = layout.sources.get(pool)
            port.priority_groups[index] = PriorityGroup(index=index, profile=name, source=src or fallback)
            # a lossy PG: no xoff headroom (QoS guide, "Advanced Buffer Tuning": the ingress-lossy-buffer region)
            device.buffer_profiles.setdefault(name, BufferProfile(name=name, pool=pool, source=src))
    if pfc and buffer is not None:  # the port's PFC profile sets its buffer (_pfc_buffers)
        device.buffer_profiles.setdefault(buffer.name, buffer)
        port.priority_groups[LOSSLESS_PG] = PriorityGroup(index=LOSSLESS_PG, profile=buffer.name,
                                                          source=buffer.source or port.pfc_source or fallback)
    elif pfc:
        port.priority_groups[LOSSLESS_PG] = PriorityGroup(index=LOSSLESS_PG, runtime_profile=True,
                                                          source=port.pfc_source or fallback)


def _broken_out(ports: dict[str, PortConf]) -> dict[str, PortConf]:
    """The traffic ports: a port split by `link breakout Nx` is its N ports swpXs0..s(N-1) (NVUE reference, `nv set
    interface <interface-id> link breakout`: "1x, 2x, 4x, 8x"), not itself; `breakout disabled` leaves it down."""
    out = {}
    for name, pc in ports.items():
        brk = pc.breakout
        if brk is None or brk.ports == 1:
            out[name] = pc
        elif brk.ports == 0:
            pc.admin_up = Val(False, brk.source)
            out[name] = pc
        else:
            for i in range(brk.ports):
                child = ports.get(f"{name}s{i}") or PortConf(source=brk.source)
                if child.speed is None and brk.speed is not None:
                    child.speed = Val(brk.speed, brk.source)  # `4x25G`: each port runs at 25G
                out[f"{name}s{i}"] = child
    return out


def _undefined_profiles(conf: Conf) -> list[ParseIssue]:
    """A port's `qos KIND profile NAME` naming a profile the configuration never defines (nor default-global): what
    it sets on the port is unknown, said once per profile, at the first port naming it."""
    defined = {"mapping": {*conf.trust, *conf.dscp, *conf.pcp}, "pfc": {*conf.pfc, *conf.pfc_made},
               "congestion-control": set(conf.ecn), "egress-scheduler": set(conf.sched), "link-pause": set(conf.pause),
               "remark": {*conf.remark, *(MULTI_TC_REMARKS if _roce(conf) == MULTI_TC else ())}}
    said: dict[tuple[str, str], ParseIssue] = {}
    for pname, pc in conf.ports.items():
        for kind, val in pc.profiles.items():
            profile = str(val.value)
            if profile != GLOBAL and profile not in defined.get(kind, {profile}) and (kind, profile) not in said:
                said[kind, profile] = ParseIssue(code="SYS002", source=val.source, message=(
                    f"{pname} uses qos {kind} profile {profile}, which is not defined in this configuration: what it "
                    "sets on the port is unknown"))
    return list(said.values())


# The settings that decide RoCE (reader._roce_state): an unset at, above or below one turns it back to NVUE's default.
ROCE_PATHS = (("qos", "roce", "enable"), ("qos", "roce", "state"), ("qos", "roce", "mode"))


def _restored(conf: Conf, pc: PortConf, *paths: tuple[str, ...]) -> Source | None:
    """The line that put one of ``paths`` (words after `nv set`; one starting with `interface` is the port's own,
    written without its name) back to NVUE's default: the last `nv unset` at, above or below any of them
    (reader.Tombstones: `nv unset qos pfc P switch-priority 3` as well as `nv unset qos pfc P`), or, for the RoCE
    paths, the line that turned RoCE off (`qos roce enable off`, which outranks an earlier unset); None where none did.
    A default the builder fills in for want of a line cites it, so that a finding on what the line restored points
    at it rather than at the port's first line."""
    roce_off = conf.roce.source if conf.roce is not None and conf.roce.value == "off" else None  # its line
    if not (conf.restored.at or pc.restored.at or roce_off is not None):  # (no `nv unset`, RoCE on: nothing restored)
        return None
    switch = conf.restored_near.get(paths)
    if switch is None:  # the switch-wide part, the same for every port: looked up once per set of paths
        last = max((src for path in paths if path[0] != "interface" for src in conf.restored.near(path)),
                   key=_line, default=None)
        switch = conf.restored_near[paths] = (last, roce_off if any(path in ROCE_PATHS for path in paths) else None)
    if not pc.restored.at:  # (the port's own paths: no unset of them)
        return max(filter(None, switch), key=_line, default=None)
    own = [src for path in paths if path[0] == "interface" for src in pc.restored.near(path[1:])]
    return max(filter(None, (switch[0], *own, switch[1])), key=_line, default=None)  # (the first of a tie, as before)


def _line(src: Source) -> int:
    return src.line or 0


def _profile(pc: PortConf, kind: str) -> str:
    val = pc.profiles.get(kind)
    return str(val.value) if val else GLOBAL


def _roce(conf: Conf) -> str | None:
    return conf.roce.value if conf.roce and conf.roce.value != "off" else None


def _port(conf: Conf, name: str, pc: PortConf) -> Port:
    port = Port(name=name, source=pc.source, qos_configured=pc.qos or conf.global_qos,
                bundle=pc.bond.value if pc.bond is not None else None)
    # `link mtu` sets the Linux interface MTU, the IP MTU (Cumulus Linux "Interface Configuration", MTU).
    for attr, val in (("description", pc.description), ("mtu_bytes", pc.mtu), ("speed_gbps", pc.speed),
                      ("admin_up", pc.admin_up)):
        if val is not None:
            setattr(port, attr, val.value)
    roce = _roce(conf)
    _trust_and_maps(conf, pc, port, roce)
    _pfc(conf, pc, port, roce)
    _queues(conf, pc, port, roce)
    port.watchdog = _watchdog(conf, pc)
    port.link_pause = _link_pause(conf, pc)
    return port


def _vlans(conf: Conf, port: Port, shared: dict[tuple[int, int | str], tuple[list[int], bool]]) -> None:
    """Port.vlans and untagged_only from the port's bridge lines, or its bond's (the bond is the bridge port: Cumulus
    Linux user guide, "Bonding - Link Aggregation"). Cumulus Linux user guide, "VLAN-aware Bridge Mode": a port
    carries its own `vlan` list, else its bridge's, and its untagged VLAN (the port's `untagged`, else the bridge's,
    else 1; `none`: it drops untagged frames); an access port (`access V`) carries V alone, untagged. A port in no
    bridge with an `ip address` (its own or its bond's) routes untagged ([]), unless a subinterface tags it. Unknown
    (None) where the lines do not say, or a bridge line was not read."""
    own = conf.l2.get(port.name)
    bond = conf.l2.get(port.bundle) if port.bundle is not None else None
    l2 = next((c for c in (own, bond) if c is not None and (c.bridge is not None or c.routed is not None)), None)
    if l2 is None or (own is not None and own.tagged):
        return
    if l2.bridge is None:
        port.vlans = [] if not (bond is not None and bond.tagged) else None
        return
    bridge = conf.bridges.get(l2.bridge.value)
    if l2.unread is not None or (bridge is not None and bridge.unread is not None):
        return
    if l2.access is not None:
        port.vlans, port.untagged_only = [l2.access], True
        return
    pvid = next((u for u in (l2.untagged, bridge.untagged if bridge else None) if u is not None), 1)
    tagged = l2.vlans if l2.vlans is not None else (bridge.vlans if bridge is not None else frozenset())
    # (ports with the same list and untagged VLAN share one Port.vlans: a range of 1,024 ports trunking 4,094 VLANs)
    key = (id(tagged), pvid)
    if key not in shared:
        vlans = tagged | ({pvid} if isinstance(pvid, int) else set())
        shared[key] = (sorted(vlans), bool(vlans) and vlans == {pvid})
    port.vlans, port.untagged_only = shared[key]


def _link_pause(conf: Conf, pc: PortConf) -> LinkPause | None:
    """The port's 802.3x pause: set by a `qos link-pause` profile bound to it, else off (NVUE configures link pause
    per interface only: Cumulus Linux QoS guide, "Link Pause"). A profile leaves a direction it does not name on:
    rx_enable/tx_enable "The default value is `true`" (the guide's link pause options)."""
    val = pc.profiles.get("link-pause")
    if val is None:
        return None
    prof = conf.pause.get(str(val.value))
    if prof is None:  # a profile the configuration never defines (said by _undefined_profiles)
        return LinkPause(source=val.source)
    return LinkPause(rx=prof.rx.value if prof.rx else True, tx=prof.tx.value if prof.tx else True, source=val.source)


def _ingress_rewrite(conf: Conf, ports: dict[str, PortConf]) -> dict[str, bool]:
    """Per port, whether traffic arriving there is remarked on egress (its `qos remark` profile, else default-global,
    says `rewrite l3` or `both`); {} when no port remarks DSCP."""
    found = {}
    for name, pc in ports.items():
        remark = conf.remark.get(_profile(pc, "remark"))
        found[name] = bool(remark and remark.rewrite and remark.rewrite.value in ("l3", "both"))
    return found if any(found.values()) else {}


def _remark(conf: Conf, pc: PortConf, port: Port, rewrite: bool) -> None:
    """Cumulus Linux QoS guide, "Remarking": "the switch ASIC reads the enable or disable rewrite flag on the ingress
    port and refers to the mapping configuration on the egress port": the egress DSCP of each switch priority is
    the port's remark profile's (else default-global's), over the shipped default."""
    remark = conf.remark.get(_profile(pc, "remark"))
    written = {sp: v.value for sp, v in remark.dscp.items()} if remark else {}
    port.tc_to_dscp_rewrite = {**DEFAULT_REMARK_DSCP, **written}
    port.ingress_rewrite = rewrite


def _trust_and_maps(conf: Conf, pc: PortConf, port: Port, roce: str | None) -> None:
    prof = _profile(pc, "mapping")
    trust = conf.trust.get(prof)
    if trust is not None:
        port.trust, port.trust_source = _TRUST[str(trust.value)], trust.source
    elif roce:
        # `nv show qos roce`: trust-mode pcp,dscp; IP packets are classified by DSCP (QoS guide trust table).
        port.trust, port.trust_source = Trust.dscp, conf.roce.source
    dscp = {d: v.value for d, v in conf.dscp.get(prof, {}).items()}
    if trust is None and not roce:  # (trust unknown: at the unset that took the RoCE or the port's trust away)
        port.trust_source = _restored(conf, pc, *ROCE_PATHS, ("qos", "mapping", prof, "trust"),
                                      ("interface", "qos", "mapping", "profile"))
    pcp = {p: v.value for p, v in conf.pcp.get(prof, {}).items()}
    port_sp = conf.port_sp.get(prof)
    if port.trust is Trust.none:  # `trust port`: every packet to the port's default switch priority, marks unread
        sp = port_sp.value if port_sp is not None else PORT_DEFAULT_SP
        port.dscp_to_tc, port.pcp_to_tc = dict.fromkeys(range(64), sp), dict.fromkeys(range(8), sp)
    elif port.trust is Trust.dscp:
        port.dscp_to_tc = {**(MULTI_TC_DSCP_TO_SP if roce == MULTI_TC else DEFAULT_DSCP_TO_SP), **dscp}
    elif port.trust is Trust.pcp:
        port.pcp_to_tc = {**{p: p for p in range(8)}, **pcp}  # QoS guide: PCP n -> SP n by default
    sp_to_tc = {**(ROCE_SP_TO_TC if roce and roce != MULTI_TC else {sp: sp for sp in range(8)}),
                **{sp: v.value for sp, v in conf.sp_to_tc.items()}}
    port.tc_to_queue, port.tc_names = sp_to_tc, SP_NAMES  # NVUE's own "traffic class" is the queue
    # Cumulus Linux QoS guide, "Priority Flow Control": PFC is set per switch priority, so SP n pauses as
    # priority n, and a received pause for priority n stops the egress traffic class SP n is sent on.
    port.tc_to_priority = SP_PRIORITY
    port.pfc_priority_to_queue = {sp: [tc] for sp, tc in sp_to_tc.items()}
    sources = [v.source for v in (*conf.dscp.get(prof, {}).values(), *conf.sp_to_tc.values(),
                                  *((port_sp,) if port_sp is not None and port.trust is Trust.none else ()))]
    port.map_source = min(sources, key=lambda s: s.line or 0) if sources else port.trust_source


def _pfc(conf: Conf, pc: PortConf, port: Port, roce: str | None) -> None:
    prof = _profile(pc, "pfc")
    if prof in conf.pfc or prof in conf.pfc_made:
        # (what a buffer fix writes the cable length into: a profile of the snippet's own bound in its place would
        # carry its own switch-priority list, a PFC change)
        port.service_policies = {"qos pfc profile": prof}
    if prof in conf.pfc:
        port.pfc_enabled, port.pfc_source = sorted(conf.pfc[prof]), conf.pfc_source[prof]
    elif prof != GLOBAL and prof in conf.pfc_made:
        # A profile of the port's own whose lines name no switch priority (only `small-packet-probability`,
        # `cable-length` or its buffer): Cumulus Linux QoS guide, Port Groups, PFC: "you create a profile to define the
        # egress queues that support sending PFC pause frames" (its Linux tab: `pfc.<profile>.cos_list`), so it pauses
        # none; the RoCE mode's switch priority 3 is the default-global profile's, which the port no longer uses.
        port.pfc_enabled, port.pfc_source = [], conf.pfc_made[prof]
    elif pc.profiles.get("pfc"):  # a profile the config never defines
        port.pfc_enabled, port.pfc_source = None, pc.profiles["pfc"].source
    elif roce:
        port.pfc_enabled, port.pfc_source = (ROCE_PFC if roce == "lossless" else []), conf.roce.source
        port.lossy_mode = roce in LOSSY_MODES
    else:
        port.pfc_enabled = []  # the whole configuration is shown: no PFC line, no PFC (or an unset took it away)
        port.pfc_source = _restored(conf, pc, *ROCE_PATHS, ("qos", "pfc", prof, "switch-priority"),
                                    ("interface", "qos", "pfc", "profile"))
    cable = conf.cable.get(prof) or (conf.roce_cable if roce else None)
    if cable is not None:
        port.cable_length_m = cable.value


def _queues(conf: Conf, pc: PortConf, port: Port, roce: str | None) -> None:
    ecn_prof, sched_prof = _profile(pc, "congestion-control"), _profile(pc, "egress-scheduler")
    ecns = conf.ecn.get(ecn_prof, {})
    scheds = conf.sched.get(sched_prof, {})
    ecn_src: Source | None
    sched_src: Source | None
    plain = not roce or conf.roce is None
    if not plain and conf.roce is not None:
        ecn_src = sched_src = conf.roce.source
    else:  # the plain defaults: where an unset put them back, its line
        sched_src = _restored(conf, pc, *ROCE_PATHS, ("qos", "egress-scheduler", GLOBAL),
                              ("interface", "qos", "egress-scheduler", "profile"))
    ecn_tcs, ecn_default = (MULTI_TC_ECN_TCS, MULTI_TC_ECN) if roce == MULTI_TC else ((0, 3) if roce else (0,),
                                                                                    DEFAULT_ECN)
    sched_default = MULTI_TC_SCHED if roce == MULTI_TC else ROCE_SCHED if roce else DEFAULT_SCHED
    for tc in range(8):
        if plain:  # (an unset of the queue's own traffic class, or of the profile or RoCE above it)
            ecn_src = _restored(conf, pc, *ROCE_PATHS, ("qos", "congestion-control", GLOBAL, "traffic-class", str(tc)),
                                ("interface", "qos", "congestion-control", "profile"))
        ecn = _ecn(ecns.get(tc), ecn_prof == GLOBAL and tc in ecn_tcs, ecn_src, ecn_default)
        sched = _sched(scheds.get(tc), sched_default.get(tc) if sched_prof == GLOBAL else None, sched_src)
        if ecn or sched:  # (a queue an unset left without ECN: at that unset, ECN001's line)
            restored = ecn_src if plain and ecn is None else None
            port.queues[tc] = Queue(index=tc, ecn=ecn, scheduler=sched,
                                    source=(ecn and ecn.source) or restored or (sched and sched.source) or port.source)


def _ecn(conf: EcnConf | None, default_on: bool, default_src: Source | None,
         default: tuple[int, int, int] = DEFAULT_ECN) -> Ecn | None:
    """The queue's ECN: its own settings over the default profile's (default_on: the default marks here, with
    ``default``'s Kmin, Kmax and probability)."""
    if conf is None and not default_on:
        return None
    conf = conf or EcnConf()
    kmin, kmax, prob = default if default_on else (None, None, None)
    # (every line of the traffic class counts, the dynamic ECN ones too: its `mode` and percentages)
    vals = [v for v in (conf.ecn, conf.kmin, conf.kmax, conf.probability, conf.relative, conf.kmin_pct, conf.kmax_pct)
            if v is not None]
    relative = conf.relative if conf.relative is not None and conf.relative.value else None
    if relative is not None:  # dynamic ECN: the byte thresholds are ignored, the percentages' bytes unknown
        kmin = kmax = None
    return Ecn(ecn_enabled=conf.ecn.value if conf.ecn else (True if default_on or vals else None),
               min_threshold_bytes=conf.kmin.value if conf.kmin and relative is None else kmin,
               max_threshold_bytes=conf.kmax.value if conf.kmax and relative is None else kmax,
               mark_probability_pct=float(conf.probability.value) if conf.probability else (
                   float(prob) if prob is not None else None),
               source=relative.source if relative is not None else vals[0].source if vals else default_src)


def _sched(conf: SchedConf | None, default: tuple[str, int | None] | None, default_src: Source | None) -> Scheduler | None:
    if conf is None and default is None:
        return None
    conf = conf or SchedConf()
    mode = str(conf.mode.value) if conf.mode else (default[0] if default else None)
    weight = conf.weight.value if conf.weight else (default[1] if default else None)
    vals = [v for v in (conf.mode, conf.weight) if v is not None]
    return Scheduler(type=SchedulerType(mode) if mode else None, weight=None if mode == "strict" else weight,
                     source=vals[0].source if vals else default_src)


def _watchdog(conf: Conf, pc: PortConf) -> Watchdog:
    if pc.watchdog is None:
        # No `qos pfc-watchdog` on the port: the watchdog is off (NVUE enables it per interface; the reference gives
        # `interface <id> qos pfc-watchdog state` the default `disable`), at the unset that turned it off if one did.
        return Watchdog(enabled=False,
                        source=_restored(conf, pc, ("interface", "qos", "pfc-watchdog", "state")) or pc.source)
    poll = _num(conf.wd_poll, WD_POLL_MS)
    detection = None if "detection" in conf.wd_unread else poll * _num(conf.wd_robustness, WD_ROBUSTNESS)
    return Watchdog(enabled=bool(pc.watchdog.value), polling_interval_ms=poll, detection_time_ms=detection,
                    restoration_time_ms=None if "restoration" in conf.wd_unread else poll,
                    action=WD_ACTION, action_raw=WD_ACTION,
                    source=pc.watchdog.source)


def _num(val: Val | None, default: int) -> float:
    return float(val.value) if val is not None else float(default)
