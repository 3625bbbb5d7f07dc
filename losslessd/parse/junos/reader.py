"""Read `set` lines (or the curly-brace form, flattened into them) into the named class-of-service objects and
interface settings, each with its line.

Lines outside class-of-service, interfaces and the host name are skipped without a word; a
class-of-service line that is not read (or cannot be) becomes a SYS002 issue.
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import field
from typing import cast

from ... import units
from ...errors import InputError
from ...lazyre import lazy
from ...limits import MAX_ISSUES_PER_FILE, MAX_KEPT_STATEMENTS, MAX_NESTING
from ...model import ParseIssue, Source
from ...records import record
from ...units import DSCP_NAMES, is_small_int
from ...userre import Regex, compile_linear
from ..base import (
    JUNOS_CLI_LINE,
    PROMPT_HOST,
    Input,
    IssueList,
    SessionHosts,
    check_expanded,
    host_name,
    junos_host_name_path,
    junos_system_spelled,
    port_slot,
    prompt_host,
    shell_words,
)
from ..clitext import Val, numbered_lines

# Physical Ethernet ports (et = 40G and faster, xe = 10G, ge / mge = 1G; `:N` a channelized lane).
PHYSICAL = lazy(r"^(et|xe|ge|mge)-\d+/\d+/\d+(:\d+)?$")
AGGREGATE = lazy(r"^ae\d{1,4}$")  # aggregated Ethernet (Junos: ae0 and up)
# The curly-brace form: a top-level hierarchy opening a block, also right after the `*/` that closes a comment
# (`/* ...` over lines, `   */system {`: Junos reads words, so a comment ends where its `*/` does).
_BRACE_TOP = lazy(r"^(?:[^\n]*\*/[ \t]*)?(system|interfaces|class-of-service|chassis|protocols)\s*\{\s*$",
                  re.MULTILINE)
_CODE6 = lazy(r"^[01]{6}$")
_CODE3 = lazy(r"^[01]{3}$")
# Junos standard DSCP aliases (Junos CoS guide, "Default DSCP aliases"): the standard names, and nc1 = cs6, nc2 = cs7.
DSCP_ALIASES = {**{k: v for k, v in DSCP_NAMES.items() if k != "default"}, "nc1": 48, "nc2": 56}
# QFX default forwarding classes and their queues (Junos "Default forwarding classes" for the QFX Series).
DEFAULT_CLASSES = {"best-effort": 0, "fcoe": 3, "no-loss": 4, "network-control": 7}
# Junos "Overview of CoS Upgrade Requirements to Junos OS Release 12.3" (QFX): the default fcoe and no-loss classes are
# lossless while the configuration does not define them; a class it defines (those two included) is lossless only with
# the `no-loss` packet drop attribute.
DEFAULT_LOSSLESS = frozenset({"fcoe", "no-loss"})
# PFC watchdog defaults when `pfc-watchdog` has no options: poll every 100 ms, detection after 2 polls,
# recovery 200 ms (Junos CoS guide, "PFC Watchdog").
WATCHDOG_DEFAULTS = {"poll-interval": 100, "detection": 2, "recovery": 200}
# Statements read into the model; any other `set class-of-service` line is reported as not read. Knowingly skipped
# (documented Junos CoS statements that do not change what the rules check): traffic-control-profiles lines other
# than its scheduler-map (shaping and guaranteed rates); the shared and dedicated buffer partitions (percent of a
# chip buffer whose size the configuration does not give: QFX sizes lossless headroom from them at run time);
# host-outbound traffic, multicast and forwarding-class sets; fabric, translation and policy maps.
_IGNORED_COS = ("host-outbound-traffic", "shared-buffer", "dedicated-buffer", "dedicated-buffer-profile",
                "forwarding-class-sets", "multi-destination", "traffic-control-profiles", "fabric", "translation-table",
                "forwarding-policy", "adaptive-shapers", "virtual-channels", "virtual-channel-groups",
                "loss-priority-maps", "loss-priority-rewrites", "policy-map", "application-traffic-control",
                "routing-instances", "code-point-aliases", "fragmentation-maps", "restricted-queues")
# Classifier and rewrite-rule types Junos documents; the DSCP (IPv4, else IPv6) and 802.1p ones feed the model,
# the others (MPLS EXP, IP precedence) are read and left out: RoCEv2 is classified by DSCP or 802.1p.
_CODE_TYPES = ("dscp", "dscp-ipv6", "ieee-802.1", "ieee-802.1ad", "exp", "inet-precedence")
# Scheduler priorities (Junos CoS guide, "priority (Schedulers)"): strict-high is served before everything; the others
# are levels of the guaranteed (transmit-rate) region, not strict priority.
SCHEDULER_PRIORITIES = ("strict-high", "high", "medium-high", "medium-low", "low", "low-latency")
# low-latency (Junos EVO low-latency queueing) is served ahead of strict-high, so it is strict priority too.
STRICT_PRIORITIES = ("strict-high", "low-latency")


@record
class ForwardingClass:
    queue: int
    source: Source | None = None
    no_loss: bool = False
    pfc_priority: Val | None = None


@record
class Cnp:
    """A congestion-notification-profile: PFC code points and the PFC watchdog."""

    source: Source
    dscp: dict[int, Source] = field(default_factory=dict)  # `input dscp code-point X pfc`
    pcp: dict[int, Source] = field(default_factory=dict)  # `input ieee-802.1 code-point X pfc`
    # `output ieee-802.1 code-point P flow-control-queue [ Q.. ]`: the queues a received pause for P stops
    flow_control_queue: dict[int, list[int]] = field(default_factory=dict)
    watchdog: Source | None = None
    wd: dict[str, Val] = field(default_factory=dict)  # WATCHDOG_DEFAULTS keys, and "action"
    cable_length: Val | None = None  # `input cable-length METRES` (headroom is sized for it; default 100 m)
    unreadable: Source | None = None  # a line of this profile that could not be read


@record
class DropProfile:
    source: Source
    fills: list[float] = field(default_factory=list)  # interpolate fill-level, percent of the queue buffer
    probs: list[float] = field(default_factory=list)  # interpolate drop-probability, percent
    points: list[tuple[float, float]] = field(default_factory=list)  # segmented (fill-level, drop-probability)


@record
class SchedulerConf:
    source: Source
    strict: Source | None = None  # `priority strict-high`
    priority: Val | None = None  # `priority high|medium-high|medium-low|low` (not strict)
    rate_pct: int | None = None  # `transmit-rate percent N`
    shaped: Source | None = None  # `shaping-rate`, or `transmit-rate ... exact|rate-limit`: the queue's rate is capped
    ecn: Source | None = None  # `explicit-congestion-notification`
    drop_profile: Val | None = None  # the drop-profile-map for loss-priority low (or any)
    buffer_us: Val | None = None  # `buffer-size temporal N`: the queue buffer drains in N microseconds at line rate
    # `buffer-rate percent P | RATE` (Junos EVO 24.4R1, VOQ platforms): the rate a temporal buffer is sized at
    buffer_rate: Val | None = None
    unreadable: Source | None = None  # a line of this scheduler that could not be read
    # Its rate, buffer and (not strict) priority statements as written (model Scheduler.rates), by what each sets: a
    # later line replaces one that sets the same (`transmit-rate percent 40` the value, `transmit-rate exact` the
    # modifier).
    rates: dict[tuple[str, bool], str] = field(default_factory=dict)


# A classifier type -> the CosInterface attribute of the one bound (the others, `exp`, `inet-precedence`, not read).
CLASSIFIER_ATTRS = {"dscp": "dscp_classifier", "dscp-ipv6": "dscp6_classifier", "ieee-802.1": "pcp_classifier"}


@record
class CosInterface:
    source: Source
    cnp: Val | None = None
    scheduler_map: Val | None = None
    # ETS (hierarchical port scheduling): forwarding-class-set -> its output traffic-control-profile, one per set
    # ("" for an `output-traffic-control-profile` of the port itself); each profile's scheduler-map serves its set.
    traffic_control_profiles: dict[str, Val] = field(default_factory=dict)
    dscp_classifier: Val | None = None
    dscp6_classifier: Val | None = None  # `classifiers dscp-ipv6`: used when the port has no IPv4 DSCP classifier
    pcp_classifier: Val | None = None
    dscp_rewrite: Val | None = None  # `rewrite-rules dscp NAME`
    # Classifier attribute -> (the port-level one, the unit's): both set to different classifiers leave the port's
    # classification unknown (build._classify: which a QFX applies is not in a Juniper document read).
    levels: dict[str, tuple[Val | None, Val | None]] = field(default_factory=dict)
    # Classifier attribute -> unit as written (`unit 0`, `unit *`) -> the classifier bound there: each binding a
    # snippet's `delete` may name.
    units: dict[str, dict[str, Val]] = field(default_factory=dict)
    # (a port's merged settings, build._cos_conf) setting -> the wildcard entry (`et-*`, `all`) it was taken from
    wildcard: dict[str, str] = field(default_factory=dict)


@record
class Interface:
    source: Source
    description: str | None = None
    mtu: Val | None = None  # media MTU (`mtu`): the frame without FCS, Ethernet header included
    # `unit N family inet|inet6|mpls|iso mtu M`: (unit as written, family) -> the packet that unit passes, counted as
    # an IP MTU is (the frame less the 14-byte Ethernet header; the port's is the largest a unit passes,
    # build._ip_mtu); per unit and family, so a range's unit and a member's other unit both count (build._interface
    # merges them). Junos "mtu (Interfaces)": the statement at [edit interfaces NAME unit N family FAMILY] is the
    # protocol MTU, default 1500 bytes for inet and inet6 alike (an IP packet either way); an mpls or iso protocol MTU
    # counts with what its frame carries beyond an IP packet's (build._ip_mtu: protocol_mtu_extra).
    ip_mtus: dict[tuple[str, str], Val] = field(default_factory=dict)
    # `unit N family mpls maximum-labels K`: unit -> the labels the PFE may push on its packets (protocol_mtu_extra)
    mpls_labels: dict[str, Val] = field(default_factory=dict)
    vlan_tagging: bool = False  # `vlan-tagging` / `flexible-vlan-tagging`: frames carry a 4-byte tag
    channelized: bool = False  # `number-of-sub-ports N`: broken out into et-x/y/z:0.. ports, forwards nothing itself
    speed_gbps: float | None = None
    disabled: Source | None = None
    # `unit N family ethernet-switching|inet|inet6 filter input NAME` or `filter input-list [ A B ]`: firewall filters
    # on the port's input, which may set forwarding classes (a multifield classifier); per (unit, family, statement)
    input_filters: dict[tuple[str, str, str], list[Val]] = field(default_factory=dict)
    # `ether-options 802.3ad aeN` (`gigether-options` on older platforms): a member of aggregated Ethernet aeN
    bundle: Val | None = None
    # 802.3x pause honoured (pause_rx) and sent (pause_tx): `ether-options flow-control|no-flow-control` (both),
    # `ether-options configured-flow-control tx-buffers|rx-buffers on|off` (one); None: not written
    pause_rx: Val | None = None
    pause_tx: Val | None = None
    # `unit N family ethernet-switching vlan members [ v100 200 300-310 ]`: the VLANs by name, ID or range, as written
    vlan_members: list[Val] = field(default_factory=list)
    # The families the port's units carry, (unit as written, family) (`unit N family inet|inet6|ethernet-switching
    # ...`): a family without its own `mtu` (inet, inet6) passes what the media MTU lets through (build._ip_mtu)
    unit_families: set[tuple[str, str]] = field(default_factory=set)
    # `unit N family ethernet-switching interface-mode access|trunk` (`port-mode` before ELS); None: not written, which
    # Junos reads as access (its "interface-mode" and "port-mode" statements: "Default: access")
    switching_mode: str | None = None

    @property
    def families(self) -> set[str]:
        """The families the units carry: inet or inet6 alone on a port without vlan-tagging routes untagged frames
        (Port.vlans [])."""
        return {family for _, family in self.unit_families}


@record
class InterfaceRange:
    """`interfaces interface-range NAME`: members and the settings they share."""

    source: Source
    members: list[Regex] = field(default_factory=list)  # `member et-0/0/[0-3]`, `et-0/0/*` as patterns
    ranges: list[tuple[str, str]] = field(default_factory=list)  # member-range FROM to TO
    names: list[str] = field(default_factory=list)  # the port names the members spell out (not `*` ones)
    settings: Interface | None = None


@record
class JunosConfig:
    hostname: str | None = None
    host_names: dict[str | None, tuple[str, int | None]] = field(default_factory=dict)  # (base.host_name)
    # A `set` script (set_form): a later `set system host-name` replaces the earlier value (Junos CLI guide, "set":
    # it sets a statement's value, a leaf holds one), so a rename is one switch; in the curly-brace form (what `show
    # configuration` prints: one `system` hierarchy, one host-name) a second host-name is a second switch pasted
    # after the first, and so is one after a second `show configuration` prompt in a set-form paste (output_named:
    # this output has named the switch already).
    set_form: bool = False
    output_named: bool = False
    hosts: SessionHosts = field(default_factory=lambda: SessionHosts(None))  # the file's prompts (base.SessionHosts)
    # `code-point-aliases TYPE NAME BITS` (dscp, dscp-ipv6, ieee-802.1, exp, inet-precedence): a name classifiers
    # and rewrite rules may use for the bits
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    interfaces: dict[str, Interface] = field(default_factory=dict)
    cos_interfaces: dict[str, CosInterface] = field(default_factory=dict)  # name or wildcard pattern
    classes: dict[str, ForwardingClass] = field(
        default_factory=lambda: {name: ForwardingClass(queue, no_loss=name in DEFAULT_LOSSLESS)
                                 for name, queue in DEFAULT_CLASSES.items()})
    dscp_classifiers: dict[str, dict[int, Val]] = field(default_factory=dict)  # DSCP -> forwarding class
    dscp6_classifiers: dict[str, dict[int, Val]] = field(default_factory=dict)
    pcp_classifiers: dict[str, dict[int, Val]] = field(default_factory=dict)
    # `classifiers TYPE NAME import OTHER`: the entries NAME starts from (`default`: Junos's own table, not listed)
    imports: dict[tuple[str, str], Val] = field(default_factory=dict)
    dscp_rewrites: dict[str, dict[str, Val]] = field(default_factory=dict)  # forwarding class -> DSCP (Val of int)
    ranges: dict[str, InterfaceRange] = field(default_factory=dict)
    range_names: int = 0  # port names all interface ranges spell out, against MAX_EXPANDED_PORTS
    cnps: dict[str, Cnp] = field(default_factory=dict)
    drop_profiles: dict[str, DropProfile] = field(default_factory=dict)
    schedulers: dict[str, SchedulerConf] = field(default_factory=dict)
    scheduler_maps: dict[str, dict[str, Val]] = field(default_factory=dict)  # forwarding class -> scheduler
    traffic_control_profiles: dict[str, Val] = field(default_factory=dict)  # name -> scheduler-map
    # (classifier type, name, code point) -> (forwarding class, loss priority, line, the code point as written) of its
    # entry, for the SYS002 on a code point listed twice
    entries: dict[tuple[str, str, int], tuple[str, str | None, Source, str]] = field(default_factory=dict)
    # The statements read from a configuration group (_with_groups), (file, line) -> the group's name: a `delete` of
    # the configuration's own statements leaves them (Junos user guide, "Configuration Groups": inherited statements
    # live in the group; `show | display inheritance`).
    inherited: dict[tuple[str | None, int | None], str] = field(default_factory=dict)
    # The same statements as the group writes them, after `set groups NAME ` (a wildcard `"<et-*>"` kept as written):
    # what a `delete groups NAME ...` names
    group_statements: dict[tuple[str | None, int | None], str] = field(default_factory=dict)
    # The classifiers the configuration defines, (type, name) -> a configuration group it takes statements of it from
    # ("" where it takes none): a snippet that rebuilds one deletes it first only where it is defined.
    defined: dict[tuple[str, str], str] = field(default_factory=dict)
    # firewall filters with a term that sets a forwarding class (`then forwarding-class C`): name -> that line
    class_filters: dict[str, Source] = field(default_factory=dict)
    # Aggregated Ethernet interfaces (`interfaces aeN`): the VLANs their units switch, which their members carry
    aggregates: dict[str, Interface] = field(default_factory=dict)
    # `[routing-instances R] vlans NAME vlan-id N | l3-interface irb.U | interface IF.U`: each VLAN's ID, its routed
    # interface and the member interfaces it names itself, by (routing instance, VLAN name); "" is the top level
    vlan_ids: dict[tuple[str, str], Val] = field(default_factory=dict)
    vlan_l3: dict[tuple[str, str], Val] = field(default_factory=dict)
    vlan_interfaces: dict[tuple[str, str], list[Val]] = field(default_factory=dict)
    # `routing-instances R interface IF.U`: the routing instance of each interface (its name without the unit)
    instance_of: dict[str, str] = field(default_factory=dict)
    # what a line says about another (read() passes them on)
    issues: list[ParseIssue] = field(default_factory=IssueList)


class _Skip(Exception):
    """This line cannot be read: becomes a SYS002 issue with the message."""


def read(inputs: list[Input], issues: list[ParseIssue]) -> JunosConfig:
    cfg = JunosConfig()
    for inp in inputs:
        statements, unmade = _kept(_braces(inp, issues) if _BRACE_TOP.search(inp.text) else _set_lines(inp),
                                   isinstance(issues, IssueList), "delete" in inp.text or "deactivate" in inp.text)
        statements = _deleted(statements)
        cfg.set_form, cfg.output_named, cfg.hosts = not _BRACE_TOP.search(inp.text), False, SessionHosts(inp.path)
        inactive = _inactive(statements)
        engines = _engine_names(statements, inactive)
        for _, name in engines:  # (either engine's prompt names this switch)
            cfg.hosts.renamed(name)
        if any(w is not None and w[0] == "set" and w[1:2] in (["groups"], ["apply-groups"]) for _, w, _ in statements):
            statements = _with_groups(statements, issues, inactive, cfg.inherited, cfg.group_statements)
        for _, words, _ in statements:  # aliases first: a classifier may come before the alias it uses
            if words and words[1:3] == ["class-of-service", "code-point-aliases"] and len(words) == 6 and \
                    not _deactivated(words, inactive):
                cfg.aliases.setdefault(words[3], {})[words[4]] = words[5]
        for src, words, line in statements:
            try:
                if words is None:
                    raise _Skip("unbalanced quotes")
                if words[0] == "set" and _deactivated(words, inactive):
                    if words[1:3] == ["class-of-service", "classifiers"] and len(words) > 4 \
                            and words[3] in _CODE_TYPES:
                        # (defined all the same: a `delete` finds it, and removes its inactive: tag with it)
                        _defined(cfg, words[3], words[4], src)
                    continue
                if _CONFIG_TYPED.match(line):  # (a session's prompt names its switch, as a `show` prompt does)
                    cfg.hosts.prompt(prompt_host(PROMPT_HOST.match(line)), src.line, line)
                _line(cfg, words, src)
            except (_Skip, IndexError, ValueError) as exc:
                reason = "incomplete statement" if isinstance(exc, IndexError) else str(exc)
                issues.append(ParseIssue(code="SYS002", source=src, message=f"line not read ({reason}): {line[:120]}"))
                _unreadable(cfg, words or [], src)
        if engines and inp.path not in cfg.host_names:  # no `system host-name` of its own: the first engine's name
            src, name = engines[0]
            host_name(cfg.host_names, name, src)
            cfg.hostname = name
        if unmade:
            cast(IssueList, issues).count_unlisted("SYS002", inp.path, unmade)
    issues.extend(cfg.issues)
    return cfg


_VERBS = ("set", "delete", "deactivate", "activate")


def _junk(words: list[str] | None) -> bool:
    """A line whose only outcome is a SYS002 whatever the other lines say: quotes that do not close, a command that is
    not a configuration statement. Asks _line's own test, so the prompts it passes over silently are not junk (nor
    counted towards the file's cap), and whatever it does not pass over keeps its SYS002."""
    return words is None or (words[0] not in _VERBS
                             and not (_PROMPT.match(j := " ".join(words)) and not _TYPED.match(j)))


