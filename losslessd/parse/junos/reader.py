"""Read `set` lines (or the curly-brace form, flattened into them) into the named class-of-service objects and
interface settings, each with its line.

Lines outside class-of-service, interfaces and the host name are skipped without a word; a
class-of-service line that is not read (or cannot be) becomes a SYS002 issue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...model import ParseIssue, Source
from ..base import Input, port_slot, shell_words
from ..clitext import Val

# Physical Ethernet ports (et = 40G and faster, xe = 10G, ge / mge = 1G; `:N` a channelized lane).
PHYSICAL = re.compile(r"^(et|xe|ge|mge)-\d+/\d+/\d+(:\d+)?$")
# The curly-brace form: a top-level hierarchy opening a block.
_BRACE_TOP = re.compile(r"^(system|interfaces|class-of-service|chassis|protocols)\s*\{\s*$", re.MULTILINE)
_CODE6 = re.compile(r"^[01]{6}$")
_CODE3 = re.compile(r"^[01]{3}$")
# Junos standard DSCP aliases (Junos CoS guide, "Default DSCP aliases"): be, efN, afXY = 8X + 2Y, csN = 8N,
# nc1 = cs6, nc2 = cs7.
DSCP_ALIASES = {"be": 0, "ef": 46, "nc1": 48, "nc2": 56, **{f"cs{n}": 8 * n for n in range(8)},
                **{f"af{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)}}
# QFX default forwarding classes and their queues (Junos "Default forwarding classes" for the QFX Series).
DEFAULT_CLASSES = {"best-effort": 0, "fcoe": 3, "no-loss": 4, "network-control": 7}
# PFC watchdog defaults when `pfc-watchdog` has no options: poll every 100 ms, detection after 2 polls,
# recovery 200 ms (Junos CoS guide, "PFC Watchdog").
WATCHDOG_DEFAULTS = {"poll-interval": 100, "detection": 2, "recovery": 200}
# Statements read into the model; any other `set class-of-service` line is reported as not read.
# (`traffic-control-profiles` lines other than its scheduler-map: shaping and guaranteed rates.)
_IGNORED_COS = ("host-outbound-traffic", "shared-buffer", "rewrite-rules", "forwarding-class-sets", "multi-destination",
                "traffic-control-profiles")


@dataclass
class ForwardingClass:
    queue: int
    source: Source | None = None
    no_loss: bool = False
    pfc_priority: Val | None = None


@dataclass
class Cnp:
    """A congestion-notification-profile: PFC code points and the PFC watchdog."""

    source: Source
    dscp: dict[int, Source] = field(default_factory=dict)  # `input dscp code-point X pfc`
    pcp: dict[int, Source] = field(default_factory=dict)  # `input ieee-802.1 code-point X pfc`
    # `output ieee-802.1 code-point P flow-control-queue Q`: the queue a received pause for P stops
    flow_control_queue: dict[int, int] = field(default_factory=dict)
    watchdog: Source | None = None
    wd: dict[str, Val] = field(default_factory=dict)  # WATCHDOG_DEFAULTS keys, and "action"


@dataclass
class DropProfile:
    source: Source
    fills: list[float] = field(default_factory=list)  # interpolate fill-level, percent of the queue buffer
    probs: list[float] = field(default_factory=list)  # interpolate drop-probability, percent
    points: list[tuple[float, float]] = field(default_factory=list)  # segmented (fill-level, drop-probability)


@dataclass
class SchedulerConf:
    source: Source
    strict: Source | None = None  # `priority strict-high`
    rate_pct: int | None = None  # `transmit-rate percent N`
    ecn: Source | None = None  # `explicit-congestion-notification`
    drop_profile: Val | None = None  # the drop-profile-map for loss-priority low (or any)
    buffer_us: Val | None = None  # `buffer-size temporal N`: the queue buffer drains in N microseconds at line rate


@dataclass
class CosInterface:
    source: Source
    cnp: Val | None = None
    scheduler_map: Val | None = None
    traffic_control_profile: Val | None = None
    dscp_classifier: Val | None = None
    pcp_classifier: Val | None = None


@dataclass
class Interface:
    source: Source
    description: str | None = None
    mtu: Val | None = None
    speed_gbps: float | None = None
    disabled: Source | None = None


@dataclass
class JunosConfig:
    hostname: str | None = None
    interfaces: dict[str, Interface] = field(default_factory=dict)
    cos_interfaces: dict[str, CosInterface] = field(default_factory=dict)  # name or wildcard pattern
    classes: dict[str, ForwardingClass] = field(
        default_factory=lambda: {name: ForwardingClass(queue) for name, queue in DEFAULT_CLASSES.items()})
    dscp_classifiers: dict[str, dict[int, Val]] = field(default_factory=dict)  # DSCP -> forwarding class
    pcp_classifiers: dict[str, dict[int, Val]] = field(default_factory=dict)
    cnps: dict[str, Cnp] = field(default_factory=dict)
    drop_profiles: dict[str, DropProfile] = field(default_factory=dict)
    schedulers: dict[str, SchedulerConf] = field(default_factory=dict)
    scheduler_maps: dict[str, dict[str, Val]] = field(default_factory=dict)  # forwarding class -> scheduler
    traffic_control_profiles: dict[str, Val] = field(default_factory=dict)  # name -> scheduler-map


class _Skip(Exception):
    """This line cannot be read: becomes a SYS002 issue with the message."""


def read(inputs: list[Input], issues: list[ParseIssue]) -> JunosConfig:
    cfg = JunosConfig()
    for inp in inputs:
        statements = list(_braces(inp, issues) if _BRACE_TOP.search(inp.text) else _set_lines(inp))
        # `deactivate X` keeps X in the configuration but Junos does not apply it.
        inactive = [w[1:] for _, w, _ in statements if w and w[0] == "deactivate"]
        for src, words, line in statements:
            try:
                if words is None:
                    raise _Skip("unbalanced quotes")
                if words[0] == "set" and any(words[1:len(p) + 1] == p for p in inactive):
                    continue
                _line(cfg, words, src)
            except (_Skip, IndexError, ValueError) as exc:
                reason = "incomplete statement" if isinstance(exc, IndexError) else str(exc)
                issues.append(ParseIssue(code="SYS002", source=src, message=f"line not read ({reason}): {line[:120]}"))
    return cfg


def _split(line: str) -> list[str] | None:
    try:
        return shell_words(line)
    except ValueError:
        return None


def _set_lines(inp: Input):
    """(source, words, line) of each `display set` line; words None when its quotes do not close."""
    for number, raw in enumerate(inp.text.split("\n"), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield Source(file=inp.path, line=number), _split(line), line


def _braces(inp: Input, issues: list[ParseIssue]):
    """The curly-brace form flattened into the `set` statements `| display set` would print, each at the line of
    its `;`. Statements under `inactive:` are not applied by Junos and are left out."""
    stack: list[tuple[list[str], bool]] = []
    number = 0
    for number, raw in enumerate(inp.text.split("\n"), start=1):
        line = raw.strip()
        src = Source(file=inp.path, line=number)
        if not line or line.startswith(("#", "/*")):
            continue
        if line == "}":
            if not stack:
                issues.append(ParseIssue(code="SYS002", source=src, message="`}` closes no block"))
            else:
                stack.pop()
            continue
        body = line[:-1].strip() if line[-1] in "{;" else None
        if body is None:
            issues.append(ParseIssue(code="SYS002", source=src, message=(
                f"line not read (a statement ends with `;`, a block opens with `{{`): {line[:120]}")))
            continue
        words = _split(body)
        if words is None:
            yield src, None, line
            continue
        inactive = bool(words) and words[0] == "inactive:"
        words = [w for w in words if w not in ("inactive:", "protect:")]
        if line.endswith("{"):
            stack.append((words, inactive or any(i for _, i in stack)))
        elif not inactive and not any(i for _, i in stack):
            yield src, ["set", *(w for block, _ in stack for w in block), *words], line
    if stack:
        issues.append(ParseIssue(code="SYS002", source=Source(file=inp.path, line=max(number, 1)), message=(
            f"the configuration ends inside {len(stack)} open block(s): it looks cut short")))


def _line(cfg: JunosConfig, words: list[str], src: Source) -> None:
    if words[0] in ("deactivate", "delete", "activate"):
        return
    if words[0] != "set":
        if re.match(r"^(show|\{master|\{backup|\[edit)", " ".join(words)):
            return  # prompts and banners around a pasted output
        raise _Skip("not a `set` line")
    top = words[1]
    if top == "system" and words[2:3] == ["host-name"]:
        cfg.hostname = words[3]
    elif top == "interfaces":
        _interface(cfg, words[2:], src)
    elif top == "class-of-service":
        _cos(cfg, words[2:], src)


def _interface(cfg: JunosConfig, w: list[str], src: Source) -> None:
    if not PHYSICAL.match(w[0]):
        return
    iface = port_slot(cfg.interfaces, w[0], lambda: Interface(source=src), src)
    if w[1] == "description":
        iface.description = w[2]
    elif w[1] == "mtu":
        iface.mtu = Val(int(w[2]), src)
    elif w[1] == "speed":
        iface.speed_gbps = _speed(w[2])
    elif w[1] == "disable":
        iface.disabled = src


def _speed(text: str) -> float:
    """`speed 100g`, `25g`, `10m`: Gb/s."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([gm])", text.lower())
    if not m:
        raise _Skip(f"unknown speed {text!r}")
    return float(m[1]) / (1000 if m[2] == "m" else 1)


