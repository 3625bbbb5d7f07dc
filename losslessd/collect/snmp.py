"""SNMP counter pollers: sysUpTime, IF-MIB octets/discards, CISCO-PFC-EXT-MIB pause and on-box
watchdog counters and CISCO-SWITCH-QOS-MIB queue counters, over SNMPv2c or SNMPv3 authPriv.

Two pollers behind one interface (``BasePoller``: ``poll(target) -> SnmpSample``) that give the same
typed samples and raise the same errors:

* ``FastSnmpPoller`` (losslessd.collect.snmp_fast): gufo-snmp, whose BER, USM and AES run in compiled
  code and whose sockets sit on the asyncio loop. About 100 times less CPU per poll than pysnmp.
* ``SnmpPoller`` (this module): pysnmp 7's asyncio API, pure Python; the portable path when
  gufo-snmp cannot be imported, and for what it does not serve (an SNMPv3 contextName, AES-192/256).

``make_poller("auto")`` picks the fast one when it can. Failures are raised as SnmpError subclasses
carrying the SYS code the pull orchestrator records; messages never contain a community or key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pyasn1.type.univ import Null, OctetString
from pydantic import BaseModel, Field
from pysnmp.error import PySnmpError
from pysnmp.hlapi.v3arch.asyncio import (
    CommunityData,
    ContextData,
    SnmpEngine,
    UdpTransportTarget,
    UsmUserData,
    bulk_cmd,
    get_cmd,
)
from pysnmp.hlapi.v3arch.asyncio import auth as usm
from pysnmp.proto import errind
from pysnmp.proto.error import ProtocolError
from pysnmp.proto.rfc1902 import IpAddress, ObjectName
from pysnmp.proto.rfc1905 import EndOfMibView, NoSuchInstance, NoSuchObject

from losslessd import counters_oids as oids
from losslessd.collect import AUTH_FAILED, TIMEOUT, UNREACHABLE, DeviceError
from losslessd.monitor import clock, port_name_problem
from losslessd.printable import fleet_nodes, name_node, names_shown, printable, shows_as

DEFAULT_TIMEOUT_S = 2.0
DEFAULT_RETRIES = 1
# max-repetitions of each GETBULK (snmpsim answers at most 64 varbinds a response), and the number
# of port ranges each column is split into and walked side by side; bench/poll_rate.py measures both.
DEFAULT_MAX_VARBINDS = 64
DEFAULT_STRIPES = 4
DEFAULT_CONCURRENCY = 32
# The most rows one column may answer in one poll (a 4,096-port chassis x 8 priorities x 2 stats is
# 65,536): an agent that goes on answering past it (a loop, a flood) fails the poll of that device.
MAX_ROWS_PER_COLUMN = 200_000
BACKENDS = ("auto", "fast", "pysnmp")
# Why pysnmp polls a device although the fast path was asked for (``BasePoller.fallback_reason``, the reason label of
# losslessd_snmp_fallback_polls_total): fast_unavailable (gufo-snmp cannot be imported, backend auto), context (an
# SNMPv3 contextName, which gufo-snmp does not send), protocol (AES-192/256), answer_size (an answer gufo-snmp cannot
# decode or receive, even one row an answer).
MIN_V3_KEY_CHARS = 8  # USM passphrase minimum (RFC 3414 section 11.2; net-snmp: "USM (min=8)"), pysnmp refuses less


AUTH_PROTOCOLS = {
    "SHA": usm.usmHMACSHAAuthProtocol,
    "SHA224": usm.usmHMAC128SHA224AuthProtocol,
    "SHA256": usm.usmHMAC192SHA256AuthProtocol,
    "SHA384": usm.usmHMAC256SHA384AuthProtocol,
    "SHA512": usm.usmHMAC384SHA512AuthProtocol,
}
PRIV_PROTOCOLS = {
    "AES": usm.usmAesCfb128Protocol,
    "AES192": usm.usmAesCfb192Protocol,
    "AES256": usm.usmAesCfb256Protocol,
}
# Answers an agent gives when the credentials are wrong (RFC 3414 section 3.2 reports).
_AUTH_ERRORS = (
    errind.UnknownUserName, errind.WrongDigest, errind.AuthenticationFailure, errind.AuthenticationError,
    errind.DecryptionError, errind.UnknownSecurityName, errind.UnsupportedSecurityLevel,
    errind.UnknownCommunityName,
)
_AUTH_STATUS = {"authorizationError", "noAccess"}


class SnmpError(DeviceError):
    """An SNMP poll that failed; ``sys_code`` is the SYS finding it becomes (SYS014: bad answer)."""


class SnmpUnreachable(SnmpError):
    """No way to send to the device (unresolvable name, no route)."""

    sys_code = UNREACHABLE


class SnmpAuthError(SnmpError):
    """The agent rejected our SNMPv3 user, key or security level."""

    sys_code = AUTH_FAILED


class SnmpTimeout(SnmpError):
    """No answer within timeout x (retries + 1). Under SNMPv2c a wrong community looks like this too:
    agents drop such requests silently."""

    sys_code = TIMEOUT


@dataclass(frozen=True)
class SnmpV3User:
    """An SNMPv3 USM user for authPriv; the keys never appear in repr() or messages."""

    user: str
    auth_key: str = field(repr=False)
    priv_key: str = field(repr=False)
    auth_protocol: str = "SHA"
    priv_protocol: str = "AES"

    def __post_init__(self):
        if self.auth_protocol not in AUTH_PROTOCOLS:
            raise ValueError(f"unknown SNMPv3 auth protocol {self.auth_protocol!r} (known: {', '.join(AUTH_PROTOCOLS)})")
        if self.priv_protocol not in PRIV_PROTOCOLS:
            raise ValueError(f"unknown SNMPv3 priv protocol {self.priv_protocol!r} (known: {', '.join(PRIV_PROTOCOLS)})")


@dataclass(frozen=True)
class SnmpTarget:
    """One device to poll: a v2c community or an SNMPv3 user (exactly one of them)."""

    device: str
    host: str
    port: int = 161
    community: str | None = field(default=None, repr=False)
    v3: SnmpV3User | None = None
    context: str = ""  # SNMPv3 contextName
    timeout_s: float | None = None  # None: the poller's default
    retries: int | None = None

    def __post_init__(self):
        if (self.community is None) == (self.v3 is None):
            raise ValueError(f"{self.device}: give either an SNMPv2c community or an SNMPv3 user")

    @property
    def version(self) -> Literal["v2c", "v3"]:
        return "v3" if self.v3 else "v2c"


def _drop_late_replies(loop: asyncio.AbstractEventLoop) -> None:
    """A reply to a cancelled request that lands after the engine closed makes pysnmp raise
    "Unregistered transport" inside the loop's datagram callback; it means nothing then, so it is
    logged at debug level instead of as a loop error with a traceback."""
    previous = loop.get_exception_handler()
    if getattr(previous, "_losslessd_late_replies", False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        exc = context.get("exception")
        if isinstance(exc, PySnmpError) and "Unregistered transport" in str(exc):
            logging.getLogger(__name__).debug("SNMP reply after the poller closed: dropped")
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler._losslessd_late_replies = True
    loop.set_exception_handler(handler)


def target_for(host, timeout_s: float | None = None, retries: int | None = None) -> SnmpTarget:
    """The poller's target for an inventory host (losslessd.inventory.Host) that has SNMP settings."""
    spec = host.snmp
    common = {"device": host.name, "host": spec.hostname, "port": spec.port, "context": spec.context,
              "timeout_s": timeout_s, "retries": retries}
    if spec.version == "2c":
        return SnmpTarget(community=spec.community.reveal(), **common)
    return SnmpTarget(v3=SnmpV3User(spec.user, spec.auth_key.reveal(), spec.priv_key.reveal(),
                                    auth_protocol=spec.auth_protocol.upper(),
                                    priv_protocol=spec.priv_protocol.upper()), **common)


