"""The daemon's /metrics and lifecycle endpoints, scraped over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from losslessd import __version__, monitor
from losslessd.collect.snmp import SnmpPoller, SnmpTarget
from losslessd.daemon.http import HttpFace
from losslessd.daemon.metrics import ENDED_KEPT_S, Metrics, family_of, scraper
from losslessd.monitor import Event, Key, Reading
from losslessd.monitor.sources import reading_from_snmp

T0 = 1_700_000_000.0


def reading(device: str, values: dict[Key, int], t: float = T0) -> Reading:
    return Reading(device=device, monotonic_s=t - T0, time_unix_s=t, uptime_ticks=1000, values=values)


class Flags:
    """What the daemon would answer to the probes; flipped by the tests while the server runs."""

    def __init__(self):
        self.healthy = True
        self.ready = False
        self.reload_result: tuple[bool, str] | Exception = (True, "settings reloaded")
        self.reload_threads: list[str] = []

    def reload(self) -> tuple[bool, str]:
        self.reload_threads.append(threading.current_thread().name)
        if isinstance(self.reload_result, Exception):
            raise self.reload_result
        return self.reload_result


class Served:
    """An HttpFace on an event loop of its own thread, as the daemon runs it on its loop."""

    def __init__(self, metrics: Metrics, flags: Flags, port: int = 0):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="face-loop", daemon=True)
        self.thread.start()

        async def reload():
            return flags.reload()

        face = HttpFace("127.0.0.1", port, scrape=scraper(metrics), healthy=lambda: flags.healthy,
                        ready=lambda: flags.ready, reload=reload)
        try:
            self.face = self.run(face.start())
        except BaseException:
            self.stop_loop()
            raise
        self.url, self.port = self.face.url, self.face.port

    def run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def close(self) -> None:
        self.run(self.face.close())
        self.stop_loop()

    def stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


@pytest.fixture
def served():
    metrics, flags = Metrics(__version__), Flags()
    server = Served(metrics, flags)
    yield metrics, flags, server
    server.close()


def request(server, path: str, method: str = "GET", headers: dict | None = None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(server.url + path, method=method, headers=headers or {},
                                 data=b"" if method in ("POST", "PUT") else None)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()


def scrape(server) -> dict[tuple[str, frozenset], float]:
    """Every sample of /metrics as {(sample name, labels): value}, parsed by prometheus_client's parser."""
    status, headers, body = request(server, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(body.decode()) for s in family.samples}


def value(samples: dict, name: str, **labels) -> float | None:
    return samples.get((name, frozenset((k, str(v)) for k, v in labels.items())))


def storm(port: str = "Ethernet0", priority: int = 3, kind: str = "pfc_storm", start: float = T0) -> Event:
    return Event(kind=kind, device="leaf1", port=port, priority=priority, start_unix_s=start,
                 message="pause frames keep arriving and the queue does not drain", numbers={"pfc_rx_per_s": 9000.0})


def test_scrape_has_device_counters_polls_and_build_info(served):
    metrics, _, server = served
    metrics.counters(reading("leaf1", {
        Key("Ethernet0", monitor.PFC_RX, 3): 123456789012,  # beyond 2^32: a Counter64 column
        Key("Ethernet0", monitor.PFC_TX, 4): 7,
        Key("Ethernet0", monitor.PAUSE_DURATION_US, 3): 2_500_000,
        Key("Ethernet0", monitor.ECN_MARKED, 3): 42,
        Key("Ethernet0", monitor.IN_OCTETS): 10 ** 12,
        Key("Ethernet0", monitor.PFC_RX): 123456789999,  # a per-port total (IEEE8021-PFC-MIB)
    }))
    metrics.poll_done("leaf1", True, 0.25)
    metrics.poll_done("leaf2", False, 5.0)
    samples = scrape(server)

    assert value(samples, "losslessd_pfc_rx_frames_total", device="leaf1", port="Ethernet0", priority=3) == 123456789012
    assert value(samples, "losslessd_pfc_tx_frames_total", device="leaf1", port="Ethernet0", priority=4) == 7
    assert value(samples, "losslessd_pfc_pause_seconds_total", device="leaf1", port="Ethernet0", priority=3) == 2.5
    assert value(samples, "losslessd_ecn_marked_packets_total", device="leaf1", port="Ethernet0", queue=3) == 42
    assert value(samples, "losslessd_receive_bytes_total", device="leaf1", port="Ethernet0") == 10 ** 12
    # The port total has a metric of its own, so sum(losslessd_pfc_rx_frames_total) never counts a frame twice.
    assert value(samples, "losslessd_port_pfc_rx_frames_total", device="leaf1", port="Ethernet0") == 123456789999
    assert value(samples, "losslessd_pfc_rx_frames_total", device="leaf1", port="Ethernet0") is None

    assert value(samples, "losslessd_up", device="leaf1") == 1
    assert value(samples, "losslessd_up", device="leaf2") == 0
    assert value(samples, "losslessd_poll_duration_seconds", device="leaf1", source="snmp") == 0.25
    assert value(samples, "losslessd_poll_failures_total", device="leaf2", source="snmp") == 1
    assert value(samples, "losslessd_build_info", version=__version__,
                 python=".".join(map(str, __import__("sys").version_info[:3]))) == 1
    assert any(name == "process_resident_memory_bytes" for name, _ in samples)


