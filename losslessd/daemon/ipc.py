"""Messages between the daemon and its worker processes: one socketpair per worker, each message a
4-byte length then a pickle.

Both ends are our own processes (the daemon starts the worker and hands it one end of the pair), so
pickle is safe here, and it is the one place a ``Secret`` may be serialised: the worker needs the
inventory's credentials, and they travel from memory to memory, never through a file, an argument
or the environment.
"""

from __future__ import annotations

import asyncio
import copyreg
import io
import pickle
import socket
import struct
from typing import Any

from ..credentials import Secret

MAX_MESSAGE_BYTES = 1 << 30  # a scrape of a large shard is tens of MB; anything near this is a bug
_HEADER = struct.Struct("!I")


class LinkClosed(Exception):
    """The other end is gone (exited, killed, or closed its end)."""


def _secret(secret: Secret):
    return Secret, (secret.reveal(), secret.origin)


def dumps(message: object) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, Secret: _secret}
    pickler.dump(message)
    return buf.getvalue()


class Link:
    """One end of a worker's socketpair, on the running event loop."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, sock: socket.socket) -> Link:
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 20)
        return cls(reader, writer)

    async def send(self, message: object) -> None:
        data = dumps(message)
        async with self._lock:  # one message at a time on the wire
            try:
                self._writer.write(_HEADER.pack(len(data)) + data)
                await self._writer.drain()
            except (ConnectionError, RuntimeError) as exc:  # RuntimeError: the transport was closed
                raise LinkClosed(str(exc)) from None

    def post(self, message: object) -> None:
        """Queue ``message`` without waiting for the other end to read it (a worker's first messages, read once it has
        started): messages go out in the order they are queued or sent; the next send's drain waits for it too."""
        data = dumps(message)
        try:
            self._writer.write(_HEADER.pack(len(data)) + data)
        except (ConnectionError, RuntimeError) as exc:  # RuntimeError: the transport was closed
            raise LinkClosed(str(exc)) from None

    async def recv(self) -> tuple[Any, ...]:
        """The next message: a tuple whose first item names its kind (both ends are losslessd's)."""
        try:
            (size,) = _HEADER.unpack(await self._reader.readexactly(_HEADER.size))
            if size > MAX_MESSAGE_BYTES:
                raise LinkClosed(f"message of {size} bytes")
            return pickle.loads(await self._reader.readexactly(size))
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise LinkClosed(str(exc)) from None

    def close(self) -> None:
        self._writer.close()
