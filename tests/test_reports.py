"""Report formatters on real lint results: schemas, locations, fingerprints, escaping, colour."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator

import jsonschema
import pytest

from losslessd import api
from losslessd.lint.engine import LintResult, run
from losslessd.lint.registry import Rule, all_rules
from losslessd.model import Device, DeviceKind, Fabric, ParseIssue, Port, Source
from losslessd.policy import load_policy
from losslessd.report import json_report, render
from losslessd.report.github import escape_data, escape_property
from losslessd.report.text import SELECTION_HEADER
from losslessd.report.text import render as render_text
from tests.conftest import FIXTURES, ROOT

SONIC = "examples/fabric/leaf1/config_db.json"
EOS = "examples/fabric/spine1.cfg"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Broken(Rule):
    """Raises on every run, so the engine reports SYS900 for it (a rule bug is a finding)."""

    code = "TST901"
    name = "always-broken"
    scope = "fabric"

    def check(self, ctx) -> Iterator:
        raise ZeroDivisionError("boom")


def sys_rules() -> list[type[Rule]]:
    """SYS001-003 and a broken rule; SYS900 is left out so SARIF has to add it for the crash."""
    return [rule for code, rule in all_rules().items() if code in ("SYS001", "SYS002", "SYS003")] + [Broken]


def fabric() -> Fabric:
    """A fabric whose findings point every way a finding can: file+line, JSON pointer only,
    absolute path, a path outside the repository, a live command, nothing at all."""
    leaf = Device(name="leaf1", kind=DeviceKind.switch, platform="sonic", files=[SONIC],
                  ports={"Ethernet0": Port(name="Ethernet0")},
                  issues=[ParseIssue(code="SYS002", message="pfc_enable '3,x' is not a priority list",
                                     source=Source(file=SONIC, pointer="/PORT_QOS_MAP/Ethernet0/pfc_enable")),
                          ParseIssue(code="SYS003", message="unit 'furlongs' unknown",
                                     source=Source(file=str(ROOT / SONIC), line=12)),
                          ParseIssue(code="SYS002", message="BUFFER_POOL skipped")])  # no source: device file
    spine = Device(name="spine1", kind=DeviceKind.switch, platform="arista_eos", files=[EOS],
                   issues=[ParseIssue(code="SYS002", message="truncated qos map: 50%, then\nnothing",
                                      source=Source(file=EOS, line=42))])
    host = Device(name="host1", kind=DeviceKind.host, platform="linux_mlx5",
                  issues=[ParseIssue(code="SYS002", message="mlnx_qos output cut short",
                                     source=Source(device="host1", command="mlnx_qos -i eth0"))])
    return Fabric(devices={d.name: d for d in (leaf, spine, host)},
                  issues=[ParseIssue(code="SYS001", message="invalid JSON: Expecting ',' delimiter",
                                     source=Source(file="/outside/repo/bad,name:1.json", line=3)),
                          ParseIssue(code="SYS001", message="no such file or folder")])


def lint_result(baseline: set[str] | None = None) -> LintResult:
    result = run(fabric(), load_policy("roce-dscp26"), sys_rules(), baseline=baseline)
    result.inputs = ["examples/fabric"]
    return result


@pytest.fixture
def result() -> LintResult:
    return lint_result()


def sarif_of(result: LintResult) -> dict:
    return json.loads(render("sarif", result))


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((FIXTURES / "sarif-2.1.0-schema.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)  # the OASIS schema declares draft-04
    cls.check_schema(schema)
    return cls(schema)


def test_fixture_result_is_varied(result):
    """The other tests only mean something if the lint run gave every kind of finding."""
    codes = sorted(f.code for f in result.findings)
    assert codes == ["SYS001", "SYS001", "SYS002", "SYS002", "SYS002", "SYS002", "SYS003", "SYS900"]
    assert {f.device for f in result.findings} == {None, "leaf1", "spine1", "host1"}


# --- JSON -----------------------------------------------------------------------------------

def test_json_validates_against_its_schema(result):
    validator = jsonschema.Draft202012Validator(json_report.schema())
    validator.check_schema(json_report.schema())
    doc = json.loads(render("json", result))
    validator.validate(doc)
    assert doc["schema"] == "losslessd-report" and doc["version"] == 1
    assert doc["summary"]["findings"] == len(result.findings) == len(doc["findings"])
    assert doc["summary"]["error"] == 3 and doc["summary"]["warning"] == 5 and doc["summary"]["info"] == 0
    assert doc["summary"]["rules_run"] == ["SYS001", "SYS002", "SYS003", "TST901"]
    assert doc["policy"]["name"] == "roce-dscp26"


def test_json_schema_rejects_what_it_must(result):
    validator = jsonschema.Draft202012Validator(json_report.schema())
    doc = json.loads(render("json", result))
    for mutate in (lambda d: d["findings"][0].pop("fingerprint"),
                   lambda d: d["findings"][0].update(severity="fatal"),
                   lambda d: d["findings"][0].update(surprise=1),
                   lambda d: d.update(version=2)):
        broken = copy.deepcopy(doc)
        mutate(broken)
        assert not validator.is_valid(broken)


def test_json_locations_are_relative_and_data_is_json(result):
    doc = json.loads(render("json", result))
    by_message = {f["message"]: f for f in doc["findings"]}
    assert by_message["unit 'furlongs' unknown"]["location"] == {"file": SONIC, "line": 12, "pointer": None,
                                                                 "command": None}
    assert by_message["pfc_enable '3,x' is not a priority list"]["location"]["pointer"] == \
        "/PORT_QOS_MAP/Ethernet0/pfc_enable"
    assert by_message["no such file or folder"]["location"] is None
    assert doc["inputs"] == ["examples/fabric"]


def test_json_non_finite_data_stays_valid_json(result):
    result.findings[0].data = {"margin_bytes": float("inf"), "priorities": {3, 4}}
    text = render("json", result)
    assert json.loads(text)["findings"][0]["data"] == {"margin_bytes": None, "priorities": [3, 4]}
    assert "Infinity" not in text


def _expected_row(f) -> dict:
    """A finding as report-v1 lays it out, built here from the Finding's fields (not by the report's code)."""
    src = f.source
    return {"code": f.code, "name": f.name, "severity": f.severity.value, "message": f.message, "device": f.device,
            "port": f.port, "devices": list(f.devices), "key": f.key,
            "location": None if src is None else {"file": src.file, "line": src.line, "pointer": src.pointer,
                                                  "command": src.command},
            "fingerprint": f.fingerprint, "unverified": f.unverified}


@pytest.mark.parametrize("data, as_json", [
    ({}, {}),
    ({"priority": 3, "pgs": [3, 4], "chain": ("dscp", "tc"), "ok": True, "none": None, "ratio": 0.5},
     {"priority": 3, "pgs": [3, 4], "chain": ["dscp", "tc"], "ok": True, "none": None, "ratio": 0.5}),
    ({"margin": float("nan"), "limits": [1.5, float("inf")]}, {"margin": None, "limits": [1.5, None]}),
    ({"limits": [1.5, float("inf")]}, {"limits": [1.5, None]}),  # each on its own: one odd value sends the
    ({"set": {5, 4}}, {"set": [4, 5]}),                            # whole dict the slow way
    ({"nested": [{"b": (2,)}]}, {"nested": [{"b": [2]}]}),
    ({"nested": {"a": [1, {"b": 2}]}, "set": {5, 4}}, {"nested": {"a": [1, {"b": 2}]}, "set": [4, 5]}),
])
@pytest.mark.parametrize("text", ["plain", 'quote " back\\slash', "ctl \x1b[31m\n\t\x00 end", "ünï ≥ 🙂"])
def test_json_rows_hold_every_finding_shape(result, data, as_json, text):
    """The findings' rows are written field by field (finding_json): every kind of text and data must come out
    as the schema's row, the same as the whole-dict way would write it."""
    sonic = Source(file=SONIC, line=7, pointer=f"/PORT/{text}", command=None)
    shapes = [dict(source=sonic, device=text, port=text, devices=[text, "b"], key=text, message=f"m {text}"),
              dict(source=None, device=None, port=None, devices=[], key="", unverified=True),
              dict(source=Source(device="h", command=f"mlnx_qos -i {text}"), name=text)]
    findings = []
    for shape in shapes:
        finding = copy.copy(result.findings[0])
        for attr, value in {**shape, "data": dict(data)}.items():
            setattr(finding, attr, value)
        findings.append(finding)
    result.findings = findings
    text_out = render("json", result)
    rows = json.loads(text_out)["findings"]
    assert rows == [{**_expected_row(f), "data": as_json} for f in findings]
    assert all(line.startswith("    {") for line in text_out.split('"findings": [\n')[1].splitlines()[:3])
    assert [json_report.finding_json(f) for f in findings] == \
        [json_report.compact(json_report.finding_dict(f)) for f in findings]


