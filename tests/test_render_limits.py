"""Rendered values stay inside what each platform's CLI or schema accepts (platforms.RenderLimits).

The accepted-forms test checks a line's shape (`mtu {N}`); these check the number: a snippet whose MTU or
watchdog timer the switch rejects would stop a paste half-way, with PFC on and the rest missing.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path

import pytest

from losslessd import render as rnd
from losslessd.errors import InputError
from losslessd.model import Source
from losslessd.platforms import NVUE_SPEEDS, PLATFORMS
from losslessd.policy import load_policy
from tests import render_golden
from tests.clirun import losslessd
from tests.conftest import FIXTURES


@pytest.mark.parametrize(("platform", "mtu", "largest"), [
    ("arista_eos", 9216, 9214),  # EOS routed port mtu 68-9214
    ("juniper_junos", 9216, 9202),  # QFX media MTU 256-9216 = IP MTU + 14
    ("cisco_nxos", 9300, 9216),
    ("nvidia_cumulus", 9300, 9216),
    ("sonic", 9300, 9216),
])
def test_an_mtu_the_platform_rejects_is_refused(platform, mtu, largest):
    name = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)[0]
    args = render_golden.variants(platform)[0][1]
    ran = losslessd("render", "--platform", platform, "--policy", "pfc-only", *args, "--pool-size", "47218432",
                    "--ports", f"{name}:100G:3m:{mtu}")
    assert ran.returncode == 2 and ran.stdout == ""
    assert f"MTU {mtu} B is outside what {platform} accepts" in ran.stderr and f"-{largest} B" in ran.stderr
    ok = losslessd("render", "--platform", platform, "--policy", "pfc-only", *args, "--pool-size", "47218432",
                   "--ports", f"{name}:100G:3m:{largest}")
    assert ok.returncode == 0, ok.stderr


def _render(platform: str, detection: tuple[int, int]) -> str:
    pol = load_policy("roce-dscp26")
    low, high = detection
    rng = pol.watchdog.detection_time_ms.model_copy(update={"min": low, "max": high})
    pol = pol.model_copy(update={"watchdog": pol.watchdog.model_copy(update={"detection_time_ms": rng})})
    name = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)[0]
    prof = rnd.profile(pol, [rnd.PortFacts(name, 100, 3, 9100)], pool_bytes=render_golden.POOL_BYTES,
                       **render_golden.options(platform))
    return rnd.render(platform, prof)


# (platform, the poll interval line, the poll-count line or None): both read as numbers.
WATCHDOG_LINES = {
    "cisco_nxos": (r"priority-flow-control watch-dog interval (\d+)", r"watch-dog shutdown-multiplier (\d+)"),
    "nvidia_cumulus": (r"nv set qos pfc-watchdog polling-interval (\d+)", r"pfc-watchdog robustness (\d+)"),
    "sonic": (r'"POLL_INTERVAL": "(\d+)"', None),
}


@pytest.mark.parametrize("platform", sorted(WATCHDOG_LINES))
def test_a_short_detection_time_polls_no_faster_than_the_platform_allows(platform):
    """A policy that wants detection within 150 ms halves it to a 75 ms poll: below the 100 ms NX-OS, NVUE and
    SONiC take. The poll becomes 100 ms, and detection one poll where the platform counts polls."""
    text = _render(platform, (100, 150))
    poll_line, polls_line = WATCHDOG_LINES[platform]
    assert int(re.search(poll_line, text)[1]) == 100
    if polls_line:
        assert int(re.search(polls_line, text)[1]) == 1


def test_a_long_detection_time_fits_the_nxos_multiplier():
    """NX-OS counts detection in 1-10 polls: 2 s at a 100 ms poll (as `fix` renders a config broken past the
    policy's detection range) is ten polls of 200 ms, not twenty of 100 ms, which the switch rejects."""
    name = render_golden.PORT_NAMES["cisco_nxos"][0]
    prof = rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts(name, 100, 3, 9100)],
                       **render_golden.options("cisco_nxos"))
    text = rnd.render("cisco_nxos", replace(prof, wd_detection_ms=2000, wd_poll_ms=100))
    assert "priority-flow-control watch-dog interval 200\n" in text
    assert "priority-flow-control watch-dog shutdown-multiplier 10\n" in text


@pytest.mark.parametrize("platform", sorted(WATCHDOG_LINES))
def test_a_detection_time_below_the_shortest_poll_is_refused(platform):
    with pytest.raises(InputError, match="PFC watchdog: a detection time of 50 ms"):
        _render(platform, (20, 50))


