"""An EOS configuration pasted with its indentation lost (`interface Ethernet1` then `priority-flow-control on` at the
margin), re-nested as the running-config it makes.

EOS reads such a paste line by line, each command in the mode the one before it left (Arista EOS User Manual,
"Command-Line Interface", Command Modes: `interface`, `qos profile`, `tx-queue`, `policy-map`, `class` open a mode,
`exit` leaves one, `end` leaves configuration mode); a command the current mode does not take is run in the first
enclosing mode that does, and the switch stays there (a session typing `int vlan 800` at `(config-vlan-800)#` is at
`(config-if-Vl800)#` next). So an interface's sub-commands are the margin lines after it up to a global command.
Which words are global and which a mode takes are listed here from the manual's command pages; a line neither list
knows stays in the mode it was typed in, as its own command would on the switch (a non-QoS line the reader skips);
the sub-commands of a mode losslessd does not read (`router bgp`, `vlan`) stay at the margin, read as nothing.
"""

from __future__ import annotations

from ...units import is_digits
from .. import clitext

_QUEUE_WORDS = ("tx-queue", "uc-tx-queue", "mc-tx-queue")
# Global configuration commands that end an interface's or a profile's lines (EOS User Manual: each command page's
# "Command Mode: Global Configuration"). Words an interface takes too are in _INTERFACE_FORMS.
_GLOBAL_WORDS = frozenset({"interface", "hostname", "qos", "priority-flow-control", "policy-map", "class-map", "vlan",
                           "router", "vrf", "management", "username", "ntp", "logging", "snmp-server", "aaa", "daemon",
                           "mlag", "transceiver", "lldp", "service", "banner", "end", "ip", "ipv6", "spanning-tree",
                           "route-map", "peer-filter", "dns", "clock", "alias", "event-handler", "monitor", "platform",
                           "hardware", "tap", "tacacs-server", "radius-server", "errdisable", "sflow", "control-plane",
                           "mac", "port-channel", "dcbx", "cvx", "enable", "prompt", "boot", "system", "load-interval",
                           "switchport", "queue-monitor", "terminal", "agent", "schedule", "email", "ptp"})
# Commands that start with one of those words and are an interface's (EOS User Manual, Ethernet Ports, Layer 3
# Configuration, Spanning Tree, LLDP, DCBX, Port Channels pages): `ip address`, `vrf NAME` (`vrf instance` is
# global), `spanning-tree portfast`, `lldp transmit`, `dcbx mode ieee`, `mlag N` (a port-channel's), ...
_INTERFACE_FORMS = {
    "ip": {"address", "helper-address", "virtual-router", "igmp", "pim", "ospf", "proxy-arp", "local-proxy-arp",
           "verify", "access-group", "mtu", "attached-host", "dhcp", "multicast", "unreachables"},
    "ipv6": {"address", "enable", "nd", "ospf", "access-group", "verify", "dhcp", "mtu"},
    "spanning-tree": {"portfast", "bpduguard", "bpdufilter", "link-type", "cost", "port-priority", "guard",
                      "priority"},
    "lldp": {"transmit", "receive", "tlv", "tlv-select"},
    "dcbx": {"mode"},
    "mlag": None, "vrf": None, "sflow": {"enable"}, "mac": {"address", "security"}, "switchport": None,
    "load-interval": None, "queue-monitor": None, "logging": {"event"},
}
# `vrf instance NAME`, `vrf definition NAME`, `mlag configuration`, `switchport default mode` are global.
_GLOBAL_FORMS = {"vrf": {"instance", "definition"}, "mlag": {"configuration"}, "switchport": {"default"},
                 "load-interval": {"default"}, "queue-monitor": {"length"}}
# `priority-flow-control all off`, `... pause watchdog default|action|override|hardware ...` are global (EOS User
# Manual, "DCBX and Flow Control"); the rest of priority-flow-control is an interface's or a profile's.
_GLOBAL_PFC = (("all",), ("pause", "watchdog", "default"), ("pause", "watchdog", "action"),
               ("pause", "watchdog", "override"), ("pause", "watchdog", "hardware"))
# qos commands of an interface or profile (`qos trust`, `qos cos N`, `qos dscp N`); `qos map|profile|rewrite ...` are
# global.
QOS_PORT = ("trust", "cos", "dscp")
# What each sub-mode takes (EOS User Manual, Quality of Service: tx-queue configuration mode; policy-map class mode;
# class-map mode); `no`/`default` forms of the same.
_MODE_WORDS = {
    "txq": frozenset({"priority", "bandwidth", "random-detect", "shape", "comment"}),
    "pmap": frozenset({"class"}),
    "pclass": frozenset({"set", "police", "count"}),
    "cmap": frozenset({"match"}),
}
# Commands every EOS configuration mode takes besides its own (`comment`, `default`, `no`, `exit`, `end`, `show`, ...):
# an abbreviation names a sub-mode's keyword only if it begins none of these (clitext.keyword).
_ANY_MODE_WORDS = frozenset({"comment", "default", "no", "exit", "end", "show", "do", "help", "abort"})
LEADING = ("no", "default")  # the words an EOS command may start with before its keyword (undo, restore)
_KEYWORDS = clitext.ModeKeywords(_MODE_WORDS, _ANY_MODE_WORDS, _GLOBAL_WORDS, leading=LEADING)
_PROFILE_WORDS = {"priority-flow-control", "service-policy", "shape", *_QUEUE_WORDS}

