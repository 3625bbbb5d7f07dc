"""SSH CLI devices of the simulator: asyncssh servers on 127.0.0.1 that answer like SONiC, EOS, NX-OS and Linux hosts.

Each device gets its own listener (its own port, like a real box), all on one private event loop in a
background thread, so synchronous tests and the `losslessd sim` command drive them alike. A session
opens a PTY, prints the vendor prompt and echoes every character it receives (netmiko waits for the echo
of each command before it reads the output). Answers come from the device's recorded outputs; the shells
here only know the commands a CLI client sends around them (paging, `enable`, `exit`) and how each CLI
words an unknown command.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import threading
from typing import NamedTuple, Protocol

import asyncssh

from ..platforms import PLATFORMS
from ..render import families
from ..units import is_small_int
from .config import EOS_QUEUE, EOS_QUEUE_COMMANDS, EOS_SPLIT_QUEUE, EOS_TOP_MODES, ConfigState, EosSession

HOST = "127.0.0.1"
# How long a call into the server thread may take before the simulator gives up on it.
_CALL_TIMEOUT_S = 30


class CliDevice(Protocol):
    """What a listener needs of a device (losslessd.sim.SimDevice has it)."""

    name: str
    platform: str
    username: str
    password: str
    outputs: dict[str, str]  # normalised command line -> output
    garbled: dict[str, str]  # normalised command line -> output served instead of the recorded one
    trailed: dict[str, tuple[str, bool]]  # normalised command line -> (text after its answer, once) (Simulator.trail)
    flooded: set[str]  # normalised command lines answered by output that never ends
    renames: dict[str, str]  # normalised command line -> the hostname the prompt shows after it (rename_after)
    renamed: str  # the hostname the prompt shows ("": name)
    held: dict[str, tuple[str, float]]  # normalised command line -> (pager its answer stops at, "": it hangs there;
    # seconds it pauses there instead, 0: until a key) (Simulator.hold)
    dropped: list[str]  # command parts: the next command holding one is done, then the session drops (drop_after)
    delay_s: float  # a slow device waits this long before each command's output
    slow_login: bool  # ... and before it answers a login (Simulator.set_slow(login=True))
    kex_algs: tuple[str, ...]  # the only SSH key exchanges offered (Simulator.legacy_kex); (): asyncssh's own
    login_prompts: tuple[str, ...]  # keyboard-interactive prompts asked instead of a password login (ask_at_login)
    login_loop: bool  # ... asked again after every answer
    login_answers: list[str]  # what clients answered them, in order
    auth_banner: str  # the authentication banner sent before the login (Simulator.send_auth_banner)
    before_version: tuple[bytes, float, bool]  # lines sent before the SSH version string, the seconds between
    # their bytes (0: at once), and whether they never end (Simulator.before_version); b"": none
    config: ConfigState  # pushed config: sessions, checkpoints, files (losslessd.sim.config)

    def live_output(self, command: str) -> str | None:
        """A counter command's output made at the time of asking (None: not a counter command)."""

    def control(self, command: str) -> str | None:
        """The simulator's own control command (WORKLOAD_COMMAND), None for any other line."""


class Reply(NamedTuple):
    text: str
    status: int = 0  # exit status of an exec request (`ssh host command`)
    close: bool = False
    flood: bool = False  # lines after ``text`` until the client goes (Simulator.flood)
    held: tuple[str, float] | None = None  # ``text`` stops halfway at this pager, or pauses (Simulator.hold)


def normalize(line: str) -> str:
    """A command line as looked up: runs of blanks are one space (CLIs and shells ignore them)."""
    return " ".join(line.split())


