"""LNK: the two ends of every cable agree (PFC, MTU, speed, NIC vs switch), and every link could be placed.

A device can look right on its own while the port across the cable disagrees with it. These rules
read Fabric.links (losslessd.topology: the topology file, LLDP and SONiC DEVICE_NEIGHBOR) and the
problems the loader kept instead of a link. A finding names both ends and the link's source, and
carries both devices.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import Rule, register
from ..model import Device, DeviceKind, DocRef, Link, Port, Source, Trust
from ..records import record
from ..tuples import NamedTuple
from .common import TRUST_LABEL, nic_dscp_fix, nic_trust_fix, numbers, priorities


class PortView(NamedTuple):
    """What the link rules compare of one port, as plain values. In a parallel lint the worker that parsed the
    device sends these (Rule.device_facts), so the parent, which has every link, reads no device's ports:
    only a finding's source does, for the devices with findings."""

    roce: bool  # RoCE-facing per the policy (Context.roce_ports)
    pfc_enabled: tuple[int, ...] | None  # None: the input does not say
    mtu_bytes: int | None
    speed_gbps: float | None
    trust: Trust | None
    tc_to_priority_known: bool
    # Per lossless DSCP of the policy: (DSCP, its priority in the NIC's dscp2prio map, (TC, priority, queue, TC
    # label) of the port's chain, whether the port marks ECN on that queue).
    chains: tuple[tuple[int, int | None, tuple[int | None, int | None, int | None, str], bool], ...]
    np_enabled: tuple[tuple[int, bool], ...] | None  # DCQCN notification point per priority; None: no record
    dcb_tool: str | None  # a NIC's Port.dcb_tool: the tool its fix runs


def port_views(ctx: Context, device: Device) -> dict[str, PortView]:
    """Every port's PortView (ports configured alike share one: a worker sends it once). A view is worked out once
    per port configuration (Context.port_key: everything of a port but names and sources) and RoCE selection; a
    device configured as one before it (Context.first_alike: the same port keys and selections in order), whose
    ports have the same names in the same order, takes that one's views, the same dict (a switch's 64 ports are
    not looked at again, and a worker sends the dict once)."""
    first = ctx.first_alike(device)
    if first is not device and list(first.ports) == list(device.ports):
        return ctx.memo(port_views, first)
    roce = {port.name for port in ctx.roce_ports(device)}
    chains_of = ctx.memo(_chains_by_maps)
    by_key = ctx.memo(_views_by_key)
    dscps = ctx.policy.lossless.dscp
    port_key = ctx.keys.port  # (Context.port_key, looked up once)
    out = {}
    for port in device.ports.values():
        alike = (port_key(port), port.name in roce)
        known_view = by_key.get(alike)
        if known_view is not None:
            out[port.name] = known_view
            continue
        # What Port.dscp_chain reads: parsers share these maps between the ports that bind them.
        maps = (port.dscp_to_priority, port.priority_to_tc, port.priority_to_pg, port.dscp_to_tc, port.tc_to_priority,
                port.tc_to_pg, port.tc_to_queue, port.tc_names)
        key = tuple(map(id, maps))
        known = chains_of.get(key)
        if known is None:  # (the maps are kept with their chains: no other object can take their ids meanwhile)
            nic = port.dscp_to_priority or {}
            hops = [(dscp, port.dscp_chain(dscp)) for dscp in dscps]
            known = chains_of[key] = (maps, tuple((dscp, nic.get(dscp), (hop.tc, hop.priority, hop.queue, hop.tc_label))
                                                  for dscp, hop in hops))
        chains = []
        for dscp, nic_priority, hop in known[1]:
            queue = port.queues.get(hop[2]) if hop[2] is not None else None
            marks = bool(queue is not None and queue.ecn is not None and queue.ecn.ecn_enabled)
            chains.append((dscp, nic_priority, hop, marks))
        ecn = port.nic_ecn
        view = PortView(port.name in roce, None if port.pfc_enabled is None else tuple(port.pfc_enabled),
                        port.mtu_bytes, port.speed_gbps, port.trust, port.tc_to_priority is not None, tuple(chains),
                        None if ecn is None else tuple(ecn.np_enabled.items()), port.dcb_tool)
        out[port.name] = by_key[alike] = ctx.alike(view, ("LNK", view))
    return out


