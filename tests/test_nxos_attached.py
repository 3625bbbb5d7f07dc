"""NX-OS snippets over a device that already attaches policies of its own (tests/fixtures/attached, written from the
Cisco Nexus 9000 and 3000 QoS configuration guides): the parser keeps which policy is attached where, the snippet
detaches each older one (`no service-policy ...`) in the same interface or `system qos` block before attaching its
own, and the device with the snippet applied attaches exactly one policy at each point and lints clean."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from losslessd import api, fix
from losslessd import render as rnd
from losslessd.errors import InputError
from losslessd.fix import apply
from losslessd.lint.finding import Severity
from losslessd.model import Device
from losslessd.parse import parser_for
from losslessd.parse.base import Input
from losslessd.policy import load_policy
from tests.clirun import losslessd
from tests.test_render_accepted import unlisted_lines

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "attached"
N9K = FIXTURES / "nxos-n9k-older.cfg"
N3K = FIXTURES / "nxos-n3k-older.cfg"
NXOS = apply.SHAPES["cisco_nxos"]
CABLE_M = 5.0  # NX-OS configs hold no cable length: the renders here give every port one


def _parse(text: str, path: str = "leaf.cfg") -> Device:
    return parser_for("cisco_nxos").parse([Input(path, text)], "leaf")


def _render(path: Path, policy: str, family: str, sections=None) -> tuple[rnd.Profile, str]:
    """What `render --device` writes for the saved config (ports with a known cable length)."""
    pol = load_policy(policy)
    device = _parse(path.read_text(), str(path))
    facts = [replace(f, cable_length_m=CABLE_M) for f in rnd.device_facts(device, pol)[0]]
    prof = rnd.profile(pol, facts, family=family, attached=device.service_policies)
    if sections is not None:
        prof = rnd.restrict(prof, sections)
    return prof, rnd.render("cisco_nxos", prof)


def _block(text: str, header: str) -> list[list[str]]:
    """The lines under each `header` line of a snippet (a block may appear more than once)."""
    out, current = [], None
    for line in text.splitlines():
        if line == header:
            current = []
            out.append(current)
        elif current is not None and line.startswith(" "):
            current.append(line)
        else:
            current = None
    return out


def _lint_problems(device_text: str, policy: str) -> list[str]:
    """Errors and warnings a lint of the config finds (infos say what an offline config cannot show)."""
    parsed = _parse(device_text)
    found = fix.lint_device(parsed, load_policy(policy), [Input("leaf.cfg", device_text)]) or []
    return [f"{f.code} {f.port}: {f.message}" for f in found if f.severity != Severity.info]


def test_the_parser_keeps_which_policy_is_attached_where():
    device = _parse(N9K.read_text())
    assert device.service_policies == {"network-qos": "OLD_PFC"}
    for name in ("Ethernet1/1", "Ethernet1/2"):
        assert device.ports[name].service_policies == {"qos input": "OLD_CLASSIFY", "queuing output": "OLD_EGRESS"}
    n3k = _parse(N3K.read_text())
    assert n3k.service_policies == {"network-qos": "OLD_PFC", "queuing output": "OLD_EGRESS"}
    assert n3k.ports["Ethernet1/1"].service_policies == {"qos input": "OLD_CLASSIFY"}


def test_a_port_channel_or_port_profile_policy_is_not_the_ports_own():
    """A member runs its port-channel's policy and a port its profile's, but a line on the interface itself is what a
    snippet's line on the interface meets."""
    text = N9K.read_text().replace("  service-policy type qos input OLD_CLASSIFY\n", "", 1) + (
        "interface port-channel10\n  service-policy type qos input OLD_CLASSIFY\n"
        "interface Ethernet1/1\n  channel-group 10 mode active\n")
    port = _parse(text).ports["Ethernet1/1"]
    assert port.service_policies == {"queuing output": "OLD_EGRESS"}
    assert port.dscp_chain(26).tc == 3  # (the port-channel's classification still applies)


