"""gNMI streaming: the path parsers against vectors from the platforms' own documents, then real
subscriptions over TLS to the simulator's grpcio servers on 127.0.0.1 (counters arrive and move,
bad CA / password / garbage / stall / flood fail that device only, reconnect after a restart), and a
`losslessd daemon` process that detects storms through gNMI alone and never logs the password.
"""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from dataclasses import replace

import pytest
import yaml

from losslessd.collect.gnmi import (
    GnmiAuthError,
    GnmiError,
    GnmiTarget,
    GnmiTimeout,
    GnmiTlsError,
    decode,
    follow,
    stream,
)
from losslessd.credentials import Secret
from losslessd.errors import InputError
from losslessd.monitor import (
    DROPPED_PACKETS,
    ECN_MARKED,
    IN_OCTETS,
    IN_PACKETS,
    OUT_OCTETS,
    PAUSE_DURATION_US,
    PFC_RX,
    PFC_TX,
    TX_BYTES,
    TX_PACKETS,
    WD_RESTORED,
    WD_STORMS,
    Key,
)
from losslessd.monitor.gnmi import PATHS, parse_openconfig, parse_path, parse_sonic
from losslessd.sim import Simulator
from losslessd.sim.gnmi import make_tls

from .daemonproc import DaemonProcess, free_port, wait_for
from .peers import FABRIC, swapped_leaf1

DEVICES = ["leaf1", "leaf2", "spine1"]
INTERVAL_S = 0.3  # sample interval of the client tests
# Sample interval of the tests that follow every device at once: the flood and stall checks are
# fractions and multiples of it, and one test process runs the servers and the clients, so on a
# loaded machine a 0.3 s interval lets a healthy stream look stalled and a flood look paced.
FOLLOW_INTERVAL_S = 1.0


# -- parsers -----------------------------------------------------------------------------------------

def test_sonic_port_queue_and_watchdog_objects():
    """Field names and shapes as SONiC's grpc_telemetry.md (COUNTERS/Ethernet9, COUNTERS/Ethernet68/
    Queues) and sonic-gnmi's testdata (COUNTERS:Ethernet68:Pfcwd) show them: strings of digits."""
    ports = parse_sonic(parse_path("COUNTERS/Ethernet*"), {"Ethernet9": {
        "SAI_PORT_STAT_IF_IN_OCTETS": "1000", "SAI_PORT_STAT_IF_OUT_OCTETS": "2000",
        "SAI_PORT_STAT_IF_IN_UCAST_PKTS": "7", "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS": "3",
        "SAI_PORT_STAT_PFC_7_RX_PKTS": "5", "SAI_PORT_STAT_PFC_7_TX_PKTS": "6",
        "SAI_PORT_STAT_PFC_7_ON2OFF_RX_PKTS": "9", "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US": "250",
        "SAI_PORT_STAT_ETHER_STATS_JABBERS": "0"}})
    assert ports.values == {Key("Ethernet9", IN_OCTETS): 1000, Key("Ethernet9", OUT_OCTETS): 2000,
                            Key("Ethernet9", IN_PACKETS): 10, Key("Ethernet9", PFC_RX, 7): 5,
                            Key("Ethernet9", PFC_TX, 7): 6, Key("Ethernet9", PAUSE_DURATION_US, 3): 250}
    queues = parse_sonic(parse_path("COUNTERS/Ethernet*/Queues"), {"Ethernet68:3": {
        "SAI_QUEUE_STAT_BYTES": "640", "SAI_QUEUE_STAT_DROPPED_BYTES": "0", "SAI_QUEUE_STAT_DROPPED_PACKETS": "2",
        "SAI_QUEUE_STAT_PACKETS": "10", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "4"}})
    assert queues.kind == "Queues" and queues.values == {
        Key("Ethernet68", TX_BYTES, 3): 640, Key("Ethernet68", DROPPED_PACKETS, 3): 2,
        Key("Ethernet68", TX_PACKETS, 3): 10, Key("Ethernet68", ECN_MARKED, 3): 4}
    wd = parse_sonic(parse_path("COUNTERS/Ethernet*/Pfcwd"), {"Ethernet68:3": {
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "1", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": "0",
        "PFC_WD_STATUS": "stormed"}})
    assert wd.values == {Key("Ethernet68", WD_STORMS, 3): 1, Key("Ethernet68", WD_RESTORED, 3): 0}


