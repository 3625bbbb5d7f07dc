"""Pushing a candidate through each platform's own transactional path, checking that it landed, and putting
the settings back. Nothing here runs without `losslessd tune --apply` and the operator's confirmation.

- arista_eos, through napalm's eos driver over SSH (host keys checked as `pull` checks them):
  load_merge_candidate, compare_config, commit_config with a revert timer (EOS `configure session NAME commit
  timer`: the switch undoes the commit by itself unless it is confirmed in time), a read-back of the running
  config, then confirm_commit; a commit that did not land is rolled back (napalm rollback: the pending session
  is aborted). Settings as found are restored by writing the tuned queues' ECN lines back as they were.
- sonic, over its SSH shell: `config checkpoint` before each push, the change as an RFC 6902 patch
  (`config apply-patch`), a read-back of `show runningconfiguration all`, and `config rollback` to the
  checkpoint when the patch fails or did not land. SONiC has no commit timer. Settings as found are restored
  with `config rollback` to a checkpoint taken when the tune started.
- nvidia_cumulus, over its SSH shell: `nv config detach` (no stale pending revision), the `nv set` lines,
  `nv config diff`, `nv config apply -y`, a read-back of `nv config show -o commands`; a change that did not
  land is reverted by applying the previous lines of the paths it set (`nv unset` where there were none).
  NVUE's `apply --confirm` timer is not used: its confirmation command is not in the reference this was built
  from. Settings as found are restored by re-applying the tuned ports' congestion-control lines as they were.

Each pusher's SSH connection is a pull's (collect.ssh.Guard): the byte budget, outputs decoded whole, the login
secrets masked in every output, and each read of the running config checked as a pull checks it: one that is
refused, cut, garbled or holds the prompt is an InputError (exit 2) naming the device and the command, never a base
to patch against or to put settings back from. The SONiC and NVUE pushers' own commands (`config checkpoint`, the
patch file's writes, `config apply-patch`, `config rollback`, `nv set`, `nv config diff`, `nv config apply`) are
checked the same way, and for an error line beside their success line: such an answer stops the push as a failed
one (rolled back where something may have changed), never read as done because the success line is there too.

After every push the running config is read back and checked (losslessd.tune.candidate.ecn_check: the tuned
queues hold the pushed thresholds, parsed by losslessd's own parser); a push that fails or did not land raises
PushError after the device was rolled back, and the session then restores the best-known settings everywhere
and stops.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..collect.redact import redact
from ..collect.ssh import CollectError, Guard, connect_args, host_key_refusal
from ..docpos import json_value
from ..errors import InputError
from ..fix.apply import sonic_patch
from ..inventory import Host
from ..lazyre import lazy
from ..platforms import PLATFORMS, Command
from ..printable import printable
from ..records import record
from ..render import families
from ..units import is_digits

CONFIRM_S = 300  # revert timer of an EOS commit that is not confirmed (napalm commit_config revert_in)
# A failure a SONiC or NVUE command prints, whatever else its output says: `Error: ...` (how a click command fails,
# sonic-utilities config/main.py ctx.fail; NVUE's `nv` answers a refused command so too), sonic-utilities' `Failed to
# ...` lines (config apply-patch, rollback, checkpoint), and a Python traceback (an exception the command let out).
_ERROR_LINE = lazy(r"^[ \t]*(?:Error:|ERROR:|Failed to |Traceback \(most recent call last\))", re.M)
_PATCH_CHUNK = 1000  # characters per printf line (a terminal line holds at most 4095)
# The SONiC patch file: mktemp's template (GNU coreutils mktemp: at least 3 trailing X, each replaced by a letter or
# digit), and what its answer must be.
_PATCH_TEMPLATE = "/tmp/losslessd-tune.XXXXXXXXXX"
_PATCH_FILE = lazy(r"/tmp/losslessd-tune\.[A-Za-z0-9]{10}")


class PushError(Exception):
    def __init__(self, device: str, message: str, rolled_back: bool):
        super().__init__(f"{device}: {message}")
        self.device, self.message, self.rolled_back = device, message, rolled_back


@record
class Pushed:
    device: str
    changed: bool
    diff: str  # what the device said would change (EOS session diff, SONiC JSON patch)


# A check of the running config after a push: None when it holds what was pushed, else what is wrong.
Check = Callable[[str], "str | None"]


class Pusher:
    def __init__(self, host: Host, known_hosts: Path | None, timeout_s: float, tag: str):
        self.host, self.known_hosts, self.timeout_s, self.tag = host, known_hosts, timeout_s, tag
        # what the operator must hear though the push stands (a checkpoint left on the switch): the tune says it
        # and keeps it with its events (`tune report`), then clears the list
        self.warnings: list[str] = []
        # what a failed push left on the device (a SONiC checkpoint whose rollback failed, the operator's way back; an
        # EOS config session of ours whose commit may wait on its timer): removed or reverted by the device's next
        # push or put-back, named in by_hand until then; a new session for the device (session._reopen) takes it over
        self.left: list[str] = []

    @property
    def name(self) -> str:
        return self.host.name

    def open(self) -> None: ...

    def close(self) -> None: ...

    def connect(self) -> object:
        """The metered TCP connection the pusher's SSH session runs over (Guard.connect)."""
        self.guard = Guard(self.host, self.timeout_s)
        try:
            return self.guard.connect()
        except CollectError as exc:
            raise PushError(self.name, f"cannot connect: {exc.message}", False) from None

    def _login_failed(self, exc: Exception, what: str) -> PushError:
        """``what`` failed: a host key that is not the known one (collect.ssh.host_key_refusal: how to add it), else
        the exception's own words, the login secrets masked."""
        if self.guard.overlong:
            return PushError(self.name, f"{what}: {self.guard.overlong_message()}", False)
        if self.guard.aborted:
            return PushError(self.name, f"{what}: the login did not finish within {self.timeout_s:g} s", False)
        why = host_key_refusal(exc, self.host, self.known_hosts) or f"{type(exc).__name__}: {exc}"
        return PushError(self.name, f"{what}: {self.guard.mask(why)[0]}", False)

    def _why(self, exc: Exception) -> str:
        """An exception's type and first line (netmiko adds lines of advice), the login secrets masked."""
        first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        return self.guard.mask(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)[0]

    def running(self) -> str:
        """The running config as the platform's config_read answers it, checked as a pull checks an output."""
        cmd = self.host.platform.config_read
        try:
            output, _, why = self.guard.send(self._conn(), cmd, self.timeout_s, rearm=True)
        except CollectError as exc:
            why = exc.message
        except Exception as exc:  # noqa: BLE001 - a session that broke off mid-read: no config to trust
            why = self.guard.mask(f"the session failed: {type(exc).__name__}: {exc}")[0]
        if why is not None:
            raise InputError(f"{self.name}: `{cmd.line}`: {why}; not used as the running config (nothing pushed "
                             "on its base)")
        return output

    def _conn(self):
        """The netmiko connection the commands run on."""
        raise NotImplementedError

    def push(self, snippet: str, check: Check) -> Pushed:
        """Push ``snippet`` in one transaction; ``check`` reads the running config afterwards."""
        raise NotImplementedError

    def origin(self, running: str, queues: dict[str, list[int]], family: str | None = None) -> dict:
        """What restore() needs to put the tuned settings back as they are now (``family``: the command family the
        device's snippets are written for, candidate.DeviceConfig.family)."""
        raise NotImplementedError

    def restore(self, token: dict, check: Check, *, known: bool = True) -> None:
        """Put the tuned settings back as origin() found them (nothing to do when ``check`` says they are; ``known``
        False: the settings as found are not known on every tuned port, e.g. a carrying queue without ECN, so
        ``check`` cannot say so, and they are put back anyway)."""
        if known and check(self.running()) is None:
            return  # a device that never took a candidate, or one already put back
        why = self._put_back(token, check)
        if why is not None:
            raise PushError(self.name, f"putting the settings as found back failed: {why}", False)
        try:
            problem = check(self.running())
        except InputError as exc:  # (the put-back ran: the device changed, so no input error)
            raise PushError(self.name, f"the settings as found were put back, but reading them back failed "
                                       f"({exc.message}): whether they hold is not known", False) from None
        if problem is not None:
            raise PushError(self.name, f"put the settings as found back, but {problem}", False)

    def _put_back(self, token: dict, check: Check) -> str | None:
        """The platform's way back to ``token``; None when the device took it, else what it answered."""
        raise NotImplementedError

    def by_hand(self, token: dict) -> list[str]:
        """The commands that put the device back to ``token`` when the tune could not (one a line, to paste)."""
        raise NotImplementedError

    def forget(self, token: dict) -> None:
        """The tune is over: remove what origin() left on the device (a checkpoint)."""