def test_n9k_snippet_detaches_each_older_policy_before_attaching_its_own():
    prof, text = _render(N9K, "roce-dscp26", "n9k")
    qos, nq = f"ROCE_DSCP_{prof.map_tag()}", "ROCE_PFC_3"
    port = prof.ports[0]
    queuing = port.wred_profile
    assert _block(text, "system qos") == [[
        "  no service-policy type network-qos OLD_PFC",
        f"  service-policy type network-qos {nq}"]]
    for lines in _block(text, "interface Ethernet1/1") + _block(text, "interface Ethernet1/2"):
        assert [line for line in lines if "service-policy" in line] == [
            "  no service-policy type qos input OLD_CLASSIFY",
            f"  service-policy type qos input {qos}",
            "  no service-policy type queuing output OLD_EGRESS",
            f"  service-policy type queuing output {queuing}"]
    assert unlisted_lines("cisco_nxos", "n9k", text) == []


def test_n3k_snippet_detaches_the_system_qos_policies():
    prof, text = _render(N3K, "pfc-only", "n3k")
    assert _block(text, "system qos") == [
        ["  no service-policy type network-qos OLD_PFC", "  service-policy type network-qos ROCE_PFC_3"],
        ["  no service-policy type queuing output OLD_EGRESS", "  service-policy type queuing output ROCE_QUEUING"]]
    assert [line for lines in _block(text, "interface Ethernet1/1") for line in lines if "service-policy" in line] == [
        "  no service-policy type qos input OLD_CLASSIFY",
        f"  service-policy type qos input ROCE_DSCP_{prof.map_tag()}"]
    assert unlisted_lines("cisco_nxos", "n3k", text) == []


@pytest.mark.parametrize("path, policy, family", [(N9K, "roce-dscp26", "n9k"), (N3K, "pfc-only", "n3k")])
def test_the_device_with_the_snippet_attaches_one_policy_each_and_lints_clean(path, policy, family):
    prof, text = _render(path, policy, family)
    current = path.read_text()
    assert _lint_problems(current, policy)  # (the older policy is what the snippet replaces: it must show)
    fixed = NXOS.apply(current, NXOS.changes(current, text))
    assert "OLD_" not in "".join(line for line in fixed.splitlines(keepends=True) if "service-policy" in line)
    device = _parse(fixed)
    queuing = {"queuing output": "ROCE_QUEUING"} if family == "n3k" else {}
    assert device.service_policies == {"network-qos": "ROCE_PFC_3", **queuing}
    want = {"qos input": f"ROCE_DSCP_{prof.map_tag()}"}
    if family == "n9k":
        want["queuing output"] = prof.ports[0].wred_profile
    assert all(port.service_policies == want for port in device.ports.values())
    assert _lint_problems(fixed, policy) == []
    # The config with the snippet pasted after it reads the same: the reader takes the `no` lines as the switch does.
    pasted = _parse(current + text)
    assert pasted.service_policies == device.service_policies
    assert {n: p.service_policies for n, p in pasted.ports.items()} == {n: want for n in device.ports}


def test_nothing_is_detached_where_the_policy_is_the_same_or_system_defined():
    """A system-defined default-* policy is replaced by attaching another (the guides attach over it); the snippet's
    own name attached already needs no line at all."""
    current = N9K.read_text().replace("network-qos OLD_PFC\n", "network-qos default-8q-nq-policy\n")
    current = current.replace("output OLD_EGRESS", "output default-8q-out-policy")
    pol = load_policy("roce-dscp26")

    def render(text: str) -> tuple[rnd.Profile, str]:
        device = _parse(text)
        facts = [replace(f, cable_length_m=CABLE_M) for f in rnd.device_facts(device, pol)[0]]
        prof = rnd.profile(pol, facts, family="n9k", attached=device.service_policies)
        return prof, rnd.render("cisco_nxos", prof)

    prof, text = render(current)
    assert "no service-policy type network-qos" not in text and "no service-policy type queuing" not in text
    assert text.count("  no service-policy type qos input OLD_CLASSIFY\n") == 2
    assert "no service-policy" not in render(current.replace("OLD_CLASSIFY", f"ROCE_DSCP_{prof.map_tag()}"))[1]


