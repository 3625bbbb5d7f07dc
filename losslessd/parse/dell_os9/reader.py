"""Read an OS9 running-config's DCB parts (DCB maps, 802.1p trust, interfaces) and build the model from them.

Command syntax and meaning: Dell Networking OS9 Configuration Guide (9.x), "Data Center Bridging (DCB)" and
"Quality of Service", and the OS9 Command Line Reference ("flowcontrol", "ip mtu"), cited per command below.
"""

from __future__ import annotations

import re
from dataclasses import field

from ...lazyre import lazy
from ...limits import MAX_RANGE_PORTS
from ...model import Device, DeviceKind, LinkPause, ParseIssue, Port, PriorityGroup, Source, Trust
from ...records import record
from ...units import is_digits
from ..base import Input, IssueList, check_expanded, host_name, port_slot
from ..clitext import (
    Issues,
    LineError,
    Node,
    TreeReader,
    Val,
    bounded_int,
    check_config_text,
    config_session,
    layer3_line,
    outdent_interface_lines,
    routed_vlans,
)
from . import _PORT_TYPES as _FRONT_PANEL
from . import PLATFORM, flat, interface_type, port_type

_OS9_LINE = lazy(r"^\s*(!|(hostname|interface|dcb-map|dcb|service-class|protocol|boot|logging|username|"
                 r"stack-unit|router|ip|management|snmp-server|ntp|line|end)(\s|$))")
# The lossless settings the reader reads on a port (or names there as not read): under an interface of another
# type (`fiftyGigE`, `port-channel`) they were passed over without a word with the rest of its block.
_PORT_DCB_WORDS = frozenset({"dcb-map", "service-class", "flowcontrol", "pfc", "dcb-policy", "dcb-input",
                             "dcb-output", "priority-flow-control"})
_UNIT_PORT = lazy(r"^[0-9]{1,2}/[0-9]{1,3}(?:/[0-9]{1,2})?$", re.ASCII)
# A port named with its type and unit/port joined (`te0/1`, `TenGigabitEthernet0/1`: Cisco IOS's form).
_JOINED = lazy(r"^[A-Za-z-]+[0-9]{1,2}/[0-9]{1,3}(?:/[0-9]{1,2})?$", re.ASCII)
PRIORITIES = range(8)
# The largest link MTU an OS9 platform takes (`mtu`: the S5000 and MXL Command Line References, 594 to 12000) and the
# largest IP MTU (`ip mtu`: 576 to 9234; S4810 Configuration Guide, "Configure MTU Size on an Interface": a link MTU of
# 12000 bytes and a maximum IP MTU of 9234 bytes).
_LINK_MTU_MAX = 12000
_IP_MTU_MAX = 9234
# One item of an `interface range` or a `channel-member` line: unit/port (or unit/port/subport) and an optional far
# end on the same unit (or port), the blanks around its dash dropped (`0/2 - 4`, `0/9-10`, `0/0-31`, `0/1-0/4`).
_RANGE_ITEM = lazy(r"^(?P<head>[0-9]{1,2}/(?:[0-9]{1,3}/)?)(?P<port>[0-9]{1,3})"
                   r"(?:-(?:(?P=head))?(?P<last>[0-9]{1,3}))?$", re.ASCII)


# An item's type joined to its unit/port (`te1/2`, `Te1/1-4`): the type's letters, then the number
_TYPE_JOINED = lazy(r"^([A-Za-z-]+)([0-9].*)$", re.ASCII)


def _joined(word: str) -> tuple[str, str] | None:
    """A range item written with its type joined (`te1/2`, `Te1/1-4`) as its type and number, else None."""
    joined = _TYPE_JOINED.match(word)
    return (joined[1], joined[2]) if joined and port_type(joined[1]) else None


