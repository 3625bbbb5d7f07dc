"""A comment line anywhere in a real config never changes what the CLI readers read (EOS, NX-OS, OS10, OS9; Junos
and Onyx with their own comments): the same ports with the same settings and the same findings to be had, a `#` line
at most named (round 16: a `#` note at the margin closed the port above it and hid the port's PFC lines)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd.parse import dell_os9, dell_os10, eos, junos, nxos, onyx
from losslessd.parse.base import Input
from tests.fuzzing import raw_texts

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
READERS = {"arista_eos": eos, "cisco_nxos": nxos, "dell_os10": dell_os10, "dell_os9": dell_os9, "juniper_junos": junos,
           "nvidia_onyx": onyx}
TEXTS = {(platform, name): text for platform in READERS for name, text in raw_texts(platform, "*.cfg").items()}
# The comment's own text: a note, a separator, a shell-style banner of hashes. Junos: `#` lines and `/* */` comments
# (Junos CLI guide, `annotate`: its comment delimiters); Onyx: `##` lines, as `show running-config` prints them.
NOTES = ["!", "! RoCE lossless settings", "!!", "#", "# RoCE lossless settings", "###########"]
PLATFORM_NOTES = {"juniper_junos": ["# RoCE lossless settings", "/* RoCE lossless settings */", "## last commit"],
                  "nvidia_onyx": ["##", "## RoCE lossless settings", "#"]}


def _scrub(value):
    """The model without its line numbers (each line after the comment moved down by one)."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if "source" not in str(k) and k != "line"}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _reading(module, text: str):
    device = module.parse([Input("sw1.cfg", text)], "sw1")
    issues = sorted(i.code for i in device.issues)
    return _scrub(device.model_dump(exclude={"issues"})), issues, device


@SETTINGS
@given(data=st.data())
def test_a_comment_line_changes_no_reading(data):
    platform, name = data.draw(st.sampled_from(sorted(TEXTS)))
    lines = TEXTS[platform, name].split("\n")
    at = data.draw(st.integers(1, len(lines) - 1))
    indent = data.draw(st.sampled_from(["", " ", "  ", "   ", "      "]))
    note = indent + data.draw(st.sampled_from(PLATFORM_NOTES.get(platform, NOTES)))
    before = _reading(READERS[platform], "\n".join(lines))
    after = _reading(READERS[platform], "\n".join([*lines[:at], note, *lines[at:]]))
    assert after[0] == before[0], (platform, name, at, note)
    hashes = [i for i in after[2].issues if i.source.line == at + 1]
    assert after[1] == sorted(before[1] + [i.code for i in hashes]), (platform, name, at, note, after[2].issues)
    assert all(note.strip().startswith("#") for _ in hashes)