@pytest.mark.parametrize("path, value, needle", [
    ("COUNTERS/Ethernet*", {"Ethernet0": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "n/a"}}, "SAI_PORT_STAT_PFC_3_RX_PKTS"),
    ("COUNTERS/Ethernet*", {"Ethernet0": {"SAI_PORT_STAT_IF_IN_OCTETS": "-5"}}, "'-5' is not a counter"),
    ("COUNTERS/Ethernet*", {"Ethernet0": {"SAI_PORT_STAT_IF_IN_OCTETS": str(2**64)}}, f"'{2**64}' is not a counter"),
    ("COUNTERS/Ethernet*", {"Ethernet0": {"SAI_PORT_STAT_IF_IN_OCTETS": 10**30}}, "is not a counter"),
    ("COUNTERS/Ethernet*", ["not", "an", "object"], "not a JSON object"),
    ("COUNTERS/Ethernet*/Queues", {"Ethernet0": {"SAI_QUEUE_STAT_PACKETS": "1"}}, "is not PORT:QUEUE"),
    ("COUNTERS/Ethernet*/Pfcwd", {"Ethernet0:3": {"PFC_WD_STATUS": "exploded"}}, "is not operational or stormed"),
    ("COUNTERS/Ethernet*/Buffers", {}, "no counters known"),
    # port names no agent serves (a JSON key may be anything): a lone surrogate stopped every /metrics scrape
    # (UnicodeEncodeError for the whole exposition, every device's series), a newline or ESC reached the history
    ("COUNTERS/Ethernet*", {"Ethernet0\ud800": {"SAI_PORT_STAT_IF_IN_OCTETS": "1"}},
     r"'Ethernet0\\ud800' is not a port name \(not printable"),
    ("COUNTERS/Ethernet*/Queues", {"Ether\x1b[2Jnet0:3": {"SAI_QUEUE_STAT_PACKETS": "1"}}, r"'Ether\\x1b\[2Jnet0'"),
    ("COUNTERS/Ethernet*", {"E" * 100_000: {}}, r"EEE\.\.\. \(100,000 characters\)' is not a port name"),
    ("COUNTERS/Ethernet*", {"": {}}, "'' is not a port name"),
])
def test_sonic_garbage_names_the_path(path, value, needle):
    with pytest.raises(ValueError, match=needle):
        parse_sonic(parse_path(path), value)


@pytest.mark.parametrize("text", [b"[" * 100_000, b"[" + b"9" * 5000 + b"]", b"{"])
def test_a_json_value_no_parser_reads_is_a_value_error(text):
    """JSON nested past the recursion limit (a RecursionError escaped the stream's ValueError handling), an integer
    past CPython's 4,300 digits, a cut document: each a ValueError, which the stream reports as the device's."""
    from pygnmi.spec.v080 import gnmi_pb2

    with pytest.raises(ValueError):
        decode(gnmi_pb2.TypedValue(json_ietf_val=text))


