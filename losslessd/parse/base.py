"""What every parser module provides. Parsers are pure: text in, model out, no I/O."""

from __future__ import annotations

import bisect
import dataclasses
import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeVar

from .. import capture
from ..errors import InputError
from ..lazyre import lazy
from ..limits import MAX_EXPANDED_PORTS, MAX_ISSUES_PER_FILE, MAX_PORTS
from ..model import Ecn, ParseIssue, Queue, Source
from ..platforms import PLATFORMS
from ..printable import quoted
from ..records import record, written_later

T = TypeVar("T")


@record(frozen=True)
class Input:
    """One file's text. ``path`` is what reports show (relative to the working directory)."""

    path: str
    text: str


# A parser module exposes:
#   PLATFORM: str                                   platform id from losslessd.platforms
#   sniff(inp: Input) -> bool                       content detection, cheap
#   parse(inputs: list[Input], name: str) -> Device one device from one or more files
# Problems inside a file go to Device.issues (SYS findings); a file that gives no device at all
# raises losslessd.errors.InputError with file and line. Parsers build the model without validating it
# (tests check it: losslessd.model.validate.check). A parser of a large JSON document gives its facts a
# model.DocRef (the document and the keys to the fact) rather than a Source with a line: the line is looked
# up when a finding shows it.


def check_port_count(count: int, file: str) -> None:
    """InputError when one device has more ports than any switch (losslessd/limits.py MAX_PORTS): the memory
    a lint takes grows with ports (2.6 million ports took 7.9 GB)."""
    if count > MAX_PORTS:
        raise InputError(f"{count:,} ports in one device: more than the {MAX_PORTS:,} a switch can have (a generated "
                         "or concatenated file?); not read", file=file, line=1)


def host_name(names: dict[str | None, tuple[str, int | None]], name: str, source: Source,
              renames: bool = False) -> None:
    """Note a top-level host-name statement a reader read (`hostname NAME`, NX-OS's `switchname`, Junos's `system
    host-name`; never one in a banner, a comment, a configuration group or a sub-block such as IS-IS's `hostname
    dynamic`) in ``names`` (file -> the first name and its line). Two naming two switches in one file are two
    configurations pasted one after the other, which read as one device would merge the two switches' ports and maps:
    raise InputError (exit 2) at the second. One switch named twice is one switch; a losslessd capture holds one.
    Two files of one device (a running-config and a capture, a config and a fix's snippet) naming two switches are
    refused too, both files and lines named: merged, the device took the later file's name and both switches' ports.
    ``renames``: the format lets a later statement rename the switch (a Junos `set` script, a configuration-mode
    session: `hostname leaf9` typed at `leaf1(config)#`, the next prompt `leaf9(config)#`), so the name replaces the
    file's earlier one; it is still compared with the device's other files. The session's prompts are SessionHosts'."""
    if renames:
        names.pop(source.file, None)
    first = names.get(source.file)
    if first is None:
        for file, (other, line) in names.items():
            if other != name:
                raise InputError(
                    f"the files of this device name two switches: {quoted(other, 255)} ({file}, line {line}) and "
                    f"{quoted(name, 255)} (line {source.line}); losslessd does not merge two switches into one "
                    "device: lint each switch's files as a device of its own", file=source.file, line=source.line)
        names[source.file] = first = (name, source.line)
    if first[0] != name:
        raise InputError(
            f"this file holds the configurations of several switches: {quoted(first[0], 255)} (line {first[1]}) "
            f"and {quoted(name, 255)} (line {source.line}); losslessd reads one switch a file and does not merge "
            "two: split it into one file per switch", file=source.file, line=source.line)


# The name a switch takes back when a session removes its host name (`no hostname`, `default hostname`, Junos's `delete
# system host-name`, `nv unset system hostname`), which its next prompt then shows. Platforms missing here have no
# documented default losslessd read (Onyx, Junos): the next prompt naming a host not named before is taken as it, once.
DEFAULT_HOST_NAMES = {
    "arista_eos": "localhost",  # Arista EOS User Manual, "Managing the Switch Name": the default host name is localhost
    "cisco_nxos": "switch",  # Cisco Nexus 9000 NX-OS Fundamentals Configuration Guide, "Changing the Switch Device
    # Name": the default is switch
    "dell_os10": "OS10",  # Dell SmartFabric OS10 User Guide, `hostname` (Default OS10; its examples' prompt `OS10#`)
    "nvidia_cumulus": "cumulus",  # Cumulus Linux User Guide, Quick Start: the default hostname is cumulus
}


def unique_prefix(word: str, keywords: frozenset[str]) -> str | None:
    """The keyword ``word`` spells or abbreviates, None when it begins none or several: EOS, NX-OS and Dell OS10 take
    any prefix of a keyword that begins no other keyword the mode takes (Cisco Nexus 9000 NX-OS Fundamentals
    Configuration Guide, "Using the CLI", abbreviations; Arista EOS User Manual, "Command-Line Interface", command
    abbreviation; Dell SmartFabric OS10 User Guide, CLI basics), and the Junos CLI a statement's keywords (Junos OS
    CLI User Guide, command completion), so `paus pfc-cos 3` in a network-qos class is `pause pfc-cos 3`."""
    if word in keywords:
        return word
    found = [key for key in keywords if key.startswith(word)]
    return found[0] if len(found) == 1 else None


