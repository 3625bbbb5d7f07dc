"""Routing-table captures (FRR / SONiC vtysh, Arista EOS and Cisco NX-OS `show ip route`): forwarding next hops only."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.errors import InputError
from losslessd.model import NextHop
from losslessd.parse.base import Input
from losslessd.parse.routes import parse_routes, prompt_host

ROUTES = Path(__file__).parent / "fixtures" / "routes"


def parsed(name: str):
    path = ROUTES / name
    routes, issues = parse_routes(Input(f"routes/{name}", path.read_text()))
    return ({r.prefix: [(h.address, h.port) for h in r.next_hops] for r in routes},
            [(i.code, i.source.line, i.message) for i in issues], routes)


def test_frr_keeps_selected_fib_next_hops_only():
    table, issues, routes = parsed("frr-edge.txt")
    assert table == {
        "10.1.0.0/24": [("10.0.0.1", "Ethernet0"), ("10.0.0.3", "Ethernet4")],  # ECMP; the inactive third left out
        "10.2.0.0/24": [("10.0.0.1", "Ethernet0")],  # recursive next hop: the resolved one counts
        "10.3.0.0/24": [("10.0.0.7", "Ethernet12")],  # onlink
        "2001:db8:1::/64": [("fe80::1", "Ethernet0")],
        "10.9.0.0/16": [],  # blackhole: drops what it matches
        "10.5.0.0/24": [("10.0.0.1", "Ethernet0")],
    }  # 10.6.0.0/24 is not selected (no '>'); VRF mgmt is not the default VRF
    assert issues == [
        ("SYS002", 18, "'10.4.0.0/33' is not an IP prefix; line skipped"),
        ("SYS002", 20, "next hop not understood: '*                    vja 10.0.0.3 Ethernet4'; line skipped")]
    assert routes[0].source.file == "routes/frr-edge.txt" and routes[0].source.line == 10


def test_eos_old_and_new_layouts():
    table, issues, _ = parsed("eos-edge.txt")
    assert table == {
        "0.0.0.0/0": [("10.3.1.1", "Ethernet2.101")],  # next hop on its own line (EOS 4.2x)
        "10.1.10.1/32": [("10.1.11.4", "Ethernet1"), ("10.1.12.4", "Ethernet2")],  # ECMP continuation
        "10.1.10.3/32": [(None, "Loopback0")],  # connected: a port, no address
        "10.3.1.0/31": [(None, "Ethernet2.101")],
        "10.10.0.0/16": [],  # aggregate to Null0
        "10.10.0.4/32": [("10.1.1.2", "Vxlan1")],  # EVPN: the VTEP through the VXLAN interface
        "10.20.0.0/16": [("10.1.11.4", "Ethernet1")],
    }  # VRF MGMT is left out
    assert issues == []


def test_eos_json_reads_as_the_text():
    """EOS `show ip route vrf all | json` (eAPI), written here after the shape of cEOS captures (batfish/lab-validation:
    `vrfs` / VRF / `routes` / prefix / `vias` with `interface` and `nexthopAddr`; an EVPN via with `vtepAddr` and no
    interface; an aggregate with `routeAction` `drop`). Audit round 10: 85 such captures were each one SYS001, no
    route. An EVPN hop keeps its VTEP and has no port (the text names the VXLAN interface); other VRFs are left out."""
    table, issues, routes = parsed("eos-edge.json")
    text, _, _ = parsed("eos-edge.txt")
    assert table == {**text, "10.10.0.4/32": [("10.1.1.2", None)]}
    assert [(code, line) for code, line, _ in issues] == [("SYS002", 56)] and "'10.30.0.0/33'" in issues[0][2]
    assert routes[0].source.line == 16  # the default VRF's "0.0.0.0/0", not MGMT's


def test_ring_captures():
    s1, issues, _ = parsed("ring3/s1.txt")
    assert issues == [] and s1["10.1.3.0/24"] == [("10.0.12.1", "Ethernet1")]  # static, not the BGP alternative
    s2, _, _ = parsed("ring3/s2.txt")
    assert s2["0.0.0.0/0"] == [("10.0.23.1", "Ethernet1"), ("10.0.12.0", "Ethernet2")]
    s3, _, _ = parsed("ring3/s3.txt")
    assert s3["10.1.2.0/24"] == [("10.0.31.1", "Ethernet1")] and len(s3) == 5


def test_text_that_is_not_a_routing_table():
    routes, issues = parse_routes(Input("x.txt", "hostname leaf1\ninterface Ethernet1\n"))
    assert routes == [] and [(i.code, i.source.file) for i in issues] == [("SYS001", "x.txt")]
    assert issues[0].message.startswith("x.txt: no routing-table entries found; read are: `show ip route`")


JSON_LEAF = st.none() | st.booleans() | st.integers() | st.sampled_from(["10.0.0.1", "Ethernet0", "10.1.0.0/24"])


@settings(max_examples=200, deadline=None)
@given(st.recursive(JSON_LEAF, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(
                        ["10.1.0.0/24", "default", "mgmt", "selected", "nexthops", "fib", "ip", "interfaceName",
                         "directlyConnected", "unreachable", "x"]), kids, max_size=4), max_leaves=12))
def test_any_json_gives_routes_or_issues(value):
    text = json.dumps(value) if isinstance(value, dict) else "{" + json.dumps(value)  # (a dict, or broken JSON)
    routes, issues = parse_routes(Input("fuzz.json", text))
    assert all(i.code in ("SYS001", "SYS002") and i.source.file == "fuzz.json" for i in issues)
    assert routes or issues


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "B>* 10.1.0.0/24 [20/0] via 10.0.0.1, Ethernet0, weight 1, 00:05:10",
    "  *                    via 10.0.0.3, Ethernet4, weight 1, 00:05:10", " B E      10.1.10.1/32 [200/0] via",
    "           via 10.3.1.1, Ethernet2.101", "VRF: default", "VRF mgmt:", "C>* 300.0.0.0/8 is directly connected",
    " C        10.3.1.0/31 [0/0]", "           Null0", "via via via", "B>* ::/0 via", "   garbage", "",
    'IP Route Table for VRF "default"', 'IP Route Table for VRF "mgmt"', "IPv4 unicast VRF default:",
    "10.1.0.0/24, ubest/mbest: 2/0", "10.0.0.0/31, ubest/mbest: 1/0, attached", "::/0, ubest/mbest: 1/0",
    "    *via 10.0.0.1, Eth1/49, [20/0], 1d, bgp-1, external", "    *via 10.0.0.1, [200/0], 1d, bgp-1, internal",
    "    *via 10.0.0.0, Eth1/1, [0/0], 1d, direct", "    **via 10.0.0.1, Eth1/1, [20/0]", "    *via Null0, [1/0], 1d",
    "    *via fe80::1%mgmt, [1/0], 1d", "    *via x, Eth1/1, [1/0]", "L * 10.0.5.1/32 is directly connected, lo",
    # Junos show route and its forwarding table
    "inet.0: 2 destinations, 2 routes (2 active, 0 holddown, 0 hidden)", "x.inet.0: 1 destinations, 1 routes",
    "10.1.2.0/24        *[BGP/170] 2d, localpref 100", "                    [BGP/170] 2d", "10.1.2.0/24",
    "                    > to 10.0.0.0 via et-0/0/48.0", "                      to 10.0.0.2 via et-0/0/49.0",
    "                    > via et-0/0/48.0", "                       Discard",
    "                    > to table x.inet.0",
    "Routing table: default.inet", "Routing table: x.inet", "10.1.2.0/24        user     0  ulst  1048574     4",
    "                              10.0.0.0           ucst      561     5 et-0/0/48.0", "default  perm  0  rjct  5  1",
]), max_size=12), st.text(max_size=40))
def test_any_mix_of_lines_parses_without_error(lines, noise):
    routes, issues = parse_routes(Input("fuzz.txt", "\n".join(lines + [noise])))
    assert all(i.code in ("SYS001", "SYS002", "SYS004") and i.source.file == "fuzz.txt" for i in issues)
    assert routes or issues


def test_frr10_vrf_headers_and_spaced_fib_marks():
    """FRR 10 heads each VRF `IPv4 unicast VRF NAME:` (the mgmt VRF's default route is not kept: it was, read as
    default-VRF routes) and spaces an unselected route's FIB mark (`L * ...`: its lines are not another route's)."""
    table, issues, _ = parsed("frr10-vrfs.txt")
    assert table == {"10.0.5.1/32": [(None, "Loopback0")],
                     "10.1.0.0/24": [("10.0.0.1", "Ethernet0"), ("10.0.0.3", "Ethernet4")]}
    assert issues == []


def test_nxos_best_unicast_hops_recursive_ones_resolved():
    table, issues, routes = parsed("nxos-edge.txt")
    assert table == {
        "10.0.3.0/31": [(None, "Ethernet1/49")],  # direct: connected, a port and no address
        "10.0.3.1/32": [(None, "Ethernet1/49")],  # local
        "10.0.3.2/31": [(None, "Ethernet1/50")],
        "10.1.1.0/24": [("10.0.3.0", "Ethernet1/49"), ("10.0.3.2", "Ethernet1/50")],  # ECMP; `via` without `*` out
        "10.1.2.0/24": [("10.0.3.2", "Ethernet1/50")],  # no interface printed: resolved through 10.0.3.2/31
        "10.1.3.0/24": [(None, "Vlan30")],
        "10.1.4.0/24": [("10.0.3.0", "Ethernet1/49")],  # `**` (multicast best) is not another hop; `%default` cut
        "10.1.5.0/24": [("192.0.2.9", None)],  # nothing in the table reaches it: kept, unverified downstream
        "10.8.0.0/16": [],  # Null0: discards
        "2001:db8:3::/64": [("fe80::1", "Ethernet1/49")],
        "0.0.0.0/0": [("10.1.3.254", None)],  # a next hop in the management VRF: not resolved through this table
        "10.1.6.0/24": [("10.0.3.0", None)],  # EVPN: a VTEP behind the VXLAN tunnel, not the cable to 10.0.3.0
    }  # VRF management is left out
    assert [(code, line) for code, line, _ in issues] == [("SYS002", 29), ("SYS002", 32)]
    assert "'10.9.0.0/34' is not an IP prefix" in issues[0][2] and "garbled" in issues[1][2]
    assert routes[0].source.line == 8


def test_eos_4_1x_vrf_name_headings_and_null0_connected_routes():
    """EOS 4.1x heads a VRF `VRF name: X` (its management VRF's routes were read as default-VRF routes);
    `is directly connected, Null0` discards (it was a connected route on a port named Null0)."""
    text = ("VRF name: MGMT\n S      0.0.0.0/0 [1/0] via 172.20.20.1, Management1\n"
            "VRF name: default\n C      10.1.0.0/24 is directly connected, Ethernet1\n"
            " S      10.9.0.0/16 is directly connected, Null0\n")
    routes, issues = parse_routes(Input("r.txt", text))
    assert issues == [] and [(r.prefix, [(h.address, h.port) for h in r.next_hops]) for r in routes] == [
        ("10.1.0.0/24", [(None, "Ethernet1")]), ("10.9.0.0/16", [])]
    only_mgmt = "VRF: MGMT\n S      0.0.0.0/0 [1/0] via 172.20.20.1, Management0\n"
    assert [(i.code, i.message) for i in parse_routes(Input("r.txt", only_mgmt))[1]] == [
        ("SYS002", "r.txt: a routing table with no route of the default VRF; no route read")]


def test_nxos_table_without_default_vrf_routes_says_so():
    text = 'IP Route Table for VRF "default"\n\nRoute not found\n\nIP Route Table for VRF "DMZ"\n' \
           "0.0.0.0/0, ubest/mbest: 1/0\n    *via 169.254.0.1, [20/0], 41w6d, bgp-64512, external, tag 64512\n"
    routes, issues = parse_routes(Input("r.txt", text))
    assert routes == [] and [(i.code, i.message) for i in issues] == [
        ("SYS002", "r.txt: a routing table with no route of the default VRF; no route read")]


def test_text_of_no_known_format_is_sys001_naming_what_is_read():
    huawei = ("Route Flags: R - relay, D - download to fib\nRouting Tables: Public\n"
              "Destination/Mask    Proto   Pre  Cost  Flags NextHop         Interface\n"
              "      10.0.0.0/31   Direct  0    0       D   10.0.0.1        100GE1/0/1\n")
    routes, issues = parse_routes(Input("routes/ce1.txt", huawei))
    assert routes == [] and [(i.code, i.source.file) for i in issues] == [("SYS001", "routes/ce1.txt")]
    assert "routes/ce1.txt" in issues[0].message and "Cisco NX-OS" in issues[0].message
    assert "Junos `show route`" in issues[0].message


def test_frr_json_selected_entries_and_fib_next_hops():
    """FRR `show ip route vrf all json`: the default VRF's selected entries, their `fib` next hops (the recursive one
    is left for its resolved hop, the inactive one out)."""
    table, issues, routes = parsed("frr-vrfs.json")
    assert table == {
        "10.1.0.0/24": [("10.0.0.1", "Ethernet0"), ("10.0.0.3", "Ethernet4")],  # not the mgmt VRF's
        "10.2.0.0/24": [("10.0.0.1", "Ethernet0")],
        "10.0.0.0/31": [(None, "Ethernet0")],
        "10.9.0.0/16": [],
    }  # 10.6.0.0/24: no entry selected
    assert issues == [("SYS002", 38, "'10.4.0.0/33' is not an IP prefix; route skipped")]
    assert routes[0].source.line == 9  # the default VRF's key, not the mgmt VRF's of the same prefix
    escaped = ('{"10.7.0.0\\/24":[{"selected":true,"nexthops":[{"fib":true,"ip":"10.0.0.1",'
               '"interfaceName":"swp1"}]}]}')
    routes, issues = parse_routes(Input("r.json", escaped))
    assert issues == []
    assert [(r.prefix, r.next_hops[0].port, r.source.line) for r in routes] == [("10.7.0.0/24", "swp1", 1)]
    assert [i.code for i in parse_routes(Input("r.json", '{"mgmt": {}}'))[1]] == ["SYS002"]
    assert [i.code for i in parse_routes(Input("r.json", '{"10.0.0.0/24": ['))[1]] == ["SYS001"]



@pytest.mark.parametrize(("name", "prompt"), [
    ("eos-edge.json", "admin@leaf1> show ip route vrf all | json"),
    ("frr-vrfs.json", 'root@sonic-leaf1:/home/admin# vtysh -c "show ip route vrf all json"'),
    # EOS's prompt names no user (EOS User Manual, "Command-Line Interface": `switch>`, `switch#`; audit round 11)
    ("eos-edge.json", "leaf1#show ip route vrf all | json"),
    ("eos-edge.json", "leaf1> show ip route vrf all | json"),
    # a shell below root ends its prompt in $ (bash's default PS1; review of round 11: SYS001, no routes)
    ("frr-vrfs.json", 'admin@sonic-leaf1:~$ vtysh -c "show ip route vrf all json"'),
    ("frr-vrfs.json", "cumulus@leaf1:mgmt:~$ sudo vtysh -c 'show ip route vrf all json'"),
])
def test_json_table_after_a_prompt_line_reads_as_without_it(name, prompt):
    """A JSON table saved with the prompt and the command typed above it (review round 31: detected as JSON past the
    prompt, then read with the prompt in it: no route and one SYS001 "not valid JSON"). The routes are those of the
    file without the prompt, each at its line one further down."""
    text = (ROUTES / name).read_text()
    alone = parse_routes(Input(name, text))
    routes, issues = parse_routes(Input(name, f"{prompt}\n{text}"))
    assert [(r.prefix, r.next_hops, r.source.line - 1) for r in routes] == [
        (r.prefix, r.next_hops, r.source.line) for r in alone[0]] and len(routes) >= 4
    assert [(i.code, i.source.line - 1, i.message) for i in issues] == [
        (i.code, i.source.line, i.message) for i in alone[1]]

def test_two_switches_json_tables_in_one_file_are_refused_and_a_prefix_routed_twice_is_named():
    """Review of round 12 (session 33): `leaf1#` before one `show ip route vrf all | json` document and `leaf2#` before
    the next read as one table of both switches, the later route of a prefix kept silently. Now the second switch's
    prompt is refused at its line (exit 2; through a topology, the file is unread: SYS001), and one switch's
    documents routing a prefix through other next hops are named at the later route."""
    doc = ('{"vrfs": {"default": {"routes": {"10.2.0.0/24": {"routeType": "eBGP", "vias": [{"interface": "Ethernet1", '
           '"nexthopAddr": "10.1.11.4"}]}}}}}\n')
    other = doc.replace("Ethernet1", "Ethernet2").replace("10.1.11.4", "10.1.12.4")
    two = f"leaf1#show ip route vrf all | json\n{doc}leaf2#show ip route vrf all | json\n{other}leaf2#\n"
    with pytest.raises(InputError) as raised:
        parse_routes(Input("t.json", two))
    assert (raised.value.file, raised.value.line) == ("t.json", 3)
    assert "sessions of several switches: the prompts of 'leaf1' (line 1) and 'leaf2' (line 3, " in raised.value.message
    routes, issues = parse_routes(Input("t.json", two.replace("leaf2#", "leaf1#")))
    assert [(r.prefix, r.source.line) for r in routes] == [("10.2.0.0/24", 2), ("10.2.0.0/24", 4)]
    assert [(i.code, i.source.line) for i in issues] == [("SYS002", 4)]
    assert "10.2.0.0/24 is routed twice" in issues[0].message and "line 2 (10.1.11.4 Ethernet1)" in issues[0].message
    same, said = parse_routes(Input("t.json", f"leaf1#show ip route vrf all | json\n{doc}leaf1#\n{doc}"))
    assert len(same) == 2 and said == []  # the same route saved twice is no conflict


def test_two_json_tables_saved_in_one_session_are_both_read():
    """A session that ran `show ip route vrf all | json` and `show ipv6 route vrf all | json` and saved both in one
    file (audit round 12: SYS001 "routing table JSON is not valid (Extra data ...)", no route): each document's routes,
    at their own lines; a second document that is no routing table is named at its first line."""
    text = (ROUTES / "eos-edge.json").read_text()
    alone, own = parse_routes(Input("e.json", text))
    lines = text.count("\n") + (not text.endswith("\n"))
    both = f"leaf1#show ip route vrf all | json\n{text.rstrip()}\nleaf1#show ipv6 route vrf all | json\n{text}leaf1#\n"
    routes, issues = parse_routes(Input("two.json", both))
    assert len(alone) >= 4 and [(i.code, i.source.line) for i in issues] == [
        (i.code, i.source.line + 1) for i in own] + [(i.code, i.source.line + lines + 2) for i in own]
    assert [(r.prefix, r.source.line) for r in routes] == [(r.prefix, r.source.line + 1) for r in alone] + [
        (r.prefix, r.source.line + lines + 2) for r in alone]
    other = f"leaf1#show ip route vrf all | json\n{text.rstrip()}\nleaf1#show vrf | json\n{{\"vrfs\": {{}}}}\n"
    routes, issues = parse_routes(Input("two.json", other))
    assert len(routes) == len(alone) and len(issues) == len(own) + 1
    assert (issues[-1].code, issues[-1].source.line) == ("SYS001", lines + 3)
    assert issues[-1].message.startswith(f"JSON document 2 of 2 (line {lines + 3}): no routing-table entries") \
        and "two.json" not in issues[-1].message
    # EOS `show lldp neighbors | json` after it: a plain object whose keys are no prefixes is no routing table (before,
    # "'lldpNeighbors' is not an IP prefix; route skipped")
    lldp = ('leaf1#show lldp neighbors | json\n{\n  "lldpNeighbors": [{"port": "Ethernet1", "neighborDevice": "s1",'
            ' "neighborPort": "Ethernet1", "ttl": 120}]\n}\n')
    routes, issues = parse_routes(Input("two.json", f"leaf1#show ip route vrf all | json\n{text.rstrip()}\n{lldp}"))
    assert len(routes) == len(alone) and [(i.code, i.source.line) for i in issues[len(own):]] == [("SYS001", lines + 3)]


def test_frr_json_plain_table_keeps_lines_past_vrf_names():
    """FRR `show ip route json` writes `"vrfName": "default"` inside every entry (zebra_vty.c): each route keeps the
    line of its own prefix key."""
    text = ('{\n'
            '  "10.1.0.0/24": [\n'
            '    {"prefix": "10.1.0.0/24", "vrfName": "default", "selected": true,\n'
            '     "nexthops": [{"fib": true, "ip": "10.0.0.1", "interfaceName": "Ethernet0"}]}\n'
            '  ],\n'
            '  "10.2.0.0/24": [\n'
            '    {"prefix": "10.2.0.0/24", "vrfName": "default", "selected": true,\n'
            '     "nexthops": [{"fib": true, "ip": "10.0.0.3", "interfaceName": "Ethernet4"}]}\n'
            '  ]\n'
            '}\n')
    routes, issues = parse_routes(Input("routes/leaf.json", text))
    assert issues == []
    assert [(r.prefix, r.source.line) for r in routes] == [("10.1.0.0/24", 2), ("10.2.0.0/24", 6)]


def test_json_tables_of_other_platforms_are_not_read_as_vrfs():
    """NX-OS `show ip route | json` (`{"TABLE_vrf": ...}`) is a format not read: SYS001 naming what is read, not
    SYS002 "no route of the default VRF". EOS's (`{"vrfs": ...}`) is read since audit round 10, not as FRR VRFs."""
    eos = json.dumps({"vrfs": {"default": {"routes": {"10.1.0.0/24": {"routeType": "eBGP", "vias": [
        {"nexthopAddr": "10.0.0.1", "interface": "Ethernet1"}]}}}}})
    nxos = json.dumps({"TABLE_vrf": {"ROW_vrf": {"vrf-name-out": "default", "TABLE_addrf": {"ROW_addrf": {
        "addrf": "ipv4", "TABLE_prefix": {"ROW_prefix": [{"ipprefix": "10.1.0.0/24"}]}}}}}})
    routes, issues = parse_routes(Input("routes/sw.json", nxos))
    assert routes == [] and [i.code for i in issues] == ["SYS001"]
    assert "no routing-table entries found" in issues[0].message
    routes, issues = parse_routes(Input("routes/sw.json", eos))
    assert issues == [] and [(r.prefix, [(h.address, h.port) for h in r.next_hops]) for r in routes] == [
        ("10.1.0.0/24", [("10.0.0.1", "Ethernet1")])]


