"""Semantic hostile values (tests/hostile_values.py): every platform's fixture with values that parse but cannot
be right, run through the real CLI entry. Each case ends in a documented exit (0/1/2: never 3, never a
traceback); a value that cannot be right is reported (a SYS001/2/3 finding naming the file, or an input error
naming it) rather than read as a plausible number or dropped so that the port reads clean; and no report format
carries a character that drives a terminal."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from losslessd.printable import json_safe, printable
from tests import hostile_values as hv

FIXTURES = hv.fixtures()
# One name holding every kind of terminal-driving character at once: ANSI colour and OSC title, C1 CSI, DEL,
# a line separator, a bidi override and isolate, a zero-width space.
HOSTILE_NAME = "sw\x1b[31mRED\x1b]0;t\x07\x9b\x7f\u2028\u202eevil\u202c\u2066x\u2069\u200b"


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.label for f in FIXTURES])
def test_hostile_names_never_reach_the_terminal(fixture, tmp_path):
    """The device's host name and a port name, made HOSTILE_NAME everywhere they occur: every report format
    (text, JSON, SARIF, GitHub) holds them escaped (before: bidi overrides raw in all four; DEL, C1 CSI and
    U+2028 raw in JSON and SARIF; ESC raw in GitHub annotations)."""
    for variant in hv.name_variants(fixture, {"hostile": HOSTILE_NAME}):
        for fmt in ("text", "json", "sarif", "github"):
            r = hv.run_variant(variant, tmp_path, fmt)
            assert r.outcome.ok, (variant.where, fmt, r.outcome.problems, r.outcome.output[-2000:])
            assert not r.unsafe, (variant.where, fmt, [hex(ord(c)) for c in r.unsafe])


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.label for f in FIXTURES])
def test_every_value_of_every_fixture_survives_hostile_values(fixture, tmp_path):
    """Each number that is a value in the fixture (one per line shape), made one of the hostile values in turn
    (out of range, negative, 2^63, a float, exponent, hex, unit or thousands separator, NaN/Infinity, -0, a boolean,
    empty, blank, a reversed or open range, a list with an empty or repeated item): a documented exit, no traceback,
    no internal error (exit 3, SYS900), and no character in the JSON report that drives a terminal."""
    classes = {**hv.INVALID, **hv.ODD}
    seen = set()
    for variant in hv.value_variants(fixture, classes, rotate=True):
        r = hv.run_variant(variant, tmp_path)
        assert r.outcome.ok, (variant.where, variant.value, r.outcome.problems, r.outcome.output[-2000:])
        assert "SYS900" not in r.codes and not r.unsafe, (variant.where, variant.value, r.codes, r.unsafe)
        seen.add(variant.label)
    assert len(seen) == len(classes) or fixture.label in _FEW_VALUES, sorted(set(classes) - seen)


_FEW_VALUES = {f.label for f in FIXTURES if sum(1 for _ in hv.value_variants(f, {"x": "1"})) < len(hv.INVALID) +
               len(hv.ODD)}


def test_the_name_sweep_reaches_every_platform():
    named = {f.label.split("/")[0] for f in FIXTURES if next(hv.name_variants(f, {"x": "x"}), None)}
    assert named >= {"arista_eos", "cisco_nxos", "juniper_junos", "linux_mlx5", "nvidia_cumulus", "sonic", "fabric",
                     "dell_os10", "dell_os9"}


def test_printable_escapes_bidi_and_zero_width():
    # Unicode TR9 explicit formatting characters and marks; CVE-2021-42574's examples use U+202E and U+2066-2069.
    assert printable("a\u202eb\u2066c\u2069d\u200fe\u200bf") == "a\\u202eb\\u2066c\\u2069d\\u200fe\\u200bf"
    assert printable("leaf1 Ethernet0\tx") == "leaf1 Ethernet0\tx"  # (tab and plain text kept)
    assert printable("\u00e9t\u00e9 \u4e2d") == "\u00e9t\u00e9 \u4e2d"  # (letters of any script kept)


def test_json_safe_is_the_same_document():
    doc = {"name": "sw\x7f\x9b\u2028\u202e\u2066x", "plain": "caf\u00e9"}
    text = json_safe(json.dumps(doc, ensure_ascii=False))
    assert json.loads(text) == doc
    assert not hv.TERMINAL_UNSAFE.search(text)
    assert "caf\u00e9" in text


def _strict_json_strings(node):
    """Every string of a parsed JSON document, for a check that none holds a lone surrogate."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from _strict_json_strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strict_json_strings(v)
    elif isinstance(node, str):
        yield node


