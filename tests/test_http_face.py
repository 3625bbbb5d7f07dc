"""The HTTP face against hostile and broken clients over real sockets (issue 11 item 5): malformed
requests get an answer and a closed connection, never a hang or a traceback; slow and idle clients
are bounded by the header timeout and the connection limit; a scrape always gets through; every
refusal is one JSON log line and a counted reason."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket

import pytest

from losslessd import __version__
from losslessd.daemon import logs
from losslessd.daemon.http import LOG_BURST, MAX_BODY_BYTES, MAX_HEAD_BYTES, HttpFace
from losslessd.daemon.metrics import Metrics, scraper

TLS_CLIENT_HELLO = bytes.fromhex("16030100c4010000c00303") + bytes(32) + b"\x00\x00\x02\x13\x01\x01\x00"


@pytest.fixture
def log_stream():
    """The process's log as the daemon writes it (JSON lines), captured."""
    stream = io.StringIO()
    logs.configure("debug", stream=stream)
    yield stream
    logging.getLogger().handlers = [h for h in logging.getLogger().handlers if not isinstance(h, logging.StreamHandler)
                                    or h.stream is not stream]


def json_lines(stream: io.StringIO) -> list[dict]:
    lines = stream.getvalue().splitlines()
    records = [json.loads(line) for line in lines]  # raises on any line that is not JSON
    assert all(isinstance(r, dict) for r in records)
    return records


async def face(metrics: Metrics, host: str = "127.0.0.1", **kw) -> HttpFace:
    async def reload():
        return True, "reloaded"

    return await HttpFace(host, 0, scrape=scraper(metrics), healthy=lambda: True,
                          ready=lambda: True, reload=reload, refused=metrics.http_refused, **kw).start()


