"""Link aggregate membership as each CLI reader records it (Port.bundle), and the lines that take a port out of its
aggregate. Fixtures of our own, written from each vendor's command reference named in the test: before session 38
Dell OS9 read no port channel (`channel-member`, `port-channel-protocol LACP`), OS10 and Onyx read `channel-group` only
to route a member with its port-channel (no Port.bundle), and no reader took `no channel-group` as a removal, so a
port taken out of its aggregate was still read (and checked, PFC005) as a member."""

from __future__ import annotations

import pytest

from losslessd.api import lint
from losslessd.parse import dell_os9, dell_os10, eos, nxos, onyx
from losslessd.parse.base import Input

OS9_HEADER = "! Version 9.14(2.4)\n! Startup-config last updated at Sun Nov 29 10:00:03 2026 by admin\n"


def _read(module, text: str):
    return module.parse([Input("sw1.cfg", text)], "sw1")


# Dell Networking OS9 Configuration Guide, "Port Channel Interfaces" (static: `channel-member` in INTERFACE
# PORT-CHANNEL mode, its example `interface Port-channel 5` / `no ip address` / `switchport` / `channel-member
# TengigabitEthernet 1/6`) and "Link Aggregation Control Protocol (LACP)" (INTERFACE mode `port-channel-protocol lacp`
# enters LACP mode, where `port-channel N mode active|passive|off`). OS9 prints a port's LACP block after a `!`.
OS9_LAGS = OS9_HEADER + """hostname os9-tor
dcb-map ROCE
 priority-group 0 bandwidth 50 pfc off
 priority-group 1 bandwidth 50 pfc on
 priority-pgid 0 0 0 1 0 0 0 0
!
interface TenGigabitEthernet 0/1
 no ip address
 dcb-map ROCE
!
 port-channel-protocol LACP
  port-channel 50 mode active
 no shutdown
!
interface TenGigabitEthernet 0/2
 no ip address
!
 port-channel-protocol LACP
  port-channel 50 mode passive
 no shutdown
!
interface TenGigabitEthernet 0/3
 no ip address
 dcb-map ROCE
 no shutdown
!
interface TenGigabitEthernet 0/4
 no ip address
 dcb-map ROCE
 no shutdown
!
interface TenGigabitEthernet 0/5
 no ip address
!
 port-channel-protocol LACP
  port-channel 50 mode off
 no shutdown
!
interface Port-channel 50
 ip address 198.51.100.0/31
 no shutdown
!
interface Port-channel 60
 no ip address
 switchport
 channel-member TengigabitEthernet 0/3
 channel-member TenGigabitEthernet 0/4
 no shutdown
!
end
"""


def test_os9_port_channels_are_read_static_and_lacp():
    """Members by `channel-member` and by LACP mode are Port.bundle `Port-channel N` (as OS9 names it); `mode off`
    joins none. A member of the Layer 3 Port-channel 50 routes untagged with it (Port.vlans []); the Layer 2
    Port-channel 60's members keep their VLANs unread. Before: every bundle None, every vlans None."""
    device = _read(dell_os9, OS9_LAGS)
    assert device.issues == []
    assert {n: (p.bundle, p.vlans) for n, p in device.ports.items()} == {
        "TenGigabitEthernet 0/1": ("Port-channel 50", []), "TenGigabitEthernet 0/2": ("Port-channel 50", []),
        "TenGigabitEthernet 0/3": ("Port-channel 60", None), "TenGigabitEthernet 0/4": ("Port-channel 60", None),
        "TenGigabitEthernet 0/5": (None, None)}


def test_os9_member_without_the_dcb_map_of_the_others_is_named_by_pfc005(tmp_path):
    """Port-channel 50's members: 0/1 has the ROCE map (PFC on dot1p 3), 0/2 none: the flows hashed onto 0/2 are
    dropped. PFC005 names it now that the aggregate is read (before: nothing)."""
    path = tmp_path / "os9-tor.cfg"
    path.write_text(OS9_LAGS, encoding="utf-8")
    findings = lint([path], "roce-dscp26", select_codes=["PFC005"]).findings
    assert [(f.code, f.port, f.data.get("aggregate")) for f in findings] == [
        ("PFC005", "TenGigabitEthernet 0/2", "Port-channel 50")]


def test_os9_flat_paste_and_removals():
    """The same lines pasted at the margin are read as nested (the LACP mode takes `port-channel N mode`); `no
    channel-member` (INTERFACE PORT-CHANNEL mode) and `no port-channel-protocol lacp` take the port out; a
    `channel-member` naming no single port is named, not guessed."""
    flat = "\n".join(line.strip() for line in OS9_LAGS.split("\n"))
    assert {n: p.bundle for n, p in _read(dell_os9, flat).ports.items()} == {
        n: p.bundle for n, p in _read(dell_os9, OS9_LAGS).ports.items()}
    removed = OS9_LAGS.replace(" end\n", "").replace("end\n", "") + "\n".join([
        "interface Port-channel 60", " no channel-member TenGigabitEthernet 0/4",
        " channel-member fortyGigE 0/x", "!", "interface TenGigabitEthernet 0/2", " no port-channel-protocol LACP",
        "!", "end", ""])
    device = _read(dell_os9, removed)
    assert {n: p.bundle for n, p in device.ports.items()} == {
        "TenGigabitEthernet 0/1": "Port-channel 50", "TenGigabitEthernet 0/2": None,
        "TenGigabitEthernet 0/3": "Port-channel 60", "TenGigabitEthernet 0/4": None, "TenGigabitEthernet 0/5": None}
    assert [i.message.split(":")[0] for i in device.issues] == ["cannot read `channel-member fortyGigE 0/x`"]


