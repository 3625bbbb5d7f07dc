"""The shipped Prometheus rules and Grafana dashboard: promtool checks and unit-tests the rules (a
broken rule must fail those tests), and every metric a rule or a panel names is one the daemon
exports (or one of the recording rules), so a renamed metric cannot silently empty a dashboard."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from losslessd import __version__, monitor
from losslessd.daemon.metrics import Metrics, WorkerState, merge
from losslessd.monitor import Event, Key, Reading

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "monitoring" / "prometheus" / "losslessd.rules.yml"
RULE_TESTS = ROOT / "monitoring" / "prometheus" / "losslessd.rules.test.yml"
DASHBOARD = ROOT / "monitoring" / "grafana" / "losslessd-fleet.json"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed (Debian: apt-get install "
                                    "prometheus; `make test` installs it when it can)")
METRIC = re.compile(r"\b((?:losslessd_|[a-z_]+:losslessd_)[a-z0-9_:]*)")
PROMQL_NAMES_OF_PROMETHEUS = {"up"}


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # starts a process
@needs_promtool
def test_rules_pass_promtool_check():
    res = promtool("check", "rules", RULES.name, cwd=RULES.parent)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS" in res.stdout


@pytest.mark.slow  # starts a process
@needs_promtool
def test_rules_pass_their_unit_tests():
    res = promtool("test", "rules", RULE_TESTS.name, cwd=RULE_TESTS.parent)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS" in res.stdout


@needs_promtool
@pytest.mark.parametrize("mutation", [
    ("expr: losslessd_pfc_storm == 1", "expr: losslessd_pfc_storm == 2"),  # the storm alert never fires
    ("expr: up{job=\"losslessd\"} == 0\n        for: 5m", "expr: up{job=\"losslessd\"} == 0\n        for: 1m"),
    # a worker that starts for a while and then polls raises the not-polling alert
    ('losslessd_worker_state{state="ready"}) == 0\n        for: 10m',
     'losslessd_worker_state{state="ready"}) == 0\n        for: 1m'),
    ("sum by (device, priority) (rate(losslessd_pfc_rx_frames_total[5m]))",
     "sum by (device, priority) (irate(losslessd_pfc_tx_frames_total[5m]))"),
    # a NIC's storm-prevention timeout counted once raises no alert
    ("expr: increase(losslessd_nic_pause_storm_errors_total[5m]) > 0",
     "expr: increase(losslessd_nic_pause_storm_errors_total[5m]) > 1"),
    # the warning of an episode that reached the error raises both
    ("\n          unless on (instance, device, port) increase(losslessd_nic_pause_storm_errors_total[5m]) > 0", ""),
    # a cleared counter read as a drop (delta) raises a storm
    ("increase(losslessd_nic_pause_storm_errors_total[5m]) > 0\n",
     "abs(delta(losslessd_nic_pause_storm_errors_total[5m])) > 0\n"),
])
@pytest.mark.slow  # starts a process
def test_the_rule_tests_catch_a_broken_rule(tmp_path, mutation):
    old, new = mutation
    text = RULES.read_text()
    assert old in text
    (tmp_path / RULES.name).write_text(text.replace(old, new))
    shutil.copy(RULE_TESTS, tmp_path / RULE_TESTS.name)
    res = promtool("test", "rules", RULE_TESTS.name, cwd=tmp_path)
    assert res.returncode != 0 and "FAILED" in res.stdout + res.stderr


def exported_names() -> set[str]:
    """Every metric name a daemon's /metrics can carry: a fleet part and a devices part fed with every
    counter name, every event kind, a finding, an alert, a reload, workers and a refusal."""
    fleet, devices = Metrics(__version__, part="fleet"), Metrics(__version__, part="devices")
    names = [getattr(monitor, n) for n in dir(monitor) if n.isupper() and isinstance(getattr(monitor, n), str)]
    values = {Key("Ethernet0", name, 3): 1 for name in names} | {Key("Ethernet0", name): 1 for name in names}
    devices.counters(Reading("leaf1", 1.0, 1.0, 1, values))
    devices.poll_done("leaf1", True, 0.1)
    for kind in ("pfc_storm", "device_down", "finding_new", "ecn_not_marking"):
        fleet.event(Event(kind, "leaf1", "Ethernet0", 3, 1.0, "m"))
    fleet.findings("leaf1", {("PFC001", "error"): 1})
    fleet.alert("log", "sent")
    fleet.history(True, 0)
    fleet.reloaded(True, 1.0)
    fleet.shard(0, 1)
    fleet.http_refused("malformed")
    fleet.workers({0: WorkerState(pid=os.getpid(), up=True, devices=1, restarts=0)})  # /proc of this process
    text = merge([fleet.render("text"), devices.render("text")], "text").decode()
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def recorded_names() -> set[str]:
    rules = yaml.safe_load(RULES.read_text())
    return {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}


def rule_exprs() -> list[str]:
    rules = yaml.safe_load(RULES.read_text())
    return [r["expr"] for g in rules["groups"] for r in g["rules"]]


def panel_exprs() -> list[str]:
    dash = json.loads(DASHBOARD.read_text())
    return [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]


def test_rules_and_panels_name_only_exported_or_recorded_metrics():
    known = exported_names() | recorded_names()
    assert "losslessd_pfc_rx_frames_total" in known and "losslessd_worker_up" in known
    for expr in rule_exprs() + panel_exprs():
        for name in METRIC.findall(expr):
            assert name in known, f"{name} (in {expr!r}) is neither exported by the daemon nor recorded by a rule"
    assert len(panel_exprs()) >= 10


@pytest.mark.slow  # starts a process
@needs_promtool
def test_dashboard_queries_are_valid_promql(tmp_path):
    """Each panel query (Grafana's variables replaced by what they expand to) as a recording rule:
    promtool parses every expression."""
    exprs = [e.replace("$instance", ".*").replace("$device", ".*") for e in panel_exprs()]
    rules = {"groups": [{"name": "dashboard", "rules": [{"record": f"dashboard:query{i}:check", "expr": e}
                                                        for i, e in enumerate(exprs)]}]}
    path = tmp_path / "dashboard.rules.yml"
    path.write_text(yaml.safe_dump(rules))
    res = promtool("check", "rules", path.name, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr


def test_dashboard_is_grafana_json_with_variables():
    dash = json.loads(DASHBOARD.read_text())
    assert dash["uid"] == "losslessd-fleet" and dash["panels"]
    variables = {v["name"] for v in dash["templating"]["list"]}
    assert {"datasource", "instance", "device"} <= variables
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dash["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}" and panel["gridPos"]["w"] > 0