def test_openconfig_leaves_and_arista_augments():
    """Leaf names from openconfig-interfaces / openconfig-qos-interfaces and Arista's pathreport.csv
    (EOS-4.36.1F): in-frames/out-frames per priority, pfc-on-total-rx-time in nanoseconds, the
    watchdog's stuck-count/recovery-count as counter32, keyed by index and queue-type."""
    iface = parse_path("/interfaces/interface[name=Ethernet1/1]/state/counters/in-octets")
    assert parse_openconfig(iface, 12).values == {Key("Ethernet1/1", IN_OCTETS): 12}
    queue = parse_path("/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=UC3]/state")
    parsed = parse_openconfig(queue, {"openconfig-qos:transmit-pkts": "100", "ecn-marked-pkts": 7, "name": "UC3"})
    assert parsed.values == {Key("Ethernet1", TX_PACKETS, 3): 100, Key("Ethernet1", ECN_MARKED, 3): 7}
    pfc = parse_path("/interfaces/interface[name=Ethernet1]/ethernet/pfc/priorities/priority[index=3]/state")
    assert parse_openconfig(pfc, {"in-frames": "5", "out-frames": "6", "pfc-on-total-rx-time": "2500000"}).values == {
        Key("Ethernet1", PFC_RX, 3): 5, Key("Ethernet1", PFC_TX, 3): 6, Key("Ethernet1", PAUSE_DURATION_US, 3): 2500}
    wd = ("/interfaces/interface[name=Ethernet1]/ethernet/pfc/watchdog/tx-queues/tx-queue[index=3]"
          "[queue-type={}]/state/stuck-count")
    unicast = parse_openconfig(parse_path(wd.format("UNICAST")), 2)
    assert unicast.values == {Key("Ethernet1", WD_STORMS, 3): 2} and unicast.bits == {Key("Ethernet1", WD_STORMS, 3): 32}
    assert parse_openconfig(parse_path(wd.format("MULTICAST")), 2).values == {}


def test_a_counter_a_round_lacks_is_absent_from_its_reading_not_repeated():
    """SAMPLE resends every path each round: a counter one round lacks (a partial round, emitted at its grace) is
    left out of that round's reading, so the tracker calls it unknown, never the value of the round before, which
    read as no change (a storm as quiet)."""
    from pygnmi.spec.v080 import gnmi_pb2

    from losslessd.collect.gnmi import _path, _Rounds

    def update(name: str, value: int) -> gnmi_pb2.Notification:
        pfc = parse_path(f"/interfaces/interface[name={name}]/ethernet/pfc/priorities/priority[index=3]/state/"
                         "in-frames")
        value_of = gnmi_pb2.TypedValue(uint_val=value)
        return gnmi_pb2.Notification(update=[gnmi_pb2.Update(path=_path(pfc), val=value_of)])

    rounds = _Rounds(GnmiTarget("leaf2", "127.0.0.1", 1, "arista_eos", sample_interval_s=1.0))
    rounds.add(update("Ethernet1", 5), 0.0)
    rounds.add(update("Ethernet2", 7), 0.0)
    rounds.synced()
    first = rounds.emit()
    assert first.values == {Key("Ethernet1", PFC_RX, 3): 5, Key("Ethernet2", PFC_RX, 3): 7}
    rounds.add(update("Ethernet1", 9), 2.0)  # Ethernet2's update never comes this round
    second = rounds.emit(partial=True)
    assert second.values == {Key("Ethernet1", PFC_RX, 3): 9}
    assert first.values == {Key("Ethernet1", PFC_RX, 3): 5, Key("Ethernet2", PFC_RX, 3): 7}  # (a reading is its own)


@pytest.mark.parametrize("path, value, needle", [
    ("/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=no-loss]/state/transmit-pkts", 1,
     "carries no queue number"),
    ("/interfaces/interface[name=Ethernet1]/state/counters/in-octets", "lots", "'lots' is not a counter"),
    ("/interfaces/interface[name=Ethernet1]/state/counters/in-octets", True, "is not a counter"),
    ("/system/state/hostname", "leaf1", "not a counter path"),
    ("/interfaces/interface[name=Ethernet1\n]/state/counters/in-octets", 1,
     r"interface\[name=Ethernet1\\n\].*'Ethernet1\\n' is not a port name"),
])
def test_openconfig_garbage_names_the_path(path, value, needle):
    with pytest.raises(ValueError, match=needle):
        parse_openconfig(parse_path(path), value)


def test_every_platform_path_parses():
    for platform, paths in PATHS.items():
        for p in paths:
            assert parse_path(p.text), (platform, p.text)