def _range_ports(text: str) -> list[str] | None:
    """The ports an `interface range` names, as OS9 names them; None when an item is no front-panel port or range.
    Dell OS9 sessions as switches print them (an S4810's `interface range tengigabitethernet 0/32 , tengigabitethernet
    0/33` entering `(conf-if-range-te-0/32,te-0/33)`, `interface range tengigabitethernet 0/9-10` entering
    `(conf-if-range-te-0/9-10)`, `interface range tengigabitethernet 0/2 - 4`): comma-separated items, each a type
    (abbreviated as OS9 takes it: port_type) and unit/port or a range of ports on one unit. LineError for a range that
    runs backwards or names more than MAX_RANGE_PORTS ports (limits.py). An item's type may be joined to its number
    (`te1/2`): an S4048-ON session's `int range te1/2,te1/7` entered `(conf-if-range-te-1/2,te-1/7)#`, the switch
    writing each item back with its type (an Open vSwitch course's LACP steps, session 42 review r2). An item without
    its type (`Te1/1,2,3,4`: is `2` port 1/2?) is in no OS9 reference read: None."""
    out: list[str] = []
    for item in text.split(","):
        words = item.split()
        joined = _joined(words[0]) if words and port_type(words[0]) is None else None
        if joined:
            words = [*joined, *words[1:]]
        kind = port_type(words[0]) if words else None
        m = _RANGE_ITEM.match("".join(words[1:])) if kind else None
        if m is None:
            return None
        first, last = int(m["port"]), int(m["last"] or m["port"])
        if not 0 < last - first + 1 <= MAX_RANGE_PORTS:
            raise LineError(f"{item.strip()[:40]!r} is not a port range (its end is before its start, or it names "
                            f"more than {MAX_RANGE_PORTS:,} ports)")
        out.extend(f"{kind} {m['head']}{n}" for n in range(first, last + 1))
    return out


@record
class DcbMap:
    """`dcb-map NAME`: per priority group `pfc on|off` with a bandwidth share or strict priority, and `priority-pgid`,
    the priority group of each 802.1p priority 0-7."""

    source: Source
    groups: dict[int, Val] = field(default_factory=dict)  # PG -> value (pfc on?, strict?, bandwidth % or None)
    pgid: Val | None = None  # value list[int], the PG of dot1p 0..7
    unread: Source | None = None  # a line of the map not read (a SYS002 names it): which priorities pause is unknown


@record
class InterfaceConf:
    source: Source
    description: str | None = None
    admin_up: Val | None = None
    ip_mtu: Val | None = None
    link_mtu: Val | None = None  # `mtu N`: the frame, Layer 2 header and FCS included (_ip_mtu)
    dcb_map: Val | None = None
    trust_dot1p: Val | None = None  # `service-class dynamic dot1p` on the interface
    rx: Val | None = None  # `flowcontrol rx on|off tx on|off`
    tx: Val | None = None
    routed: Val | None = None  # `[no] switchport` (clitext.routed_port)
    l3_address: Source | None = None  # the first `ip address` / `ipv6 address` line (not OS9's default `no ip address`)
    dot1q: Source | None = None  # `encapsulation dot1q V`: a lite subinterface, routed tagged
    lacp_channel: Val | None = None  # `port-channel N mode active|passive` under `port-channel-protocol lacp`: N
    speed: Val | None = None  # `speed N|auto`: Gb/s, None for auto (negotiated)


@record
class Os9Config:
    hostname: str | None = None
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    dcb_maps: dict[str, DcbMap] = field(default_factory=dict)
    trust_dot1p: Val | None = None  # global `service-class dynamic dot1p`
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    portmode_speed: Source | None = None  # a `stack-unit U port P portmode ... speed S` line
    # `interface Port-channel N` by N: its Layer 3 lines (routed_port) and its `channel-member` ports (port -> line)
    port_channels: dict[str, InterfaceConf] = field(default_factory=dict)
    channel_members: dict[str, dict[str, Source]] = field(default_factory=dict)
    issues: list[ParseIssue] = field(default_factory=IssueList)


def read(inputs: list[Input]) -> Os9Config:
    cfg = Os9Config()
    for inp in inputs:
        # A configuration-mode session with its prompts (`DellEMC(conf-if-te-1/1)# flowcontrol rx on tx on`): its
        # commands nested by the modes the prompts name, the session's output and refused commands blanked.
        session = config_session(inp.text, " ", inp.path, cfg.issues, platform=PLATFORM)
        if session is not None:
            inp = Input(inp.path, session)
        check_config_text(inp, "Dell OS9", _OS9_LINE, "`interface`, `hostname`, `dcb-map` or `!`")
        _Reader(cfg, inp, session=session is not None).read()
    return cfg


