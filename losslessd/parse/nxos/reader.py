"""Read an NX-OS running-config into its QoS parts (class-maps, policy-maps, `system qos`, interfaces), each with its line.

NX-OS indents sub-commands by two spaces; `!` lines are comments. QoS lines that cannot be read
become SYS002 issues (an unknown threshold unit SYS003); lines that are not about QoS are skipped.
"""

from __future__ import annotations

import functools
import re
from dataclasses import field

from ... import units
from ...lazyre import lazy
from ...model import ParseIssue, Source
from ...records import record
from ..base import Input, IssueList, check_expanded, port_slot
from ..clitext import (
    COMMENT,
    SUBINTERFACE,
    LineError,
    ModeKeywords,
    Node,
    SwitchportConf,
    TreeReader,
    Val,
    bounded_int,
    check_config_text,
    command_body,
    config_session,
    dscp_values,
    ethernet_ports,
    flowcontrol_line,
    is_flat,
    layer3_line,
    may_set_ecn,
    other_port_qos,
    outdent_interface_lines,
    renest,
    subinterface_line,
    subinterface_parents,
    switchport_line,
    wred_options,
)
from . import PLATFORM

# `interface Ethernet1/1`, also `interface ethernet 1/1` / `interface Eth1/1` as snippets and design guides write it:
# NX-OS stores Ethernet1/1.
_ETHERNET_SPELLED = lazy(r"^(?:ethernet|eth|e)\s*(\d+(?:/\d+){1,2})$", re.IGNORECASE | re.ASCII)
# An `interface` line that names an NX-OS Ethernet port (slot/port, in any spelling) whether or not its range can be
# read; a name without a slot (`Ethernet0`, another platform's) is none of this switch's ports.
_ETHERNET_WORD = lazy(r"^e(?:th(?:ernet)?)?\s*\d+/", re.IGNORECASE | re.ASCII)
_PORT_CHANNEL = lazy(r"^(?:port-channel|po)\s*(\d{1,4})$", re.IGNORECASE | re.ASCII)
# Top-level words of an NX-OS config; a file with none of them is not one.
_NXOS_LINE = lazy(r"^(!|(hostname|switchname|interface|feature|version|class-map|policy-map|system|"
                  r"priority-flow-control|hardware|vrf|ip|ipv6|router|vlan|spanning-tree|username|logging|"
                  r"ntp|snmp-server|line|boot)(\s|$))")
# Nexus 9000 QoS configuration guide, queuing chapter: system-defined egress queuing classes
# c-out-8q-q0..q7 / c-out-8q-q-default (8 queues) and c-out-q1..q3 / c-out-q-default (4 queues), and ingress
# classes c-in-q1..q3 / c-in-8q-qN, match qos-group N -> queue N; the default class is queue 0.
_QUEUE_CLASS = lazy(r"^c-(?:out|in)-(?:8q-)?q([0-7]|-default)$")
# Network-qos classes c-8q-nq0..7 / c-nq1..3 (and their -default) match qos-group N.
_NQ_CLASS = lazy(r"^c-(?:8q-)?nq([0-7]|-default)$")
# `no service-policy type KIND DIRECTION [NAME]` on an interface: the InterfaceConf attribute it detaches.
_DETACHED = {("qos", "input"): "qos_policy", ("queuing", "output"): "queuing_policy",
             ("queuing", "input"): "queuing_in_policy", ("qos", "output"): ""}
_NUMBER = lazy(r"^[0-9]{1,15}$")  # a threshold in bytes: 15 digits are a petabyte
# The line NX-OS prints after every interface (see _Reader.cut_reason), and the header naming the command printed.
_LINE_VTY = lazy(r"^line vty[ \t]*\r?$", re.M)
_COMMAND_HEADER = lazy(r"^!Command: show running-config([^|\n]*)", re.M)
# The header lines NX-OS prints atop `show running-config` (`!Time: ...`, `!Running configuration last done at: ...`).
_RUNNING_HEADER = lazy(r"^!(Time|Running configuration last done at): ", re.M)


@record
class QosClass:
    """A `class-map type qos`: the DSCP and CoS values it matches; `other` when it also matches on something
    losslessd does not evaluate (an ACL, IP precedence, a protocol)."""

    source: Source
    dscp: set[int] = field(default_factory=set)
    cos: set[int] = field(default_factory=set)
    other: bool = False
    match_all: bool = True  # NX-OS class-maps are match-all unless written match-any


@record(frozen=True)
class RawEcn:
    """`random-detect minimum-threshold X UNIT maximum-threshold Y UNIT [drop-probability P] [weight W] [ecn]`."""

    text: str
    kmin: int | None  # bytes; None: unknown unit
    kmax: int | None
    probability: float | None
    ecn: bool
    dropping: bool = True  # WRED or AFD selects packets before the queue is full; False: `congestion-control tail-drop`


@record(frozen=True)
class RawPause:
    """`pause buffer-size B pause-threshold X resume-threshold Y` (bytes): the ingress buffer of a no-drop class, the
    fill level that sends XOFF, and the one that sends XON."""

    buffer_bytes: int
    pause_bytes: int
    resume_bytes: int


@record
class QueueConf:
    source: Source
    strict: Val | None = None  # `priority [level N]`, value the line's words (`priority level 1`)
    bandwidth: Val | None = None  # `bandwidth [remaining] percent N`, value N
    share: str = ""  # the `bandwidth` line's words
    wred: Val | None = None  # value RawEcn (None: a random-detect line that could not be read)
    pause: Val | None = None  # value RawPause (ingress queuing policies)
    shaped: Source | None = None  # `shape min X max Y`: the queue's rate is capped


def both_lines(queue: QueueConf) -> str:
    """Why a class holding both `priority` and a `bandwidth` share is served in a way not known. Nexus 9000 QoS guide,
    "Configuring Queuing and Scheduling", congestion management: a class is either given a bandwidth share or all
    sent to the priority queue, the other queues sharing what remains; no Cisco NX-OS document says what a class
    holding both does (a running config never shows both; other Cisco MQC references refuse the pair in one class,
    NX-OS's say nothing), so neither is assumed (docs/real-configs.md, Session 37 part c)."""
    assert queue.strict is not None and queue.bandwidth is not None
    return (f"`{queue.strict.value}` (line {queue.strict.source.line}) and `{queue.share}` (line "
            f"{queue.bandwidth.source.line}) in one queuing class: whether NX-OS serves the queue by priority or by "
            "the share (or refuses the second line) no Cisco document says; remove the one you do not mean")


# A `service-policy` binding line not read, of a kind the line still shows: the policy it attaches is unknown (the
# builder reads it as a policy not defined, without naming it again), not "none attached".
POLICY_UNREAD = ""


@record
class NqClass:
    """A class in a network-qos policy: `pause pfc-cos N` (Nexus 9000) or `pause no-drop [pfc-cos N]` (Nexus
    3000/5000) makes its qos-group no-drop."""

    qos_group: int
    source: Source
    pfc_cos: Val | None = None  # value list[int]
    no_drop: Val | None = None  # `pause no-drop` without pfc-cos: PFC on the CoS values classified into the group
    mtu: Val | None = None
    pause_unread: Source | None = None  # a `pause` line not read (a SYS002 names it): whether it pauses is unknown


