"""One device's commands over SSH with netmiko: connect, verify the host key, run, classify failures.

Blocking: `pull` runs each Session in a worker thread. Every failure becomes a CollectError with the
SYS code it is reported under and whether trying again can help (a refused connection can, a wrong
password or an unknown host key cannot).

netmiko, not napalm, runs the commands on every platform, EOS included: napalm's eos driver over SSH
asks `show version | json` when it opens and deletes "% Invalid input" from text outputs, which would
hide a refused command (SYS014); its get_config runs the same `show running-config` netmiko does.
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import errno
import hashlib
import hmac
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import cast

from .. import limits
from ..docpos import json_value
from ..errors import InputError
from ..inventory import Host
from ..platforms import Command
from ..printable import DEVICE_CONTROL, printable
from . import AUTH_FAILED, COMMAND_FAILED, HOST_KEY, MASK, TIMEOUT, UNREACHABLE
from .redact import RedactedLog, redact


class CollectError(Exception):
    def __init__(self, code: str, message: str, retry: bool = False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry = retry


@dataclass
class Result:
    sections: list[tuple[str, str]] = field(default_factory=list)  # (command, output) in the order run
    refused: dict[int, str] = field(default_factory=dict)  # section index -> why it counts as failed (SYS014)
    masked: dict[int, int] = field(default_factory=dict)  # section index -> times its output held a login secret




def session_budget() -> int:
    """Bytes one session may receive: the file limit a capture is read back under (limits.max_file_bytes, 32 MiB
    unless raised), and 1 MiB for the echo, prompts and SSH framing. A device that sends more is cut there: an
    output without end held every byte until --timeout (the simulator's flood: 959 MiB in the default 60 s, one
    device; cut at the budget, 187 MiB in 3.4 s)."""
    return limits.max_file_bytes() + limits.MIB


def commands(host: Host) -> list[Command]:
    """The platform's commands with {iface} and {rdma} expanded for this host (and in the commands run instead)."""
    out: list[Command] = []
    for cmd in host.platform.commands:
        if "{iface}" in cmd.line:
            out += [_named(cmd, "{iface}", i) for i in host.interfaces]
        elif "{rdma}" in cmd.line:
            if host.rdma_devices:
                out += [_named(cmd, "{rdma}", d) for d in host.rdma_devices]
            else:  # every RDMA device's value, each line prefixed with its path (the mlx5 parser reads both forms)
                out.append(Command("grep . " + cmd.line.split(" ", 1)[1].replace("{rdma}", "*"), cmd.json, cmd.optional))
        else:
            out.append(cmd)
    return out


def _named(cmd: Command, field: str, name: str) -> Command:
    return Command(cmd.line.replace(field, name), cmd.json, cmd.optional,
                   tuple(_named(c, field, name) for c in cmd.instead))


def prompt_line(base_prompt: str) -> re.Pattern[str]:
    """A line that starts with the session's prompt (netmiko's base prompt, a config mode in brackets, then the
    terminator CLIs end a prompt with: `spine1#`, `spine1(config)#`, `admin@leaf1:~$`)."""
    return re.compile(rf"^[ \t]*{re.escape(base_prompt)}(?:\([^)\n]{{0,64}}\))?[#>$%]", re.M)


def refusal(host: Host, cmd: Command, output: str, prompt: re.Pattern[str] | None = None) -> str | None:
    """Why ``output`` shows the command failed (SYS014), or None when it looks like an answer. ``prompt``: the
    session's prompt line (prompt_line), which no output holds: netmiko ends an output at the first prompt it
    sees, so a prompt inside one cuts it there or takes the next command's output for its rest."""
    if cmd.json:  # (and JSON may still hold a byte that was not UTF-8, inside a string)
        try:
            json_value(output)
        except ValueError as exc:
            return f"output is not JSON ({exc}): {_quoted(_first_line(output, None), True)!r}"
    else:
        for line in output.splitlines():
            if host.platform.refusal(line):
                return f"the device answered {_quoted(line.strip(), False)[:120]!r}"
    if prompt is not None and (m := prompt.search(output)):
        at = output.count("\n", 0, m.start()) + 1
        return (f"the session's prompt {m.group().strip()!r} is inside the output at line {at}: the output may be "
                "cut there or hold another command's (an echoing terminal, or a device that means harm)")
    if (bad := output.find("\ufffd")) >= 0:  # (_decode_whole_characters: a byte that is not UTF-8)
        return (f"bytes that are not UTF-8 at line {output.count(chr(10), 0, bad) + 1} (written as U+FFFD): the "
                "output is garbled or in another encoding")
    if m := DEVICE_CONTROL.search(output):  # a session that broke off mid-output, or a terminal that was not set up
        return f"garbled output: control character {m.group()!r} at line {output.count(chr(10), 0, m.start()) + 1}"
    if not output.strip() and not cmd.optional:
        return "no output"
    return None