# -- real subscriptions --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Simulator:
    s = Simulator(FABRIC, tmp_path_factory.mktemp("gnmi-sim"), devices=DEVICES, snmp=False, gnmi=True)
    s.start()
    yield s
    s.stop()


def target(sim: Simulator, name: str, **changes) -> GnmiTarget:
    d = sim.devices[name]
    t = GnmiTarget(device=name, host=d.host, port=d.gnmi_port, platform=d.platform, username=d.username,
                   password=Secret(d.password, "the simulator"), ca_file=sim.gnmi_ca_path,
                   sample_interval_s=INTERVAL_S, timeout_s=2.0)
    return replace(t, **changes)


def first_readings(t: GnmiTarget, n: int) -> list:
    async def run():
        out = []
        async for reading in stream(t):
            out.append(reading)
            if len(out) == n:
                return out
    return asyncio.run(asyncio.wait_for(run(), 60))


def failure_of(t: GnmiTarget) -> GnmiError:
    async def run():
        async for _ in stream(t):
            pass
    with pytest.raises(GnmiError) as info:
        asyncio.run(asyncio.wait_for(run(), 60))
    return info.value


@pytest.mark.parametrize("name", DEVICES)
def test_counters_arrive_and_move(sim, name):
    a, b, c = first_readings(target(sim, name), 3)
    device = sim.devices[name]
    port = device.ports[0]
    names = {k.name for k in a.values}
    assert {IN_OCTETS, OUT_OCTETS, IN_PACKETS, PFC_RX, PFC_TX, TX_PACKETS, TX_BYTES, ECN_MARKED, DROPPED_PACKETS,
            WD_STORMS, WD_RESTORED, PAUSE_DURATION_US} <= names
    assert {k.port for k in a.values} == set(device.ports)
    assert a.monotonic_s < b.monotonic_s < c.monotonic_s
    assert c.values[Key(port, IN_OCTETS)] > a.values[Key(port, IN_OCTETS)]
    assert c.values[Key(port, TX_PACKETS, 3)] > a.values[Key(port, TX_PACKETS, 3)]


def test_a_storm_shows_in_the_streamed_counters(sim):
    device, port = "spine1", "Ethernet3/1"
    sim.storm(device, port, 3, on=True)
    try:
        a, b = first_readings(target(sim, device), 2)
    finally:
        sim.storm(device, port, 3, on=False)
    assert b.values[Key(port, TX_PACKETS, 3)] == a.values[Key(port, TX_PACKETS, 3)]  # the paused queue is stuck
    rx_per_s = (b.values[Key(port, PFC_RX, 3)] - a.values[Key(port, PFC_RX, 3)]) / (b.monotonic_s - a.monotonic_s)
    assert rx_per_s > 1000  # storm pause frames, not the background two a second


def test_a_certificate_from_another_ca_is_refused(sim, tmp_path):
    other = make_tls(tmp_path / "gnmi-ca.pem").ca_file
    err = failure_of(target(sim, "leaf1", ca_file=other))
    assert isinstance(err, GnmiTlsError) and err.sys_code == "SYS012"


def test_a_wrong_password_is_an_auth_failure_that_does_not_show_the_password(sim):
    err = failure_of(target(sim, "leaf1", password=Secret("not-the-password-42", "test")))
    assert isinstance(err, GnmiAuthError) and err.sys_code == "SYS011"
    assert "not-the-password-42" not in str(err) and sim.devices["leaf1"].password not in str(err)


def test_a_device_that_quotes_the_password_back_has_it_masked(sim):
    """A target refusing the call with the login it was sent in the details: the failure the daemon logs and
    exports quoted the password as the device wrote it."""
    t = target(sim, "leaf2")
    failures = []

    async def run():
        failed = asyncio.Event()

        def on_failure(exc, _state):
            failures.append(exc)
            failed.set()

        task = asyncio.create_task(follow(t, lambda r, s: None, on_failure, backoff_initial_s=0.1, backoff_max_s=0.1))
        await failed.wait()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    sim.set_gnmi_fault("leaf2", "echo")
    try:
        asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        sim.set_gnmi_fault("leaf2", None)
    (err,) = failures[:1]
    assert isinstance(err, GnmiAuthError) and "with password '********' not accepted" in err.message
    assert sim.devices["leaf2"].password not in err.message and sim.devices["leaf2"].password not in str(err)


