"""Read an EOS running-config into its QoS settings (per interface, per `qos profile`, global), each with its line.

EOS prints a block's sub-commands indented under their parent (three spaces, six under a
tx-queue); `!` lines separate blocks and `!!` lines are comments. Lines that are not about QoS
are skipped without a word; a QoS line that cannot be read becomes a SYS002 issue (an unknown
threshold unit a SYS003 issue) and everything else is still read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import field

from ... import units
from ...lazyre import lazy
from ...model import ParseIssue, Source, Trust
from ...records import record
from ..base import Input, IssueList, check_expanded, port_slot
from ..clitext import (
    SUBINTERFACE,
    AllowedVlans,
    LineError,
    Node,
    TreeReader,
    Val,
    allowed_vlans,
    bounded_int,
    check_config_text,
    command_body,
    config_session,
    dscp_values,
    ethernet_ports,
    flowcontrol_line,
    layer3_line,
    may_set_ecn,
    other_port_qos,
    outdent_interface_lines,
    subinterface_line,
    subinterface_parents,
    wred_options,
)
from . import PLATFORM, flat

ETHERNET = lazy(r"^Ethernet\d+(/\d+)*$")
_PORT_CHANNEL = lazy(r"^Port-Channel(\d{1,4})$", re.ASCII)
# A port-channel's lines that set QoS on an Ethernet port (EOS User Manual, "Quality of Service" and "DCBX and Flow
# Control"): PFC, 802.3x link pause, a service profile, tx-queue blocks; `qos trust|cos|dscp` (flat.QOS_PORT).
_CHANNEL_QOS = frozenset({"priority-flow-control", "flowcontrol", "service-profile", "tx-queue", "uc-tx-queue",
                          "mc-tx-queue"})
_INLINE_BANG = ("an inline `!` after a command: whether EOS reads the words after it as a comment is in no Arista "
               "document losslessd read (EOS writes a comment on a line of its own, `!` or `comment`); move the note "
               "to its own line")


def _inline_bang(words: list[str]) -> bool:
    """Whether an interface line (not its free-text `description`) has a word beginning with `!` after the first."""
    return words[0] != "description" and any(w.startswith("!") for w in words[1:])


# The names EOS takes for the same port in a config typed by hand (`interface et1/1`, `interface Eth1/1`,
# `interface ethernet 1/1`; EOS prints Ethernet1/1 and abbreviates it Et1/1 in `show interfaces status`): each is
# Ethernet1/1, never a second port whose settings would be read apart.
_ETHERNET_SPELLED = lazy(r"^(?:ethernet|eth|et)\s*(\d+(?:/\d+)*)$", re.IGNORECASE)
_RANGE_SEPARATOR = lazy(r"[-,]")  # (between an `interface` line's ports and ranges)
_NUMBER = lazy(r"^[0-9]{1,15}(\.[0-9]{1,9})?$")  # a threshold: 15 digits are a petabyte
# `speed [forced|auto] S`: 100g, 400g-8, 1.6t-8, 2.5g, 100gfull, 2.5gfull, 10000full, 1000half, 100mfull, 10mhalf
# (AVD's eos_cli_config_gen schema lists the speeds EOS takes).
_EOS_SPEED = lazy(r"[0-9]{1,7}(?:\.[0-9]{1,3})?(?:g(?:full|-[0-9]{1,2})?|t-[0-9]{1,2}|m?(?:full|half))")
# `! device: leaf1 (DCS-7280SR3-48YC8, EOS-4.28.3M)`: the header `show running-config` prints.
_DEVICE_HEADER = lazy(r"^! device: (\S+) \(([^,()\s]+), EOS-", re.M)
# Top-level words of an EOS config; a file with none of them is not one.
# (`int` ... `interfac`: the prefixes of `interface` EOS takes as it, typed in sessions)
_EOS_LINE = lazy(r"^(!|(hostname|int(?:e(?:r(?:f(?:a(?:c(?:e)?)?)?)?)?)?|qos|priority-flow-control|end|ip|ipv6|"
                       r"router|vlan|spanning-tree|username|management|service|logging|ntp|snmp-server|aaa|"
                       r"transceiver|daemon|mlag|policy-map|class-map|vrf|lldp)(\s|$))")
# The speed keywords written in Mb/s (AVD's eos_cli_config_gen schema: 10full ... 10000full; faster speeds are written
# in g, 25gfull, 100gfull). EOS takes a keyword's unambiguous prefix as the keyword (EOS User Manual, "Command-Line
# Interface": `prio on` for `priority-flow-control on`), so `speed forced 10000` (AVD's DC1-LEAF2A) is 10000full;
# `1000` (1000full, 1000half, 10000full) and `100` are ambiguous, and EOS refuses them. Only these documented
# keywords are a bare number's candidates: which g keywords a release takes (25gfull, 50g-2 ...) differs by release and
# platform, so a number starting none of these is said to be no keyword read, not matched against guessed words.
_MBPS_SPEEDS = ("10full", "10half", "100full", "100half", "1000full", "1000half", "10000full")
WATCHDOG_TIMERS = ("timeout", "recovery-time", "polling-interval")
WATCHDOG_ACTIONS = ("drop", "no-drop", "notify-only", "errdisable")
# The global watchdog lines EOS takes (EOS User Manual, "DCBX and Flow Control": `priority-flow-control pause watchdog
# default timeout|recovery-time|polling-interval`, one timer a line, its value in seconds; `... pause watchdog action`;
# AVD eos_cli_config_gen writes them so): any other `pause watchdog` line is one the switch refuses.
_WATCHDOG_FORMS = ("EOS takes `priority-flow-control pause watchdog default timeout|recovery-time|polling-interval "
                   "SECONDS` (one timer a line, in seconds) and `priority-flow-control pause watchdog action "
                   f"{'|'.join(WATCHDOG_ACTIONS)}`: the switch refuses this line, so it sets no watchdog timer or "
                   "action (the ports keep EOS's defaults, and only a port's own `priority-flow-control pause "
                   "watchdog` starts it)")
# Free text EOS keeps up to a line reading `EOF`: `comment` under a block and `banner login|motd` (EOS User
# Manual, `comment` and `banner` commands; AVD's intended configs print them so). The text is not configuration.
_FREE_TEXT = lazy(r"^[ \t]*(comment|banner[ \t]+(login|motd))[ \t]*\r?$")
# tx-queue sub-commands that exist but are not part of the model: minimum bandwidth, the ECN counter switch.
_QUEUE_IGNORED = (("bandwidth", "guaranteed"), ("no", "bandwidth"), ("random-detect", "ecn", "count"),
                  ("no", "random-detect", "ecn", "count"), ("comment",))
# qos profile sub-commands that exist but are not part of the model (default CoS/DSCP, shaping, policy-maps).
_PROFILE_IGNORED = ("qos", "shape", "service-policy", "mc-tx-queue")
# EOS QoS guide, policy maps: `policy-map type quality-of-service NAME` (`qos` in older releases).
_POLICY_TYPES = (["policy-map", "type", "quality-of-service"], ["policy-map", "type", "qos"])
# The policy-map types EOS has (EOS User Manual, Quality of Service and Control Plane Policing: `policy-map type
# quality-of-service|pbr|copp|pdp NAME`; a port binds the first as `service-policy type qos`), as AVD eos_cli_config_gen
# (3cac535c16) writes them and a DCS-7260CX-64 `show running-config all` prints them: no `tx-queue` type, whose
# binding a design page printed.
_POLICY_MAP_TYPES = ("qos", "quality-of-service", "pbr", "copp", "pdp")


def _no_such_policy_map(kind: str, what: str) -> LineError:
    """A policy-map line of a type EOS has not (its parser stops at the word, as at any word it lacks)."""
    return LineError(f"EOS has no policy-map of type {kind[:40]!r} (its types are {', '.join(_POLICY_MAP_TYPES)}; a "
                     "port's queues are set by its own `tx-queue N` lines or a `qos profile` it binds with "
                     f"`service-profile NAME`): the switch refuses {what}, so the queues keep what other lines set "
                     "or EOS's defaults (no ECN marking)")


@record(frozen=True)
class Threshold:
    """An ECN threshold as EOS writes it: the number, its unit and what kind of unit that is."""

    text: str  # the number as written
    unit: str
    kind: str  # bytes | time | segments | unknown


# A `random-detect ecn` line the reader could not read (a SYS002 names it): the queue's marking is unknown, not off.
ECN_UNREAD = "unread"
# The ECN line's one form: AVD eos_cli_config_gen (3cac535c16) writes `random-detect ecn minimum-threshold MIN UNITS
# maximum-threshold MAX UNITS [max-mark-probability P] [weight W]`, the unit after each threshold, UNITS one of its
# schema's `random_detect.ecn.threshold.units` (segments, bytes, kbytes, mbytes, milliseconds; microseconds in later
# schemas). No Arista document or generator losslessd read writes a unit elsewhere.
_ECN_OPTIONS = ("max-mark-probability", "weight")
_ECN_FORM = ("EOS writes `random-detect ecn minimum-threshold X UNIT maximum-threshold Y UNIT [max-mark-probability P] "
             "[weight W]`, the unit (bytes, kbytes, mbytes, segments, milliseconds or microseconds) after each "
             "threshold; the queue's ECN marking is unknown")
# A `qos map` line not read (a SYS002 names it): the values it names map to an unknown target, not EOS's default.
MAP_UNREAD = -1


@record(frozen=True)
class RawEcn:
    """`random-detect ecn minimum-threshold ...` as written; converted per port (time units need its speed)."""

    text: str
    kmin: Threshold
    kmax: Threshold
    probability: float | None
    profile: str | None  # the qos profile it came from; None on an interface


@record
class QueueConf:
    """What a `tx-queue` block says: strict priority, bandwidth share, ECN."""

    source: Source
    strict: Val | None = None  # True: `priority strict`; False: `no priority`
    bandwidth: Val | None = None  # `bandwidth percent N`
    ecn: Val | None = None  # value RawEcn, None for `no random-detect ecn`, ECN_UNREAD for a line not read
    shaped: Val | None = None  # True: `shape rate X`; False: `no shape rate`
    # `random-detect drop minimum-threshold ...`: WRED that drops every packet it selects (True; Arista TOI "WRED":
    # ECN-capable and not alike); value None for one of a drop precedence only (`... drop-precedence N ...`), False for
    # `no random-detect drop`; no Val: the block does not say.
    drop: Val | None = None


@record
class QosConf:
    """What a `qos profile` and an interface share; an interface's own lines win over its profile's."""

    source: Source
    trust: Val | None = None
    pfc: Val | None = None  # `priority-flow-control on|off`
    priorities: dict[int, Val] = field(default_factory=dict)  # True: no-drop
    watchdog: Val | None = None  # `[no] priority-flow-control pause watchdog`
    service_policy: Val | None = None  # `service-policy type qos input NAME`: a policy-map that classifies
    wd_action: Val | None = None
    wd_timers: dict[str, Val] = field(default_factory=dict)  # WATCHDOG_TIMERS -> ms (None: auto)
    queues: dict[int, QueueConf] = field(default_factory=dict)
    pfc_unread: Source | None = None  # a PFC line (not a watchdog one) not read: which priorities pause is unknown
    trust_unread: Source | None = None  # a `qos trust` line not read: the port's trust is unknown, not its default
    wd_unread: Source | None = None  # a watchdog line not read: whether the watchdog runs, and how, is unknown
    # a binding not read (`service-policy type tx-queue output NAME`): the marking of a queue no line sets is unknown
    queues_unread: Source | None = None
    # A PFC, trust or watchdog line that sets something, not one that restates the default (as `show
    # running-config all` prints every port's: `no priority-flow-control`, `no priority-flow-control priority N`,
    # the default-on `priority-flow-control pause watchdog`, `no ... watchdog port action|timer`).
    explicit: bool = False

    @property
    def qos_lines(self) -> bool:
        """PFC, trust or tx-queue ECN settings: what makes a port RoCE-facing by default."""
        return self.explicit or any(q.ecn is not None and q.ecn.value is not None for q in self.queues.values())


@record
class InterfaceConf(QosConf):
    """An interface's own lines, over the QoS settings a `qos profile` would give it."""

    description: str | None = None
    mtu: Val | None = None
    speed: Val | None = None  # Gb/s
    admin_up: Val | None = None
    routed: Val | None = None  # `no switchport`
    l3_address: Source | None = None  # the first `ip address` / `ipv6 address` line
    profile: Val | None = None  # `service-profile NAME`
    interface_profile: Val | None = None  # `profile NAME`: an `interface profile`'s commands
    channel_group: int | None = None  # `channel-group N mode ...`: a member of Port-ChannelN
    trunk: bool = False  # `switchport mode trunk`
    pause_rx: Val | None = None  # `flowcontrol receive on|off`: 802.3x link pause honoured (None in a Val: not read)
    pause_tx: Val | None = None  # `flowcontrol send on|off`: 802.3x link pause sent
    other_mode: bool = False  # `switchport mode` neither access nor trunk (dot1q-tunnel, tap, tool, ...)
    access_vlan: int | None = None  # `switchport access vlan N`
    trunk_vlans: AllowedVlans | None = None  # `switchport trunk allowed vlan ...`; None: all