@record
class InterfaceConf:
    source: Source
    description: str | None = None
    mtu: Val | None = None
    speed: Val | None = None  # Gb/s
    admin_up: Val | None = None
    pfc_mode: Val | None = None  # on | off | auto
    watchdog: Val | None = None  # `priority-flow-control watch-dog-interval on|off`
    pause_rx: Val | None = None  # `flowcontrol receive on|off`: 802.3x link pause honoured (None in a Val: not read)
    pause_tx: Val | None = None  # `flowcontrol send on|off`: 802.3x link pause sent
    qos_policy: Val | None = None  # `service-policy type qos input NAME`
    queuing_policy: Val | None = None  # `service-policy type queuing output NAME`
    queuing_in_policy: Val | None = None  # `service-policy type queuing input NAME`
    channel_group: Val | None = None  # `channel-group N [mode ...]`: a member of port-channel N
    channel_force: Val | None = None  # `channel-group N force ...`: joins whatever its compatibility parameters
    profiles: list[Val] = field(default_factory=list)  # `inherit port-profile NAME`, in the order written
    # The `inherit` line of a port-profile the input does not define (build.with_port_profiles): what the interface
    # does not set itself may be that profile's, so it is unknown, not the system's or the default.
    undefined_profile: Source | None = None
    # A member's port-channel's `inherit` line of such a profile (build.channel_policies): the member runs the
    # port-channel's policies, so those the port-channel does not attach itself are unknown too.
    channel_undefined_profile: Source | None = None
    routed: Val | None = None  # `[no] switchport` (clitext.routed_port)
    l3_address: Source | None = None  # the first `ip address` / `ipv6 address` line
    switchport: SwitchportConf = field(default_factory=SwitchportConf)  # its mode and VLAN lines


@record
class PortProfile:
    """`port-profile [type ethernet|port-channel] NAME`: interface commands ports inherit once `state enabled`."""

    conf: InterfaceConf
    enabled: bool = False


@record
class NxosConfig:
    hostname: str | None = None
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    class_maps: dict[str, QosClass] = field(default_factory=dict)
    # `class-map type queuing|network-qos NAME` with `match qos-group N` (user-defined classes, Nexus 3000/5000)
    queuing_class_maps: dict[str, Val] = field(default_factory=dict)
    nq_class_maps: dict[str, Val] = field(default_factory=dict)
    # policy-map type qos NAME -> class name -> qos-group Val (None: the class sets none), in entry order
    qos_policies: dict[str, dict[str, Val | None]] = field(default_factory=dict)
    qos_policy_unread: set[str] = field(default_factory=set)  # a `set qos-group` of the policy not read: unknown map
    # queuing / network-qos policy -> class name -> settings; the class name resolves to a qos-group at build time
    queuing_policies: dict[str, dict[str, QueueConf]] = field(default_factory=dict)
    nq_policies: dict[str, dict[str, NqClass]] = field(default_factory=dict)
    system: dict[str, Val] = field(default_factory=dict)  # qos | queuing | queuing-in | network-qos -> policy name
    watchdog: Val | None = None  # global `priority-flow-control watch-dog-interval on|off`
    wd_timers: dict[str, Val] = field(default_factory=dict)  # interval | shutdown-multiplier | auto-restore-multiplier
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    # port-channel N -> its service-policy lines (the rest of a port-channel block is not read)
    port_channels: dict[int, InterfaceConf] = field(default_factory=dict)
    # `[no] system default switchport`: whether ports without a `[no] switchport` line route (Val True) or switch
    default_routed: Val | None = None
    # `vlan dot1q tag native`: trunks tag their native VLAN too (Nexus 9000 Layer 2 guide, "Configuring Access and
    # Trunk Interfaces": by default a trunk sends its native VLAN untagged)
    native_tagged: bool = False
    # The ports and port-channels with a subinterface (`interface Ethernet1/1.100`): tagged, so never untagged routed
    tagged_parents: set[str] = field(default_factory=set)
    port_profiles: dict[str, PortProfile] = field(default_factory=dict)
    # `hardware access-list tcam region ing-l2-qos|ing-l3-vlan-qos 0`: the region -> its line
    qos_tcam_zero: dict[str, Source] = field(default_factory=dict)
    issues: list[ParseIssue] = field(default_factory=IssueList)


def session_config(text: str, path: str = "", issues: list[ParseIssue] | None = None) -> str | None:
    """The commands of a configuration-session transcript as the config they make, unindented (read() nests them),
    line numbers kept; None: no transcript. `fix` applies a snippet to this form of a transcript."""
    return config_session(text, "", path, issues, _refuses, PLATFORM, renest_paste)


def read(inputs: list[Input]) -> NxosConfig:
    cfg = NxosConfig()
    for inp in inputs:
        # A configuration-mode session with its prompts (`switch(config-pmap-nqos-c)# pause pfc-cos 3`): its commands
        # without the prompts, the session's output and refused commands blanked, then nested by what each command
        # is (indent_flat_qos, indent_flat_interfaces), not by the prompt's mode name: NX-OS's do not always extend
        # their parent's (config-pmap-qos, then config-pmap-c-qos for its class), and a sibling (the next `class`, the
        # next `interface`) shows the same prompt as the mode it leaves.
        session = session_config(inp.text, inp.path, cfg.issues)
        if session is not None:
            inp = Input(inp.path, session)
        _check_is_nxos(inp)
        _Reader(cfg, inp, session=session is not None).read()
    _both_lines_issues(cfg)
    _qos_tcam_issues(cfg)
    return cfg


# The ingress QoS TCAM regions a `service-policy type qos input` is programmed in (Nexus 9000 QoS guide, "Configuring
# QoS TCAM Carving": Layer 2 port QoS, Layer 3 and VLAN QoS; `show hardware access-list tcam region` prints them as
# "Ingress L2 QOS [ing-l2-qos]" and "Ingress L3/VLAN QOS [ing-l3-vlan-qos]", as an operator's Nexus 9000 log shows).
_QOS_TCAM = {"ing-l2-qos": "a Layer 2 port", "ing-l3-vlan-qos": "a Layer 3 port or a VLAN"}


def _qos_tcam_issues(cfg: NxosConfig) -> None:
    """A SYS002 at each QoS TCAM region carved to 0 while a `service-policy type qos input` is bound: where the
    region is the one the binding needs, the switch has no entry to program its classification in. What it then does
    (refuse the binding, or classify nothing) is in no Cisco text read; an operator's Nexus 9000 log shows
    `%ACLQOS-SLOT1-2-ACLQOS_OOTR: Tcam resource exhausted: Ingress L2 QOS [ing-l2-qos]` for a policy larger than its
    region. A port whose `[no] switchport` line says its layer is counted for its region only; others (no such line:
    the model's default; port-channels, profiles, `system qos`) for both."""
    for region, line in cfg.qos_tcam_zero.items():
        routed = region != "ing-l2-qos"  # (the layer of the ports the region serves)
        bound = [conf.qos_policy for conf in (*cfg.interfaces.values(), *cfg.port_channels.values(),
                                              *(p.conf for p in cfg.port_profiles.values()))
                 if conf.qos_policy and (conf.routed is None or conf.routed.value is routed)]
        if "qos" in cfg.system:
            bound.append(cfg.system["qos"])
        if not bound:
            continue
        first = bound[0].source
        where = f" (first at line {first.line})" if first is not None and first.line is not None else ""
        cfg.issues.append(ParseIssue(code="SYS002", source=line, message=(
            f"`hardware access-list tcam region {region} 0` leaves no entries in the region that holds the "
            f"classification of a `service-policy type qos input` on {_QOS_TCAM[region]} (Nexus 9000 QoS guide, "
            f"\"Configuring QoS TCAM Carving\"), and {len(bound)} such binding(s) are written{where}: could not verify "
            "whether the switch refuses them or programs no classification (an operator's log shows \"Tcam resource "
            "exhausted\" for a policy larger than its region); the DSCP/CoS classification is read as written, "
            f"which holds only if the bound interfaces use another region; carve entries for {region} out of another "
            "region (all TCAM space is allocated by default), or check `show hardware access-list tcam region`")))


def _both_lines_issues(cfg: NxosConfig) -> None:
    """A SYS002 (at its bandwidth line) per queuing class that holds both `priority` and a bandwidth share once the
    whole config is read: a later entry of the policy may take one line away (`no bandwidth ...`), after which the
    class is what the line left says, with nothing to report."""
    for queues in cfg.queuing_policies.values():
        for name, queue in queues.items():
            if queue.strict is not None and queue.bandwidth is not None:
                cfg.issues.append(ParseIssue(code="SYS002", message=f"class {name}: {both_lines(queue)}",
                                             source=queue.bandwidth.source))


