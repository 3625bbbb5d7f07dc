"""Read an OS10 running-configuration into its QoS parts (maps, class-maps, policy-maps, WRED profiles, `system qos`,
interfaces), each with its line.

OS10 indents sub-commands by one space per level; `!` lines are comments. QoS lines that cannot be read become
SYS002 issues; lines that are not about QoS are skipped. Command syntax: Dell SmartFabric OS10 User Guide (10.4-10.5),
"Quality of service" and "Interfaces" chapters (cited per command below).
"""

from __future__ import annotations

import functools
import re
from dataclasses import field

from ... import units
from ...lazyre import lazy
from ...limits import MAX_RANGE_PORTS
from ...model import ParseIssue, Source
from ...records import record
from ..base import Input, IssueList, check_expanded, port_slot
from ..clitext import (
    COMMENT,
    SUBINTERFACE,
    LineError,
    Node,
    SwitchportConf,
    TreeReader,
    Val,
    bounded_int,
    check_config_text,
    command_body,
    config_session,
    dscp_values,
    flowcontrol_line,
    is_flat,
    layer3_line,
    may_set_ecn,
    other_port_qos,
    renest,
    subinterface_line,
    subinterface_parents,
    switchport_line,
)
from . import PLATFORM

# Top-level words of an OS10 running-configuration; a file with none of them is not one.
_OS10_LINE = lazy(r"^\s*(!|(hostname|interface|class-map|policy-map|system|trust|qos-map|wred|dcbx|lldp|ip|"
                  r"ipv6|router|vlt-domain|username|system-user|spanning-tree|ntp|snmp-server|logging|aaa|"
                  r"management|iscsi|end)(\s|$))")
# `ethernet1/1/1`, `ethernet1/1/1:2` (a breakout sub-port), as the running-configuration names them; `ethernet
# 1/1/1` (with a blank) as configuration mode takes it (OS10 User Guide, "Interface range": `interface range ethernet
# 1/1/1-1/1/4`), and `Ethernet 1/1/1` as OS10's own `show interface` output names the port and configuration
# generators copy it (the keyword's case is not the port's name: the port is ethernet1/1/1 either way).
_PORT = lazy(r"^(?:ethernet ?)?([0-9]{1,3})/([0-9]{1,3})/([0-9]{1,3})(?::([0-9]{1,2}))?$",
             re.ASCII | re.IGNORECASE)
_PORT_CHANNEL = lazy(r"^port-channel ?([0-9]{1,4})$", re.ASCII)
# An interface named node/slot/port with another word than `ethernet` (`eth1/1/1`, `Eth 1/1/1`, `te1/1/1`; the
# management port `mgmt1/1/1` aside): a port, but which one OS10 makes of the word is not in a source read.
_PORT_LIKE = lazy(r"^(?!mgmt)[A-Za-z-]+ ?[0-9]{1,3}/[0-9]{1,3}/[0-9]", re.ASCII | re.IGNORECASE)
# OS10 User Guide, "Breakout interfaces": `interface breakout 1/1/1 map {10g-4x | 25g-4x | 40g-1x | 50g-2x | 100g-1x
# | 400g-1x ...}`: the front-panel port runs as N ports of S Gb/s (ethernet1/1/1:1-4 when N > 1, else ethernet1/1/1).
_BREAKOUT = lazy(r"^([0-9]{1,3})g-([0-9])x$", re.ASCII)
# The interface commands that set a port's QoS (read on ports, named on a subinterface: clitext.subinterface_line)
_IF_QOS = frozenset({"trust-map", "qos-map", "service-policy", "priority-flow-control", "pfc-cos", "ets", "trust",
                     "random-detect", "flowcontrol"})
_NUMBER = lazy(r"^[0-9]{1,9}$", re.ASCII)


@record(frozen=True)
class RawPause:
    """`pause buffer-size B pause-threshold X resume-threshold Y` (KB): the no-drop class's ingress buffer, the fill
    level that sends XOFF and the one that sends XON."""

    buffer_kb: int
    pause_kb: int
    resume_kb: int


@record
class NqClass:
    """A class of a `policy-map type network-qos`: `pause` makes its qos-groups no-drop, `pfc-cos` names the 802.1p
    priorities it pauses."""

    source: Source
    pause: Val | None = None  # value RawPause | None (plain `pause`: the platform's default thresholds)
    pfc_cos: Val | None = None  # value list[int]


@record
class QueueConf:
    """A class of a `policy-map type queuing`."""

    source: Source
    bandwidth: Val | None = None  # `bandwidth percent N`
    strict: Val | None = None  # `priority`
    wred: Val | None = None  # `random-detect PROFILE`: value the profile name
    shaped: Source | None = None  # `shape min|max ...`


@record
class Wred:
    """`wred NAME`: per colour `random-detect color C minimum-threshold X maximum-threshold Y drop-probability P` (KB,
    percent) and `random-detect ecn`."""

    source: Source
    colors: dict[str, Val] = field(default_factory=dict)  # colour -> value (kmin KB, kmax KB, probability %)
    ecn: Val | None = None
    unread: Source | None = None  # a line of the profile not read (a SYS002 names it): its marking may be unknown


# A queuing class's `random-detect` line that could not be read: the queue's marking is unknown, not off.
WRED_UNREAD = ""
# A port's or `system qos`'s `service-policy` / `qos-map` binding line not read, of a kind the line still shows: what
# that binding sets is unknown, not the default (no policy, the default queue map).
BINDING_UNREAD = ""


