"""The loader: folders of mixed devices, format detection, one broken file among many."""

from __future__ import annotations

import json
from pathlib import Path

from losslessd.api import lint
from losslessd.fabric import load_fabric
from tests.clirun import losslessd


def _sonic(name: str, pfc: str = "3") -> str:
    return json.dumps({
        "DEVICE_METADATA": {"localhost": {"hostname": name}},
        "PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100", "admin_status": "up"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": pfc}},
    }, indent=1)


def test_hundred_files_one_broken(tmp_path):
    for i in range(100):
        text = _sonic(f"leaf{i:03d}")
        if i == 42:
            text = text.replace('"PORT":', '"PORT"')  # missing colon
        (tmp_path / f"leaf{i:03d}.json").write_text(text)
    fabric = load_fabric([tmp_path])
    assert len(fabric.devices) == 99 and "leaf042" not in fabric.devices
    [issue] = fabric.issues
    assert issue.code == "SYS001" and issue.source.file.endswith("leaf042.json") and issue.source.line is not None

    result = lint([tmp_path], "roce-dscp26", select_codes=["SYS001", "PFC001"])
    sys001 = [f for f in result.findings if f.code == "SYS001"]
    assert len(sys001) == 1 and "leaf042.json" in sys001[0].source.file
    assert {f.device for f in result.findings if f.code == "PFC001"} == set()  # priority 3 has PFC everywhere


def test_unknown_format_is_a_finding_not_a_crash(tmp_path):
    (tmp_path / "leaf1.json").write_text(_sonic("leaf1"))
    (tmp_path / "notes.bin").write_bytes(b"\xff\xfe\x00 binary")
    (tmp_path / "mystery.conf").write_text("set system host-name mystery\n")
    fabric = load_fabric([tmp_path])
    assert list(fabric.devices) == ["leaf1"]
    messages = {i.source.file.rsplit("/", 1)[-1]: i.message for i in fabric.issues}
    assert "UTF-8" in messages["notes.bin"] and "--format" in messages["mystery.conf"]


def test_duplicate_hostnames_reported(tmp_path):
    (tmp_path / "a.json").write_text(_sonic("leaf1"))
    (tmp_path / "b.json").write_text(_sonic("leaf1"))
    fabric = load_fabric([tmp_path])
    assert len(fabric.devices) == 1
    assert any("also comes from" in i.message for i in fabric.issues)


def test_format_override_and_unknown_format(tmp_path):
    f = tmp_path / "leaf1.json"
    f.write_text(_sonic("leaf1"))
    assert list(load_fabric([f], fmt="sonic").devices) == ["leaf1"]
    res = losslessd("lint", f, "--format", "vyos")
    assert res.returncode == 2 and "'vyos' is not one of" in res.stderr


def test_lines_are_found_when_read():
    """Parsers record where a fact is (file and JSON path); its line is looked up when read, and is the key's line."""
    fabric = load_fabric(["examples/fabric/leaf1"])
    source = fabric.devices["leaf1"].ports["Ethernet8"].pfc_source
    lines = Path("examples/fabric/leaf1/config_db.json").read_text(encoding="utf-8").splitlines()
    assert source.pointer == "/PORT_QOS_MAP/Ethernet8/pfc_enable" and '"pfc_enable"' in lines[source.line - 1]
    finding = next(f for f in lint(["examples/fabric/leaf1"], "roce-dscp26").findings if f.code == "PFC002")
    assert finding.source.line == fabric.devices["leaf1"].ports[finding.port].pfc_source.line


def test_documents_named_on_the_command_line_are_not_devices(tmp_path):
    """`losslessd lint fabric/*` names the folder's README and topology too: they are left out as a folder walk
    leaves them out (a README with an EOS snippet in it would otherwise lint as a switch)."""
    readme = tmp_path / "README.md"
    readme.write_text((Path(__file__).parents[1] / "examples" / "fabric" / "spine1.cfg").read_text())
    (tmp_path / "topology.yaml").write_text("links: []\n")
    (tmp_path / "leaf1.json").write_text(_sonic("leaf1"))
    fabric = load_fabric([tmp_path / "README.md", tmp_path / "topology.yaml", tmp_path / "leaf1.json"])
    assert list(fabric.devices) == ["leaf1"] and fabric.issues == []
    res = losslessd("lint", readme)
    assert res.returncode == 2 and "nothing readable" in res.stderr
