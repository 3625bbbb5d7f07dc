"""Indented CLI running-configs (Arista EOS, Cisco NX-OS, Dell OS9): the line tree and a reader base class.

Both vendors print a block's sub-commands indented under it and separate blocks with `!`, so the
tree, the "is this a config at all" check, the SYS002 plumbing and the truncation check live here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import field
from typing import Any, Generic, TypeVar

from .. import units
from ..errors import InputError
from ..lazyre import lazy
from ..limits import MAX_NESTING, MAX_RANGE_PORTS
from ..model import LinkPause, ParseIssue, Source
from ..records import record
from ..units import small_int
from .base import CLI_PROMPT, Input, SessionHosts, host_name, host_name_removed, naming_words, removes_host_name
from .base import unique_prefix as keyword

T = TypeVar("T")

# The first characters of a comment line: `!` (the running-config's separator and comment on EOS, NX-OS and Dell) and
# `#` (the shell-style note generators and design write-ups put between a block's lines; no command of these switches
# starts with it). Either way the line sets nothing and neither opens nor closes a block: a `#` line at the margin
# closed the port above it, and the port's lines after it were read as the comment's, without a word (round 16).
COMMENT = ("!", "#")


@record(frozen=True)
class Val(Generic[T]):
    """One configured value and the line that set it: ``Val[int]`` a number, ``Val[bool]`` a switch."""

    value: T
    source: Source


@record(slots=True)
class Node:
    """A config line and the lines indented below it. (Slots: a 32 MiB config of one short line after another is
    11 million nodes, and a node with a __dict__ was 290 bytes of them.)"""

    text: str
    line: int
    children: list[Node] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return self.text.split()


def tree(text: str) -> list[Node]:
    """Top-level commands with their indented sub-commands; comment lines (COMMENT) dropped, and `exit` (a pasted
    config-mode session's way out of a sub-mode, which the indentation already shows)."""
    root = Node("", 0, [])
    stack: list[tuple[int, Node]] = [(-1, root)]
    # (lines read one at a time, not a list of them all; a line without lines under it shares one empty list: a
    # 32 MiB config of one short line after another is 11 million nodes, and each list of them cost 56 bytes)
    for number, raw in numbered_lines(text):
        line = raw.expandtabs(8).rstrip()
        body = line.lstrip(" ")
        if not body or body.startswith(COMMENT) or body == "exit":
            continue
        indent = len(line) - len(body)
        node = Node(body, number, _LEAF)
        if not indent and body[0] in _NO_COMMAND_START and len(stack) > 1 and not CLI_PROMPT.match(stack[-1][1].text):
            # the rest of the line above, wrapped to the margin at a terminal's width (round 20: an NX-OS `switchport
            # trunk allowed vlan ...,18` / `12,1882,...`): no command begins with a digit or a comma. Under that line
            # (TreeReader.each names it), so that the lines after it stay in the block it interrupted. Not under a
            # terminal log's prompt: that is a show's output (`leaf# show clock` / `03:34:12.123 UTC ...` was named
            # as a line under a prompt, review j).
            _adopt(stack[-1][1], node)
            continue
        while stack[-1][0] >= indent:
            stack.pop()
        _adopt(stack[-1][1], node)
        stack.append((indent, node))
    return root.children


def _adopt(parent: Node, node: Node) -> None:
    """``node`` as ``parent``'s last child (a parent without children shares _LEAF, never appended to)."""
    if parent.children is _LEAF:
        parent.children = [node]
    else:
        parent.children.append(node)


# A banner's text (Cisco Nexus 9000 Fundamentals guide, "Configuring the Banner": `banner motd delimiting-character
# message delimiting-character`, the message on the lines up to the next delimiter; Dell OS9/OS10 `banner login|motd`
# likewise): `#` is a usual delimiter, and `####` rules with indented text between them a usual message.
_BANNER = lazy(r"banner[ \t]+[a-z-]+[ \t]+(\S)(.*)", re.IGNORECASE)
_HASH_LINE = lazy(r"^[ \t]*#", re.MULTILINE)


def _outside_banners(text: str) -> Iterator[tuple[int, str]]:
    """numbered_lines() without a banner's text (_BANNER: the lines after `banner motd #` up to the one holding its
    delimiter, that line too): free text, whose `#` rules and indentation are no commands."""
    delimiter = ""  # inside a banner's text: the character that ends it
    for number, line in numbered_lines(text):
        if delimiter:
            delimiter = "" if delimiter in line else delimiter
            continue
        if (banner := _BANNER.match(line)) and banner[1] not in banner[2]:
            delimiter = banner[1]
        yield number, line


def _hash_lines_in_blocks(text: str) -> Iterator[int]:
    """The numbers of the `#` lines that interrupt a block: an indented line follows them (past blank and comment
    lines). Named, as any line the switch does not take; a `#` line between top-level lines, or in a banner's text,
    is not (an NX-OS banner `#`-ruled around indented text was named, exit 1 on a clean config)."""
    if not _HASH_LINE.search(text):  # (most configs hold none: one C scan, not a Python pass over every line)
        return
    pending: list[int] = []
    for number, line in _outside_banners(text):
        body = line.strip()
        if _BANNER.match(line):
            pending = []
        elif body.startswith("#"):
            pending.append(number)
        elif body and not body.startswith("!"):
            if line[:1] in (" ", "\t"):
                yield from pending
            pending = []


def tab_width_lines(text: str) -> list[tuple[int, int, int]]:
    """(line, its parent's line under tabs of 8 columns, under tabs of 1) for each line tree() nests under another
    line depending on the width of a tab (0: the top level). tree() reads a tab as 8 columns, as a terminal shows it;
    an editor set to 4 or 2 shows `<TAB>uc-tx-queue 0` above `      no priority` as its block, tree() the reverse: the
    queue's settings read as the profile's, without a word (hostile round 16). The test is Python's for a TabError
    (Python Language Reference, "Lexical analysis", Indentation: inconsistent when the meaning depends on the worth
    of a tab in spaces, compared with tabs of 8 and of 1 column); a switch writes no tab in its configuration."""
    if "\t" not in text:  # (most configs hold none: one C scan, not a Python pass over every line)
        return []
    found = []
    wide: list[tuple[int, int]] = [(-1, 0)]  # (indent, line) of the open blocks, tabs of 8 and of 1
    narrow: list[tuple[int, int]] = [(-1, 0)]
    for number, raw in _outside_banners(text):  # (a banner's text is free text: indented as its author liked)
        body = raw.strip()
        if not body or body.startswith(COMMENT) or body == "exit":
            continue
        lead = raw[:len(raw) - len(raw.lstrip(" \t"))]
        for stack, indent in ((wide, len(lead.expandtabs(8))), (narrow, len(lead.expandtabs(1)))):
            while stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, number))
        if wide[-2][1] != narrow[-2][1]:
            found.append((number, wide[-2][1], narrow[-2][1]))
    return found


def _where(line: int) -> str:
    return f"line {line}" if line else "no line (the top level)"


def tab_blocks(wide: int, narrow: int) -> str:
    """Where a tab_width_lines line belongs under each width of a tab."""
    return (f"with tabs of 8 columns (as it is read) it is under {_where(wide)}, with tabs of 1 column under "
            f"{_where(narrow)}")


_LEAF: list[Node] = []  # the children of every node tree() makes without any (never appended to)
_NO_COMMAND_START = frozenset("0123456789,")  # (tree: a margin line beginning so is a wrapped line's rest)

# Words of a queue's WRED/ECN setting (NX-OS `random-detect ... ecn`, EOS `random-detect ecn ...`, OS10 `random-detect
# PROFILE`) and of the pieces a `random-detect` line wrapped onto lines of its own leaves (`maximum-threshold ...`,
# `weight 0`, `ecn`).
_WRED_WORDS = frozenset({"random-detect", "wred", "minimum-threshold", "maximum-threshold", "drop-probability",
                         "max-mark-probability", "weight", "congestion-control", "explicit-congestion-notification"})