class _Reader(TreeReader):
    expanded = 0  # port lines the `interface range` lines expanded to (ports x lines), against MAX_EXPANDED_PORTS
    # The commands the reader reads that open no mode (clitext.TreeReader.is_wrapped): an interface's and a DCB map's.
    leaf_words = frozenset({"description", "shutdown", "ip", "mtu", "flowcontrol", "pfc", "dcb-policy", "dcb-input",
                            "dcb-output", "priority-flow-control", "dcb-map", "priority-group", "priority-pgid",
                            "service-class"})

    def config_text(self) -> str:
        """A paste whose indentation was lost is read nested as OS9 reads it (flat.renest); an `interface` line typed
        indented goes to the margin: a CONFIGURATION mode command (OS9 Command Line Reference, `interface`) no
        sub-mode takes, which OS9 runs whatever its leading blanks (sonic-mgmt's S6100 fanout template writes an
        indented `interface Vlan 101` and its `no shutdown` inside each port's block: they set the port above it)."""
        return outdent_interface_lines(flat.renest(self.inp.text),
                                       lambda w: len(w) > 1 and interface_type(w[1]) is not None)

    def top(self, node: Node) -> None:
        w = node.words
        cfg = self.cfg
        if w[0] == "hostname" and len(w) == 2:
            host_name(cfg.host_names, w[1], self.src(node))
            cfg.hostname = w[1]
        elif w[0] == "stack-unit" and "portmode" in w and "speed" in w:
            cfg.portmode_speed = self.src(node)  # (a port's speed set apart from its type: _speed)
        elif w[:2] == ["interface", "range"] and any(port_type(word) or _joined(word.split(",")[0])
                                                     for word in w[2:]):
            names = _range_ports(" ".join(w[2:]))
            if names is None:
                item = next(i.strip() for i in " ".join(w[2:]).split(",") if _range_ports(i) is None)
                if is_digits(item[:1]):  # (`Te1/1,2,3,4`, `tengigabitethernet 1/2,8,14`)
                    raise LineError(f"`{item[:40]}` has no port type: whether OS9 reads a number after a comma as a "
                                    "port of the item before it (and which) is in no OS9 reference read, so none of "
                                    "the range's settings is read (OS9 writes each item with its type: `interface "
                                    "range tengigabitethernet 1/2 , tengigabitethernet 1/8`)")
                end = item.rpartition("-")[2].split()
                if "-" in item and end and (port_type(end[0]) or _joined(end[0])):  # (`te1/2-te1/4`)
                    raise LineError(f"`{item[:40]}` names a port type after the dash: whether OS9 takes a range "
                                    "written so (and which ports it names) is in no OS9 reference read, so none of "
                                    "the range's settings is read (OS9 writes the range's end as a number: `interface "
                                    "range tengigabitethernet 1/2 - 4`)")
                raise LineError(f"`{item[:40]}` is no front-panel port or range of them: what OS9 does with the lines "
                                "under a range that holds a VLAN or port-channel (or an item it cannot take) is in no "
                                "OS9 reference read, so none of the range's settings is read (OS9 writes `interface "
                                "range tengigabitethernet 0/1 - 4 , tengigabitethernet 0/8`)")
            self.expanded += len(names) * (1 + len(node.children))
            check_expanded(self.expanded, self.inp.path, node.line)  # bounded time: each range may name 1,024 ports
            for name in names:  # each port the range names takes its lines (a configuration-mode paste)
                conf = port_slot(cfg.interfaces, name, lambda: InterfaceConf(source=self.src(node)), self.src(node))
                self.each(node.children, lambda child, conf=conf, name=name: self.interface_line(child, conf, name))
        elif w[0] == "interface" and len(w) == 3 and (kind := port_type(w[1])) and _UNIT_PORT.match(w[2]):
            name = f"{kind} {w[2]}"  # as OS9 names it, in its own output and LLDP
            conf = port_slot(cfg.interfaces, name, lambda: InterfaceConf(source=self.src(node)), self.src(node))
            self.each(node.children, lambda child: self.interface_line(child, conf, name))
        elif w[0] == "interface" and ((len(w) == 3 and _UNIT_PORT.match(w[2]) and interface_type(w[1]) is None)
                                      or (len(w) == 2 and _JOINED.match(w[1]))
                                      # (`interface fortyGigE 1/1-1/4`: a range without `range`, or a port's number
                                      # cut or garbled; the block was passed over in silence, its dcb-map with it)
                                      or (len(w) >= 3 and port_type(w[1]) is not None)):
            raise LineError("cannot tell which port this names (OS9 writes the type, a blank and unit/port, as "
                            "`interface TenGigabitEthernet 0/1` or `interface te 0/1`): the settings under it are not "
                            "read")
        elif w[0] == "interface" and len(w) == 3 and interface_type(w[1]) == "port-channel" and is_digits(w[2]):
            conf = cfg.port_channels.setdefault(w[2], InterfaceConf(source=self.src(node)))
            members = cfg.channel_members.setdefault(w[2], {})
            self.each(node.children, lambda child: self.channel_line(child, conf, members))
            self.dcb_elsewhere(node, "port-channel")
        elif w[0] == "interface" and len(w) == 3 and (kind := interface_type(w[1])) and kind not in _FRONT_PANEL:
            self.dcb_elsewhere(node, kind)
        elif w[0] == "dcb-map":
            if len(w) != 2:
                raise LineError("expected `dcb-map NAME`")
            dcb = cfg.dcb_maps.setdefault(w[1], DcbMap(source=self.src(node)))
            # a map line not read may be a group's `pfc on` or the priority mapping: the ports the map is applied to
            # read PFC unknown rather than off
            self.each(node.children, lambda child: self.dcb_line(child, dcb),
                      lambda child: setattr(dcb, "unread", dcb.unread or self.src(child)))
        elif w == ["service-class", "dynamic", "dot1p"]:
            cfg.trust_dot1p = Val(True, self.src(node))

    def dcb_elsewhere(self, node: Node, kind: str) -> None:
        """An interface of a type other than a front-panel port's with a DCB line under it is named at its `interface`
        line (a loopback, VLAN or port-channel block without one carries no lossless setting: passed over)."""
        dcb = next((c for c in node.children if c.words[0] in _PORT_DCB_WORDS), None)
        if dcb is not None:
            self.garbled(node, f"interface {kind} {node.words[2]} carries `{dcb.text.strip()}` (line {dcb.line}), "
                               "which losslessd reads on the Ethernet port types of the OS9 Configuration Guide's "
                               f"\"Interfaces\" ({', '.join(_FRONT_PANEL)}) only: the lossless settings under it are "
                               "not read or checked")

    def channel_line(self, node: Node, conf: InterfaceConf, members: dict[str, Source]) -> None:
        """A line of `interface Port-channel N`. OS9 Configuration Guide, "Port Channel Interfaces": `[no]
        channel-member INTERFACE` in INTERFACE PORT-CHANNEL mode adds (removes) a static member, and the port channel's
        configuration (Layer 2 `switchport`, or Layer 3 by an address) is its members'."""
        w = node.words
        body = w[1:] if w[:1] == ["no"] else w
        if body[:1] == ["channel-member"]:
            names = self.member_names(body[1:])
            for name in names:
                if w[0] == "no":
                    members.pop(name, None)
                else:
                    members[name] = self.src(node)
        else:
            layer3_line(conf, w, self.src(node))

    def member_names(self, words: list[str]) -> list[str]:
        """The ports a `channel-member TYPE unit/port[-last][,...]` line names, as OS9 names them: a range adds each
        port from the first to the last on the unit (Dell Networking OS9 user guide, "1GbE and 10GbE Interfaces in
        Port Channels": `channel-member tengigabitethernet 0/1-4` adds TenGig 0/1, 0/2, 0/3 and 0/4)."""
        # (an `interface range`'s items, the type written once: _range_ports)
        names = _range_ports(",".join(f"{words[0]} {n}" for n in words[1].split(","))) if len(words) == 2 else None
        if names is None:
            raise LineError("expected `channel-member TYPE unit/port` or a range `TYPE unit/first-last` (a front-panel "
                            "port such as `TenGigabitEthernet 0/1`): which ports are members of the port channel is "
                            "not read")
        return names

    def lacp_line(self, node: Node, conf: InterfaceConf) -> None:
        """OS9 Configuration Guide, "Link Aggregation Control Protocol (LACP)": in LACP mode `port-channel N mode
        active|passive|off`; off keeps the port out of any dynamic port channel (as its `no` form does)."""
        w = node.words
        if w[:1] == ["port-channel"]:
            if len(w) != 4 or w[2] != "mode" or w[3].lower() not in ("active", "passive", "off"):
                conf.lacp_channel = None
                raise LineError("expected `port-channel N mode active|passive|off`: the port's LACP port channel is "
                                "not read")
            number = str(bounded_int(w[1], 1, 4096, "the port-channel number"))
            conf.lacp_channel = Val(number, self.src(node)) if w[3].lower() != "off" else None
        elif w[:2] == ["no", "port-channel"]:
            conf.lacp_channel = None

    def dcb_line(self, node: Node, dcb: DcbMap) -> None:
        """OS9 Configuration Guide, "DCB Map: Configuration Procedure": `priority-group N {bandwidth P |
        strict-priority} pfc {on | off}` (PG 0-7, bandwidth 1-100 %) and `priority-pgid` with the PG of each dot1p
        priority 0-7."""
        w = node.words
        if w[0] == "priority-group":
            if not (len(w) in (5, 6) and w[-2] == "pfc" and w[-1] in ("on", "off")
                    and (w[2:4] == ["strict-priority", "pfc"] if len(w) == 5 else w[2] == "bandwidth")):
                raise LineError("expected `priority-group N bandwidth P pfc on|off` or `priority-group N "
                                "strict-priority pfc on|off`")
            group = bounded_int(w[1], 0, 7, "the priority group")
            bandwidth = bounded_int(w[3], 1, 100, "the bandwidth percent") if len(w) == 6 else None
            dcb.groups[group] = Val((w[-1] == "on", len(w) == 5, bandwidth), self.src(node))
        elif w[0] == "priority-pgid":
            if len(w) != 9:
                raise LineError("expected `priority-pgid` and the priority group of each 802.1p priority 0-7")
            dcb.pgid = Val([bounded_int(v, 0, 7, "a priority group") for v in w[1:]], self.src(node))
        elif w[:2] == ["no", "priority-pgid"]:
            dcb.pgid = None
        else:
            raise LineError("not a dcb-map command losslessd knows")

    def interface_line(self, node: Node, conf: InterfaceConf, name: str) -> None:
        w = node.words
        src = self.src(node)
        if w[0] == "description":
            conf.description = node.text[len("description"):].strip()
        elif w in (["shutdown"], ["no", "shutdown"]):
            conf.admin_up = Val(w[0] == "no", src)
        elif w[:2] == ["encapsulation", "dot1q"]:
            # OS9 Command Line Reference, `encapsulation dot1q`: a lite subinterface, a Layer 3 port that routes
            # frames tagged with the VLAN ID
            conf.dot1q = src
        elif w[:2] == ["ip", "mtu"]:
            # OS9 Command Line Reference, `ip mtu`: the IP MTU, 576-9234 bytes.
            conf.ip_mtu = Val(bounded_int(w[2] if len(w) == 3 else "", 576, _IP_MTU_MAX, "the IP MTU"), src)
        elif w[0] == "mtu":
            # OS9 Command Line Reference, `mtu`: the link MTU (the frame). Its range differs by platform in Dell's
            # guides and the config does not name the platform, so the widest: from 592 (S4048-ON Administrator
            # Guide, "Configure the MTU Size on an Interface": 592 to 9216; C9000 Series Command Line Reference: 594)
            # to 12000 (S5000 Command Line Reference, `mtu`: 594 to 12000; MXL Command Line Reference, `mtu`: MXL
            # 594 to 12000; S6000 Reference Guide: 592-12000; the FN I/O Aggregator Configuration Guide 9.6 prints
            # `mtu 12000` in its default port configuration)
            conf.link_mtu = Val(bounded_int(w[1] if len(w) == 2 else "", 592, _LINK_MTU_MAX, "the link MTU"), src)
        elif w[0] == "speed":
            # FTOS/OS9 Configuration Guide, "Setting Speed and Duplex Mode of Ethernet Interfaces": `speed {100 | 1000
            # | 10000 | auto}` in Mb/s (auto: negotiated, so unknown here); 10 from the S3048-ON and S4048-ON Command
            # Line References, `negotiation auto` ("manually set the speed of a port to 10Mbits or 100Mbits"); and
            # the speed the port's type names (OS9 Configuration Guide, "Interfaces"; _TYPE_GBPS). No OS9 reference
            # read lists another value for the S4048-ON, S6000, Z9100-ON or S5048F-ON.
            conf.speed = Val(None, src)  # (a line not read: unknown, not the type's)
            if len(w) != 2:
                raise LineError("expected `speed N` (Mb/s) or `speed auto`")
            own = _TYPE_GBPS.get(name.split(" ", 1)[0])
            listed = ("10", "100", "1000", "10000") + ((f"{own * 1000:.0f}",) if own else ())
            if w[1] != "auto" and w[1] not in listed:
                raise LineError(f"no OS9 reference losslessd read lists this speed on {name} (they list "
                                f"{', '.join(listed)} Mb/s or auto): whether the switch runs the port at it or "
                                "refuses the line is not known, so its speed is unknown")
            conf.speed = Val(int(w[1]) / 1000 if w[1] != "auto" else None, src)
        elif w[0] == "dcb-map":
            if len(w) != 2:
                raise LineError("expected `dcb-map NAME`")
            conf.dcb_map = Val(w[1], src)
        elif w[:2] == ["no", "dcb-map"]:
            conf.dcb_map = None
        elif w == ["service-class", "dynamic", "dot1p"]:
            conf.trust_dot1p = Val(True, src)
        elif layer3_line(conf, w, src):
            pass  # (OS9 Configuration Guide, "Interfaces": `no switchport` leaves Layer 2 mode; `ip address` routes)
        elif [x.lower() for x in w] == ["port-channel-protocol", "lacp"]:
            # OS9 Configuration Guide, LACP: INTERFACE mode `[no] port-channel-protocol lacp` enters LACP mode
            self.each(self.enter(node.children), lambda child: self.lacp_line(child, conf))
        elif [x.lower() for x in w] == ["no", "port-channel-protocol", "lacp"]:
            conf.lacp_channel = None
        elif w[0] == "flowcontrol":
            # OS9 Command Line Reference, `flowcontrol rx {off | on} tx {off | on} [pause-threshold ...]`.
            if len(w) < 5 or w[1] != "rx" or w[3] != "tx" or w[2] not in ("on", "off") or w[4] not in ("on", "off"):
                raise LineError("expected `flowcontrol rx on|off tx on|off`")
            conf.rx, conf.tx = Val(w[2] == "on", src), Val(w[4] == "on", src)
        elif w[0] in ("pfc", "dcb-policy", "dcb-input", "dcb-output", "priority-flow-control"):
            raise LineError("PFC outside a DCB map (`pfc priority`, DCB input/output policies) is not read: the "
                            "port's PFC priorities are unknown")