def test_longest_prefix_match_is_one_index_for_next_hops_and_paths():
    """RFC 1812 5.2.4.3: the longest matching prefix wins, per address family. One index (losslessd.prefixes) serves
    the route parser (a BGP next hop resolved through its table) and the path analysis (a destination's route)."""
    from losslessd.parse import routes as route_parser
    from losslessd.paths import routing
    from losslessd.prefixes import LongestPrefix

    table = LongestPrefix((ipaddress.ip_network(p), name) for p, name in (
        ("0.0.0.0/0", "default"), ("10.0.0.0/8", "ten"), ("10.1.0.0/16", "ten-one"), ("10.1.2.0/24", "ten-one-two"),
        ("2001:db8::/32", "doc6")))

    def match(address: str):
        addr = ipaddress.ip_address(address)
        return table.match(addr.version, int(addr))

    assert [match(a) for a in ("10.1.2.3", "10.1.3.3", "10.2.0.1", "192.0.2.1", "2001:db8::1", "2001:db9::1")] == [
        "ten-one-two", "ten-one", "ten", "default", "doc6", None]
    assert route_parser.LongestPrefix is routing.LongestPrefix is LongestPrefix


def test_junos_show_route_active_entries_and_selected_next_hops_only():
    """Junos CLI reference, "show route": `*`/`+` marks the route in the forwarding table, `>` its selected next hop.
    Of several equal-cost hops Junos installs one unless a load-balance policy is exported, and `show route` may mark
    one either way: the others are not guessed, and one SYS004 says so (`show route forwarding-table` shows them)."""
    table, issues, routes = parsed("junos-route.txt")
    assert table == {
        "0.0.0.0/0": [("192.168.0.1", "em0.0")],
        "10.0.0.0/31": [(None, "et-0/0/48.0")],  # Direct: a connected route; the Local /32 forwards nothing
        "10.0.0.2/31": [(None, "et-0/0/49.0")],
        "10.1.1.0/24": [(None, "irb.100")],
        "10.1.2.0/24": [("10.0.0.0", "et-0/0/48.0")],  # only the `>` hop; the inactive entry's is not read either
        "10.1.3.0/24": [("10.0.0.0", "et-0/0/48.0"), ("10.0.0.2", "et-0/0/49.0")],  # both marked: both followed
        "10.8.0.0/16": [],  # Discard
        "172.16.0.0/24": [("table TENANT-A.inet.0", None)],  # into another instance: no cable, unverified
        "2001:db8:2::/64": [("fe80::1", "et-0/0/48.0")],
    }  # 10.1.4.0/24 is only last active (`-`); TENANT-A.inet.0's routes are another instance's
    assert [(code, line) for code, line, _ in issues] == [("SYS002", 32), ("SYS004", 16)]
    assert "'10.9.0.0/34' is not an IP prefix" in issues[0][2]
    assert issues[1][2].startswith("1 route(s) list next hops besides the selected one (`>`), from 10.1.2.0/24 on")
    assert routes[0].source.line == 6


