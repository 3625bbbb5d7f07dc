"""Read an Onyx running-config into its QoS settings, each with its line.

Onyx prints one command a line: configuration lines indented by three spaces, `no ...` lines at the margin, `##`
comment lines between sections, and an interface's settings as `interface ethernet 1/1 <command>` (a range
`1/1-1/4` names every port in it). Lines that are not about QoS are skipped without a word; a QoS line that cannot be
read becomes a SYS002 issue and everything else is still read.
"""

from __future__ import annotations

import re
from dataclasses import field

from ... import units
from ...lazyre import lazy
from ...model import ParseIssue, Source
from ...records import record
from ..base import (
    Input,
    IssueList,
    LineAt,
    SessionHosts,
    check_expanded,
    host_name,
    host_name_removed,
    naming_words,
    port_slot,
    removes_host_name,
)
from ..clitext import (
    Issues,
    LineError,
    Val,
    bounded_int,
    check_config_text,
    command_body,
    layer3_line,
    refused,
    refused_issue,
)
from . import PLATFORM

# `## Hostname: leaf1`: the header `show running-config` prints.
_HOST_HEADER = lazy(r"^## Hostname: (\S+)[ \t]*\r?$", re.M)
# Onyx User Manual, Ethernet Interface Commands: `interface ethernet <slot>/<port>[/<subport>][-<slot>/<port>
# [/<subport>]]` (a subport where the port is split); the range form since 3.2.1100.
_PORT = lazy(r"^(\d{1,2})/(\d{1,3})(?:/(\d{1,2}))?$", re.ASCII)
# Lines of an Onyx running-config; a file with none of them is not one.
_ONYX_LINE = lazy(r"^[ \t]*(##|no cli default prefix-modes|interface ethernet \d|dcb priority-flow-control|"
                  r"roce\b|traffic pool |hostname )")
# _ONYX_LINE's lines in words, for the error on a file without any.
_ONYX_LINES = ("`##`, `interface ethernet`, `dcb priority-flow-control`, `roce`, `traffic pool`, `hostname` or `no cli "
               "default prefix-modes enable`")
ROCE_MODES = ("lossless", "lossy", "semi-lossless")
# Onyx User Manual, QoS Commands, `qos trust [port | L2 | L3 | both]`.
TRUST_WORDS = ("port", "L2", "L3", "both")
# Onyx User Manual, Shared Buffer Commands: `traffic pool <name> type lossless | lossy | lossy-mc`.
POOL_TYPES = ("lossless", "lossy", "lossy-mc")
# Interface words that are not QoS (addresses, VLANs, LAGs, LLDP, FEC, ...): skipped without a word. Any other word
# starting one of _QOS_WORDS is a QoS command losslessd does not read: a SYS002 on its line.
_QOS_WORDS = ("dcb", "qos", "traffic-class", "ingress-buffer", "egress-buffer", "pfc-wd", "buffer", "ecn")
_PORT_CHANNEL = lazy(r"^interface (port-channel|mlag-port-channel) \S+ (.*)$")
_OUTSIDE = ("an interface command outside an `interface ethernet` line (a config typed in prefix mode?); give the "
            "running-config as `show running-config` prints it")
# A speed as Onyx writes it (`speed 100G force`, `speed 25G`, `speed 1G`).
_SPEED = lazy(r"^([0-9]{1,4}(?:\.[0-9])?)G$", re.ASCII)
# ECN thresholds: absolute ones in KB (mellanox.onyx collection, onyx_traffic_class: "minimum-threshold value (in
# KBs)"; the Onyx manual's `show roce` prints the RoCE mode's as Min 150, Max 1500), at most 9 digits (a terabyte);
# relative ones in percent of the queue's buffer (the collection's threshold_mode `relative`; unverified).
_KB_DIGITS = 9


# A `traffic-class N congestion-control` line the reader could not read: the queue's marking is unknown, not off.
ECN_UNREAD = "unread"
# A `qos trust` line the reader could not read: the port's trust is unknown, not the default.
TRUST_UNREAD = "unread"
# A port's `dcb priority-flow-control mode` line the reader could not read: its PFC is unknown, not the default off.
PFC_UNREAD = "unread"
# First words of global lines that are no Onyx command losslessd reads (`dcb priority-flow-control`, `traffic pool`
# are read above): another platform's QoS words (`traffic ecn`, `pfc-watchdog`, `dcbx`) or an Onyx command not read.
# Each is named, and what its words name (trust, maps, ECN, PFC) is unknown, not the default.
_GLOBAL_QOS_WORDS = ("dcb", "dcbx", "pool", "qos", "traffic", "pfc-wd", "pfc-watchdog", "priority-flow-control",
                     "ecn", "wred", "buffer", "trust")