def _chains_by_maps(ctx: Context) -> dict[tuple[int, ...], tuple[tuple, tuple]]:
    return {}


def _views_by_key(ctx: Context) -> dict[tuple[int, bool], PortView]:
    return {}


class Cited(NamedTuple):
    """The sources a link finding cites of one port (End.port), when each is a line of one file (a host capture's,
    a text config's): a worker sends these few numbers beside the views, so that a finding on the port needs not
    its device parsed again in the parent (a fleet whose hosts all disagree with their switches has a finding per
    host). A reference into a document (SONiC CONFIG_DB) finds its line in the text, which stays with the worker:
    such a port is not cited."""

    file: str
    lines: tuple[int | None, ...]  # of source, pfc_source, trust_source, map_source, nic_ecn.np_source (None: none)
    has_nic_ecn: bool

    def _at(self, i: int) -> Source | None:
        line = self.lines[i]
        return None if line is None else Source(file=self.file, line=line)

    @property
    def source(self) -> Source | None:
        return self._at(0)

    @property
    def pfc_source(self) -> Source | None:
        return self._at(1)

    @property
    def trust_source(self) -> Source | None:
        return self._at(2)

    @property
    def map_source(self) -> Source | None:
        return self._at(3)

    @property
    def nic_ecn(self) -> _CitedEcn | None:
        return _CitedEcn(self._at(4)) if self.has_nic_ecn else None


class _CitedEcn(NamedTuple):
    np_source: Source | None


@record
class LinkFacts:
    """What the link rules read of a device: each port's view, and the ports cited (Cited)."""

    views: dict[str, PortView]
    cited: dict[str, Cited]


def link_facts(ctx: Context, device: Device) -> LinkFacts:
    cited: dict[str, Cited] = {}
    first = next(iter(device.ports.values()), None)
    if first is None or isinstance(first.source, DocRef):  # (a CONFIG_DB: every port's sources are references)
        return LinkFacts(ctx.memo(port_views, device), cited)
    for port in device.ports.values():
        file = _file_of_line(port.source)
        if file is None:
            continue  # (a switch's document references, or no source: every port of the device alike)
        ecn = port.nic_ecn
        sources = (port.source, port.pfc_source, port.trust_source, port.map_source,
                   None if ecn is None else ecn.np_source)
        if all(s is None or _file_of_line(s) == file for s in sources):
            cited[port.name] = Cited(file, tuple(None if s is None else s.line for s in sources), ecn is not None)
    return LinkFacts(ctx.memo(port_views, device), cited)


def _file_of_line(src: Source | None) -> str | None:
    """The file of a source that is a line of it and nothing more; else None."""
    if (type(src) is not Source or src.line is None or src.pointer is not None or src.device is not None
            or src.command is not None):
        return None
    return src.file


class End(NamedTuple):
    """One end of a link: its device, its port's name and PortView; ``port``, what a finding cites of it (the
    model object, which in a parallel lint the parent parses again, unless its sources were sent: Cited)."""

    device: Device
    name: str
    view: PortView
    cited: Cited | None = None

    @property
    def port(self) -> Port | Cited:
        return self.device.ports[self.name] if self.cited is None else self.cited

    def __str__(self) -> str:
        return f"{self.device.name}:{self.name}"


def roce_links(ctx: Context, rule: Rule) -> list[tuple[Link, End, End, tuple]]:
    """The links with a RoCE-facing end, with both ends (the loader only makes links between known ports) and what
    makes links alike to check_link: the two ends' views (shared by ports configured alike) and device kinds."""
    devices = ctx.fabric.devices
    # device name -> (device, its port views, its cited ports) or None (a switch has a link per host: looked up once)
    known: dict[str, tuple | None] = {}

    def look(name: str) -> tuple | None:
        device = devices.get(name)
        facts = ctx.device_facts(rule, device) if device is not None else None
        found = known[name] = (device, facts.views, facts.cited) if facts is not None else None
        return found

    out = []
    for link in ctx.fabric.links:
        a, b = link.a, link.b
        at = known[a.device] if a.device in known else look(a.device)
        if at is None or (a_view := at[1].get(a.port)) is None:
            continue
        bt = known[b.device] if b.device in known else look(b.device)
        if bt is None or (b_view := bt[1].get(b.port)) is None:
            continue
        if a_view.roce or b_view.roce:
            out.append((link, _end((at[0], a.port, a_view, at[2].get(a.port))),
                        _end((bt[0], b.port, b_view, bt[2].get(b.port))),
                        (id(a_view), id(b_view), at[0].kind, bt[0].kind)))
    return out