# The commands that name the switch (EOS, Dell OS10, Onyx `hostname`; NX-OS `hostname` and `switchname`, the Nexus 9000
# NX-OS Fundamentals Configuration Guide, "Changing the Switch Device Name"), and the forms that remove the name.
_HOST_NAME_WORDS = frozenset({"hostname", "switchname"})
_UNNAMING_WORDS = frozenset({"no", "default"})
# The configuration-mode commands that begin as the naming commands do, among which an abbreviation of one must be
# unique (unique_prefix): `hardware` (EOS, NX-OS, OS10), `hsrp` and `hw-module` (NX-OS), `switchport` and
# `switch-profile` (NX-OS configuration mode: Nexus 9000 Interfaces and System Management guides); `hostn leaf9` is
# `hostname leaf9`, `h leaf9` none.
_NAMING_NEIGHBOURS = _HOST_NAME_WORDS | {"hardware", "hsrp", "hw-module", "switchport", "switch-profile"}
# Junos's top-level statements and those of [edit system] that begin as `system` and `host-name` do (Junos OS CLI User
# Guide, "set ?" at the top level: services, snmp, security, switch-options, system; [edit system]: host-name and
# `services`, `syslog`, `static-host-mapping`): `set sys host-name h1` is `set system host-name h1`.
_JUNOS_TOPS = frozenset({"system", "services", "snmp", "security", "switch-options"})
_JUNOS_SYSTEM = frozenset({"host-name", "services", "syslog", "static-host-mapping"})


def naming_words(words: list[str]) -> list[str]:
    """``words`` with an abbreviation of a naming command (`hostn leaf9`, `no hostn`, `switchn s1`) written out, as
    the switch runs it (unique_prefix among _NAMING_NEIGHBOURS); any other command as it is. A running-config prints
    commands whole: only a typed session abbreviates."""
    k = 1 if len(words) > 1 and words[0] in _UNNAMING_WORDS else 0
    if len(words) > k and words[k] not in _HOST_NAME_WORDS and len(words) <= k + 2 and \
            (full := unique_prefix(words[k], _NAMING_NEIGHBOURS)) in _HOST_NAME_WORDS:
        return [*words[:k], full, *words[k + 1:]]
    return words


def junos_system_spelled(words: list[str]) -> list[str]:
    """A Junos statement (its verb first) with an abbreviated `system` and `system host-name` written out, also in a
    configuration group (`set groups re0 sys host-name h0`): `delete sys host` removes what `set system host-name h1`
    set, and `delete system` what `set sys host-name h1` did (the Junos CLI completes both alike). Any other statement
    as it is."""
    at = 3 if len(words) > 3 and words[1] == "groups" else 1
    if len(words) <= at or unique_prefix(words[at], _JUNOS_TOPS) != "system":
        return words
    host = len(words) > at + 1 and unique_prefix(words[at + 1], _JUNOS_SYSTEM) == "host-name"
    if words[at] == "system" and (not host or words[at + 1] == "host-name"):
        return words
    return [*words[:at], "system", *(["host-name"] if host else words[at + 1:at + 2]), *words[at + 2:]]


def junos_host_name_path(words: list[str]) -> bool:
    """Whether a Junos statement's path (``words`` after its verb) is `system host-name`, written out or abbreviated
    (`set sys host-name h1`, `delete system host`)."""
    return len(words) >= 3 and unique_prefix(words[1], _JUNOS_TOPS) == "system" and \
        unique_prefix(words[2], _JUNOS_SYSTEM) == "host-name"


def removes_host_name(words: list[str]) -> bool:
    """Whether a command removes the switch's host name: `no hostname [NAME]`, `default hostname`, NX-OS `no
    switchname [NAME]` (and their abbreviations: naming_words)."""
    words = naming_words(words)
    return 2 <= len(words) <= 3 and words[0] in _UNNAMING_WORDS and words[1] in _HOST_NAME_WORDS


def host_name_removed(names: dict[str | None, tuple[str, int | None]], platform: str, source: Source) -> str | None:
    """A session's statement removing the host name (removes_host_name) at ``source``: the switch takes its platform's
    default name back (DEFAULT_HOST_NAMES), which names the device from there on as a `hostname DEFAULT` typed there
    would (docs/platforms.md, "One switch a file"); the file's earlier name no longer stands. None where the platform's
    default is not known."""
    names.pop(source.file, None)
    default = DEFAULT_HOST_NAMES.get(platform)
    if default is not None:
        host_name(names, default, source, renames=True)
    return default


class SessionHosts:
    """The switch one file's session names, prompt by prompt: `leaf1(config)#`, `cumulus@leaf1:mgmt:~$`, `user@qfx1>`.
    The rule every reader applies (docs/platforms.md, "One switch a file"): a host-name statement typed or scripted
    in a session renames the switch (a later one replaces the earlier: base.host_name's ``renames``), and the switch's
    next prompts may show the new name (EOS and NX-OS at once, Junos after the commit, a Linux shell at the next
    login); one removing the name gives the switch its platform's default name (DEFAULT_HOST_NAMES); a prompt naming a
    host that neither the first prompt nor a host-name statement before it named is another switch's session pasted
    after the first: InputError at that prompt's line, naming both switches. ``platform``: the platform whose default
    name a removed name falls back to (None: not known)."""

    def __init__(self, file: str | None, platform: str | None = None) -> None:
        self.file = file
        self.default = DEFAULT_HOST_NAMES.get(platform) if platform else None
        self.first: tuple[str, int | None] | None = None  # the first prompt's host and line
        self.names: set[str] = set()  # the first prompt's host and the names host-name statements gave since
        self.unknown_default = False  # the name was removed and the platform's default is not known

    def prompt(self, host: str | None, line: int | None, shown: str) -> None:
        """A prompt (``shown``, at ``line``) naming ``host`` (None: it names none, `@:~$`)."""
        if host is None:
            return
        if self.first is None:
            self.first = (host, line)
            self.names.add(host)
        elif host not in self.names:
            if self.unknown_default:  # (the default name the switch took, whatever it is)
                self.unknown_default = False
                self.names.add(host)
                return
            raise InputError(
                f"this file holds the sessions of several switches: the prompts of {quoted(self.first[0], 255)} (line "
                f"{self.first[1]}) and {quoted(host, 255)} (line {line}, `{shown.strip()[:80]}`), and no host-name "
                f"statement before it renamed the switch to {quoted(host, 255)}; losslessd reads one switch a file and "
                "does not merge two: split it into one file per switch", file=self.file, line=line)

    def renamed(self, name: str) -> None:
        """A host-name statement the session typed: the switch's later prompts may name ``name``, or its part before
        the first dot (bash's `\\h`, "the hostname up to the first `.`": the bash manual, PROMPTING)."""
        self.names.update((name, name.split(".", 1)[0]))

    def unnamed(self) -> None:
        """A statement removing the host name: the switch's later prompts may name its platform's default."""
        if self.default is not None:
            self.renamed(self.default)
        else:
            self.unknown_default = True

    def typed(self, words: list[str]) -> None:
        """A command the session typed at a prompt (split in words): `hostname NAME` / `switchname NAME` and Junos's
        `set system host-name NAME` rename the switch; `no hostname [NAME]`, `default hostname` and `delete system
        host-name` remove its name."""
        named = naming_words(words)
        if len(named) == 2 and named[0] in _HOST_NAME_WORDS:
            self.renamed(named[1])
        elif removes_host_name(words):
            self.unnamed()
        elif junos_host_name_path(words):
            if words[0] == "set" and len(words) == 4:
                self.renamed(words[3])
            elif words[0] == "delete" and len(words) == 3:
                self.unnamed()