# Interface mode (EOS User Manual: the command pages whose Command Mode is Interface-Ethernet Configuration): the
# commands the reader reads, and the others the mode takes, among which an abbreviation must be unique
# (clitext.keyword): `prio on` is `priority-flow-control on`, `qo tr d` is `qos trust dscp`; `serv` (service-policy,
# service-profile), `sh` (shutdown, shape, show), `sp` (speed, spanning-tree) and `q` (qos, queue-monitor) are no
# command EOS runs. A running-config is never abbreviated: every word EOS prints there is whole and reads as itself.
# IF_QOS: those of them that set the port's QoS (the lines of a port's QoS under a subinterface are named:
# clitext.subinterface_line).
IF_QOS = frozenset({"service-profile", "service-policy", "qos", "priority-flow-control", *_QUEUE_WORDS})
IF_READ = IF_QOS | {"description", "mtu", "speed", "shutdown", "switchport", "ip", "ipv6", "channel-group",
                    "flowcontrol"}
# Round 20: the commands whole running-configs write under Ethernet and Port-Channel interfaces (the first words of
# those lines in aristanetworks/avd's 726 eos_cli_config_gen intended configs) not listed before: `flow tracker
# sampled NAME` (EOS User Manual, Flow Tracking) was read as an abbreviated `flowcontrol` and named (20 SYS002s on
# 10 of AVD's 53 whole example configs); `l2 mtu`, `link tracking group`, `dhcp server`, `evpn ethernet-segment`,
# `multicast`, `pim`, `port-channel lacp fallback`, `sync-e`, `tcp mss ceiling`, `vlan id` beside them.
_IF_OTHER = frozenset({"arp", "bfd", "dcbx", "dot1x", "encapsulation", "errdisable", "error-correction",
                       "hardware", "isis", "l2-protocol", "lacp", "link-debounce", "link-tracking", "lldp",
                       "load-interval", "logging", "mac", "mac-address", "mlag", "mpls", "phy", "platform", "poe",
                       "profile", "ptp", "queue-monitor", "sflow", "shape", "snmp", "spanning-tree", "storm-control",
                       "traffic-policy", "transceiver", "unidirectional", "vmtracer", "vrf", "vrrp", "interface",
                       "dhcp", "evpn", "flow", "l2", "link", "multicast", "pim", "port-channel", "sync-e", "tcp",
                       "vlan"})
IF_KNOWN = IF_READ | _ANY_MODE_WORDS | _IF_OTHER  # every command an interface takes that is listed here
# The commands the reader reads that open no mode (clitext.TreeReader.is_wrapped): a line under one is a wrapped piece
# of it. (`tx-queue N` and `mc-tx-queue N` open one: EOS User Manual, Quality of Service.)
LEAF_WORDS = (IF_READ | _MODE_WORDS["txq"] | _MODE_WORDS["pclass"] | _MODE_WORDS["cmap"]) - set(_QUEUE_WORDS)
_IF_KEYWORDS = clitext.ModeKeywords({"if": IF_READ}, _ANY_MODE_WORDS | _IF_OTHER, _GLOBAL_WORDS, leading=LEADING)
# The keywords each read interface command takes after the words before them (the same command pages; N: a number):
# `qos trust cos|dscp`, `priority-flow-control on|off|mode on|off|priority N no-drop|drop|pause watchdog port action
# ...`, `service-policy [type qos|pbr] input NAME`. Other commands' later words stay as typed.
_IF_ARGS: dict[tuple[str, ...], frozenset[str]] = {
    ("qos",): frozenset({"trust", "cos", "dscp"}),
    ("qos", "trust"): frozenset({"cos", "dscp"}),
    ("priority-flow-control",): frozenset({"on", "off", "mode", "priority", "pause"}),
    ("priority-flow-control", "mode"): frozenset({"on", "off"}),
    ("priority-flow-control", "priority", "N"): frozenset({"no-drop", "drop"}),
    ("priority-flow-control", "pause"): frozenset({"watchdog"}),
    ("priority-flow-control", "pause", "watchdog"): frozenset({"port"}),
    ("priority-flow-control", "pause", "watchdog", "port"): frozenset({"action", "timer"}),
    ("priority-flow-control", "pause", "watchdog", "port", "action"): frozenset(
        {"drop", "no-drop", "notify-only", "errdisable"}),
    ("service-policy",): frozenset({"type", "input", "output"}),
    ("service-policy", "type"): frozenset({"qos", "pbr"}),
    ("service-policy", "type", "qos"): frozenset({"input", "output"}),
}


