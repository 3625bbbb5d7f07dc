"""Render vendor config snippets from a policy and per-port facts (speed, cable length, MTU).

Two steps, both pure: ``profile(policy, ports)`` works out every number (headroom from
losslessd.headroom, ECN thresholds scaled with link speed, watchdog timers), then a Jinja2
template per platform (templates/<platform>/profile.j2) only lays the numbers out. Missing
facts raise InputError before any template runs, so the output is whole or absent.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

import jinja2

from ..errors import InputError
from ..headroom import options_for, pfc_trigger, required_xoff_bytes
from ..lint.engine import Context
from ..model import BufferPool, BufferProfile, Device, Fabric, Source
from ..policy import Policy, Range
from ..resources import data_dir
from ..units import bytes_to_us, length_m

# Parts of a profile a template can lay out on its own; a fix renders only the ones its findings need.
# One vocabulary for every platform; a template lays out those it has (a host script has no scheduler or
# watchdog, a switch no default RoCE TOS, an opensm.conf only routing, election, timers and sl2vl).
SECTIONS = frozenset({"ports", "maps", "trust", "pfc", "scheduler", "ecn", "buffer", "watchdog", "tos",
                      "routing", "election", "timers", "sl2vl"})
# Sections that change which traffic is lossless, how it is classified or where it goes: on a live port,
# packets are reclassified or lose their pauses while the change lands, and an SM that routes anew or
# moves SLs to other VLs reprograms every switch (docs/fix.md); `fix` withholds them unless asked.
DISRUPTIVE_SECTIONS = frozenset({"maps", "trust", "pfc", "routing", "sl2vl"})
# Platforms that size PFC headroom themselves at run time and whose templates use neither xoff nor
# cable length, so a fix renders them for ports whose cable length is unknown.
HEADROOM_AT_RUNTIME = frozenset({"arista_eos", "cisco_nxos", "juniper_junos"})
# Platforms whose scheduler object also holds the ECN thresholds (an NX-OS queuing policy, a Junos
# scheduler-map: one per port), so their scheduler section writes the thresholds too.
ECN_IN_SCHEDULER = frozenset({"cisco_nxos", "juniper_junos"})
# Host NICs: the mlx5 driver sizes the lossless receive buffer itself from the cable length the script
# writes with PFC (mlnx_qos --cable_len), and the script switches DCQCN on without thresholds, so a NIC
# port needs its cable length for the pfc and buffer sections and nothing else of its facts.
NIC_PLATFORMS = frozenset({"linux_mlx5"})
DEFAULT_MTU_BYTES = 9100  # SONiC's default port MTU (sonic-buildimage, PORT table mtu 9100)
# ECN at the reference speed: Kmin 150 KB, Kmax 1.5 MB, 100 % (NVIDIA Cumulus Linux user guide,
# "RDMA over Converged Ethernet - RoCE", NVUE lossless defaults), in KiB/MiB as SONiC writes them.
ECN_KMIN_BYTES = 150 * 1024
ECN_KMAX_BYTES = 1536 * 1024
ECN_MARK_PCT = 100
# Junos drop profiles give ECN thresholds as fill levels (percent) of the queue buffer, which a scheduler sizes
# in bytes only as `buffer-size temporal MICROSECONDS` (bytes = line rate x time; Junos CoS guide,
# "buffer-size (Schedulers)"). Kmax sits at a fixed 50 % fill level (never 100 %, the QFX fill-level note).
ECN_KMAX_FILL_PCT = 50
ECT0 = 0b10  # the ECN bits of a TOS byte that say ECN-capable, ECT(0) (RFC 3168 section 5)
CNP_DEFAULT_TC = 6  # CNP traffic class when the policy names none (NVIDIA RoCE convention: CNP on priority 6)
# xon of every Spectrum entry in SONiC's Mellanox pg_profile_lookup.ini (sonic-buildimage device/mellanox).
XON_BYTES = 19456
POOL = "ingress_lossless_pool"  # SONiC's lossless ingress pool name (sonic-buildimage buffers_config.j2)
DYNAMIC_TH = -2  # SONiC Mellanox lossless PG profiles: dynamic_th -2 (alpha 1/4)
# SONiC pfcwd defaults (sonic-utilities pfcwd/main.py): detection 200 ms, restoration 200 ms. The
# watchdog polls twice per detection time, so a storm is seen within one detection window.
WD_DETECTION_MS = 200
WD_RESTORATION_MS = 200


@dataclass(frozen=True)
class PortFacts:
    """What the renderer must know about a port; None = not known (an error where it is needed)."""

    name: str
    speed_gbps: float | None
    cable_length_m: float | None
    mtu_bytes: int | None = None
    source: Source | None = None  # where the port is defined (a --device config), for messages


@dataclass(frozen=True)
class PortProfile:
    name: str
    # None only in a profile made with all_facts=False (a fix), where the sections it renders do not need them.
    speed_gbps: float | None
    speed_mbps: int | None
    cable_length_m: float | None
    mtu_bytes: int
    xon_bytes: int
    xoff_bytes: int | None
    size_bytes: int | None
    buffer_profile: str | None
    wred_profile: str | None
    kmin_bytes: int | None
    kmax_bytes: int | None

    @property
    def cable_length_ceil_m(self) -> int | None:
        """Cable length in whole metres, rounded up (more headroom, never less), for platforms that take no fraction."""
        return math.ceil(self.cable_length_m) if self.cable_length_m is not None else None

    @property
    def ecn_fill(self) -> tuple[int, int, int] | None:
        """Kmin and Kmax as fill levels of a temporal queue buffer (Junos): (buffer in whole microseconds at line
        rate, Kmin %, Kmax %). The buffer is the whole microseconds that put Kmax at ECN_KMAX_FILL_PCT, rounded
        down, and Kmin the next whole percent up, so the switch marks from slightly above Kmin to slightly below
        Kmax; thresholds that scale with speed give the same levels at every speed. None without thresholds."""
        if self.kmin_bytes is None or self.kmax_bytes is None or not self.speed_gbps:
            return None
        buffer_us = max(int(bytes_to_us(self.kmax_bytes * 100 / ECN_KMAX_FILL_PCT, self.speed_gbps)), 1)
        kmin_pct = math.ceil(bytes_to_us(self.kmin_bytes * 100, self.speed_gbps) / buffer_us)
        return buffer_us, min(kmin_pct, ECN_KMAX_FILL_PCT - 1), ECN_KMAX_FILL_PCT


class Sectioned:
    """A template's parameters that know which sections to lay out (``sections``, all by default)."""

    sections: frozenset[str]

    @property
    def full(self) -> bool:
        """A whole profile (render), as opposed to the few sections a fix lays out on some ports."""
        return self.sections == SECTIONS

    def wants(self, section: str) -> bool:
        """Whether the template should lay out ``section`` (all of them for a full profile)."""
        if section not in SECTIONS:
            raise InputError(f"template asks for unknown section {section!r}")
        return section in self.sections