def test_junos_show_route_json_reads_as_the_text():
    table, issues, routes = parsed("junos-route.json")
    text, _, _ = parsed("junos-route.txt")
    assert table == {p: text[p] for p in ("10.0.0.0/31", "10.1.2.0/24", "10.1.3.0/24", "10.8.0.0/16", "172.16.0.0/24")}
    assert [(code, line) for code, line, _ in issues] == [("SYS004", 114)]  # the line of "10.1.2.0/24"
    assert routes[0].source.line == 26


def test_junos_cli_banner_and_prompt_lines_around_a_capture_are_not_the_table():
    """On a QFX or EX Virtual Chassis member the Junos CLI prints the member's role (`{master:0}`) on a line of its own
    before each prompt, so a capture copied from a session starts with it and ends with the next prompt (audit round
    10: 43 of 67 `show route | display json` captures of batfish/lab-validation end so). Both forms are read as the
    table between those lines; before, the leading `{` sent the text to the JSON reader and the trailing lines broke
    the JSON, each a SYS001 and no route."""
    for name in ("junos-route-vc-session.json", "junos-route-vc-session.txt"):
        table, issues, routes = parsed(name)
        assert table == {"10.0.0.0/31": [(None, "et-0/0/48.0")], "10.1.2.0/24": [("10.0.0.0", "et-0/0/48.0")]}, name
        assert issues == [], name
    assert routes[0].source.line == 7
    _, _, routes = parsed("junos-route-vc-session.json")
    assert routes[0].source.line == 15  # the line of its rt-destination in the file, the banner lines counted
    text = (ROUTES / "junos-route-vc-session.json").read_text().replace("user@qfx-leaf1> \n", "user@qfx-leaf1> exit\n"
                                                                         "Connection closed.\n")
    routes, issues = parse_routes(Input("t.json", text))  # text other than the CLI's own after the JSON: still refused
    assert routes == [] and [i.code for i in issues] == ["SYS001"] and "not valid" in issues[0].message