def may_set_ecn(words: list[str]) -> bool:
    """Whether a queue's line that was not read could be (part of) its ECN marking: it names ECN or WRED. Such a line
    leaves the queue's marking unknown, not off (audit round 14: a wrapped `ecn` read as "does not mark")."""
    return any(word in _WRED_WORDS or "ecn" in word.lower().split("-") for word in words)


# Words of a port's QoS in some platform's terms (EOS `qos trust`, OS10 `trust dscp`, NX-OS and OS10 `pause` /
# `pfc-cos`, Onyx `dcb ...`, PFC and no-drop), beside the ECN and WRED words (may_set_ecn).
_PORT_QOS_WORDS = frozenset({"qos", "trust", "pause", "pfc", "pfc-cos", "no-drop", "dcb"})
# The first words of other platforms' port QoS commands, whole or before a hyphen: IOS `mls qos trust dscp`, EOS
# `tx-queue N` / `uc-tx-queue N`, OS9 `dcb-map NAME`, Onyx `traffic-class N ...`, and the bare `wred`, `ecn`, `queue`
# a generator writes (a guide's `wred-profile NAME queue 3`, `ecn-profile`).
_PORT_QOS_HEADS = _PORT_QOS_WORDS | {"mls", "tx-queue", "uc-tx-queue", "dcb-map", "traffic-class", "wred", "ecn",
                                     "queue"}


