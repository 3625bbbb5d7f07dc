"""Rendered profiles: golden output, render -> parse -> lint round trips, headroom and ECN numbers,
and the refusals that keep a half snippet from ever being printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import headroom
from losslessd import render as rnd
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.lint.finding import Severity
from losslessd.parse import parse_group
from losslessd.parse.sonic import _NO_RELEASE as NO_RELEASE
from losslessd.platforms import PLATFORMS
from losslessd.policy import load_policy
from losslessd.render import opensm
from tests import render_golden
from tests.clirun import Ran, losslessd

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args: str) -> Ran:
    return losslessd("render", *args)


def _lint_text(tmp_path: Path, platform: str, policy: str, text: str, name: str = "rendered"):
    path = tmp_path / f"{name}.{render_golden.EXTENSIONS[platform]}"
    path.write_text(text)
    return lint([path], policy, fmt=platform).findings


@pytest.mark.parametrize(("platform", "policy", "variant"), render_golden.cases())
def test_golden(platform, policy, variant):
    assert render_golden.rendered(platform, policy, variant) == \
        render_golden.golden_path(platform, policy, variant).read_text(), "run `make golden` after an intended change"


@pytest.mark.parametrize(("platform", "policy", "variant"), render_golden.cases())
def test_round_trip_lints_clean(platform, policy, variant, tmp_path):
    """The rendered profile, parsed back by the platform's own parser, satisfies the policy it came from.

    SONiC computes nothing at run time here (static headroom, pool size given), so not even an
    unverified info finding may remain. EOS sizes PFC headroom itself at run time: only the
    unverified infos about that (BUF003, and ECN004 which needs the PG's trigger) are allowed."""
    if (platform, variant) in render_golden.NO_ROUND_TRIP:
        pytest.skip(f"the {platform} parser does not read the {variant} family back yet")
    path = render_golden.golden_path(platform, policy, variant)
    inputs = [path]
    if platform == "opensm":  # IBS003 wants a standby SM: lint the rendered master with a rendered standby
        standby = tmp_path / "standby" / "opensm.conf"
        standby.parent.mkdir()
        standby.write_text(rnd.render("opensm", opensm.profile(load_policy(policy), sm_priority=13)))
        inputs.append(standby)
    findings = lint(inputs, policy, fmt=platform).findings
    runtime = render_golden.RUNTIME_INFOS.get(platform, set()) | render_golden.VARIANT_INFOS.get((platform, variant),
                                                                                                    set())
    # (a render names no release: a SONiC one says once that its names alone are read as 202111 on reads them)
    assert [f"{f.code} {f.message}" for f in findings
            if not (f.unverified and f.severity == Severity.info and f.code in runtime)
            and not f.message.startswith(NO_RELEASE)] == []
    device = parse_group(path.stem, [path], platform)
    assert not [i for i in device.issues if not i.message.startswith(NO_RELEASE)]
    assert sorted(device.ports) == sorted(s.split(":")[0] for s in render_golden.port_specs(platform))


def test_sonic_headroom_and_ecn_numbers():
    """xoff is buffer_headroom_mellanox.lua's on the Spectrum-3 SKU (an SN4xxx 400G port has 8 lanes); ECN
    thresholds scale linearly from the 100 Gb/s reference."""
    path = render_golden.golden_path("sonic", "roce-dscp26")
    device = parse_group("leaf", [path], "sonic")
    port = device.ports["Ethernet4"]  # 400G, 300 m, MTU 9100
    profile = device.buffer_profiles[port.priority_groups[3].profile]
    script = headroom.spectrum_headroom(headroom.SPECTRUM[3], 400000, 300, 9100, lanes=8)
    assert (profile.xon_bytes, profile.xoff_bytes, profile.size_bytes) == \
        (script.xon_bytes, max(script.xoff_bytes, 373760), script.size_bytes + (373760 - script.xoff_bytes
                                                                                 if script.xoff_bytes < 373760 else 0))
    assert profile.xoff_bytes >= 373760  # ACS-MSN4700 pg_profile_lookup.ini 400000 300m xoff: never below it
    ecn100 = device.ports["Ethernet0"].queues[3].ecn
    ecn400 = port.queues[3].ecn
    assert (ecn100.min_threshold_bytes, ecn100.max_threshold_bytes) == (rnd.ECN_KMIN_BYTES, rnd.ECN_KMAX_BYTES)
    assert (ecn400.min_threshold_bytes, ecn400.max_threshold_bytes) == (4 * rnd.ECN_KMIN_BYTES, 4 * rnd.ECN_KMAX_BYTES)
    assert port.watchdog.detection_time_ms == 200 and port.watchdog.action == "drop"


def test_sonic_azure_maps_each_dscp_to_its_own_lossless_priority():
    device = parse_group("leaf", [render_golden.golden_path("sonic", "sonic-azure")], "sonic")
    port = device.ports["Ethernet0"]
    assert port.pfc_enabled == [3, 4]
    assert [port.dscp_chain(d).tc for d in (3, 4, 26)] == [3, 4, 0]


def test_pfc_only_renders_no_ecn():
    text = render_golden.golden_path("sonic", "pfc-only").read_text()
    assert "WRED_PROFILE" not in json.loads(text) and "wred_profile" not in text


def test_ports_differing_in_mtu_get_their_own_profiles_in_the_dynamic_model(tmp_path):
    """buffermgrdyn names a profile by MTU too (getDynamicProfileName); the traditional buffer manager binds
    pg_lossless_<speed>_<cable>_profile to every PFC port of that speed and cable (buffermgr.cpp doSpeedUpdateTask),
    so there the two ports share one profile, the larger."""
    ports = [rnd.parse_port_spec("Ethernet0:10G:1m:9100"), rnd.parse_port_spec("Ethernet4:10G:1m:1500")]
    pol = load_policy("roce-dscp26")
    text = rnd.render("sonic", rnd.profile(pol, ports, "ACS-MSN2700", pool_bytes=render_golden.POOL_BYTES,
                                           buffer_model="dynamic"))
    db = json.loads(text)
    assert sorted(db["BUFFER_PROFILE"]) == ["pg_lossless_10000_1m_mtu1500_profile", "pg_lossless_10000_1m_profile"]
    on_switch = json.dumps({"DEVICE_METADATA": {"localhost": {"buffer_model": "dynamic"}}, **db}, indent=1)
    assert [f for f in _lint_text(tmp_path, "sonic", "roce-dscp26", on_switch)
            if not f.unverified and not f.message.startswith(NO_RELEASE)] == []  # (a render names no release)
    # read back as a traditional-model switch of an unknown SKU: buffermgrd binds its own profile over both
    assert {f.code for f in _lint_text(tmp_path, "sonic", "roce-dscp26", text) if not f.unverified} == {"SYS004"}
    shared = json.loads(rnd.render("sonic", rnd.profile(pol, ports, "ACS-MSN2700",
                                                        pool_bytes=render_golden.POOL_BYTES)))
    assert sorted(shared["BUFFER_PROFILE"]) == ["pg_lossless_10000_1m_profile"]
    assert {pg["profile"] for pg in shared["BUFFER_PG"].values()} == {"pg_lossless_10000_1m_profile"}
    xoffs = [int(db["BUFFER_PROFILE"][name]["xoff"]) for name in db["BUFFER_PROFILE"]]
    assert int(shared["BUFFER_PROFILE"]["pg_lossless_10000_1m_profile"]["xoff"]) == max(xoffs)


@settings(max_examples=25, deadline=None)
@given(speed=st.sampled_from([10, 25, 40, 50, 100, 200, 400, 800]), cable=st.integers(1, 2000),
       mtu=st.integers(1500, 9216), policy=st.sampled_from(render_golden.POLICIES),
       platform=st.sampled_from(render_golden.ethernet_platforms()))
def test_any_port_round_trips_without_errors(tmp_path_factory, speed, cable, mtu, policy, platform):
    # A name of the platform's own shape: NX-OS and Junos read no port "Ethernet0" back, and a lint that checked
    # nothing passed this test (its SEL001 was an info) for them.
    name = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)[0]
    top = (PLATFORMS[platform].limits.mtu_bytes or (0, 9216))[1]  # the platform's largest MTU (EOS 9214)
    longest = (PLATFORMS[platform].limits.cable_m or (1, 2000))[1]  # (the mlx5 driver: 999 m, test_render_limits)
    ports = [rnd.PortFacts(name, speed, min(cable, longest), min(mtu, top))]
    variant, args = render_golden.variants(platform)[0]
    opts = dict(zip(args[::2], args[1::2]))
    try:
        text = rnd.render(platform, rnd.profile(load_policy(policy), ports, opts.get("--sku"),
                                                pool_bytes=render_golden.POOL_BYTES, model=opts.get("--model")))
    except InputError as exc:  # the only refusal for complete facts: ECN could not mark before PFC
        assert "before PFC" in str(exc)
        return
    path = tmp_path_factory.mktemp("r") / f"rendered.{render_golden.EXTENSIONS[platform]}"
    path.write_text(text)
    result = lint([path], policy, fmt=platform)
    assert result.coverage.ports == 1  # the port was read back and checked: nothing checked is no round trip
    assert [f.code for f in result.findings if f.severity != Severity.info] == []


