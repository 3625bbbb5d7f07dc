"""Counter sources of the daemon: each turns one poll of one device into a ``Reading``.

A worker process (losslessd.daemon.worker) runs every poller in ``POLLERS`` for the devices of its
shard, each on its own schedule and with its own counter tracker, and feeds their readings to the
same metrics, history and detectors. A new source (gNMI, say) is one more class here:

* ``source``: its name on /metrics (``source`` label) and in logs;
* ``rank``: when a device has several sources, the lowest-ranked one's failures mark it down;
* ``interval_s(settings)``: seconds between two polls of a device (None: the source is off);
* ``targets(settings, devices)``: what ``read`` needs per device, for the devices it serves;
* ``read(device, target)``: one poll; a failed one (no answer, refused, garbage) raises PollFailed
  with the reason, and nothing else;
* ``concurrency(settings, targets)``: reads in flight at once (``poll.concurrency`` unless a read
  holds nothing scarce, as a wait on a gNMI stream does).

A streaming source (gNMI) keeps its subscriptions inside the poller: ``read`` takes the next thing a
device's stream delivered (a sample round, or the failure that broke it), waiting for it if need be.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Collection
from dataclasses import replace
from typing import Any, ClassVar

from .. import counters_oids as oids
from ..collect import COMMAND_FAILED, TIMEOUT
from ..collect.snmp import SnmpError, SnmpSample, make_poller, target_for
from ..collect.ssh import CollectError, Session
from ..inventory import Host
from ..monitor import Reading, clock
from ..monitor.sources import reading_from_commands, reading_from_snmp
from ..platforms import Command
from ..records import record
from .settings import Settings

log = logging.getLogger("losslessd.worker")

_SSH_GRACE_S = 5.0  # past a session's own deadline (it aborts itself) before the thread is written off
_GNMI_CLOSE_S = 5.0  # at a stop, how long the gNMI streams get to close their channels


class PollFailed(Exception):
    """A poll of one device that failed; ``reason`` starts with the SYS code when there is one."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Poller(ABC):
    source: ClassVar[str]
    rank: ClassVar[int]

    def __init__(self, settings: Settings):
        self.settings = settings

    @staticmethod
    @abstractmethod
    def interval_s(settings: Settings) -> float | None:
        """Seconds between two polls of a device; None: this source is off."""

    @abstractmethod
    def targets(self, settings: Settings, devices: Collection[str]) -> dict[str, Any]:
        """Device -> what ``read`` needs, for those of ``devices`` this source serves."""

    @abstractmethod
    async def read(self, device: str, target: Any) -> Reading:
        """One poll of one device; raises PollFailed when it fails."""

    def concurrency(self, settings: Settings, targets: int) -> int:
        """Reads of this source in flight at once, for ``targets`` devices: each holds a socket or a session."""
        return settings.poll.concurrency

    # What bounds concurrency(), and what to raise when every slot is held: named in the late-poll warning
    slots = "poll.concurrency"
    slots_fix = "raise poll.concurrency or the interval"

    def reconfigure(self, settings: Settings) -> None:
        """New settings (a reload): timeouts and the like."""
        self.settings = settings

    def forget(self, device: str) -> None:
        """The device left this worker: drop what is kept for it (sockets, sessions)."""

    def slow_path(self, target: Any) -> str | None:
        """Why a slower path than this source's own polled ``target`` last (counted on /metrics); None: it did not."""
        return None

    async def aclose(self) -> None:
        """Release what the poller holds (at a stop)."""


def snmp_deadline_s(settings: Settings) -> float:
    """The longest one SNMP poll of one device may take: an agent that answers each of a poll's ~40
    requests just inside its timeout must not hold a poll (and a concurrency slot) for minutes."""
    poll = settings.poll
    return max(2 * poll.snmp_interval_s, 4 * poll.snmp_timeout_s * (poll.snmp_retries + 1))


@record(frozen=True)
class _Seen:
    """What a switch's poll read of the counters that say a port's speed may have changed since."""

    uptime_ticks: int
    monotonic_s: float  # (when sysUpTime answered; the walk that follows takes up to duration_s)
    duration_s: float
    ports: dict[str, tuple[int | None, int | None, int | None]]  # port -> ifHCInOctets, ifHCOutOctets, discontinuity

    @classmethod
    def of(cls, sample: SnmpSample) -> _Seen:
        return cls(sample.sys_uptime_ticks, sample.monotonic_s, sample.duration_s,
                   {p.port: (p.in_octets, p.out_octets, p.discontinuity_ticks) for p in sample.ports})


