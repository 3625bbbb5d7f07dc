"""The topology's reported links as the parallel lint's tail makes them (docs/lint-at-scale.md, "Session 45, part b"):
the same links, issues and tiers as the walk before that session's cuts, on fleets whose names collide (case, dotted
names, short names two devices share, empty labels), whose hosts are cabled twice, with and without a topology file."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from losslessd import topology
from losslessd.model import Device, DeviceKind, Endpoint, Fabric, Link, Neighbor, Port, Source

NAMES = ["leaf1", "LEAF1.pod1", "leaf1.pod2", "leaf1.pod2.dc", "spine1", "spine1.", ".spine1", "a..b", "A..b.c",
         "h1", "h1.dc", "H2", "h2.dc.example"]
PORTS = ["Ethernet0", "Ethernet4", "eth0", "eth1", "Et1"]
FAR = ["Ethernet0", "ethernet4", "etp1", "etp2", "eth0", "Et1", "nope", None]


def _names_before(names: topology._Names, fabric: Fabric) -> None:
    """_Names.__init__'s index of devices as written before (labels split, every leading part joined again)."""
    parts: dict[str, str | None] = {}
    for name in fabric.devices:
        labels = name.lower().split(".")
        for n in range(1, len(labels)):
            form = ".".join(labels[:n])
            parts[form] = name if parts.get(form, name) == name else None
    names._devices = {**parts, **{name.lower(): name for name in fabric.devices}}


def _before(monkeypatch) -> None:
    """The pieces the session made cheaper, put back as they were."""
    init = topology._Names.__init__

    def names_init(self, fabric):
        init(self, fabric)
        _names_before(self, fabric)

    monkeypatch.setattr(topology._Names, "__init__", names_init)
    monkeypatch.setattr(topology, "_end", lambda ends: topology._End(*ends))
    monkeypatch.setattr(topology, "_claim_order", lambda item: str(item[0]))
    monkeypatch.setattr(topology, "_link", lambda a, b, origin, source: Link(
        a=Endpoint(device=a.device, port=a.port), b=Endpoint(device=b.device, port=b.port), origin=origin,
        source=source))


def _fabric(devices: list[tuple[str, bool, str]], reports: list[tuple]) -> Fabric:
    fabric = Fabric()
    for name, host, platform in devices:
        if name.lower() in {n.lower() for n in fabric.devices}:
            continue  # (the fabric folds case: a second spelling is SYS001 and skipped)
        ports = {p: Port(name=p, alias=None if host else f"etp{i + 1}") for i, p in enumerate(PORTS)}
        fabric.devices[name] = Device(name=name, kind=DeviceKind.host if host else DeviceKind.switch,
                                      platform="linux_mlx5" if host else platform, ports=ports)
    names = list(fabric.devices)
    for n, (local, port, remote, rport, origin) in enumerate(reports):
        device = fabric.devices[names[local % len(names)]]
        device.neighbors.append(Neighbor(port=port, remote_device=remote, remote_port=rport, origin=origin,
                                         source=Source(file=f"{device.name}.txt", line=n + 1)))
    return fabric


def _outcome(fabric: Fabric, topo) -> tuple:
    topology.apply(fabric, topo)
    return ([(str(link.a), str(link.b), link.origin, link.source) for link in fabric.links],
            [dataclasses.astuple(issue) for issue in fabric.topology_issues],
            {name: device.tier for name, device in fabric.devices.items()})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.booleans(), st.sampled_from(["sonic", "arista_eos"])),
                min_size=1, max_size=8),
       st.lists(st.tuples(st.integers(0, 7), st.sampled_from(PORTS + ["Ethernet99"]), st.sampled_from(NAMES + ["x"]),
                          st.sampled_from(FAR), st.sampled_from(["lldp", "config"])), max_size=16),
       st.sampled_from([None, ["leaf1:Ethernet0 <-> h1:eth0"], ["LEAF1:etp2 <-> spine1.:Ethernet4",
                                                                 "h1:eth1 <-> leaf1.pod2:Ethernet0"]]))
@example(devices=[("leaf1", False, "sonic"), ("leaf1.pod2", False, "sonic"), ("h1", True, "sonic")],
         reports=[(0, "Ethernet0", "h1", "eth0", "lldp"), (1, "Ethernet0", "h1", "eth1", "lldp")], links=None)
def test_reported_links_are_those_of_the_walk_before(monkeypatch, devices, reports, links):
    """Links (in order, with origin and source), LNK006-LNK009 issues (in order, word for word) and tiers: as the
    walk made them before its cuts (the index of names, the links set slot by slot, the claims' order, the ends)."""
    topo = None if links is None else topology.from_data({"links": links})
    now = _outcome(_fabric(devices, reports), topo)
    with monkeypatch.context() as patched:
        _before(patched)
        before = _outcome(_fabric(devices, reports), None if links is None else topology.from_data({"links": links}))
    assert now == before


def test_a_link_set_slot_by_slot_is_the_link_of_keywords():
    """topology._link: equal, shown and dumped as Link(a=Endpoint(...), ...) is."""
    source = Source(file="h1.capture", line=3)
    made = topology._link(topology._end(("h1", "eth0")), topology._end(("leaf1", "Ethernet0")), "lldp", source)
    kept = Link(a=Endpoint(device="h1", port="eth0"), b=Endpoint(device="leaf1", port="Ethernet0"), origin="lldp",
                source=source)
    assert made == kept
    assert repr(made) == repr(kept)
    assert made.model_dump() == kept.model_dump()