def test_a_real_snmp_poll_is_exported_counter_for_counter(sim_fabric, served):
    """Every counter the simulator's SNMP agent served is on /metrics under its name, with its raw value."""
    metrics, _, server = served
    device = next(d for d in sim_fabric.devices.values() if d.snmp_port is not None)
    target = SnmpTarget(device=device.name, host=device.host, port=device.snmp_port,
                        community=sim_fabric.env[device.snmp_community_env])

    async def poll():
        async with SnmpPoller() as poller:
            return await poller.poll(target)

    polled = reading_from_snmp(asyncio.run(poll()))
    metrics.counters(polled)
    samples = scrape(server)
    assert {key.name for key in polled.values} >= {monitor.PFC_RX, monitor.PFC_TX}
    for key, raw in polled.values.items():
        name, label, scale = family_of(key.name, key.index is not None)
        labels = {"device": device.name, "port": key.port} | ({label: key.index} if label else {})
        assert value(samples, name, **labels) == pytest.approx(raw * scale), (key, name)


def test_counters_from_two_sources_merge_and_update(served):
    metrics, _, server = served
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 10}))  # SNMP
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.WD_STORMS, 3): 1}), "ssh")  # `show pfcwd stats`
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 15}, T0 + 10))  # SNMP again
    samples = scrape(server)
    assert value(samples, "losslessd_pfc_rx_frames_total", device="leaf1", port="Ethernet0", priority=3) == 15
    assert value(samples, "losslessd_pfcwd_storms_total", device="leaf1", port="Ethernet0", priority=3) == 1


def test_a_counter_its_source_no_longer_serves_leaves_the_scrape(served):
    """A port taken out (a breakout change) must not go on exporting its last value as if it were flat."""
    metrics, _, server = served
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 10, Key("Ethernet4", monitor.PFC_RX, 3): 7}))
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 12}, T0 + 10))
    samples = scrape(server)
    assert value(samples, "losslessd_pfc_rx_frames_total", device="leaf1", port="Ethernet0", priority=3) == 12
    assert value(samples, "losslessd_pfc_rx_frames_total", device="leaf1", port="Ethernet4", priority=3) is None


def test_up_is_zero_while_any_source_fails(served):
    metrics, _, server = served
    metrics.poll_done("leaf1", True, 0.1, source="snmp")
    metrics.poll_done("leaf1", False, 3.0, source="ssh")
    assert value(scrape(server), "losslessd_up", device="leaf1") == 0
    metrics.poll_done("leaf1", True, 0.8, source="ssh")
    samples = scrape(server)
    assert value(samples, "losslessd_up", device="leaf1") == 1
    assert value(samples, "losslessd_polls_total", device="leaf1", source="ssh") == 2
    assert value(samples, "losslessd_poll_failures_total", device="leaf1", source="ssh") == 1