def _values(w: list[str], i: int) -> list[str]:
    """`[ a b ]` or one word at w[i]."""
    if w[i] == "[":
        end = w.index("]", i)
        return w[i + 1:end]
    return [w[i]]


def _dscp(text: str) -> int:
    if _CODE6.match(text):
        return int(text, 2)
    if text in DSCP_ALIASES:
        return DSCP_ALIASES[text]
    raise _Skip(f"unknown DSCP code point {text!r}")


def _pcp(text: str) -> int:
    if _CODE3.match(text):
        return int(text, 2)
    raise _Skip(f"unknown IEEE 802.1p code point {text!r}")


def _number(text: str, low: float, high: float) -> float:
    value = float(text)
    if not low <= value <= high:
        raise _Skip(f"{text} is outside {low:g}..{high:g}")
    return value


def _cos(cfg: JunosConfig, w: list[str], src: Source) -> None:
    kind = w[0]
    if kind == "classifiers":
        # classifiers (dscp|ieee-802.1) NAME forwarding-class FC loss-priority LP code-points [ ... ]
        table = {"dscp": cfg.dscp_classifiers, "ieee-802.1": cfg.pcp_classifiers}.get(w[1])
        if table is None or w[3] != "forwarding-class" or "code-points" not in w:
            raise _Skip("unknown classifier statement")
        decode = _dscp if w[1] == "dscp" else _pcp
        codes = [decode(code) for code in _values(w, w.index("code-points") + 1)]
        table.setdefault(w[2], {}).update({code: Val(w[4], src) for code in codes})
    elif kind == "forwarding-classes" and w[1] == "class":
        # forwarding-classes class FC queue-num N [no-loss] [pfc-priority P]
        fc = cfg.classes.get(w[2])
        rest = w[3:]
        if "queue-num" in rest:
            queue = int(_number(rest[rest.index("queue-num") + 1], 0, 11))
            fc = cfg.classes[w[2]] = ForwardingClass(int(queue), src, no_loss=fc.no_loss if fc else False,
                                                     pfc_priority=fc.pfc_priority if fc else None)
        if fc is None:
            raise _Skip(f"forwarding class {w[2]} has no queue-num")
        fc.source = fc.source or src
        if "no-loss" in rest:
            fc.no_loss = True
        if "pfc-priority" in rest:
            fc.pfc_priority = Val(int(_number(rest[rest.index("pfc-priority") + 1], 0, 7)), src)
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


