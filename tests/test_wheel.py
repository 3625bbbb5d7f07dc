"""The built wheel carries policies/ and templates/: install it in a fresh venv and lint from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from losslessd.lint import index
from tests import render_golden

ROOT = Path(__file__).resolve().parent.parent
# The installed wheel's commands, without a PYTHONPATH that would put a source checkout before the wheel.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                    str(tmp / "dist"), str(ROOT)], check=True, capture_output=True)
    wheel = next((tmp / "dist").glob("losslessd-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # Dependencies come from the test environment's site-packages (a plain path entry: the editable
    # install's .pth hooks there are NOT processed, so `losslessd` can only come from the wheel).
    (site / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True)
    return venv


@pytest.mark.slow
def test_wheel_ships_data_and_lints(fresh_install, tmp_path):
    py = fresh_install / "bin" / "python"
    where = subprocess.run([str(py), "-c", "import losslessd, losslessd.resources as r; "
                            "print(losslessd.__file__); print(r.data_dir('policies')); print(r.data_dir('templates'))"],
                           cwd=tmp_path, check=True, capture_output=True, text=True, env=ENV).stdout.split()
    assert all(str(fresh_install) in w for w in where), where
    config = {
        "PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100"}},
        "DSCP_TO_TC_MAP": {"AZURE": {str(d): "1" for d in range(64)} | {"3": "3", "4": "4"}},
        "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}},
    }
    (tmp_path / "leaf1.json").write_text(json.dumps(config))
    res = subprocess.run([str(fresh_install / "bin" / "losslessd"), "lint", "leaf1.json", "--policy", "sonic-azure",
                          "--select", "PFC001", "-f", "json"], cwd=tmp_path, capture_output=True, text=True, env=ENV)
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    assert [(f["code"], f["port"], f["device"]) for f in report["findings"]] == [("PFC001", "Ethernet0", "leaf1")]
    assert "4" in report["findings"][0]["message"]


@pytest.mark.slow
def test_wheel_renders_from_packaged_templates(fresh_install, tmp_path):
    """`losslessd render` finds its templates inside the installed wheel and prints the golden profile."""
    res = subprocess.run([str(fresh_install / "bin" / "losslessd"), "render", "--platform", "arista_eos",
                          "--policy", "roce-dscp26", *render_golden.cli_args("arista_eos")], cwd=tmp_path, capture_output=True, text=True,
                         env=ENV)
    assert res.returncode == 0, res.stderr
    assert res.stdout == render_golden.golden_path("arista_eos", "roce-dscp26").read_text()


@pytest.mark.slow
def test_wheel_ships_the_py_typed_marker(fresh_install, tmp_path):
    """PEP 561: code that imports losslessd (losslessd.api) gets its annotations checked by a type checker."""
    py = fresh_install / "bin" / "python"
    package = Path(subprocess.run([str(py), "-c", "import losslessd; print(losslessd.__file__)"], cwd=tmp_path,
                                  check=True, capture_output=True, text=True, env=ENV).stdout.strip()).parent
    assert str(fresh_install) in str(package), package
    assert (package / "py.typed").is_file(), sorted(p.name for p in package.iterdir())


_FROM_INDEX = ("import sys; from losslessd.lint import index, registry; listed = index.listing(); "
               "names = registry.catalogue(); print(index.__file__, len(listed), len(names), "
               "sum(m.startswith('losslessd.rules.') for m in sys.modules))")


@pytest.mark.slow
def test_wheel_lists_and_selects_the_rules_from_its_index(fresh_install, tmp_path):
    """The wheel ships losslessd/data/rules.txt with the digest of the sources it installs: `losslessd rules` and a
    --select read it and import no rule family (without the file, or with a digest of other sources, the rules are
    imported to list them: right, but the 80 M instructions the index saves)."""
    where, listed, names, families = subprocess.run([str(fresh_install / "bin" / "python"), "-c", _FROM_INDEX],
                                                    cwd=tmp_path, check=True, capture_output=True, text=True,
                                                    env=ENV).stdout.split()
    assert str(fresh_install) in where
    assert int(listed) == int(names) == len(index.lines()) and families == "0"
