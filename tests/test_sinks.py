"""Alert sinks against a real HTTP receiver on 127.0.0.1 (good, failing, slow, gone), and the JSON logs."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from losslessd import __version__
from losslessd.credentials import Secret
from losslessd.daemon import logs
from losslessd.daemon.metrics import Metrics
from losslessd.daemon.settings import Webhook
from losslessd.daemon.sinks import LogSink, Sinks, WebhookError, WebhookSink
from losslessd.monitor import Event

T0 = 1_700_000_000.0
TOKEN = "Bearer tok-3f9a1c"  # what the header's environment variable would hold


FLOOD_CAP = 512 * 1024 * 1024  # where the receiver's endless answer stops if the client never hangs up


class Receiver:
    """A webhook receiver that answers each POST per ``plan`` (status codes, or "slow" to stall)."""

    def __init__(self):
        self.plan: list[int | str] = []
        self.requests: list[tuple[dict, dict]] = []  # (headers, JSON body) in arrival order
        self.release = threading.Event()  # lets stalled requests finish at teardown
        self.flooded = 0  # bytes of an endless answer written before the client hung up
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.requests.append((dict(self.headers), body))
                action = receiver.plan.pop(0) if receiver.plan else 200
                if action == "slow":
                    receiver.release.wait(10)
                    action = 200
                if action == "flood":  # 200, then a body without end until the client hangs up
                    self.send_response(200)
                    self.end_headers()
                    chunk = b"x" * 65536
                    try:
                        while receiver.flooded < FLOOD_CAP:
                            self.wfile.write(chunk)
                            receiver.flooded += len(chunk)
                    except OSError:  # the client closed the connection
                        pass
                    return
                self.send_response(action)
                if action in (301, 302, 307):
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/T0KEN-IN-PATH"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def json_log():
    """The daemon's JSON logging into a buffer; the root logger is put back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    buffer = io.StringIO()
    logs.configure("debug", stream=buffer)
    yield buffer
    root.handlers[:] = handlers
    root.setLevel(level)