class Shell:
    """One login session's CLI state; ``answer`` takes a command line and says what the device prints."""

    def __init__(self, device: CliDevice):
        self.device = device

    @property
    def hostname(self) -> str:
        """The name the prompt shows: the device's, or the one a `hostname` change gave it (Simulator.rename_after)."""
        return self.device.renamed or self.device.name

    @property
    def prompt(self) -> str:
        raise NotImplementedError

    def answer(self, line: str) -> Reply:
        cmd = normalize(line)
        reply = self._answer(cmd)
        dropped = self.device.dropped
        if (at := next((i for i, part in enumerate(dropped) if part in cmd), None)) is not None:
            del dropped[at]
            return Reply("", close=True)  # done, and the session gone before its answer
        return reply

    def _answer(self, cmd: str) -> Reply:
        if not cmd:
            return Reply("")
        if cmd in ("exit", "logout", "quit"):
            return Reply("", close=True)
        if cmd in self.device.flooded:
            return Reply("", flood=True)
        if (held := self.device.held.get(cmd)) is not None:
            return Reply(self.command(cmd).text, held=held)
        if cmd in self.device.garbled:
            return Reply(self.device.garbled[cmd])
        if (live := self.device.live_output(cmd)) is not None:
            return Reply(live)
        if (done := self.device.control(cmd)) is not None:
            return Reply(done)
        reply = self.command(cmd)
        if (renamed := self.device.renames.pop(cmd, None)) is not None:
            self.device.renamed = renamed
        if (trailed := self.device.trailed.get(cmd)) is not None:
            trail, once = trailed
            if once:
                del self.device.trailed[cmd]
            reply = reply._replace(text=f"{reply.text}\n{trail}" if reply.text else trail)
        return reply

    def command(self, cmd: str) -> Reply:
        raise NotImplementedError