def check_expanded(count: int, file: str | None, line: int | None) -> None:
    """InputError when a config's interface ranges (or Junos group wildcards) have named more than
    MAX_EXPANDED_PORTS ports in all (``count``, kept by the reader as it expands them): each named port costs time
    and memory."""
    if count > MAX_EXPANDED_PORTS:
        raise InputError(f"its interface ranges or wildcards name more than {MAX_EXPANDED_PORTS:,} ports in all (a "
                         "generated file?); not read", file=file, line=line)


class IssueList(list[ParseIssue]):
    """A parser's issues, at most MAX_ISSUES_PER_FILE (limits.py) of one code for one file; the rest are counted by one
    more issue of that code at the first line left out. A file of one unreadable line after another made an issue
    per line: 16 million lines of `}` (32 MiB) were 3 GB to parse and 14 GB to lint. parse_group hands devices a
    plain list. The counting issue's message is written when the list is read (iterated, indexed, compared, copied),
    not at each issue counted: rewriting it every time was half the parse of a million stray Junos `}`."""

    def __init__(self, items: Iterable[ParseIssue] = ()):
        super().__init__()
        self._counts: dict[tuple[str, str | None], int] = {}
        self._more: dict[tuple[str, str | None], tuple[ParseIssue, str]] = {}  # -> (the counting issue, first left out)
        self._counting: set[int] = set()  # id() of the counting issues (another list's pass through uncounted)
        self._stale = False  # an issue counted since the counting messages were written
        self.extend(items)

    def append(self, issue: ParseIssue) -> None:
        key = (issue.code, issue.source.file if issue.source else None)
        n = self._counts[key] = self._counts.get(key, 0) + 1
        if n <= MAX_ISSUES_PER_FILE:
            super().append(issue)
            return
        if key not in self._more:
            counting = ParseIssue(code=issue.code, message="", source=issue.source)
            first = issue.message if len(issue.message) <= 200 else issue.message[:200] + "..."
            self._more[key] = counting, first
            self._counting.add(id(counting))
            super().append(counting)
        self._stale = True

    def count_unlisted(self, code: str, file: str | None, n: int) -> None:
        """Count ``n`` more issues of ``code`` for ``file`` that a reader never made, each sure to be past the cap: the
        list must already count (not list) that code's issues of that file, so what it lists and where the counting
        issue stands are what appending them one by one gives (the Junos reader keeps no statement per junk line)."""
        key = (code, file)
        if key not in self._more:
            raise ValueError(f"{code} issues of {file} are not yet past the {MAX_ISSUES_PER_FILE:,} listed")
        self._counts[key] += n
        self._stale = True

    def _finish(self) -> None:
        """Write each counting issue's message with the count so far."""
        if not self._stale:
            return
        self._stale = False
        for key, (counting, first) in self._more.items():
            counting.message = (f"{self._counts[key] - MAX_ISSUES_PER_FILE:,} more {key[0]} issues in this file, "
                                f"from this line on, are not listed one by one (at most {MAX_ISSUES_PER_FILE:,} are); "
                                f"the first: {first}")

    def extend(self, items: Iterable[ParseIssue]) -> None:
        passing = items._counting if isinstance(items, IssueList) else ()
        for issue in items:
            if id(issue) in passing:
                super().append(issue)
                self._counting.add(id(issue))
            else:
                self.append(issue)

    def __iadd__(self, items: Iterable[ParseIssue]) -> IssueList:  # type: ignore[override,misc]
        self.extend(items)
        return self

    def __reduce__(self):
        """Pickled (a lint's worker processes) and copied as the plain list it has become: unpickling an IssueList
        appended its items before its counts were back (AttributeError), and a deep copy counted them twice."""
        return list, (list(self),)


def _finishing(name: str) -> Callable:
    """list's ``name``, after IssueList._finish: list's own methods read its items without __iter__ (``+``, ``==``,
    indexing, ``copy``). (`plain_list + issue_list` cannot be caught: write `[*plain_list, *issue_list]`.)"""
    method = getattr(list, name)

    def read(self: IssueList, *args):
        self._finish()
        return method(self, *args)

    read.__name__ = name
    return read


for _name in ("__iter__", "__reversed__", "__getitem__", "__contains__", "__eq__", "__ne__", "__repr__", "__add__",
              "__mul__", "copy", "index", "count"):
    setattr(IssueList, _name, _finishing(_name))


