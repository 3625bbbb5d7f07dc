"""Per-priority pause counters of NIC drivers other than mlx5 in `ethtool -S`: mlx4_en, bnxt_en, ice and i40e.

Each test vector's names come from the driver's own strings (the file is named at each), not from losslessd's table.
"""

from __future__ import annotations

import pytest

from losslessd import inventory
from losslessd.collect.ssh import Session
from losslessd.daemon.metrics import family_of
from losslessd.daemon.pollers import counter_host
from losslessd.monitor import PAUSE_DURATION_US, PFC_RX, PFC_TX, RX_BUFFER_DISCARDS, RX_DISCARDS, TX_PACKETS, Key
from losslessd.monitor.sources import reading_from_commands

# drivers/net/ethernet/mellanox/mlx4/en_ethtool.c main_strings: "tx_prio_N_packets", then per priority the flow
# control statistics "rx_pause_prio_N", "rx_pause_duration_prio_N", "rx_pause_transition_prio_N", "tx_pause_prio_N",
# "tx_pause_duration_prio_N", "tx_pause_transition_prio_N"; values with trailing blanks as isc-projects/ethq issue 21
# shows a ConnectX-3 Pro's.
MLX4 = "NIC statistics:\n     rx_packets: 9051 \n     tx_packets: 7310 \n" + "".join(
    f"     tx_prio_{p}_packets: {100 + p} \n" for p in range(8)) + "".join(
    f"     rx_pause_prio_{p}: {10 * p} \n     rx_pause_duration_prio_{p}: {7 * p} \n"
    f"     rx_pause_transition_prio_{p}: {p} \n     tx_pause_prio_{p}: {20 * p} \n"
    f"     tx_pause_duration_prio_{p}: 0 \n     tx_pause_transition_prio_{p}: 0 \n" for p in range(8))
# drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c bnxt_port_stats_arr: BNXT_RX_STATS_ENTRY(rx_pfc_ena_frames_pri0..7),
# BNXT_TX_STATS_ENTRY(tx_pfc_ena_frames_pri0..7), beside rx_pfc_frames (all priorities).
BNXT = "NIC statistics:\n     rx_pfc_frames: 999\n" + "".join(
    f"     rx_pfc_ena_frames_pri{p}: {30 + p}\n     tx_pfc_ena_frames_pri{p}: {40 + p}\n" for p in range(8))
# drivers/net/ethernet/intel/ice/ice_ethtool.c __ice_get_strings: "tx_priority_%u_xon.nic", "tx_priority_%u_xoff.nic"
# for each priority, then "rx_priority_%u_xon.nic", "rx_priority_%u_xoff.nic".
ICE = "NIC statistics:\n" + "".join(
    f"     tx_priority_{p}_xon.nic: 5\n     tx_priority_{p}_xoff.nic: {50 + p}\n" for p in range(8)) + "".join(
    f"     rx_priority_{p}_xon.nic: 6\n     rx_priority_{p}_xoff.nic: {60 + p}\n" for p in range(8))
# drivers/net/ethernet/intel/i40e/i40e_ethtool.c: "port.tx_priority_%u_xon", "port.tx_priority_%u_xoff",
# "port.rx_priority_%u_xon", "port.rx_priority_%u_xoff".
I40E = "NIC statistics:\n" + "".join(
    f"     port.tx_priority_{p}_xon: 1\n     port.tx_priority_{p}_xoff: {70 + p}\n"
    f"     port.rx_priority_{p}_xon: 2\n     port.rx_priority_{p}_xoff: {80 + p}\n" for p in range(8))


@pytest.mark.parametrize("output, rx, tx", [
    (MLX4, lambda p: 10 * p, lambda p: 20 * p),
    (BNXT, lambda p: 30 + p, lambda p: 40 + p),
    (ICE, lambda p: 60 + p, lambda p: 50 + p),  # the XOFF frames: the pauses (XON releases one)
    (I40E, lambda p: 80 + p, lambda p: 70 + p),
], ids=["mlx4_en", "bnxt_en", "ice", "i40e"])
def test_each_drivers_per_priority_pause_counters_are_read(output, rx, tx):
    values = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": output}, 0.0, 0.0).values
    for p in range(8):
        assert values[Key("eth2", PFC_RX, p)] == rx(p)
        assert values[Key("eth2", PFC_TX, p)] == tx(p)


def test_mlx4_priority_packets_are_the_queue_tx():
    values = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": MLX4}, 0.0, 0.0).values
    assert [values[Key("eth2", TX_PACKETS, p)] for p in range(8)] == [100 + p for p in range(8)]


def test_mlx4_pause_duration_is_read_in_microseconds():
    """mlx4/en_port.h struct mlx4_en_stat_out_flow_control_mbox: rx_pause_duration is "Total number of microseconds
    that far-end port requested to pause transmission" (en_port.c copies it unscaled); it was left unread, so a mlx4
    host's paused time was unknown."""
    values = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": MLX4}, 0.0, 0.0).values
    assert [values[Key("eth2", PAUSE_DURATION_US, p)] for p in range(8)] == [7 * p for p in range(8)]


def test_a_driver_without_per_priority_counters_is_named_not_taken_for_quiet():
    """A NIC whose `ethtool -S` has no per-priority pause names: that command's counters are said to be unknown (with
    the drivers whose names are read), and the host's other answers are still read."""
    r = reading_from_commands("gpu07", "linux_mlx5", {
        "ethtool -S eth2": "NIC statistics:\n     rx_packets: 1\n",
        "ethtool -I -a eth2": "Pause parameters for eth2:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\nStatistics:\n"
                              "  tx_pause_frames: 4\n  rx_pause_frames: 3\n"}, 0.0, 0.0)
    assert r.values and r.unread == (
        "`ethtool -S eth2`: no per-priority counter of a driver losslessd reads (mlx5_core, mlx4_en, bnxt_en, "
        "ice, i40e) and no PFC storm count among its names: its counters are unknown",)