@pytest.mark.parametrize("family", ["n9k", "n3k"])
def test_every_nxos_network_qos_class_carries_jumbo_frames(family):
    """A network-qos class starts at a 1500-byte MTU, which the Nexus sizes no-drop headroom for (and the 3000
    enforces): each class states 9216, even when the snippet is a `pfc` fix for one 1500-byte port (a class is
    switch-wide; the ports' own largest MTU would shrink it under every other port's jumbo frames)."""
    prof = rnd.profile(load_policy("sonic-azure"), [rnd.PortFacts("Ethernet1/1", 100, 3, 1500)], family=family)
    text = rnd.render("cisco_nxos", rnd.restrict(prof, {"pfc"}))
    block = text[text.index("policy-map type network-qos"):text.index("system qos")]
    classes = re.split(r"\n  class type network-qos ", block)[1:]
    assert len(classes) == 3  # the two no-drop classes and the default
    assert all("\n    mtu 9216" in body for body in classes), block


def test_eos_watchdog_timers_are_whole_hundredths_of_a_second():
    """EOS takes timeout and recovery-time with at most 2 decimals (AVD's schema): a policy capping detection at
    155 ms and asking restoration of at least 333 ms gets 0.15 s and 0.34 s, inside both ranges, not 0.155 and
    0.333, which EOS rejects."""
    pol = load_policy("roce-dscp26")
    wd = pol.watchdog.model_copy(update={
        "detection_time_ms": pol.watchdog.detection_time_ms.model_copy(update={"min": 100, "max": 155}),
        "restoration_time_ms": pol.watchdog.restoration_time_ms.model_copy(update={"min": 333, "max": 5000})})
    prof = rnd.profile(pol.model_copy(update={"watchdog": wd}), [rnd.PortFacts("Ethernet1", 100, 3, 9100)],
                       family="sand")
    text = rnd.render("arista_eos", prof)
    assert "priority-flow-control pause watchdog default timeout 0.15\n" in text
    assert "priority-flow-control pause watchdog default recovery-time 0.34\n" in text
    assert "priority-flow-control pause watchdog default polling-interval 0.075\n" in text  # twice per 0.15 s
    for value in re.findall(r"watchdog default (?:timeout|recovery-time) (\S+)", text):
        assert len(value.partition(".")[2]) <= 2, value


def test_a_strict_cnp_queue_on_a_lossless_priority_is_refused(tmp_path):
    """cnp.priority 3 with RoCE lossless on 3 rendered EOS `tx-queue 3` both `no priority` (weighted, lossless) and
    `priority strict`: RoCE data strict over every other queue. The policy is refused where it says so."""
    (tmp_path / "p.yaml").write_text("name: p\nextends: roce-dscp26\ncnp: {dscp: 48, priority: 3}\n")
    with pytest.raises(InputError, match="priority 3 is also a lossless priority") as exc:
        load_policy(tmp_path / "p.yaml")
    assert exc.value.line == 3
    (tmp_path / "d.yaml").write_text("name: d\nextends: roce-dscp26\nlossless: {priorities: [3, 6], dscp: [26, 46]}\n"
                                     "cnp: {dscp: 48, priority: null}\n")  # CNPs default to 6
    # (6 lossless: the highest free class, never a lossless one; test_render_policies)
    prof = rnd.profile(load_policy(tmp_path / "d.yaml"), [rnd.PortFacts("Ethernet1", 100, 3, 9100)])
    assert (prof.cnp_priority, prof.strict_queues, prof.dscp_to_tc[48]) == (7, [7], 7)
    (tmp_path / "w.yaml").write_text("name: w\nextends: roce-dscp26\ncnp: {dscp: 48, priority: 3, strict: false}\n")
    text = rnd.render("arista_eos", rnd.profile(load_policy(tmp_path / "w.yaml"),
                                               [rnd.PortFacts("Ethernet1", 100, 3, 9100)], family="sand"))
    assert "priority strict" not in text  # CNPs weighted with the RoCE data they share a queue with


def test_priority_0_lossless_is_refused(tmp_path):
    """Every DSCP a policy does not name goes to traffic class 0: with priority 0 lossless, NVUE paused all traffic
    (`dscp 0,1,...,63 switch-priority 0` beside `pfc ... switch-priority 0`), and a host script did the same."""
    (tmp_path / "p.yaml").write_text("name: p\nextends: pfc-only\nlossless: {priorities: [0, 3], dscp: [26]}\n")
    for platform in ("nvidia_cumulus", "linux_mlx5"):
        ran = losslessd("render", "--platform", platform, "--policy", str(tmp_path / "p.yaml"),
                        "--ports", "swp1:100G:3m")
        assert ran.returncode == 2 and ran.stdout == "" and "priority 0 is lossless" in ran.stderr, ran.stderr