def _ethernets(words: list[str]) -> list[str]:
    """The ports of `interface Ethernet1/1` (also `ethernet 1/1`, `Eth1/1`) and of the ranges configuration mode
    takes (`Ethernet1/1-48`, `Ethernet 1/1-1/4`, `Ethernet1/1-2, Ethernet1/5`); [] when it names no Ethernet port
    (clitext.ethernet_ports: each item names its type)."""
    return ethernet_ports(" ".join(words), _ETHERNET_SPELLED) or []


def _check_is_nxos(inp: Input) -> None:
    check_config_text(inp, "Cisco NX-OS", _NXOS_LINE, "`interface`, `hostname`, `policy-map` or `!`")


def _without_no_stats(words: list[str]) -> list[str]:
    """An interface's qos policy attachment without its trailing `no-stats` (the policy's statistics off: what it
    classifies is the same). The switch prints it so (`show run interface`: `service-policy type qos input
    AZS_SERVICES no-stats`, Azure/AzureLocal-Supportability TOR troubleshooting guides); NX-API models it as the
    attached policy instance's `stats` false (Nexus 3000/9000 NX-API REST SDK guide 9.3x, "Disabling Statistics for
    a Policy")."""
    return words[:-1] if len(words) == 6 and words[2] == "qos" and words[-1] == "no-stats" else words


def class_index(name: str, pattern: re.Pattern) -> int | None:
    """The qos-group a system-defined class name stands for (class-default: qos-group 0), else None."""
    if name == "class-default":
        return 0
    m = pattern.match(name)
    if not m:
        return None
    return 0 if m.group(1) == "-default" else int(m.group(1))


# Words that start a global command or another mode: in a pasted config-mode session they end an interface's
# unindented sub-commands (NX-OS leaves interface mode for a global command).
_GLOBAL_WORDS = frozenset({"interface", "class-map", "policy-map", "system", "hostname", "switchname", "feature",
                           "vlan", "vrf", "router", "line", "port-profile", "hardware", "version", "boot", "username",
                           "snmp-server", "ntp", "logging", "spanning-tree", "end", "exit", "conf", "configure",
                           "copy", "lldp", "qos"})
# Interface commands that start with one of those words (NX-OS runs a command the interface mode takes there): `vrf
# member` (routed ports), `spanning-tree port type edge` / `bpduguard` / ..., `lldp transmit|receive`, `logging event
# port` (Nexus 9000 interfaces, Layer 2 switching and system management guides).
_INTERFACE_FORMS = {"vrf": {"member"}, "lldp": {"transmit", "receive"}, "logging": {"event"},
                    "spanning-tree": {"port", "bpduguard", "bpdufilter", "guard", "link-type", "cost", "port-priority"}}
# Cisco Nexus 9000 QoS Configuration Guide, "Configuring Link Level Flow Control": "By default, link-level flow
# control is disabled for both directions."
LINK_PAUSE_DEFAULT = False
# A `priority-flow-control watch-dog-interval` line not read: whether the watchdog runs is unknown, not off.
WATCHDOG_UNREAD = "unread"
# Global-only priority-flow-control commands (the watch-dog timers, restore multipliers); `mode` and
# `watch-dog-interval` are interface commands there.
_GLOBAL_PFC = ("watch-dog", "auto-restore", "fixed-restore")


def _interface_command(words: list[str]) -> bool:
    """Whether an unindented line after `interface X` in a config-mode paste is one of its sub-commands; a global
    command's `no` form is global too (`no hostname`, `no feature lldp`)."""
    words = command_body(words) or words
    second = words[1] if len(words) > 1 else None
    if words[0] in _GLOBAL_WORDS:
        return second in _INTERFACE_FORMS.get(words[0], ())
    return not (words[0] == "priority-flow-control" and second in _GLOBAL_PFC)


# The interface-mode commands the reader reads, and the other commands interface mode takes (Nexus 9000 Interfaces,
# Layer 2 Switching, QoS and Security configuration guides: each command's mode is `switch(config-if)#`), among which
# an abbreviation must be unique: `prio mode on` is `priority-flow-control mode on`, `serv type qos input IN` is
# `service-policy type qos input IN` (Nexus 9000 Fundamentals guide, "Using the CLI": a command's unique prefix runs
# it); `sp` (speed, spanning-tree) and `sh` (shutdown, show) are no abbreviation losslessd reads.
# _INTERFACE_QOS: those of them that set the port's QoS (a port-channel's are read for its members; under a
# subinterface they are named: clitext.subinterface_line).
_INTERFACE_QOS = frozenset({"priority-flow-control", "service-policy", "inherit"})
_INTERFACE_READ = _INTERFACE_QOS | {"description", "mtu", "speed", "shutdown", "channel-group", "flowcontrol"}
_INTERFACE_OTHER = frozenset({"switchport", "duplex", "bandwidth", "delay", "load-interval", "link",
                              "fec", "negotiate", "cdp", "storm-control", "mac", "medium", "mdix", "encapsulation",
                              "udld", "ip", "ipv6", "vpc", "carrier-delay", "beacon", "rate-mode", "snmp", "lacp",
                              "dot1x", "errdisable", "private-vlan", "macsec", "ptp", "vrf", "lldp", "logging",
                              "spanning-tree", "hsrp", "vrrp", "bfd", "port", "buffer-boost", "pop", "push", "where",
                              "show", "end", "exit", "no"})
_INTERFACE_KEYWORDS = ModeKeywords({"if": _INTERFACE_READ}, _INTERFACE_OTHER, _GLOBAL_WORDS)

# Interface commands configuration mode does not take (Nexus 9000 interfaces guide): one at the margin right after
# `interface X` or `port-profile ... NAME` shows a flat block, even in a paste whose other blocks are indented.
_INTERFACE_ONLY = frozenset({"description", "switchport", "inherit", "channel-group", "mtu", "speed", "shutdown",
                             "service-policy"})


def _interface_only(words: list[str]) -> bool:
    words = _INTERFACE_KEYWORDS.spell("if", words) if words else words
    return bool(words) and (words[0] in _INTERFACE_ONLY or words[:2] in (["no", "shutdown"],
                                                                           ["priority-flow-control", "mode"]))


def _interface_head(mode: str | None, words: list[str]) -> str | None:
    return "if" if mode is None and words[:1] in (["interface"], ["port-profile"]) else None


def outdent_ports(text: str) -> str:
    """Each `interface` line a template indented inside another block at the margin, its lines after it its own
    (clitext.outdent_interface_lines), line numbers kept: the blocks NX-OS has. `fix` merges a snippet into them."""
    return outdent_interface_lines(text, lambda w: bool(_ethernets(w[1:]) or _PORT_CHANNEL.match(" ".join(w[1:]))),
                                   lambda head: head[:1] == ["interface"] or head[:2] == ["vrf", "context"])


def renest_paste(text: str) -> str:
    """A config-mode paste that lost its indentation indented as NX-OS reads it (its QoS blocks, then its interfaces),
    every line's number kept; other text comes back unchanged. `fix` merges a snippet into this form of a paste."""
    return indent_flat_interfaces(indent_flat_qos(text))