class EosShell(Shell):
    """Arista EOS: starts in unprivileged `name>`; `enable` (no enable secret) gives `name#`; `configure session
    NAME` gives the session's config mode, whose lines losslessd.sim.config keeps until a commit. `configure` (or
    `configure terminal`) gives the plain config mode `name(config)#`, whose lines EOS applies as they are typed: here
    they are kept in a session of this login's own and committed at `end` (or `exit` from the top), which leaves the
    running config as the lines one by one would."""

    # Commands EOS refuses below privileged mode ("% Invalid input (privileged mode required)").
    PRIVILEGED = ("show running-config", "show startup-config", "configure", "copy", "write")

    def __init__(self, device: CliDevice):
        super().__init__(device)
        self.enabled = False
        self.session: str | None = None  # the config session this login is in
        self.mode: list[str] = []  # the modes entered inside it (`if-Et1/1`, `uc-txq-3`)
        self.terminal = False  # the session is `configure`'s (committed at `end`), not one the client named

    @property
    def model(self) -> str:
        """The hardware model `show version` names (its first line, `Arista MODEL`)."""
        return self.device.outputs.get("show version", "").partition("\n")[0].removeprefix("Arista ").strip()

    @property
    def prompt(self) -> str:
        if self.session is not None:
            session = "" if self.terminal else f"-s-{self.session[:8]}"
            return f"{self.hostname}(config{session}{''.join('-' + m for m in self.mode)})#"
        return f"{self.hostname}{'#' if self.enabled else '>'}"

    def answer(self, line: str) -> Reply:
        if self.session is not None:
            return self.configure(normalize(line))
        return super().answer(line)

    def configure(self, cmd: str) -> Reply:
        """A line typed in a config session."""
        state = self.device.config
        session = state.sessions.get(self.session)
        if session is None:  # aborted or reverted from another login
            self.session, self.mode = None, []
            return Reply("% Session no longer exists", status=1)
        entering = cmd.startswith("configure session ")
        if self.terminal and (entering or cmd == "end" or (cmd == "exit" and not self.mode)):
            # `configure`'s lines take effect (before a named session is entered from its mode, too)
            self.session, self.mode, self.terminal = None, [], False
            error = state.eos_commit(session.name)
            state.sessions.pop(session.name, None)
            if error or not entering:
                return Reply(error, status=1 if error else 0)
        if cmd in ("end", "abort", "commit") or (cmd == "exit" and not self.mode):
            name, self.session, self.mode = self.session, None, []
            if cmd == "abort":
                state.eos_abort(name)
            elif cmd == "commit":
                error = state.eos_commit(name)
                return Reply(error, status=1 if error else 0)
            return Reply("")
        if cmd == "exit":
            self.mode.pop()
            session.lines.append(cmd)
            return Reply("")
        if entering:
            self.session = cmd.split()[2]  # (from a session's mode, or from `configure`'s once its lines took effect)
            state.sessions.setdefault(self.session, EosSession(self.session))
            self.mode = []
            return Reply("")
        if cmd == "rollback clean-config":
            session.replace, session.lines = True, []
            return Reply("")
        if cmd.startswith("show "):
            return super().answer(cmd)
        if EOS_SPLIT_QUEUE.match(cmd) and self.mode and families.family_of("arista_eos", self.model) == "sand":
            return Reply("% Invalid input", status=1)
        state.log.append(cmd)
        session.lines.append(cmd)
        self.mode = _eos_modes(self.mode, cmd)
        return Reply("")

    def command(self, cmd: str) -> Reply:
        words = cmd.split()
        if cmd in ("enable", "en"):
            self.enabled = True
            return Reply("")
        if cmd == "disable":
            self.enabled = False
            return Reply("")
        # What netmiko's AristaSSH.session_preparation sends and waits for (netmiko/arista/arista.py).
        if words[:2] == ["terminal", "length"] and len(words) == 3 and is_small_int(words[2]):
            return Reply("Pagination disabled." if words[2] == "0" else "")
        if words[:2] == ["terminal", "width"] and len(words) == 3 and is_small_int(words[2]):
            return Reply(f"Width set to {words[2]} columns.")
        if not self.enabled and cmd.startswith(self.PRIVILEGED):
            return Reply("% Invalid input (privileged mode required)", status=1)
        if words[:2] == ["configure", "session"] and len(words) == 3:
            self.session = words[2]
            self.device.config.sessions.setdefault(self.session, EosSession(self.session))
            return Reply("")
        if cmd in ("configure", "configure terminal"):
            self.session, self.terminal = f"terminal-{id(self):x}", True
            self.device.config.sessions[self.session] = EosSession(self.session)
            return Reply("")
        if (out := self.device.config.eos_exec(cmd)) is not None:
            return Reply(out, status=1 if out.startswith("%") else 0)
        if cmd in self.device.outputs:
            return Reply(self.device.outputs[cmd])
        return Reply("% Invalid input", status=1)


def _eos_modes(modes: list[str], cmd: str) -> list[str]:
    """The modes a config session is in after ``cmd`` (for its prompt), as losslessd.sim.config.eos_tree nests."""
    if cmd.startswith(EOS_TOP_MODES):
        words = cmd.split()
        return [f"if-{words[1]}" if words[0] == "interface" else words[0]]
    if modes and EOS_QUEUE.match(cmd):
        return [modes[0], cmd.replace("uc-tx-queue ", "uc-txq-").replace("tx-queue ", "txq-")]
    if len(modes) == 2 and not cmd.startswith(EOS_QUEUE_COMMANDS):
        return modes[:1]
    return modes


class BashShell(Shell):
    """A Linux login shell (SONiC's admin shell, a GPU host's root shell): `user@name:~$` or `~#`."""

    @property
    def prompt(self) -> str:
        return f"{self.device.username}@{self.hostname}:~{'#' if self.device.username == 'root' else '$'} "

    def command(self, cmd: str) -> Reply:
        if cmd in self.device.outputs:
            return Reply(self.device.outputs[cmd])
        if self.device.platform == "sonic" and (done := self.device.config.sonic_command(cmd)) is not None:
            return Reply(done[0], status=done[1])
        if self.device.platform == "nvidia_cumulus" and (done := self.device.config.nvue_command(cmd)) is not None:
            return Reply(done[0], status=done[1])
        program, *args = cmd.split()
        if program == "show" and self.device.platform == "sonic":
            # SONiC's `show` is a click application: an unknown subcommand gets click's usage error.
            return Reply('Usage: show [OPTIONS] COMMAND [ARGS]...\nTry "show -h" for help.\n\n'
                         f'Error: No such command "{args[0] if args else ""}".', status=2)
        if program in ("cat", "grep") and args:
            files = [a for a in args if not a.startswith("-")][1 if program == "grep" else 0:]
            return Reply("".join(f"{program}: {f}: No such file or directory\n" for f in files),
                         status=2 if program == "grep" else 1)
        return Reply(f"-bash: {program}: command not found", status=127)


