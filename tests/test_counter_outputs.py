"""Counter command outputs in the shapes real devices print them (tests/fixtures/monitor/outputs, our
own numbers; tests/realworld/SOURCES.md names the tool source each shape follows), read through the
parsers, the counter maths and the detectors as the daemon chains them."""

from __future__ import annotations

from pathlib import Path

import pytest

from losslessd import counters_oids as oids
from losslessd.collect.snmp import COLUMNS, SnmpTarget, _sample
from losslessd.monitor import (
    CNP_HANDLED,
    CNP_SENT,
    ECN_MARKED,
    PAUSE_STORM_ERRORS,
    PAUSE_STORM_WARNINGS,
    PFC_RX,
    PFC_TX,
    WD_RESTORED,
    WD_STORMS,
    Key,
)
from losslessd.monitor.counters import CounterTracker
from losslessd.monitor.detect import Detectors, Thresholds
from losslessd.monitor.sources import counter_commands, reading_from_commands, reading_from_snmp

OUTPUTS = Path(__file__).parent / "fixtures" / "monitor" / "outputs"
PFCWD = "show pfcwd stats -e"


def text(name: str) -> str:
    return (OUTPUTS / name).read_text()


def sonic(outputs: dict[str, str], t: float = 0.0):
    return reading_from_commands("leaf1", "sonic", outputs, monotonic_s=t, time_unix_s=1_700_000_000.0 + t)


def test_the_watchdog_command_asks_for_the_queues_that_counted_nothing():
    """`show pfcwd stats` leaves out every queue whose counters are all 0/0 unless given -e
    (sonic-utilities pfcwd/main.py collect_stats): without it a queue's first storm is the first
    reading of its counter, which has no delta, and the storm is never reported."""
    assert counter_commands("sonic", ["Ethernet8"])[0] == PFCWD


def test_first_storm_of_a_quiet_queue_opens_an_onbox_event():
    tracker, det = CounterTracker(), Detectors(Thresholds(), {3, 4})
    quiet = sonic({PFCWD: text("sonic/show-pfcwd-stats-e-quiet.txt")}, 0.0)
    assert quiet.values[Key("Ethernet120", WD_STORMS, 4)] == 0 and Key("Ethernet8", WD_STORMS, 0) in quiet.values
    assert tracker.update(quiet) is None
    stormed = sonic({PFCWD: text("sonic/show-pfcwd-stats-e-stormed.txt")}, 30.0)
    events = det.feed(tracker.update(stormed))
    assert [(e.kind, e.port, e.priority, e.open) for e in events] == [("onbox_storm", "Ethernet8", 3, True)]
    assert stormed.values[Key("Ethernet8", WD_RESTORED, 3)] == 0


def test_the_plain_watchdog_command_still_reads():
    """A saved capture of the command without -e (older daemons' captures) parses alike."""
    r = sonic({"show pfcwd stats": text("sonic/show-pfcwd-stats-e-stormed.txt")})
    assert r.values[Key("Ethernet8", WD_STORMS, 3)] == 1


def test_wredcounters_of_all_type_queues_after_a_clear():
    """Platforms whose queues are SAI_QUEUE_TYPE_ALL print them as ALL<n> (sonic-utilities
    scripts/wredstat QUEUE_TYPE_ALL); after `sonic-clear queue wredcounters` each port's table follows
    a "Last cached time" line and the numbers are comma-grouped differences (utilities_common/netstat.py
    ns_diff). Each ALL queue carries the unicast traffic of its index: its marks are the queue's."""
    r = sonic({"show queue wredcounters": text("sonic/show-queue-wredcounters-all-queues-cleared.txt")})
    # each port's counters are named with the cache they are printed against (counters.py rule 5)
    assert set(r.cached.values()) == {"2026-11-30T09:14:03.220154"} and r.cached.keys() == r.values.keys()
    assert r.values == {
        Key("Ethernet8", ECN_MARKED, 0): 0, Key("Ethernet8", ECN_MARKED, 3): 18_004,
        Key("Ethernet8", ECN_MARKED, 4): 912, Key("Ethernet12", ECN_MARKED, 3): 1_002_377,
        # ALL8 prints N/A: unknown, not 0
    }


