"""systemd's sd_notify protocol without libsystemd: newline-separated VAR=VALUE datagrams sent to the
AF_UNIX socket named by $NOTIFY_SOCKET (sd_notify(3); a leading "@" means the Linux abstract
namespace). READY=1 once the first poll round is scheduled, WATCHDOG=1 every WatchdogSec/2 (systemd
passes WatchdogSec as $WATCHDOG_USEC, and $WATCHDOG_PID when it is meant for one process only),
RELOADING=1 then READY=1 around a reload, STOPPING=1 on the way out, STATUS=... for `systemctl status`.

Outside systemd (no $NOTIFY_SOCKET) every call does nothing. A failed send is logged once, never
raised: the daemon's work matters more than its report to the service manager.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Mapping

from ..units import is_small_int

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET") or None
        if address and address.startswith("@"):
            address = "\0" + address[1:]
        self.address = address
        self.watchdog_interval_s: float | None = None
        usec, pid = env.get("WATCHDOG_USEC"), env.get("WATCHDOG_PID")
        if address and usec and is_small_int(usec, 20) and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_interval_s = int(usec) / 1e6 / 2  # sd_watchdog_enabled(3): ping at half the timeout
        self._failed = False

    def send(self, *fields: str) -> bool:
        """Send ``fields`` (VAR=VALUE each) as one datagram; True when it went out."""
        if not self.address:
            return False
        message = "\n".join(fields).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                # MSG_DONTWAIT: a manager that does not read fills its queue (net.unix.max_dgram_qlen, 10 by
                # default), and a blocking send would then stall the event loop that polls (EAGAIN instead).
                sock.sendto(message, socket.MSG_DONTWAIT, self.address)
            return True
        except OSError as exc:
            if not self._failed:
                log.warning("cannot notify the service manager at %s: %s", self.address.replace("\0", "@"), exc)
                self._failed = True
            return False

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={status}")

    def reloading(self) -> bool:
        """Followed by ready() when the reload is over; MONOTONIC_USEC is what systemd 253's
        Type=notify-reload asks to come with it (sd_notify(3))."""
        return self.send("RELOADING=1", f"MONOTONIC_USEC={time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1", "STATUS=stopping")
