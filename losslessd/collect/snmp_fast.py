"""The fast SNMP counter path: gufo-snmp (Gufo Labs' SNMP client: BER, USM and AES in compiled Rust,
sockets on the asyncio loop), giving the same ``SnmpSample`` and errors as the pysnmp poller.

Why this library: measured on the same 64-port walk (2,497 OIDs, bench/daemon_scale.py), pysnmp
spends about 0.5-0.7 s of CPU per poll decoding with pyasn1; ezsnmp 2.5 (net-snmp's library behind
SWIG) about 90 ms (v2c) and 170 ms (v3), because it prints every varbind to text, parses the text
back with std::regex and opens a new net-snmp session per call, and it blocks a thread per walk;
gufo-snmp about 5-10 ms, on the event loop. docs/snmp.md has the figures.

What it does not serve goes to a pysnmp poller made on first need (``fallback``): an SNMPv3
contextName (gufo-snmp always sends the default, empty context) and AES-192/256 privacy (two key
expansion conventions exist, and pysnmp's is the one losslessd has always used).

One socket per device (kept between polls; SNMPv3 engine discovery once per socket), every column
walked with GETBULK in turn; ``stripes`` sockets per device walk columns side by side.

gufo-snmp decodes an answer in a buffer of about 4 KB and refuses a larger datagram as "incomplete"
(measured with 0.13: a 4,087-byte GETBULK answer refused, 3,127 read): 64 ifNames of 50 characters
already pass it. A column whose answer it cannot decode is walked again with a quarter of the
repetitions (kept for that device and column); when even one row does not decode, the device goes
to the pysnmp fallback, which reads what it can and refuses the odd port (``decode_fallbacks``), until the fast path
is tried again after a back-off (``FAST_RETRY_S``): a broken answer need not be there for good.

An answer with no row ends gufo-snmp's walk as the end of the agent's view does, yet it is also what an agent sends
when the rows do not fit the answer (SNMPv3: gufo-snmp's msgMaxSize of 2,048 bytes): pysnmp is asked what follows,
and a column that goes on is walked in smaller answers as above (``_check_ends``); an end it confirms is asked again
when an answer with no row appears there, and every ``RECHECK_ENDS_S`` while one is there.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gufo.snmp import Aes128Key, Sha1Key, Sha224Key, Sha256Key, Sha384Key, Sha512Key, User
from gufo.snmp import SnmpAuthError as GufoAuthError
from gufo.snmp import SnmpDecodeError as GufoDecodeError
from gufo.snmp import SnmpError as GufoError
from gufo.snmp.aio.client import GetBulkIter, SnmpSession
from gufo.snmp.typing import ValueType

from .. import counters_oids as oids
from ..monitor import clock
from .snmp import (
    MIN_V3_KEY_CHARS,
    BasePoller,
    NotText,
    SnmpAuthError,
    SnmpError,
    SnmpPoller,
    SnmpSample,
    SnmpTarget,
    SnmpTimeout,
    SnmpUnreachable,
    build_sample,
    too_many_rows,
)

# OID -> instance index, parsed once: a fleet's devices answer the same OIDs poll after poll (the
# parse was a third of the fast path's CPU). A column's cache is emptied when it reaches this size.
INDEX_CACHE = 1_000_000
_AUTH_KEYS = {"SHA": Sha1Key, "SHA224": Sha224Key, "SHA256": Sha256Key, "SHA384": Sha384Key, "SHA512": Sha512Key}
_PRIV_KEYS = {"AES": Aes128Key}
# The msgMaxSize gufo-snmp 0.13 sends in SNMPv3 requests (src/snmp/msg/v3/msg.rs MAX_SIZE): an agent leaves out the
# rows that do not fit an answer of that size (RFC 3416 4.2.3), all of them when the first does not.
V3_MAX_MESSAGE = 2048
# How long a device whose answers gufo-snmp could not read is polled by pysnmp before the fast path is tried again,
# doubled after each try that fails, up to FAST_RETRY_MAX_S. A try that fails costs a fast walk up to the row that
# does not decode (a fast poll's CPU at most, 6-16 ms against snmpd, docs/snmp.md) on top of the pysnmp poll made
# anyway, and a warning: with an hour at most, 24 a day a device. An agent that answered badly for a while (a
# restart, a broken line card) is back on the fast path within the back-off in force once it answers well again.
FAST_RETRY_S = 300.0
FAST_RETRY_MAX_S = 3600.0
# How long a column's walk may end at an answer with no row, after the row where pysnmp said it ends, before pysnmp is
# asked again (``_check_ends``): rows added after it whose first answer is too large (a port added with a long
# ifName) are unread at most that long. The check is one GETNEXT a device in 5 minutes (30 polls at a 10 s interval):
# 1.6 ms of pysnmp's CPU for one column, 4.9 ms for all 16, measured against net-snmp's snmpd over SNMPv3.
# ifTableLastChange and ifNumber (IF-MIB, RFC 2863) say when ifTable rows come and go, not when rows of the PFC or QoS
# tables do, and would be two more OIDs in every poll: the schedule covers every column.
RECHECK_ENDS_S = 300.0
log = logging.getLogger(__name__)


class _Undecodable(Exception):
    """A single row's answer gufo-snmp cannot decode or receive: the device is polled by pysnmp instead."""


