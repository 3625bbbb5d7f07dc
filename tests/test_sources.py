"""Counter sources: SSH counter command outputs and SNMP samples (real snmpsim agents) -> Readings."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from losslessd import counters_oids as oids
from losslessd.collect.snmp import SnmpPoller, SnmpTarget, _sample
from losslessd.monitor import (
    CNP_HANDLED,
    CNP_SENT,
    DROPPED_PACKETS,
    ECN_MARKED,
    IN_DISCARDS,
    IN_OCTETS,
    LINK_PAUSE_RX,
    LINK_PAUSE_TX,
    PAUSE_DURATION_US,
    PAUSE_STORM_ERRORS,
    PFC_RX,
    PFC_TX,
    RX_DISCARDS,
    TX_PACKETS,
    WD_RESTORED,
    WD_STORMS,
    Key,
)
from losslessd.monitor.counters import CounterTracker
from losslessd.monitor.sources import (
    counter_commands,
    reading_from_commands,
    reading_from_snmp,
)
from losslessd.printable import printable
from losslessd.sim.snmp import SnmpAgents

OUTPUTS = Path(__file__).parent / "fixtures" / "monitor" / "outputs"


def text(name: str) -> str:
    return (OUTPUTS / name).read_text()


# -- SSH counter commands -------------------------------------------------------------------------

def test_counter_commands_exist_for_known_platforms_and_expand_interfaces():
    assert counter_commands("sonic", ["Ethernet0"]) == ["show pfcwd stats -e", "show queue wredcounters"]
    assert counter_commands("linux_mlx5", ["ens1f0np0", "ens2f0np0"]) == [
        "ethtool -S ens1f0np0", "ethtool -S ens2f0np0",
        "grep . /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*",
        "grep . /sys/class/net/ens2f0np0/device/infiniband/*/ports/*/hw_counters/*",
        "ethtool -I -a ens1f0np0", "ethtool -I -a ens2f0np0"]
    assert counter_commands("arista_eos", ["Ethernet1"]) == []


# `ethtool -I -a IF` as ethtool prints the kernel's standard pause statistics (ethtool netlink/pause.c: the settings,
# then "Statistics:" and "  NAME: VALUE" for each the kernel sent; Linux ethtool-netlink.rst PAUSE_GET; names
# tx_pause_frames, rx_pause_frames, tx_pause_storm_events).
PAUSE_WITH_STATS = ("Pause parameters for eth2:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\ton\n"
                    "RX negotiated: on\nTX negotiated: on\nStatistics:\n  tx_pause_frames: 1840\n"
                    "  rx_pause_frames: 77\n  tx_pause_storm_events: 2\n\n")
PAUSE_NO_STATS = "Pause parameters for eth2:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n\n"


def test_standard_pause_statistics_of_any_driver():
    """A NIC that is not mlx5 (no tx_prio*/tx_pause_storm_* names in `ethtool -S`) still reports its link-wide pause
    frames and its pause storm events through the kernel's standard statistics; the storm events are the NIC's
    storm-prevention errors, which nic_pause_storm reads."""
    r = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": "NIC statistics:\n     rx_packets: 5\n",
                                                      "ethtool -I -a eth2": PAUSE_WITH_STATS}, 0.0, 0.0)
    assert r.values == {Key("eth2", LINK_PAUSE_TX): 1840, Key("eth2", LINK_PAUSE_RX): 77,
                        Key("eth2", PAUSE_STORM_ERRORS): 2}


def test_the_mlx5_storm_count_wins_over_the_standard_one_and_a_driver_without_statistics_is_unknown():
    mlx5 = "NIC statistics:\n     tx_pause_storm_error_events: 5\n     tx_pause_storm_warning_events: 6\n"
    r = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": mlx5, "ethtool -I -a eth2": PAUSE_WITH_STATS},
                              0.0, 0.0)
    assert r.values[Key("eth2", PAUSE_STORM_ERRORS)] == 5 and r.values[Key("eth2", LINK_PAUSE_RX)] == 77
    r = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": mlx5, "ethtool -I -a eth2": PAUSE_NO_STATS},
                              0.0, 0.0)
    assert Key("eth2", LINK_PAUSE_RX) not in r.values
    assert r.unread == ("`ethtool -I -a eth2`: no counter in its output: its counters are unknown",)
    old = "ethtool: bad command line argument(s)\nFor more information run ethtool -h\n"  # before ethtool 5.10
    r = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": mlx5, "ethtool -I -a eth2": old}, 0.0, 0.0)
    assert r.unread == ("`ethtool -I -a eth2`: ethtool answered 'bad command line argument': its counters are unknown",)
    with pytest.raises(ValueError, match=r"^gpu07: `ethtool -I -a eth2`: statistics line 2 .* is not 'name: value'"):
        reading_from_commands("gpu07", "linux_mlx5", {"ethtool -I -a eth2": re.sub(
            r"rx_pause_frames: 77", "rx_pause_frames: 7 7", PAUSE_WITH_STATS)}, 0.0, 0.0)


def test_sonic_watchdog_and_ecn_counters():
    r = reading_from_commands("leaf1", "sonic", {
        "show pfcwd stats": text("sonic/show-pfcwd-stats.txt"),
        "show queue wredcounters": text("sonic/show-queue-wredcounters.txt"),
    }, monotonic_s=12.5, time_unix_s=1_700_000_000.0)
    assert (r.device, r.monotonic_s, r.time_unix_s, r.uptime_ticks, r.bits) == ("leaf1", 12.5, 1_700_000_000.0, None, {})
    assert r.values == {
        Key("Ethernet0", WD_STORMS, 3): 2, Key("Ethernet0", WD_RESTORED, 3): 1,
        Key("Ethernet0", WD_STORMS, 4): 0, Key("Ethernet0", WD_RESTORED, 4): 0,
        Key("Ethernet64", WD_STORMS, 3): 12, Key("Ethernet64", WD_RESTORED, 3): 12,
        # N/A rows (Ethernet68:4, Ethernet64 UC4) and the multicast queue are left out.
        Key("Ethernet0", ECN_MARKED, 0): 0, Key("Ethernet0", ECN_MARKED, 3): 1_245_900,
        Key("Ethernet0", ECN_MARKED, 4): 7_811, Key("Ethernet64", ECN_MARKED, 3): 4,
    }


def test_sonic_wredcounters_of_a_platform_without_wred_drop_columns():
    r = reading_from_commands("leaf2", "sonic", {"show queue wredcounters": text(
        "sonic/show-queue-wredcounters-ecn-only.txt")}, 0.0, 0.0)
    assert r.values == {Key("Ethernet16", ECN_MARKED, 3): 90210, Key("Ethernet16", ECN_MARKED, 4): 0}


def test_a_port_name_no_port_has_in_a_counter_output_is_left_out_and_said():
    """A wredcounters row whose port name holds a bidi override (the name shown reversed) or runs to 300 characters:
    its counters were keys of metrics labels, history rows and log lines as printed. Left out, said in unread."""
    output = text("sonic/show-queue-wredcounters-ecn-only.txt")
    rows = [line for line in output.splitlines() if line.startswith("Ethernet16")]
    hostile = [row.replace("Ethernet16", name) for name in ("Ether\u202enet16", "E" * 300) for row in rows]
    r = reading_from_commands("leaf2", "sonic", {"show queue wredcounters": "\n".join([output.rstrip(), *hostile])},
                              0.0, 0.0)
    assert {k.port for k in r.values} == {"Ethernet16"}
    assert [u.split(" is ")[0] for u in r.unread] == ["`show queue wredcounters`: port 'EEEEEEEE" + "E" * 72 + "'",
                                                      "`show queue wredcounters`: port 'Ether\\u202enet16'"]
    assert all(printable(u) == u for u in r.unread)


def test_an_empty_watchdog_table_is_no_counters():
    """A table of headers only gives no counter (unknown, not 0); a poll that read nothing else fails saying so."""
    header = text("sonic/show-pfcwd-stats.txt").splitlines()[:2]
    with pytest.raises(ValueError, match="leaf1: no counter in any answer: `show pfcwd stats`: no counter in its"):
        reading_from_commands("leaf1", "sonic", {"show pfcwd stats": "\n".join(header)}, 0, 0)


def test_host_pause_and_congestion_counters():
    r = reading_from_commands("gpu01", "linux_mlx5", {
        "ethtool -S ens1f0np0": text("linux_mlx5/ethtool-S-ens1f0np0.txt"),
        "grep . /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*":
            text("linux_mlx5/hw-counters-ens1f0np0.txt"),
    }, 0.0, 0.0)
    port = "ens1f0np0"
    assert r.values == {
        Key(port, PFC_RX, 3): 48213, Key(port, PAUSE_DURATION_US, 3): 912345, Key(port, PFC_TX, 3): 1022,
        Key(port, TX_PACKETS, 3): 1701234567, Key(port, PFC_RX, 4): 0, Key(port, PFC_TX, 4): 0,
        Key(port, PAUSE_DURATION_US, 4): 0, Key(port, TX_PACKETS, 4): 15,
        Key(port, ECN_MARKED): 240113, Key(port, CNP_SENT): 118842, Key(port, CNP_HANDLED): 77001,
        Key(port, RX_DISCARDS, 3): 0,  # (rx_prio3_discards: Linux 5.6 per-priority discards, read since session 38)
    }


@pytest.mark.parametrize("command,fixture", [
    ("show pfcwd stats", "sonic/show-pfcwd-stats.txt"),
    ("show queue wredcounters", "sonic/show-queue-wredcounters.txt"),
])
def test_sonic_garbage_names_device_and_command(command, fixture):
    """Numbers replaced by something else (the simulator's garbage fault does this)."""
    garbled = re.sub(r"\d+", "#?", text(fixture))
    with pytest.raises(ValueError, match=rf"^leaf1: `{command}`: .*not .*"):
        reading_from_commands("leaf1", "sonic", {command: garbled}, 0, 0)


@pytest.mark.parametrize("output,why", [
    ("% Invalid input detected at '^' marker.\n", "no table"),
    ("NIC statistics:\n     rx_prio3_pause: lots\n", "not 'name: value'"),
    ("NIC statistics:\n     rx_prio3_pause: 1:2\n", "not 'name: value'"),  # (a ring's "[0]: name: N" is not this)
    ("Cannot get stats: what\n", "NIC statistics"),
])
def test_host_garbage_names_device_and_command(output, why):
    with pytest.raises(ValueError, match=r"^gpu01: `ethtool -S ens1f0np0`: ") as e:
        reading_from_commands("gpu01", "linux_mlx5", {"ethtool -S ens1f0np0": output}, 0, 0)
    assert why in str(e.value) or output.startswith("%")


def test_a_table_row_with_missing_cells_is_garbage():
    cut = text("sonic/show-pfcwd-stats.txt").splitlines()
    cut[2] = cut[2][:40]
    with pytest.raises(ValueError, match=r"leaf1: `show pfcwd stats`: row .* cells"):
        reading_from_commands("leaf1", "sonic", {"show pfcwd stats": "\n".join(cut)}, 0, 0)


def test_hw_counter_lines_of_another_shape_are_garbage():
    with pytest.raises(ValueError, match="hw_counters PATH:VALUE"):
        reading_from_commands("gpu01", "linux_mlx5", {
            "grep . /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*": "np_cnp_sent 12\n"}, 0, 0)


def test_unknown_platform_or_command_is_refused():
    with pytest.raises(ValueError, match="gpu01: no counter commands for platform 'opensm'"):
        reading_from_commands("gpu01", "opensm", {}, 0, 0)
    with pytest.raises(ValueError, match="leaf1: `show interfaces counters` is not a counter command of sonic"):
        reading_from_commands("leaf1", "sonic", {"show interfaces counters": ""}, 0, 0)


def test_a_snmp_sample_with_garbage_counters_gives_no_keys_for_them():
    """An agent answering strings for counters: those counters are unknown, not zero."""
    raw = {oids.SYS_UPTIME: 5, f"{oids.IF_NAME}.1": "Ethernet0", f"{oids.IF_HC_IN_OCTETS}.1": "n/a",
           f"{oids.IF_IN_DISCARDS}.1": 7, f"{oids.CPFC_PRIO_INDICATIONS}.1.3": "x",
           f"{oids.CPFC_WD_QUEUE_SHUTDOWNS}.1.4": 2}
    r = reading_from_snmp(_sample(SnmpTarget(device="d", host="h", community="c"), raw, 1.0, 2.0, 0.1))
    assert r.values == {Key("Ethernet0", IN_DISCARDS): 7, Key("Ethernet0", WD_STORMS, 4): 2}
    assert r.bits == {Key("Ethernet0", IN_DISCARDS): 32} and r.uptime_ticks == 5


# -- SNMP against real agents ---------------------------------------------------------------------

def _with_watchdog_table(data_file: Path, if_index: int, queue: int, storms: int, restores: int) -> None:
    """Add CISCO-PFC-EXT-MIB watchdog rows (NX-OS serves them, the simulated SONiC agent does not);
    snmpsim reads its data file again on the next request, records numerically sorted."""
    lines = data_file.read_text().splitlines() + [
        f"{oids.CPFC_WD_QUEUE_SHUTDOWNS}.{if_index}.{queue}|70|{storms}",
        f"{oids.CPFC_WD_QUEUE_RESTORES}.{if_index}.{queue}|70|{restores}",
    ]
    lines.sort(key=lambda line: tuple(int(x) for x in line.split("|", 1)[0].split(".")))
    data_file.write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_reading_from_a_real_snmp_poll(tmp_path):
    with SnmpAgents(tmp_path) as agents:
        community = agents.add("nx1", ["Ethernet1/1", "Ethernet1/2"], priorities=[3, 4])
        _with_watchdog_table(tmp_path / "snmp" / community / "data" / f"{community}.snmprec", 2, 4, 7, 6)
        port = agents.start()["nx1"]

        async def poll():
            async with SnmpPoller() as p:
                return await p.poll(SnmpTarget("nx1", "127.0.0.1", port, community=community))

        sample = asyncio.run(poll())
    r = reading_from_snmp(sample)
    assert r.device == "nx1" and r.uptime_ticks == sample.sys_uptime_ticks and r.monotonic_s == sample.monotonic_s
    names = {(k.port, k.name, k.index) for k in r.values}
    for port_name in ("Ethernet1/1", "Ethernet1/2"):
        assert {(port_name, IN_OCTETS, None), (port_name, IN_DISCARDS, None)} <= names
        for prio in (3, 4):
            assert {(port_name, PFC_RX, prio), (port_name, PFC_TX, prio), (port_name, TX_PACKETS, prio),
                    (port_name, DROPPED_PACKETS, prio)} <= names
    # Requests are frames sent, indications frames received.
    prio3 = next(p for p in sample.priorities if p.port == "Ethernet1/1" and p.priority == 3)
    assert r.values[Key("Ethernet1/1", PFC_TX, 3)] == prio3.pfc_requests
    assert r.values[Key("Ethernet1/1", PFC_RX, 3)] == prio3.pfc_indications
    # NX-OS numbers the watchdog rows by qos-group, 0-7: row 4 of ifIndex 2 is queue 4 (test_nxos_watchdog_...).
    assert r.values[Key("Ethernet1/2", WD_STORMS, 4)] == 7 and r.values[Key("Ethernet1/2", WD_RESTORED, 4)] == 6
    assert {k for k, b in r.bits.items() if b == 32} == {k for k in r.values if k.name in ("in_discards",
                                                                                            "out_discards")}


@pytest.mark.slow
def test_a_real_counter32_wrap_reads_as_a_small_delta(tmp_path):
    """The simulator's Counter32 columns read just below 2^32 and wrap when told: the rates across the
    wrap stay small and nothing reads as a reset. The wrap is set after a poll that saw the column
    below it, so it falls between two polls however slow the machine is."""
    with SnmpAgents(tmp_path) as agents:
        agents.add("leaf9", ["Ethernet0"], priorities=[3])
        port = agents.start()["leaf9"]
        d32 = Key("Ethernet0", IN_DISCARDS)

        def value(sample) -> int:
            return reading_from_snmp(sample).values[d32]

        async def polls():
            async with SnmpPoller() as p:
                target = SnmpTarget("leaf9", "127.0.0.1", port, community="leaf9")
                ahead_s = 1.0
                while True:  # a first poll before the wrap; a machine slower than that sets it further ahead
                    agents.wrap32("leaf9", ahead_s)
                    out = [await p.poll(target)]
                    if value(out[0]) > 2**31:
                        break
                    ahead_s *= 2
                    assert ahead_s < 100, "no poll made it before the wrap"
                while value(out[-1]) >= value(out[0]):  # counted polls up to the first one past the wrap
                    assert len(out) < 1000, "the column did not wrap while polled"
                    await asyncio.sleep(0.1)  # pacing only: the wrap is about a second away
                    out.append(await p.poll(target))
                return out

        samples = asyncio.run(polls())
    readings = [reading_from_snmp(s) for s in samples]
    assert readings[-1].values[d32] < 100 < 2**32 - 3000 < readings[0].values[d32]
    tracker = CounterTracker()
    rates = [tracker.update(r) for r in readings][1:]
    assert not any(r.reset for r in rates)
    assert all(0 <= r.per_s[d32] < 1000 for r in rates)


_ETHTOOL_CMD = "ethtool -S ens1f0np0"
_HW_CMD = "grep . /sys/class/net/ens1f0np0/device/infiniband/*/ports/*/hw_counters/*"
_PAUSE_CMD = "ethtool -I -a eth2"


@pytest.mark.parametrize("command,value,replaced", [
    ("show pfcwd stats", "\u0663", "2/1"),  # Arabic-Indic 3: `\d` read it as 3
    ("show pfcwd stats", "9" * 30, "2/1"),  # past 64 bits: was taken as a count
    ("show queue wredcounters", "1" + "0" * 20, "1,245,900"),  # 10^20 > 2^64
    (_ETHTOOL_CMD, "-5", "48213"),  # negative: ethtool's counters are __u64
    (_ETHTOOL_CMD, "\u0664\u0668\u0662\u0661\u0663", "48213"),
    (_HW_CMD, "\u0661\u0662", "118842"),
    (_HW_CMD, "18446744073709551616", "118842"),  # 2^64
    (_PAUSE_CMD, "\u0663\u0663", "1840"),  # the pause statistics' `(\d+)` + int() read it as 33
    (_PAUSE_CMD, "9" * 30, "1840"),
    (_PAUSE_CMD, "18446744073709551616", "77"),
])
def test_a_counter_of_other_digits_negative_or_past_64_bits_is_garbage(command, value, replaced):
    """The counters these commands print are unsigned 64-bit in ASCII digits; a value of other scripts' digits, a
    sign or past 2^64 is a garbled (or hostile) output, the poll's failure naming the device and the command."""
    fixture = {"show pfcwd stats": "sonic/show-pfcwd-stats.txt",
               "show queue wredcounters": "sonic/show-queue-wredcounters.txt",
               _ETHTOOL_CMD: "linux_mlx5/ethtool-S-ens1f0np0.txt", _HW_CMD: "linux_mlx5/hw-counters-ens1f0np0.txt"}
    original = PAUSE_WITH_STATS if command == _PAUSE_CMD else text(fixture[command])
    assert replaced in original
    if "/" in replaced:  # (a watchdog's DETECTED/RESTORED cell)
        value = f"{value}/1"
    device, platform = ("leaf1", "sonic") if command.startswith("show") else ("gpu01", "linux_mlx5")
    with pytest.raises(ValueError, match=rf"^{device}: `{re.escape(command)}`: .*not a counter \(ASCII digits"):
        reading_from_commands(device, platform, {command: original.replace(replaced, value, 1)}, 0, 0)
    assert reading_from_commands(device, platform, {command: original}, 0, 0).values  # (the fixture reads)


def test_the_largest_unsigned_64_bit_counter_reads_and_ports_summed_past_2_64_fail():
    """2^64 - 1 is the largest value a __u64 counter holds (ethtool's, mlx5's): it reads as itself. One netdev's
    hw_counters over two RDMA ports are summed; a sum past 2^64 is no count and fails the poll naming the counter."""
    top = str(2**64 - 1)
    r = reading_from_commands("gpu01", "linux_mlx5", {_PAUSE_CMD: PAUSE_WITH_STATS.replace("1840", top)}, 0, 0)
    assert r.values[Key("eth2", LINK_PAUSE_TX)] == 2**64 - 1
    port = "/sys/class/net/ens1f0np0/device/infiniband/mlx5_0/ports/{}/hw_counters/np_cnp_sent:{}\n"
    two = port.format(1, top) + port.format(2, 1)
    with pytest.raises(ValueError, match=r"^gpu01: .*ens1f0np0's np_cnp_sent summed over its RDMA ports is past 2\^64"):
        reading_from_commands("gpu01", "linux_mlx5", {_HW_CMD: two}, 0, 0)
    r = reading_from_commands("gpu01", "linux_mlx5", {_HW_CMD: port.format(1, 2**64 - 2) + port.format(2, 1)}, 0, 0)
    assert r.values[Key("ens1f0np0", CNP_SENT)] == 2**64 - 1
