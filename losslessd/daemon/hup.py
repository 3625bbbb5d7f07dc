"""SIGHUP before the daemon's event loop takes it: noted, not fatal.

A SIGHUP's default action ends a process. The daemon's loop handles SIGHUP once it runs, but loading the settings and
the inventory and importing the pollers take seconds first (a large inventory, a loaded host), and a reload asked then
(a config-management run, a `systemctl reload` racing a restart, `kill -HUP`) killed the daemon. `hold()` is the daemon
command's first step: from then on a SIGHUP is remembered, and the daemon reloads once it has started
(service.Daemon.run asks `asked()`). The command line's own imports (typer, click, rich: about a second, three on a
loaded host) come before the command runs, so `hold_for_daemon_command` holds it earlier still, as the package
losslessd.cli is imported (before them) by a process whose command is `losslessd daemon`.
"""

from __future__ import annotations

import os
import signal

_asked = False


def _note(_signum: int, _frame) -> None:
    global _asked
    _asked = True


def hold() -> None:
    """From now until the event loop installs its own handler, a SIGHUP asks for a reload instead of ending us
    (held already: a SIGHUP noted since is kept)."""
    global _asked
    if signal.getsignal(signal.SIGHUP) is _note:
        return
    _asked = False
    signal.signal(signal.SIGHUP, _note)


def hold_for_daemon_command(argv: list[str]) -> None:
    """hold() when ``argv`` is the losslessd command's and its command is `daemon` (the global options before it are
    flags: --debug, --version); anything else is left alone."""
    command = next((a for a in argv[1:] if not a.startswith("-")), None)
    program = os.path.basename(argv[0]) if argv else ""
    if command == "daemon" and (program == "losslessd" or argv[0].endswith("losslessd/__main__.py")):
        hold()


def asked() -> bool:
    """Whether a SIGHUP came while held (and forget it: one reload answers every such signal)."""
    global _asked
    was, _asked = _asked, False
    return was
