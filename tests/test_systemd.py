"""The shipped systemd unit: valid for systemd-analyze and hardened to an exposure score <= 2.0."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "losslessd.service"
ANALYZE = shutil.which("systemd-analyze")
pytestmark = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed (Debian: systemd)")


@pytest.fixture
def unit(tmp_path: Path) -> Path:
    """The unit with ExecStart pointed at this environment's losslessd: verify wants an existing file."""
    exe = Path(sys.executable).parent / "losslessd"
    assert exe.is_file(), "losslessd console script missing from the test environment"
    text = UNIT.read_text()
    assert "ExecStart=/opt/losslessd/bin/losslessd daemon --config /etc/losslessd/losslessd.yaml" in text
    path = tmp_path / "losslessd.service"
    path.write_text(text.replace("/opt/losslessd/bin/losslessd", str(exe)))
    return path


@pytest.mark.slow
def test_unit_verifies_without_warnings(unit):
    res = subprocess.run([ANALYZE, "verify", "--man=no", unit.name], cwd=unit.parent, capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == "", res.stderr


@pytest.mark.slow
def test_unit_exposure_at_most_2(unit):
    res = subprocess.run([ANALYZE, "security", "--offline=yes", "--threshold=20", unit.name], cwd=unit.parent,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    score = float(re.search(r"Overall exposure level for \S+: (\d+\.\d+)", res.stdout).group(1))
    assert score <= 2.0, res.stdout


def test_unit_is_notify_with_watchdog_and_reload():
    """The daemon speaks sd_notify (READY/WATCHDOG/STOPPING) and reloads on SIGHUP: the unit must say so."""
    text = UNIT.read_text()
    for line in ("Type=notify", "NotifyAccess=main", "ExecReload=/bin/kill -HUP $MAINPID", "DynamicUser=yes",
                 "StateDirectory=losslessd", "CapabilityBoundingSet=\n", "ProtectSystem=strict", "NoNewPrivileges=yes"):
        assert line in text, line
    assert re.search(r"^WatchdogSec=\d+", text, re.M)


def test_unit_bounds_open_files_and_lets_the_daemon_stop_its_workers():
    """A raised open-file limit (issue 11: 400 slow HTTP clients under 256 fds starved the polls) and
    KillMode=mixed: SIGTERM to the daemon alone, which stops its workers itself."""
    text = UNIT.read_text()
    limit = re.search(r"^LimitNOFILE=(\d+)$", text, re.M)
    assert limit and int(limit.group(1)) >= 65536
    assert re.search(r"^KillMode=mixed$", text, re.M)