def test_a_cable_the_mlx5_driver_ignores_is_refused():
    """mlx5e_dcbnl_ieee_setpfc takes a cable length only below MLX5E_MAX_CABLE_LENGTH (1000 m, Linux en_dcbnl.c) and
    ignores a longer one without an error: `--cable_len 5000` left the NIC's lossless buffer sized for 7 m."""
    for cable in ("1000m", "5km", "999.5m"):
        ran = losslessd("render", "--platform", "linux_mlx5", "--policy", "pfc-only", "--ports", f"eth0:100G:{cable}")
        assert ran.returncode == 2 and ran.stdout == "", (cable, ran.stderr)
        assert "m cable is outside what linux_mlx5 applies (1-999 m)" in ran.stderr, ran.stderr
    ok = losslessd("render", "--platform", "linux_mlx5", "--policy", "pfc-only", "--ports", "eth0:100G:999m")
    assert ok.returncode == 0 and "--cable_len 999" in ok.stdout, ok.stderr


def test_nvue_cable_length_is_the_command_references_range():
    """NVUE command reference: `qos pfc <profile-id> cable-length` 1-100000 (m), the one home being the platform's
    RenderLimits (the NVUE reader refuses the same range). A fraction is rounded up, so 100000.5 m is 100001 m."""
    assert PLATFORMS["nvidia_cumulus"].limits.cable_m == (1, 100000)
    pol = load_policy("roce-dscp26")
    for cable, refused in ((100000.5, True), (100000, False), (0.2, False)):
        prof = rnd.profile(pol, [rnd.PortFacts("swp1", 100, cable, 9216)])
        if refused:
            with pytest.raises(InputError, match=r"100001 m cable is outside what nvidia_cumulus applies "
                                                 r"\(1-100000 m\): NVUE refuses"):
                rnd.render("nvidia_cumulus", prof)
        else:
            assert f"cable-length {math.ceil(cable)}\n" in rnd.render("nvidia_cumulus", prof)


@pytest.mark.parametrize("platform", ["cisco_nxos", "juniper_junos", "nvidia_cumulus", "sonic"])
def test_a_speed_no_ethernet_port_runs_at_is_refused(platform):
    """`--ports Ethernet1/1:37G:3m` rendered NX-OS `speed 37000`, Junos `speed 37g`, NVUE `link speed 37G`."""
    name = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)[0]
    args = render_golden.variants(platform)[0][1]
    ran = losslessd("render", "--platform", platform, "--policy", "pfc-only", *args, "--pool-size", "47218432",
                    "--ports", f"{name}:37G:3m")
    assert ran.returncode == 2 and ran.stdout == "" and "37 Gb/s is no port speed" in ran.stderr, ran.stderr


@pytest.mark.parametrize("speed", ["2.5G", "5G"])
def test_an_nvue_speed_nvue_does_not_list_is_refused(speed):
    """NVUE's `link speed` takes auto, 10M, 100M, 1G, 10G, 25G, ... 800G (the Cumulus Linux guide's `nv list-commands`
    list): `--ports swp1:2.5G:3m` rendered `nv set interface swp1 link speed 2.5G`, a line NVUE refuses."""
    ran = losslessd("render", "--platform", "nvidia_cumulus", "--policy", "roce-dscp26", "--ports", f"swp1:{speed}:3m")
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert f"swp1: {speed[:-1]} Gb/s is no port speed nvidia_cumulus takes (1G, 10G, 25G," in ran.stderr, ran.stderr
    ok = losslessd("render", "--platform", "nvidia_cumulus", "--policy", "roce-dscp26", "--ports", "swp1:10G:3m")
    assert ok.returncode == 0 and "nv set interface swp1 link speed 10G\n" in ok.stdout, ok.stderr


def test_every_speed_nvue_render_takes_is_written_as_an_nvue_word():
    """The template writes `link speed {speed:g}G`; the reader reads NVUE's words (platforms.NVUE_SPEEDS). Every speed
    render lets through must be written as one of those words, with the value the reader gives it back."""
    speeds = PLATFORMS["nvidia_cumulus"].limits.speeds_gbps
    assert speeds and {f"{s:g}G": s for s in speeds}.items() <= NVUE_SPEEDS.items()