def pusher_for(host: Host, known_hosts: Path | None, timeout_s: float, tag: str) -> Pusher:
    if host.platform.push is None:
        pushed = ", ".join(p.id for p in PLATFORMS.values() if p.push)
        raise InputError(f"{host.name}: no transactional push for platform {host.platform.id} "
                         f"(--apply supports {pushed}); tune it without --apply and push by hand")
    return PUSHERS[host.platform.push](host, known_hosts, timeout_s, tag)


_SESSIONS = "show configuration sessions detail"


def pending_commits(sessions: Any, version: Any) -> dict[str, int]:
    """The config sessions whose commit waits on its timer, with the seconds left (-1: not known), from `show
    configuration sessions detail | json` and `show version | json`. Two layouts (napalm's eos driver reads both, EOS
    4.32 changed it): before, `sessions.NAME.state` is `pendingCommitTimer` with `commitBy`; from 4.32, one
    `commitTimerSessionName` with `commitTimerExpireTime`. Both times are seconds of the switch's `uptime`."""
    if not isinstance(sessions, dict) or not ("sessions" in sessions or "commitTimerSessionName" in sessions):
        raise ValueError(f"`{_SESSIONS}` gave no sessions table: {str(sessions)[:200]!r}")
    uptime = version.get("uptime") if isinstance(version, dict) else None

    def left(commit_by: Any) -> int:
        known = all(isinstance(t, int | float) and not isinstance(t, bool) for t in (commit_by, uptime))
        return round(commit_by - uptime) if known and commit_by > uptime else -1

    if "commitTimerSessionName" in sessions:
        name = sessions["commitTimerSessionName"]
        return {str(name): left(sessions.get("commitTimerExpireTime"))} if name else {}
    table = sessions["sessions"]
    if not isinstance(table, dict):
        raise ValueError(f"`{_SESSIONS}` gave no sessions table: {str(sessions)[:200]!r}")
    return {name: left(entry.get("commitBy")) for name, entry in table.items()
            if isinstance(entry, dict) and "pendingCommitTimer" in str(entry.get("state", ""))}


