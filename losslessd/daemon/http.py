"""The daemon's HTTP face: /metrics and the lifecycle paths Prometheus itself serves
(GET|HEAD /-/healthy, GET|HEAD /-/ready, POST|PUT /-/reload), on the daemon's event loop.

HTTP/1.1 is parsed by h11 (a small, strict protocol state machine), and every connection is a task
of the loop, not a thread: a client costs a socket and a few kilobytes, never a thread or a stall of
the polling. What a hostile or broken client can do is bounded:

* at most ``max_connections`` at once; when a new one arrives at the limit, the connection that has
  waited longest for a request head is dropped (a slow or idle client never locks out a scrape);
  if every slot is busy answering, up to ``max_connections`` more wait (without being read) for a
  slot for ``header_timeout_s``, and any beyond those are closed at once;
* concurrent scrapes asking for the same thing share one rendering, so a flood of /metrics requests
  costs one scrape, not one each;
* ``header_timeout_s`` to send a whole request head (also the life of an idle keep-alive
  connection); a request head over 16 KiB is refused (431), a body over 64 KiB too (413);
* what is not HTTP/1.x (HTTP/0.9, TLS bytes, a bad Content-Length) gets a 400 and the connection is
  closed; a client that stops reading its answer is cut after ``write_timeout_s``;
* every refusal is counted (``losslessd_http_refused_total{reason}``) and logged as one JSON line,
  at most ``LOG_BURST`` lines in a row, then one summary a minute; a client that hangs up early is
  no error at all.

The daemon binds it to 127.0.0.1 unless its settings say otherwise: /-/reload has no
authentication (Prometheus guards it behind --web.enable-lifecycle for the same reason).
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import unquote_plus

import h11
from prometheus_client.exposition import gzip_accepted

from ..inventory import is_loopback
from ..records import record

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 16384  # request line and headers
MAX_BODY_BYTES = 65536  # /-/reload takes no body; a larger one is refused rather than read
BACKLOG = 1024  # pending connections the kernel queues (capped by net.core.somaxconn)
# Connections taken from that queue per turn of the loop: each is a file descriptor before its task
# runs and the connection limit applies, so a burst of a thousand must not be accepted at once.
ACCEPT_BATCH = 16
WRITE_TIMEOUT_S = 30.0
GZIP_INLINE_BYTES = 65536  # larger bodies are compressed in a thread, off the loop
LOG_BURST = 20  # refusals logged one by one before they are only counted
LOG_SUMMARY_S = 60.0
READ_CHUNK = 65536

# (Accept header, the family names asked for with ?name[]=, or None for all) -> (body, content type)
Scrape = Callable[[str | None, frozenset[str] | None], Awaitable[tuple[bytes, str]]]
Reload = Callable[[], Awaitable[tuple[bool, str]]]


@dataclass(eq=False)
class _Conn:
    writer: asyncio.StreamWriter
    waiting_since: float | None = field(default_factory=time.monotonic)  # None while a request is answered


@record
class _Answer:
    status: int
    body: bytes
    content_type: str = "text/plain; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    close: bool = False


class NotLoopback(Exception):
    """The address ``host`` resolved to is not a loopback one, and ``allow_remote`` was not given."""


class HttpFace:
    """The endpoint; ``await start()`` binds it (OSError when the address is taken; NotLoopback, before it listens, on
    an address that is not a loopback one unless ``allow_remote``), ``await close()``."""

    def __init__(self, host: str, port: int, *, scrape: Scrape, healthy: Callable[[], bool],
                 ready: Callable[[], bool], reload: Reload, max_connections: int = 64,
                 header_timeout_s: float = 10.0, write_timeout_s: float = WRITE_TIMEOUT_S,
                 refused: Callable[[str], None] | None = None, allow_remote: bool = False):
        self.host, self.port = host, port
        self.allow_remote = allow_remote
        self._scrape, self._healthy, self._ready, self._reload = scrape, healthy, ready, reload
        self.max_connections = max_connections
        self.header_timeout_s = header_timeout_s
        self.write_timeout_s = write_timeout_s
        self._on_refused = refused or (lambda reason: None)
        self._conns: set[_Conn] = set()
        self._tasks: set[asyncio.Task] = set()
        self._queued = 0  # connections waiting for a slot
        self._room = asyncio.Condition()
        self._inflight: dict[tuple, asyncio.Future] = {}  # scrapes being rendered, shared by equal requests
        self._server: asyncio.base_events.Server | None = None
        self.address = host  # (once started) the address it listens on
        self.loopback = True  # (once started) whether that is a loopback one
        self._logged = 0
        self._unlogged = 0
        self._window_end = 0.0
        self._routes = {
            "/metrics": (self._metrics, ("GET", "HEAD")),
            "/-/healthy": (self._probe_healthy, ("GET", "HEAD")),
            "/-/ready": (self._probe_ready, ("GET", "HEAD")),
            "/-/reload": (self._do_reload, ("POST", "PUT")),
        }

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def connections(self) -> int:
        return len(self._conns)

    async def start(self) -> HttpFace:
        sock = await _bound(self.host, self.port)
        try:
            # (checked before listening: a host name resolves only here, and a refused address never accepts)
            self.address, self.port = sock.getsockname()[:2]
            self.loopback = bool(is_loopback(self.address))
            if not (self.loopback or self.allow_remote):
                raise NotLoopback(self.address)
            sock.setblocking(False)
            # asyncio listens with, and accepts per turn up to, its backlog argument: ACCEPT_BATCH; the
            # kernel's queue is then widened to BACKLOG on the same socket.
            self._server = await asyncio.start_server(self._accept, sock=sock, backlog=ACCEPT_BATCH, limit=READ_CHUNK)
            sock.listen(BACKLOG)
        except BaseException:
            sock.close()
            raise
        return self

    async def close(self) -> None:
        """Stop listening, end every connection, wait for their tasks."""
        if self._server is not None:
            self._server.close()
        for shared in list(self._inflight.values()):
            shared.cancel()
        for conn in list(self._conns):
            conn.writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # -- connections --------------------------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # asyncio.start_server runs each connection as a task
        self._tasks.add(task)
        conn = _Conn(writer)
        clean = False  # the exchange ended as HTTP says (answered, or the client closed): flush, then close
        try:
            if not await self._wait_for_room():
                self._refuse("busy", writer, "every connection slot is answering a request")
                return
            self._conns.add(conn)
            await self._serve(conn, reader, writer)
            clean = True
        except (ConnectionError, TimeoutError, asyncio.IncompleteReadError):
            log.debug("http client %s went away", _peer(writer))
        except asyncio.CancelledError:
            pass
        except Exception:  # a bug of ours: one JSON line with the traceback, the server goes on
            log.exception("http: unexpected error serving %s", _peer(writer))
        finally:
            self._conns.discard(conn)
            await self._close(writer, clean)
            self._tasks.discard(task)
            async with self._room:
                self._room.notify_all()

    async def _close(self, writer: asyncio.StreamWriter, clean: bool) -> None:
        """Close after the last answer is written (within the write timeout); anything else at once."""
        if clean and not writer.transport.is_closing():
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), self.write_timeout_s)
                return
            except (asyncio.TimeoutError, ConnectionError, asyncio.CancelledError):
                pass
        writer.transport.abort()

    async def _wait_for_room(self) -> bool:
        """A slot now, or after waiting (at most ``max_connections`` wait, ``header_timeout_s`` each)."""
        if self._make_room():
            return True
        if self._queued >= self.max_connections:
            return False
        self._queued += 1
        try:
            async with self._room:
                await asyncio.wait_for(self._room.wait_for(self._make_room), self.header_timeout_s)
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            self._queued -= 1

    def _make_room(self) -> bool:
        """Below the limit, or drop the connection that has waited longest for a request head."""
        if len(self._conns) < self.max_connections:
            return True
        waiting = [c for c in self._conns if c.waiting_since is not None]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c.waiting_since)
        self._conns.discard(oldest)
        self._refuse("evicted", oldest.writer, f"connection limit {self.max_connections} reached: dropped the one "
                                               "that waited longest for a request")
        oldest.writer.transport.abort()
        return True

    async def _serve(self, conn: _Conn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        http = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        while True:
            conn.waiting_since = time.monotonic()
            try:
                request = await asyncio.wait_for(self._next(http, reader, h11.Request), self.header_timeout_s)
            except asyncio.TimeoutError:
                if http.their_state is h11.IDLE and not http.trailing_data[0]:
                    return  # an idle keep-alive connection, or one that never spoke: just close it
                self._refuse("header_timeout", writer, f"no whole request head within {self.header_timeout_s:g} s")
                await self._send_error(http, writer, 408, "request head not received in time\n")
                return
            except h11.RemoteProtocolError as exc:
                status = exc.error_status_hint if exc.error_status_hint >= 400 else 400
                self._refuse("malformed" if status == 400 else f"status_{status}", writer, f"{status}: {_cut(exc)}")
                await self._send_error(http, writer, status, f"bad request: {_cut(exc)}\n")
                return
            if request is None:
                return  # the client closed
            conn.waiting_since = None
            answer = await self._answer(http, reader, writer, request)
            await self._respond(http, writer, request, answer)
            if answer.close or http.our_state is h11.MUST_CLOSE or http.their_state is not h11.DONE:
                return
            http.start_next_cycle()

    async def _next(self, http: h11.Connection, reader: asyncio.StreamReader, want: type):
        """The next h11 event of type ``want`` (None when the client closed the connection). A request
        head over MAX_HEAD_BYTES is refused (h11 bounds only what it buffers, not a head that came whole)."""
        fed = len(http.trailing_data[0])
        while True:
            event = http.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(READ_CHUNK)
                if not data and (http.their_state is not h11.IDLE or http.trailing_data[0]):
                    raise ConnectionAbortedError("the client went away in the middle of a request")
                fed += len(data)
                if want is h11.Request and fed > MAX_HEAD_BYTES + READ_CHUNK:
                    raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
                http.receive_data(data)
                continue
            if isinstance(event, h11.ConnectionClosed):
                return None
            if want is h11.Request and isinstance(event, h11.Request) and fed - len(http.trailing_data[0]) > MAX_HEAD_BYTES:
                raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
            if isinstance(event, want):
                return event
            if isinstance(event, h11.EndOfMessage) and want is h11.Data:
                return event

    async def _body(self, http: h11.Connection, reader: asyncio.StreamReader) -> int | None:
        """Read and discard the request body; its size, or None when it is over MAX_BODY_BYTES."""
        size = 0
        while True:
            event = await self._next(http, reader, h11.Data)
            if event is None or isinstance(event, h11.EndOfMessage):
                return size
            size += len(event.data)
            if size > MAX_BODY_BYTES:
                return None

    # -- answers ------------------------------------------------------------------------------------------
    async def _answer(self, http: h11.Connection, reader, writer, request: h11.Request) -> _Answer:
        method = request.method.decode("ascii", "replace")
        path = _path(request.target)
        handler, allowed = self._routes.get(path, (None, ()))
        names = {name for name, _ in request.headers}
        if b"transfer-encoding" in names and (b"content-length" in names or request.http_version == b"1.0"):
            # RFC 9112 6.1: both framings "ought to be handled as an error", and an HTTP/1.0 message with
            # Transfer-Encoding (which HTTP/1.0 has not) MUST be treated "as if the framing is faulty" (request
            # smuggling: a proxy in front that framed the body otherwise passes on a second request inside it); h11
            # took Transfer-Encoding either way.
            why = "both Transfer-Encoding and Content-Length" if b"content-length" in names else \
                "Transfer-Encoding in an HTTP/1.0 request"
            self._refuse("malformed", writer, f"400: {why}")
            return _Answer(400, f"bad request: {why}\n".encode(), close=True)
        if http.they_are_waiting_for_100_continue:
            # RFC 9110 10.1.1: a 100 (Continue), or a final answer; without it a client that waits for one before it
            # sends its body (as curl does for a second) sent none, and was answered 408 at the header timeout
            await self._write(writer, http.send(h11.InformationalResponse(status_code=100, headers=[],
                                                                          reason=b"Continue")))
        try:
            size = await asyncio.wait_for(self._body(http, reader), self.header_timeout_s)
        except asyncio.TimeoutError:
            self._refuse("body_timeout", writer, f"request body not received within {self.header_timeout_s:g} s")
            return _Answer(408, b"request body not received in time\n", close=True)
        except h11.RemoteProtocolError as exc:  # a chunked body h11 cannot frame (a bad chunk size, a long chunk line)
            self._refuse("malformed", writer, f"400: {_cut(exc)}")
            return _Answer(400, f"bad request: {_cut(exc)}\n".encode(), close=True)
        if size is None:
            self._refuse("body_too_large", writer, f"request body over {MAX_BODY_BYTES} bytes")
            return _Answer(413, b"request bodies are not taken here\n", close=True)
        if handler is None:
            return _Answer(404, b"not found; try /metrics\n")
        if method not in allowed:
            return _Answer(405, f"use {' or '.join(allowed)}\n".encode(), headers=[("Allow", ", ".join(allowed))])
        return await handler(request)

    async def _metrics(self, request: h11.Request) -> _Answer:
        headers = dict(request.headers)
        key = (_text(headers.get(b"accept")), _names(request.target))
        shared = self._inflight.get(key)
        if shared is None:
            shared = self._inflight[key] = asyncio.ensure_future(self._scrape(*key))
            shared.add_done_callback(lambda _: self._inflight.pop(key, None))
        body, content_type = await asyncio.shield(shared)  # a client that leaves does not cancel the others' scrape
        extra = []
        if gzip_accepted(_text(headers.get(b"accept-encoding")) or ""):
            # Level 1: level 9 costs ~10x the CPU for ~15 % less on /metrics.
            body = (gzip.compress(body, compresslevel=1) if len(body) < GZIP_INLINE_BYTES
                    else await asyncio.to_thread(gzip.compress, body, 1))
            extra.append(("Content-Encoding", "gzip"))
        return _Answer(200, body, content_type, extra)

    async def _probe_healthy(self, request: h11.Request) -> _Answer:
        return self._probe(self._healthy(), b"losslessd is healthy.\n", b"losslessd is not healthy.\n")

    async def _probe_ready(self, request: h11.Request) -> _Answer:
        return self._probe(self._ready(), b"losslessd is ready.\n", b"losslessd is not ready yet.\n")

    @staticmethod
    def _probe(ok: bool, yes: bytes, no: bytes) -> _Answer:
        return _Answer(200 if ok else 503, yes if ok else no)

    async def _do_reload(self, request: h11.Request) -> _Answer:
        try:
            ok, message = await self._reload()
        except Exception as exc:  # the daemon's reload should not raise; if it does, say so and keep serving
            log.exception("reload failed")
            return _Answer(500, f"reload failed: {exc}\n".encode())
        return _Answer(200 if ok else 400, message.rstrip("\n").encode() + b"\n")

    async def _respond(self, http: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request,
                       answer: _Answer) -> None:
        headers = [("Content-Type", answer.content_type), ("Content-Length", str(len(answer.body))),
                   ("Server", "losslessd"), *answer.headers]
        if answer.close:
            headers.append(("Connection", "close"))
        data = http.send(h11.Response(status_code=answer.status, headers=headers, reason=_phrase(answer.status)))
        if request.method != b"HEAD":
            data += http.send(h11.Data(data=answer.body))
        data += http.send(h11.EndOfMessage())
        await self._write(writer, data)

    async def _send_error(self, http: h11.Connection, writer: asyncio.StreamWriter, status: int, text: str) -> None:
        body = text.encode()
        try:
            data = http.send(h11.Response(status_code=status, reason=_phrase(status), headers=[
                ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                ("Connection", "close"), ("Server", "losslessd")]))
            data += http.send(h11.Data(data=body)) + http.send(h11.EndOfMessage())
        except h11.LocalProtocolError:  # h11 cannot frame an answer here: nothing is sent, the socket closes
            return
        await self._write(writer, data)

    async def _write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        try:
            await asyncio.wait_for(writer.drain(), self.write_timeout_s)
        except asyncio.TimeoutError:
            self._refuse("write_timeout", writer, f"client did not read its answer within {self.write_timeout_s:g} s")
            raise ConnectionAbortedError from None

    # -- refusals -------------------------------------------------------------------------------------------
    def _refuse(self, reason: str, writer: asyncio.StreamWriter, detail: str) -> None:
        """Count a refusal and log it as one line: the first LOG_BURST of each minute one by one, the
        rest as one summary line when the minute is over."""
        self._on_refused(reason)
        now = time.monotonic()
        if now >= self._window_end:
            if self._unlogged:
                log.warning("http: %d more refused connections or requests in the last %g s were not logged one "
                            "by one", self._unlogged, LOG_SUMMARY_S, extra={"refused": self._unlogged})
            self._window_end, self._logged, self._unlogged = now + LOG_SUMMARY_S, 0, 0
        if self._logged < LOG_BURST:
            self._logged += 1
            log.info("http: %s from %s: %s", reason, _peer(writer), detail,
                     extra={"client": _peer(writer), "reason": reason})
        else:
            self._unlogged += 1


def _peer(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "?"


def _path(target: bytes) -> str:
    """The path a request target names: of an origin-form (`/metrics?x`), or of an absolute-form
    (`http://host:9100/metrics`, which RFC 9112 3.2.2 says a server MUST accept: it was a 404)."""
    text = target.decode("ascii", "replace").split("?", 1)[0]
    scheme, sep, rest = text.partition("://")
    if sep and scheme.lower() in ("http", "https"):
        return "/" + rest.partition("/")[2]
    return text


def _names(target: bytes) -> frozenset[str] | None:
    """The families a scrape asks for, as Prometheus' federation and node_exporter take them:
    /metrics?name[]=losslessd_up&name[]=losslessd_polls_total (None: every family)."""
    _, _, query = target.decode("latin-1").partition("?")
    names = [unquote_plus(v) for k, _, v in (p.partition("=") for p in query.split("&"))
             if unquote_plus(k) in ("name[]", "name")]
    return frozenset(names) if names else None


def _cut(exc: Exception) -> str:
    """h11's reason, which quotes the client's bytes (up to the 16 KiB head: a log line each), cut short."""
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "..."


def _phrase(status: int) -> str:
    return HTTPStatus(status).phrase


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")


async def _bound(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``'s first address that binds, of that address's family: a name resolving only to
    IPv6 (::1) failed as an IPv4 socket when the family was guessed from a ':' in the host. IPv4 addresses first, as
    a name was bound before (`localhost` resolving to ::1 and 127.0.0.1, ::1 first as many resolvers order it, kept
    serving 127.0.0.1, where scrapers configured with 127.0.0.1 look). OSError (socket.gaierror for a name that does
    not resolve) when none binds."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)
    failed: OSError | None = None
    for family, kind, proto, _name, address in sorted(infos, key=lambda info: info[0] != socket.AF_INET):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            return sock
        except OSError as exc:
            sock.close()
            failed = exc
    raise failed or OSError(f"{host} resolves to no address")