def _reads(words: list[str]) -> bool:
    """Whether a statement (or a `delete`/`deactivate`/`activate` of a path) can change what the reader gives: what
    _line reads (the host name, physical and aggregated interfaces and interface ranges, class-of-service, VLANs at
    the top level or in a routing instance, a routing instance's interfaces, firewall filters setting a forwarding
    class), configuration groups of those, `apply-groups`. The rest (`system`, `protocols`, `snmp`, ...) is most of a
    real configuration, and all of a file of junk statements."""
    if len(words) < 3:
        # a bare verb or a whole hierarchy (`delete system` takes the host name with it)
        return len(words) == 1 and words[0] in ("set", "delete") or len(words) == 2 and words[1] in _READ_TOPS
    top = words[1]
    if junos_host_name_path(words):  # (`set sys host-name h1`: base.junos_host_name_path)
        return True
    if top == "system":
        return False
    if top == "groups":  # (and a Routing Engine group's host name: _engine_names)
        return len(words) < 4 or words[3] in _GROUP_READ or junos_host_name_path(words[2:])
    if words[0] != "set":  # a path: whether a statement kept may lie at or below it
        return top in _READ_TOPS
    if top == "interfaces":
        return words[2] == "interface-range" or bool(PHYSICAL.match(words[2]) or AGGREGATE.match(words[2])) \
            or "apply-groups" in words or "apply-groups-except" in words
    if top == "firewall":
        return "forwarding-class" in words
    if top == "routing-instances":
        return words[3:4] in (["vlans"], ["interface"])
    return top in _READ_TOPS


_READ_TOPS = frozenset({"interfaces", "class-of-service", "system", "firewall", "groups", "apply-groups", "vlans",
                        "routing-instances"})


def _kept(statements, collapse: bool, undone: bool) -> tuple[list, int]:
    """The statements that can change what is read, and how many junk lines (_junk) were left out unmade. A junk line
    is kept until MAX_ISSUES_PER_FILE + 1 of them are, so its issue lands where it did; each one after that is sure
    to be past the file's cap (IssueList) and is only counted (``collapse``: the caller's issues are an IssueList).
    A bare `delete` (the whole configuration before it) takes out the statements kept so far, as _deleted would.
    Where no line can undo another (``undone`` False: the text has no `delete` or `deactivate`), a port's setting
    the reader does not read only makes the port, so the port's first one is kept. A statement kept takes about 335
    bytes (tracemalloc, 100,000 `set class-of-service x` lines); one kept for each line, 32 MiB of one-letter lines
    (16 million) took 5.9 GB, of `x;` in a port's block 4.2 GB. At most MAX_KEPT_STATEMENTS are kept, words shared
    between statements."""
    kept: list = []
    junk = unmade = cut = count = 0  # count: the statements kept that are not junk
    # ports a kept statement makes (when no line can undo it), and the unit families it names (a fact the reader keeps,
    # Interface.unit_families: a later line naming the same port must not drop a unit's other family)
    made: set[str | tuple[str, str, str]] = set()
    words: dict[str, str] = {}  # one string for each word the kept statements repeat
    for st in statements:
        w = st[1]
        if w and w[0] in _VERBS and (spelled := junos_system_spelled(w)) is not w:
            st, w = (st[0], spelled, st[2]), spelled
        if _junk(w):
            junk += 1
            if collapse and junk > MAX_ISSUES_PER_FILE + 1:
                unmade += 1
                continue
        elif w[0] not in _VERBS:
            if not _NEW_OUTPUT.match(" ".join(w)):  # (a `show configuration` prompt is kept: _line)
                continue
        elif not _reads(w):
            continue
        elif w == ["delete"]:
            kept[cut:] = [k for k in kept[cut:] if _junk(k[1])]
            cut = len(kept)
            continue
        else:
            if not undone and _makes_only(w):
                key = (w[2], w[4], w[6]) if len(w) > 6 and w[3] == "unit" and w[5] == "family" else w[2]
                if key in made:
                    continue
                made.add(key)
            count += 1
            if count > MAX_KEPT_STATEMENTS:
                raise InputError(f"more than {MAX_KEPT_STATEMENTS:,} statements that can change what is read "
                                 "(interfaces, class-of-service, VLANs, routing instances, firewall filters: a "
                                 "generated file?); not read", file=st[0].file, line=st[0].line)
        if w is not None:
            st = st[0], [words.setdefault(word, word) for word in w], st[2]
        kept.append(st)
    return kept, unmade