class EosPusher(Pusher):
    def open(self) -> None:
        from napalm import get_network_driver  # slow import: only when pushing

        args = connect_args(self.host, self.known_hosts, self.timeout_s)
        optional = {k: v for k, v in args.items() if k not in ("device_type", "host", "username", "password", "secret")}
        optional.update(transport="ssh", enable_password=args["secret"], sock=self.connect())
        self.dev = get_network_driver("eos")(self.host.hostname, self.host.username, args["password"],
                                             timeout=int(self.timeout_s), optional_args=optional)
        try:
            self.dev.open()
        except Exception as exc:  # noqa: BLE001 - napalm wraps connection failures in several types
            raise self._login_failed(exc, "cannot open a napalm eos session") from None
        self.guard.attach(self.dev.device)

    def close(self) -> None:
        try:
            self.dev.close()
        except Exception:  # noqa: BLE001 - nothing is pending after push(): a failing logout changes nothing
            pass
        self.guard.close()

    def _step(self, label: str) -> Any:
        """The napalm driver, its next call made the session's command (Guard.begin): napalm sends its own commands,
        which pass no Guard.send, so the stall check read the end of the command before and a stalled or cut session
        was named by it; the byte budget counts from the call too."""
        self.guard.begin(label, rearm=True)
        return self.dev

    def _conn(self):
        # napalm's get_config runs the same `show running-config` but deletes "% Invalid input" from what it returns
        return self.dev.device

    def push(self, snippet: str, check: Check) -> Pushed:
        self.running()  # a device whose running config cannot be read as it is gets no commit it cannot check
        self._no_pending_commit()
        try:
            self._step("napalm load_merge_candidate").load_merge_candidate(config=snippet)
            diff = self.guard.mask(self._step("napalm compare_config").compare_config())[0]
            if not diff.strip():
                self._step("napalm discard_config").discard_config()
                problem = check(self.running())
                if problem is not None:
                    raise PushError(self.name, f"the device reports nothing to change, yet {problem}", False)
                return Pushed(self.name, False, "")
            foreign = unrendered(diff, snippet)
            if not foreign:
                self._step("napalm commit_config").commit_config(revert_in=CONFIRM_S)
        except Exception as exc:  # noqa: BLE001 - every napalm failure of one device is reported, after a rollback
            raise self._undone(f"napalm refused the change: {self._why(exc)}") from None
        if foreign:
            # (another operator's lines may set a community or a password: written as a capture writes them)
            shown = "; ".join(printable(line[0] + redact(line[1:])[0]) for line in foreign[:5]) + \
                " ..." * (len(foreign) > 5)
            raise self._undone(f"the switch's diff of the change holds {len(foreign)} line(s) losslessd did not "
                               f"render, so nothing was committed (another session's or operator's change, or a "
                               f"line the switch rewrote): {shown}")
        try:
            problem = check(self.running())
        except InputError as exc:  # the switch took the commit: a failed push (exit 1), not bad input (exit 2)
            raise self._undone(f"the switch took the commit on its {CONFIRM_S} s commit timer, but reading the running "
                               f"config back failed ({exc.message}): whether it holds the change is not "
                               "known") from None
        if problem is None:
            try:
                waiting = self.dev.config_session in self._pending()
            except Exception as exc:  # noqa: BLE001 - napalm's command or JSON failures, after the commit
                raise self._undone(f"`show configuration sessions detail` failed after the commit ({self._why(exc)}): "
                                   "whether it waits for confirmation is not known") from None
            if not waiting:
                problem = "the switch holds no commit waiting for confirmation"
        if problem is not None:
            raise self._undone(f"the commit did not land ({problem})")
        try:
            self._step("napalm confirm_commit").confirm_commit()
        except Exception as exc:  # noqa: BLE001 - unconfirmed, the switch reverts it when its timer runs out
            raise self._undone(f"the commit could not be confirmed: {self._why(exc)}") from None
        return Pushed(self.name, True, diff)

    def _pending(self) -> dict[str, int]:
        """The switch's config sessions whose commit waits on its timer, with the seconds left (-1: not said), through
        the driver's public cli() (napalm's own reading of it, _get_pending_commits, is private); an answer that is
        no sessions table raises, so an unreadable one never reads as "none pending"."""
        shown = self._step(f"napalm cli: {_SESSIONS}, show version").cli([_SESSIONS, "show version"], encoding="json")
        return pending_commits(shown[_SESSIONS], shown["show version"])

    def _no_pending_commit(self) -> None:
        """PushError (nothing pushed) when a commit waits on its timer on the switch (another operator's push, or one
        of ours whose session dropped): whether it stays is its owner's call, and a push beside it was refused by
        napalm only after opening a session of its own, which then stayed open on the switch."""
        try:
            pending = self._pending()
        except Exception as exc:  # noqa: BLE001 - napalm's command or JSON failures: the sessions are not known
            raise PushError(self.name, f"`show configuration sessions detail` failed ({self._why(exc)}); nothing "
                                       "pushed", False) from None
        for name in [name for name in self.left if name in pending]:
            try:  # ours, committed by a push whose session dropped: reverted now rather than when its timer runs out
                self.dev.config_session = name
                self._step("napalm rollback").rollback()  # (`configure session NAME abort`)
            except Exception as exc:  # noqa: BLE001
                raise PushError(self.name, f"`configure session {name} abort` (a commit of ours that a dropped session "
                                           f"left on its timer) failed ({self._why(exc)}); nothing pushed",
                                False) from None
            del pending[name]
        self.left.clear()
        if pending:
            shown = ", ".join(f"{name} ({f'{left} s left' if left >= 0 else 'time left not shown'})"
                              for name, left in sorted(pending.items()))
            name = min(pending)
            raise PushError(self.name, f"a commit is pending on its commit timer on the switch (config session "
                            f"{shown}: another push, or one whose SSH session dropped); nothing pushed: keep it "
                            f"with `configure session {name} commit`, revert it now with `configure session {name} "
                            "abort`, or wait until its timer reverts it, then push again", False)

    def _undone(self, problem: str) -> PushError:
        """``problem`` after an attempt to take the change back (our commit pending on its timer rolled back, else
        our config session discarded: never another session's pending commit), saying which state the switch was left
        in: rolled back, or, when that failed too (a session that dropped mid-push), a commit that may stand until its
        timer reverts it."""
        try:
            if self.dev.config_session is not None and self.dev.config_session in self._pending():
                self._step("napalm rollback").rollback()  # aborts the session on its timer
            else:
                self._step("napalm discard_config").discard_config()
        except Exception as exc:  # noqa: BLE001 - the commit timer still reverts a pending commit by itself
            session = self.dev.config_session or "NAME"
            if self.dev.config_session:
                self.left.append(session)  # (the device's next push reverts it first, over a new session)
            return PushError(self.name, f"{problem}; the rollback failed too ({self._why(exc)}): if the commit landed, "
                             f"the switch runs the candidate until its {CONFIRM_S} s commit timer reverts it (`show "
                             f"configuration sessions` lists it as pendingCommitTimer; `configure session {session} "
                             "abort` reverts it now)", False)
        return PushError(self.name, f"{problem}; rolled back", True)

    def origin(self, running: str, queues: dict[str, list[int]], family: str | None = None) -> dict:
        """The ECN lines of each tuned port's queue blocks (``queues``: port -> the queues carrying its lossless
        priorities, candidate.DeviceConfig.queues) as they are now (`no random-detect ecn` where there is none: the
        port's own or its service-profile's setting then applies again). The blocks are `tx-queue N` on a Sand switch
        and `uc-tx-queue N` on a Trident/Tomahawk one (render.families.EOS_QUEUE_WORD), which refuse each other's:
        ``family`` is candidate.DeviceConfig.family, which candidate.load resolved from the same running config (its
        own blocks' keyword, else the model's) or refused."""
        word = families.EOS_QUEUE_WORD[str(family)]
        lines = running.splitlines()
        out = []
        for port, carrying in queues.items():
            block = _block(lines, f"interface {port}", 0)
            out.append(f"interface {port}")
            for q in carrying:
                sub = _block(block, f"{word} {q}", 3)
                ecn = [line.strip() for line in sub if line.strip().startswith("random-detect ecn")]
                out += [f"   {word} {q}"] + [f"      {line}" for line in ecn or ["no random-detect ecn"]]
            out.append("!")
        return {"snippet": "\n".join(out) + "\n"}

    def _put_back(self, token: dict, check: Check) -> str | None:
        self.push(token["snippet"], check)
        return None

    def by_hand(self, token: dict) -> list[str]:
        return [*(f"configure session {name} abort" for name in self.left), "configure", *token["snippet"].splitlines(),
                "end"]