def test_nxos_class_mtu_is_the_platforms_largest_mtu(monkeypatch):
    """The network-qos class MTU comes from the one home of NX-OS's MTU range (RenderLimits.mtu_bytes); the template
    wrote its own 9216, which a change of the range would have left behind."""
    limits = PLATFORMS["cisco_nxos"].limits
    monkeypatch.setitem(PLATFORMS, "cisco_nxos", replace(PLATFORMS["cisco_nxos"],
                                                         limits=replace(limits, mtu_bytes=(576, 9000))))
    prof = rnd.profile(load_policy("sonic-azure"), [rnd.PortFacts("Ethernet1/1", 100, 3, 1500)], family="n9k")
    text = rnd.render("cisco_nxos", rnd.restrict(prof, {"pfc"}))
    assert "\n    mtu 9000\n" in text and "9216" not in text, text


@pytest.mark.parametrize("speed", ["400G", "800G"])
def test_a_nexus_3000_port_faster_than_100g_is_refused(speed):
    """A Nexus 3000-3200 (render family n3k) has 10-100G ports: `speed 400000` on an N3K-C3232C stops the paste."""
    ran = losslessd("render", "--platform", "cisco_nxos", "--policy", "pfc-only", "--model", "N3K-C3232C",
                    "--ports", f"Ethernet1/1:{speed}:3m")
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert f"{speed[:-1]} Gb/s is no port speed cisco_nxos n3k takes" in ran.stderr, ran.stderr
    ok = losslessd("render", "--platform", "cisco_nxos", "--policy", "pfc-only", "--model", "N9K-C9364D-GX2A",
                   "--ports", f"Ethernet1/1:{speed}:3m")
    assert ok.returncode == 0 and f"speed {int(speed[:-1]) * 1000}\n" in ok.stdout, ok.stderr


def test_an_nxos_speed_one_family_refuses_needs_the_family():
    """Without a model, 400G may be a Nexus 9000 port or no port at all (Nexus 3000): render asks which."""
    prof = rnd.profile(load_policy("pfc-only"), [rnd.PortFacts("Ethernet1/1", 400, 3, 9100)])
    with pytest.raises(InputError, match=r"Ethernet1/1: 400 Gb/s is no port speed of cisco_nxos family n3k.*--model"):
        rnd.render("cisco_nxos", rnd.restrict(prof, {"ports"}))
    read = rnd.profile(load_policy("pfc-only"), [rnd.PortFacts("Ethernet1/1", 400, 3, 9100)], hardware="N7K-C7010",
                       model_source=Source(file="sw.txt", line=12))  # a model no NX-OS family covers, from a file
    with pytest.raises(InputError, match=r"from model 'N7K-C7010' \(read from sw.txt line 12\): correct the model") \
            as err:
        rnd.render("cisco_nxos", rnd.restrict(read, {"ports"}))
    assert (err.value.file, err.value.line) == ("sw.txt", 12)
    fine = rnd.profile(load_policy("pfc-only"), [rnd.PortFacts("Ethernet1/1", 100, 3, 9100)])
    assert "speed 100000" in rnd.render("cisco_nxos", rnd.restrict(fine, {"ports"}))


def test_an_eos_model_from_the_device_file_names_its_line_when_no_family_fits(tmp_path):
    """A --device config whose header names a model no EOS family covers, and that has no queue block to tell the
    family by (Device.config_family): the family error names the file and the header line the model came from, and
    says to correct it there or give --model / --family; a model given with --model names no file (the operator typed
    it), and --family renders. With its `uc-tx-queue` blocks the config says the family itself, and renders."""
    text = (FIXTURES / "raw" / "arista_eos" / "roce-leaf.cfg").read_text()
    assert "! device: roce-leaf1 (DCS-7060X6-64PE, EOS-" in text.split("\n")[1]
    text = text.replace("(DCS-7060X6-64PE,", "(DCS-7010TX-48,", 1)
    path = tmp_path / "leaf.cfg"
    path.write_text(re.sub(r"\n   uc-tx-queue \d+\n(      .*\n)*", "\n", text))
    policy = tmp_path / "policy.yaml"
    policy.write_text("extends: roce-dscp26\nname: cable5\nbuffer:\n  default_cable_length_m: 5\n")
    (tmp_path / "blocks").mkdir()
    (tmp_path / "blocks" / "leaf.cfg").write_text(text)
    blocks = losslessd("render", "--platform", "eos", "--policy", str(policy), "--device",
                       tmp_path / "blocks" / "leaf.cfg")
    assert blocks.returncode == 0 and "\n   uc-tx-queue 3\n" in blocks.stdout, blocks.stderr
    ran = losslessd("render", "--platform", "eos", "--policy", str(policy), "--device", str(path))
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert f"{path}:2: arista_eos: the ecn, scheduler commands differ" in ran.stderr, ran.stderr
    assert f"model 'DCS-7010TX-48' (read from {path} line 2) matches none of them: correct the model there" \
        in ran.stderr, ran.stderr
    typed = losslessd("render", "--platform", "eos", "--policy", str(policy), "--device", str(path),
                      "--model", "DCS-7010TX-48")
    assert typed.returncode == 2 and str(path) not in typed.stderr and "give --model" in typed.stderr, typed.stderr
    assert losslessd("render", "--platform", "eos", "--policy", str(policy), "--device", str(path),
                     "--family", "sand").returncode == 0