@pytest.mark.parametrize(("ports", "message"), [
    ([rnd.PortFacts("Ethernet0", None, 5, 9100)], "speed unknown"),
    ([rnd.PortFacts("Ethernet0", 100, None, 9100)], "cable length unknown"),
    ([], "no ports"),
])
def test_incomplete_facts_are_refused(ports, message):
    with pytest.raises(InputError, match=message):
        rnd.profile(load_policy("roce-dscp26"), ports, pool_bytes=1 << 24)


@pytest.mark.parametrize("name", ["eth0$(reboot)", "Ethernet0\ninterface Ethernet1\n no priority-flow-control",
                                  'Ethernet0"', "Eth\x1b[31m0", "-i", "et-0/0/0 ", "x" * 65])
@pytest.mark.parametrize("platform", render_golden.ethernet_platforms())
def test_a_port_name_no_snippet_can_hold_is_refused_before_any_template(name, platform):
    """Port names come from the linted configs: written unquoted into a shell script, a CLI config or JSON, a
    name with `$(...)`, a newline, a quote or a leading dash would run a command, add a config line or break the
    snippet. Such a name is refused, naming it; a name of the platforms' own shapes is written."""
    pol = load_policy("roce-dscp26")
    with pytest.raises(InputError, match="cannot be written into a snippet safely"):
        rnd.render(platform, rnd.profile(pol, [rnd.PortFacts(name, 100, 5, 9100)], pool_bytes=1 << 24))


