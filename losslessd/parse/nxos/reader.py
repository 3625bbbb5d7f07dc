"""Read an NX-OS running-config into its QoS parts (class-maps, policy-maps, `system qos`, interfaces), each with its line.

NX-OS indents sub-commands by two spaces; `!` lines are comments. QoS lines that cannot be read
become SYS002 issues (an unknown threshold unit SYS003); lines that are not about QoS are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ... import units
from ...model import ParseIssue, Source
from ..base import Input, port_slot
from ..clitext import LineError, Node, TreeReader, Val, bounded_int, check_config_text

ETHERNET = re.compile(r"^Ethernet\d+(/\d+){1,2}$")
# Top-level words of an NX-OS config; a file with none of them is not one.
_NXOS_LINE = re.compile(r"^(!|(hostname|switchname|interface|feature|version|class-map|policy-map|system|"
                        r"priority-flow-control|hardware|vrf|ip|ipv6|router|vlan|spanning-tree|username|logging|"
                        r"ntp|snmp-server|line|boot)(\s|$))")
# Nexus 9000 QoS configuration guide, queuing chapter: system-defined egress queuing classes
# c-out-8q-q0..q7 / c-out-8q-q-default (8 queues) and c-out-q1..q3 / c-out-q-default (4 queues)
# match qos-group N -> queue N; the default class is queue 0.
_QUEUE_CLASS = re.compile(r"^c-out-(?:8q-)?q(\d|-default)$")
# Network-qos classes c-8q-nq0..7 / c-nq1..3 (and their -default) match qos-group N.
_NQ_CLASS = re.compile(r"^c-(?:8q-)?nq(\d|-default)$")
_NUMBER = re.compile(r"^[0-9]{1,15}$")  # a threshold in bytes: 15 digits are a petabyte


@dataclass
class QosClass:
    """A `class-map type qos`: the DSCP values it matches (None when it matches on something else)."""

    source: Source
    dscp: set[int] | None = field(default_factory=set)


@dataclass(frozen=True)
class RawEcn:
    """`random-detect minimum-threshold X UNIT maximum-threshold Y UNIT [drop-probability P] [weight W] [ecn]`."""

    text: str
    kmin: int | None  # bytes; None: unknown unit
    kmax: int | None
    probability: float | None
    ecn: bool


@dataclass
class QueueConf:
    source: Source
    strict: Val | None = None  # `priority [level N]`
    bandwidth: Val | None = None  # `bandwidth [remaining] percent N`
    wred: Val | None = None  # value RawEcn


@dataclass
class NqClass:
    """A class in a network-qos policy: `pause pfc-cos N` makes its qos-group no-drop."""

    qos_group: int
    source: Source
    pfc_cos: Val | None = None  # value list[int]
    mtu: Val | None = None


@dataclass
class InterfaceConf:
    source: Source
    description: str | None = None
    mtu: Val | None = None
    speed: Val | None = None  # Gb/s
    admin_up: Val | None = None
    pfc_mode: Val | None = None  # on | off | auto
    watchdog: Val | None = None  # `priority-flow-control watch-dog-interval on|off`
    qos_policy: Val | None = None  # `service-policy type qos input NAME`
    queuing_policy: Val | None = None  # `service-policy type queuing output NAME`


@dataclass
class NxosConfig:
    hostname: str | None = None
    class_maps: dict[str, QosClass] = field(default_factory=dict)
    # policy-map type qos NAME -> class name -> qos-group Val (None: the class sets none), in entry order
    qos_policies: dict[str, dict[str, Val | None]] = field(default_factory=dict)
    queuing_policies: dict[str, dict[int, QueueConf]] = field(default_factory=dict)
    nq_policies: dict[str, dict[int, NqClass]] = field(default_factory=dict)
    system: dict[str, Val] = field(default_factory=dict)  # "qos" | "queuing" | "network-qos" -> policy name
    watchdog: Val | None = None  # global `priority-flow-control watch-dog-interval on|off`
    wd_timers: dict[str, Val] = field(default_factory=dict)  # interval | shutdown-multiplier | auto-restore-multiplier
    interfaces: dict[str, InterfaceConf] = field(default_factory=dict)
    issues: list[ParseIssue] = field(default_factory=list)


def read(inputs: list[Input]) -> NxosConfig:
    cfg = NxosConfig()
    for inp in inputs:
        _check_is_nxos(inp)
        _Reader(cfg, inp).read()
    return cfg


def _check_is_nxos(inp: Input) -> None:
    check_config_text(inp, "Cisco NX-OS", _NXOS_LINE, "`interface`, `hostname`, `policy-map` or `!`")


def _class_index(name: str, pattern: re.Pattern) -> int | None:
    m = pattern.match(name)
    if not m:
        return None
    return 0 if m.group(1) == "-default" else int(m.group(1))


class _Reader(TreeReader):
    def top(self, node: Node) -> None:
        w = node.words
        if w[0] in ("hostname", "switchname") and len(w) == 2:
            self.cfg.hostname = w[1]
        elif w[0] == "interface" and len(w) == 2 and ETHERNET.match(w[1]):
            conf = port_slot(self.cfg.interfaces, w[1], lambda: InterfaceConf(source=self.src(node)), self.src(node))
            self.each(node.children, lambda child: self.interface_line(child, conf))
        elif w[:2] == ["class-map", "type"] and len(w) >= 3 and w[2] == "qos":
            self.class_map(node, w)
        elif w[:2] == ["policy-map", "type"] and len(w) >= 3 and w[2] in ("qos", "queuing", "network-qos"):
            if len(w) != 4:
                raise LineError(f"expected `policy-map type {w[2]} NAME`")
            {"qos": self.qos_policy, "queuing": self.queuing_policy, "network-qos": self.nq_policy}[w[2]](node, w[3])
        elif w == ["system", "qos"]:
            self.each(node.children, self.system_line)
        elif w[0] == "priority-flow-control":
            self.global_pfc(node, w[1:])

    def class_map(self, node: Node, w: list[str]) -> None:
        """`class-map type qos [match-any|match-all] NAME` with `match dscp LIST` lines."""
        if len(w) not in (4, 5) or (len(w) == 5 and w[3] not in ("match-any", "match-all")):
            raise LineError("expected `class-map type qos [match-any|match-all] NAME`")
        # Entering an existing class-map again adds to it, as the switch does with a pasted snippet.
        conf = self.cfg.class_maps.setdefault(w[-1], QosClass(source=self.src(node)))

        def line(child: Node) -> None:
            cw = child.words
            if cw[:2] == ["match", "dscp"] and len(cw) > 2:
                try:
                    values = units.int_list(" ".join(cw[2:]))
                except ValueError:
                    values = []
                if not values or max(values) > 63:
                    raise LineError("DSCP values must be numbers 0-63 (names like af31 are not read)")
                if conf.dscp is not None:
                    conf.dscp.update(values)
            elif cw[0] in ("match", "description"):
                if cw[0] == "match":
                    conf.dscp = None  # classifies on CoS, ACL, precedence...: not a DSCP map
            else:
                raise LineError("not a class-map command losslessd knows")
        self.each(node.children, line)

    def qos_policy(self, node: Node, name: str) -> None:
        """Re-entering a policy-map or one of its classes merges into it; a later `set qos-group` replaces."""
        classes = self.cfg.qos_policies.setdefault(name, {})
        for child in node.children:
            cw = child.words
            if cw[0] != "class" or len(cw) not in (2, 4) or (len(cw) == 4 and cw[1:3] != ["type", "qos"]):
                self.garbled(child, "expected `class NAME` in a qos policy-map")
                continue
            group = classes.get(cw[-1])
            for sub in child.children:
                sw = sub.words
                if sw[:2] == ["set", "qos-group"]:
                    try:
                        group = Val(bounded_int(sw[2] if len(sw) == 3 else "", 0, 7, "the qos-group"), self.src(sub))
                    except LineError as exc:
                        self.garbled(sub, str(exc))
                elif sw[0] not in ("set", "police", "description"):
                    self.garbled(sub, "not a qos policy-map class command losslessd knows")
            classes[cw[-1]] = group

    def queuing_policy(self, node: Node, name: str) -> None:
        queues = self.cfg.queuing_policies.setdefault(name, {})  # re-entered: merged, as for qos policies
        for child in node.children:
            cw = child.words
            index = _class_index(cw[-1], _QUEUE_CLASS) if cw[:3] == ["class", "type", "queuing"] and len(cw) == 4 \
                else None
            if index is None:
                self.garbled(child, "expected `class type queuing c-out-8q-qN` (a system-defined egress queue class)")
                continue
            queue = queues.setdefault(index, QueueConf(source=self.src(child)))
            self.each(child.children, lambda sub, queue=queue: self.queue_line(sub, queue))

    def queue_line(self, node: Node, queue: QueueConf) -> None:
        w = node.words
        src = self.src(node)
        # A class is served either by priority or by a bandwidth share: the later command replaces the other.
        if w == ["priority"] or (w[:2] == ["priority", "level"] and len(w) == 3):
            queue.strict, queue.bandwidth = Val(True, src), None
        elif w[0] == "bandwidth" and len(w) in (3, 4) and w[-2] == "percent" and w[1] in ("percent", "remaining"):
            queue.bandwidth, queue.strict = Val(bounded_int(w[-1], 0, 100, "the bandwidth percent"), src), None
        elif w[0] == "random-detect":
            queue.wred = Val(self.wred(node, w), src)
        elif w[:2] == ["no", "priority"]:
            queue.strict = None
        elif w[:2] == ["no", "bandwidth"]:
            queue.bandwidth = None
        elif w[:2] == ["no", "random-detect"]:
            queue.wred = None
        elif w[0] in ("shape", "queue-limit", "no"):
            pass  # shaping and tail-drop limits are not part of the model
        else:
            raise LineError("not a queuing class command losslessd knows")

    def wred(self, node: Node, w: list[str]) -> RawEcn:
        # Nexus 9000 QoS guide, "Configuring WRED on Egress Queues": random-detect minimum-threshold X
        # {bytes|kbytes|mbytes} maximum-threshold Y {bytes|kbytes|mbytes} drop-probability P weight W [ecn].
        if len(w) < 7 or w[1] != "minimum-threshold" or w[4] != "maximum-threshold":
            raise LineError("expected `random-detect minimum-threshold X UNIT maximum-threshold Y UNIT ...`")
        rest = w[7:]
        ecn = bool(rest) and rest[-1] == "ecn"
        options = rest[:-1] if ecn else rest
        if len(options) % 2:
            raise LineError("an option lacks its value")
        probability = None
        for key, value in zip(options[::2], options[1::2], strict=True):
            if key == "drop-probability":
                probability = float(bounded_int(value, 0, 100, "drop-probability"))
            elif key == "weight":
                bounded_int(value, 0, 15, "weight")
            else:
                raise LineError(f"unknown option {key!r}")
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
            group = _class_index(cw[-1], _NQ_CLASS) if cw[:3] == ["class", "type", "network-qos"] and len(cw) == 4 \
                else None
            if group is None:
                self.garbled(child, "expected `class type network-qos c-8q-nqN` (a system-defined class)")
                continue
            conf = classes.setdefault(group, NqClass(group, self.src(child)))
            self.each(child.children, lambda sub, conf=conf: self.nq_line(sub, conf))

    def nq_line(self, node: Node, conf: NqClass) -> None:
        w = node.words
        if w[:2] == ["pause", "pfc-cos"] and len(w) > 2:
            try:
                cos = units.int_list(" ".join(w[2:]))
            except ValueError:
                cos = []
            if not cos or max(cos) > 7:
                raise LineError("pfc-cos values must be numbers 0-7")
            conf.pfc_cos = Val(cos, self.src(node))
        elif w[:3] == ["no", "pause", "pfc-cos"]:
            conf.pfc_cos = None
        elif w[0] == "mtu" and len(w) == 2:
            conf.mtu = Val(bounded_int(w[1], 576, 9216, "the class MTU"), self.src(node))
        elif w[0] not in ("pause", "congestion-control", "set", "description", "no"):
            raise LineError("not a network-qos class command losslessd knows")

    def system_line(self, node: Node) -> None:
        """`service-policy type qos input NAME`, `type queuing output NAME`, `type network-qos NAME`."""
        w = node.words
        if w[:2] != ["service-policy", "type"] or len(w) < 4:
            raise LineError("expected `service-policy type qos|queuing|network-qos ...`")
        kind = w[2]
        if kind == "network-qos" and len(w) == 4:
            self.cfg.system[kind] = Val(w[3], self.src(node))
        elif kind == "qos" and w[3:4] == ["input"] and len(w) == 5:
            self.cfg.system[kind] = Val(w[4], self.src(node))
        elif kind == "queuing" and len(w) == 5 and w[3] in ("input", "output"):
            if w[3] == "output":  # input queuing policies are not part of the model
                self.cfg.system[kind] = Val(w[4], self.src(node))
        else:
            raise LineError("expected `service-policy type qos input NAME`, `type queuing output NAME` or "
                         "`type network-qos NAME`")

    def interface_line(self, node: Node, conf: InterfaceConf) -> None:
        w = node.words
        src = self.src(node)
        if w[0] == "description":
            conf.description = node.text[len("description"):].strip()
        elif w[0] == "mtu":
            conf.mtu = Val(bounded_int(w[1] if len(w) == 2 else "", 576, 9216, "the MTU"), src)
        elif w[0] == "speed" and len(w) == 2 and w[1] != "auto":
            conf.speed = Val(bounded_int(w[1], 1, 1_600_000, "the speed in Mb/s") / 1000, src)  # NX-OS speed is in Mb/s
        elif w in (["shutdown"], ["no", "shutdown"]):
            conf.admin_up = Val(w[0] == "no", src)
        elif w[:2] == ["priority-flow-control", "mode"]:
            if len(w) != 3 or w[2] not in ("on", "off", "auto"):
                raise LineError("expected `priority-flow-control mode on|off|auto`")
            conf.pfc_mode = Val(w[2], src)
        elif w[:2] == ["priority-flow-control", "watch-dog-interval"]:
            if len(w) != 3 or w[2] not in ("on", "off"):
                raise LineError("expected `priority-flow-control watch-dog-interval on|off`")
            conf.watchdog = Val(w[2] == "on", src)
        elif w[:3] == ["service-policy", "type", "qos"]:
            if len(w) != 5 or w[3] != "input":
                raise LineError("expected `service-policy type qos input NAME`")
            conf.qos_policy = Val(w[4], src)
        elif w[:3] == ["service-policy", "type", "queuing"]:
            if len(w) != 5 or w[3] not in ("input", "output"):
                raise LineError("expected `service-policy type queuing output NAME`")
            if w[3] == "output":
                conf.queuing_policy = Val(w[4], src)
        elif w[0] == "priority-flow-control":
            raise LineError("not a priority-flow-control command losslessd knows")

    def global_pfc(self, node: Node, rest: list[str]) -> None:
        src = self.src(node)
        if rest[:1] == ["watch-dog-interval"] and len(rest) == 2 and rest[1] in ("on", "off"):
            self.cfg.watchdog = Val(rest[1] == "on", src)
        elif rest[:1] == ["watch-dog"] and len(rest) == 3 and rest[1] == "interval":
            # Nexus 9000 QoS guide, PFC chapter: `priority-flow-control watch-dog interval` in ms (100-1000).
            self.cfg.wd_timers["interval"] = Val(bounded_int(rest[2], 100, 1000, "the watch-dog interval (ms)"), src)
        elif rest[:1] == ["watch-dog"] and len(rest) == 3 and rest[1] in ("shutdown-multiplier",
                                                                          "auto-restore-multiplier"):
            self.cfg.wd_timers[rest[1]] = Val(bounded_int(rest[2], 1, 100, f"the {rest[1]}"), src)
        elif rest[:1] in (["auto-restore"], ["fixed-restore"], ["watch-dog"]):
            pass  # other watchdog knobs (fixed multipliers, internal-interface) are not part of the model
        else:
            raise LineError("not a priority-flow-control command losslessd knows")