@record
class Bindings:
    """What an interface or `system qos` binds by name: trust maps, the qos-map, the policies."""

    trust_dot1p: Val | None = None  # map name, or "default"
    trust_dscp: Val | None = None
    # `trust-map` lines not read, by the kind they name ("" when none): the trust they would bind is unknown until a
    # later line of that kind (or a bare `no trust-map`) binds it again
    trust_unread: dict[str, Source] = field(default_factory=dict)
    qos_map: Val | None = None
    nq_policy: Val | None = None  # `service-policy input type network-qos NAME`
    queuing_policy: Val | None = None  # `service-policy output type queuing NAME`
    qos_policy: Val | None = None  # `service-policy input type qos NAME` (classification by class-maps: not read)
    ets: Val | None = None  # `ets mode on|off`
    ets_unread: Source | None = None  # an `ets` line not read (a SYS002 names it): how the queues share is unknown


@record
class InterfaceConf:
    source: Source
    bind: Bindings = field(default_factory=Bindings)
    description: str | None = None
    mtu: Val | None = None  # the link MTU as written
    speed: Val | None = None  # Gb/s
    admin_up: Val | None = None
    pfc_mode: Val | None = None  # `priority-flow-control mode on|off`: value bool
    pfc_unread: Source | None = None  # another `priority-flow-control` / `pfc-cos` line not read: the PFC is unknown
    # A port's own `random-detect ...` line (not read, a SYS002 names it): value its words after `random-detect`, the
    # WRED profile it may bind; the ECN marking of the port's queues is unknown, and the profile it names is bound
    wred_unread: Val | None = None
    pause_rx: Val | None = None  # `flowcontrol receive on|off`: value bool (None in a Val: not read)
    pause_tx: Val | None = None  # `flowcontrol transmit on|off`
    channel_group: Val | None = None  # `channel-group N [mode ...]`
    routed: Val | None = None  # `[no] switchport` (clitext.routed_port)
    l3_address: Source | None = None  # the first `ip address` / `ipv6 address` line
    switchport: SwitchportConf = field(default_factory=SwitchportConf)  # its mode and VLAN lines


@record
class Os10Config:
    hostname: str | None = None
    # The ports and port-channels with a subinterface (`interface ethernet1/1/1.100`): tagged, so never untagged routed
    tagged_parents: set[str] = field(default_factory=set)
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    breakouts: dict[str, Val] = field(default_factory=dict)  # "1/1/1" -> (speed Gb/s, ports)
    dot1p_maps: dict[str, Val] = field(default_factory=dict)  # name -> {dot1p: qos-group}, at its `trust` line
    dscp_maps: dict[str, Val] = field(default_factory=dict)  # name -> {dscp: qos-group}
    qos_maps: dict[str, Val] = field(default_factory=dict)  # name -> {qos-group: queue}
    # (kind, name) of a trust map (dot1p, dscp) or qos-map (queue) with a line not read: the map is unknown
    unread_maps: set[tuple[str, str]] = field(default_factory=set)
    nq_class_maps: dict[str, Val] = field(default_factory=dict)  # name -> qos-groups (`match qos-group`)
    queuing_class_maps: dict[str, Val] = field(default_factory=dict)  # name -> queue (`match queue`)
    nq_policies: dict[str, dict[str, NqClass]] = field(default_factory=dict)
    queuing_policies: dict[str, dict[str, QueueConf]] = field(default_factory=dict)
    wreds: dict[str, Wred] = field(default_factory=dict)
    system: Bindings = field(default_factory=Bindings)
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    port_channels: dict[int, InterfaceConf] = field(default_factory=dict)
    issues: list[ParseIssue] = field(default_factory=IssueList)


def read(inputs: list[Input]) -> Os10Config:
    cfg = Os10Config()
    for inp in inputs:
        # A configuration-mode session with its prompts (`sw-leaf-001(conf-range-eth1/1/1-1/1/48)# flowcontrol receive
        # on`, as Dell's guides print their steps): its commands without the prompts at the margin, the session's
        # output and refused commands blanked, then nested by what each command is (flat_interfaces, flat_qos), as a
        # paste that lost its indentation.
        session = config_session(inp.text, "", inp.path, cfg.issues, platform=PLATFORM, nest=renest_paste)
        if session is not None:
            inp = Input(inp.path, session)
        check_config_text(inp, "Dell OS10", _OS10_LINE, "`interface`, `hostname`, `policy-map` or `!`")
        _Reader(cfg, inp, session=session is not None).read()
    return cfg


def _port_name(text: str) -> tuple[int, int, int, int | None] | None:
    m = _PORT.match(text)
    if not m:
        return None
    return int(m[1]), int(m[2]), int(m[3]), (int(m[4]) if m[4] is not None else None)


def _name(node: int, slot: int, port: int, sub: int | None) -> str:
    return f"ethernet{node}/{slot}/{port}" + (f":{sub}" if sub is not None else "")


_RANGE_MARK = lazy(r"[-,]")