@record
class QosClass:
    """A `class-map type qos`: the DSCP values it matches; `dscp_ecn` those it matches only with an ECN condition
    (`match dscp 26 ecn ce`: some of their packets, not all); `other` when it matches on anything else (an ACL, CoS,
    a VLAN, `match ecn`), which losslessd does not evaluate. Its match lines add up: EOS writes a qos class-map
    `match-any` (AVD eos_cli_config_gen class-maps.j2), a packet matching any of them is the class's."""

    source: Source
    dscp: set[int] = field(default_factory=set)
    dscp_ecn: set[int] = field(default_factory=set)
    other: bool = False


@record
class EosConfig:
    """Everything the reader took from one switch's running-config, before defaults are filled in."""

    hostname: str | None = None
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    header_name: str | None = None
    hwsku: str | None = None
    hwsku_source: Source | None = None  # the header line that names it
    dscp_to_tc: dict[int, Val] = field(default_factory=dict)
    qos_policy_unread: set[str] = field(default_factory=set)  # a policy with a `set traffic-class` not read
    cos_to_tc: dict[int, Val] = field(default_factory=dict)
    tc_to_queue: dict[int, Val] = field(default_factory=dict)
    tc_to_dscp: dict[int, Val] = field(default_factory=dict)  # `qos map traffic-class T to dscp D`
    # The ports and port-channels with a subinterface (`interface Ethernet1.100`): tagged, so never untagged routed
    tagged_parents: set[str] = field(default_factory=set)
    rewrite_dscp: Val | None = None  # `[no] qos rewrite dscp`
    pfc_all_off: Source | None = None
    wd_action: Val | None = None
    wd_timers: dict[str, Val] = field(default_factory=dict)
    profiles: dict[str, QosConf] = field(default_factory=dict)
    class_maps: dict[str, QosClass] = field(default_factory=dict)  # `class-map type qos`
    # Port-ChannelN -> its service-policy and switchport lines (its members' VLANs)
    port_channels: dict[int, InterfaceConf] = field(default_factory=dict)
    # policy-map -> its classes in order: (class name, `set traffic-class` Val or None, the `class` line)
    qos_policies: dict[str, list[tuple[str, Val | None, Source]]] = field(default_factory=dict)
    qos_policy_sources: dict[str, Source] = field(default_factory=dict)  # the `policy-map` line
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    # `interface profile NAME` -> its `command ...` lines as (line, the command's words); applied by `profile NAME`
    interface_profiles: dict[str, list[tuple[Source, list[str]]]] = field(default_factory=dict)
    issues: list[ParseIssue] = field(default_factory=IssueList)


