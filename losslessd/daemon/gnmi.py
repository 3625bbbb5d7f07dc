"""The daemon's gNMI side: one streaming task per device with a ``data.gnmi`` inventory entry
(losslessd.collect.gnmi.follow), started, restarted on a changed target, and stopped as the
inventory changes. Each complete sample round is handed to the daemon like an SNMP poll's reading,
each failure like a failed poll; a device's failures and reconnects touch no other device's stream.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from ..inventory import Host
from ..monitor import Reading

log = logging.getLogger("losslessd.daemon")


def gnmi_targets(hosts: dict[str, Host], sample_interval_s: float, timeout_s: float) -> dict:
    """GnmiTarget per device that has gNMI settings (imports grpcio only when one has)."""
    specs = {name: h for name, h in hosts.items() if h.gnmi is not None}
    if not specs:
        return {}
    from ..collect.gnmi import GnmiTarget

    return {name: GnmiTarget(device=name, host=h.gnmi.hostname, port=h.gnmi.port, platform=h.platform.id,
                             username=h.gnmi.username, password=h.gnmi.password, tls=h.gnmi.tls,
                             ca_file=h.gnmi.ca_file, server_name=h.gnmi.server_name,
                             sample_interval_s=sample_interval_s, timeout_s=timeout_s)
            for name, h in specs.items()}


class GnmiStreams:
    """Keeps one ``follow`` task per target; ``on_reading(reading, started)`` and
    ``on_failure(device, started, reason)`` run on the loop."""

    def __init__(self, on_reading: Callable[[Reading, float], None], on_failure: Callable[[str, float, str], None]):
        self.on_reading = on_reading
        self.on_failure = on_failure
        self.targets: dict = {}
        self.backoff = (10.0, 300.0)
        self._tasks: dict[str, asyncio.Task] = {}

    def set_targets(self, targets: dict, backoff_initial_s: float, backoff_max_s: float) -> None:
        """Follow exactly ``targets``: new or changed ones (re)start, removed ones stop."""
        changed = (backoff_initial_s, backoff_max_s) != self.backoff
        self.backoff = (backoff_initial_s, backoff_max_s)
        for name in list(self._tasks):
            if name not in targets or targets[name] != self.targets.get(name) or changed:
                self._tasks.pop(name).cancel()
        self.targets = dict(targets)
        for name, target in targets.items():
            if name not in self._tasks:
                self._tasks[name] = asyncio.create_task(self._follow(target), name=f"gnmi:{name}")

    async def _follow(self, target) -> None:
        from ..collect.gnmi import follow

        def failed(exc, started: float) -> None:
            self.on_failure(target.device, started, f"{exc.sys_code}: {exc.message}")

        try:
            await follow(target, self.on_reading, failed, backoff_initial_s=self.backoff[0],
                         backoff_max_s=self.backoff[1])
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug of ours: log it, and the device reads as failing rather than silent
            log.exception("gNMI stream of %s stopped unexpectedly", target.device, extra={"device": target.device})
            self.on_failure(target.device, time.monotonic(), "internal error in the gNMI client")

    async def aclose(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
