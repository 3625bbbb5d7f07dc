"""gNMI streaming counter client: one Subscribe (mode STREAM, SAMPLE subscriptions) per device over
grpcio's asyncio API, with the gNMI protobufs pygnmi ships (pygnmi.spec.v080), turned into the same
``Reading``s as the SNMP poller's (losslessd.monitor.gnmi parses the platform's paths).

Why not pygnmi's own gNMIclient: it trusts a certificate fetched from the device when no CA is given,
sets GRPC_SSL_CIPHER_SUITES in the process environment on a slow connect, and runs each subscription
in a thread with an unbounded queue (a device that floods grows it without limit). Here every stream
is a task on the daemon's loop, TLS verifies against the given CA (or the system's trust store), and
what one device sends is bounded: a message size cap, a cap on counters kept, a flood check.

A *round* is one sample of every subscribed path: SAMPLE sends each path once per interval, leaf by
leaf on OpenConfig devices and one JSON object per path on SONiC. The initial updates before
``sync_response`` tell how many updates of each kind a round holds; a round is complete when as many
arrived again (or, if the device sends fewer, when 1.5 intervals passed). Each complete round is one
``Reading``. Failures raise GnmiError with the SYS code a poll failure carries; messages never
contain the password.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

# gRPC's C core logs every GOAWAY of a restarting device at info level on stderr, past our JSON log;
# its warnings and errors still show. An operator's own GRPC_VERBOSITY wins.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
import grpc  # noqa: E402
from pygnmi.spec.v080 import gnmi_pb2  # noqa: E402
from pygnmi.spec.v080.gnmi_pb2_grpc import gNMIStub  # noqa: E402

from ..credentials import Secret  # noqa: E402
from ..docpos import json_value  # noqa: E402
from ..monitor import Key, Reading, clock  # noqa: E402
from ..monitor.gnmi import PATHS, Elem, GnmiPath, oc_container, parse_openconfig, parser  # noqa: E402
from . import AUTH_FAILED, HOST_KEY, MASK, TIMEOUT, UNREACHABLE, DeviceError  # noqa: E402
from .pull import backoff  # noqa: E402

log = logging.getLogger(__name__)

# Largest message accepted from a device: a 64-port SONiC COUNTERS/Ethernet* object is about 0.4 MB
# (about 100 SAI counters a port); 16 MiB leaves room for 2,000 ports and stops a runaway answer.
MAX_MESSAGE_BYTES = 16 * 2**20
MAX_KEYS = 500_000  # counters kept per device (a 64-port switch has about 5,000)
ROUND_GRACE = 1.5  # a round that holds fewer updates than the initial one ends this many intervals after it began
STALL_INTERVALS = 3.0  # no complete round for this many intervals (plus the timeout): the stream stalled
FLOOD_ROUNDS = 5  # this many rounds in a row, each sooner than FLOOD_SHARE of an interval: the device floods
FLOOD_SHARE = 0.25
FLOOD_UPDATES = 20  # a round with this many times the updates of the initial one: the device floods


class GnmiError(DeviceError):
    """A failed gNMI subscription; ``sys_code`` is the SYS finding it becomes (SYS014: bad answer)."""


class GnmiUnreachable(GnmiError):
    sys_code = UNREACHABLE


class GnmiAuthError(GnmiError):
    sys_code = AUTH_FAILED


class GnmiTlsError(GnmiError):
    """The device's certificate did not verify against the CA (the TLS analogue of a host key)."""

    sys_code = HOST_KEY


class GnmiTimeout(GnmiError):
    sys_code = TIMEOUT


@dataclass(frozen=True)
class GnmiTarget:
    """One device to subscribe to."""

    device: str
    host: str
    port: int
    platform: str  # losslessd.platforms id: which path set (losslessd.monitor.gnmi.PATHS)
    username: str | None = None
    password: Secret | None = field(default=None, repr=False)
    tls: bool = True
    ca_file: Path | None = None  # None: the system's trust store
    server_name: str | None = None  # the name the certificate must carry, when not ``host``
    sample_interval_s: float = 10.0
    timeout_s: float = 10.0  # connecting, and the wait for the first answer

    @property
    def paths(self) -> tuple[GnmiPath, ...]:
        return PATHS[self.platform]