# The rows of a sample are slotted dataclasses, not pydantic models: a 64-port poll makes about 1,100
# of them, and building them as models cost more CPU than the fast poller's whole walk. pydantic
# still serialises them inside SnmpSample (`pull` writes samples as JSON). None: not served.


@dataclass(slots=True)
class PortCounters:
    port: str  # ifName
    if_index: int
    in_octets: int | None = None  # ifHCInOctets
    out_octets: int | None = None  # ifHCOutOctets
    in_discards: int | None = None  # ifInDiscards (Counter32)
    out_discards: int | None = None  # ifOutDiscards (Counter32)
    pfc_requests: int | None = None  # cpfcIfRequests: PFC frames sent
    pfc_indications: int | None = None  # cpfcIfIndications: PFC frames received
    discontinuity_ticks: int | None = None  # ifCounterDiscontinuityTime: a change says the IF-MIB counters restarted
    speed_mbps: int | None = None  # ifHighSpeed: bounds what its counters can count in an interval


@dataclass(slots=True)
class PriorityCounters:
    port: str
    if_index: int
    priority: int
    pfc_requests: int | None = None  # cpfcIfPriorityRequests or aristaPfcPriorityRequests: PFC frames sent
    pfc_indications: int | None = None  # cpfcIfPriorityIndications or aristaPfcPriorityIndications: received


@dataclass(slots=True)
class QueueCounters:
    port: str
    if_index: int
    queue: int  # 0-based egress queue (the MIB's queue number minus one)
    tx_packets: int | None = None  # csqIfQosGroupStats unicast packets
    dropped_packets: int | None = None  # csqIfQosGroupStats unicast dropped packets


@dataclass(slots=True)
class WatchdogCounters:
    port: str
    if_index: int
    queue: int  # the qos-group NX-OS numbers the row by, 0-7: the 0-based egress queue it uses
    storms: int | None = None  # cpfcWatchdogIfQueueShutdowns: storms the on-box watchdog detected
    restores: int | None = None  # cpfcWatchdogIfQueueRestores: storms it restored