def test_junos_forwarding_table_holds_every_installed_hop():
    """`show route forwarding-table`: a unilist's members and an indirect hop's resolution are installed; `rslv` is an
    interface's subnet; `locl`, `recv` and multicast rows forward to no port; other instances' tables are left out."""
    table, issues, _ = parsed("junos-forwarding-table.txt")
    assert table == {
        "0.0.0.0/0": [("192.168.0.1", "em0.0")],
        "0.0.0.0/32": [],  # dscd
        "10.0.0.0/31": [(None, "et-0/0/48.0")],
        "10.0.0.0/32": [(None, "et-0/0/48.0")],  # the neighbour's MAC: reached directly on that port
        "10.0.0.2/31": [(None, "et-0/0/49.0")],
        "10.1.1.0/24": [(None, "irb.100")],
        "10.1.2.0/24": [("10.0.0.0", "et-0/0/48.0"), ("10.0.0.2", "et-0/0/49.0")],  # ulst: both installed
        "10.1.5.0/24": [("10.0.0.2", "et-0/0/49.0")],  # indr, resolved on the line below
        "10.8.0.0/16": [],  # rjct
        "::/0": [],
        "2001:db8:2::/64": [("fe80::1", "et-0/0/48.0")],
    }
    assert [(code, line) for code, line, _ in issues] == [("SYS002", 19)] and "garbled" in issues[0][2]


