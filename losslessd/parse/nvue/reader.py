"""Read NVUE configuration into its QoS settings, each with the line that set it.

Two forms hold the same tree: the `nv set ...` command list (`nv config show -o commands`, what
operators paste) and the YAML/JSON of `nv config show` / startup.yaml. Both become a list of word
paths (`interface swp1 link mtu 9216`), so one reader serves both. Lines that are not about QoS or
ports are skipped without a word; a QoS line that cannot be read becomes a SYS002 issue.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import field
from typing import NamedTuple, cast

from ... import units
from ...lazyre import lazy
from ...limits import MAX_RANGE_PORTS
from ...model import ParseIssue, Source
from ...platforms import NVUE_SPEEDS, PLATFORMS
from ...records import record
from ...yamlread import compose, yaml  # (PyYAML as yamlread imports it: its reader's pattern compiled when used)
from ..base import (
    DEFAULT_HOST_NAMES,
    PROMPT_HOST,
    SHELL_PROMPT,
    IssueList,
    SessionHosts,
    check_expanded,
    heredoc_closes,
    host_name,
    port_slot,
    prompt_host,
    shell_words,
)
from ..clitext import Val
from . import NVUE_ROOT, PLATFORM
from .script import Expansion, Line, Tracker, expansions, substitute

# Front-panel ports: swp1, swp1s0 (breakout). eth0 (management), lo, bonds and SVIs carry no PFC.
SWP = lazy(r"^swp\d+(s\d+)?$")
_RANGE = lazy(r"^(\D*?(?:\d+s)?)(\d+)-(\d+)$", re.ASCII)  # (\d: 0-9 only, what int() reads alike)
_ONE = lazy(r"^(\D+?(?:\d+s)?)\d+$", re.ASCII)  # one port's stem: `swp` of swp10, `swp1s` of swp1s0
_BARE = lazy(r"^\d+(-\d+)?$", re.ASCII)  # `6` or `10-12` after a comma: no stem of its own
_PROMPT = lazy(rf"^({SHELL_PROMPT.pattern})\s*")  # `cumulus@leaf1:mgmt:~$ ` pasted in front of a command
_NVUE_ROOT = frozenset(NVUE_ROOT)
# qos subtrees the lossless checks do not use, knowingly skipped (Cumulus Linux QoS guide): shaping and the
# switch's own buffer carving (advanced buffer config; headroom comes from `pfc` cable length). `traffic-pool` is read.
_QOS_SKIPPED = ("egress-shaper", "advance-buffer-config", "buffer-pool", "ingress-pool", "egress-pool")
# The traffic pools NVUE configures (Cumulus Linux 5.x QoS guide, "Traffic Pools" table): `nv set qos traffic-pool
# <pool> switch-priority <list>` and `memory-percent <1-100>`.
TRAFFIC_POOLS = ("default-lossy", "default-lossless", "mc-lossy", "roce-lossy", "roce-lossless")
# Profiles a port binds with `nv set interface X qos KIND profile NAME` (NVUE reference, "nv set interface
# <interface-id> qos ... profile <profile-name>").
PORT_PROFILES = ("mapping", "pfc", "congestion-control", "egress-scheduler", "link-pause", "remark")
# Interface qos settings the lossless checks do not use (NVUE reference, QoS): shaping, lossy PG headroom (5.16),
# the shared headroom pool (5.17). (The small packet probability is a `qos pfc` / `qos link-pause` profile's, not a
# port's: _SMALL_PACKETS.)
_PORT_SKIPPED = ("egress-shaper", "headroom", "shared-headroom-pool")
# Cumulus Linux 5.17 and 5.18 release notes, "New NVUE Commands": `nv set qos link-pause <profile-id>
# small-packet-probability` (5.17) and `nv set qos pfc <profile-id> small-packet-probability` (5.18); the 5.18 QoS
# guide, "Lossless Headroom Based on Small Packet Probability": `nv set qos pfc <profile> small-packet-probability
# <percent>`, from which switchd sizes the lossless PG's headroom at run time (BUF003's): knowingly skipped.
_SMALL_PACKETS = "small-packet-probability"


@record
class EcnConf:
    ecn: Val[bool] | None = None
    kmin: Val[int | None] | None = None  # bytes (a Val of None: a line set it to what is not read)
    kmax: Val[int | None] | None = None
    probability: Val[int] | None = None
    relative: Val[bool] | None = None  # `mode relative` (dynamic ECN) or `mode absolute`
    kmin_pct: Val[int] | None = None  # `min-threshold-percent` (dynamic ECN: of a buffer allowance set at run time)
    kmax_pct: Val[int] | None = None


@record
class SchedConf:
    mode: Val[str] | None = None  # "strict" | "dwrr"
    weight: Val[int] | None = None  # bw-percent


@record
class PauseConf:
    """A `qos link-pause` profile (802.3x pause): what it sets, each direction None where it says nothing."""

    source: Source
    rx: Val[bool] | None = None
    tx: Val[bool] | None = None


@record
class RemarkConf:
    """A `qos remark` profile: the rewrite it enables on its ingress ports, the egress SP -> DSCP map of its egress
    ports (the switch reads the first on the port a packet arrives on, the second where it leaves)."""

    rewrite: Val[str] | None = None  # l2 | l3 | both
    dscp: dict[int, Val[int]] = field(default_factory=dict)  # switch priority -> egress DSCP


@record
class Breakout:
    """`link breakout`: the port split into ``ports`` ports of ``speed`` Gb/s each (0 ports: disabled)."""

    ports: int
    speed: float | None
    source: Source


@record
class PoolConf:
    """A `qos traffic-pool`: the switch priorities its lines list (None: it lists none, the pool keeps its default
    ones) and its share of the buffer memory."""

    source: Source
    sps: dict[int, Source] | None = None
    memory_pct: Val[int] | None = None


@record
class PfcBufferConf:
    """A `qos pfc` profile's buffer (Cumulus Linux QoS guide, "Priority Flow Control"): `port-buffer` the reserved
    buffer space, `xoff-threshold` the fill level at which the switch sends XOFF, `xon-threshold` where it sends XON
    (bytes); what it does not set, Cumulus sizes itself."""

    port_buffer: Val[int] | None = None
    xoff: Val[int] | None = None
    xon: Val[int] | None = None


@record
class L2Conf:
    """An interface's (switch port's or bond's) bridge membership and addressing (Cumulus Linux user guide,
    "VLAN-aware Bridge Mode"; NVUE reference, `nv set interface <interface-id> bridge domain <domain-id> vlan <vid>`,
    `untagged (1-4094|none|auto)`, `access (1-4094|auto)`, `ip address <ip-prefix-id>`)."""

    bridge: Val[str] | None = None  # the bridge domain it is a port of
    vlans: frozenset[int] | set[int] | None = None  # its own `vlan` list, overriding the bridge's ("VLAN Pruning")
    untagged: int | str | None = None  # its `untagged` VLAN, or "none" (drops untagged frames); None: the bridge's
    access: int | None = None  # `access V`: an access port of VLAN V ("Access Ports and Tagged Packets")
    routed: Source | None = None  # an `ip address` line, or a BGP neighbor named by the interface (unnumbered)
    unread: Source | None = None  # a bridge line not read: its VLANs are unknown
    tagged: bool = False  # a subinterface (`swp1.100`) sends the port's frames tagged


@record
class BridgeConf:
    """A `bridge domain`: the VLANs its ports carry unless a port says its own, and their untagged VLAN (Cumulus
    Linux user guide, "VLAN-aware Bridge Mode": the bridge's PVID defaults to 1, its VIDs are inherited)."""

    vlans: frozenset[int] = frozenset()
    untagged: int | str | None = None
    unread: Source | None = None


class Tombstones:
    """`nv unset` lines by the path they removed (words after `nv unset`; a port's own without `interface NAME`), so
    that the builder finds the last one at, above or below a path (build._restored). A later unset of a path
    replaces an earlier one."""

    __slots__ = ("at", "under")

    def __init__(self) -> None:
        self.at: dict[tuple[str, ...], Source] = {}  # path -> its last unset
        self.under: dict[tuple[str, ...], Source] = {}  # path -> the last unset at it or below it

    def file(self, words: tuple[str, ...], src: Source) -> None:
        self.at[words] = src
        for n in range(len(words) + 1):  # (filed in the order the unsets come: the later replaces)
            self.under[words[:n]] = src

    def near(self, words: tuple[str, ...]) -> list[Source]:
        """The last unsets at or below ``words``, and of each path above it."""
        found = [src for n in range(len(words)) if (src := self.at.get(words[:n])) is not None]
        if (below := self.under.get(words)) is not None:
            found.append(below)
        return found


@record
class PortConf:
    source: Source
    description: Val[str] | None = None
    mtu: Val[int] | None = None
    speed: Val[float] | None = None  # Gb/s
    admin_up: Val[bool] | None = None
    breakout: Breakout | None = None
    profiles: dict[str, Val[str]] = field(default_factory=dict)  # PORT_PROFILES kind -> profile name
    watchdog: Val[bool] | None = None
    qos: bool = False  # any `interface X qos ...` line
    bond: Val[str] | None = None  # the bond a `nv set interface BOND bond member PORT` line makes it a member of
    restored: Tombstones = field(default_factory=Tombstones)  # the port's paths `nv unset` put back


@record
class Conf:
    expanded: int = 0  # port names the `swp1-64` ranges of this input expanded to, against MAX_EXPANDED_PORTS
    hostname: Val[str] | None = None
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    roce: Val[str] | None = None  # "lossless" | "lossy" | "lossy-multi-tc" | "off": what the two below make it
    roce_mode: Val[str] | None = None  # the mode a `qos roce [mode M]` line sets (bare: lossless)
    roce_enable: Val[bool] | None = None  # a `qos roce enable|state` line
    roce_cable: Val[float] | None = None  # m
    trust: dict[str, Val[str]] = field(default_factory=dict)  # mapping profile -> l2|l3|port|both
    dscp: dict[str, dict[int, Val[int]]] = field(default_factory=dict)  # mapping profile -> DSCP -> switch priority
    pcp: dict[str, dict[int, Val[int]]] = field(default_factory=dict)
    port_sp: dict[str, Val[int]] = field(default_factory=dict)  # mapping profile -> port-default-sp
    pfc: dict[str, dict[int, Source]] = field(default_factory=dict)  # pfc profile -> PFC switch priorities
    pfc_source: dict[str, Source] = field(default_factory=dict)
    pfc_made: dict[str, Source] = field(default_factory=dict)  # pfc profile -> its first line read (made by it)
    cable: dict[str, Val[float]] = field(default_factory=dict)  # pfc profile -> cable length (m)
    pfc_buffer: dict[str, PfcBufferConf] = field(default_factory=dict)  # pfc profile -> its buffer settings
    ecn: dict[str, dict[int, EcnConf]] = field(default_factory=dict)  # profile -> traffic class -> ECN
    sched: dict[str, dict[int, SchedConf]] = field(default_factory=dict)
    sp_to_tc: dict[int, Val[int]] = field(default_factory=dict)  # egress-queue-mapping default-global
    pause: dict[str, PauseConf] = field(default_factory=dict)  # link-pause profile -> its settings
    remark: dict[str, RemarkConf] = field(default_factory=dict)  # remark profile -> its settings
    pools: dict[str, PoolConf] = field(default_factory=dict)  # traffic pool -> its settings
    pg_override: Source | None = None  # an advance-buffer-config line that moves switch priorities between lossy PGs
    wd_poll: Val[int] | None = None  # ms
    wd_robustness: Val[int] | None = None
    wd_unread: set[str] = field(default_factory=set)  # WD_UNREAD times a line makes unknown: "detection", "restoration"
    ports: dict[str, PortConf] = field(default_factory=dict)
    l2: dict[str, L2Conf] = field(default_factory=dict)  # interface (switch port or bond) -> its bridge and addressing
    bridges: dict[str, BridgeConf] = field(default_factory=dict)  # bridge domain -> its VLANs
    issues: list[ParseIssue] = field(default_factory=IssueList)
    # Tombstones: path (words after `nv unset`) -> the last `nv unset` line of it; a port's own are on its PortConf.
    # The builder cites one for a default it restores (build._restored).
    restored: Tombstones = field(default_factory=Tombstones)
    # build._restored's switch-wide answer for each set of paths it is asked about (the same for every port, each
    # traffic class's asked once): (the last unset at, above or below them, the RoCE-off line where it counts)
    restored_near: dict[tuple[tuple[str, ...], ...], tuple[Source | None, Source | None]] = field(default_factory=dict)

    @property
    def global_qos(self) -> bool:
        """Whether the switch-wide (default-global) QoS carries lossless settings: then every port has them. Trusting
        PCP is NVUE's default (`nv config show --all` prints `trust: l2` on a switch without QoS), not a setting."""
        trust = self.trust.get("default-global")
        return bool(self.roce and self.roce.value != "off") or bool(self.pfc.get("default-global")) or \
            (trust is not None and trust.value != "l2")


class Skip(ValueError):
    """A line this reader cannot use; the message says why."""


# A quoted value may span lines (`nv set system message pre-login '###...` over three lines, as `nv config show -o
# commands` prints a banner); its lines are joined as a shell joins them, up to this many.
MAX_QUOTED_LINES = 256


def _quoted(first: str, rest: list[str]) -> tuple[list[str], int] | None:
    """The words of a command whose line ``first`` opens a quote that one of the next lines ``rest`` closes, with the
    number of those lines it takes; None when none of them closes it."""
    block = [first]
    for taken, line in enumerate(rest, start=1):
        block.append(line)
        if "'" in line or '"' in line:  # a line without a quote cannot close one: no need to parse again
            try:
                return shell_words("\n".join(block), comments=True), taken
            except ValueError:
                continue
    return None


_NESTED = lazy(r"(?:^|[\n;&|])[ \t]*(?:sudo[ \t]+)?nv[ \t]+set[ \t]")


class Commands(NamedTuple):
    paths: list[tuple[list[str], Source]]
    issues: list[ParseIssue]
    unsets: list[tuple[list[str], Source]]  # each `nv unset` that dropped a path, in order: read()'s tombstones


def command_paths(text: str, path: str) -> Commands:
    """`nv set ...` lines -> (words after `nv set`, source), as the later `nv unset` lines leave them (Paths). Comments,
    blanks, `nv config apply` are skipped. A script's plain top-level `NAME=literal` assignments fill in the `$NAME` of
    later lines (script.Tracker says which are)."""
    out, issues = Paths(path), IssueList()
    tracker = Tracker()
    logical: list[tuple[int, str, list[str] | None, str, Line]] = []  # (line, text, words or None, why not, its shell)
    lines = text.split("\n")
    n = 0
    prompts: dict[int, tuple[str, str | None]] = {}  # line -> (the prompt pasted before its command, the host it names)
    while n < len(lines):
        line = lines[n].strip().lstrip("\ufeff")
        if (prompt := _PROMPT.match(line)) is not None:
            shown = prompt.group(1)
            prompts[n + 1], line = (shown, prompt_host(PROMPT_HOST.match(shown))), line[prompt.end():]
        n += 1
        if not line or line.startswith("#"):
            continue
        start = n
        try:
            words = shell_words(line, comments=True)  # `nv set ... 9216  # jumbo`: bash drops the comment
        except ValueError as exc:
            joined = _quoted(line, lines[n:n + MAX_QUOTED_LINES]) if "closing quotation" in str(exc) else None
            if joined is None:
                logical.append((start, line, None, str(exc), Line()))
                continue
            words, taken = joined
            line, n = "\n".join([line, *lines[n:n + taken]]), n + taken
        shell = tracker.line(line, words)
        logical.append((start, line, words, "", shell))
        for delimiter, tabs in shell.heredocs:
            n = _here_document(lines, n, (start, line, words[0] if words else ""), delimiter, tabs, logical)
    known: dict[str, str] = {}  # variable -> the literal the script's top level last gave it
    hosts = SessionHosts(path, PLATFORM)
    named: tuple[int, ...] | None = None  # the key of the `nv set system hostname` path that stands
    for start, line, got, why, shell in logical:
        src = Source(file=path, line=start)
        if got is None:
            issues.append(ParseIssue(code="SYS002", message=f"cannot read {line[:80]!r}: {why}", source=src))
            continue
        words = got
        if shell.anything:
            known.clear()
        if shell.plain is not None:
            if shell.plain[0] not in tracker.written:
                known[shell.plain[0]] = shell.plain[1]
            continue  # a variable the script sets: no `nv set` line, nothing to name
        # `sudo nv set ...` (as RoCE guides print it) runs the same command as root (a literal word: the words before
        # `nv set` are the same once the line's expansions are filled in)
        lead = 1 if words[:1] == ["sudo"] else 0
        words = words[lead:]
        if words[:2] in (["nv", "set"], ["nv", "unset"]) and len(words) > 2:
            found = expansions(line)
            if found:
                filled = substitute(line, found, {} if shell.in_function else known)
                if isinstance(filled, Expansion):  # `nv set interface $PORTS ...`, PORTS not known: a run-time value
                    why = f"`{filled.text}` is expanded by the shell when it runs, so what the command sets is not read"
                    issues.append(ParseIssue(code="SYS002", message=f"skipped {line[:80]!r}: {why}", source=src))
                    continue
                words = shell_words(filled, comments=True)[lead:]
            if start in prompts:
                hosts.prompt(prompts[start][1], start, prompts[start][0])
            if words[1] == "set":
                out.add(_full_path(words[2:]), src)
                if words[2:4] == ["system", "hostname"] and len(words) == 5:
                    # (a later `nv set` of a leaf replaces its value: the switch renamed, the earlier name gone)
                    hosts.renamed(words[4])
                    if named is not None:
                        out.drop(named)
                    named = (out.lines,)
            elif (unread := out.unset(words[2:], src)) is not None:
                issues.append(ParseIssue(code="SYS002", message=f"skipped {line[:80]!r}: {unread}", source=src))
            elif words[2:] in (["system", "hostname"], ["system"]):  # the switch takes its default name back,
                hosts.unnamed()  # which it has from then on (a later `nv set system hostname` replaces it as a name)
                if named is not None:
                    out.drop(named)
                out.add(["system", "hostname", DEFAULT_HOST_NAMES[PLATFORM]], src)
                named = (out.lines,)
        elif words[:2] == ["nv", "config"] or words[:2] == ["nv", "show"]:
            continue
        elif len(words) > 1 and any(_NESTED.search(w) for w in words[1:]):
            # `ssh sn5600 "for tc in 0 3; do nv set ... \\$tc ...; done"`: commands another program runs, in its shell
            why = f"its quoted argument holds `nv set` commands that `{words[0]}` runs, not this file: not read"
            issues.append(ParseIssue(code="SYS002", message=f"skipped {line[:80]!r}: {why}", source=src))
        else:
            issues.append(ParseIssue(code="SYS002", message=f"skipped {line[:80]!r}: not an `nv set` command",
                                     source=src))
    return Commands(out.paths(), issues, out.unsets)


def _full_path(words: list[str]) -> list[str]:
    """A command's path with the setting its bare form makes written out, so that an `nv unset` of that setting
    removes it: `interface X qos pfc-watchdog` enables the watchdog (Cumulus Linux 5.x QoS guide, "PFC Watchdog"), so
    `nv unset interface X qos pfc-watchdog state` turns it off. (A bare `qos roce` stays bare: unsetting its `mode`
    leaves RoCE on in its default mode, lossless.)"""
    if len(words) == 4 and words[0] == "interface" and words[2:] == ["qos", "pfc-watchdog"]:
        return [*words, "state", "enable"]
    return words


def _members(word: str, ports: bool) -> frozenset[str] | None:
    """The names a list word stands for (`swp1-4,6`: ports; `3,5` or `0-2`: numbers), None when it is no list."""
    try:
        return frozenset(expand(word)) if ports else frozenset(str(n) for n in units.int_list(word))
    except ValueError:
        return None


def _ordered(names: frozenset[str]) -> list[str]:
    return sorted(names, key=lambda n: (len(n), n))  # swp2 before swp10


def _port_list(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is a list of interface names (`interface <ids> ...`, `interface <bond> bond member <ids>`)
    rather than of numbers."""
    return words[0] == "interface" and (i == 1 or (i == 4 and words[2:4] == ["bond", "member"]))


# Cumulus Linux 5.x RoCE guide: "To disable single shared buffer pool mode and use the default mode (lossless), run the
# `nv unset qos roce mode lossless-single-ipool` command": unsetting the mode leaves the `qos roce` object, RoCE on in
# its default mode. (Not so for `qos roce enable`, whose default the NVUE reference gives as `off`.)
_ROCE_KEPT = ("mode",)


class _Node:
    """A word of the stored paths; ``names``: the names the word lists (filled when an unset first compares lists
    there), ``by_name``: the child words listing a name (None until then)."""

    __slots__ = ("parent", "word", "children", "keys", "names", "by_name")

    def __init__(self, parent: _Node | None, word: str) -> None:
        self.parent, self.word = parent, word
        self.children: dict[str, _Node] = {}
        self.keys: set[tuple[int, ...]] = set()  # the paths that end here
        self.names: frozenset[str] | None = None
        self.by_name: dict[str, set[str]] | None = None


class Paths:
    """The `nv set` paths of a command list as the later `nv unset` lines leave them. NVUE reference, Set and Unset
    Commands: "The `nv unset` commands remove the configuration you set with the equivalent `nv set` commands", so each
    earlier path at or below the unset one is dropped and what it set goes back to NVUE's default (`nv unset qos roce`,
    a profile's line, a port's watchdog `state`, whose default is `disable`). A path whose port or number lists the
    unset names in part keeps the rest (`interface swp1-4 ...` less swp3: `swp1,swp2,swp4`); a port a dropped line
    named stays a port of the switch, and the `qos roce` object a dropped `qos roce mode ...` line made stays (RoCE on).

    The paths are a tree of their words, so an unset visits only the paths under it; a list word's names are expanded
    once, when an unset first compares lists there, and counted against MAX_EXPANDED_PORTS."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.root = _Node(None, "")
        self.found: dict[tuple[int, ...], tuple[list[str], Source, _Node]] = {}
        self.expanded = 0
        self.unsets: list[tuple[list[str], Source]] = []  # the unsets that dropped a path (Commands.unsets)
        self.lines = 0  # `nv set` lines stored: a path's key is its line's number among them (then its part's)

    def add(self, words: list[str], src: Source, key: tuple[int, ...] | None = None) -> None:
        node = self.root
        for i, word in enumerate(words):
            child = node.children.get(word)
            if child is None:
                child = node.children[word] = _Node(node, word)
                if node.by_name is not None:
                    self._index(node, child, _port_list(words, i), src)
            node = child
        if key is None:
            self.lines += 1
            key = (self.lines,)
        node.keys.add(key)
        self.found[key] = (words, src, node)

    def drop(self, key: tuple[int, ...]) -> None:
        """Drops the path stored under ``key`` (a leaf a later `nv set` gave another value), if still there."""
        if (found := self.found.pop(key, None)) is not None:
            found[2].keys.discard(key)

    def paths(self) -> list[tuple[list[str], Source]]:
        return [(words, src) for _, (words, src, _) in sorted(self.found.items())]

    def _index(self, node: _Node, child: _Node, ports: bool, src: Source) -> None:
        """Files ``child`` of ``node`` under the names its word lists (none: no list)."""
        child.names = _members(child.word, ports) or frozenset()
        self._count(len(child.names), src)
        assert node.by_name is not None
        for name in child.names:
            node.by_name.setdefault(name, set()).add(child.word)

    def _count(self, names: int, src: Source) -> None:
        self.expanded += names
        check_expanded(self.expanded, src.file, src.line)

    def unset(self, unset: list[str], src: Source) -> str | None:
        """Applies `nv unset <unset>`; returns why it cannot be applied (its port list unreadable), else None."""
        found: list[tuple[_Node, list[tuple[int, list[str], list[str]]]]] = [(self.root, [])]
        for i, drop in enumerate(unset):
            ports = _port_list(unset, i)
            try:
                dropped = frozenset(expand(drop)) if ports else _members(drop, False)
            except ValueError as exc:
                return f"its interface list cannot be read ({exc}), so what it removes is unknown"
            if dropped is not None:
                self._count(len(dropped), src)
            step: list[tuple[_Node, list[tuple[int, list[str], list[str]]]]] = []
            for node, lists in found:
                if drop in node.children:
                    step.append((node.children[drop], lists))
                if dropped is None:
                    continue
                if node.by_name is None:
                    node.by_name = {}
                    for child in node.children.values():
                        self._index(node, child, ports, src)
                near = {word for name in dropped for word in node.by_name.get(name, ())} - {drop}
                for word in sorted(near):
                    child = node.children[word]
                    assert child.names is not None
                    both, left = _ordered(child.names & dropped), _ordered(child.names - dropped)
                    step.append((child, [*lists, (i, both, left)]))
            found = step
        dropped_any = False
        for node, lists in found:
            for key in sorted(self._under(node)):
                self._drop(key, unset, lists)
                dropped_any = True
        if dropped_any:  # (an unset of what no line set restores nothing: no tombstone for findings to cite)
            self.unsets.append((unset, src))
        return None

    def _under(self, node: _Node) -> list[tuple[int, ...]]:
        keys: list[tuple[int, ...]] = []
        todo = [node]
        while todo:
            at = todo.pop()
            keys.extend(at.keys)
            todo.extend(at.children.values())
        return keys

    def _drop(self, key: tuple[int, ...], unset: list[str], lists: list[tuple[int, list[str], list[str]]]) -> None:
        words, at, node = self.found.pop(key)
        node.keys.discard(key)
        while node.parent is not None and not node.keys and not node.children:  # (a word no path goes through)
            parent = node.parent
            del parent.children[node.word]
            if parent.by_name is not None:
                for name in node.names or ():
                    parent.by_name[name].discard(node.word)
            node = parent
        kept: list[list[str]] = []
        # what is left of the lists' product once the unset's is taken out: at each list in turn, the names the unset
        # leaves there, with the unset's names at the lists before it and the line's own after it
        for n, (i, _, left) in enumerate(lists):
            if left:
                rest = list(words)
                for k, gone, _ in lists[:n]:
                    rest[k] = ",".join(gone)
                rest[i] = ",".join(left)
                kept.append(rest)
        if words[0] == "interface" and len(words) > 2:
            ports = next((",".join(gone) for k, gone, _ in lists if k == 1), words[1])
            kept.append(["interface", ports])  # the ports exist; only their setting is gone
        elif words[:2] == ["qos", "roce"] and len(unset) > 2 and words[2] in _ROCE_KEPT:
            kept.append(["qos", "roce"])  # RoCE stays on, in its default mode
        for n, rest in enumerate(kept):
            self.add(rest, at, (*key, n))


def _here_document(lines: list[str], n: int, opener: tuple[int, str, str], delimiter: str, tabs: bool,
                   logical: list[tuple[int, str, list[str] | None, str, Line]]) -> int:
    """bash(1), Here Documents: ``lines`` from ``n`` up to the one that is ``delimiter`` (after its leading tabs with
    `<<-`) are the input of the command that opens it, not commands of this file: an `nv set` among them is named,
    not read. Returns the index of the line after its end line (none: bash takes the rest of the file)."""
    end = n
    while end < len(lines) and not heredoc_closes(lines[end], delimiter, tabs):
        end += 1
    at, text, command = opener
    if end == len(lines):
        why = f"its here-document `{delimiter}` has no end line: bash takes the rest of the file as its input"
        logical.append((at, text, None, why, Line()))
    why = f"a line of the here-document that line {at} opens, input to `{command}`, not a command of this file"
    logical.extend((i + 1, lines[i].strip(), None, why, Line()) for i in range(n, end) if _NESTED.search(lines[i]))
    return end + 1


def tree_paths(text: str, path: str) -> list[tuple[list[str], Source]]:
    """YAML/JSON (`nv config show`, startup.yaml) -> the same word paths. Raises InputError (file:line) for
    YAML that cannot be read, or that breaks docpos's limits (nesting, alias expansion)."""
    root = compose(text, path)
    out: list[tuple[list[str], Source]] = []
    for tree in _set_trees(root):
        _flatten(tree, [], out, path)
    return out


def _set_trees(root: yaml.Node | None) -> list[yaml.Node]:
    """startup.yaml is a list of {header: ..., set: {...}}; `nv config show -o json` and the NVUE REST API's root
    (`GET /nvue_v1/`, which the nvidia.nvue Ansible `api` module prints) are the tree itself, the latter with its
    `header` beside the objects."""
    if isinstance(root, yaml.SequenceNode):
        return [t for item in root.value for t in _set_trees(item) if isinstance(item, yaml.MappingNode)]
    if isinstance(root, yaml.MappingNode):
        keys = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}
        if "set" in keys:
            return [keys["set"]]
        if "message" in keys and not _NVUE_ROOT & set(keys):  # the nvidia.nvue `api` module's result, saved whole
            return _set_trees(keys["message"])
        return [root] if _NVUE_ROOT & set(keys) else []
    return []