_end = partial(tuple.__new__, End)  # End(...) without its __new__ in Python (two per link of a fleet)


def _run_links(ctx: Context) -> dict[str, Any]:
    """Per run: roce_links ("roce"), once the first link rule worked them out, and the first of each kind ("firsts")."""
    return {}


def _where(link: Link) -> str:
    return link.source.describe() if link.source else link.origin


class _LinkRule(Rule):
    """A check of the two ends of each link where at least one end is RoCE-facing (per the policy)."""

    scope = "link"
    facts_key = "links"  # (the five read one LinkFacts per device: a worker works it out, and sends it, once)

    def device_facts(self, ctx: Context, device: Device) -> LinkFacts:
        return ctx.memo(link_facts, device)

    def check(self, ctx: Context) -> Iterator[Finding]:
        # The five rules read the same views: the links are looked up once per run (a fleet has a link per host).
        # A rule that meets a bug while looking them up stores nothing: the next one meets it again and says so too.
        found = ctx.memo(_run_links)
        if "roce" not in found:
            found["roce"] = links = roce_links(ctx, self)
            # the first link of each kind of links alike (below), in order: a fleet's 16,000 host links are a few
            firsts: dict[tuple, int] = {}
            for n, row in enumerate(links):
                firsts.setdefault(row[3], n)
            found["firsts"] = list(firsts.values())
        links = found["roce"]
        # Links alike (the same views at both ends, between devices of the same kinds: views are shared by ports
        # configured alike) are alike to check_link: once their first found nothing, the others are not checked.
        # The first of each kind is checked first; where none finds anything (a clean fleet) the links are not
        # walked again, else they are walked in order as before, each first's findings kept for its place.
        clean: set[tuple] = set()
        first: dict[int, list[Finding]] = {}
        for n in found["firsts"]:
            link, a, b, alike = links[n]
            findings = list(self.check_link(ctx, link, a, b))
            if findings:
                first[n] = findings
            else:
                clean.add(alike)
        if not first:
            return
        for n, (link, a, b, alike) in enumerate(links):
            if alike in clean:
                continue
            findings = first[n] if n in first else list(self.check_link(ctx, link, a, b))
            if findings:
                yield from findings
            else:
                clean.add(alike)

    def check_link(self, ctx: Context, link: Link, a: End, b: End) -> Iterator[Finding]:  # pragma: no cover - interface
        """The findings on one link. Whether there are any depends only on the two ends' views and device kinds
        (and the policy): check skips links alike to one that had none."""
        raise NotImplementedError

    def on(self, link: Link, end: End, other: End, what: str, message: str, source: Source | None = None,
           unverified: bool = False, **data):
        """A finding on ``end`` (the one to change) that names both ends and where the link came from."""
        text = f"{end} <-> {other} (link from {_where(link)}): {message}"
        kwargs: dict[str, Any] = {"device": end.device, "port": end.name,
                  "source": source or link.source or end.port.source,
                  "key": "|".join(sorted((str(end), str(other)))) + f"|{what}",
                  "devices": [end.device.name] + ([other.device.name] if other.device is not end.device else [])}
        return self.unverified(text, **kwargs) if unverified else self.finding(text, **kwargs, **data)