class NxosShell(Shell):
    """Cisco NX-OS: a network-admin login starts at `name#`; the paging commands netmiko's cisco_nxos sends first
    (`terminal length 0`, `terminal width 511`: netmiko/cisco/cisco_nxos_ssh.py session_preparation) print nothing;
    an unknown command gets NX-OS's `% Invalid command at '^' marker.` (the refusal the platform record lists)."""

    @property
    def prompt(self) -> str:
        return f"{self.hostname}# "

    def command(self, cmd: str) -> Reply:
        words = cmd.split()
        if words[:1] == ["terminal"] and len(words) == 3 and words[1] in ("length", "width") and is_small_int(words[2]):
            return Reply("")
        if cmd in self.device.outputs:
            return Reply(self.device.outputs[cmd])
        return Reply(f"{' ' * len(self.prompt)}^\n% Invalid command at '^' marker.", status=1)


# By the name a platform record gives (losslessd.platforms, Platform.shell).
SHELLS: dict[str, type[Shell]] = {"eos": EosShell, "bash": BashShell, "nxos": NxosShell}


def _crlf(text: str) -> str:
    """A PTY's output processing turns each newline into CR LF (termios ONLCR)."""
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


async def _session(process: asyncssh.SSHServerProcess, shell: Shell) -> None:
    if process.command is not None:  # `ssh host command`: one answer, no prompt
        await asyncio.sleep(shell.device.delay_s)
        reply = shell.answer(process.command)
        process.stdout.write(reply.text + ("\n" if reply.text and not reply.text.endswith("\n") else ""))
        process.exit(reply.status)
        return
    process.stdout.write(_crlf(shell.prompt))
    line: list[str] = []
    after_cr = done = False
    while not done:
        try:
            data = await process.stdin.read(4096)
        except (asyncssh.TerminalSizeChanged, asyncssh.BreakReceived, asyncssh.SignalReceived):
            continue
        if not data:
            break
        out: list[str] = []  # one write per chunk read: a packet per echoed character would flood a closing socket
        for ch in data:
            if ch == "\n" and after_cr:  # CR LF is one end of line
                after_cr = False
                continue
            after_cr = ch == "\r"
            if ch in "\r\n":
                out.append("\r\n")
                if shell.device.delay_s and line:
                    await asyncio.sleep(shell.device.delay_s)
                reply = shell.answer("".join(line))
                line.clear()
                if reply.close:
                    done = True
                    break
                if reply.flood:
                    process.stdout.write("".join(out))
                    await _flood(process)
                    return
                text = reply.text + ("\n" if reply.text and not reply.text.endswith("\n") else "")
                if reply.held is not None:
                    pager, pause_s = reply.held
                    lines = text.split("\n")
                    half = len(lines) // 2
                    head, text = "".join(f"{line}\n" for line in lines[:half]), "\n".join(lines[half:])
                    process.stdout.write("".join(out) + _crlf(head + pager))
                    out.clear()
                    if pause_s:  # a slow device: the rest follows by itself
                        await asyncio.sleep(pause_s)
                    elif not pager or not await process.stdin.read(1):  # hung, or the client went
                        await _hang(process)
                        return
                    else:
                        out.append("\r" + " " * len(pager) + "\r")  # (as a pager erases its marker)
                out.append(_crlf(text + shell.prompt))
            elif ch in "\x7f\b":
                if line:
                    line.pop()
                    out.append("\b \b")
            elif ch == "\x03":  # Ctrl-C drops the line being typed
                line.clear()
                out.append("^C\r\n" + shell.prompt)
            elif ch == "\x04" and not line:  # Ctrl-D on an empty line logs out
                done = True
                break
            else:
                line.append(ch)
                out.append(ch)  # the echo netmiko waits for
        process.stdout.write("".join(out))
        await process.stdout.drain()
    process.exit(0)