def _setting(line: str) -> tuple[str, ...]:
    """The words of a config line before its first value (the first word holding a digit): the setting it sets."""
    words = line.removeprefix("no ").split()
    return tuple(words[:next((k for k, w in enumerate(words) if any(is_digits(c) for c in w)), len(words))])


def unrendered(diff: str, snippet: str) -> list[str]:
    """The lines of a switch's unified diff of merging ``snippet`` that the snippet does not account for: an added
    line that is not one of its lines, a removed line that none of its lines (nor their `no` forms) sets or names (a
    block it emptied). A session diff is taken against the running config as it is at the diff (EOS), so it holds
    what any other session or operator changed meanwhile, which the commit would write or undo with ours."""
    lines = [line for line in snippet.splitlines() if line.strip()]
    depth = [len(line) - len(line.lstrip()) for line in lines]
    ours = [" ".join(line.split()) for line in lines]
    # (a block's header, `interface Ethernet1/1`, enters the block: it sets nothing a removed line could be)
    settings = {_setting(text) for k, text in enumerate(ours)
                if not (k + 1 < len(lines) and depth[k + 1] > depth[k])} - {()}
    foreign = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")) or line[:1] not in ("+", "-") or not line[1:].strip():
            continue
        text = " ".join(line[1:].split())
        words = text.removeprefix("no ").split()
        if text in ours or line[0] == "-" and any(tuple(words[:len(key)]) == key for key in settings):
            continue
        foreign.append(line)
    return foreign