def test_a_1_6t_port_is_a_sonic_speed_whose_headroom_is_not_guessed():
    """1.6 Tb/s (IEEE 802.3dj) is a PORT speed SONiC's schema takes (sonic-port.yang 1..1600000 Mb/s); NX-OS, Junos
    and NVUE document no 1.6T `speed` losslessd could cite, so they refuse it. No source lists a 1.6T pause response:
    buffer_headroom_mellanox.lua falls back to ASIC_TABLE's 3.8 KB, which sized a 1.6T port's xoff at a third of an
    800G port's; render refuses that rather than write a profile that drops under load."""
    assert 1600 in PLATFORMS["sonic"].limits.speeds_gbps
    ran = losslessd("render", "--platform", "sonic", "--policy", "pfc-only", "--sku", "ACS-SN6600",
                    "--pool-size", "47218432", "--ports", "Ethernet0:1600G:3m:9100:8")
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert "no IEEE 802.3 pause response for 1600000 Mb/s" in ran.stderr, ran.stderr
    for platform, name in (("cisco_nxos", "Ethernet1/1"), ("juniper_junos", "et-0/0/0"), ("nvidia_cumulus", "swp1")):
        args = render_golden.variants(platform)[0][1]
        no = losslessd("render", "--platform", platform, "--policy", "pfc-only", *args, "--ports", f"{name}:1600G:3m")
        assert no.returncode == 2 and "1600 Gb/s is no port speed" in no.stderr, (platform, no.stderr)
    # A fix of the NX-OS buffer section alone checks no speed: the pause buffer a long cable needs is refused too.
    prof = rnd.profile(load_policy("pfc-only"), [rnd.PortFacts("Ethernet1/1", 1600, 300, 9100)], family="n9k")
    with pytest.raises(InputError, match="pause buffer its 300 m cable needs cannot be sized"):
        rnd.render("cisco_nxos", rnd.restrict(prof, {"buffer"}))


def _leaf1_with_cables(tmp_path, metres: str):
    """The example leaf1 (its ingress lossless pool 47218432 B with a 2359296 B shared headroom pool, xoff) with
    every port's cable ``metres`` long; the path of its folder, and the port's line in it."""
    d = json.loads((FIXTURES.parent.parent / "examples" / "fabric" / "leaf1" / "config_db.json").read_text())
    d["CABLE_LENGTH"]["AZURE"] = {port: metres for port in d["CABLE_LENGTH"]["AZURE"]}
    folder = tmp_path / "leaf1"
    folder.mkdir()
    text = json.dumps(d, indent=4)
    (folder / "config_db.json").write_text(text)
    return folder, text[:text.index('"Ethernet0": {')].count("\n") + 1


def test_a_pg_whose_xoff_overflows_the_shared_headroom_pool_is_refused(tmp_path):
    """Hostile round 16: 120 km cables (the longest a device may name) gave each PG an xoff of 18,761,728 B, eight
    times the leaf's 2,359,296 B shared headroom pool (and six of them more than the whole 47 MB pool): `render
    --device` printed it, exit 0, and the snippet's own lint reported BUF004 as an error ("one pause overflows it").
    The same leaf with 300 m cables renders (its 120,832 B xoff fits)."""
    folder, line = _leaf1_with_cables(tmp_path, "120000m")
    ran = losslessd("render", "--platform", "sonic", "--device", str(folder))
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout[-2000:]
    assert f"config_db.json:{line}: port Ethernet0: its lossless PG's xoff 18761728 B" in ran.stderr
    assert "2359296 B" in ran.stderr and "BUF004" in ran.stderr and "Traceback" not in ran.stderr
    (tmp_path / "ok").mkdir()
    ok, _ = _leaf1_with_cables(tmp_path / "ok", "300m")
    fine = losslessd("render", "--platform", "sonic", "--device", str(ok))
    assert fine.returncode == 0, fine.stderr