def test_a_device_that_is_down_is_unreachable(sim):
    sim.set_down("spine1")
    try:
        err = failure_of(target(sim, "spine1"))
    finally:
        sim.set_down("spine1", False)
    assert err.sys_code in ("SYS010", "SYS013")


def follow_all(sim: Simulator, until, **changes) -> tuple[dict, dict]:
    """Follow every device at once until ``until(readings, failures)``; per device: readings, failures."""
    readings: dict[str, list] = defaultdict(list)
    failures: dict[str, list] = defaultdict(list)

    async def run():
        tasks = [asyncio.create_task(follow(target(sim, n, **{"sample_interval_s": FOLLOW_INTERVAL_S, **changes}),
                                            lambda r, s: readings[r.device].append(r),
                                            lambda e, s: failures[e.device].append(e), backoff_initial_s=0.2,
                                            backoff_max_s=0.5)) for n in DEVICES]
        try:
            while not until(readings, failures):
                await asyncio.sleep(0.05)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(asyncio.wait_for(run(), 90))
    return readings, failures


@pytest.mark.parametrize("fault, expected", [
    ("garbage", "unusable answer"),
    ("stall", "stalled"),
    ("flood", "floods"),
])
def test_a_misbehaving_device_fails_alone_while_the_others_stream(sim, fault, expected):
    bad = "leaf2"
    start = {}

    def until(readings, failures):
        if not start:
            if all(len(readings[n]) >= 1 for n in DEVICES):  # everyone streams: now break one
                start.update({n: len(readings[n]) for n in DEVICES})
                if fault == "garbage":
                    sim.set_garbage(bad)
                else:
                    sim.set_gnmi_fault(bad, fault)
            return False
        return len(failures[bad]) >= 2 and all(len(readings[n]) >= start[n] + 5 for n in DEVICES if n != bad)

    try:
        readings, failures = follow_all(sim, until)
    finally:
        sim.set_garbage(bad, False)
        sim.set_gnmi_fault(bad, None)
    assert all(expected in e.message for e in failures[bad]), [e.message for e in failures[bad]]
    assert not failures["leaf1"] and not failures["spine1"]


def test_reconnects_with_backoff_after_the_server_restarts(sim):
    name = "leaf1"
    state = Counter()

    def until(readings, failures):
        if state["restarted"] == 0 and len(readings[name]) >= 2:
            state["before"] = len(readings[name])
            sim.restart_gnmi(name)
            state["restarted"] = 1
        return state["restarted"] and failures[name] and len(readings[name]) >= state["before"] + 3

    readings, failures = follow_all(sim, until)
    assert failures[name][0].sys_code in ("SYS010", "SYS014")
    assert len(readings[name]) >= state["before"] + 3  # streaming again on a new connection