def ethernets(words: list[str]) -> list[str]:
    """The ports of `interface ethernet1/1/1` and of `interface range ethernet1/1/1-1/1/8,ethernet1/1/10` (OS10 User
    Guide, "Interface range"), sub-ports too (`ethernet1/1/1:1-1/1/1:4`); [] when it names no Ethernet port,
    LineError for a range that cannot be read, or one written without `range`."""
    joined = " ".join(words)
    if words[:1] == ["range"]:
        words = words[1:]
    elif _RANGE_MARK.search(joined) and _port_name(_RANGE_MARK.split(joined)[0].strip()) is not None:
        # OS10 User Guide: `interface ethernet node/slot/port[:subport]` names one port, and `interface range
        # ethernet ...` a range or list of them. `interface ethernet1/1/1-1/1/32` (a write-up's) is neither: it was
        # read as 32 ports, each with the block's lines.
        raise LineError("`interface ethernet` names one port (OS10 User Guide: a range or list of ports is `interface "
                        "range ethernet 1/1/1-1/1/32`): the switch refuses the line, so its block sets no port")
    out: list[str] = []
    for part in " ".join(words).split(","):
        text = part.strip()
        first, _, last = text.partition("-")
        start = _port_name(first)
        if start is None:
            if out or text.lower().startswith("ethernet") or _PORT_LIKE.match(text):
                raise LineError(f"{text[:40]!r} is not an ethernet port or range")
            return []
        if not last:
            out.append(_name(*start))
            continue
        end = _port_name(last if "/" in last else f"{start[0]}/{start[1]}/{last}")
        if end is None or end[:2] != start[:2] or (start[3] is None) != (end[3] is None) or (
                start[3] is not None and end[2] != start[2]):
            raise LineError(f"{text[:40]!r} is not a port range (its ends must be ports of one slot, both sub-ports "
                            "of one port or neither)")
        lo, hi = (start[3], end[3]) if start[3] is not None else (start[2], end[2])
        if hi is None or lo is None or hi < lo or hi - lo >= MAX_RANGE_PORTS:
            raise LineError(f"{text[:40]!r} is not a port range (its end is before its start, or it names more than "
                            f"{MAX_RANGE_PORTS:,} ports)")
        for n in range(lo, hi + 1):
            out.append(_name(start[0], start[1], n, None) if start[3] is None else _name(*start[:3], n))
    return out


def _list(words: list[str], hi: int, what: str) -> list[int]:
    """`0-2,4,6-7` (OS10 writes lists with commas and ranges) -> numbers 0..hi; LineError when garbled."""
    try:
        values = units.int_list(" ".join(words))
    except ValueError:
        values = []
    if not values or max(values) > hi:
        raise LineError(f"{what} must be numbers 0-{hi}, not {' '.join(words)[:40]!r}")
    return values


# Words that start a global command or another mode: in a pasted configuration-mode session (Dell's and Microsoft's
# guides print interface sub-commands unindented under `interface X`) they end the interface's sub-commands.
_GLOBAL_WORDS = frozenset({"interface", "class-map", "policy-map", "trust", "wred", "system", "hostname", "router",
                           "vlt-domain", "end", "exit", "dcbx", "username", "system-user", "ntp", "snmp-server",
                           "logging", "aaa", "management", "iscsi", "clock", "write", "clear", "conf", "configure",
                           "copy", "do", "lldp", "spanning-tree", "ip", "ipv6", "vlan", "qos-map"})
# Interface commands that start with one of those words (OS10 User Guide, interface mode): `ip address`, `ipv6
# address`, `lldp receive|transmit`, `spanning-tree port type edge` / `bpduguard` / `guard root`, and `qos-map
# traffic-class NAME` as a binding (a definition has indented `queue` lines under it).
_INTERFACE_FORMS = {"ip": {"address", "vrf", "helper-address", "mtu"}, "ipv6": {"address", "nd"},
                    "lldp": {"receive", "transmit", "tlv-select", "med", "port-description-tlv"},
                    "spanning-tree": {"port", "bpduguard", "bpdufilter", "guard", "link-type", "cost", "priority",
                                      "disable", "rstp", "vlan"},
                    "qos-map": {"traffic-class"}}


def flat_interfaces(text: str) -> str:
    """A pasted configuration-mode session as the running-configuration prints it, keeping every line's number: the
    indentation every line shares removed, and the sub-commands written unindented under `interface X` indented up
    to `exit`, `!` or a global command."""
    lines = text.split("\n")
    shared = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    if shared:
        lines = [line[shared:] if line[:shared].strip() == "" else line.lstrip(" ") for line in lines]
    heads = [i for i, line in enumerate(lines) if line.startswith("interface ")]
    if any(lines[i + 1:i + 2] and lines[i + 1][:1] in (" ", "\t") for i in heads):
        return "\n".join(lines)  # a running-configuration: its interfaces are indented blocks
    inside = False
    for i, line in enumerate(lines):
        words = line.split()
        if not words or line[:1] in (" ", "\t"):
            continue
        if inside and not words[0].startswith(COMMENT):
            body = command_body(words) or words  # (`no hostname`: a global command's)
            form = _INTERFACE_FORMS.get(body[0])
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if body[0] not in _GLOBAL_WORDS or (form and body[1:2] and body[1] in form
                                                and not (body[0] == "qos-map" and nxt[:1] == " ")):
                lines[i] = " " + line
                continue
        inside = words[0] == "interface" and words[1:2] != ["breakout"]
    return "\n".join(lines)


