"""The daemon against hostile SSH peers (session 39): a device whose counter command stops at a pager prompt, or
hangs halfway through its answer, fails its own SSH polls by name (device and command) and is exported as failed over
HTTP, while the other devices' polls, and its own SNMP polls, go on."""

from __future__ import annotations

import pytest

from losslessd.sim import Simulator

from .daemonproc import DaemonProcess, wait_for
from .peers import FABRIC

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Simulator:
    s = Simulator(FABRIC, tmp_path_factory.mktemp("hostile-peers-sim"), devices=["leaf1", "gpu01"])
    s.start()
    yield s
    s.stop()


@pytest.mark.parametrize(("pager", "said"), [
    (" --More-- ", "stopped at the pager prompt '--More--' while `show queue wredcounters` ran"),
    ("", "within 6 s (--timeout) while `show queue wredcounters` ran"),  # it named no command
])
def test_a_paging_or_hung_counter_command_fails_its_device_by_name_and_no_other(sim, tmp_path, pager, said):
    d = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_timeout_s": 6}).start()
    try:
        def polls(device: str, source: str, name: str = "losslessd_polls_total") -> float:
            return d.value(name, device=device, source=source) or 0

        wait_for(lambda: polls("leaf1", "ssh") and polls("gpu01", "ssh"), "leaf1 and gpu01 polled over SSH")
        sim.hold("leaf1", "show queue wredcounters", pager=pager)
        try:
            failed = wait_for(lambda: [r for r in d.log_records() if r.get("device") == "leaf1"
                                       and r.get("source") == "ssh" and said in r["msg"]], "the failed poll named",
                              timeout_s=90)
            assert failed[0]["level"] == "warning", failed
            # exported over HTTP: leaf1's SSH polls failed and it is not up; gpu01's SSH polls and leaf1's own SNMP
            # polls go on
            wait_for(lambda: polls("leaf1", "ssh", "losslessd_poll_failures_total") >= 1, "the failure counted")
            assert d.value("losslessd_up", device="leaf1") == 0
            gpu, snmp = polls("gpu01", "ssh"), polls("leaf1", "snmp")
            wait_for(lambda: polls("gpu01", "ssh") >= gpu + 2 and polls("leaf1", "snmp") >= snmp + 2,
                     "gpu01's SSH and leaf1's SNMP polls going on")
            assert polls("gpu01", "ssh", "losslessd_poll_failures_total") == 0
            assert polls("leaf1", "snmp", "losslessd_poll_failures_total") == 0
        finally:
            sim.hold("leaf1", "show queue wredcounters", on=False)
        wait_for(lambda: d.value("losslessd_up", device="leaf1") == 1, "leaf1 back up", timeout_s=90)
    finally:
        d.stop()