# -- the daemon ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_daemon_detects_storms_through_gnmi_and_never_logs_the_password(sim, tmp_path):
    daemon = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None,
                                                           "gnmi_sample_interval_s": 1.0, "gnmi_timeout_s": 3})
    daemon.start()
    try:
        for name in DEVICES:
            wait_for(lambda n=name: daemon.value("losslessd_polls_total", device=n, source="gnmi"), f"{name} streams")
        assert daemon.value("losslessd_pfc_rx_frames_total", device="leaf2", port="Ethernet1", priority="3") > 0
        assert daemon.value("losslessd_queue_tx_bytes_total", device="leaf1", port="Ethernet0", queue="3") > 0
        inferred = {"device": "leaf1", "port": "Ethernet12", "priority": "3"}  # SONiC paths, no on-box watchdog
        onbox = {"device": "leaf2", "port": "Ethernet2", "priority": "3"}  # EOS paths, watchdog counters
        sim.storm("leaf1", "Ethernet12", 3)
        sim.storm("leaf2", "Ethernet2", 3)
        try:
            wait_for(lambda: daemon.value("losslessd_pfc_storm", **inferred) == 1, "the SONiC storm")
            wait_for(lambda: daemon.value("losslessd_pfc_storm", **onbox) == 1, "the EOS storm")
        finally:
            sim.storm("leaf1", "Ethernet12", 3, on=False)
            sim.storm("leaf2", "Ethernet2", 3, on=False)
        wanted = {("leaf1", "pfc_storm"), ("leaf2", "onbox_storm")}
        wait_for(lambda: wanted <= {(e["device"], e["kind"]) for e in daemon.events()}, "both storms in the history")
        wait_for(lambda: daemon.value("losslessd_pfc_storm", **inferred) == 0, "the SONiC storm to end")
        sim.set_gnmi_fault("spine1", "stall")  # a device that goes quiet is marked down, the others stay up
        try:
            wait_for(lambda: daemon.value("losslessd_event_active", kind="device_down", device="spine1",
                                          port="", priority="", code="") == 1, "spine1 down", timeout_s=60)
            assert daemon.value("losslessd_up", device="leaf1") == 1
        finally:
            sim.set_gnmi_fault("spine1", None)
        wait_for(lambda: daemon.value("losslessd_up", device="spine1") == 1, "spine1 back", timeout_s=60)
    finally:
        assert daemon.stop() == 0
    log = daemon.log.read_text()
    assert "gNMI" in log or "gnmi" in log
    assert sim.env["LOSSLESSD_SIM_PASSWORD"] not in log
    assert "Traceback" not in log and "unexpectedly" not in log
    assert [r for r in daemon.log_records() if r.get("source") == "gnmi" and r.get("device") == "spine1"]


@pytest.mark.slow
def test_a_reload_restarts_only_the_stream_whose_target_changed(sim, tmp_path):
    """leaf1's gNMI port changes to one nobody serves: a reload re-subscribes leaf1 alone, its stream
    failures mark it down (gNMI is its only source), the others' streams go on untouched; put back,
    it streams and is up again."""
    daemon = DaemonProcess(sim, tmp_path / "daemon", poll={"ssh_counters_interval_s": None,
                                                           "gnmi_sample_interval_s": 1.0, "gnmi_timeout_s": 3})
    inventory = yaml.safe_load(sim.inventory_path.read_text())
    moved = tmp_path / "inventory.yaml"
    daemon.start()
    try:
        for name in DEVICES:
            wait_for(lambda n=name: daemon.value("losslessd_polls_total", device=n, source="gnmi"), f"{name} streams")
        before = {n: sim.gnmi_subscriptions(n) for n in DEVICES}
        inventory["hosts"]["leaf1"]["data"]["gnmi"]["port"] = free_port()  # nothing listens there
        moved.write_text(yaml.safe_dump(inventory))
        daemon.write({**daemon.settings, "inventory": str(moved)})
        assert daemon.request("/-/reload", "POST")[0] == 200
        wait_for(lambda: daemon.value("losslessd_event_active", kind="device_down", device="leaf1",
                                      port="", priority="", code="") == 1, "leaf1 down", timeout_s=60)
        polls = {n: daemon.value("losslessd_polls_total", device=n, source="gnmi") for n in ("leaf2", "spine1")}
        wait_for(lambda: all(daemon.value("losslessd_polls_total", device=n, source="gnmi") > polls[n] + 2
                             for n in polls), "leaf2 and spine1 still streaming")
        assert {n: sim.gnmi_subscriptions(n) for n in ("leaf2", "spine1")} == {n: before[n] for n in ("leaf2", "spine1")}
        assert daemon.value("losslessd_up", device="leaf2") == 1 and daemon.value("losslessd_up", device="spine1") == 1
        assert sim.gnmi_subscriptions("leaf1") == before["leaf1"]  # the new address was never served

        daemon.write(daemon.settings)  # back to the simulator's inventory
        assert daemon.request("/-/reload", "POST")[0] == 200
        wait_for(lambda: daemon.value("losslessd_up", device="leaf1") == 1, "leaf1 back", timeout_s=60)
        assert sim.gnmi_subscriptions("leaf1") > before["leaf1"]
        assert {n: sim.gnmi_subscriptions(n) for n in ("leaf2", "spine1")} == {n: before[n] for n in ("leaf2", "spine1")}
    finally:
        assert daemon.stop() == 0
    failed = [r for r in daemon.log_records() if r.get("source") == "gnmi" and r.get("device") == "leaf1"
              and "failed" in r["msg"]]
    assert failed and all(r["reason"].startswith(("SYS010", "SYS013")) for r in failed), failed[:3]
    assert "Traceback" not in daemon.log.read_text()