def test_a_poll_that_read_part_of_the_device_says_how_much_it_missed(served):
    """losslessd_up says the device answered; losslessd_poll_unread_parts says whether all of it was read (a
    counter command whose table was missing), per source, back to 0 once a poll reads everything."""
    metrics, _, server = served
    partial = Reading(device="leaf1", monotonic_s=0.0, time_unix_s=T0, uptime_ticks=None,
                      values={Key("Ethernet0", monitor.PFC_RX, 3): 10},
                      unread=("show queue counters: no table", "show pfcwd stats: no table"))
    metrics.counters(partial, "ssh")
    metrics.poll_done("leaf1", True, 0.5, source="ssh")
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 10}))
    metrics.poll_done("leaf1", True, 0.1)
    samples = scrape(server)
    assert value(samples, "losslessd_up", device="leaf1") == 1
    assert value(samples, "losslessd_poll_unread_parts", device="leaf1", source="ssh") == 2
    assert value(samples, "losslessd_poll_unread_parts", device="leaf1", source="snmp") == 0
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 12}, T0 + 10), "ssh")
    assert value(scrape(server), "losslessd_poll_unread_parts", device="leaf1", source="ssh") == 0
    metrics.forget("leaf1")
    assert value(scrape(server), "losslessd_poll_unread_parts", device="leaf1", source="ssh") is None


def test_storm_gauge_follows_the_event_and_counts_it_once(served):
    metrics, _, server = served
    event = storm()
    metrics.event(event)
    samples = scrape(server)
    assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) == 1
    assert value(samples, "losslessd_event_active", kind="pfc_storm", device="leaf1", port="Ethernet0",
                 priority=3, code="") == 1

    event.numbers["pfc_rx_per_s"] = 12000.0  # an update keeps the id: still one event
    metrics.event(event)
    assert value(scrape(server), "losslessd_events_total", kind="pfc_storm") == 1

    event.end_unix_s = T0 + 30
    metrics.event(event)
    samples = scrape(server)
    assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) == 0
    assert value(samples, "losslessd_events_total", kind="pfc_storm") == 1

    metrics.event(storm(start=T0 + 60))  # the queue storms again: a new event at the same place
    samples = scrape(server)
    assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) == 1
    assert value(samples, "losslessd_events_total", kind="pfc_storm") == 2
    assert value(samples, "losslessd_events_total", kind="lossy_pause") == 0  # every kind exists from the start