def check_known_hosts(path: Path) -> None:
    """InputError naming the line of ``path`` that paramiko's HostKeys.load would raise on, as netmiko loads the
    file at each connection: such a line (a key that is not base64, an RSA key of garbage) failed every device as
    'the CLI did not behave' (SYS014), a fleet's worth of findings for one line of the operator's file. Lines
    paramiko itself skips (too few fields, a key type it does not know, a key it cannot read) are left alone. The
    file is read as every input is (a regular file within the size limit, UTF-8: paramiko reads it as text)."""
    from paramiko.hostkeys import HostKeyEntry
    from paramiko.ssh_exception import SSHException

    display = str(path)
    text = limits.read_text(path, display, what="known_hosts file")
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            HostKeyEntry.from_line(line, lineno)
        except SSHException:
            continue
        except Exception as exc:  # noqa: BLE001 - InvalidHostKey, ValueError ...: what load() lets out
            why = getattr(exc, "exc", exc)
            raise InputError(f"not a known_hosts entry paramiko can load ({type(why).__name__}: {why}): fix or "
                             "remove the line", file=display, line=lineno) from None


def host_known_hosts(path: Path, hostname: str, port: int) -> Path:
    """A file of the lines of known_hosts ``path`` that name this host as paramiko looks it up (``hostname``, or
    ``[hostname]:port`` off port 22; plain or hashed `|1|salt|hash`), for netmiko to load in place of the whole
    file. paramiko's HostKeys.load checks each new entry against every one before it: 4,000 entries took 1.2 s and
    8,000 took 8 s per connection on the 2-core test machine, so a pull of two devices against a fleet's 8,000-line
    known_hosts timed out on both (60 s). The file is parsed once per version (path, size, mtime); the per-host
    files live in a private folder (0700) removed at exit. On a file that cannot be read, ``path`` itself."""
    try:
        info = os.stat(path)
        entries = _known_hosts_entries(str(path), info.st_ino, info.st_size, info.st_mtime_ns)
    except (OSError, InputError):
        return path
    name = hostname if port == 22 else f"[{hostname}]:{port}"  # paramiko SSHClient.connect's server_hostkey_name
    text = "".join(line + "\n" for names, line in entries if any(_names(entry, name) for entry in names))
    global _HOST_FILES
    with _HOST_FILES_LOCK:
        if _HOST_FILES is None:
            _HOST_FILES = tempfile.mkdtemp(prefix="losslessd-known-hosts-")
            atexit.register(shutil.rmtree, _HOST_FILES, True)
        folder = _HOST_FILES
    file = Path(folder, hashlib.sha256(f"{path}\0{name}\0{text}".encode()).hexdigest()[:32])
    if not file.exists():
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, file)
    return file


_HOST_FILES: str | None = None
_HOST_FILES_LOCK = threading.Lock()


@lru_cache(maxsize=4)
def _known_hosts_entries(path: str, inode: int, size: int, mtime_ns: int) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(host names, line) of each entry of a known_hosts file, split as paramiko's HostKeyEntry.from_line splits."""
    del inode, size, mtime_ns  # (the cache key: a file changed since is read again)
    out = []
    for line in limits.read_text(path, what="known_hosts file").split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            fields = re.split(" |\t", line)
            if len(fields) >= 3:
                out.append((tuple(fields[0].split(",")), line))
    return tuple(out)


def _names(entry: str, name: str) -> bool:
    """Whether a known_hosts host name (plain, or hashed `|1|salt|hash`) is ``name``, as paramiko's HostKeys.lookup
    matches."""
    if entry.startswith("|1|"):
        from paramiko.hostkeys import HostKeys

        try:
            return hmac.compare_digest(HostKeys.hash_host(name, entry), entry)
        except Exception:  # noqa: BLE001 - a salt that is not base64: paramiko's lookup raises; never this host's
            return False
    return entry == name


def connect_args(host: Host, known_hosts: Path | None, timeout: float) -> dict:
    """netmiko ConnectHandler arguments for ``host`` (napalm passes the same through its optional_args):
    the inventory's login, host keys checked against ``known_hosts`` only (None: not checked), keyboard-interactive
    prompts answered as LoginAnswers says."""
    _answer_login_prompts()
    return dict(
        device_type=host.device_type, host=host.hostname, port=host.port, username=host.username,
        password=host.password.reveal(), secret=host.secret.reveal() if host.secret else "",
        use_keys=False, allow_agent=False, system_host_keys=False,
        # Host keys: paramiko RejectPolicy (ssh_strict) with only the given known_hosts loaded
        # (netmiko base_connection._build_ssh_client); AutoAddPolicy when checking is turned off.
        ssh_strict=known_hosts is not None, alt_host_keys=known_hosts is not None,
        alt_key_file=str(host_known_hosts(known_hosts, host.hostname, host.port) if known_hosts else ""),
        conn_timeout=timeout, auth_timeout=timeout, banner_timeout=timeout)