_NXOS_PORT = dict(name="Ethernet1/1", speed_gbps=100, cable_length_m=5, mtu_bytes=9216)


@pytest.mark.parametrize(("facts", "profile", "says"), [
    ({"bundle": "port-channel1\nreload"}, {}, "port-channel name"),
    ({"attached": {"qos input": "QOS reload"}}, {}, "service policy (qos input) name"),
    ({"bundle": "port-channel1", "bundle_attached": {"queuing output": "Q;reload"}}, {},
     "service policy (queuing output) name"),
    ({}, {"attached": {"network-qos": 'NQ"'}}, "system qos service policy (network-qos) name"),
    ({"keys": {"BUFFER_PG": {3: ('lc1"|asic0|Ethernet1/1|3-4', True)}}}, {}, "BUFFER_PG key"),
])
def test_a_device_name_no_snippet_can_hold_is_refused_before_any_template(facts, profile, says):
    """Besides port names, the names a snippet repeats from the device (the port-channel a policy goes on, the policy
    it detaches, a SONiC key it keeps) are written as they are: each is refused, naming it, before any template."""
    prof = rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts(**_NXOS_PORT, **facts)], model="N9K-C93180YC-EX",
                       **profile)
    with pytest.raises(InputError, match="cannot be written into a snippet safely") as err:
        rnd.render("cisco_nxos", prof)
    assert says in err.value.message


def test_names_a_device_writes_of_the_platforms_own_shapes_are_written():
    prof = rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts(
        **_NXOS_PORT, bundle="port-channel12", bundle_attached={"qos input": "QOS_OLD-1"})], model="N9K-C93180YC-EX")
    text = rnd.render("cisco_nxos", prof)
    assert "interface port-channel12\n" in text and "  no service-policy type qos input QOS_OLD-1\n" in text