def test_an_ended_events_series_stay_at_0_for_the_lookback_delta_then_go():
    """Over weeks, every place that ever had an event kept an event_active (and pfc_storm) series at 0: the label sets
    grew to every port x priority x kind that once paused. An ended place keeps its 0 for ENDED_KEPT_S (Prometheus'
    default lookback delta), then goes; an open one stays however old; a new event at the place brings it back."""
    now = [1000.0]
    metrics = Metrics(__version__, clock=lambda: now[0])
    server = Served(metrics, Flags())
    try:
        ended, still_open = storm(), storm(port="Ethernet4")
        for event in (ended, still_open):
            metrics.event(event)
        ended.end_unix_s = T0 + 30
        metrics.event(ended)
        now[0] += ENDED_KEPT_S - 1
        samples = scrape(server)
        assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) == 0
        assert value(samples, "losslessd_event_active", kind="pfc_storm", device="leaf1", port="Ethernet0",
                     priority=3, code="") == 0
        now[0] += 1
        samples = scrape(server)
        assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) is None
        assert value(samples, "losslessd_event_active", kind="pfc_storm", device="leaf1", port="Ethernet0",
                     priority=3, code="") is None
        assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet4", priority=3) == 1
        assert value(samples, "losslessd_events_total", kind="pfc_storm") == 2  # (a counter: never goes back)
        metrics.event(storm(start=T0 + 600))  # the queue storms again
        assert value(scrape(server), "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) == 1
    finally:
        server.close()


# Port names an SNMP agent may serve (ifName is any OctetString; losslessd decodes it as UTF-8, a byte that is not
# one as U+FFFD): each is a label value both exposition formats must escape so that a parser reads it back whole.
HOSTILE_PORTS = ['Eth"0', "Eth\\1", "Eth\n2", 'Eth} 3 {x="y"', "Eth 4 # HELP", "Eth\ufffd5", "Eth\u202e6", "Eth\t7"]


def test_hostile_port_names_are_escaped_in_both_formats(served):
    """A quote, backslash or newline left raw in a label would end the sample there, and Prometheus would drop the
    whole scrape (every device's series); the counter and the storm gauge (prometheus_client's encoder) of each
    port parse back to the name as served, in the text format and in OpenMetrics."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families

    metrics, _, server = served
    metrics.counters(reading("leaf1", {Key(p, monitor.PFC_RX, 3): n for n, p in enumerate(HOSTILE_PORTS)}))
    for p in HOSTILE_PORTS:
        metrics.event(storm(port=p))
    samples = scrape(server)
    for n, p in enumerate(HOSTILE_PORTS):
        assert value(samples, "losslessd_pfc_rx_frames_total", device="leaf1", port=p, priority=3) == n, p
        assert value(samples, "losslessd_pfc_storm", device="leaf1", port=p, priority=3) == 1, p
    status, _, body = request(server, "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    assert status == 200
    parsed = {(s.name, s.labels.get("port")): s.value for f in openmetrics_families(body.decode()) for s in f.samples}
    for n, p in enumerate(HOSTILE_PORTS):
        assert parsed[("losslessd_pfc_rx_frames_total", p)] == n and parsed[("losslessd_pfc_storm", p)] == 1, p


def test_onbox_watchdog_storm_lights_the_storm_gauge_and_device_down_has_no_port(served):
    metrics, _, server = served
    metrics.event(storm(port="Ethernet8", priority=4, kind="onbox_storm"))
    metrics.event(Event(kind="device_down", device="leaf2", port=None, priority=None, start_unix_s=T0,
                        message="3 polls failed", basis="poll"))
    samples = scrape(server)
    assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet8", priority=4) == 1
    assert value(samples, "losslessd_event_active", kind="device_down", device="leaf2", port="", priority="",
                 code="") == 1


def test_an_event_seen_only_when_it_ended_is_counted(served):
    metrics, _, server = served
    event = storm()
    event.end_unix_s = T0 + 1
    metrics.event(event)
    samples = scrape(server)
    assert value(samples, "losslessd_events_total", kind="pfc_storm") == 1
    assert value(samples, "losslessd_pfc_storm", device="leaf1", port="Ethernet0", priority=3) == 0


def test_findings_are_replaced_per_run_and_forget_drops_a_device(served):
    metrics, _, server = served
    metrics.findings("leaf1", {("PFC001", "error"): 2, ("ECN003", "warning"): 1})
    metrics.findings("leaf1", {("PFC001", "error"): 1})
    metrics.findings("leaf2", {("BUF002", "warning"): 4})
    for device in ("leaf1", "leaf2"):
        metrics.counters(reading(device, {Key("Ethernet0", monitor.PFC_RX, 3): 5}))
        metrics.poll_done(device, True, 0.1)
        metrics.slow_path(device, "context")
    metrics.event(storm())
    samples = scrape(server)
    assert value(samples, "losslessd_findings", device="leaf1", code="PFC001", severity="error") == 1
    assert value(samples, "losslessd_snmp_fallback_polls_total", device="leaf1", reason="context") == 1
    assert value(samples, "losslessd_findings", device="leaf1", code="ECN003", severity="warning") is None

    metrics.forget("leaf1")
    samples = scrape(server)
    assert not [key for key in samples if ("device", "leaf1") in key[1]]
    assert value(samples, "losslessd_findings", device="leaf2", code="BUF002", severity="warning") == 4
    assert value(samples, "losslessd_up", device="leaf2") == 1
    assert value(samples, "losslessd_events_total", kind="pfc_storm") == 1  # a count of the past stays


def test_history_alerts_and_reload_series(served):
    metrics, _, server = served
    metrics.history(ok=False, backlog=17)
    metrics.alert("webhook", "dropped")
    metrics.reloaded(True, T0)
    metrics.reloaded(False, T0 + 60)
    samples = scrape(server)
    assert value(samples, "losslessd_history_write_ok") == 0
    assert value(samples, "losslessd_history_backlog_rows") == 17
    assert value(samples, "losslessd_alerts_total", sink="webhook", outcome="dropped") == 1
    assert value(samples, "losslessd_config_last_reload_successful") == 0
    assert value(samples, "losslessd_config_last_reload_success_timestamp_seconds") == T0


def test_each_metrics_has_its_own_registry(served):
    metrics, _, server = served
    other = Metrics(__version__)  # a second instance in one process must not clash with the first
    other.poll_done("spine9", True, 0.1)
    metrics.poll_done("leaf1", True, 0.1)
    samples = scrape(server)
    assert value(samples, "losslessd_up", device="leaf1") == 1
    assert value(samples, "losslessd_up", device="spine9") is None


def test_gzip_and_openmetrics_negotiation(served):
    metrics, _, server = served
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 10}))
    status, headers, body = request(server, "/metrics", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert 'losslessd_pfc_rx_frames_total{device="leaf1",port="Ethernet0",priority="3"} 10' in gzip.decompress(
        body).decode()

    status, headers, body = request(server, "/metrics", headers={"Accept": "application/openmetrics-text"})
    assert headers["Content-Type"].startswith("application/openmetrics-text")
    assert body.decode().endswith("# EOF\n")


def test_a_scrape_can_ask_for_some_families_only(served):
    """?name[]= (as Prometheus federation and node_exporter take it) leaves the rest out, the raw
    counters too unless one of them is named."""
    metrics, _, server = served
    metrics.counters(reading("leaf1", {Key("Ethernet0", monitor.PFC_RX, 3): 10}))
    metrics.poll_done("leaf1", True, 0.1)
    status, _, body = request(server, "/metrics?name[]=losslessd_up&name%5B%5D=losslessd_polls_total")
    names = {s.name for f in text_string_to_metric_families(body.decode()) for s in f.samples}
    assert status == 200 and names == {"losslessd_up", "losslessd_polls_total"}
    _, _, body = request(server, "/metrics?name[]=losslessd_pfc_rx_frames_total")
    samples = [s for f in text_string_to_metric_families(body.decode()) for s in f.samples]
    assert [(s.name, s.value) for s in samples] == [("losslessd_pfc_rx_frames_total", 10)]


def test_probes_answer_503_until_true(served):
    _, flags, server = served
    assert request(server, "/-/healthy")[0] == 200
    assert request(server, "/-/ready")[0] == 503
    flags.ready = True
    status, _, body = request(server, "/-/ready")
    assert status == 200 and body == b"losslessd is ready.\n"
    flags.healthy = False
    assert request(server, "/-/healthy")[0] == 503
    status, headers, body = request(server, "/-/ready", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_reload_reports_the_callbacks_answer(served):
    _, flags, server = served
    status, _, body = request(server, "/-/reload", method="POST")
    assert (status, body) == (200, b"settings reloaded\n")
    assert flags.reload_threads and flags.reload_threads[0] != threading.main_thread().name

    flags.reload_result = (False, "losslessd.yaml:4: poll.snmp_interval_s: -1 is less than the minimum of 0")
    status, _, body = request(server, "/-/reload", method="POST")
    assert status == 400 and body.startswith(b"losslessd.yaml:4: ")

    flags.reload_result = RuntimeError("boom")  # a broken callback answers 500 and the server keeps serving
    assert request(server, "/-/reload", method="POST")[0] == 500
    assert request(server, "/-/healthy")[0] == 200


def test_wrong_method_and_unknown_path(served):
    _, flags, server = served
    status, headers, _ = request(server, "/-/reload")
    assert status == 405 and headers["Allow"] == "POST, PUT"
    assert flags.reload_threads == []  # a GET never reloads
    assert request(server, "/metrics", method="POST")[0] == 405
    assert request(server, "/nope")[0] == 404
    assert request(server, "/metrics/extra")[0] == 404


def test_close_releases_the_port():
    server = Served(Metrics(__version__), Flags())
    assert server.face.host == "127.0.0.1"
    port = server.port
    server.close()
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_a_taken_port_raises_oserror(served):
    _, _, server = served
    with pytest.raises(OSError):
        Served(Metrics(__version__), Flags(), port=server.port)
