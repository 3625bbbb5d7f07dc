"""The running simulator's control channel: `losslessd sim storm|congest|stall|...` start and stop faults on a
`losslessd sim` from another shell, as the Python API (Simulator.storm, ...) does in tests.

A unix socket, ``control.sock`` in the simulator's --out folder, mode 0600 before it accepts anything: only the user
who started the simulator reaches it (and the server checks the peer's uid where the kernel tells it), nothing
listens on a network. A request is one JSON object on one line naming a fault of FAULTS and its arguments, checked
against that table; no code, no attribute name and no file path is taken from it. A socket left by a simulator that
crashed is found stale (nothing accepts on it) and replaced; one a live simulator holds refuses a second one on the
same folder, which would rewrite its inventory.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import socket
import stat
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..lint.finding import few
from ..model import DeviceKind
from ..simcontrol import TIMEOUT_S, address, read_line, socket_path

if TYPE_CHECKING:
    from . import SimDevice, Simulator

log = logging.getLogger(__name__)

_NAMED = 12  # names a refusal lists, the rest counted: a 200-switch fleet's names would not fit a reply
_KEYS = {"fault", "device", "port", "priority", "on", "for_s", "ecn_healthy", "after_s"}  # what a request may hold


class ControlError(ValueError):
    """A request the simulator cannot carry out (unknown device, port, priority): the client's exit 2."""


@dataclass(frozen=True)
class Fault:
    """A fault the channel starts: the arguments it takes (what each does: the `sim` subcommands' help)."""

    port: bool  # takes PORT
    priority: bool  # takes --priority
    switch: bool  # that lasts (on/off, --for); False: a one-off event (a reset)
    hosts_only: bool = False
    snmp: bool = False  # needs the device's SNMP agent


FAULTS: dict[str, Fault] = {
    "storm": Fault(port=True, priority=True, switch=True),  # Simulator.storm
    "congest": Fault(port=True, priority=True, switch=True),  # Simulator.congest
    "stall": Fault(port=True, priority=False, switch=True, hosts_only=True),  # Simulator.stall
    "down": Fault(port=False, priority=False, switch=True),  # Simulator.set_down
    "reset": Fault(port=False, priority=False, switch=False),  # Simulator.reset_counters
    "syncd-restart": Fault(port=False, priority=False, switch=False),  # Simulator.syncd_restart
    "wrap32": Fault(port=False, priority=False, switch=False, snmp=True),  # Simulator.wrap32
}