def test_fix_detaches_the_older_queuing_policy_and_verifies_clean():
    result = api.fix([N9K], "roce-dscp26", unsafe=True, model="N9K-C93180YC-EX")
    (device,) = result.devices
    assert device.message is None and device.verified, device.message
    assert device.unresolved == [] and device.introduced == []
    lines = [line for part in device.parts for line in (part.snippet or "").splitlines() if "service-policy" in line]
    assert "  no service-policy type queuing output OLD_EGRESS" in lines
    assert lines.index("  no service-policy type queuing output OLD_EGRESS") < next(
        i for i, line in enumerate(lines) if line.startswith("  service-policy type queuing output ROCE_LOSSLESS_"))
    assert "-  service-policy type queuing output OLD_EGRESS" in device.diff
    assert "+  no service-policy" not in device.diff  # the running config shows the detach as the line gone


def test_render_cli_detaches_what_the_device_attaches(tmp_path):
    policy = tmp_path / "five-metres.yaml"
    policy.write_text("name: five-metres\nextends: roce-dscp26\nbuffer:\n  default_cable_length_m: 5\n")
    ran = losslessd("render", "--platform", "cisco_nxos", "--device", str(N9K), "--policy", str(policy),
                    "--family", "n9k")
    assert ran.returncode == 0, ran.stderr
    assert _block(ran.stdout, "system qos") == [["  no service-policy type network-qos OLD_PFC",
                                                 "  service-policy type network-qos ROCE_PFC_3"]]
    assert ran.stdout.count("  no service-policy type qos input OLD_CLASSIFY\n") == 2


def test_a_detach_naming_another_policy_changes_nothing():
    """The switch detaches only the policy a `no` line names; the offline apply and the reader do the same."""
    current = "interface Ethernet1/1\n  service-policy type qos input A\n"
    snippet = "interface Ethernet1/1\n  no service-policy type qos input B\n"
    assert NXOS.apply(current, snippet) == current
    assert _parse(current + snippet).ports["Ethernet1/1"].service_policies == {"qos input": "A"}
    gone = "interface Ethernet1/1\n  no service-policy type qos input A\n"
    assert NXOS.apply(current, gone) == "interface Ethernet1/1\n"
    assert _parse(current + gone).ports["Ethernet1/1"].service_policies is None


def test_junos_set_replaces_an_older_classifier_scheduler_map_and_pfc_profile():
    """Junos takes one name per unit for `classifiers dscp`, per interface for `scheduler-map` and
    `congestion-notification-profile`: the snippet's `set` lines take the older names' place (no `delete`)."""
    raw = (ROOT / "tests/fixtures/raw/juniper_junos/roce-leaf.cfg").read_text()
    older = raw.replace("roce-dscp", "old-dscp").replace("roce-map", "old-map").replace("roce-cnp", "old-cnp")
    pol = load_policy("roce-dscp26")
    device = parser_for("juniper_junos").parse([Input("leaf.conf", older)], "leaf")
    facts = [replace(f, cable_length_m=CABLE_M) for f in rnd.device_facts(device, pol)[0] if f.speed_gbps]
    text = rnd.render("juniper_junos", rnd.profile(pol, facts, model=device.hardware or "qfx5120-48y-8c"))
    shape = apply.SHAPES["juniper_junos"]
    fixed = shape.apply(older, shape.changes(older, text))
    for port in facts:
        bound = [line.split()[-1] for line in fixed.splitlines()
                 if line.startswith(f"set class-of-service interfaces {port.name} ")
                 and ("classifiers dscp" in line or "scheduler-map" in line or "congestion-notification" in line)]
        assert len(bound) == 3 and not any(name.startswith("old-") for name in bound), bound
    assert not [line for line in text.splitlines() if line.startswith("delete class-of-service interfaces")]
    found = fix.lint_device(device, pol, [Input("leaf.conf", fixed)])
    assert found is not None and [f.code for f in found if f.severity != Severity.info] == []


def test_a_detach_of_what_is_no_longer_attached_is_cut():
    """A second part attaching at the same point (Nexus 3000 `system qos` queuing, written with the scheduler and with
    the ECN part) finds the older policy detached by the first: its `no` line would detach nothing, and goes."""
    current = "system qos\n  service-policy type queuing output OLD\n"
    part = "system qos\n  no service-policy type queuing output OLD\n  service-policy type queuing output NEW\n"
    assert NXOS.changes(current, part) == part
    after = NXOS.apply(current, part)
    assert after == "system qos\n  service-policy type queuing output NEW\n"
    assert NXOS.changes(after, part) == "\n"  # (nothing left to change: the header goes with its last line)