class _BulkWalk(GetBulkIter):
    """gufo-snmp's GETBULK walk, telling its two ends apart: a row past the column (the column is done) and an answer
    holding no row (``empty``: the end of the agent's view, or rows that did not fit the answer)."""

    empty = False

    async def __anext__(self) -> tuple[str, ValueType]:
        if not self._buffer:
            await self._session._send(lambda: self._sock.send_get_bulk(self._ctx))  # noqa: SLF001 - gufo-snmp's own
            try:
                self._buffer = await self._session._recv(lambda: self._sock.recv_get_bulk(self._ctx))  # noqa: SLF001
            except StopAsyncIteration:
                self.empty = True  # gufo-snmp's answer with no row (exception values it skips are no rows either)
                raise
        row = self._buffer.pop(0)
        if row is None:  # the next row is past the column
            raise StopAsyncIteration
        return row


@dataclass(frozen=True)
class _End:
    """Where pysnmp said a column's walk ends: after ``last``, reached at an answer with no row (``empty``) or not,
    checked at ``checked`` (time.monotonic())."""

    last: str
    empty: bool
    checked: float

    def holds(self, last: str, empty: bool, now: float, recheck_s: float) -> bool:
        """Whether a walk ending after ``last`` (at an answer with no row: ``empty``) ends here as checked. A row past
        the column seen again says so itself; an answer with no row may also be rows added since that do not fit it:
        taken as the end only where it was one when checked, and for ``recheck_s`` after."""
        return last == self.last and (not empty or (self.empty and now < self.checked + recheck_s))


@dataclass
class _Sessions:
    key: tuple  # what the sockets were made for: a changed target gets new ones
    sessions: list[SnmpSession]