def test_a_cleared_table_does_not_hide_a_storm_counted_in_the_same_interval():
    """`sonic-clear queue wredcounters` between two polls: the ECN marks go back, the watchdog's counts
    do not. Only the cleared counters lose this interval's delta; the storm the watchdog counted opens,
    and the marks are measured again from the cleared values at the next poll."""
    tracker, det = CounterTracker(), Detectors(Thresholds(), {3, 4})
    wred = "show queue wredcounters"
    tracker.update(sonic({PFCWD: text("sonic/show-pfcwd-stats-e-quiet.txt"),
                          wred: text("sonic/show-queue-wredcounters-all-queues.txt")}, 0.0))
    rates = tracker.update(sonic({PFCWD: text("sonic/show-pfcwd-stats-e-stormed.txt"),
                                  wred: text("sonic/show-queue-wredcounters-all-queues-cleared.txt")}, 60.0))
    assert not rates.reset and rates.deltas[Key("Ethernet8", WD_STORMS, 3)] == 1
    # Every counter now printed against the clear's cache is measured from a new base (queue 0's 0 -> 0 too: it is
    # now a difference floored at 0, counters.py rule 5), not only those that went back.
    assert rates.cleared == {Key("Ethernet8", ECN_MARKED, 0), Key("Ethernet8", ECN_MARKED, 3),
                             Key("Ethernet8", ECN_MARKED, 4), Key("Ethernet12", ECN_MARKED, 3)}
    assert not any(k.name == ECN_MARKED for k in rates.deltas)
    assert [(e.kind, e.port, e.priority) for e in det.feed(rates)] == [("onbox_storm", "Ethernet8", 3)]


def test_a_sonic_without_wredcounters_still_gives_its_watchdog_counts():
    """`show queue wredcounters` came with sonic-utilities in 2025 (scripts/wredstat); an older SONiC's
    click answers "No such command". Its ECN marks are unknown and said so; the watchdog's counts of the
    same poll are still read."""
    click_error = ('Usage: show queue [OPTIONS] COMMAND [ARGS]...\nTry "show queue -h" for help.\n\n'
                   'Error: No such command "wredcounters".\n')
    r = sonic({PFCWD: text("sonic/show-pfcwd-stats-e-stormed.txt"), "show queue wredcounters": click_error})
    assert r.values[Key("Ethernet8", WD_STORMS, 3)] == 1
    assert not any(k.name == ECN_MARKED for k in r.values)
    assert r.unread == ("`show queue wredcounters`: this device's CLI has no 'wredcounters' command: "
                        "its counters are unknown",)


def test_a_host_without_rdma_counter_files_says_so():
    """A kernel or NIC without hw_counters: grep only complains. No counter is read, and the poll fails saying
    why (the device reads as down, with the reason) rather than looking like a host whose counters are all quiet;
    beside a command that did give counters, the reading names the one that did not."""
    cmd = "grep . /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*"
    missing = "grep: /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*: No such file or directory\n"
    with pytest.raises(ValueError, match="gpu01: no counter in any answer: `grep .*`: no counter in its output"):
        reading_from_commands("gpu01", "linux_mlx5", {cmd: missing}, 0.0, 0.0)
    click_error = 'Error: No such command "wredcounters".\n'
    r = sonic({PFCWD: text("sonic/show-pfcwd-stats-e-stormed.txt"), "show queue wredcounters": click_error})
    assert r.values and len(r.unread) == 1
    with pytest.raises(ValueError, match="leaf1: no counter in any answer: `show queue wredcounters`: this device"):
        sonic({"show queue wredcounters": click_error})


def test_an_interface_ethtool_has_no_statistics_for_leaves_the_hosts_other_counters_read():
    """ethtool's own answer when it cannot give statistics (ethtool.c do_gstats: "Cannot get stats strings
    information: <reason>", "no stats available"), e.g. a RoCE interface renamed after a driver reset: that
    interface's counters are unknown and said so; the other NIC's pause counters of the same poll are read. It
    made the whole host's poll fail as an unusable answer, so a storm on the NIC that answered went unseen."""
    ok, gone = "ethtool -S ens1f0np0", "ethtool -S ens1f1np1"
    answers = {ok: text("linux_mlx5/ethtool-S-ens1f0np0.txt"),
               gone: "Cannot get stats strings information: No such device\n"}
    r = reading_from_commands("gpu01", "linux_mlx5", answers, 0.0, 0.0)
    assert r.values[Key("ens1f0np0", PFC_RX, 3)] == 48_213 and not any(k.port == "ens1f1np1" for k in r.values)
    assert r.unread == ("`ethtool -S ens1f1np1`: ethtool answered 'Cannot get stats strings information: No such "
                        "device': its counters are unknown",)
    with pytest.raises(ValueError, match="gpu01: no counter in any answer: `ethtool -S ens1f1np1`: ethtool answered "
                                         "'no stats available'"):
        reading_from_commands("gpu01", "linux_mlx5", {gone: "no stats available\n"}, 0.0, 0.0)