class LoginPrompt(Exception):
    """The device asked at login what a password does not answer (keyboard-interactive, RFC 4256): ``why`` says
    what (the prompt, quoted from the device), the caller names the device."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


# A keyboard-interactive prompt asking for the login password (`Password: `, `admin@leaf1's password:`), not for
# something else (`Verification code:`, `Enter PASSCODE:`, `OTP:`). English words only (Left in docs/hostile-inputs.md).
_PASSWORD_PROMPT = re.compile(r"\bpass(?:word|wd)\b", re.I)
# Rounds of keyboard-interactive questions one login may ask (RFC 4256 3.2: the server may send any number): the
# password, a round with no prompt after it (paramiko's own fallback answers one: some servers send it) and a
# second factor's code, which fails the login, fit; a device asking more loops.
LOGIN_ROUNDS = 4


class LoginAnswers:
    """paramiko's keyboard-interactive handler for a password-only login. paramiko's own fallback (Transport
    .auth_password) answers every one-prompt round with the password, whatever it asks: a device asking for a second
    factor (`Verification code:`) was sent the password as the code, round after round until the login timeout, and
    the failure read as a wrong password. Here the password answers the first prompt that asks for a password only;
    any other prompt, a password asked again, or more than LOGIN_ROUNDS rounds fail the login (LoginPrompt) with
    nothing sent."""

    def __init__(self, password: str):
        self._password = password
        self._given = False
        self._rounds = 0

    def __call__(self, title: str, instructions: str, prompts: list[tuple[str, bool]]) -> list[str]:
        self._rounds += 1
        if self._rounds > LOGIN_ROUNDS:
            raise LoginPrompt(f"asked {self._rounds} rounds of keyboard-interactive questions at login, more than "
                              f"{LOGIN_ROUNDS} (a login that loops)")
        answers = []
        for prompt, _echo in prompts:
            shown = printable(prompt.strip())[:80]
            if not _PASSWORD_PROMPT.search(prompt):
                raise LoginPrompt(f"asked {shown!r} at login (keyboard-interactive), which the password does not "
                                  "answer (a second factor or one-time code?): nothing was sent; give this user a "
                                  "login by password alone on the device")
            if self._given:
                raise LoginPrompt(f"asked {shown!r} again after the password was given (a wrong password, or a "
                                  "login that loops)")
            self._given = True
            answers.append(self._password)
        return answers


def _answer_login_prompts() -> None:
    """Every paramiko login of this process answers keyboard-interactive prompts with LoginAnswers, not paramiko's
    fallback: netmiko and napalm make the paramiko client and its Transport themselves (no handler can be passed),
    so the Transport's password login is the one place every SSH entry point (pull, tune's pushers, sim-bench)
    passes through. Idempotent."""
    import paramiko

    if getattr(paramiko.Transport.auth_password, "_losslessd", False):
        return
    original = paramiko.Transport.auth_password

    def auth_password(self, username, password, event=None, fallback=True):
        try:
            return original(self, username, password, event, fallback=False)
        except paramiko.BadAuthenticationType as exc:
            if not fallback or event is not None or "keyboard-interactive" not in exc.allowed_types:
                raise
            # keyboard-interactive on the same userauth service: paramiko's auth_interactive asks for the service
            # again (a second SERVICE_REQUEST), which a strict server (asyncssh's) answers by disconnecting, read as
            # a wrong password. The request is the one paramiko's AuthHandler._parse_service_accept sends for it
            # (RFC 4256 3.1: language tag and submethods empty).
            from paramiko.common import cMSG_USERAUTH_REQUEST
            from paramiko.message import Message

            handler, done = self.auth_handler, threading.Event()
            with self.lock:
                handler.auth_event, handler.auth_method, handler.username = done, "keyboard-interactive", username
                handler.interactive_handler, handler.submethods = LoginAnswers(password), ""
                m = Message()
                m.add_byte(cMSG_USERAUTH_REQUEST)
                for text in (username, "ssh-connection", "keyboard-interactive", "", ""):
                    m.add_string(text)
                self._send_message(m)
            return handler.wait_for_response(done)

    auth_password._losslessd = True  # type: ignore[attr-defined]
    paramiko.Transport.auth_password = auth_password  # type: ignore[method-assign]


def host_key_refusal(exc: BaseException, host: Host, known_hosts: Path | None) -> str | None:
    """Why the SSH login failed when it was the host key (paramiko RejectPolicy, as connect_args sets it), naming the
    device's address and how to add its key (the caller names the device); None when it was something else. Every SSH entry point says it so: a pull's
    Session, tune's pushers, sim-bench."""
    import paramiko

    where = f"{host.hostname}:{host.port}"
    for e in _causes(exc):
        if isinstance(e, paramiko.BadHostKeyException):
            return (f"the host key of {where} does not match its entry in {known_hosts}: the device was replaced or "
                    "someone is in the middle; check it, then update known_hosts")
        if isinstance(e, paramiko.SSHException) and "not found in known_hosts" in str(e):
            return (f"the host key of {where} is not in {known_hosts}; add it after checking its fingerprint "
                    f"(ssh-keyscan -p {host.port} {host.hostname})")
    return None


