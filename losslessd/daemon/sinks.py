"""Alert sinks: where each event change goes besides history and /metrics.

``LogSink`` writes it to the log; ``WebhookSink`` POSTs it as JSON. ``Sinks`` fans changes out through
one bounded queue per sink, so a slow or dead webhook never delays polling nor the other sinks: when a
sink's queue is full the change is dropped at once and logged. The webhook retries network errors,
timeouts, 429 and 5xx with exponential backoff and jitter, then gives up on that change (logged). Its
``timeout_s`` bounds each POST whole (connect, send, the answer's status and headers): a socket timeout
alone restarts with each byte, so a receiver that trickles its answer a byte a second held the sink's
thread for as long as it liked.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import http.client
import json
import logging
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Literal, Protocol
from urllib.parse import urlsplit

from losslessd.collect.pull import backoff
from losslessd.credentials import Secret
from losslessd.daemon.metrics import Metrics
from losslessd.daemon.settings import webhook_url
from losslessd.monitor import Event

log = logging.getLogger(__name__)

Change = Literal["start", "update", "end"]
QUEUE_SIZE = 1000  # changes waiting per sink; at one change per event start/end that is a long outage
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 30.0
LEVELS = {"info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class Sink(Protocol):
    name: str

    async def send(self, event: Event, change: Change) -> None: ...


def payload(event: Event, change: Change) -> dict:
    """The JSON body of one change: the event's fields plus its stable id and what changed."""
    return {"id": event.id, "change": change, **dataclasses.asdict(event)}


class LogSink:
    """Each change as a log record at the event's severity, its fields as JSON log fields."""

    name = "log"

    async def send(self, event: Event, change: Change) -> None:
        fields = payload(event, change)
        log.log(LEVELS[event.severity], "event %s %s: %s", change, event.kind, event.message,
                extra={f"event_{k}" if k in ("id", "message") else k: v for k, v in fields.items()})


class WebhookError(Exception):
    """The receiver refused or never took a change."""


class WebhookSink:
    """POST each change as JSON. Header values (Authorization tokens) are Secrets and never logged; log
    lines name the receiver by scheme, host and port only, since some webhook URLs carry a token."""

    name = "webhook"

    def __init__(self, url: str, timeout_s: float = 5.0, retries: int = 3,
                 headers: Mapping[str, Secret | str] | None = None, *, backoff_base_s: float = BACKOFF_BASE_S):
        parts = urlsplit(webhook_url(url))  # (the settings' check: a non-ASCII URL failed every POST)
        self.url = url
        self.where = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
        self.timeout_s = timeout_s
        self.retries = retries
        self.headers = dict(headers or {})
        self.backoff_base_s = backoff_base_s

    async def send(self, event: Event, change: Change) -> None:
        """Deliver one change or raise WebhookError after the last try; ``Sinks`` counts the tries."""
        body = json.dumps(payload(event, change), default=str).encode()
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(backoff(attempt, self.backoff_base_s, BACKOFF_CAP_S))
            try:
                await asyncio.to_thread(self._post, body)
                return
            except _Permanent as exc:
                raise WebhookError(str(exc)) from None
            except WebhookError as exc:
                log.warning("webhook %s: %s (try %d of %d)", self.where, exc, attempt + 1, self.retries + 1,
                            extra={"event_id": event.id})
        raise WebhookError(f"gave up after {self.retries + 1} tries")

    def _post(self, body: bytes) -> None:
        headers = {"Content-Type": "application/json", "User-Agent": "losslessd"}
        headers.update({k: v.reveal() if isinstance(v, Secret) else v for k, v in self.headers.items()})
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        deadline = _Deadline(self.timeout_s)
        # No redirects: urllib would turn a redirected POST into a body-less GET. The connections are the deadline's.
        opener = urllib.request.build_opener(_NoRedirect, _Http(deadline), _Https(deadline))
        try:
            # The status is the answer: the body is never read (an endless one was read whole, the timeout being per
            # read, into the daemon's memory); closing the response closes the connection (urllib asks for close).
            with deadline, opener.open(request, timeout=self.timeout_s):
                pass
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 429 or exc.code >= 500:
                raise WebhookError(f"HTTP {exc.code}") from None
            raise _Permanent(f"HTTP {exc.code}; not retried") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:  # refused, timed out, TLS, garbled
            if deadline.passed:
                raise WebhookError(f"no whole answer within {self.timeout_s:g} s (timeout_s bounds the whole POST): "
                                   "connection cut") from None
            reason = getattr(exc, "reason", exc)
            raise WebhookError(f"{type(reason).__name__}: {reason}") from None