class SnmpSample(BaseModel):
    """One poll of one device. Counters are raw (wrap and reset handling belongs to the reader)."""

    device: str
    version: Literal["v2c", "v3"] = Field(description="v2c sends the community in clear text (SYS015)")
    sys_uptime_ticks: int = Field(description="sysUpTime, hundredths of a second")
    monotonic_s: float = Field(description="time.monotonic() when sysUpTime was answered")
    time_unix_s: float
    duration_s: float
    ports: list[PortCounters] = []
    priorities: list[PriorityCounters] = []
    queues: list[QueueCounters] = []
    watchdog: list[WatchdogCounters] = []
    raw: dict[str, int | str] = Field(default_factory=dict, description="every OID read -> value")
    unread: list[str] = Field(default_factory=list, description=(
        "ports whose ifName cannot name them (not served, not text, empty, too long, control characters, the same "
        "as another port's) and why: their counters are left out"))


_PORT_COLUMNS = {
    oids.IF_HC_IN_OCTETS: "in_octets", oids.IF_HC_OUT_OCTETS: "out_octets",
    oids.IF_IN_DISCARDS: "in_discards", oids.IF_OUT_DISCARDS: "out_discards",
    oids.CPFC_IF_REQUESTS: "pfc_requests", oids.CPFC_IF_INDICATIONS: "pfc_indications",
    oids.IF_COUNTER_DISCONTINUITY_TIME: "discontinuity_ticks", oids.IF_HIGH_SPEED: "speed_mbps",
}
# One row per (ifIndex, priority) whichever vendor's table serves it.
_PRIORITY_COLUMNS = {oids.CPFC_PRIO_REQUESTS: "pfc_requests", oids.CPFC_PRIO_INDICATIONS: "pfc_indications",
                     oids.ARISTA_PFC_PRIO_REQUESTS: "pfc_requests", oids.ARISTA_PFC_PRIO_INDICATIONS: "pfc_indications"}
_QUEUE_STATS = {oids.CSQ_UCAST_PACKETS: "tx_packets", oids.CSQ_UCAST_DROPPED_PACKETS: "dropped_packets"}
_WATCHDOG_COLUMNS = {oids.CPFC_WD_QUEUE_SHUTDOWNS: "storms", oids.CPFC_WD_QUEUE_RESTORES: "restores"}
COLUMNS = [oids.IF_NAME, oids.IF_TYPE, *_PORT_COLUMNS, *_PRIORITY_COLUMNS, oids.CSQ_QOS_GROUP_STATS, *_WATCHDOG_COLUMNS]


_COUNTER_END = 2**64  # Counter64's range ends below it (RFC 2578 7.1.10)