# Where a login secret stands whole: not inside a longer word (a one-letter password `x` is no part of
# `NetmikoTimeoutException`), but after a non-word character (`password=X`, `admin:X@host`, `'X'`), after a word naming
# it (`passwordX`, `secretX`), repeated (`XX`), and percent-encoded as a URL writes it (RFC 3986 2.1: `p%40ss`).
_NAMED_BY = ("password", "passwd", "secret", "pass", "pwd", "key")
# A secret this long is masked wherever it stands, glued to other letters too (`xHunter2024!`, a terminal log's
# keystrokes run together): NIST SP 800-63B 5.1.1.1 has memorized secrets at least 8 characters, the length below
# which a chance occurrence inside a longer word (the one-letter `x` above) is likely; a longer one inside a word
# is the secret shown, whatever the word.
GLUED_MIN = 8


def _occurrences(secret: str) -> list[tuple[str, re.Pattern[str]]]:
    """``secret`` as is and percent-encoded, each with the pattern of its whole occurrences."""
    from urllib.parse import quote

    return [(form, re.compile(_whole(form), re.S)) for form in dict.fromkeys((quote(secret, safe=""), secret))]


def _whole(secret: str) -> str:
    """The pattern of ``secret`` where it stands whole (anywhere, GLUED_MIN characters or more), led by the secret
    itself (a literal prefix: the search skips ahead to it), the characters around it checked by fixed-width looks
    (no run matched: linear on any text)."""
    n, text, left, right = len(secret), re.escape(secret), "", ""
    if n >= GLUED_MIN:
        return text
    if re.match(r"\w", secret):
        before = [rf"(?<!\w.{{{n}}})", rf"(?<={text}.{{{n}}})", *(rf"(?<=(?i:{word}).{{{n}}})" for word in _NAMED_BY)]
        left = f"(?:{'|'.join(before)})"
    if re.search(r"\w\Z", secret):
        right = rf"(?:(?!\w)|(?={text}))"
    return f"{text}{left}{right}"