@register
class PfcMismatch(_LinkRule):
    """The two ends of a link have PFC on for different priorities.

    ## What it checks
    On every link with a RoCE-facing end (switch to switch, and switch to NIC), both ports have
    PFC on and their PFC-enabled priority sets are equal. A link where one end has PFC off
    entirely is LNK005's. The finding is on the end whose set differs from the policy's lossless
    priorities (the first by name when both do); unknown PFC state is reported as unverified.

    ## Why it matters
    PFC works hop by hop: the receiver of a link pauses, the sender stops. A priority with PFC on
    one end only is lossy on that cable in both directions: one end never sends a pause for it,
    the other ignores the pauses it gets, and RoCE packets are dropped as soon as the buffer fills.

    ## Failing example
    `spine1:Ethernet2/1` has `priority-flow-control priority 4 no-drop`, its peer
    `leaf1:Ethernet52` has `pfc_enable: "3"`: `PFC is on for priority 4 here, for priority 3 at
    leaf1:Ethernet52`.

    ## Passing example
    Both ends enable PFC on priority 3.

    ## Fix
    Enable PFC on the same priorities (the policy's lossless ones) at both ends of the cable.
    """

    code = "LNK001"
    name = "pfc-mismatch"
    severity = Severity.error

    def check_link(self, ctx: Context, link: Link, a: End, b: End) -> Iterator[Finding]:
        if a.view.pfc_enabled is None or b.view.pfc_enabled is None:
            unknown = [e for e in (a, b) if e.view.pfc_enabled is None]
            known = b if unknown[0] is a else a
            yield self.on(link, unknown[0], known, "pfc", "the PFC state of this end is not in the input, so the "
                          "two ends' PFC priorities cannot be compared", unknown[0].port.source, unverified=True)
            return
        if not a.view.pfc_enabled or not b.view.pfc_enabled or set(a.view.pfc_enabled) == set(b.view.pfc_enabled):
            return  # PFC off at one end is LNK005's
        wanted = set(ctx.lossless)
        end, other = sorted((a, b), key=lambda e: (set(e.view.pfc_enabled or ()) == wanted, str(e)))
        yield self.on(link, end, other, "pfc",
                      f"PFC is on for {priorities(end.view.pfc_enabled or ())} here, for "
                      f"{priorities(other.view.pfc_enabled or ())} at {other}; a priority paused at one end only is "
                      "lossy on this cable; enable PFC on the same priorities at both ends "
                      f"(lossless: {numbers(wanted)})",
                      end.port.pfc_source, here=list(end.view.pfc_enabled or ()),
                      there=list(other.view.pfc_enabled or ()))


@register
class MtuMismatch(_LinkRule):
    """The two ends of a link have different MTUs, or a NIC's MTU exceeds its switch port's.

    ## What it checks
    Where both MTUs are in the input: between two switches they are equal (warning otherwise);
    between a NIC and its switch port, the NIC's MTU is not above the switch port's (error). Both
    sides are IP MTUs (the model's `mtu_bytes`): SONiC `PORT|mtu`, EOS `mtu`, NVUE `link mtu` and
    Linux's interface MTU are IP MTUs as written (sonic-swss portsorch adds the Ethernet header
    itself); Junos `mtu` is the media MTU and its parser subtracts the 14-byte Ethernet header, so a
    Junos `mtu 9214` faces a SONiC `mtu 9200` without a finding. The finding is on the end with the
    smaller MTU.

    ## Why it matters
    A frame larger than the receiving port's MTU is dropped, whatever PFC does: RoCE messages that
    cross the link in full-size packets are lost and retransmitted forever.

    ## Failing example
    `gpu01:enp65s0f0np0` MTU 9216, `leaf1:Ethernet0` `mtu: "9100"`: `MTU 9100 here, 9216 at
    gpu01:enp65s0f0np0: frames above 9100 bytes from gpu01 are dropped`.

    ## Passing example
    NIC MTU 9000 facing a 9100-byte switch port; two switch ports both at 9100.

    ## Fix
    Raise the smaller MTU (or lower the NIC's) so that every frame fits the port that receives it.
    """

    code = "LNK002"
    name = "mtu-mismatch"
    severity = Severity.error

    def check_link(self, ctx: Context, link: Link, a: End, b: End) -> Iterator[Finding]:
        if a.view.mtu_bytes is None or b.view.mtu_bytes is None or a.view.mtu_bytes == b.view.mtu_bytes:
            return
        small, big = sorted((a, b), key=lambda e: (e.view.mtu_bytes, str(e)))
        nic_link = DeviceKind.host in (a.device.kind, b.device.kind)
        if nic_link and big.device.kind != DeviceKind.host:
            return  # the NIC's MTU is the smaller one: what it sends fits
        yield self.on(link, small, big, "mtu",
                      f"MTU {small.view.mtu_bytes} here, {big.view.mtu_bytes} at {big}: frames above "
                      f"{small.view.mtu_bytes} bytes from {big.device.name} are dropped; give both ends one MTU",
                      small.port.source, severity=None if nic_link else Severity.warning,
                      here=small.view.mtu_bytes, there=big.view.mtu_bytes)


