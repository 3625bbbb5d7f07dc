"""A --device file is read once: render, fix and tune take what they need of it from its parse (the family its EOS
queue blocks show: Device.config_family; the line of its SONiC hwsku: Device.hwsku_source), never by reading its
files again (session 36: families.of_device and the SKU's source each read every file a second time). The opens are
counted by a Python audit hook (the interpreter's own `open` event), not by wrapping losslessd's reader."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from .clirun import losslessd

ROOT = Path(__file__).resolve().parent.parent
_OPENED: list[str] | None = None  # the paths opened while a count runs


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], (str, Path)):
        _OPENED.append(os.path.abspath(args[0]))  # (against the working directory of the moment)


sys.addaudithook(_audit)  # (an audit hook stays for the process: it counts only while _OPENED is a list)


def _opens(path: Path, *args) -> tuple[int, object]:
    """How many times ``losslessd *args`` opens ``path``, and what it printed."""
    global _OPENED
    _OPENED = []
    try:
        ran = losslessd(*args)
    finally:
        opened, _OPENED = _OPENED, None
    return opened.count(str(path.resolve())), ran


def test_an_eos_device_whose_queue_blocks_give_its_family_is_read_once(tmp_path):
    text = (ROOT / "tests" / "fixtures" / "raw" / "arista_eos" / "roce-leaf.cfg").read_text()
    path = tmp_path / "leaf.cfg"  # (its header names a model no family covers: only its blocks tell the family)
    path.write_text(text.replace("(DCS-7060X6-64PE,", "(DCS-7010TX-48,", 1))
    assert re.search(r"\n   uc-tx-queue 3\n", text)
    policy = tmp_path / "policy.yaml"
    policy.write_text("extends: roce-dscp26\nname: cable5\nbuffer:\n  default_cable_length_m: 5\n")
    count, ran = _opens(path, "render", "--platform", "eos", "--policy", str(policy), "--device", str(path))
    assert ran.returncode == 0 and "\n   uc-tx-queue 3\n" in ran.stdout, ran.stderr
    assert count == 1
    count, ran = _opens(path, "fix", "--policy", str(policy), "--unsafe-fixes", str(path))
    assert ran.returncode in (0, 1), ran.stderr
    assert count == 1


def test_a_sonic_device_with_an_unknown_sku_is_read_once_and_its_hwsku_line_named(tmp_path):
    config = json.loads((ROOT / "examples/fabric/leaf1/config_db.json").read_text())
    config["DEVICE_METADATA"]["localhost"].update(hwsku="Acme-Unknown-32X", platform="x86_64-acme_unknown-r0")
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(config, indent=4))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"hwsku"' in text)
    count, ran = _opens(path, "render", "--platform", "sonic", "--device", str(path))
    assert ran.returncode == 2 and ran.stderr.startswith(f"losslessd: error: {path}:{line}: SKU Acme-Unknown-32X "
                                                         "(DEVICE_METADATA|localhost hwsku)"), ran.stderr
    assert count == 1


def test_a_sonic_fix_reads_its_config_db_once_beside_the_lint(tmp_path):
    """fix cuts SONiC parts against the CONFIG_DB and checks the result with one read of it (the lint's parse is the
    other): the parts and the check each read it again before."""
    path = tmp_path / "config_db.json"
    path.write_text((ROOT / "examples/fabric/leaf1/config_db.json").read_text())
    count, ran = _opens(path, "fix", "--policy", "roce-dscp26", "--unsafe-fixes", str(path))
    assert ran.returncode == 1 and "config" in ran.stdout, ran.stderr
    assert count == 2