@record
class _Speeds:
    """One switch's ports' speeds as its last ifHighSpeed walk read them (port -> Mb/s) and what its last poll read."""

    mbps: dict[str, int | None]
    seen: _Seen
    polls: int = 0  # polls since the walk
    stale: str | None = None  # why the next poll walks the speeds again


def _speed_change(memo: _Speeds, now: _Seen) -> str | None:
    """Why the speeds walked before may no longer hold; None: they hold. A link renegotiated to another speed keeps
    its counters (RFC 2863 3.1.5: a discontinuity is a counter's restart, not a link's), so a faster line shows only
    as octets the known speed cannot carry; a slower one only loosens the bound until the next walk. Octets are read
    up to a poll's duration after the sysUpTime the interval is measured by: that much is added to the interval."""
    was = memo.seen
    if now.uptime_ticks < was.uptime_ticks:
        return "sysUpTime went back (the agent restarted)"
    if new := [port for port in now.ports if port not in memo.mbps]:
        return f"port {new[0]} is new"
    if moved := [port for port, seen in now.ports.items() if was.ports.get(port, seen)[2] != seen[2]]:
        return f"{moved[0]}'s ifCounterDiscontinuityTime changed"
    span = now.monotonic_s - was.monotonic_s + was.duration_s + now.duration_s
    for port, seen in now.ports.items():
        before, speed = was.ports.get(port), memo.mbps.get(port)
        if before is None or not speed:
            continue
        for a, b in zip(before[:2], seen[:2], strict=True):
            if a is not None and b is not None and (b - a) * 8 > speed * 1e6 * span:
                return f"{port} counted {(b - a) * 8 / span / 1e6:,.0f} Mb/s, above its {speed:,} Mb/s"
    return None


class SnmpCounters(Poller):
    """SNMP counters (losslessd.collect.snmp): the fast poller when it can be imported, else pysnmp. A port's speed
    (ifHighSpeed, one value a port, as many as its counters of one column) changes only when its link comes up again:
    it is walked at a switch's first poll, every ``poll.snmp_speed_every`` polls, and the poll after one that says it
    may have changed (_speed_change); the polls between read the speeds walked last."""

    source = "snmp"
    rank = 10

    def __init__(self, settings: Settings):
        super().__init__(settings)
        poll = settings.poll
        self.poller = make_poller(poll.snmp_backend, timeout_s=poll.snmp_timeout_s, retries=poll.snmp_retries,
                                  concurrency=poll.concurrency, deadline_s=snmp_deadline_s(settings))
        self._speeds: dict[str, _Speeds] = {}  # device -> its ports' speeds as walked last

    @staticmethod
    def interval_s(settings: Settings) -> float | None:
        return settings.poll.snmp_interval_s

    def targets(self, settings: Settings, devices: Collection[str]) -> dict[str, Any]:
        hosts, poll = settings.hosts.hosts, settings.poll
        self.poller.fleet = frozenset(hosts)  # (the inventory as read last: a reload may add or rename devices)
        return {n: target_for(hosts[n], poll.snmp_timeout_s, poll.snmp_retries)
                for n in devices if hosts[n].snmp is not None}

    async def read(self, device: str, target: Any) -> Reading:
        memo = self._speeds.get(device)
        walk = memo is None or memo.stale is not None or memo.polls + 1 >= self.settings.poll.snmp_speed_every
        try:
            sample = await self.poller.poll(target, frozenset() if walk else _KNOWN_SPEEDS)
        except SnmpError as exc:
            if memo is not None:  # (unreachable for a while: its links may have come up again at other speeds)
                memo.stale = "its last poll failed"
            raise PollFailed(f"{exc.sys_code}: {exc.message}") from None
        seen = _Seen.of(sample)
        if walk or memo is None:
            self._speeds[device] = _Speeds({p.port: p.speed_mbps for p in sample.ports}, seen)
        else:
            memo.polls += 1
            memo.stale = _speed_change(memo, seen)
            memo.seen = seen
            if memo.stale is not None:  # this reading bounds no counter by a speed; the next poll walks them
                log.info("%s: walking its ports' speeds at the next poll: %s", device, memo.stale,
                         extra={"device": device, "source": self.source})
            for p in sample.ports:
                p.speed_mbps = None if memo.stale else memo.mbps.get(p.port)
        reading = reading_from_snmp(sample)
        if not reading.values:  # an agent that answers, but not with counters
            raise PollFailed(f"{COMMAND_FAILED}: unusable answer: {_no_counters(sample)}")
        return reading

    def slow_path(self, target: Any) -> str | None:
        return self.poller.fallback_reason(target)

    def reconfigure(self, settings: Settings) -> None:
        super().reconfigure(settings)
        poll = settings.poll
        self.poller.timeout_s, self.poller.retries = poll.snmp_timeout_s, poll.snmp_retries
        self.poller.deadline_s = snmp_deadline_s(settings)

    def forget(self, device: str) -> None:
        self._speeds.pop(device, None)
        forget = getattr(self.poller, "forget", None)
        if forget is not None:
            forget(device)

    async def aclose(self) -> None:
        await self.poller.aclose()