class LineAt:
    """``line_at(offset)``: the line of an offset into ``text`` (the first line numbered ``first``), counting only the
    newlines since the offset asked before. Offsets come in increasing order as a parser walks; counting from the
    start for each made a parse quadratic (20,000 LLDP JSON entries took 100 s, 100,000 partitions 4 minutes)."""

    def __init__(self, text: str, first: int = 1, search_from: int = 0):
        self.text, self.first = text, first
        self.pos, self.line = 0, first
        self.search_from = search_from  # where find() looks next; -1 after a miss

    def __call__(self, offset: int) -> int:
        if offset < self.pos:  # (back: count again from the start)
            self.pos, self.line = 0, self.first
        self.line += self.text.count("\n", self.pos, offset)
        self.pos = offset
        return self.line

    def find(self, needle: str) -> int | None:
        """The line of ``needle`` found after the last one found (a document's keys, in the order it writes them);
        None when it is not found, and for every find after such a miss: a key written otherwise (in \\u escapes)
        would have each later search pass over the rest of the text (Junos: 20,000 routes took 80 s)."""
        if self.search_from < 0:
            return None
        at = self.text.find(needle, self.search_from)
        self.search_from = at + 1 if at >= 0 else -1
        return self(at) if at >= 0 else None


_PLAIN = lazy(r"[\x20-\x7e\t]*")  # printable ASCII and tabs


def shell_words(line: str, comments: bool = False) -> list[str]:
    """``shlex.split(line)`` (raises ValueError on an unclosed quote), without shlex's per-character Python
    loop for the common line with no quote, backslash or non-ASCII character: then it is ``line.split()``.
    A 32 MiB file of `set` lines took minutes through shlex alone. With ``comments``, a word that starts with `#`
    and what follows are dropped, as split_shell drops them (bash(1), COMMENTS)."""
    if _PLAIN.fullmatch(line) and not any(c in line for c in "'\"\\"):
        words = line.split()
        if comments and "#" in line:
            return next((words[:i] for i, w in enumerate(words) if w.startswith("#")), words)
        return words
    return split_shell(line, comments=comments)


SHELL_SPACE = " \t\r\n"  # shlex's whitespace, where a `#` may start a comment


@functools.lru_cache(maxsize=16)  # (its callers' few constant sets)
def _shell_runs(punctuation: str, comments: bool) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """split_shell's patterns: a run of plain characters, and of ``punctuation``'s (lazy: the command line's lint has
    their programs kept, losslessd.recache; re compiled them again in every process)."""
    special = SHELL_SPACE + "'\"\\" + ("#" if comments else "") + punctuation
    return lazy(f"[^{re.escape(special)}]+"), lazy(f"[{re.escape(punctuation)}]+") if punctuation else None


def split_shell(line: str, punctuation: str = "", comments: bool = False) -> list[str]:
    """The words ``shlex`` gives in POSIX mode with whitespace_split (``shlex.split(line)``; with ``punctuation``,
    ``shlex.shlex(line, posix=True, punctuation_chars=punctuation)`` and its `#` comments when ``comments``), the same
    words and the same ValueError on an open quote or a trailing backslash, but linear: shlex adds each character
    to an attribute string, so a quoted word of 1 MiB took seconds and one of 24 MiB did not end. Runs of plain
    characters are taken whole; quotes, backslashes, `#` and punctuation are read one by one as shlex reads them.
    One difference, with ``comments``: a `#` starts a comment only where it starts a word, as bash(1) COMMENTS has
    it (`a#b` is one word; shlex cut it to `a`), since the only reader of comments is the host-script reader."""
    plain, marks = _shell_runs(punctuation, comments)
    words: list[str] = []
    token: list[str] | None = None  # the word being read (None: between words; [""]: an empty quoted word)
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in SHELL_SPACE or (comments and c == "#" and token is None) or c in punctuation:
            if token is not None:
                words.append("".join(token))
                token = None
            if c == "#":  # (shlex reads to the end of the line)
                nl = line.find("\n", i)
                i = n if nl < 0 else nl + 1
            elif marks is not None and c in punctuation:
                m = marks.match(line, i)
                assert m is not None
                words.append(m.group())
                i = m.end()
            else:
                i += 1
            continue
        token = [] if token is None else token
        if c == "\\":
            if i + 1 >= n:
                raise ValueError("No escaped character")
            token.append(line[i + 1])
            i += 2
        elif c == "'":
            close = line.find("'", i + 1)
            if close < 0:
                raise ValueError("No closing quotation")
            token.append(line[i + 1:close])
            i = close + 1
        elif c == '"':
            i += 1
            while True:
                m = _IN_DOUBLE.match(line, i)
                if m:
                    token.append(m.group())
                    i = m.end()
                if i >= n:
                    raise ValueError("No closing quotation")
                if line[i] == '"':
                    i += 1
                    break
                if i + 1 >= n:
                    raise ValueError("No escaped character")
                nxt = line[i + 1]  # (in double quotes a backslash escapes only " and itself)
                token.append(nxt if nxt in '"\\' else "\\" + nxt)
                i += 2
        elif c == "#":  # (inside a word: a character of it)
            token.append(c)
            i += 1
        else:
            m = plain.match(line, i)
            assert m is not None
            token.append(m.group())
            i = m.end()
    if token is not None:
        words.append("".join(token))
    return words


_IN_DOUBLE = lazy(r'[^"\\]+')


def port_slot(ports: dict[str, T], name: str, make: Callable[[], T], source: Source) -> T:
    """``ports[name]``, made with ``make()`` when new: the one place a parser adds a port, so the count is
    checked while each port is still a few fields (check_port_count; a file of a million `interface`
    lines took 15 GB and 9 minutes when it was checked after the model was built)."""
    slot = ports.get(name)
    if slot is None:
        check_port_count(len(ports) + 1, source.file or "?")
        slot = ports[name] = make()
    return slot