class Guard:
    """What every SSH connection of ours gets, a pull's Session or a `tune --apply` pusher's: the TCP connection
    metered against the byte budget (session_budget), outputs decoded as one UTF-8 stream (a byte that is not
    UTF-8 as U+FFFD), the login password and enable secret masked, and each output checked by refusal with the
    session's prompt. ``abort()`` (any thread) cuts the connection."""

    # connect bounds the login with a timer of its own (a pusher's login); a Session's run bounds it already
    TIMED_LOGIN = True

    def __init__(self, host: Host, timeout: float):
        self.host = host
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._metered: _Metered | None = None
        self._login_timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self.aborted = False
        self.budget = session_budget()
        self.flooded = False  # the device sent more than the budget: cut
        self.command = ""  # the command running, for the message of a cut session
        self._tail = ""  # the end of the output read so far (a pager or a foreign prompt there: stalled)
        self.overwritten = ""  # the line of a lone carriage return in the command's output (attach)
        self._heard = 0.0  # time.monotonic() of the last read that brought data
        self.prompt: re.Pattern[str] | None = None
        self._base = ""  # netmiko's base prompt (the session's name on its prompt), for messages
        self._secrets = [each for s in (host.password.reveal(), host.secret.reveal() if host.secret else "") if s
                         for each in _occurrences(s)]

    def abort(self) -> None:
        with self._lock:
            self.aborted = True
            if self._metered is not None:
                self._metered.cut_reader()  # (before the cut: what paramiko says of it is ours)
            if self._sock is not None:
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        if self._login_timer is not None:
            self._login_timer.cancel()
        if self._sock is not None:
            self._sock.close()

    def attach(self, conn) -> None:
        """Decode ``conn``'s reads whole, end them once the session is cut, and learn its prompt. The login is done:
        its deadline (connect) no longer holds."""
        if self._login_timer is not None:
            self._login_timer.cancel()
        _decode_whole_characters(conn)
        read = conn.read_channel
        channel = getattr(conn, "remote_conn", None)

        def read_channel() -> str:  # netmiko polls a closed channel until read_timeout: a cut session ends here
            if self.aborted:
                raise EOFError("the session was cut")
            # closed or at EOF before the read: all the device sent is buffered (a device may close without an EOF)
            ended = bool(getattr(channel, "eof_received", False)) or getattr(channel, "closed", False) is True
            data, now = read(), time.monotonic()
            if not data and ended:  # the device closed the session: netmiko read nothing until --timeout
                raise EOFError("the device closed the session")
            if data:
                self._tail, self._heard = (self._tail + data)[-_TAIL:], now
            elif now - self._heard >= PAGER_STALL_S:
                self.stalled()
            return data

        conn.read_channel = read_channel
        normalize = conn.normalize_linefeeds

        def normalize_linefeeds(text: str) -> str:  # netmiko makes every lone CR a line end, per chunk read
            if self.command and not self.overwritten and (m := _LONE_CR.search(_LINE_END.sub("\n", text), 1)):
                line_end = m.string.find("\n", m.end())  # (the whole line: masked whole before it is cut to show)
                self.overwritten = m.string[m.string.rfind("\n", 0, m.start()) + 1:line_end if line_end >= 0 else None]
            return normalize(text)

        conn.normalize_linefeeds = normalize_linefeeds
        self.prompt = prompt_line(conn.base_prompt) if conn.base_prompt else None
        self._base = conn.base_prompt or ""
        self._heard = time.monotonic()

    def stalled(self) -> None:
        """The device has sent nothing for PAGER_STALL_S: a CollectError (SYS014) when what it sent last is a pager's
        prompt, or a prompt that is not the session's (its hostname changed): netmiko would wait for the session's
        prompt until the device's whole --timeout was spent, and name neither."""
        if m := PAGER.search(self._tail):
            raise self._stall_error(f"stopped at the pager prompt {m.group().strip()!r}{self.during()} and waited "
                                    f"{PAGER_STALL_S:g} s for a key: the device pages although netmiko's "
                                    f"{self.host.device_type!r} turned paging off when it logged in; turn paging off "
                                    "for this user on the device (its terminal length / screen-length)")
        _, newline, last = self._tail.rpartition("\n")
        whole = bool(newline) or len(self._tail) < _TAIL  # (else the line began before the tail: only its end is kept)
        last = last.strip()
        if self.prompt is not None and whole and _PROMPT_SHAPE.fullmatch(last) and not self.prompt.match(last):
            raise self._stall_error(f"showed the prompt {last!r}{self.during()}, not the session's "
                                    f"{self._base!r}, and nothing more for {PAGER_STALL_S:g} s: its hostname "
                                    "changed (a config push, another login) or the CLI left the mode it was in")

    def _stall_error(self, why: str) -> CollectError:
        host = self.host
        return CollectError(COMMAND_FAILED, f"{host.hostname}:{host.port} {why}")

    def begin(self, command: str, rearm: bool = False) -> None:
        """``command`` starts on the session: the stall check reads its output alone (not the end of the one before),
        messages name it, and with ``rearm`` the byte budget counts from here. send() calls it; a library that sends
        its own commands over the attached connection (napalm's eos driver) calls it before each of them."""
        self.command, self._tail, self._heard, self.overwritten = command, "", time.monotonic(), ""
        if rearm and self._metered is not None:
            self._metered.left = self.budget

    def send(self, conn, cmd: Command, read_timeout: float, rearm: bool = False) -> tuple[str, int, str | None]:
        """``cmd``'s output with the login secrets masked, how many were, and why it counts as refused (refusal).
        ``rearm``: the budget counts from this command on (a connection that lives for many commands, as a
        pusher's does through a tune). A cut session raises CollectError (SYS014, flood_error)."""
        self.begin(cmd.line, rearm)
        try:
            # Text: no TextFSM/TTP/Genie parsing is asked for, so netmiko returns the output as it came.
            output = cast(str, conn.send_command(cmd.line, read_timeout=read_timeout, strip_prompt=True,
                                                 strip_command=True))
        except Exception:
            if self.flooded:
                raise self.flood_error() from None
            raise
        output, masked = self.mask(output)
        why = refusal(self.host, cmd, output, self.prompt)
        if why is None and self.overwritten:
            # (as the capture writes it: each part a lone CR starts read as a line, its own secrets masked too)
            line = redact(self.mask(self.overwritten)[0].replace("\r", "\n"))[0].replace("\n", "\r")
            shown = printable(line.strip())[:160]
            why = (f"a carriage return inside a line ('{shown}'): a terminal shows the text after it over the text "
                   "before it, which is read as a line of its own (a terminal not set up, or a device that means harm)")
        return output, masked, why

    def during(self) -> str:
        """The command running, as messages end: ` while `show ...` ran` (or while logging in)."""
        return f" while `{self.command}` ran" if self.command else " while logging in"

    def flood_error(self) -> CollectError:
        host = self.host
        return CollectError(COMMAND_FAILED, f"{host.hostname}:{host.port} sent more than {self.budget / limits.MIB:g} "
                            f"MiB in one session{self.during()} (the file limit a capture is read back under, and 1 MiB): cut "
                            f"there; an output without end is a command stuck or a device that means harm (raise "
                            f"{limits.ENV_MAX_FILE_MB} if such outputs are real)")

    @property
    def overlong(self) -> bool:
        """The device sent a line longer than MAX_BANNER_LINE before its SSH version string (cut there)."""
        return self._metered is not None and self._metered.overlong

    def overlong_message(self) -> str:
        host = self.host
        return (f"{host.hostname}:{host.port} sent a line longer than {MAX_BANNER_LINE} bytes before its SSH version "
                "string (OpenSSH's limit for such lines): cut there, not retried; the port is no SSH server, or one "
                "that means harm")

    def mask(self, text: str) -> tuple[str, int]:
        """``text`` with the login password and enable secret written as MASK where each stands whole (_occurrences),
        and how many were."""
        found = 0
        for secret, whole in self._secrets:
            if secret in text:
                text, masked = whole.subn(MASK, text)
                found += masked
        return text, found

    def _over_budget(self) -> None:
        self.flooded = True
        self.abort()

    def connect(self) -> socket.socket:
        """The TCP connection, made here so that unreachable is told apart and abort() can cut it."""
        host = self.host
        where = f"{host.hostname}:{host.port}"
        try:
            sock = socket.create_connection((host.hostname, host.port), timeout=self.timeout)
        except socket.gaierror as exc:
            raise CollectError(UNREACHABLE, f"cannot resolve {host.hostname!r}: {exc.strerror or exc}", retry=True) from None
        except TimeoutError:
            raise CollectError(UNREACHABLE, f"no TCP answer from {where} within {self.timeout:g} s", retry=True) from None
        except OSError as exc:
            raise CollectError(UNREACHABLE, f"cannot connect to {where}: {exc.strerror or exc}", retry=True) from None
        with self._lock:
            if self.aborted:
                sock.close()
                raise CollectError(TIMEOUT, f"{where} did not finish within {self.timeout:g} s (--timeout)")
            self._sock = sock
        self._metered = _Metered(sock, self.budget, self._over_budget, lambda: self.aborted)
        # the login (version strings, key exchange, authentication, netmiko's session preparation) within the timeout
        # as a whole where no timer of the caller's (Session.run's) bounds it, as for tune's pushers: paramiko's
        # phases each have their own timeout, one after the other, and a login that ran out was named as napalm's
        # "Cannot connect to 127.0.0.1" or netmiko's "'No existing session' error: try increasing 'conn_timeout'"
        if self.TIMED_LOGIN:
            self._login_timer = threading.Timer(self.timeout, self.abort)
            self._login_timer.daemon = True
            self._login_timer.start()
        return cast(socket.socket, self._metered)


