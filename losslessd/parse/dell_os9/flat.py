"""An OS9 configuration pasted with its indentation lost (`interface TenGigabitEthernet 0/1` then `dcb-map MAP` at the
margin), re-nested as the running-config it makes.

OS9 reads a paste line by line, each command in the mode the one before it left (Dell Networking OS9 Command Line
Reference, "CLI Basics": CONFIGURATION mode, and the modes its commands enter, INTERFACE, DCB MAP, POLICY-MAP-IN,
QOS-POLICY-IN ...; `exit` leaves a mode, `end` configuration mode); a command the mode does not take is run by the
enclosing mode, which the switch is in next. Design guides print DCB steps so (the OS9 Configuration Guide's DCB map
procedure lists `dcb-map NAME`, its `priority-group` and `priority-pgid` lines, then `interface` and `dcb-map NAME`,
all at the margin). Which words each mode takes are listed here from the command pages' "Command Modes"; a line an
interface does not know stays the interface's, as the switch would try it there (a non-DCB line the reader skips).
"""

from __future__ import annotations

from ...units import is_digits
from .. import clitext

# CONFIGURATION-mode commands that end an interface's lines (OS9 Command Line Reference, each page's "Command Modes:
# CONFIGURATION"). `dcb-map NAME` and `service-class dynamic dot1p` are INTERFACE commands as well: typed in an
# interface they are its own.
_GLOBAL_WORDS = frozenset({"interface", "hostname", "dcb", "dcb-input", "dcb-output", "priority-group",
                           "policy-map-input", "policy-map-output", "qos-policy-input", "qos-policy-output",
                           "class-map", "router", "ip", "ipv6", "management", "username", "snmp-server", "ntp",
                           "logging", "line", "boot", "stack-unit", "enable", "service", "banner", "clock", "protocol",
                           "feature", "cam-acl", "mac", "end", "exit", "alias", "fcoe-map", "iscsi", "qos-rate-adjust",
                           "default-vlan", "vlt", "ecmp-group", "load-balance", "hardware"})
# Commands that start with one of those words and are an interface's (OS9 Command Line Reference, "Interfaces",
# "IPv4 Routing", "Link Layer Discovery Protocol": `ip address`, `ip mtu`, `ipv6 address`, `protocol lldp`, `mac
# learning-limit`).
_INTERFACE_FORMS = {"ip": {"address", "mtu", "helper-address", "access-group", "vrf", "unreachables", "redirects",
                           "proxy-arp", "directed-broadcast", "igmp", "pim", "ospf"},
                    "ipv6": {"address", "mtu", "nd", "ospf", "access-group"},
                    "protocol": {"lldp"}, "mac": {"learning-limit", "access-group"}}
# What each sub-mode takes (OS9 Command Line Reference: DCB MAP `priority-group N {bandwidth P | strict-priority} pfc
# on|off` and `priority-pgid`; POLICY-MAP-IN/-OUT `service-queue`, `policy-aggregate`, `trust`; QOS-POLICY-IN
# `rate-police`, `set`; QOS-POLICY-OUT `rate-shape`, `rate-limit`, `scheduler`, `bandwidth-percentage`, `wred`;
# CLASS-MAP `match`; DCB INPUT `pfc`; DCB OUTPUT `priority-group NAME qos-policy NAME`; PRIORITY-GROUP `priority-list`,
# `set-pgid`; PROTOCOL LLDP `advertise`, `dcbx`, `disable`, `hello`, `mode`, `multiplier`), with their `no` forms.
_MODE_WORDS = {
    "pmap": {"service-queue", "policy-aggregate", "trust", "description"},
    "qos-in": {"rate-police", "set", "description"},
    "qos-out": {"rate-shape", "rate-limit", "scheduler", "bandwidth-percentage", "wred", "description"},
    "cmap": {"match", "description"},
    "dcb-in": {"pfc", "description"},
    "dcb-out": {"priority-group", "description"},
    "pg": {"priority-list", "set-pgid", "description"},
    "lldp": {"advertise", "dcbx", "disable", "hello", "mode", "multiplier", "management-interface"},
    # LACP (OS9 Configuration Guide, "Link Aggregation Control Protocol"): `port-channel N mode ...`, `lacp
    # port-priority N`
    "lacp": {"port-channel", "lacp"},
}
# The modes a CONFIGURATION command enters.
_OPENS = {"interface": "if", "policy-map-input": "pmap", "policy-map-output": "pmap", "qos-policy-input": "qos-in",
          "qos-policy-output": "qos-out", "class-map": "cmap", "dcb-input": "dcb-in", "dcb-output": "dcb-out"}


def _global(words: list[str]) -> bool:
    """Whether a command is a CONFIGURATION one (so, typed in an interface, it leaves it)."""
    w = clitext.command_body(words)
    if not w or w[0] not in _GLOBAL_WORDS:
        return False
    return w[0] not in _INTERFACE_FORMS or (w[1] if len(w) > 1 else None) not in _INTERFACE_FORMS[w[0]]


def _dcb_map_line(w: list[str]) -> bool:
    """A DCB MAP command: `priority-pgid ...`, or `priority-group` with a group number (`priority-group NAME` is the
    CONFIGURATION command that enters a priority group of the older DCB policies)."""
    return w[:1] == ["priority-pgid"] or (w[:1] == ["priority-group"] and len(w) > 1 and is_digits(w[1]))


def _takes(mode: str, words: list[str]) -> bool:
    """Whether ``mode`` runs the command itself (else an enclosing mode does)."""
    w = clitext.command_body(words)
    if not w:
        return False
    if mode == "if":
        return not _global(words)
    if mode == "dcbmap":
        # A `priority...` line that is no CONFIGURATION command is the map's, refused there if garbled: OS9 takes a
        # keyword's unique prefix only, and `priority` begins both map commands (audit round 19: a switch guide's
        # `priority group 0 bandwidth 90 pfc on` left the map and was passed over, its `pfc on` with it).
        return _dcb_map_line(w) or (w[0].startswith("priority") and not _global(words))
    return w[0] in _MODE_WORDS[mode]


def _opens(mode: str | None, words: list[str]) -> str | None:
    """The mode a command typed in ``mode`` (None: CONFIGURATION) enters, if any."""
    if words[:1] == ["no"]:
        return None
    if words[:2] == ["protocol", "lldp"] and mode in (None, "if"):
        return "lldp"
    if [w.lower() for w in words] == ["port-channel-protocol", "lacp"] and mode == "if":
        return "lacp"
    if mode is not None:
        return None
    if words[0] == "dcb-map" and len(words) == 2:
        return "dcbmap"
    if words[0] == "priority-group" and not _dcb_map_line(words):
        return "pg"
    return _OPENS.get(words[0])


def renest(text: str) -> str:
    """The paste indented as OS9 prints a running-config (one space a mode), every line's number kept; `exit` and
    `end` blanked once applied. Text that is not such a paste comes back unchanged."""
    if not clitext.is_flat(text, _takes, _opens, ("if", "dcbmap")):
        return text
    return clitext.renest(text.split("\n"), _takes, _opens, " ")