@dataclass(frozen=True)
class Profile(Sectioned):
    """Everything a template needs: the policy's maps plus one PortProfile per port."""

    policy: str
    lossless: list[int]
    trust: str | None
    dscp_to_tc: dict[int, int]
    tc_to_pg: dict[int, int]
    strict_queues: list[int]
    ecn: bool
    mark_probability_pct: int
    dynamic_th: int
    pool_bytes: int | None
    wd_action: str
    wd_detection_ms: int
    wd_restoration_ms: int
    wd_poll_ms: int
    ports: list[PortProfile]
    sections: frozenset[str] = SECTIONS
    # Priorities with PFC on and whether the PFC watchdog is on. A full profile sets exactly the
    # lossless priorities and the watchdog; tests render other values to build broken configs.
    pfc: list[int] | None = None
    watchdog: bool = True
    # Priorities a partial render must turn PFC off for explicitly (on now at the device, not lossless);
    # a full render states the whole PFC set and leaves it empty.
    pfc_off: tuple[int, ...] = ()
    # PFC priority -> queue a received pause stops (SONiC MAP_PFC_PRIORITY_TO_QUEUE); identity by default.
    pfc_to_queue: dict[int, int] | None = None
    # What host NICs trust (policy nic.trust), which may differ from the switches' lossless.trust.
    nic_trust: str | None = None
    # The DSCP and priority a NIC marks its CNPs with (policy cnp); None when the policy has no CNP.
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    # The DSCP RDMA-CM connections send by default (a host's RoCE TOS): the lowest one mapped to a lossless TC.
    roce_dscp: int | None = None

    def __post_init__(self):
        if self.pfc is None:
            object.__setattr__(self, "pfc", list(self.lossless))
        if self.pfc_to_queue is None:
            object.__setattr__(self, "pfc_to_queue", {q: q for q in range(8)})

    @property
    def roce_tos(self) -> int | None:
        """The TOS byte of roce_dscp: DSCP << 2, with ECT(0) when ECN is on."""
        return None if self.roce_dscp is None else self.roce_dscp << 2 | (ECT0 if self.ecn else 0)

    @property
    def bandwidth_pct(self) -> dict[int, int]:
        """Each weighted (not strict) queue's share, in percent, of the bandwidth strict queues leave: half to
        the lossless queues, split evenly, half to queue 0 (best effort), none to the others."""
        shared = [q for q in self.lossless if q not in self.strict_queues]
        return {q: 50 // len(shared) if q in shared else 50 if q == 0 else 0
                for q in range(8) if q not in self.strict_queues}

    def traffic_classes(self) -> list[int]:
        """The TCs the profile uses: those some DSCP maps to, the strict and the lossless ones."""
        return sorted({*self.dscp_to_tc.values(), *self.strict_queues, *self.lossless})

    @property
    def wd_detection_polls(self) -> int:
        """Watchdog detection time in polling intervals, as platforms that count polls take it."""
        return self.wd_detection_ms // self.wd_poll_ms

    @property
    def wd_restoration_polls(self) -> int:
        return self.wd_restoration_ms // self.wd_poll_ms

    def dscps_by_tc(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for dscp, tc in self.dscp_to_tc.items():
            out.setdefault(tc, []).append(dscp)
        return out

    def ports_by_ecn(self) -> dict[str, list[PortProfile]]:
        """Ports that share ECN thresholds (one EOS qos profile each), keyed by a profile name."""
        out: dict[str, list[PortProfile]] = {}
        for port in self.ports:
            out.setdefault(port.wred_profile or "ROCE_LOSSLESS", []).append(port)
        return out


def restrict(prof: Sectioned, sections: Iterable[str], ports: Iterable[str] | None = None) -> Sectioned:
    """``prof`` reduced to ``sections`` on ``ports`` (all when None; a subnet manager's profile has no ports):
    the numbers stay the full profile's."""
    sections = frozenset(sections)
    if not sections or not sections <= SECTIONS:
        raise InputError(f"unknown or no profile sections: {sorted(sections - SECTIONS) or 'none'}")
    if ports is None or not isinstance(prof, Profile):
        return replace(prof, sections=sections)
    return replace(prof, sections=sections, ports=[p for p in prof.ports if p.name in set(ports)])


_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:g|gb/s|gbps|gbe)?", re.IGNORECASE)