@register
class SpeedMismatch(_LinkRule):
    """The two ends of a link are configured or reported at different speeds.

    ## What it checks
    Where both ends' speeds are in the input (SONiC `PORT|speed`, EOS `speed`, the NIC's sysfs
    speed or ethtool), they are equal. The finding is on the slower end.

    ## Why it matters
    Mismatched speeds keep the link down, or up at the lower speed after auto-negotiation: the
    headroom, ECN thresholds and watchdog timers sized for the configured speed are then wrong,
    and the fabric has less capacity than planned.

    ## Failing example
    `leaf1:Ethernet0` `speed: "100000"` facing a NIC whose sysfs speed reads `25000`:
    `25 Gb/s here, 100 Gb/s at leaf1:Ethernet0`.

    ## Passing example
    Both ends at 100 Gb/s.

    ## Fix
    Configure one speed at both ends (and check the cable or transceiver if the NIC negotiated down).
    """

    code = "LNK003"
    name = "speed-mismatch"
    severity = Severity.error

    def check_link(self, ctx: Context, link: Link, a: End, b: End) -> Iterator[Finding]:
        if a.view.speed_gbps is None or b.view.speed_gbps is None or a.view.speed_gbps == b.view.speed_gbps:
            return
        slow, fast = sorted((a, b), key=lambda e: (e.view.speed_gbps, str(e)))
        yield self.on(link, slow, fast, "speed",
                      f"{slow.view.speed_gbps:g} Gb/s here, {fast.view.speed_gbps:g} Gb/s at {fast}; configure one "
                      "speed at both ends", slow.port.source, here=slow.view.speed_gbps, there=fast.view.speed_gbps)


@register
class NicSwitchMismatch(_LinkRule):
    """A NIC and its switch port classify RoCE differently, or the switch marks ECN the NIC does not answer.

    ## What it checks
    On every NIC-to-switch link: both ends trust the same marking (DSCP or PCP); with DSCP trust,
    each RoCE DSCP of the policy maps to the same priority on the NIC (`mlnx_qos` dscp2prio) as on
    the switch port (DSCP -> TC -> priority); and when the switch port marks ECN on the queue that
    DSCP uses, the NIC's DCQCN notification point is on for its priority. The finding is on the NIC.

    ## Why it matters
    The switch pauses the priority it classified the traffic into; the NIC stops the priority it
    sent it on. If the two differ, pauses stop the wrong traffic class in both directions and RoCE
    is dropped although both ends have PFC on. A switch that marks congestion towards a NIC whose
    notification point is off gets no CNPs back: DCQCN never slows the senders down.

    ## Failing example
    NIC `Priority trust state: pcp` facing a SONiC port with a `dscp_to_tc_map`: `the NIC trusts
    PCP (802.1p), leaf1:Ethernet8 trusts DSCP`.

    ## Passing example
    Both trust DSCP, DSCP 26 is priority 3 on both, NP is on for priority 3.

    ## Fix
    Make the NIC's trust mode and DSCP->priority map match the switch's (`mlnx_qos -i IF --trust dscp`,
    `--dscp2prio set,26,3`), and enable the NIC's notification point on the lossless priority.
    """

    code = "LNK004"
    name = "nic-switch-mismatch"
    severity = Severity.error

    def check_link(self, ctx: Context, link: Link, a: End, b: End) -> Iterator[Finding]:
        kinds = (a.device.kind, b.device.kind)
        if set(kinds) != {DeviceKind.host, DeviceKind.switch}:
            return
        nic, switch = (a, b) if kinds[0] == DeviceKind.host else (b, a)
        n, s = nic.view, switch.view
        if n.trust is not None and s.trust is not None and n.trust != s.trust:
            yield self.on(link, nic, switch, "trust", f"the NIC trusts {TRUST_LABEL[n.trust.value]}, {switch} trusts "
                          f"{TRUST_LABEL[s.trust.value]}: they classify RoCE into different priorities; "
                          f"{nic_trust_fix(nic.name, n.dcb_tool, s.trust.value)}",
                          nic.port.trust_source or nic.port.source)
            return
        np_enabled = None if n.np_enabled is None else dict(n.np_enabled)
        for (dscp, nic_prio, _, _), (_, _, (tc, priority, queue, tc_label), marks) in zip(n.chains, s.chains,
                                                                                        strict=True):
            if nic_prio is not None and tc is not None and not s.tc_to_priority_known:
                yield self.on(link, nic, switch, f"dscp {dscp}", f"DSCP {dscp} is priority {nic_prio} on the NIC, "
                              f"but the PFC priority of {tc_label} on {switch} is not in the input, so the two "
                              f"could not be compared", switch.port.map_source or switch.port.source, unverified=True)
                continue
            if nic_prio is None or priority is None:
                continue
            if nic_prio != priority:
                yield self.on(link, nic, switch, f"dscp {dscp}",
                              f"DSCP {dscp} is priority {nic_prio} on the NIC but priority {priority} on {switch}: "
                              f"pauses for one stop the other's queue, not this traffic; "
                              f"{nic_dscp_fix(nic.name, n.dcb_tool, dscp, priority)}",
                              nic.port.map_source or nic.port.source, dscp=dscp)
                continue
            np_on = np_enabled.get(nic_prio) if np_enabled is not None else None
            if marks and np_enabled is not None and np_on is False:  # MLNX_OFED sysfs ecn/roce_np/enable/<priority>
                nic_ecn = nic.port.nic_ecn
                yield self.on(link, nic, switch, f"ecn {dscp}",
                              f"{switch} marks ECN on queue {queue} (DSCP {dscp}) but the NIC's DCQCN notification "
                              f"point is off for priority {nic_prio}: marked packets bring no CNP back; "
                              f"`echo 1 > /sys/class/net/{nic.name}/ecn/roce_np/enable/{nic_prio}`",
                              (nic_ecn.np_source if nic_ecn else None) or nic.port.source, dscp=dscp)