def _block(lines: list[str], header: str, indent: int) -> list[str]:
    """The lines under ``header`` (at ``indent`` blanks) up to the next line at that indent or less."""
    for i, line in enumerate(lines):
        if line.rstrip() == " " * indent + header:
            out = []
            for body in lines[i + 1:]:
                if body.strip() and len(body) - len(body.lstrip()) <= indent:
                    break
                out.append(body)
            return out
    return []


# sonic-utilities config/main.py `rollback` and `delete-checkpoint` (the checkpoint's name as their argument).
_ROLLBACK, _DELETE_CHECKPOINT = "sudo config rollback {}", "sudo config delete-checkpoint {}"


class SonicPusher(Pusher):
    def open(self) -> None:
        from netmiko import ConnectHandler

        sock = self.connect()
        try:
            self.conn = ConnectHandler(**connect_args(self.host, self.known_hosts, self.timeout_s), sock=sock)
        except Exception as exc:  # noqa: BLE001 - login, host key or network: the device is not reachable for a push
            raise self._login_failed(exc, "cannot log in") from None
        self.guard.attach(self.conn)

    def close(self) -> None:
        try:
            self.conn.disconnect()
        except Exception:  # noqa: BLE001
            pass
        self.guard.close()

    def _conn(self):
        return self.conn

    def _send(self, command: str, success: str | None = None) -> tuple[str, str | None]:
        """``command``'s output (the login secrets masked) and why it shows the command failed, None when it does not:
        refused, cut or garbled as a pull's read would be (collect.ssh.refusal: a refusal line, the session's prompt
        inside it, bytes that are not UTF-8, control characters), an error line wherever it stands (_ERROR_LINE: beside
        a success line too), or without ``success`` when one is asked for. A session that broke off: PushError."""
        try:
            out, _, why = self.guard.send(self.conn, Command(command, optional=True), self.timeout_s, rearm=True)
        except CollectError as exc:
            raise PushError(self.name, f"`{command}`: {exc.message}", False) from None
        except Exception as exc:  # noqa: BLE001 - netmiko's ReadTimeout, a closed socket: the session broke off
            raise PushError(self.name, f"`{command}`: the session broke off ({self._why(exc)})", False) from None
        if why is None and (error := _ERROR_LINE.search(out)):
            why = f"the device answered {out[error.start():].splitlines()[0].strip()[:200]!r}"
        if why is None and success is not None and not _has_line(out, success):
            why = _first(out)
        return out, why

    def _run(self, command: str, success: str | None = None) -> str:
        """``command``'s output; PushError (nothing was changed by it) when _send says it failed."""
        out, why = self._send(command, success)
        if why is not None:
            raise PushError(self.name, f"`{command}` failed: {why}", False)
        return out

    def _checkpoint(self, name: str) -> None:
        self._run(f"sudo config checkpoint {name}", "Checkpoint created successfully")

    def _rollback(self, name: str) -> str | None:
        return self._send(_ROLLBACK.format(name), "Config rolled back successfully")[1]

    def _delete_checkpoint(self, name: str) -> None:
        """Remove a checkpoint the push or the tune took. One the switch did not delete stays in its checkpoint
        folder (sonic-utilities config/main.py delete-checkpoint: `Checkpoint deleted successfully.`, or `Failed to
        delete config checkpoint` and click's `Error: ...`): a warning names the device and the checkpoint, to delete
        by hand; what was pushed stands, so it is no failure of the push."""
        command = _DELETE_CHECKPOINT.format(name)
        try:
            why = self._send(command, "Checkpoint deleted successfully")[1]
        except PushError as exc:  # (the session broke off: whether the switch deleted it is not known)
            why = exc.message
        if why is not None:
            self.warnings.append(f"{self.name}: `{command}` failed ({why}): checkpoint {name} is left on the switch; "
                                 f"delete it by hand (`{command}`, "
                                 "`config list-checkpoints` lists them)")

    def _patch_file(self) -> str:
        """A new file only our login can read or write, for the patch: `mktemp` (GNU coreutils mktemp: a name no file
        had, created exclusively with u+rw alone, 0600, its name printed; no umask of the session's is changed), never
        a name another user of the switch could guess and plant a link or a file of theirs at. Its answer must be that
        one path, else PushError (nothing changed)."""
        out = self._run(f"mktemp {_PATCH_TEMPLATE}")
        path = out.strip()
        if not _PATCH_FILE.fullmatch(path):
            raise PushError(self.name, f"`mktemp` answered {_first(out)!r}, not a new file's path under /tmp; "
                                       "nothing pushed", False)
        return path

    def _remove(self, path: str) -> None:
        """Remove the patch file, whatever happened to the push; one the switch keeps is a warning to remove it."""
        try:
            why = self._send(f"rm -f -- {path}")[1]
        except PushError as exc:  # (the session broke off)
            why = exc.message
        if why is not None:
            self.warnings.append(f"{self.name}: `rm -f -- {path}` failed ({why}): remove the patch file by hand")

    def push(self, snippet: str, check: Check) -> Pushed:
        running = self.running()  # JSON, checked (refusal): a session cut mid-output or a CONFIG_DB not up stops here
        current = json_value(running)
        # A fragment merges as `config load` would; a patch (a key split, fix.apply.json_changes) goes as it is.
        wanted = json.loads(snippet)
        try:
            patch = wanted if isinstance(wanted, list) else sonic_patch(current, wanted)
        except InputError as exc:  # (a multi-ASIC switch: a port or pool losslessd cannot place in a namespace)
            raise PushError(self.name, f"{exc.message}; nothing pushed", False) from None
        if not patch:
            problem = check(running)
            if problem is not None:
                raise PushError(self.name, f"nothing to change, yet {problem}", False)
            return Pushed(self.name, False, "")
        before, n = f"{self.tag}-before", 1
        while before in self.left:  # (a kept one is the operator's way back, named to them: never overwritten)
            n += 1
            before = f"{self.tag}-before-{n}"
        self._checkpoint(before)
        text = json.dumps(patch)
        kept = False  # the checkpoint stays on the switch when a rollback to it failed: the operator's way back
        try:
            path = self._patch_file()
            try:
                for i in range(0, len(text), _PATCH_CHUNK):
                    self._run(f"printf '%s' {shlex.quote(text[i:i + _PATCH_CHUNK])} >> {path}")
                # (an error line beside "Patch applied successfully": what landed is not known, so it is rolled back)
                try:
                    failed = self._send(f"sudo config apply-patch {path}", "Patch applied successfully")[1]
                except PushError as exc:
                    failed = f"{exc.message}: whether the patch landed is not known"
            finally:
                self._remove(path)
            if failed is not None:
                error = self._rolled_back(before, f"`config apply-patch` failed: {failed}")
                kept = not error.rolled_back
                raise error
            try:
                problem = check(self.running())
                if problem is not None:
                    problem = f"the patch did not land ({problem})"
            except InputError as exc:  # the patch was applied: a failed push (exit 1), not bad input (exit 2)
                problem = (f"`config apply-patch` applied the patch, but reading the running config back failed "
                           f"({exc.message}): whether it holds the change is not known")
            if problem is not None:
                error = self._rolled_back(before, problem)
                kept = not error.rolled_back
                raise error
        finally:
            if kept:
                self.left.append(before)
            else:
                self._delete_checkpoint(before)
        self._forget_left()
        return Pushed(self.name, True, json.dumps(patch, indent=1))

    def _forget_left(self) -> None:
        """The device is at a known state again: the checkpoints failed pushes kept are no way back any more."""
        while self.left:
            self._delete_checkpoint(self.left.pop(0))

    def _rolled_back(self, checkpoint: str, problem: str) -> PushError:
        """``problem`` after a rollback to ``checkpoint``, saying whether it ran; when it did not (it failed, or the
        session broke off), the checkpoint is left on the switch and the message says how to roll back by hand."""
        try:
            why = self._rollback(checkpoint)
        except PushError as exc:
            why = exc.message
        if why is None:
            return PushError(self.name, f"{problem}; rolled back", True)
        return PushError(self.name, f"{problem}; rollback failed too: {why}; the switch may hold the patch: roll it "
                         f"back by hand with `{_ROLLBACK.format(checkpoint)}` (the checkpoint is kept)", False)

    def origin(self, running: str, queues: dict[str, list[int]], family: str | None = None) -> dict:
        name = f"{self.tag}-origin"
        self._checkpoint(name)
        return {"checkpoint": name}

    def _put_back(self, token: dict, check: Check) -> str | None:
        why = self._rollback(token["checkpoint"])
        if why is None:
            self._forget_left()
        return why

    def by_hand(self, token: dict) -> list[str]:
        return [_ROLLBACK.format(token["checkpoint"]),
                *(_DELETE_CHECKPOINT.format(name) for name in (*self.left, token["checkpoint"]))]

    def forget(self, token: dict) -> None:
        self._forget_left()
        self._delete_checkpoint(token["checkpoint"])