def test_a_pg_larger_than_the_whole_pool_is_refused():
    """--ports with a pool smaller than one PG's headroom (Spectrum's buffer_headroom_mellanox.lua for 120 km at
    100G: 18,783,232 B with its xon and overhead) wrote a profile no pool can hold."""
    ran = losslessd("render", "--platform", "sonic", "--sku", "Mellanox-SN4600C-C64", "--pool-size", "1000000",
                    "--ports", "Ethernet0:100G:120000m:9100")
    assert ran.returncode == 2 and ran.stdout == ""
    assert "port Ethernet0: its lossless PG needs 18783232 B of buffer" in ran.stderr
    assert "whole ingress lossless pool's 1000000 B" in ran.stderr


def test_rendered_pgs_over_subscribing_the_shared_headroom_pool_past_the_policy_are_refused(tmp_path):
    """10 km cables on the example leaf1: each PG's 1,604,608 B xoff fits its 2,359,296 B shared headroom pool, the six
    together are 4.08 x it. Under a policy allowing 1 x (buffer.headroom_pool_oversubscription) render printed them,
    exit 0, and the snippet's own lint warned BUF004; without a ratio from the policy or the switch it renders (BUF004
    is then an unverified info)."""
    folder, _ = _leaf1_with_cables(tmp_path, "10000m")
    policy = tmp_path / "shp.yaml"
    policy.write_text("name: shp\nextends: roce-dscp26\nbuffer:\n  headroom_pool_oversubscription: 1\n")
    ran = losslessd("render", "--platform", "sonic", "--policy", str(policy), "--device", str(folder))
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout[-2000:]
    assert "the 6 lossless PGs rendered need 9627648 B of xoff together, 4.08 x" in ran.stderr
    assert "BUF004" in ran.stderr and "config_db.json:" in ran.stderr
    fine = losslessd("render", "--platform", "sonic", "--device", str(folder))
    assert fine.returncode == 0, fine.stderr


def test_an_nxos_pause_buffer_the_switch_rejects_is_refused():
    """Cisco-NX-OS-device.yang (NX-OS 9.3(1)): `pause buffer-size` is ipqos_BuffSize, 5000-12582912 B (12582913, its
    default, marks it unset), pause-threshold and resume-threshold ipqos_XoffBytes/XonBytes 0-12582912 B. A 120 km
    cable at 400G wrote `pause buffer-size 121366528`, ten times what the switch takes, with exit 0."""
    assert PLATFORMS["cisco_nxos"].limits.pause_buffer_bytes == (5000, 12582912)
    for cable in ("120000m", "12500m"):
        ran = losslessd("render", "--platform", "cisco_nxos", "--family", "n9k",
                        "--ports", f"Ethernet1/1:400G:{cable}:9216")
        assert ran.returncode == 2 and ran.stdout == "", (cable, ran.stderr)
        assert "needs a pause buffer-size of" in ran.stderr and "(5000-12582912 B)" in ran.stderr, ran.stderr
        assert "Traceback" not in ran.stderr
    ok = losslessd("render", "--platform", "cisco_nxos", "--family", "n9k", "--ports", "Ethernet1/1:400G:12000m:9216")
    assert ok.returncode == 0, ok.stderr
    size, pause, resume = map(int, re.search(r"pause buffer-size (\d+) pause-threshold (\d+) resume-threshold (\d+)",
                                             ok.stdout).groups())
    assert 5000 <= size <= 12582912 and 0 <= resume <= pause <= 12582912


def _policy_with(tmp_path, line: str, replacement: str) -> Path:
    """roce-dscp26 with its ``line`` replaced."""
    text = (FIXTURES.parent.parent / "policies" / "roce-dscp26.yaml").read_text()
    assert line in text
    path = tmp_path / "policy.yaml"
    path.write_text(text.replace(line, replacement))
    return path


def _mark_policy(tmp_path, low: float, high: float) -> Path:
    """roce-dscp26 with ecn.mark_probability_pct [low, high]."""
    return _policy_with(tmp_path, "mark_probability_pct: {min: 1, max: 100}",
                        f"mark_probability_pct: {{min: {low}, max: {high}}}")


