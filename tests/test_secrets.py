"""No secret leaves the environment variable or file that holds it: a pull with distinctive secrets, then a
search of every file it wrote, its output, netmiko's session logs and the lint reports in every format."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from losslessd.sim import PASSWORD_ENV

PASSWORD = "Zq7-distinctive-PW-93xK"


def _run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "losslessd", *args], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=180)


def _leaks(secrets: list[str], texts: dict[str, bytes]) -> list[tuple[str, str]]:
    return [(where, s[:3] + "...") for where, data in texts.items() for s in secrets if s.encode() in data]


def test_no_secret_in_snapshot_logs_output_or_reports(make_sim, tmp_path):
    sim = make_sim(["leaf1", "leaf2", "spine1", "gpu01"], snmp_v3=True)
    sim.env[PASSWORD_ENV] = PASSWORD
    for name in sim.devices:
        sim.set_password(name, PASSWORD)
    sim.set_password("spine1", "another-Secret-771")  # its login fails with the inventory's password
    sim.set_down("leaf2")
    secrets = [PASSWORD, "another-Secret-771", *sim.env.values()]
    assert len(set(secrets)) >= 4  # the login password and the SNMPv3 auth and priv keys at least

    out, logs = tmp_path / "snap", tmp_path / "session-logs"
    texts: dict[str, bytes] = {}
    pulled = _run(["pull", "-i", str(sim.inventory_path), "-o", str(out), "--known-hosts", str(sim.known_hosts_path),
                   "--serial", "--retries", "1", "--session-log", str(logs)], sim.env)
    assert pulled.returncode == 1, pulled.stdout + pulled.stderr  # spine1 and leaf2 failed, as arranged
    assert "SYS011" in pulled.stdout and "SYS010" in pulled.stdout
    texts["pull stdout"], texts["pull stderr"] = pulled.stdout.encode(), pulled.stderr.encode()
    for fmt in ("text", "json", "sarif", "github"):
        report = tmp_path / f"report.{fmt}"
        linted = _run(["lint", str(out), "-f", fmt, "-o", str(report)], sim.env)
        assert linted.returncode == 1 and report.stat().st_size > 0, linted.stderr
        texts[f"lint {fmt} stderr"] = (linted.stdout + linted.stderr).encode()
    written = [p for p in (*out.rglob("*"), *logs.rglob("*"), *tmp_path.glob("report.*")) if p.is_file()]
    texts.update({str(p): p.read_bytes() for p in written})

    # what was searched is what a leak would be in: captures, counters, manifest, session logs
    names = {p.name for p in written}
    assert {"leaf1.capture", "gpu01.capture", "manifest.json", "leaf1.json"} <= names
    assert b"show runningconfiguration all" in (logs / "leaf1.1.log").read_bytes()
    assert any(n.startswith("spine1.") for n in names)  # the failed login's session log too
    assert _leaks(secrets, texts) == []


@pytest.mark.slow
def test_inventory_errors_do_not_echo_secrets(tmp_path):
    """A secret file with the wrong mode, and a password written where a variable name belongs."""
    secret = tmp_path / "pw"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o644)
    inv = tmp_path / "inv.yaml"
    inv.write_text(f"""hosts:
  leaf1: {{platform: sonic, username: admin, data: {{credentials: {{password_file: {secret}}}}}}}
  leaf2: {{platform: sonic, username: admin, data: {{credentials: {{password_env: "{PASSWORD}"}}}}}}
""")
    known = tmp_path / "known_hosts"
    known.write_text("")
    res = _run(["pull", "-i", str(inv), "-o", str(tmp_path / "snap"), "--known-hosts", str(known)], {})
    assert res.returncode == 2 and "has mode 0644" in res.stderr and "must name an environment variable" in res.stderr
    assert PASSWORD not in res.stdout + res.stderr
    assert Path(tmp_path / "snap").exists() is False