_KNOWN_SPEEDS = frozenset({oids.IF_HIGH_SPEED})  # what a poll between two speed walks leaves out


def counter_host(host: Host) -> Host | None:
    """``host`` with its platform's counter commands in place of its config commands (None: the
    platform serves no counters over its CLI), so collect.ssh.Session runs and checks them."""
    lines = host.platform.counter_commands
    if not lines:
        return None
    return replace(host, platform=replace(
        host.platform, commands=tuple(Command(line) for line in lines)))


class SshCounters(Poller):
    """Counters only a CLI serves (SONiC watchdog and WRED counters, a host's `ethtool -S` and RDMA
    counters), through the same SSH sessions as `pull`, in worker threads."""

    source = "ssh"
    rank = 20

    @staticmethod
    def interval_s(settings: Settings) -> float | None:
        return settings.poll.ssh_counters_interval_s

    def targets(self, settings: Settings, devices: Collection[str]) -> dict[str, Any]:
        if settings.poll.ssh_counters_interval_s is None:
            return {}
        hosts = settings.hosts.hosts
        return {n: c for n in devices if (c := counter_host(hosts[n])) is not None}

    async def read(self, device: str, target: Any) -> Reading:
        host: Host = target
        timeout = self.settings.poll.ssh_timeout_s
        session = Session(host, known_hosts=self.settings.known_hosts_path, timeout=timeout)
        try:
            result = await asyncio.wait_for(asyncio.to_thread(session.run), timeout + _SSH_GRACE_S)
            if result.refused:
                index, why = next(iter(result.refused.items()))
                raise CollectError(COMMAND_FAILED, f"`{result.sections[index][0]}` failed: {why}")
            return reading_from_commands(device, host.platform.id, dict(result.sections), time.monotonic(),
                                         clock.wall())
        except asyncio.TimeoutError:
            session.abort()
            raise PollFailed(f"{TIMEOUT}: no answer within {timeout:g} s{session.during()}") from None
        except asyncio.CancelledError:
            session.abort()
            raise
        except CollectError as exc:
            raise PollFailed(f"{exc.code}: {exc.message}") from None
        except ValueError as exc:
            raise PollFailed(f"{COMMAND_FAILED}: unusable answer: {exc}") from None


class GnmiCounters(Poller):
    """Counters streamed over gNMI (losslessd.collect.gnmi, docs/gnmi.md): one Subscribe of SAMPLE
    subscriptions per device with a ``data.gnmi`` inventory entry, kept open by a ``follow`` task that
    re-subscribes with backoff when it breaks. A read takes the next thing the device's stream
    delivered: a complete sample round (a Reading), or the failure that broke it (PollFailed), so a
    device served by gNMI alone is marked down by its stream's failures. A stream starts at the
    device's first read and starts again when its target (address, login, interval...) changed."""

    source = "gnmi"
    rank = 15  # below SNMP (a device read both ways is marked down by SNMP), above the CLI's counters

    def __init__(self, settings: Settings):
        super().__init__(settings)
        self._streams: dict[str, _Stream] = {}

    @staticmethod
    def interval_s(settings: Settings) -> float | None:
        if not any(h.gnmi is not None for h in settings.hosts.hosts.values()):
            return None
        return settings.poll.gnmi_sample_interval_s

    def targets(self, settings: Settings, devices: Collection[str]) -> dict[str, Any]:
        hosts, poll = settings.hosts.hosts, settings.poll
        served = {n: hosts[n] for n in devices if hosts[n].gnmi is not None}
        if not served:
            return {}
        from ..collect.gnmi import GnmiTarget  # grpcio comes with the `gnmi` extra (load_settings checked it)

        return {n: GnmiTarget(device=n, host=h.gnmi.hostname, port=h.gnmi.port, platform=h.platform.id,
                              username=h.gnmi.username, password=h.gnmi.password, tls=h.gnmi.tls,
                              ca_file=h.gnmi.ca_file, server_name=h.gnmi.server_name,
                              sample_interval_s=poll.gnmi_sample_interval_s, timeout_s=poll.gnmi_timeout_s)
                for n, h in served.items()}

    def concurrency(self, settings: Settings, targets: int) -> int:
        return max(1, targets)  # a read waits on a stream that is open anyway: it holds nothing scarce

    slots = "one per device streamed"
    slots_fix = "raise the interval (each stream delivers later than it)"

    async def read(self, device: str, target: Any) -> Reading:
        poll = self.settings.poll
        backoff = (poll.backoff_initial_s, poll.backoff_max_s)
        stream = self._streams.get(device)
        if stream is None or not stream.follows(target, backoff) or (stream.ended and not stream.delivered):
            if stream is not None:
                stream.close()
            stream = self._streams[device] = _Stream(target, backoff)
        return await stream.next()

    def forget(self, device: str) -> None:
        stream = self._streams.pop(device, None)
        if stream is not None:
            stream.close()

    async def aclose(self) -> None:
        streams = list(self._streams.values())
        self._streams.clear()
        for stream in streams:
            stream.close()
        if streams:  # each closes its channel; a stop never waits on one for long
            await asyncio.wait([s.task for s in streams], timeout=_GNMI_CLOSE_S)