def test_an_ecn_threshold_past_the_nxos_range_names_the_policy_not_the_cable(tmp_path):
    """A policy whose Kmax starts at 60,000,000 B (BytesRange takes up to 2^32 - 1) renders `random-detect ...
    maximum-threshold 60000000 bytes`, past ipqos_ThreshVal's 52428800: refused, exit 2, and the remedy is the
    policy's ECN thresholds (the message named the cable length and told to size the lossless buffer by hand)."""
    path = _policy_with(tmp_path, "max_threshold_bytes: {min: 9216, max: 16777216}",
                        "max_threshold_bytes: {min: 60000000, max: 70000000}")
    ran = losslessd("render", "--platform", "cisco_nxos", "--family", "n9k", "--policy", path,
                    "--ports", "Ethernet1/1:100G:5m:9216")
    assert ran.returncode == 2 and ran.stdout == "", ran.stderr
    assert ("port Ethernet1/1: the policy's ECN thresholds scaled to 100 Gb/s give an ECN maximum threshold of "
            "60000000 B, outside what cisco_nxos accepts (0-52428800 B), so the switch would reject the line: bring "
            "the policy's ecn.min_threshold_bytes and ecn.max_threshold_bytes into that range") in ran.stderr
    assert "cable" not in ran.stderr


def test_the_shared_headroom_check_counts_the_xoff_the_devices_other_ports_hold(tmp_path):
    """Session 39: the over-subscription check summed the rendered PGs alone. A fix renders only the ports with
    findings (here Ethernet0 of the example leaf1), while the device's five other lossless PGs keep their 1,000,000 B
    xoff each in the same 2,359,296 B shared headroom pool: 5.0 M + the new PG is over 2 x the pool under a policy
    allowing 1 x, and the snippet's own lint would warn BUF004; it rendered, and now is refused naming both parts."""
    from losslessd.fabric import load_device

    d = json.loads((FIXTURES.parent.parent / "examples" / "fabric" / "leaf1" / "config_db.json").read_text())
    d["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"]["xoff"] = "1000000"
    folder = tmp_path / "leaf1"
    folder.mkdir()
    (folder / "config_db.json").write_text(json.dumps(d, indent=4))
    pol = load_policy("roce-dscp26")
    pol = pol.model_copy(update={"buffer": pol.buffer.model_copy(update={"headroom_pool_oversubscription": 1})})
    device = load_device(folder)
    facts, pool = rnd.device_facts(device, pol)
    one = [f for f in facts if f.name == "Ethernet0"]
    with pytest.raises(InputError, match=r"the 1 lossless PGs rendered, with the 5 the device's other ports hold "
                                         r"\(5000000 B\), need \d+ B of xoff together"):
        rnd.device_profile(pol, device, one, "sonic", pool_bytes=pool)
    # The same port where the other PGs hold the file's own 59,392 B each renders.
    d["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"]["xoff"] = "59392"
    (folder / "config_db.json").write_text(json.dumps(d, indent=4))
    device = load_device(folder)
    assert rnd.device_profile(pol, device, [f for f in rnd.device_facts(device, pol)[0] if f.name == "Ethernet0"],
                              "sonic", pool_bytes=pool).ports[0].name == "Ethernet0"


@pytest.mark.parametrize(("xoff", "written"), [("2359296", "2359296"), ("0", "1622016"), (None, "1622016")])
def test_the_shared_headroom_pool_written_is_the_one_the_pgs_were_checked_against(tmp_path, xoff, written):
    """Session 40 review: the example leaf1 on a Broadcom SKU (Arista-7050CX3-32S-C32, whose buffers_defaults give
    ingress_lossless_pool xoff 1622016) with its own 2,359,296 B pool xoff: render --device checked the PGs against
    the device's 2,359,296 B and wrote the SKU's 1,622,016 B over it, shrinking the device's shared headroom pool
    unchecked. The device's xoff is kept; where it has none, or 0 (none: buffer_check_headroom_mellanox.lua takes
    xoff nil or 0 as no shared headroom pool), the SKU's stock is written and checked."""
    d = json.loads((FIXTURES.parent.parent / "examples" / "fabric" / "leaf1" / "config_db.json").read_text())
    d["DEVICE_METADATA"]["localhost"].update(hwsku="Arista-7050CX3-32S-C32", platform="x86_64-arista_7050cx3_32s")
    pool = d["BUFFER_POOL"]["ingress_lossless_pool"]
    pool.pop("xoff")
    if xoff is not None:
        pool["xoff"] = xoff
    (tmp_path / "config_db.json").write_text(json.dumps(d, indent=4))
    ran = losslessd("render", "--platform", "sonic", "--device", str(tmp_path / "config_db.json"))
    assert ran.returncode == 0, ran.stderr
    assert (f'"ingress_lossless_pool": {{"type": "ingress", "mode": "dynamic", "size": "47218432", '
            f'"xoff": "{written}"}}') in ran.stdout