def _cnp(cnp: Cnp, w: list[str], src: Source) -> None:
    if w[:3] == ["input", "dscp", "code-point"] and w[4] == "pfc":
        cnp.dscp[_dscp(w[3])] = src
    elif w[:3] == ["input", "ieee-802.1", "code-point"] and w[4] == "pfc":
        cnp.pcp[_pcp(w[3])] = src
    elif w[:3] == ["output", "ieee-802.1", "code-point"] and w[4] == "flow-control-queue":
        for queue in _values(w, 5):
            cnp.flow_control_queue[_pcp(w[3])] = int(_number(queue, 0, 11))
    elif w[0] == "pfc-watchdog":
        cnp.watchdog = cnp.watchdog or src
        if len(w) > 1:
            if w[1] in WATCHDOG_DEFAULTS:
                cnp.wd[w[1]] = Val(_number(w[2], 1, 600_000), src)
            elif w[1] == "watchdog-action":
                cnp.wd["action"] = Val(w[2], src)
            else:
                raise _Skip(f"unknown pfc-watchdog option {w[1]!r}")
    elif w[:2] == ["input", "cable-length"] or w[0] == "input" and w[1:3] == ["ieee-802.1", "code-point"]:
        return  # cable length / MRU: not part of the model
    else:
        raise _Skip("unknown congestion-notification-profile statement")