def test_a_mlx4_host_is_polled_over_ssh(make_sim):
    """The real SSH peer serves a ConnectX-3 Pro's (mlx4_en) `ethtool -S`: the daemon's SSH counter poll of the host
    reads its per-priority pauses (before, it found no counter in that answer)."""
    sim = make_sim(["gpu01"], snmp=False)
    host = inventory.load(sim.inventory_path, env=sim.env).hosts["gpu01"]
    iface = "enp65s0f0np0"
    sim.garble("gpu01", f"ethtool -S {iface}", MLX4)
    target = counter_host(host)
    assert target is not None
    result = Session(target, known_hosts=sim.known_hosts_path, timeout=20).run()
    outputs = {command: output for command, output in result.sections if iface in command}
    r = reading_from_commands("gpu01", "linux_mlx5", outputs, 0.0, 0.0)
    assert r.values[Key(iface, PFC_RX, 3)] == 30 and r.values[Key(iface, PFC_TX, 3)] == 60
    assert not [u for u in r.unread if "ethtool -S" in u]


def test_mlx5_receive_buffer_discards_are_read_and_exported():
    """mlx5's rx_prio<p>_buf_discard (en_stats.c pport_per_tc_prio_stats_desc: PPCNT no_buffer_discard_uc) counts the
    priority's packets the NIC dropped for want of receive buffer: on a lossless priority, loss. A host whose
    `ethtool -S` has only that counter (a runbook's grep for `prio[0-7]_(pause|buf_discard)`) was "no per-priority
    pause counter", its drops unseen; now they are read per priority and exported."""
    r = reading_from_commands("gpu07", "linux_mlx5", {
        "ethtool -S eth2": "NIC statistics:\n     rx_prio0_buf_discard: 2\n     rx_prio3_buf_discard: 5\n"}, 0.0, 0.0)
    assert r.unread == ()
    assert r.values == {Key("eth2", RX_BUFFER_DISCARDS, 0): 2, Key("eth2", RX_BUFFER_DISCARDS, 3): 5}
    assert family_of(RX_BUFFER_DISCARDS, True) == ("losslessd_nic_rx_buffer_discards_total", "priority", 1.0)


def test_mlx5_per_priority_discards_are_read_and_exported():
    """mlx5's rx_prio<p>_discards (Linux 5.6, commit 827a8cb2 "net/mlx5e: Add discard counters per priority": the
    PPCNT per-priority group's rx_discards, packets of the priority dropped for lack of buffers on the physical port)
    was not read: a host whose `ethtool -S` has only it was "no per-priority counter", its drops unseen."""
    r = reading_from_commands("gpu07", "linux_mlx5", {
        "ethtool -S eth2": "NIC statistics:\n     rx_prio3_discards: 4\n     rx_prio3_buf_discard: 3\n"}, 0.0, 0.0)
    assert r.unread == ()
    assert r.values == {Key("eth2", RX_DISCARDS, 3): 4, Key("eth2", RX_BUFFER_DISCARDS, 3): 3}
    assert family_of(RX_DISCARDS, True) == ("losslessd_nic_rx_discards_total", "priority", 1.0)


# bnxt_en's per-ring counters are named "[<ring>]: <name>" (the netdev posting "Support per-queue statistics API in
# bnxt" shows its `ethtool -S`: `[0]: rx_ucast_packets: 1418`; bnx2x prints its queues alike), then the port counters;
# bnxt_ethtool.c BNXT_RX_STATS_EXT_PFC_ENTRY(n): pfc_pri<n>_rx_duration_us and pfc_pri<n>_rx_transitions. Numbers of our
# own.
BNXT_RINGS = ("NIC statistics:\n     [0]: rx_ucast_packets: 1418\n     [0]: rx_discards: 0\n"
              "     [1]: rx_ucast_packets: 77\n     [1]: tx_ucast_packets: 1734\n" + BNXT.split("\n", 1)[1]
              + "".join(f"     pfc_pri{p}_rx_duration_us: {900 + p}\n     pfc_pri{p}_rx_transitions: {p}\n"
                        for p in range(8)))


def test_per_ring_counters_named_with_a_colon_do_not_fail_the_poll():
    """A name holding ": " (bnxt_en's and bnx2x's "[0]: rx_ucast_packets") was "not 'name: value'": the whole
    `ethtool -S` answer was refused and a Broadcom host's poll failed (round 21). The ring counters are no per-priority
    counter and are passed over; the port's PFC counters are read."""
    values = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": BNXT_RINGS}, 0.0, 0.0).values
    assert [values[Key("eth2", PFC_RX, p)] for p in range(8)] == [30 + p for p in range(8)]
    assert not any(k.name == TX_PACKETS for k in values)  # (a ring's tx_ucast_packets is no priority's)


def test_bnxt_pause_duration_is_read_in_microseconds():
    """bnxt_en's pfc_pri<p>_rx_duration_us (the time between a received XOFF and its XON) was left unread, so a
    Broadcom host's paused time was estimated from frames alone."""
    values = reading_from_commands("gpu07", "linux_mlx5", {"ethtool -S eth2": BNXT_RINGS}, 0.0, 0.0).values
    assert [values[Key("eth2", PAUSE_DURATION_US, p)] for p in range(8)] == [900 + p for p in range(8)]