def supported(platform: str) -> bool:
    return platform in PATHS


def subscribe_request(target: GnmiTarget) -> gnmi_pb2.SubscribeRequest:
    """STREAM of SAMPLE subscriptions to the platform's paths at the target's interval."""
    paths = target.paths
    ns = int(target.sample_interval_s * 1e9)
    prefix = gnmi_pb2.Path(target=paths[0].target, origin=paths[0].origin)
    subs = [gnmi_pb2.Subscription(path=_path(p.elems), mode=gnmi_pb2.SAMPLE, sample_interval=ns) for p in paths]
    encoding = gnmi_pb2.JSON_IETF
    return gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        prefix=prefix, subscription=subs, mode=gnmi_pb2.SubscriptionList.STREAM, encoding=encoding))


def _path(elems: tuple[Elem, ...]) -> gnmi_pb2.Path:
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=dict(k)) for n, k in elems])


def elems_of(path: gnmi_pb2.Path) -> tuple[Elem, ...]:
    out: tuple[Elem, ...] = tuple((e.name, tuple(sorted(e.key.items()))) for e in path.elem)
    if not out and path.element:  # the deprecated string elements (gNMI before 0.4)
        out = tuple((name, ()) for name in path.element)
    return out


def decode(value: gnmi_pb2.TypedValue) -> object:
    """A TypedValue as Python: JSON decoded, numbers as int, text as str."""
    kind = value.WhichOneof("value")
    if kind in ("json_ietf_val", "json_val"):
        return json_value(getattr(value, kind))  # (a ValueError, never a RecursionError, for a device's deep JSON)
    if kind in ("uint_val", "int_val", "string_val", "ascii_val", "bool_val"):
        return getattr(value, kind)
    raise ValueError(f"a {kind or 'empty'} value where a counter was expected")