# -- inventory -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("gnmi, needle", [
    ({"port": 6030, "password": "hunter2"}, "plaintext `password:` refused"),
    ({"ca_file": "ca.pem"}, "`data.gnmi.port` must be"),
    ({"port": 6030, "ca_file": "missing.pem"}, "is not a file"),
    ({"port": 6030, "tls": "yes"}, "`data.gnmi.tls` must be true or false"),
    ({"port": 6030, "password_env": "NOT_SET_ANYWHERE"}, "NOT_SET_ANYWHERE"),
    ({"port": 6030, "sample": 1}, "unknown field `data.gnmi.sample`"),
])
def test_inventory_gnmi_errors_name_file_and_line(tmp_path, gnmi, needle):
    import yaml

    from losslessd.inventory import load

    inv = tmp_path / "inventory.yaml"
    inv.write_text(yaml.safe_dump({"hosts": {"leaf1": {"hostname": "10.0.0.1", "platform": "arista_eos", "data": {
        "credentials": {"username": "admin", "password_env": "PW"}, "gnmi": gnmi}}}}))
    with pytest.raises(InputError) as info:
        load(inv, {"PW": "secret-value"})
    assert needle in str(info.value) and info.value.line and str(inv) in (info.value.file or "")
    assert "hunter2" not in str(info.value)


def test_inventory_gnmi_defaults_to_the_ssh_login_and_a_platform_without_paths_is_refused(tmp_path):
    import yaml

    from losslessd.inventory import load

    (tmp_path / "ca.pem").write_text("x")
    inv = tmp_path / "inventory.yaml"
    hosts = {"leaf1": {"hostname": "10.0.0.1", "platform": "arista_eos", "data": {
        "credentials": {"username": "admin", "password_env": "PW"}, "gnmi": {"port": 6030, "ca_file": "ca.pem"}}}}
    inv.write_text(yaml.safe_dump({"hosts": hosts}))
    spec = load(inv, {"PW": "pw"}).hosts["leaf1"].gnmi
    assert (spec.port, spec.username, spec.password.reveal(), spec.tls) == (6030, "admin", "pw", True)
    assert spec.ca_file == tmp_path / "ca.pem" and spec.hostname == "10.0.0.1"
    hosts["leaf1"]["platform"] = "nvidia_cumulus"
    inv.write_text(yaml.safe_dump({"hosts": hosts}))
    with pytest.raises(InputError, match="has no gNMI counter paths"):
        load(inv, {"PW": "pw"})