def build(cfg: Os9Config, platform: str, name: str, path: str) -> Device:
    device = Device(name=cfg.hostname or name, kind=DeviceKind.switch, platform=platform,
                    issues=list(cfg.issues), source=Source(file=path))
    issues = Issues(device.issues)
    static = {port: number for number, members in cfg.channel_members.items() for port in members}
    for port_name, iface in cfg.interfaces.items():
        port = device.ports[port_name] = _port(cfg, port_name, iface, issues)
        # OS9 Configuration Guide, "Port Channel Interfaces": a port is a member of one port channel, static
        # (`channel-member` under it) or by LACP (`port-channel N mode active|passive`), which it takes the port
        # channel's configuration from: a member of a Layer 3 port channel routes untagged
        number = static.get(port_name) or (iface.lacp_channel.value if iface.lacp_channel else None)
        if number is not None:
            port.bundle = f"Port-channel {number}"
            channel = cfg.port_channels.get(number)
            if port.vlans is None and channel is not None and iface.dot1q is None:
                port.vlans = routed_vlans(channel)
    return device


def _ip_mtu(iface: InterfaceConf) -> int | None:
    """The IP MTU: `ip mtu` where written; else, since 9.2(0.2), which computes it and no longer takes `ip mtu`, the
    link MTU less the Layer 2 overhead of the port's frames (OS9 Command Line Reference, `mtu`: 18 bytes untagged,
    22 with a VLAN tag), at most _IP_MTU_MAX. Known for a routed port (untagged) and a lite subinterface (tagged); on
    a switched port whether its frames carry a tag is not read, so it is unknown."""
    if iface.ip_mtu is not None:
        return iface.ip_mtu.value
    if iface.link_mtu is None:
        return None
    if iface.dot1q is not None:
        return min(iface.link_mtu.value - 22, _IP_MTU_MAX)
    return min(iface.link_mtu.value - 18, _IP_MTU_MAX) if routed_vlans(iface) == [] else None


