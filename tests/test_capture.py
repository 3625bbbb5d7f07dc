"""The capture format: write -> read round trips, escaping, line numbers, and clear header errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd import capture
from losslessd.errors import InputError
from losslessd.limits import read_text

HEADER = {"device": "gpu01", "platform": "linux_mlx5", "collected": "2024-05-02T09:14:03Z"}


def test_round_trip_with_marker_like_output():
    tricky = "#% command: rm -rf /\n#%| already escaped\n#%\nplain\n  #% indented is not a marker\n"
    sections = [("mlnx_qos -i eth0", "Priority trust state: dscp\n"), ("cat /tmp/notes", tricky),
                ("true", ""), ("echo -n x", "x")]
    text = capture.write({**HEADER, "collector": "ssh"}, sections)
    header, read = capture.read(text, "gpu01.txt")
    assert header == {**HEADER, "collector": "ssh"}
    assert [(s.command, s.output) for s in read] == [
        ("mlnx_qos -i eth0", "Priority trust state: dscp\n"), ("cat /tmp/notes", tricky), ("true", ""), ("echo -n x", "x\n")]
    lines = text.split("\n")
    # Escaped on disk, and every section's line is the file line of its first output line.
    assert lines[read[1].line - 1] == "#%|#% command: rm -rf /"
    assert lines[read[1].line] == "#%|#%| already escaped"
    assert lines[read[0].line - 2] == "#% command: mlnx_qos -i eth0"
    assert lines[read[0].line - 1] == "Priority trust state: dscp"


def test_a_carriage_return_in_an_output_forges_no_section(tmp_path):
    """The reader takes a carriage return for a line end (limits.read_text, as open() in text mode): an output
    holding `x<CR>#% command: ...` (a file `cat` printed, a device that means harm) came back as a section of the
    output's making, whose lines were read as that command's."""
    forged = "NCCL_IB_TC=106\r#% command: cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class\r\n0\r\nlast\rline"
    path = tmp_path / "gpu01.txt"
    path.write_bytes(capture.write(HEADER, [("cat /etc/nccl.conf", forged)]).encode())
    _, read = capture.read(read_text(path), str(path))
    assert [(s.command, s.output) for s in read] == [
        ("cat /etc/nccl.conf", "NCCL_IB_TC=106\n#% command: cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"
                               "0\nlast\nline\n")]


def test_sniff_platform_reads_only_the_header():
    text = capture.write(HEADER, [("mlnx_qos -i eth0", "x\n")])
    assert capture.sniff_platform(text) == "linux_mlx5"
    assert capture.sniff_platform("hostname leaf1\n") is None
    assert capture.sniff_platform('{"DEVICE_METADATA": {}}') is None
    # Lines after the first command are output, not header.
    body_only = "#% losslessd capture 1\n#% command: x\n#% platform: sonic\n"
    assert capture.sniff_platform(body_only) is None



def _fields_before_platform(count: int) -> str:
    """A capture whose platform line comes after the device line and ``count`` more header fields."""
    head, body = capture.write(HEADER, [("mlnx_qos -i eth0", "x\n")]).split("#% command:", 1)
    extra = "".join(f"#% note{i}: v\n" for i in range(count))
    return head.replace("#% platform:", extra + "#% platform:") + "#% command:" + body


@pytest.mark.parametrize("lead", ["", "\n \n", "\ufeff"], ids=["as written", "blank lines first", "bom"])
def test_sniff_platform_reads_the_platform_read_finds_within_its_lines(lead):
    """A header as write() writes it is sniffed in one match, any other line by line: both name the platform
    capture.read names, as far as the 49th line after the magic line, and neither looks further."""
    within, beyond = lead + _fields_before_platform(47), lead + _fields_before_platform(48)
    spaced = lead + capture.write(HEADER, [("true", "")]).replace("platform: linux_mlx5", "platform:  linux_mlx5 ")
    for text in (within, beyond, spaced):
        assert capture.read(text).header["platform"] == "linux_mlx5"
    assert capture.sniff_platform(within) == capture.sniff_platform(spaced) == "linux_mlx5"
    assert capture.sniff_platform(beyond) is None


def test_crlf_and_bom_are_tolerated():
    text = "\ufeff" + capture.write(HEADER, [("cat /sys/class/net/eth0/mtu", "9000\n")]).replace("\n", "\r\n")
    header, [section] = capture.read(text)
    assert header["device"] == "gpu01" and section.command == "cat /sys/class/net/eth0/mtu"
    assert section.output.strip() == "9000"


GOOD = capture.write(HEADER, [("mlnx_qos -i eth0", "x\n")]).split("\n")


@pytest.mark.parametrize("lines,line,words", [
    (["hostname leaf1"], 1, "not a losslessd capture"),
    (["#% losslessd capture 2"] + GOOD[1:], 1, "version '2'"),
    (GOOD[:1] + GOOD[2:], 4, "lacks #% device:"),
    (GOOD[:2] + ["#% device: again"] + GOOD[2:], 3, "given twice"),
    (GOOD[:3] + ["#% collected: yesterday"] + GOOD[4:], 4, "ISO 8601"),
    (GOOD[:4] + ["stray output"] + GOOD[4:], 5, "before the first"),
    (GOOD[:4] + ["#% command:"] + GOOD[4:], 5, "empty command"),
    (GOOD[:6] + ["#% bogus marker"], 7, "malformed marker"),
    (GOOD[:6] + ["#% device: late"], 7, "after the first command"),
    ([], 1, "empty file"),
])
def test_malformed_capture_names_file_and_line(lines, line, words):
    with pytest.raises(InputError) as err:
        capture.read("\n".join(lines) + "\n", "h.txt")
    assert err.value.file == "h.txt" and err.value.line == line and words in err.value.message


def test_writer_refuses_what_it_could_not_read_back():
    with pytest.raises(ValueError, match="lacks collected"):
        capture.write({"device": "a", "platform": "linux_mlx5"}, [])
    with pytest.raises(ValueError, match="one line"):
        capture.write(HEADER, [("echo a\necho b", "")])
    with pytest.raises(ValueError, match="ISO 8601"):
        capture.write({**HEADER, "collected": "now"}, [])


commands = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), min_size=1).map(str.strip).filter(bool)
outputs = st.text(st.characters(blacklist_categories=("Cs",)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(commands, outputs), max_size=6))
def test_any_outputs_round_trip(sections):
    header, read = capture.read(capture.write(HEADER, sections))
    assert header == HEADER
    # (a carriage return is a line end, as the file is read: test_a_carriage_return_in_an_output_forges_no_section)
    lines = [o.replace("\r\n", "\n").replace("\r", "\n") for _, o in sections]
    assert [(s.command, s.output) for s in read] == [(c, o if not o or o.endswith("\n") else o + "\n")
                                                      for (c, _), o in zip(sections, lines, strict=True)]


def _captured(path, device: str, platform: str, command: str, config: str) -> str:
    path.write_text(capture.write({"device": device, "platform": platform, "collected": "2026-01-01T00:00:00Z"},
                                  [(command, config)]))
    return str(path)


@pytest.mark.parametrize(("platform", "command", "config", "own"), [
    ("arista_eos", "show running-config", "examples/clos/leaf1.cfg", "leaf1"),
    ("cisco_nxos", "show running-config", "tests/fixtures/raw/cisco_nxos/roce-leaf.cfg", "nx-leaf1"),
    ("sonic", "show runningconfiguration all", "tests/fixtures/raw/sonic/flat_config_db.json", "leaf-b2"),
])
def test_a_header_naming_another_device_than_the_config_is_said_once_naming_both(tmp_path, platform, command,
                                                                                config, own):
    """A capture whose header says `leaf2` (pull's inventory name) over a config whose hostname is another device was
    linted under the hostname without a word: the address pulled as leaf2 reached another switch. The hostname
    still names the device (every parser reads it over the header's), and one SYS004 note (not a warning: a site
    naming its inventory `dc1-leaf1` for the switch `leaf1` must not fail every lint) names the capture's header line
    and both names; the same name written otherwise (case, a domain, a look-alike letter) is no other."""
    from losslessd.parse import parse_group
    from tests.conftest import ROOT

    text = (ROOT / config).read_text()
    path = _captured(tmp_path / "leaf2.capture", "leaf2", platform, command, text)
    device = parse_group("leaf2", [path])
    said = [i for i in device.issues if "header names the device" in i.message]
    assert device.name == own and len(said) == 1 and said[0].code == "SYS004", device.issues
    assert said[0].source.file == path and said[0].source.line == 2
    assert f"names the device leaf2, but it is linted as {own}" in said[0].message
    # (a header naming the name with more after it is another device: the check that skips reading a header that
    # starts by naming the device read, parse._HEADER_START, takes the whole line)
    for longer in (f"{own}0", f"{own} 0", f"{own}-b"):
        path = _captured(tmp_path / "longer.capture", longer, platform, command, text)
        assert len([i for i in parse_group("longer", [path]).issues if "header names" in i.message]) == 1, longer
    for same in (own.upper(), f"{own}.dc1.example.net", own.replace("e", "\u0435", 1)):
        path = _captured(tmp_path / "same.capture", same, platform, command, text)
        assert not [i for i in parse_group("same", [path]).issues if "header names" in i.message], same


@pytest.mark.parametrize("address", ["10.0.0.11", "2001:db8::11", "fe80::1%eth0"])
def test_a_header_naming_an_address_names_no_other_device(tmp_path, address):
    """An inventory keyed by addresses (Nornir's SimpleInventory: a host without `hostname:` is reached at its name,
    as inventory.py reads it) writes the address as the capture's `device:`: it names no device, so the hostname
    `leaf1` is no other one (it was a SYS002 on every device of such a fleet, a warning: exit 1; now a note). A header
    naming another device by name is still said (the test above)."""
    from losslessd.parse import parse_group
    from tests.conftest import ROOT

    text = (ROOT / "examples/clos/leaf1.cfg").read_text()
    path = _captured(tmp_path / "leaf.capture", address, "arista_eos", "show running-config", text)
    device = parse_group("leaf", [path])
    assert device.name == "leaf1" and not [i for i in device.issues if "header names" in i.message], device.issues


def test_a_site_naming_its_inventory_otherwise_than_its_switches_lints_as_the_config_alone(tmp_path):
    """An inventory naming a switch `dc1-leaf1` whose hostname is `leaf1` (a common site convention) is told once as
    a note, and the lint's outcome is the configuration's own: exit code and findings the same as the config
    linted bare (the header's name was a SYS002 warning: exit 1 on every device of such a fleet)."""
    from losslessd.api import lint
    from tests.conftest import ROOT

    text = (ROOT / "examples/clos/leaf1.cfg").read_text()
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "leaf1.cfg").write_text(text)
    captured = tmp_path / "captured"
    captured.mkdir()
    _captured(captured / "dc1-leaf1.capture", "dc1-leaf1", "arista_eos", "show running-config", text)
    plain, named = lint([bare]), lint([captured])
    notes = [f for f in named.findings if "header names the device dc1-leaf1" in f.message]
    assert len(notes) == 1 and notes[0].severity.name == "info", named.findings
    assert sorted((f.code, f.severity, f.message) for f in plain.findings) == sorted(
        (f.code, f.severity, f.message) for f in named.findings if f is not notes[0])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_header_naming_another_device_of_the_lint_is_said_once_for_the_fleet_naming_both_files(tmp_path, jobs):
    """A capture whose header names another device of the same lint (leaf2's config saved as `leaf1.capture` beside
    leaf1's own; spine1's and spine2's captures swapped) was a note on each device naming only its own file; it is
    said once for the fleet, naming both files (the header's device is read from the other). A header naming no
    device of the lint (a site's `dc1-...` naming) keeps its note on the device. Serial and parallel lint alike."""
    from losslessd.api import lint
    from tests.conftest import ROOT

    clos = ROOT / "examples/clos"
    a = _captured(tmp_path / "leaf1.capture", "leaf1", "arista_eos", "show running-config",
                  (clos / "leaf1.cfg").read_text())
    b = _captured(tmp_path / "leaf1-copy.capture", "leaf1", "arista_eos", "show running-config",
                  (clos / "leaf2.cfg").read_text())
    c = _captured(tmp_path / "spine1.capture", "spine2", "arista_eos", "show running-config",
                  (clos / "spine1.cfg").read_text())
    d = _captured(tmp_path / "spine2.capture", "spine1", "arista_eos", "show running-config",
                  (clos / "spine2.cfg").read_text())
    own = tmp_path / "own"
    own.mkdir()
    e = _captured(own / "dc1-leaf9.capture", "dc1-leaf9", "arista_eos", "show running-config",
                  (clos / "leaf1.cfg").read_text().replace("hostname leaf1", "hostname leaf9"))
    result = lint([tmp_path], jobs=jobs)
    said = sorted((f.device, f.source.file if f.source else None, f.message) for f in result.findings
                  if f.code == "SYS004" and "header" in f.message)
    assert len(said) == 3, said
    by_file = {file: (device, file, message) for device, file, message in said}
    assert sorted(by_file) == sorted((b, c, e)), said
    claimed, swapped, noted = by_file[b], by_file[c], by_file[e]
    assert claimed[0] == "leaf2" and f"the capture {b} has the header of leaf1" in claimed[2], claimed
    assert f"leaf2's, and leaf1 is read from {a}: two files claim that device" in claimed[2], claimed
    assert swapped[0] == "spine1" and f"spine2 is read from {d}, whose header names spine1: the two captures are " \
        "swapped" in swapped[2], swapped
    assert noted[0] == "leaf9" and "names the device dc1-leaf9, but it is linted as leaf9" in noted[2], noted


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_device_with_two_captures_naming_two_other_devices_is_said_for_both(tmp_path, jobs):
    """Session 45 (round 26): a device read from two captures (a multi-ASIC SONiC folder's config_db.json and
    config_db0.json), whose headers name two other devices of the lint, was said for the first only (the device kept
    one header name): the second file, claiming spine1, went without a word. Each capture naming another device is
    said, naming its file and the other's."""
    from losslessd.api import lint
    from tests.conftest import ROOT

    clos = ROOT / "examples/clos"
    a = _captured(tmp_path / "leaf1.capture", "leaf1", "arista_eos", "show running-config",
                  (clos / "leaf1.cfg").read_text())
    s = _captured(tmp_path / "spine1.capture", "spine1", "arista_eos", "show running-config",
                  (clos / "spine1.cfg").read_text())
    folder = tmp_path / "leaf-b2"
    folder.mkdir()
    config = (ROOT / "tests/fixtures/raw/sonic/flat_config_db.json").read_text()
    b = _captured(folder / "config_db.json", "leaf1", "sonic", "show runningconfiguration all", config)
    c = _captured(folder / "config_db0.json", "spine1", "sonic", "show runningconfiguration all", config)
    result = lint([tmp_path], jobs=jobs)
    said = sorted((f.device, f.source.file if f.source else None, f.message) for f in result.findings
                  if f.code == "SYS004" and "header" in f.message)
    assert [(device, file) for device, file, _ in said] == [("leaf-b2", b), ("leaf-b2", c)], said
    assert f"has the header of leaf1 (`device: leaf1`), but its configuration is leaf-b2's, and leaf1 is read " \
        f"from {a}: two files claim that device" in said[0][2], said
    assert f"has the header of spine1 (`device: spine1`), but its configuration is leaf-b2's, and spine1 is read " \
        f"from {s}: two files claim that device" in said[1][2], said


@pytest.mark.parametrize("field, size, says", [
    ("device", 5_000_000, "the capture's header names its platform ('arista_eos') past the first 65,536 characters a "
                          "reader looks at (line 2 holds 5,000,011): no header pull writes"),
    ("collected", 200_000, "(200,000 characters) is not an ISO 8601 date and time"),
])
def test_a_header_field_past_what_the_sniff_reads_is_named_not_an_unknown_platform(tmp_path, field, size, says):
    """Session 45 (round 26): a capture whose header holds a field longer than the 65,536 characters the sniff reads
    of it, before its `platform:` (a `device:` of 5,000,000 characters, a pasted log in `collected:`), was "cannot
    tell which platform wrote this file", listing every platform. The header is read whole then: what is wrong with
    it is said at its line (exit 2), or, where it is well formed, that it names its platform past what a reader looks
    at."""
    from tests.clirun import losslessd
    from tests.conftest import ROOT

    header = {"device": "leaf1", "collected": "2026-01-01T00:00:00Z"}
    header[field] = "x" * size
    path = tmp_path / "leaf1.capture"
    path.write_text("".join(f"{capture.MARKER} {line}\n" for line in (
        f"{capture.MAGIC} {capture.VERSION}", f"device: {header['device']}", f"collected: {header['collected']}",
        "platform: arista_eos")) + f"{capture.MARKER} command: show running-config\n"
        + (ROOT / "examples/clos/leaf1.cfg").read_text())
    ran = losslessd("lint", path)
    assert ran.returncode == 2, ran.stderr[:300]
    assert f"{path}:{2 if field == 'device' else 3}: " in ran.stderr and says in ran.stderr, ran.stderr[:400]
    assert "cannot tell which platform" not in ran.stderr