# What no NVIDIA document losslessd read gives for two kinds of line (session 42 part g: the Onyx User Manual's PFC
# (3.10.4408: its watchdog section describes what the watchdog does, the part read names no command),
# Shared Buffers and Shared Buffer Commands pages, the mellanox.onyx collection's onyx_buffer_pool and
# onyx_pfc_interface, as the docs and pages corpora hold them): the PFC watchdog (`dcb priority-flow-control
# watchdog ...`, `pfc-wd ...`) and its timers, and the buffer sizes of advanced buffer mode (`ingress-buffer ...
# reserved X xoff Y xon Z`, `pool NAME size N`, `traffic pool NAME size N`), whose unit (bytes, cells, KB) no page
# states. Each such line is named with what stays unknown; none is read with a guessed unit.
_WATCHDOG_UNSOURCED = ("the Onyx PFC watchdog: the Onyx User Manual's PFC page, as losslessd read it, describes the "
                       "watchdog (a stuck queue flushed, its packets dropped) but gives neither this command nor its "
                       "timers or their units, so whether the watchdog runs on a port, and how, could not be verified")
_BUFFER_UNSOURCED = ("a buffer pool or priority-group size: no NVIDIA document losslessd read states the unit of its "
                     "values (bytes, cells or KB), so the sizes it sets are unknown and no headroom is read from it")


# The words before a size in those lines (the Onyx User Manual's Shared Buffer Commands: a pool's `size`, a PG's
# `reserved`, `xoff` and `xon`)
_SIZE_WORDS = frozenset({"size", "reserved", "xoff", "xon"})


def _unsourced(words: list[str]) -> str | None:
    """Why a line of one of the kinds above is not read (None for another line)."""
    if any(word in ("watchdog", "pfc-wd") for word in words):
        return _WATCHDOG_UNSOURCED
    if (any(word in ("ingress-buffer", "egress-buffer", "size") for word in words) or words[:1] == ["pool"]) \
            and any(word in _SIZE_WORDS for word in words):  # (one that binds or names a mode sets no size)
        return _BUFFER_UNSOURCED
    return None


_UNREAD_STEMS = {"maps": ("dscp", "pcp", "map"), "trust": ("trust",), "ecn": ("ecn", "congestion", "wred"),
                 "pfc": ("pfc", "priority-flow-control")}


def _unread_settings(words: list[str]) -> frozenset[str]:
    """What a QoS line not read may set (of _UNREAD_STEMS), by a word holding a stem (`dscp` in `dscp-map`); a
    watchdog line sets no PFC priority."""
    text = " ".join(words).lower()
    found = {what for what, stems in _UNREAD_STEMS.items() if any(stem in text for stem in stems)}
    if "watchdog" in text or "pfc-wd" in text:
        found.discard("pfc")
    return frozenset(found)


@record(frozen=True)
class EcnConf:
    """`traffic-class N congestion-control ecn|red|both minimum-absolute X maximum-absolute Y` (or -relative)."""

    kind: str  # ecn | red | both
    relative: bool
    kmin: int
    kmax: int


@record
class PortConf:
    source: Source
    description: str | None = None
    speed: Val | None = None  # Gb/s; Val(None): `speed auto`
    mtu: Val | None = None  # the IP MTU (see build.py)
    admin_up: Val | None = None
    trust: Val | None = None  # TRUST_WORDS; Val(None): `no qos trust` (back to the default); TRUST_UNREAD
    pfc_mode: Val | None = None  # on | off | auto
    rewrite_dscp: Val | None = None  # `[no] qos rewrite dscp`
    ecn: dict[int, Val] = field(default_factory=dict)  # traffic class -> EcnConf, None for `no ...`, or ECN_UNREAD
    ets: dict[int, Val] = field(default_factory=dict)  # traffic class -> ("strict", None) | ("wrr", weight)
    sp_tc: dict[int, Val] = field(default_factory=dict)  # switch priority -> traffic class (`bind switch-priority`);
    # Val(None): a `no ... bind switch-priority` line, after which its traffic class is not known
    maps_unread: bool = False  # a `qos ...` line losslessd does not read (a `qos map`?) may change the port's maps
    pause_rx: Val | None = None  # `flowcontrol receive on|off`
    pause_tx: Val | None = None  # `flowcontrol send on|off`
    qos: bool = False  # a QoS line names the port (trust, PFC mode, ECN, ETS, rewrite)
    channel_group: str | None = None  # `channel-group N [mode ...]`: a member of port-channel N
    mlag_group: str | None = None  # `mlag-channel-group N [mode ...]`: a member of mlag-port-channel N
    routed: Val | None = None  # `[no] switchport [force]` (clitext.routed_port)
    l3_address: Source | None = None  # the first `ip address` / `ipv6 address` line


@record
class Pool:
    source: Source
    type: Val | None = None
    sps: dict[int, Source] = field(default_factory=dict)  # switch priority -> the `map switch-priority` line


@record
class RoceShown:
    """What a capture's `show roce` says RoCE mode applies (Onyx User Manual, RoCE Commands, `show roce`: "RoCE
    mode", "Port trust mode", "PFC" with a "switch-priority N: enabled" line per priority, and the "RoCE used TCs"
    table of switch priority, traffic class, application and ETS), each with its line."""

    mode: Val | None = None
    trust: Val | None = None  # TRUST_WORDS
    pfc: Val | None = None  # True: "PFC : enabled"
    sps: dict[int, Val] = field(default_factory=dict)  # switch priority -> enabled
    ets: dict[int, Val] = field(default_factory=dict)  # traffic class -> ("strict", None) | ("wrr", percent)