async def _hang(process: asyncssh.SSHServerProcess) -> None:
    """Nothing more, whatever the client sends, until it closes the session."""
    with contextlib.suppress(OSError, asyncssh.Error):
        while await process.stdin.read(4096):
            pass


# One write of a flood: 64 lines of 1 KiB, as a `show` printing a long table.
_FLOOD = ("x" * 1022 + "\r\n") * 64


async def _flood(process: asyncssh.SSHServerProcess) -> None:
    """Output without end, as fast as the client reads it, until the session closes."""
    try:
        while not process.is_closing():
            process.stdout.write(_FLOOD)
            await process.stdout.drain()
    except (OSError, asyncssh.Error):  # the client cut the session
        pass


class _Server(asyncssh.SSHServer):
    """Password login for the device's one user; other methods are not offered, but keyboard-interactive where the
    device asks prompts at login (Simulator.ask_at_login), one a round: a prompt naming the password takes it, any
    other (a one-time code the simulator cannot know) refuses the login, or with ``login_loop`` the prompts are
    asked again and again whatever the answers."""

    def __init__(self, device: CliDevice, conns: set[asyncssh.SSHServerConnection]):
        self.device = device
        self.conns = conns
        self.conn: asyncssh.SSHServerConnection | None = None
        self.asked = 0  # keyboard-interactive prompts asked in this login

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.conns.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        self.conns.discard(self.conn)

    def begin_auth(self, username: str) -> bool:
        if self.device.auth_banner and self.conn is not None:
            self.conn.send_auth_banner(self.device.auth_banner)
        return True

    def password_auth_supported(self) -> bool:
        return not self.device.login_prompts

    def kbdint_auth_supported(self) -> bool:
        return bool(self.device.login_prompts)

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str):
        self.asked = 0
        return self._next_prompt()

    def validate_kbdint_response(self, username: str, responses):
        self.device.login_answers.extend(responses)
        prompt = self.device.login_prompts[(self.asked - 1) % len(self.device.login_prompts)]
        if "password" in prompt.lower():  # (a code the simulator cannot know: any other answer is refused)
            if len(responses) != 1 or self.validate_password(username, responses[0]) is not True:
                return False
        elif not self.device.login_loop:
            return False
        if self.asked < len(self.device.login_prompts) or self.device.login_loop:
            return self._next_prompt()
        return True

    def _next_prompt(self):
        """The next round's one prompt (name, instructions, language, prompts: asyncssh's challenge)."""
        prompt = self.device.login_prompts[self.asked % len(self.device.login_prompts)]
        self.asked += 1
        return "", "", "", [(prompt, False)]

    def validate_password(self, username: str, password: str):
        ok = username == self.device.username and hmac.compare_digest(password.encode(), self.device.password.encode())
        if self.device.slow_login and self.device.delay_s:
            return _after(self.device.delay_s, ok)  # (asyncssh awaits an answer that is a coroutine)
        return ok


async def _after(delay_s: float, value: bool) -> bool:
    await asyncio.sleep(delay_s)
    return value