class _Deadline:
    """One POST's whole time (``with``: from entering to leaving): once it has passed, its connection's socket is shut
    down from a timer thread, which ends any read or write blocked on it (a receiver trickling its headers)."""

    def __init__(self, seconds: float):
        self.passed = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def connect(self, address: tuple[str, int], timeout: float | None = None,
                source_address: tuple[str, int] | None = None) -> socket.socket:
        """socket.create_connection as http.client calls it, the socket kept to be cut (cut at once when the deadline
        passed meanwhile)."""
        sock = socket.create_connection(address, timeout, source_address)
        with self._lock:
            self._sock = sock
            if self.passed:
                _shut(sock)
        return sock

    def _cut(self) -> None:
        with self._lock:
            self.passed = True
            if self._sock is not None:
                _shut(self._sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # (already closed)
        sock.shutdown(socket.SHUT_RDWR)


def _connection(http_class, deadline: _Deadline, *args, **kwargs):
    """``http_class``'s connection (http.client), its TCP socket made by ``deadline`` (TLS is layered on it)."""
    conn = http_class(*args, **kwargs)
    conn._create_connection = deadline.connect
    return conn


class _DeadlineOpen:
    """An urllib handler whose connections' sockets are the deadline's (to cut)."""

    def __init__(self, deadline: _Deadline):
        super().__init__()
        self.deadline = deadline

    def do_open(self, http_class, req, **http_conn_args):
        return super().do_open(  # type: ignore[misc]  # (a mixin: the handler after it has do_open)
            functools.partial(_connection, http_class, self.deadline), req, **http_conn_args)


class _Http(_DeadlineOpen, urllib.request.HTTPHandler):
    pass


class _Https(_DeadlineOpen, urllib.request.HTTPSHandler):
    pass


class _Permanent(WebhookError):
    """A 4xx other than 429 (or a redirect): trying again would not help."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx then surfaces as an HTTPError


class Sinks:
    """Fan-out with one bounded queue and worker task per sink. ``send`` never waits on a sink."""

    def __init__(self, sinks: list[Sink], *, metrics: Metrics | None = None, queue_size: int = QUEUE_SIZE):
        self.sinks = list(sinks)
        self.metrics = metrics
        self.queue_size = queue_size
        self._queues: list[asyncio.Queue] = []
        self._workers: list[asyncio.Task] = []

    async def send(self, event: Event, change: Change) -> None:
        """Queue a snapshot of the change for every sink (the detectors keep mutating open events)."""
        if not self._workers:
            self._start()
        snapshot = dataclasses.replace(event, numbers=dict(event.numbers))
        for sink, queue in zip(self.sinks, self._queues):
            try:
                queue.put_nowait((snapshot, change))
            except asyncio.QueueFull:
                self._count(sink, "dropped")
                log.error("alert sink %s is %d changes behind; dropped %s %s", sink.name, queue.qsize(), change,
                          event.kind, extra={"sink": sink.name, "event_id": event.id, "device": event.device})

    async def close(self, timeout_s: float = 5.0) -> None:
        """Give the sinks ``timeout_s`` to drain their queues (on SIGTERM), then stop the workers."""
        if self._queues:
            drained = asyncio.gather(*(queue.join() for queue in self._queues))
            try:
                await asyncio.wait_for(drained, timeout_s)
            except asyncio.TimeoutError:
                left = sum(queue.qsize() for queue in self._queues)
                log.warning("stopping with %d alert changes not delivered", left)
        for task in self._workers:
            task.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers, self._queues = [], []

    def _start(self) -> None:
        self._queues = [asyncio.Queue(self.queue_size) for _ in self.sinks]
        self._workers = [asyncio.create_task(self._work(sink, queue), name=f"losslessd-sink-{sink.name}")
                         for sink, queue in zip(self.sinks, self._queues)]

    async def _work(self, sink: Sink, queue: asyncio.Queue) -> None:
        while True:
            event, change = await queue.get()
            try:
                await sink.send(event, change)
                self._count(sink, "sent")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a sink's failure is logged, never stops the others
                self._count(sink, "dropped")
                log.error("alert sink %s dropped %s %s: %s", sink.name, change, event.kind, exc,
                          extra={"sink": sink.name, "event_id": event.id, "device": event.device})
            finally:
                queue.task_done()

    def _count(self, sink: Sink, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.alert(sink.name, outcome)