def test_a_roce_lag_devices_congestion_counters_are_not_one_members():
    """In a RoCE LAG mlx5 registers one RDMA device, mlx5_bond_<n>, under the first PF's PCI device, and its
    congestion counters add up both PFs' (Linux mlx5 lag.c mlx5_lag_query_cong_counters). Read through the first
    member's netdev they were taken for that interface's ECN marks and CNPs, so marks that arrived on the other
    member counted as ECN at work on this one. They are left unknown and said so; its pause counters still read."""
    cmd = "grep . /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*"
    r = reading_from_commands("gpu01", "linux_mlx5", {
        "ethtool -S ens1f0np0": text("linux_mlx5/ethtool-S-ens1f0np0.txt"),
        cmd: text("linux_mlx5/hw-counters-roce-lag-ens1f0np0.txt")}, 0.0, 0.0)
    assert not any(k.name in (ECN_MARKED, CNP_SENT, CNP_HANDLED) for k in r.values)
    assert r.values[Key("ens1f0np0", PFC_RX, 3)] == 48_213
    assert r.unread == (f"`{cmd}`: mlx5_bond_0 is a RoCE LAG's RDMA device, whose congestion counters add up both "
                        "member ports, not this interface's alone: its counters are unknown",)


def test_arista_pfc_mib_priority_counters_are_read_like_ciscos():
    """Arista EOS serves ARISTA-PFC-MIB aristaPfcPriorityTable (ifIndex.priority, Counter64 requests =
    PFC frames sent, indications = received), not CISCO-PFC-EXT-MIB: with the Cisco columns alone an
    EOS switch gave no pause counters, and no storm could be seen on it over SNMP."""
    r = _snmp_reading("spine1", {
        f"{oids.IF_NAME}.1000003": "Ethernet3/1", f"{oids.ARISTA_PFC_PRIO_REQUESTS}.1000003.3": 812,
        f"{oids.ARISTA_PFC_PRIO_INDICATIONS}.1000003.3": 66_019, f"{oids.ARISTA_PFC_PRIO_INDICATIONS}.1000003.4": 0})
    assert r.values == {Key("Ethernet3/1", PFC_TX, 3): 812, Key("Ethernet3/1", PFC_RX, 3): 66_019,
                        Key("Ethernet3/1", PFC_RX, 4): 0}
    assert oids.ARISTA_PFC_PRIO_INDICATIONS in COLUMNS  # the pollers walk it


def _snmp_reading(device: str, raw: dict):
    """One agent's answer (OID -> value, sysUpTime added) read as the pollers read it."""
    return reading_from_snmp(_sample(SnmpTarget(device=device, host="h", community="c"),
                                     {oids.SYS_UPTIME: 5, **raw}, 1.0, 2.0, 0.1))


def test_a_link_aggregate_is_not_read_as_a_port_with_pauses_of_its_own():
    """SONiC's agent serves PortChannel rows in cpfcIfPriorityTable, the sum of the members' counters, and
    IF-MIB ifType ieee8023adLag(161) for them (sonic-snmpagent ciscoPfcExtMIB.py, rfc1213.py). Four members
    at 400 pauses/s each would make a 1,600/s "port" above the 1,000/s pause_rate threshold."""
    raw = {oids.SYS_UPTIME: 5, f"{oids.IF_NAME}.1": "Ethernet0", f"{oids.IF_NAME}.1001": "PortChannel101",
           f"{oids.IF_TYPE}.1": 6, f"{oids.IF_TYPE}.1001": oids.IF_TYPE_LAG,
           f"{oids.IF_HC_IN_OCTETS}.1001": 77, f"{oids.CPFC_PRIO_INDICATIONS}.1.3": 400,
           f"{oids.CPFC_PRIO_INDICATIONS}.1001.3": 1600}
    r = reading_from_snmp(_sample(SnmpTarget(device="leaf1", host="h", community="c"), raw, 1.0, 2.0, 0.1))
    assert {k for k in r.values if k.name == PFC_RX} == {Key("Ethernet0", PFC_RX, 3)}
    assert r.values[Key("PortChannel101", "in_octets")] == 77  # its own interface counters stay