def test_json_baseline_round_trip(result, tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(render("json", result), encoding="utf-8")
    baseline = api.load_baseline(path)
    assert baseline == {f.fingerprint for f in result.findings}
    again = lint_result(baseline)
    assert again.findings == [] and again.baseline_suppressed == len(result.findings)


# --- SARIF ----------------------------------------------------------------------------------

def test_sarif_validates_against_the_official_schema(result, sarif_validator):
    log = sarif_of(result)
    sarif_validator.validate(log)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1


def test_sarif_schema_catches_a_result_without_message(result, sarif_validator):
    log = sarif_of(result)
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError, match="message"):
        sarif_validator.validate(log)


def test_sarif_every_result_has_a_physical_location_with_a_line(result):
    results = sarif_of(result)["runs"][0]["results"]
    assert len(results) == len(result.findings)
    for res in results:
        (loc,) = res["locations"]
        assert loc["physicalLocation"]["artifactLocation"]["uri"]
        assert loc["physicalLocation"]["region"]["startLine"] >= 1
        assert loc["logicalLocations"][0]["name"]
        assert res["message"]["text"]


def test_sarif_locations_follow_the_finding(result):
    run_ = sarif_of(result)["runs"][0]
    by_text = {r["message"]["text"]: r["locations"][0] for r in run_["results"]}

    pointer_only = by_text["leaf1: pfc_enable '3,x' is not a priority list"]
    assert pointer_only["physicalLocation"]["artifactLocation"] == {"uri": SONIC, "uriBaseId": "%SRCROOT%"}
    assert pointer_only["properties"]["jsonPointer"] == "/PORT_QOS_MAP/Ethernet0/pfc_enable"

    absolute_in_repo = by_text["leaf1: unit 'furlongs' unknown"]["physicalLocation"]
    assert absolute_in_repo == {"artifactLocation": {"uri": SONIC, "uriBaseId": "%SRCROOT%"},
                                "region": {"startLine": 12}}

    sourceless = by_text["leaf1: BUFFER_POOL skipped"]["physicalLocation"]  # its device's file, whole file
    assert sourceless == {"artifactLocation": {"uri": SONIC, "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}

    live = by_text["host1: mlnx_qos output cut short"]  # no file: first input, command kept
    assert live["physicalLocation"]["artifactLocation"]["uri"] == "examples/fabric"
    assert live["properties"]["command"] == "mlnx_qos -i eth0"
    assert live["logicalLocations"] == [{"name": "host1", "fullyQualifiedName": "host1", "kind": "device"}]

    nowhere = by_text["no such file or folder"]
    assert nowhere["physicalLocation"]["artifactLocation"]["uri"] == "examples/fabric"
    assert nowhere["logicalLocations"][0]["kind"] == "fabric"

    crash = next(r for r in run_["results"] if r["ruleId"] == "SYS900")  # device-less, source-less
    assert crash["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/fabric"


def test_sarif_uris_are_repo_relative_unless_outside(result):
    run_ = sarif_of(result)["runs"][0]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.resolve().as_uri() + "/"
    for res in run_["results"]:
        art = res["locations"][0]["physicalLocation"]["artifactLocation"]
        if art["uri"].startswith("file:"):  # the one file that is not below the working directory
            assert art == {"uri": "file:///outside/repo/bad%2Cname%3A1.json"}
        else:
            assert art["uriBaseId"] == "%SRCROOT%"
            assert not art["uri"].startswith("/") and ".." not in art["uri"] and "\\" not in art["uri"]
    assert any(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:")
               for r in run_["results"])


def test_sarif_rule_index_points_at_the_rule(result):
    driver = sarif_of(result)["runs"][0]["tool"]["driver"]
    ids = [rule["id"] for rule in driver["rules"]]
    assert {r.code for r in result.rules} | {"SYS900"} == set(ids)  # SYS900 was not run but reported
    for res in sarif_of(result)["runs"][0]["results"]:
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] == driver["rules"][res["ruleIndex"]]["defaultConfiguration"]["level"]


def test_sarif_levels_map_severities(result):
    result.findings[0].severity = api.Severity.info
    levels = [r["level"] for r in sarif_of(result)["runs"][0]["results"]]
    assert levels[0] == "note"
    assert set(levels) <= {"error", "warning", "note"}


def test_sarif_fingerprints_stable_and_message_independent():
    first = sarif_of(lint_result())
    second_result = lint_result()
    for f in second_result.findings:
        f.message = f.message.upper() + " (reworded)"
        if f.source is not None and f.source.line is not None:
            f.source = f.source.model_copy(update={"line": f.source.line + 7})  # the line moved
    second = sarif_of(second_result)
    prints = [[r["partialFingerprints"]["losslessdFingerprint/v1"] for r in log["runs"][0]["results"]]
              for log in (first, second)]
    assert prints[0] == prints[1]
    assert len(set(prints[0])) == len(prints[0])  # and they tell findings apart
    assert render("sarif", lint_result()) == render("sarif", lint_result())


def test_sarif_descriptors_meet_github_requirements_for_every_registered_rule(result):
    """Every rule any module registers gets a descriptor GitHub accepts: required texts present,
    short/full descriptions within GitHub's 1024 characters, help from the rule docstring."""
    result.rules = list(all_rules().values())
    driver = sarif_of(result)["runs"][0]["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == sorted(all_rules())
    for desc in driver["rules"]:
        rule = all_rules()[desc["id"]]
        assert desc["name"] == rule.name
        assert 0 < len(desc["shortDescription"]["text"]) <= 1024
        assert 0 < len(desc["fullDescription"]["text"]) <= 1024
        assert "## Fix" in desc["help"]["text"] and desc["help"]["markdown"].startswith(f"# {rule.code} ")
    sys002 = next(d for d in driver["rules"] if d["id"] == "SYS002")
    assert sys002["shortDescription"]["text"] == "Part of a device file was not understood and was skipped."
    assert "recognised as QoS-relevant" in sys002["fullDescription"]["text"]
    assert sys002["defaultConfiguration"]["level"] == "warning"


# --- GitHub annotations -----------------------------------------------------------------------

def test_github_one_line_per_finding(result):
    lines = render("github", result).splitlines()
    # and, last, one saying that a rule bug cut the run short (the fixture's broken rule)
    assert len(lines) == len(result.findings) + 1
    assert lines[-1].startswith("::error title=losslessd::internal error: rule ") and "broken" in lines[-1]
    assert "::warning file=examples/fabric/spine1.cfg,line=42,title=SYS002 partial-parse::" \
           "spine1: truncated qos map: 50%25, then%0Anothing" in lines
    assert "::warning file=examples/fabric/leaf1/config_db.json,line=12,title=SYS003 unknown-unit::" \
           "leaf1: unit 'furlongs' unknown" in lines
    # a JSON pointer without a line: annotate the file and say where in it
    assert "::warning file=examples/fabric/leaf1/config_db.json,title=SYS002 partial-parse::" \
           "leaf1: pfc_enable '3,x' is not a priority list (at /PORT_QOS_MAP/Ethernet0/pfc_enable)" in lines
    # property values escape , and : as well
    assert "::error file=/outside/repo/bad%2Cname%3A1.json,line=3,title=SYS001 input-unreadable::" \
           "invalid JSON: Expecting ',' delimiter" in lines
    assert "::error title=SYS001 input-unreadable::no such file or folder" in lines
    assert "::warning file=examples/fabric/leaf1/config_db.json,title=SYS002 partial-parse::" \
           "leaf1: BUFFER_POOL skipped" in lines  # no source of its own: its device's file, no line


def test_github_notice_for_info(result):
    result.findings[0].severity = api.Severity.info
    assert render("github", result).splitlines()[0].startswith("::notice ")


def test_github_escaping():
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_property("C:\\x,y\n50%") == "C%3A\\x%2Cy%0A50%25"
    assert escape_property("%3A") == "%253A"  # % first, so escapes are not escaped twice


# --- text -----------------------------------------------------------------------------------

def test_text_groups_by_device_without_colour(result):
    text = render("text", result)
    assert not ANSI.search(text)
    lines = text.splitlines()
    headers = [line for line in lines if line and not line.startswith(" ") and "checked against" not in line]
    assert headers == ["(fabric)", "host1", "leaf1", "spine1", SELECTION_HEADER]
    # How many ports of each device the port rules checked, and which rule left the others out.
    block = lines[lines.index(SELECTION_HEADER) + 1:-1]
    assert [line.split(":")[0].strip() for line in block] == list(result.fabric.devices)
    assert all(" ports selected as RoCE-facing" in line or " port selected" in line for line in block)
    spine = lines[lines.index("spine1") + 1:]
    assert spine[0] == "  warning SYS002 (device): truncated qos map: 50%, then"
    assert spine[1] == "          nothing [examples/fabric/spine1.cfg:42]"  # a message's 2nd line stays indented
    assert f"unit 'furlongs' unknown [{SONIC}:12]" in text  # absolute source path shown relative
    # what was checked (no port of these devices is RoCE-facing), and that a rule bug cut the run short
    assert lines[-1] == ("3 devices read, 0 checked against policy roce-dscp26 (2 inputs unread): 3 errors, "
                         "5 warnings, 0 infos; INCOMPLETE: 1 internal error (SYS900) cut checks short")


def test_text_colour_only_when_asked(result):
    plain = render("text", result)
    coloured = render("text", result, color=True)
    assert ANSI.search(coloured)
    assert "\x1b[31m" in coloured and "\x1b[33m" in coloured  # errors red, warnings yellow
    assert ANSI.sub("", coloured) == plain


def test_text_from_inputs_cannot_drive_the_terminal(tmp_path):
    """A hostile config's names reach the text report and the error lines: an escape sequence (ESC [31m, an 8-bit
    CSI) or a newline in a host name, a port name or a file name is written out, never sent to the terminal."""
    from tests.clirun import losslessd

    config = json.loads((ROOT / "examples" / "fabric" / "leaf1" / "config_db.json").read_text())
    evil = "Eth\x1b[31mRED\x1b]0;title\x07\x9b2J"
    for table in ("PORT", "PORT_QOS_MAP"):
        config[table][evil] = config[table].pop("Ethernet0")
    config["DEVICE_METADATA"]["localhost"]["hostname"] = "sw\x1b[2Jx"
    folder = tmp_path / "le\naf\x1b[1m"
    folder.mkdir()
    (folder / "config_db.json").write_text(json.dumps(config))
    for args in (["lint", tmp_path, "--policy", "roce-dscp26"], ["lint", tmp_path, "--explain-selection"]):
        res = losslessd(*args)
        assert res.returncode == 1 and "Eth\\x1b[31mRED\\x1b]0;title\\x07\\x9b2J" in res.stdout, res.stderr
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", res.stdout)  # (colour is off: not a terminal)
    report = losslessd("lint", tmp_path).stdout
    assert "sw\\x1b[2Jx" in report and "le\\naf\\x1b[1m/config_db.json" in report
    res = losslessd("lint", tmp_path / "no\x1b[31msuch")
    assert res.returncode == 2 and "no\\x1b[31msuch" in res.stderr and "\x1b" not in res.stderr


# EOS User Manual, "DCBX and Flow Control": `priority-flow-control on` and `priority-flow-control priority N no-drop`
# under an interface; "Quality of Service": `qos trust dscp|cos`. Three ports alike, a fourth trusting CoS.
FOLD_EOS = "hostname fold-leaf\n" + "".join(
    f"interface Ethernet{i}\n   qos trust {trust}\n   priority-flow-control on\n"
    "   priority-flow-control priority 3 no-drop\n!\n"
    for i, trust in ((1, "dscp"), (2, "dscp"), (3, "dscp"), (4, "cos")))


def test_text_report_gives_a_message_ports_share_one_line(tmp_path):
    """Ports configured alike get the same finding each: the text report names them on one line (with how many
    other config lines hold it), keeps a port's own finding on its own line, and JSON keeps every finding."""
    cfg = tmp_path / "fold-leaf.cfg"
    cfg.write_text(FOLD_EOS, encoding="utf-8")
    result = api.lint([cfg], "roce-dscp26")
    text = render_text(result)
    wdg = [line for line in text.splitlines() if " WDG001 " in line]
    assert len(wdg) == 1, text
    # (no timeout applies on these ports: whether the watchdog runs is unknown, a warning; session 40)
    assert "warning WDG001 4 ports (Ethernet1, Ethernet2, Ethernet3, Ethernet4): whether the PFC watchdog" in wdg[0]
    assert wdg[0].endswith(":2 and 3 other lines]"), wdg[0]
    assert [line.split(": ")[0].split()[-1] for line in text.splitlines() if " MAP003 " in line] == ["Ethernet4"]
    assert len([f for f in result.findings if f.code == "WDG001"]) == 4
    assert len([r for r in json.loads(json_report.render(result))["findings"] if r["code"] == "WDG001"]) == 4


def test_a_folded_line_names_every_port_it_stands_for(tmp_path):
    """`grep Ethernet9 report.txt` must still find a port's finding when nine ports share its line (a fold that
    named six and "3 more" hid the last three from grep)."""
    cfg = tmp_path / "fold-leaf.cfg"
    cfg.write_text("hostname fold-leaf\n" + "".join(
        f"interface Ethernet{i}\n   qos trust dscp\n   priority-flow-control on\n"
        "   priority-flow-control priority 3 no-drop\n!\n" for i in range(1, 10)), encoding="utf-8")
    wdg = [line for line in render_text(api.lint([cfg], "roce-dscp26")).splitlines() if " WDG001 " in line]
    assert len(wdg) == 1 and "9 ports (" + ", ".join(f"Ethernet{i}" for i in range(1, 10)) + ")" in wdg[0], wdg


def test_the_same_file_level_finding_in_many_files_is_one_line_naming_every_file(tmp_path):
    """A folder of empty files beside one config gave one SYS001 line per file (100,002 for 100,000 files): the text
    report folds a file-level finding that other files share into one line that counts and names every file (grep
    finds each), keeps a finding alone in its file as it was, and JSON keeps one entry per file."""
    (tmp_path / "fold-leaf.cfg").write_text(FOLD_EOS, encoding="utf-8")
    empties = [f"empty{i}.cfg" for i in range(1, 13)]
    for name in empties:
        (tmp_path / name).write_bytes(b"")
    result = api.lint([tmp_path], "roce-dscp26")
    text = render_text(result)
    empty = [line for line in text.splitlines() if " SYS001 " in line and "the file is empty" in line]
    assert len(empty) == 1, text
    assert "[12 files: " in empty[0] and all(name in empty[0] for name in empties), empty
    assert len([r for r in json.loads(json_report.render(result))["findings"] if r["code"] == "SYS001"]) == 12


def test_nothing_readable_names_each_unreadable_file_once_on_one_line_per_reason(tmp_path):
    """With no device readable, the lines after "nothing readable" fold as the text report does: one line for each
    reason naming every file it stands for (7 empty files gave 5 lines and "... and 2 more", naming 2 files nowhere on
    stderr), a reason of one file its own line, exit 2."""
    empties = [f"empty{i}.cfg" for i in range(1, 8)]
    for name in empties:
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "odd.cfg").write_text("no platform writes this\n", encoding="utf-8")
    code, lines = api.lint([tmp_path], "roce-dscp26").outcome(False)
    assert code == 2 and lines[0].startswith("error: nothing readable"), lines
    empty = [line for line in lines if "the file is empty" in line]
    assert len(empty) == 1 and "7 files: " in empty[0] and all(name in empty[0] for name in empties), lines
    assert len([line for line in lines if "odd.cfg:1: " in line]) == 1 and len(lines) == 3, lines


def test_a_file_level_finding_in_one_file_keeps_its_lines(tmp_path):
    """Two places of one file giving the same message are not a fold over files: each keeps its line and place."""
    cfg = str(tmp_path / "a.cfg")
    leaf = Device(name="leaf", kind=DeviceKind.switch, platform="arista_eos", files=[cfg], issues=[
        ParseIssue(code="SYS002", message="same", source=Source(file=cfg, line=n)) for n in (3, 9)])
    text = render_text(run(Fabric(devices={"leaf": leaf}), load_policy("roce-dscp26"), sys_rules()))
    assert [line.rsplit("[", 1)[1] for line in text.splitlines() if " SYS002 " in line] == [
        f"{tmp_path / 'a.cfg'}:3]", f"{tmp_path / 'a.cfg'}:9]"], text


def test_a_folded_line_counts_places_that_share_a_line(tmp_path):
    """A minified CONFIG_DB holds every port's entry on line 1, each under its own pointer: the folded line must not
    give the first port's pointer as the only place (it said `[db.json:1 /PORT_QOS_MAP/Ethernet0/pfc_enable]` for six
    ports), but count the others."""
    db = json.loads((ROOT / SONIC).read_text(encoding="utf-8"))
    for entry in db["PORT_QOS_MAP"].values():
        if "pfc_enable" in entry:
            entry["pfc_enable"] = "3,4"  # priority 4 paused on every port: one PFC002 each, each at its own entry
    cfg = tmp_path / "db.json"
    cfg.write_text(json.dumps(db), encoding="utf-8")
    result = api.lint([cfg], "roce-dscp26")
    pfc = [line for line in render_text(result).splitlines() if " PFC002 " in line]
    count = len([f for f in result.findings if f.code == "PFC002"])
    assert count > 1 and len(pfc) == 1, pfc
    assert pfc[0].endswith(f"/PORT_QOS_MAP/Ethernet0/pfc_enable and {count - 1} other places]"), pfc