class NvuePusher(SonicPusher):
    """Cumulus NVUE over SSH (the login and shell handling are SONiC's: a Linux shell, netmiko's LinuxSSH)."""

    def _apply(self, lines: list[str]) -> str | None:
        """Apply ``lines`` as one revision; None when NVUE applied it, else what went wrong."""
        why = self._pending(lines)
        if why is None and (why := self._send("nv config apply -y", "applied")[1]) is not None:
            self._send("nv config detach")
        return why

    def _pending(self, lines: list[str]) -> str | None:
        """A pending revision of ``lines`` alone (a stale one dropped first); None when each was taken, else which
        one was not and why (the revision is then dropped: nothing of it is applied)."""
        for line in ["nv config detach", *lines]:
            why = self._send(line)[1]
            if why is not None:
                self._send("nv config detach")
                return f"`{line}` failed: {why}"
        return None

    def push(self, snippet: str, check: Check) -> Pushed:
        running = self.running()
        lines = [line.strip() for line in snippet.splitlines() if line.strip().startswith(("nv set ", "nv unset "))]
        if not lines:
            problem = check(running)
            if problem is not None:
                raise PushError(self.name, f"nothing to change, yet {problem}", False)
            return Pushed(self.name, False, "")
        undo = _previous(running, lines)
        diff, why = "", self._pending(lines)  # (a line refused: _pending has dropped the revision)
        if why is None:
            diff, why = self._send("nv config diff")
            if why is not None:  # a diff that cannot be read: the revision dropped, nothing applied
                self._send("nv config detach")
        if why is not None:
            raise PushError(self.name, f"{why}; nothing applied", True)
        try:
            out, failed = self._send("nv config apply -y", "applied")
        except PushError as exc:  # (the session broke off: whether NVUE applied the revision is not known)
            try:
                why = self._apply(undo)
            except PushError as again:
                why = again.message
            if why is None:
                raise PushError(self.name, f"{exc.message}; rolled back", True) from None
            raise PushError(self.name, f"{exc.message}: whether the revision applied is not known, and undoing it "
                            f"failed too ({why}); if it applied, undo it by hand: "
                            + "; ".join(f"`{line}`" for line in [*undo, "nv config apply -y"]), False) from None
        # An `applied` line beside an error line: the revision may have landed, so it is undone as one that did.
        landed = _has_line(out, "applied")
        failed = None if failed is None else f"`nv config apply` failed: {failed}"
        try:
            problem = failed or check(self.running())
        except InputError:
            self._send("nv config detach")
            self._apply(undo)
            raise
        if problem is not None:
            self._send("nv config detach")
            why = self._apply(undo) if failed is None or landed else None
            raise PushError(self.name, f"{problem}; " + ("rolled back" if why is None else f"rollback failed: {why}"),
                            why is None)
        return Pushed(self.name, True, diff)

    def origin(self, running: str, queues: dict[str, list[int]], family: str | None = None) -> dict:
        """The tuned ports' congestion-control lines, and those of the profiles they use, as they are now."""
        ports = list(queues)
        mine = [f"nv set interface {p} qos congestion-control " for p in ports]
        bound = {line.split()[-1] for line in running.splitlines() if any(line.startswith(m) for m in mine)}
        keep = [line for line in running.splitlines()
                if any(line.startswith(m) for m in mine)
                or any(line.startswith(f"nv set qos congestion-control {b} ") for b in bound)]
        return {"ports": ports, "lines": keep}

    def _put_back(self, token: dict, check: Check) -> str | None:
        return self._apply(_back(token))

    def by_hand(self, token: dict) -> list[str]:
        return [*_back(token), "nv config apply -y"]

    def forget(self, token: dict) -> None:
        pass