_NOWHERE = Source(file="", line=0)


def _makes_only(w: list[str]) -> bool:
    """A `set interfaces PORT ...` line whose only outcome is the port: a physical port's setting _interface_setting
    leaves unread (asked of _interface_setting itself, so what is kept follows what is read)."""
    if len(w) < 4 or w[0] != "set" or w[1] != "interfaces" or not PHYSICAL.match(w[2]) or "apply-groups" in w \
            or "apply-groups-except" in w:
        return False
    return _unread_setting(tuple(w[3:]))


@functools.lru_cache(maxsize=4096)  # (a port's settings repeat over its ports; a flood of distinct junk is evicted)
def _unread_setting(words: tuple[str, ...]) -> bool:
    """Whether _interface_setting leaves an interface as it was after ``words``; False where it refuses them (their
    SYS002 is said where they stand). The unit's family alone is no setting: a statement that only names it (a VRRP
    group's `unit <*> family inet address <*> ...`) leaves the port's routing unknown, as a port without it."""
    fresh = Interface(source=_NOWHERE)
    try:
        _interface_setting(fresh, list(words), _NOWHERE)
    except (_Skip, IndexError, ValueError):
        return False
    fresh.unit_families.clear()
    return fresh == Interface(source=_NOWHERE)


def _inactive(statements: list) -> dict:
    """The paths a `deactivate PATH` leaves inactive, as a trie of words (None marks a path's end): Junos keeps the
    statement at PATH and everything below it in the configuration but does not apply it, until an `activate PATH`
    later on (Junos CLI guide, "deactivate" and "activate": they add and remove the inactive: tag of the statement at
    PATH, not of the ones below it)."""
    paths: set[tuple[str, ...]] = set()
    for _, w, _ in statements:
        if w and w[0] == "deactivate" and len(w) > 1:
            paths.add(tuple(w[1:]))
        elif w and w[0] == "activate":
            paths.discard(tuple(w[1:]))
    trie: dict = {}
    for path in paths:
        node = trie
        for word in path:
            node = node.setdefault(word, {})
        node[None] = True
    return trie


def _deactivated(words: list[str], inactive: dict) -> bool:
    """Whether a `set` line's path is at or below an inactive one (a walk down the trie: linear in the line)."""
    node: dict | None = inactive
    for word in words[1:]:
        node = node.get(word) if node is not None else None
        if node is None:
            return False
        if None in node:
            return True
    return False


def _deleted(statements: list) -> list:
    """The statements with what a later `delete PATH` removes taken out (Junos CLI: `delete` removes the statement
    at PATH and every statement below it; `load set` runs the lines in order, so a `set` after the `delete` stays).
    A PATH ending in a value of a leaf-list (`... code-points 011010`, or `[ 011010 000000 ]`) removes those values
    from an earlier `[ ... ]` list at the rest of the path. So a snippet that deletes and rebuilds a classifier,
    pasted after the configuration, reads as the switch applies it. Linear: the deletes' paths are a trie that each
    statement is walked through once."""
    if not any(w and w[0] == "delete" for _, w, _ in statements):
        return statements
    end = None  # a trie node's key for the index of the last delete of exactly this path (no word is None)
    trie: dict = {}
    for at, (_, w, _) in enumerate(statements):
        if not w or w[0] != "delete":
            continue
        path = w[1:]
        opens = len(path) - 1 - path[::-1].index("[") if path[-1:] == ["]"] and "[" in path else None
        for one in ([path[:opens] + [v] for v in path[opens + 1:-1]] if opens is not None else [path]):
            node = trie
            for word in one:
                node = node.setdefault(word, {})
            node[end] = at
    out = []
    for at, (src, w, line) in enumerate(statements):
        if not w or w[0] not in ("set", "deactivate", "activate"):
            out.append((src, w, line))
            continue
        at_node: dict | None = trie
        gone, i = False, 1
        # where a trailing `[ ... ]` list opens (its values are deleted one by one), else past the end
        listed = len(w) - 1 - w[::-1].index("[") if w[-1] == "]" and "[" in w else len(w)
        while at_node is not None and not gone:
            gone = at_node.get(end, -1) > at
            if i == listed:
                kept = [v for v in w[i + 1:-1] if at_node.get(v, {}).get(end, -1) <= at]
                if len(kept) < len(w) - i - 2:
                    gone = not kept
                    w = [*w[:i + 1], *kept, "]"]
                break
            at_node = at_node.get(w[i]) if i < len(w) else None
            i += 1
        if not gone:
            out.append((src, w, line))
    return out


# Hierarchies whose statements a configuration group can give the model (the rest of a group is not read).
_GROUP_READ = ("interfaces", "class-of-service")


# The configuration groups a dual Routing Engine switch keeps each engine's own statements in (Junos OS High
# Availability User Guide, "Initial Routing Engine Configuration Example Using Configuration Groups": `groups re0` and
# `groups re1` hold each engine's `system host-name` and management address, `apply-groups [ re0 re1 ]` applies re0's
# on the engine in slot 0 only and re1's on the engine in slot 1 only): one switch, whose prompt names the engine the
# session is on.
_ENGINE_GROUPS = ("re0", "re1")


def _engine_names(statements: list, inactive: dict) -> list[tuple[Source, str]]:
    """(line, host name) of each Routing Engine group's `system host-name` that a top-level `apply-groups`
    applies, re0's first: the switch's name where the configuration sets no `system host-name` of its own is re0's
    (the engine in slot 0, the default primary in the same guide), and a prompt naming either is this switch's."""
    applied = {n for _, w, _ in statements if w is not None and w[:2] == ["set", "apply-groups"]
               and not _deactivated(w, inactive) for n in w[2:]}
    found = {w[2]: (src, w[5]) for src, w, _ in statements
             if w is not None and len(w) == 6 and w[:2] == ["set", "groups"] and w[2] in _ENGINE_GROUPS
             and w[2] in applied and junos_host_name_path(w[2:]) and not _deactivated(w, inactive)}
    return [found[group] for group in _ENGINE_GROUPS if group in found]


# A group's statement as written: `set groups NAME <statement>` (NAME quoted or not)
_GROUP_STATEMENT = lazy(r'\s*set\s+groups\s+(?:"[^"]*"|\S+)\s+(.*)')


def _with_groups(statements: list, issues: list[ParseIssue], inactive: dict,
                 inherited: dict[tuple[str | None, int | None], str],
                 written: dict[tuple[str | None, int | None], str]) -> list:
    """The statements with those of the applied configuration groups put first (Junos user guide, "Configuration
    Groups": `set apply-groups [ G1 G2 ]` makes the configuration inherit each group's statements where it does not
    set its own; a group listed earlier wins over one listed later). A group statement is read at its own line.
    `apply-groups` below the top level (`set interfaces et-0/0/1 apply-groups G`, `interfaces { apply-groups G; }`)
    inherits only the group's statements under that same hierarchy level, and wins over the top level's groups.
    A wildcard (`<et-*>`) matches the configuration's own interface names; a wildcard elsewhere in an interface or
    class-of-service statement is reported (SYS002), not guessed. `apply-groups-except [ G ]` at a level below the
    top (`set interfaces et-0/0/1 apply-groups-except G`) keeps group G's statements from that level and those below
    it (Junos CLI reference, "apply-groups-except": it disables the inheritance of the groups it names). Only `set`
    lines define and apply groups, and a deactivated group or `apply-groups` is not applied (`deactivate apply-groups G`
    applied G, and `deactivate groups G interfaces et-0/0/1 disable` read as the `set`). ``inherited`` takes the
    (file, line) of each group statement applied, with its group's name (JunosConfig.inherited), ``written`` the
    statement as the group writes it (JunosConfig.group_statements)."""
    applied: list[str] = []
    nested: list[tuple[list[str], list[str]]] = []  # (hierarchy level, groups applied there)
    excepted: list[tuple[list[str], set[str]]] = []  # (hierarchy level, groups `apply-groups-except` names there)
    groups: dict[str, list] = {}
    main = []
    for src, w, line in statements:
        is_set = w is not None and w[0] == "set"
        if is_set and w[1:2] == ["apply-groups"]:
            applied.extend(n for n in w[2:] if n not in ("[", "]") and not _deactivated(["set", w[1], n], inactive))
        elif is_set and w[1:2] == ["groups"] and len(w) > 3:
            if not _deactivated(w, inactive):
                groups.setdefault(w[2], []).append((src, w[3:], line))
        else:
            if is_set and w[1:2] and w[1] in _GROUP_READ and "apply-groups-except" in w:
                at = w.index("apply-groups-except")
                if not _deactivated(w[:at + 1], inactive):
                    excepted.append((w[1:at], {n for n in w[at + 1:] if n not in ("[", "]")
                                               and not _deactivated([*w[:at + 1], n], inactive)}))
                continue
            if is_set and w[1:2] and w[1] in _GROUP_READ and "apply-groups" in w:
                at = w.index("apply-groups")
                if not _deactivated(w[:at + 1], inactive):
                    nested.append((w[1:at], [n for n in w[at + 1:] if n not in ("[", "]")
                                             and not _deactivated([*w[:at + 1], n], inactive)]))
                continue
            main.append((src, w, line))
    # What a group's wildcard can match: the names the configuration itself gives (Junos matches `<pattern>` against
    # existing statements), physical ports and aggregated Ethernet interfaces (`<ae*>`: aeN is an interface the
    # configuration gives, whose MTU and speed its members take) under interfaces, any entry under class-of-service
    # interfaces. (`set` lines only: a port named by `delete interfaces et-0/0/9` alone is no port the configuration
    # has)
    names = {"interfaces": sorted({w[2] for _, w, _ in main if w is not None and w[:2] == ["set", "interfaces"]
                                   and len(w) > 2 and (PHYSICAL.match(w[2]) or AGGREGATE.match(w[2]))}),
             "class-of-service": sorted({w[3] for _, w, _ in main if w is not None and len(w) > 3
                                         and w[:3] == ["set", "class-of-service", "interfaces"]})}
    taken: list[tuple[Source, list[str] | None, str]] = []
    examined = [0]  # names the wildcards were matched against: bounded like ranges (each costs time)
    levels: dict[tuple[str, ...], list[str]] = {(): applied}
    for level, listed in nested:  # (`display set` prints `apply-groups` once per group, in the order listed)
        levels.setdefault(tuple(level), []).extend(listed)
    # Read first, overridden first: the top level's groups, then deeper levels' (a group applied nearer the statement
    # wins over one applied above it).
    for level_key, listed in sorted(levels.items(), key=lambda item: len(item[0])):
        level = list(level_key)
        for group in reversed(dict.fromkeys(listed)):  # the first group listed is read last: it wins
            for src, rest, line in groups.get(group, []):
                if rest[0] not in _GROUP_READ or not _under(rest, level):
                    continue
                targets, tried = _group_targets([*level, *rest[len(level):]], names)
                examined[0] += tried + 1
                check_expanded(examined[0], src.file, src.line)
                if targets is None and _unread_group_setting(rest):
                    continue  # (a VRRP group's `unit <*> family inet address <*> vrrp-group <*> ...`: nothing read)
                if targets is None:
                    issues.append(ParseIssue(code="SYS002", source=src, message=(
                        "line not read (a wildcard losslessd does not apply from a configuration group): "
                        f"{line[:120]}")))
                    continue
                targets = [words for words in targets if not any(
                    group in names and words[:len(at)] == at for at, names in excepted)]
                if not targets:
                    continue
                taken.extend((src, ["set", *words], line) for words in targets)
                inherited[(src.file, src.line)] = group
                m = _GROUP_STATEMENT.match(line)
                written[(src.file, src.line)] = m[1].rstrip() if m else " ".join(rest)
    _unapplied(groups, levels, main, issues)
    return taken + main