class _Rounds:
    """Counter values of one device's stream, cut into rounds (see the module docstring)."""

    def __init__(self, target: GnmiTarget):
        self.target = target
        self.parse = parser(target.platform)
        self.leaves = oc_container if self.parse is parse_openconfig else None
        self.values: dict[Key, int] = {}
        self.bits: dict[Key, int] = {}
        self.expected: Counter[str] | None = None  # updates per kind of a full round (None: before sync)
        self.counts: Counter[str] = Counter()
        self.started: float | None = None  # monotonic time of the round's first update
        self.started_wall = 0.0
        self.last_emit: float | None = None
        self.quick = 0  # rounds in a row that came too soon

    def add(self, notification: gnmi_pb2.Notification, now: float) -> None:
        prefix = elems_of(notification.prefix)
        try:
            if self.leaves is not None and all(len(u.path.elem) == 1 and not u.path.elem[0].key
                                               for u in notification.update):
                # OpenConfig leaf by leaf under one prefix: one container, parsed in one call
                found = [self.leaves(prefix, {u.path.elem[0].name: decode(u.val) for u in notification.update})]
            else:
                found = [self.parse(prefix + elems_of(u.path), decode(u.val)) for u in notification.update]
        except ValueError as exc:
            raise GnmiError(self.target.device, f"unusable answer: {exc}") from None
        for parsed in found:
            if self.started is None:
                self.started, self.started_wall = now, clock.wall()
            self.values.update(parsed.values)
            self.bits.update(parsed.bits)
            self.counts[parsed.kind] += parsed.updates
        if len(self.values) > MAX_KEYS:
            raise GnmiError(self.target.device, f"floods: more than {MAX_KEYS} counters")
        if self.expected and sum(self.counts.values()) > FLOOD_UPDATES * max(1, sum(self.expected.values())):
            raise GnmiError(self.target.device, f"floods: {sum(self.counts.values())} updates in one round "
                                                f"(a round held {sum(self.expected.values())})")

    def complete(self) -> bool:
        return self.expected is not None and self.started is not None and \
            all(self.counts[kind] >= n for kind, n in self.expected.items())

    def synced(self) -> None:
        self.expected = +self.counts

    def deadline(self) -> float:
        """When to stop waiting: the round's grace, else the stall limit after the last round."""
        t = self.target
        if self.started is not None and self.expected is not None:
            return self.started + ROUND_GRACE * t.sample_interval_s
        since = self.last_emit if self.last_emit is not None else time.monotonic()
        return since + STALL_INTERVALS * t.sample_interval_s + t.timeout_s

    def emit(self, partial: bool = False) -> Reading:
        """The round as a Reading; a partial round re-learns what a round holds."""
        if not self.values:
            raise GnmiError(self.target.device, "unusable answer: the device serves none of the counter paths "
                                                f"({', '.join(p.text for p in self.target.paths)})")
        if partial:
            self.expected = +self.counts
        now = time.monotonic()
        interval = self.target.sample_interval_s
        if self.last_emit is not None and now - self.last_emit < FLOOD_SHARE * interval:
            self.quick += 1
            if self.quick >= FLOOD_ROUNDS:
                raise GnmiError(self.target.device, f"floods: {self.quick} rounds in a row sooner than "
                                                    f"{FLOOD_SHARE * interval:g} s apart (sample interval {interval:g} s)")
        else:
            self.quick = 0
        reading = Reading(device=self.target.device, monotonic_s=self.started, time_unix_s=self.started_wall,
                          uptime_ticks=None, values=self.values, bits=self.bits)
        # SAMPLE resends every path each round: a counter a round lacks is unknown for it (Rates.absent), never its
        # value of a round before, which would read as no change (a storm as quiet).
        self.values, self.bits = {}, {}
        self.counts.clear()
        self.started, self.last_emit = None, now
        return reading


def channel(target: GnmiTarget) -> grpc.aio.Channel:
    address = f"[{target.host}]:{target.port}" if ":" in target.host else f"{target.host}:{target.port}"
    options: list[tuple[str, int | str]] = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
               ("grpc.enable_retries", 0)]  # reconnecting is ours, with backoff
    if not target.tls:
        return grpc.aio.insecure_channel(address, options=options)
    if target.server_name:
        options.append(("grpc.ssl_target_name_override", target.server_name))
    root = target.ca_file.read_bytes() if target.ca_file is not None else None
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=root), options=options)


def _metadata(target: GnmiTarget) -> tuple[tuple[str, str], ...]:
    """gNMI's username/password call metadata (gnmi-specification.md section 3.1: "username" and
    "password" keys), as SONiC's telemetry, EOS and pygnmi send them."""
    if target.username is None or target.password is None:
        return ()
    return (("username", target.username), ("password", target.password.reveal()))