def _back(token: dict) -> list[str]:
    """NVUE's way back to what origin() kept: the tuned ports' congestion-control unset, then the lines as found."""
    return [f"nv unset interface {p} qos congestion-control" for p in token["ports"]] + token["lines"]


def _previous(running: str, lines: list[str]) -> list[str]:
    """What undoes ``lines`` (`nv set PATH VALUE`): the running config's lines of each path, else `nv unset PATH`."""
    have: dict[str, list[str]] = {}
    for line in running.splitlines():
        words = line.split()
        if words[:2] == ["nv", "set"] and len(words) > 3:
            have.setdefault(" ".join(words[2:-1]), []).append(line.strip())
    undo: list[str] = []
    for line in lines:
        words = line.split()
        if words[:2] != ["nv", "set"] or len(words) < 4:
            continue
        path = " ".join(words[2:-1])
        for old in have.get(path, [f"nv unset {path}"]):
            if old not in undo:
                undo.append(old)
    return undo


def _has_line(text: str, start: str) -> bool:
    """Whether a line of ``text`` starts with ``start`` (a command's success line: `Patch applied successfully.`,
    NVUE's `applied [rev_id: 3]`)."""
    return any(line.strip().startswith(start) for line in text.splitlines())


def _first(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no output")[:200]


# By the name a platform record gives (losslessd.platforms, Platform.push).
PUSHERS: dict[str, type[Pusher]] = {"eos_session": EosPusher, "sonic_patch": SonicPusher, "nvue": NvuePusher}