def parse_port_spec(spec: str) -> PortFacts:
    """NAME:SPEED:CABLE[:MTU], e.g. Ethernet0:100G:5m:9100 (speed in Gb/s; cable length with unit or metres)."""
    parts = spec.split(":")
    if len(parts) not in (3, 4) or not parts[0]:
        raise InputError(f"--ports {spec!r}: expected NAME:SPEED:CABLE[:MTU], e.g. Ethernet0:100G:5m:9100")
    name, speed_text, cable_text = parts[:3]
    speed = _SPEED.fullmatch(speed_text.strip())
    if speed is None or float(speed[1]) <= 0:
        raise InputError(f"--ports {spec!r}: speed {speed_text!r} is not a link speed in Gb/s (e.g. 100G, 400G)")
    try:
        cable = length_m(cable_text)
    except ValueError:
        cable = math.nan
    if not (math.isfinite(cable) and cable > 0):
        raise InputError(f"--ports {spec!r}: cable length {cable_text!r} is not a length (e.g. 3m, 300m, 1km)")
    mtu = None
    if len(parts) == 4:
        if not parts[3].strip().isdigit() or int(parts[3]) <= 0:
            raise InputError(f"--ports {spec!r}: MTU {parts[3]!r} is not a whole number of bytes (e.g. 9100)")
        mtu = int(parts[3])
    return PortFacts(name, float(speed[1]), cable, mtu)


def _clamp(value: float, rng: Range, floor: float = 0) -> int:
    """``value`` moved into the policy's range (and not below ``floor``), so the rendered number lints clean."""
    low = max(rng.min or 0, floor)
    high = rng.max if rng.max is not None else math.inf
    return int(min(max(value, low), high))