# A pager's prompt at the end of what a device sent, as the CLIs print it: Cisco IOS/NX-OS, Arista EOS, Dell OS10 and
# Aruba CX ` --More-- `, Junos `---(more)---` / `---(more 27%)---`, H3C Comware `---- More ----`. Seen at the end of
# the output read so far with nothing more for PAGER_STALL_S, the device waits for a key netmiko never sends: the
# command read on until the device's whole --timeout was spent, named as a timeout ("did not finish"). A pager waits on
# its own line: a marker with a newline after it is text (a description, a banner) of a device that is only slow.
PAGER = re.compile(r"(?:-- ?more ?--|---\(more[^)\n]{0,8}\)---|---- more ----)[ \t]*\Z", re.I)
PAGER_STALL_S = 2.0
# A line that is only a prompt (as prompt_line's, for any name): shown after a stall, and not the session's, the
# device's prompt changed.
_PROMPT_SHAPE = re.compile(r"[\w.@:~/\[\]-]{1,64}(?:\([^)\n]{0,64}\))?[#>$%]")
# Characters of the output kept to look for PAGER and a prompt in: more than the longest line _PROMPT_SHAPE matches
# (131), so a prompt is judged whole (a 64-character hostname's, Linux HOST_NAME_MAX, was cut to its end and read as
# another device's prompt).
_TAIL = 256