@register
class LosslessFacingPfcOff(_LinkRule):
    """A port with PFC on for a lossless priority faces a port where PFC is off.

    ## What it checks
    On every link where one end has PFC on for a policy lossless priority, the other end's PFC is
    not off altogether. The finding is on the end with PFC off (often a port nobody configured for
    RoCE, such as a forgotten uplink or a NIC left at its defaults).

    ## Why it matters
    The lossless end sends pauses nobody obeys and ignores nothing because nothing is sent: every
    RoCE packet crossing this cable in either direction can be dropped under congestion, and the
    per-device checks do not see it because the PFC-off port is not configured as RoCE-facing.

    ## Failing example
    `leaf1:Ethernet48` `pfc_enable: "3"` facing `spine1:Ethernet1/1` with no
    `priority-flow-control on`: `PFC is off here, on for priority 3 at leaf1:Ethernet48`.

    ## Passing example
    Both ends `priority-flow-control priority 3 no-drop` / `pfc_enable: "3"`.

    ## Fix
    Enable PFC on the lossless priorities at the end the message names.
    """

    code = "LNK005"
    name = "lossless-facing-pfc-off"
    severity = Severity.error

    def check_link(self, ctx: Context, link: Link, a: End, b: End) -> Iterator[Finding]:
        for off, on in ((a, b), (b, a)):
            lossless = sorted(set(on.view.pfc_enabled or ()) & set(ctx.lossless))
            if off.view.pfc_enabled == () and lossless:
                yield self.on(link, off, on, "pfc-off", f"PFC is off here, on for {priorities(lossless)} at {on}; "
                              f"RoCE crossing this cable is lossy; enable PFC on {priorities(lossless)} here",
                              off.port.pfc_source or off.port.source, lossless=lossless)


class _TopologyIssueRule(Rule):
    """Reports what the topology loader could not make into a link (Fabric.topology_issues with this code)."""

    scope = "fabric"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for issue in ctx.fabric.topology_issues:
            if issue.code == self.code:
                yield self.finding(issue.message, device=issue.devices[0] if issue.devices else None, port=issue.port,
                                   source=issue.source, key=issue.key, devices=issue.devices,
                                   severity=Severity(issue.severity) if issue.severity else None)