# What the QoS modes take (OS10 User Guide, "Quality of service": class-map, policy-map, policy-map class, WRED profile,
# trust map, traffic-class map and `system qos` modes' commands); a command one does not take is run by configuration
# mode, which it enters. (`qos-map traffic-class NAME` binds a map under `system qos` and defines one at the top with
# `queue` lines under it: _qos_definition.)
_QOS_MODE_WORDS = {
    "cmap": {"match", "description"},
    "pmap": {"class", "description"},
    "pclass": {"set", "pause", "pfc-cos", "bandwidth", "priority", "random-detect", "shape", "police", "queue-limit",
               "description"},
    "wred": {"random-detect"},
    "trustmap": {"qos-group"},
    "qosmap": {"queue"},
    "sysqos": {"trust-map", "qos-map", "service-policy", "ets", "buffer-statistics-tracking"},
}

# The commands the reader reads that open no mode (clitext.TreeReader.is_wrapped): an interface's (interface_line) and
# the QoS modes' but `class` (which opens the policy-map class mode).
_LEAF_WORDS = frozenset({"description", "mtu", "speed", "shutdown", "priority-flow-control", "flowcontrol",
                         "channel-group", "pfc-cos", "trust", "qos-map", "ets", "random-detect", "trust-map",
                         "service-policy"}).union(*_QOS_MODE_WORDS.values()) - {"class"}


def _qos_mode(mode: str | None, words: list[str]) -> str | None:
    """The QoS mode a command typed in ``mode`` (None: configuration mode) enters."""
    if mode is None:
        if words[0] == "class-map":
            return "cmap"
        if words[0] == "policy-map":
            return "pmap"
        if words[0] == "wred" and len(words) == 2:
            return "wred"
        if words[:2] in (["trust", "dot1p-map"], ["trust", "dscp-map"]):
            return "trustmap"
        if words[:2] == ["qos-map", "traffic-class"]:
            return "qosmap"
        if words == ["system", "qos"]:
            return "sysqos"
        return None
    return "pclass" if mode == "pmap" and words[0] == "class" else None


def _qos_takes(mode: str, words: list[str]) -> bool:
    body = command_body(words)
    return bool(body) and body[0] in _QOS_MODE_WORDS[mode]


def _qos_definition(words: list[str], nxt: list[str]) -> bool:
    """`qos-map traffic-class NAME` followed by `queue` lines defines the map (configuration mode)."""
    return words[:2] == ["qos-map", "traffic-class"] and nxt[:1] == ["queue"]


def flat_qos(text: str) -> str:
    """A paste that lost its indentation writes a class-map's `match`, a policy-map's `class` and its actions, a WRED
    profile's `random-detect`, a trust map's `qos-group` and `system qos`'s bindings at the margin, each entered in
    the mode the line before it left (a Chinese RoCE case book prints a Z9332F-ON's so): indent them as the
    running-configuration does, one space a level, keeping every line's number. Text whose QoS blocks are all
    indented is left as it is."""
    if not is_flat(text, _qos_takes, _qos_mode, mixed=True):
        return text
    return renest(text.split("\n"), _qos_takes, _qos_mode, " ", blank_exits=False, definition=_qos_definition)


def renest_paste(text: str) -> str:
    """A paste that lost its indentation (a session's commands at the margin) nested as OS10 reads it, every line's
    number kept: its interfaces' lines, the QoS modes' headers typed indented, then its QoS blocks."""
    return flat_qos(outdent_mode_headers(flat_interfaces(text)))


def _config_mode_header(words: list[str]) -> bool:
    """`system qos`, `class-map type ...`, `policy-map type ...`, `wred NAME`, `trust dot1p-map|dscp-map NAME`: QoS
    modes that only configuration mode enters (OS10 User Guide, "Quality of service": each command's Command Mode is
    CONFIGURATION). `qos-map traffic-class NAME` is not one: interfaces and `system qos` bind maps with it."""
    return (words == ["system", "qos"] or words[:2] in (["class-map", "type"], ["policy-map", "type"])
            or (words[0] == "wred" and len(words) == 2)
            or (words[:2] in (["trust", "dot1p-map"], ["trust", "dscp-map"]) and len(words) == 3))


def outdent_mode_headers(text: str) -> str:
    """A paste that typed a QoS mode's command indented under a line that enters no such mode (`dcbx enable` then
    ` system qos` with its bindings at the same indentation, as a generator's switch-library sample writes it) runs
    it in configuration mode, as the switch does with any line whatever its leading blanks: the command goes to the
    margin and the lines after it, at its old indentation or deeper, become its sub-commands. Every line keeps its
    number."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line[:1] in (" ", "\t") and (words := line.split()) and (_config_mode_header(words) or _port_header(words)):
            lines[i] = line.lstrip()
    return "\n".join(lines)


def _port_header(words: list[str]) -> bool:
    """`interface ethernet1/1/1`, `interface range ...`, `interface port-channel N`: configuration mode's commands
    (OS10 User Guide, "interface ethernet", "interface range", "interface port-channel": Command Mode CONFIGURATION),
    which no sub-mode takes. Typed indented under another port (a template that indents its port blocks as a whole),
    the port's lines were merged into the one above it, or passed over under a block losslessd does not read."""
    if words[0] != "interface" or len(words) < 2:
        return False
    try:
        return bool(ethernets(words[1:])) or _PORT_CHANNEL.match(" ".join(words[1:])) is not None
    except LineError:
        return True  # (a range the reader names at the margin)


def _class_name(w: list[str]) -> bool:
    """`class-map type KIND NAME`, or with `match-any` / `match-all` before the name."""
    return len(w) == 4 or (len(w) == 5 and w[3] in ("match-any", "match-all"))