def _oid(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


class NotText(str):
    """A value that prints as text but whose type is no OCTET STRING: an IpAddress or an OBJECT IDENTIFIER (gufo-snmp
    gives both as the same text, so the two pollers cannot name which). It never names a port."""

    __slots__ = ()


def _value(v) -> int | str | None:
    """A counter as int, an OCTET STRING as str, an IpAddress or OID as NotText; None for what an agent says instead
    of a value. Opaque is taken as an OCTET STRING (pysnmp derives it from one, gufo-snmp gives it as one)."""
    if isinstance(v, (NoSuchObject, NoSuchInstance, EndOfMibView, Null)):
        return None
    if isinstance(v, IpAddress):  # an OctetString to pyasn1: its 4 bytes would be read as a name
        return NotText(v.prettyPrint())
    if isinstance(v, OctetString):
        return bytes(v).decode("utf-8", errors="replace")
    try:
        return int(v)
    except (TypeError, ValueError):
        return NotText(v.prettyPrint())


class BasePoller(ABC):
    """What every SNMP poller offers: ``poll`` one target, ``poll_many``, ``aclose``; use as
    ``async with`` inside one event loop. ``backend`` names the library doing the work."""

    backend: str = ""
    _fleet: frozenset[str] = frozenset()
    _nodes: dict[str, list[str]] = {}  # the fleet's names by name_node, made once per fleet (same_device reads them)

    @property
    def fleet(self) -> frozenset[str]:
        """The inventory's device names (its callers set them): an agent whose sysName is one of the others is
        refused."""
        return self._fleet

    @fleet.setter
    def fleet(self, names: frozenset[str]) -> None:
        self._fleet, self._nodes = names, fleet_nodes(names)

    def __init__(self, *, timeout_s: float = DEFAULT_TIMEOUT_S, retries: int = DEFAULT_RETRIES,
                 max_varbinds: int = DEFAULT_MAX_VARBINDS, stripes: int = DEFAULT_STRIPES,
                 concurrency: int = DEFAULT_CONCURRENCY, columns: Iterable[str] = COLUMNS,
                 deadline_s: float | None = None, max_rows: int = MAX_ROWS_PER_COLUMN):
        """``deadline_s``: the longest one poll of one device may take in all (an agent that answers
        every request just inside its timeout must not hold a poll for minutes); None: no limit.
        ``max_rows``: the most rows one column may answer in one poll."""
        self.timeout_s = timeout_s
        self.retries = retries
        self.max_varbinds = max_varbinds
        self.stripes = stripes
        self.concurrency = concurrency
        self.columns = list(columns)
        self.deadline_s = deadline_s
        self.max_rows = max_rows

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    @abstractmethod
    def close(self) -> None:
        """Release sockets and timers now (from inside the loop that polled)."""

    @abstractmethod
    async def aclose(self) -> None:
        """close(), then let the loop finish what the close left (cancelled timers)."""

    @abstractmethod
    async def _poll(self, target: SnmpTarget, skip: frozenset[str] = frozenset()) -> SnmpSample:
        ...

    async def poll(self, target: SnmpTarget, skip: frozenset[str] = frozenset()) -> SnmpSample:
        """Read sysUpTime and sysName, then walk every column but those in ``skip`` (what the caller knows already:
        the daemon walks ifHighSpeed now and then, pollers.SnmpCounters); raises an SnmpError subclass on failure,
        and when the agent names itself as another device of ``fleet`` (same_device)."""
        if self.deadline_s is None:
            sample = await self._poll(target, skip)
        else:
            try:
                sample = await asyncio.wait_for(self._poll(target, skip), self.deadline_s)
            except asyncio.TimeoutError:
                raise SnmpTimeout(target.device, f"SNMP {target.version} poll of {target.host}:{target.port} took "
                                                 f"longer than {self.deadline_s:g} s") from None
        same_device(target, sample.raw.get(oids.SYS_NAME), self._nodes)
        return sample

    async def poll_many(self, targets: Iterable[SnmpTarget]) -> dict[str, SnmpSample | SnmpError]:
        """Poll every target, at most ``concurrency`` at a time; a failure does not stop the others."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(target: SnmpTarget) -> SnmpSample | SnmpError:
            async with gate:
                try:
                    return await self.poll(target)
                except SnmpError as e:
                    return e

        targets = list(targets)
        results = await asyncio.gather(*(one(t) for t in targets))
        return {t.device: r for t, r in zip(targets, results)}

    def fallback_reason(self, target: SnmpTarget) -> str | None:
        """Why pysnmp, the slow path, polls ``target`` though the fast one was asked for (see BACKENDS); None when it
        does not."""
        return None

    def settings(self) -> dict:
        """The keywords this poller was made with (a fallback poller is made with the same)."""
        return {"timeout_s": self.timeout_s, "retries": self.retries, "max_varbinds": self.max_varbinds,
                "stripes": self.stripes, "concurrency": self.concurrency, "columns": self.columns,
                "deadline_s": self.deadline_s, "max_rows": self.max_rows}


def fast_available() -> str | None:
    """None when the fast poller can be used here, else why not."""
    try:
        from . import snmp_fast  # noqa: F401
    except ImportError as exc:
        return f"gufo-snmp cannot be imported ({exc})"
    return None


def make_poller(backend: str = "auto", **settings) -> BasePoller:
    """A poller: ``fast`` (gufo-snmp; ImportError when it cannot be imported), ``pysnmp``, or ``auto``
    (the fast one when it can be imported, else pysnmp). The fast poller hands the targets it does not
    serve to a pysnmp poller of its own."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown SNMP backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend == "pysnmp":
        return SnmpPoller(**settings)
    if backend == "auto" and fast_available() is not None:
        return SnmpPoller(stands_in="fast_unavailable", **settings)
    from .snmp_fast import FastSnmpPoller

    return FastSnmpPoller(**settings)


class SnmpPoller(BasePoller):
    """Polls devices over one shared pysnmp SnmpEngine. Use inside one event loop: ``async with``."""

    backend = "pysnmp"

    def __init__(self, stands_in: str | None = None, **settings):
        """``stands_in``: why this poller polls in place of the fast one (see BACKENDS), None when pysnmp was asked
        for."""
        super().__init__(**settings)
        self.stands_in = stands_in
        self._engine: SnmpEngine | None = None
        self._usm_changed = asyncio.Condition()
        self._usm_in_use: dict[str, tuple[SnmpV3User, int]] = {}

    def fallback_reason(self, target: SnmpTarget) -> str | None:
        return self.stands_in

    def close(self) -> None:
        """Release the engine's socket and timer (from inside the loop that polled)."""
        if self._engine is not None:
            self._engine.close_dispatcher()
            self._engine = None

    async def aclose(self) -> None:
        """close(), then let the loop finish the cancelled timer task before it is closed."""
        _drop_late_replies(asyncio.get_running_loop())
        self.close()
        await asyncio.sleep(0)

    async def _poll(self, target: SnmpTarget, skip: frozenset[str] = frozenset()) -> SnmpSample:
        async with self._usm_slot(target.v3):
            return await self._poll_engine(target, skip)

    @contextlib.asynccontextmanager
    async def _usm_slot(self, v3: SnmpV3User | None):
        """pysnmp keeps one key set per SNMPv3 user name in an engine and swaps it when a target
        brings another: polls that use one name with different keys must not overlap."""
        if v3 is None:
            yield
            return
        async with self._usm_changed:
            await self._usm_changed.wait_for(lambda: self._usm_in_use.get(v3.user, (v3,))[0] == v3)
            self._usm_in_use[v3.user] = (v3, self._usm_in_use.get(v3.user, (v3, 0))[1] + 1)
        try:
            yield
        finally:
            async with self._usm_changed:
                count = self._usm_in_use.pop(v3.user)[1] - 1
                if count:
                    self._usm_in_use[v3.user] = (v3, count)
                self._usm_changed.notify_all()

    def _start_engine(self) -> None:
        if self._engine is None:
            self._engine = SnmpEngine()
            if not answers_from_their_agent(self._engine):
                logging.getLogger(__name__).warning(
                    "this pysnmp's message cache is not the one losslessd knows (pysnmp 7.1): SNMP answers are matched "
                    "to requests by id alone, so an agent answering another's id could feed that device's sample; "
                    "install the fast path (losslessd[fast]) or pysnmp 7.1")

    async def next_oids(self, target: SnmpTarget, after: list[str]) -> list[str | None]:
        """The OID the agent serves next after each of ``after`` (one GETBULK whose every variable is a non-repeater,
        a GETNEXT of each), None at the end of its view: how the fast poller checks where its walks ended."""
        async with self._usm_slot(target.v3):
            self._start_engine()
            session = await self._session(target)
            try:
                err, status, _, binds = await bulk_cmd(*session, len(after), 0,
                                                       *((ObjectName(oid), Null("")) for oid in after), lookupMib=False)
            except PySnmpError as e:
                raise _refused(target, e) from None
            self._check(target, err, status)
        if len(binds) != len(after):
            raise SnmpError(target.device, f"{target.host}:{target.port} answered a GETNEXT of {len(after)} OIDs with "
                                           f"{len(binds)}")
        return [None if isinstance(value, (EndOfMibView, NoSuchObject, NoSuchInstance)) else ".".join(map(str, name))
                for name, value in binds]

    async def _poll_engine(self, target: SnmpTarget, skip: frozenset[str]) -> SnmpSample:
        self._start_engine()
        started = time.monotonic()
        session = await self._session(target)
        try:
            err, status, _, binds = await get_cmd(*session, (ObjectName(oids.SYS_UPTIME), Null("")),
                                                  (ObjectName(oids.SYS_NAME), Null("")), lookupMib=False)
            self._check(target, err, status)
            answered, wall = time.monotonic(), clock.wall()
            uptime = _value(binds[0][1])
            if not isinstance(uptime, int):
                raise SnmpError(target.device, "agent does not serve sysUpTime")
            raw: dict[str, int | str] = {oids.SYS_UPTIME: uptime}
            if len(binds) > 1 and (name := _value(binds[1][1])) is not None:
                raw[oids.SYS_NAME] = name
            raw.update(await self._walk(target, session, skip))
        except PySnmpError as e:
            raise _refused(target, e) from None
        return _sample(target, raw, answered, wall, time.monotonic() - started)

    async def _session(self, target: SnmpTarget) -> tuple:
        timeout = self.timeout_s if target.timeout_s is None else target.timeout_s
        retries = self.retries if target.retries is None else target.retries
        try:
            transport = await UdpTransportTarget.create((target.host, target.port), timeout=timeout, retries=retries)
        except PySnmpError as e:  # name does not resolve
            raise SnmpUnreachable(target.device, f"cannot reach {target.host}:{target.port}: {e}") from None
        if target.v3:
            v3 = target.v3
            if min(len(v3.auth_key), len(v3.priv_key)) < MIN_V3_KEY_CHARS:
                raise SnmpAuthError(target.device, f"SNMPv3 auth and priv keys need at least {MIN_V3_KEY_CHARS} "
                                                   "characters")
            auth = UsmUserData(v3.user, v3.auth_key, v3.priv_key, authProtocol=AUTH_PROTOCOLS[v3.auth_protocol],
                               privProtocol=PRIV_PROTOCOLS[v3.priv_protocol])
        else:
            auth = CommunityData(target.community, mpModel=1)
        return self._engine, auth, transport, ContextData(contextName=target.context.encode())

    async def _walk(self, target: SnmpTarget, session: tuple, skip: frozenset[str]) -> dict[str, int | str]:
        """Walk ifName, then every other column in ranges of ports walked side by side, so the agent
        always has a request queued while we decode the last answer (pysnmp spends about as much
        CPU per OID decoding as snmpsim spends answering)."""
        name_col = _oid(oids.IF_NAME)
        found = await self._walk_range(target, session, name_col, name_col, None, [], {})
        if_indexes = sorted(_index(oid, oids.IF_NAME)[0] for oid in found)
        step = max(1, -(-len(if_indexes) // self.stripes))
        chunks = [if_indexes[k:k + step] for k in range(0, len(if_indexes), step)] or [[]]
        rows_per_port: dict[tuple[int, ...], int] = {}  # learnt per column, shared by its ranges
        walks = []
        for col in self.columns:
            if col == oids.IF_NAME or col in skip:
                continue
            c = _oid(col)
            for k, chunk in enumerate(chunks):
                # GETBULK answers what follows the cursor: start just before <col>.<first ifIndex>.
                start = c + (chunk[0] - 1, 2**32 - 1) if k else c
                stop = c + (chunks[k + 1][0],) if k + 1 < len(chunks) else None
                walks.append(self._walk_range(target, session, c, start, stop, chunk, rows_per_port))
        for part in await asyncio.gather(*walks):
            found.update(part)
        return found

    async def _walk_range(self, target: SnmpTarget, session: tuple, column: tuple[int, ...],
                          start: tuple[int, ...], stop: tuple[int, ...] | None, ports: list[int],
                          rows_per_port: dict[tuple[int, ...], int]) -> dict[str, int | str]:
        """GETBULK from ``start`` until ``column`` ends or ``stop`` is reached. With the range's
        ``ports`` known, ask for about the rows left (rows per port as learnt so far) rather than
        the most an answer holds: what the agent reads past the range is wasted work."""
        found: dict[str, int | str] = {}
        cursor, n = start, len(column)
        shrink = 1  # what an answer with no variable binding divides the repetitions by (see below)
        while True:
            repetitions = self.max_varbinds
            if ports:
                done = cursor[n] if len(cursor) > n else 0
                left = sum(1 for i in ports if i >= done)
                repetitions = min(repetitions, rows_per_port.get(column, 1) * left + 1)
            repetitions = max(1, repetitions // shrink)
            err, status, _, binds = await bulk_cmd(
                *session, 0, repetitions, (ObjectName(cursor), Null("")), lookupMib=False)
            if not isinstance(err, errind.EmptyResponse):  # (pysnmp's name for an answer without a variable binding)
                self._check(target, err, status)
            if len(found) > self.max_rows:
                raise too_many_rows(target, ".".join(map(str, column)), self.max_rows)
            if not binds:  # not even endOfMibView: the rows did not fit the answer and were left out (RFC 3416 4.2.3)
                if repetitions == 1:
                    raise SnmpError(target.device, f"{target.host}:{target.port} answered a GETBULK of one row after "
                                                   f"{'.'.join(map(str, cursor))} with no variable binding")
                shrink *= 4
                continue
            per_port: dict[int, int] = {}
            ended = True  # an answer of exception values only is the end of the agent's view
            for name, value in binds:
                if isinstance(value, (EndOfMibView, NoSuchObject, NoSuchInstance)):
                    continue  # no row: skipped, as gufo-snmp skips it
                oid = tuple(name)
                if oid <= cursor:  # in the column or before it: the walk would go round or leave it backwards
                    raise SnmpError(target.device, f"{target.host}:{target.port} answered {'.'.join(map(str, oid))} "
                                                   f"after {'.'.join(map(str, cursor))}: OIDs must grow in a walk")
                if oid[:n] != column or (stop is not None and oid >= stop):
                    ended = True
                    break
                ended = False
                if (v := _value(value)) is not None:
                    found[".".join(map(str, oid))] = v
                per_port[oid[n]] = per_port.get(oid[n], 0) + 1
                cursor = oid
            if per_port:
                rows_per_port[column] = max(rows_per_port.get(column, 1), *per_port.values())
            if ended:
                return found

    @staticmethod
    def _check(target: SnmpTarget, err, status) -> None:
        where = f"{target.host}:{target.port}"
        if isinstance(err, errind.RequestTimedOut):
            raise SnmpTimeout(target.device, f"no SNMP {target.version} answer from {where}")
        if isinstance(err, _AUTH_ERRORS):
            raise SnmpAuthError(target.device, f"SNMP {target.version} credentials rejected by {where}: {err}")
        if err:
            raise SnmpError(target.device, f"SNMP error from {where}: {err}")
        if status:
            name = status.prettyPrint() if hasattr(status, "prettyPrint") else str(status)
            cls = SnmpAuthError if name in _AUTH_STATUS else SnmpError
            raise cls(target.device, f"SNMP error status {name} from {where}")


def same_device(target: SnmpTarget, sys_name: int | str | None, nodes: dict[str, list[str]]) -> None:
    """Refuse an agent whose sysName is another device of the inventory (``nodes``: fleet_nodes; two inventory entries
    giving one address, a swapped port or SNMPv3 context, an address moved to another switch): its counters were filed
    as this device's without a word. A sysName naming no device of the inventory (unset, a site's own naming, SONiC's
    default `sonic`) says nothing and is not checked; nor one that shows as the device's own name."""
    if type(sys_name) is not str or not sys_name.strip():
        return
    node = name_node(sys_name)
    if shows_as(node, name_node(target.device)):
        return
    others = names_shown(node, nodes)
    if others:
        raise SnmpError(target.device, f"the agent at {target.host}:{target.port} says it is "
                                       f"'{printable(sys_name[:200])}' (its sysName), which is {others[0]} of the "
                                       f"inventory, not {target.device}: its counters were not read as "
                                       f"{target.device}'s; check {target.device}'s data.snmp hostname, port and "
                                       "context (or that switch's hostname)")


def answers_from_their_agent(engine: SnmpEngine) -> int:
    """Match an answer to its request only when it comes from the address the request went to. pysnmp matches by
    request-id (v2c) or msgID (v3) alone (pysnmp 7.1 proto/mpmod/rfc2576.py and rfc3412.py prepare_data_elements,
    following RFC 3412 7.2.10), and one engine polls every device with ids that count up: an agent answering with
    the next id had its rows taken into another device's sample. Such an answer is now dropped as a mismatch and the
    request waits for its own agent, as on the fast path's sockets (connected: the kernel drops the rest). Wraps
    pysnmp's message cache; a pysnmp whose cache looks otherwise is left as it is (tests/test_snmp_fast.py fails) and
    the count of message models wrapped, 0 then, lets the poller say so."""
    wrapped = 0
    for model in engine.message_processing_subsystems.values():
        cache: Any = getattr(model, "_cache", None)
        pending = getattr(cache, "_Cache__msgIdIndex", None)  # msgID -> (the request's cached parameters, expiry)
        if not isinstance(pending, dict):
            continue
        came_from: list = []  # the address of the answer being decoded (prepare_data_elements runs to its end)

        def prepare(snmp_engine, domain, address, whole, _prepare=model.prepare_data_elements, _from=came_from):
            _from.append(address)
            try:
                return _prepare(snmp_engine, domain, address, whole)
            finally:
                _from.pop()

        def pop(msg_id, _pop=cache.pop_by_message_id, _pending=pending, _from=came_from):
            sent_to = _pending.get(msg_id, ({},))[0].get("transportAddress")
            if sent_to is not None and _from and tuple(sent_to)[:2] != tuple(_from[-1])[:2]:
                raise ProtocolError(f"an answer to msgId={msg_id} from another address")  # pysnmp: dataMismatch
            return _pop(msg_id)

        model.prepare_data_elements = prepare
        cache.pop_by_message_id = pop
        wrapped += 1
    return wrapped


def _refused(target: SnmpTarget, error: PySnmpError) -> SnmpError:
    """What pysnmp refuses to send or cannot decode."""
    return SnmpError(target.device, f"SNMP {target.version} poll of {target.host}:{target.port} failed: "
                                    f"{type(error).__name__}")


def too_many_rows(target: SnmpTarget, column: str, limit: int) -> SnmpError:
    return SnmpError(target.device, f"{target.host}:{target.port} answered more than {limit:,} rows "
                                    f"for column {column} in one poll (a loop or a flood): poll abandoned")


def _index(oid: str, column: str) -> tuple[int, ...]:
    return _oid(oid[len(column) + 1:])


def _sample(target: SnmpTarget, raw: dict[str, int | str], answered: float, wall: float,
            duration: float) -> SnmpSample:
    """Turn the OIDs read (OID -> value) into per-port, per-priority and per-queue counters."""
    by_column: dict[str, dict[tuple[int, ...], int | str]] = {c: {} for c in COLUMNS}
    for oid, value in raw.items():
        for col in COLUMNS:
            if oid.startswith(col + "."):
                by_column[col][_index(oid, col)] = value
                break
    return build_sample(target, raw[oids.SYS_UPTIME], by_column, raw, answered, wall, duration)


def build_sample(target: SnmpTarget, uptime: int, by_column: dict[str, dict[tuple[int, ...], int | str]],
                 raw: dict[str, int | str], answered: float, wall: float, duration: float) -> SnmpSample:
    """The typed sample from the rows each column answered (column -> instance index -> value); a
    poller that walks column by column hands them over as read. ``raw`` is every OID read -> value."""
    empty: dict[tuple[int, ...], int | str] = {}

    def counters(col: str, index_len: int) -> dict[tuple[int, ...], int]:
        """The column's counters; rows of another index shape or type stay in ``raw`` only. A counter is never
        negative nor 2^64 or more (RFC 2578 7.1.6, 7.1.10: Counter32 and Counter64 are unsigned): an agent that
        serves an Integer32 of -5 in a counter column has no counter there (it was read as one, and the next
        reading above it as that many frames)."""
        return {i: v for i, v in by_column.get(col, empty).items()
                if len(i) == index_len and type(v) is int and 0 <= v < _COUNTER_END}

    names, unnamed = port_names(by_column.get(oids.IF_NAME, empty))
    # An ifIndex the other columns serve with no ifName row (ifXEntry AUGMENTS ifEntry, RFC 2863: the agent left it
    # out) names no port either: its number was the port's name in the samples, metrics and history until session 36.
    # Said in one entry however many there are (an SNMP view without ifXTable leaves out every port's).
    nameless = sorted({idx[0] for column, rows in by_column.items() if column != oids.IF_NAME for idx in rows if idx}
                      - names.keys() - unnamed.keys())
    # SONiC's agent serves its PortChannels in the per-priority PFC table too, each row the sum of its
    # members' (sonic-snmpagent ciscoPfcExtMIB.py lag_name_if_name_map): read as a port, a LAG repeats
    # the members' pauses and its sum crosses per-port thresholds no member crosses. Per-port counters stay.
    lags = {idx[0] for idx, v in by_column.get(oids.IF_TYPE, empty).items() if len(idx) == 1 and v == oids.IF_TYPE_LAG}
    per_port = {f: counters(c, 1) for c, f in _PORT_COLUMNS.items()}
    ports = [PortCounters(name, i, **{f: values.get((i,)) for f, values in per_port.items()})
             for i, name in sorted(names.items())]
    prios: dict[tuple[int, ...], dict] = {}
    for col, fname in _PRIORITY_COLUMNS.items():
        for (i, p), v in counters(col, 2).items():
            if i in names and i not in lags:
                prios.setdefault((i, p), {})[fname] = v
    queues: dict[tuple[int, ...], dict] = {}
    for (i, direction, q, stat), v in counters(oids.CSQ_QOS_GROUP_STATS, 4).items():
        if direction == oids.CSQ_EGRESS and stat in _QUEUE_STATS and i in names:
            queues.setdefault((i, q - 1), {})[_QUEUE_STATS[stat]] = v
    watchdog: dict[tuple[int, ...], dict] = {}
    for col, fname in _WATCHDOG_COLUMNS.items():
        for (i, q), v in counters(col, 2).items():  # q: the qos-group, 0-based (counters_oids.CPFC_WD_*)
            if i in names:
                watchdog.setdefault((i, q), {})[fname] = v
    # model_construct: every value was typed above, so pydantic's checks would only repeat them.
    return SnmpSample.model_construct(
        device=target.device, version=target.version, sys_uptime_ticks=uptime,
        monotonic_s=answered, time_unix_s=wall, duration_s=duration, ports=ports,
        priorities=[PriorityCounters(names[i], i, p, **f) for (i, p), f in sorted(prios.items())],
        queues=[QueueCounters(names[i], i, q, **f) for (i, q), f in sorted(queues.items())],
        watchdog=[WatchdogCounters(names[i], i, q, **f) for (i, q), f in sorted(watchdog.items())],
        raw=raw, unread=[f"ifIndex {i}: {why}: its counters are left out" for i, why in sorted(unnamed.items())]
        + [_no_if_name(nameless)] * bool(nameless),
    )


def _no_if_name(if_indexes: list[int], shown: int = 8) -> str:
    """The ``unread`` entry of the ifIndexes whose counters an agent serves without an ifName."""
    listed = ", ".join(map(str, if_indexes[:shown])) + (f" and {len(if_indexes) - shown:,} more"
                                                         if len(if_indexes) > shown else "")
    whose = "its" if len(if_indexes) == 1 else "their"
    return (f"ifIndex {listed}: the agent serves no ifName ({oids.IF_NAME}.<ifIndex>; an SNMP view without ifXTable "
            f"leaves it out): {whose} counters are left out")


def port_names(column: dict[tuple[int, ...], int | str]) -> tuple[dict[int, str], dict[int, str]]:
    """The ifName column as (ifIndex -> port name, ifIndex -> why its ifName names no port). One that cannot be a
    port's name (monitor.port_name_problem: not text, empty, over 255 characters, a control or bidi character) is
    refused, so is one of another type that prints as text (an IpAddress, an OID: ``NotText``), and so are names two
    ifIndexes share (their counters would be one port's, each poll's delta the
    difference between two ports): the agent served it, and it was a metrics label, a history row and a log line."""
    names: dict[int, str] = {}
    unnamed: dict[int, str] = {}
    for idx, value in column.items():
        if len(idx) != 1:
            continue
        if isinstance(value, NotText):
            problem: str | None = (f"an IpAddress or OBJECT IDENTIFIER ({oids.IF_NAME}.{idx[0]}), not an OCTET "
                                   "STRING")
        else:
            problem = port_name_problem(value)
        if problem is None:
            names[idx[0]] = str(value)
        else:
            shown = printable(repr(value[:80]) if isinstance(value, str) else "")
            unnamed[idx[0]] = f"ifName {shown + ' ' if shown else ''}is {problem}"
    by_name: dict[str, list[int]] = {}
    for i, name in names.items():
        by_name.setdefault(name, []).append(i)
    for name, indexes in by_name.items():
        if len(indexes) > 1:
            for i in indexes:
                del names[i]
                unnamed[i] = f"ifName {name!r} is also ifIndex {', '.join(str(j) for j in indexes if j != i)}'s"
    return names, unnamed