def test_a_policy_name_no_snippet_can_hold_is_refused(tmp_path):
    """A policy's name is written into each snippet's first comment line; a newline in it (a policy made through the
    Python API: load_policy refuses such a file name) would end that line and write the rest as a line of its own (an
    OpenSM option here)."""
    pol = load_policy("infiniband").model_copy(update={"name": "ib\nsm_priority 0"})
    with pytest.raises(InputError, match="policy name 'ib\\\\nsm_priority 0' cannot be written"):
        rnd.render("opensm", opensm.profile(pol))
    # the rule of a policy file's `name:` (upper case and _ were written, though no file may name itself so)
    for name in ("Prod_RoCE", "p" * 65):
        with pytest.raises(InputError, match="a policy name is lower-case letters, digits and -, at most 64 char"):
            rnd.render("opensm", opensm.profile(pol.model_copy(update={"name": name})))
    assert "p" * 64 in rnd.render("opensm", opensm.profile(pol.model_copy(update={"name": "p" * 64})))


def test_a_long_name_an_error_quotes_is_cut_and_counted():
    """printable.quoted, as every refused name: the port given twice and --ports were cut at 80 characters without
    saying so."""
    long = "E" * 100
    with pytest.raises(InputError, match=r"port 'E{80}'\.\.\. \(100 characters\) is given twice"):
        rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts(long, 100, 5, 9100)] * 2, "ACS-MSN2700",
                    pool_bytes=1 << 24)
    with pytest.raises(InputError, match=r"--ports 'x{80}'\.\.\. \(200 characters\): expected NAME"):
        rnd.parse_port_spec("x" * 200)


@pytest.mark.parametrize("name", ["Ethernet1/1", "et-0/0/0:1", "swp1s0", "enp65s0f0np0", "eth0.100", "Ethernet-BP0"])
def test_port_names_of_the_platforms_own_shapes_are_written(name):
    text = rnd.render("sonic", rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts(name, 100, 5, 9100)],
                                           "ACS-MSN2700", pool_bytes=1 << 24))
    assert f'"{name}"' in text


@settings(max_examples=200, deadline=None)
@given(platform=st.sampled_from(render_golden.ethernet_platforms()), policy=st.sampled_from(render_golden.POLICIES),
       facts=st.sampled_from([(None, None), (100, None), (None, 5)]),
       sections=st.sets(st.sampled_from(sorted(rnd.SECTIONS)), min_size=1, max_size=3))
def test_a_fix_profile_with_unknown_facts_renders_whole_or_is_refused(platform, policy, facts, sections):
    """A port whose speed or cable length is unknown (a fix's profile): a section that needs it is refused with
    InputError, never laid out with a blank (NX-OS and Junos write ECN thresholds with the scheduler)."""
    name = render_golden.port_specs(platform)[0].split(":")[0]
    opts = dict(zip(*[iter(render_golden.variants(platform)[0][1])] * 2))
    prof = rnd.profile(load_policy(policy), [rnd.PortFacts(name, *facts, 9100)], opts.get("--sku"), pool_bytes=1 << 24,
                       all_facts=False, model=opts.get("--model"))
    try:
        text = rnd.render(platform, rnd.restrict(prof, sections))
    except InputError as exc:
        assert "unknown" in str(exc) or "pool" in str(exc)
        return
    assert "None" not in text


def test_ecn_that_would_mark_after_pfc_is_refused():
    with pytest.raises(InputError, match="before PFC"):
        rnd.profile(load_policy("roce-dscp26"), [rnd.PortFacts("Ethernet0", 400, 5, 9100)], "ACS-MSN4700",
                    pool_bytes=1 << 20)


def test_render_takes_every_cable_a_policy_or_device_may_name():
    """One ceiling (units.MAX_CABLE_M, 800ZR's 120 km): --ports refused 110 km that a policy's
    default_cable_length_m and a CONFIG_DB CABLE_LENGTH were read with."""
    assert rnd.parse_port_spec("Ethernet0:400G:110km").cable_length_m == 110_000
    with pytest.raises(InputError, match="at most 120000 m"):
        rnd.parse_port_spec("Ethernet0:400G:121km")