class Session(Guard):
    """One attempt at one device. ``abort()`` (any thread) cuts the connection; ``run`` then raises SYS013 (SYS014
    when the device sent more than the session budget)."""

    TIMED_LOGIN = False  # (run's timer bounds the login and the commands: a second timer per poll was the same)

    def __init__(self, host: Host, *, known_hosts: Path | None, timeout: float, session_log: Path | None = None):
        super().__init__(host, timeout)
        self.known_hosts = known_hosts  # None: host keys are not checked (--insecure-no-host-key-check)
        self.session_log = session_log
        self.partial = Result()  # what this attempt has read so far: kept (pull's partial/) when it fails midway

    def run(self) -> Result:
        deadline = time.monotonic() + self.timeout
        timer = threading.Timer(self.timeout, self.abort)
        timer.daemon = True
        timer.start()
        try:
            return self._run(deadline)
        except CollectError as exc:
            raise self.flood_error() if self.flooded else exc from None
        except Exception as exc:  # noqa: BLE001 - every failure of one device is a finding, not a crash
            error = self._classify(exc, deadline)
            error.message = self.mask(error.message)[0]  # netmiko's messages may quote what the device sent
            raise error from None
        finally:
            timer.cancel()
            self.close()

    def _run(self, deadline: float) -> Result:
        try:
            log = open_private(self.session_log) if self.session_log else contextlib.nullcontext()
        except OSError as exc:  # (before any connection: the device was not contacted)
            raise CollectError(COMMAND_FAILED, f"cannot write its session log {self.session_log}: "
                                               f"{limits.os_reason(exc)}") from None
        with log as log_file:
            redacted = RedactedLog(log_file) if log_file is not None else None  # the device's own secrets masked
            try:
                return self._commands(deadline, redacted)
            finally:
                if redacted is not None:
                    redacted.close()

    def _commands(self, deadline: float, log_file) -> Result:
        from netmiko import ConnectHandler  # slow import (paramiko, textfsm): only when pulling

        host = self.host
        sock = self.connect()
        conn = ConnectHandler(**connect_args(host, self.known_hosts, self.timeout), sock=sock,
                              # netmiko masks the password and secret in its session log (SessionLog no_log); the
                              # file is ours, created 0600 like the captures, and RedactedLog masks the device's own
                              # secrets (collect.redact).
                              session_log=log_file)
        self.attach(conn)
        try:
            if host.platform.enable and not conn.check_enable_mode():
                try:
                    conn.enable()
                except ValueError as exc:
                    raise CollectError(COMMAND_FAILED, f"could not enter privileged mode (`enable`): {exc}; give "
                                       "data.credentials.secret_env if the device asks for an enable secret") from None
            result = self.partial
            queue = commands(host)
            while queue:
                cmd = queue.pop(0)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CollectError(TIMEOUT, f"no time left for `{cmd.line}` within the {self.timeout:g} s "
                                       "per-device timeout (--timeout)")
                output, masked, why = self.send(conn, cmd, remaining)
                if masked:  # a device echoing the password, or a config holding it in clear: never in the capture
                    result.masked[len(result.sections)] = masked
                if cmd.instead and why and host.platform.refuses(output):  # (not a garbled output)
                    queue[:0] = cmd.instead  # the tool is not there: the one that shows the same, the refusal kept
                elif why and not cmd.optional:
                    result.refused[len(result.sections)] = why
                result.sections.append((cmd.line, output))
            return result
        finally:
            try:
                conn.disconnect()
            except Exception:  # noqa: BLE001 - the outputs are in hand; a failing logout changes nothing
                pass

    def _classify(self, exc: Exception, deadline: float) -> CollectError:
        """What failed, as a finding. A failure at or after ``deadline`` is the timeout: netmiko's own connect, banner
        and auth timeouts are --timeout long too, started after this session's timer, so a silent device's paramiko
        error ("No existing session") can beat the timer's abort by a thread switch and read as a failed session
        (SYS010, retried) instead of the timeout it is (SYS013)."""
        import paramiko
        from netmiko.exceptions import NetmikoAuthenticationException, ReadTimeout

        host = self.host
        where = f"{host.hostname}:{host.port}"
        chain = _causes(exc)
        if self.flooded:
            return self.flood_error()
        if self.aborted or time.monotonic() >= deadline:
            return CollectError(TIMEOUT, f"{where} did not finish within {self.timeout:g} s (--timeout){self.during()}")
        refused = host_key_refusal(exc, host, self.known_hosts)
        if refused is not None:
            return CollectError(HOST_KEY, refused)
        if self.overlong:
            return CollectError(UNREACHABLE, self.overlong_message())
        if (prompt := next((e for e in chain if isinstance(e, LoginPrompt)), None)) is not None:
            return CollectError(AUTH_FAILED, f"{where} {prompt.why}")
        if any(isinstance(e, (NetmikoAuthenticationException, paramiko.AuthenticationException)) for e in chain):
            return CollectError(AUTH_FAILED, f"{where} refused the login of user {host.username!r} (wrong password, "
                                f"user or key; the password came from {host.password.origin})")
        if isinstance(exc, ReadTimeout):
            return CollectError(TIMEOUT, f"{where} did not show its prompt again in time{self.during()}: "
                                f"{_first_line(str(exc))}")
        if (peer := next((e for e in chain if isinstance(e, paramiko.ssh_exception.IncompatiblePeer)), None)):
            # paramiko offers no SHA-1 key exchange (RFC 9142 deprecates diffie-hellman-group1-sha1 and group14-sha1)
            # nor ssh-rsa SHA-1 host keys: the same answer at every attempt, so never retried
            return CollectError(UNREACHABLE, f"{where} offers no SSH algorithm losslessd accepts "
                                f"({_first_line(str(peer))}): turn on a current one on the device (key exchange "
                                "curve25519-sha256 or diffie-hellman-group14-sha256, host key ssh-ed25519, ecdsa or "
                                "rsa-sha2-256); not retried")
        if any(isinstance(e, (OSError, EOFError, paramiko.SSHException)) for e in chain):
            # netmiko's message of a paramiko failure is its own first line ("A paramiko SSHException occurred during
            # connection creation:"), paramiko's why below it: the innermost paramiko failure says why
            why = next((str(e) for e in reversed(chain)
                        if isinstance(e, paramiko.SSHException) and _first_line(str(e))), str(exc))
            return CollectError(UNREACHABLE, f"the SSH session with {where} failed{self.during()}: "
                                f"{_first_line(why)}", retry=True)
        return CollectError(COMMAND_FAILED, f"the CLI of {where} did not behave like netmiko's {host.device_type!r} "
                            f"expects: {type(exc).__name__}: {_first_line(str(exc))}")


# netmiko's line ends (BaseConnection.normalize_linefeeds); a CR left after them, but at a chunk's edge (the half of
# a CRLF the next read completes), overwrites the line it stands in on a terminal
_LINE_END = re.compile("\r\r\r\n|\r\r\n|\r\n|\n\r")
_LONE_CR = re.compile("\r(?!\\Z)")  # (searched from the chunk's second character)