# Dell Networking OS9 user guide, "1GbE and 10GbE Interfaces in Port Channels": `channel-member tengigabitethernet
# 0/1-4` in port channel interface mode adds TenGig 0/1, 0/2, 0/3 and 0/4.
OS9_RANGE = OS9_HEADER + """hostname os9-tor
interface TenGigabitEthernet 0/1
 no ip address
!
interface TenGigabitEthernet 0/2
 no ip address
!
interface TenGigabitEthernet 0/3
 no ip address
!
interface TenGigabitEthernet 0/4
 no ip address
!
interface TenGigabitEthernet 0/5
 no ip address
!
interface Port-channel 70
 no ip address
 switchport
 channel-member TenGigabitEthernet 0/1-4
 no channel-member TenGigabitEthernet 0/3-4,0/9
 channel-member TenGigabitEthernet 0/4-4,0/5
 channel-member TenGigabitEthernet 0/4-1
!
end
"""


def test_os9_channel_member_ranges_are_each_port_of_the_range():
    """`channel-member TYPE unit/first-last` makes each port of the range a member, alone or in a comma list, and its
    `no` form takes each out; a range running backwards is named, not guessed. Before: a SYS002, no member read."""
    device = _read(dell_os9, OS9_RANGE)
    assert {n: p.bundle for n, p in device.ports.items()} == {
        "TenGigabitEthernet 0/1": "Port-channel 70", "TenGigabitEthernet 0/2": "Port-channel 70",
        "TenGigabitEthernet 0/3": None, "TenGigabitEthernet 0/4": "Port-channel 70",
        "TenGigabitEthernet 0/5": "Port-channel 70"}
    assert [i.message.split(":")[0] for i in device.issues] == ["cannot read `channel-member TenGigabitEthernet 0/4-1`"]


# Each platform's port-channel, two members, then `no channel-group` on the second (a configuration session's or a
# pasted change's line): EOS User Manual, "Port Channels"; Cisco Nexus 9000 NX-OS Interfaces Configuration Guide,
# "Configuring Port Channels" (`no channel-group`); Dell SmartFabric OS10 User Guide, "Port-channel interfaces" and
# `channel-group` (its `no` form); NVIDIA Onyx User Manual, "Link Aggregation Group (LAG)" (`channel-group 1 mode on`
# in `interface ethernet 1/4`, `interface port-channel 1`) and "MLAG" (`mlag-channel-group`).
NO_CHANNEL_GROUP = {
    "eos": (eos, "hostname sw1\ninterface Port-Channel10\n   no switchport\n   ip address 192.0.2.0/31\n"
                 "interface Ethernet1\n   channel-group 10 mode active\ninterface Ethernet2\n   channel-group 10 mode "
                 "active\ninterface Ethernet2\n   no channel-group\n", ("Ethernet1", "Port-Channel10")),
    "nxos": (nxos, "hostname sw1\nfeature lacp\ninterface port-channel10\n  no switchport\n  ip address 192.0.2.0/31\n"
                   "interface Ethernet1/1\n  channel-group 10 mode active\ninterface Ethernet1/2\n  channel-group 10 "
                   "force mode active\ninterface Ethernet1/2\n  no channel-group\n", ("Ethernet1/1", "port-channel10")),
    "os10": (dell_os10, "hostname sw1\ninterface port-channel10\n no switchport\n ip address 192.0.2.0/31\n!\n"
                        "interface ethernet1/1/1\n channel-group 10 mode active\n!\ninterface ethernet1/1/2\n "
                        "channel-group 10 mode active\n!\ninterface ethernet1/1/2\n no channel-group\n!\n",
             ("ethernet1/1/1", "port-channel10")),
    "onyx": (onyx, "## Hostname: sw1\nno cli default prefix-modes enable\n"
                   "   interface port-channel 10 no switchport force\n"
                   "   interface ethernet 1/1 channel-group 10 mode active\n"
                   "   interface ethernet 1/2 channel-group 10 mode on\n"
                   "   interface ethernet 1/2 no channel-group\n", ("Eth1/1", "Po10")),
}


@pytest.mark.parametrize("platform", sorted(NO_CHANNEL_GROUP))
def test_no_channel_group_takes_the_port_out_of_its_aggregate(platform):
    """The first member stays in (Port.bundle, routed untagged with its Layer 3 port-channel); the second, after `no
    channel-group`, is in no aggregate and no longer routes with the port-channel. Before: both members (OS10, Onyx:
    no bundle at all, and the second still routed untagged)."""
    module, text, (member, bundle) = NO_CHANNEL_GROUP[platform]
    device = _read(module, text)
    assert device.issues == []
    assert {n: p.bundle for n, p in device.ports.items()} == {member: bundle, next(
        n for n in device.ports if n != member): None}
    assert device.ports[member].vlans == []
    assert all(p.vlans != [] for n, p in device.ports.items() if n != member)


def test_onyx_channel_group_grammar():
    """Onyx: `mlag-channel-group N mode active` is a member of `Mpo<N>` (as `show interfaces mlag-port-channel
    summary` names it); a `channel-group` line with a mode Onyx does not take is named and joins nothing."""
    device = _read(onyx, "## Hostname: sw1\nno cli default prefix-modes enable\n"
                         "   interface ethernet 1/1 mlag-channel-group 2 mode active\n"
                         "   interface ethernet 1/2 channel-group 10 mode desirable\n")
    assert {n: p.bundle for n, p in device.ports.items()} == {"Eth1/1": "Mpo2", "Eth1/2": None}
    assert [i.message for i in device.issues] == [
        "cannot read `interface ethernet 1/2 channel-group 10 mode desirable`: expected `channel-group N mode "
        "on|active|passive`: which aggregate the port is a member of is not read; line skipped"]