def test_junos_tables_without_a_default_instance_route_say_so():
    text = ("TENANT-A.inet.0: 1 destinations, 1 routes (1 active, 0 holddown, 0 hidden)\n"
            "+ = Active Route, - = Last Active, * = Both\n\n"
            "0.0.0.0/0          *[Static/5] 2d 03:00:01\n                    > to 10.200.0.1 via et-0/0/10.0\n")
    routes, issues = parse_routes(Input("t.txt", text))
    assert routes == [] and [i.code for i in issues] == ["SYS002"] and "default instance" in issues[0].message


JUNOS_KEYS = ["route-table", "table-name", "rt", "rt-destination", "rt-entry", "active-tag", "nh", "selected-next-hop",
              "to", "via", "nh-table", "nh-type", "nh-local-interface", "data"]
JUNOS_LEAF = st.none() | st.integers() | st.sampled_from(["inet.0", "*", "10.1.0.0/24", "et-0/0/0.0", "Discard", "x"])


@settings(max_examples=200, deadline=None)
@given(st.recursive(JUNOS_LEAF, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(JUNOS_KEYS),
                                                                                          kids, max_size=4),
                    max_leaves=14))
def test_any_junos_json_gives_routes_or_issues(value):
    routes, issues = parse_routes(Input("fuzz.json", json.dumps({"route-information": value})))
    assert all(i.code in ("SYS001", "SYS002", "SYS004") and i.source.file == "fuzz.json" for i in issues)
    assert routes or issues