async def stream(target: GnmiTarget) -> AsyncIterator[Reading]:
    """Subscribe and yield one Reading per complete round, until cancelled; raises GnmiError."""
    rounds = _Rounds(target)
    where = f"{target.host}:{target.port}"
    try:
        ch = channel(target)
    except OSError as exc:
        raise GnmiError(target.device, f"CA file {target.ca_file}: {exc.strerror or exc}") from None
    hold = asyncio.Event()  # the request stream stays open: half-closing it ends some targets' streams

    async def requests():
        yield subscribe_request(target)
        await hold.wait()

    call = gNMIStub(ch).Subscribe(requests(), metadata=_metadata(target))
    # A read outlives a timeout (the next turn awaits it again) and is only ever ended by cancelling the
    # call: a cancelled grpc.aio read can wait for its message for ever (seen with a device blocked
    # sending, its flow-control window full), which hung asyncio.wait_for and whoever cancelled the stream.
    read: asyncio.Future | None = None
    try:
        while True:
            wait = max(0.0, rounds.deadline() - time.monotonic())
            if read is None:
                read = asyncio.ensure_future(call.read())
                read.add_done_callback(_retrieved)
            done, _ = await asyncio.wait({read}, timeout=wait)
            if not done:
                if rounds.started is not None and rounds.expected is not None:
                    yield rounds.emit(partial=True)
                    continue
                what = "no sync_response" if rounds.expected is None else "no update"
                raise GnmiTimeout(target.device, f"{what} from {where} within {wait:.0f} s (stream stalled)")
            response, read = read.result(), None
            if response is grpc.aio.EOF:
                raise GnmiUnreachable(target.device, f"{where} ended the subscription")
            now = time.monotonic()
            kind = response.WhichOneof("response")
            if kind == "update":
                rounds.add(response.update, now)
            elif kind == "sync_response":
                rounds.synced()
                if rounds.started is not None:
                    yield rounds.emit()
                continue
            elif kind == "error":
                raise GnmiError(target.device, f"{where} answered an error: {response.error.message[:200]}")
            if rounds.complete():
                yield rounds.emit()
    except grpc.aio.AioRpcError as exc:
        raise _error(target, exc) from None
    finally:
        call.cancel()
        await ch.close()


def _retrieved(read: asyncio.Future) -> None:
    """A read pending when the stream ended ends with an error that is no news (the stream's says why)."""
    if not read.cancelled():
        read.exception()


def _error(target: GnmiTarget, exc: grpc.aio.AioRpcError) -> GnmiError:
    where = f"{target.host}:{target.port}"
    code, details = exc.code(), (exc.details() or "")[:300]
    if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        return GnmiAuthError(target.device, f"{where} refused the login of {target.username!r}: {details}")
    if code == grpc.StatusCode.UNAVAILABLE and ("CERTIFICATE_VERIFY_FAILED" in details or "ssl" in details.lower()
                                                 or "handshake" in details.lower()):
        ca = target.ca_file or "the system trust store"
        return GnmiTlsError(target.device, f"the TLS certificate of {where} did not verify against {ca}: {details}")
    if code == grpc.StatusCode.UNAVAILABLE:
        return GnmiUnreachable(target.device, f"cannot reach {where}: {details}")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return GnmiTimeout(target.device, f"no answer from {where}: {details}")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return GnmiError(target.device, f"floods: {where} sent more than {MAX_MESSAGE_BYTES} bytes in one message")
    return GnmiError(target.device, f"{where} failed the subscription: {code.name}: {details}")


def masked(target: GnmiTarget, error: GnmiError) -> GnmiError:
    """``error`` with the login password written ******** in its message: a device's error details and values
    are quoted in it (a target answering "bad password 'hunter2'" had its words logged and exported as they came)."""
    secret = target.password.reveal() if target.password is not None else ""
    if secret and secret in error.message:
        return type(error)(error.device, error.message.replace(secret, MASK))
    return error


async def follow(target: GnmiTarget, on_reading: Callable[[Reading, float], None],
                 on_failure: Callable[[GnmiError, float], None], *, backoff_initial_s: float = 10.0,
                 backoff_max_s: float = 300.0, rand: Callable[[], float] = random.random,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
    """Keep ``target`` subscribed until cancelled: each round goes to ``on_reading(reading, started)``,
    each failure to ``on_failure(error, started)``, then a reconnect after a growing backoff."""
    failures = 0
    while True:
        started = time.monotonic()
        try:
            async for reading in stream(target):
                failures = 0
                on_reading(reading, started)
                started = time.monotonic()
        except GnmiError as exc:
            failures += 1
            on_failure(masked(target, exc), started)
        except (OSError, ValueError) as exc:  # what grpc refuses before a call starts (a bad address)
            failures += 1
            on_failure(masked(target, GnmiUnreachable(target.device, f"cannot subscribe: {exc}")), started)
        await sleep(backoff(max(failures, 1), backoff_initial_s, backoff_max_s, rand))  # a stream only ends failing