def session_config(text: str, path: str = "", issues: list[ParseIssue] | None = None) -> str | None:
    """The running-config a configuration-session transcript makes, line numbers kept (None: no transcript). EOS
    indents a sub-mode's commands by three spaces; a refused command is a SYS002 on ``issues``. `fix` applies a
    snippet to this form of a transcript."""
    return config_session(text, "   ", path, issues, platform=PLATFORM)


def outdent_ports(text: str) -> str:
    """Each `interface` line a template indented inside another block at the margin, its lines after it its own
    (clitext.outdent_interface_lines), line numbers kept: the blocks EOS has. `fix` merges a snippet into them."""
    return outdent_interface_lines(text, _names_port, _takes_no_interface)


def read(inputs: list[Input]) -> EosConfig:
    cfg = EosConfig()
    for inp in inputs:
        session = session_config(inp.text, inp.path, cfg.issues)
        if session is not None:
            inp = Input(inp.path, session)
        _check_is_eos(inp)
        _Reader(cfg, inp, session=session is not None).read()
    return cfg


def _default_form(neg: bool, rest: list[str]) -> bool:
    """Whether `[no] priority-flow-control REST` (or `[no] qos trust REST`) only restates the default: what `show
    running-config all` prints for a port nobody configured (EOS QoS guide: PFC off, every priority drop, the
    watchdog on with the global action and timers)."""
    return (neg and (rest == [] or rest[:1] == ["priority"] or rest[:3] == ["pause", "watchdog", "port"])) or \
        (not neg and rest == ["pause", "watchdog"])


def _check_is_eos(inp: Input) -> None:
    check_config_text(inp, "Arista EOS", _EOS_LINE, "`interface`, `hostname`, `qos` or `!`")


def _blank_free_text(text: str) -> str:
    """The config with the text of each `comment` / `banner` blanked up to its `EOF` line (line numbers kept). A
    block whose `EOF` never comes (a cut file) is left as it is: nothing is dropped on a guess."""
    lines = text.split("\n")
    start = None
    for number, line in enumerate(lines):
        if start is None:
            start = number + 1 if _FREE_TEXT.match(line) else None
        elif line.strip() == "EOF":
            lines[start:number + 1] = [""] * (number + 1 - start)
            start = None
    return "\n".join(lines)


def _seconds_ms(text: str) -> float:
    """Watchdog timers are written in seconds (`timeout 0.05`)."""
    if not _NUMBER.match(text):
        raise LineError(f"{text!r} is not a time in seconds")
    return round(units.to_ms(text, default_unit="s"), 3)


# Top-level modes that take no `interface` command: an interface's own (EOS User Manual, Ethernet Ports: the interface
# configuration mode commands) and a VRF definition's (`rd`, `description`).
_NO_INTERFACE_MODES = (("interface",), ("vrf", "definition"), ("vrf", "instance"))


def _names_port(words: list[str]) -> bool:
    """`interface Ethernet1`, a range of them or a Port-Channel (as the switch may spell them)."""
    w = flat.spell_interface_word(words)
    return w[0] == "interface" and bool(_ethernet(w[1:]) or _ethernet_range(w[1:])
                                        or (len(w) == 2 and _PORT_CHANNEL.match(w[1])))


def _takes_no_interface(head: list[str]) -> bool:
    """Whether the block ``head`` opens is an interface's or a VRF definition's (_NO_INTERFACE_MODES); an `interface`
    line under a mode that takes one (`router service-insertion` connections, `maintenance`) stays that mode's."""
    spelled = tuple(flat.spell_interface_word(head))
    return any(spelled[:len(mode)] == mode for mode in _NO_INTERFACE_MODES)


def _ethernet(words: list[str]) -> str | None:
    """The port `interface Ethernet1/1` names (also `et1/1`, `Eth1/1`, `ethernet 1/1`); None for any other."""
    if len(words) == 1 and ETHERNET.match(words[0]):
        return words[0]
    match = _ETHERNET_SPELLED.match(" ".join(words)) if 0 < len(words) <= 2 else None
    return f"Ethernet{match[1]}" if match else None


def _ethernet_range(words: list[str]) -> list[str] | None:
    """The ports of `interface Ethernet1-48`, `interface eth 1-3`, `interface range Et1/1-4`, `interface
    Ethernet1,3,5-7` (configuration mode takes ranges and lists of Ethernet ports and enters one mode for them all:
    the prompt reads `(config-if-Et1-3)#`, as EOS sessions print it; a bare number after a comma is a port of its
    own); None when the words are no such list (clitext.ethernet_ports)."""
    return ethernet_ports(" ".join(words[1:] if words[:1] == ["range"] else words), _ETHERNET_SPELLED, bare_items=True)


