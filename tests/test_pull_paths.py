"""Issue 11 item 3: inventory host names become file names (captures, counters, session logs). A hostile
name must never make `pull` write outside --out (or --session-log), whether it comes from an inventory
file (refused with file:line before any connection) or from an Inventory built in Python (refused by
collect.pull before any connection). Against the real SSH simulator, so a name that slipped through
would really be collected and written."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest
import yaml

from losslessd import inventory
from losslessd.collect import pull as collect
from losslessd.errors import InputError
from tests.clirun import losslessd

HOSTILE = ["../escaped", "/tmp/losslessd-escape-test/x/y", "a\x00b", "h" * 5000, ".", "..", ".hidden",
           "sub/dir", "a\\b", "a\nb", ""]
OUTSIDE = Path("/tmp/losslessd-escape-test")


def _tree(root: Path) -> set[str]:
    """Every path under ``root`` (so a write anywhere in the test's folder is seen)."""
    return {os.path.relpath(os.path.join(d, n), root) for d, dirs, files in os.walk(root) for n in dirs + files}


def _inventory(sim, names: list[str], path: Path) -> Path:
    """The simulator's leaf1 entry (its real address and credentials) under each of ``names``."""
    data = yaml.safe_load(sim.inventory_path.read_text())
    leaf1 = data["hosts"]["leaf1"]
    data["hosts"] = {name: leaf1 for name in names}
    path.write_text(yaml.safe_dump(data, allow_unicode=False))
    return path


@pytest.fixture(scope="module")
def leaf1_sim(tmp_path_factory):
    from losslessd.sim import Simulator
    from tests.peers import FABRIC

    sim = Simulator(FABRIC, tmp_path_factory.mktemp("sim-paths"), snmp=False, devices=["leaf1"]).start()
    yield sim
    sim.stop()


def test_hostile_names_in_an_inventory_file_are_refused_with_their_line(leaf1_sim, tmp_path):
    inv = _inventory(leaf1_sim, HOSTILE, tmp_path / "inv.yaml")
    before = _tree(tmp_path)
    proc = losslessd("pull", "-i", inv, "-o", tmp_path / "out", "--known-hosts", leaf1_sim.known_hosts_path,
                     "--session-log", tmp_path / "logs", env=leaf1_sim.env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "nothing was contacted" in proc.stderr
    refused = [line for line in proc.stderr.splitlines() if line.startswith("losslessd: error:")]
    assert len(refused) == len(HOSTILE), proc.stderr
    assert all(f"{inv}:" in line for line in refused)  # each with the inventory's file and line
    assert _tree(tmp_path) == before  # not even --out or --session-log was made
    assert not OUTSIDE.exists()


@pytest.mark.parametrize("name", HOSTILE, ids=[repr(n)[:20] for n in HOSTILE])
def test_hostile_names_built_in_python_never_reach_the_file_system(leaf1_sim, tmp_path, name):
    """collect.pull itself refuses the name (defence in depth: an Inventory may be built without a file)."""
    good = inventory.load(leaf1_sim.inventory_path, env=leaf1_sim.env).hosts["leaf1"]
    hostile = inventory.Inventory({name: dataclasses.replace(good, name=name)})
    out, logs = tmp_path / "out", tmp_path / "logs"
    collect.prepare(out)
    logs.mkdir()
    before = _tree(tmp_path)
    with pytest.raises(InputError, match="host"):
        collect.pull(hostile, out, collect.Options(known_hosts=leaf1_sim.known_hosts_path, session_log=logs))
    assert _tree(tmp_path) == before and not OUTSIDE.exists()


def test_a_good_name_writes_capture_and_session_log_owner_only(leaf1_sim, tmp_path):
    """The control: the same simulator device under a plain name is collected; its capture and its session
    log are both 0600, whatever the umask says."""
    old = os.umask(0o022)
    try:
        hosts = inventory.load(leaf1_sim.inventory_path, env=leaf1_sim.env)
        out, logs = tmp_path / "out", tmp_path / "logs"
        collect.prepare(out)
        logs.mkdir()
        result = collect.pull(hosts, out, collect.Options(known_hosts=leaf1_sim.known_hosts_path, session_log=logs))
    finally:
        os.umask(old)
    assert result.devices["leaf1"].status == "ok", result.devices["leaf1"].message
    [log] = logs.iterdir()
    assert log.name == "leaf1.1.log" and log.stat().st_size > 0
    for path in (out / "leaf1.capture", log):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert leaf1_sim.env[leaf1_sim.devices["leaf1"].password_env] not in log.read_text(errors="replace")


def test_a_capture_written_over_keeps_its_mode_and_group(tmp_path):
    """A capture made 0640 for a group of operators was 0600 and root's group again after the next pull (the new
    file replaced it). It keeps the mode and group of the file it replaces, never more (no execute bit); a new file,
    or one where a link was, is 0600."""
    from losslessd.collect import write_atomic

    shared, program, link, new = (tmp_path / name for name in ("leaf1.capture", "leaf2.capture", "leaf3.capture",
                                                              "leaf4.capture"))
    for path, mode in ((shared, 0o640), (program, 0o755)):
        path.write_text("old", encoding="utf-8")
        os.chmod(path, mode)
    if os.geteuid() == 0:
        os.chown(shared, -1, 4242)
    link.symlink_to(shared)
    for path in (shared, program, link, new):
        assert write_atomic(path, "new") == b"new"
        assert path.read_text(encoding="utf-8") == "new" and not path.is_symlink()
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in (shared, program, link, new)}
    assert modes == {"leaf1.capture": 0o640, "leaf2.capture": 0o644, "leaf3.capture": 0o600, "leaf4.capture": 0o600}
    if os.geteuid() == 0:
        assert shared.stat().st_gid == 4242


def test_a_capture_written_over_another_users_file_keeps_no_mode_of_it(tmp_path):
    """A file another user put where a capture goes (a shared folder), world-readable and in their group: the capture
    written over it kept its 0644 and group, readable to them; it is this user's 0600 file in this user's group."""
    from losslessd.collect import write_atomic

    if os.geteuid() != 0:
        pytest.skip("needs root to make a file another user's")
    planted = tmp_path / "leaf1.capture"
    planted.write_text("old", encoding="utf-8")
    os.chmod(planted, 0o644)
    os.chown(planted, 4243, 4243)
    write_atomic(planted, "new")
    after = planted.stat()
    assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (0o600, 0, os.getegid())


@pytest.mark.slow  # (writes as another user)
def test_a_capture_whose_group_cannot_be_kept_loses_the_group_bits(request):
    """As the user nobody, over a 0664 capture of group 4242 (nobody is not in it): the new file is nobody's group,
    and the group bits would give it to that group instead: 0604, never wider than the old file."""
    import shutil
    import subprocess
    import sys
    import tempfile

    from tests.clirun import ROOT

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to write as another user")
    folder = Path(tempfile.mkdtemp())  # (pytest's own folder is root's alone)
    request.addfinalizer(lambda: shutil.rmtree(folder))
    capture = folder / "leaf1.capture"
    capture.write_text("old", encoding="utf-8")
    os.chown(folder, 65534, 65534)
    os.chown(capture, 65534, 4242)
    os.chmod(capture, 0o664)
    ran = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                          "import sys; from pathlib import Path; from losslessd.collect import write_atomic; "
                          "write_atomic(Path(sys.argv[1]), 'new')", str(capture)],
                         cwd="/", capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=120)
    if ran.returncode and "Permission denied" in ran.stderr and "site-packages" in ran.stderr:
        pytest.skip("the user nobody cannot run this checkout")
    assert ran.returncode == 0, ran.stderr
    assert capture.read_text(encoding="utf-8") == "new"
    assert (stat.S_IMODE(capture.stat().st_mode), capture.stat().st_gid) == (0o604, 65534)