def other_port_qos(words: list[str], own: frozenset[str]) -> bool:
    """Whether a port's line (after a `no` or `default`) is no command of the port's mode (its first word not in
    ``own``) and names QoS: another platform's syntax, which the switch refuses, so what it was meant to set (trust,
    PFC, ECN) is not set (audit round 15: `congestion-control ecn mark` under a generated NX-OS leaf's ports). One
    test for every reader that names such lines (EOS, NX-OS, OS10)."""
    body = command_body(words, ("no", "default"))
    if not body or body[0] in own:
        return False
    head = body[0]
    return head in _PORT_QOS_HEADS or head.split("-")[0] in _PORT_QOS_HEADS or may_set_ecn(body) or \
        any(w in _PORT_QOS_WORDS for w in body)


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based number, line without its "\n") of each line, split on "\n" only: a "\r" stays in its line, as in a
    CRLF file's. One slice at a time: io.StringIO copied the whole text first (4 bytes a character, 125 MiB for a
    31 MiB config); the end of the text is no line of its own."""
    start, number = 0, 1
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            yield number, text[start:]
            return
        yield number, text[start:end]
        start, number = end + 1, number + 1


# A configuration-mode prompt in a pasted session: `Leaf-1(config)#`, `switch(config-if-Et5)# ` (Arista EOS User
# Manual, "Command Modes": each mode's prompt names it, a sub-mode's name extends its parent's: config-if-Et5,
# config-if-Et5-txq-3, config-qos-profile-P, config-qos-profile-P-txq-3).
# Dell OS10 names its interface modes `conf-if-eth1/1/1` and `conf-range-eth1/1/1-1/1/48` (OS10 User Guide,
# "Interfaces": `OS10(config)# interface ethernet 1/1/1` gives `OS10(conf-if-eth1/1/1)#`), read as config-if-....
# Dell OS9 names its CONFIGURATION mode `conf`, as its sessions print it (an S4048-ON's `DellEMC(conf)# interface
# TenGigabitEthernet 1/5` giving `DellEMC(conf-if-te-1/5)#`, an S5000's `(conf-dcbmap-NAME)#` under `dcb-map NAME`):
# read as config and config-....
# (Bounded: a host name of up to 128 characters, a mode name of up to 256, so a long line costs one pass.)
_CONFIG_PROMPT = lazy(r"^[^\s(]{1,128}\((config(?:-[^)\s]{1,256})?|conf(?:-[^)\s]{1,256})?)\)#\s?(.*)$")
# A line only a running-config has at its margin (a session types it after a prompt).
_RUNNING_CONFIG_LINE = lazy(r"^(interface \S|hostname \S|end\s*$)", re.M)
# An exec-mode prompt typing a show command (`Leaf-7# show running-config interface Ethernet1`, `OS10# sh run`): the
# lines up to the next prompt are its output, which may print running-config lines.
_EXEC_SHOW = lazy(r"^[^\s(#]{1,128}#\s?sh(?:o|ow)?\s")
_EXEC_SHOW_ANYWHERE = lazy(r"^[ \t]*[^\s(#]{1,128}#\s?sh(?:o|ow)?\s", re.M)  # (_EXEC_SHOW on any line)
_ANY_PROMPT = lazy(r"^[^\s(#]{1,128}(?:\([^)\s]{1,256}\))?#")


def _without_show_output(lines: list[str]) -> str:
    """The text without the output of the show commands typed at an exec-mode prompt (a session that ends with
    `show running-config ...` to verify is still a session)."""
    kept: list[str] = []
    output = False
    for line in lines:
        stripped = line.strip()
        if _ANY_PROMPT.match(stripped):
            output = bool(_EXEC_SHOW.match(stripped))
            kept.append(line)
        elif not output:
            kept.append(line)
    return "\n".join(kept)


# `show running-config` typed at an exec prompt (abbreviated as the CLI takes it, `all` and a pipe allowed)
_SHOW_RUN = lazy(r"^[^\s(#]{1,128}#\s?sh(?:o|ow)?\s+run\S*(?:\s+all)?\s*(?:\|.*)?$")
# The one pipe that leaves a show's output whole: `| no-more` (or its abbreviation), which only turns the pager off
# (NX-OS Fundamentals guide, "Using the CLI": no-more; EOS the same). Any other (`| include`, `| section`, `| begin`,
# `| grep`, `| exclude`, `| json`) prints a part or another form of the config, whatever marks it holds: such a show
# is a check, its output left out as any other show's.
_NO_MORE = r"no(?:-(?:m(?:o(?:re?)?)?)?)?"
_WHOLE_PIPE = lazy(_NO_MORE)
# What the switch prints at a whole running-config's start or end: NX-OS's `!Command: show running-config` header
# (Nexus 9000 Fundamentals guide, "Working with Configuration Files"; the command as typed, `| no-more` included),
# EOS's and OS9's last line `end` (EOS User Manual, "show running-config"; Dell OS9 Command Line Reference, "show
# running-config"), OS10's first line `! Version 10.x` (Dell OS10 Enterprise Edition User Guide, "show
# running-configuration": OS10 prints no end mark; the next prompt ends it).
_PRINTED_WHOLE = lazy(rf"^(!Command: show running-config(?:\s*\|\s*{_NO_MORE})*\s*$|end\s*$|! Version 10\.\S+\s*$)",
                      re.M)


def _shows_whole(line: str) -> bool:
    """Whether ``line`` types `show running-config` with no pipe but `| no-more` (_WHOLE_PIPE)."""
    return bool(_SHOW_RUN.match(line)) and all(_WHOLE_PIPE.fullmatch(p.strip()) for p in line.split("|")[1:])


def _last_running_config(lines: list[str], path: str) -> tuple[int, int] | None:
    """(the line typing the last whole `show running-config`, the next prompt's line) of a terminal log, None when it
    has none (or the file stops in its output); an InputError when that show is cut and a session is typed after
    it: which of its lines the session changed cannot be told."""
    at = next((i for i in range(len(lines) - 1, -1, -1) if _shows_whole(lines[i].strip())), None)
    if at is None:
        return None
    end = next((i for i in range(at + 1, len(lines)) if _ANY_PROMPT.match(lines[i].strip())), None)
    if end is None:
        return None
    output = "\n".join(lines[at + 1:end])
    if "--More--" in output or not _PRINTED_WHOLE.search(output):
        if any((m := _CONFIG_PROMPT.match(line.strip())) and _configures(m.group(2).strip()) for line in lines[end:]):
            raise InputError(f"the `{lines[at].strip()[:80]}` output stops before its end (no `!Command:` header, "
                             "`! Version` line or `end` line, or a `--More--` pager) and a configuration session is "
                             "typed after it: "
                             "what the session changed in it cannot be told; save the whole output (`terminal length "
                             "0`) or the session alone", file=path, line=at + 1)
        return None
    return at, end


# Commands of a session that configure nothing: entering and leaving configuration mode, saving it.
_SESSION_ONLY = lazy(r"^(end|exit|conf(igure)?( t(erminal)?)?|copy running-config startup-config|"
                           r"write( memory)?)$")


class ModeKeywords:
    """A platform's sub-mode keywords as its CLI expands an abbreviation (clitext.keyword): ``own`` each mode's
    keywords, ``every`` the commands every sub-mode takes besides (`no`, `exit`, `end`, ...), among which an
    abbreviation must be unique, ``global_words`` configuration-mode commands (a global word written out is that
    command, never an abbreviation), ``leading`` the words a command may start with before its keyword (`no`, EOS's
    `default`)."""

    def __init__(self, own: dict[str, frozenset[str]], every: frozenset[str], global_words: frozenset[str],
                 leading: tuple[str, ...] = ("no",)):
        self.own, self.global_words, self.leading = own, global_words, leading
        self.all = {mode: words | every for mode, words in own.items()}

    def keyword(self, mode: str, word: str) -> str | None:
        """The keyword of sub-mode ``mode`` that ``word`` is or abbreviates; None when it is none or a global word."""
        if word in self.own[mode]:
            return word
        if word in self.global_words:
            return None
        full = keyword(word, self.all[mode])
        return full if full in self.own[mode] else None

    def spell(self, mode: str, words: list[str], strict: bool = False) -> list[str]:
        """``words`` with the keyword of ``mode`` they abbreviate written out, after a leading word (`paus pfc-cos 3`:
        `pause pfc-cos 3`; `no band percent 50`: `no bandwidth percent 50`); a mode without keywords of its own here
        leaves its lines as typed. ``strict`` (a reader reading the line): an ambiguous prefix of one of the mode's
        own keywords raises LineError (a SYS002 at the line: the switch refuses it, so what it would set is not set),
        where it was left as typed and read as nothing. One scan of the mode's keywords tells both."""
        k = 1 if words[:1] and words[0] in self.leading else 0
        if mode not in self.own or len(words) <= k:
            return words
        word = words[k]
        if word in self.all[mode] or word in self.global_words:  # written out (or a global command): as typed
            return words
        found = [key for key in self.all[mode] if key.startswith(word)]
        if len(found) == 1:
            return [*words[:k], found[0], *words[k + 1:]] if found[0] in self.own[mode] else words
        if strict and len(found) > 1 and any(key in self.own[mode] for key in found):
            found.sort()
            raise LineError(f"ambiguous: `{word}` could be {', '.join(found[:-1])} or {found[-1]}; the switch "
                            "refuses it")
        return words


def renest(lines: list[str], takes: Callable[[str, list[str]], bool], opens: Callable[[str | None, list[str]],
           str | None], indent: str, blank_exits: bool = True,
           definition: Callable[[list[str], list[str]], bool] | None = None,
           spell: Callable[[str, list[str]], list[str]] | None = None) -> str:
    """Lines pasted at the margin (EOS, NX-OS, Dell OS9 and OS10: a configuration copied without its indentation)
    indented as the switch reads them: each line is entered in the mode the line before it left or, where that mode
    does not take it
    (``takes``), in the nearest enclosing mode that does; ``opens`` names the mode a line enters. `exit` leaves a
    mode and `end` all of them (blanked once applied, unless ``blank_exits`` is off). Every line keeps its number.
    A paste may mix both forms (a block typed indented among flat ones): an indented line stays below the margin line
    before it, moved in as far as that line was. ``definition(words, next_words)`` tells a line that opens a mode of
    configuration mode from the same words typed in an open mode (OS10's `qos-map traffic-class NAME` defines a map
    when `queue` lines follow it and binds one under `system qos` otherwise): such a line leaves the open modes.
    ``spell(mode, words)`` writes out the keyword a line typed in an open mode abbreviates (NX-OS, EOS: ``takes``
    accepts the abbreviation), so the reader reads the command the switch runs."""
    modes: list[str] = []
    depth = 0  # how many levels the last margin line was moved in
    for i, line in enumerate(lines):
        words = line.split()
        if not words or words[0].startswith(COMMENT):
            continue
        if line[:1] in (" ", "\t"):
            lines[i] = indent * depth + line
            continue
        if words == ["exit"] or words == ["end"]:
            del modes[-1 if words == ["exit"] else 0:]
            depth = len(modes)
            if blank_exits:
                lines[i] = ""
            continue
        if definition is not None and modes:
            nxt = next((other.split() for other in lines[i + 1:] if other.strip()), [])
            if definition(words, nxt):
                modes.clear()
        while modes and not takes(modes[-1], words):
            modes.pop()
        if spell is not None and modes and (full := spell(modes[-1], words)) != words:
            line, words = " ".join(full), full
        depth = len(modes)
        lines[i] = indent * depth + line
        opened = opens(modes[-1] if modes else None, words)
        if opened:
            modes.append(opened)
    return "\n".join(lines)


def outdent_interface_lines(text: str, names_port: Callable[[list[str]], bool],
                            takes_none: Callable[[list[str]], bool] | None = None) -> str:
    """The config with each indented `interface ...` line that ``names_port`` (its words) moved to the margin, line
    numbers kept, where the block it sits in opens a mode that takes no `interface` command (``takes_none`` of that
    block's margin line; None: no mode does). These CLIs run a line whatever its leading blanks, and a command of
    configuration mode typed in a sub-mode leaves it; a template that indents its port blocks as a whole (audit round
    16: sonic-mgmt's EOS and OS9 fanout templates) had a port read as another block's lines, passed over, or merged
    into the port above it. The lines after it at its indentation become its own."""
    lines = text.split("\n")
    head: list[str] = []  # the margin line of the block the next line is in
    for number, line in enumerate(lines):
        words = line.split()
        if not words or words[0].startswith(COMMENT):
            continue
        if line[:1] not in (" ", "\t"):
            head = words
        elif words[0] == "interface" and names_port(words) and (takes_none is None or takes_none(head)):
            lines[number] = line.lstrip()
            head = words
    return "\n".join(lines)


def is_flat(text: str, takes: Callable[[str, list[str]], bool],
            opens: Callable[[str | None, list[str]], str | None], heads: tuple[str, ...] | None = None,
            mixed: bool = False) -> bool:
    """Whether ``text`` is a paste with its indentation lost (EOS, NX-OS, Dell OS9): some line at the margin that opens
    a mode (one of ``heads``, or any) is followed, past blank and `!` lines, by a command of that mode at the margin,
    and none is followed by an indented line (a running-config's blocks) unless ``mixed`` (a paste may type some
    blocks indented among flat ones: renest keeps those as they are)."""
    lines = [line for line in text.split("\n") if line.strip() and not line.lstrip().startswith(COMMENT)]
    flat = False
    for line, nxt in zip(lines, lines[1:], strict=False):
        mode = None if line[:1] in (" ", "\t") else opens(None, line.split())
        if mode is None or (heads is not None and mode not in heads):
            continue
        if nxt[:1] in (" ", "\t"):
            if mixed:
                continue
            return False
        flat = flat or takes(mode, nxt.split())
    return flat


def config_session(text: str, indent: str, path: str = "", issues: list[ParseIssue] | None = None,
                   refuses: Callable[[str, list[str]], bool] | None = None, platform: str | None = None,
                   nest: Callable[[str], str] | None = None) -> str | None:
    """A configuration-mode session with its prompts (`Spine-1(config-if-Et1)# mtu 9214`) as the running-config it
    makes, line numbers kept: each command indented under the one that opened the mode it was typed in, the rest of
    the session (output, exec-mode commands, commands the switch refused) blanked. None when the text has no
    configuration-mode prompt or is a running-config.

    Which command opened a mode is told by the next prompt: a mode whose name extends a mode already open is that
    mode's child (`tx-queue 3` typed in config-qos-profile-P-txq-1 opens config-qos-profile-P-txq-3, a sub-mode of the
    profile, so it is the profile's line); a prompt of a mode already open shows the command was that mode's.

    A command the switch refused set nothing the operator meant it to: a SYS002 on ``issues`` names it. It is told by
    the switch's `% ` answer or, in a transcript without output, by ``refuses(mode, words)`` (a platform's word lists)
    where the next prompt shows the switch stayed in the mode it was typed in.

    ``nest``: how the platform's reader nests a paste that lost its indentation, for a platform whose session is
    written at the margin (``indent`` ""): a session typed after a whole `show running-config` is nested by it before
    the show's lines join it, as the reader leaves a running-config's text as it is."""
    lines = text.split("\n")
    if ("#sh" in text or "# sh" in text) and (shown := _last_running_config(lines, path)) is not None:
        # a terminal log holding a whole `show running-config`: that config (a session typed before it is in it), the
        # session typed after it applied over it in order; other lines (prompts, other shows' output) blanked
        start, end = shown
        rest = config_session("\n".join([""] * end + lines[end:]), indent, path, issues, refuses, platform)
        out = (nest(rest) if nest else rest).split("\n") if rest is not None else [""] * len(lines)
        out[start + 1:end] = lines[start + 1:end]
        return "\n".join(out)
    # A running-config (whose banner or comment may quote a prompt) is read as it is; a show's output is left out
    # first only where a show is typed at a prompt (most files: one search in C, not a pass over every line).
    if _RUNNING_CONFIG_LINE.search(text) and (
            not (("#sh" in text or "# sh" in text) and _EXEC_SHOW_ANYWHERE.search(text))
            or _RUNNING_CONFIG_LINE.search(_without_show_output(lines))):
        return None
    typed = [(i, _mode_name(m.group(1)), m.group(2).strip(), m.group(1), m.string[:m.start(1) - 1])
             for i, line in enumerate(lines) if (m := _CONFIG_PROMPT.match(line.strip()))]
    if not any(_configures(t[2]) for t in typed):
        # no configuration typed: a terminal log whose configuration-mode prompts ran nothing (an empty Enter, `end`)
        # before a `show running-config` (round 20: an NX-OS log from `leaf(config-if-end)# ` on, its `sh run | no`
        # output read as a session and refused as "empty file")
        return None
    out = [""] * len(lines)
    stack: list[str] = ["config"]  # the open modes; a command typed in stack[k] is written at depth k
    hosts = SessionHosts(path, platform)
    for n, (i, mode, command, prompt, host) in enumerate(typed):
        hosts.prompt(host, i + 1, lines[i])
        if mode in stack:
            del stack[stack.index(mode) + 1:]
        else:  # a session that starts inside a sub-mode: the mode is placed under the open mode it extends
            _open(stack, mode, path, i + 1)
        upto = typed[n + 1][0] if n + 1 < len(typed) else None
        if not _configures(command):
            continue  # (a `!` line typed at a prompt is a comment, as in the running-config tree() reads)
        answer = refused(lines, i, upto)
        why = f"it answered `{answer}`" if answer is not None else None
        stayed = upto is not None and typed[n + 1][3] == prompt  # the next prompt is this mode's again
        if why is None and refuses and stayed and refuses(prompt, command.split()):
            why = f"it is no command of the ({prompt}) mode it was typed in, and the next prompt shows the switch " \
                  "stayed there"
        if why is not None:
            if issues is not None:
                issues.append(refused_issue(path, i + 1, command, why))
            continue
        words = command.split()
        if (named := naming_words(words)) != words:  # (`hostn leaf9` written out: a flat paste's reader sees it whole)
            command = " ".join(named)
        hosts.typed(named)
        depth = len(stack) - 1
        nxt = typed[n + 1][1] if n + 1 < len(typed) else mode
        if nxt not in stack:  # the command opened a mode: it belongs to the mode that mode extends
            depth = _open(stack, nxt, path, i + 1) - 1
            if depth == 0:  # (a mode of configuration mode's own: _OPENING_WORDS)
                command = _opening_word(command, nxt)
        elif nxt != mode:  # a command of an outer mode typed in a sub-mode: the switch runs it there and stays
            depth = stack.index(nxt)
        out[i] = indent * depth + command
    return "\n".join(out)


# A policy-map's class mode is named `config-pmap-c-<policy>-<class>` under `config-pmap-<policy>` (Arista EOS User
# Manual, policy-map class mode: `switch(config-pmap-copp-system-policy)# class copp-system-lacp` gives
# `switch(config-pmap-c-copp-system-policy-copp-system-lacp)#`): read without its `-c` it extends its policy-map's name.
_PMAP_CLASS = lazy(r"^config-pmap-c-")


def _configures(command: str) -> bool:
    """Whether a command typed at a configuration-mode prompt may configure something: not nothing (an empty Enter),
    a comment, a session's way in or out (_SESSION_ONLY) or an exec command (`show`, `do`)."""
    return bool(command) and not command.startswith(COMMENT) and not _SESSION_ONLY.match(command) \
        and command.split()[0] not in _EXEC_WORDS


def _mode_name(mode: str) -> str:
    if mode == "conf" or mode.startswith("conf-"):
        mode = "config" + mode[len("conf"):]
    return _PMAP_CLASS.sub("config-pmap-", mode)


def refused(lines: list[str], i: int, upto: int | None) -> str | None:
    """The answer with which the switch refused the command at line ``i``, None when it took it: a switch answers a
    command it does not take with a `% ` line before the next prompt, and stays in its mode (NX-OS `% Invalid command
    at '^' marker.`, EOS `% Invalid input`, Onyx `% Unrecognized command`, `% The hardware does not support priority
    flow control`)."""
    return next((line.strip()[:80] for line in lines[i + 1:upto] if line.lstrip().startswith("% ")), None)


# Commands that show rather than set (`show`, and `do` running an exec command in a configuration mode): a refused one
# leaves nothing unset.
_EXEC_WORDS = frozenset({"show", "sh", "do", "where", "ping", "traceroute"})


def refused_issue(path: str, line: int, command: str, why: str) -> ParseIssue:
    """A SYS002 naming a session's command the switch refused: what the operator thinks it set is not set."""
    return ParseIssue(code="SYS002", message=f"the switch refused `{command[:80]}` ({why}): it set nothing; what it "
                      "was meant to set is not set on the switch, and the line was not read",
                      source=Source(file=path, line=line))


# The command word that opens a mode of configuration mode, by the mode's name as the next prompt prints it
# (`interface`: every platform's `config-if...` and Dell OS10's `conf-range-eth1/1/1-1/1/48`, read as config-range-...;
# `dcb-map`: Dell OS9's `(conf-dcbmap-NAME)#`, read as config-dcbmap-NAME; `policy-map` and `class-map`: the
# `config-pmap-...` and `config-cmap-...` modes of NX-OS (Nexus 9000 QoS guide: `(config-pmap-qos)#`,
# `(config-cmap-qos)#`), EOS (`config-pmap-quality-of-service-NAME`, `config-cmap-qos-NAME`) and OS10
# (`config-pmap-network-qos`, `config-cmap-nqos`); a class or police mode under a policy-map is no mode of
# configuration mode; OS10's `trust dscp-map NAME`, `qos-map traffic-class NAME`, `wred NAME` and `system qos`
# (`(config-tmap-dscp-map)#`, `(config-qos-map)#`, `(config-wred)#`, `(config-sys-qos)#`, as the OS10 User Guide's
# steps print them; NX-OS's `system qos` too); EOS's `qos profile P` (`(config-qos-profile-P)#`, the EOS manual's DCB
# steps). A typed session abbreviates it (an S4048-ON's `S4048-ON-sw(conf)#int range te1/2,te1/7` opening
# `(conf-if-range-te-1/2,te-1/7)#`), a running-config never does: the prompt the switch answered with shows which
# command it ran.
_OPENING_WORDS = (("config-if", "interface"), ("config-range-", "interface"), ("config-dcbmap-", "dcb-map"),
                  ("config-pmap-", "policy-map"), ("config-cmap-", "class-map"), ("config-tmap-", "trust"),
                  ("config-qos-map", "qos-map"), ("config-wred", "wred"), ("config-sys-qos", "system"),
                  ("config-qos-profile-", "qos"))


def _opening_word(command: str, mode: str) -> str:
    """``command``, which opened ``mode``, with its first word written out where it abbreviates the word that opens
    that mode (_OPENING_WORDS); else as it is."""
    first, _, rest = command.partition(" ")
    for prefix, word in _OPENING_WORDS:
        if mode.startswith(prefix) and first != word and word.startswith(first.lower()):
            return f"{word} {rest}" if rest else word
    return command


def _open(stack: list[str], mode: str, path: str, line: int) -> int:
    """Open ``mode`` under the deepest open mode its name extends (else under the innermost one); its depth."""
    parent = next((k for k in range(len(stack) - 1, -1, -1) if mode.startswith(stack[k] + "-")), len(stack) - 1)
    if parent + 1 >= MAX_NESTING:  # (each line is written indented by its depth: depth x lines characters)
        raise InputError(f"configuration modes nested deeper than {MAX_NESTING} (a switch's are a few deep); not read",
                         file=path, line=line)
    del stack[parent + 1:]
    stack.append(mode)
    return len(stack) - 1


def check_config_text(inp: Input, vendor: str, line_re: re.Pattern, expected: str) -> None:
    """Refuse a file that is not an indented CLI config of ``vendor`` (InputError with file and line)."""
    lines = inp.text.split("\n")
    first = next(((n, line.strip()) for n, line in enumerate(lines, 1) if line.strip()), None)
    if first is None:
        raise InputError(f"empty file: no {vendor} running-config in it", file=inp.path, line=1)
    number, text = first
    article = "an" if vendor[0] in "AEIOU" else "a"
    if text[0] in "{[<" or text.endswith("{"):
        raise InputError(f"this looks like JSON, XML or a Junos-style brace config, not {article} {vendor} "
                         "running-config", file=inp.path, line=number)
    if not any(line_re.match(line) for line in lines):
        raise InputError(f"not {article} {vendor} running-config: no {expected} lines", file=inp.path, line=number)


class LineError(ValueError):
    """A QoS line we recognised but cannot read: becomes a SYS002 issue with the reason."""


# A Layer 3 subinterface of an Ethernet port or a port-channel (`interface Ethernet1/1.100`, `interface
# ethernet1/49.200-201`, `interface Port-Channel10.100`, `interface po10.5`), or a comma list of them: EOS User Manual,
# "Subinterfaces" (`interface ethernet N.sub`, `encapsulation dot1q vlan V`; the parent is "a single ethernet or port
# channel interface"); Nexus 9000 NX-OS Interfaces Configuration Guide, "Configuring Layer 3 Interfaces" (`interface
# ethernet slot/port.number`; the parent "can be a physical port or a port channel"); Dell SmartFabric OS10 User Guide,
# "Layer 3 > Subinterfaces" (`interface ethernet node/slot/port[:subport].N`, `port-channel N.M`, `encapsulation
# dot1q`).
_SUBINTERFACE_ITEM = (r"(?:e(?:th(?:ernet)?|t)?\s*\d+(?:/\d+){0,2}(?::\d+)?|(?:port-channel|po)\s*\d+)"
                      r"\.\d+(?:-\d+)?")
SUBINTERFACE = lazy(rf"^{_SUBINTERFACE_ITEM}(?:\s*,\s*{_SUBINTERFACE_ITEM})*$", re.IGNORECASE | re.ASCII)


_PARENT = lazy(r"(?:(e)(?:th(?:ernet)?|t)?|port-channel|po)\s*(\d+(?:/\d+){0,2}(?::\d+)?)\.",
                     re.IGNORECASE | re.ASCII)


def subinterface_parents(text: str, ethernet: str, port_channel: str) -> list[str]:
    """The parents of the subinterfaces a SUBINTERFACE list names, spelled as the platform names its ports (``ethernet``
    and ``port_channel`` before the numbers): `Eth1/1.100` is "Ethernet1/1", `po10.5` "port-channel10". A routed parent
    with a dot1q subinterface still sends tagged frames, so it is no untagged routed port (routed_port)."""
    return [f"{ethernet if m[1] else port_channel}{m[2]}" for item in text.split(",")
            if (m := _PARENT.match(item.strip()))]


def layer3_line(conf: Any, words: list[str], src: Source) -> bool:
    """`switchport` / `no switchport` (conf.routed) and the first `ip address` / `ipv6 address` (conf.l3_address) of
    an interface; False for any other line. Each platform's reader cites where its CLI says so (routed_port)."""
    if words in (["switchport"], ["no", "switchport"]):
        conf.routed = Val(words[0] == "no", src)
    elif words[:2] in (["ip", "address"], ["ipv6", "address"]) and len(words) >= 3:
        conf.l3_address = conf.l3_address or src
    else:
        return False
    return True


def flowcontrol_line(conf: Any, words: list[str], src: Source, default: bool | None, send: str = "send") -> None:
    """`flowcontrol receive|send on|off` (conf.pause_rx, conf.pause_tx), the two directions of a port's 802.3x pause
    (EOS and NX-OS write them so, OS10 ``send`` as `transmit`; each reader cites its CLI). `no` or `default` sets the
    platform's ``default`` (None: not in a source read, so as if unwritten). A form not read leaves its direction
    unknown (a Val of None), not off: it may be the line that turns the pause on (audit round 19: `flowcontrol receive
    on (not supported with PFC ...)` in a switch guide)."""
    reset = words[:1] in (["no"], ["default"])
    body = words[1:] if reset else words
    attr = {"receive": "pause_rx", send: "pause_tx"}.get(body[1] if len(body) > 1 else "")
    if attr is not None and reset and len(body) in (2, 3):
        setattr(conf, attr, None if default is None else Val(default, src))
    elif attr is not None and body[2:] in (["on"], ["off"]):
        setattr(conf, attr, Val(body[2] == "on", src))
    else:
        if attr is not None:
            setattr(conf, attr, Val(None, src))
        raise LineError(f"expected `flowcontrol receive|{send} on|off`: whether the port honours or sends link-level "
                        "(802.3x) pause is unknown")


def link_pause(conf: Any, default: bool | None) -> LinkPause | None:
    """Port.link_pause from flowcontrol_line's settings, a direction not written at the platform's ``default``; None
    when the port writes neither."""
    rx, tx = conf.pause_rx, conf.pause_tx
    if rx is None and tx is None:
        return None
    return LinkPause(rx=rx.value if rx else default, tx=tx.value if tx else default, source=(rx or tx).source)


def routed_port(conf: Any) -> Val | None:
    """Whether an interface routes (Val True, from its `no switchport` or address line), switches (Val False) or is not
    said (None): `[no] switchport` decides; without one, an IP address makes it routed, for the switches losslessd
    reads take an address only on a routed port (the readers cite their CLI guides), so a running-config on a switch
    whose ports route by default, or an excerpt without its `no switchport` line, still tells it."""
    if conf.routed is not None or conf.l3_address is None:
        return conf.routed
    return Val(True, conf.l3_address)


def routed_vlans(conf: Any, channel: Any = None, tagged: bool = False, default: Val | None = None) -> list[int] | None:
    """Port.vlans of a port: [] (routed, untagged) when it routes (routed_port) or, where it does not say, its
    port-channel ``channel`` does or the switch's ``default`` mode is routed, and no subinterface or dot1q
    encapsulation tags its frames (``tagged``); else None, its VLANs not read."""
    routed = routed_port(conf) or (routed_port(channel) if channel is not None else None) or default
    return [] if routed is not None and routed.value and not tagged else None


def command_body(words: list[str], leading: tuple[str, ...] = ("no",)) -> list[str]:
    """A command's words after a leading `no` (and on EOS `default`: ``leading``), the forms that undo or restore
    it: what names the command."""
    return words[1:] if words[:1] and words[0] in leading else words


def subinterface_line(words: list[str], qos_words: frozenset[str]) -> None:
    """A line under a subinterface (``words`` spelled as the switch runs them): its addressing, encapsulation and
    description are no port's setting; a QoS line (first word after a `no` or `default` in ``qos_words``, the
    commands the reader reads as a port's QoS) is named, not read: the port model has no subinterface."""
    words = command_body(words, ("no", "default"))
    if words and words[0] in qos_words:
        raise LineError("QoS on a subinterface is not read (losslessd reads it on Ethernet ports and port-channels): "
                        "what it sets is unknown")


_PORT_NUMBERS = lazy(r"\d{1,5}(?:/\d{1,5}){0,2}", re.ASCII)  # `1`, `1/1`, `1/1/1` (ASCII: what int() reads alike)
_FAR_END = lazy(r"((?:\d{1,5}/){0,2})(\d{1,5})", re.ASCII)  # `4`, or `1/4` repeating the slot


def ethernet_ports(text: str, spelled: re.Pattern, bare_items: bool = False) -> list[str] | None:
    """The Ethernet ports an `interface` line's comma list of ports and ranges names (`Ethernet1/1-48, Ethernet1/50`,
    `eth 1/1-1/4`, EOS's `Ethernet1,3,5-7`), as `Ethernet<numbers>`; None when it is no such list. ``spelled``: one
    port as the platform spells it, its numbers in group 1 (`Ethernet1/1`, `eth 1/1`); ``bare_items``: an item after a
    comma may be numbers alone (EOS). A range's far end may repeat the slot (`1/1-1/4`, as configuration mode and
    switch-config generators write it). LineError for a range whose far end is of another slot, that runs backwards,
    or that names more than MAX_RANGE_PORTS ports (limits.py)."""
    out: list[str] = []
    for index, item in enumerate(text.split(",")):
        first, dash, far = item.strip().partition("-")
        m = spelled.fullmatch(first.strip())
        numbers = m[1] if m else first.strip() if bare_items and index else None
        if numbers is None or not _PORT_NUMBERS.fullmatch(numbers):
            return None
        if not dash:
            out.append(f"Ethernet{numbers}")
            continue
        end = _FAR_END.fullmatch(far.strip())
        if end is None:
            return None
        slot, _, low = numbers.rpartition("/")
        if end[1] and end[1] != slot + "/":
            raise LineError(f"{item.strip()[:40]!r} is not a port range (its far end is of another slot)")
        count = int(end[2]) - int(low) + 1
        if not 0 < count <= MAX_RANGE_PORTS:
            raise LineError(f"{item.strip()[:40]!r} is not a port range (its end is before its start, or it names "
                            f"more than {MAX_RANGE_PORTS:,} ports)")
        out.extend(f"Ethernet{slot}/{n}" if slot else f"Ethernet{n}" for n in range(int(low), int(end[2]) + 1))
    return out


def bounded_int(text: str, lo: int, hi: int, what: str) -> int:
    try:
        value = small_int(text)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise LineError(f"{what} must be a number {lo}-{hi}, not {text[:40]!r}")
    return value


def dscp_values(words: list[str]) -> list[int]:
    """`match dscp 26,46` / `24-26` / `af31 ef` (NX-OS and EOS class-maps) -> DSCP values; LineError when garbled."""
    out: set[int] = set()
    try:
        items = units.list_items(" ".join(words))
    except ValueError as exc:  # `match dscp 3,,4`: an empty item is a typo, not the list 3,4
        raise LineError(str(exc)) from None
    for word in items:
        if word.lower() in units.DSCP_NAMES:
            out.add(units.DSCP_NAMES[word.lower()])
            continue
        try:
            out.update(units.int_list(word))
        except ValueError:
            raise LineError(f"{word!r} is not a DSCP value (0-63 or a name like af31)") from None
    if not out or max(out) > 63:
        raise LineError("DSCP values must be 0-63")
    return sorted(out)


def wred_options(options: list[str], probability: str) -> float | None:
    """The `KEY VALUE` options after a WRED/ECN line's thresholds (EOS `random-detect ecn ...`, NX-OS `random-detect
    ...`): ``probability`` (EOS `max-mark-probability`, NX-OS `drop-probability`, percent 0-100), the one read, and
    `weight` (0-15, checked, not modelled); LineError for another key or one without its value."""
    if len(options) % 2:
        raise LineError("an option lacks its value")
    found = None
    for key, value in zip(options[::2], options[1::2], strict=True):
        if key == probability:
            found = float(bounded_int(value, 0, 100, probability))
        elif key == "weight":
            bounded_int(value, 0, 15, "weight")
        else:
            raise LineError(f"unknown option {key!r}")
    return found


class Issues:
    """A device's issue list as its builder adds to it. ``add_once`` says an issue about a shared line (a policy's
    class, a range's inherit) once, not once for each port that uses it: the same message at the same file and
    line is said already. One set lookup each (a scan of the list made a config full of broken shared lines
    quadratic: ports x issues); issues appended to the list by others are indexed when next asked."""

    def __init__(self, items: list[ParseIssue]):
        self.items = items
        self._said: set[tuple[str, str | None, int | None]] = set()
        self._indexed = 0

    def append(self, issue: ParseIssue) -> None:
        self.items.append(issue)

    def add_once(self, issue: ParseIssue) -> None:
        for old in self.items[self._indexed:]:
            if old.source:
                self._said.add((old.message, old.source.file, old.source.line))
        self._indexed = len(self.items)
        if issue.source:  # (an issue that points nowhere is never the same as another)
            key = (issue.message, issue.source.file, issue.source.line)
            if key in self._said:
                return
        self.items.append(issue)


class TreeReader:
    """Reads one input into ``cfg`` (which has an ``issues`` list); subclasses read each top-level
    command in ``top(node)``. A LineError raised for a line becomes a SYS002 issue on it."""

    def __init__(self, cfg, inp: Input, session: bool = False):
        self.cfg = cfg
        self.inp = inp
        self.session = session  # ``inp`` is a configuration session's commands (config_session), not a running-config
        self._issues = Issues(cfg.issues)  # (issue(): each said once)
        self._spelled: dict[int, Any] = {}  # (spelled_once: line -> its words as run, or the LineError)
        self._entered: set[int] = set()  # (enter: the ids of the lists of lines read as a mode's: their block entered)
        self._pieces: dict[int, list[Node]] = {}  # (wrapped: line -> the lines indented under it, each named)

    def top(self, node: Node) -> None:
        raise NotImplementedError

    def host_line(self, words: list[str], node: Node, platform: str, commands: tuple[str, ...] = ("hostname",)) -> bool:
        """Whether a top-level line (``words`` as the switch runs them) names the switch (`hostname NAME`, one of
        ``commands``) or, typed in a session, removes its name (`no hostname`: the platform's default name stands
        after it, base.host_name_removed); the device name (``cfg.hostname``) follows it."""
        if len(words) == 2 and words[0] in commands:
            host_name(self.cfg.host_names, words[1], self.src(node), renames=self.session)
            self.cfg.hostname = words[1]
        elif self.session and removes_host_name(words):
            self.cfg.hostname = host_name_removed(self.cfg.host_names, platform, self.src(node))
        else:
            return False
        return True

    @functools.cached_property
    def cut_line(self) -> int | None:
        """The number of the last line of a file that stops without its line end (check_truncated says so): its last
        word may be a whole one cut short, no abbreviation. None for a session (what was typed may stop anywhere).
        Counted once per file: once per line read was a pass over the file for each (quadratic)."""
        text = self.inp.text
        return None if self.session or text.endswith("\n") else text.count("\n") + 1

    def spelled_once(self, node: Node, spell: Callable[[Node], T]) -> T:
        """``spell(node)`` (the line as the switch runs it, its abbreviations written out) worked out once per line: a
        range's block is read once for each port it names, and its lines were spelled again for each. A line that
        cannot be spelled raises its LineError each time (issue() says it once)."""
        if node.line not in self._spelled:
            try:
                self._spelled[node.line] = spell(node)
            except LineError as exc:
                self._spelled[node.line] = exc
        found = self._spelled[node.line]
        if isinstance(found, LineError):
            raise LineError(str(found))
        return found

    def read(self) -> None:
        text = self.config_text()
        nodes = tree(text)
        for number in _hash_lines_in_blocks(text):
            self.issue(Node("", number), "a `#` line is no command of this switch (its configuration's comment lines "
                                         "begin with `!`), so the switch refuses it; it sets nothing, and the lines "
                                         "after it are read in the block it interrupts")
        self.check_tabs(text)
        self.each(nodes, self.top, top=True)  # (a top-level block the reader passes over is a mode it does not read)
        self.check_prompts(nodes)
        self.check_truncated()

    def check_tabs(self, text: str) -> None:
        """One SYS002, at the first line whose block depends on the width of a tab (tab_width_lines), naming how
        many there are: the file is read with tabs of 8 columns, and those lines may be read in another block
        than the one the operator sees."""
        found = tab_width_lines(text)
        if found:
            number, wide, narrow = found[0]
            more = (f" (and {len(found) - 1} more line(s) from here on, the last line {found[-1][0]})" if found[1:]
                    else "")
            self.issue(Node("", number), "the indentation mixes tabs and spaces so that the block this line belongs to "
                                         f"depends on a tab's width{more}: {tab_blocks(wide, narrow)}; the switch "
                                         "writes no tab: re-indent the lines with spaces")

    def check_prompts(self, nodes: list[Node]) -> None:
        """A top-level line that is a CLI prompt (`spine1#`, `leaf1(config-if)#show run`) with lines indented under
        it: a terminal's text pasted into the file, or a pull that took the device's prompt for the end of an
        output; the block the prompt interrupted lost those lines (a PFC priority under it read clean, exit 0)."""
        for node in nodes:
            if node.children and CLI_PROMPT.match(node.text):
                last = node
                while last.children:
                    last = last.children[-1]
                self.issue(node, f"`{node.text.strip()[:80]}` is a CLI prompt, not configuration: lines {node.line + 1}"
                                 f"-{last.line} indented under it belong to no block and were not read (a terminal "
                                 "session pasted into the file?)")

    def config_text(self) -> str:
        """The text the tree is built from (a vendor's reader may blank what is not configuration, keeping lines)."""
        return self.inp.text

    def enter(self, nodes: list[Node]) -> list[Node]:
        """``nodes``, the lines of a block read as a mode's lines (each() names the blocks under lines of a mode that
        no handler entered)."""
        self._entered.add(id(nodes))
        return nodes

    def each(self, nodes: list[Node], handler, on_error: Callable[[Node], None] | None = None,
             top: bool = False, on_piece: Callable[[Node, Node], None] | None = None) -> None:
        """``handler(node)`` for every node; one that cannot be read is reported and the rest still read.
        ``on_error(node)`` first notes what a line not read leaves unknown (a mistyped `pause`: the class's no-drop).
        A line of a mode (not the top level) whose handler entered no block under it and that cannot open a mode
        (wrapped) is a command wrapped onto the lines under it, as a page or PDF printed it: these CLIs take one
        command a line and have no line continuation (their manuals show none; round 11 read NX-OS so). Each line
        under it is named, none read, and goes to ``on_piece(node, piece)`` (else ``on_error(piece)``) to leave what
        it could set unknown (audit round 14: EOS `priority-flow-control priority 3` with `no-drop` on a line of its
        own under it was passed over; a queue's wrapped `ecn` read as "does not mark")."""
        self.enter(nodes)
        for node in nodes:
            try:
                handler(node)
            except LineError as exc:
                if on_error is not None:
                    on_error(node)
                self.garbled(node, str(exc))
            if top or not node.children or id(node.children) in self._entered or not self.is_wrapped(node):
                continue
            for piece in self.wrapped(node):
                if on_piece is not None:
                    on_piece(node, piece)
                elif on_error is not None:
                    on_error(piece)

    def wrapped(self, node: Node) -> list[Node]:
        """The lines under ``node``, a command wrapped onto them (each()), each named (SYS002) once: a range's block
        is read once for each port it names, and its pieces were walked and named again for each (what they leave
        unknown, on_piece, is still each port's)."""
        found = self._pieces.get(node.line)
        if found is None:
            head = node.text if len(node.text) <= 60 else node.text[:57] + "..."
            found = self._pieces[node.line] = []
            stack = list(reversed(node.children))
            while stack:
                piece = stack.pop()
                stack.extend(reversed(piece.children))
                self.garbled(piece, f"it continues line {node.line}'s `{head}` (indented under it, or at the "
                                    "margin beginning with what begins no command), which opens no mode (a command "
                                    "wrapped onto lines of its own is not one command to the switch)")
                found.append(piece)
        return found

    def marking_piece(self, line: Node, piece: Node, conf: Any, field: str, unread: object) -> None:
        """each()'s ``on_piece`` for a queue's block: a line indented under its ``line`` (each names it) that may be
        (part of) its WRED/ECN setting leaves the queue's marking (``conf.<field>``) unknown (``unread``), not off.
        Bind ``conf``, ``field`` and ``unread`` with functools.partial."""
        if may_set_ecn(piece.words):
            setattr(conf, field, Val(unread, self.src(line)))

    # The commands of the modes the reader reads that take arguments only and open no mode (a reader names its own).
    leaf_words: frozenset[str] = frozenset()

    def is_wrapped(self, node: Node) -> bool:
        """Whether the lines under a mode's line that no handler entered are pieces of it wrapped onto lines of their
        own, not the lines of a mode it opens and the reader passes over (an NX-OS interface's `hsrp 1`, EOS `sync-e`):
        the line is a command the reader reads, which takes arguments only (leaf_words, after a `no` or `default`), or
        a line under it cannot begin a command (no command begins with a digit or a sign: `30,40` under `switchport
        trunk allowed vlan 10,20,`). A sub-mode the reader does not know is a mode (its lines are commands): session
        35's lists of modes named each one missing from them on clean files."""
        words = node.words
        head = words[1] if len(words) > 1 and words[0] in ("no", "default") else words[0]
        return head.lower() in self.leaf_words or any(not child.text[:1].isalpha() for child in node.children)

    def src(self, node: Node) -> Source:
        return Source(file=self.inp.path, line=node.line)

    def issue(self, node: Node, message: str, code: str = "SYS002") -> None:
        """An issue about one line, said once: a range's block (`interface ethernet1/1/1-1/1/32`) is read once for
        each of its ports, and its unreadable line is still one line (audit round 5: it was said 32 times)."""
        self._issues.add_once(ParseIssue(code=code, message=message, source=self.src(node)))

    def set_value(self, node: Node, what: str) -> Val | None:
        """A policy-map class's `set KIND N` (N 0-7: a qos-group, a traffic class) as a Val at its line; one that
        cannot be read is a SYS002 and None."""
        w = node.words
        try:
            return Val(bounded_int(w[2] if len(w) == 3 else "", 0, 7, what), self.src(node))
        except LineError as exc:
            self.garbled(node, str(exc))
            return None

    def garbled(self, node: Node, why: str) -> None:
        self.issue(node, f"cannot read `{node.text}`: {why}; line skipped")

    def check_truncated(self) -> None:
        """A file that stops without a line end inside a block was cut, unless the platform says such an end is
        whole (``cut_reason`` None): a capture tool may drop the final line end, not the lines before it."""
        if self.session:  # what was typed: a session may stop in any mode, no closing line follows
            return
        last = self.inp.text.rpartition("\n")[2]  # (not a list of every line to take the last)
        if last.startswith(" ") and last.strip() and (why := self.cut_reason()):
            self.cfg.issues.append(ParseIssue(code="SYS002", message=(
                f"the file ends in the middle of a block (`{last.strip()[:80]}` has no line end) {why}: it looks "
                "truncated, so settings after this point are missing; check that the capture is whole"),
                source=Source(file=self.inp.path, line=self.cut_line)))

    def cut_reason(self) -> str | None:
        """Why an unterminated last line inside a block means a cut file, or None when it may be a whole one.
        EOS and Dell OS9 close a running-config with `end` at the margin, and OS10 closes each block with `!` (its
        `show running-configuration` example in the OS10 User Guide), so a block is never last in a whole file."""
        return "where a whole running-config closes at the margin"


# The VLANs a trunk carries: 1-4094 (EOS User Manual, VLANs: the VLAN number range; NX-OS and OS10 the same).
VLAN_IDS = range(1, 4095)


@record(frozen=True)
class AllowedVlans:
    """`switchport trunk allowed vlan ...` as written: the VLANs it lists, or (``but``) every VLAN but those, so that
    `except 10` or `remove 10` on a trunk of every VLAN does not build 4,093 VLANs per line (build shares one list
    among the ports whose lines say the same)."""

    vlans: frozenset[int]
    but: bool = False

    def listed(self) -> list[int]:
        """The VLANs, in order."""
        return [v for v in VLAN_IDS if v not in self.vlans] if self.but else sorted(self.vlans)


def allowed_vlans(current: AllowedVlans | None, words: list[str]) -> AllowedVlans | None:
    """`switchport trunk allowed vlan 10-20,30 | all | none | add L | remove L | except L` (None = all): EOS User
    Manual, NX-OS Layer 2 guide and OS10 User Guide write the same list grammar (OS10 without `except`)."""
    op, rest = (words[0], words[1:]) if words and words[0] in ("add", "remove", "except") else ("set", words)
    if rest in (["all"], ["none"]) and op == "set":
        return None if rest == ["all"] else AllowedVlans(frozenset())
    try:
        listed = frozenset(units.int_list(" ".join(rest)))
    except ValueError:
        listed = frozenset()
    if len(rest) != 1 or not listed or min(listed) < VLAN_IDS[0] or max(listed) > VLAN_IDS[-1]:
        raise LineError("expected `switchport trunk allowed vlan [add|remove|except] LIST|all|none` with VLANs 1-4094")
    if op == "set" or op == "except":
        return AllowedVlans(listed, but=op == "except")
    if current is None:  # every VLAN: adding changes nothing, removing leaves every VLAN but those
        return None if op == "add" else AllowedVlans(listed, but=True)
    if current.but:  # (adding to "every VLAN but X" takes from X)
        return AllowedVlans(current.vlans - listed if op == "add" else current.vlans | listed, but=True)
    return AllowedVlans(current.vlans | listed if op == "add" else current.vlans - listed)


@record
class SwitchportConf:
    """A Layer 2 port's `switchport` lines that say which VLANs leave it tagged: `switchport mode access|trunk` (Val
    None: another mode), `switchport access vlan N`, `switchport trunk native vlan N`, `switchport trunk allowed vlan
    LIST` (None: every VLAN, the default; ``allowed_unread``: a list line not read)."""

    mode: Val | None = None
    access_vlan: Source | None = None
    native: int | None = None
    allowed: AllowedVlans | None = None
    allowed_unread: bool = False


def switchport_line(conf: SwitchportConf, words: list[str], src: Source) -> bool:
    """Read one `switchport` line (``words`` as the switch runs them) into ``conf``; False for another line. A list
    not read leaves the port's tagging unknown (its LineError names the line)."""
    # (Nexus 9000 Layer 2 guide, "Configuring Private VLANs": `switchport mode private-vlan host|promiscuous|trunk
    # promiscuous|trunk secondary` is neither access nor trunk, and its trunks tag; another mode here)
    if words[:2] == ["switchport", "mode"] and len(words) >= 3:
        conf.mode = Val(words[2] if words[2:] in (["access"], ["trunk"]) else None, src)
    elif words[:3] == ["switchport", "access", "vlan"] and len(words) == 4:
        conf.access_vlan = src
    elif words[:4] == ["switchport", "trunk", "native", "vlan"] and len(words) == 5:
        conf.native = None  # (until read: a native VLAN not read is not VLAN 1)
        conf.allowed_unread = True
        conf.native = bounded_int(words[4], VLAN_IDS[0], VLAN_IDS[-1], "the native VLAN")
        conf.allowed_unread = False
    elif words[:4] == ["switchport", "trunk", "allowed", "vlan"]:
        conf.allowed_unread = True
        conf.allowed = allowed_vlans(conf.allowed, words[4:])
        conf.allowed_unread = False
    elif words[:5] == ["no", "switchport", "trunk", "allowed", "vlan"]:
        conf.allowed, conf.allowed_unread = None, False
    else:
        return False
    return True


def untagged_only(conf: Any, channel: Any, native_trunks: bool) -> bool:
    """Port.untagged_only of a port (``conf``, with ``channel`` its port-channel's, each with ``switchport`` lines and
    routed_port's): a switched port (neither it nor its port-channel routes) sends no 802.1Q-tagged frame, as its
    lines (a member without any: its port-channel's) say: an access port (`switchport mode access`, or an access VLAN
    and no mode line: access is the default Layer 2 mode) or, where ``native_trunks`` (the platform's trunk sends its
    native VLAN untagged), a trunk whose allowed VLANs are its native VLAN alone (native VLAN 1 by default). False
    where it routes, a mode or list is not read, or the lines do not say."""
    routed = routed_port(conf) or (routed_port(channel) if channel is not None else None)
    if routed is not None and routed.value:
        return False
    lines = conf.switchport if conf.switchport != SwitchportConf() or channel is None else channel.switchport
    return _tags_none(lines, native_trunks)


def _tags_none(conf: SwitchportConf, native_trunks: bool) -> bool:
    """untagged_only's reading of one port's `switchport` lines."""
    mode = conf.mode.value if conf.mode is not None else ("access" if conf.access_vlan is not None else None)
    if mode == "access":
        return True
    if mode != "trunk" or not native_trunks or conf.allowed_unread or conf.allowed is None or conf.allowed.but:
        return False
    return conf.allowed.vlans <= {conf.native or 1}