@pytest.mark.parametrize(("platform", "family", "word"), [
    ("nvidia_cumulus", (), "probability"),  # NVUE reference: `probability` 1-100
    ("arista_eos", ("--family", "sand"), "max-mark-probability"),  # AVD qos_profiles schema: max_probability 1-100
])
def test_an_ecn_mark_probability_the_switch_rejects_is_refused(tmp_path, platform, family, word):
    """A policy whose ECN mark probability is 0 % wrote `probability 0` (NVUE) and `max-mark-probability 0` (EOS),
    which those switches reject, with exit 0; refused (RenderLimits.mark_probability_pct), and 1 % renders."""
    ports = ("--ports", "Ethernet1/1:100G:5m:9000")
    ran = losslessd("render", "--platform", platform, *family, "--policy", _mark_policy(tmp_path, 0, 0), *ports)
    assert ran.returncode == 2 and ran.stdout == "", ran.stderr
    assert f"{platform} takes an ECN mark probability of 1-100 %, and the policy gives 0 %" in ran.stderr
    ok = losslessd("render", "--platform", platform, *family, "--policy", _mark_policy(tmp_path, 1, 1), *ports)
    assert ok.returncode == 0 and re.search(rf"{word} 1\b", ok.stdout), ok.stdout + ok.stderr


@pytest.mark.parametrize("platform, options", [("nvidia_cumulus", ()), ("sonic", ("--pool-size", "47218432")),
                                               ("cisco_nxos", ("--family", "n9k"))])
def test_a_mark_probability_range_holding_no_whole_percentage_is_refused_not_truncated(tmp_path, platform, options):
    """The snippets write the mark probability as a whole percentage: a policy range of [0.1, 0.5] % was truncated to
    0, outside the policy itself (and no marking at all), with exit 0. Refused naming the range."""
    ran = losslessd("render", "--platform", platform, *options, "--policy", _mark_policy(tmp_path, 0.1, 0.5),
                    "--ports", "Ethernet1/1:100G:5m:9216")
    assert ran.returncode == 2 and ran.stdout == "", ran.stderr
    assert "ecn.mark_probability_pct [0.1, 0.5] % holds no whole percentage" in ran.stderr, ran.stderr


def test_nvue_ecn_thresholds_that_come_out_equal_are_refused_not_written(tmp_path):
    """At 100M the policy's ECN thresholds scale below its floor and came out equal (min-threshold = max-threshold
    9216, from ecn.min/max_threshold_bytes min); no NVUE document read says whether NVUE takes them equal. render
    refuses the port; a fix refuses its ECN part alone and still writes the rest. At 1G the two differ: written."""
    ran = losslessd("render", "--platform", "nvidia_cumulus", "--policy", "roce-dscp26", "--ports", "swp1:0.1G:3m")
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert "swp1: the policy's ECN thresholds scaled to 0.1 Gb/s give a minimum and a maximum both of 9216 B" \
        in ran.stderr, ran.stderr
    ok = losslessd("render", "--platform", "nvidia_cumulus", "--policy", "roce-dscp26", "--ports", "swp1:1G:3m")
    mins = re.findall(r"traffic-class 3 (min|max)-threshold (\d+)\n", ok.stdout)
    assert ok.returncode == 0 and [(w, int(n)) for w, n in mins] == [("min", 9216), ("max", 15728)], ok.stderr
    path = tmp_path / "leaf.cfg"
    path.write_text("nv set qos mapping default-global trust l3\n"
                    "nv set qos mapping default-global dscp 26 switch-priority 3\n"
                    "nv set qos pfc default-global switch-priority 3\nnv set qos pfc default-global cable-length 3\n"
                    "nv set interface swp1 link speed 100M\nnv set interface swp1 qos pfc profile default-global\n"
                    "nv set interface swp1 qos mapping profile default-global\n", encoding="utf-8")
    fixed = losslessd("fix", str(path), "--policy", "roce-dscp26", "--unsafe-fixes")
    assert "whether nvidia_cumulus takes them equal is in no document" in fixed.stdout, fixed.stdout
    assert "min-threshold" not in fixed.stdout
    assert "+nv set interface swp1 qos pfc-watchdog state enable" in fixed.stdout