def _ecmp_table(platform: str, n: int) -> str:
    """One route of ``n`` equal-cost next hops, one port each, the first listed twice, as ``platform`` prints it."""
    hops = [*range(n), 0]
    if platform == "eos":
        head = "sw#show ip route\n\nVRF: default\n\n B E      10.200.0.0/24 [200/0] via 10.0.0.0, Ethernet0\n"
        return head + "".join(f"                               via 10.{i // 250}.{i % 250}.0, Ethernet{i}\n"
                              for i in hops[1:])
    if platform == "nxos":
        head = 'sw# show ip route\nIP Route Table for VRF "default"\n\n10.200.0.0/24, ubest/mbest: 1/0\n'
        return head + "".join(f"    *via 10.{i // 250}.{i % 250}.0, Eth1/{i}, [20/0], 1d02h, bgp-65000, external\n"
                              for i in hops)
    head = ("Routing table: default.inet\nInternet:\n"
            "Destination        Type RtRef Next hop           Type Index    NhRef Netif\n"
            "10.200.0.0/24      user     0                    ulst  1048574     4\n")
    member = "                              10.{}.{}.0           ucst      561     5 et-0/0/{}.0\n"
    return head + "".join(member.format(i // 250, i % 250, i) for i in hops)


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos"])
def test_an_ecmp_route_of_thousands_of_next_hops_keeps_each_once_without_comparing_it_to_every_other(
        platform, monkeypatch):
    # A list's `in` per next hop: 10,000 equal-cost hops on each of two switches were 50 million NextHop comparisons,
    # 13 s of the 19 s CPU of their lint (docs/hostile-inputs.md, round 19); a step count, not a time.
    compared = [0]
    eq = NextHop.__eq__

    def counting(self, other):
        compared[0] += 1
        return eq(self, other)

    monkeypatch.setattr(NextHop, "__eq__", counting)
    n = 3000
    routes, issues = parse_routes(Input(f"{platform}.txt", _ecmp_table(platform, n)))
    [route] = [r for r in routes if r.prefix == "10.200.0.0/24"]
    assert len(route.next_hops) == n and len({h.port for h in route.next_hops}) == n, issues
    assert compared[0] < n


@pytest.mark.parametrize(("capture", "host"), [
    ("leaf1# show ip route\n", "leaf1"),
    ("leaf1# sh ip ro\n", "leaf1"),  # (EOS, NX-OS and FRR's vtysh take any unique prefix of a keyword)
    ("leaf1.dc1.example.com#sh ipv6 route\n", "leaf1.dc1.example.com"),
    ("leaf1(config)#sho ip rout vrf all\n", "leaf1"),
    ("user@qfx1> sh route forwarding-table\n", "qfx1"),
    ("admin@leaf1:~$ sudo vtysh -c 'show ip route'\n", "leaf1"),
    ("admin@leaf1:~$ sudo ip netns exec asic0 vtysh -c 'show ip route'\n", "leaf1"),  # (a multi-ASIC namespace)
    ("admin@leaf1:~$ show ip route -n asic0\n", "leaf1"),
    (" B>* 10.0.0.0/24 [20/0] via 10.1.0.1, Ethernet0\n", None),  # (a route's `B>` is no prompt)
    ("leaf1# show ip bgp\n", None),
])
def test_the_prompt_that_ran_the_routing_table_command_names_its_switch(capture, host):
    """The switch a routing table's capture names (topology._routes_of compares it with the switch it is filed under):
    an abbreviated `sh ip ro` or a `sudo vtysh` at a shell named none, so such a table filed under another switch was
    read as that switch's without a word."""
    assert prompt_host(capture) == host


def test_junos_show_route_next_hops_listed_twice_are_kept_once():
    """A selected next hop `show route` lists twice (a capture pasted with a repeated line, or a JSON `nh` list holding
    it twice) is one hop, as in the other readers (HopsOnce.keep): a doubled hop would weigh one ECMP member twice."""
    text = (ROUTES / "junos-route.txt").read_text().replace(
        "                    > to 10.0.0.0 via et-0/0/48.0\n                    > to 10.0.0.2",
        "                    > to 10.0.0.0 via et-0/0/48.0\n" * 2 + "                    > to 10.0.0.2", 1)
    routes, _ = parse_routes(Input("routes/junos-route.txt", text))
    hops = {r.prefix: [(h.address, h.port) for h in r.next_hops] for r in routes}
    assert hops["10.1.3.0/24"] == [("10.0.0.0", "et-0/0/48.0"), ("10.0.0.2", "et-0/0/49.0")]

    doc = json.loads((ROUTES / "junos-route.json").read_text())

    def doubled(node):  # every route's active entry's next hops, each listed twice
        if isinstance(node, dict):
            if isinstance(node.get("nh"), list):
                node["nh"] = node["nh"] * 2
            for value in node.values():
                doubled(value)
        elif isinstance(node, list):
            for value in node:
                doubled(value)
    doubled(doc)
    routes, _ = parse_routes(Input("routes/junos-route.json", json.dumps(doc, indent=1)))
    assert {r.prefix: [(h.address, h.port) for h in r.next_hops] for r in routes} == parsed("junos-route.json")[0]
