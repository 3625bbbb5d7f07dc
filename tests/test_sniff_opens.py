"""Platform.sniff_opens: detect skips a platform's package for a file that does not open as every file its sniff knows
does (SONiC: `{`), so a lint of one NX-OS switch no longer imports the SONiC reader to be told "not mine". The skip
must never change what is detected: every file a platform's sniff knows opens with its mark, and detect answers as
asking every sniff in order does (on every file there is and the fuzzers' texts: tests/test_detect_signs.py)."""

from __future__ import annotations

import pytest

from losslessd import capture
from losslessd.parse import SNIFF_ORDER, detect, parser_for
from losslessd.parse.base import Input
from losslessd.platforms import PLATFORMS
from tests.conftest import ROOT
from tests.test_detect_signs import _every_sniff

OPENS = {p: PLATFORMS[p].sniff_opens for p in SNIFF_ORDER if PLATFORMS[p].sniff_opens}


def test_sonic_is_told_by_its_opening_brace():
    # (a platform given a mark is tested on every file there is and the fuzzers' texts: tests/test_detect_signs.py)
    assert OPENS == {"sonic": "{"}


@pytest.mark.parametrize(("text", "platform"), [
    ('{"PORT": {"Ethernet0": {"speed": "100000"}}}', "sonic"),
    # white space of any script before the brace, as the sniff's \s takes it (an em space, a form feed, CRLFs)
    ('\u2003\f\r\n {"PORT": {"Ethernet0": {}}}', "sonic"),
    ('\ufeff{"PORT": {"Ethernet0": {}}}', None),  # a BOM is no white space: no sniff took it before either
    ("", None), (" \n\t", None),
    ((ROOT / "tests/fixtures/raw/cisco_nxos/roce-leaf.cfg").read_text(), "cisco_nxos"),
    # a capture opens with its header, not a brace: told by the platform the header names
    (capture.write({"device": "leaf1", "platform": "sonic", "collected": "2026-01-01T00:00:00Z"},
                   [("show runningconfiguration all", '{"PORT": {"Ethernet0": {}}}')]), "sonic"),
])
def test_detect_answers_as_every_sniff_asked_in_order(text, platform):
    inp = Input("t.cfg", text)
    assert detect(inp) == _every_sniff(inp) == platform


# One fixture each, wrapped in a capture below: text each platform's sniff knows on its content.
_CONTENT = {"sonic": "sonic/flat_config_db.json", "linux_mlx5": "linux_mlx5/nic-bare.txt",
            "opensm": "opensm/fat-tree-standby.conf",
            "arista_eos": "arista_eos/roce-leaf.cfg", "cisco_nxos": "cisco_nxos/roce-leaf.cfg",
            "juniper_junos": "juniper_junos/roce-leaf.cfg", "dell_os10": "dell_os10/roce-leaf.cfg"}


@pytest.mark.parametrize("named", [*SNIFF_ORDER, "cisco_ios", "no_such_platform"])
def test_a_capture_is_told_by_its_header_alone(named):
    """detect asks only the platform a capture's header names (a lint of one EOS capture imports no other platform's
    reader): exact because no platform's sniff takes a capture naming another one, whatever its outputs hold (OpenSM's
    read the outputs' lines as options until session 42: an options file captured under another platform's name)."""
    for owner, fixture in _CONTENT.items():
        path = ROOT / "tests" / "fixtures" / "raw" / fixture
        text = capture.write({"device": "d1", "platform": named, "collected": "2026-01-01T00:00:00Z"},
                             [("show running-config", path.read_text())])
        inp = Input("d1.capture", text)
        for platform in SNIFF_ORDER:
            if platform != named:
                assert not parser_for(platform).sniff(inp), (platform, named, owner)
        assert detect(inp) == _every_sniff(inp)
        assert detect(inp) in (named, None)