def unknown_queues(indices: Iterable[int], source: Source) -> dict[int, Queue]:
    """The queues of a port whose queuing policy (scheduler-map) is bound but not defined, or whose binding line was
    not read: each queue's scheduling and ECN unknown (ecn_enabled None), not off."""
    return {index: Queue(index=index, ecn=Ecn(ecn_enabled=None, source=source), source=source) for index in indices}


# Text parsers look for their signs in the first part of a file only: sniffing must stay cheap.
# The Junos CLI's own lines around a saved output: the role of the Virtual Chassis member, routing engine or chassis
# cluster node the CLI runs on, which it prints on a line of its own before each prompt (`{master:0}`, `{backup:1}`,
# `{linecard:2}`: the roles of Junos `show virtual-chassis`; `{primary:node0}`, `{secondary:node1}`: SRX chassis
# cluster nodes; `{master:0}[edit]` in configuration mode), and the prompt, alone or with the command typed after it
# (`user@qfx1> show route | display json`).
JUNOS_CLI_LINE = lazy(r"\s*(?:\{(?:master|backup|linecard|primary|secondary)(?::[^{}\s]*)?\}(?:\[edit[^\]]*\])?"
                            r"|[^\s@]+@[^\s>#%]+[>#%](?:\s.*)?)\s*")
# A switch's CLI prompt at a line's start: a host name, a mode in brackets, the prompt's end (EOS, NX-OS, Dell OS10
# and OS9 end it with # in privileged mode, > below it: `leaf1#`, `leaf1(config-if-Et1)#`, `spine2>`).
CLI_PROMPT = lazy(r"[A-Za-z0-9][\w.:@~-]{0,127}(?:\([^)\s]{1,64}\))?[#>]")
# A configuration-mode prompt a session typed a command at (`leaf1(config-pmap-nqos-c)# pause pfc-cos 3`), as a
# pattern's piece, its runs bounded as clitext's session prompt's: an unbounded `\S*\(config[^)]*\)` scanned on
# across lines to the next `)` from each line's start (40,000 lines `x(config` took 4 s, quadratic).
CONFIG_PROMPT_TYPED = r"[^\s(]{0,128}\(config[^)\s]{0,256}\)# ?"
# The same prompt alone on its line or with the command typed at it (`leaf1#show ip route vrf all | json`).
_PROMPT_TYPED = lazy(rf"\s*{CLI_PROMPT.pattern}.*\s*")
# The prompt alone at a line's start, the switch waiting after an output (`CORE1#`, `root@leaf1> `).
PROMPT_ALONE = lazy(rf"{CLI_PROMPT.pattern}\s*$")
# The prompts of devices and shells, defined here once: every reader that finds a prompt in a saved output finds it by
# SHELL_PROMPT (a Linux shell's) or PROMPT_HOST (any prompt, and the switch it names).
# A user name before an @: no blank, quote or bracket (a JSON document's own line never starts with one and an @).
_USER = r"[^\s@\"{}\[\]]*"
# A Linux shell's prompt: bash's default PS1 `\u@\h:\w\$` (`$` below root, `#` for root: `admin@sonic-leaf1:~$`,
# `cumulus@leaf1:mgmt:~$`, `root@gpu01:~#`), one without the working directory (`cumulus@leaf1$`), and RHEL's
# `[\u@\h \W]\$` (`[root@gpu01 ~]#`).
SHELL_PROMPT = lazy(rf"(?:\[{_USER}@[^\s\]]*(?:[ :][^\]\n]*)?\]|{_USER}@[^\s:>#%$\"]*(?::\S*)?)[$#]")
# A shell's prompt alone on its line or with the command typed at it (`admin@sonic-leaf1:~$ vtysh -c "show ip route
# vrf all json"`, `cumulus@leaf1:mgmt:~$ sudo lldpctl -f json`).
_SHELL_PROMPT = lazy(rf"\s*{SHELL_PROMPT.pattern}(?:\s.*)?\s*")


def _cli_line(line: str) -> bool:
    """Whether ``line`` is the CLI's own (JUNOS_CLI_LINE, or a switch's or shell's prompt with or without the command
    typed at it)."""
    # (each form tried only on a line holding a character it cannot match without: a host's LLDP keyvalue line,
    # `lldp.eth0.via=LLDP`, cost _PROMPT_TYPED's host-name run 1.2 us to refuse)
    at = "@" in line
    return ((at or "{" in line) and JUNOS_CLI_LINE.fullmatch(line) is not None) or \
        (("#" in line or ">" in line) and _PROMPT_TYPED.fullmatch(line) is not None) or \
        (at and _SHELL_PROMPT.fullmatch(line) is not None)


def cli_json(text: str) -> str | None:
    """A saved output that is one JSON document once the CLI's banner and prompt lines before and after it
    (JUNOS_CLI_LINE; an EOS or NX-OS prompt, `leaf1#show ip route | json`) are left out, with those lines blanked
    (each character a space, the line ends kept) so that positions and line numbers stay the file's; None for text
    that is no JSON past them. Lines end at "\n" only: a JSON string may hold U+2028 or U+0085 raw (RFC 8259, section
    7: only `"`, `\\` and the control characters below U+0020 must be escaped), which str.splitlines takes for line
    ends, and the string's tail for a prompt line."""
    parts = text.split("\n")
    count = len(parts) - (not parts[-1])  # (the lines: the last part is one unless the text ends with its line end)
    first = 0  # (the lines are made, each with its line end, once a document is found: most outputs are no JSON)
    while first < count and (not (line := parts[first] + "\n" * (first < len(parts) - 1)).strip() or _cli_line(line)):
        first += 1
    if first == count or not parts[first].lstrip().startswith("{"):
        return None
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    last = len(lines) - 1
    while last > first and (not lines[last].strip() or _cli_line(lines[last])):
        last -= 1
    if first == 0 and last == len(lines) - 1:
        return text

    def blank(line: str) -> str:
        body = line.rstrip("\r\n")
        return " " * len(body) + line[len(body):]

    return "".join([*map(blank, lines[:first]), *lines[first:last + 1], *map(blank, lines[last + 1:])])