def indent_flat_interfaces(text: str) -> str:
    """A config-mode paste writes an interface's or a port-profile's sub-commands unindented under `interface X` /
    `port-profile type ethernet NAME` (and may close it with `exit`): indent them as a running-config does, up to
    `exit` or a global command, keeping every line's number. A capture of the running-config is left as it is (a bare
    `interface X` line there has no settings); a paste may mix flat blocks with indented ones (NetApp's Nexus RCFs end
    with `interface port-channel999` and its indented lines), each block read as it is written."""
    if _COMMAND_HEADER.search(text) or _RUNNING_HEADER.search(text):
        return text
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if line.startswith(("interface ", "port-profile "))]
    if any(lines[i + 1:i + 2] and lines[i + 1][:1] in (" ", "\t") for i in heads) and not is_flat(
            text, lambda _mode, words: _interface_only(words), _interface_head, mixed=True):
        return text  # indented interfaces, as the running-config prints them: a bare `interface X` sets nothing
    inside = False
    for i, line in enumerate(lines):
        words = line.split()
        if not words or line[:1] in (" ", "\t") or words[0].startswith(COMMENT):
            inside = inside and (not words or words[0].startswith(COMMENT) or line[:1] in (" ", "\t"))
            continue
        if inside and _interface_command(words):
            lines[i] = "  " + line
            continue
        nxt = next((other for other in lines[i + 1:] if other.strip()), "")
        inside = (words[0] in ("interface", "port-profile") and nxt[:1] not in (" ", "\t")
                  and nxt.split()[:1] not in (["interface"], ["port-profile"]))
    return "\n".join(lines)


# What the QoS modes take (Nexus 9000 QoS guide, "Configuring Classification", "Configuring Queuing and Scheduling",
# "Configuring Priority Flow Control": the class-map, policy-map, policy-map class and system qos modes' commands);
# a command one does not take is run by configuration mode, which it enters (`class-map ...` after `set qos-group 3`).
_QOS_MODE_WORDS = {
    "cmap": frozenset({"match", "description"}),
    "pmap": frozenset({"class", "description"}),
    "pclass": frozenset({"set", "pause", "mtu", "bandwidth", "priority", "random-detect", "afd", "congestion-control",
                         "shape", "police", "queue-limit", "multicast-optimize", "dot1p-cos-remap", "description"}),
    "sysqos": frozenset({"service-policy"}),
}
# Commands every NX-OS configuration sub-mode takes besides its own (each mode's `?` lists `no`, `end`, `exit`, `pop`,
# `push`, `where`; `show` runs in any mode): an abbreviation names a mode's keyword only if it begins none of these.
_ANY_MODE_WORDS = frozenset({"no", "end", "exit", "pop", "push", "where", "show"})
# Each QoS mode's keywords, abbreviated as NX-OS takes them (clitext.keyword)
_QOS_KEYWORDS = ModeKeywords(_QOS_MODE_WORDS, _ANY_MODE_WORDS, _GLOBAL_WORDS)
# The QoS modes by the prompt NX-OS shows in them (Nexus 9000 QoS guide: `switch(config-cmap-qos)#`,
# `(config-pmap-qos)#`, `(config-pmap-c-qos)#`, `(config-pmap-nqos)#`, `(config-pmap-nqos-c)#`, `(config-pmap-que)#`,
# `(config-pmap-c-que)#`, `(config-sys-qos)#`), each with the modes enclosing it.
_PROMPT_MODES = {"config-cmap-qos": ("cmap",), "config-cmap-que": ("cmap",), "config-cmap-nqos": ("cmap",),
                 "config-pmap-qos": ("pmap",), "config-pmap-que": ("pmap",), "config-pmap-nqos": ("pmap",),
                 "config-pmap-c-qos": ("pclass", "pmap"), "config-pmap-c-que": ("pclass", "pmap"),
                 "config-pmap-nqos-c": ("pclass", "pmap"), "config-sys-qos": ("sysqos",)}


def _refuses(prompt: str, words: list[str]) -> bool:
    """Whether NX-OS refuses ``words`` typed at a QoS mode's ``prompt`` when it stays in that mode: neither the mode
    nor one enclosing it takes the command. NX-OS answers such a line `% Invalid command at '^' marker.` and keeps its
    prompt (a pasted `ip address` at `Nexus1(config-if)#`, in a published session); a command of configuration mode
    leaves the mode (a new prompt), except one that opens a QoS mode showing the same prompt (the next `class-map`).
    A word that begins one the mode takes is an abbreviation NX-OS may expand: not judged."""
    modes = _PROMPT_MODES.get(prompt, ())
    body = command_body(words)
    if not modes or not body or _qos_mode(None, words) or any(_qos_takes(mode, words) for mode in modes):
        return False
    return not any(word.startswith(body[0]) for mode in modes for word in _QOS_MODE_WORDS[mode])


def _qos_mode(mode: str | None, words: list[str]) -> str | None:
    """The QoS mode a command typed in ``mode`` (None: configuration mode) enters."""
    if mode is None and words[0] == "class-map":
        return "cmap"
    if mode is None and words[0] == "policy-map":
        return "pmap"
    if mode is None and words == ["system", "qos"]:
        return "sysqos"
    return "pclass" if mode == "pmap" and words[0] == "class" else None


def indent_flat_qos(text: str) -> str:
    """A paste that lost its indentation writes a class-map's `match`, a policy-map's `class` and its actions and
    `system qos`'s `service-policy` at the margin, each entered in the mode the line before it left: indent them as
    the running-config does, keeping every line's number. Text whose QoS blocks are all indented is left as it is; a
    paste may mix both (NetApp's Nexus RCFs type one class-map indented among flat policy-maps)."""
    if not is_flat(text, _qos_takes, _qos_mode, mixed=True):
        return text
    # (`exit` is kept: indent_flat_interfaces ends an interface's block at it)
    return renest(text.split("\n"), _qos_takes, _qos_mode, "  ", blank_exits=False, spell=_QOS_KEYWORDS.spell)


def _qos_takes(mode: str, words: list[str]) -> bool:
    """Whether QoS mode ``mode`` takes the command ``words`` (or its `no` form), its keyword written out or
    abbreviated."""
    body = command_body(words)
    return bool(body) and _QOS_KEYWORDS.keyword(mode, body[0]) is not None


def catalyst_qos(words: list[str]) -> None:
    """`mls qos ...` (Cisco IOS QoS Command Reference, `mls qos`: Catalyst global configuration, Supervisor Engine 720;
    `mls qos trust dscp` on its ports) is no command of the Nexus 9000 QoS guide: a guide written for another Cisco
    platform, which NX-OS refuses wherever it is typed, so the trust or queuing it was meant to set is not set."""
    if words[:2] == ["mls", "qos"]:
        raise LineError("`mls qos` is Catalyst IOS's QoS command, no NX-OS one (the Nexus 9000 QoS guide classifies "
                        "with `policy-map type qos` and `service-policy`): the switch refuses it, so what it was meant "
                        "to set (QoS on, trust) is not set")