def _flatten(node: yaml.Node, words: list[str], out: list, path: str) -> None:
    src = Source(file=path, line=node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        if not node.value and words:
            out.append((words, src))  # `pfc-watchdog: {}`: the bare command `nv set ... qos pfc-watchdog`
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                _flatten(value, [*words, key.value], out, path)
    elif isinstance(node, yaml.ScalarNode) and words:
        out.append(([*words, node.value] if node.value not in ("", "null", "~") else words, src))
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _flatten(item, words, out, path)


def expand(names: str) -> list[str]:
    """`swp1-4,swp10` / `swp1s0-3` / `swp1-4,6,10-12` -> the port names. Raises ValueError when garbled.

    A bare number or range after a comma names ports of the name before it: Cumulus Linux user guide, "Interface
    Configuration and Management", Port Ranges: `nv set interface swp1-4,6,10-12` is swp1-4, swp6 and swp10-12
    (generated lists print `swp1,4-11,28-53`). It takes that name's stem (`swp`, or `swp1s` after a split port)."""
    out: list[str] = []
    stem = ""
    for part in names.split(","):
        if stem and _BARE.match(part):
            part = stem + part
        m = _RANGE.match(part)
        if m:
            lo, hi = units.small_int(m.group(2)), units.small_int(m.group(3))
            if hi < lo or hi - lo >= MAX_RANGE_PORTS:
                raise ValueError(f"bad range {part!r}")
            out.extend(f"{m.group(1)}{i}" for i in range(lo, hi + 1))
            stem = m.group(1)
        elif part:
            out.append(part)
            one = _ONE.match(part)
            stem = one.group(1) if one else ""
        else:
            raise ValueError(f"empty name in {names!r}")
    return out


def read(paths: list[tuple[list[str], Source]], issues: list[ParseIssue],
         unsets: list[tuple[list[str], Source]] | None = None) -> Conf:
    """The settings of ``paths`` (as the unsets left them), with each of ``unsets`` filed as a tombstone."""
    conf = Conf(issues=issues)
    for words, src in paths:
        try:
            _line(conf, words, src)
        except Skip as exc:
            conf.issues.append(ParseIssue(code="SYS002", message=f"skipped `nv set {' '.join(words)}`: {exc}",
                                          source=src))
        except units.UnknownUnit as exc:
            conf.issues.append(ParseIssue(code="SYS003", message=str(exc), source=src))
    _roce_state(conf)
    for words, src in unsets or ():
        _tombstone(conf, words, src)
    return conf


def _tombstone(conf: Conf, words: list[str], src: Source) -> None:
    """Files `nv unset <words>` (NVUE reference: what the path held is back at its default) where the builder looks
    for the line that restored a default: on each port it names that the configuration has (a port the unset alone
    names is no port of it; a bare `nv unset interface`: every port), else switch-wide. A congestion-control traffic
    class list is filed per traffic class (`traffic-class 3,4 ecn`: under 3 and under 4), so that a queue's default
    cites only an unset of its own."""
    if words == ["interface"]:
        for each in conf.ports.values():
            each.restored.file((), src)
        return
    if words[0] != "interface" or len(words) < 2:
        if words[:2] == ["qos", "congestion-control"] and len(words) > 4 and words[3] == "traffic-class":
            try:
                tcs = units.int_list(words[4])
            except ValueError:
                tcs = []
            for tc in tcs:
                conf.restored.file((*words[:4], str(tc), *words[5:]), src)
            if tcs:
                return
        conf.restored.file(tuple(words), src)
        return
    try:
        names = expand(words[1])  # (read before, by Paths.unset: its names are counted there)
    except ValueError:
        return
    for name in names:
        port = conf.ports.get(name)
        if port is not None:
            port.restored.file(tuple(words[2:]), src)


def _roce_state(conf: Conf) -> None:
    """RoCE as the switch runs it. NVUE reference, QoS: `nv set qos roce enable` "Turns QoS RoCE on or off on the
    switch" and `nv set qos roce mode` "Configures the RoCE mode" (lossy or lossless, default lossless): two settings of
    the `qos roce` object, so `enable off` keeps RoCE off whatever mode a line before or after it sets, and `enable on`
    runs the mode set (else lossless)."""
    enable = conf.roce_enable
    if enable is not None and not enable.value:
        conf.roce = Val("off", enable.source)
    elif conf.roce_mode is not None:
        conf.roce = conf.roce_mode
    elif enable is not None:
        conf.roce = Val("lossless", enable.source)


def _ints(text: str, hi: int, lo: int = 0) -> list[int]:
    try:
        out = units.int_list(text)
    except ValueError:
        raise Skip(f"{text!r} is not a number list") from None
    if not out or out[0] < lo or out[-1] > hi:
        raise Skip(f"{text!r} is outside {lo}-{hi}")
    return out


def _int(text: str, hi: int, lo: int = 0) -> int:
    try:
        return units.whole(text, lo, hi)
    except ValueError:
        raise Skip(f"{text[:40]!r} is not a number from {lo} to {hi}") from None


# NVUE command reference: `qos pfc <profile-id> cable-length`, `qos link-pause <profile-id> cable-length` and `qos roce
# cable-length` take 1-100000 (metres): one home, the platform's render limits, which render writes within.
CABLE_M = cast(tuple[int, int], PLATFORMS["nvidia_cumulus"].limits.cable_m)


def _length(text: str) -> float:
    """A cable length in metres within CABLE_M; an unknown unit stays SYS003, anything else that is no length, or one
    NVUE refuses, a SYS002."""
    try:
        metres = units.length_m(text)
    except units.UnknownUnit:
        raise
    except ValueError:
        raise Skip(f"{text[:40]!r} is not a cable length") from None
    if not CABLE_M[0] <= metres <= CABLE_M[1]:
        raise Skip(f"cable length {text[:40]!r} is outside {CABLE_M[0]}-{CABLE_M[1]} m (NVUE command reference)")
    return metres


def _byte_count(text: str, what: str) -> int:
    """A buffer size or threshold as the NVUE command reference writes one: a bare number of bytes (`qos pfc
    <profile-id> port-buffer 20000`, `xoff-threshold 1000`, `congestion-control ... min-threshold 40000`; no unit is
    documented for them). A value with a unit (`150KB`, `2 MB`, as guides write it) raises Skip: whether NVUE takes
    it, and as 1000 or 1024 bytes (its `nv show` prints 150000 B as "146.48 KB"), is not documented, so the ``what``
    is unknown; a unit no one uses for bytes (`2 furlongs`) raises UnknownUnit (SYS003)."""
    if _THRESHOLD.match(text):
        return int(text)
    try:
        units.to_bytes(text, "bytes")
    except units.UnknownUnit:
        raise
    except ValueError:
        pass  # (not a quantity at all: the SYS002 below)
    raise Skip(f"{text[:40]!r} is not a byte count as the NVUE command reference writes one (a bare number of "
               f"bytes, `{what.split()[-1]} 40000`): the {what} is unknown")


def _switch(text: str) -> bool:
    if text in ("enable", "enabled", "on", "true"):
        return True
    if text in ("disable", "disabled", "off", "false"):
        return False
    raise Skip(f"{text!r} is neither enable nor disable")


def _line(conf: Conf, w: list[str], src: Source) -> None:
    if w[:2] == ["system", "hostname"] and len(w) == 3:
        host_name(conf.host_names, w[2], src)  # (two startup.yaml items in one file; a script's last name stands)
        conf.hostname = Val(w[2], src)
    elif w[0] == "interface" and len(w) >= 2:
        _interface(conf, w, src)
    elif w[0] == "qos" and len(w) >= 2:
        _qos(conf, w[1:], src)
    elif w[:2] == ["bridge", "domain"] and len(w) >= 5 and w[3] in ("vlan", "untagged"):
        _bridge(conf.bridges.setdefault(w[2], BridgeConf()), w[3:], src)
    elif w[0] == "vrf" and w[2:5] == ["router", "bgp", "neighbor"] and len(w) >= 6 and not _is_address(w[5]):
        # Cumulus Linux user guide, "Optional BGP Configuration": a neighbor named by its interface (`neighbor swp51
        # peer-group SPINE`, vtysh's `neighbor swp51 interface`) is an unnumbered peering over that interface (its
        # IPv6 link-local address: "Configuring BGP Unnumbered"): the port routes as with an `ip address` (_layer2),
        # and a subinterface's parent is tagged.
        parent, dot, _ = w[5].partition(".")
        l2 = conf.l2.setdefault(parent, L2Conf())
        if dot:
            l2.tagged = True
        else:
            l2.routed = l2.routed or src


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _interface(conf: Conf, w: list[str], src: Source) -> None:
    try:
        named = expand(w[1])
        names, bonds = [n for n in named if SWP.match(n)], [n for n in named if not SWP.match(n)]
        if w[2:4] == ["bond", "member"] and len(w) == 5:
            # NVUE reference, `nv set interface <interface-id> bond member <member-id>`: a bond's members are switch
            # ports (a list or range, `swp2-3`), there even when no other line names them; the bond's own settings
            # are not read.
            names, w = [n for n in expand(w[4]) if SWP.match(n)], w[:2]
        else:
            bonds = []
    except ValueError as exc:
        raise Skip(str(exc)) from None
    conf.expanded += len(names)
    check_expanded(conf.expanded, src.file, src.line)  # bounded time: each range line may name 1,024 ports
    rest = w[2:]
    if rest[:2] in (["bridge", "domain"], ["ip", "address"]) or any("." in n for n in named):
        _layer2(conf, w[1], named, rest, src)  # (before the ports: a line it cannot read still names them)
    others = [n for n in named if not SWP.match(n)]  # (a list's bonds, `swp1,bond1`)
    if rest[:1] == ["qos"] and others:
        # NVUE reference, `nv set interface <interface-id>`: the id is a comma list of ports and bonds, each set; a
        # bond's QoS is read for none of them (below), so what is dropped is named, the ports still set.
        why = _not_a_port(conf, rest, others)
        if not names:
            raise Skip(why)
        conf.issues.append(ParseIssue(code="SYS002", message=f"`nv set {' '.join(w)}` is read for "
                                      f"{','.join(names)} only: {why}", source=src))
    # every port the line names exists, even when its setting cannot be read (a Skip leaves the rest unset)
    for port in [port_slot(conf.ports, name, lambda: PortConf(source=src), src) for name in names]:
        if len(bonds) == 1:
            # Cumulus Linux user guide, "Bonding - Link Aggregation": an interface cannot belong to multiple bonds
            # (a later member line moves it, as `nv set` replaces the value).
            port.bond = Val(bonds[0], src)
        if rest[:1] == ["description"] and len(rest) >= 2:
            port.description = Val(" ".join(rest[1:]), src)
        elif rest[:2] == ["link", "mtu"] and len(rest) == 3:
            # NVUE Command Reference, `nv set interface <interface-id> link mtu`: 552-9216 bytes.
            port.mtu = Val(_int(rest[2], 9216, 552), src)
        elif rest[:2] == ["link", "speed"] and len(rest) == 3:
            spelled = next((word for word in ("auto", *NVUE_SPEEDS) if word.lower() == rest[2].lower()), None)
            if spelled is not None and spelled != rest[2]:
                # (the `nv list-commands` list writes `auto` and `100G`; whether NVUE takes `AUTO` or `100g` is in no
                # document read: the port may run at that speed or at its earlier one)
                port.speed = None
                raise Skip(f"{rest[2]!r} is not NVUE's spelling ({spelled}): whether NVUE takes it in another "
                           "case is in no NVIDIA document losslessd read, so the port's speed is unknown")
            if rest[2] == "auto":
                # Cumulus Linux guide, "Switch Port Attributes": by default the Spectrum firmware picks the link speed
                # until the link comes up; `auto` puts that back, so no speed of the config's (an earlier line's gone)
                port.speed = None
            elif rest[2] not in NVUE_SPEEDS:
                raise Skip(f"{rest[2]!r} is no NVUE link speed: NVUE refuses the line and the port keeps its "
                           f"speed (it takes auto, {', '.join(NVUE_SPEEDS)})")
            else:
                port.speed = Val(float(NVUE_SPEEDS[rest[2]]), src)
        elif rest[:2] == ["link", "state"] and len(rest) == 3 and rest[2] in ("up", "down"):
            port.admin_up = Val(rest[2] == "up", src)
        elif rest[:2] == ["link", "breakout"] and len(rest) >= 3:
            port.breakout = _breakout(rest[2:], src)
        elif rest[:2] in (["link", "mtu"], ["link", "speed"]):
            raise Skip(f"expected one value after `link {rest[1]}`")
        elif rest[:1] == ["qos"]:
            port.qos = True
            _port_qos(port, rest[1:], src)


def _layer2(conf: Conf, ids: str, named: list[str], rest: list[str], src: Source) -> None:
    """An interface's bridge membership, VLANs or address (L2Conf), for switch ports and bonds alike: a bond's member
    ports carry the bond's VLANs (build._vlans)."""
    for name in named:
        parent, dot, _ = name.partition(".")
        if dot:
            # Cumulus Linux user guide, "Interface Configuration and Management", subinterfaces (`swp1.100`): the
            # parent port sends that VLAN's frames tagged, so it is no untagged routed port.
            conf.l2.setdefault(parent, L2Conf()).tagged = True
    if rest[:2] == ["ip", "address"] and len(rest) >= 3:
        for name in named:
            conf.l2.setdefault(name, L2Conf()).routed = src
    if rest[:2] != ["bridge", "domain"] or len(rest) < 3:
        return
    what, vlans, vid = rest[3:], None, None
    try:
        if what[:1] == ["vlan"] and len(what) >= 2:
            vlans = frozenset(_vlan_list(what[1]))  # (one set for every port the line names)
        elif what[:1] in (["untagged"], ["access"]) and len(what) == 2 and what[1] not in ("auto", "none"):
            vid = _int(what[1], 4094, 1)
    except Skip as exc:
        # (the ports are still the bridge's: their VLANs are unknown, not the bridge's)
        conf.issues.append(ParseIssue(code="SYS002", message=f"skipped `nv set interface {ids} {' '.join(rest)}`"
                                      f": {exc}", source=src))
        what = ["unread"]
    for name in named:
        l2 = conf.l2.setdefault(name, L2Conf())
        l2.bridge = Val(rest[2], src)
        if what == ["unread"]:
            l2.unread = src
        elif vlans is not None:
            if l2.vlans is None:
                l2.vlans = vlans  # (the line's one set, shared by its ports: build._vlans shares their Port.vlans)
            else:
                # (the YAML tree lists each VLAN as a key, one path each; `nv set` adds to the list): in place, to a
                # set of the port's own, as a copy per line made 4,094 keys 8.4 million element copies per port
                own = l2.vlans if isinstance(l2.vlans, set) else set(l2.vlans)
                own |= vlans
                l2.vlans = own
        elif what[:1] == ["untagged"] and len(what) == 2:
            l2.untagged = "none" if what[1] == "none" else vid  # (auto: the bridge's)
        elif what[:1] == ["access"] and len(what) == 2:
            l2.access = vid  # (auto: none of its own)


def _bridge(bridge: BridgeConf, w: list[str], src: Source) -> None:
    """`bridge domain <d> vlan <vid> ...` or `untagged (1-4094|none)`."""
    try:
        if w[0] == "vlan":
            bridge.vlans |= frozenset(_vlan_list(w[1]))
        elif len(w) == 2:
            bridge.untagged = "none" if w[1] == "none" else _int(w[1], 4094, 1)
    except Skip:
        bridge.unread = src
        raise


def _vlan_list(text: str) -> list[int]:
    """`10`, `10,20`, `10-20` (NVUE reference, `<vid>`: 1-4094)."""
    return _ints(text, 4094, 1)


def _not_a_port(conf: Conf, rest: list[str], dropped: list[str]) -> str:
    """Why a `qos` setting on ``dropped`` (bonds, not switch ports) gives no port that setting."""
    what = ",".join(dropped)
    if rest[:2] == ["qos", "pfc-watchdog"]:
        # NVUE reference, `nv set interface <interface-id> qos pfc-watchdog state` (CumulusNetworks/docs aabb4537):
        # the watchdog is enabled on a physical interface (swp) only, never on a bond, but can be on a bond's members.
        members = [n for n, port in conf.ports.items() if port.bond is not None and port.bond.value in dropped]
        return (f"PFC watchdog set on {what}, which is no switch port: NVUE enables the watchdog only on a swp "
                f"port, never on a bond (NVUE reference, `qos pfc-watchdog state`), so this line gives {what} no "
                f"watchdog; set it on the bond's member ports instead (`nv set interface "
                f"{','.join(members) or '<swp members>'} qos pfc-watchdog state enable`)")
    # The NVUE reference's `nv set interface <interface-id> qos ...` examples set switch ports; whether a bond's
    # QoS reaches its members is not written there, so the line is named rather than dropped or passed on.
    return f"QoS set on {what}, which is no switch port: whether it applies to a bond's members is unknown"


# `link breakout` modes (NVUE reference, `nv set interface <interface-id> link breakout`): 1x, 2x, 4x, 8x from
# Cumulus Linux 5.4 (optionally `lanes-per-port N`); 2x50G, 4x25G, ... (ports x speed) before; disabled (the
# port beside a 4x/8x breakout on some switches); loopback.
_BREAKOUT = lazy(r"^([1-8])x(\d+g)?$", re.IGNORECASE)


def _breakout(w: list[str], src: Source) -> Breakout | None:
    """`link breakout MODE [lanes-per-port N]` -> the ports it makes (None: loopback, the port stays one)."""
    mode = w[0]
    if mode == "disabled" and len(w) == 1:
        return Breakout(0, None, src)
    if mode == "loopback" and len(w) == 1:
        return None
    m = _BREAKOUT.match(mode)
    if m is None or (w[1:] and (len(w) != 3 or w[1] != "lanes-per-port")):
        raise Skip(f"{mode!r} is not a breakout mode losslessd knows")
    try:
        speed = units.speed_gbps(m.group(2)) if m.group(2) else None
    except ValueError:
        raise Skip(f"{mode!r} is not a breakout mode losslessd knows") from None
    return Breakout(int(m.group(1)), speed, src)


def _port_qos(port: PortConf, w: list[str], src: Source) -> None:
    if len(w) == 3 and w[0] in PORT_PROFILES and w[1] == "profile":
        port.profiles[w[0]] = Val(w[2], src)
    elif w == ["pfc-watchdog"]:
        # Cumulus Linux 5.x QoS guide, "PFC Watchdog": `nv set interface swp1 qos pfc-watchdog` enables it.
        port.watchdog = Val(True, src)
    elif w[:2] == ["pfc-watchdog", "state"] and len(w) == 3:
        port.watchdog = Val(_switch(w[2]), src)
    elif w and w[0] in (*PORT_PROFILES, "pfc-watchdog") and w[1:]:
        raise Skip("not a QoS setting losslessd knows")
    elif w and w[0] not in (*PORT_PROFILES, "pfc-watchdog", *_PORT_SKIPPED):
        raise Skip(f"`qos {w[0]}` is not an interface QoS setting losslessd knows")


# PFC watchdog settings the Cumulus Linux 5.19 release notes list ("New NVUE Commands": `nv set qos pfc-watchdog
# recovery-interval`, `rx-pause-duration multiplier|state`, `rx-pause-threshold`, `transmit-queue-threshold
# percent|state`, `tx-frames-threshold state|value`) with no page read that says what they do: each is named, and the
# time it plausibly changes (a storm's detection, or the restoration after it) is left unknown, not guessed.
WD_UNREAD = {"recovery-interval": "restoration", "rx-pause-duration": "detection", "rx-pause-threshold": "detection",
             "transmit-queue-threshold": "detection", "tx-frames-threshold": "detection"}


# qos objects made of named profiles: the object or a profile alone (`pfc: {}`, `remark: {default-global: {}}`, as
# the full tree of `nv config show --all` or the REST API prints defaults) sets nothing.
_QOS_PROFILES = frozenset({*PORT_PROFILES, "egress-queue-mapping", "pfc-watchdog", "traffic-pool", *_QOS_SKIPPED})


def _qos(conf: Conf, w: list[str], src: Source) -> None:
    kind, rest = w[0], w[1:]
    if kind in _QOS_PROFILES and len(rest) <= 1:
        return
    if kind == "roce":
        _roce(conf, rest, src)
    elif kind == "pfc-watchdog" and len(rest) == 2 and rest[0] in ("polling-interval", "robustness"):
        # Cumulus Linux 5.6+ NVUE reference: polling-interval 100-5000 (ms), robustness 1-1000 (intervals).
        value = Val(_int(rest[1], 100000), src)
        if rest[0] == "polling-interval":
            conf.wd_poll = value
        else:
            conf.wd_robustness = value
    elif kind == "pfc-watchdog" and rest[0] in WD_UNREAD:
        if rest[1:] not in (["state", "disabled"], ["state", "disable"], ["state", "off"]):  # (a check turned off)
            conf.wd_unread.add(WD_UNREAD[rest[0]])
        raise Skip(f"`qos pfc-watchdog {rest[0]}` (new in Cumulus Linux 5.19) is not described in the NVUE "
                   f"documentation read: the watchdog's {WD_UNREAD[rest[0]]} time is unknown")
    elif kind == "mapping" and len(rest) >= 3:
        _mapping(conf, rest[0], rest[1:], src)
    elif kind == "pfc" and len(rest) >= 2:
        _pfc(conf, rest[0], rest[1:], src)
        conf.pfc_made.setdefault(rest[0], src)  # (any line of its own makes the profile: build._pfc)
    elif kind == "congestion-control" and len(rest) >= 5 and rest[1] == "traffic-class":
        _congestion(conf, rest[0], _ints(rest[2], 7), rest[3:], src)
    elif kind == "egress-scheduler" and len(rest) >= 5 and rest[1] == "traffic-class":
        for tc in _ints(rest[2], 7):
            sched = conf.sched.setdefault(rest[0], {}).setdefault(tc, SchedConf())
            if rest[3] == "mode" and rest[4] in ("strict", "dwrr") and len(rest) == 5:
                sched.mode = Val(rest[4], src)
            elif rest[3] == "bw-percent" and len(rest) == 5:
                sched.weight = Val(_int(rest[4], 100), src)
            else:
                raise Skip("not an egress-scheduler setting losslessd knows")
    elif kind == "egress-queue-mapping" and len(rest) == 5 and rest[1] == "switch-priority" and rest[3] == "traffic-class":
        tc = _int(rest[4], 7)
        for sp in _ints(rest[2], 7):
            conf.sp_to_tc[sp] = Val(tc, src)
    elif kind == "link-pause" and len(rest) == 3:
        _link_pause(conf, rest[0], rest[1:], src)
    elif kind == "remark" and len(rest) >= 3:
        _remark(conf, rest[0], rest[1:], src)
    elif kind == "traffic-pool":
        _traffic_pool(conf, rest[0], rest[1:], src)
    elif kind == "advance-buffer-config" and "ingress-lossy-buffer" in rest and "switch-priority" in rest:
        # QoS guide, "Advanced Buffer Tuning": `ingress-lossy-buffer priority-group <pg> switch-priority <sp>` overrides
        # the traffic pools' switch priorities; which PG a priority then uses is not read (cannot verify).
        conf.pg_override = conf.pg_override or src
    elif kind in _QOS_SKIPPED:
        pass
    else:
        raise Skip("not a QoS setting losslessd knows")


def _roce(conf: Conf, w: list[str], src: Source) -> None:
    # Cumulus Linux RoCE guide: `nv set qos roce` and `nv set qos roce mode lossless` are equivalent.
    if not w:
        conf.roce_mode = conf.roce_mode or Val("lossless", src)  # (the object, in its default mode)
    elif w[0] == "mode" and len(w) == 2 and w[1] in ("lossless", "lossy", "lossy-multi-tc"):
        # Cumulus Linux 5.14+ RoCE guide, "Lossy Multi TC Profile": `mode lossy-multi-tc`, lossy RoCE over several
        # traffic classes with packet trimming (no PFC, no lossless pool: build.LOSSY_MODES).
        conf.roce_mode = Val(w[1], src)
    elif w == ["mode", "lossless-single-ipool"]:
        # Cumulus Linux 5.14 RoCE guide, "Single Shared Buffer Pool": lossless, with lossy and lossless traffic in
        # one ingress buffer pool (the RoCE defaults are those of lossless mode).
        conf.roce_mode = Val("lossless", src)
    elif w[0] in ("enable", "state") and len(w) == 2:
        # Cumulus Linux 5.15 "New and Changed NVUE Commands": `qos roce enable on|off` became `qos roce state
        # enabled|disabled`; both spellings mean the same. What it makes of the mode: _roce_state.
        conf.roce_enable = Val(_switch(w[1]), src)
    elif w[0] == "cable-length" and len(w) == 2:
        conf.roce_cable = Val(_length(w[1]), src)
    else:
        raise Skip("not a RoCE setting losslessd knows")


def _mapping(conf: Conf, profile: str, w: list[str], src: Source) -> None:
    if w[0] == "trust" and len(w) == 2 and w[1] in ("l2", "l3", "port", "both"):
        conf.trust[profile] = Val(w[1], src)
    elif w[0] in ("dscp", "pcp") and len(w) == 4 and w[2] == "switch-priority":
        sp = _int(w[3], 7)
        table = conf.dscp if w[0] == "dscp" else conf.pcp
        for code in _ints(w[1], 63 if w[0] == "dscp" else 7):
            table.setdefault(profile, {})[code] = Val(sp, src)
    elif w[0] == "port-default-sp" and len(w) == 2:
        # QoS guide, "Trust Port": `trust port` with `port-default-sp 3` assigns all traffic to switch priority 3
        # "regardless of the ingress marking" (NVUE reference: `port-default-sp 0-7`).
        conf.port_sp[profile] = Val(_int(w[1], 7), src)
    else:
        raise Skip("not a QoS mapping setting losslessd knows")


def _pfc(conf: Conf, profile: str, w: list[str], src: Source) -> None:
    if w[0] == "switch-priority" and len(w) == 2:
        priorities = _ints(w[1], 7)  # may raise Skip: before the profile is made, or it would lack a source
        conf.pfc.setdefault(profile, {}).update({p: src for p in priorities})
        conf.pfc_source[profile] = src
    elif w[0] == "cable-length" and len(w) == 2:
        conf.cable[profile] = Val(_length(w[1]), src)
    elif w[0] in _PFC_BUFFER and len(w) >= 2:
        value = Val(_byte_count(" ".join(w[1:]), f"profile's {w[0]}"), src)  # may raise: before the profile is made
        setattr(conf.pfc_buffer.setdefault(profile, PfcBufferConf()), _PFC_BUFFER[w[0]], value)
    elif w[0] == _SMALL_PACKETS and len(w) == 2:
        _int(w[1], 100)  # (a percentage: headroom sized at run time, not read)
    elif w[0] in ("rx", "tx") and len(w) == 2:
        if not _switch(w[1]):  # (enable, the default, sets what losslessd reads: PFC both ways)
            raise Skip(f"PFC frames turned off one way: the NVUE command reference has `{w[0]}` turn "
                       f"{'receiving' if w[0] == 'rx' else 'sending'} PFC frames on and off, the QoS guide's PFC table "
                       "the reverse; either way the profile's priorities are paused in one direction only, which "
                       "is not lossless, and losslessd reads their PFC as on both ways")
    else:
        raise Skip("not a PFC setting losslessd knows")


# `qos pfc <profile> port-buffer|xoff-threshold|xon-threshold <bytes>` -> PfcBufferConf field.
_PFC_BUFFER = {"port-buffer": "port_buffer", "xoff-threshold": "xoff", "xon-threshold": "xon"}


def _link_pause(conf: Conf, profile: str, w: list[str], src: Source) -> None:
    """Cumulus Linux QoS guide, "Link Pause": `nv set qos link-pause PROFILE rx|tx enable|disable`; cable-length,
    port-buffer, xoff-threshold, xon-threshold and small-packet-probability size its buffer (accepted, not used)."""
    what, text = w
    if what in ("rx", "tx"):
        value = Val(_switch(text), src)  # may raise Skip: before the profile is made, or it would lack a source
        setattr(conf.pause.setdefault(profile, PauseConf(source=src)), what, value)
    elif what in ("cable-length", "port-buffer", "xoff-threshold", "xon-threshold", _SMALL_PACKETS):
        if what == _SMALL_PACKETS:
            _int(text, 100)  # (a percentage: may raise Skip before the profile is made)
        conf.pause.setdefault(profile, PauseConf(source=src))
    else:
        raise Skip("not a link-pause setting losslessd knows")


def _remark(conf: Conf, profile: str, w: list[str], src: Source) -> None:
    """Cumulus Linux QoS guide, "Remarking": `rewrite l2|l3|both` (on the ingress port), `switch-priority N dscp D`
    (0-63) and `switch-priority N pcp P` (0-7, 802.1p: read, not modelled) on the egress port."""
    if w[0] == "rewrite" and len(w) == 2 and w[1] in ("l2", "l3", "both"):
        conf.remark.setdefault(profile, RemarkConf()).rewrite = Val(w[1], src)
    elif w[0] == "switch-priority" and len(w) == 4 and w[2] in ("dscp", "pcp"):
        sps, value = _ints(w[1], 7), _int(w[3], 63 if w[2] == "dscp" else 7)
        remark = conf.remark.setdefault(profile, RemarkConf())
        if w[2] == "dscp":
            remark.dscp.update({sp: Val(value, src) for sp in sps})
    else:
        raise Skip("not a remark setting losslessd knows")


def _traffic_pool(conf: Conf, name: str, w: list[str], src: Source) -> None:
    """Cumulus Linux QoS guide, "Traffic Pools": a pool by its name (the guide's table) takes `switch-priority <list>`
    (0-7) and `memory-percent` (1-100 percent of the buffer memory)."""
    if name not in TRAFFIC_POOLS:
        raise Skip(f"{name!r} is not a traffic pool losslessd knows ({', '.join(TRAFFIC_POOLS)})")
    if w == ["switch-priority"] or w == ["memory-percent"]:
        return  # `switch-priority: {}` of a full tree (`nv config show --all`): lists nothing
    if w[:1] == ["switch-priority"] and len(w) == 2:
        sps = _ints(w[1], 7)  # may raise Skip: before the pool is made, or it would lack a source
        pool = conf.pools.setdefault(name, PoolConf(source=src))
        pool.sps = {**(pool.sps or {}), **{sp: src for sp in sps}}
    elif w[:1] == ["memory-percent"] and len(w) == 2:
        value = Val(_int(w[1], 100, 1), src)  # NVUE reference: `traffic-pool <id> memory-percent 1-100`
        conf.pools.setdefault(name, PoolConf(source=src)).memory_pct = value
    else:
        raise Skip("not a traffic-pool setting losslessd knows (switch-priority, memory-percent)")


# NVUE command reference, QoS: `nv set qos congestion-control <profile-id> traffic-class <qos-tc-id> min-threshold` and
# `max-threshold` take "the minimum (maximum) buffer threshold in bytes", written as a bare number (`min-threshold
# 40000`); no unit is documented for the command (nor for `qos pfc` `port-buffer`, `xoff-threshold`, `xon-threshold`).
_THRESHOLD = lazy(r"^[0-9]{1,10}$")


def _congestion(conf: Conf, profile: str, tcs: list[int], w: list[str], src: Source) -> None:
    what, text = w[0], " ".join(w[1:])
    count, unread = None, None
    if what in ("min-threshold", "max-threshold"):
        try:
            count = _byte_count(text, f"traffic class's {what}")
        except (Skip, units.UnknownUnit) as exc:
            unread = exc  # the threshold is unknown (a Val of None, not NVUE's default) and the line named
    for tc in tcs:
        ecn = conf.ecn.setdefault(profile, {}).setdefault(tc, EcnConf())
        if what == "ecn":
            ecn.ecn = Val(_switch(text), src)
        elif what in ("min-threshold", "max-threshold"):
            setattr(ecn, "kmin" if what == "min-threshold" else "kmax", Val(count, src))
        elif what == "probability":
            ecn.probability = Val(_int(text, 100), src)
        elif what == "mode" and text in ("relative", "absolute"):
            # Cumulus Linux 5.17 (Beta) and 5.18 QoS guides, "Dynamic ECN" (Spectrum-4 and later; CumulusNetworks/docs
            # 0270baa1191b and 6d60f6326a40): `nv set qos congestion-control <profile> traffic-class <tc>
            # mode relative`, in which the switch ignores the configured byte thresholds and marks at a percentage of
            # the traffic class's dynamic buffer allowance (`min-threshold-percent`, default 0, and
            # `max-threshold-percent`, default 100: 0 through 100); `absolute`, the default, marks at the bytes.
            ecn.relative = Val(text == "relative", src)
        elif what in ("min-threshold-percent", "max-threshold-percent"):
            # (a share of a buffer allowance set at run time: the bytes it stands for are unknown)
            setattr(ecn, "kmin_pct" if what == "min-threshold-percent" else "kmax_pct", Val(_int(text, 100), src))
        elif what != "red":
            raise Skip("not a congestion-control setting losslessd knows")
    if unread is not None:
        raise unread