def cli_json_documents(text: str, file: str | None = None) -> list[tuple[int, str]] | None:
    """cli_json for a session that saved several commands' JSON outputs in one file (`leaf1#show ip route vrf all |
    json`, its document, `leaf1#show ipv6 route vrf all | json`, the next): each document's text, with how many lines
    of the file come before it (its lines are the file's past those); one document is cli_json's text whole, at 0. The
    documents must follow one another with only blank and CLI lines (_cli_line) between them; anything else there and
    the text is one document as cli_json gives it, whose reader then names what follows it. None where cli_json gives
    None. Linear in the text: each document is a slice, never the whole text again. The prompts around the documents
    naming two switches (`leaf1#` before one, `leaf2#` before the next) are two switches' tables in one file ``file``:
    InputError at the second's line, never one table of both."""
    whole = cli_json(text)
    if whole is None:
        return None
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []
    at = _past_space(whole, 0)
    while at < len(whole):
        try:
            _, end = decoder.raw_decode(whole, at)
        except (ValueError, RecursionError):
            return [(0, whole)]  # (its reader says what is wrong, at the line json.loads names)
        spans.append((at, end))
        rest = _past_space(whole, end)
        while rest < len(whole):  # past the CLI's lines to the next document
            stop = whole.find("\n", rest)
            line = whole[rest:len(whole) if stop < 0 else stop + 1]
            if whole[rest] == "{" and not JUNOS_CLI_LINE.fullmatch(line):  # (`{master:0}` before a prompt is the CLI's)
                break
            if not _cli_line(line):
                return [(0, whole)]
            rest = _past_space(whole, rest + len(line))
        at = rest
    if len(spans) < 2:
        return [(0, whole)]
    _session_prompts(text, spans, file)
    lines_before = LineAt(whole, first=0)
    return [(lines_before(start), whole[start:end]) for start, end in spans]


# A prompt at a line's start, and the switch or host it names (`at` after a user name, `shell` in RHEL's brackets, else
# `host`): `user@HOST>` and `user@HOST%` (Junos's CLI and shell), `user@HOST:~$` and `root@HOST:~#` (bash's default PS1
# on Debian and Ubuntu, /etc/skel/.bashrc's `\u@\h:\w\$`: its working directory after a colon; Cumulus Linux's
# `cumulus@HOST:mgmt:~$`, the management VRF before it), `[user@HOST ~]$` and `[root@HOST /etc]#` (RHEL's and CentOS's
# /etc/bashrc, `[\u@\h \W]\$`), `HOST#`, `HOST>`, `HOST(config)#`, `HOST(config-if)# ` (EOS, NX-OS, Dell), `HOST #`,
# `HOST$`. The default PS1s write `\h`, "the hostname up to the first `.`" (the bash manual, PROMPTING): HOST is a
# dotted name's first part (SessionHosts.renamed).
PROMPT_HOST = lazy(rf"[^\S\n]*(?:\[{_USER}@(?P<shell>[^\s:\]]*)(?:[ :][^\]\n]*)?\][$#]"
                         rf"|(?:{_USER}@(?P<at>[^\s:>#%$\"()]*)|(?P<host>[A-Za-z0-9][\w.~-]*))"
                         r"(?:\([^)\n]*\))?(?::\S*)?[^\S\n]?[#>$%])")


def prompt_host(match: re.Match[str] | None) -> str | None:
    """The switch a PROMPT_HOST match (or a match of a pattern built on it) names; None for none (`@:~$`)."""
    return (match["shell"] or match["at"] or match["host"] or None) if match is not None else None


def _session_prompts(text: str, spans: list[tuple[int, int]], file: str | None) -> None:
    """The CLI lines outside the JSON documents (cli_json_documents' ``spans``, offsets of ``text``), prompt by prompt
    through SessionHosts: InputError at the first prompt naming another switch than the session's."""
    hosts = SessionHosts(file)
    line_at = LineAt(text)  # (counted on from the last prompt: from the top at each was quadratic)
    ends = [0, *(end for _, end in spans)]
    for begin, stop in zip(ends, [*(start for start, _ in spans), len(text)], strict=True):
        at = begin
        while at < stop:
            end = text.find("\n", at, stop)
            end = stop if end < 0 else end
            line = text[at:end]
            if _cli_line(line) and (prompt := PROMPT_HOST.match(line)):
                hosts.prompt(prompt_host(prompt), line_at(at), line)
                hosts.typed(line[prompt.end():].split())
            at = end + 1


_NOT_SPACE = lazy(r"[^ \t\r\n]")  # past JSON's white space (RFC 8259, section 2)


def _past_space(text: str, at: int) -> int:
    """Where the first character from ``at`` on that is no JSON white space is (the text's end if none)."""
    found = _NOT_SPACE.search(text, at)
    return found.start() if found else len(text)


SNIFF_CHARS = 256 * 1024


def sniff_text(inp: Input, platform: str, *signs: re.Pattern, foreign: re.Pattern | None = None) -> bool:
    """A capture whose header names ``platform``; any other file when one of ``signs`` and not ``foreign``
    is found in its first SNIFF_CHARS."""
    named = capture.sniff_platform(inp.text)
    if named is not None:
        return named == platform
    head = inp.text[:SNIFF_CHARS]
    return not (foreign and foreign.search(head)) and any(sign.search(head) for sign in signs)


