"""Switched ports that send no 802.1Q tag (Port.untagged_only): an access port, or a trunk whose allowed VLANs are
its untagged native VLAN alone. Like a routed port (Port.vlans []), no 802.1p leaves them, so MAP002 has no CNP
priority to verify there; a trunk carrying a tagged VLAN still says it cannot. Before session 38 only routed ports
were known untagged: NX-OS and OS10 read no switchport mode, EOS access ports kept the info. Fixtures of our own
from the Cisco Nexus 9000 NX-OS Layer 2 Switching Configuration Guide ("Configuring Access and Trunk Interfaces":
access ports and a trunk's native VLAN send untagged frames; `vlan dot1q tag native` tags the native VLAN too), the
Dell SmartFabric OS10 User Guide ("VLANs": `switchport mode access`, `switchport access vlan`) and the EOS User
Manual (Layer 2 configuration: an access port carries one VLAN untagged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from losslessd.api import lint
from losslessd.parse import dell_os10, eos, nxos
from losslessd.parse.base import Input
from tests.conftest import ROOT

SDN_TOR = ROOT / "tests" / "realworld" / "cisco_nxos" / "n3k-sdn-tor.cfg"
NXOS_PORTS = """hostname sw1
interface port-channel20
  switchport mode trunk
  switchport trunk native vlan 30
  switchport trunk allowed vlan 30
interface Ethernet1/1
  switchport mode access
  switchport access vlan 10
interface Ethernet1/2
  switchport access vlan 10
interface Ethernet1/3
  switchport mode trunk
  switchport trunk native vlan 12
  switchport trunk allowed vlan 12
interface Ethernet1/4
  switchport mode trunk
  switchport trunk native vlan 12
  switchport trunk allowed vlan 7-12
interface Ethernet1/5
  switchport mode trunk
interface Ethernet1/6
  channel-group 20 mode active
interface Ethernet1/7
  switchport mode trunk
  switchport trunk allowed vlan 1
interface Ethernet1/8
  description nothing said
interface Ethernet1/9
  switchport mode trunk
  switchport trunk native vlan 12
  switchport trunk allowed vlan 12
  switchport trunk allowed vlan add 13
interface Ethernet1/10
  switchport mode dot1q-tunnel
  switchport access vlan 10
interface Ethernet1/11
  switchport mode private-vlan trunk secondary
  switchport access vlan 10
"""


@pytest.mark.parametrize("tag_native", [False, True])
def test_nxos_access_ports_and_native_only_trunks_are_untagged(tag_native):
    """Access ports (`switchport mode access`, or an access VLAN with no mode line: access is the Layer 2 default),
    trunks allowing their native VLAN alone (VLAN 1 unless `switchport trunk native vlan`) and a member of such a
    port-channel; not a trunk with another allowed VLAN (or every VLAN), an `add` to it, a dot1q-tunnel, a mode of more
    words (a private VLAN trunk, which tags: it was read as an access port) or a port whose mode is unsaid. `vlan
    dot1q tag native` makes every trunk tag."""
    text = ("vlan dot1q tag native\n" if tag_native else "") + NXOS_PORTS
    device = nxos.parse([Input("sw1.cfg", text)], "sw1")
    assert device.issues == []
    untagged = {"Ethernet1/1", "Ethernet1/2"} | (set() if tag_native else {"Ethernet1/3", "Ethernet1/6", "Ethernet1/7"})
    assert {n for n, p in device.ports.items() if p.untagged_only} == untagged


# Cisco Nexus 5000/7000 Interfaces guides, "Port Profiles": `port-profile type ethernet NAME` holds interface
# commands, `state enabled` turns it on, `inherit port-profile NAME` gives them to an interface, whose own commands win
# over the profile's; a profile may inherit another.
NXOS_PROFILES = """hostname sw1
port-profile type ethernet HOST-ACCESS
  switchport mode access
  switchport access vlan 10
  state enabled
port-profile type ethernet NATIVE-ONLY
  switchport trunk native vlan 12
  switchport trunk allowed vlan 12
  state enabled
port-profile type ethernet TRUNK
  switchport mode trunk
  inherit port-profile NATIVE-ONLY
  state enabled
port-profile type ethernet OFF
  switchport mode access
port-profile type port-channel PC-ACCESS
  switchport mode access
  state enabled
interface port-channel30
  inherit port-profile PC-ACCESS
interface Ethernet1/1
  inherit port-profile HOST-ACCESS