def _drop_profile(profile: DropProfile, w: list[str], src: Source) -> None:
    """`interpolate fill-level [ .. ]` and `interpolate drop-probability [ .. ]` (one line each in the set form,
    paired in order when built), or segmented `fill-level F drop-probability P` points."""
    if w[0] == "interpolate" and w[1] in ("fill-level", "drop-probability"):
        target = profile.fills if w[1] == "fill-level" else profile.probs
        target.extend(_number(v, 0, 100) for v in _values(w, 2))
    elif w[0] == "fill-level" and w[2] == "drop-probability":
        profile.points.append((_number(w[1], 0, 100), _number(w[3], 0, 100)))
    else:
        raise _Skip("unknown drop-profile statement")


def _scheduler(sched: SchedulerConf, w: list[str], src: Source) -> None:
    if w[0] == "priority":  # one value: a later `priority` line replaces the earlier one
        if w[1] not in ("strict-high", "low"):
            raise _Skip(f"unknown scheduler priority {w[1]!r}")
        sched.strict = src if w[1] == "strict-high" else None
    elif w[0] == "transmit-rate":
        if w[1] == "percent":
            sched.rate_pct = int(_number(w[2], 0, 100))
    elif w[0] == "explicit-congestion-notification":
        sched.ecn = src
    elif w[0] == "drop-profile-map":
        # drop-profile-map loss-priority (low|any|...) protocol any drop-profile NAME: RoCE is classified low.
        if w[2] in ("low", "any"):
            sched.drop_profile = Val(w[w.index("drop-profile") + 1], src)
    elif w[0] == "buffer-size":
        # buffer-size (percent N | remainder | temporal MICROSECONDS): one choice, the later line wins. Only the
        # temporal size is bytes the configuration gives (line rate x time; Junos CoS guide, "buffer-size").
        sched.buffer_us = Val(_number(w[2], 1, 10_000_000), src) if w[1] == "temporal" else None
    elif w[0] not in ("shaping-rate", "excess-rate", "excess-priority"):
        raise _Skip("unknown scheduler statement")


def _cos_interface(conf: CosInterface, w: list[str], src: Source) -> None:
    if w[:2] and w[0] == "unit":
        w = w[2:]  # `unit 0 classifiers dscp NAME`
    if w[0] == "congestion-notification-profile":
        conf.cnp = Val(w[1], src)
    elif w[0] == "scheduler-map":
        conf.scheduler_map = Val(w[1], src)
    elif w[0] == "forwarding-class-set" and "output-traffic-control-profile" in w:
        conf.traffic_control_profile = Val(w[w.index("output-traffic-control-profile") + 1], src)
    elif w[0] == "classifiers" and w[1] == "dscp":
        conf.dscp_classifier = Val(w[2], src)
    elif w[0] == "classifiers" and w[1] == "ieee-802.1":
        conf.pcp_classifier = Val(w[2], src)
    elif w[0] not in ("rewrite-rules", "shaping-rate"):
        raise _Skip("unknown class-of-service interface statement")