def test_a_long_cable_port_detaches_its_older_pause_buffer_policy():
    """Above 100 m the snippet attaches an ingress queuing policy with the pause buffer (Nexus 9000 PFC chapter): an
    older one attached there is detached first."""
    older = N9K.read_text().replace("  service-policy type queuing output OLD_EGRESS\n",
                                    "  service-policy type queuing output OLD_EGRESS\n"
                                    "  service-policy type queuing input OLD_PAUSE\n", 1)
    device = _parse(older)
    assert device.ports["Ethernet1/1"].service_policies["queuing input"] == "OLD_PAUSE"
    pol = load_policy("roce-dscp26")
    facts = [replace(f, cable_length_m=150.0) for f in rnd.device_facts(device, pol)[0]]
    prof = rnd.profile(pol, facts, family="n9k", attached=device.service_policies)
    text = rnd.render("cisco_nxos", prof)
    (first,), (second,) = _block(text, "interface Ethernet1/1"), _block(text, "interface Ethernet1/2")
    pb = prof.ports[0].pause_buffer
    new = f"ROCE_PAUSE_{pb.size_bytes}_{pb.pause_bytes}_{pb.resume_bytes}"
    assert [line for line in first if "queuing input" in line] == [
        "  no service-policy type queuing input OLD_PAUSE", f"  service-policy type queuing input {new}"]
    assert [line for line in second if "queuing input" in line] == [f"  service-policy type queuing input {new}"]
    fixed = _parse(NXOS.apply(older, NXOS.changes(older, text)))
    assert {p.service_policies["queuing input"] for p in fixed.ports.values()} == {new}


def test_fix_detaches_a_policy_attached_through_an_interface_range_or_short_name():
    """A real config attaches its classifier under `interface eth1/41-42` and `interface eth1/43` (config-mode
    range and short names, tests/realworld/cisco_nxos/n9k-pause-threshold-below-kmin.cfg): the snippet enters
    `interface Ethernet1/41`, which the config does not spell, and must still detach RDMA-MARK there before
    attaching its own (an interface takes one qos input policy: Nexus 9000 QoS guide, "Attaching and Detaching a QoS
    Policy Action")."""
    path = ROOT / "tests/realworld/cisco_nxos/n9k-pause-threshold-below-kmin.cfg"
    (device,) = api.fix([path], "roce-dscp26", unsafe=True, model="N9K-C93180YC-EX").devices
    assert device.message is None and device.verified, device.message
    snippet = "".join(part.snippet or "" for part in device.parts)
    for name in ("Ethernet1/41", "Ethernet1/42", "Ethernet1/43"):
        (block,) = [b for b in _block(snippet, f"interface {name}") if any("type qos input" in line for line in b)]
        lines = [line for line in block if "service-policy type qos input" in line]
        assert lines[0] == "  no service-policy type qos input RDMA-MARK", (name, block)
        assert lines[1].startswith("  service-policy type qos input ROCE_DSCP_"), (name, block)


def _bundled() -> str:
    """N9K with Ethernet1/1-2 as members of port-channel10, which holds their older policies (Nexus 9000 QoS guide,
    "Attaching and Detaching a QoS Policy Action": a policy attached to a port channel takes effect for its members, one
    attached to a member only when the port is not in a port channel)."""
    older = "  service-policy type qos input OLD_CLASSIFY\n  service-policy type queuing output OLD_EGRESS\n"
    text = N9K.read_text().replace(older, "  channel-group 10 mode active\n")
    return text + ("\ninterface port-channel10\n  no switchport\n  service-policy type qos input OLD_CLASSIFY\n"
                   "  service-policy type queuing output OLD_EGRESS\n")