def interface_words(words: list[str], cut: bool = False, strict: bool = False) -> list[str]:
    """An interface line's words with each keyword it abbreviates written out (`qos tr d`: `qos trust dscp`), as EOS
    runs it; ``cut``: the line is a cut file's last, whose last word may be a whole one cut short, so it stays as
    written; ``strict``: an ambiguous prefix of a command the reader reads raises LineError (ModeKeywords.spell)."""
    head, tail = (words[:-1], words[-1:]) if cut else (words, [])
    out = _IF_KEYWORDS.spell("if", head, strict)
    k = len(out) - len(body(out))
    key = tuple(out[k:k + 1])
    for i in range(k + 1, len(out)):
        if is_digits(out[i]):
            key = (*key, "N")
            continue
        choices = _IF_ARGS.get(key)
        if choices is None:
            break
        out[i] = clitext.keyword(out[i], choices) or out[i]
        key = (*key, out[i])
    return out + tail


def queue_words(words: list[str], cut: bool = False, strict: bool = False) -> list[str]:
    """A tx-queue line's words with the keyword it abbreviates written out (`band percent 50`); ``cut`` and
    ``strict`` as interface_words."""
    return _KEYWORDS.spell("txq", words[:-1], strict) + words[-1:] if cut else _KEYWORDS.spell("txq", words, strict)


def spell_interface_word(words: list[str]) -> list[str]:
    """``words`` with `interface` written out where typed as a prefix of it EOS takes (`int eth 1-3`, `inter
    Ethernet5`: EOS takes a command's unambiguous prefix, and sessions type it so)."""
    if words and words[0] != "interface" and len(words[0]) >= 3 and "interface".startswith(words[0]):
        return ["interface", *words[1:]]
    return words


def body(words: list[str]) -> list[str]:
    """A command's words after a leading `no` or `default` (the forms that undo or restore it)."""
    return clitext.command_body(words, LEADING)


def _global(words: list[str]) -> bool:
    """Whether a command is a global configuration one (so, typed in a sub-mode, it leaves it)."""
    w = interface_words(spell_interface_word(body(words)))  # (`qos tr d` is the interface's `qos trust dscp`)
    if not w or w[0] not in _GLOBAL_WORDS:
        return False
    second = w[1] if len(w) > 1 else None
    if w[0] == "priority-flow-control":
        return any(tuple(w[1:1 + len(form)]) == form for form in _GLOBAL_PFC)
    if w[0] == "qos":
        return second not in QOS_PORT
    if w[0] in _GLOBAL_FORMS and second in _GLOBAL_FORMS[w[0]]:
        return True
    if w[0] in _INTERFACE_FORMS:
        forms = _INTERFACE_FORMS[w[0]]
        return forms is not None and second not in forms
    return True


def _takes(mode: str, words: list[str]) -> bool:
    """Whether ``mode`` runs the command itself (else an enclosing mode does)."""
    w = body(words)
    if not w:
        return False
    if mode == "if":
        return not _global(words)
    if mode == "profile":
        return (w[0] in _PROFILE_WORDS or (w[0] == "qos" and w[1:2] != [] and w[1] in QOS_PORT)) and not _global(words)
    return _KEYWORDS.keyword(mode, w[0]) is not None


def _opens(mode: str | None, words: list[str]) -> str | None:
    """The mode a command typed in ``mode`` (None: global) enters, if any."""
    if body(words) is not words:
        return None
    if mode is None:
        if spell_interface_word(words[:1]) == ["interface"]:
            return "if"
        if words[:2] == ["qos", "profile"]:
            return "profile"
        if words[0] == "policy-map":
            return "pmap"
        if words[0] == "class-map":
            return "cmap"
        return None
    if mode in ("if", "profile") and interface_words(words[:1])[0] in _QUEUE_WORDS:
        return "txq"
    if mode == "pmap" and words[0] == "class":
        return "pclass"
    return None


def renest(text: str, blank_exits: bool = True) -> str:
    """The paste indented as EOS would read it (three spaces a mode), every line's number kept; `exit` and `end`
    blanked once applied (kept at the margin without ``blank_exits``: `fix` writes the file back). Text that is not
    such a paste comes back unchanged."""
    if not clitext.is_flat(text, _takes, _opens, ("if", "profile")):
        return text
    return clitext.renest(text.split("\n"), _takes, _opens, "   ", blank_exits=blank_exits, spell=_KEYWORDS.spell)