class _Stream:
    """One device's subscription (a ``follow`` task) and what it delivered that no read took yet."""

    KEEP = 3  # rounds kept for a late read; older ones are dropped (the next rates then span more time)

    def __init__(self, target: Any, backoff: tuple[float, float]):
        self.target = target
        self.key = _stream_key(target, backoff)
        self.backoff = backoff
        self.delivered: deque[Reading | str] = deque(maxlen=self.KEEP)  # a str is a failure's reason
        self.arrived = asyncio.Event()
        self.ended = False  # the follow task is over (closed, or a bug of ours stopped it)
        self.task = asyncio.create_task(self._follow(), name=f"gnmi:{target.device}")

    def follows(self, target: Any, backoff: tuple[float, float]) -> bool:
        return self.key == _stream_key(target, backoff)

    def _deliver(self, item: Reading | str) -> None:
        self.delivered.append(item)
        self.arrived.set()

    async def _follow(self) -> None:
        from ..collect.gnmi import follow

        try:
            await follow(self.target, lambda reading, _: self._deliver(reading),
                         lambda exc, _: self._deliver(f"{exc.sys_code}: {exc.message}"),
                         backoff_initial_s=self.backoff[0], backoff_max_s=self.backoff[1])
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug of ours: logged, the device reads as failing, the next read starts it again
            log.exception("gNMI stream of %s stopped unexpectedly", self.target.device,
                          extra={"device": self.target.device, "source": "gnmi"})
            self._deliver("internal error in the gNMI client")
        finally:
            self.ended = True
            self.arrived.set()

    async def next(self) -> Reading:
        """The next round, or PollFailed with the failure delivered before it. The stream delivers
        something within its backoff plus its stall limit (collect.gnmi); the wait is bounded past that."""
        t = self.target
        limit = self.backoff[1] + 4 * t.sample_interval_s + 2 * t.timeout_s
        while not self.delivered:
            if self.ended:
                raise PollFailed("the gNMI stream was closed")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), limit)
            except asyncio.TimeoutError:
                raise PollFailed(f"{TIMEOUT}: the gNMI stream of {t.host}:{t.port} delivered nothing "
                                 f"for {limit:.0f} s") from None
        item = self.delivered.popleft()
        if isinstance(item, str):
            raise PollFailed(item)
        return item

    def close(self) -> None:
        self.task.cancel()
        self.ended = True
        self.arrived.set()  # a read waiting on it returns


def _stream_key(target: Any, backoff: tuple[float, float]) -> tuple:
    """What a stream is opened with. A Secret compares by identity and a reload loads new ones: the
    password is compared by value, so an unchanged login keeps its stream."""
    password = target.password.reveal() if target.password is not None else None
    return replace(target, password=None), password, backoff


# Every counter source, in rank order.
POLLERS: list[type[Poller]] = [SnmpCounters, GnmiCounters, SshCounters]


def _no_counters(sample: SnmpSample) -> str:
    """Why an SNMP answer gave no counters: what the agent served in their place, if anything."""
    if not sample.ports and sample.unread:  # counters served, but of no port it names
        more = len(sample.unread) - 1
        return f"no port could be named: {sample.unread[0]}" + (f" (and {more} more unread)" if more else "")
    served = [(oid, v) for oid, v in sample.raw.items() if isinstance(v, str) and not oid.startswith(oids.IF_NAME + ".")]
    if not served:
        return f"the agent serves none of the counter columns ({len(sample.ports)} ports)"
    oid, value = served[0]
    return f"{len(served)} counters are not numbers (e.g. {oid} = {value[:40]!r})"