@pytest.mark.parametrize(("spec", "says"), [
    ("Ethernet0:100G", "expected NAME:SPEED:CABLE[:MTU[:LANES]]"), (":100:5m", "expected NAME:SPEED:CABLE[:MTU[:LANES]]"),
    ("Ethernet0:FAST:5m", "speed 'FAST' is not a link speed in Gb/s above 0 and at most 10000 G (e.g. 100G, 400G)"),
    ("Ethernet0:20000G:5m", "speed '20000G' is not a link speed"),
    ("Ethernet0:0:5m", "speed '0' is not a link speed"), ("Ethernet0:nan:5m", "speed 'nan' is not"),
    ("Ethernet0:1e999:5m", "speed '1e999' is not"), ("Ethernet0:100M:5m", "speed '100M' is not"),
    ("Ethernet0:100G:5parsecs", "cable length '5parsecs' is not a length above 0 and at most 120000 m (e.g. 3m, 300m, 1km)"),
    ("Ethernet0:100G:-5m", "cable length '-5m' is not"), ("Ethernet0:100G:infm", "cable length 'infm' is not"),
    ("Ethernet0:100G:5m:jumbo", "MTU 'jumbo' is not a whole number of bytes from 68 to 65535 (e.g. 9100)"),
    ("Ethernet0:100G:5m:9100.5", "MTU '9100.5' is not"), ("Ethernet0:100G:5m:70000", "MTU '70000' is not"),
    ("Ethernet0:100G:5m:9100:x", "lanes 'x' is not a whole number from 1 to 16"),
])
def test_bad_port_spec_is_said_in_the_operators_words(spec, says):
    """What is wrong and an example of right, never Python's own wording ("could not convert string to float")."""
    with pytest.raises(InputError) as exc:
        rnd.parse_port_spec(spec)
    assert str(exc.value).startswith(f"--ports {spec!r}: {says}")
    assert not any(python in str(exc.value) for python in ("convert", "literal", "float", "int()", "quantity"))


@pytest.mark.parametrize("spec", ["Ethernet0:100:5m", "Ethernet0:100g:5", "Ethernet0:400Gb/s:300 m:9214",
                                  "Ethernet0:25G:1km"])
def test_port_spec_accepts_what_operators_write(spec):
    facts = rnd.parse_port_spec(spec)
    assert facts.speed_gbps in (100, 400, 25) and facts.cable_length_m in (5, 300, 1000)


def test_cli_device_may_be_a_sonic_folder_as_lint_reads_it():
    folder = _cli("--platform", "sonic", "--device", "examples/fabric/leaf1")
    file = _cli("--platform", "sonic", "--device", "examples/fabric/leaf1/config_db.json")
    assert folder.returncode == 0, folder.stderr
    assert folder.stdout == file.stdout
    fabric = _cli("--platform", "sonic", "--device", "examples/fabric")
    assert fabric.returncode == 2 and fabric.stderr.startswith(
        "losslessd: error: examples/fabric: holds 8 devices (gpu01, gpu02, gpu03, gpu05, gpu06, ...); give one device's")


def test_cli_port_without_a_speed_names_the_file_and_line(tmp_path):
    config = json.loads((ROOT / "examples/fabric/leaf1/config_db.json").read_text())
    for port in config["PORT"].values():
        port.pop("speed")
    device = tmp_path / "config_db.json"
    device.write_text(json.dumps(config, indent=4))
    res = _cli("--platform", "sonic", "--device", device)
    assert res.returncode == 2 and res.stdout == ""
    line = next(n for n, text in enumerate(device.read_text().splitlines(), 1) if '"Ethernet0": {' in text)
    assert res.stderr.startswith(f"losslessd: error: {device}:{line}") and "port Ethernet0: speed unknown" in res.stderr