def _unapplied(groups: dict[str, list], levels: dict[tuple[str, ...], list[str]], main: list,
               issues: list[ParseIssue]) -> None:
    """A file of group statements alone (`set groups G class-of-service ...`, no statement of its own) whose groups no
    `apply-groups` names configures nothing (Junos user guide, "Configuration Groups": a group's statements take effect
    only where it is applied): said at each such group's first interface or class-of-service statement, so the port
    count of 0 that follows is not taken for a file losslessd failed to read."""
    if any(w is not None and w[0] == "set" and w[1:2] and w[1] in _GROUP_READ for _, w, _ in main):
        return
    named = {g for listed in levels.values() for g in listed}
    if any("${" in g for g in named):
        # a name the switch expands itself: a chassis cluster's `set apply-groups "${node}"` applies node0's group on
        # node 0 and node1's on node 1 (Junos Chassis Cluster Feature Guide for SRX Series Devices); which of its
        # groups a file's switch takes is not said, so none is called applied nowhere
        return
    for group, rest in groups.items():
        first = next(((src, line) for src, words, line in rest if words[0] in _GROUP_READ), None)
        if group not in named and first is not None:
            issues.append(ParseIssue(code="SYS002", source=first[0], message=(
                f"configuration group {group!r} is applied nowhere (no `set apply-groups {group}`): its statements "
                f"configure nothing on the switch, so none is read: {first[1][:120]}")))


def _unread_group_setting(rest: list[str]) -> bool:
    """Whether a group's `interfaces NAME ...` statement sets nothing _interface_setting reads on any interface (its
    wildcards then stand where nothing is read); `interfaces interface-range NAME ...` is a setting after the range's
    name, and a range's `member`/`member-range` always counts (it makes ports members)."""
    if rest[0] != "interfaces" or len(rest) < 3:
        return False
    if rest[1] == "interface-range":
        return len(rest) > 3 and rest[3] not in ("member", "member-range") and _unread_setting(tuple(rest[3:]))
    return _unread_setting(tuple(rest[2:]))


def _under(rest: list[str], level: list[str]) -> bool:
    """Whether a group statement lies under the hierarchy level a nested `apply-groups` names (a `<pattern>` in the
    group matching the level's name there)."""
    return len(rest) > len(level) and all(
        word == name or (word.startswith("<") and word.endswith(">") and fnmatch.fnmatchcase(name, word[1:-1]))
        for word, name in zip(rest, level, strict=False))


def _group_targets(rest: list[str], names: dict[str, list[str]]) -> tuple[list[list[str]] | None, int]:
    """A group statement as the configuration statements it gives: one per interface of the configuration that a
    `<pattern>` in the interface name's place matches (a unit wildcard stays: the model reads no unit number); None
    for a wildcard anywhere else. With the count of names the pattern was tried on: wildcards x interfaces, which
    a generated file can make billions."""
    wild = [i for i, word in enumerate(rest) if word.startswith("<") and word.endswith(">") and len(word) > 2]
    if not wild:
        return [rest], 0
    at = 1 if rest[0] == "interfaces" else 2 if rest[:2] == ["class-of-service", "interfaces"] else None
    # (`interfaces interface-range NAME unit <*> ...`: the unit follows the range's name; a wildcard in that name
    # matches no range losslessd looks up)
    ranged = at == 1 and rest[1] == "interface-range"
    unit_at = -1 if at is None else at + 3 if ranged else at + 2
    units = [i for i in wild if i == unit_at and rest[unit_at - 1] == "unit"]
    others = [i for i in wild if i not in units]
    if at is None or others not in ([at], []) or (ranged and others):
        return None, 0
    if not others:  # only the unit is a wildcard (the interface named by the level it was applied at)
        return [rest], 0
    pattern = rest[at][1:-1]
    return [[*rest[:at], name, *rest[at + 1:]] for name in names[rest[0]]
            if fnmatch.fnmatchcase(name, pattern)], len(names[rest[0]])


def _unreadable(cfg: JunosConfig, words: list[str], src: Source) -> None:
    """A line of a PFC profile or a scheduler that could not be read leaves what it would have set unknown (its
    PFC state, its queue's scheduling and ECN), never off."""
    w = words[2:] if words[:2] == ["set", "class-of-service"] else []
    if len(w) >= 2 and w[0] == "congestion-notification-profile":
        cfg.cnps.setdefault(w[1], Cnp(source=src)).unreadable = src
    elif len(w) >= 2 and w[0] == "schedulers":
        cfg.schedulers.setdefault(w[1], SchedulerConf(source=src)).unreadable = src


def _split(line: str) -> list[str] | None:
    try:
        return shell_words(line)
    except ValueError:
        return None


# The CLI prompt, routing-engine banner and edit-path lines around a pasted session (`user@host> show
# configuration ...`, `{master:0}`, `[edit]`).
_PROMPT = lazy(rf"^(?:show\s.*|\[edit.*\]|{JUNOS_CLI_LINE.pattern})$")
# A set-form paste's `show configuration` command, at a prompt or alone: a new output starts (JunosConfig.set_form).
_NEW_OUTPUT = lazy(r"^(?:[^\s@]+@[^\s>#%]+[>#%]\s+)?show\s+configuration\b")
# A prompt with a command other than a show typed at it (`user@qfx1# set ...` in configuration mode): not passed over.
_TYPED = lazy(r"^[^\s@]+@[^\s>#%]+[>#%]\s+(?!show\b)\S")
# A trailing annotation Junos prints after a statement (`"$9$..."; ## SECRET-DATA`), outside quotes: the first `##`
# after words and whole quoted strings only (a lone `#` or an unclosed quote before it: the line is left as it is).
# Scanned token by token: a lazy regex over the whole line kept a backtracking entry per character (a 50 MB line
# took 6.7 GB and a minute).
_QUOTED_OR_MARK = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|"|##|#')


def _strip_comment(line: str) -> str:
    if "##" not in line:
        return line
    for m in _QUOTED_OR_MARK.finditer(line):
        if m.group() == "##":
            return line[:m.start()].rstrip()
        if len(m.group()) == 1:  # a lone `#` or `"`
            return line
    return line


# A `/* ... */` comment after a statement (`route 10.50.1.0/24 discard;  /* term 1 */`), outside quotes: it opens where
# a word may start, so the `/*` of a wildcard name (`xe-0/0/*`, `<et-*>`) is no comment.
_TAIL_COMMENT = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|(?<![^\s;{}])/\*.*?(?:\*/|$)')


def _tail_comments(line: str) -> tuple[str, bool]:
    """The line without the `/* ... */` comments that follow its statements (Junos CLI guide, `annotate`: comments
    sit in `/* */` delimiters), and whether one is left open to close on a later line."""
    out, pos, still_open = [], 0, False
    for m in _TAIL_COMMENT.finditer(line):
        if m.group().startswith("/*"):
            out.append(line[pos:m.start()])
            pos, still_open = m.end(), not m.group().endswith("*/") or len(m.group()) < 4
    out.append(line[pos:])
    return "".join(out).strip(), still_open


