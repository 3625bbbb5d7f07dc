"""Command-line options given hostile values (hostile round 15): each is refused naming the option and what to give
(exit 2), never a traceback, never a report of something losslessd would itself refuse to read."""

from __future__ import annotations

import shutil

from losslessd.errors import EXIT_INPUT
from losslessd.limits import MAX_PORTS

from .clirun import ROOT, losslessd


def test_render_refuses_more_ports_than_a_switch_has():
    # 20,001 `--ports` rendered a 2 MB EOS snippet, exit 0, of a switch `losslessd lint` then refuses to read (more
    # than MAX_PORTS ports in one device); a switch's whole port list still renders
    ports = [f"--ports=Ethernet{4 * k}:400G:5m" for k in range(MAX_PORTS + 1)]
    ran = losslessd("render", "--platform", "arista_eos", "--family", "sand", *ports)
    assert ran.returncode == EXIT_INPUT, ran.stderr[-500:]
    assert f"{MAX_PORTS + 1:,} ports to render: more than the {MAX_PORTS:,}" in ran.stderr
    assert "Traceback" not in ran.stderr and not ran.stdout
    ran = losslessd("render", "--platform", "arista_eos", "--family", "sand", *ports[:MAX_PORTS])
    assert ran.returncode == 0, ran.stderr[-500:]
    assert ran.stdout.count("interface Ethernet") == MAX_PORTS


def test_a_file_named_with_a_leading_dash_is_named_with_how_to_give_it(tmp_path):
    """`lint -spine1.cfg` said only "No such option: -s" (round 20), `-fabric.cfg` was `-f abric.cfg` ("not one of
    'text', 'json'...") and `lint -out.cfg leaf1.cfg` was `-o ut.cfg`: the report written to ut.cfg, -out.cfg never
    linted, exit 1. Each is refused naming the file, with `./` and `--`; an unknown option that names no file is said
    as before, and an option's value, a file after `--` or given with ./ are read."""
    for name in ("-spine1.cfg", "-fabric.cfg", "-out.cfg"):
        shutil.copy(ROOT / "examples" / "fabric" / "spine1.cfg", tmp_path / name)
    shutil.copy(ROOT / "examples" / "fabric" / "spine1.cfg", tmp_path / "leaf1.cfg")
    for name in ("-spine1.cfg", "-fabric.cfg", "-out.cfg"):
        ran = losslessd("lint", name, "leaf1.cfg", cwd=tmp_path)
        assert ran.returncode == 2, ran.stdout
        assert f"{name} is a file here, but a word starting with - is read as options: write it ./{name}, or after --" \
            in ran.stderr
    assert not (tmp_path / "ut.cfg").exists()
    ran = losslessd("lint", "-x", cwd=tmp_path)
    assert ran.returncode == 2 and "No such option: -x\n" in ran.stderr
    assert losslessd("lint", "--", "-spine1.cfg", cwd=tmp_path).returncode == 1
    assert losslessd("lint", "-o", "-report.txt", "./-spine1.cfg", cwd=tmp_path).returncode == 1
    assert "spine1" in (tmp_path / "-report.txt").read_text()