def test_a_file_name_or_key_that_is_not_utf8_makes_utf8_reports(tmp_path):
    """A file name of bytes that are not UTF-8 (Python holds them as lone surrogates) and a CONFIG_DB port and host
    name written as lone \\u escapes: SARIF stopped with an internal error (exit 3, urllib's quote), the JSON report
    and GitHub annotations carried the raw byte 0xff (not UTF-8: json.load refused the report). Every format is UTF-8
    now, JSON and SARIF parse with no lone surrogate in any string, and the byte reads as ``\\xff``, as `ls -b`
    writes it."""
    from losslessd.errors import EXIT_FINDINGS

    from .clirun import losslessd
    folder = tmp_path / "fab"
    folder.mkdir()
    spine = (hv.ROOT / SPINE1).read_text(encoding="utf-8")
    (folder / "sp\udcffine.cfg").write_text(spine, encoding="utf-8")  # the file name's bytes: sp 0xff ine.cfg
    leaf = (hv.ROOT / LEAF1).read_text(encoding="utf-8")
    (folder / "leaf9").mkdir()
    (folder / "leaf9" / "config_db.json").write_text(leaf.replace("Ethernet0", "Ethernet0\\ud800").replace(
        '"hostname": "', '"hostname": "\\udcff'), encoding="utf-8")
    assert b"sp\xffine.cfg" in [os.fsencode(p.name) for p in folder.iterdir()]
    for fmt in ("text", "json", "sarif", "github"):
        out = tmp_path / f"report.{fmt}"
        res = losslessd("lint", folder, "-f", fmt, "-o", out)
        assert res.returncode == EXIT_FINDINGS, (fmt, res.stderr)
        text = out.read_bytes().decode("utf-8")  # raises on a byte that is not UTF-8
        if fmt in ("json", "sarif"):
            strings = list(_strict_json_strings(json.loads(text)))
            assert not [s for s in strings if any("\ud800" <= c <= "\udfff" for c in s)], fmt
            assert fmt == "sarif" or any("Ethernet0\\ud800" in s for s in strings)  # (no SARIF finding names it)
            text = "\n".join(strings)
        assert "sp\\xffine.cfg" in text or "sp%FFine.cfg" in text, fmt
    sarif = json.loads((tmp_path / "report.sarif").read_text(encoding="utf-8"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert any(u.endswith("sp%FFine.cfg") for u in uris), uris  # RFC 3986 §2.1: the byte percent-encoded


def test_printable_and_json_safe_write_lone_surrogates_as_text():
    assert printable("a\udcffb\ud800c") == "a\\xffb\\ud800c"
    assert json.loads(json_safe(json.dumps({"k\udcff": "v\ud800"}, ensure_ascii=False))) == {"k\\xff": "v\\ud800"}


# ---- values that cannot be right: each reported, naming the file and line ---------------------------------------
# (fixture under the repository root, the text to change (its first occurrence), what to write instead). Each case
# was read silently before its fix: dropped so that the setting read as unset or clean, or read as another number.
LEAF1 = "examples/fabric/leaf1/config_db.json"
SPINE1 = "examples/fabric/spine1.cfg"
GPU01 = "examples/fabric/gpu01.capture"
JUNOS = "tests/fixtures/raw/juniper_junos/roce-leaf.cfg"
NVUE = "tests/fixtures/raw/nvidia_cumulus/leaf-roce-good.cfg"
NXOS = "tests/fixtures/raw/cisco_nxos/roce-leaf.cfg"
OPENSM = "tests/fixtures/raw/opensm/fat-tree-standby.conf"
ONYX = "tests/fixtures/raw/nvidia_onyx/roce-capture.txt"
REPORTED = {
    # SONiC: int()/float() took what no CONFIG_DB field holds; sizes and probabilities had no bound
    "sonic-probability-negative": (LEAF1, '"green_drop_probability": "100"', '"green_drop_probability": "-1"'),
    "sonic-probability-exponent": (LEAF1, '"green_drop_probability": "100"', '"green_drop_probability": "1e1"'),
    "sonic-probability-nan": (LEAF1, '"green_drop_probability": "100"', '"green_drop_probability": "NaN"'),
    "sonic-dynamic-th-2**63": (LEAF1, '"dynamic_th": "3"', f'"dynamic_th": "{2**63}"'),
    "sonic-size-underscore": (LEAF1, '"xoff": "', '"xoff": "1_0'),
    "sonic-size-plus": (LEAF1, '"xoff": "', '"xoff": "+'),
    "sonic-size-2**64": (LEAF1, '"xoff": "', f'"xoff": "{2**64}'),
    "sonic-mtu-zero": (LEAF1, '"mtu": "9100"', '"mtu": "0"'),
    "sonic-mtu-2**63": (LEAF1, '"mtu": "9100"', f'"mtu": "{2**63}"'),
    "sonic-mtu-arabic-digits": (LEAF1, '"mtu": "9100"', '"mtu": "\\u0669\\u0661\\u0660\\u0660"'),
    "sonic-speed-zero": (LEAF1, '"speed": "100000"', '"speed": "0"'),
    # a cable past the longest Ethernet span (units.MAX_CABLE_M): 40 digits of metres asked 10^35 B of headroom
    "sonic-cable-40-digits": (LEAF1, '"Ethernet0": "5m"', f'"Ethernet0": "{10**39}m"'),
    "sonic-cable-121km": (LEAF1, '"Ethernet0": "5m"', '"Ethernet0": "121km"'),
    "sonic-weight-2**63": (LEAF1, '"weight": "14"', f'"weight": "{2**63}"'),
    "sonic-watchdog-2**63": (LEAF1, '"detection_time": "200"', f'"detection_time": "{2**63}"'),
    # map entries out of their table's range (all were bounded 0-63 alike): a PG 8, a TC 16, a queue 12
    "sonic-tc-to-pg-8": (LEAF1, '"ROCE": {\n            "0": "0",\n            "1": "0",\n            "2": "0",\n'
                         '            "3": "3"', '"ROCE": {\n            "0": "0",\n            "1": "0",\n'
                         '            "2": "0",\n            "3": "8"'),
    "sonic-dscp-to-tc-16": (LEAF1, '"26": "3"', '"26": "16"'),
    "sonic-tc-to-queue-12": (LEAF1, '"3": "3",\n            "4": "4"', '"3": "12",\n            "4": "4"'),
    "sonic-dynamic-th-8": (LEAF1, '"dynamic_th": "3"', '"dynamic_th": "8"'),
    "sonic-buffer-pg-8": (LEAF1, '"BUFFER_PG": {\n        "Ethernet0|0"', '"BUFFER_PG": {\n        "Ethernet0|8"'),
    "sonic-buffer-queue-16": (LEAF1, '"BUFFER_QUEUE": {\n        "Ethernet0|3"',
                              '"BUFFER_QUEUE": {\n        "Ethernet0|16"'),
    # the same port named in another case: a port the PORT table lacks, the real one read as unconfigured
    "sonic-port-named-in-another-case": (LEAF1, '"PORT_QOS_MAP": {\n        "Ethernet0"',
                                         '"PORT_QOS_MAP": {\n        "ethernet0"'),
    # lists with an empty item: sonic-swss stoi("") throws, the CLIs refuse the line
    "sonic-pfc-empty-item": (LEAF1, '"pfc_enable": "3"', '"pfc_enable": "3,,4"'),
    "sonic-pfc-leading-comma": (LEAF1, '"pfc_enable": "3"', '"pfc_enable": ",3"'),
    "sonic-pfc-blank": (LEAF1, '"pfc_enable": "3"', '"pfc_enable": "   "'),
    "eos-map-empty-item": (SPINE1, "qos map dscp 26 to", "qos map dscp 26,,27 to"),
    "nxos-match-dscp-empty-item": (NXOS, "match dscp 26", "match dscp 26,,27"),
    "nxos-match-dscp-missing": (NXOS, "match dscp 26", "match dscp"),
    # speeds read by their first digits ('1e3' as 1 Mb/s, '0x10' as 0), or not at all
    "nvue-speed-exponent": (NVUE, "link speed 400G", "link speed 1e3"),
    "nvue-speed-hex": (NVUE, "link speed 400G", "link speed 0x10"),
    "nvue-speed-2**63": (NVUE, "link speed 400G", f"link speed {2**63}G"),
    "nvue-speed-zero": (NVUE, "link speed 400G", "link speed 0G"),
    "eos-speed-exponent": (SPINE1, "speed 100g", "speed 1e3g"),
    "eos-speed-garbled": (SPINE1, "speed 100g", "speed 100G,000"),
    "eos-speed-zero": (SPINE1, "speed 100g", "speed 0g"),
    "eos-interface-range-reversed": (SPINE1, "interface Ethernet1/1\n", "interface Ethernet1/5-3\n"),
    "eos-interface-range-open": (SPINE1, "interface Ethernet1/1\n", "interface Ethernet1/1-\n"),
    # Junos: float() read '1e3' as 1000, '1_000', and cut '3.5' to 3
    "junos-mtu-exponent": (JUNOS, "mtu 9216", "mtu 9.216e3"),
    "junos-mtu-underscore": (JUNOS, "mtu 9216", "mtu 9_216"),
    "junos-queue-fraction": (JUNOS, "queue-num 3 no-loss", "queue-num 3.5 no-loss"),
    "junos-watchdog-exponent": (JUNOS, "poll-interval 100", "poll-interval 1e2"),
    # Junos: a classifier importing itself or one never defined (the imported entries were dropped without a word)
    "junos-classifier-imports-itself": (JUNOS, "set class-of-service classifiers dscp roce-dscp forwarding-class",
                                        "set class-of-service classifiers dscp roce-dscp import roce-dscp\n"
                                        "set class-of-service classifiers dscp roce-dscp forwarding-class"),
    "junos-classifier-imports-undefined": (JUNOS, "set class-of-service classifiers dscp roce-dscp forwarding-class",
                                           "set class-of-service classifiers dscp roce-dscp import NOPE\n"
                                           "set class-of-service classifiers dscp roce-dscp forwarding-class"),
    "junos-member-range-reversed": (JUNOS, "set class-of-service classifiers dscp roce-dscp forwarding-class",
                                    "set interfaces interface-range r1 member-range et-0/0/5 to et-0/0/3\n"
                                    "set class-of-service classifiers dscp roce-dscp forwarding-class"),
    # NVUE: an MTU of 0 and a value left out
    "nvue-mtu-zero": (NVUE, "link mtu 9216", "link mtu 0"),
    "nvue-mtu-missing": (NVUE, "link mtu 9216", "link mtu"),
    # references to profiles that do not exist (EOS, NX-OS, Junos and SONiC said so; NVUE read the port as unknown
    # or fell back to the RoCE defaults without a word)
    "nvue-undefined-pfc-profile": (NVUE, "nv set qos pfc default-global", "nv set interface swp1 qos pfc profile NOPE\n"
                                   "nv set qos pfc default-global"),
    "nvue-undefined-mapping-profile": (NVUE, "nv set qos pfc default-global", "nv set interface swp1 qos mapping "
                                       "profile NOPE\nnv set qos pfc default-global"),
    # NX-OS: a strict-priority level never checked, watchdog numbers left out, a range written backwards
    "nxos-priority-level-negative": (NXOS, "priority level 1", "priority level -1"),
    "nxos-priority-level-99": (NXOS, "priority level 1", "priority level 99"),
    "nxos-watchdog-interval-missing": (NXOS, "watch-dog interval 100", "watch-dog interval"),
    "nxos-range-reversed": (NXOS, "interface Ethernet1/1\n", "interface Ethernet1/5-3\n"),
    # Onyx: a number no switch holds, a range written backwards
    "onyx-ecn-hex": (ONYX, "minimum-absolute 200", "minimum-absolute 0xc8"),
    "onyx-speed-zero": (ONYX, "interface ethernet 1/1-1/2 speed 100G", "interface ethernet 1/1-1/2 speed 0G"),
    "onyx-range-reversed": (ONYX, "interface ethernet 1/1-1/2 qos trust", "interface ethernet 1/2-1/1 qos trust"),
    "onyx-pfc-priority-8": (ONYX, "priority-flow-control priority 3 enable", "priority-flow-control priority 8 enable"),
    # mlx5: \\d took other scripts' digits, which int() reads
    "mlx5-mtu-arabic-digits": (GPU01, "/mtu\n9000", "/mtu\n\u0669\u0660\u0660\u0660"),
    "mlx5-dscp-empty-item": (GPU01, "prio:0 dscp:07,06,", "prio:0 dscp:07,,06,"),
    "mlx5-dscp-arabic-digits": (GPU01, "prio:3 dscp:31,30,", "prio:\u0663 dscp:31,30,"),
    # OpenSM: a number C reads wrapped round (strtoul("-1") is 2^64 - 1, cut to the option's bits)
    "opensm-priority-negative": (OPENSM, "sm_priority 10", "sm_priority -1"),
    "opensm-sweep-wraps": (OPENSM, "sweep_interval 10", f"sweep_interval {2**32 + 10}"),
}


def _changed(path: str, old: str, new: str) -> tuple[hv.Variant, set[int]]:
    """The fixture with ``old`` made ``new``, and the lines ``old`` spans (where the finding must point)."""
    source = hv.ROOT / path
    text = source.read_text(encoding="utf-8")
    assert old in text, (path, old)
    fmt = path.split("/")[3] if path.startswith("tests/fixtures/raw/") else None
    first = text[:text.index(old)].count("\n") + 1
    variant = hv.Variant(hv.Fixture(path, source, fmt), source, "", "", new, text.replace(old, new, 1))
    return variant, set(range(first, first + old.count("\n") + 1))


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_a_value_that_cannot_be_right_is_reported(name, tmp_path):
    path, old, new = REPORTED[name]
    variant, lines = _changed(path, old, new)
    r = hv.run_variant(variant, tmp_path)
    assert r.outcome.ok, (r.outcome.problems, r.outcome.output[-3000:])
    found = [f for f in hv.findings(r.outcome) if f["code"] in ("SYS001", "SYS002", "SYS003")]
    assert found, f"nothing reports {new!r}:\n{r.outcome.output[-3000:]}"
    assert lines & {f["location"]["line"] for f in found}, (lines, found)


@pytest.mark.parametrize("spelled", ["et1/1", "Et1/1", "eth1/1", "ethernet 1/1", "ETHERNET1/1"])
def test_an_eos_port_spelled_another_way_is_the_same_port(spelled, tmp_path):
    """EOS takes `interface et1/1` for Ethernet1/1: its lines are that port's (before: the block was skipped without
    a word, so a port whose PFC was turned off there read as configured)."""
    from losslessd.parse import eos
    from losslessd.parse.base import Input

    text = (hv.FABRIC / "spine1.cfg").read_text(encoding="utf-8") + f"interface {spelled}\n   mtu 1500\n!\n"
    device = eos.parse([Input("spine1.cfg", text)], "spine1")
    assert device.ports["Ethernet1/1"].mtu_bytes == 1500
    assert set(device.ports) == {"Ethernet1/1", "Ethernet2/1", "Ethernet3/1"}


@pytest.mark.parametrize("bound,says", [
    ("watchdog: {detection_time_ms: {min: 100, max: .inf}}", "must be an integer, not inf"),
    ("ecn: {min_threshold_bytes: {min: .nan}}", "must be an integer, not nan"),
    ("ecn: {mark_probability_pct: {min: .nan}}", "finite"),
    ("ecn: {speed_reference_gbps: .inf}", "finite"),
    ("ecn: {mark_probability_pct: {min: 1, max: 1000}}", "at most 100"),
])
def test_a_policy_bound_that_cannot_be_right_is_refused(bound, says, tmp_path):
    """A policy range bound of .inf/.nan (YAML floats) or a marking probability above 100 % is an error naming the
    line (before: read, and a renderer choosing a threshold inside the range could pick infinity)."""
    path = tmp_path / "p.yaml"
    path.write_text(f"name: x\nextends: roce-dscp26\n{bound}\n", encoding="utf-8")
    o = run_cli(["policy", "check", str(path)], tmp_path)
    assert o.exit == 2 and not o.traceback, o.output
    assert "p.yaml:3" in o.output and says in o.output, o.output


def run_cli(args: list[str], tmp_path):
    from tests.hostile import Case, run_case

    return run_case(Case(f"cli{next(hv._counter)}", lambda t: args), tmp_path)


@pytest.mark.parametrize("text,items", [("3,4", [3, 4]), ("3 4", [3, 4]), ("3, 4", [3, 4]), ("0-2,5", [0, 1, 2, 5]),
                                        ("3,3", [3]), ("3,4,", [3, 4]), ("", [])])
def test_int_list_reads_lists(text, items):
    from losslessd.units import int_list

    assert int_list(text) == items


@pytest.mark.parametrize("text", ["3,,4", ",3", ",", "5-3", "3-", "-", "-1", "+3", "1e3", "0x3", "\u0663", "3.5"])
def test_int_list_refuses_what_no_list_is(text):
    from losslessd.units import int_list

    with pytest.raises(ValueError):
        int_list(text)


@pytest.mark.parametrize("text,gbps", [("100G", 100), ("400g-8", 400), ("25000", 25), ("10000full", 10),
                                       ("100000Mb/s", 100), ("100gfull", 100), ("800Gbps", 800),
                                       ("1.6t-8", 1600), ("1000half", 1), ("2.5gfull", 2.5)])
def test_speed_reads_what_platforms_write(text, gbps):
    from losslessd.units import speed_gbps

    assert speed_gbps(text) == gbps


@pytest.mark.parametrize("text", ["1e3", "0x10", "0", "0G", f"{2**63}G", "100G,000", "1,000", "-100G", "NaN", "",
                                  "2t"])
def test_speed_refuses_what_is_no_speed(text):
    from losslessd.units import speed_gbps

    with pytest.raises(ValueError):
        speed_gbps(text)


@pytest.mark.parametrize("path,old,new", [
    (LEAF1, '"hostname": "leaf1"', '"hostname": "   "'),
    (LEAF1, '"hostname": "leaf1"', '"hostname": "leaf1\\u202e"'),
    (LEAF1, '"hostname": "leaf1"', '"hostname": "a\\nb"'),
    (SPINE1, "hostname spine1", "hostname spine1\u200b"),
    (NVUE, "system hostname leaf01", "system hostname '\u2066leaf01'"),
])
def test_a_host_name_no_one_can_read_back_is_replaced_by_the_file_name(path, old, new, tmp_path):
    """A host name of blanks, or holding control or invisible characters, named the device in every report and
    baseline (before: as written); now the device takes its file's name and a SYS002 says why."""
    variant, _ = _changed(path, old, new)
    r = hv.run_variant(variant, tmp_path)
    assert r.outcome.ok, (r.outcome.problems, r.outcome.output[-3000:])
    found = hv.findings(r.outcome)
    expected = hv.ROOT.joinpath(path).stem if not path.endswith("config_db.json") else "config_db"
    assert {f["device"] for f in found if f["device"]} <= {expected, "leaf1"}, {f["device"] for f in found}
    assert any(f["code"] == "SYS002" and "host name" in f["message"] for f in found), found


def test_a_policy_whose_cnp_shares_a_lossless_dscp_is_refused(tmp_path):
    """cnp.dscp among lossless.dscp (set in one file of an `extends` chain, the other inherited) is an error at the
    cnp line (before: accepted, so one DSCP had to be both lossless and a strict lossy CNP class)."""
    (tmp_path / "a.yaml").write_text("name: a\nextends: roce-dscp26\ncnp: {dscp: 24}\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("name: b\nextends: a.yaml\nlossless: {dscp: [24]}\n", encoding="utf-8")
    o = run_cli(["policy", "check", str(tmp_path / "b.yaml")], tmp_path)
    assert o.exit == 2 and not o.traceback, o.output
    assert "a.yaml:3" in o.output and "DSCP 24" in o.output, o.output


ENCODINGS = {"bom": lambda t: "\ufeff" + t, "crlf": lambda t: t.replace("\n", "\r\n"),
             "cr": lambda t: t.replace("\n", "\r")}


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.label for f in FIXTURES])
def test_a_byte_order_mark_and_crlf_or_cr_line_ends_read_as_the_plain_file(fixture, tmp_path, monkeypatch):
    """Every file of the fixture written by a Windows editor (a UTF-8 byte order mark first) or with CRLF or CR-only
    line ends gives the same device as the plain file. Before: a BOM made a SONiC config_db.json and an NVUE YAML
    "cannot tell which platform" (exit 2), a baseline "invalid JSON", and the first Junos line a SYS002."""
    from losslessd.fabric import load_device

    def device(kind: str, change) -> dict:
        folder = tmp_path / kind
        folder.mkdir()
        target = folder / fixture.path.name
        for file in hv.files_of(fixture):
            out = target / file.relative_to(fixture.path) if fixture.path.is_dir() else target
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(change(file.read_text(encoding="utf-8")).encode("utf-8"))
        monkeypatch.chdir(folder)  # (files are named relative to the working directory: the same in every variant)
        return load_device(fixture.path.relative_to(fixture.path.parent), fixture.fmt).model_dump(mode="json")

    plain = device("plain", lambda t: t)
    for kind, change in ENCODINGS.items():
        assert device(kind, change) == plain, kind


def test_fingerprints_and_cycle_keys_take_a_name_with_a_lone_surrogate():
    """A CONFIG_DB (JSON) may name a port `Ethernet0\\ud800`: a finding's fingerprint and a deadlock cycle's key hashed
    the name's UTF-8, which Python refuses to make (the JSON and SARIF reports stopped with exit 3). Other names keep
    the fingerprints they had (a baseline still matches)."""
    import hashlib

    from losslessd.deadlock.analysis import component_key
    from losslessd.lint.finding import Finding, Severity

    def finding(port: str) -> Finding:
        return Finding(code="PFC001", name="pfc", severity=Severity.error, message="m", device="leaf1", port=port)

    assert finding("Ethernet0\ud800").fingerprint != finding("Ethernet0").fingerprint
    assert finding("Ethernet0").fingerprint == hashlib.sha256(b"PFC001\x1fleaf1\x1fEthernet0\x1f").hexdigest()[:32]
    assert component_key([("leaf1", "Ethernet0\ud800", 3)]) != component_key([("leaf1", "Ethernet0", 3)])


def test_a_name_holding_the_fingerprint_separator_takes_no_other_findings_fingerprint():
    """The fingerprint hashed code, device, port and key joined by U+001F: a device `leaf1<US>Ethernet0` (a hostname
    or capture header may hold the control character) with no port had leaf1 Ethernet0's fingerprint, so a baseline
    accepting the one hid the other (round 13). Names without it keep their fingerprints."""
    from losslessd.lint.finding import Finding, Severity

    def finding(device: str, port: str | None, key: str = "") -> str:
        return Finding(code="PFC001", name="pfc", severity=Severity.error, message="m", device=device, port=port,
                       key=key).fingerprint

    prints = {finding("leaf1", "Ethernet0"), finding("leaf1\x1fEthernet0", None), finding("leaf1", None, "Ethernet0"),
              finding("leaf1", "Ethernet0\x1f"), finding("leaf1", "", "\x1fEthernet0")}
    assert len(prints) == 5
    assert finding("leaf1", "Ethernet0", "3") == hashlib.sha256(b"PFC001\x1fleaf1\x1fEthernet0\x1f3").hexdigest()[:32]


def _numeric_policy_keys() -> list[tuple[str, ...]]:
    """Every number a policy file may hold, by its path (a Range's min and max, a mapping's values as `name`), from the
    policy schema: a numeric field added later is swept too."""
    from losslessd.policy import schema

    doc = schema()

    def resolve(node: dict) -> dict:
        return doc["$defs"][node["$ref"].rsplit("/", 1)[1]] if "$ref" in node else node

    def walk(node: dict, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        node = resolve(node)
        if "anyOf" in node:
            return [p for alt in node["anyOf"] for p in walk(alt, path)]
        kind = node.get("type")
        if kind in ("number", "integer"):
            return [path]
        if kind == "object" and "properties" in node:
            return [p for key, sub in node["properties"].items() for p in walk(sub, (*path, key))]
        if kind == "object" and isinstance(node.get("additionalProperties"), dict):
            return walk(node["additionalProperties"], (*path, "name"))
        if kind == "array":
            return walk(node.get("items", {}), path)
        return []

    return sorted(set(walk(doc, ())))


NUMERIC_POLICY_KEYS = _numeric_policy_keys()


@pytest.mark.parametrize("value", ["1.0e+308", "9" * 32, "-1"])
@pytest.mark.parametrize("key", NUMERIC_POLICY_KEYS, ids=[".".join(k) for k in NUMERIC_POLICY_KEYS])
def test_every_numeric_policy_field_is_bounded_by_what_it_means(key, value, tmp_path):
    """Session 34: `ecn.kmin_min_mtus: 1.0e+308` (and a 32-digit or negative value in every numeric field) was a policy
    lint checked the fabric against (ECN002 "Kmin 153600 B is below 1e+308 x MTU"). Each number is bounded by what
    it is on a device (SAI's 32-bit thresholds and speeds, a watchdog's 31-bit milliseconds, the longest Ethernet
    span, ...): past it, an error naming the file, the line and the key."""
    o, line = _policy_setting(key, value, tmp_path)
    assert o.exit == 2 and not o.traceback, o.output
    assert f"p.yaml:{line}" in o.output and f"`{'.'.join(key)}`" in o.output, o.output


def _policy_setting(key: tuple[str, ...], value: str, tmp_path):
    """`policy check` of a policy extending roce-dscp26 that sets ``key`` to ``value``, and the line it is on."""
    lines, indent = ["name: x", "extends: roce-dscp26"], ""
    for part in key[:-1]:
        lines.append(f"{indent}{part}:")
        indent += "  "
    if key[:-1] == ("cnp",) and key[-1] != "dscp":
        lines.append(f"{indent}dscp: 48")  # (a CNP names its DSCP)
    lines.append(f"{indent}{key[-1]}: {value}")
    path = tmp_path / "p.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run_cli(["policy", "check", str(path)], tmp_path), len(lines)


# A count of bytes, milliseconds or seconds a device holds as an integer (SAI's sai_uint32_t WRED thresholds and
# sai_uint64_t buffer sizes, the watchdog's sai_int32_t milliseconds, OpenSM's uint32 sweep interval and transaction
# timeout: the sources policy.py cites beside each bound).
WHOLE_POLICY_KEYS = [k for k in NUMERIC_POLICY_KEYS if any(part.endswith(("_bytes", "_ms", "_s")) for part in k)]


@pytest.mark.parametrize("key", WHOLE_POLICY_KEYS, ids=[".".join(k) for k in WHOLE_POLICY_KEYS])
def test_a_count_a_device_holds_as_an_integer_takes_no_fraction(key, tmp_path):
    """Session 43: `ecn.min_threshold_bytes: {min: 150000.5, max: 150000.7}` was a policy, and render wrote Kmin
    150000 B for it, outside it (its own lint: ECN003); `9216.5` bytes, `999.9` ms and a fraction of a second for
    OpenSM passed `policy check`. Such a value is refused at its file and line, whole numbers written as floats
    (`9216.0`) too, as elsewhere in a policy (strict: a policy says 9216)."""
    assert len(WHOLE_POLICY_KEYS) >= 10
    for value in ("9216.5", "9216.0", "1.5e3"):
        o, line = _policy_setting(key, value, tmp_path)
        assert o.exit == 2 and not o.traceback, (value, o.output)
        assert f"p.yaml:{line}" in o.output and f"`{'.'.join(key)}`" in o.output, o.output


@pytest.mark.slow  # starts processes: the streams' encoding is the interpreter's, set at its start
@pytest.mark.parametrize("env", [
    {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},  # (PEP 538 and 540 off: an ASCII locale)
    {"PYTHONIOENCODING": "latin-1"},
    {"PYTHONIOENCODING": "ascii"},
])
def test_names_outside_the_locales_encoding_are_escaped_never_an_internal_error(env, tmp_path):
    """A device named `lеaf9-Ωé😀` (a Cyrillic letter, a Greek one, a Latin-1 one, one past U+FFFF) in a locale that
    is not UTF-8 was an internal error (UnicodeEncodeError, exit 3) of the text and JSON reports alike. Each stream
    now writes ASCII, every other character as its JSON escape: the JSON report is a valid (ASCII, so UTF-8)
    document holding the name, the text report shows where each character was."""
    from tests.clirun import program

    name = "l\u0435af9-\u03a9\u00e9\U0001f600"
    text = (hv.ROOT / "examples/clos/leaf1.cfg").read_text().replace("hostname leaf1", f"hostname {name}")
    (tmp_path / "x.cfg").write_text(text, encoding="utf-8")
    env = {"PYTHONIOENCODING": "", "LC_ALL": "", "LANG": "C.UTF-8", **env}
    res = program("lint", tmp_path / "x.cfg", "-f", "json", env=env, encoding="utf-8")
    assert res.returncode == 1 and res.stdout.isascii(), res.stderr
    assert [d["name"] for d in json.loads(res.stdout)["devices"]] == [name], res.stdout[:400]
    res = program("lint", tmp_path / "x.cfg", env=env, encoding="utf-8")
    assert res.returncode == 1 and res.stdout.isascii() and res.stderr.isascii(), res.stderr
    assert "l\\u0435af9-\\u03a9" in res.stdout, res.stdout[:400]


def test_a_path_past_path_max_is_shown_cut_in_messages_and_whole_in_machine_reports(tmp_path):
    """A path past PATH_MAX (4,096) as the command line gives it, or a name past NAME_MAX (255), was named whole in
    every message: 5,000 characters three times in one lint's error. A message shows its start, how much was cut and
    its last part (the file's own name); the JSON report keeps the whole path (its identity)."""
    from tests.clirun import losslessd

    deep = "/tmp/" + "d/" * 2500 + "x.cfg"
    named = str(tmp_path / ("n" * 5000 + ".cfg"))
    cut = f"...({len(deep) - 64 - len('/x.cfg'):,} characters cut, sha256 {_sha(deep)}).../x.cfg"
    for args, shown in [((deep,), cut), ((named,), "n" * 200 + ".cfg"),
                        (("examples/clos", "--policy", deep[:-3] + "yaml"),
                         cut.replace(_sha(deep), _sha(deep[:-3] + "yaml"))[:-3] + "yaml"),
                        (("examples/clos", "-o", deep + "/"), cut.replace(_sha(deep), _sha(deep + "/")) + "/")]:
        ran = losslessd("lint", *args)
        assert ran.returncode == 2, (args[0][:20], ran.stdout[:300], ran.stderr[:300])
        for line in (ran.stdout + ran.stderr).splitlines():
            assert len(line) < 1_000, (args[0][:20], line[:300])
        assert shown in ran.stdout + ran.stderr and "characters cut" in ran.stdout + ran.stderr, ran.stderr[:600]
    report = json.loads(losslessd("lint", deep, "-f", "json").stdout)
    assert [f["location"]["file"] for f in report["findings"]] == [deep]


@pytest.mark.parametrize("path, start, tail", [
    ("a" * 300 + "/" * 4000, "a" * 64, "a" * 236 + "/"),  # a name ended by a run of slashes (`lint -o NAME////`)
    ("x/" + "/" * 400, "x", "/"),
    ("/" * 5000, "", "/"),
    ("/" * 400 + "x", "/" * 64, "/x"),
    ("d/" * 300 + "x.cfg" + "/" * 3, "d/" * 32, "/x.cfg/"),
])
def test_a_long_path_ended_by_slashes_is_shown_cut_with_what_was_cut_counted(path, start, tail):
    """Session 44 review r1: shown_path counted the characters cut from the end of the name, not of the path, so a
    path ending in a run of slashes said "(-20 characters cut)" and then showed them all (4,000 of them). What is
    shown is the start, the count of what was cut (the start, count and tail add up to the path's length) and the last
    part with one slash of those ending it."""
    from losslessd.printable import shown_path

    count = len(path) - len(start) - len(tail)
    assert shown_path(path) == f"{start}...({count:,} characters cut, sha256 {_sha(path)})...{tail}"
    assert count > 0


def _sha(path: str) -> str:
    """The digest a cut path shows: `printf %s PATH | sha256sum`'s first 12 hex digits."""
    import hashlib

    return hashlib.sha256(path.encode()).hexdigest()[:12]


def test_two_long_paths_differing_only_in_the_cut_middle_are_told_apart_in_messages(tmp_path):
    """Session 45 (round 26): two paths of one length, the same start and the same file name, differing only where a
    message cuts them (`runs/2026-01-05/.../leaf1.cfg` and `runs/2026-01-06/...`) printed the same in every message
    (the JSON report keeps them whole): an operator could not say which file an error named. The cut shows a digest
    of the whole path (sha256, as `printf %s PATH | sha256sum` gives it), different for the two, the same each time."""
    from losslessd.printable import shown_path
    from tests.clirun import losslessd

    paths = [str(tmp_path / ("d" * 100) / day / ("e" * 200) / "leaf1.cfg") for day in ("2026-01-05", "2026-01-06")]
    shown = [shown_path(path) for path in paths]
    assert shown[0] != shown[1] and shown == [shown_path(path) for path in paths]
    for path, said in zip(paths, shown, strict=True):
        assert said.endswith("/leaf1.cfg") and _sha(path) in said and len(said) < 400
        ran = losslessd("lint", path)
        assert ran.returncode == 2 and said in ran.stderr, ran.stderr[:600]
    assert shown_path("/tmp/" + "\udcff" * 400 + "/x") != shown_path("/tmp/" + "\udcfe" * 400 + "/x")


def test_every_text_file_losslessd_reads_or_writes_names_its_encoding():
    """A file opened as text without an encoding is read or written in the locale's: under LC_ALL=C with Python's
    locale coercion and UTF-8 mode off (PEP 538, 540) that is ASCII, and `sim`'s fleet template holding a non-ASCII
    description was an internal error (UnicodeDecodeError) while every report and capture is UTF-8 whatever the
    locale. Every text file losslessd opens names its encoding (read with the source's own parser, ast)."""
    import ast
    from pathlib import Path

    import losslessd

    unnamed = []
    for path in sorted(Path(losslessd.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
                continue
            func = node.func
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            method = isinstance(func, ast.Attribute)
            if name in ("read_text", "write_text") and method and owner != "limits":  # (limits': UTF-8, bounded)
                unnamed.append(f"{path.name}:{node.lineno}")
            elif (name == "open" and (owner in ("io", "builtins") or not method)) or (name, owner) == ("fdopen", "os"):
                mode = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "mode"), ast.Constant("r"))
                if isinstance(mode, ast.Constant) and "b" not in mode.value:
                    unnamed.append(f"{path.name}:{node.lineno}")
    assert unnamed == []


def test_an_error_quotes_a_value_from_the_input_cut_never_whole(tmp_path):
    """Session 45 (round 26): 26 errors formatted the value they refused with repr() whole: `LOSSLESSD_JOBS` of
    100,000 digits was a 100 KB error line, as were `--format`, `--strategy`, `--family`, `--ports`, a topology's
    `routing:` or unknown key, a YAML duplicate key, a manifest's version, a policy's `extends:`. Each quotes it
    with printable.quoted (cut at 40 characters, the length said; a host name at 255, NAME_MAX, so two names
    differing late still differ), and no error of the package formats a value with !r uncut (read with ast)."""
    import ast
    from pathlib import Path

    import losslessd
    from tests.clirun import losslessd as run

    uncut = []
    for path in sorted(Path(losslessd.__file__).parent.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            name = getattr(node, "func", None)
            if not isinstance(node, ast.Call) or getattr(name, "id", getattr(name, "attr", None)) not in (
                    "InputError", "UsageError", "BadParameter"):
                continue
            for value in (v for arg in node.args[:1] for v in ast.walk(arg) if isinstance(v, ast.FormattedValue)):
                said = ast.get_source_segment(text, value.value) or ""
                bounded = value.format_spec is not None or said.endswith(("[:80]", "[:40]")) or said.startswith((
                    "shown_path(", "os.path.basename("))
                if value.conversion == ord("r") and not bounded:
                    uncut.append(f"{path.name}:{value.lineno}: {said}")
    assert uncut == []

    huge = "9" * 100_000
    (tmp_path / "topology.yaml").write_text(f"links: []\nrouting: {'x' * 100_000}\n")
    for args, env in [(("lint", "examples/clos"), {"LOSSLESSD_JOBS": huge}),
                      (("lint", "examples/clos", "--format", "e" * 100_000), None),
                      (("lint", "examples/clos", "--topology", str(tmp_path / "topology.yaml")), None)]:
        ran = run(*args, env=env)
        assert ran.returncode == 2, (args[:3], ran.stderr[:300])
        assert max(map(len, ran.stderr.splitlines())) < 2_000 and "characters)" in ran.stderr, ran.stderr[:600]