def _decode_whole_characters(conn) -> None:
    """netmiko decodes each chunk it receives on its own with errors="ignore" (netmiko channel.SSHChannel
    .read_buffer): a byte that is not UTF-8 vanished without a word (`mtu 91<0xff>00` read as `mtu 9100`), and so
    did a character split across two chunks. The channel's reads here decode as one stream, a byte that is not
    UTF-8 as U+FFFD (refusal names it). Left as netmiko made it when its channel is not the one known."""
    channel = getattr(conn, "channel", None)
    remote = getattr(channel, "remote_conn", None)
    if channel is None or remote is None or not hasattr(remote, "recv_ready"):
        return
    from netmiko.exceptions import ReadException
    from netmiko.netmiko_globals import MAX_BUFFER

    decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def read_buffer() -> str:  # (netmiko's, but the decoder keeps a character's first bytes for the next chunk)
        if remote.recv_ready():
            data = remote.recv(MAX_BUFFER)
            if not data:
                raise ReadException("Channel stream closed by remote device.")
            return decoder.decode(data)
        return ""

    channel.read_buffer = read_buffer


# The longest line an SSH server may send before its version string: OpenSSH's client refuses a longer one
# (SSH_MAX_BANNER_LEN 8192 in OpenSSH's ssh.h, openssh-portable a0546563; read by kex.c's kex_exchange_identification).
# paramiko has no limit: it reads such a line 128 bytes at a time into one growing buffer (Packetizer.readline),
# which an 8 MiB line held for a whole 30 s --timeout at 8 s of CPU; within the session budget a line could last for
# ever.
MAX_BANNER_LINE = 8192


class _Metered:
    """The device's socket as paramiko reads it, counting the bytes received: past ``budget`` the session is cut
    (``over`` is called, then the read fails as a closed connection does). Before the server's version string
    (a line starting `SSH-`, RFC 4253 4.2) a line longer than MAX_BANNER_LINE ends the read too (``overlong``).
    A read that ends (an error, or nothing read) once ``cut()`` says losslessd cut the session (Guard.abort: a stop,
    a poll's timeout, the login's deadline) marks the reading thread, paramiko's transport thread, as one whose
    session we cut: what paramiko logs there next ("Socket exception: Bad file descriptor", "Error reading SSH
    protocol banner", at error level) is the cut, not a fault of the device, and the daemon's log says it below
    warning (logs.cut_session_here)."""

    def __init__(self, sock: socket.socket, budget: int, over, cut):
        self._sock = sock
        self.left = budget
        self._over = over
        self.versioned = False  # the version string was received: what follows is the SSH protocol
        self._line = 0  # bytes of the line being received before it
        self._head = b""  # its first 4 bytes (`SSH-`?)
        self.overlong = False
        self._cut = cut
        self.reader: threading.Thread | None = None  # the thread that reads it: paramiko's transport thread

    def recv(self, size: int, *flags: int) -> bytes:
        if self.reader is None:
            self.reader = threading.current_thread()
        try:
            data = self._sock.recv(size, *flags)
        except OSError:
            self._said_cut()
            raise
        if not data:
            self._said_cut()
        self.left -= len(data)
        if self.left < 0:
            self._over()
            raise EOFError("the device sent more than the session may receive")
        if not self.versioned:
            self._before_version(data)
        return data

    def _before_version(self, data: bytes) -> None:
        at = 0
        while not self.versioned and at < len(data):
            end = data.find(b"\n", at)
            part = data[at:] if end < 0 else data[at:end]
            self._head = (self._head + part[:4])[:4]
            self._line += len(part)
            if self._head == b"SSH-":
                self.versioned = True  # (the rest of this read is paramiko's to read as the protocol)
            elif self._line > MAX_BANNER_LINE:
                self.overlong = True
                raise EOFError("a line longer than an SSH server may send before its version string")
            elif end >= 0:
                self._line, self._head = 0, b""
            at = len(data) if end < 0 else end + 1

    def _said_cut(self) -> None:
        if self._cut():
            self.cut_reader()

    def cut_reader(self) -> None:
        """Mark the reading thread as one whose session losslessd cut (Guard.abort, or a read that ended after it)."""
        from paramiko import Transport  # (loaded: it reads this socket)

        if isinstance(self.reader, Transport):  # (never a pool's thread, which goes on to other work)
            from ..daemon.logs import cut_session_here  # (light: logging only)
            cut_session_here(self.reader)

    def __getattr__(self, name: str):
        return getattr(self._sock, name)


def open_private(path: Path):
    """``path`` opened for writing (bytes), readable by its owner only whatever umask says, never through a
    symbolic link someone left at that name, and only as a regular file: it is opened without blocking (a FIFO
    left at that name held the pull for ever, whatever its --timeout), and anything but a file is refused."""
    fd = limits.open_output(path, getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        kind = os.fstat(fd).st_mode
        if not stat.S_ISREG(kind):
            raise OSError(errno.EINVAL, f"not a regular file ({limits.file_kind(kind)})", str(path))
        os.set_blocking(fd, True)
        os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


def _causes(exc: BaseException | None) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def _first_line(text: str, limit: int | None = 200) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:limit]


def _quoted(line: str, is_json: bool) -> str:
    """A line of a device's answer as a message quotes it (the log, the report): its secrets masked as the capture
    masks them, then cut to 200 characters (a cut one-line CONFIG_DB's first line holds TACACS passkeys and SNMP
    communities; masked before the cut, so a secret cut in two is masked whole)."""
    return redact(line, is_json)[0][:200]