async def exchange(port: int, data: bytes, read_for_s: float = 30.0) -> bytes:
    """Send ``data`` and read until the server closes (or ``read_for_s``)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(), read_for_s)
    finally:
        writer.close()


async def get_metrics(port: int) -> bytes:
    return await exchange(port, b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


MALFORMED = {
    "content-length-abc": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
    "content-length-negative": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n",
    "http-0.9": b"GET /metrics\r\n\r\n",
    "tls-client-hello": TLS_CLIENT_HELLO,
    "two-content-lengths": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
    "binary-noise": bytes(range(256)),
    # round 12: errors in a chunked body (h11 raises them while the body is read, after the head) were a traceback
    # logged as a bug for each request, beyond the refusal log's rate limit, and no answer
    "chunk-size-not-hex": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                          b"zz\r\nx\r\n0\r\n\r\n",
    "chunk-size-25-digits": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + b"F" * 25
                            + b"\r\nx",
    "chunk-line-over-head-limit": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1;"
                                  + b"a" * (MAX_HEAD_BYTES * 8) + b"\r\nx\r\n0\r\n\r\n",
    # ... and a request framed both ways (RFC 9112 6.1: request smuggling through a proxy that reads Content-Length)
    "content-length-and-chunked": b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                                  b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                                  b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n",
    # ... and HTTP/1.0 with Transfer-Encoding (RFC 9112 6.1: MUST be treated as faulty framing; it reloaded)
    "http-1.0-chunked": b"POST /-/reload HTTP/1.0\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                        b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n",
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_request_gets_400_and_a_closed_connection(case, log_stream):
    async def main():
        metrics = Metrics(__version__)
        server = await face(metrics)
        try:
            answer = await exchange(server.port, MALFORMED[case])  # returns: the server closed the connection
            scrape = await get_metrics(server.port)
            return answer, scrape, metrics
        finally:
            await server.close()

    answer, scrape, metrics = asyncio.run(main())
    assert status(answer) == 400  # an answer, not the header timeout's 408
    assert b"Connection: close" in answer
    assert status(scrape) == 200 and b"losslessd_http_refused_total" in scrape
    assert b'losslessd_http_refused_total{reason="malformed"} 1.0' in scrape
    records = json_lines(log_stream)
    refused = [r for r in records if r.get("reason") == "malformed"]
    assert len(refused) == 1 and refused[0]["level"] == "info"
    assert not [r for r in records if "exc" in r or r["level"] in ("error", "critical")]


def test_oversized_head_and_body_are_refused(log_stream):
    async def main():
        metrics = Metrics(__version__)
        server = await face(metrics)
        try:
            head = await exchange(server.port, b"GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: "
                                  + b"a" * (MAX_HEAD_BYTES + 10) + b"\r\n\r\n")
            body = await exchange(server.port, b"POST /-/reload HTTP/1.1\r\nHost: t\r\nContent-Length: "
                                  + str(MAX_BODY_BYTES + 1).encode() + b"\r\n\r\n" + b"x" * (MAX_BODY_BYTES + 1))
            return head, body
        finally:
            await server.close()

    head, body = asyncio.run(main())
    assert status(head) == 431 and status(body) == 413
    json_lines(log_stream)


def test_a_client_that_never_finishes_its_head_is_cut_at_the_header_timeout(log_stream):
    async def main():
        metrics = Metrics(__version__)
        server = await face(metrics, header_timeout_s=0.5)
        try:
            slow = await exchange(server.port, b"GET /metrics HTTP/1.1\r\nHost: t\r\n")  # no blank line, ever
            quiet = await exchange(server.port, b"")  # connects and says nothing: closed without a word
            return slow, quiet
        finally:
            await server.close()

    slow, quiet = asyncio.run(main())
    assert status(slow) == 408 and quiet == b""
    reasons = [r.get("reason") for r in json_lines(log_stream)]
    assert reasons.count("header_timeout") == 1  # the silent one is not an error


def test_slow_clients_beyond_the_limit_never_lock_out_a_scrape(log_stream):
    """60 clients that open a connection and send half a head, with room for 8: each new one takes the
    place of the one that waited longest, the face never holds more than 8, and a scrape gets through."""
    async def main():
        metrics = Metrics(__version__)
        server = await face(metrics, max_connections=8, header_timeout_s=60)
        held, most = [], 0
        try:
            for _ in range(60):
                reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
                writer.write(b"GET /metrics HTTP/1.1\r\n")
                await writer.drain()
                held.append((reader, writer))
                await asyncio.sleep(0)
                most = max(most, server.connections)
            scrapes = [await get_metrics(server.port) for _ in range(5)]
            most = max(most, server.connections)
            return scrapes, most, _refused(metrics, "evicted"), metrics
        finally:
            for _, writer in held:
                writer.close()
            await server.close()

    scrapes, most, dropped, metrics = asyncio.run(main())
    assert all(status(s) == 200 for s in scrapes)
    assert most <= 8
    assert dropped >= 60 - 8
    records = json_lines(log_stream)
    assert len([r for r in records if r.get("reason") == "evicted"]) <= LOG_BURST  # bounded logging


def test_early_disconnects_are_no_errors(log_stream):
    """Clients that hang up before, during or right after sending a request, and clients that reset."""
    async def main():
        metrics = Metrics(__version__)
        for n in range(2000):  # a big scrape, so hanging up leaves an answer half written
            metrics.poll_done(f"sw{n:04d}", True, 0.1)
        server = await face(metrics)
        try:
            for k in range(100):
                reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
                writer.write(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n"[: 10 + k % 30] if k % 3 else
                             b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
                await writer.drain()
                if k % 2:
                    writer.transport.abort()  # RST
                else:
                    writer.close()
            return await get_metrics(server.port)
        finally:
            await server.close()

    scrape = asyncio.run(main())
    assert status(scrape) == 200 and scrape.count(b"losslessd_up{") == 2000
    records = json_lines(log_stream)
    assert not [r for r in records if "exc" in r or r["level"] in ("warning", "error", "critical")]


def test_a_client_that_stops_reading_is_cut_and_others_go_on(log_stream):
    async def main():
        metrics = Metrics(__version__)
        for n in range(20000):  # ~2 MB of answer: more than the socket buffers hold
            metrics.poll_done(f"switch-{n:06d}", True, 0.1, source="snmp")
        server = await face(metrics, write_timeout_s=0.5)
        try:
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")  # and never read
            await asyncio.wait_for(_until(lambda: _refused(metrics, "write_timeout") > 0), 60)
            ok = await get_metrics(server.port)
            sock.close()
            return ok, _refused(metrics, "write_timeout")
        finally:
            await server.close()

    ok, cut = asyncio.run(main())
    assert status(ok) == 200 and cut == 1
    json_lines(log_stream)


async def _until(check) -> None:
    while not check():
        await asyncio.sleep(0.05)


def _refused(metrics: Metrics, reason: str) -> float:
    return metrics.registry.get_sample_value("losslessd_http_refused_total", {"reason": reason}) or 0


def test_keep_alive_serves_several_requests_on_one_connection():
    async def main():
        server = await face(Metrics(__version__))
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            answers = []
            for path in (b"/-/healthy", b"/-/ready", b"/nope"):
                writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\n\r\n")
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                answers.append((status(head), await reader.readexactly(length)))
            writer.close()
            return answers
        finally:
            await server.close()

    assert asyncio.run(main()) == [(200, b"losslessd is healthy.\n"), (200, b"losslessd is ready.\n"),
                                   (404, b"not found; try /metrics\n")]


def test_concurrent_scrapes_share_one_rendering_and_busy_slots_make_others_wait():
    """20 scrapes at once cost one rendering; with every slot busy answering, a malformed request
    waits for a slot and still gets its 400 rather than a reset."""
    async def main():
        calls, release = [], asyncio.Event()

        async def scrape(accept, names):
            calls.append(names)
            await release.wait()
            return b"x 1\n", "text/plain; version=0.0.4; charset=utf-8"

        async def reload():
            return True, ""

        server = await HttpFace("127.0.0.1", 0, scrape=scrape, healthy=lambda: True, ready=lambda: True,
                                reload=reload, max_connections=20).start()
        try:
            scrapes = [asyncio.ensure_future(get_metrics(server.port)) for _ in range(20)]
            await asyncio.wait_for(_until(lambda: len(server._conns) == 20 and
                                          all(c.waiting_since is None for c in server._conns)), 60)
            late = asyncio.ensure_future(exchange(server.port, MALFORMED["content-length-abc"]))
            await asyncio.wait_for(_until(lambda: server._queued == 1), 60)  # it waits for a slot (not a loop turn)
            release.set()
            return await asyncio.gather(*scrapes), await late, calls
        finally:
            await server.close()

    answers, late, calls = asyncio.run(main())
    assert all(status(a) == 200 and a.endswith(b"x 1\n") for a in answers)
    assert calls == [None]
    assert status(late) == 400


def test_expect_100_continue_gets_its_100_and_then_the_answer():
    """RFC 9110 10.1.1: a client that waits for 100 (Continue) before it sends its body got nothing, then a 408 at
    the header timeout (round 13)."""
    async def main():
        server = await face(Metrics(__version__), header_timeout_s=5.0)
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"POST /-/reload HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n"
                         b"Connection: close\r\n\r\n")
            await writer.drain()
            interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2.0)  # before the body is sent
            writer.write(b"{}")
            await writer.drain()
            final = await asyncio.wait_for(reader.read(), 5.0)
            writer.close()
            return interim, final
        finally:
            await server.close()

    interim, final = asyncio.run(main())
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert status(final) == 200 and final.endswith(b"reloaded\n")


def test_an_absolute_form_request_target_is_served():
    """RFC 9112 3.2.2: a server MUST accept the absolute-form (`GET http://host/metrics`); it was a 404 (round 13)."""
    async def main():
        server = await face(Metrics(__version__))
        try:
            return [await exchange(server.port, b"GET " + target + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                    for target in (b"http://127.0.0.1/metrics?name[]=losslessd_up", b"HTTP://t:9/-/healthy",
                                   b"http://t", b"http://t/nope")]
        finally:
            await server.close()

    scrape, healthy, bare, nope = asyncio.run(main())
    assert status(scrape) == 200 and b"losslessd_up" in scrape and b"losslessd_polls" not in scrape
    assert status(healthy) == 200 and healthy.endswith(b"losslessd is healthy.\n")
    assert status(bare) == 404 and status(nope) == 404


def _served_on(monkeypatch, name: str, addresses: list[str]) -> str:
    """The address the face binds for ``name``, resolved (as this machine's resolver cannot) to ``addresses`` in that
    order; the bind, the loopback check and a /-/healthy exchange over that address are real."""
    real = socket.getaddrinfo

    def resolve(host, port, *args, **kw):
        if host == name:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (a, port, 0, 0)) if ":" in a else
                    (socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses]
        return real(host, port, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)

    async def main():
        http = await face(Metrics(__version__), name)
        try:
            assert http.loopback
            reader, writer = await asyncio.open_connection(http.address, http.port)
            writer.write(b"GET /-/healthy HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            answer = await asyncio.wait_for(reader.read(), 30)
            writer.close()
            assert status(answer) == 200, answer
            return http.address
        finally:
            await http.close()

    return asyncio.run(main())


def test_a_host_name_resolving_only_to_ipv6_binds_and_answers(monkeypatch):
    """Session 39: the socket's family came from a ':' in http.host, so a name resolving only to ::1 was bound as
    IPv4 and failed ("Name or service not known" / "Address family"). The host is now resolved (getaddrinfo) and bound
    in its address's family."""
    assert _served_on(monkeypatch, "metrics6.test", ["::1"]) == "::1"


def test_a_host_that_does_not_resolve_is_an_os_error_not_a_traceback():
    """A name no resolver knows is socket.gaierror (an OSError), which the daemon reports as "cannot serve
    /metrics on HOST:PORT", exit 2."""
    async def main():
        with pytest.raises(OSError):
            await face(Metrics(__version__), "no-such-host.invalid")

    asyncio.run(main())


def test_a_host_name_resolving_to_ipv6_and_ipv4_keeps_serving_ipv4(monkeypatch):
    """`localhost` resolves to ::1 and 127.0.0.1 on hosts whose /etc/hosts names both (::1 first, as resolvers order
    it); it was bound as IPv4 before session 40's getaddrinfo bind, which then took the first address, ::1 alone, and
    a scraper of 127.0.0.1 found nothing. IPv4 is bound first where the name has both."""
    assert _served_on(monkeypatch, "metrics46.test", ["::1", "127.0.0.1"]) == "127.0.0.1"