interface Ethernet1/2
  inherit port-profile HOST-ACCESS
  switchport mode trunk
interface Ethernet1/3
  inherit port-profile TRUNK
interface Ethernet1/4
  inherit port-profile TRUNK
  switchport trunk allowed vlan 7-12
interface Ethernet1/5
  inherit port-profile OFF
interface Ethernet1/6
  channel-group 30 mode active
"""


def test_nxos_switchport_lines_are_inherited_from_port_profiles():
    """Each `switchport` command a port does not write itself is its enabled profiles' (the first that writes it, a
    profile's inherited ones after its own), as the port's other commands are: an access profile, a trunk profile
    whose native-only list comes from the profile it inherits, an access port-channel profile reaching a member; the
    port's own mode or list wins, a profile not enabled gives nothing. Before: no switchport line was inherited, so
    every such port kept MAP002's "does not show which 802.1p" info."""
    device = nxos.parse([Input("sw1.cfg", NXOS_PROFILES)], "sw1")
    assert device.issues == []
    assert {n: p.untagged_only for n, p in device.ports.items()} == {
        "Ethernet1/1": True, "Ethernet1/2": False, "Ethernet1/3": True, "Ethernet1/4": False, "Ethernet1/5": False,
        "Ethernet1/6": True}


def test_nxos_native_only_trunk_leaves_no_cnp_priority_to_verify(tmp_path: Path):
    """n3k-sdn-tor's two host trunks carry VLANs 7-12 (native 12): MAP002 cannot verify the CNPs' 802.1p on either.
    Allowing the native VLAN alone on Ethernet1/3/1 makes it untagged: the info stays on Ethernet1/3/2 only."""
    def infos(path: Path) -> list[str | None]:
        return sorted(f.port for f in lint([path], "roce-dscp26", select_codes=["MAP002"]).findings
                      if "802.1p priority" in f.message)

    assert infos(SDN_TOR) == ["Ethernet1/3/1", "Ethernet1/3/2"]
    text = SDN_TOR.read_text(encoding="utf-8")
    edited = tmp_path / "n3k-sdn-tor.cfg"
    edited.write_text(text.replace("vlan 7-12", "vlan 12", 1), encoding="utf-8")
    assert infos(edited) == ["Ethernet1/3/2"]


def test_os10_access_ports_are_untagged():
    """OS10: `switchport access vlan` (with or without `switchport mode access`, or a member of an access
    port-channel); not a trunk, whose untagged and tagged VLANs' defaults no OS10 page read settles, nor a routed
    port (Port.vlans [] already) or one whose mode is unsaid."""
    device = dell_os10.parse([Input("sw1.cfg", "\n".join([
        "hostname sw1", "interface ethernet1/1/1", " switchport", " switchport access vlan 10", "!",
        "interface ethernet1/1/2", " switchport mode trunk", " switchport trunk allowed vlan 10", "!",
        "interface ethernet1/1/3", " description nothing said", "!",
        "interface port-channel5", " switchport mode access", "!",
        "interface ethernet1/1/4", " channel-group 5 mode active", "!",
        "interface ethernet1/1/5", " no switchport", " ip address 192.0.2.0/31", "!", ""]))], "sw1")
    assert device.issues == []
    assert {n: (p.untagged_only, p.vlans) for n, p in device.ports.items()} == {
        "ethernet1/1/1": (True, None), "ethernet1/1/2": (False, None), "ethernet1/1/3": (False, None),
        "ethernet1/1/4": (True, None), "ethernet1/1/5": (False, [])}


def test_eos_access_ports_are_untagged():
    """EOS: an access port (the default switchport mode) is untagged; a trunk, a dot1q-tunnel port, a mode of more
    words than access|trunk (it was passed over: an access port) and a routed port are not (the routed one is
    Port.vlans [])."""
    device = eos.parse([Input("sw1.cfg", "\n".join([
        "hostname sw1", "interface Ethernet1", "   switchport access vlan 10",
        "interface Ethernet2", "   switchport mode trunk", "interface Ethernet3", "   switchport mode dot1q-tunnel",
        "interface Ethernet4", "   no switchport", "   ip address 192.0.2.0/31",
        "interface Ethernet5", "   switchport mode trunk phone", "   switchport access vlan 10", ""]))], "sw1")
    assert {n: p.untagged_only for n, p in device.ports.items()} == {
        "Ethernet1": True, "Ethernet2": False, "Ethernet3": False, "Ethernet4": False, "Ethernet5": False}