class _Reader(TreeReader):
    """NX-OS's configuration, a top-level command at a time (top()). Two counts and flags carry over from one
    top-level node to the next, as the file's order gives them:

    - ``expanded``: the port lines the `interface` ranges read so far expanded to, a bound on the whole file's work.
    - ``flat_router``: whether the lines before this one left a `router ...` block pasted without indentation open. It
      is state, not something the node itself tells: indent_flat_interfaces and indent_flat_qos indent only interface,
      port-profile and QoS blocks, so such a block's lines stay top-level nodes of their own, and only the lines
      before one tell that its `hostname dynamic` is IS-IS's (router isis mode, Nexus 9000 Unicast Routing guide), not
      the switch's name. The block opens at a `router` line with no children and ends at the next global command
      (_GLOBAL_WORDS); top() updates the flag at each top-level node, in file order."""

    expanded = 0  # port lines the `interface` ranges expanded to (ports x lines), against MAX_EXPANDED_PORTS

    def cut_reason(self) -> str | None:
        """NX-OS has no end marker: its `show running-config` prints `line console` and `line vty` after the last
        interface, then `boot`, the routing processes and `evpn`, whose indented lines often end a whole config
        (captures of NX-OS 7.0(3)I4 to 10.3 end so), and capture tools drop the final line end. So a file holding
        `line vty` has passed every interface and QoS block; and a part of the config (`!Command: show
        running-config interface Ethernet1/1`, `... ipqos`) may end inside its block."""
        text = self.inp.text
        if _LINE_VTY.search(text):
            return None
        header = _COMMAND_HEADER.search(text)
        if header and header.group(1).strip() not in ("", "all"):
            return None
        return "before `line vty`, which NX-OS prints after the last interface"

    # (clitext.TreeReader.is_wrapped: `class` opens a mode and is entered; an unknown sub-mode (`hsrp 1`) is a mode)
    leaf_words = _INTERFACE_READ | _QOS_MODE_WORDS["pclass"] | _QOS_MODE_WORDS["cmap"] | _QOS_MODE_WORDS["sysqos"]

    def config_text(self) -> str:
        # A configuration-mode command typed in a sub-mode leaves it (_refuses); neither an interface nor `vrf
        # context` takes `interface` (clitext.outdent_interface_lines).
        return outdent_ports(renest_paste(self.inp.text))

    def spell_words(self, node: Node) -> list[str]:
        """An interface line's words with the command it abbreviates written out (`prio mode on`: NX-OS runs
        `priority-flow-control mode on`); a last line without its line end is a cut one (check_truncated says so), and
        its cut word no abbreviation."""
        if node.line == self.cut_line:
            return node.words
        return self.spelled_once(node, lambda line: _INTERFACE_KEYWORDS.spell("if", line.words, strict=True))

    flat_router = False  # (see the class docstring)

    def top(self, node: Node) -> None:
        w = node.words
        catalyst_qos(w)
        # Nexus 9000 QoS guide, "Configuring Classification": `class-map [type qos] [match-any|match-all] NAME` and
        # `policy-map [type qos] [match-first] NAME`: without a type, a class-map or policy-map is of type qos.
        if w[0] in ("class-map", "policy-map") and w[1:2] != ["type"]:
            w = [w[0], "type", "qos", *w[1:]]
        if w[:4] == ["policy-map", "type", "qos", "match-first"]:
            w = w[:3] + w[4:]
        router, self.flat_router = self.flat_router, (w[0] == "router" and not node.children) or (
            self.flat_router and w[0] not in _GLOBAL_WORDS)
        if w == ["hostname", "dynamic"] and router:
            pass  # IS-IS's own (router isis mode, Nexus 9000 Unicast Routing guide), in a paste without indentation
        elif self.host_line(w, node, PLATFORM, ("hostname", "switchname")):
            pass
        elif w[0] == "interface" and (names := _ethernets(w[1:])):
            self.expanded += len(names) * (1 + len(node.children))  # each port reads the block's lines
            check_expanded(self.expanded, self.inp.path, node.line)  # bounded time: a range may name 1,025 ports
            for name in names:  # `interface Ethernet1/1-48` (a template's range) configures each port alike
                conf = port_slot(self.cfg.interfaces, name, lambda: InterfaceConf(source=self.src(node)), self.src(node))
                self.each(node.children, lambda child, conf=conf: self.interface_line(child, conf))
        elif w[0] == "interface" and SUBINTERFACE.match(" ".join(w[1:])):
            self.cfg.tagged_parents.update(subinterface_parents(" ".join(w[1:]), "Ethernet", "port-channel"))
            self.each(node.children, lambda child: subinterface_line(self.spell_words(child), _INTERFACE_QOS))
        elif w[0] == "interface" and _ETHERNET_WORD.match(" ".join(w[1:])):
            raise LineError("cannot tell which Ethernet ports it names (expected `interface Ethernet1/1`, a range "
                            "such as `Ethernet1/1-48`, or a comma list of them): the settings under it are not read")
        elif w[0] == "interface" and (channel := _PORT_CHANNEL.match(" ".join(w[1:]))):
            # Its QoS policies, PFC mode, watchdog, MTU and link pause are read: they apply to its member ports
            # (build.channel_policies); its other lines are not.
            conf = self.cfg.port_channels.setdefault(int(channel[1]), InterfaceConf(source=self.src(node)))
            self.each(node.children, lambda child: self.interface_line(
                child, conf, (*_INTERFACE_QOS, "mtu", "switchport", "ip", "ipv6", "flowcontrol")))
        elif w[0] == "port-profile" and len(w) in (2, 4) and (len(w) == 2 or w[1] == "type"):
            profile = self.cfg.port_profiles.setdefault(w[-1], PortProfile(InterfaceConf(source=self.src(node))))

            def profile_line(child: Node) -> None:
                if child.words in (["state", "enabled"], ["no", "state", "enabled"]):
                    profile.enabled = child.words[0] == "state"
                else:
                    self.interface_line(child, profile.conf)
            self.each(node.children, profile_line)
        elif w[:2] == ["class-map", "type"] and len(w) >= 3 and w[2] == "qos":
            self.class_map(node, w)
        elif w[:2] == ["class-map", "type"] and len(w) >= 4 and w[2] in ("queuing", "network-qos"):
            self.group_class_map(node, w)
        elif w[:2] == ["policy-map", "type"] and len(w) >= 3 and w[2] in ("qos", "queuing", "network-qos"):
            if len(w) != 4:
                raise LineError(f"expected `policy-map type {w[2]} NAME`")
            {"qos": self.qos_policy, "queuing": self.queuing_policy, "network-qos": self.nq_policy}[w[2]](node, w[3])
        elif w == ["system", "qos"]:
            self.each(node.children, self.system_line)
        elif w in (["system", "default", "switchport"], ["no", "system", "default", "switchport"]):
            # Nexus 9000 Interfaces guide, "Configuring Layer 2 Interfaces": ports are Layer 3 or Layer 2 by default
            # by model (9300-EX: Layer 3; 9300: Layer 2); `system default switchport` makes them all Layer 2.
            self.cfg.default_routed = Val(w[0] == "no", self.src(node))
        elif w[:4] == ["vlan", "dot1q", "tag", "native"]:
            self.cfg.native_tagged = True
        elif w[0] == "priority-flow-control":
            self.global_pfc(node, w[1:])
        elif w[:3] == ["hardware", "qos", "pfc-watchdog"]:
            # (written by generated RoCE configs.) Nexus 9000 QoS guide, "Configuring Priority Flow Control": the PFC
            # watchdog is `priority-flow-control watch-dog-interval on`, globally or on a port.
            raise LineError("`hardware qos pfc-watchdog` is no command of the Nexus 9000 QoS guide (its PFC watchdog "
                            "is `priority-flow-control watch-dog-interval on`): not read, the watchdog is read from "
                            "those lines alone")
        elif w[:4] == ["hardware", "access-list", "tcam", "region"] and len(w) == 6 and w[4] in _QOS_TCAM \
                and w[5] == "0":
            self.cfg.qos_tcam_zero.setdefault(w[4], self.src(node))
        elif (w[:2] == ["hardware", "qos"] and may_set_ecn(w[2:])) or (w[:3] == ["no", "hardware", "qos"]
                                                                       and may_set_ecn(w[3:])):
            # (`hardware qos ecn`, `hardware qos ecn threshold 20 80`: an AI-fabric article's N9336C-FX2 block.) The
            # Nexus 9000 QoS guide (10.1x/10.2x, "Configuring Queuing and Scheduling") marks ECN as WRED's `ecn` in
            # an egress queuing class; the NX-API reference's queue-based ECN is `wred-queue qos-group-map
            # queue-only`. No Cisco document read shows such a `hardware qos` line, nor says it is refused.
            raise LineError(f"`{' '.join(w[:3 + (w[0] == 'no')])}` is in no Cisco document losslessd read (the Nexus "
                            "9000 QoS guide "
                            "marks ECN with `random-detect ... ecn` in an egress queuing class): could not verify "
                            "what it sets; each queue's ECN is read from its queuing class alone")

    def class_map(self, node: Node, w: list[str]) -> None:
        """`class-map type qos [match-any|match-all] NAME` with `match dscp LIST` / `match cos LIST` lines (any
        other match, an ACL or IP precedence, is read and makes the class one losslessd does not evaluate)."""
        if len(w) not in (4, 5) or (len(w) == 5 and w[3] not in ("match-any", "match-all")):
            raise LineError("expected `class-map type qos [match-any|match-all] NAME`")
        # Entering an existing class-map again adds to it, as the switch does with a pasted snippet.
        conf = self.cfg.class_maps.setdefault(w[-1], QosClass(source=self.src(node)))
        conf.match_all = not (len(w) == 5 and w[3] == "match-any")

        def line(child: Node) -> None:
            cw = child.words
            if cw[:2] == ["match", "dscp"] and len(cw) > 2:
                conf.dscp.update(dscp_values(cw[2:]))
            elif cw[:2] == ["match", "cos"] and len(cw) > 2:
                try:
                    values = units.int_list(" ".join(cw[2:]))
                except ValueError:
                    values = []
                if not values or max(values) > 7:
                    raise LineError("CoS values must be numbers 0-7")
                conf.cos.update(values)
            elif cw[:2] in (["match", "dscp"], ["match", "cos"]):
                raise LineError(f"expected the values after `{child.text}`")
            elif cw[0] == "match":
                conf.other = True  # ACL, precedence, protocol...: the class is not a DSCP/CoS map
            elif cw[0] != "description":
                raise LineError("not a class-map command losslessd knows")

        def unread(child: Node) -> None:
            if child.words[0] == "match":  # what the class matches is unknown: not a DSCP/CoS map to evaluate
                conf.other = True
        self.each(node.children, line, unread)

    def group_class_map(self, node: Node, w: list[str]) -> None:
        """`class-map type queuing|network-qos [match-any] NAME` with `match qos-group N` (Nexus 3000/5000
        user-defined system classes)."""
        table = self.cfg.queuing_class_maps if w[2] == "queuing" else self.cfg.nq_class_maps
        name = w[-1]

        def line(child: Node) -> None:
            cw = child.words
            if cw[:2] == ["match", "qos-group"] and len(cw) == 3:
                table[name] = Val(bounded_int(cw[2], 0, 7, "the qos-group"), self.src(child))
            elif cw[0] not in ("description", "match"):
                raise LineError("not a class-map command losslessd knows")
        self.each(node.children, line)

    def qos_policy(self, node: Node, name: str) -> None:
        """Re-entering a policy-map or one of its classes merges into it; a later `set qos-group` replaces."""
        classes = self.cfg.qos_policies.setdefault(name, {})
        for child in node.children:
            cw = child.words
            if cw[0] == "description":
                continue
            if cw[0] != "class" or len(cw) not in (2, 4) or (len(cw) == 4 and cw[1:3] != ["type", "qos"]):
                self.garbled(child, "expected `class NAME` in a qos policy-map")
                continue
            group = classes.get(cw[-1])
            for sub in child.children:
                sw = sub.words
                if sw[:2] == ["set", "qos-group"]:
                    value = self.set_value(sub, "the qos-group")
                    if value is None:  # (named) the class's qos-group, so the policy's map, is unknown
                        self.cfg.qos_policy_unread.add(name)
                    group = value or group
                elif sw[0] not in ("set", "police", "description", "no"):
                    self.garbled(sub, "not a qos policy-map class command losslessd knows")
            classes[cw[-1]] = group

    def queuing_policy(self, node: Node, name: str) -> None:
        queues = self.cfg.queuing_policies.setdefault(name, {})  # re-entered: merged, as for qos policies
        for child in node.children:
            cw = child.words
            if cw[0] == "description":
                continue
            if cw[0] != "class" or len(cw) not in (2, 4) or (len(cw) == 4 and cw[1:3] != ["type", "queuing"]):
                self.garbled(child, "expected `class type queuing NAME`")
                continue
            queue = queues.setdefault(cw[-1], QueueConf(source=self.src(child)))
            self.each(child.children, lambda sub, queue=queue: self.queue_command(sub, queue),
                      on_piece=functools.partial(self.marking_piece, conf=queue, field="wred", unread=None))

    def queue_command(self, node: Node, queue: QueueConf) -> None:
        w = node.words
        src = self.src(node)
        catalyst_qos(w)
        # A class is served by priority or by a bandwidth share; with both, it is unknown which (both_lines).
        if w == ["priority"] or w[:2] == ["priority", "level"]:
            if len(w) != 1:
                # Cisco Nexus 9000 NX-OS QoS Configuration Guide, "Configuring Queuing and Scheduling": `priority
                # [level value]`, the level 1-7.
                bounded_int(w[2] if len(w) == 3 else "", 1, 7, "the priority level")
            queue.strict = Val(" ".join(w), src)
        elif w[0] == "bandwidth" and len(w) in (3, 4) and w[-2] == "percent" and w[1] in ("percent", "remaining"):
            queue.bandwidth = Val(bounded_int(w[-1], 0, 100, "the bandwidth percent"), src)
            queue.share = " ".join(w)
        elif w == ["congestion-control", "tail-drop"]:
            # Nexus 9000 QoS guide, "Configuring Queuing and Scheduling", congestion avoidance: a queue applies WRED or
            # tail drop, and ECN is an extension of WRED; tail drop marks nothing (a later `random-detect` replaces it)
            self.replace_wred(node, queue, Val(RawEcn(node.text, None, None, None, False, dropping=False), src))
        elif w[:2] == ["random-detect", "threshold"] or w[0] == "afd":
            # Nexus 9000 preset WRED / approximate fair drop (`random-detect threshold burst-optimized ecn`,
            # `afd queue-desired 150 kbytes [ecn]`): marks when `ecn` is given, thresholds the switch chooses.
            self.replace_wred(node, queue, Val(RawEcn(node.text, None, None, None, w[-1] == "ecn"), src))
        elif w[0] == "random-detect":
            try:
                value = self.wred(node, w)
            except LineError:
                queue.wred = Val(None, src)  # marking that could not be read is unknown, not off
                raise
            self.replace_wred(node, queue, Val(value, src))
        elif w[:2] == ["pause", "buffer-size"]:
            queue.pause = Val(self.pause(w), src)
        elif w[:2] == ["no", "priority"]:
            queue.strict = None
        elif w[:2] == ["no", "bandwidth"]:
            queue.bandwidth = None
        elif w[:2] == ["no", "random-detect"]:
            queue.wred = None
        elif w[0] == "shape":  # Nexus 9000 QoS guide, "Configuring Shaping": `shape min X max Y` caps the queue
            queue.shaped = src
        elif w[0] in ("queue-limit", "no"):
            pass  # tail-drop limits are not part of the model
        else:
            if may_set_ecn(w):  # (a `random-detect` line's `ecn` on a line of its own): the marking is unknown
                queue.wred = Val(None, src)
            raise LineError("not a queuing class command losslessd knows")

    def replace_wred(self, node: Node, queue: QueueConf, wred: Val) -> None:
        """A class's WRED line: it replaces the one entered before it (a queuing class holds one WRED or AFD setting:
        the Nexus 9000 QoS guide, "Configuring WRED on Egress Queues", configures one per class, and a command entered
        again in a mode replaces its earlier value), unless that one was not read: a class with two WRED lines is no
        running-config NX-OS printed, and with one of them unread which the switch holds is not known, so its ECN
        stays unknown (a SYS002 says so at this line)."""
        if queue.wred is not None and queue.wred.value is None:
            self.issue(node, f"`{node.text.strip()[:80]}` follows a WRED line of the same class that was not read "
                             f"(line {queue.wred.source.line}): which of them the switch holds is not known, so the "
                             "class's ECN marking is unknown")
            return
        queue.wred = wred

    def pause(self, w: list[str]) -> RawPause:
        """`pause buffer-size B pause-threshold X resume-threshold Y` in bytes (Nexus 3000/9000 QoS guides, ingress
        queuing: the no-drop class's buffer and its XOFF / XON fill levels). losslessd found no Cisco document that
        states the values each platform accepts, so they are not checked against ranges (docs/platforms.md): each is
        read as written (at most 15 digits, as the WRED thresholds), and only their order is checked, which their
        meaning sets (XON below XOFF, both fill levels of the buffer)."""
        if len(w) != 7 or w[3] != "pause-threshold" or w[5] != "resume-threshold":
            raise LineError("expected `pause buffer-size B pause-threshold X resume-threshold Y`")
        for i, what in ((2, "buffer-size"), (4, "pause-threshold"), (6, "resume-threshold")):
            if not _NUMBER.match(w[i]):
                raise LineError(f"the {what} {w[i][:40]!r} is not a number of bytes (at most 15 digits)")
        size, xoff_at, xon_at = int(w[2]), int(w[4]), int(w[6])
        if not xon_at <= xoff_at <= size:
            raise LineError("the resume threshold must not exceed the pause threshold, nor that the buffer size")
        return RawPause(size, xoff_at, xon_at)

    def wred(self, node: Node, w: list[str]) -> RawEcn:
        # Nexus 9000 QoS guide, "Configuring WRED on Egress Queues": random-detect minimum-threshold X
        # {bytes|kbytes|mbytes} maximum-threshold Y {bytes|kbytes|mbytes} drop-probability P weight W [ecn].
        if len(w) < 7 or w[1] != "minimum-threshold" or w[4] != "maximum-threshold":
            raise LineError("expected `random-detect minimum-threshold X UNIT maximum-threshold Y UNIT ...`")
        rest = w[7:]
        ecn = bool(rest) and rest[-1] == "ecn"
        probability = wred_options(rest[:-1] if ecn else rest, "drop-probability")
        kmin, kmax = self.threshold(node, w[2], w[3]), self.threshold(node, w[5], w[6])
        return RawEcn(node.text, kmin, kmax, probability, ecn)

    def threshold(self, node: Node, text: str, unit: str) -> int | None:
        if not _NUMBER.match(text):
            raise LineError(f"threshold {text[:40]!r} is not a number of at most 15 digits")
        if not units.is_byte_unit(unit):
            self.issue(node, f"unknown threshold unit {unit!r} in `{node.text}`: the WRED thresholds are kept as "
                             "written and cannot be checked", code="SYS003")
            return None
        return units.to_bytes(f"{text} {unit}")

    def nq_policy(self, node: Node, name: str) -> None:
        classes = self.cfg.nq_policies.setdefault(name, {})  # re-entered: merged, as for qos policies
        for child in node.children:
            cw = child.words
            if cw[0] == "description":
                continue
            if cw[0] != "class" or len(cw) not in (2, 4) or (len(cw) == 4 and cw[1:3] != ["type", "network-qos"]):
                self.garbled(child, "expected `class type network-qos NAME`")
                continue
            group = class_index(cw[-1], _NQ_CLASS)
            conf = classes.setdefault(cw[-1], NqClass(-1 if group is None else group, self.src(child)))
            self.each(child.children, functools.partial(self.nq_command, conf=conf),
                      functools.partial(self.pause_unread, conf=conf))

    def pause_unread(self, node: Node, conf: NqClass) -> None:
        """A `pause` line not read would make the class no-drop: its no-drop is unknown, not lossy."""
        if node.words[0] == "pause":
            conf.pause_unread = conf.pause_unread or self.src(node)

    def nq_command(self, node: Node, conf: NqClass) -> None:
        w = node.words
        catalyst_qos(w)
        if w[:2] == ["pause", "no-drop"] and len(w) == 2:
            conf.no_drop = Val(True, self.src(node))
        elif w[0] == "pause" and "pfc-cos" in w and w[1] in ("pfc-cos", "no-drop"):
            # `pause pfc-cos N` (Nexus 9000) and `pause no-drop pfc-cos N` (Nexus 3000/5000)
            try:
                cos = units.int_list(" ".join(w[w.index("pfc-cos") + 1:]))
            except ValueError:
                cos = []
            if not cos or max(cos) > 7:
                raise LineError("pfc-cos values must be numbers 0-7")
            conf.pfc_cos = Val(cos, self.src(node))
        elif w[:2] == ["no", "pause"]:
            conf.pfc_cos = conf.no_drop = None
        elif w[0] == "mtu" and len(w) == 2:
            conf.mtu = Val(bounded_int(w[1], 576, 9216, "the class MTU"), self.src(node))
        elif w == ["congestion-control", "tail-drop"]:
            pass  # no ECN (queue_command): the queue marks only where its queuing class says `random-detect ... ecn`
        elif w[0] == "congestion-control":
            # (`congestion-control ecn` in generated RoCE configs.) The Nexus 9000 QoS guide marks ECN in an egress
            # queuing class (`random-detect ... ecn`), which is where losslessd reads it.
            raise LineError("ECN or congestion control set in a network-qos class is not read: losslessd reads a "
                            "queue's ECN from the queuing policy's `random-detect ... ecn`, so what this line was "
                            "meant to set is not shown")
        elif w[0] not in ("set", "description", "no", "multicast-optimize", "queue-limit", "dot1p-cos-remap"):
            raise LineError("not a network-qos class command losslessd knows")

    def system_line(self, node: Node) -> None:
        """`service-policy type qos input NAME`, `type queuing output NAME`, `type network-qos NAME`."""
        w = node.words
        if w[:3] == ["no", "service-policy", "type"]:
            # Nexus 9000 QoS guide, "Attaching and Detaching a QoS Policy Action": the `no` form detaches, and the
            # system-defined default policy of that type applies again.
            rest = w[3:]
            if rest[:1] == ["network-qos"] and len(rest) in (1, 2):
                key, name = "network-qos", rest[1:]
            elif rest[:2] == ["qos", "input"] and len(rest) in (2, 3):
                key, name = "qos", rest[2:]
            elif rest[:1] == ["queuing"] and rest[1:2] in (["input"], ["output"]) and len(rest) in (2, 3):
                key, name = ("queuing" if rest[1] == "output" else "queuing-in"), rest[2:]
            else:
                raise LineError("expected `no service-policy type qos input|queuing input|queuing output|network-qos "
                                "[NAME]`")
            attached = self.cfg.system.get(key)
            if attached is not None and name in ([], [attached.value]):
                del self.cfg.system[key]
            return
        if w == ["service-policy", "type", "network-qos"]:  # its policy not read: what it attaches is unknown
            self.cfg.system["network-qos"] = Val(POLICY_UNREAD, self.src(node))
        if w[:2] != ["service-policy", "type"] or len(w) < 4:
            raise LineError("expected `service-policy type qos|queuing|network-qos ...`")
        kind = w[2]
        if kind == "network-qos" and len(w) == 4:
            self.cfg.system[kind] = Val(w[3], self.src(node))
        elif kind == "qos" and w[3:4] == ["input"] and len(w) == 5:
            self.cfg.system[kind] = Val(w[4], self.src(node))
        elif kind == "queuing" and len(w) == 5 and w[3] in ("input", "output"):
            self.cfg.system[kind if w[3] == "output" else "queuing-in"] = Val(w[4], self.src(node))
        else:
            unread = {("network-qos", None): "network-qos", ("qos", "input"): "qos", ("queuing", "output"): "queuing",
                      ("queuing", "input"): "queuing-in"}.get((kind, None if kind == "network-qos" else w[3]))
            if unread is not None:  # a binding of that kind, its policy not read: what it attaches is unknown, not none
                self.cfg.system[unread] = Val(POLICY_UNREAD, self.src(node))
            raise LineError("expected `service-policy type qos input NAME`, `type queuing output NAME` or "
                         "`type network-qos NAME`")

    def interface_line(self, node: Node, conf: InterfaceConf, only: tuple[str, ...] | None = None) -> None:
        """One line of an interface or port-profile; ``only``: the commands read (a port-channel's: its QoS policies,
        profiles, PFC mode and watchdog, MTU, `[no] switchport` and address), the others skipped."""
        w = self.spell_words(node)
        src = self.src(node)
        if other_port_qos(w, _INTERFACE_READ | _INTERFACE_OTHER):
            raise LineError("no NX-OS interface command (Nexus 9000 QoS guide: a port's QoS is its "
                            "`priority-flow-control` and `service-policy` lines): the switch refuses it, so what it "
                            "was meant to set (trust, PFC, ECN) is not set")
        body = command_body(w)
        if only is not None and (not body or body[0] not in only):  # (a `no` form of one read is read too)
            return
        if w[0] == "description":
            conf.description = node.text.split(None, 1)[1].strip() if len(w) > 1 else ""
        elif layer3_line(conf, w, src):
            pass  # (Nexus 9000 Interfaces guide, "Configuring Layer 3 Interfaces": `no switchport`, then `ip address`)
        elif switchport_line(conf.switchport, w, src):
            pass  # (Nexus 9000 Layer 2 guide, "Configuring Access and Trunk Interfaces": mode, access, native, allowed)
        elif w[0] == "mtu":
            conf.mtu = Val(bounded_int(w[1] if len(w) == 2 else "", 576, 9216, "the MTU"), src)
        elif w[0] == "speed" and w[1:] != ["auto"]:
            if len(w) != 2:
                raise LineError("expected `speed auto` or `speed MBPS`")
            conf.speed = Val(bounded_int(w[1], 1, 1_600_000, "the speed in Mb/s") / 1000, src)  # NX-OS speed is in Mb/s
        elif w in (["shutdown"], ["no", "shutdown"]):
            conf.admin_up = Val(w[0] == "no", src)
        elif w[:2] == ["priority-flow-control", "mode"]:
            # `mode on send-tlv`: on, and advertised in LLDP's DCBX TLVs (Nexus 9000 QoS guide, "Configuring PFC")
            if len(w) not in (3, 4) or w[2] not in ("on", "off", "auto") or w[3:] not in ([], ["send-tlv"]):
                raise LineError("expected `priority-flow-control mode on|off|auto [send-tlv]`")
            conf.pfc_mode = Val(w[2], src)
        elif w[:2] == ["priority-flow-control", "watch-dog-interval"]:
            if len(w) != 3 or w[2] not in ("on", "off"):
                conf.watchdog = Val(WATCHDOG_UNREAD, src)  # it may be the line that starts it: unknown, not off
                raise LineError("expected `priority-flow-control watch-dog-interval on|off`")
            conf.watchdog = Val(w[2] == "on", src)
        elif body[:1] == ["flowcontrol"]:
            # Cisco Nexus 9000 QoS Configuration Guide, "Configuring Link Level Flow Control": `flowcontrol
            # receive|send on|off` per direction, "disabled for both directions" by default
            flowcontrol_line(conf, w, src, LINK_PAUSE_DEFAULT)
        elif w[:3] == ["service-policy", "type", "network-qos"] or w[:4] == ["no", "service-policy", "type",
                                                                             "network-qos"]:
            # Nexus 9000 QoS guide, "Configuring Network QoS": a network-qos policy is attached to the system
            # (`system qos`) only; an interface has no network-qos target (that is Dell OS10's port syntax).
            raise LineError("a network-qos policy is attached under `system qos` only, not to a port: this line sets "
                            "nothing, and the port's no-drop classes are the system's")
        elif w[:3] == ["no", "service-policy", "type"]:
            attr = _DETACHED.get((w[3], w[4]) if len(w) in (5, 6) else ("", ""))
            if attr is None:
                raise LineError("expected `no service-policy type qos|queuing input|output [NAME]`")
            attached = getattr(conf, attr) if attr else None  # (an output qos policy is not read: nothing to detach)
            if attached is not None and w[5:] in ([], [attached.value]):
                setattr(conf, attr, None)  # (the switch refuses a name that is not the attached one: nothing changes)
        elif w[:3] == ["service-policy", "type", "qos"]:
            w = _without_no_stats(w)
            if len(w) != 5 or w[3] not in ("input", "output"):
                if w[3:4] == ["input"]:  # the port's classification, its policy not read: unknown, not the system's
                    conf.qos_policy = Val(POLICY_UNREAD, src)
                raise LineError("expected `service-policy type qos input|output NAME`")
            if w[3] == "input":  # an output qos policy marks what leaves: it classifies nothing coming in
                conf.qos_policy = Val(w[4], src)
        elif w[:3] == ["service-policy", "type", "queuing"]:
            if len(w) != 5 or w[3] not in ("input", "output"):
                if w[3:4] in (["input"], ["output"]):  # its policy not read: the port's queuing is unknown
                    attr = "queuing_policy" if w[3] == "output" else "queuing_in_policy"
                    setattr(conf, attr, Val(POLICY_UNREAD, src))
                raise LineError("expected `service-policy type queuing output NAME`")
            if w[3] == "output":
                conf.queuing_policy = Val(w[4], src)
            else:
                conf.queuing_in_policy = Val(w[4], src)
        elif w[:2] == ["inherit", "port-profile"]:
            if len(w) != 3:
                raise LineError("expected `inherit port-profile NAME`")
            conf.profiles.append(Val(w[2], src))
        elif w[0] == "channel-group" and len(w) >= 2:
            conf.channel_group = Val(bounded_int(w[1], 1, 4096, "the port-channel number"), src)
            conf.channel_force = Val(True, src) if w[2:3] == ["force"] else None
        elif w[:2] == ["no", "channel-group"]:
            # (Cisco Nexus 9000 Interfaces Configuration Guide, "Configuring Port Channels": `no channel-group`
            # takes the port out of its port channel)
            conf.channel_group = conf.channel_force = None
        elif w[:2] == ["priority-flow-control", "watch-dog"]:
            pass  # per-interface watchdog timers: not part of the model (the global ones are)
        elif w[0] == "priority-flow-control":
            raise LineError("not a priority-flow-control command losslessd knows")
        elif w[0] == "service-policy" or w[:2] == ["no", "service-policy"]:
            raise LineError("expected `service-policy type qos|queuing input|output NAME`")

    def global_pfc(self, node: Node, rest: list[str]) -> None:
        src = self.src(node)
        if rest[:1] == ["watch-dog-interval"] and len(rest) == 2 and rest[1] in ("on", "off"):
            self.cfg.watchdog = Val(rest[1] == "on", src)
        elif rest[:1] == ["watch-dog-interval"]:
            self.cfg.watchdog = Val(WATCHDOG_UNREAD, src)  # it may be the line that starts it: unknown, not off
            raise LineError("expected `priority-flow-control watch-dog-interval on|off`")
        elif rest[:1] == ["watch-dog"] and len(rest) == 3 and rest[1] == "interval":
            # Nexus 9000 QoS guide, PFC chapter: `priority-flow-control watch-dog interval` in ms (100-1000).
            self.cfg.wd_timers["interval"] = Val(bounded_int(rest[2], 100, 1000, "the watch-dog interval (ms)"), src)
        elif rest[:1] == ["watch-dog"] and len(rest) == 3 and rest[1] in ("shutdown-multiplier",
                                                                          "auto-restore-multiplier"):
            self.cfg.wd_timers[rest[1]] = Val(bounded_int(rest[2], 1, 100, f"the {rest[1]}"), src)
        elif rest[:2] == ["auto-restore", "multiplier"] and len(rest) == 3:
            # Nexus 9000 QoS guide, PFC chapter: the restore multiplier is top-level, `priority-flow-control
            # auto-restore multiplier N` (0-100 watchdog intervals).
            self.cfg.wd_timers["auto-restore-multiplier"] = Val(bounded_int(rest[2], 0, 100,
                                                                            "the auto-restore multiplier"), src)
        elif rest[:1] == ["watch-dog"] and rest[1:2] in (["interval"], ["shutdown-multiplier"],
                                                         ["auto-restore-multiplier"]):
            raise LineError(f"expected one number after `priority-flow-control watch-dog {rest[1]}`")
        elif rest[:1] in (["auto-restore"], ["fixed-restore"], ["watch-dog"]):
            pass  # other watchdog knobs (fixed multipliers, internal-interface) are not part of the model
        else:
            raise LineError("not a priority-flow-control command losslessd knows")
