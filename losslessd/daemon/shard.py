"""Who polls which device: a fleet split across daemons (``--shard i/n``) and, inside a daemon,
across its worker processes. Both splits are pure functions of the device name, so daemons split a
fleet with no coordination and a device keeps its worker across reloads and restarts.

The daemon split is Prometheus' ``hashmod`` relabel action on the device name: the last 8 bytes of
its MD5, big-endian, modulo n (prometheus model/relabel/relabel.go, ``case HashMod``). A Prometheus
server sharded with ``hashmod`` on the ``device`` label therefore splits the same way. The worker
split uses the first 8 bytes of the same digest, so it is independent of the daemon split (the
devices of daemon i/n do not all land on one worker when n and the worker count share a factor).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from ..lazyre import lazy
from ..records import record

# ASCII digits, at most 20 (2**64 - 1 has 20): \d also reads other scripts' digits, and 5,000 of them stopped
# int() with Python's own "Exceeds the limit (4300 digits)" message.
_SHARD = lazy(r"(\d{1,20})/(\d{1,20})", re.ASCII)
# Prometheus' hashmod modulus is a uint64 (model/relabel/relabel.go, Config.Modulus): a larger n is no hashmod.
MAX_SHARDS = 2**64 - 1


@record(frozen=True)
class Shard:
    """This daemon's part of the fleet: devices whose hashmod(name, count) is ``index``."""

    index: int = 0
    count: int = 1

    def __post_init__(self):
        if not 1 <= self.count <= MAX_SHARDS or not 0 <= self.index < self.count:
            raise ValueError(f"shard {self.index}/{self.count}: give i/n with 0 <= i < n <= 2^64 - 1 (Prometheus' "
                             "hashmod modulus is a uint64)")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, device: str) -> bool:
        return self.count == 1 or hashmod(device, self.count) == self.index

    def select(self, devices: Iterable[str]) -> list[str]:
        return [d for d in devices if self.owns(d)]


def parse_shard(text: str) -> Shard:
    """``"1/4"`` -> Shard(1, 4); ValueError naming the expected form otherwise."""
    m = _SHARD.fullmatch(text.strip())
    if not m:
        raise ValueError(f"shard {text[:80]!r}: give i/n, e.g. 0/2 (this daemon polls the devices whose hashmod of "
                         "the name by n is i)")
    return Shard(int(m[1]), int(m[2]))


def _digest(name: str) -> bytes:
    return hashlib.md5(name.encode(), usedforsecurity=False).digest()


def hashmod(name: str, modulus: int) -> int:
    """Prometheus' hashmod of ``name``: uint64 of the MD5's last 8 bytes (big-endian) mod ``modulus``."""
    return int.from_bytes(_digest(name)[8:], "big") % modulus


def worker_of(name: str, workers: int) -> int:
    """The worker process (0 .. workers-1) that polls ``name``."""
    return int.from_bytes(_digest(name)[:8], "big") % workers


def split(devices: Iterable[str], workers: int) -> list[list[str]]:
    """``devices`` as one list per worker."""
    out: list[list[str]] = [[] for _ in range(workers)]
    for device in devices:
        out[worker_of(device, workers)].append(device)
    return out