@register
class UnknownEndpoint(_TopologyIssueRule):
    """A link names a device or port that is not among the linted inputs.

    ## What it checks
    Every link of the topology file, every routing-table or LLDP file it names, and every neighbour
    a device reports (LLDP, SONiC DEVICE_NEIGHBOR) names a device that was linted and a port that
    device has. Device names are matched with or without a domain and in any case; ports by name,
    EOS short name (`Et1`) or SONiC alias (`etp1`). A topology link to an unknown device or port is
    an error; a reported neighbour on an unknown port a warning (a port of the far device, or of the
    reporting device when the far one was linted: a management port's out-of-band switch is not
    said); a reported neighbour outside the linted devices, or sent without a usable port name, an
    info (only when a topology file is given: without one, the fabric is whatever was linted).

    ## Why it matters
    A link that cannot be placed is a link whose two ends are never compared and a path that is
    never followed: a typo in the topology silently removes a cable from every fabric check.

    ## Failing example
    `- leaf1:Ethernet100 <-> spine1:Ethernet1/1` where leaf1 has no Ethernet100:
    `topology.yaml:3: leaf1 has no port Ethernet100 in its input`.

    ## Passing example
    Every link names ports present in the device inputs.

    ## Fix
    Correct the name in the topology file, or add the missing device's config to the lint.
    """

    code = "LNK006"
    name = "unknown-endpoint"
    severity = Severity.error


@register
class DuplicateLink(_TopologyIssueRule):
    """A link is listed twice, or one port is on two links.

    ## What it checks
    In the topology file, no cable is listed twice (warning; the copy is ignored) and no port is an
    end of two different links (error; the second is ignored).

    ## Why it matters
    A port takes one cable. A port on two links is a typo that hides the real cable: the checks run
    against a peer that is not there.

    ## Failing example
    `leaf1:Ethernet48 <-> spine1:Ethernet1/1` and `leaf1:Ethernet48 <-> spine2:Ethernet1/1`:
    `leaf1:Ethernet48 is on two links`.

    ## Passing example
    Each port appears in one link.

    ## Fix
    Remove the duplicate, or correct the port of the second link.
    """

    code = "LNK007"
    name = "duplicate-link"
    severity = Severity.error


@register
class AsymmetricNeighbors(_TopologyIssueRule):
    """The two ends of a cable, or the topology file and a device, disagree about what is connected.

    ## What it checks
    Every neighbour a device reports (LLDP, SONiC DEVICE_NEIGHBOR) agrees with the topology file
    and with what the far end reports: A says B, so B must not say C. A port reporting two
    different neighbours is reported too. The disagreeing reports are not used as links.

    ## Why it matters
    Disagreeing accounts mean miscabling, stale LLDP data, or a topology file that no longer
    matches the fabric. Either way the link checks and path analysis would compare the wrong
    ports.

    ## Failing example
    gpu01's LLDP says its port faces `leaf1:Ethernet0`, but leaf1's `DEVICE_NEIGHBOR|Ethernet0`
    names `gpu02`: `gpu01:enp65s0f0np0 reports neighbour leaf1:Ethernet0, but leaf1:Ethernet0
    reports gpu02:enp65s0f0np0`.

    ## Passing example
    Both ends name each other, and the topology file lists the same cable.

    ## Fix
    Check the cabling; then correct the topology file or the device's DEVICE_NEIGHBOR table.
    """

    code = "LNK008"
    name = "asymmetric-neighbors"
    severity = Severity.error


@register
class TopologyEntryInvalid(_TopologyIssueRule):
    """An entry of the topology file cannot be read.

    ## What it checks
    Every link is written `device:port <-> device:port`, every tier is a whole number 0-9 for a
    linted device, and every `routes:`/`lldp:` entry names a file. (A file that is not YAML, or
    has an unknown top-level key, stops the lint with a usage error instead.)

    ## Why it matters
    An entry that cannot be read is left out: the fabric checks run without that cable or tier.

    ## Failing example
    `- leaf1 Ethernet0 -> spine1`: `cannot read link 'leaf1 Ethernet0 -> spine1': expected
    device:port <-> device:port`.

    ## Passing example
    `- leaf1:Ethernet48 <-> spine1:Ethernet1/1`.

    ## Fix
    Correct the entry at the line given.
    """

    code = "LNK009"
    name = "topology-entry-invalid"
    severity = Severity.warning
