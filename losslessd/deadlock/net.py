"""The part of a fabric the deadlock analysis reads: which priorities pause where, over the cables of
losslessd.paths.cabling (the ones the path rules follow).

A buffer is a (switch, ingress port, priority) whose port sends PFC pauses for that priority: the
priorities in the port's `pfc_enabled`, or the policy's lossless priorities when the input does not
say. A packet keeps its priority from hop to hop unless the egress port rewrites its DSCP by
traffic class (Port.tc_to_dscp_rewrite) or the next port classifies the DSCP differently; the
DSCPs followed are the policy's lossless DSCPs and every rewrite target in the fabric. Where the
policy trusts PCP (`lossless.trust: pcp`) the marking followed is the 802.1p priority instead: each
lossless priority's PCP, through each port's PCP map (Port.pcp_chain, as common.roce_hops follows it);
the input shows no egress PCP rewrite, so the PCP travels unchanged. Hosts only send and receive: a
NIC does not forward, so nothing waits on a buffer behind a host port.
"""

from __future__ import annotations

from typing import Literal

from ..model import Fabric, Port
from ..paths.cabling import Cabling
from ..paths.walk import egress_dscp
from ..sorting import natural_key

Node = tuple[str, str, int]  # (switch, ingress port, priority)
Label = tuple[int, int | None]  # (traffic class, DSCP or PCP; None when the port's maps are unknown)


class Net:
    """PFC facts over the fabric's cabling (losslessd.paths.cabling: the cables PTH follows too), indexed for
    the graph builders."""

    def __init__(self, fabric: Fabric, lossless: list[int], dscps: list[int], cabling: Cabling | None = None,
                 marking: Literal["DSCP", "PCP"] | None = None):
        self.default_lossless = tuple(sorted(lossless))
        # What the switches classify lossless traffic by (the policy's lossless.trust; None: the policy sets no
        # trust, and the DSCPs are followed whatever a port trusts).
        self.trust = marking
        self.marking: Literal["DSCP", "PCP"] = marking or "DSCP"
        self.cabling = cabling = cabling or Cabling(fabric)
        self.peer = cabling.peer
        self.switches = cabling.switches
        self.ports = cabling.ports
        self.is_switch = cabling.is_switch
        self.port = cabling.port
        self.switch_ports = cabling.switch_ports
        self.tier = cabling.tier
        devices = cabling.devices
        if marking == "PCP":
            self.values = self.default_lossless  # each lossless priority's PCP (no PCP rewrite in the input)
        else:
            rewrites = {d for dev in devices.values() for p in dev.ports.values()
                        for d in (p.tc_to_dscp_rewrite or {}).values()}
            self.values = tuple(sorted(set(dscps) | rewrites))
        self._lossless: dict[tuple[str, str], tuple[int, ...]] = {}
        self._labels: dict[tuple[str, str, int], tuple[Label, ...]] = {}
        self.remapped = False  # set when some hop changes a packet's priority

    def lossless(self, dev: str, port: str) -> tuple[int, ...]:
        """Priorities this ingress port pauses (PFC on), the policy's when the input does not say."""
        key = (dev, port)
        found = self._lossless.get(key)
        if found is None:
            p = self.port(dev, port)
            found = self.default_lossless if p is None or p.pfc_enabled is None else tuple(sorted(p.pfc_enabled))
            self._lossless[key] = found
        return found

    def labels(self, dev: str, port: str, prio: int) -> tuple[Label, ...]:
        """What a packet buffered at (dev, port, prio) carries: its traffic class and DSCP."""
        key = (dev, port, prio)
        found = self._labels.get(key)
        if found is None:
            p = self.port(dev, port)
            found = ()
            if p is not None and self.classifies(p):
                hops = [p.chain(self.marking, v) for v in self.values]
                found = tuple(dict.fromkeys((h.tc if h.tc is not None else prio, h.dscp) for h in hops if h.priority == prio))
            found = found or ((prio, None),)  # no followed marking lands here: the priority itself travels on
            self._labels[key] = found
        return found

    def hop(self, dev: str, in_port: str, prio: int, out_port: str, remap: bool = True) -> list[Node]:
        """Buffers a packet held at (dev, in_port, prio) can wait on when it leaves through out_port."""
        nxt = self.peer[(dev, out_port)]
        if not self.is_switch(nxt[0]):
            return []
        found = []
        for label in self.labels(dev, in_port, prio):
            p2 = self.next_priority(dev, out_port, label, prio) if remap else prio
            if p2 is not None and p2 in self.lossless(*nxt):
                node = (nxt[0], nxt[1], p2)
                if node not in found:
                    found.append(node)
        return found

    def next_priority(self, dev: str, out_port: str, label: Label, prio: int) -> int | None:
        """The priority the next port gives a packet of this label sent out of out_port (None: none it pauses)."""
        tc, value = label
        out = self.port(dev, out_port)
        if out is not None and value is not None and self.marking == "DSCP":
            value = egress_dscp(out, tc, value)  # None: remarked to a DSCP the input does not show
        nxt = self.port(*self.peer[(dev, out_port)])
        if value is None or nxt is None or not self.classifies(nxt):
            return prio
        hop = nxt.chain(self.marking, value)
        if nxt.dscp_to_priority is None and hop.tc is not None and nxt.tc_to_priority is None:
            return prio  # the next port's class priorities are not known: the priority is taken to travel on
        p2 = hop.priority
        if p2 is not None and p2 != prio:
            self.remapped = True
        return p2

    def classifies(self, port: Port) -> bool:
        """Whether the input shows the map of the marking followed on ``port`` (else the priority travels on)."""
        if self.marking == "PCP":
            return port.pcp_to_tc is not None
        return port.dscp_to_tc is not None or port.dscp_to_priority is not None

    def other_trust(self, dev: str) -> list[tuple[str, str]]:
        """(port, what it trusts) for the ports of switch ``dev`` between switches that trust another marking than
        the policy's (a port under a PCP policy that classifies by DSCP): where the analysis does not follow what the
        switch does."""
        if self.trust is None:
            return []
        wanted = self.trust.lower()
        return [(port, p.trust.value) for port in self.switch_ports(dev)
                if (p := self.port(dev, port)) is not None and p.trust is not None and p.trust.value != wanted]


def label(node: Node) -> str:
    """device:port(priority), as witness cycles print a buffer."""
    return f"{node[0]}:{node[1]}({node[2]})"


def sort_key(node: Node) -> tuple:
    return (node[0], natural_key(node[1]), node[2])
