"""Which port is cabled to which, as the path and deadlock analyses see it.

Fabric.links are the cables the topology loader accepted (docs/topology.md); a fabric built through
the Python API may hold anything. The cables traffic is taken to cross are decided here, once, for
PTH and DLK alike; every cable below is left out (the LNK rules, or the topology loader, say why
when it came from an input):

- an end naming a device that is not in the fabric, or a port its device's input does not hold;
- a cable joining a port to itself, or two ports of one device (a multi-ASIC switch's backplane hop between
  its ASICs: the analyses take a switch as one node; the LNK rules check both ends of the hop);
- a cable with an administratively down end (`shutdown`, `admin_status: down`): nothing crosses it,
  and routing goes around it;
- a cable with no switch on it (host to host), or with an end that is neither a switch nor a host
  (a subnet manager): hosts never forward;
- the second cable of a port already on one (the first, in the order of Fabric.links, counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

from ..model import Device, DeviceKind, Fabric, Port

End = tuple[str, str]  # (device, port)


class Cabling:
    """The cables of a fabric that carry traffic, indexed for the routing models and the walkers. ``devices``: the
    fabric's devices as the path engine reads them (a parallel lint's views, paths/view.py; default: the model)."""

    def __init__(self, fabric: Fabric, devices: Mapping[str, Device] | None = None):
        self.devices = devices = fabric.devices if devices is None else devices
        self.peer: dict[End, End] = {}
        self.skipped: list[tuple[End, End, str]] = []  # cables left out, and why
        # routing.aggregate_members, once per link aggregate: (device, its number or bond name) -> (member ports, where
        # read)
        self.aggregates: dict[tuple[str, int | str], tuple[list[str] | None, str]] = {}
        peer = self.peer
        switch, host = DeviceKind.switch, DeviceKind.host
        for link in fabric.links:
            a, b = (link.a.device, link.a.port), (link.b.device, link.b.port)
            da, db = devices.get(a[0]), devices.get(b[0])
            pa = da.ports.get(a[1]) if da is not None else None
            pb = db.ports.get(b[1]) if db is not None else None
            ka, kb = da.kind if da is not None else None, db.kind if db is not None else None
            if (pa is None or pb is None or a[0] == b[0] or pa.admin_up is False or pb.admin_up is False
                    or not ((ka is switch and (kb is switch or kb is host)) or (ka is host and kb is switch))
                    or a in peer or b in peer):
                self.skipped.append((a, b, self._why(a, b)))
                continue
            peer[a], peer[b] = b, a
        cabled: dict[str, set[str]] = {}
        for dev, port in self.peer:
            if devices[dev].kind == DeviceKind.switch:
                cabled.setdefault(dev, set()).add(port)
        self.switches = sorted(cabled)
        # In the device's own port order (the config's).
        self.ports = {dev: [p for p in devices[dev].ports if p in names] for dev, names in cabled.items()}
        self._switch_ports = {dev: [p for p in names if devices[self.peer[(dev, p)][0]].kind == DeviceKind.switch]
                              for dev, names in self.ports.items()}

    @cached_property
    def endpoints(self) -> list[End]:
        """NIC ports cabled to a switch: where traffic starts and ends."""
        devices = self.devices
        return sorted(end for end in self.peer if devices[end[0]].kind == DeviceKind.host)

    def _why(self, a: End, b: End) -> str:
        """Why the cable a <-> b is left out."""
        devices = self.devices
        why = _unusable(devices, a, b) or _unusable(devices, b, a)
        if why is None and DeviceKind.switch not in (devices[a[0]].kind, devices[b[0]].kind):
            why = "no switch on it: hosts do not forward"
        if why is None:
            end = a if a in self.peer else b
            far = self.peer[end]
            why = f"{end[0]}:{end[1]} is already cabled to {far[0]}:{far[1]}"
        return why

    def is_switch(self, name: str) -> bool:
        return self.devices[name].kind == DeviceKind.switch

    def device(self, name: str) -> Device:
        return self.devices[name]

    def port(self, dev: str, name: str) -> Port | None:
        return self.devices[dev].ports.get(name)

    def switch_ports(self, dev: str) -> list[str]:
        """Ports of a switch cabled to another switch."""
        return self._switch_ports.get(dev, [])

    def tier(self, dev: str) -> int | None:
        """The device's Clos tier (Device.tier; a host is tier 0 when the topology does not say)."""
        d = self.devices[dev]
        return 0 if d.kind == DeviceKind.host and d.tier is None else d.tier


def _unusable(devices: Mapping[str, Device], end: End, other: End) -> str | None:
    device = devices.get(end[0])
    if device is None:
        return f"{end[0]} is not among the linted devices"
    port = device.ports.get(end[1])
    if port is None:
        return f"{end[0]} has no port {end[1]} in its input"
    if end == other:
        return "it joins a port to itself"
    if end[0] == other[0]:
        return f"it joins two ports of {end[0]} (a hop inside one switch, which the analyses take as one node)"
    if port.admin_up is False:
        return f"{end[0]}:{end[1]} is administratively down"
    if device.kind not in (DeviceKind.switch, DeviceKind.host):
        return f"{end[0]} is a {device.kind.value.replace('_', ' ')}, which carries no RoCE traffic"
    return None