class _Reader(TreeReader):
    expanded = 0  # port lines the `interface` ranges expanded to (ports x lines), against MAX_EXPANDED_PORTS

    def read(self) -> None:
        header = _DEVICE_HEADER.search(self.inp.text)
        if header:
            self.cfg.header_name, self.cfg.hwsku = header.group(1), header.group(2)
            self.cfg.hwsku_source = Source(file=self.inp.path, line=self.inp.text.count("\n", 0, header.start()) + 1)
        super().read()

    leaf_words = flat.LEAF_WORDS

    def config_text(self) -> str:
        text = self.inp.text
        # (EOS User Manual, Command Modes: a command the current mode does not take runs in the enclosing one)
        return outdent_ports(flat.renest(_blank_free_text(text) if "EOF" in text else text))

    def top(self, node: Node) -> None:
        w = flat.spell_interface_word(node.words)  # (`Spine-2(config)#int eth 1-3` enters `(config-if-Et1-3)#`)
        if self.host_line(w, node, PLATFORM):
            pass
        elif w[:2] == ["interface", "profile"]:
            self.interface_profile(node, w)
        elif w[0] == "interface" and (name := _ethernet(w[1:])):
            conf = port_slot(self.cfg.interfaces, name, lambda: InterfaceConf(source=self.src(node)), self.src(node))
            self.block(node, conf, self.interface_line)
        elif w[0] == "interface" and len(w) == 2 and (channel := _PORT_CHANNEL.match(w[1])):
            # Its qos policy (EOS User Manual, Traffic Management: QoS policy maps apply to Ethernet and port-channel
            # interfaces) and its switchport lines (EOS User Manual, Port Channels: the port-channel is the switching
            # interface, its members carry its VLANs): its members take them (build).
            conf = self.cfg.port_channels.setdefault(int(channel[1]), InterfaceConf(source=self.src(node)))
            self.each_spelled(node.children, lambda child: self.port_channel_line(child, conf))
        elif w[0] == "interface" and len(w) > 1 and (names := _ethernet_range(w[1:])):
            # A pasted configuration-mode block for several ports: each port takes its lines.
            self.expanded += len(names) * (1 + len(node.children))
            check_expanded(self.expanded, self.inp.path, node.line)
            for name in names:
                conf = port_slot(self.cfg.interfaces, name, lambda: InterfaceConf(source=self.src(node)),
                                 self.src(node))
                self.block(node, conf, self.interface_line)
        elif w[0] == "interface" and SUBINTERFACE.match(" ".join(w[1:])):
            self.cfg.tagged_parents.update(subinterface_parents(" ".join(w[1:]), "Ethernet", "Port-Channel"))
            self.each_spelled(node.children, lambda child: subinterface_line(child.words, flat.IF_QOS))
        elif w[0] == "interface" and len(w) > 1 and _ETHERNET_SPELLED.match(
                _RANGE_SEPARATOR.split(" ".join(w[2:] if w[1] == "range" else w[1:]))[0].strip()):
            raise LineError("cannot tell which Ethernet ports it names (expected `interface Ethernet1`, a range such "
                            "as `Ethernet1-48` or `Ethernet1/1-4`, or a comma list of them); block skipped")
        elif w[:2] == ["qos", "profile"]:
            if len(w) != 3:
                raise LineError("expected `qos profile NAME`")
            conf = self.cfg.profiles.setdefault(w[2], QosConf(source=self.src(node)))
            self.block(node, conf, self.profile_line, profile=w[2])
        elif w[:2] == ["qos", "map"]:
            # EOS User Manual, Quality of Service: each `qos map` is one line of global configuration, no mode of its
            # own; lines indented under one (a design write-up's `qos map dscp-to-traffic-class` block of `dscp N
            # traffic-class M` lines) are no commands EOS takes, and were passed over without a word.
            for child in node.children:
                self.garbled(child, "`qos map` takes no lines under it (each DSCP or CoS map is its own `qos map dscp "
                                    "V... to traffic-class T` line): the switch refuses it, and the values it names "
                                    "keep the traffic class the other `qos map` lines or EOS's defaults give them")
            self.qos_map(node, w)
        elif flat.body(w)[:2] == ["qos", "trust"]:
            # EOS User Manual, Quality of Service, `qos trust`: its command modes are the interface ones and a `qos
            # profile`'s; global configuration has none (a port's trust is its own, EOS's default where unset).
            raise LineError("EOS takes `qos trust` under an interface or a `qos profile`, not in global "
                            "configuration: the switch refuses it here, so it sets no port's trust (each port's trust "
                            "is read from its own lines, else EOS's default)")
        elif flat.body(w)[:1] in (["tx-queue"], ["uc-tx-queue"]):
            # EOS User Manual, Quality of Service: `tx-queue N` (and `uc-tx-queue N`) enter the tx-queue mode of an
            # interface or a `qos profile`; global configuration has none (a design guide's `tx-queue 6` / `priority
            # strict` at the top level was passed over in silence, read as if the CNP queue were set strict).
            raise LineError(f"EOS takes `{flat.body(w)[0]} N` under an interface or a `qos profile`, not in global "
                            "configuration: the switch refuses it here, so it and the lines under it set no port's "
                            "queue")
        elif w in (["qos", "rewrite", "dscp"], ["no", "qos", "rewrite", "dscp"]):
            self.cfg.rewrite_dscp = Val(w[0] != "no", self.src(node))
        elif w[0] == "priority-flow-control":
            self.global_pfc(node, w[1:])
        elif w[:2] == ["no", "priority-flow-control"]:
            self.global_pfc(node, w[2:], neg=True)
        elif w[:3] == ["class-map", "type", "qos"] and len(w) in (4, 5):
            self.class_map(node, w[-1], w[3] if len(w) == 5 else "match-any")
        elif w[:3] in _POLICY_TYPES and len(w) == 4:
            self.qos_policy(node, w[3])
        elif w[:2] == ["policy-map", "type"] and len(w) > 2 and w[2] not in _POLICY_MAP_TYPES:
            raise _no_such_policy_map(w[2], "this line and the lines under it: they set no queue")

    def interface_profile(self, node: Node, w: list[str]) -> None:
        """`interface profile NAME` and its `command <interface command>` lines (the form AVD's eos_cli_config_gen
        writes its interface_profiles in): kept, each with its line, for the ports whose `profile NAME` applies them."""
        if len(w) != 3:
            raise LineError("expected `interface profile NAME`")
        commands = self.cfg.interface_profiles.setdefault(w[2], [])
        for child in node.children:
            if child.words[:1] == ["command"] and len(child.words) > 1:
                commands.append((self.src(child), child.words[1:]))

    def class_map(self, node: Node, name: str, kind: str) -> None:
        """`class-map type qos [match-any] NAME` and its match lines. AVD eos_cli_config_gen (class-maps.j2) writes
        `match-any` alone, with one of `match vlan|cos|ip access-group|ipv6 access-group|dscp D [ecn E]|ecn E`; what
        another keyword (`match-all`) would make of several lines no source says: the class is not evaluated."""
        conf = self.cfg.class_maps.setdefault(name, QosClass(source=self.src(node)))
        if kind != "match-any":
            conf.other = True
            self.issue(node, f"EOS qos class-maps are `match-any` (AVD writes no other form): what a `{kind}` class "
                             "matches is not read, so losslessd does not evaluate the classes that use it")
        for child in node.children:
            cw = child.words
            if cw[:2] == ["match", "dscp"] and len(cw) > 2:
                values, ecn = (cw[2:cw.index("ecn")], cw[cw.index("ecn") + 1:]) if "ecn" in cw else (cw[2:], None)
                try:
                    if ecn is not None and len(ecn) != 1:
                        raise LineError("expected `match dscp D ecn ECN` (one ECN word after `ecn`)")
                    # (with `ecn E` only the packets whose ECN bits match: some of each DSCP's traffic)
                    (conf.dscp if ecn is None else conf.dscp_ecn).update(dscp_values(values))
                except LineError as exc:
                    conf.other = True  # what it matches is unknown, so what it classifies is too
                    self.garbled(child, str(exc))
            elif cw[0] == "match":
                conf.other = True

    def qos_policy(self, node: Node, name: str) -> None:
        """Classes in order with their `set traffic-class`; the other actions (set dscp|cos, police) are not
        read: they do not choose the traffic class."""
        classes = self.cfg.qos_policies.setdefault(name, [])
        self.cfg.qos_policy_sources.setdefault(name, self.src(node))
        for child in node.children:
            cw = child.words
            if cw[0] == "class" and len(cw) != 2:
                # `class tx-queue 3` (a design document's `policy-map type tx-queue`, typed in a qos one): a qos
                # policy-map's classes are class-maps, `class NAME` (EOS User Manual, QoS chapter).
                self.garbled(child, "a qos policy-map's class is `class NAME` (a class-map), so the switch "
                                    "refuses this one and the lines under it with it: they set no traffic class, "
                                    "marking or ECN")
                continue
            if cw[0] != "class":
                continue
            tc = None
            for sub in child.children:
                if sub.words[:2] == ["set", "traffic-class"]:
                    value = self.set_value(sub, "the traffic class")
                    if value is None:  # (named) the class's traffic class, so the policy's map, is unknown
                        self.cfg.qos_policy_unread.add(name)
                    tc = value or tc
            classes.append((cw[1], tc, self.src(child)))

    def block(self, node: Node, conf: QosConf, other, profile: str | None = None) -> None:
        """Sub-commands of an interface or qos profile; `other` reads what is not shared between them."""
        def line(child: Node) -> None:
            if _inline_bang(child.words):
                piece(child, child)  # (what a PFC or trust line would set is unknown, not its default)
                raise LineError(_INLINE_BANG)
            if not self.qos_line(child, conf, profile):
                other(child, conf)

        def piece(wrapped: Node, under: Node) -> None:
            # a line cut onto the lines under it (each: they are named): what it or a piece sets is unknown
            for w in (wrapped.words, under.words):
                body = flat.body(w)  # (after `no` or `default`: EOS's LEADING words)
                if body[:1] == ["priority-flow-control"] and body[1:2] not in (["pause"], ["watchdog"]):
                    conf.pfc_unread = conf.pfc_unread or self.src(under)
                elif body[:2] == ["qos", "trust"]:
                    conf.trust_unread = conf.trust_unread or self.src(under)
        if profile is None:
            self.each_spelled(node.children, line, on_piece=piece)
        else:
            self.each(node.children, line, on_piece=piece)

    def each_spelled(self, nodes: list[Node], handler, txq: bool = False,
                     on_piece: Callable[[Node, Node], None] | None = None) -> None:
        """``handler`` for each interface (``txq``: tx-queue) line as EOS runs it (spelled); an ambiguous prefix of
        a command read is a SYS002 at its line, and a line that cannot be read is named as spelled."""
        for node in self.enter(nodes):
            try:
                full = self.spell_node(node, txq)
            except LineError as exc:
                self.garbled(node, str(exc))
                continue
            self.each([full], handler, on_piece=on_piece)

    def spell_node(self, node: Node, txq: bool = False) -> Node:
        """An interface (``txq``: tx-queue) line with the keywords it abbreviates written out, as EOS runs it (`prio
        on`: `priority-flow-control on`, `band percent 50`: `bandwidth percent 50`); the rest of its text as typed.
        Once per line (spelled_once), however many ports its block configures."""
        return self.spelled_once(node, lambda line: self._spell_node(line, txq))

    def _spell_node(self, node: Node, txq: bool) -> Node:
        full = (flat.queue_words if txq else flat.interface_words)(node.words, node.line == self.cut_line, strict=True)
        if full == node.words:
            return node
        last = max(i for i, (a, b) in enumerate(zip(full, node.words, strict=True)) if a != b)
        rest = node.text.split(None, last + 1)[last + 1:]
        return Node(" ".join([*full[:last + 1], *rest]), node.line, node.children)

    def qos_line(self, node: Node, conf: QosConf, profile: str | None) -> bool:
        """Trust, PFC and tx-queue lines, the same in interfaces and qos profiles. False: not one of them."""
        w = node.words
        body = flat.body(w)
        # `default X` restores X's default: for PFC and a policy binding what `no X` leaves (EOS QoS guide: PFC off,
        # every priority drop, no policy bound); for trust the port's default (read as no trust line: build.py)
        neg, restored = body is not w, w[:1] == ["default"]
        if restored and body[:2] == ["qos", "trust"]:
            conf.trust = conf.trust_unread = None
            return True
        if body[:1] == ["priority-flow-control"] or body[:2] == ["qos", "trust"]:
            conf.explicit = conf.explicit or not _default_form(neg, body[1:])
        if body[:2] == ["qos", "trust"]:
            if neg and len(body) == 2:
                conf.trust = Val(Trust.none, self.src(node))
                conf.trust_unread = None  # the last trust line decides: an earlier one not read no longer matters
            elif not neg and len(body) == 3 and body[2] in ("dscp", "cos"):
                conf.trust = Val(Trust.dscp if body[2] == "dscp" else Trust.pcp, self.src(node))
                conf.trust_unread = None
            else:
                conf.trust_unread = conf.trust_unread or self.src(node)
                raise LineError("expected `qos trust dscp`, `qos trust cos` or `no qos trust`")
        elif body[:1] == ["priority-flow-control"]:
            try:
                self.pfc(node, body[1:], neg, conf)
            except LineError:
                # A line that may turn PFC on or off, or set a priority it names: the port's PFC is unknown. Not a
                # watchdog line, nor one whose priority is no number 0-7 (what the others set still stands).
                rest = body[1:]
                named = rest[:1] != ["priority"] or (len(rest) > 1 and rest[1] in "01234567" and len(rest[1]) == 1)
                if rest[:1] not in (["pause"], ["watchdog"]) and named:
                    conf.pfc_unread = conf.pfc_unread or self.src(node)
                elif "watchdog" in rest:  # it may turn the watchdog on or set its action: unknown, not off
                    conf.wd_unread = conf.wd_unread or self.src(node)
                raise
        elif body[:4] == ["service-policy", "type", "qos", "input"] and len(body) == 5 and not neg:
            conf.service_policy = Val(body[4], self.src(node))
        elif body[:4] == ["service-policy", "type", "qos", "input"] and len(body) <= 5 and neg:
            # `no service-policy type qos input [NAME]` (a session's) unbinds the port's policy map: its trust map
            # classifies again. It was passed over, and the policy it removed kept classifying the port.
            if conf.service_policy is not None and body[4:] not in ([], [conf.service_policy.value]):
                raise LineError(f"it unbinds policy-map {body[4]}, but the port binds {conf.service_policy.value}")
            conf.service_policy = None
        elif body[:4] == ["service-policy", "type", "pdp", "input"] and (len(body) == 5 or (neg and len(body) == 4)):
            # `service-policy type pdp input NAME` (`show running-config all` prints `default-pdp-policy` on every port
            # of some platforms): a policy-map of type pdp polices the packets a port sends to the CPU, by control
            # protocol (its classes are `built-in` protocol classes and class-default, its actions `police` and
            # `count`: batfish's EOS `qos` test config, a DCS-7260CX-64 `show running-config all`); it sets no
            # traffic class, so it leaves the port's queues and PFC as they are. Its `no` form (EOS's for any
            # binding: `no service-policy ... input [NAME]` unbinds it) takes that CPU policer off the port: no more
            # a QoS setting than the binding, so it too leaves the queues and PFC as they are.
            pass
        elif profile is None and body[:2] == ["service-policy", "type"] and len(body) > 2 and \
                body[2] not in _POLICY_MAP_TYPES:
            raise _no_such_policy_map(body[2], "this line: it binds nothing to the port")
        elif profile is None and body[:2] == ["service-policy", "type"] and body[2:3] != ["pbr"]:
            # EOS User Manual: a port or port-channel binds `service-policy type qos input NAME` (read above) or `type
            # pbr` (routing, not QoS); any other form, bound or unbound (`no service-policy type pdp output X` is no
            # command either), is no binding losslessd reads, and what it sets is unknown.
            conf.queues_unread = conf.queues_unread or self.src(node)
            raise LineError("not a service-policy losslessd reads (`type qos input NAME`): what it sets on the port's "
                            "queues is unknown")
        elif body[:1] in (["tx-queue"], ["uc-tx-queue"]) and not neg:
            if len(body) != 2:
                raise LineError(f"expected `{body[0]} N`")
            index = bounded_int(body[1], 0, 15, "the queue")
            queue = conf.queues.setdefault(index, QueueConf(source=self.src(node)))
            self.each_spelled(node.children, lambda child: self.queue_command(child, queue, profile), txq=True,
                              on_piece=functools.partial(self.marking_piece, conf=queue, field="ecn",
                                                           unread=ECN_UNREAD))
        else:
            return False
        return True

    def pfc(self, node: Node, rest: list[str], neg: bool, conf: QosConf) -> None:
        src = self.src(node)
        if rest in (["on"], ["mode", "on"]):
            conf.pfc = Val(not neg, src)
        elif rest in (["off"], ["mode", "off"]) or (neg and not rest):
            conf.pfc = Val(False, src)
        elif rest[:1] == ["priority"] and len(rest) == 3 and rest[2] in ("no-drop", "drop"):
            conf.priorities[bounded_int(rest[1], 0, 7, "the PFC priority")] = Val(rest[2] == "no-drop" and not neg, src)
        elif rest[:1] == ["priority"] and len(rest) == 2 and neg:  # `no priority-flow-control priority N`: drop
            conf.priorities[bounded_int(rest[1], 0, 7, "the PFC priority")] = Val(False, src)
        elif rest == ["pause", "watchdog"]:
            conf.watchdog = Val(not neg, src)
        elif rest[:4] == ["pause", "watchdog", "port", "action"] and len(rest) == 5 and not neg:
            if rest[4] not in WATCHDOG_ACTIONS:
                raise LineError(f"unknown watchdog action {rest[4]!r}")
            conf.wd_action = Val(rest[4], src)
        elif rest[:4] == ["pause", "watchdog", "port", "timer"] and not neg:
            conf.wd_timers.update(self.port_timers(rest[4:], src))
        elif rest[:4] in (["pause", "watchdog", "port", "action"], ["pause", "watchdog", "port", "timer"]) and neg:
            # back to the global (or default) action / timers
            if rest[3] == "action":
                conf.wd_action = None
            else:
                conf.wd_timers.clear()
        else:
            raise LineError("not a priority-flow-control command losslessd knows")

    @staticmethod
    def port_timers(words: list[str], src: Source) -> dict[str, Val]:
        """`timeout S polling-interval S|auto recovery-time S [forced]`."""
        timers = {}
        words = [w for w in words if w != "forced"]
        if not words or len(words) % 2:
            raise LineError("expected `timeout S polling-interval S recovery-time S`")
        for key, value in zip(words[::2], words[1::2], strict=True):
            if key not in WATCHDOG_TIMERS:
                raise LineError(f"unknown watchdog timer {key!r}")
            timers[key] = Val(None if value == "auto" and key == "polling-interval" else _seconds_ms(value), src)
        return timers

    def queue_command(self, node: Node, queue: QueueConf, profile: str | None) -> None:
        w = node.words
        src = self.src(node)
        if w == ["priority", "strict"]:
            queue.strict = Val(True, src)
        elif w == ["no", "priority"]:
            queue.strict = Val(False, src)
        elif w[:2] == ["bandwidth", "percent"] and len(w) == 3:
            queue.bandwidth = Val(bounded_int(w[2], 0, 100, "the bandwidth percent"), src)
        elif w == ["no", "random-detect", "ecn"] or w == ["no", "random-detect", "ecn", "minimum-threshold"]:
            queue.ecn = Val(None, src)  # (the second: how `show running-config all` prints a queue without ECN)
        elif w[:2] == ["shape", "rate"]:  # EOS QoS guide: `shape rate R` caps the tx-queue's rate
            queue.shaped = Val(True, src)
        elif w[:2] == ["no", "shape"]:
            queue.shaped = Val(False, src)
        elif w[:2] == ["random-detect", "drop"]:
            queue.drop = Val(None if "drop-precedence" in w else True, src)
        elif w[:3] == ["no", "random-detect", "drop"]:
            queue.drop = Val(False, src)
        elif any(tuple(w[:len(p)]) == p for p in _QUEUE_IGNORED):
            pass
        elif w[:2] == ["random-detect", "ecn"]:
            try:
                queue.ecn = Val(self.ecn(node, w, profile), src)
            except LineError:
                queue.ecn = Val(ECN_UNREAD, src)  # marking that could not be read is unknown, not off
                raise
        else:
            if may_set_ecn(w):  # (`ecn` on a line of its own, another vendor's ECN words): the marking is unknown
                queue.ecn = Val(ECN_UNREAD, src)
            raise LineError("not a tx-queue command losslessd knows")

    def ecn(self, node: Node, w: list[str], profile: str | None) -> RawEcn:
        """`random-detect ecn minimum-threshold X UNIT maximum-threshold Y UNIT [max-mark-probability P] [weight W]`."""
        if len(w) < 8 or w[2] != "minimum-threshold" or w[5] != "maximum-threshold" \
                or not {w[3], w[4], w[6], w[7]}.isdisjoint(_ECN_OPTIONS):  # (an option where a number or unit is)
            raise LineError(_ecn_form_error(w))
        kmin, kmax = self.threshold(w[3], w[4]), self.threshold(w[6], w[7])
        probability = wred_options(w[8:], "max-mark-probability")
        for th in (kmin, kmax):
            if th.kind == "unknown":
                self.issue(node, f"unknown threshold unit {th.unit!r} in `{node.text}`: the ECN thresholds are kept "
                                 "as written and cannot be checked", code="SYS003")
                break
        return RawEcn(node.text, kmin, kmax, probability, profile)

    @staticmethod
    def threshold(text: str, unit: str) -> Threshold:
        if not _NUMBER.match(text):
            raise LineError(f"threshold {text[:40]!r} is not a number of at most 15 digits")
        # EOS prints bytes, kbytes, mbytes, segments, milliseconds, microseconds (AVD eos_cli_config_gen schema).
        kind = ("segments" if unit == "segments" else "bytes" if units.is_byte_unit(unit)
                else "time" if units.is_time_unit(unit) else "unknown")
        return Threshold(text, unit, kind)

    def port_channel_line(self, node: Node, conf: InterfaceConf) -> None:
        """A Port-Channel's line: its `service-policy type qos` (qos_line), else read as an interface line (a value
        that cannot be read is a SYS002 here too); of what is read, only its switchport lines (mode, access and trunk
        VLANs, `no switchport`, addresses) and its policy reach its members (build). Its PFC, link pause, trust, default
        CoS/DSCP, service-profile and tx-queue lines are a SYS002 each: EOS takes them there (AVD's port-channel
        schema writes them), but whether they reach the members is in no Arista document losslessd read, so the
        members keep their own lines, named rather than passed over."""
        body = flat.body(node.words)
        port_qos = body[:1] == ["qos"] and len(body) > 1 and body[1] in flat.QOS_PORT
        if _inline_bang(node.words):  # (its switchport and policy lines reach the members: read as on an Ethernet)
            raise LineError(_INLINE_BANG)
        if node.words[:2] == ["service-policy", "type"]:
            self.qos_line(node, conf, None)
        elif port_qos or (body[:1] != [] and body[0] in _CHANNEL_QOS):
            raise LineError(f"whether a port-channel's `{body[0]}` reaches its members is in no Arista document "
                            "losslessd read: its members keep their own lines (set it on each member Ethernet "
                            "interface, or its qos profile, to have it checked)")
        else:
            self.interface_line(node, conf)

    def interface_line(self, node: Node, conf: InterfaceConf) -> None:
        """Interface-only lines; everything else in an interface (addresses, VLANs, ...) is not QoS and skipped."""
        w = node.words
        src = self.src(node)
        if w[0] == "description":
            conf.description = node.text[len("description"):].strip()
        elif w[0] == "mtu":
            conf.mtu = Val(bounded_int(w[1] if len(w) == 2 else "", 68, 65535, "the MTU"), src)
        elif w[0] == "speed":
            self.speed(w[1:], conf, src)
        elif w in (["shutdown"], ["no", "shutdown"]):
            conf.admin_up = Val(w[0] == "no", src)
        elif command_body(w, ("no", "default"))[:1] == ["flowcontrol"]:
            # Arista rbeapi (EthernetInterface#set_flowcontrol): `flowcontrol send|receive on|off`, negated with `no`
            # or reset with `default`
            flowcontrol_line(conf, w, src, None)
        elif layer3_line(conf, w, src):
            pass  # (EOS User Manual, Layer 3 configuration: a routed port takes `ip address` after `no switchport`)
        elif w[:3] == ["switchport", "access", "vlan"] and len(w) == 4:
            conf.access_vlan = bounded_int(w[3], 1, 4094, "the access VLAN")
        elif w[:2] == ["switchport", "mode"] and len(w) >= 3:  # (of more words than access|trunk: another mode)
            conf.trunk, conf.other_mode = w[2:] == ["trunk"], w[2:] not in (["access"], ["trunk"])
        elif w[:4] == ["switchport", "trunk", "allowed", "vlan"]:
            conf.trunk_vlans = allowed_vlans(conf.trunk_vlans, w[4:])
        elif w[0] == "channel-group" and len(w) >= 2:
            conf.channel_group = bounded_int(w[1], 1, 2000, "the port-channel number")
        elif w[:2] in (["no", "channel-group"], ["default", "channel-group"]):
            conf.channel_group = None  # (EOS User Manual, Port Channels: the port leaves its port channel)
        elif w[0] == "service-profile":
            if len(w) != 2:
                raise LineError("expected `service-profile NAME`")
            conf.profile = Val(w[1], src)
        elif w[0] == "profile":
            if len(w) != 2:
                raise LineError("expected `profile NAME` (an interface profile)")
            conf.interface_profile = Val(w[1], src)
        elif other_port_qos(w, flat.IF_KNOWN):
            raise LineError("no EOS interface command (EOS User Manual, Quality of Service: a port's QoS is its `qos "
                            "trust`, `priority-flow-control`, `service-profile`, `service-policy` and `tx-queue` "
                            "lines): the switch refuses it, so what it was meant to set (trust, PFC, ECN) is not set")

    @staticmethod
    def speed(words: list[str], conf: InterfaceConf, src: Source) -> None:
        """`speed 100g`, `speed forced 100gfull`, `speed 400g-8`, `speed 1.6t-8`, `speed forced 1000half` (_EOS_SPEED);
        `auto` alone: unknown."""
        words = [w for w in words if w not in ("forced", "auto")]
        if not words or words[0].startswith("sfp-"):  # `speed sfp-1000baset auto`: the transceiver's mode
            return
        if len(words) == 1 and units.is_digits(words[0]):
            found = _mbps_keywords(words[0])
            if len(found) > 1:
                raise LineError(f"{words[0]!r} is the start of several EOS speeds ({', '.join(found)}): EOS refuses it "
                                "as ambiguous")
            if not found:
                raise LineError(f"{words[0]!r} starts none of the speed keywords written in Mb/s "
                                f"({', '.join(_MBPS_SPEEDS)}); a faster speed is written whole, such as 25gfull, 100g "
                                "or 400g-8")
            words = found
        try:
            if len(words) != 1 or not _EOS_SPEED.fullmatch(words[0]):
                raise ValueError(words)
            conf.speed = Val(units.speed_gbps(words[0]), src)
        except ValueError:
            raise LineError(f"{' '.join(words)[:40]!r} is not a speed such as 100g, 400g-8 or 100gfull") from None

    def profile_line(self, node: Node, conf: QosConf) -> None:
        w = node.words
        body = flat.body(w)
        if not body or body[0] not in _PROFILE_IGNORED:
            raise LineError("not a qos profile command")

    def qos_map(self, node: Node, w: list[str]) -> None:
        """`qos map dscp|cos V... to traffic-class T`, `qos map traffic-class T... to tx-queue Q`. A line not read
        whose values and target the line still shows leaves those values' mapping unknown, not EOS's default."""
        tables = {("dscp", "traffic-class"): (self.cfg.dscp_to_tc, 63, 7),
                  ("cos", "traffic-class"): (self.cfg.cos_to_tc, 7, 7),
                  ("traffic-class", "tx-queue"): (self.cfg.tc_to_queue, 7, 15),
                  ("traffic-class", "dscp"): (self.cfg.tc_to_dscp, 7, 63)}
        try:
            self.qos_map_line(node, w, tables)
        except LineError:
            if len(w) < 3:  # (`qos map` alone names no values)
                raise
            to = w.index("to") if "to" in w else len(w)
            # `qos map dscp|cos V...` maps only to traffic classes (EOS User Manual, QoS); a traffic-class map needs
            # the target it names
            aim = w[to + 1] if len(w) > to + 1 else ("traffic-class" if w[2] in ("dscp", "cos") else None)
            table = tables.get((w[2], aim)) if aim else None
            try:
                keys = units.int_list(" ".join(w[3:to]))
            except ValueError:
                keys = []
            # (a line whole up to its number, with words after it, is one EOS refuses: round 6 keeps the default)
            cut = len(w) < to + 3 or not units.is_digits(w[to + 2])
            if cut and table is not None and keys and max(keys) <= table[1]:
                for key in keys:
                    table[0][key] = Val(MAP_UNREAD, self.src(node))
            raise

    def qos_map_line(self, node: Node, w: list[str], tables: dict) -> None:
        if len(w) >= 3 and w[2] == "exp":
            return  # the MPLS EXP map is not part of the model
        if len(w) < 3 or w[2] not in ("dscp", "cos", "traffic-class"):
            raise LineError("EOS maps `qos map dscp|cos V... to traffic-class T` and `qos map traffic-class T... to "
                            "tx-queue|dscp|cos N` (EOS User Manual, Quality of Service); the switch refuses this one, "
                            "so it maps nothing")
        to = w.index("to") if "to" in w else len(w)
        if len(w) < to + 3:
            raise LineError("expected `qos map KIND VALUES to TARGET N`")
        table = tables.get((w[2], w[to + 1]))
        if table is None:
            return  # other maps (traffic-class to cos, exp) are not part of the model
        target, key_max, value_max = table
        try:
            keys = units.int_list(" ".join(w[3:to]))
        except ValueError:
            keys = []
        if not keys or any(k > key_max for k in keys):
            raise LineError(f"the {w[2]} values must be numbers 0-{key_max}")
        value = bounded_int(w[to + 2], 0, value_max, w[to + 1])
        # EOS User Manual, QoS: `qos map dscp V... to traffic-class T [drop-precedence D]` (the drop precedence on
        # platforms that have it). Anything else after the number is no part of the command; a `!` there (as design
        # write-ups annotate maps) is a comment no EOS document read describes, so the line is named, not guessed at.
        rest = w[to + 3:]
        if rest and not (rest[0] == "drop-precedence" and len(rest) == 2 and w[2] == "dscp"):
            raise LineError(f"`{' '.join(rest)[:40]}` after the command is not part of it (the EOS manual describes "
                            "no comment after a command), so what the switch makes of the line is unknown")
        for key in keys:
            target[key] = Val(value, self.src(node))

    def global_pfc(self, node: Node, rest: list[str], neg: bool = False) -> None:
        """Switch-wide PFC lines; their `no` forms put EOS's default back (no action word: errdisable)."""
        src = self.src(node)
        if neg:
            if rest == ["all", "off"]:
                self.cfg.pfc_all_off = None
            elif rest[:3] in (["pause", "watchdog", "action"], ["pause", "watchdog", "override"]):
                self.cfg.wd_action = None
            elif rest[:3] == ["pause", "watchdog", "default"] and len(rest) >= 4 and rest[3] in WATCHDOG_TIMERS:
                self.cfg.wd_timers.pop(rest[3], None)
            else:
                raise LineError("not a priority-flow-control command losslessd knows")
        elif rest == ["all", "off"]:
            self.cfg.pfc_all_off = src
        elif rest[:3] == ["pause", "watchdog", "default"] and len(rest) == 5 and rest[3] in WATCHDOG_TIMERS:
            value = None if rest[4] == "auto" and rest[3] == "polling-interval" else _seconds_ms(rest[4])
            self.cfg.wd_timers[rest[3]] = Val(value, src)
        elif (rest[:3] == ["pause", "watchdog", "action"] and len(rest) == 4) or \
                (rest[:4] == ["pause", "watchdog", "override", "action"] and len(rest) == 5):
            if rest[-1] not in WATCHDOG_ACTIONS:
                raise LineError(f"unknown watchdog action {rest[-1]!r}")
            self.cfg.wd_action = Val(rest[-1], src)
        elif rest[:2] == ["pause", "watchdog"] and rest[2:3] in (["default"], ["action"]):
            raise LineError(_WATCHDOG_FORMS)
        else:
            raise LineError("not a priority-flow-control command losslessd knows")