# The speed an interface type runs at (OS9 Configuration Guide, "Interfaces": the type names the port's Ethernet speed;
# a 40G port split by `stack-unit U port P portmode quad` becomes four TenGigabitEthernet ports). TenGigabitEthernet
# and GigabitEthernet are left out: on 100/1000/10000 Base-T ports speed is auto-negotiated by default (FTOS
# Configuration Guide, "Auto-Negotiation on Ethernet Interfaces"), and the config does not say which ports are Base-T.
_TYPE_GBPS = {"twentyFiveGigE": 25.0, "fortyGigE": 40.0, "hundredGigE": 100.0}


def _speed(cfg: Os9Config, name: str, iface: InterfaceConf) -> float | None:
    """The port's link speed: its `speed` line (auto: unknown), else its type's (_TYPE_GBPS), unless a `stack-unit ...
    portmode ... speed` line sets a port's speed apart from its type (Z9100-ON: whether the port is renamed is not in
    a source read, so every type-named speed is then unknown)."""
    if iface.speed is not None:
        return iface.speed.value
    return None if cfg.portmode_speed is not None else _TYPE_GBPS.get(name.split(" ", 1)[0])


def _port(cfg: Os9Config, name: str, iface: InterfaceConf, issues: Issues) -> Port:
    port = Port(name=name, description=iface.description, source=iface.source,
                admin_up=iface.admin_up.value if iface.admin_up else None,
                mtu_bytes=_ip_mtu(iface), speed_gbps=_speed(cfg, name, iface),
                qos_configured=iface.dcb_map is not None,
                # OS9 Configuration Guide, "Interfaces": a port with an address (or `no switchport`) is in Layer 3
                # mode and routes untagged, unless `encapsulation dot1q` makes it a lite subinterface
                vlans=routed_vlans(iface, tagged=iface.dot1q is not None))
    # The traffic class is the 802.1p priority itself: OS9's DCB runs PFC per dot1p priority, and the platform's
    # dot1p -> queue table differs by model (OS9 Configuration Guide, "Data Center Bridging: Default Configuration",
    # `show qos dot1p-queue-mapping`), so the queue is not known from the config.
    port.tc_names = {p: f"dot1p {p}" for p in PRIORITIES}
    trust = iface.trust_dot1p or cfg.trust_dot1p
    if trust is not None:  # OS9 Configuration Guide, "Honor dot1p": `service-class dynamic dot1p`
        port.trust, port.trust_source = Trust.pcp, trust.source
        port.pcp_to_tc = {p: p for p in PRIORITIES}
        port.map_source = trust.source
    if iface.rx is not None:
        port.link_pause = LinkPause(rx=iface.rx.value, tx=iface.tx.value if iface.tx else None, source=iface.rx.source)
    bound = iface.dcb_map
    if bound is None:
        # OS9 Configuration Guide, DCB default configuration: no default PFC and ETS settings are applied to Ethernet
        # interfaces; PFC is not applied on any 802.1p priority.
        port.pfc_enabled, port.pfc_source = [], iface.source
        return port
    dcb = cfg.dcb_maps.get(bound.value)
    if dcb is None:
        issues.add_once(ParseIssue(code="SYS002", source=bound.source, message=(
            f"dcb-map {bound.value} is not defined in this config: the PFC priorities of the ports it is applied to "
            "are unknown")))
        return port
    if dcb.unread is not None:  # a line of the map was not read (a SYS002 says why): what it pauses is unknown
        port.pfc_source = dcb.unread
        return port
    if dcb.pgid is None:
        # OS9 Configuration Guide, "Important Points to Remember": without the priority-to-priority-group mapping the
        # PFC and ETS parameters revert to their defaults (PFC on no 802.1p priority).
        port.pfc_enabled, port.pfc_source = [], dcb.source
        return port
    pfc_on = [p for p in PRIORITIES if (g := dcb.groups.get(dcb.pgid.value[p])) is not None and g.value[0]]
    port.pfc_enabled, port.pfc_source = pfc_on, bound.source
    port.tc_to_priority = {p: p for p in pfc_on}
    # The switch sizes the lossless buffer of each PFC priority itself (OS9 Configuration Guide, "Configuring
    # Lossless Queues" / `dcb enable pfc-queues`); the model names that PG by its priority.
    port.tc_to_pg = {p: p for p in pfc_on}
    for p in pfc_on:
        port.priority_groups[p] = PriorityGroup(index=p, runtime_profile=True, source=dcb.pgid.source)
    return port
