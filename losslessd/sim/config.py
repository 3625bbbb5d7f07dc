"""Config pushes the simulated devices accept, each through its platform's own transactional path, and the
changed config they serve afterwards (`show running-config`, `show runningconfiguration all`).

EOS (what napalm's eos driver sends over SSH, napalm/eos/eos.py): `configure session NAME` with the config
lines flattened (napalm strips the indentation; the session follows EOS's modes: `interface X`, `qos profile X`,
and `tx-queue N` / `uc-tx-queue N` inside them), `rollback clean-config`, `abort`, `commit` and `end` inside
the session; in exec mode `show session-config named NAME diffs`, `configure session NAME commit [timer
HH:MM:SS]` (committed, and reverted when not confirmed before the timer runs out), `configure session NAME
abort` (also reverts a commit still on its timer), `show configuration sessions [detail] | json`,
`copy startup-config flash:rollback-0`, `configure replace flash:rollback-0` and `write memory`.

SONiC (sonic-utilities config/main.py): `config checkpoint NAME`, `config apply-patch FILE` (an RFC 6902 JSON
patch of CONFIG_DB), `config rollback NAME`, `config delete-checkpoint NAME`, `config list-checkpoints`, with
or without sudo; the patch file is made with `mktemp /tmp/NAME.XXX...` (a new name, mode 0600), written
with `printf '%s' 'PART' >> FILE` (a terminal line holds at most 4095 characters, so a long patch goes in parts)
and removed with `rm -f -- FILE`. On a multi-ASIC
dump (`localhost`, `asicN`) a patch path without its namespace is refused, as the generic config updater refuses it.

Cumulus NVUE (NVIDIA's NVUE command reference, "Config Commands"): `nv set` and `nv unset` build a pending
revision, `nv config diff` shows it, `nv config apply -y` applies it (`applied [rev_id: N]`), `nv config detach`
drops it; `nv config show -o commands` and `-o json` serve the applied config.

A device can be told to refuse commits (``refuse``): EOS then answers a commit with an error and changes
nothing; SONiC's apply-patch fails as `config` does on a YANG validation error; NVUE's apply fails.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import secrets
import shlex
import string
import time
from dataclasses import dataclass, field

from .. import rfc6902
from ..fix.apply import EOS_SETTINGS, replace_set_lines, replay_cli, set_changes
from ..parse.sonic.configdb import is_namespaced

EOS_RUNNING = "show running-config"
EOS_STARTUP = "show startup-config"
SONIC_RUNNING = "show runningconfiguration all"
NVUE_COMMANDS = "nv config show -o commands"
NVUE_JSON = "nv config show -o json"
_TIMER = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})$")
# EOS modes entered from config mode, and the sub-modes (with the commands they hold) entered inside them.
EOS_TOP_MODES = ("interface ", "qos profile ", "policy-map ", "class-map ", "router ", "management ", "vrf instance ",
            "ip access-list ", "vlan ", "monitor ", "daemon ", "hardware ")
EOS_QUEUE = re.compile(r"^(?:uc-|mc-)?tx-queue \d+$")
# A Sand switch (Arad/Jericho VOQ: 7020R, 7280R, 7500R, 7800R) has one kind of egress queue, `tx-queue N`; the unicast
# and multicast queues `uc-tx-queue N` / `mc-tx-queue N` are Trident/Tomahawk ones (render.families, which cites the
# sources), so the simulated Sand switch refuses those as EOS refuses a command its platform lacks.
EOS_SPLIT_QUEUE = re.compile(r"^(?:uc|mc)-tx-queue \d+$")
EOS_QUEUE_COMMANDS = ("random-detect", "priority", "bandwidth", "shape", "no random-detect", "no priority",
                       "no bandwidth", "no shape", "default ")


@dataclass
class EosSession:
    name: str
    lines: list[str] = field(default_factory=list)  # flat, as received
    replace: bool = False  # `rollback clean-config`: the session starts from an empty config
    state: str = "pending"  # pending | pendingCommitTimer | completed
    before: str | None = None  # the running config before a commit on its timer (what a revert restores)
    commit_by: float | None = None  # monotonic deadline of a commit on its timer
    timer: asyncio.TimerHandle | None = None


@dataclass
class ConfigState:
    """One device's pushed-config state, shared by all its SSH sessions (one event loop: no locking)."""

    outputs: dict[str, str]  # the device's command outputs; the running config among them is changed in place
    started: float = field(default_factory=time.monotonic)
    sessions: dict[str, EosSession] = field(default_factory=dict)
    flash: dict[str, str] = field(default_factory=dict)
    checkpoints: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)  # each file's permission bits
    made: list[str] = field(default_factory=list)  # every file `mktemp` made, in order (tests check them)
    mktemp_answer: str | None = None  # what `mktemp` prints instead of a new file's name (tests plant it)
    mktemp_names: list[str] = field(default_factory=list)  # the names `mktemp` gives next, in order (tests plant them)
    nvue_pending: list[str] = field(default_factory=list)  # `nv set` / `nv unset` lines not applied yet
    nvue_revision: int = 1
    refuse: str | None = None  # refuse every commit with this reason
    foreign: list[str] = field(default_factory=list)  # lines every EOS session gains beside its own (Simulator.meddle)
    commits: int = 0  # commits that changed the running config (tests count them)
    rollbacks: int = 0
    log: list[str] = field(default_factory=list)  # every config command received, in order

    # -- EOS ---------------------------------------------------------------------------------------------
    def eos_session_text(self, session: EosSession) -> str:
        """The running config as it would be with the session committed. `no random-detect ecn` removes the
        queue's ECN line (EOS keeps no `no` line for it)."""
        base = "" if session.replace else self.outputs.get(EOS_RUNNING, "")
        if not (session.lines or session.replace):
            return base
        merged = replay_cli(base, eos_tree(session.lines + self.foreign).rstrip("\n"),
                            ("random-detect ecn", *EOS_SETTINGS))
        lines = [line for line in merged.splitlines(keepends=True) if line.strip() != "no random-detect ecn"]
        # A queue block left with nothing under it is not shown, as EOS does not show one.
        return "".join(line for i, line in enumerate(lines)
                       if not (EOS_QUEUE.match(line.strip()) and _indent(lines[i + 1] if i + 1 < len(lines) else "")
                               <= _indent(line)))

    def eos_commit(self, name: str, timer_s: float | None = None) -> str:
        session = self.sessions.get(name)
        if session is None:
            return f"% Session {name} does not exist"
        if session.state == "pendingCommitTimer" and timer_s is None:  # the confirmation
            session.state = "completed"
            if session.timer is not None:
                session.timer.cancel()
            session.before = session.commit_by = session.timer = None
            return ""
        if session.state != "pending":
            return f"% Session {name} has already been committed"
        if self.refuse:
            return f"% Failed to commit session {name}: {self.refuse}"
        new = self.eos_session_text(session)
        self.log.append(f"commit {name}")
        if new != self.outputs.get(EOS_RUNNING):
            self.commits += 1
        if timer_s is not None:
            session.before = self.outputs.get(EOS_RUNNING, "")
            session.state = "pendingCommitTimer"
            session.commit_by = time.monotonic() + timer_s
            session.timer = asyncio.get_running_loop().call_later(timer_s, self.eos_revert, name)
        else:
            session.state = "completed"
        self.outputs[EOS_RUNNING] = new
        return ""

    def eos_revert(self, name: str) -> None:
        """A commit whose timer ran out (or that was aborted) is undone."""
        session = self.sessions.pop(name, None)
        if session is None or session.state != "pendingCommitTimer":
            return
        if session.timer is not None:
            session.timer.cancel()
        self.outputs[EOS_RUNNING] = session.before
        self.rollbacks += 1
        self.log.append(f"reverted {name}")

    def eos_abort(self, name: str) -> str:
        session = self.sessions.get(name)
        if session is None:
            return f"% Session {name} does not exist"
        if session.state == "pendingCommitTimer":
            self.eos_revert(name)
        else:
            self.sessions.pop(name, None)
        return ""

    def eos_sessions_json(self, detail: bool) -> str:
        """`show configuration sessions [detail] | json` in the layout EOS releases before 4.32 print
        (napalm reads `sessions.NAME.state` and, for a commit on its timer, `commitBy` in uptime seconds)."""
        sessions = {}
        for name, s in self.sessions.items():
            entry = {"state": s.state, "completedTime": 0, "commitUser": "", "description": ""}
            if detail and s.commit_by is not None:
                entry["commitBy"] = self.uptime() + (s.commit_by - time.monotonic())
            sessions[name] = entry
        return json.dumps({"sessions": sessions, "maxSavedSessions": 1, "maxOpenSessions": 5}, indent=2)

    def uptime(self) -> float:
        return time.monotonic() - self.started

    def eos_exec(self, cmd: str) -> str | None:
        """An exec-mode config command's output; None: not one of them."""
        words = cmd.split()
        m = re.fullmatch(r"configure session (\S+) (commit|abort)(?: timer (\S+))?", cmd)
        if m:
            self.log.append(cmd)
            if m[2] == "abort":
                return self.eos_abort(m[1])
            timer = None
            if m[3] is not None:
                t = _TIMER.match(m[3])
                if t is None:
                    return "% Invalid input"
                timer = int(t[1]) * 3600 + int(t[2]) * 60 + int(t[3])
            return self.eos_commit(m[1], timer)
        if (m := re.fullmatch(r"show session-config named (\S+)( diffs)?", cmd)) is not None:
            session = self.sessions.get(m[1])
            if session is None:
                return f"% Session {m[1]} does not exist"
            new = self.eos_session_text(session)
            if not m[2]:
                return new
            return "".join(difflib.unified_diff(self.outputs.get(EOS_RUNNING, "").splitlines(keepends=True),
                                                new.splitlines(keepends=True), "system:/running-config",
                                                f"session:/{m[1]}-session-config"))
        if cmd in ("show configuration sessions | json", "show configuration sessions detail | json"):
            return self.eos_sessions_json("detail" in words)
        if cmd == "show version | json" and isinstance(shown := _json_or_none(self.outputs.get(cmd)), dict):
            # EOS's `uptime` (seconds since boot), what a pending commit's `commitBy` is counted in
            return json.dumps({**shown, "uptime": self.uptime()}, indent=2)
        if words[:1] == ["copy"] and len(words) == 3:
            source = {"startup-config": EOS_STARTUP, "running-config": EOS_RUNNING}.get(words[1])
            if source is None or not words[2].startswith("flash:"):
                return "% Invalid input"
            self.flash[words[2].removeprefix("flash:")] = self.outputs.get(source, "")
            return "Copy completed successfully."
        if cmd == "write memory" or cmd == "copy running-config startup-config":
            self.outputs[EOS_STARTUP] = self.outputs.get(EOS_RUNNING, "")
            return "Copy completed successfully."
        if words[:2] == ["configure", "replace"] and len(words) == 3:
            text = self.flash.get(words[2].removeprefix("flash:"))
            if text is None:
                return f"% Error: file {words[2]} not found"
            self.log.append(cmd)
            self.outputs[EOS_RUNNING] = text
            self.rollbacks += 1
            return ""
        return None

    # -- SONiC ---------------------------------------------------------------------------------------
    def sonic_running(self) -> dict:
        return json.loads(self.outputs.get(SONIC_RUNNING, "{}"))

    def sonic_command(self, cmd: str) -> tuple[str, int] | None:
        """(output, exit status) of a config or file command on SONiC's shell; None: not one of them."""
        try:
            words = shlex.split(cmd)
        except ValueError:
            return None
        if words[:1] == ["sudo"]:
            words = words[1:]
        if words[:1] == ["mktemp"] and len(words) == 2 and (m := re.fullmatch(r"(/tmp/[^/]*?)(X{3,})", words[1])):
            # GNU coreutils mktemp: the trailing Xs replaced by random letters and digits, the file created u+rw
            # (0600; the session's umask 022 takes nothing from it), its name printed
            if self.mktemp_answer is not None:
                return self.mktemp_answer, 1
            path = (self.mktemp_names.pop(0) if self.mktemp_names else
                    m[1] + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in m[2]))
            self.files[path], self.modes[path] = "", 0o600
            self.made.append(path)
            return path, 0
        if words[:2] == ["printf", "%s"] and len(words) == 5 and words[3] in (">", ">>"):
            self.files[words[4]] = (self.files.get(words[4], "") if words[3] == ">>" else "") + words[2]
            return "", 0
        if words[:2] == ["rm", "-f"]:
            for path in words[2 + (words[2:3] == ["--"]):]:
                self.files.pop(path, None)
                self.modes.pop(path, None)
            return "", 0
        if words[:1] == ["cat"] and len(words) == 2 and words[1] in self.files:
            return self.files[words[1]], 0
        if words[:1] != ["config"] or len(words) < 2:
            return None
        self.log.append(" ".join(words))
        verb, args = words[1], words[2:]
        if verb == "checkpoint" and len(args) == 1:
            self.checkpoints[args[0]] = self.outputs.get(SONIC_RUNNING, "{}")
            return "Checkpoint created successfully.", 0
        if verb == "rollback" and len(args) == 1:
            if args[0] not in self.checkpoints:
                return _click_fail("Failed to rollback config", f"Checkpoint '{args[0]}' does not exist"), 2
            self.outputs[SONIC_RUNNING] = self.checkpoints[args[0]]
            self.rollbacks += 1
            return "Config rolled back successfully.", 0
        if verb == "delete-checkpoint" and len(args) == 1:
            if self.checkpoints.pop(args[0], None) is None:
                return _click_fail("Failed to delete config checkpoint", f"Checkpoint '{args[0]}' does not exist"), 2
            return "Checkpoint deleted successfully.", 0
        if verb == "list-checkpoints":
            return json.dumps(sorted(self.checkpoints), indent=4), 0
        if verb == "apply-patch" and len(args) == 1:
            return self.sonic_apply_patch(args[0])
        return None

    # -- NVUE ----------------------------------------------------------------------------------------
    def nvue_command(self, cmd: str) -> tuple[str, int] | None:
        """(output, exit status) of an `nv` config command; None: not one of them."""
        words = cmd.split()
        if words[:1] == ["sudo"]:
            words = words[1:]
        if words[:2] in (["nv", "set"], ["nv", "unset"]) and len(words) > 2:
            self.nvue_pending.append(" ".join(words))
            return "", 0
        if words[:2] != ["nv", "config"] or len(words) < 3:
            return None
        verb, applied = words[2], self.outputs.get(NVUE_COMMANDS, "")
        if verb == "detach":
            self.nvue_pending.clear()
            return "", 0
        if verb == "diff":
            return set_changes(applied, "\n".join(self.nvue_pending) + "\n").strip(), 0
        if verb == "apply" and len(words) == 4 and words[3] in ("-y", "--y", "--assume-yes"):
            self.log.append(" ".join(words))
            if self.refuse:
                return f"Error: {self.refuse}", 1
            new = replace_set_lines(applied, "\n".join(self.nvue_pending))
            self.nvue_pending.clear()
            if new != applied:
                self.commits += 1
                self.nvue_revision += 1
            self.outputs[NVUE_COMMANDS], self.outputs[NVUE_JSON] = new, nvue_tree(new)
            return f"applied [rev_id: {self.nvue_revision}]", 0
        return None

    def sonic_apply_patch(self, path: str) -> tuple[str, int]:
        if path not in self.files:
            return _click_fail_patch(f"[Errno 2] No such file or directory: '{path}'"), 2
        try:
            patch = json.loads(self.files[path])
            running = self.sonic_running()
            if is_namespaced(running) and (bare := next((op["path"] for op in patch if not _SCOPE.match(op["path"])),
                                                        None)) is not None:
                return _click_fail_patch(f"Multi ASIC must have namespace prefix in path: '{bare}'."), 2
            db = rfc6902.apply(running, patch)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            return _click_fail_patch(f"invalid patch: {exc}"), 2
        if self.refuse:
            return _click_fail_patch(self.refuse), 2
        new = json.dumps(db, indent=4, sort_keys=True) + "\n"
        if new != self.outputs.get(SONIC_RUNNING):
            self.commits += 1
        self.outputs[SONIC_RUNNING] = new
        return "Patch applied successfully.", 0


