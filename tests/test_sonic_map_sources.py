"""MAP005 points at the PFC priority -> PG map it asks to change, not at the port's PORT_QOS_MAP binding.

The parser kept no source for PFC_PRIORITY_TO_PRIORITY_GROUP_MAP, so the finding (whose fix is "map PFC priority 4 to
PG 3") sent the reader to PORT_QOS_MAP|Ethernet8, where nothing maps a priority to a PG.
"""

from __future__ import annotations

from losslessd import api
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "realworld" / "sonic" / "mellanox-pfc-to-pg-shared-pg"


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def test_map005_points_at_the_pfc_priority_to_pg_map():
    text = (FIXTURE / "config_db.json").read_text()
    found = [f for f in api.lint([FIXTURE], "sonic-azure").findings if f.code == "MAP005"]
    assert sorted(f.port for f in found) == ["Ethernet12", "Ethernet8"]
    map_line = _line(text, '"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"') + 1  # its "AZURE" entry, on the next line
    for f in found:
        assert f.source.pointer == "/PFC_PRIORITY_TO_PRIORITY_GROUP_MAP/AZURE"
        assert f.source.line == map_line