@record
class OnyxConfig:
    hostname: Val | None = None
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    header_name: str | None = None
    pfc_global: Val | None = None  # `[no] dcb priority-flow-control enable [force]`
    pfc_priorities: dict[int, Val] = field(default_factory=dict)  # `[no] dcb priority-flow-control priority N enable`
    pfc_unread: Source | None = None  # a global `dcb priority-flow-control` line not read: what PFC pauses is unknown
    roce: Val | None = None  # ROCE_MODES; Val(None): `no roce`
    shown: RoceShown | None = None  # a capture's `show roce`
    qos_unread: bool = False  # a global `qos ...` line losslessd does not read may change every port's maps
    trust_unread: Source | None = None  # a global line naming trust not read: a port's unwritten trust is unknown
    ecn_unread: Source | None = None  # a global line naming ECN not read: a queue's unwritten marking is unknown
    pools: dict[str, Pool] = field(default_factory=dict)
    ports: dict[str, PortConf] = field(default_factory=dict)
    # port-channel N -> its `[no] switchport force` and address lines (its other lines are not read)
    port_channels: dict[str, PortConf] = field(default_factory=dict)
    issues: list[ParseIssue] = field(default_factory=IssueList)
    expanded: int = 0  # ports named by ranges so far (limits.MAX_EXPANDED_PORTS)


def read(inputs: list[Input]) -> OnyxConfig:
    cfg = OnyxConfig()
    for inp in inputs:
        flat = session(inp.text, inp.path, cfg.issues)
        if flat is not None:
            inp = Input(inp.path, flat)
        check_config_text(inp, "NVIDIA Onyx", _ONYX_LINE, _ONYX_LINES + (" (bare or typed at an Onyx prompt)"
                                                                           if flat is not None else ""))
        _Reader(cfg, inp, session=flat is not None).read()
    return cfg


# An Onyx configuration-mode prompt (Onyx User Manual, "Command Line Interface": `switch (config) #`, a sub-mode named
# after the command that entered it, `switch (config interface ethernet 1/1) #`; a system in an MLAG or HA group shows
# its state in brackets, `sw-spine01 [rocket-mlag-domain: master] (config) #`).
# (Bounded: a host name of up to 128 characters, a bracket of up to 128, a mode name of up to 256.)
SESSION_PROMPT = lazy(r"^[ \t]*(?:(?P<host>[^\s(\[]{1,128})[ \t]+)?(?:\[[^\]\n]{0,128}\][ \t]+)?"
                      r"\(config(?: ([^)\n]{1,256}))?\)[ \t]*#[ \t]?(.*)$")


# What only a running-config prints at the margin (Onyx User Manual, `show running-config`: its `## Running database`
# banner, then `hostname`, `interface ethernet 1/1 ...` lines): text holding one is no session.
_RUNNING_CONFIG = lazy(r'^(?:## (?:Running|Active saved) database "|hostname \S|interface ethernet \d)', re.M)


def session(text: str, path: str = "", issues: list[ParseIssue] | None = None) -> str | None:
    """A configuration-mode session with Onyx's prompts as the flat running-config it makes, line numbers kept: a
    command typed in configuration mode as it is, one typed in a sub-mode with that mode's command in front
    (`(config interface ethernet 1/1) # mtu 9216 force` is `interface ethernet 1/1 mtu 9216 force`, the form the
    running-config prints) unless it is an `interface` command of its own; everything else (output, exec-mode
    commands) blanked; a command the switch refused (a `% ` answer) a SYS002 on ``issues``. None when no line is such
    a prompt. A `no hostname` (no default name read for Onyx) is the name the first prompt naming a new host after it
    shows (docs/platforms.md, "One switch a file"): written as `hostname HOST` at its line, it names the device."""
    if _RUNNING_CONFIG.search(text):
        return None  # a running-config (after a typed `show running-config`, say) is read as it is
    lines = text.split("\n")
    typed = [(i, m) for i, line in enumerate(lines) if (m := SESSION_PROMPT.match(line))]
    out = [""] * len(lines)
    hosts = SessionHosts(path)
    removed = 0  # the line of the last `no hostname` whose name no prompt has shown yet
    for n, (i, m) in enumerate(typed):
        mode, command = m.group(2), m.group(3).strip()
        hosts.prompt(m["host"], i + 1, lines[i])
        if removed and not hosts.unknown_default:
            out[removed - 1], removed = f"hostname {m['host']}", 0
        words = command.split()
        if not words or words[0] in ("exit", "end", "configure", "write") or words[:1] == ["show"]:
            continue
        if (answer := refused(lines, i, typed[n + 1][0] if n + 1 < len(typed) else None)) is not None:
            if issues is not None:
                issues.append(refused_issue(path, i + 1, command, f"it answered `{answer}`"))
            continue
        if not mode:
            if (named := naming_words(words)) != words:  # (`hostn sw2` written out, as the switch runs it)
                command, words = " ".join(named), named
            hosts.typed(words)
            if removes_host_name(words) or words[0] == "hostname":  # (a name typed after the removal stands)
                removed = i + 1 if removes_host_name(words) else 0
        command = _spelled(command)  # (`int eth 1/2`, `no inter po 1`: Onyx takes the abbreviation, prints it whole)
        if mode and not (command.startswith("interface ") or command.startswith("no interface ")):
            command = f"{mode} {command}"
        out[i] = command
    return "\n".join(out) if typed else None