def _mbps_keywords(number: str) -> list[str]:
    """The Mb/s speed keywords a bare number is a prefix of (`10000` -> [`10000full`])."""
    return [k for k in _MBPS_SPEEDS if k.startswith(number)]


def _ecn_form_error(w: list[str]) -> str:
    """What is wrong with a `random-detect ecn ...` line not in EOS's form (_ECN_FORM), named precisely: a `units`
    keyword (a generator's form, `... maximum-threshold 200 units kbytes`), a threshold without its unit, a missing
    threshold keyword."""
    if "units" in w:
        at = w.index("units")
        return f"`{' '.join(w[at:at + 2])}` is no EOS form: {_ECN_FORM}"
    for keyword in ("minimum-threshold", "maximum-threshold"):
        if keyword not in w:
            return f"no `{keyword}`: {_ECN_FORM}"
    if w[2] != "minimum-threshold" or w.index("maximum-threshold") < w.index("minimum-threshold"):
        return f"`minimum-threshold` comes first, then `maximum-threshold`: {_ECN_FORM}"
    at = w.index("maximum-threshold")
    for keyword, words in (("minimum-threshold", w[3:at]), ("maximum-threshold", w[at + 1:at + 3])):
        if not words or words[0] in _ECN_OPTIONS:
            return f"no number after `{keyword}`: {_ECN_FORM}"
        if not _NUMBER.match(words[0]):
            return f"`{keyword} {words[0][:40]}`: not a number of at most 15 digits (a unit run into it?): {_ECN_FORM}"
        if len(words) < 2 or words[1] in ("maximum-threshold", *_ECN_OPTIONS):
            return f"no unit after `{' '.join([keyword, *words[:1]])}`: {_ECN_FORM}"
    return f"`{' '.join(w[3:at])}` is not a threshold and its unit: {_ECN_FORM}"

