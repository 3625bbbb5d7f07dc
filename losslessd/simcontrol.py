"""The client side of the running simulator's control channel (losslessd.sim.control serves it): what `losslessd sim
storm ...` sends, and the check a simulator's start makes of the socket in its --out. Kept out of the losslessd.sim
package, whose import loads the SSH, SNMP and config-push sides: sending a fault needs none of them (they cost the
command 0.6 s of CPU) nor the `sim` extra.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError

log = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
# sockaddr_un.sun_path is 108 bytes on Linux, the terminating NUL among them (unix(7)).
MAX_PATH_BYTES = 107
MAX_REQUEST_BYTES = 4096  # a request is a few names and numbers
MAX_REPLY_BYTES = 65536  # a reply is one message naming a few devices or ports
TIMEOUT_S = 5.0  # a client that has not sent its whole line by then is dropped


def socket_path(out: Path) -> Path:
    return out / SOCKET_NAME


@contextlib.contextmanager
def address(path: Path) -> Iterator[str]:
    """What to bind or connect the socket at ``path`` by: its path, or where that is longer than a unix socket's may
    be, the same name reached through its folder held open (`/proc/self/fd/N/control.sock`: proc(5), a magic link to
    the folder itself), so a deep --out serves faults too. OSError naming the length where /proc is not there."""
    text = os.path.abspath(path)
    size = len(os.fsencode(text))
    if size <= MAX_PATH_BYTES:
        yield text
        return
    folder = os.open(os.path.dirname(text), os.O_RDONLY | os.O_DIRECTORY)
    try:
        if not os.path.isdir(f"/proc/self/fd/{folder}"):
            raise OSError(errno.ENAMETOOLONG, f"its path is {size} bytes, a unix socket's at most {MAX_PATH_BYTES}, "
                          "and there is no /proc to reach it through its folder: give a shorter --out")
        yield f"/proc/self/fd/{folder}/{os.path.basename(text)}"
    finally:
        os.close(folder)


def claim(out: Path) -> None:
    """Before a simulator starts on ``out``: refuse a folder a live simulator serves; remove the socket a crashed one
    left. Anything else at the socket's name (a file, a link) is not the simulator's to remove."""
    path = socket_path(out)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if not stat.S_ISSOCK(mode):
        raise InputError(f"--out holds {SOCKET_NAME}, which is not the simulator's control socket; give a new or "
                         "empty folder (or one an earlier `losslessd sim` wrote)", file=str(path))
    if _alive(path):
        raise InputError("another `losslessd sim` is serving this --out folder (its control socket answers); stop it "
                         "or give another folder", file=str(out))
    try:
        path.unlink()  # (a simulator that crashed or was killed: nothing accepts there)
    except FileNotFoundError:
        pass
    except OSError as exc:  # (another user's socket in a folder this one cannot write)
        raise InputError(f"cannot remove the control socket a stopped simulator left: {exc.strerror}; remove it or "
                         "give another --out", file=str(path)) from None
    log.info("removed the stale control socket %s", path)


def _alive(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(TIMEOUT_S)
        try:
            with address(path) as where:
                s.connect(where)
        except OSError:
            return False
    return True


def read_line(conn: socket.socket, most: int = MAX_REQUEST_BYTES) -> bytes:
    """One line of at most ``most`` bytes, all of it within the socket's timeout: a peer sending a byte now and then
    held the one-request-at-a-time channel (and the simulator's stop) as long as it liked."""
    deadline = time.monotonic() + (conn.gettimeout() or TIMEOUT_S)
    data = b""
    while b"\n" not in data:
        if (left := deadline - time.monotonic()) <= 0:
            raise TimeoutError(errno.ETIMEDOUT, "no whole line in time")
        conn.settimeout(left)
        chunk = conn.recv(most)
        if not chunk:
            break
        data += chunk
        if len(data) > most:
            raise OSError(errno.EMSGSIZE, f"a line longer than {most} bytes")
    return data.split(b"\n", 1)[0]


def request(out: Path, message: dict) -> str:
    """Send one request to the simulator serving ``out``; its message, or InputError naming what to change."""
    path = socket_path(out)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(TIMEOUT_S)
        try:
            with address(path) as where:
                s.connect(where)
            s.sendall(json.dumps(message).encode() + b"\n")
            s.shutdown(socket.SHUT_WR)
            reply = json.loads(read_line(s, MAX_REPLY_BYTES) or b"null")
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            gone = "its control socket is stale (the simulator crashed or was killed)" \
                if isinstance(exc, ConnectionRefusedError) else f"there is no {SOCKET_NAME}"
            raise InputError(f"no simulator is serving --out {out}: {gone}; start `losslessd sim --fabric FOLDER "
                             f"--out {out}` first") from None
        except (OSError, ValueError) as exc:
            raise InputError(f"the simulator's control socket did not answer: {getattr(exc, 'strerror', None) or exc}",
                             file=str(path)) from None
    if isinstance(reply, dict) and isinstance(reply.get("bug"), str):  # (a bug in the simulator: exit 3, not input)
        raise RuntimeError(f"the simulator failed on the request (a bug in losslessd): {reply['bug']}")
    if not isinstance(reply, dict) or not isinstance(reply.get("ok", reply.get("error")), str):
        raise InputError("the simulator's control socket answered no reply it knows", file=str(path))
    if "error" in reply:
        raise InputError(f"the simulator refused it: {reply['error']}")
    return reply["ok"]