def test_nxos_watchdog_rows_are_numbered_by_qos_group_from_0():
    """Cisco NX-OS serves cpfcWatchdogIfQueueInfoTable by the watchdog's qos-group, 0-7 (Nexus 9000 NX-OS Show
    Commands 9.3(x), Q chapter: `show queuing pfc-queue interface snmp watchdogIfQueueTable ifIndex N` keys its
    rows by eq-qosgrp, the qosgrp_0..qosgrp_7 of `show queuing pfc-queue`). RoCE on qos-group 3 (c-out-8q-q3,
    `pause pfc-cos 3`) storms on queue 3; the 1-based reading put it on queue 2, a queue PFC is off for, and
    qos-group 0's storms nowhere."""
    r = _snmp_reading("nx1", {  # 436207616: NX-OS's ifIndex of Ethernet1/1
        f"{oids.IF_NAME}.436207616": "Ethernet1/1", f"{oids.CPFC_WD_QUEUE_SHUTDOWNS}.436207616.3": 2,
        f"{oids.CPFC_WD_QUEUE_RESTORES}.436207616.3": 1, f"{oids.CPFC_WD_QUEUE_SHUTDOWNS}.436207616.0": 0})
    assert r.values == {Key("Ethernet1/1", WD_STORMS, 3): 2, Key("Ethernet1/1", WD_RESTORED, 3): 1,
                        Key("Ethernet1/1", WD_STORMS, 0): 0}


def test_a_nics_pfc_storm_prevention_counts_are_read_per_port_and_open_its_event():
    """mlx5 counts its PFC storm prevention per port (counters.rst: tx_pause_storm_warning_events, the times the
    device was sending pauses for a long period; tx_pause_storm_error_events, the times it reached the timeout and
    stopped sending them). They were not read, so a host that became a storm's source went unreported."""
    cmd, fixture = "ethtool -S ens2f0np0", text("linux_mlx5/ethtool-S-ens2f0np0-storm-prevention.txt")
    before = reading_from_commands("gpu03", "linux_mlx5", {cmd: fixture}, 0.0, 1_700_000_000.0)
    assert before.values[Key("ens2f0np0", PAUSE_STORM_WARNINGS)] == 4
    assert before.values[Key("ens2f0np0", PAUSE_STORM_ERRORS)] == 2
    assert before.values[Key("ens2f0np0", PFC_TX, 3)] == 6_619_033
    # One more storm the NIC stopped, counted by both, 10 s later.
    later = fixture.replace(
        "warning_events: 4", "warning_events: 5").replace("error_events: 2", "error_events: 3")
    tracker, det = CounterTracker(), Detectors(Thresholds(), {3})
    tracker.update(before)
    rates = tracker.update(reading_from_commands("gpu03", "linux_mlx5", {cmd: later}, 10.0, 1_700_000_010.0))
    assert [(e.kind, e.port, e.priority, e.severity) for e in det.feed(rates)] == [
        ("nic_pause_storm", "ens2f0np0", None, "error")]


def test_a_driver_name_with_a_trailing_space_still_reads():
    """Some mlx5 trees named the warning counter "tx_pause_storm_warning_events " (en_stats.c
    pport_pfc_stall_stats_desc) and ethtool prints the name as given, so the line reads "... _events : 0": it was
    not 'name: value' and the whole interface's counters were lost."""
    out = "NIC statistics:\n     rx_prio3_pause: 7\n     tx_pause_storm_warning_events : 1\n" \
          "     tx_pause_storm_error_events: 0\n"
    r = reading_from_commands("gpu03", "linux_mlx5", {"ethtool -S ens2f0np0": out}, 0.0, 0.0)
    assert r.values == {Key("ens2f0np0", PFC_RX, 3): 7, Key("ens2f0np0", PAUSE_STORM_WARNINGS): 1,
                        Key("ens2f0np0", PAUSE_STORM_ERRORS): 0}