_SHOWN_MODE = lazy(r"^[ \t]*RoCE mode[ \t]*:[ \t]*(\S+)", re.M)
_SHOWN_TRUST = lazy(r"^[ \t]*Port trust mode[ \t]*:[ \t]*(\S+)", re.M)
_SHOWN_PFC = lazy(r"^[ \t]*PFC[ \t]*:[ \t]*(enabled|disabled)[ \t]*$", re.M)
_SHOWN_SP = lazy(r"^[ \t]*switch-priority ([0-7])[ \t]*:[ \t]*(enabled|disabled)[ \t]*$", re.M)
# A "RoCE used TCs" row: switch priority, traffic class, application, ETS (`3 3 RoCE WRR 50%`, `6 6 CNP Strict`).
_SHOWN_TC = lazy(r"^[ \t]*([0-7])[ \t]+([0-7])[ \t]+\S+[ \t]+(?:WRR[ \t]+([0-9]{1,3})%|(Strict))[ \t]*$",
                 re.M | re.I)


def read_show_roce(text: str, path: str, first: int) -> RoceShown | None:
    """The facts of a `show roce` output (``first``: the file line of its first line); None when it names no RoCE
    mode Onyx has (a refused command, `RoCE mode: N/A`)."""
    line_at = LineAt(text, first)  # (each row counted from the start made 100,000 table rows take 72 s)

    def src(match: re.Match) -> Source:
        return Source(file=path, line=line_at(match.start()))

    mode = _SHOWN_MODE.search(text)
    if mode is None or mode[1] not in ROCE_MODES:
        return None
    shown = RoceShown(mode=Val(mode[1], src(mode)))
    if (trust := _SHOWN_TRUST.search(text)) and trust[1] in TRUST_WORDS:
        shown.trust = Val(trust[1], src(trust))
    if pfc := _SHOWN_PFC.search(text):
        shown.pfc = Val(pfc[1] == "enabled", src(pfc))
    for sp in _SHOWN_SP.finditer(text):
        shown.sps[int(sp[1])] = Val(sp[2] == "enabled", src(sp))
    for row in _SHOWN_TC.finditer(text):
        weight = int(row[3]) if row[3] is not None else None
        if weight is None or weight <= 100:
            shown.ets[int(row[2])] = Val(("strict", None) if weight is None else ("wrr", weight), src(row))
    return shown


def port_names(text: str) -> list[str]:
    """`1/1` -> [Eth1/1]; `1/1-1/4` -> Eth1/1 .. Eth1/4; `1/9/1-1/9/4` the subports of a split port. Onyx names a port
    `Eth1/1` in its show commands and LLDP. LineError for a range across slots or split ports, or written backwards."""
    first, _, last = text.partition("-")
    a, b = _PORT.match(first), _PORT.match(last or first)
    if a is None or b is None:
        raise LineError(f"{text[:40]!r} is not a port or range such as 1/1 or 1/1-1/4")
    if a[1] != b[1] or (a[3] is None) != (b[3] is None) or (a[3] is not None and a[2] != b[2]):
        raise LineError(f"range {text[:40]!r} spans slots or split ports: write one range per slot")
    lo, hi = (int(a[2]), int(b[2])) if a[3] is None else (int(a[3]), int(b[3]))
    if hi < lo:
        raise LineError(f"range {text[:40]!r} is written backwards")
    if a[3] is None:
        return [f"Eth{a[1]}/{n}" for n in range(lo, hi + 1)]
    return [f"Eth{a[1]}/{a[2]}/{n}" for n in range(lo, hi + 1)]


# An interface line with no command after it (`interface ethernet 1/1`, `interface port-channel 10`), the commands
# indented below it: the form of a running-config printed with prefix modes on (Onyx User Manual, "CLI prefix modes":
# a mode's prefix, `interface ethernet 1/1`, written once, the commands of that mode after it), where the flat form
# repeats the prefix on every line (`interface ethernet 1/1 mtu 9216 force`). Each such line is read as the flat line.
_BLOCK = lazy(r"^interface (?:ethernet \S+|port-channel \S+|mlag-port-channel \S+)$")


# Onyx takes a command's words abbreviated: `int eth 1/1-1/36` typed at `(config) #` enters `(config interface
# ethernet 1/1-1/36) #` (an SX6036 session a homelab write-up prints, audit round 15). The interface types an
# `interface` command takes (Onyx User Manual, "Interfaces": ethernet, port-channel, mlag-port-channel, vlan, loopback,
# mgmt0/mgmt1, nve; ib on a VPI system), against which an abbreviation must be unique.
_INTERFACE_TYPES = ("ethernet", "port-channel", "mlag-port-channel", "ib", "vlan", "loopback", "mgmt0", "mgmt1", "nve")


def _channel_number(body: list[str]) -> str:
    """The port-channel number of a `channel-group N [mode on|active|passive]` line (Onyx User Manual, "Link
    Aggregation Group (LAG)"; `interface port-channel` takes 1-4096 there)."""
    if len(body) not in (2, 4) or (len(body) == 4 and (body[2], body[3]) not in (("mode", "on"), ("mode", "active"),
                                                                                   ("mode", "passive"))):
        raise LineError(f"expected `{body[0]} N mode on|active|passive`: which aggregate the port is a member of is "
                        "not read")
    return str(bounded_int(body[1], 1, 4096, "the port-channel number"))