class ControlServer:
    """Serves FAULTS on ``out``/control.sock for ``sim`` in a thread, one request per connection."""

    def __init__(self, sim: Simulator, out: Path):
        self.sim = sim
        self.path = socket_path(out)
        self._lock = threading.Lock()
        self._timers: dict[tuple, threading.Timer] = {}  # (fault, device, port, priority) -> its end (--for)
        self._stop = threading.Event()
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._bound: tuple[int, int] | None = None  # the socket file's (device, inode) once bound

    def start(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            # 0600 as bind makes it (its mode is the umask's, unix(7)): a chmod after it follows whatever another
            # user of a shared --out put at the name meanwhile, and a failed bind left someone else's file there
            previous = os.umask(0o177)
            try:
                with address(self.path) as where:
                    sock.bind(where)
            finally:
                os.umask(previous)
            made = os.lstat(self.path)
            if stat.S_ISSOCK(made.st_mode) and made.st_uid == os.getuid():  # (no other user makes a file ours)
                self._bound = made.st_dev, made.st_ino
            if self._bound is None or made.st_mode & 0o077:
                raise OSError(errno.EPERM, f"{self.path} is not this user's 0600 socket after bind (a default ACL on "
                              "--out, or another user's file put there): give a folder only you can write")
            sock.listen(8)
        except OSError:
            sock.close()
            self._unlink_own()
            raise
        sock.settimeout(0.5)
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="sim-control", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._sock is not None:
            self._sock.close()
            self._unlink_own()
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()

    def _unlink_own(self) -> None:
        """Remove the socket this server bound, and nothing another process put at its name since."""
        with contextlib.suppress(OSError):
            there = os.lstat(self.path)
            if (there.st_dev, there.st_ino) == self._bound:
                self.path.unlink()

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                try:
                    conn.settimeout(TIMEOUT_S)
                    reply = self.answer(read_line(conn)) if _same_user(conn) else \
                        {"error": "the control socket takes requests from the user who started the simulator only"}
                    conn.sendall(json.dumps(reply).encode() + b"\n")
                except OSError as exc:  # a client that left or sent nothing in time
                    log.info("control request dropped: %s", exc)
                except Exception as exc:  # noqa: BLE001 - a bug here must not end the channel for the next request
                    log.exception("control request failed")
                    with contextlib.suppress(OSError):  # (said as a bug, so the client exits 3, never 2: bad input)
                        conn.sendall(json.dumps({"bug": f"{type(exc).__name__}: {exc}"}).encode() + b"\n")

    def answer(self, raw: bytes) -> dict:
        """The reply to one request: {"ok": message} or {"error": message}."""
        try:
            request = json.loads(raw)
            if not isinstance(request, dict):
                raise ControlError("a request is a JSON object")
            with self._lock:
                return {"ok": self._do(request)}
        except (ValueError, KeyError) as exc:  # (ControlError, JSON and UTF-8 errors, the simulator's own refusals)
            return {"error": str(exc)}
        except RecursionError:  # (JSON nested past Python's recursion limit: a request is never deeper than 1)
            return {"error": "a request is one flat JSON object"}

    def _do(self, request: dict) -> str:
        name = request.get("fault")
        if not isinstance(name, str) or name not in FAULTS:
            raise ControlError(f"no fault {name!r} (faults: {', '.join(FAULTS)})")
        fault = FAULTS[name]
        if unknown := sorted(set(request) - _KEYS):
            raise ControlError(f"unknown request keys {unknown} (known: {', '.join(sorted(_KEYS))})")
        device = self._device(request.get("device"), fault)
        port = self._port(device, request.get("port")) if fault.port else None
        priority = self._priority(device, port, request.get("priority")) if fault.priority else None
        on = request.get("on", True)
        if not isinstance(on, bool):
            raise ControlError(f"on is true or false, not {on!r}")
        for_s = _seconds(request.get("for_s"))
        if request.get("for_s") is not None and (not fault.switch or not on or not for_s):
            raise ControlError("--for takes seconds above 0, for a fault being started")
        # (a storm and congestion are one span of pauses on the port and priority: Traffic.storm)
        key = ("storm" if name == "congest" else name, device.name, port, priority)
        if key in self._timers:  # a new order for the same fault replaces the end planned for it
            self._timers.pop(key).cancel()
        action = self._action(name, device, port, priority, request)
        action(on)
        what = " ".join(str(w) for w in (name, device.name, port, None if priority is None else f"priority {priority}")
                        if w is not None)
        if not fault.switch:
            return what
        if for_s is not None:
            timer = threading.Timer(for_s, self._end, (key, action))
            timer.daemon = True
            self._timers[key] = timer
            timer.start()
        what += f" on for {for_s:g} s" if for_s is not None else f" {'on' if on else 'off'}"
        if priority is not None and on and priority not in device.lossless.get(port or "", []):
            what += f" (no PFC on priority {priority} of {port}: the daemon reads these as pauses on a lossy priority)"
        return what

    def _end(self, key: tuple, action: Callable[[bool], None]) -> None:
        with self._lock:
            if self._timers.get(key) is not threading.current_thread():
                return  # replaced by a later order
            del self._timers[key]
            action(False)
        log.info("%s ended (--for)", " ".join(str(k) for k in key if k is not None))

    def _action(self, name: str, device: SimDevice, port: str | None, priority: int | None,
                request: dict) -> Callable[[bool], None]:
        sim, d = self.sim, device.name
        ecn_healthy = request.get("ecn_healthy") is True
        if name in ("storm", "congest"):
            assert port is not None and priority is not None  # (FAULTS: they take both)
            return lambda on: sim.storm(d, port, priority, on, ecn_healthy, drains=name == "congest")
        if name == "stall":
            assert port is not None
            return lambda on: sim.stall(d, port, on)
        if name == "down":
            return lambda on: sim.set_down(d, on)
        if name == "reset":
            return lambda on: sim.reset_counters(d)
        if name == "syncd-restart":
            return lambda on: sim.syncd_restart(d)
        after_s = _seconds(request.get("after_s"))
        if after_s is None:
            raise ControlError("wrap32 takes --after SECONDS (0 or more)")
        return lambda on: sim.wrap32(d, after_s)

    def _device(self, name: object, fault: Fault) -> SimDevice:
        device = self.sim.devices.get(name) if isinstance(name, str) else None
        if device is None:
            raise ControlError(f"no simulated device {name!r} (devices: {few(list(self.sim.devices), shown=_NAMED)})")
        if fault.hosts_only and device.kind != DeviceKind.host:
            raise ControlError(f"{device.name} is a {device.kind.value}: a NIC stall happens on a host "
                               f"({', '.join(n for n, x in self.sim.devices.items() if x.kind == DeviceKind.host)})")
        if fault.snmp and device.snmp_port is None:
            raise ControlError(f"{device.name} has no SNMP agent (a host, or the simulator runs --no-snmp): no 32-bit "
                               "counters to wrap")
        return device

    def _port(self, device: SimDevice, port: object) -> str:
        if not isinstance(port, str) or port not in device.if_indexes:
            ports = few(list(device.if_indexes), shown=_NAMED)
            raise ControlError(f"{device.name} has no port {port!r} (ports: {ports})")
        return port

    def _priority(self, device: SimDevice, port: str | None, priority: object) -> int:
        lossless = device.lossless.get(port or "", [])
        if priority is None:  # the port's own lossless priority, where its config has exactly one
            if len(lossless) != 1:
                raise ControlError(f"{device.name} {port} has PFC on priorities {lossless or 'none'}: say which with "
                                   "--priority")
            return lossless[0]
        if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 7:
            raise ControlError(f"priority {priority!r} is not an 802.1p priority (0-7)")
        return priority


def _seconds(value: object) -> float | None:
    """``value`` as seconds a timer takes, 0 or more and below threading.TIMEOUT_MAX; None for anything else (JSON's
    NaN and Infinity among them)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < threading.TIMEOUT_MAX
    return float(value) if ok else None  # type: ignore[arg-type]


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this process's user (SO_PEERCRED, Linux: unix(7)); where the kernel does not say, the
    socket's 0600 mode alone keeps others out."""
    peercred = getattr(socket, "SO_PEERCRED", None)
    if peercred is None:
        return True
    return peer_uid(conn.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize(_UCRED))) == os.getuid()


# struct ucred as SO_PEERCRED gives it (socket(7), unix(7)): pid_t (signed), uid_t and gid_t (unsigned 32-bit): a uid
# read signed came out negative from 2**31 up, and that user was refused its own simulator
_UCRED = "iII"


def peer_uid(ucred: bytes) -> int:
    """The uid in a struct ucred."""
    return struct.unpack(_UCRED, ucred)[1]