class FastSnmpPoller(BasePoller):
    """Polls devices with gufo-snmp; targets it cannot serve go to a pysnmp poller (see the module)."""

    backend = "gufo-snmp"
    DEFAULT_STRIPES = 2  # sockets per device: decoding is cheap here, so two walks side by side suffice

    def __init__(self, **settings):
        settings.setdefault("stripes", self.DEFAULT_STRIPES)
        super().__init__(**settings)
        self._sessions: dict[str, _Sessions] = {}
        self._fallback: SnmpPoller | None = None
        self._indexes: dict[str, dict[str, tuple[int, ...]]] = {}  # column -> OID -> instance index
        self._repetitions: dict[tuple[str, str], int] = {}  # (device, column) -> GETBULK size that decodes
        self._ends: dict[tuple[str, str], _End] = {}  # (device, column) -> where pysnmp said its walk ends
        # device -> why gufo-snmp cannot read it: those devices are polled by the pysnmp fallback
        self.decode_fallbacks: dict[str, str] = {}
        # device of decode_fallbacks -> (its back-off, time.monotonic() when the fast path is tried again)
        self.fast_again: dict[str, tuple[float, float]] = {}
        # device -> why pysnmp made its last poll (answer_size), None where the fast path made it, answered or failed
        self._polled_by: dict[str, str | None] = {}
        self.recheck_ends_s = RECHECK_ENDS_S

    @staticmethod
    def serves(target: SnmpTarget) -> bool:
        """True when this poller polls ``target`` itself (False: its pysnmp fallback does)."""
        v3 = target.v3
        return v3 is None or (not target.context and v3.auth_protocol in _AUTH_KEYS and v3.priv_protocol in _PRIV_KEYS)

    def fallback_reason(self, target: SnmpTarget) -> str | None:
        """Why pysnmp made the last poll of ``target`` (a retried fast path that timed out made its own, failed)."""
        if target.context:
            return "context"
        if not self.serves(target):
            return "protocol"
        return self._polled_by.get(target.device)

    def close(self) -> None:
        """Release the sockets (from inside the loop that polled, as SnmpPoller.close)."""
        for held in self._sessions.values():
            for session in held.sessions:
                _close(session)
        self._sessions.clear()
        if self._fallback is not None:
            self._fallback.close()
            self._fallback = None

    async def aclose(self) -> None:
        fallback = self._fallback
        self._fallback = None
        self.close()
        if fallback is not None:
            await fallback.aclose()

    def forget(self, device: str) -> None:
        """Close the sockets kept for ``device`` and drop what was learnt about it (it left the inventory)."""
        self._drop_sessions(device)
        self.decode_fallbacks.pop(device, None)
        self.fast_again.pop(device, None)
        self._polled_by.pop(device, None)
        for table in (self._repetitions, self._ends):
            _drop_device(table, device)

    def _drop_sessions(self, device: str) -> None:
        held = self._sessions.pop(device, None)
        for session in held.sessions if held else ():
            _close(session)

    async def _poll(self, target: SnmpTarget, skip: frozenset[str] = frozenset()) -> SnmpSample:
        device = target.device
        retry = self.fast_again.get(device)
        now = time.monotonic()
        if not self.serves(target):
            return await self._pysnmp()._poll(target, skip)
        if retry is not None and now < retry[1]:
            self._polled_by[device] = "answer_size"
            return await self._pysnmp()._poll(target, skip)
        self._polled_by[device] = None  # (a timeout here is the fast path's poll, though the device was on pysnmp)
        if retry is not None:  # the back-off is over: the fast path again, with the answer sizes learnt afresh
            self.fast_again[device] = (retry[0], now + retry[0])  # whatever this try ends in, the next is bounded
            _drop_device(self._repetitions, device)
        try:
            sample = await self._fast_poll(target, skip)
        except _Undecodable as exc:
            why = str(exc)
        else:
            if retry is not None:
                del self.decode_fallbacks[device], self.fast_again[device]
                log.warning("%s: the fast path reads it again", device)
            return sample
        self._polled_by[device] = "answer_size"
        try:
            sample = await self._pysnmp()._poll(target, skip)
        except SnmpError as exc:  # not a large answer but a broken one (pysnmp drops it: a timeout)
            raise SnmpError(device, f"{why}; pysnmp then: {exc.message}") from None
        backoff = FAST_RETRY_S if retry is None else min(FAST_RETRY_MAX_S, 2 * retry[0])
        self.decode_fallbacks[device] = why  # pysnmp reads it: it polls this device until the back-off is over
        self.fast_again[device] = (backoff, time.monotonic() + backoff)
        log.warning("%s: %s; pysnmp reads it and polls this device for %g s, then the fast path is tried again",
                    device, why, backoff)
        return sample

    def _pysnmp(self) -> SnmpPoller:
        if self._fallback is None:
            self._fallback = SnmpPoller(**self.settings())
        return self._fallback

    async def _fast_poll(self, target: SnmpTarget, skip: frozenset[str]) -> SnmpSample:
        started = time.monotonic()
        where = f"{target.host}:{target.port}"
        try:
            sessions = await self._open(target)
            first = await self._request(target, lambda: sessions[0].get_many([oids.SYS_UPTIME, oids.SYS_NAME]))
            answered, wall = time.monotonic(), clock.wall()
            uptime = first.get(oids.SYS_UPTIME)  # (gufo-snmp leaves out what the agent has no value for)
            if type(uptime) is not int:
                raise SnmpError(target.device, "agent does not serve sysUpTime")
            by_column: dict[str, dict[tuple[int, ...], int | str]] = {}
            ends: dict[str, tuple[str, bool]] = {}
            raw: dict[str, int | str] = {oids.SYS_UPTIME: uptime}
            if isinstance(name := first.get(oids.SYS_NAME), bytes):
                raw[oids.SYS_NAME] = name.decode("utf-8", errors="replace")
            columns = [c for c in self.columns if c not in skip]
            lanes = [columns[k::len(sessions)] for k in range(len(sessions))]
            walks = [asyncio.ensure_future(self._walk_columns(target, s, cols, by_column, ends, raw))
                     for s, cols in zip(sessions, lanes)]
            try:
                await asyncio.gather(*walks)
            finally:  # one lane failed: the others stop too (their sockets are about to be closed)
                for walk in walks:
                    walk.cancel()
                await asyncio.gather(*walks, return_exceptions=True)
            await self._check_ends(target, sessions[0], by_column, ends, raw)
        except (SnmpError, _Undecodable):
            self._drop_sessions(target.device)  # a new socket (and SNMPv3 discovery) at the next poll
            raise
        except GufoAuthError:
            self._drop_sessions(target.device)
            raise SnmpAuthError(target.device, f"SNMP {target.version} credentials rejected by {where}") from None
        except (GufoError, OSError, ValueError, RuntimeError) as exc:  # what cannot be sent or decoded
            self._drop_sessions(target.device)
            raise SnmpError(target.device, f"SNMP {target.version} poll of {where} failed: "
                                           f"{type(exc).__name__}: {str(exc)[:200]}") from None
        return build_sample(target, uptime, by_column, raw, answered, wall, time.monotonic() - started)

    async def _open(self, target: SnmpTarget) -> list[SnmpSession]:
        """The device's sockets, made (and SNMPv3 engines discovered) on first use."""
        timeout = self.timeout_s if target.timeout_s is None else target.timeout_s
        stripes = max(1, self.stripes)
        key = (target.host, target.port, target.community, target.v3, timeout, stripes, self.max_varbinds)
        held = self._sessions.get(target.device)
        if held is not None and held.key == key:
            return held.sessions
        self._drop_sessions(target.device)
        address = await _address(target)
        user = None
        if target.v3 is not None:
            v3 = target.v3
            if min(len(v3.auth_key), len(v3.priv_key)) < MIN_V3_KEY_CHARS:
                raise SnmpAuthError(target.device, f"SNMPv3 auth and priv keys need at least {MIN_V3_KEY_CHARS} "
                                                   "characters")
            user = User(v3.user, auth_key=_AUTH_KEYS[v3.auth_protocol](v3.auth_key.encode()),
                        priv_key=_PRIV_KEYS[v3.priv_protocol](v3.priv_key.encode()))
        sessions = []
        try:
            for _ in range(stripes):
                if user is None:
                    session = SnmpSession(address, target.port, community=target.community, timeout=timeout,
                                          max_repetitions=self.max_varbinds)
                else:
                    session = SnmpSession(address, target.port, user=user, timeout=timeout,
                                          max_repetitions=self.max_varbinds)
                sessions.append(session)
                if user is not None:
                    await self._request(target, session.refresh)
        except BaseException:
            for session in sessions:
                _close(session)
            raise
        self._sessions[target.device] = _Sessions(key, sessions)
        return sessions

    async def _request(self, target: SnmpTarget, send: Callable[[], Awaitable]):
        """One request (``send()`` makes and awaits it), sent again after a timeout up to the
        target's retries."""
        retries = self.retries if target.retries is None else target.retries
        for attempt in range(retries + 1):
            try:
                return await send()
            except TimeoutError:
                if attempt == retries:
                    raise self._timeout(target) from None
        raise AssertionError("unreachable")

    @staticmethod
    def _timeout(target: SnmpTarget) -> SnmpTimeout:
        where = f"{target.host}:{target.port}"
        if target.v3 is not None:
            return SnmpTimeout(target.device, f"no SNMP v3 answer from {where} (a wrong SNMPv3 priv key looks like "
                                              "this too: the agent drops what it cannot decrypt)")
        return SnmpTimeout(target.device, f"no SNMP {target.version} answer from {where}")

    async def _walk_columns(self, target: SnmpTarget, session: SnmpSession, columns: list[str],
                            by_column: dict, ends: dict, raw: dict) -> None:
        for column in columns:
            by_column[column], ends[column] = await self._walk(target, session, column, raw)

    async def _walk(self, target: SnmpTarget, session: SnmpSession, column: str,
                    raw: dict[str, int | str]) -> tuple[dict[tuple[int, ...], int | str], tuple[str, bool]]:
        """``column``'s rows and where its walk ended (``_walk_once``), walked again with fewer repetitions while
        gufo-snmp cannot decode an answer (see the module); _Undecodable when one row alone does not decode."""
        key = (target.device, column)
        repetitions = self._repetitions.get(key, self.max_varbinds)
        while True:
            try:
                rows, last, empty = await self._walk_once(target, session, column, raw, repetitions)
                return rows, (last, empty)
            except GufoDecodeError as exc:
                if repetitions == 1:
                    raise _Undecodable(f"gufo-snmp cannot decode an answer of {column} ({str(exc)[:100]}; it reads "
                                       "answers up to about 4 KB), even one row an answer") from None
                repetitions = self._repetitions[key] = max(1, repetitions // 4)

    async def _check_ends(self, target: SnmpTarget, session: SnmpSession, by_column: dict,
                          ends: dict[str, tuple[str, bool]], raw: dict[str, int | str]) -> None:
        """Ask pysnmp, in one request, what follows the last row each walk read (``ends``: column -> (last OID, whether
        the walk ended at an answer with no row)); walk again, in smaller answers, the columns that go on.

        gufo-snmp ends a walk at an answer with no row, which is the end of the agent's view or rows that did not fit
        the answer (RFC 3416 4.2.3), and at a row outside the column, which it does not show (one before the column is
        an agent leaving it backwards). pysnmp's answers may be as large as a datagram, and it shows every OID. An end
        seen once at an OID is taken as read at the next polls (a column's last row stays where it is), an end at an
        answer with no row for ``recheck_ends_s`` (``_End.holds``)."""
        device = target.device

        def held(column: str, last: str, empty: bool) -> bool:
            known = self._ends.get((device, column))
            return known is not None and known.holds(last, empty, time.monotonic(), self.recheck_ends_s)

        while unsure := {c: end for c, end in ends.items() if not held(c, *end)}:
            try:
                following = await self._pysnmp().next_oids(target, [last for last, _ in unsure.values()])
            except SnmpError as exc:
                raise SnmpError(device, f"what follows the last rows read could not be asked of pysnmp: "
                                        f"{exc.message}") from None
            ends = {}
            for (column, (last, empty)), after in zip(unsure.items(), following, strict=True):
                key = (device, column)
                if after is None or not after.startswith(column + "."):
                    self._ends[key] = _End(last, empty, time.monotonic())
                    continue
                self._ends.pop(key, None)  # the column goes on: where its next walk ends is to be checked
                if not empty:
                    raise SnmpError(device, f"{target.host}:{target.port} answered a GETBULK after {last} with an OID "
                                            f"outside {column}, yet {after} follows {last}: OIDs must grow in a walk")
                repetitions = self._repetitions.get(key, self.max_varbinds)
                if repetitions == 1:
                    raise _Undecodable(f"the agent answered a GETBULK of {column} after {last} with no row, yet a row "
                                       f"follows, even one row an answer (rows that do not fit an answer are left out, "
                                       f"RFC 3416 4.2.3; gufo-snmp asks SNMPv3 agents for answers of at most "
                                       f"{V3_MAX_MESSAGE:,} bytes)")
                self._repetitions[key] = max(1, repetitions // 4)
                by_column[column], ends[column] = await self._walk(target, session, column, raw)

    async def _walk_once(self, target: SnmpTarget, session: SnmpSession, column: str,
                         raw: dict[str, int | str], repetitions: int
                         ) -> tuple[dict[tuple[int, ...], int | str], str, bool]:
        """GETBULK through ``column``: (instance index -> value, the last OID read (the column's when none), whether
        the walk ended at an answer with no row). An index that does not grow (an agent going round in circles) or a
        column past ``max_rows`` rows fails the poll."""
        retries = self.retries if target.retries is None else target.retries
        rows: dict[tuple[int, ...], int | str] = {}
        walk = _BulkWalk(session, column, repetitions)
        skip = len(column) + 1
        last: tuple[int, ...] = ()
        cursor = column
        indexes = self._indexes.setdefault(column, {})  # per column: a cached OID is one of this column's
        step = walk.__anext__
        while True:
            try:
                oid, value = await step()
            except StopAsyncIteration:
                return rows, cursor, walk.empty
            except TimeoutError:
                oid, value = await self._again(target, step, retries)
                if oid is None:
                    return rows, cursor, walk.empty
            index = indexes.get(oid)
            if index is None:
                if not oid.startswith(column) or oid[skip - 1:skip] != ".":
                    return rows, cursor, False  # left the column (gufo-snmp normally stops there itself)
                index = tuple(map(int, oid[skip:].split(".")))
                if len(indexes) >= INDEX_CACHE:
                    indexes.clear()
                indexes[oid] = index
            if index <= last:
                raise SnmpError(target.device, f"{target.host}:{target.port} answered {oid} after "
                                               f"{column}.{'.'.join(map(str, last))}: OIDs must grow in a walk")
            last, cursor = index, oid
            if type(value) is not int:
                # bytes: an OCTET STRING (or Opaque); text: an IpAddress or an OID, which never names a port
                value = value.decode("utf-8", errors="replace") if isinstance(value, bytes) else NotText(value)
            rows[index] = value
            raw[oid] = value
            if len(rows) > self.max_rows:
                raise too_many_rows(target, column, self.max_rows)

    async def _again(self, target: SnmpTarget, step, retries: int):
        """The walk's next row after a timeout: the request is sent again up to ``retries`` times;
        (None, None) at the end of the column."""
        for _ in range(retries):
            try:
                return await step()
            except StopAsyncIteration:
                return None, None
            except TimeoutError:
                continue
        raise self._timeout(target)


async def _address(target: SnmpTarget) -> str:
    """The agent's IP address: gufo-snmp takes addresses, not names."""
    try:
        ipaddress.ip_address(target.host)
        return target.host
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(target.host, target.port, type=socket.SOCK_DGRAM)
    except (OSError, UnicodeError) as exc:
        raise SnmpUnreachable(target.device, f"cannot reach {target.host}:{target.port}: {exc}") from None
    return found[0][4][0]


def _drop_device(table: dict[tuple[str, str], Any], device: str) -> None:
    """Drop what ``table`` (keyed by device and column) learnt about ``device``."""
    for key in [k for k in table if k[0] == device]:
        del table[key]


def _close(session: SnmpSession) -> None:
    """Stop watching the session's socket; gufo-snmp closes it when the session is dropped."""
    try:
        asyncio.get_running_loop().remove_reader(session._fd)  # noqa: SLF001 - gufo-snmp's own handle
    except (RuntimeError, AttributeError, ValueError, OSError):
        pass