def nvue_tree(commands: str) -> str:
    """`nv config show -o json` of an applied config held as `nv set` lines: the header NVUE prints, then the
    tree of every set path (a bare command is an empty mapping, as NVUE writes `pfc-watchdog: {}`)."""
    tree: dict = {}
    for line in commands.splitlines():
        words = line.split()
        if words[:2] != ["nv", "set"]:
            continue
        node = tree
        for word in words[2:]:
            node = node.setdefault(word, {})
    return json.dumps([{"header": {"model": "losslessd-sim", "nvue-api-version": "nvue_v1", "rev-id": 1.0,
                                   "version": "Cumulus Linux 5.9.1"}}, {"set": tree}], indent=2)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" ")) if line.strip() else 0


def _click_fail(message: str, error: str) -> str:
    """What a click command prints when it calls ctx.fail (sonic-utilities config/main.py)."""
    return f"{message}\nUsage: config [OPTIONS] COMMAND [ARGS]...\nTry \"config -h\" for help.\n\nError: {error}"


# A multi-ASIC switch's patch paths begin with the namespace (sonic-utilities generic_updater.py extract_scope).
_SCOPE = re.compile(r"/(asic\d+|localhost)/")


def _click_fail_patch(error: str) -> str:
    return _click_fail(f"Failed to apply patch due to: {error}", error)


def eos_tree(lines: list[str]) -> str:
    """Flat config lines (as napalm sends them) indented by the EOS mode each one lands in."""
    out: list[str] = []
    depth = 0  # 0: config mode, 1: an interface or profile, 2: a tx-queue inside it
    for raw in lines:
        line = " ".join(raw.split())
        if not line or line.startswith("!"):
            continue
        if line == "exit":
            depth = max(0, depth - 1)
            continue
        if line.startswith(EOS_TOP_MODES):
            out.append(line)
            depth = 1
        elif depth >= 1 and EOS_QUEUE.match(line):
            out.append("   " + line)
            depth = 2
        elif depth == 2 and not line.startswith(EOS_QUEUE_COMMANDS):
            out.append("   " + line)  # not a tx-queue command: EOS takes it in the mode above
            depth = 1
        else:
            out.append("   " * depth + line)
    return "\n".join(out) + "\n"


def _json_or_none(text: str | None):
    """``text`` read as JSON; None when there is none or it is no JSON (a test's own output served as it is)."""
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None