def _check_ecn_before_pfc(policy: Policy, port: PortProfile, pool_bytes: int) -> None:
    """Refuse thresholds that would mark only after the PG pauses (the ECN004 condition, same maths)."""
    pg = BufferProfile(name=port.buffer_profile, pool=POOL, size_bytes=port.size_bytes, xon_bytes=port.xon_bytes,
                       xoff_bytes=port.xoff_bytes, dynamic_threshold=DYNAMIC_TH)
    trigger = pfc_trigger(pg, BufferPool(name=POOL, mode="dynamic", size_bytes=pool_bytes),
                          policy.ecn.congested_lossless_queues)
    mark = port.kmin_bytes if policy.ecn.before_pfc == "kmin" else port.kmax_bytes
    if trigger is not None and mark >= trigger.at_bytes:
        raise InputError(f"port {port.name}: ECN threshold {mark} B would not mark before PFC pauses at "
                         f"{trigger.at_bytes} B ({trigger.basis}); a larger ingress lossless pool is needed")


def profile(pol: Policy, ports: list[PortFacts], hwsku: str | None = None,
            pool_bytes: int | None = None, all_facts: bool = True) -> Profile:
    """All numbers of a lossless profile; InputError when a port lacks a fact the numbers need.

    ``pool_bytes`` is the ingress lossless pool (SKU-specific), needed where the PG's PFC trigger
    depends on it (SONiC dynamic thresholds). ``all_facts=False`` (a fix) leaves the numbers a missing
    fact decides unset (None) instead of refusing the port; render() refuses them where a section needs them.
    """
    if not ports:
        raise InputError("no ports to render: give --device or at least one --ports NAME:SPEED:CABLE[:MTU]")
    lossless = sorted(pol.lossless.priorities)
    dscp_to_tc = {d: 0 for d in range(64)}
    for dscp in pol.lossless.dscp:
        dscp_to_tc[dscp] = dscp if dscp in lossless else lossless[0]
    strict = []
    cnp_tc = None
    if pol.cnp is not None:
        cnp_tc = pol.cnp.priority if pol.cnp.priority is not None else CNP_DEFAULT_TC
        dscp_to_tc[pol.cnp.dscp] = cnp_tc
        strict = [cnp_tc] if pol.cnp.strict else []
    opts = options_for(hwsku, pol.buffer.peer_response_time_bytes)
    rendered = []
    for port in ports:
        where = {"file": port.source.file, "line": port.source.line} if port.source is not None else {}
        if port.speed_gbps is None and all_facts:
            raise InputError(f"port {port.name}: speed unknown, so its PFC headroom cannot be computed", **where)
        cable = port.cable_length_m if port.cable_length_m is not None else pol.buffer.default_cable_length_m
        if cable is None and all_facts:
            raise InputError(f"port {port.name}: cable length unknown, so its PFC headroom cannot be computed "
                             "(give it in --ports NAME:SPEED:CABLE or set buffer.default_cable_length_m)", **where)
        mtu = port.mtu_bytes or DEFAULT_MTU_BYTES
        known = cable is not None and port.speed_gbps is not None
        xoff = required_xoff_bytes(pol.buffer.headroom_formula, port.speed_gbps, cable, mtu, opts) if known else None
        kmin = kmax = None
        if pol.ecn.required and port.speed_gbps is not None:
            # Thresholds grow linearly with line rate when the policy names a reference speed.
            scale = port.speed_gbps / pol.ecn.speed_reference_gbps if pol.ecn.speed_reference_gbps else 1
            kmin = _clamp(ECN_KMIN_BYTES * scale, pol.ecn.min_threshold_bytes, pol.ecn.kmin_min_mtus * mtu)
            kmax = max(kmin, _clamp(ECN_KMAX_BYTES * scale, pol.ecn.max_threshold_bytes))
        speed_mbps = int(port.speed_gbps * 1000) if port.speed_gbps is not None else None
        # Named by what sets them, so ports that differ in any of those never share a profile.
        mtu_txt = "" if mtu == DEFAULT_MTU_BYTES else f"_mtu{mtu}"
        rendered.append(PortProfile(
            name=port.name, speed_gbps=port.speed_gbps, speed_mbps=speed_mbps, cable_length_m=cable,
            mtu_bytes=mtu, xon_bytes=XON_BYTES, xoff_bytes=xoff, size_bytes=XON_BYTES + xoff if xoff is not None else None,
            buffer_profile=f"pg_lossless_{speed_mbps}_{cable:g}m{mtu_txt}_profile" if xoff is not None else None,
            wred_profile=f"ROCE_LOSSLESS_{kmin}_{kmax}" if kmin is not None else None,
            kmin_bytes=kmin, kmax_bytes=kmax))
        if kmin is not None and pool_bytes is not None and xoff is not None:
            _check_ecn_before_pfc(pol, rendered[-1], pool_bytes)
    wd = pol.watchdog
    detection = _clamp(WD_DETECTION_MS, wd.detection_time_ms)
    actions = wd.actions or ["drop"]
    return Profile(
        policy=pol.name, lossless=lossless, trust=pol.lossless.trust, nic_trust=pol.nic.trust, dscp_to_tc=dscp_to_tc,
        tc_to_pg={tc: (tc if tc in lossless else 0) for tc in range(8)}, strict_queues=strict, ecn=pol.ecn.required,
        mark_probability_pct=_clamp(ECN_MARK_PCT, pol.ecn.mark_probability_pct), dynamic_th=DYNAMIC_TH,
        pool_bytes=pool_bytes,
        cnp_dscp=pol.cnp.dscp if pol.cnp is not None else None, cnp_priority=cnp_tc,
        roce_dscp=min((d for d, tc in dscp_to_tc.items() if tc in lossless), default=None),
        wd_action="drop" if "drop" in actions else actions[0],
        wd_detection_ms=detection,
        wd_restoration_ms=_clamp(WD_RESTORATION_MS, wd.restoration_time_ms), wd_poll_ms=detection // 2,
        ports=rendered)