def _spelled(text: str) -> str:
    """``text`` with an abbreviated `interface TYPE` (`int eth`, `[no] interface Ethernet`) written as the
    running-config prints it; other lines as they are."""
    words = text.split()
    at = 1 if words[:1] == ["no"] else 0
    if len(words) < at + 2 or len(words[at]) < 3 or not "interface".startswith(words[at].lower()):
        return text
    kinds = [k for k in _INTERFACE_TYPES if k.startswith(words[at + 1].lower())]
    if len(kinds) != 1 or words[at:at + 2] == ["interface", kinds[0]]:
        return text
    return " ".join([*words[:at], "interface", kinds[0], *words[at + 2:]])


def _in_block(prefix: list[str], text: str) -> str:
    """A command indented under an interface line, as the flat line it is (`no shutdown` under `interface ethernet
    1/1`: `no interface ethernet 1/1 shutdown`, the form `show running-config` prints without prefix modes)."""
    words = text.split()
    if words[0] == "no":
        return " ".join(["no", *prefix, *words[1:]])
    return " ".join([*prefix, *words])


_TRAFFIC_CLASS = lazy("[0-7]")


class _Reader:
    def __init__(self, cfg: OnyxConfig, inp: Input, session: bool = False):
        self.cfg, self.inp = cfg, inp
        self.session = session  # ``inp`` is a configuration-mode session's commands (session()), not a running-config
        self.issues = Issues(cfg.issues)

    def src(self, line: int) -> Source:
        return Source(file=self.inp.path, line=line)

    def read(self) -> None:
        header = _HOST_HEADER.search(self.inp.text)
        if header:
            self.cfg.header_name = header.group(1)
        lines = self.inp.text.split("\n")
        block: tuple[int, list[str]] | None = None  # an interface line's indentation and words, its lines below it
        command: tuple[int, str] | None = None  # the block's last command line above: its indentation and text
        for number, raw in enumerate(lines, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            indent = len(raw.expandtabs(8)) - len(raw.expandtabs(8).lstrip())
            if block is not None and indent <= block[0]:
                block = command = None
            if text == "exit":  # (leaves the interface's mode: the indentation shows it)
                continue
            try:
                if block is not None and command is not None and indent > command[0]:
                    self.nested(block[1], command[1], text, number)
                    continue
                if block is not None:
                    command, text = (indent, text), _in_block(block[1], text)
                elif _BLOCK.match(text := _spelled(text)):
                    block = (indent, text.split())
                self.line(text.split(), text, number)
            except LineError as exc:
                self.issues.append(ParseIssue(code="SYS002", source=self.src(number),
                                              message=f"cannot read `{text[:200]}`: {exc}; line skipped"))
        last = lines[-1]
        # Each line ends with a newline: a file that stops mid-line was cut, unless that line is the one every
        # running-config closes with (its `## Persistent prefix mode setting` section, restoring the prefix mode the
        # first section turned off: the Onyx running-configs the mellanox.onyx collection's unit tests and Cray-HPE's
        # CSM docs print end so), which a capture saved without its final line end still holds whole.
        if last.strip() and len(lines) > 1 and last.strip() != "cli default prefix-modes enable":
            self.issues.append(ParseIssue(code="SYS002", source=self.src(len(lines)), message=(
                f"the file ends in the middle of a line (`{last.strip()[:80]}` has no line end): it looks truncated, "
                "so settings after this point are missing")))

    def nested(self, prefix: list[str], parent: str, text: str, number: int) -> None:
        """A line indented under one of a port's commands (`congestion-control ecn ...` under `traffic-class 3`, as
        a page prints it): no Onyx port command opens a mode of its own (Onyx User Manual, "CLI prefix modes": a
        port's commands are each one line under `interface ethernet`), so the switch takes neither line as written.
        Not read: named, and what the two name (a traffic class's marking, trust, PFC) is unknown on the port."""
        body = [*parent.split(), *text.split()]
        ports = self.ports(prefix[2], number) if len(prefix) > 2 and prefix[1] == "ethernet" else []
        self.unread_on_ports(ports, body, self.src(number))
        self.not_read(text, number, f"indented under the port's `{parent[:60]}` line, which opens no mode on Onyx "
                                    "(each port command is a line of its own); not read, so what the two set on "
                                    "the port is unknown")

    @staticmethod
    def unread_on_ports(ports: list[PortConf], body: list[str], src: Source) -> None:
        """What a port line not read names is unknown on the port, not the default (`dcb trust dscp`, `ecn
        enable`); a `traffic-class N ...` line's marking of that class."""
        unread = _unread_settings(body)  # (once a line, not once a port of its range)
        tc = int(body[1]) if body[:1] == ["traffic-class"] and _TRAFFIC_CLASS.fullmatch("".join(body[1:2])) else None
        for port in ports:
            port.maps_unread = port.maps_unread or body[:1] == ["qos"] or "maps" in unread
            if "trust" in unread:
                port.trust = Val(TRUST_UNREAD, src)
            for cls in range(8) if "ecn" in unread else ():
                port.ecn.setdefault(cls, Val(ECN_UNREAD, src))
            if tc is not None:  # (a line read earlier keeps its value, as the rest do)
                port.ecn.setdefault(tc, Val(ECN_UNREAD, src))
            if "pfc" in unread:
                port.pfc_mode = Val(PFC_UNREAD, src)

    def not_read(self, text: str, number: int, why: str) -> None:
        self.issues.append(ParseIssue(code="SYS002", source=self.src(number), message=f"`{text[:200]}`: {why}"))

    def line(self, w: list[str], text: str, number: int) -> None:
        src = self.src(number)
        if w[0] == "hostname" and len(w) == 2:
            host_name(self.cfg.host_names, w[1], src, renames=self.session)
            self.cfg.hostname = Val(w[1], src)
        elif self.session and removes_host_name(w):  # (no default name read for Onyx, no prompt after it showed one)
            default = host_name_removed(self.cfg.host_names, PLATFORM, src)
            self.cfg.hostname = Val(default, src) if default else None
        elif w[:2] == ["interface", "ethernet"] and len(w) >= 3:
            ports = self.ports(w[2], number)
            if len(w) > 3:
                self.interface(w[3:], text, number, ports)
        elif w[:3] == ["no", "interface", "ethernet"] and len(w) >= 5:  # `no interface ethernet 1/1 shutdown`
            self.interface(["no", *w[4:]], text, number, self.ports(w[3], number))
        elif (channel := _PORT_CHANNEL.match(text)) and channel[2].split()[0] in _QOS_WORDS:
            self.not_read(text, number, f"QoS on a {channel[1]} applies to its member ports, which losslessd does not "
                                        "resolve: not read, so what it sets on them is unknown")
        elif channel and channel[1] == "port-channel":
            # (Onyx User Manual, "IP Routing Overview": a port-channel is a router port with `no switchport force`)
            conf = self.cfg.port_channels.setdefault(w[2], PortConf(source=src))
            layer3_line(conf, [x for x in w[3:] if x != "force"], src)
        elif w[:2] == ["dcb", "priority-flow-control"]:
            self.global_pfc(w[2:], False, text, number)
        elif w[:3] == ["no", "dcb", "priority-flow-control"]:
            self.global_pfc(w[3:], True, text, number)
        elif w[0] == "roce" or w == ["no", "roce"]:
            self.roce(w, src)
        elif w[:2] == ["traffic", "pool"] and len(w) >= 3:
            self.pool(w[2], w[3:], src)
        elif command_body(w)[:1] and command_body(w)[0] in _GLOBAL_QOS_WORDS or \
                w[:3] == ["advanced", "buffer", "management"]:
            # the DSCP and PCP maps (their syntax is not in a source read), the watchdog, advanced buffer pools,
            # another platform's QoS words: each decides what a lossless class gets
            self.unread_global(w, text, number)
        elif w[0] in ("mtu", "speed", "traffic-class"):
            raise LineError(_OUTSIDE)

    def unread_global(self, w: list[str], text: str, number: int) -> None:
        """Name a global QoS line not read; what its words name is unknown on every port that does not set it."""
        src, unread = self.src(number), _unread_settings(w)
        if "qos" in w[:2] or unread & {"maps", "trust"}:
            self.cfg.qos_unread = True
        if "trust" in unread:
            self.cfg.trust_unread = self.cfg.trust_unread or src
        if "ecn" in unread:
            self.cfg.ecn_unread = self.cfg.ecn_unread or src
        if "pfc" in unread:
            self.cfg.pfc_unread = self.cfg.pfc_unread or src
        self.not_read(text, number, _unsourced(w) or "a QoS command losslessd does not read; what it sets is unknown")

    def ports(self, text: str, number: int) -> list[PortConf]:
        names = port_names(text)
        if len(names) > 1:
            self.cfg.expanded += len(names)
            check_expanded(self.cfg.expanded, self.inp.path, number)
        src = self.src(number)
        return [port_slot(self.cfg.ports, n, lambda: PortConf(source=src), src) for n in names]

    def global_pfc(self, rest: list[str], neg: bool, text: str, number: int) -> None:
        src = self.src(number)
        # Onyx User Manual, PFC: `[no] dcb priority-flow-control enable [force]`, `[no] dcb priority-flow-control
        # priority <0-7> enable`.
        if rest in (["enable"], ["enable", "force"]):
            self.cfg.pfc_global = Val(not neg, src)
        elif rest[:1] == ["priority"] and len(rest) == 3 and rest[2] == "enable":
            try:
                priority = bounded_int(rest[1], 0, 7, "the PFC priority")
            except LineError:
                self.cfg.pfc_unread = self.cfg.pfc_unread or src
                raise
            self.cfg.pfc_priorities[priority] = Val(not neg, src)
        elif rest[:1] == ["mode"]:
            raise LineError(_OUTSIDE)
        elif rest[:1] == ["watchdog"]:  # (it sets no priority's PFC: _unread_settings)
            self.not_read(text, number, _WATCHDOG_UNSOURCED)
        else:
            # it may be the line that enables PFC or a priority: what the switch pauses is unknown, not off
            self.cfg.pfc_unread = self.cfg.pfc_unread or src
            self.not_read(text, number, "a PFC command losslessd does not read; what it sets is unknown")

    def roce(self, w: list[str], src: Source) -> None:
        """Onyx User Manual, RoCE Commands: `roce [lossy | semi-lossless | lossless]`, lossless when no mode is
        given; `no roce` turns RoCE mode off."""
        if w == ["no", "roce"]:
            self.cfg.roce = Val(None, src)
        elif len(w) == 1:
            self.cfg.roce = Val("lossless", src)
        elif len(w) == 2 and w[1] in ROCE_MODES:
            self.cfg.roce = Val(w[1], src)
        else:
            raise LineError(f"expected `roce` or `roce {' | '.join(ROCE_MODES)}`")

    def pool(self, name: str, rest: list[str], src: Source) -> None:
        """Onyx User Manual, Shared Buffer Commands: `traffic pool <name> type <type>`, `traffic pool <name> map
        switch-priority <list>` (priorities 0-7, space separated), `traffic pool <name> memory percent <P>`."""
        if len(name) > 20:  # "String up to 20 characters"
            raise LineError("a traffic pool name has at most 20 characters")
        pool = self.cfg.pools.setdefault(name, Pool(source=src))
        if rest in ([], ["force"]):
            return  # creates the pool
        if rest[:2] == ["memory", "percent"]:  # its share of the buffer memory: checked, not part of the model
            try:
                units.decimal(rest[2] if len(rest) == 3 else "", 0, 100)
            except ValueError as exc:
                raise LineError(f"the memory percent must be a number 0-100 ({exc})") from None
            return
        if rest[:1] == ["type"] and len(rest) == 2:
            if rest[1] not in POOL_TYPES:
                raise LineError(f"a traffic pool type is {', '.join(POOL_TYPES)}")
            pool.type = Val(rest[1], src)
        elif rest[:2] == ["map", "switch-priority"] and len(rest) > 2:
            for word in rest[2:]:
                pool.sps[bounded_int(word, 0, 7, "a switch priority")] = src
        elif rest[:1] == ["size"]:
            raise LineError(_BUFFER_UNSOURCED)
        else:
            raise LineError("expected `traffic pool NAME type T`, `map switch-priority LIST` or `memory percent P`")

    def interface(self, w: list[str], text: str, number: int, ports: list[PortConf]) -> None:
        src = self.src(number)
        body = command_body(w)
        neg = body is not w
        val: Val | None = None
        if body[:1] == ["description"] and not neg:
            desc = text.split(" description", 1)[1].strip()
            if len(desc) > 1 and desc[0] == desc[-1] == '"':  # Onyx prints it quoted
                desc = desc[1:-1]
            for port in ports:
                port.description = desc
            return
        if body == ["shutdown"]:
            for port in ports:
                port.admin_up = Val(neg, src)
            return
        if body[:1] == ["speed"] and not neg:
            val = Val(self.speed(body[1:]), src)
            for port in ports:
                port.speed = val
            return
        if body[:1] == ["mtu"] and not neg:
            val = Val(bounded_int(body[1] if len(body) in (2, 3) else "", 1, 65535, "the MTU"), src)
            for port in ports:
                port.mtu = val
            return
        if body[:1] == ["flowcontrol"] and len(body) >= 3 and body[1] in ("send", "receive"):
            # `flowcontrol send|receive on|off [force]`: 802.3x link pause
            if body[2] not in ("on", "off"):
                raise LineError("expected `flowcontrol send|receive on|off [force]`")
            val = Val(body[2] == "on" and not neg, src)
            for port in ports:
                setattr(port, "pause_tx" if body[1] == "send" else "pause_rx", val)
            return
        if body[:1] in (["channel-group"], ["mlag-channel-group"]):
            # Onyx User Manual, "Link Aggregation Group (LAG)" and "MLAG": `channel-group N mode on|active|passive`
            # (`mlag-channel-group N mode ...`) makes the Ethernet port a member of port-channel N (mlag-port-channel
            # N); its `no` form takes it out
            group = None if neg else _channel_number(body)
            for port in ports:
                setattr(port, "channel_group" if body[0] == "channel-group" else "mlag_group", group)
            return
        if body[:1] in (["switchport"], ["ip"], ["ipv6"]):
            # (Onyx User Manual, "IP Routing Overview", router port interface: `no switchport force`, `ip address`)
            for port in ports:
                layer3_line(port, [x for x in w if x != "force"], src)
            return
        if not body or body[0] not in _QOS_WORDS:
            return  # not QoS: switchport modes, channel-group, lldp, fec-override, ...
        for port in ports:
            port.qos = True
        if body[:2] == ["qos", "trust"]:
            if neg and len(body) == 2:
                val = Val(None, src)
            elif not neg and len(body) == 3 and body[2] in TRUST_WORDS:
                val = Val(body[2], src)
            else:
                for port in ports:  # a trust line not read: the port's trust is unknown, not the default L2
                    port.trust = Val(TRUST_UNREAD, src)
                raise LineError("expected `qos trust port|L2|L3|both` or `no qos trust`")
            for port in ports:
                port.trust = val
        elif body[:3] == ["qos", "rewrite", "dscp"] and len(body) == 3:
            for port in ports:
                port.rewrite_dscp = Val(not neg, src)
        elif body[:3] == ["qos", "rewrite", "pcp"] and len(body) == 3:
            pass  # the egress PCP: not part of the model
        elif body[:3] == ["dcb", "priority-flow-control", "mode"]:
            words = [x for x in body[3:] if x != "force"]
            if neg and not words:
                mode = "off"
            elif not neg and words in (["on"], ["off"], ["auto"]):
                mode = words[0]
            else:
                for port in ports:  # a mode line not read: the port's PFC is unknown, not the default off
                    port.pfc_mode = Val(PFC_UNREAD, src)
                raise LineError("expected `dcb priority-flow-control mode on|off|auto [force]`")
            for port in ports:
                port.pfc_mode = Val(mode, src)
        elif body[:1] == ["traffic-class"] and len(body) >= 2:
            tc = bounded_int(body[1], 0, 7, "the traffic class")
            if body[2:3] == ["congestion-control"]:
                try:
                    val = Val(None if neg else self.ecn(body[3:]), src)
                except LineError:
                    for port in ports:  # marking that could not be read is unknown, not off (a SYS002 names it)
                        port.ecn[tc] = Val(ECN_UNREAD, src)
                    raise
                for port in ports:
                    port.ecn[tc] = val
            elif body[2:4] == ["dcb", "ets"] and not neg:
                val = Val(self.ets(body[4:]), src)
                for port in ports:
                    port.ets[tc] = val
            elif body[2:4] == ["bind", "switch-priority"] and neg:
                # what the `no` form restores is not stated: the switch priorities it names (when it names none, the
                # ones bound to this traffic class by a line or by default) lose their known traffic class
                named = {bounded_int(x, 0, 7, "the switch priority") for x in body[4:]}
                for port in ports:
                    for sp in named or {tc} | {sp for sp, val in port.sp_tc.items() if val.value == tc}:
                        port.sp_tc[sp] = Val(None, src)
                self.not_read(text, number, "what the `no` form of `bind switch-priority` restores is not stated; the "
                                            "traffic class of those switch priorities is unknown")
            elif body[2:4] == ["bind", "switch-priority"]:
                # intel/mfd-switchmanagement c79b9e18d9a7, tests/unit/.../test_mellanox/test_mellanox.py: `interface
                # ethernet 1/1 traffic-class 3 bind switch-priority 0 1 2` (switch priorities 0-7, space separated);
                # the last line binding a switch priority decides its traffic class, as for every other line
                sps = [bounded_int(x, 0, 7, "the switch priority") for x in body[4:]]
                if not sps:
                    raise LineError("expected `traffic-class N bind switch-priority P [P ...]`")
                val = Val(tc, src)
                for port in ports:
                    for sp in sps:
                        port.sp_tc[sp] = val
            else:
                self.unread_on_ports(ports, body, src)
                self.not_read(text, number, "a traffic-class command losslessd does not read; what it sets is unknown")
        else:
            self.unread_on_ports(ports, body, src)
            self.not_read(text, number, _unsourced(body)
                          or "a QoS command losslessd does not read; what it sets on the port is unknown")

    @staticmethod
    def speed(words: list[str]) -> float | None:
        words = [x for x in words if x != "force"]
        if words and words[0].startswith("auto"):
            return None
        m = _SPEED.match(words[0]) if len(words) == 1 else None
        gbps = float(m[1]) if m else 0.0
        if not gbps:
            raise LineError(f"{' '.join(words)[:40]!r} is not a speed such as 100G")
        return gbps

    @staticmethod
    def ecn(words: list[str]) -> EcnConf:
        """`ecn|red|both minimum-absolute X maximum-absolute Y` or `minimum-relative X maximum-relative Y`."""
        if len(words) != 5 or words[0] not in ("ecn", "red", "both"):
            raise LineError("expected `congestion-control ecn|red|both minimum-absolute X maximum-absolute Y`")
        relative = words[1] == "minimum-relative"
        if words[1:4:2] not in (["minimum-absolute", "maximum-absolute"], ["minimum-relative", "maximum-relative"]):
            raise LineError("expected minimum-absolute X maximum-absolute Y, or minimum-relative and maximum-relative")
        top, what = (100, "a percent") if relative else (10**_KB_DIGITS - 1, "a size in KB")
        kmin, kmax = (bounded_int(words[i], 0, top, f"the threshold ({what})") for i in (2, 4))
        if kmin > kmax:
            raise LineError(f"the minimum threshold {kmin} is above the maximum {kmax}")
        return EcnConf(words[0], relative, kmin, kmax)

    @staticmethod
    def ets(words: list[str]) -> tuple[str, int | None]:
        """`dcb ets strict` or `dcb ets wrr <weight>` (mellanox.onyx onyx_traffic_class: weight for wrr only)."""
        if words == ["strict"]:
            return "strict", None
        if words[:1] == ["wrr"] and len(words) == 2:
            return "wrr", bounded_int(words[1], 0, 100, "the WRR weight")
        raise LineError("expected `dcb ets strict` or `dcb ets wrr W`")