def test_port_channel_members_get_their_policies_on_the_port_channel(tmp_path):
    current = _bundled()
    device = _parse(current)
    assert {n: (p.bundle, p.service_policies) for n, p in device.ports.items()} == {
        "Ethernet1/1": ("port-channel10", None), "Ethernet1/2": ("port-channel10", None)}
    assert device.bundle_policies == {"port-channel10": {"qos input": "OLD_CLASSIFY", "queuing output": "OLD_EGRESS"}}
    assert _lint_problems(current, "roce-dscp26")  # the members run OLD_EGRESS, which drops instead of marking
    path = tmp_path / "leaf.cfg"
    path.write_text(current)
    prof, text = _render(path, "roce-dscp26", "n9k")
    # (NX-OS applies the port-channel's policies, MTU, PFC mode and watchdog to its members too: they go there; but the
    # members' own `mtu 9216` and `priority-flow-control mode on` lines are compatibility parameters the switch compares
    # with the port-channel's rather than replaces: they are restated with the port-channel's values, session 34)
    for name in ("Ethernet1/1", "Ethernet1/2"):
        (lines,) = _block(text, f"interface {name}")
        assert [line for line in lines if "service-policy" in line or "switchport" in line
                or "priority-flow-control" in line or "mtu" in line] == [
            "  mtu 9216", "  priority-flow-control mode on"], lines
    assert _block(text, "interface port-channel10") == [[
        "  mtu 9216", "  priority-flow-control mode on", "  priority-flow-control watch-dog-interval on",
        "  no service-policy type qos input OLD_CLASSIFY",
        f"  service-policy type qos input ROCE_DSCP_{prof.map_tag()}",
        "  no service-policy type queuing output OLD_EGRESS",
        f"  service-policy type queuing output {prof.ports[0].wred_profile}"]]
    fixed = NXOS.apply(current, NXOS.changes(current, text))
    assert _parse(fixed).bundle_policies == {"port-channel10": {
        "qos input": f"ROCE_DSCP_{prof.map_tag()}", "queuing output": prof.ports[0].wred_profile}}
    assert _lint_problems(fixed, "roce-dscp26") == []
    result = api.fix([path], "roce-dscp26", unsafe=True, model="N9K-C93180YC-EX")
    (dev,) = result.devices
    assert dev.message is None and dev.verified and not dev.introduced and not dev.unresolved, dev.message
    assert "+  service-policy type queuing output ROCE_LOSSLESS_" in dev.diff
    assert "interface port-channel10" in "".join(part.snippet or "" for part in dev.parts)


def test_port_channel_members_share_the_largest_pause_buffer_and_one_set_of_ecn_thresholds():
    """A port-channel takes one input queuing policy: members on a 300 m and a 150 m cable both get the 300 m one's
    pause buffer (more headroom, never less); members whose speeds ask for different ECN thresholds are refused."""
    pol = load_policy("roce-dscp26")
    ports = [rnd.PortFacts("Ethernet1/1", 100, 300, 9216, bundle="port-channel10"),
             rnd.PortFacts("Ethernet1/2", 100, 150, 9216, bundle="port-channel10"),
             rnd.PortFacts("Ethernet1/3", 100, 150, 9216)]
    prof = rnd.profile(pol, ports, family="n9k")
    long_cable = rnd._pause_buffer(100, 300, 9216, prof.ports[0].kmin_bytes)
    assert [p.pause_buffer for p in prof.ports[:2]] == [long_cable, long_cable]
    assert prof.ports[2].pause_buffer == rnd._pause_buffer(100, 150, 9216, prof.ports[2].kmin_bytes) != long_cable
    text = rnd.render("cisco_nxos", prof)
    name = f"ROCE_PAUSE_{long_cable.size_bytes}_{long_cable.pause_bytes}_{long_cable.resume_bytes}"
    assert [line for lines in _block(text, "interface port-channel10") for line in lines if "queuing input" in line] \
        == [f"  service-policy type queuing input {name}"]
    mixed = [rnd.PortFacts("Ethernet1/1", 100, 3, 9216, bundle="port-channel10"),
             rnd.PortFacts("Ethernet1/2", 400, 3, 9216, bundle="port-channel10")]
    with pytest.raises(InputError, match="port-channel10: its members Ethernet1/1, Ethernet1/2 need different ECN"):
        rnd.profile(pol, mixed, family="n9k")