def command_matches(section: capture.Section, command: re.Pattern) -> bool:
    """Whether a capture section ran ``command`` (matched with runs of spaces made one)."""
    return command.match(" ".join(section.command.split())) is not None


def refused(section: capture.Section, platform: str) -> bool:
    """Whether the device refused the section's command (a refusal of the platform's, platforms.Platform.refusals,
    at the head of its output: NX-OS's `% Invalid command` with `feature lldp` off, `command not found` on a switch
    without lldpcli), as `pull` saves an optional command's answer: what it would show is not known, which is no fault
    of the input."""
    return PLATFORMS[platform].refusal(section.output[:400])


def answered(sections: list[capture.Section], platform: str) -> list[capture.Section]:
    """The sections the device did not refuse (``refused``): an optional command it refused is as if it had not run.
    (A refused required command is left to its reader, whose error names it: give that one all the sections.)"""
    return [sec for sec in sections if not refused(sec, platform)]


def last_sections(sections: list[capture.Section], commands: dict[str, re.Pattern]) -> dict[str, capture.Section]:
    """Per kind of ``commands``, the last section that ran it: of a command given twice, the last output counts. For
    optional commands, pass the ``answered`` sections."""
    return {kind: sec for sec in sections for kind, command in commands.items() if command_matches(sec, command)}


def config_inputs(inputs: list[Input], platform: str, command: re.Pattern, missing: str) -> tuple[list[Input], str | None]:
    """Plain config files as they are; losslessd captures reduced to the sections whose command matches
    ``command`` (every one, in order, keeping the capture file's line numbers). Also the device name a
    capture header gives. ``missing`` names the command in the error for a capture without one."""
    configs, name, _ = capture_inputs(inputs, platform, command, missing, {})
    return configs, name


class Captured(NamedTuple):
    """One capture as capture_inputs split it: its ``path``; ``last``, of each kind of optional command, the last
    section the device answered (last_sections); ``answered``, every section the device did not refuse, in order."""

    path: str
    last: dict[str, capture.Section]
    answered: list[capture.Section]


_Sections = list[Captured]


def capture_inputs(inputs: list[Input], platform: str, command: re.Pattern, missing: str,
                   others: dict[str, re.Pattern]) -> tuple[list[Input], str | None, _Sections]:
    """config_inputs, and each capture's sections the device did not refuse, with the last of each kind of ``others``,
    the optional commands (Captured): each capture is split into its sections once, however many commands the
    platform reads from it."""
    configs: list[Input] = []
    name = None
    extra: _Sections = []
    for inp in inputs:
        if not capture.is_capture(inp.text):
            configs.append(inp)
            continue
        header, sections = capture.for_platform(inp.text, inp.path, platform)
        name = header["device"]
        found = [sec for sec in sections if command_matches(sec, command)]
        if not found:
            raise InputError(f"this {platform} capture has no `{missing}` section", file=inp.path, line=1)
        configs.extend(Input(inp.path, capture.section_text(sec)) for sec in found)
        if others:
            kept = answered(sections, platform)
            extra.append(Captured(inp.path, last_sections(kept, others), kept))
    return configs, name, extra


_SHOW_VERSION = lazy(r"^\s*show\s+version\b")


def _model_in(sec: capture.Section, path: str, pattern: re.Pattern) -> tuple[str, Source] | None:
    """The model a `show version` section prints and its line in the capture (an error about the model names it)."""
    m = pattern.search(sec.output)
    if m is None:
        return None
    return m.group(1).strip(), Source(file=path, line=sec.line + sec.output.count("\n", 0, m.start(1)))


def hardware_model(inputs: list[Input], platform: str, pattern: re.Pattern) -> tuple[str, Source] | None:
    """The hardware model a capture's `show version` section prints (``pattern``'s first group) and where, for the
    renderer's command families; None without such a section."""
    for inp in inputs:
        if not capture.is_capture(inp.text):
            continue
        _, sections = capture.for_platform(inp.text, inp.path, platform)
        for sec in reversed(sections):
            if _SHOW_VERSION.match(sec.command) and (found := _model_in(sec, inp.path, pattern)):
                return found
    return None


# capture_inputs' ``others`` for captured_model: each capture's last `show version`.
VERSION = {"version": _SHOW_VERSION}


def captured_model(inputs: list[Input], platform: str, pattern: re.Pattern,
                   found: _Sections) -> tuple[str, Source] | None:
    """hardware_model from the sections capture_inputs kept (``found``, with VERSION among its others), so a capture
    is not split again for its model. Where a capture's last `show version` names none, hardware_model reads the
    captures again (it also looks at the earlier `show version` sections): the same model either way."""
    for captured in found:
        sec = captured.last.get("version")
        if sec is None:
            continue
        return _model_in(sec, captured.path, pattern) or hardware_model(inputs, platform, pattern)
    return None


