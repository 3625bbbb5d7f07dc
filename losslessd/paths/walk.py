"""Following one DSCP from a sending NIC port to a receiving one over every ECMP path, hop by hop.

At each port the packet meets the port's maps (Port.dscp_chain: DSCP -> TC -> priority, PG and
queue on a switch; DSCP -> priority -> TC on a NIC) and, leaving a switch, the port's egress DSCP
rewrite by traffic class (egress_dscp), which decides what the next port classifies. What each hop
must do with the traffic is the Flow's business (rules/pth.py: RoCE stays lossless, CNPs stay
strict); the walker finds the first hops where it does not, on every path, memoised per (switch,
ingress port, routing state, DSCP) so that a receiver costs O(ports x DSCPs), not O(paths).
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from ..model import Device, DeviceKind, Hop, Port, Source
from ..records import record

if TYPE_CHECKING:
    from . import Paths

SIDES = {"send": "as sent", "in": "arriving", "out": "leaving"}


@record(frozen=True)
class Problem:
    """Where traffic leaves its class (unknown=False), or could not be followed further (unknown=True)."""

    unknown: bool
    device: str
    port: str
    dscp: int
    side: str  # "send": as the NIC sends it; "in": classified on arrival at port; "out": sent out of port
    why: str
    # (from a parallel lint's views of the devices, a paths.view.Ref: rules resolve it with real_source)
    source: Source | None = field(default=None, compare=False, hash=False)

    @property
    def key(self) -> str:
        return f"{self.device}:{self.port}|DSCP {self.dscp}|{self.side}"

    @classmethod
    def at(cls, unknown: bool, device: Device, port: Port, dscp: int, side: str, why: str,
           source: Source | None) -> Problem:
        """A problem at a port of the model, pointing at ``source`` (else the port's own)."""
        return cls(unknown, device.name, port.name, dscp, side, why, source or port.source)


def egress_dscp(out: Port, tc: int | None, dscp: int | None, ingress: Port | None = None) -> int | None:
    """The DSCP a packet of traffic class ``tc`` that arrived with ``dscp`` (on ``ingress``, when known) leaves a
    switch port with: rewritten by the port's tc_to_dscp_rewrite unless the ingress port turns the rewrite off,
    else unchanged. None: remarked to a value the input does not show (a class the rewrite map leaves out, or a
    class that is not known)."""
    if out.tc_to_dscp_rewrite is None or (ingress is not None and ingress.ingress_rewrite is False):
        return dscp
    return out.tc_to_dscp_rewrite.get(tc) if tc is not None else None


def egress_queue(out: Port, hop: Hop) -> int | None:
    """The queue the traffic class chosen at ingress leaves ``out`` from (None: not known)."""
    return out.tc_to_queue.get(hop.tc) if out.tc_to_queue is not None and hop.tc is not None else None


def shown(value) -> str:
    return "?" if value is None else str(value)


class Flow:
    """One kind of traffic followed along paths: what each hop must do with it. Every check returns the
    Problem at that hop (None: fine) with an annotation for example paths."""

    label = ""

    def start_dscp(self, device: Device, port: Port) -> list[int]:  # pragma: no cover - interface
        raise NotImplementedError

    def sender(self, device: Device, port: Port, dscp: int) -> tuple[Problem | None, str, int | None]:
        """(problem, annotation, the unit a pause must stop: NIC priority) at the sending NIC."""
        return None, f"DSCP {dscp}", None

    def ingress(self, device: Device, port: Port, dscp: int) -> tuple[Problem | None, str, Hop]:
        raise NotImplementedError  # pragma: no cover - interface

    def egress(self, device: Device, out: Port, hop: Hop, unit: int | None, nxt: Device, nport: Port
               ) -> Problem | None:
        return None

    def receiver(self, device: Device, port: Port, dscp: int) -> tuple[Problem | None, str]:
        return None, f"DSCP {dscp}"


class Walker:
    """Follows one flow from senders to one receiver over every equal-cost path; memoised per state."""

    def __init__(self, flow: Flow, paths: Paths, target: tuple[str, str]):
        self.flow = flow
        self.devices = paths.cabling.devices
        self.peer = paths.cabling.peer
        self.toward = paths.toward(target)
        self.routing = paths.routing
        self.memo: dict[tuple, frozenset[Problem]] = {}

    def port(self, node: tuple[str, str]) -> tuple[Device, Port]:
        device = self.devices[node[0]]
        return device, device.ports[node[1]]

    def first(self, sender: tuple[str, str]) -> tuple[str, str]:
        """The switch port a sending NIC port is cabled to."""
        return self.peer[sender]

    def start(self, sender: tuple[str, str], dscp: int) -> frozenset[Problem]:
        """Every first break on the paths from ``sender`` (empty: lossless all the way)."""
        device, port = self.port(sender)
        found, _, unit = self.flow.sender(device, port, dscp)
        if found is not None:
            return frozenset([found])
        first = self.first(sender)
        ndev, nport = self.port(first)
        out = self.flow.egress(device, port, port.dscp_chain(dscp), unit, ndev, nport)
        if out is not None:
            return frozenset([out])
        if not self.toward.starts:
            ingress, _, _ = self.flow.ingress(ndev, nport, dscp)
            if ingress is not None:
                return frozenset([ingress])
            target = self.toward.target
            return frozenset([Problem.at(True, ndev, nport, dscp, "in", f"no route towards {target[0]}:{target[1]} can be "
                                      f"followed under {self.routing} routing: {self.toward.why}", None)])
        return frozenset().union(*(self.visit(first[0], first[1], state, dscp) for state in self.toward.starts))

    def visit(self, switch: str, ingress: str, state, dscp: int) -> frozenset[Problem]:
        key = (switch, ingress, state, dscp)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = frozenset()  # a loop in the routes adds nothing
        device, port = self.port((switch, ingress))
        found, _, hop = self.flow.ingress(device, port, dscp)
        if found is not None:
            result = frozenset([found])
        else:
            problems: set[Problem] = set()
            hops = self.toward.next_hops(switch, state)
            if not hops:
                problems.add(Problem.at(True, device, port, dscp, "in", self.dead_end(switch), None))
            for out_name, nxt, nport_name, nstate in hops:
                problems |= self.step(device, out_name, hop, nxt, nport_name, nstate)
            result = frozenset(problems)
        self.memo[key] = result
        return result

    def dead_end(self, switch: str) -> str:
        target = self.toward.target
        gap = self.toward.gap(switch)
        return (f"no next hop towards {target[0]}:{target[1]} under {self.routing} routing"
                + (f": {gap}" if gap else " over the known links"))

    def step(self, device: Device, out_name: str, hop: Hop, nxt: str, nport_name: str, nstate) -> frozenset[Problem]:
        out = device.ports[out_name]
        ndev, nport = self.port((nxt, nport_name))
        new = egress_dscp(out, hop.tc, hop.dscp, device.ports.get(hop.port))
        if new is None:
            return frozenset([Problem.at(True, device, out, hop.dscp, "out", f"the port remarks {hop.tc_label} to a "
                                      "DSCP the input does not show", out.map_source)])
        found = self.flow.egress(device, out, hop, None, ndev, nport)
        if found is not None:
            return frozenset([found])
        if ndev.kind == DeviceKind.host:  # next_hops leads to a host only at the receiver
            found, _ = self.flow.receiver(ndev, nport, new)
            return frozenset([found]) if found else frozenset()
        return self.visit(nxt, nport_name, nstate, new)

    def example(self, sender: tuple[str, str], dscp: int, target: Problem) -> list[str]:
        """One path from ``sender`` that meets ``target``, each hop with what it did to the packet."""
        device, port = self.port(sender)
        found, note, _ = self.flow.sender(device, port, dscp)
        if found == target:
            return [f"{sender[0]}:{sender[1]} [{note}: {found.why}]"]
        path = [f"{sender[0]}:{sender[1]} [{note}]"]
        first = self.first(sender)
        if target.side == "out" and target.device == sender[0]:
            return [f"{sender[0]}:{sender[1]} [{note}; out: {target.why}]", f"{first[0]}:{first[1]}"]
        states = [s for s in self.toward.starts if target in self.visit(first[0], first[1], s, dscp)]
        if not states:  # no route to follow: the target is at the first switch
            _, note, _ = self.flow.ingress(*self.port(first), dscp)
            return path + [f"{first[0]}:{first[1]} [{note}: {target.why}]"]
        state = (first[0], first[1], states[0], dscp)
        # The hops already on the path: with a routing loop and ECMP, a hop inside the loop also reaches the target
        # (by its other branch), and always taking the first such hop went round the loop for ever.
        seen = {state}
        while True:
            switch, ingress, phase, d = state
            device, port = self.port((switch, ingress))
            found, note, hop = self.flow.ingress(device, port, d)
            if found is not None:
                return path + [f"{switch}:{ingress} [{note}: {found.why}]"]
            looped = None
            for out_name, nxt, nport_name, nphase in self.toward.next_hops(switch, phase):
                if target not in self.step(device, out_name, hop, nxt, nport_name, nphase):
                    continue
                out = device.ports[out_name]
                here = f"{switch}:{ingress}>{out_name} [{note} q {shown(egress_queue(out, hop))}"
                new = egress_dscp(out, hop.tc, hop.dscp, device.ports.get(hop.port))
                if (nxt, nport_name, nphase, new) in seen:
                    looped = looped or f"{here}; the routes loop back to {nxt}:{nport_name}]"
                    continue
                if target.device == switch and target.port == out_name and target.side == "out":
                    return path + [f"{here}; out: {target.why}]", f"{nxt}:{nport_name}"]
                path.append(here + (f" -> DSCP {new}]" if new != hop.dscp else "]"))
                if self.devices[nxt].kind == DeviceKind.host:
                    rdev, rport = self.port((nxt, nport_name))
                    _, rnote = self.flow.receiver(rdev, rport, new)
                    return path + [f"{nxt}:{nport_name} [{rnote}: {target.why}]"]
                state = (nxt, nport_name, nphase, new)
                seen.add(state)
                break
            else:
                if looped:  # every hop that reaches the target goes back along the path
                    return path + [looped]
                return path + [f"{switch}:{ingress} [{note}: {target.why}]"]  # the target: no next hop here