class _Reader(TreeReader):
    expanded = 0  # port lines the `interface range` lines expanded to, against MAX_EXPANDED_PORTS

    leaf_words = _LEAF_WORDS  # (clitext.TreeReader.is_wrapped)

    def config_text(self) -> str:
        return renest_paste(self.inp.text)

    def top(self, node: Node) -> None:
        w = node.words
        cfg = self.cfg
        if self.host_line(w, node, PLATFORM):
            pass
        elif w[:2] == ["interface", "breakout"]:
            self.breakout(node, w)
        elif w[0] == "interface" and SUBINTERFACE.match(" ".join(w[1:])):
            # OS10 User Guide, "Layer 3 > Subinterfaces": the parent sends the subinterface's frames dot1q-tagged
            cfg.tagged_parents.update(subinterface_parents(" ".join(w[1:]), "ethernet", "port-channel"))
            self.each(node.children, lambda child: subinterface_line(child.words, _IF_QOS))
        elif w[0] == "interface" and len(w) > 1 and (names := ethernets(w[1:])):
            self.expanded += len(names) * (1 + len(node.children))
            check_expanded(self.expanded, self.inp.path, node.line)
            for name in names:
                conf = port_slot(cfg.interfaces, name, lambda: InterfaceConf(source=self.src(node)), self.src(node))
                self.each(node.children, lambda child, conf=conf: self.interface_line(child, conf))
        elif w[0] == "interface" and (pc := _PORT_CHANNEL.match(" ".join(w[1:]))):
            conf = cfg.port_channels.setdefault(int(pc[1]), InterfaceConf(source=self.src(node)))
            self.each(node.children, lambda child: self.interface_line(child, conf))
        elif w[:3] == ["class-map", "type", "network-qos"] and _class_name(w):
            self.class_map(node, cfg.nq_class_maps, "qos-group", w[-1])
        elif w[:3] == ["class-map", "type", "queuing"] and _class_name(w):
            self.class_map(node, cfg.queuing_class_maps, "queue", w[-1])
        elif w[:2] in (["trust", "dot1p-map"], ["trust", "dscp-map"]) and len(w) == 3:
            self.trust_map(node, w[1][:-4], w[2])
        elif w[:2] == ["qos-map", "traffic-class"] and len(w) == 3:
            self.qos_map(node, w[2])
        elif w[0] == "wred" and len(w) == 2:
            wred = cfg.wreds.setdefault(w[1], Wred(source=self.src(node)))
            # a profile line not read may be the one that turns marking on (`random-detect ecn` mistyped): its
            # marking reads unknown rather than off unless a `random-detect ecn` line was read
            self.each(node.children, lambda child: self.wred_line(child, wred),
                      lambda child: setattr(wred, "unread", wred.unread or self.src(child)))
        elif w[:3] == ["policy-map", "type", "network-qos"] and len(w) == 4:
            self.policy(node, w[3], cfg.nq_policies, lambda src: NqClass(source=src), self.nq_line)
        elif w[:3] == ["policy-map", "type", "queuing"] and len(w) == 4:
            self.policy(node, w[3], cfg.queuing_policies, lambda src: QueueConf(source=src), self.queue_command,
                        functools.partial(self.marking_piece, field="wred", unread=WRED_UNREAD))
        elif w[:2] == ["system", "qos"] and len(w) == 2:
            self.each(node.children, lambda child: self.binding(child, cfg.system, system=True))
        elif w[0] in ("trust", "wred", "qos-map") or (w[0] in ("class-map", "policy-map")
                                                      and w[1:3] in (["type", "network-qos"], ["type", "queuing"])):
            # (`qos-map dscp-tc NAME` with `dscp 26 traffic-class 3` under it, in a template mixing platforms, was
            # passed over in silence: audit round 14. OS10 maps DSCP and 802.1p with `trust dscp-map|dot1p-map`.)
            raise LineError("expected `trust dot1p-map|dscp-map NAME`, `qos-map traffic-class NAME`, `wred NAME`, "
                            "`class-map type network-qos|queuing NAME` or `policy-map type network-qos|queuing NAME`")

    def breakout(self, node: Node, w: list[str]) -> None:
        m = _BREAKOUT.match(w[4]) if len(w) == 5 and w[3] == "map" else None
        front = _port_name(w[2]) if len(w) > 2 else None
        if m is None or front is None or front[3] is not None or int(m[2]) < 1:
            raise LineError("expected `interface breakout N/N/N map <speed>g-<count>x`")
        self.cfg.breakouts[f"{front[0]}/{front[1]}/{front[2]}"] = Val((float(m[1]), int(m[2])), self.src(node))

    def class_map(self, node: Node, table: dict[str, Val], kind: str, name: str) -> None:
        """`class-map type network-qos NAME` / `match qos-group N` (OS10 User Guide, "PFC configuration"), `class-map
        type queuing NAME` / `match queue N` ("Egress traffic classification")."""
        seen: set[int] = set()  # lines of this block already read
        for child in node.children:
            cw = child.words
            if cw[0] == "description":
                continue
            try:
                if cw[:2] != ["match", kind] or len(cw) < 3:
                    raise LineError(f"expected `match {kind} N`")
                if kind == "queue":
                    table[name] = Val(bounded_int(cw[2] if len(cw) == 3 else "", 0, 7, "the queue"), self.src(child))
                else:  # a match-any class may match several qos-groups, on one line or several
                    groups = _list(cw[2:], 7, "the qos-groups")
                    if name in table and table[name].source.line in seen:
                        groups = sorted(set(groups) | set(table[name].value))
                    table[name] = Val(groups, self.src(child))
                    seen.add(child.line)
            except LineError as exc:
                self.garbled(child, str(exc))

    def trust_map(self, node: Node, kind: str, name: str) -> None:
        """`trust dot1p-map NAME` / `qos-group N dot1p 0-2,4`; `trust dscp-map NAME` / `qos-group N dscp 24-31` (OS10
        User Guide, "Trust based classification")."""
        table = self.cfg.dot1p_maps if kind == "dot1p" else self.cfg.dscp_maps
        entries: dict[int, int] = dict(table[name].value) if name in table else {}
        for child in node.children:
            cw = child.words
            try:
                if cw[0] != "qos-group" or len(cw) < 4 or cw[2] != kind:
                    raise LineError(f"expected `qos-group N {kind} VALUES`")
                group = bounded_int(cw[1], 0, 7, "the qos-group")
                rest = cw[3:]
                if "color" in rest:  # `... color {green|yellow|red}`: the drop colour, not the class
                    rest = rest[:rest.index("color")]
                values = _list(rest, 7, "802.1p values") if kind == "dot1p" else dscp_values(rest)
            except LineError as exc:
                self.cfg.unread_maps.add((kind, name))  # which values it maps: unknown
                self.garbled(child, str(exc))
                continue
            for value in values:
                entries[value] = group
        table[name] = Val(entries, self.src(node))

    def qos_map(self, node: Node, name: str) -> None:
        """`qos-map traffic-class NAME` / `queue N qos-group 0-2,4` (OS10 User Guide, "Egress traffic
        classification")."""
        entries: dict[int, int] = dict(self.cfg.qos_maps[name].value) if name in self.cfg.qos_maps else {}
        for child in node.children:
            cw = child.words
            try:
                if cw[0] != "queue" or len(cw) < 4 or cw[2] != "qos-group":
                    raise LineError("expected `queue N qos-group VALUES`")
                queue = bounded_int(cw[1], 0, 7, "the queue")
                if "type" in cw[4:]:
                    # (a switch-management library's OS10 driver writes `queue N qos-group M type ucast|mcast`.) The
                    # OS10 User Guide's "Egress traffic classification" and the command reference show `queue N
                    # qos-group VALUES` alone; neither shows nor refuses a `type`.
                    written = " ".join(cw[cw.index("type", 4):])[:40]
                    raise LineError(f"`{written}` is in no OS10 document losslessd read (the User Guide writes "
                                    "`queue N qos-group VALUES`): could not verify whether the switch takes it or "
                                    "which traffic the entry then maps, so the map's queues are unknown")
                groups = _list(cw[3:], 7, "the qos-groups")
            except LineError as exc:
                self.cfg.unread_maps.add(("queue", name))  # which groups it maps: unknown
                self.garbled(child, str(exc))
                continue
            for group in groups:
                entries[group] = queue
        self.cfg.qos_maps[name] = Val(entries, self.src(node))

    def wred_line(self, node: Node, wred: Wred) -> None:
        """OS10 User Guide, "WRED": `random-detect color {green|yellow|red} minimum-threshold X maximum-threshold Y
        drop-probability P` (X, Y 1-12480 KB; P 0-100 %), `random-detect ecn`, `random-detect weight N`."""
        w = node.words
        if w == ["random-detect", "ecn"]:
            wred.ecn = Val(True, self.src(node))
        elif w[:2] == ["random-detect", "color"]:
            if (len(w) != 9 or w[2] not in ("green", "yellow", "red") or w[3] != "minimum-threshold"
                    or w[5] != "maximum-threshold" or w[7] != "drop-probability"):
                raise LineError("expected `random-detect color green|yellow|red minimum-threshold X "
                                "maximum-threshold Y drop-probability P`")
            kmin = bounded_int(w[4], 1, 12480, "the minimum threshold (KB)")
            kmax = bounded_int(w[6], 1, 12480, "the maximum threshold (KB)")
            if kmax < kmin:
                raise LineError("the maximum threshold is below the minimum")
            probability = bounded_int(w[8], 0, 100, "the drop probability (%)")
            wred.colors[w[2]] = Val((kmin, kmax, probability), self.src(node))
        elif w[:2] == ["random-detect", "weight"]:
            bounded_int(w[2] if len(w) == 3 else "", 0, 15, "the WRED weight")
        elif w == ["no", "random-detect", "ecn"]:
            wred.ecn = None
        elif w[0] != "description":
            raise LineError("not a wred profile command losslessd knows")

    def policy(self, node: Node, name: str, table: dict, make, line, piece=None) -> None:
        classes = table.setdefault(name, {})  # re-entered: merged
        for child in node.children:
            cw = child.words
            if cw[0] == "description":
                continue
            if cw[0] != "class" or not (len(cw) == 2 or (len(cw) == 4 and cw[1] == "type")):
                self.garbled(child, "expected `class NAME`")
                continue
            conf = classes.setdefault(cw[-1], make(self.src(child)))
            self.each(child.children, lambda sub, conf=conf: line(sub, conf),
                      on_piece=None if piece is None else functools.partial(piece, conf=conf))

    def nq_line(self, node: Node, conf: NqClass) -> None:
        """OS10 User Guide, "PFC configuration": `pause [buffer-size KB pause-threshold KB resume-threshold KB]` sends
        pause frames for the class, `pfc-cos 3` names the 802.1p values they pause."""
        w = node.words
        src = self.src(node)
        if w == ["pause"]:
            conf.pause = Val(None, src)
        elif w[0] == "pause":
            if len(w) != 7 or w[1] != "buffer-size" or w[3] != "pause-threshold" or w[5] != "resume-threshold":
                raise LineError("expected `pause [buffer-size B pause-threshold X resume-threshold Y]` (KB)")
            size, xoff_at, xon_at = (bounded_int(w[i], 0, 1 << 20, what) for i, what in
                                     ((2, "buffer-size"), (4, "pause-threshold"), (6, "resume-threshold")))
            if not xon_at <= xoff_at <= size:
                raise LineError("the resume threshold must not exceed the pause threshold, nor that the buffer size")
            conf.pause = Val(RawPause(size, xoff_at, xon_at), src)
        elif w[0] == "pfc-cos":
            conf.pfc_cos = Val(_list(w[1:], 7, "pfc-cos values"), src)
        elif w == ["no", "pause"]:
            conf.pause = None
        elif w[:2] == ["no", "pfc-cos"]:
            conf.pfc_cos = None
        elif w[0] not in ("queue-limit", "description", "no"):
            raise LineError("not a network-qos class command losslessd knows")

    def queue_command(self, node: Node, conf: QueueConf) -> None:
        """OS10 User Guide, "Egress traffic classification" / "ETS": `bandwidth percent N`, `priority` (strict),
        `random-detect WRED-PROFILE`, `shape ...`."""
        w = node.words
        src = self.src(node)
        if w[:2] == ["bandwidth", "percent"]:
            conf.bandwidth, conf.strict = Val(bounded_int(w[2] if len(w) == 3 else "", 1, 100, "the bandwidth percent"),
                                              src), None
        elif w == ["priority"]:
            conf.strict, conf.bandwidth = Val(True, src), None
        elif w[0] == "random-detect":
            if len(w) != 2:
                conf.wred = Val(WRED_UNREAD, src)  # marking that could not be read is unknown, not off
                raise LineError("expected `random-detect WRED-PROFILE`")
            conf.wred = Val(w[1], src)
        elif w[0] == "shape":
            conf.shaped = src
        elif w[:2] == ["no", "random-detect"]:
            conf.wred = None
        elif w[:2] == ["no", "priority"]:
            conf.strict = None
        elif w[:2] == ["no", "bandwidth"]:
            conf.bandwidth = None
        elif w[0] not in ("queue-limit", "description", "no", "police"):
            if may_set_ecn(w):  # (`ecn` on a line of its own, another vendor's ECN words): the marking is unknown
                conf.wred = Val(WRED_UNREAD, src)
            raise LineError("not a queuing class command losslessd knows")

    def binding(self, node: Node, bind: Bindings, system: bool = False) -> bool:
        """A binding line of `system qos` or an interface (OS10 User Guide, "Quality of service": `trust-map dot1p|dscp
        NAME|default`, `qos-map traffic-class NAME`, `service-policy input type network-qos|qos NAME`, `service-policy
        output type queuing NAME`, `ets mode on`); False when the line is none of these."""
        w = node.words
        src = self.src(node)
        if w[0] == "trust-map":
            if len(w) != 3 or w[1] not in ("dot1p", "dscp"):
                bind.trust_unread.setdefault(w[1] if len(w) > 1 and w[1] in ("dot1p", "dscp") else "", src)
                raise LineError("expected `trust-map dot1p|dscp NAME`")
            setattr(bind, f"trust_{w[1]}", Val(w[2], src))
            bind.trust_unread.pop(w[1], None)  # the last line of a kind binds it
        elif w[:2] == ["no", "trust-map"]:
            for kind in (w[2:3] or ["dot1p", "dscp"]):
                if kind in ("dot1p", "dscp"):
                    setattr(bind, f"trust_{kind}", None)
                    bind.trust_unread.pop(kind, None)
            if len(w) == 2:  # every binding gone, the one of a line not read too
                bind.trust_unread.clear()
        elif w[:2] == ["qos-map", "traffic-class"]:
            if len(w) != 3:
                bind.qos_map = Val(BINDING_UNREAD, src)
                raise LineError("expected `qos-map traffic-class NAME`")
            bind.qos_map = Val(w[2], src)
        elif w[:3] == ["no", "qos-map", "traffic-class"]:
            bind.qos_map = None
        elif w[0] == "service-policy" or w[:2] == ["no", "service-policy"]:
            off = w[0] == "no"
            rest = w[1:] if off else w
            kinds = {("input", "network-qos"): "nq_policy", ("output", "queuing"): "queuing_policy",
                     ("input", "qos"): "qos_policy"}
            if len(rest) in (4, 5) and rest[1:4] == ["input", "type", "application"]:
                return True  # iSCSI application policies (OS10 User Guide, "iSCSI optimization"): not QoS classes
            attr = kinds.get((rest[1], rest[3])) if len(rest) >= 4 and rest[2] == "type" else None
            # NX-OS's and EOS's word order (`service-policy type qos input NAME`) is no OS10 command, but it binds a
            # policy of the kind it names: that kind is unknown, not none (audit round 14)
            swapped = kinds.get((rest[3], rest[2])) if len(rest) >= 4 and rest[1] == "type" else None
            if attr is None or (len(rest) != 5 and not (off and len(rest) == 4)):
                attr = attr or swapped
                if attr is not None and not off:  # a binding of that kind, its policy not read: unknown, not none
                    setattr(bind, attr, Val(BINDING_UNREAD, src))
                raise LineError("expected `service-policy input type network-qos|qos NAME` or `service-policy output "
                                "type queuing NAME`")
            setattr(bind, attr, None if off else Val(rest[4], src))
        elif w[:2] == ["ets", "mode"] and len(w) == 3 and w[2] in ("on", "off"):
            bind.ets, bind.ets_unread = Val(w[2] == "on", src), None
        elif w[:2] == ["no", "ets"]:
            bind.ets, bind.ets_unread = None, None
        elif command_body(w)[:1] == ["ets"]:
            # OS10's own word in a form not read (`ets traffic-class 3 bandwidth 50`, a cut `ets mode`): the queues'
            # scheduling it may set is unknown, not what the queuing policy alone gives
            bind.ets_unread = bind.ets_unread or src
            raise LineError("expected `ets mode on|off`")
        elif system and w[0] not in ("buffer-statistics-tracking", "no"):
            raise LineError("not a `system qos` command losslessd knows")
        else:
            return False
        return True

    def interface_line(self, node: Node, conf: InterfaceConf) -> None:
        w = node.words
        src = self.src(node)
        if self.binding(node, conf.bind):
            return
        if w[0] == "description":
            conf.description = node.text[len("description"):].strip()
        elif layer3_line(conf, w, src):
            pass  # (OS10 User Guide, "Layer 3 > IPv4 routing": `no switchport` leaves L2 mode, for `ip address`)
        elif switchport_line(conf.switchport, w, src):
            pass  # (OS10 User Guide, "VLANs": `switchport mode access|trunk`, `switchport access vlan`, trunk VLANs)
        elif w[0] == "mtu":
            # OS10 User Guide, `mtu`: the link MTU, 1280-65535 (9216 on most PowerSwitch models).
            conf.mtu = Val(bounded_int(w[1] if len(w) == 2 else "", 1280, 65535, "the MTU"), src)
        elif w[0] == "speed" and w[1:] != ["auto"]:
            # OS10 User Guide, `speed`: {10 | 100 | 1000 | 10000 | 25000 | 40000 | 50000 | 100000 ... | auto}, Mb/s.
            if len(w) != 2:
                raise LineError("expected `speed auto` or `speed MBPS`")
            conf.speed = Val(bounded_int(w[1], 1, 1_600_000, "the speed in Mb/s") / 1000, src)
        elif w in (["shutdown"], ["no", "shutdown"]):
            conf.admin_up = Val(w[0] == "no", src)
        elif w[:2] == ["priority-flow-control", "mode"]:
            if len(w) != 3 or w[2] not in ("on", "off"):
                conf.pfc_mode = Val(None, src)  # the port's PFC mode not read: unknown, not the default off
                raise LineError("expected `priority-flow-control mode on|off`")
            conf.pfc_mode = Val(w[2] == "on", src)
        elif w[:2] == ["no", "priority-flow-control"]:
            conf.pfc_mode = Val(False, src)
        elif command_body(w)[:1] == ["flowcontrol"]:
            # OS10 User Guide, `flowcontrol {receive | transmit} {on | off}`: 802.3x link-level pause; its `no` form
            # returns the default, which no source read gives (unknown, as unwritten)
            flowcontrol_line(conf, w, src, None, send="transmit")
        elif w[0] == "channel-group" and len(w) >= 2:
            conf.channel_group = Val(bounded_int(w[1], 1, 4096, "the port-channel number"), src)
        elif w[:2] == ["no", "channel-group"]:
            conf.channel_group = None  # (OS10 User Guide, `channel-group`: its `no` form removes the port from it)
        elif (word := command_body(w)[:1]) in (["priority-flow-control"], ["pfc-cos"], ["trust"], ["qos-map"]):
            # (their `no` forms too: OS10's own words, not another platform's, which other_port_qos below names).
            # What the line names is unknown, not the default: `trust dscp` may be what makes the port trust DSCP.
            if word == ["trust"]:
                conf.bind.trust_unread.setdefault("", src)
            elif word == ["qos-map"]:
                conf.bind.qos_map = Val(BINDING_UNREAD, src)
            else:
                conf.pfc_unread = conf.pfc_unread or src
            raise LineError("not an interface QoS command losslessd knows")
        elif command_body(w)[:1] == ["random-detect"]:
            # OS10 User Guide, "WRED": `random-detect PROFILE` in interface mode puts WRED/ECN on the port's queues.
            if w[0] != "no":
                conf.wred_unread = Val(tuple(w[1:]), src)
            raise LineError("a port's WRED profile is not read (losslessd reads WRED and ECN from the queuing "
                            "policy's classes), so the ECN marking of this port's queues is unknown")
        elif other_port_qos(w, frozenset()):  # (OS10's own QoS commands are read above)
            raise LineError("this looks like a QoS setting but is no OS10 interface command (OS10 binds a port's QoS "
                            "with `trust-map`, `qos-map traffic-class`, `service-policy`, `priority-flow-control mode` "
                            "and `ets mode`; is it another platform's syntax?): what it was meant to set is not set")


def threshold_bytes(kb: int) -> int:
    """OS10 writes buffer and WRED thresholds in KB: 1024 bytes, as the other switch CLIs losslessd reads
    (losslessd/units.py)."""
    return units.to_bytes(f"{kb} KB")