def positional(cls: type, *names: str):
    """``make(*values)``: a ``cls`` object with ``names`` set to ``values`` and every other field its default, as
    ``cls(**dict(zip(names, values)))`` makes it, without the keyword call to the class (a switch has hundreds of
    queues and PGs: that call was half their cost). Its first objects are made by reading the fields, the rest by code
    written for the class (records.written_later: a maker a run calls a few times compiles nothing)."""
    if hasattr(cls, "__post_init__"):  # (it would be skipped without a word)
        raise TypeError(f"{cls.__name__} has a __post_init__: build it with its constructor")
    env: dict = {"_new": object.__new__, "cls": cls}
    lines = [f"def make({', '.join(names)}):", "    o = _new(cls)"]
    plan = []  # (each field in order: its name, its value's place among the values or -1, its factory, its default)
    for f in dataclasses.fields(cls):
        if f.name in names:
            lines.append(f"    o.{f.name} = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            env[f"f_{f.name}"] = f.default_factory
            lines.append(f"    o.{f.name} = f_{f.name}()")
        elif f.default is not dataclasses.MISSING:
            env[f"d_{f.name}"] = f.default
            lines.append(f"    o.{f.name} = d_{f.name}")
        else:
            raise TypeError(f"{cls.__name__}.{f.name} has no default: name it")
        plan.append((f.name, names.index(f.name) if f.name in names else -1, f.default_factory, f.default))
    unknown = set(names) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    new, count, missing = object.__new__, len(names), dataclasses.MISSING

    def read(*values: Any) -> Any:
        if len(values) != count:  # (refused by the written code, in its words)
            return NotImplemented
        o: Any = new(cls)
        for name, at, factory, default in plan:
            setattr(o, name, values[at] if at >= 0 else default if factory is missing else factory())
        return o

    return written_later("\n".join([*lines, "    return o", ""]), f"<make {cls.__name__}>", env, read)


# Source(file=file, line=line), as positional(...) makes it: text parsers give each fact one (a host capture ~30).
line_source = positional(Source, "file", "line")


# EOS abbreviates its own interfaces in the neighbour table (Et1, Et49/1, Ma1, Po10), NX-OS its tables and routes
# (Eth1/49, Po10, Lo0); the configs spell them Ethernet1/49, Port-Channel10 / port-channel10, loopback0.
_SHORT_INTERFACE = {"Et": "Ethernet", "Eth": "Ethernet", "Ma": "Management", "Po": "Port-Channel", "Lo": "Loopback"}
_SHORT_INTERFACE_RE = lazy(r"^(Eth|Et|Ma|Po|Lo)(\d.*)$")
_ANY_CASE_INTERFACE = lazy(r"^(ethernet|eth|et|ma|po|lo)(\d.*)$", re.IGNORECASE)


def long_interface_name(name: str, ignore_case: bool = False) -> str:
    """`Et49/1` (EOS), `Eth1/49` (NX-OS) -> `Ethernet49/1`, `Ethernet1/49`: short interface names, as the configs
    spell them. ``ignore_case``: the name was typed in a CLI that takes it in any case (`eth1/1`, `ETH1/1`)."""
    if ignore_case:
        m = _ANY_CASE_INTERFACE.match(name)
        return _SHORT_INTERFACE.get(m[1].capitalize(), "Ethernet") + m[2] if m else name
    m = _SHORT_INTERFACE_RE.match(name)
    return _SHORT_INTERFACE[m.group(1)] + m.group(2) if m else name


# bash(1) Here Documents: `[n]<<[-]word`; the body runs up to a line holding only the word (quotes removed); with
# `<<-` leading tabs are stripped from it first. `<<<` is a here-string (one word, no body).
# (`: <<=cut`: a Perl POD block after a script's `exit`)
HEREDOC = lazy(r"(?<!<)<<(-?)[ \t]*(?:'([^'\n]+)'|\"([^\"\n]+)\"|\\?([A-Za-z0-9_.=-]+))(?!<)")
# bash(1) QUOTING, taken left to right as bash reads them: a backslash quotes the next character (`Can\'t` opens no
# single quote), `$'...'` takes `\'` inside it, `'...'` none, `"..."` takes `\"`.
_HEREDOC_QUOTED = lazy(r"(\\.|\$'[^'\\]*(?:\\.[^'\\]*)*'|\"[^\"\\]*(?:\\.[^\"\\]*)*\"|'[^']*')", re.DOTALL)
_HEREDOC_ARITHMETIC = lazy(r"\(\(.*?\)\)")  # bash(1) ARITHMETIC EVALUATION: `(( expr ))`, `$(( expr ))`
# bash(1) COMMENTS: a `#` that begins a word (at the line's start, after a blank or an operator character) and the
# rest of the line are ignored, so a `<<` there opens nothing (`ROCE_TOS=106  # DSCP 26 << 2 | ECT(0)`).
_HEREDOC_COMMENT = lazy(r"(?:^|(?<=[ \t;&|()]))#")


def heredoc_ends(line: str) -> list[tuple[str, bool]]:
    """(delimiter, tabs stripped) of each here-document a shell line opens, outside quotes and comments (the host and
    NVUE script readers)."""
    if "<<" not in line:
        return []
    # (`echo "a << b"` opens none, nor a shift in arithmetic: `$((tos << 2))`, `(( x <<= 1 ))`)
    # The quoted and arithmetic spans merged into disjoint ones, each `<<` looked up by bisection (a test of every
    # `<<` against every span was quadratic in a line of both: 8,000 `'q' <<E` pairs 5 s).
    merged: list[list[int]] = []
    for a, b in sorted(m.span() for pattern in (_HEREDOC_QUOTED, _HEREDOC_ARITHMETIC) for m in pattern.finditer(line)):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    starts = [a for a, _ in merged]

    def quoted(at: int) -> bool:
        i = bisect.bisect_right(starts, at) - 1
        return i >= 0 and at < merged[i][1]

    # (the character before the `#` must be read unquoted too: `echo a\\ #b` is one word, `a #b`)
    comment = next((m.start() for m in _HEREDOC_COMMENT.finditer(line)
                    if not quoted(m.start()) and not (m.start() and quoted(m.start() - 1))), len(line))
    return [(m.group(2) or m.group(3) or m.group(4), m.group(1) == "-") for m in HEREDOC.finditer(line, 0, comment)
            if not quoted(m.start())]


def heredoc_closes(line: str, delimiter: str, tabs: bool) -> bool:
    """Whether ``line`` ends the here-document of ``delimiter`` (`<<-`: after its leading tabs)."""
    return (line.lstrip("\t") if tabs else line).rstrip("\r") == delimiter