def environment() -> jinja2.Environment:
    """Templates from the shipped templates/ folder; a missing variable is an error, never a blank."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
                              undefined=jinja2.StrictUndefined, autoescape=False,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def platforms() -> tuple[str, ...]:
    """Platforms that can be rendered: those with a templates/<platform>/profile.j2."""
    return tuple(sorted(d.name for d in data_dir("templates").iterdir() if (d / "profile.j2").is_file()))


def render(platform: str, prof) -> str:
    """The platform's snippet for ``prof`` (a Profile, or the platform's own parameters object)."""
    if platform not in platforms():
        raise InputError(f"no render template for platform {platform!r}; available: {', '.join(platforms())}")
    if isinstance(prof, Profile):
        _check_facts(platform, prof)
    return environment().get_template(f"{platform}/profile.j2").render(p=prof, pool=POOL)


def _check_facts(platform: str, prof: Profile) -> None:
    """A port without speed or cable length (a fix's profile) renders only the sections that need neither:
    ECN thresholds scale with speed (and go with the scheduler where one object holds both); headroom, and
    the cable length some platforms put in their PFC settings, need both; a NIC needs only its cable length,
    for PFC and its receive buffer. SONiC's lossless PG profiles also need the ingress lossless pool's size."""
    if platform == "sonic" and prof.wants("buffer") and prof.pool_bytes is None:
        raise InputError("SONiC lossless PG profiles share the ingress lossless pool: give its size "
                         "(--pool-size BYTES, or a --device config that has BUFFER_POOL|ingress_lossless_pool)")
    nic = platform in NIC_PLATFORMS
    ecn = prof.ecn and (prof.wants("ecn") or (platform in ECN_IN_SCHEDULER and prof.wants("scheduler")))
    headroom = platform not in HEADROOM_AT_RUNTIME and any(map(prof.wants, ("ports", "pfc", "buffer")))
    for port in prof.ports:
        if nic:
            if (prof.wants("pfc") or prof.wants("buffer")) and port.cable_length_m is None:
                raise InputError(f"port {port.name}: cable length unknown, so the NIC cannot size its lossless "
                                 "receive buffer (mlnx_qos --cable_len)")
            continue
        if ecn and port.speed_gbps is None:
            raise InputError(f"port {port.name}: speed unknown, so its ECN thresholds cannot be worked out")
        if (headroom or prof.wants("ports")) and port.xoff_bytes is None:
            raise InputError(f"port {port.name}: speed or cable length unknown, so its PFC headroom cannot be computed")


def device_facts(device: Device, policy: Policy) -> tuple[list[PortFacts], int | None]:
    """Port facts of a parsed config's RoCE-facing ports (the policy's choice, as lint makes it),
    and its ingress lossless pool size when the config has one."""
    ports = Context(Fabric(), policy).roce_ports(device)
    pool = device.buffer_pools.get(POOL)
    return ([PortFacts(p.name, p.speed_gbps, p.cable_length_m, p.mtu_bytes, p.source) for p in ports],
            pool.size_bytes if pool is not None else None)