# Statements that share a line in a configuration written by hand for `load merge` (`community C { members 65001:1;
# }`): Junos reads the curly-brace form by its `{`, `;` and `}`, not by its line ends (its `annotate` reference shows a
# hierarchy written so: `isis {interface ge-0/0/0.0 {level 1 metric 10;}}`). Quoted text keeps its braces.
_PIECE = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{};]|[^"{};]+')


def _statements(line: str) -> list[str]:
    """A line's statements, each ending in `{` or `;`, or a lone `}`; the line itself when it holds one."""
    if line.count("{") + line.count("}") + line.count(";") <= 1:
        return [line]
    out, cur = [], ""
    for m in _PIECE.finditer(line):
        tok = m.group()
        if tok in ("{", ";"):
            out.append((cur + tok).strip())
            cur = ""
        elif tok == "}":
            if cur.strip():
                out.append(cur.strip())
            out.append("}")
            cur = ""
        else:
            cur += tok
    if cur.strip():
        out.append(cur.strip())
    return out


_QUOTED = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"')


def _continued(lines):
    """The lines with a `[ ... ]` list that goes on past its line joined to the lines it goes on over, at the number of
    its first line: Junos reads the curly-brace form by words and `;` (a line end is a blank), and `show
    configuration` prints a long list over several lines (Juniper's JVD 3-stage DC leaves: a trunk's `members [ vn400
    ... ]` of 2,100 VLAN names over two lines). A list never closed (a capture cut short) takes in no line that opens
    or closes a block and no prompt: it is yielded alone (a SYS002) and the blocks after it are read at their depth."""
    held: tuple[int, str] | None = None
    for number, line in lines:
        if held is not None:
            if line.endswith(("{", "}")) or _PROMPT.match(line):
                yield held
            else:
                number, line = held[0], f"{held[1]} {line}"
            held = None
        bare = _QUOTED.sub("", line)
        if bare.rfind("[") > bare.rfind("]") and not bare.rstrip().endswith((";", "{", "}")):
            held = (number, line)
            continue
        yield number, line
    if held is not None:
        yield held


def _lines(inp: Input):
    """(number, text) of each line that is not a comment: `#` lines, `## ...` tails and `/* ... */` blocks (one line
    or several) are dropped, as Junos prints them around statements. One line at a time (a list of them all was
    about 60 bytes a line before a statement was made)."""
    in_block = False
    for number, raw in numbered_lines(inp.text):
        line = raw.strip()
        if in_block:
            if "*/" in line:
                in_block, line = False, line[line.index("*/") + 2:].strip()
            else:
                continue
        while line.startswith("/*"):
            if "*/" not in line:
                in_block, line = True, ""
                break
            line = line[line.index("*/") + 2:].strip()
        if "/*" in line:
            line, in_block = _tail_comments(line)
        if line and not line.startswith("#"):
            line = _strip_comment(line)
            if line:
                yield number, line


def _set_lines(inp: Input):
    """(source, words, line) of each `display set` line; words None when its quotes do not close. A configuration-
    mode session, as Juniper's guides print their examples (`[edit class-of-service]` / `user@switch# set
    forwarding-classes ...`), is read as the statements it makes (_Session)."""
    session = _Session()
    for number, line in _lines(inp):
        words = session.statement(line)
        if words is not _MOVED:
            yield Source(file=inp.path, line=number), words, line


# A configuration-mode prompt with a command typed at it (`user@switch# set ...`; `#` is configuration mode's prompt,
# Junos "Notational Conventions Used in Junos OS Configuration Hierarchies"), and the banner Junos prints on the line
# before each such prompt, naming the current hierarchy level (`[edit protocols ospf]`, `{master:0}[edit]`).
_CONFIG_TYPED = lazy(r"^[^\s@]+@[^\s>#%]+#\s+(\S.*)$")
# Operational mode's prompt with `configure` (or its synonym `edit`) typed: configuration mode starts, at the top.
_CONFIGURE = lazy(r"^[^\s@]+@[^\s>#%]+>\s+(?:configure|edit)(?:\s+(?:private|exclusive|dynamic|batch))?\s*$")
_BANNER = lazy(r"^(?:\{[^{}\s]*\})?\[edit(?:\s+([^\]]*))?\]$")
# Configuration-mode commands that leave the candidate configuration as it is (Junos CLI guide, "Configuration Mode
# Commands"): committing it, showing it, running an operational command, the session's status and help.
_SESSION_PASSIVE = frozenset({"commit", "run", "status", "help"})
# What the CLI answers on lines of their own in a session: entering and leaving configuration mode, a commit's
# outcome (Junos CLI guide, "Entering and Exiting Configuration Mode", "commit").
_SESSION_MESSAGES = frozenset({"Entering configuration mode", "Exiting configuration mode", "commit complete",
                               "configuration check succeeds",
                               "The configuration has been changed but not committed"})
_MOVED: list[str] = []  # what _Session.statement gives for a line that only moves the level or changes nothing


class _Session:
    """The hierarchy level a configuration-mode session is at, and the statements its commands make (Junos CLI
    guide, "Configuration Mode Commands"): `edit PATH` moves inside PATH; `up [N]` moves up one level (N levels), `top`
    to the top; `exit` (`quit`) returns to the level before the last `edit`, at the top it leaves configuration mode;
    `top` and `up` followed by a command run it at that level without moving; `set`, `delete`, `deactivate` and
    `activate` act on the path they name below the current level, so `set forwarding-classes ...` typed at `[edit
    class-of-service]` is `set class-of-service forwarding-classes ...`. The banner before each prompt names the level
    the switch is at, which stands over what the commands before it gave. A file of `display set` lines has no
    `edit` and stays at the top: each line is read as it is.

    A level is a statement, not a word: `unit 0` is one (`up` from `[edit interfaces et-0/0/1 unit 0]` is `[edit
    interfaces et-0/0/1]`), an interface's name another. Which words are one statement is the schema's, so `up` from
    a level deeper than two words leaves the level unknown (None) until a banner or `top` names it, and what is typed
    there is not read (_UNKNOWN_LEVEL).

    A line typed at no prompt is a command of the session only in a script, where the level came from lines typed at
    no prompt either (`edit class-of-service interfaces` then `set PORT ...`). Where a banner or a prompt gave the
    level, such a line is output: `show | display set` at `[edit interfaces]` prints whole paths (`set interfaces
    et-0/0/1 mtu 9216`), read as they are."""

    def __init__(self) -> None:
        self.level: list[str] | None = []
        self.before: list[list[str] | None] = []  # the levels each `edit` left, for `exit`
        self.script = False  # the level came from lines typed at no prompt

    def statement(self, line: str) -> list[str] | None:
        """The words of the statement ``line`` makes (None: its quotes do not close; _MOVED: none, the line moves
        the level or changes nothing); a line that is neither a command the session reads nor one typed at a
        configuration-mode prompt is given as it is (a prompt, a banner, a line not read)."""
        if line in _SESSION_MESSAGES:
            return _MOVED
        if _CONFIGURE.match(line):
            self.level, self.before, self.script = [], [], False
            return _MOVED
        banner = _BANNER.match(line)
        if banner:
            level = _split(banner.group(1) or "")
            if level is not None:
                self.level, self.script = level, False
        typed = _CONFIG_TYPED.match(line)
        words = _split(typed.group(1)) if typed and not banner else _split(line)
        if banner or words is None or not words or (not typed and words[0] in _VERBS and not self.script):
            return words
        level = self.level
        made = self.command(words)
        if made is _MOVED and self.level != level:
            self.script = not typed
        return made if made is not None else _split(line)

    def command(self, words: list[str]) -> list[str] | None:
        """The statement ``words`` make at the current level, _MOVED for a command that only moves it (`edit`, `up`,
        `top`, `exit`) or changes nothing, None for one the session does not read."""
        verb = words[0]
        if verb in _VERBS:
            return [_UNKNOWN_LEVEL, *words] if self.level is None else [verb, *self.level, *words[1:]]
        if verb in ("edit", "configure") and (len(words) == 1 or verb == "configure"):
            # (operational mode's `configure [private|exclusive]`, its synonym `edit`: configuration mode, at the top)
            self.level, self.before = [], []
            return _MOVED
        if verb == "edit":
            self.before.append(self.level)
            self.level = None if self.level is None else [*self.level, *words[1:]]
            return _MOVED
        if verb in ("top", "up"):
            count, rest = 1, words[1:]
            if verb == "up" and rest[:1] and is_small_int(rest[0]):
                count, rest = int(rest[0]), rest[1:]
            level = [] if verb == "top" else self.up(count)
            if not rest:  # (no `edit`: `exit` still returns to the level before the last one)
                self.level = level
                return _MOVED
            here, self.level = self.level, level
            made = self.command(rest)
            if rest[0] == "edit":  # (`top edit PATH` moves, and `exit` comes back here; `top set ...` stays)
                self.before[-1] = here
            else:
                self.level = here
            return made
        if verb in ("exit", "quit"):
            leave = words[1:] == ["configuration-mode"] or not self.before
            self.level = [] if leave else self.before.pop()
            self.before = [] if leave else self.before
            return _MOVED
        return _MOVED if verb in _SESSION_PASSIVE else None

    def up(self, count: int) -> list[str] | None:
        """The level ``count`` levels up: the top from a level of ``count`` words or fewer (a level is a word or
        more); one word up from two (a top-level statement is one word, and so is what its level holds: a container,
        an interface's or a group's name); from deeper, unknown."""
        if self.level is None or len(self.level) <= count:
            return None if self.level is None else []
        return self.level[:1] if len(self.level) == 2 and count == 1 else None


# The first word of a statement typed where the session's level is not known (_Session.up): not read.
_UNKNOWN_LEVEL = "(at an unknown level)"


# A `set`-form command (`load set` input) where the curly-brace form is read: Junos loads a file in one form
# (`load merge FILE` curly braces, `load set FILE` set commands: Junos CLI guide, "Loading a Configuration from a
# File"), so a file holding both is no configuration the switch would take as it is.
_SET_VERB = lazy(r"^(set|delete|deactivate|activate)\s")
_SET_AMONG_BRACES = ("line not read: a `set`-form command in a curly-brace configuration ({line}); Junos loads a file "
                     "in one form, so read the configuration as `show configuration | display set` and add the set "
                     "lines after it, or load the set lines on their own (`load set terminal`)")


# The tags a statement of the curly-brace form may carry before its words (Junos CLI user guide: `inactive:` from
# `deactivate`, `protect:` from `protect`, both in `show configuration`; `replace:` in a file for `load replace`, whose
# statement replaces the one of that name, and which Junos reads wherever it stands, on a line of its own too; in a
# file for `load merge` / `load replace`, "Loading a Configuration from a File": `delete:` deletes the statement (and,
# on a block, all below it), `active:` / `inactive:` activate / deactivate it, `protect:` / `unprotect:`).
_TAGS = frozenset({"inactive:", "protect:", "replace:", "delete:", "active:", "unprotect:"})


def _braces(inp: Input, issues: list[ParseIssue], keep_inactive: bool = False):
    """The curly-brace form flattened into the `set` statements `| display set` would print, each at the line of
    its `;`. Statements under `inactive:` are not applied by Junos and are left out; with keep_inactive they are
    kept as `display set` prints them: their `set` lines, then a `deactivate PATH` line where the inactive statement
    ends (Junos CLI guide, "deactivate": the statement keeps its place in the configuration with the inactive: tag)."""
    # (block words, inactive here or outside, inactive: on this block, deleted here or outside: its statements are gone)
    stack: list[tuple[list[str], bool, bool, bool]] = []
    tags: list[str] = []  # tags on a line of their own (`replace:` above `name-server {`): the next statement's
    number = 0
    for number, whole in _continued(_lines(inp)):
        src = Source(file=inp.path, line=number)
        if _PROMPT.match(whole):
            stack = []  # a pasted session: the next command's output starts at the top level again
            if _NEW_OUTPUT.match(whole) and (words := _split(whole)) is not None:
                yield src, words, whole  # (_line: the switch its prompt names)
            continue
        for line in _statements(whole):
            if _TAGS.issuperset(line.split()):
                tags.extend(line.split())
                continue
            if tags and line == "}":
                issues.append(ParseIssue(code="SYS002", source=src, message=(
                    f"`{' '.join(tags)}` tags no statement: a `}}` follows it (the tag was not read)")))
            elif tags:
                line = " ".join([*tags, line])
            tags = []
            if line == "}":
                if not stack:
                    issues.append(ParseIssue(code="SYS002", source=src, message="`}` closes no block"))
                else:
                    if keep_inactive and stack[-1][2]:
                        yield src, ["deactivate", *(w for block, *_ in stack for w in block)], line
                    stack.pop()
                continue
            body = line[:-1].strip() if line[-1] in "{;" else None
            if body is None:
                issues.append(ParseIssue(code="SYS002", source=src, message=(
                    _SET_AMONG_BRACES.format(line=line[:120]) if not stack and _SET_VERB.match(line) else
                    f"line not read (a statement ends with `;`, a block opens with `{{`): {line[:120]}")))
                continue
            words = _split(body)
            if words is None:
                yield src, None, line
                continue
            tagged = list(itertools.takewhile(_TAGS.__contains__, words))
            inactive, words = "inactive:" in tagged, words[len(tagged):]
            outside, gone = bool(stack and stack[-1][1]), bool(stack and stack[-1][3])
            deleted = "delete:" in tagged and not gone
            if deleted:  # (a `delete PATH` line, which _deleted applies to the statements before it)
                yield src, ["delete", *(w for block, *_ in stack for w in block), *words], line
            if line.endswith("{"):
                if len(stack) >= MAX_NESTING:  # (each statement spells out its blocks: depth x statements words)
                    raise InputError(f"blocks nested deeper than {MAX_NESTING} levels (Junos hierarchies are about ten "
                                     "deep); not read", file=inp.path, line=number)
                # (inactive: this block or one outside; deleted: the statements in it are deleted with it)
                stack.append((words, inactive or outside, inactive, deleted or gone))
            elif not (deleted or gone) and (keep_inactive or not (inactive or outside)):
                path = [w for block, *_ in stack for w in block]
                yield src, ["set", *path, *words], line
                if inactive and words:
                    yield src, ["deactivate", *path, *_leaf_name(words)], line
    if stack:
        issues.append(ParseIssue(code="SYS002", source=Source(file=inp.path, line=max(number, 1)), message=(
            f"the configuration ends inside {len(stack)} open block(s): it looks cut short")))


def _leaf_name(words: list[str]) -> list[str]:
    """A leaf statement's words without its value, as `deactivate` names it (`mtu 1500` -> `mtu`, `code-points
    [ 011010 000000 ]` -> `code-points`); a flag (`disable`) is its own name."""
    if words[-1] == "]" and "[" in words:
        return words[:words.index("[")]
    return words[:-1] if len(words) > 1 else words


def display_set(text: str) -> str:
    """A curly-brace configuration as `show configuration | display set` prints it, one `set` line per statement in
    order, an inactive statement's `set` lines followed by its `deactivate` line (so a fixed file keeps it, still not
    applied); a configuration of `set` lines as it is. Comments have no place in the set form and are left out.
    `fix` shows and checks its `set` snippet against this form: Junos loads a file in one form or the other, never
    both."""
    if not _BRACE_TOP.search(text):
        return text
    out = []
    for _, words, line in _braces(Input("", text), [], keep_inactive=True):
        out.append(line if words is None else " ".join(_quoted(w) for w in words))
    return "\n".join(out) + "\n"


_BARE_WORD = lazy(r"[^\s\"'\\;{}]+")


def _quoted(word: str) -> str:
    """A word as Junos prints it: bare, or in double quotes when it holds a space or a quote."""
    if _BARE_WORD.fullmatch(word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _line(cfg: JunosConfig, words: list[str], src: Source) -> None:
    if words[0] in ("deactivate", "delete", "activate"):
        cfg.hosts.typed(words)  # (`delete system host-name`: after the commit the prompt names the switch's default)
        return
    if words[0] == _UNKNOWN_LEVEL:
        raise _Skip("typed after `up` at a level the session does not show: no `[edit ...]` banner names it, and "
                    "which words `up` left is the schema's")
    if words[0] != "set":
        if _PROMPT.match(joined := " ".join(words)) and not _TYPED.match(joined):
            if _NEW_OUTPUT.match(joined):  # (the prompts _kept keeps)
                cfg.output_named = False
                cfg.hosts.prompt(prompt_host(PROMPT_HOST.match(joined)), src.line, joined)
            return  # prompts and banners around a pasted output
        raise _Skip("not a `set` line")
    top = words[1]
    if junos_host_name_path(words):
        # (a group's is not read: _GROUP_READ; a `set` script renaming the switch: the last value stands)
        host_name(cfg.host_names, words[3], src, renames=cfg.output_named)
        cfg.hosts.renamed(words[3])
        cfg.hostname, cfg.output_named = words[3], cfg.set_form
    elif top == "interfaces":
        _interface(cfg, words[2:], src)
    elif top == "class-of-service":
        _cos(cfg, words[2:], src)
    elif top == "vlans" and len(words) >= 5:
        _vlan(cfg, "", words[2:], src)
    elif top == "routing-instances" and words[3:4] == ["vlans"] and len(words) >= 7:
        _vlan(cfg, words[2], words[4:], src)
    elif top == "routing-instances" and words[3:4] == ["interface"] and len(words) >= 5:
        cfg.instance_of.setdefault(words[4].split(".")[0], words[2])
    elif top == "firewall":
        # `firewall [family F] filter NAME term T then forwarding-class C`: a multifield classifier (Junos CoS guide,
        # "Overview of Multifield Classifiers"); which ports it classifies is read from the interfaces binding it.
        w = words[2:]
        w = w[2:] if w[:1] == ["family"] else w
        if w[:1] == ["filter"] and len(w) > 6 and w[2] == "term" and w[4:6] == ["then", "forwarding-class"]:
            cfg.class_filters.setdefault(w[1], src)


def _interface(cfg: JunosConfig, w: list[str], src: Source) -> None:
    if w[0] == "interface-range":
        if w[1] not in cfg.ranges and len(cfg.ranges) >= MAX_RANGES:  # each port is checked against each range
            raise InputError(f"more than {MAX_RANGES:,} interface ranges (a generated file?); not read", file=src.file,
                             line=src.line)
        rng = cfg.ranges.setdefault(w[1], InterfaceRange(source=src))
        if w[2] == "member":
            rng.members.append(_member_pattern(w[3]))
            _range_add(cfg, rng, _member_names(w[3]), src, patterns=1)
        elif w[2] == "member-range" and w[4:5] == ["to"]:
            rng.ranges.append((w[3], w[5]))
            _range_add(cfg, rng, _range_names(w[3], w[5]), src)
        else:
            rng.settings = rng.settings or Interface(source=src)
            _interface_setting(rng.settings, w[2:], src)
        return
    if AGGREGATE.match(w[0]):
        _interface_setting(cfg.aggregates.setdefault(w[0], Interface(source=src)), w[1:], src)
        return
    if not PHYSICAL.match(w[0]):
        return
    _interface_setting(port_slot(cfg.interfaces, w[0], lambda: Interface(source=src), src), w[1:], src)


def _vlan(cfg: JunosConfig, instance: str, w: list[str], src: Source) -> None:
    """`vlans NAME vlan-id N | l3-interface irb.U | interface IF.U` at the top level or in routing instance
    ``instance`` (Junos `vlans` statement, hierarchy levels [edit vlans] and [edit routing-instances
    routing-instance-name vlans]: the EVPN-VXLAN virtual-switch and MAC-VRF instances of the EVPN User Guide hold
    their VLANs there; the IRB interface routes the VLAN: Junos "Understanding Integrated Routing and Bridging")."""
    key, what, value = (instance, w[0]), w[1], w[2]
    if what == "vlan-id":
        if value != "none":
            cfg.vlan_ids[key] = Val(_whole(value, 1, 4094), src)
    elif what == "l3-interface":
        cfg.vlan_l3[key] = Val(value, src)
    elif what == "interface":
        cfg.vlan_interfaces.setdefault(key, []).append(Val(value, src))


def _interface_setting(iface: Interface, w: list[str], src: Source) -> None:
    if w[0] == "unit" and len(w) >= 4 and w[2] == "family":
        iface.unit_families.add((w[1], w[3]))
    if w[0] == "description":
        iface.description = w[1]
    elif w[0] == "mtu":
        iface.mtu = Val(_whole(w[1], 256, 65535), src)
    elif w[0] == "speed":
        iface.speed_gbps = _speed(w[1])
    elif w[:2] == ["aggregated-ether-options", "link-speed"] and len(w) == 3 and w[2] != "mixed":
        # Junos "Configure Aggregated Ethernet Link Speed": `link-speed` on aeN is the speed of every member link
        # (`mixed`: members of several speeds, none of them known from it).
        iface.speed_gbps = _speed(w[2])
    elif w[0] == "disable":
        iface.disabled = src
    elif w[0] in ("vlan-tagging", "flexible-vlan-tagging", "stacked-vlan-tagging"):
        iface.vlan_tagging = True
    elif w[0] == "number-of-sub-ports" and _whole(w[1], 1, 16) > 1:
        iface.channelized = True
    elif (w[0] == "unit" and len(w) >= 7 and w[2] == "family" and w[3] in ("ethernet-switching", "inet", "inet6")
          and w[4] == "filter" and w[5] in ("input", "input-list")):
        # Junos "filter (Applying to an Interface)": `input NAME` is one filter (a later line replaces it), `input-list`
        # filters in order, each line adding to the list.
        key = (w[1], w[3], w[5])
        names = [Val(n, src) for n in _values(w, 6)]
        if w[5] == "input":
            iface.input_filters[key] = names[:1]
        else:
            iface.input_filters.setdefault(key, []).extend(names)
    elif w[0] in ("ether-options", "gigether-options") and w[1:2] == ["802.3ad"] and AGGREGATE.match(w[2]):
        iface.bundle = Val(w[2], src)  # (`802.3ad lacp ...`, `802.3ad primary|backup` say no aggregate)
    elif w[0] in ("ether-options", "gigether-options", "aggregated-ether-options") and w[1:] in (["flow-control"],
                                                                                                ["no-flow-control"]):
        # Junos "flow-control (Interfaces)": symmetric Ethernet PAUSE, on or off in both directions. Its default is the
        # platform's (QFX: off; EX, MX: on), so a port without the statement is not read.
        iface.pause_rx = iface.pause_tx = Val(w[1] == "flow-control", src)
    elif w[:2] == ["ether-options", "configured-flow-control"] and len(w) == 4 and w[3] in ("on", "off") \
            and w[2] in ("rx-buffers", "tx-buffers"):
        # Junos QFX "rx-buffers" (the interface sends PAUSE as its receive buffers fill) and "tx-buffers" (it stops
        # transmitting on a PAUSE received): asymmetric Ethernet PAUSE
        setattr(iface, "pause_tx" if w[2] == "rx-buffers" else "pause_rx", Val(w[3] == "on", src))
    elif w[0] == "unit" and w[2:4] == ["family", "ethernet-switching"] and w[4:5] in (["interface-mode"],
                                                                                     ["port-mode"]):
        iface.switching_mode = w[5]
    elif w[0] == "unit" and w[2:6] == ["family", "ethernet-switching", "vlan", "members"]:
        iface.vlan_members.extend(Val(v, src) for v in _values(w, 6))
    elif w[0] == "unit" and w[2] == "family" and w[3] in _PROTOCOL_MTU_FAMILIES and w[4:5] == ["mtu"]:
        iface.ip_mtus[(w[1], w[3])] = Val(_whole(w[5], 256, 65535), src)
    elif w[0] == "unit" and w[2:5] == ["family", "mpls", "maximum-labels"]:
        iface.mpls_labels[w[1]] = Val(_whole(w[5], *MPLS_LABELS), src)


_PROTOCOL_MTU_FAMILIES = ("inet", "inet6", "mpls", "iso")
# Junos "maximum-labels (edit interfaces unit family mpls)": the labels MPLS may operate on, 3 through 5, default 3.
MPLS_LABELS = (3, 5)
# RFC 3032: a label stack entry is 4 bytes.
MPLS_LABEL_BYTES = 4
# ISO rides Ethernet 802.3 (17 bytes of overhead) where IP rides Ethernet version 2 (14): Junos "Encapsulation
# Overhead by Encapsulation Type" (the 1497-byte ISO default under the 1514-byte media MTU).
ISO_EXTRA_BYTES = 17 - 14


def protocol_mtu_extra(iface: Interface, unit: str, family: str) -> int:
    """The bytes a unit's frame carries beyond an IP packet of its family's protocol MTU (counted as an IP MTU is,
    behind the Ethernet header). MPLS: Junos "Configuring the Media MTU" (MPLS MTU = media MTU - encapsulation
    overhead - 12) and Juniper KB32512 "Calculation of MPLS MTU": the MPLS MTU is the largest IP packet under the
    maximum number of labels the PFE may push, 4 bytes each, 3 unless the unit's `maximum-labels` says 4 or 5."""
    if family == "mpls":
        labels = iface.mpls_labels.get(unit)
        return MPLS_LABEL_BYTES * (labels.value if labels is not None else MPLS_LABELS[0])
    return ISO_EXTRA_BYTES if family == "iso" else 0


# Interface ranges of one config: far more than one per port group (a chassis has a few dozen).
MAX_RANGES = 1024


def _range_add(cfg: JunosConfig, rng: InterfaceRange, names: list[str], src: Source, patterns: int = 0) -> None:
    """Count what a range line adds: every port is later matched against every member pattern (a pattern
    counts as MAX_RANGES names)."""
    cfg.range_names += len(names) + patterns * MAX_RANGES
    check_expanded(cfg.range_names, src.file, src.line)  # bounded time and memory: a member may spell out 4,097 ports
    rng.names.extend(names)


_ESCAPED_RANGE = lazy(r"\\\[([0-9]{1,5})\\-([0-9]{1,5})\\\]")


def _member_pattern(text: str) -> Regex:
    """Junos interface-range member `et-0/0/[0-15]` or `et-0/0/*` as a regular expression, matched in linear time
    (losslessd.userre: `*0*0*0...` in Python's `re` took minutes on a port name of many zeros)."""
    out = re.escape(text).replace("\\*", ".*")

    def numbers(m: re.Match) -> str:
        low, high = int(m[1]), int(m[2])
        if high < low or high - low > 4096:
            raise _Skip(f"bad member range [{m[1]}-{m[2]}]")
        return "(?:" + "|".join(str(n) for n in range(low, high + 1)) + ")"
    try:
        return compile_linear(_ESCAPED_RANGE.sub(numbers, out))
    except ValueError as exc:  # (RE2's memory budget: a member of many ranges)
        raise _Skip(f"member {text[:80]}: {exc}") from None


_RANGE_WORD = lazy(r"(.*)\[([0-9]{1,5})-([0-9]{1,5})\](.*)")


def _member_names(text: str) -> list[str]:
    """The ports a member spells out: `et-0/0/[0-3]` four, `et-0/0/5` one, `et-0/0/*` none (it matches ports
    defined elsewhere)."""
    if "*" in text:
        return []
    m = _RANGE_WORD.fullmatch(text)  # (\d: other scripts' digits too)
    if m is None:
        return [text]
    return [f"{m[1]}{n}{m[4]}" for n in range(int(m[2]), min(int(m[3]), int(m[2]) + 4096) + 1)]


_PORT_NUMBER = lazy(r"([a-z]+-[0-9]+/[0-9]+/)([0-9]{1,5})")


def _range_names(low: str, high: str) -> list[str]:
    """`member-range et-0/0/10 to et-0/0/11`: the ports of one slot between the two."""
    a, b = (_PORT_NUMBER.fullmatch(n) for n in (low, high))
    if a is None or b is None or a[1] != b[1] or not 0 <= int(b[2]) - int(a[2]) <= 4096:
        raise _Skip(f"member-range {low} to {high} is not one slot's ports, first to last")
    return [f"{a[1]}{n}" for n in range(int(a[2]), int(b[2]) + 1)]


_SPEED_TEXT = lazy(r"[0-9.]+[gm]")


def _speed(text: str) -> float:
    """`speed 100g`, `25g`, `10m`: Gb/s."""
    if not _SPEED_TEXT.fullmatch(text.lower()):  # Junos writes g or m; units.speed_gbps reads the number
        raise _Skip(f"unknown speed {text!r}")
    try:
        return units.speed_gbps(text)
    except ValueError as exc:
        raise _Skip(str(exc)) from None


def _values(w: list[str], i: int) -> list[str]:
    """`[ a b ]` or one word at w[i]."""
    if w[i] == "[":
        end = w.index("]", i)
        return w[i + 1:end]
    return [w[i]]


# Junos CoS guide, "Default CoS Values and Aliases": the IEEE 802.1p aliases.
PCP_ALIASES = {"be": 0, "be1": 1, "ef": 2, "ef1": 3, "af11": 4, "af12": 5, "nc1": 6, "nc2": 7}


def _dscp(text: str) -> int:
    if _CODE6.match(text):
        return int(text, 2)
    if text in DSCP_ALIASES:
        return DSCP_ALIASES[text]
    raise _Skip(f"unknown DSCP code point {text!r}")


def _pcp(text: str) -> int:
    if _CODE3.match(text):
        return int(text, 2)
    if text in PCP_ALIASES:
        return PCP_ALIASES[text]
    raise _Skip(f"unknown IEEE 802.1p code point {text!r}")


def _decoder(cfg: JunosConfig, kind: str) -> Callable[[str], int]:
    """The code point reader of a classifier or rewrite rule TYPE, with the configuration's aliases of that type."""
    aliases = cfg.aliases.get(kind, {})
    read = {"dscp": _dscp, "dscp-ipv6": _dscp, "ieee-802.1": _pcp, "ieee-802.1ad": _pcp}.get(kind, _any_code)
    return lambda text: read(aliases.get(text, text))


def _number(text: str, low: float, high: float) -> float:
    """A number written plainly (digits, perhaps a decimal point) from ``low`` to ``high``: float() would also read
    '1e3', '1_000', 'nan' and other scripts' digits, which no Junos statement takes."""
    try:
        return units.decimal(text, low, high)
    except ValueError:
        raise _Skip(f"{text[:40]!r} is not a number {low:g}..{high:g}") from None


def _scaled(text: str, low: float, high: float) -> float:
    """A number with the k / m / g multiplier Junos numbers take (`buffer-size temporal 4m`: 4,000,000 us)."""
    scale = {"k": 1e3, "m": 1e6, "g": 1e9}.get(text[-1:], 1)
    try:
        return _number(text[:-1] if scale != 1 else text, low / scale, high / scale) * scale
    except _Skip:  # said in the statement's own unit, not the multiplier's
        raise _Skip(f"{text[:40]!r} is not a number {low:g}..{high:g} (k, m and g multiply it)") from None


def _whole(text: str, low: int, high: int) -> int:
    """A whole number (queue, priority, MTU, percent): '3.5' is refused, not cut to 3."""
    try:
        return units.whole(text, low, high)
    except ValueError:
        raise _Skip(f"{text[:40]!r} is not a whole number {low}..{high}") from None


# What a forwarding class takes, per platform (Junos CLI reference, `forwarding-classes`: QFX `pfc-priority`,
# `no-loss`, `queue-num N <no-loss>`; EX and SRX `priority high|low`, SRX `spu-priority`; MX `policing-priority`),
# each with the number of values after it.
_FC_WORDS = {"queue-num": 1, "no-loss": 0, "pfc-priority": 1, "priority": 1, "policing-priority": 1,
             "spu-priority": 1}


def _fc_unknown(rest: list[str]) -> str | None:
    """The first word of a `forwarding-classes class NAME ...` line no platform takes there, else None."""
    i = 0
    while i < len(rest):
        if rest[i] not in _FC_WORDS:
            return rest[i]
        i += 1 + _FC_WORDS[rest[i]]
    return None


def _cos(cfg: JunosConfig, w: list[str], src: Source) -> None:
    kind = w[0]
    if kind == "classifiers":
        _classifier(cfg, w, src)
    elif kind == "rewrite-rules":
        _rewrite_rule(cfg, w, src)
    elif kind == "forwarding-classes" and w[1] == "class":
        # forwarding-classes class FC queue-num N [no-loss] [pfc-priority P] [priority high|low] [policing-priority ..]
        fc = cfg.classes.get(w[2])
        rest = w[3:]
        if unknown := _fc_unknown(rest):
            raise _Skip(f"`{unknown}` is not a forwarding-class statement (ECN is a scheduler's "
                        "`explicit-congestion-notification`)" if unknown == "explicit-congestion-notification"
                        else f"`{unknown}` is not a forwarding-class statement losslessd knows")
        # (numbers first: a line skipped for a bad one changes no class)
        queue = _whole(rest[rest.index("queue-num") + 1], 0, 15) if "queue-num" in rest else None
        priority = _whole(rest[rest.index("pfc-priority") + 1], 0, 7) if "pfc-priority" in rest else None
        if fc is not None and fc.source is None:  # a line defining a default class: lossless only if it says `no-loss`
            fc.no_loss = False
        if queue is not None:
            fc = cfg.classes[w[2]] = ForwardingClass(queue, src, no_loss=fc.no_loss if fc else False,
                                                     pfc_priority=fc.pfc_priority if fc else None)
        if fc is None:
            raise _Skip(f"forwarding class {w[2]} has no queue-num")
        fc.source = fc.source or src
        if "no-loss" in rest:
            fc.no_loss = True
        if priority is not None:
            fc.pfc_priority = Val(priority, src)
    elif kind == "forwarding-classes" and w[1] == "queue":
        # forwarding-classes queue N FC [priority high|low]: the older one-class-per-queue form
        cfg.classes[w[3]] = ForwardingClass(_whole(w[2], 0, 15), src)
    elif kind == "congestion-notification-profile":
        _cnp(cfg.cnps.setdefault(w[1], Cnp(source=src)), w[2:], src)
    elif kind == "drop-profiles":
        _drop_profile(cfg.drop_profiles.setdefault(w[1], DropProfile(source=src)), w[2:], src)
    elif kind == "schedulers":
        _scheduler(cfg.schedulers.setdefault(w[1], SchedulerConf(source=src)), w[2:], src)
    elif kind == "scheduler-maps" and w[2] == "forwarding-class" and w[4] == "scheduler":
        cfg.scheduler_maps.setdefault(w[1], {})[w[3]] = Val(w[5], src)
    elif kind == "traffic-control-profiles" and w[2] == "scheduler-map":
        cfg.traffic_control_profiles[w[1]] = Val(w[3], src)
    elif kind == "interfaces":
        _cos_interface(port_slot(cfg.cos_interfaces, w[1], lambda: CosInterface(source=src), src), w[2:], src)
    elif kind not in _IGNORED_COS:
        raise _Skip("not part of the RoCE checks yet")


def _defined(cfg: JunosConfig, kind: str, name: str, src: Source) -> None:
    """Classifier ``kind`` ``name`` is defined, a statement of it at ``src`` (JunosConfig.defined: the configuration
    group it takes a statement from, once one does)."""
    cfg.defined[(kind, name)] = cfg.defined.get((kind, name)) or cfg.inherited.get((src.file, src.line), "")


def _classifier(cfg: JunosConfig, w: list[str], src: Source) -> None:
    """classifiers TYPE NAME forwarding-class FC loss-priority LP code-points [ ... ], or `import default|OTHER`."""
    kind = w[1]
    if kind not in _CODE_TYPES:
        raise _Skip(f"unknown classifier type {kind!r}")
    _defined(cfg, kind, w[2], src)
    if w[3] == "import":
        cfg.imports[(kind, w[2])] = Val(w[4], src)
        return
    if w[3] != "forwarding-class" or "code-points" not in w:
        raise _Skip("unknown classifier statement")
    table = {"dscp": cfg.dscp_classifiers, "dscp-ipv6": cfg.dscp6_classifiers, "ieee-802.1": cfg.pcp_classifiers}.get(kind)
    decode = _decoder(cfg, kind)
    codes = [decode(code) for code in _values(w, w.index("code-points") + 1)]
    if table is None:
        return
    entries = table.setdefault(w[2], {})
    loss = w[w.index("loss-priority") + 1] if "loss-priority" in w else None
    for text, code in zip(_values(w, w.index("code-points") + 1), codes, strict=True):
        before = cfg.entries.get((kind, w[2], code))
        if before is not None and before[:2] != (w[4], loss):
            _two_entries(cfg, kind, w[2], before, (w[4], loss, src, text))
        cfg.entries[(kind, w[2], code)] = (w[4], loss, src, text)
        entries[code] = Val(w[4], src)


def _two_entries(cfg: JunosConfig, kind: str, name: str, before: tuple[str, str | None, Source, str],
                 now: tuple[str, str | None, Source, str]) -> None:
    """SYS002 on the later of two entries of one code point in one classifier. A classifier gives each code point one
    forwarding class and loss priority, so one of the lines is a mistake, whichever the switch would keep; no Juniper
    document found says whether a commit refuses the pair or which entry classifies. The later one is read (as a
    later `set` of one value is); the message names both and the `delete` that leaves the read one alone."""
    (old_fc, old_lp, old_src, old_text), (fc, lp, src, text) = before, now
    where = f"line {old_src.line}" if old_src.file == src.file else f"{old_src.file} line {old_src.line}"
    what = f"forwarding class {old_fc}" + (f" loss-priority {old_lp}" if old_lp else "")
    delete = f"delete class-of-service classifiers {kind} {name} forwarding-class {old_fc}" + (
        f" loss-priority {old_lp}" if old_lp else "") + f" code-points {old_text}"
    cfg.issues.append(ParseIssue(code="SYS002", source=src, message=(
        f"{kind} code point {text} of classifier {name} is also listed under {what} ({where}): a classifier gives a "
        f"code point one forwarding class and loss priority, so one entry is a mistake; losslessd reads this one ({fc}"
        f"{f' loss-priority {lp}' if lp else ''}); remove the wrong one (to keep this one: `{delete}`)")))


def _rewrite_rule(cfg: JunosConfig, w: list[str], src: Source) -> None:
    """rewrite-rules TYPE NAME forwarding-class FC loss-priority LP code-point X (or `import default|OTHER`). The
    DSCP rules (loss priority low, how RoCE is classified) feed Port.tc_to_dscp_rewrite; the others are read."""
    kind = w[1]
    if kind not in _CODE_TYPES:
        raise _Skip(f"unknown rewrite-rule type {kind!r}")
    if w[3] == "import":
        cfg.imports[("rewrite " + kind, w[2])] = Val(w[4], src)
        return
    if w[3] != "forwarding-class" or "code-point" not in w:
        raise _Skip("unknown rewrite-rule statement")
    code = w[w.index("code-point") + 1]
    loss = w[w.index("loss-priority") + 1] if "loss-priority" in w else "low"
    value = _decoder(cfg, kind)(code)
    if kind == "dscp" and loss == "low":
        cfg.dscp_rewrites.setdefault(w[2], {})[w[4]] = Val(value, src)


_NAME_WORD = lazy(r"[a-z][a-z0-9-]*", re.IGNORECASE)


def _any_code(text: str) -> int:
    """An MPLS EXP or IP precedence code point: 3 bits, or a Junos alias (read and left out)."""
    if _CODE3.match(text):
        return int(text, 2)
    if _NAME_WORD.fullmatch(text):
        return -1
    raise _Skip(f"unknown code point {text!r}")


def _cnp(cnp: Cnp, w: list[str], src: Source) -> None:
    if w[:3] in (["input", "dscp", "code-point"], ["input", "ieee-802.1", "code-point"]):
        _cnp_input(cnp, w, src)
    elif w[:3] == ["output", "ieee-802.1", "code-point"] and w[4:5] == ["flow-control-queue"]:
        queues = cnp.flow_control_queue.setdefault(_pcp(w[3]), [])
        queues.extend(q for q in (_whole(v, 0, 11) for v in _values(w, 5)) if q not in queues)
    elif w[0] == "pfc-watchdog":
        cnp.watchdog = cnp.watchdog or src
        if len(w) > 1:
            if w[1] in WATCHDOG_DEFAULTS:
                cnp.wd[w[1]] = Val(_number(w[2], 1, 600_000), src)
            elif w[1] == "watchdog-action":
                cnp.wd["action"] = Val(w[2], src)
            else:
                raise _Skip(f"unknown pfc-watchdog option {w[1]!r}")
    elif w[:2] == ["input", "cable-length"] and len(w) == 3:
        # Junos "cable-length (Congestion Notification)": metres, the switch sizes PFC headroom from it.
        cnp.cable_length = Val(_number(w[2], 1, 1_000_000), src)
    else:
        raise _Skip("unknown congestion-notification-profile statement")


def _cnp_input(cnp: Cnp, w: list[str], src: Source) -> None:
    """`input dscp|ieee-802.1 code-point BITS pfc [mru N]` and `... code-point BITS xon N`. Junos CLI reference,
    "congestion-notification-profile": `input { (dscp | ieee-802.1) { code-point [code-point-bits] { pfc { mru
    mru-value; } xon value; } } }`, one code point or a bracketed list of them, each paused; the MRU and the XON
    threshold (headroom sizing) are not part of the model, and an `xon` alone pauses nothing. Any other form is named
    (its profile's PFC then unknown), never passed over as if it said nothing."""
    dscp = w[1] == "dscp"
    if w[3:4] == ["["]:
        if "]" not in w[4:]:
            raise _Skip("the code-point list has no closing `]`")
        codes, rest = w[4:w.index("]", 4)], w[w.index("]", 4) + 1:]
    else:
        codes, rest = w[3:4], w[4:]
    decode = _dscp if dscp else _pcp
    if codes and rest[:1] == ["xon"] and len(rest) == 2:
        # Junos CLI reference, "xon (Input Congestion Notification)": offset cells, Range: 0-100000.
        _number(rest[1], 0, 100_000)
        for bits in codes:  # (a code point the switch refuses is named)
            decode(bits)
        return
    if not codes or rest[:1] != ["pfc"] or not (len(rest) == 1 or (len(rest) == 3 and rest[1] == "mru")):
        raise _Skip("expected `input dscp|ieee-802.1 code-point BITS pfc [mru N]` or `... code-point BITS xon N`")
    table = cnp.dscp if dscp else cnp.pcp
    for code in [decode(code) for code in codes]:  # (all decoded first: a bad one leaves the profile unknown)
        table[code] = src


def _drop_profile(profile: DropProfile, w: list[str], src: Source) -> None:
    """`interpolate fill-level [ .. ]` and `interpolate drop-probability [ .. ]` (one line each in the set form,
    paired in order when built), or segmented `fill-level F drop-probability P` points. One `set` line may give
    both lists, and a list one value at a time (QFX CoS guide, "Configuring Drop Profiles": `interpolate fill-level
    25 fill-level 50 drop-probability 0 drop-probability 80`)."""
    if w[0] == "interpolate" and w[1:2] and w[1] in ("fill-level", "drop-probability"):
        i = 1
        while i < len(w):
            if w[i] not in ("fill-level", "drop-probability") or i + 1 >= len(w):
                raise _Skip(f"expected fill-level or drop-probability and its values, not {w[i]!r}")
            values = _values(w, i + 1)
            (profile.fills if w[i] == "fill-level" else profile.probs).extend(_number(v, 0, 100) for v in values)
            i += 1 + (len(values) + 2 if w[i + 1] == "[" else 1)
    elif w[0] == "fill-level" and w[2] == "drop-probability":
        profile.points.append((_number(w[1], 0, 100), _number(w[3], 0, 100)))
    else:
        raise _Skip("unknown drop-profile statement")


# The scheduler statements that give a queue its bandwidth and buffer share (Junos CoS guide, "schedulers":
# transmit-rate (percent N | RATE | remainder) [exact | rate-limit], shaping-rate (percent N | RATE), excess-rate
# (percent N | proportion N), excess-priority (low | medium-low | medium-high | high | none), buffer-size
# (percent N | remainder | shared | temporal N) [exact]), shaping-rate's burst-size, and the words they take: a number
# with an optional k/m/g rate unit.
RATE_STATEMENTS = frozenset({"transmit-rate", "shaping-rate", "excess-rate", "excess-priority", "buffer-size",
                             "buffer-rate"})
_RATE_MODIFIERS = frozenset({"exact", "rate-limit"})
_RATE_WORD = lazy(r"(?:percent|remainder|shared|temporal|proportion|exact|rate-limit|burst-size|low|medium-low"
                  r"|medium-high|high|none|\d{1,12}(?:\.\d{1,6})?[kmgKMG]?)")


def _keep_rate(sched: SchedulerConf, w: list[str]) -> None:
    """Keep a rate or buffer statement as written (a snippet's new scheduler restates it); one with a word of no
    such statement is not read (its scheduler's settings are then unknown)."""
    if len(w) < 2 or not all(_RATE_WORD.fullmatch(x) for x in w[1:]):
        raise _Skip(f"unknown {w[0]} value {' '.join(w[1:])!r}")
    sched.rates[(w[0], len(w) == 2 and w[1] in _RATE_MODIFIERS)] = " ".join(w)


def _scheduler(sched: SchedulerConf, w: list[str], src: Source) -> None:
    if w[0] == "priority":  # one value: a later `priority` line replaces the earlier one
        if w[1] not in SCHEDULER_PRIORITIES:
            raise _Skip(f"unknown scheduler priority {w[1]!r}")
        sched.strict = src if w[1] in STRICT_PRIORITIES else None
        sched.priority = Val(w[1], src)
        # a level of the guaranteed-rate region is kept with the rates (a snippet decides only strict or not)
        sched.rates.pop(("priority", False), None)
        if not sched.strict:
            sched.rates[("priority", False)] = f"priority {w[1]}"
    elif w[0] == "transmit-rate":
        # transmit-rate (percent N | RATE | remainder) [exact | rate-limit]: only a percent is a share to show
        if not (len(w) == 2 and w[1] in _RATE_MODIFIERS):  # (`transmit-rate exact` alone keeps the rate)
            sched.rate_pct = _whole(w[2], 0, 100) if w[1] == "percent" else None
        if w[-1] in ("exact", "rate-limit"):  # Junos CoS guide, "transmit-rate": exact / rate-limit cap the queue
            sched.shaped = src
    elif w[0] == "shaping-rate":
        sched.shaped = src
    elif w[0] == "explicit-congestion-notification":
        sched.ecn = src
    elif w[0] == "drop-profile-map":
        # drop-profile-map loss-priority (low|any|...) protocol any drop-profile NAME: RoCE is classified low.
        if w[2] in ("low", "any"):
            sched.drop_profile = Val(w[w.index("drop-profile") + 1], src)
    elif w[0] == "buffer-size":
        # buffer-size (percent N | remainder | temporal MICROSECONDS | exact): one choice, the later line wins. Only
        # the temporal size is bytes the configuration gives (line rate x time; Junos CoS guide, "buffer-size").
        sched.buffer_us = Val(_scaled(w[2], 1, 10_000_000), src) if w[1] == "temporal" else None
    elif w[0] == "buffer-rate":
        # Junos CLI reference, "buffer-rate (Schedulers)" (Junos OS Evolved 24.4R1): `buffer-rate (percent P | RATE)`,
        # the base rate of the buffer size calculation, i.e. the VOQ target rate (the lesser of it and the calculated
        # shaping rate; without it the transmit rate, else the calculated shaping rate). A temporal `buffer-size` is
        # bytes at that rate, which the configuration does not give in bits per second (build._ecn). Its percent is
        # 0 through 100 (the same page's "Range"), read as transmit-rate's.
        if len(w) == 3 and w[1] == "percent":
            sched.buffer_rate = Val(f"percent {_whole(w[2], 0, 100)}", src)
        elif len(w) == 2 and w[1] != "percent":
            sched.buffer_rate = Val(w[1], src)
        else:
            raise _Skip("expected `buffer-rate percent P` or `buffer-rate RATE`")
    elif w[0] == "ecn-enhanced":
        # (`ecn-enhanced { head-marking; }`: the HPE/Juniper PTX long-distance RoCE design.) No Junos page read
        # documents it; the CoS guide's ECN is the scheduler's `explicit-congestion-notification`.
        raise _Skip("`ecn-enhanced` is in no Junos document losslessd read (the CoS guide marks ECN with the "
                    "scheduler's `explicit-congestion-notification` and its drop profile's fill levels): could not "
                    "verify what it changes (where in the queue a packet is marked, or whether it marks), so the "
                    "queue's ECN marking is left unknown")
    elif w[0] not in ("excess-rate", "excess-priority", "buffer-dynamic-threshold", "adjust-minimum",
                      "adjust-percent", "drop-profile-map-set", "rate-limit"):
        # buffer-dynamic-threshold: the queue's share of the shared buffer (QFX5130/5220 EVO), not modelled
        raise _Skip("unknown scheduler statement")
    if w[0] in RATE_STATEMENTS:  # (after the statement's own checks, whose messages say more)
        _keep_rate(sched, w)


def _cos_interface(conf: CosInterface, w: list[str], src: Source) -> None:
    unit = bool(w[:2]) and w[0] == "unit"
    number = w[1] if unit else ""
    if unit:
        w = w[2:]  # `unit 0 classifiers dscp NAME`, `unit * ...`
    if not w:
        return
    if w[0] == "congestion-notification-profile":
        conf.cnp = Val(w[1], src)
    elif w[0] == "scheduler-map":
        conf.scheduler_map = Val(w[1], src)
    elif w[0] == "forwarding-class-set" and "output-traffic-control-profile" in w:
        # Junos CoS guide, "Hierarchical Port Scheduling (ETS)": a port takes several forwarding-class-sets (priority
        # groups), each with its own output traffic-control-profile; every one of them schedules its classes.
        conf.traffic_control_profiles[w[1]] = Val(w[w.index("output-traffic-control-profile") + 1], src)
    elif w[0] == "output-traffic-control-profile":
        conf.traffic_control_profiles[""] = Val(w[1], src)
    elif w[0] == "classifiers" and w[1] in _CODE_TYPES:
        attr = CLASSIFIER_ATTRS.get(w[1])
        if attr is not None:
            val = Val(w[2], src)
            setattr(conf, attr, val)
            port_level, unit_level = conf.levels.get(attr, (None, None))
            conf.levels[attr] = (port_level, val) if unit else (val, unit_level)
            if unit:
                conf.units.setdefault(attr, {})[number] = val
    elif w[0] == "rewrite-rules" and w[1] in _CODE_TYPES:
        if w[1] == "dscp":
            conf.dscp_rewrite = Val(w[2], src)
    elif w[0] not in ("shaping-rate", "forwarding-class", "forwarding-class-set", "input-scheduler-map", "description",
                      "input-shaping-rate", "input-traffic-control-profile", "scheduler-map-chassis",
                      "loss-priority-maps", "exclude-queue-overhead-bytes"):
        raise _Skip("unknown class-of-service interface statement")