def lines(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def storm(start: float = T0) -> Event:
    return Event(kind="pfc_storm", device="leaf1", port="Ethernet0", priority=3, start_unix_s=start,
                 message="pause frames keep arriving and the queue does not drain",
                 numbers={"pfc_rx_per_s": 9000.0, "tx_per_s": 0.0})


def webhook(receiver: Receiver, **kwargs) -> WebhookSink:
    kwargs = {"timeout_s": 2.0, "retries": 2, "backoff_base_s": 0.01,
              "headers": {"Authorization": Secret(TOKEN, "environment variable ALERT_TOKEN")}} | kwargs
    return WebhookSink(receiver.url, **kwargs)


def alerts(metrics: Metrics, sink: str = "webhook") -> dict[str, float]:
    """losslessd_alerts_total of one sink, by outcome."""
    return {s.labels["outcome"]: s.value for family in metrics.registry.collect() if family.name == "losslessd_alerts"
            for s in family.samples if s.labels["sink"] == sink}


def test_webhook_posts_each_change_as_json_with_the_secret_header(receiver):
    metrics = Metrics(__version__)

    async def main():
        sinks = Sinks([webhook(receiver)], metrics=metrics)
        event = storm()
        await sinks.send(event, "start")
        event.end_unix_s = T0 + 42
        await sinks.send(event, "end")
        await sinks.close()
        return event

    event = asyncio.run(main())
    assert [body["change"] for _, body in receiver.requests] == ["start", "end"]
    (headers, start), (_, end) = receiver.requests
    assert start["id"] == end["id"] == event.id
    assert (start["kind"], start["device"], start["port"], start["priority"]) == ("pfc_storm", "leaf1", "Ethernet0", 3)
    assert start["numbers"] == {"pfc_rx_per_s": 9000.0, "tx_per_s": 0.0}
    assert (start["end_unix_s"], end["end_unix_s"]) == (None, T0 + 42)  # each POST shows the event as it was then
    assert headers["Authorization"] == TOKEN and headers["Content-Type"] == "application/json"
    assert alerts(metrics) == {"sent": 2}


def test_a_webhook_answer_without_end_is_not_read(receiver):
    """A receiver (or what answers at its address) that sends 200 and then a body without end: the sink read it
    whole, the timeout being per read (a receiver sending fast never hits it), into the daemon's memory; the
    status is all it needs, and the connection is closed after it."""
    receiver.plan = ["flood"]
    metrics = Metrics(__version__)

    async def main():
        sinks = Sinks([webhook(receiver)], metrics=metrics)
        await sinks.send(storm(), "start")
        await sinks.close(timeout_s=60)

    asyncio.run(main())
    assert alerts(metrics) == {"sent": 1}
    assert receiver.flooded < 64 * 1024 * 1024, receiver.flooded  # what the sockets' buffers took, not the body


def test_webhook_retries_a_500_then_delivers(receiver, json_log):
    receiver.plan = [500, 503]
    metrics = Metrics(__version__)

    async def main():
        sinks = Sinks([webhook(receiver)], metrics=metrics)
        await sinks.send(storm(), "start")
        await sinks.close()

    asyncio.run(main())
    assert len(receiver.requests) == 3
    assert alerts(metrics) == {"sent": 1}
    tries = [line["msg"] for line in lines(json_log) if line["logger"] == "losslessd.daemon.sinks"]
    where = f"http://127.0.0.1:{receiver.server.server_address[1]}"
    assert tries == [f"webhook {where}: HTTP 500 (try 1 of 3)", f"webhook {where}: HTTP 503 (try 2 of 3)"]


@pytest.mark.parametrize("status", [400, 404, 302])
def test_webhook_does_not_retry_what_retrying_cannot_fix(receiver, status):
    receiver.plan = [status]
    metrics = Metrics(__version__)

    async def main():
        sinks = Sinks([webhook(receiver)], metrics=metrics)
        await sinks.send(storm(), "start")
        await sinks.close()

    asyncio.run(main())
    assert len(receiver.requests) == 1  # a 3xx is not followed either: it would turn the POST into a GET
    assert alerts(metrics) == {"dropped": 1}


def test_a_slow_webhook_times_out_and_never_holds_up_the_log_sink(receiver, json_log):
    receiver.plan = ["slow", "slow"]
    metrics = Metrics(__version__)

    async def main():
        sinks = Sinks([webhook(receiver, timeout_s=0.5, retries=1), LogSink()], metrics=metrics)
        await sinks.send(storm(), "start")
        while not (receiver.requests and alerts(metrics, "log")):  # the webhook's first POST stalls at the receiver
            await asyncio.sleep(0.005)
        webhook_done, log_done = alerts(metrics), alerts(metrics, "log")
        logged_early = [line for line in lines(json_log) if line["logger"] == "losslessd.daemon.sinks"
                        and line["msg"].startswith("event start")]
        await sinks.close(timeout_s=10)
        return webhook_done, log_done, logged_early

    webhook_done, log_done, logged_early = asyncio.run(asyncio.wait_for(main(), 60))
    assert webhook_done == {} and log_done == {"sent": 1} and len(logged_early) == 1
    assert logged_early[0]["kind"] == "pfc_storm" and logged_early[0]["event_id"] == storm().id
    assert logged_early[0]["level"] == "warning" and logged_early[0]["numbers"] == {"pfc_rx_per_s": 9000.0,
                                                                                    "tx_per_s": 0.0}
    assert len(receiver.requests) == 2  # one try and one retry, both timed out
    assert alerts(metrics) == {"dropped": 1}
    gave_up = [line for line in lines(json_log) if line["msg"].startswith("alert sink webhook dropped start")]
    assert len(gave_up) == 1 and "gave up after 2 tries" in gave_up[0]["msg"] and gave_up[0]["device"] == "leaf1"


class Trickler:
    """A receiver that takes each POST whole, then writes its answer's head a byte every ``gap_s`` (under the
    client's socket timeout, so no single read times out); records how many bytes each connection got before the
    client hung up or the test ended (None: the whole answer went out)."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    def __init__(self, gap_s: float):
        self.gap_s = gap_s
        self.sent: list[int | None] = []
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/hook"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        self.sock.settimeout(0.05)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(4096)
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                body = head.split(b"\r\n\r\n", 1)[1]
                while len(body) < length:
                    body += conn.recv(4096)
                sent: int | None = None
                for i in range(len(self.ANSWER)):
                    try:
                        conn.sendall(self.ANSWER[i:i + 1])
                    except OSError:  # the client hung up
                        sent = i
                        break
                    if self.stop.wait(self.gap_s):  # (the test is over)
                        sent = i + 1
                        break
                self.sent.append(sent)

    def close(self):
        self.stop.set()
        self.thread.join(10)
        self.sock.close()


def test_a_receiver_trickling_its_answer_is_cut_at_the_deadline_and_the_change_retried():
    """A receiver that accepts and then sends its status line and headers a byte at a time held the sink's thread
    for as long as it liked: the socket timeout restarts with each byte. timeout_s now bounds the whole POST: each try
    is cut, retried as a timeout is, and the change dropped after the last try (the thread is free again)."""
    trickler = Trickler(gap_s=0.2)  # the answer's 55 bytes would take 11 s; each read waits 0.2 s, under the 0.6 s
    try:
        sink = WebhookSink(trickler.url, timeout_s=0.6, retries=1, backoff_base_s=0.01)
        with pytest.raises(WebhookError) as err:
            asyncio.run(asyncio.wait_for(sink.send(storm(), "start"), 60))
    finally:
        trickler.close()
    assert "gave up after 2 tries" in str(err.value)
    # both tries reached the receiver, and each was cut before the answer's head was whole
    assert len(trickler.sent) == 2 and all(n is not None and n < len(Trickler.ANSWER) for n in trickler.sent)


def test_a_full_queue_drops_at_once_instead_of_blocking(receiver, json_log):
    receiver.plan = ["slow"] * 10
    metrics = Metrics(__version__)

    async def main():
        sinks = Sinks([webhook(receiver, timeout_s=5, retries=0)], metrics=metrics, queue_size=2)
        for n in range(5):  # nothing in send() waits: the worker has not even started yet
            await sinks.send(storm(start=T0 + n), "start")
        dropped_before_close = alerts(metrics).get("dropped")
        receiver.release.set()
        await sinks.close(timeout_s=10)
        return dropped_before_close

    assert asyncio.run(main()) == 3
    assert len(receiver.requests) == 2
    behind = [line for line in lines(json_log) if "changes behind" in line["msg"]]
    assert len(behind) == 3 and behind[0]["level"] == "error" and behind[0]["sink"] == "webhook"


def test_a_webhook_that_is_gone_is_logged_without_its_secrets(json_log):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/hooks/T0KEN-IN-PATH"
    metrics = Metrics(__version__)

    async def main():
        sink = WebhookSink(url, timeout_s=1, retries=1, backoff_base_s=0.01,
                           headers={"Authorization": Secret(TOKEN, "environment variable ALERT_TOKEN")})
        logging.getLogger("losslessd.test").info("configured", extra={"sink": sink.where, "headers": sink.headers})
        sinks = Sinks([sink], metrics=metrics)
        await sinks.send(storm(), "start")
        await sinks.close()

    asyncio.run(main())
    assert alerts(metrics) == {"dropped": 1}
    text = json_log.getvalue()
    assert "ConnectionRefusedError" in text
    for secret in (TOKEN, "T0KEN-IN-PATH"):
        assert secret not in text
    configured = next(line for line in lines(json_log) if line["msg"] == "configured")
    assert configured["sink"] == f"http://127.0.0.1:{port}" and configured["headers"] == logs.MASK


def test_webhook_url_checked_and_named_without_credentials():
    with pytest.raises(ValueError, match="http:// or https://"):
        WebhookSink("ftp://alerts.example/hook")
    assert WebhookSink("https://bot:pw-in-url@alerts.example:8443/hook/T0KEN").where == "https://alerts.example:8443"


@pytest.mark.parametrize("url", ["https://alerts.example/hook/caf\u00e9-T0KEN", "https://alerts.example/\x85T0KEN",
                                 "https://alerts.example:99999/T0KEN"])
def test_webhook_url_from_the_api_gets_the_settings_check(url):
    # a URL the daemon's --check refuses (http.client encodes the request line as ASCII: every POST failed) is refused
    # by WebhookSink built from the Python API too, with the settings' own phrase, never naming the URL (a token)
    with pytest.raises(ValueError) as api:
        WebhookSink(url)
    with pytest.raises(ValueError) as settings:
        Webhook(url=url)
    assert "T0KEN" not in str(api.value)
    head, sep, tail = str(api.value).partition("webhook URL ")
    assert sep and tail in str(settings.value)


def test_json_log_lines(json_log):
    log = logging.getLogger("losslessd.daemon.service")
    log.info("poll of %s took %.1f s", "leaf1", 0.25, extra={"device": "leaf1", "port": "Ethernet0"})
    log.warning("login with %s", Secret("hunter2", "file /run/secrets/leaf1"), extra={"password": "hunter2"})
    try:
        int("x")
    except ValueError:
        log.exception("poll crashed", extra={"device": "leaf2"})
    first, second, third = lines(json_log)
    assert first["msg"] == "poll of leaf1 took 0.2 s" and first["level"] == "info"
    assert (first["logger"], first["device"], first["port"]) == ("losslessd.daemon.service", "leaf1", "Ethernet0")
    assert first["ts"].endswith("Z") and abs(time.time() - _unix(first["ts"])) < 60
    assert second["msg"] == "login with <secret from file /run/secrets/leaf1>" and second["password"] == logs.MASK
    assert "hunter2" not in json_log.getvalue()
    assert third["level"] == "error" and "ValueError: invalid literal for int() with base 10: 'x'" in third["exc"]
    assert third["exc"].startswith("Traceback")


def test_configure_twice_keeps_one_handler_and_sets_the_level(json_log):
    log = logging.getLogger("losslessd.test")
    log.debug("seen at debug")
    logs.configure("warning", stream=json_log)  # a reload that changes the level
    log.info("not seen at warning")
    log.warning("seen once")
    assert [line["msg"] for line in lines(json_log)] == ["seen at debug", "seen once"]
    with pytest.raises(ValueError, match="log level 'loud'"):
        logs.configure("loud")


def test_libraries_speak_at_info_only_when_they_warn_and_everything_shows_at_debug(json_log, monkeypatch):
    """paramiko logs every SSH transport step at info: 132 of a daemon's 137 info lines in 40 s."""
    chatty, ours = logging.getLogger("paramiko.transport"), logging.getLogger("losslessd.daemon.service")
    # `pull` and `tune` silence paramiko for their own process; run in this one before, they left it silenced.
    paramiko = logging.getLogger("paramiko")
    monkeypatch.setattr(paramiko, "level", paramiko.level)  # restored after the test
    paramiko.setLevel(logging.NOTSET)  # (setLevel also clears the loggers' cached effective levels)
    logs.configure("info", stream=json_log)
    chatty.info("Connected (version 2.0, client OpenSSH_9.2)")
    chatty.warning("Oops, unhandled type 3")
    logging.getLogger("pysnmp").error("engine failed")
    ours.info("poll of leaf1 failed")
    assert [(line["logger"], line["msg"]) for line in lines(json_log)] == [
        ("paramiko.transport", "Oops, unhandled type 3"), ("pysnmp", "engine failed"),
        ("losslessd.daemon.service", "poll of leaf1 failed")]
    logs.configure("debug", stream=json_log)
    chatty.info("Authentication (password) successful!")
    assert lines(json_log)[-1]["msg"] == "Authentication (password) successful!"



def test_a_library_error_is_one_line_its_traceback_left_out(json_log, monkeypatch):
    """A device that accepts TCP and never sends its SSH banner: paramiko's transport logs its error and then the
    traceback a line per record (Transport._log of util.tb_strings), ~25 error lines per try, so the log repeated the
    daemon's own warning as a wall of frames. The library still speaks: its message, one line, no traceback."""
    import paramiko.util

    transport = logging.getLogger("paramiko.transport")
    monkeypatch.setattr(logging.getLogger("paramiko"), "level", logging.NOTSET)
    logs.configure("info", stream=json_log)
    for _ in range(2):  # two tries
        try:
            try:
                raise EOFError()
            except EOFError as exc:
                raise paramiko.SSHException("Error reading SSH protocol banner") from exc
        except paramiko.SSHException as exc:
            transport.error("Exception (client): %s", exc)
            for line in paramiko.util.tb_strings():  # (as Transport._log logs a list: a record per line)
                transport.error(line)
        logging.getLogger("losslessd.daemon.worker").warning("leaf9: ssh: Error reading SSH protocol banner")
    try:
        raise OSError("connection reset")
    except OSError:
        logging.getLogger("netmiko").exception("read failed")
    logging.getLogger("paramiko.transport").warning("Oops, unhandled type 3")
    banner = "Exception (client): Error reading SSH protocol banner"
    assert [(line["logger"], line["msg"], "exc" in line) for line in lines(json_log)] == [
        ("paramiko.transport", banner, False),
        ("losslessd.daemon.worker", "leaf9: ssh: Error reading SSH protocol banner", False)] + [
        ("losslessd.daemon.worker", "leaf9: ssh: Error reading SSH protocol banner", False),
        ("paramiko.transport", f"{banner} (repeated once)", False),  # the second try's line (test below)
        ("netmiko", "read failed", False), ("paramiko.transport", "Oops, unhandled type 3", False)]


def test_a_library_line_repeated_at_each_retry_is_written_once_with_its_count(json_log, monkeypatch):
    """paramiko logs the same error at each retry of a device (and each device) that never sends its banner: a log of
    the same line again and again. A library line identical to the library line before it is counted; the run is one
    more line, `(repeated N times)`, when another library line comes or the log closes. losslessd's own lines (which
    say the device) pass between them and never join a run."""
    transport = logging.getLogger("paramiko.transport")
    monkeypatch.setattr(logging.getLogger("paramiko"), "level", logging.NOTSET)
    logs.configure("info", stream=json_log)
    for n in range(5):
        transport.error("Exception (client): %s", "Error reading SSH protocol banner")
        logging.getLogger("losslessd.daemon.worker").warning("leaf%d: ssh: Error reading SSH protocol banner", n)
    transport.warning("Oops, unhandled type 3")  # another library line: the run is written before it
    transport.warning("Oops, unhandled type 3")
    transport.error("Exception (client): %s", "Error reading SSH protocol banner")
    transport.error("Exception (client): %s", "Error reading SSH protocol banner")
    logs.configure("info", stream=json_log)  # a reload: the run the old handler counted is written
    said = [(line["logger"], line["msg"], line.get("repeated")) for line in lines(json_log)]
    banner = "Exception (client): Error reading SSH protocol banner"
    assert said == [("paramiko.transport", banner, None)] + [
        ("losslessd.daemon.worker", f"leaf{n}: ssh: Error reading SSH protocol banner", None) for n in range(5)] + [
        ("paramiko.transport", f"{banner} (repeated 4 times)", 4),
        ("paramiko.transport", "Oops, unhandled type 3", None),
        ("paramiko.transport", "Oops, unhandled type 3 (repeated once)", 1),
        ("paramiko.transport", banner, None), ("paramiko.transport", f"{banner} (repeated once)", 1)]


def test_a_run_past_its_minute_is_written_with_the_next_line_of_any_kind(json_log, monkeypatch):
    """A run of one library line was written past its minute only when that same line came once more: a device that
    stopped failing left its count unwritten while losslessd's own lines went on. The first line past the minute,
    losslessd's own included, writes it first; inside the minute an own line leaves the run counting."""
    monkeypatch.setattr(logging.getLogger("paramiko"), "level", logging.NOTSET)
    logs.configure("info", stream=json_log)
    start = 1_700_000_000.0
    banner = "Exception (client): Error reading SSH protocol banner"

    def record(name: str, level: int, msg: str, after_s: float) -> None:  # (the record's time: set, not waited for)
        monkeypatch.setattr(logs, "_monotonic", lambda: after_s)
        logging.getLogger(name).handle(logging.makeLogRecord({"name": name, "levelno": level, "msg": msg,
                                                              "levelname": logging.getLevelName(level),
                                                              "created": start + after_s}))

    for n in range(3):
        record("paramiko.transport", logging.ERROR, banner, n)
    record("losslessd.daemon.worker", logging.WARNING, "leaf1: ssh: no banner", 30)
    record("paramiko.transport", logging.ERROR, banner, 31)
    record("losslessd.daemon.worker", logging.WARNING, "leaf1: polled", logs.REPEAT_WINDOW_S)
    said = [(line["logger"], line["msg"], line.get("repeated")) for line in lines(json_log)]
    assert said == [("paramiko.transport", banner, None), ("losslessd.daemon.worker", "leaf1: ssh: no banner", None),
                    ("paramiko.transport", f"{banner} (repeated 3 times)", 3),
                    ("losslessd.daemon.worker", "leaf1: polled", None)]


def test_a_run_past_its_minute_is_written_at_the_next_tick_when_nothing_else_is_logged(json_log, monkeypatch):
    """A device that failed three times and then went quiet, in a log with nothing else to say: its run was written
    only at the next line or at close (hours later, or never before a kill -9). The loops tick every second: the first
    tick past the run's minute writes it, an earlier one does not, and the same line after it starts a run of its own
    (written, not counted into the old one). Times are the records' and the tick's, set, not waited for."""
    _a_run_is_written_at_the_first_tick_past_its_minute(json_log, monkeypatch, step_s=0.0)


def test_a_run_is_timed_by_the_monotonic_clock_not_by_a_wall_clock_stepped_back(json_log, monkeypatch):
    """The window was timed by the records' ``created``, the wall clock: NTP stepping it back an hour in a run kept
    the run counted and unwritten for that hour (each tick and record "before" the run's start). Now by the
    monotonic clock: the same minute, the same lines, whatever the wall clock did."""
    _a_run_is_written_at_the_first_tick_past_its_minute(json_log, monkeypatch, step_s=-3600.0)


def _a_run_is_written_at_the_first_tick_past_its_minute(json_log, monkeypatch, step_s: float) -> None:
    """Records and ticks at monotonic times 0, 1, 2, 59.5, 60, 61, 62, 63, 64; the wall clock steps by ``step_s``
    after the first record."""
    monkeypatch.setattr(logging.getLogger("paramiko"), "level", logging.NOTSET)
    logs.configure("info", stream=json_log)
    start = 1_700_000_000.0
    banner = "Exception (client): Error reading SSH protocol banner"

    def record(after_s: float) -> None:
        monkeypatch.setattr(logs, "_monotonic", lambda: after_s)
        logging.getLogger("paramiko.transport").handle(logging.makeLogRecord({
            "name": "paramiko.transport", "levelno": logging.ERROR, "levelname": "ERROR", "msg": banner,
            "created": start + after_s + (step_s if after_s else 0.0)}))

    for n in range(3):
        record(n)
    logs.tick(logs.REPEAT_WINDOW_S - 0.5)  # (the monotonic clock's time)
    assert [line.get("repeated") for line in lines(json_log)] == [None]
    logs.tick(logs.REPEAT_WINDOW_S)
    logs.tick(logs.REPEAT_WINDOW_S + 1)  # (once)
    record(logs.REPEAT_WINDOW_S + 2)
    record(logs.REPEAT_WINDOW_S + 3)
    logs.tick(logs.REPEAT_WINDOW_S + 4)  # inside the new run's window: counted, not written
    said = [(line["msg"], line.get("repeated"), _unix(line["ts"]) - start) for line in lines(json_log)]
    assert said == [(banner, None, 0.0), (f"{banner} (repeated 2 times)", 2, 2.0 + step_s),
                    (banner, None, logs.REPEAT_WINDOW_S + 2 + step_s)]


def _unix(ts: str) -> float:
    from datetime import datetime
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


@pytest.mark.parametrize("cut", [True, False], ids=["losslessd-cut-it", "the-device-dropped-it"])
def test_what_paramiko_says_of_a_session_losslessd_cut_is_not_an_error_and_of_one_a_device_dropped_is(
        json_log, monkeypatch, cut):
    """A session waiting on a device (here: its SSH banner) that losslessd cuts (Guard.abort: a SIGTERM's stop, a
    poll's timeout): paramiko's transport thread logged the cut at error level ("Exception (client): Error reading SSH
    protocol banner", "Socket exception: Bad file descriptor (9)"), once per session a stop cut, though the stop was
    asked for. Now what it says in a thread whose session losslessd cut stays below warning; the same error for a
    device that drops the session by itself is still an error. Real paramiko over a real TCP connection."""
    import paramiko

    from losslessd.collect.ssh import Guard
    from losslessd.credentials import Secret
    from losslessd.inventory import Host
    from losslessd.platforms import PLATFORMS

    monkeypatch.setattr(logging.getLogger("paramiko"), "level", logging.NOTSET)
    logs.configure("info", stream=json_log)
    with socket.create_server(("127.0.0.1", 0)) as server:  # a device that accepts TCP and says nothing yet
        host = Host("leaf1", "127.0.0.1", server.getsockname()[1], PLATFORMS["sonic"], "admin", Secret("x", "test"),
                    None, "linux", (), (), None)
        guard = Guard(host, 5.0)
        transport = paramiko.Transport(guard.connect())
        device, _ = server.accept()
        transport.start_client(event=threading.Event())  # its thread waits for the banner
        wait_s = time.monotonic() + 10
        while guard._metered.reader is None and time.monotonic() < wait_s:  # (it reads: the thread is known)
            time.sleep(0.01)
        if cut:
            guard.abort()
        else:
            device.close()  # the device goes away by itself
        transport.join(10)
        device.close()
        guard.close()
    said = [(line["level"], line["logger"], line["msg"]) for line in lines(json_log)]
    if cut:
        assert said == []
    else:
        assert [line for line in said if line[0] == "error" and line[1] == "paramiko.transport" and line[2].startswith(
            "Exception (client): Error reading SSH protocol banner")]  # ("[Errno 104] Connection reset by peer")