class SshServers:
    """The devices' listeners on a private event loop running in a daemon thread."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="losslessd-sim-ssh", daemon=True)
        self._thread.start()
        self._listeners: dict[str, asyncssh.SSHAcceptor | _Front] = {}
        self._conns: dict[str, set[asyncssh.SSHServerConnection]] = {}

    def _call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(_CALL_TIMEOUT_S)

    def listen(self, device: CliDevice, host_key: asyncssh.SSHKey, port: int = 0) -> int:
        """Start answering SSH for ``device`` on ``port`` (0: a free one); returns the port."""
        return self._call(self._listen(device, host_key, port))

    async def _listen(self, device: CliDevice, host_key: asyncssh.SSHKey, port: int) -> int:
        conns = self._conns.setdefault(device.name, set())
        acceptor = await asyncssh.listen(
            HOST, 0 if device.before_version[0] else port, reuse_address=True, server_host_keys=[host_key],
            server_factory=lambda: _Server(device, conns),
            process_factory=lambda process: _session(process, SHELLS[PLATFORMS[device.platform].shell or ""](device)),
            line_editor=False, agent_forwarding=False, allow_scp=False, x11_forwarding=False,
            **({"kex_algs": list(device.kex_algs)} if device.kex_algs else {}),
            # an output may hold "\udcXX" (Python's surrogateescape) to send the byte XX, which is not UTF-8
            encoding="utf-8", errors="surrogateescape")
        if device.before_version[0]:  # the device's port is a front that sends them, then the SSH server's bytes
            front = _Front(acceptor, device.before_version)
            await front.start(port)
            self._listeners[device.name] = front
            return front.port
        self._listeners[device.name] = acceptor
        return acceptor.get_port()

    def connections(self, name: str) -> int:
        """SSH connections to ``name`` open now."""
        return len(self._conns.get(name, ()))

    def close(self, name: str) -> None:
        """Stop listening for ``name`` and drop its open sessions (a device that went down)."""
        self._call(self._close(name))

    async def _close(self, name: str) -> None:
        acceptor = self._listeners.pop(name, None)
        if acceptor is not None:
            acceptor.close()
            await acceptor.wait_closed()
        for conn in list(self._conns.get(name, ())):
            conn.abort()

    def shutdown(self) -> None:
        """Close every listener and stop the thread."""
        if not self._thread.is_alive():
            return
        for name in list(self._listeners):
            self.close(name)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_CALL_TIMEOUT_S)
        self._loop.close()


class _Front:
    """A device's SSH port that sends lines before the SSH server's version string (RFC 4253 4.2 lets a server send
    other lines first), then relays the connection to the server behind it: ``text`` at once, or a byte every
    ``every_s`` seconds, and with ``endless`` again and again (never reaching the version string)."""

    def __init__(self, backend: asyncssh.SSHAcceptor, before: tuple[bytes, float, bool]):
        self.backend = backend
        self.text, self.every_s, self.endless = before
        self.server: asyncio.AbstractServer | None = None
        self.port = 0

    async def start(self, port: int) -> None:
        self.server = await asyncio.start_server(self._serve, HOST, port, reuse_address=True)
        self.port = self.server.sockets[0].getsockname()[1]

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        self.backend.close()

    async def wait_closed(self) -> None:
        if self.server is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), 1)
        await self.backend.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                if self.every_s:
                    for k in range(len(self.text)):
                        writer.write(self.text[k:k + 1])
                        await writer.drain()
                        await asyncio.sleep(self.every_s)
                else:
                    writer.write(self.text)
                    await writer.drain()
                if not self.endless:
                    break
            back_reader, back_writer = await asyncio.open_connection(HOST, self.backend.get_port())
        except (OSError, asyncio.CancelledError):
            writer.close()
            return
        await asyncio.gather(_pipe(reader, back_writer), _pipe(back_reader, writer), return_exceptions=True)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


def generate_host_key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def known_hosts_line(port: int, key: asyncssh.SSHKey) -> str:
    """OpenSSH known_hosts entry for a non-standard port: `[host]:port type base64` (sshd(8), SSH_KNOWN_HOSTS)."""
    public = key.export_public_key("openssh").decode().split()
    return f"[{HOST}]:{port} {public[0]} {public[1]}\n"

