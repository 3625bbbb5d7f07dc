"""SIGHUP before the daemon's event loop takes it: noted, not fatal.

A SIGHUP's default action ends a process. The daemon's loop handles SIGHUP once it runs, but loading the settings and
the inventory and importing the pollers take seconds first (a large inventory, a loaded host), and a reload asked then
(a config-management run, a `systemctl reload` racing a restart, `kill -HUP`) killed the daemon. `hold()` is the daemon
command's first step: from then on a SIGHUP is remembered, and the daemon reloads once it has started
(service.Daemon.run asks `asked()`).
"""

from __future__ import annotations

import signal

_asked = False


def _note(_signum: int, _frame) -> None:
    global _asked
    _asked = True


def hold() -> None:
    """From now until the event loop installs its own handler, a SIGHUP asks for a reload instead of ending us."""
    global _asked
    _asked = False
    signal.signal(signal.SIGHUP, _note)


def asked() -> bool:
    """Whether a SIGHUP came while held (and forget it: one reload answers every such signal)."""
    global _asked
    was, _asked = _asked, False
    return was