def test_cli_device_with_an_unknown_hwsku_names_the_file_line_and_what_to_change(tmp_path):
    """The SKU comes from the device's DEVICE_METADATA: the error points at that line and says to correct it or give
    --sku (with --sku itself, there is no line of the device's to change)."""
    config = json.loads((ROOT / "examples/fabric/leaf1/config_db.json").read_text())
    config["DEVICE_METADATA"]["localhost"].update(hwsku="Acme-Unknown-32X", platform="x86_64-acme_unknown-r0")
    device = tmp_path / "config_db.json"
    device.write_text(json.dumps(config, indent=4))
    line = next(n for n, text in enumerate(device.read_text().splitlines(), 1) if '"hwsku"' in text)
    res = _cli("--platform", "sonic", "--device", device)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith(f"losslessd: error: {device}:{line}: SKU Acme-Unknown-32X (DEVICE_METADATA|localhost "
                                 "hwsku) is neither"), res.stderr
    assert "correct DEVICE_METADATA|localhost hwsku if it is misspelt, or give --sku" in res.stderr
    given = _cli("--platform", "sonic", "--device", device, "--sku", "Acme-Other-64X")
    assert given.returncode == 2 and given.stderr.startswith("losslessd: error: SKU Acme-Other-64X is neither")
    assert given.stderr.rstrip().endswith("give --sku") and str(device) not in given.stderr


def test_cli_device_config_renders_a_clean_profile(tmp_path):
    """Ports, cable lengths, SKU and pool come from a real config; the result lints clean under the policy."""
    res = _cli("--platform", "sonic", "--policy", "roce-dscp26", "--device", "examples/fabric/leaf1/config_db.json")
    assert res.returncode == 0, res.stderr
    db = json.loads(res.stdout)
    assert "Ethernet48" in db["PORT_QOS_MAP"] and db["CABLE_LENGTH"]["AZURE"]["Ethernet48"] == "300m"
    # (the render names no release: --device's VERSIONS settled the form, the file alone does not say it)
    assert [f for f in _lint_text(tmp_path, "sonic", "roce-dscp26", res.stdout)
            if not f.unverified and not f.message.startswith(NO_RELEASE)] == []


@pytest.mark.parametrize(("args", "message"), [
    (["--platform", "vyos", "--ports", "eth0:100G:5m", "--pool-size", "1000000"], "'vyos' is not one of"),
    (["--platform", "sonic", "--ports", "Ethernet0:100G:5m"], "pool"),
    (["--platform", "sonic", "--ports", "Ethernet0:100G", "--pool-size", "1000000"], "NAME:SPEED:CABLE"),
    (["--platform", "sonic", "--device", "no/such/config_db.json"], "no/such/config_db.json: no such file or folder"),
])
def test_cli_refuses_incomplete_input_with_exit_2(args, message):
    res = _cli(*args)
    assert res.returncode == 2 and res.stdout == "" and message in res.stderr, res.stderr


@pytest.mark.parametrize(("platform", "policy", "variant"), render_golden.cases())
def test_cli_matches_golden(platform, policy, variant):
    res = _cli("--platform", platform, "--policy", policy, *render_golden.cli_args(platform, variant))
    assert res.returncode == 0, res.stderr
    assert res.stdout == render_golden.golden_path(platform, policy, variant).read_text()


