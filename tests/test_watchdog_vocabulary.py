"""PFC watchdog actions in one vocabulary across platforms; the policy says which mitigate a storm."""

from __future__ import annotations

import json

import pytest

from losslessd import api
from losslessd.errors import InputError
from losslessd.policy import load_policy

# The global watchdog timeout starts the watchdog on the port (its switch is on by default): 0.20 s, Arista's AI fabric
# guide's example value.
EOS = """hostname leaf1
qos map dscp 26 to traffic-class 3
priority-flow-control pause watchdog default timeout 0.20
interface Ethernet1
   no switchport
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
{action}   !
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100
"""


def _wdg(tmp_path, name: str, text: str, policy="roce-dscp26"):
    path = tmp_path / name
    path.write_text(text)
    result = api.lint([path], policy, select_codes=["WDG"])
    return result.fabric.devices, [f for f in result.findings if f.code == "WDG002"]


@pytest.mark.parametrize("line,action,mitigates", [
    ("", "errdisable", True),  # EOS default: the port is error-disabled
    ("   priority-flow-control pause watchdog port action drop\n", "drop", True),
    ("   priority-flow-control pause watchdog port action no-drop\n", "forward", True),
    ("   priority-flow-control pause watchdog port action notify-only\n", "notify-only", False),
])
def test_eos_actions(tmp_path, line, action, mitigates):
    devices, found = _wdg(tmp_path, "leaf1.cfg", EOS.format(action=line))
    wd = devices["leaf1"].ports["Ethernet1"].watchdog
    assert wd.action == action
    assert [f.severity.value for f in found] == ([] if mitigates else ["warning"])


@pytest.mark.parametrize("word,action,mitigates", [("drop", "drop", True), ("forward", "forward", True),
                                                   ("alert", "notify-only", False)])
def test_sonic_actions(tmp_path, word, action, mitigates):
    db = {"PORT": {"Ethernet0": {"admin_status": "up"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
          "PFC_WD": {"Ethernet0": {"action": word, "detection_time": "200", "restoration_time": "200"},
                     "GLOBAL": {"POLL_INTERVAL": "200"}}}
    devices, found = _wdg(tmp_path, "config_db.json", json.dumps(db))
    (device,) = devices.values()
    assert (device.ports["Ethernet0"].watchdog.action, device.ports["Ethernet0"].watchdog.action_raw) == (action, word)
    assert bool(found) is not mitigates
    if found:
        assert f"action '{word}' ({action}) does not mitigate" in found[0].message


def test_policy_actions_are_normalised_and_checked(tmp_path):
    pol = tmp_path / "p.yaml"
    pol.write_text("extends: roce-dscp26\nwatchdog:\n  actions: [drop, alert]\n")
    assert load_policy(pol).watchdog.actions == ["drop", "notify-only"]  # SONiC's alert is notify-only
    pol.write_text("extends: roce-dscp26\nwatchdog:\n  actions: [shout]\n")
    with pytest.raises(InputError, match="must be one of drop, forward, notify-only, errdisable, alert, not 'shout'"):
        load_policy(pol)
    assert load_policy("roce-dscp26").watchdog.actions == ["drop", "forward", "errdisable"]