def test_the_simulators_queue_counters_follow_the_devices_maps(tmp_path):
    """TC 3 on queue 4 and TC 4 on queue 3 (SONiC TC_TO_QUEUE_MAP and MAP_PFC_PRIORITY_TO_QUEUE 3 -> 4, 4 -> 3):
    the gNMI queue counters, like the SSH wredcounters, mark ECN for lossless priority 3 on queue 4 and stop queue 4
    when priority 3 storms; queue 3 (lossy priority 4) marks nothing and keeps sending. Before, gNMI took queue 3
    for priority 3 whatever the maps said, so a test through it could not tell a detector that ignores them."""
    import json

    from losslessd.sim import load_devices
    from losslessd.sim.counters import storm_key, wred_counters
    from losslessd.sim.gnmi import sonic_notifications

    device = load_devices(swapped_leaf1(tmp_path))["leaf1"]
    assert device.queues["Ethernet0"][3] == [4] and device.lossless["Ethernet0"] == [3]

    def gnmi(now: float) -> dict[int, tuple[int, int]]:
        [note] = sonic_notifications(device, ["Queues"], now)
        data = json.loads(note.update[0].val.json_ietf_val)
        return {q: (int(data[f"Ethernet0:{q}"]["SAI_QUEUE_STAT_PACKETS"]),
                    int(data[f"Ethernet0:{q}"]["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"])) for q in (3, 4)}

    def ssh(now: float) -> dict[int, int]:
        rows = [line.split() for line in wred_counters(device, now).splitlines() if line.startswith(" Ethernet0 ")]
        return {int(row[1][2:]): int(row[4]) for row in rows if row[1] in ("UC3", "UC4")}

    t0 = device.traffic.t0 + 100.0
    (a, b), (s, u) = (gnmi(t0), gnmi(t0 + 10)), (ssh(t0), ssh(t0 + 10))
    assert b[4][1] > a[4][1] and b[3][1] == a[3][1]  # marks on queue 4, not 3
    assert u[4] > s[4] and u[3] == s[3] == 0  # as the SSH wredcounters
    assert b[3][0] > a[3][0] and b[4][0] > a[4][0]  # both send
    device.traffic.storm(storm_key(device.if_indexes, "Ethernet0", 3), now=t0 + 20)
    c, d = gnmi(t0 + 30), gnmi(t0 + 40)
    assert d[4] == c[4]  # priority 3's queue is stuck: sends nothing, marks nothing
    assert d[3][0] > c[3][0]  # queue 3 carries priority 4: it drains


def test_the_simulators_queue_stops_where_the_pause_map_says(tmp_path):
    """TC_TO_QUEUE_MAP 3 -> 4 alone (MAP_PFC_PRIORITY_TO_QUEUE left 3 -> 3): priority 3's traffic and ECN marks are on
    queue 4, but a storm on priority 3 stops queue 3, the queue its pause stops (SimDevice.paused), while queue 4 keeps
    sending. Before, the simulator stopped the queue carrying the traffic, so a detector reading that one passed."""
    import json

    from losslessd.sim import load_devices
    from losslessd.sim.counters import storm_key
    from losslessd.sim.gnmi import sonic_notifications

    device = load_devices(swapped_leaf1(tmp_path, tables=("TC_TO_QUEUE_MAP",)))["leaf1"]

    def sent(now: float) -> dict[int, int]:
        [note] = sonic_notifications(device, ["Queues"], now)
        data = json.loads(note.update[0].val.json_ietf_val)
        return {q: int(data[f"Ethernet0:{q}"]["SAI_QUEUE_STAT_PACKETS"]) for q in (3, 4)}

    t0 = device.traffic.t0 + 100.0
    device.traffic.storm(storm_key(device.if_indexes, "Ethernet0", 3), now=t0)
    a, b = sent(t0 + 10), sent(t0 + 20)
    assert b[3] == a[3] and b[4] > a[4]


def test_sim_gnmi_never_writes_over_a_ca_file_it_did_not_write(tmp_path):
    """`sim --out` with gNMI wrote gnmi-ca.pem over the user's own file of that name, unlike the inventory,
    known_hosts and host key beside it; now refused naming it, the file as it was, and nothing else written."""
    mine = tmp_path / "gnmi-ca.pem"
    mine.write_text("the user's own CA\n")
    sim = Simulator(FABRIC, tmp_path, devices=DEVICES[:1], snmp=False, gnmi=True)
    with pytest.raises(InputError, match=r"--out holds gnmi-ca\.pem, which the simulator did not write"):
        sim.start()
    assert mine.read_text() == "the user's own CA\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gnmi-ca.pem"]