def test_eos_profiles_follow_port_speed():
    """Ports of different speeds get their own qos profile, with thresholds scaled from 100 Gb/s."""
    device = parse_group("leaf", [render_golden.golden_path("arista_eos", "roce-dscp26")], "arista_eos")
    kmin = {name: port.queues[3].ecn.min_threshold_bytes for name, port in device.ports.items()}
    assert kmin == {"Ethernet0": rnd.ECN_KMIN_BYTES, "Ethernet4": 4 * rnd.ECN_KMIN_BYTES,
                    "Ethernet8": rnd.ECN_KMIN_BYTES // 4}
    assert all(p.watchdog.enabled and p.watchdog.detection_time_ms == 200 for p in device.ports.values())
    assert device.ports["Ethernet8"].mtu_bytes == 1500


def test_readme_snippet_is_real_output():
    readme = (ROOT / "README.md").read_text()
    command = ("$ losslessd render --platform arista_eos --policy roce-dscp26 --model DCS-7060DX5-64S "
               "--ports Ethernet1/1:400G:3m:9214\n")
    shown = readme.split(command, 1)[1].split("```", 1)[0]
    res = _cli("--platform", "arista_eos", "--policy", "roce-dscp26", "--model", "DCS-7060DX5-64S", "--ports",
               "Ethernet1/1:400G:3m:9214")
    assert res.stdout == shown


def test_cli_takes_the_short_platform_name():
    res = _cli("--platform", "eos", "--policy", "sonic-azure", *render_golden.cli_args("arista_eos"))
    assert res.returncode == 0, res.stderr
    assert res.stdout == render_golden.golden_path("arista_eos", "sonic-azure").read_text()


@pytest.mark.parametrize(("platform", "policy", "variant"), [c for c in render_golden.cases() if c[0] != "opensm"][:1])
def test_render_from_the_variant_args_only_not_from_defaults(platform, policy, variant):
    """Without the family arguments the families that differ are refused, never guessed."""
    args = [a for spec in render_golden.port_specs("arista_eos") for a in ("--ports", spec)]
    res = _cli("--platform", "arista_eos", "--policy", "roce-dscp26", *args)
    assert res.returncode == 2 and "give --model" in res.stderr and res.stdout == ""


def test_render_refuses_what_its_own_lint_would_warn_ecn004_about(tmp_path):
    """What render writes lints clean under lint's default --fail-on warning: with no load in the policy ECN004 warns
    once the break-even K of the pool's lossless PGs (every rendered port's, one pool) can congest, so render refuses
    from there on (the same gate, headroom.marks_after_pfc), naming K and what to change. Z9100, 2 MiB pool, 100G 40 m
    ports: the SKU's profile reserves 1248 B before XOFF with alpha 1/8 (its dynamic_th -3), Kmin 153600 B; Choudhury &
    Hahne's R + a*F/(1 + n*a) is above Kmin with 5 congested PGs and at or below it with 6."""
    pool = 2097152
    assert 1248 + pool / 8 / (1 + 5 / 8) > 153600 >= 1248 + pool / 8 / (1 + 6 / 8)

    def render(n: int) -> Ran:
        ports = [a for i in range(n) for a in ("--ports", f"Ethernet{4 * i}:100G:40m:9100")]
        return losslessd("render", "--platform", "sonic", "--sku", "Force10-Z9100-C32", "--pool-size", str(pool),
                         *ports)

    five = render(5)
    assert five.returncode == 0, five.stderr
    snippet = tmp_path / "five.json"
    snippet.write_text(five.stdout)
    linted = losslessd("lint", snippet)
    assert linted.returncode == 0 and "ECN004" not in linted.stdout, linted.stdout
    for n in (6, 32):
        ran = render(n)
        assert ran.returncode == 2 and ran.stdout == ""
        assert f"with 6 or more of the {n} lossless PGs of the rendered ports" in ran.stderr
        assert "a smaller Kmin" in ran.stderr and "--pool-size" in ran.stderr and "fewer ports" in ran.stderr
        assert "ecn.assume_congested_queues" in ran.stderr


def test_render_says_where_ecn_is_written_without_its_break_even_checked():
    """render refuses ECN thresholds its own lint would report (ECN004's break-even) where the snippet carries the
    buffer numbers too: SONiC's PG profiles, NX-OS's long-cable pause buffer (its pause threshold a frame above the
    mark). Where the switch sizes its lossless headroom and xoff at run time (NVUE, EOS, Junos; NX-OS on cables up to
    100 m), the break-even cannot be checked offline: render says so on stderr, naming the ports, and still renders.
    Before, it said nothing: the snippet read as checked as SONiC's."""
    ports = ["--ports", "swp1:100G:5m:9100", "--ports", "swp2:100G:300m:9100"]
    nvue = losslessd("render", "--platform", "nvidia_cumulus", *ports)
    assert nvue.returncode == 0 and "congestion-control" in nvue.stdout
    assert ("losslessd render: ECN thresholds written for swp1, swp2 without checking that they mark before PFC "
            "pauses (ECN004's break-even): nvidia_cumulus sizes the lossless headroom") in nvue.stderr
    nxos = losslessd("render", "--platform", "cisco_nxos", "--family", "n9k", "--ports", "Ethernet1/1:100G:5m:9100",
                     "--ports", "Ethernet1/2:100G:300m:9100")
    assert nxos.returncode == 0 and "ECN thresholds written for Ethernet1/1 without checking" in nxos.stderr
    sonic = losslessd("render", "--platform", "sonic", "--sku", "Force10-Z9100-C32", "--pool-size", "12766208",
                      "--ports", "Ethernet0:100G:5m:9100")
    assert sonic.returncode == 0 and "ECN thresholds written" not in sonic.stderr
    assert losslessd("render", "--platform", "nvidia_cumulus", "--policy", "pfc-only", *ports).stderr == ""


def test_render_refuses_a_nexus_7000_whatever_the_family(tmp_path):
    """A Nexus 7000 or 7700 has no render family: its queuing classes are its modules' port types (Cisco tech note
    113556) and would reject the Nexus 9000's c-8q-nqN classes. render exits 2 naming the model and the guide to
    configure it from, also under --family n9k, and for a model a --device file's `show version` names (its file
    named). Before: "give --model ... or --family n9k|n3k", and --family n9k wrote the 9000's snippet."""
    ports = ["--ports", "Ethernet1/1:100G:5m:9216"]
    for model in ("N7K-C7010", "N77-C7710", "Nexus7700 C7710 (10 Slot) Chassis"):
        for family in ([], ["--family", "n9k"]):
            ran = losslessd("render", "--platform", "nxos", "--model", model, *family, *ports)
            assert ran.returncode == 2 and ran.stdout == "", (model, ran.stderr)
            assert f"model {model!r} is a Cisco Nexus 7000/7700" in ran.stderr
            assert "Nexus 7000 Series NX-OS Quality of Service Configuration Guide" in ran.stderr
            assert "Traceback" not in ran.stderr
    device = tmp_path / "n7k.txt"
    device.write_text("#% losslessd capture 1\n#% device: n7k\n#% platform: cisco_nxos\n"
                      "#% collected: 2026-12-03T21:00:00Z\n#% command: show running-config\nhostname n7k\n"
                      "interface Ethernet1/1\n  speed 100000\n  mtu 9216\n  priority-flow-control mode on\n"
                      "#% command: show version\nHardware\n  cisco Nexus7000 C7010 (10 Slot) Chassis\n")
    policy = tmp_path / "cable5.yaml"  # (the port's cable: the headroom needs one)
    policy.write_text("extends: roce-dscp26\nname: cable5\nbuffer:\n  default_cable_length_m: 5\n")
    ran = losslessd("render", "--platform", "nxos", "--family", "n9k", "--device", device, "--policy", policy)
    assert ran.returncode == 2 and ran.stdout == "" and "is a Cisco Nexus 7000/7700" in ran.stderr, ran.stderr
    # (the model's line in the capture: before, a capture's `show version` gave the model no source to name)
    assert f"model 'Nexus7000 C7010 (10 Slot)' (read from {device} line 13) is" in ran.stderr, ran.stderr
    assert losslessd("render", "--platform", "nxos", "--model", "N9K-C93180YC-EX", *ports).returncode == 0


@pytest.mark.parametrize("platform", render_golden.ethernet_platforms())
def test_a_threshold_floor_that_is_no_whole_number_of_bytes_is_rounded_up(platform, tmp_path):
    """`ecn.kmin_min_mtus: 45.7` over a 4096-byte MTU puts Kmin at 187187.2 B at least: render truncated the floor
    and wrote Kmin 187187 B, which its own lint called ECN002 ("below 45.7 x MTU"). A clamped number is whole and
    inside the policy: 187188 B."""
    policy = tmp_path / "p.yaml"
    policy.write_text("name: x\nextends: roce-dscp26\necn:\n  kmin_min_mtus: 45.7\n", encoding="utf-8")
    name = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES)[0]
    variant, args = render_golden.variants(platform)[0]
    opts = dict(zip(args[::2], args[1::2], strict=True))
    pol = load_policy(str(policy))
    text = rnd.render(platform, rnd.profile(pol, [rnd.PortFacts(name, 100, 5, 4096)], opts.get("--sku"),
                                            pool_bytes=render_golden.POOL_BYTES, model=opts.get("--model")))
    path = tmp_path / f"rendered.{render_golden.EXTENSIONS[platform]}"
    path.write_text(text)
    result = lint([path], pol, fmt=platform)
    assert result.coverage.ports == 1
    assert [f"{f.code} {f.message}" for f in result.findings if f.severity != Severity.info] == []
